"""Counts of things (ingredients, gems): plain ``{name: n}`` dicts without zeros.

States keep counts as plain dicts (they are JSON and ``clone`` copies them), so these
work on dicts and give dicts back; the arithmetic is ``collections.Counter``'s.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

Counts = dict[str, int]


def _plain(counter: Counter[str]) -> Counts:
    return {k: n for k, n in counter.items() if n}


def add(a: Mapping[str, int], b: Mapping[str, int]) -> Counts:
    """a + b."""
    out = Counter(a)
    out.update(b)
    return _plain(out)


def sub(a: Mapping[str, int], b: Mapping[str, int]) -> Counts:
    """a - b (callers take away only what ``a`` holds: see ``contains``)."""
    out = Counter(a)
    out.subtract(b)
    return _plain(out)


def common(a: Mapping[str, int], b: Mapping[str, int]) -> Counts:
    """What both hold: the smaller count of each."""
    return _plain(Counter(a) & Counter(b))


def contains(a: Mapping[str, int], b: Mapping[str, int]) -> bool:
    """True if ``a`` holds at least everything ``b`` counts."""
    return all(a.get(k, 0) >= n for k, n in b.items())


def total(a: Mapping[str, int]) -> int:
    return sum(a.values())


def merge(parts: Iterable[Mapping[str, int]]) -> Counts:
    """All of them together."""
    out: Counter[str] = Counter()
    for part in parts:
        out.update(part)
    return _plain(out)


def words(counts: Mapping[str, int], names: Mapping[str, str] | Iterable[str]) -> str:
    """``{"ruby": 2, "moss": 1}`` → "2 ruby, 1 moss" in the order of ``names`` (a list of
    ids, or ids to their names): "nothing" when empty."""
    said = names if isinstance(names, Mapping) else {k: k for k in names}
    parts = [f"{counts[k]} {said[k]}" for k in said if counts.get(k)]
    return ", ".join(parts) if parts else "nothing"
