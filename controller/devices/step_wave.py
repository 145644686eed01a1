"""STEP pulses timed by lgpio's transmit thread (``tx_wave``), not by Python.

lgpio (the C library under gpiozero's ``LGPIOFactory``) runs one transmit thread per
process. ``tx_wave(handle, gpio, pulses)`` queues a *wave* — a list of
``lgpio.pulse(bits, mask, delay_us)``: set the line to ``bits``, wait ``delay_us`` —
and that thread plays it with ``clock_nanosleep`` on absolute deadlines, so the GIL,
Python's garbage collector or a busy Flask thread cannot delay a step. Per GPIO it
queues at most ``LG_TX_BUF`` (10) waves; ``tx_room`` says how many more fit and
``tx_busy`` whether one is still playing (lgpio's lgGpio.c / lgPthTx.c).

A move is played as a *lead-in* wave (STEP low for the driver's wake-up after ENABLE)
followed by *chunks*: waves of whole steps. Because the transmit thread writes a
wave's first pulse in the same locked pass in which it takes the wave from the queue,
and every chunk starts with a rising edge, "chunk ``c`` is the current entry" means
"step ``chunks[c].first`` has happened": ``tx_room`` read by the feeder gives an exact
lower bound on the steps done, and the moments the feeder first sees each chunk
playing time the whole schedule (its deadlines are absolute). ``WaveRun`` (pure, no
lgpio calls) keeps that book; ``LgpioStepTx`` is the lgpio calls.

Which chunks: lgpio 0.2.2.0 never frees a wave that it takes off the queue to play the
next one (lgPthTx.c shifts ``pulses[]`` without ``free``; the x86-64 wheel's
``lgPthTx`` calls ``free`` only where it deletes a finished or cancelled record, which
frees the waves still in it). So every wave but a record's last leaks its pulses, 24
bytes each, two a step: 10 ms chunks would leak ~150 kB on a 3,200-step turn. The
floor therefore queues the lead-in, the first step alone (its start times the
schedule), and the rest of the move as one wave: ~72 bytes a move. ``chunk_s`` still
cuts a move into timed chunks (the bench compares both).

Limits, from lgpio's source: the transmit thread is an ordinary (SCHED_OTHER) thread;
a wave queued while it sleeps starts at its next wake (up to 20 ms later); and if the
kernel wakes it late, it plays the overdue edges at once to get back on schedule
(absolute deadlines), so a CPU starved for milliseconds still bunches steps.
docs/forest-floor.md says which path runs when and what was measured where.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any, Callable, Sequence

LG_TX_BUF = 10
"""Waves lgpio queues per GPIO (LG_TX_BUF in lgPthTx.h); ``tx_room`` is this minus the
waves queued (the one playing included), or all of it when nothing plays."""

CHUNK_S = 0.01
"""For ``WaveRun(chunk_s=CHUNK_S)``: about how long one queued wave lasts."""

PULSE_BYTES = 24
"""One lgPulse_t (bits, mask, delay: three 64-bit words), what lgpio mallocs per pulse."""

LEAD_IN_S = 0.001
"""STEP low before the first step: A4988/DRV8825/TMC2209 want ~1 ms after ENABLE."""

POLL_S = 0.001
"""How often the feeder looks at the queue (and the stop flag) while a move plays."""

RESYNC_WIDTH = 2
"""Re-sync the count on the home mark only when the edge's step is known this closely."""

Pulse = Any   # lgpio.pulse (group_bits, group_mask, pulse_delay)


def rise_times_us(delays: Sequence[float]) -> list[int]:
    """When each step rises, in whole µs from the first step's rise, plus one last entry:
    when the move's last interval ends. Rounded from the running sum, so the µs rounding
    of thousands of intervals never adds up."""
    out, t = [], 0.0
    for d in delays:
        out.append(round(t * 1e6))
        t += d
    out.append(round(t * 1e6))
    return out


@dataclass(frozen=True)
class Chunk:
    """One queued wave: ``steps`` whole steps from step ``first``."""
    first: int
    steps: int

    @property
    def end(self) -> int:
        return self.first + self.steps


def chunk_steps(rises_us: Sequence[int], chunk_us: int) -> list[Chunk]:
    """Cut a move into chunks of whole steps, each lasting at least ``chunk_us`` (the
    last may be shorter) and holding at least one step."""
    chunks, first, n = [], 0, len(rises_us) - 1
    while first < n:
        end = bisect.bisect_left(rises_us, rises_us[first] + chunk_us, lo=first + 1)
        end = min(max(end, first + 1), n)
        chunks.append(Chunk(first, end - first))
        first = end
    return chunks


def first_step_alone(steps: int) -> list[Chunk]:
    """The leak-free layout: the first step as a wave of its own, the rest as one wave."""
    return [Chunk(0, 1)] + ([Chunk(1, steps - 1)] if steps > 1 else [])


def step_pulses(rises_us: Sequence[int], chunk: Chunk, high_us: int,
                pulse: Callable[[int, int, int], Pulse]) -> list[Pulse]:
    """The wave of one chunk: per step STEP high for ``high_us`` then low for the rest of
    its interval (bit 0 of the group: the STEP line claimed on its own)."""
    out = []
    for i in range(chunk.first, chunk.end):
        interval = rises_us[i + 1] - rises_us[i]
        high = max(1, min(high_us, interval // 2))
        out.append(pulse(1, 1, high))
        out.append(pulse(0, 1, interval - high))
    return out


def lead_in(pulse: Callable[[int, int, int], Pulse], us: int) -> list[Pulse]:
    """A wave with no step: STEP stays low for ``us`` (the driver's wake-up time)."""
    return [pulse(0, 1, us)]


class WaveRun:
    """The book of one move played as queued waves: what to queue next, which steps are
    known to have happened, and when each step rose (the anchor ``lo``..``hi``: the time
    of step ``origin``'s rise, on the clock the feeder and the edge ticks share).

    Entries are queued in order; ``entries`` lists them (-1 for a lead-in, else the chunk
    index). The feeder calls ``begin(t)`` before queueing anything, ``look(now, waiting)``
    with ``waiting`` = waves still queued (``LG_TX_BUF - tx_room``) on every pass, and
    ``next_waves(room, waiting)`` for what to queue. If the queue ever runs dry mid-move
    (the feeder was late) the next chunk gets its own lead-in and the clock re-anchors on
    it: a late step, never an early one.
    """

    def __init__(self, delays: Sequence[float], *, high_us: int = 5, chunk_s: float | None = None,
                 lead_in_s: float = LEAD_IN_S, pulse: Callable[[int, int, int], Pulse] | None = None):
        """``chunk_s``: None queues the first step alone and the rest as one wave (what the
        floor does: lgpio leaks every wave it plays but a record's last); a duration cuts
        the move into chunks about that long instead."""
        if pulse is None:
            import lgpio                          # only on the lgpio path: it opens a pipe on import
            pulse = lgpio.pulse
        self.pulse = pulse
        self.rises = rise_times_us(delays)
        self.steps = len(delays)
        self.high_us = int(high_us)
        self.lead_in_us = max(1, round(lead_in_s * 1e6))
        self.chunks = (first_step_alone(self.steps) if chunk_s is None
                       else chunk_steps(self.rises, max(1, round(chunk_s * 1e6))))
        self.entries: list[int] = []        # what was queued, in order: -1 lead-in, else chunk index
        self.cold: set[int] = set()         # entries queued after all before them had played
        self._confirmed = 0                 # entries whose queueing lgpio answered (``queued``)
        self.next_chunk = 0                 # the first chunk not queued yet
        self.done_low = 0                   # steps known for sure to have happened
        self.current: int | None = None     # entry index last seen playing
        self.origin = 0                     # the step the anchor times
        self.lo: float | None = None        # the origin step rose after lo ...
        self.hi: float | None = None        # ... and no later than hi
        self._last_look = 0.0               # the queue was last read no later than this ...
        self._last_asked = 0.0              # ... and no earlier than this

    # --- what to queue -----------------------------------------------------------------
    @property
    def all_queued(self) -> bool:
        return self.next_chunk >= len(self.chunks)

    def next_waves(self, room: int, waiting: int) -> list[list[Pulse]]:
        """Waves to queue now, given ``room`` free entries and ``waiting`` still queued.
        A lead-in goes first whenever nothing is queued (the start, or a queue run dry)."""
        out: list[list[Pulse]] = []
        if self.all_queued or room <= 0:
            return out
        if waiting == 0:
            if self.entries:                 # ran dry: what follows starts a new clock
                self._run_dry()
            self.entries.append(-1)
            out.append(lead_in(self.pulse, self.lead_in_us))
            room -= 1
        while room > 0 and not self.all_queued:
            chunk = self.chunks[self.next_chunk]
            self.entries.append(self.next_chunk)
            out.append(step_pulses(self.rises, chunk, self.high_us, self.pulse))
            self.next_chunk += 1
            room -= 1
        return out

    def queued(self, room: int) -> None:
        """lgpio's answer to queueing the next wave ``next_waves`` handed out: the room left.
        Room for all but one means the queue held only that wave: everything before it had
        played (the feeder was preempted between two queueings), so it starts at the
        transmit thread's next wake, and seeing it current does not mean its first step has
        happened. Its chunk starts a new clock, as after a queue that ran dry."""
        i, self._confirmed = self._confirmed, self._confirmed + 1
        if i == 0 or room < LG_TX_BUF - 1 or self.entries[i] < 0:
            return
        chunk = self.entries[i]
        self.cold.add(i)
        self.done_low = max(self.done_low, self.chunks[chunk - 1].end if chunk else 0)
        self.origin = self.chunks[chunk].first
        self.lo = self.hi = None
        self.current = None

    def _run_dry(self) -> None:
        self.done_low = self.chunks[self.next_chunk - 1].end if self.next_chunk else 0
        self.origin = self.chunks[self.next_chunk].first
        self.lo = self.hi = None
        self.current = None

    def leaked_bytes(self) -> int:
        """What lgpio keeps allocated after this move played out: every queued wave but
        the last, ``PULSE_BYTES`` a pulse."""
        sizes = [1 if c < 0 else 2 * self.chunks[c].steps for c in self.entries]
        return PULSE_BYTES * sum(sizes[:-1])

    # --- what has happened ---------------------------------------------------------------
    def begin(self, t: float) -> None:
        """The feeder is about to queue the first wave, at ``t``: nothing of the move has
        played before it."""
        self._last_look = self._last_asked = t

    def look(self, now: float, waiting: int, asked: float | None = None) -> None:
        """The feeder saw ``waiting`` waves queued, reading the queue after ``asked`` (the
        clock read just before; ``now`` if not given) and by ``now`` (read just after).
        Updates the steps known done and the anchor: a chunk first seen playing started
        after the previous read (an earlier entry was playing then, or none) and by this
        one. Both clock reads matter: a feeder preempted between a clock read and the
        queue read would otherwise time the chunk too early or too late."""
        before, self._last_asked = self._last_asked, now if asked is None else asked
        self._last_look = now
        if waiting <= 0:
            chunks = [c for c in self.entries if c >= 0]
            if chunks:                       # everything queued so far has played
                self.done_low = max(self.done_low, self.chunks[chunks[-1]].end)
            return
        playing = len(self.entries) - waiting
        chunk = self.entries[playing]
        if chunk < 0 or playing == self.current or playing in self.cold:
            return                           # a lead-in (no step yet), nothing new, or a
                                             # wave that may still wait for the thread's wake
        self.current = playing
        first = self.chunks[chunk].first
        self.done_low = max(self.done_low, first + 1)
        offset = (self.rises[first] - self.rises[self.origin]) / 1e6
        lo, hi = before - offset, now - offset
        if self.lo is None or self.hi is None:
            self.lo, self.hi = lo, hi
            return
        self.lo, self.hi = max(self.lo, lo), min(self.hi, hi)
        if self.lo > self.hi:
            # the transmit thread ran late (its edges came after their deadlines): trust
            # the newest window only
            self.lo, self.hi = lo, hi

    def steps_at(self, t: float) -> tuple[int, int]:
        """How many steps had risen by time ``t``: (at least, at most), from the anchor."""
        if self.lo is None or self.hi is None:
            return self.origin, self.steps   # no chunk seen playing yet: anything up to all
        base = self.rises[self.origin]
        most = bisect.bisect_right(self.rises, base + (t - self.lo) * 1e6, hi=self.steps)
        least = bisect.bisect_right(self.rises, base + (t - self.hi) * 1e6, hi=self.steps)
        return max(least, self.origin), max(most, self.origin)

    def estimate(self, t: float) -> tuple[int, int, int]:
        """(least, best, most) steps risen by ``t``; ``best`` the middle of the window
        (the least while no step has been seen playing: the position never runs ahead),
        and from the last look on never below the steps known done."""
        least, most = self.steps_at(t)
        if t >= self._last_look:
            least = max(least, self.done_low)
        most = max(most, least)
        best = least if self.lo is None else (least + most) // 2
        return least, best, most

    def count_at_cancel(self, before: float, after: float, waiting: int) -> tuple[int, int]:
        """Steps played when the queue was cancelled between ``before`` (``waiting`` read
        then) and ``after``: (at least, at most). The playing chunk bounds it; the clock
        narrows it inside that chunk. ``waiting`` was read between ``before`` and the
        cancel."""
        self.look(after, waiting, asked=before)
        if waiting <= 0:
            return self.done_low, self.done_low
        playing = len(self.entries) - waiting
        chunk = self.entries[playing]
        # the next entry may start between the read and the cancel
        nxt = self.entries[playing + 1] if playing + 1 < len(self.entries) else None
        if chunk < 0:
            pop_lo = self.done_low
            pop_hi = self.chunks[nxt].first + 1 if nxt is not None and nxt >= 0 else self.done_low
        else:
            pop_lo = self.chunks[chunk].first + (0 if playing in self.cold else 1)
            pop_hi = self.chunks[chunk].end + (1 if nxt is not None else 0)
        least, _ = self.steps_at(before)
        _, most = self.steps_at(after)
        low, high = max(pop_lo, least), min(pop_hi, most)
        if low > high:                        # the clock disagrees with the queue: trust the queue
            low, high = pop_lo, pop_hi
        return low, min(high, self.steps)


class LgpioStepTx:
    """The STEP line's lgpio transmit queue: queue a wave, ask its room, cancel it."""

    def __init__(self, handle: int, gpio: int):
        import lgpio
        self._lg = lgpio
        self.handle, self.gpio = handle, gpio

    def queue(self, pulses: list[Pulse]) -> int:
        """Queue one wave; returns the room left (lgpio raises if the queue is full)."""
        return int(self._lg.tx_wave(self.handle, self.gpio, pulses))

    def waiting(self) -> int:
        """Waves still queued, the playing one included."""
        return LG_TX_BUF - int(self._lg.tx_room(self.handle, self.gpio, self._lg.TX_WAVE))

    def cancel(self) -> None:
        """Drop every queued wave at once and leave STEP low. lgpio has no call for that
        on a wave (``tx_pulse(…, 0, 0)`` only ends PWM records, and claiming an output
        again is a no-op): freeing the line marks its waves inactive under the transmit
        thread's lock, then the line is claimed back as a low output for gpiozero."""
        self._lg.gpio_free(self.handle, self.gpio)
        self._lg.gpio_claim_output(self.handle, self.gpio, 0)


def wave_handle(factory: Any) -> int | None:
    """The lgpio chip handle behind a gpiozero pin factory, or None when its pins are not
    lgpio's (mock pins, RPi.GPIO, pigpio): then the floor steps in software. gpiozero
    keeps the handle in ``LGPIOFactory._handle`` (gpiozero/pins/lgpio.py); there is no
    public accessor."""
    names = {cls.__name__ for cls in type(factory).__mro__}
    if "LGPIOFactory" not in names:
        return None
    handle = getattr(factory, "_handle", None)
    return handle if isinstance(handle, int) else None
