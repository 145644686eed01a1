"""The secure table end to end: `potionpi tls` makes the table CA and certificate,
`potionpi run` serves HTTPS beside plain HTTP, and a Chromium that really trusts the table
CA (a fresh NSS database in its own HOME, where Chromium on Linux keeps the roots a user
added; nothing is ignored) opens https://<host>.local:<port>/ as the tablet would: a
secure context with the real Wake Lock, the service worker, the installable app, and
the board again on a reload while the table box is down.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.e2e.conftest import CHROMIUM_FLAGS, TABLE_NAME, find_chromium
from tests.e2e.daemon_proc import DaemonProcess, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def no_certutil() -> None:
    message = ("HTTPS BROWSER TEST NOT RUN: certutil (Debian's libnss3-tools) is missing; it puts "
               "the table CA into the test browser's trust store (sudo apt-get install libnss3-tools)")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: a missing tool is a failure)", pytrace=False)
    pytest.skip(message)


@pytest.fixture
def secure_table(tmp_path):
    """`potionpi tls`, then `potionpi run --sim` on a free HTTP and a free HTTPS port."""
    data = tmp_path / "data"
    made = subprocess.run([sys.executable, "-m", "controller.cli", "tls", "--data-dir", str(data)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    assert "SHA-256 fingerprint" in made.stdout
    https_port = free_port()
    daemon = DaemonProcess(data, "--https-port", str(https_port)).start()
    daemon.https_port = https_port
    yield daemon
    if daemon.proc.poll() is None:
        daemon.terminate()


@pytest.fixture
def trusting_browser(tmp_path, secure_table, browser):
    """Chromium whose trust store holds the table CA, with a profile of its own (not the
    incognito-like context Playwright makes by default: no app installs from one).
    Launched by the session's Playwright (one per worker: a second one cannot start
    beside it)."""
    if shutil.which("certutil") is None:
        no_certutil()

    home = tmp_path / "home"
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run(["certutil", "-N", "-d", f"sql:{nssdb}", "--empty-password"], check=True)
    subprocess.run(["certutil", "-A", "-d", f"sql:{nssdb}", "-n", "potionpi table CA", "-t", "C,,",
                    "-i", str(secure_table.data_dir / "tls" / "ca.crt")], check=True)
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=find_chromium(), headless=True, args=CHROMIUM_FLAGS,
        env={**os.environ, "HOME": str(home)}, viewport={"width": 1024, "height": 768}, has_touch=True)
    yield context
    context.close()


def test_the_secure_table_holds_the_wake_lock_and_reloads_without_the_table(
        trusting_browser, secure_table, output_dir):
    daemon = secure_table
    status, session = daemon.request("POST", "/api/v1/session", {"game": "mix-it", "players": ["Ann", "Ben"]})
    assert status == 201, session
    url = f"https://{TABLE_NAME}:{daemon.https_port}/"
    context = trusting_browser
    errors: list[str] = []
    page = context.pages[0] if context.pages else context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(30_000)
    cdp = context.new_cdp_session(page)
    # nothing granted by hand: Chromium gives a visible secure page the screen wake lock
    # unasked, as Chrome on a tablet does (CDP's Browser.grantPermissions "wakeLockScreen"
    # is not needed)
    page.goto(url)
    page.wait_for_selector("body[data-ready=yes]")
    assert page.evaluate("isSecureContext") is True
    assert page.evaluate("location.protocol") == "https:"

    # the real Wake Lock holds the screen; no video is needed
    page.wait_for_function("document.body.dataset.awake === 'lock'")
    assert page.evaluate("document.querySelector('video.awake-video') === null")

    # the service worker is there, and the page is its
    page.wait_for_selector("body[data-worker=ready]")
    page.reload()
    page.wait_for_selector("body[data-ready=yes]")
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == url + "sw.js"

    # installable as an app: Chromium's own verdict (secure, manifest, icons, worker)
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    manifest = cdp.send("Page.getAppManifest")
    assert not manifest["errors"], manifest["errors"]
    page.screenshot(path=str(output_dir / "secure-table.png"))

    # the table box is switched off: a reload still shows the board, under the cover
    assert daemon.terminate() == 0
    page.reload()
    page.wait_for_selector("#mi")
    assert page.get_attribute("body", "data-view") == "table"
    page.wait_for_selector("#offline:not([hidden])")
    page.screenshot(path=str(output_dir / "reload-while-the-table-is-off.png"))
    assert not errors, errors


def test_plain_http_keeps_working_beside_it_for_the_phones(browser, secure_table):
    """The same daemon, its plain port, as a phone opens it: no certificate involved."""
    daemon = secure_table
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"http://{TABLE_NAME}:{daemon.port}/")
    page.wait_for_selector("body[data-ready=yes]")
    assert page.evaluate("isSecureContext") is False
    assert page.evaluate("navigator.serviceWorker === undefined || navigator.serviceWorker.controller === null")
    context.close()
