"""The tablet page's weight and first render, in Chromium over CDP (issue 16).

Starts ``potionpi run --sim`` with a game (``--game``, default Mirakel Mix), opens the page in headless
Chromium and prints: requests and bytes over the wire on a cold load (static files and
all), the same on a warm reload (what the browser still asks for), and the time until
the board is drawn with the CPU throttled 6x (a cheap tablet). No thresholds.

    python bench/bench_page.py [--runs 3] [--root CHECKOUT]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.e2e.conftest import CHROMIUM_FLAGS, find_chromium  # noqa: E402
from tests.e2e.daemon_proc import DaemonProcess  # noqa: E402


# Noted by the page itself (a script the browser runs in every new document, outside the
# page's CSP): when the board's first element appears and a frame has been painted with
# it, in ms from navigation start. Waiting
# with Playwright's selectors instead would run its large helper script on the throttled
# main thread while the page loads and count it too.
BOARD_WATCH = """
new MutationObserver((_, obs) => {
  if (document.body?.dataset.view === "table" && document.querySelector("#game-view > *")) {
    obs.disconnect();
    // drawn; then the frame with it is laid out and painted, and the task after that runs
    requestAnimationFrame(() => setTimeout(() => { window.__board = performance.now(); }));
  }
}).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-view"]});
"""


def board_ms(cdp) -> float:
    """ms from navigation start until the board was drawn (polled over plain CDP)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        value = cdp.send("Runtime.evaluate", {"expression": "window.__board ?? null", "returnByValue": True})
        if value["result"].get("value") is not None:
            return float(value["result"]["value"])
        time.sleep(0.05)
    raise SystemExit("the board was not drawn within 60 s")


def load(page, cdp, url: str, reload: bool = False) -> tuple[int, int, int, float]:
    """(requests over the network, of them static files, bytes received, ms to the board)."""
    seen: dict[str, dict] = {}

    def on_response(event):
        r = event["response"]
        seen[event["requestId"]] = {"url": r["url"], "cached": r.get("fromDiskCache") or r.get("fromMemoryCache")
                                    or r.get("fromServiceWorker"), "bytes": 0}

    def on_finished(event):
        if event["requestId"] in seen:
            seen[event["requestId"]]["bytes"] = event["encodedDataLength"]

    from_cache: set[str] = set()

    def on_cached(event):
        from_cache.add(event["requestId"])

    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.loadingFinished", on_finished)
    cdp.on("Network.requestServedFromCache", on_cached)
    if reload:
        page.reload(wait_until="commit")
    else:
        page.goto(url, wait_until="commit")
    took = board_ms(cdp)
    time.sleep(0.5)
    cdp.remove_listener("Network.responseReceived", on_response)
    cdp.remove_listener("Network.loadingFinished", on_finished)
    cdp.remove_listener("Network.requestServedFromCache", on_cached)
    network = [s for rid, s in seen.items()
               if not s["cached"] and rid not in from_cache and "/api/v1/stream" not in s["url"]]
    static = [s for s in network if "/static/" in s["url"] or "/games/" in s["url"]]
    return len(network), len(static), sum(s["bytes"] for s in static), took


PLAYERS = {"mirakel-mix": ["Ann", "Ben", "Cas", "Dee"], "zaubercocktail": ["Ann", "Ben", "Cas", "Dee"],
           "zauberwald": ["Ann", "Ben", "Cas", "Dee"], "elixir": ["Ann", "Ben", "Cas"], "mix-it": ["Ann", "Ben", "Cas"]}


@contextlib.contextmanager
def board_on_table(game: str, chromium: str):
    """A daemon with ``game`` running and a headless Chromium: yields (daemon, new_page),
    where ``new_page()`` opens a fresh 1280x800 context watching for the board's first
    draw and returns (context, page, its CDP session)."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        d = DaemonProcess(Path(tmp)).start(timeout=60)
        try:
            status, body = d.request("POST", "/api/v1/session", {"game": game, "players": PLAYERS[game],
                                                                 "seed": 1})
            if status != 201:
                raise SystemExit(f"{game} did not start: {body}")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)

                def new_page():
                    context = browser.new_context(viewport={"width": 1280, "height": 800})
                    context.add_init_script(BOARD_WATCH)
                    page = context.new_page()
                    return context, page, context.new_cdp_session(page)

                try:
                    yield d, new_page
                finally:
                    browser.close()
        finally:
            d.terminate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--game", default="mirakel-mix", choices=sorted(PLAYERS),
                        help="the game on the table (default mirakel-mix)")
    parser.add_argument("--root", type=Path, default=None,
                        help="potionpi checkout whose daemon to run (e.g. an older one, for before/after)")
    args = parser.parse_args()
    if args.root is not None:            # `python -m` puts the working folder first on the path
        os.chdir(args.root)
        os.environ["PYTHONPATH"] = str(args.root.resolve())
    chromium = find_chromium()
    if chromium is None:
        print("no Chromium: page weight not measured")
        return
    cold, warm, renders = [], [], []
    with board_on_table(args.game, chromium) as (d, new_page):
        for _ in range(args.runs):
            context, page, cdp = new_page()
            cdp.send("Network.enable")
            cold.append(load(page, cdp, d.url + "/"))
            warm.append(load(page, cdp, d.url + "/", reload=True))
            context.close()
            context, page, cdp = new_page()
            cdp.send("Network.enable")
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 6})
            renders.append(load(page, cdp, d.url + "/")[3])
            context.close()
    med = statistics.median
    print(f"tablet page ({args.game}, {args.runs} runs, medians)")
    print(f"  cold load: {med(c[0] for c in cold):.0f} requests, {med(c[1] for c in cold):.0f} static files, "
          f"{med(c[2] for c in cold) / 1024:.1f} KiB of static files over the wire")
    print(f"  warm reload: {med(w[0] for w in warm):.0f} request(s) besides the stream (the page itself is "
          f"not cached), {med(w[1] for w in warm):.0f} static files, "
          f"{med(w[2] for w in warm) / 1024:.1f} KiB of static files over the wire")
    print(f"  first board render at 6x CPU throttle: {med(renders):.0f} ms (from navigation start; "
          f"{min(renders):.0f}-{max(renders):.0f})")


if __name__ == "__main__":
    main()
