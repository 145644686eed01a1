"""A simulated Pico on a real pseudo-terminal, and host floors with short time limits."""
from __future__ import annotations

import time

import pytest

from controller.config import section
from controller.devices.floor_serial import SerialForestFloor
from controller.devices.pico_link import LinkTimings
from controller.devices.sim_pico import Faults, SimPico

from tests.sizes import TIMEOUT_SCALE

STEPS_PER_ANT = 10
ANTS = 16
REV = STEPS_PER_ANT * ANTS

# Short limits keep the suite fast; the protocol is the same as with the defaults. The
# simulated Pico is a Python thread that a busy machine (a CPU hog on every core, load 30)
# holds up for well over a second: a link is called lost only after 3 s of silence and a
# HELLO waits 2 s, so only a Pico that really stops talking loses it.
FAST = {"heartbeat_s": 0.05, "lost_after_s": 3.0, "rto_s": 0.02, "rto_max_s": 0.2,
        "hello_timeout_s": 2.0, "backoff_s": 0.02, "backoff_max_s": 0.2,
        "wrong_firmware_retry_s": 0.3}
# A wait for a state gives it at least this long (scaled with the tests' timeouts): the
# deadline is only reached by a test that fails, so it is generous, never a speed limit.
STATE_WAIT_S = 30.0


def wait_for(predicate, timeout=5.0, step=0.005):
    deadline = time.monotonic() + max(timeout, STATE_WAIT_S) * TIMEOUT_SCALE
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def settled(floor):
    """Wait until ``floor`` rests (idle or fault), as long as any state wait: its end is
    told after the thread that heard it lets go of the floor, so a busy machine can hold
    it up for seconds. The listeners hear of it just after that (``heard``)."""
    return floor.wait_idle(STATE_WAIT_S * TIMEOUT_SCALE)


def heard(seen, what):
    """Wait until the list a listener appends to holds ``what``: a listener is called
    once the floor's lock is let go, so it may hear the end after ``settled`` returned."""
    return wait_for(lambda: what in seen)


@pytest.fixture
def sim():
    pico = SimPico(steps_per_rev=REV, start=50, faults=Faults())
    yield pico
    pico.close()


def serial_floor(port, link=None, **settings):
    """A floor from the [forest_floor] section with quick test speeds on ``port``;
    ``settings`` override its keys (``homing_speed``, ...), ``link`` the FAST timings.
    These floors home on connect (``home_on_connect = true``) unless told otherwise:
    most tests here start from a homed floor; test_unasked.py covers the default."""
    cfg = {"ants_around": ANTS, "steps_per_ant": float(STEPS_PER_ANT), "top_speed": 4000.0,
           "acceleration": 40000.0, "homing_speed": 1500.0, "home_on_connect": True, **settings}
    return SerialForestFloor.from_config(section("forest_floor", **cfg), serial_port=port,
                                         timings=LinkTimings.from_dict(dict(FAST, **(link or {}))))


@pytest.fixture
def make_floor(sim):
    made = []

    def make(port=None, **settings):
        floor = serial_floor(port or sim.port, **settings)
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
