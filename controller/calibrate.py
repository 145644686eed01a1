"""`potionpi calibrate colours | floor`: measure on the real device, save into the config file.

The conversations live in the device modules (testable with injected ask/say); this
module builds the device from config and writes the result back with tomlkit, which
keeps the maker's comments and layout.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

from .cli import UsageError
from .config import Config, ConfigError


def calibrate(device: str, config: Config, config_path: str | None,
              ask: Callable[[str], str] = input, say: Callable[[str], None] = print) -> int:
    if not config_path:
        raise UsageError("calibration saves its result into your config file: "
                          "run it as `potionpi calibrate " + device + " --config FILE`")
    if device == "colours":
        values = _colours(config, ask, say)
        save(Path(config_path), "cauldron", {"colours": values})
    else:
        values = _floor(config, ask, say)
        save(Path(config_path), "forest_floor", values)
    Config.load(config_path)          # what we wrote must load again
    say(f"saved to {config_path}")
    return 0


def save(path: Path, section: str, values: dict[str, Any]) -> None:
    """Set ``[section] key = value`` for each value, keeping the rest of the file as it is."""
    import tomlkit

    doc = tomlkit.parse(path.read_text()) if path.exists() else tomlkit.document()
    table = doc.get(section)
    if table is None:
        table = tomlkit.table()
        doc[section] = table
    for key, value in values.items():
        if isinstance(value, dict):
            sub = tomlkit.table()
            for name, v in value.items():
                sub[name] = [round(x, 4) for x in v] if isinstance(v, list) else v
            table[key] = sub
        else:
            table[key] = value
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(tomlkit.dumps(doc))
    tmp.replace(path)


Ask = Callable[[str], str]
Say = Callable[[str], None]


def _colours(config: Config, ask: Ask, say: Say) -> dict[str, list[float]]:
    from .devices.calibrate_colours import run_colour_calibration
    from .devices.cauldron import Cauldron
    from .devices.colour_sensor import make_colour_sensor
    from .devices.pins import make_pin_factory

    section = config["cauldron"]
    if section["colour_sensor"] == "none":
        raise ConfigError(f"{config.source}: cauldron.colour_sensor = \"none\"; set it to "
                          "\"tcs34725\" to calibrate the colour sensor")
    sensor = make_colour_sensor(section)
    assert sensor is not None             # colour_sensor is not "none" (above)
    try:
        # the cauldron only watches the beam here: the calibration itself reads the sensor
        cauldron = Cauldron.from_config(section, colour_sensor=None,
                                        pin_factory=make_pin_factory(config["gpio"]["pin_factory"]))
    except Exception:
        sensor.close()
        raise
    try:
        return run_colour_calibration(sensor, cauldron.beam_waiter(), ask, say)
    finally:
        cauldron.close()
        sensor.close()


def _floor(config: Config, ask: Ask, say: Say) -> dict[str, Any]:
    from .devices.floor_calibrate import calibrate_floor
    from .devices.hub import build_floor

    floor = build_floor(config, sim=False, sim_mcu=False, extras=[], say=say)
    if floor is None:
        raise ConfigError(f"{config.source}: forest_floor.backend is \"none\"; choose \"gpio\" or "
                          "\"serial\" to calibrate the motor")
    try:
        result = calibrate_floor(floor, ask, say,
                                 tolerance_ants=config["forest_floor"]["jam_tolerance_ants"])
    finally:
        floor.close()
    return result.as_config()


if __name__ == "__main__":
    sys.exit(calibrate(sys.argv[1], Config.load(sys.argv[2]), sys.argv[2]))
