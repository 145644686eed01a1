"""The only firmware module that touches the RP2040: PIO step pulses, pins, USB serial,
the watchdog.

Step pulses come from a PIO state machine, not from Python: the CPU only keeps
its 8-word TX FIFO topped up with delay counts, so pulse spacing stays steady
while the main loop reads USB or runs the protocol. The home sensor raises a hard
interrupt on both edges: it notes each edge with the pulse it came at, for the jam
watch, and while homing stops the state machine on the active edge's very step.

Nothing the main loop calls here allocates: buffers are made once, polls use
``ipoll`` (no result list) and USB bytes go through one-byte buffers.
"""
import os
import select
import sys
import time
from array import array

import machine
import rp2
from machine import Pin

import motion
import settings as S
from outbox import Outbox


# The type checker's view of the PIO assembler's words (pull, mov, set, jmp, ...),
# which @rp2.asm_pio supplies only while it assembles. MicroPython has no typing
# module; mypy takes any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from rp2.asm_pio import *  # noqa: F403


# One step per FIFO word: pull the delay count, STEP high for 16 cycles, low, wait.
# At 1 MHz a cycle is 1 us; motion.pio_delay() turns an interval into the count.
@rp2.asm_pio(set_init=rp2.PIO.OUT_LOW, fifo_join=rp2.PIO.JOIN_TX)
def step_program():
    pull(block)
    mov(x, osr)
    set(pins, 1)[15]
    set(pins, 0)
    label("delay")
    jmp(x_dec, "delay")


def _active(pin, active_low):
    return pin.value() == (0 if active_low else 1)


class PioStepper:
    """The stepper port of floor.Floor on real hardware."""

    FIFO_DEPTH = 8
    EDGES = 32               # home-sensor edges kept between two loop passes (a ring)
    PULL_NOBLOCK = 0x8080    # the PIO instruction `pull(noblock)`, encoded

    def __init__(self):
        self.step = Pin(S.STEP_PIN, Pin.OUT, value=0)
        self.dir = Pin(S.DIR_PIN, Pin.OUT, value=0)
        self.en = Pin(S.ENABLE_PIN, Pin.OUT, value=1 if S.ENABLE_ACTIVE_LOW else 0)
        self.home = Pin(S.HOME_PIN, Pin.IN, Pin.PULL_UP)
        self.stall = None if S.STALL_PIN is None else Pin(S.STALL_PIN, Pin.IN, Pin.PULL_DOWN)
        self.sm = rp2.StateMachine(S.STEP_SM)
        # FSTAT and SMx_ADDR of the state machine's PIO block (PIO0 for SM 0-3, PIO1 for 4-7)
        base = 0x50200000 if S.STEP_SM < 4 else 0x50300000
        self._fstat = base + 0x004
        self._txfull = 1 << (16 + S.STEP_SM % 4)
        self._addr = base + 0x0D4 + 0x18 * (S.STEP_SM % 4)
        self._pull_at = 0        # the program's first instruction, pull(block): idle there
        self._active_level = 0 if S.HOME_ACTIVE_LOW else 1
        # edges, each as pulses * 2 + active, in a ring the interrupt writes and the loop
        # reads: head moves only in the interrupt, tail only in the loop, so neither
        # ever loses the other's update
        self._edges = array("i", [0] * self.EDGES)
        self._head = 0
        self._tail = 0
        self.edges_lost = 0      # the ring was full (a storm of glitches)
        self._queued = 0         # pulses queued since count_from_zero()
        self._armed = False      # stop the pulses on the mark's edge (homing)
        self._stopped = False    # ... and they were
        self._start()
        # made once: a bound method for the handler (the interrupt must not allocate)
        self.home.irq(self._on_edge, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)

    def _on_edge(self, pin):
        # Hard interrupt, on the step that moved the mark: no allocation allowed here.
        active = 1 if pin.value() == self._active_level else 0
        if active and self._armed:
            self.sm.active(0)
            self._armed = False
            self._stopped = True
        head = self._head
        nxt = head + 1
        if nxt == self.EDGES:
            nxt = 0
        if nxt == self._tail:
            self.edges_lost += 1
            return
        self._edges[head] = (self._queued - self.sm.tx_fifo()) * 2 + active
        self._head = nxt

    def _start(self):
        # init() also empties the FIFOs, which is how abort() throws steps away.
        self.sm.init(step_program, freq=S.STEP_SM_FREQ, set_base=self.step)
        self._pull_at = machine.mem32[self._addr]
        self.sm.active(1)

    def room(self):
        # TXFULL from the PIO's FSTAT register: sm.put() on a full FIFO would block the
        # loop. (rp2040js keeps a 4-word FIFO whatever fifo_join says; the count alone lied.)
        if machine.mem32[self._fstat] & self._txfull:
            return 0
        return self.FIFO_DEPTH - self.sm.tx_fifo()

    def queue(self, interval_us):
        # the word and its count together: an edge in between would be placed a step off
        state = machine.disable_irq()
        self.sm.put(motion.pio_delay(interval_us, S.STEP_PULSE_US))
        self._queued += 1
        machine.enable_irq(state)

    def in_flight(self):
        # A word leaves the FIFO when its pulse starts, so the FIFO holds exactly
        # the steps that have not been made yet.
        return self.sm.tx_fifo()

    def busy(self):
        # Empty FIFO and the machine back at its pull: the last step's whole interval
        # has run. (Right after the last word leaves the FIFO its pulse has not risen
        # yet; turning DIR or EN then would lose that step.)
        return self.sm.tx_fifo() > 0 or machine.mem32[self._addr] != self._pull_at

    def count_from_zero(self):
        state = machine.disable_irq()
        self._queued = self.sm.tx_fifo()
        machine.enable_irq(state)

    def next_edge(self):
        tail = self._tail
        if tail == self._head:
            return -1
        edge = self._edges[tail]
        tail += 1
        self._tail = 0 if tail == self.EDGES else tail
        return edge

    def abort(self):
        sm = self.sm
        state = machine.disable_irq()
        sm.active(0)
        dropped = sm.tx_fifo()
        # Throw the queued words away by pulling them into the stopped machine: init()
        # empties the FIFOs on a real RP2040 (by toggling FJOIN), rp2040js does not.
        for _ in range(dropped):
            sm.exec(self.PULL_NOBLOCK)
        self._queued -= dropped
        machine.enable_irq(state)
        self.step.value(0)
        self._start()
        self._stopped = False
        return dropped

    def set_direction(self, forward):
        self.dir.value(1 if forward else 0)

    def enable(self, on):
        self.en.value((0 if on else 1) if S.ENABLE_ACTIVE_LOW else (1 if on else 0))

    def home_active(self):
        return self.home.value() == self._active_level

    def stall_active(self):
        return self.stall is not None and _active(self.stall, not S.STALL_ACTIVE_HIGH)

    def stop_at_mark(self, on):
        self._stopped = False
        self._armed = on

    def stopped_at_mark(self):
        return self._stopped

    def release(self):
        self.home.irq(None)
        self._armed = False
        self.abort()
        self.sm.active(0)
        self.enable(False)


def _ready(poller):
    for _ in poller.ipoll(0):
        return True
    return False


class UsbPort:
    """Raw bytes over the USB serial (stdin/stdout without line editing), never blocking.

    MicroPython's USB CDC write waits up to 500 ms for room while the host holds the
    port open without reading; that would starve the step FIFO and trip the watchdog.
    So replies wait in an ``outbox.Outbox`` and leave one byte at a time, only while
    the CDC's poll says it can take one.
    """

    def __init__(self, size=S.TX_BUFFER):
        self._rpoll = select.poll()
        self._rpoll.register(sys.stdin, select.POLLIN)
        self._wpoll = select.poll()
        self._wpoll.register(sys.stdout, select.POLLOUT)
        self._rx = sys.stdin.buffer
        self._tx = sys.stdout.buffer
        self._byte_in = bytearray(1)
        self._byte_out = bytearray(1)
        self.outbox = Outbox(size)

    def read_byte(self):
        """The next byte from the host, or -1 when none is waiting."""
        if not _ready(self._rpoll):
            return -1
        self._rx.readinto(self._byte_in)
        return self._byte_in[0]

    def send(self, frame):
        return self.outbox.send(frame)

    def flush(self, limit=64):
        """Hand queued bytes to the USB CDC while it can take them, at most ``limit``."""
        outbox = self.outbox
        one = self._byte_out
        while limit and outbox.waiting() and _ready(self._wpoll):
            one[0] = outbox.pop()
            self._tx.write(one)
            limit -= 1


class Watchdog:
    """machine.WDT, fed by the main loop only; ``off()`` before leaving for the REPL."""

    # RP2040 WATCHDOG CTRL through its atomic-clear alias (+0x3000): bit 30 ENABLE
    CTRL_CLEAR = 0x40058000 + 0x3000
    ENABLE = 1 << 30

    def __init__(self, timeout_ms):
        self._wdt = machine.WDT(timeout=timeout_ms)

    def feed(self):
        self._wdt.feed()

    def off(self):
        # MicroPython's WDT cannot be stopped on the RP2040; the register can.
        machine.mem32[self.CTRL_CLEAR] = self.ENABLE


class Led:
    """Steady when the host is talking to us, slow blink while waiting for it."""

    def __init__(self):
        self.pin = Pin(S.STATUS_LED, Pin.OUT)
        self.since = time.ticks_ms()

    def show(self, host_here):
        # ticks wrap around, so they are only ever compared through ticks_diff
        blink = time.ticks_diff(time.ticks_ms(), self.since) // 500 % 2
        self.pin.value(1 if host_here else blink)


def boot_id():
    return int.from_bytes(os.urandom(2), "big")


def safe_mode():
    return Pin(S.SAFE_MODE_PIN, Pin.IN, Pin.PULL_UP).value() == 0
