"""The simulated cauldron: real drops, the real Cauldron code, gpiozero mock pins."""
from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings, strategies as st

from controller.config import ConfigError, section
from controller.devices.sim_cauldron import SimClock, SimulatedCauldron, SimulationRefused

COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]
CAULDRON_KEYS = {"detents_per_rev": "detents_per_revolution", "max_rev_per_s": "max_turns_per_second"}


def simulated(*, sink=None, on_notice=None, **settings):
    """A simulated cauldron from the default config; ``settings`` name keys of
    [simulation] or (by their short names in CAULDRON_KEYS) of [cauldron]."""
    cauldron = {CAULDRON_KEYS[k]: settings.pop(k) for k in list(settings) if k in CAULDRON_KEYS}
    return SimulatedCauldron.from_config(section("simulation", **settings),
                                         section("cauldron", **cauldron),
                                         sink=sink, on_notice=on_notice)


class Table:
    def __init__(self):
        self.actions, self.notices = [], []

    def sink(self, action):
        self.actions.append(action)

    def drops(self):
        return [a.get("colour") for a in self.actions if a["type"] == "drop"]


@pytest.fixture
def table():
    return Table()


@pytest.fixture
def make(table):
    made = []

    def make(**kwargs):
        sim = simulated(sink=table.sink, on_notice=table.notices.append, **kwargs)
        made.append(sim)
        return sim

    yield make
    for sim in made:
        sim.close()


def test_the_default_population_is_the_boxed_game_18_drops_3_of_each_colour():
    assert section("simulation")["drops"] == {c: 3 for c in COLOURS}


def test_a_new_cauldron_holds_all_18_drops(make):
    sim = make(seed=1)
    assert sim.contents() == {c: 3 for c in COLOURS}
    assert sim.total() == 18


def test_the_population_comes_from_the_config(make):
    sim = make(seed=1, drops={"red": 5, "blue": 2})
    assert sim.contents() == {"red": 5, "blue": 2}
    sim.turn(30)
    sim.handle_effect({"device": "*", "op": "reset"})
    assert sim.contents() == {"red": 5, "blue": 2}
    with pytest.raises(SimulationRefused, match="choose one of red, blue"):
        sim.drop("green")


def test_a_colour_the_sensor_cannot_show_is_a_config_error():
    with pytest.raises(ConfigError, match="simulation.drops"):
        section("simulation", drops={"pink": 3})


def test_set_contents_holds_exactly_where_the_game_says_the_drops_are(make):
    sim = make(seed=1)
    sim.handle_effect({"device": "cauldron", "op": "set_contents",
                       "contents": {"red": 1, "blue": 0, "green": 3, "mauve": 2}})
    assert {c: n for c, n in sim.contents().items() if n} == {"red": 1, "green": 3}
    assert sim.total() == 4
    sim.handle_effect({"device": "*", "op": "reset"})       # a new game: every drop back in
    assert sim.total() == 18


def test_turning_clockwise_lets_drops_fall_every_few_detents(make, table):
    sim = make(seed=4, detents_per_drop=6)
    result = sim.turn(60)
    # a drop falls after 3..9 detents, so 60 detents give 6..20 of them
    assert 6 <= len(result["drops"]) <= 20
    assert table.drops() == result["drops"]          # delivered before turn() returned
    assert all(colour in COLOURS for colour in result["drops"])
    assert sim.total() == 18 - len(result["drops"])
    for colour in COLOURS:
        assert sim.contents()[colour] == 3 - result["drops"].count(colour)
    assert sim.status()["position"] == 60
    assert sim.status()["drops_seen"] == len(result["drops"])


def test_mixing_lets_nothing_fall(make, table):
    sim = make(seed=4)
    result = sim.turn(-80)
    assert result == {"detents": -80, "drops": []}
    assert table.actions == []
    assert sim.total() == 18
    assert sim.status()["direction"] == "mixing"
    assert sim.status()["position"] == -80


def test_same_seed_same_drops(make):
    first, second = make(seed=11), make(seed=11)
    assert first.turn(40)["drops"] == second.turn(40)["drops"]
    assert [first.drop() for _ in range(3)] == [second.drop() for _ in range(3)]
    assert first.contents() == second.contents()


def test_the_seed_decides(make):
    runs = {tuple(make(seed=s).turn(120)["drops"]) for s in range(5)}
    assert len(runs) > 1


def test_drop_now_with_a_named_colour(make, table):
    sim = make(seed=2)
    assert sim.drop("purple") == "purple"
    assert table.actions == [{"type": "drop", "colour": "purple"}]
    assert sim.contents()["purple"] == 2


def test_drop_now_refuses_a_colour_that_is_not_inside(make, table):
    sim = make(seed=2)
    for _ in range(3):
        sim.drop("red")
    with pytest.raises(SimulationRefused, match="no red drop in the cauldron"):
        sim.drop("red")
    with pytest.raises(SimulationRefused, match="choose one of"):
        sim.drop("pink")
    assert table.drops() == ["red"] * 3
    assert sim.total() == 15


def test_an_empty_cauldron_drops_nothing_and_turning_says_stuck(make, table):
    sim = make(seed=5, detents_per_rev=20)
    while sim.total():
        sim.drop()
    assert sorted(table.drops()) == sorted(c for c in COLOURS for _ in range(3))
    with pytest.raises(SimulationRefused, match="empty"):
        sim.drop()
    table.actions.clear()
    assert sim.turn(20)["drops"] == []
    assert table.actions == []
    assert [n["kind"] for n in table.notices] == ["stuck"]


def test_fill_effect_puts_drops_back(make):
    sim = make(seed=3)
    for colour in ("blue", "blue", "green"):
        sim.drop(colour)
    sim.handle_effect({"device": "cauldron", "op": "fill", "drops": ["blue", "green", "blue"]})
    assert sim.contents() == {c: 3 for c in COLOURS}
    sim.handle_effect({"device": "cauldron", "op": "fill", "drops": ["mauve"]})
    assert sim.total() == 18


def test_unfill_effect_takes_an_undone_bowl_back_out(make):
    sim = make(seed=3)
    sim.handle_effect({"device": "cauldron", "op": "unfill", "drops": ["red", "red", "blue", "green"]})
    assert sim.contents() == {"red": 1, "yellow": 3, "green": 2, "blue": 2, "purple": 3, "orange": 3}
    sim.handle_effect({"device": "cauldron", "op": "unfill", "drops": ["red", "red"]})
    assert sim.contents()["red"] == 0
    assert sim.total() == 13


def test_reset_refills_the_whole_population(make):
    sim = make(seed=3)
    sim.turn(50)
    sim.handle_effect({"device": "cauldron", "op": "reset"})
    assert sim.total() == 18


def test_without_a_colour_sensor_the_tablet_must_ask(make, table):
    sim = make(seed=3, colour_sensor=False)
    sim.drop("yellow")
    assert table.actions == [{"type": "drop"}]
    assert sim.contents()["yellow"] == 2


def test_consumers_can_be_wired_after_start(table):
    sim = simulated(seed=1)
    try:
        sim.drop("green")
        sim.sink = table.sink
        sim.drop("green")
        assert table.actions == [{"type": "drop", "colour": "green"}]
    finally:
        sim.close()


def test_turning_fast_says_turn_gently(make, table):
    sim = make(seed=1, max_rev_per_s=3.0)
    sim.turn(-40, speed=8.0)
    assert [n["kind"] for n in table.notices] == ["too_fast"]
    table.notices.clear()
    sim.turn(-40)  # the default speed is gentle
    assert table.notices == []


def test_status_for_healthz(make):
    sim = make(seed=1)
    sim.drop("orange")
    status = sim.status()
    assert status["simulated"] is True
    assert status["contents"]["orange"] == 2
    assert status["total"] == 17
    assert status["beam"] == "clear"
    assert status["last_drop_colour"] == "orange"
    assert status["last_drop_at"] is not None


def test_two_hands_on_the_grip_lose_no_drop(make, table):
    sim = make(seed=9, detents_per_drop=2)
    threads = [threading.Thread(target=sim.turn, args=(30,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(table.drops()) + sim.total() == 18
    assert sim.status()["position"] == 120


ops = st.one_of(
    st.tuples(st.just("turn"), st.integers(-30, 30)),
    st.tuples(st.just("drop"), st.sampled_from(COLOURS + [None])),
    st.tuples(st.just("fill"), st.lists(st.sampled_from(COLOURS), max_size=4)),
)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.lists(ops, max_size=12))
def test_every_ball_is_accounted_for(seed, steps):
    table = Table()
    sim = simulated(seed=seed, sink=table.sink)
    added = {c: 0 for c in COLOURS}
    try:
        for op, arg in steps:
            if op == "turn":
                sim.turn(arg)
            elif op == "drop":
                try:
                    sim.drop(arg)
                except SimulationRefused:
                    assert (sim.total() == 0) if arg is None else sim.contents()[arg] == 0
            else:
                sim.handle_effect({"device": "cauldron", "op": "fill", "drops": arg})
                for colour in arg:
                    added[colour] += 1
            fallen = table.drops()
            for colour in COLOURS:
                assert sim.contents()[colour] == 3 + added[colour] - fallen.count(colour)
            assert sim.status()["drops_seen"] == len(fallen)
    finally:
        sim.close()


def test_sim_clock_runs_on_real_time_plus_simulated_time():
    manual = SimClock(real=False)
    assert manual() == 0.0
    manual.advance(0.25)
    assert manual() == 0.25
    with pytest.raises(ValueError):
        manual.advance(-1)
    real = SimClock()
    before = real()
    real.advance(10)
    assert real() >= before + 10


def test_sim_clock_held_stands_still_but_for_advance_and_goes_on_from_there():
    clock = SimClock()
    with clock.held():
        stood = clock()
        time.sleep(0.05)                       # a thread kept from running ...
        assert clock() == stood                # ... does not move the held clock
        clock.advance(0.004)
        assert clock() == pytest.approx(stood + 0.004)
    after = clock()
    assert after >= stood + 0.004              # never backwards once let go
    assert after - stood < 0.05                # the stall was not counted
    with clock.held(), pytest.raises(RuntimeError):
        with clock.held():
            pass


def test_a_drop_stays_a_drop_when_its_thread_stalls_between_the_two_edges(table):
    """On a busy machine the OS may hold the thread that drives the simulated beam between
    its dark and light edges for longer than the stuck-beam limit: the ball still blocked
    the beam for its own pulse only, so it counts, and no sensor fault is reported."""
    sim = SimulatedCauldron.from_config(section("simulation", seed=1),
                                        section("cauldron", stuck_beam_seconds=0.1),
                                        sink=table.sink, on_notice=table.notices.append)
    try:
        beam = sim._pin_beam
        real_drive_low = beam.drive_low

        def drive_low_then_stall():
            real_drive_low()
            time.sleep(0.4)                    # the stall: four stuck-beam limits

        beam.drive_low = drive_low_then_stall
        colour = sim.drop("red")
        assert colour == "red"
        assert sim.cauldron.flush()
        assert table.drops() == ["red"]
        assert not [a for a in table.actions if a["type"] == "sensor_fault"]
        assert sim.status()["fault"] is None
    finally:
        sim.close()


def test_close_releases_the_mock_pins(make):
    sim = make(seed=1)
    sim.close()
    sim.close()
    from controller.devices.cauldron import Cauldron
    again = Cauldron.from_config(section("cauldron"), pin_factory=sim.pin_factory)
    again.close()


def test_from_config(table):
    sim = SimulatedCauldron.from_config(section("simulation", detents_per_drop=1, colour_sensor=False),
                                        section("cauldron", detents_per_revolution=24),
                                        sink=table.sink)
    try:
        assert sim.cauldron.detents_per_rev == 24
        assert len(sim.turn(10)["drops"]) == 10  # one drop per detent
        assert all(a == {"type": "drop"} for a in table.actions)
    finally:
        sim.close()


def test_from_default_config_drops_carry_colours(table):
    sim = SimulatedCauldron.from_config(section("simulation"), section("cauldron"), sink=table.sink)
    try:
        fallen = sim.turn(40)["drops"]
        assert fallen and table.drops() == fallen
    finally:
        sim.close()


def test_a_long_glitch_limit_still_lets_simulated_drops_count(table):
    sim = SimulatedCauldron.from_config(section("simulation"), section("cauldron", glitch_ms=6.0),
                                        sink=table.sink)
    try:
        sim.drop("red")
        assert table.drops() == ["red"]
    finally:
        sim.close()
