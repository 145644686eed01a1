"""The app icons' PNGs, drawn from web_ui/static/icons/cauldron.svg by Chromium.

``python -m tests.e2e.icons`` writes them after the drawing changed; the manifest test
renders them again and compares, so a PNG can never drift from the SVG.
"""
from __future__ import annotations

import base64
from pathlib import Path

ICONS = Path(__file__).resolve().parents[2] / "web_ui" / "static" / "icons"
SVG = ICONS / "cauldron.svg"
BACKGROUND = "#1d1733"          # the SVG's own edge colour: full-bleed icons fill their corners with it
# file -> (size, full bleed). Full bleed: an opaque square (iOS and a maskable icon round
# it themselves); else the SVG's own rounded square on transparency.
PNGS = {"cauldron-192.png": (192, False), "cauldron-512.png": (512, False),
        "cauldron-maskable-512.png": (512, True), "cauldron-180.png": (180, True)}


def render(browser, size: int, full_bleed: bool) -> bytes:
    """One PNG of the drawing at ``size`` px square."""
    svg = base64.b64encode(SVG.read_bytes()).decode()
    page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
    try:
        background = BACKGROUND if full_bleed else "transparent"
        page.set_content(f'<html><body style="margin:0;background:{background}">'
                         f'<img src="data:image/svg+xml;base64,{svg}" width="{size}" height="{size}" '
                         'style="display:block"></body></html>')
        page.wait_for_function("document.images[0].complete")
        return page.screenshot(omit_background=not full_bleed, type="png")
    finally:
        page.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM_FLAGS, find_chromium
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), headless=True, args=CHROMIUM_FLAGS)
        for name, (size, full_bleed) in PNGS.items():
            (ICONS / name).write_bytes(render(browser, size, full_bleed))
            print(f"wrote {ICONS / name}")
        browser.close()


if __name__ == "__main__":
    main()
