"""Per-group dynamic configs (`kafka-configs --entity-type groups`, IncrementalAlterConfigs on a
GROUP resource): Kafka's `GroupConfig` and `GroupConfigManager` (`group-coordinator/src/main/java/
org/apache/kafka/coordinator/group/GroupConfig.java`, `GroupConfigManager.java` at 4.0.0, 4.1.1,
4.2.0). Both modern protocols read them: consumer groups `consumer.session.timeout.ms` and
`consumer.heartbeat.interval.ms`, share groups the `share.*` ones. Kafka keeps them by group id,
so a group need not exist to have configs.

Validation is `GroupConfig.validate`: the names (an unknown one is refused), each value against
its ConfigDef validator, then `validateValues` over the group's full set (the overrides already
stored merged with the new ones, the rest at Kafka's ConfigDef defaults) against the broker's
min/max bounds, in Kafka's order and with its InvalidConfigurationException wording.
Simplified: the 4.3 group configs (KIP-1240 limits, KIP-1263 intervals) and the streams ones are
not modelled (refused as unknown names).

May import: `kafkasim.core`.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from kafkasim.core.config import parse_version
from kafkasim.core.errors import ConfigError, check_range, unknown_name
from kafkasim.core.java import INT_MAX

#: name -> (first version, ConfigDef default, lowest value of its `atLeast` validator, or None for a string).
GROUP_CONFIGS: dict[str, tuple[tuple[int, int], Any, int | None]] = {
    "consumer.session.timeout.ms": ((4, 0), 45000, 1),
    "consumer.heartbeat.interval.ms": ((4, 0), 5000, 1),
    "share.session.timeout.ms": ((4, 0), 45000, 1),
    "share.heartbeat.interval.ms": ((4, 0), 5000, 1),
    "share.record.lock.duration.ms": ((4, 0), 30000, 1000),
    "share.auto.offset.reset": ((4, 0), "latest", None),
    "share.isolation.level": ((4, 1), "read_uncommitted", None),
}

#: `ShareGroupAutoOffsetResetStrategy`: earliest, latest, or by_duration:<ISO-8601 duration, not negative>.
_DURATION = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?", re.IGNORECASE)

#: The bounds each group config is checked against (`GroupConfig.validateValues`), in Kafka's order.
_BOUNDS = (
    ("consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"),
    ("consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms"),
    ("share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms"),
    ("share.session.timeout.ms", "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"),
    ("share.record.lock.duration.ms", "group.share.min.record.lock.duration.ms",
     "group.share.max.record.lock.duration.ms"),
)


def duration_ms(text: str) -> int | None:
    """An ISO-8601 duration (`PnDTnHnMn.nS`, as Java's `Duration.parse`) in ms; None if invalid."""
    match = _DURATION.fullmatch(text.strip())
    if match is None or text.strip().upper() in ("P", "PT"):
        return None
    days, hours, minutes, seconds = (float(g) if g else 0.0 for g in match.groups())
    return int(round(((days * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000))


class GroupConfigs:
    """The group configs of one coordinator, by group id. `bounds` are the broker's min/max
    configs (Kafka names) that `validateValues` checks against."""

    def __init__(self, kafka_version, bounds: Mapping[str, int]):
        self.version = tuple(parse_version(kafka_version))[:2]
        self.bounds = dict(bounds)
        self._configs: dict[str, dict[str, Any]] = {}

    def get(self, group_id: str) -> dict[str, Any]:
        """The group's overrides (a copy; {} when none)."""
        return dict(self._configs.get(group_id, {}))

    def value(self, group_id: str, name: str, default):
        """The group's override of `name`, else `default` (the broker's value)."""
        value = self._configs.get(group_id, {}).get(name)
        return default if value is None else value

    def set(self, group_id: str, configs: Mapping[str, Any]) -> None:
        """Apply IncrementalAlterConfigs: each name set (None deletes it), validated as a whole."""
        if not isinstance(configs, Mapping):
            raise ConfigError(f"group configs must be a dict of Kafka config names, got {type(configs).__name__}")
        known = {n for n, (since, _, _) in GROUP_CONFIGS.items() if self.version >= since}
        merged = dict(self._configs.get(group_id, {}))
        for name, value in configs.items():
            if name not in known:
                raise unknown_name("group", name, known)
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = _checked(name, value)
        self._validate(merged)
        if merged:
            self._configs[group_id] = merged
        else:
            self._configs.pop(group_id, None)

    def _validate(self, merged: Mapping[str, Any]) -> None:
        values = {n: merged.get(n, default) for n, (_, default, _) in GROUP_CONFIGS.items()}
        for name, low, high in _BOUNDS:
            if values[name] < self.bounds[low]:
                raise ConfigError(f"{name} must be greater than or equal to {low}")
            if values[name] > self.bounds[high]:
                raise ConfigError(f"{name} must be less than or equal to {high}")
        for session, interval in (("consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"),
                                  ("share.session.timeout.ms", "share.heartbeat.interval.ms")):
            if values[session] <= values[interval]:
                raise ConfigError(f"{session} must be greater than {interval}")


def _checked(name: str, value):
    """One value against its ConfigDef validator (`atLeast`, the reset strategy, `in(...)`)."""
    low = GROUP_CONFIGS[name][2]
    if low is not None:
        return check_range(name, value, low, INT_MAX)
    if not isinstance(value, str):
        raise ConfigError(f"Invalid value {value!r} for configuration {name}: Expected value to be a string")
    text = value.strip().lower()
    if name == "share.isolation.level":
        if text not in ("read_committed", "read_uncommitted"):
            raise ConfigError(f"Invalid value {value} for configuration {name}: String must be one of: "
                              "read_committed, read_uncommitted")
        return text
    if text in ("earliest", "latest"):
        return text
    if text.startswith("by_duration:"):
        period = value.strip()[len("by_duration:"):]
        if period.startswith("-"):
            raise ConfigError(f"Invalid value {value} for configuration {name}: Duration must be non-negative")
        if duration_ms(period) is None:
            raise ConfigError(f"Invalid value {value} for configuration {name}: Unable to parse duration string")
        return "by_duration:" + period
    raise ConfigError(f"Invalid value {value} for configuration {name}: Invalid value `{text}` for configuration "
                      f"{name}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS.>'.")


__all__ = ["GroupConfigs", "GROUP_CONFIGS", "duration_ms"]
