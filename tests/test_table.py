"""The table: one writer, versioned, logged before published, resumable."""
from __future__ import annotations

import threading

import pytest

from controller.games import BadSetup, IllegalAction
from controller.store import Store
from controller.table import NoGame, Table, VersionConflict
from tests.conftest import load_tally


@pytest.fixture
def table(store):
    return Table(store, load_game=load_tally)


def test_no_game_until_started(table):
    assert table.session() is None
    with pytest.raises(NoGame):
        table.act({"type": "add", "n": 1})


def test_actions_bump_version_and_are_logged(table, store):
    s = table.start("tally", ["Ann", "Ben"], seed=3)
    assert s["version"] == 0 and s["state"]["tally"] == 0
    s = table.act({"type": "add", "n": 2})
    assert s["version"] == 1 and s["state"]["tally"] == 2
    assert [a["action"] for a in store.actions(s["id"])] == [{"type": "add", "n": 2}]


def test_refusal_changes_nothing(table, store):
    s = table.start("tally", ["Ann"], seed=1)
    with pytest.raises(IllegalAction, match="1, 2 or 3"):
        table.act({"type": "add", "n": 7})
    assert table.session() == s
    assert store.actions(s["id"]) == []


def test_stale_version_is_a_conflict_with_current_session(table):
    table.start("tally", ["Ann"], seed=1)
    table.act({"type": "add", "n": 1}, version=0)
    with pytest.raises(VersionConflict) as exc:
        table.act({"type": "add", "n": 1}, version=0)
    assert exc.value.session["version"] == 1


def test_bad_setup_starts_nothing(table, store):
    with pytest.raises(BadSetup):
        table.start("tally", [], seed=1)
    assert table.session() is None and store.history() == []


def test_resume_replays_to_the_same_version_and_state(tmp_path):
    path = tmp_path / "db.sqlite3"
    first = Table(Store(path), load_game=load_tally)
    first.start("tally", ["Ann", "Ben"], seed=5)
    for n in (1, 3, 2):
        last = first.act({"type": "add", "n": n})
    # no close(): as after kill -9, only what was committed counts
    again = Table(Store(path), load_game=load_tally)
    assert again.resume() == last


def test_new_game_replaces_running_one_which_stays_in_history(table, store):
    table.start("tally", ["Ann"], seed=1)
    table.act({"type": "add", "n": 1})
    s = table.start("tally", ["Ben"], seed=2)
    assert s["version"] == 0 and s["players"] == ["Ben"]
    statuses = [g["status"] for g in store.history()]
    assert statuses == ["playing", "replaced"]


def test_finished_game_is_recorded_with_outcome(table, store):
    table.start("tally", ["Ann", "Ben"], seed=1)
    for n in (3, 3, 3):
        table.act({"type": "add", "n": n})
    s = table.act({"type": "add", "n": 1})
    assert s["outcome"] == {"winners": [1]} and s["legal_actions"] == []
    assert store.history()[0]["status"] == "finished"
    with pytest.raises(IllegalAction, match="over"):
        table.act({"type": "add", "n": 1})


def test_effects_reach_devices_after_commit(table, store):
    seen = []
    table.on_effect(lambda e: seen.append((e, len(store.actions(table.session()["id"])))))
    started = table.start("tally", ["Ann"], seed=1)
    table.act({"type": "add", "n": 2})
    assert seen == [({"device": "*", "op": "sync", "session": started}, 0),
                    ({"device": "counter", "op": "show", "value": 2}, 1)]


def test_failing_device_does_not_undo_the_action(table):
    def broken(effect):
        raise RuntimeError("motor unplugged")
    table.on_effect(broken)
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    sub.mark_seen(0)
    s = table.act({"type": "add", "n": 2})
    assert s["version"] == 1
    got = [sub.get(0.1), sub.get(0.1)]
    assert {"notice": {"kind": "device", "message": "a device could not do that: motor unplugged"}} in got


def test_sensor_refusal_becomes_a_notice(table):
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    sub.mark_seen(0)
    table.sensor({"type": "add", "n": 9})
    assert sub.get(1)["notice"]["message"].startswith("sensor event not used: you may add")
    assert table.version == 0


def test_subscriber_gets_newest_version_coalesced(table):
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    assert sub.get(0.1)["version"] == 0            # a new subscriber gets the current session
    for n in (1, 1, 1):
        table.act({"type": "add", "n": n})
    assert sub.get(0.1)["version"] == 3
    assert sub.get(0.05) is None


def test_subscriber_wakes_on_change_from_another_thread(table):
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    sub.mark_seen(0)
    threading.Timer(0.05, lambda: table.act({"type": "add", "n": 1})).start()
    assert sub.get(5)["version"] == 1


def test_concurrent_writers_never_interleave(table, store):
    table.start("tally", ["Ann"], seed=1)
    errors = []

    def tap():
        try:
            table.act({"type": "add", "n": 1})
        except IllegalAction as exc:
            errors.append(exc)
    threads = [threading.Thread(target=tap) for _ in range(15)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s = table.session()
    assert s["state"]["tally"] == 10 and s["version"] == 10 and len(errors) == 5
    assert [a["version"] for a in store.actions(s["id"])] == list(range(1, 11))
