"""Every config key the docs tell a maker to set exists in SCHEMA (so the daemon accepts it).

Keys are read from the docs the way a maker reads them: TOML blocks (``[section]`` then
``key = value``), inline ``[section] key = value``, dotted ``section.key`` (pin tables),
and a bare ``key = value`` in backticks with a TOML value (the section is then any section;
Python's ``True``/``False`` mark code, not config). An ``ini`` block is the SD card's
potionpi-setup.txt, not the config: its keys are the first boot's (tests/service/test_firstboot.py).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config import SCHEMA

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("hardware/*.md"), ROOT / "README.md"])

SECTION_LINE = re.compile(r"^\s*\[([a-z_]+)\]\s*$")
KEY_LINE = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*=")
INLINE = re.compile(r"`\[([a-z_]+)\]\s+([a-z_][a-z0-9_]*)\s*=[^`]*`")
DOTTED = re.compile(r"`([a-z_]+)\.([a-z_][a-z0-9_]*)(?:\s*=[^`]*)?`")
BARE = re.compile(r'`([a-z_][a-z0-9_]*) = (?:true|false|-?\d[\d.]*|"[^"`]*")`')
FILE_ENDINGS = {"py", "js", "css", "html", "toml", "md", "json", "mpy", "uf2", "txt", "crt", "key",
                "mobileconfig", "webmanifest"}


def documented_keys(text: str) -> set[tuple[str | None, str]]:
    """(section, key) pairs a doc names; section None when it names only the key."""
    found: set[tuple[str | None, str]] = set()
    in_code, setup_file, section = False, False, None
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code, section = not in_code, None
            setup_file = in_code and line.strip() == "```ini"
            continue
        if setup_file:
            continue
        if in_code:
            if m := SECTION_LINE.match(line):
                section = m.group(1)
            elif section and (m := KEY_LINE.match(line)):
                found.add((section, m.group(1)))
            continue
        found.update(INLINE.findall(line))
        for sec, key in DOTTED.findall(line):
            if sec in SCHEMA and key not in FILE_ENDINGS:
                found.add((sec, key))
        found.update((None, key) for key in BARE.findall(line))
    return found


def missing(found: set[tuple[str | None, str]]) -> list[str]:
    out = []
    for section, key in sorted(found, key=lambda p: (p[0] or "", p[1])):
        if section is None:
            if not any(key in keys for keys in SCHEMA.values()):
                out.append(f"{key} (in no section)")
        elif section in SCHEMA and key not in SCHEMA[section]:
            out.append(f"[{section}] {key}")
        elif section not in SCHEMA:
            out.append(f"[{section}] (no such section) {key}")
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_key_a_doc_names_is_in_the_schema(doc):
    assert missing(documented_keys(doc.read_text())) == [], f"{doc.name} documents keys SCHEMA lacks"


def test_the_reader_finds_keys_in_every_form_a_doc_uses():
    text = """
```toml
[forest_floor]
backend = "gpio"
no_such_key = 3
```
Set `[cauldron] glitch_ms = 2` or `forest_floor.stall_pin`; `home_active_low = true`;
`table.py` is a file and `nope = false` is no key.
"""
    found = documented_keys(text)
    assert {("forest_floor", "backend"), ("forest_floor", "no_such_key"), ("cauldron", "glitch_ms"),
            ("forest_floor", "stall_pin"), (None, "home_active_low"), (None, "nope")} == found
    assert missing(found) == ["nope (in no section)", "[forest_floor] no_such_key"]
