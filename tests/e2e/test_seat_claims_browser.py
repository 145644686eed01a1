"""One phone per seat, in Chromium (issue 22): the tablet's Phone links show a seat's QR
code and short code until a phone opens it, then "On Ben's phone" and Move; a second
phone with the same link is refused; moving the seat is told on the tablet and on the old
phone; a phone without a camera types the code at /join (390 px wide, the address wraps
only between its parts)."""
from __future__ import annotations

import pytest

from tests.e2e.test_mix_it_browser import assert_touch_targets
from tests.e2e.test_tablet_browser import enter_pin

pytestmark = pytest.mark.browser

PHONE = (390, 844)


def test_phone_links_claim_move_and_the_short_code(tablet, page_on, live_table, output_dir):
    live = live_table
    assert live.call("POST", "/api/v1/session", {"game": "elixir", "players": ["Ann", "Ben"], "seed": 4})[0] == 201
    tablet.goto(live.url)
    tablet.wait_for_selector("#ex-phones")
    tablet.locator("#ex-phones").tap()
    enter_pin(tablet)
    tablet.wait_for_selector("#seat-links img")
    codes = tablet.locator("#seat-links .seat-code strong").all_inner_texts()
    assert len(codes) == 2 and all(len(c) == 6 for c in codes)
    tablet.screenshot(path=str(output_dir / "1-phone-links.png"))
    _, seats = live.call("GET", "/api/v1/seats")
    ben = page_on(seats["seats"][1]["url"], size=PHONE, ready="#exp")
    # the modal sees Ben's phone take his seat: no code left, "On Ben's phone"
    tablet.wait_for_selector("#seat-links figure[data-seat='1'][data-claimed='yes']")
    assert "On Ben's phone" in tablet.locator("#seat-links figure[data-seat='1']").inner_text()
    assert tablet.locator("#seat-links figure[data-seat='1'] img").count() == 0
    assert_touch_targets(tablet)
    tablet.screenshot(path=str(output_dir / "2-ben-on-his-phone.png"))
    # another phone with Ben's link opens nothing
    thief = page_on(seats["seats"][1]["url"], size=PHONE, ready=".error-box h1")
    assert "Ben's seat is open on another phone" in thief.locator(".error-box h1").inner_text()
    assert "exp-brew" not in thief.content()
    thief.screenshot(path=str(output_dir / "3-second-phone-refused.png"))
    # the tablet moves Ben's seat (two taps): the table is told, Ben's old phone too
    move = tablet.locator("#seat-links figure[data-seat='1'] .seat-move")
    move.tap()
    assert "Tap again" in move.inner_text()
    move.tap()
    tablet.wait_for_selector("#seat-links figure[data-seat='1'][data-claimed='no'] img")
    tablet.wait_for_selector(".toast:has-text(\"Ben's seat moved to a new phone\")")
    ben.wait_for_selector(".seat-revoked")
    assert "moved to another phone" in ben.locator(".seat-revoked").inner_text()
    ben.screenshot(path=str(output_dir / "4-old-phone-told.png"))
    new_code = tablet.locator("#seat-links figure[data-seat='1'] .seat-code strong").inner_text()
    assert new_code != codes[1]
    tablet.screenshot(path=str(output_dir / "5-moved.png"))
    # a phone without a camera: /join, the code typed by hand
    join = page_on(live.url + "/join", size=PHONE, ready="#code")
    box = join.locator(".url .address").bounding_box()
    assert box["x"] + box["width"] <= PHONE[0]                          # nothing cut at the edge
    for part in join.locator(".url .address span").all():               # each part on one line
        assert part.evaluate("e => e.getClientRects().length") == 1
    join.locator("#code").fill(new_code.lower())
    join.locator(".code-form button").tap()
    join.wait_for_selector("#exp")
    assert "Ben" in join.locator("body").inner_text()
    assert_touch_targets(join)
    join.screenshot(path=str(output_dir / "6-joined-with-the-code.png"), full_page=True)
    tablet.wait_for_selector("#seat-links figure[data-seat='1'][data-claimed='yes']")


def test_join_at_390px_breaks_the_address_only_between_its_parts(page_on, live_table, output_dir):
    page = page_on(live_table.url + "/join", size=(390, 844), ready="#code")
    parts = page.locator(".url .address span").all()
    assert [p.inner_text() for p in parts][:2] == ["http://", "127.0.0.1"]
    assert all(p.evaluate("e => e.getClientRects().length") == 1 for p in parts)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"/join scrolls sideways: {width} px"
    assert_touch_targets(page)
    page.screenshot(path=str(output_dir / "join-390.png"), full_page=True)
