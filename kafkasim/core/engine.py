"""A small deterministic discrete-event engine in integer milliseconds.

In the spirit of SimPy's `Environment`: a heap of (time, sequence, timer). The sequence number
makes timers due at the same millisecond run in the order they were scheduled, and every random
draw comes from streams seeded by the simulation seed, so one seed gives one event log, byte for
byte. Models never sleep or read the wall clock: they schedule callbacks and write events.
"""

from __future__ import annotations

import gc
import heapq
import random
from itertools import count
from typing import Any, Callable

from kafkasim.core.events import EventLog

_heappush = heapq.heappush  # bound once: scheduling is on every event's path


class Timer(list):
    """A scheduled callback; `cancel()` stops it from running (lazily removed from the heap).

    It is its own heap entry, ``[time, sequence, fn, args]``: lists compare by time, then by the
    unique sequence number, so timers due together run in the order they were scheduled. Being a
    list rather than an object with attributes halves the engine's cost per event.
    """

    __slots__ = ()

    @property
    def time(self) -> int:
        return self[0]

    @property
    def seq(self) -> int:
        """The timer's number: timers are numbered one by one as they are scheduled."""
        return self[1]

    @property
    def fn(self) -> Callable[..., Any] | None:
        return self[2]

    @property
    def cancelled(self) -> bool:
        return self[2] is None

    @property
    def active(self) -> bool:
        return self[2] is not None

    def cancel(self) -> None:
        self[2] = None
        self[3] = ()  # drop references now rather than when the entry leaves the heap

    def __repr__(self) -> str:
        state = "cancelled" if self.cancelled else "active"
        return f"Timer(at={self.time}, fn={getattr(self.fn, '__qualname__', self.fn)}, {state})"


class SimulationStalled(RuntimeError):
    """The clock stopped moving: too many events at one millisecond (a timer that keeps firing
    again at once). The message names the last callback and what it belongs to."""


class TooManyEvents(RuntimeError):
    """The simulation ran more events than `Simulation.max_events` allows. The message names the
    last callback and what it belongs to."""


class Simulation:
    """The clock, the timer heap, the seeded random streams and the shared event log.

    `advance(ms)` runs each due timer at its exact time. `jump(ms)` reproduces the mock timers of
    Kafka's own unit tests: the clock moves first and every due timer then runs at the new time
    (`MockTime.sleep` with `MockTimer`), so Kafka test scenarios can be replayed step for step.
    """

    #: Events that may run at one millisecond before the run is stopped as stalled: far above the
    #: 100,000-member join storm's (about 3 per member), far below what fills memory.
    max_events_per_instant = 1_000_000
    #: Events that may run in one simulated second (None: no bound). A run sets it from its size
    #: (`kafkasim.scenario.world.MAX_EVENTS_PER_MEMBER_SECOND`): a clock that creeps forward a
    #: millisecond at a time under a flood of timers is stopped like one that stands still.
    max_events_per_second: int | None = None
    #: Events a simulation may run in all (None: no bound), checked as the clock enters each
    #: simulated second. The tests set one (tests/conftest.py), so that a run that runs away stops
    #: within seconds, saying what kept it going, instead of at the test's time limit.
    max_events: int | None = None

    def __init__(self, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {seed!r}")
        self.seed = seed
        self.now = 0
        self.events = EventLog()
        self.stats = {"events": 0}
        self._heap: list[Timer] = []
        self._seq = count()
        self.last_scheduled: Timer | None = None  # lets a model join a timer scheduled just before
        self._streams: dict[str, random.Random] = {}
        self._jumping = False  # during jump(), a deadline already passed is allowed: it runs in deadline order

    # -- random streams -------------------------------------------------------------------
    def random(self, stream: str = "default") -> random.Random:
        """An independent random stream per model, so adding draws in one leaves the others unchanged."""
        rng = self._streams.get(stream)
        if rng is None:
            rng = self._streams[stream] = random.Random(f"{self.seed}/{stream}")
        return rng

    # -- scheduling -----------------------------------------------------------------------
    def at(self, time: int, fn: Callable[..., Any], *args: Any) -> Timer:
        """Run `fn(*args)` at absolute time `time` (ms, not before now)."""
        if time.__class__ is not int:
            time = int(time)
        if time < self.now and not self._jumping:
            raise ValueError(f"cannot schedule at {time} ms: the clock is already at {self.now} ms")
        timer = Timer((time, next(self._seq), fn, args))
        self.last_scheduled = timer
        _heappush(self._heap, timer)
        return timer

    def schedule(self, delay: int, fn: Callable[..., Any], *args: Any) -> Timer:
        """Run `fn(*args)` after `delay` ms."""
        if delay < 0:
            raise ValueError(f"delay must be >= 0 ms, got {delay}")
        return self.at(self.now + delay, fn, *args)

    def peek(self) -> int | None:
        """Time of the next active timer, or None."""
        heap = self._heap
        while heap and heap[0][2] is None:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    # -- running --------------------------------------------------------------------------
    def _run_due(self, until: int, at_until: bool) -> None:
        """Run due timers in (time, scheduling order).

        Python's cyclic garbage collector is paused meanwhile: a run appends millions of event
        tuples, and the collector would rescan them again and again (half the time of a large
        run) while finding nothing, since the models free what they drop by reference counting.
        Any cycles are collected when it resumes, after the run.
        """
        heap = self._heap
        pop = heapq.heappop
        ran = 0
        # The guards cost one comparison per event: the limits are turned into event counts
        # (`stop`, `second_stop`) when the clock enters a new millisecond or simulated second, and
        # the clock itself is only written when it moves.
        instant, stop, budget = None, 0, self.max_events_per_instant
        second_end, second_stop = -1, 0
        per_second = self.max_events_per_second or float("inf")
        left = float("inf") if self.max_events is None else self.max_events - self.stats["events"]
        if at_until:
            self.now = until
        collecting = gc.isenabled()
        gc.disable()
        try:
            while heap and heap[0][0] <= until:
                timer = pop(heap)
                fn = timer[2]
                if fn is None:  # cancelled
                    continue
                timer[2] = None  # a timer runs once
                if timer[0] != instant:
                    instant, stop = timer[0], ran + budget
                    if instant >= second_end:
                        second_end, second_stop = instant - instant % 1000 + 1000, ran + per_second
                        if ran >= left:
                            raise TooManyEvents(_too_many(instant, self.max_events, fn, timer[3]))
                    elif ran >= second_stop:
                        raise SimulationStalled(_crawling(second_end - 1000, per_second, fn, timer[3]))
                    if not at_until:
                        self.now = instant
                elif ran >= stop:
                    raise SimulationStalled(_stalled(instant, budget, fn, timer[3]))
                ran += 1
                fn(*timer[3])
        finally:
            self.stats["events"] += ran
            if collecting:
                gc.enable()

    def advance(self, ms: int) -> None:
        """Run every timer due up to now+ms, each at its exact time; then the clock reads now+ms."""
        if ms < 0:
            raise ValueError(f"cannot advance by a negative time ({ms} ms)")
        target = self.now + int(ms)
        self._run_due(target, at_until=False)
        self.now = target

    def jump(self, ms: int) -> None:
        """Kafka MockTimer semantics: move the clock by `ms`, then run every due timer at the new time."""
        if ms < 0:
            raise ValueError(f"cannot jump by a negative time ({ms} ms)")
        self.now += int(ms)
        self._jumping = True
        try:
            self._run_due(self.now, at_until=True)
        finally:
            self._jumping = False

    def run(self, until: int | None = None) -> None:
        """Run until no timer is left, or up to absolute time `until` (the clock then reads `until`)."""
        if until is None:
            self._run_due(float("inf"), at_until=False)  # type: ignore[arg-type]
        else:
            self.advance(max(0, int(until) - self.now))


def _owner(fn: Callable[..., Any], args: tuple) -> str:
    """`Consumer._heartbeat_tick of c-1`: the callback and the entity it belongs to."""
    owner = getattr(fn, "__self__", None) or (args[0] if args else None)
    name = getattr(owner, "name", None) or getattr(owner, "group_id", None) or type(owner).__name__
    return f"{getattr(fn, '__qualname__', fn)} of {name}"


def _stalled(time: int, budget: int, fn: Callable[..., Any], args: tuple) -> str:
    return (f"the simulation is stuck at {time} ms: more than {budget:,} events ran at this one millisecond, "
            f"the last {_owner(fn, args)}. A setting lets a timer fire again without time passing (a 0 ms "
            f"interval, backoff or timeout); give it at least 1 ms.")


def _too_many(time: int, limit: int, fn: Callable[..., Any], args: tuple) -> str:
    return (f"the simulation ran its {limit:,} events (Simulation.max_events) by {time:,} ms, the last "
            f"{_owner(fn, args)}: a model keeps scheduling work, or the run is larger than that bound.")


def _crawling(second: int, budget: int, fn: Callable[..., Any], args: tuple) -> str:
    return (f"the simulation is barely moving at {second:,} ms: more than {budget:,} events ran in one simulated "
            f"second, the last {_owner(fn, args)}. A setting makes a timer fire far more often than Kafka's "
            f"clients do (an interval, backoff or timeout of a millisecond or so); give it a realistic value.")
