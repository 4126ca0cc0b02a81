"""SubscriptionState and the fetch buffer, rule by rule and by Kafka version.

Kafka's own unit tests replayed here (named in each test): SubscriptionStateTest.partitionPause
and testMarkingPartitionPending, KafkaConsumerTest.testPause, FetcherTest (2.4.0 / 3.3.0)
testFetchOnPausedPartition, testInFlightFetchOnPausedPartition,
testFetchOnCompletedFetchesForPausedAndResumedPartitions, testFetchOnCompletedFetchesForSomePausedPartitions,
testPartialFetchWithPausedPartitions, testFetchDiscardedAfterPausedPartitionResumedAndSeekedToNewOffset,
testInflightFetchOnPendingPartitions, and FetchCollectorTest.testFetchingPausedPartitionsYieldsNoRecords (3.7.0).
Kafka's `this.records` (3 records) becomes a completed fetch of 3 records at the fetch position.
"""

import pytest

from kafkasim.core.config import KAFKA_VERSIONS
from kafkasim.client.fetch_buffer import NOT_ASSIGNED, NOT_FETCHABLE, STALE, CompletedFetch, Fetcher
from kafkasim.client.subscription_state import IllegalStateException, SubscriptionState, at_least

TP0, TP1, TP3 = ("orders", 0), ("orders", 1), ("orders", 3)


def fetcher_for(version, partitions=(TP0,), max_poll_records=500):
    subs = SubscriptionState(version)
    subs.assign_from_user(partitions)
    return subs, Fetcher(subs, max_poll_records)


def respond(fetcher, requests, n=3):
    """The broker answers a fetch with n records per partition from the requested offsets."""
    fetcher.add([CompletedFetch(tp, pos, pos + n, fetcher.subscriptions.assignment_id) for tp, pos in requests])


def fetched_then_paused(version, pause=None):
    """Seek tp0 to 0, send a fetch, pause (or `pause(subs)`) while it is in flight, then the response lands."""
    subs, fetcher = fetcher_for(version)
    subs.seek(TP0, 0)
    requests = fetcher.send_fetches()
    assert requests == [(TP0, 0)]
    (pause or (lambda st: st.pause(TP0)))(subs)
    respond(fetcher, requests)
    return subs, fetcher


def counts(returned):
    return {r.tp: r.count for r in returned}


# -- SubscriptionState -----------------------------------------------------------------------
def test_partition_pause():
    """SubscriptionStateTest.partitionPause (2.4.0)."""
    state = SubscriptionState("2.4")
    state.assign_from_user([TP0])
    state.seek(TP0, 100)
    assert state.is_fetchable(TP0)
    state.pause(TP0)
    assert not state.is_fetchable(TP0)
    state.resume(TP0)
    assert state.is_fetchable(TP0)


@pytest.mark.parametrize("version, pending", [("3.2", False), ("3.2.2", False), ("3.2.3", True), ("3.3", True),
                                              ("3.7", True)])
def test_marking_partition_pending(version, pending):
    """SubscriptionStateTest.testMarkingPartitionPending (3.3.0; KAFKA-14196 shipped in 3.2.3 and 3.3.0)."""
    state = SubscriptionState(version)
    state.assign_from_user([TP0])
    state.seek(TP0, 100)
    state.mark_pending_revocation([TP0])
    assert state.is_fetchable(TP0) is not pending
    assert not state.is_paused(TP0)


def test_pause_and_paused_set():
    """KafkaConsumerTest.testPause: paused() follows pause/resume; unsubscribe leaves nothing paused."""
    state = SubscriptionState("3.7")
    state.assign_from_user([TP0])
    assert state.paused_partitions() == []
    state.pause(TP0)
    assert state.paused_partitions() == [TP0]
    state.resume(TP0)
    assert state.paused_partitions() == []
    state.pause(TP0)
    state.assign_from_user([])  # unsubscribe()
    assert state.paused_partitions() == []


@pytest.mark.parametrize("call", ["pause", "resume", "seek"])
def test_unassigned_partition_raises_kafkas_illegal_state(call):
    """SubscriptionState.assignedState: "No current assignment for partition " + tp (TopicPartition.toString)."""
    state = SubscriptionState("3.7")
    state.assign_from_user([TP0])
    args = (TP3, 5) if call == "seek" else (TP3,)
    with pytest.raises(IllegalStateException, match=r"^No current assignment for partition orders-3$"):
        getattr(state, call)(*args)
    assert not state.is_paused(TP3)  # isPaused is simply false for a partition not assigned


@pytest.mark.parametrize("version", KAFKA_VERSIONS)
def test_assign_from_subscribed_keeps_state_only_from_2_4(version):
    """C.2: <= 2.3 partitionToStateMap builds fresh state (KAFKA-2350); 2.4+ reuses it (KAFKA-8179)."""
    state = SubscriptionState(version)
    state.assign_from_subscribed([TP0, TP1])
    state.seek(TP0, 42)
    state.pause(TP0)
    cleared = state.assign_from_subscribed([TP0])
    reused = at_least(version, "2.4")
    assert state.is_paused(TP0) is reused
    assert state.assignment[TP0].position == (42 if reused else None)
    assert cleared == ([] if reused else [TP0])


@pytest.mark.parametrize("version", ["0.9", "2.3", "3.7"])
def test_manual_assign_keeps_state_in_every_version(version):
    """C.2: assignFromUser reuses kept partitions' state since 0.9 (the class comment says otherwise)."""
    state = SubscriptionState(version)
    state.assign_from_user([TP0, TP1])
    state.pause(TP0)
    state.assign_from_user([TP0])
    assert state.is_paused(TP0)


# -- the fetch buffer ------------------------------------------------------------------------
@pytest.mark.parametrize("version", ["2.3", "3.7"])
def test_fetch_on_paused_partition(version):
    """FetcherTest.testFetchOnPausedPartition: no fetch is sent for a paused partition."""
    subs, fetcher = fetcher_for(version)
    subs.seek(TP0, 0)
    subs.pause(TP0)
    assert fetcher.send_fetches() == []


@pytest.mark.parametrize("version", ["2.3", "2.4", "3.7"])
def test_in_flight_fetch_on_paused_partition(version):
    """FetcherTest.testInFlightFetchOnPausedPartition: a response that lands after pause() returns nothing."""
    subs, fetcher = fetched_then_paused(version)
    returned, _ = fetcher.collect()
    assert TP0 not in counts(returned)


def test_completed_fetches_for_paused_and_resumed_partitions_2_4():
    """FetcherTest.testFetchOnCompletedFetchesForPausedAndResumedPartitions (2.4.0, KAFKA-7548)."""
    subs, fetcher = fetched_then_paused("2.4")
    returned, discarded = fetcher.collect()
    assert returned == [] and discarded == []          # "Should not return any records when partition is paused"
    assert fetcher.buffered() == {TP0: 3}              # "Should still contain completed fetches"
    assert fetcher.send_fetches() == []                # nothing fetched while data is buffered
    subs.resume(TP0)
    returned, _ = fetcher.collect()
    assert counts(returned) == {TP0: 3}                # "Should return records when partition is resumed"
    assert fetcher.collect() == ([], []) and fetcher.buffered() == {}


def test_completed_fetches_for_paused_partition_before_2_4_are_discarded_and_fetched_again():
    """The same steps on 2.3 (before KAFKA-7548): the paused data is drained, then fetched again."""
    subs, fetcher = fetched_then_paused("2.3")
    returned, discarded = fetcher.collect()
    assert returned == [] and [(d.tp, d.count, d.reason) for d in discarded] == [(TP0, 3, NOT_FETCHABLE)]
    assert fetcher.buffered() == {}
    subs.resume(TP0)
    assert fetcher.send_fetches() == [(TP0, 0)]        # the same offset, fetched a second time


def test_completed_fetches_for_some_paused_partitions():
    """FetcherTest.testFetchOnCompletedFetchesForSomePausedPartitions (2.4.0)."""
    subs, fetcher = fetcher_for("2.4", (TP0, TP1))
    subs.seek(TP0, 1)
    respond(fetcher, fetcher.send_fetches())
    subs.seek(TP1, 1)
    requests = fetcher.send_fetches()
    assert requests == [(TP1, 1)]                      # tp0 has buffered data, so it is not fetched
    respond(fetcher, requests)
    subs.pause(TP0)
    returned, _ = fetcher.collect()
    assert counts(returned) == {TP1: 3}                # "Should return completed fetch for unpaused partitions"
    assert fetcher.buffered() == {TP0: 3}
    assert fetcher.collect() == ([], [])               # "Should return no records for remaining paused partition"
    assert fetcher.buffered() == {TP0: 3}


def test_partial_fetch_with_paused_partitions():
    """FetcherTest.testPartialFetchWithPausedPartitions (2.4.0): max.poll.records = 2, 3 records."""
    subs, fetcher = fetcher_for("2.4", (TP0, TP1), max_poll_records=2)
    subs.seek(TP0, 1)
    respond(fetcher, fetcher.send_fetches())
    assert counts(fetcher.collect()[0]) == {TP0: 2}
    assert list(fetcher.completed) == []               # the rest is the next-in-line fetch, not queued
    subs.pause(TP0)
    assert fetcher.collect() == ([], [])
    assert fetcher.buffered() == {TP0: 1} and len(fetcher.completed) == 1  # back on the queue
    subs.resume(TP0)
    assert counts(fetcher.collect()[0]) == {TP0: 1}
    assert fetcher.buffered() == {}


def test_a_fetch_of_one_record_is_buffered_and_one_of_none_is_not():
    subs, fetcher = fetcher_for("3.7", (TP0, TP1))
    subs.seek(TP0, 0)
    subs.seek(TP1, 0)
    fetcher.add([CompletedFetch(TP0, 0, 1, subs.assignment_id), CompletedFetch(TP1, 0, 0, subs.assignment_id)])
    assert fetcher.buffered() == {TP0: 1} and len(fetcher.completed) == 1
    assert counts(fetcher.collect()[0]) == {TP0: 1}


def test_buffered_adds_up_a_partitions_next_in_line_and_queued_fetches():
    subs, fetcher = fetcher_for("3.7", max_poll_records=2)
    subs.seek(TP0, 0)
    fetcher.add([CompletedFetch(TP0, 0, 3, subs.assignment_id), CompletedFetch(TP0, 3, 5, subs.assignment_id)])
    assert fetcher.buffered() == {TP0: 5}
    assert counts(fetcher.collect()[0]) == {TP0: 2}
    assert fetcher.buffered() == {TP0: 3}


def test_max_poll_records_of_one_returns_one_record_a_poll():
    subs, fetcher = fetcher_for("3.7", max_poll_records=1)
    subs.seek(TP0, 0)
    respond(fetcher, fetcher.send_fetches())
    assert [counts(fetcher.collect()[0]) for _ in range(4)] == [{TP0: 1}, {TP0: 1}, {TP0: 1}, {}]


def test_fetch_discarded_after_paused_partition_resumed_and_seeked_to_new_offset():
    """FetcherTest.testFetchDiscardedAfterPausedPartitionResumedAndSeekedToNewOffset (2.4.0)."""
    subs, fetcher = fetched_then_paused("2.4")
    subs.seek(TP0, 3)
    subs.resume(TP0)
    returned, discarded = fetcher.collect()
    assert returned == [] and [d.reason for d in discarded] == [STALE]
    assert fetcher.buffered() == {}


def test_in_flight_fetch_on_pending_partitions():
    """FetcherTest.testInflightFetchOnPendingPartitions (3.3.0, KAFKA-14196)."""
    subs, fetcher = fetched_then_paused("3.3", lambda st: st.mark_pending_revocation([TP0]))
    returned, discarded = fetcher.collect()
    assert returned == [] and [d.reason for d in discarded] == [NOT_FETCHABLE]
    assert subs.position(TP0) == 0


def test_fetching_paused_partitions_yields_no_records():
    """FetchCollectorTest.testFetchingPausedPartitionsYieldsNoRecords (3.7.0): the next-in-line fetch of a
    paused partition moves back to the queue."""
    subs, fetcher = fetcher_for("3.7")
    subs.seek(TP0, 0)
    subs.pause(TP0)
    fetcher.next_in_line = CompletedFetch(TP0, 0, 3, subs.assignment_id)
    assert fetcher.collect() == ([], [])
    assert len(fetcher.completed) == 1 and fetcher.next_in_line is None


@pytest.mark.parametrize("version", ["2.3", "2.4", "3.7"])
def test_buffered_data_of_a_partition_no_longer_assigned_is_drained(version):
    """C.3: 'Not returning fetched records for partition ... since it is no longer assigned' (all versions),
    also for a partition that was paused: a rebalance does not clear the buffer, collecting does."""
    subs, fetcher = fetcher_for(version, (TP0, TP1))
    subs.seek(TP0, 0)
    subs.seek(TP1, 0)
    respond(fetcher, fetcher.send_fetches())
    subs.pause(TP0)
    subs.assign_from_subscribed([TP1])  # the rebalance: tp0 goes to another member
    if not subs.has_valid_position(TP1):  # <= 2.3 fresh state: updateFetchPositions (committed offset 0)
        subs.seek(TP1, 0)
    assert fetcher.buffered() == {TP0: 3, TP1: 3}
    returned, discarded = fetcher.collect()
    assert counts(returned) == {TP1: 3}
    assert [(d.tp, d.reason) for d in discarded] == [(TP0, NOT_ASSIGNED)]


def test_clear_buffered_data_for_unassigned_partitions():
    """KAFKA-7096 (2.1.0): the user's assign()/subscribe()/unsubscribe() drop other partitions' data."""
    subs, fetcher = fetcher_for("3.7", (TP0, TP1))
    subs.seek(TP0, 0)
    subs.seek(TP1, 0)
    respond(fetcher, fetcher.send_fetches())
    gone = fetcher.clear_buffered_data([TP1], "user_unassigned")
    assert [(d.tp, d.count) for d in gone] == [(TP0, 3)]
    assert fetcher.buffered() == {TP1: 3}


@pytest.mark.parametrize("keep, gone, left", [([TP1], [(TP0, 1)], {TP1: 3}), ([TP0], [(TP1, 3)], {TP0: 1})])
def test_retaining_partitions_drains_the_next_in_line_fetch_too_when_its_partition_is_not_kept(keep, gone, left):
    """FetchBuffer.retainAll (3.7+; AbstractFetch/Fetcher.clearBufferedDataForUnassignedPartitions before):
    `maybeDrain` applies to the queue and to nextInLineFetch alike, so the partly returned fetch of a
    partition not kept is drained (its unreturned records reported with the caller's reason) and the one
    of a kept partition stays next in line. max.poll.records 2 of 3 leaves tp0's fetch next in line with
    1 record, tp1's 3 queued."""
    subs, fetcher = fetcher_for("3.7", (TP0, TP1), max_poll_records=2)
    subs.seek(TP0, 0)
    subs.seek(TP1, 0)
    respond(fetcher, fetcher.send_fetches())
    assert counts(fetcher.collect()[0]) == {TP0: 2}
    dropped = fetcher.clear_buffered_data(keep, "user_unassigned")
    assert [(d.tp, d.count, d.reason) for d in dropped] == [(tp, n, "user_unassigned") for tp, n in gone]
    assert fetcher.buffered() == left
    assert (fetcher.next_in_line is not None) == (TP0 in keep)
