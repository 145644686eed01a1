"""How the tablet page loads (issue 16): the board from the page itself, every module of
it asked for at once, nothing static asked for again on a reload. What is fetched and in
which order, never how long it took (the figures are bench/bench_page.py's)."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

# Notes, when the page opens its live stream, whether the board was already drawn.
STREAM_WATCH = """
const Real = window.EventSource;
window.EventSource = class extends Real {
  constructor(url, options) {
    window.__streamOpened = window.__streamOpened || {
      board: document.querySelector("#game-view > *") !== null, version: document.body.dataset.version || null };
    document.documentElement.dataset.streamOpened = "yes";     // waited for without eval (the CSP)
    super(url, options);
  }
};
"""


PLAYERS = {"mirakel-mix": ["Ann", "Ben", "Cas"], "zaubercocktail": ["Ann", "Ben", "Cas", "Dee"],
           "zauberwald": ["Ann", "Ben", "Cas"], "elixir": ["Ann", "Ben", "Cas"], "mix-it": ["Ann", "Ben", "Cas"]}


def start(live_table, game: str = "mirakel-mix") -> dict:
    status, session = live_table.call("POST", "/api/v1/session", {"game": game, "players": PLAYERS[game],
                                                                  "seed": 3})
    assert status == 201
    return session


def test_the_board_is_drawn_from_the_page_before_the_stream_opens(browser, live_table, output_dir):
    session = start(live_table)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(STREAM_WATCH)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_table.url)
    page.wait_for_selector("html[data-stream-opened=yes]", state="attached")
    assert page.evaluate("window.__streamOpened") == {"board": True, "version": str(session["version"])}
    page.wait_for_selector("#conn[data-state=live]")
    context.close()

    # with no stream at all (the table's Wi-Fi flaky), the board is still there at once
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.route("**/api/v1/stream*", lambda route: route.abort())
    page = context.new_page()
    page.goto(live_table.url)
    page.wait_for_selector("#game-view .cave-map")
    assert page.get_attribute("body", "data-version") == str(session["version"])
    assert page.get_attribute("body", "data-view") == "table"
    page.screenshot(path=str(output_dir / "board-without-stream.png"))
    assert page.locator(".cave-space").count() > 0           # the cave, drawn from the page's session
    context.close()


# Notes when the board's first element is put in (ms from navigation start, the clock of
# the browser's paint timing).
BOARD_WATCH = """
new MutationObserver((_, obs) => {
  if (document.querySelector("#game-view > *")) { window.__boardAt = performance.now(); obs.disconnect(); }
}).observe(document, {subtree: true, childList: true});
"""


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_the_first_frame_painted_is_the_board(browser, live_table, game, output_dir):
    """Nothing is painted before the board (no bare top bar saying "Loading the table…",
    then the whole page again a moment later): the game on the table is drawn as the
    page's script runs, and the page holds its first paint until then."""
    start(live_table, game)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(BOARD_WATCH)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_table.url)
    page.wait_for_selector("body[data-ready=yes]")
    board_at, first_paint = page.evaluate("""() => [window.__boardAt ?? null,
      performance.getEntriesByType("paint").find((p) => p.name === "first-paint")?.startTime ?? null]""")
    assert board_at is not None and first_paint is not None
    assert first_paint >= board_at, f"painted at {first_paint:.0f} ms, the board came at {board_at:.0f} ms"
    page.screenshot(path=str(output_dir / f"first-screen-{game}.png"))
    context.close()


def network_log(browser, url: str, reload: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """[(path, initiator type)] of every request, and the paths that went over the network
    (not from the browser's cache), of a load of ``url`` (and of a reload after it)."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    page.goto(url)
    page.wait_for_selector("body[data-ready=yes]")
    page.wait_for_selector("#game-view > *", state="attached")
    requests: list[tuple[str, str]] = []
    network: dict[str, str] = {}
    cached: set[str] = set()
    cdp.on("Network.requestWillBeSent",
           lambda e: requests.append((urlsplit(e["request"]["url"]).path, e["initiator"]["type"])))
    cdp.on("Network.responseReceived", lambda e: network.__setitem__(e["requestId"], urlsplit(e["response"]["url"]).path)
           if not (e["response"].get("fromDiskCache") or e["response"].get("fromMemoryCache")) else None)
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    if reload:
        page.reload()
    else:
        context.close()
        context = browser.new_context(viewport={"width": 1024, "height": 768})
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent",
               lambda e: requests.append((urlsplit(e["request"]["url"]).path, e["initiator"]["type"])))
        page.goto(url)
    page.wait_for_selector("body[data-ready=yes]")
    page.wait_for_selector("#game-view > *", state="attached")
    page.wait_for_timeout(300)
    context.close()
    return requests, sorted(path for rid, path in network.items() if rid not in cached)


# what the board's first frame does not need: app.js asks for it once that frame is painted
AFTER_THE_FIRST_FRAME = {"/static/js/sheet.js", "/static/js/firmware.js", "/static/js/cues.js",
                         "/static/js/seats.js", "/static/js/replay.js", "/static/js/download.js",
                         "/static/js/scores.js", "/static/scores.css"}       # the running score (scores.js)


def test_every_module_of_the_board_is_asked_for_by_the_page_itself(browser, live_table):
    """None is found late, by the module importing it: all are asked for in one go; the
    More panel, the sounds and the firmware notice only after the board's first frame."""
    start(live_table)
    requests, _ = network_log(browser, live_table.url + "/", reload=False)
    files = [(path, initiator) for path, initiator in requests if path.endswith((".js", ".css"))]
    assert "/games/mirakel-mix/cave.js" in {p for p, _ in files}
    late = {p for p, i in files if i != "parser"}
    assert late <= AFTER_THE_FIRST_FRAME, f"asked for by a script, not the page: {late - AFTER_THE_FIRST_FRAME}"
    assert {"/static/js/sheet.js", "/static/js/cues.js"} <= late
    board = [i for i, (p, _) in enumerate(files) if p == "/games/mirakel-mix/cave.js"][0]
    assert all(i > board for i, (p, _) in enumerate(files) if p in late)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_warm_reload_asks_only_for_the_page_and_the_stream(browser, live_table, game):
    """Every game: its modules come from the cache, its devices' state (the forest floor)
    and the firmware's from the page itself."""
    start(live_table, game)
    _, network = network_log(browser, live_table.url + "/", reload=True)
    assert network == ["/", "/api/v1/stream"]


def test_the_first_frame_has_the_cave_at_its_size_and_covers_start_under_the_top_bar(browser, live_table):
    """The cave is drawn once its panel is laid out, and the top bar's height (taken after
    the first paint, so the board's frame is not restyled) still places what opens under it."""
    start(live_table)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_table.url)
    page.wait_for_selector("#game-view .cave-map")
    stage, drawn = page.evaluate("""() => {
      const stage = document.querySelector("#cave-stage"), map = stage.querySelector(".cave-map");
      return [[stage.clientWidth, stage.clientHeight], [Number(map.getAttribute("width")), Number(map.getAttribute("height"))]];
    }""")
    assert drawn == stage and stage[0] > 300 and stage[1] > 200
    page.wait_for_selector("body[data-ready=yes]")
    bar = page.locator(".topbar").bounding_box()
    assert bar is not None and bar["height"] > 68          # the prompt's player chip makes it taller
    page.click("#btn-more")
    page.wait_for_selector("#sheet:not([hidden])")
    sheet = page.locator("#sheet").bounding_box()
    assert sheet is not None and abs(sheet["y"] - (bar["y"] + bar["height"])) < 1
    context.close()
