"""Mix It in headless Chromium: the tablet (1024x768, then 768x1024) and two phones
(390x844) opened from the seat links play a whole game to a winner by taps.

Which tap to make is chosen by the quick player of the engine tests (it looks at the
table's state); every action itself is a tap on a phone or the tablet. Screenshots go
to test-output/<test>/."""
from __future__ import annotations

import random

import pytest

from tests.e2e.test_tablet_browser import SMALL_TARGETS_JS, enter_pin
from tests.games.mix_it_support import GAME, choose

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Ben"]
SEED = 16              # a game of about 20 actions, with a goal change and an all-star monster
PHONE = (390, 844)


def drawn(page, version: int) -> None:
    page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=version)


def assert_touch_targets(page) -> None:
    small = page.evaluate(SMALL_TARGETS_JS)
    assert not small, f"controls smaller than 48 px: {small}"


def test_a_whole_game_on_the_tablet_and_two_phones(tablet, page_on, live_table, output_dir):
    status, session = live_table.call("POST", "/api/v1/session",
                                      {"game": "mix-it", "players": PLAYERS, "seed": SEED})
    assert status == 201, session
    tablet.goto(live_table.url)
    drawn(tablet, 0)
    tablet.wait_for_selector("#mi")
    # the phone links: PIN first, then a QR code per seat
    tablet.locator("#mi-phones").tap()
    enter_pin(tablet)
    tablet.wait_for_selector("#seat-links img")
    assert tablet.locator("#seat-links figure").count() == 2
    tablet.screenshot(path=str(output_dir / "tablet-phone-links.png"))
    tablet.locator("#seat-links .big-button").tap()
    status, seats = live_table.call("GET", "/api/v1/seats")
    phones = [page_on(s["url"], size=PHONE, ready="#mi-phone") for s in seats["seats"]]
    table = live_table.table
    for page in [tablet, *phones]:
        drawn(page, table.version)
    # the phone shows its own hand and goal, and nobody else's
    for seat, page in enumerate(phones):
        mine = table.session(seat)["private"]
        other = table.session(1 - seat)["private"]
        html = page.content()
        assert mine["goal"]["id"] in html and all(c["id"] in html for c in mine["hand"])
        assert other["goal"]["id"] not in html and not any(f'"{c["id"]}"' in html for c in other["hand"])
    assert_touch_targets(tablet)
    # a player's chip on the board is the letter the score gives him (the monsters are 1 and 2)
    assert tablet.locator("#mi-players .mi-player .seat-chip").all_inner_texts() == ["A", "B"]
    assert tablet.locator(".mi-whose .seat-chip").inner_text() == "A"
    tablet.locator("#btn-score").tap()
    tablet.wait_for_selector("#sheet .score-player .seat-chip")
    assert sorted(tablet.locator("#sheet .score-player .seat-chip").all_inner_texts()) == ["A", "B"]
    tablet.locator("#sheet-close").tap()
    tablet.screenshot(path=str(output_dir / "tablet-1024x768-start.png"))
    for seat, page in enumerate(phones):
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / f"phone-{seat}-start.png"), full_page=True)

    rng = random.Random(SEED)
    shots = {"lit": False, "claim": False, "locked": False}
    for _ in range(200):
        if table.session()["outcome"]:
            break
        action = choose(table._state, rng)       # the test's player decides; the taps act
        before = table.version
        kind = action["type"]
        if kind == "confirm":
            if not shots["claim"]:
                shots["claim"] = True
                tablet.screenshot(path=str(output_dir / "tablet-monster-to-confirm.png"))
            tablet.locator("#mi-confirm").tap()
        else:
            page = phones[action["seat"]]
            if kind == "claim":
                page.wait_for_selector('#mi-claim[data-lit="yes"]')
                if not shots["lit"]:
                    shots["lit"] = True
                    page.screenshot(path=str(output_dir / f"phone-{action['seat']}-monster.png"), full_page=True)
                page.locator("#mi-claim").tap()
            elif kind == "place":
                page.locator(f'.mi-hand-card[data-card="{action["card"]}"]').tap()
                page.locator(f'.mi-place-row [data-place="{action["monster"]}"]').tap()
            elif kind == "move":
                page.locator(f'.mi-mini-slot[data-move="{action["monster"]}-{action["part"]}"]').tap()
            elif kind == "change_goal":
                page.locator("#mi-change").tap()
            else:
                raise AssertionError(f"no tap for {action}")
        for p in [tablet, *phones]:
            drawn(p, before + 1)
        if kind == "move" and not shots["locked"]:
            shots["locked"] = True
            tablet.wait_for_selector(".mi-lock")
            tablet.screenshot(path=str(output_dir / "tablet-last-moved-locked.png"))
    outcome = table.session()["outcome"]
    assert outcome is not None, "the game did not end"
    winner = outcome["winner_names"][0]
    tablet.wait_for_selector("#mi-winner")
    assert winner in tablet.locator("#mi-winner").text_content()
    assert all(shots.values()), shots
    tablet.screenshot(path=str(output_dir / "tablet-1024x768-winner.png"))
    tablet.set_viewport_size({"width": 768, "height": 1024})
    assert_touch_targets(tablet)
    tablet.screenshot(path=str(output_dir / "tablet-768x1024-winner.png"))
    for seat, page in enumerate(phones):
        page.wait_for_selector("#seat-outcome")                 # the seat page's outcome, first
        assert winner in page.locator("#seat-outcome").inner_text()
        page.screenshot(path=str(output_dir / f"phone-{seat}-end.png"), full_page=True)
