"""The Mirakel Mix coach (option "coach": true): odds for the next drop and a suggestion.

The engine knows every drop still in the cauldron, so the next drop's colour is a fair
draw from those counts. The suggestion looks ahead over the rest of the turn
(expectimax: the player picks the best space for each drop, the cauldron deals the
colours at random) and names the choice that gives the active player the most expected
completed potions this turn. A lab is reduced to the free colours of each flask, sorted,
so equivalent positions are worked out once and remembered between calls.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import MirakelMix

Free = tuple[tuple[int, ...], ...]  # per flask: the colour numbers of its free spaces


def chances(counts: dict[str, int]) -> dict[str, float]:
    """Chance of each colour for the next drop (colours with no drop left get 0)."""
    total = sum(counts.values())
    return {c: (n / total if total else 0.0) for c, n in counts.items()}


# A position is (live, dead, done): ``live`` the sorted free-colour tuples of flasks that
# can still be completed with the disks left to place this turn; ``dead`` how many free
# spaces of each colour the other flasks have (they only matter for the rule "a space of
# the drop's colour while there is one"); ``done`` the flasks completed so far.
Position = tuple[Free, tuple[int, ...], int]


def position(free: Free, n_colours: int, remaining: int) -> Position:
    live: list[tuple[int, ...]] = []
    dead, done = [0] * n_colours, 0
    for f in free:
        if not f:
            done += 1
        elif len(f) <= remaining:
            live.append(f)
        else:
            for c in f:
                dead[c] += 1
    return tuple(sorted(live)), tuple(dead), done


def _shrink(pos: Position, remaining: int) -> Position:
    """Flasks that can no longer be completed move from live to dead."""
    live, dead, done = pos
    if all(len(f) <= remaining for f in live):
        return pos
    keep: list[tuple[int, ...]] = []
    wasted = list(dead)
    for f in live:
        if len(f) <= remaining:
            keep.append(f)
        else:
            for c in f:
                wasted[c] += 1
    return tuple(keep), tuple(wasted), done


@lru_cache(maxsize=20_000)  # ~400 bytes an entry: a Pi Zero has little memory
def _placements(pos: Position, colour: int, remaining: int) -> tuple[Position, ...]:
    """The distinct positions after a disk for ``colour`` (rulebook: a free space of that
    colour, else any free space); ``remaining`` placements are left after this one."""
    live, dead, done = pos
    targets = [(i, colour) for i, f in enumerate(live) if colour in f]
    waste = [colour] if dead[colour] else []
    if not targets and not waste:
        targets = [(i, c) for i, f in enumerate(live) for c in set(f)]
        waste = [c for c, n in enumerate(dead) if n]
    out: list[Position] = []
    for i, c in targets:
        f = list(live[i])
        f.remove(c)
        rest = live[:i] + live[i + 1:]
        if f:
            new = (tuple(sorted(rest + (tuple(f),))), dead, done)
        else:
            new = (rest, dead, done + 1)
        out.append(_shrink(new, remaining))
    for c in waste:
        d = list(dead)
        d[c] -= 1
        out.append(_shrink((live, tuple(d), done), remaining))
    return tuple(dict.fromkeys(out))


def expected(pos: Position, queue: tuple[int, ...], counts: tuple[int, ...], random_left: int, disks: int) -> float:
    """Expected completed flasks at the end of the turn, playing the rest of it best.

    ``queue``: colours already fallen and waiting for a disk; ``random_left``: drops still
    to come from the cauldron (``counts`` per colour); ``disks``: disks the player has.
    """
    if not queue:
        return _chance(pos, counts, random_left, disks)
    remaining = min(disks, len(queue) + random_left)
    if remaining <= 0 or not pos[0]:
        return float(pos[2])
    options = _placements(pos, queue[0], remaining - 1)
    if not options:  # no space free: nothing placed
        return expected(pos, queue[1:], counts, random_left, disks)
    return max(expected(o, queue[1:], counts, random_left, disks - 1) for o in options)


@lru_cache(maxsize=20_000)
def _chance(pos: Position, counts: tuple[int, ...], random_left: int, disks: int) -> float:
    """``expected`` when the next drop is still in the cauldron."""
    remaining = min(disks, random_left)
    live, dead, done = pos
    total = sum(counts)
    if remaining <= 0 or not live or total == 0:
        return float(done)
    value = 0.0
    for c, n in enumerate(counts):
        if not n:
            continue
        options = _placements(pos, c, remaining - 1)
        best: float
        if remaining == 1:  # the last disk of the turn: only what it completes counts
            best = max(o[2] for o in options) if options else done
        else:
            rest = counts[:c] + (n - 1,) + counts[c + 1:]
            if options:
                best = max(_chance(o, rest, random_left - 1, disks - 1) for o in options)
            else:
                best = _chance(pos, rest, random_left - 1, disks)
        value += n * best
    return value / total


def _free(game: MirakelMix, lab: dict[str, list[int | None]]) -> Free:
    idx = {c: i for i, c in enumerate(game.colours)}
    return tuple(tuple(sorted(idx[game.flask_spaces[f][i]] for i, seat in enumerate(lab[f]) if seat is None))
                 for f in game.flasks)


def advise(game: MirakelMix, s: dict[str, Any]) -> dict[str, Any]:
    """The coach's panel for the public view."""
    inside = dict(s["cauldron"])
    out: dict[str, Any] = {"chances": chances(inside), "suggestion": None, "options": []}
    idx = {c: i for i, c in enumerate(game.colours)}
    counts = tuple(inside[c] for c in game.colours)
    phase = s["phase"]
    seat = s["active"]
    disks = s["disks"][seat]
    if phase == "choose_bowl":
        free = _free(game, s["lab"])
        for i, bowl in enumerate(s["bowls"]):
            if len(bowl) != game.bowl_size or None in bowl:
                continue
            after = tuple(n + bowl.count(c) for c, n in zip(game.colours, counts))
            pos = position(free, len(game.colours), min(disks, game.bowl_size))
            value = expected(pos, (), after, game.bowl_size, disks)
            out["options"].append({"bowl": i, "expected": round(value, 3)})
    elif phase == "place_disk":
        bowl = s["bowls"][s["turn"]["bowl"]]
        k = s["turn"]["disks_placed"]
        queue = tuple(idx[c] for c in bowl[k + 1:])
        random_left = game.bowl_size - len(bowl)
        for flask, space in game.disk_spaces(s):
            lab = dict(s["lab"])
            lab[flask] = list(lab[flask])
            lab[flask][space] = seat
            left = min(disks - 1, len(queue) + random_left)
            pos = position(_free(game, lab), len(game.colours), left)
            value = expected(pos, queue, counts, random_left, disks - 1)
            out["options"].append({"flask": flask, "space": space, "expected": round(value, 3)})
    elif phase == "dispense":
        bowl = s["bowls"][s["turn"]["bowl"]]
        random_left = game.bowl_size - len(bowl)
        pos = position(_free(game, s["lab"]), len(game.colours), min(disks, random_left))
        value = expected(pos, (), counts, random_left, disks)
        out["expected"] = round(value, 3)
    if out["options"]:
        best = max(out["options"], key=lambda o: o["expected"])
        out["suggestion"] = best
        out["expected"] = best["expected"]
    return out
