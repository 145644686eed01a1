"""`potionpi` command line: run the daemon, print config, manage the PIN, tools."""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from pathlib import Path

from . import __version__
from .config import Config, ConfigError, UsageError, default_data_dir, default_file

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="potionpi",
        description="Game-night companion for a Raspberry Pi: reads the cauldron, turns the "
                    "forest floor, referees the game and serves the tablet page.")
    p.add_argument("--version", action="version", version=f"potionpi {__version__}")
    p.add_argument("--debug", action="store_true", help="show full tracebacks and debug logging")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(sp: argparse.ArgumentParser, data_dir: bool = True) -> None:
        sp.add_argument("--config", metavar="FILE", help="TOML config file (see `potionpi config --print-default`)")
        if data_dir:
            sp.add_argument("--data-dir", metavar="DIR",
                            help=f"where the game database and secrets live (default {default_data_dir()})")

    run = sub.add_parser("run", help="start the daemon: devices, table, store and the tablet web server",
                         description="Start devices, table, store and web server in one process. "
                                     "Ctrl-C or SIGTERM stops it cleanly.")
    common(run)
    run.add_argument("--sim", action="store_true", help="use simulated devices (no hardware needed)")
    run.add_argument("--sim-mcu", action="store_true",
                     help="drive the forest floor through a simulated Pico over a pseudo-terminal")
    run.add_argument("--host", help="address to listen on (default from config: 0.0.0.0)")
    run.add_argument("--port", type=int, help="TCP port (default from config: 8080; 0 picks a free one)")

    cfg = sub.add_parser("config", help="print the commented default config, or check a config file")
    group = cfg.add_mutually_exclusive_group(required=True)
    group.add_argument("--print-default", action="store_true", help="print the default config file")
    group.add_argument("--check", metavar="FILE", help="validate FILE and report the first problem")

    pin = sub.add_parser("pin", help="show or change the table PIN kept in the data dir")
    common(pin)
    pgroup = pin.add_mutually_exclusive_group()
    pgroup.add_argument("--new", action="store_true", help="generate a fresh random PIN")
    pgroup.add_argument("--set", metavar="DIGITS", help="use these 4 to 8 digits as the PIN")

    hist = sub.add_parser("history", help="list past games with their winners")
    common(hist)
    hist.add_argument("--limit", type=int, default=20, help="how many games (default 20)")
    hist.add_argument("--csv", action="store_true",
                      help="every game as CSV, one line per player (as the tablet's History export)")

    export = sub.add_parser("export", help="write every game and its action log as JSON")
    common(export)
    export.add_argument("--output", "-o", metavar="FILE", help="file to write (default: standard output)")

    replay = sub.add_parser("replay", help="replay a game's log through its engine and report the result")
    common(replay)
    replay.add_argument("game_id", type=int, help="game number from `potionpi history`")

    check = sub.add_parser("check", help="check the forest-floor Pico: firmware and protocol versions, round-trip time")
    common(check, data_dir=False)
    check.add_argument("--port", help="serial port of the Pico (default: found by USB id)")

    cal = sub.add_parser("calibrate", help="calibrate a device: drop colours or forest-floor steps")
    common(cal, data_dir=False)
    cal.add_argument("device", choices=["colours", "floor"], help="what to calibrate")

    fw = sub.add_parser("firmware", help="firmware tools for the forest-floor Pico")
    fw_sub = fw.add_subparsers(dest="fw_command", metavar="ACTION", required=True)
    flash = fw_sub.add_parser("flash", help="copy the firmware to a connected Pico with mpremote")
    flash.add_argument("--port", help="serial port of the Pico (default: found by USB id)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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


def _config(args) -> Config:
    return Config.load(getattr(args, "config", None))


def _data_dir(args, config: Config) -> Path:
    return Path(getattr(args, "data_dir", None) or config["store"]["data_dir"] or default_data_dir())


# --- commands ----------------------------------------------------------------
def cmd_run(args) -> int:
    from .daemon import Daemon
    from .devices.pins import gpio_available

    config = _config(args)
    sim = args.sim
    if not sim and config["gpio"]["pin_factory"] != "mock":
        ok, reason = gpio_available(config["gpio"]["pin_factory"])
        if not ok:
            print(f"potionpi: no GPIO here ({reason}); falling back to simulated devices", flush=True)
            sim = True
    daemon = Daemon(config, sim=sim, sim_mcu=args.sim_mcu, data_dir=args.data_dir)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        host = args.host or config["web"]["host"]
        daemon.start(host, args.port)
        print(f"potionpi {__version__} is running ({'simulated' if sim else 'real'} devices)", flush=True)
        for url in daemon.urls(host):
            print(f"  open on the tablet: {url}", flush=True)
        print(f"  table PIN: {daemon.pin}   (from {daemon.pin_source}; change it with `potionpi pin --new`)",
              flush=True)
        print(f"  data: {daemon.data_dir}", flush=True)
        stop.wait()
        print("potionpi: stopping…", flush=True)
    finally:
        daemon.close()
    return EXIT_OK


def cmd_config(args) -> int:
    if args.print_default:
        print(default_file())
        return EXIT_OK
    Config.load(args.check)
    print(f"{args.check}: ok")
    return EXIT_OK


def cmd_pin(args) -> int:
    from . import secrets_store

    config = _config(args)
    data_dir = _data_dir(args, config)
    if args.set is not None:
        if not (args.set.isdigit() and 4 <= len(args.set) <= 8):
            print(f"potionpi: PIN {args.set!r} is not allowed; use 4 to 8 digits", file=sys.stderr)
            return EXIT_USAGE
        pin, source = secrets_store.new_pin(data_dir, args.set), "data dir"
    elif args.new:
        pin, source = secrets_store.new_pin(data_dir), "data dir"
    else:
        pin, source = secrets_store.table_pin(data_dir, config["table"]["pin"])
    print(f"table PIN: {pin} (from {source})")
    if source in ("config", "environment") and (args.new or args.set):
        print("note: the config or POTIONPI_PIN overrides the data dir PIN")
    return EXIT_OK


def _open_store(args):
    from .daemon import DB_FILE
    from .store import Store

    config = _config(args)
    path = _data_dir(args, config) / DB_FILE
    if not path.exists():
        raise FileNotFoundError(f"no games yet: {path} does not exist")
    return Store(path)


def cmd_history(args) -> int:
    store = _open_store(args)
    try:
        if args.csv:
            from .records import history_csv
            sys.stdout.write(history_csv(store.history(limit=1_000_000)))
            return EXIT_OK
        for g in store.history(args.limit):
            winners = ""
            if g["outcome"] and g["outcome"].get("winners") is not None:
                winners = "won by " + ", ".join(g["players"][w] for w in g["outcome"]["winners"])
            print(f"#{g['id']:<4} {g['game']:<15} {', '.join(g['players']):<40} {g['status']:<9} {winners}")
    finally:
        store.close()
    return EXIT_OK


def cmd_export(args) -> int:
    store = _open_store(args)
    try:
        games = store.history(limit=1_000_000)
        for g in games:
            g["actions"] = store.actions(g["id"])
    finally:
        store.close()
    text = json.dumps({"potionpi": __version__, "games": games}, indent=1)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)
    return EXIT_OK


def cmd_replay(args) -> int:
    from . import games

    store = _open_store(args)
    try:
        row = next((g for g in store.history(1_000_000) if g["id"] == args.game_id), None)
        if row is None:
            print(f"potionpi: no game #{args.game_id}", file=sys.stderr)
            return EXIT_USAGE
        engine = games.load(row["game"])
        state = engine.setup(row["players"], row["seed"], row["options"])
        actions = store.actions(row["id"])
        for entry in actions:
            state, _ = engine.apply(state, entry["action"])
    finally:
        store.close()
    outcome = engine.outcome(state)
    print(f"game #{row['id']} ({row['game']}): {len(actions)} actions replayed, "
          f"outcome {json.dumps(None if outcome is None else outcome.to_json(row['players']))}")
    return EXIT_OK


def cmd_check(args) -> int:
    from .firmware_tools import check
    return check(args.port or _config(args)["forest_floor"]["serial_port"] or None, sys.stdout)


def cmd_firmware(args) -> int:
    from .firmware_tools import flash
    return flash(args.port, sys.stdout)


def cmd_calibrate(args) -> int:
    from .calibrate import calibrate
    return calibrate(args.device, _config(args), args.config)


COMMANDS = {"run": cmd_run, "config": cmd_config, "pin": cmd_pin, "history": cmd_history,
            "export": cmd_export, "replay": cmd_replay, "check": cmd_check,
            "calibrate": cmd_calibrate, "firmware": cmd_firmware}


if __name__ == "__main__":
    sys.exit(main())
