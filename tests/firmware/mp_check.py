"""Run under MicroPython *and* CPython: shared vectors, then a scripted firmware session.

Usage: mp_check.py VECTORS_JSON, with firmware/ on the module path (MICROPYPATH /
PYTHONPATH). Prints one transcript line per reply frame and "ok";
tests/firmware/test_micropython.py requires both interpreters to print the same.
"""
import sys
import json
import binascii

import floorproto as P
from floor import Floor
from link import Link


def unhex(s):
    return binascii.unhexlify(s)


def hexs(b):
    return binascii.hexlify(b).decode()


def check_vectors(path):
    with open(path) as fh:
        v = json.load(fh)
    for c in v["crc16_ccitt_false"]:
        assert P.crc16(unhex(c["data"])) == c["crc"], c
    for c in v["cobs"]:
        assert P.cobs_encode(unhex(c["data"])) == unhex(c["encoded"]), c
        assert P.cobs_decode(unhex(c["encoded"])) == unhex(c["data"]), c
    for f in v["frames"]:
        payload = unhex(f["payload"])
        frame = unhex(f["frame"])
        assert P.encode_frame(f["seq"], f["type"], payload) == frame, f["name"]
        got = P.Decoder().feed(frame)
        assert len(got) == 1 and got[0][0] == f["seq"] and got[0][1] == f["type"], f["name"]
        assert got[0][2] == payload, f["name"]
    print("vectors", len(v["crc16_ccitt_false"]), len(v["cobs"]), len(v["frames"]))


class Stepper:
    def __init__(self):
        self.fifo = []
        self.steps = 37
        self.forward = True
        self.intervals = []
        self.edges = []
        self.counted = 0
        self.armed = self.stopped = False

    def room(self):
        return 8 - len(self.fifo)

    def queue(self, iv):
        self.fifo.append(iv)
        self.intervals.append(iv)

    def in_flight(self):
        return len(self.fifo)

    def abort(self):
        n = len(self.fifo)
        self.fifo = []
        self.stopped = False
        return n

    def busy(self):
        return len(self.fifo) > 0

    def count_from_zero(self):
        self.counted = 0

    def next_edge(self):
        return self.edges.pop(0) if self.edges else -1

    def stop_at_mark(self, on):
        self.armed = on
        self.stopped = False

    def stopped_at_mark(self):
        return self.stopped

    def set_direction(self, fwd):
        self.forward = fwd

    def enable(self, on):
        pass

    def home_active(self):
        return (self.steps % 160) < 3

    def stall_active(self):
        return False

    def drain(self):
        while self.fifo and not self.stopped:
            self.fifo.pop(0)
            before = self.home_active()
            self.steps += 1 if self.forward else -1
            self.counted += 1
            after = self.home_active()
            if after != before:
                self.edges.append(self.counted * 2 + (1 if after else 0))
                if after and self.armed:
                    self.armed = False
                    self.stopped = True


def session():
    clock = [0]
    stepper = Stepper()
    floor = Floor(stepper, lambda: clock[0], steps_per_rev=160, top_speed=2000,
                  acceleration=20000, home_speed=500, max_move=320)
    link = Link(floor, 0xBEEF, "1.0.0")

    def send(seq, mtype, payload=b""):
        for reply in link.feed(P.encode_frame(seq, mtype, payload)):
            print("reply", hexs(reply))

    def settle():
        for _ in range(2000):
            floor.service()
            stepper.drain()
            clock[0] += 1
            event = link.event()
            if event:
                print("event", hexs(event))
            if floor.state in (P.IDLE, P.FAULTED) and not stepper.fifo:
                return

    send(1, P.PING)                                           # no session yet
    send(0, P.HELLO, P.pack_hello(0x1234))
    send(1, P.CONFIG, P.pack_config(160, 2000, 20000, 500, 320, 0))
    send(2, P.HOME)
    settle()
    send(3, P.MOVE_TO, P.pack_move_to(45))
    send(3, P.MOVE_TO, P.pack_move_to(45))                    # retransmission: same reply
    settle()
    send(5, P.PING)                                           # ahead of a lost 4: dropped
    send(4, P.MOVE_TO, P.pack_move_to(-30))
    settle()
    send(5, P.STOP)
    print("steps", stepper.steps, "position", floor.position())
    print("intervals", ",".join(str(i) for i in stepper.intervals[-75:]))  # the ramp 45 -> -30


check_vectors(sys.argv[1])
session()
print("ok")
