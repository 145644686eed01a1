"""Run under MicroPython: the loop's work allocates nothing, per step or per pass.

Every loop pass of a homing and of moves past the home mark (jam watch on) runs with
the heap locked (``micropython.heap_lock()``): any allocation — a float, a tuple, a
list, a bound method object — raises MemoryError and fails the run. Only what happens
once per message or per move (a reply frame, a new ramp) may allocate, so those
calls stay outside the lock. Prints "noalloc ok" with the pass count.
"""
from array import array

import micropython

import floorproto as P
from floor import Floor
from link import Link
from outbox import Outbox


class Stepper:
    """A stepper port holding only ints: queued steps are a count, the disc a number."""

    def __init__(self):
        self.queued = 0
        self.steps = 37
        self.forward = True
        self.counted = 0
        self.ring = array("i", [0] * 16)       # the edges, as the Pico's interrupt keeps them
        self.head = self.tail = 0
        self.armed = False
        self.stopped = False

    def room(self):
        return 8 - self.queued

    def queue(self, interval_us):
        self.queued += 1

    def in_flight(self):
        return self.queued

    def busy(self):
        return self.queued > 0

    def count_from_zero(self):
        self.counted = 0

    def next_edge(self):
        if self.tail == self.head:
            return -1
        edge = self.ring[self.tail]
        self.tail = (self.tail + 1) % 16
        return edge

    def abort(self):
        n = self.queued
        self.queued = 0
        self.stopped = False
        return n

    def set_direction(self, fwd):
        self.forward = fwd

    def enable(self, on):
        pass

    def home_active(self):
        return self.steps % 160 < 3

    def stop_at_mark(self, on):
        self.armed = on
        self.stopped = False

    def stopped_at_mark(self):
        return self.stopped

    def stall_active(self):
        return False

    def drain(self):
        while self.queued and not self.stopped:
            self.queued -= 1
            before = self.home_active()
            self.steps += 1 if self.forward else -1
            self.counted += 1
            after = self.home_active()
            if after != before:
                self.ring[self.head] = self.counted * 2 + (1 if after else 0)
                self.head = (self.head + 1) % 16
                if after and self.armed:
                    self.armed = False
                    self.stopped = True


clock = [0]
stepper = Stepper()
floor = Floor(stepper, lambda: clock[0], steps_per_rev=160, top_speed=2000,
              acceleration=20000, home_speed=500, max_move=320)
link = Link(floor, 0xBEEF, "1.0.0")
outbox = Outbox(64)
link.feed(P.encode_frame(0, P.HELLO, P.pack_hello(1)))
passes = 0


def settle():
    global passes
    for _ in range(5000):
        micropython.heap_lock()
        floor.service()
        stepper.drain()
        clock[0] += 1
        link.feed_byte(0x41)                   # a frame arriving byte by byte
        while outbox.waiting():
            outbox.pop()
        busy = floor.state == P.MOVING or floor.state == P.HOMING
        micropython.heap_unlock()
        passes += 1
        event = link.event()                   # a changed state: one frame, may allocate
        if event is not None:
            outbox.send(event)
        if not busy:
            return
    raise AssertionError("the floor never settled")


floor.home()
settle()
assert floor.homed and floor.position() == 0, floor.status_payload()
for target in (150, -100, 200, 0):             # each crosses the mark's window
    assert floor.move_to(target) == 0          # a new leg: once per move, outside the lock
    settle()
    assert floor.position() == target and floor.fault == P.NO_FAULT, (target, floor.position(), floor.fault, floor.state)
# A slip below the tolerance: the next clockwise pass re-syncs on the mark and the leg
# that takes the floor the rest of the way starts inside the loop, heap locked.
stepper.steps += 4                             # knocked on 4 steps behind the count
assert floor.move_to(170) == 0
settle()
assert floor.resyncs == 1 and floor.position() == 170 and (stepper.steps - 160) == 170, (
    floor.resyncs, floor.position(), stepper.steps)
quiet = None                                   # (a new global name would grow the module's dict)
micropython.heap_lock()
quiet = link.event()                           # nothing changed: no frame, no allocation
micropython.heap_unlock()
assert quiet is None
print("noalloc ok", passes)
