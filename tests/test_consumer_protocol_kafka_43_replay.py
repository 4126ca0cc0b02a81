"""Scenarios replayed from Kafka 4.3's and 4.4's own tests of consumer groups, on both sides of
each version boundary.

Every test follows one Kafka unit test, named in its docstring as ``Class.method @ tag``. The
tags are Confluent's (``github:confluentinc/kafka``): ``v8.3.0`` is Apache Kafka 4.3.0, ``v8.3.1``
is 4.3.1, ``4.4`` the head of the 4.4 branch (8.4.0-0-ccs, the newest 4.4 source read), ``v8.2.0``
4.2.0. The classes, under ``group-coordinator/src/test/java/org/apache/kafka/coordinator/group/``:
``GroupMetadataManagerTest``, ``OffsetMetadataManagerTest``, ``GroupCoordinatorConfigTest`` and
``modern/consumer/ConsumerGroupTest``.

The translation rules are those of ``test_consumer_protocol_kafka_replay.py`` (same harness):
topic ids become names, random member ids readable strings, records the state they write read
back through the API, an exception the error code the broker answers with. In addition:

- ``toAssignmentWithEpochs(assignment, epoch)`` (KIP-1251) becomes ``assignment_epochs`` of a
  restored member; ``ConsumerGroup.validateOffsetCommit(...)`` followed by the validator on one
  partition becomes one ``commit_offsets`` of that partition (the validator throws out of
  ``OffsetMetadataManager.commitOffset``, so its error is the whole request's).
- ``context.time.sleep(ms)`` is ``Simulation.advance(ms)``; a group restored with
  ``ConsumerGroupBuilder`` has no assignment timestamp (Kafka's 0: "we do not know when the
  existing target assignment was computed"), so its next target is computed at once.
- "Before" cases run the same steps on the previous release and assert what that release's
  code (and its own test, where one exists) gives; they are marked with the tag read.
"""

from __future__ import annotations

import pytest

from kafkasim import ConfigError, Errors, GroupCoordinator, Simulation
from kafkasim.core.config import BROKER_CONFIGS, CONSUMER_CONFIGS, broker_config, broker_config_warnings
from kafkasim.core.embedded_protocol import encode
from test_consumer_protocol_kafka_replay import (
    GROUP, MEMBER_1, MEMBER_2, NONE, Harness, PreparedAssignor, expect_leave_response, expect_response, member)

V42, V43, V431, V44 = "4.2.0", "4.3.0", "4.3.1", "4.4.0"


def classic(topics, owned=()):
    """`ClassicMemberMetadata` with a session timeout of 5000 and one "range" protocol whose
    embedded subscription lists `topics` and the `owned` (topic, partition) pairs."""
    return {"session_timeout_ms": 5000, "protocols": [("range", encode({"topics": list(topics), "generation": -1,
                                                                          "owned": [list(tp) for tp in owned]}))]}


def epochs(assignment, epoch):
    """`toAssignmentWithEpochs(assignment, epoch)`."""
    return {t: {p: epoch for p in ps} for t, ps in assignment.items()}


# ======================================================================================
# KAFKA-20268 (4.3): a new group starts at epoch 1; KAFKA-20442 (4.4): the empty group catches up
# ======================================================================================


@pytest.mark.parametrize("version, epoch", [(V42, 1), (V43, 2), (V44, 2)])
def test_first_join_of_a_new_group(version, epoch):
    """GroupMetadataManagerTest.testTopicHashIsRemoveFromCacheIfNoGroupSubscribesIt @ v8.2.0 / v8.3.0 / 4.4.

    The first member of a new group gets all of foo: epoch 1 at 4.2.0 (the group moved off 0),
    epoch 2 from 4.3 (KAFKA-20268: the group starts at epoch 1 with an empty target, its
    first computed target is epoch 2). Leaving with -1 bumps the group epoch once more; only
    4.4 also moves the target epoch up to it (KAFKA-20442: the ConsumerGroupTargetAssignmentMetadata
    record of epoch 3, timestamp 0, the test's last expected record).
    """
    h = Harness({"foo": 6}, version=version)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})
    expect_response(h.join(MEMBER_1, ["foo"]), MEMBER_1, epoch, {"foo": [0, 1, 2, 3, 4, 5]})
    assert (h.coord.group_epoch(GROUP), h.coord.target_assignment_epoch(GROUP)) == (epoch, epoch)
    h.expect_member(MEMBER_1, epoch=epoch, state="STABLE", assigned={"foo": [0, 1, 2, 3, 4, 5]})
    expect_leave_response(h.heartbeat(MEMBER_1, -1), MEMBER_1, -1)
    target_epoch = epoch + 1 if version == V44 else epoch
    assert (h.coord.group_epoch(GROUP), h.coord.target_assignment_epoch(GROUP)) == (epoch + 1, target_epoch)
    assert h.state() == "Empty"


@pytest.mark.parametrize("version, rejoin_epoch, rejoin_assignment, runs", [
    (V43, 2, {}, 1),                                # the empty group's target is postponed (1000 ms)
    (V44, 4, {"foo": [0, 1, 2, 3, 4, 5]}, 2),      # computed at once, as in a new group
])
def test_rejoin_right_after_the_last_member_left(version, rejoin_epoch, rejoin_assignment, runs):
    """GroupMetadataManagerTest.testTopicHashIsRemoveFromCacheIfNoGroupSubscribesIt @ v8.3.0 / 4.4, continued.

    After the leave of the Kafka test, a member joins again within the default
    group.consumer.assignment.interval.ms (1000). 4.3.0 left the target at epoch 2 computed at
    this very millisecond: the interval postpones the new one and the member reconciles
    towards epoch 2's target, where it has nothing. 4.4 wrote assignment timestamp 0 with the
    catch-up ("to mimic the behavior of a new group so that the assignment interval does not
    delay the next assignment computation", KAFKA-20442): epoch 4 with all of foo at once.
    """
    h = Harness({"foo": 6}, version=version)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})
    h.join(MEMBER_1, ["foo"])
    h.heartbeat(MEMBER_1, -1)
    h.assignor.prepare_group_assignment({MEMBER_2: {"foo": [0, 1, 2, 3, 4, 5]}})
    expect_response(h.join(MEMBER_2, ["foo"]), MEMBER_2, rejoin_epoch, rejoin_assignment)
    assert h.coord.group_epoch(GROUP) == 4 and len(h.assignor.calls) == runs


# ======================================================================================
# KIP-1263 (4.3): group.consumer.assignment.interval.ms
# ======================================================================================


def test_consumer_group_assignment_interval():
    """GroupMetadataManagerTest.testConsumerGroupAssignmentInterval @ v8.3.0.

    With an interval of 5000: member 1 joins and gets foo 0-5 at epoch 2 at once. 4995 ms later
    member 2 joins: the group epoch goes to 3 but no target is computed, member 2 gets epoch 2
    and an empty assignment (only its subscription, epoch and current assignment are written).
    10 ms later member 2's heartbeat computes epoch 3's target (foo 0-2 / 3-5) and moves it to
    epoch 3, UNRELEASED_PARTITIONS, while member 1 still holds 3-5.
    """
    h = Harness({"foo": 6}, version=V43, group_consumer_assignment_interval_ms=5000)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})
    expect_response(h.join(MEMBER_1, ["foo"]), MEMBER_1, 2, {"foo": [0, 1, 2, 3, 4, 5]})
    h.expect_member(MEMBER_1, epoch=2, state="STABLE", assigned={"foo": [0, 1, 2, 3, 4, 5]})

    h.sim.advance(4995)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2]}, MEMBER_2: {"foo": [3, 4, 5]}})
    expect_response(h.join(MEMBER_2, ["foo"]), MEMBER_2, 2, {})
    h.expect_member(MEMBER_2, epoch=2, state="STABLE", assigned={})
    assert (h.coord.group_epoch(GROUP), h.coord.target_assignment_epoch(GROUP), len(h.assignor.calls)) == (3, 2, 1)
    assert h.state() == "Assigning"  # (derived) group epoch ahead of the target epoch

    h.sim.advance(10)
    expect_response(h.heartbeat(MEMBER_2, 2), MEMBER_2, 3, None)
    h.expect_member(MEMBER_2, epoch=3, state="UNRELEASED_PARTITIONS", assigned={})
    assert h.target() == {MEMBER_1: {"foo": [0, 1, 2]}, MEMBER_2: {"foo": [3, 4, 5]}}
    assert h.coord.target_assignment_epoch(GROUP) == 3


def test_consumer_group_assignment_interval_steps_before_4_3():
    """GroupMetadataManagerTest.testConsumerGroupAssignmentInterval's steps @ v8.2.0 (no such config).

    4.2.0 has no group.consumer.assignment.interval.ms (GroupCoordinatorConfig at v8.2.0): every
    epoch bump computes a target at once. Member 1 gets epoch 1; member 2, 4995 ms later, epoch 2
    with the target computed in its own heartbeat, waiting for foo 3-5 (UNRELEASED_PARTITIONS).
    """
    with pytest.raises(ConfigError, match="does not exist in Kafka 4.2: it was added in Kafka 4.3"):
        Harness({"foo": 6}, version=V42, group_consumer_assignment_interval_ms=5000)
    h = Harness({"foo": 6}, version=V42)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})
    expect_response(h.join(MEMBER_1, ["foo"]), MEMBER_1, 1, {"foo": [0, 1, 2, 3, 4, 5]})
    h.sim.advance(4995)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2]}, MEMBER_2: {"foo": [3, 4, 5]}})
    expect_response(h.join(MEMBER_2, ["foo"]), MEMBER_2, 2, {})
    h.expect_member(MEMBER_2, epoch=2, state="UNRELEASED_PARTITIONS", assigned={})
    assert (h.coord.group_epoch(GROUP), h.coord.target_assignment_epoch(GROUP), len(h.assignor.calls)) == (2, 2, 2)


@pytest.mark.parametrize("wait, computed", [(4999, False), (5000, True), (7500, True)])
def test_can_compute_next_target_assignment(wait, computed):
    """GroupMetadataManagerTest.testCanComputeNextTargetAssignment @ v8.3.0.

    `canComputeNextTargetAssignment(1000000, 5000, now)`: false at 1000000 + 4999, true from
    1000000 + 5000. Here the previous target is computed at t = 1,000,000 ms (member 1's join)
    with an interval of 5000; a second member joins `wait` ms later. (Kafka's cases with a clock
    before the last computation, a wall-clock correction, cannot happen on a simulated clock.)
    """
    h = Harness({"foo": 2}, version=V43, group_consumer_assignment_interval_ms=5000)
    h.sim.advance(1_000_000)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1]}})
    h.join(MEMBER_1, ["foo"])
    h.sim.advance(wait)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0]}, MEMBER_2: {"foo": [1]}})
    r = h.join(MEMBER_2, ["foo"])
    assert h.coord.target_assignment_epoch(GROUP) == (3 if computed else 2)
    assert (r.member_epoch, len(h.assignor.calls)) == ((3, 2) if computed else (2, 1))


@pytest.mark.parametrize("interval", [0, 1000])
def test_can_compute_next_target_assignment_with_zero_interval_or_no_previous_timestamp(interval):
    """GroupMetadataManagerTest.testCanComputeNextTargetAssignmentWithZeroAssignmentIntervalMs and
    testCanComputeNextTargetAssignmentWithNoPreviousAssignmentTimestamp @ v8.3.0.

    Interval 0: every bump computes at once, even in the same millisecond. A restored group
    (no assignment timestamp) computes at once whatever the interval.
    """
    h = Harness({"foo": 2}, version=V43, group_consumer_assignment_interval_ms=interval)
    h.load(group_epoch=10, target_epoch=10, members={MEMBER_1: member(10, 9, assigned={"foo": [0, 1]},
                                                                      topics=["foo"], rebalance_timeout_ms=5000)},
           target={MEMBER_1: {"foo": [0, 1]}})
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0]}, MEMBER_2: {"foo": [1]}})
    expect_response(h.join(MEMBER_2, ["foo"]), MEMBER_2, 11, {})  # computed at once: epoch 11
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0]}, MEMBER_2: {}, "m3": {"foo": [1]}})
    h.join("m3", ["foo"])  # the same millisecond: computed again only with interval 0
    assert h.coord.target_assignment_epoch(GROUP) == (12 if interval == 0 else 11)


def test_group_coordinator_config_assignment_interval():
    """GroupCoordinatorConfigTest.testConfigs @ v8.3.0 (the interval triple 500 / 400 / 600 is
    accepted), and the three checks GroupCoordinatorConfig's constructor adds at v8.3.0 (and at
    the 4.4 head, `verifyConsumerGroupConfigs`), with Kafka's wording; none of it exists at v8.2.0."""
    names = ("group.consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms",
             "group.consumer.max.assignment.interval.ms")
    for version in ("4.3", "4.3.1", "4.4"):
        cfg = broker_config(version, dict(zip(names, (500, 400, 600))))
        assert [cfg[n] for n in names] == [500, 400, 600]
        with pytest.raises(ConfigError, match="^group.consumer.max.assignment.interval.ms must be greater than or "
                                              "equal to group.consumer.min.assignment.interval.ms"):
            broker_config(version, dict(zip(names, (500, 600, 400))))
        with pytest.raises(ConfigError, match="^group.consumer.assignment.interval.ms must be greater than or equal "
                                              "to group.consumer.min.assignment.interval.ms"):
            broker_config(version, dict(zip(names, (300, 400, 600))))
        with pytest.raises(ConfigError, match="^group.consumer.assignment.interval.ms must be less than or equal to "
                                              "group.consumer.max.assignment.interval.ms"):
            broker_config(version, {names[0]: 15001})  # above the default max, 15000
        with pytest.raises(ConfigError, match=r"Invalid value -1 for configuration group.consumer.assignment.interval"
                                              r".ms: Value must be at least 0"):
            broker_config(version, {names[0]: -1})  # atLeast(0)
    # The coordinator checks its arguments with the same rules and words.
    with pytest.raises(ConfigError, match="^group.consumer.assignment.interval.ms must be less than or equal to "
                                          "group.consumer.max.assignment.interval.ms"):
        GroupCoordinator(Simulation(0), kafka_version="4.3", group_consumer_assignment_interval_ms=20000)
    assert GroupCoordinator(Simulation(0), kafka_version="4.3", group_consumer_assignment_interval_ms=20000,
                            group_consumer_max_assignment_interval_ms=30000).consumer_groups.assignment_interval_ms \
        == 20000
    with pytest.raises(ConfigError, match="'group.consumer.min.assignment.interval.ms' does not exist in Kafka 4.2"):
        broker_config("4.2", {names[1]: 0})


@pytest.mark.parametrize("version, unknown, not_assignor", [
    ("4.3", r"^Class foo cannot be found \(",
     "^org.apache.kafka.clients.consumer.RangeAssignor is not an instance of "),
    ("4.4", r"^Invalid value foo for configuration group.consumer.assignors: Class cannot be found \(",
     "^Invalid value org.apache.kafka.clients.consumer.RangeAssignor for configuration group.consumer.assignors: "
     "Class is not an instance of "),
])
def test_invalid_consumer_configs_assignors(version, unknown, not_assignor):
    """GroupCoordinatorConfigTest.testInvalidConsumerConfigs @ v8.3.0 and 4.4: an unknown
    group.consumer.assignors class is "Class foo cannot be found" at v8.3.0 and, from 4.4
    (KAFKA-20843), "Invalid value foo for configuration group.consumer.assignors: Class cannot be
    found"; a class that is no server assignor (Kafka's test uses java.lang.Object, here the
    client's RangeAssignor, a class kafkasim knows exists) likewise. kafkasim adds which
    assignors exist in parentheses."""
    with pytest.raises(ConfigError, match=unknown):
        broker_config(version, {"group.consumer.assignors": ["foo"]})
    with pytest.raises(ConfigError, match=not_assignor + "org.apache.kafka.coordinator.group.api.assignor."
                                                         "ConsumerGroupPartitionAssignor$"):
        broker_config(version, {"group.consumer.assignors": ["org.apache.kafka.clients.consumer.RangeAssignor"]})


# ======================================================================================
# KAFKA-20272 (4.3): classic members inside a consumer group follow the target epoch
# ======================================================================================


def _classic_member_during_assignment_delay(version):
    """The group of testClassic{Heartbeat,Sync}ToConsumerGroupDuringAssignmentDelay: member 1
    speaks the classic protocol (foo, owning foo 0-2), member 2 the consumer protocol and has
    just moved from foo to bar; group epoch 11, target epoch 10 (foo 0-2 / 3-5)."""
    h = Harness({"foo": 6, "bar": 3}, version=version)
    h.load(group_epoch=11, target_epoch=10, members={
        MEMBER_1: {**member(10, 9, assigned={"foo": [0, 1, 2]}, topics=["foo"], rebalance_timeout_ms=45000),
                   "assignment_epochs": epochs({"foo": [0, 1, 2]}, 10),
                   "classic": classic(["foo"], [("foo", 0), ("foo", 1), ("foo", 2)])},
        MEMBER_2: member(10, 9, topics=["bar"], rebalance_timeout_ms=45000),
    }, target={MEMBER_1: {"foo": [0, 1, 2]}, MEMBER_2: {"foo": [3, 4, 5]}})
    return h


def _member_2_triggers_the_new_target(h):
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}, MEMBER_2: {"bar": [0, 1, 2]}})
    expect_response(h.heartbeat(MEMBER_2, 10), MEMBER_2, 11, {"bar": [0, 1, 2]})


@pytest.mark.parametrize("version, first", [(V42, Errors.REBALANCE_IN_PROGRESS), (V43, NONE)])
def test_classic_group_heartbeat_to_consumer_group_during_assignment_delay(version, first):
    """GroupMetadataManagerTest.testClassicGroupHeartbeatToConsumerGroupDuringAssignmentDelay @ v8.3.0.

    Member 1's Heartbeat (generation 10) is answered NONE while the target is still epoch 10,
    and REBALANCE_IN_PROGRESS once member 2's heartbeat has computed epoch 11's. At v8.2.0
    `classicGroupHeartbeatToConsumerGroup` compared with the group epoch (11): the first
    Heartbeat already asked it to rejoin.
    """
    h = _classic_member_during_assignment_delay(version)
    assert h.coord.heartbeat(GROUP, MEMBER_1, 10).error is first
    _member_2_triggers_the_new_target(h)
    assert h.coord.heartbeat(GROUP, MEMBER_1, 10).error is Errors.REBALANCE_IN_PROGRESS


@pytest.mark.parametrize("version, first", [(V42, Errors.REBALANCE_IN_PROGRESS), (V43, NONE)])
def test_classic_group_sync_to_consumer_group_during_assignment_delay(version, first):
    """GroupMetadataManagerTest.testClassicGroupSyncToConsumerGroupDuringAssignmentDelay @ v8.3.0.

    The same with SyncGroup (`throwIfRebalanceInProgress`): accepted before the new target, with
    the member's current assignment (foo 0-2); REBALANCE_IN_PROGRESS after it. At v8.2.0 the
    group epoch decided: refused from the start.
    """
    from kafkasim.core.embedded_protocol import decode_assignment

    h = _classic_member_during_assignment_delay(version)
    r = h.coord.sync_group(GROUP, MEMBER_1, 10)
    assert r.error is first
    if first is NONE:
        assert decode_assignment(r.assignment) == {"foo": [0, 1, 2]}
    _member_2_triggers_the_new_target(h)
    assert h.coord.sync_group(GROUP, MEMBER_1, 10).error is Errors.REBALANCE_IN_PROGRESS


# ======================================================================================
# KIP-1251 (4.3): offset commits checked against each partition's assignment epoch
# ======================================================================================


def _member_at_10_holding_foo_0_since_7(version, *, pending=False, classic_member=False, extra=None):
    """ConsumerGroupTest's member: epoch 10, foo 0 assigned (or pending revocation) at epoch 7."""
    held = {"foo": [0]}
    fields = member(10, 9, assigned=None if pending else held, pending=held if pending else None, topics=["foo"],
                    rebalance_timeout_ms=5000, state="UNREVOKED_PARTITIONS" if pending else "STABLE")
    fields["assignment_epochs"] = epochs(held, 7)
    if extra:
        fields["pending_revocation"] = extra
        fields["assignment_epochs"]["foo"].update({p: 7 for p in extra["foo"]})
    if classic_member:
        fields["classic"] = classic(["foo"])
    h = Harness({"foo": 3, "bar": 1}, version=version)
    h.load(group_epoch=10, target_epoch=10, members={"member-id": fields}, target={"member-id": held})
    return h


def commit(h, epoch, partition=("foo", 0)):
    return h.coord.commit_offsets(GROUP, "member-id", epoch, {partition: 100}).error


@pytest.mark.parametrize("pending", [False, True])
def test_validate_offset_commit_with_epoch_validation(pending):
    """ConsumerGroupTest.testValidateOffsetCommitWithEpochValidation @ v8.3.0 (OffsetCommit v9+,
    ASSIGNED and PENDING_REVOCATION).

    Member epoch 10, foo 0 held since epoch 7: epoch 11 is refused (STALE_MEMBER_EPOCH), 10
    accepted, 7 accepted (assignment epoch <= commit epoch <= member epoch), 6 refused
    ("Received member epoch 6 is older than assignment epoch 7 for partition foo-0.").
    """
    h = _member_at_10_holding_foo_0_since_7(V43, pending=pending)
    assert [commit(h, e) for e in (11, 10, 7, 6)] == [
        Errors.STALE_MEMBER_EPOCH, NONE, NONE, Errors.STALE_MEMBER_EPOCH]
    assert Errors.STALE_MEMBER_EPOCH.value == 113


def test_validate_offset_commit_with_an_older_epoch_before_4_3():
    """ConsumerGroupTest.testValidateOffsetCommit's epoch rule @ v8.2.0: any epoch but the
    member's is STALE_MEMBER_EPOCH (`validateMemberEpoch`); 4.3's accepted epoch 7 is refused."""
    h = _member_at_10_holding_foo_0_since_7(V42)
    assert [commit(h, e) for e in (11, 10, 7, 6)] == [
        Errors.STALE_MEMBER_EPOCH, NONE, Errors.STALE_MEMBER_EPOCH, Errors.STALE_MEMBER_EPOCH]


def test_validate_offset_commit_with_classic_protocol_member():
    """ConsumerGroupTest.testValidateOffsetCommitWithClassicProtocolMember @ v8.3.0.

    The same epochs for a classic member answer ILLEGAL_GENERATION (22) instead: 11 refused,
    10 and 7 accepted, 6 refused.
    """
    h = _member_at_10_holding_foo_0_since_7(V43, classic_member=True)
    assert [commit(h, e) for e in (11, 10, 7, 6)] == [
        Errors.ILLEGAL_GENERATION, NONE, NONE, Errors.ILLEGAL_GENERATION]
    assert Errors.ILLEGAL_GENERATION.value == 22


def test_validate_offset_commit_with_unassigned_topic_or_partition():
    """ConsumerGroupTest.testValidateOffsetCommitWithUnassignedTopicOrPartition @ v8.3.0.

    foo 0 assigned and foo 1 pending revocation, both since epoch 7: a commit at epoch 7 of
    bar 0 (another topic) or foo 2 (not held) fails ("Partition bar-0 is not assigned or
    pending revocation for member."); foo 1, pending revocation, passes; one stale partition
    fails the whole request, so foo 0 with foo 2 fails too, and nothing is stored (derived).
    """
    h = _member_at_10_holding_foo_0_since_7(V43, extra={"foo": [1]})
    assert commit(h, 7, ("bar", 0)) is Errors.STALE_MEMBER_EPOCH
    assert commit(h, 7, ("foo", 2)) is Errors.STALE_MEMBER_EPOCH
    assert commit(h, 7, ("foo", 1)) is NONE
    r = h.coord.commit_offsets(GROUP, "member-id", 7, {("foo", 0): 5, ("foo", 2): 5})
    assert r.partition_errors == {("foo", 0): Errors.STALE_MEMBER_EPOCH, ("foo", 2): Errors.STALE_MEMBER_EPOCH}
    assert h.coord.committed(GROUP) == {("foo", 1): 100}


@pytest.mark.parametrize("version", [V42, V43])
def test_consumer_group_offset_commit_with_stale_member_epoch(version):
    """OffsetMetadataManagerTest.testConsumerGroupOffsetCommitWithStaleMemberEpoch @ v8.2.0 and v8.3.0.

    A member at epoch 10 that holds nothing commits bar 0 at epoch 9, then 11: both refused
    with STALE_MEMBER_EPOCH in both releases (4.3: bar 0 is not one of its partitions).
    """
    h = Harness({"bar": 1}, version=version)
    h.load(group_epoch=10, target_epoch=10, members={"member": member(10, 10, topics=["bar"])}, target={})
    for epoch in (9, 11):
        assert h.coord.commit_offsets(GROUP, "member", epoch, {("bar", 0): 100}).error is Errors.STALE_MEMBER_EPOCH


def test_assignment_epochs_follow_the_member_through_a_rebalance():
    """CurrentAssignmentBuilder at v8.3.0 (KIP-1251, as testConsumerGroupAssignmentInterval's records
    show them): a partition the member keeps keeps its assignment epoch, a new one gets the target
    epoch. Member 1 got foo 0-5 at epoch 2; after member 2 joins (epoch 3) it keeps foo 0-2 from
    epoch 2, so a commit of foo 0 at epoch 2 is still accepted at member epoch 3, and member 2's
    foo 3, new at epoch 3, refuses an epoch-2 commit (derived from `createAssignmentEpochValidator`)."""
    h = Harness({"foo": 6}, version=V43, group_consumer_assignment_interval_ms=0)
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})
    h.join(MEMBER_1, ["foo"])
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2]}, MEMBER_2: {"foo": [3, 4, 5]}})
    expect_response(h.join(MEMBER_2, ["foo"]), MEMBER_2, 3, {})  # waits for foo 3-5
    expect_response(h.heartbeat(MEMBER_1, 2, owned_partitions={"foo": [0, 1, 2, 3, 4, 5]}), MEMBER_1, 2,
                    {"foo": [0, 1, 2]})  # revoke 3-5 first, at epoch 2
    expect_response(h.heartbeat(MEMBER_1, 2, owned_partitions={"foo": [0, 1, 2]}), MEMBER_1, 3, None)
    expect_response(h.heartbeat(MEMBER_2, 3, owned_partitions={}), MEMBER_2, 3, {"foo": [3, 4, 5]})
    assert h.coord.commit_offsets(GROUP, MEMBER_1, 2, {("foo", 0): 1}).error is NONE
    assert h.coord.commit_offsets(GROUP, MEMBER_2, 2, {("foo", 3): 1}).error is Errors.STALE_MEMBER_EPOCH
    assert h.coord.commit_offsets(GROUP, MEMBER_2, 3, {("foo", 3): 1}).error is NONE


# ======================================================================================
# 4.3.1: KAFKA-20601 (static rejoin into a full group), KAFKA-20640 (migration policy disabled)
# ======================================================================================


def _full_group_with_static_member(version, epoch):
    h = Harness({"foo": 1}, version=version, group_consumer_max_size=1)
    h.load(group_epoch=10, target_epoch=10, members={"old-member-id": {
        **member(epoch, 9, assigned={"foo": [0]}, instance_id="instance-id", rebalance_timeout_ms=5000),
        "assignment_epochs": epochs({"foo": [0]}, 10)}}, target={"old-member-id": {"foo": [0]}})
    return h


@pytest.mark.parametrize("version, rejoined", [(V43, False), (V431, True), (V44, True)])
def test_static_member_can_rejoin_when_consumer_group_is_full(version, rejoined):
    """GroupMetadataManagerTest.testStaticMemberCanRejoinWhenConsumerGroupIsFull @ v8.3.1 (and 4.4).

    group.consumer.max.size = 1, its one member static and temporarily gone (epoch -2): the same
    instance id rejoins under a new member id with subscription foo (was foo, bar) and gets epoch
    11 with foo 0. At v8.3.0 `throwIfConsumerGroupIsFull` counted it as a new member:
    GROUP_MAX_SIZE_REACHED.
    """
    h = _full_group_with_static_member(version, -2)
    h.assignor.prepare_group_assignment({"new-member-id": {"foo": [0]}})
    r = h.join("new-member-id", ["foo"], instance_id="instance-id")
    if rejoined:
        expect_response(r, "new-member-id", 11, {"foo": [0]})
        assert h.coord.member_ids(GROUP) == ["new-member-id"]
    else:
        assert r.error is Errors.GROUP_MAX_SIZE_REACHED
        assert r.error_message == "The consumer group has reached its maximum capacity of 1 members."


@pytest.mark.parametrize("version", [V43, V431])
def test_static_member_rejoin_with_unreleased_instance_id_fails_when_consumer_group_is_full(version):
    """GroupMetadataManagerTest.testStaticMemberRejoinWithUnreleasedInstanceIdFailsWhenConsumerGroupIsFull @ v8.3.1
    and testNewStaticMemberIsRejectedWhenConsumerGroupIsFull @ v8.3.1.

    The static member has not left (epoch 10): from 4.3.1 its instance id gets past the size
    check and fails as unreleased (UNRELEASED_INSTANCE_ID); at v8.3.0 the size check came first.
    Another instance id is refused as the group is full in both.
    """
    h = _full_group_with_static_member(version, 10)
    r = h.join("new-member-id", ["foo"], instance_id="instance-id")
    assert r.error is (Errors.UNRELEASED_INSTANCE_ID if version == V431 else Errors.GROUP_MAX_SIZE_REACHED)
    assert h.join("new-member-id", ["foo"], instance_id="other-instance-id").error is Errors.GROUP_MAX_SIZE_REACHED


@pytest.mark.parametrize("version", [V43, V431])
def test_classic_member_join_to_consumer_group_with_disabled_migration_policy(version):
    """GroupMetadataManagerTest.testClassicMemberJoinToConsumerGroupWithDisabledMigrationPolicy(isStatic=false)
    @ v8.3.1.

    Under group.consumer.migration.policy=disabled a consumer group holding a classic member
    refuses a new classic member and the existing one rejoining: INCONSISTENT_GROUP_PROTOCOL,
    with an INFO line "Cannot join the consumer group group-id with the classic protocol because
    the group migration is disabled." (KAFKA-20640). At v8.3.0 the join went ahead: the new
    member without id is asked for one (MEMBER_ID_REQUIRED), the existing one rejoins.
    """
    h = Harness({}, version=version, group_consumer_migration_policy="disabled")
    h.load(group="group-id", group_epoch=10, target_epoch=10, members={
        "classic-member": {**member(10, 10, topics=[]), "classic": classic([])}}, target={})
    protocols = (("range", encode({"topics": [], "generation": -1, "owned": []})),)
    new = h.coord.join_group("group-id", "", protocols=protocols)
    rejoin = h.coord.join_group("group-id", "classic-member", protocols=protocols)
    line = ("Cannot join the consumer group group-id with the classic protocol because the group migration is "
            "disabled.")
    if version == V431:
        assert (new.error, rejoin.error) == (Errors.INCONSISTENT_GROUP_PROTOCOL,) * 2
        assert sum(line in text for text in h.coord.broker_log) == 2
    else:
        assert (new.error, rejoin.error) == (Errors.MEMBER_ID_REQUIRED, NONE)
        assert not any(line in text for text in h.coord.broker_log)


@pytest.mark.parametrize("version", [V43, V431])
def test_classic_static_member_join_to_consumer_group_with_disabled_migration_policy(version):
    """GroupMetadataManagerTest.testClassicMemberJoinToConsumerGroupWithDisabledMigrationPolicy(isStatic=true) @ v8.3.1.

    The group holds a static classic member and a static consumer-protocol member. Under
    policy disabled, from 4.3.1, a new static classic member, the classic member rejoining
    under its instance id, and a classic member taking the consumer member's instance id are
    all refused with INCONSISTENT_GROUP_PROTOCOL. At v8.3.0 the new static member simply joins.
    """
    h = Harness({}, version=version, group_consumer_migration_policy="disabled")
    h.load(group="group-id", group_epoch=10, target_epoch=10, members={
        "classic-member": {**member(10, 10, topics=[], instance_id="classic-instance-id"), "classic": classic([])},
        "consumer-member": member(10, 10, topics=[], instance_id="consumer-instance-id")}, target={})
    protocols = (("range", encode({"topics": [], "generation": -1, "owned": []})),)
    errors = [h.coord.join_group("group-id", "", instance, protocols=protocols).error
              for instance in ("new-instance-id", "classic-instance-id", "consumer-instance-id")]
    if version == V431:
        assert errors == [Errors.INCONSISTENT_GROUP_PROTOCOL] * 3
    else:
        assert errors[0] is NONE


@pytest.mark.parametrize("version, error", [(V43, Errors.GROUP_MAX_SIZE_REACHED), (V431, NONE)])
def test_static_member_can_rejoin_consumer_group_with_classic_protocol_when_group_is_full(version, error):
    """GroupMetadataManagerTest.testStaticMemberCanRejoinConsumerGroupWithClassicProtocolWhenGroupIsFull @ v8.3.1
    (and testNewStaticMemberClassicGroupJoinThrowsGroupMaxSizeReachedExceptionWhenConsumerGroupIsFull).

    group.consumer.max.size = 1, its one member a static classic member: a JoinGroup with the
    same instance id under a new member id is accepted from 4.3.1 (KAFKA-20601), refused with
    GROUP_MAX_SIZE_REACHED at v8.3.0; another instance id is refused in both.
    """
    h = Harness({"foo": 1}, version=version, group_consumer_max_size=1)
    h.load(group_epoch=10, target_epoch=10, members={"old-member-id": {
        **member(10, 9, assigned={"foo": [0]}, topics=["foo"], instance_id="instance-id", rebalance_timeout_ms=5000),
        "classic": classic(["foo"], [("foo", 0)])}}, target={"old-member-id": {"foo": [0]}})
    protocols = (("range", encode({"topics": ["foo"], "generation": -1, "owned": []})),)
    assert h.coord.join_group(GROUP, "", "instance-id", protocols=protocols).error is error
    assert h.coord.join_group(GROUP, "", "other-instance-id", protocols=protocols).error is \
        Errors.GROUP_MAX_SIZE_REACHED


# ======================================================================================
# 4.4: KAFKA-20434 (a change of the preferred assignor bumps the group epoch)
# ======================================================================================


@pytest.mark.parametrize("version", [V43, V44])
def test_static_members_rejoin_with_new_server_assignor(version):
    """GroupMetadataManagerTest.testStaticMembersRejoinWithNewServerAssignor @ 4.4.

    Three static members on "uniform" (foo 0-1, 2-3, 4-5, epoch 10) leave with -2. Member 2
    rejoins asking for "range": uniform still has 2 of 3, no bump, epoch 10 with foo 2-3.
    Member 3 rejoins with "range": the preferred assignor becomes range, so 4.4 bumps the
    group epoch to 11 and computes the target with range (foo 4-5 for it). At v8.3.0 the
    assignor did not count (`bumpGroupEpoch` only looked at subscriptions): epoch 10, foo 4-5,
    no assignor run.
    """
    uniform, range_ = PreparedAssignor("uniform"), PreparedAssignor("range")
    h = Harness({"foo": 6}, version=version, assignors=(uniform, range_))
    held = {"m1": [0, 1], "m2": [2, 3], "m3": [4, 5]}
    h.load(group_epoch=10, target_epoch=10, members={
        m: {**member(10, 9, assigned={"foo": ps}, topics=["foo"], instance_id=f"instance-id-{m[1]}",
                     rebalance_timeout_ms=5000, server_assignor="uniform"),
            "assignment_epochs": epochs({"foo": ps}, 10)} for m, ps in held.items()},
        target={m: {"foo": ps} for m, ps in held.items()})
    for m in held:
        expect_leave_response(h.heartbeat(m, -2, instance_id=f"instance-id-{m[1]}"), m, -2)
    expect_response(h.join("m2-rejoin", ["foo"], instance_id="instance-id-2"), "m2-rejoin", 10, {"foo": [2, 3]})
    range_.prepare_group_assignment({"m1": {"foo": [0, 1]}, "m2-rejoin": {"foo": [2, 3]}, "m3-rejoin": {"foo": [4, 5]}})
    epoch = 11 if version == V44 else 10
    expect_response(h.join("m3-rejoin", ["foo"], instance_id="instance-id-3"), "m3-rejoin", epoch, {"foo": [4, 5]})
    assert h.coord.group_epoch(GROUP) == epoch
    assert (len(range_.calls), uniform.calls) == ((1 if version == V44 else 0), [])


@pytest.mark.parametrize("named", [None, "range"])
def test_a_heartbeat_that_leaves_the_preferred_assignor_as_it_was_does_not_bump_the_group_epoch(named):
    """GroupMetadataManager.hasPreferredServerAssignorChanged @ 4.4: the group's preferred assignor
    before the update and after it, each falling back to the default (the first configured, "uniform")
    when no member names one, bump the group epoch only when they differ. A stable member's plain
    heartbeat changes neither: epoch 10 stays and no assignor runs, whether no member names an assignor
    (the default on both sides) or both name "range", which is not the default (range on both sides)."""
    uniform, range_ = PreparedAssignor("uniform"), PreparedAssignor("range")
    h = Harness({"foo": 6}, version=V44, assignors=(uniform, range_))
    held = {"m1": [0, 1, 2], "m2": [3, 4, 5]}
    h.load(group_epoch=10, target_epoch=10, members={
        m: {**member(10, 9, assigned={"foo": ps}, topics=["foo"], rebalance_timeout_ms=5000, server_assignor=named),
            "assignment_epochs": epochs({"foo": ps}, 10)} for m, ps in held.items()},
        target={m: {"foo": ps} for m, ps in held.items()})
    expect_response(h.heartbeat("m1", 10), "m1", 10, None)
    assert h.coord.group_epoch(GROUP) == 10
    assert (uniform.calls, range_.calls) == ([], [])


# ======================================================================================
# apache/kafka#21325 (4.3): revoking unsubscribed topics also moves the previous member epoch
# ======================================================================================


@pytest.mark.parametrize("version, previous", [(V42, 9), (V43, 10)])
def test_stable_to_stable_with_assignment_topics_no_longer_in_subscription(version, previous):
    """CurrentAssignmentBuilderTest.testStableToStableWithAssignmentTopicsNoLongerInSubscription(10, 10, 10, true)
    @ v8.3.0.

    The builder alone, as Kafka's test drives it: a member STABLE at 10 (previous 9), target
    epoch 10, holds topic1 1-3 and topic2 4-6, has just changed its subscription to topic2 and
    owns topic2 4-6. It stays STABLE at 10 with topic2 4-6, and from 4.3 its previous epoch
    becomes 10 ("updated in all cases tested here, including the case where assigned partitions
    are removed due to a subscription change"). v8.2.0's `updateCurrentAssignment` left it at 9
    (its test started the member at previous = epoch, so it could not tell).
    """
    from kafkasim.coordinator.modern.consumer import ConsumerGroupMember, ProtocolRules, Reconciler

    m = ConsumerGroupMember("member", subscribed_topic_names=frozenset({"topic2"}), member_epoch=10,
                            previous_member_epoch=9, assigned={"topic1": frozenset({1, 2, 3}),
                                                               "topic2": frozenset({4, 5, 6})})
    target = {"topic1": frozenset({1, 2, 3}), "topic2": frozenset({4, 5, 6})}
    new = Reconciler(m, 10, target, lambda t, p: None, {"topic2": frozenset({4, 5, 6})},
                     ProtocolRules.for_version(version).reconciliation, frozenset({"topic2"}), True).build()
    assert (new.state, new.member_epoch, new.previous_member_epoch) == ("STABLE", 10, previous)
    assert new.assigned == {"topic2": frozenset({4, 5, 6})} and new.pending_revocation == {}


@pytest.mark.parametrize("version, previous", [(V42, 9), (V43, 10)])
def test_unsubscribed_partitions_still_owned_move_the_previous_epoch_too(version, previous):
    """The other branch of `updateCurrentAssignment` @ v8.3.0: the client still owns the partitions
    of the topic it dropped, so the member goes to UNREVOKED_PARTITIONS, and that builder also calls
    `updateMemberEpoch(memberEpoch)` from 4.3: previous epoch 10, where 4.2 kept 9."""
    from kafkasim.coordinator.modern.consumer import ConsumerGroupMember, ProtocolRules, Reconciler

    both = {"topic1": frozenset({1, 2, 3}), "topic2": frozenset({4, 5, 6})}
    m = ConsumerGroupMember("member", subscribed_topic_names=frozenset({"topic2"}), member_epoch=10,
                            previous_member_epoch=9, assigned=both)
    new = Reconciler(m, 10, both, lambda t, p: None, both, ProtocolRules.for_version(version).reconciliation,
                     frozenset({"topic2"}), True).build()
    assert (new.state, new.member_epoch, new.previous_member_epoch) == ("UNREVOKED_PARTITIONS", 10, previous)
    assert new.assigned == {"topic2": frozenset({4, 5, 6})}
    assert new.pending_revocation == {"topic1": frozenset({1, 2, 3})}


def test_unsubscribing_while_the_target_is_postponed_moves_the_previous_epoch():
    """The same case reached through the coordinator, which 4.3's assignment interval makes
    possible (derived from the test above and `maybeUpdateTargetAssignment` at v8.3.0): the
    subscription change bumps the group epoch to 12 but the interval postpones epoch 12's target,
    so the member reconciles towards epoch 11's with its new subscription: STABLE at 11 with
    topic2 only, previous epoch 11, so a retry at its old previous epoch 10 is fenced."""
    h = Harness({"topic1": 10, "topic2": 10}, version=V43)
    both = {"topic1": [1, 2, 3], "topic2": [4, 5, 6]}
    h.load(group_epoch=11, target_epoch=10, members={"member": member(10, 9, assigned=both, topics=["topic1", "topic2"],
                                                                      rebalance_timeout_ms=5000)},
           target={"member": both})
    h.assignor.prepare_group_assignment({"member": both})
    expect_response(h.heartbeat("member", 10, owned_partitions=both), "member", 11, None)  # target 11, at once
    r = h.heartbeat("member", 11, subscribed_topic_names=["topic2"], owned_partitions={"topic2": [4, 5, 6]})
    expect_response(r, "member", 11, {"topic2": [4, 5, 6]})
    assert (h.coord.group_epoch(GROUP), h.coord.target_assignment_epoch(GROUP)) == (12, 11)
    assert h.heartbeat("member", 10, owned_partitions={"topic2": [4, 5, 6]}).error is Errors.FENCED_MEMBER_EPOCH


#: The 4.3+ switches of `ProtocolRules`, one row per release around each boundary; expected values
#: from the tags each change first appears at (v8.3.0, v8.3.1, the 4.4 head), not from the code.
#:   version  epoch1 epochs classic full   migr   assignor empty  prev
RULES_43 = [
    ("4.2",   0, False, False, False, False, False, False, False),
    ("4.2.9", 0, False, False, False, False, False, False, False),
    ("4.3",   1, True,  True,  False, False, False, False, True),
    ("4.3.0", 1, True,  True,  False, False, False, False, True),
    ("4.3.1", 1, True,  True,  True,  True,  False, False, True),
    ("4.4",   1, True,  True,  True,  True,  True,  True,  True),
]


@pytest.mark.parametrize("version, epoch1, epochs_, classic_, full, migration, assignor, empty, prev", RULES_43)
def test_protocol_rules_of_4_3_and_4_4(version, epoch1, epochs_, classic_, full, migration, assignor, empty, prev):
    from kafkasim.coordinator.modern.consumer import ProtocolRules

    r = ProtocolRules.for_version(version)
    assert (r.initial_group_epoch, r.assignment_epochs, r.classic_follows_target_epoch, r.static_rejoin_when_full,
            r.classic_join_needs_migration, r.bump_on_assignor_change, r.empty_group_catches_up,
            r.reconciliation.unsubscribe_moves_previous_epoch) == (
        epoch1, epochs_, classic_, full, migration, assignor, empty, prev)
    assert (r.rejoin_with_epoch_zero, r.bump_on_regex_clear, r.uniform_stable_extra) == (True, True, True)


# ======================================================================================
# The version table, read at the tags
# ======================================================================================

# GroupCoordinatorConfig.java / ConsumerConfig.java defaults at v8.2.0, v8.3.0, v8.3.1 and the 4.4 head
# (None: not defined in that release).
TAG_DEFAULTS = {
    "group.consumer.session.timeout.ms": (45000, 45000, 45000, 45000),
    "group.consumer.min.session.timeout.ms": (45000, 45000, 45000, 45000),
    "group.consumer.max.session.timeout.ms": (60000, 60000, 60000, 60000),
    "group.consumer.heartbeat.interval.ms": (5000, 5000, 5000, 5000),
    "group.consumer.min.heartbeat.interval.ms": (5000, 5000, 5000, 5000),
    "group.consumer.max.heartbeat.interval.ms": (15000, 15000, 15000, 15000),
    "group.consumer.max.size": (2**31 - 1,) * 4,
    "group.consumer.assignors": (["uniform", "range"],) * 4,
    "group.consumer.migration.policy": ("bidirectional",) * 4,
    "group.consumer.assignment.interval.ms": (None, 1000, 1000, 1000),
    "group.consumer.min.assignment.interval.ms": (None, 0, 0, 0),
    "group.consumer.max.assignment.interval.ms": (None, 15000, 15000, 15000),
    "group.coordinator.rebalance.protocols": (["classic", "consumer", "streams"],) * 4,
    "group.initial.rebalance.delay.ms": (3000,) * 4,
    "group.min.session.timeout.ms": (6000,) * 4,
    "group.max.session.timeout.ms": (1800000,) * 4,
    "group.max.size": (2**31 - 1,) * 4,
}


@pytest.mark.parametrize("name", sorted(TAG_DEFAULTS))
def test_version_table_matches_the_tags(name):
    """The broker defaults of 4.2, 4.3, 4.3.1 and 4.4 as GroupCoordinatorConfig.java defines them at
    v8.2.0, v8.3.0, v8.3.1 and the 4.4 head (group.consumer.assignor.offload.enable is no config
    at v8.3.0, KAFKA-20339, and an internal one at 4.4, KAFKA-20930: not in the table)."""
    got = tuple(broker_config(v)[name] for v in ("4.2", "4.3", "4.3.1", "4.4"))
    assert got == TAG_DEFAULTS[name]
    assert "group.consumer.assignor.offload.enable" not in BROKER_CONFIGS


def test_client_group_protocol_default_is_still_classic():
    """ConsumerConfig.DEFAULT_GROUP_PROTOCOL at v8.3.0 and the 4.4 head: "classic" (KIP-1274 plans
    "consumer" for 5.0); no consumer default kafkasim lists changed from 4.2 to 4.4."""
    for version in ("4.2", "4.3", "4.4"):
        assert CONSUMER_CONFIGS["group.protocol"].default(version) == "classic"
    assert {n: s.default("4.2") for n, s in CONSUMER_CONFIGS.items()} == \
        {n: s.default("4.4") for n, s in CONSUMER_CONFIGS.items()}


def test_rebalance_protocols_deprecation_warning():
    """KafkaConfig.groupCoordinatorRebalanceProtocols @ v8.3.0 (KIP-1237, KAFKA-19740): setting
    group.coordinator.rebalance.protocols WARNs from 4.3, naming the protocols it leaves out;
    4.2 says nothing; leaving it unset says nothing."""
    overrides = {"group.coordinator.rebalance.protocols": ["classic", "consumer"]}
    assert broker_config_warnings("4.2", overrides) == [] and broker_config_warnings("4.3") == []
    [warning] = broker_config_warnings("4.3", overrides)
    assert warning.startswith("The config `group.coordinator.rebalance.protocols` is deprecated and will be removed "
                              "in Kafka 5.0. The following protocol(s) are currently disabled: STREAMS. ")
    full = {"group.coordinator.rebalance.protocols": ["classic", "consumer", "streams"]}
    assert broker_config_warnings("4.4", full) == [
        "The config `group.coordinator.rebalance.protocols` is deprecated and will be removed in Kafka 5.0. Please "
        "remove the configuration to prepare for the upgrade."]


@pytest.mark.parametrize("version", ["4.3", "4.3.1", "4.4", "4.4.0"])
def test_the_coordinator_accepts_the_new_lines(version):
    coord = GroupCoordinator(Simulation(0), kafka_version=version)
    assert coord.consumer_groups.assignment_interval_ms == 1000


@pytest.mark.parametrize("version", ["4.5", "9.9", "5.0", "0.8.2"])
def test_the_coordinator_refuses_a_version_it_does_not_model(version):
    """Worded as Scenario's refusal (`normalize_version`): the supported lines are listed."""
    with pytest.raises(ConfigError, match=rf"Unsupported kafka_version '{version}'.*supported versions: 0.9, "
                                          r"0.10.0, .*4.2, 4.3, 4.4 \(a release"):
        GroupCoordinator(Simulation(0), kafka_version=version)


def test_a_legacy_static_members_partitions_count_as_assigned_from_epoch_0():
    """Utils.assignmentFromTopicPartitions @ v8.3.0 (KIP-1251): a member record written without
    assignment epochs reads every partition as assigned at the member epoch, never below 0 ("For
    legacy static member, the defaultEpoch could be -2"). The static member gone temporarily (epoch
    -2) holds foo 0 from epoch 0; its instance id rejoins under a new member id, same subscription, at
    the group's epoch 10 and keeps foo 0 with its epoch 0 (CurrentAssignmentBuilder), so a commit of foo 0 at epoch 0 is accepted
    and one at -1 refused (createAssignmentEpochValidator: stale below the partition's epoch)."""
    h = Harness({"foo": 1}, version=V43)
    h.load(group_epoch=10, target_epoch=10, members={"old-member-id": member(
        -2, 9, assigned={"foo": [0]}, topics=["foo"], instance_id="instance-id", rebalance_timeout_ms=5000)},
        target={"old-member-id": {"foo": [0]}})
    h.assignor.prepare_group_assignment({"new-member-id": {"foo": [0]}})
    expect_response(h.join("new-member-id", ["foo"], instance_id="instance-id"), "new-member-id", 10, {"foo": [0]})
    assert h.coord.commit_offsets(GROUP, "new-member-id", 0, {("foo", 0): 1}).error is NONE
    assert h.coord.commit_offsets(GROUP, "new-member-id", -1, {("foo", 0): 1}).error is Errors.STALE_MEMBER_EPOCH
