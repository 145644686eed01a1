"""The only firmware module that touches the RP2040: PIO step pulses, pins, USB serial.

Step pulses come from a PIO state machine, not from Python: the CPU only keeps
its 8-word TX FIFO topped up with delay counts, so pulse spacing stays steady
while the main loop reads USB or runs the protocol.
"""
import os
import select
import sys
import time

import rp2
from machine import Pin

import motion
import settings as S


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

    def __init__(self):
        self.step = Pin(S.STEP_PIN, Pin.OUT, value=0)
        self.dir = Pin(S.DIR_PIN, Pin.OUT, value=0)
        self.en = Pin(S.ENABLE_PIN, Pin.OUT, value=1 if S.ENABLE_ACTIVE_LOW else 0)
        self.home = Pin(S.HOME_PIN, Pin.IN, Pin.PULL_UP)
        self.stall = None if S.STALL_PIN is None else Pin(S.STALL_PIN, Pin.IN, Pin.PULL_DOWN)
        self.sm = rp2.StateMachine(S.STEP_SM)
        self._start()

    def _start(self):
        # init() also empties the FIFOs, which is how abort() throws steps away.
        self.sm.init(step_program, freq=S.STEP_SM_FREQ, set_base=self.step)
        self.sm.active(1)

    def room(self):
        return self.FIFO_DEPTH - self.sm.tx_fifo()

    def queue(self, interval_us):
        self.sm.put(motion.pio_delay(interval_us, S.STEP_PULSE_US))

    def in_flight(self):
        # A word leaves the FIFO when its pulse starts, so the FIFO holds exactly
        # the steps that have not been made yet.
        return self.sm.tx_fifo()

    def abort(self):
        self.sm.active(0)
        dropped = self.sm.tx_fifo()
        self.step.value(0)
        self._start()
        return dropped

    def set_direction(self, forward):
        self.dir.value(1 if forward else 0)

    def enable(self, on):
        self.en.value((0 if on else 1) if S.ENABLE_ACTIVE_LOW else (1 if on else 0))

    def home_active(self):
        return _active(self.home, S.HOME_ACTIVE_LOW)

    def stall_active(self):
        return self.stall is not None and _active(self.stall, not S.STALL_ACTIVE_HIGH)

    def release(self):
        self.abort()
        self.sm.active(0)
        self.enable(False)


class UsbPort:
    """Raw bytes over the USB serial (stdin/stdout without line editing)."""

    def __init__(self):
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._rx = sys.stdin.buffer
        self._tx = sys.stdout.buffer

    def read_available(self, limit=64):
        data = bytearray()
        while len(data) < limit and self._poll.poll(0):
            data.extend(self._rx.read(1))
        return data

    def write(self, data):
        self._tx.write(data)


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
