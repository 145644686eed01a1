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

Three things the datasheet makes easy to get wrong, handled here:

- **MS1/MS2 are the address and the microsteps at once.** While GCONF.mstep_reg_select
  is 0 the pins that set the UART address also set the microstep resolution (MS2,MS1
  00: 1/8, 01: 1/32, 10: 1/64, 11: 1/16), so address 1 means 1/32 and ``steps_per_ant``
  quadruples. With ``microsteps`` given, mstep_reg_select is set and CHOPCONF.MRES
  written, so the address no longer decides; without, the pins' resolution is reported
  (``Tmc2209Settings.effective_microsteps``).
- **TCOOLTHRS 0xFFFFF arms StallGuard at every speed**, also the 100-200 steps/s of
  homing where its load reading means little. The default here arms it only above 1.5×
  the homing speed (TSTEP at that speed; TSTEP counts 1/fCLK per 1/256 microstep).
- **Its registers vanish with the motor supply.** The chip's logic runs from VM: when
  the 12 V is cycled it resets to defaults, GSTAT.reset is set, and StallGuard is off.
  ``Tmc2209Keeper.ensure()`` reads GSTAT before each move and writes the settings again.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

GCONF, GSTAT, IFCNT, IOIN, TSTEP, TCOOLTHRS = 0x00, 0x01, 0x02, 0x06, 0x12, 0x14
SGTHRS, SG_RESULT, CHOPCONF = 0x40, 0x41, 0x6C
PDN_DISABLE = 1 << 6        # GCONF: PDN_UART is the UART, not the power-down input
EN_SPREADCYCLE = 1 << 2     # GCONF: off, or StallGuard4 never fires
MSTEP_REG_SELECT = 1 << 7   # GCONF: microsteps from CHOPCONF.MRES, not from MS1/MS2
GSTAT_RESET = 1 << 0        # GSTAT: the chip was reset, every register is at its default
GSTAT_CLEAR = 0x07          # write 1s to clear reset, drv_err and uv_cp
MRES_SHIFT = 24
MRES_MASK = 0xF << MRES_SHIFT
SYNC, HOST = 0x05, 0xFF
VERSION = 0x21              # IOIN bits 31..24 on every TMC2209
F_CLK = 12_000_000          # the internal clock TSTEP and TCOOLTHRS count in
MICROSTEPS = (256, 128, 64, 32, 16, 8, 4, 2, 1)      # by CHOPCONF.MRES
PIN_MICROSTEPS = {0: 8, 1: 32, 2: 64, 3: 16}         # by address (MS2 << 1 | MS1)
ARM_ABOVE_HOMING = 1.5      # StallGuard armed only above this many times homing speed
REPLY_TIMEOUT_S = 0.1
"""How long a read waits for the chip's reply: a TMC2209 answers within a millisecond or
two; the tests' chip model on a pty, on a machine under load, gets longer."""

__all__ = ["Tmc2209", "Tmc2209Error", "Tmc2209Keeper", "Tmc2209Settings", "crc8", "open_keeper",
           "tcoolthrs_for", "set_up_stallguard"]


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


def tcoolthrs_for(steps_per_second: float, microsteps: int) -> int:
    """TCOOLTHRS that arms StallGuard above ``steps_per_second`` (step pulses at
    ``microsteps`` per full step): TSTEP at that speed, in 1/fCLK per 1/256 microstep."""
    return min(0xFFFFF, int(F_CLK * microsteps / (256 * steps_per_second)))


@dataclass(frozen=True)
class Tmc2209Settings:
    """What is written to the driver; checked together, so a bad pair is refused before
    anything is sent."""

    address: int
    threshold: int                 # SGTHRS
    tcoolthrs: int                 # TCOOLTHRS; see ``for_floor`` for the default
    microsteps: int = 0            # 0: as MS1/MS2 set them (= the address pins)

    def __post_init__(self) -> None:
        if not 0 <= self.address <= 3:
            raise ValueError(f"forest_floor.tmc2209_address is 0 to 3 (MS1/MS2), got {self.address}")
        if not 0 <= self.threshold <= 255:
            raise ValueError(f"forest_floor.stall_threshold (SGTHRS) is 0 to 255, got {self.threshold}")
        if not 0 <= self.tcoolthrs <= 0xFFFFF:
            raise ValueError(f"forest_floor.stall_tcoolthrs is 0 to {0xFFFFF}, got {self.tcoolthrs}")
        if self.microsteps and self.microsteps not in MICROSTEPS:
            raise ValueError("forest_floor.tmc2209_microsteps is 0 (as MS1/MS2 set them) or one of "
                             f"{', '.join(map(str, sorted(MICROSTEPS)))}, got {self.microsteps}")

    @property
    def effective_microsteps(self) -> int:
        """The resolution the driver steps at: the register's, else the address pins'."""
        return self.microsteps or PIN_MICROSTEPS[self.address]

    @classmethod
    def for_floor(cls, section: Any) -> "Tmc2209Settings":
        """From ``[forest_floor]``: a ``stall_tcoolthrs`` of 0 arms StallGuard only above
        1.5× homing speed; one that arms it at homing speed is refused (its load reading
        means little that slow, so homing would stop on a false stall)."""
        microsteps = section["tmc2209_microsteps"]
        probe = cls(section["tmc2209_address"], section["stall_threshold"], 0, microsteps)
        steps = probe.effective_microsteps
        homing = min(section["homing_speed"], section["top_speed"])
        arm_at = ARM_ABOVE_HOMING * homing
        at_homing = tcoolthrs_for(homing, steps)
        tcoolthrs = section["stall_tcoolthrs"] or tcoolthrs_for(arm_at, steps)
        if tcoolthrs >= at_homing:
            raise ValueError(
                f"forest_floor.stall_tcoolthrs = {tcoolthrs} arms StallGuard at the homing speed "
                f"({homing:g} steps/s, TSTEP {at_homing} at {steps} microsteps), where it reports "
                f"false stalls: use 0 (armed above {arm_at:g} steps/s) or a value below {at_homing}")
        if section["top_speed"] < arm_at and not section["stall_tcoolthrs"]:
            raise ValueError(
                f"forest_floor.top_speed = {section['top_speed']:g} is below {arm_at:g} steps/s "
                f"({ARM_ABOVE_HOMING:g}× homing_speed), the speed StallGuard is armed above: it "
                "would never report a stall; raise top_speed or lower homing_speed")
        return cls(section["tmc2209_address"], section["stall_threshold"], tcoolthrs, microsteps)

    def describe(self) -> str:
        how = ("written to CHOPCONF.MRES" if self.microsteps else
               f"set by MS1/MS2, which also set UART address {self.address}")
        return (f"TMC2209 at UART address {self.address}: {self.effective_microsteps} microsteps "
                f"({how}); StallGuard SGTHRS {self.threshold}, TCOOLTHRS {self.tcoolthrs}")


class Tmc2209:
    """One TMC2209 on a pyserial port (``serial.Serial`` or ``serial_for_url``)."""

    def __init__(self, port: Any, address: int = 0, *, reply_timeout: float | None = None):
        if not 0 <= address <= 3:
            raise ValueError(f"a TMC2209's UART address is 0 to 3 (MS1/MS2), got {address}")
        self.port = port
        self.address = address
        self.reply_timeout = REPLY_TIMEOUT_S if reply_timeout is None else reply_timeout

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
            "check that the 12 V motor supply is on (the chip's logic runs from it), the wiring "
            "(Pi TX through 1 kΩ to PDN_UART, RX straight to PDN_UART), that MS1/MS2 set this "
            "address, and that the driver has VIO (3.3 V)")

    def version(self) -> int:
        return self.read(IOIN) >> 24

    def was_reset(self) -> bool:
        """GSTAT.reset: the chip started afresh (its motor supply came back) since the
        settings were written."""
        return bool(self.read(GSTAT) & GSTAT_RESET)

    def apply(self, settings: Tmc2209Settings) -> None:
        """UART on, StealthChop, the microsteps, TCOOLTHRS and SGTHRS written, GSTAT
        cleared, and every write confirmed by IFCNT."""
        version = self.version()
        if version != VERSION:
            raise Tmc2209Error(f"the driver at UART address {self.address} says it is version "
                               f"0x{version:02x}, not a TMC2209 (0x21)")
        before = self.read(IFCNT)
        gconf = (self.read(GCONF) | PDN_DISABLE) & ~EN_SPREADCYCLE
        writes = [(GCONF, gconf | MSTEP_REG_SELECT if settings.microsteps else gconf & ~MSTEP_REG_SELECT)]
        if settings.microsteps:
            mres = MICROSTEPS.index(settings.microsteps)
            chopconf = (self.read(CHOPCONF) & ~MRES_MASK) | (mres << MRES_SHIFT)
            writes.append((CHOPCONF, chopconf))
        writes += [(TCOOLTHRS, settings.tcoolthrs), (SGTHRS, settings.threshold),
                   (GSTAT, GSTAT_CLEAR)]
        for register, value in writes:
            self.write(register, value)
        taken = (self.read(IFCNT) - before) & 0xFF
        if taken != len(writes):
            raise Tmc2209Error(f"the TMC2209 took {taken} of {len(writes)} settings (IFCNT): check "
                               "the UART wiring for noise, then restart potionpi")

    def set_up_stallguard(self, threshold: int, tcoolthrs: int) -> None:
        """UART on, StealthChop, TCOOLTHRS and SGTHRS written and confirmed by IFCNT
        (the microsteps left to MS1/MS2)."""
        self.apply(Tmc2209Settings(self.address, threshold, tcoolthrs))


class Tmc2209Keeper:
    """Keeps a TMC2209's settings in it: ``ensure()`` (before each move) reads GSTAT and
    writes everything again after a reset. Owns its open port; ``close()`` frees it."""

    def __init__(self, port: Any, settings: Tmc2209Settings, *, reply_timeout: float | None = None):
        self.port = port
        self.settings = settings
        self.chip = Tmc2209(port, settings.address, reply_timeout=reply_timeout)
        self.reapplied = 0                # resets seen (the motor supply cycled) and put right
        self._lock = threading.Lock()

    def start(self) -> "Tmc2209Keeper":
        with self._lock:
            self.chip.apply(self.settings)
        return self

    def ensure(self) -> bool:
        """True when the settings had to be written again (the driver was reset)."""
        with self._lock:
            if not self.chip.was_reset():
                return False
            self.chip.apply(self.settings)
            self.reapplied += 1
            return True

    def close(self) -> None:
        try:
            self.port.close()
        except Exception:
            pass


def open_port(port_name: str, baudrate: int = 115200) -> Any:
    """The TMC2209's UART (a device or a pyserial URL), or a Tmc2209Error naming the fix."""
    import serial

    from .uart import uart_problem
    problem = uart_problem(port_name)
    if problem:
        raise Tmc2209Error(problem)
    try:
        return serial.serial_for_url(port_name, baudrate=baudrate, timeout=0.02)
    except (serial.SerialException, ValueError, OSError) as exc:
        from .uart import open_failure
        raise Tmc2209Error(open_failure(port_name, exc)) from exc


def open_keeper(port_name: str, settings: Tmc2209Settings) -> Tmc2209Keeper:
    """Open the UART, write the settings, keep the port for ``ensure()``."""
    keeper = Tmc2209Keeper(open_port(port_name), settings)
    try:
        return keeper.start()
    except Exception:
        keeper.close()
        raise


def set_up_stallguard(port_name: str, *, address: int, threshold: int, tcoolthrs: int,
                      baudrate: int = 115200) -> None:
    """Open ``port_name`` (a device or a pyserial URL), set StallGuard up, close it again."""
    port = open_port(port_name, baudrate)
    try:
        Tmc2209(port, address).set_up_stallguard(threshold, tcoolthrs)
    finally:
        port.close()
