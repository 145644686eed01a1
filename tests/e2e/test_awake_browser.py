"""The tablet keeps its screen on over the table's plain-HTTP Wi-Fi, as a real table sees it.

The page is opened by the table's network name (``http://<host>.local:<port>/``, mapped to
the test's server with Chromium's --host-resolver-rules), which, unlike 127.0.0.1, is not a
secure context: no Screen Wake Lock API, so the video fallback must hold the screen. What
is asserted is what keeps a screen on in a browser: a playing video with an audio track,
not muted, never ended (Chromium's VideoWakeLock, WebKit's shouldDisableSleep).

Headless Chromium cannot really hide a page (every page counts as a visible foreground
tab, Playwright issue 2286), so the test flips ``document.visibilityState`` itself and
sends the ``visibilitychange`` a browser would.
"""
from __future__ import annotations

import random

import pytest

from tests.e2e.conftest import TABLE_NAME
from tests.e2e.test_tablet_browser import assert_touch_targets

pytestmark = pytest.mark.browser

IPAD = ("Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        "Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID = ("Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/126.0.0.0 Safari/537.36")

VIDEO = """() => { const v = document.querySelector('video.awake-video');
  return v && { paused: v.paused, ended: v.ended, muted: v.muted, volume: v.volume, loop: v.loop,
                time: v.currentTime, audioBytes: v.webkitAudioDecodedByteCount, src: v.currentSrc,
                inline: v.hasAttribute('playsinline') }; }"""
# counts the clip's rewinds (it must never reach its end: WebKit ignores a looping video)
COUNT_REWINDS = """() => { const v = document.querySelector('video.awake-video');
  window.__rewinds = 0; v.addEventListener('seeked', () => { window.__rewinds += 1; }); }"""
HIDE = """hidden => {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => hidden ? 'hidden' : 'visible' });
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event('visibilitychange')); }"""


def table_url(live_table) -> str:
    return f"http://{TABLE_NAME}:{live_table.port}/"


def start_game(live_table, game: str = "mix-it", players=("Ann", "Ben")) -> dict:
    status, session = live_table.call("POST", "/api/v1/session", {"game": game, "players": list(players), "seed": 4})
    assert status == 201, session
    return session


def awake(page) -> str:
    return page.get_attribute("body", "data-awake") or ""


def wait_awake(page, state: str) -> None:
    page.wait_for_function("s => document.body.dataset.awake === s", arg=state)


def play_to_the_end(table) -> None:
    """Mix It by the engine tests' quick player until somebody wins (as phones and taps would)."""
    from tests.games.mix_it_support import choose
    rng = random.Random(2)
    for _ in range(5000):
        if table.session()["outcome"] is not None:
            return
        table.act(choose(table.inspect(lambda engine, state: state), rng), source="player")
    raise AssertionError("the game never ended")


def test_over_plain_http_the_video_holds_the_screen_from_the_first_tap(tablet, live_table, output_dir):
    start_game(live_table)
    page = tablet
    page.goto(table_url(live_table))
    page.wait_for_selector("body[data-ready=yes]")
    # what a real table sees: not a secure context, so no wake lock API at all
    assert page.evaluate("isSecureContext") is False
    assert page.evaluate("'wakeLock' in navigator") is False
    wait_awake(page, "waiting")                  # sound needs a tap: nothing plays yet
    assert page.evaluate(VIDEO)["paused"] is True

    page.locator("#prompt").tap()                # the first tap anywhere on the page
    wait_awake(page, "video")
    video = page.evaluate(VIDEO)
    assert not video["paused"] and not video["muted"] and video["volume"] > 0 and video["inline"]
    assert not video["loop"], "WebKit keeps no screen on for a looping video"
    assert video["src"].endswith("/static/awake/awake.mp4")
    # it has sound (silence): the audio track is decoded, so Chromium holds its video wake lock
    page.wait_for_function("() => document.querySelector('video.awake-video').webkitAudioDecodedByteCount > 0")
    # and it never ends: rewound before its end, again and again
    page.evaluate(COUNT_REWINDS)
    page.wait_for_function("() => window.__rewinds >= 2")
    assert page.evaluate(VIDEO)["ended"] is False
    assert page.locator("#awake-notice").is_hidden()
    page.screenshot(path=str(output_dir / "playing-with-video.png"))

    # the tablet put aside (another app, the screen off): the video stops ...
    page.evaluate(HIDE, True)
    wait_awake(page, "off")
    assert page.evaluate(VIDEO)["paused"] is True
    # ... and starts again by itself when the page is back (no tap needed any more)
    page.evaluate(HIDE, False)
    wait_awake(page, "video")
    assert page.evaluate(VIDEO)["paused"] is False

    # the game is over: the screen may sleep again
    play_to_the_end(live_table.table)
    page.wait_for_function("() => document.querySelector('#mi-over, .outcome:not([hidden]), [data-outcome]') !== null"
                           " || document.body.dataset.awake === 'off'")
    wait_awake(page, "off")
    assert page.evaluate(VIDEO)["paused"] is True
    page.screenshot(path=str(output_dir / "game-over.png"))


def test_the_start_tap_readies_the_video_for_the_game_it_starts(tablet, live_table):
    page = tablet
    page.goto(table_url(live_table))
    page.wait_for_selector("body[data-ready=yes]")
    wait_awake(page, "off")                      # no game yet: nothing to hold
    page.locator("#name-fields input").nth(0).fill("Ann")
    page.locator("#name-fields input").nth(1).fill("Ben")
    page.locator("#btn-start").tap()             # the one tap there is: it starts the game
    page.wait_for_selector("#pinpad:not([hidden])")
    from tests.e2e.test_tablet_browser import enter_pin
    enter_pin(page)
    page.wait_for_selector("body[data-view=table]")
    wait_awake(page, "video")
    assert page.evaluate(VIDEO)["paused"] is False


@pytest.mark.parametrize("device, ua, setting", [
    ("ipad", IPAD, "Settings → Display & Brightness → Auto-Lock → Never"),
    ("android", ANDROID, "Settings → Display → Screen timeout → the longest"),
], ids=["ipad", "android"])
def test_when_nothing_can_keep_the_screen_on_the_tablet_says_which_setting(
        browser, live_table, output_dir, device, ua, setting):
    start_game(live_table)
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True, user_agent=ua)
    # a browser that plays no video of ours (or refuses it): the clip never arrives
    context.route("**/static/awake/*", lambda route: route.abort())
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(table_url(live_table))
        page.wait_for_selector("body[data-ready=yes]")
        page.locator("#prompt").tap()
        wait_awake(page, "none")
        notice = page.locator("#awake-notice")
        notice.wait_for(state="visible")
        assert setting in notice.inner_text()
        assert_touch_targets(page)
        page.screenshot(path=str(output_dir / f"notice-{device}.png"))
        # OK: gone, and not back on this tablet until the browser restarts
        page.locator("#awake-later").tap()
        notice.wait_for(state="hidden")
        page.reload()
        page.wait_for_selector("body[data-ready=yes]")
        page.locator("#prompt").tap()
        wait_awake(page, "none")
        assert notice.is_hidden()
    finally:
        context.close()


def test_a_seat_phone_never_holds_the_screen(page_on, live_table):
    """A phone showing a player's secret cards should dim and lock when put down."""
    start_game(live_table)
    status, seats = live_table.call("GET", "/api/v1/seats")
    assert status == 200
    url = seats["seats"][0]["url"].replace("127.0.0.1", TABLE_NAME)
    phone = page_on(url, size=(390, 844), ready="#mi-phone")
    phone.locator("#mi-phone").tap()
    assert phone.evaluate("document.querySelector('video') === null && !('awake' in document.body.dataset)")


@pytest.mark.parametrize("ios, holds", [("17_5", "video"), ("18_4", "lock")], ids=["ipados-17.5", "ipados-18.4"])
def test_a_home_screen_app_on_an_older_ipad_plays_the_clip_beside_the_wake_lock(browser, live_table, ios, holds):
    """On iOS/iPadOS before 18.4 a home-screen app is granted a wake lock that holds nothing
    (WebKit bug 254545): there the clip plays too. On a secure page (here the Pi's own
    127.0.0.1) with 18.4 the lock alone does."""
    start_game(live_table)
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True,
                                  user_agent=IPAD.replace("17_5", ios))
    context.add_init_script("Object.defineProperty(navigator, 'standalone', { get: () => true })")
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(live_table.url)
        page.wait_for_selector("body[data-ready=yes]")
        assert page.evaluate("isSecureContext && 'wakeLock' in navigator")
        page.locator("#prompt").tap()
        wait_awake(page, holds)
        video = page.evaluate(VIDEO)
        assert (video is not None and not video["paused"]) == (holds == "video")
    finally:
        context.close()
