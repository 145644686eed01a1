"""Ingredient counts: plain ``{ingredient: n}`` dicts that never hold a zero."""
from __future__ import annotations


def add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, n in b.items():
        if n:
            out[k] = out.get(k, 0) + n
    return {k: n for k, n in out.items() if n}


def sub(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, n in b.items():
        out[k] = out.get(k, 0) - n
    return {k: n for k, n in out.items() if n}


def contains(a: dict[str, int], b: dict[str, int]) -> bool:
    return all(a.get(k, 0) >= n for k, n in b.items())


def total(a: dict[str, int]) -> int:
    return sum(a.values())


def words(counts: dict[str, int], names: dict[str, str]) -> str:
    """``{"ruby": 2}`` → "2 ruby" (in the data's order)."""
    parts = [f"{counts[k]} {names[k]}" for k in names if counts.get(k)]
    return ", ".join(parts) if parts else "nothing"
