"""firmware/link.py: every command runs exactly once, in order, whatever the wire does."""
from __future__ import annotations

import pytest

from controller.firmware import floorproto as P


@pytest.fixture
def link(fw, rig):
    floor, stepper, clock = rig
    link = fw.link.Link(floor, boot_id=0xBEEF, firmware_version="1.0.0")
    link.journal = []
    link.on_execute = lambda mtype, payload: link.journal.append((mtype, payload))
    return link


def send(link, seq, mtype, payload=b""):
    out = link.feed(P.encode_frame(seq, mtype, payload))
    return [P.Decoder().feed(frame)[0] for frame in out]


def hello(link, session=0x1234):
    [(seq, mtype, payload)] = send(link, 0, P.HELLO, P.pack_hello(session))
    assert mtype == P.HELLO_REPLY
    return P.unpack_hello_reply(payload)


def test_hello_reports_protocol_session_boot_and_version(link):
    assert hello(link) == {"protocol": P.PROTOCOL_VERSION, "session": 0x1234, "boot_id": 0xBEEF,
                           "firmware": "1.0.0"}


def test_without_hello_every_command_is_told_no_session(link):
    [(seq, mtype, payload)] = send(link, 1, P.PING)
    assert (seq, mtype, payload[0]) == (1, P.ERROR, P.ERR_NO_SESSION)
    assert link.journal == []


def test_a_retransmitted_command_gets_the_same_reply_and_runs_once(link):
    hello(link)
    send(link, 1, P.HOME)
    link.floor.homed, link.floor.state = True, P.IDLE      # pretend homing finished
    first = link.feed(P.encode_frame(2, P.MOVE_TO, P.pack_move_to(30)))
    again = link.feed(P.encode_frame(2, P.MOVE_TO, P.pack_move_to(30)))
    assert first == again and len(first) == 1
    assert [m for m, _ in link.journal] == [P.HOME, P.MOVE_TO]
    assert link.floor.target == 30


def test_a_command_ahead_of_a_lost_one_waits_for_it(link):
    hello(link)
    assert send(link, 2, P.PING) == []                      # 1 was lost: 2 is dropped
    assert [s for s, _, _ in send(link, 1, P.PING)] == [1]
    assert [s for s, _, _ in send(link, 2, P.PING)] == [2]
    assert len(link.journal) == 2


def test_replies_are_remembered_for_sixteen_commands(link):
    hello(link)
    for seq in range(1, 21):
        send(link, seq, P.PING)
    assert send(link, 20 - 15, P.PING) != []                # 16 back: still remembered
    assert send(link, 20 - 16, P.PING) == []                # 17 back: forgotten, ignored
    assert len(link.journal) == 20


def test_sequence_wraps_from_255_to_1(link):
    hello(link)
    for seq in range(1, 256):
        send(link, seq, P.PING)
    assert [s for s, _, _ in send(link, 1, P.PING)] == [1]
    assert len(link.journal) == 256


def test_bad_payloads_and_unknown_commands_are_refused_by_name(link):
    hello(link)
    [(_, mtype, payload)] = send(link, 1, P.MOVE_TO, b"\x01")
    assert (mtype, P.ERROR_NAMES[payload[0]]) == (P.ERROR, "bad_payload")
    [(_, mtype, payload)] = send(link, 2, 0x42)
    assert (mtype, P.ERROR_NAMES[payload[0]]) == (P.ERROR, "unknown_command")


def test_a_new_hello_starts_a_new_session(link):
    hello(link)
    send(link, 1, P.PING)
    hello(link, session=7)
    assert [s for s, _, _ in send(link, 1, P.PING)] == [1]
    assert len(link.journal) == 2


def test_events_tell_state_changes_once(link):
    hello(link)
    assert link.event() is not None                         # first report after hello
    assert link.event() is None
    send(link, 1, P.HOME)
    seq, mtype, payload = P.Decoder().feed(link.event())[0]
    assert (seq, mtype, P.unpack_status(payload)["state"]) == (0, P.EVENT, P.HOMING)


def test_repl_stops_the_floor_and_leaves_the_loop(link):
    hello(link)
    send(link, 1, P.HOME)
    send(link, 2, P.REPL)
    assert link.want_repl and link.floor.state == P.IDLE
