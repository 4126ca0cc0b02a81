"""Kafka consumer and broker configs by version: defaults, validators and cross-field rules.

Everything here is read from Kafka's own source at the release tags (``git show TAG:path``):

* new consumer: ``clients/src/main/java/org/apache/kafka/clients/consumer/ConsumerConfig.java``
  (the ``ConfigDef`` defaults and validators), plus the checks the client makes when it is built
  (``Heartbeat``, ``KafkaConsumer``, ``JoinGroupRequest.validateGroupInstanceId``,
  ``ConsumerPartitionAssignor.getAssignorInstances``);
* broker: ``core/src/main/scala/kafka/server/KafkaConfig.scala`` (and, in 3.9 and 4.x, the
  ``GroupCoordinatorConfig``/``SocketServerConfigs``/``ServerConfigs``/``ReplicationConfigs`` classes it
  moved to); the KIP-848 ``group.consumer.*`` configs and their startup checks from
  ``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinatorConfig.java`` (3.9+;
  ``KafkaConfig.scala`` in 3.7 and 3.8), and how the coordinator uses its assignor list from
  ``GroupMetadataManager.java``;
* 0.8.2 ZooKeeper consumer: ``core/src/main/scala/kafka/consumer/ConsumerConfig.scala`` @ 0.8.2.2.

The module knows nothing of the simulation: it turns ``(kafka_version, overrides)`` into a plain
dict keyed by Kafka's config names, or raises :class:`~kafkasim.core.errors.ConfigError` with Kafka's
wording. A config that does not exist yet in a version maps to ``None`` in the result (so
``cfg["max.poll.interval.ms"] is None`` means "no poll timer: this is before KIP-62"); overriding
it raises, naming the version that added it.

A version is a release line (``"0.10.1"``, ``"3.7"``) or a release (``"3.7.1"``, ``"0.9.0.1"``).
A line stands for its first release (x.y.0); the only default that
changed inside a line is the new consumer's ``fetch.min.bytes`` (1024 in 0.9.0.0, 1 from 0.9.0.1).
The 4.x lines were read at Apache's tags 4.0.0, 4.1.0 (4.1.1 has the same configs) and 4.2.0-rc1
(4.2.0 itself: Confluent's tag ``v8.2.0``, the same defaults), 4.3 at ``v8.3.0`` (Apache 4.3.0; 4.3.1,
``v8.3.1``, changes no config, only coordinator behaviour, see `kafkasim.coordinator`), 4.4 at the
head of Confluent's ``4.4`` branch (version 8.4.0-0-ccs: the mirror read here holds no final 4.4.0
tag). Where the tags' configs live: ``GroupCoordinatorConfig.java``, ``ConsumerConfig.java``, and the
upgrade notes in ``docs/getting-started/upgrade.md`` (the 4.3 and 4.4 trees have no
``docs/upgrade.html``). 4.3 adds ``group.consumer.assignment.interval.ms`` and its bounds (KIP-1263)
and deprecates ``group.coordinator.rebalance.protocols`` (KIP-1237); for share groups it adds
``group.share.assignment.interval.ms`` and its bounds (KIP-1263, ``GroupCoordinatorConfig``), the
bounds of the per-group delivery limit and record locks (KIP-1240, ``ShareGroupConfig``) and removes
``group.share.enable``; 4.4 adds the share groups' dead-letter-queue cluster configs
``errors.deadletterqueue.auto.create.topics.enable`` and ``errors.deadletterqueue.topic.name.prefix``
(KIP-1191, ``GroupCoordinatorConfig`` at the 4.4 branch) and changes no default of a config listed here. Kafka 4.0 removed configs
(``docs/upgrade.html`` at 4.0.0: ``offsets.commit.required.acks``, ``log.message.format.version``,
``auto.include.jmx.reporter``, the ZooKeeper ones, ...), but none of those listed here: every config
below exists in every 4.x line. The consumer refuses the classic protocol's configs under
``group.protocol=consumer`` from 4.0 (KAFKA-17338), as `consumer_config` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from kafkasim.core.java import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, java_string_hash
from kafkasim.core.errors import ConfigError, check_range, range_text, unknown_name

__all__ = [
    "KAFKA_VERSIONS", "ZOOKEEPER_CONSUMER_VERSION", "ConfigSpec", "CONSUMER_CONFIGS", "BROKER_CONFIGS",
    "ZOOKEEPER_CONSUMER_CONFIGS", "ASSIGNORS", "SERVER_ASSIGNORS", "normalize_version", "parse_version",
    "version_tuple", "check_exists", "consumer_config", "broker_config", "broker_config_warnings",
    "zookeeper_consumer_config", "java_hash_set_order", "java_duration_nanos",
    "generated_client_id", "SHARE_CONSUMER_CONFIGS", "SHARE_GROUP_UNSUPPORTED_CONFIGS", "share_consumer_config",
]


#: Release lines with a group-coordinator consumer (0.9+). 3.9 was read at tag 3.9.0-rc3, 4.0 at 4.0.0,
#: 4.1 at 4.1.0, 4.2 at 4.2.0-rc1 (and Confluent's v8.2.0 = 4.2.0), 4.3 at v8.3.0 (= Apache 4.3.0) and
#: v8.3.1 (4.3.1), 4.4 at the head of Confluent's 4.4 branch (8.4.0-0-ccs; no final 4.4.0 tag was read).
KAFKA_VERSIONS = (
    "0.9", "0.10.0", "0.10.1", "0.10.2", "0.11", "1.0", "1.1",
    "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8",
    "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9",
    "4.0", "4.1", "4.2", "4.3", "4.4",
)
#: The one release of the ZooKeeper consumer that `zookeeper_consumer_config` models.
ZOOKEEPER_CONSUMER_VERSION = "0.8.2"

_LINE_TUPLES = tuple((tuple(int(p) for p in v.split(".")), v) for v in KAFKA_VERSIONS)


# -- versions ---------------------------------------------------------------------------------
def parse_version(version) -> tuple[int, ...]:
    """'3.7' -> (3, 7), '0.10.1' -> (0, 10, 1), as written (trailing zeros kept); ConfigError otherwise."""
    if isinstance(version, tuple) and version and all(isinstance(p, int) and not isinstance(p, bool)
                                                      and p >= 0 for p in version):
        return version
    if isinstance(version, str) and re.fullmatch(r"\d+(\.\d+){1,3}", version.strip()):
        return tuple(int(p) for p in version.strip().split("."))
    raise ConfigError(f"kafka_version must look like '3.7', '0.10.1' or '3.7.1', got {version!r}; "
                      f"supported versions: {', '.join(KAFKA_VERSIONS)}")


def _strip(v: tuple[int, ...]) -> tuple[int, ...]:
    """Drop trailing zeros, so that 3.0 == 3.0.0 and 0.9 < 0.9.0.1 compare as releases do."""
    v = tuple(v)
    while len(v) > 1 and v[-1] == 0:
        v = v[:-1]
    return v


def _v(version) -> tuple[int, ...]:
    """A version as a comparable release tuple (trailing zeros dropped)."""
    return _strip(parse_version(version))


def normalize_version(kafka_version) -> str:
    """The release line (an entry of `KAFKA_VERSIONS`) of a version: "3.7.1" -> "3.7", "0.9.0.1" -> "0.9".

    Raises ConfigError naming the supported versions for anything else (e.g. "0.10", which is
    ambiguous, or "4.3"); 0.8.x points to `zookeeper_consumer_config`.
    """
    v = parse_version(kafka_version)
    for line, key in _LINE_TUPLES:
        if v[:len(line)] == line:
            return key
    hint = ""
    if v[0] == 0 and v[1] < 9:
        hint = (" (Kafka before 0.9 has no group coordinator; the 0.8.2 ZooKeeper consumer is "
                "zookeeper_consumer_config())")
    raise ConfigError(f"Unsupported kafka_version {kafka_version!r}{hint}; supported versions: "
                      f"{', '.join(KAFKA_VERSIONS)} (a release such as '3.7.1' maps to its line)")


def version_tuple(kafka_version) -> tuple[int, ...]:
    """The comparable release tuple of a supported version ("3.0" -> (3,), "0.9.0.1" -> (0, 9, 0, 1))."""
    normalize_version(kafka_version)
    return _v(kafka_version)


# -- the spec of one config -------------------------------------------------------------------
@dataclass(frozen=True)
class ConfigSpec:
    """One Kafka config: its type, defaults by version, validator, doc and history.

    `defaults` is a tuple of ``(first_version, value)`` pairs in version order; the first pair is
    the version that added the config. `low`/`high` are the bounds of Kafka's ``ConfigDef.Range``
    validator (None: no validator on that side); `choices` a ``ValidString`` list, replaced from a
    version on by `choices_history` (``(first_version, choices or None)`` pairs; None: no ValidString,
    `check` validates). `check` is an extra validation ``(spec, value, version_tuple) -> value``;
    `derive` computes the default from the other resolved values when a default "follows" another
    config (0.8 ZooKeeper consumer).
    """

    name: str
    type: str  # "int" (Java int), "long", "boolean", "string" or "list"
    defaults: tuple[tuple[str, Any], ...]
    doc: str
    history: str = ""
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] | None = None
    case_insensitive: bool = False
    nullable: bool = False
    type_history: tuple[tuple[str, str], ...] = ()
    choices_history: tuple[tuple[str, tuple[str, ...] | None], ...] = ()
    check: Callable[["ConfigSpec", Any, tuple], Any] | None = None
    derive: Callable[[dict], Any] | None = None
    added_by: str = ""  # the KIP/Jira that added the config

    @property
    def added(self) -> str:
        """The first version that has this config."""
        return self.defaults[0][0]

    def exists_in(self, kafka_version) -> bool:
        return _v(kafka_version) >= _v(self.added)

    def default(self, kafka_version) -> Any:
        """The default in a version (a fresh list for list configs); None if the config is absent."""
        v = _v(kafka_version)
        value = None
        for first, val in self.defaults:
            if v >= _v(first):
                value = val
        return list(value) if isinstance(value, tuple) else value

    def defaults_by_version(self, versions=KAFKA_VERSIONS) -> dict[str, Any]:
        """{version: default} over `versions` (None where the config does not exist yet)."""
        return {v: self.default(v) for v in versions}

    def type_in(self, kafka_version) -> str:
        v, kind = _v(kafka_version), self.type
        for first, t in self.type_history:
            if v >= _v(first):
                kind = t
        return kind

    def choices_in(self, kafka_version) -> tuple[str, ...] | None:
        """The ``ValidString`` choices in a version (None: no such validator then)."""
        v, choices = _v(kafka_version), self.choices
        for first, c in self.choices_history:
            if v >= _v(first):
                choices = c
        return choices

    @property
    def valid_values(self) -> str:
        """Kafka's description of the valid values, as in its config docs."""
        if self.choices is not None:
            return ("one of (case insensitive): " if self.case_insensitive else "one of: ") + ", ".join(self.choices)
        if self.low is not None and self.high is not None:
            return f"[{self.low},...,{self.high}]"
        if self.low is not None:
            return f"[{self.low},...]"
        if self.high is not None:
            return f"[...,{self.high}]"
        return {"boolean": "true or false", "list": "comma-separated list"}.get(self.type, "any")

    def validate(self, value, kafka_version) -> Any:
        """`value` parsed and validated as Kafka's ConfigDef would, in `kafka_version`."""
        vt = _v(kafka_version)
        if value is None:
            if self.nullable:
                return None
            raise ConfigError(f"Invalid value None for configuration {self.name}: Value must be non-null")
        kind = self.type_in(vt)
        if kind in ("int", "long"):
            bits, lo, hi = (32, INT_MIN, INT_MAX) if kind == "int" else (64, LONG_MIN, LONG_MAX)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                what = "" if isinstance(value, int) and not isinstance(value, bool) else \
                    f", but it was a {type(value).__name__}"
                valid = range_text(lo if self.low is None else self.low, hi if self.high is None else self.high)
                raise ConfigError(f"Invalid value {value!r} for configuration {self.name}: Expected value to be "
                                  f"a {bits}-bit integer{' (long)' if bits == 64 else ''}{what} (valid range: {valid})")
            if self.low is not None or self.high is not None:
                value = check_range(self.name, value, self.low, self.high)
        elif kind == "boolean":
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                value = value.strip().lower() == "true"
            elif not isinstance(value, bool):
                raise ConfigError(f"Invalid value {value!r} for configuration {self.name}: "
                                  "Expected value to be either true or false")
        elif kind == "string":
            if not isinstance(value, str):
                raise ConfigError(f"Invalid value {value!r} for configuration {self.name}: Expected value to be "
                                  f"a string, but it was a {type(value).__name__}")
            value = value.strip()
            choices = self.choices_in(vt)
            if choices is not None:
                if self.case_insensitive:
                    match = [c for c in choices if c.lower() == value.lower()]
                    if not match:
                        # ConfigDef.CaseInsensitiveValidString keeps the upper-cased choices in a HashSet.
                        raise ConfigError(f"Invalid value {value} for configuration {self.name}: String must be one "
                                          f"of (case insensitive): "
                                          f"{', '.join(java_hash_set_order([c.upper() for c in choices]))}")
                    value = match[0]
                elif value not in choices:
                    raise ConfigError(f"Invalid value {value} for configuration {self.name}: String must be one of: "
                                      f"{', '.join(choices)}")
        elif kind == "list":
            if isinstance(value, str):
                value = [] if not value.strip() else re.split(r"\s*,\s*", value.strip())
            elif isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
                value = [x.strip() for x in value]
            else:
                raise ConfigError(f"Invalid value {value!r} for configuration {self.name}: "
                                  "Expected a comma separated list.")
        else:  # pragma: no cover - a table error
            raise AssertionError(f"unknown config type {kind!r} for {self.name}")
        if self.check is not None:
            value = self.check(self, value, vt)
        return value


def java_hash_set_order(strings: list[str]) -> list[str]:
    """The iteration order of a ``java.util.HashSet`` holding `strings` (added in this order).

    Kafka prints some sets as they iterate (``CaseInsensitiveValidString``'s choices): by bucket,
    ``(h ^ h >>> 16) & (capacity - 1)`` with h the ``String.hashCode``, capacity 16 doubled while
    the set is over 3/4 full; within a bucket, in insertion order.
    """
    capacity = 16
    while len(strings) > capacity * 3 // 4:
        capacity *= 2

    def bucket(s: str) -> int:
        h = java_string_hash(s) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(dict.fromkeys(strings), key=bucket)  # sorted() is stable: insertion order within a bucket


def _spec(name, type_, defaults, doc, history="", **kw) -> ConfigSpec:
    defaults = tuple((v, tuple(d) if isinstance(d, list) else d) for v, d in defaults)
    return ConfigSpec(name, type_, defaults, doc, history, **kw)


# -- assignors --------------------------------------------------------------------------------
#: Built-in assignors: short name (their `name()`, the JoinGroup protocol name) -> (Java class, version added, KIP).
ASSIGNORS = {
    "range": ("org.apache.kafka.clients.consumer.RangeAssignor", "0.9", "new consumer"),
    "roundrobin": ("org.apache.kafka.clients.consumer.RoundRobinAssignor", "0.9", "new consumer"),
    "sticky": ("org.apache.kafka.clients.consumer.StickyAssignor", "0.11", "KIP-54, KAFKA-2273"),
    "cooperative-sticky": ("org.apache.kafka.clients.consumer.CooperativeStickyAssignor", "2.4",
                           "KIP-429, KAFKA-8179"),
}
_ASSIGNOR_ALIASES = {}
for _short, (_cls, _, _) in ASSIGNORS.items():
    _ASSIGNOR_ALIASES[_short] = _short
    _ASSIGNOR_ALIASES[_cls] = _short
    _ASSIGNOR_ALIASES[_cls.rsplit(".", 1)[1]] = _short


def _valid_list(name: str, values: list[str], *, empty_ok: bool, valid: tuple[str, ...] = ()) -> list[str]:
    """``ConfigDef.ValidList`` from 4.2 (KIP-1161, KAFKA-19112): a repeated entry is dropped (Kafka
    logs a WARN when it parses the list), then an empty list is refused unless allowed, and so is
    an empty entry or (with `valid`) one not in `valid`."""
    values = list(dict.fromkeys(values))
    if not values and not empty_ok:
        raise ConfigError(f"Configuration '{name}' must not be empty. Valid values include: "
                          + ("[" + ", ".join(valid) + "]" if valid else "any non-empty value"))
    for item in values:
        if item == "":
            raise ConfigError(f"Configuration '{name}' values must not be empty.")
        if valid and item not in valid:
            raise ConfigError(f"Invalid value {item} for configuration {name}: String must be one of: "
                              f"{', '.join(valid)}")
    return values


def _check_assignors(spec: ConfigSpec, value: list[str], vt: tuple) -> list[str]:
    """Short names of the assignors; Java class names are accepted and normalized.

    From 4.0 the classes are looked up only when a classic consumer is built (`_check_consumer`),
    after ``ConsumerConfig`` refused the config under ``group.protocol=consumer``; here only the
    ``ConfigDef`` validator runs (none in 4.0 and 4.1, ``ValidList`` from 4.2).
    """
    if vt >= _v("4.0"):
        return _valid_list(spec.name, value, empty_ok=True) if vt >= _v("4.2") else value
    return _resolve_assignors(value, vt)


def _resolve_assignors(value: list[str], vt: tuple) -> list[str]:
    """``ConsumerPartitionAssignor.getAssignorInstances`` (and the check at subscribe) on the list."""
    if not value:
        # KafkaConsumer.throwIfNoAssignorsConfigured (at subscribe; the simulator always subscribes).
        raise ConfigError("Must configure at least one partition assigner class name to "
                          "partition.assignment.strategy configuration property")
    out: list[str] = []
    for item in value:
        short = _ASSIGNOR_ALIASES.get(item)
        if short is None:
            raise ConfigError(f"Invalid value {item!r} for configuration partition.assignment.strategy: unknown "
                              f"assignor; kafkasim knows range, roundrobin, sticky (0.11+) and cooperative-sticky "
                              f"(2.4+), by short name or Java class name")
        cls, added, kip = ASSIGNORS[short]
        if vt < _v(added):
            raise ConfigError(f"Invalid value {item!r} for configuration partition.assignment.strategy: "
                              f"{cls} was added in Kafka {added} ({kip})")
        if short in out:
            if vt >= _v("3.1"):  # ConsumerPartitionAssignor.getAssignorInstances, KAFKA-13204 (3.1.0)
                raise ConfigError(f"The assignor name: '{short}' is used in more than one assignor: {cls}, {cls}")
            continue  # before 3.1 a duplicate was accepted; it changes no protocol choice
        out.append(short)
    return out


_INSTANCE_ID_CHARS = re.compile(r"[a-zA-Z0-9._-]+")


def _check_group_instance_id(spec: ConfigSpec, value: str, vt: tuple) -> str:
    """JoinGroupRequest.validateGroupInstanceId (2.3+); ConfigDef.NonEmptyString from 3.3 (KAFKA-13793)."""
    if value == "":
        if vt >= _v("3.3"):
            raise ConfigError("Invalid value  for configuration group.instance.id: String must be non-empty")
        raise ConfigError("Group instance id must be non-empty string")
    if value in (".", ".."):
        raise ConfigError('Group instance id cannot be "." or ".."')
    if len(value) > 249:
        raise ConfigError(f"Group instance id can't be longer than 249 characters: {value}")
    if not _INSTANCE_ID_CHARS.fullmatch(value):
        raise ConfigError(f'Group instance id "{value}" is illegal, it contains a character other than '
                          "ASCII alphanumerics, '.', '_' and '-'")
    return value


# java.time.Duration.parse: PnDTnHnMn.nS, case-insensitive, each part signed.
_ISO_DURATION = re.compile(r"([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?"
                           r"(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?", re.IGNORECASE)


def java_duration_nanos(text: str) -> int | None:
    """`text` as ``java.time.Duration.parse`` reads it, in nanoseconds; None where it throws."""
    m = _ISO_DURATION.fullmatch(text)
    if m is None or m.group(3) in ("T", "t") or not any(m.group(i) for i in (2, 4, 5, 6)):
        return None  # "PT" with no time part, or no part at all

    def fits(x: int) -> bool:  # a Java long: Long.parseLong, Math.multiplyExact and addExact throw beyond
        return LONG_MIN <= x <= LONG_MAX

    parts = [int(m.group(g) or 0) for g in (2, 4, 5, 6)]  # days, hours, minutes, seconds
    products = [n * unit for n, unit in zip(parts, (86400, 3600, 60, 1))]
    if not all(fits(n) and fits(p) for n, p in zip(parts, products)):
        return None
    seconds = products[3]
    for p in reversed(products[:3]):  # Duration.create: days + (hours + (minutes + seconds))
        seconds += p
        if not fits(seconds):
            return None
    nanos = int((m.group(7) or "").ljust(9, "0"))
    if m.group(7) and m.group(6).startswith("-"):  # a fraction takes the sign of its seconds
        nanos = -nanos
    total = seconds * 10**9 + nanos
    return -total if m.group(1) == "-" else total


def _check_auto_offset_reset(spec: ConfigSpec, value: str, vt: tuple) -> str:
    """``AutoOffsetResetStrategy.Validator`` (4.0+, KIP-1106, KAFKA-18013): latest, earliest, none, or
    ``by_duration:<ISO-8601 duration>`` (not negative). Before 4.0 a ``ValidString`` (`choices`)."""
    if vt < _v("4.0"):
        return value
    if value in ("latest", "earliest", "none"):
        return value
    if value.startswith("by_duration:"):
        nanos = java_duration_nanos(value[len("by_duration:"):])
        if nanos is not None and nanos >= 0:
            return value
    raise ConfigError(f"Invalid value {value} for configuration auto.offset.reset: Invalid value `{value}` for "
                      "configuration auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or "
                      "of the format 'by_duration:<PnDTnHnMn.nS.>'.")


# -- new consumer (0.9+) ----------------------------------------------------------------------
_CONSUMER = [
    _spec("session.timeout.ms", "int", [("0.9", 30000), ("0.10.1", 10000), ("3.0", 45000)],
          "Time without a heartbeat after which the group coordinator removes the member and rebalances; "
          "the broker accepts only values in [group.min.session.timeout.ms, group.max.session.timeout.ms].",
          "30000 (0.9) -> 10000 in 0.10.1 (KIP-62, KAFKA-3888) -> 45000 in 3.0 (KIP-735, KAFKA-12874); "
          "no validator; from 4.0 refused when set with group.protocol=consumer, whose session timeout is the "
          "broker's group.consumer.session.timeout.ms (KAFKA-17338)"),
    _spec("heartbeat.interval.ms", "int", [("0.9", 3000)],
          "Expected time between heartbeats to the group coordinator; must be lower than session.timeout.ms.",
          "3000 since 0.9; no validator (the Heartbeat constructor requires it below session.timeout.ms); "
          "from 4.0 refused when set with group.protocol=consumer, whose interval is the broker's "
          "group.consumer.heartbeat.interval.ms (KAFKA-17338)"),
    _spec("max.poll.interval.ms", "int", [("0.10.1", 300000)],
          "Longest allowed time between poll() calls before the consumer leaves the group; sent as the "
          "JoinGroup rebalance timeout.",
          "added in 0.10.1 (KIP-62, KAFKA-3888)", low=1, added_by="KIP-62, KAFKA-3888"),
    _spec("max.poll.records", "int", [("0.10.0", INT_MAX), ("0.10.1", 500)],
          "Most records a single poll() returns.",
          "added in 0.10.0 (KIP-41, KAFKA-3007) as Int.MaxValue -> 500 in 0.10.1 (KIP-62, KAFKA-3888)", low=1,
          added_by="KIP-41, KAFKA-3007"),
    _spec("request.timeout.ms", "int", [("0.9", 40000), ("0.10.1", 305000), ("2.0", 30000)],
          "How long the client waits for a response before retrying or failing the request.",
          "40000 (0.9, KIP-19, KAFKA-2120) -> 305000 in 0.10.1 (KAFKA-3888, chosen above max.poll.interval.ms) "
          "-> 30000 in 2.0 (KAFKA-7050); before 2.0 it had to exceed session.timeout.ms and fetch.max.wait.ms",
          low=0),
    _spec("default.api.timeout.ms", "int", [("2.0", 60000)],
          "Timeout of blocking consumer calls that take no timeout argument (commitSync, position, ...).",
          "added in 2.0 (KIP-266, KAFKA-6979)", low=0, added_by="KIP-266, KAFKA-6979"),
    _spec("enable.auto.commit", "boolean", [("0.9", True)],
          "Commit the consumed offsets periodically in the background (during poll()).",
          "true since 0.9"),
    _spec("auto.commit.interval.ms", "int", [("0.9", 5000)],
          "Interval between automatic offset commits when enable.auto.commit is true.",
          "5000 since 0.9; type long in 0.9-0.10.0, int from 0.10.1 (KAFKA-3888)", low=0,
          type_history=(("0.9", "long"), ("0.10.1", "int"))),
    _spec("partition.assignment.strategy", "list",
          [("0.9", ["range"]), ("3.0", ["range", "cooperative-sticky"])],
          "Assignors in order of preference (short names here; Java class names are accepted): the group "
          "uses the first one every member supports.",
          "[RangeAssignor] -> [RangeAssignor, CooperativeStickyAssignor] in 3.0 (KAFKA-13023); sticky from 0.11 "
          "(KIP-54), cooperative-sticky from 2.4 (KIP-429); from 4.0 refused when set with "
          "group.protocol=consumer, which assigns on the broker (KAFKA-17338); from 4.2 a repeated entry is "
          "dropped and an empty one refused (KIP-1161, KAFKA-19112)", check=_check_assignors),
    _spec("group.instance.id", "string", [("2.3", None)],
          "Static membership id: a restarted member with the same id takes over its old member's place "
          "without a rebalance. None: a dynamic member.",
          "added in 2.3 (KIP-345, KAFKA-7862); NonEmptyString validator from 3.3 (KAFKA-13793)",
          nullable=True, check=_check_group_instance_id, added_by="KIP-345, KAFKA-7862"),
    _spec("retry.backoff.ms", "long", [("0.9", 100)],
          "Wait before retrying a failed request; also the heartbeat thread's wake-up granularity.",
          "100 since 0.9 (3.7 adds exponential backoff up to retry.backoff.max.ms, KIP-580)", low=0),
    _spec("fetch.max.bytes", "int", [("0.10.1", 52428800)],
          "Most bytes a fetch response may carry, over all partitions (not absolute: the first non-empty "
          "partition's first batch is always returned).",
          "added in 0.10.1 (KIP-74, KAFKA-2063)", low=0, added_by="KIP-74, KAFKA-2063"),
    _spec("max.partition.fetch.bytes", "int", [("0.9", 1048576)],
          "Most bytes per partition a fetch response may carry.",
          "1048576 since 0.9", low=0),
    _spec("fetch.min.bytes", "int", [("0.9", 1024), ("0.9.0.1", 1)],
          "Bytes the broker waits to accumulate (up to fetch.max.wait.ms) before answering a fetch.",
          "1024 in 0.9.0.0 -> 1 in 0.9.0.1 (KAFKA-3170)", low=0),
    _spec("fetch.max.wait.ms", "int", [("0.9", 500)],
          "Longest the broker holds a fetch while fewer than fetch.min.bytes are available.",
          "500 since 0.9", low=0),
    _spec("auto.offset.reset", "string", [("0.9", "latest")],
          "Where to start when the group has no committed offset (or it is out of range).",
          "latest since 0.9; from 4.0 also by_duration:<ISO-8601 duration>, e.g. by_duration:PT1H, the offset "
          "that long before now (KIP-1106, KAFKA-18013)", choices=("latest", "earliest", "none"),
          choices_history=(("4.0", None),), check=_check_auto_offset_reset),
    _spec("client.id", "string", [("0.9", "")],
          "Logical client name in requests and logs, and the start of a dynamic member's id; empty: Kafka "
          "generates consumer-<n> (before 2.4) or consumer-<group.id>-<group.instance.id or n> (2.4+), n "
          "counting the consumers the process built (see generated_client_id).",
          "\"\" since 0.9; generated name with the group id from 2.4"),
    _spec("group.protocol", "string", [("3.7", "classic")],
          "Rebalance protocol: classic (JoinGroup/SyncGroup) or consumer (KIP-848, broker-side assignment).",
          "added in 3.7 (KIP-848, KAFKA-15679); the default is still classic in 4.0 to 4.4, where the "
          "consumer protocol is generally available; KIP-1274 plans consumer as the default in 5.0 and the "
          "classic protocol's removal from KafkaConsumer in 6.0 (the timeline in "
          "docs/operations/consumer-rebalance-protocol.md at 4.4; no release read here has either)",
          choices=("classic", "consumer"), case_insensitive=True, added_by="KIP-848, KAFKA-15679"),
    _spec("group.remote.assignor", "string", [("3.7", None)],
          "Server-side assignor the member asks for under group.protocol=consumer (the broker answers "
          "UNSUPPORTED_ASSIGNOR for one it does not have). None: the broker's default, the first of "
          "group.consumer.assignors.",
          "added in 3.7 (KIP-848, KAFKA-15679); no validator; refused with group.protocol=classic from 3.9 "
          "(KAFKA-15773)", nullable=True, added_by="KIP-848, KAFKA-15679"),
]
CONSUMER_CONFIGS: dict[str, ConfigSpec] = {s.name: s for s in _CONSUMER}


#: ConsumerConfig.CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS (4.0+, KAFKA-17338), in Kafka's order; the
#: 4.1+ share-consumer ones are not consumer configs kafkasim models.
CONSUMER_PROTOCOL_UNSUPPORTED = ("partition.assignment.strategy", "heartbeat.interval.ms", "session.timeout.ms")


def _given(value) -> bool:
    """Set by the user, as ConsumerConfig.checkUnsupportedConfigs reads its originals: not null, not blank."""
    return value is not None and not (isinstance(value, str) and not value.strip())


def _check_consumer(cfg: dict, vt: tuple, overrides: Mapping) -> None:
    classic = cfg.get("group.protocol") in (None, "classic")
    # ConsumerConfig.postProcessParsedConfig: checkUnsupportedConfigs (4.0+, KAFKA-17338) refuses a config
    # of the other protocol set explicitly (even to its default); 3.9 had checkGroupRemoteAssignor (KAFKA-15773).
    if vt >= _v("4.0"):
        unsupported = ("group.remote.assignor",) if classic else CONSUMER_PROTOCOL_UNSUPPORTED
        named = [name for name in unsupported if _given(overrides.get(name))]
        if named:
            raise ConfigError(f"{', '.join(named)} cannot be set when group.protocol="
                              f"{'CLASSIC' if classic else 'CONSUMER'}")
        if classic:  # the classic consumer looks up its assignors when it is built (ClassicKafkaConsumer)
            cfg["partition.assignment.strategy"] = _resolve_assignors(cfg["partition.assignment.strategy"], vt)
    elif vt >= _v("3.9") and classic and cfg["group.remote.assignor"]:
        raise ConfigError("group.remote.assignor cannot be set when group.protocol=CLASSIC")
    hb, session = cfg["heartbeat.interval.ms"], cfg["session.timeout.ms"]
    if classic:  # the Heartbeat's timers: Timer.reset throws on a negative timeout (utils/Timer.java)
        for name, value in (("session.timeout.ms", session), ("heartbeat.interval.ms", hb)):
            if value < 0:
                raise ConfigError(f"Invalid negative timeout {value} for {name}: Kafka's consumer throws "
                                  f"IllegalArgumentException when it builds its heartbeat timers")
        if hb == 0:  # a simulator limit, not Kafka's: requests here take no time
            raise ConfigError("heartbeat.interval.ms=0: Kafka accepts it (the heartbeat thread then sends one "
                              "heartbeat per round trip), but kafkasim's requests take no time, so heartbeats "
                              "would never let time pass; use 1 ms or more")
    # internals/Heartbeat.java constructor, all versions; only the classic coordinator builds a Heartbeat.
    if classic and hb >= session:
        raise ConfigError(f"Heartbeat must be set lower than the session timeout "
                          f"(heartbeat.interval.ms={hb}, session.timeout.ms={session})")
    # KafkaConsumer constructor 0.9.0.0 - 1.1.x; removed in 2.0 ("Do not require request timeout be
    # larger than session timeout", #5246).
    if vt < _v("2.0"):
        request, wait = cfg["request.timeout.ms"], cfg["fetch.max.wait.ms"]
        if request <= session or request <= wait:
            raise ConfigError(f"request.timeout.ms should be greater than session.timeout.ms and fetch.max.wait.ms "
                              f"(request.timeout.ms={request}, session.timeout.ms={session}, "
                              f"fetch.max.wait.ms={wait})")


# -- share consumer: KafkaShareConsumer (KIP-932, 4.0+) ----------------------------------------
#: `ShareConsumerConfig.SHARE_GROUP_UNSUPPORTED_CONFIGS` (clients/src/main/java/org/apache/kafka/clients/
#: consumer/ShareConsumerConfig.java, read on confluentinc/kafka's branches 4.1, 4.2 and 4.3), in Kafka's order: present in the configs given to a
#: KafkaShareConsumer, whatever their value, they make its constructor throw ConfigException. 4.0 has
#: no ShareConsumerConfig: its KafkaShareConsumer takes a plain ConsumerConfig and ignores them.
SHARE_GROUP_UNSUPPORTED_CONFIGS = (
    "auto.offset.reset", "enable.auto.commit", "group.instance.id", "isolation.level",
    "partition.assignment.strategy", "interceptor.classes", "session.timeout.ms", "heartbeat.interval.ms",
    "group.protocol", "group.remote.assignor")


def _share_mode_check(valid: tuple[str, str]):
    """`ShareAcknowledgementMode.Validator` / `ShareAcquireMode.Validator` (case-insensitive; the
    value is kept lower-cased): Kafka's ConfigException wraps their message."""
    def check(spec: ConfigSpec, value: str, vt: tuple) -> str:
        if value.lower() not in valid:
            raise ConfigError(f"Invalid value {value} for configuration {spec.name}: Invalid value `{value}` for "
                              f"configuration {spec.name}. The value must either be '{valid[0]}' or '{valid[1]}'.")
        return value.lower()
    return check


_SHARE_CONSUMER = [
    _spec("share.acknowledgement.mode", "string", [("4.1", "implicit")],
          "implicit: the records of a poll are accepted at the next poll(), commitSync() or commitAsync(); "
          "explicit: the application acknowledges each record with acknowledge(record, type).",
          "added in 4.1 (KIP-932, KAFKA-18904; 4.0 infers the mode from the first use of acknowledge()); "
          "ConsumerConfig, refused by KafkaConsumer under both group.protocol values",
          check=_share_mode_check(("implicit", "explicit")), added_by="KIP-932"),
    _spec("share.acquire.mode", "string", [("4.2", "batch_optimized")],
          "batch_optimized: a poll may return more than max.poll.records, up to the end of a log batch; "
          "record_limit: never more than max.poll.records.",
          "added in 4.2 (KIP-1206); ConsumerConfig, refused by KafkaConsumer under both group.protocol values",
          check=_share_mode_check(("batch_optimized", "record_limit")), added_by="KIP-1206"),
]
#: What a KafkaShareConsumer reads (`ShareConsumerConfig` extends `ConsumerConfig`): the consumer's
#: configs without SHARE_GROUP_UNSUPPORTED_CONFIGS, plus the two share ones.
SHARE_CONSUMER_CONFIGS: dict[str, ConfigSpec] = {
    **{n: s for n, s in CONSUMER_CONFIGS.items() if n not in SHARE_GROUP_UNSUPPORTED_CONFIGS},
    **{s.name: s for s in _SHARE_CONSUMER}}


def _check_share_consumer(cfg: dict, vt: tuple, overrides: Mapping) -> None:
    """Nothing across fields: a share consumer has no heartbeat or session configs of its own."""


def share_consumer_config(kafka_version: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The configs of a `KafkaShareConsumer` at `kafka_version`'s defaults with `overrides`, keyed by
    Kafka's names. From 4.1 a config of SHARE_GROUP_UNSUPPORTED_CONFIGS in `overrides` (any value,
    None included) raises ConfigError worded as `ShareConsumerConfig.checkUnsupportedConfigsPreProcess`
    ("auto.offset.reset, group.protocol cannot be set when using a share group."), before anything
    else is checked; in 4.0 they are accepted and ignored. Share groups need Kafka 4.0 or later."""
    line = normalize_version(kafka_version)
    vt = _v(kafka_version)
    if vt < _v("4.0"):
        raise ConfigError(f"Kafka {line} has no share consumer: KafkaShareConsumer (KIP-932) needs Kafka 4.0 or later")
    overrides = {} if overrides is None else overrides
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"share consumer config overrides must be a dict of Kafka config names, got "
                          f"{type(overrides).__name__}")
    named = [name for name in SHARE_GROUP_UNSUPPORTED_CONFIGS if name in overrides]
    if named and vt >= _v("4.1"):
        raise ConfigError(f"{', '.join(named)} cannot be set when using a share group.")
    given = {k: v for k, v in overrides.items() if k not in SHARE_GROUP_UNSUPPORTED_CONFIGS}
    return _resolve("share consumer", SHARE_CONSUMER_CONFIGS, kafka_version, line, given, _check_share_consumer)


# -- broker: KIP-848 group coordinator (3.7+) --------------------------------------------------
#: Server-side assignors of the consumer protocol: name (as a member asks for it in
#: ``group.remote.assignor``) -> Java class. ``group.consumer.assignors`` takes the class names in
#: 3.7 - 3.9 and also these names from 4.0 (apache/kafka#18832).
SERVER_ASSIGNORS = {
    "uniform": "org.apache.kafka.coordinator.group.assignor.UniformAssignor",
    "range": "org.apache.kafka.coordinator.group.assignor.RangeAssignor",
}
_SERVER_ASSIGNOR_CLASSES = {cls: name for name, cls in SERVER_ASSIGNORS.items()}
# The interface group.consumer.assignors classes must implement (AbstractConfig.getConfiguredInstance
# in 3.x, GroupCoordinatorConfig.consumerGroupAssignors in 4.x name it when a class does not).
_SERVER_ASSIGNOR_INTERFACE = (("3.7", "org.apache.kafka.coordinator.group.assignor.PartitionAssignor"),
                              ("3.8", "org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor"))
#: Group.GroupType values ConfigDef accepts in group.coordinator.rebalance.protocols, in their order:
#: Utils.enumOptions(GroupType) in 3.7 - 3.9, GroupType.documentValidValues() (no "unknown") from 4.0.
_GROUP_TYPES = (("3.7", ("consumer", "classic")), ("3.8", ("consumer", "classic", "unknown")),
                ("3.9", ("consumer", "classic", "share", "unknown")), ("4.0", ("consumer", "classic", "share")),
                ("4.1", ("consumer", "classic", "share", "streams")))


def _by_version(table, vt):
    """The value of a ((first_version, value), ...) table in version `vt`."""
    return [value for first, value in table if vt >= _v(first)][-1]


def _check_rebalance_protocols(spec: ConfigSpec, value: list[str], vt: tuple) -> list[str]:
    """``ConfigDef.ValidList.in(group types)`` (case-sensitive); from 4.2 also non-empty (KIP-1161)."""
    valid = _by_version(_GROUP_TYPES, vt)
    if vt >= _v("4.2"):
        return _valid_list(spec.name, value, empty_ok=False, valid=valid)
    for item in value:
        if item not in valid:
            raise ConfigError(f"Invalid value {item} for configuration {spec.name}: String must be one of: "
                              f"{', '.join(valid)}")
    return value


def _check_server_assignors(spec: ConfigSpec, value: list[str], vt: tuple) -> list[str]:
    """Names of the server assignors (GroupCoordinatorConfig.consumerGroupAssignors, 4.x; the class
    list AbstractConfig.getConfiguredInstances builds in 3.x): class names, and names from 4.0."""
    if vt >= _v("4.2"):
        value = _valid_list(spec.name, value, empty_ok=False)
    out = []
    for item in value:
        name = item if vt >= _v("4.0") and item in SERVER_ASSIGNORS else _SERVER_ASSIGNOR_CLASSES.get(item)
        if name is None:
            # 4.4 words both refusals as ConfigException(name, value, message) (KAFKA-20843).
            invalid = f"Invalid value {item} for configuration {spec.name}: " if vt >= _v("4.4") else ""
            if _ASSIGNOR_ALIASES.get(item) and "." in item:  # a client-side assignor class: it exists
                iface = _by_version(_SERVER_ASSIGNOR_INTERFACE, vt)
                raise ConfigError(f"{invalid}Class is not an instance of {iface}" if invalid else
                                  f"{item} is not an instance of {iface}")
            classes = ", ".join(SERVER_ASSIGNORS.values())
            hint = (f"the server assignors are uniform and range, by name or Java class: {classes}"
                    if vt >= _v("4.0") else
                    f"3.7 - 3.9 name the server assignors by Java class: {classes}; uniform and range from 4.0")
            raise ConfigError(f"{invalid}Class cannot be found ({hint})" if invalid else
                              f"Class {item} cannot be found ({hint})")
        out.append(name)
    return out


def _check_group_coordinator(cfg: dict, vt: tuple) -> None:
    """The KIP-848 startup checks (GroupCoordinatorConfig's constructor 3.9+, KafkaConfig.validateValues
    in 3.7 and 3.8: Scala's `require`, hence "requirement failed: ")."""
    if cfg["group.consumer.session.timeout.ms"] is None:
        return
    prefix = "requirement failed: " if vt < _v("3.9") else ""
    ge, le = ("greater than or equal to", "less than or equal to") if vt >= _v("4.0") else \
        ("greater than or equals to", "less than or equals to")
    hb, session = "group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms"
    min_hb, max_hb = "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"
    min_s, max_s = "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms"
    rules = [(max_hb, ge, min_hb), (hb, ge, min_hb), (hb, le, max_hb),
             (max_s, ge, min_s), (session, ge, min_s), (session, le, max_s)]
    if vt >= _v("4.0"):
        rules.append((hb, "less than", session))  # KAFKA-17618
    if vt >= _v("4.3"):  # KIP-1263 (KAFKA-20300)
        interval = "group.consumer.assignment.interval.ms"
        min_i, max_i = "group.consumer.min.assignment.interval.ms", "group.consumer.max.assignment.interval.ms"
        rules += [(max_i, ge, min_i), (interval, ge, min_i), (interval, le, max_i)]
    compare = {ge: lambda a, b: a >= b, le: lambda a, b: a <= b, "less than": lambda a, b: a < b}
    for a, relation, b in rules:
        if not compare[relation](cfg[a], cfg[b]):
            raise ConfigError(f"{prefix}{a} must be {relation} {b} ({a}={cfg[a]}, {b}={cfg[b]})")


def _check_classic_enabled(cfg: dict, vt: tuple) -> None:
    """KafkaConfig.groupCoordinatorRebalanceProtocols (3.7+)."""
    protocols = cfg["group.coordinator.rebalance.protocols"]
    if protocols is not None and "classic" not in protocols:
        raise ConfigError("Disabling the 'classic' protocol is not supported.")


def _check_assignor_map(cfg: dict, vt: tuple) -> None:
    """GroupMetadataManager keys the assignors by name and takes the first as the default, when the new
    coordinator starts: always in 4.x, in 3.7 - 3.9 when the consumer protocol is enabled."""
    assignors, protocols = cfg["group.consumer.assignors"], cfg["group.coordinator.rebalance.protocols"]
    if assignors is None or (vt < _v("4.0") and "consumer" not in protocols):
        return
    if not assignors:  # 4.2 refused it already (ValidList)
        raise ConfigError("Assignors must be set before building." if vt < _v("4.0") else
                          "Index 0 out of bounds for length 0 (GroupMetadataManager: group.consumer.assignors "
                          "is empty, and its first entry is the default assignor)")
    for i, name in enumerate(assignors):
        if name in assignors[:i]:  # Collectors.toMap(ConsumerGroupPartitionAssignor::name, ...)
            raise ConfigError(f"Duplicate key {name} (attempted merging values {SERVER_ASSIGNORS[name]}@... and "
                              f"{SERVER_ASSIGNORS[name]}@...)")


_GROUP_CONSUMER_HISTORY = "added in 3.7 as a public config (KIP-848 early access; internal in 3.5 and 3.6)"

# -- broker -----------------------------------------------------------------------------------
_BROKER = [
    _spec("group.initial.rebalance.delay.ms", "int", [("0.11", 3000)],
          "How long the coordinator delays the first rebalance of an empty group, waiting for more members "
          "(extended by each join, up to max.poll.interval.ms).",
          "added in 0.11 (KIP-134, KAFKA-4925); the sample server.properties sets 0; no validator",
          added_by="KIP-134, KAFKA-4925"),
    _spec("group.min.session.timeout.ms", "int", [("0.9", 6000)],
          "Smallest session.timeout.ms the coordinator accepts (else INVALID_SESSION_TIMEOUT).",
          "6000 since 0.9; no validator"),
    _spec("group.max.session.timeout.ms", "int", [("0.9", 30000), ("0.10.0", 300000), ("2.3", 1800000)],
          "Largest session.timeout.ms the coordinator accepts (else INVALID_SESSION_TIMEOUT).",
          "30000 (0.9) -> 300000 in 0.10.0 (KAFKA-3636) -> 1800000 in 2.3 (with KIP-345, KAFKA-7862); "
          "no validator"),
    _spec("group.max.size", "int", [("2.2", INT_MAX)],
          "Most members a consumer group may have (GROUP_MAX_SIZE_REACHED beyond).",
          "added in 2.2 (KIP-389, KAFKA-7641)", low=1, added_by="KIP-389, KAFKA-7641"),
    _spec("offsets.topic.num.partitions", "int", [("0.9", 50)],
          "Partitions of __consumer_offsets; a group's coordinator leads partition hash(group.id) % this.",
          "50 since 0.9", low=1),
    _spec("queued.max.requests", "int", [("0.9", 500)],
          "Capacity of the request queue between network and I/O threads; full: network threads block.",
          "500 since 0.9", low=1),
    _spec("queued.max.request.bytes", "long", [("1.0", -1)],
          "Memory bound for requests read but not yet answered (KIP-72 memory pool); -1 or 0: unbounded. "
          "If > 0 it must be >= socket.request.max.bytes.",
          "added in 1.0 (KIP-72, KAFKA-4602); no validator", added_by="KIP-72, KAFKA-4602"),
    _spec("socket.request.max.bytes", "int", [("0.9", 104857600)],
          "Largest request the broker accepts; also the memory pool's largest single allocation.",
          "104857600 since 0.9", low=1),
    _spec("num.network.threads", "int", [("0.9", 3)],
          "Network (Processor) threads per listener.", "3 since 0.9", low=1),
    _spec("num.io.threads", "int", [("0.9", 8)],
          "Request handler (I/O) threads.", "8 since 0.9", low=1),
    _spec("fetch.max.bytes", "int", [("2.5", 57671680)],
          "Broker-side cap on any fetch response, whatever fetch.max.bytes a consumer asks for.",
          "added in 2.5 (KIP-541, KAFKA-9101)", low=1024, added_by="KIP-541, KAFKA-9101"),
    _spec("replica.fetch.response.max.bytes", "int", [("0.10.1", 10485760)],
          "Most bytes a replica fetch response may carry (not absolute, as fetch.max.bytes).",
          "added in 0.10.1 (KIP-74, KAFKA-2063)", low=0, added_by="KIP-74, KAFKA-2063"),
    _spec("message.max.bytes", "int", [("0.9", 1000012), ("2.5", 1048588)],
          "Largest record batch the broker accepts (plus the 12-byte log overhead).",
          "1000000 + 12 -> 1048576 + 12 in 2.5 (KAFKA-4203, aligned with the producer's max.request.size)",
          low=0),
    _spec("replica.fetch.max.bytes", "int", [("0.9", 1048576)],
          "Bytes a follower asks for per partition when it replicates; before 0.10.1 it had to be at least "
          "message.max.bytes, or a larger message could never be replicated.",
          "1048576 since 0.8; no validator in 0.9-0.10.0 (validateValues required it >= message.max.bytes); "
          "atLeast(0) and no longer absolute from 0.10.1 (KIP-74, KAFKA-2063)", low=0),
    _spec("group.coordinator.rebalance.protocols", "list",
          [("3.7", ["classic"]), ("4.0", ["classic", "consumer"]), ("4.1", ["classic", "consumer", "streams"])],
          "Rebalance protocols the group coordinator serves: classic always; consumer (KIP-848) lets members "
          "use group.protocol=consumer.",
          "added in 3.7 (KIP-848, KAFKA-16036), default classic: the consumer protocol was early access (3.7) "
          "and preview (3.8, 3.9), and in 3.8 and 3.9 only for KRaft clusters (not modelled); classic,consumer "
          "in 4.0, where it is generally available (it also needs the group.version feature, on once the "
          "upgrade to 4.0 is finalized); classic,consumer,streams in 4.1 (KAFKA-19173); valid entries consumer, "
          "classic (3.7), + unknown (3.8), + share (3.9), consumer, classic, share (4.0), + streams (4.1); "
          "without classic the broker refuses to start; from 4.2 a repeated entry is dropped and an empty list "
          "refused (KIP-1161, KAFKA-19112); deprecated in 4.3 (KIP-1237, KAFKA-19740: same default, the broker "
          "WARNs when it is set, see broker_config_warnings; to be removed in 5.0, where the feature versions "
          "group.version, streams.version and share.version decide)", check=_check_rebalance_protocols,
          added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.session.timeout.ms", "int", [("3.7", 45000)],
          "Session timeout of consumer-protocol members (KIP-848): the coordinator fences a member it has "
          "not heard from for this long. The client's session.timeout.ms does not apply to them.",
          _GROUP_CONSUMER_HISTORY + "; must lie within [group.consumer.min.session.timeout.ms, "
          "group.consumer.max.session.timeout.ms] and, from 4.0, above group.consumer.heartbeat.interval.ms "
          "(KAFKA-17618)", low=1, added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.min.session.timeout.ms", "int", [("3.7", 45000)],
          "Lowest group.consumer.session.timeout.ms, for the broker and for a group's "
          "consumer.session.timeout.ms override.", _GROUP_CONSUMER_HISTORY, low=1,
          added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.max.session.timeout.ms", "int", [("3.7", 60000)],
          "Highest group.consumer.session.timeout.ms, for the broker and for a group's "
          "consumer.session.timeout.ms override.", _GROUP_CONSUMER_HISTORY, low=1,
          added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.heartbeat.interval.ms", "int", [("3.7", 5000)],
          "Heartbeat interval the coordinator gives consumer-protocol members in every heartbeat response. "
          "The client's heartbeat.interval.ms does not apply to them.",
          _GROUP_CONSUMER_HISTORY + "; must lie within [group.consumer.min.heartbeat.interval.ms, "
          "group.consumer.max.heartbeat.interval.ms] and, from 4.0, below group.consumer.session.timeout.ms "
          "(KAFKA-17618)", low=1, added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.min.heartbeat.interval.ms", "int", [("3.7", 5000)],
          "Lowest group.consumer.heartbeat.interval.ms, for the broker and for a group's "
          "consumer.heartbeat.interval.ms override.", _GROUP_CONSUMER_HISTORY, low=1,
          added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.max.heartbeat.interval.ms", "int", [("3.7", 15000)],
          "Highest group.consumer.heartbeat.interval.ms, for the broker and for a group's "
          "consumer.heartbeat.interval.ms override.", _GROUP_CONSUMER_HISTORY, low=1,
          added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.max.size", "int", [("3.7", INT_MAX)],
          "Most members a consumer-protocol group may have (GROUP_MAX_SIZE_REACHED beyond); group.max.size "
          "is the classic groups' limit.", _GROUP_CONSUMER_HISTORY, low=1, added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.assignors", "list", [("3.7", ["uniform", "range"])],
          "Server-side assignors, by name here (Java class names are accepted); the first one is the "
          "default for members that ask for none in group.remote.assignor.",
          _GROUP_CONSUMER_HISTORY + "; Kafka's default is the class names "
          "org.apache.kafka.coordinator.group.assignor.UniformAssignor, ...RangeAssignor in 3.7 - 3.9 and the "
          "names uniform, range from 4.0, which also accepts names (apache/kafka#18832); from 4.2 a repeated "
          "entry is dropped and an empty list refused (KIP-1161, KAFKA-19112); from 4.4 an unknown class is "
          "refused as a ConfigException naming this config (KAFKA-20843)",
          check=_check_server_assignors, added_by="KIP-848, KAFKA-16036"),
    _spec("group.consumer.assignment.interval.ms", "int", [("4.3", 1000)],
          "Least time between two target-assignment computations of a consumer group (KIP-1263): a change "
          "within it bumps the group epoch at once, and the next heartbeat of any member once the interval "
          "has passed computes the target; members reconcile towards the previous target meanwhile. 0 "
          "computes on every epoch bump, the only behaviour before 4.3.",
          "added in 4.3 (KIP-1263, KAFKA-20300), default 1000 (the upgrade notes: \"previously had an "
          "effective value of 0\"); atLeast(0); must lie within [group.consumer.min.assignment.interval.ms, "
          "group.consumer.max.assignment.interval.ms]; also a dynamic broker config (not modelled) and a per-group "
          "config (consumer.assignment.interval.ms, set_group_config)", low=0, added_by="KIP-1263, KAFKA-20300"),
    _spec("group.consumer.min.assignment.interval.ms", "int", [("4.3", 0)],
          "Lowest group.consumer.assignment.interval.ms, for the broker and for a group's "
          "consumer.assignment.interval.ms override.", "added in 4.3 (KIP-1263, KAFKA-20300); atLeast(0)",
          low=0, added_by="KIP-1263, KAFKA-20300"),
    _spec("group.consumer.max.assignment.interval.ms", "int", [("4.3", 15000)],
          "Highest group.consumer.assignment.interval.ms, for the broker and for a group's "
          "consumer.assignment.interval.ms override.", "added in 4.3 (KIP-1263, KAFKA-20300); atLeast(0)",
          low=0, added_by="KIP-1263, KAFKA-20300"),
    _spec("group.consumer.migration.policy", "string", [("3.8", "disabled"), ("4.0", "bidirectional")],
          "Which online conversions of a non-empty group between the classic and the consumer protocol the "
          "coordinator makes: bidirectional, upgrade (classic to consumer), downgrade or disabled.",
          "added in 3.8 (KIP-848, KAFKA-16294) with default disabled; bidirectional from 4.0 "
          "(apache/kafka#17295); from 4.3.1 disabled also refuses a classic member's JoinGroup to a non-empty "
          "consumer group (KAFKA-20640)", choices=("bidirectional", "upgrade", "downgrade", "disabled"),
          case_insensitive=True, added_by="KIP-848, KAFKA-16294"),
]
_SHARE_HISTORY = ("added in 4.0 (KIP-932 early access: share groups off unless group.share.enable=true or share is "
                  "listed in group.coordinator.rebalance.protocols; 4.1 preview: feature share.version=1; on by "
                  "default from 4.2)")
_GCC, _SGC = "GroupCoordinatorConfig", "ShareGroupConfig"


def _share_spec(name: str, defaults, doc: str, where: str, **kw) -> ConfigSpec:
    return _spec(name, "int", defaults, doc, f"{_SHARE_HISTORY}; defined in {where}", added_by="KIP-932", **kw)


def _share_43_spec(name: str, default: int, doc: str, where: str, **kw) -> ConfigSpec:
    kip = "KIP-1263" if "assignment" in name else "KIP-1240"
    return _spec(name, "int", [("4.3", default)], doc, f"added in 4.3 ({kip}); defined in {where}", added_by=kip, **kw)


#: `group.share.assignors`: the one built-in share assignor, by name and by Java class.
_SHARE_ASSIGNOR = ("simple", "org.apache.kafka.coordinator.group.assignor.SimpleAssignor")


def _check_share_assignors(spec: ConfigSpec, value: list[str], vt: tuple) -> list[str]:
    """`GroupCoordinatorConfig`'s share assignor list (4.1+): the ValidList of 4.2, then the
    `require` "must contain exactly one assignor"; the entry must be the simple assignor (kafkasim
    has no custom assignors)."""
    if vt >= _v("4.2"):
        value = _valid_list(spec.name, value, empty_ok=False)
    if len(value) != 1:
        raise ConfigError(f"{spec.name} must contain exactly one assignor, but found {len(value)}")
    if value[0] not in _SHARE_ASSIGNOR:
        raise ConfigError(f"Class {value[0]} cannot be found (the share groups' only built-in assignor is simple, "
                          f"{_SHARE_ASSIGNOR[1]})")
    return ["simple"]


# KIP-932 share groups: GroupCoordinatorConfig (membership) and ShareGroupConfig (share partitions) at
# 4.0.0 / 4.1.1 / 4.2.0; ranges as their ConfigDef validators.
def _check_share_enable(spec, value, vt):
    if vt >= _v("4.3"):
        raise ConfigError("Broker config 'group.share.enable' does not exist in Kafka 4.3 or later: share groups "
                          "are switched on by the share.version feature only (KafkaApis.isShareGroupProtocolEnabled)")
    return value


_BROKER += [
    _spec("group.share.enable", "boolean", [("4.0", False)],
          "Internal switch that turns share groups (KIP-932) on; without it the broker answers every share RPC "
          "UNSUPPORTED_VERSION (35).",
          "added in 4.0 as an internal config (ShareGroupConfig); in 4.0 listing share in "
          "group.coordinator.rebalance.protocols also turns share groups on; in 4.1 and 4.2 the feature "
          "share.version=1 does too (on by default in a new 4.2 cluster); removed in 4.3, where only "
          "share.version decides", check=_check_share_enable, added_by="KIP-932"),
    _share_spec("group.share.session.timeout.ms", [("4.0", 45000)],
                "Share-group member session timeout: a member silent this long is fenced.", _GCC, low=1),
    _share_spec("group.share.min.session.timeout.ms", [("4.0", 45000)],
                "Lowest group.share.session.timeout.ms, for the broker and a group's share.session.timeout.ms.",
                _GCC, low=1),
    _share_spec("group.share.max.session.timeout.ms", [("4.0", 60000)],
                "Highest group.share.session.timeout.ms, for the broker and a group's share.session.timeout.ms.",
                _GCC, low=1),
    _share_spec("group.share.heartbeat.interval.ms", [("4.0", 5000)],
                "Interval the coordinator tells share consumers to heartbeat at.", _GCC, low=1),
    _share_spec("group.share.min.heartbeat.interval.ms", [("4.0", 5000)],
                "Lowest group.share.heartbeat.interval.ms, for the broker and a group's share.heartbeat.interval.ms.",
                _GCC, low=1),
    _share_spec("group.share.max.heartbeat.interval.ms", [("4.0", 15000)],
                "Highest group.share.heartbeat.interval.ms, for the broker and a group's "
                "share.heartbeat.interval.ms.", _GCC, low=1),
    _share_spec("group.share.max.size", [("4.0", 200)],
                "Most members a share group may have (GROUP_MAX_SIZE_REACHED beyond).", _GCC, low=1, high=1000),
    _share_spec("group.share.record.lock.duration.ms", [("4.0", 30000)],
                "Acquisition lock duration: an acquired record not acknowledged this long is released.",
                _SGC, low=1000, high=3600000),
    _share_spec("group.share.min.record.lock.duration.ms", [("4.0", 15000)],
                "Lowest group.share.record.lock.duration.ms, and of a group's share.record.lock.duration.ms.",
                _SGC, low=1000, high=30000),
    _share_spec("group.share.max.record.lock.duration.ms", [("4.0", 60000)],
                "Highest group.share.record.lock.duration.ms, and of a group's share.record.lock.duration.ms.",
                _SGC, low=30000, high=3600000),
    _share_spec("group.share.delivery.count.limit", [("4.0", 5)],
                "Deliveries of a record before it is archived (the poison-message limit).", _SGC, low=2, high=10),
    _share_spec("group.share.partition.max.record.locks", [("4.0", 200), ("4.1", 2000)],
                "Most in-flight (acquired or available-again) records per share partition.",
                _SGC, low=100, high=10000),
    _spec("group.share.assignors", "list", [("4.1", ["simple"])],
          "The share groups' server-side assignor, by name (simple, or its Java class); exactly one entry.",
          f"{_SHARE_HISTORY}; added in 4.1 ({_GCC}; 4.0 hard-codes SimpleAssignor in GroupMetadataManager); "
          "from 4.2 a repeated entry is dropped and an empty list refused (ValidList.anyNonDuplicateValues)",
          check=_check_share_assignors, added_by="KIP-932"),
    # KIP-1240 (4.3, ShareGroupConfig at v8.3.x): the bounds of the per-group share.delivery.count.limit
    # and share.partition.max.record.locks; KIP-1263 (4.3, GroupCoordinatorConfig): the assignment interval.
    _share_43_spec("group.share.min.delivery.count.limit", 2,
                   "Lowest value of a group's share.delivery.count.limit.", _SGC, low=2, high=5),
    _share_43_spec("group.share.max.delivery.count.limit", 10,
                   "Highest value of a group's share.delivery.count.limit.", _SGC, low=5, high=25),
    _share_43_spec("group.share.min.partition.max.record.locks", 100,
                   "Lowest value of a group's share.partition.max.record.locks.", _SGC, low=100, high=2000),
    _share_43_spec("group.share.max.partition.max.record.locks", 4000,
                   "Highest value of a group's share.partition.max.record.locks.", _SGC, low=2000, high=10000),
    _share_43_spec("group.share.assignment.interval.ms", 1000,
                   "Least time between two target-assignment computations of a share group (KIP-1263): a change "
                   "within it bumps the group epoch at once, the next heartbeat of any member once the interval "
                   "has passed computes the target. 0 computes on every epoch bump, the only behaviour before 4.3.",
                   _GCC, low=0),
    _share_43_spec("group.share.min.assignment.interval.ms", 0,
                   "Lowest group.share.assignment.interval.ms, for the broker and a group's share.assignment.interval.ms.",
                   _GCC, low=0),
    _share_43_spec("group.share.max.assignment.interval.ms", 15000,
                   "Highest group.share.assignment.interval.ms, for the broker and a group's "
                   "share.assignment.interval.ms.", _GCC, low=0),
    # KIP-1191 (4.4, GroupCoordinatorConfig at the 4.4 branch): dynamic cluster configs of the share groups'
    # dead-letter queue (KAFKA-20410).
    _spec("errors.deadletterqueue.auto.create.topics.enable", "boolean", [("4.4", False)],
          "Whether the broker creates a share group's dead-letter-queue topic when it does not exist.",
          f"added in 4.4 (KIP-1191, {_GCC}); a dynamic cluster config", added_by="KIP-1191"),
    _spec("errors.deadletterqueue.topic.name.prefix", "string", [("4.4", "dlq.")],
          "The prefix every share group's dead-letter-queue topic name must have (\"\": no restriction).",
          f"added in 4.4 (KIP-1191, {_GCC}); a dynamic cluster config", added_by="KIP-1191"),
]
BROKER_CONFIGS: dict[str, ConfigSpec] = {s.name: s for s in _BROKER}


def _check_broker(cfg: dict, vt: tuple, overrides: Mapping) -> None:
    # KafkaConfig builds its GroupCoordinatorConfig (3.9+) before groupCoordinatorRebalanceProtocols, and
    # validateValues last; in 3.7 and 3.8 the group.consumer checks are at the end of validateValues.
    if vt >= _v("3.9"):
        _check_group_coordinator(cfg, vt)
    _check_classic_enabled(cfg, vt)
    _check_request_limits(cfg, vt)
    if vt < _v("3.9"):
        _check_group_coordinator(cfg, vt)
    _check_assignor_map(cfg, vt)  # when the coordinator starts, after the broker's config
    _check_share_groups(cfg, vt)


def _check_share_groups(cfg: dict, vt: tuple) -> None:
    """The share-group startup checks (4.0+): `GroupCoordinatorConfig`'s `require`s on the
    heartbeat interval and session timeout, then `ShareGroupConfig.validate` on the lock duration."""
    if cfg["group.share.session.timeout.ms"] is None:
        return
    ge, le = "greater than or equal to", "less than or equal to"
    hb, session, lock = ("group.share.heartbeat.interval.ms", "group.share.session.timeout.ms",
                         "group.share.record.lock.duration.ms")
    min_hb, max_hb = "group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms"
    min_s, max_s = "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms"
    min_l, max_l = "group.share.min.record.lock.duration.ms", "group.share.max.record.lock.duration.ms"
    rules = [(max_hb, ge, min_hb), (hb, ge, min_hb), (hb, le, max_hb), (max_s, ge, min_s), (session, ge, min_s),
             (session, le, max_s), (hb, "less than", session)]
    if vt >= _v("4.3"):  # GroupCoordinatorConfig (KIP-1263), then ShareGroupConfig.validate (KIP-1240)
        interval = "group.share.assignment.interval.ms"
        min_i, max_i = "group.share.min.assignment.interval.ms", "group.share.max.assignment.interval.ms"
        limit, min_d, max_d = ("group.share.delivery.count.limit", "group.share.min.delivery.count.limit",
                               "group.share.max.delivery.count.limit")
        locks, min_k, max_k = ("group.share.partition.max.record.locks", "group.share.min.partition.max.record.locks",
                               "group.share.max.partition.max.record.locks")
        rules += [(max_i, ge, min_i), (interval, ge, min_i), (interval, le, max_i),
                  (max_d, ge, limit), (limit, ge, min_d), (max_k, ge, locks), (locks, ge, min_k)]
    rules += [(lock, ge, min_l), (max_l, ge, lock)]
    compare = {ge: lambda a, b: a >= b, le: lambda a, b: a <= b, "less than": lambda a, b: a < b}
    for a, relation, b in rules:
        if not compare[relation](cfg[a], cfg[b]):
            raise ConfigError(f"{a} must be {relation} {b} ({a}={cfg[a]}, {b}={cfg[b]})")


def _check_request_limits(cfg: dict, vt: tuple) -> None:
    # KafkaConfig.validateValues 0.9.0.0 - 0.10.0.x (0.8.2 checks the same with getIntInRange); gone with KIP-74.
    if vt < _v("0.10.1") and cfg["replica.fetch.max.bytes"] < cfg["message.max.bytes"]:
        raise ConfigError(f"requirement failed: replica.fetch.max.bytes should be equal or greater than "
                          f"message.max.bytes (replica.fetch.max.bytes={cfg['replica.fetch.max.bytes']}, "
                          f"message.max.bytes={cfg['message.max.bytes']})")
    queued, socket_max = cfg["queued.max.request.bytes"], cfg["socket.request.max.bytes"]
    # KafkaConfig.validateValues, 1.0+ (queued.max.request.bytes is absent before: None).
    if queued is not None and queued > 0 and queued < socket_max:
        raise ConfigError(f"requirement failed: queued.max.request.bytes must be larger or equal to "
                          f"socket.request.max.bytes (queued.max.request.bytes={queued}, "
                          f"socket.request.max.bytes={socket_max})")


# -- 0.8.2 ZooKeeper consumer -----------------------------------------------------------------
def _zk_auto_offset_reset(spec, value, vt):
    if value not in ("smallest", "largest"):
        raise ConfigError(f"Wrong value {value} of auto.offset.reset in ConsumerConfig; "
                          "Valid values are smallest and largest")
    return value


def _zk_offsets_storage(spec, value, vt):
    value = value.lower()  # ConsumerConfig.scala lower-cases it before validating
    if value not in ("zookeeper", "kafka"):
        raise ConfigError(f"Wrong value {value} of offsets.storage in consumer config; "
                          "Valid values are 'zookeeper' and 'kafka'")
    return value


def _zk_strategy(spec, value, vt):
    if value not in ("range", "roundrobin"):
        # PartitionAssignor.createInstance silently falls back to range; kafkasim refuses the typo.
        raise ConfigError(f"Invalid value {value!r} for configuration partition.assignment.strategy: must be "
                          "range or roundrobin (Kafka 0.8.2 would silently use range for any other value)")
    return value


_ZK = ZOOKEEPER_CONSUMER_VERSION
_ZOOKEEPER = [
    _spec("fetch.message.max.bytes", "int", [(_ZK, 1048576)],
          "Bytes requested per partition in each fetch; a larger message can never be consumed.",
          "not validated by ConsumerConfig", low=0),
    _spec("queued.max.message.chunks", "int", [(_ZK, 2)],
          "Capacity of each stream's chunk queue (one chunk = one partition's data from one fetch).",
          "not validated by ConsumerConfig; LinkedBlockingQueue(capacity) throws below 1", low=1),
    _spec("num.consumer.fetchers", "int", [(_ZK, 1)],
          "Fetcher threads per broker; a partition goes to fetcher abs(31*topic.hashCode + partition) % this.",
          "not validated by ConsumerConfig; 0 divides by zero in AbstractFetcherManager", low=1),
    _spec("fetch.min.bytes", "int", [(_ZK, 1)], "Bytes the broker waits for before answering a fetch."),
    _spec("fetch.wait.max.ms", "int", [(_ZK, 100)],
          "Longest the broker holds a fetch; must not exceed socket.timeout.ms."),
    _spec("socket.timeout.ms", "int", [(_ZK, 30000)],
          "Socket timeout of fetch requests; must be at least fetch.wait.max.ms."),
    _spec("rebalance.max.retries", "int", [(_ZK, 4)],
          "Rebalance attempts before the consumer gives up (ConsumerRebalanceFailedException).",
          "not validated by ConsumerConfig; 0: syncedRebalance throws at once, without an attempt", low=0),
    _spec("rebalance.backoff.ms", "int", [(_ZK, 2000)],
          "Wait between rebalance attempts; defaults to zookeeper.sync.time.ms.",
          "not validated by ConsumerConfig; Thread.sleep throws on a negative value", low=0,
          derive=lambda cfg: cfg["zookeeper.sync.time.ms"]),
    _spec("refresh.leader.backoff.ms", "int", [(_ZK, 200)],
          "Wait before looking up a new leader for a partition that lost its leader."),
    _spec("zookeeper.session.timeout.ms", "int", [(_ZK, 6000)],
          "ZooKeeper session timeout: the failure detector; expiry deletes the consumer's ephemeral nodes.",
          "not validated by ConsumerConfig; the ZooKeeper server clamps it to [2, 20] x tickTime", low=1),
    _spec("zookeeper.connection.timeout.ms", "int", [(_ZK, 6000)],
          "Longest wait to connect to ZooKeeper; defaults to zookeeper.session.timeout.ms.",
          derive=lambda cfg: cfg["zookeeper.session.timeout.ms"]),
    _spec("zookeeper.sync.time.ms", "int", [(_ZK, 2000)], "How far a ZooKeeper follower can be behind the leader.",
          "not validated by ConsumerConfig; the default of rebalance.backoff.ms", low=0),
    _spec("auto.commit.enable", "boolean", [(_ZK, True)], "Commit consumed offsets periodically."),
    _spec("auto.commit.interval.ms", "int", [(_ZK, 60000)], "Interval between automatic offset commits."),
    _spec("auto.offset.reset", "string", [(_ZK, "largest")],
          "Where to start without a committed offset: smallest or largest.", check=_zk_auto_offset_reset),
    _spec("partition.assignment.strategy", "string", [(_ZK, "range")],
          "Assignor every consumer runs locally: range or roundrobin.", check=_zk_strategy),
    _spec("offsets.storage", "string", [(_ZK, "zookeeper")],
          "Where offsets are committed: zookeeper or kafka.", check=_zk_offsets_storage),
    _spec("dual.commit.enabled", "boolean", [(_ZK, False)],
          "With offsets.storage=kafka, also commit to ZooKeeper (for migration); defaults to "
          "offsets.storage == kafka.", derive=lambda cfg: cfg["offsets.storage"] == "kafka"),
    _spec("consumer.timeout.ms", "int", [(_ZK, -1)],
          "Iterator throws ConsumerTimeoutException after this long without a message; -1: block forever."),
]
ZOOKEEPER_CONSUMER_CONFIGS: dict[str, ConfigSpec] = {s.name: s for s in _ZOOKEEPER}


def _check_zookeeper(cfg: dict, vt: tuple, overrides: Mapping) -> None:
    if cfg["fetch.wait.max.ms"] > cfg["socket.timeout.ms"]:
        raise ConfigError("requirement failed: socket.timeout.ms should always be at least fetch.wait.max.ms to "
                          f"prevent unnecessary socket timeouts (fetch.wait.max.ms={cfg['fetch.wait.max.ms']}, "
                          f"socket.timeout.ms={cfg['socket.timeout.ms']})")


# -- resolution -------------------------------------------------------------------------------
def check_exists(kind: str, spec: ConfigSpec, kafka_version) -> None:
    """ConfigError, naming the version that added it, when `spec` does not exist yet in `kafka_version`."""
    if not spec.exists_in(kafka_version):
        raise ConfigError(f"{kind[0].upper() + kind[1:]} config {spec.name!r} does not exist in Kafka "
                          f"{normalize_version(kafka_version)}: it was added in Kafka {spec.added}"
                          + (f" ({spec.added_by})" if spec.added_by else ""))


def _resolve(kind: str, specs: Mapping[str, ConfigSpec], version, line: str, overrides, rules) -> dict:
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"{kind} config overrides must be a dict of Kafka config names, got "
                          f"{type(overrides).__name__}")
    vt = _v(version)
    for name in overrides:
        if name not in specs:
            raise unknown_name(kind, name, specs)
        check_exists(kind, specs[name], line)
    cfg = {name: spec.default(vt) for name, spec in specs.items()}
    for name, value in overrides.items():
        cfg[name] = specs[name].validate(value, vt)
    for name, spec in specs.items():
        if spec.derive is not None and name not in overrides:
            cfg[name] = spec.derive(cfg)
    rules(cfg, vt, overrides)
    return cfg


def consumer_config(kafka_version: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every consumer config kafkasim uses, at `kafka_version`'s defaults, with `overrides` applied.

    Keys are Kafka's names. A config that does not exist yet in that version maps to None
    (e.g. "max.poll.interval.ms" before 0.10.1). Raises ConfigError for an unknown name (with a
    "did you mean"), a config absent from the version, an invalid value, or a broken cross-field
    rule (heartbeat.interval.ms < session.timeout.ms with the classic protocol; before 2.0 also
    request.timeout.ms above session.timeout.ms and fetch.max.wait.ms; from 4.0 session.timeout.ms,
    heartbeat.interval.ms and partition.assignment.strategy may not be set with
    group.protocol=consumer, nor group.remote.assignor with classic, from 3.9).
    """
    line = normalize_version(kafka_version)
    _refuse_share_configs(kafka_version, overrides)
    return _resolve("consumer", CONSUMER_CONFIGS, kafka_version, line, overrides, _check_consumer)


def _refuse_share_configs(kafka_version, overrides) -> None:
    """KafkaConsumer refuses the share consumer's configs under both protocols (ConsumerConfig's
    CLASSIC_ and CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS, 4.1+), in its checkUnsupportedConfigs wording."""
    if not isinstance(overrides, Mapping):
        return
    named = [s.name for s in _SHARE_CONSUMER if s.exists_in(kafka_version) and _given(overrides.get(s.name))]
    if named:
        protocol = str(overrides.get("group.protocol") or "classic").upper()
        raise ConfigError(f"{', '.join(named)} cannot be set when group.protocol={protocol} (share consumer configs: "
                          f"use Scenario(group_type='share') for a KafkaShareConsumer)")


def generated_client_id(kafka_version, group_id: str, group_instance_id: str | None,
                        next_number: Callable[[], int]) -> str:
    """The client.id a consumer gives itself when none is set, calling `next_number` (Kafka's
    process-wide `CONSUMER_CLIENT_ID_SEQUENCE`, from 1) only when the name needs it.

    Up to 2.3 `consumer-<n>` (`KafkaConsumer` at 2.3.0); in 2.4 `consumer-<group.id>-<n>`, or with
    a group.instance.id `consumer-<group.id>-<group.instance.id>`, and `consumer-<n>` without a
    group id (`KafkaConsumer.buildClientId` at 2.4.0); from 2.5 always with the group id, so an
    empty one gives `consumer--<n>` (`ConsumerConfig.maybeOverrideClientId`, KAFKA-9344).
    """
    v = _v(kafka_version)
    if v < (2, 4) or (v < (2, 5) and not group_id):
        return f"consumer-{next_number()}"
    return f"consumer-{group_id}-{group_instance_id if group_instance_id is not None else next_number()}"


def broker_config(kafka_version: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every broker config kafkasim uses, at `kafka_version`'s defaults, with `overrides` applied.

    Same rules as `consumer_config`; absent configs map to None (e.g. "group.max.size" before 2.2).
    Cross-field rules: queued.max.request.bytes, if > 0, must be >= socket.request.max.bytes; before
    0.10.1 replica.fetch.max.bytes >= message.max.bytes; from 3.7 the KIP-848 ones, as
    GroupCoordinatorConfig checks them (each group.consumer heartbeat interval and session timeout within
    its min and max, from 4.0 the interval below the session timeout, from 4.3 the assignment interval within
    its min and max, KIP-1263), classic among
    group.coordinator.rebalance.protocols, and a group.consumer.assignors list the coordinator can key
    by name (not empty, no name twice).
    """
    line = normalize_version(kafka_version)
    return _resolve("broker", BROKER_CONFIGS, kafka_version, line, overrides, _check_broker)


def share_groups_refusal(kafka_version, overrides: Mapping[str, Any] | None = None,
                         share_version: int | None = None) -> str | None:
    """Why a broker of `kafka_version` with these broker configs would answer share RPCs
    UNSUPPORTED_VERSION (35), naming what to set; None when it serves them.

    `KafkaApis.isShareGroupProtocolEnabled`: 4.0, `group.share.enable=true` or share in
    `group.coordinator.rebalance.protocols` (early access); 4.1 and 4.2, `group.share.enable=true`
    or the feature `share.version` >= 1 (4.1: preview, finalized by hand; 4.2: 1 by default in a
    new cluster); 4.3+, `share.version` >= 1 only. `share_version` None: the version's default
    (0 before 4.2, 1 from 4.2)."""
    vt = _v(kafka_version)
    if vt < _v("4.0"):
        return f"Kafka {normalize_version(kafka_version)} has no share groups (KIP-932): they need Kafka 4.0 or later"
    cfg = broker_config(kafka_version, overrides)
    feature = (1 if vt >= _v("4.2") else 0) if share_version is None else share_version
    if vt < _v("4.1"):
        protocols = {p.lower() for p in cfg["group.coordinator.rebalance.protocols"]}
        if cfg["group.share.enable"] or "share" in protocols:
            return None
        return ("share groups are early access in Kafka 4.0 and off by default: set group.share.enable=true or add "
                "share to group.coordinator.rebalance.protocols")
    if feature >= 1 or (vt < _v("4.3") and cfg["group.share.enable"]):
        return None
    if vt < _v("4.2"):
        return ("share groups are a preview in Kafka 4.1 and off by default: finalize the feature share.version=1 "
                "(kafka-features.sh upgrade --feature share.version=1) or set group.share.enable=true")
    return "share groups need the feature share.version=1 (kafka-features.sh upgrade --feature share.version=1)"


def broker_config_warnings(kafka_version: str, overrides: Mapping[str, Any] | None = None) -> list[str]:
    """The WARN lines a broker of `kafka_version` logs about `overrides` at startup (after
    `broker_config` accepted them): from 4.3, setting the deprecated group.coordinator.rebalance.protocols
    (KIP-1237, KAFKA-19740), worded as ``KafkaConfig.groupCoordinatorRebalanceProtocols`` at v8.3.0."""
    cfg = broker_config(kafka_version, overrides)
    name = "group.coordinator.rebalance.protocols"
    if _v(kafka_version) < _v("4.3") or not overrides or name not in overrides:
        return []
    protocols = {p.upper() for p in cfg[name]}
    warnings = []
    if "SHARE" in protocols:
        warnings.append(f"'SHARE' in `{name}` is deprecated. Share groups are controlled by the 'share.version' "
                        "feature. This config will be removed in Kafka 5.0.")
    default = [p.upper() for p in BROKER_CONFIGS[name].default(kafka_version)]
    missing = [p for p in default if p not in protocols]  # Scala's Set difference; printed in default order here
    if missing:
        warnings.append(f"The config `{name}` is deprecated and will be removed in Kafka 5.0. The following "
                        f"protocol(s) are currently disabled: {', '.join(missing)}. In Kafka 5.0, all protocols will "
                        "always be enabled and controlled solely by feature versions (group.version, streams.version, "
                        "share.version) via kafka-features.sh. Please remove the configuration, which will restore "
                        "all protocols to the default enabled state, to prepare for the upgrade.")
    else:
        warnings.append(f"The config `{name}` is deprecated and will be removed in Kafka 5.0. Please remove the "
                        "configuration to prepare for the upgrade.")
    return warnings


def zookeeper_consumer_config(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The 0.8.2 ZooKeeper consumer's configs (ConsumerConfig.scala @ 0.8.2.2), with `overrides` applied.

    rebalance.backoff.ms follows zookeeper.sync.time.ms, zookeeper.connection.timeout.ms follows
    zookeeper.session.timeout.ms and dual.commit.enabled follows offsets.storage, as in Kafka.
    Kafka 0.8.2 only logs unknown property names; kafkasim rejects them (with a "did you mean").
    """
    return _resolve("ZooKeeper consumer", ZOOKEEPER_CONSUMER_CONFIGS, _ZK, _ZK, overrides, _check_zookeeper)
