"""A simulated Pico on a real pseudo-terminal, and host floors with short time limits."""
from __future__ import annotations

import time

import pytest

from controller.devices.floor_serial import SerialForestFloor
from controller.devices.pico_link import LinkTimings
from controller.devices.sim_pico import Faults, SimPico

STEPS_PER_ANT = 10
ANTS = 16
REV = STEPS_PER_ANT * ANTS

# Short limits keep the suite fast; the protocol is the same as with the defaults.
FAST = {"heartbeat_s": 0.05, "lost_after_s": 0.4, "rto_s": 0.02, "rto_max_s": 0.2,
        "hello_timeout_s": 0.3, "backoff_s": 0.02, "backoff_max_s": 0.2,
        "wrong_firmware_retry_s": 0.3}


def wait_for(predicate, timeout=5.0, step=0.005):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


@pytest.fixture
def sim():
    pico = SimPico(steps_per_rev=REV, start=50, faults=Faults())
    yield pico
    pico.close()


@pytest.fixture
def make_floor(sim):
    made = []

    def make(port=None, **config):
        cfg = {"ants_around": ANTS, "steps_per_ant": STEPS_PER_ANT, "top_speed": 4000,
               "acceleration": 40000, "home_speed": 1500, "serial_port": port or sim.port,
               "link": dict(FAST, **config.pop("link", {}))}
        cfg.update(config)
        floor = SerialForestFloor(cfg)
        made.append(floor)
        return floor

    yield make
    for floor in made:
        floor.close()


def ready(floor):
    """Connected, homed and at rest."""
    return (floor.link.state == "connected" and floor.status()["homed"]
            and floor.state == "idle")


@pytest.fixture
def timings():
    return LinkTimings.from_dict(FAST)
