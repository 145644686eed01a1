"""TMC2209 StallGuard set-up over UART, against a TMC2209 on the other end of a real pty.

The chip's side follows the datasheet: it echoes every byte (one wire), takes a write
only with the right CRC and its own node address (counting it in IFCNT), and answers a
read request after its send delay. pyserial opens the pty as it would /dev/serial0.
"""
from __future__ import annotations

import os
import threading
import time

import pytest
import serial

from controller.config import section
from controller.devices.floor_gpio import GpioForestFloor
from controller.devices.tmc2209 import (GCONF, IFCNT, IOIN, SGTHRS, TCOOLTHRS, Tmc2209, Tmc2209Error,
                                        crc8, set_up_stallguard)


class ChipOnPty:
    """A TMC2209 at ``address`` on the master side of a pty."""

    def __init__(self, address=0, *, answers=True, corrupt_writes=0):
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        self._slave = slave                     # kept open so the pty stays up
        self.address, self.answers = address, answers
        self.corrupt_writes = corrupt_writes    # noise on the wire: that many writes garbled
        self.registers = {GCONF: 0x00000101, IFCNT: 0, IOIN: 0x21000040}
        self.written: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        buffer = bytearray()
        while not self._stop.is_set():
            try:
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
        self.registers[register] = value
        self.written[register] = value
        self.registers[IFCNT] = (self.registers[IFCNT] + 1) & 0xFF

    def _read(self, frame):
        if crc8(frame[:3]) != frame[3] or frame[1] != self.address or not self.answers:
            return
        register = frame[2]
        reply = bytearray([0x05, 0xFF, register, *self.registers.get(register, 0).to_bytes(4, "big")])
        reply.append(crc8(reply))
        time.sleep(0.001)                        # SENDDELAY
        os.write(self.master, bytes(reply))

    def close(self):
        self._stop.set()
        os.close(self._slave)
        os.close(self.master)


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
    assert chip.registers[IFCNT] == 3


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
        with pytest.raises(Tmc2209Error, match="took 2 of 3 settings"):
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
    with pytest.raises(Tmc2209Error, match="cannot open the TMC2209's UART .*raspi-config"):
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
