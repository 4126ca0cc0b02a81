"""`KafkaConsumer.pause()`/`resume()` across group rebalances, by Kafka version and protocol
(KAFKA-2350, KAFKA-7548, KIP-429, KAFKA-8421, KAFKA-13425, KAFKA-13463, KAFKA-14196).

The founding report (KAFKA-13463): an application calls
`pause(assignment())` before every `poll()`, yet `poll()` sometimes returns records. This module
runs that loop in a small group and counts those records, per Kafka version, protocol and
remedy. Ground truth, at the release tags: `ConsumerCoordinator.java` (`onJoinPrepare`, `onJoinComplete`, `invokePartitionsRevoked`/
`Lost`), `KafkaConsumer.java` (`poll`, `pollForFetches`), `SubscriptionState.java` and the fetch
buffer (`kafkasim.client.subscription_state`, `kafkasim.client.fetch_buffer`).

What a rebalance does, as modelled:

* eager, <= 2.3: `onJoinPrepare` calls `onPartitionsRevoked(all)`; `onJoinComplete` installs
  fresh state for every partition: every pause flag and position is gone;
* eager, 2.4+: `onJoinPrepare` revokes everything and assigns the empty set at once;
* cooperative (2.4+, cooperative-sticky): only partitions that move are revoked, in
  `onJoinComplete`, which then asks for a second rebalance; retained partitions keep their flag;
* lost (generation reset, e.g. expelled after a session timeout): `onPartitionsLost(all)` and the
  empty assignment (2.4+); before 2.4 the eager path;
* the join blocks `poll()` up to its timeout (2.0-2.4, KIP-266; before 2.0 without limit); from
  2.5 (KAFKA-8421) it does not, so `poll()` collects the buffer *between* the revocation and the
  new assignment, draining data of partitions no longer assigned;
* after the new assignment, the same `poll()` looks up committed offsets, returns buffered data
  whose offset matches (path (a) of C.4), or fetches and returns fresh data (path (b)).

Remedies (`REMEDIES`): the practice that works on real Kafka (re-pause in
`onPartitionsAssigned`), and three proposals of the KAFKA-13463 report that Kafka never
shipped, each labelled a proposal. Its suggestions 3 (carry pause flags through JoinGroup/
SyncGroup) and 4 (topic-level pause) are not modelled; with one topic, 4 acts like 5.

Chosen level of detail, and why: the rebalance is scripted at the client's level
(`onJoinPrepare` / `assignFromSubscribed` / `onJoinComplete`) over a minimal group (`_Group`)
that runs the real assignors (`kafkasim.client.assignors.assign`), instead of driving
`kafkasim.coordinator.classic.coordinator.GroupCoordinator`. Pause state is client-side; all the broker decides here
is when a join completes (when every member has rejoined) and the assignment, and the scripted
group keeps exactly that, so a chapter-sized sweep stays instant.

Events (kafkasim.core.events schema; source "consumer" unless noted): Paused, Resumed (reason: who paused),
PauseFlagCleared (reason: revocation, lost, fresh_state), PartitionsRevoked/Assigned/Lost (one row
per partition, value = size of the callback's set), JoinGroup, LeaveGroup, HeartbeatFailed, FetchSent
(value = partitions), RecordsReturned (value = records; reason unexpected_from_buffer or
unexpected_new_fetch when the application had paused everything), RecordsDiscarded (reason as
`kafkasim.client.fetch_buffer`), Processed, Commit (value = offset); source "coordinator": RebalanceStarted,
GenerationStabilized (value = members), MemberRemoved.

Simplified, and said so: one topic on one broker; a backlog of records present from the start
(no producer); fetch responses after `fetch_latency_ms` (`fetch.max.wait.ms` when nothing is
left); OffsetFetch/OffsetCommit, JoinGroup and SyncGroup take no time; members learn of a
rebalance at their next heartbeat (every `heartbeat.interval.ms` from their last join);
the initial rebalance delay is modelled, the rebalance timeout is not (everyone keeps polling);
a member expelled ("lost") keeps its member name when it rejoins; an auto-commit due during a
join is skipped (Kafka's fails); before 2.4 `close()` calls no rebalance callback; KAFKA-14196's
`pendingRevocation` is set, but with commits taking no time it never lasts; the application
processes a batch in `record_processing_ms` per record and, with `enable.auto.commit=false`,
commits it synchronously.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterator

import numpy as np

from kafkasim.client.assignors import Subscription, assign, owned_partitions
from kafkasim.core.config import broker_config, consumer_config
from kafkasim.core.engine import Simulation
from kafkasim.core.provenance import provenance
from kafkasim.core.errors import ConfigError, check_int
from kafkasim.core.java import INT_MAX
from kafkasim.core.events import to_frame
from kafkasim.client.fetch_buffer import NOT_ASSIGNED, NOT_FETCHABLE, STALE, CompletedFetch, Fetcher, Returned
from kafkasim.client.subscription_state import SubscriptionState, TopicPartition, at_least, tp_str

EAGER, COOPERATIVE = "eager", "cooperative"
NO_GENERATION = -1   # AbstractCoordinator.Generation.NO_GENERATION.generationId
EAGER_ASSIGNORS = ("range", "roundrobin", "sticky")

#: Remedy -> what it does. Names starting with "proposal_" do not exist in any Kafka release.
REMEDIES = {
    "none": "no remedy: the application's loop (APP_LOOPS) and nothing else",
    "repause_on_assigned": "the application also pauses in ConsumerRebalanceListener.onPartitionsAssigned "
                           "(works on every Kafka version; spring-kafka, reactor-kafka and decaton do this)",
    "proposal_clear_buffer_on_revoke": "PROPOSAL, not in Kafka (KAFKA-13463 suggestion 1): revoking a paused "
                                       "partition also drops its buffered records",
    "proposal_keep_pause": "PROPOSAL, not in Kafka (KAFKA-13463 suggestion 2, PR #11911 closed unmerged): "
                           "onJoinPrepare remembers the paused partitions, onJoinComplete pauses those still assigned",
    "proposal_consumer_pause": "PROPOSAL, not in Kafka (KAFKA-13463 suggestion 5): a consumer-level pause() that "
                               "no rebalance clears; poll() neither fetches nor returns records while it is set",
}

#: How the application pauses (from `pause_at_ms` until `resume_at_ms`).
APP_LOOPS = {
    "pause_every_poll": "the KAFKA-13463 loop: pause(assignment()) before every poll()",
    "pause_once": "pause(assignment()) once, then poll() without pausing again",
}

#: What `PauseRun.summary` holds.
SUMMARY_DOC = {
    "unexpected_records": "records poll() returned while the application had paused every partition it owned "
                          "(the KAFKA-13463 loop); the application drops them",
    "unexpected_polls": "poll() calls that returned such records (the loop logs one error for each)",
    "unexpected_from_buffer": "of unexpected_records, those fetched before the assignment they were returned under: "
                              "buffered across the rebalance (path (a) of C.4)",
    "unexpected_new_fetch": "of unexpected_records, those fetched after the rebalance had cleared the flag (path (b))",
    "unexpected_by_member": "unexpected_records per member",
    "pause_flags_cleared": "pause flags removed by rebalances, by reason: revocation, lost (onPartitionsLost) or "
                           "fresh_state (<= 2.3: a new TopicPartitionState for a partition assigned again)",
    "records_lost": "unexpected records never processed by the end: their offsets were passed (and committed) "
                    "before any member processed them (the data loss of KAFKA-13425)",
    "records_fetched": "records in fetch responses, re-fetches included (<= 2.3 discards paused data and fetches "
                       "it again after resume())",
    "records_discarded": "buffered records dropped without being returned, by reason (not_assigned, not_fetchable, "
                         "stale_offset, or the proposal that cleared them)",
    "duplicates": "records processed more than once",
    "unprocessed_at_end": "records no member processed by the end (records_lost included)",
    "generations": "group generation at the end",
}


@dataclass(frozen=True)
class PauseScenario:
    """A group of consumers that pause everything, then a membership change, then resume.

    Timeline: the members join at 0 and consume; from `pause_at_ms` each runs the KAFKA-13463 loop
    (`pause(assignment())`, then `poll(poll_timeout_ms)`; `app_loop="pause_once"`: pause once, then
    poll); `changes` are membership changes
    `(time_ms, "join" | "leave" | "lost"[, member])` ("lost": expelled by the coordinator, e.g. a
    session timeout; default member: the last one started); from `resume_at_ms` (None: never) they
    `resume(assignment())` and consume again. `consumer` overrides Kafka consumer configs.
    """

    kafka_version: str = "3.7"
    protocol: str = EAGER
    assignor: str | None = None          # eager: range (default), roundrobin, sticky
    remedy: str = "none"
    app_loop: str = "pause_every_poll"
    members: int = 2
    partitions: int = 6
    records_per_partition: int = 5_000
    record_bytes: int = 1024
    pause_at_ms: int = 6_000
    changes: tuple = ((12_000, "join"),)
    resume_at_ms: int | None = 24_000
    duration_ms: int = 36_000
    poll_timeout_ms: int = 2000           # the report's poll(Duration.ofSeconds(2))
    record_processing_ms: float = 0.4   # application time per record while consuming
    fetch_latency_ms: int = 10
    consumer: dict = field(default_factory=dict)
    topic: str = "orders"
    group_id: str = "workbook-group"

    def __post_init__(self):
        for name, low in (("members", 1), ("partitions", 1), ("records_per_partition", 1), ("record_bytes", 1),
                          ("pause_at_ms", 0), ("duration_ms", 1), ("poll_timeout_ms", 1), ("fetch_latency_ms", 0)):
            check_int(name, getattr(self, name), low)
        x = self.record_processing_ms
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x < math.inf:
            raise ConfigError(f"record_processing_ms must be a number >= 0, got {x!r}")
        if self.resume_at_ms is not None:
            check_int("resume_at_ms", self.resume_at_ms, self.pause_at_ms)
        if self.protocol not in (EAGER, COOPERATIVE):
            raise ConfigError(f"protocol must be 'eager' or 'cooperative', got {self.protocol!r}")
        if self.app_loop not in APP_LOOPS:
            raise ConfigError(f"app_loop must be one of {', '.join(APP_LOOPS)}; got {self.app_loop!r}")
        if self.remedy not in REMEDIES:
            raise ConfigError(f"remedy must be one of {', '.join(REMEDIES)}; got {self.remedy!r}")
        if self.protocol == COOPERATIVE and self.assignor not in (None, "cooperative-sticky"):
            raise ConfigError(f"the cooperative protocol needs partition.assignment.strategy=cooperative-sticky "
                              f"(KIP-429), got {self.assignor!r}")
        if self.protocol == EAGER and self.assignor not in (None, *EAGER_ASSIGNORS):
            raise ConfigError(f"eager assignor (partition.assignment.strategy) must be one of "
                              f"{', '.join(EAGER_ASSIGNORS)}, got {self.assignor!r}")
        strategy = self.assignor or ("cooperative-sticky" if self.protocol == COOPERATIVE else "range")
        object.__setattr__(self, "strategy", strategy)  # the one assignor in partition.assignment.strategy
        overrides = {**self.consumer, "partition.assignment.strategy": [strategy]}
        object.__setattr__(self, "consumer_config", consumer_config(self.kafka_version, overrides))
        object.__setattr__(self, "changes", tuple(_check_change(c) for c in self.changes))

    def replace(self, **changes) -> "PauseScenario":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def phase(self, t: int) -> str:
        """What the application is doing at t: "consuming" or "paused"."""
        resumed = self.resume_at_ms is not None and t >= self.resume_at_ms
        return "paused" if self.pause_at_ms <= t and not resumed else "consuming"


def _check_change(change) -> tuple:
    if not isinstance(change, tuple) or len(change) not in (2, 3) or change[1] not in ("join", "leave", "lost"):
        raise ConfigError(f"a membership change is (time_ms, 'join' | 'leave' | 'lost'[, member]), got {change!r}")
    if change[1] == "join" and len(change) == 3 and change[2] is not None:
        raise ConfigError(f"'join' takes no member name (a new member is named consumer-<n>), got {change!r}")
    check_int("change time_ms", change[0], 0)
    return change if len(change) == 3 else (*change, None)


# ---------------------------------------------------------------------------------------------
class _Group:
    """The coordinator's part, reduced: a join completes when every member has sent JoinGroup;
    then the leader's assignment (the real assignor) goes to everyone. From Empty the broker waits
    `group.initial.rebalance.delay.ms` (0.11+, KIP-134) for more members (the initial members all
    join at 0, so KIP-134's extension of that wait never comes into play)."""

    def __init__(self, run: "_Run"):
        self.run = run
        self.members: dict[str, _Member] = {}
        self.joined: dict[str, Subscription] = {}
        self.generation = 0
        self.rebalancing = False
        self.not_before = 0
        self.committed: dict[TopicPartition, int] = {tp: 0 for tp in run.tps}

    def join_group(self, m: "_Member", sub: Subscription) -> None:
        if m.name not in self.members:
            if not self.members:
                delay = broker_config(self.run.scenario.kafka_version)["group.initial.rebalance.delay.ms"] or 0
                self.not_before = self.run.sim.now + delay
                if delay:
                    self.run.sim.at(self.not_before, self._maybe_complete)
            self.members[m.name] = m
        if not self.rebalancing:
            self._start(f"member {m.name} joined")
        self.joined[m.name] = sub
        self._maybe_complete()

    def remove(self, m: "_Member", reason: str) -> None:
        """LeaveGroup, or the session timer expiring ("lost")."""
        self.members.pop(m.name, None)
        self.joined.pop(m.name, None)
        self.run.row("coordinator", m.name, "MemberRemoved", reason=reason)
        if self.members:
            if not self.rebalancing:
                self._start(f"removing member {m.name}: {reason}")
            self._maybe_complete()

    def _start(self, reason: str) -> None:
        self.rebalancing, self.joined = True, {}
        self.run.row("coordinator", None, "RebalanceStarted", reason=reason)
        for m in self.members.values():
            self.run.sim.at(m.next_heartbeat(), m.on_heartbeat)

    def _maybe_complete(self) -> None:
        if not self.rebalancing or self.run.sim.now < self.not_before or set(self.joined) != set(self.members):
            return
        s = self.run.scenario
        self.generation += 1
        self.rebalancing = False
        result = assign(s.strategy, {s.topic: s.partitions}, self.joined, kafka_version=s.kafka_version)
        self.run.row("coordinator", None, "GenerationStabilized", value=len(self.members))
        for name, m in self.members.items():
            self.run.sim.at(self.run.sim.now, m.on_sync, self.generation, result[name])


class _Member:
    """One KafkaConsumer and the application thread that calls it."""

    def __init__(self, run: "_Run", name: str):
        self.run, self.name = run, name
        s, cfg = run.scenario, run.scenario.consumer_config
        self.sim, self.group = run.sim, run.group
        v = s.kafka_version
        self.cooperative = s.protocol == COOPERATIVE
        self.v24 = at_least(v, "2.4")                 # KIP-429 / KAFKA-8179: state reused, eager clears at prepare
        self.blocking_join = not at_least(v, "2.5")   # KAFKA-8421
        self.join_honours_timeout = at_least(v, "2.0")  # KIP-266 poll(Duration)
        self.logs_pause_flags = at_least(v, "3.2")    # KAFKA-13425 (PR #11460)
        self.hb_ms = cfg["heartbeat.interval.ms"]
        self.auto_commit = cfg["enable.auto.commit"]
        self.auto_commit_ms = cfg["auto.commit.interval.ms"]
        self.subs = SubscriptionState(v)
        self.fetcher = Fetcher(self.subs, cfg.get("max.poll.records") or INT_MAX)
        self.generation = NO_GENERATION
        self.rejoin_needed = True
        self.join_pending = False
        self.pending_sync: tuple | None = None
        self.sticky_memory: tuple = ()
        self.saved_paused: list[TopicPartition] = []
        self.consumer_paused = False   # proposal_consumer_pause
        self.app_paused = False

    # -- plumbing: the application thread as a generator of waits ---------------------------------
    def start(self) -> None:
        """The member's clocks and application thread start (`_Run.add_member`, right after it is made)."""
        self.alive, self.hb_base = True, self.sim.now
        self.next_auto_commit = self.sim.now + self.auto_commit_ms
        self._gen: Iterator = self._application()
        self._step()

    def _step(self) -> None:
        """Run the application thread to its next wait: until a time (None: until woken), interruptible
        or not by a response (`wake`)."""
        if self.alive:
            until, self._waiting = next(self._gen)
            self._timer = self.sim.at(until, self._step) if until is not None else None

    def wake(self) -> None:
        """A response arrived while the app thread waits in the network client: it runs now."""
        if self._waiting:
            if self._timer is not None:
                self._timer.cancel()
            self._waiting = False
            self._timer = self.sim.at(self.sim.now, self._step)

    def row(self, kind: str, tp: TopicPartition | None = None, **kw) -> None:
        self.run.row("consumer", self.name, kind, generation=self._known_generation(), tp=tp, **kw)

    def _known_generation(self) -> int | None:
        """The member's generation, None before its first one or after it lost it (NO_GENERATION)."""
        return None if self.generation == NO_GENERATION else self.generation

    # -- the application ----------------------------------------------------------------------------
    def _application(self):
        s = self.run.scenario
        while True:
            paused = s.phase(self.sim.now) == "paused"
            if paused:
                if s.remedy == "proposal_consumer_pause":
                    if not self.consumer_paused:
                        self.consumer_paused = True
                        self.row("Paused", reason="proposal: consumer-level pause()")
                elif s.app_loop == "pause_every_poll" or not self.app_paused:
                    for tp in self.subs.assigned_partitions():   # pause(assignment())
                        self._pause(tp, "application")
            elif self.app_paused:
                for tp in self.subs.assigned_partitions():   # resume(assignment())
                    if self.subs.resume(tp):
                        self.row("Resumed", tp)
                if self.consumer_paused:
                    self.consumer_paused = False
                    self.row("Resumed", reason="proposal: consumer-level resume()")
            self.app_paused = paused
            records = yield from self._poll(s.poll_timeout_ms)
            if records and paused:
                self.run.unexpected_polls += 1
            for r in records:
                reason = None if not paused else (
                    "unexpected_from_buffer" if r.fetched_before_assignment else "unexpected_new_fetch")
                self.row("RecordsReturned", r.tp, value=r.count, reason=reason)
                self.run.returned(self.name, r, dropped=paused)
            if records and not paused:
                yield self.sim.now + math.ceil(s.record_processing_ms * sum(r.count for r in records)), False
                for r in records:
                    self.run.processed(r)
                    self.row("Processed", r.tp, value=r.count)
                if not self.auto_commit:
                    self._commit()   # commitSync() after each batch

    def _pause(self, tp: TopicPartition, by: str) -> None:
        if self.subs.pause(tp):
            self.row("Paused", tp, reason=by)

    # -- KafkaConsumer.poll -------------------------------------------------------------------------
    def _poll(self, timeout_ms: int):
        """`KafkaConsumer.poll(Duration)`: rejoin if needed, then return buffered or freshly fetched records."""
        deadline = self.sim.now + timeout_ms
        while True:
            if self.auto_commit and self.sim.now >= self.next_auto_commit:
                self.next_auto_commit = self.sim.now + self.auto_commit_ms
                if not self.join_pending:   # during a join the commit would fail; nothing is retried here
                    self._commit()
            before = self.sim.now
            joined = yield from self._coordinator_poll(deadline)
            if not joined:
                return []        # 2.0-2.4: the join did not complete within the poll timeout
            if not self.join_honours_timeout and self.sim.now > before:
                deadline = max(deadline, self.sim.now + timeout_ms)  # poll(long): the timeout counts after the join
            for tp in self.subs.assigned_partitions():   # updateFetchPositions: committed offsets
                if not self.subs.has_valid_position(tp):
                    self.subs.seek(tp, self.group.committed[tp])
            records = self._collect()
            if not records:
                self._send_fetches()
                wake_at = min(deadline, self.next_auto_commit) if self.auto_commit else deadline
                if self.sim.now < wake_at:
                    yield wake_at, True   # client.poll: woken by a response
                records = self._collect()
            if records:
                self._send_fetches()      # pipelining: next fetches go out before returning
                return records
            if self.sim.now >= deadline:
                return []

    def _coordinator_poll(self, deadline: int):
        """`ConsumerCoordinator.poll`: finish a completed join, start a needed one, and (<= 2.4) wait."""
        while True:
            if self.pending_sync is not None:
                generation, assigned = self.pending_sync
                self.pending_sync = None
                self._on_join_complete(generation, assigned)
            if self.rejoin_needed and not self.join_pending:
                self._on_join_prepare()
                self._join_group()
            if not self.join_pending or not self.blocking_join:
                return True
            if self.join_honours_timeout and self.sim.now >= deadline:
                return False
            yield (deadline if self.join_honours_timeout else None), True

    def _collect(self) -> list[Returned]:
        if self.consumer_paused:
            return []
        returned, discarded = self.fetcher.collect()
        for d in discarded:
            self._discarded(d)
        return returned

    def _discarded(self, d) -> None:
        self.row("RecordsDiscarded", d.tp, value=d.count, reason=d.reason)
        self.run.discarded(d)

    def _send_fetches(self) -> None:
        if self.consumer_paused:
            return
        requests = self.fetcher.send_fetches()
        if requests:
            run = self.run
            per_fetch, end = run.records_per_fetch, run.scenario.records_per_partition
            fetches = [CompletedFetch(tp, pos, min(end, pos + per_fetch), self.subs.assignment_id)
                       for tp, pos in requests]
            has_data = any(f.remaining for f in fetches)
            delay = run.scenario.fetch_latency_ms if has_data else run.scenario.consumer_config["fetch.max.wait.ms"]
            self.row("FetchSent", value=len(requests))
            self.sim.schedule(delay, self._on_fetch_response, fetches)

    def _on_fetch_response(self, fetches: list[CompletedFetch]) -> None:
        if self.alive:
            self.fetcher.add(fetches)
            self.run.records_fetched += sum(f.remaining for f in fetches)
            self.wake()

    def _commit(self) -> None:
        for tp, state in self.subs.assignment.items():
            if state.position is not None and self.group.committed[tp] != state.position:
                self.group.committed[tp] = state.position
                self.row("Commit", tp, value=state.position)

    # -- ConsumerCoordinator: the rebalance ------------------------------------------------------
    def _join_group(self) -> None:
        owned = tuple(owned_partitions(self.subs.assigned_partitions())) if self.cooperative else self.sticky_memory
        sub = Subscription((self.run.scenario.topic,), owned, self._known_generation())
        self.join_pending, self.rejoin_needed = True, False
        self.row("JoinGroup")
        self.group.join_group(self, sub)

    def _on_join_prepare(self) -> None:
        lost = self.generation == NO_GENERATION
        owned = self.subs.assigned_partitions()
        if self.auto_commit and not lost:
            if not self.cooperative:
                self.subs.mark_pending_revocation(owned)   # KAFKA-14196, 3.2.3+
            self._commit()
        if self.run.scenario.remedy == "proposal_keep_pause":
            self.saved_paused = self.subs.paused_partitions()
        if not owned:
            return
        if lost and self.v24:
            self._revoke(owned, lost=True)
            self._clear(self.subs.assign_from_subscribed([]), "lost")
        elif not self.cooperative or lost:
            self._revoke(owned)
            if self.v24:
                self._clear(self.subs.assign_from_subscribed([]), "revocation")
            # <= 2.3: the old assignment stays until onJoinComplete replaces it

    def _on_join_complete(self, generation: int, assigned: list[TopicPartition]) -> None:
        owned, keep = set(self.subs.assigned_partitions()), set(assigned)
        added = [tp for tp in assigned if tp not in owned]
        self.generation, self.hb_base = generation, self.sim.now
        self.sticky_memory = tuple(assigned)
        self.next_auto_commit = self.sim.now + self.auto_commit_ms
        if self.cooperative:
            revoked = [tp for tp in self.subs.assigned_partitions() if tp not in keep]
            if revoked:
                self._revoke(revoked)
                self.rejoin_needed = True   # requestRejoin(): the second rebalance
        self._clear(self.subs.assign_from_subscribed(assigned), "revocation" if self.v24 else "fresh_state")
        for tp in self.saved_paused:        # proposal_keep_pause (PR #11911)
            if self.subs.is_assigned(tp):
                self._pause(tp, "proposal: pause kept across rebalance")
        self.saved_paused = []
        self._callback("PartitionsAssigned", added if self.v24 else assigned)
        if self.run.scenario.remedy == "repause_on_assigned" and self.app_paused:
            for tp in (added if self.v24 else assigned):
                self._pause(tp, "onPartitionsAssigned")

    def _revoke(self, tps: list[TopicPartition], lost: bool = False) -> None:
        """invokePartitionsRevoked / invokePartitionsLost (with their 3.2+ log line, KAFKA-13425)."""
        paused = sorted(tp for tp in tps if self.subs.is_paused(tp))
        if paused and self.logs_pause_flags:
            self.run.client_log.append((self.sim.now, self.name, f"The pause flag in partitions "
                                        f"[{', '.join(map(tp_str, paused))}] will be removed due to "
                                        f"{'partition lost' if lost else 'revocation'}."))
        if paused and self.run.scenario.remedy == "proposal_clear_buffer_on_revoke":
            for d in self.fetcher.clear_buffered_data(set(self.fetcher.buffered()) - set(paused),
                                                      "proposal: cleared on revocation"):
                self._discarded(d)
        self._callback("PartitionsLost" if lost else "PartitionsRevoked", tps)

    def _callback(self, kind: str, tps: list[TopicPartition]) -> None:
        for tp in tps:
            self.row(kind, tp, value=len(tps))

    def _clear(self, tps: list[TopicPartition], reason: str) -> None:
        for tp in tps:
            self.row("PauseFlagCleared", tp, reason=reason)
            self.run.flags_cleared[reason] = self.run.flags_cleared.get(reason, 0) + 1

    # -- membership ------------------------------------------------------------------------------
    def next_heartbeat(self) -> int:
        return self.hb_base + ((self.sim.now - self.hb_base) // self.hb_ms + 1) * self.hb_ms

    def on_heartbeat(self) -> None:
        """Heartbeat response: REBALANCE_IN_PROGRESS (rejoin), or UNKNOWN_MEMBER_ID once expelled."""
        if not self.alive:
            return
        if self.name not in self.group.members and self.generation != NO_GENERATION:
            self.row("HeartbeatFailed", error="UNKNOWN_MEMBER_ID")
            self.generation, self.rejoin_needed, self.join_pending = NO_GENERATION, True, False
        elif self.group.rebalancing and self.name not in self.group.joined and not self.join_pending:
            self.rejoin_needed = True
        else:
            return
        self.wake()

    def on_sync(self, generation: int, assigned: list[TopicPartition]) -> None:
        if self.alive and self.name in self.group.members:
            self.pending_sync, self.join_pending = (generation, assigned), False
            self.wake()

    def close(self) -> None:
        """KafkaConsumer.close(): commit, (2.4+) onLeavePrepare revokes everything, LeaveGroup."""
        expelled = self.generation == NO_GENERATION
        if self.auto_commit and not expelled:
            self._commit()
        if self.v24 and self.subs.assigned_partitions():   # onLeavePrepare
            self._revoke(self.subs.assigned_partitions(), lost=expelled)
        self.alive = False   # a pending _step finds it so and does nothing
        self.row("LeaveGroup")
        self.group.remove(self, "leave_group")

    def expel(self) -> None:
        """The coordinator drops the member (session timeout); it finds out at its next heartbeat."""
        self.group.remove(self, "session_timeout")
        self.sim.at(self.next_heartbeat(), self.on_heartbeat)


class _Run:
    """One run's shared state and ledgers."""

    def __init__(self, scenario: PauseScenario):
        self.scenario = scenario
        self.sim = Simulation()
        self.rows = self.sim.events.rows
        self.tps = [(scenario.topic, p) for p in range(scenario.partitions)]
        self.records_per_fetch = max(1, scenario.consumer_config["max.partition.fetch.bytes"] // scenario.record_bytes)
        self.group = _Group(self)
        self.members: dict[str, _Member] = {}
        self.client_log: list[tuple[int, str, str]] = []
        n = scenario.records_per_partition
        self.processed_count = np.zeros((scenario.partitions, n), dtype=np.int32)
        self.dropped = np.zeros((scenario.partitions, n), dtype=bool)
        self.unexpected = {"from_buffer": 0, "new_fetch": 0}
        self.unexpected_by_member: dict[str, int] = {}
        self.unexpected_polls = 0
        self.records_fetched = 0
        self.discards: dict[str, int] = {}
        self.flags_cleared: dict[str, int] = {}

    def row(self, source: str, member: str | None, kind: str, generation: int | None = None,
            tp: TopicPartition | None = None, error: str | None = None, reason: str | None = None,
            value: float | None = None) -> None:
        if source == "coordinator":
            generation = self.group.generation
        topic, partition = tp if tp is not None else (None, None)
        self.rows.append((self.sim.now, source, self.scenario.group_id, member, kind, generation, topic, partition,
                          error, reason, value, None))

    def add_member(self) -> _Member:
        m = _Member(self, f"consumer-{len(self.members) + 1}")
        self.members[m.name] = m
        m.start()
        return m

    def change(self, action: str, name: str | None) -> None:
        if action == "join":
            self.add_member()
            return
        alive = [m for m in self.members.values() if m.alive]
        target = self.members.get(name) if name else (alive[-1] if alive else None)
        if target is None or not target.alive:
            raise ConfigError(f"membership change {action!r} names {name!r}, but the live members are "
                              f"{', '.join(m.name for m in alive) or 'none'}")
        target.close() if action == "leave" else target.expel()

    def returned(self, member: str, r: Returned, dropped: bool) -> None:
        if dropped:
            self.dropped[r.tp[1], r.first:r.first + r.count] = True
            self.unexpected["from_buffer" if r.fetched_before_assignment else "new_fetch"] += r.count
            self.unexpected_by_member[member] = self.unexpected_by_member.get(member, 0) + r.count

    def processed(self, r: Returned) -> None:
        self.processed_count[r.tp[1], r.first:r.first + r.count] += 1

    def discarded(self, d) -> None:
        self.discards[d.reason] = self.discards.get(d.reason, 0) + d.count

    def summary(self) -> dict:
        done = self.processed_count
        return {
            "unexpected_records": sum(self.unexpected.values()),
            "unexpected_polls": self.unexpected_polls,
            "unexpected_from_buffer": self.unexpected["from_buffer"],
            "unexpected_new_fetch": self.unexpected["new_fetch"],
            "unexpected_by_member": dict(sorted(self.unexpected_by_member.items())),
            "pause_flags_cleared": dict(sorted(self.flags_cleared.items())),
            "records_lost": int((self.dropped & (done == 0)).sum()),
            "records_fetched": self.records_fetched,
            "records_discarded": dict(sorted(self.discards.items())),
            "duplicates": int(np.maximum(done - 1, 0).sum()),
            "unprocessed_at_end": int((done == 0).sum()),
            "generations": self.group.generation,
        }


class PauseRun:
    """The result: `events` (DataFrame in the kafkasim.core.events schema), `summary` (see
    SUMMARY_DOC), `client_log` (Kafka's 3.2+ INFO lines about pause flags) and the scenario."""

    def __init__(self, scenario: PauseScenario, run: _Run):
        self.scenario = scenario
        self.rows = run.rows
        self.summary = run.summary()
        self.client_log = run.client_log
        self.provenance = provenance("kafkasim.client.pause_resume", kafka_version=scenario.kafka_version, seed=0,
                                     configs={"consumer": scenario.consumer_config},
                                     inputs={"scenario": scenario.to_dict()})

    @cached_property
    def events(self):
        return to_frame(self.rows)

    def __repr__(self) -> str:
        s = self.scenario
        return (f"<PauseRun Kafka {s.kafka_version} {s.protocol} remedy={s.remedy}: "
                f"{self.summary['unexpected_records']} unexpected records, {self.summary['records_lost']} lost>")


def _start(scenario: PauseScenario) -> _Run:
    run = _Run(scenario)
    for _ in range(scenario.members):
        run.add_member()
    for t, action, name in scenario.changes:
        run.sim.at(t, run.change, action, name)
    return run


def simulate_pause(scenario: PauseScenario | None = None, **kwargs) -> PauseRun:
    """Run a PauseScenario (or one built from keyword arguments) to `duration_ms`."""
    scenario = scenario.replace(**kwargs) if scenario is not None else PauseScenario(**kwargs)
    run = _start(scenario)
    run.sim.run(until=scenario.duration_ms)
    return PauseRun(scenario, run)


#: One release per era of the behaviour: <= 2.3, 2.4 (KAFKA-7548, KIP-429), 2.5+ (KAFKA-8421), and today's.
ERAS = ("2.3", "2.4", "2.5", "3.7")


def sweep(versions=ERAS, protocols=(EAGER, COOPERATIVE), remedies=tuple(REMEDIES), **scenario_kwargs):
    """One row per (version, protocol, remedy) with the summary's numbers (dicts flattened as
    `records_discarded.not_assigned` etc.). Cooperative rows exist only from 2.4 (KIP-429)."""
    import pandas as pd

    base = PauseScenario(**scenario_kwargs)
    rows = []
    for v in versions:
        for protocol in protocols:
            if protocol == COOPERATIVE and not at_least(v, "2.4"):
                continue
            for remedy in remedies:
                run = simulate_pause(base, kafka_version=v, protocol=protocol, remedy=remedy,
                                     assignor=base.assignor if protocol == EAGER else None)
                row = {"kafka_version": v, "protocol": protocol, "remedy": remedy,
                       "in_kafka": not remedy.startswith("proposal_")}
                for key, value in run.summary.items():
                    if key == "unexpected_by_member":
                        continue
                    if isinstance(value, dict):
                        row.update({f"{key}.{k}": n for k, n in value.items()})
                    else:
                        row[key] = value
                rows.append(row)
    return pd.DataFrame(rows).fillna(0)


def behaviour_matrix(versions=ERAS, member: str = "consumer-1"):
    """The behaviour matrix, measured rather than copied: what a rebalance did to the
    pause flags and paused buffered records of `member`, one row per version, protocol and
    change ("join": a third member joins; "lost": `member` is expelled and rejoins).

    The application pauses once (`app_loop="pause_once"`) so that the flags left at the end are
    the consumer's doing, not the application's.
    """
    import pandas as pd

    rows = []
    for v in versions:
        for protocol in (EAGER, COOPERATIVE) if at_least(v, "2.4") else (EAGER,):
            for change in ("join", "lost"):
                who = member if change == "lost" else None
                rows.append(_probe(PauseScenario(kafka_version=v, protocol=protocol, app_loop="pause_once",
                                                 resume_at_ms=None, changes=((12_000, change, who),)), member))
    return pd.DataFrame(rows)


def _probe(scenario: PauseScenario, name: str) -> dict:
    change_ms, change = scenario.changes[0][:2]
    run = _start(scenario)
    before: list[TopicPartition] = []
    run.sim.at(change_ms - 1, lambda: before.extend(run.members[name].subs.paused_partitions()))
    run.sim.run(until=scenario.duration_ms)
    me = run.members[name]
    retained = [tp for tp in before if me.subs.is_assigned(tp)]
    moved = [tp for tp in before if not me.subs.is_assigned(tp)]
    owners = {tp: m for m in run.members.values() if m.alive for tp in m.subs.assigned_partitions()}

    def flag(tps, paused):
        return "-" if not tps else "kept" if all(paused(tp) for tp in tps) else "lost"

    # records by reason; each reason is the era's and only a pause or a rebalance causes it, so no time window:
    # NOT_FETCHABLE (<= 2.3: data of a paused partition), NOT_ASSIGNED, STALE, unexpected_from_buffer
    n: Counter = Counter()
    for r in run.rows:
        if r[3] == name and r[4] in ("RecordsDiscarded", "RecordsReturned"):
            n[r[9]] += r[10]
    n_while, from_buffer, drained, stale = n[NOT_FETCHABLE], n["unexpected_from_buffer"], n[NOT_ASSIGNED], n[STALE]
    kept = sum(n for tp, n in me.fetcher.buffered().items() if tp in retained)
    at_rebalance = [text for n, text in ((from_buffer, "returned after the reassignment"),
                                         (drained, "drained (no longer assigned)"),
                                         (stale, "discarded (stale offset)"),
                                         (kept, "kept for retained partitions")) if n]
    return {"kafka_version": scenario.kafka_version, "protocol": scenario.protocol, "change": change,
            "flag_of_retained": flag(retained, me.subs.is_paused),
            "flag_of_moved": flag(moved, lambda tp: tp in owners and owners[tp].subs.is_paused(tp)),
            "buffer_while_paused": "discarded at the next poll()" if n_while else "kept in the buffer",
            "buffer_at_rebalance": "; ".join(at_rebalance) or "-",
            "records_returned_from_buffer": int(from_buffer), "records_drained": int(drained),
            "records_discarded_while_paused": int(n_while)}


__all__ = ["APP_LOOPS", "COOPERATIVE", "EAGER", "ERAS", "REMEDIES", "SUMMARY_DOC", "PauseRun", "PauseScenario",
           "behaviour_matrix", "simulate_pause", "sweep"]
