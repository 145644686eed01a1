"""The wire format on CPython: shared vectors, the decoder under random bytes, round trips."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings, strategies as st

from controller.firmware import floorproto as P

VECTORS = json.loads((Path(__file__).with_name("vectors.json")).read_text())


def test_crc_is_ccitt_false_on_the_shared_vectors():
    for v in VECTORS["crc16_ccitt_false"]:
        assert P.crc16(bytes.fromhex(v["data"])) == v["crc"], v


def test_cobs_matches_the_shared_vectors_both_ways():
    for v in VECTORS["cobs"]:
        data, encoded = bytes.fromhex(v["data"]), bytes.fromhex(v["encoded"])
        assert P.cobs_encode(data) == encoded
        assert P.cobs_decode(encoded) == data


def test_every_shared_frame_encodes_and_decodes_to_its_bytes():
    for v in VECTORS["frames"]:
        payload, frame = bytes.fromhex(v["payload"]), bytes.fromhex(v["frame"])
        assert P.encode_frame(v["seq"], v["type"], payload) == frame, v["name"]
        assert P.Decoder().feed(frame) == [(v["seq"], v["type"], payload)], v["name"]


def test_shared_frame_payloads_mean_what_the_vectors_say():
    unpack = {P.HELLO: lambda p: {"session": P.unpack_hello(p)}, P.HELLO_REPLY: P.unpack_hello_reply,
              P.CONFIG: P.unpack_config, P.MOVE_TO: lambda p: {"target": P.unpack_move_to(p)},
              P.STATUS: P.unpack_status, P.EVENT: P.unpack_status,
              P.ERROR: lambda p: dict(P.unpack_error(p)[1], code=P.unpack_error(p)[0])}
    for v in VECTORS["frames"]:
        if v["fields"]:
            assert unpack[v["type"]](bytes.fromhex(v["payload"])) == v["fields"], v["name"]


def test_a_frame_never_contains_zero_between_its_delimiters():
    for v in VECTORS["frames"]:
        frame = bytes.fromhex(v["frame"])
        assert frame[0] == 0 and frame[-1] == 0 and 0 not in frame[1:-1]


def test_decoder_resynchronises_after_garbage_and_torn_frames():
    ping = P.encode_frame(3, P.PING)
    move = P.encode_frame(4, P.MOVE_TO, P.pack_move_to(800))
    stream = b"\x03\x03hello\xff" + ping[:4] + move + b"\x01\x02" + ping
    decoder = P.Decoder()
    frames = decoder.feed(stream)
    assert frames == [(4, P.MOVE_TO, P.pack_move_to(800)), (3, P.PING, b"")]
    assert decoder.rejected == 3          # the garbage, the torn ping, the two stray bytes


def test_decoder_survives_frames_split_into_single_bytes():
    stream = P.encode_frame(9, P.HOME) + P.encode_frame(10, P.STOP)
    decoder = P.Decoder()
    frames = [f for b in stream for f in decoder.feed(bytes([b]))]
    assert frames == [(9, P.HOME, b""), (10, P.STOP, b"")]


def test_one_flipped_bit_is_always_caught():
    frame = P.encode_frame(7, P.MOVE_TO, P.pack_move_to(800))
    for i in range(1, len(frame) - 1):
        for bit in range(8):
            bad = bytearray(frame)
            bad[i] ^= 1 << bit
            assert P.Decoder().feed(bytes(bad)) == [], (i, bit)


def test_overlong_runs_are_thrown_away_not_buffered_forever():
    decoder = P.Decoder()
    assert decoder.feed(b"\x07" * 5000 + P.encode_frame(1, P.PING)) == [(1, P.PING, b"")]


def test_sequence_numbers_wrap_past_255_to_1_never_0():
    assert P.seq_next(254) == 255 and P.seq_next(255) == 1
    assert P.seq_behind(1, 255) == 1 and P.seq_behind(3, 3) == 0 and P.seq_behind(2, 255) == 2


def reference_frames(data):
    """What a careful reader finds in ``data``: every chunk between 00s whose check holds."""
    found = []
    for chunk in data.split(b"\x00"):
        body = P.cobs_decode(chunk) if chunk else None
        if body and 4 <= len(body) <= P.MAX_BODY and P.crc16(body[:-2]) == int.from_bytes(body[-2:], "big"):
            found.append((body[0], body[1], body[2:-2]))
    return found


frames = st.builds(P.encode_frame, st.integers(0, 255), st.integers(0, 255),
                   st.binary(max_size=P.MAX_PAYLOAD))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.binary(max_size=60), frames), max_size=12),
       st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 7)), max_size=4))
def test_random_bytes_never_crash_the_decoder_nor_pass_a_bad_frame(pieces, flips):
    data = bytearray(b"".join(pieces))
    for where, bit in flips:                       # flipped bits inside otherwise good frames
        if data:
            data[where % len(data)] ^= 1 << bit
    data = bytes(data)
    decoder = P.Decoder()
    got = decoder.feed(data)
    # Exactly the chunks whose CRC holds come out (a trailing chunk waits for its 00).
    complete = data[:data.rfind(b"\x00") + 1] if b"\x00" in data else b""
    assert got == reference_frames(complete)
    for seq, mtype, payload in got:
        assert len(payload) <= P.MAX_PAYLOAD


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=P.MAX_PAYLOAD)),
                min_size=1, max_size=8),
       st.binary(max_size=30))
def test_decode_of_encode_is_identity_even_after_noise(messages, noise):
    stream = noise + b"".join(P.encode_frame(*m) for m in messages)
    assert P.Decoder().feed(stream)[-len(messages):] == [tuple(m) for m in messages]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_cobs_round_trip_and_no_zero_inside(data):
    encoded = P.cobs_encode(data)
    assert 0 not in encoded
    assert P.cobs_decode(encoded) == data


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(range(4)), st.sampled_from(range(4)), st.booleans(),
       st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1))
def test_status_payload_round_trip(state, fault, homed, position, target):
    assert P.unpack_status(P.pack_status(state, fault, homed, position, target)) == {
        "state": state, "fault": fault, "homed": homed, "position": position, "target": target}


DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_example_frames_in_protocol_md_are_shared_vectors():
    """A maker decoding a capture by hand compares it with protocol.md: its frames are real."""
    import re

    frames = {v["frame"] for v in VECTORS["frames"]}
    shown = [bytes.fromhex(line.replace(" ", "")).hex() for line in
             re.findall(r"^00  ([0-9A-F ]+?)  00$", (DOCS / "protocol.md").read_text(), re.M)]
    assert shown and all(f"00{body}00" in frames for body in shown), shown


def test_firmware_md_names_the_firmware_and_protocol_this_potionpi_ships():
    from controller.firmware import settings

    text = (DOCS / "firmware.md").read_text()
    assert (f"ships **firmware {settings.FIRMWARE_VERSION}**, which speaks "
            f"**protocol {P.PROTOCOL_VERSION}**") in text.replace("\n", " ")
