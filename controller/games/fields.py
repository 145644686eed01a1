"""What an action's fields and a game's set-up options may hold, declared once.

A game declares the fields of each action type (``Game.fields``) and its options
(``Game.options``); the core reads them before a handler runs, so a handler gets an
action whose fields are known good (defaults filled in, zero counts dropped) and a
malformed action is refused in any phase with one kind of sentence::

    "monster" must be 0 or 1: Monster 1 or Monster 2
    "seat" must be a seat at this table, 0 to 3
    there is no drop colour 'pink': "colour" must be one of "red", "yellow", ...

    def fields(self):
        return {"place": {"seat": Seat(), "monster": Whole(0, 1, hint="Monster 1 or Monster 2")}}

A value is checked by its JSON type as well: ``true`` is never the whole number 1.
Bounds and choices may depend on the table: ``Seat`` reads the number of seats, and a
``Choice`` may take a function of the state (the spaces of this game's cave).
"""
from __future__ import annotations

import json
from typing import Any, Callable, Collection, Mapping, TypeGuard

from ..contracts import State

#: a field without a default must be sent
REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()


class Wrong(Exception):
    """A value a field does not take; ``reason`` (optional) says what exactly, in words:
    before the field's sentence, or (``whole``) as the whole sentence after the key."""

    def __init__(self, reason: str | None = None, *, whole: bool = False):
        super().__init__(reason)
        self.reason, self.whole = reason, whole


def shown(value: object) -> str:
    """A value as the sender wrote it: "red" in quotes, 3, true, null."""
    return json.dumps(value, ensure_ascii=False)


def one_of(values: Collection[object]) -> str:
    """ "red", "blue" or "green" as words: '"red"', '"red" or "blue"', 'one of "red", ...'."""
    said = [shown(v) for v in values]
    if len(said) <= 2:
        return " or ".join(said)
    return "one of " + ", ".join(said)


def whole(value: object) -> TypeGuard[int]:
    """A JSON whole number (``True`` is not 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


class Field:
    """One field of an action, or one set-up option.

    ``hint`` says what it is for ("the number rolled on your die"); ``default`` is what a
    field left out (or sent as null, unless null is one of its values) stands for.
    """

    def __init__(self, hint: str = "", *, default: Any = REQUIRED):
        self.hint = hint
        self.default = default

    def allowed(self, state: State) -> str:
        """What the field may hold, in words ("a whole number from 1 to 6")."""
        raise NotImplementedError

    def parse(self, value: object, state: State) -> Any:
        """The value to use, or ``Wrong``."""
        raise NotImplementedError

    def takes_null(self, state: State) -> bool:
        return False

    def sentence(self, key: str, state: State, reason: str | None = None, whole: bool = False) -> str:
        """The one sentence for a value this field does not take."""
        if reason and whole:
            return f'"{key}" {reason}'
        said = f'"{key}" must be {self.allowed(state)}' + (f": {self.hint}" if self.hint else "")
        return f"{reason}: {said}" if reason else said

    def read(self, source: Mapping[str, Any], key: str, state: State) -> Any:
        """``source[key]`` checked (the default if it is left out); ``Wrong`` if not taken."""
        value = source.get(key)
        if value is None and not (key in source and self.takes_null(state)):
            if self.default is REQUIRED:
                raise Wrong()
            return self.default
        return self.parse(value, state)


class Whole(Field):
    """A whole number, optionally bounded (``low``/``high`` included)."""

    def __init__(self, low: int | None = None, high: int | None = None, hint: str = "", *,
                 default: Any = REQUIRED):
        super().__init__(hint, default=default)
        self.low, self.high = low, high

    def allowed(self, state: State) -> str:
        if self.low is not None and self.high is not None:
            if self.high == self.low + 1:
                return f"{self.low} or {self.high}"
            return f"a whole number from {self.low} to {self.high}"
        if self.low is not None:
            return f"a whole number of at least {self.low}"
        if self.high is not None:
            return f"a whole number of at most {self.high}"
        return "a whole number"

    def parse(self, value: object, state: State) -> int:
        if not whole(value) or (self.low is not None and value < self.low) \
                or (self.high is not None and value > self.high):
            raise Wrong()
        return int(value)


class Seat(Field):
    """A seat at this table: 0 to the number of players less one."""

    def allowed(self, state: State) -> str:
        return f"a seat at this table, 0 to {len(state['players']) - 1}"

    def parse(self, value: object, state: State) -> int:
        if not whole(value) or not 0 <= value < len(state["players"]):
            raise Wrong()
        return int(value)


Values = Collection[Any] | Callable[[State], Collection[Any]]


class Choice(Field):
    """One of the given values (a JSON value of the same type: ``true`` is not 1). ``None``
    among them takes null; ``noun`` names what a wrong value is not ("drop colour")."""

    def __init__(self, values: Values, hint: str = "", *, default: Any = REQUIRED, noun: str = ""):
        super().__init__(hint, default=default)
        self._values = values
        self.noun = noun

    def values(self, state: State) -> Collection[Any]:
        return self._values(state) if callable(self._values) else self._values

    def allowed(self, state: State) -> str:
        return one_of(list(self.values(state)))

    def takes_null(self, state: State) -> bool:
        return None in self.values(state)

    def parse(self, value: object, state: State) -> Any:
        if any(type(v) is type(value) and v == value for v in self.values(state)):
            return value
        if self.noun:
            raise Wrong(f"there is no {self.noun} {value!r}")
        raise Wrong()


class Flag(Field):
    """true or false."""

    def allowed(self, state: State) -> str:
        return "true or false"

    def parse(self, value: object, state: State) -> bool:
        if not isinstance(value, bool):
            raise Wrong()
        return value


class Text(Field):
    """Text of at most ``longest`` characters."""

    def __init__(self, longest: int, hint: str = "", *, default: Any = REQUIRED):
        super().__init__(hint, default=default)
        self.longest = longest

    def allowed(self, state: State) -> str:
        return f"text of at most {self.longest} letters"

    def parse(self, value: object, state: State) -> str:
        if not isinstance(value, str) or len(value) > self.longest:
            raise Wrong()
        return value


class Counts(Field):
    """How many of each named thing: ``{"red": 2, "white": 1}``, whole numbers of 0 or more;
    zero counts are dropped (a plain dict, as states keep counts)."""

    def __init__(self, names: Values, hint: str = "", *, default: Any = REQUIRED,
                 noun: str = "ingredient", unit: str = ""):
        super().__init__(hint, default=default)
        self.names = Choice(names)
        self.noun, self.unit = noun, unit

    def allowed(self, state: State) -> str:
        names = list(self.names.values(state))
        example = shown({names[0]: 2}) if names else "{}"
        what = f"a number of {self.unit} per {self.noun}" if self.unit else f"how many of each {self.noun}"
        return f"{what}, e.g. {example}, each a whole number of 0 or more"

    def parse(self, value: object, state: State) -> dict[str, int]:
        if not isinstance(value, dict) or not all(whole(n) and n >= 0 for n in value.values()):
            raise Wrong()
        known = self.names.values(state)
        unknown = [k for k in value if k not in known]
        if unknown:
            raise Wrong(f"has no {self.noun} called {unknown[0]!r}: it counts " + ", ".join(map(str, known)),
                        whole=True)
        return {k: n for k, n in value.items() if n}


class ListOf(Field):
    """A list whose every item ``item`` takes; ``distinct``: no two the same."""

    def __init__(self, item: Field, hint: str = "", *, default: Any = REQUIRED, distinct: bool = False):
        super().__init__(hint, default=default)
        self.item, self.distinct = item, distinct

    def allowed(self, state: State) -> str:
        return f"a list{' without repeats' if self.distinct else ''}, each {self.item.allowed(state)}"

    def parse(self, value: object, state: State) -> list[Any]:
        if not isinstance(value, list):
            raise Wrong()
        out = [self.item.parse(v, state) for v in value]
        if self.distinct and len(set(map(shown, out))) != len(out):
            raise Wrong()
        return out


Fields = Mapping[str, Field]


def read(source: Mapping[str, Any], fields: Fields, state: State,
         refuse: Callable[[str], Exception]) -> dict[str, Any]:
    """``source`` with every declared field checked and filled in (what is not declared
    is kept as sent); ``refuse(sentence)`` is raised for the first field that is wrong."""
    out = dict(source)
    for key, spec in fields.items():
        try:
            out[key] = spec.read(source, key, state)
        except Wrong as exc:
            raise refuse(spec.sentence(key, state, exc.reason, exc.whole)) from None
    return out


__all__ = ["Choice", "Counts", "Field", "Fields", "Flag", "ListOf", "REQUIRED", "Seat", "Text",
           "Whole", "Wrong", "one_of", "read", "shown", "whole"]
