"""Mirakel Mix on the tablet, in headless Chromium, with the simulated cauldron.

A whole 2-player game is played to its winner by taps on the page (drops from the
simulation panel's Drop button); other tests look at the 4-player cave while someone
moves, the warning banner, device notices, the colour picker without a colour sensor,
and undo. Screenshots at 1024x768 and 1280x800 go to test-output/<test>/.
"""
from __future__ import annotations

import random

import pytest

from tests.e2e.conftest import LiveTable
from tests.sizes import timeout_for
from tests.e2e.test_tablet_browser import assert_touch_targets, enter_pin, phase, tap_and_wait

pytestmark = pytest.mark.browser

SIZES = [(1024, 768), (1280, 800)]


def serve_table(tmp_path, *, seed: int, colour_sensor: bool = True):
    """A live table whose simulated cauldron is built from the daemon's config section
    ``[simulation]`` (seed, colour_sensor), as ``potionpi run --sim`` builds it."""
    from controller.config import Config
    from controller.devices.hub import DeviceHub
    from controller.devices.sim_cauldron import SimulatedCauldron
    from controller.store import Store
    from controller.table import Table

    store = Store(tmp_path / "table.sqlite3")
    table = Table(store)
    config = Config.defaults()
    simulation = dict(config["simulation"], seed=seed, colour_sensor=colour_sensor)
    cauldron = SimulatedCauldron.from_config(simulation, config["cauldron"],
                                             sink=table.sensor, on_notice=table.notice)
    hub = DeviceHub(simulated=True, cauldron=cauldron)
    table.on_effect(hub.handle_effect)
    live = LiveTable.start(table, hub)
    return live, hub, store


@pytest.fixture
def served(tmp_path):
    """Factory: serve_table(...) with clean-up."""
    made = []

    def make(**kwargs):
        made.append(serve_table(tmp_path / str(len(made)), **kwargs))
        return made[-1][0]

    (tmp_path / "0").mkdir()
    (tmp_path / "1").mkdir()
    yield make
    for live, hub, store in made:
        live.stop()
        hub.close()
        store.close()




def assert_cave_readable(page) -> None:
    """Spaces at least a fingertip across; obstacle names clear of spaces and of each other."""
    spaces = boxes(page, ".cave-space .space-ring")
    # at its smallest a space is 48 px drawn through the SVG's scale: 47.99997 on screen is 48
    # (layout_checks allows the same half pixel for every target)
    assert spaces and min(min(b["w"], b["h"]) for b in spaces) >= 48 - 0.5
    labels = boxes(page, ".obstacle-badge .ob-label")
    assert len(labels) == 4
    for i, a in enumerate(labels):
        assert a["h"] >= 26
        assert not any(overlap(a, b) for b in labels[i + 1:]), "two obstacle names overlap"
        assert not any(overlap(a, s) for s in spaces), "an obstacle name covers a space"


def cave_fits(page) -> None:
    """Wait until the cave map is drawn to its panel's size (it redraws when the panel resizes)."""
    page.wait_for_function("""() => {
        const stage = document.querySelector('#cave-stage'), map = stage?.querySelector('svg');
        return !stage || stage.offsetParent === null || (map !== null &&
            Number(map.getAttribute('width')) === stage.clientWidth &&
            Number(map.getAttribute('height')) === stage.clientHeight); }""")


def shoot(page, output_dir, name: str) -> None:
    """A screenshot at each tablet size, e.g. placement_1024x768.png."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("([w, h]) => window.innerWidth === w && window.innerHeight === h", arg=[width, height])
        cave_fits(page)
        overflow = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        assert overflow[0] <= width and overflow[1] <= height, f"{name} at {width}x{height} scrolls: {overflow}"
        assert_touch_targets(page)
        if page.locator("#cave").is_visible():
            assert_cave_readable(page)
        page.screenshot(path=str(output_dir / f"{name}_{width}x{height}.png"), animations="disabled")
    page.set_viewport_size({"width": 1024, "height": 768})


def drawn(page, session: dict) -> None:
    """Wait until the page shows exactly the table's ``session`` (its version and phase)."""
    page.wait_for_function("([v, p]) => document.body.dataset.version === v && document.body.dataset.phase === p",
                           arg=[str(session["version"]), session["state"]["phase"]])


def tap_on(page, session: dict, selector: str) -> None:
    """Tap what ``selector`` finds on the page showing ``session``; wait for the next version drawn."""
    page.locator(selector).first.tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=str(session["version"]))


def api(live, action: dict) -> dict:
    status, body = live.call("POST", "/api/v1/session/actions", {"action": action})
    assert status == 200, body
    return body


def order_of(view: dict) -> list[str]:
    return list(view["cave"]["spaces"]) + [view["cave"]["exit"]]


# --- the whole game ------------------------------------------------------------------------
@timeout_for(250 * 0.1)           # some 250 steps of about three browser round trips each
def test_a_whole_two_player_game_to_its_winner_by_taps(served, page_on, output_dir):
    """Start screen (coach on), set-up, turns, moves: every step a tap; the banner names the winner."""
    live = served(seed=4)
    page = page_on(live.url)

    page.locator('input[value="mirakel-mix"]').check()
    assert page.locator("#mirakel-mix-settings").is_visible()
    assert not page.locator("#opt-mirakel-mix-coach").is_checked()          # off by default
    page.locator("#mirakel-mix-settings .toggle").tap()
    names = page.locator('#name-fields input[name="player"]')
    names.nth(0).fill("Merlina")
    names.nth(1).fill("Houdini")
    page.locator("#btn-start").tap()
    enter_pin(page)
    page.wait_for_selector('body[data-view="table"]')
    assert live.table.session()["state"].get("coach") is not None      # the engine option is on

    # Each step: the table says where the game is (in-process, no round trip), the page is
    # awaited until it shows that very version, then one tap. No sleeps, no polling of our own:
    # about three browser round trips a step, for some 250 steps.
    shots = {"placement": False}
    for _ in range(900):                      # a cap, so a broken page fails instead of hanging
        session = live.table.session()
        if session["outcome"]:
            break
        view = session["state"]
        now = view["phase"]
        drawn(page, session)
        tip = (view.get("coach") or {}).get("suggestion") or {}
        if now in ("fill_bowls", "dispense"):
            # the simulation panel's Drop button: the bowls fill, then the chosen one empties
            tap_on(page, session, "#sim-drop")
        elif now == "place_apprentices":
            tap_on(page, session, ".cave-space.legal")
        elif now == "choose_bowl":
            # the coach's bowl, marked on the page
            tap_on(page, session, f'.bowl.legal.coach-tip[data-bowl="{tip["bowl"]}"]' if "bowl" in tip else ".bowl.legal")
        elif now == "place_disk":
            if not shots["placement"] and view["turn"]["disks_placed"] == 1 and session["version"] > 40:
                assert page.locator(".coach-chances").is_visible()
                shoot(page, output_dir, "placement")
                shots["placement"] = True
            tap_on(page, session, f'.space.legal.coach-tip[data-flask="{tip["flask"]}"][data-space="{tip["space"]}"]'
                   if "flask" in tip else ".space.legal")
        elif now == "move":
            move = view["movement"]
            # every space the engine says the mover can reach is lit on the map and listed
            lit = set(page.eval_on_selector_all(".cave-space.legal:not(.swap)", "gs => gs.map(g => g.dataset.space)"))
            assert lit == {o["to"] for o in move["reachable"]}
            here = view["cave"]["apprentices"][str(move["mover"])]
            order = order_of(view)
            best = max((o["to"] for o in move["reachable"]), key=order.index, default=None)
            if best is not None and order.index(best) > order.index(here):
                ways = [a for a in session["legal_actions"] if a["type"] == "move" and a.get("to") == best]
                page.locator(f'#moves button[data-to="{best}"]').tap()
                if len(ways) > 1:                # two ways there: the page asks which
                    page.locator("#choice:not([hidden]) #choice-options button").first.tap()
                page.wait_for_function("v => document.body.dataset.version !== v", arg=str(session["version"]))
            else:
                tap_on(page, session, '#moves button[data-action="move"]')
        else:
            raise AssertionError(f"unexpected phase {now}")
    session = live.table.session()
    assert session["outcome"], "the game did not end"
    winner = session["outcome"]["winner_names"][0]
    page.wait_for_selector("#outcome:not([hidden])")
    assert winner in page.locator("#outcome-title").inner_text()
    assert winner in page.locator("#prompt").inner_text()
    assert shots["placement"]
    shoot(page, output_dir, "winner")
    # New game from the winner screen: the start screen with the same names
    page.locator("#btn-play-again").tap()
    page.wait_for_selector('body[data-view="start"]')
    assert page.locator('#name-fields input[name="player"]').nth(0).input_value() == "Merlina"


def test_the_end_screen_says_why_nobody_can_get_out(served, page_on, output_dir):
    """Seed 1254, random taps: Houdini before the poison pit holds every lightning grid and
    monster crypt card, Merlina beyond it every poison pit card, and only the flame wall can
    still be crossed (DEFAULTS.md, "No way out"). The end screen says so, in words."""
    live = served(seed=3)
    live.table.start("mirakel-mix", ["Houdini", "Merlina"], 1254, {"fill": "random"})
    rng = random.Random(1254)       # the taps of tests/games/test_mirakel_no_way_out.py's table game
    for _ in range(3000):
        session = live.table.session()
        if session["outcome"]:
            break
        live.table.act(rng.choice([a for a in session["legal_actions"] if a["type"] != "undo"]), source="player")
    outcome = session["outcome"]
    assert outcome and outcome["reason"] == "no_way_out" and outcome["winner_names"] == ["Merlina"]
    page = page_on(live.url)
    page.wait_for_selector("#outcome:not([hidden])")
    assert page.locator("#outcome-title").inner_text() == "Merlina wins!"
    reason = page.locator("#outcome .outcome-reason").inner_text()
    assert reason.startswith("Nobody can get out of the cave any more: every poison pit potion is with "
                             "Merlina, who cannot get to the poison pit;")
    assert reason.endswith("Merlina's apprentice is nearest the exit (6 spaces) and wins after 76 turns.")
    assert "Houdini" in page.locator("#outcome .outcome-ranking").inner_text()
    assert "Merlina wins!" in page.locator("#prompt").inner_text()
    shoot(page, output_dir, "no_way_out")


# --- the 4-player cave while someone moves --------------------------------------------------
def play_until(live, wanted, seed: int, limit: int = 4000) -> dict:
    """Random legal actions (far moves preferred) until ``wanted(session)``."""
    rng = random.Random(seed)
    for _ in range(limit):
        session = live.table.session()
        if wanted(session):
            return session
        legal = [a for a in session["legal_actions"] if a["type"] != "undo"]
        moves = [a for a in legal if a["type"] == "move" and a.get("to")]
        live.table.act(rng.choice(moves or legal), source="player")
    raise AssertionError("never reached the wanted state")


def boxes(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(selector, """els => els.map(e => {
        const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; })""")


def overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["w"] - 1 and b["x"] < a["x"] + a["w"] - 1 and \
        a["y"] < b["y"] + b["h"] - 1 and b["y"] < a["y"] + a["h"] - 1


def test_the_four_player_cave_shows_where_the_mover_can_go_and_what_it_costs(served, page_on, output_dir):
    live = served(seed=5)
    live.table.start("mirakel-mix", ["Merlina", "Houdini", "Balduin", "Magianca"], 5, {})

    def rich_move(session):
        move = session["state"].get("movement")
        return bool(move) and len(move["reachable"]) >= 3 and any(o["spend"] for o in move["reachable"])

    session = play_until(live, rich_move, seed=4)
    view = session["state"]
    page = page_on(live.url)
    page.wait_for_selector('body[data-view="table"]')
    page.wait_for_selector("#moves:not([hidden])")
    mover = view["movement"]["mover_name"]
    assert mover in page.locator(".queue-item.now").inner_text()
    assert f"{view['movement']['steps_left']} step" in page.locator(".queue-item.now").inner_text()

    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("([w, h]) => window.innerWidth === w && window.innerHeight === h", arg=[width, height])
        cave_fits(page)
        assert page.locator(".cave-space .space-ring").count() == len(view["cave"]["spaces"]) + 1
        assert_cave_readable(page)
    # every reachable space is lit, with its cost on the map and in words in the list
    for option in view["movement"]["reachable"]:
        space = page.locator(f'.cave-space.legal[data-space="{option["to"]}"]')
        assert space.count() == 1
        for card in option["spend"]:
            assert space.locator(f".cost .icon-{card}").count() == 1
        button = page.locator(f'#moves button[data-to="{option["to"]}"]')
        if option["spend"]:
            assert "gives up" in button.inner_text()
    shoot(page, output_dir, "movement_4p")

    # tapping a lit space moves there (the cheapest way when there is one)
    option = next(o for o in view["movement"]["reachable"] if o["spend"])
    before = page.get_attribute("body", "data-version")
    page.locator(f'.cave-space.legal[data-space="{option["to"]}"] .hit').tap()
    enter_pin(page)
    if page.locator("#choice:not([hidden])").count():
        page.locator("#choice-options button").first.tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    after = live.table.session()["state"]
    seat = str(view["movement"]["mover"])
    assert after["cave"]["apprentices"][seat] == option["to"]
    spent = option["spend"][0]
    assert after["players"][int(seat)]["cards"][spent] == view["players"][int(seat)]["cards"][spent] - 1


# --- warnings, notices, undo -------------------------------------------------------------------
def test_warning_banner_with_fixes_and_device_notices_as_toasts(served, page_on, output_dir):
    live = served(seed=3)
    live.table.start("mirakel-mix", ["Merlina", "Houdini"], 1, {"fill": "random"})
    for space in ("S1", "S2"):
        api(live, {"type": "place_apprentice", "space": space})
    page = page_on(live.url)
    page.wait_for_selector('body[data-view="table"]')
    page.locator("#btn-lock").tap()
    enter_pin(page)

    # a drop while nobody has chosen a bowl: a banner with one-tap fixes, nothing counted
    colour = next(c for c, n in live.table.session()["state"]["cauldron"].items() if n)
    status, _ = live.call("POST", "/api/v1/sim/cauldron/drop", {"colour": colour})
    assert status == 200
    page.wait_for_selector("#warnings:not([hidden])")
    warning = live.table.session()["state"]["warnings"][0]
    assert page.locator("#warnings .warning").count() == 1
    fixes = page.locator("#warnings .warning-fixes button")
    assert fixes.count() == len(warning["fixes"])
    shoot(page, output_dir, "warning")

    # notices from the device layer: big passing toasts in the players' words
    live.table.notice({"kind": "stuck", "message": "The cauldron may be stuck: turn back a little, then forward again."})
    page.wait_for_selector('.toast.notice[data-kind="stuck"]:has-text("turn back a little")')
    live.table.notice({"kind": "too_fast"})                   # no message: the tablet's words
    page.wait_for_selector('.toast.notice[data-kind="too_fast"]:has-text("Turn gently")')
    assert page.locator("#warnings .warning").count() == 1    # notices are not warnings
    page.screenshot(path=str(output_dir / "notices_1024x768.png"))

    # the fix "it was bowl N" puts the drop where it belongs
    fix = next(a for a in warning["fixes"] if a["type"] == "fix_drop" and "bowl" in a)
    before = page.get_attribute("body", "data-version")
    page.locator(f'#warnings button:has-text("It was bowl {fix["bowl"] + 1}")').first.tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    page.wait_for_selector("#warnings", state="hidden")
    state = live.table.session()["state"]
    assert state["phase"] == "place_disk" and state["turn"]["bowl"] == fix["bowl"]

    # undo: the disk goes back off the lab
    tap_and_wait(page, ".space.legal")
    assert page.locator(".space.taken").count() == 1
    assert page.locator("#btn-undo").is_visible()
    tap_and_wait(page, "#btn-undo")
    assert page.locator(".space.taken").count() == 0
    assert live.table.session()["state"]["phase"] == "place_disk"


def test_without_a_colour_sensor_the_tablet_asks_for_each_drop_colour(served, page_on, output_dir):
    live = served(seed=8, colour_sensor=False)
    page = page_on(live.url)
    status, _ = live.call("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["Merlina", "Houdini"],
                                                      "seed": 2})
    assert status == 201
    page.wait_for_selector('body[data-view="table"]')
    page.locator("#btn-lock").tap()
    enter_pin(page)

    # the beam sees a drop, nobody knows its colour: six big buttons at once
    tap_and_wait(page, "#sim-drop")
    assert phase(page) == "name_drop"
    page.wait_for_selector("#picker:not([hidden])")
    assert page.locator("#picker-colours button").count() == 6
    assert all(len(t.strip()) >= 1 for t in page.locator("#picker-colours .letter").all_inner_texts())
    shoot(page, output_dir, "colour_picker")
    tap_and_wait(page, '#picker-colours button[data-colour="green"]')
    page.wait_for_selector("#picker", state="hidden")
    assert live.table.session()["state"]["bowls"][0]["drops"] == ["green"]
    assert page.locator('.bowl[data-bowl="0"] .dot.c-green').count() == 1

    # a colour the cauldron no longer holds cannot be picked (greyed out)
    for _ in range(2):
        tap_and_wait(page, "#sim-drop")
        tap_and_wait(page, '#picker-colours button[data-colour="green"]')
    tap_and_wait(page, "#sim-drop")
    page.wait_for_selector("#picker:not([hidden])")
    assert page.locator('#picker-colours button[data-colour="green"]').is_disabled()
