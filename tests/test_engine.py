"""The engine: integer-ms clock, cancellable timers, FIFO order at equal times, seeded streams."""

import pytest

from kafkasim import Simulation


def test_timers_run_at_their_exact_time_in_time_order():
    sim = Simulation()
    seen = []
    sim.schedule(30, lambda: seen.append(("c", sim.now)))
    sim.schedule(10, lambda: seen.append(("a", sim.now)))
    sim.schedule(20, lambda: seen.append(("b", sim.now)))
    sim.advance(25)
    assert seen == [("a", 10), ("b", 20)]
    assert sim.now == 25
    sim.advance(5)  # a timer due exactly at now+ms runs
    assert seen[-1] == ("c", 30)


def test_equal_times_run_in_scheduling_order():
    sim = Simulation()
    seen = []
    for name in "xyzw":
        sim.at(5, seen.append, name)
    sim.run()
    assert seen == list("xyzw")


def test_cancelled_timer_never_runs():
    sim = Simulation()
    seen = []
    t = sim.schedule(5, seen.append, "no")
    sim.schedule(6, seen.append, "yes")
    t.cancel()
    sim.run()
    assert seen == ["yes"]
    assert not t.active


def test_callbacks_can_schedule_more_work_and_run_until_stops_the_clock():
    sim = Simulation()
    ticks = []

    def tick():
        ticks.append(sim.now)
        sim.schedule(100, tick)

    sim.schedule(0, tick)
    sim.run(until=450)
    assert ticks == [0, 100, 200, 300, 400]
    assert sim.now == 450


def test_jump_runs_due_timers_at_the_new_time_like_kafkas_mock_timer():
    sim = Simulation()
    seen = []

    def rearm():
        seen.append(sim.now)
        if len(seen) < 3:
            sim.schedule(10, rearm)

    sim.schedule(10, rearm)
    sim.jump(50)  # fires at 50 (not 10); re-armed timers start from 50
    assert seen == [50]
    sim.jump(10)
    assert seen == [50, 60]


def test_advance_and_schedule_reject_bad_input():
    sim = Simulation()
    with pytest.raises(ValueError, match="negative"):
        sim.advance(-1)
    with pytest.raises(ValueError, match="delay"):
        sim.schedule(-5, print)
    sim.advance(10)
    with pytest.raises(ValueError, match="already at 10"):
        sim.at(5, print)
    with pytest.raises(TypeError):
        Simulation(seed="x")


def test_random_streams_are_seeded_and_independent():
    a, b = Simulation(seed=7), Simulation(seed=7)
    assert [a.random("x").random() for _ in range(3)] == [b.random("x").random() for _ in range(3)]
    # drawing from another stream does not shift this one
    c = Simulation(seed=7)
    c.random("other").random()
    assert c.random("x").random() == Simulation(seed=7).random("x").random()
    assert Simulation(seed=8).random("x").random() != Simulation(seed=7).random("x").random()


def test_peek_skips_cancelled_timers():
    sim = Simulation()
    t = sim.schedule(5, print)
    sim.schedule(9, print)
    t.cancel()
    assert sim.peek() == 9



def test_timers_are_numbered_one_by_one_as_they_are_scheduled():
    """`Timer.seq`: the classic coordinator counts on it to tell whether anything but its own
    checks was scheduled after a check it wants to add a member to (`_joinable`)."""
    sim = Simulation()
    a = sim.at(50, lambda: None)
    b = sim.schedule(10, lambda: None)
    b.cancel()
    c = sim.at(50, lambda: None)
    assert (b.seq - a.seq, c.seq - b.seq) == (1, 1) and sim.last_scheduled is c
