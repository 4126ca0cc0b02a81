"""Per-group dynamic configs (`kafka-configs --entity-type groups`, IncrementalAlterConfigs on a
GROUP resource): Kafka's `GroupConfig` and `GroupConfigManager` (`group-coordinator/src/main/java/
org/apache/kafka/coordinator/group/GroupConfig.java`, `GroupConfigManager.java` at 4.0.0, 4.1.1,
4.2.0). Both modern protocols read them: consumer groups `consumer.session.timeout.ms` and
`consumer.heartbeat.interval.ms`, share groups the `share.*` ones. Kafka keeps them by group id,
so a group need not exist to have configs.

Validation is `GroupConfig.validate`: the names (an unknown one is refused), each value against
its ConfigDef validator, then `validateValues` over the group's full set (the overrides already
stored merged with the new ones) against the broker's min/max bounds, in Kafka's order and with its
InvalidConfigurationException wording, which changed twice:
- 4.0-4.2: the configs not set are at their ConfigDef defaults; "X must be greater than or equal
  to <broker min config>" / "less than or equal to <broker max config>";
- 4.3 (v8.3.x): the configs not set are at the broker's values (`extractGroupConfigMap`); the
  KIP-1240 share limits (`share.delivery.count.limit`, `share.partition.max.record.locks`, with
  `share.renew.acknowledge.enable`) and KIP-1263's `share.assignment.interval.ms` (checked only
  when set, KAFKA-20337) join;
- 4.4 (branch 4.4): only the configs set are checked, "X must be in the range MIN to MAX
  inclusive.", the session timeout against the interval with the broker's value for the one not
  set; KIP-1191's `errors.deadletterqueue.topic.name` (not starting with "__") and
  `errors.deadletterqueue.copy.record.enable` join.
4.3's `consumer.assignment.interval.ms` (KIP-1263) is read by the consumer groups' manager.
Simplified: the streams configs are not modelled (refused as unknown names), nor the internal
`consumer.assignor.offload.enable` / `share.assignor.offload.enable`.

May import: `kafkasim.core`.
"""

from __future__ import annotations

from typing import Any, Mapping

from kafkasim.core.config import java_duration_nanos, parse_version
from kafkasim.core.errors import ConfigError, check_range, unknown_name
from kafkasim.core.java import INT_MAX

#: name -> (first version, ConfigDef default, lowest value of its `atLeast` validator, or None for a
#: string, or "boolean").
GROUP_CONFIGS: dict[str, tuple[tuple[int, int], Any, Any]] = {
    "consumer.session.timeout.ms": ((4, 0), 45000, 1),
    "consumer.heartbeat.interval.ms": ((4, 0), 5000, 1),
    "consumer.assignment.interval.ms": ((4, 3), 1000, 0),              # KIP-1263
    "share.session.timeout.ms": ((4, 0), 45000, 1),
    "share.heartbeat.interval.ms": ((4, 0), 5000, 1),
    "share.record.lock.duration.ms": ((4, 0), 30000, 1000),
    "share.auto.offset.reset": ((4, 0), "latest", None),
    "share.isolation.level": ((4, 1), "read_uncommitted", None),
    "share.delivery.count.limit": ((4, 3), 5, 2),                      # KIP-1240
    "share.partition.max.record.locks": ((4, 3), 2000, 100),           # KIP-1240
    "share.renew.acknowledge.enable": ((4, 3), True, "boolean"),       # KIP-1240 (RENEW, KIP-1222)
    "share.assignment.interval.ms": ((4, 3), 1000, 0),                 # KIP-1263
    "errors.deadletterqueue.topic.name": ((4, 4), "", None),           # KIP-1191
    "errors.deadletterqueue.copy.record.enable": ((4, 4), False, "boolean"),  # KIP-1191
}

#: The group config -> the broker config whose value is its default from 4.3 (`GroupConfig`'s synonyms).
_BROKER_SYNONYM = {
    "consumer.session.timeout.ms": "group.consumer.session.timeout.ms",
    "consumer.heartbeat.interval.ms": "group.consumer.heartbeat.interval.ms",
    "share.session.timeout.ms": "group.share.session.timeout.ms",
    "share.heartbeat.interval.ms": "group.share.heartbeat.interval.ms",
    "share.record.lock.duration.ms": "group.share.record.lock.duration.ms",
    "share.delivery.count.limit": "group.share.delivery.count.limit",
    "share.partition.max.record.locks": "group.share.partition.max.record.locks",
    "share.assignment.interval.ms": "group.share.assignment.interval.ms",
    "consumer.assignment.interval.ms": "group.consumer.assignment.interval.ms",
}

#: The bounds each group config is checked against (`GroupConfig.validateValues`), in Kafka's order,
#: with the first version that checks it and whether it is checked only when set (KAFKA-20337).
_BOUNDS = (
    ("consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"),
    ("consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms"),
    ("consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms",
     "group.consumer.max.assignment.interval.ms"),
    ("share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms"),
    ("share.session.timeout.ms", "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"),
    ("share.record.lock.duration.ms", "group.share.min.record.lock.duration.ms",
     "group.share.max.record.lock.duration.ms"),
    ("share.delivery.count.limit", "group.share.min.delivery.count.limit", "group.share.max.delivery.count.limit"),
    ("share.partition.max.record.locks", "group.share.min.partition.max.record.locks",
     "group.share.max.partition.max.record.locks"),
    ("share.assignment.interval.ms", "group.share.min.assignment.interval.ms",
     "group.share.max.assignment.interval.ms"),
)
_ONLY_WHEN_SET = frozenset({"consumer.assignment.interval.ms", "share.assignment.interval.ms"})


class GroupConfigs:
    """The group configs of one coordinator, by group id. `bounds` are the broker's configs (Kafka
    names): the min/max that `validateValues` checks against and, from 4.3, the values of the
    configs a group does not set."""

    def __init__(self, kafka_version, bounds: Mapping[str, Any]):
        self.version = tuple(parse_version(kafka_version))[:2]
        self.bounds = dict(bounds)
        self._configs: dict[str, dict[str, Any]] = {}

    def known(self) -> set[str]:
        """The group config names of this version."""
        return {n for n, (since, _, _) in GROUP_CONFIGS.items() if self.version >= since}

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
        known = self.known()
        merged = dict(self._configs.get(group_id, {}))
        for name, value in configs.items():
            if name not in known:
                raise unknown_name("group", name, known)
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = _checked(name, value, self.version)
        self._validate(merged)
        if merged:
            self._configs[group_id] = merged
        else:
            self._configs.pop(group_id, None)

    def _default(self, name: str):
        """A config the group does not set: the ConfigDef default (4.0-4.2), the broker's value (4.3+)."""
        synonym = _BROKER_SYNONYM.get(name)
        if self.version >= (4, 3) and synonym is not None and self.bounds.get(synonym) is not None:
            return self.bounds[synonym]
        return GROUP_CONFIGS[name][1]

    def _validate(self, merged: Mapping[str, Any]) -> None:
        known = self.known()
        checked = merged if self.version >= (4, 4) else {n: merged.get(n, self._default(n)) for n in known}
        for name, low, high in _BOUNDS:
            if name not in checked or (name in _ONLY_WHEN_SET and name not in merged):
                continue
            value, lo, hi = checked[name], self.bounds[low], self.bounds[high]
            if self.version >= (4, 4):
                if not lo <= value <= hi:
                    raise ConfigError(f"{name} must be in the range {lo} to {hi} inclusive.")
            elif value < lo:
                raise ConfigError(f"{name} must be greater than or equal to {low}")
            elif value > hi:
                raise ConfigError(f"{name} must be less than or equal to {high}")
        # 4.4 compares them only when one is set; with neither set both are the broker's values (ConfigDef's
        # before 4.3), whose session > interval the broker checks at startup, so comparing them always passes.
        for session, interval in (("consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"),
                                  ("share.session.timeout.ms", "share.heartbeat.interval.ms")):
            if merged.get(session, self._default(session)) <= merged.get(interval, self._default(interval)):
                raise ConfigError(f"{session} must be greater than {interval}")
        dlq = merged.get("errors.deadletterqueue.topic.name")
        if dlq is not None and dlq.startswith("__"):
            raise ConfigError("errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'")


def _checked(name: str, value, version: tuple[int, int]):
    """One value against its ConfigDef validator (`atLeast`, the reset strategy, `in(...)`), after
    `ConfigDef.parseType` (a BOOLEAN string in any case; a STRING trimmed, then compared as it is)."""
    low = GROUP_CONFIGS[name][2]
    if low == "boolean":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        if not isinstance(value, bool):
            raise ConfigError(f"Invalid value {value!r} for configuration {name}: Expected value to be either true "
                              "or false")
        return value
    if low is not None:
        return check_range(name, value, low, INT_MAX)
    if not isinstance(value, str):
        raise ConfigError(f"Invalid value {value!r} for configuration {name}: Expected value to be a string, "
                          f"but it was a {type(value).__name__}")
    text = value.strip()
    if name == "errors.deadletterqueue.topic.name":
        return text
    if name == "share.isolation.level":
        if text not in ("read_committed", "read_uncommitted"):
            raise ConfigError(f"Invalid value {text} for configuration {name}: String must be one of: "
                              "read_committed, read_uncommitted")
        return text
    # ShareGroupAutoOffsetResetStrategy.Validator: AutoOffsetResetStrategy.fromString (case-sensitive names,
    # Duration.parse, not negative), any failure in one message; 4.0's spells the format with a stray ".".
    if text in ("earliest", "latest"):
        return text
    nanos = java_duration_nanos(text[len("by_duration:"):]) if text.startswith("by_duration:") else None
    if nanos is not None and nanos >= 0:
        return text
    form = "<PnDTnHnMn.nS.>" if version < (4, 1) else "<PnDTnHnMn.nS>"
    raise ConfigError(f"Invalid value {text} for configuration {name}: Invalid value `{text}` for configuration "
                      f"{name}. The value must be either 'earliest', 'latest' or of the format 'by_duration:{form}'.")


__all__ = ["GroupConfigs", "GROUP_CONFIGS"]
