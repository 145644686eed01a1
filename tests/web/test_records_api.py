"""The table's records over HTTP: the game log in words (undo marked, hidden lay-downs
never told), past games, per-player statistics, remembered names and the rules panel."""
from __future__ import annotations

from tests.web.helpers import AUTH, act


def start(client, game: str, players: list[str], seed: int = 5) -> dict:
    response = client.post("/api/v1/session", json={"game": game, "players": players, "seed": seed}, headers=AUTH)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def play_to_end(client, prefer: tuple[str, ...] = ()) -> dict:
    session = client.get("/api/v1/session").get_json()
    for _ in range(3000):
        if session["outcome"] is not None:
            return session
        legal = [a for a in session["legal_actions"] if a["type"] != "undo"]
        action = next((a for t in prefer for a in legal if a["type"] == t), legal[0])
        response = act(client, action)
        assert response.status_code == 200, response.get_json()
        session = response.get_json()
    raise AssertionError("the game never ended")


def test_the_log_says_who_did_what_newest_first_and_marks_undo(client):
    start(client, "zaubercocktail", ["Ann", "Ben", "Cy", "Di"])
    assert act(client, {"type": "reveal"}).status_code == 200
    assert act(client, {"type": "drop_out", "seat": 1}).status_code == 200
    assert act(client, {"type": "false_trader", "seat": 2}).status_code == 200
    assert act(client, {"type": "undo"}).status_code == 200
    log = client.get("/api/v1/session/log").get_json()["entries"]
    texts = [e["text"] for e in log]
    assert texts[0] == "Undo – taken back: Cy traded falsely: one field back"
    assert log[0]["undo"] and log[1]["undone"] and not log[2]["undone"]
    card = client.get("/api/v1/session").get_json()["state"]["round"]["recipe"]["name"]
    assert texts[1:] == ["Cy traded falsely: one field back",
                         "Ben is done trading. Ben's magic stone goes in the ring.",
                         f"Round 1: recipe card {card} turned over"]
    assert log[2]["lines"] == ["Ben is done trading", "Ben's magic stone goes in the ring"]


def test_a_hidden_lay_down_never_shows_its_cards_in_the_log(client):
    start(client, "zaubercocktail", ["Ann", "Ben", "Cy", "Di"])
    act(client, {"type": "reveal"})
    act(client, {"type": "drop_out", "seat": 0})
    act(client, {"type": "lay_down", "seat": 0, "cards": {"troll_hair": 3}, "black": {}})
    body = client.get("/api/v1/session/log").get_data(as_text=True)
    assert "Ann entered a lay-down (hidden)" in body
    assert "troll" not in body.lower() and '"cards"' not in body


def test_a_game_without_seats_in_its_actions_names_the_player_whose_turn_it_is(client):
    response = client.post("/api/v1/session", json={"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 3,
                                                    "options": {"fill": "random"}}, headers=AUTH)
    assert response.status_code == 201
    for kind in ("place_apprentice", "place_apprentice", "empty_bowl", "drop"):
        session = client.get("/api/v1/session").get_json()
        action = next(a for a in session["legal_actions"] if a["type"] == kind)
        assert act(client, action).status_code == 200
    entry = client.get("/api/v1/session/log").get_json()["entries"][0]
    assert entry["text"] == f"Ann's drop 1 of 4 was {action['colour']}"
    assert client.get("/api/v1/session").get_json()["told"] == [entry["text"]]


def test_no_game_no_log(client):
    response = client.get("/api/v1/session/log")
    assert response.status_code == 404 and "no game is running" in response.get_json()["error"]


def test_history_stats_and_remembered_names_after_two_games(client):
    start(client, "zauberwald", ["Julie", "Linus"], seed=9)
    prefer = ("turn", "floor_turned", "end_search", "basket", "return_ingredients", "choose_tile")
    first = play_to_end(client, prefer)
    start(client, "zauberwald", ["julie", "Mia"], seed=4)        # same Julie, other spelling
    history = client.get("/api/v1/history").get_json()["games"]
    assert [g["status"] for g in history] == ["playing", "done"]
    done = history[1]
    assert done["name"] == "Im großen Zauberwald" and done["players"] == ["Julie", "Linus"]
    assert done["winners"] == [first["players"][s] for s in first["outcome"]["winners"]]
    assert done["minutes"] == 0 and [r["place"] for r in done["ranking"]][0] == 1
    stats = client.get("/api/v1/stats").get_json()["players"]
    julie = next(r for r in stats if r["player"] == "Julie")
    assert julie["plays"] == 1 and julie["game"] == "zauberwald"      # only finished games count
    assert julie["wins"] == (0 in first["outcome"]["winners"])
    assert julie["win_rate"] == float(julie["wins"])
    assert client.get("/api/v1/players").get_json()["players"] == ["julie", "Mia", "Linus"]


def test_history_limit_is_checked(client):
    response = client.get("/api/v1/history?limit=0")
    assert response.status_code == 400 and "limit" in response.get_json()["error"]


def test_every_game_has_a_rules_quick_reference(client):
    for game in client.get("/api/v1/games").get_json():
        ref = client.get(f"/api/v1/games/{game['id']}/quickref").get_json()
        assert ref["name"] == game["name"] and len(ref["turn"]) >= 3 and ref["scoring"]
    assert client.get("/api/v1/games/chess/quickref").status_code == 404


def test_all_games_as_csv_from_the_tablet_and_the_cli(client, store, tmp_path, capsys):
    import csv
    import io
    import shutil

    from controller.cli import main
    start(client, "zauberwald", ["Julie", "Linus"], seed=9)
    first = play_to_end(client, ("turn", "floor_turned", "end_search", "basket", "return_ingredients", "choose_tile"))
    response = client.get("/api/v1/history.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [r["player"] for r in rows] == ["Julie", "Linus"]
    winner = first["players"][first["outcome"]["winners"][0]]
    assert {r["player"]: r["winner"] for r in rows}[winner] == "yes"
    assert {r["player"]: r["place"] for r in rows}[winner] == "1"
    assert rows[0]["game"] == "Im großen Zauberwald" and rows[0]["status"] == "finished"
    assert rows[0]["score"].startswith("potions=")
    # the CLI writes the same from the daemon's data folder
    data = tmp_path / "data"
    data.mkdir()
    store.close()
    shutil.copy(store.path, data / "potionpi.sqlite3")
    assert main(["history", "--csv", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out == response.get_data(as_text=True)


def test_the_log_sends_the_newest_entries_up_to_the_limit(client):
    start(client, "zaubercocktail", ["Ann", "Ben", "Cy", "Di"])
    act(client, {"type": "reveal"})
    for seat in range(3):
        act(client, {"type": "false_trader", "seat": seat})
    body = client.get("/api/v1/session/log?limit=2").get_json()
    assert body["total"] == 4 and [e["version"] for e in body["entries"]] == [4, 3]
    assert client.get("/api/v1/session/log?limit=abc").status_code == 400


def test_two_tables_with_their_own_game_1_each_get_their_own_log(tmp_path):
    """The log book is one per process; two stores (two test tables, or an imported one)
    both have a game 1, and each must read its own actions, never the other's words."""
    from controller.records import LogBook
    from controller.store import Store
    from controller.table import Table

    book = LogBook()
    logs = []
    for name, actions in (("a", [{"type": "reveal"}, {"type": "drop_out", "seat": 0}]),
                          ("b", [{"type": "reveal"}, {"type": "drop_out", "seat": 1}, {"type": "undo"}])):
        store = Store(tmp_path / f"{name}.sqlite3")
        table = Table(store)
        table.start("zaubercocktail", ["Ann", "Ben", "Cy", "Di"], seed=5 if name == "a" else 6)
        for action in actions:
            table.act(action)
        game = store.history(1)[0]
        assert game["id"] == 1
        logs.append([e["text"] for e in book.entries(game, store.actions(1))])
        store.close()
    ben = "Ben is done trading. Ben's magic stone goes in the ring."
    assert logs[0][0] == "Ann is done trading. Ann's magic stone goes in the ring."
    assert logs[1][:2] == [f"Undo – taken back: {ben}", ben]
    assert all(log[-1].startswith("Round 1: recipe card ") for log in logs)
