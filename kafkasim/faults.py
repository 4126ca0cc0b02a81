"""Faults injected on a chosen member at a chosen instant (RaftScope-style).

Each fault is a small frozen record; `simulate` schedules it. Member names are the scenario's
consumer names: "c-1" ... "c-N" (and "c-N+1" ... for members added by ScaleOut).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import ConfigError

if TYPE_CHECKING:
    from .scenario import World


def _check(name: str, value, low: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low} (ms or count), got {value!r}")


@dataclass(frozen=True)
class Fault:
    member: str
    at_ms: int

    def __post_init__(self):
        _check(f"{type(self).__name__}.at_ms", self.at_ms)
        for field in ("duration_ms", "delay_ms", "count"):
            if hasattr(self, field):
                _check(f"{type(self).__name__}.{field}", getattr(self, field), 1 if field == "count" else 0)

    def schedule(self, world: "World") -> None:
        world.sim.at(self.at_ms, self.apply, world)

    def apply(self, world: "World") -> None:
        raise NotImplementedError

    def label(self) -> str:
        return f"{type(self).__name__} {self.member} at {self.at_ms / 1000:g} s"


@dataclass(frozen=True)
class Crash(Fault):
    """The process dies: no LeaveGroup, no callbacks; the coordinator notices after session.timeout.ms."""

    def apply(self, world):
        world.consumer(self.member).crash()


@dataclass(frozen=True)
class Restart(Fault):
    """Crash, then a new process with the same configuration after `delay_ms`
    (a static member comes back with its group.instance.id)."""

    delay_ms: int = 30_000

    def apply(self, world):
        consumer = world.consumer(self.member)
        consumer.crash()
        world.sim.schedule(self.delay_ms, consumer.start)

    def label(self):
        return f"Restart {self.member} at {self.at_ms / 1000:g} s (down {self.delay_ms / 1000:g} s)"


@dataclass(frozen=True)
class Pause(Fault):
    """A stop-the-world pause such as a long GC: every thread of the process is frozen."""

    duration_ms: int = 10_000

    def apply(self, world):
        world.consumer(self.member).freeze(self.duration_ms)

    def label(self):
        return f"Pause {self.member} for {self.duration_ms / 1000:g} s at {self.at_ms / 1000:g} s"


@dataclass(frozen=True)
class SlowProcessing(Fault):
    """The poll thread is stuck (a slow call, a lock) while the heartbeat thread keeps running."""

    duration_ms: int = 60_000

    def apply(self, world):
        world.consumer(self.member).stall(self.duration_ms)

    def label(self):
        return f"SlowProcessing {self.member} for {self.duration_ms / 1000:g} s at {self.at_ms / 1000:g} s"


@dataclass(frozen=True)
class NetworkCut(Fault):
    """Requests and responses between the member and the coordinator are lost."""

    duration_ms: int = 30_000

    def apply(self, world):
        world.consumer(self.member).cut_network(self.duration_ms)

    def label(self):
        return f"NetworkCut {self.member} for {self.duration_ms / 1000:g} s at {self.at_ms / 1000:g} s"


@dataclass(frozen=True)
class ScaleOut:
    """`count` new consumers start at `at_ms` (named after the existing ones)."""

    at_ms: int
    count: int = 1

    def __post_init__(self):
        _check("ScaleOut.at_ms", self.at_ms)
        _check("ScaleOut.count", self.count, 1)

    def schedule(self, world):
        for _ in range(self.count):
            world.add_consumer(start_ms=self.at_ms)

    def label(self):
        return f"ScaleOut +{self.count} at {self.at_ms / 1000:g} s"


@dataclass(frozen=True)
class ScaleIn:
    """The named members shut down gracefully at `at_ms` (LeaveGroup for dynamic members)."""

    at_ms: int
    members: tuple[str, ...]

    def __post_init__(self):
        _check("ScaleIn.at_ms", self.at_ms)
        if isinstance(self.members, str):
            object.__setattr__(self, "members", (self.members,))

    def schedule(self, world):
        for name in self.members:
            world.sim.at(self.at_ms, world.consumer(name).close)

    def label(self):
        return f"ScaleIn {', '.join(self.members)} at {self.at_ms / 1000:g} s"


ALL = (Crash, Restart, Pause, SlowProcessing, NetworkCut, ScaleOut, ScaleIn)
