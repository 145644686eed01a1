"""Which phone holds which seat of the running game (docs/seats.md, "One phone per seat").

The first device to use a seat's link claims the seat: the server keeps a hash of that
device's key (a random key in its session cookie) for the seat, and from then on the link
opens the seat on that device only. Moving the seat to another phone is the table's
doing: the seat's link *generation* goes up, so the old link (and its short code) dies,
the claim is cleared, and the tablet shows the new link.

Kept in ``path`` (hashes only), so phones keep their seats across a restart of the
daemon; a new game starts with every seat free. Nothing here reads the clock.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


def device_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Seat:
    """One seat's link generation and the hash of the device holding it (None: free)."""

    gen: int = 0
    device: str | None = None

    @property
    def claimed(self) -> bool:
        return self.device is not None


class SeatClaims:
    """The seats of one game (the running one); all methods are thread-safe."""

    def __init__(self, path: Path | None = None):
        self.path = path
        self._lock = threading.Lock()
        self._game: int | None = None
        self._seats: dict[int, Seat] = {}
        if path is not None and path.exists():
            try:
                data = json.loads(path.read_text())
                self._game = int(data["game"])
                self._seats = {int(s): Seat(int(v["gen"]), v["device"] if isinstance(v["device"], str) else None)
                               for s, v in data["seats"].items()}
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                log.warning("%s is unreadable; every phone opens its seat's link again", path)
                self._game, self._seats = None, {}

    def seat(self, game: int, seat: int) -> Seat:
        with self._lock:
            return self._for(game).get(seat, Seat())

    def claimed(self, game: int) -> set[int]:
        with self._lock:
            return {s for s, v in self._for(game).items() if v.claimed}

    def claim(self, game: int, seat: int, gen: int, device_key: str) -> str:
        """Claim ``seat`` for this device: "claimed" (it was free and is this device's now),
        "mine" (already this device's), "other" (another device holds it) or "stale"
        (the link is of an earlier generation: the seat was moved)."""
        wanted = device_hash(device_key)
        with self._lock:
            seats = self._for(game)
            current = seats.get(seat, Seat())
            if current.gen != gen:
                return "stale"
            if current.device is not None:
                return "mine" if hmac.compare_digest(current.device, wanted) else "other"
            seats[seat] = Seat(current.gen, wanted)
            self._save()
            return "claimed"

    def holds(self, game: int, seat: int, gen: int, device_key: object) -> bool:
        """True if this device holds the seat with a link of this generation."""
        if not isinstance(device_key, str):
            return False
        current = self.seat(game, seat)
        return (current.gen == gen and current.device is not None
                and hmac.compare_digest(current.device, device_hash(device_key)))

    def move(self, game: int, seat: int) -> Seat:
        """Free the seat for another phone: a new link generation, no device."""
        with self._lock:
            seats = self._for(game)
            moved = seats[seat] = Seat(seats.get(seat, Seat()).gen + 1, None)
            self._save()
            return moved

    def clear(self) -> int:
        """Forget every claim (a new PIN revokes every link); how many seats were held."""
        with self._lock:
            held = sum(1 for v in self._seats.values() if v.claimed)
            self._game, self._seats = None, {}
            self._save()
            return held

    def _for(self, game: int) -> dict[int, Seat]:
        """The seats of ``game``; another game than the one kept starts with all free."""
        if self._game != game:
            self._game, self._seats = game, {}
        return self._seats

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"game": self._game, "seats": {str(s): {"gen": v.gen, "device": v.device}
                                              for s, v in self._seats.items()}}
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(data))
            os.replace(tmp, self.path)
        except OSError as exc:    # a full card: the claims hold until the daemon restarts
            log.warning("could not keep the phones' seats in %s: %s", self.path, exc)
