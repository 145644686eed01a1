"""The acceleration ramp and the PIO timing arithmetic, on CPython."""
from __future__ import annotations


def intervals(fw, steps, top=2000, accel=20000):
    ramp = fw.motion.Ramp(steps, top, accel)
    out = []
    while (i := ramp.next_interval_us()) is not None:
        out.append(i)
    return out


def test_a_long_move_speeds_up_cruises_and_slows_down(fw):
    got = intervals(fw, 400)
    assert len(got) == 400
    peak = got.index(min(got))
    assert all(a >= b for a, b in zip(got[:peak], got[1:peak + 1])), "intervals shrink while speeding up"
    tail = got[len(got) - peak - 1:]
    assert all(a <= b for a, b in zip(tail, tail[1:])), "intervals grow while braking"
    assert got[0] > 5 * min(got)                       # it really starts slowly
    assert min(got) == 500                             # 2000 steps/s at the top: 500 us
    assert got.count(500) > 200                        # a long cruise in the middle


def test_the_ramp_is_symmetric_so_the_floor_brakes_as_it_started(fw):
    got = intervals(fw, 400)
    assert got[:50] == got[::-1][:50]


def test_a_short_move_never_reaches_top_speed(fw):
    got = intervals(fw, 20)
    assert len(got) == 20 and min(got) > 500
    assert got.index(min(got)) in (9, 10)              # fastest in the middle


def test_a_single_step_still_happens(fw):
    assert len(intervals(fw, 1)) == 1
    assert intervals(fw, 0) == []


def test_planned_duration_is_close_to_the_sum_of_intervals(fw):
    # The watchdog allows twice this plus a second, so it must never be far too short.
    for steps in (30, 400, 3000):
        ramp = fw.motion.Ramp(steps, 2000, 20000)
        total = sum(intervals(fw, steps)) / 1e6
        assert 0.9 * total <= ramp.duration_s() <= 1.3 * total, steps


def test_pio_delay_makes_the_step_take_the_interval(fw):
    # pull + mov + set(pins,1)[15] + set(pins,0) = 19 cycles, then count+1 in the loop.
    for interval in (100, 500, 12345):
        count = fw.motion.pio_delay(interval, 16)
        assert 1 + 1 + 16 + 1 + count + 1 == interval
    assert fw.motion.pio_delay(5, 16) == 0             # never a negative loop count
