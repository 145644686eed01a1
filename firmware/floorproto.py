"""The forest-floor wire protocol, defined once and run on both ends of the USB cable.

This one file is imported by the potionpi host (CPython) and copied to the Pi Pico
(MicroPython) by ``potionpi firmware flash``, so it keeps to the subset both run:
``struct``, bytes/bytearray, dicts and plain functions; no typing, no f-strings.
docs/protocol.md describes the bytes; tests/firmware/vectors.json pins them down.

A frame on the wire is ``00 | COBS(seq, type, payload..., crc_hi, crc_lo) | 00``.
COBS removes every 00 from the body, so a 00 always means "frame boundary" and a
receiver that saw garbage is back in step at the next 00. The check is
CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) over
seq, type and payload, sent high byte first.
"""
import struct

PROTOCOL_VERSION = 3    # 3: CONFIG carries the jam tolerance and the mark's confirm steps
                        # 2: fault 4 jam; the firmware arms a watchdog and never homes unasked

MAX_PAYLOAD = 40                       # bytes; every message fits with room to spare
MAX_BODY = MAX_PAYLOAD + 4             # seq + type + payload + crc
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1

# --- message types: host -> Pico (commands) ---------------------------------
HELLO = 0x01      # session u16                       -> HELLO_REPLY (never sequenced)
PING = 0x02       # (nothing)                         -> STATUS; the heartbeat
CONFIG = 0x03     # steps_per_rev, top_speed, acceleration, home_speed, max_move u32; flags u8;
                  # jam tolerance, mark confirm u16 (steps; 0: the firmware's defaults)
MOVE_TO = 0x04    # target i32, absolute steps from home -> STATUS or ERROR
HOME = 0x05       # (nothing)                         -> STATUS
STOP = 0x06       # (nothing)                         -> STATUS
MARKS = 0x07      # (nothing)                         -> MARKS_REPLY: the last move's sightings
REPL = 0x0E       # leave the firmware for the REPL so mpremote can flash

# --- message types: Pico -> host ---------------------------------------------
HELLO_REPLY = 0x81  # protocol u8, session u16, boot_id u16, firmware version (ASCII)
STATUS = 0x82       # state u8, fault u8, homed u8, position i32, target i32
ERROR = 0x83        # code u8, then a STATUS payload
EVENT = 0x84        # STATUS payload, seq 0, sent unasked when state/fault/homed change
MARKS_REPLY = 0x85  # count u8, then (rise i32, fall i32) per run the home sensor read active

COMMAND_NAMES = {HELLO: "hello", PING: "ping", CONFIG: "config", MOVE_TO: "move_to",
                 HOME: "home", STOP: "stop", MARKS: "marks", REPL: "repl"}
MAX_RUNS = 4               # sightings a move keeps for MARKS (calibration turns one turn a move)
NO_EDGE = 0x7FFFFFFF       # a run whose sensor was still active when the move ended

# --- floor states, faults and refusals ---------------------------------------
IDLE, MOVING, HOMING, FAULTED = 0, 1, 2, 3
STATE_NAMES = ("idle", "moving", "homing", "fault")

NO_FAULT, HOME_NOT_FOUND, STALL, MOVE_TIMEOUT, JAM = 0, 1, 2, 3, 4
FAULT_NAMES = (None, "home_not_found", "stall", "move_timeout", "jam")

ERR_UNKNOWN, ERR_BAD_PAYLOAD, ERR_NOT_HOMED, ERR_TOO_LONG, ERR_BUSY, ERR_NO_SESSION = 1, 2, 3, 4, 5, 6
ERROR_NAMES = {ERR_UNKNOWN: "unknown_command", ERR_BAD_PAYLOAD: "bad_payload",
               ERR_NOT_HOMED: "not_homed", ERR_TOO_LONG: "move_too_long",
               ERR_BUSY: "busy", ERR_NO_SESSION: "no_session"}

FLAG_INVERT = 0x01
FLAG_NO_JAM_WATCH = 0x02   # the host's steps per turn is a guess (calibration): no jam verdicts

# Sequence numbers run 1..255 and wrap to 1; 0 marks HELLO and unasked EVENTs.
# The Pico remembers its last REPLAY_DEPTH replies; the host keeps at most WINDOW
# commands unanswered, so a retransmission always finds its cached reply.
WINDOW = 4
REPLAY_DEPTH = 16


def seq_next(seq):
    return seq + 1 if 0 < seq < 255 else 1


def seq_behind(expected, seq):
    """How many commands ``seq`` lies behind ``expected`` (0 = it is the expected one)."""
    return ((expected - 1) - (seq - 1)) % 255


# --- CRC-16/CCITT-FALSE -------------------------------------------------------
def _crc_table():
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE; crc16(b"123456789") == 0x29B1."""
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


# --- COBS ---------------------------------------------------------------------
def cobs_encode(data):
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """The original bytes, or None when ``data`` is not valid COBS."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        for j in range(i + 1, end):
            if data[j] == 0:
                return None
            out.append(data[j])
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


# --- frames -------------------------------------------------------------------
def encode_frame(seq, mtype, payload=b""):
    """Bytes to write for one message, delimiters included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload too long")
    body = bytearray()
    body.append(seq & 0xFF)
    body.append(mtype & 0xFF)
    body.extend(payload)
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return b"\x00" + cobs_encode(body) + b"\x00"


def decode_body(chunk):
    """(seq, type, payload) from the bytes between two delimiters, or None if they fail the check."""
    body = cobs_decode(chunk)
    if body is None or len(body) < 4 or len(body) > MAX_BODY:
        return None
    if crc16(body[:-2]) != (body[-2] << 8) | body[-1]:
        return None
    return body[0], body[1], bytes(body[2:-2])


class Decoder:
    """Feed it bytes as they arrive; it hands back whole frames that pass the check.

    Anything else — noise, a torn frame, a flipped bit — is counted in ``rejected``
    and forgotten at the next 00.
    """

    def __init__(self):
        self._buf = bytearray(MAX_ENCODED)   # made once: a byte in never allocates
        self._n = 0
        self._overflow = False
        self.accepted = 0
        self.rejected = 0

    def feed(self, data):
        frames = []
        for b in data:
            frame = self.feed_byte(b)
            if frame is not None:
                frames.append(frame)
        return frames

    def feed_byte(self, b):
        """One byte in; the whole frame it completes, else None (the firmware's loop uses
        this: no list per call, and only a completed frame allocates)."""
        if b == 0:
            frame = None
            n = self._n
            if self._overflow:
                self.rejected += 1
            elif n:
                frame = decode_body(bytes(self._buf[:n]))
                if frame is None:
                    self.rejected += 1
                else:
                    self.accepted += 1
            self._n = 0
            self._overflow = False
            return frame
        if not self._overflow:
            n = self._n
            if n >= MAX_ENCODED:
                self._overflow = True
            else:
                self._buf[n] = b
                self._n = n + 1
        return None


# --- payloads -----------------------------------------------------------------
def pack_hello(session):
    return struct.pack(">H", session & 0xFFFF)


def unpack_hello(payload):
    return struct.unpack(">H", payload[:2])[0]


# HELLO and HELLO_REPLY keep this layout in every protocol version, so two ends
# that speak different versions can still tell each other which one they speak.
def pack_hello_reply(protocol, session, boot_id, firmware):
    return struct.pack(">BHH", protocol, session & 0xFFFF, boot_id & 0xFFFF) + firmware.encode()[:24]


def unpack_hello_reply(payload):
    """The reply's fields, or None when ``payload`` is too short to be one. Never raises
    (the host decodes whatever passed the CRC while it says hello): a firmware version
    that is not ASCII is shown escaped."""
    if len(payload) < 5:
        return None
    protocol, session, boot_id = struct.unpack(">BHH", payload[:5])
    firmware = "".join(chr(b) if 32 <= b < 127 else "\\x%02x" % b for b in payload[5:29])
    return {"protocol": protocol, "session": session, "boot_id": boot_id,
            "firmware": firmware}


CONFIG_FORMAT = ">IIIIIBHH"
CONFIG_SIZE = 25


def pack_config(steps_per_rev, top_speed, acceleration, home_speed, max_move, flags,
                tolerance=0, confirm=0):
    """``tolerance``: how far (steps) from its place the home mark may be seen before a
    move is a jam; ``confirm``: steps the sensor must stay active for a sighting to
    count (a shorter one is a glitch). 0 leaves either to the firmware's default."""
    return struct.pack(CONFIG_FORMAT, steps_per_rev, top_speed, acceleration, home_speed,
                       max_move, flags, tolerance, confirm)


def unpack_config(payload):
    v = struct.unpack(CONFIG_FORMAT, payload)
    return {"steps_per_rev": v[0], "top_speed": v[1], "acceleration": v[2],
            "home_speed": v[3], "max_move": v[4], "flags": v[5], "tolerance": v[6],
            "confirm": v[7]}


def pack_move_to(target):
    return struct.pack(">i", target)


def unpack_move_to(payload):
    return struct.unpack(">i", payload)[0]


def pack_status(state, fault, homed, position, target):
    return struct.pack(">BBBii", state, fault, 1 if homed else 0, position, target)


def unpack_status(payload):
    state, fault, homed, position, target = struct.unpack(">BBBii", payload[:11])
    return {"state": state, "fault": fault, "homed": bool(homed),
            "position": position, "target": target}


def status_ok(payload):
    """True when ``payload`` (STATUS, EVENT, or ERROR's status part) holds a status the
    firmware can send: a frame that passed the CRC by chance can hold anything."""
    return (len(payload) >= 11 and payload[0] < len(STATE_NAMES)
            and payload[1] < len(FAULT_NAMES) and payload[2] < 2)


def pack_marks(runs, count):
    """MARKS_REPLY's payload from ``runs`` (rise, fall, rise, fall, ...) and their count."""
    out = struct.pack(">B", count)
    for i in range(count):
        out += struct.pack(">ii", runs[2 * i], runs[2 * i + 1])
    return out


def unpack_marks(payload):
    """[(rise, fall or None), ...]: the steps (from home) at which the sensor turned active
    and let go again, in the order the move met them."""
    count = payload[0] if payload else 0
    runs = []
    for i in range(min(count, (len(payload) - 1) // 8)):
        rise, fall = struct.unpack(">ii", payload[1 + 8 * i:9 + 8 * i])
        runs.append((rise, None if fall == NO_EDGE else fall))
    return runs


def pack_error(code, status_payload):
    return struct.pack(">B", code) + status_payload


def unpack_error(payload):
    return payload[0], unpack_status(payload[1:])
