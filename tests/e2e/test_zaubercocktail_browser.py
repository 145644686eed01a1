"""Zaubercocktail on the tablet in headless Chromium: a 5-player game scored by taps.

Round 1 is the rulebook's worked example (Arne, Babs, Chris, Doro, Erni; Doro drops out
first); round 2 has a tie the tablet breaks by asking which card each tied player drew,
and one player's lay-down comes from their phone through the private QR link.
Screenshots go to test-output/<test>/.
"""
from __future__ import annotations

import pytest

from controller.games.zaubercocktail import laydown
from tests.e2e.test_tablet_browser import SMALL_TARGETS_JS, enter_pin
from tests.sizes import timeout_for

pytestmark = pytest.mark.browser

PLAYERS = ["Arne", "Babs", "Chris", "Doro", "Erni"]
EXAMPLE = {   # seat: (cards, black) — the rulebook's example of point calculation
    0: ({"giraffe_extract": 4, "white_berries": 2}, {}),
    1: ({"faran_leaf": 3}, {}),
    2: ({"greenwurz": 7, "lead_earth": 2}, {}),
    3: ({"troll_hair": 3, "yellow_schlums": 3}, {}),
    4: ({"white_berries": 2}, {"white_berries": 1}),
}


def version(page) -> str:
    return page.get_attribute("body", "data-version") or ""


def tap_and_wait(page, selector: str) -> None:
    before = version(page)
    page.locator(selector).first.tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)


def assert_touch_targets(page) -> None:
    small = page.evaluate(SMALL_TARGETS_JS)
    assert not small, f"controls smaller than 48 px: {small}"


def page_stones(page) -> dict[int, int]:
    """seat -> field of every stone drawn on the magic path."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.zc-path .disk')].map(
        d => [d.dataset.seat, Number(d.closest('.zc-field').dataset.field)]))""")


def engine_stones(live_table) -> dict[str, int]:
    return {str(p["seat"]): p["field"] for p in live_table.table.session()["state"]["players"]}


def enter_lay_down(page, live_table, seat: int, cards: dict, black: dict, shot=None) -> None:
    """Open the seat's entry, tap + for every card, check the live points, tap Done."""
    page.locator(f'button[data-action="enter"][data-seat="{seat}"]').tap()
    page.wait_for_selector(f'#zc-modal[data-kind="entry"] .zc-entry[data-seat="{seat}"]')
    for kind, n in cards.items():
        for _ in range(n):
            page.locator(f'[data-testid="cards-{kind}"] .plus').tap()
    for kind, n in black.items():
        for _ in range(n):
            page.locator(f'[data-testid="black-{kind}"] .plus').tap()
    expected = laydown.score(laydown.check_lay_down(cards, black))["points"]
    page.wait_for_function("p => document.querySelector('#zc-entry-total')?.textContent === String(p)", arg=expected)
    # the table's sample (asked for when the entry opened) says where a count goes beyond
    # the cards that surely remain once others have entered
    players = live_table.table.session()["state"]["players"]
    entered = sum(p["entered"] for i, p in enumerate(players) if i != seat)
    for kind, n in cards.items():
        kind_data = laydown.kinds()[kind]
        beyond = n > min(kind_data["most"], kind_data["cards"] - entered * kind_data["most"])
        row = page.locator(f'.zc-entry-row[data-kind="{kind}"] .zc-entry-left')
        if beyond:
            row.wait_for()
        else:
            assert row.count() == 0, kind
    if shot:
        assert_touch_targets(page)
        page.screenshot(path=str(shot))
    tap_and_wait(page, "#zc-entry-done")
    page.wait_for_selector("#zc-modal", state="hidden")


@timeout_for(10)                  # a whole round of five hands laid down and scored by taps
def test_a_five_player_round_scored_by_taps(tablet, live_table, output_dir):
    page = tablet
    page.goto(live_table.url)
    page.wait_for_selector("body[data-ready=yes]")
    page.locator('label.game-option:has(input[value="zaubercocktail"])').tap()
    names = page.locator('#name-fields input[name="player"]')
    for i, name in enumerate(PLAYERS):
        names.nth(i).fill(name)
    page.locator("#btn-start").tap()
    enter_pin(page)
    page.wait_for_selector('body[data-phase="reveal"]')
    assert "Deal 10" in page.locator(".zc-round").inner_text()
    assert page.locator(".zc-start .disk").count() == 5
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "1-deal.png"))

    # reveal the recipe card: its values big on the screen
    tap_and_wait(page, "#zc-reveal")
    recipe = live_table.table.session()["state"]["round"]["recipe"]
    shown = page.locator(".zc-recipe").inner_text()
    assert f"+{recipe['forward'][0]}" in shown and f"−{recipe['back']}" in shown

    # Doro stops trading first (ring), then Arne and Babs (goblet); the round ends
    tap_and_wait(page, 'button[data-action="drop_out"][data-seat="3"]')
    assert page.locator(".zc-slot.ring .disk.seat-3").count() == 1
    tap_and_wait(page, 'button[data-action="drop_out"][data-seat="0"]')
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "2-trading.png"))
    # a dropped-out player may already enter; the live points refuse a lone card in words
    page.locator('button[data-action="enter"][data-seat="3"]').tap()
    page.locator('[data-testid="cards-troll_hair"] .plus').tap()
    page.wait_for_selector('#zc-entry-refusal:has-text("at least 2 cards")')
    assert page.locator("#zc-entry-done").is_disabled()
    page.locator('[data-testid="cards-troll_hair"] .plus').tap()
    page.locator('[data-testid="cards-yellow_schlums"] .plus').tap()
    page.wait_for_function("() => document.querySelector('#zc-entry-refusal').textContent.includes('at least 2')")
    page.locator('[data-testid="cards-yellow_schlums"] .plus').tap()
    page.wait_for_function("() => document.querySelector('#zc-entry-total').textContent === '54'")
    # a third kind is prevented, and says why
    assert page.locator('[data-testid="cards-greenwurz"] .plus').is_disabled()
    assert "2 different kinds" in page.locator('.zc-entry-row[data-kind="greenwurz"]').inner_text()
    # "one more Troll Hair" adds 3×14 − 2×13 = 16
    assert "one more +16" in page.locator('.zc-entry-row[data-kind="troll_hair"]').inner_text()
    page.locator(".zc-entry-buttons button:text('Cancel')").tap()
    page.wait_for_selector("#zc-modal", state="hidden")
    tap_and_wait(page, 'button[data-action="drop_out"][data-seat="1"]')
    page.wait_for_selector('body[data-phase="laying"]')

    # each player enters their lay-down, hidden from the others
    for seat, (cards, black) in EXAMPLE.items():
        enter_lay_down(page, live_table, seat, cards, black, shot=output_dir / "3-entry.png" if seat == 4 else None)
        text = page.locator("#game-view").inner_text()
        assert "Giraffe" not in text and "Faran" not in text, "an entry showed after it was hidden"
        assert page.locator("#zc-modal").inner_html() == ""
    public = live_table.table.session()["state"]
    assert public["round"]["entries"] == [None] * 5 and all(p["entered"] for p in public["players"])
    page.screenshot(path=str(output_dir / "4-all-entered.png"))

    # reveal all: the results screen shows each set, the ranks and the moves
    tap_and_wait(page, "#zc-reveal-entries")
    page.wait_for_selector('body[data-phase="scored"]')
    state = live_table.table.session()["state"]
    results = {r["seat"]: r for r in state["round"]["results"]}
    fwd, back = recipe["forward"], recipe["back"]
    assert [results[s]["rank"] for s in range(5)] == [4, 1, 3, 2, 5]
    assert results[1]["to"] == fwd[0] and results[3]["to"] == fwd[1] + 2 and results[2]["to"] == fwd[2]
    assert results[0]["to"] == 0 and results[4]["to"] == 0          # never behind the start field
    assert {"why": "recipe", "fields": -back} in results[4]["moves"]
    assert f"recipe card −{back}" in page.locator('.zc-result[data-seat="4"]').inner_text()
    assert page_stones(page) == engine_stones(live_table)
    for seat, r in results.items():
        row = page.locator(f'.zc-result[data-seat="{seat}"]')
        assert row.get_attribute("data-to") == str(r["to"])
        assert str(r["points"]) in row.inner_text()
    assert "ring +2" in page.locator('.zc-result[data-seat="3"]').inner_text()
    assert "more cards decide" in page.locator('.zc-result[data-seat="2"]').inner_text()
    assert "Deal 5" in page.locator(".zc-round").inner_text()
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "5-results.png"))

    # round 2: a tie for first place, broken by the drawn cards; Chris lays down by phone
    tap_and_wait(page, "#zc-reveal")
    recipe2 = live_table.table.session()["state"]["round"]["recipe"]
    assert not recipe2["magic_bolt"]                # the bolt lies among the bottom four of ten
    tap_and_wait(page, 'button[data-action="drop_out"][data-seat="2"]')
    before = page_stones(page)["4"]
    tap_and_wait(page, 'button[data-action="false_trader"][data-seat="4"]')   # Erni: "Stop!" — back one
    assert page_stones(page)["4"] == max(0, before - 1) == engine_stones(live_table)["4"]
    phone_lays_down(page, live_table, output_dir, seat=2, hand={"greenwurz": 2, "blue_schlums": 1})
    tap_and_wait(page, 'button[data-action="drop_out"][data-seat="0"]')
    tap_and_wait(page, 'button[data-action="drop_out"][data-seat="1"]')
    for seat, cards in {0: {"faran_leaf": 3}, 1: {"faran_leaf": 3}}.items():
        enter_lay_down(page, live_table, seat, cards, {})
    # Doro asks the tablet's helper and enters its best suggestion with one tap
    page.locator('button[data-action="helper"][data-seat="3"]').tap()
    for _ in range(3):
        page.locator('#zc-modal [data-testid="hand-greenwurz"] .plus').tap()
    page.locator('#zc-modal [data-testid="hand-gold_rose"] .plus').tap()
    page.wait_for_selector('#zc-modal .zc-suggestion[data-points="18"] .zc-use')
    tap_and_wait(page, '#zc-modal .zc-suggestion[data-points="18"] .zc-use')
    page.wait_for_selector("#zc-modal", state="hidden")
    page.locator('button[data-action="enter"][data-seat="4"]').tap()
    tap_and_wait(page, "#zc-lay-nothing")
    tap_and_wait(page, "#zc-reveal-entries")
    page.wait_for_selector('body[data-phase="tiebreak"]')
    assert page.locator(".zc-draw-row").count() == 2
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "6-tiebreak.png"))
    tap_and_wait(page, '.zc-draw-row[data-seat="0"] button[data-kind="gold_rose"]')
    tap_and_wait(page, '.zc-draw-row[data-seat="1"] button[data-kind="blue_schlums"]')
    page.wait_for_selector('body[data-phase="scored"], body[data-phase="over"]')
    state = live_table.table.session()["state"]
    results = {r["seat"]: r for r in (state["round"]["results"] or state["history"][-1]["results"])}
    assert results[0]["rank"] == 1 and results[1]["rank"] == 2
    assert "drew Gold Rose" in page.locator('.zc-result[data-seat="0"]').inner_text()
    assert "laid nothing" in page.locator('.zc-result[data-seat="4"]').inner_text()
    assert results[3]["points"] == 18 and results[3]["cards_played"] == 3
    assert page_stones(page) == engine_stones(live_table)
    page.screenshot(path=str(output_dir / "7-results-round-2.png"))
    # earlier rounds: the box opens on a tap and lists round 1 with its results
    page.locator(".zc-history summary").click()
    page.wait_for_selector(".zc-history-round")
    assert "Round 1" in page.locator(".zc-history").inner_text()
    assert "Earlier rounds (1)" in page.locator(".zc-history summary").inner_text()

    # undo takes the scoring back: the stones return
    tap_and_wait(page, "#btn-undo")
    page.wait_for_selector('body[data-phase="tiebreak"]')
    assert page_stones(page) == engine_stones(live_table)


def phone_lays_down(page, live_table, output_dir, seat: int, hand: dict) -> None:
    """The helper on the tablet (hidden modal with a QR code), then the player's phone."""
    page.locator(f'button[data-action="helper"][data-seat="{seat}"]').tap()
    page.wait_for_selector('#zc-modal[data-kind="helper"] .zc-qr')
    for kind, n in hand.items():
        for _ in range(n):
            page.locator(f'#zc-modal [data-testid="hand-{kind}"] .plus').tap()
    best = laydown.best_lay_downs(hand)["best"]
    page.wait_for_selector(f'#zc-modal .zc-suggestion[data-points="{best["points"]}"]')
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "helper-tablet.png"))
    url = page.locator("#zc-modal .zc-url").inner_text()
    page.locator("#zc-helper-close").tap()
    page.wait_for_selector("#zc-modal", state="hidden")
    assert page.locator("#zc-modal").inner_html() == ""

    phone = page.context.browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        mobile = phone.new_page()
        errors: list[str] = []
        mobile.on("pageerror", lambda exc: errors.append(str(exc)))
        mobile.goto(url)
        mobile.wait_for_selector("body[data-ready=yes]")
        assert PLAYERS[seat] in mobile.locator("#prompt").inner_text()
        assert "lay down now" in mobile.locator("#phone-status").inner_text()   # Chris has stopped trading
        assert all(name not in mobile.content() for name in PLAYERS if name != PLAYERS[seat])
        for kind, n in hand.items():
            for _ in range(n):
                mobile.locator(f'[data-testid="hand-{kind}"] .plus').tap()
        mobile.wait_for_selector(f'.zc-suggestion[data-points="{best["points"]}"]')
        assert_touch_targets(mobile)
        before = version(page)
        mobile.locator(".zc-suggestion .zc-send").first.tap()
        mobile.wait_for_selector('#phone-status:has-text("Sent")')
        mobile.screenshot(path=str(output_dir / "helper-phone.png"), full_page=True)
        assert not errors, errors
    finally:
        phone.close()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    assert live_table.table.session()["state"]["players"][seat]["entered"]
    assert "entered" in page.locator(f'.zc-player[data-seat="{seat}"]').inner_text()


def test_physical_deck_and_the_wider_tablet(browser, live_table, output_dir):
    """A host who turns over the printed recipe cards taps the card; 1280×800 fits too."""
    status, session = live_table.call("POST", "/api/v1/session",
                                      {"game": "zaubercocktail", "players": PLAYERS + ["Fritz", "Gerd"], "seed": 2})
    assert status == 201
    context = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True)
    try:
        page = context.new_page()
        page.goto(live_table.url)
        page.wait_for_selector('body[data-phase="reveal"]')
        page.locator("#zc-use-printed").tap()
        enter_pin(page)
        page.wait_for_selector('.zc-pick-card[data-card="recipe_4"]:has-text("5/3/1/−2")')
        assert page.locator(".zc-pick-card").count() == 10
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "pick-card.png"))
        tap_and_wait(page, '.zc-pick-card[data-card="recipe_4"]')
        state = live_table.table.session()["state"]
        assert state["recipe_deck"]["mode"] == "physical" and state["round"]["recipe"]["id"] == "recipe_4"
        assert page.locator(".zc-players .zc-player").count() == 7
        tap_and_wait(page, 'button[data-action="drop_out"][data-seat="6"]')
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "seven-players.png"))
        # the Magic Bolt ends the game at once: the winner screen
        status, _ = live_table.call("POST", "/api/v1/session/actions", {"action": {"type": "false_trader", "seat": 0}})
        assert status == 200
        for seat in (0, 1):
            live_table.call("POST", "/api/v1/session/actions", {"action": {"type": "drop_out", "seat": seat}})
        for seat in range(7):
            live_table.call("POST", "/api/v1/session/actions",
                            {"action": {"type": "lay_down", "seat": seat, "cards": {"greenwurz": 2 + seat % 3}, "black": {}}})
        status, body = live_table.call("POST", "/api/v1/session/actions", {"action": {"type": "reveal_entries"}})
        assert status == 200, body
        kinds = [k["id"] for k in body["state"]["kinds"]]
        for _ in range(20):                        # each tied player draws a different kind
            if body["state"]["phase"] != "tiebreak":
                break
            draw = next(a for a in body["legal_actions"] if a["type"] == "draw" and a["kind"] == kinds[a["seat"]])
            status, body = live_table.call("POST", "/api/v1/session/actions", {"action": draw})
            assert status == 200, body
        assert body["state"]["phase"] == "scored"
        page.wait_for_selector('body[data-phase="scored"]')
        assert page.locator(".zc-result").count() == 7
        assert page_stones(page) == engine_stones(live_table)
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "seven-results.png"))
        status, body = live_table.call("POST", "/api/v1/session/actions", {"action": {"type": "reveal", "card": "magic_bolt"}})
        assert status == 200 and body["outcome"]
        page.wait_for_selector("#zc-winner")
        names = PLAYERS + ["Fritz", "Gerd"]
        assert all(names[s] in page.locator("#zc-winner").inner_text() for s in body["outcome"]["winners"])
        assert "Game over" in page.locator(".zc-round").inner_text()
        assert page.locator(".zc-results").count() == 1
        page.screenshot(path=str(output_dir / "end.png"))
    finally:
        context.close()
