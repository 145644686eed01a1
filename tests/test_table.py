"""The table: one writer, versioned, logged before published, resumable."""
from __future__ import annotations

import threading
from typing import Any

import pytest

from controller.contracts import Action, Effect, State
from controller.games import BadSetup, IllegalAction, InvalidAction, Outcome
from controller.games.base import Game
from controller.store import Store
from controller.table import NewVersion, NoGame, Table, Told, VersionConflict


class Tally(Game):
    """A minimal game on the engine core: add 1..3 until the tally reaches 10; the one
    who reaches it wins. ``undo`` takes back an add; ``shout`` is still heard after the end."""

    id = "tally"
    name = "Tally"
    min_players, max_players = 1, 4
    undoable = frozenset({"add"})
    after_game_over = frozenset({"shout"})

    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        self.check_players(players)
        return {"tally": 0, "turn": 0, "players": players, "shouts": 0}

    def legal_actions(self, state: State) -> list[Action]:
        return [{"type": "add", "n": n} for n in (1, 2, 3) if state["tally"] + n <= 10]

    def _do_add(self, state: State, action: Action) -> list[Effect]:
        n = action.get("n")
        if not isinstance(n, int) or isinstance(n, bool):
            raise InvalidAction('"n" must be a whole number')
        if n not in (1, 2, 3):
            raise IllegalAction("you may add 1, 2 or 3")
        if state["tally"] + n > 10:
            raise IllegalAction("the tally may not pass 10")
        state["tally"] += n
        state["turn"] = (state["turn"] + 1) % len(state["players"])
        return [{"device": "counter", "op": "show", "value": state["tally"]}]  # type: ignore[typeddict-unknown-key]

    def _do_shout(self, state: State, action: Action) -> None:
        state["shouts"] += 1

    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        return {"tally": state["tally"], "active": state["turn"], "shouts": state["shouts"]}

    def outcome(self, state: State) -> Outcome | None:
        if state["tally"] != 10:
            return None
        winner = (state["turn"] - 1) % len(state["players"])
        return Outcome(winners=(winner,), reason="ten", message="the tally reached 10",
                       ranking=Outcome.rank([int(seat == winner) for seat in range(len(state["players"]))]),
                       details={"tally": 10})


def load_tally(game_id: str) -> Game:
    if game_id != "tally":
        raise KeyError(game_id)
    return Tally()


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
    # Outcome.to_json: codes and a sentence, the ranking, the game's details, the names
    outcome = {"tally": 10, "winners": [1], "reason": "ten", "message": "the tally reached 10",
               "ranking": [{"seat": 1, "place": 1, "score": 1}, {"seat": 0, "place": 2, "score": 0}],
               "winner_names": ["Ben"]}
    assert s["outcome"] == outcome and s["legal_actions"] == []
    assert store.history()[0]["status"] == "finished"
    assert store.history()[0]["outcome"] == outcome
    # the engine refuses what a finished game no longer takes, in words naming the end
    with pytest.raises(IllegalAction, match="the game is over \\(the tally reached 10\\)"):
        table.act({"type": "add", "n": 1})
    # ... and takes what the game declares it still takes after the end
    assert table.act({"type": "shout"})["state"]["shouts"] == 1


def test_a_malformed_action_is_invalid_and_a_refused_one_illegal(table, store):
    s = table.start("tally", ["Ann"], seed=1)
    for action, words in (({"type": "add", "n": "two"}, '"n" must be a whole number'),
                          ({"type": "jump"}, "Tally has no action called 'jump'"),
                          ({"n": 1}, 'an action needs a "type"')):
        with pytest.raises(InvalidAction, match=words):
            table.act(action)
    with pytest.raises(IllegalAction) as refused:
        table.act({"type": "add", "n": 4})
    assert not isinstance(refused.value, InvalidAction)
    assert table.session() == s and store.actions(s["id"]) == []


def test_the_session_says_whether_its_legal_actions_are_complete(table):
    s = table.start("tally", ["Ann"], seed=1)
    assert s["legal_actions_complete"] is True
    Tally.legal_actions_complete = False      # a game that lists only a sample
    try:
        assert table.start("tally", ["Ann"], seed=1)["legal_actions_complete"] is False
    finally:
        Tally.legal_actions_complete = True


def test_undo_goes_through_the_table_and_is_logged_so_a_resume_agrees(tmp_path):
    path = tmp_path / "db.sqlite3"
    first = Table(Store(path), load_game=load_tally)
    first.start("tally", ["Ann", "Ben"], seed=5)
    first.act({"type": "add", "n": 3})
    first.act({"type": "add", "n": 2})
    undone = first.act({"type": "undo"})
    assert undone["version"] == 3 and undone["state"]["tally"] == 3
    assert first.act({"type": "undo"})["state"]["tally"] == 0
    with pytest.raises(IllegalAction, match="nothing to undo"):
        first.act({"type": "undo"})
    again = Table(Store(path), load_game=load_tally)
    assert again.resume() == first.session()


def test_effects_reach_devices_after_commit(table, store):
    seen = []
    table.on_effect(lambda e: seen.append((e, len(store.actions(table.session()["id"])))))
    started = table.start("tally", ["Ann"], seed=1)
    table.act({"type": "add", "n": 2})
    # a new game first puts the devices in step (Game.device_sync: by default a reset)
    assert started["version"] == 0
    assert seen == [({"device": "*", "op": "reset"}, 0),
                    ({"device": "counter", "op": "show", "value": 2}, 1)]


def test_failing_device_does_not_undo_the_action(table):
    def broken(effect):
        raise RuntimeError("motor unplugged")
    table.on_effect(broken)
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    assert sub.get(0.1) == NewVersion(table.session())      # the current version first
    s = table.act({"type": "add", "n": 2})
    assert s["version"] == 1
    got = [sub.get(0.1), sub.get(0.1)]
    assert Told({"kind": "device", "message": "a device could not do that: motor unplugged"}) in got
    assert NewVersion(s) in got


def test_sensor_refusal_becomes_a_notice(table):
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    sub.get(0.1)
    table.sensor({"type": "add", "n": 9})
    item = sub.get(1)
    assert isinstance(item, Told) and item.notice["message"].startswith("sensor event not used: you may add")
    assert table.version == 0


def test_subscriber_gets_newest_version_coalesced(table):
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    assert sub.get(0.1).session["version"] == 0    # a new subscriber gets the current session
    for n in (1, 1, 1):
        table.act({"type": "add", "n": n})
    assert sub.get(0.1).session["version"] == 3
    assert sub.get(0.05) is None


def test_a_subscriber_that_never_reads_holds_one_version_and_the_newest_notices(table):
    """A sleeping tablet's mailbox does not grow: 1,000 changes and 50 notices later it
    holds the newest version, the newest eight notices and one wake-up, not a backlog."""
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    for i in range(1000):
        table.act({"type": "add", "n": 1} if i % 2 == 0 else {"type": "undo"})
        if i % 20 == 0:
            table.notice({"kind": "sensor", "message": f"note {i}"})
    assert sub._wake.qsize() == 1
    got = [sub.get(0) for _ in range(10)]
    assert [item.notice["message"] for item in got[:8]] == [f"note {i}" for i in range(840, 1000, 20)]
    assert got[8] == NewVersion(table.session()) and table.session()["version"] == 1000
    assert got[9] is None


def test_a_closed_subscriber_wakes_and_gets_nothing_more(table):
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    done = threading.Event()
    got = []

    def read():
        sub.get(0)                                  # the current version
        got.append(sub.get(60))                     # woken by close, not by the deadline
        done.set()
    threading.Thread(target=read, daemon=True).start()
    sub.close()
    assert done.wait(30) and got == [None] and sub.ended
    table.act({"type": "add", "n": 1})
    assert sub.get(0) is None


def test_subscriber_wakes_on_change_from_another_thread(table):
    table.start("tally", ["Ann"], seed=1)
    sub = table.subscribe()
    sub.get(0.1)
    threading.Timer(0.05, lambda: table.act({"type": "add", "n": 1})).start()
    assert sub.get(5).session["version"] == 1


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


def test_the_action_that_ended_the_game_can_be_undone_and_the_game_plays_on(tmp_path):
    # A mistyped final entry is the commonest error at a table (issue 17): the undo policy
    # covers "add", so the add that ended the game is taken back like any other, the
    # history no longer calls the game finished, and a restart agrees.
    path = tmp_path / "t.sqlite3"
    first = Table(Store(path), load_game=load_tally)
    first.start("tally", ["Ann", "Ben"], seed=1)
    for n in (3, 3, 3, 1):
        ended = first.act({"type": "add", "n": n})
    assert ended["outcome"] is not None
    assert first.store.history()[0]["status"] == "finished"
    back = first.act({"type": "undo"})
    assert back["outcome"] is None and back["state"]["tally"] == 9
    row = first.store.history()[0]
    assert row["status"] == "playing" and row["outcome"] is None
    assert first.act({"type": "add", "n": 1})["outcome"]["winners"] == [1]
    first.act({"type": "undo"})
    again = Table(Store(path), load_game=load_tally)
    resumed = again.resume()
    assert resumed is not None and resumed["state"]["tally"] == 9 and resumed["outcome"] is None
