"""Version races over real HTTP: 20 tablets tap at the same version, exactly one wins;
taps meant for the previous game never land in the new one."""
from __future__ import annotations

import http.client
import json
import os
import threading
import urllib.parse

from tests.web.helpers import AUTH, PIN, start_game


def post(url: str, body: dict, source: str = "127.0.0.1") -> tuple[int, dict]:
    """POST from ``source``: every tablet is its own device (the server caps connections
    per address, so twenty taps from one address would not be twenty tablets)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20, source_address=(source, 0))
    try:
        conn.request("POST", parts.path, body=json.dumps(body),
                     headers={"Content-Type": "application/json", "X-Table-Pin": PIN})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def race(url: str, bodies: list[dict]) -> list[tuple[int, dict]]:
    results: list[tuple[int, dict]] = [(0, {})] * len(bodies)
    go = threading.Barrier(len(bodies))

    def tap(i):
        go.wait()
        results[i] = post(url, bodies[i], source=f"127.0.5.{i + 1}")
    threads = [threading.Thread(target=tap, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_twenty_way_version_races_have_exactly_one_winner(client, live, proof_line):
    session = start_game(client)
    rounds = int(os.environ.get("PROOF_RACE_ROUNDS", "10"))      # bench: 100
    for _ in range(rounds):
        drop = session["legal_actions"][0]
        body = {"action": drop, "version": session["version"], "game_id": session["id"]}
        results = race(f"{live}/api/v1/session/actions", [body] * 20)
        statuses = sorted(status for status, _ in results)
        assert statuses == [200] + [409] * 19, statuses
        session = client.get("/api/v1/session").get_json()
        assert session["version"] == body["version"] + 1        # applied once, not twenty times
    proof_line("20-way version races", rounds, 0, "exactly one winner each")


def test_taps_racing_a_new_game_never_land_in_it(client, live, proof_line):
    old = start_game(client, seed=1)
    taps = [{"action": old["legal_actions"][0], "version": 0, "game_id": old["id"]}] * 10
    new_game = {"game": "mirakel-mix", "players": ["Cem", "Dana"], "seed": 2}
    results = []
    barrier = threading.Barrier(2)

    def tapping():
        barrier.wait()
        results.extend(race(f"{live}/api/v1/session/actions", taps))
    t = threading.Thread(target=tapping)
    t.start()
    barrier.wait()
    status, new = post(f"{live}/api/v1/session", new_game)
    t.join(30)
    assert status == 201
    now = client.get("/api/v1/session").get_json()
    assert now["id"] == new["id"] and now["version"] == 0       # no old tap reached the new game
    assert sorted(s for s, _ in results).count(200) <= 1         # at most one, in the old game
    proof_line("taps racing a new game", len(taps), 0)


def test_refused_actions_change_nothing(client, proof_line):
    session = start_game(client)
    refused = [{"type": "fly"}, {"type": "drop", "colour": "pink"}, {"type": "empty_bowl", "bowl": 99},
               {"type": "undo"}, {}, []]
    for action in refused:
        response = client.post("/api/v1/session/actions", headers=AUTH,
                               json={"action": action, "version": 0, "game_id": session["id"]})
        assert 400 <= response.status_code < 500
        after = client.get("/api/v1/session").get_json()
        assert (after["version"], after["state"]) == (0, session["state"])
    proof_line("refused actions that changed state", len(refused), 0)
