"""The tablet in headless Chromium at 1024x768: one full Mirakel Mix turn by taps.

Drops come from the simulated cauldron: during set-up through the page's simulation
panel, during the turn from the sim API (as a real sensor would, so the page must
learn of them over its live stream).
"""
from __future__ import annotations

import pytest

from tests.web.helpers import PIN

pytestmark = pytest.mark.browser

# Every visible control smaller than a fingertip (48 px), as "what: WxH".
SMALL_TARGETS_JS = """
() => [...document.querySelectorAll('button, summary, [role=button], input')]
  .filter(el => el.offsetParent !== null || el.closest('svg'))
  .map(el => {
    // a radio button or a toggle is tapped through its label; a cave space through its hit area
    const target = (el.type === 'radio' || el.type === 'checkbox') ? el.closest('label') : (el.querySelector(':scope > .hit') || el);
    const r = target.getBoundingClientRect();
    return [el, r];
  })
  .filter(([el, r]) => r.width > 0 && (r.width < 48 || r.height < 48))
  .map(([el, r]) => `${el.id || el.className.baseVal || el.className || el.tagName}: ${Math.round(r.width)}x${Math.round(r.height)}`)
"""


def phase(page) -> str:
    return page.get_attribute("body", "data-phase") or ""


def version(page) -> str:
    return page.get_attribute("body", "data-version") or ""


def tap_and_wait(page, selector: str) -> None:
    """Tap, then wait until the table has a new version drawn."""
    before = version(page)
    page.locator(selector).first.tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)


def wait_for_phase(page, *phases: str) -> str:
    page.wait_for_function("ps => ps.includes(document.body.dataset.phase)", arg=list(phases))
    return phase(page)


def assert_touch_targets(page) -> None:
    small = page.evaluate(SMALL_TARGETS_JS)
    assert not small, f"controls smaller than 48 px: {small}"


def enter_pin(page) -> None:
    page.wait_for_selector("#pinpad:not([hidden])")
    for digit in PIN:
        page.locator(f'.pin-key[data-key="{digit}"]').tap()
    page.locator('.pin-key[data-key="ok"]').tap()
    page.wait_for_selector("#pinpad", state="hidden")


def lab_disks(session: dict) -> dict[str, int]:
    """(flask/space) -> seat for every disk on the lab, from a session."""
    return {f"{f['flask']}/{sp['index']}": sp["disk"] for f in session["state"]["lab"]
            for sp in f["spaces"] if sp["disk"] is not None}


def page_disks(page) -> dict[str, int]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.space.taken')].map(
        b => [b.dataset.flask + '/' + b.dataset.space,
              Number([...b.querySelector('.disk').classList].find(c => c.startsWith('seat-')).slice(5))]))""")


def test_one_full_turn_by_taps(tablet, live_table, output_dir):
    page = tablet
    page.goto(live_table.url)
    page.wait_for_selector("body[data-ready=yes]")

    # the start screen: pick the game, type two names, start; the PIN is asked once
    assert page.locator("#start-view").is_visible()
    page.locator('input[value="mirakel-mix"]').check()
    names = page.locator('#name-fields input[name="player"]')
    names.nth(0).fill("Ann")
    names.nth(1).fill("ann")
    assert_touch_targets(page)
    page.locator("#btn-start").tap()
    page.screenshot(path=str(output_dir / "pinpad.png"))
    enter_pin(page)
    # the game refuses the names: said on the form, nothing started
    page.wait_for_selector('#start-error:has-text("different name")')
    assert live_table.table.session() is None
    names.nth(1).fill("Ben")
    page.screenshot(path=str(output_dir / "start.png"))
    page.locator("#btn-start").tap()
    page.wait_for_selector('body[data-view="table"]')
    assert phase(page) == "fill_bowls"
    assert page.locator("#sim").is_visible()

    # set-up: the simulation panel's Drop button fills the three bowls (12 drops)
    while phase(page) == "fill_bowls":
        tap_and_wait(page, "#sim-drop")
    assert wait_for_phase(page, "place_apprentices") == "place_apprentices"
    assert page.locator(".bowl.full").count() == 3
    assert page.locator("#cauldron").inner_text().startswith("In the cauldron: 6")

    # each apprentice onto a start space: tap a lit space in the cave
    while phase(page) == "place_apprentices":
        assert_touch_targets(page)
        tap_and_wait(page, ".cave-space.legal")
    assert wait_for_phase(page, "choose_bowl") == "choose_bowl"
    assert "Ann" in page.locator("#prompt").inner_text()

    # Ann empties a bowl: tap it
    tap_and_wait(page, ".bowl.legal")
    assert wait_for_phase(page, "dispense") == "dispense"
    assert page.locator("#cauldron").inner_text().startswith("In the cauldron: 10")

    # four drops fall from the cauldron (reported like a sensor, seen over the stream)
    for n in range(1, 5):
        before = version(page)
        status, body = live_table.call("POST", "/api/v1/sim/cauldron/drop", {})
        assert status == 200, body
        fallen = body["session"]["state"]["last_drop"]
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
        assert wait_for_phase(page, "place_disk") == "place_disk"
        assert page.locator("#drop-big").inner_text() == fallen[0].upper()
        assert page.locator(".space.legal").count() >= 1
        if n == 1:
            assert_touch_targets(page)
            page.screenshot(path=str(output_dir / "place_disk.png"))
        tap_and_wait(page, ".space.legal")

    # completed potions (if any) move apprentices; a mover may stop where they are
    while phase(page) == "move":
        tap_and_wait(page, 'button[data-action="move"]')

    wait_for_phase(page, "choose_bowl")
    session = live_table.table.session()
    assert session["state"]["active"] == 1
    assert page.locator('.player.active[data-seat="1"]').count() == 1
    assert "Ben" in page.locator("#prompt").inner_text()
    assert page_disks(page) == lab_disks(session)
    assert page.locator('#conn[data-state="live"]').count() == 1
    page.screenshot(path=str(output_dir / "table.png"))


def test_naming_a_drop_and_fixing_a_warning_by_taps(tablet, live_table, output_dir):
    page = tablet
    status, session = live_table.call("POST", "/api/v1/session",
                                      {"game": "mirakel-mix", "players": ["Ann", "Ben", "Cy"], "seed": 3})
    assert status == 201
    while session["state"]["phase"] != "choose_bowl":      # set-up by a script
        status, session = live_table.call("POST", "/api/v1/session/actions",
                                          {"action": session["legal_actions"][0]})
        assert status == 200
    page.goto(live_table.url)
    page.wait_for_selector('body[data-view="table"]')

    # a drop while nobody has chosen a bowl: a warning with one-tap fixes, nothing changed
    status, _ = live_table.call("POST", "/api/v1/session/actions", {"action": {"type": "drop", "colour": "red"}})
    assert status == 200
    page.wait_for_selector("#warnings:not([hidden])")
    assert "chose a bowl" in page.locator("#warnings").inner_text()
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "warning.png"))
    page.locator('#warnings button:text("Dismiss")').tap()
    enter_pin(page)                                   # the first change asks for the PIN
    page.wait_for_selector("#warnings", state="hidden")

    tap_and_wait(page, ".bowl.legal")
    # the beam sees a drop but no colour sensor does: six big buttons ask for it
    status, _ = live_table.call("POST", "/api/v1/session/actions", {"action": {"type": "drop"}})
    assert status == 200
    page.wait_for_selector("#picker:not([hidden])")
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "picker.png"))
    colour = page.locator("#picker-colours button:not([disabled])").first.get_attribute("data-colour")
    tap_and_wait(page, f'#picker-colours button[data-colour="{colour}"]')
    page.wait_for_selector("#picker", state="hidden")
    # a passing notice from the cauldron: a toast, not a change of the game
    live_table.table.notice({"kind": "cauldron", "message": "turn gently"})
    page.wait_for_selector('.toast:has-text("turn gently")')
    assert phase(page) == "place_disk"
    assert page.locator("#drop-big").inner_text() == colour[0].upper()
    tap_and_wait(page, ".space.legal")
    assert page.locator(".space.taken").count() == 1


@pytest.mark.parametrize("size", [(1280, 800)])
def test_the_table_fits_a_wider_tablet(browser, live_table, output_dir, size):
    status, session = live_table.call("POST", "/api/v1/session",
                                      {"game": "mirakel-mix", "players": ["Ann", "Ben", "Cy", "Di"], "seed": 5})
    assert status == 201
    while session["state"]["phase"] != "place_disk":
        status, session = live_table.call("POST", "/api/v1/session/actions",
                                          {"action": session["legal_actions"][0]})
        assert status == 200
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    try:
        page.goto(live_table.url)
        page.wait_for_selector('body[data-view="table"]')
        # nothing hangs off the screen: the page itself never scrolls
        overflow = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert overflow[0] <= size[0] and overflow[1] <= size[1]
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "table.png"))
    finally:
        context.close()


def test_a_completed_potion_moves_the_apprentice_by_tapping_the_cave(tablet, live_table, output_dir):
    """Ann fills the flame wall flask (red, yellow, green, blue), wins its card and moves 1 step."""
    page = tablet
    call = live_table.call
    status, session = call("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 1})
    assert status == 201
    # set-up by hand entries (a table without a drop sensor): bowl 1 gets the flame wall's colours
    for colour in ["red", "yellow", "green", "blue", "purple", "orange", "purple", "orange",
                   "red", "yellow", "green", "blue"]:
        status, session = call("POST", "/api/v1/session/actions", {"action": {"type": "drop", "colour": colour}})
        assert status == 200, session
    for space in ("S1", "S2"):
        status, session = call("POST", "/api/v1/session/actions",
                               {"action": {"type": "place_apprentice", "space": space}})
        assert status == 200, session
    page.goto(live_table.url)
    page.wait_for_selector('body[data-view="table"]')
    page.locator("#btn-lock").tap()
    enter_pin(page)

    tap_and_wait(page, '.bowl.legal[data-bowl="0"]')
    for colour in ("red", "yellow", "green", "blue"):
        before = version(page)
        status, body = call("POST", "/api/v1/session/actions", {"action": {"type": "drop", "colour": colour}})
        assert status == 200, body
        page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
        wait_for_phase(page, "place_disk")
        tap_and_wait(page, f'.space.legal[data-flask="flame_wall"][data-colour="{colour}"]')

    assert wait_for_phase(page, "move") == "move"
    assert "Ann" in page.locator(".move-queue").inner_text()
    assert page.locator(".flask.complete").count() == 1
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "move.png"))
    tap_and_wait(page, '.cave-space.legal[data-space="1"]')

    wait_for_phase(page, "choose_bowl")
    session = live_table.table.session()
    assert session["state"]["cave"]["apprentices"]["0"] == "1"
    assert session["state"]["players"][0]["cards"]["flame_wall"] == 1
    assert page.locator('.player[data-seat="0"] .card-chip[data-card="flame_wall"]').inner_text().strip() == "1"
    assert page.locator('.cave-space[data-space="1"] .appr.seat-0').count() == 1
    page.screenshot(path=str(output_dir / "table.png"))


def test_the_page_reconnects_by_itself_after_the_server_restarts(tablet, live_table):
    page = tablet
    status, session = live_table.call("POST", "/api/v1/session",
                                      {"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 2})
    assert status == 201
    page.goto(live_table.url)
    page.wait_for_selector('#conn[data-state="live"]')

    live_table.stop()
    page.wait_for_selector('#conn:not([data-state="live"])')
    live_table.serve()                       # the same port: the tablet keeps its address
    page.wait_for_selector('#conn[data-state="live"]')

    status, body = live_table.call("POST", "/api/v1/sim/cauldron/drop", {"colour": "yellow"})
    assert status == 200, body
    page.wait_for_function("() => document.body.dataset.version === '1'")
    assert page.locator("#drop-big").inner_text() == "Y"


def test_a_settings_sheet_missed_while_the_wifi_blinked_still_opens(tablet, live_table):
    """The sheet's module is fetched after the first paint; a Wi-Fi blip at that moment
    (the first fetch fails) must not leave the tablet without its "More" menu."""
    page = tablet
    failed = []

    def blink(route):
        if not failed:
            failed.append(route.request.url)
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route("**/static/js/sheet.js*", blink)
    page.goto(live_table.url)
    page.wait_for_selector("body[data-ready=yes]")
    assert failed, "the first fetch of the sheet was not the one refused"
    page.click("#btn-more")
    page.wait_for_selector("#sheet:not([hidden])")
