"""The tablet page's weight and first render, in Chromium over CDP (issues 16, 26).

For every game (or ``--game``): starts ``potionpi run --sim`` with it (pinned to core 0),
opens the page in headless Chromium on the other core alone (a tablet has no core to
spare) and prints: requests and bytes over the wire on a cold load (static files and
all), the page itself gzip'd against its plain size, what a warm reload still asks for,
and the time until the board is drawn with the CPU throttled 6x (a cheap tablet); beside
it, six times the CPU time the page's main thread took until the board in an unthrottled
cold load (the work itself, which the machine's load does not stretch).
Figures, no thresholds; the rows of `make bench`'s table.

    python bench/bench_page.py [--runs 3] [--game GAME] [--root CHECKOUT] [--cores-free]
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.report import compiled, row, spread  # noqa: E402
from tests.e2e.conftest import CHROMIUM_FLAGS, find_chromium  # noqa: E402
from tests.e2e.daemon_proc import DaemonProcess  # noqa: E402

RENDER_TARGET_MS = 1000.0
# Chromium 13x+ builds its own omnibox popup (two WebUI pages, ~150 modules) in every new
# window, headless too: on one core that work ran beside the page being measured. A
# tablet's browser does not load its address bar's UI with every page of ours.
BROWSER_UI_OFF = "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"


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


def main_thread_ms(cdp) -> float:
    """CPU time of the page's renderer main thread so far, in ms (Chromium's ``ThreadTime``):
    the page's own work, which a busy machine does not stretch as it does the wall time.
    Read it from an unthrottled load: the 6x throttle keeps the thread busy while it holds
    it back (ThreadTime then grows ~10x)."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return metrics.get("ThreadTime", float("nan")) * 1000


def ready(cdp) -> None:
    """Wait until the page says it is ready: live, and every module it loads later is in."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        value = cdp.send("Runtime.evaluate", {"expression": "document.body?.dataset.ready ?? null",
                                              "returnByValue": True})
        if value["result"].get("value") == "yes":
            return
        time.sleep(0.05)
    raise SystemExit("the page was not ready within 60 s")


def load(page, cdp, url: str, reload: bool = False, work: list[float] | None = None) -> tuple[int, int, int, float]:
    """(requests over the network, of them static files, bytes received, ms to the board);
    ``work`` (with the Performance domain on) gets the main thread's CPU ms at the board."""
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
    if work is not None:
        work.append(main_thread_ms(cdp))
    ready(cdp)               # and what app.js asks for after the first frame (the More panel, sounds)
    time.sleep(0.5)
    cdp.remove_listener("Network.responseReceived", on_response)
    cdp.remove_listener("Network.loadingFinished", on_finished)
    cdp.remove_listener("Network.requestServedFromCache", on_cached)
    network = [s for rid, s in seen.items()
               if not s["cached"] and rid not in from_cache and "/api/v1/stream" not in s["url"]]
    static = [s for s in network if "/static/" in s["url"] or "/games/" in s["url"]]
    return len(network), len(static), sum(s["bytes"] for s in static), took


def first_render(page, cdp, url: str) -> float:
    """ms to the board of a cold load, and nothing more: the requests were counted by an
    unthrottled load, so a throttled one need not wait at 6x for what the page asks for
    after its first frame (the More panel, the sounds: seconds on a busy core)."""
    page.goto(url, wait_until="commit")
    return board_ms(cdp)


PLAYERS = {"mirakel-mix": ["Ann", "Ben", "Cas", "Dee"], "zaubercocktail": ["Ann", "Ben", "Cas", "Dee"],
           "zauberwald": ["Ann", "Ben", "Cas", "Dee"], "elixir": ["Ann", "Ben", "Cas"], "mix-it": ["Ann", "Ben", "Cas"]}


def one_core(chromium: str, folder: Path) -> str:
    """A launcher running Chromium (and every process it starts) on the last core alone."""
    last = (os.cpu_count() or 1) - 1
    if last < 1 or shutil.which("taskset") is None:
        return chromium
    wrapper = folder / "chromium-one-core"
    wrapper.write_text(f'#!/bin/sh\nexec taskset -c {last} "{chromium}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@contextlib.contextmanager
def board_on_table(game: str, chromium: str, *, pinned: bool = False):
    """A daemon with ``game`` running and a headless Chromium: yields (daemon, new_page),
    where ``new_page()`` opens a fresh 1280x800 context watching for the board's first
    draw and returns (context, page, its CDP session). ``pinned``: the daemon on core 0,
    the browser on the last core alone."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        d = DaemonProcess(Path(tmp)).start(timeout=60)
        try:
            if pinned and shutil.which("taskset") and (os.cpu_count() or 1) > 1:
                subprocess.run(["taskset", "-a", "-p", "-c", "0", str(d.proc.pid)], check=False,
                               stdout=subprocess.DEVNULL)
                chromium = one_core(chromium, Path(tmp))
            status, body = d.request("POST", "/api/v1/session", {"game": game, "players": PLAYERS[game],
                                                                 "seed": 1})
            if status != 201:
                raise SystemExit(f"{game} did not start: {body}")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium, headless=True,
                                            args=[*CHROMIUM_FLAGS, BROWSER_UI_OFF])

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


def page_bytes(url: str) -> tuple[int, int]:
    """(the page as sent to a browser that takes gzip, the page plain)."""
    def get(headers: dict[str, str]) -> bytes:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
            return r.read()
    zipped, plain = get({"Accept-Encoding": "gzip"}), get({})
    if zipped[:2] == b"\x1f\x8b":
        assert gzip.decompress(zipped).startswith(b"<!doctype html>")
    return len(zipped), len(plain)


def measure(d, new_page, game: str, runs: int, pinned: bool) -> None:
    """The rows of ``game``, which the daemon ``d`` now has on its table."""
    cold, warm, renders = [], [], []
    wire, plain = page_bytes(d.url + "/")
    context, page, cdp = new_page()           # what is asked for: the same every time
    cdp.send("Network.enable")
    cdp.send("Performance.enable")
    at_board: list[float] = []               # unthrottled, so the CPU time is the page's own work
    cold.append(load(page, cdp, d.url + "/", work=at_board))
    work = at_board[0]
    warm.append(load(page, cdp, d.url + "/", reload=True))
    context.close()
    for _ in range(runs):
        context, page, cdp = new_page()
        cdp.send("Network.enable")
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 6})
        renders.append(first_render(page, cdp, d.url + "/"))
        context.close()
    med = statistics.median
    where = "browser on one core" if pinned else "browser on every core"
    print(f"tablet page, {game} ({runs} throttled loads): cold load {med(c[0] for c in cold):.0f} requests "
          f"({med(c[1] for c in cold):.0f} static files, {med(c[2] for c in cold) / 1024:.1f} KiB of them over "
          f"the wire); warm reload {med(w[0] for w in warm):.0f} request(s) besides the stream", flush=True)
    render = med(renders)
    row(f"first render at 6x throttle, {game}", spread(renders, "{:.0f}") + " ms", "", None,
        f"<= {RENDER_TARGET_MS:.0f} ms", render <= RENDER_TARGET_MS, note=where)
    row(f"first render's work x 6, {game}", f"{work * 6:.0f} ms", "", None,
        note=f"the page's main thread: {work:.0f} ms of CPU until the board, unthrottled; on a core "
             "of its own a 6x slower tablet needs about 6 times that, however busy this machine is")
    requests = med(w[0] for w in warm)
    row(f"warm reload, {game}", f"{requests:.0f} request(s) besides the stream", "", None, "1 (the page)",
        requests == 1)
    if game == "mirakel-mix":
        row("the tablet page over the wire", f"{wire / 1024:.1f} KiB", f"{plain / 1024:.1f} KiB plain",
            wire / plain, "gzip'd", wire < plain)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--game", choices=sorted(PLAYERS), action="append",
                        help="only this game (repeatable; default every game)")
    parser.add_argument("--root", type=Path, default=None,
                        help="potionpi checkout whose daemon to run (e.g. an older one, for before/after)")
    parser.add_argument("--cores-free", action="store_true",
                        help="let the browser use every core (the issue's target is on one)")
    args = parser.parse_args()
    if args.root is not None:            # `python -m` puts the working folder first on the path
        os.chdir(args.root)
        os.environ["PYTHONPATH"] = str(args.root.resolve())
    compiled(ROOT)                        # (another checkout: as it is)
    chromium = find_chromium()
    if chromium is None:
        print("no Chromium: page weight not measured")
        return
    chosen = args.game or sorted(PLAYERS)
    # one daemon and one browser for every game: each game is started on the same table
    with board_on_table(chosen[0], chromium, pinned=not args.cores_free) as (d, new_page):
        for game in chosen:
            if game != chosen[0]:
                status, body = d.request("POST", "/api/v1/session", {"game": game, "players": PLAYERS[game],
                                                                     "seed": 1})
                if status != 201:
                    raise SystemExit(f"{game} did not start: {body}")
            measure(d, new_page, game, args.runs, pinned=not args.cores_free)


if __name__ == "__main__":
    main()
