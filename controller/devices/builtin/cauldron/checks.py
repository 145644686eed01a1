"""The cauldron's part of `potionpi check`: the twist-grip encoder ("turn the grip one
notch"), the drop beam ("drop a ball") and the colour sensor (its id and a reading). On
simulated devices a simulated hand does what the person would (``--sim-fault beam``
unplugs the simulated beam, ``encoder`` keeps the hand off the grip)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from controller.service.check import FAIL, PASS, SKIP

if TYPE_CHECKING:
    from controller.service.check import TableCheck


class CauldronCheck:
    """The cauldron's steps, on ``run``'s results; builds the cauldron once for all three."""

    def __init__(self, run: TableCheck):
        self.run = run
        self.cauldron: Any = None        # the Cauldron (real, or inside the simulation)
        self.sim_cauldron: Any = None

    def __call__(self) -> None:
        for part, step in (("encoder", self.check_encoder), ("beam", self.check_beam),
                           ("colour", self.check_colour_sensor)):
            if part in self.run.only:
                step()

    def _build_cauldron(self) -> str | None:
        """Build the cauldron once; returns why not (a skip reason) or None."""
        if self.cauldron is not None:
            return None
        if self.run.sim:
            from ...sim_cauldron import SimulatedCauldron
            self.sim_cauldron = SimulatedCauldron.from_config(self.run.config["simulation"],
                                                              self.run.config["cauldron"])
            self.run.closers.append(self.sim_cauldron)
            if self.run.sim_fault == "beam":
                self.sim_cauldron.unplug_beam()
            self.cauldron = self.sim_cauldron.cauldron
            return None
        if not self.run.config["cauldron"]["enabled"]:
            return "no cauldron in this config ([cauldron] enabled = false)"
        if self.run.factory is None:
            return "no pin factory (see above)"
        from ...cauldron import Cauldron
        self.cauldron = Cauldron.from_config(self.run.config["cauldron"], pin_factory=self.run.factory,
                                             colour_sensor=None)   # checked on its own below
        self.run.closers.append(self.cauldron)
        return None

    def _cauldron_for(self, step: str, keys: str) -> bool:
        """The cauldron built for ``step`` (once); False, with the step failed or skipped in
        words, when it cannot be."""
        if self.cauldron is not None:
            return True
        try:
            skip = self._build_cauldron()
        except Exception as exc:
            self.run.add(step, FAIL, f"cannot set up the cauldron: {exc}", f"check {keys} in {self.run.config.source}")
            return False
        if skip:
            self.run.add(step, SKIP, skip)
            return False
        return True

    def check_encoder(self) -> None:
        section = self.run.config["cauldron"]
        if not self._cauldron_for("encoder", "cauldron.encoder_a/encoder_b/beam"):
            return
        before = self.cauldron.position
        if self.sim_cauldron is not None:
            if self.run.sim_fault != "encoder":
                self.sim_cauldron.turn(1)           # the simulated hand
        else:
            self.run.prompt(f"turn the grip one notch clockwise (dispensing) within {self.run.wait_s:g} s …")
        deadline = time.monotonic() + (1.0 if self.run.sim else self.run.wait_s)
        while self.cauldron.position == before and time.monotonic() < deadline:
            time.sleep(0.02)
        moved = self.cauldron.position - before
        pins = f"BCM {section['encoder_a']} and {section['encoder_b']}"
        if moved == 0:
            self.run.add("encoder", FAIL, "no notch seen",
                     f"check the encoder's A and B wires ({pins}) and its ground; "
                     "cauldron.encoder_a/encoder_b name the pins")
        elif moved < 0:
            self.run.add("encoder", FAIL, "turning clockwise counted backwards",
                     f"set cauldron.encoder_reverse = {str(not section['encoder_reverse']).lower()} "
                     f"in {self.run.config.source}")
        else:
            self.run.add("encoder", PASS, f"the grip turned {moved} notch clockwise")

    def check_beam(self) -> None:
        if not self._cauldron_for("beam", "cauldron.beam"):
            return
        beam = self.run.config["cauldron"]["beam"]
        if self.cauldron.fault:
            self.run.add("beam", FAIL, self.cauldron.fault,
                     f"clear the spout, then check the beam sensor on BCM {beam}")
            return
        wait = self.cauldron.beam_waiter()
        if self.sim_cauldron is not None:
            self.sim_cauldron.drop()
        else:
            self.run.prompt(f"drop a ball through the cauldron's beam within {self.run.wait_s:g} s …")
        if wait(1.0 if self.run.sim else self.run.wait_s):
            self.run.add("beam", PASS, "a drop was seen")
        else:
            self.run.add("beam", FAIL, "no drop seen",
                     f"check the beam sensor's output wire (BCM {beam}), its power and the "
                     "emitter facing it; cauldron.beam_active_low must match the sensor")

    def check_colour_sensor(self) -> None:
        from ...colour_sensor import make_colour_sensor

        if self.run.sim:
            sensor = self.sim_cauldron.colour_sensor if self.sim_cauldron is not None else None
            if sensor is None:
                self.run.add("colour sensor", SKIP, "the simulation has none "
                         "(simulation.colour_sensor = false)")
                return
            name = "simulated TCS34725"
        else:
            if not self.run.config["cauldron"]["enabled"] \
                    or self.run.config["cauldron"]["colour_sensor"] == "none":
                self.run.add("colour sensor", SKIP, "none fitted (cauldron.colour_sensor = \"none\")")
                return
            try:
                sensor = make_colour_sensor(self.run.config["cauldron"])
            except Exception as exc:
                self.run.add("colour sensor", FAIL, str(exc),
                         "check SDA (BCM 2), SCL (BCM 3), 3.3 V and GND; I2C must be on "
                         "(`sudo raspi-config nonint do_i2c 0`)")
                return
            assert sensor is not None
            self.run.closers.append(sensor)
            name = f"{getattr(sensor, 'chip', 'TCS34725')} at 0x{getattr(sensor, 'address', 0x29):02x}"
        try:
            r, g, b, c = sensor.read_rgbc()
        except Exception as exc:
            self.run.add("colour sensor", FAIL, f"{name} does not give a reading: {exc}",
                     "check its wiring and power")
            return
        if sensor.saturated((r, g, b, c)):
            self.run.add("colour sensor", FAIL, f"{name} reads at full scale (r={r} g={g} b={b} "
                     f"clear={c}, full scale {sensor.saturation:g}): dazzled, it names no colour",
                     sensor.fix_saturation + ", or shade the sensor from room light")
            return
        self.run.add("colour sensor", PASS, f"{name}, reading r={r} g={g} b={b} clear={c}")
