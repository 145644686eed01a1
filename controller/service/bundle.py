"""What `potionpi export` writes and the settings page downloads: every game and its log.

Written as it is read, a game and a batch of actions at a time, so its memory stays flat
however many games the table has played (a Pi Zero 2 W has 512 MB). Each log entry is
written by SQLite around the action's stored JSON text (``Store.iter_action_json``), not
decoded and encoded again: that was most of an export's time.
"""
from __future__ import annotations

import json
from typing import Iterator, TextIO

from .. import __version__
from ..store import Store


WITHHELD = ("the game is still being played, and its log and seed can hold what a player must "
            "not see yet (hidden cards, secret recipes: the seed deals them all): they come once "
            "the game is over and another has started")
#: statuses of the game on the table: "finished" too, since an undo can take its end back
RUNNING = ("playing", "finished")


def iter_export(store: Store, *, withhold_running: bool = False) -> Iterator[str]:
    """The export document in pieces (a game's head, then up to 500 of its actions per
    piece): every game, newest first, with its whole action log.

    ``withhold_running``: leave out the log and the seed of the game on the table (the
    tablet's download: whoever knows the table PIN may take it, players included; the seed
    alone would deal every hidden card again, issue 22).
    """
    yield '{"potionpi": %s, "games": [' % json.dumps(__version__)
    for n, game in enumerate(store.iter_games(newest_first=True)):
        if withhold_running and game["status"] in RUNNING:
            game = {**game, "seed": None}
        head = json.dumps(game)[:-1]
        if withhold_running and game["status"] in RUNNING:
            yield (("," if n else "") + "\n" + head + ', "actions": null, "actions_withheld": '
                   + json.dumps(WITHHELD) + "}")
            continue
        yield ("," if n else "") + "\n" + head + ', "actions": ['
        first = True
        for lines in store.iter_action_json(game["id"]):
            yield ("\n  " if first else ",\n  ") + ",\n  ".join(lines)
            first = False
        yield "]}"
    yield "\n]}\n"


def write_export(store: Store, out: TextIO, *, withhold_running: bool = False) -> None:
    """Write :func:`iter_export` to ``out``."""
    for piece in iter_export(store, withhold_running=withhold_running):
        out.write(piece)
