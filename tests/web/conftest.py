"""Fixtures for the web tests: a real Table on a temporary SQLite store, the simulated
cauldron wired to it, the Flask app, and a live waitress server on a free port."""
from __future__ import annotations

import threading

import pytest

from controller.store import Store
from controller.table import Table
from web_ui import create_app
from web_ui.server import make_server

from .helpers import PIN, SECRET, sim_hub

# Short enough that a test sees several keep-alives, long enough not to flood.
FAST_STREAM = {"keepalive_seconds": 0.3}


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "table.sqlite3")
    yield s
    s.close()


@pytest.fixture
def table(store):
    return Table(store)


@pytest.fixture
def hub(table):
    h = sim_hub(table, seed=7)
    yield h
    h.close()


@pytest.fixture
def app(table, hub):
    return create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET, settings=dict(FAST_STREAM))


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def live(app):
    """A waitress server in a thread: yields its base URL."""
    server = make_server(app, "127.0.0.1", 0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}"
    server.close()
    thread.join(timeout=10)
    assert not thread.is_alive(), "the server did not stop"
