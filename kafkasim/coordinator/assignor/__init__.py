"""Server-side partition assignors of the consumer protocol (KIP-848): the broker, not the
consumer, computes each member's target assignment.

Not to be confused with `kafkasim.client.assignors` (the classic protocol's client-side
`partition.assignment.strategy`). Kafka's package is
`group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`:

- `uniform` (`UniformAssignor`, the default): balance, then stickiness to the previous target;
- `range` (`RangeAssignor`): co-partitioned contiguous ranges, static members first;
- `simple` (`SimpleAssignor`, KIP-932): share groups' only assignor, where a partition may go to
  several members (`simple_share_assign` is its pure form);
- a learner's own object with `name` and `assign(members, topics)` (`PluggableAssignor`).

`group.consumer.assignors` lists them; the first is the default (`GroupCoordinatorConfig`, 4.0+
default `uniform,range`; Kafka also accepts the class names, as does `server_assignors`).

May import: `kafkasim.core`.
"""

from __future__ import annotations

from typing import Any, Iterable

from kafkasim.coordinator.assignor.range import RangeAssignor
from kafkasim.coordinator.assignor.simple import SimpleAssignor, simple_share_assign
from kafkasim.coordinator.assignor.spec import (
    HETEROGENEOUS, HOMOGENEOUS, GroupSpec, PartitionAssignorException, PluggableAssignor)
from kafkasim.coordinator.assignor.uniform import UniformAssignor
from kafkasim.core.errors import ConfigError

ASSIGNORS_CONFIG = "group.consumer.assignors"

#: Kafka 4.x default of `group.consumer.assignors`.
DEFAULT_ASSIGNORS = ("uniform", "range")

#: The class names Kafka 3.7-3.9 used as defaults, accepted as aliases.
_CLASS_NAMES = {
    "org.apache.kafka.coordinator.group.assignor.UniformAssignor": "uniform",
    "org.apache.kafka.coordinator.group.assignor.RangeAssignor": "range",
}


def builtin_assignor(name: str, stable_extra: bool = True):
    """A built-in assignor by name or Kafka class name ("uniform", "range")."""
    short = _CLASS_NAMES.get(name, name)
    if short == "uniform":
        return UniformAssignor(stable_extra=stable_extra)
    if short == "range":
        return RangeAssignor()
    raise ConfigError(f"Invalid value {name!r} for configuration {ASSIGNORS_CONFIG}: unknown assignor; valid "
                      f"values: 'uniform', 'range', their Kafka class names, or an object with `name` and "
                      f"`assign(members, topics)`")


def server_assignors(entries: Iterable[Any] | None, stable_extra: bool = True) -> dict[str, Any]:
    """Resolve `group.consumer.assignors` entries to assignors keyed by name, in order.

    The first entry is the default. Names must be unique (Kafka 4.2+ validator
    `anyNonDuplicateValues`; earlier versions let a duplicate silently shadow the first).
    """
    if entries is None:
        entries = DEFAULT_ASSIGNORS
    if isinstance(entries, str):  # Kafka's list syntax: "uniform,range"
        entries = [e.strip() for e in entries.split(",")]
    elif not isinstance(entries, Iterable) or hasattr(entries, "assign"):
        entries = [entries]
    resolved: dict[str, Any] = {}
    for entry in entries:
        if isinstance(entry, str) and not entry:
            raise ConfigError(f"Invalid value '' for configuration {ASSIGNORS_CONFIG}: Empty value not allowed")
        assignor = builtin_assignor(entry, stable_extra) if isinstance(entry, str) else PluggableAssignor(entry)
        if assignor.name in resolved:
            raise ConfigError(f"Invalid value {assignor.name!r} for configuration {ASSIGNORS_CONFIG}: "
                              f"Values must not be duplicated")
        resolved[assignor.name] = assignor
    if not resolved:
        raise ConfigError(f"Invalid value [] for configuration {ASSIGNORS_CONFIG}: at least one assignor is required")
    return resolved


__all__ = ["UniformAssignor", "RangeAssignor", "SimpleAssignor", "simple_share_assign", "PluggableAssignor", "GroupSpec", "PartitionAssignorException",
           "HOMOGENEOUS", "HETEROGENEOUS", "DEFAULT_ASSIGNORS", "ASSIGNORS_CONFIG", "builtin_assignor",
           "server_assignors"]
