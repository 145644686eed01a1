"""A jammed forest floor on the Zauberwald tablet, in headless Chromium: the master reads
that the floor jammed and its position is lost, sets the whole turn by hand counted from
where the floor stood before it, and homes it afterwards. Screenshots: test-output/<test>/."""
from __future__ import annotations

import pytest

from tests.e2e.test_tablet_browser import assert_touch_targets, enter_pin, wait_for_phase
from tests.e2e.test_zauberwald_browser import forest, page_at, start  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


def test_a_jam_says_the_position_is_lost_and_counts_the_whole_turn(forest, page_at, output_dir):  # noqa: F811
    live, hub = forest
    floor = hub.forest_floor
    floor.fail_next("jam", after_ants=1.5)
    start(live)
    for action in ({"type": "choose_tile", "seat": 0, "tile": 3},
                   {"type": "turn", "seat": 0, "direction": "counter_clockwise"}):
        status, session = live.call("POST", "/api/v1/session/actions", {"action": action})
        assert status == 200, session
    assert floor.wait_idle(30) and floor.state == "fault"
    page = page_at(live.url)
    assert wait_for_phase(page, "turning") == "turning"
    page.wait_for_selector('#zw-floor[data-state="fault"]')
    page.wait_for_selector("#zw-by-hand")
    stage = page.locator("#zw-stage").inner_text()
    assert "jammed" in stage and "lost" in stage
    # not "1½ more": the motor's count is no measure of a jammed floor
    by_hand = page.locator("#zw-by-hand").inner_text()
    assert "3 ants counter-clockwise from where it stood before this turn" in by_hand
    assert "more" not in by_hand
    assert live.table.session()["state"]["phase"] == "turning"     # nothing searched or scored
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "1-jam.png"))
    page.locator("#btn-lock").tap()
    enter_pin(page)
    page.locator("#zw-done").tap()
    assert wait_for_phase(page, "search") == "search"
    page.locator("#zw-home").tap()                                  # and now home it
    page.wait_for_selector('#zw-floor[data-state="idle"]')
    assert floor.position == 0 and page.locator("#zw-home").count() == 0
    page.screenshot(path=str(output_dir / "2-homed.png"))
