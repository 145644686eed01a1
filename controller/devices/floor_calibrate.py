"""`potionpi calibrate floor`: find how many motor steps carry the floor one ant, and
how wide the home mark is and how steadily the sensor sees it.

The floor homes, turns what should be one full revolution with the current
guess, and the user nudges it step by step until the ant mark sits exactly at
the pointer again. Steps per ant = (the revolution's steps + the nudges) / ants.

Then the mark: from half a turn past home the floor turns ``MARK_TURNS`` more
revolutions at speed, the sensor watched on every step (``mark_scan``). Each turn
the sensor must see the mark once, at the same step (within ``steadiness``) and for
about the same number of steps. A sensor that samples instead of watching (a
duty-cycled hall switch such as TI's DRV5032 updates its output a few times a
second) sees it at a different step each turn, or not at all: it is refused in
words, since homing would land somewhere else each time. The mark's width sizes the
jam watch's glitch filter (``home_mark_steps``) and must stay under its tolerance.

Talking to the user goes through injected ``ask``/``say`` callables, so the CLI
uses ``input``/``print`` and the tests use scripted answers.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Callable

from .forest_floor import FAULT

BIG_NUDGE = 10
MARK_TURNS = 3
SENSORS = ("a hall switch that watches all the time (TI DRV5033 or DRV5023) or an optical slot "
           "sensor (Omron EE-SX1041): hardware/forest-floor.md")

HELP = ("Type + or - to nudge one step, ++ or -- for {big}, a number such as 25 or -7 "
        "for that many steps; press Enter (or type ok) when the ant mark lines up; q to give up.")


class CalibrationAborted(RuntimeError):
    """The user gave up, or the floor faulted; nothing is saved."""


@dataclass
class MarkReport:
    """How the sensor saw the mark on each scanned turn."""

    offsets: list[int]          # first active step minus the turn's step, per turn
    widths: list[int]           # steps it read active, per turn
    turns: int

    @property
    def width(self) -> int:
        return round(statistics.median(self.widths))

    @property
    def steadiness(self) -> int:
        """How far apart the first sightings may lie for a sensor that watches: a step or
        two of hysteresis, an eighth of the mark for a wide one."""
        return max(2, self.width // 8)

    @property
    def spread(self) -> int:
        return max(self.offsets) - min(self.offsets)


@dataclass
class Calibration:
    steps_per_ant: float
    steps_per_revolution: int
    nudged: int
    mark: MarkReport | None = field(default=None)

    def as_config(self) -> dict[str, Any]:
        """The values ``[forest_floor]`` in the config file takes from calibration."""
        values: dict[str, Any] = {"steps_per_ant": self.steps_per_ant}
        if self.mark is not None:
            values["home_mark_steps"] = self.mark.width
        return values


def parse_nudge(answer: str) -> int | None:
    """Steps for one answer; 0 means "lined up"; None means "not understood"."""
    text = answer.strip().lower()
    if text in ("", "ok", "y", "yes", "done"):
        return 0
    table = {"+": 1, "-": -1, "++": BIG_NUDGE, "--": -BIG_NUDGE}
    if text in table:
        return table[text]
    try:
        steps = int(text)
    except ValueError:
        return None
    return steps if steps != 0 else None


def _wait(floor: Any, timeout: float | None) -> None:
    if not floor.wait_idle(timeout):
        floor.stop()
        raise CalibrationAborted("the floor did not finish turning in time")
    if floor.state == FAULT:
        raise CalibrationAborted(f"the floor reported a fault: {floor.fault}")


def calibrate_floor(floor: Any, ask: Callable[[str], str], say: Callable[[str], None],
                    steps_per_ant_guess: float | None = None, timeout: float | None = 120.0,
                    max_answers: int = 1000, tolerance_ants: float | None = None) -> Calibration:
    """Run the calibration on ``floor`` (a back-end with ``move_steps`` and ``wait_idle``)."""
    if not (callable(getattr(floor, "move_steps", None)) and callable(getattr(floor, "wait_idle", None))):
        raise CalibrationAborted(f"this forest-floor back-end ({type(floor).__name__}) cannot be nudged "
                                 "step by step, so it cannot be calibrated from here")
    guess = float(steps_per_ant_guess or floor.steps_per_ant)
    ants = floor.ants_around
    revolution = round(guess * ants)
    say("Homing the forest floor…")
    floor.home()
    _wait(floor, timeout)
    say(f"Turning one full revolution ({revolution} steps, {guess:g} steps per ant, {ants} ants). "
        "Keep hands clear.")
    floor.move_steps(revolution)
    _wait(floor, timeout)
    say("Does the ant mark line up with the pointer as it did at the start? " + HELP.format(big=BIG_NUDGE))
    nudged = 0
    for _ in range(max_answers):
        answer = ask(f"nudge (so far {nudged:+d} steps)> ")
        if answer.strip().lower() in ("q", "quit"):
            raise CalibrationAborted("calibration given up; nothing saved")
        steps = parse_nudge(answer)
        if steps is None:
            say(HELP.format(big=BIG_NUDGE))
            continue
        if steps == 0:
            break
        floor.move_steps(steps)
        _wait(floor, timeout)
        nudged += steps
    else:
        raise CalibrationAborted("too many answers without lining up; nothing saved")
    total = revolution + nudged
    if total <= 0:
        raise CalibrationAborted("a revolution cannot take no steps; nothing saved")
    result = Calibration(steps_per_ant=round(total / ants, 4), steps_per_revolution=total, nudged=nudged)
    direction = "further" if nudged > 0 else "less far" if nudged < 0 else "exactly right"
    say(f"One revolution is {total} steps ({direction} than the guess): "
        f"{result.steps_per_ant:g} steps per ant.")
    result.mark = measure_mark(floor, total, say, timeout, tolerance_ants)
    if result.mark is not None:
        say(f"home_mark_steps = {result.mark.width}: the jam watch counts a sighting once the "
            f"sensor held it for {max(1, result.mark.width // 2)} steps.")
    return result


def measure_mark(floor: Any, revolution: int, say: Callable[[str], None], timeout: float | None,
                 tolerance_ants: float | None = None, turns: int = MARK_TURNS) -> MarkReport | None:
    """Scan ``turns`` revolutions for the mark; None where the back-end cannot (no sensor).
    Raises CalibrationAborted, in words, for a sensor that samples or flickers and for a
    mark as wide as the jam tolerance."""
    try:
        floor.mark_runs()
    except NotImplementedError as exc:
        say(f"The home mark is not measured: {exc}.")
        return None
    say(f"Now the home mark: the floor turns {turns} more times, watching the sensor. Keep hands clear.")
    floor.home()
    _wait(floor, timeout)
    floor.move_steps(revolution // 2)          # the mark comes in the middle of each turn
    _wait(floor, timeout)
    offsets, widths = [], []
    for turn in range(1, turns + 1):
        floor.mark_scan(revolution)
        _wait(floor, timeout)
        runs = floor.mark_runs()
        whole = [(a, b) for a, b in runs if b is not None]
        if len(runs) > 1:
            raise CalibrationAborted(
                f"the home sensor switched {len(runs)} times in turn {turn} instead of once: it "
                "flickers (a loose wire, the motor leads beside its own, a mark with gaps). "
                f"Check its wiring and decoupling; nothing saved")
        if not whole:
            seen = turn - 1
            raise CalibrationAborted(
                f"the home sensor saw the mark on {seen} of {turn} turns: it samples the field "
                "a few times a second instead of watching it (a duty-cycled hall switch such as "
                "TI's DRV5032 does), or the mark passes too far from it. Fit " + SENSORS
                + "; nothing saved")
        rise, fall = whole[0]
        offsets.append(rise - turn * revolution)
        widths.append(fall - rise)
    floor.move_steps(revolution - revolution // 2)   # on to the mark again, where it began
    _wait(floor, timeout)
    report = MarkReport(offsets=offsets, widths=widths, turns=turns)
    where = ", ".join(f"{o:+d}" for o in offsets)
    say(f"The sensor saw the mark on {turns} of {turns} turns, {report.width} steps wide "
        f"({', '.join(map(str, widths))}), first at {where} steps from where homing put it.")
    if report.spread > report.steadiness or max(widths) - min(widths) > 2 * report.steadiness:
        raise CalibrationAborted(
            f"the home sensor saw the mark {report.spread} steps apart from turn to turn "
            f"({where}) and for {', '.join(map(str, widths))} steps: it samples the field instead "
            "of watching it (a duty-cycled hall switch such as TI's DRV5032 does), so homing "
            "would land somewhere else each time. Fit " + SENSORS + "; nothing saved")
    steps_per_ant = revolution / floor.ants_around
    if tolerance_ants is not None and report.width >= tolerance_ants * steps_per_ant:
        raise CalibrationAborted(
            f"the home mark is {report.width} steps wide, as wide as the jam tolerance "
            f"({tolerance_ants:g} ants = {tolerance_ants * steps_per_ant:g} steps): turning "
            "counter-clockwise the sensor meets its far side first. Use a smaller magnet or a "
            "narrower flag (or raise jam_tolerance_ants); nothing saved")
    return report


__all__ = ["BIG_NUDGE", "Calibration", "CalibrationAborted", "MarkReport", "calibrate_floor",
           "measure_mark", "parse_nudge"]
