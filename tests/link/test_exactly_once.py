"""1,000 commands through a wire that corrupts or drops 5 % of frames: each runs exactly once."""
from __future__ import annotations

from controller.firmware import floorproto as P
from controller.devices.pico_link import PicoLink, LinkTimings

from tests.sizes import TIMEOUT_SCALE

from .conftest import FAST, REV, STATE_WAIT_S, ready, wait_for

# A reply is waited for as long as a state (a busy machine holds the simulated Pico up for
# seconds); the link's own silence limit is long too: these tests are about exactly once,
# not about when a quiet Pico counts as gone (test_link_life.py is).
REPLY_S = STATE_WAIT_S * TIMEOUT_SCALE
QUIET_S = 10.0


def homed_link(sim, **timings):
    link = PicoLink(sim.port, timings=LinkTimings.from_dict(dict(FAST, **timings))).start()
    assert wait_for(lambda: link.state == "connected")
    link.request(P.CONFIG, P.pack_config(REV, 50000, 500000, 2000, 2 * REV, 0), timeout=REPLY_S)
    link.request(P.HOME, timeout=REPLY_S)
    assert wait_for(lambda: link.request(P.PING, timeout=REPLY_S).status["homed"])
    return link


def test_a_thousand_commands_at_five_percent_loss_each_run_exactly_once(sim):
    link = homed_link(sim, lost_after_s=QUIET_S)
    try:
        sim.faults.drop, sim.faults.corrupt = 0.025, 0.025
        targets = [(k * 7) % 50 for k in range(1000)]
        pendings = [link.submit(P.MOVE_TO, P.pack_move_to(t)) for t in targets]
        replies = [p.wait(REPLY_S) for p in pendings]
        sim.faults.drop = sim.faults.corrupt = 0.0

        assert all(r.ok for r in replies)
        ran = [P.unpack_move_to(p) for p in sim.executed(P.MOVE_TO)]
        assert ran == targets                             # once each, in the order sent
        faults = sim.wire_faults
        assert faults["dropped"] > 20 and faults["corrupted"] > 20   # the wire really was bad
        assert link.retransmits > 0
        assert wait_for(lambda: link.request(P.PING, timeout=REPLY_S).status["state"] == P.IDLE)
        assert sim.physical.angle_steps() == targets[-1]  # and the disc is where the last one said
    finally:
        link.close()


def test_late_replies_cause_retransmissions_but_nothing_runs_twice(sim):
    link = homed_link(sim, lost_after_s=QUIET_S, rto_min_s=0.005, rto_max_s=0.02)
    try:
        sim.faults.delay_s = 0.1                          # far beyond the longest retransmit timeout
        replies = [link.submit(P.PING) for _ in range(30)]
        assert all(p.wait(REPLY_S).ok for p in replies)
        assert link.retransmits > 0
        before_pings = len(sim.executed(P.PING))
        assert before_pings >= 30
        targets = [5, 9, 2]
        for t in targets:
            assert link.request(P.MOVE_TO, P.pack_move_to(t), timeout=REPLY_S).ok
        assert [P.unpack_move_to(p) for p in sim.executed(P.MOVE_TO)] == targets
    finally:
        link.close()


def test_noise_between_frames_and_lost_bytes_are_survived(sim):
    link = homed_link(sim, lost_after_s=QUIET_S)
    try:
        sim.faults.noise, sim.faults.drop_byte = 0.5, 0.1
        targets = [3, 30, 12, 0, 44] * 10
        assert all(link.submit(P.MOVE_TO, P.pack_move_to(t)).wait(REPLY_S).ok for t in targets)
        assert [P.unpack_move_to(p) for p in sim.executed(P.MOVE_TO)] == targets
        assert sim.wire_faults["bytes_dropped"] > 0
    finally:
        link.close()


def test_rotations_through_a_lossy_wire_never_turn_twice(sim, make_floor):
    floor = make_floor()
    assert wait_for(lambda: ready(floor))
    sim.faults.drop, sim.faults.corrupt = 0.1, 0.1
    for ants, direction in [(3, "clockwise"), (2, "clockwise"), (4, "counter_clockwise"), (5, "clockwise")]:
        floor.rotate(ants, direction)
        assert wait_for(lambda: ready(floor) and floor.status()["goal"] == floor.position, 10)
    sim.faults.drop = sim.faults.corrupt = 0.0
    assert floor.position == 6.0
    assert sim.floor_ants(10) == 6.0
