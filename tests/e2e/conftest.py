"""Browser fixtures: Debian's Chromium driven by Playwright, and a live table to point it at.

Playwright's own browser download does not work on the Pi or in CI, so we drive the
system Chromium through ``executable_path``. Without one the browser tests are skipped
with a loud notice, except under ``CI=true``, where a missing browser is a failure.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from controller.service.discovery import mdns_name

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
# The name a real tablet opens the table by (http://<host>.local:8080/), mapped to the test's
# server: unlike 127.0.0.1 it is not a secure context, as at a real table.
TABLE_NAME = mdns_name()
CHROMIUM_FLAGS.append(f"--host-resolver-rules=MAP {TABLE_NAME} 127.0.0.1")
_missing_browser: list[str] = []


def find_chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _no_browser(reason: str):
    message = (f"BROWSER TESTS NOT RUN: {reason}. Install Debian's Chromium "
               "(sudo apt-get install chromium) to run them.")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: a missing browser is a failure)", pytrace=False)
    _missing_browser.append(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def browser():
    chromium = find_chromium()
    if chromium is None:
        _no_browser("no Chromium found at /usr/bin/chromium or on PATH")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _no_browser("the playwright package is not installed")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def pytest_terminal_summary(terminalreporter):
    if _missing_browser:
        terminalreporter.write_sep("!", "BROWSER TESTS SKIPPED", red=True, bold=True)
        terminalreporter.write_line(_missing_browser[0], red=True, bold=True)


@pytest.fixture
def output_dir(request) -> Path:
    """test-output/<test name>/ under the repository root, for screenshots."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    path = Path(request.config.rootpath) / "test-output" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class LiveTable:
    """A table served by waitress: the base URL plus the objects behind it."""

    url: str
    table: Any
    app: Any
    port: int = 0
    server: Any = None
    thread: Any = None
    phones: dict = field(default_factory=dict)      # (game id, seat) -> (Phone, token)

    @classmethod
    def start(cls, table, devices) -> "LiveTable":
        """Serve ``table`` and ``devices`` with the tablet app on a free port (test PIN, short timers)."""
        from tests.web.helpers import PIN, SECRET
        from web_ui import create_app
        app = create_app(table=table, devices=devices, pin=PIN, secret_key=SECRET,
                         settings={"keepalive_seconds": 2.0})
        live = cls("", table, app)
        live.serve()
        return live

    def serve(self) -> None:
        from web_ui.server import make_server
        self.server = make_server(self.app, "127.0.0.1", self.port, threads=12)
        self.port = self.server.port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.close()
        self.thread.join(timeout=10)

    def play(self, action: dict, version: int | None = None) -> tuple[int, Any]:
        """One action as the table plays it: a seat's secret action (``Game.is_secret``: a
        drink, a hand card) from that seat's own phone, everything else with the PIN."""
        body = {"action": action} if version is None else {"action": action, "version": version}
        engine, state, session = self.table._engine, self.table._state, self.table.session()
        if engine is None or not engine.is_secret(state, action):
            return self.call("POST", "/api/v1/session/actions", body)
        key = (session["id"], action["seat"])
        if key not in self.phones:
            from tests.web.helpers import Phone
            _, seats = self.call("GET", "/api/v1/seats")
            self.phones[key] = (Phone(self.url), seats["seats"][action["seat"]]["token"])
        phone, token = self.phones[key]
        status, answer = phone.post(f"/api/v1/seat/{token}/actions", body)
        return status, (self.table.session() if status == 200 else answer)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, Any]:
        """What a script (or a sensor) does: the API with the X-Table-Pin header."""
        from tests.web.helpers import AUTH
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json", **AUTH})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())


@pytest.fixture
def live_table(tmp_path):
    from controller.store import Store
    from controller.table import Table
    from tests.web.helpers import sim_hub

    store = Store(tmp_path / "table.sqlite3")
    table = Table(store)
    hub = sim_hub(table, seed=11)
    live = LiveTable.start(table, hub)
    yield live
    live.stop()
    hub.close()
    store.close()


@pytest.fixture
def tablet(browser, live_table):
    """A fresh browser page at 1024x768 on the live table; fails the test on any JS error."""
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.set_default_timeout(30_000)          # generous: only a ceiling, never a measurement
    yield page
    context.close()
    # 4xx answers the page handles itself (e.g. the 401 before the PIN) show as console errors
    real = [e for e in errors if "Failed to load resource" not in e]
    assert not real, f"the page reported errors: {real}"


@pytest.fixture
def page_on(browser):
    """page_on(url, size=(1024, 768), ready=...) → a fresh touch page; any JS error fails the test."""
    contexts, errors = [], []

    def make(url, size=(1024, 768), ready="body[data-ready=yes]"):
        context = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=True)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.set_default_timeout(30_000)
        page.goto(url)
        page.wait_for_selector(ready)
        return page

    yield make
    for context in contexts:
        context.close()
    real = [e for e in errors if "Failed to load resource" not in e]
    assert not real, f"the page reported errors: {real}"
