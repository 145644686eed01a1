"""The Mirakel Mix cave: a graph of spaces, and where an apprentice can walk in it.

The cave comes from the data file (``[[caves]]``): spaces, edges, start spaces, the
exit and obstacles sitting on edges. Movement follows the rulebook: any direction
along the edges, one step per space, passing an apprentice costs the step but you
may not end on an occupied space, and crossing an obstacle costs the matching potion.
"""
from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import TYPE_CHECKING, Any, Collection, Iterable

from ...contracts import Action, State
from ..base import IllegalAction, InvalidAction


class Cave:
    """One side of the board, built from a ``[[caves]]`` entry of the data file."""

    def __init__(self, spec: dict[str, Any]):
        self.id: str = spec["id"]
        self.name: str = spec.get("name", self.id)
        self.players: list[int] = list(spec["players"])
        self.start: list[str] = list(spec["start"])
        self.exit: str = spec["exit"]
        self.spaces: list[str] = list(spec["spaces"])
        self.positions: dict[str, list[int]] = {k: list(v) for k, v in spec.get("positions", {}).items()}
        known = set(self.spaces) | {self.exit}
        self.adjacent: dict[str, list[str]] = {s: [] for s in known}
        for a, b in spec["edges"]:
            if a not in known or b not in known:
                raise ValueError(f"cave {self.id}: edge {a}-{b} names an unknown space")
            self.adjacent[a].append(b)
            self.adjacent[b].append(a)
        self.barriers: dict[frozenset[str], str] = {}
        for ob in spec.get("obstacles", []):
            a, b = ob["between"]
            if b not in self.adjacent.get(a, ()):
                raise ValueError(f"cave {self.id}: obstacle {ob['card']} is not on an edge")
            self.barriers[frozenset((a, b))] = ob["card"]
        self.edges = [list(e) for e in spec["edges"]]
        self.region_of: dict[str, int] = self._regions()
        #: the obstacle cards on the edges around each region (what its apprentices could cross)
        self.region_obstacles: dict[int, frozenset[str]] = {r: frozenset() for r in set(self.region_of.values())}
        for edge, card in self.barriers.items():
            for space in edge:
                r = self.region_of[space]
                self.region_obstacles[r] = self.region_obstacles[r] | {card}
        #: the regions each region borders, with the obstacle between: {region: [(card, region)]}
        self.region_links: dict[int, list[tuple[str, int]]] = {r: [] for r in self.region_obstacles}
        for edge, card in self.barriers.items():
            a, b = (self.region_of[space] for space in edge)
            if a != b:
                self.region_links[a].append((card, b))
                self.region_links[b].append((card, a))

    def _regions(self) -> dict[str, int]:
        """Number the parts of the cave that obstacles divide it into: two spaces are in
        one region when a walk joins them without crossing an obstacle."""
        region: dict[str, int] = {}
        for origin in [*self.spaces, self.exit]:
            if origin in region:
                continue
            number = len(set(region.values()))
            region[origin] = number
            frontier = [origin]
            while frontier:
                node = frontier.pop()
                for nb in self.adjacent[node]:
                    if nb not in region and self.barrier(node, nb) is None:
                        region[nb] = number
                        frontier.append(nb)
        return region

    def obstacles_around(self, space: str) -> frozenset[str]:
        """The obstacle cards an apprentice on ``space`` could use without crossing another
        obstacle first: those on the edges around its region."""
        return self.region_obstacles[self.region_of[space]]

    def reaches_exit(self, space: str) -> bool:
        """True if an apprentice on ``space`` can walk out of the cave without crossing an obstacle."""
        return self.region_of[space] == self.region_of[self.exit]

    def reach(self, space: str, crossable: Collection[str]) -> frozenset[int]:
        """The regions an apprentice on ``space`` could get to, crossing (as often as it
        likes) only the obstacles whose card is in ``crossable``."""
        seen = {self.region_of[space]}
        frontier = list(seen)
        while frontier:
            for card, other in self.region_links[frontier.pop()]:
                if card in crossable and other not in seen:
                    seen.add(other)
                    frontier.append(other)
        return frozenset(seen)

    def obstacles_next_to(self, regions: Iterable[int]) -> frozenset[str]:
        """The obstacle cards on the edges around any of ``regions``."""
        return frozenset().union(*(self.region_obstacles[r] for r in regions))

    def roomy(self, apprentices: int) -> bool:
        """True if every region can take an apprentice crossing into it while all the others
        stand in it (it has a space for each apprentice, or holds the exit). Then an
        apprentice holding an obstacle's card can always, in some run of the game, cross it;
        the deadlock test relies on this for being exact (the default caves are roomy)."""
        sizes: dict[int, int] = {}
        for space, r in self.region_of.items():
            sizes[r] = sizes.get(r, 0) + 1
        exit_region = self.region_of[self.exit]
        return all(r == exit_region or n >= apprentices for r, n in sizes.items())

    def barrier(self, a: str, b: str) -> str | None:
        """The obstacle card needed to cross from ``a`` to ``b`` (None when open)."""
        return self.barriers.get(frozenset((a, b)))

    def walks(self, origin: str, steps: int, cards: dict[str, int]) -> dict[tuple[str, tuple[str, ...]], int]:
        """Every (destination, obstacle cards given up) reachable from ``origin`` in at most
        ``steps`` steps, mapped to the fewest steps it takes.

        Apprentices on the way do not block (passing costs the step anyway); the caller
        removes occupied destinations. A walk stops at the exit: whoever steps out is gone.
        Cards limit which obstacles can be crossed, each crossing costing one card.
        """
        start: tuple[str, tuple[str, ...]] = (origin, ())
        best: dict[tuple[str, tuple[str, ...]], int] = {start: 0}
        frontier = [start]
        for depth in range(1, steps + 1):
            nxt: list[tuple[str, tuple[str, ...]]] = []
            for node, spent in frontier:
                if node == self.exit:
                    continue
                for nb in self.adjacent[node]:
                    card = self.barrier(node, nb)
                    if card is None:
                        key = (nb, spent)
                    else:
                        if spent.count(card) >= cards.get(card, 0):
                            continue
                        key = (nb, tuple(sorted(spent + (card,))))
                    if key not in best:
                        best[key] = depth
                        nxt.append(key)
            frontier = nxt
            if not frontier:
                break
        best.pop(start, None)
        return {k: v for k, v in best.items() if k[0] != origin}

    def distance(self, origin: str, target: str, ignore_barriers: bool = True) -> int | None:
        """Plain step count between two spaces (None when unreachable)."""
        seen = {origin: 0}
        frontier = [origin]
        while frontier:
            nxt: list[str] = []
            for node in frontier:
                if node == self.exit and node != origin:
                    continue
                for nb in self.adjacent[node]:
                    if nb in seen or (not ignore_barriers and self.barrier(node, nb)):
                        continue
                    seen[nb] = seen[node] + 1
                    nxt.append(nb)
            frontier = nxt
        return seen.get(target)

    def public(self) -> dict[str, Any]:
        """The drawing data the tablet needs (no game state): made once, as the cave never
        changes, and shared by every view (so never changed in place)."""
        return self._public

    @cached_property
    def _public(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "spaces": list(self.spaces),
            "start": list(self.start), "exit": self.exit,
            "edges": [{"between": [a, b], "obstacle": self.barrier(a, b)} for a, b in self.edges],
            "positions": {k: list(v) for k, v in self.positions.items()},
        }


def is_sub_multiset(small: Iterable[str], big: Iterable[str]) -> bool:
    need = Counter(small)
    have = Counter(big)
    return all(have[k] >= n for k, n in need.items())


def prune_dominated(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop options that another option to the same space beats: it gives up no more cards,
    does not need double speed where this one does, and (for ordinary moves, whose
    unused steps may still matter) takes no more steps."""
    keep: list[dict[str, Any]] = []
    for a in options:
        dominated = False
        for b in options:
            if b is a or b["to"] != a["to"]:
                continue
            if b["double_speed"] and not a["double_speed"]:
                continue
            if not is_sub_multiset(b["spend"], a["spend"]):
                continue
            if not a["double_speed"] and b["steps"] > a["steps"]:
                continue
            if sorted(b["spend"]) == sorted(a["spend"]) and b["double_speed"] == a["double_speed"]:
                continue  # the same option (walks() gives one per destination and cost)
            dominated = True
            break
        if not dominated:
            keep.append(a)
    return keep


class MovementRules:
    """The movement phase of Mirakel Mix, mixed into the engine.

    ``state["movement"]`` is ``{"queue": [{"seat", "steps"}, ...], "used": steps taken by
    the current mover, "double": double speed used in this go, "moved": any step taken}``;
    the first in the queue is moving. Uses the engine's ``cave_of``,
    ``flask_names``, ``obstacles``, ``_name`` and ``_end_go``.
    """

    if TYPE_CHECKING:  # provided by the engine this is mixed into
        flask_names: dict[str, str]
        obstacles: list[str]

        def cave_of(self, s: State) -> Cave: ...
        def _name(self, s: State, seat: int) -> str: ...
        def _end_go(self, s: State) -> None: ...
        def announce(self, state: State, event: str, **fields: Any) -> None: ...

    def mover(self, s: State) -> int | None:
        m = s.get("movement")
        return m["queue"][0]["seat"] if m else None

    def steps_left(self, s: State) -> int:
        """Steps the current mover may still take (none after a double-speed move: it is
        the whole move, without a stop-over)."""
        m = s["movement"]
        if m["double"]:
            return 0
        left: int = m["queue"][0]["steps"] - m["used"]
        return left

    def move_options(self, s: State) -> list[dict[str, Any]]:
        """Every destination the current mover can reach, with its cost: the obstacle
        cards given up, whether double speed is used, and the steps it takes."""
        m = s.get("movement")
        if not m or m["double"]:
            return []
        seat = m["queue"][0]["seat"]
        cave = self.cave_of(s)
        here = s["apprentices"][seat]
        cards = s["cards"][seat]
        taken = {p for i, p in enumerate(s["apprentices"]) if i != seat and p is not None}
        left = self.steps_left(s)
        options: list[dict[str, Any]] = []
        if left > 0:
            for (to, spent), steps in cave.walks(here, left, cards).items():
                if to not in taken:
                    options.append({"to": to, "spend": list(spent), "double_speed": False, "steps": steps})
        if (m["used"] == 0 and not m["moved"] and cards.get("double_speed", 0) > 0
                and seat not in s["turn"]["double_used"]):
            for (to, spent), steps in cave.walks(here, 2 * left, cards).items():
                if to not in taken:
                    options.append({"to": to, "spend": list(spent), "double_speed": True, "steps": steps})
        return prune_dominated(options)

    def swap_options(self, s: State) -> list[dict[str, Any]]:
        """place_swap actions open to the current mover (one card per swap), at any moment
        of the mover's go: before the first step, between steps, and after the last step
        or a double-speed move, until the go ends (DEFAULTS.md)."""
        m = s.get("movement")
        if not m:
            return []
        seat = m["queue"][0]["seat"]
        cards = s["cards"][seat]
        if cards.get("place_swap", 0) <= 0:
            return []
        cave = self.cave_of(s)
        here = s["apprentices"][seat]
        out: list[dict[str, Any]] = []
        for nb in cave.adjacent[here]:
            if nb in s["apprentices"] and nb != here:
                card = cave.barrier(here, nb)
                if card is not None and cards.get(card, 0) <= 0:
                    continue
                out.append({"type": "place_swap", "space": nb, "spend": [card] if card else []})
        return out

    def _give_back(self, s: State, seat: int, card: str) -> None:
        s["cards"][seat][card] -= 1
        s["piles"][card] += 1

    def _need_mover(self, s: State) -> int:
        if s["phase"] != "move":
            raise IllegalAction("nobody is moving an apprentice now")
        seat: int = s["movement"]["queue"][0]["seat"]
        return seat

    def _do_move(self, s: State, a: Action) -> None:
        to, spend, double = a["to"], a["spend"], a["double_speed"]
        cave = self.cave_of(s)
        if to is None and (spend or double):
            raise InvalidAction('staying where you are ("to": null) gives up no potion')
        seat = self._need_mover(s)
        if to is None:  # let the remaining steps go to waste
            self._end_go(s)
            return
        match = None
        for opt in self.move_options(s):
            if opt["to"] == to and sorted(opt["spend"]) == sorted(spend) and opt["double_speed"] == double:
                match = opt
                break
        if match is None:
            raise IllegalAction(self._why_not_move(s, seat, to, spend, double))
        m = s["movement"]
        if double:
            self.announce(s, "double_speed", seat=seat, steps=2 * self.steps_left(s))
        for card in spend:
            self._give_back(s, seat, card)
            self.announce(s, "crossed", seat=seat, obstacle=self.flask_names[card])
        if double:
            self._give_back(s, seat, "double_speed")
            s["turn"]["double_used"].append(seat)
            m["double"] = True
        else:
            m["used"] += match["steps"]
        m["moved"] = True
        s["apprentices"][seat] = to
        if to == cave.exit:
            s["winner"] = seat
            self.announce(s, "left_the_cave", seat=seat)
            self._end_go(s)
            return
        # The go ends by itself unless a place swap could still be played: on the way
        # (steps remain) or after the last step, until the mover stays (DEFAULTS.md).
        if not self.swap_options(s):
            self._end_go(s)

    def _why_not_move(self, s: State, seat: int, to: str, spend: list[str], double: bool) -> str:
        cave = self.cave_of(s)
        cards = s["cards"][seat]
        m = s["movement"]
        if to == s["apprentices"][seat]:
            return "your apprentice is already there: to let your steps go to waste, stay"
        if self.steps_left(s) <= 0:
            return "your steps are used up: you may still swap places, or stay to end your move"
        if to in s["apprentices"]:
            other = s["apprentices"].index(to)
            return f"only one apprentice per space: {self._name(s, other)} stands on {to}"
        for card in set(spend):
            if card not in self.obstacles:
                return f"{card!r} is not an obstacle potion: only flame wall, poison pit, lightning grid and monster crypt cards are given up to cross obstacles"
            if spend.count(card) > cards.get(card, 0):
                return f"you do not have enough {self.flask_names[card]} potions to give up"
        if double:
            if cards.get("double_speed", 0) <= 0:
                return "you have no double-speed potion"
            if seat in s["turn"]["double_used"]:
                return "only one double-speed potion per player per turn"
            if m["used"] or m["moved"]:
                return "double speed doubles your whole move, without a stop-over: use it before taking any step"
        left = self.steps_left(s) * (2 if double else 1)
        free = cave.walks(s["apprentices"][seat], left, {c: 99 for c in self.obstacles})
        needs = [sp for (dest, sp), st in free.items() if dest == to]
        if not needs:
            dist = cave.distance(s["apprentices"][seat], to)
            return f"{to} is {dist} steps away; you may move {left}" if dist else f"you cannot reach {to}"
        crossed = {c for sp in needs for c in sp}
        extra = [c for c in spend if c not in crossed]
        if extra:
            return f"no {self.flask_names[extra[0]]} lies on your way to {to}: keep that potion"
        cheapest = min(needs, key=len)
        missing = [c for c in set(cheapest) if cheapest.count(c) > spend.count(c)]
        if missing:
            c = missing[0]
            if cards.get(c, 0) < cheapest.count(c):
                return f"you cannot cross the {self.flask_names[c]} without a {self.flask_names[c]} potion to give up"
            return f"crossing the {self.flask_names[c]} costs a {self.flask_names[c]} potion: give it up to pass"
        if double and any(o["to"] == to and not o["double_speed"] for o in self.move_options(s)):
            return f"you reach {to} without double speed: keep that potion for a longer move"
        return "that move does not match a way through the cave: choose one of the moves offered"

    def _do_place_swap(self, s: State, a: Action) -> None:
        cave = self.cave_of(s)
        space, given = a["space"], a["spend"]        # spend left out: whatever the swap costs
        seat = self._need_mover(s)
        here = s["apprentices"][seat]
        if s["cards"][seat].get("place_swap", 0) <= 0:
            raise IllegalAction("you have no place-swap potion")
        if space not in cave.adjacent[here]:
            raise IllegalAction("a place swap works only with an apprentice on an adjacent space")
        if space not in s["apprentices"]:
            raise IllegalAction(f"nobody stands on {space} to swap places with")
        card = cave.barrier(here, space)
        need = [card] if card else []
        spend = need if given is None else given  # left out: whatever the swap costs
        if sorted(spend) != need:
            raise IllegalAction(f"this swap costs the place-swap potion{' and a ' + self.flask_names[card] + ' potion' if card else ''}, nothing else")
        if card and s["cards"][seat].get(card, 0) <= 0:
            raise IllegalAction(f"a {self.flask_names[card]} lies between you: swapping across it also costs a {self.flask_names[card]} potion, and you have none")
        other = s["apprentices"].index(space)
        self._give_back(s, seat, "place_swap")
        self.announce(s, "swapped", seat=seat, other=self._name(s, other), space=space, was=here)
        if card:
            self._give_back(s, seat, card)
            self.announce(s, "crossed", seat=seat, obstacle=self.flask_names[card])
        s["apprentices"][other], s["apprentices"][seat] = here, space
        if self.steps_left(s) <= 0 and not self.swap_options(s):
            self._end_go(s)
