"""Every game's every screen at every size a family brings to the table.

Sizes: a phone (390×844), a portrait tablet (768×1024), a landscape tablet (1024×768),
a wider tablet (1280×800) and a TV (1920×1080). Screens: the start form, play, the
hidden lay-down entry, round results and the winner. For each size × game one page
walks through the game's screens (the table is driven from Python, as the sensors and
other tablets would) and at each screen asserts: nothing cut off, ellipsised, off the
side or unreachable by scrolling, every control >= 48 px and none overlapping, and axe-core
finds no serious or critical violation. At the phone size a game with secrets is also
checked on the first player's own seat page (/seat/<token>, the game's phone.js) at every
screen. A screenshot per screen goes to test-output/<test>/<screen>.png (seat-<screen>.png).

A new game joins by adding one entry to GAMES (its players and its screens).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

from tests.e2e.layout_checks import axe_problems, problems

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = {"phone": (390, 844), "portrait": (768, 1024), "tablet": (1024, 768),
         "wide": (1280, 800), "tv": (1920, 1080)}

Session = dict[str, Any]
Reach = Callable[[Any, random.Random], Session]


def play(table, rng: random.Random, until: Callable[[Session], bool], *, prefer: tuple[str, ...] = (),
         avoid: tuple[str, ...] = ("undo",), limit: int = 5000) -> Session:
    """Legal actions (the ``prefer`` types first, else random) until ``until(session)``."""
    for _ in range(limit):
        session = table.session()
        if until(session):
            return session
        legal = list(session["legal_actions"])
        # what a player may do from their own seat too (a Zaubercocktail lay-down), once each
        for seat in range(len(session["players"])):
            legal += [a for a in table.session(seat)["private"]["legal_actions"] if a not in legal]
        legal = [a for a in legal if a["type"] not in avoid]
        # one lay-down per player (the sampled ones would otherwise be re-entered forever)
        entered = {p["seat"] for p in session["state"].get("players", []) if isinstance(p, dict) and p.get("entered")}
        legal = [a for a in legal if not (a["type"] == "lay_down" and a["seat"] in entered)]
        chosen = next(([a for a in legal if a["type"] == t] for t in prefer
                       if any(a["type"] == t for a in legal)), legal)
        table.act(rng.choice(chosen), source="player")
    raise AssertionError(f"never reached the screen; stuck in {table.session()['state'].get('phase')}")


def play_by(chooser: Callable[[Any, random.Random], dict[str, Any]], until: Callable[[Any], bool],
            limit: int = 5000) -> Reach:
    """For games whose players act from their phones too (secret actions): the engine
    tests' quick player picks from everything any seat may do, looking at the state."""
    def reach(table, rng: random.Random) -> Session:
        for _ in range(limit):
            state = table.inspect(lambda engine, state: state)
            if until(state):
                return table.session()
            table.act(chooser(state, rng), source="player")
        raise AssertionError("never reached the screen")
    return reach


def phase_is(*phases: str) -> Callable[[Session], bool]:
    return lambda s: s["state"].get("phase") in phases


def over(s: Session) -> bool:
    return s["outcome"] is not None


@dataclass
class Screen:
    name: str
    reach: Reach                                   # drive the table to this screen
    open: Callable[[Any], None] | None = None      # then a tap on the page (e.g. open the entry)


@dataclass
class GameCase:
    id: str
    players: list[str]
    seed: int
    screens: list[Screen] = field(default_factory=list)
    standings: str = ""            # on the winner screen: one row per player (the winner's own line aside)
    standings_rows: int = 0
    seat_ready: str = ""           # a game with secrets: its seat page, checked too at the phone size
    seat_live: bool = True         # the seat page follows the table (else: checked once, at the first screen)


def _mirakel_play(table, rng):
    return play(table, rng, lambda s: s["state"]["phase"] == "move" and s["version"] > 30)


def _cocktail_entry(page) -> None:
    page.locator('.zc-enter[data-seat="6"]').first.tap()
    page.wait_for_selector('#zc-modal[data-kind="entry"]')


def _cocktail_results(table, rng):
    return play(table, rng, phase_is("scored"), prefer=("reveal", "drop_out", "lay_down", "reveal_entries"),
                avoid=("undo", "false_trader"))


def _wald_to(until):
    # a game by script (empty baskets, no "stop!") reaches the end in a few hundred actions
    prefer = ("turn", "floor_turned", "end_search", "basket", "return_ingredients", "choose_tile")
    return lambda table, rng: play(table, rng, until, prefer=prefer)


def _mix_it(until: Callable[[Any], bool]) -> Reach:
    from tests.games.mix_it_support import choose
    return play_by(lambda state, rng: choose(state, rng), until)


def _elixir(until: Callable[[Any], bool]) -> Reach:
    from tests.games.elixir_support import all_actions, choose
    return play_by(lambda state, rng: choose(rng, state, all_actions(state)), until)


def _elixir_can(kind: str) -> Callable[[Any], bool]:
    from controller.games.elixir.engine import Elixir
    game = Elixir()
    return lambda state: any(a["type"] == kind for a in game.legal_actions(state))


GAMES = [
    GameCase("mirakel-mix", ["Annabelle", "Benjamin", "Charlotte", "Dominik"], seed=5, screens=[
        Screen("play", _mirakel_play),
        Screen("winner", lambda t, rng: play(t, rng, over)),
    ], standings=".outcome-ranking .outcome-place", standings_rows=3),
    GameCase("zaubercocktail", ["Annabelle", "Benjamin", "Charlotte", "Dominik", "Emilia", "Friedrich", "Gabriele"],
             seed=3, screens=[
        Screen("play", lambda t, rng: play(t, rng, phase_is("trading"), prefer=("reveal",))),
        Screen("entry", lambda t, rng: play(t, rng, phase_is("laying"), prefer=("drop_out",)), open=_cocktail_entry),
        Screen("results", _cocktail_results),
        Screen("winner", lambda t, rng: play(t, rng, over, prefer=("reveal", "drop_out", "lay_down", "reveal_entries"),
                                             avoid=("undo", "false_trader"))),
    ], standings="#zc-standings .zc-standing", standings_rows=7, seat_ready="#phone-pad button", seat_live=False),
    GameCase("zauberwald", ["Annabelle", "Benjamin", "Charlotte", "Dominik"], seed=9, screens=[
        Screen("play", _wald_to(phase_is("search"))),
        Screen("results", _wald_to(phase_is("check"))),
        Screen("winner", _wald_to(over)),
    ], standings=".zw-scores tbody tr", standings_rows=4),
    GameCase("mix-it", ["Annabelle", "Benjamin", "Charlotte", "Dominik", "Emilia"], seed=4, screens=[
        Screen("play", _mix_it(lambda s: s["locked"] is not None and s["step"] > 6)),
        Screen("monster", _mix_it(lambda s: bool(s["claims"]))),
        Screen("winner", _mix_it(lambda s: bool(s["winners"]))),
    ], standings="#mi-standings .mi-standing", standings_rows=5, seat_ready="#mi-phone"),
    GameCase("elixir", ["Annabelle", "Benjamin", "Charlotte", "Dominik"], seed=22, screens=[
        Screen("opening", _elixir(lambda s: True)),
        Screen("play", _elixir(lambda s: s["step"] == "move" and s["round"] > 1)),
        Screen("unknown", _elixir(lambda s: bool(s["pending"]) and s["pending"]["kind"] == "offer")),
        Screen("brew", _elixir(_elixir_can("brew"))),
        Screen("winner", _elixir(lambda s: s["winner"] is not None)),
    ], standings="#ex-standings .ex-standing", standings_rows=4, seat_ready="#exp"),
]


def check(page, output_dir, screen: str, size_name: str) -> list[str]:
    page.wait_for_timeout(120)             # let a resize-driven redraw (the cave map) settle
    page.screenshot(path=str(output_dir / f"{screen}.png"), animations="disabled")
    found = [f"{size_name} {screen}: {p}" for p in problems(page)]
    found += [f"{size_name} {screen}: axe {p}" for p in axe_problems(page)]
    return found


@pytest.mark.parametrize("size_name", list(SIZES))
@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_every_screen_fits(browser, live_table, output_dir, game: GameCase, size_name: str):
    width, height = SIZES[size_name]
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(60_000)          # a ceiling for a loaded machine, never a measurement
        page.goto(live_table.url)
        page.wait_for_selector("body[data-ready=yes]")
        found: list[str] = []

        # the start form with this game chosen and its names typed
        page.locator(f'.game-option:has(input[value="{game.id}"])').tap()
        fields = page.locator('#name-fields input[name="player"]')
        for i, name in enumerate(game.players):
            fields.nth(i).fill(name)
        found += check(page, output_dir, "start", size_name)

        table = live_table.table
        rng = random.Random(game.seed)
        table.start(game.id, game.players, seed=game.seed)
        # at the phone size, the first player's own phone too: the real /seat/<token> page
        phone = None
        if size_name == "phone" and game.seat_ready:
            status, seats = live_table.call("GET", "/api/v1/seats")
            assert status == 200, seats
            phone = context.new_page()
            phone.on("pageerror", lambda exc: errors.append(str(exc)))
            phone.set_default_timeout(60_000)
            phone.goto(seats["seats"][0]["url"])
            phone.wait_for_selector(game.seat_ready)
        for screen in game.screens:
            session = screen.reach(table, rng)
            page.wait_for_function("([id, v]) => document.body.dataset.game === id && document.body.dataset.version === v",
                                   arg=[str(session["id"]), str(session["version"])])
            if screen.open:
                screen.open(page)
            found += check(page, output_dir, screen.name, size_name)
            if phone is not None and (game.seat_live or screen is game.screens[0]):
                if game.seat_live:
                    phone.wait_for_function("v => document.body.dataset.version === v", arg=str(session["version"]))
                found += check(phone, output_dir, f"seat-{screen.name}", size_name)
            if screen.name == "winner":
                # the final standings: a row per player, every name readable on the screen
                assert page.locator(game.standings).count() == game.standings_rows
                shown = page.locator("#game-view").inner_text()
                assert all(name in shown for name in game.players), shown
        assert not errors, f"the page reported errors: {errors}"
        assert not found, "\n".join(found)
    finally:
        context.close()
