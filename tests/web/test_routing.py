"""url_for's builders are made when first used (web_ui/routing.py): every rule of the app
builds the very URL werkzeug's own builder makes, with and without extra arguments."""
from __future__ import annotations

from flask import url_for
from werkzeug.routing import IntegerConverter, Rule

from web_ui.routing import LazyRule


def sample_values(rule: Rule) -> dict:
    return {name: 7 if isinstance(rule._converters.get(name), IntegerConverter) else "a b/ä"
            for name in rule.arguments if name not in (rule.defaults or {})}


def test_every_rule_builds_the_url_werkzeug_builds(app):
    rules = list(app.url_map.iter_rules())
    assert len(rules) > 30 and all(isinstance(rule, LazyRule) for rule in rules)
    for rule in rules:
        values = sample_values(rule)
        for append_unknown in (False, True):
            eager = Rule._compile_builder(rule, append_unknown)
            asked = dict(values, page="2") if append_unknown else values
            assert rule.build(asked, append_unknown) == eager(rule, **asked), rule.rule


def test_url_for_names_a_route_with_its_arguments(app):
    with app.test_request_context():
        assert url_for("static", filename="table.css") == "/static/table.css"
        assert url_for("seats.seat_page", token="abc", lang="de") == "/seat/abc?lang=de"
