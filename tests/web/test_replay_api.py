"""GET /api/v1/history/<n>/replay and /scores: a game that has ended, step by step and its
running score over the game, read without the PIN; every refusal a 4xx with a sentence."""
from __future__ import annotations

import random

from controller import games
from tests.players import PLAYERS, choose
from tests.web.helpers import AUTH


def finish_mix_it(client, table, seed: int = 3) -> int:
    """A whole game of Mix It through the API (the secret claims straight on the table)."""
    engine, rng = games.load("mix-it"), random.Random(seed)
    game_no = client.post("/api/v1/session", json={"game": "mix-it", "players": PLAYERS["mix-it"], "seed": seed},
                          headers=AUTH).get_json()["id"]
    while table.session()["outcome"] is None:
        table.act(choose("mix-it", engine, table.inspect(lambda _e, s: s), rng))
    return game_no


def test_a_finished_game_replays_page_by_page_without_the_pin(client, table):
    game_no = finish_mix_it(client, table)
    first = client.get(f"/api/v1/history/{game_no}/replay")
    assert first.status_code == 200
    body = first.get_json()
    assert body["game_id"] == "mix-it" and body["name"] == "Mix It" and body["from"] == 0
    assert [s["step"] for s in body["steps"]] == list(range(25))
    assert body["steps"][0]["session"]["version"] == 0 and body["total"] == table.version + 1
    last = client.get(f"/api/v1/history/{game_no}/replay?from={body['total'] - 1}&limit=100").get_json()
    assert last["steps"][0]["session"]["outcome"]["winners"] == table.session()["outcome"]["winners"]
    over = client.get(f"/api/v1/history/{game_no}/scores").get_json()
    cookies = over["lines"][0]
    assert cookies["points"][0]["step"] == 0 and cookies["points"][-1]["step"] == body["total"] - 1
    assert cookies["points"][-1]["values"] == table.session()["scores"]["lines"][0]["values"]


def test_refusals_say_why_in_a_sentence(client, table):
    game_no = client.post("/api/v1/session", json={"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 2},
                          headers=AUTH).get_json()["id"]
    for path in (f"/api/v1/history/{game_no}/replay", f"/api/v1/history/{game_no}/scores"):
        playing = client.get(path)
        assert playing.status_code == 409 and "still being played" in playing.get_json()["error"]
    missing = client.get("/api/v1/history/404/replay")
    assert missing.status_code == 404 and "no game #404" in missing.get_json()["error"]
    for query, words in (("limit=0", '"limit" must be a whole number from 1 to 100'),
                         ("limit=101", '"limit" must be a whole number from 1 to 100'),
                         ("from=-1", '"from" must be a whole number'), ("from=x", '"from" must be a whole number')):
        bad = client.get(f"/api/v1/history/{game_no}/replay?{query}")
        assert bad.status_code == 400 and words in bad.get_json()["error"], query
