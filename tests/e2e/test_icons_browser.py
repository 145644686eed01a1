"""The app icons' PNGs are the SVG drawing (tests/e2e/icons.py renders them): drawn again
here and compared pixel by pixel, so nobody ships a PNG of an older cauldron."""
from __future__ import annotations

import base64

import pytest

from tests.e2e.icons import ICONS, PNGS, render

pytestmark = pytest.mark.browser

# mean and largest difference of two same-sized images, per colour channel (0-255)
COMPARE = """async ([a, b]) => {
  const pixels = async (src) => {
    const img = new Image(); img.src = src; await img.decode();
    const canvas = new OffscreenCanvas(img.width, img.height);
    const g = canvas.getContext('2d'); g.drawImage(img, 0, 0);
    return [img.width, img.height, g.getImageData(0, 0, img.width, img.height).data];
  };
  const [[w1, h1, p1], [w2, h2, p2]] = [await pixels(a), await pixels(b)];
  if (w1 !== w2 || h1 !== h2) return { size: [w1, h1, w2, h2] };
  let sum = 0, most = 0;
  for (let i = 0; i < p1.length; i++) { const d = Math.abs(p1[i] - p2[i]); sum += d; if (d > most) most = d; }
  return { mean: sum / p1.length, most };
}"""


@pytest.mark.parametrize("name", sorted(PNGS))
def test_each_png_icon_is_the_svg_drawn_at_its_size(browser, name):
    size, full_bleed = PNGS[name]
    fresh = render(browser, size, full_bleed)
    page = browser.new_page()
    try:
        urls = [f"data:image/png;base64,{base64.b64encode(data).decode()}"
                for data in ((ICONS / name).read_bytes(), fresh)]
        diff = page.evaluate(COMPARE, urls)
    finally:
        page.close()
    assert "size" not in diff, diff
    # another Chromium may smooth an edge a little differently; a changed drawing differs a lot
    assert diff["mean"] < 1.0, f"{name} is not the current drawing: `python -m tests.e2e.icons` ({diff})"
