"""The settings page's update form in headless Chromium, as the owner uses it on a tablet:
the installed version, a bad file refused with a sentence, a good one accepted; every
control a finger's size. Screenshots go to test-output/<test>/."""
from __future__ import annotations

import os

import pytest

from controller import __version__
from controller.service import release
from tests.e2e.test_tablet_browser import assert_touch_targets
from tests.service.test_release import wheel
from tests.web.helpers import PIN

pytestmark = pytest.mark.browser


def test_the_owner_updates_from_a_file_on_the_settings_page(browser, live_table, output_dir, tmp_path):
    layout = release.Layout(opt=tmp_path / "opt", data_dir=tmp_path / "data", owner=None)
    (layout.releases / __version__).mkdir(parents=True)
    os.symlink(f"releases/{__version__}", layout.current)
    live_table.app.extensions["potionpi"].extras["service"] = {
        "data_dir": layout.data_dir, "urls": [], "release_layout": layout}
    bad = tmp_path / "holiday-photo.jpg"
    bad.write_bytes(b"\xff\xd8\xff not potionpi")
    good = wheel(tmp_path, "9.9.9")
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    try:
        page = context.new_page()
        page.goto(live_table.url + "/settings")
        page.fill("#pin", PIN)
        page.locator("button", has_text="Unlock").tap()
        page.wait_for_selector("text=Software")
        assert f"{__version__}" in page.locator(".facts dd").first.inner_text()
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / "software.png"), full_page=True)

        page.set_input_files("#package", str(bad))
        page.locator("button", has_text="Install").tap()
        page.wait_for_selector(".message")
        message = page.locator(".message").inner_text()
        assert "'holiday-photo.jpg' is neither a potionpi wheel (.whl) nor a release archive" in message
        assert "Nothing was changed." in message
        page.screenshot(path=str(output_dir / "refused.png"), full_page=True)

        page.set_input_files("#package", str(good))
        page.locator("button", has_text="Install").tap()
        page.wait_for_selector("text=potionpi 9.9.9 is being installed")
        assert page.locator(".update-form button").is_disabled()        # one at a time
        page.screenshot(path=str(output_dir / "installing.png"), full_page=True)
        assert (layout.spool / release.REQUEST).exists()
    finally:
        context.close()
