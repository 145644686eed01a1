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
  movement {...} (see MovementRules), warnings [{id, kind, message, colour, stamp}],
  next_warning, undo [snapshots since the last drop], stamp (counts changes of play),
  winner, deadlock (True once nobody can cross another obstacle), no_way_out (True once
  nobody can ever reach the exit), last_drop, turns_played.

Actions name a drop's colour as ``"colour"``; logs written before the spelling was
settled say ``"color"``, which is still read so that such a game resumes.
"""
from __future__ import annotations

from typing import Any, ClassVar

from ...contracts import Action, Effect, State
from ..base import (BadSetup, Choice, Fields, Flag, Game, IllegalAction, InvalidAction, ListOf, Outcome, Placing,
                    Score, Scores, Whole, new_rng_state, rng_from, rng_store)
from . import coach
from .cave import Cave, MovementRules

Bowl = list[str | None]
Alert = dict[str, Any]        # one warning: {id, kind, message, colour, stamp}


class MirakelMix(MovementRules, Game):
    """Mirakel Mix on the engine core: one ``_do_<type>`` per action, data from data.toml."""

    # Taps a player can take back; drops and sensor reports are facts.
    undoable: ClassVar[frozenset[str]] = frozenset(
        {"place_apprentice", "empty_bowl", "name_drop", "place_disk", "move", "place_swap"})
    # A fix always makes a drop fall. A sensor "drop" is a barrier only when it falls (a
    # stray one becomes a warning and leaves undo alone), so ``_do_drop`` clears undo itself.
    undo_barrier: ClassVar[frozenset[str]] = frozenset({"fix_drop"})
    # Warnings are not game moves: dismissing one is final, and one raised after the tap
    # being undone stays. The RNG only ever moves forward.
    undo_keeps: ClassVar[tuple[str, ...]] = ("warnings", "next_warning", "rng")
    #: warnings shown at once (the newest; a repeated one counts, see ``_warn``)
    MAX_WARNINGS: ClassVar[int] = 8
    nothing_to_undo: ClassVar[str] = "nothing to undo since the last drop fell"
    options = {"fill": Choice(("sensor", "random"), "who fills the bowls at the start: the drop sensor, "
                                                    "or the engine at random", default="sensor"),
               "coach": Flag("true: the coach shows the chance of each colour and suggests a move", default=False)}

    def __init__(self, data: dict[str, Any] | None = None):
        super().__init__(data)
        d = self.data
        g = d["game"]
        self.disks_per_player: int = g["disks_per_player"]
        self.n_bowls: int = g["bowls"]
        self.bowl_size: int = g["drops_per_bowl"]
        self.cards_per_pile: int = g["cards_per_pile"]
        self.colours: list[str] = [c["id"] for c in d["colours"]]
        self.letters: dict[str, str] = {c["id"]: c["letter"] for c in d["colours"]}
        self.drops_of: dict[str, int] = {c["id"]: c["drops"] for c in d["colours"]}
        self.total_drops = sum(self.drops_of.values())
        self.flasks: list[str] = [f["id"] for f in d["flasks"]]
        self.flask_spaces: dict[str, list[str]] = {f["id"]: list(f["spaces"]) for f in d["flasks"]}
        self.flask_names: dict[str, str] = {f["id"]: f.get("name", f["id"]) for f in d["flasks"]}
        self.obstacles: list[str] = [f["id"] for f in d["flasks"] if f.get("obstacle")]
        self.caves: dict[str, Cave] = {c["id"]: Cave(c) for c in d["caves"]}
        if self.bowl_size * self.n_bowls >= self.total_drops:
            raise ValueError("the bowls must hold fewer drops than there are")

    def fields(self) -> dict[str, Fields]:
        """The drop colour is ``"colour"``; ``"color"`` is read too (see ``colour_of``)."""
        drop = Choice((*self.colours, None), "the colour of the drop (null: not seen)", default=None,
                      noun="drop colour")
        named = Choice(self.colours, "the colour of the drop that fell", default=None, noun="drop colour")
        bowl = Whole(0, self.n_bowls - 1, "which magic bowl")
        warning = Whole(hint="the number of a warning")
        spaces = Choice(lambda s: tuple(self.cave_of(s).adjacent), "a space of the cave", noun="cave space")
        cards = ListOf(Choice(tuple(self.flask_names), noun="potion card"), "the potion cards given up", default=[])
        return {
            "drop": {"colour": drop, "color": drop},
            "name_drop": {"colour": named, "color": named},
            "dismiss_warning": {"id": warning},
            "fix_drop": {"id": warning, "bowl": Whole(0, self.n_bowls - 1, "which magic bowl", default=None),
                         "colour": drop, "color": drop},
            "place_apprentice": {"space": spaces},
            "empty_bowl": {"bowl": bowl},
            "place_disk": {"flask": Choice(self.flasks, noun="mixing flask"),
                           "space": Whole(0, max(len(s) for s in self.flask_spaces.values()) - 1,
                                          "the space on that mixing flask")},
            "move": {"to": Choice(lambda s: (*self.cave_of(s).adjacent, None),
                                  "where the apprentice goes; null to stay where it is", noun="cave space"),
                     "spend": cards, "double_speed": Flag("true: with the double-speed potion", default=False)},
            "place_swap": {"space": spaces, "spend": ListOf(cards.item, "the potion cards given up", default=None)},
        }

    # ------------------------------------------------------------------ set-up
    def cave_for(self, n_players: int) -> Cave:
        for cave in self.caves.values():
            if n_players in cave.players:
                return cave
        raise BadSetup(f"no cave in the data file is for {n_players} players")

    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        self.check_players(players)
        options = self.read_options(options, players)
        fill = options["fill"]
        cave = self.cave_for(len(players))
        if len(cave.start) < len(players):
            raise BadSetup(f"the cave {cave.id} has too few start spaces for {len(players)} players")
        n = len(players)
        state: State = {
            "game": self.id,
            "players": [p.strip() for p in players],
            "cave": cave.id,
            "options": options,
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
            "deadlock": False,
            "no_way_out": False,
            "last_drop": None,
            "turns_played": 0,
            "stamp": 0,  # counts changes of play; a warning's fixes hold only until the next one
        }
        if fill == "random":
            rng = rng_from(state)
            pool = [c for c in self.colours for _ in range(self.drops_of[c])]
            rng.shuffle(pool)
            for i in range(self.n_bowls):
                for c in pool[i * self.bowl_size:(i + 1) * self.bowl_size]:
                    state["bowls"][i].append(c)
                    state["cauldron"][c] -= 1
            rng_store(state, rng)
        self.advance(state)
        return state

    @staticmethod
    def _new_turn() -> dict[str, Any]:
        return {"bowl": None, "disks_placed": 0, "placements": [], "completed": [], "won": [],
                "double_used": []}

    # ------------------------------------------------------------- helpers
    def cave_of(self, state: State) -> Cave:
        return self.caves[state["cave"]]

    def _name(self, state: State, seat: int) -> str:
        name: str = state["players"][seat]
        return name

    @staticmethod
    def _unnamed(state: State) -> int:
        return sum(1 for b in state["bowls"] for c in b if c is None)

    def inside(self, state: State) -> int:
        """Drops physically in the cauldron now."""
        counts: dict[str, int] = state["cauldron"]
        return sum(counts.values()) - self._unnamed(state)

    def _turn_bowl(self, state: State) -> Bowl | None:
        b = state["turn"]["bowl"]
        return None if b is None else state["bowls"][b]

    def _free_spaces(self, state: State, colour: str | None = None) -> list[tuple[str, int]]:
        out = []
        for f in self.flasks:
            for i, seat in enumerate(state["lab"][f]):
                if seat is None and (colour is None or self.flask_spaces[f][i] == colour):
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
        colour = self.pending_drop(state)
        if colour is None or state["disks"][state["active"]] <= 0:
            return []
        return self._free_spaces(state, colour) or self._free_spaces(state)

    def completed(self, state: State) -> list[str]:
        return [f for f in self.flasks if all(s is not None for s in state["lab"][f])]

    # --------------------------------------------------------- state machine
    def settle(self, state: State, kind: str) -> list[Effect] | None:
        if kind in self.undoable:
            state["stamp"] += 1  # a new moment of play: fixes offered for older warnings go stale
        self.advance(state)
        return None

    def advance(self, s: State) -> None:
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
                        self.announce(s, "disk_skipped", seat=s["active"], why=why)
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
            self.announce(s, "no_potion", seat=s["active"])
            self._end_turn(s)
            return
        active = s["active"]
        for f in done:
            if s["piles"][f] > 0:
                s["piles"][f] -= 1
                s["cards"][active][f] += 1
                t["won"].append(f)
                self.announce(s, "potion_won", seat=active, flask=self.flask_names[f])
            else:
                self.announce(s, "potion_no_card", seat=active, flask=self.flask_names[f])
        n = len(s["players"])
        queue = [{"seat": active, "steps": len(done)}]
        for k in range(1, n):
            seat = (active + k) % n
            steps = sum(1 for f in done if seat in s["lab"][f])
            if steps:
                queue.append({"seat": seat, "steps": steps})
        for go in queue:
            self.announce(s, "steps" if go["seat"] == active else "steps_too", seat=go["seat"], steps=go["steps"])
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
        """Disks come back from completed potions, cards turn back, next player; or the
        game ends here if nobody can ever cross another obstacle (see ``deadlocked``) or
        ever reach the exit (see ``no_way_out``)."""
        for f in s["turn"]["completed"]:
            for seat in s["lab"][f]:
                s["disks"][seat] += 1
            s["lab"][f] = [None] * len(s["lab"][f])
        # a deadlock is a case of no way out: tested first, it keeps its own words
        if self.deadlocked(s):
            s["deadlock"] = True
        elif self.no_way_out(s):
            s["no_way_out"] = True
        if s["deadlock"] or s.get("no_way_out"):   # (a snapshot from before the ruling has no key)
            s["stage"] = "over"
            s["turns_played"] += 1
            self.announce(s, "stuck", message=self._stuck_outcome(s).message)
            return
        s["stage"] = "turn"
        s["active"] = (s["active"] + 1) % len(s["players"])
        s["turn"] = self._new_turn()
        s["turns_played"] += 1

    # --- deadlock ---------------------------------------------------------------
    def deadlocked(self, s: State) -> bool:
        """True when no apprentice can ever cross another obstacle, nor walk out of the
        cave (DEFAULTS.md, "Deadlock"): the game ends, the apprentice nearest the exit wins.

        Why this test is exact. An obstacle card leaves its pile only when a completed
        potion gives it to a player, and goes back onto it only when given up to cross
        that obstacle (by a step, or by a place swap across it). Double speed and place
        swap cards open no obstacle. So until somebody crosses an obstacle again, every
        apprentice stays in its region (the spaces it can walk to without crossing one),
        and obstacle cards only move from piles to players. The next crossing of an
        obstacle is then made by an apprentice whose region that obstacle borders, with a
        card of it that the apprentice holds now or wins from the pile as it is now.
        Hence: if no apprentice holds, and no pile has, a card of an obstacle around the
        apprentice's own region, and nobody stands in the exit's region, nobody can ever
        cross an obstacle or leave the cave. Conversely, if one does, there is a run of the
        game in which that apprentice gets steps (every completed potion with its disk gives
        one), walks to the obstacle and crosses it: in a cave whose regions each have a
        space for every apprentice (``Cave.roomy``; the default caves are) the others can
        never fill the way for good. The test reads nothing but the cave, the cards and the
        piles, so it holds for any cave in the data file.
        """
        cave = self.cave_of(s)
        for seat, space in enumerate(s["apprentices"]):
            if space is None or cave.reaches_exit(space):
                return False
            for card in cave.obstacles_around(space):
                if s["cards"][seat][card] > 0 or s["piles"][card] > 0:
                    return False
        return True

    def deadlock_reason(self, s: State) -> str:
        """Why nobody can cross another obstacle, in the players' words: who holds the
        potions of each obstacle next to somebody's part of the cave."""
        cave = self.cave_of(s)
        around = {card for space in s["apprentices"] if space is not None
                  for card in cave.obstacles_around(space)}
        return "Nobody can cross another obstacle" + self._kept_away(s, around)

    def _kept_away(self, s: State, obstacles: set[str]) -> str:
        """ ": every flame wall potion is with Ann, who cannot get to the flame wall; …" for
        each of ``obstacles`` whose potions somebody holds (empty when nobody does)."""
        parts = []
        for card in self.obstacles:
            holders = [self._name(s, seat) for seat in range(len(s["players"])) if s["cards"][seat][card] > 0]
            if card in obstacles and holders:
                name = self.flask_names[card]
                parts.append(f"every {name} potion is with {_and(holders)}, "
                             f"who cannot get to the {name}")
        return ": " + "; ".join(parts) if parts else ""

    # --- no way out -------------------------------------------------------------
    def closed_obstacles(self, s: State) -> frozenset[str]:
        """The obstacles closed for good (DEFAULTS.md, "No way out"), as a fixpoint: start
        from those whose pile is empty, count every other one as crossable, and open again
        any closed one that an apprentice holding its potion can get next to, crossing only
        obstacles open so far; repeat until none opens. See ``no_way_out`` for why."""
        cave = self.cave_of(s)
        closed = {card for card in self.obstacles if s["piles"][card] == 0}
        while True:
            crossable = set(self.obstacles) - closed
            opened = {card for card in closed
                      if any(s["cards"][seat][card] > 0 and space is not None
                             and card in cave.obstacles_next_to(cave.reach(space, crossable))
                             for seat, space in enumerate(s["apprentices"]))}
            if not opened:
                return frozenset(closed)
            closed -= opened

    def no_way_out(self, s: State) -> bool:
        """True when no apprentice can ever reach the exit, even if some obstacle can still
        be crossed back and forth (DEFAULTS.md, "No way out"): every way out passes an
        obstacle of ``closed_obstacles``. The game ends as in a deadlock.

        Why nobody can then ever leave. Call C the closed obstacles and an apprentice's
        *reach* the regions it can get to crossing only obstacles not in C. At the fixpoint,
        for every obstacle c in C, its pile is empty and nobody holding a card of c has c
        on the edge of their reach. No action changes that:
        - a card of c goes back to its pile only when given up to cross c (a step or a
          place swap across it), which its holder can do only standing next to c, that is
          with c on the edge of its reach; and a card leaves a pile only when a completed
          potion gives it, and c's pile is empty. So who holds the cards of C never changes.
        - an apprentice steps along an open edge or across an obstacle it gives a card up
          for; not across c (as above), so across one outside C, into a region of its own
          reach. A place swap not across c exchanges two apprentices whose regions are
          joined by an open edge or an obstacle outside C: they have the same reach.
        So every apprentice's reach stays what it is, the exit's region in none: nobody
        ever leaves the cave. The test reads nothing but the cave, the cards and the piles,
        so this holds for any cave in the data file. A deadlock is the case in which every
        obstacle around everybody's region is closed; the engine tests it first, so a
        deadlock keeps its own reason and words.

        Conversely, an obstacle not in C has a card on its pile, which the player whose
        turn it is wins when its potion is completed, or it was opened again because a
        holder of its card can get next to it across obstacles opened before it, and
        crossing it puts that card back on its pile. Following that order, in some run of
        the game an apprentice whose reach holds the exit's region collects the cards of
        its way out one by one and leaves, in a cave with room in every region
        (``Cave.roomy``) as for the deadlock.
        """
        if any(space is None for space in s["apprentices"]):
            return False
        cave = self.cave_of(s)
        crossable = set(self.obstacles) - self.closed_obstacles(s)
        out = cave.region_of[cave.exit]
        return all(out not in cave.reach(space, crossable) for space in s["apprentices"])

    def no_way_out_reason(self, s: State) -> str:
        """Why nobody can ever get out, in the players' words: who holds the potions of
        each closed obstacle on the edge of somebody's reach."""
        cave = self.cave_of(s)
        closed = self.closed_obstacles(s)
        crossable = set(self.obstacles) - closed
        edge = {card for space in s["apprentices"] if space is not None
                for card in cave.obstacles_next_to(cave.reach(space, crossable))}
        return "Nobody can get out of the cave any more" + self._kept_away(s, edge & closed)

    # --- the drop colour an action names (its fields are read by the core: ``fields``) ---
    def colour_of(self, a: Action) -> str | None:
        """The drop colour an action names, or None if it names none (a colourless drop).

        ``"color"`` is read too: logs written before the spelling was settled use it,
        and a game resumed from such a log must replay."""
        colour, color = a.get("colour"), a.get("color")
        if colour is not None and color is not None and colour != color:
            raise InvalidAction('an action names one drop colour: "colour" (or "color" in an old log)')
        return colour if colour is not None else color

    # --- drops ---------------------------------------------------------------
    def drop_problem(self, s: State, colour: str | None) -> tuple[str, str] | None:
        """Why a drop reported now cannot be, as (kind, message); None if it can."""
        stage = s["stage"]
        if stage == "fill":
            if all(len(b) >= self.bowl_size for b in s["bowls"]):
                return ("outside_turn", "the three bowls are already full: if a drop really fell, "
                                        "put it back into the cauldron")
        elif stage == "turn" and s["turn"]["bowl"] is not None:
            if len(s["bowls"][s["turn"]["bowl"]]) >= self.bowl_size:
                return ("fifth_drop", "a fifth drop fell, but a turn has only 4: if one really fell, "
                                      "put it back into the cauldron")
        elif stage == "move":
            return ("fifth_drop", "a fifth drop fell after the bowl was full: if one really fell, "
                                  "put it back into the cauldron")
        elif stage == "turn":
            return ("outside_turn", f"a drop fell before {self._name(s, s['active'])} chose a bowl to empty "
                                    "into the cauldron")
        else:
            return ("outside_turn", "no drop should fall now: if one really fell, put it back into the cauldron")
        if self.inside(s) <= 0:
            return ("empty", "the cauldron should be empty, yet a drop fell")
        if colour is not None and s["cauldron"][colour] <= 0:
            return ("colour", f"the cauldron holds no {colour} drop any more: the colour was probably misread")
        return None

    def _fall(self, s: State, colour: str | None) -> None:
        """A drop leaves the cauldron into the bowl being filled."""
        if s["stage"] == "fill":
            bowl = next(b for b in s["bowls"] if len(b) < self.bowl_size)
        else:
            bowl = s["bowls"][s["turn"]["bowl"]]
        bowl.append(colour)
        if colour is not None:
            s["cauldron"][colour] -= 1
        s["last_drop"] = colour
        s["stamp"] += 1
        if s["stage"] == "fill":
            self.announce(s, "filled" if colour else "filled_unseen", colour=colour,
                          bowl=s["bowls"].index(bowl), drops=len(bowl), of=self.bowl_size)
        else:
            self.announce(s, "dispensed" if colour else "dispensed_unseen", seat=s["active"], colour=colour,
                          drops=len(bowl), of=self.bowl_size)

    def _warn(self, s: State, kind: str, message: str, colour: str | None) -> None:
        """Raise a warning. The same warning again replaces the older one (counted in
        ``repeats``), and only the newest ``MAX_WARNINGS`` stay: a sensor that faults all
        evening must not grow every message (issue 16); what is dropped is old news."""
        repeats = 1
        kept = []
        for w in s["warnings"]:
            if (w["kind"], w["message"], w["colour"]) == (kind, message, colour):
                repeats += w.get("repeats", 1)
            else:
                kept.append(w)
        kept.append({"id": s["next_warning"], "kind": kind, "message": message, "colour": colour,
                     "stamp": s["stamp"], "repeats": repeats})
        s["warnings"] = kept[-self.MAX_WARNINGS:]
        s["next_warning"] += 1

    def _do_drop(self, s: State, a: Action) -> None:
        colour = self.colour_of(a)
        problem = self.drop_problem(s, colour)
        if problem:
            self._warn(s, problem[0], problem[1], colour)
            self.announce(s, "stray_drop", why=problem[1])
            return
        self._fall(s, colour)  # undo reaches back only to here (undo_barrier_reached)

    def _do_name_drop(self, s: State, a: Action) -> None:
        colour = self.colour_of(a)
        if colour is None:
            raise self.invalid(s, "name_drop", "colour")
        if s["phase"] != "name_drop":
            raise IllegalAction("no drop is waiting for its colour")
        if s["cauldron"][colour] <= 0:
            raise IllegalAction(f"it cannot be {colour}: all {colour} drops are already out of the cauldron")
        for bowl in s["bowls"]:
            if None in bowl:
                bowl[bowl.index(None)] = colour
                break
        s["cauldron"][colour] -= 1
        s["last_drop"] = colour

    def _do_sensor_fault(self, s: State, a: Action) -> None:
        message = a.get("message")
        if not isinstance(message, str) or not message.strip():
            message = "a cauldron sensor reported a fault"
        self._warn(s, "sensor_fault", message.strip(), None)
        self.announce(s, "sensor_fault", message=message.strip())

    # --- warnings -------------------------------------------------------------
    def _warning(self, s: State, wid: int) -> Alert:
        for w in s["warnings"]:
            if w["id"] == wid:
                found: Alert = w
                return found
        raise IllegalAction(f"there is no warning {wid!r} (it may have been dealt with already)")

    def warning_fixes(self, s: State, w: Alert) -> list[Action]:
        """One-tap fixes for a warning. Dismiss always while the game runs; "it was a real
        drop" only while nothing has happened since the warning and only where the drop
        fits the game: after emptying a bowl nobody tapped, or as another colour the
        cauldron holds."""
        if s["stage"] == "over":
            return []
        fixes: list[Action] = [{"type": "dismiss_warning", "id": w["id"]}]
        if w["kind"] == "sensor_fault" or w["stamp"] != s["stamp"]:
            return fixes
        colour = w["colour"]
        if s["phase"] == "choose_bowl":
            for i, bowl in enumerate(s["bowls"]):
                if len(bowl) != self.bowl_size or None in bowl:
                    continue
                if colour is None:
                    fixes.append({"type": "fix_drop", "id": w["id"], "bowl": i})
                elif s["cauldron"][colour] + bowl.count(colour) > 0:
                    fixes.append({"type": "fix_drop", "id": w["id"], "bowl": i, "colour": colour})
        elif w["kind"] == "colour":
            fixes += [{"type": "fix_drop", "id": w["id"], "colour": c} for c in self.colours
                      if c != colour and self.drop_problem(s, c) is None]
        return fixes

    def _do_dismiss_warning(self, s: State, a: Action) -> None:
        w = self._warning(s, a["id"])
        s["warnings"] = [x for x in s["warnings"] if x is not w]

    def _do_fix_drop(self, s: State, a: Action) -> list[Effect]:
        wid = a["id"]
        colour = self.colour_of(a)
        fix: Action = {"type": "fix_drop", "id": wid}
        if a["bowl"] is not None:
            fix["bowl"] = a["bowl"]
        if colour is not None:
            fix["colour"] = colour
        w = self._warning(s, wid)
        if fix not in self.warning_fixes(s, w):
            raise IllegalAction("that fix does not fit the game any more: the cauldron, bowls or turn "
                                "have changed; dismiss the warning instead")
        effects = [self._empty_bowl(s, fix["bowl"])] if "bowl" in fix else []
        self._fall(s, colour)
        s["warnings"] = [x for x in s["warnings"] if x is not w]
        return effects

    # --- set-up and turn ----------------------------------------------------
    def _do_place_apprentice(self, s: State, a: Action) -> None:
        cave = self.cave_of(s)
        space = a["space"]
        if s["phase"] != "place_apprentices":
            raise IllegalAction("apprentices are placed at the start of the game only")
        if space not in cave.start:
            raise IllegalAction(f"an apprentice starts on a start space ({', '.join(cave.start)})")
        if space in s["apprentices"]:
            raise IllegalAction(f"start space {space} is taken: only one apprentice per space")
        s["apprentices"][s["active"]] = space

    def _empty_bowl(self, s: State, bowl: int) -> Effect:
        if s["phase"] != "choose_bowl":
            raise IllegalAction("a bowl is emptied into the cauldron at the start of your turn only")
        drops = s["bowls"][bowl]
        if len(drops) < self.bowl_size or None in drops:
            raise IllegalAction("only a full magic bowl can be emptied into the cauldron")
        for c in drops:
            s["cauldron"][c] += 1
        s["bowls"][bowl] = []
        s["turn"]["bowl"] = bowl
        return {"device": "cauldron", "op": "fill", "drops": list(drops)}

    def _do_empty_bowl(self, s: State, a: Action) -> list[Effect]:
        return [self._empty_bowl(s, a["bowl"])]

    def _do_place_disk(self, s: State, a: Action) -> None:
        flask, index = a["flask"], a["space"]
        if index >= len(self.flask_spaces[flask]):      # flasks of fewer spaces than the largest
            raise InvalidAction(f"the {self.flask_names[flask]} flask has spaces 0 to {len(self.flask_spaces[flask]) - 1}")
        if s["phase"] != "place_disk":
            raise IllegalAction("there is no drop waiting for a disk")
        if s["lab"][flask][index] is not None:
            raise IllegalAction("that mixing-flask space is already taken: put your disk on an unoccupied space")
        colour = self.pending_drop(s)
        here = self.flask_spaces[flask][index]
        if here != colour and self._free_spaces(s, colour):
            raise IllegalAction(f"the drop was {colour}: put your disk on a free {colour} space while there is one")
        seat = s["active"]
        s["lab"][flask][index] = seat
        s["disks"][seat] -= 1
        s["turn"]["placements"].append({"flask": flask, "space": index})
        s["turn"]["disks_placed"] += 1

    def _do_pass_disk(self, s: State, a: Action) -> None:
        raise IllegalAction("nothing to pass: when you have no disk left or no space is free, "
                            "the game skips the disk by itself")

    # --- undo -----------------------------------------------------------------
    def undo_barrier_reached(self, before: State, after: State, kind: str) -> bool:
        # a drop that really fell is a fact; one that only raised a warning is not
        return kind in self.undo_barrier or (kind == "drop" and after["stamp"] != before["stamp"])

    def on_undo(self, undone: State, restored: State, kind: str) -> list[Effect]:
        restored["stamp"] = undone["stamp"] + 1  # a new moment: fixes of older warnings go stale
        if kind != "empty_bowl":
            return []
        # The simulated cauldron gives those drops back to the bowl.
        bowl = undone["turn"]["bowl"]
        return [{"device": "cauldron", "op": "unfill", "drops": list(restored["bowls"][bowl])}]

    # ---------------------------------------------------------------- queries
    def actions(self, state: State) -> list[Action]:
        """Every action a player may take now, each valid as sent.

        The devices' reports are not choices and are left out: ``drop`` (any colour or
        none) and ``sensor_fault`` are always taken while the game runs, a drop that
        cannot be becoming a warning. The manual drop buttons of ``fill_bowls`` and
        ``dispense`` are listed: one ``drop`` per colour the cauldron still holds."""
        s = state
        out: list[Action] = []
        phase = s["phase"]
        if phase in ("fill_bowls", "dispense"):
            out += [{"type": "drop", "colour": c} for c in self.colours if s["cauldron"][c] > 0]
        elif phase == "name_drop":
            out += [{"type": "name_drop", "colour": c} for c in self.colours if s["cauldron"][c] > 0]
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
        for w in s["warnings"]:
            out += self.warning_fixes(s, w)
        return out

    def steps_to_exit(self, state: State, seat: int) -> int | None:
        """How far a seat's apprentice is from the exit, in plain steps (None: not in the cave)."""
        space = state["apprentices"][seat]
        if space is None:
            return None
        cave = self.cave_of(state)
        return cave.distance(space, cave.exit)

    def scores(self, state: State) -> Scores:
        """Each apprentice's steps to the exit, counted as the end of a deadlock or of "no
        way out" counts them (``steps_to_exit``: plain spaces, obstacles ignored)."""
        return Scores(lines=(Score(
            "steps", "Steps to the exit", tuple(self.steps_to_exit(state, s) for s in range(len(state["players"]))),
            better="lower",
            note="Spaces to the exit, obstacles ignored. The first out wins; if nobody can get out "
                 "any more, the nearest wins."),))

    def outcome(self, state: State) -> Outcome | None:
        if state.get("deadlock") or state.get("no_way_out"):
            return self._stuck_outcome(state)
        w = state["winner"]
        if w is None:
            return None
        # The winner first, then the others by how close their apprentice came to the exit.
        # The score is the steps still to go; apprentices as far from the exit share a place.
        far = [self.steps_to_exit(state, seat) for seat in range(len(state["players"]))]
        others = sorted((seat for seat in range(len(far)) if seat != w),
                        key=lambda seat: (far[seat] is None, far[seat] or 0))
        ranking = [Placing(w, 1, far[w])]
        for seat in others:
            last = ranking[-1]
            tie = last.seat != w and last.score == far[seat]
            ranking.append(Placing(seat, last.place if tie else len(ranking) + 1, far[seat]))
        return Outcome(winners=(w,), reason="left_the_cave",
                       message=f"{state['players'][w]}'s apprentice left the cave first",
                       ranking=tuple(ranking), details={"turns": state["turns_played"] + 1})

    def _stuck_outcome(self, state: State) -> Outcome:
        """Nobody can cross another obstacle (``deadlock``) or ever reach the exit
        (``no_way_out``): the apprentice nearest the exit (fewest spaces, obstacles ignored)
        wins; apprentices as near share the win (DEFAULTS.md)."""
        far = (self.steps_to_exit(state, seat) for seat in range(len(state["players"])))
        spaces = [99 if d is None else d for d in far]   # every apprentice is placed by now
        nearest = min(spaces)
        winners = tuple(seat for seat, d in enumerate(spaces) if d == nearest)
        names = [self._name(state, seat) for seat in winners]
        if len(winners) == 1:
            who = f"{names[0]}'s apprentice is nearest the exit ({nearest} spaces) and wins"
        else:
            who = f"{_and(names)} are nearest the exit ({nearest} spaces each) and share the win"
        reason = "deadlock" if state.get("deadlock") else "no_way_out"
        why = self.deadlock_reason(state) if reason == "deadlock" else self.no_way_out_reason(state)
        return Outcome(winners=winners, reason=reason,
                       message=f"{why}. {who}",  # no full stop: a tablet may add " after N turns."
                       ranking=Outcome.rank(spaces, higher_is_better=False),
                       details={"turns": state["turns_played"]})

    def device_sync(self, state: State) -> list[Effect]:
        """The simulated cauldron holds what the game says is inside. A drop that fell
        unnamed is still counted in: nobody knows which colour left."""
        return [{"device": "cauldron", "op": "set_contents", "contents": dict(state["cauldron"])}]

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
            n = len(s["bowls"][s["turn"]["bowl"]])
            return f"{name}: turn the cauldron gently clockwise (drop {n + 1} of {self.bowl_size})"
        if phase == "place_disk":
            colour = self.pending_drop(s)
            if self._free_spaces(s, colour):
                return f"{name}: put a disk on a free {colour} space"
            return f"{name}: no {colour} space is free, put a disk on any free space"
        if phase == "move":
            return self._movement_text(s)
        if phase == "finished":
            if s.get("deadlock") or s.get("no_way_out"):
                return self._stuck_outcome(s).message
            return f"{self._name(s, s['winner'])} has left the cave and wins!"
        return ""

    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        s = state
        cave = self.cave_of(s)
        t = s["turn"]
        bowl = self._turn_bowl(s)
        out = self.outcome(s)
        v: dict[str, Any] = {
            "game": self.id,
            "phase": s["phase"],
            "active": s["active"],
            "players": [{"seat": i, "name": name, "disks_left": s["disks"][i],
                         "apprentice": s["apprentices"][i], "cards": dict(s["cards"][i])}
                        for i, name in enumerate(s["players"])],
            "bowls": [{"index": i, "drops": list(b), "full": len(b) == self.bowl_size}
                      for i, b in enumerate(s["bowls"])],
            "cauldron": dict(s["cauldron"]),
            "cauldron_total": self.inside(s),
            "unnamed_drops": self._unnamed(s),
            "lab": [{"flask": f, "name": self.flask_names[f], "pile": s["piles"][f],
                     "spaces": [{"index": i, "colour": c, "letter": self.letters[c], "disk": s["lab"][f][i]}
                                for i, c in enumerate(self.flask_spaces[f])],
                     "complete": all(x is not None for x in s["lab"][f])}
                    for f in self.flasks],
            "turn": {"bowl": t["bowl"], "drops": list(bowl) if bowl is not None else [],
                     "disks_placed": t["disks_placed"], "pending": self.pending_drop(s),
                     "placements": [dict(p) for p in t["placements"]], "completed": list(t["completed"]),
                     "won": list(t["won"])},
            "last_drop": s["last_drop"],
            "colours": [{"id": c, "letter": self.letters[c]} for c in self.colours],
            "cave": dict(cave.public(), apprentices={str(i): p for i, p in enumerate(s["apprentices"])}),
            "movement": self._movement_view(s),
            "warnings": [dict(w, fixes=self.warning_fixes(s, w)) for w in s["warnings"]],
            "winner": s["winner"],
            "outcome": None if out is None else out.to_json(s["players"]),
        }
        if s["options"].get("coach"):
            v["coach"] = coach.advise(self, s)
        return v

    def actor(self, state: State, action: Action) -> int | None:
        """The mover while apprentices move, else the player whose turn it is (drops and
        bowls are the active player's; a sensor fault or a warning belongs to nobody)."""
        if action.get("type") in ("sensor_fault", "dismiss_warning", "fix_drop"):
            return None
        if state.get("movement"):
            return int(state["movement"]["queue"][0]["seat"])
        return int(state["active"])

    def _movement_text(self, s: State) -> str:
        seat = s["movement"]["queue"][0]["seat"]
        left = self.steps_left(s)
        if left <= 0:  # only a place swap is left (or staying, which ends the move)
            return f"{self._name(s, seat)}: your steps are used up: swap places, or stay to end your move"
        return f"{self._name(s, seat)} moves next: {left} step{'s' if left != 1 else ''}"

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
            "text": self._movement_text(s),
            "reachable": self.move_options(s),
            "swaps": self.swap_options(s),
        }


def _and(words: list[str]) -> str:
    """ "Ann", "Ann and Ben", "Ann, Ben and Cy"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
