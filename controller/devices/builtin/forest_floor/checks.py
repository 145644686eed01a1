"""The forest floor's part of `potionpi check`: the Pico (its handshake and firmware) and
the floor's homing, on the configured back-end (serial, GPIO, or none: turned by hand).
With ``--sim`` the serial back-end runs on a simulated Pico; a real floor turns only
after the person said yes."""
from __future__ import annotations

import io
import time
from typing import TYPE_CHECKING, Any

from controller.service.check import FAIL, PASS, SKIP, firmware_older

if TYPE_CHECKING:
    from controller.service.check import TableCheck


class FloorCheck:
    """The floor's steps, on ``run``'s results."""

    def __init__(self, run: TableCheck):
        self.run = run

    def __call__(self) -> None:
        if self.run.only & {"pico", "homing"}:
            self.check_floor()

    def check_floor(self) -> None:
        section = self.run.config["forest_floor"]
        backend = section["backend"]
        port = self.run.pico_port
        if port is not None:
            backend = "serial"           # a Pico named by --port is checked, whatever the config
        elif self.run.sim:
            from ...sim_pico import start_sim_pico
            port, handle = start_sim_pico(
                steps_per_rev=round(section["ants_around"] * section["steps_per_ant"]))
            self.run.closers.append(handle)
            backend = "serial"
        elif backend == "serial":
            port = section["serial_port"] or None
        pico_ok = True
        if "pico" in self.run.only:
            if backend == "serial":
                pico_ok = self._check_pico(port)
            else:
                self.run.add("Pico", SKIP, f"no forest-floor Pico in this config "
                         f"(forest_floor.backend = \"{backend}\")")
        if "homing" not in self.run.only:
            return
        if backend == "serial":
            if pico_ok:
                self._check_homing_serial(port)
            else:
                self.run.add("floor homing", SKIP, "no working Pico (see above)")
        elif backend == "gpio":
            self._check_homing_gpio()
        else:
            self.run.add("floor homing", SKIP, "the master turns the forest floor by hand")

    def _link_timings(self) -> Any:
        """The link's limits from ``[forest_floor]``: a slow link the maker gave more time
        (link_lost_after_s) gets it here too."""
        from ...pico_link import LinkTimings
        return LinkTimings.from_section(self.run.config["forest_floor"])

    def _check_pico(self, port: str | None) -> bool:
        from ....firmware_tools import check as pico_check, firmware_version

        out = io.StringIO()
        code = pico_check(port, out, pings=5, timings=self._link_timings())
        lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
        if code == 1:
            detail = lines[0].removeprefix("forest floor: ") if lines else "no answer"
            fix = ("stop what holds it; the table's service with `sudo systemctl stop potionpi`"
                   if "in use" in detail else
                   "plug the Pico in by USB; a new Pico needs MicroPython, then "
                   "`potionpi firmware flash` (docs/firmware.md)")
            self.run.add("Pico", FAIL, detail, fix)
            return False
        if code == 2:
            self.run.add("Pico", FAIL, lines[0].removeprefix("forest floor: "),
                     "`sudo systemctl stop potionpi; potionpi firmware flash`")
            return False
        host = firmware_version()
        pico = next((line.split()[1].rstrip(",") for line in lines if line.startswith("firmware ")),
                    None)
        detail = "; ".join(lines[:3]).removeprefix("forest floor: ")
        if firmware_older(pico, host):
            self.run.add("Pico", FAIL, f"{detail}; its firmware {pico} is older than this "
                     f"potionpi's {host}", "`potionpi update` or `potionpi firmware flash`")
            return False
        self.run.add("Pico", PASS, detail)
        return True

    def _check_homing_serial(self, port: str | None) -> None:
        from ...floor_serial import SerialForestFloor
        timings = self._link_timings()
        floor = SerialForestFloor.from_config(self.run.config["forest_floor"], serial_port=port or "",
                                              timings=timings)
        self.run.closers.append(floor)
        # as long as a few hellos take on this link (its own limits, not a guess)
        if not floor.link.wait_connected(3 * (timings.hello_timeout_s + timings.backoff_max_s) + 2):
            self.run.add("floor homing", FAIL, floor.link.message, "see the Pico line above")
            return
        # the serial floor does not home on connecting (home_on_connect = false): ask it
        self.home(floor)

    def _check_homing_gpio(self) -> None:
        if self.run.factory is None:
            self.run.add("floor homing", SKIP, "no pin factory (see above)")
            return
        from ...floor_gpio import GpioForestFloor
        try:
            floor = GpioForestFloor.from_config(self.run.config["forest_floor"],
                                                pin_factory=self.run.factory)
        except Exception as exc:
            self.run.add("floor homing", FAIL, f"cannot set up the stepper: {exc}",
                     "check the forest_floor pins in the config")
            return
        self.run.closers.append(floor)
        if floor.driver is not None:
            self.run.add("TMC2209", PASS, floor.driver.settings.describe())
        self.home(floor)

    def _may_turn(self, seconds: float) -> bool:
        """Ask before the floor turns (the grip and beam checks wait for a person too; this
        one moves something): True only after a yes. Simulated floors turn unasked."""
        if self.run.sim:
            return True
        if self.run.ask is None:
            self.run.add("floor homing", SKIP, "not turned: nobody here to say it may turn",
                     "run `potionpi check` in a terminal and answer, or add --yes")
            return False
        answer = self.run.ask(f"The forest floor turns now to find its home mark (up to 1.2 turns, "
                          f"about {seconds:.0f} s): hands off the board. Turn it? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            self.run.add("floor homing", SKIP, "not turned: you said no")
            return False
        return True

    def home(self, floor: Any) -> None:
        section = self.run.config["forest_floor"]
        # one and a fifth turns at homing speed is the longest a homing may take
        planned = 1.2 * section["ants_around"] * section["steps_per_ant"] / section["homing_speed"]
        if not self._may_turn(planned):
            return
        # The homing ends by itself: the Pico gives up after 1.2 turns on its own clock (a
        # slow link only delays its word, and a lost link ends this wait), the GPIO floor
        # after 1.2 turns of steps. So the host's own limit is only a net, far above both.
        limit = self.run.homing_limit(planned)
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
                self.run.add("floor homing", FAIL,
                         f"the floor was still {status['state']} after {limit:.0f} s (1.2 turns at "
                         f"{section['homing_speed']:g} steps/s take about {planned:.0f} s), so it "
                         "was stopped", "check that the motor turns at all: the driver's motor "
                         "supply, its EN wire and its current limit")
                return
            time.sleep(0.05)
        if status["state"] == "idle" and homed and not status["fault"]:
            self.run.add("floor homing", PASS, "the floor found its home mark")
        else:
            self.run.add("floor homing", FAIL, status["fault"] or "the floor stopped before it "
                     "found its home mark",
                     "check the home sensor (forest_floor.home_pin, or the one on the Pico: "
                     "docs/forest-floor.md) and that the floor turns freely")
