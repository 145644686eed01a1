"""/join and /settings in headless Chromium on a phone-sized screen: the QR code is big
enough to scan across the table, the PIN unlocks the downloads, every control is a
finger's size. Screenshots go to test-output/<test>/."""
from __future__ import annotations

import logging

import pytest

from controller.service import discovery, logs
from tests.e2e.test_tablet_browser import assert_touch_targets
from tests.web.helpers import PIN

pytestmark = pytest.mark.browser


def test_join_and_settings_on_a_phone(browser, live_table, output_dir, tmp_path):
    handler = logs.open_log_file(tmp_path)
    logging.getLogger("potionpi.test").info("table started")
    live_table.app.extensions["potionpi"].extras["service"] = {"data_dir": tmp_path, "urls": []}
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  accept_downloads=True)
    try:
        page = context.new_page()
        page.goto(live_table.url + "/join")
        qr = page.locator("figure.qr svg").bounding_box()
        assert qr is not None and qr["width"] >= 300          # a phone reads it from a metre away
        # opened on the Pi itself (127.0.0.1): other phones get the address the table listens
        # on (this test's server: 127.0.0.1 only; listening on every address, the Pi's network
        # address: tests/web/test_owner_pages.py), in one piece per part of it
        assert page.locator(".url strong").inner_text() == \
            discovery.table_urls("127.0.0.1", live_table.port)[0]
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "join.png"), full_page=True)

        page.locator("a", has_text="Settings").tap()
        page.wait_for_selector("#pin")
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "settings-locked.png"), full_page=True)
        page.fill("#pin", "0000")
        page.locator("button", has_text="Unlock").tap()
        page.wait_for_selector(".message")
        assert "not the table PIN" in page.locator(".message").inner_text()
        page.fill("#pin", PIN)
        page.locator("button", has_text="Unlock").tap()
        page.wait_for_selector("text=Download the log")
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "settings.png"), full_page=True)
        with page.expect_download() as download:
            page.locator("a", has_text="Download the log").tap()
        assert "table started" in open(download.value.path()).read()
    finally:
        context.close()
        logs.close_log_file(handler)
