"""The forest-floor plug-in: builds the configured back-end (none, sim, gpio, serial),
tells the table when a turn ends (``wiring.py``), and serves the floor's routes and its
tablet module, ``/devices/forest_floor/floor.js``, for any game that turns the floor
(``web.py``). ``device.toml`` declares its config keys and pins."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.config import Config

from ... import BuildContext
from ...forest_floor import ForestFloor

if TYPE_CHECKING:
    from flask import Blueprint

    from controller.service.check import TableCheck

    from controller.table import Table

    from ...base import Device


def build(config: Config, context: BuildContext) -> ForestFloor | None:
    """The configured back-end, or None when the master turns the floor by hand.

    ``sim_mcu``: the serial back-end on a simulated Pico, whose handle joins the
    context's ``closers`` (closed with the devices).
    """
    section = config["forest_floor"]
    backend = section["backend"]
    if context.sim_mcu:
        backend = "serial"
    elif backend == "auto":
        backend = "sim" if context.sim else "none"
    if backend == "none":
        return None
    if backend == "sim":
        from ...floor_sim import SimulatedForestFloor
        return SimulatedForestFloor.from_config(section, config["simulation"])
    if backend == "gpio":
        from ...floor_gpio import GpioForestFloor
        from ...pins import make_pin_factory
        return GpioForestFloor.from_config(section,
                                           pin_factory=make_pin_factory(config["gpio"]["pin_factory"]))
    from ...floor_serial import SerialForestFloor
    port = None
    if context.sim_mcu:
        from controller.firmware_tools import start_sim_pico
        port, handle = start_sim_pico(
            steps_per_rev=round(section["ants_around"] * section["steps_per_ant"]))
        context.closers.append(handle)
        context.say(f"  forest floor: simulated Pico on {port}")
    return SerialForestFloor.from_config(section, serial_port=port)


def wire(device: Device, table: Table) -> None:
    """A finished turn reaches the game as a sensor action; a turn the game stopped
    waiting for never moves the floor afterwards."""
    from .wiring import FloorReporter, TurnGate
    assert isinstance(device, ForestFloor)
    device.on_change(FloorReporter(table))
    table.on_publish(TurnGate(table, device))


def blueprint() -> Blueprint:
    from .web import bp
    return bp


def page_state() -> dict[str, Any]:
    """The floor's report in the tablet page (``GET /api/v1/floor``'s answer), so a reload
    draws the floor without asking."""
    from .web import floor_report
    return floor_report()


def check(run: TableCheck) -> None:
    """Its parts of `potionpi check` (``checks.py``; not ``check.py``, which would hide this function), on ``run``'s results."""
    from .checks import FloorCheck
    FloorCheck(run)()
