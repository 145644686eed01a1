"""Every game's TOML files are read when the table starts, so a file someone broke is said
then (`potionpi run` stops and names the file, line and column), not in the middle of an
evening when its game is chosen, and not as a lobby that cannot list the games.

Reading all of them (~20 files) is ~5 ms of a start on this machine, more on a Pi Zero; so
what read well is remembered in the data dir by size and modification time
(``games_checked.json``), and a later start reads only a file that changed since: ~20
``stat`` calls. Losing that file only means reading everything once more."""
from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any, Iterable

from .plugin import player_limits

CHECKED_FILE = "games_checked.json"


class BadGameData(Exception):
    """One sentence naming the game's file and what is wrong in it."""


def game_files() -> list[Path]:
    """The TOML files of every installed game (its data, log words, quick reference, ...)."""
    from . import plugins

    files: list[Path] = []
    for plugin in plugins().values():
        files.extend(sorted(plugin.static_dir().parent.glob("*.toml")))
    return files


def check(data_dir: Path, files: Iterable[Path] | None = None) -> int:
    """Read each of ``files`` (default: every game's) that changed since it last read
    well; raise :class:`BadGameData` for the first that does not. Returns how many
    were read."""
    keep = Path(data_dir) / CHECKED_FILE
    try:
        known = json.loads(keep.read_text(encoding="utf-8"))
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):
        known = {}
    good: dict[str, list[int]] = {}
    read = 0
    for path in game_files() if files is None else files:
        try:
            st = path.stat()
        except OSError as exc:
            raise BadGameData(f"the game file {path} cannot be read ({exc.strerror or exc}); "
                              "reinstall potionpi to put it back") from None
        mark = [st.st_mtime_ns, st.st_size]
        if known.get(str(path)) != mark:
            _read(path)
            read += 1
        good[str(path)] = mark
    if good != known:
        tmp = keep.with_name(keep.name + ".tmp")
        try:
            tmp.write_text(json.dumps(good), encoding="utf-8")
            os.replace(tmp, keep)
        except OSError:
            pass
    return read


def _read(path: Path) -> None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BadGameData(f"the game file {path} cannot be read ({exc.strerror or exc}); "
                          "reinstall potionpi to put it back") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadGameData(f"the game file {path} is not valid TOML: {exc}; undo the change "
                          "(or reinstall potionpi to put the file back)") from None
    if path.name == "data.toml":
        _players(path, data.get("players"))


def _players(path: Path, table: Any) -> None:
    """The ``[players]`` table the lobby reads (:func:`~.plugin.player_limits`)."""
    if player_limits(table) is None:
        raise BadGameData(f"the game file {path} needs [players] with min and max, whole numbers "
                          f"with 1 <= min <= max (it has {table!r}); undo the change "
                          "(or reinstall potionpi to put the file back)")
