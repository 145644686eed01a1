"""The serial floor's state machine: the table in the docstring is the table the code runs,
every listed (phase, event) pair does what it says, every other pair is refused and logged;
and the two races the table closed (issue 25: a stale count confirming a turn, a command
carried across a lost link into the next session)."""
from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from controller.devices import floor_serial, pico_link
from controller.devices.floor_serial import TRANSITIONS, Event, Phase, SerialForestFloor
from controller.devices.pico_link import LINK_TRANSITIONS, LinkDown, LinkState, PicoLink
from controller.config import section
from controller.firmware import floorproto as P

from .conftest import FAST, STEPS_PER_ANT, serial_floor, wait_for

ROOT = Path(__file__).resolve().parents[2]
TABLE_LINE = re.compile(r"^    (\w+) {2,}(.+?) {2,}(\w+|=)(?: \(.*\))?$")


def docstring_rows(doc: str) -> dict[tuple[str, str], str]:
    """(phase, event) -> next phase, as the module's docstring draws it ("any": every phase)."""
    rows: dict[tuple[str, str], str] = {}
    events = {str(e) for e in Event}
    for line in doc.splitlines():
        match = TABLE_LINE.match(line)
        if not match or match.group(1) not in events:
            continue
        event, froms, to = match.groups()
        phases = [str(p) for p in Phase] if froms.strip() == "any" else froms.split()
        for phase in phases:
            assert (phase, event) not in rows, f"{event} from {phase} drawn twice"
            rows[phase, event] = phase if to == "=" else to
    return rows


def test_the_docstring_and_the_docs_draw_the_table_the_code_runs():
    runs = {(str(p), str(e)): str(to) for (p, e), to in TRANSITIONS.items()}
    assert docstring_rows(floor_serial.__doc__ or "") == runs
    assert docstring_rows((ROOT / "docs" / "forest-floor.md").read_text()) == runs


@pytest.fixture
def idle_floor():
    """A floor whose Pico is nowhere: only its state machine is exercised."""
    floor = SerialForestFloor.from_config(section("forest_floor"),
                                          serial_port="/nonexistent/ttyPICO")
    yield floor
    floor.close()


@pytest.mark.parametrize(("phase", "event"), sorted(TRANSITIONS), ids=lambda v: str(v))
def test_every_pair_in_the_table_goes_where_the_table_says(idle_floor, phase, event):
    with idle_floor._lock:
        idle_floor.phase = phase
        assert idle_floor._transition(event) is True
        assert idle_floor.phase is TRANSITIONS[phase, event]
        # the give-up countdown runs exactly while cut_off, never once the link is back
        counting = idle_floor._give_up_timer is not None
        assert counting == (idle_floor.phase is Phase.CUT_OFF
                            and event not in (Event.CONNECT, Event.CONNECT_HOMING))
        idle_floor._cancel_give_up()


UNLISTED = sorted({(p, e) for p in Phase for e in Event} - set(TRANSITIONS))


@pytest.mark.parametrize(("phase", "event"), UNLISTED, ids=lambda v: str(v))
def test_a_pair_the_table_does_not_list_is_refused_and_logged(idle_floor, phase, event, caplog):
    with caplog.at_level(logging.WARNING, logger="controller.devices.floor_serial"):
        with idle_floor._lock:
            idle_floor.phase = phase
            assert idle_floor._transition(event) is False
            assert idle_floor.phase is phase
    assert f"{event} in phase {phase} is not in the transition table; refused" in caplog.text


def test_the_link_table_is_drawn_and_kept(caplog):
    doc = pico_link.__doc__ or ""
    drawn = {}
    for line in doc.splitlines():
        words = line.split()
        if line.startswith("    ") and words and words[0] in {str(s) for s in LinkState}:
            drawn[words[0]] = frozenset(words[1:])
    assert drawn == {str(s): frozenset(str(t) for t in to) for s, to in LINK_TRANSITIONS.items()}
    link = PicoLink("/nonexistent/ttyPICO")           # never started: its state is all there is
    heard = []
    link.on_state = lambda state, message: heard.append(state)
    link._set_state(LinkState.CLOSED, "closed")
    with caplog.at_level(logging.WARNING, logger="controller.devices.pico_link"):
        link._set_state(LinkState.CONNECTED, "connected to a ghost")
    assert link.state == "closed" and heard == ["closed"]
    assert "closed -> connected is not in the transition table; refused" in caplog.text
    link.close()


# --- the races the state machine closed ------------------------------------------------
def test_a_count_from_before_a_turn_by_hand_never_confirms_the_next_turn(sim, caplog):
    """The Pico homed and stood at 40; a turn asked while the cable was out was given up
    and set by hand to 60, so the Pico's count (still "homed, at 40") is not the floor's.
    The next turn, 2 ants back to 40, once ended "done" on the first heartbeat (the goal's
    number matched the stale count) and the floor then homed and turned after the game had
    moved on (tests/proof/test_serial_faults.py under load: steps nobody asked for)."""
    floor = serial_floor(sim.port, home_on_connect=False, top_speed=800.0, acceleration=8000.0,
                         homing_speed=400.0)
    try:
        assert wait_for(lambda: floor.link.state == "connected")
        floor.rotate(4, "clockwise")                    # homes first, then 40 steps
        assert wait_for(lambda: floor.status()["last_move"]["result"] == "done")
        assert sim.homings == 1 and sim.physical.angle_steps() == 40
        sim.unplug(power_loss=False)                    # the Pico stays powered, idle at 40
        assert wait_for(lambda: floor.link.state == "reconnecting")
        floor.rotate(2, "clockwise")                    # asked with the cable out ...
        assert floor.status()["phase"] == "cut_off" and floor._give_up_timer is not None
        assert wait_for(lambda: floor.state == "fault")             # ... and given up
        assert floor.status()["fault_code"] == "link_lost"
        sim.physical.steps = 60                         # the master sets it by hand ...
        floor.turn_over()                               # ... and taps done
        sim.replug()
        assert wait_for(lambda: floor.link.state == "connected" and floor.status()["steps"] == 40)
        assert not floor.status()["homed"]              # the Pico says homed; its count is stale
        heard = []
        floor.on_change(lambda s: heard.append((s["last_move"]["result"], sim.homings,
                                                sim.physical.angle_steps(), s["position"])))
        floor.rotate(2, "counter_clockwise")            # back to 40: the stale count's number
        assert wait_for(lambda: floor.status()["last_move"]["result"] == "done")
        first_done = next(h for h in heard if h[0] == "done")
        assert first_done[1:3] == (2, 40)               # done only once homed and really at 40
        assert heard[0][3] == 6.0                       # from where his hand put it, not 4.0
        assert sim.physical.angle_steps() == 40 and floor.position == 4.0
    finally:
        floor.close()
    assert "not in the transition table" not in caplog.text


def test_a_command_sent_as_the_link_drops_never_reaches_the_pico_in_the_next_session(sim):
    """The port is closed and the state not yet "reconnecting": a HOME submitted in that
    moment was once kept and sent as the first command of the next session, seconds later,
    when its sender had long given the move up."""
    link = PicoLink(sim.port, timings=pico_link.LinkTimings.from_dict(FAST)).start()
    try:
        assert wait_for(lambda: link.state == "connected")
        caught: list = []
        real = link._set_state

        def drop_then_submit(state, message):
            if state == LinkState.RECONNECTING and not caught:
                caught.append(link.submit(P.HOME))      # in the gap between the two
            real(state, message)

        link._set_state = drop_then_submit
        sim.reset()                                     # the Pico reboots: "no session"
        assert wait_for(lambda: caught and link.state == "connected")
        assert caught[0].done() and isinstance(caught[0].error, LinkDown)
        link.request(P.PING)                            # the new session runs ...
        assert sim.executed(P.HOME) == []               # ... and never heard that HOME
    finally:
        link.close()
