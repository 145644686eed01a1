"""Builds the table's devices from config and routes engine effects to them.

``--sim`` (or no GPIO on this machine) gives simulated twins that run the same device
code on gpiozero's MockFactory pins; otherwise the real cauldron on the configured pin
factory and the configured forest-floor back-end.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from ..config import Config
from .base import Device

log = logging.getLogger(__name__)


class DeviceHub:
    """The devices of one table: ``cauldron``, ``forest_floor`` (either may be None)."""

    def __init__(self, *, simulated: bool, cauldron: Device | None = None,
                 forest_floor: Device | None = None, extras: list[Any] | None = None):
        self.simulated = simulated
        self.cauldron = cauldron
        self.forest_floor = forest_floor
        self._extras = extras or []     # things to close that are not devices (a simulated Pico)
        self._closed = False

    @classmethod
    def build(cls, config: Config, *, sim: bool, table=None, sim_mcu: bool = False,
              say: Callable[[str], None] = print) -> "DeviceHub":
        sink = table.sensor if table is not None else None
        notice = table.notice if table is not None else None
        hub = cls(simulated=sim)
        try:
            hub.cauldron = _build_cauldron(config, sim, sink, notice)
            hub.forest_floor = _build_floor(config, sim, sim_mcu, hub._extras, say)
        except Exception:
            hub.close()
            raise
        if table is not None:
            if hub.forest_floor is not None:
                hub.forest_floor.on_change(FloorReporter(table))
            if table.session() is not None:
                hub.handle_effect({"device": "*", "op": "sync", "session": table.session()})
        return hub

    @property
    def devices(self) -> list[Device]:
        return [d for d in (self.cauldron, self.forest_floor) if d is not None]

    def handle_effect(self, effect: dict[str, Any]) -> None:
        """Route an engine effect to its device; ``"*"`` effects (sync) go to all of them."""
        target = effect.get("device")
        if target == "*" and effect.get("op") == "sync":
            self._sync(effect["session"])
            return
        for device in self.devices:
            if target in ("*", device.name):
                device.handle_effect(effect)

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"simulated": self.simulated}
        for name, device in (("cauldron", self.cauldron), ("forest_floor", self.forest_floor)):
            out[name] = device.status() if device is not None else None
        return out

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for device in self.devices:
            try:
                device.close()
            except Exception:
                log.exception("closing %s failed", device.name)
        for extra in self._extras:
            try:
                extra.close()
            except Exception:
                log.exception("closing %r failed", extra)

    # --- internals -------------------------------------------------------------
    def _sync(self, session: dict[str, Any]) -> None:
        """After a new game or a restart, put simulated balls where the game says they are."""
        cauldron = self.cauldron
        if cauldron is None or not getattr(cauldron, "simulated", False):
            return
        state = session.get("state") or {}
        counts = state.get("cauldron") if session.get("game") == "mirakel-mix" else None
        if isinstance(counts, dict):
            cauldron.set_contents(counts)
        else:
            cauldron.reset()


class FloorReporter:
    """Tells the table when the floor finished a turn (or could not), as a sensor would.

    Called from the floor's motion thread; the table is told from a short-lived thread so
    a floor lock is never held while waiting for the table lock.
    """

    def __init__(self, table):
        self.table = table
        self._moving = False

    def __call__(self, status: dict[str, Any]) -> None:
        move = status.get("last_move") or {}
        if "ants" not in move:        # homing or a calibration nudge: not the master's turn
            return
        result = move.get("result")
        if result == "moving":
            self._moving = True
            return
        if not self._moving or result not in ("done", "stopped", "fault"):
            return
        self._moving = False          # one report per move, however often status repeats
        threading.Thread(target=self._report, args=(result, status.get("fault")), daemon=True).start()

    def _report(self, result: str, fault: str | None) -> None:
        session = self.table.session()
        if session is None or session["game"] != "zauberwald":
            return
        if result == "done":
            self.table.sensor({"type": "floor_turned"})
        else:
            why = fault or "the stop button was pressed"
            self.table.notice({"kind": "floor", "message": f"The forest floor stopped ({why}): "
                               "turn it the rest of the way by hand, then tap done."})


def _build_cauldron(config: Config, sim: bool, sink, notice):
    if sim:
        from .sim_cauldron import SimulatedCauldron
        return SimulatedCauldron.from_config(config["simulation"], config["cauldron"],
                                             sink=sink, on_notice=notice)
    section = config["cauldron"]
    if not section["enabled"]:
        return None
    from .cauldron import Cauldron
    from .colour_sensor import make_colour_sensor
    from .pins import make_pin_factory
    return Cauldron(section["encoder_a"], section["encoder_b"], section["beam"],
                    pin_factory=make_pin_factory(config["gpio"]["pin_factory"]),
                    detents_per_rev=section["detents_per_revolution"],
                    reverse=section["encoder_reverse"],
                    beam_dark="low" if section["beam_active_low"] else "high",
                    beam_pull_up=True if section["beam_active_low"] else False,
                    glitch_s=section["glitch_ms"] / 1000.0,
                    stuck_s=section["stuck_beam_seconds"],
                    max_rev_per_s=section["max_turns_per_second"],
                    colour_sensor=make_colour_sensor(section),
                    sink=sink, on_notice=notice)


def _build_floor(config: Config, sim: bool, sim_mcu: bool, extras: list, say):
    section = dict(config["forest_floor"])
    backend = section["backend"]
    if sim_mcu:
        backend = "serial"
    elif backend == "auto":
        backend = "sim" if sim else "none"
    if backend == "none":
        return None
    if backend == "sim":
        from .floor_sim import SimulatedForestFloor
        return SimulatedForestFloor(ants_around=section["ants_around"],
                                    steps_per_ant=section["steps_per_ant"],
                                    speed=config["simulation"]["floor_ants_per_second"])
    if backend == "gpio":
        from .floor_gpio import GpioForestFloor
        from .pins import make_pin_factory
        return GpioForestFloor(section["step_pin"], section["dir_pin"],
                               enable_pin=section["enable_pin"],
                               home_pin=None if section["home_pin"] < 0 else section["home_pin"],
                               stall_pin=None if section["stall_pin"] < 0 else section["stall_pin"],
                               start_speed=section["start_speed"],
                               homing_speed=section["homing_speed"],
                               ants_around=section["ants_around"],
                               steps_per_ant=section["steps_per_ant"],
                               top_speed=section["top_speed"],
                               acceleration=section["acceleration"],
                               invert_direction=section["invert_direction"],
                               pin_factory=make_pin_factory(config["gpio"]["pin_factory"]))
    from .floor_serial import SerialForestFloor
    serial_cfg = {k: section[k] for k in ("ants_around", "steps_per_ant", "top_speed",
                                          "acceleration", "invert_direction", "serial_port")}
    if sim_mcu:
        from ..firmware_tools import start_sim_pico
        port, handle = start_sim_pico(
            steps_per_rev=round(section["ants_around"] * section["steps_per_ant"]))
        extras.append(handle)
        serial_cfg["serial_port"] = port
        say(f"  forest floor: simulated Pico on {port}")
    return SerialForestFloor(serial_cfg)
