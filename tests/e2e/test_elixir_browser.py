"""Elixir on the tablet (1024x768) and on a wizard's phone (390x844), in headless Chromium.

The tablet: the opening roll and a first turn by taps (move, buy, fill the racks, set out
an experiment, roll), the Unknown read on screen, then a whole game to a win — the
moves a seeded player chose go through the API and the winning roll is tapped.

The phones: each wizard opens his seat through the real ``/seat/<token>`` page, from the
links the tablet's "Phone links" shows (docs/seats.md); each sees his own secrets only
and acts as his own seat.
Screenshots go to test-output/<test>/.
"""
from __future__ import annotations

import json
import pathlib
import random
import sys

import pytest

from tests.e2e.layout_checks import axe_problems, problems
from tests.e2e.test_tablet_browser import assert_touch_targets, enter_pin

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "games"))
from elixir_support import GAME, all_actions, choose  # noqa: E402

pytestmark = pytest.mark.browser


def start(live, seed=4, players=("Ann", "Ben"), dice="physical"):
    status, session = live.call("POST", "/api/v1/session",
                                {"game": "elixir", "players": list(players), "seed": seed, "options": {"dice": dice}})
    assert status == 201, session
    return session


def session_of(live):
    status, session = live.call("GET", "/api/v1/session")
    assert status == 200
    return session


def wait_version(page, version):
    page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=version)


def open_tablet(tablet, live, size=(1024, 768)):
    tablet.set_viewport_size({"width": size[0], "height": size[1]})
    tablet.goto(live.url + "/")
    tablet.wait_for_selector("#ex")
    return tablet


def tap(page, selector, live):
    """Tap, then wait until the tablet drew the version the tap made."""
    before = session_of(live)["version"]
    page.locator(selector).first.tap()
    wait_version(page, before + 1)


def no_overflow(page, size):
    scroll = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert scroll[0] <= size[0] and scroll[1] <= size[1], f"the page hangs off the screen: {scroll}"


def test_a_first_turn_by_taps_on_the_tablet(tablet, live_table, output_dir):
    live = live_table
    start(live)
    page = open_tablet(tablet, live)
    assert "Who begins" in page.locator("#prompt").inner_text()
    page.locator(".ex-pip[data-value='6']").first.tap()          # Ann rolled 6
    enter_pin(page)
    wait_version(page, 1)
    page.screenshot(path=str(output_dir / "1-opening.png"))
    tap(page, ".ex-pip[data-value='2']", live)                   # Ben rolled 2: Ann begins
    # the opening's die no longer counts once Ann's turn starts: the story line says the roll
    assert page.locator("#ex-die small").inner_text() == "no roll this turn"
    assert page.locator("#told-text").inner_text() == "Ben rolled 2 to see who begins. Ann rolled highest (6) and begins."
    assert "Ann" in page.locator(".ex-title").inner_text()
    assert page.locator(".ex-step.now").get_attribute("data-step") == "3"
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "2-move.png"))
    tap(page, "button[data-action='move'][data-to='jeweller']", live)
    tap(page, "button[data-action='buy'][data-ingredient='ruby'][data-free='no']", live)
    assert session_of(live)["state"]["players"][0]["carried"] == {"ruby": 1}
    assert "R3" in page.locator(".ex-wizard[data-seat='0']").inner_text()
    page.screenshot(path=str(output_dir / "3-bought.png"))
    tap(page, "button[data-action='end_turn']", live)
    assert "Ben" in page.locator(".ex-title").inner_text()
    # read aloud on (the shell's switch beside the story line): the tablet reads the
    # Unknown aloud with the story (the voice is recorded, not played)
    page.evaluate("""() => { window.__said = [];
      window.speechSynthesis.speak = (u) => window.__said.push(u.text);
      window.speechSynthesis.cancel = () => {}; }""")
    assert page.locator("#btn-read-aloud").get_attribute("aria-pressed") == "false"     # off by default
    prompt = session_of(live)["prompt"]
    page.locator("#btn-read-aloud").tap()                           # said at once: what the table does now
    assert page.locator("#btn-read-aloud").get_attribute("aria-pressed") == "true"
    tap(page, "button[data-action='move'][data-to='street']", live)   # Ben meets an Unknown
    unknown = session_of(live)["state"]["unknown"]
    assert page.locator("#ex-unknown h3").inner_text().startswith(f"Ben meets {unknown['name']}")
    assert unknown["text"][:40] in page.locator("#ex-unknown").inner_text()
    said = page.evaluate("() => window.__said")
    assert said[1] == (f"Ben's wizard stopped at the street. Ben meets {unknown['name']}: “{unknown['text']}”")
    assert said[0] == prompt and said[2:] == [session_of(live)["prompt"]]    # the prompt, then what changed
    assert f"Ben meets {unknown['name']}" in page.locator("#told-text").inner_text()     # (the card's text is long)
    assert_touch_targets(page)
    no_overflow(page, (1024, 768))
    page.screenshot(path=str(output_dir / "4-unknown.png"))
    # seed 4: Ben meets Simeon, who sells 2 herbs or 2 special products for 1 gold
    assert unknown["id"] == "simeon"
    page.locator(".ex-pickable[data-ingredient='mandrake']").tap()
    page.locator(".ex-pickable[data-ingredient='nightshade']").tap()
    assert "(2/2)" in page.locator("button[data-action='simeon']").inner_text()
    tap(page, "button[data-action='simeon']", live)
    ben = session_of(live)["state"]["players"][1]
    assert ben["carried"] == {"mandrake": 1, "nightshade": 1} and ben["gold"] == 7 - 1
    assert "Accepted" in page.locator("#ex-unknown").inner_text()


def test_a_whole_game_to_a_win_with_the_winning_roll_tapped(tablet, live_table, output_dir):
    live = live_table
    seed = 4
    start(live, seed=seed)
    # a seeded purposeful player finds a whole game; replay it up to the last tap
    rng = random.Random(seed)
    state = GAME.setup(["Ann", "Ben"], seed=seed, options={"dice": "physical"})
    moves = []
    while GAME.outcome(state) is None:
        action = choose(rng, state, all_actions(state))
        if action["type"] == "undo":
            continue
        moves.append(action)
        state, _ = GAME.apply(state, action)
    assert len(moves) < 4000
    last = moves[-1]
    for action in moves[:-1]:
        status, body = live.play(action)          # a drink from the wizard's own phone
        assert status == 200, (action, body)
    page = open_tablet(tablet, live)
    page.screenshot(path=str(output_dir / "1-before-the-win.png"))
    version = session_of(live)["version"]
    if last["type"] == "roll":
        page.locator(f".ex-pip[data-value='{last['value']}']").first.tap()
    else:
        status, body = live.play(last)
        assert status == 200, body
    if page.locator("#pinpad:not([hidden])").count():
        enter_pin(page)
    wait_version(page, version + 1)
    page.wait_for_selector("#ex-winner")
    winner = GAME.outcome(state).winners[0]
    assert f"{['Ann', 'Ben'][winner]} brewed the elixir of life" in page.locator("#ex-winner").inner_text()
    assert session_of(live)["outcome"]["winners"] == [winner]
    assert_touch_targets(page)
    # the final standings: the winner first, the other wizard 2nd (the rules rank only the winner)
    assert page.locator("#ex-standings .ex-standing").all_inner_texts()[0].startswith("1")
    assert page.locator("#ex-standings .ex-standing.won").get_attribute("data-seat") == str(winner)
    page.screenshot(path=str(output_dir / "2-winner.png"))
    page.locator("#ex-see-board").tap()                  # the board behind the card, the winner in its title
    assert page.locator("#ex-winner").count() == 0
    assert "wins in round" in page.locator(".ex-title").inner_text()


def test_each_wizard_sees_only_his_secrets_on_his_seat_page_and_acts_from_it(tablet, page_on, live_table, output_dir):
    """Two wizards open their seats through the real /seat/<token> pages (the links the
    tablet's "Phone links" shows): each sees his own brew cards and formula table and never
    the other's, writes a pencil note and drinks a potion from the phone."""
    live = live_table
    start(live, seed=4)
    # play (through the API) until Ann may drink and both wizards hold brew cards
    rng = random.Random(1)
    for _ in range(3000):
        state = live.table._state
        if any(a["type"] == "drink" for a in GAME.secret_actions(state, 0)) and state["wizards"][1]["brews"]:
            break
        # nothing secret: the phones below are the first to open the seats
        actions = [a for a in all_actions(state) if a["type"] != "undo" and not GAME.is_secret(state, a)]
        status, body = live.call("POST", "/api/v1/session/actions", {"action": choose(rng, state, actions)})
        assert status == 200, body
    state = live.table._state
    drink = next(a for a in GAME.secret_actions(state, 0) if a["type"] == "drink")
    assert state["wizards"][1]["brews"], "Ben holds no brew card: pick another seed"

    # the tablet's phone links: PIN first, a QR code per wizard
    page = open_tablet(tablet, live)
    page.locator("#ex-phones").tap()
    enter_pin(page)
    page.wait_for_selector("#seat-links img")
    assert page.locator("#seat-links figure").count() == 2
    page.screenshot(path=str(output_dir / "0-tablet-phone-links.png"))
    page.locator("#seat-links .big-button").tap()
    status, seats = live.call("GET", "/api/v1/seats")
    assert status == 200, seats
    phones = [page_on(s["url"], size=(390, 844), ready="#exp") for s in seats["seats"]]
    public = json.dumps(session_of(live))
    for seat, phone in enumerate(phones):
        wait_version(phone, session_of(live)["version"])
        mine, other = GAME.private_view(state, seat), GAME.private_view(state, 1 - seat)
        text, html = phone.locator("#exp").inner_text(), phone.content()
        assert all(card["name"].lower() in text.lower() for card in mine["brews"])
        assert phone.locator(".exp-brew[data-brew]").count() == len(mine["brews"])
        # the other wizard's cards never reach this phone (unless this one holds one too, or it is public)
        for card in other["brews"]:
            if card["id"] not in {c["id"] for c in mine["brews"]} and card["id"] not in public:
                assert card["id"] not in html and card["name"] not in text, (seat, card)
        learnt = [f for f in mine["formula_table"] if f["learnt"]]
        assert phone.locator(".exp-cell.learnt").count() == len(learnt)
        assert {c.get_attribute("data-pair") for c in phone.locator(".exp-cell.learnt").all()} == {f["pair"] for f in learnt}
        found = problems(phone) + axe_problems(phone)
        assert not found, "\n".join(found)
        phone.screenshot(path=str(output_dir / f"1-phone-{seat}.png"), full_page=True)
    ann, ben = phones
    assert len([f for f in GAME.private_view(state, 0)["formula_table"] if f["learnt"]]) >= 1

    # a pencil note on an unlearnt square: on Ann's phone only
    square = next(f for f in GAME.private_view(state, 0)["formula_table"] if not f["learnt"])
    ann.locator(f".exp-cell[data-pair='{square['pair']}']").tap()
    ann.locator(".exp-input").fill("lucky?")
    ann.locator("#exp-note button[data-action='note']").tap()
    ann.wait_for_selector(f".exp-cell.noted[data-pair='{square['pair']}']")
    notes = {f["pair"]: f["note"] for f in GAME.private_view(live.table._state, 0)["formula_table"]}
    assert notes[square["pair"]] == "lucky?"
    assert "lucky?" not in json.dumps(session_of(live))           # not on the tablet's stream
    wait_version(ben, session_of(live)["version"])
    assert "lucky?" not in ben.content()                          # nor on Ben's phone

    # Ann drinks from her phone: the potion is face up for everyone, on the tablet too
    before = session_of(live)["version"]
    ann.locator(f"button[data-action='drink'][data-brew='{drink['brew']}']").tap()
    wait_version(page, before + 1)
    assert [u["brew"] for u in session_of(live)["state"]["players"][0]["in_use"]] == [drink["brew"]]
    # Ben's phone offers no drink of Ann's (and cannot act for her)
    assert ben.locator("button[data-action='drink']").count() == 0
    status, body = live.call("GET", "/api/v1/seats")
    assert all(s["claimed"] and "token" not in s for s in body["seats"])    # no code left to scan
    ben_token = seats["seats"][1]["token"]
    answer = ben.evaluate("""async ([token, body]) => {
        const r = await fetch(`/api/v1/seat/${token}/actions`, {method: "POST",
            headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
        return [r.status, await r.json()]; }""",
                          [ben_token, {"action": {"type": "drink", "seat": 0, "brew": drink["brew"]},
                                       "version": session_of(live)["version"]}])
    assert answer[0] == 403 and "Ben" in answer[1]["error"]
    # and the tablet's PIN cannot drink for Ann either: her cards are her phone's alone
    status, body = live.call("POST", "/api/v1/session/actions",
                             {"action": {"type": "drink", "seat": 0, "brew": drink["brew"]}})
    assert status == 403 and "only Ann's own phone" in body["error"]
    wait_version(ann, before + 1)
    found = problems(ann) + axe_problems(ann)
    assert not found, "\n".join(found)
    ann.screenshot(path=str(output_dir / "2-phone-drunk.png"), full_page=True)


def test_four_wizards_mid_game_fit_the_tablet(tablet, live_table, output_dir):
    live = live_table
    start(live, seed=7, players=("Ann", "Ben", "Cem", "Dan"))
    rng = random.Random(7)
    for _ in range(400):                       # a few rounds in: racks, brew cards, timers
        state = live.table._state
        status, body = live.play(choose(rng, state, [a for a in all_actions(state) if a["type"] != "undo"]))
        assert status == 200, body
        if body["outcome"] is not None:
            break
    page = open_tablet(tablet, live)
    assert page.locator(".ex-wizard").count() == 4
    no_overflow(page, (1024, 768))
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "four-wizards.png"))


def test_an_experiment_set_out_by_taps_and_rolled(tablet, live_table, output_dir):
    live = live_table
    start(live, seed=4)
    for action in [{"type": "roll", "seat": 0, "value": 6}, {"type": "roll", "seat": 1, "value": 1}]:
        assert live.call("POST", "/api/v1/session/actions", {"action": action})[0] == 200
    shopping = [("jeweller", "ruby"), ("herbalist", "mandrake"), ("special_supplies", "bat_wing")]
    for place, ingredient in shopping:          # Ann shops three turns; Ben waits in his laboratory
        for action in [{"type": "move", "seat": 0, "to": place}, {"type": "buy", "seat": 0, "ingredient": ingredient},
                       {"type": "end_turn", "seat": 0}, {"type": "move", "seat": 1, "to": "lab"},
                       {"type": "end_turn", "seat": 1}]:
            status, body = live.call("POST", "/api/v1/session/actions", {"action": action})
            assert status == 200, (action, body)
    for action in [{"type": "move", "seat": 0, "to": "lab"}, {"type": "deposit", "seat": 0}]:
        assert live.call("POST", "/api/v1/session/actions", {"action": action})[0] == 200
    page = open_tablet(tablet, live)
    brew = page.locator("#ex-brew button[data-action='brew']")
    assert brew.is_disabled()
    page.locator("#ex-brew button[data-brew='gem'][data-ingredient='ruby']").tap()
    page.locator("#ex-brew button[data-brew='herb'][data-ingredient='mandrake']").tap()
    page.locator("#ex-brew button[data-brew='special'][data-ingredient='bat_wing']").tap()
    assert page.locator("#ex-brew button[data-action='brew']").inner_text() == "Brew: die + 3"
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "1-composer.png"))
    page.locator("#ex-brew button[data-action='brew']").tap()
    enter_pin(page)
    page.wait_for_selector(".ex-pip[data-value='4']")
    tap(page, ".ex-pip[data-value='4']", live)                  # 4 + 3 = 7: success
    assert page.locator("#ex-die .ex-die-result").inner_text() == "✓ success"
    ann = session_of(live)["state"]["players"][0]
    assert ann["brew_cards"] == 1 and ann["racks"] == {}
    assert "null" not in page.locator("#ex-do").inner_text()
    assert "drink a potion (on the phone) or end the turn" in page.locator("#prompt").inner_text()
    page.screenshot(path=str(output_dir / "2-brewed.png"))
