"""Frames that pass the CRC by chance never end the host's link (issue 25).

A CRC-16 lets one garbage frame in 65,536 through, and fuzzing once hit a frame of type
0x81 (HELLO_REPLY) during hello whose strict decoding killed the link's thread: the floor
was then gone until a restart. Here a fake Pico on a real pseudo-terminal answers every
HELLO with a burst of well-framed garbage (every reply type, random payloads, short ones,
the host's own session with a firmware version that is not text) before the true reply,
and sends more garbage once connected: the link thread lives on, connects, and the
serial floor only ever sees statuses the firmware can send.
"""
from __future__ import annotations

import os
import random
import select
import threading
import tty

from controller.devices.floor_serial import SerialForestFloor
from controller.devices.pico_link import CONNECTED, LinkTimings, PicoLink
from controller.firmware import floorproto as P

from .conftest import FAST, wait_for

TYPES = (P.HELLO_REPLY, P.STATUS, P.ERROR, P.EVENT, 0x00, 0x7F, 0xFF)


def garbage(rng: random.Random, session: int) -> bytes:
    """One well-framed frame the firmware would never send."""
    kind = rng.randrange(4)
    if kind == 0:        # the host's own session, a firmware version that is not text
        payload = P.pack_hello_reply(rng.randrange(256), session, rng.randrange(65536), "")
        payload += bytes(rng.randrange(256) for _ in range(rng.randrange(0, 30)))
        return P.encode_frame(0, P.HELLO_REPLY, payload[:P.MAX_PAYLOAD])
    if kind == 1:        # too short for what its type says
        return P.encode_frame(rng.randrange(256), rng.choice(TYPES),
                              bytes(rng.randrange(256) for _ in range(rng.randrange(0, 5))))
    payload = bytes(rng.randrange(256) for _ in range(rng.randrange(0, P.MAX_PAYLOAD + 1)))
    return P.encode_frame(rng.randrange(256), rng.choice(TYPES), payload)


class FuzzPico:
    """Answers HELLO with garbage first (``bursts`` hellos, ``per_burst`` frames each), then
    truly; answers every command with a true STATUS after more garbage."""

    def __init__(self, bursts: int, per_burst: int, seed: int = 25):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.rng = random.Random(seed)
        self.bursts, self.per_burst = bursts, per_burst
        self.sent = 0
        self.hellos = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        decoder = P.Decoder()
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            for seq, mtype, payload in decoder.feed(data):
                out = b""
                session = P.unpack_hello(payload) if mtype == P.HELLO else 0
                if mtype != P.HELLO or self.hellos < self.bursts:
                    out += b"".join(garbage(self.rng, session) for _ in range(self.per_burst))
                    self.sent += self.per_burst
                if mtype == P.HELLO:
                    self.hellos += 1
                    if self.hellos > self.bursts:
                        out += P.encode_frame(0, P.HELLO_REPLY, P.pack_hello_reply(
                            P.PROTOCOL_VERSION, session, 0xBEEF, "3.0.0-fuzz"))
                else:
                    out += P.encode_frame(seq, P.STATUS, P.pack_status(P.IDLE, 0, True, 0, 0))
                try:
                    os.write(self.master, out)
                except OSError:
                    return

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        for fd in (self.master, self.slave):
            os.close(fd)


def test_garbage_frames_during_hello_and_after_never_end_the_link_thread():
    pico = FuzzPico(bursts=12, per_burst=150)
    link = PicoLink(pico.port, timings=LinkTimings.from_dict(FAST)).start()
    try:
        assert wait_for(lambda: link.state == CONNECTED, 30), (link.state, link.message)
        assert link.hello["firmware"] == "3.0.0-fuzz" and pico.hellos > 12
        for _ in range(20):                     # each reply comes after 150 more garbage frames
            assert link.request(P.PING, timeout=5).status["state"] == P.IDLE
        assert link._thread is not None and link._thread.is_alive()
        assert pico.sent >= 12 * 150 + 20 * 150
    finally:
        link.close()
        pico.close()


def test_the_serial_floor_over_a_wire_of_garbage_only_sees_real_statuses():
    pico = FuzzPico(bursts=3, per_burst=100, seed=7)
    seen: list[dict] = []
    floor = SerialForestFloor(ants_around=16, steps_per_ant=10, top_speed=4000, acceleration=40000,
                              homing_speed=1500, invert_direction=False, serial_port=pico.port,
                              timings=LinkTimings.from_dict(FAST))
    floor.on_change(seen.append)
    try:
        assert wait_for(lambda: floor.link.state == CONNECTED, 30), floor.link.message
        assert wait_for(lambda: pico.sent >= 3 * 100 + 30 * 100, 30)     # heartbeats, each with garbage
        assert floor.link._thread is not None and floor.link._thread.is_alive()
        assert floor.status()["link"]["state"] == CONNECTED
        assert all(s["state"] in ("idle", "moving", "homing", "fault") for s in seen)
    finally:
        floor.close()
        pico.close()
