"""The command line: help, config errors with exit status 2, PIN management."""
from __future__ import annotations

import gc
import json
import socket
import subprocess
import sys

from controller.cli import COMMANDS, asked_command, build_parser, main


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args],
                          capture_output=True, text=True, timeout=60, env=env)


def test_help_explains_every_command():
    out = run("--help").stdout
    for command in ("run", "config", "pin", "history", "export", "replay", "check", "calibrate", "firmware"):
        assert f"    {command}" in out
    run_help = run("run", "--help").stdout
    for flag in ("--sim", "--config", "--host", "--port", "--data-dir"):
        assert flag in run_help


def test_the_command_run_builds_only_its_own_arguments_and_reads_them_the_same():
    argv = ["--debug", "run", "--sim", "--port", "8080", "--data-dir", "/tmp/x", "--host", "0.0.0.0"]
    assert asked_command(argv) == "run"
    assert vars(build_parser("run").parse_args(argv)) == vars(build_parser().parse_args(argv))
    only = build_parser("run")._subparsers._group_actions[0].choices     # type: ignore[union-attr]
    assert list(only) == ["run"]
    # the top level's help, an unknown word or no command at all: every command is built
    assert asked_command(["-h", "run"]) is None and asked_command(["sim"]) is None and asked_command([]) is None
    assert set(build_parser()._subparsers._group_actions[0].choices) == set(COMMANDS)  # type: ignore[union-attr]
    wrong = run("bogus")
    assert wrong.returncode == 2 and "choose from 'run', 'config'" in wrong.stderr


FROZEN_WHILE_RUNNING = """
import gc, json, os, signal, sys, threading, time, urllib.request
from controller.cli import main
seen = {}
def probe():
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not gc.get_freeze_count():
        try:
            urllib.request.urlopen("http://127.0.0.1:%s/healthz" % sys.argv[1], timeout=5).read()
        except OSError:
            pass
        time.sleep(0.01)
    seen.update(frozen=gc.get_freeze_count(), collecting=gc.isenabled())
    os.kill(os.getpid(), signal.SIGTERM)
threading.Thread(target=probe, daemon=True).start()
code = main(["run", "--sim", "--host", "127.0.0.1", "--port", sys.argv[1], "--data-dir", sys.argv[2]])
print(json.dumps({**seen, "code": code, "after": gc.get_freeze_count(), "collecting_after": gc.isenabled()}))
"""


def test_the_running_table_keeps_its_start_up_out_of_the_garbage_collector(tmp_path):
    # the start's objects (modules, routes, devices) are frozen once it serves: no later
    # full collection walks them again (~35 ms each on this machine, in the middle of a drop)
    port = str(free_port())
    out = subprocess.run([sys.executable, "-c", FROZEN_WHILE_RUNNING, port, str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["code"] == 0 and seen["frozen"] > 10_000 and seen["collecting"]
    assert seen["after"] == 0 and seen["collecting_after"]        # the caller's collector as it was


def test_a_start_that_fails_leaves_the_garbage_collector_as_it_was(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[cauldron]\nencoder_a = 99\n")
    assert main(["run", "--sim", "--config", str(bad), "--data-dir", str(tmp_path)]) == 2
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_bad_config_is_one_sentence_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[cauldron]\nencoder_a = 99\n")
    result = run("run", "--sim", "--config", str(bad), "--data-dir", str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"potionpi: bad config: {bad}: cauldron.encoder_a = 99 is not allowed; "
                                     "use a whole number from 0 to 27")


def test_print_default_config(capsys):
    assert main(["config", "--print-default"]) == 0
    assert "[cauldron]" in capsys.readouterr().out


def test_pin_is_generated_kept_and_changeable(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("POTIONPI_PIN", raising=False)
    assert main(["pin", "--data-dir", str(tmp_path)]) == 0
    first = capsys.readouterr().out
    assert main(["pin", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == first.replace("generated", "data dir")
    assert main(["pin", "--data-dir", str(tmp_path), "--set", "97531"]) == 0
    assert "97531" in capsys.readouterr().out
    assert main(["pin", "--data-dir", str(tmp_path), "--set", "12"]) == 2
    assert (tmp_path / "table_pin").stat().st_mode & 0o077 == 0


def test_environment_pin_wins(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("POTIONPI_PIN", "5555")
    assert main(["pin", "--data-dir", str(tmp_path)]) == 0
    assert "5555 (from environment)" in capsys.readouterr().out


def test_history_without_games_says_so(tmp_path, capsys):
    assert main(["history", "--data-dir", str(tmp_path)]) == 1
    assert "no games yet" in capsys.readouterr().err


STOP_FROM_ANOTHER_THREAD = """
import signal, sys, threading, time
from pathlib import Path
from controller.cli import {stop}
stop = {stop}()
main = Path(f"/proc/self/task/{{threading.main_thread().native_id}}/stat")

def asleep():
    return main.read_text().rsplit(")", 1)[1].split()[0] == "S"

def serve():                  # a server thread the kernel picked for SIGTERM, once main waits
    quiet = 0
    while quiet < 5:
        quiet = quiet + 1 if asleep() else 0
        time.sleep(0.02)
    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

threading.Thread(target=serve, daemon=True).start()
stop.wait()
print("stopped")
"""


def test_sigterm_taken_by_a_server_thread_still_stops_the_daemon():
    """`potionpi run` waits in its main thread; a SIGTERM the kernel hands to another thread
    must wake it (a plain Event.wait slept through it and systemd had to kill the table)."""
    result = subprocess.run([sys.executable, "-c", STOP_FROM_ANOTHER_THREAD.format(stop="StopSignal")],
                            capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout.strip()) == (0, "stopped"), result.stderr
