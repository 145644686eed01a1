"""Counts of things (ingredients, gems): plain ``{name: n}`` dicts without zeros.

States keep counts as plain dicts (they are JSON and ``clone`` copies them), so these
take dicts and give new dicts back. Plain loops, not ``collections.Counter``: for counts
this small its constructor costs more than the sums (twice the time per action in
``bench/bench_zauberwald.py``).
"""
from __future__ import annotations

from typing import Iterable, Mapping

Counts = dict[str, int]


def add(a: Mapping[str, int], b: Mapping[str, int]) -> Counts:
    """a + b."""
    out = dict(a)
    for k, n in b.items():
        out[k] = out.get(k, 0) + n
    return {k: n for k, n in out.items() if n}


def sub(a: Mapping[str, int], b: Mapping[str, int]) -> Counts:
    """a - b (callers take away only what ``a`` holds: see ``contains``)."""
    out = dict(a)
    for k, n in b.items():
        out[k] = out.get(k, 0) - n
    return {k: n for k, n in out.items() if n}


def common(a: Mapping[str, int], b: Mapping[str, int]) -> Counts:
    """What both hold: the smaller count of each."""
    return {k: m for k, n in a.items() if (m := min(n, b.get(k, 0))) > 0}


def contains(a: Mapping[str, int], b: Mapping[str, int]) -> bool:
    """True if ``a`` holds at least everything ``b`` counts."""
    return all(a.get(k, 0) >= n for k, n in b.items())


def total(a: Mapping[str, int]) -> int:
    return sum(a.values())


def merge(parts: Iterable[Mapping[str, int]]) -> Counts:
    """All of them together."""
    out: Counts = {}
    for part in parts:
        for k, n in part.items():
            out[k] = out.get(k, 0) + n
    return {k: n for k, n in out.items() if n}


def words(counts: Mapping[str, int], names: Mapping[str, str] | Iterable[str]) -> str:
    """``{"ruby": 2, "moss": 1}`` → "2 ruby, 1 moss" in the order of ``names`` (a list of
    ids, or ids to their names): "nothing" when empty."""
    said = names if isinstance(names, Mapping) else {k: k for k in names}
    parts = [f"{counts[k]} {said[k]}" for k in said if counts.get(k)]
    return ", ".join(parts) if parts else "nothing"
