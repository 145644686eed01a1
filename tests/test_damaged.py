"""Issue 15 item 3: a game that no longer replays never stops the daemon from starting.

It is closed as damaged (kept in the history with the reason), the table starts without
a game and says why, `potionpi doctor` explains and `potionpi repair` acts. A database
file that is empty or not a database is an error that names the file.
"""
from __future__ import annotations

import json
import sqlite3

import pytest

from controller.cli import main
from controller.store import Store, StoreError
from controller.table import Table
from web_ui import create_app

from tests.web.helpers import PIN, SECRET

DB = "potionpi.sqlite3"


def played(tmp_path, drops: int = 4) -> tuple[int, list[dict]]:
    """A Mirakel Mix game with ``drops`` manual drops logged; (game id, sessions)."""
    store = Store(tmp_path / DB)
    table = Table(store)
    session = table.start("mirakel-mix", ["Ann", "Ben"], seed=7)
    sessions = [session]
    for _ in range(drops):
        drop = next(a for a in session["legal_actions"] if a["type"] == "drop")
        session = table.act(drop, version=session["version"])
        sessions.append(session)
    store.close()
    return session["id"], sessions


def edit(tmp_path, sql: str, *args) -> None:
    db = sqlite3.connect(tmp_path / DB)
    with db:
        db.execute(sql, args)
    db.close()


DAMAGE = {
    "an action the rules no longer know": (
        "UPDATE actions SET action = ? WHERE version = 3", json.dumps({"type": "fly"}),
        "action 3 ({\"type\": \"fly\"}) no longer replays: Mirakel Mix has no action called 'fly'"),
    "an action that is no longer legal": (
        "UPDATE actions SET action = ? WHERE version = 2", json.dumps({"type": "drop", "colour": "pink"}),
        "action 2 ({\"type\": \"drop\", \"colour\": \"pink\"}) no longer replays: there is no drop colour"),
    "a row that is not JSON": (
        "UPDATE actions SET action = ? WHERE version = 2", "{half",
        "action 2 is not JSON"),
    "a missing row": (
        "DELETE FROM actions WHERE version = ?", 2,
        "action 2 is missing from the log"),
    "a game that is not installed": (
        "UPDATE games SET game = ?", "chess",
        "the game 'chess' is not installed"),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_game_that_no_longer_replays_is_closed_as_damaged_and_the_table_starts(tmp_path, damage):
    game_id, _ = played(tmp_path)
    sql, arg, reason = DAMAGE[damage]
    edit(tmp_path, sql, arg)
    store = Store(tmp_path / DB)
    table = Table(store)
    assert table.resume() is None                  # no exception: the daemon starts
    assert table.session() is None
    assert table.damaged is not None and table.damaged["id"] == game_id
    assert reason in table.damaged["reason"]
    assert f"game #{game_id} could not be resumed and was closed as damaged" in table.damaged["message"]
    row = store.history()[0]
    assert (row["id"], row["status"]) == (game_id, "damaged") and reason in row["damage"]
    # the players can start a new game; the damaged one stays in the history
    new = table.start("mirakel-mix", ["Cem", "Dana"], seed=3)
    assert new["id"] != game_id and table.damaged is None
    assert [g["status"] for g in store.history()] == ["playing", "damaged"]
    store.close()
    # and the next start does not stumble over it again
    again = Table(Store(tmp_path / DB))
    assert again.resume()["id"] == new["id"] and again.damaged is None


def test_the_tablet_and_healthz_say_that_the_game_was_damaged(tmp_path):
    game_id, _ = played(tmp_path)
    edit(tmp_path, "UPDATE actions SET action = ? WHERE version = 3", json.dumps({"type": "fly"}))
    table = Table(Store(tmp_path / DB))
    table.resume()
    client = create_app(table=table, pin=PIN, secret_key=SECRET).test_client()
    health = client.get("/healthz").get_json()
    assert health["status"] == "ok" and health["damaged"]["id"] == game_id
    missing = client.get("/api/v1/session")
    assert missing.status_code == 404
    assert f"game #{game_id} could not be resumed" in missing.get_json()["error"]
    assert "potionpi doctor" in missing.get_json()["error"]
    page = client.get("/").get_data(as_text=True)
    assert f"game #{game_id} could not be resumed" in page       # the start screen shows it


def test_an_empty_database_file_is_an_error_naming_the_file(tmp_path):
    (tmp_path / DB).write_bytes(b"")
    with pytest.raises(StoreError) as err:
        Store(tmp_path / DB)
    assert str(tmp_path / DB) in str(err.value) and "empty (0 bytes)" in str(err.value)
    assert "potionpi repair" in str(err.value)


def test_a_file_that_is_not_a_database_is_an_error_naming_the_file(tmp_path):
    (tmp_path / DB).write_bytes(b"this is a shopping list, not a database\n" * 200)
    with pytest.raises(StoreError) as err:
        Store(tmp_path / DB)
    assert str(err.value).startswith(f"{tmp_path / DB}: cannot use the game database (")


def test_the_daemon_refuses_an_empty_file_with_one_sentence(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("POTIONPI_PIN", PIN)
    (tmp_path / DB).write_bytes(b"")
    assert main(["run", "--sim", "--data-dir", str(tmp_path), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"potionpi: {tmp_path / DB} is empty (0 bytes)") and "Traceback" not in err


def test_doctor_explains_and_repair_moves_an_empty_file_aside(tmp_path, capsys):
    (tmp_path / DB).write_bytes(b"")
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"problem: {tmp_path / DB} is empty (0 bytes)" in out and "potionpi repair" in out
    assert main(["repair", "--data-dir", str(tmp_path)]) == 0
    assert "moved it to" in capsys.readouterr().out
    assert not (tmp_path / DB).exists()
    assert [p.name.startswith(f"{DB}.broken-") for p in tmp_path.iterdir()] == [True]
    Store(tmp_path / DB).close()                    # the daemon can start afresh
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 0


def test_doctor_explains_a_game_that_does_not_replay_and_repair_closes_it(tmp_path, capsys):
    game_id, _ = played(tmp_path)
    edit(tmp_path, "UPDATE actions SET action = ? WHERE version = 3", json.dumps({"type": "fly"}))
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"problem: game #{game_id} does not replay: action 3" in out
    assert f"`potionpi repair --resume {game_id}` drops action 3 and every later one" in out
    assert main(["repair", "--data-dir", str(tmp_path)]) == 0
    assert f"closed game #{game_id} as damaged" in capsys.readouterr().out
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1      # still listed as damaged
    assert f"damaged: game #{game_id} (mirakel-mix, Ann, Ben): action 3" in capsys.readouterr().out


def test_repair_resume_cuts_a_damaged_game_back_to_its_last_good_action(tmp_path, capsys):
    game_id, sessions = played(tmp_path, drops=5)
    edit(tmp_path, "UPDATE actions SET action = ? WHERE version = 4", json.dumps({"type": "fly"}))
    Table(Store(tmp_path / DB)).resume()              # the daemon started: closed as damaged
    assert main(["repair", "--data-dir", str(tmp_path), "--resume", str(game_id)]) == 0
    out = capsys.readouterr().out
    assert f"game #{game_id} is the running game again at version 3 (2 actions dropped" in out
    assert any(p.name.startswith(f"{DB}.before-repair-") for p in tmp_path.iterdir())
    table = Table(Store(tmp_path / DB))
    session = table.resume()
    assert session is not None and session["id"] == game_id and session["version"] == 3
    assert session["state"] == sessions[3]["state"]
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 0


def test_doctor_on_a_healthy_table(tmp_path, capsys):
    game_id, _ = played(tmp_path)
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"game #{game_id} resumes at version 4" in out and out.rstrip().endswith(": ok")


def test_help_lists_doctor_and_repair(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "    doctor" in out and "    repair" in out
