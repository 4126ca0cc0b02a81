"""A poll thread stuck in application code (faults.SlowProcessing -> Consumer.stall) while it was
idle inside poll(), under both group protocols.

Kafka resets the poll timer on every pass of poll()'s loop (`ConsumerCoordinator.poll` ->
`Heartbeat.poll` in the classic consumer, the `PollEvent` of `AsyncKafkaConsumer.poll` under
KIP-848), so a consumer waiting in poll() for records, or owning nothing, has just reset it when
poll() returns and the stuck call begins. It times out only if the stuck call lasts
max.poll.interval.ms, and it calls poll() again when the call returns: it rejoins after a timeout.

Every run: 2 members started at 0 ms, max.poll.interval.ms = 30 s, c-2 stalls at 60 s for 10 s
(shorter than the interval) or 40 s (longer: the timer expires at 60 + 30 = 90 s, the stuck call
returns at 100 s). The two consumers are threads of one application (`one_process`: a stuck call
holds one thread, not the other), so their client ids are numbered and c-1's member id sorts first:
range gives c-2 what is left after c-1.
"""

import pytest

from kafkasim import Scenario, faults, simulate
from kafkasim.client.consumer import POLL_TIMEOUT_REASON

from test_consumer_protocol_client import trace

STALL_AT, INTERVAL = 60_000, 30_000
QUIET = ("Fetched", "Processed", "Commit", "OffsetCommit", "Heartbeat")


def run_of(protocol: str, partitions: int, rate: float, stall_ms: int):
    """One partition: c-2 owns nothing. Two partitions at 0.05 records/s: c-2 owns orders-1, whose
    records come every 40 s (at 40 s and 80 s), so at 60 s it has been waiting in poll() for 20 s."""
    return simulate(Scenario(
        kafka_version="4.0", members=2, start_spread_ms=0, topics={"orders": partitions}, produce_rate_per_s=rate,
        processing_ms=100, duration_ms=120_000, one_process=True,
        consumer={"group.protocol": protocol, "max.poll.interval.ms": INTERVAL},
        faults=[faults.SlowProcessing("c-2", STALL_AT, stall_ms)]))


def rows_of(run, t1: int = 105_000) -> list[tuple]:
    """c-2's rows from the stall on, without the routine heartbeats (a leave, epoch < 0, stays)."""
    return [r for r in trace(run, "c-2", STALL_AT, t1, skip=QUIET)
            if not (r[2] == "ConsumerGroupHeartbeat" and r[7] is not None and r[7] > 0)]


STALLED = [(60000, "consumer", "Stalled", None, None, None, None, 10000),
           (60000, "consumer", "StateChanged", None, None, None, "stalled", None)]


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
@pytest.mark.parametrize("partitions,rate", [(1, 0), (2, 0.05)], ids=["owning-nothing", "waiting-for-records"])
def test_a_stall_shorter_than_max_poll_interval_is_harmless(protocol, partitions, rate):
    run = run_of(protocol, partitions, rate, 10_000)
    assert rows_of(run) == STALLED + [(70000, "consumer", "StateChanged", None, None, None, "consuming", None)]
    assert run.summary["removals_by_reason"] == {}
    if partitions == 2:  # it polls at 70 s, finds nothing, and fetches the record produced at 80 s
        fetched = [r[0] for r in trace(run, "c-2", STALL_AT, 100_000, skip=()) if r[2] == "Fetched"]
        assert fetched == [80_000]


@pytest.mark.parametrize("partitions,rate", [(1, 0), (2, 0.05)], ids=["owning-nothing", "waiting-for-records"])
def test_classic_a_stall_longer_than_max_poll_interval_leaves_at_the_interval_and_rejoins(partitions, rate):
    run = run_of("classic", partitions, rate, 40_000)
    lost = [(100000, "consumer", "PartitionsLost", "orders", 1, None, None, None)] if partitions == 2 else []
    rejoined = [(102000, "consumer", "PartitionsAssigned", "orders", 1, None, None, None)] if partitions == 2 else [
        (102000, "consumer", "PartitionsAssigned", None, None, None, None, 0)]
    assert rows_of(run) == [
        (60000, "consumer", "Stalled", None, None, None, None, 40000),
        (60000, "consumer", "StateChanged", None, None, None, "stalled", None),
        (90000, "consumer", "PollTimeout", None, None, None, "poll_timeout", 30000),
        (90000, "coordinator", "LeaveGroup", None, None, None, POLL_TIMEOUT_REASON, None),
        (90000, "coordinator", "MemberRemoved", None, None, None, "poll_timeout", None),
        (90000, "consumer", "StateChanged", None, None, None, "removed", None),
        *lost,  # the stuck call returns at 100 s: poll() rejoins (KIP-394: first without a member id)
        (100000, "consumer", "StateChanged", None, None, None, "joining", None),
        (100000, "coordinator", "PendingMemberAdded", None, None, None, None, None),
        (100000, "coordinator", "JoinGroupResponse", None, None, "MEMBER_ID_REQUIRED", "consumer-workbook-group-2", None),
        (100000, "coordinator", "JoinGroup", None, None, None, None, None),
        (100000, "coordinator", "MemberAdded", None, None, None, "dynamic", None),
        # c-1 learns of the rebalance at its next heartbeat (every 3 s from 0 s: 102 s) and rejoins
        (102000, "coordinator", "JoinGroupResponse", None, None, "NONE", None, None),
        (102000, "consumer", "StateChanged", None, None, None, "awaiting_sync", None),
        (102000, "coordinator", "SyncGroup", None, None, None, None, None),
        (102000, "coordinator", "SyncGroupResponse", None, None, "NONE", None, None),
        *rejoined,
        (102000, "consumer", "StateChanged", None, None, None, "consuming", None),
    ]


@pytest.mark.parametrize("partitions,rate", [(1, 0), (2, 0.05)], ids=["owning-nothing", "waiting-for-records"])
def test_consumer_protocol_a_stall_longer_than_max_poll_interval_leaves_with_epoch_minus_one_and_rejoins(partitions, rate):
    run = run_of("consumer", partitions, rate, 40_000)
    lost = [(100000, "consumer", "PartitionsLost", "orders", 1, None, None, None)] if partitions == 2 else []
    epoch_reason = "UNRELEASED_PARTITIONS" if partitions == 2 else "STABLE"  # orders-1 went to c-1 at 90 s
    assert rows_of(run, 100_000) == [
        (60000, "consumer", "Stalled", None, None, None, None, 40000),
        (60000, "consumer", "StateChanged", None, None, None, "stalled", None),
        (90000, "consumer", "PollTimeout", None, None, None, "poll_timeout", 30000),
        (90000, "consumer", "MemberTransition", None, None, None, "PREPARE_LEAVING", 2),
        (90000, "consumer", "MemberTransition", None, None, None, "LEAVING", -1),
        (90000, "consumer", "MemberTransition", None, None, None, "STALE", -1),
        (90000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, -1),
        (90000, "coordinator", "MemberRemoved", None, None, None, "leave_group", 2),
        (90000, "consumer", "StateChanged", None, None, None, "removed", None),
        *lost,  # the stuck call returns at 100 s: poll() rejoins with epoch 0 (maybeRejoinStaleMember)
        (100000, "consumer", "MemberTransition", None, None, None, "JOINING", 0),
        (100000, "consumer", "StateChanged", None, None, None, "joining", None),
        (100000, "coordinator", "ConsumerGroupHeartbeat", None, None, "NONE", None, 0),
        (100000, "coordinator", "MemberJoined", None, None, None, None, None),
        (100000, "coordinator", "MemberEpochBumped", None, None, None, epoch_reason, 4),
        (100000, "consumer", "MemberTransition", None, None, None, "RECONCILING", 4),
        (100000, "consumer", "PartitionsAssigned", None, None, None, None, 0),
        (100000, "consumer", "MemberTransition", None, None, None, "ACKNOWLEDGING", 4),
        (100000, "consumer", "StateChanged", None, None, None, "consuming", None),
        (100000, "consumer", "MemberTransition", None, None, None, "STABLE", 4),
    ]


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_a_second_stall_during_the_first_ends_with_the_later_one(protocol):
    """Stuck twice (60 s for 10 s, then 65 s for 10 s): poll() comes back at 75 s, once."""
    run = simulate(Scenario(
        kafka_version="4.0", members=2, start_spread_ms=0, topics={"orders": 1}, produce_rate_per_s=0,
        duration_ms=120_000, consumer={"group.protocol": protocol, "max.poll.interval.ms": INTERVAL},
        faults=[faults.SlowProcessing("c-2", 60_000, 10_000), faults.SlowProcessing("c-2", 65_000, 10_000)]))
    assert rows_of(run) == [
        *STALLED,
        (65000, "consumer", "Stalled", None, None, None, None, 10000),
        (75000, "consumer", "StateChanged", None, None, None, "consuming", None),
    ]
    assert run.summary["removals_by_reason"] == {}


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_a_second_pause_during_the_first_ends_with_the_later_one(protocol):
    """Two stop-the-world pauses of c-2, 30.5-40.5 s and 35.5-45.5 s: the member stays frozen until
    45.5 s, so it must not show as consuming again at 40.5 s (the first pause's end). Everything the
    run measures equals one pause of 30.5-45.5 s: 15 s with c-2's partitions unconsumed (was 10 s)."""
    def run(pauses):
        return simulate(Scenario(kafka_version="4.0", members=2, start_spread_ms=0, topics={"orders": 2},
                                 duration_ms=90_000, consumer={"group.protocol": protocol}, faults=pauses))
    two = run([faults.Pause("c-2", 30_500, 10_000), faults.Pause("c-2", 35_500, 10_000)])
    one = run([faults.Pause("c-2", 30_500, 15_000)])
    assert two.summary["unconsumed_ms"] == one.summary["unconsumed_ms"] >= 15_000
    assert two.summary["partition_downtime_ms"] == one.summary["partition_downtime_ms"]
    gaps = two.unconsumed()
    assert list(gaps.loc[gaps["partition"] == "orders-1", "end"]) == list(
        one.unconsumed().loc[lambda g: g["partition"] == "orders-1", "end"])
