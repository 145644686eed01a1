"""``potionpi calibrate colours``: teach the colour sensor what each drop looks like.

The maker drops each colour a few times; every drop seen by the beam is read
by the colour sensor, and the average red/green/blue shares become that
colour's learned value. The CLI supplies the sensor, a way to wait for the
beam, and ``ask``/``say`` for the conversation, so this logic runs in tests too.
"""
from __future__ import annotations

import itertools
import math
from typing import Callable, Sequence

from ..contracts import COLOURS
from .colour_sensor import ColourSensor, chromaticity

Ask = Callable[[str], str]
Say = Callable[[str], None]
BeamWaiter = Callable[[float], bool]

SKIP_WORDS = {"s", "skip"}
QUIT_WORDS = {"q", "quit"}


class CalibrationCancelled(Exception):
    """The maker typed quit (or the sensor cannot be calibrated as set); nothing was learned."""


def run_colour_calibration(sensor: ColourSensor, cauldron_beam_waiter: BeamWaiter, ask: Ask, say: Say, *,
                           colours: Sequence[str] = COLOURS, drops_per_colour: int = 3,
                           timeout_s: float = 60.0, min_clear: int = 20,
                           max_distance: float = 0.08) -> dict[str, list[float]]:
    """Learn each colour from ``drops_per_colour`` drops; returns {colour: [r, g, b]}.

    ``sensor.read_drop()`` reads the ball that just landed; ``cauldron_beam_waiter(t)``
    blocks until the beam sees a drop (True) or ``t`` seconds pass (False).
    Colours the maker skips are left out of the result.
    """
    if drops_per_colour < 1:
        raise ValueError("drops_per_colour must be at least 1")
    say(f"Colour calibration: for each colour, put its drops into the empty cauldron and "
        f"turn clockwise until {drops_per_colour} of them have fallen. "
        "Type 'skip' to leave a colour out, 'quit' to stop.")
    learned: dict[str, list[float]] = {}
    for colour in colours:
        answer = ask(f"Put {drops_per_colour} {colour} drops into the cauldron, then press "
                     "Enter (or type skip / quit): ").strip().lower()
        if answer in QUIT_WORDS:
            raise CalibrationCancelled("calibration stopped; the config was not changed")
        if answer in SKIP_WORDS:
            say(f"Skipped {colour}.")
            continue
        samples = _sample_colour(sensor, cauldron_beam_waiter, ask, say, colour,
                                 drops_per_colour, timeout_s, min_clear)
        if samples is None:
            say(f"Skipped {colour}.")
            continue
        mean = [round(sum(s[i] for s in samples) / len(samples), 4) for i in range(3)]
        spread = max(math.dist(s, mean) for s in samples)
        learned[colour] = mean
        say(f"Learned {colour}: red {mean[0]:.3f}, green {mean[1]:.3f}, blue {mean[2]:.3f} "
            f"(drops differed by up to {spread:.3f}).")
        if spread > max_distance:
            say(f"Warning: the {colour} drops looked quite different from each other; "
                "check the light around the bowl and calibrate again.")
    for (a, ref_a), (b, ref_b) in itertools.combinations(learned.items(), 2):
        if math.dist(ref_a, ref_b) < 2 * max_distance:
            say(f"Warning: {a} and {b} look alike to the sensor; it may ask the tablet "
                "instead of guessing. More even light helps.")
    say(f"Done: learned {len(learned)} of {len(colours)} colours.")
    return learned


def _sample_colour(sensor: ColourSensor, wait: BeamWaiter, ask: Ask, say: Say, colour: str, wanted: int,
                   timeout_s: float, min_clear: int) -> list[list[float]] | None:
    samples: list[list[float]] = []
    while len(samples) < wanted:
        say(f"Turn clockwise: {colour} drop {len(samples) + 1} of {wanted}.")
        if not wait(timeout_s):
            answer = ask(f"No drop seen for {timeout_s:g} s. Press Enter to keep waiting, "
                         "or type skip / quit: ").strip().lower()
            if answer in QUIT_WORDS:
                raise CalibrationCancelled("calibration stopped; the config was not changed")
            if answer in SKIP_WORDS:
                return None
            continue
        reading = sensor.read_drop()
        saturated = getattr(sensor, "saturated", None)
        if saturated is not None and saturated(reading):
            # the brightest channel was cut off: its share, and so the colour, would be wrong
            raise CalibrationCancelled(
                f"the colour sensor reads at full scale ({max(reading)} of "
                f"{sensor.saturation:g} counts) with the {colour} drop under it, so it cannot "
                f"tell colours apart: {sensor.fix_saturation}, then calibrate again; the config "
                "was not changed")
        if reading[3] < min_clear:
            say("The sensor saw almost no light: is the drop under it, and the light on? "
                "Drop it again.")
            continue
        samples.append(chromaticity(reading))
    return samples


def learned_colours_toml(learned: dict[str, Sequence[float]],
                         table: str = "cauldron.colours") -> str:
    """The learned colours as a TOML table the user can paste into the config."""
    lines = [f"[{table}]"]
    for colour, value in learned.items():
        lines.append(f"{colour} = [{', '.join(f'{x:.4f}' for x in value)}]")
    return "\n".join(lines) + "\n"
