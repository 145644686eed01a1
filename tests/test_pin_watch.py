"""The running table takes a PIN written to its data dir (controller/pin_watch.py)."""
from __future__ import annotations

import os
import threading

from controller import pin_watch, secrets_store

SECRET = b"k" * 32


def test_a_changed_pin_file_is_applied_once_and_answered(tmp_path):
    secrets_store.new_pin(tmp_path, "1357")
    applied = []
    watch = pin_watch.PinWatch(tmp_path, SECRET, lambda pin: applied.append(pin) or {"tablets": 2, "seats": 1},
                               current="1357")
    assert not watch.check()                                   # nothing changed
    secrets_store.new_pin(tmp_path, "8642")
    assert watch.check() and applied == ["8642"]
    assert not watch.check()                                   # the same file: once
    lock = pin_watch.hold_lock(tmp_path)                       # a daemon runs here
    try:
        told = pin_watch.tell_running(tmp_path, SECRET, "8642", wait=1)
    finally:
        lock.close()
    assert told.startswith("the running table took the new PIN now: 2 tablet(s) locked")
    assert "8642" not in (tmp_path / pin_watch.APPLIED_FILE).read_text()


def test_a_file_that_holds_no_pin_changes_nothing(tmp_path, caplog):
    secrets_store.new_pin(tmp_path, "1357")
    applied = []
    watch = pin_watch.PinWatch(tmp_path, SECRET, lambda pin: applied.append(pin) or {}, current="1357")
    (tmp_path / secrets_store.PIN_FILE).write_text("12\n")
    assert not watch.check() and applied == []
    assert "holds no PIN of 4 to 8 digits" in caplog.text


def test_the_command_knows_whether_a_table_runs(tmp_path):
    assert not pin_watch.daemon_running(tmp_path)
    told = pin_watch.tell_running(tmp_path, SECRET, "8642", wait=0.2)
    assert told.startswith("potionpi is not running with this data dir")
    lock = pin_watch.hold_lock(tmp_path)
    try:
        assert pin_watch.daemon_running(tmp_path) and pin_watch.hold_lock(tmp_path) is None
        told = pin_watch.tell_running(tmp_path, SECRET, "8642", wait=0.2)     # it never answers
        assert "did not confirm the new PIN" in told
    finally:
        lock.close()
    assert not pin_watch.daemon_running(tmp_path)


def test_the_watch_thread_applies_a_new_pin(tmp_path):
    secrets_store.new_pin(tmp_path, "1357")
    done = threading.Event()
    watch = pin_watch.PinWatch(tmp_path, SECRET, lambda pin: done.set() or {}, current="1357",
                               interval=0.05).start()
    try:
        secrets_store.new_pin(tmp_path, "24680")
        assert done.wait(30)
    finally:
        watch.stop()
    assert os.stat(tmp_path / secrets_store.PIN_FILE).st_mode & 0o077 == 0


def test_a_table_with_its_pin_from_the_environment_says_at_once_that_it_keeps_it(tmp_path, caplog):
    """The service's POTIONPI_PIN (or [table] pin) wins over the file: `potionpi pin --set`
    run from a shell without it learns so at once, not after a wait and a guess."""
    applied = []
    watch = pin_watch.PinWatch(tmp_path, SECRET, lambda pin: applied.append(pin) or {}, current="2468",
                               kept_from="environment")
    secrets_store.new_pin(tmp_path, "1357")
    assert not watch.check() and applied == []
    assert "takes its PIN from POTIONPI_PIN and keeps it" in caplog.text
    lock = pin_watch.hold_lock(tmp_path)
    try:
        told = pin_watch.tell_running(tmp_path, SECRET, "1357", wait=1)
    finally:
        lock.close()
    assert told == ("the running table takes its PIN from POTIONPI_PIN and keeps it: the new PIN applies "
                    "once that is removed and potionpi restarted")
