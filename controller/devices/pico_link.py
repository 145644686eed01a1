"""Host end of the forest-floor serial link: find the Pico, keep talking, come back after an unplug.

One I/O thread owns the port. It says hello (and refuses firmware of another
protocol version), keeps up to ``window`` commands in flight, retransmits the
unanswered ones with a timeout that doubles each time, pings as a heartbeat,
declares the link lost after ``lost_after_s`` of silence, and then reopens the
port with growing back-off until the Pico answers again. Callers submit commands
from any thread and wait on the returned ``Pending``.
"""
from __future__ import annotations

import errno
import logging
import os
import random
import select
import statistics
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, fields
from typing import Any, Callable, Mapping

import serial
from serial.tools import list_ports

from ..config import SCHEMA
from ..firmware import floorproto as P

log = logging.getLogger(__name__)

PICO_VID = 0x2E8A          # Raspberry Pi (RP2040 boards running MicroPython)

CONNECTING, CONNECTED, RECONNECTING, WRONG_FIRMWARE, CLOSED = (
    "connecting", "connected", "reconnecting", "wrong_firmware", "closed")


@dataclass
class LinkTimings:
    """Every time limit of the link, in seconds. Tests shrink them; defaults suit a real table."""

    # ping when nothing else was sent for this long; no valid frame for this long: the
    # link is lost ([forest_floor] link_heartbeat_s and link_lost_after_s)
    heartbeat_s: float = SCHEMA["forest_floor"]["link_heartbeat_s"].default
    lost_after_s: float = SCHEMA["forest_floor"]["link_lost_after_s"].default
    rto_s: float = 0.05              # retransmit timeout before any round trip is measured
    rto_min_s: float = 0.01          # then srtt + 4 x rttvar (as TCP), at least this; doubles per retry
    rto_max_s: float = 0.8
    hello_timeout_s: float = 0.6     # how long to wait for a hello reply on a fresh port
    backoff_s: float = 0.05          # first wait between reconnect attempts; doubles
    backoff_max_s: float = 0.5
    wrong_firmware_retry_s: float = 3.0
    window: int = P.WINDOW

    @classmethod
    def from_section(cls, section: Mapping[str, Any]) -> "LinkTimings":
        """The two limits ``[forest_floor]`` sets (``link_heartbeat_s``, ``link_lost_after_s``);
        a hello may take as long as the link may stay silent, so a slow link (a Pico behind
        a hub, an emulated one) that the maker gave more time gets it for hello too."""
        lost = section["link_lost_after_s"]
        return cls(heartbeat_s=section["link_heartbeat_s"], lost_after_s=lost,
                   hello_timeout_s=max(cls.hello_timeout_s, lost))

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> "LinkTimings":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (values or {}).items() if k in known})


class LinkDown(Exception):
    """The Pico went away (unplugged, reset, silent) before it answered."""


@dataclass
class Reply:
    mtype: int
    payload: bytes

    @property
    def ok(self) -> bool:
        return self.mtype in (P.STATUS, P.MARKS_REPLY)

    @property
    def error(self) -> str | None:
        return None if self.ok else P.ERROR_NAMES.get(self.payload[0], f"error {self.payload[0]}")

    @property
    def status(self) -> dict[str, Any]:
        return P.unpack_status(self.payload if self.mtype == P.STATUS else self.payload[1:])


class Pending:
    """One command on its way; ``wait()`` gives its Reply or raises LinkDown/TimeoutError."""

    def __init__(self, mtype: int, payload: bytes, callback: Callable[["Pending"], None] | None):
        self.mtype = mtype
        self.payload = payload
        self.callback = callback
        self.seq = 0
        self.frame = b""
        self.first_sent = self.last_sent = 0.0
        self.sends = 0
        self.reply: Reply | None = None
        self.error: Exception | None = None
        self._done = threading.Event()

    def _finish(self, reply: Reply | None = None, error: Exception | None = None) -> None:
        self.reply, self.error = reply, error
        self._done.set()
        if self.callback:
            self.callback(self)

    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> Reply:
        if not self._done.wait(timeout):
            raise TimeoutError(f"no reply from the Pico to {P.COMMAND_NAMES.get(self.mtype)} "
                               f"within {timeout} s")
        if self.error:
            raise self.error
        assert self.reply is not None         # finished without an error: answered
        return self.reply


def find_pico_ports() -> list[str]:
    """Serial ports of RP2040 boards (USB vendor 0x2E8A), best guess first."""
    ports = [p for p in list_ports.comports() if p.vid == PICO_VID]
    return [p.device for p in sorted(ports, key=lambda p: p.device)]


def wrong_firmware_message(hello: dict[str, Any]) -> str:
    return (f"the Pico runs forest-floor firmware {hello['firmware']} speaking protocol "
            f"{hello['protocol']}, but this potionpi speaks protocol {P.PROTOCOL_VERSION}: "
            f"flash the firmware that comes with this potionpi (protocol {P.PROTOCOL_VERSION}) "
            f"with `potionpi firmware flash`")


class PicoLink:
    def __init__(self, port: str | None = None, *, timings: LinkTimings | None = None,
                 on_status: Callable[[dict[str, Any]], None] | None = None,
                 on_state: Callable[[str, str], None] | None = None):
        self.configured_port = port or None
        self.timings = timings or LinkTimings()
        self.on_status = on_status
        self.on_state = on_state
        self.state = CONNECTING
        self.message = "looking for the Pico"
        self.port: str | None = None
        self.hello: dict[str, Any] | None = None
        self.rtts: deque[float] = deque(maxlen=2000)
        self.retransmits = 0
        self.connects = 0
        self.attempts = 0               # connect attempts, failed or not
        self._ser: serial.Serial | None = None
        self._lock = threading.Lock()
        self._submitted: deque[Pending] = deque()
        self._outstanding: OrderedDict[int, Pending] = OrderedDict()
        self._backlog: deque[Pending] = deque()
        self._wake_r, self._wake_w = os.pipe()
        self._closing = False
        self._thread: threading.Thread | None = None

    # --- public -------------------------------------------------------------
    def start(self) -> "PicoLink":
        self._thread = threading.Thread(target=self._run, name="pico-link", daemon=True)
        self._thread.start()
        return self

    def submit(self, mtype: int, payload: bytes = b"",
               callback: Callable[[Pending], None] | None = None) -> Pending:
        pending = Pending(mtype, payload, callback)
        with self._lock:
            if self.state != CONNECTED:
                pending._finish(error=LinkDown(self.message))
                return pending
            self._submitted.append(pending)
        self._wake()
        return pending

    def request(self, mtype: int, payload: bytes = b"", timeout: float = 5.0) -> Reply:
        return self.submit(mtype, payload).wait(timeout)

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.state == CONNECTED:
                return True
            time.sleep(0.005)
        return self.state == CONNECTED

    def rtt_summary(self) -> dict[str, float] | None:
        """Median and 99th percentile round-trip time of answered-first-time commands, in ms."""
        rtts = sorted(self.rtts)
        if not rtts:
            return None
        p99 = rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))]
        return {"median_ms": statistics.median(rtts) * 1000, "p99_ms": p99 * 1000, "count": len(rtts)}

    def close(self) -> None:
        self._closing = True
        self._wake()
        if self._thread and self._thread is not threading.current_thread():
            self._thread.join(timeout=3)
        self._drop_port("closed")
        self._set_state(CLOSED, "closed")
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    # --- the I/O thread -------------------------------------------------------
    def _run(self) -> None:
        backoff = self.timings.backoff_s
        while not self._closing:
            if self._ser is None:
                wait = self._connect()
                if wait is not None:
                    self._sleep(wait if wait else backoff)
                    backoff = min(backoff * 2, self.timings.backoff_max_s)
                    continue
                backoff = self.timings.backoff_s
            try:
                self._serve()
            except (serial.SerialException, OSError) as exc:
                self._lose(f"the Pico went away ({exc.__class__.__name__}: {exc})")
            except Exception as exc:
                # A bug, or a frame nothing foresaw: this thread is the link, so it never
                # ends on it; the port is reopened and the Pico greeted afresh.
                log.exception("the Pico link hit an unexpected error; reconnecting")
                self._lose(f"the link hit an unexpected error ({exc.__class__.__name__}); "
                           "reconnecting")

    def _connect(self) -> float | None:
        """Open, say hello, check the version. None on success, else seconds to wait (0: back-off)."""
        self.attempts += 1
        port = self.configured_port
        if port is None:
            found = find_pico_ports()
            if not found:
                self._note(f"no Pico found (no USB serial device with vendor id {PICO_VID:04x})")
                return 0
            port = found[0]
        try:
            ser = serial.Serial(port, 115200, timeout=0, write_timeout=1, exclusive=True)
        except (serial.SerialException, OSError) as exc:
            if "lock" in str(exc).lower():
                self._note(f"{port} is in use by another program (Thonny? mpremote? a second potionpi?)")
            elif getattr(exc, "errno", None) == errno.ENOENT:
                self._note(f"{port} is not there: is the Pico plugged in?")
            else:
                self._note(f"cannot open {port}: {exc}")
            return 0
        try:
            ser.reset_input_buffer()
            hello = self._handshake(ser)
        except (serial.SerialException, OSError) as exc:
            ser.close()
            self._note(f"{port} went away during hello: {exc}")
            return 0
        if hello is None:
            ser.close()
            self._note(f"no answer from {port}: is the potionpi firmware on it? "
                       "(`potionpi firmware flash`)")
            return 0
        if hello["protocol"] != P.PROTOCOL_VERSION:
            ser.close()
            self.hello = hello
            self._set_state(WRONG_FIRMWARE, wrong_firmware_message(hello))
            return self.timings.wrong_firmware_retry_s
        with self._lock:
            self._ser = ser
            self.port = port
            self.hello = hello
            self._next_seq = 1
            self._rto = self._rto_base = self.timings.rto_s
            self._srtt: float | None = None     # smoothed round trip, once measured
            self._rttvar = 0.0
            self._last_rx = self._last_tx = time.monotonic()
            self._decoder = self._hello_decoder
            self._status_seq = 0
            self.connects += 1
        self._set_state(CONNECTED, f"connected to firmware {hello['firmware']} on {port}")
        return None

    def _handshake(self, ser: serial.Serial) -> dict[str, Any] | None:
        session = random.randrange(1, 65536)
        decoder = P.Decoder()
        frame = P.encode_frame(0, P.HELLO, P.pack_hello(session))
        deadline = time.monotonic() + self.timings.hello_timeout_s
        rto = self.timings.rto_s
        next_send = 0.0
        while time.monotonic() < deadline and not self._closing:
            now = time.monotonic()
            if now >= next_send:
                ser.write(frame)
                next_send = now + rto
                rto = min(rto * 2, self.timings.rto_max_s)
            ready, _, _ = select.select([ser.fileno()], [], [], max(0.0, min(next_send, deadline) - now))
            if ready:
                for seq, mtype, payload in decoder.feed(ser.read(ser.in_waiting or 1)):
                    # whatever passed the CRC: only a reply echoing our session counts
                    hello = P.unpack_hello_reply(payload) if mtype == P.HELLO_REPLY else None
                    if hello is not None and hello["session"] == session:
                        self._hello_decoder = decoder
                        return hello
        return None

    def _serve(self) -> None:
        t = self.timings
        ser = self._ser
        if ser is None:                     # closed between the hello and here
            return
        while not self._closing:
            now = time.monotonic()
            self._fill_window(ser, now)
            if self._outstanding:
                oldest = next(iter(self._outstanding.values()))
                if now - oldest.last_sent >= self._rto:
                    # Go-back-N: the Pico drops anything after a gap, so resend them all, in order.
                    for pending in self._outstanding.values():
                        ser.write(pending.frame)
                        pending.last_sent = now
                        pending.sends += 1
                        self.retransmits += 1
                    self._rto = min(self._rto * 2, t.rto_max_s)
            elif now - self._last_tx >= t.heartbeat_s and not self._backlog:
                self._backlog.append(Pending(P.PING, b"", None))
                continue
            if now - self._last_rx > t.lost_after_s:
                self._lose(f"no heartbeat from the Pico for {t.lost_after_s:g} s")
                return
            deadline = min(self._last_rx + t.lost_after_s,
                           (next(iter(self._outstanding.values())).last_sent + self._rto)
                           if self._outstanding else self._last_tx + t.heartbeat_s)
            ready, _, _ = select.select([ser.fileno(), self._wake_r], [], [],
                                        max(0.0, deadline - time.monotonic()))
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            if ser.fileno() in ready:
                data = ser.read(ser.in_waiting or 1)
                for frame in self._decoder.feed(data):
                    if self._on_frame(*frame) is False:
                        return

    def _fill_window(self, ser: serial.Serial, now: float) -> None:
        with self._lock:
            self._backlog.extend(self._submitted)
            self._submitted.clear()
        # The window is anchored at the oldest unanswered command, not counted: the
        # Pico only remembers its last REPLAY_DEPTH replies, so we never run further
        # ahead of a lost reply than it can still answer again.
        while self._backlog and (not self._outstanding or P.seq_behind(
                self._next_seq, next(iter(self._outstanding))) < min(self.timings.window, P.REPLAY_DEPTH)):
            pending = self._backlog.popleft()
            pending.seq = self._next_seq
            self._next_seq = P.seq_next(self._next_seq)
            pending.frame = P.encode_frame(pending.seq, pending.mtype, pending.payload)
            ser.write(pending.frame)
            pending.first_sent = pending.last_sent = now
            pending.sends = 1
            self._outstanding[pending.seq] = pending
            self._last_tx = now

    def _on_frame(self, seq: int, mtype: int, payload: bytes) -> bool:
        now = time.monotonic()
        self._last_rx = now
        if mtype == P.EVENT:
            if P.status_ok(payload):
                self._status(P.unpack_status(payload))
            return True
        if mtype == P.MARKS_REPLY:
            if not payload or len(payload) != 1 + 8 * payload[0]:
                return True                 # nothing the firmware sends: a CRC passed by chance
        elif mtype not in (P.STATUS, P.ERROR) or not P.status_ok(
                payload if mtype == P.STATUS else payload[1:]):
            return True
        reply = Reply(mtype, payload)
        if mtype == P.ERROR and payload[0] == P.ERR_NO_SESSION:
            self._lose("the Pico restarted")
            return False
        pending = self._outstanding.pop(seq, None)
        if pending is None:
            return True                     # a late duplicate of something already answered
        if pending.sends == 1:              # Karn: only unambiguous samples
            self._sample_rtt(now - pending.first_sent)
        self._rto = self._rto_base
        # A remembered reply resent after a loss may be older than statuses we have
        # already applied; only newer ones describe the floor now.
        if mtype == P.MARKS_REPLY:
            pass                            # no status in it
        elif self._status_seq == 0 or 0 < P.seq_behind(seq, self._status_seq) < 128:
            self._status_seq = seq
            self._status(reply.status)
        pending._finish(reply=reply)
        return True

    # --- helpers --------------------------------------------------------------
    def _sample_rtt(self, rtt: float) -> None:
        """Smoothed round trip and its variation (RFC 6298) set the retransmit timeout."""
        self.rtts.append(rtt)
        srtt = self._srtt
        if srtt is None:
            srtt, self._rttvar = rtt, rtt / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(srtt - rtt)
            srtt = 0.875 * srtt + 0.125 * rtt
        self._srtt = srtt
        self._rto_base = min(max(srtt + 4 * self._rttvar, self.timings.rto_min_s),
                             self.timings.rto_max_s)

    def _lose(self, reason: str) -> None:
        self._drop_port(reason)
        if not self._closing:
            self._set_state(RECONNECTING, reason)

    def _drop_port(self, reason: str) -> None:
        with self._lock:
            ser, self._ser = self._ser, None
            waiting = list(self._outstanding.values()) + list(self._backlog) + list(self._submitted)
            self._outstanding.clear()
            self._backlog.clear()
            self._submitted.clear()
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass
        for pending in waiting:
            pending._finish(error=LinkDown(reason))

    def _note(self, message: str) -> None:
        """A failed connect attempt: keep the state (connecting/reconnecting), update the reason."""
        state = self.state if self.state in (CONNECTING, RECONNECTING) else RECONNECTING
        self._set_state(state, message)

    def _set_state(self, state: str, message: str) -> None:
        changed = (state, message) != (self.state, self.message)
        with self._lock:
            self.state, self.message = state, message
        if changed and self.on_state:
            self.on_state(state, message)

    def _status(self, status: dict[str, Any]) -> None:
        if self.on_status:
            self.on_status(status)

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def _sleep(self, seconds: float) -> None:
        ready, _, _ = select.select([self._wake_r], [], [], seconds)
        if ready:
            os.read(self._wake_r, 4096)
