"""BG Stats export: a finished game of each of the five games, played to its end through
the table's one writer, exported as a BG Stats play file that validates against the
format's documented fields (tests/web/bgstats.schema.json); the download headers; the
CLI; and a running game that never leaks into a file."""
from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path

import jsonschema
import pytest

from controller import bgstats
from controller.cli import main
from controller.store import Store
from controller.table import Table
from tests.games import elixir_support, mix_it_support
from web_ui import create_app

from .helpers import AUTH, PIN, SECRET, sim_hub

SCHEMA = json.loads((Path(__file__).parent / "bgstats.schema.json").read_text())
GAMES = {"mirakel-mix": ["Ann", "Ben"], "mix-it": ["Ann", "ben ", "Cem"],
         "zaubercocktail": ["Ann", "Ben", "Cem", "Dora"], "zauberwald": ["ANN", "Ben"], "elixir": ["Ann", "Cem"]}
NAMES = {"mirakel-mix": "Mirakel Mix", "mix-it": "Mix It", "zaubercocktail": "Zaubercocktail",
         "zauberwald": "Im großen Zauberwald", "elixir": "Elixir"}


def choose(game: str, state: dict, engine, rng: random.Random) -> dict:
    """What a player would do next: each game's purposeful test player where there is one,
    else anything legal, from the table or a seat (never undo, so the game moves on)."""
    if game == "mix-it":
        return mix_it_support.choose(state, rng)
    if game == "elixir":
        return elixir_support.choose(rng, state, [a for a in elixir_support.all_actions(state) if a["type"] != "undo"])
    seats = range(len(state["players"]))
    actions = engine.legal_actions(state) + [a for s in seats for a in engine.seat_actions(state, s)]
    return rng.choice([a for a in actions if a["type"] != "undo"])


def finish(table: Table, game: str, players: list[str], seed: int) -> None:
    table.start(game, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(6000):
        if table.session()["outcome"] is not None:
            return
        table.act(choose(game, table._state, table._engine, rng))
    raise AssertionError(f"{game} never ended")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A table with one finished game of each game, then a Zaubercocktail still running
    (its secret lay-down entered). Yields (app, store path, finished rows by game)."""
    path = tmp_path_factory.mktemp("bgstats") / "potionpi.sqlite3"
    store = Store(path)
    table = Table(store)
    hub = sim_hub(table, seed=7)
    for seed, (game, players) in enumerate(GAMES.items(), start=11):
        finish(table, game, players, seed)
    table.start("zaubercocktail", ["Zed", "Yara", "Xeno", "Will"], seed=3)
    table.act({"type": "reveal"})
    table.act({"type": "drop_out", "seat": 0})
    table.act({"type": "lay_down", "seat": 0, "cards": {"troll_hair": 3}, "black": {}})
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET, settings={"keepalive_seconds": 0.3})
    rows = {g["game"]: g for g in store.history(100) if g["status"] in bgstats.FINISHED}
    yield app, path, rows
    hub.close()
    store.close()


def validate(document: dict) -> None:
    jsonschema.validate(document, SCHEMA, format_checker=jsonschema.FormatChecker())
    ids = {kind: {x["id"] for x in document[kind]} for kind in ("players", "locations", "games")}
    for play in document["plays"]:                       # every reference points at an entry
        assert play["gameRefId"] in ids["games"] and play["locationRefId"] in ids["locations"]
        assert {s["playerRefId"] for s in play["playerScores"]} <= ids["players"]
    assert all(len(ids[k]) == len(document[k]) for k in ids), "ids repeat"


@pytest.mark.parametrize("game", list(GAMES))
def test_a_finished_game_of_each_game_validates_and_says_who_won(played, game):
    app, _, rows = played
    row = rows[game]
    response = app.test_client().get(f"/api/v1/history/{row['id']}.bgsplay")
    assert response.status_code == 200, response.get_json()
    document = json.loads(response.get_data(as_text=True))
    validate(document)
    (play,) = document["plays"]
    (entry,) = document["games"]
    assert entry["name"] == NAMES[game] and entry["bggId"] == bgstats.settings(game)["bgg_id"]
    assert entry["noPoints"] is bgstats.settings(game)["no_points"]
    names = {p["id"]: p["name"] for p in document["players"]}
    assert [names[s["playerRefId"]] for s in play["playerScores"]] == [" ".join(n.split()) for n in row["players"]]
    outcome = row["outcome"]
    winners = [names[s["playerRefId"]] for s in play["playerScores"] if s["winner"]]
    assert winners == [row["players"][w].strip() for w in sorted(outcome["winners"])]
    assert all(s["rank"] == 1 for s in play["playerScores"] if s["winner"])
    for placing in outcome["ranking"]:                 # ranks are the game's own places
        assert play["playerScores"][placing["seat"]]["rank"] == placing["place"]
    assert play["durationMin"] == round((row["finished"] - row["started"]) / 60)
    assert play["playDate"][:4] == str(time.localtime(row["started"]).tm_year)


def test_scores_are_each_game_s_own_numbers(played):
    app, _, rows = played
    client = app.test_client()

    def scores(game: str) -> list[str]:
        doc = json.loads(client.get(f"/api/v1/history/{rows[game]['id']}.bgsplay").get_data(as_text=True))
        return [s["score"] for s in doc["plays"][0]["playerScores"]]

    cocktail = rows["zaubercocktail"]["outcome"]
    assert scores("zaubercocktail") == [str(f) for f in cocktail["scores"]]      # fields on the path
    assert scores("mix-it") == [str(n) for n in rows["mix-it"]["outcome"]["cookies"]]
    wald = {r["seat"]: r["score"]["potions"] for r in rows["zauberwald"]["outcome"]["ranking"]}
    assert scores("zauberwald") == [str(wald[s]) for s in range(2)]
    assert scores("mirakel-mix") == ["", ""] and scores("elixir") == ["", ""]   # no points: places only
    elixir = json.loads(client.get(f"/api/v1/history/{rows['elixir']['id']}.bgsplay").get_data(as_text=True))
    # the winner 1st, the others (whom the rulebook does not place) share 2nd
    assert sorted(s["rank"] for s in elixir["plays"][0]["playerScores"]) == [1, 2]


def test_all_games_in_one_file_with_players_once_each(played):
    app, _, rows = played
    response = app.test_client().get("/api/v1/history.bgsplay")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == 'attachment; filename="potionpi-all.bgsplay"'
    document = response.get_json()
    validate(document)
    assert [p["comments"] for p in document["plays"]] == [f"PotionPi game #{rows[g]['id']}" for g in GAMES]
    assert sorted(g["name"] for g in document["games"]) == sorted(NAMES.values())
    # "Ann", "ANN"; "Ben", "ben ": one person each, named as first seen
    assert [p["name"] for p in document["players"]] == ["Ann", "Ben", "Cem", "Dora"]
    assert len({p["uuid"] for p in document["plays"]}) == 5


def test_a_running_game_never_leaks(played):
    app, _, rows = played
    client = app.test_client()
    running = client.get("/api/v1/session").get_json()
    body = client.get("/api/v1/history.bgsplay").get_data(as_text=True)
    for name in running["players"]:
        assert name not in body
    assert "troll" not in body.lower()
    response = client.get(f"/api/v1/history/{running['id']}.bgsplay")
    assert response.status_code == 409
    assert response.get_json()["error"] == (f"game #{running['id']} is still running; "
                                            "only finished games go to BG Stats")
    missing = client.get("/api/v1/history/9999.bgsplay")
    assert missing.status_code == 404 and missing.get_json()["error"] == "there is no game #9999 in the table's history"


def test_the_download_headers_name_a_bgsplay_file(played):
    app, _, rows = played
    row = rows["zauberwald"]
    response = app.test_client().get(f"/api/v1/history/{row['id']}.bgsplay")
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == f'attachment; filename="potionpi-zauberwald-{row["id"]}.bgsplay"'


def test_nothing_finished_is_a_sentence_not_an_empty_file(client):
    client.post("/api/v1/session", json={"game": "zauberwald", "players": ["Ann", "Ben"], "seed": 1}, headers=AUTH)
    response = client.get("/api/v1/history.bgsplay")
    assert response.status_code == 404
    assert response.get_json()["error"] == "no finished game to export yet: a game counts once it has a winner"


def test_the_cli_writes_the_same_file(played, tmp_path, capsys):
    app, path, rows = played
    data = tmp_path / "data"
    data.mkdir()
    with sqlite3.connect(path) as src, sqlite3.connect(data / "potionpi.sqlite3") as dst:
        src.backup(dst)                              # the daemon's database, as it stands
    client = app.test_client()
    assert main(["history", "--bgstats", "--data-dir", str(data)]) == 0
    assert json.loads(capsys.readouterr().out) == client.get("/api/v1/history.bgsplay").get_json()
    one = rows["mix-it"]["id"]
    assert main(["history", "--bgstats", str(one), "--data-dir", str(data)]) == 0
    assert json.loads(capsys.readouterr().out) == client.get(f"/api/v1/history/{one}.bgsplay").get_json()
    running = client.get("/api/v1/session").get_json()["id"]
    assert main(["history", "--bgstats", str(running), "--data-dir", str(data)]) == 1
    assert "is still running; only finished games go to BG Stats" in capsys.readouterr().err


def test_a_wrong_bgstats_toml_names_file_key_and_allowed_values(monkeypatch):
    import controller.bgstats as module

    module.settings.cache_clear()
    real = module.load_data
    monkeypatch.setattr(module, "load_data", lambda package, name: {**real(package, name), "bgg_id": "one"})
    with pytest.raises(bgstats.ExportError) as err:
        module.settings("elixir")
    assert str(err.value) == ("controller/games/elixir/bgstats.toml: bgg_id must be a whole number, "
                              "0 or more (0: not known), not 'one'")
    monkeypatch.setattr(module, "load_data", lambda package, name: {**real(package, name), "bgg": 1})
    with pytest.raises(bgstats.ExportError, match="unknown key 'bgg'"):
        module.settings("mix-it")
    module.settings.cache_clear()
