"""Shared by the web tests (and the browser test): PIN, devices, quick game set-up."""
from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.request
from typing import Any

PIN = "4711"
SECRET = "test-secret-key-not-for-production"
AUTH = {"X-Table-Pin": PIN}


def sim_hub(table, seed: int = 7):
    """The daemon's DeviceHub with the simulated cauldron, wired to ``table`` as the daemon
    wires it (sensor actions into ``table.sensor``, engine effects back to the devices).

    Built by hand rather than with ``DeviceHub.build`` so these tests need no forest floor.
    """
    from controller.config import Config
    from controller.devices.hub import DeviceHub
    from controller.devices.sim_cauldron import SimulatedCauldron

    config = Config.defaults()
    simulation = dict(config["simulation"], seed=seed)
    cauldron = SimulatedCauldron.from_config(simulation, config["cauldron"],
                                             sink=table.sensor, on_notice=table.notice)
    hub = DeviceHub(simulated=True, cauldron=cauldron)
    table.on_effect(hub.handle_effect)
    return hub


class RealCauldronHub:
    """Devices that are not simulated (no sim routes); status only."""

    simulated = False
    cauldron = None

    def status(self) -> dict[str, Any]:
        return {"simulated": False, "cauldron": None}

    def handle_effect(self, effect: dict[str, Any]) -> None:
        pass

    def close(self) -> None:
        pass


def start_game(client, players=("Ann", "Ben"), seed: int = 7) -> dict[str, Any]:
    response = client.post("/api/v1/session", json={"game": "mirakel-mix", "players": list(players),
                                                    "seed": seed}, headers=AUTH)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def act(client, action: dict[str, Any], version: int | None = None):
    body: dict[str, Any] = {"action": action}
    if version is not None:
        body["version"] = version
    return client.post("/api/v1/session/actions", json=body, headers=AUTH)


def fill_bowls_by_hand(client) -> dict[str, Any]:
    """Set-up by manual drop entries (a table without a drop sensor): 12 drops fill the bowls."""
    session = client.get("/api/v1/session").get_json()
    while session["state"]["phase"] == "fill_bowls":
        drop = next(a for a in session["legal_actions"] if a["type"] == "drop")
        response = act(client, drop, session["version"])
        assert response.status_code == 200, response.get_json()
        session = response.get_json()
    return session


def to_phase(client, phase: str, limit: int = 60) -> dict[str, Any]:
    """Take the first legal action (drops by hand) until the game is in ``phase``."""
    session = client.get("/api/v1/session").get_json()
    for _ in range(limit):
        if session["state"]["phase"] == phase:
            return session
        response = act(client, session["legal_actions"][0], session["version"])
        assert response.status_code == 200, response.get_json()
        session = response.get_json()
    raise AssertionError(f"never reached {phase}; stuck in {session['state']['phase']}")


class Phone:
    """A player's own phone talking to the live server: it keeps its cookies as a browser
    does, so the seat it claims with a link stays its own (docs/seats.md)."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        return self.request("POST", path, body)

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    @property
    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def open_seat(self, token: str):
        """Open the seat as the phone page does (claiming it), then follow its stream."""
        from .sse import SSEClient
        status, body = self.get(f"/api/v1/seat/{token}")
        assert status == 200, body
        return SSEClient(self.base, f"/api/v1/seat/{token}/stream", cookie=self.cookie)
