"""The client side of the consumer protocol (KIP-848): `kafkasim.client.consumer_membership`, and
whole scenarios under `consumer={"group.protocol": "consumer"}`.

Exact event sequences follow Kafka's `AbstractMembershipManager`, `ConsumerMembershipManager`,
`AbstractHeartbeatRequestManager` and `ConsumerHeartbeatRequestManager` (4.0.0): one join, one
reconciliation with revocation, fencing after a GC pause, a poll timeout, a static member's
graceful restart. Every fault then runs under the consumer protocol, dynamic and static, with the
run invariants; and the same fault runs under classic eager, classic cooperative-sticky and the
consumer protocol side by side.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from kafkasim.client.consumer import Consumer
from kafkasim.client.consumer_membership import (
    ACKNOWLEDGING, FENCED, JOINING, LEAVING, MEMBER_STATES, PREPARE_LEAVING, RECONCILING, STABLE, STALE, UNSUBSCRIBED,
    VALID_PREVIOUS, AsyncConsumer, random_member_id)
from kafkasim.coordinator import GroupCoordinator
from kafkasim.core import faults as F
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError, Errors
from kafkasim.core.events import ownership_intervals
from kafkasim.scenario.run import SUMMARY_DOC
from kafkasim.scenario.world import Scenario, World, simulate

CP = {"group.protocol": "consumer"}
NOISE = ("Fetched", "Processed", "Commit", "OffsetCommit")


def small(**kw) -> Scenario:
    """Two members started together, four partitions, no production unless asked: exact times."""
    base = dict(kafka_version="4.0", consumer=CP, members=2, start_spread_ms=0, topics={"orders": 4},
                produce_rate_per_s=0, duration_ms=120_000)
    return Scenario(**{**base, **kw})


def trace(run, name: str, t0: int = 0, t1: int | None = None, skip=NOISE) -> list[tuple]:
    """(time, source, kind, topic, partition, error, reason, value) of one member's consumer rows
    and the coordinator rows about it, in order."""
    out = []
    for row in run.rows:
        who = run.member_names.get(row[3], row[3])
        if who == name and t0 <= row[0] <= (run.end_ms if t1 is None else t1) and row[4] not in skip:
            value = None if row[10] is None else int(row[10])
            out.append((row[0], row[1], row[4], row[6], row[7], row[8], row[9], value))
    return out


def kinds(rows) -> list[str]:
    return [r[2] for r in rows]


# -- run invariants -----------------------------------------------------------------------------
def ownership_conflicts(run) -> list[tuple]:
    """Partitions owned by two members at once, except where the earlier owner had already been
    removed by the coordinator when the later one got the partition: a zombie (frozen, cut off or
    stuck) that has not yet heard it was fenced is the one overlap Kafka allows, in both protocols."""
    removed = defaultdict(list)
    for row in run.rows:
        if row[1] == "coordinator" and row[4] == "MemberRemoved":
            removed[run.member_names.get(row[3], row[3])].append(row[0])
    by_partition = defaultdict(list)
    for member, topic, partition, start, end in ownership_intervals(run.rows, run.end_ms):
        if end > start:
            by_partition[(topic, partition)].append((start, end, member))
    conflicts = []
    for tp, intervals in by_partition.items():
        intervals.sort()
        for i, (s1, e1, m1) in enumerate(intervals):
            for s2, e2, m2 in intervals[i + 1:]:
                if s2 < e1 and m1 != m2 and not any(s1 <= t <= s2 for t in removed[m1]):
                    conflicts.append((tp, m1, s1, e1, m2, s2, e2))
    return conflicts


def transition_errors(run) -> list[tuple]:
    """MemberTransition rows that MemberState.java would refuse (a process starts UNSUBSCRIBED)."""
    state, bad = {}, []
    for row in run.rows:
        if row[1] != "consumer":
            continue
        if row[4] == "Started":
            state[row[3]] = UNSUBSCRIBED
        elif row[4] == "MemberTransition":
            previous, new = state.get(row[3]), row[9]
            if previous == new or previous not in VALID_PREVIOUS[new]:
                bad.append((row[0], row[3], previous, new))
            state[row[3]] = new
    return bad


def assert_invariants(run, drained: bool = True) -> None:
    s = run.summary
    assert not ownership_conflicts(run)
    assert s["duplicates"] == sum(s["duplicates_by_cause"].values())
    assert "unknown" not in s["duplicates_by_cause"]  # every handover with uncommitted progress has a cause
    if drained:
        assert s["unprocessed_at_end"] == 0
        assert s["records_processed"] == s["records_produced"] + s["duplicates"]  # nothing lost, nothing extra
    assert not transition_errors(run)
    assert set(s) == set(SUMMARY_DOC)


# -- the member id and the member states ---------------------------------------------------------
def test_member_ids_are_kafka_uuids():
    import random

    rng = random.Random(3)
    ids = [random_member_id(rng) for _ in range(200)]
    assert all(len(i) == 22 and not i.startswith("-") for i in ids)
    assert len(set(ids)) == 200


def test_member_states_are_kafkas():
    assert MEMBER_STATES == ("UNSUBSCRIBED", "JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "FENCED",
                             "PREPARE_LEAVING", "LEAVING", "FATAL", "STALE")
    assert VALID_PREVIOUS[ACKNOWLEDGING] == {RECONCILING}
    assert VALID_PREVIOUS[STALE] == {LEAVING}
    assert VALID_PREVIOUS[JOINING] == {FENCED, UNSUBSCRIBED, STALE}


def test_the_world_picks_the_consumer_by_group_protocol():
    assert type(World(small()).add_consumer()) is AsyncConsumer
    assert type(World(small(consumer={})).add_consumer()) is Consumer


# -- one join -------------------------------------------------------------------------------------
def test_one_join_heartbeat_by_heartbeat():
    """JOINING sends at once; the response's assignment is reconciled (onPartitionsAssigned), the
    acknowledgement goes out at once, then a heartbeat every HeartbeatIntervalMs (5 s)."""
    run = simulate(small(members=1, topics={"orders": 3}, duration_ms=12_000))
    assert trace(run, "c-1") == [
        (0, "consumer", "Started", None, None, None, "dynamic", None),
        (0, "consumer", "StateChanged", None, None, None, "joining", None),
        (0, "consumer", "MemberTransition", None, None, None, JOINING, 0),
        (0, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 0),
        (0, "coordinator", "MemberJoined", None, None, None, None, None),
        (0, "coordinator", "MemberEpochBumped", None, None, None, "STABLE", 1),
        (0, "consumer", "MemberTransition", None, None, None, RECONCILING, 1),
        (0, "consumer", "PartitionsAssigned", "orders", 0, None, None, None),
        (0, "consumer", "PartitionsAssigned", "orders", 1, None, None, None),
        (0, "consumer", "PartitionsAssigned", "orders", 2, None, None, None),
        (0, "consumer", "MemberTransition", None, None, None, ACKNOWLEDGING, 1),
        (0, "consumer", "StateChanged", None, None, None, "consuming", None),
        (0, "consumer", "MemberTransition", None, None, None, STABLE, 1),
        (0, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 1),   # the acknowledgement
        (5000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 1),
        (10000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 1),
    ]
    assert run.summary["generations"] == 1 and run.summary["rebalances"] == 1


def test_a_heartbeat_sends_only_what_changed(monkeypatch):
    """ConsumerHeartbeatRequestManager.HeartbeatState: everything when joining; then the member id,
    the epoch (and the instance id) only; the owned partitions once more to acknowledge; everything
    again after an error."""
    sent = []
    forward = GroupCoordinator.consumer_group_heartbeat

    def spy(self, group_id, **request):
        sent.append((self.sim.now, request))
        return forward(self, group_id, **request)

    monkeypatch.setattr(GroupCoordinator, "consumer_group_heartbeat", spy)
    simulate(small(members=1, topics={"orders": 2}, duration_ms=11_000, static_membership=True))
    (t0, join), (t1, ack), (t2, steady), (t3, _) = sent
    member_id = join["member_id"]
    assert (t0, t1, t2, t3) == (0, 0, 5000, 10000)
    assert join == {"member_id": member_id, "member_epoch": 0, "instance_id": "c-1", "rebalance_timeout_ms": 300_000,
                    "subscribed_topic_names": ["orders"], "owned_partitions": {}}
    assert ack == {"member_id": member_id, "member_epoch": 1, "instance_id": "c-1", "owned_partitions": {"orders": [0, 1]}}
    assert steady == {"member_id": member_id, "member_epoch": 1, "instance_id": "c-1"}


def test_a_failed_heartbeat_makes_the_next_one_full(monkeypatch):
    sent = []
    forward = GroupCoordinator.consumer_group_heartbeat

    def spy(self, group_id, **request):
        sent.append((self.sim.now, request))
        return forward(self, group_id, **request)

    monkeypatch.setattr(GroupCoordinator, "consumer_group_heartbeat", spy)
    simulate(small(members=1, topics={"orders": 2}, duration_ms=30_000, faults=[F.NetworkCut("c-1", 4_000, 3_000)]))
    after = [(t, r) for t, r in sent if t > 4_000]
    # lost at 5000, then retried after retry.backoff.ms doubling up to retry.backoff.max.ms: lost at
    # 5100, 5300, 5700 and 6500, through at 7500 (the cut ended at 7000); every 5 s from there
    assert [t for t, _ in after][:3] == [7_500, 12_500, 17_500]
    first = after[0][1]
    assert first["rebalance_timeout_ms"] == 300_000 and first["subscribed_topic_names"] == ["orders"]
    assert first["owned_partitions"] == {"orders": [0, 1]} and first["member_epoch"] == 1
    assert set(after[1][1]) == {"member_id", "member_epoch", "instance_id"}


# -- one reconciliation with revocation ------------------------------------------------------------
def test_one_reconciliation_with_revocation():
    """A second member joins at 2 s. The first learns at its next heartbeat (5 s) that it must give
    a partition up: commit, onPartitionsRevoked, onPartitionsAssigned (empty), acknowledge. The
    coordinator grants the partition to the new member only after that, at the new member's next
    heartbeat (7 s): revoke before the acknowledging heartbeat, assign after it."""
    run = simulate(small(members=1, topics={"orders": 3}, duration_ms=12_000, faults=[F.ScaleOut(2_000)]))
    assert trace(run, "c-1", 4_000, 9_000, skip=("Fetched", "Processed")) == [
        (5000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 1),
        (5000, "coordinator", "MemberStateChanged", None, None, None, "UNREVOKED_PARTITIONS", 1),
        (5000, "consumer", "MemberTransition", None, None, None, RECONCILING, 1),
        (5000, "coordinator", "OffsetCommit", None, None, "NONE", None, 3),
        (5000, "consumer", "Commit", None, None, None, None, 3),
        (5000, "consumer", "PartitionsRevoked", "orders", 2, None, None, None),
        (5000, "consumer", "PartitionsAssigned", None, None, None, None, 0),
        (5000, "consumer", "MemberTransition", None, None, None, ACKNOWLEDGING, 1),
        (5000, "consumer", "MemberTransition", None, None, None, STABLE, 1),
        (5000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 1),  # reports {0, 1}
        (5000, "coordinator", "MemberEpochBumped", None, None, None, "STABLE", 2),
    ]
    assert trace(run, "c-2", 2_000, 9_000) == [
        (2000, "consumer", "Started", None, None, None, "dynamic", None),
        (2000, "consumer", "StateChanged", None, None, None, "joining", None),
        (2000, "consumer", "MemberTransition", None, None, None, JOINING, 0),
        (2000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 0),
        (2000, "coordinator", "MemberJoined", None, None, None, None, None),
        (2000, "coordinator", "MemberEpochBumped", None, None, None, "UNRELEASED_PARTITIONS", 2),
        (2000, "consumer", "MemberTransition", None, None, None, RECONCILING, 2),
        (2000, "consumer", "PartitionsAssigned", None, None, None, None, 0),
        (2000, "consumer", "MemberTransition", None, None, None, ACKNOWLEDGING, 2),
        (2000, "consumer", "StateChanged", None, None, None, "consuming", None),
        (2000, "consumer", "MemberTransition", None, None, None, STABLE, 2),
        (2000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 2),
        (7000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 2),
        (7000, "coordinator", "MemberStateChanged", None, None, None, "STABLE", 2),
        (7000, "consumer", "MemberTransition", None, None, None, RECONCILING, 2),
        (7000, "consumer", "PartitionsAssigned", "orders", 2, None, None, None),
        (7000, "consumer", "MemberTransition", None, None, None, ACKNOWLEDGING, 2),
        (7000, "consumer", "MemberTransition", None, None, None, STABLE, 2),
        (7000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 2),
    ]
    assert_invariants(run, drained=False)


def test_revocation_waits_for_the_application_thread():
    """Callbacks run in poll(): a member stuck in application code acknowledges only when it polls
    again, and the partition's new owner waits that long; the others keep consuming meanwhile."""
    run = simulate(small(members=1, topics={"orders": 2}, produce_rate_per_s=20, duration_ms=60_000,
                         faults=[F.SlowProcessing("c-1", 3_000, 20_000), F.ScaleOut(4_000)]))
    revoked = [r[0] for r in trace(run, "c-1") if r[2] == "PartitionsRevoked"]
    granted = [r[0] for r in trace(run, "c-2") if r[2] == "PartitionsAssigned" and r[3] is not None]
    assert revoked == [23_000]                 # the stall ends at 23 s; the heartbeat at 5 s only asked
    assert granted == [24_000]                 # c-2's first heartbeat after the release (every 5 s from 4 s)
    assert_invariants(run, drained=False)


# -- fencing after a GC pause ---------------------------------------------------------------------
def test_fencing_after_a_gc_pause_longer_than_the_session_timeout():
    """The frozen member misses group.consumer.session.timeout.ms (45 s): the coordinator fences it
    and gives its partitions away. When it thaws, its heartbeat gets UNKNOWN_MEMBER_ID: FENCED,
    onPartitionsLost, then it rejoins with epoch 0 and the same member id."""
    run = simulate(small(faults=[F.Pause("c-1", 20_000, 60_000)]))
    rows = trace(run, "c-1", 15_000, 80_000)
    assert rows[:4] == [
        (15000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 2),
        (20000, "consumer", "Frozen", None, None, None, None, 60000),
        (20000, "consumer", "StateChanged", None, None, None, "paused", None),
        (60000, "coordinator", "MemberFenced", None, None, None, "session_timeout", 2),  # 15 s + 45 s
    ]
    assert rows[4:5] == [(60000, "coordinator", "MemberRemoved", None, None, None, "session_timeout", 2)]
    thaw = rows[5:]
    assert thaw[:9] == [
        (80000, "consumer", "StateChanged", None, None, None, "consuming", None),
        (80000, "coordinator", "ConsumerGroupHeartbeat", None, None, "UNKNOWN_MEMBER_ID", None, 2),
        (80000, "consumer", "MemberTransition", None, None, None, FENCED, 2),
        (80000, "consumer", "StateChanged", None, None, None, "removed", None),
        (80000, "consumer", "PartitionsLost", "orders", 0, None, None, None),
        (80000, "consumer", "PartitionsLost", "orders", 1, None, None, None),
        (80000, "consumer", "MemberTransition", None, None, None, JOINING, 0),
        (80000, "consumer", "StateChanged", None, None, None, "joining", None),
        (80000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 0),  # epoch 0, same member id
    ]
    ids = [mid for mid, name in run.member_names.items() if name == "c-1"]
    assert len(ids) == 1  # the client's member id survives the rejoin
    others = [r for r in trace(run, "c-2", 60_000, 60_000) if r[2] == "PartitionsAssigned"]
    assert [r[4] for r in others] == [0, 1]  # c-2 got them at once: it heartbeats at 60 s too
    assert run.summary["removals_by_reason"] == {"session_timeout": 1}
    assert_invariants(run, drained=False)


# -- poll timeout -----------------------------------------------------------------------------------
def test_poll_timeout_leaves_with_epoch_minus_one_and_rejoins_on_the_next_poll():
    """max.poll.interval.ms without poll(): the background thread sends a leave heartbeat (-1) and
    the member goes STALE; the coordinator removes it (leave_group). c-1 waits inside poll() for
    records when it stalls at 20.5 s (its last batch ended at 20.02 s), so the timer counts from
    20.5 s. The stuck call returns at 65.5 s: onPartitionsLost, then the member rejoins with epoch 0."""
    run = simulate(small(consumer={**CP, "max.poll.interval.ms": 30_000}, produce_rate_per_s=40, processing_ms=1.0,
                         faults=[F.SlowProcessing("c-1", 20_500, 45_000)]))
    rows = trace(run, "c-1", 50_001, 65_500)
    assert rows[:9] == [
        (50500, "consumer", "PollTimeout", None, None, None, "poll_timeout", 30000),
        (50500, "consumer", "MemberTransition", None, None, None, PREPARE_LEAVING, 2),
        (50500, "consumer", "MemberTransition", None, None, None, LEAVING, -1),
        (50500, "consumer", "MemberTransition", None, None, None, STALE, -1),
        (50500, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, -1),
        (50500, "coordinator", "MemberRemoved", None, None, None, "leave_group", 2),
        (50500, "consumer", "StateChanged", None, None, None, "removed", None),
        (65500, "consumer", "PartitionsLost", "orders", 0, None, None, None),
        (65500, "consumer", "PartitionsLost", "orders", 1, None, None, None),
    ]
    assert rows[9:12] == [
        (65500, "consumer", "MemberTransition", None, None, None, JOINING, 0),
        (65500, "consumer", "StateChanged", None, None, None, "joining", None),
        (65500, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 0),
    ]
    assert run.summary["duplicates_by_cause"].keys() <= {"poll_timeout"}
    assert_invariants(run, drained=False)


def test_a_static_member_leaves_with_minus_two_on_poll_timeout_and_gets_its_partitions_back():
    run = simulate(small(consumer={**CP, "max.poll.interval.ms": 30_000}, produce_rate_per_s=40, processing_ms=1.0,
                         static_membership=True, faults=[F.SlowProcessing("c-1", 20_500, 31_000)]))
    rows = trace(run, "c-1", 50_500)  # the poll timer expires at 20.5 s + 30 s, the stall ends at 51.5 s
    leave = next(r for r in rows if r[2] == "ConsumerGroupHeartbeat" and r[7] < 0)
    assert leave[7] == -2
    assert "MemberLeftTemporarily" in kinds(rows) and "MemberReplaced" in kinds(rows)
    before = {p for m, _, p, start, end in ownership_intervals(run.rows, run.end_ms) if m == "c-1" and start <= 20_000 < end}
    after = {r[4] for r in rows if r[2] == "PartitionsAssigned" and r[3]}
    assert before == after == {0, 1}
    assert run.summary["rebalances"] == 2  # the two joins; the static leave and return bump nothing
    assert_invariants(run, drained=False)


# -- static membership ----------------------------------------------------------------------------------
def test_static_member_restart_within_the_session_timeout_keeps_its_partitions():
    """A graceful restart (close: commit, onPartitionsRevoked, leave with -2) within
    group.consumer.session.timeout.ms: the new process (a new member id) replaces the old member
    with the same partitions, and the group epoch does not move."""
    run = simulate(small(static_membership=True, faults=[F.Restart("c-1", 30_000, delay_ms=20_000, graceful=True)]))
    rows = trace(run, "c-1", 30_000, 50_000)
    assert kinds(rows) == [
        "PartitionsRevoked", "PartitionsRevoked", "MemberTransition", "MemberTransition", "MemberTransition",
        "ConsumerGroupHeartbeat", "MemberLeftTemporarily", "Closed", "StateChanged",
        "Started", "StateChanged", "MemberTransition", "ConsumerGroupHeartbeat", "MemberReplaced",
        "MemberEpochBumped", "MemberTransition", "PartitionsAssigned", "PartitionsAssigned", "MemberTransition",
        "StateChanged", "MemberTransition", "ConsumerGroupHeartbeat"]
    assert [r[6] for r in rows if r[2] == "MemberTransition"] == [
        PREPARE_LEAVING, LEAVING, UNSUBSCRIBED, JOINING, RECONCILING, ACKNOWLEDGING, STABLE]
    leave = rows[5]
    assert leave[0] == 30_000 and leave[7] == -2
    assert [r[4] for r in rows if r[2] == "PartitionsAssigned"] == [0, 1]
    assert all(r[0] == 50_000 for r in rows[9:])
    epochs = [r[10] for r in run.rows if r[4] == "GroupEpochBumped"]
    assert epochs == [1.0, 2.0]  # the two joins at startup only
    assert len({mid for mid, name in run.member_names.items() if name == "c-1"}) == 2
    assert_invariants(run, drained=False)


def test_a_crashed_static_member_back_within_the_session_timeout_is_refused():
    """Without its -2 leave the old member still holds the instance id: UNRELEASED_INSTANCE_ID,
    fatal in the 4.x client (ConsumerHeartbeatRequestManager.handleSpecificError). Back after the
    session timeout, it joins as a new member (the old one was fenced)."""
    early = simulate(small(static_membership=True, faults=[F.Restart("c-1", 30_000, delay_ms=20_000)]))
    fatal = [r for r in trace(early, "c-1") if r[2] == "Fatal"]
    assert fatal == [(50_000, "consumer", "Fatal", None, None, "UNRELEASED_INSTANCE_ID", "UnreleasedInstanceIdException",
                      None)]
    assert_invariants(early, drained=False)
    late = simulate(small(static_membership=True, faults=[F.Restart("c-1", 30_000, delay_ms=60_000)]))
    assert not [r for r in late.rows if r[4] == "Fatal"]
    assert late.summary["removals_by_reason"] == {"session_timeout": 1}
    assert_invariants(late, drained=False)


# -- every fault, with the invariants -----------------------------------------------------------------
FAULTS = {
    "crash": [F.Crash("c-2", 60_000)],
    "restart": [F.Restart("c-2", 60_000, delay_ms=20_000)],
    "graceful restart": [F.Restart("c-2", 60_000, delay_ms=20_000, graceful=True)],
    "gc pause": [F.Pause("c-3", 60_000, 10_000)],
    "gc pause beyond the session": [F.Pause("c-3", 60_000, 60_000)],
    "slow processing": [F.SlowProcessing("c-4", 60_000, 30_000)],
    "slow beyond max.poll.interval.ms": [F.SlowProcessing("c-4", 60_000, 90_000)],
    "network cut": [F.NetworkCut("c-5", 60_000, 20_000)],
    "network cut beyond the session": [F.NetworkCut("c-5", 60_000, 60_000)],
    "scale out": [F.ScaleOut(60_000, 2)],
    "scale in": [F.ScaleIn(60_000, ("c-1", "c-6"))],
    "everything": [F.Crash("c-1", 40_000), F.Pause("c-2", 60_000, 50_000), F.SlowProcessing("c-3", 80_000, 20_000),
                   F.NetworkCut("c-4", 100_000, 15_000), F.ScaleOut(120_000), F.ScaleIn(140_000, ("c-5",)),
                   F.Restart("c-6", 160_000, delay_ms=5_000, graceful=True)],
}


@pytest.mark.parametrize("static", [False, True], ids=["dynamic", "static"])
@pytest.mark.parametrize("name", list(FAULTS))
def test_every_fault_under_the_consumer_protocol(name, static):
    scenario = Scenario(kafka_version="4.0", consumer={**CP, "max.poll.interval.ms": 60_000}, faults=FAULTS[name],
                        static_membership=static, duration_ms=240_000, drain_ms=120_000)
    run = simulate(scenario)
    assert_invariants(run)
    assert [r for r in run.rows if r[4] == "JoinGroup"] == []  # no classic request at all
    assert run.summary["generations"] == max(r[10] for r in run.rows if r[4] == "GroupEpochBumped")
    assert run.summary["rebalances"] == sum(r[4] == "GroupEpochBumped" for r in run.rows)


@pytest.mark.parametrize("strategy", ["range", "cooperative-sticky"])
@pytest.mark.parametrize("name", ["crash", "gc pause beyond the session", "network cut", "scale out", "scale in"])
def test_the_invariants_hold_for_classic_runs(name, strategy):
    run = simulate(Scenario(kafka_version="4.0", consumer={"partition.assignment.strategy": strategy},
                            faults=FAULTS[name], duration_ms=240_000, drain_ms=120_000))
    assert_invariants(run)


def test_the_summaries_compare_column_by_column():
    classic = simulate(Scenario(kafka_version="4.0"))
    consumer = simulate(Scenario(kafka_version="4.0", consumer=CP))
    assert list(classic.summary) == list(consumer.summary) == list(SUMMARY_DOC)
    assert consumer.summary["rebalances"] == 6  # one group epoch bump per member joining
    assert consumer.summary["generations"] == 6
    assert 0 < consumer.summary["rebalance_ms"] < 10_000  # Assigning/Reconciling while the six join


# -- side by side ---------------------------------------------------------------------------------------
SIDE_BY_SIDE = {"eager": {"partition.assignment.strategy": "range"},
                "cooperative-sticky": {"partition.assignment.strategy": "cooperative-sticky"},
                "consumer protocol": CP}


def side_by_side(faults) -> dict:
    return {label: simulate(Scenario(kafka_version="4.0", consumer=config, faults=faults, drain_ms=60_000))
            for label, config in SIDE_BY_SIDE.items()}


def test_a_crashed_member_that_comes_back_stops_everyone_only_under_eager():
    """One of six members crashes and its process is back 10 s later (a new member). Eager: the
    new JoinGroup starts a rebalance that waits for the crashed member until its session expires,
    and every member has revoked everything meanwhile. Cooperative keeps what does not move. The
    consumer protocol has no barrier: the newcomer waits for the crashed member's partitions, the
    others never stop."""
    runs = side_by_side([F.Restart("c-3", 120_000, delay_ms=10_000)])
    s = {label: run.summary for label, run in runs.items()}
    assert s["eager"]["all_unconsumed_ms"] >= 30_000
    assert s["cooperative-sticky"]["all_unconsumed_ms"] == 0
    assert s["consumer protocol"]["all_unconsumed_ms"] == 0
    for run in runs.values():
        assert_invariants(run)
    assert len({tuple(x) for x in s.values()}) == 1  # same columns


def test_a_plain_crash_never_stops_the_others_under_the_consumer_protocol():
    runs = side_by_side([F.Crash("c-3", 120_000)])
    consumer = runs["consumer protocol"].summary
    assert consumer["all_unconsumed_ms"] == 0
    assert consumer["removals_by_reason"] == {"session_timeout": 1}
    assert consumer["duplicates_by_cause"] == runs["eager"].summary["duplicates_by_cause"] == {"crash": 666}
    for run in runs.values():
        assert_invariants(run)


# -- offset commits -------------------------------------------------------------------------------------
def test_offset_commits_to_a_consumer_group_carry_the_member_epoch():
    """OffsetCommit v9+ (`ConsumerGroup.validateOffsetCommit`): the member's current epoch, or
    STALE_MEMBER_EPOCH; a non-member gets UNKNOWN_MEMBER_ID; epoch -1 only into an empty group."""
    coord = GroupCoordinator(Simulation(0), topics={"foo": 2})
    joined = coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=300_000,
                                            subscribed_topic_names=["foo"], owned_partitions={})
    epoch, tp = joined.member_epoch, ("foo", 0)
    assert coord.commit_offsets("g", "m1", epoch, {tp: 5}).error is Errors.NONE
    assert coord.commit_offsets("g", "m1", epoch + 1, {tp: 6}).error is Errors.STALE_MEMBER_EPOCH
    assert coord.commit_offsets("g", "zombie", epoch, {tp: 7}).error is Errors.UNKNOWN_MEMBER_ID
    assert coord.commit_offsets("g", "", -1, {tp: 8}).error is Errors.UNKNOWN_MEMBER_ID
    assert coord.committed("g") == {tp: 5}
    coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert coord.commit_offsets("g", "", -1, {tp: 9}).error is Errors.NONE
    assert coord.committed("g") == {tp: 9}
    commits = [r for r in coord.consumer_groups.sim.events.rows if r[4] == "OffsetCommit"]
    assert [(r[3], r[5], r[8]) for r in commits] == [
        ("m1", epoch, "NONE"), ("m1", epoch + 1, "STALE_MEMBER_EPOCH"), ("zombie", epoch, "UNKNOWN_MEMBER_ID"),
        (None, -1, "UNKNOWN_MEMBER_ID"), (None, -1, "NONE")]


def test_a_graceful_restart_is_a_restart_fault():
    fault = F.Restart("c-1", 10_000, delay_ms=5_000, graceful=True)
    assert fault.label() == "Restart c-1 at 10 s (graceful, down 5 s)"
    assert F.Restart("c-1", 10_000, delay_ms=5_000).label() == "Restart c-1 at 10 s (down 5 s)"
    with pytest.raises(ConfigError, match="graceful"):
        F.Restart("c-1", 10_000, graceful="yes")


def test_close_waits_for_the_batch_being_processed():
    """close() runs on the poll thread: a batch in progress is processed (and committed) first."""
    run = simulate(small(members=1, produce_rate_per_s=400, processing_ms=5.0, duration_ms=20_000, drain_ms=0,
                         faults=[F.ScaleIn(10_100, ("c-1",))]))
    rows = trace(run, "c-1", skip=())
    fetched = max(r[0] for r in rows if r[2] == "Fetched" and r[0] <= 10_100)
    processed = min(r[0] for r in rows if r[2] == "Processed" and r[0] > fetched)
    closed = next(r[0] for r in rows if r[2] == "Closed")
    assert fetched < 10_100 < processed == closed
    assert kinds(r for r in rows if r[0] == closed) == [
        "Processed", "OffsetCommit", "Commit", *["PartitionsRevoked"] * 4, "MemberTransition", "MemberTransition",
        "MemberTransition", "ConsumerGroupHeartbeat", "MemberRemoved", "Closed", "StateChanged"]
    assert sum(run.ledger.hw) == run.ledger.hw_total  # no offset skipped: nothing committed unprocessed


# -- configuration and speed ----------------------------------------------------------------------------
def test_the_consumer_protocol_needs_a_broker_that_serves_it():
    with pytest.raises(ConfigError, match="group.coordinator.rebalance.protocols"):
        Scenario(kafka_version="3.7", consumer=CP)
    early = Scenario(kafka_version="3.9", consumer=CP, broker={"group.coordinator.rebalance.protocols": ["classic", "consumer"]},
                     members=2, duration_ms=30_000)
    assert_invariants(simulate(early), drained=False)


def test_the_classic_only_configs_are_refused():
    with pytest.raises(ConfigError, match="session.timeout.ms cannot be set when group.protocol=CONSUMER"):
        Scenario(kafka_version="4.0", consumer={**CP, "session.timeout.ms": 10_000})


def test_broker_group_consumer_configs_reach_the_coordinator():
    run = simulate(small(members=1, broker={"group.consumer.heartbeat.interval.ms": 6_000}, duration_ms=13_000))
    beats = [r[0] for r in trace(run, "c-1") if r[2] == "ConsumerGroupHeartbeat"]
    assert beats == [0, 0, 6_000, 12_000]


def test_same_scenario_same_events():
    scenario = Scenario(kafka_version="4.2", consumer=CP, faults=FAULTS["everything"], duration_ms=200_000)
    assert simulate(scenario).events.equals(simulate(scenario).events)


def test_a_default_consumer_protocol_run_does_no_more_work_than_the_classic_one():
    """Speed is measured in benchmarks/ (scenario_speed.py), not timed here: what a test can hold
    without a clock is the work, the engine events and rows of the run. The consumer protocol's
    default run (heartbeats every 5 s instead of 3 s, no JoinGroup/SyncGroup round) does less of
    both than the classic run on the same workload."""
    modern, classic = simulate(Scenario(kafka_version="4.0", consumer=CP)), simulate(Scenario(kafka_version="4.0"))
    assert modern.engine_stats["events"] < classic.engine_stats["events"]
    assert len(modern.events) < len(classic.events)


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_a_poll_timeout_counts_as_one_under_either_protocol(protocol):
    """The classic LeaveGroup says why (its reason text), a consumer-protocol leave does not: the
    summary reads the member's own PollTimeout at that instant, so the two compare column by column."""
    consumer = {"max.poll.interval.ms": 30_000, **({"group.protocol": "consumer"} if protocol == "consumer" else {})}
    run = simulate(Scenario(kafka_version="4.0", consumer=consumer, members=2, topics={"orders": 4},
                            duration_ms=120_000, faults=[F.SlowProcessing("c-1", 20_500, 45_000)]))
    assert run.summary["removals_by_reason"] == {"poll_timeout": 1}
    assert run.summary["removals"] == {"c-1": {"poll_timeout": 1}}
