"""The cauldron plug-in: builds the real cauldron, or its simulated twin, whose routes
(``web.py``: /api/v1/sim/cauldron/...) and tablet panel (``static/sim.js``, served at
``/devices/cauldron/sim.js``) stand in for a hand at the grip (``device.toml`` declares
its config keys and pins)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from controller.config import Config

from ... import BuildContext
from ...base import Device

if TYPE_CHECKING:
    from flask import Blueprint

    from controller.service.check import TableCheck


def build(config: Config, context: BuildContext) -> Device | None:
    """The simulated cauldron (``sim``), the real one if ``[cauldron] enabled``, else None."""
    if context.sim:
        from ...sim_cauldron import SimulatedCauldron
        return SimulatedCauldron.from_config(config["simulation"], config["cauldron"],
                                             sink=context.sink, on_notice=context.on_notice)
    section = config["cauldron"]
    if not section["enabled"]:
        return None
    from ...cauldron import Cauldron
    from ...pins import make_pin_factory
    return Cauldron.from_config(section, pin_factory=make_pin_factory(config["gpio"]["pin_factory"]),
                                sink=context.sink, on_notice=context.on_notice)


def blueprint() -> Blueprint:
    from .web import bp
    return bp


def check(run: TableCheck) -> None:
    """Its parts of `potionpi check` (``checks.py``; not ``check.py``, which would hide this function), on ``run``'s results."""
    from .checks import CauldronCheck
    CauldronCheck(run)()
