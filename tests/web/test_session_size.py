"""Bounded sessions: what every tablet receives with every version does not grow with the
length of the game (issue 16). Sizes and counts, not timings (those are in bench/)."""
from __future__ import annotations

import json

from controller.games import load
from controller.store import Store
from controller.table import Table


def size(session) -> int:
    return len(json.dumps(session, separators=(",", ":")))


def test_a_thousand_sensor_faults_keep_the_mirakel_session_small(tmp_path):
    table = Table(Store(tmp_path / "t.sqlite3"))
    table.start("mirakel-mix", ["Ann", "Ben", "Cas"], seed=1)
    table.act({"type": "sensor_fault", "message": "the beam is blocked"})
    at_1 = size(table.session())
    for n in range(1000):
        # the same fault again and again, and some that differ every time
        message = "the beam is blocked" if n % 2 else f"encoder glitch {n}"
        table.act({"type": "sensor_fault", "message": message})
    warnings = table.session()["state"]["warnings"]
    assert len(warnings) <= load("mirakel-mix").MAX_WARNINGS
    beam = [w for w in warnings if w["message"] == "the beam is blocked"]
    assert len(beam) == 1 and beam[0]["repeats"] == 501       # one line, counted
    assert [w["message"] for w in warnings[-2:]] == ["encoder glitch 998", "the beam is blocked"]
    assert size(table.session()) < 2 * at_1 + 4096
    # a dismissed warning stays dismissed; the others keep their fixes
    table.act({"type": "dismiss_warning", "id": beam[0]["id"]})
    assert all(w["message"] != "the beam is blocked" for w in table.session()["state"]["warnings"])


def test_zaubercocktail_messages_do_not_carry_every_earlier_round():
    game = load("zaubercocktail")
    state = game.setup(["A", "B", "C", "D"], 5, {"deck": "physical"})
    state, _ = game.apply(state, {"type": "reveal", "card": "recipe_1"})
    one_round = size(game.view(state))
    done = {"number": 1, "deal": 5, "recipe": "recipe_1", "dropouts": [0, 1], "false_traders": [], "false_trader_taps": 0,
            "entries": [None] * 4, "entries_revealed": True, "draw_log": [], "order": [],
            "results": [{"seat": 0, "rank": 1, "name": "A", "points": 9, "from": 0, "to": 5}]}
    state["history"] = [dict(done, number=n) for n in range(1, 301)]      # 300 rounds played
    view = game.view(state)
    assert view["rounds_before"] == 300 and view["history"] == []
    assert size(view) < 2 * one_round
    assert len(game.history(state)) == 300                                # all of them on request


def test_the_history_endpoint_gives_every_earlier_round(client):
    from tests.web.helpers import AUTH
    start = client.post("/api/v1/session", json={"game": "zaubercocktail", "players": ["A", "B", "C", "D"],
                                                  "seed": 2, "options": {"deck": "physical"}}, headers=AUTH)
    assert start.status_code == 201
    assert client.get("/api/v1/zaubercocktail/history").get_json() == []
    other = client.post("/api/v1/session", json={"game": "mirakel-mix", "players": ["A", "B"]}, headers=AUTH)
    assert other.status_code == 201
    response = client.get("/api/v1/zaubercocktail/history")
    assert response.status_code == 404 and "no Zaubercocktail game" in response.get_json()["error"]


def test_a_round_of_300_false_trader_taps_keeps_every_message_small(tmp_path):
    table = Table(Store(tmp_path / "t.sqlite3"))
    table.start("zaubercocktail", ["A", "B", "C", "D", "E", "F", "G"], seed=4)
    table.act({"type": "reveal"})
    sizes = {}
    for n in range(1, 301):
        table.act({"type": "false_trader", "seat": n % 7})
        sizes[n] = size(table.session())
    round_ = table.session()["state"]["round"]
    assert round_["false_trader_taps"] == 300 and len(round_["false_traders"]) <= 32
    assert round_["false_traders"][-1]["seat"] == 300 % 7            # the newest is listed
    assert sizes[300] < 2 * sizes[10]
    assert table.act({"type": "undo"})["state"]["round"]["false_trader_taps"] == 299
