"""Time a clockless Pi can trust (docs/security.md, "Time").

A Raspberry Pi has no real-time clock: it boots with the time it last saved, and on the
table's own hotspot no time server is reached, so the wall clock (``time.time``) may be
hours or days off and jump when a time server is found. Nothing that decides who may do
what (a PIN lockout, a cookie, a link, a timer) may read it. They read the monotonic clock
(``time.monotonic``: seconds since boot, never set, the same for every process of one
boot), and what must outlive a restart is kept as a :class:`Stamp`: the boot's id and the
monotonic reading. In the same boot a stamp gives the exact time since; after a reboot
the time in between is unknown, and each user of a stamp says what it then assumes (the
safe side for it: a lockout goes on, nothing gets older than it provably is).

The wall clock is still right for what people read: the date of a game. A game's length is
measured on the monotonic clock and its start dated back from its end, so a clock set right
mid-game dates the whole game right and no game lasts a negative time (controller/store.py).
"""
from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")

_process_boot = secrets.token_hex(16)     # where the kernel gives no boot id: this process


def boot_id() -> str:
    """This boot's id (Linux: a random UUID the kernel picks at boot). Without one, an id of
    this process: then every restart counts as a reboot, the safe side for every stamp."""
    try:
        text = BOOT_ID_FILE.read_text().strip()
    except OSError:
        return _process_boot
    return text or _process_boot


@dataclass(frozen=True)
class Stamp:
    """A moment that outlives a restart: the boot it was taken in and the monotonic clock."""

    boot: str
    mono: float

    @classmethod
    def now(cls, clock: Callable[[], float] = time.monotonic, boot: Callable[[], str] = boot_id) -> "Stamp":
        return cls(boot(), clock())

    def since(self, clock: Callable[[], float] = time.monotonic,
              boot: Callable[[], str] = boot_id) -> float | None:
        """Seconds from this stamp to now, or None when it was taken in another boot (the
        time in between is unknown). Never negative."""
        if self.boot != boot():
            return None
        return max(0.0, clock() - self.mono)

    def to_json(self) -> dict[str, Any]:
        return {"boot": self.boot, "mono": self.mono}

    @classmethod
    def from_json(cls, data: Any) -> "Stamp | None":
        """A stamp read back, or None when ``data`` is not one (an old or edited file)."""
        if not isinstance(data, dict):
            return None
        boot, mono = data.get("boot"), data.get("mono")
        if not isinstance(boot, str) or isinstance(mono, bool) or not isinstance(mono, (int, float)):
            return None
        if mono != mono or mono in (float("inf"), float("-inf")):
            return None
        return cls(boot, float(mono))


def elapsed(stamp: Stamp | None, wall_start: float | None, wall_end: float) -> float:
    """Seconds from a start to now: on the monotonic clock when the start was stamped in
    this boot, else by the wall clock, never below 0 (a clock set back mid-game)."""
    if stamp is not None:
        since = stamp.since()
        if since is not None:
            return since
    if wall_start is None:
        return 0.0
    return max(0.0, wall_end - wall_start)
