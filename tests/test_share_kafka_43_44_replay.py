"""Kafka 4.3 and 4.4 share-group behaviour replayed from Kafka's own tests, each on both sides of its
version boundary: `SharePartitionTest` (core/src/test/java/kafka/server/share/), `SimpleAssignorTest`
(group-coordinator/.../assignor/; unchanged from 4.2 to 4.4, as SimpleAssignor.java and the
Simple{Homogeneous,Heterogeneous}AssignmentBuilder), `GroupMetadataManagerTest` (GMMT) and
`GroupConfigTest`, read at confluentinc/kafka branches 4.3 (v8.3.x = Apache 4.3) and 4.4.

GMMT drives its heartbeats with a `MockPartitionAssignor` that returns a prepared assignment; kafkasim
runs the real `simple` assignor, so where the prepared assignment differs the docstring gives the
simple assignor's (worked out by hand from its quotas) and seeds initialized partitions with
`load_share_group`, as the mock ignores initialization. Each test names the Kafka method and branch.
"""

from __future__ import annotations

import pytest

from kafkasim import Errors, GroupCoordinator, Simulation
from kafkasim.coordinator.assignor import SimpleAssignor, simple_share_assign
from kafkasim.coordinator.modern.share import AcquiredRecords, SharePartition
from kafkasim.coordinator.modern.share.partition import CLIENT_REJECT, DELIVERY_COUNT_EXCEEDED, DlqRecord
from kafkasim.core.errors import ConfigError

DLQ = {"errors.deadletterqueue.topic.name": "dlq.orders"}  # SPT's configProviderWithDlqTopic()


def partition(version="4.4", config=None, sim=None, **kw) -> SharePartition:
    overrides = dict(config or {})
    return SharePartition(sim or Simulation(seed=0), "group-1", "t", 0, kafka_version=version,
                          group_config=lambda: overrides, **kw)


# == SharePartitionTest: the dead-letter queue (KIP-1191, branch 4.4) ===========================
def reject_first_of_two(sp: SharePartition) -> None:
    assert sp.acquire("member-1", 5, fetch_offset=5, log_batches=[(5, 9)]) == [AcquiredRecords(5, 9, 1)]
    assert sp.acquire("member-1", 5, fetch_offset=10, log_batches=[(10, 14)]) == [AcquiredRecords(10, 14, 1)]
    assert sp.acknowledge("member-1", [(5, 9, "REJECT")]) is Errors.NONE
    # the rejected batch leaves the cache, the second stays ACQUIRED, SPSO moves past it
    assert (sp.cached_batches(), sp.state(10), sp.start_offset, sp.delivery_complete_count) == \
        ([(10, 14)], "ACQUIRED", 10, 0)


def test_acknowledge_reject_with_dlq_enabled():
    """SharePartitionTest.testAcknowledgeRejectWithDlqEnabled (branch 4.4): one enqueue of 5-9, cause
    CLIENT_REJECT; the two-phase flow writes twice (ARCHIVING, then ARCHIVED)."""
    sp = partition(config=DLQ)
    reject_first_of_two(sp)
    assert sp.dlq_records == [DlqRecord("group-1", "t", 0, 5, 9, 1, CLIENT_REJECT)]
    assert CLIENT_REJECT == "Offset rejected by client."
    assert sp.stats["write_share_group_state"] == 2


@pytest.mark.parametrize("version, share_version, config", [
    ("4.4", 1, DLQ),   # testAcknowledgeRejectWithDlqDisabled: the supplier (share.version >= 2) says no
    ("4.4", 2, {}),    # testAcknowledgeRejectWithDlqSupplierEnabledButNoDlqTopicConfigured
    ("4.3", None, {}),  # the other side of the boundary: no DLQ before 4.4
])
def test_acknowledge_reject_without_an_effective_dlq(version, share_version, config):
    """SharePartitionTest.testAcknowledgeRejectWithDlqDisabled and
    ...WithDlqSupplierEnabledButNoDlqTopicConfigured (branch 4.4): straight to ARCHIVED, never enqueued."""
    sp = partition(version, config, share_version=share_version)
    reject_first_of_two(sp)
    assert sp.dlq_records == [] and sp.stats["write_share_group_state"] == 1


@pytest.mark.parametrize("config, enqueued", [({}, []), (DLQ, [DlqRecord("group-1", "t", 0, 10, 14, 2,
                                                                             DELIVERY_COUNT_EXCEEDED)])])
def test_release_at_the_delivery_limit(config, enqueued):
    """SharePartitionTest.testReleaseAcquiredRecordsMaxDeliveryWithDlqSupplierEnabledButNoDlqTopicConfigured
    (branch 4.4), and the same with a DLQ topic: limit 2, 10-14 released at count 2 is ARCHIVED as a
    whole batch (no per-offset state), enqueued only when the group names a DLQ topic."""
    sp = partition(config=config, max_delivery_count=2)
    sp.acquire("member-1", 10, log_batches=[(0, 9)])
    sp.acquire("member-1", 5, fetch_offset=10, log_batches=[(10, 14)])
    sp.acknowledge("member-1", [(10, 14, "RELEASE")])
    assert sp.acquire("member-1", 5, fetch_offset=10, log_batches=[(10, 14)]) == [AcquiredRecords(10, 14, 2)]
    assert sp.release_all("member-1") is Errors.NONE
    assert sp.cached_batches() == [(0, 9), (10, 14)] and sp.state(10) == "ARCHIVED"
    assert sp.split_batches() == []
    assert sp.dlq_records == enqueued


def test_acquisition_lock_timeout_with_dlq_enabled_complete_batch():
    """SharePartitionTest.testAcquisitionLockTimeoutWithDlqEnabledCompleteBatch (branch 4.4): limit 2;
    the first expiry makes both batches AVAILABLE (count 1); 0-9 re-acquired (count 2) expires again:
    archived, enqueued once (DELIVERY_COUNT_EXCEEDED), evicted; SPSO 10; 10-19 stays AVAILABLE."""
    sim = Simulation(seed=0)
    sp = partition(config=DLQ, sim=sim, max_delivery_count=2, default_record_lock_duration_ms=100)
    sp.acquire("member-1", 10, log_batches=[(0, 9)])
    sp.acquire("member-1", 10, fetch_offset=10, log_batches=[(10, 19)])
    assert len(sp.lock_timers()) == 2
    sim.advance(100)
    assert [(sp.state(o), sp.delivery_count(o)) for o in (0, 10)] == [("AVAILABLE", 1), ("AVAILABLE", 1)]
    assert sp.lock_timers() == [] and sp.delivery_complete_count == 0
    assert sp.acquire("member-1", 10, fetch_offset=0, log_batches=[(0, 9)]) == [AcquiredRecords(0, 9, 2)]
    assert len(sp.lock_timers()) == 1
    sim.advance(100)
    assert (sp.cached_batches(), sp.start_offset, sp.delivery_complete_count, sp.state(10)) == \
        ([(10, 19)], 10, 0, "AVAILABLE")
    assert sp.dlq_records == [DlqRecord("group-1", "t", 0, 0, 9, 2, DELIVERY_COUNT_EXCEEDED)]
    assert DELIVERY_COUNT_EXCEEDED == "Offset delivery count exceeded the threshold."


def test_the_coordinator_checks_the_dlq_topic_as_validate_dlq_topic():
    """`ShareGroupDLQStateManager.validateDlqTopic` (branch 4.4): the record is archived whatever the
    DLQ write does ("Failed to write to DLQ, proceeding to ARCHIVED regardless.")."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.4", topics={"t": 1, "dlq.orders": 1, "orders": 1})
    sp = coord.share_partition("g", "t", 0)
    coord.set_group_config("g", {"errors.deadletterqueue.topic.name": "missing"})
    sp.acquire("m", 1, log_batches=[(0, 0)])
    sp.acknowledge("m", [(0, 0, "REJECT")])
    assert coord.share_groups.dlq_failures[-1][1] == \
        "DLQ topic does not exist and auto create is disabled on cluster for share group: g, topic: missing."
    coord.set_group_config("g", {"errors.deadletterqueue.topic.name": "orders"})
    sp.acquire("m", 1, log_batches=[(1, 1)])
    sp.acknowledge("m", [(1, 1, "REJECT")])
    assert coord.share_groups.dlq_failures[-1][1] == ("Configured DLQ topic name does not comply with the DLQ "
                                                      "topic prefix in share group: g, topic: orders, prefix: dlq..")  # Kafka's "prefix: %s."
    coord.set_group_config("g", {"errors.deadletterqueue.topic.name": "dlq.orders"})
    sp.acquire("m", 1, log_batches=[(2, 2)])
    sp.acknowledge("m", [(2, 2, "REJECT")])
    assert coord.share_groups.dlq_topics == {"dlq.orders": [DlqRecord("g", "t", 0, 2, 2, 1, CLIENT_REJECT)]}
    assert (sp.dlq_failures, sp.start_offset, [sp.state(o) for o in range(3)]) == (2, 3, [None, None, None])
    auto = GroupCoordinator(Simulation(seed=0), kafka_version="4.4", topics={"t": 1},
                            errors_deadletterqueue_auto_create_topics_enable=True,
                            errors_deadletterqueue_topic_name_prefix="")
    auto.set_group_config("g", {"errors.deadletterqueue.topic.name": "anything"})
    sp = auto.share_partition("g", "t", 0)
    sp.acquire("m", 1, log_batches=[(0, 0)])
    sp.acknowledge("m", [(0, 0, "REJECT")])
    assert list(auto.share_groups.dlq_topics) == ["anything"]


# A state read at initialization with batches left ARCHIVING (KAFKA-20672, branch 4.4): each goes to the DLQ
# again, its cause by its delivery count (DEFAULT_MAX_DELIVERY_COUNT is 5), then ARCHIVED with one write.
def test_maybe_initialize_archiving_state_with_dlq_enabled():
    """testMaybeInitializeArchivingStateWithDlqEnabled: AVAILABLE 5-9 pins SPSO, ARCHIVING 10-14 at
    the limit is produced with DELIVERY_COUNT_EXCEEDED and archived: 5 records complete."""
    sp = partition(config=DLQ)
    sp.load_state(5, [(5, 9, "AVAILABLE", 2), (10, 14, "ARCHIVING", 5)])
    assert [(sp.state(o), sp.delivery_count(o)) for o in (5, 10)] == [("AVAILABLE", 2), ("ARCHIVED", 5)]
    assert (sp.start_offset, sp.end_offset, sp.delivery_complete_count) == (5, 14, 5)
    assert sp.dlq_records == [DlqRecord("group-1", "t", 0, 10, 14, 5, DELIVERY_COUNT_EXCEEDED)]
    assert sp.stats["write_share_group_state"] == 1


@pytest.mark.parametrize("share_version, config, writer", [(1, {}, None), (2, DLQ, lambda record: "DLQ enqueue failed")],
                         ids=["testMaybeInitializeArchivingStateWithDlqDisabled",
                              "testMaybeInitializeArchivingStateDlqEnqueueFailure"])
def test_maybe_initialize_archiving_state_archives_whatever_the_dlq_does(share_version, config, writer):
    """ARCHIVING 0-4 at SPSO 0, the DLQ now off (share.version 1, no topic: `validateDlqTopic` fails
    the produce) or its produce failing: archived regardless, SPSO moves past it, the cache empties."""
    sp = partition(config=config, share_version=share_version, dlq_writer=writer)
    sp.load_state(0, [(0, 4, "ARCHIVING", 2)])
    assert (sp.cached_batches(), sp.start_offset, sp.end_offset, sp.delivery_complete_count) == ([], 5, 5, 0)
    assert (sp.dlq_records, sp.dlq_failures, sp.stats["write_share_group_state"]) == ([], 1, 1)


def test_maybe_initialize_multiple_archiving_states():
    """testMaybeInitializeMultipleArchivingStates: 5-9 (count 2) goes with CLIENT_REJECT, 10-14 (count
    5) with DELIVERY_COUNT_EXCEEDED; AVAILABLE 0-4 keeps them cached; one write each."""
    sp = partition(config=DLQ)
    sp.load_state(0, [(0, 4, "AVAILABLE", 1), (5, 9, "ARCHIVING", 2), (10, 14, "ARCHIVING", 5)])
    assert [sp.state(o) for o in (0, 5, 10)] == ["AVAILABLE", "ARCHIVED", "ARCHIVED"]
    assert (sp.start_offset, sp.end_offset, sp.delivery_complete_count) == (0, 14, 10)
    assert sp.dlq_records == [DlqRecord("group-1", "t", 0, 5, 9, 2, CLIENT_REJECT),
                              DlqRecord("group-1", "t", 0, 10, 14, 5, DELIVERY_COUNT_EXCEEDED)]
    assert sp.stats["write_share_group_state"] == 2


def test_before_4_4_no_state_is_archiving():
    """RecordState.ARCHIVING is 4.4's: an earlier state holding it is refused, naming what may be read."""
    with pytest.raises(ConfigError) as raised:
        partition("4.3").load_state(0, [(0, 4, "ARCHIVING", 2)])
    assert str(raised.value) == ("load_state: state 'ARCHIVING' of 0-4 is not persisted; valid: AVAILABLE, "
                                 "ACKNOWLEDGED, ARCHIVED (ACQUIRED is never written)")

def test_share_version_2_is_4_4s():
    """ShareVersion.SV_2 (branch 4.4: "Version 2 adds supports for DLQ (KIP-1191)", LATEST_PRODUCTION)."""
    assert partition("4.4").share_version == 2 and partition("4.3").share_version == 1
    with pytest.raises(ConfigError, match="share.version"):
        partition("4.3", share_version=2)
    with pytest.raises(ConfigError, match="share.version"):
        GroupCoordinator(Simulation(seed=0), kafka_version="4.2", share_version=2)


def test_acknowledge_per_offset_reject_with_dlq_enabled():
    """SharePartitionTest.testAcknowledgePerOffsetRejectWithDlqEnabled (branch 4.4): ACCEPT 0-2, REJECT
    3-4 per offset: the batch leaves the cache, SPSO 5, each rejected offset enqueued on its own."""
    sp = partition(config=DLQ)
    sp.acquire("member-1", 5, log_batches=[(0, 4)])
    sp.acquire("member-1", 5, fetch_offset=5, log_batches=[(5, 9)])
    assert sp.acknowledge("member-1", [(0, 4, ["ACCEPT", "ACCEPT", "ACCEPT", "REJECT", "REJECT"])]) is Errors.NONE
    assert (sp.cached_batches(), sp.state(5), sp.start_offset, sp.delivery_complete_count) == \
        ([(5, 9)], "ACQUIRED", 5, 0)
    assert [(r.first_offset, r.last_offset, r.cause) for r in sp.dlq_records] == \
        [(3, 3, CLIENT_REJECT), (4, 4, CLIENT_REJECT)]


def test_acquisition_lock_timeout_with_dlq_enabled_mixed_offsets():
    """SharePartitionTest.testAcquisitionLockTimeoutWithDlqEnabledMixedOffsets (branch 4.4): limit 2;
    0-9 expire once; 0-4 re-acquired (the batch splits) and accepted; 5-9 re-acquired at count 2
    expire: archived per offset, five enqueues; the batch leaves the cache."""
    sim = Simulation(seed=0)
    sp = partition(config=DLQ, sim=sim, max_delivery_count=2, default_record_lock_duration_ms=100)
    sp.acquire("member-1", 10, log_batches=[(0, 9)])
    sim.advance(100)
    assert (sp.state(0), sp.delivery_count(0), sp.lock_timers()) == ("AVAILABLE", 1, [])
    assert sp.acquire("member-1", 5, fetch_offset=0, log_batches=[(0, 4)]) == [AcquiredRecords(0, 4, 2)]
    assert sp.acknowledge("member-1", [(0, 4, ["ACCEPT"] * 5)]) is Errors.NONE
    assert sp.acquire("member-1", 5, fetch_offset=5, log_batches=[(5, 9)]) == [AcquiredRecords(5, 9, 2)]
    sim.advance(100)
    assert (sp.cached_batches(), sp.lock_timers(), sp.start_offset) == ([], [], 10)
    assert [(r.first_offset, r.delivery_count, r.cause) for r in sp.dlq_records] == \
        [(o, 2, DELIVERY_COUNT_EXCEEDED) for o in range(5, 10)]


# == SharePartitionTest: group-level limits (KIP-1240, branch 4.3) =================================
@pytest.mark.parametrize("version, expected", [("4.3", (8, 5000)), ("4.2", (5, 2000))])
def test_group_limits_are_read_from_the_group_config(version, expected):
    """SharePartitionTest.testMaxDeliveryCountUsesGroupConfigWhenPresent and
    testMaxInFlightRecordsUsesGroupConfigWhenPresent (branch 4.3): the group's 8 and 5000 over the
    builder's 5 and 2000; 4.2 reads no such group config."""
    sp = partition(version, {"share.delivery.count.limit": 8, "share.partition.max.record.locks": 5000},
                   max_delivery_count=5, max_in_flight_records=2000)
    assert (sp.max_delivery(), sp.max_in_flight()) == expected
    assert (partition(version, max_delivery_count=5, max_in_flight_records=2000).max_delivery(),
            partition(version, max_in_flight_records=2000).max_in_flight()) == (5, 2000)  # ...FallsBackToDefault...


def test_dynamic_delivery_count_decrease_causes_archival():
    """SharePartitionTest.testDynamicDeliveryCountDecreaseCausesArchival (branch 4.3): limit 10, two
    deliveries of 5-14, the group lowers it to 2: the RELEASE archives; nothing to fetch; next 15."""
    config: dict = {}
    sp = SharePartition(Simulation(seed=0), "group-1", "t", 0, kafka_version="4.3", max_delivery_count=10,
                        group_config=lambda: config)
    sp.acquire("member-1", 10, fetch_offset=5, log_batches=[(5, 14)])
    sp.acknowledge("member-1", [(5, 14, "RELEASE")])
    assert sp.acquire("member-1", 10, fetch_offset=5, log_batches=[(5, 14)]) == [AcquiredRecords(5, 14, 2)]
    config["share.delivery.count.limit"] = 2
    sp.acknowledge("member-1", [(5, 14, "RELEASE")])
    assert sp.acquire("member-1", 10, fetch_offset=5, log_batches=[(5, 14)]) == []
    assert sp.next_fetch_offset == 15


def test_dynamic_delivery_count_increase_allows_more_deliveries():
    """SharePartitionTest.testDynamicDeliveryCountIncreaseAllowsMoreDeliveries (branch 4.3): limit 2
    raised to 10 after the first delivery: a third delivery happens (4.2 would archive at the second
    RELEASE)."""
    for version, third in (("4.3", [AcquiredRecords(5, 14, 3)]), ("4.2", [])):
        config: dict = {}
        sp = SharePartition(Simulation(seed=0), "group-1", "t", 0, kafka_version=version, max_delivery_count=2,
                            group_config=lambda: config)
        sp.acquire("member-1", 10, fetch_offset=5, log_batches=[(5, 14)])
        sp.acknowledge("member-1", [(5, 14, "RELEASE")])
        config["share.delivery.count.limit"] = 10
        sp.acquire("member-1", 10, fetch_offset=5, log_batches=[(5, 14)])
        sp.acknowledge("member-1", [(5, 14, "RELEASE")])
        assert sp.acquire("member-1", 10, fetch_offset=5, log_batches=[(5, 14)]) == third, version


@pytest.mark.parametrize("version, error", [("4.3", Errors.INVALID_RECORD_STATE), ("4.2", Errors.NONE)])
def test_renew_acknowledge_disabled(version, error):
    """SharePartitionTest.testRenewAcknowledgeDisabledWithCompleteBatchAck and ...WithPerOffsetAck
    (branch 4.3): with `share.renew.acknowledge.enable=false` RENEW fails with INVALID_RECORD_STATE
    ("Renewing acquisition locks is not enabled for the group."), the records stay ACQUIRED and
    nothing is written; the per-offset request fails at its first offset, rolling back its ACCEPT.
    4.2 has no such group config: RENEW works."""
    config = {"share.renew.acknowledge.enable": False}
    single = partition(version, config, max_delivery_count=2)
    single.acquire("member-1", 1, log_batches=[(0, 0)])
    assert single.acknowledge("member-1", [(0, 0, "RENEW")]) is error
    assert (single.state(0), single.stats["write_share_group_state"]) == ("ACQUIRED", 0)
    per_offset = partition(version, config, max_delivery_count=2)
    per_offset.acquire("member-1", 2, log_batches=[(0, 1)])
    expected = error if error is not Errors.NONE else Errors.NONE
    assert per_offset.acknowledge("member-1", [(0, 1, ["RENEW", "ACCEPT"])]) is expected
    states = [per_offset.state(0), per_offset.state(1)]
    assert states == (["ACQUIRED", "ACQUIRED"] if error is not Errors.NONE else ["ACQUIRED", "ACKNOWLEDGED"])
    assert per_offset.split_batches() == [(0, 1)]


def test_dynamic_partition_max_record_locks():
    """SharePartitionTest.testDynamicPartitionMaxRecordLocks{Decrease,Increase,ExactBoundary,
    RemoveGroupConfig,DecreaseBelowInFlightAffectsMaxRecordsToAcquire} (branch 4.3): the group's
    `share.partition.max.record.locks` is read at every `canAcquireRecords()` (in flight < limit)."""
    config: dict = {}
    sp = SharePartition(Simulation(seed=0), "group-1", "t", 0, kafka_version="4.3", max_in_flight_records=50,
                        group_config=lambda: config)
    sp.acquire("member-1", 50, log_batches=[(0, 49)])
    assert sp.can_acquire_records() is False          # 50 < 50 is false
    config["share.partition.max.record.locks"] = 51
    assert (sp.max_in_flight(), sp.can_acquire_records()) == (51, True)
    config["share.partition.max.record.locks"] = 30    # below the 50 in flight
    assert (sp.max_in_flight(), sp.can_acquire_records()) == (30, False)
    assert sp.cached_batches() == [(0, 49)]            # nothing is dropped
    config["share.partition.max.record.locks"] = 500
    assert sp.can_acquire_records() is True
    del config["share.partition.max.record.locks"]     # removed: back to the default
    assert (sp.max_in_flight(), sp.can_acquire_records()) == (50, False)


# == GroupConfigTest / GroupConfig.validateValues (branches 4.3 and 4.4) ===========================
@pytest.mark.parametrize("version, configs, message", [
    ("4.3", {"share.delivery.count.limit": 11},
     "share.delivery.count.limit must be less than or equal to group.share.max.delivery.count.limit"),
    ("4.3", {"share.partition.max.record.locks": 99}, "share.partition.max.record.locks"),  # atLeast(100)
    ("4.3", {"share.partition.max.record.locks": 4001},
     "share.partition.max.record.locks must be less than or equal to group.share.max.partition.max.record.locks"),
    ("4.3", {"share.assignment.interval.ms": 15001},
     "share.assignment.interval.ms must be less than or equal to group.share.max.assignment.interval.ms"),
    ("4.4", {"share.delivery.count.limit": 11}, "share.delivery.count.limit must be in the range 2 to 10 inclusive."),
    ("4.4", {"share.session.timeout.ms": 30000}, "share.session.timeout.ms must be in the range 45000 to 60000 "
                                                 "inclusive."),
    ("4.4", {"errors.deadletterqueue.topic.name": "__dlq"},
     "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'"),
    ("4.3", {"errors.deadletterqueue.topic.name": "dlq.x"}, "Unknown group config 'errors.deadletterqueue.topic.name'"),
    ("4.4", {"share.renew.acknowledge.enable": "maybe"}, "Expected value to be either true or false"),
])
def test_group_config_validation_by_branch(version, configs, message):
    """`GroupConfig.validateValues` at the 4.3 branch (KIP-1240 bounds, KIP-1263's interval checked only
    when set) and at the 4.4 branch ("must be in the range MIN to MAX inclusive.", KIP-1191's DLQ name)."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version=version)
    with pytest.raises(ConfigError) as refused:
        coord.set_group_config("g", configs)
    assert message in str(refused.value)


def test_4_3_takes_the_brokers_values_for_the_configs_a_group_does_not_set():
    """4.3's `GroupConfig.validate` merges `extractGroupConfigMap` (the broker's values); 4.2 the
    ConfigDef defaults: a group heartbeat of 9000 ms with a broker session of 8000 (min 5000) is
    refused in 4.3 only; 4.4 checks the pair only when one of them is set."""
    kw = dict(group_share_session_timeout_ms=8000, group_share_min_session_timeout_ms=5000,
              group_share_max_heartbeat_interval_ms=20000)
    for version, refused in (("4.2", False), ("4.3", True), ("4.4", True)):
        coord = GroupCoordinator(Simulation(seed=0), kafka_version=version, **kw)
        if refused:
            with pytest.raises(ConfigError, match="share.session.timeout.ms must be greater than "
                                                  "share.heartbeat.interval.ms"):
                coord.set_group_config("g", {"share.heartbeat.interval.ms": 9000})
        else:
            coord.set_group_config("g", {"share.heartbeat.interval.ms": 9000})


def test_broker_startup_checks_of_kip_1240():
    """ShareGroupConfig.validate (branch 4.3): max delivery limit >= limit >= min, same for the locks."""
    with pytest.raises(ConfigError, match="group.share.delivery.count.limit must be greater than or equal to "
                                          "group.share.min.delivery.count.limit"):
        GroupCoordinator(Simulation(seed=0), kafka_version="4.3", group_share_delivery_count_limit=3,
                         group_share_min_delivery_count_limit=4)
    with pytest.raises(ConfigError, match="group.share.max.partition.max.record.locks must be greater than or equal "
                                          "to group.share.partition.max.record.locks"):
        GroupCoordinator(Simulation(seed=0), kafka_version="4.3", group_share_partition_max_record_locks=5000)
    with pytest.raises(ConfigError, match="does not exist in Kafka 4.2"):
        GroupCoordinator(Simulation(seed=0), kafka_version="4.2", group_share_max_delivery_count_limit=10)


# == GroupMetadataManagerTest (branches 4.3 and 4.4) ==============================================
def interval_run(version: str):
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version=version, topics={"foo": 6},
                             **({"group_share_assignment_interval_ms": 5000} if version >= "4.3" else {}))
    start = 1 if version >= "4.3" else 0
    coord.load_share_group("fooup", group_epoch=start, members={}, initialized_partitions={"foo": range(6)})
    r1 = coord.share_group_heartbeat("fooup", member_id="m1", member_epoch=0, subscribed_topic_names=["foo"])
    sim.advance(4995)
    r2 = coord.share_group_heartbeat("fooup", member_id="m2", member_epoch=0, subscribed_topic_names=["foo"])
    sim.advance(10)
    r3 = coord.share_group_heartbeat("fooup", member_id="m2", member_epoch=r2.member_epoch)
    return [(r.member_epoch, r.assignment) for r in (r1, r2, r3)], coord


def test_share_group_assignment_interval():
    """GroupMetadataManagerTest.testShareGroupAssignmentInterval (branches 4.3, 4.4), interval 5000:
    m1 joins a group at epoch 1 -> epoch 2 with all of foo; m2 joins 4995 ms later: group epoch 3 but
    no new target, m2 at epoch 2 with [] sent; 10 ms later m2's heartbeat computes it: epoch 3. The
    mock gave m2 all six partitions; simple's quotas for 2 members on 6 partitions are [3, 3]."""
    got, coord = interval_run("4.3")
    assert got[:2] == [(2, {"foo": [0, 1, 2, 3, 4, 5]}), (2, {})]
    assert got[2][0] == 3 and len(got[2][1]["foo"]) == 3
    assert (coord.group_epoch("fooup"), coord.target_assignment_epoch("fooup")) == (3, 3)


def test_before_4_3_every_epoch_bump_computes_a_target():
    """The other side: 4.2 has no interval; m2's join computes the target at once (epoch 2 of a
    group created at 0)."""
    got, _ = interval_run("4.2")
    assert got[0] == (1, {"foo": [0, 1, 2, 3, 4, 5]}) and got[1][0] == 2 and len(got[1][1]["foo"]) == 3


def test_a_subscription_change_drops_the_unsubscribed_topics_at_once_during_the_interval():
    """`maybeReconcile(..., bumpGroupEpoch)` and `ShareGroupAssignmentBuilder.build` (branch 4.3):
    with the target epoch unchanged (the interval holds the next target back), a subscription change
    still filters the member's partitions to its subscribed topics ("Force consistency with the
    subscription when the subscription has changed"); its epoch stays at the target's."""
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version="4.3", topics={"foo": 2, "bar": 1},
                             group_share_assignment_interval_ms=5000)
    coord.load_share_group("fooup", group_epoch=1, members={},
                           initialized_partitions={"foo": range(2), "bar": range(1)})
    r = coord.share_group_heartbeat("fooup", member_id="m1", member_epoch=0, subscribed_topic_names=["foo", "bar"])
    assert (r.member_epoch, r.assignment) == (2, {"bar": [0], "foo": [0, 1]})
    sim.advance(1000)
    r = coord.share_group_heartbeat("fooup", member_id="m1", member_epoch=2, subscribed_topic_names=["foo"])
    assert (r.member_epoch, r.assignment) == (2, {"foo": [0, 1]})
    assert (coord.group_epoch("fooup"), coord.target_assignment_epoch("fooup")) == (3, 2)
    assert coord.assigned_partitions("fooup", "m1") == {"foo": [0, 1]}


def test_the_group_config_overrides_the_interval():
    """`shareGroupAssignmentIntervalMs(groupId)` (branch 4.3): the group's share.assignment.interval.ms."""
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version="4.3", topics={"foo": 6})
    coord.set_group_config("fooup", {"share.assignment.interval.ms": 0})
    coord.load_share_group("fooup", group_epoch=1, members={}, initialized_partitions={"foo": range(6)})
    coord.share_group_heartbeat("fooup", member_id="m1", member_epoch=0, subscribed_topic_names=["foo"])
    sim.advance(1)
    r = coord.share_group_heartbeat("fooup", member_id="m2", member_epoch=0, subscribed_topic_names=["foo"])
    assert (r.member_epoch, len(r.assignment["foo"])) == (3, 3)


@pytest.mark.parametrize("version, target_epoch", [("4.4", 3), ("4.3", 2)])
def test_session_timeout_expiration_for_share_member(version, target_epoch):
    """GroupMetadataManagerTest.testSessionTimeoutExpirationForShareMember (branch 4.4, KAFKA-20442):
    join at epoch 2, 45001 ms later fenced: group epoch 3 and, the group now empty, a target epoch of 3
    with timestamp 0; at 4.3 the target epoch stays 2."""
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version=version, topics={"foo": 6})
    assert coord.share_group_heartbeat("fooup", member_id="m1", member_epoch=0,
                                       subscribed_topic_names=["foo"]).member_epoch == 2
    sim.advance(45001)
    assert (coord.member_ids("fooup"), coord.group_epoch("fooup"), coord.target_assignment_epoch("fooup")) == \
        ([], 3, target_epoch)


@pytest.mark.parametrize("version, target_epoch", [("4.4", 11), ("4.3", 10)])
def test_on_loaded_session_timeout_expiration_for_share_member(version, target_epoch):
    """GroupMetadataManagerTest.testOnLoadedSessionTimeoutExpirationForShareMember (branch 4.4): a group
    at epoch 10 (member at 9, assignment epoch 10) is loaded; onLoaded arms the session; 45001 ms
    later: group epoch 11, target epoch 11 (4.3: 10)."""
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version=version, topics={"foo": 6})
    coord.load_share_group("fooup", group_epoch=10, target_assignment_epoch=10, members={
        "m1": {"member_epoch": 9, "previous_member_epoch": 9, "subscribed_topic_names": ["foo"],
               "assigned": {"foo": [0, 1, 2]}}}, target_assignment={"m1": {"foo": [0, 1, 2]}})
    coord.share_groups.arm_loaded_timers("fooup")
    sim.advance(45001)
    assert (coord.group_epoch("fooup"), coord.target_assignment_epoch("fooup")) == (11, target_epoch)


@pytest.mark.parametrize("version, start", [("4.4", 0), ("4.3", 100)])
def test_initialize_mixed_new_and_expanded_topics(version, start):
    """GroupMetadataManagerTest.testShareGroupHeartbeatInitializeMixedNewAndExpandedTopics (branch 4.4,
    KAFKA-20742): foo grows from 2 to 3 partitions while bar is new; the new partition of the known
    topic is initialized at offset 0, bar's at -1 (share.auto.offset.reset: latest, the log end).
    At 4.3 both start from the reset strategy."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version=version, topics={"foo": 2})
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=0, subscribed_topic_names=["foo"])
    coord.complete_share_init("g")
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=r.member_epoch)
    coord.create_partitions("foo", 3)
    coord.create_partitions("bar", 1)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=r.member_epoch,
                                    subscribed_topic_names=["foo", "bar"])
    assert coord.share_groups.initializing_partitions("g") == {"bar": [0], "foo": [2]}
    coord.complete_share_init("g")
    assert coord.share_partition("g", "foo", 2, log_end_offset=100).start_offset == start
    assert coord.share_partition("g", "bar", 0, log_end_offset=100).start_offset == 100
    assert coord.share_partition("g", "foo", 0, log_end_offset=100).start_offset == 100


# == SimpleAssignorTest (branch 4.4; the same file at 4.2) ==========================================
def covered(result) -> int:
    """`assertEveryPartitionGetsAssignment`'s count: distinct partitions assigned."""
    return len({(t, p) for a in result.values() for t, ps in a.items() for p in ps})


@pytest.mark.parametrize("version", ["4.2", "4.4"])
def test_name(version):
    """SimpleAssignorTest.testName (branch 4.4, 4.2.0)."""
    assert SimpleAssignor(version).name == "simple"


@pytest.mark.parametrize("version", ["4.2", "4.4"])
def test_two_members_two_topics_homogeneous_with_non_assignable_topic(version):
    """SimpleAssignorTest.testAssignWithTwoMembersAndTwoTopicsHomogeneousWithNonAssignableTopic (branch
    4.4): only topic1's 3 partitions initialized: 3 assigned, topic3 none."""
    got = simple_share_assign(version, {"A": ["T1", "T3"], "B": ["T1", "T3"]}, {"T1": 3, "T3": 2},
                              assignable={"T1": [0, 1, 2]})
    assert covered(got) == 3 and all("T3" not in a for a in got.values())


@pytest.mark.parametrize("version", ["4.2", "4.4"])
def test_three_members_three_topics_heterogeneous_with_allowed_map(version):
    """SimpleAssignorTest.testAssignWithThreeMembersThreeTopicsHeterogeneousWithAllowedMap (branch 4.4):
    T1 {0, 1}, T2 {0, 2}, T3 {1} assignable: 5 partitions assigned, none other."""
    got = simple_share_assign(version, {"A": ["T1", "T2"], "B": ["T3"], "C": ["T2", "T3"]},
                              {"T1": 3, "T2": 3, "T3": 2}, assignable={"T1": [0, 1], "T2": [0, 2], "T3": [1]})
    held = {(t, p) for a in got.values() for t, ps in a.items() for p in ps}
    assert held == {("T1", 0), ("T1", 1), ("T2", 0), ("T2", 2), ("T3", 1)}


SUBSCRIPTIONS = (["T1", "T2", "T3"], ["T2"], ["T3"], ["T1", "T2"])
TOPICS = {"T1": 12, "T2": 8, "T3": 4}


@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_incremental_assignment_heterogeneous(direction):
    """SimpleAssignorTest.testIncrementalAssignment{Increasing,Decreasing}MembersHeterogeneous (branch
    4.4): 24 partitions over 3 topics, members M0..M100 with four subscriptions in turn, added (or
    removed) one at a time, each result fed back: all 24 partitions always assigned."""
    order = range(101) if direction == "increasing" else range(100, 0, -1)
    members = {f"M{m}": SUBSCRIPTIONS[m % 4] for m in range(101)} if direction == "decreasing" else {}
    current = simple_share_assign("4.4", members, TOPICS) if members else {}
    if members:
        assert covered(current) == 24
    for m in order:
        if direction == "increasing":
            members[f"M{m}"] = SUBSCRIPTIONS[m % 4]
        else:
            del members[f"M{m}"]
            current.pop(f"M{m}", None)
        current = simple_share_assign("4.4", members, TOPICS, current)
        assert covered(current) == 24, m


@pytest.mark.parametrize("override, target_epoch", [(None, 2), (0, 3)])
def test_the_consumer_groups_interval_is_one_mechanism_with_its_group_config(override, target_epoch):
    """The shared mechanism (`canComputeNextTargetAssignment`) on a consumer group, with 4.3's
    `consumer.assignment.interval.ms` (`GroupMetadataManager.consumerGroupAssignmentIntervalMs`, branch
    4.3): b joins 10 ms after a; the broker's 1000 ms postpone its target, a group override of 0 not."""
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version="4.3", topics={"foo": 6})
    if override is not None:
        coord.set_group_config("g", {"consumer.assignment.interval.ms": override})
    for member in ("a", "b"):
        coord.consumer_group_heartbeat("g", member_id=member, member_epoch=0, rebalance_timeout_ms=300000,
                                       subscribed_topic_names=["foo"], owned_partitions={})
        sim.advance(10)
    assert (coord.group_epoch("g"), coord.target_assignment_epoch("g")) == (3, target_epoch)


def test_the_coordinators_share_partitions_read_the_group_limits_and_dlq():
    """The group configs set through `set_group_config` reach the leader's share partitions: 4.3's
    delivery limit (KIP-1240), 4.4's DLQ topic (KIP-1191); `share_version=1` on 4.4 keeps the DLQ off."""
    for version, share_version, dlq in (("4.4", None, 1), ("4.4", 1, 0), ("4.3", None, 0)):
        coord = GroupCoordinator(Simulation(seed=0), kafka_version=version, topics={"t": 1, "dlq.t": 1},
                                 share_version=share_version)
        configs = {"share.delivery.count.limit": 2}
        if version == "4.4":
            configs["errors.deadletterqueue.topic.name"] = "dlq.t"
        coord.set_group_config("g", configs)
        sp = coord.share_partition("g", "t", 0)
        sp.acquire("m", 5, log_batches=[(0, 4)])
        sp.acknowledge("m", [(0, 4, "RELEASE")])
        sp.acquire("m", 5, log_batches=[(0, 4)])
        sp.acknowledge("m", [(0, 4, "RELEASE")])  # the second delivery was the last: archived
        assert (sp.max_delivery(), sp.start_offset) == (2, 5)
        assert len(coord.share_groups.dlq_topics.get("dlq.t", [])) == dlq, (version, share_version)


# -- rules pinned by mutation testing (issue 28 item 8) -------------------------------------------
def test_session_release_of_the_record_at_spso_at_the_limit_goes_to_the_dlq():
    """`releaseAcquiredRecords` (branch 4.4): a record archived at the delivery limit by the
    session's release is enqueued with DELIVERY_COUNT_EXCEEDED, also when it is the single record
    at SPSO (its last offset equals SPSO). Limit 2: offset 0 delivered twice, then released."""
    sp = partition(config=DLQ, max_delivery_count=2)
    assert sp.acquire("member-1", 1, log_batches=[(0, 0)]) == [AcquiredRecords(0, 0, 1)]
    assert sp.acknowledge("member-1", [(0, 0, "RELEASE")]) is Errors.NONE
    assert sp.acquire("member-1", 1, fetch_offset=0, log_batches=[(0, 0)]) == [AcquiredRecords(0, 0, 2)]
    assert sp.release_all("member-1") is Errors.NONE
    assert sp.dlq_records == [DlqRecord("group-1", "t", 0, 0, 0, 2, DELIVERY_COUNT_EXCEEDED)]
    assert sp.start_offset == 1


def test_share_version_2_before_4_4_is_refused_naming_the_release():
    """`share.version=2` (the DLQ feature level, KIP-1191) exists from 4.4: 4.3 accepts only 1."""
    with pytest.raises(ConfigError, match=r"must be 1 before Kafka 4\.4 \(2, the dead-letter queue of KIP-1191"):
        partition(version="4.3", share_version=2)
