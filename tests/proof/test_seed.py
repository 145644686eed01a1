"""A running game's seed leaves the daemon in no route, export, log or error (issue 22).

The seed deals every hidden card: ``Elixir().setup(players, seed, {})`` gives all nine
formulas, and for Mix It every hand, goal and the deck's order. Before, ``GET
/settings/export`` (PIN) listed the running game with its seed. Here each game with
hidden information is started the way the tablet starts it (no seed: the table draws
one), every GET route of the app is read (with the PIN, and a seat's own link), bad
requests are sent to every route, and the seed is looked for in every answer and every
log line; once another game has started, the export gives it.
"""
from __future__ import annotations

import json
import logging

import pytest

from controller.service import logs
from tests.web.helpers import AUTH

GAMES = {"elixir": ["Ann", "Ben"], "mix-it": ["Ann", "Ben"],
         "zaubercocktail": ["Ann", "Ben", "Cem", "Dana"]}


def routes(app, token: str) -> list[str]:
    found = []
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods:
            continue
        path = (rule.rule.replace("<path:filename>", "js/app.js").replace("<game_id>", "elixir")
                .replace("<token>", token).replace("<int:game_no>", "1").replace("<int:seat>", "0"))
        if path.startswith("/games/elixir/<"):
            path = "/games/elixir/tablet.js"
        found.append(path)
    return found


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_running_games_seed_is_in_no_answer_and_no_log_line(app, client, table, tmp_path, caplog, game,
                                                                 proof_line):
    handler = logs.open_log_file(tmp_path)
    app.extensions["potionpi"].extras["service"] = {"data_dir": tmp_path, "firmware": None, "urls": []}
    try:
        seed = ""
        while len(seed) < 7:               # a seed as short as a version number could be anywhere
            response = client.post("/api/v1/session", json={"game": game, "players": GAMES[game]}, headers=AUTH)
            assert response.status_code == 201
            seed = str(table.store.game(response.get_json()["id"])["seed"])
        token = client.get("/api/v1/seats", headers=AUTH).get_json()["seats"][0]["token"]
        answers = []
        with caplog.at_level(logging.DEBUG):
            for path in routes(app, token):
                for headers in ({}, AUTH):
                    if path.endswith("/stream"):
                        continue                  # the same sessions as their GET twins
                    answers.append((path, client.get(path, headers=headers).get_data(as_text=True)))
            for path in routes(app, token) + ["/api/v1/session/actions", "/api/v1/session"]:
                bad = client.post(path, data=b'{"action": {"type": "x', headers={**AUTH, "Content-Type":
                                                                                "application/json"})
                answers.append((path, bad.get_data(as_text=True)))
        answers.append(("daemon log", (tmp_path / logs.LOG_FILE).read_text()))
        answers.append(("log records", "\n".join(r.getMessage() for r in caplog.records)))
        leaked = [path for path, text in answers if seed in text]
        proof_line(f"seed of a running {game} game", len(answers), len(leaked),
                   "every GET route with and without the PIN, a bad body to every route, the log "
                   "(before: GET /settings/export listed it)")
        assert leaked == [], leaked
        # once another game is on the table, the export gives the seed (a game replays from it)
        client.post("/api/v1/session", json={"game": "mirakel-mix", "players": ["Ann", "Ben"]}, headers=AUTH)
        games = json.loads(client.get("/settings/export", headers=AUTH).data)["games"]
        assert str(games[1]["seed"]) == seed
    finally:
        logs.close_log_file(handler)
