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


# section -> key -> Key: the core's sections here; each device plug-in's are merged in
# after [gpio] (``_merge_devices``). Order is the order of the printed default file.
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
}


# --- the device plug-ins' declarations ---------------------------------------------------
CORE_SECTIONS = tuple(SCHEMA)           # the sections no device may take
BUILTIN_DEVICES = Path(__file__).resolve().parent / "devices" / "builtin"
DEVICES_ENV = "POTIONPI_DEVICES"
"""More folders of device plug-ins, separated like PATH (a maker's own sensor, a test's)."""

_KINDS: dict[str, dict[str, Any]] = {
    "str": dict(kind=str), "int": dict(kind=int), "float": dict(kind=float), "bool": dict(kind=bool),
    "pin": dict(kind=int, low=0, high=27),       # a BCM pin of the 40-pin header
    "table": dict(kind=dict),
}


@dataclass(frozen=True)
class PinClaim:
    """BCM pins a device holds while ``when`` (key = value, all of them) is its config:
    the pins named by its ``keys`` (a negative one: none wired) and ``fixed`` ones."""

    keys: tuple[str, ...] = ()
    fixed: tuple[tuple[str, int], ...] = ()
    when: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class DeviceDeclaration:
    """A device plug-in's ``device.toml``: its name, its config section and keys, its pins.

    Plain data, read without importing the plug-in's code; ``controller.devices`` loads
    the package beside it (its builder, wiring and routes) when the hub is built.
    """

    name: str
    section: str
    order: int
    folder: Path
    keys: dict[str, Key]
    pins: tuple[PinClaim, ...] = ()

    @classmethod
    def read(cls, path: Path) -> "DeviceDeclaration":
        """Parse ``path``; a ConfigError names the file and the entry at fault."""
        try:
            with path.open("rb") as fh:
                raw = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: not a readable device declaration ({exc})") from None
        device = raw.get("device")
        if not isinstance(device, dict) or not isinstance(device.get("name"), str):
            raise ConfigError(f"{path}: needs a [device] table with its name = \"...\"")
        keys = {name: _declared_key(path, name, entry) for name, entry in raw.get("keys", {}).items()}
        pins = []
        for claim in raw.get("pins", []):
            unknown = [k for k in (*claim.get("keys", ()), *claim.get("when", {})) if k not in keys]
            if unknown:
                raise ConfigError(f"{path}: [[pins]] names {', '.join(unknown)}, not a key of [keys]")
            pins.append(PinClaim(tuple(claim.get("keys", ())), tuple(claim.get("fixed", {}).items()),
                                 tuple(claim.get("when", {}).items())))
        return cls(device["name"], str(device.get("section", device["name"])), int(device.get("order", 100)),
                   path.parent, keys, tuple(pins))


def _declared_key(path: Path, name: str, entry: dict[str, Any]) -> Key:
    """One ``[keys.<name>]`` entry as a Key, checked as far as a file's value is."""
    where = f"{path}: [keys.{name}]"
    try:
        spec = dict(_KINDS[entry.get("kind", "str")])
    except KeyError:
        raise ConfigError(f"{where} kind = {entry['kind']!r}; use one of "
                          + ", ".join(repr(k) for k in _KINDS)) from None
    for field in ("low", "high", "names", "example"):
        if field in entry:
            spec[field] = entry[field]
    if "choices" in entry:
        spec["choices"] = tuple(entry["choices"])
    if "names" in spec:
        spec["names"] = tuple(spec["names"])
    if entry.get("each") == "rgb":
        spec["each"] = RGB
    if "default" not in entry or not isinstance(entry.get("help"), str):
        raise ConfigError(f"{where} needs a default and a help = \"...\" sentence")
    key = Key(entry["default"], entry["help"], **spec)
    if not key.check(key.default):
        raise ConfigError(f"{where} default = {key.default!r} is not allowed by its own kind; "
                          f"use {key.allowed()}")
    return key


def device_folders() -> list[Path]:
    """Where device plug-ins are looked for: the built-in ones, then ``POTIONPI_DEVICES``."""
    extra = [Path(p) for p in os.environ.get(DEVICES_ENV, "").split(os.pathsep) if p]
    return [BUILTIN_DEVICES, *extra]


def read_declarations(folders: list[Path]) -> dict[str, DeviceDeclaration]:
    """Every ``<folder>/<plug-in>/device.toml``, by device name, in their ``order``."""
    found: dict[str, DeviceDeclaration] = {}
    for folder in folders:
        for path in sorted(folder.glob("*/device.toml")):
            declaration = DeviceDeclaration.read(path)
            if declaration.name in found:
                raise ConfigError(f"{path}: a device named {declaration.name!r} is declared twice "
                                  f"(also in {found[declaration.name].folder / 'device.toml'})")
            if declaration.section in CORE_SECTIONS:
                raise ConfigError(f"{path}: section [{declaration.section}] is the core's; "
                                  "give the device a section of its own")
            taken = [d.name for d in found.values() if d.section == declaration.section]
            if taken:
                raise ConfigError(f"{path}: section [{declaration.section}] is device "
                                  f"{taken[0]!r}'s; give the device a section of its own")
            found[declaration.name] = declaration
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


def _merge_devices(declarations: dict[str, DeviceDeclaration]) -> None:
    """The devices' sections into SCHEMA, after [gpio] and before [simulation]."""
    core = list(SCHEMA.items())
    at = [name for name, _ in core].index("simulation")
    SCHEMA.clear()
    SCHEMA.update(core[:at])
    SCHEMA.update({d.section: d.keys for d in declarations.values()})
    SCHEMA.update(core[at:])


DEVICES: dict[str, DeviceDeclaration] = read_declarations(device_folders())
"""Every device plug-in found at start, by name (``controller.devices`` builds them)."""
_merge_devices(DEVICES)


def claimed_pins(values: dict[str, dict[str, Any]]) -> dict[str, int]:
    """``"section.key"`` (or a fixed pin's name) -> the BCM pin it holds with these values."""
    out: dict[str, int] = {}
    for device in DEVICES.values():
        section = values[device.section]
        for claim in device.pins:
            if any(section[key] != value for key, value in claim.when):
                continue
            out.update({f"{device.section}.{key}": section[key] for key in claim.keys if section[key] >= 0})
            out.update(claim.fixed)
    return out


def pins_claimed_twice(values: dict[str, dict[str, Any]]) -> list[tuple[int, list[str]]]:
    """Each BCM pin that two or more keys claim, with those keys."""
    by_pin: dict[int, list[str]] = {}
    for key, pin in claimed_pins(values).items():
        by_pin.setdefault(pin, []).append(key)
    return [(pin, keys) for pin, keys in by_pin.items() if len(keys) > 1]

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
        for pin, keys in pins_claimed_twice(self.values):
            named = " and ".join(f"{k} = {pin}" if "." in k else k for k in keys)
            raise ConfigError(f"{path}: {named} claim the same GPIO pin (BCM {pin}); give each "
                              "its own pin (hardware/ has the pin map)")


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
           "what is allowed (exit status 2), and so do two keys on one GPIO pin.", "",
           "Each device's section ([" + "], [".join(d.section for d in DEVICES.values()) + "]) is declared by",
           "its plug-in's `device.toml` (docs/architecture.md, \"Adding a device\").", "",
           "<!-- generated by controller.config.markdown(); tests/test_config.py keeps it in sync -->", ""]
    for section, keys in SCHEMA.items():
        out += [f"## [{section}]", "", "| key | default | allowed | meaning |", "|---|---|---|---|"]
        for name, key in keys.items():
            default = "(none)" if key.written_by_a_tool else f"`{_toml(key.default)}`"
            out.append(f"| `{name}` | {default} | {key.allowed()} | {key.help} |")
        out.append("")
    return "\n".join(out)
