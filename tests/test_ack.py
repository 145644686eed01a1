"""The store's acknowledgement record (controller/ack.py): a database that holds less
than the store had acknowledged is told, never started as a silent empty table."""
from __future__ import annotations

import shutil

import pytest

from controller import ack
from controller.store import ACK_SUFFIX, Store
from controller.table import Table


def test_a_record_reads_back_and_a_torn_or_edited_one_is_refused(tmp_path):
    record = ack.Acked(12, 40, "elixir", ("Ann", "Ben"))
    data = record.encode()
    assert len(data) == ack.BLOCK and ack.Acked.decode(data) == record
    torn = data[:60] + b"\x00" * (ack.BLOCK - 60)
    with pytest.raises(ValueError):
        ack.Acked.decode(torn)
    with pytest.raises(ValueError, match="checksum"):
        ack.Acked.decode(data.replace(b'"version":40', b'"version":41'))
    long = ack.Acked(1, 2, "mix-it", tuple("x" * 200 for _ in range(9)))
    assert ack.Acked.decode(long.encode()).version == 2          # names dropped, numbers kept


def played(tmp_path, actions: int) -> tuple[Store, Table]:
    """A Mirakel Mix game ``actions`` moves in, its record on disk."""
    store = Store(tmp_path / "t.sqlite3")
    table = Table(store)
    table.start("mirakel-mix", ["Ann", "Ben"], seed=7)
    for _ in range(actions):
        table.act(table.session()["legal_actions"][0])
    store._ack.flush()
    return store, table


def test_the_record_follows_every_commit(tmp_path):
    store, _ = played(tmp_path, 3)
    assert ack.read(tmp_path / f"t.sqlite3{ACK_SUFFIX}") == ack.Acked(1, 3, "mirakel-mix", ("Ann", "Ben"))
    store.close()


def test_a_database_copied_without_its_wal_is_told(tmp_path):
    store, _ = played(tmp_path, 5)
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    # the main file alone (every action still in the WAL), beside the record
    shutil.copy(tmp_path / "t.sqlite3", elsewhere / "t.sqlite3")
    shutil.copy(tmp_path / f"t.sqlite3{ACK_SUFFIX}", elsewhere / f"t.sqlite3{ACK_SUFFIX}")
    store.close()
    copy = Store(elsewhere / "t.sqlite3")
    assert copy.lost is not None and "game #1 (mirakel-mix) is missing" in copy.lost["reason"]
    again = Table(copy)
    assert again.resume() is None and "holds less than the table had saved" in again.damaged["message"]
    copy.close()
    # still said at the next start: nothing was written over the record
    assert Store(elsewhere / "t.sqlite3").lost is not None


def test_a_game_with_moves_missing_is_closed_as_damaged(tmp_path):
    store, _ = played(tmp_path, 4)
    store._db.execute("DELETE FROM actions WHERE version > 1")      # as if the WAL held them
    store.close()
    # the record still says 4 (the store wrote it after each commit)
    (tmp_path / f"t.sqlite3{ACK_SUFFIX}").write_bytes(ack.Acked(1, 4, "mirakel-mix", ("Ann", "Ben")).encode())
    reopened = Store(tmp_path / "t.sqlite3")
    assert "has only 1 of its 4 moves" in reopened.lost["reason"]
    again = Table(reopened)
    assert again.resume() is None
    assert reopened.game(1)["status"] == "damaged"
    again.start("mirakel-mix", ["Cem", "Dana"], seed=2)          # play on: the record moves on
    assert reopened.lost is None and again.damaged is None
    reopened.close()
    assert Store(tmp_path / "t.sqlite3").lost is None


def test_a_first_start_and_an_empty_table_have_nothing_to_lose(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    assert store.lost is None
    store.close()
    assert Store(tmp_path / "t.sqlite3").lost is None


def test_an_idle_store_holds_no_thread_and_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(ack.AckWriter, "IDLE", 0.05)
    store, table = played(tmp_path, 1)
    writer = store._ack
    thread = writer._thread
    if thread is not None:
        thread.join(30)                                          # nothing to write: it goes
    assert writer._thread is None and writer._fd is None
    table.act(table.session()["legal_actions"][0])               # the next commit brings it back
    writer.flush()
    assert ack.read(tmp_path / f"t.sqlite3{ACK_SUFFIX}").version == 2
    store.close()
