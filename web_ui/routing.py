"""URL rules whose ``url_for`` builders are made the first time they are used.

Werkzeug makes two Python functions per rule when the rule is added (an AST put through
``compile()``, for building the rule's URL with and without extra arguments): ~0.2 ms a
rule here, ~8 ms of every start for potionpi's ~50 rules, most of which no ``url_for``
ever names. Matching a request does not use them, so they wait until one is built.
"""
from __future__ import annotations

from typing import Any, Callable

from werkzeug.routing import Rule


class LazyRule(Rule):
    """A werkzeug ``Rule`` whose builders are compiled on first use, then kept."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        made: Callable[..., tuple[str, str]] | None = None
        eager = super()._compile_builder

        def build(rule: Rule, **values: Any) -> tuple[str, str]:
            nonlocal made
            if made is None:       # two threads may both compile it: the same function
                made = eager(append_unknown)
            return made(rule, **values)

        return build
