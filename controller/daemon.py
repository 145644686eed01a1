"""One process: devices, table, store and web server, started and stopped together."""
from __future__ import annotations

import functools
import logging
import threading
from pathlib import Path
from typing import Any, Callable

from . import __version__, pin_watch, secrets_store
from .config import Config, default_data_dir
from .service import discovery, logs, notify
from .store import Store
from .table import Table

log = logging.getLogger(__name__)
DB_FILE = "potionpi.sqlite3"
PIN_BUDGET_FILE = "pin_budget.json"
TABLETS_FILE = "tablets.json"
SEATS_FILE = "seats.json"


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
        # beside journald: the settings page offers it for download
        self._log_file = logs.open_log_file(self.data_dir)
        # held while the daemon runs: `potionpi pin` knows someone will take a new PIN
        self._lock = pin_watch.hold_lock(self.data_dir)
        if self._lock is None:
            log.warning("another potionpi already runs with the data dir %s", self.data_dir)
        self.pin_watch: pin_watch.PinWatch | None = None
        try:
            self.watchdog: notify.Watchdog | None = None
            self.store = Store(self.data_dir / DB_FILE)
            self.table = Table(self.store)
            self.table.resume()
            self.pin, self.pin_source = secrets_store.table_pin(self.data_dir, config["table"]["pin"])
            # wired both ways by build: sensors into the table, the table's effects to the devices
            self.devices = DeviceHub.build(config, sim=sim, sim_mcu=sim_mcu, table=self.table, say=say)
            self.firmware = FirmwareWatch(self.table)
            if self.devices.forest_floor is not None:
                self.devices.forest_floor.on_change(self.firmware)
            secret = secrets_store.secret_key(self.data_dir)
            self.app = create_app(table=self.table, devices=self.devices, pin=self.pin,
                                  secret_key=secret, settings=self.settings())
            # `potionpi pin --set/--new` rewrites the file: the running table takes it at once
            # (or, with its PIN from the config or POTIONPI_PIN, says at once that it keeps that)
            kept = None if self.pin_source in ("data dir", "generated") else self.pin_source
            self.pin_watch = pin_watch.PinWatch(self.data_dir, secret, self._pin_changed, self.pin,
                                                kept_from=kept)
            # the owner's pages (join, settings, log download) read these
            self.app.extensions["potionpi"].extras["service"] = {
                "data_dir": self.data_dir, "firmware": self.firmware, "urls": []}
        except BaseException:
            logs.close_log_file(self._log_file)
            if self._lock is not None:
                self._lock.close()
            raise
        self.server: Any = None
        self.https: Any = None            # the HTTPS listener, when the table has a certificate
        self.host = config["web"]["host"]
        self._thread: threading.Thread | None = None
        self._closed = False

    def _pin_changed(self, pin: str) -> dict[str, int]:
        self.pin = pin
        return self.app.extensions["potionpi"].change_pin(pin)

    def settings(self) -> dict[str, Any]:
        web = self.config["web"]
        # threads go to the app too: it caps live streams so taps always find a free thread
        return {"keepalive_seconds": web["keepalive_seconds"], "threads": web["threads"],
                # wrong PINs are counted table-wide across restarts (web_ui/auth.py)
                "pin_budget_file": str(self.data_dir / PIN_BUDGET_FILE),
                # the unlocked tablets, so Lock revokes a cookie and a restart keeps the rest
                "tablets_file": str(self.data_dir / TABLETS_FILE),
                # which phone holds which seat, so a restart keeps the phones on their seats
                "seats_file": str(self.data_dir / SEATS_FILE),
                # names the table answers to besides its own (web_ui/hosts.py)
                "names": web["names"]}

    def start(self, host: str | None = None, port: int | None = None, https_port: int | None = None) -> int:
        """Bind and serve in a background thread; returns the port actually bound. With a
        certificate from `potionpi tls`, HTTPS is served on ``https_port`` too."""
        from web_ui.server import make_server

        web = self.config["web"]
        self.server = make_server(self.app, host or web["host"], web["port"] if port is None else port,
                                  threads=web["threads"])
        self.host = host or web["host"]
        self.https = self._listen_https(web["https_port"] if https_port is None else https_port)
        self._thread = threading.Thread(target=self.server.run, name="web", daemon=True)
        self._thread.start()
        if self.pin_watch is not None:
            self.pin_watch.start()
        service = self.app.extensions["potionpi"].extras["service"]
        service["urls"] = self.urls(self.host)
        service["http_port"] = self.server.port
        service["https_port"] = self.https.effective_port if self.https is not None else None
        # systemd (Type=notify): the table is up; the watchdog pings while it stays healthy
        notify.notify(f"READY=1\nSTATUS={self.status_line()}")
        interval = notify.watchdog_interval()
        if interval is not None:
            self.watchdog = notify.Watchdog(interval, lambda: self.healthy(interval / 2),
                                            self.status_line).start()
        return self.server.port

    def urls(self, host: str) -> list[str]:
        """Addresses a tablet on the same network can open, the plain IP address first."""
        return discovery.table_urls(host, self.server.port)

    def https_urls(self) -> list[str]:
        """The table's HTTPS addresses (its .local name first), if it serves HTTPS."""
        if self.https is None:
            return []
        from web_ui.tls import https_url
        port = self.https.effective_port
        if self.host not in ("0.0.0.0", "::", ""):
            return [https_url(self.host, port)]
        return [https_url(discovery.mdns_name(), port), *(https_url(a, port) for a in discovery.interface_addresses())]

    def _listen_https(self, port: int) -> Any:
        """The HTTPS listener on ``port`` (0: none), once `potionpi tls` made the table's
        certificate; it is made again first when the Pi's names or addresses changed. A
        port it cannot have is said, and the table goes on over plain HTTP."""
        from .service import tls_files

        if not port or not tls_files.ready(self.data_dir):
            return None
        from web_ui.tls import listen_https     # only with a certificate
        from .service import certs
        try:
            why = certs.refresh(self.data_dir)
            if why:
                self.say(f"  made a new HTTPS certificate for the table: {why}")
        except Exception as exc:             # the old certificate still serves
            log.warning("could not make a new HTTPS certificate (%s); serving the old one", exc)
        try:
            return listen_https(self.server, self.host, port, certs.server_context(self.data_dir))
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            hint = (" (a port below 1024 needs `sudo .venv/bin/potionpi install`, which grants the "
                    "service that one capability)") if port < 1024 and isinstance(exc, PermissionError) else ""
            self.say(f"potionpi: cannot serve HTTPS on port {port}: {reason}{hint}; "
                     "the table goes on over plain HTTP")
            log.warning("no HTTPS on port %s: %s", port, reason)
            return None

    def healthy(self, timeout: float) -> bool:
        """The table's writer is not hung (its lock comes free within ``timeout``) and the
        tablet page answers: ``GET /healthz`` within ``timeout``."""
        if self._thread is None or not self._thread.is_alive() or self.server is None:
            return False
        if not self.table.responsive(timeout):
            return False
        return discovery.page_answers(self.host, self.server.port, timeout)

    def status_line(self) -> str:
        """One line for `systemctl status`: where to open the table and what it plays."""
        session = self.table.session()
        game = "no game" if session is None else f"{session['game']} at move {session['version']}"
        url = self.urls(self.host)[0] if self.server is not None else ""
        return f"potionpi {__version__}: {url} {game}".replace("  ", " ")

    def close(self) -> None:
        """Stop serving, release devices, close the database. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        notify.notify("STOPPING=1")
        if self.watchdog is not None:
            self.watchdog.stop()
        if self.pin_watch is not None:
            self.pin_watch.stop()
        self.table.close()                  # ends live streams so their threads return
        if self.server is not None:
            self.server.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.devices.close()
        self.store.close()
        log.info("potionpi stopped")
        logs.close_log_file(self._log_file)
        if self._lock is not None:
            self._lock.close()


class FirmwareWatch:
    """Tells the tablets once per connection when the Pico's firmware is older than the one
    this potionpi brings (``potionpi update`` flashes it). Listens to the floor's status."""

    def __init__(self, table: Table):
        self.table = table
        self.pico: str | None = None
        self._told: str | None = None

    @functools.cached_property
    def host(self) -> str:
        """The firmware this potionpi brings, read when first asked (the flashing and
        link tools it comes with are not needed to run a table without a Pico)."""
        from .firmware_tools import firmware_version
        return firmware_version()

    @property
    def older(self) -> bool:
        if self.pico is None:                 # no Pico has answered: nothing can be older
            return False
        from .service.check import firmware_older
        return firmware_older(self.pico, self.host)

    def __call__(self, status: dict[str, Any]) -> None:     # from the floor's threads
        link = status.get("link") or {}
        self.pico = link.get("firmware") or self.pico
        if not self.older or self._told == self.pico:
            return
        self._told = self.pico
        message = (f"The forest-floor Pico runs firmware {self.pico}, older than this "
                   f"potionpi's {self.host}: run `potionpi update` (or `potionpi firmware "
                   "flash`) when the game is over.")
        log.warning(message)
        # not from the floor's thread: the table's lock must never wait on the floor's
        threading.Thread(target=self.table.notice, args=({"kind": "firmware", "message": message},),
                         daemon=True).start()
