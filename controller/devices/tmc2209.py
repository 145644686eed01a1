"""TMC2209 set-up over its single-wire UART, so that its DIAG output reports stalls.

A TMC2209 in standalone step/dir mode never reports a stall on DIAG: StallGuard needs
its threshold (SGTHRS) and the speed range it works in (TCOOLTHRS) written over the
UART on the PDN_UART pin. The datagrams are the datasheet's (section 4):

- write: sync 0x05, node address 0-3 (set by MS1/MS2), register | 0x80, four data
  bytes MSB first, CRC8;
- read request: 0x05, node address, register, CRC8; reply: 0x05, 0xFF, register,
  four data bytes, CRC8.

The CRC is the datasheet's CRC8 (polynomial x⁸+x²+x+1, bits taken LSB first). On a
single wire the host hears its own bytes back; replies are found by their 0x05 0xFF
header, so the echo (and no echo) both work. SGTHRS and TCOOLTHRS are write-only: the
chip counts every write it accepted in IFCNT, and that count confirms the set-up.
StallGuard4 works in StealthChop only, so GCONF keeps en_spreadcycle off.
"""
from __future__ import annotations

import time
from typing import Any

GCONF, IFCNT, IOIN, TCOOLTHRS, SGTHRS, SG_RESULT = 0x00, 0x02, 0x06, 0x14, 0x40, 0x41
PDN_DISABLE = 1 << 6        # GCONF: PDN_UART is the UART, not the power-down input
EN_SPREADCYCLE = 1 << 2     # GCONF: off, or StallGuard4 never fires
SYNC, HOST = 0x05, 0xFF
VERSION = 0x21              # IOIN bits 31..24 on every TMC2209

__all__ = ["Tmc2209", "Tmc2209Error", "crc8", "set_up_stallguard"]


class Tmc2209Error(RuntimeError):
    """The driver did not answer, or did not take the settings; says what to check."""


def crc8(data: bytes | bytearray) -> int:
    """The TMC22xx datagram CRC of ``data`` (every byte but the CRC itself)."""
    crc = 0
    for byte in data:
        for _ in range(8):
            if (crc >> 7) ^ (byte & 0x01):
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
            byte >>= 1
    return crc


class Tmc2209:
    """One TMC2209 on a pyserial port (``serial.Serial`` or ``serial_for_url``)."""

    def __init__(self, port: Any, address: int = 0, *, reply_timeout: float = 0.1):
        if not 0 <= address <= 3:
            raise ValueError(f"a TMC2209's UART address is 0 to 3 (MS1/MS2), got {address}")
        self.port = port
        self.address = address
        self.reply_timeout = reply_timeout

    def write(self, register: int, value: int) -> None:
        frame = bytearray([SYNC, self.address, register | 0x80, *value.to_bytes(4, "big")])
        frame.append(crc8(frame))
        self.port.write(bytes(frame))
        self.port.flush()

    def read(self, register: int) -> int:
        self.port.reset_input_buffer()
        frame = bytearray([SYNC, self.address, register])
        frame.append(crc8(frame))
        self.port.write(bytes(frame))
        self.port.flush()
        got = bytearray()
        deadline = time.monotonic() + self.reply_timeout
        while time.monotonic() < deadline:
            got += self.port.read(max(1, self.port.in_waiting))
            start = got.find(bytes([SYNC, HOST, register]))
            if start >= 0 and len(got) >= start + 8:
                reply = got[start:start + 8]
                if crc8(reply[:7]) != reply[7]:
                    raise Tmc2209Error(f"the TMC2209's reply to register 0x{register:02x} has a "
                                       "bad CRC: keep the UART wire short and away from the motor")
                return int.from_bytes(reply[3:7], "big")
        raise Tmc2209Error(
            f"the TMC2209 at UART address {self.address} did not answer on {self.port.name}: "
            "check the wiring (Pi TX through 1 kΩ to PDN_UART, RX straight to PDN_UART), that "
            "MS1/MS2 set this address, and that the driver has VIO (3.3 V)")

    def version(self) -> int:
        return self.read(IOIN) >> 24

    def set_up_stallguard(self, threshold: int, tcoolthrs: int) -> None:
        """UART on, StealthChop, TCOOLTHRS and SGTHRS written and confirmed by IFCNT."""
        if not 0 <= threshold <= 255:
            raise ValueError(f"SGTHRS is 0 to 255, got {threshold}")
        if not 0 <= tcoolthrs <= 0xFFFFF:
            raise ValueError(f"TCOOLTHRS is 0 to {0xFFFFF}, got {tcoolthrs}")
        version = self.version()
        if version != VERSION:
            raise Tmc2209Error(f"the driver at UART address {self.address} says it is version "
                               f"0x{version:02x}, not a TMC2209 (0x21)")
        before = self.read(IFCNT)
        gconf = self.read(GCONF)
        self.write(GCONF, (gconf | PDN_DISABLE) & ~EN_SPREADCYCLE)
        self.write(TCOOLTHRS, tcoolthrs)
        self.write(SGTHRS, threshold)
        taken = (self.read(IFCNT) - before) & 0xFF
        if taken != 3:
            raise Tmc2209Error(f"the TMC2209 took {taken} of 3 settings (IFCNT): check the UART "
                               "wiring for noise, then restart potionpi")


def set_up_stallguard(port_name: str, *, address: int, threshold: int, tcoolthrs: int,
                      baudrate: int = 115200) -> None:
    """Open ``port_name`` (a device or a pyserial URL), set StallGuard up, close it again."""
    import serial
    try:
        port = serial.serial_for_url(port_name, baudrate=baudrate, timeout=0.02)
    except (serial.SerialException, ValueError) as exc:
        raise Tmc2209Error(f"cannot open the TMC2209's UART {port_name} ({exc}): enable the "
                           "Pi's serial port (raspi-config → Interface → Serial Port: login shell "
                           "no, hardware yes)") from exc
    try:
        Tmc2209(port, address).set_up_stallguard(threshold, tcoolthrs)
    finally:
        port.close()
