"""`potionpi check`: the whole table, one pass/fail line per part, each failure with its fix.

Parts, in the order a fault would show: the pin factory, every configured pin (free and
not used twice), the twist-grip encoder ("turn the grip one notch"), the drop beam
("drop a ball"), the colour sensor (its id and a reading), the forest-floor Pico (the
handshake and its firmware) and the floor's homing. On real hardware the encoder and
beam checks wait for a person; on simulated devices a simulated hand does it, so CI runs
every check. ``--sim-fault beam`` unplugs the simulated beam, to see a failure.

Only the pins are checked here: each device plug-in owns its own steps (``check(run)`` in
its package, ``checks.py`` beside it for the built-in ones), run in the plug-ins' declared
order on this ``TableCheck``, whose ``add``, ``prompt``, ``ask``, ``factory`` and
``closers`` they use. A new sensor adds its check in its own folder.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable

from ..config import Config, claimed_pins, pins_claimed_twice
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
        self._closers: list[Any] = []       # closed (last first) once every check ran
        self.factory: Any = None

    # --- running --------------------------------------------------------------
    def run(self) -> list[Result]:
        """The pins, then each device plug-in's own check (``check(run)`` in its package),
        in their declared order."""
        from ..devices import plugins
        try:
            if "pins" in self.only:
                self.check_pin_factory()
                self.check_pins()
            elif self.only & {"encoder", "beam", "homing"}:
                self.check_pin_factory(report=False)       # the others need it all the same
            for plugin in plugins().values():
                plugin.check(self)
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
    def closers(self) -> list[Any]:
        """What a plug-in's check built: closed, last first, once every check ran."""
        return self._closers

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
        """Config key -> BCM pin, for every pin this table uses (as each device plug-in
        declares its pins: ``[[pins]]`` in its device.toml)."""
        return claimed_pins(self.config.values)

    def check_pins(self) -> None:
        pins = self.configured_pins()
        if not pins:
            self.add("pins", SKIP, "no device on GPIO in this config")
            return
        if self.factory is None:
            self.add("pins", SKIP, "no pin factory (see above)")
            return
        twice = pins_claimed_twice(self.config.values)
        if twice:
            pin, keys = twice[0]
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

    # --- the forest floor's steps, by their old names (tests call them directly) ----
    def check_floor(self) -> None:
        """The forest floor's Pico and homing parts (its plug-in's ``checks.py``)."""
        from ..devices.builtin.forest_floor.checks import FloorCheck
        FloorCheck(self).check_floor()

    def _home(self, floor: Any) -> None:
        from ..devices.builtin.forest_floor.checks import FloorCheck
        FloorCheck(self).home(floor)
