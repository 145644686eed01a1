"""The story of the game in headless Chromium: every board's "what just happened" line
shows the game log's words for what a player would announce (a potion completed and its
card, a roll's number, the revealed lay-downs, a basket's check, the card placed), the
turn cue sounds for every game, read aloud is off until turned on and is the tablet's
only, and every player's phone (390x844) shows the outcome at the end and the way into
the next game. Screenshots under test-output/<test>/.
"""
from __future__ import annotations

import random
import re
from typing import Any, Callable

import pytest

from controller import records
from tests.e2e.test_size_matrix_browser import GAMES, play, play_by

pytestmark = pytest.mark.browser

PHONE = (390, 844)


def start(live, game: str, players: list[str], seed: int, options: dict | None = None) -> dict:
    status, session = live.call("POST", "/api/v1/session",
                                {"game": game, "players": players, "seed": seed, "options": options or {}})
    assert status == 201, session
    return session


def drawn(page, session: dict) -> None:
    page.wait_for_function("([id, v]) => document.body.dataset.game === id && document.body.dataset.version === v",
                           arg=[str(session["id"]), str(session["version"])])


def says(game: str, pattern: str) -> Callable[[Any], bool]:
    """A moment (a session, or an engine state) whose story matches ``pattern``."""
    def found(s: Any) -> bool:
        lines = s["told"] if isinstance(s.get("told"), list) else records.told(game, s.get("told"), s["players"])
        return re.search(pattern, records.join(lines)) is not None
    return found


def _mix_it(until):
    from tests.games.mix_it_support import choose
    return play_by(lambda state, rng: choose(state, rng), until)


def _elixir(until):
    from tests.games.elixir_support import all_actions, choose
    return play_by(lambda state, rng: choose(rng, state, all_actions(state)), until)


# game, players, options, the first tap (it changes the prompt), the moment to reach, what the line says
STORIES = [
    ("mirakel-mix", ["Ann", "Ben", "Cleo"], {"fill": "random"}, {"type": "place_apprentice", "space": "S1"},
     lambda t, rng: play(t, rng, says("mirakel-mix", r"potion is complete: \w+ wins its card")),
     r"The (.+) potion is complete: (Ann|Ben|Cleo) wins its card\. \2 moves \d steps?"),
    ("elixir", ["Ann", "Ben", "Cleo"], {}, {"type": "roll", "seat": 0},
     _elixir(says("elixir", r"rolled \d: the experiment counts")),
     r"(Ann|Ben|Cleo) rolled [1-6]: the experiment counts \d+"),
    ("zaubercocktail", ["Ann", "Ben", "Cleo", "Dan"], {}, {"type": "reveal"},
     lambda t, rng: play(t, rng, says("zaubercocktail", r"moves \d+ fields?"),
                         prefer=("reveal", "drop_out", "lay_down", "reveal_entries", "draw"),
                         avoid=("undo", "false_trader")),
     r"(Ann|Ben|Cleo|Dan) (laid down .+: \d+ points|laid nothing)\. .*moves \d+ fields?"),
    ("zauberwald", ["Ann", "Ben", "Cleo"], {}, {"type": "choose_tile", "seat": 0, "tile": 2},
     lambda t, rng: play(t, rng, says("zauberwald", r"'s basket: "),
                         prefer=("turn", "floor_turned", "end_search", "basket", "choose_tile")),
     r"(Ann|Ben|Cleo)'s basket: "),
    ("mix-it", ["Ann", "Ben", "Cleo"], {"variant": "express"}, None,
     _mix_it(says("mix-it", r"placed \w+ (eyes|mouth|feet)")),
     r"(Ann|Ben|Cleo) placed \w+ (eyes|mouth|feet)( ★)? on Monster [12]"),
]


# what the line keeps in view when it has no room for the whole story (the oldest make way)
NEWS = {"mirakel-mix": r"potion is complete: \w+ wins its card", "elixir": r"rolled [1-6]",
        "zaubercocktail": r"moves \d+ fields?", "zauberwald": r"Penalty|basket|recipe card|potion",
        "mix-it": r"placed \w+"}


@pytest.mark.parametrize("game,players,options,first,reach,line", STORIES, ids=[s[0] for s in STORIES])
def test_every_board_tells_what_just_happened_and_cues_the_next_turn(live_table, page_on, output_dir,
                                                                     game, players, options, first, reach, line):
    session = start(live_table, game, players, seed=4, options=options)
    page = page_on(live_table.url, (1024, 768))
    drawn(page, session)
    assert page.locator("#told").is_visible()
    # another tablet (or a phone) moves the game on: this tablet cues "next" for the new prompt
    if first is None:                               # Mix It Express: the face-up card
        first = next(a for a in session["legal_actions"] if a["type"] == "place")
    session = live_table.table.act(first)
    drawn(page, session)
    page.wait_for_function("() => document.body.dataset.lastCue === 'next'")
    assert session["prompt"] in page.locator("#prompt").inner_text()        # (a game may dress it: a chip)
    # the story's moment: the line says it in the game log's words
    session = reach(live_table.table, random.Random(4))
    drawn(page, session)
    story = records.join(session["told"])
    page.wait_for_function("() => document.querySelector('#told-text').getBoundingClientRect().height > 0")
    shown = page.locator("#told-text").inner_text()
    # the whole story, or (no room for it) its newest sentences: the oldest make way, never the news
    assert shown == story or (shown.startswith("… ") and story.endswith(shown[2:])), (shown, story)
    assert re.search(line, story), story
    assert re.search(NEWS[game], shown), shown                              # the news itself on the line
    assert story in page.locator("#told-text").get_attribute("aria-label")
    box = page.locator("#told").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 768, box          # on the screen
    page.screenshot(path=str(output_dir / f"story-{game}.png"))
    # a tap on the words opens the whole log, newest first, the same words on top
    page.locator("#told-text").tap()
    page.wait_for_selector("#log-list .log-item")
    assert page.locator("#log-list .log-item .log-text").first.inner_text() == story
    page.screenshot(path=str(output_dir / f"log-{game}.png"))


SPEECH_STUB = """() => { window.__said = [];
  window.speechSynthesis.speak = (u) => window.__said.push(u.text);
  window.speechSynthesis.cancel = () => {}; }"""


def test_read_aloud_is_off_until_turned_on_and_the_tablets_alone(live_table, page_on, output_dir):
    session = start(live_table, "mix-it", ["Ann", "Ben", "Cleo"], seed=4, options={"variant": "express"})
    page = page_on(live_table.url, (1024, 768))
    drawn(page, session)
    page.evaluate(SPEECH_STUB)
    status, seats = live_table.call("GET", "/api/v1/seats")
    phone = page_on(seats["seats"][1]["url"], PHONE, ready="#mi-phone")
    phone.evaluate(SPEECH_STUB)
    assert page.locator("#btn-read-aloud").get_attribute("aria-pressed") == "false"
    place = next(a for a in session["legal_actions"] if a["type"] == "place")
    session = live_table.table.act(place)
    drawn(page, session)
    assert page.evaluate("() => window.__said") == []                       # off by default: silent
    page.locator("#btn-read-aloud").tap()
    assert page.locator("#btn-read-aloud").get_attribute("aria-pressed") == "true"
    assert page.evaluate("() => window.__said") == [session["prompt"]]      # what the table does now
    move = next(a for a in session["legal_actions"] if a["type"] == "move")
    after = live_table.table.act(move)
    drawn(page, after)
    assert page.evaluate("() => window.__said") == [session["prompt"], records.join(after["told"]), after["prompt"]]
    page.screenshot(path=str(output_dir / "read-aloud-on.png"))
    # remembered on this tablet, and in the More panel's Sound tab too
    page.locator("#btn-more").tap()
    page.locator('.sheet-tab[data-tab="cues"]').tap()
    assert page.locator("#cue-read-aloud").is_checked()
    page.locator("#cue-read-aloud").uncheck()
    assert page.locator("#btn-read-aloud").get_attribute("aria-pressed") == "false"
    # the phones never speak: read aloud is the tablet's
    phone.wait_for_function("v => document.body.dataset.version === v", arg=str(after["version"]))
    assert phone.evaluate("() => window.__said") == []
    assert phone.locator("#btn-read-aloud").count() == 0


@pytest.mark.parametrize("case", GAMES, ids=[g.id for g in GAMES])
def test_every_phone_shows_the_outcome_and_then_the_next_game(live_table, page_on, output_dir, case):
    """At 390x844: the seat page of the second player (a real /seat/<token> link) says who
    won and its own place and score once the game ends, and how to join the next game."""
    table = live_table.table
    table.start(case.id, case.players, seed=case.seed)
    status, seats = live_table.call("GET", "/api/v1/seats")
    assert status == 200, seats
    seat = 1
    phone = page_on(seats["seats"][seat]["url"], PHONE, ready="body[data-version]")
    winner = next(s for s in case.steps if s.name in ("winner", "bolt"))      # the game over (Zaubercocktail: a bolt)
    session = winner.reach(table, random.Random(case.seed))
    phone.wait_for_function("v => document.body.dataset.version === v && document.body.dataset.over === 'yes'",
                            arg=str(session["version"]))
    box = phone.locator("#seat-outcome")
    text = box.inner_text()
    outcome = session["outcome"]
    assert outcome["message"].rstrip(".")[:40] in text
    mine = next(r for r in outcome["ranking"] if r["seat"] == seat)
    own = phone.locator("#seat-outcome-mine").inner_text()
    assert own.startswith(f"{case.players[seat]}: {mine['place']}") and outcome["results"][seat] in own
    assert ("You won!" in text) == (seat in outcome["winners"])
    assert phone.locator(".seat-standings li").count() == len(case.players)
    top = box.bounding_box()
    assert top["y"] < PHONE[1] / 2 and top["width"] <= PHONE[0], top                # first thing on the phone
    scroll = phone.evaluate("() => document.documentElement.scrollWidth")
    assert scroll <= PHONE[0], f"the phone scrolls sideways: {scroll}"
    if case.id == "zaubercocktail":                 # after the Magic Bolt: no lay-down helper any more
        assert phone.locator("#phone-pad").is_hidden() and phone.locator(".zc-secret").is_hidden()
    phone.screenshot(path=str(output_dir / f"phone-end-{case.id}.png"), full_page=True)
    # the tablet starts the next game: the phone says so, which game, and where to join
    nxt = table.start("mix-it", ["Ann", "Ben"], seed=1)
    phone.wait_for_selector("#seat-next")
    assert "Next game: Mix It" in phone.locator("#seat-next").inner_text()
    assert phone.locator("#seat-next-join").get_attribute("href") == "/join"
    assert phone.locator("#seat-outcome").count() == 1          # the last game's result stays under it
    assert phone.locator(".seat-outcome-next").count() == 0     # ("when the tablet starts the next game…": it has)
    if phone.locator("#conn").count():                          # nothing more to follow on this link
        assert phone.locator("#conn").get_attribute("data-state") == "ended"
    phone.screenshot(path=str(output_dir / f"phone-next-{case.id}.png"), full_page=True)
    assert nxt["id"] > session["id"]


def test_the_cocktail_phone_confirms_a_lay_down_where_no_toast_covers_it(live_table, page_on, output_dir):
    table = live_table.table
    table.start("zaubercocktail", ["Ann", "Ben", "Cleo", "Dan"], seed=3)
    status, seats = live_table.call("GET", "/api/v1/seats")
    phone = page_on(seats["seats"][0]["url"], PHONE, ready="body[data-ready=yes]")
    for action in ({"type": "reveal"}, {"type": "drop_out", "seat": 0}):
        session = table.act(action)
    phone.wait_for_function("v => document.body.dataset.version === v", arg=str(session["version"]))
    assert "You may lay down now" in phone.locator("#phone-status").inner_text()
    for _ in range(3):
        phone.locator('[data-testid="hand-troll_hair"] .zc-step.plus').tap()
    phone.locator(".zc-send").first.tap()
    phone.wait_for_function("() => document.querySelector('#phone-status').textContent.startsWith('Sent:')")
    status_box = phone.locator("#phone-status").bounding_box()
    toasts = phone.evaluate("""() => [...document.querySelectorAll('.toast')].map((t) => {
        const r = t.getBoundingClientRect(); return [r.top, r.bottom]; })""")
    assert all(bottom <= status_box["y"] or top >= status_box["y"] + status_box["height"] for top, bottom in toasts)
    assert status_box["y"] >= 0 and status_box["y"] + status_box["height"] <= PHONE[1]
    assert "hidden until the host reveals all" in phone.locator("#phone-status").inner_text()
    phone.screenshot(path=str(output_dir / "phone-sent.png"))
