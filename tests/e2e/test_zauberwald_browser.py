"""Im großen Zauberwald on the tablet, in headless Chromium, with the simulated forest floor.

A master's turn by taps drives the floor (after the three-second countdown); the floor
reports its new position and only then does the search start. Then baskets are checked,
one with a penalty the tablet explains. Also: the big STOP, a table without a motor,
the end screen, the wider tablet, and Undo (never across the floor's turn). Screenshots go to test-output/<test>/.
"""
from __future__ import annotations

import random

import pytest

from tests.e2e.conftest import LiveTable
from tests.e2e.test_tablet_browser import assert_touch_targets, enter_pin, wait_for_phase

pytestmark = pytest.mark.browser

# Every value the page's body took for data-phase, in order (a MutationObserver).
WATCH_PHASES_JS = """
() => {
  window.__phases = [document.body.dataset.phase];
  new MutationObserver(() => {
    const p = document.body.dataset.phase;
    if (p !== window.__phases[window.__phases.length - 1]) window.__phases.push(p);
  }).observe(document.body, {attributes: true, attributeFilter: ['data-phase']});
}
"""


def make_table(tmp_path, *, floor: bool, ants_per_second: float = 8.0):
    """A live table on the daemon's own DeviceHub.build (simulated), floor speed from config."""
    from controller.config import Config
    from controller.devices.hub import DeviceHub
    from controller.store import Store
    from controller.table import Table

    config = Config.defaults()
    config["simulation"]["floor_ants_per_second"] = ants_per_second
    config["forest_floor"]["backend"] = "auto" if floor else "none"
    store = Store(tmp_path / "table.sqlite3")
    table = Table(store)
    hub = DeviceHub.build(config, sim=True, table=table, say=lambda *_: None)  # joins the table
    live = LiveTable.start(table, hub)
    return live, hub, store


@pytest.fixture
def forest(tmp_path):
    live, hub, store = make_table(tmp_path, floor=True)
    yield live, hub
    live.stop()
    hub.close()
    store.close()


@pytest.fixture
def bare_forest(tmp_path):
    live, hub, store = make_table(tmp_path, floor=False)
    yield live, hub
    live.stop()
    hub.close()
    store.close()


@pytest.fixture
def page_at(page_on):
    """page_at(url, size) → a fresh page showing the Zauberwald table."""
    return lambda url, size=(1024, 768): page_on(url, size, ready="#zw")


def start(live: LiveTable, players=("Julie", "Linus"), seed=3) -> dict:
    status, session = live.call("POST", "/api/v1/session",
                                {"game": "zauberwald", "players": list(players), "seed": seed})
    assert status == 201, session
    return session


def no_overflow(page, size) -> None:
    scroll = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert scroll[0] <= size[0] and scroll[1] <= size[1], f"the page hangs off the screen: {scroll}"


def linus_penalty_basket(player: dict) -> tuple[dict[str, int], str]:
    """Two different correct ingredients for his current card, plus one wrong one."""
    cards = player["cards"]
    k = player["current_card"]
    missing = cards[k]["missing"]
    later: dict[str, int] = {}
    for card in cards[k + 1:]:
        if not card["finished"]:
            for c, n in card["recipe"].items():
                later[c] = later.get(c, 0) + n
    a, b = sorted(missing)[:2]
    wrong = min((c for c in ("red", "yellow", "green", "orange", "black", "blue", "white", "purple")
                 if not missing.get(c)), key=lambda c: later.get(c, 0))
    # what a later card needs goes back without penalty; one more is wrong
    return {a: 1, b: 1, wrong: later.get(wrong, 0) + 1}, wrong


def test_a_master_turn_drives_the_floor_then_the_baskets_are_checked(forest, page_at, output_dir):
    live, hub = forest
    floor = hub.forest_floor
    session = start(live)
    page = page_at(live.url)
    page.evaluate(WATCH_PHASES_JS)
    assert wait_for_phase(page, "choose") == "choose"
    assert "Julie" in page.locator("#prompt").inner_text()
    assert page.locator("#zw-floor").get_attribute("data-state") in ("idle", "unknown")
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "1-choose.png"))

    # tile 3, clockwise: the first change asks for the PIN
    page.locator('button.zw-tile[data-tile="3"]').tap()
    enter_pin(page)
    wait_for_phase(page, "turn")
    page.locator('button.zw-direction[data-direction="clockwise"]').tap()
    assert page.locator("#zw-turn").inner_text() == "Turn 3 ants clockwise"
    page.screenshot(path=str(output_dir / "2-turn.png"))
    page.locator("#zw-turn").tap()

    # the countdown: visible, and nothing moves until it ends
    page.wait_for_selector("#zw-countdown")
    assert page.locator("#zw-count-number").inner_text() in ("3", "2", "1")
    assert live.table.session()["state"]["phase"] == "turn"
    assert floor.state == "idle" and floor.position == 0
    page.screenshot(path=str(output_dir / "3-countdown.png"))

    # then the floor turns by itself and the search starts when it reports back
    assert wait_for_phase(page, "search") == "search"
    phases = page.evaluate("() => window.__phases")
    assert phases[-3:] == ["turn", "turning", "search"] or phases[-2:] == ["turn", "search"]
    session = live.table.session()
    assert session["state"]["floor"]["position"] == 3
    assert floor.position == 3 and floor.status()["last_move"] == {"ants": 3, "direction": "clockwise",
                                                                    "result": "done"}
    log = live.table.store.actions(session["id"])
    assert log[-1]["action"] == {"type": "floor_turned"} and log[-1]["source"] == "sensor"
    page.wait_for_selector('#zw-floor[data-position="3.0"], #zw-floor[data-position="3"]')
    page.wait_for_function("() => document.querySelector('#zw-timer').textContent !== '0:00'")
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "4-search.png"))

    # "end your search!" with the tile's three, then Julie's basket: three correct ones
    page.locator('button.zw-end[data-count="3"]').tap()
    wait_for_phase(page, "check")
    julie = session["state"]["players"][0]
    need = julie["cards"][julie["current_card"]]["missing"]
    picks = [c for c, n in need.items() for _ in range(n)][:3]
    for colour in picks:
        page.locator(f'button.zw-add[data-colour="{colour}"]').tap()
    assert page.locator("#zw-basket-sum").inner_text().startswith("In the basket: 3")
    assert page.locator("button.zw-add:not([disabled])").count() == 0       # the master's limit: 3
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "5-basket.png"))
    before = page.get_attribute("body", "data-version")
    page.locator("#zw-check").tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)

    # Linus: two right, one wrong: he chooses which correct one goes back
    linus = live.table.session()["state"]["players"][1]
    basket, wrong = linus_penalty_basket(linus)
    for colour, n in basket.items():
        for _ in range(n):
            page.locator(f'button.zw-add[data-colour="{colour}"]').tap()
    page.locator("#zw-check").tap()
    assert wait_for_phase(page, "penalty") == "penalty"
    assert "1 wrong" in page.locator("#zw-stage").inner_text()
    assert page.locator("button.zw-penalty").count() == 2
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "6-penalty.png"))
    page.locator("button.zw-penalty").first.tap()

    # the next round, with the last round's baskets explained
    assert wait_for_phase(page, "choose") == "choose"
    results = page.locator("#zw-results").inner_text()
    assert f"1 {wrong} wrong" in results
    assert "Penalty for 1 wrong" in results
    assert page.locator('#zw-results .zw-result[data-seat="1"] li.bad').count() >= 2
    last = live.table.session()["state"]["last_round"]["results"]
    assert [r["seat"] for r in last] == [0, 1] and sum(last[1]["penalty"].values()) == 1
    assert "Linus" in page.locator("#prompt").inner_text()
    page.screenshot(path=str(output_dir / "7-results.png"))


def test_the_big_stop_halts_the_floor_and_the_master_finishes_by_hand(forest, page_at, output_dir):
    live, hub = forest
    floor = hub.forest_floor
    floor.speed = 1.0                                    # slow enough to reach the button
    start(live)
    live.call("POST", "/api/v1/session/actions", {"action": {"type": "choose_tile", "seat": 0, "tile": 4}})
    page = page_at(live.url)
    wait_for_phase(page, "turn")
    page.locator("#btn-lock").tap()
    enter_pin(page)
    page.locator('button.zw-direction[data-direction="counter_clockwise"]').tap()
    page.locator("#zw-turn").tap()
    page.wait_for_selector("#zw-countdown")
    page.locator("#zw-cancel").tap()                     # changed his mind: nothing moves
    page.wait_for_selector("#zw-countdown", state="detached")
    assert live.table.session()["state"]["phase"] == "turn" and floor.state == "idle"

    page.locator("#zw-turn").tap()
    page.wait_for_selector("#zw-stop")                   # shown while the floor moves
    assert floor.state == "moving"
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "1-moving.png"))
    page.locator("#zw-stop").tap()
    page.wait_for_selector('#zw-floor[data-state="idle"]')
    page.wait_for_selector("#zw-by-hand")
    assert floor.state == "idle" and floor.status()["last_move"]["result"] == "stopped"
    assert page.locator("#zw-stop").count() == 0
    text = page.locator("#zw-by-hand").inner_text()
    assert "more ant" in text and "counter-clockwise" in text
    assert "stopped after" in page.locator("#zw-stage").inner_text()
    assert live.table.session()["state"]["phase"] == "turning"
    page.screenshot(path=str(output_dir / "2-by-hand.png"))
    page.locator("#zw-done").tap()
    assert wait_for_phase(page, "search") == "search"
    assert live.table.session()["state"]["floor"]["position"] == 12      # 4 ants counter-clockwise
    # a stopped floor offers homing before the next turn (it may have slipped)
    assert floor.state == "idle"


def test_without_a_motor_the_tablet_says_how_to_turn_by_hand(bare_forest, page_at, output_dir):
    live, hub = bare_forest
    assert hub.forest_floor is None
    start(live)
    live.call("POST", "/api/v1/session/actions", {"action": {"type": "choose_tile", "seat": 0, "tile": 2}})
    page = page_at(live.url)
    wait_for_phase(page, "turn")
    page.wait_for_selector('#zw-floor[data-state="none"]')
    page.locator("#btn-lock").tap()
    enter_pin(page)
    page.locator('button.zw-direction[data-direction="counter_clockwise"]').tap()
    assert page.locator("#zw-turn").inner_text() == "Turn by hand: 2 ants counter-clockwise"
    page.locator("#zw-turn").tap()
    wait_for_phase(page, "turning")
    assert page.locator("#zw-countdown").count() == 0
    assert "2 ants counter-clockwise" in page.locator("#zw-by-hand").inner_text()
    assert "no motor" in page.locator("#zw-stage").inner_text().lower()
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "by-hand.png"))
    page.locator("#zw-done").tap()
    assert wait_for_phase(page, "search") == "search"
    assert live.table.session()["state"]["floor"]["position"] == 14


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_the_end_screen_names_the_winners_and_fits(bare_forest, page_at, output_dir, size):
    live, _ = bare_forest
    session = start(live, players=("Julie", "Linus", "Mia", "Noah"), seed=9)
    # a whole game by script (empty baskets, no "stop!"), until the tiles run out
    prefer = ["turn", "floor_turned", "end_search", "basket", "return_ingredients", "choose_tile"]
    while session["outcome"] is None:
        action = min((a for a in session["legal_actions"] if a["type"] in prefer),
                     key=lambda a: prefer.index(a["type"]))
        status, session = live.call("POST", "/api/v1/session/actions", {"action": action})
        assert status == 200, session
    page = page_at(live.url, size)
    assert wait_for_phase(page, "over") == "over"
    winners = [session["players"][s] for s in session["outcome"]["winners"]]
    assert all(name in page.locator("#zw-winner").inner_text() for name in winners)
    assert "magic tile" in page.locator("#zw-stage").inner_text()
    no_overflow(page, size)
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "over.png"))


# The chart on the end screen, seen as a player scrolls the end screen to it: the chart and
# its legend whole in what the screen and every scrolling box around them show, the legend
# right under the chart, its names whole, and no box inside the end screen with a scroll of
# its own (the panel's one scroll is enough). A list of what is wrong, in words.
CHART_SEEN_JS = """
() => {
  const out = [];
  const fig = document.querySelector('#score-final .chart-figure');
  const svg = fig.querySelector('svg.chart'), legend = fig.querySelector('.chart-legend');
  fig.scrollIntoView({ block: 'start' });
  const fmt = (r) => `${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)}`;
  let shown = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
  const scrollers = [];
  for (let a = fig.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    if (/(auto|scroll)/.test(s.overflowY) && a.scrollHeight > a.clientHeight + 1) scrollers.push(a.id || a.className);
    const q = a.getBoundingClientRect();
    shown = { left: Math.max(shown.left, q.left + a.clientLeft), top: Math.max(shown.top, q.top + a.clientTop),
              right: Math.min(shown.right, q.left + a.clientLeft + a.clientWidth),
              bottom: Math.min(shown.bottom, q.top + a.clientTop + a.clientHeight) };
  }
  for (const [what, e] of [['the chart', svg], ['its legend', legend]]) {
    const r = e.getBoundingClientRect();
    if (r.left < shown.left - 1 || r.top < shown.top - 1 || r.right > shown.right + 1 || r.bottom > shown.bottom + 1)
      out.push(`${what} is not whole on the screen: at ${fmt(r)}, the screen shows ${fmt(shown)}`);
  }
  const gap = legend.getBoundingClientRect().top - svg.getBoundingClientRect().bottom;
  if (gap < -1 || gap > 24) out.push(`the legend is ${Math.round(gap)} px away from its chart`);
  const box = legend.getBoundingClientRect();
  for (const li of legend.querySelectorAll('li')) {
    const r = li.getBoundingClientRect();
    if (r.right > box.right + 1 || li.scrollWidth > li.clientWidth + 1) out.push(`the legend's ${li.textContent} is cut`);
    if (parseFloat(getComputedStyle(li).fontSize) < 16) out.push(`the legend's ${li.textContent} is under 16 px`);
  }
  if (scrollers.length > 1) out.push(`the chart scrolls in ${scrollers.length} boxes: ${scrollers.join(', ')}`);
  const end = document.querySelector('#score-final').closest('#zw-stage');
  for (const e of end.querySelectorAll('*')) {
    const s = getComputedStyle(e);
    if (/(auto|scroll)/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1)
      out.push(`a second scroll on the end screen: ${e.id || e.className} shows ${e.clientHeight} of ${e.scrollHeight} px`);
  }
  return out;
}
"""


def test_the_end_screens_chart_sits_with_its_legend_at_every_size(live_table, page_on, output_dir):
    from tests.e2e.test_scores_browser import open_tab
    from tests.e2e.test_size_matrix_browser import over, wald_play
    table = live_table.table
    names = ["Maximilian", "Annemarie", "Linus", "Josephine"]
    table.start("zauberwald", names, seed=9)
    wald_play(over)(table, random.Random(1))
    finished = table.session()
    wrong = []
    for width, height in [(1024, 768), (1280, 800), (768, 1024), (800, 1280), (390, 844)]:
        page = page_on(live_table.url, (width, height), ready="#zw[data-phase=over]")
        final = page.locator("#score-final")
        final.wait_for()
        if not final.evaluate("(e) => e.open"):          # folded where the ranking needs the room
            final.locator("summary").tap()
        final.locator(".chart-figure svg.chart").wait_for()
        assert [t.strip() for t in final.locator(".chart-legend li").all_inner_texts()] == names
        found = page.evaluate(CHART_SEEN_JS)
        page.screenshot(path=str(output_dir / f"end-chart-{width}x{height}.png"))
        wrong += [f"{width}x{height}: {f}" for f in found]
        page.context.close()           # one page at a time: the table's live screens per device are few
    # the same end screen replayed: the replay's bar takes the bottom of the screen
    page = page_on(live_table.url, (1024, 768), ready="#zw[data-phase=over]")
    open_tab(page, "history")
    page.locator(f'#history-table tr[data-game="{finished["id"]}"] .row-replay').tap()
    page.wait_for_function("() => document.body.dataset.replayDrawn === '0'")
    page.locator("#replay-last").tap()
    page.wait_for_function("(n) => document.body.dataset.replayDrawn === String(n)", arg=finished["version"])
    page.locator("#score-final .chart-figure svg.chart").wait_for()
    found = page.evaluate(CHART_SEEN_JS)
    page.screenshot(path=str(output_dir / "end-chart-replay-1024x768.png"))
    wrong += [f"replay at 1024x768: {f}" for f in found]
    assert not wrong, "\n".join(wrong)


def test_four_players_in_the_search_fit_a_small_tablet(forest, page_at, output_dir):
    live, _ = forest
    session = start(live, players=("Julie", "Linus", "Mia", "Noah"), seed=5)
    for action in ({"type": "choose_tile", "seat": 0, "tile": 4}, {"type": "turn", "seat": 0, "direction": "clockwise"}):
        status, session = live.call("POST", "/api/v1/session/actions", {"action": action})
        assert status == 200, session
    page = page_at(live.url)
    assert wait_for_phase(page, "search") == "search"
    no_overflow(page, (1024, 768))
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "search-4.png"))


def test_a_stall_is_finished_by_hand_and_the_home_button_clears_the_fault(forest, page_at, output_dir):
    live, hub = forest
    floor = hub.forest_floor
    floor.fail_next("stall", after_ants=0.5)
    start(live)
    for action in ({"type": "choose_tile", "seat": 0, "tile": 2}, {"type": "turn", "seat": 0, "direction": "clockwise"}):
        status, session = live.call("POST", "/api/v1/session/actions", {"action": action})
        assert status == 200, session
    assert floor.wait_idle(30) and floor.state == "fault"
    page = page_at(live.url)
    assert wait_for_phase(page, "turning") == "turning"
    # the first floor poll may come after the first drawing: wait until the tablet knows
    page.wait_for_selector('#zw-floor[data-state="fault"]')
    page.wait_for_selector("#zw-by-hand")
    assert "stall" in page.locator("#zw-stage").inner_text()
    assert "1½ more ants clockwise" in page.locator("#zw-by-hand").inner_text()
    assert page.locator("#zw-home").count() == 0          # first finish this turn by hand
    assert page.locator('#zw-floor[data-state="fault"]').count() == 1
    page.screenshot(path=str(output_dir / "1-stall.png"))
    page.locator("#btn-lock").tap()
    enter_pin(page)
    page.locator("#zw-done").tap()
    assert wait_for_phase(page, "search") == "search"

    page.locator("#zw-home").tap()                         # the floor may have slipped: home it
    page.wait_for_selector('#zw-floor[data-state="idle"]')
    assert floor.position == 0 and floor.status()["last_move"]["result"] == "done"
    assert page.locator("#zw-home").count() == 0
    assert live.table.session()["state"]["phase"] == "search"     # homing is not a turn
    page.screenshot(path=str(output_dir / "2-homed.png"))


def test_undo_takes_back_a_tile_and_a_basket_but_never_the_floors_turn(bare_forest, page_at, output_dir):
    live, _ = bare_forest
    start(live)
    page = page_at(live.url)
    assert wait_for_phase(page, "choose") == "choose"
    assert page.locator("#btn-undo").is_hidden()                 # dealt cards: nothing to take back
    page.locator('button.zw-tile[data-tile="4"]').tap()
    enter_pin(page)
    wait_for_phase(page, "turn")
    undo = page.locator("#btn-undo")
    assert "Julie's magic tile 4" in undo.inner_text()
    box = undo.bounding_box()
    assert box["height"] >= 48 and box["width"] >= 48
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "1-undo-tile.png"))
    undo.tap()
    assert wait_for_phase(page, "choose") == "choose"
    assert live.table.session()["state"]["players"][0]["tiles"] == [2, 2, 3, 3, 4]
    page.wait_for_selector("#btn-undo", state="hidden")

    # the floor's turn is a fact: no undo from here until the next entry
    page.locator('button.zw-tile[data-tile="2"]').tap()
    wait_for_phase(page, "turn")
    page.locator('button.zw-direction[data-direction="clockwise"]').tap()
    page.locator("#zw-turn").tap()
    wait_for_phase(page, "turning")
    assert page.locator("#btn-undo").is_hidden()
    page.locator("#zw-done").tap()
    wait_for_phase(page, "search")
    assert page.locator("#btn-undo").is_hidden()
    page.locator('button.zw-end[data-count="2"]').tap()
    wait_for_phase(page, "check")
    page.wait_for_selector("#btn-undo", state="visible")         # "end your search!" is an entry

    # a basket taken back comes back into the grid, to put one tap right
    for colour in ("red", "blue"):
        page.locator(f'button.zw-add[data-colour="{colour}"]').tap()
    before = page.get_attribute("body", "data-version")
    page.locator("#zw-check").tap()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    page.wait_for_selector("#btn-undo:has-text(\"Julie's basket\")", state="visible")
    assert live.table.session()["state"]["round"]["to_check"] == [1]     # (seed 3: the blue went back free)
    page.screenshot(path=str(output_dir / "2-undo-basket.png"))
    page.locator("#btn-undo").tap()
    page.wait_for_function("() => document.querySelector('#zw-basket-sum')?.textContent.startsWith('In the basket: 2')")
    state = live.table.session()["state"]
    assert state["phase"] == "check" and state["round"]["to_check"][0] == 0 and state["round"]["results"] == []
    page.locator('button.zw-minus[data-colour="blue"]').tap()
    page.locator("#zw-check").tap()
    page.wait_for_function("() => { const b = document.querySelector('#btn-undo'); "
                           "return !b.hidden && b.textContent.includes(\"Julie's basket\"); }")
    assert live.table.session()["state"]["round"]["results"][0]["basket"] == {"red": 1}
    log = [e["action"]["type"] for e in live.table.store.actions(live.table.session()["id"])]
    assert log[-3:] == ["basket", "undo", "basket"]
