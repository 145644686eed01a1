from __future__ import annotations

import pytest

from controller.devices.sim_pico import load_firmware_logic

from .fakes import FakeClock, FakeStepper


@pytest.fixture(scope="session")
def fw():
    """The firmware's pure modules (firmware/*.py), loaded as the simulated Pico loads them."""
    return load_firmware_logic()


@pytest.fixture
def rig(fw):
    """A Floor on a fake stepper: 160 steps per turn, home mark at step 0, disc at step 37."""
    clock = FakeClock()
    stepper = FakeStepper()
    floor = fw.floor.Floor(stepper, clock, steps_per_rev=160, top_speed=2000, acceleration=20000,
                           home_speed=500, max_move=320)
    return floor, stepper, clock
