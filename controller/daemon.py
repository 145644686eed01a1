"""One process: devices, table, store and web server, started and stopped together."""
from __future__ import annotations

import logging
import socket
import threading
from pathlib import Path
from typing import Any, Callable

from . import secrets_store
from .config import Config, default_data_dir
from .store import Store
from .table import Table

log = logging.getLogger(__name__)
DB_FILE = "potionpi.sqlite3"
PIN_BUDGET_FILE = "pin_budget.json"
TABLETS_FILE = "tablets.json"


class Daemon:
    """Build with a validated Config; ``start()`` serves in a thread; ``close()`` releases all."""

    def __init__(self, config: Config, *, sim: bool = False, data_dir: str | Path | None = None,
                 sim_mcu: bool = False, say: Callable[[str], None] = print):
        from .devices.hub import DeviceHub   # devices import gpiozero; keep `potionpi --help` light
        from web_ui import create_app

        self.config = config
        self.say = say
        self.data_dir = Path(data_dir or config["store"]["data_dir"] or default_data_dir())
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.store = Store(self.data_dir / DB_FILE)
        self.table = Table(self.store)
        self.table.resume()
        self.pin, self.pin_source = secrets_store.table_pin(self.data_dir, config["table"]["pin"])
        # wired both ways by build: sensors into the table, the table's effects to the devices
        self.devices = DeviceHub.build(config, sim=sim, sim_mcu=sim_mcu, table=self.table, say=say)
        self.app = create_app(table=self.table, devices=self.devices, pin=self.pin,
                              secret_key=secrets_store.secret_key(self.data_dir),
                              settings=self.settings())
        self.server: Any = None
        self._thread: threading.Thread | None = None
        self._closed = False

    def settings(self) -> dict[str, Any]:
        web = self.config["web"]
        # threads go to the app too: it caps live streams so taps always find a free thread
        return {"keepalive_seconds": web["keepalive_seconds"], "threads": web["threads"],
                # wrong PINs are counted table-wide across restarts (web_ui/auth.py)
                "pin_budget_file": str(self.data_dir / PIN_BUDGET_FILE),
                # the unlocked tablets, so Lock revokes a cookie and a restart keeps the rest
                "tablets_file": str(self.data_dir / TABLETS_FILE)}

    def start(self, host: str | None = None, port: int | None = None) -> int:
        """Bind and serve in a background thread; returns the port actually bound."""
        from web_ui.server import make_server

        web = self.config["web"]
        self.server = make_server(self.app, host or web["host"], web["port"] if port is None else port,
                                  threads=web["threads"])
        self._thread = threading.Thread(target=self.server.run, name="web", daemon=True)
        self._thread.start()
        return self.server.port

    def urls(self, host: str) -> list[str]:
        """Addresses a tablet on the same network can open."""
        port = self.server.port
        if host not in ("0.0.0.0", "::", ""):
            return [f"http://{host}:{port}/"]
        urls = [f"http://{socket.gethostname()}.local:{port}/"]
        try:   # the address the Pi uses on the LAN; no packet is sent by a UDP connect
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(("10.255.255.255", 1))
                urls.append(f"http://{s.getsockname()[0]}:{port}/")
        except OSError:
            pass
        urls.append(f"http://127.0.0.1:{port}/")
        return urls

    def close(self) -> None:
        """Stop serving, release devices, close the database. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.table.close()                  # ends live streams so their threads return
        if self.server is not None:
            self.server.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.devices.close()
        self.store.close()
        log.info("potionpi stopped")
