"""The start screen's per-game toggles, in headless Chromium at 1024×768.

- Im großen Zauberwald with "We deal the printed recipe cards": every player enters their
  three cards by taps, a card entered twice is refused in words, and play reaches the
  master's tile choice with exactly those cards in the engine.
- Zaubercocktail with "We use the printed recipe deck": the host taps the card turned over.
- Zauberwald's "stop!": a wrong call (penalty, the game goes on), then a right one (the
  caller wins), each tapped on the caller's own button.
- Every game's start form fits the screen, "Start the game" within reach.
Screenshots go to test-output/<test>/.
"""
from __future__ import annotations

import pytest

from controller.games import available
from controller.games.base import load_data
from tests.e2e.conftest import LiveTable
from tests.e2e.test_tablet_browser import assert_touch_targets, enter_pin, wait_for_phase
from tests.e2e.test_zauberwald_browser import make_table

pytestmark = pytest.mark.browser

SIZE = (1024, 768)
RECIPES = {r["number"]: {c: n for c, n in r["ingredients"].items() if n}
           for r in load_data("controller.games.zauberwald")["recipes"]}
# A card from a differing printing (in no deck of ours): the engine takes it, without a number.
HOUSE_CARDS = [{"red": 3, "blue": 2, "white": 2}, {"green": 3, "purple": 2, "black": 2},
               {"yellow": 3, "orange": 2, "white": 2}]


@pytest.fixture
def bare_forest(tmp_path):
    """A live table without a forest-floor motor (the master turns by hand)."""
    live, hub, store = make_table(tmp_path, floor=False)
    yield live
    live.stop()
    hub.close()
    store.close()


@pytest.fixture
def open_page(page_on):
    """open_page(url) → a fresh 1024×768 touch page."""
    return lambda url: page_on(url, SIZE)


def api(live: LiveTable, action: dict) -> dict:
    status, session = live.call("POST", "/api/v1/session/actions", {"action": action})
    assert status == 200, session
    return session


def engine(live: LiveTable) -> dict:
    """What any client sees: GET /api/v1/session."""
    status, session = live.call("GET", "/api/v1/session")
    assert status == 200, session
    return session


def version(page) -> str:
    return page.get_attribute("body", "data-version") or ""


def fill_start_form(page, game: str, names: list[str], toggle: str | None = None) -> None:
    page.locator(f'label.game-option:has(input[value="{game}"])').tap()
    fields = page.locator('#name-fields input[name="player"]')
    for i, name in enumerate(names):
        fields.nth(i).fill(name)
    if toggle:
        page.locator(f"label.toggle:has({toggle})").tap()
        assert page.locator(toggle).is_checked()


def start_from_form(page) -> None:
    page.locator("#btn-start").tap()
    enter_pin(page)
    page.wait_for_selector('body[data-view="table"]')


def fits_the_screen(page) -> None:
    doc = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert doc[0] <= SIZE[0] and doc[1] <= SIZE[1], f"the page hangs off the screen: {doc}"


def start_reachable(page) -> None:
    """The whole form, 'Start the game' included, is on the screen without scrolling."""
    view = page.evaluate("() => { const v = document.querySelector('#start-view'); "
                         "return [v.scrollHeight, v.clientHeight]; }")
    assert view[0] <= view[1], f"the start form needs scrolling: {view}"
    box = page.locator("#btn-start").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= SIZE[1], f"'Start the game' out of reach: {box}"
    fits_the_screen(page)


# --- Zauberwald: the printed recipe cards ---------------------------------------------------------
def tap_card(page, ingredients: dict[str, int]) -> None:
    for colour, n in ingredients.items():
        for _ in range(n):
            page.locator(f'#zw-stage button.zw-add[data-colour="{colour}"]').tap()


def test_zauberwald_players_enter_their_printed_cards(bare_forest, open_page, output_dir):
    live = bare_forest
    names = ["Julie", "Linus", "Mia"]
    # two deck cards and one house card per player, all different
    dealt = {0: [RECIPES[1], RECIPES[6], HOUSE_CARDS[0]],
             1: [RECIPES[12], RECIPES[3], HOUSE_CARDS[1]],
             2: [RECIPES[16], RECIPES[9], HOUSE_CARDS[2]]}
    numbers = {0: [1, 6, None], 1: [12, 3, None], 2: [16, 9, None]}

    page = open_page(live.url)
    fill_start_form(page, "zauberwald", names, "#opt-zauberwald-cards")
    assert page.locator("#zauberwald-settings").is_visible()
    start_from_form(page)
    assert wait_for_phase(page, "cards") == "cards"
    # the tablet sent the toggle's option and nothing else (the game record keeps it)
    assert live.table.store.game(live.table.store.running_game_id())["options"] == {"cards": "physical"}
    session = engine(live)
    assert session["state"]["phase"] == "cards" and session["state"]["round_number"] == 0
    assert all(card is None for p in session["state"]["players"] for card in p["cards"])
    assert "Julie's first recipe card" in page.locator("#prompt").inner_text()

    for seat in range(len(names)):
        for slot, card in enumerate(dealt[seat]):
            assert f"{names[seat]}'s {['first', 'second', 'third'][slot]} recipe card" in \
                page.locator("#zw-stage h2").inner_text()
            # the player whose card it is stands out in the players' strip
            assert page.locator(".zw-player.checking").get_attribute("data-seat") == str(seat)
            tap_card(page, card)
            assert page.locator("#zw-card-sum").inner_text().startswith("7 of 7")
            # seven taps fill a card: no colour takes an eighth
            assert page.locator("#zw-stage button.zw-add:not([disabled])").count() == 0
            if seat == 0 and slot == 1:
                assert_touch_targets(page)
                page.screenshot(path=str(output_dir / "card-entry.png"))
            if seat == 1 and slot == 0:
                # Linus types Julie's first card by mistake: refused in words, nothing entered
                page.locator("#zw-clear-card").tap()
                tap_card(page, dealt[0][0])
                before = engine(live)["version"]
                page.locator("#zw-enter-card").tap()
                page.wait_for_selector('#toasts :text("every recipe card is different")')
                toast = page.locator("#toasts").inner_text()
                assert "already entered as Julie's first card" in toast
                page.screenshot(path=str(output_dir / "refused.png"))
                assert engine(live)["version"] == before
                assert page.locator("#zw-card-sum").inner_text().startswith("7 of 7")   # taps kept to fix
                page.locator("#zw-clear-card").tap()
                assert page.locator("#zw-card-sum").inner_text().startswith("0 of 7")
                # a card of six cannot be sent: every recipe has seven ingredients
                six = dict(card)
                last = next(iter(six))
                six[last] -= 1
                tap_card(page, six)
                assert page.locator("#zw-card-sum").inner_text().startswith("6 of 7")
                assert page.locator("#zw-enter-card").is_disabled()
                tap_card(page, {last: 1})
            before = version(page)
            page.locator("#zw-enter-card").tap()
            page.wait_for_function("v => document.body.dataset.version !== v", arg=before)

    # all nine cards in: the first round starts with the master's tile
    assert wait_for_phase(page, "choose") == "choose"
    assert page.locator("button.zw-tile").count() > 0
    assert "Julie" in page.locator("#prompt").inner_text()
    state = engine(live)["state"]
    assert state["phase"] == "choose"
    for seat in range(len(names)):
        cards = state["players"][seat]["cards"]
        assert [c["recipe"] for c in cards] == dealt[seat]
        assert [c["number"] for c in cards] == numbers[seat]
        assert all(c["on_card"] == {} and not c["finished"] for c in cards)
    # the players' strip shows each card's seven chips
    assert page.locator('.zw-player[data-seat="2"] .zw-card[data-card="2"] .zw-chip').count() == 7
    page.screenshot(path=str(output_dir / "choose.png"))


# --- Zaubercocktail: the printed recipe deck ------------------------------------------------------
def test_zaubercocktail_host_taps_the_printed_card(live_table, open_page, output_dir):
    page = open_page(live_table.url)
    fill_start_form(page, "zaubercocktail", ["Arne", "Babs", "Chris", "Doro"], "#opt-zaubercocktail-deck")
    start_from_form(page)
    page.wait_for_selector('body[data-phase="reveal"]')
    page.wait_for_selector('.zc-pick-card[data-card="recipe_4"]:has-text("5/3/1/−2")')   # faces loaded
    assert page.locator(".zc-pick-card").count() == 10
    assert page.locator("#zc-reveal").count() == 0          # no digital reveal with the printed deck
    assert live_table.table.store.game(live_table.table.store.running_game_id())["options"] == {"deck": "physical"}
    session = engine(live_table)
    assert session["state"]["recipe_deck"]["mode"] == "physical" and session["players"] == ["Arne", "Babs", "Chris", "Doro"]
    assert {a["card"] for a in session["legal_actions"] if a["type"] == "reveal"} == \
        {f"recipe_{i}" for i in range(1, 10)} | {"magic_bolt"}
    assert_touch_targets(page)
    fits_the_screen(page)
    off = page.evaluate("""() => [...document.querySelectorAll('button')].filter(b => b.offsetParent)
        .filter(b => b.getBoundingClientRect().bottom > innerHeight).map(b => b.textContent)""")
    assert not off, f"buttons below the screen's edge: {off}"      # the players' buttons stay in view
    page.screenshot(path=str(output_dir / "pick-card.png"))

    before = version(page)
    page.locator('.zc-pick-card[data-card="recipe_7"]').tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    state = engine(live_table)["state"]
    assert state["phase"] == "trading"
    assert state["round"]["recipe"]["id"] == "recipe_7"
    assert state["recipe_deck"]["revealed"] == ["recipe_7"]
    assert state["recipe_deck"]["remaining"] == 9
    page.wait_for_selector('.zc-recipe[data-card="recipe_7"]')
    assert page.locator(".zc-recipe").inner_text().count("+") == len(state["round"]["recipe"]["forward"])
    assert "printed deck" in page.locator(".zc-recipe").inner_text()
    page.screenshot(path=str(output_dir / "revealed.png"))


# --- Zauberwald: "stop!" ---------------------------------------------------------------------------
def play_round(live: LiveTable, baskets: dict[int, dict[str, int]], tile: int = 2) -> dict:
    """One round over the API: the master's tile, a turn by hand, the search ended, baskets."""
    session = engine(live)
    m = session["state"]["master"]
    api(live, {"type": "choose_tile", "seat": m, "tile": tile})
    api(live, {"type": "turn", "seat": m, "direction": "clockwise"})
    api(live, {"type": "floor_turned", "manual": True})
    session = api(live, {"type": "end_search", "seat": m, "count": tile})
    while session["state"]["phase"] == "check":
        seat = session["state"]["round"]["to_check"][0]
        session = api(live, {"type": "basket", "seat": seat, "ingredients": baskets.get(seat, {})})
    assert session["state"]["phase"] == "choose", session["state"]["phase"]
    return session


def begin_search(live: LiveTable, tile: int = 2) -> dict:
    m = engine(live)["state"]["master"]
    api(live, {"type": "choose_tile", "seat": m, "tile": tile})
    api(live, {"type": "turn", "seat": m, "direction": "clockwise"})
    return api(live, {"type": "floor_turned", "manual": True})


def test_zauberwald_stop_wrong_then_right(bare_forest, open_page, output_dir):
    live = bare_forest
    cards = [[RECIPES[1], RECIPES[2], RECIPES[3]],      # Julie
             [RECIPES[4], RECIPES[5], RECIPES[6]],      # Linus: he will call "stop!"
             [RECIPES[7], RECIPES[8], RECIPES[9]]]      # Mia
    status, _ = live.call("POST", "/api/v1/session", {"game": "zauberwald", "players": ["Julie", "Linus", "Mia"],
                                                      "seed": 4, "options": {"cards": "physical"}})
    assert status == 201
    for seat, three in enumerate(cards):
        for slot, recipe in enumerate(three):
            api(live, {"type": "enter_card", "seat": seat, "slot": slot, "ingredients": recipe})
    # round 1 (master Julie): Linus rakes both his first cards at once: two potions
    both = {c: RECIPES[4].get(c, 0) + RECIPES[5].get(c, 0) for c in set(RECIPES[4]) | set(RECIPES[5])}
    session = play_round(live, {1: both})
    assert session["state"]["players"][1]["potions"] == 2
    play_round(live, {})                                # round 2: master Linus, nothing found
    session = begin_search(live)                        # round 3: master Mia
    state = session["state"]
    assert state["phase"] == "search" and state["master"] == 2
    assert {"type": "stop", "seat": 1} in session["legal_actions"]
    # Julie may call too: one basket could still finish her third card (issue 17's ruling);
    # Mia is the master and her tile's basket is too small for what she still needs
    assert [p["may_stop"] for p in state["players"]] == [True, True, False]

    page = open_page(live.url)
    assert wait_for_phase(page, "search") == "search"
    stop = page.locator('button.zw-stop-call[data-seat="1"]')
    assert stop.inner_text() == "Linus: stop!"
    assert page.locator("button.zw-stop-call").count() == 2
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "1-may-stop.png"))

    # a wrong "stop!": six right ones and a wrong one; his basket is checked first, the game goes on
    stop.tap()
    enter_pin(page)
    assert wait_for_phase(page, "check") == "check"
    rnd = engine(live)["state"]["round"]
    assert rnd["ended_by"] == "stop" and rnd["stoppers"] == [1] and rnd["to_check"][0] == 1
    assert "Linus's basket (called “stop!”)" in page.locator("#zw-stage h2").inner_text()
    third = RECIPES[6]                                   # red 2, yellow 2, green 2, black 1
    short = dict(third)
    short[next(iter(short))] -= 1                        # one of them still missing
    wrong = next(c for c in ("red", "orange", "blue", "white", "purple", "green", "yellow", "black")
                 if not third.get(c))
    tap_card(page, {**{c: n for c, n in short.items() if n}, wrong: 1})
    page.screenshot(path=str(output_dir / "2-wrong-basket.png"))
    before = version(page)
    page.locator("#zw-check").tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    # six right ones of four colours: a real choice of which goes back for the wrong one
    assert wait_for_phase(page, "penalty") == "penalty"
    assert "1 wrong" in page.locator("#zw-stage").inner_text()
    assert page.locator("button.zw-penalty").count() == len([c for c, n in short.items() if n])
    page.screenshot(path=str(output_dir / "3-penalty.png"))
    page.locator("button.zw-penalty").first.tap()
    assert wait_for_phase(page, "check") == "check"
    session = engine(live)
    assert session["outcome"] is None
    result = next(r for r in session["state"]["round"]["results"] if r["seat"] == 1)
    assert result["stop"] == "wrong"
    assert result["wrong"] == {wrong: 1} and sum(result["penalty"].values()) == 1
    linus = session["state"]["players"][1]
    assert linus["potions"] == 2 and sum(linus["cards"][2]["on_card"].values()) == 5
    assert session["state"]["phase"] == "check"          # the rest of the baskets, as usual
    said = page.locator('#zw-results .zw-result[data-seat="1"]')
    assert said.locator(".zw-badge.wrong").inner_text() == "stop! wrong"
    assert '"stop!" was wrong' in said.inner_text() and "Penalty for 1 wrong" in said.inner_text()
    page.screenshot(path=str(output_dir / "4-wrong-result.png"))
    while session["state"]["phase"] == "check":
        seat = session["state"]["round"]["to_check"][0]
        session = api(live, {"type": "basket", "seat": seat, "ingredients": {}})
    assert session["state"]["phase"] == "choose"

    # the next round (master Julie): Linus calls again, with exactly what his card lacks
    begin_search(live)
    page.wait_for_selector('body[data-phase="search"] button.zw-stop-call[data-seat="1"]')
    missing = engine(live)["state"]["players"][1]["cards"][2]["missing"]
    assert sum(missing.values()) == 2
    page.locator('button.zw-stop-call[data-seat="1"]').tap()
    assert wait_for_phase(page, "check") == "check"
    tap_card(page, missing)
    page.locator("#zw-check").tap()
    assert wait_for_phase(page, "over") == "over"
    outcome = engine(live)["outcome"]
    assert outcome["winners"] == [1] and outcome["ended_by"] == "stop"
    assert "Linus wins" in page.locator("#zw-winner").inner_text()
    assert "called “stop!”" in page.locator("#zw-stage").inner_text()
    # the winning round's basket is the one explained, not the round before
    results = page.locator("#zw-results")
    assert results.locator(".panel-title").inner_text() == "Round 4: the baskets"
    assert results.locator('.zw-result[data-seat="1"] .zw-badge.right').inner_text() == "stop! right"
    assert "wrong" not in results.inner_text()
    page.screenshot(path=str(output_dir / "5-won.png"))


# --- every game's start form fits ----------------------------------------------------------------
def test_each_start_form_fits_the_small_tablet(live_table, open_page, output_dir):
    page = open_page(live_table.url)
    assert page.locator("#start-view").is_visible()
    games = available()
    assert {"zauberwald", "zaubercocktail"} <= set(games)
    for game in games:
        page.locator(f'label.game-option:has(input[value="{game}"])').tap()
        most = int(page.locator(f'input[value="{game}"]').get_attribute("data-max"))
        fields = page.locator('#name-fields input[name="player"]')
        for i in range(most):
            fields.nth(i).fill(f"Player{i + 1}")
        settings = page.locator(f'.game-settings[data-game="{game}"]')
        if settings.count():
            assert settings.is_visible()
            for toggle in settings.locator("input[data-option]").all():
                page.locator(f"label.toggle:has(#{toggle.get_attribute('id')})").tap()
        # only the chosen game's settings show
        assert page.locator(f'.game-settings:not([data-game="{game}"]):visible').count() == 0
        start_reachable(page)
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / f"start-{game}.png"))
