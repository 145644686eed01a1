"""A game's length is measured on the monotonic clock: a wall clock that jumps (a Pi
without a real-time clock finding a time server) never makes a game last a negative time
or two days (issue 22: a game replaced after a 2 h jump back showed ``minutes: -120``)."""
from __future__ import annotations

import time
from unittest import mock

from controller import records
from controller.store import Store
from controller.table import Table


def history_minutes(store: Store) -> list[int | None]:
    return [g["minutes"] for g in records.past_games(store.history())]


def started_at(tmp_path, wall: float) -> tuple[Store, Table]:
    """A game started while the wall clock said ``wall``."""
    store = Store(tmp_path / "t.sqlite3")
    table = Table(store)
    with mock.patch("controller.store.time.time", return_value=wall):
        table.start("mirakel-mix", ["Ann", "Ben"], seed=1)
    return store, table


def test_a_game_replaced_after_the_clock_went_back_two_hours_lasted_no_negative_time(tmp_path):
    real = time.time()
    store, table = started_at(tmp_path, real)
    with mock.patch("controller.store.time.time", return_value=real - 7200):      # set back 2 h
        table.start("mirakel-mix", ["Cem", "Dana"], seed=2)
    replaced = store.history()[1]
    assert replaced["status"] == "replaced"
    assert 0 <= replaced["finished"] - replaced["started"] < 60
    assert history_minutes(store)[1] == 0
    # it is dated back from its end: the clock as set now, not as it was at the start
    assert abs(replaced["finished"] - (real - 7200)) < 1


def test_a_game_that_ends_after_the_clock_ran_two_days_ahead_lasted_as_long_as_it_did(tmp_path):
    real = time.time()
    store, table = started_at(tmp_path, real)
    with mock.patch("controller.store.time.time", return_value=real + 2 * 86400):
        store.close_damaged(table.session()["id"], "a test")
    game = store.history()[0]
    assert 0 <= game["finished"] - game["started"] < 60


def test_a_game_from_another_boot_falls_back_to_the_wall_clock_never_below_zero(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    table = Table(store)
    table.start("mirakel-mix", ["Ann", "Ben"], seed=1)
    store._db.execute("UPDATE games SET boot = 'an earlier boot', started = ?", (time.time() + 3600,))
    table.start("mirakel-mix", ["Cem", "Dana"], seed=2)
    game = store.history()[1]
    assert game["finished"] - game["started"] == 0                 # started "in the future": 0
