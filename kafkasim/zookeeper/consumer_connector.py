"""The Kafka 0.8.2 high-level consumer (`ZookeeperConsumerConnector`) and its rebalance storms.

Read from Kafka 0.8.2.2:
`core/src/main/scala/kafka/consumer/{ZookeeperConsumerConnector,PartitionAssignor,TopicCount}.scala`
and `kafka/utils/ZkUtils.scala`, with ZkClient 0.3 (`org.I0Itec.zkclient.ZkClient`, Kafka 0.8.2's
ZooKeeper client) for how watches are re-armed.

Every connector registers an ephemeral `/consumers/<group>/ids/<consumerId>` znode and a child
watch on `/consumers/<group>/ids`, plus a data watch on `/brokers/topics/<topic>` for each of its
topics. Any child change under `ids` - whoever joins or leaves, whatever topics it reads - makes
**every** connector of that group name run `syncedRebalance`: up to `rebalance.max.retries`
attempts of (stop fetchers, commit, delete all its `/owners` znodes, read the whole group from
ZooKeeper, compute the whole group's assignment locally with the 0.8.2 `range` or `roundrobin`
assignor, read offsets, create its `/owners` znodes), sleeping `rebalance.backoff.ms` after each
failed attempt; a create that finds the znode still owned fails the attempt (`ZkNodeExistsException`).
After the last attempt it gives up (`ConsumerRebalanceFailedException`) and owns nothing until the
next trigger. That is the "mysterious rebalances" incident: 10 topics x 120 consumers sharing
the group name "main" means one disconnect sets 1,199 consumers rebalancing, and each of them
reads all 1,199 registrations (the herd effect, about N^2 ZooKeeper reads per change). A group
name per topic confines it to the topic's own consumers.

Each step of an attempt costs the ZooKeeper requests 0.8.2 sends (counted, and timed by
`kafkasim.zookeeper.ensemble.ZooKeeper.submit`):

=====================  ==============================================================  =========
step                   requests (B brokers, T own topics, N registered consumers,       source
                       P partitions owned before, Q partitions assigned now)
=====================  ==============================================================  =========
watch fired            exists + getChildren (ZkClient re-arms the watch, then calls      ZkClient
                       handleChildChange); a data watch: exists + getData
attempt starts         getChildren + B getData (getCluster); getData (own TopicCount);  ZkUtils
                       getChildren + B getData (getAllBrokersInCluster)
stop fetchers, commit  P setData (auto.commit.enable, offsets.storage=zookeeper)        ZCC
release                P delete                                                        ZCC
assignment context     getData (own TopicCount), T getData (partitions of own topics),  Partition
                       getChildren + N getData (getConsumersPerTopic), getChildren       Assignor
offsets                Q getData (offsets.storage=zookeeper; with kafka the offsets      ZCC
                       go to the broker, neither counted nor timed here)
claim                  Q create; on conflict one getData per conflict and a delete per  ZCC
                       node created in this attempt
=====================  ==============================================================  =========

Simplifications (besides those of `kafkasim.zookeeper.ensemble`):

* an attempt is three batches of requests (up to the release, reading the group, claiming): the
  owner znodes are deleted when the first ends, created all at once when the second ends, and
  after a conflict deleted again when the third ends; a registration that disappears while the
  group is read is noticed at the claim (Kafka gets `ZkNoNodeException` reading it and fails);
* stopping the fetchers comes first and takes a seeded random time in [0, fetch.wait.max.ms] (a
  fetch in flight is allowed to finish); no records, fetch sizes or lag are simulated (see
  `kafkasim.broker.fetch_sizing`):
  a consumer is "consuming" when its fetchers run, and it has always consumed something since
  its last commit;
* a consumer that learns, when it reconnects, that its session expired abandons any rebalance in
  progress and starts afresh (Kafka's watcher thread would finish the stale attempt first);
* a restarted process registers a new consumer id (Kafka's default `<host>-<time>-<uuid>` id
  changes too; with a fixed `consumer.id` it would wait for its old session to expire).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, Mapping, Sequence

import kafkasim.core.faults as faults_module
from kafkasim.core.config import ZOOKEEPER_CONSUMER_VERSION, zookeeper_consumer_config
from kafkasim.core.provenance import provenance
from kafkasim.core.engine import Simulation
from kafkasim.core.java import java_string_hash
from kafkasim.core.errors import ConfigError, check_range
from kafkasim.core.events import ownership_intervals, state_intervals, to_frame
from kafkasim.zookeeper.ensemble import READS, WRITES, ZooKeeper

TopicPartition = tuple[str, int]

_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")  # kafka.common.Config.validateChars


# -- the 0.8.2 assignors (PartitionAssignor.scala) ----------------------------------------------
class AssignmentError(Exception):
    """An assignor's `require` failed (Scala's IllegalArgumentException)."""


def assign_range(partitions: Mapping[str, int], threads: Mapping[str, Sequence[str]]) -> dict[TopicPartition, str]:
    """0.8.2 `RangeAssignor`, for the whole group: per topic, thread ids sorted as strings
    ("c-10" before "c-2"), partitions in number order; thread i gets
    [q*i + min(i, r), ... + q + (1 if i < r)) with q, r = divmod(partitions, threads)."""
    out: dict[TopicPartition, str] = {}
    for topic in sorted(threads):
        ordered = sorted(threads[topic])
        q, r = divmod(partitions[topic], len(ordered))
        for i, thread in enumerate(ordered):
            start = q * i + min(i, r)
            for p in range(start, start + q + (1 if i < r else 0)):
                out[(topic, p)] = thread
    return out


def assign_roundrobin(partitions: Mapping[str, int], threads: Mapping[str, Sequence[str]]) -> dict[TopicPartition, str]:
    """0.8.2 `RoundRobinAssignor`: every topic must have the same set of consumer threads; the
    topic-partitions, ordered by `TopicAndPartition.toString.hashCode` ("[topic,p]"), are dealt in
    turn to the sorted threads. Equal hash codes (rare) keep (topic, partition) order here; Kafka
    keeps its HashMap's order."""
    topics = sorted(threads)
    head = frozenset(threads[topics[0]])
    for topic in topics:
        if frozenset(threads[topic]) != head:
            raise AssignmentError(
                "requirement failed: Round-robin assignment is allowed only if all consumers in the group subscribe "
                "to the same topics, AND if the stream counts across topics are identical for a given consumer "
                f"instance. (topics {topics[0]} and {topic} differ)")
    ordered = sorted(head)
    tps = [(t, p) for t in topics for p in range(partitions[t])]
    tps.sort(key=lambda tp: (java_string_hash(f"[{tp[0]},{tp[1]}]"), tp))
    return {tp: ordered[i % len(ordered)] for i, tp in enumerate(tps)}


ASSIGNORS_082 = {"range": assign_range, "roundrobin": assign_roundrobin}


# -- what the user describes ------------------------------------------------------------------
@dataclass(frozen=True)
class ConsumerSpec:
    """One consumer connector: its name (the `consumer.id`), `group.id`, and the topic count map it
    passes to `createMessageStreams` ({topic: number of streams})."""

    name: str
    group: str
    topics: Mapping[str, int]

    def __post_init__(self):
        for what, value in (("consumer name", self.name), ("group.id", self.group)):
            if not isinstance(value, str) or not _LEGAL.fullmatch(value):
                raise ConfigError(f"{what} {value!r} is illegal, contains a character other than ASCII "
                                  "alphanumerics, '.', '_' and '-'")
        if not isinstance(self.topics, Mapping):
            raise ConfigError(f"topics of consumer {self.name} must map topic names to stream counts, "
                              f"got {self.topics!r}")
        for topic, streams in self.topics.items():
            check_range(f"streams of topic {topic!r} for consumer {self.name}", streams, 1)
        object.__setattr__(self, "topics", dict(sorted(self.topics.items())))

    @property
    def consumer_id(self) -> str:
        """Kafka's consumerIdString: `<group>_<consumer.id>`."""
        return f"{self.group}_{self.name}"


#: The "mysterious rebalances" incident (seed 003): 10+ topics, 120+ consumers per topic (one per
#: partition), all in the group name "main"; the seed's round numbers are used here.
SEED_TOPICS, SEED_CONSUMERS_PER_TOPIC, SEED_PARTITIONS, SEED_GROUP = 10, 120, 120, "main"


def consumers_per_topic(topics: Mapping[str, int] | Sequence[str], consumers: int, *, group: str = SEED_GROUP,
                        group_per_topic: bool = False, streams: int = 1) -> tuple[ConsumerSpec, ...]:
    """`consumers` connectors for each topic, each reading that topic only: all in one group name
    (the incident) or in a group `<group>-<topic>` per topic (the fix)."""
    check_range("consumers", consumers, 1)
    width = len(str(consumers))
    return tuple(ConsumerSpec(f"{topic}-{i:0{width}d}", f"{group}-{topic}" if group_per_topic else group,
                              {topic: streams})
                 for topic in topics for i in range(1, consumers + 1))


@dataclass(frozen=True)
class Join(faults_module.GroupChange):
    """A new connector registers at `at_ms` (its registration triggers everyone in its group name)."""

    consumer: ConsumerSpec

    def schedule(self, world: "ZookeeperWorld") -> None:
        world.add(self.consumer, self.at_ms)

    def short_label(self) -> str:
        return f"Join {self.consumer.name}"


@dataclass(frozen=True)
class AddPartitions(faults_module.GroupChange):
    """The topic grows to `partitions` at `at_ms` (`/brokers/topics/<topic>` changes): only the
    connectors reading that topic, in any group, are told."""

    topic: str
    partitions: int

    def schedule(self, world: "ZookeeperWorld") -> None:
        world.sim.at(self.at_ms, world.set_partitions, self.topic, self.partitions)

    def short_label(self) -> str:
        return f"AddPartitions {self.topic} -> {self.partitions}"


#: kafkasim.core.faults that mean the same thing here (a Crash is noticed after zookeeper.session.timeout.ms).
SUPPORTED_FAULTS = (faults_module.Crash, faults_module.Restart, faults_module.Pause, faults_module.NetworkCut,
                    faults_module.ScaleIn, Join, AddPartitions)


#: The longest ZooKeeper run (about 28 hours of simulated time).
MAX_DURATION_MS = 100_000_000


@dataclass(frozen=True)
class ZookeeperScenario:
    """Everything that determines a ZooKeeper-consumer run (same scenario and seed: same events).

    `consumer` holds 0.8.2 consumer config overrides (Kafka's names, `zookeeper_consumer_config`),
    applied to every connector. With `warm_start` the group is already stable at t = 0 (registered,
    watching, owning its assignment, fetching); otherwise each connector starts at a seeded instant
    within `start_spread_ms`.
    """

    topics: Mapping[str, int]
    consumers: tuple[ConsumerSpec, ...]
    consumer: Mapping[str, Any] = field(default_factory=dict)
    faults: tuple = ()
    brokers: int = 3
    zk_latency_ms: int = 2
    zk_ops_per_s: float | None = None
    zk_tick_time_ms: int = 2000
    warm_start: bool = True
    start_spread_ms: int = 1000
    duration_ms: int = 60_000
    seed: int = 1

    def __post_init__(self):
        set_ = object.__setattr__
        if not isinstance(self.topics, Mapping) or not self.topics:
            raise ConfigError(f"topics must map topic names to partition counts, got {self.topics!r}")
        for topic, count in self.topics.items():
            check_range(f"partitions of topic {topic!r}", count, 1)
        set_(self, "topics", dict(sorted(self.topics.items())))
        set_(self, "consumers", tuple(self.consumers))
        if not self.consumers or not all(isinstance(c, ConsumerSpec) for c in self.consumers):
            raise ConfigError("consumers must be a non-empty sequence of ConsumerSpec "
                              "(see consumers_per_topic)")
        names = Counter(c.name for c in self.consumers)
        if max(names.values()) > 1:
            raise ConfigError(f"consumer names must be unique: {sorted(n for n, k in names.items() if k > 1)[:5]}")
        for c in self.consumers:
            unknown = sorted(set(c.topics) - set(self.topics))
            if unknown:
                raise ConfigError(f"consumer {c.name} reads {unknown}, which are not in topics")
        check_range("brokers", self.brokers, 1)
        check_range("zk_latency_ms", self.zk_latency_ms, 0)
        if self.zk_ops_per_s is not None:
            check_range("zk_ops_per_s", self.zk_ops_per_s, 1, kind=float)
        check_range("zk_tick_time_ms", self.zk_tick_time_ms, 1)
        check_range("start_spread_ms", self.start_spread_ms, 0)
        check_range("duration_ms", self.duration_ms, 1)
        if self.duration_ms > MAX_DURATION_MS:  # the load summary keeps a series of 8 bytes per millisecond
            raise ConfigError(f"duration_ms={self.duration_ms:,} is longer than a ZooKeeper run can be "
                              f"({MAX_DURATION_MS:,} ms, about 28 hours): its ZooKeeper load is summarised "
                              f"millisecond by millisecond, {self.duration_ms * 8 / 2**30:,.1f} GB here")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ConfigError(f"seed must be an int, got {self.seed!r}")
        set_(self, "faults", tuple(self.faults))
        for f in self.faults:
            if not isinstance(f, SUPPORTED_FAULTS):
                raise ConfigError(f"faults here must be Crash, Restart, Pause, NetworkCut, ScaleIn (kafkasim.core.faults), "
                                  f"Join or AddPartitions, got {f!r}")
        set_(self, "consumer_config", zookeeper_consumer_config(self.consumer))

    def replace(self, **changes) -> "ZookeeperScenario":
        """A copy with some fields changed (`consumer` overrides merge)."""
        if "consumer" in changes:
            changes["consumer"] = {**self.consumer, **changes["consumer"]}
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["consumers"] = [dataclasses.asdict(c) for c in self.consumers]
        out["faults"] = [{"type": type(f).__name__, **dataclasses.asdict(f)} for f in self.faults]
        return out


# -- the group as one consumer reads it --------------------------------------------------------
class GroupView:
    """What `AssignmentContext` reads: registered consumers, their threads per topic, partitions."""

    __slots__ = ("members", "threads", "partitions", "_assignments")

    def __init__(self, members: list[str], subscriptions: Mapping[str, Mapping[str, int]],
                 partitions: Mapping[str, int]):
        self.members = members
        threads: dict[str, list[str]] = defaultdict(list)
        for member in members:
            for topic, streams in subscriptions[member].items():
                threads[topic].extend(f"{member}-{i}" for i in range(streams))
        self.threads = dict(threads)
        self.partitions = {t: partitions[t] for t in self.threads}
        self._assignments: dict[str, Any] = {}

    def assignment(self, strategy: str) -> dict[str, dict[TopicPartition, str]]:
        """consumer id -> {partition: thread}; raises AssignmentError as the assignor does."""
        result = self._assignments.get(strategy)
        if result is None:
            try:
                flat = ASSIGNORS_082[strategy](self.partitions, self.threads) if self.threads else {}
                result = defaultdict(dict)
                for tp, thread in flat.items():
                    result[thread.rsplit("-", 1)[0]][tp] = thread
            except AssignmentError as e:
                result = e
            self._assignments[strategy] = result
        if isinstance(result, AssignmentError):
            raise result
        return result


# -- the connector ----------------------------------------------------------------------------
CONSUMING, REBALANCING, BACKOFF, FAILED = "consuming", "rebalancing", "backoff", "failed"


def _zookeeper_offsets(cfg: Mapping[str, Any]) -> tuple[bool, bool]:
    """Whether a connector reads its offsets from ZooKeeper, and whether it commits them there: with
    offsets.storage=zookeeper, or kafka with dual.commit.enabled (0.8.2's `fetchOffsets` then takes
    the larger of the two, `commitOffsets` writes both); it commits only with auto.commit.enable."""
    reads = cfg["offsets.storage"] == "zookeeper" or cfg["dual.commit.enabled"]
    return reads, cfg["auto.commit.enable"] and reads


class ZookeeperConsumerConnector:
    """One 0.8.2 consumer connector: its ZooKeeper session and watches, its watcher-executor
    thread running `syncedRebalance`, and its fetchers (on or off)."""

    def __init__(self, world: "ZookeeperWorld", spec: ConsumerSpec):
        self.world, self.spec, self.sim, self.zk = world, spec, world.sim, world.zk
        self.name, self.group, self.topics = spec.name, spec.group, spec.topics
        self.id = spec.consumer_id
        cfg = world.config
        self.retries = cfg["rebalance.max.retries"]
        self.backoff_ms = cfg["rebalance.backoff.ms"]
        self.session_timeout_ms = cfg["zookeeper.session.timeout.ms"]
        self.strategy = cfg["partition.assignment.strategy"]
        self.fetch_wait_ms = cfg["fetch.wait.max.ms"]
        self.zk_offsets, self.commits = _zookeeper_offsets(cfg)
        self.ids_dir = f"/consumers/{self.group}/ids"
        self.rng = world.sim.random(f"fetchers/{spec.name}")
        # no process yet: start() or the warm start sets up its session, its threads and what it owns
        self.alive = self.started = self.fetching = self.uncommitted = self.triggered = self.running = False
        self.session = self.state = self.shown = None   # its session; its state (str), the one shown
        self.epoch = self.try_no = self.blocked_until = self.frozen_until = 0   # epoch: bumped to drop callbacks
        self.owned: dict[TopicPartition, str] = {}

    # -- plumbing ---------------------------------------------------------------------------
    def _row(self, kind: str, *, topic=None, partition=None, error=None, reason=None, value=None) -> None:
        self.world.rows.append((self.sim.now, "consumer", self.group, self.id, kind, None, topic, partition,
                                error, reason, value, None))

    def _set_state(self, state: str) -> None:
        self.state = state
        self._show(state)

    def _show(self, state: str) -> None:
        if state != self.shown:
            self.shown = state
            self._row("StateChanged", reason=state)

    def _ok(self, epoch: int, fn, *args) -> bool:
        """True if a callback may run now; a paused or cut-off connector runs it when it is back."""
        if not self.alive or epoch != self.epoch:
            return False
        if self.sim.now < self.blocked_until:
            self.sim.at(self.blocked_until, fn, epoch, *args)
            return False
        return True

    def _new_epoch(self) -> None:
        """Drop every callback scheduled so far: a crash, a close, a new process or a new session."""
        self.epoch += 1

    def _later(self, delay: int, fn, *args) -> None:
        self.sim.schedule(delay, fn, self.epoch, *args)

    def _after(self, fn, *args, **requests: int) -> None:
        """Send a batch of sequential ZooKeeper requests; `fn(epoch, *args)` runs when it is answered."""
        self.zk.submit(partial(fn, self.epoch, *args), **requests)

    def _owner_path(self, tp: TopicPartition) -> str:
        return f"/consumers/{self.group}/owners/{tp[0]}/{tp[1]}"

    # -- registration and watches -------------------------------------------------------------
    def _register(self) -> None:
        """createEphemeral ids node (registerConsumerInZK)."""
        self.session = self.zk.connect(self.id, self.session_timeout_ms, self.group)
        self.zk.create(f"{self.ids_dir}/{self.id}", self.topics, self.session)

    def _subscribe(self) -> None:
        """subscribeChildChanges(ids) and subscribeDataChanges(/brokers/topics/<topic>) per topic."""
        self._watch_ids()
        for topic in self.topics:
            self._watch_topic(topic)

    def _watch_ids(self) -> None:
        self.zk.watch_children(self.ids_dir, self.session, partial(self._ids_changed, self.epoch))

    def _watch_topic(self, topic: str) -> None:
        self.zk.watch_data(f"/brokers/topics/{topic}", self.session, partial(self._topic_changed, self.epoch, topic))

    def start(self) -> None:
        """createMessageStreams: register, watch, and rebalance once (a restart gets a new consumer id)."""
        if self.alive:
            return
        if self.started:
            self.id = f"{self.spec.consumer_id}-{self.sim.now}"
        self.started = self.alive = True
        # a new process: the old one's pause or cut is not its own (its end, still scheduled, finds the
        # new session heard from and changes nothing)
        self.blocked_until = self.frozen_until = 0
        self._new_epoch()
        # its syncedRebalance is under way from here: a change seen meanwhile waits for it (rebalanceLock)
        self.owned, self.fetching, self.triggered, self.running = {}, False, False, True
        self._row("Started")
        self._register()
        self._subscribe()
        self._after(self._begin, "createMessageStreams", createSession=1, create=1, exists=1 + len(self.topics),
                    getChildren=1)

    def _ids_changed(self, epoch: int) -> None:
        if self._ok(epoch, self._ids_changed):
            # ZkClient's event thread: exists + getChildren re-arm the watch, then handleChildChange.
            self._after(self._rearmed_ids, exists=1, getChildren=1)

    def _rearmed_ids(self, epoch: int) -> None:
        if self._ok(epoch, self._rearmed_ids):
            self._watch_ids()
            self._trigger(f"child change on {self.ids_dir}")

    def _topic_changed(self, epoch: int, topic: str) -> None:
        if self._ok(epoch, self._topic_changed, topic):
            self._after(self._rearmed_topic, topic, exists=1, getData=1)

    def _rearmed_topic(self, epoch: int, topic: str) -> None:
        if self._ok(epoch, self._rearmed_topic, topic):
            self._watch_topic(topic)
            self._trigger(f"topic info for path /brokers/topics/{topic} changed")

    def _trigger(self, reason: str) -> None:
        """rebalanceEventTriggered: set the flag; an idle watcher-executor thread wakes at once."""
        self._row("RebalanceTriggered", reason=reason)
        self.triggered = True
        if not self.running:
            self._begin(self.epoch, None)

    # -- syncedRebalance ----------------------------------------------------------------------
    def _begin(self, epoch: int, reason: str | None) -> None:
        """syncedRebalance: called by the watcher executor (`reason` None), which takes the trigger flag
        as it wakes, or directly by createMessageStreams and handleNewSession (`reason`), which leave it
        set for one more run after this one."""
        if not self._ok(epoch, self._begin, reason):
            return
        if reason is not None:
            self._row("RebalanceTriggered", reason=reason)
        self.triggered = self.triggered and reason is not None
        self.running, self.try_no = True, 0
        if self.retries <= 0:
            self._give_up()
        else:
            self._attempt()

    def _attempt(self) -> None:
        """Try #n: read the cluster, stop fetchers, commit, then release every owned partition."""
        self._row("RebalanceAttempt", value=self.try_no)
        owned = len(self.owned)
        stop_ms = self.rng.randint(0, self.fetch_wait_ms) if self.fetching else 0
        commits = owned if self.commits and self.uncommitted else 0
        self.fetching = self.uncommitted = False
        self._set_state(REBALANCING)
        self._later(stop_ms, self._close_fetchers, commits)

    def _close_fetchers(self, epoch: int, commits: int) -> None:
        if self._ok(epoch, self._close_fetchers, commits):
            self._after(self._release, getChildren=2, getData=1 + 2 * self.world.brokers, setData=commits,
                        delete=len(self.owned))

    def _release(self, epoch: int) -> None:
        """releasePartitionOwnership, then AssignmentContext: read the whole group."""
        if not self._ok(epoch, self._release):
            return
        for tp in sorted(self.owned):
            self.zk.delete(self._owner_path(tp))
            self._row("PartitionsRevoked", topic=tp[0], partition=tp[1], reason="rebalance")
        self.owned = {}
        view, version = self.world.view(self.group)
        try:
            mine, error = view.assignment(self.strategy).get(self.id, {}), None
        except AssignmentError as e:
            mine, error = {}, f"IllegalArgumentException: {e}"
        reads = 1 + len(self.topics) + len(view.members) + (len(mine) if self.zk_offsets else 0)
        self._after(self._claim, view, version, mine, error, getChildren=2, getData=reads)

    def _claim(self, epoch: int, view: GroupView, version: int, mine: dict, error: str | None) -> None:
        """reflectPartitionOwnershipDecision: create every owner znode; any conflict fails the try."""
        if not self._ok(epoch, self._claim, view, version, mine, error):
            return
        zk = self.zk
        # AssignmentContext reads every registration before the assignor runs: a vanished one fails the
        # try first (ZkNoNodeException), even when the assignor would have refused the group
        if zk.cversion[self.ids_dir] != version:
            gone = [m for m in view.members if not zk.exists(f"{self.ids_dir}/{m}")]
            if gone:
                error = f"ZkNoNodeException: {self.ids_dir}/{gone[0]} disappeared while the group was read"
        if error is not None:
            self._attempt_failed(self.epoch, error, [])
            return
        created, conflicts = [], []
        for tp in sorted(mine):
            path = self._owner_path(tp)
            if zk.exists(path):
                conflicts.append(tp)
            else:
                zk.create(path, mine[tp], self.session)
                created.append(tp)
        for tp in conflicts:
            self._row("OwnershipConflict", topic=tp[0], partition=tp[1], error="ZkNodeExistsException",
                      reason=f"waiting for the partition ownership to be deleted: {tp[1]}")
        requests = dict(create=len(mine), getData=len(conflicts), delete=len(created) if conflicts else 0)
        if conflicts:
            self._after(self._attempt_failed, f"ZkNodeExistsException on {len(conflicts)} partitions", created,
                        **requests)
        else:
            self._after(self._started, mine, **requests)

    def _attempt_failed(self, epoch: int, error: str, created: list) -> None:
        if not self._ok(epoch, self._attempt_failed, error, created):
            return
        for tp in created:
            self.zk.delete(self._owner_path(tp))
        self._row("RebalanceAttemptFailed", error=re.match(r"\w+", error).group(), value=self.try_no,
                  reason=error)
        self._set_state(BACKOFF)
        self._later(self.backoff_ms, self._after_backoff)

    def _after_backoff(self, epoch: int) -> None:
        if not self._ok(epoch, self._after_backoff):
            return
        self.try_no += 1
        if self.try_no < self.retries:
            self._attempt()
        else:
            self._give_up()

    def _give_up(self) -> None:
        """ConsumerRebalanceFailedException, logged by the watcher thread. After failed attempts the
        fetchers are stopped and nothing is owned; with rebalance.max.retries=0 nothing was even
        stopped, so the consumer goes on with its old partitions."""
        self._row("RebalanceFailed", error="ConsumerRebalanceFailedException", value=self.try_no,
                  reason=f"{self.id} can't rebalance after {self.retries} retries")
        if not self.fetching:
            self._set_state(FAILED)
        self._finish()

    def _started(self, epoch: int, mine: dict) -> None:
        """The try succeeded: start the fetchers on the new partitions."""
        if not self._ok(epoch, self._started, mine):
            return
        self._own(mine)
        self._row("RebalanceCompleted", value=self.try_no)
        self._finish()

    def _own(self, mine: dict) -> None:
        self.owned = dict(mine)
        self.fetching = self.uncommitted = True
        for tp in sorted(mine):
            self._row("PartitionsAssigned", topic=tp[0], partition=tp[1], reason=mine[tp])
        self._set_state(CONSUMING)

    def _finish(self) -> None:
        """syncedRebalance returned; the watcher thread runs again if it was triggered meanwhile."""
        self.running = False
        if self.triggered:
            self._begin(self.epoch, None)

    # -- faults -------------------------------------------------------------------------------
    def crash(self) -> None:
        """The process dies: ZooKeeper deletes its znodes only when the session expires."""
        if not self.alive:
            return
        self.alive = False   # its threads are gone: start() sets up a new process's state
        self._new_epoch()
        self._row("Crashed")
        self._show("crashed")
        self.zk.silent(self.session)

    def close(self) -> None:
        """ConsumerConnector.shutdown: stop fetchers, commit, close the ZooKeeper session (the
        ephemeral znodes go at once)."""
        if not self.alive:
            return
        self.zk.submit(None, setData=len(self.owned) if self.commits and self.uncommitted else 0, closeSession=1)
        self.alive = False
        self._new_epoch()
        self._row("Closed")
        self._show("closed")
        self.zk.close(self.session)

    def when_stopped(self, fn) -> None:
        """Run `fn()` once this process has stopped: `crash` and `close` stop it at once."""
        fn()

    def freeze(self, duration_ms: int) -> None:
        """A stop-the-world pause (GC): every thread stops, the ZooKeeper session falls silent."""
        if self.alive:
            self.frozen_until = max(self.frozen_until, self.sim.now + duration_ms)
            self._show("paused")
            self._block(self.frozen_until)

    def cut_network(self, duration_ms: int) -> None:
        """The link to ZooKeeper is cut: the fetchers go on, ZooKeeper work waits, the session falls silent."""
        if self.alive:
            self._block(self.sim.now + duration_ms)

    def _block(self, until: int) -> None:
        """Silent to ZooKeeper until `until` at least: `_unblock` runs when each block ends and acts
        only when the last has (a 0 ms block ends at once, even at t = 0)."""
        self.blocked_until = max(self.blocked_until, until)
        self.zk.silent(self.session)
        self.sim.at(until, self._unblock)

    def _unblock(self) -> None:
        if not self.alive:
            return
        if self.sim.now < self.blocked_until:
            if self.sim.now >= self.frozen_until and self.state is not None:
                self._show(self.state)  # a pause is over, a network cut goes on: the threads run again
            return
        if self.zk.heard_from(self.session):
            if self.state is not None:
                self._show(self.state)
            return
        # ZKSessionExpireListener.handleNewSession: resetState, re-register, syncedRebalance.
        self._new_epoch()
        self.running, self.triggered = True, False   # handleNewSession's syncedRebalance is under way
        self._row("SessionExpired", reason=f"ZK expired; release old broker parition ownership; "
                                           f"re-register consumer {self.id}")
        for tp in sorted(self.owned):
            self._row("PartitionsRevoked", topic=tp[0], partition=tp[1], reason="session expired")
        self.owned = {}
        self._show(self.state or REBALANCING)
        self._register()
        self._subscribe()
        self._after(self._begin, "new ZooKeeper session", createSession=1, create=1, exists=1 + len(self.topics),
                    getChildren=1)


# -- the world of one run ---------------------------------------------------------------------
class ZookeeperWorld:
    """The clock, the ensemble, the topics and the connectors of one run."""

    def __init__(self, scenario: ZookeeperScenario):
        self.sim = Simulation(scenario.seed)
        self.zk = ZooKeeper(self.sim, latency_ms=scenario.zk_latency_ms, ops_per_s=scenario.zk_ops_per_s,
                            tick_time_ms=scenario.zk_tick_time_ms)
        self.rows = self.sim.events.rows
        self.config = scenario.consumer_config
        self.brokers = scenario.brokers
        self.partitions = dict(scenario.topics)
        self.topics_version = 0
        self.connectors: dict[str, ZookeeperConsumerConnector] = {}
        self._views: dict[tuple, tuple[GroupView, int]] = {}
        self.baseline: Counter = Counter()     # child versions at t = 0, to count changes
        for b in range(scenario.brokers):
            self.zk.create(f"/brokers/ids/{b}", {"host": f"broker-{b}", "port": 9092})
        for topic, count in self.partitions.items():
            self.zk.create(f"/brokers/topics/{topic}", count)

    def consumer(self, name: str) -> ZookeeperConsumerConnector:
        try:
            return self.connectors[name]
        except KeyError:
            some = ", ".join(list(self.connectors)[:5])
            raise ConfigError(f"fault names consumer {name!r}, but the consumers are {some}, ...") from None

    def add(self, spec: ConsumerSpec, at_ms: int | None = None) -> ZookeeperConsumerConnector:
        if spec.name in self.connectors:
            raise ConfigError(f"consumer {spec.name!r} already exists")
        unknown = sorted(set(spec.topics) - set(self.partitions))
        if unknown:
            raise ConfigError(f"consumer {spec.name} reads {unknown}, which are not in topics")
        connector = self.connectors[spec.name] = ZookeeperConsumerConnector(self, spec)
        if at_ms is not None:
            self.sim.at(at_ms, connector.start)
        return connector

    def set_partitions(self, topic: str, partitions: int) -> None:
        if topic not in self.partitions:
            raise ConfigError(f"AddPartitions names topic {topic!r}, which is not in topics")
        self.partitions[topic] = partitions
        self.topics_version += 1   # also counts the changes
        self.zk.set_data(f"/brokers/topics/{topic}", partitions)

    def view(self, group: str) -> tuple[GroupView, int]:
        """The group as read now, shared by every reader of the same ZooKeeper state."""
        ids_dir = f"/consumers/{group}/ids"
        version = self.zk.cversion[ids_dir]
        key = (group, version, self.topics_version)
        cached = self._views.get(key)
        if cached is None:
            members = self.zk.get_children(ids_dir)
            subs = {m: self.zk.data[f"{ids_dir}/{m}"] for m in members}
            cached = self._views[key] = (GroupView(members, subs, self.partitions), version)
        return cached

    def warm_start(self) -> None:
        """Every connector registered, watching, owning its range of the assignment and fetching."""
        for c in self.connectors.values():
            c.started = c.alive = True
            c._register()
        for c in self.connectors.values():
            c._subscribe()
            view, _ = self.view(c.group)
            mine = view.assignment(c.strategy).get(c.id, {})
            for tp in sorted(mine):
                self.zk.create(c._owner_path(tp), mine[tp], c.session)
            c._own(mine)
        self.zk.requests.clear()
        self.zk.load.clear()
        self.baseline = Counter(self.zk.cversion)


def simulate_zookeeper(scenario: ZookeeperScenario) -> "ZookeeperRun":
    """Run a ZooKeeper-consumer scenario to `duration_ms` and return the result."""
    if not isinstance(scenario, ZookeeperScenario):
        raise TypeError(f"simulate_zookeeper() takes a ZookeeperScenario, got {type(scenario).__name__}")
    world = ZookeeperWorld(scenario)
    for spec in scenario.consumers:
        world.add(spec)
    if scenario.warm_start:
        world.warm_start()
    else:
        spread = world.sim.random("start")
        for c in world.connectors.values():
            world.sim.at(spread.randrange(scenario.start_spread_ms) if scenario.start_spread_ms else 0, c.start)
    for fault in scenario.faults:
        for name in getattr(fault, "members", None) or [getattr(fault, "member", None)]:
            if name is not None:
                world.consumer(name)
        fault.schedule(world)
    world.sim.run(until=scenario.duration_ms)
    world.zk.flush()
    return ZookeeperRun(scenario, world)


# -- the result -------------------------------------------------------------------------------
#: Summary metrics and what they mean (the keys of `ZookeeperRun.summary`).
SUMMARY_DOC = {
    "consumers": "connectors in the scenario (Join faults included)",
    "groups": "distinct group names",
    "membership_changes": "child changes of any /consumers/<group>/ids during the run (registrations, deletions)",
    "partition_changes": "changes of a topic's partition count (AddPartitions)",
    "consumers_rebalanced": "connectors that started at least one rebalance attempt during the run",
    "consumers_rebalanced_by_topic": "the same, per topic read",
    "rebalance_runs": "syncedRebalance calls (one per trigger, merged triggers counted once)",
    "rebalance_attempts": "attempts (try #0, #1, ...) over all runs",
    "failed_attempts": "attempts that failed, by exception (ZkNodeExistsException, ZkNoNodeException, ...)",
    "ownership_conflicts": "owner znodes found still owned by another consumer when claiming",
    "rebalance_failures": "runs that gave up (ConsumerRebalanceFailedException): the consumer owns nothing",
    "time_until_stable_ms": "from the first fault (or 0) until the last rebalance ended; None if one is still running",
    "consumer_downtime_ms": "sum over connectors of the time they were not fetching after the first fault",
    "unowned_partitions_at_end": "partitions with no owner znode at the end",
    "zk_reads": "exists, getData and getChildren requests",
    "zk_writes": "create, delete, setData, createSession and closeSession requests",
    "zk_notifications": "watch notifications sent by ZooKeeper",
    "zk_requests_by_type": "every count above by ZooKeeper request type",
    "zk_requests_per_change": "(reads + writes) / (membership_changes + partition_changes); None without changes",
    "zk_peak_requests_per_s": "most requests (reads + writes) in any one-second bucket",
}


class ZookeeperRun:
    """One run: events (the project schema), summary, ZooKeeper load, and the scenario itself."""

    def __init__(self, scenario: ZookeeperScenario, world: ZookeeperWorld):
        self.scenario = scenario
        self.rows = world.rows
        self.end_ms = scenario.duration_ms
        self.zk = world.zk  # the ensemble's znodes and request ledger, read by owners() and zk_load()
        self.engine_stats: dict[str, int] = dict(world.sim.stats)
        self.provenance = provenance("kafkasim.zookeeper.consumer_connector", kafka_version=ZOOKEEPER_CONSUMER_VERSION,
                                     seed=scenario.seed, configs={"consumer": scenario.consumer_config},
                                     inputs={"scenario": scenario.to_dict()})
        self.first_fault_ms = min((f.at_ms for f in scenario.faults), default=0) if scenario.warm_start else 0
        self.summary = self._summarize(world)  # now: the run keeps no connectors or engine

    def __repr__(self) -> str:
        s = self.summary
        return (f"<ZookeeperRun {s['consumers']} consumers in {s['groups']} groups: {s['consumers_rebalanced']} "
                f"rebalanced, {s['zk_reads']} ZooKeeper reads>")

    @cached_property
    def events(self):
        return to_frame(self.rows)

    def member_states(self):
        """One row per (consumer, state interval): member, state, start, end (ms)."""
        import pandas as pd

        return pd.DataFrame(state_intervals(self.rows, self.end_ms), columns=["member", "state", "start", "end"])

    def ownership(self):
        """One row per (consumer, partition, interval it owned and fetched it)."""
        import pandas as pd

        return pd.DataFrame(ownership_intervals(self.rows, self.end_ms),
                            columns=["member", "topic", "partition", "start", "end"])

    def owners(self):
        """The owner znodes at the end: group, topic, partition, owner thread id."""
        import pandas as pd

        rows = []
        for path, data, _ in self.zk.tree("/consumers/"):
            parts = path.split("/")
            if len(parts) == 6 and parts[3] == "owners":
                rows.append((parts[2], parts[4], int(parts[5]), data))
        rows.sort()
        return pd.DataFrame(rows, columns=["group", "topic", "partition", "owner"])

    def attempts(self):
        """One row per rebalance attempt: member, group, try, start, end, outcome, error."""
        import pandas as pd

        open_: dict[str, tuple] = {}
        out = []
        for row in self.rows:
            if row[1] != "consumer":
                continue
            kind, member = row[4], row[3]
            if kind == "RebalanceAttempt":
                open_[member] = (member, row[2], int(row[10]), row[0])
            elif kind in ("RebalanceCompleted", "RebalanceAttemptFailed") and member in open_:
                start = open_.pop(member)
                out.append((*start, row[0], "completed" if kind == "RebalanceCompleted" else "failed", row[8]))
        out.extend((*start, None, "running", None) for start in open_.values())
        return pd.DataFrame(out, columns=["member", "group", "try", "start", "end", "outcome", "error"])

    def zk_load(self, bucket_ms: int = 1000):
        """ZooKeeper requests per time bucket: reads, writes, notifications, requests_per_s.

        Between two changes of the set of batches in flight the ensemble serves at a constant
        rate, so each logged interval is spread evenly over its buckets."""
        import numpy as np
        import pandas as pd

        check_range("bucket_ms", bucket_ms, 1)
        n = self.end_ms // bucket_ms + 1
        # every row ends by the run's end (the ensemble is flushed there), so within the n buckets
        start, end, reads, writes, notes = (np.array([row[i] for row in self.zk.load]) for i in range(5))
        start, end = start.astype(int), end.astype(int)  # ms, also when nothing was logged
        spread = end > start
        bucket = start // bucket_ms
        sums = []
        for count in (reads, writes):
            rate = count[spread] / (end[spread] - start[spread])
            per_ms = np.zeros(n * bucket_ms)
            np.add.at(per_ms, start[spread], rate)
            np.add.at(per_ms, end[spread], -rate)
            by_bucket = np.cumsum(per_ms).reshape(n, bucket_ms).sum(axis=1)
            np.add.at(by_bucket, bucket[~spread], count[~spread])  # an instant row counts in its bucket
            sums.append(by_bucket)
        notified = np.zeros(n)
        np.add.at(notified, bucket, notes)
        df = pd.DataFrame({"time_ms": np.arange(n) * bucket_ms, "reads": sums[0], "writes": sums[1],
                           "notifications": notified})
        df["requests_per_s"] = (df["reads"] + df["writes"]) * 1000.0 / bucket_ms
        return df

    def _summarize(self, world: ZookeeperWorld) -> dict:
        start = self.first_fault_ms
        rows = [r for r in self.rows if r[1] == "consumer"]
        kinds = Counter(r[4] for r in rows)
        topics_of = {c.id: c.topics for c in world.connectors.values()}
        rebalanced = sorted({r[3] for r in rows if r[4] == "RebalanceAttempt"})
        by_topic: Counter = Counter()
        for member in rebalanced:
            by_topic.update(topics_of.get(member, {}).keys())
        ends = [r[0] for r in rows if r[4] in ("RebalanceCompleted", "RebalanceFailed")]
        still_running = any(c.running and c.alive for c in world.connectors.values())
        # no interval ends by `start`: a warm group does nothing before its first fault, a cold one counts from 0
        downtime = sum(min(end, self.end_ms) - max(begin, start)
                       for _, state, begin, end in state_intervals(self.rows, self.end_ms)
                       if state in (REBALANCING, BACKOFF, FAILED, "paused"))
        expected = {(c.group, t, p) for c in world.connectors.values() if c.alive
                    for t in c.topics for p in range(world.partitions[t])}
        owned = {(g, t, p) for g, t, p, _ in self.owners().values.tolist()}
        unowned = len(expected - owned)
        req = self.zk.requests
        cv = self.zk.cversion
        members = sum(cv[d] - world.baseline[d] for d in cv if d.startswith("/consumers/") and d.endswith("/ids"))
        reads, writes = sum(req[k] for k in READS), sum(req[k] for k in WRITES)
        changes = members + world.topics_version
        return {
            "consumers": len(world.connectors),
            "groups": len({c.group for c in world.connectors.values()}),
            "membership_changes": members,
            "partition_changes": world.topics_version,
            "consumers_rebalanced": len(rebalanced),
            "consumers_rebalanced_by_topic": dict(sorted(by_topic.items())),
            "rebalance_runs": sum(1 for r in rows if r[4] == "RebalanceAttempt" and r[10] == 0),
            "rebalance_attempts": kinds["RebalanceAttempt"],
            "failed_attempts": dict(sorted(Counter(r[8] for r in rows if r[4] == "RebalanceAttemptFailed").items())),
            "ownership_conflicts": kinds["OwnershipConflict"],
            "rebalance_failures": kinds["RebalanceFailed"],
            "time_until_stable_ms": None if still_running else (max(ends) - start if ends else 0),
            "consumer_downtime_ms": int(downtime),
            "unowned_partitions_at_end": unowned,
            "zk_reads": reads,
            "zk_writes": writes,
            "zk_notifications": req["notification"],
            "zk_requests_by_type": dict(sorted(req.items())),
            "zk_requests_per_change": (reads + writes) / changes if changes else None,
            "zk_peak_requests_per_s": float(self.zk_load(1000)["requests_per_s"].max()),
        }


# -- closed forms, the seed incident, and today's coordinator ----------------------------------
def herd_cost(consumers: int, *, partitions: int, owned_before: int | None = None, brokers: int = 3,
              topics_per_consumer: int = 1, consumer: Mapping[str, Any] | None = None) -> dict:
    """ZooKeeper requests one membership change costs, in closed form (the table in the module
    docstring): `consumers` connectors share the group name, are all notified and each rebalances
    once without conflict, ending with `partitions` partitions among them; they owned
    `owned_before` (default: the same number) before the change.

    Reads grow as consumers**2: each connector reads every registration of its group name.
    """
    n = check_range("consumers", consumers, 1)
    q = check_range("partitions", partitions, 0)
    p = q if owned_before is None else check_range("owned_before", owned_before, 0)
    b = check_range("brokers", brokers, 1)
    t = check_range("topics_per_consumer", topics_per_consumer, 0)
    zk_offsets, zk_commits = _zookeeper_offsets(zookeeper_consumer_config(consumer))
    per_consumer = {"rewatch": 2, "before release": 3 + 2 * b, "group read": 3 + t + n}
    offset_reads = q if zk_offsets else 0
    reads = n * sum(per_consumer.values()) + offset_reads
    commits = p if zk_commits else 0
    writes = commits + p + q
    return {"consumers_rebalancing": n, "notifications": n, "reads": reads, "writes": writes,
            "requests": reads + writes, "reads_per_consumer": per_consumer,
            "registration_reads": n * n, "offset_reads": offset_reads, "commit_writes": commits,
            "owner_deletes": p, "owner_creates": q}


def seed_incident(group_per_topic: bool = False, *, topics: int = SEED_TOPICS,
                  consumers: int = SEED_CONSUMERS_PER_TOPIC, partitions: int = SEED_PARTITIONS,
                  leave_at_ms: int = 10_000, **fields) -> ZookeeperScenario:
    """The incident as a scenario: `topics` topics x `consumers` connectors, one group name
    ("main") or one per topic ("main-<topic>"), and one connector of the first topic shutting down
    at `leave_at_ms`. Other ZookeeperScenario fields (duration_ms, consumer, zk_ops_per_s, ...) pass
    through; `faults` replaces the disconnect."""
    check_range("topics", topics, 1)
    names = [f"topic-{i:02d}" for i in range(topics)]
    specs = consumers_per_topic(names, consumers, group_per_topic=group_per_topic)
    fields.setdefault("faults", (faults_module.ScaleIn(leave_at_ms, (specs[0].name,)),))
    return ZookeeperScenario(topics={n: partitions for n in names}, consumers=specs, **fields)
