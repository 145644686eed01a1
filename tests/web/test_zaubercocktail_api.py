"""Zaubercocktail's extra routes: preview, recipe cards, player links, the lay-down helper
and the phone's "send my lay-down" — above all, what a player's link may and may not do."""
from __future__ import annotations

import re

import pytest

from controller.games.zaubercocktail import laydown

from .helpers import AUTH, act

API = "/api/v1/zaubercocktail"
PLAYERS = ["Arne", "Babs", "Chris", "Doro", "Erni"]


def start(client, players=PLAYERS, options=None, seed=3):
    body = {"game": "zaubercocktail", "players": list(players), "seed": seed}
    if options:
        body["options"] = options
    response = client.post("/api/v1/session", json=body, headers=AUTH)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def link(client, seat):
    response = client.post(f"{API}/link", json={"seat": seat}, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def helper(client, token, hand, black=0):
    return client.post(f"{API}/helper", json={"token": token, "hand": hand, "black": black})


def to_laying(client):
    """Reveal the recipe card and let three players drop out (5 players: the round ends)."""
    session = act(client, {"type": "reveal"}).get_json()
    for seat in (3, 0, 1):
        session = act(client, {"type": "drop_out", "seat": seat}).get_json()
    assert session["state"]["phase"] == "laying"
    return session


# --- the helper ---------------------------------------------------------------------------
HANDS = [
    ({"giraffe_extract": 4, "white_berries": 2, "blue_schlums": 1}, 0),
    ({"faran_leaf": 3, "greenwurz": 5, "gold_rose": 1}, 2),
    ({"troll_hair": 3, "yellow_schlums": 3, "silver_grass": 2, "lead_earth": 2}, 1),
    ({"blue_schlums": 1}, 1),
    ({"white_berries": 1, "gold_rose": 1}, 0),
]


@pytest.mark.parametrize("hand,black", HANDS)
def test_helper_answers_what_best_lay_downs_answers(client, hand, black):
    start(client)
    token = link(client, 2)["token"]
    response = helper(client, token, hand, black)
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == laydown.best_lay_downs(hand, black)


def test_helper_example_hand_lays_the_best_sets(client):
    start(client)
    token = link(client, 0)["token"]
    best = helper(client, token, {"giraffe_extract": 4, "white_berries": 2}).get_json()["best"]
    assert best["points"] == 86 and best["cards"] == {"giraffe_extract": 4, "white_berries": 2}


def test_helper_without_a_token_needs_the_table(client):
    start(client)
    response = client.post(f"{API}/helper", json={"hand": {"greenwurz": 2}})
    assert response.status_code == 401
    assert "PIN" in response.get_json()["error"]
    # the unlocked table (PIN header) may use it without a player link
    response = client.post(f"{API}/helper", json={"hand": {"greenwurz": 2}}, headers=AUTH)
    assert response.status_code == 200
    assert response.get_json()["best"]["points"] == 10


def test_empty_token_is_401_and_a_forged_one_403(client):
    start(client)
    token = link(client, 1)["token"]
    assert helper(client, "", {"greenwurz": 2}).status_code == 401
    forged = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    response = helper(client, forged, {"greenwurz": 2})
    assert response.status_code == 403
    assert "not a valid player link" in response.get_json()["error"]
    assert helper(client, "hello", {"greenwurz": 2}).status_code == 403


def test_token_signed_with_another_key_is_refused(client, app):
    from itsdangerous import URLSafeTimedSerializer

    from controller.games.zaubercocktail.web import TOKEN_SALT
    from web_ui.auth import pin_fingerprint
    start(client)
    game = client.get("/api/v1/session").get_json()["id"]
    with app.test_request_context():
        salt = f"{TOKEN_SALT}.{pin_fingerprint()}"     # everything right but the key
    other = URLSafeTimedSerializer("some other table's key", salt=salt).dumps({"g": game, "s": 0})
    assert helper(client, other, {"greenwurz": 2}).status_code == 403


def test_a_new_pin_revokes_every_player_link(client, app):
    start(client)
    old = link(client, 2)
    assert helper(client, old["token"], {"greenwurz": 2}).status_code == 200
    app.extensions["potionpi"].change_pin("2468")
    response = helper(client, old["token"], {"greenwurz": 2})
    assert response.status_code == 403
    assert "scan the QR code on the tablet again" in response.get_json()["error"]
    assert client.get(f"/zc/hand/{old['token']}").status_code == 403
    assert client.post(f"{API}/me", json={"token": old["token"]}).status_code == 403
    # the tablet, unlocked with the new PIN, hands out a link that works
    fresh = client.post(f"{API}/link", json={"seat": 2}, headers={"X-Table-Pin": "2468"}).get_json()
    assert helper(client, fresh["token"], {"greenwurz": 2}).status_code == 200


def test_token_of_an_earlier_game_is_409(client):
    start(client)
    old = link(client, 0)["token"]
    start(client, seed=4)
    response = helper(client, old, {"greenwurz": 2})
    assert response.status_code == 409
    assert "earlier game" in response.get_json()["error"]
    assert client.get(f"/zc/hand/{old}").status_code == 409


def test_token_when_another_game_runs_is_404(client):
    start(client)
    token = link(client, 0)["token"]
    client.post("/api/v1/session", json={"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 1}, headers=AUTH)
    response = helper(client, token, {"greenwurz": 2})
    assert response.status_code == 404
    assert "no Zaubercocktail game" in response.get_json()["error"]


@pytest.mark.parametrize("hand,black,words", [
    ({"greenwurz": 30}, 0, "only 23 Greenwurz"),
    ({"dragon_scale": 2}, 0, "no ingredient called"),
    ({"greenwurz": -1}, 0, "0 or more"),
    ({"greenwurz": 2}, 5, "only 4 Black Something"),
    ({"greenwurz": "two"}, 0, "whole number"),
])
def test_bad_hand_is_400_with_a_sentence(client, hand, black, words):
    start(client)
    token = link(client, 0)["token"]
    response = helper(client, token, hand, black)
    assert response.status_code == 400
    assert words in response.get_json()["error"]


def test_hand_that_is_not_a_table_is_400(client):
    start(client)
    token = link(client, 0)["token"]
    response = client.post(f"{API}/helper", json={"token": token, "hand": ["greenwurz"]})
    assert response.status_code == 400
    assert "per ingredient" in response.get_json()["error"]


# --- links and the phone page --------------------------------------------------------------
def test_link_needs_the_table(client):
    start(client)
    response = client.post(f"{API}/link", json={"seat": 0})
    assert response.status_code == 401


def test_link_is_bound_to_the_seat_and_shows_a_qr_code(client):
    start(client)
    first, second = link(client, 0), link(client, 4)
    assert first["name"] == "Arne" and second["name"] == "Erni"
    assert first["token"] != second["token"]
    assert first["url"].endswith(f"/zc/hand/{first['token']}")
    assert first["qr_svg"].startswith("data:image/svg+xml")
    assert client.post(f"{API}/link", json={"seat": 5}, headers=AUTH).status_code == 400


def test_phone_page_names_only_its_player_and_fetches_nothing_outside(client):
    start(client)
    token = link(client, 3)["token"]
    response = client.get(f"/zc/hand/{token}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    # its script and styles come from the plug-in's own folder
    assert 'src="/games/zaubercocktail/phone.js"' in page
    assert 'href="/games/zaubercocktail/tablet.css"' in page
    for asset in re.findall(r'(?:src|href)="(/games/[^"]+)"', page):
        assert client.get(asset).status_code == 200, asset
    assert "Doro" in page
    for other in ("Arne", "Babs", "Chris", "Erni"):
        assert other not in page
    assert not re.search(r"(src|href)=\"https?://", page)
    assert client.get("/zc/hand/forged-token").status_code == 403


# --- sending a lay-down from the phone ---------------------------------------------------------
def test_phone_sends_exactly_its_own_lay_down(client):
    start(client)
    to_laying(client)
    token = link(client, 1)["token"]
    response = client.post(f"{API}/send", json={"token": token, "cards": {"faran_leaf": 3}, "seat": 0})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["entry"]["points"] == 93
    session = client.get("/api/v1/session").get_json()
    entered = [p["entered"] for p in session["state"]["players"]]
    assert entered == [False, True, False, False, False]      # Babs (the token's seat), not seat 0
    # the public view still hides it
    assert session["state"]["round"]["entries"] == [None] * 5


def test_phone_lay_down_refused_in_the_rules_words(client):
    start(client)
    to_laying(client)
    token = link(client, 1)["token"]
    response = client.post(f"{API}/send", json={"token": token, "cards": {"faran_leaf": 1}})
    assert response.status_code == 422
    assert "at least 2 cards" in response.get_json()["error"]
    response = client.post(f"{API}/send", json={"token": token, "cards": {"greenwurz": 2, "lead_earth": 2,
                                                                             "troll_hair": 2}})
    assert response.status_code == 422
    assert "at most 2 different kinds" in response.get_json()["error"]


@pytest.mark.parametrize("cards,black,words", [
    ({"greenwurz": "two"}, {}, "whole number"),
    ({"dragon_scale": 2}, {}, "no ingredient called"),
    ({"greenwurz": -2}, {}, "0 or more"),
    ({"greenwurz": 2}, {"greenwurz": 1.5}, "whole number"),
])
def test_phone_lay_down_that_is_not_a_lay_down_is_400(client, cards, black, words):
    start(client)
    to_laying(client)
    token = link(client, 1)["token"]
    response = client.post(f"{API}/send", json={"token": token, "cards": cards, "black": black})
    assert response.status_code == 400
    assert words in response.get_json()["error"]
    assert client.get("/api/v1/session").get_json()["state"]["players"][1]["entered"] is False


def test_table_actions_malformed_are_400_and_rule_refusals_422(client):
    start(client)
    to_laying(client)
    malformed = [
        {"type": "lay_down", "seat": 9, "cards": {}},
        {"type": "lay_down", "seat": "1", "cards": {}},
        {"type": "lay_down", "seat": 1, "cards": {"greenwurz": "2"}},
        {"type": "lay_down", "seat": 1, "cards": ["greenwurz"]},
        {"type": "drop_out", "seat": None},
        {"type": "false_trader"},
        {"type": "draw", "seat": 0, "kind": "dragon_scale"},
        {"type": "shake_the_cauldron"},
    ]
    for action in malformed:
        response = act(client, action)
        assert response.status_code == 400, (action, response.get_json())
    refused = [
        ({"type": "lay_down", "seat": 1, "cards": {"greenwurz": 1}}, "at least 2 cards"),
        ({"type": "drop_out", "seat": 2}, "only while the trading"),
        ({"type": "reveal_entries"}, "still waiting for"),
        ({"type": "draw", "seat": 0, "kind": "gold_rose"}, "only to break a tie"),
        ({"type": "reveal"}, "only after this round has been scored"),
    ]
    for action, words in refused:
        response = act(client, action)
        assert response.status_code == 422, (action, response.get_json())
        assert words in response.get_json()["error"]
    assert client.get("/api/v1/session").get_json()["version"] == 4    # nothing changed


def test_session_says_legal_actions_are_a_sample(client):
    session = start(client)
    assert session["legal_actions_complete"] is False


def test_the_live_message_lists_no_lay_downs_the_lay_down_screen_asks_for_them(client):
    """Lay-downs are asked for when a player's entry opens, not sent with every version;
    the sample is open to anyone watching (it depends on public facts only)."""
    start(client)
    session = to_laying(client)
    assert not [a for a in session["legal_actions"] if a["type"] == "lay_down"]
    sample = client.get(f"{API}/lay-downs/2")
    assert sample.status_code == 200
    body = sample.get_json()
    assert body["seat"] == 2 and body["may_enter"] is True
    assert body["lay_downs"][0] == {"type": "lay_down", "seat": 2, "cards": {}, "black": {}}
    assert {"type": "lay_down", "seat": 2, "cards": {"blue_schlums": 7}, "black": {}} in body["lay_downs"]
    assert act(client, body["lay_downs"][-1]).status_code == 200          # each one is taken
    # four more entered: 27 Blue Schlums minus 4 x 7 surely leave none for the last player
    for seat in (0, 1, 3):
        act(client, {"type": "lay_down", "seat": seat, "cards": {"greenwurz": 2}, "black": {}})
    last = client.get(f"{API}/lay-downs/4").get_json()["lay_downs"]
    assert not [a for a in last if "blue_schlums" in a["cards"]]
    assert act(client, {"type": "reveal_entries"}).status_code == 422      # seat 4 is still out
    assert client.get(f"{API}/lay-downs/9").status_code == 404


def test_no_lay_downs_while_a_player_still_trades_or_without_the_game(client):
    assert client.get(f"{API}/lay-downs/0").status_code == 404
    start(client)
    act(client, {"type": "reveal"})
    assert client.get(f"{API}/lay-downs/0").get_json() == {"seat": 0, "may_enter": False, "lay_downs": []}


def test_phone_cannot_send_while_still_trading(client):
    start(client)
    act(client, {"type": "reveal"})
    token = link(client, 2)["token"]
    response = client.post(f"{API}/send", json={"token": token, "cards": {"greenwurz": 2}})
    assert response.status_code == 422


def test_phone_cannot_act_for_the_table(client):
    start(client)
    token = link(client, 0)["token"]
    response = client.post("/api/v1/session/actions", json={"action": {"type": "reveal"}, "token": token})
    assert response.status_code == 401
    response = client.post(f"{API}/link", json={"seat": 1, "token": token})
    assert response.status_code == 401


def test_me_tells_the_phone_only_its_own_entry(client):
    start(client)
    to_laying(client)
    act(client, {"type": "lay_down", "seat": 0, "cards": {"greenwurz": 3}, "black": {}})
    token = link(client, 1)["token"]
    me = client.post(f"{API}/me", json={"token": token}).get_json()
    assert me["may_enter"] is True and me["entered"] is False and me["entry"] is None
    assert "greenwurz" not in str(me)


# --- preview and cards ------------------------------------------------------------------------
def test_preview_is_the_engine_preview(client):
    body = {"cards": {"white_berries": 2}, "black": {"white_berries": 1}}
    response = client.post(f"{API}/preview", json=body)
    assert response.status_code == 200
    assert response.get_json() == laydown.preview(body["cards"], body["black"])
    assert response.get_json()["points"] == 66


def test_preview_says_a_lone_black_something_is_refused(client):
    response = client.post(f"{API}/preview", json={"cards": {}, "black": {"gold_rose": 1}})
    assert response.get_json()["ok"] is False
    assert "never be laid down alone" in response.get_json()["refusal"]


def test_recipe_cards_list_every_face(client):
    cards = client.get(f"{API}/cards").get_json()
    assert len(cards) == 10
    assert {"id": "recipe_4", "name": "5/3/1/−2", "magic_bolt": False, "forward": [5, 3, 1], "back": 2} in cards
    assert cards[-1]["magic_bolt"] is True
