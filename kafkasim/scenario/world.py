"""A learner's question as data (`Scenario`), the simulation that answers it (`simulate`), and
the answer (`Run`: events, summary, broker log), which always carries its scenario."""

from __future__ import annotations

import dataclasses
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import kafkasim.core.faults as faults_module
from kafkasim.core.config import (broker_config, consumer_config, generated_client_id, parse_version,
                                  share_consumer_config, share_groups_refusal)
from kafkasim.client.client_log import check_client_log, client_log
from kafkasim.client.consumer import Consumer
from kafkasim.client.consumer_membership import consumer_class
from kafkasim.client.share_consumer import ShareConsumer
from kafkasim.coordinator import GroupCoordinator
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError, check_int
from kafkasim.core.events import FIELDS, to_frame
from kafkasim.scenario.run import Run
from kafkasim.scenario.share import ShareLog, check_share_scenario
from kafkasim.scenario.workload import Distribution, Partitions, ProcessingClock, as_distribution

_BROKER_ARGS = {
    "group.initial.rebalance.delay.ms": "group_initial_rebalance_delay_ms",
    "group.min.session.timeout.ms": "group_min_session_timeout_ms",
    "group.max.session.timeout.ms": "group_max_session_timeout_ms",
    "group.max.size": "group_max_size",
    "group.consumer.session.timeout.ms": "group_consumer_session_timeout_ms",
    "group.consumer.heartbeat.interval.ms": "group_consumer_heartbeat_interval_ms",
    "group.consumer.max.size": "group_consumer_max_size",
    "group.consumer.assignors": "group_consumer_assignors",
    "group.consumer.assignment.interval.ms": "group_consumer_assignment_interval_ms",
    "group.consumer.min.assignment.interval.ms": "group_consumer_min_assignment_interval_ms",
    "group.consumer.max.assignment.interval.ms": "group_consumer_max_assignment_interval_ms",
    "group.consumer.migration.policy": "group_consumer_migration_policy",
    **{name: name.replace(".", "_") for name in (
        "group.share.session.timeout.ms", "group.share.heartbeat.interval.ms", "group.share.max.size",
        "group.share.record.lock.duration.ms", "group.share.delivery.count.limit",
        "group.share.partition.max.record.locks", "group.share.min.session.timeout.ms",
        "group.share.max.session.timeout.ms", "group.share.min.heartbeat.interval.ms",
        "group.share.max.heartbeat.interval.ms", "group.share.min.record.lock.duration.ms",
        "group.share.max.record.lock.duration.ms", "group.share.assignors",
        "group.share.assignment.interval.ms", "group.share.min.assignment.interval.ms",
        "group.share.max.assignment.interval.ms", "group.share.min.delivery.count.limit",
        "group.share.max.delivery.count.limit", "group.share.min.partition.max.record.locks",
        "group.share.max.partition.max.record.locks")},
}


@dataclass(frozen=True)
class Scenario:
    """Everything that determines a run. Configs use Kafka's names; unset ones take the
    defaults of `kafka_version`. Same scenario (and seed): the same events, byte for byte.

    Each consumer is its own process (a `Crash` kills one, not the others), so a consumer without a
    client.id takes the first number of its own JVM's counter: `consumer-<group.id>-1` for every one
    from 2.4 (`consumer-1` before), and the members' ids differ only by their UUID, which is what
    orders them for range and roundrobin. `one_process=True` builds them all in one JVM, as the
    consumer threads of one application: numbered 1, 2, 3 ... in the order they start.

    The group starts with committed offsets at the beginning of every partition, production
    runs for `duration_ms`, and the consumers get `drain_ms` more to catch up. The initial
    consumers start at seeded random instants within the first `start_spread_ms` (real processes
    never start in the same millisecond, and their heartbeat and poll phases differ with it).

    `client_log` collects each consumer's own log, worded as the Java client ("java", Kafka 2.7+,
    classic or consumer protocol) or librdkafka ("librdkafka", `debug=cgrp`) writes it, in
    `Run.client_logs` (kafkasim.client.client_log); None (the default) collects none.
    `group_type="share"` runs a share group (KIP-932) instead: `consumer` holds a KafkaShareConsumer's
    configs (`core.config.share_consumer_config`: the consumer configs ShareConsumerConfig refuses are
    refused), the group reads from offset 0 (its `share.auto.offset.reset` group config is set to
    earliest), `share_version` is the broker's share.version feature (None: the version's default,
    on from 4.2), `share_renew_ms` makes the application renew its batch's locks that often while it
    processes it (explicit mode, 4.2+: RENEW), the faults include `PoisonRecord`, and every run is checked against KIP-932's
    guarantees (`scenario.share.share_invariants`); the summary adds `SHARE_SUMMARY_DOC`'s metrics.
    """

    kafka_version: str = "3.7"
    members: int = 6
    topics: dict = field(default_factory=lambda: {"orders": 12})
    produce_rate_per_s: Any = 1000
    duration_ms: int = 600_000
    seed: int = 1
    consumer: dict = field(default_factory=dict)
    broker: dict = field(default_factory=dict)
    processing_ms: Any = 2.0
    faults: tuple = ()
    static_membership: bool = False
    one_process: bool = False
    group_id: str = "workbook-group"
    poll_resolution_ms: int = 1000
    drain_ms: int = 0
    sample_ms: int = 1000
    start_spread_ms: int = 1000
    client_log: str | None = None
    group_type: str = "consumer"
    share_version: int | None = None
    share_renew_ms: int | None = None

    def __post_init__(self):
        set_ = object.__setattr__
        check_int("members", self.members, 1)
        check_int("duration_ms", self.duration_ms, 1)
        check_int("poll_resolution_ms", self.poll_resolution_ms, 1)
        check_int("drain_ms", self.drain_ms, 0)
        check_int("sample_ms", self.sample_ms, 1)
        check_int("start_spread_ms", self.start_spread_ms, 0)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be an int >= 0, got {self.seed!r}")
        if not isinstance(self.group_id, str):
            raise ConfigError(f"group_id must be a string, got {self.group_id!r}: without a group.id Kafka's consumer "
                              f"throws InvalidGroupIdException (\"To use the group management or offset commit APIs, "
                              f"you must provide a valid group.id in the consumer configuration.\")")
        for name in ("consumer", "broker"):
            value = getattr(self, name)
            if value is None:
                set_(self, name, {})
            elif not isinstance(value, dict):
                raise ConfigError(f"{name} must be a dict of Kafka {name} configs, e.g. {{'session.timeout.ms': "
                                  f"45000}} ({{}} for the defaults), got {value!r}")
        if not isinstance(self.topics, dict) or not self.topics:
            raise ConfigError(f"topics must map topic names to partition counts, e.g. {{'orders': 12}}, "
                              f"got {self.topics!r}")
        for topic, count in self.topics.items():
            if not isinstance(topic, str) or not topic:
                raise ConfigError(f"topic names must be non-empty strings, got {topic!r}")
            check_int(f"partitions of topic {topic!r}", count, 1)
        rates = self.produce_rate_per_s.values() if isinstance(self.produce_rate_per_s, dict) \
            else [self.produce_rate_per_s]
        for rate in rates:
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < float("inf"):
                raise ConfigError(f"produce_rate_per_s must be a finite number >= 0 records/s, got {rate!r}")
        if isinstance(self.produce_rate_per_s, dict) and set(self.produce_rate_per_s) - set(self.topics):
            raise ConfigError(f"produce_rate_per_s names topics that are not in topics: "
                              f"{sorted(map(str, set(self.produce_rate_per_s) - set(self.topics)))}")
        set_(self, "processing_ms", as_distribution(self.processing_ms))
        if isinstance(self.faults, (faults_module.Fault, faults_module.GroupChange)):
            set_(self, "faults", (self.faults,))  # one fault on its own
        if not isinstance(self.faults, (list, tuple)):
            raise ConfigError(f"faults must be a list of faults (Crash, Restart, Pause, SlowProcessing, NetworkCut, "
                              f"ScaleOut, ScaleIn; PoisonRecord for a share group), got {self.faults!r}")
        set_(self, "faults", tuple(self.faults))
        if not isinstance(self.static_membership, bool):
            raise ConfigError(f"static_membership must be True or False, got {self.static_membership!r}")
        if not isinstance(self.one_process, bool):
            raise ConfigError(f"one_process must be True or False, got {self.one_process!r}")
        for f in self.faults:
            if not isinstance(f, faults_module.ALL):
                raise ConfigError(f"faults must be kafkasim.core.faults objects (Crash, Restart, Pause, SlowProcessing, "
                                  f"NetworkCut, ScaleOut, ScaleIn; PoisonRecord for a share group), got {f!r}")
        parse_version(self.kafka_version)
        if self.group_type not in ("consumer", "share"):
            raise ConfigError(f"group_type must be 'consumer' (a consumer group: classic or KIP-848, as group.protocol "
                              f"says) or 'share' (a share group, KIP-932), got {self.group_type!r}")
        if self.group_type == "share":
            if self.share_version is not None:
                check_int("share_version", self.share_version, 0)
            set_(self, "broker_config", broker_config(self.kafka_version, self.broker))
            refusal = share_groups_refusal(self.kafka_version, self.broker, self.share_version)
            if refusal is None:
                set_(self, "consumer_config", share_consumer_config(self.kafka_version, self.consumer))
            check_share_scenario(self, refusal)
            return
        if any(isinstance(f, faults_module.PoisonRecord) for f in self.faults):
            raise ConfigError("PoisonRecord needs a share group (Scenario(group_type='share', ...)): a consumer group's "
                              "application cannot acknowledge one record, it commits offsets")
        if self.share_version is not None or self.share_renew_ms is not None:
            raise ConfigError("share_version and share_renew_ms apply to group_type='share' only")
        if "group.instance.id" in self.consumer:
            raise ConfigError("group.instance.id is per member: use Scenario(static_membership=True), which gives "
                              "each consumer its own name as group.instance.id")
        set_(self, "consumer_config", consumer_config(self.kafka_version, self.consumer))
        set_(self, "broker_config", broker_config(self.kafka_version, self.broker))
        if self.static_membership and parse_version(self.kafka_version) < (2, 3):
            raise ConfigError(f"static membership (group.instance.id, KIP-345) needs Kafka 2.3 or later, "
                              f"not {self.kafka_version}")
        self._check_consumer_protocol(self.consumer_config)
        check_client_log(self.client_log, self.kafka_version, self.consumer_config.get("group.protocol"))
        for f in self.faults:
            if getattr(f, "consumer", None):  # a restart into other configs: refused now, not mid-run
                self._check_consumer_protocol(self.restart_config(f.consumer))

    def restart_config(self, changes: dict) -> dict:
        """The consumer configs of a member restarted with `changes` (a value None unsets one)."""
        merged = {k: v for k, v in {**self.consumer, **changes}.items() if v is not None}
        resolve = share_consumer_config if self.group_type == "share" else consumer_config
        return resolve(self.kafka_version, merged)

    def _check_consumer_protocol(self, config: dict) -> None:
        """group.protocol=consumer needs a broker that serves ConsumerGroupHeartbeat (KafkaApis'
        `isConsumerGroupProtocolEnabled`): on by default from 4.0, early access before."""
        if config.get("group.protocol") != "consumer":
            return
        protocols = self.broker_config.get("group.coordinator.rebalance.protocols") or []
        if "consumer" not in protocols:
            raise ConfigError(f"group.protocol=consumer needs a broker whose group.coordinator.rebalance.protocols "
                              f"includes consumer (the default from Kafka 4.0); in Kafka {self.kafka_version} it is "
                              f"{protocols}: use kafka_version='4.0' or later, or set broker="
                              f"{{'group.coordinator.rebalance.protocols': ['classic', 'consumer']}} (early access)")

    def replace(self, **changes) -> "Scenario":
        """A copy with some fields changed (configs merge: consumer={...} adds to the existing ones)."""
        for key in ("consumer", "broker"):
            if key in changes:
                changes[key] = {**getattr(self, key), **changes[key]}
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        """A JSON-able description (stored with every Run and its Parquet file)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if self.client_log is None:  # the dicts (and stored results' keys) of runs without client logs stay as they were
            del out["client_log"]
        dist = self.processing_ms
        out["processing_ms"] = {"type": type(dist).__name__, "describe": dist.describe(),
                                **{k: v for k, v in vars(dist).items() if isinstance(v, (int, float, str))}}
        out["faults"] = [{"type": type(f).__name__, **dataclasses.asdict(f)} for f in self.faults]
        return out


class World:
    """What the models of one run share: clock, coordinator, partitions, consumers, outputs."""

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.sim = Simulation(scenario.seed)
        self.sim.max_events_per_second = MAX_EVENTS_PER_MEMBER_SECOND * max(1, scenario.members)
        broker = scenario.broker_config
        kwargs = {arg: broker[name] for name, arg in _BROKER_ARGS.items() if broker.get(name) is not None}
        if scenario.group_type == "share":  # the share coordinator answers InitializeShareGroupState at once
            kwargs["share_state_init_delay_ms"] = 0
        self.coord = GroupCoordinator(self.sim, kafka_version=scenario.kafka_version, topics=dict(scenario.topics),
                                      **kwargs)
        self.version = parse_version(scenario.kafka_version)
        self.group_id = scenario.group_id
        self.rows = self.sim.events.rows
        self.topics = sorted(scenario.topics)
        self.topic_partitions = dict(scenario.topics)
        self.partitions = Partitions(scenario.topics, scenario.produce_rate_per_s, scenario.duration_ms)
        self.poll_resolution_ms = scenario.poll_resolution_ms
        self.member_names: dict[str, str] = {}
        self.client_names: dict[str, str | None] = {}  # client.id -> consumer name (None: shared)
        self.consumers: dict[str, Consumer] = {}
        self._client_numbers: dict[str, int] = {}     # consumer name -> n of its generated client.id
        self.client_logs: dict[str, list[str]] = {}    # consumer name -> its log lines (Scenario.client_log)
        self.share = ShareLog(self) if scenario.group_type == "share" else None
        self.share_renew_ms = scenario.share_renew_ms

    def share_partition(self, i: int):
        """The leader's share partition of partition index i (ShareConsumer's World)."""
        return self.share.partition(i)

    def share_acknowledge(self, i: int, member_id: str, ranges: list):
        return self.share.acknowledge(i, member_id, ranges)

    def share_release_all(self, i: int, member_id: str):
        return self.share.release_all(i, member_id)

    def log_batches(self, i: int, fetch_offset: int, max_records: int, now: int) -> list[tuple[int, int]]:
        return self.share.log_batches(i, fetch_offset, max_records, now)

    def app_acknowledgements(self, i: int, first: int, last: int) -> list[tuple[int, int, str]]:
        return self.share.app_acknowledgements(i, first, last)

    def add_poison(self, fault) -> None:
        self.share.add_poison(fault)

    def processing_clock(self, name: str) -> ProcessingClock:
        rng = np.random.default_rng([self.scenario.seed, zlib.crc32(name.encode())])
        return ProcessingClock(self.scenario.processing_ms, rng)

    def consumer(self, name: str) -> Consumer:
        try:
            return self.consumers[name]
        except KeyError:
            raise ConfigError(f"fault names member {name!r}, but the members are {', '.join(self.consumers)}") from None

    def add_consumer(self, start_ms: int = 0) -> Consumer:
        name = f"c-{len(self.consumers) + 1}"
        consumer = self._new_consumer(name, dict(self.scenario.consumer_config), start_ms)
        self.sim.at(start_ms, consumer.start)
        return consumer

    def replace_consumer(self, name: str, changes: dict) -> Consumer:
        """The member's process comes back with some configs changed (a rolling upgrade): a new
        consumer of the implementation those configs select, under the same name."""
        consumer = self._new_consumer(name, self.scenario.restart_config(changes), self.sim.now)
        consumer.start()
        return consumer

    def _new_consumer(self, name: str, config: dict, start_ms: int) -> Consumer:
        """The consumer `name`, of the implementation its configs select (a static member's
        group.instance.id is its name; an empty client.id is generated as Kafka does)."""
        if self.scenario.static_membership:
            config["group.instance.id"] = name
        style = self.scenario.client_log
        if style == "librdkafka" and not config.get("client.id"):
            config["client.id"] = "rdkafka"  # librdkafka's default client.id
        if not config.get("client.id"):  # also a share consumer's (ConsumerConfig.maybeOverrideClientId, inherited)
            number = (lambda: self._client_number(name)) if self.scenario.one_process else (lambda: 1)
            config["client.id"] = generated_client_id(self.version, self.group_id, config.get("group.instance.id"),
                                                      number)
        client_id = config["client.id"]
        self.client_names[client_id] = name if self.client_names.get(client_id, name) == name else None
        cls = ShareConsumer if self.scenario.group_type == "share" else consumer_class(config)
        consumer = self.consumers[name] = cls(self, name, config, start_ms)
        if style is not None:  # a restarted process writes on in the same log
            consumer.log = client_log(style, self.client_logs.setdefault(name, []), self.version, client_id,
                                      self.group_id, config.get("group.instance.id"), config.get("group.protocol"))
        return consumer

    def _client_number(self, name: str) -> int:
        """n of the generated client.id `consumer-<group.id>-<n>` when one process builds every
        consumer (`Scenario.one_process`): Kafka's process-wide CONSUMER_CLIENT_ID_SEQUENCE counts
        them from 1, so c-3 is the third; a consumer the application builds again after a restart
        takes its number again (the simulator's simplification: Kafka would count on)."""
        return self._client_numbers.setdefault(name, len(self._client_numbers) + 1)

    @property
    def end_ms(self) -> int:
        return self.scenario.duration_ms + self.scenario.drain_ms


#: Engine events a run may take per simulated second per member (`Simulation.max_events_per_second`):
#: a member heartbeating every millisecond takes a few thousand; the chapters' runs take under ten.
MAX_EVENTS_PER_MEMBER_SECOND = 100_000
#: The most events `simulate` writes without being asked: about 3 GB of memory and half a minute.
EVENT_LIMIT = 10_000_000
#: Events one core simulates and summarises per second, for estimates: 180,000 on the default
#: scenario, 80,000 on a group of 1,000 members (benchmarks/README.md, scenario_speed).
EVENTS_PER_SECOND = 150_000


#: Events a member writes once, whatever the run's length: its JoinGroup (twice from 2.2), the
#: responses, SyncGroup and its first assignment (measured: about 7 for 2,000 members in 1 s).
EVENTS_PER_MEMBER_JOIN = 7


def estimate_events(scenario: Scenario) -> int:
    """About how many events a run writes (within a third on the chapters' scenarios): per
    partition, some 1.4 events per simulated second at a 1 s poll resolution, 2.8x that at 250 ms
    (fetches, batches, commits); per member, 0.3 per second plus one per heartbeat while it is in
    the run, and about 7 for joining. Members that faults add (ScaleOut) count from their start,
    so a fault that adds millions of members is refused like a scenario that starts with them."""
    end_ms = scenario.duration_ms + scenario.drain_ms
    cfg = scenario.consumer_config
    if scenario.group_type == "share":
        heartbeat_ms = scenario.broker_config["group.share.heartbeat.interval.ms"]
    elif cfg.get("group.protocol") == "consumer":
        heartbeat_ms = scenario.broker_config["group.consumer.heartbeat.interval.ms"]  # 3.7+ (as the protocol), >= 1
    else:
        heartbeat_ms = cfg["heartbeat.interval.ms"]
    partitions = sum(scenario.topics.values()) * 1.4 * max(1.0, 1000 / scenario.poll_resolution_ms) ** 0.75
    added = [f for f in scenario.faults if isinstance(f, faults_module.ScaleOut)]
    members = scenario.members + sum(f.count for f in added)
    member_seconds = scenario.members * end_ms / 1000 + sum(f.count * max(0, end_ms - f.at_ms) / 1000 for f in added)
    # a share consumer writes some 5 rows per poll (Fetched, Processed, Acquired, Acknowledged, the write)
    polls = 5 * 1000 / scenario.poll_resolution_ms if scenario.group_type == "share" else 0
    return int(end_ms / 1000 * partitions + member_seconds * (0.3 + 1000 / heartbeat_ms + polls)
               + members * EVENTS_PER_MEMBER_JOIN)


def _check_size(scenario: Scenario, max_events: int | None) -> None:
    if max_events is None:
        return
    events = estimate_events(scenario)
    if events > max_events:
        raise ConfigError(f"this scenario would write about {events:,} events (about {events * 300 / 2**30:,.1f} GB "
                          f"and {events / EVENTS_PER_SECOND / 60:,.0f} min), more than the {max_events:,} that simulate() "
                          f"runs without being asked: shorten duration_ms, use fewer members (ScaleOut's count "
                          f"included) or partitions, or call simulate(scenario, max_events=None) to run it anyway")


def simulate(scenario: Scenario, *, max_events: int | None = EVENT_LIMIT) -> Run:
    """Run a scenario to its end and return the Run (events, summary, broker log, provenance).

    A scenario estimated (`estimate_events`) above `max_events` is refused before it starts
    (None: no limit); a run whose clock stops moving ends with `SimulationStalled`."""
    if not isinstance(scenario, Scenario):
        raise TypeError(f"simulate() takes a Scenario, got {type(scenario).__name__}")
    _check_size(scenario, max_events)
    world = World(scenario)
    if world.share is not None:  # the group reads from the start, as a consumer group from committed offsets 0
        world.coord.set_group_config(world.group_id, {"share.auto.offset.reset": "earliest"})
    else:
        world.coord.commit_offsets(world.group_id, "", -1, {tp: 0 for tp in world.partitions.tps})
    spread = world.sim.random("start")
    for _ in range(scenario.members):
        world.add_consumer(spread.randrange(scenario.start_spread_ms) if scenario.start_spread_ms else 0)
    for fault in sorted(scenario.faults, key=lambda f: not isinstance(f, faults_module.ScaleOut)):
        for name in getattr(fault, "members", None) or [getattr(fault, "member", None)]:
            if name is not None:
                world.consumer(name)  # an unknown member is a ConfigError now, not deep in the run
        fault.schedule(world)
    world.sim.run(until=world.end_ms)
    if world.share is not None:
        world.share.finish()
    return Run(scenario, world)
