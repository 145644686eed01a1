"""`potionpi check`: the whole table, one pass/fail line per part, each failure with its fix.

Parts, in the order a fault would show: the pin factory, every configured pin (free and
not used twice), the twist-grip encoder ("turn the grip one notch"), the drop beam
("drop a ball"), the colour sensor (its id and a reading), the forest-floor Pico (the
handshake and its firmware) and the floor's homing. On real hardware the encoder and
beam checks wait for a person; on simulated devices a simulated hand does it, so CI runs
every check. ``--sim-fault beam`` unplugs the simulated beam, to see a failure.
"""
from __future__ import annotations

import io
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable

from ..config import Config
from . import CHECK_PARTS as PARTS, SIM_FAULTS  # noqa: F401  (the CLI's choices)

PASS, FAIL, SKIP = "pass", "fail", "skip"


@dataclass
class Result:
    name: str
    status: str          # pass, fail or skip
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = {PASS: "PASS", FAIL: "FAIL", SKIP: "skip"}[self.status]
        text = f"{mark:4}  {self.name}: {self.detail}"
        return text + (f"\n      fix: {self.fix}" if self.fix else "")


def version_tuple(version: str | None) -> tuple[int, ...]:
    """"1.2.0-sim" -> (1, 2, 0); what is not a number ends the version."""
    parts = []
    for piece in (version or "").split("-")[0].split("."):
        if not piece.isdigit():
            break
        parts.append(int(piece))
    return tuple(parts)


def firmware_older(pico: str | None, host: str) -> bool:
    """True when the Pico's firmware version is below the one this potionpi brings."""
    theirs, ours = version_tuple(pico), version_tuple(host)
    return bool(theirs and ours and theirs < ours)


class TableCheck:
    """Runs the checks once; ``prompt`` tells the person what to do on real hardware."""

    def __init__(self, config: Config, *, sim: bool, sim_fault: str | None = None,
                 pico_port: str | None = None, wait_s: float = 15.0,
                 prompt: Callable[[str], None] = print, only: list[str] | None = None,
                 on_result: Callable[[Result], None] | None = None,
                 ask: Callable[[str], str] | None = None):
        """``on_result`` hears of each result as it comes (the console prints it before
        asking for the next part). ``ask`` puts a yes/no question to the person (the
        floor turns only after a yes); None: nobody can answer, so a real floor is not
        turned and its homing check is skipped."""
        self.config = config
        self.sim = sim
        self.sim_fault = sim_fault
        self.pico_port = pico_port
        self.wait_s = wait_s
        self.prompt = prompt
        self.only = set(only or PARTS)
        self.on_result = on_result
        self.ask = ask
        # the host's net under a homing that ends by itself (see _home); tests shorten it
        self.homing_limit: Callable[[float], float] = lambda planned: 10 * planned + 30
        self.results: list[Result] = []
        self._closers: list[Any] = []
        self.factory: Any = None
        self.cauldron: Any = None        # the Cauldron (real, or inside the simulation)
        self.sim_cauldron: Any = None

    # --- running --------------------------------------------------------------
    def run(self) -> list[Result]:
        steps = [("pins", self.check_pin_factory), ("pins", self.check_pins),
                 ("encoder", self.check_encoder), ("beam", self.check_beam),
                 ("colour", self.check_colour_sensor)]
        try:
            if "pins" not in self.only and self.only & {"encoder", "beam", "homing"}:
                self.check_pin_factory(report=False)       # the others need it all the same
            for part, step in steps:
                if part in self.only:
                    step()
            if self.only & {"pico", "homing"}:
                self.check_floor()
        finally:
            for closer in reversed(self._closers):
                try:
                    closer.close()
                except Exception:
                    pass
        return self.results

    def add(self, name: str, status: str, detail: str, fix: str = "") -> None:
        result = Result(name, status, detail, fix)
        self.results.append(result)
        if self.on_result is not None:
            self.on_result(result)

    @property
    def ok(self) -> bool:
        return all(r.status != FAIL for r in self.results)

    def report(self) -> dict[str, Any]:
        return {"ok": self.ok, "simulated": self.sim,
                "checks": [asdict(r) for r in self.results]}

    # --- GPIO -------------------------------------------------------------------
    def check_pin_factory(self, report: bool = True) -> None:
        from ..devices.pins import PinFactoryError, make_pin_factory

        add = self.add if report else (lambda *args: None)
        name = self.config["gpio"]["pin_factory"]
        if self.sim:
            from gpiozero.pins.mock import MockFactory
            self.factory = MockFactory()
            add("pin factory", PASS, "gpiozero mock pins (simulated devices)")
            return
        try:
            self.factory = make_pin_factory(name)
        except PinFactoryError as exc:
            add("pin factory", FAIL, f"gpio.pin_factory = \"{name}\" cannot start", str(exc))
            return
        self._closers.append(self.factory)
        add("pin factory", PASS, f"{type(self.factory).__name__} (gpio.pin_factory = \"{name}\")")

    def configured_pins(self) -> dict[str, int]:
        """Config key -> BCM pin, for every pin this table uses."""
        out: dict[str, int] = {}
        cauldron, floor = self.config["cauldron"], self.config["forest_floor"]
        if cauldron["enabled"]:
            for key in ("encoder_a", "encoder_b", "beam"):
                out[f"cauldron.{key}"] = cauldron[key]
            if cauldron["colour_sensor"] == "tcs34725":
                out["I2C SDA (colour sensor)"], out["I2C SCL (colour sensor)"] = 2, 3
        if floor["backend"] == "gpio":
            for key in ("step_pin", "dir_pin", "enable_pin", "home_pin", "stall_pin"):
                if floor[key] >= 0:
                    out[f"forest_floor.{key}"] = floor[key]
        return out

    def check_pins(self) -> None:
        pins = self.configured_pins()
        if not pins:
            self.add("pins", SKIP, "no device on GPIO in this config")
            return
        if self.factory is None:
            self.add("pins", SKIP, "no pin factory (see above)")
            return
        by_pin: dict[int, list[str]] = {}
        for key, pin in pins.items():
            by_pin.setdefault(pin, []).append(key)
        twice = {pin: keys for pin, keys in by_pin.items() if len(keys) > 1}
        if twice:
            pin, keys = next(iter(twice.items()))
            self.add("pins", FAIL, f"BCM {pin} is used by {' and '.join(keys)}",
                     f"give each its own pin in {self.config.source} (hardware/ has the pin map)")
            return
        busy = []
        for key, pin in pins.items():
            if key.startswith("I2C"):
                continue                       # the I2C driver owns them; checked by reading
            try:
                self.factory.pin(pin).close()
            except Exception as exc:           # lgpio says "GPIO busy"
                busy.append(f"BCM {pin} ({key}): {exc}")
        if busy:
            self.add("pins", FAIL, "in use by another program: " + "; ".join(busy),
                     "stop the service first (`sudo systemctl stop potionpi`), or whatever "
                     "else holds the pin")
            return
        self.add("pins", PASS, "free: " + ", ".join(f"{k} = BCM {p}" for k, p in pins.items()))

    # --- the cauldron -----------------------------------------------------------
    def _build_cauldron(self) -> str | None:
        """Build the cauldron once; returns why not (a skip reason) or None."""
        if self.cauldron is not None:
            return None
        if self.sim:
            from ..devices.sim_cauldron import SimulatedCauldron
            self.sim_cauldron = SimulatedCauldron.from_config(self.config["simulation"],
                                                              self.config["cauldron"])
            self._closers.append(self.sim_cauldron)
            if self.sim_fault == "beam":
                self.sim_cauldron.unplug_beam()
            self.cauldron = self.sim_cauldron.cauldron
            return None
        if not self.config["cauldron"]["enabled"]:
            return "no cauldron in this config ([cauldron] enabled = false)"
        if self.factory is None:
            return "no pin factory (see above)"
        from ..devices.cauldron import Cauldron
        self.cauldron = Cauldron.from_config(self.config["cauldron"], pin_factory=self.factory,
                                             colour_sensor=None)   # checked on its own below
        self._closers.append(self.cauldron)
        return None

    def check_encoder(self) -> None:
        section = self.config["cauldron"]
        try:
            skip = self._build_cauldron()
        except Exception as exc:
            self.add("encoder", FAIL, f"cannot set up the cauldron: {exc}",
                     f"check cauldron.encoder_a/encoder_b/beam in {self.config.source}")
            return
        if skip:
            self.add("encoder", SKIP, skip)
            return
        before = self.cauldron.position
        if self.sim_cauldron is not None:
            if self.sim_fault != "encoder":
                self.sim_cauldron.turn(1)           # the simulated hand
        else:
            self.prompt(f"turn the grip one notch clockwise (dispensing) within {self.wait_s:g} s …")
        deadline = time.monotonic() + (1.0 if self.sim else self.wait_s)
        while self.cauldron.position == before and time.monotonic() < deadline:
            time.sleep(0.02)
        moved = self.cauldron.position - before
        pins = f"BCM {section['encoder_a']} and {section['encoder_b']}"
        if moved == 0:
            self.add("encoder", FAIL, "no notch seen",
                     f"check the encoder's A and B wires ({pins}) and its ground; "
                     "cauldron.encoder_a/encoder_b name the pins")
        elif moved < 0:
            self.add("encoder", FAIL, "turning clockwise counted backwards",
                     f"set cauldron.encoder_reverse = {str(not section['encoder_reverse']).lower()} "
                     f"in {self.config.source}")
        else:
            self.add("encoder", PASS, f"the grip turned {moved} notch clockwise")

    def check_beam(self) -> None:
        if self.cauldron is None:
            try:
                skip = self._build_cauldron()
            except Exception as exc:
                self.add("beam", FAIL, f"cannot set up the cauldron: {exc}",
                         f"check cauldron.beam in {self.config.source}")
                return
            if skip:
                self.add("beam", SKIP, skip)
                return
        beam = self.config["cauldron"]["beam"]
        if self.cauldron.fault:
            self.add("beam", FAIL, self.cauldron.fault,
                     f"clear the spout, then check the beam sensor on BCM {beam}")
            return
        wait = self.cauldron.beam_waiter()
        if self.sim_cauldron is not None:
            self.sim_cauldron.drop()
        else:
            self.prompt(f"drop a ball through the cauldron's beam within {self.wait_s:g} s …")
        if wait(1.0 if self.sim else self.wait_s):
            self.add("beam", PASS, "a drop was seen")
        else:
            self.add("beam", FAIL, "no drop seen",
                     f"check the beam sensor's output wire (BCM {beam}), its power and the "
                     "emitter facing it; cauldron.beam_active_low must match the sensor")

    def check_colour_sensor(self) -> None:
        from ..devices.colour_sensor import make_colour_sensor

        if self.sim:
            sensor = self.sim_cauldron.colour_sensor if self.sim_cauldron is not None else None
            if sensor is None:
                self.add("colour sensor", SKIP, "the simulation has none "
                         "(simulation.colour_sensor = false)")
                return
            name = "simulated TCS34725"
        else:
            if not self.config["cauldron"]["enabled"] \
                    or self.config["cauldron"]["colour_sensor"] == "none":
                self.add("colour sensor", SKIP, "none fitted (cauldron.colour_sensor = \"none\")")
                return
            try:
                sensor = make_colour_sensor(self.config["cauldron"])
            except Exception as exc:
                self.add("colour sensor", FAIL, str(exc),
                         "check SDA (BCM 2), SCL (BCM 3), 3.3 V and GND; I2C must be on "
                         "(`sudo raspi-config nonint do_i2c 0`)")
                return
            assert sensor is not None
            self._closers.append(sensor)
            name = f"{getattr(sensor, 'chip', 'TCS34725')} at 0x{getattr(sensor, 'address', 0x29):02x}"
        try:
            r, g, b, c = sensor.read_rgbc()
        except Exception as exc:
            self.add("colour sensor", FAIL, f"{name} does not give a reading: {exc}",
                     "check its wiring and power")
            return
        if sensor.saturated((r, g, b, c)):
            self.add("colour sensor", FAIL, f"{name} reads at full scale (r={r} g={g} b={b} "
                     f"clear={c}, full scale {sensor.saturation:g}): dazzled, it names no colour",
                     sensor.fix_saturation + ", or shade the sensor from room light")
            return
        self.add("colour sensor", PASS, f"{name}, reading r={r} g={g} b={b} clear={c}")

    # --- the forest floor -------------------------------------------------------
    def check_floor(self) -> None:
        section = self.config["forest_floor"]
        backend = section["backend"]
        port = self.pico_port
        if port is not None:
            backend = "serial"           # a Pico named by --port is checked, whatever the config
        elif self.sim:
            from ..devices.sim_pico import start_sim_pico
            port, handle = start_sim_pico(
                steps_per_rev=round(section["ants_around"] * section["steps_per_ant"]))
            self._closers.append(handle)
            backend = "serial"
        elif backend == "serial":
            port = section["serial_port"] or None
        pico_ok = True
        if "pico" in self.only:
            if backend == "serial":
                pico_ok = self._check_pico(port)
            else:
                self.add("Pico", SKIP, f"no forest-floor Pico in this config "
                         f"(forest_floor.backend = \"{backend}\")")
        if "homing" not in self.only:
            return
        if backend == "serial":
            if pico_ok:
                self._check_homing_serial(port)
            else:
                self.add("floor homing", SKIP, "no working Pico (see above)")
        elif backend == "gpio":
            self._check_homing_gpio()
        else:
            self.add("floor homing", SKIP, "the master turns the forest floor by hand")

    def _link_timings(self) -> Any:
        """The link's limits from ``[forest_floor]``: a slow link the maker gave more time
        (link_lost_after_s) gets it here too."""
        from ..devices.pico_link import LinkTimings
        return LinkTimings.from_section(self.config["forest_floor"])

    def _check_pico(self, port: str | None) -> bool:
        from ..firmware_tools import check as pico_check, firmware_version

        out = io.StringIO()
        code = pico_check(port, out, pings=5, timings=self._link_timings())
        lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
        if code == 1:
            detail = lines[0].removeprefix("forest floor: ") if lines else "no answer"
            fix = ("stop what holds it; the table's service with `sudo systemctl stop potionpi`"
                   if "in use" in detail else
                   "plug the Pico in by USB; a new Pico needs MicroPython, then "
                   "`potionpi firmware flash` (docs/firmware.md)")
            self.add("Pico", FAIL, detail, fix)
            return False
        if code == 2:
            self.add("Pico", FAIL, lines[0].removeprefix("forest floor: "),
                     "`sudo systemctl stop potionpi; potionpi firmware flash`")
            return False
        host = firmware_version()
        pico = next((line.split()[1].rstrip(",") for line in lines if line.startswith("firmware ")),
                    None)
        detail = "; ".join(lines[:3]).removeprefix("forest floor: ")
        if firmware_older(pico, host):
            self.add("Pico", FAIL, f"{detail}; its firmware {pico} is older than this "
                     f"potionpi's {host}", "`potionpi update` or `potionpi firmware flash`")
            return False
        self.add("Pico", PASS, detail)
        return True

    def _check_homing_serial(self, port: str | None) -> None:
        from ..devices.floor_serial import SerialForestFloor
        timings = self._link_timings()
        floor = SerialForestFloor.from_config(self.config["forest_floor"], serial_port=port or "",
                                              timings=timings)
        self._closers.append(floor)
        # as long as a few hellos take on this link (its own limits, not a guess)
        if not floor.link.wait_connected(3 * (timings.hello_timeout_s + timings.backoff_max_s) + 2):
            self.add("floor homing", FAIL, floor.link.message, "see the Pico line above")
            return
        # the serial floor does not home on connecting (home_on_connect = false): ask it
        self._home(floor)

    def _check_homing_gpio(self) -> None:
        if self.factory is None:
            self.add("floor homing", SKIP, "no pin factory (see above)")
            return
        from ..devices.floor_gpio import GpioForestFloor
        try:
            floor = GpioForestFloor.from_config(self.config["forest_floor"],
                                                pin_factory=self.factory)
        except Exception as exc:
            self.add("floor homing", FAIL, f"cannot set up the stepper: {exc}",
                     "check the forest_floor pins in the config")
            return
        self._closers.append(floor)
        if floor.driver is not None:
            self.add("TMC2209", PASS, floor.driver.settings.describe())
        self._home(floor)

    def _may_turn(self, seconds: float) -> bool:
        """Ask before the floor turns (the grip and beam checks wait for a person too; this
        one moves something): True only after a yes. Simulated floors turn unasked."""
        if self.sim:
            return True
        if self.ask is None:
            self.add("floor homing", SKIP, "not turned: nobody here to say it may turn",
                     "run `potionpi check` in a terminal and answer, or add --yes")
            return False
        answer = self.ask(f"The forest floor turns now to find its home mark (up to 1.2 turns, "
                          f"about {seconds:.0f} s): hands off the board. Turn it? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            self.add("floor homing", SKIP, "not turned: you said no")
            return False
        return True

    def _home(self, floor: Any) -> None:
        section = self.config["forest_floor"]
        # one and a fifth turns at homing speed is the longest a homing may take
        planned = 1.2 * section["ants_around"] * section["steps_per_ant"] / section["homing_speed"]
        if not self._may_turn(planned):
            return
        # The homing ends by itself: the Pico gives up after 1.2 turns on its own clock (a
        # slow link only delays its word, and a lost link ends this wait), the GPIO floor
        # after 1.2 turns of steps. So the host's own limit is only a net, far above both.
        limit = self.homing_limit(planned)
        floor.home()
        started = time.monotonic()
        while True:
            status = floor.status()
            # the serial back-end says "homed"; the others finish a "home" move
            homed = status["homed"] if "homed" in status else \
                (status["last_move"] or {}).get("result") == "done"
            if (status["state"] == "idle" and homed) or status["state"] in ("fault", "idle"):
                break
            if time.monotonic() - started > limit:
                floor.stop()
                self.add("floor homing", FAIL,
                         f"the floor was still {status['state']} after {limit:.0f} s (1.2 turns at "
                         f"{section['homing_speed']:g} steps/s take about {planned:.0f} s), so it "
                         "was stopped", "check that the motor turns at all: the driver's motor "
                         "supply, its EN wire and its current limit")
                return
            time.sleep(0.05)
        if status["state"] == "idle" and homed and not status["fault"]:
            self.add("floor homing", PASS, "the floor found its home mark")
        else:
            self.add("floor homing", FAIL, status["fault"] or "the floor stopped before it "
                     "found its home mark",
                     "check the home sensor (forest_floor.home_pin, or the one on the Pico: "
                     "docs/forest-floor.md) and that the floor turns freely")
