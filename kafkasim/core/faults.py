"""Faults injected on a chosen member at a chosen instant (RaftScope-style).

Each fault is a small frozen record; `simulate` schedules it. Member names are the scenario's
consumer names: "c-1" ... "c-N" (and "c-N+1" ... for members added by ScaleOut).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError, check_int


class World(Protocol):
    """What a fault acts on: a run's clock and its consumers by name (kafkasim.scenario.world.World
    and the ZooKeeper consumer's world both provide it)."""

    sim: Simulation

    def consumer(self, name: str) -> Any: ...

    def add_consumer(self, start_ms: int) -> Any: ...

    def replace_consumer(self, name: str, changes: dict) -> Any: ...


def _check_member(field: str, name) -> None:
    """A member is named as the scenario names its consumers: "c-1", "c-2", ..."""
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{field} must be a member's name such as 'c-1', got {name!r}")


@dataclass(frozen=True)
class Fault:
    member: str
    at_ms: int

    def __post_init__(self):
        _check_member(f"{type(self).__name__}.member", self.member)
        check_int(f"{type(self).__name__}.at_ms", self.at_ms, 0)
        for field in ("duration_ms", "delay_ms"):
            if hasattr(self, field):
                check_int(f"{type(self).__name__}.{field}", getattr(self, field), 0)

    def schedule(self, world: World) -> None:
        world.sim.at(self.at_ms, self.apply, world)

    def apply(self, world: World) -> None:
        raise NotImplementedError

    def short_label(self) -> str:
        """The fault and whom it hits, as a chart marks it: "Pause c-2"."""
        return f"{type(self).__name__} {self.member}"

    def label(self) -> str:
        """The whole fault in words: "Pause c-2 for 50 s at 60 s"."""
        span = f" for {self.duration_ms / 1000:g} s" if hasattr(self, "duration_ms") else ""
        return f"{self.short_label()}{span} at {self.at_ms / 1000:g} s"


@dataclass(frozen=True)
class Crash(Fault):
    """The process dies: no LeaveGroup, no callbacks; the coordinator notices after session.timeout.ms."""

    def apply(self, world):
        world.consumer(self.member).crash()


@dataclass(frozen=True)
class Restart(Fault):
    """Crash, then a new process with the same configuration after `delay_ms`
    (a static member comes back with its group.instance.id). With `graceful=True` the process
    shuts down cleanly instead (`close()`: commit, onPartitionsRevoked, leave), as in a rolling
    restart; a static member's close keeps its place in the group for the session timeout.
    The new process never starts before the old one has stopped (a frozen process closes when it
    thaws). With `consumer`, the new process runs with those consumer configs changed."""

    delay_ms: int = 30_000
    graceful: bool = False
    consumer: dict | None = None

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.graceful, bool):
            raise ConfigError(f"Restart.graceful must be True or False, got {self.graceful!r}")
        if self.consumer is not None and not isinstance(self.consumer, dict):
            raise ConfigError(f"Restart.consumer must be a dict of consumer configs to change, e.g. "
                              f"{{'group.protocol': 'consumer'}}, got {self.consumer!r}")

    def apply(self, world):
        consumer = world.consumer(self.member)
        if self.graceful:
            consumer.close()  # a frozen process, or one in the middle of a batch, closes later
        else:
            consumer.crash()
        world.sim.schedule(self.delay_ms, consumer.when_stopped, lambda: self._start(world, consumer))

    def _start(self, world, old) -> None:
        if self.consumer:  # an upgrade: the new process runs with other configs
            world.replace_consumer(self.member, self.consumer)
        else:
            old.start()

    def label(self):
        how = "graceful, " if self.graceful else ""
        changes = "".join(f", {k}={v}" for k, v in (self.consumer or {}).items())
        return f"{self.short_label()} at {self.at_ms / 1000:g} s ({how}down {self.delay_ms / 1000:g} s{changes})"


def rolling_restart(members, start_ms: int, every_ms: int, delay_ms: int = 10_000,
                    consumer: dict | None = None) -> tuple[Restart, ...]:
    """A rolling restart (graceful, one member every `every_ms`), the way a deployment upgrades a
    group; with `consumer` (e.g. `{"group.protocol": "consumer"}`) each comes back with those
    configs changed: the online migration of KIP-848."""
    check_int("rolling_restart every_ms", every_ms, 1)
    return tuple(Restart(m, start_ms + i * every_ms, delay_ms, graceful=True, consumer=consumer)
                 for i, m in enumerate(members))


@dataclass(frozen=True)
class Pause(Fault):
    """A stop-the-world pause such as a long GC: every thread of the process is frozen."""

    duration_ms: int = 10_000

    def apply(self, world):
        world.consumer(self.member).freeze(self.duration_ms)


@dataclass(frozen=True)
class SlowProcessing(Fault):
    """The poll thread is stuck (a slow call, a lock) while the heartbeat thread keeps running."""

    duration_ms: int = 60_000

    def apply(self, world):
        world.consumer(self.member).stall(self.duration_ms)


@dataclass(frozen=True)
class NetworkCut(Fault):
    """Requests and responses between the member and the coordinator are lost."""

    duration_ms: int = 30_000

    def apply(self, world):
        world.consumer(self.member).cut_network(self.duration_ms)


@dataclass(frozen=True)
class GroupChange:
    """A change to the group's membership at `at_ms`, not a fault of one member."""

    at_ms: int

    def short_label(self) -> str:
        raise NotImplementedError

    def label(self) -> str:
        return f"{self.short_label()} at {self.at_ms / 1000:g} s"


@dataclass(frozen=True)
class ScaleOut(GroupChange):
    """`count` new consumers start at `at_ms` (named after the existing ones)."""

    count: int = 1

    def __post_init__(self):
        check_int("ScaleOut.at_ms", self.at_ms, 0)
        check_int("ScaleOut.count", self.count, 1)

    def schedule(self, world):
        for _ in range(self.count):
            world.add_consumer(start_ms=self.at_ms)

    def short_label(self) -> str:
        return f"ScaleOut +{self.count}"


@dataclass(frozen=True)
class ScaleIn(GroupChange):
    """The named members shut down gracefully at `at_ms` (LeaveGroup for dynamic members)."""

    members: tuple[str, ...]

    def __post_init__(self):
        check_int("ScaleIn.at_ms", self.at_ms, 0)
        if isinstance(self.members, str):
            object.__setattr__(self, "members", (self.members,))
        if not isinstance(self.members, (tuple, list)) or not self.members:
            raise ConfigError(f"ScaleIn.members must name at least one member, e.g. ('c-2',), got {self.members!r}")
        object.__setattr__(self, "members", tuple(self.members))
        for name in self.members:
            _check_member("ScaleIn.members", name)

    def schedule(self, world):
        for name in self.members:  # the member's process at `at_ms`: a Restart with new configs replaces it
            world.sim.at(self.at_ms, lambda name=name: world.consumer(name).close())

    def short_label(self) -> str:
        return f"ScaleIn {', '.join(self.members)}"


@dataclass(frozen=True)
class PoisonRecord:
    """A record whose processing always fails (share groups only): the application acknowledges it
    with `ack` every time it is delivered, RELEASE (redelivered until the delivery limit archives
    it, group.share.delivery.count.limit) or REJECT (archived at once), and ACCEPTs the others.
    Acknowledging one record needs share.acknowledgement.mode=explicit (KIP-932)."""

    topic: str
    partition: int
    offset: int
    ack: str = "RELEASE"

    def __post_init__(self):
        if not isinstance(self.topic, str) or not self.topic:
            raise ConfigError(f"PoisonRecord.topic must be a topic name, got {self.topic!r}")
        check_int("PoisonRecord.partition", self.partition, 0)
        check_int("PoisonRecord.offset", self.offset, 0)
        if self.ack not in ("RELEASE", "REJECT"):
            raise ConfigError(f"PoisonRecord.ack must be 'RELEASE' (redelivered until the delivery limit) or "
                              f"'REJECT' (archived at once), got {self.ack!r}")

    @property
    def at_ms(self) -> int:
        return 0

    def schedule(self, world) -> None:
        world.add_poison(self)

    def short_label(self) -> str:
        return f"PoisonRecord {self.topic}-{self.partition}@{self.offset}"

    def label(self) -> str:
        return f"{self.short_label()} ({self.ack} each delivery)"


ALL = (Crash, Restart, Pause, SlowProcessing, NetworkCut, ScaleOut, ScaleIn, PoisonRecord)
