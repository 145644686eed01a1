"""`potionpi` command line: run the daemon, print config, manage the PIN, tools."""
from __future__ import annotations

import argparse
import errno
import gc
import json
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from . import __version__
from .config import SCHEMA, Config, ConfigError, default_data_dir, default_file, is_pin
from .service import CHECK_PARTS, SIM_FAULTS

if TYPE_CHECKING:
    from .store import Store

    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command asked for something it cannot do as called; the sentence says how to call it
    (exit status 2). The commands' own modules raise it; ``main`` says it."""


def port_number(text: str) -> int:
    """--port: 0 to 65535 (the kernel would take 99999 modulo 65536 without a word)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number; use 0 to 65535") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number; use 0 to 65535")
    return port


def asked_command(argv: list[str]) -> str | None:
    """The command ``argv`` names (the first word; the top level's options take no value),
    unless it asks for the top level's help or names no command we have."""
    for arg in argv:
        if arg in ("-h", "--help"):
            return None
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command's arguments; ``only``: that command's alone (``main`` builds the one
    it runs: the daemon's start need not build fifteen parsers, ~3 ms of its CPU)."""
    p = argparse.ArgumentParser(
        prog="potionpi",
        description="Game-night companion for a Raspberry Pi: reads the cauldron, turns the "
                    "forest floor, referees the game and serves the tablet page.")
    p.add_argument("--version", action="version", version=f"potionpi {__version__}")
    p.add_argument("--debug", action="store_true", help="show full tracebacks and debug logging")
    subparsers = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, add_arguments in ARGUMENTS.items():
        if only is None or name == only:
            add_arguments(subparsers)
    return p


def _common(sp: argparse.ArgumentParser, data_dir: bool = True) -> None:
    sp.add_argument("--config", metavar="FILE", help="TOML config file (see `potionpi config --print-default`)")
    if data_dir:
        sp.add_argument("--data-dir", metavar="DIR",
                        help=f"where the game database and secrets live (default {default_data_dir()})")


def _run_arguments(sub: Subparsers) -> None:
    run = sub.add_parser("run", help="start the daemon: devices, table, store and the tablet web server",
                         description="Start devices, table, store and web server in one process. "
                                     "Ctrl-C or SIGTERM stops it cleanly.")
    _common(run)
    run.add_argument("--sim", action="store_true",
                     help="use simulated devices (no hardware needed); without it potionpi uses the "
                          "table this machine has, and simulates only where there is no GPIO")
    run.add_argument("--sim-mcu", action="store_true",
                     help="drive the forest floor through a simulated Pico over a pseudo-terminal")
    run.add_argument("--host", help="address to listen on (default from config: 0.0.0.0)")
    run.add_argument("--port", type=port_number, help=f"TCP port (default from config: {SCHEMA['web']['port'].default}; 0 picks a free one)")
    run.add_argument("--https-port", type=port_number,
                     help="port of the HTTPS address, once `potionpi tls` made the certificate "
                          "(default from config: 443; 0: none)")


def _config_arguments(sub: Subparsers) -> None:
    cfg = sub.add_parser("config", help="print the commented default config, or check a config file")
    group = cfg.add_mutually_exclusive_group(required=True)
    group.add_argument("--print-default", action="store_true", help="print the default config file")
    group.add_argument("--check", metavar="FILE", help="validate FILE and report the first problem")


def _pin_arguments(sub: Subparsers) -> None:
    pin = sub.add_parser("pin", help="show or change the table PIN kept in the data dir")
    _common(pin)
    pgroup = pin.add_mutually_exclusive_group()
    pgroup.add_argument("--new", action="store_true", help="generate a fresh random PIN")
    pgroup.add_argument("--set", metavar="DIGITS", help="use these 4 to 8 digits as the PIN")


def _tls_arguments(sub: Subparsers) -> None:
    tls = sub.add_parser("tls", help="make the table's HTTPS certificate (and its CA, for the tablet)",
                         description="Makes a table CA and a certificate for this Pi's names and "
                                     "addresses in the data dir; run again after adding a name. The "
                                     "tablet installs the CA once from the table's /secure page, then "
                                     "opens https://<this Pi>.local/ (docs/https.md).")
    _common(tls)
    tls.add_argument("--name", action="append", default=[], metavar="NAME",
                     help="another name or address the tablet uses for the table (repeatable)")
    tls.add_argument("--new-ca", action="store_true",
                     help="make a new table CA too (every tablet must install it again)")


def _history_arguments(sub: Subparsers) -> None:
    hist = sub.add_parser("history", help="list past games with their winners")
    _common(hist)
    hist.add_argument("--limit", type=int, default=20, help="how many games (default 20)")
    hist.add_argument("--csv", action="store_true",
                      help="every game as CSV, one line per player (as the tablet's History export)")
    hist.add_argument("--bgstats", nargs="?", const=0, type=int, metavar="GAME",
                      help="finished games as a BG Stats play file (JSON): all, or game number GAME; "
                           "save it as NAME.bgsplay and open it with BG Stats")


def _export_arguments(sub: Subparsers) -> None:
    export = sub.add_parser("export", help="write every game and its action log as JSON")
    _common(export)
    export.add_argument("--output", "-o", metavar="FILE", help="file to write (default: standard output)")


def _backup_arguments(sub: Subparsers) -> None:
    backup = sub.add_parser("backup", help="write a consistent copy of the game database (safe while it runs)",
                            description="Copies every game with SQLite's backup API: one file that holds "
                                        "everything, the write-ahead log included (copying potionpi.sqlite3 "
                                        "alone can miss the newest games). Safe while the table is running.")
    _common(backup)
    backup.add_argument("--output", "-o", metavar="FILE",
                        help="where to write it (default: DATA_DIR/backups/potionpi-DATE-TIME.sqlite3)")


def _replay_arguments(sub: Subparsers) -> None:
    replay = sub.add_parser("replay", help="replay a game's log through its engine and report the result")
    _common(replay)
    replay.add_argument("game_id", type=int, help="game number from `potionpi history`")


def _doctor_arguments(sub: Subparsers) -> None:
    doctor = sub.add_parser("doctor", help="check the game database and explain what is wrong",
                            description="Checks the database file and replays the running game and "
                                        "every damaged one; says what `potionpi repair` would do. "
                                        "Exit 0: all well; 1: something is wrong.")
    _common(doctor)


def _repair_arguments(sub: Subparsers) -> None:
    fix = sub.add_parser("repair", help="act on what `potionpi doctor` found",
                         description="Moves an empty or corrupt database aside (the daemon then starts "
                                     "with an empty history) or closes a game that no longer replays "
                                     "as damaged; --resume GAME cuts a damaged game back to its last "
                                     "good action and makes it the running game again (a copy of the "
                                     "database is kept first).")
    _common(fix)
    fix.add_argument("--resume", type=int, metavar="GAME", help="game number to reopen (from `potionpi doctor`)")


def _check_arguments(sub: Subparsers) -> None:
    check = sub.add_parser("check", help="check the whole table: pins, encoder, beam, colour sensor, "
                                         "Pico, floor homing; a pass/fail line and a fix for each",
                           description="Check every part of the table. On real hardware it asks you "
                                       "to turn the grip one notch and drop a ball. Exit 0: all "
                                       "passed; 1: something failed.")
    _common(check, data_dir=False)
    check.add_argument("--sim", action="store_true", help="check simulated devices (as CI does)")
    check.add_argument("--sim-fault", choices=SIM_FAULTS,
                       help="break a simulated part first (beam: its wire is loose; encoder: "
                            "nobody turns), to see what a failure looks like")
    check.add_argument("--json", action="store_true", help="print the results as JSON, for scripts")
    check.add_argument("--only", metavar="PART", action="append", choices=CHECK_PARTS,
                       help="check only this part (" + ", ".join(CHECK_PARTS) + "); repeatable")
    check.add_argument("--port", help="serial port of the Pico (default: the config's, else found by USB id)")
    check.add_argument("--wait", type=float, default=15.0, metavar="SECONDS",
                       help="how long to wait for you to turn the grip or drop a ball (default 15)")
    check.add_argument("--yes", action="store_true",
                       help="let the forest floor turn for its homing check without asking")


def _calibrate_arguments(sub: Subparsers) -> None:
    cal = sub.add_parser("calibrate", help="calibrate a device: drop colours or forest-floor steps")
    _common(cal, data_dir=False)
    cal.add_argument("device", choices=["colours", "floor"], help="what to calibrate")


def _firmware_arguments(sub: Subparsers) -> None:
    fw = sub.add_parser("firmware", help="firmware tools for the forest-floor Pico")
    fw_sub = fw.add_subparsers(dest="fw_command", metavar="ACTION", required=True)
    flash = fw_sub.add_parser("flash", help="copy the firmware to a connected Pico with mpremote")
    flash.add_argument("--port", help="serial port of the Pico (default: found by USB id)")
    flash.add_argument("--if-older", action="store_true",
                       help="flash only if the Pico's firmware is older than this potionpi's")


def _install_arguments(sub: Subparsers) -> None:
    inst = sub.add_parser("install", help="run the table as a service at every boot (with sudo)",
                          description="Install the systemd service for the user who runs sudo, the "
                                      "udev rule for the Pico, the mDNS advert, /etc/potionpi.toml "
                                      "and /var/lib/potionpi; then start it.")
    inst.add_argument("--dry-run", action="store_true", help="print every file and command, change nothing")
    inst.add_argument("--print-unit", action="store_true", help="print the systemd unit file alone")
    inst.add_argument("--user", help="the user the table runs as (default: the one who ran sudo)")
    inst.add_argument("--port", type=int,
                      help="listen on this port (80: a plain address, given the one capability it needs)")
    inst.add_argument("--config", metavar="FILE", help="copy this config to /etc/potionpi.toml "
                                                       "(default: the commented defaults)")
    inst.add_argument("--no-start", action="store_true",
                      help="enable the service for the next boot but start nothing (building "
                           "an SD-card image in a chroot)")
    inst.add_argument("--root", metavar="DIR", help=argparse.SUPPRESS)   # packaging and tests


def _uninstall_arguments(sub: Subparsers) -> None:
    uninst = sub.add_parser("uninstall", help="remove the service and the files `install` wrote")
    uninst.add_argument("--purge", action="store_true",
                        help="also remove /etc/potionpi.toml and the games in /var/lib/potionpi")
    uninst.add_argument("--dry-run", action="store_true", help="print what would go, change nothing")
    uninst.add_argument("--root", metavar="DIR", help=argparse.SUPPRESS)


def _hotspot_arguments(sub: Subparsers) -> None:
    hot = sub.add_parser("hotspot", help="make the Pi its own Wi-Fi for the tablets (NetworkManager)",
                         description="For a table with no home Wi-Fi: the Pi becomes a Wi-Fi access "
                                     "point (WPA2) and the tablets open "
                                     f"http://10.42.0.1:{SCHEMA['web']['port'].default}/.")
    hot.add_argument("--ssid", help="the Wi-Fi's name")
    hot.add_argument("--password", help="its password, 8 to 63 characters")
    hot.add_argument("--interface", default="wlan0", help="Wi-Fi interface (default wlan0)")
    hot.add_argument("--channel", type=int, help="2.4 GHz channel (default: NetworkManager picks)")
    hot.add_argument("--off", action="store_true", help="remove the hotspot")
    hot.add_argument("--dry-run", action="store_true", help="print the nmcli commands, run nothing")


def _update_arguments(sub: Subparsers) -> None:
    upd = sub.add_parser("update", help="update potionpi, restart the service, flash the Pico if older")
    upd.add_argument("--dry-run", action="store_true", help="print the steps, run nothing")
    upd.add_argument("--from-file", metavar="FILE",
                     help="the SD-card image: install this wheel or release archive beside the "
                          "running potionpi and go back to it if the new one does not come up")


def _firstboot_arguments(sub: Subparsers) -> None:
    boot = sub.add_parser("firstboot", help="the SD-card image: apply the card's potionpi-setup.txt, "
                                            "potionpi.toml and Raspberry Pi Imager's settings",
                          description="Run by the image at every boot (as root): applies the files "
                                      "on the card's FAT partition when they changed, makes the "
                                      "first boot's PIN and hotspot password, and writes "
                                      "potionpi-status.txt beside them. Exit 1: a file was refused "
                                      "(nothing of it applied; the status file says why).")
    boot.add_argument("--boot", metavar="DIR", default="/boot/firmware",
                      help="the card's FAT partition (default /boot/firmware)")
    boot.add_argument("--check", action="store_true",
                      help="only check the files and print every problem; change nothing")


def _screen_arguments(sub: Subparsers) -> None:
    scr = sub.add_parser("screen", help="show the table's address, PIN and Wi-Fi on this console "
                                        "(the image runs it on the Pi's screen)")
    scr.add_argument("--once", action="store_true", help="draw once and exit")
    scr.add_argument("--config", metavar="FILE", help="TOML config file (default /etc/potionpi.toml)")


#: each command's arguments, in the order `potionpi --help` lists them
ARGUMENTS: dict[str, Callable[[Subparsers], None]] = {
    "run": _run_arguments,
    "config": _config_arguments,
    "pin": _pin_arguments,
    "tls": _tls_arguments,
    "history": _history_arguments,
    "export": _export_arguments,
    "backup": _backup_arguments,
    "replay": _replay_arguments,
    "doctor": _doctor_arguments,
    "repair": _repair_arguments,
    "check": _check_arguments,
    "calibrate": _calibrate_arguments,
    "firmware": _firmware_arguments,
    "install": _install_arguments,
    "uninstall": _uninstall_arguments,
    "hotspot": _hotspot_arguments,
    "update": _update_arguments,
    "firstboot": _firstboot_arguments,
    "screen": _screen_arguments,
}



def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(asked_command(argv)).parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return COMMANDS[args.command](args)
    except ConfigError as exc:
        print(f"potionpi: bad config: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"potionpi: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_OK
    except Exception as exc:   # a person reads this, not a developer: one sentence, no traceback
        if args.debug:
            raise
        print(f"potionpi: {exc} (run with --debug for details)", file=sys.stderr)
        return EXIT_ERROR


SYSTEM_CONFIG = Path("/etc/potionpi.toml")


def config_path(args: argparse.Namespace) -> str | None:
    """--config, else $POTIONPI_CONFIG, else the installed /etc/potionpi.toml if readable
    (so `potionpi pin` and `check` see the service's settings), else the defaults."""
    given = getattr(args, "config", None) or os.environ.get("POTIONPI_CONFIG")
    if given:
        return given
    if os.access(SYSTEM_CONFIG, os.R_OK):
        return str(SYSTEM_CONFIG)
    return None


def _config(args: argparse.Namespace) -> Config:
    return Config.load(config_path(args))


def _data_dir(args: argparse.Namespace, config: Config) -> Path:
    return Path(getattr(args, "data_dir", None) or config["store"]["data_dir"] or default_data_dir())


# --- commands ----------------------------------------------------------------
PORT_TAKEN = ("potionpi: port {port} is already in use: is the service running "
              "(`sudo systemctl stop potionpi`), or pick another with --port")


class StopSignal:
    """SIGINT or SIGTERM, told to the main thread through a wakeup socket.

    A signal the kernel hands to one of the server's threads only marks Python's handler as
    due; a main thread asleep in ``Event.wait()`` sleeps on (seen under libfaketime: SIGTERM
    ignored until systemd's kill). The signal's byte on the socket wakes it whichever thread
    took the signal, and one that came before ``wait`` is still in the socket."""

    def __init__(self) -> None:
        self._ours, theirs = socket.socketpair()
        theirs.setblocking(False)
        self._theirs = theirs
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: None)     # a Python handler: its number goes to the socket
        self._old = signal.set_wakeup_fd(theirs.fileno(), warn_on_full_buffer=False)

    def wait(self) -> None:
        while self._ours.recv(1)[0] not in (signal.SIGINT, signal.SIGTERM):
            pass

    def close(self) -> None:
        signal.set_wakeup_fd(self._old)
        self._ours.close()
        self._theirs.close()


def cmd_run(args: argparse.Namespace) -> int:
    # What the start makes (~70,000 objects: modules, routes, devices) lives all evening.
    # The cyclic GC would walk it again and again while it is made (~16 ms of a 180 ms
    # start here) and then in every full collection (~35 ms each, a drop's latency);
    # so none runs until the table is up, then it is frozen (left out of every later
    # collection) and the GC goes on with what the evening makes.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_table(args)
    finally:
        gc.unfreeze()             # an in-process caller (a test) gets its collector back
        (gc.enable if collecting else gc.disable)()


def _run_table(args: argparse.Namespace) -> int:
    from .daemon import Daemon
    from .games import datacheck
    from .service import discovery, preflight
    from .service.notify import notify

    # `make sim` on an installed Pi is a table of one's own: not the service's config and games
    explicit = args.config or os.environ.get("POTIONPI_CONFIG")
    config = Config.load(explicit) if args.sim and not explicit else _config(args)
    try:
        plan = preflight.decide(config, sim=args.sim, sim_mcu=args.sim_mcu)
    except preflight.MissingHardware as exc:
        print(f"potionpi: {exc}", file=sys.stderr)
        notify(f"STATUS={exc}")          # `systemctl status potionpi` shows why
        return EXIT_USAGE
    for line in plan.banner():
        print(line, flush=True)
    sim = plan.simulated
    host = args.host or config["web"]["host"]
    port = config["web"]["port"] if args.port is None else args.port
    https_port = config["web"]["https_port"] if args.https_port is None else args.https_port
    if port and https_port == port:
        raise UsageError(f"HTTP and HTTPS cannot share port {port}; pick another --https-port (0: none)")
    if port and discovery.port_taken(host, port):   # before the database is opened
        print(PORT_TAKEN.format(port=port), file=sys.stderr)
        return EXIT_ERROR
    try:                   # every game's files, now rather than when a game is chosen
        datacheck.check(_data_dir(args, config))
    except datacheck.BadGameData as exc:
        print(f"potionpi: {exc}", file=sys.stderr)
        notify(f"STATUS={exc}")
        return EXIT_USAGE
    daemon = Daemon(config, sim=sim, sim_mcu=args.sim_mcu, data_dir=args.data_dir)
    stop = StopSignal()
    try:
        try:
            daemon.start(host, args.port, https_port)
            gc.freeze()
            gc.enable()
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                print(PORT_TAKEN.format(port=port), file=sys.stderr)
                return EXIT_ERROR
            raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                             "check --host / [web] host and --port / [web] port") from None
        except ValueError as exc:                # a host that is not an address
            raise UsageError(f"cannot listen on {host}:{port} ({exc}); "
                             "check --host / [web] host and --port / [web] port") from None
        urls = daemon.urls(host)
        print(f"potionpi {__version__} is running ({'simulated' if sim else 'real'} devices)", flush=True)
        for url in urls:
            print(f"  open on the tablet: {url}", flush=True)
        for url in daemon.https_urls():
            print(f"  the secure table (HTTPS, docs/https.md): {url}", flush=True)
        print(f"  table PIN: {daemon.pin}   (from {daemon.pin_source}; change it with `potionpi pin --new`)",
              flush=True)
        print(f"  data: {daemon.data_dir}   config: {config.source}", flush=True)
        print(f"  scan to open the table ({urls[0]}), then enter the PIN {daemon.pin}:", flush=True)
        print(discovery.terminal_qr(urls[0], keep=daemon.data_dir / discovery.QR_FILE), end="", flush=True)
        logging.getLogger("potionpi").info("running on %s (%s devices)", ", ".join(urls),
                                           "simulated" if sim else "real")
        if daemon.table.damaged:
            print(f"  note: {daemon.table.damaged['message']}", flush=True)
        stop.wait()
        print("potionpi: stopping…", flush=True)
    finally:
        stop.close()
        daemon.close()
    return EXIT_OK


def cmd_config(args: argparse.Namespace) -> int:
    if args.print_default:
        print(default_file())
        return EXIT_OK
    Config.load(args.check)
    print(f"{args.check}: ok")
    return EXIT_OK


def cmd_tls(args: argparse.Namespace) -> int:
    import shlex

    from .service import certs, discovery, install
    from .service.preflight import PIP

    config = _config(args)
    data_dir = _data_dir(args, config)
    try:
        held, left_out, new_ca = certs.make(data_dir, tuple(args.name), new_ca=args.new_ca)
    except ImportError:
        print(f"potionpi: making certificates needs the cryptography package: `{PIP} cryptography`",
              file=sys.stderr)
        return EXIT_USAGE
    tls = certs.folder(data_dir)
    print(f"table CA: {tls / certs.CA_CERT} ({'new' if new_ca else 'kept'})")
    print(f"  its SHA-256 fingerprint: {held.ca_fingerprint}")
    print(f"certificate: {tls / certs.CERT} (until {held.not_after:%Y-%m-%d})")
    print("  for " + ", ".join([*held.names, *held.addresses]))
    for item in left_out:
        print(f"  left out: {item}")
    web = config["web"]
    http = discovery.table_urls("0.0.0.0", web["port"])[0]
    print("next:")
    if not web["https_port"]:
        print("  HTTPS is off in the config (web.https_port = 0): set a port first")
    elif not install.may_bind(web["https_port"]):
        print(f"  1. sudo {shlex.join(install.potionpi_command())} install  (again: the service may then "
              f"use port {web['https_port']}; it restarts the table)")
    else:
        print(f"  1. restart the table: sudo systemctl restart {install.UNIT_NAME} (or stop and start "
              "`potionpi run`)")
    if new_ca:
        print(f"  2. on the tablet open {http}secure and install the table's certificate there "
              "(docs/https.md); check that it shows the fingerprint above")
    else:
        print("  2. a tablet that installed this table CA before needs nothing new")
    if web["https_port"]:
        from web_ui.tls import https_url
        print(f"  3. then the tablet opens {https_url(discovery.mdns_name(), web['https_port'])}")
    return EXIT_OK


def cmd_pin(args: argparse.Namespace) -> int:
    from . import secrets_store

    config = _config(args)
    data_dir = _data_dir(args, config)
    if args.set is not None:
        if not is_pin(args.set):
            print(f"potionpi: PIN {args.set!r} is not allowed; use 4 to 8 digits", file=sys.stderr)
            return EXIT_USAGE
        pin, source = secrets_store.new_pin(data_dir, args.set), "data dir"
    elif args.new:
        pin, source = secrets_store.new_pin(data_dir), "data dir"
    else:
        pin, source = secrets_store.table_pin(data_dir, config["table"]["pin"])
    print(f"table PIN: {pin} (from {source})")
    if not (args.new or args.set):
        return EXIT_OK
    configured, _ = secrets_store.table_pin(data_dir, config["table"]["pin"])
    if configured != pin:
        print("note: the config or POTIONPI_PIN overrides the data dir PIN: the table keeps using that one")
        return EXIT_OK
    from .pin_watch import tell_running
    print(tell_running(data_dir, secrets_store.secret_key(data_dir), pin))
    return EXIT_OK


def _open_store(args: argparse.Namespace) -> Store:
    from .daemon import DB_FILE
    from .store import Store

    config = _config(args)
    path = _data_dir(args, config) / DB_FILE
    if not path.exists():
        raise FileNotFoundError(f"no games yet: {path} does not exist")
    return Store(path)


def cmd_history(args: argparse.Namespace) -> int:
    store = _open_store(args)
    try:
        if args.csv:
            from .records import history_csv
            sys.stdout.writelines(history_csv(store.iter_games(newest_first=True)))
            return EXIT_OK
        if args.bgstats is not None:
            from . import bgstats
            pieces = (bgstats.one_game(store.game(args.bgstats), args.bgstats) if args.bgstats else
                      bgstats.play_file(lambda: store.iter_games(statuses=bgstats.FINISHED)))
            sys.stdout.writelines(pieces)
            sys.stdout.write("\n")
            return EXIT_OK
        for g in store.history(args.limit):
            winners = ""
            if g["outcome"] and g["outcome"].get("winners") is not None:
                winners = "won by " + ", ".join(g["players"][w] for w in g["outcome"]["winners"])
            print(f"#{g['id']:<4} {g['game']:<15} {', '.join(g['players']):<40} {g['status']:<9} {winners}")
    finally:
        store.close()
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from .service.bundle import write_export

    store = _open_store(args)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8") as out:
                write_export(store, out)
        else:
            write_export(store, sys.stdout)
    finally:
        store.close()
    return EXIT_OK


def cmd_backup(args: argparse.Namespace) -> int:
    import time as _time

    from .daemon import DB_FILE
    from .store import StoreError, backup_file

    data_dir = _data_dir(args, _config(args))
    dest = Path(args.output) if args.output else \
        data_dir / "backups" / f"potionpi-{_time.strftime('%Y%m%d-%H%M%S')}.sqlite3"
    try:
        held = backup_file(data_dir / DB_FILE, dest)
    except StoreError as exc:
        print(f"potionpi: {exc}", file=sys.stderr)
        return EXIT_ERROR
    games, actions = held["games"], held["actions"]
    print(f"wrote {dest}: {games} game{'s' if games != 1 else ''}, {actions} action{'s' if actions != 1 else ''}. "
          "Keep it off the Pi (copy it to another computer). To restore: stop potionpi, copy it over "
          f"{data_dir / DB_FILE}, delete {DB_FILE}-wal and {DB_FILE}-shm beside it, then `potionpi repair`.")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    from .table import ReplayFailed, replay

    store = _open_store(args)
    try:
        row, engine, state, version = replay(store, args.game_id)
    except ReplayFailed as exc:
        print(f"potionpi: game #{args.game_id} does not replay: {exc}", file=sys.stderr)
        return EXIT_USAGE if store.game(args.game_id) is None else EXIT_ERROR
    finally:
        store.close()
    outcome = engine.outcome(state)
    print(f"game #{row['id']} ({row['game']}): {version} actions replayed, "
          f"outcome {json.dumps(None if outcome is None else outcome.to_json(row['players']))}")
    return EXIT_OK


def _db_path(args: argparse.Namespace) -> Path:
    from .daemon import DB_FILE
    return _data_dir(args, _config(args)) / DB_FILE


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import doctor
    return doctor(_db_path(args), sys.stdout)


def cmd_repair(args: argparse.Namespace) -> int:
    from .doctor import repair
    return repair(_db_path(args), sys.stdout, args.resume)


def _input(question: str, say: Callable[[str], None]) -> str:
    """One answer from the person at the terminal ("" at the end of input)."""
    say(question)
    try:
        return input()
    except EOFError:
        return ""


def cmd_check(args: argparse.Namespace) -> int:
    from .service import preflight
    from .service.check import TableCheck

    config = _config(args)
    if args.sim_fault and not args.sim:
        raise UsageError("--sim-fault breaks a simulated part: use it with --sim")
    try:
        sim = args.sim or preflight.decide(config, sim=False, sim_mcu=True).simulated
    except preflight.MissingHardware:
        sim = False          # the pin factory line says what is missing
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else \
        (lambda text: print(text, flush=True))
    if sim and not args.sim:
        say("potionpi: this machine has no GPIO: checking simulated devices")
    ask = None                      # nobody to answer: a real floor is not turned
    if args.yes:
        ask = lambda question: "yes"                # noqa: E731
    elif sys.stdin.isatty():
        ask = lambda question: _input(question, say)   # noqa: E731
    checker = TableCheck(config, sim=sim, sim_fault=args.sim_fault, pico_port=args.port,
                         wait_s=args.wait, prompt=say, only=args.only, ask=ask,
                         on_result=None if args.json else lambda r: print(r.line(), flush=True))
    results = checker.run()
    if args.json:
        print(json.dumps(checker.report(), indent=1))
    else:
        failed = sum(r.status == "fail" for r in results)
        skipped = sum(r.status == "skip" for r in results)
        print((f"{failed} check(s) failed" if failed else "all checks passed")
              + (f" ({skipped} skipped: not in this table)" if skipped else ""))
    return EXIT_OK if checker.ok else EXIT_ERROR


def cmd_firmware(args: argparse.Namespace) -> int:
    from .firmware_tools import flash, firmware_version
    from .service.preflight import PIP, library_installed

    if not library_installed("mpremote"):     # a dependency; missing only in a broken venv
        print(f"potionpi: flashing needs mpremote, which is not installed: `{PIP} mpremote`",
              file=sys.stderr)
        return EXIT_USAGE
    if args.if_older:
        from .service.update import pico_firmware
        from .service.check import firmware_older
        code, pico, port = pico_firmware(args.port)
        if code == 1:
            print("no Pico answered; nothing to flash", flush=True)
            return 1
        if code == 0 and not firmware_older(pico, firmware_version()):
            print(f"the Pico's firmware {pico} is current (this potionpi brings "
                  f"{firmware_version()}); nothing to flash", flush=True)
            return EXIT_OK
        return flash(port, sys.stdout)
    return flash(args.port, sys.stdout)


def cmd_install(args: argparse.Namespace) -> int:
    from .service import install

    setup = install.Setup.for_invoker(args.user, args.port, args.config)
    if args.print_unit:
        print(install.unit_text(setup), end="")
        return EXIT_OK
    return install.install(setup, sys.stdout, root=Path(args.root or "/"), dry_run=args.dry_run,
                           start=not args.no_start)


def cmd_uninstall(args: argparse.Namespace) -> int:
    from .service import install
    return install.uninstall(sys.stdout, root=Path(args.root or "/"), purge=args.purge,
                             dry_run=args.dry_run)


def cmd_hotspot(args: argparse.Namespace) -> int:
    from .service import hotspot

    if args.off:
        return hotspot.run(hotspot.off_commands(), sys.stdout, dry_run=args.dry_run)
    if not args.ssid or args.password is None:
        raise UsageError("name the Wi-Fi and its password: potionpi hotspot --ssid NAME "
                         "--password 'eight or more characters' (or --off)")
    commands = hotspot.on_commands(args.ssid, args.password, args.interface, channel=args.channel)
    return hotspot.run(commands, sys.stdout, dry_run=args.dry_run)


def cmd_update(args: argparse.Namespace) -> int:
    from .service import release, update
    if args.from_file:
        return release.from_file(Path(args.from_file), sys.stdout, sys.stderr, dry_run=args.dry_run)
    return update.update(sys.stdout, dry_run=args.dry_run)


def cmd_firstboot(args: argparse.Namespace) -> int:
    from .service import firstboot
    boot = Path(args.boot)
    if args.check:
        settings, errors = firstboot.check(firstboot.read_sources(boot), boot=boot)
        for line in errors:
            print(f"potionpi: {line}", file=sys.stderr)
        for note in settings.notes:
            print(f"note: {note}")
        if not errors:
            print(f"{boot}: the card's files are fine ({', '.join(settings.sources) or 'none there'})")
        return EXIT_USAGE if errors else EXIT_OK
    if os.geteuid() != 0:
        raise UsageError("the first boot's settings change the system: run it as root "
                         "(the image's potionpi-firstboot.service does)")
    return firstboot.first_boot(boot=boot, out=sys.stdout)


def cmd_screen(args: argparse.Namespace) -> int:
    from .service import screen
    return screen.run(sys.stdout, once=args.once, config_path=args.config)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from .calibrate import calibrate
    return calibrate(args.device, _config(args), args.config)


COMMANDS = {"run": cmd_run, "config": cmd_config, "pin": cmd_pin, "tls": cmd_tls, "history": cmd_history,
            "export": cmd_export, "backup": cmd_backup, "replay": cmd_replay, "check": cmd_check,
            "doctor": cmd_doctor, "repair": cmd_repair,
            "calibrate": cmd_calibrate, "firmware": cmd_firmware, "install": cmd_install,
            "uninstall": cmd_uninstall, "hotspot": cmd_hotspot, "update": cmd_update,
            "firstboot": cmd_firstboot, "screen": cmd_screen}


if __name__ == "__main__":
    sys.exit(main())
