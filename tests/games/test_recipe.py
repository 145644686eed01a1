"""The game recipe of docs/architecture.md, followed step by step: a throwaway sixth game,
Bean Pot, written into a temporary folder that joins ``controller.games`` as if it sat
there. The daemon (sim devices, its own data dir, a real HTTP server) must find it, load
it, serve its tablet files, play it to its end, export it to BG Stats and resume it after a
restart, and the packaging must install every file the recipe names."""
from __future__ import annotations

import glob
import http.client
import json
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import controller.games
from controller import games
from controller.config import Config
from controller.daemon import Daemon

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "bean_pot"

# --- the recipe's steps, one file each -------------------------------------------------------------
STEPS = {
    # 2. the data first, with the [players] table
    "data.toml": """
        target = 7          # beans in your pot to win
        short_target = 4    # the short game's
        [players]
        min = 2
        max = 3
    """,
    # 3. the plug-in: who the game is, said once
    "__init__.py": """
        from .. import Plugin, Toggle
        PLUGIN = Plugin(id="bean-pot", name="Bean Pot", engine="engine:BeanPot",
                        settings_legend="Length",
                        toggles=(Toggle("short", True, "Short game", "the first to 4 beans wins"),))
        __getattr__ = PLUGIN.exports
    """,
    # 4. the engine: fields and options declared, one handler, prompt, view, outcome
    "engine.py": """
        from controller.games.base import SEAT, Flag, Game, IllegalAction, Outcome, Whole, new_rng_state

        class BeanPot(Game):
            undoable = frozenset({"add"})
            options = {"short": Flag("the first to the short target wins", default=False)}

            def fields(self):
                return {"add": {"seat": SEAT, "beans": Whole(1, 3, "beans into your pot in one go")}}

            def setup(self, players, seed, options=None):
                self.check_players(players)
                options = self.read_options(options, players)
                target = self.data["short_target" if options["short"] else "target"]
                return {"players": list(players), "options": options, "rng": new_rng_state(seed),
                        "pots": [0] * len(players), "turn": 0, "target": target, "undo": []}

            def _do_add(self, state, action):
                if action["seat"] != state["turn"]:
                    raise IllegalAction(f"it is {state['players'][state['turn']]}'s turn")
                state["pots"][action["seat"]] += action["beans"]

            def settle(self, state, kind):
                if self.outcome(state) is None:
                    state["turn"] = (state["turn"] + 1) % len(state["players"])

            def actions(self, state):
                return [{"type": "add", "seat": state["turn"], "beans": n} for n in (1, 2, 3)]

            def prompt(self, state):
                over = self.outcome(state)
                return over.message if over else f"{state['players'][state['turn']]}: add 1 to 3 beans"

            def view(self, state, seat=None):
                return {"pots": list(state["pots"]), "turn": state["turn"], "target": state["target"]}

            def outcome(self, state):
                full = [s for s, n in enumerate(state["pots"]) if n >= state["target"]]
                if not full:
                    return None
                return Outcome(winners=tuple(full), reason="full_pot",
                               message=f"{state['players'][full[0]]}'s pot is full",
                               ranking=Outcome.rank(state["pots"]), details={"beans": list(state["pots"])})
    """,
    # 5. words for the log and the Rules tab
    "log.toml": """
        [actions]
        add = "{player} added {beans} beans"
    """,
    "quickref.toml": """
        turn = ["Add 1 to 3 beans to your pot."]
        scoring = ["The first pot to reach the target wins."]
    """,
    # 6. how BG Stats files it
    "bgstats.toml": """
        bgg_id = 0
        highest_wins = true
        no_points = false
        cooperative = false
        score = "beans"
    """,
    # 7. the tablet: render(root, session, ctx), its stylesheet, and a picture one folder down
    "static/tablet.js": """
        export function render(root, session, ctx) {
          root.replaceChildren(ctx.el("p.bp-pots", {}, session.state.pots.join(" · ")), ctx.undo);
        }
    """,
    "static/tablet.css": """
        .game-view[data-game="bean-pot"] .bp-pots { font-size: 32px; }
    """,
    "static/img/bean.svg": """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>
    """,
}


@pytest.fixture
def bean_pot(tmp_path, monkeypatch):
    """The recipe's folder, written into a temporary folder that joins controller.games."""
    extra = tmp_path / "games"
    for name, text in STEPS.items():
        path = extra / PACKAGE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    monkeypatch.setattr(controller.games, "__path__", [*controller.games.__path__, str(extra)])
    forget()
    yield extra
    forget()
    for name in [m for m in sys.modules if m.startswith(f"controller.games.{PACKAGE}")]:
        del sys.modules[name]


def forget() -> None:
    """Drop what was read of the installed games (the list, log words, BG Stats settings)."""
    from controller import bgstats, records
    games.plugins.cache_clear()
    records._words.cache_clear()
    bgstats.settings.cache_clear()


class Client:
    """HTTP to the daemon's own server, as a tablet or a script talks to it."""

    def __init__(self, port: int, pin: str):
        self.port, self.pin = port, pin

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {"X-Table-Pin": self.pin, "Content-Type": "application/json"}
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        status, data = self.call(method, path, body)
        return status, json.loads(data)


def serve(data_dir: Path) -> tuple[Daemon, Client]:
    daemon = Daemon(Config.defaults(), sim=True, data_dir=data_dir, say=lambda _: None)
    port = daemon.start("127.0.0.1", 0)
    return daemon, Client(port, daemon.pin)


def test_a_sixth_game_built_by_the_recipe_is_found_served_played_exported_and_resumed(bean_pot, tmp_path):
    # found and loaded: identity from its plug-in, player limits from data.toml
    assert list(games.plugins())[-1] == "bean-pot"              # no order given: after the five
    engine = games.load("bean-pot")
    assert (engine.id, engine.name, engine.min_players, engine.max_players) == ("bean-pot", "Bean Pot", 2, 3)
    from controller.games.bean_pot import BeanPot              # the plug-in's one lazy export
    assert type(engine) is BeanPot

    daemon, client = serve(tmp_path / "data")
    try:
        status, offered = client.json("GET", "/api/v1/games")
        pot = next(g for g in offered if g["id"] == "bean-pot")
        assert pot["min_players"] == 2 and pot["max_players"] == 3 and pot["toggles"][0]["option"] == "short"
        status, page = client.call("GET", "/")
        assert status == 200 and b"Bean Pot" in page             # on the start screen
        # its tablet files, at any depth of static/
        for path, kind in (("tablet.js", b"export function render"), ("tablet.css", b".bp-pots"),
                           ("img/bean.svg", b"<svg")):
            status, body = client.call("GET", f"/games/bean-pot/{path}")
            assert status == 200 and kind in body, path

        # played over HTTP: the start screen's toggle, the declared field, the rules, undo
        status, session = client.json("POST", "/api/v1/session",
                                      {"game": "bean-pot", "players": ["Ann", "Ben"], "options": {"short": True}})
        assert status == 201 and session["state"]["target"] == 4 and session["prompt"] == "Ann: add 1 to 3 beans"

        def act(action: dict) -> tuple[int, dict]:
            return client.json("POST", "/api/v1/session/actions", {"action": action})

        status, error = act({"type": "add", "seat": 0, "beans": 4})
        assert status == 400 and error["error"] == '"beans" must be a whole number from 1 to 3: beans into your pot in one go'
        status, error = act({"type": "add", "seat": 1, "beans": 1})
        assert status == 422 and error["error"] == "it is Ann's turn"
        status, session = act({"type": "add", "seat": 0, "beans": 3})
        assert session["can_undo"] and {"type": "undo"} in session["legal_actions"]
        status, session = act({"type": "undo"})
        assert session["state"]["pots"] == [0, 0] and not session["can_undo"]
        for seat, beans in ((0, 3), (1, 2), (0, 1)):
            status, session = act({"type": "add", "seat": seat, "beans": beans})
        assert session["outcome"]["message"] == "Ann's pot is full" and session["prompt"] == "Ann's pot is full"
        assert session["outcome"]["ranking"][0] == {"seat": 0, "place": 1, "score": 4}

        # its words in the game log and the Rules tab
        status, log = client.json("GET", "/api/v1/session/log")
        assert "Ann added 1 beans" in json.dumps(log)
        status, rules = client.json("GET", "/api/v1/games/bean-pot/quickref")
        assert status == 200 and "Add 1 to 3 beans to your pot." in json.dumps(rules)
        # exported to BG Stats with its own settings
        status, play = client.json("GET", f"/api/v1/history/{session['id']}.bgsplay")
        assert status == 200 and play["games"][0]["name"] == "Bean Pot"
        assert sorted(s["score"] for s in play["plays"][0]["playerScores"]) == ["2", "4"]
    finally:
        daemon.close()

    # resumed after a restart: the log replays through the plug-in's engine
    daemon, client = serve(tmp_path / "data")
    try:
        status, again = client.json("GET", "/api/v1/session")
        assert status == 200 and again["state"] == session["state"] and again["outcome"] == session["outcome"]
    finally:
        daemon.close()


def test_the_packaging_installs_every_file_the_recipe_names(bean_pot):
    """pyproject.toml's package data takes each file of the recipe's folder (static/ at any
    depth): setuptools reads the patterns as recursive globs in the package's folder."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = {match for pattern in patterns["controller.games"]
               for match in glob.glob(pattern, root_dir=bean_pot, recursive=True)}
    data_files = {f"{PACKAGE}/{name}" for name in STEPS if not name.endswith(".py")}
    assert data_files <= shipped, data_files - shipped


def test_the_recipe_in_the_docs_names_every_file_of_the_plug_in():
    recipe = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("## Adding a game")[1]
    for name in STEPS:
        if "/" not in name:
            assert f"`{name}`" in recipe, name
    assert "static/tablet.js" in recipe and "static/tablet.css" in recipe
