"""The tablet's ☰ More panel beyond its tabs, in headless Chromium: the phone links of every
game with secrets, /join (more phones and tablets) and /settings (the owner's page), and
the notice when the Pico's firmware is older than this potionpi's. Screenshots under
test-output/<test>/."""
from __future__ import annotations

import pytest

from controller.daemon import FirmwareWatch
from tests.e2e.layout_checks import axe_problems, problems
from tests.e2e.test_tablet_browser import enter_pin

pytestmark = pytest.mark.browser

PLAYERS = {"mix-it": ["Ann", "Ben"], "elixir": ["Ann", "Ben"], "zaubercocktail": ["Ann", "Ben", "Cy", "Di"],
           "mirakel-mix": ["Ann", "Ben"], "zauberwald": ["Ann", "Ben", "Cy"]}
SECRETS = {"mix-it", "elixir", "zaubercocktail"}


def firmware(live, pico: str | None) -> FirmwareWatch:
    """The daemon's own watch of the Pico, as if the floor had reported ``pico``."""
    watch = FirmwareWatch(live.table)
    watch.pico = pico
    live.app.extensions["potionpi"].extras["service"] = {"firmware": watch, "urls": []}
    return watch


def drawn(page, session) -> None:
    page.wait_for_function("([id, v]) => document.body.dataset.game === id && document.body.dataset.version === v",
                           arg=[str(session["id"]), str(session["version"])])


def open_more(page) -> None:
    page.locator("#btn-more").tap()
    page.wait_for_selector("#sheet:not([hidden])")


def close_more(page) -> None:
    page.locator("#sheet-close").tap()
    page.wait_for_selector("#sheet", state="hidden")


def test_more_reaches_join_settings_and_the_phone_links_of_every_game_with_secrets(live_table, page_on, output_dir):
    firmware(live_table, None)                         # no Pico seen yet: nothing to say
    table = live_table.table
    page = page_on(live_table.url, (390, 844))
    assert page.locator("#firmware-notice").is_hidden()
    for game, players in PLAYERS.items():
        drawn(page, table.start(game, players, seed=3))
        open_more(page)
        assert page.locator("#sheet-seats").is_visible() == (game in SECRETS), game
        close_more(page)

    # the panel on a phone: every link a finger's size, nothing cut, axe content
    open_more(page)
    assert page.locator("#sheet-firmware").is_hidden()
    page.screenshot(path=str(output_dir / "more-phone.png"))
    found = problems(page) + axe_problems(page)
    assert not found, "\n".join(found)
    page.locator("#sheet-join").tap()
    page.wait_for_url("**/join")
    assert page.locator("figure.qr svg").bounding_box()["width"] >= 300     # scannable across the table
    page.go_back()
    page.wait_for_selector("body[data-ready=yes]")
    open_more(page)
    page.locator("#sheet-settings").tap()
    page.wait_for_url("**/settings")
    page.wait_for_selector("#pin")                     # the owner's page asks for the PIN first
    page.go_back()
    page.wait_for_selector("body[data-ready=yes]")

    # a game with secrets: the phone links from the panel, PIN first, a QR code per seat
    drawn(page, table.start("elixir", ["Ann", "Ben", "Cy"], seed=3))
    open_more(page)
    page.locator("#sheet-seats").tap()
    enter_pin(page)
    page.wait_for_selector("#seat-links img")
    assert page.locator("#seat-links figure").count() == 3
    page.screenshot(path=str(output_dir / "phone-links-from-more.png"))


def test_an_older_pico_firmware_is_said_on_the_tablet_until_later(live_table, page_on, output_dir):
    watch = firmware(live_table, "0.0.1")
    assert watch.older and watch.host != "0.0.1"
    session = live_table.table.start("zauberwald", ["Ann", "Ben", "Cy"], seed=3)
    page = page_on(live_table.url, (1024, 768))
    drawn(page, session)
    page.wait_for_selector("#firmware-notice:not([hidden])")
    text = page.locator("#firmware-notice").inner_text()
    assert "0.0.1" in text and watch.host in text and "potionpi update" in text
    page.screenshot(path=str(output_dir / "firmware-notice.png"))
    found = problems(page) + axe_problems(page)
    assert not found, "\n".join(found)
    page.locator("#firmware-later").tap()
    assert page.locator("#firmware-notice").is_hidden()
    page.reload()                                      # "Later" holds for this Pico version...
    page.wait_for_selector("body[data-firmware=older]")
    assert page.locator("#firmware-notice").is_hidden()
    open_more(page)                                    # ...and the panel still says it
    assert "0.0.1" in page.locator("#sheet-firmware").inner_text()
    close_more(page)

    watch.pico = watch.host                            # flashed: no notice, no line
    page.reload()
    page.wait_for_selector("body[data-firmware=ok]")
    assert page.locator("#firmware-notice").is_hidden()
    open_more(page)
    assert page.locator("#sheet-firmware").is_hidden()
