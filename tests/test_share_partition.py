"""The share partition (KIP-932) replays Kafka's `SharePartitionTest` scenario by scenario.

Each replay names its Kafka test method and tag; offsets, states, counts, errors and times are
the ones Kafka's test asserts (`core/src/test/java/kafka/server/share/SharePartitionTest.java`).
Kafka's `memoryRecords(start, n)` (4.2 argument order) is one log batch `(start, start + n - 1)`;
`mockTimer.advanceClock(ms)` is `sim.advance(ms)`; `sharePartition.timer().size()` is
`len(sp.lock_timers())`; a mocked `writeShareGroupState` call count is
`sp.stats["write_share_group_state"]`. A property test then checks the invariants over random
acquire/acknowledge/expire/release sequences.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkasim import Errors, Simulation
from kafkasim.core.errors import ConfigError
from kafkasim.coordinator.modern.share import AcquiredRecords as AR
from kafkasim.coordinator.modern.share import SharePartition

MEMBER_ID = "member-1"
LOCK_MS = 100            # ACQUISITION_LOCK_TIMEOUT_MS
WAIT_MS = 120            # DEFAULT_MAX_WAIT_ACQUISITION_LOCK_TIMEOUT_MS


def build(version: str = "4.2", **kw) -> SharePartition:
    """`SharePartitionBuilder.builder().withState(ACTIVE).build()`: 200 in flight, limit 5."""
    kw.setdefault("max_in_flight_records", 200)
    kw.setdefault("max_delivery_count", 5)
    kw.setdefault("default_record_lock_duration_ms", 30000)
    return SharePartition(Simulation(seed=0), "test-group", "test-topic", 0, kafka_version=version, **kw)


def fetch(sp: SharePartition, start: int, n: int, member: str = MEMBER_ID, **kw) -> list[AR]:
    """`fetchAcquiredRecords(sharePartition, memoryRecords(start, n), ...)`: fetch offset = start."""
    kw.setdefault("fetch_offset", start)
    return sp.acquire(member, kw.pop("max_records", None), log_batches=[(start, start + n - 1)], **kw)


def offsets(sp: SharePartition, low: int, high: int) -> dict[int, tuple]:
    """`cachedState().get(k).offsetState()` as {offset: (state, delivery count, member)}."""
    return {o: (sp.state(o), sp.delivery_count(o), sp.owner(o)) for o in range(low, high + 1)}


# -- acquisition ------------------------------------------------------------------------------------
def test_acquire_with_max_fetch_records():
    """testAcquireWithMaxFetchRecords (4.2.0; same at 4.0.0): MaxRecords is a soft limit, a whole
    log batch is taken: 10 asked, 0-24 fetched, 5-24 acquired."""
    sp = build()
    assert fetch(sp, 0, 5, max_records=10, fetch_offset=0) == [AR(0, 4, 1)]
    assert sp.next_fetch_offset == 5
    assert sp.cached_batches() == [(0, 4)]
    assert offsets(sp, 0, 0) == {0: ("ACQUIRED", 1, MEMBER_ID)}
    assert fetch(sp, 0, 25, max_records=10, fetch_offset=0) == [AR(5, 24, 1)]
    assert sp.next_fetch_offset == 25
    assert sp.cached_batches() == [(0, 4), (5, 24)]
    assert sp.split_batches() == []


def test_acquire_with_batch_size_and_multiple_batches():
    """testAcquireWithBatchSizeAndMultipleBatches (4.2.0): BatchSize 5 cuts at log batches; the gap
    7-9 joins the first chunk."""
    sp = build()
    got = sp.acquire(MEMBER_ID, 100, fetch_offset=0, batch_size=5,
                     log_batches=[(2, 6), (10, 14), (15, 21), (22, 27)])
    assert got == [AR(2, 9, 1), AR(10, 14, 1), AR(15, 21, 1), AR(22, 27, 1)]
    assert sp.next_fetch_offset == 28
    assert sp.cached_batches() == [(2, 9), (10, 14), (15, 21), (22, 27)]
    assert all(sp.state(o) == "ACQUIRED" and sp.owner(o) == MEMBER_ID for o in (2, 10, 15, 22))


def test_batch_size_does_not_cut_in_4_0():
    """4.0.0's `acquireNewBatchRecords` has no BatchSize: one AcquiredRecords for the whole read."""
    sp = build("4.0")
    got = sp.acquire(MEMBER_ID, 100, fetch_offset=0, batch_size=5,
                     log_batches=[(2, 6), (10, 14), (15, 21), (22, 27)])
    assert got == [AR(2, 27, 1)]
    assert sp.cached_batches() == [(2, 27)]


def test_acquire_with_max_in_flight_records_and_try_acquire_new_batch():
    """testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch (4.2.0): limit 20 with 10 in flight
    takes 10-24 (rounded up to the batch end); at the limit nothing more."""
    sp = build(max_in_flight_records=20)
    assert fetch(sp, 0, 10, max_records=500, fetch_offset=0) == [AR(0, 9, 1)]
    assert sp.next_fetch_offset == 10
    got = sp.acquire(MEMBER_ID, 500, fetch_offset=0, log_batches=[(10, 14), (15, 24), (25, 29), (30, 31)])
    assert got == [AR(10, 24, 1)]
    assert sp.next_fetch_offset == 25
    assert fetch(sp, 25, 10, max_records=500, fetch_offset=25) == []
    assert sp.next_fetch_offset == 25
    assert not sp.can_acquire_records()


def test_in_flight_cap_is_not_applied_inside_one_acquisition_before_4_2():
    """4.1.1's `acquire` has no `lastOffsetAndMaxRecordsToAcquire`: the same read takes 10-31."""
    sp = build("4.1", max_in_flight_records=20)
    fetch(sp, 0, 10, max_records=500, fetch_offset=0)
    got = sp.acquire(MEMBER_ID, 500, fetch_offset=0, log_batches=[(10, 14), (15, 24), (25, 29), (30, 31)])
    assert got == [AR(10, 31, 1)]
    assert sp.end_offset == 31


def test_acquire_with_empty_fetch_records():
    """testAcquireWithEmptyFetchRecords (4.2.0): nothing fetched, nothing acquired."""
    sp = build()
    assert sp.acquire(MEMBER_ID, None, log_batches=[]) == []
    assert sp.next_fetch_offset == 0
    assert sp.cached_batches() == []


def test_next_fetch_offset_with_multiple_consumers():
    """testNextFetchOffsetWithMultipleConsumers (4.2.0): released records go out again first."""
    sp = build(max_in_flight_records=100)
    fetch(sp, 0, 3, fetch_offset=0)
    assert sp.next_fetch_offset == 3
    assert sp.acknowledge(MEMBER_ID, [(0, 2, "RELEASE")]) is Errors.NONE
    assert sp.next_fetch_offset == 0
    assert sp.delivery_complete_count == 0
    fetch(sp, 3, 2, member="member-2", fetch_offset=3)
    assert sp.next_fetch_offset == 0
    fetch(sp, 0, 3, fetch_offset=0)
    assert sp.next_fetch_offset == 5
    assert sp.acknowledge("member-2", [(3, 4, "RELEASE")]) is Errors.NONE
    assert sp.next_fetch_offset == 3
    assert sp.delivery_complete_count == 0


def test_acquire_released_record():
    """testAcquireReleasedRecord (4.2.0): releasing 12-13 splits 10-14; a refetch gets 12-13, count 2."""
    sp = build()
    assert fetch(sp, 10, 5) == [AR(10, 14, 1)]
    assert sp.acknowledge(MEMBER_ID, [(12, 13, "RELEASE")]) is Errors.NONE
    assert sp.next_fetch_offset == 12
    assert sp.cached_batches() == [(10, 14)] and sp.split_batches() == [(10, 14)]
    assert offsets(sp, 10, 14) == {10: ("ACQUIRED", 1, MEMBER_ID), 11: ("ACQUIRED", 1, MEMBER_ID),
                                   12: ("AVAILABLE", 1, ""), 13: ("AVAILABLE", 1, ""),
                                   14: ("ACQUIRED", 1, MEMBER_ID)}
    assert fetch(sp, 10, 5) == [AR(12, 13, 2)]
    assert sp.next_fetch_offset == 15
    assert sp.delivery_complete_count == 0


def test_acquire_single_batch_in_record_limit_mode():
    """testAcquireSingleBatchInRecordLimitMode (4.2.0): record_limit takes exactly MaxRecords; the
    rest of the batch stays AVAILABLE for member-2."""
    sp = build(default_record_lock_duration_ms=LOCK_MS)
    got = sp.acquire(MEMBER_ID, 5, fetch_offset=0, batch_size=2, log_batches=[(0, 9)], acquire_mode="record_limit")
    assert got == [AR(0, 4, 1)]
    assert sp.next_fetch_offset == 5
    assert sp.cached_batches() == [(0, 9)] and sp.split_batches() == [(0, 9)]
    assert [sp.state(o) for o in (0, 4, 5, 9)] == ["ACQUIRED", "ACQUIRED", "AVAILABLE", "AVAILABLE"]
    assert sp.owner(0) == MEMBER_ID
    got = sp.acquire("member-2", 5, fetch_offset=0, batch_size=2, log_batches=[(0, 9)], acquire_mode="record_limit")
    assert got == [AR(5, 9, 1)]
    assert sp.next_fetch_offset == 10
    assert (sp.state(5), sp.owner(5), sp.state(9), sp.owner(9)) == ("ACQUIRED", "member-2", "ACQUIRED", "member-2")


def test_records_acquired_in_record_limit_mode_each_hold_their_own_lock_and_come_back_when_it_expires():
    """record_limit splits the new batch at once: each acquired offset is locked on its own (an offset-level
    state with its timer); at the lock's end they become AVAILABLE again, the rest never locked."""
    sp = build(default_record_lock_duration_ms=LOCK_MS)
    assert sp.acquire(MEMBER_ID, 5, fetch_offset=10, log_batches=[(10, 19)], acquire_mode="record_limit") == [
        AR(10, 14, 1)]
    assert [t.time for t in sp.lock_timers()] == [LOCK_MS] * 5
    sp.sim.advance(LOCK_MS)
    assert sp.lock_timers() == []
    assert [(sp.state(o), sp.delivery_count(o), sp.owner(o)) for o in (10, 14, 15)] == [
        ("AVAILABLE", 1, ""), ("AVAILABLE", 1, ""), ("AVAILABLE", 0, "")]


def test_record_limit_mode_is_4_2():
    """`share.acquire.mode` (KIP-1206) arrived in 4.2: record_limit earlier is a config error."""
    with pytest.raises(ConfigError, match="share.acquire.mode.*batch_optimized"):
        build("4.1").acquire(MEMBER_ID, 5, log_batches=[(0, 9)], acquire_mode="record_limit")


# -- acknowledgement --------------------------------------------------------------------------------
def test_acknowledge_multiple_record_batch_with_gap_offsets():
    """testAcknowledgeMultipleRecordBatchWithGapOffsets (4.2.0): per-offset types, GAP archives."""
    sp = build()
    assert fetch(sp, 5, 2) == [AR(5, 6, 1)]
    assert sp.next_fetch_offset == 7
    assert sp.acquire(MEMBER_ID, None, fetch_offset=10, log_batches=[(10, 18)]) == [AR(10, 18, 1)]
    assert sp.next_fetch_offset == 19
    kinds = ["RELEASE"] * 5 + ["GAP"] * 3 + ["ACCEPT"]
    assert sp.acknowledge(MEMBER_ID, [(5, 6, "RELEASE"), (10, 18, kinds)]) is Errors.NONE
    assert sp.next_fetch_offset == 5
    assert sp.cached_batches() == [(5, 6), (10, 18)] and sp.split_batches() == [(10, 18)]
    assert sp.state(5) == "AVAILABLE"
    assert offsets(sp, 10, 18) == {**{o: ("AVAILABLE", 1, "") for o in range(10, 15)},
                                   **{o: ("ARCHIVED", 1, "") for o in range(15, 18)}, 18: ("ACKNOWLEDGED", 1, "")}
    assert sp.delivery_complete_count == 4


def test_acknowledge_out_of_range_cached_data():
    """testAcknowledgeOutOfRangeCachedData (4.2.0): empty cache -> INVALID_RECORD_STATE; past the
    cached offsets -> INVALID_REQUEST."""
    sp = build()
    assert sp.acknowledge(MEMBER_ID, [(0, 15, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert len(fetch(sp, 5, 5)) == 1
    assert sp.cached_batches() == [(5, 9)]
    assert sp.acknowledge(MEMBER_ID, [(20, 25, "REJECT")]) is Errors.INVALID_REQUEST
    assert sp.delivery_complete_count == 0
    assert Errors.INVALID_RECORD_STATE.code == 121


def test_acknowledge_with_another_member():
    """testAcknowledgeWithAnotherMember (4.2.0): only the owner may acknowledge."""
    sp = build()
    fetch(sp, 5, 5)
    assert sp.acknowledge("member-2", [(5, 9, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert offsets(sp, 5, 5) == {5: ("ACQUIRED", 1, MEMBER_ID)}


def test_acknowledge_when_offset_not_acquired():
    """testAcknowledgeWhenOffsetNotAcquired (4.2.0): a released batch, then a subset acknowledged twice."""
    sp = build()
    fetch(sp, 5, 5)
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "RELEASE")]) is Errors.NONE
    assert sp.delivery_complete_count == 0
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "ACCEPT")]) is Errors.INVALID_RECORD_STATE
    assert len(fetch(sp, 5, 5)) == 1
    assert sp.acknowledge(MEMBER_ID, [(6, 8, "REJECT")]) is Errors.NONE
    assert sp.delivery_complete_count == 3
    assert sp.acknowledge(MEMBER_ID, [(6, 8, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert sp.delivery_complete_count == 3


def test_acknowledge_rollback_with_full_batch_error():
    """testAcknowledgeRollbackWithFullBatchError (4.2.0): the fourth batch fails, the first three roll back."""
    sp = build()
    for start in (5, 10, 15):
        assert len(fetch(sp, start, 5)) == 1
    writes = sp.stats["write_share_group_state"]
    got = sp.acknowledge(MEMBER_ID, [(5, 9, "RELEASE"), (10, 14, "ACCEPT"), (15, 19, "ACCEPT"), (15, 19, "ACCEPT")])
    assert got is Errors.INVALID_RECORD_STATE
    assert sp.cached_batches() == [(5, 9), (10, 14), (15, 19)]
    assert [sp.state(o) for o in (5, 10, 15)] == ["ACQUIRED"] * 3
    assert sp.delivery_complete_count == 0
    assert sp.stats["write_share_group_state"] == writes
    assert len(sp.lock_timers()) == 3  # the locks still run


def test_invalid_acknowledge_type_in_batch_acknowledgement():
    """testInvalidAcknowledgeTypeInBatchAcknowledgement (4.2.0): type 5 -> INVALID_REQUEST; RENEW
    (type 4) does not exist before 4.2 either."""
    sp = build()
    fetch(sp, 1, 10)
    assert sp.acknowledge(MEMBER_ID, [(1, 10, "BOGUS")]) is Errors.INVALID_REQUEST
    old = build("4.1")
    fetch(old, 1, 10)
    assert old.acknowledge(MEMBER_ID, [(1, 10, "RENEW")]) is Errors.INVALID_REQUEST


def test_number_of_write_calls_on_updates():
    """testNumberOfWriteCallsOnUpdates (4.2.0): one write for the ACCEPT, none for a release of nothing."""
    sp = build()
    fetch(sp, 2, 5)
    sp.acknowledge(MEMBER_ID, [(2, 6, "ACCEPT")])
    assert sp.stats["write_share_group_state"] == 1
    assert sp.release_all(MEMBER_ID) is Errors.NONE
    assert sp.stats["write_share_group_state"] == 1


# -- SPSO and the in-flight limit -----------------------------------------------------------------
@pytest.mark.parametrize("kind, start", [("ACCEPT", 90), ("REJECT", 90), ("RELEASE", 0)])
def test_can_acquire_records_after_acknowledgement(kind, start):
    """testCanAcquireRecordsAfter{Accept,Archive,Release}Acknowledgement (4.2.0): 250 in flight of
    200; ACCEPT or REJECT of 0-89 moves SPSO to 90, RELEASE does not move it."""
    sp = build()
    fetch(sp, 0, 150)
    assert sp.can_acquire_records() and (sp.start_offset, sp.end_offset) == (0, 149)
    fetch(sp, 150, 100)
    assert not sp.can_acquire_records() and (sp.start_offset, sp.end_offset) == (0, 249)
    sp.acknowledge(MEMBER_ID, [(0, 89, kind)])
    assert (sp.start_offset, sp.end_offset) == (start, 249)
    assert sp.can_acquire_records()


def test_maybe_update_cached_state_when_acknowledgements_in_between():
    """testMaybeUpdateCachedStateWhenAcknowledgementsInBetween (4.2.0): REJECT 10-14 while 0-9 are
    held leaves SPSO at 0; the in-flight range still fills the limit."""
    sp = build(max_in_flight_records=20)
    fetch(sp, 0, 15)
    assert sp.can_acquire_records()
    fetch(sp, 15, 15)
    assert not sp.can_acquire_records()
    sp.acknowledge(MEMBER_ID, [(10, 14, "REJECT")])
    assert (sp.state(9), sp.state(10)) == ("ACQUIRED", "ARCHIVED")
    assert offsets(sp, 15, 15) == {15: ("ACQUIRED", 1, MEMBER_ID)} and (15, 29) not in sp.split_batches()
    assert not sp.can_acquire_records()
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (0, 29, 30)
    assert sp.delivery_complete_count == 5


def test_max_delivery_count_limit_exceeded_for_record_batch():
    """testMaxDeliveryCountLimitExceededForRecordBatch (4.2.0): limit 2, the second RELEASE archives
    the batch and the cache empties: SPSO = SPEO = 15."""
    sp = build(max_delivery_count=2)
    fetch(sp, 5, 10)
    sp.acknowledge(MEMBER_ID, [(5, 14, "RELEASE")])
    fetch(sp, 5, 10)
    sp.acknowledge(MEMBER_ID, [(5, 14, "RELEASE")])
    assert (sp.next_fetch_offset, sp.start_offset, sp.end_offset) == (15, 15, 15)
    assert sp.cached_batches() == []


# -- acquisition locks ------------------------------------------------------------------------------
def test_acquisition_lock_timeout_cause_max_delivery_count_exceed():
    """testAcquisitionLockTimeoutCauseMaxDeliveryCountExceed (4.2.0): lock 100 ms, limit 2; the
    second expiry archives 10-19."""
    sp = build(default_record_lock_duration_ms=LOCK_MS, max_delivery_count=2)
    fetch(sp, 0, 10)
    fetch(sp, 10, 10)
    assert [t.time for t in sp.lock_timers()] == [100, 100]
    sp.sim.advance(WAIT_MS)
    assert sp.lock_timers() == [] and sp.next_fetch_offset == 0
    assert offsets(sp, 10, 10) == {10: ("AVAILABLE", 1, "")}
    assert sp.delivery_complete_count == 0
    fetch(sp, 10, 10)
    assert offsets(sp, 10, 10) == {10: ("ACQUIRED", 2, MEMBER_ID)}
    assert [t.time for t in sp.lock_timers()] == [WAIT_MS + LOCK_MS]
    sp.sim.advance(WAIT_MS)
    assert sp.lock_timers() == [] and sp.next_fetch_offset == 0
    assert offsets(sp, 10, 10) == {10: ("ARCHIVED", 2, "")}
    assert sp.delivery_complete_count == 10
    assert sp.stats == {"write_share_group_state": 3, "timer_events": 3}


def test_acquisition_lock_timeout_cause_spso_move_forward():
    """testAcquisitionLockTimeoutCauseSPSOMoveForward (4.2.0): 0-4 re-acquired (split, one lock per
    offset) expire at the limit: archived, SPSO 5, the batch stays."""
    sp = build(default_record_lock_duration_ms=LOCK_MS, max_delivery_count=2)
    fetch(sp, 0, 10)
    assert len(sp.lock_timers()) == 1
    sp.sim.advance(WAIT_MS)
    assert sp.lock_timers() == [] and sp.next_fetch_offset == 0
    assert offsets(sp, 0, 0) == {0: ("AVAILABLE", 1, "")}
    fetch(sp, 0, 5)
    assert sp.split_batches() == [(0, 9)]
    assert [t.time for t in sp.lock_timers()] == [WAIT_MS + LOCK_MS] * 5
    sp.sim.advance(WAIT_MS)
    assert sp.lock_timers() == [] and sp.next_fetch_offset == 5
    assert offsets(sp, 0, 9) == {**{o: ("ARCHIVED", 2, "") for o in range(5)},
                                 **{o: ("AVAILABLE", 1, "") for o in range(5, 10)}}
    assert sp.start_offset == 5 and sp.cached_batches() == [(0, 9)]
    assert sp.delivery_complete_count == 0


def test_acknowledge_after_acquisition_lock_timeout():
    """testAcknowledgeAfterAcquisitionLockTimeout (4.2.0): after expiry ACCEPT and REJECT fail
    with INVALID_RECORD_STATE."""
    sp = build(default_record_lock_duration_ms=LOCK_MS)
    fetch(sp, 5, 5)
    assert len(sp.lock_timers()) == 1
    sp.sim.advance(WAIT_MS)
    assert sp.lock_timers() == [] and sp.next_fetch_offset == 5 and sp.state(5) == "AVAILABLE"
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "ACCEPT")]) is Errors.INVALID_RECORD_STATE
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert sp.lock_timers() == [] and sp.delivery_complete_count == 0


def test_lock_expires_at_its_exact_deadline():
    """`AcquisitionLockTimerTask` fires at acquisition + lock duration: held at 99 ms, free at 100 ms."""
    sp = build(default_record_lock_duration_ms=LOCK_MS)
    fetch(sp, 0, 5)
    sp.sim.advance(LOCK_MS - 1)
    assert sp.state(0) == "ACQUIRED"
    sp.sim.advance(1)
    assert sp.state(0) == "AVAILABLE" and sp.sim.now == LOCK_MS


def test_renew_acknowledge_with_complete_batch_ack():
    """testRenewAcknowledgeWithCompleteBatchAck (4.2.0, KIP-1222): RENEW replaces the lock, writes
    nothing; the fresh lock expires and that is one write."""
    sp = build(default_record_lock_duration_ms=LOCK_MS, max_delivery_count=2)
    assert fetch(sp, 0, 1) == [AR(0, 0, 1)]
    original = sp.lock_timers()[0]
    sp.sim.advance(40)
    assert sp.acknowledge(MEMBER_ID, [(0, 0, "RENEW")]) is Errors.NONE
    assert original.cancelled
    assert [t.time for t in sp.lock_timers()] == [40 + LOCK_MS]
    assert sp.state(0) == "ACQUIRED" and sp.stats["write_share_group_state"] == 0
    sp.sim.advance(LOCK_MS + 1)
    assert sp.state(0) == "AVAILABLE" and sp.lock_timers() == []
    assert sp.stats["write_share_group_state"] == 1


def test_renew_acknowledge_on_expired_batch():
    """testRenewAcknowledgeOnExpiredBatch (4.2.0): RENEW after expiry -> INVALID_RECORD_STATE."""
    sp = build(default_record_lock_duration_ms=LOCK_MS, max_delivery_count=2)
    fetch(sp, 0, 1)
    sp.sim.advance(LOCK_MS + 1)
    assert sp.acknowledge(MEMBER_ID, [(0, 0, "RENEW")]) is Errors.INVALID_RECORD_STATE
    assert sp.lock_timers() == [] and sp.state(0) == "AVAILABLE"
    assert sp.stats["write_share_group_state"] == 1


def test_renew_can_be_switched_off_per_group_in_4_3():
    """4.3's `share.renew.acknowledge.enable=false` (KIP-1240): "Renewing acquisition locks is not
    enabled for the group." (INVALID_RECORD_STATE)."""
    sp = SharePartition(Simulation(seed=0), "g", "t", 0, kafka_version="4.3",
                        group_config=lambda: {"share.renew.acknowledge.enable": False})
    fetch(sp, 0, 1)
    assert sp.acknowledge(MEMBER_ID, [(0, 0, "RENEW")]) is Errors.INVALID_RECORD_STATE


def test_group_lock_duration_is_read_when_a_lock_is_armed():
    """`recordLockDurationMsOrDefault`: the group's `share.record.lock.duration.ms` at arming time."""
    config = {"share.record.lock.duration.ms": 15000}
    sp = SharePartition(Simulation(seed=0), "g", "t", 0, group_config=lambda: config)
    fetch(sp, 0, 1)
    config["share.record.lock.duration.ms"] = 60000
    fetch(sp, 1, 1)
    assert [t.time for t in sp.lock_timers()] == [15000, 60000]


def test_lock_timers_come_in_deadline_order_not_offset_order():
    """`lock_timers` lists the armed locks by deadline: offset 0 locked at 0 ms for 60 s, then
    offset 1 at 1 s for 15 s (the group's lock duration lowered in between): 16 s first."""
    config = {"share.record.lock.duration.ms": 60000}
    sim = Simulation(seed=0)
    sp = SharePartition(sim, "g", "t", 0, group_config=lambda: config)
    fetch(sp, 0, 1)
    config["share.record.lock.duration.ms"] = 15000
    sim.advance(1000)
    fetch(sp, 1, 1)
    assert [t.time for t in sp.lock_timers()] == [16000, 60000]


def test_group_delivery_limit_and_record_locks_from_4_3():
    """4.3's `maxDeliveryCount()` / `maxInFlightRecords()` read the group's
    `share.delivery.count.limit` and `share.partition.max.record.locks` (KIP-1240); 4.2 ignores them."""
    config = {"share.delivery.count.limit": 2, "share.partition.max.record.locks": 10}
    for version, state, can in (("4.3", "ARCHIVED", False), ("4.2", "AVAILABLE", True)):
        sp = SharePartition(Simulation(seed=0), "g", "t", 0, kafka_version=version, group_config=lambda: config)
        fetch(sp, 0, 5)
        sp.acknowledge(MEMBER_ID, [(0, 4, "RELEASE")])
        fetch(sp, 0, 5)
        sp.acknowledge(MEMBER_ID, [(0, 1, "RELEASE")])
        assert sp.state(0) == state, version
        fetch(sp, 5, 10)
        assert sp.can_acquire_records() is can, version


def test_jump_gives_the_same_outcome_as_advance():
    """`sim.jump(ms)` (Kafka's MockTimer) and `sim.advance(ms)` expire the same locks the same way."""
    outcomes = []
    for move in ("advance", "jump"):
        sp = build(default_record_lock_duration_ms=LOCK_MS, max_delivery_count=2)
        fetch(sp, 0, 10)
        getattr(sp.sim, move)(WAIT_MS)
        fetch(sp, 0, 5)
        getattr(sp.sim, move)(WAIT_MS)
        outcomes.append((offsets(sp, 0, 9), sp.start_offset, sp.next_fetch_offset, dict(sp.stats)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1:] == (5, 5, {"write_share_group_state": 6, "timer_events": 6})


# -- release ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("version, count", [("4.0", 1), ("4.1", 0), ("4.2", 1)])
def test_release_single_record_batch(version, count):
    """testReleaseSingleRecordBatch (4.0.0, 4.1.1, 4.2.0): a session release keeps the count in 4.0
    and 4.2 and decrements it in 4.1 (KAFKA-17541 part 1, reverted by KAFKA-19972)."""
    sp = build(version)
    fetch(sp, 0, 1)
    assert sp.release_all(MEMBER_ID) is Errors.NONE
    assert sp.next_fetch_offset == 0
    assert sp.cached_batches() == [(0, 0)]
    assert offsets(sp, 0, 0) == {0: ("AVAILABLE", count, "")}
    assert sp.delivery_complete_count == 0
    assert sp.lock_timers() == [] and sp.stats["write_share_group_state"] == 1


def test_release_acquired_records_with_another_member():
    """testReleaseAcquiredRecordsWithAnotherMember (4.2.0): each member releases only its own records."""
    sp = build()
    sp.acquire("member-2", None, fetch_offset=5, log_batches=[(5, 5)])
    sp.acquire(MEMBER_ID, None, fetch_offset=10, log_batches=[(10, 20)])
    kinds = ["ACCEPT", "ACCEPT", "GAP", "GAP", "ACCEPT", "GAP", "ACCEPT", "GAP", "ACCEPT"]
    assert sp.acknowledge(MEMBER_ID, [(10, 18, kinds)]) is Errors.NONE
    assert sp.delivery_complete_count == 9
    assert sp.release_all(MEMBER_ID) is Errors.NONE
    assert sp.next_fetch_offset == 19
    assert sp.state(5) == "ACQUIRED"
    terminal = {o: ("ACKNOWLEDGED" if k == "ACCEPT" else "ARCHIVED", 1, "") for o, k in zip(range(10, 19), kinds)}
    assert offsets(sp, 10, 20) == {**terminal, 19: ("AVAILABLE", 1, ""), 20: ("AVAILABLE", 1, "")}
    assert sp.release_all("member-2") is Errors.NONE
    assert sp.next_fetch_offset == 5
    assert offsets(sp, 5, 5) == {5: ("AVAILABLE", 1, "")}
    assert offsets(sp, 10, 20) == {**terminal, 19: ("AVAILABLE", 1, ""), 20: ("AVAILABLE", 1, "")}
    assert sp.delivery_complete_count == 9


@pytest.mark.parametrize("version, state", [("4.0", "ARCHIVED"), ("4.1", "AVAILABLE"), ("4.2", "ARCHIVED")])
def test_max_delivery_count_limit_after_release_acquired_records(version, state):
    """testMaxDeliveryCountLimitExceededForRecordsSubsetAfterReleaseAcquiredRecords (4.0.0; 4.2.0
    as ...NotExceeded... with the same outcome) and testMaxDeliveryCountLimitNotExceededForRecords
    SubsetAfterReleaseAcquiredRecords (4.1.1): limit 2, 10-14 on their second delivery, the session
    closes: archived in 4.0 and 4.2, AVAILABLE in 4.1 (DECREASE skips the limit check)."""
    sp = build(version, max_delivery_count=2)
    fetch(sp, 0, 10)
    fetch(sp, 10, 5)
    sp.acknowledge(MEMBER_ID, [(10, 14, "RELEASE")])
    fetch(sp, 10, 5)
    assert sp.release_all(MEMBER_ID) is Errors.NONE
    assert sp.next_fetch_offset == 0
    assert sp.cached_batches() == [(0, 9), (10, 14)] and sp.split_batches() == []
    assert sp.state(10) == state and sp.delivery_count(10) == (1 if version == "4.1" else 2)
    assert sp.delivery_complete_count == (0 if version == "4.1" else 5)


def test_release_acquired_records_after_different_acknowledges_4_1():
    """testReleaseAcquiredRecordsAfterDifferentAcknowledges (4.1.1): only the record still held
    (7) comes back decremented, to 0; 5-6 were released by RELEASE and keep 1."""
    sp = build("4.1")
    fetch(sp, 5, 5)
    sp.acknowledge(MEMBER_ID, [(5, 6, "RELEASE")])
    sp.acknowledge(MEMBER_ID, [(8, 9, "ACCEPT")])
    assert sp.release_all(MEMBER_ID) is Errors.NONE
    assert sp.next_fetch_offset == 5
    assert offsets(sp, 5, 9) == {5: ("AVAILABLE", 1, ""), 6: ("AVAILABLE", 1, ""), 7: ("AVAILABLE", 0, ""),
                                 8: ("ACKNOWLEDGED", 1, ""), 9: ("ACKNOWLEDGED", 1, "")}


def test_acquire_with_max_in_flight_records_and_release_last_offset():
    """testAcquireWithMaxInFlightRecordsAndReleaseLastOffset (4.2.0): at the limit, a released
    offset inside the range is still served (`lastOffsetAndMaxRecordsToAcquire` trims to SPEO)."""
    sp = build(max_in_flight_records=20)
    log = [(10, 14), (15, 24), (25, 29), (30, 32)]
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=0, log_batches=log) == [AR(10, 29, 1)]
    assert sp.next_fetch_offset == 30
    assert sp.acknowledge(MEMBER_ID, [(15, 19, "RELEASE")]) is Errors.NONE
    assert sp.next_fetch_offset == 15
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=15, log_batches=log) == [AR(15, 19, 2)]
    assert sp.next_fetch_offset == 30
    assert sp.acknowledge(MEMBER_ID, [(29, 29, "RELEASE")]) is Errors.NONE
    assert sp.next_fetch_offset == 29
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=29, log_batches=log) == [AR(29, 29, 2)]
    assert sp.next_fetch_offset == 30


def test_multiple_member_acquire_in_different_acquire_modes():
    """testMultipleMemberAcquireInDifferentAcquireModes (4.2.0): member-2 takes 2 records in
    record_limit mode, member-3 the other released ones and a new batch."""
    sp = build()
    log = [(10, 14), (15, 29), (30, 44)]
    assert sp.acquire(MEMBER_ID, 10, fetch_offset=5, log_batches=log) == [AR(10, 29, 1)]
    sp.acknowledge(MEMBER_ID, [(10, 14, "RELEASE"), (15, 20, "ACCEPT"), (21, 22, "RELEASE"), (23, 28, "ACCEPT")])
    got = sp.acquire("member-2", 2, fetch_offset=5, log_batches=log, acquire_mode="record_limit")
    assert got == [AR(10, 11, 2)]
    assert sp.next_fetch_offset == 12
    got = sp.acquire("member-3", 10, fetch_offset=5, log_batches=log)
    assert got == [AR(12, 14, 2), AR(21, 22, 2), AR(30, 44, 1)]
    assert sp.next_fetch_offset == 45


# -- initialization from the persisted state and throttled redelivery --------------------------------
def test_maybe_initialize_state_batches_with_gap_at_beginning():
    """testMaybeInitializeStateBatchesWithGapAtBeginning (4.2.0): SPSO 10, first batch 15: the gap
    10-14 is fetched first."""
    sp = build()
    sp.load_state(10, [(15, 20, "ACKNOWLEDGED", 2), (21, 30, "ARCHIVED", 3)])
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (10, 30, 10)
    assert sp.cached_batches() == [(15, 20), (21, 30)]
    assert offsets(sp, 15, 15) == {15: ("ACKNOWLEDGED", 2, "")} and offsets(sp, 21, 21) == {21: ("ARCHIVED", 3, "")}
    assert sp.delivery_complete_count == 16


@pytest.mark.parametrize("version, next_fetch", [("4.0", 31), ("4.1", 10), ("4.2", 10)])
def test_gap_at_beginning_per_version(version, next_fetch):
    """Read from `nextFetchOffset()` at each tag (no Kafka test asserts the 4.0 case): 4.0.0 has
    no gap window, so with 15-30 terminal the next fetch starts after them and 10-14 are never
    delivered; 4.1.1 (`InitialReadGapOffset`) and 4.2.0 (`GapWindow`) fetch the gap first."""
    sp = build(version)
    sp.load_state(10, [(15, 20, "ACKNOWLEDGED", 2), (21, 30, "ARCHIVED", 3)])
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (10, 30, next_fetch)


def test_acquire_gap_at_beginning_and_records_fetched_from_gap():
    """testAcquireGapAtBeginningAndRecordsFetchedFromGap (4.2.0): 11-15 from the gap 11-20."""
    sp = build()
    sp.load_state(11, [(21, 30, "ACKNOWLEDGED", 2), (31, 40, "ARCHIVED", 1)])
    assert sp.delivery_complete_count == 20
    assert fetch(sp, 11, 5) == [AR(11, 15, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (11, 40, 16)
    assert sp.delivery_complete_count == 20


def test_acquire_records_halves_batch_size_on_each_failure_until_single_record_on_last_attempt():
    """testAcquireRecordsHalvesBatchSizeOnEachFailureUntilSingleRecordOnLastAttempt (4.2.0,
    KAFKA-17541): limit 7, threshold 4; a 20-record batch at count 4 goes out 10, 5, then one by one."""
    sp = build(max_delivery_count=7, default_record_lock_duration_ms=WAIT_MS)
    sp.load_state(5, [(15, 34, "AVAILABLE", 4)])
    assert (len(sp.cached_batches()), sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (1, 5, 34, 5)

    def again():
        return sp.acquire(MEMBER_ID, 500, fetch_offset=5, log_batches=[(15, 34)])

    assert again() == [AR(15, 24, 5)]
    sp.sim.advance(WAIT_MS + 1)
    assert again() == [AR(15, 19, 6)]
    sp.sim.advance(WAIT_MS + 1)
    for i in range(5):
        assert again() == [AR(15 + i, 15 + i, 7)]
    assert again() == [AR(20, 24, 6)]
    assert again() == [AR(25, 34, 5)]


def test_throttle_records_when_pending_deliveries_exist():
    """testThrottleRecordsWhenPendingDeliveriesExist (4.2.0): limit 5, threshold 3; the batch at
    count 3 goes out whole only because it is the first throttled one; then 26-30 is halved."""
    sp = build()
    sp.load_state(5, [(15, 19, "AVAILABLE", 2), (20, 22, "ARCHIVED", 3), (26, 30, "AVAILABLE", 3)])
    assert (len(sp.cached_batches()), sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (3, 5, 30, 5)
    log = [(7, 19), (20, 27)]
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=5, log_batches=log) == [AR(7, 14, 1), AR(15, 19, 3), AR(23, 25, 1)]
    assert sp.next_fetch_offset == 26
    assert sp.cached_batches() == [(7, 14), (15, 19), (20, 22), (23, 25), (26, 30)]
    assert [sp.state(o) for o in (7, 15, 20, 23, 26)] == ["ACQUIRED", "ACQUIRED", "ARCHIVED", "ACQUIRED", "AVAILABLE"]
    assert sp.end_offset == 30 and sp.delivery_complete_count == 3
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=26, log_batches=log) == [AR(26, 27, 4)]


def test_last_attempt_record_isolation_with_mixed_delivery_count():
    """testLastAttemptRecordIsolationWithMixedDeliveryCount (4.2.0): 17 at count 4 (= limit - 1)
    is delivered alone, after 15-16."""
    sp = build()
    sp.load_state(15, [(15, 34, "AVAILABLE", 2)])
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (15, 34, 15)
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=15, log_batches=[(15, 34)]) == [AR(15, 34, 3)]
    sp.acknowledge(MEMBER_ID, [(17, 17, "RELEASE"), (20, 20, "RELEASE")])
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=15, log_batches=[(15, 34)]) == [AR(17, 17, 4), AR(20, 20, 4)]
    assert sp.acknowledge(MEMBER_ID, [(15, 34, "RELEASE")]) is Errors.NONE
    assert sp.cached_batches() == [(15, 34)]
    assert offsets(sp, 15, 18) == {15: ("AVAILABLE", 3, ""), 16: ("AVAILABLE", 3, ""), 17: ("AVAILABLE", 4, ""),
                                   18: ("AVAILABLE", 3, "")}
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=5, log_batches=[(15, 34)]) == [AR(15, 16, 4)]
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=5, log_batches=[(15, 34)]) == [AR(17, 17, 5)]


def test_no_throttling_before_4_2():
    """4.1.1 has no throttling: the same persisted batch goes out whole."""
    sp = build("4.1", max_delivery_count=7, default_record_lock_duration_ms=WAIT_MS)
    sp.load_state(5, [(15, 34, "AVAILABLE", 4)])
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=15, log_batches=[(15, 34)]) == [AR(15, 34, 5)]


def test_load_state_rejects_what_is_never_persisted():
    """ACQUIRED is never written to `__share_group_state`; overlapping batches are invalid."""
    with pytest.raises(ConfigError, match="ACQUIRED is never written"):
        build().load_state(0, [(0, 4, "ACQUIRED", 1)])
    with pytest.raises(ConfigError, match="overlaps"):
        build().load_state(0, [(0, 4, "AVAILABLE", 1), (3, 6, "AVAILABLE", 1)])


def test_leader_failover_from_the_persisted_state():
    """A new leader reads what WriteShareGroupState wrote (ACQUIRED never is): 5-6, delivered
    twice, come back AVAILABLE with their last written count 1; 7-9 were never written and are
    fetched as new. The start offset written is the one before the write's own SPSO move."""
    sp = build()
    fetch(sp, 0, 10)
    sp.acknowledge(MEMBER_ID, [(5, 6, "RELEASE")])
    sp.acquire("member-2", None, fetch_offset=5, log_batches=[(5, 9)])
    assert offsets(sp, 5, 6) == {5: ("ACQUIRED", 2, "member-2"), 6: ("ACQUIRED", 2, "member-2")}
    sp.acknowledge(MEMBER_ID, [(0, 4, "ACCEPT")])
    assert sp.start_offset == 5
    assert sp.persisted_state() == (0, [(0, 4, "ACKNOWLEDGED", 1), (5, 6, "AVAILABLE", 1)])
    leader = SharePartition(sp.sim, "test-group", "test-topic", 0, max_in_flight_records=200)
    leader.load_state(*sp.persisted_state())
    assert (leader.start_offset, leader.end_offset, leader.next_fetch_offset) == (5, 6, 5)
    assert leader.acquire("member-3", None, fetch_offset=5, log_batches=[(5, 9)]) == [AR(5, 6, 2), AR(7, 9, 1)]


# -- construction -----------------------------------------------------------------------------------
def test_defaults_per_version_and_bad_input():
    """`group.share.partition.max.record.locks` 200 in 4.0, 2000 from 4.1; limits are plain ints >= 1."""
    assert SharePartition(Simulation(), "g", "t", 0, kafka_version="4.0").max_in_flight_records == 200
    sp = SharePartition(Simulation(), "g", "t", 0, kafka_version="4.1")
    assert (sp.max_in_flight_records, sp.max_delivery_count, sp.default_record_lock_duration_ms) == (2000, 5, 30000)
    with pytest.raises(ConfigError, match="max_in_flight_records must be an integer >= 1, got 0"):
        SharePartition(Simulation(), "g", "t", 0, max_in_flight_records=0)
    with pytest.raises(ConfigError, match="4.0 or later"):
        SharePartition(Simulation(), "g", "t", 0, kafka_version="3.9")
    with pytest.raises(ConfigError, match="ascending"):
        build().acquire(MEMBER_ID, 5, log_batches=[(5, 9), (0, 4)])



@pytest.mark.parametrize("log_batches, message", [
    ([5], "log_batches entries must be (base_offset, last_offset), got 5"),
    ([(1, 2, 3)], "log_batches entries must be (base_offset, last_offset), got (1, 2, 3)"),
    ([(True, 4)], "log batch (True, 4) must be two offsets >= 0 with base_offset <= last_offset"),
    ([(0, 4.0)], "log batch (0, 4.0) must be two offsets >= 0 with base_offset <= last_offset"),
    ([(-1, 4)], "log batch (-1, 4) must be two offsets >= 0 with base_offset <= last_offset"),
    ([(5, 4)], "log batch (5, 4) must be two offsets >= 0 with base_offset <= last_offset"),
    ([(0, 4), (4, 9)], "log_batches must be ascending and not overlap: (0, 4) then (4, 9)"),
])
def test_a_log_read_whose_batches_are_not_ascending_non_negative_offset_pairs_is_refused(log_batches, message):
    with pytest.raises(ConfigError) as refused:
        build().acquire(MEMBER_ID, 5, log_batches=log_batches)
    assert str(refused.value) == message


def test_log_batches_may_be_adjacent_and_one_offset_long():
    """Accepted, and acquired as one new in-flight batch from the first base to the last end (acquireNewBatchRecords)."""
    assert build().acquire(MEMBER_ID, 10, log_batches=[(0, 0), (1, 4)]) == [AR(0, 4, 1)]


@pytest.mark.parametrize("name", ["max_in_flight_records", "max_delivery_count", "default_record_lock_duration_ms"])
def test_each_limit_accepts_one_and_refuses_zero_by_name(name):
    assert getattr(SharePartition(Simulation(), "g", "t", 0, **{name: 1}), name) == 1
    with pytest.raises(ConfigError) as refused:
        SharePartition(Simulation(), "g", "t", 0, **{name: 0})
    assert str(refused.value) == f"{name} must be an integer >= 1, got 0"


def test_an_acquire_mode_the_version_lacks_is_refused_naming_the_version_and_its_valid_modes():
    with pytest.raises(ConfigError) as refused:
        build("4.1").acquire(MEMBER_ID, 5, log_batches=[(0, 9)], acquire_mode="record_limit")
    assert str(refused.value) == ("Invalid value 'record_limit' for configuration share.acquire.mode in Kafka 4.1: "
                                  "String must be one of: batch_optimized")


def test_a_new_share_partition_has_written_nothing_and_answered_no_acknowledgement():
    sp = build()
    assert sp.persisted_state() == (0, []) and sp.ack_error_message is None


#: The share partition's rules by the Kafka release that brought (or ended) each: rule -> versions where it holds.
RULE_RELEASES = {"split_new_batches": ("4.1", "4.2", "4.3", "4.4"), "release_decrements": ("4.1",),
                 "release_leaves_batch": ("4.0", "4.1"), "cap_in_acquisition": ("4.2", "4.3", "4.4"),
                 "throttle": ("4.2", "4.3", "4.4"), "record_limit": ("4.2", "4.3", "4.4"), "renew": ("4.2", "4.3", "4.4"),
                 "gap_window": ("4.1", "4.2", "4.3", "4.4"), "start_adjust": ("4.2", "4.3", "4.4"),
                 "gap_bounds": ("4.2", "4.3", "4.4"), "group_limits": ("4.3", "4.4"), "dlq": ("4.4",),
                 "offset_ack_wording": ("4.2", "4.3", "4.4")}


def test_each_share_partition_rule_holds_from_the_release_that_brought_it():
    """split and gap window 4.1 (InitialReadGapOffset); the 4.1-only DECREASE on release (KAFKA-17541 part 1); the
    4.0-4.1 release leaving the batch (KAFKA-19953 in 4.2); 4.2's cap, throttle (KAFKA-17541 part 2), record_limit
    (KIP-1206), RENEW (KIP-1222), start adjustment, gap bounds and offset wording (KAFKA-19476); 4.3's per-group
    limits (KIP-1240); 4.4's DLQ (KIP-1191)."""
    from kafkasim.coordinator.modern.share.partition import SharePartitionRules
    for version in ("4.0", "4.1", "4.2", "4.3", "4.4"):
        rules = SharePartitionRules.for_version(version)
        assert {r: getattr(rules, r) for r in RULE_RELEASES} == {r: version in vs for r, vs in RULE_RELEASES.items()}


# -- properties ---------------------------------------------------------------------------------------
MEMBERS = ("m1", "m2", "m3")
step = st.one_of(
    st.tuples(st.just("acquire"), st.sampled_from(MEMBERS), st.integers(1, 30), st.integers(1, 12), st.booleans()),
    st.tuples(st.just("ack"), st.sampled_from(MEMBERS), st.integers(0, 60), st.integers(0, 8),
              st.sampled_from(["ACCEPT", "RELEASE", "REJECT", "GAP", "RENEW"])),
    st.tuples(st.just("advance"), st.integers(1, 80)),
    st.tuples(st.just("release"), st.sampled_from(MEMBERS)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(version=st.sampled_from(["4.0", "4.1", "4.2", "4.3"]), limit=st.integers(2, 4),
       steps=st.lists(step, max_size=40))
def test_invariants_over_random_sequences(version, limit, steps):
    """No record held by two members, counts never above the limit, nothing acknowledged twice,
    SPSO <= every cached offset that is not terminal, and SPSO never moves back."""
    sp = SharePartition(Simulation(seed=1), "g", "t", 0, kafka_version=version, max_in_flight_records=40,
                        max_delivery_count=limit, default_record_lock_duration_ms=50)
    produced = acquisitions = 0
    terminal: set[int] = set()
    last_start = 0
    for action in steps:
        if action[0] == "acquire":
            _, member, size, max_records, record_limit = action
            start = sp.next_fetch_offset
            produced = max(produced, start + size)
            before = {o: sp.state(o) for o in range(start, produced)}
            mode = "record_limit" if record_limit and version >= "4.2" else "batch_optimized"
            got = sp.acquire(member, max_records, log_batches=[(start, produced - 1)], acquire_mode=mode)
            if mode == "record_limit":
                assert sum(last - first + 1 for first, last, _ in got) <= max_records
            acquisitions += len(got)
            for first, last, count in got:
                assert 1 <= count <= limit
                for o in range(first, last + 1):
                    assert before[o] in (None, "AVAILABLE"), f"offset {o} was {before[o]}: taken twice"
                    assert sp.owner(o) == member and sp.state(o) == "ACQUIRED" and o not in terminal
        elif action[0] == "ack":
            _, member, first, length, kind = action
            before = {o: sp.state(o) for o in range(first, first + length + 1)}
            error = sp.acknowledge(member, [(first, first + length, kind)])
            if error is Errors.NONE:
                for o, state in before.items():
                    if o >= sp.start_offset and state is not None and kind != "RENEW":
                        assert state == "ACQUIRED"
            else:
                assert {o: sp.state(o) for o in before} == before  # rolled back
        elif action[0] == "advance":
            sp.sim.advance(action[1])
        else:
            sp.release_all(action[1])
        for first, last in sp.cached_batches():
            for o in range(first, last + 1):
                state, count, owner = sp.state(o), sp.delivery_count(o), sp.owner(o)
                assert 0 <= count <= limit
                assert (owner != "") == (state == "ACQUIRED")
                if state in ("ACKNOWLEDGED", "ARCHIVED"):
                    terminal.add(o)
                else:
                    assert o not in terminal, f"offset {o} left a terminal state"
                    assert o >= sp.start_offset
        assert sp.start_offset >= last_start
        last_start = sp.start_offset
        assert sp.start_offset <= sp.end_offset + 1
        batches = sp.cached_batches()
        assert all(f <= lst < nxt for (f, lst), (nxt, _) in zip(batches, batches[1:] + [(10**9, 0)]))
    if any(a[0] == "acquire" for a in steps[:1]):
        assert acquisitions > 0  # the first fetch of a fresh partition always gets records


# -- rules pinned by mutation testing (issue 28 item 8) -------------------------------------------
# Each one's expectation is worked out by hand from the SharePartition.java rule it names.
def test_a_batch_another_member_holds_is_skipped_and_acquisition_goes_on():
    """`acquire` (4.2), record_limit: a cached batch not AVAILABLE (held by member-1) is skipped
    with `continue` ("The batch is not available to acquire"), not the end of the loop: member-2
    gets the next batch's first 3 records (a hard limit of 3), on their second delivery."""
    sp = build()
    assert fetch(sp, 0, 5) == [AR(0, 4, 1)]
    assert fetch(sp, 5, 5) == [AR(5, 9, 1)]
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "RELEASE")]) is Errors.NONE
    got = sp.acquire("member-2", 3, fetch_offset=0, log_batches=[(0, 4), (5, 9)], acquire_mode="record_limit")
    assert got == [AR(5, 7, 2)]
    assert [sp.owner(o) for o in (4, 5, 7, 8)] == [MEMBER_ID, "member-2", "member-2", ""]


def test_max_records_reached_in_the_cache_acquires_no_new_records():
    """`acquire`: new records are acquired only while `acquiredCount < maxRecordsToAcquire`. 0-4
    loaded AVAILABLE, the log batch is 0-9, MaxRecords 5: 0-4 go on their second delivery, 5-9
    stay unread (SPEO 4) although they are in the same log batch."""
    sp = build()
    sp.load_state(0, [(0, 4, "AVAILABLE", 1)])
    assert sp.acquire(MEMBER_ID, 5, fetch_offset=0, log_batches=[(0, 9)]) == [AR(0, 4, 2)]
    assert (sp.cached_batches(), sp.end_offset, sp.state(5)) == ([(0, 4)], 4, None)


def test_record_limit_with_exactly_max_records_keeps_one_batch_state():
    """`createBatches` (4.2): record_limit splits the new batch per offset only when it holds more
    than MaxRecords; exactly MaxRecords (5 of 0-4) stay one batch, all ACQUIRED."""
    sp = build()
    got = sp.acquire(MEMBER_ID, 5, fetch_offset=0, log_batches=[(0, 4)], acquire_mode="record_limit")
    assert got == [AR(0, 4, 1)]
    assert (sp.cached_batches(), sp.split_batches(), sp.next_fetch_offset) == ([(0, 4)], [], 5)


def test_throttling_looks_only_at_the_offsets_being_acquired():
    """`shouldThrottleRecordsDelivery(batch, first, lastOffsetToAcquire)` (4.2): only AVAILABLE
    offsets in the fetched range count. Limit 5, threshold max(2, ceil(5 / 2)) = 3. Batch 5-14 has
    10-14 at count 3 and 5-9 at count 2; a fetch of 0-9 takes 0-4 and 5-9 whole: nothing in 5-9
    reaches 3, so 5-9 are not throttled even though 10-14 would be."""
    sp = build()
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (5, 14, "AVAILABLE", 1)])
    # 10-14 alone twice: count 1 -> 2 -> 3, released each time (the batch splits per offset)
    for count in (2, 3):
        assert sp.acquire(MEMBER_ID, 5, fetch_offset=10, log_batches=[(10, 14)]) == [AR(10, 14, count)]
        assert sp.acknowledge(MEMBER_ID, [(10, 14, "RELEASE")]) is Errors.NONE
    got = sp.acquire(MEMBER_ID, 20, fetch_offset=0, log_batches=[(0, 4), (5, 9)])
    assert got == [AR(0, 4, 2), AR(5, 9, 2)]


def test_throttling_ignores_offsets_before_the_first_fetched_batch():
    """`shouldThrottleRecordsDelivery(batch, firstBatch.baseOffset(), lastOffsetToAcquire)` (4.2): offsets
    of a cached batch before the fetched range do not count. Limit 5, threshold 3. 0-4 alone twice:
    count 1 -> 2 -> 3, released each time (the batch 0-9 splits per offset); a fetch of 5-14 takes 5-9
    and goes on to 10-14 (a throttled batch would end the acquire), though 0-4 would be throttled."""
    sp = build()
    sp.load_state(0, [(0, 9, "AVAILABLE", 1), (10, 14, "AVAILABLE", 1)])
    for count in (2, 3):
        assert sp.acquire(MEMBER_ID, 5, fetch_offset=0, log_batches=[(0, 4)]) == [AR(0, 4, count)]
        assert sp.acknowledge(MEMBER_ID, [(0, 4, "RELEASE")]) is Errors.NONE
    assert sp.acquire(MEMBER_ID, 20, fetch_offset=5, log_batches=[(5, 9), (10, 14)]) == [AR(5, 9, 2), AR(10, 14, 2)]
    assert [sp.state(o) for o in (0, 5, 10)] == ["AVAILABLE", "ACQUIRED", "ACQUIRED"]

def test_spso_inside_a_later_batch_removes_only_the_batches_before_it():
    """`maybeUpdateCachedStateAndOffsets`: the terminal run 0-6 (0-4 whole, 5-6 of 5-9) moves SPSO
    to 7; the batches before the one holding SPSO leave the cache (0-4), 5-9 and 10-14 stay."""
    sp = build()
    for start in (0, 5, 10):
        assert fetch(sp, start, 5) == [AR(start, start + 4, 1)]
    assert sp.acknowledge(MEMBER_ID, [(5, 6, "ACCEPT")]) is Errors.NONE
    assert sp.start_offset == 0  # 0 is still ACQUIRED
    assert sp.acknowledge(MEMBER_ID, [(0, 4, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.cached_batches()) == (7, [(5, 9), (10, 14)])
    assert (sp.state(7), sp.state(10)) == ("ACQUIRED", "ACQUIRED")


def test_load_state_after_an_acquire_is_refused_with_a_reason():
    """ReadShareGroupState initializes the partition once, before any fetch (`maybeInitialize`)."""
    sp = build()
    fetch(sp, 0, 1)
    with pytest.raises(ConfigError, match="records are already in flight; load before the first acquire"):
        sp.load_state(0, [])


def test_a_split_keeps_the_batch_lock_deadline_per_offset():
    """`InFlightBatch.maybeInitializeOffsetStateUpdate`: splitting a locked batch gives each offset
    the batch's remaining lock, not a fresh one. 0-9 acquired at 0 with a 100 ms lock; at 40 a
    partial acknowledgement splits it: 5-9 still expire at 100."""
    sp = build(default_record_lock_duration_ms=LOCK_MS)
    fetch(sp, 0, 10)
    sp.sim.advance(40)
    assert sp.acknowledge(MEMBER_ID, [(0, 4, "ACCEPT")]) is Errors.NONE
    assert sp.split_batches() == [(0, 9)]
    assert [t.time for t in sp.lock_timers()] == [LOCK_MS] * 5


def test_terminal_states_refuse_every_transition():
    """`RecordState.validateTransition`: ACKNOWLEDGED and ARCHIVED are terminal; `tryUpdateState`
    answers false (null in Kafka) and changes nothing."""
    from kafkasim.coordinator.modern.share.state import INCREASE, NO_OP, InFlightState
    for terminal in ("ACKNOWLEDGED", "ARCHIVED"):
        for target, ops in (("ACQUIRED", INCREASE), ("AVAILABLE", NO_OP), ("ARCHIVED", NO_OP)):
            s = InFlightState(terminal, 2, "m")
            assert s.try_update(target, ops, 5, "other") is False
            assert (s.state, s.delivery_count, s.member_id) == (terminal, 2, "m")
    # AVAILABLE -> ACKNOWLEDGED is not a transition either (only ACQUIRED records are acknowledged)
    assert InFlightState("AVAILABLE", 1).try_update("ACKNOWLEDGED", NO_OP, 5, "m") is False


def test_in_flight_batch_repr_shows_its_range_and_state():
    from kafkasim.coordinator.modern.share.state import InFlightBatch, InFlightState
    batch = InFlightBatch(0, 2, InFlightState("AVAILABLE", 1))
    assert repr(batch) == "InFlightBatch(0-2, InFlightState(AVAILABLE, count=1, member=''))"
    batch.split(lambda *a: None)
    assert repr(batch) == "InFlightBatch(0-2, 3 offsets)"


def test_the_share_coordinator_copy_keeps_disjoint_ranges():
    """WriteShareGroupState overwrites the written range (`ShareCoordinatorShard` merges state
    batches): a write inside a batch cuts it in three; one across two batches keeps their outer
    parts with their own states; a write ending at a batch's end leaves no remainder; the start
    offset written drops everything below it."""
    from kafkasim.coordinator.modern.share.persisted import PersistedState
    p = PersistedState()
    p.put(0, 9, "AVAILABLE", 1)
    p.put(3, 5, "ACKNOWLEDGED", 1)
    assert p.batches() == [(0, 2, "AVAILABLE", 1), (3, 5, "ACKNOWLEDGED", 1), (6, 9, "AVAILABLE", 1)]
    q = PersistedState()
    q.put(0, 4, "AVAILABLE", 1)
    q.put(5, 9, "ARCHIVED", 3)
    q.put(2, 7, "AVAILABLE", 2)
    assert q.batches() == [(0, 1, "AVAILABLE", 1), (2, 7, "AVAILABLE", 2), (8, 9, "ARCHIVED", 3)]
    r = PersistedState()
    r.put(0, 9, "AVAILABLE", 1)
    r.put(5, 9, "ARCHIVED", 4)
    assert r.batches() == [(0, 4, "AVAILABLE", 1), (5, 9, "ARCHIVED", 4)]
    r.trim(2)
    assert r.batches() == [(2, 4, "AVAILABLE", 1), (5, 9, "ARCHIVED", 4)]
    r.trim(6)
    assert r.batches() == [(6, 9, "ARCHIVED", 4)]


def test_acquisition_goes_on_past_a_batch_taken_offset_by_offset():
    """`acquire`: after a split batch's AVAILABLE offsets are taken (`acquireSubsetBatchRecords`),
    the loop goes on to the next cached batch. 0-4 split by releasing 0-1 (2-4 still held), 5-9
    released whole: member-2 gets 0-1 and 5-9, each on its second delivery."""
    sp = build()
    fetch(sp, 0, 5)
    fetch(sp, 5, 5)
    assert sp.acknowledge(MEMBER_ID, [(0, 1, "RELEASE"), (5, 9, "RELEASE")]) is Errors.NONE
    got = sp.acquire("member-2", None, fetch_offset=0, log_batches=[(0, 4), (5, 9)])
    assert got == [AR(0, 1, 2), AR(5, 9, 2)]
    assert [sp.owner(o) for o in (0, 2, 5)] == ["member-2", MEMBER_ID, "member-2"]


# -- rules pinned by mutation testing (issue 29) ----------------------------------------------------
@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
def test_release_acquired_records_per_offset_with_different_member_id(version):
    """testReleaseAcquiredRecordsPerOffsetWithDifferentMemberId (4.2, KAFKA-19953): a session
    release skips the offsets another member holds in a split batch and goes on (13-14 come back).
    4.0.0 and 4.1.1 `return` from `releaseAcquiredRecordsForPerOffsetBatch` at member-2's 10, so
    member-1's 13-14 stay ACQUIRED until their lock expires; 4.1 also DECREASEs 7-9 to 0."""
    sp = build(version)
    assert fetch(sp, 5, 10) == [AR(5, 14, 1)]
    assert sp.acknowledge(MEMBER_ID, [(5, 6, "ACCEPT")]) is Errors.NONE
    assert sp.acknowledge(MEMBER_ID, [(10, 12, "RELEASE")]) is Errors.NONE
    assert fetch(sp, 10, 3, member="member-2") == [AR(10, 12, 2)]
    assert sp.release_all(MEMBER_ID) is Errors.NONE
    assert (sp.next_fetch_offset, sp.cached_batches(), sp.split_batches()) == (7, [(5, 14)], [(5, 14)])
    released = ("AVAILABLE", 0 if version == "4.1" else 1, "")
    later = ("AVAILABLE", 1, "") if version == "4.2" else ("ACQUIRED", 1, MEMBER_ID)
    assert offsets(sp, 7, 14) == {7: released, 8: released, 9: released, 10: ("ACQUIRED", 2, "member-2"),
                                  11: ("ACQUIRED", 2, "member-2"), 12: ("ACQUIRED", 2, "member-2"),
                                  13: later, 14: later}
    assert sp.stats["write_share_group_state"] == 3  # two acknowledgements, one release


def test_last_attempt_record_goes_alone_from_a_delivery_limit_of_3():
    """`acquireSubsetBatchRecords` (4.2): with `maxDeliveryCount > 2` a record on its last attempt
    (count limit - 1) is not added after others (isolated for the next fetch), and once acquired
    at the limit it is "Delivered alone". Limit 3 (threshold max(2, ceil(3 / 2)) = 2), 0-9 held
    by member-1 with 0 and 1 released at counts 1 and 2, then the other way round."""
    def released(first_count_1: int) -> SharePartition:
        sp = build(max_delivery_count=3)
        fetch(sp, 0, 10)
        twice = 1 - first_count_1  # the offset released at count 2 (acquired again once)
        assert sp.acknowledge(MEMBER_ID, [(twice, twice, "RELEASE")]) is Errors.NONE
        assert sp.acquire(MEMBER_ID, None, log_batches=[(0, 9)]) == [AR(twice, twice, 2)]
        assert sp.acknowledge(MEMBER_ID, [(0, 1, "RELEASE")]) is Errors.NONE
        assert offsets(sp, 0, 1)[first_count_1] == ("AVAILABLE", 1, "")
        return sp

    sp = released(first_count_1=0)  # 0 at count 1, then 1 on its last attempt: 1 waits
    assert sp.acquire("member-2", None, log_batches=[(0, 9)]) == [AR(0, 0, 2)]
    assert offsets(sp, 1, 1) == {1: ("AVAILABLE", 2, "")}
    assert sp.acquire("member-2", None, log_batches=[(0, 9)]) == [AR(1, 1, 3)]
    sp = released(first_count_1=1)  # 0 on its last attempt first: it goes alone, 1 waits
    assert sp.acquire("member-2", None, log_batches=[(0, 9)]) == [AR(0, 0, 3)]
    assert offsets(sp, 1, 1) == {1: ("AVAILABLE", 1, "")}


def test_throttled_batch_size_never_drops_below_one_record():
    """`acquireSubsetBatchRecords` (4.2): `max(1, size >> (count - T + 1))`. Limit 10, threshold
    T = 5; 0-9 persisted AVAILABLE at count 8: 10 >> 4 = 0, so one record per fetch, in order."""
    sp = build(max_delivery_count=10)
    sp.load_state(0, [(0, 9, "AVAILABLE", 8)])
    assert sp.acquire(MEMBER_ID, None, log_batches=[(0, 9)]) == [AR(0, 0, 9)]
    assert sp.acquire(MEMBER_ID, None, log_batches=[(0, 9)]) == [AR(1, 1, 9)]
    assert offsets(sp, 1, 2) == {1: ("ACQUIRED", 9, MEMBER_ID), 2: ("AVAILABLE", 8, "")}


def test_max_records_take_the_whole_log_batch_they_end_in_and_no_more_between_batches():
    """`acquireNewBatchRecords` with `lastOffsetFromBatchWithRequestOffset`: MaxRecords is a soft
    limit. 6 records of log batches 0-4 and 5-9 end at 5, the first offset of 5-9: the whole batch
    goes (0-9). 7 of 0-4 and 10-14 end at 6, in no batch: the acquisition ends at 6 exactly."""
    sp = build()
    assert sp.acquire(MEMBER_ID, 6, log_batches=[(0, 4), (5, 9)]) == [AR(0, 9, 1)]
    sp = build()
    assert sp.acquire(MEMBER_ID, 7, log_batches=[(0, 4), (10, 14)]) == [AR(0, 6, 1)]
    assert (sp.end_offset, sp.next_fetch_offset) == (6, 7)


def test_counts_and_owners_are_known_only_for_cached_records():
    """`cachedState()` holds the in-flight records only: an offset never fetched, or acknowledged
    and gone from the cache with SPSO past it, has no delivery count (None) and no owner ("")."""
    sp = build()
    fetch(sp, 0, 5)
    assert (sp.delivery_count(5), sp.owner(5), sp.state(5)) == (None, "", None)
    assert sp.acknowledge(MEMBER_ID, [(0, 4, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.cached_batches()) == (5, [])
    assert (sp.delivery_count(0), sp.owner(0), sp.state(0)) == (None, "", None)


# -- acquiring cached batches and the gaps between them (issue 29, `_acquire_cached`) ---------------
# Each expectation is worked out by hand from `SharePartition.acquire` (4.2.0), or replays the
# Kafka test its docstring names. `load_state` with a hole between two batches opens the gap window.
def test_acquire_cached_state_gap_in_between_overlaps_with_actual_partition_gap_in_record_limit_mode():
    """testAcquireCachedStateGapInBetweenOverlapsWithActualPartitionGapInRecordLimitMode (4.2.0):
    SPSO 11, 21-30 ACKNOWLEDGED and 41-50 ARCHIVED loaded, log batches 11-20, 21-35, 41-60,
    record_limit with MaxRecords 15: the gap 11-20 gives 10, the gap 31-40 only the 5 left (31-35,
    where its log batch ends: 36-40 is a gap of the log itself); 41-50 is never reached."""
    sp = build()
    sp.load_state(11, [(21, 30, "ACKNOWLEDGED", 2), (41, 50, "ARCHIVED", 1)])
    got = sp.acquire(MEMBER_ID, 15, fetch_offset=0, log_batches=[(11, 20), (21, 35), (41, 60)],
                     acquire_mode="record_limit")
    assert got == [AR(11, 20, 1), AR(31, 35, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (11, 50, 36)
    assert sp.cached_batches() == [(11, 20), (21, 30), (31, 35), (41, 50)]
    assert (sp.state(36), sp.state(51)) == (None, None)


def test_a_gap_takes_only_the_records_left_and_ends_the_acquisition_when_they_are_used():
    """`acquire`'s gap branch (4.2): a gap between cached batches is acquired for the member with
    `maxRecordsToAcquire - acquiredCount` records, added to the count, and `acquiredCount >=
    maxRecordsToAcquire` then ends the loop. 0-4 and 10-14 loaded AVAILABLE (gap 5-9), log batches
    0-4, 5-6, 7-9, 10-14, MaxRecords 7: 0-4 (5, second delivery), then the gap with 2 left: the log
    batch 5-6 exactly; 7 reached, so 10-14 waits. The gap's next offset, 7, is the next fetch."""
    sp = build()
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (10, 14, "AVAILABLE", 1)])
    got = sp.acquire(MEMBER_ID, 7, fetch_offset=0, log_batches=[(0, 4), (5, 6), (7, 9), (10, 14)])
    assert got == [AR(0, 4, 2), AR(5, 6, 1)]
    assert offsets(sp, 5, 7) == {5: ("ACQUIRED", 1, MEMBER_ID), 6: ("ACQUIRED", 1, MEMBER_ID),
                                 7: (None, None, "")}
    assert offsets(sp, 10, 10) == {10: ("AVAILABLE", 1, "")}
    assert (sp.cached_batches(), sp.next_fetch_offset) == ([(0, 4), (5, 6), (10, 14)], 7)


def test_a_gap_in_record_limit_mode_takes_exactly_the_records_left_offset_by_offset():
    """`acquireNewBatchRecords(..., isRecordLimitMode, ...)` for a gap (4.2, KIP-1206): the new
    batch covers the whole log batch 5-9, but record_limit acquires only the 2 records left after
    0-4 (MaxRecords 7); 7-9 stay AVAILABLE, never delivered, and are the next fetch."""
    sp = build()
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (10, 14, "AVAILABLE", 1)])
    got = sp.acquire(MEMBER_ID, 7, fetch_offset=0, log_batches=[(0, 4), (5, 9), (10, 14)],
                     acquire_mode="record_limit")
    assert got == [AR(0, 4, 2), AR(5, 6, 1)]
    assert sp.split_batches() == [(5, 9)]
    assert offsets(sp, 6, 7) == {6: ("ACQUIRED", 1, MEMBER_ID), 7: ("AVAILABLE", 0, "")}
    assert (sp.state(10), sp.next_fetch_offset) == ("AVAILABLE", 7)


def test_max_records_is_a_soft_limit_counted_over_whole_cached_batches():
    """`acquire` (4.2): a full-match cached batch is acquired whole and adds its size to the count;
    the loop stops once the count reaches MaxRecords. 10-14, 15-19, 20-24 AVAILABLE, MaxRecords 11:
    5, 10, then 20-24 (10 < 11) for 15; no new record 25-29 (15 >= 11)."""
    sp = build()
    sp.load_state(10, [(10, 14, "AVAILABLE", 1), (15, 19, "AVAILABLE", 1), (20, 24, "AVAILABLE", 1)])
    got = sp.acquire(MEMBER_ID, 11, fetch_offset=10, log_batches=[(10, 14), (15, 19), (20, 24), (25, 29)])
    assert got == [AR(10, 14, 2), AR(15, 19, 2), AR(20, 24, 2)]
    assert (sp.end_offset, sp.state(25), sp.split_batches()) == (24, None, [])


def test_a_cached_batch_is_split_only_when_record_limit_leaves_fewer_records_than_it_holds():
    """`checkForRecordLimitSubsetMatch` (4.2): only record_limit splits a cached batch, and only
    when it holds more than the records left. batch_optimized with MaxRecords 3 takes 0-9 whole
    (a soft limit); record_limit with exactly 3 left takes 10-12 whole. Both keep one batch state
    and one lock."""
    sp = build()
    sp.load_state(0, [(0, 9, "AVAILABLE", 1)])
    assert sp.acquire(MEMBER_ID, 3, fetch_offset=0, log_batches=[(0, 9)]) == [AR(0, 9, 2)]
    assert (sp.split_batches(), len(sp.lock_timers())) == ([], 1)
    sp = build()
    sp.load_state(10, [(10, 12, "AVAILABLE", 1)])
    got = sp.acquire(MEMBER_ID, 3, fetch_offset=10, log_batches=[(10, 12)], acquire_mode="record_limit")
    assert got == [AR(10, 12, 2)]
    assert (sp.split_batches(), len(sp.lock_timers())) == ([], 1)


def test_record_limit_takes_only_the_records_left_from_the_next_cached_batch():
    """`acquire` (4.2), record_limit: `numRecordsRemaining = maxRecordsToAcquire - acquiredCount`
    is what `acquireSubsetBatchRecords` may take, and its count adds to the total. 0-4 and 5-9
    AVAILABLE, MaxRecords 7: 0-4 whole, then 5-6 of 5-9 (split); 7 reached, so no new record from
    the log batch 10-14."""
    sp = build()
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (5, 9, "AVAILABLE", 1)])
    got = sp.acquire(MEMBER_ID, 7, fetch_offset=0, log_batches=[(0, 4), (5, 9), (10, 14)],
                     acquire_mode="record_limit")
    assert got == [AR(0, 4, 2), AR(5, 6, 2)]
    assert sp.split_batches() == [(5, 9)]
    assert offsets(sp, 6, 7) == {6: ("ACQUIRED", 2, MEMBER_ID), 7: ("AVAILABLE", 1, "")}
    assert (sp.end_offset, sp.state(10), sp.next_fetch_offset) == (9, None, 7)


def test_a_throttled_batch_after_one_acquired_record_waits_for_the_next_fetch():
    """`acquire` (4.2, KAFKA-17541): `if (throttleRecordsDelivery && acquiredCount > 0)` stops
    before a throttled batch, even after a single record. Limit 5, threshold 3: 0 at count 1 is
    acquired, 1-5 at count 3 stay AVAILABLE, and no new record 6-9 is acquired."""
    sp = build()
    sp.load_state(0, [(0, 0, "AVAILABLE", 1), (1, 5, "AVAILABLE", 3)])
    got = sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 0), (1, 5), (6, 9)])
    assert got == [AR(0, 0, 2)]
    assert offsets(sp, 1, 1) == {1: ("AVAILABLE", 3, "")}
    assert (sp.end_offset, sp.state(6), sp.next_fetch_offset) == (5, None, 1)


def test_a_throttled_batch_that_gives_one_record_ends_the_acquisition():
    """`acquire` (4.2): after a throttled batch's records are taken, `maxRecordsToAcquire = 0`
    ends the acquisition, however few they were. Limit 5, threshold 3: 0-1 at count 3 gives
    max(1, 2 >> 1) = 1 record (0, count 4); 2-4 at count 1 and the new 5-9 wait."""
    sp = build()
    sp.load_state(0, [(0, 1, "AVAILABLE", 3), (2, 4, "AVAILABLE", 1)])
    got = sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 1), (2, 4), (5, 9)])
    assert got == [AR(0, 0, 4)]
    assert offsets(sp, 1, 2) == {1: ("AVAILABLE", 3, ""), 2: ("AVAILABLE", 1, "")}
    assert (sp.end_offset, sp.state(5), sp.next_fetch_offset) == (4, None, 1)


def test_acquire_multiple_records_with_overlap_and_new_batch_in_record_limit_mode():
    """testAcquireMultipleRecordsWithOverlapAndNewBatchInRecordLimitMode (4.2.0): record_limit,
    MaxRecords 3. 0-2 of the log batch 0-4 first; then, with the log at 0-9, 3-4 from the cache and
    the one record left from the new records after it (5, of a new batch 5-9 kept whole)."""
    sp = build()
    assert sp.acquire(MEMBER_ID, 3, fetch_offset=0, log_batches=[(0, 4)], acquire_mode="record_limit") == [AR(0, 2, 1)]
    assert sp.next_fetch_offset == 3
    got = sp.acquire(MEMBER_ID, 3, fetch_offset=0, log_batches=[(0, 9)], acquire_mode="record_limit")
    assert got == [AR(3, 4, 1), AR(5, 5, 1)]
    assert (sp.next_fetch_offset, sp.cached_batches()) == (6, [(0, 4), (5, 9)])
    assert offsets(sp, 0, 4) == {o: ("ACQUIRED", 1, MEMBER_ID) for o in range(5)}


# -- SPSO and the persisted state's gap window (issue 29, `_last_terminal_offset`) -------------------
# `findLastOffsetAcknowledged` (4.1.1) / `findLastOffsetAcknowledgedAndMetadata` (4.2.0) stop at the
# first cached batch whose last offset reaches the gap start (`lastOffset() >= gapStartOffset()`):
# the records from there on may still be fetched from the gap, so SPSO must not pass them.
@pytest.mark.parametrize("version", ["4.1", "4.2"])
def test_maybe_update_cached_state_gap_after_last_offset_acknowledged(version):
    """testMaybeUpdateCachedStateGapAfterLastOffsetAcknowledged (4.1.1, 4.2.0): SPSO 11, 11-20
    AVAILABLE, 31-40 ARCHIVED (gap 21-30). 11-20 acquired (gap start 21) and accepted: SPSO moves
    to 21, the gap start, not to 31 or past the ARCHIVED 31-40; only 11-20 leaves the cache."""
    sp = build(version)
    sp.load_state(11, [(11, 20, "AVAILABLE", 1), (31, 40, "ARCHIVED", 1)])
    assert sp.delivery_complete_count == 10
    assert fetch(sp, 11, 10) == [AR(11, 20, 2)]
    assert sp.acknowledge(MEMBER_ID, [(11, 20, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (21, 40, 21)
    assert sp.cached_batches() == [(31, 40)]
    assert sp.delivery_complete_count == 10


@pytest.mark.parametrize("version", ["4.1", "4.2"])
def test_a_terminal_batch_ending_at_the_gap_start_stays_cached(version):
    """`lastOffset() >= gapStartOffset()`, the equal case: SPSO 11, 11-20 AVAILABLE, 21 ARCHIVED,
    31-40 ARCHIVED (gap 22-30). Acquiring 11-20 sets the gap start to 21 (last acquired + 1), the
    one-offset batch 21. Accepting 11-20 stops the scan at 21 (21 >= 21): the last terminal offset
    is 20, so only 11-20 leaves the cache; SPSO is 21 (the higher key, capped by the gap start) and
    the next fetch 22, the first offset of the gap after the cached 21."""
    sp = build(version)
    sp.load_state(11, [(11, 20, "AVAILABLE", 1), (21, 21, "ARCHIVED", 1), (31, 40, "ARCHIVED", 1)])
    assert fetch(sp, 11, 10) == [AR(11, 20, 2)]
    assert sp.acknowledge(MEMBER_ID, [(11, 20, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (21, 40, 22)
    assert sp.cached_batches() == [(21, 21), (31, 40)]


@pytest.mark.parametrize("version", ["4.1", "4.2"])
def test_find_last_offset_acknowledged_when_gap_at_beginning(version):
    """testFindLastOffsetAcknowledgedWhenGapAtBeginning (4.1.1; testComputeStartOffsetAdvanceResult
    WhenGapAtBeginning in 4.2.0), which calls the method directly: SPSO 11, 21-30 ACKNOWLEDGED,
    31-40 ARCHIVED; the gap window starts at SPSO, so no offset counts as acknowledged: -1."""
    sp = build(version)
    sp.load_state(11, [(21, 30, "ACKNOWLEDGED", 2), (31, 40, "ARCHIVED", 1)])
    assert sp._last_terminal_offset() == -1
    assert (sp.start_offset, sp.end_offset, sp.cached_batches()) == (11, 40, [(21, 30), (31, 40)])


@pytest.mark.parametrize("version", ["4.1", "4.2"])
def test_spso_stays_when_the_gap_start_moves_back_into_the_first_batch(version):
    """The -1 of the gap check on the first batch, reached through `acknowledge`: the gap start is
    set to every acquisition's last offset + 1 while the window's end is SPEO, even back (4.1.1
    `maybeUpdateReadGapFetchOffset`; 4.2.0 `maybeUpdatePersisterGapWindowStartOffset` only refuses
    offsets past the window's end). 0-9 and 20-29 AVAILABLE (gap 10-19): 0-9 and 10-15 acquired (gap
    start 16), 0-9 released, 0-2 acquired again from the log batch 0-2 (gap start 3) and accepted.
    SPSO at 0 is terminal, but the first batch 0-9 reaches the gap start 3, so the last terminal
    offset is -1 and SPSO stays 0 with 0-2 ACKNOWLEDGED; the next fetch is 3."""
    sp = build(version)
    sp.load_state(0, [(0, 9, "AVAILABLE", 1), (20, 29, "AVAILABLE", 1)])
    assert sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 9), (10, 15)]) == [AR(0, 9, 2), AR(10, 15, 1)]
    assert sp.acknowledge(MEMBER_ID, [(0, 9, "RELEASE")]) is Errors.NONE
    assert sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 2)]) == [AR(0, 2, 3)]
    assert sp.acknowledge(MEMBER_ID, [(0, 2, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (0, 29, 3)
    assert sp.cached_batches() == [(0, 9), (10, 15), (20, 29)]
    assert offsets(sp, 2, 3) == {2: ("ACKNOWLEDGED", 3, ""), 3: ("AVAILABLE", 2, "")}
    assert sp.delivery_complete_count == 3


# -- acknowledgement path: rules pinned for mutation testing (issue 29) ---------------------------
# The answer of a failed acknowledgement is its error code plus Kafka's exception message:
# `SharePartitionManager.mapAcknowledgementFutures` (4.0-4.4) sets the partition's ErrorMessage to
# `getMessage()` of the failure, `KafkaApis` (4.2+) copies it to ShareFetch's AcknowledgeErrorMessage
# and the 4.2+ consumer builds its exception with it. `sp.ack_error_message` is that ErrorMessage.
# The batches `KafkaApis.validateAcknowledgementBatches` refuses are answered with the code alone
# (`ShareAcknowledgeResponse.partitionResponse`): no message.
def test_a_malformed_acknowledgement_batch_entry_is_a_config_error_naming_it():
    """kafkasim's own input check: an entry that is not (first, last, type) is refused, named."""
    sp = build()
    fetch(sp, 0, 5)
    with pytest.raises(ConfigError) as raised:
        sp.acknowledge(MEMBER_ID, [(0, 4)])
    assert str(raised.value) == "acknowledgement batches are (first_offset, last_offset, type), got (0, 4)"


def test_an_acknowledgement_batch_ending_before_it_starts_is_invalid_request():
    """`KafkaApis.validateAcknowledgementBatches`: FirstOffset > LastOffset -> INVALID_REQUEST with
    no message; nothing changes, nothing is written."""
    sp = build()
    fetch(sp, 0, 10)
    assert sp.acknowledge(MEMBER_ID, [(5, 3, "ACCEPT")]) is Errors.INVALID_REQUEST
    assert sp.ack_error_message is None
    assert offsets(sp, 3, 5) == {o: ("ACQUIRED", 1, MEMBER_ID) for o in (3, 4, 5)}
    assert sp.split_batches() == [] and sp.stats["write_share_group_state"] == 0


@pytest.mark.parametrize("batch", [(0, 0, ["ACCEPT", "ACCEPT"]), (0, 2, ["ACCEPT", "REJECT"]),
                                   (0, 1, ["ACCEPT", "ACCEPT", "ACCEPT"])])
def test_per_offset_types_must_be_one_per_offset_of_the_batch(batch):
    """`KafkaApis.validateAcknowledgementBatches`: more than one type and not one per offset
    (`lastOffset - firstOffset != acknowledgeTypes.size() - 1`) -> INVALID_REQUEST, no message;
    two types count as per-offset types too."""
    sp = build()
    fetch(sp, 0, 3)
    assert sp.acknowledge(MEMBER_ID, [batch]) is Errors.INVALID_REQUEST
    assert sp.ack_error_message is None
    assert offsets(sp, 0, 2) == {o: ("ACQUIRED", 1, MEMBER_ID) for o in (0, 1, 2)}


@pytest.mark.parametrize("version, kinds", [("4.2", "BOGUS"), ("4.2", []), ("4.1", "RENEW")])
def test_an_unknown_or_missing_acknowledge_type_is_invalid_request_without_a_message(version, kinds):
    """`KafkaApis.validateAcknowledgementBatches`: no type, or a type past the version's last (3,
    REJECT, before 4.2; 4, RENEW, from 4.2) -> INVALID_REQUEST, no message."""
    sp = build(version)
    fetch(sp, 0, 3)
    assert sp.acknowledge(MEMBER_ID, [(0, 2, kinds)]) is Errors.INVALID_REQUEST
    assert sp.ack_error_message is None


def test_acknowledge_out_of_range_cached_data_messages():
    """testAcknowledgeOutOfRangeCachedData (4.2.0) with Kafka's messages
    (`fetchSubMapForAcknowledgementBatch`): an empty cache -> INVALID_RECORD_STATE "Batch record
    not found. The request batch offsets are not found in the cache."; a batch starting past the
    cached 5-9 -> INVALID_REQUEST "... The first offset in request is past acquired records.\""""
    sp = build()
    assert sp.acknowledge(MEMBER_ID, [(0, 15, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert sp.ack_error_message == "Batch record not found. The request batch offsets are not found in the cache."
    fetch(sp, 5, 5)
    assert sp.acknowledge(MEMBER_ID, [(20, 25, "REJECT")]) is Errors.INVALID_REQUEST
    assert sp.ack_error_message == "Batch record not found. The first offset in request is past acquired records."
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "ACCEPT")]) is Errors.NONE
    assert sp.ack_error_message is None  # a success answers no message


def test_acknowledge_out_of_range_cached_data_first_batch():
    """testAcknowledgeOutOfRangeCachedDataFirstBatch (4.2.0): 0-4 and 20-24 cached; 0-10 ends past
    the batch it starts in -> INVALID_REQUEST "Batch record not found. The last offset in request
    is past acquired records." and the call is rolled back; once 5-10 is acquired the same call
    succeeds and everything is terminal: the cache empties."""
    sp = build()
    fetch(sp, 0, 5)
    fetch(sp, 20, 5)
    acks = [(0, 10, "ACCEPT"), (20, 24, "ACCEPT")]
    assert sp.acknowledge(MEMBER_ID, acks) is Errors.INVALID_REQUEST
    assert sp.ack_error_message == "Batch record not found. The last offset in request is past acquired records."
    assert fetch(sp, 5, 6) == [AR(5, 10, 1)]
    assert sp.delivery_complete_count == 0
    assert sp.acknowledge(MEMBER_ID, acks) is Errors.NONE
    assert sp.cached_batches() == [] and sp.delivery_complete_count == 0


def test_acknowledge_with_another_member_message():
    """testAcknowledgeWithAnotherMember (4.2.0): "Member is not the owner of batch record"
    (`validateAcknowledgementBatchMemberId`)."""
    sp = build()
    fetch(sp, 5, 5)
    assert sp.acknowledge("member-2", [(5, 9, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert sp.ack_error_message == "Member is not the owner of batch record"


def test_acknowledge_subset_with_another_member():
    """testAcknowledgeSubsetWithAnotherMember (4.2.0): 5-11 acquired, 5-7 accepted (the batch is
    split), member-2 acknowledges 9-11 -> INVALID_RECORD_STATE "Member is not the owner of offset"
    (`acknowledgePerOffsetBatchRecords`); 9-11 stay the owner's."""
    sp = build()
    fetch(sp, 5, 7)
    assert sp.acknowledge(MEMBER_ID, [(5, 7, "ACCEPT")]) is Errors.NONE
    assert sp.acknowledge("member-2", [(9, 11, "ACCEPT")]) is Errors.INVALID_RECORD_STATE
    assert sp.ack_error_message == "Member is not the owner of offset"
    assert offsets(sp, 9, 11) == {o: ("ACQUIRED", 1, MEMBER_ID) for o in (9, 10, 11)}


@pytest.mark.parametrize("version, message", [
    ("4.0", "The batch cannot be acknowledged. The offset is not acquired."),
    ("4.1", "The batch cannot be acknowledged. The offset is not acquired."),
    ("4.2", "The offset cannot be acknowledged. The offset is not acquired."),
    ("4.3", "The offset cannot be acknowledged. The offset is not acquired."),
    ("4.4", "The offset cannot be acknowledged. The offset is not acquired.")])
def test_acknowledge_when_offset_not_acquired_messages(version, message):
    """testAcknowledgeWhenOffsetNotAcquired (4.0.0, 4.2.0) with Kafka's messages: ACCEPT of the
    released 5-9 -> "The batch cannot be acknowledged. The batch is not in the acquired state."
    (`validateAcknowledgementBatchMemberId`, empty member); REJECT of 6-8 a second time -> the
    per-offset "offset is not acquired", worded "The batch cannot ..." in 4.0-4.1 and "The offset
    cannot ..." from 4.2 (KAFKA-19476)."""
    sp = build(version)
    fetch(sp, 5, 5)
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "RELEASE")]) is Errors.NONE
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "ACCEPT")]) is Errors.INVALID_RECORD_STATE
    assert sp.ack_error_message == "The batch cannot be acknowledged. The batch is not in the acquired state."
    fetch(sp, 5, 5)
    assert sp.acknowledge(MEMBER_ID, [(6, 8, "REJECT")]) is Errors.NONE
    assert sp.acknowledge(MEMBER_ID, [(6, 8, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert sp.ack_error_message == message
    assert offsets(sp, 5, 9) == {5: ("ACQUIRED", 2, MEMBER_ID), **{o: ("ARCHIVED", 2, "") for o in (6, 7, 8)},
                                 9: ("ACQUIRED", 2, MEMBER_ID)}


def test_acknowledge_rollback_with_subset_error():
    """testAcknowledgeRollbackWithSubsetError (4.2.0): 15-19 accepted, then 16-19 in the same call:
    the batch has no owner any more -> "The batch cannot be acknowledged. The batch is not in the
    acquired state."; every change rolls back, no batch is split, nothing is written."""
    sp = build()
    for start in (5, 10, 15):
        fetch(sp, start, 5)
    got = sp.acknowledge(MEMBER_ID, [(5, 9, "RELEASE"), (10, 14, "ACCEPT"), (15, 19, "ACCEPT"), (16, 19, "ACCEPT")])
    assert got is Errors.INVALID_RECORD_STATE
    assert sp.ack_error_message == "The batch cannot be acknowledged. The batch is not in the acquired state."
    assert [sp.state(o) for o in (5, 10, 15)] == ["ACQUIRED"] * 3
    assert [sp.owner(o) for o in (5, 10, 15)] == [MEMBER_ID] * 3
    assert sp.split_batches() == [] and sp.stats["write_share_group_state"] == 0
    assert sp.next_fetch_offset == 20


def test_renew_switched_off_for_the_group_answers_kafkas_message():
    """4.3's `share.renew.acknowledge.enable=false` (KIP-1240): INVALID_RECORD_STATE "Renewing
    acquisition locks is not enabled for the group." and the lock is left as it was."""
    sp = build("4.3", group_config=lambda: {"share.renew.acknowledge.enable": False})
    fetch(sp, 0, 1)
    lock = sp.lock_timers()[0]
    assert sp.acknowledge(MEMBER_ID, [(0, 0, "RENEW")]) is Errors.INVALID_RECORD_STATE
    assert sp.ack_error_message == "Renewing acquisition locks is not enabled for the group."
    assert sp.lock_timers() == [lock] and not lock.cancelled


@pytest.mark.parametrize("version", ["4.3", "4.4"])
def test_renew_is_enabled_when_the_group_does_not_set_it(version):
    """`share.renew.acknowledge.enable` defaults to true (KIP-1240, `GroupConfig`): with no group
    override, RENEW replaces the lock and answers NONE."""
    sp = build(version, default_record_lock_duration_ms=LOCK_MS)
    fetch(sp, 0, 1)
    lock = sp.lock_timers()[0]
    sp.sim.advance(40)
    assert sp.acknowledge(MEMBER_ID, [(0, 0, "RENEW")]) is Errors.NONE
    assert lock.cancelled and [t.time for t in sp.lock_timers()] == [40 + LOCK_MS]
    assert sp.state(0) == "ACQUIRED" and sp.owner(0) == MEMBER_ID


def test_an_acknowledgement_starting_below_the_cache_is_taken_from_spso():
    """`fetchSubMapForAcknowledgementBatch`: no cached batch at or below the first offset, but SPSO
    inside the request (`checkForStartOffsetWithinBatch`: first < SPSO <= last) -> the sub-map
    starts at the floor of SPSO. 0-9 accepted (SPSO 10, cache empty), 10-19 acquired; 5-10 (SPSO
    equal to the last offset) accepts 10 alone, then 3-12 accepts 11-12; an acknowledgement wholly
    below SPSO is skipped, and the next batch of the same call still applies."""
    sp = build()
    fetch(sp, 0, 10)
    assert sp.acknowledge(MEMBER_ID, [(0, 9, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.cached_batches()) == (10, [])
    fetch(sp, 10, 10)
    assert sp.acknowledge(MEMBER_ID, [(5, 10, "ACCEPT")]) is Errors.NONE
    assert sp.start_offset == 11
    assert offsets(sp, 10, 11) == {10: ("ACKNOWLEDGED", 1, ""), 11: ("ACQUIRED", 1, MEMBER_ID)}
    assert sp.acknowledge(MEMBER_ID, [(3, 12, "ACCEPT")]) is Errors.NONE
    assert sp.start_offset == 13
    assert sp.acknowledge(MEMBER_ID, [(0, 4, "ACCEPT"), (13, 14, "REJECT")]) is Errors.NONE
    assert sp.start_offset == 15
    assert offsets(sp, 13, 15) == {13: ("ARCHIVED", 1, ""), 14: ("ARCHIVED", 1, ""), 15: ("ACQUIRED", 1, MEMBER_ID)}


def test_with_a_dlq_gap_archives_without_the_dlq_and_a_release_at_the_limit_goes_with_its_cause():
    """4.4 (KIP-1191, `recordStateWithDlq`): only REJECT (cause "Offset rejected by client.") and a
    RELEASE at the delivery limit (ARCHIVING, cause "Offset delivery count exceeded the
    threshold.") go to the DLQ; GAP is ARCHIVED straight away and ACCEPT is ACKNOWLEDGED."""
    from kafkasim.coordinator.modern.share.partition import CLIENT_REJECT, DELIVERY_COUNT_EXCEEDED, DlqRecord
    sp = build("4.4", max_delivery_count=2, group_config=lambda: {"errors.deadletterqueue.topic.name": "dlq.t"})
    fetch(sp, 0, 4)
    assert sp.acknowledge(MEMBER_ID, [(0, 3, ["GAP", "ACCEPT", "RELEASE", "REJECT"])]) is Errors.NONE
    assert sp.dlq_records == [DlqRecord("test-group", "test-topic", 0, 3, 3, 1, CLIENT_REJECT)]
    assert sp.start_offset == 2  # 0 ARCHIVED and 1 ACKNOWLEDGED are terminal
    assert [sp.state(o) for o in (2, 3)] == ["AVAILABLE", "ARCHIVED"]
    assert sp.acquire(MEMBER_ID, None, fetch_offset=2, log_batches=[(2, 2)]) == [AR(2, 2, 2)]
    assert sp.acknowledge(MEMBER_ID, [(2, 2, "RELEASE")]) is Errors.NONE
    assert sp.dlq_records[1:] == [DlqRecord("test-group", "test-topic", 0, 2, 2, 2, DELIVERY_COUNT_EXCEEDED)]
    assert sp.start_offset == 4 and sp.cached_batches() == []


# -- acquire path: rules pinned for mutation testing (issue 29) ---
# Each expectation is worked out by hand from `SharePartition.java` (4.2.0) and the state classes,
# or replays the Kafka test its docstring names (`SharePartitionTest.java` at 4.2.0).
def test_an_empty_cache_has_nothing_in_flight_and_the_whole_limit_is_free():
    """`numInFlightRecords()`: 0 when `cachedState` is empty, else SPEO - SPSO + 1; 4.2's
    `lastOffsetAndMaxRecordsToAcquire` takes min(MaxRecords, limit - in flight). Limit 10, one-record
    log batches: a fresh partition takes exactly 0-9; once 0-9 are accepted the cache is empty again
    (SPSO = SPEO = 10) and the next read takes exactly 10-19."""
    sp = build(max_in_flight_records=10)
    assert sp.acquire(MEMBER_ID, 500, fetch_offset=0, log_batches=[(o, o) for o in range(20)]) == [AR(0, 9, 1)]
    assert (sp.start_offset, sp.end_offset, sp.cached_batches()) == (0, 9, [(0, 9)])
    assert sp.acknowledge(MEMBER_ID, [(0, 9, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.cached_batches()) == (10, 10, [])
    got = sp.acquire(MEMBER_ID, 500, fetch_offset=10, log_batches=[(o, o) for o in range(10, 30)])
    assert got == [AR(10, 19, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (10, 19, 20)


def test_at_the_in_flight_limit_a_fetch_in_between_takes_at_most_speo_minus_the_fetch_offset_plus_one():
    """`lastOffsetAndMaxRecordsToAcquire` (4.2): at the limit (0-9 in flight, limit 10) a fetch at
    or below SPEO takes min(MaxRecords, SPEO - fetchOffset + 1) records, up to SPEO. 5-9 released;
    a fetch at 7 reads the log batch 5-9 that holds 7: in record_limit mode that is 9 - 7 + 1 = 3
    records, 5-7 (on their second delivery), and 8-9 stay AVAILABLE."""
    sp = build(max_in_flight_records=10)
    assert fetch(sp, 0, 5) == [AR(0, 4, 1)]
    assert fetch(sp, 5, 5) == [AR(5, 9, 1)]
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "RELEASE")]) is Errors.NONE
    got = sp.acquire("member-2", 500, fetch_offset=7, log_batches=[(5, 9)], acquire_mode="record_limit")
    assert got == [AR(5, 7, 2)]
    assert offsets(sp, 5, 9) == {5: ("ACQUIRED", 2, "member-2"), 6: ("ACQUIRED", 2, "member-2"),
                                 7: ("ACQUIRED", 2, "member-2"), 8: ("AVAILABLE", 1, ""), 9: ("AVAILABLE", 1, "")}
    assert (sp.end_offset, sp.next_fetch_offset) == (9, 8)


def test_acquire_with_batch_size_and_max_fetch_records():
    """testAcquireWithBatchSizeAndMaxFetchRecords (4.2.0): log batches 0-4, 5-19, 20-34, BatchSize
    2, MaxRecords 10: the 10th record (9) is in 5-19, so 0-19 are acquired as 0-4 and 5-19; the log
    batch 20-34 past the last acquired offset ends the cutting and is not acquired."""
    sp = build()
    got = sp.acquire(MEMBER_ID, 10, fetch_offset=0, batch_size=2, log_batches=[(0, 4), (5, 19), (20, 34)])
    assert got == [AR(0, 4, 1), AR(5, 19, 1)]
    assert sp.next_fetch_offset == 20
    assert sp.cached_batches() == [(0, 4), (5, 19)] and sp.split_batches() == []
    assert offsets(sp, 4, 5) == {4: ("ACQUIRED", 1, MEMBER_ID), 5: ("ACQUIRED", 1, MEMBER_ID)}
    assert sp.state(20) is None


def test_acquire_with_batch_size_and_end_offset_larger_than_batch_first_offset():
    """testAcquireWithBatchSizeAndEndOffsetLargerThanBatchFirstOffset (4.2.0): SPSO = SPEO = 4 with
    nothing cached (Kafka's `updateCacheAndOffsets(4L)`; here `load_state(4, [])`), log batches
    2-9 and 10-16, BatchSize 5: acquisition starts at 4, and the chunk 4-9 is cut where 10-16 starts
    (10 - 4 >= 5), not at 2 (a log batch before the chunk's start): 4-9 and 10-16."""
    sp = build()
    sp.load_state(4, [])
    got = sp.acquire(MEMBER_ID, 100, fetch_offset=0, batch_size=5, log_batches=[(2, 9), (10, 16)])
    assert got == [AR(4, 9, 1), AR(10, 16, 1)]
    assert sp.next_fetch_offset == 17
    assert sp.cached_batches() == [(4, 9), (10, 16)]


def test_new_records_are_cut_only_where_a_chunk_holds_the_batch_size():
    """`createBatches` (4.1+): a new chunk starts at a log batch whose base offset is BatchSize or
    more past the current chunk's first offset. BatchSize 5: 0-4, 5-6, 7-9 give 0-4 and 5-9 (7 is
    only 2 past 5); 0-4, 5-5 give 0-4 and 5-5 (one record past the batch size, in a log batch
    starting at the last offset, still makes its own chunk)."""
    sp = build()
    got = sp.acquire(MEMBER_ID, None, fetch_offset=0, batch_size=5, log_batches=[(0, 4), (5, 6), (7, 9)])
    assert got == [AR(0, 4, 1), AR(5, 9, 1)]
    assert sp.cached_batches() == [(0, 4), (5, 9)]
    sp = build()
    assert sp.acquire(MEMBER_ID, None, fetch_offset=0, batch_size=5, log_batches=[(0, 4), (5, 5)]) == \
        [AR(0, 4, 1), AR(5, 5, 1)]
    assert sp.cached_batches() == [(0, 4), (5, 5)]


def released_twice(offset: int) -> SharePartition:
    """0-4 and 5-9 loaded AVAILABLE (count 1); `offset` alone acquired and released twice: count 3, its
    batch split."""
    sp = build()
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (5, 9, "AVAILABLE", 1)])
    for count in (2, 3):
        assert sp.acquire(MEMBER_ID, None, fetch_offset=offset, log_batches=[(offset, offset)]) == [
            AR(offset, offset, count)]
        assert sp.acknowledge(MEMBER_ID, [(offset, offset, "RELEASE")]) is Errors.NONE
    return sp


def test_throttling_counts_a_record_at_the_first_fetched_offset():
    """`shouldThrottleRecordsDelivery(batch, firstBatch.baseOffset(), lastOffsetToAcquire)` (4.2):
    only offsets below the first fetched one are left out, the first itself counts. Limit 5,
    threshold 3. 0-4 and 5-9 loaded AVAILABLE; 0 alone acquired and released twice (count 3, 0-4
    split). A fetch of 0-4, 5-9: 0-4 is throttled (max(1, 5 >> 1) = 2 records: 0 at count 4 and 1),
    and a throttled batch ends the acquisition: 5-9 are not taken."""
    sp = released_twice(0)
    got = sp.acquire("member-2", None, fetch_offset=0, log_batches=[(0, 4), (5, 9)])
    assert got == [AR(0, 0, 4), AR(1, 1, 2)]
    assert offsets(sp, 2, 5) == {2: ("AVAILABLE", 1, ""), 3: ("AVAILABLE", 1, ""), 4: ("AVAILABLE", 1, ""),
                                 5: ("AVAILABLE", 1, "")}


def test_throttling_counts_a_record_at_the_last_offset_to_acquire():
    """`shouldThrottleRecordsDelivery(batch, firstBatch.baseOffset(), lastOffsetToAcquire)` (4.2):
    only offsets past the last one to acquire are left out, the last itself counts. Limit 5,
    threshold 3. 0-4 and 5-9 loaded AVAILABLE; 7 alone acquired and released twice (count 3, 5-9
    split). A fetch of 0-4, 5-7 takes 0-4, then finds 5-9 throttled by 7 after records were
    acquired: the acquisition ends there and 5-7 wait for the next fetch."""
    sp = released_twice(7)
    got = sp.acquire("member-2", None, fetch_offset=0, log_batches=[(0, 4), (5, 7)])
    assert got == [AR(0, 4, 2)]
    assert offsets(sp, 5, 7) == {5: ("AVAILABLE", 1, ""), 6: ("AVAILABLE", 1, ""), 7: ("AVAILABLE", 3, "")}


def test_a_write_starting_where_a_persisted_batch_starts_leaves_no_remainder_before_it():
    """WriteShareGroupState overwrites the written range (`ShareCoordinatorShard` merges state
    batches): a write of 0-4 over 0-9 leaves 0-4 and 5-9, with no empty piece before 0 (the
    internal ranges are checked too, so an empty one cannot hide in a merge)."""
    from kafkasim.coordinator.modern.share.persisted import PersistedState
    p = PersistedState()
    p.put(0, 9, "AVAILABLE", 1)
    p.put(0, 4, "ACKNOWLEDGED", 1)
    assert p.batches() == [(0, 4, "ACKNOWLEDGED", 1), (5, 9, "AVAILABLE", 1)]
    assert (p.firsts, p.lasts) == ([0, 5], [4, 9])
    p.put(5, 7, "AVAILABLE", 1)  # same state and count: merged in `batches`, but a range of its own
    assert (p.firsts, p.lasts) == ([0, 5, 8], [4, 7, 9])
    assert p.batches() == [(0, 4, "ACKNOWLEDGED", 1), (5, 9, "AVAILABLE", 1)]


def test_trimming_below_the_first_persisted_batch_keeps_it_and_past_every_batch_leaves_nothing():
    """The start offset written drops the offsets below it only: a start below the first state
    batch (5-9 written while 0-4 are still ACQUIRED, never persisted) leaves 5-9 as they are; a
    start past every batch empties the state."""
    from kafkasim.coordinator.modern.share.persisted import PersistedState
    p = PersistedState()
    p.put(5, 9, "AVAILABLE", 1)
    p.trim(0)
    assert p.batches() == [(5, 9, "AVAILABLE", 1)]
    p.trim(10)
    assert p.batches() == []


def test_the_persisted_state_starts_at_the_first_written_batch_not_at_spso():
    """`persisted_state()` through the share partition: 0-4 and 5-9 acquired, 5-9 released (one
    write, SPSO 0): the share coordinator holds SPSO 0 and the one state batch 5-9, AVAILABLE at
    count 1; 0-4, ACQUIRED, were never written."""
    sp = build()
    fetch(sp, 0, 5)
    fetch(sp, 5, 5)
    assert sp.acknowledge(MEMBER_ID, [(5, 9, "RELEASE")]) is Errors.NONE
    assert sp.persisted_state() == (0, [(5, 9, "AVAILABLE", 1)])


def test_spso_inside_the_second_batch_removes_the_first_whatever_its_first_offset():
    """`maybeUpdateCachedStateAndOffsets`: SPSO moving inside a batch removes every batch before it
    (`subMap(firstKey, lowerKey(entry))`), here the first one starting at 1. 1-4 and 5-9 acquired
    (SPSO 1, the first acquired offset), 5-6 then 1-4 accepted: SPSO 7, only 5-9 stays cached."""
    sp = build()
    assert fetch(sp, 1, 4) == [AR(1, 4, 1)]
    assert fetch(sp, 5, 5) == [AR(5, 9, 1)]
    assert sp.start_offset == 1
    assert sp.acknowledge(MEMBER_ID, [(5, 6, "ACCEPT")]) is Errors.NONE
    assert sp.acknowledge(MEMBER_ID, [(1, 4, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.cached_batches()) == (7, 9, [(5, 9)])
    assert (sp.state(4), sp.state(7)) == (None, "ACQUIRED")


# -- acquire path and read gap: rules pinned for mutation testing (issue 29), second batch ---
# Each expectation replays the Kafka test its docstring names (`SharePartitionTest.java` at the tag
# given), or is worked out by hand from `SharePartition.java` at that tag. Kafka's
# `persisterReadResultGapWindow()` (4.2; `initialReadGapOffset()` in 4.1) is read as `sp._gap`,
# [endOffset, gapStartOffset], None when the window is gone.
def test_batch_size_defaults_to_500():
    """`SharePartitionTest.BATCH_SIZE` = 500 (4.2.0): without a batch size, new records are cut
    at a log batch starting 500 past the chunk's first offset, and not at one starting 499 past it
    (limit 2000 in flight, so the whole read is taken)."""
    sp = build(max_in_flight_records=2000)
    assert sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 499), (500, 509)]) == \
        [AR(0, 499, 1), AR(500, 509, 1)]
    sp = build(max_in_flight_records=2000)
    assert sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 498), (499, 509)]) == [AR(0, 509, 1)]


@pytest.mark.parametrize("version, mode, valid", [
    ("4.2", "bogus", "batch_optimized, record_limit"),
    ("4.1", "record_limit", "batch_optimized"),
    ("4.0", "bogus", "batch_optimized"),
])
def test_an_unknown_acquire_mode_names_the_modes_of_the_version(version, mode, valid):
    """`share.acquire.mode` is a `ConfigDef.ValidString` (KIP-1206, 4.2): Kafka's ConfigException
    "Invalid value <v> for configuration share.acquire.mode: String must be one of: " + the valid
    strings joined by ", ". Before 4.2 only batch_optimized exists (kafkasim adds the version)."""
    with pytest.raises(ConfigError) as refused:
        build(version).acquire(MEMBER_ID, 5, log_batches=[(0, 9)], acquire_mode=mode)
    assert str(refused.value) == (f"Invalid value {mode!r} for configuration share.acquire.mode in Kafka "
                                  f"{version}: String must be one of: {valid}")


def test_a_batch_size_below_one_is_refused_naming_it():
    """BatchSize is a count of records >= 1 (kafkasim's input check, named after the parameter)."""
    with pytest.raises(ConfigError) as refused:
        build().acquire(MEMBER_ID, 5, log_batches=[(0, 9)], batch_size=0)
    assert str(refused.value) == "batch_size must be an integer >= 1, got 0"


def test_at_the_in_flight_limit_a_fetch_past_speo_acquires_nothing_even_from_the_gap():
    """`lastOffsetAndMaxRecordsToAcquire` (4.2): at the limit, a fetch offset past SPEO keeps
    maxRecordsToAcquire at 0, and `acquire` returns empty (`maxRecords() <= 0`). SPSO 10, 15-20
    ACKNOWLEDGED loaded (gap 10-14, 11 in flight = the limit), fetch offset 21 (the read need not
    hold it, as in testAcquireWithBatchSizeAndEndOffsetLargerThanBatchFirstOffset) with the log
    batch 5-12: nothing is acquired, not even the gap's 10-12."""
    sp = build(max_in_flight_records=11)
    sp.load_state(10, [(15, 20, "ACKNOWLEDGED", 1)])
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (10, 20, 10)
    assert sp.acquire(MEMBER_ID, None, fetch_offset=21, log_batches=[(5, 12)]) == []
    assert (sp.cached_batches(), sp.state(10), sp._gap) == ([(15, 20)], None, [20, 10])


def test_a_read_starting_at_the_last_offset_of_a_cached_batch_works_on_that_batch():
    """`acquire` (4.2): `floorEntry.lastOffset() >= baseOffset` moves the base offset back to the
    cached batch, so the read is taken on the cached boundaries. 0-4 acquired and released; a read
    of 4-9: 4 is taken from 0-4 (split, second delivery), 5-9 are new; 0-3 stay AVAILABLE."""
    sp = build()
    assert fetch(sp, 0, 5) == [AR(0, 4, 1)]
    assert sp.acknowledge(MEMBER_ID, [(0, 4, "RELEASE")]) is Errors.NONE
    assert sp.acquire(MEMBER_ID, None, fetch_offset=4, log_batches=[(4, 9)]) == [AR(4, 4, 2), AR(5, 9, 1)]
    assert sp.cached_batches() == [(0, 4), (5, 9)] and sp.split_batches() == [(0, 4)]
    assert offsets(sp, 3, 4) == {3: ("AVAILABLE", 1, ""), 4: ("ACQUIRED", 2, MEMBER_ID)}
    assert (sp.end_offset, sp.next_fetch_offset) == (9, 0)


@pytest.mark.parametrize("version", ["4.1", "4.2"])
@pytest.mark.parametrize("spso, log_batches, expected", [
    (8, [(5, 14)], [AR(8, 14, 1)]),
    (4, [(2, 9), (10, 16)], [AR(4, 9, 1), AR(10, 16, 1)]),
    (12, [(2, 9), (10, 16)], [AR(12, 16, 1)]),
])
def test_acquire_with_batch_size_and_end_offset_larger_than_batch_first_offset_per_version(
        version, spso, log_batches, expected):
    """testAcquireSingleBatchWithBatchSizeAndEndOffsetLargerThanBatchFirstOffset,
    testAcquireWithBatchSizeAndEndOffsetLargerThanBatchFirstOffset and
    testAcquireBatchSkipWithBatchSizeAndEndOffsetLargerThanFirstBatch (4.1; 4.1's
    `memoryRecordsBuilder(buffer, count, start)`): SPSO = SPEO moved with nothing cached
    (`updateCacheAndOffsets`; here `load_state(spso, [])`), BatchSize 5, MaxRecords 100. 4.1 has no
    start adjustment in `acquire`: `acquireNewBatchRecords` starts at SPEO when the cache is empty
    and SPEO is past the first offset; 4.2 gets there by the base offset adjustment."""
    sp = build(version)
    sp.load_state(spso, [])
    assert sp.acquire(MEMBER_ID, 100, fetch_offset=0, batch_size=5, log_batches=log_batches) == expected
    assert sp.next_fetch_offset == expected[-1].last_offset + 1
    assert sp.cached_batches() == [(r.first_offset, r.last_offset) for r in expected]


def test_acquire_when_records_fetched_from_gap_and_max_fetch_records_is_exceeded():
    """testAcquireWhenRecordsFetchedFromGapAndMaxFetchRecordsIsExceeded (4.2.0): SPSO 11, 11-20
    ACKNOWLEDGED and 31-40 ARCHIVED (SPSO moves to the gap start 21); log batches 21-23, 24-26,
    27-28, MaxRecords 6: 21-26, the batch holding the 6th record. Then, by hand (4.2's
    `findLastOffsetAcknowledged` stops at a batch reaching the gap start): accepting 21-26 moves SPSO
    to the gap start 27, not past the unfetched 27-30."""
    sp = build()
    sp.load_state(11, [(11, 20, "ACKNOWLEDGED", 2), (31, 40, "ARCHIVED", 1)])
    assert sp.delivery_complete_count == 10
    got = sp.acquire(MEMBER_ID, 6, fetch_offset=0, log_batches=[(21, 23), (24, 26), (27, 28)])
    assert got == [AR(21, 26, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (21, 40, 27)
    assert sp._gap == [40, 27]
    assert sp.acknowledge(MEMBER_ID, [(21, 26, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.cached_batches(), sp.next_fetch_offset) == (27, [(31, 40)], 27)


@pytest.mark.parametrize("version, acquired, gap", [("4.1", (10, 49), None), ("4.2", (10, 14), [30, 15])])
def test_maybe_initialize_and_acquire_stops_at_the_first_cached_batch_from_4_2(version, acquired, gap):
    """testMaybeInitializeAndAcquire (4.2.0), its first acquisition: state read at SPSO 10 with 15-18
    AVAILABLE, 20-22 ARCHIVED and 26-30 AVAILABLE; one log batch 10-49 and MaxRecords 1. The log batch
    holding offset 10 ends at 49; KAFKA-19632 (4.2) cuts the acquisition at the gap's end, 14. 4.1
    takes the whole log batch over the cached 15-18 (the overlap that Jira fixed), its end offset moves
    to 49 and the gap window is dropped."""
    sp = build(version)
    sp.load_state(10, [(15, 18, "AVAILABLE", 2), (20, 22, "ARCHIVED", 2), (26, 30, "AVAILABLE", 1)])
    assert sp.acquire(MEMBER_ID, 1, fetch_offset=10, log_batches=[(10, 49)]) == [AR(*acquired, 1)]
    assert sp.cached_batches() == [acquired, (15, 18), (20, 22), (26, 30)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset, sp._gap) == (10, max(30, acquired[1]), 15, gap)

def test_acquire_gap_at_beginning_and_records_fetched_from_gap_updates_the_gap_window():
    """testAcquireGapAtBeginningAndRecordsFetchedFromGap (4.2.0), its GapWindow asserts: 11-15
    acquired from the gap 11-20, the gap start is 16 and the window's end 40."""
    sp = build()
    sp.load_state(11, [(21, 30, "ACKNOWLEDGED", 2), (31, 40, "ARCHIVED", 1)])
    assert fetch(sp, 11, 5) == [AR(11, 15, 1)]
    assert sp._gap == [40, 16]


def test_acquire_gap_at_beginning_and_fetched_records_overlap_in_flight_batches():
    """testAcquireGapAtBeginningAndFetchedRecordsOverlapInFlightBatches (4.2.0): gap 11-20 before
    21-30 ACKNOWLEDGED and 31-40 ARCHIVED; a read of 11-25 acquires the gap alone; next fetch 41,
    gap start 21."""
    sp = build()
    sp.load_state(11, [(21, 30, "ACKNOWLEDGED", 2), (31, 40, "ARCHIVED", 1)])
    assert fetch(sp, 11, 15) == [AR(11, 20, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (11, 40, 41)
    assert sp.delivery_complete_count == 20 and sp._gap == [40, 21]


def test_acquire_gap_at_beginning_and_fetched_records_include_gap_offsets_at_end():
    """testAcquireGapAtBeginningAndFetchedRecordsIncludeGapOffsetsAtEnd (4.2.0): gaps 11-20,
    31-40, 51-60, 71-80 between 21-30 ACKNOWLEDGED, 41-50 AVAILABLE, 61-70 ARCHIVED, 81-90
    AVAILABLE; a read of 11-75 takes every gap, 41-50 (its second delivery) and
    71-75; gap start 76."""
    sp = build()
    sp.load_state(11, [(21, 30, "ACKNOWLEDGED", 2), (41, 50, "AVAILABLE", 1), (61, 70, "ARCHIVED", 1),
                       (81, 90, "AVAILABLE", 1)])
    assert fetch(sp, 11, 65) == [AR(11, 20, 1), AR(31, 40, 1), AR(41, 50, 2), AR(51, 60, 1), AR(71, 75, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (11, 90, 76)
    assert sp.delivery_complete_count == 20 and sp._gap == [90, 76]


def test_acquire_when_records_fetched_after_gaps_are_fetched():
    """testAcquireWhenRecordsFetchedAfterGapsAreFetched (4.2.0): 21-30 from the gap (gap start 31),
    then 41-55 past SPEO: SPEO moves, the window is gone, the next fetch is 56."""
    sp = build()
    sp.load_state(11, [(11, 20, "ACKNOWLEDGED", 2), (31, 40, "ARCHIVED", 1)])
    assert fetch(sp, 21, 15) == [AR(21, 30, 1)]
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset, sp._gap) == (21, 40, 41, [40, 31])
    assert fetch(sp, 41, 15) == [AR(41, 55, 1)]
    assert (sp.start_offset, sp.end_offset, sp._gap) == (21, 55, None)
    assert sp.next_fetch_offset == 56


def test_a_gap_cut_by_max_records_ends_where_the_cached_batch_starts_not_where_its_log_batch_ends():
    """`acquireNewBatchRecords` (4.2): with the gap window active, the last offset of the log batch
    holding the MaxRecords-th record is cut back to the gap's last offset (Kafka's own example: gap
    window 10-30, persisted 15-30, one log batch 10-30, MaxRecords 1: 10-14, not 10-30). 15-30
    stays AVAILABLE and is the next fetch, the gap start is 15."""
    sp = build()
    sp.load_state(10, [(15, 30, "AVAILABLE", 1)])
    assert sp.acquire(MEMBER_ID, 1, fetch_offset=10, log_batches=[(10, 30)]) == [AR(10, 14, 1)]
    assert sp.cached_batches() == [(10, 14), (15, 30)]
    assert offsets(sp, 15, 15) == {15: ("AVAILABLE", 1, "")}
    assert (sp.end_offset, sp.next_fetch_offset, sp._gap) == (30, 15, [30, 15])


@pytest.mark.parametrize("version, gap, second", [
    ("4.1", [14, 15], [AR(0, 4, 2), AR(5, 9, 1), AR(10, 14, 3)]),
    ("4.2", None, [AR(0, 4, 2), AR(10, 14, 3)]),
])
def test_acquiring_the_last_cached_batch_of_the_window_closes_it_from_4_2(version, gap, second):
    """`maybeUpdatePersisterGapWindowStartOffset` (4.2) sets the gap start only up to the window's
    end: acquiring the window's last cached batch (gap start SPEO + 1) drops the window, and a hole
    left before it is not fetched any more; 4.1's `maybeUpdateReadGapFetchOffset` sets any offset
    and keeps the window. 0-4 and 10-14 loaded AVAILABLE (hole 5-9); a fetch at 10 takes 10-14;
    released, a read of 0-14 then takes the hole in 4.1 only."""
    sp = build(version)
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (10, 14, "AVAILABLE", 1)])
    assert sp.acquire(MEMBER_ID, None, fetch_offset=10, log_batches=[(10, 14)]) == [AR(10, 14, 2)]
    assert sp._gap == gap
    assert sp.acknowledge(MEMBER_ID, [(10, 14, "RELEASE")]) is Errors.NONE
    assert sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 4), (5, 9), (10, 14)]) == second
    assert sp.state(5) == ("ACQUIRED" if version == "4.1" else None)


def test_a_gap_start_at_the_window_end_keeps_the_window_and_spso_before_it():
    """`maybeUpdatePersisterGapWindowStartOffset` (4.2): a gap start equal to the window's end
    (`offset <= endOffset`) is kept. 0-4 AVAILABLE and 10 ARCHIVED loaded (hole 5-9, window end
    10); a read of 0-9 takes 0-4 and the hole: gap start 10. Accepting 0-9 moves SPSO to 10 only:
    `findLastOffsetAcknowledged` stops at 10-10, whose last offset reaches the gap start."""
    sp = build()
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (10, 10, "ARCHIVED", 1)])
    assert sp.acquire(MEMBER_ID, None, fetch_offset=0, log_batches=[(0, 4), (5, 9)]) == [AR(0, 4, 2), AR(5, 9, 1)]
    assert sp._gap == [10, 10]
    assert sp.acknowledge(MEMBER_ID, [(0, 9, "ACCEPT")]) is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.cached_batches()) == (10, 10, [(10, 10)])


def test_max_records_cut_at_the_log_batch_holding_the_last_record_even_two_before_the_end():
    """`acquireNewBatchRecords`: `maxFetchRecords < lastOffset - firstOffset + 1` cuts at the log
    batch holding the MaxRecords-th record. Log batches 0-4, 5-5, 6-6, MaxRecords 5: 0-4; with
    MaxRecords 6: 0-5."""
    sp = build()
    assert sp.acquire(MEMBER_ID, 5, fetch_offset=0, log_batches=[(0, 4), (5, 5), (6, 6)]) == [AR(0, 4, 1)]
    assert sp.end_offset == 4
    sp = build()
    assert sp.acquire(MEMBER_ID, 6, fetch_offset=0, log_batches=[(0, 4), (5, 5), (6, 6)]) == [AR(0, 5, 1)]


def test_acquire_batch_prior_to_start_offset():
    """testAcquireBatchPriorToStartOffset (4.2.0): SPSO 5, 5-99 AVAILABLE loaded; a read of 0-4
    (record_limit, BatchSize 10, MaxRecords 10) ends before SPSO: nothing acquired, nothing changed."""
    sp = build()
    sp.load_state(5, [(5, 99, "AVAILABLE", 1)])
    assert sp.acquire(MEMBER_ID, 10, fetch_offset=0, batch_size=10, log_batches=[(0, 4)],
                      acquire_mode="record_limit") == []
    assert (sp.next_fetch_offset, sp.start_offset, sp.cached_batches()) == (5, 5, [(5, 99)])
    assert offsets(sp, 5, 5) == {5: ("AVAILABLE", 1, "")} and sp.split_batches() == []


def test_acquire_batch_with_moved_start_offset_and_no_overlap_with_cached_batch():
    """testAcquireBatchWithMovedStartOffsetAndNoOverlapWithCachedBatch (4.2.0): SPSO 5, 15-20
    ARCHIVED loaded (gap window, gap start 5); a read of 0-9 (record_limit, BatchSize 10,
    MaxRecords 10, fetch offset 5) starts at SPSO: 5-9 acquired, never 0-4; gap start 10."""
    sp = build()
    sp.load_state(5, [(15, 20, "ARCHIVED", 1)])
    assert (sp.next_fetch_offset, sp.start_offset, sp.cached_batches(), sp._gap) == (5, 5, [(15, 20)], [20, 5])
    got = sp.acquire(MEMBER_ID, 10, fetch_offset=5, batch_size=10, log_batches=[(0, 9)], acquire_mode="record_limit")
    assert got == [AR(5, 9, 1)]
    assert (sp.cached_batches(), sp.next_fetch_offset, sp.start_offset, sp._gap) == ([(5, 9), (15, 20)], 10, 5, [20, 10])
    assert sp.state(4) is None
