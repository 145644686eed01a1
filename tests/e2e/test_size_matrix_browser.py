"""Every game's every step at every size a family brings to the table.

Sizes: a phone (390×844), two portrait tablets (768×1024, 800×1280), two landscape ones
(1024×768, 1280×800) and a TV (1920×1080). Steps: every kind of step a family meets in
each game (GAMES below: the start form, each game's own steps, the winner), reached by
driving the table from Python as the sensors, phones and other tablets would (a step whose
set-up would take many taps is driven straight to). One page per game follows the whole
game; at each step it is resized through every size, and at each size it asserts:

- nothing cut off, ellipsised, off the side or unreachable by scrolling, no panel that
  scrolls sideways, every control >= 48 px and none overlapping (``problems``);
- on a tablet (the four tablet sizes and the TV) every enabled control of the step (the
  open dialog's, else the board's and the top bar's, read from the page, so a new button
  is checked without a word here) is whole on the screen without scrolling and not covered
  by anything (``offscreen_controls``); the step's own controls (``Step.controls``) must be
  among them, so a step never passes with nothing to check; and the boxes the table
  watches besides (``Step.panels``: Mirakel Mix's cave, players and cauldron) are whole
  on the screen too;
- one h1 (the prompt), and axe-core finds no serious or critical violation.

At the phone size a game with secrets is also checked on the first player's own seat page
(/seat/<token>, the game's phone.js) at every step. A screenshot per size and step goes to
test-output/<test>/<size>-<step>.png (seat-<step>.png for the phone's seat page).

A new game joins by adding one entry to GAMES (its players and its steps).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

from tests.e2e.layout_checks import axe_problems, offscreen_controls, problems, scroll_home

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = {"phone": (390, 844), "portrait": (768, 1024), "portrait-tall": (800, 1280), "tablet": (1024, 768),
         "wide": (1280, 800), "tv": (1920, 1080)}
# where every control of the step must be on the screen at once (a phone's board scrolls)
WHOLE_STEP = ("portrait", "portrait-tall", "tablet", "wide", "tv")

State = dict[str, Any]
Aim = Callable[[Any, State], bool]                 # (engine, state) -> there yet?
Chooser = Callable[[Any, State, random.Random], dict[str, Any]]
Reach = Callable[[Any, random.Random], dict[str, Any]]


def legal_chooser(prefer: tuple[str, ...] = (), avoid: tuple[str, ...] = ("undo",)) -> Chooser:
    """The table's legal actions: the ``prefer`` types first (in that order), else any."""
    def choose(engine, state: State, rng: random.Random) -> dict[str, Any]:
        legal = [a for a in engine.legal_actions(state) if a["type"] not in avoid]
        chosen = next(([a for a in legal if a["type"] == t] for t in prefer if any(a["type"] == t for a in legal)), legal)
        assert chosen, f"nobody can act: {engine.prompt(state)}"
        return rng.choice(chosen)
    return choose


def drive(aim: Aim, chooser: Chooser, *, seek: Callable[[Any, State], list[dict[str, Any]]] | None = None,
          limit: int = 5000) -> Reach:
    """Act (``chooser``'s pick) until ``aim`` holds. With ``seek`` (the actions to try), an
    action that gets there at once is taken first: a rare step is reached on purpose, not
    by waiting for luck."""
    def reach(table, rng: random.Random) -> dict[str, Any]:
        for _ in range(limit):
            def look(engine, state):
                if aim(engine, state):
                    return True, None
                for a in (seek(engine, state) if seek else []):
                    try:
                        if aim(engine, engine.apply(state, a)[0]):
                            return False, a
                    except Exception:          # an action the sampler offered that the rules refuse
                        continue
                return False, chooser(engine, state, rng)
            there, action = table.inspect(look)
            if there:
                return table.session()
            table.act(action, source="player")
        raise AssertionError(f"never reached the step; stuck at {table.session()['prompt']}")
    return reach


def play(table, rng: random.Random, until: Callable[[dict[str, Any]], bool], *, prefer: tuple[str, ...] = (),
         avoid: tuple[str, ...] = ("undo",), limit: int = 5000) -> dict[str, Any]:
    """For the other browser tests: legal actions (the ``prefer`` types first, else random)
    until ``until(session)``."""
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
    raise AssertionError(f"never reached the moment; stuck in {table.session()['state'].get('phase')}")


def play_by(chooser: Callable[[Any, random.Random], dict[str, Any]], until: Callable[[Any], bool]) -> Reach:
    """For the other browser tests: ``chooser(state, rng)`` (the engine tests' quick player,
    any seat's action) until ``until(state)``."""
    return drive(lambda engine, state: until(state), lambda engine, state, rng: chooser(state, rng))


def phase_is(*phases: str) -> Aim:
    return lambda engine, state: state.get("phase") in phases


def over(engine, state: State) -> bool:
    return engine.outcome(state) is not None


def legal(engine, state: State) -> list[dict[str, Any]]:
    return engine.legal_actions(state)


def tap(selector: str, times: int = 1) -> Callable[[Any], None]:
    """A tap on the page (the first enabled match), by a click event: no scrolling, no
    waiting for it to be free, since whether it is on the screen is what is checked."""
    def open_(page) -> None:
        for _ in range(times):
            page.locator(f"{selector}:not([disabled])").first.dispatch_event("click")
    return open_


@dataclass
class Step:
    name: str
    reach: Reach                                   # drive the table to this step
    controls: str | tuple[str, ...]                # its own controls: each selector matches one shown, enabled
    open: Callable[[Any], None] | None = None      # then taps on the page (a chip, a dialog)
    seat_open: Callable[[Any], None] | None = None  # and on the phone's seat page
    game: dict[str, Any] | None = None             # a new game first: table.start's options
    panels: tuple[str, ...] = ()                   # boxes whole on the screen too, at every tablet size


@dataclass
class GameCase:
    id: str
    players: list[str]
    seed: int
    steps: list[Step] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    standings: str = ""            # on the winner screen: one row per player (the winner's own line aside)
    standings_rows: int = 0
    seat_ready: str = ""           # a game with secrets: its seat page, checked too at the phone size
    seat_live: bool = True         # the seat page follows the table (else: checked once, at the first step)
    simulated: bool = True         # simulated devices (False: a real cauldron's table, without the sim panel)


# --- Mirakel Mix: drops, the apprentices' start, bowls, disks, moves, walls, swaps, the end ---------
def _mirakel(aim: Aim, *, seek: bool = False) -> Reach:
    return drive(aim, legal_chooser(), seek=legal if seek else None)


def _mirakel_can(kind: str, spend: bool = False) -> Aim:
    return lambda engine, state: any(a["type"] == kind and (not spend or a.get("spend"))
                                     for a in engine.legal_actions(state))


# what the table watches besides the step's buttons: where the apprentices are, what each
# player holds and what is left in the cauldron (on a portrait tablet too)
_MIRAKEL_PANELS = (".cave", ".players", "#cauldron")


def _bowl_full(engine, state: State) -> bool:
    return state.get("phase") == "fill_bowls" and any(engine.view(state)["bowls"][i]["drops"] for i in range(3))


# --- Zaubercocktail: reveal, trading, the hidden lay-down, results, the Magic Bolt ------------------
def _cocktail_chooser(engine, state: State, rng: random.Random) -> dict[str, Any]:
    # the table's actions and each player's lay-downs (entered from their own seat), one
    # per player (the sampled ones would otherwise be re-entered forever); the printed
    # deck's Magic Bolt only when sought (it ends the game)
    entries = state["round"]["entries"]
    pick = legal_chooser(prefer=("reveal", "drop_out", "lay_down", "reveal_entries"), avoid=("undo", "false_trader"))
    lay_downs = [a for seat, entry in enumerate(entries) if entry is None for a in engine.lay_downs(state, seat)]
    legal_now = [a for a in [*engine.legal_actions(state), *lay_downs]
                 if not (a["type"] == "reveal" and a.get("card") == engine.bolt["id"])]
    return pick(_Only(engine, legal_now), state, rng)


class _Only:
    """An engine whose legal actions are the given ones (a chooser's filter)."""

    def __init__(self, engine, actions):
        self.engine, self.actions = engine, actions

    def legal_actions(self, state):
        return self.actions

    def prompt(self, state):
        return self.engine.prompt(state)


def cocktail_play(aim: Aim, *, seek: bool = False) -> Reach:
    """Zaubercocktail played until ``aim`` (other browser tests set their screen up with it)."""
    return drive(aim, _cocktail_chooser, seek=legal if seek else None)


def _everyone_entered(engine, state: State) -> bool:
    return state["phase"] == "laying" and all(e is not None for e in state["round"]["entries"])


def _bolt(engine, state: State) -> bool:
    """The Magic Bolt turned over, after a few rounds were scored."""
    out = engine.outcome(state)
    return out is not None and out.reason == "magic_bolt" and len(state["history"]) >= 2


def _cocktail_entry(page) -> None:
    page.locator('.zc-enter[data-seat="6"]').first.dispatch_event("click")
    page.wait_for_selector('#zc-modal[data-kind="entry"]')


def _cocktail_entry_closed(page) -> None:
    """The entry left open at the step before: cancelled (nothing of it stays on the page)."""
    modal = page.locator('#zc-modal[data-kind="entry"]')
    if modal.count():
        modal.locator("button.quiet").first.dispatch_event("click")
        page.wait_for_selector("#zc-modal", state="hidden")


# --- Im großen Zauberwald: cards, tile, turn, the search, three basket checks, penalty, stop!, end --
_WALD = legal_chooser(prefer=("enter_card", "turn", "floor_turned", "end_search", "basket", "return_ingredients",
                              "choose_tile"))


def wald_play(aim: Aim, *, seek: bool = False) -> Reach:
    """Zauberwald played by script (empty baskets, no "stop!" unless sought) until ``aim``:
    the end comes in a few hundred actions (other browser tests use it for a finished game)."""
    return drive(aim, _WALD, seek=_wald_baskets if seek else None)


def _checking(left: int) -> Aim:
    """The basket check with ``left`` baskets still to check (the first: the master's)."""
    return lambda engine, state: state["phase"] == "check" and len(state["round"]["to_check"]) == left


def _wald_baskets(engine, state: State) -> list[dict[str, Any]]:
    """The legal actions, and in a check every basket of two ingredients (one right, one
    wrong makes the penalty the sampled baskets seldom give)."""
    out = engine.legal_actions(state)
    if state["phase"] == "check":
        seat = state["round"]["to_check"][0]
        out += [{"type": "basket", "seat": seat, "ingredients": {a: 1, b: 1} if a != b else {a: 2}}
                for a in engine.colours for b in engine.colours]
    return out


def _called_stop(engine, state: State) -> bool:
    return state["phase"] == "check" and bool(state["round"]["stoppers"])


# --- Mix It: moves on the tablet, places and goal changes on the phones, MONSTER!, Express ---------
def _mix_it(aim: Aim, *, seek: bool = False) -> Reach:
    from tests.games.mix_it_support import choose, every_action
    return drive(aim, lambda engine, state, rng: choose(state, rng),
                 seek=(lambda engine, state: every_action(state)) if seek else None)


def _mix_it_turn(min_step: int) -> Aim:
    """The first player's turn, the card moved last locked, nobody shouting."""
    return lambda engine, state: state["turn"] == 0 and not state["claims"] and state["step"] >= min_step \
        and state["locked"] is not None


# --- Elixir: the opening roll, moves, shops, Unknowns, experiments, rolls, the end ------------------
def _elixir(aim: Aim, *, seek: bool = False) -> Reach:
    from tests.games.elixir_support import all_actions, choose
    return drive(aim, lambda engine, state, rng: choose(rng, state, all_actions(state)),
                 seek=(lambda engine, state: all_actions(state)) if seek else None)


def _elixir_can(kind: str, *, step: str | None = None) -> Aim:
    return lambda engine, state: (step is None or state["step"] == step) and state["pending"] is None \
        and any(a["type"] == kind for a in engine.legal_actions(state))


def _pending(kind: str, **fields: Any) -> Aim:
    return lambda engine, state: bool(state["pending"]) and state["pending"]["kind"] == kind \
        and all(state["pending"].get(k) == v for k, v in fields.items())


def _composer(page) -> None:
    """The experiment set out on the tablet: a gemstone, a herb and a special product."""
    for which in ("gem", "herb", "special"):
        page.locator(f'#ex-brew [data-brew="{which}"]').first.dispatch_event("click")


GAMES = [
    GameCase("mirakel-mix", ["Annabelle", "Benjamin", "Charlotte", "Dominik"], seed=5, steps=[
        # a real cauldron's drops need no tap; without a sensor, the colour that fell
        Step("drops", _mirakel(_bowl_full), ".manual-drop .colour-button", open=tap(".manual-drop summary"),
             panels=_MIRAKEL_PANELS),
        Step("start-space", _mirakel(phase_is("place_apprentices")), ".cave-space[role=button]", panels=_MIRAKEL_PANELS),
        Step("bowls", _mirakel(phase_is("choose_bowl")), ".bowl.legal", panels=_MIRAKEL_PANELS),
        Step("disk", _mirakel(phase_is("place_disk")), ".space.legal", panels=_MIRAKEL_PANELS),
        Step("move", _mirakel(phase_is("move")), ".move-option", panels=(".cave", ".players")),
        # a move that gives up potion cards to cross a wall, and a place swap
        Step("wall-and-swap", _mirakel(lambda e, s: _mirakel_can("move", spend=True)(e, s)
                                       and _mirakel_can("place_swap")(e, s), seek=True),
             (".move-option:has(.move-spend)", ".swap-option")),
        Step("winner", _mirakel(over), "#btn-play-again"),
    ], standings=".outcome-ranking .outcome-place", standings_rows=3, simulated=False),
    GameCase("zaubercocktail", ["Annabelle", "Benjamin", "Charlotte", "Dominik", "Emilia", "Friedrich", "Gabriele"],
             seed=3, steps=[
        Step("reveal", cocktail_play(phase_is("reveal")), "#zc-reveal"),
        Step("trading", cocktail_play(phase_is("trading")), ".zc-drop"),
        Step("entry", cocktail_play(phase_is("laying")), "#zc-modal button", open=_cocktail_entry),
        Step("laying", cocktail_play(_everyone_entered), "#zc-reveal-entries", open=_cocktail_entry_closed),
        Step("results", cocktail_play(phase_is("scored")), "#zc-reveal"),
        Step("printed-deck", cocktail_play(phase_is("reveal")), ".zc-pick-card", game={"deck": "physical"}),
        Step("bolt", cocktail_play(_bolt, seek=True), "#btn-new-game"),
    ], standings="#zc-standings .zc-standing", standings_rows=7, seat_ready="#phone-pad button", seat_live=False),
    GameCase("zauberwald", ["Annabelle", "Benjamin", "Charlotte", "Dominik"], seed=9, options={"cards": "physical"}, steps=[
        Step("cards", wald_play(phase_is("cards")), "#zw-enter-card", open=tap(".zw-add", 7)),
        Step("tile", wald_play(phase_is("choose")), ".zw-tile"),
        Step("turn", wald_play(phase_is("turn")), "#zw-turn", open=tap(".zw-direction")),
        Step("by-hand", wald_play(phase_is("turning")), "#zw-done"),
        Step("search", wald_play(phase_is("search")), ".zw-end"),
        Step("check-1", wald_play(_checking(4)), "#zw-check", open=tap(".zw-add")),
        Step("check-2", wald_play(_checking(3)), "#zw-check", open=tap(".zw-add", 2)),
        Step("check-3", wald_play(_checking(2)), "#zw-check"),
        Step("penalty", wald_play(phase_is("penalty"), seek=True), ".zw-penalty"),
        Step("stop", wald_play(_called_stop, seek=True), "#zw-check"),
        Step("winner", wald_play(over), ".zw .big-button.go"),
    ], standings=".zw-scores tbody tr", standings_rows=4),
    GameCase("mix-it", ["Annabelle", "Benjamin", "Charlotte", "Dominik", "Emilia"], seed=4, steps=[
        # the first player's turn: a card to move on the tablet; on the phone a card picked to place
        Step("move", _mix_it(_mix_it_turn(6)), ".mi-slot.movable", seat_open=tap(".mi-hand-card")),
        Step("claim", _mix_it(lambda e, s: bool(s["claims"])), "#mi-confirm", panels=(".mi-players",)),  # every cookie row
        Step("winner", _mix_it(lambda e, s: bool(s["winners"])), "#mi-new-game"),
        Step("express", _mix_it(lambda e, s: s["step"] >= 2), "[data-place]", game={"variant": "express"}),
    ], standings="#mi-standings .mi-standing", standings_rows=5, seat_ready="#mi-phone"),
    GameCase("elixir", ["Annabelle", "Benjamin", "Charlotte", "Dominik"], seed=22, options={"dice": "physical"}, steps=[
        Step("opening", _elixir(lambda e, s: True), ".ex-pip"),
        Step("move", _elixir(lambda e, s: s["step"] == "move" and s["round"] > 1 and s["pending"] is None), ".ex-place"),
        Step("buy", _elixir(_elixir_can("buy")), ".ex-buy"),
        Step("unknown", _elixir(_pending("offer"), seek=True), "#ex-do .big-button"),
        Step("experiment", _elixir(_elixir_can("brew")), '#ex-brew [data-action="brew"]', open=_composer),
        Step("roll", _elixir(_pending("roll", **{"for": "brew"}), seek=True), ".ex-pip"),
        Step("winner", _elixir(lambda e, s: s["winner"] is not None), "#ex-winner .big-button"),
    ], standings="#ex-standings .ex-standing", standings_rows=4, seat_ready="#exp"),
]


def settle(page) -> None:
    """Two frames: a resize's layout and any redraw it starts (the cave map) are done."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def check(page, output_dir, step: str, size_name: str, controls: str | tuple[str, ...] | None = None,
          panels: tuple[str, ...] = ()) -> list[str]:
    scroll_home(page)
    settle(page)
    page.screenshot(path=str(output_dir / f"{size_name}-{step}.png"), animations="disabled")
    found = [f"{size_name} {step}: {p}" for p in problems(page)]
    # one heading a screen reader starts from: the prompt, what the table does now
    headings = page.evaluate("() => [...document.querySelectorAll('h1')].filter((h) => h.getClientRects().length).map((h) => h.innerText)")
    if len(headings) != 1:
        found.append(f"{size_name} {step}: {len(headings)} h1 headings, not one: {headings}")
    if controls is not None:
        found += [f"{size_name} {step}: {p}" for p in offscreen_controls(page, controls, panels)]
    found += [f"{size_name} {step}: axe {p}" for p in axe_problems(page)]
    return found


def at_every_size(page, output_dir, step: str, controls: str | tuple[str, ...], panels: tuple[str, ...] = ()) -> list[str]:
    found: list[str] = []
    for size_name, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        whole = size_name in WHOLE_STEP
        found += check(page, output_dir, step, size_name, controls if whole else None, panels if whole else ())
    return found


@pytest.fixture
def table_for(tmp_path):
    """table_for(simulated) → a live table on simulated devices, or on a real cauldron's
    (no sim panel on the page: what a family with the hardware sees)."""
    from controller.store import Store
    from controller.table import Table
    from tests.e2e.conftest import LiveTable
    from tests.web.helpers import RealCauldronHub, sim_hub

    made = []

    def make(simulated: bool) -> LiveTable:
        store = Store(tmp_path / "table.sqlite3")
        table = Table(store)
        hub = sim_hub(table, seed=11) if simulated else RealCauldronHub()
        live = LiveTable.start(table, hub)
        made.append((live, hub, store))
        return live

    yield make
    for live, hub, store in made:
        live.stop()
        hub.close()
        store.close()


# a whole game walked at six sizes (about a minute on an idle core): a ceiling for a loaded
# machine, never a measurement
@pytest.mark.timeout(900)
@pytest.mark.parametrize("game", GAMES, ids=[g.id for g in GAMES])
def test_every_step_fits(browser, table_for, output_dir, game: GameCase):
    live_table = table_for(game.simulated)
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(60_000)          # a ceiling for a loaded machine, never a measurement
        page.goto(live_table.url)
        page.wait_for_selector("body[data-ready=yes]")

        # the start form with this game chosen and its names typed
        page.locator(f'.game-option:has(input[value="{game.id}"])').dispatch_event("click")
        fields = page.locator('#name-fields input[name="player"]')
        for i, name in enumerate(game.players):
            fields.nth(i).fill(name)
        found = at_every_size(page, output_dir, "start", "#btn-start")

        table = live_table.table
        rng = random.Random(game.seed)
        phone = None
        for step in [Step("", lambda t, r: {}, "", game=game.options)] + game.steps:
            if step.game is not None:
                table.start(game.id, game.players, seed=game.seed, options=step.game)
                phone = seat_page(context, live_table, game, errors) if game.seat_ready else None
            if not step.name:
                continue
            session = step.reach(table, rng)
            page.wait_for_function("([id, v]) => document.body.dataset.game === id && document.body.dataset.version === v",
                                   arg=[str(session["id"]), str(session["version"])])
            if step.open:
                step.open(page)
            found += at_every_size(page, output_dir, step.name, step.controls, step.panels)
            if phone is not None and (game.seat_live or step is game.steps[0]):
                if game.seat_live:
                    phone.wait_for_function("v => document.body.dataset.version === v", arg=str(session["version"]))
                if step.seat_open:
                    step.seat_open(phone)
                found += check(phone, output_dir, f"seat-{step.name}", "phone")
            if session["outcome"] is not None and step.game is None:
                # the final standings: a row per player, every name readable on the screen
                assert page.locator(game.standings).count() == game.standings_rows
                shown = page.locator("#game-view").inner_text()
                assert all(name in shown for name in game.players), shown
        assert not errors, f"the page reported errors: {errors}"
        assert not found, "\n".join(found)
    finally:
        context.close()


def seat_page(context, live_table, game: GameCase, errors: list[str]):
    """The first player's own phone: the real /seat/<token> page, at the phone size."""
    status, seats = live_table.call("GET", "/api/v1/seats")
    assert status == 200, seats
    phone = context.new_page()
    phone.set_viewport_size({"width": SIZES["phone"][0], "height": SIZES["phone"][1]})
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    phone.set_default_timeout(60_000)
    phone.goto(seats["seats"][0]["url"])
    phone.wait_for_selector(game.seat_ready)
    return phone
