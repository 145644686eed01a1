"""A board taken down leaves nothing running: the shell calls the game module's ``unmount()``.

Zauberwald's board follows the forest floor (the floor device's module polls
``/api/v1/floor``) and counts three seconds before a turn. When another game starts from
another tablet mid-countdown, the tablet switches boards: the floor's polling stops and
the countdown is gone, so it never sends the old game's turn. The page's timers run on
Playwright's clock, so "no more polls" is seen by running ten seconds of page time, never
by waiting.
"""
from __future__ import annotations

import pytest

from tests.e2e.test_tablet_browser import enter_pin, wait_for_phase
from tests.e2e.test_zauberwald_browser import forest, start  # noqa: F401  (forest: its fixture)

pytestmark = pytest.mark.browser


def floor_polls_in(page, polls: list[str], rounds: int = 5) -> int:
    """How many floor polls ``rounds`` times 2.1 s of page time make (an idle floor is
    polled every 2 s; each poll asks for the next when its answer is in). The clock runs
    each round's timers at once; a request of our own, answered, shows that every poll sent
    before it has been seen."""
    before = len(polls)
    for _ in range(rounds):
        page.clock.run_for(2_100)
        page.evaluate("() => fetch('/healthz').then((r) => r.json())")
    return len([p for p in polls[before:] if p.endswith("/api/v1/floor")])


def test_switching_games_stops_the_floor_polls_and_the_countdown(browser, forest, output_dir):
    live, hub = forest
    start(live)
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    polls: list[str] = []
    page.on("request", lambda request: polls.append(request.url))
    page.set_default_timeout(30_000)
    page.clock.install()              # the page's timers on a clock the test runs
    page.goto(live.url)
    page.wait_for_selector("#zw")
    assert wait_for_phase(page, "choose") == "choose"
    # the board follows the floor: ten seconds bring several polls (one each 2 s when idle)
    assert floor_polls_in(page, polls) >= 2

    page.locator('button.zw-tile[data-tile="3"]').tap()
    enter_pin(page)
    wait_for_phase(page, "turn")
    page.locator('button.zw-direction[data-direction="clockwise"]').tap()
    page.locator("#zw-turn").tap()
    page.wait_for_selector("#zw-countdown")

    # another tablet starts Mirakel Mix mid-countdown: this one switches boards
    status, started = live.call("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["Ann", "Ben"]})
    assert status == 201, started
    page.wait_for_selector("#game-view[data-game=mirakel-mix] #table-view")
    page.wait_for_selector("#zw-countdown", state="detached")
    assert floor_polls_in(page, polls) == 0
    page.screenshot(path=str(output_dir / "mirakel-after-zauberwald.png"))
    # the countdown never fired: the floor stood still, the new game is untouched
    assert hub.forest_floor.position == 0 and hub.forest_floor.last_move is None
    now = live.table.session()
    assert (now["id"], now["version"]) == (started["id"], started["version"])

    # back to the forest: the board follows the floor again
    start(live)
    page.wait_for_selector("#game-view[data-game=zauberwald] #zw")
    assert floor_polls_in(page, polls) >= 2
    context.close()
    assert not errors, errors
