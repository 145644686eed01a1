"""The forest-floor firmware on the genuine MicroPython, on an emulated RP2040 (rp2040js).

One booted Pico serves the module (booting takes seconds of wall time). Every test
asserts counts, never speed: the emulated chip runs several times slower than a real one.
The hardening of issue 11 is tested here on the real MicroPython: the jam watch, the
watchdog and Ctrl-C bytes during boot.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.devices import pico_link
from controller.devices.pico_link import CLOSED, CONNECTED, LinkTimings, PicoLink

from . import rig as rig_module
from .rig import WALL_NET_S, PicoRig, node_missing_reason

P = pico_link.P          # the protocol module, wherever it lives

pytestmark = [
    pytest.mark.slow,
    # one worker boots the emulated chips one after another: each boot wants a whole core
    pytest.mark.xdist_group("emulator"),
    pytest.mark.skipif(node_missing_reason() is not None, reason=str(node_missing_reason())),
    pytest.mark.timeout(WALL_NET_S),    # a net only: the waits below count the chip's own time
]

# A small floor keeps homing short: 400 steps a revolution (16 ants x 25 steps).
REV = 400
ANTS, STEPS_PER_ANT = 16, 25
TOP_SPEED, ACCELERATION, HOME_SPEED = 2000, 8000, 1000
MARK_WIDTH = 4           # steps during which the home sensor sees the mark

# The emulated Pico is a slow link (a reply takes ~0.2 s here, seconds on a busy machine):
# the host's link is given a slow link's limits, as a maker would give them in the config.
SLOW_LINK = {"heartbeat_s": 0.5, "lost_after_s": 30.0, "rto_s": 0.6, "rto_min_s": 0.3,
             "rto_max_s": 2.0, "hello_timeout_s": 30.0, "backoff_s": 0.1, "backoff_max_s": 0.5}
# Deadlines in the chip's own time (rig.until, rig.wait_for): however busy this machine is,
# the firmware gets this long to do it. A request waits for its reply as long as the link
# lives (a lost link fails it at once).
BOOT_S = 20.0             # MicroPython boots and the firmware answers HELLO (~0.6 s here)
SETTLE_S = 10.0           # a homing or a move ends (under 1 s here)
REQUEST_S = WALL_NET_S


def open_link(rig: PicoRig) -> PicoLink:
    link = PicoLink(rig.port, timings=LinkTimings.from_dict(SLOW_LINK)).start()
    try:
        rig.until(lambda: link.state == CONNECTED, BOOT_S, "the firmware answering HELLO")
    except TimeoutError as exc:
        message = link.message
        link.close()
        raise AssertionError(f"{exc}: {message}\n{rig.log()[-1500:]}") from None
    return link


def configure(link: PicoLink) -> None:
    reply = link.request(P.CONFIG, P.pack_config(REV, TOP_SPEED, ACCELERATION, HOME_SPEED,
                                                 2 * REV, 0), timeout=REQUEST_S)
    assert reply.ok, reply.error


def wait_settled(link: PicoLink, rig: PicoRig) -> dict:
    """PING until the floor is neither moving nor homing; its last status."""
    def settled() -> dict | None:
        status = link.request(P.PING, timeout=REQUEST_S).status
        return status if status["state"] not in (P.MOVING, P.HOMING) else None
    return rig.until(settled, SETTLE_S, "the floor at rest", poll=0.1)


def floor_at_rest(floor, rig: PicoRig) -> bool:
    """The serial back-end's floor at rest, waited for in the chip's own time."""
    return rig.until(lambda: floor.wait_idle(0.2), SETTLE_S, f"the floor at rest ({floor.status()})")


def home(link: PicoLink, rig: PicoRig, rotor_at: int | None = None) -> dict:
    """Home on the rotor model (placed at ``rotor_at`` first, if given); the rig state after."""
    rig.jam(False)
    if rotor_at is not None:
        rig.rotor(steps_per_rev=REV, position=rotor_at, mark=0, width=MARK_WIDTH)
    reply = link.request(P.HOME, timeout=REQUEST_S)
    assert reply.ok, reply.error
    status = wait_settled(link, rig)
    assert status["homed"] and status["fault"] == P.NO_FAULT, status
    return rig.state()


def move_to(link: PicoLink, rig: PicoRig, target: int) -> dict:
    reply = link.request(P.MOVE_TO, P.pack_move_to(target), timeout=REQUEST_S)
    assert reply.ok, reply.error
    return wait_settled(link, rig)


class Host:
    """The host end, shared by the module's tests: reopened when a test closed it."""

    def __init__(self, rig: PicoRig):
        self.rig = rig
        self.link: PicoLink | None = None

    def open(self) -> PicoLink:
        if self.link is None or self.link.state == CLOSED:
            self.link = open_link(self.rig)
            configure(self.link)
        else:
            link = self.link
            self.rig.until(lambda: link.state == CONNECTED, BOOT_S,
                           f"the link coming back ({link.message})")
        return self.link

    def close(self) -> None:
        if self.link is not None:
            self.link.close()


@pytest.fixture(scope="module")
def rig():
    with PicoRig() as pico:
        # Up once the firmware answers HELLO; the link is closed again for `potionpi check`.
        open_link(pico).close()
        yield pico


@pytest.fixture(scope="module")
def host(rig):
    h = Host(rig)
    yield h
    h.close()


@pytest.fixture
def link(host):
    return host.open()


def test_boot_then_potionpi_check_passes(rig, host, capsys, tmp_path):
    from controller.cli import main

    host.close()                              # `potionpi check` wants the port to itself
    # the emulated chip is a slow link: its config says so, as a maker's would, and the
    # check waits on the link's own limits (the fixture already saw the firmware answer)
    config = tmp_path / "slow-link.toml"
    config.write_text(f"[forest_floor]\nlink_lost_after_s = {SLOW_LINK['lost_after_s']}\n")
    code = main(["check", "--config", str(config), "--only", "pico", "--port", rig.port])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"firmware {rig.settings['FIRMWARE_VERSION']}" in out
    assert f"protocol {P.PROTOCOL_VERSION}" in out
    # The real firmware read the pulled-up safe-mode pin as "not held" and started.
    assert rig.state()["resets"] == []
    # ... from .mpy files, as `potionpi firmware flash` puts them there: only main.py is source
    assert [n for n in rig.flashed if not n.endswith(".mpy")] == ["main.py"]
    assert "app.mpy" in rig.flashed and "floorproto.mpy" in rig.flashed


def test_homing_finds_the_mark_on_the_rotor(rig, link):
    # From 137 steps past the mark, forward homing stops on the mark's first step: 263 steps.
    rig.clear_steps()
    st = home(link, rig, rotor_at=137)
    assert st["steps"] == REV - 137
    assert st["steps_fwd"] == REV - 137 and st["steps_back"] == 0
    assert st["rotor"]["on_mark"] and st["rotor"]["position"] % REV == 0
    assert st["steps_disabled"] == 0          # every pulse went out with the driver on
    assert not st["en_active"]                # coils released once homed

    # Homing again from the mark: step off it, then round once: exactly one revolution.
    rig.clear_steps()
    st = home(link, rig)
    assert st["steps"] == REV
    assert st["rotor"]["on_mark"] and st["rotor"]["position"] % REV == 0


def test_home_not_found_without_a_mark(rig, link):
    # A floor whose sensor never sees the mark: 1.2 turns, then home_not_found.
    rig.rotor(enabled=False)                  # GP6 left to its pull-up: never active
    rig.clear_steps()
    assert link.request(P.HOME, timeout=REQUEST_S).ok
    status = wait_settled(link, rig)
    st = rig.state()
    assert P.FAULT_NAMES[status["fault"]] == "home_not_found" and not status["homed"]
    assert st["steps"] == REV * 12 // 10
    assert not st["en_active"]


@pytest.mark.parametrize("target", [300, -100])
def test_a_move_of_n_steps_makes_exactly_n_step_edges_with_dir_right(rig, link, target):
    home(link, rig, rotor_at=REV - 10)
    if target < 0:
        move_to(link, rig, 150)                    # start from somewhere, then come back past home
    start = link.request(P.PING, timeout=REQUEST_S).status["position"]
    rig.clear_steps()
    status = move_to(link, rig, target)
    st = rig.state()
    n = abs(target - start)
    assert status["position"] == target and status["target"] == target, status
    assert st["steps"] == n
    if target > start:
        assert (st["steps_fwd"], st["steps_back"], st["dir"]) == (n, 0, 1)
    else:
        assert (st["steps_fwd"], st["steps_back"], st["dir"]) == (0, n, 0)
    assert st["rotor"]["position"] % REV == target % REV      # the floor is where the Pico says
    assert st["steps_disabled"] == 0 and not st["en_active"]


def test_the_serial_back_end_turns_the_floor_by_ants(rig, host):
    """The host's real back-end (floor_serial) on the emulated Pico: home, turn, turn back."""
    from controller.devices.floor_serial import SerialForestFloor
    from controller.devices.pico_link import LinkTimings

    host.close()                              # one host at a time on the port
    rig.rotor(steps_per_rev=REV, position=200, mark=0, width=MARK_WIDTH)
    floor = SerialForestFloor(ants_around=ANTS, steps_per_ant=STEPS_PER_ANT,
                              top_speed=TOP_SPEED, acceleration=ACCELERATION,
                              homing_speed=HOME_SPEED, invert_direction=False,
                              serial_port=rig.port, home_on_connect=False,
                              timings=LinkTimings.from_dict(SLOW_LINK))
    try:
        rig.until(lambda: floor.link.state == CONNECTED, BOOT_S, "the serial floor's link")
        floor.home()
        assert floor_at_rest(floor, rig) and floor.status()["homed"], floor.status()
        assert rig.state()["rotor"]["position"] % REV == 0

        rig.clear_steps()
        floor.rotate(3, "clockwise")
        assert floor_at_rest(floor, rig), floor.status()
        st = rig.state()
        assert floor.status()["last_move"]["result"] == "done", floor.status()
        assert (st["steps"], st["steps_fwd"], st["dir"]) == (3 * STEPS_PER_ANT,) * 2 + (1,), (st, rig.log()[-2000:])

        rig.clear_steps()
        floor.rotate(5, "counter_clockwise")
        assert floor_at_rest(floor, rig), floor.status()
        st = rig.state()
        assert (st["steps"], st["steps_back"], st["dir"]) == (5 * STEPS_PER_ANT,) * 2 + (0,)
        assert st["rotor"]["position"] % REV == (-2 * STEPS_PER_ANT) % REV
        assert floor.position == pytest.approx(ANTS - 2)
    finally:
        floor.close()


def test_pulling_the_host_mid_move_the_move_completes_and_the_host_carries_on(rig, host):
    link = host.open()
    home(link, rig, rotor_at=REV - 20)
    rig.clear_steps()
    assert link.request(P.MOVE_TO, P.pack_move_to(600), timeout=REQUEST_S).ok
    link.close()                              # the host goes away mid-move
    assert rig.state()["steps"] < 600
    st = rig.wait_for(lambda s: s["steps"] == 600 and not s["en_active"], SETTLE_S,
                      "the move to complete and the coils to be released")
    assert st["steps_fwd"] == 600 and st["rotor"]["position"] % REV == 600 % REV

    link = host.open()                        # the host comes back
    status = link.request(P.PING, timeout=REQUEST_S).status
    assert status["homed"] and status["position"] == 600 and status["state"] == P.IDLE
    configure(link)
    rig.clear_steps()
    status = move_to(link, rig, 500)
    assert status["position"] == 500 and rig.state()["steps_back"] == 100


def test_a_power_cycle_is_noticed_and_the_floor_must_home_again(rig, host):
    link = host.open()
    home(link, rig, rotor_at=50)
    connects = link.connects
    rig.reset()                               # power cut: the Pico reboots, the port stays
    def reconnected() -> bool:
        try:
            link.request(P.PING, timeout=REQUEST_S)   # answered "no session" once the Pico is back
        except pico_link.LinkDown:
            pass
        return link.connects > connects and link.state == CONNECTED
    rig.until(reconnected, BOOT_S, f"the host noticing the power cycle ({link.message})", poll=0.1)
    assert link.connects == connects + 1, link.message
    assert rig.state()["resets"] == ["host"]
    configure(link)                           # a fresh Pico knows only its defaults
    status = link.request(P.PING, timeout=REQUEST_S).status
    assert not status["homed"] and status["state"] == P.IDLE
    assert link.request(P.MOVE_TO, P.pack_move_to(10), timeout=REQUEST_S).error == "not_homed"


def test_a_jammed_floor_is_reported_as_jam(rig, link):
    home(link, rig, rotor_at=REV - 30)
    rig.jam(True)                             # the floor stops; the pulses go on
    try:
        rig.clear_steps()
        reply = link.request(P.MOVE_TO, P.pack_move_to(REV + 100), timeout=REQUEST_S)
        assert reply.ok, reply.error
        status = wait_settled(link, rig)
        assert rig.state()["rotor"]["on_mark"]          # the floor never left the mark
        assert not status["homed"]
        assert P.FAULT_NAMES[status["fault"]] == "jam", status
    finally:
        rig.jam(False)


# --- the jam watch's rule on the real MicroPython: slips, bumps and glitches ---------------
TOLERANCE = REV // 32      # the firmware's default without a CONFIG value: 12 steps, < half an ant
TURNS = (6, -5, 7)         # three turns of the master's, from ant 14: the first passes the mark


def a_game(link, rig) -> dict:
    """Homed, and standing at ant 14 as a game might find the floor."""
    home(link, rig, rotor_at=REV - 10)
    return move_to(link, rig, 14 * STEPS_PER_ANT)


def three_turns(link, rig) -> dict:
    """The three turns (each MOVE_TO waited for); the status after the last, or after a fault."""
    goal = 14 * STEPS_PER_ANT
    status = {}
    for ants in TURNS:
        goal += ants * STEPS_PER_ANT
        status = move_to(link, rig, goal)
        if status["state"] == P.FAULTED:
            break
    return status


@pytest.mark.parametrize("bump", [13, 25, -13, -25])
def test_a_slip_of_more_than_half_an_ant_after_homing_is_a_jam_within_three_turns(rig, link, bump):
    a_game(link, rig)
    rig.bump(bump)                            # 0.52 or 1.00 ant, on or back, behind the count
    status = three_turns(link, rig)
    assert P.FAULT_NAMES[status["fault"]] == "jam" and not status["homed"], (bump, status)
    assert link.request(P.MOVE_TO, P.pack_move_to(0), timeout=REQUEST_S).error == "not_homed"


@pytest.mark.parametrize("bump", [5, -7, TOLERANCE])
def test_a_smaller_slip_is_put_right_exactly_on_the_next_clockwise_pass(rig, link, bump):
    a_game(link, rig)
    rig.bump(bump)
    status = three_turns(link, rig)
    goal = (14 + sum(TURNS)) * STEPS_PER_ANT
    assert status["state"] == P.IDLE and status["homed"] and status["fault"] == P.NO_FAULT, status
    assert status["position"] == goal
    assert rig.state()["rotor"]["position"] % REV == goal % REV     # exactly where the count says


@pytest.mark.parametrize("bump", [20, 6])
def test_a_floor_bumped_mid_game_ends_in_a_jam_or_exactly_in_place(rig, host, bump):
    """The host's serial back-end turns the game's floor; the rotor is knocked while a turn
    runs, wherever it happens to be then. Never a silent offset: the turns end in a jam,
    or with the floor exactly where the count says."""
    from controller.devices.floor_serial import SerialForestFloor

    host.close()
    rig.rotor(steps_per_rev=REV, position=REV - 30, mark=0, width=MARK_WIDTH)
    floor = SerialForestFloor(ants_around=ANTS, steps_per_ant=STEPS_PER_ANT,
                              top_speed=TOP_SPEED, acceleration=ACCELERATION,
                              homing_speed=HOME_SPEED, invert_direction=False,
                              serial_port=rig.port, timings=LinkTimings.from_dict(SLOW_LINK))
    try:
        rig.until(lambda: floor.link.state == CONNECTED, BOOT_S, "the serial floor's link")
        floor.home()                          # (the Pico still counts from the last test's homing)
        assert floor_at_rest(floor, rig) and floor.status()["homed"], floor.status()
        floor.rotate(12, "clockwise")
        assert floor_at_rest(floor, rig) and floor.status()["last_move"]["result"] == "done"
        rig.clear_steps()
        floor.rotate(8, "clockwise")          # 12 -> 4, over the mark
        rig.wait_for(lambda st: st["steps"] >= 20, SETTLE_S, "the turn under way")
        rig.bump(bump)                        # knocked, mid-turn
        results = []
        assert floor_at_rest(floor, rig)
        results.append(floor.status()["last_move"]["result"])
        if results[-1] == "done":
            floor.rotate(ANTS, "clockwise")   # a whole turn: past the mark clockwise for sure
            assert floor_at_rest(floor, rig)
            results.append(floor.status()["last_move"]["result"])
        status = floor.status()
        if results[-1] == "fault":
            assert status["fault_code"] == "jam", status
        else:
            assert results == ["done", "done"] and status["homed"], (results, status)
            assert rig.state()["rotor"]["position"] % REV == status["steps"] % REV, (
                rig.state()["rotor"], status)
        assert bump <= TOLERANCE or results[-1] == "fault"   # more than half an ant: a jam
    finally:
        floor.close()


def test_a_glitch_on_the_home_wire_is_neither_home_nor_a_jam(rig, link):
    rig.rotor(steps_per_rev=REV, position=100, mark=0, width=MARK_WIDTH)
    rig.jam(False)
    rig.clear_steps()
    assert link.request(P.HOME, timeout=REQUEST_S).ok
    rig.wait_for(lambda st: st["steps"] >= 50, SETTLE_S, "homing under way")
    rig.glitch(us=30)                         # a spike while the floor is far from the mark
    status = wait_settled(link, rig)
    st = rig.state()
    assert status["homed"] and st["rotor"]["on_mark"] and st["rotor"]["position"] % REV == 0
    assert st["steps"] == REV - 100           # it stopped on the mark, not on the spike
    move_to(link, rig, 100)
    rig.clear_steps()
    assert link.request(P.MOVE_TO, P.pack_move_to(300), timeout=REQUEST_S).ok
    rig.wait_for(lambda st: st["steps"] >= 50, SETTLE_S, "the move under way")
    rig.glitch(us=30)                         # mid-move, half a turn from the mark
    status = wait_settled(link, rig)
    assert status["state"] == P.IDLE and status["fault"] == P.NO_FAULT and status["position"] == 300
    assert rig.state()["glitches"] >= 2


def test_the_jam_watch_rule_passes_its_shared_vectors_on_the_emulated_rp2040():
    """The same vectors as on CPython and the unix port (tests/firmware/test_micropython.py)."""
    import serial

    here = Path(__file__).resolve().parent.parent / "firmware"
    with PicoRig(files=[(Path(rig_module.firmware_dir()) / "markwatch.py", "markwatch.py")],
                 extra_files={"main.py": (here / "mp_markwatch.py").read_bytes(),
                              "markwatch_vectors.json": (here / "markwatch_vectors.json").read_bytes()}
                 ) as pico:
        ser = serial.Serial(pico.port, 115200, timeout=0.05)
        try:
            got = bytearray()

            def done() -> bool:
                got.extend(ser.read(4096))
                return b"markwatch ok" in got or b"Error" in got
            pico.until(done, BOOT_S, "the vectors' verdict")
            got.extend(ser.read(4096))
            seen = bytes(got)
        finally:
            ser.close()
    cases = len(json.loads((here / "markwatch_vectors.json").read_text())["cases"])
    assert f"markwatch ok {cases}".encode() in seen, seen[-800:].decode(errors="replace")


def test_the_watchdog_resets_a_hung_loop(rig, host):
    link = host.open()
    wait_settled(link, rig)
    assert rig.state()["watchdog_enabled"], "the firmware did not arm the watchdog"
    before = rig.state()
    rig.hang(True)                            # the CPU stops; time and the watchdog go on
    try:
        st = rig.wait_for(lambda s: "watchdog" in s["resets"], SETTLE_S, "a watchdog reset")
    finally:
        rig.hang(False)
    # within the watchdog's time (rp2040js counts it at most twice over), not seconds later
    assert st["time_us"] - before["time_us"] < 2 * rig.settings["WATCHDOG_MS"] * 1000 + 100_000
    host.close()
    link = host.open()                        # and the firmware answers again, a new session
    assert not link.request(P.PING, timeout=REQUEST_S).status["homed"]   # a new boot: home again
    # Until main.py runs, EN is an input on the RP2040's pull-down ("coils on" for an
    # active-low EN: hence the pull-up in the wiring); main.py drives it off first thing.
    assert not rig.state()["en_active"]


def test_ctrl_c_bytes_during_boot_never_reach_the_repl():
    import serial

    with PicoRig() as pico:
        ser = serial.Serial(pico.port, 115200, timeout=0)
        try:
            decoder = P.Decoder()
            hello = P.encode_frame(0, P.HELLO, P.pack_hello(0x0303))
            seen = bytearray()
            # A host that keeps saying hello (and line noise of 0x03) from power-up on.
            def answered() -> bool:
                ser.write(b"\x03\x03" + hello)
                data = ser.read(4096)
                seen.extend(data)
                assert b"KeyboardInterrupt" not in seen and b">>> " not in seen, \
                    f"the firmware fell into the REPL: {bytes(seen[-300:])!r}"
                return any(m == P.HELLO_REPLY for _, m, _ in decoder.feed(data))
            pico.until(answered, BOOT_S, "a HELLO_REPLY", poll=0.02)
        finally:
            ser.close()


def test_flashing_starts_on_the_real_firmware_it_steps_aside_and_names_its_micropython():
    """The first half of `potionpi firmware flash` on the genuine MicroPython: the running
    firmware leaves for the REPL (its watchdog off, so the REPL is not reset under mpremote),
    and mpremote reads the .mpy version the flash tool compiles for. (rp2040js cannot program
    flash, so the copy itself cannot run here.)"""
    from controller import firmware_tools

    with PicoRig() as pico:
        open_link(pico).close()                       # booted into the firmware
        hello = firmware_tools.ask_firmware_to_step_aside(pico.port, timeout=REQUEST_S)
        assert hello and hello["firmware"] == pico.settings["FIRMWARE_VERSION"]
        board = firmware_tools.board_mpy(pico.port, firmware_tools.MPREMOTE)
        assert board is not None, pico.log()[-1500:]
        assert board == firmware_tools.mpy_cross_version()[0:1] + ("1.28.0",)
        pico.wait_emulated(1.0)                       # well past the 350 ms watchdog
        assert pico.state()["resets"] == [] and not pico.state()["en_active"]
