"""TOML configuration: defaults, validation, and errors a maker can act on.

Every key is declared once in ``SCHEMA`` with its default, what is allowed and a
comment; ``potionpi config --print-default`` prints the commented file from it. A bad
value raises ``ConfigError`` naming the file, the key, the value and what is allowed.
"""
from __future__ import annotations

import copy
import math
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .contracts import COLOURS


class ConfigError(Exception):
    """One clear sentence about a bad config file."""


class RGB:
    """A key kind: three numbers ``[r, g, b]`` (a learned colour's shares of the light)."""


@dataclass(frozen=True)
class Key:
    """One config key: its default, what it means, and what is allowed.

    ``kind=dict`` is a table of ``name = value``: ``each`` is the kind of every value
    (``int``: a count that ``low``/``high`` bound; ``RGB``: three numbers), ``names`` its
    allowed names (None: any). A table whose default is empty is written by a tool (its
    ``example`` shows what it writes) and printed commented out, after its section.
    """

    default: Any
    help: str
    kind: type | tuple[type, ...] = str
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    names: tuple[str, ...] | None = None
    each: type = int
    example: dict[str, Any] | None = None

    def allowed(self) -> str:
        if self.kind is dict:
            return (f"a table of name = {self.allowed_each()}"
                    + ("; names: " + ", ".join(repr(n) for n in self.names) if self.names else ""))
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        names = {int: "a whole number", float: "a number", str: "text", bool: "true or false"}
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        return " or ".join(names.get(k, k.__name__) for k in kinds) + self._bounds()

    def allowed_each(self) -> str:
        """What one value of a table may be."""
        return "three numbers [r, g, b]" if self.each is RGB else "a whole number" + self._bounds()

    def refusal(self, where: str, value: object) -> str:
        """Why ``value`` (which failed ``check``) is not allowed at ``where``: for a table,
        the first entry at fault, by its name."""
        if self.kind is dict and isinstance(value, dict):
            for name, item in value.items():
                if self.names is not None and name not in self.names:
                    return (f"{where}.{name} is not a name of this table; names: "
                            + ", ".join(repr(n) for n in self.names))
                if not self._check_each(item):
                    return f"{where}.{name} = {item!r} is not allowed; use {self.allowed_each()}"
        return f"{where} = {value!r} is not allowed; use {self.allowed()}"

    @property
    def written_by_a_tool(self) -> bool:
        """A table with no default entries: printed as a commented ``[section.key]``."""
        return self.kind is dict and not self.default

    def _bounds(self) -> str:
        def show(v: float) -> str:
            return str(v) if isinstance(v, int) else f"{v:g}"
        if self.low is not None and self.high is not None:
            return f" from {show(self.low)} to {show(self.high)}"
        if self.low is not None:
            return f" of at least {show(self.low)}"
        return ""

    def check(self, value: object) -> bool:
        if self.kind is dict:
            return isinstance(value, dict) and all(
                (self.names is None or name in self.names) and self._check_each(item)
                for name, item in value.items())
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        if self.choices and value not in self.choices:
            return False
        return self._in_bounds(value, kinds)

    def _check_each(self, item: object) -> bool:
        if self.each is RGB:
            return (isinstance(item, list) and len(item) == 3
                    and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                            for x in item))
        return self._in_bounds(item, (self.each,))

    def normal(self, value: Any) -> Any:
        """``value`` (checked) as the daemon keeps it: numbers as floats where floats are
        allowed, a table copied."""
        if self.kind is dict:
            if self.each is RGB:
                return {name: [float(x) for x in rgb] for name, rgb in value.items()}
            return dict(value)
        if float in (self.kind if isinstance(self.kind, tuple) else (self.kind,)):
            return float(value)
        return value

    def _in_bounds(self, value: object, kinds: tuple[type, ...]) -> bool:
        if isinstance(value, bool) and bool not in kinds:
            return False
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not any(isinstance(value, kind) for kind in kinds):
            return False
        if isinstance(value, float) and not math.isfinite(value):     # nan passes < and >
            return False
        if not isinstance(value, (int, float)):       # text and choices have no bounds
            return True
        if self.low is not None and value < self.low:
            return False
        if self.high is not None and value > self.high:
            return False
        return True


def is_pin(text: str) -> bool:
    """4 to 8 ASCII digits (str.isdigit alone takes "٤٧١١", which no PIN pad can type)."""
    return text.isascii() and text.isdigit() and 4 <= len(text) <= 8


GPIO_PIN: dict[str, Any] = dict(kind=int, low=0, high=27)

# section -> key -> Key. Order here is the order of the printed default file.
SCHEMA: dict[str, dict[str, Key]] = {
    "table": {
        "pin": Key("", "Table PIN (4-8 digits) needed to change the game. Empty: the POTIONPI_PIN "
                       "environment variable, else one generated at first start and kept in the data dir."),
    },
    "web": {
        "host": Key("0.0.0.0", "Address to listen on; 0.0.0.0 lets the tablet on the table's Wi-Fi reach it."),
        "port": Key(8080, "TCP port of the tablet page and API.", int, low=1, high=65535),
        "https_port": Key(443, "TCP port of the table's HTTPS address, served once `potionpi tls` has made "
                               "its certificate (docs/https.md); plain HTTP on `port` stays for the "
                               "phones. 0: no HTTPS.", int, low=0, high=65535),
        "threads": Key(32, "Web worker threads for taps and pages; each open live stream gets one more.",
                       int, low=4, high=256),
        "keepalive_seconds": Key(10.0, "Seconds between keep-alive comments on idle live streams.",
                                 float, low=0.5, high=14),
        "names": Key("", "More names the table answers to, separated by spaces (e.g. a name your router "
                         "gives it: \"games.home.arpa\"). Always answered: its hostname, <hostname>.local, "
                         "its addresses and localhost; any other name gets 421 (docs/security.md)."),
    },
    "store": {
        "data_dir": Key("", "Where the game database and the instance secrets live. Empty: "
                            "$XDG_DATA_HOME/potionpi (usually ~/.local/share/potionpi)."),
    },
    "gpio": {
        "pin_factory": Key("auto", "GPIO library: auto picks lgpio (rpigpio first only on Buster and older); "
                                   "the drop beam needs lgpio (edge times); mock is for tests.",
                           choices=("auto", "lgpio", "rpigpio", "mock")),
    },
    "cauldron": {
        "enabled": Key(True, "Is a cauldron with sensors wired to this Pi?", bool),
        "encoder_a": Key(17, "BCM pin of the twist-grip encoder's A channel.", **GPIO_PIN),
        "encoder_b": Key(27, "BCM pin of the twist-grip encoder's B channel.", **GPIO_PIN),
        "beam": Key(22, "BCM pin of the drop beam sensor output.", **GPIO_PIN),
        "encoder_reverse": Key(False, "True when turning the grip clockwise counts backwards (A and B swapped).", bool),
        "beam_active_low": Key(True, "True when the sensor output goes low while a drop blocks the beam.", bool),
        "detents_per_revolution": Key(20, "Encoder detents in one full turn of the twist-grip.", int, low=4, high=400),
        "glitch_ms": Key(1.0, "Beam pulses shorter than this are noise, not drops.", float, low=0.1, high=10),
        "stuck_beam_seconds": Key(1.0, "A beam dark for longer than this is a sensor fault, not a drop.",
                                  float, low=0.1, high=30),
        "max_turns_per_second": Key(2.0, "Turning the grip faster than this shows \"turn gently\".",
                                    float, low=0.2, high=20),
        "colour_sensor": Key("none", "Colour sensor under the drop chute.", choices=("none", "tcs34725")),
        "i2c_bus": Key(1, "I2C bus of the colour sensor.", int, low=0, high=10),
        # the TCS34725's AGAIN settings 0 to 3, in that order (devices/colour_sensor.py)
        "colour_gain": Key(4, "TCS34725 analogue gain: more for a dim bowl, less if readings saturate.",
                           int, choices=(1, 4, 16, 60)),
        "colour_integration_ms": Key(24.0, "TCS34725 integration time per reading, in ms (rounded to "
                                           "whole 2.4 ms cycles); longer is less noisy but slower.",
                                     float, low=2.4, high=614.4),
        "colour_settle_ms": Key(30.0, "Wait this long after the beam sees a drop before reading its "
                                      "colour (the ball rolls from the beam into the bowl).",
                                float, low=0, high=1000),
        "colours": Key({}, "Learned drop colours, written by `potionpi calibrate colours`.",
                       dict, each=RGB, example={"red": [0.62, 0.21, 0.17]}),
    },
    "simulation": {
        "seed": Key(1, "Seed of the simulated cauldron's shuffling (same seed, same drops).", int, low=0),
        "detents_per_drop": Key(5, "Detents of clockwise turning per simulated drop (on average).",
                                int, low=1, high=100),
        "turn_speed": Key(1.0, "How fast the simulated hand turns the grip, in turns per second.",
                          float, low=0.05, high=20),
        "floor_ants_per_second": Key(4.0, "How fast the simulated forest floor turns, in ants per second.",
                                     float, low=0.1, high=100),
        "colour_sensor": Key(True, "Does the simulated cauldron have a colour sensor? false: the tablet "
                                   "asks for each drop's colour, as on a cauldron without one.", bool),
        "drops": Key({colour: 3 for colour in COLOURS},
                     "Drops of each colour inside the simulated cauldron when a game starts "
                     "(the box holds 18: 3 of each colour).", dict, low=0, high=30, names=COLOURS),
    },
    "forest_floor": {
        "backend": Key("auto", "How the forest floor turns: auto (simulated when devices are simulated, "
                               "else none), none (the master turns it by hand), sim, gpio, serial.",
                       choices=("auto", "none", "sim", "gpio", "serial")),
        "ants_around": Key(16, "Ants around the rim of the forest floor.", int, low=4, high=64),
        "steps_per_ant": Key(200.0, "Motor (micro)steps per ant; `potionpi calibrate floor` measures it.",
                             float, low=1, high=100000),
        "top_speed": Key(800.0, "Top speed in steps per second.", float, low=1, high=50000),
        "acceleration": Key(1600.0, "Acceleration in steps per second squared.", float, low=1, high=500000),
        "invert_direction": Key(False, "Swap clockwise and counter-clockwise.", bool),
        "step_pin": Key(5, "BCM pin to the driver's STEP input (gpio backend).", **GPIO_PIN),
        "dir_pin": Key(6, "BCM pin to the driver's DIR input (gpio backend).", **GPIO_PIN),
        "enable_pin": Key(13, "BCM pin to the driver's EN input, active low (gpio backend).", **GPIO_PIN),
        "home_pin": Key(19, "BCM pin of the hall or optical home switch (gpio backend); -1: none.",
                        int, low=-1, high=27),
        "stall_pin": Key(-1, "BCM pin of the driver's stall/DIAG output (TMC2209); -1: none.",
                         int, low=-1, high=27),
        "enable_active_low": Key(True, "True when the driver's EN input switches the coils on when low "
                                       "(A4988, DRV8825, TMC2209) (gpio backend).", bool),
        "home_active_low": Key(True, "True when the home sensor pulls its output low at the mark (A3144 "
                                     "hall, most slotted optical switches); the Pi's pull-up is used "
                                     "(gpio backend).", bool),
        "stall_active_high": Key(True, "True when the stall/DIAG output goes high on a stall (TMC2209) "
                                       "(gpio backend).", bool),
        "tmc2209_uart": Key("", "Serial port wired to a TMC2209's PDN_UART (e.g. /dev/serial0): potionpi "
                                "writes its StallGuard settings at start, so DIAG reports stalls on "
                                "stall_pin. Empty: no UART (gpio backend)."),
        "tmc2209_address": Key(0, "The TMC2209's UART address, set by its MS1/MS2 pins, which also set "
                                  "its microsteps unless tmc2209_microsteps says (gpio backend).",
                               int, low=0, high=3),
        "tmc2209_microsteps": Key(0, "Microsteps the TMC2209 is set to over its UART (mstep_reg_select "
                                     "and MRES), so its address no longer changes them; 0: as MS1/MS2 "
                                     "set them (address 0: 8, 1: 32, 2: 64, 3: 16) (gpio backend, with "
                                     "tmc2209_uart).", int, choices=(0, 1, 2, 4, 8, 16, 32, 64, 128, 256)),
        "stall_threshold": Key(70, "TMC2209 SGTHRS: a stall is flagged when the load value falls to twice "
                                   "this; higher is more sensitive (gpio backend, with tmc2209_uart).",
                               int, low=0, high=255),
        "stall_tcoolthrs": Key(0, "TMC2209 TCOOLTHRS: StallGuard works while the step interval TSTEP "
                                  "(in 1/12 MHz per 1/256 microstep) is at most this; 0: armed only "
                                  "above 1.5 x homing_speed (slower, its reading means little); a "
                                  "value that arms it at homing speed is refused (gpio backend, "
                                  "with tmc2209_uart).", int, low=0, high=0xFFFFF),
        "jam_tolerance_ants": Key(0.5, "How far from where it should be (in ants) the home mark may pass "
                                       "the sensor before a move counts as a jam; the mark must be "
                                       "narrower than this (gpio and serial backends).",
                                  float, low=0.05, high=4),
        "home_mark_steps": Key(0, "How many steps the home sensor sees the mark for, as `potionpi "
                                  "calibrate floor` measured it; sizes the glitch filter (half of "
                                  "it). 0: not measured, 2 steps (gpio and serial backends).",
                               int, low=0, high=100000),
        "start_speed": Key(100.0, "Speed the ramp starts from, in steps per second.", float, low=1, high=50000),
        "homing_speed": Key(200.0, "Speed while looking for home, in steps per second (gpio and serial "
                                   "backends).", float, low=1, high=50000),
        "serial_port": Key("", "Serial port of the Pico (serial backend). Empty: found by USB id."),
        "home_on_connect": Key(False, "Home the floor as soon as the Pico connects (serial backend). "
                                      "false: the floor only moves when asked; the master's first "
                                      "turn homes it first.", bool),
        "link_heartbeat_s": Key(0.25, "Seconds of quiet after which the host pings the Pico "
                                      "(serial backend).", float, low=0.05, high=5),
        "link_lost_after_s": Key(1.0, "Seconds without a word from the Pico after which the link "
                                      "counts as lost and is reopened (serial backend).",
                                 float, low=0.2, high=30),
    },
}


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "potionpi"


class Config:
    """Validated settings: ``config["web"]["port"]``; ``config.source`` names the file."""

    def __init__(self, values: dict[str, dict[str, Any]], source: str = "(defaults)"):
        self.values = values
        self.source = source

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.values[section]

    @classmethod
    def defaults(cls) -> "Config":
        # copied: a caller may change its Config, never SCHEMA's defaults
        return cls({s: {k: copy.deepcopy(key.default) for k, key in keys.items()}
                    for s, keys in SCHEMA.items()})

    @classmethod
    def load(cls, path: str | Path | None) -> "Config":
        """Defaults, overlaid by the file at ``path`` (if given). Raises ConfigError."""
        config = cls.defaults()
        if path is None:
            return config
        path = Path(path)
        try:
            with path.open("rb") as fh:
                raw = tomllib.load(fh)
        except FileNotFoundError:
            raise ConfigError(f"{path}: no such config file") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read it ({exc.strerror})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        config.source = str(path)
        config._overlay(raw, path)
        return config

    def _overlay(self, raw: dict[str, Any], path: Path) -> None:
        for section, table in raw.items():
            if section not in SCHEMA:
                raise ConfigError(f"{path}: unknown section [{section}]; allowed: "
                                  + ", ".join(f"[{s}]" for s in SCHEMA))
            if not isinstance(table, dict):
                raise ConfigError(f"{path}: {section} must be a [{section}] table")
            for key, value in table.items():
                spec = SCHEMA[section].get(key)
                if spec is None:
                    raise ConfigError(f"{path}: unknown key {section}.{key}; allowed: "
                                      + ", ".join(SCHEMA[section]))
                if not spec.check(value):
                    raise ConfigError(f"{path}: {spec.refusal(f'{section}.{key}', value)}")
                self.values[section][key] = spec.normal(value)
        pin = self.values["table"]["pin"]
        if pin and not is_pin(pin):
            raise ConfigError(f"{path}: table.pin = {pin!r} is not allowed; use 4 to 8 digits")
        web = self.values["web"]
        if web["https_port"] == web["port"]:
            raise ConfigError(f"{path}: web.https_port = {web['https_port']} is web.port too; "
                              "use another port for HTTPS (443), or 0 for none")


def section(name: str, **overrides: Any) -> dict[str, Any]:
    """The ``[name]`` section: SCHEMA defaults with ``overrides`` checked as a file's values
    are (so a test or a bench builds a device from the same defaults as the daemon)."""
    config = Config.defaults()
    config._overlay({name: overrides}, Path(f"({name} overrides)"))
    return config[name]


def default_file() -> str:
    """The commented default config, as printed by `potionpi config --print-default`."""
    lines = ["# potionpi configuration (TOML). Every key is optional; shown are the defaults.",
             "# Start the daemon with:  potionpi run --config /path/to/this.toml", ""]
    for section, keys in SCHEMA.items():
        lines.append(f"[{section}]")
        tables = []         # a [section.key] table comes after the section's plain keys
        for name, key in keys.items():
            text = [f"# {key.help}", f"# Allowed: {key.allowed()}."]
            if key.written_by_a_tool:
                tables += text + [f"# [{section}.{name}]"] + [
                    f"# {item} = {_toml(value)}" for item, value in (key.example or {}).items()]
            else:
                lines += text + [f"{name} = {_toml(key.default)}"]
        lines += tables + [""]
    return "\n".join(lines)


def _toml(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def markdown() -> str:
    """docs/config.md, generated from SCHEMA so the docs never drift from the code."""
    out = ["# Configuration", "",
           "potionpi reads one TOML file given with `potionpi run --config FILE`. Every key is",
           "optional; a missing key keeps its default. `potionpi config --print-default` prints",
           "a commented file with every default, and `potionpi config --check FILE` validates one.",
           "A bad value stops the daemon with one sentence naming the file, the key, the value and",
           "what is allowed (exit status 2).", "",
           "<!-- generated by controller.config.markdown(); tests/test_config.py keeps it in sync -->", ""]
    for section, keys in SCHEMA.items():
        out += [f"## [{section}]", "", "| key | default | allowed | meaning |", "|---|---|---|---|"]
        for name, key in keys.items():
            default = "(none)" if key.written_by_a_tool else f"`{_toml(key.default)}`"
            out.append(f"| `{name}` | {default} | {key.allowed()} | {key.help} |")
        out.append("")
    return "\n".join(out)
