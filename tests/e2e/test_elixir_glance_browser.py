"""Elixir at a glance, in headless Chromium (tablet 1024x768, a wizard's phone 390x844):
the chip letters have a legend one tap away with the full names, the die shows only while
it counts, "doubtful" is explained where it shows, the formula cards looked at are only
those a wizard looked at, and the experiment's herb and special product are marked as the
gemstones are. Screenshots under test-output/<test>/.
"""
from __future__ import annotations

import pytest

from controller.games.base import load_data
from tests.e2e.test_elixir_browser import open_tablet, session_of, start, wait_version

pytestmark = pytest.mark.browser

PHONE = (390, 844)
NAMES = {i["id"]: i["name"] for i in load_data("controller.games.elixir")["ingredients"]}


def act(live, *actions):
    for action in actions:
        status, body = live.call("POST", "/api/v1/session/actions", {"action": action})
        assert status == 200, (action, body)
    return body


def round_of_shopping(live):
    """Ann buys a ruby, a mandrake and a bat wing (three turns) while Ben waits at home."""
    for place, ingredient in [("jeweller", "ruby"), ("herbalist", "mandrake"), ("special_supplies", "bat_wing")]:
        act(live, {"type": "move", "seat": 0, "to": place}, {"type": "buy", "seat": 0, "ingredient": ingredient},
            {"type": "end_turn", "seat": 0}, {"type": "move", "seat": 1, "to": "lab"}, {"type": "end_turn", "seat": 1})


def test_elixir_reads_at_a_glance(tablet, page_on, live_table, output_dir):
    live = live_table
    start(live, seed=4)
    page = open_tablet(tablet, live)
    assert page.locator("#ex-die small").inner_text() == "no roll yet"
    act(live, {"type": "roll", "seat": 0, "value": 6})
    session = act(live, {"type": "roll", "seat": 1, "value": 1})
    wait_version(page, session["version"])
    # the opening's die is gone once Ann's first turn starts: it no longer counts
    assert page.locator("#ex-die .ex-die-face").inner_text() == "?"
    assert page.locator("#ex-die small").inner_text() == "no roll this turn"
    # no formula card has been looked at yet, so none is listed
    assert page.locator("#ex-formulas .ex-formula").count() == 0
    assert "none yet" in page.locator("#ex-formulas").inner_text()
    # the legend: one tap names every chip in full
    legend = page.locator("#ex-legend")
    assert not page.locator("#ex-legend .ex-legend-list").is_visible()
    legend.locator("summary").tap()
    items = page.locator("#ex-legend .ex-legend-list li")
    assert items.count() == len(NAMES)
    for ingredient, name in NAMES.items():
        row = page.locator(f"#ex-legend li[data-ingredient='{ingredient}']")
        assert row.locator("b").inner_text().lower() == name.lower()
    assert page.locator("#ex-legend summary").bounding_box()["height"] >= 48
    page.screenshot(path=str(output_dir / "1-legend.png"))
    legend.locator("summary").tap()

    # Ann sets out an experiment: the herb and special product are marked as the gemstone is
    round_of_shopping(live)
    session = act(live, {"type": "move", "seat": 0, "to": "lab"}, {"type": "deposit", "seat": 0})
    page.reload()
    page.wait_for_selector("#ex-brew")
    for field, ingredient in [("gem", "ruby"), ("herb", "mandrake"), ("special", "bat_wing")]:
        page.locator(f"#ex-brew button[data-brew='{field}'][data-ingredient='{ingredient}']").tap()
    herb = page.locator("#ex-brew button[data-brew='herb'][data-ingredient='mandrake']")
    special = page.locator("#ex-brew button[data-brew='special'][data-ingredient='bat_wing']")
    for picked in (herb, special):
        assert picked.get_attribute("aria-pressed") == "true" and picked.locator(".ex-picked").inner_text() == "✓1"
    assert "1" in page.locator("#ex-brew button[data-brew='gem'][data-ingredient='ruby']").inner_text()
    page.screenshot(path=str(output_dir / "2-picks-marked.png"))

    # ruby (3) + a rolled 2 = 5: doubtful, and the tablet says what that means
    session = act(live, {"type": "brew", "seat": 0, "gems": {"ruby": 1}, "herb": "mandrake", "special": "bat_wing"},
                  {"type": "roll", "seat": 0, "value": 2})
    wait_version(page, session["version"])
    assert page.locator("#ex-die .ex-die-result").inner_text() == "? doubtful"
    assert "rolled again next round" in page.locator("#ex-die-why").inner_text()
    ann = page.locator(".ex-wizard").first
    assert "doubtful: rolled again next round" in ann.locator(".ex-labtable").inner_text()
    assert "(doubtful)" not in ann.inner_text()
    page.screenshot(path=str(output_dir / "3-doubtful.png"))
    # Ben's turn: Ann's die no longer counts
    session = act(live, {"type": "end_turn", "seat": 0})
    wait_version(page, session["version"])
    assert page.locator("#ex-die small").inner_text() == "no roll this turn"

    # next round Ann rolls again: 3 + 4 = 7, she looks at that one formula card, and only it is listed
    session = act(live, {"type": "move", "seat": 1, "to": "lab"}, {"type": "end_turn", "seat": 1},
                  {"type": "move", "seat": 0, "to": "lab"}, {"type": "brew", "seat": 0, "gems": {}},
                  {"type": "roll", "seat": 0, "value": 4})
    wait_version(page, session["version"])
    assert page.locator("#ex-die .ex-die-result").inner_text() == "✓ success"
    listed = page.locator("#ex-formulas .ex-formula")
    assert listed.count() == 1 and listed.get_attribute("data-pair") == "mandrake+bat_wing"
    assert listed.locator(".ex-seat").all_inner_texts() == ["A"]                # looked at by Ann
    looked = [f["pair"] for f in session_of(live)["state"]["formulas"] if f["seen_by"]]
    assert looked == ["mandrake+bat_wing"]
    page.screenshot(path=str(output_dir / "4-looked-at.png"))

    # Ann's phone: the same legend under her formula table
    status, seats = live.call("GET", "/api/v1/seats")
    assert status == 200, seats
    phone = page_on(seats["seats"][0]["url"], PHONE, ready="body[data-version]")
    phone.wait_for_selector("#exp-legend")
    phone.locator("#exp-legend summary").tap()
    assert phone.locator("#exp-legend .ex-legend-list li").count() == len(NAMES)
    assert phone.locator("#exp-legend li[data-ingredient='bat_wing'] b").inner_text().lower() == NAMES["bat_wing"].lower()
    scroll = phone.evaluate("() => document.documentElement.scrollWidth")
    assert scroll <= PHONE[0], f"the phone scrolls sideways: {scroll}"
    phone.locator("#exp-legend").scroll_into_view_if_needed()
    phone.screenshot(path=str(output_dir / "5-phone-legend.png"))
