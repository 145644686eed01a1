"""The JSON API contract (issue 2): every status code, every error body a sentence."""
from __future__ import annotations

import random

import pytest

from web_ui import create_app

from .helpers import AUTH, PIN, SECRET, RealCauldronHub, act, start_game, to_phase


def error_of(response) -> str:
    body = response.get_json()
    assert set(body) >= {"error"} and isinstance(body["error"], str) and body["error"], body
    assert "Traceback" not in response.get_data(as_text=True)
    return body["error"]


# --- health and games ------------------------------------------------------------------
def test_healthz_reports_ok_and_the_devices(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "ok"
    assert body["devices"]["simulated"] is True
    assert body["devices"]["cauldron"]["total"] == 18      # the sim cauldron holds all 18 drops
    assert body["simulated"] is True and body["game"] is None


def test_games_lists_mirakel_mix_with_player_counts(client):
    response = client.get("/api/v1/games")
    assert response.status_code == 200
    games = {g["id"]: g for g in response.get_json()}
    assert games["mirakel-mix"]["min_players"] == 2
    assert games["mirakel-mix"]["max_players"] == 4
    assert games["mirakel-mix"]["name"] == "Mirakel Mix"
    # the start screen's toggles come from the plug-in: option, value when on, words
    assert games["mirakel-mix"]["settings_legend"] == "Help at the table"
    assert games["mirakel-mix"]["toggles"] == [{
        "option": "coach", "value": True, "label": "Coach",
        "hint": "shows the chance of each colour and suggests a bowl and a space"}]
    # in the start screen's order (each plug-in's ``order``), every installed game
    assert list(games)[:5] == ["mirakel-mix", "zaubercocktail", "zauberwald", "mix-it", "elixir"]


# --- starting a game -------------------------------------------------------------------------
def test_no_session_is_404_with_a_sentence(client):
    response = client.get("/api/v1/session")
    assert response.status_code == 404
    assert "no game is running" in error_of(response)


def test_start_returns_201_and_a_complete_session(client):
    response = client.post("/api/v1/session", json={"game": "mirakel-mix", "players": ["Ann", "Ben"],
                                                    "seed": 7, "options": {}}, headers=AUTH)
    assert response.status_code == 201
    session = response.get_json()
    assert set(session) == {"id", "game", "version", "players", "state", "legal_actions",
                            "legal_actions_complete", "prompt", "told", "can_undo", "undo_label", "scores", "outcome"}
    assert session["legal_actions_complete"] is True      # Mirakel Mix lists every choice
    # the running score: nobody is in the cave yet, so nobody's steps to the exit are known
    assert [(line["key"], line["values"]) for line in session["scores"]["lines"]] == [("steps", [None, None])]
    assert session["prompt"].startswith("Set-up: turn the cauldron")
    assert session["can_undo"] is False and session["undo_label"] is None
    assert session["game"] == "mirakel-mix" and session["players"] == ["Ann", "Ben"]
    assert session["version"] == 0 and session["outcome"] is None
    assert session["state"]["phase"] == "fill_bowls"
    # a table without a drop sensor can play: one manual drop entry per colour
    assert {a["colour"] for a in session["legal_actions"] if a["type"] == "drop"} == \
        {"red", "yellow", "green", "blue", "purple", "orange"}
    assert client.get("/api/v1/session").get_json() == session


def test_start_without_seed_or_options_picks_a_seed(client):
    response = client.post("/api/v1/session", json={"game": "mirakel-mix", "players": ["Ann", "Ben"]},
                           headers=AUTH)
    assert response.status_code == 201


def test_a_new_session_replaces_the_running_game_which_stays_in_history(client, table):
    first = start_game(client)
    act(client, first["legal_actions"][0])
    second = start_game(client, players=["Cy", "Di", "Ed"])
    assert second["id"] != first["id"] and second["version"] == 0
    assert client.get("/api/v1/session").get_json()["players"] == ["Cy", "Di", "Ed"]
    history = {g["id"]: g for g in table.history()}
    assert history[first["id"]]["status"] == "replaced"


@pytest.mark.parametrize("body, words", [
    ({"players": ["Ann", "Ben"]}, '"game"'),
    ({"game": 7, "players": ["Ann", "Ben"]}, '"game"'),
    ({"game": "chess", "players": ["Ann", "Ben"]}, "no game"),
    ({"game": "mirakel-mix"}, '"players"'),
    ({"game": "mirakel-mix", "players": "Ann, Ben"}, '"players"'),
    ({"game": "mirakel-mix", "players": ["Ann", 2]}, '"players"'),
    ({"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": "seven"}, '"seed"'),
    ({"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": True}, '"seed"'),
    ({"game": "mirakel-mix", "players": ["Ann", "Ben"], "options": []}, '"options"'),
])
def test_start_with_a_malformed_body_is_400_naming_the_field(client, body, words):
    response = client.post("/api/v1/session", json=body, headers=AUTH)
    assert response.status_code == 400
    assert words in error_of(response)


def test_start_with_a_body_that_is_not_json_is_400(client):
    response = client.post("/api/v1/session", data="players=Ann", headers=AUTH,
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert "JSON" in error_of(response)
    response = client.post("/api/v1/session", json=["mirakel-mix"], headers=AUTH)
    assert response.status_code == 400
    assert "object" in error_of(response)


def test_start_with_five_players_is_422_naming_the_rule(client):
    response = client.post("/api/v1/session", json={"game": "mirakel-mix",
                                                    "players": ["A", "B", "C", "D", "E"]}, headers=AUTH)
    assert response.status_code == 422
    assert "2 to 4 players" in error_of(response)
    assert client.get("/api/v1/session").status_code == 404     # nothing started


def test_start_needs_the_pin(client):
    body = {"game": "mirakel-mix", "players": ["Ann", "Ben"]}
    response = client.post("/api/v1/session", json=body)
    assert response.status_code == 401
    assert "PIN" in error_of(response)
    response = client.post("/api/v1/session", json=body, headers={"X-Table-Pin": "0000"})
    assert response.status_code == 401
    assert "not the table PIN" in error_of(response)
    assert client.get("/api/v1/session").status_code == 404


# --- actions -----------------------------------------------------------------------------------
def test_a_legal_action_is_200_with_the_next_version(client):
    session = start_game(client)
    response = act(client, {"type": "drop", "colour": "red"}, session["version"])
    assert response.status_code == 200
    after = response.get_json()
    assert after["version"] == session["version"] + 1
    assert after["state"]["bowls"][0]["drops"] == ["red"]
    assert after["state"]["last_drop"] == "red"


def test_every_listed_legal_action_can_be_posted_back_as_is(client):
    """In each phase met on the way to the first disk, every listed action is accepted
    (each tried on a fresh game replayed to the same point: same seed, same actions)."""
    taken: list[dict] = []
    seen_phases: set[str] = set()
    session = start_game(client)
    while session["state"]["phase"] != "dispense" or "dispense" not in seen_phases:
        phase = session["state"]["phase"]
        if phase not in seen_phases:
            seen_phases.add(phase)
            for candidate in session["legal_actions"]:
                start_game(client)
                for earlier in taken:
                    assert act(client, earlier).status_code == 200
                response = act(client, candidate, session["version"])
                assert response.status_code == 200, (phase, candidate, response.get_json())
            start_game(client)
            for earlier in taken:
                act(client, earlier)
        taken.append(session["legal_actions"][0])
        session = act(client, taken[-1], session["version"]).get_json()
    assert {"fill_bowls", "place_apprentices", "choose_bowl", "dispense"} <= seen_phases


def test_an_action_without_version_is_applied_to_the_current_state(client):
    start_game(client)
    response = act(client, {"type": "drop", "colour": "blue"})
    assert response.status_code == 200
    assert response.get_json()["version"] == 1


def test_a_stale_version_is_409_with_the_current_session(client):
    session = start_game(client)
    act(client, {"type": "drop", "colour": "red"}, session["version"])
    response = act(client, {"type": "drop", "colour": "green"}, session["version"])
    assert response.status_code == 409
    body = response.get_json()
    assert "version" in error_of(response)
    assert body["session"]["version"] == session["version"] + 1
    assert body["session"]["state"]["bowls"][0]["drops"] == ["red"]   # the green one was not applied


def test_an_illegal_action_is_422_naming_the_rule_and_changes_nothing(client):
    start_game(client)
    session = to_phase(client, "choose_bowl")
    response = act(client, {"type": "place_disk", "flask": "flame_wall", "space": 0}, session["version"])
    assert response.status_code == 422
    assert len(error_of(response).split()) >= 3          # a sentence, not a code
    assert client.get("/api/v1/session").get_json()["version"] == session["version"]


def test_placing_on_a_space_of_the_wrong_colour_is_refused(client):
    start_game(client)
    session = to_phase(client, "place_disk")
    pending = session["state"]["turn"]["pending"]
    wrong = next((f["flask"], sp["index"]) for f in session["state"]["lab"] for sp in f["spaces"]
                 if sp["colour"] != pending and sp["disk"] is None)
    response = act(client, {"type": "place_disk", "flask": wrong[0], "space": wrong[1]}, session["version"])
    assert response.status_code == 422
    assert pending in error_of(response)


@pytest.mark.parametrize("body, words", [
    ({}, '"action"'),
    ({"action": "drop"}, '"action"'),
    ({"action": {"colour": "red"}}, '"type"'),
    ({"action": {"type": "drop", "colour": "red"}, "version": "3"}, '"version"'),
    ({"action": {"type": "drop", "colour": "red"}, "version": 1.5}, '"version"'),
    ({"action": {"type": "drop", "colour": "red"}, "version": -1}, '"version"'),
])
def test_a_malformed_action_request_is_400(client, body, words):
    start_game(client)
    response = client.post("/api/v1/session/actions", json=body, headers=AUTH)
    assert response.status_code == 400
    assert words in error_of(response)


@pytest.mark.parametrize("action, words", [
    ({"type": "fly"}, "Mirakel Mix has no action called 'fly'"),
    ({"type": ""}, '"type"'),
    ({"type": "drop", "colour": "pink"}, "no drop colour 'pink'"),
    ({"type": "drop", "colour": 3}, "no drop colour 3"),
])
def test_an_action_that_is_no_action_of_the_game_is_400_and_changes_nothing(client, action, words):
    """Malformed (InvalidAction): not an action of this game at all, whatever the rules say."""
    session = start_game(client)
    response = act(client, action, session["version"])
    assert response.status_code == 400
    assert words in error_of(response)
    assert client.get("/api/v1/session").get_json() == session


def test_a_finished_game_refuses_actions_with_422_naming_the_end(client, table):
    start_game(client)
    rng = random.Random(3)
    while table.session()["outcome"] is None:        # any legal play, far moves first, ends
        legal = [a for a in table.session()["legal_actions"] if a["type"] != "undo"]
        table.act(rng.choice([a for a in legal if a["type"] == "move" and a.get("to")] or legal))
    outcome = client.get("/api/v1/session").get_json()["outcome"]
    winner = outcome["winners"][0]
    name = ["Ann", "Ben"][winner]
    assert outcome["reason"] == "left_the_cave" and outcome["winner_names"] == [name]
    assert outcome["message"] == f"{name}'s apprentice left the cave first" and outcome["turns"] >= 1
    assert outcome["ranking"][0] == {"seat": winner, "place": 1, "score": 0}
    assert {p["seat"] for p in outcome["ranking"]} == {0, 1}
    response = act(client, {"type": "drop", "colour": "red"})
    assert response.status_code == 422
    assert f"the game is over ({name}'s apprentice left the cave first)" in error_of(response)


def test_an_action_needs_the_pin(client):
    session = start_game(client)
    body = {"action": {"type": "drop", "colour": "red"}, "version": session["version"]}
    assert client.post("/api/v1/session/actions", json=body).status_code == 401
    wrong = client.post("/api/v1/session/actions", json=body, headers={"X-Table-Pin": PIN + "1"})
    assert wrong.status_code == 401
    assert client.get("/api/v1/session").get_json()["version"] == 0


def test_an_action_without_a_game_is_404(client):
    response = act(client, {"type": "drop", "colour": "red"})
    assert response.status_code == 404
    assert "no game is running" in error_of(response)


# --- the simulated cauldron ----------------------------------------------------------------------
def test_sim_drop_of_a_colour_reaches_the_game(client):
    start_game(client)
    response = client.post("/api/v1/sim/cauldron/drop", json={"colour": "purple"}, headers=AUTH)
    assert response.status_code == 200
    session = response.get_json()["session"]
    assert session["state"]["bowls"][0]["drops"] == ["purple"]
    assert client.get("/healthz").get_json()["devices"]["cauldron"]["contents"]["purple"] == 2


def test_sim_drop_still_takes_color_from_a_tablet_loaded_before_the_upgrade(client):
    """A tablet page open across the daemon's upgrade still runs the old script, which
    spelled the field "color"; its taps must keep working until the page is reloaded."""
    start_game(client)
    response = client.post("/api/v1/sim/cauldron/drop", json={"color": "purple"}, headers=AUTH)
    assert response.status_code == 200
    assert response.get_json()["session"]["state"]["bowls"][0]["drops"] == ["purple"]
    bad = client.post("/api/v1/sim/cauldron/drop", json={"color": 3}, headers=AUTH)
    assert bad.status_code == 400 and '"color"' in error_of(bad)


def test_sim_drop_without_colour_and_empty_body_drops_a_random_one(client):
    start_game(client)
    response = client.post("/api/v1/sim/cauldron/drop", headers=AUTH)
    assert response.status_code == 200
    assert len(response.get_json()["session"]["state"]["bowls"][0]["drops"]) == 1


def test_sim_turn_lets_drops_fall_and_turning_back_does_not(client):
    start_game(client)
    response = client.post("/api/v1/sim/cauldron/turn", json={"detents": -40}, headers=AUTH)
    assert response.status_code == 200
    assert response.get_json()["session"]["version"] == 0          # mixing drops nothing
    response = client.post("/api/v1/sim/cauldron/turn", json={"detents": 40}, headers=AUTH)
    assert response.status_code == 200
    assert response.get_json()["session"]["version"] >= 1          # dispensing does


def test_sim_drop_of_a_colour_the_cauldron_does_not_hold_is_422(client):
    start_game(client)
    for _ in range(3):
        assert client.post("/api/v1/sim/cauldron/drop", json={"colour": "red"}, headers=AUTH).status_code == 200
    response = client.post("/api/v1/sim/cauldron/drop", json={"colour": "red"}, headers=AUTH)
    assert response.status_code == 422
    assert "red" in error_of(response)


@pytest.mark.parametrize("path, body, words", [
    ("/api/v1/sim/cauldron/turn", {}, '"detents"'),
    ("/api/v1/sim/cauldron/turn", {"detents": "six"}, '"detents"'),
    ("/api/v1/sim/cauldron/turn", {"detents": 10**6}, '"detents"'),
    ("/api/v1/sim/cauldron/drop", {"colour": 3}, '"colour"'),
])
def test_sim_requests_that_make_no_sense_are_400(client, path, body, words):
    response = client.post(path, json=body, headers=AUTH)
    assert response.status_code == 400
    assert words in error_of(response)


def test_sim_routes_need_the_pin(client):
    assert client.post("/api/v1/sim/cauldron/drop", json={}).status_code == 401
    assert client.post("/api/v1/sim/cauldron/turn", json={"detents": 6}).status_code == 401
    assert client.get("/healthz").get_json()["devices"]["cauldron"]["total"] == 18


@pytest.mark.parametrize("devices", [RealCauldronHub(), None])
def test_sim_routes_are_404_when_devices_are_not_simulated(table, devices):
    app = create_app(table=table, devices=devices, pin=PIN, secret_key=SECRET)
    client = app.test_client()
    for path, body in (("/api/v1/sim/cauldron/drop", {"colour": "red"}),
                       ("/api/v1/sim/cauldron/turn", {"detents": 6})):
        response = client.post(path, json=body, headers=AUTH)
        assert response.status_code == 404
        assert "real cauldron" in error_of(response)
    assert client.get("/healthz").get_json()["simulated"] is False


# --- never a traceback ---------------------------------------------------------------------------
def test_unknown_api_address_is_json_404(client):
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.is_json
    error_of(response)


def test_wrong_method_is_json_405(client):
    response = client.get("/api/v1/session/actions")
    assert response.status_code == 405
    assert response.is_json
    error_of(response)
    assert "POST" in response.headers["Allow"]


class BrokenTable:
    """A table whose reading blows up: the API must answer 500 without a traceback."""

    def session(self):
        raise RuntimeError("secret internal detail")

    def subscribe(self):
        raise RuntimeError("secret internal detail")


def test_an_internal_error_is_json_500_without_details(hub):
    app = create_app(table=BrokenTable(), devices=hub, pin=PIN, secret_key=SECRET)
    response = app.test_client().get("/api/v1/session")
    assert response.status_code == 500
    assert "secret internal detail" not in response.get_data(as_text=True)
    assert "log" in error_of(response)
    page = app.test_client().get("/")
    assert page.status_code == 500
    assert "secret internal detail" not in page.get_data(as_text=True)
    assert "Traceback" not in page.get_data(as_text=True)


def test_unknown_page_is_a_friendly_html_404(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert "text/html" in response.content_type
    assert "Back to the table" in response.get_data(as_text=True)
