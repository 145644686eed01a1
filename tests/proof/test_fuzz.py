"""Fuzzed requests to every endpoint: never a 5xx, always a sentence (issue 15 items 7, 8).

Hypothesis picks an endpoint of the app's own URL map and a body: any JSON (strings with
lone surrogates included), JSON nested far deeper than any real request, raw bytes, or
nothing, with or without the PIN. 1,000 cases in CI; the bench runs more.
"""
from __future__ import annotations

import json
import logging

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.web.helpers import AUTH, start_game

# every character, lone surrogates included (hypothesis leaves them out by default)
TEXT = st.text(st.characters(exclude_categories=()), max_size=12)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(TEXT | st.sampled_from(["action", "type", "version", "game_id",
                                                             "pin", "token", "seat", "players", "game",
                                                             "colour", "detents", "cards", "black"]),
                                      inner, max_size=4), max_leaves=12)
NAMED = st.fixed_dictionaries({}, optional={
    "game": st.sampled_from(["mirakel-mix", "zaubercocktail", "zauberwald", "chess"]) | TEXT,
    "players": st.lists(TEXT, max_size=6) | JSON, "pin": TEXT | JSON, "token": TEXT | JSON,
    "action": st.fixed_dictionaries({"type": st.sampled_from(["drop", "undo", "lay_down", "fly"]) | TEXT},
                                    optional={"colour": TEXT, "seat": JSON, "cards": JSON}) | JSON,
    "version": st.integers() | JSON, "game_id": st.integers() | JSON, "seed": st.integers() | JSON,
    "detents": st.integers() | JSON, "seat": st.integers() | JSON, "hand": JSON, "cards": JSON})


def nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


BODIES = (JSON.map(lambda v: json.dumps(v).encode()) | NAMED.map(lambda v: json.dumps(v).encode())
          | st.integers(500, 5000).map(nested)
          | st.integers(500, 5000).map(lambda d: b"[" * d + b"]" * d)
          | st.binary(max_size=64) | st.just(b""))


def endpoints(app) -> list[tuple[str, str]]:
    found = []
    for rule in app.url_map.iter_rules():
        path = rule.rule.replace("<path:filename>", "app.js").replace("<game_id>", "zaubercocktail") \
                        .replace("<token>", "%ED%A0%80")   # a lone surrogate, as its bytes
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            found.append((method, path))
    return found


def test_fuzzed_requests_to_every_endpoint_never_get_a_5xx(app, caplog, proof_line):
    client = app.test_client()
    start_game(client)
    routes = endpoints(app)
    tried, failures = [0], []

    @settings(max_examples=int(__import__("os").environ.get("PROOF_FUZZ_CASES", "1000")), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(route=st.sampled_from(routes), body=BODIES, pin=st.booleans(),
           header_pin=st.sampled_from(["4711", "0000", "", "x" * 300]))
    def one(route, body, pin, header_pin):
        method, path = route
        headers = {"Content-Type": "application/json"}
        if pin:
            headers["X-Table-Pin"] = header_pin
        response = client.open(path, method=method, data=body if method == "POST" else None,
                               headers=headers, buffered=False)
        try:
            tried[0] += 1
            if response.status_code >= 500:
                failures.append((method, path, body[:80], response.status_code))
            elif response.status_code >= 400 and path.startswith("/api/"):
                error = response.get_json()["error"]
                assert isinstance(error, str) and error and "Traceback" not in error
        finally:
            response.close()
        if response.status_code == 429:                  # the PIN budget closed: open it again
            gate = app.extensions["potionpi"].gate
            gate.tries.clear()
            gate.budget.succeeded()

    with caplog.at_level(logging.ERROR):
        one()
    tracebacks = [r for r in caplog.records if r.exc_info]
    proof_line("fuzzed requests", tried[0], len(failures) + len(tracebacks),
               f"{len(routes)} endpoints, 0 allowed 5xx")
    assert failures == [], failures[:5]
    assert tracebacks == [], tracebacks[0].getMessage()


def test_deep_json_and_lone_surrogates_are_400_with_a_sentence(client, caplog):
    """The issue's cases: 980 deep to /preview and /login, "\\ud800" as PIN, token, player."""
    start_game(client)
    cases = [("/api/v1/zaubercocktail/preview", nested(980), "nested too deeply"),
             ("/api/v1/login", nested(980), "nested too deeply"),
             ("/api/v1/login", b'{"pin": "\\ud800"}', "lone surrogate"),
             ("/api/v1/zaubercocktail/send", b'{"token": "\\ud800"}', "lone surrogate"),
             ("/api/v1/session", b'{"game": "mirakel-mix", "players": ["\\ud800", "Ben"]}', "lone surrogate")]
    with caplog.at_level(logging.ERROR):
        for path, body, reason in cases:
            response = client.post(path, data=body, headers={**AUTH, "Content-Type": "application/json"})
            assert response.status_code == 400, (path, response.get_json())
            assert reason in response.get_json()["error"]
    assert not caplog.records                                   # and no traceback logged
    assert client.get("/api/v1/session").get_json()["players"] == ["Ann", "Ben"]
