"""Builds the table's devices from config and routes engine effects to them.

``--sim`` (or no GPIO on this machine) gives simulated twins that run the same device
code on gpiozero's MockFactory pins; otherwise the real cauldron on the configured pin
factory and the configured forest-floor back-end. Each device class reads its own
config section (``from_config``); this module only picks the class.

The hub names no game: what the devices should hold after a new game or a restart
comes from the running game's ``device_sync`` effects, and the floor reports a finished
turn only to a game that has a ``floor_turned`` action.
"""
from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Callable, Protocol

from ..config import Config
from ..contracts import Effect, NoticeSink, Session, Sink
from .base import Device
from .forest_floor import ForestFloor

if TYPE_CHECKING:
    from ..table import Table

log = logging.getLogger(__name__)

Say = Callable[[str], None]


class Closable(Protocol):
    def close(self) -> None: ...


class DeviceHub:
    """The devices of one table: ``cauldron``, ``forest_floor`` (either may be None)."""

    def __init__(self, *, simulated: bool, cauldron: Device | None = None,
                 forest_floor: ForestFloor | None = None, extras: list[Closable] | None = None):
        self.simulated = simulated
        self.cauldron = cauldron
        self.forest_floor = forest_floor
        self._extras: list[Closable] = extras or []   # closed with the devices (a simulated Pico)
        self._closed = False

    @classmethod
    def build(cls, config: Config, *, sim: bool, table: Table | None = None,
              sim_mcu: bool = False, say: Say = print) -> "DeviceHub":
        """The configured devices. With a ``table`` they are wired to it both ways —
        sensor actions and notices to the table, its effects to the devices — and put
        in step with the running game (``table.device_sync()``)."""
        sink = table.sensor if table is not None else None
        notice = table.notice if table is not None else None
        hub = cls(simulated=sim)
        try:
            hub.cauldron = build_cauldron(config, sim=sim, sink=sink, on_notice=notice)
            hub.forest_floor = build_floor(config, sim=sim, sim_mcu=sim_mcu,
                                           extras=hub._extras, say=say)
        except Exception:
            hub.close()
            raise
        if table is not None:
            hub.wire(table)
        return hub

    def wire(self, table: Table) -> "DeviceHub":
        """Wire the devices to ``table`` both ways and put them in step with its game."""
        if self.forest_floor is not None:
            self.forest_floor.on_change(FloorReporter(table))
            table.on_publish(TurnGate(table, self.forest_floor))
        table.on_effect(self.handle_effect)
        table.device_sync()
        return self

    @property
    def devices(self) -> list[Device]:
        return [d for d in (self.cauldron, self.forest_floor) if d is not None]

    def handle_effect(self, effect: Effect) -> None:
        """Route an engine effect to its device; ``"*"`` effects go to every device."""
        target = effect.get("device")
        for device in self.devices:
            if target in ("*", device.name):
                device.handle_effect(effect)

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"simulated": self.simulated}
        out["cauldron"] = self.cauldron.status() if self.cauldron is not None else None
        out["forest_floor"] = self.forest_floor.status() if self.forest_floor is not None else None
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


class FloorReporter:
    """Tells the table when the floor finished a turn (or could not), as a sensor would.

    Called from the floor's motion thread; the table is told from a short-lived thread so
    a floor lock is never held while waiting for the table lock.
    """

    def __init__(self, table: Table):
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
        threading.Thread(target=self._report, args=(result, status.get("fault"), dict(move),
                                                    bool(status.get("position_lost"))),
                         daemon=True).start()

    def _report(self, result: str, fault: str | None, move: dict[str, Any],
                position_lost: bool) -> None:
        # Only a game that waits for the floor hears of it (one with a "floor_turned" action,
        # still waiting: the master may have finished the turn by hand meanwhile).
        if not self.table.is_legal({"type": "floor_turned"}):
            return
        if result == "done":
            self.table.sensor({"type": "floor_turned"})
        elif position_lost:
            # The link to the motor was lost mid-turn and did not come back in time: the
            # motor may have got part, all or none of the way. The master sets the floor
            # where the turn ends, counted from where it stood before it, not "N more".
            ants, way = move.get("ants"), str(move.get("direction", "")).replace("_", "-")
            self.table.notice({"kind": "floor", "message": (
                f"The forest floor lost its link to the motor during the turn, so its "
                f"position is unknown: turn it by hand until it stands {ants} ants {way} of "
                "where it stood before this turn (it may have got part or all of the way), "
                "then tap done, and home the floor before its next turn.")})
        elif fault is not None and fault.startswith("jam"):
            # The motor's step count says nothing about where the floor is: the game
            # waits (no floor_turned) until the master has put it right by hand.
            self.table.notice({"kind": "floor", "message": (
                f"The forest floor jammed ({fault}). It did not turn as far as the motor did, "
                "so its position is lost: free it, turn it the rest of the way by hand, then "
                "tap done, and home the floor before its next turn.")})
        else:
            why = fault or "the stop button was pressed"
            self.table.notice({"kind": "floor", "message": f"The forest floor stopped ({why}): "
                               "turn it the rest of the way by hand, then tap done."})


class TurnGate:
    """Tells the floor when the game stops waiting for its turn (the master tapped done,
    a new game began), so nothing of that turn moves the floor afterwards — not even a
    turn carried on after a link fault. Runs under the table's lock on every new version,
    before anyone hears of it; the table's lock is always taken before the floor's."""

    def __init__(self, table: Table, floor: ForestFloor):
        self.table = table
        self.floor = floor

    def __call__(self, session: Session) -> None:
        # a game without floor turns never waits (no trial apply on every version for it)
        if not self.table.accepts("floor_turned") or not self.table.is_legal({"type": "floor_turned"}):
            self.floor.turn_over()


def build_cauldron(config: Config, *, sim: bool, sink: Sink | None = None,
                   on_notice: NoticeSink | None = None) -> Device | None:
    """The simulated cauldron (``sim``), the real one if ``[cauldron] enabled``, else None."""
    if sim:
        from .sim_cauldron import SimulatedCauldron
        return SimulatedCauldron.from_config(config["simulation"], config["cauldron"],
                                             sink=sink, on_notice=on_notice)
    section = config["cauldron"]
    if not section["enabled"]:
        return None
    from .cauldron import Cauldron
    from .pins import make_pin_factory
    return Cauldron.from_config(section, pin_factory=make_pin_factory(config["gpio"]["pin_factory"]),
                                sink=sink, on_notice=on_notice)


def build_floor(config: Config, *, sim: bool, sim_mcu: bool, extras: list[Closable],
                say: Say = print) -> ForestFloor | None:
    """The configured forest-floor back-end, or None when the master turns it by hand.

    ``sim_mcu``: the serial back-end on a simulated Pico, whose handle joins ``extras``
    to be closed with the devices.
    """
    section = config["forest_floor"]
    backend = section["backend"]
    if sim_mcu:
        backend = "serial"
    elif backend == "auto":
        backend = "sim" if sim else "none"
    if backend == "none":
        return None
    if backend == "sim":
        from .floor_sim import SimulatedForestFloor
        return SimulatedForestFloor.from_config(section, config["simulation"])
    if backend == "gpio":
        from .floor_gpio import GpioForestFloor
        from .pins import make_pin_factory
        return GpioForestFloor.from_config(section,
                                           pin_factory=make_pin_factory(config["gpio"]["pin_factory"]))
    from .floor_serial import SerialForestFloor
    port = None
    if sim_mcu:
        from ..firmware_tools import start_sim_pico
        port, handle = start_sim_pico(
            steps_per_rev=round(section["ants_around"] * section["steps_per_ant"]))
        extras.append(handle)
        say(f"  forest floor: simulated Pico on {port}")
    return SerialForestFloor.from_config(section, serial_port=port)
