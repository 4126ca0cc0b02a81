"""The knobs of the explorers, by Kafka name: what each one reads from a Scenario and how a
value turns into a new Scenario. Shared by the live explorer (kafkasim.viz.widgets) and the
precomputed grid explorer (kafkasim.viz.grid_explorer), so that both speak the same names.

Names are Kafka's config keys where one exists (``session.timeout.ms``,
``partition.assignment.strategy``); the rest name the scenario's workload and faults
(``members``, ``processing.p99.ms``, ``fault.at.ms``). `scenario_with` changes only the knobs it is
given, so a config nobody touched keeps the default of the chosen Kafka version, and a
config that does not exist in that version raises Kafka's error only if someone set it.

``group.protocol`` chooses the rebalance protocol: classic (JoinGroup/SyncGroup) or consumer
(KIP-848, ConsumerGroupHeartbeat; needs Kafka 4.0 or later, where brokers serve it by default).
Kafka's client refuses the classic protocol's configs under group.protocol=consumer
(``session.timeout.ms``, ``heartbeat.interval.ms``, ``partition.assignment.strategy``:
ConsumerConfig, KAFKA-17338), so choosing consumer clears them from the scenario (the group's
session timeout and heartbeat interval are then the broker's ``group.consumer.*`` configs, its
assignor the broker's), and their knobs, with ``rebalance.protocol``, show no value.

Simplifications: ``partitions`` sets the partition count of the scenario's first topic
(alphabetically); ``rebalance.protocol`` is not a Kafka config but the protocol the assignors
imply (KIP-429: cooperative needs every configured assignor to support it, which among the
built-in ones only cooperative-sticky does), so choosing "cooperative" configures
``cooperative-sticky`` and choosing "eager" replaces a lone cooperative-sticky by ``sticky``;
the fault knobs replace the scenario's faults by one fault on ``fault.member``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import kafkasim.core.faults as faults_module
from kafkasim.client.assignors import rebalance_protocols
from kafkasim.core.config import ASSIGNORS, CONSUMER_CONFIGS, KAFKA_VERSIONS, normalize_version, version_tuple
from kafkasim.core.errors import ConfigError
from kafkasim.scenario.workload import Constant, LogNormal

#: Consumer configs that a knob sets directly (an int each).
CONSUMER_KNOBS = ("session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "max.poll.records")
STRATEGY = "partition.assignment.strategy"
PROTOCOLS = ("eager", "cooperative")
GROUP_PROTOCOL = "group.protocol"
GROUP_PROTOCOLS = ("classic", "consumer")
#: Consumer configs Kafka's client refuses under group.protocol=consumer (4.0+, KAFKA-17338).
CLASSIC_ONLY = ("session.timeout.ms", "heartbeat.interval.ms", STRATEGY)
#: Knobs that mean nothing under group.protocol=consumer (they show no value there).
CLASSIC_KNOBS = (*CLASSIC_ONLY, "rebalance.protocol")
#: Broker configs of share groups (KIP-932) that a knob sets.
LOCK_DURATION = "group.share.record.lock.duration.ms"
DELIVERY_LIMIT = "group.share.delivery.count.limit"
SHARE_KNOBS = (LOCK_DURATION, DELIVERY_LIMIT)
#: Faults a knob can choose (kafkasim.core.faults), "none" for no fault.
FAULTS = ("none", "Crash", "Restart", "Pause", "SlowProcessing", "NetworkCut", "ScaleOut", "ScaleIn")
_TIMES = (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000)


@dataclass(frozen=True)
class Knob:
    """One explorer control: how to show it (kind: "int", "steps", "choice", "toggle", "bool")."""

    name: str
    label: str
    kind: str
    low: int = 0
    high: int = 0
    step: int = 1
    options: tuple = ()
    doc: str = ""


KNOBS: dict[str, Knob] = {k.name: k for k in (
    Knob("session.timeout.ms", "session.timeout.ms", "steps",
         options=(1000, 3000, 6000, 10_000, 15_000, 20_000, 30_000, 45_000, 60_000, 120_000, 300_000),
         doc="time without a heartbeat before the coordinator removes the member; the broker accepts "
             "group.min.session.timeout.ms (6 s) to group.max.session.timeout.ms, else INVALID_SESSION_TIMEOUT"),
    Knob("heartbeat.interval.ms", "heartbeat.interval.ms", "steps",
         options=(500, 1000, 2000, 3000, 5000, 10_000, 15_000, 20_000, 30_000, 60_000),
         doc="time between heartbeats; must be lower than session.timeout.ms (Kafka advises a third of it)"),
    Knob("max.poll.interval.ms", "max.poll.interval.ms", "steps",
         options=(5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000),
         doc="longest time between poll() calls before the member leaves (KIP-62, 0.10.1+)"),
    Knob("max.poll.records", "max.poll.records", "steps",
         options=(1, 5, 10, 50, 100, 200, 500, 1000, 2000, 5000), doc="most records one poll() returns"),
    Knob("processing.median.ms", "processing median (ms/record)", "steps", options=_TIMES,
         doc="median processing time per record (log-normal)"),
    Knob("processing.p99.ms", "processing p99 (ms/record)", "steps", options=_TIMES,
         doc="99th percentile of the processing time per record (log-normal)"),
    Knob("members", "members", "int", 1, 12, 1, doc="consumers in the group"),
    Knob("partitions", "partitions", "steps", options=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48),
         doc="partitions of the topic"),
    Knob("group.max.size", "group.max.size", "int", 1, 12, 1,
         doc="broker: most members a group may have; beyond it GROUP_MAX_SIZE_REACHED (81, fatal) (KIP-389, 2.2+)"),
    Knob(LOCK_DURATION, LOCK_DURATION, "steps", options=(15_000, 20_000, 30_000, 45_000, 60_000),
         doc="broker (share groups, KIP-932): how long a record stays acquired by one consumer before it is "
             "redelivered; the broker accepts group.share.min.record.lock.duration.ms (15 s) to "
             "group.share.max.record.lock.duration.ms (60 s)"),
    Knob(DELIVERY_LIMIT, DELIVERY_LIMIT, "int", 2, 10, 1,
         doc="broker (share groups, KIP-932): deliveries of a record before it is archived (2 to 10)"),
    Knob(STRATEGY, "partition.assignment.strategy", "choice", options=tuple(ASSIGNORS),
         doc="the assignor (range, roundrobin, sticky 0.11+, cooperative-sticky 2.4+)"),
    Knob("rebalance.protocol", "rebalance protocol", "toggle", options=PROTOCOLS,
         doc="eager (revoke everything, stop the world) or cooperative (KIP-429, 2.4+)"),
    Knob(GROUP_PROTOCOL, "group.protocol", "toggle", options=GROUP_PROTOCOLS,
         doc="classic (JoinGroup/SyncGroup) or consumer (KIP-848: ConsumerGroupHeartbeat, the broker assigns; "
             "Kafka 4.0+); consumer clears session.timeout.ms, heartbeat.interval.ms and "
             "partition.assignment.strategy, which Kafka's client refuses with it"),
    Knob("static.membership", "static membership (group.instance.id)", "bool",
         doc="each consumer sets group.instance.id (KIP-345, 2.3+)"),
    Knob("kafka.version", "Kafka version", "choice", options=KAFKA_VERSIONS,
         doc="defaults and behaviour of this Kafka release line"),
    Knob("fault", "fault", "choice", options=FAULTS, doc="a fault injected on fault.member (kafkasim.core.faults)"),
    Knob("fault.at.ms", "fault at (ms)", "int", 0, 600_000, 1000,
         doc="when the fault happens (stops: a twelfth of the run, in whole 5 s)"),
    Knob("fault.duration.ms", "fault duration (ms)", "steps",
         options=(1000, 5000, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 90_000, 120_000, 300_000),
         doc="how long a pause, stall or network cut lasts (a restart: time down)"),
    Knob("fault.member", "fault on member", "choice", doc="which consumer the fault hits"),
)}
DEFAULT_CONTROLS = ("session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "max.poll.records",
                    "processing.median.ms", "processing.p99.ms", "members", "fault", "fault.at.ms",
                    "fault.duration.ms")


def check_names(names) -> None:
    unknown = [n for n in names if n not in KNOBS]
    if unknown:
        raise ConfigError(f"unknown explorer setting(s) {unknown}; known: {', '.join(KNOBS)}")


def _fault(scenario):
    return scenario.faults[0] if scenario.faults else None


def _duration(fault) -> int:
    return getattr(fault, "duration_ms", None) or getattr(fault, "delay_ms", None) or 20_000


def _strategies(base, version: str) -> list[str]:
    """The assignors in force: base's override, else the version's default."""
    value = base.consumer.get(STRATEGY)
    if value is None:
        return CONSUMER_CONFIGS[STRATEGY].default(version)
    return [value] if isinstance(value, str) else list(value)


def protocol_of(strategies, version: str) -> str:
    """ConsumerCoordinator: cooperative iff every configured assignor supports it (and 2.4+)."""
    common = set.intersection(*(rebalance_protocols(s) for s in strategies))
    return "cooperative" if "cooperative" in common and version_tuple(version) >= (2, 4) else "eager"


def group_protocol(scenario) -> str:
    """The scenario's group protocol: "consumer" (KIP-848) or "classic"."""
    return "consumer" if scenario.consumer_config.get(GROUP_PROTOCOL) == "consumer" else "classic"


def current(name: str, scenario) -> Any:
    """The value a knob shows for a scenario (None: not applicable, e.g. a config absent in its
    Kafka version, a classic-only knob under group.protocol=consumer, or a custom
    processing-time sampler)."""
    version = normalize_version(scenario.kafka_version)
    dist, fault = scenario.processing_ms, _fault(scenario)
    protocol = group_protocol(scenario)
    if name == GROUP_PROTOCOL:
        return protocol
    if name in CLASSIC_KNOBS and protocol == "consumer":
        return None
    if name in CONSUMER_KNOBS:
        return scenario.consumer_config[name]
    if name == STRATEGY:
        return scenario.consumer_config[STRATEGY][0]
    if name == "rebalance.protocol":
        return protocol_of(scenario.consumer_config[STRATEGY], version)
    if name in ("processing.median.ms", "processing.p99.ms"):
        if isinstance(dist, Constant):
            return dist.ms
        if isinstance(dist, LogNormal):
            return dist.median_ms if name == "processing.median.ms" else dist.p99_ms
        return None
    return {
        "members": scenario.members,
        "partitions": scenario.topics[sorted(scenario.topics)[0]],
        "group.max.size": scenario.broker_config["group.max.size"],
        LOCK_DURATION: scenario.broker_config.get(LOCK_DURATION),
        DELIVERY_LIMIT: scenario.broker_config.get(DELIVERY_LIMIT),
        "static.membership": scenario.static_membership,
        "kafka.version": version,
        "fault": type(fault).__name__ if fault is not None else "none",
        "fault.at.ms": fault.at_ms if fault is not None else scenario.duration_ms // 3,
        "fault.duration.ms": _duration(fault),
        "fault.member": getattr(fault, "member", None) or "c-1",
    }[name]


def version_default(name: str, base, version: str) -> Any:
    """What a config knob shows in `version` when nobody set it: base's override or the version's
    default (None where the config does not exist in that version). Other knobs: None."""
    if name in CONSUMER_KNOBS:
        return base.consumer.get(name, CONSUMER_CONFIGS[name].default(version))
    if name == STRATEGY:
        return _strategies(base, version)[0]
    if name == "rebalance.protocol":
        return protocol_of(_strategies(base, version), version)
    return None


def scenario_with(base, values: dict):
    """`base` with the given knob values applied (ConfigError with Kafka's wording if invalid)."""
    check_names(values)
    version = values.get("kafka.version", base.kafka_version)
    changes: dict[str, Any] = {"kafka_version": version}
    consumer = {name: values[name] for name in CONSUMER_KNOBS if name in values}
    strategies = [values[STRATEGY]] if STRATEGY in values else None
    if "rebalance.protocol" in values:
        protocol = values["rebalance.protocol"]
        if protocol not in PROTOCOLS:
            raise ConfigError(f"rebalance.protocol must be one of {PROTOCOLS}, got {protocol!r}")
        now = strategies or _strategies(base, version)
        if protocol == "cooperative":
            strategies = ["cooperative-sticky"]
        elif protocol_of(now, "3.7") == "cooperative":  # only cooperative-sticky configured
            strategies = ["sticky" if s == "cooperative-sticky" else s for s in now]
    if strategies is not None:
        consumer[STRATEGY] = strategies
    kept = {k: v for k, v in base.consumer.items()  # a version without one of base's configs: left out
            if k not in CONSUMER_CONFIGS or CONSUMER_CONFIGS[k].exists_in(version)}
    if consumer or kept != base.consumer:
        changes["consumer"] = {**kept, **consumer}
    if GROUP_PROTOCOL in values or group_protocol(base) == "consumer":
        changes["consumer"] = _with_protocol(changes.get("consumer", base.consumer),
                                             values.get(GROUP_PROTOCOL, group_protocol(base)))
    if "members" in values:
        changes["members"] = values["members"]
    broker = {name: values[name] for name in ("group.max.size", *SHARE_KNOBS) if name in values}
    if broker:
        changes["broker"] = {**base.broker, **broker}
    if "partitions" in values:
        changes["topics"] = {**base.topics, sorted(base.topics)[0]: values["partitions"]}
    if "static.membership" in values:
        changes["static_membership"] = bool(values["static.membership"])
    if "processing.median.ms" in values or "processing.p99.ms" in values:
        median = values.get("processing.median.ms", current("processing.median.ms", base))
        p99 = values.get("processing.p99.ms", current("processing.p99.ms", base))
        if median is None or p99 is None:
            raise ConfigError("set both processing.median.ms and processing.p99.ms: the base scenario's "
                              "processing time is a custom sampler")
        changes["processing_ms"] = LogNormal(median, p99) if p99 != median else Constant(median)
    if any(name.startswith("fault") for name in values):
        changes["faults"] = _faults(base, values)
    return dataclasses.replace(base, **changes)  # the configs are merged above (Scenario.replace would re-add)


def _with_protocol(consumer: dict, protocol: str) -> dict:
    """Consumer config overrides for `protocol`: consumer drops the configs Kafka refuses with it;
    classic is every version's default, so it is left unset (versions before 3.7 have no such config)."""
    if protocol not in GROUP_PROTOCOLS:
        raise ConfigError(f"group.protocol must be one of {', '.join(GROUP_PROTOCOLS)}, got {protocol!r}")
    dropped = (GROUP_PROTOCOL, *(CLASSIC_ONLY if protocol == "consumer" else ()))
    out = {k: v for k, v in consumer.items() if k not in dropped}
    return {**out, GROUP_PROTOCOL: "consumer"} if protocol == "consumer" else out


def _faults(base, values) -> tuple:
    kind = values.get("fault", current("fault", base))
    if kind not in FAULTS:
        raise ConfigError(f"fault must be one of {', '.join(FAULTS)}, got {kind!r}")
    if kind == "none":
        return ()
    at = values.get("fault.at.ms", current("fault.at.ms", base))
    duration = values.get("fault.duration.ms", current("fault.duration.ms", base))
    member = values.get("fault.member", current("fault.member", base))
    cls = getattr(faults_module, kind)
    if kind == "ScaleOut":
        return (cls(at_ms=at),)
    if kind == "ScaleIn":
        return (cls(at_ms=at, members=(member,)),)
    if kind == "Crash":
        return (cls(member, at),)
    if kind == "Restart":
        return (cls(member, at, delay_ms=duration),)
    return (cls(member, at, duration_ms=duration),)


# -- every combination a chart: the explorer's settings made valid together --------------------------
def unavailable(name: str, version: str) -> str | None:
    """Why a knob does not apply in Kafka `version` ("0.10.1+"), or None if it does."""
    vt = version_tuple(version)
    if name in CONSUMER_KNOBS and not CONSUMER_CONFIGS[name].exists_in(version):
        return f"{CONSUMER_CONFIGS[name].added}+"
    if name == "rebalance.protocol" and vt < (2, 4):
        return "2.4+"
    if name == "static.membership" and vt < (2, 3):
        return "2.3+"
    if name in (GROUP_PROTOCOL, *SHARE_KNOBS) and vt < (4,):
        return "4.0+"
    return None


def fit(base, values: dict, last: str | None = None) -> tuple[dict, list[str]]:
    """The reader's settings changed where Kafka would refuse their combination, with a sentence for
    the reader per change, so that every combination of an explorer's stops draws a run:

    - a processing median above the p99: the one not moved `last` follows (a median cannot exceed
      the p99);
    - heartbeat.interval.ms not below session.timeout.ms (the consumer refuses to start): the one
      not moved `last` follows, the heartbeat at a third of the session timeout as Kafka's
      documentation advises;
    - a feature the chosen Kafka version lacks (the consumer protocol before 4.0, cooperative-sticky
      before 2.4, sticky before 0.11, static membership before 2.3, a config before its release):
      left out, the version's behaviour instead.
    """
    out, notes = dict(values), []
    version = normalize_version(out.get("kafka.version", base.kafka_version))
    vt = version_tuple(version)
    if out.get(GROUP_PROTOCOL, group_protocol(base)) == "consumer" and vt < (4,):
        out[GROUP_PROTOCOL] = "classic"
        notes.append(f"Kafka {version} has no consumer protocol (KIP-848 arrived in 4.0): the classic protocol here.")
    for name in dict.fromkeys([*CONSUMER_KNOBS, *base.consumer]):  # group.protocol: the rule above
        if name != GROUP_PROTOCOL and (name in out or name in base.consumer) and name in CONSUMER_CONFIGS \
                and not CONSUMER_CONFIGS[name].exists_in(version):
            out.pop(name, None)  # scenario_with leaves base's out too
            notes.append(f"{name} arrived in Kafka {CONSUMER_CONFIGS[name].added}: not set in {version}.")
    classic = out.get(GROUP_PROTOCOL, group_protocol(base)) == "classic"
    if classic:
        strategies = [out[STRATEGY]] if STRATEGY in out else _strategies(base, version)
        if out.get("rebalance.protocol") == "cooperative":
            strategies = ["cooperative-sticky"]
        late = [s for s in strategies if vt < version_tuple(ASSIGNORS[s][1])]
        if late:
            out.pop("rebalance.protocol", None)
            out[STRATEGY] = CONSUMER_CONFIGS[STRATEGY].default(version)[0]
            arrived = ", ".join(f"{s} arrived in Kafka {ASSIGNORS[s][1]}" for s in late)
            notes.append(f"{arrived}: {version} uses {out[STRATEGY]} (eager) here.")
    if out.get("static.membership", base.static_membership) and vt < (2, 3):
        out["static.membership"] = False
        notes.append(f"Static membership (group.instance.id, KIP-345) arrived in Kafka 2.3: dynamic members in {version}.")
    median, p99 = (out.get(k, current(k, base)) for k in ("processing.median.ms", "processing.p99.ms"))
    if median is not None and p99 is not None and median > p99:
        if last == "processing.p99.ms" or ("processing.p99.ms" in values and "processing.median.ms" not in values):
            out["processing.median.ms"] = p99
            notes.append(f"The processing median follows the p99 down to {p99:g} ms (a median cannot exceed the p99).")
        else:
            out["processing.p99.ms"] = median
            notes.append(f"The processing p99 rises to the median, {median:g} ms: every record takes that long.")
    if classic:
        session = out.get("session.timeout.ms", version_default("session.timeout.ms", base, version))
        heartbeat = out.get("heartbeat.interval.ms", version_default("heartbeat.interval.ms", base, version))
        if session is not None and heartbeat is not None and heartbeat >= session:
            if last == "heartbeat.interval.ms":
                out["session.timeout.ms"] = heartbeat * 3
                notes.append(f"session.timeout.ms goes to {heartbeat * 3:,} ms, three heartbeat intervals: the "
                             "consumer refuses a heartbeat interval that is not below the session timeout.")
            else:
                out["heartbeat.interval.ms"] = third = max(1, session // 3)  # 1 ms at least: a session under 3 ms
                notes.append(f"heartbeat.interval.ms goes to {third:,} ms, a third of session.timeout.ms: the "
                             "consumer refuses a heartbeat interval that is not below the session timeout.")
    return out, notes


def retarget_faults(scenario) -> tuple[Any, list[str]]:
    """Faults on a member the group does not have when they strike (fewer members than the chapter's
    scenario) moved to the last member it has then, with a sentence for the reader per move. A
    ScaleOut's consumers count from its own millisecond on: `simulate` schedules them before any other
    fault, so a fault at that millisecond finds them started."""
    faults, notes = [], []
    for fault in scenario.faults:
        running = scenario.members + sum(f.count for f in scenario.faults
                                         if isinstance(f, faults_module.ScaleOut) and f.at_ms <= fault.at_ms)
        last = f"c-{running}"
        if isinstance(fault, faults_module.ScaleIn):
            moved = tuple(dict.fromkeys(last if _beyond(m, running) else m for m in fault.members))
            if moved != fault.members:
                notes.append(f"{fault.short_label()} becomes ScaleIn {', '.join(moved)}: the group has "
                             f"{running} member{'s' if running > 1 else ''} at {fault.at_ms / 1000:g} s.")
                fault = dataclasses.replace(fault, members=moved)
        elif isinstance(fault, faults_module.Fault) and _beyond(fault.member, running):
            notes.append(f"The {type(fault).__name__} of {fault.member} hits {last} here: the group has {running} "
                         f"member{'s' if running > 1 else ''} at {fault.at_ms / 1000:g} s.")
            fault = dataclasses.replace(fault, member=last)
        faults.append(fault)
    return dataclasses.replace(scenario, faults=tuple(faults)), notes


def _beyond(member: str, running: int) -> bool:
    """Whether `member` is c-N with N above the `running` members (a name of another form: never moved)."""
    number = member.removeprefix("c-")
    return number != member and number.isdigit() and int(number) > running
