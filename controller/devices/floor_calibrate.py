"""`potionpi calibrate floor`: find how many motor steps carry the floor one ant.

The floor homes, turns what should be one full revolution with the current
guess, and the user nudges it step by step until the ant mark sits exactly at
the pointer again. Steps per ant = (the revolution's steps + the nudges) / ants.
Talking to the user goes through injected ``ask``/``say`` callables, so the CLI
uses ``input``/``print`` and the tests use scripted answers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .forest_floor import FAULT

BIG_NUDGE = 10

HELP = ("Type + or - to nudge one step, ++ or -- for {big}, a number such as 25 or -7 "
        "for that many steps; press Enter (or type ok) when the ant mark lines up; q to give up.")


class CalibrationAborted(RuntimeError):
    """The user gave up, or the floor faulted; nothing is saved."""


@dataclass
class Calibration:
    steps_per_ant: float
    steps_per_revolution: int
    nudged: int

    def as_config(self) -> dict[str, Any]:
        """The values ``[forest_floor]`` in the config file takes from calibration."""
        return {"steps_per_ant": self.steps_per_ant}


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
                    max_answers: int = 1000) -> Calibration:
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
    return result


__all__ = ["BIG_NUDGE", "Calibration", "CalibrationAborted", "calibrate_floor", "parse_nudge"]
