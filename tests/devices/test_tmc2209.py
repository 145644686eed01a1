"""TMC2209 StallGuard set-up over UART, against a TMC2209 on the other end of a real pty.

The chip's side follows the datasheet: it echoes every byte (one wire), takes a write
only with the right CRC and its own node address (counting it in IFCNT), and answers a
read request after its send delay. pyserial opens the pty as it would /dev/serial0.
"""
from __future__ import annotations

import os
import select
import threading
import time

import pytest
import serial

from controller.config import section
from controller.devices.floor_gpio import GpioForestFloor
from controller.devices.forest_floor import FAULT, IDLE
from controller.devices.tmc2209 import (CHOPCONF, GCONF, GSTAT, IFCNT, IOIN, MSTEP_REG_SELECT, SGTHRS,
                                        TCOOLTHRS, Tmc2209, Tmc2209Error, Tmc2209Settings, crc8,
                                        set_up_stallguard, tcoolthrs_for)

DEFAULTS = {GCONF: 0x00000101, GSTAT: 0x1, IFCNT: 0, IOIN: 0x21000040, CHOPCONF: 0x10000053}
"""A TMC2209's registers as it powers up (datasheet reset values; GSTAT.reset set)."""


class ChipOnPty:
    """A TMC2209 at ``address`` on the master side of a pty."""

    def __init__(self, address=0, *, answers=True, corrupt_writes=0):
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        self._slave = slave                     # kept open so the pty stays up
        self.address, self.answers = address, answers
        self.corrupt_writes = corrupt_writes    # noise on the wire: that many writes garbled
        self.registers = dict(DEFAULTS)
        self.written: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        buffer = bytearray()
        while not self._stop.is_set():
            try:
                # waits a little at a time, so close() can end the thread before the fds go
                if not select.select([self.master], [], [], 0.05)[0]:
                    continue
                chunk = os.read(self.master, 64)
            except OSError:
                return
            os.write(self.master, chunk)         # the single wire: the host hears itself
            buffer += chunk
            while buffer:
                if buffer[0] != 0x05:
                    buffer.pop(0)
                    continue
                if len(buffer) >= 3 and buffer[2] & 0x80:
                    if len(buffer) < 8:
                        break
                    frame, buffer = bytes(buffer[:8]), buffer[8:]
                    self._write(frame)
                elif len(buffer) >= 4:
                    frame, buffer = bytes(buffer[:4]), buffer[4:]
                    self._read(frame)
                else:
                    break

    def _write(self, frame):
        if self.corrupt_writes:
            self.corrupt_writes -= 1
            return                               # garbled on the way: the chip ignores it
        if crc8(frame[:7]) != frame[7] or frame[1] != self.address:
            return
        register = frame[2] & 0x7F
        value = int.from_bytes(frame[3:7], "big")
        if register == GSTAT:
            self.registers[GSTAT] &= ~value      # write 1 to clear
        else:
            self.registers[register] = value
        self.written[register] = value
        self.registers[IFCNT] = (self.registers[IFCNT] + 1) & 0xFF

    def power_cycle(self):
        """The 12 V goes and comes back: the chip's logic (fed from VM) starts afresh."""
        self.registers = dict(DEFAULTS)
        self.written = {}

    def _read(self, frame):
        if crc8(frame[:3]) != frame[3] or frame[1] != self.address or not self.answers:
            return
        register = frame[2]
        reply = bytearray([0x05, 0xFF, register, *self.registers.get(register, 0).to_bytes(4, "big")])
        reply.append(crc8(reply))
        time.sleep(0.001)                        # SENDDELAY
        os.write(self.master, bytes(reply))

    def close(self):
        # The thread ends before its fds close: the next test's pty gets the same fd
        # numbers, and a thread still reading would take that chip's bytes from it.
        self._stop.set()
        self._thread.join()
        os.close(self._slave)
        os.close(self.master)


@pytest.fixture(autouse=True)
def patient_reads(monkeypatch):
    """The chip here is a Python thread on a pty: on a machine under load its reply can take
    far longer than a real TMC2209's millisecond, so reads wait for it longer (a silent
    chip is still found silent, only later)."""
    from controller.devices import tmc2209
    monkeypatch.setattr(tmc2209, "REPLY_TIMEOUT_S", 3.0)


@pytest.fixture
def chip():
    c = ChipOnPty(address=2)
    yield c
    c.close()


def test_crc_matches_the_datasheet_algorithm_on_known_datagrams():
    assert crc8(bytes([0x05, 0x00, 0x00])) == 0x48                              # read GCONF
    assert crc8(bytes([0x05, 0xFF, 0x00, 0x00, 0x00, 0x01, 0x01])) == 0xBB      # its reply


def test_stallguard_is_written_and_confirmed_by_the_chips_write_counter(chip):
    set_up_stallguard(chip.path, address=2, threshold=85, tcoolthrs=0xFFFFF)
    assert chip.written[SGTHRS] == 85
    assert chip.written[TCOOLTHRS] == 0xFFFFF
    gconf = chip.written[GCONF]
    assert gconf & (1 << 6)                     # pdn_disable: PDN_UART is the UART now
    assert not gconf & (1 << 2)                 # StealthChop, where StallGuard4 works
    assert gconf & 0x101 == 0x101               # the rest of GCONF as the chip had it
    assert not gconf & MSTEP_REG_SELECT         # microsteps left to MS1/MS2 here
    assert chip.registers[GSTAT] == 0           # the reset flag cleared: the next one is news
    assert chip.registers[IFCNT] == 4


def test_a_driver_that_does_not_answer_names_what_to_check():
    silent = ChipOnPty(address=0, answers=False)
    try:
        with pytest.raises(Tmc2209Error, match="did not answer.*1 kΩ to PDN_UART.*MS1/MS2"):
            set_up_stallguard(silent.path, address=0, threshold=70, tcoolthrs=0xFFFFF)
    finally:
        silent.close()


def test_the_wrong_address_is_no_answer(chip):
    with pytest.raises(Tmc2209Error, match="at UART address 1 did not answer"):
        set_up_stallguard(chip.path, address=1, threshold=70, tcoolthrs=0xFFFFF)
    assert chip.written == {}


def test_a_write_lost_to_noise_is_caught_by_the_write_counter():
    noisy = ChipOnPty(address=0, corrupt_writes=1)
    try:
        with pytest.raises(Tmc2209Error, match="took 3 of 4 settings"):
            set_up_stallguard(noisy.path, address=0, threshold=70, tcoolthrs=0xFFFFF)
    finally:
        noisy.close()


def test_an_unwired_loopback_hears_only_itself():
    port = serial.serial_for_url("loop://", timeout=0.02)
    try:
        with pytest.raises(Tmc2209Error, match="did not answer"):
            Tmc2209(port, 0).version()
    finally:
        port.close()


def test_a_port_that_cannot_be_opened_says_how_to_enable_it(tmp_path):
    with pytest.raises(Tmc2209Error, match="UART .* does not exist: enable .*raspi-config"):
        set_up_stallguard(str(tmp_path / "no-such-tty"), address=0, threshold=70, tcoolthrs=1)


def test_the_gpio_floor_sets_stallguard_up_from_its_config(chip):
    from gpiozero.pins.mock import MockFactory
    factory = MockFactory()
    floor = GpioForestFloor.from_config(
        section("forest_floor", backend="gpio", tmc2209_uart=chip.path, tmc2209_address=2,
                stall_pin=26, stall_threshold=120),
        pin_factory=factory)
    try:
        assert chip.written[SGTHRS] == 120 and floor.stall_in is not None
    finally:
        floor.close()
        factory.close()


def test_a_uart_without_a_stall_pin_is_refused():
    with pytest.raises(ValueError, match="stall_pin is -1: wire the TMC2209's DIAG"):
        GpioForestFloor.from_config(section("forest_floor", tmc2209_uart="/dev/serial0"),
                                    pin_factory=None)


# --- microsteps, TCOOLTHRS and a driver reset (issue 25) ---------------------------------------
def floor_section(path, **keys):
    return section("forest_floor", backend="gpio", tmc2209_uart=path, stall_pin=26, **keys)


def test_the_address_pins_set_the_microsteps_unless_the_config_says_so(chip):
    pins = Tmc2209Settings.for_floor(floor_section(chip.path, tmc2209_address=1))
    assert pins.effective_microsteps == 32 and "also set UART address 1" in pins.describe()
    assert Tmc2209Settings.for_floor(floor_section(chip.path, tmc2209_address=2)).effective_microsteps == 64
    said = Tmc2209Settings.for_floor(floor_section(chip.path, tmc2209_address=2, tmc2209_microsteps=16))
    Tmc2209(serial.Serial(chip.path, 115200, timeout=0.02), 2).apply(said)
    assert chip.written[GCONF] & MSTEP_REG_SELECT          # MS1/MS2 are only the address now
    assert (chip.written[CHOPCONF] >> 24) & 0xF == 4       # MRES 4: 16 microsteps
    assert chip.written[CHOPCONF] & 0x00FFFFFF == 0x53     # the rest of CHOPCONF as it was
    assert said.effective_microsteps == 16


def test_a_microstep_count_the_chip_has_not_is_refused():
    with pytest.raises(ValueError, match="tmc2209_microsteps is 0 .* or one of 1, 2, 4"):
        Tmc2209Settings(0, 70, 0, microsteps=12)


def test_the_default_tcoolthrs_disarms_stallguard_at_homing_speed(chip):
    keys = dict(homing_speed=200.0, tmc2209_address=0)      # 8 microsteps from the pins
    settings = Tmc2209Settings.for_floor(floor_section(chip.path, **keys))
    at_homing = tcoolthrs_for(200, 8)                       # TSTEP while homing
    assert settings.tcoolthrs == tcoolthrs_for(300, 8) < at_homing
    assert at_homing == 12_000_000 * 8 // (256 * 200)       # 1875 clocks per 1/256 step
    with pytest.raises(ValueError, match="arms StallGuard at the homing speed .*use 0"):
        Tmc2209Settings.for_floor(floor_section(chip.path, stall_tcoolthrs=0xFFFFF, **keys))
    with pytest.raises(ValueError, match="top_speed = 250 is below 300 steps/s"):
        Tmc2209Settings.for_floor(floor_section(chip.path, top_speed=250.0, **keys))


def test_after_the_motor_supply_cycles_the_next_move_writes_the_settings_again(chip):
    from gpiozero.pins.mock import MockFactory
    factory = MockFactory()
    floor = GpioForestFloor.from_config(
        floor_section(chip.path, tmc2209_address=2, stall_threshold=120, home_pin=-1,
                      top_speed=20000.0, start_speed=5000.0, acceleration=500000.0),
        pin_factory=factory)
    try:
        floor.rotate(1, "clockwise")
        assert floor.wait_idle(10) and floor.state == IDLE
        assert floor.driver.reapplied == 0
        chip.power_cycle()                                  # StallGuard is off in the chip now
        assert SGTHRS not in chip.written
        floor.rotate(1, "clockwise")
        assert floor.wait_idle(10) and floor.state == IDLE
        assert chip.written[SGTHRS] == 120 and chip.registers[GSTAT] == 0
        assert floor.driver.reapplied == 1
    finally:
        floor.close()
        factory.close()


def test_a_driver_that_stops_answering_faults_the_move_in_words(chip):
    from gpiozero.pins.mock import MockFactory
    factory = MockFactory()
    floor = GpioForestFloor.from_config(floor_section(chip.path, tmc2209_address=2, home_pin=-1),
                                        pin_factory=factory)
    try:
        chip.answers = False                                # the 12 V supply is off
        floor.rotate(1, "clockwise")
        assert floor.wait_idle(10) and floor.state == FAULT
        assert "12 V motor supply is on" in floor.fault and "turn the floor by hand" in floor.fault
    finally:
        floor.close()
        factory.close()
