"""Mirakel Mix (Zoch): the rules engine, refereed by the cauldron.

Every one of the 18 drops is always somewhere the engine knows: in one of the three
bowls or in the cauldron. A drop the sensor reports moves from the cauldron into the
bowl being filled. Drops that cannot be (a fifth drop, a drop outside a turn, a colour
the cauldron no longer holds) are never applied: they become warnings with one-tap
fixes. Player actions can be undone until the next drop falls.

State (plain JSON):
  players, cave (id), options, rng, stage ("fill" | "place" | "turn" | "move" | "over"),
  phase (see MIRAKEL_SCHEMA.md), active, bowls [[colour|None]*], cauldron {colour: n}
  (includes drops that fell unnamed, until named), lab {flask: [seat|None]*}, piles
  {flask: n}, cards [{flask: n}], disks [n], apprentices [space|None], turn {...},
  movement {...} (see MovementRules), warnings [...], next_warning, undo [snapshots since
  the last drop], stamp (counts changes of play), winner, last_drop, turns_played.
"""
from __future__ import annotations

from typing import Any

from .base import (Action, BadSetup, Effect, Game, IllegalAction, State,
                   new_rng_state, rng_from, rng_store)
from . import mirakel_coach as coach
from .mirakel_cave import Cave, MovementRules

# Actions a player can take back with "undo" (drops and sensor reports are facts).
_UNDOABLE = {"place_apprentice", "empty_bowl", "name_drop", "place_disk", "move", "place_swap"}


def _clone(x: Any) -> Any:
    if type(x) is dict:
        return {k: _clone(v) for k, v in x.items()}
    if type(x) is list:
        return [_clone(v) for v in x]
    return x


def _fork(state: State) -> State:
    """A copy apply() may change: the parts it changes are copied one level deeper than
    they are ever modified; everything else (rng, undo snapshots, names) is shared.
    Much cheaper than deepcopy, which matters when the daemon replays a whole log."""
    s = dict(state)
    s["bowls"] = [list(b) for b in state["bowls"]]
    s["cauldron"] = dict(state["cauldron"])
    s["lab"] = {f: list(v) for f, v in state["lab"].items()}
    s["piles"] = dict(state["piles"])
    s["cards"] = [dict(c) for c in state["cards"]]
    s["disks"] = list(state["disks"])
    s["apprentices"] = list(state["apprentices"])
    t = state["turn"]
    s["turn"] = {"bowl": t["bowl"], "disks_placed": t["disks_placed"], "placements": list(t["placements"]),
                 "completed": list(t["completed"]), "won": list(t["won"]), "double_used": list(t["double_used"])}
    m = state["movement"]
    s["movement"] = None if m is None else dict(m, queue=list(m["queue"]))
    s["warnings"] = list(state["warnings"])
    return s


class MirakelMix(MovementRules, Game):
    id = "mirakel-mix"
    name = "Mirakel Mix"
    min_players = 2
    max_players = 4
    data_file = "mirakel_mix"

    def __init__(self, data: dict[str, Any] | None = None):
        super().__init__(data)
        d = self.data
        g = d["game"]
        self.min_players = g.get("min_players", self.min_players)
        self.max_players = g.get("max_players", self.max_players)
        self.disks_per_player: int = g["disks_per_player"]
        self.n_bowls: int = g["bowls"]
        self.bowl_size: int = g["drops_per_bowl"]
        self.cards_per_pile: int = g["cards_per_pile"]
        self.colors: list[str] = [c["id"] for c in d["colors"]]
        self.letters: dict[str, str] = {c["id"]: c["letter"] for c in d["colors"]}
        self.drops_of: dict[str, int] = {c["id"]: c["drops"] for c in d["colors"]}
        self.total_drops = sum(self.drops_of.values())
        self.flasks: list[str] = [f["id"] for f in d["flasks"]]
        self.flask_spaces: dict[str, list[str]] = {f["id"]: list(f["spaces"]) for f in d["flasks"]}
        self.flask_names: dict[str, str] = {f["id"]: f.get("name", f["id"]) for f in d["flasks"]}
        self.obstacles: list[str] = [f["id"] for f in d["flasks"] if f.get("obstacle")]
        self.caves: dict[str, Cave] = {c["id"]: Cave(c) for c in d["caves"]}
        if self.bowl_size * self.n_bowls >= self.total_drops:
            raise ValueError("the bowls must hold fewer drops than there are")

    # ------------------------------------------------------------------ set-up
    def cave_for(self, n_players: int) -> Cave:
        for cave in self.caves.values():
            if n_players in cave.players:
                return cave
        raise BadSetup(f"no cave in the data file is for {n_players} players")

    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        self.check_players(players)
        options = dict(options or {})
        fill = options.get("fill", "sensor")
        if fill not in ("sensor", "random"):
            raise BadSetup('option "fill" is "sensor" (the drop sensor fills the bowls) or "random"')
        coach_on = options.get("coach", False)
        if not isinstance(coach_on, bool):
            raise BadSetup('option "coach" is true or false')
        unknown = set(options) - {"fill", "coach"}
        if unknown:
            raise BadSetup(f"unknown option(s) for Mirakel Mix: {', '.join(sorted(unknown))}")
        cave = self.cave_for(len(players))
        if len(cave.start) < len(players):
            raise BadSetup(f"the cave {cave.id} has too few start spaces for {len(players)} players")
        n = len(players)
        state: State = {
            "game": self.id,
            "players": [p.strip() for p in players],
            "cave": cave.id,
            "options": {"fill": fill, "coach": coach_on},
            "rng": new_rng_state(seed),
            "stage": "fill",
            "phase": "fill_bowls",
            "active": 0,
            "bowls": [[] for _ in range(self.n_bowls)],
            "cauldron": dict(self.drops_of),
            "lab": {f: [None] * len(self.flask_spaces[f]) for f in self.flasks},
            "piles": {f: self.cards_per_pile for f in self.flasks},
            "cards": [{f: 0 for f in self.flasks} for _ in range(n)],
            "disks": [self.disks_per_player] * n,
            "apprentices": [None] * n,
            "turn": self._new_turn(),
            "movement": None,
            "warnings": [],
            "next_warning": 1,
            "undo": [],
            "winner": None,
            "last_drop": None,
            "turns_played": 0,
            "stamp": 0,  # counts changes of play; a warning's fixes hold only until the next one
        }
        if fill == "random":
            rng = rng_from(state)
            pool = [c for c in self.colors for _ in range(self.drops_of[c])]
            rng.shuffle(pool)
            for i in range(self.n_bowls):
                for c in pool[i * self.bowl_size:(i + 1) * self.bowl_size]:
                    state["bowls"][i].append(c)
                    state["cauldron"][c] -= 1
            rng_store(state, rng)
        self._settle(state)
        return state

    @staticmethod
    def _new_turn() -> dict[str, Any]:
        return {"bowl": None, "disks_placed": 0, "placements": [], "completed": [], "won": [],
                "double_used": []}

    # ------------------------------------------------------------- helpers
    def cave_of(self, state: State) -> Cave:
        return self.caves[state["cave"]]

    def _name(self, state: State, seat: int) -> str:
        return state["players"][seat]

    @staticmethod
    def _unnamed(state: State) -> int:
        return sum(1 for b in state["bowls"] for c in b if c is None)

    def inside(self, state: State) -> int:
        """Drops physically in the cauldron now."""
        return sum(state["cauldron"].values()) - self._unnamed(state)

    def _turn_bowl(self, state: State) -> list | None:
        b = state["turn"]["bowl"]
        return None if b is None else state["bowls"][b]

    def _free_spaces(self, state: State, color: str | None = None) -> list[tuple[str, int]]:
        out = []
        for f in self.flasks:
            for i, seat in enumerate(state["lab"][f]):
                if seat is None and (color is None or self.flask_spaces[f][i] == color):
                    out.append((f, i))
        return out

    def pending_drop(self, state: State) -> str | None:
        """The fallen drop still waiting for its disk (None if none)."""
        if state["stage"] != "turn":
            return None
        bowl = self._turn_bowl(state)
        if bowl is None:
            return None
        k = state["turn"]["disks_placed"]
        return bowl[k] if k < len(bowl) else None

    def disk_spaces(self, state: State) -> list[tuple[str, int]]:
        """Where the active player may put a disk for the pending drop."""
        color = self.pending_drop(state)
        if color is None or state["disks"][state["active"]] <= 0:
            return []
        return self._free_spaces(state, color) or self._free_spaces(state)

    def completed(self, state: State) -> list[str]:
        return [f for f in self.flasks if all(s is not None for s in state["lab"][f])]

    # --------------------------------------------------------- state machine
    def _settle(self, s: State) -> None:
        """Advance everything that needs no decision, then set the phase."""
        while True:
            stage = s["stage"]
            if stage == "fill":
                if self._unnamed(s):
                    s["phase"] = "name_drop"
                elif all(len(b) == self.bowl_size for b in s["bowls"]):
                    s["stage"] = "place"
                    continue
                else:
                    s["phase"] = "fill_bowls"
                return
            if stage == "place":
                if all(a is not None for a in s["apprentices"]):
                    s["stage"] = "turn"
                    s["active"] = 0
                    s["turn"] = self._new_turn()
                    continue
                s["active"] = s["apprentices"].index(None)
                s["phase"] = "place_apprentices"
                return
            if stage == "turn":
                t = s["turn"]
                bowl = self._turn_bowl(s)
                if bowl is None:
                    s["phase"] = "choose_bowl"
                    return
                if any(c is None for c in bowl):
                    s["phase"] = "name_drop"
                    return
                if t["disks_placed"] < len(bowl):
                    if not self.disk_spaces(s):
                        # No disk left or no free space: the rulebook places nothing.
                        why = "no disk left" if s["disks"][s["active"]] <= 0 else "no free space in the lab"
                        t["placements"].append({"skipped": why})
                        t["disks_placed"] += 1
                        continue
                    s["phase"] = "place_disk"
                    return
                if len(bowl) < self.bowl_size:
                    s["phase"] = "dispense"
                    return
                self._resolve_potions(s)
                continue
            if stage == "move":
                s["phase"] = "move"
                return
            s["phase"] = "finished"
            return

    def _resolve_potions(self, s: State) -> None:
        """After the 4th disk: completed potions give cards and movement."""
        t = s["turn"]
        done = self.completed(s)
        t["completed"] = done
        if not done:
            self._end_turn(s)
            return
        active = s["active"]
        for f in done:
            if s["piles"][f] > 0:
                s["piles"][f] -= 1
                s["cards"][active][f] += 1
                t["won"].append(f)
        n = len(s["players"])
        queue = [{"seat": active, "steps": len(done)}]
        for k in range(1, n):
            seat = (active + k) % n
            steps = sum(1 for f in done if seat in s["lab"][f])
            if steps:
                queue.append({"seat": seat, "steps": steps})
        s["movement"] = {"queue": queue, "used": 0, "double": False, "moved": False}
        s["stage"] = "move"

    def _end_go(self, s: State) -> None:
        """The current mover is done; the next in the queue moves, or the turn ends."""
        m = s["movement"]
        queue = m["queue"][1:]
        if queue and s["winner"] is None:
            s["movement"] = {"queue": queue, "used": 0, "double": False, "moved": False}
            return
        s["movement"] = None
        if s["winner"] is not None:
            s["stage"] = "over"
            return
        self._end_turn(s)

    def _end_turn(self, s: State) -> None:
        """Disks come back from completed potions, cards turn back, next player."""
        for f in s["turn"]["completed"]:
            for seat in s["lab"][f]:
                s["disks"][seat] += 1
            s["lab"][f] = [None] * len(s["lab"][f])
        s["stage"] = "turn"
        s["active"] = (s["active"] + 1) % len(s["players"])
        s["turn"] = self._new_turn()
        s["turns_played"] += 1

    # ---------------------------------------------------------------- apply
    def apply(self, state: State, action: Action) -> tuple[State, list[Effect]]:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("an action needs a type")
        kind = action["type"]
        handler = getattr(self, "_do_" + kind, None)
        if handler is None:
            raise IllegalAction(f"Mirakel Mix has no action called {kind!r}")
        s = _fork(state)
        effects: list[Effect] = []
        if kind in _UNDOABLE:
            if state["stage"] == "over":
                raise IllegalAction("the game is over")
            snap = {k: v for k, v in state.items() if k not in ("undo", "rng", "warnings", "next_warning")}
            handler(s, action, effects)
            s["undo"] = state["undo"] + [{"action": kind, "state": snap}]
            s["stamp"] += 1
        else:
            handler(s, action, effects)
        self._settle(s)
        return s, effects

    # --- drops ---------------------------------------------------------------
    def _check_color(self, color: Any, allow_none: bool) -> None:
        if color is None and allow_none:
            return
        if not isinstance(color, str) or color not in self.letters:
            raise IllegalAction(f"there is no drop colour {color!r} (colours: {', '.join(self.colors)})")

    def drop_problem(self, s: State, color: str | None) -> tuple[str, str] | None:
        """Why a drop reported now cannot be, as (kind, message); None if it can."""
        stage = s["stage"]
        if stage == "fill":
            if all(len(b) >= self.bowl_size for b in s["bowls"]):
                return ("outside_turn", "the three bowls are already full: if a drop really fell, "
                                        "put it back into the cauldron")
        elif stage == "turn" and s["turn"]["bowl"] is not None:
            if len(self._turn_bowl(s)) >= self.bowl_size:
                return ("fifth_drop", "a fifth drop fell, but a turn has only 4: if one really fell, "
                                      "put it back into the cauldron")
        elif stage in ("move",):
            return ("fifth_drop", "a fifth drop fell after the bowl was full: if one really fell, "
                                  "put it back into the cauldron")
        elif stage == "turn":
            return ("outside_turn", f"a drop fell before {self._name(s, s['active'])} chose a bowl to empty "
                                    "into the cauldron")
        else:
            return ("outside_turn", "no drop should fall now: if one really fell, put it back into the cauldron")
        if self.inside(s) <= 0:
            return ("empty", "the cauldron should be empty, yet a drop fell")
        if color is not None and s["cauldron"][color] <= 0:
            return ("color", f"the cauldron holds no {color} drop any more: the colour was probably misread")
        return None

    def _fall(self, s: State, color: str | None) -> None:
        """A drop leaves the cauldron into the bowl being filled."""
        if s["stage"] == "fill":
            bowl = next(b for b in s["bowls"] if len(b) < self.bowl_size)
        else:
            bowl = self._turn_bowl(s)
        bowl.append(color)
        if color is not None:
            s["cauldron"][color] -= 1
        s["last_drop"] = color
        s["undo"] = []  # undo reaches back only to the last drop
        s["stamp"] += 1

    def _warn(self, s: State, kind: str, message: str, color: str | None) -> None:
        s["warnings"].append({"id": s["next_warning"], "kind": kind, "message": message, "color": color,
                              "stamp": s["stamp"]})
        s["next_warning"] += 1

    def _do_drop(self, s: State, a: Action, effects: list) -> None:
        color = a.get("color")
        self._check_color(color, allow_none=True)
        problem = self.drop_problem(s, color)
        if problem:
            self._warn(s, problem[0], problem[1], color)
            return
        self._fall(s, color)

    def _do_name_drop(self, s: State, a: Action, effects: list) -> None:
        color = a.get("color")
        self._check_color(color, allow_none=False)
        if s["phase"] != "name_drop":
            raise IllegalAction("no drop is waiting for its colour")
        if s["cauldron"][color] <= 0:
            raise IllegalAction(f"it cannot be {color}: all {color} drops are already out of the cauldron")
        for bowl in s["bowls"]:
            if None in bowl:
                bowl[bowl.index(None)] = color
                break
        s["cauldron"][color] -= 1
        s["last_drop"] = color

    def _do_sensor_fault(self, s: State, a: Action, effects: list) -> None:
        message = a.get("message")
        if not isinstance(message, str) or not message.strip():
            message = "a cauldron sensor reported a fault"
        self._warn(s, "sensor_fault", message.strip(), None)

    # --- warnings -------------------------------------------------------------
    def _warning(self, s: State, wid: Any) -> dict:
        for w in s["warnings"]:
            if w["id"] == wid:
                return w
        raise IllegalAction(f"there is no warning {wid!r} (it may have been dealt with already)")

    def warning_fixes(self, s: State, w: dict) -> list[Action]:
        """One-tap fixes for a warning. Dismiss always; "it was a real drop" only while
        nothing has happened since the warning and only where the drop fits the game:
        after emptying a bowl nobody tapped, or as another colour the cauldron holds."""
        fixes: list[Action] = [{"type": "dismiss_warning", "id": w["id"]}]
        if w["kind"] == "sensor_fault" or w["stamp"] != s["stamp"]:
            return fixes
        color = w["color"]
        if s["phase"] == "choose_bowl":
            for i, bowl in enumerate(s["bowls"]):
                if len(bowl) != self.bowl_size or None in bowl:
                    continue
                if color is None:
                    fixes.append({"type": "fix_drop", "id": w["id"], "bowl": i})
                elif s["cauldron"][color] + bowl.count(color) > 0:
                    fixes.append({"type": "fix_drop", "id": w["id"], "bowl": i, "color": color})
        elif w["kind"] == "color":
            fixes += [{"type": "fix_drop", "id": w["id"], "color": c} for c in self.colors
                      if c != color and self.drop_problem(s, c) is None]
        return fixes

    def _do_dismiss_warning(self, s: State, a: Action, effects: list) -> None:
        w = self._warning(s, a.get("id"))
        s["warnings"] = [x for x in s["warnings"] if x is not w]

    def _do_fix_drop(self, s: State, a: Action, effects: list) -> None:
        w = self._warning(s, a.get("id"))
        self._check_color(a.get("color"), allow_none=True)
        if dict(a) not in self.warning_fixes(s, w):
            raise IllegalAction("that fix does not fit the game any more: the cauldron, bowls or turn "
                                "have changed; dismiss the warning instead")
        if "bowl" in a:
            self._empty_bowl(s, a["bowl"], effects)
        self._fall(s, a.get("color"))
        s["warnings"] = [x for x in s["warnings"] if x is not w]

    # --- set-up and turn ----------------------------------------------------
    def _do_place_apprentice(self, s: State, a: Action, effects: list) -> None:
        if s["phase"] != "place_apprentices":
            raise IllegalAction("apprentices are placed at the start of the game only")
        cave = self.cave_of(s)
        space = a.get("space")
        if space not in cave.start:
            raise IllegalAction(f"an apprentice starts on a start space ({', '.join(cave.start)})")
        if space in s["apprentices"]:
            raise IllegalAction(f"start space {space} is taken: only one apprentice per space")
        s["apprentices"][s["active"]] = space

    def _empty_bowl(self, s: State, bowl: Any, effects: list) -> None:
        if s["phase"] != "choose_bowl":
            raise IllegalAction("a bowl is emptied into the cauldron at the start of your turn only")
        if not isinstance(bowl, int) or isinstance(bowl, bool) or not 0 <= bowl < self.n_bowls:
            raise IllegalAction(f"choose bowl 0 to {self.n_bowls - 1}")
        drops = s["bowls"][bowl]
        if len(drops) < self.bowl_size or None in drops:
            raise IllegalAction("only a full magic bowl can be emptied into the cauldron")
        for c in drops:
            s["cauldron"][c] += 1
        s["bowls"][bowl] = []
        s["turn"]["bowl"] = bowl
        effects.append({"device": "cauldron", "op": "fill", "drops": list(drops)})

    def _do_empty_bowl(self, s: State, a: Action, effects: list) -> None:
        self._empty_bowl(s, a.get("bowl"), effects)

    def _do_place_disk(self, s: State, a: Action, effects: list) -> None:
        if s["phase"] != "place_disk":
            raise IllegalAction("there is no drop waiting for a disk")
        flask, index = a.get("flask"), a.get("space")
        if not isinstance(flask, str) or flask not in self.flask_spaces:
            raise IllegalAction(f"there is no mixing flask {flask!r}")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.flask_spaces[flask]):
            raise IllegalAction(f"the {self.flask_names[flask]} flask has spaces 0 to {len(self.flask_spaces[flask]) - 1}")
        if s["lab"][flask][index] is not None:
            raise IllegalAction("that mixing-flask space is already taken: put your disk on an unoccupied space")
        color = self.pending_drop(s)
        here = self.flask_spaces[flask][index]
        if here != color and self._free_spaces(s, color):
            raise IllegalAction(f"the drop was {color}: put your disk on a free {color} space while there is one")
        seat = s["active"]
        s["lab"][flask][index] = seat
        s["disks"][seat] -= 1
        s["turn"]["placements"].append({"flask": flask, "space": index})
        s["turn"]["disks_placed"] += 1

    def _do_pass_disk(self, s: State, a: Action, effects: list) -> None:
        raise IllegalAction("nothing to pass: when you have no disk left or no space is free, "
                            "the game skips the disk by itself")

    # --- undo -----------------------------------------------------------------
    def _do_undo(self, s: State, a: Action, effects: list) -> None:
        if not s["undo"]:
            raise IllegalAction("nothing to undo since the last drop fell")
        if s["stage"] == "over":
            raise IllegalAction("the game is over")
        last = s["undo"][-1]
        restored = dict(last["state"])
        if last["action"] == "empty_bowl":
            # The simulated cauldron gives those drops back to the bowl.
            b = s["turn"]["bowl"]
            effects.append({"device": "cauldron", "op": "unfill", "drops": list(restored["bowls"][b])})
        keep = {k: s[k] for k in ("warnings", "next_warning", "rng")}
        keep["stamp"] = s["stamp"] + 1  # a new moment: fixes of older warnings go stale
        undo = s["undo"][:-1]
        s.clear()
        s.update(_fork(dict(restored, warnings=[])))
        s.update(keep)
        s["undo"] = undo

    # ---------------------------------------------------------------- queries
    def legal_actions(self, state: State) -> list[Action]:
        s = state
        out: list[Action] = []
        phase = s["phase"]
        if phase in ("fill_bowls", "dispense"):
            out += [{"type": "drop", "color": c} for c in self.colors if s["cauldron"][c] > 0]
        elif phase == "name_drop":
            out += [{"type": "name_drop", "color": c} for c in self.colors if s["cauldron"][c] > 0]
        elif phase == "place_apprentices":
            out += [{"type": "place_apprentice", "space": sp} for sp in self.cave_of(s).start
                    if sp not in s["apprentices"]]
        elif phase == "choose_bowl":
            out += [{"type": "empty_bowl", "bowl": i} for i, b in enumerate(s["bowls"])
                    if len(b) == self.bowl_size and None not in b]
        elif phase == "place_disk":
            out += [{"type": "place_disk", "flask": f, "space": i} for f, i in self.disk_spaces(s)]
        elif phase == "move":
            out += [{"type": "move", "to": o["to"], "spend": o["spend"], "double_speed": o["double_speed"]}
                    for o in self.move_options(s)]
            out += self.swap_options(s)
            out.append({"type": "move", "to": None})
        if s["undo"] and s["stage"] != "over":
            out.append({"type": "undo"})
        for w in s["warnings"]:
            out += self.warning_fixes(s, w)
        return out

    def outcome(self, state: State) -> dict[str, Any] | None:
        if state["winner"] is None:
            return None
        w = state["winner"]
        return {"winners": [w], "winner_names": [state["players"][w]],
                "reason": f"{state['players'][w]}'s apprentice left the cave first",
                "turns": state["turns_played"] + 1}

    # ------------------------------------------------------------------- view
    def prompt(self, s: State) -> str:
        phase = s["phase"]
        name = self._name(s, s["active"])
        if phase == "fill_bowls":
            i = next(i for i, b in enumerate(s["bowls"]) if len(b) < self.bowl_size)
            return f"Set-up: turn the cauldron clockwise to fill bowl {i + 1} ({len(s['bowls'][i])} of {self.bowl_size} drops)"
        if phase == "name_drop":
            return "Which colour was the drop that just fell? Tap its colour"
        if phase == "place_apprentices":
            return f"{name}: put your apprentice on a free start space"
        if phase == "choose_bowl":
            return f"{name}: empty a magic bowl into the cauldron and tap which one"
        if phase == "dispense":
            n = len(self._turn_bowl(s))
            return f"{name}: turn the cauldron gently clockwise (drop {n + 1} of {self.bowl_size})"
        if phase == "place_disk":
            color = self.pending_drop(s)
            if self._free_spaces(s, color):
                return f"{name}: put a disk on a free {color} space"
            return f"{name}: no {color} space is free, put a disk on any free space"
        if phase == "move":
            seat = self.mover(s)
            left = self.steps_left(s)
            return f"{self._name(s, seat)} moves next: {left} step{'s' if left != 1 else ''}"
        if phase == "finished":
            return f"{self._name(s, s['winner'])} has left the cave and wins!"
        return ""

    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        s = state
        cave = self.cave_of(s)
        t = s["turn"]
        bowl = self._turn_bowl(s)
        unnamed = self._unnamed(s)
        v: dict[str, Any] = {
            "game": self.id,
            "phase": s["phase"],
            "prompt": self.prompt(s),
            "active": s["active"],
            "players": [{"seat": i, "name": name, "disks_left": s["disks"][i],
                         "apprentice": s["apprentices"][i], "cards": dict(s["cards"][i])}
                        for i, name in enumerate(s["players"])],
            "bowls": [{"index": i, "drops": list(b), "full": len(b) == self.bowl_size}
                      for i, b in enumerate(s["bowls"])],
            "cauldron": dict(s["cauldron"]),
            "cauldron_total": self.inside(s),
            "unnamed_drops": unnamed,
            "lab": [{"flask": f, "name": self.flask_names[f], "pile": s["piles"][f],
                     "spaces": [{"index": i, "color": c, "letter": self.letters[c], "disk": s["lab"][f][i]}
                                for i, c in enumerate(self.flask_spaces[f])],
                     "complete": all(x is not None for x in s["lab"][f])}
                    for f in self.flasks],
            "turn": {"bowl": t["bowl"], "drops": list(bowl) if bowl is not None else [],
                     "disks_placed": t["disks_placed"], "pending": self.pending_drop(s),
                     "placements": _clone(t["placements"]), "completed": list(t["completed"]),
                     "won": list(t["won"])},
            "last_drop": s["last_drop"],
            "colors": [{"id": c, "letter": self.letters[c]} for c in self.colors],
            "cave": dict(cave.public(), apprentices={str(i): p for i, p in enumerate(s["apprentices"])}),
            "movement": self._movement_view(s),
            "warnings": [dict(w, fixes=self.warning_fixes(s, w)) for w in s["warnings"]],
            "can_undo": bool(s["undo"]) and s["stage"] != "over",
            "winner": s["winner"],
            "outcome": self.outcome(s),
        }
        if s["options"].get("coach"):
            v["coach"] = coach.advise(self, s)
        return v

    def _movement_view(self, s: State) -> dict[str, Any] | None:
        m = s.get("movement")
        if not m:
            return None
        seat = m["queue"][0]["seat"]
        left = self.steps_left(s)
        return {
            "mover": seat,
            "mover_name": self._name(s, seat),
            "steps_left": left,
            "double_speed_used": m["double"],
            "queue": [{"seat": q["seat"], "name": self._name(s, q["seat"]), "steps": q["steps"]}
                      for q in m["queue"]],
            "text": f"{self._name(s, seat)} moves next: {left} step{'s' if left != 1 else ''}",
            "reachable": self.move_options(s),
            "swaps": self.swap_options(s),
        }
