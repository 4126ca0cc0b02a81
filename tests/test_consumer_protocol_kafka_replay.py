"""Scenarios replayed from Apache Kafka's own tests of the consumer group protocol (KIP-848).

Every test below follows one Kafka unit test, named in its docstring as ``Class.method @ tag``:
at the Apache tag ``4.0.0`` on a coordinator configured as Kafka 4.0.0, and, in a last
section, what 4.1 and 4.2 changed, at the tag ``4.2.0-rc1`` on a coordinator configured as
Kafka 4.2.0. The classes, all under
``group-coordinator/src/test/java/org/apache/kafka/coordinator/group/``:

- ``GroupMetadataManagerTest`` (``GroupMetadataManagerTest.java``): the coordinator's
  handling of ``ConsumerGroupHeartbeat``, its timers and its errors;
- ``CurrentAssignmentBuilderTest`` (``modern/consumer/CurrentAssignmentBuilderTest.java``):
  the per-member reconciliation state machine;
- ``OptimizedUniformAssignmentBuilderTest`` and ``UniformHeterogeneousAssignmentBuilderTest``
  (``assignor/``): the ``uniform`` server assignor, homogeneous and heterogeneous
  subscriptions;
- ``RangeAssignorTest`` (``assignor/RangeAssignorTest.java``): the ``range`` server assignor.

The scenarios are translated, not copied: the steps and the asserted outcomes are Kafka's,
the code is ours, and it goes through kafkasim's request-level API only
(``GroupCoordinator.consumer_group_heartbeat``, ``load_consumer_group``, the group and member
accessors and ``Simulation.advance``). Translation rules:

- Topic ids become topic names; Kafka's random member ids become fixed readable strings
  (``memberId1``...); every other value (epochs, partition counts, partitions, timeouts,
  instance ids, assignor names) is Kafka's.
- A request field the Kafka test does not set is sent as "not sent" (``None``, or ``-1`` for
  the rebalance timeout), as on the wire.
- ``assertResponseEquals`` becomes a check of every response field: error, member id, member
  epoch, heartbeat interval and assignment (``None`` when Kafka's response has none, ``{}``
  when it has an empty one). A leave response has interval 0 and no assignment, as Kafka's
  ``new ConsumerGroupHeartbeatResponseData().setMemberId(..).setMemberEpoch(..)``.
- A thrown exception becomes the error code the broker puts on the wire for it.
- Records become the state they write, read back through the API: a current-assignment
  record is ``member_epoch`` / ``member_state`` / ``assigned_partitions`` /
  ``partitions_pending_revocation``; target-assignment records are ``target_assignment`` and
  ``target_assignment_epoch``; an epoch record is ``group_epoch``; tombstones are members
  gone from the group and from the target.
- ``MockPartitionAssignor.prepareGroupAssignment`` becomes ``PreparedAssignor`` (an object
  with ``name`` and ``assign(members, topics)`` returning the prepared assignment); Kafka's
  ``NoOpPartitionAssignor`` becomes ``NoOpAssignor``.
- A group built with ``ConsumerGroupBuilder`` (or replayed record by record) is restored with
  ``load_consumer_group``, member fields as in Kafka's ``ConsumerGroupMember.Builder``
  (whose defaults are previous epoch -1 and rebalance timeout -1). As in Kafka's test
  context, restored members have no session timer until their first heartbeat.
- ``MockCoordinatorTimer``: ``context.sleep(ms)`` moves the clock and expires every timer
  with ``deadline <= now``; ``Simulation.advance(ms)`` does the same.
- ``CurrentAssignmentBuilderTest`` drives the state machine alone, with a function giving
  each partition's holder epoch. Here the member heartbeats inside a restored group whose
  other members really hold those partitions (a holder at epoch 10 is a member at epoch 10
  still revoking them). The coordinator needs a subscription and a rebalance timeout for
  these members: they subscribe to both topics and get 5000 ms.
- ``previousMemberEpoch``, part of the member records Kafka's tests expect, is observed the
  way a client can observe it: where it is below the member epoch, a heartbeat retried with
  it, owning a subset of the assigned partitions, is accepted with the current epoch
  (``GroupMetadataManager.throwIfConsumerGroupMemberEpochIsInvalid``); where Kafka's record
  moves it off an older value, a retry with the older value is fenced.
- Assignor tests feed the assignor through the coordinator: the group is restored in
  ``Assigning`` (group epoch 11, target epoch 10) with Kafka's members, subscriptions and
  previous target assignment, and one heartbeat computes the new target, which must equal
  Kafka's expected assignment. Only assignor tests whose expected result does not depend on
  the iteration order of Java hash sets of random topic ids are replayed; members are
  restored in Kafka's ``TreeMap`` order (sorted ids), previous assignments in the order the
  Kafka test builds them.

A few assertions go further than the Kafka test (group state, a member gone, no timer left,
a failed request that changed nothing); each is marked "(derived)". Group states follow
``ConsumerGroup.maybeUpdateGroupState`` (no members: Empty; group epoch ahead of the target
epoch: Assigning; a member not STABLE at the target epoch: Reconciling; else Stable); a
failed heartbeat writes no record (``GroupMetadataManager``: records are only returned with
a response). Besides the request API, the tests read ``error_message`` on error responses,
where Kafka asserts the exception's message.
"""

from __future__ import annotations

import copy

from kafkasim import Errors, GroupCoordinator, Simulation
from kafkasim.coordinator.assignor import PartitionAssignorException

KAFKA_VERSION = "4.0.0"
GROUP = "fooup"

# GroupCoordinatorConfig defaults used by GroupMetadataManagerTestContext (4.0.0).
HEARTBEAT_INTERVAL = 5000  # group.consumer.heartbeat.interval.ms
SESSION_TIMEOUT = 45000  # group.consumer.session.timeout.ms

MEMBER_1 = "memberId1"
MEMBER_2 = "memberId2"
MEMBER_3 = "memberId3"
MEMBER_2_REJOIN = "member2RejoinId"

NONE = Errors.NONE


# --------------------------------------------------------------------------------------
# Assignors of Kafka's test suite
# --------------------------------------------------------------------------------------


class PreparedAssignor:
    """MockPartitionAssignor: `assign` returns the assignment the test prepared, whatever it gets.

    Calling it before anything was prepared is a failure of the scenario (Kafka's mock would
    return null and fail the heartbeat), so it raises.
    """

    def __init__(self, name: str = "range"):
        self.name = name
        self._prepared: dict | None = None
        self.calls: list[tuple[dict, dict]] = []

    def prepare_group_assignment(self, assignment: dict) -> None:
        self._prepared = copy.deepcopy(assignment)

    def assign(self, members, topics):
        self.calls.append((copy.deepcopy(members), dict(topics)))
        if self._prepared is None:
            raise AssertionError("the assignor ran although the Kafka scenario never prepares an assignment")
        return copy.deepcopy(self._prepared)


class NoOpAssignor:
    """NoOpPartitionAssignor: every member keeps its current target."""

    name = "no-op"

    def assign(self, members, topics):
        return {member_id: copy.deepcopy(spec["assignment"]) for member_id, spec in members.items()}


class FailingAssignor:
    """The mocked assignor of testPartitionAssignorExceptionOnRegularHeartbeat: `assign` throws
    PartitionAssignorException("Assignment failed.")."""

    def __init__(self, name: str = "range"):
        self.name = name

    def assign(self, members, topics):
        raise PartitionAssignorException("Assignment failed.")


# --------------------------------------------------------------------------------------
# Harness: GroupMetadataManagerTestContext, in kafkasim terms
# --------------------------------------------------------------------------------------


def norm(assignment):
    """An assignment as comparable data: topics with their sorted partitions, empty topics dropped."""
    if assignment is None:
        return None
    return {topic: sorted(partitions) for topic, partitions in assignment.items() if partitions}


def member(epoch, previous, *, state="STABLE", assigned=None, pending=None, topics=("foo", "bar"),
           rebalance_timeout_ms=-1, instance_id=None, server_assignor="range"):
    """A restored member, field for field as Kafka's ConsumerGroupMember.Builder sets it."""
    return {
        "member_epoch": epoch,
        "previous_member_epoch": previous,
        "state": state,
        "assigned": copy.deepcopy(assigned or {}),
        "pending_revocation": copy.deepcopy(pending or {}),
        "subscribed_topic_names": list(topics),
        "rebalance_timeout_ms": rebalance_timeout_ms,
        "instance_id": instance_id,
        "server_assignor": server_assignor,
    }


class Harness:
    """GroupMetadataManagerTestContext: one coordinator, its topics, its configured assignors."""

    def __init__(self, topics=None, *, assignors=None, version=KAFKA_VERSION, **config):
        self.assignor = PreparedAssignor("range")
        self.sim = Simulation(seed=0)
        self.coord = GroupCoordinator(
            self.sim, kafka_version=version, topics=dict(topics or {}),
            group_consumer_assignors=tuple(assignors) if assignors is not None else (self.assignor,),
            **config)

    # -- requests ---------------------------------------------------------------------
    def heartbeat(self, member_id, member_epoch, *, group=GROUP, instance_id=None, rack_id=None,
                  rebalance_timeout_ms=-1, subscribed_topic_names=None, subscribed_topic_regex=None,
                  server_assignor=None, owned_partitions=None):
        fields = dict(member_id=member_id, member_epoch=member_epoch, instance_id=instance_id, rack_id=rack_id,
                      rebalance_timeout_ms=rebalance_timeout_ms, subscribed_topic_names=subscribed_topic_names,
                      server_assignor=server_assignor, owned_partitions=owned_partitions)
        if subscribed_topic_regex is not None:
            fields["subscribed_topic_regex"] = subscribed_topic_regex
        return self.coord.consumer_group_heartbeat(group, **fields)

    def join(self, member_id, topics, *, rebalance_timeout_ms=5000, server_assignor="range", instance_id=None,
             group=GROUP):
        """The joining heartbeat most Kafka scenarios send: epoch 0, full request, nothing owned."""
        return self.heartbeat(member_id, 0, group=group, instance_id=instance_id,
                              rebalance_timeout_ms=rebalance_timeout_ms, subscribed_topic_names=list(topics),
                              server_assignor=server_assignor, owned_partitions={})

    def load(self, *, group_epoch, target_epoch, members, target, group=GROUP):
        """ConsumerGroupBuilder(groupId, groupEpoch).withMember(..).withAssignment(..).withAssignmentEpoch(..)."""
        self.coord.load_consumer_group(group, group_epoch=group_epoch, target_assignment_epoch=target_epoch,
                                       members=copy.deepcopy(members), target_assignment=copy.deepcopy(target))

    # -- inspection -------------------------------------------------------------------
    def state(self, group=GROUP):
        return self.coord.group_state(group)

    def target(self, group=GROUP):
        return {m: norm(a) for m, a in self.coord.target_assignment(group).items()}

    def expect_member(self, member_id, *, epoch, state, assigned, pending=None, group=GROUP):
        """The current-assignment record of a member, read back."""
        assert self.coord.member_epoch(group, member_id) == epoch
        assert self.coord.member_state(group, member_id) == state
        assert norm(self.coord.assigned_partitions(group, member_id)) == norm(assigned)
        assert norm(self.coord.partitions_pending_revocation(group, member_id)) == norm(pending or {})

    def expect_previous_epoch(self, member_id, previous, *, owned, epoch, group=GROUP):
        """previousMemberEpoch, as a client can observe it: a heartbeat retried with the previous
        epoch and owning a subset of the assigned partitions is accepted, and answered with the
        current epoch (GroupMetadataManager.throwIfConsumerGroupMemberEpochIsInvalid). Used only
        where that retry cannot change the member."""
        r = self.heartbeat(member_id, previous, group=group, owned_partitions=owned)
        assert r.error == NONE
        assert r.member_epoch == epoch

    def expect_gone(self, member_id, epoch, group=GROUP):
        """Tombstones for a member (derived): no target left, and its next heartbeat is unknown."""
        assert member_id not in self.coord.target_assignment(group)
        assert self.heartbeat(member_id, epoch, group=group).error == Errors.UNKNOWN_MEMBER_ID


def expect_response(r, member_id, member_epoch, assignment, *, interval=HEARTBEAT_INTERVAL):
    """assertResponseEquals for a successful (non-leave) heartbeat."""
    assert r.error == NONE
    assert r.member_id == member_id
    assert r.member_epoch == member_epoch
    assert r.heartbeat_interval_ms == interval
    if assignment is None:
        assert r.assignment is None
    else:
        assert r.assignment is not None
        assert norm(r.assignment) == norm(assignment)


def expect_leave_response(r, member_id, member_epoch):
    """assertResponseEquals for a leave: member id and negative epoch only."""
    assert r.error == NONE
    assert r.member_id == member_id
    assert r.member_epoch == member_epoch
    assert r.heartbeat_interval_ms == 0
    assert r.assignment is None


def two_member_group(h, *, instance_ids=(None, None), topics_2=("foo", "bar"), rebalance_timeout_ms=-1,
                     subscription_1=("foo", "bar")):
    """The group most GroupMetadataManagerTest scenarios start from: two STABLE members at epoch 10.

    memberId1 owns foo 0-2 and bar 0-1, memberId2 owns foo 3-5 and bar 2; target epoch 10.
    """
    m1 = {"foo": [0, 1, 2], "bar": [0, 1]}
    m2 = {"foo": [3, 4, 5], "bar": [2]}
    h.load(group_epoch=10, target_epoch=10,
           members={
               MEMBER_1: member(10, 9, assigned=m1, topics=subscription_1, instance_id=instance_ids[0],
                                rebalance_timeout_ms=rebalance_timeout_ms),
               MEMBER_2: member(10, 9, assigned=m2, topics=topics_2, instance_id=instance_ids[1],
                                rebalance_timeout_ms=rebalance_timeout_ms),
           },
           target={MEMBER_1: m1, MEMBER_2: m2})


# ======================================================================================
# GroupMetadataManagerTest: request validation and errors
# ======================================================================================


def test_consumer_heartbeat_request_validation():
    """GroupMetadataManagerTest.testConsumerHeartbeatRequestValidation @ 4.0.0.

    Each malformed request fails with INVALID_REQUEST (InvalidRequestException), an unknown
    server assignor with UNSUPPORTED_ASSIGNOR; the checks run in Kafka's order and the
    messages are Kafka's.
    """
    h = Harness()

    def fails(r, error, message):
        assert r.error == error
        assert r.error_message == message

    # MemberId must be present in all requests (the whole request is empty).
    fails(h.heartbeat("", 0, group=""), Errors.INVALID_REQUEST, "MemberId can't be empty.")
    # GroupId must be present, and not blank.
    fails(h.heartbeat(MEMBER_1, 0, group=""), Errors.INVALID_REQUEST, "GroupId can't be empty.")
    fails(h.heartbeat(MEMBER_1, 0, group="   "), Errors.INVALID_REQUEST, "GroupId can't be empty.")
    # RebalanceTimeoutMs must be present in the first request (epoch 0).
    fails(h.heartbeat(MEMBER_1, 0, group="foo"), Errors.INVALID_REQUEST,
          "RebalanceTimeoutMs must be provided in first request.")
    # TopicPartitions must be present and empty in the first request.
    fails(h.heartbeat(MEMBER_1, 0, group="foo", rebalance_timeout_ms=5000), Errors.INVALID_REQUEST,
          "TopicPartitions must be empty when (re-)joining.")
    # SubscribedTopicNames or SubscribedTopicRegex must be present in the first request.
    fails(h.heartbeat(MEMBER_1, 0, group="foo", rebalance_timeout_ms=5000, owned_partitions={}),
          Errors.INVALID_REQUEST,
          "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
    # InstanceId must be non-empty if provided.
    fails(h.heartbeat(MEMBER_1, 1, group="foo", instance_id=""), Errors.INVALID_REQUEST,
          "InstanceId can't be empty.")
    # RackId must be non-empty if provided.
    fails(h.heartbeat(MEMBER_1, 1, group="foo", rack_id=""), Errors.INVALID_REQUEST, "RackId can't be empty.")
    # ServerAssignor must be one of the configured assignors.
    fails(h.heartbeat(MEMBER_1, 1, group="foo", server_assignor="bar"), Errors.UNSUPPORTED_ASSIGNOR,
          "ServerAssignor bar is not supported. Supported assignors: range.")
    # A static leave (-2) needs an InstanceId.
    fails(h.heartbeat(MEMBER_1, -2, group="foo", rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                      owned_partitions={}), Errors.INVALID_REQUEST, "InstanceId can't be null.")
    assert h.assignor.calls == []


def test_consumer_heartbeat_regex_validation():
    """GroupMetadataManagerTest.testConsumerHeartbeatRegexValidation @ 4.0.0.

    An invalid regex (``[``) fails with INVALID_REGULAR_EXPRESSION, on join and on update; a
    valid one (``.*``) joins at epoch 1; switching to topic names bumps the member to epoch 2.
    """
    h = Harness()
    h.assignor.prepare_group_assignment({})

    r = h.heartbeat(MEMBER_1, 0, rebalance_timeout_ms=5000, subscribed_topic_regex="[", owned_partitions={})
    assert r.error == Errors.INVALID_REGULAR_EXPRESSION
    assert r.error_message == "SubscribedTopicRegex `[` is not a valid regular expression: missing closing ]."

    r = h.heartbeat(MEMBER_1, 0, rebalance_timeout_ms=5000, subscribed_topic_regex=".*", owned_partitions={})
    assert r.error == NONE
    assert r.member_epoch == 1

    r = h.heartbeat(MEMBER_1, 1, rebalance_timeout_ms=5000, subscribed_topic_regex="[", owned_partitions={})
    assert r.error == Errors.INVALID_REGULAR_EXPRESSION

    r = h.heartbeat(MEMBER_1, 1, rebalance_timeout_ms=5000, subscribed_topic_names=["foo"], owned_partitions={})
    assert r.error == NONE
    assert r.member_epoch == 2


def test_unknown_group_id():
    """GroupMetadataManagerTest.testUnknownGroupId @ 4.0.0: epoch > 0 on a missing group."""
    h = Harness()
    r = h.heartbeat(MEMBER_1, 100, rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                    owned_partitions={})
    assert r.error == Errors.GROUP_ID_NOT_FOUND


def test_unknown_member_id_joins_consumer_group():
    """GroupMetadataManagerTest.testUnknownMemberIdJoinsConsumerGroup @ 4.0.0.

    A first member creates the group; a member id the group does not know, with epoch 1, is
    rejected with UNKNOWN_MEMBER_ID.
    """
    h = Harness(assignors=[NoOpAssignor()])
    first = h.join(MEMBER_1, ["foo", "bar"], server_assignor=NoOpAssignor.name)
    assert first.error == NONE

    r = h.heartbeat("unknownMemberId", 1, rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                    owned_partitions={})
    assert r.error == Errors.UNKNOWN_MEMBER_ID


def _epoch_validation(instance_id):
    """Shared steps of the two member-epoch validation tests (dynamic and static member)."""
    h = Harness()  # Kafka's context has an empty metadata image
    h.load(group_epoch=100, target_epoch=100,
           members={MEMBER_1: member(100, 99, assigned={"foo": [1, 2, 3]}, rebalance_timeout_ms=5000,
                                     instance_id=instance_id)},
           target={MEMBER_1: {"foo": [1, 2, 3]}})

    def send(epoch, owned=None):
        return h.heartbeat(MEMBER_1, epoch, instance_id=instance_id, rebalance_timeout_ms=5000,
                           subscribed_topic_names=["foo", "bar"], owned_partitions=owned)

    # Member epoch is greater than the expected epoch.
    assert send(200).error == Errors.FENCED_MEMBER_EPOCH
    # Member epoch is smaller than the expected epoch.
    assert send(50).error == Errors.FENCED_MEMBER_EPOCH
    # Previous epoch, but without providing its partitions.
    assert send(99).error == Errors.FENCED_MEMBER_EPOCH
    # Previous epoch with a subset of the owned partitions: the response with the bumped
    # epoch may have been lost, so the coordinator answers with the current epoch.
    r = send(99, owned={"foo": [1, 2]})
    assert r.error == NONE
    assert r.member_epoch == 100
    assert h.assignor.calls == []


def test_consumer_group_member_epoch_validation():
    """GroupMetadataManagerTest.testConsumerGroupMemberEpochValidation @ 4.0.0."""
    _epoch_validation(None)


def test_consumer_group_member_epoch_validation_for_static_member():
    """GroupMetadataManagerTest.testConsumerGroupMemberEpochValidationForStaticMember @ 4.0.0."""
    _epoch_validation(MEMBER_1)


def test_new_member_is_rejected_when_maximum_members_is_reached():
    """GroupMetadataManagerTest.testNewMemberIsRejectedWithMaximumMembersIsReached @ 4.0.0.

    group.consumer.max.size = 2 and two members: a third joiner gets GROUP_MAX_SIZE_REACHED.
    """
    h = Harness({"foo": 6, "bar": 3}, group_consumer_max_size=2)
    two_member_group(h, rebalance_timeout_ms=5000)
    r = h.join(MEMBER_3, ["foo", "bar"])
    assert r.error == Errors.GROUP_MAX_SIZE_REACHED
    assert h.coord.group_epoch(GROUP) == 10  # (derived) the rejected join wrote nothing
    assert h.assignor.calls == []


def test_partition_assignor_exception_on_regular_heartbeat():
    """GroupMetadataManagerTest.testPartitionAssignorExceptionOnRegularHeartbeat @ 4.0.0.

    The assignor throws while the first member joins: the heartbeat fails with
    UNKNOWN_SERVER_ERROR (GroupMetadataManager.updateTargetAssignment).
    """
    h = Harness({"foo": 6, "bar": 3}, assignors=[FailingAssignor("range")])
    r = h.join(MEMBER_1, ["foo", "bar"])
    assert r.error == Errors.UNKNOWN_SERVER_ERROR


# ======================================================================================
# GroupMetadataManagerTest: joining, subscription changes, leaving
# ======================================================================================


def test_member_joins_empty_consumer_group():
    """GroupMetadataManagerTest.testMemberJoinsEmptyConsumerGroup @ 4.0.0.

    The first member creates the group at epoch 1 and gets its whole target at once.
    """
    h = Harness({"foo": 6, "bar": 3})
    everything = {"foo": [0, 1, 2, 3, 4, 5], "bar": [0, 1, 2]}
    h.assignor.prepare_group_assignment({MEMBER_1: everything})

    r = h.join(MEMBER_1, ["foo", "bar"])
    expect_response(r, MEMBER_1, 1, everything)
    h.expect_member(MEMBER_1, epoch=1, state="STABLE", assigned=everything)
    assert h.coord.group_epoch(GROUP) == 1
    assert h.coord.target_assignment_epoch(GROUP) == 1
    assert h.target() == {MEMBER_1: everything}
    assert h.state() == "Stable"  # (derived) ConsumerGroup.maybeUpdateGroupState


def test_updating_subscription_triggers_new_target_assignment():
    """GroupMetadataManagerTest.testUpdatingSubscriptionTriggersNewTargetAssignment @ 4.0.0.

    A member subscribing to bar as well bumps the group to epoch 11; the new target is
    computed in the same heartbeat and, nothing being held elsewhere, handed out at once.
    """
    h = Harness({"foo": 6, "bar": 3})
    foo = {"foo": [0, 1, 2, 3, 4, 5]}
    h.load(group_epoch=10, target_epoch=10,
           members={MEMBER_1: member(10, 9, assigned=foo, topics=["foo"])},
           target={MEMBER_1: foo})
    both = {"foo": [0, 1, 2, 3, 4, 5], "bar": [0, 1, 2]}
    h.assignor.prepare_group_assignment({MEMBER_1: both})

    r = h.heartbeat(MEMBER_1, 10, subscribed_topic_names=["foo", "bar"])
    expect_response(r, MEMBER_1, 11, both)
    h.expect_member(MEMBER_1, epoch=11, state="STABLE", assigned=both)
    h.expect_previous_epoch(MEMBER_1, 10, owned=both, epoch=11)
    assert h.coord.group_epoch(GROUP) == 11
    assert h.coord.target_assignment_epoch(GROUP) == 11
    assert h.target() == {MEMBER_1: both}


def _third_member_joins(instance_id):
    h = Harness({"foo": 6, "bar": 3})
    two_member_group(h, instance_ids=(MEMBER_1, MEMBER_2) if instance_id else (None, None),
                     rebalance_timeout_ms=5000 if not instance_id else -1,
                     topics_2=("foo", "bar") if not instance_id else ("foo", "bar", "zar"))
    new_target = {
        MEMBER_1: {"foo": [0, 1], "bar": [0]},
        MEMBER_2: {"foo": [2, 3], "bar": [1]},
        MEMBER_3: {"foo": [4, 5], "bar": [2]},
    }
    h.assignor.prepare_group_assignment(new_target)

    r = h.join(MEMBER_3, ["foo", "bar"], instance_id=instance_id)
    # Every partition of its target is still held by members 1 and 2: epoch 11, nothing yet.
    expect_response(r, MEMBER_3, 11, {})
    h.expect_member(MEMBER_3, epoch=11, state="UNRELEASED_PARTITIONS", assigned={})
    assert h.coord.group_epoch(GROUP) == 11
    assert h.coord.target_assignment_epoch(GROUP) == 11
    assert h.target() == new_target
    assert h.state() == "Reconciling"  # (derived) members 1 and 2 are still at epoch 10


def test_new_joining_member_triggers_new_target_assignment():
    """GroupMetadataManagerTest.testNewJoiningMemberTriggersNewTargetAssignment @ 4.0.0."""
    _third_member_joins(None)


def test_group_epoch_bump_when_new_static_member_joins():
    """GroupMetadataManagerTest.testGroupEpochBumpWhenNewStaticMemberJoins @ 4.0.0.

    As the dynamic case, for a static member (instance id = member id, as in Kafka).
    """
    _third_member_joins(MEMBER_3)


def test_leaving_member_bumps_group_epoch():
    """GroupMetadataManagerTest.testLeavingMemberBumpsGroupEpoch @ 4.0.0.

    A leave (-1) removes the member (current assignment, target and subscription
    tombstones) and bumps the group epoch to 11; the target is not recomputed there.
    """
    h = Harness({"foo": 6, "bar": 3, "zar": 1})
    two_member_group(h, topics_2=("foo", "bar", "zar"))

    r = h.heartbeat(MEMBER_2, -1, rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                    owned_partitions={})
    expect_leave_response(r, MEMBER_2, -1)
    assert h.coord.group_epoch(GROUP) == 11
    assert h.target() == {MEMBER_1: {"foo": [0, 1, 2], "bar": [0, 1]}}
    assert h.coord.target_assignment_epoch(GROUP) == 10  # (derived) consumerGroupFenceMember
    assert h.state() == "Assigning"  # (derived) group epoch 11 > target epoch 10
    h.expect_gone(MEMBER_2, 10)
    assert h.assignor.calls == []


def test_leaving_static_member_bumps_group_epoch():
    """GroupMetadataManagerTest.testLeavingStaticMemberBumpsGroupEpoch @ 4.0.0.

    A static member leaving with -1 leaves for good: tombstones and epoch 11.
    """
    h = Harness({"foo": 6, "bar": 3, "zar": 1})
    two_member_group(h, instance_ids=(MEMBER_1, MEMBER_2), topics_2=("foo", "bar", "zar"))

    r = h.heartbeat(MEMBER_2, -1, instance_id=MEMBER_2, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], owned_partitions={})
    expect_leave_response(r, MEMBER_2, -1)
    assert h.coord.group_epoch(GROUP) == 11
    assert h.target() == {MEMBER_1: {"foo": [0, 1, 2], "bar": [0, 1]}}
    h.expect_gone(MEMBER_2, 10)


def test_no_group_epoch_bump_when_static_member_temporarily_leaves():
    """GroupMetadataManagerTest.testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves @ 4.0.0.

    A static member leaving with -2 only gets member epoch -2 (one current-assignment
    record): no epoch bump, its partitions stay with it, its target stays.
    """
    h = Harness({"foo": 6, "bar": 3})
    two_member_group(h, instance_ids=(MEMBER_1, MEMBER_2))

    r = h.heartbeat(MEMBER_2, -2, instance_id=MEMBER_2, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], owned_partitions={})
    expect_leave_response(r, MEMBER_2, -2)
    h.expect_member(MEMBER_2, epoch=-2, state="STABLE", assigned={"foo": [3, 4, 5], "bar": [2]})
    assert h.coord.group_epoch(GROUP) == 10
    assert h.coord.target_assignment_epoch(GROUP) == 10
    assert h.target() == {MEMBER_1: {"foo": [0, 1, 2], "bar": [0, 1]}, MEMBER_2: {"foo": [3, 4, 5], "bar": [2]}}
    assert h.state() == "Reconciling"  # (derived) epoch -2 is not reconciled to 10


def test_static_member_gets_back_assignment_upon_rejoin():
    """GroupMetadataManagerTest.testStaticMemberGetsBackAssignmentUponRejoin @ 4.0.0.

    Member 2 leaves with -2, then a new member id with its instance id joins: it replaces
    the old member (tombstones for the old id, a copy under the new id) and is reconciled
    straight to epoch 10 with member 2's partitions; no epoch bump, no assignor run.
    """
    h = Harness({"foo": 6, "bar": 3})
    two_member_group(h, instance_ids=(MEMBER_1, MEMBER_2), rebalance_timeout_ms=5000)
    owned_by_2 = {"foo": [3, 4, 5], "bar": [2]}

    r = h.heartbeat(MEMBER_2, -2, instance_id=MEMBER_2, subscribed_topic_names=["foo", "bar"], owned_partitions={})
    expect_leave_response(r, MEMBER_2, -2)
    h.expect_member(MEMBER_2, epoch=-2, state="STABLE", assigned=owned_by_2)

    r = h.heartbeat(MEMBER_2_REJOIN, 0, instance_id=MEMBER_2, rebalance_timeout_ms=5000,
                    server_assignor="range", subscribed_topic_names=["foo", "bar"], owned_partitions={})
    expect_response(r, MEMBER_2_REJOIN, 10, owned_by_2)
    h.expect_member(MEMBER_2_REJOIN, epoch=10, state="STABLE", assigned=owned_by_2)
    assert h.target() == {MEMBER_1: {"foo": [0, 1, 2], "bar": [0, 1]}, MEMBER_2_REJOIN: owned_by_2}
    assert h.coord.group_epoch(GROUP) == 10
    assert h.coord.target_assignment_epoch(GROUP) == 10
    assert h.state() == "Stable"  # (derived) both members reconciled to 10
    h.expect_gone(MEMBER_2, 10)
    assert h.assignor.calls == []


def test_static_member_rejoins_with_new_subscribed_topics():
    """GroupMetadataManagerTest.testStaticMemberRejoinsWithNewSubscribedTopics @ 4.0.0.

    The replacement subscribes to bar as well: after the copy, the subscription change is
    handled as usual (epoch 11, new target) and bar 0-2, free, come at once.
    """
    h = Harness({"foo": 6, "bar": 3})
    h.load(group_epoch=10, target_epoch=10,
           members={
               MEMBER_1: member(10, 9, assigned={"foo": [0, 1, 2]}, topics=["foo"], rebalance_timeout_ms=5000,
                                instance_id="instance-id-1"),
               MEMBER_2: member(10, 9, assigned={"foo": [3, 4, 5]}, topics=["foo"], rebalance_timeout_ms=5000,
                                instance_id="instance-id-2"),
           },
           target={MEMBER_1: {"foo": [0, 1, 2]}, MEMBER_2: {"foo": [3, 4, 5]}})
    new_target = {MEMBER_1: {"foo": [0, 1, 2]}, MEMBER_2_REJOIN: {"foo": [3, 4, 5], "bar": [0, 1, 2]}}
    h.assignor.prepare_group_assignment(new_target)

    r = h.heartbeat(MEMBER_2, -2, instance_id="instance-id-2")
    expect_leave_response(r, MEMBER_2, -2)
    h.expect_member(MEMBER_2, epoch=-2, state="STABLE", assigned={"foo": [3, 4, 5]})

    r = h.heartbeat(MEMBER_2_REJOIN, 0, instance_id="instance-id-2", rebalance_timeout_ms=5000,
                    server_assignor="range", subscribed_topic_names=["foo", "bar"], owned_partitions={})
    expect_response(r, MEMBER_2_REJOIN, 11, {"foo": [3, 4, 5], "bar": [0, 1, 2]})
    h.expect_member(MEMBER_2_REJOIN, epoch=11, state="STABLE", assigned={"foo": [3, 4, 5], "bar": [0, 1, 2]})
    assert h.coord.group_epoch(GROUP) == 11
    assert h.coord.target_assignment_epoch(GROUP) == 11
    assert h.target() == new_target
    h.expect_gone(MEMBER_2, 10)


def test_should_throw_unreleased_instance_id_when_new_member_joins_with_in_use_instance_id():
    """GroupMetadataManagerTest.testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId @ 4.0.0."""
    h = Harness({"foo": 6})
    h.load(group_epoch=10, target_epoch=10,
           members={MEMBER_1: member(10, 9, assigned={"foo": [0, 1, 2]}, instance_id=MEMBER_1)},
           target={MEMBER_1: {"foo": [0, 1, 2]}})
    r = h.join(MEMBER_2, ["foo", "bar"], instance_id=MEMBER_1)
    assert r.error == Errors.UNRELEASED_INSTANCE_ID
    h.expect_member(MEMBER_1, epoch=10, state="STABLE", assigned={"foo": [0, 1, 2]})  # (derived) untouched


def test_should_throw_unknown_member_id_when_unknown_static_member_joins():
    """GroupMetadataManagerTest.testShouldThrownUnknownMemberIdExceptionWhenUnknownStaticMemberJoins @ 4.0.0.

    A static member with an unknown instance id and a non-zero epoch: UNKNOWN_MEMBER_ID.
    """
    h = Harness({"foo": 6})
    h.load(group_epoch=10, target_epoch=10,
           members={MEMBER_1: member(10, 9, assigned={"foo": [0, 1, 2]}, instance_id=MEMBER_1)},
           target={MEMBER_1: {"foo": [0, 1, 2]}})
    r = h.heartbeat(MEMBER_2, 10, instance_id=MEMBER_2, rebalance_timeout_ms=5000, server_assignor="range",
                    subscribed_topic_names=["foo", "bar"], owned_partitions={})
    assert r.error == Errors.UNKNOWN_MEMBER_ID


def test_should_throw_fenced_instance_id_when_static_member_with_different_member_id_joins():
    """GroupMetadataManagerTest.testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins @ 4.0.0."""
    h = Harness({"foo": 6})
    h.load(group_epoch=10, target_epoch=10,
           members={MEMBER_1: member(10, 9, assigned={"foo": [0, 1, 2]}, instance_id=MEMBER_1)},
           target={MEMBER_1: {"foo": [0, 1, 2]}})
    r = h.heartbeat("unknown-" + MEMBER_1, 11, instance_id=MEMBER_1, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], owned_partitions={})
    assert r.error == Errors.FENCED_INSTANCE_ID


def test_should_throw_unknown_member_id_when_unknown_static_member_leaves():
    """GroupMetadataManagerTest.testShouldThrowUnknownMemberIdExceptionWhenUnknownStaticMemberLeaves @ 4.0.0."""
    h = Harness({"foo": 6})
    h.load(group_epoch=10, target_epoch=10,
           members={MEMBER_1: member(10, 9, assigned={"foo": [0, 1, 2]}, instance_id=MEMBER_1)},
           target={MEMBER_1: {"foo": [0, 1, 2]}})
    r = h.heartbeat(MEMBER_1, -2, instance_id="unknown-" + MEMBER_1, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], owned_partitions={})
    assert r.error == Errors.UNKNOWN_MEMBER_ID
    h.expect_member(MEMBER_1, epoch=10, state="STABLE", assigned={"foo": [0, 1, 2]})  # (derived) untouched


def test_should_throw_fenced_instance_id_when_static_member_with_different_member_id_leaves():
    """GroupMetadataManagerTest.testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdLeaves @ 4.0.0."""
    h = Harness({"foo": 6})
    h.load(group_epoch=10, target_epoch=10,
           members={MEMBER_1: member(10, 9, assigned={"foo": [0, 1, 2]}, instance_id=MEMBER_1)},
           target={MEMBER_1: {"foo": [0, 1, 2]}})
    r = h.heartbeat("unknown-" + MEMBER_1, -2, instance_id=MEMBER_1, rebalance_timeout_ms=5000,
                    subscribed_topic_names=["foo", "bar"], owned_partitions={})
    assert r.error == Errors.FENCED_INSTANCE_ID
    h.expect_member(MEMBER_1, epoch=10, state="STABLE", assigned={"foo": [0, 1, 2]})  # (derived) untouched


def test_consumer_group_heartbeat_full_response():
    """GroupMetadataManagerTest.testConsumerGroupHeartbeatFullResponse @ 4.0.0.

    The assignment is in the response on joining and on every full request (rebalance
    timeout, names or regex, and owned partitions all set), not on a plain heartbeat.
    """
    h = Harness({"foo": 2})
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1]}})

    r = h.join(MEMBER_1, ["foo", "bar"])
    expect_response(r, MEMBER_1, 1, {"foo": [0, 1]})

    r = h.heartbeat(MEMBER_1, r.member_epoch)
    expect_response(r, MEMBER_1, 1, None)

    r = h.heartbeat(MEMBER_1, r.member_epoch, rebalance_timeout_ms=5000, subscribed_topic_names=["foo", "bar"],
                    server_assignor="range", owned_partitions={})
    expect_response(r, MEMBER_1, 1, {"foo": [0, 1]})

    r = h.heartbeat(MEMBER_1, r.member_epoch, rebalance_timeout_ms=5000, subscribed_topic_regex="foo.*",
                    server_assignor="range", owned_partitions={})
    expect_response(r, MEMBER_1, 1, {"foo": [0, 1]})


def test_consumer_group_states():
    """GroupMetadataManagerTest.testConsumerGroupStates @ 4.0.0.

    Kafka replays records one by one and reads the state after each; here each stage is a
    group restored in that state: Empty, Assigning, Reconciling (target ahead of the
    member, then member revoking), Stable.
    """
    stages = [
        ("Empty", 10, 0, {}, {}),
        ("Assigning", 11, 0, {"m1": member(0, -1, topics=["foo"], server_assignor=None)}, {}),
        ("Reconciling", 11, 11, {"m1": member(0, -1, topics=["foo"], server_assignor=None)},
         {"m1": {"foo": [1, 2, 3]}}),
        ("Reconciling", 11, 11,
         {"m1": member(11, 10, state="UNREVOKED_PARTITIONS", assigned={"foo": [1, 2, 3]}, topics=["foo"],
                       server_assignor=None)},
         {"m1": {"foo": [1, 2, 3]}}),
        ("Stable", 11, 11, {"m1": member(11, 10, assigned={"foo": [1, 2, 3]}, topics=["foo"], server_assignor=None)},
         {"m1": {"foo": [1, 2, 3]}}),
    ]
    for expected, group_epoch, target_epoch, members, target in stages:
        h = Harness()  # Kafka's context has no metadata image here
        h.load(group_epoch=group_epoch, target_epoch=target_epoch, members=members, target=target)
        assert h.state() == expected, (expected, group_epoch, target_epoch, members)


def test_subscription_metadata_refreshed_after_group_is_loaded():
    """GroupMetadataManagerTest.testSubscriptionMetadataRefreshedAfterGroupIsLoaded @ 4.0.0.

    The group was stored when foo had 3 partitions; foo now has 6. The first heartbeat after
    loading notices it, bumps to epoch 11 and the member gets foo 0-5. (Kafka stores the
    stale subscription metadata; here the group is loaded while foo has 3 partitions and foo
    grows to 6 before the heartbeat.)
    """
    h = Harness({"foo": 3})
    h.load(group_epoch=10, target_epoch=10,
           members={MEMBER_1: member(10, 10, assigned={"foo": [0, 1, 2]}, rebalance_timeout_ms=5000)},
           target={MEMBER_1: {"foo": [0, 1, 2]}})
    h.coord.create_partitions("foo", 6)
    six = {"foo": [0, 1, 2, 3, 4, 5]}
    h.assignor.prepare_group_assignment({MEMBER_1: six})

    r = h.heartbeat(MEMBER_1, 10)
    expect_response(r, MEMBER_1, 11, six)
    h.expect_member(MEMBER_1, epoch=11, state="STABLE", assigned=six)
    h.expect_previous_epoch(MEMBER_1, 10, owned=six, epoch=11)
    assert h.coord.group_epoch(GROUP) == 11
    assert h.coord.target_assignment_epoch(GROUP) == 11
    assert h.target() == {MEMBER_1: six}


# ======================================================================================
# GroupMetadataManagerTest: reconciliation
# ======================================================================================


def test_reconciliation_process():
    """GroupMetadataManagerTest.testReconciliationProcess @ 4.0.0.

    Member 3 joins a Stable group of two; each member moves only on its own heartbeats:
    members 1 and 2 keep epoch 10 until they acknowledge their revocations, member 3 sits
    in UNRELEASED_PARTITIONS at epoch 11 and picks partitions up as they are released.
    """
    h = Harness({"foo": 6, "bar": 3})
    two_member_group(h, rebalance_timeout_ms=5000)
    h.assignor.prepare_group_assignment({
        MEMBER_1: {"foo": [0, 1], "bar": [0]},
        MEMBER_2: {"foo": [2, 3], "bar": [2]},
        MEMBER_3: {"foo": [4, 5], "bar": [1]},
    })
    assert h.coord.member_state(GROUP, MEMBER_1) == "STABLE"
    assert h.coord.member_state(GROUP, MEMBER_2) == "STABLE"
    assert h.state() == "Stable"

    # Member 3 joins: new target at epoch 11; all of its partitions are still owned.
    r = h.join(MEMBER_3, ["foo", "bar"])
    expect_response(r, MEMBER_3, 11, {})
    h.expect_member(MEMBER_3, epoch=11, state="UNRELEASED_PARTITIONS", assigned={})
    assert h.state() == "Reconciling"

    # Member 1 stays at epoch 10 and must revoke foo 2 and bar 1.
    r = h.heartbeat(MEMBER_1, 10)
    expect_response(r, MEMBER_1, 10, {"foo": [0, 1], "bar": [0]})
    h.expect_member(MEMBER_1, epoch=10, state="UNREVOKED_PARTITIONS", assigned={"foo": [0, 1], "bar": [0]},
                    pending={"foo": [2], "bar": [1]})
    assert h.state() == "Reconciling"

    # Member 2 stays at epoch 10 and must revoke foo 4 and 5.
    r = h.heartbeat(MEMBER_2, 10)
    expect_response(r, MEMBER_2, 10, {"foo": [3], "bar": [2]})
    h.expect_member(MEMBER_2, epoch=10, state="UNREVOKED_PARTITIONS", assigned={"foo": [3], "bar": [2]},
                    pending={"foo": [4, 5]})
    assert h.state() == "Reconciling"

    # Member 3 still waits: no assignment in the response.
    r = h.heartbeat(MEMBER_3, 11)
    expect_response(r, MEMBER_3, 11, None)
    h.expect_member(MEMBER_3, epoch=11, state="UNRELEASED_PARTITIONS", assigned={})
    assert h.state() == "Reconciling"

    # Member 1 acknowledges by reporting what it still owns: epoch 11, Stable.
    r = h.heartbeat(MEMBER_1, 10, owned_partitions={"foo": [0, 1], "bar": [0]})
    expect_response(r, MEMBER_1, 11, None)
    h.expect_member(MEMBER_1, epoch=11, state="STABLE", assigned={"foo": [0, 1], "bar": [0]})
    h.expect_previous_epoch(MEMBER_1, 10, owned={"foo": [0, 1], "bar": [0]}, epoch=11)
    assert h.state() == "Reconciling"

    # Member 2 heartbeats without acknowledging: nothing changes.
    r = h.heartbeat(MEMBER_2, 10)
    expect_response(r, MEMBER_2, 10, None)
    h.expect_member(MEMBER_2, epoch=10, state="UNREVOKED_PARTITIONS", assigned={"foo": [3], "bar": [2]},
                    pending={"foo": [4, 5]})
    assert h.state() == "Reconciling"

    # Member 3 gets bar 1, released by member 1, and keeps waiting for foo 4 and 5.
    r = h.heartbeat(MEMBER_3, 11)
    expect_response(r, MEMBER_3, 11, {"bar": [1]})
    h.expect_member(MEMBER_3, epoch=11, state="UNRELEASED_PARTITIONS", assigned={"bar": [1]})
    assert h.state() == "Reconciling"

    # Member 3 again: member 2 has not released anything yet, no change.
    r = h.heartbeat(MEMBER_3, 11)
    expect_response(r, MEMBER_3, 11, None)
    h.expect_member(MEMBER_3, epoch=11, state="UNRELEASED_PARTITIONS", assigned={"bar": [1]})
    assert h.state() == "Reconciling"

    # Member 2 acknowledges: epoch 11 and it gets foo 2, released by member 1.
    r = h.heartbeat(MEMBER_2, 10, owned_partitions={"foo": [3], "bar": [2]})
    expect_response(r, MEMBER_2, 11, {"foo": [2, 3], "bar": [2]})
    h.expect_member(MEMBER_2, epoch=11, state="STABLE", assigned={"foo": [2, 3], "bar": [2]})
    h.expect_previous_epoch(MEMBER_2, 10, owned={"foo": [2, 3], "bar": [2]}, epoch=11)
    assert h.state() == "Reconciling"

    # Member 3 acknowledges bar 1 and gets foo 4 and 5: everybody Stable.
    r = h.heartbeat(MEMBER_3, 11, owned_partitions={"bar": [1]})
    expect_response(r, MEMBER_3, 11, {"foo": [4, 5], "bar": [1]})
    h.expect_member(MEMBER_3, epoch=11, state="STABLE", assigned={"foo": [4, 5], "bar": [1]})
    assert h.state() == "Stable"


# ======================================================================================
# GroupMetadataManagerTest: session and rebalance timeouts
# ======================================================================================


def test_session_timeout_lifecycle():
    """GroupMetadataManagerTest.testSessionTimeoutLifecycle @ 4.0.0.

    The session timer is armed by the first heartbeat, re-armed by the next, cancelled by
    the leave: no timer expires in between, and none after the leave. Kafka reads the timer
    (assertSessionTimeout: due 45000 ms after each heartbeat); here a second run of the same
    first steps shows it: the member outlives the first deadline and expires at the second.
    """
    def first_steps():
        h = Harness({"foo": 6})
        h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})
        r = h.heartbeat(MEMBER_1, 0, rebalance_timeout_ms=90000, subscribed_topic_names=["foo"],
                        owned_partitions={})
        assert r.error == NONE and r.member_epoch == 1
        h.sim.advance(r.heartbeat_interval_ms)
        assert h.coord.group_epoch(GROUP) == 1  # nothing expired
        r = h.heartbeat(MEMBER_1, r.member_epoch)  # at 5000 ms
        assert r.error == NONE and r.member_epoch == 1
        return h, r

    h, r = first_steps()
    h.sim.advance(r.heartbeat_interval_ms)
    assert h.coord.group_epoch(GROUP) == 1  # nothing expired

    r = h.heartbeat(MEMBER_1, -1)
    assert r.error == NONE and r.member_epoch == -1
    assert h.coord.group_epoch(GROUP) == 2  # the leave itself

    # No session (nor rebalance) timer is left for the member.
    h.sim.advance(SESSION_TIMEOUT + 1)
    assert h.coord.group_epoch(GROUP) == 2
    assert h.state() == "Empty"  # (derived) no members

    # assertSessionTimeout(45000) after the second heartbeat: due at 5000 + 45000 ms.
    h, _ = first_steps()
    h.sim.advance(SESSION_TIMEOUT - 1)  # at 49999 ms, past the first heartbeat's deadline
    assert h.coord.group_epoch(GROUP) == 1
    h.sim.advance(1)
    assert h.coord.group_epoch(GROUP) == 2


def test_session_timeout_expiration():
    """GroupMetadataManagerTest.testSessionTimeoutExpiration @ 4.0.0.

    No heartbeat after joining: 45000 ms + 1 later the member is fenced (tombstones) and the
    group epoch goes to 2.
    """
    h = Harness({"foo": 6})
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})

    r = h.heartbeat(MEMBER_1, 0, rebalance_timeout_ms=90000, subscribed_topic_names=["foo"], owned_partitions={})
    assert r.error == NONE and r.member_epoch == 1

    # assertSessionTimeout(45000): the timer is due at 45000 ms, not before.
    h.sim.advance(SESSION_TIMEOUT - 1)
    assert h.coord.group_epoch(GROUP) == 1
    h.sim.advance(2)  # 45000 + 1 ms after the heartbeat, as context.sleep(45000 + 1)
    assert h.coord.group_epoch(GROUP) == 2
    assert h.target() == {}
    assert h.state() == "Empty"  # (derived) no members
    h.expect_gone(MEMBER_1, 1)


def test_session_timeout_expiration_static_member():
    """GroupMetadataManagerTest.testSessionTimeoutExpirationStaticMember @ 4.0.0.

    A static member leaves with -2: its session timer keeps running from its last heartbeat;
    nobody takes its place, so it is fenced 45000 ms + 1 later and the epoch goes to 2.
    """
    h = Harness({"foo": 6})
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2, 3, 4, 5]}})

    r = h.heartbeat(MEMBER_1, 0, instance_id=MEMBER_1, rebalance_timeout_ms=90000, subscribed_topic_names=["foo"],
                    owned_partitions={})
    assert r.error == NONE and r.member_epoch == 1

    r = h.heartbeat(MEMBER_1, -2, instance_id=MEMBER_1, rebalance_timeout_ms=90000, subscribed_topic_names=["foo"],
                    owned_partitions={})
    assert r.error == NONE and r.member_epoch == -2
    assert h.coord.member_epoch(GROUP, MEMBER_1) == -2
    assert h.coord.group_epoch(GROUP) == 1

    h.sim.advance(SESSION_TIMEOUT + 1)
    assert h.coord.group_epoch(GROUP) == 2
    assert h.target() == {}
    h.expect_gone(MEMBER_1, 1)


def test_rebalance_timeout_lifecycle():
    """GroupMetadataManagerTest.testRebalanceTimeoutLifecycle @ 4.0.0.

    Member 1 must revoke foo 2 for member 2: the revocation timer is armed with the rebalance
    timeout member 1 sends in that heartbeat (12000 ms) and cancelled by its acknowledgement.
    """
    h = Harness({"foo": 3})
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2]}})

    r = h.heartbeat(MEMBER_1, 0, rebalance_timeout_ms=180000, subscribed_topic_names=["foo"], owned_partitions={})
    expect_response(r, MEMBER_1, 1, {"foo": [0, 1, 2]})
    h.sim.advance(r.heartbeat_interval_ms)

    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1]}, MEMBER_2: {"foo": [2]}})
    r = h.heartbeat(MEMBER_2, 0, rebalance_timeout_ms=90000, subscribed_topic_names=["foo"], owned_partitions={})
    expect_response(r, MEMBER_2, 2, {})
    h.sim.advance(r.heartbeat_interval_ms)

    # Member 1 moves to UNREVOKED_PARTITIONS; the rebalance timer is armed (12000 ms).
    r = h.heartbeat(MEMBER_1, 1, rebalance_timeout_ms=12000, subscribed_topic_names=["foo"])
    expect_response(r, MEMBER_1, 1, {"foo": [0, 1]})
    assert h.coord.member_state(GROUP, MEMBER_1) == "UNREVOKED_PARTITIONS"
    h.sim.advance(r.heartbeat_interval_ms)
    assert h.coord.group_epoch(GROUP) == 2  # nothing expired

    # Member 1 acknowledges: epoch 2, the rebalance timer is cancelled.
    r = h.heartbeat(MEMBER_1, 1, owned_partitions={"foo": [0, 1]})
    expect_response(r, MEMBER_1, 2, None)

    # assertNoRebalanceTimeout: past the old revocation deadline nothing is fenced.
    h.sim.advance(12000)
    assert h.coord.group_epoch(GROUP) == 2
    h.expect_member(MEMBER_1, epoch=2, state="STABLE", assigned={"foo": [0, 1]})


def test_rebalance_timeout_expiration():
    """GroupMetadataManagerTest.testRebalanceTimeoutExpiration @ 4.0.0.

    Member 1 never acknowledges its revocation: 10000 ms + 1 after it entered
    UNREVOKED_PARTITIONS it is fenced (tombstones) and the group epoch goes to 3.
    """
    h = Harness({"foo": 3})
    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1, 2]}})

    r = h.heartbeat(MEMBER_1, 0, rebalance_timeout_ms=10000, subscribed_topic_names=["foo"], owned_partitions={})
    expect_response(r, MEMBER_1, 1, {"foo": [0, 1, 2]})
    h.sim.advance(r.heartbeat_interval_ms)

    h.assignor.prepare_group_assignment({MEMBER_1: {"foo": [0, 1]}, MEMBER_2: {"foo": [2]}})
    r = h.heartbeat(MEMBER_2, 0, rebalance_timeout_ms=10000, subscribed_topic_names=["foo"], owned_partitions={})
    expect_response(r, MEMBER_2, 2, {})
    h.sim.advance(r.heartbeat_interval_ms)

    r = h.heartbeat(MEMBER_1, 1)
    expect_response(r, MEMBER_1, 1, {"foo": [0, 1]})

    h.sim.advance(10000 + 1)
    assert h.coord.group_epoch(GROUP) == 3
    assert h.target() == {MEMBER_2: {"foo": [2]}}
    assert h.state() == "Assigning"  # (derived) epoch 3 > target epoch 2
    h.expect_gone(MEMBER_1, 1)


# ======================================================================================
# CurrentAssignmentBuilderTest: the member state machine, driven by heartbeats
# ======================================================================================

CAB_TOPICS = {"topic1": 8, "topic2": 8}
CAB_SUBSCRIPTION = ("topic1", "topic2")


def cab_group(member_record, *, target_epoch, target, holders=None, topics=None, version=KAFKA_VERSION):
    """A restored group for one CurrentAssignmentBuilderTest case.

    `member_record` is "member"; `target` its target at `target_epoch` (the group epoch too,
    so the heartbeat reconciles without recomputing). `holders` are the partitions the
    Kafka test's holder-epoch function reports as held (epoch 10) although "member" does
    not hold them: another member, at epoch 10, still has them pending revocation.
    """
    h = Harness(topics or CAB_TOPICS, version=version)  # an unprepared assignor: it must not run
    members = {"member": member_record}
    targets = {"member": target}
    if holders:
        members["other"] = member(10, 10, state="UNREVOKED_PARTITIONS", pending=holders, topics=CAB_SUBSCRIPTION,
                                  rebalance_timeout_ms=5000)
        targets["other"] = {}
    h.load(group_epoch=target_epoch, target_epoch=target_epoch, members=members, target=targets)
    return h


def cab_member(epoch, previous, state, assigned, pending=None):
    return member(epoch, previous, state=state, assigned=assigned, pending=pending, topics=CAB_SUBSCRIPTION,
                  rebalance_timeout_ms=5000)


def test_cab_stable_to_stable():
    """CurrentAssignmentBuilderTest.testStableToStable @ 4.0.0: same partitions, new epoch."""
    assigned = {"topic1": [1, 2, 3], "topic2": [4, 5, 6]}
    h = cab_group(cab_member(10, 10, "STABLE", assigned), target_epoch=11, target=assigned)
    r = h.heartbeat("member", 10)
    expect_response(r, "member", 11, None)
    h.expect_member("member", epoch=11, state="STABLE", assigned=assigned)
    h.expect_previous_epoch("member", 10, owned=assigned, epoch=11)
    assert h.state() == "Stable"  # (derived) the only member is STABLE at the target epoch


def test_cab_stable_to_stable_with_new_partitions():
    """CurrentAssignmentBuilderTest.testStableToStableWithNewPartitions @ 4.0.0: free partitions come at once."""
    h = cab_group(cab_member(10, 10, "STABLE", {"topic1": [1, 2, 3], "topic2": [4, 5, 6]}),
                  target_epoch=11, target={"topic1": [1, 2, 3, 4], "topic2": [4, 5, 6, 7]})
    r = h.heartbeat("member", 10)
    expect_response(r, "member", 11, {"topic1": [1, 2, 3, 4], "topic2": [4, 5, 6, 7]})
    h.expect_member("member", epoch=11, state="STABLE", assigned={"topic1": [1, 2, 3, 4], "topic2": [4, 5, 6, 7]})
    h.expect_previous_epoch("member", 10, owned={"topic1": [1, 2, 3, 4], "topic2": [4, 5, 6, 7]}, epoch=11)


def test_cab_stable_to_unrevoked_partitions():
    """CurrentAssignmentBuilderTest.testStableToUnrevokedPartitions @ 4.0.0: revoke first, keep epoch 10."""
    h = cab_group(cab_member(10, 10, "STABLE", {"topic1": [1, 2, 3], "topic2": [4, 5, 6]}),
                  target_epoch=11, target={"topic1": [2, 3, 4], "topic2": [5, 6, 7]})
    r = h.heartbeat("member", 10)
    expect_response(r, "member", 10, {"topic1": [2, 3], "topic2": [5, 6]})
    h.expect_member("member", epoch=10, state="UNREVOKED_PARTITIONS", assigned={"topic1": [2, 3], "topic2": [5, 6]},
                    pending={"topic1": [1], "topic2": [4]})
    assert h.state() == "Reconciling"  # (derived) the member is behind the target epoch


def test_cab_stable_to_unreleased_partitions():
    """CurrentAssignmentBuilderTest.testStableToUnreleasedPartitions @ 4.0.0.

    The new partitions are still held elsewhere: epoch 11, UNRELEASED_PARTITIONS, nothing new.
    """
    h = cab_group(cab_member(10, 10, "STABLE", {"topic1": [1, 2, 3], "topic2": [4, 5, 6]}),
                  target_epoch=11, target={"topic1": [1, 2, 3, 4], "topic2": [4, 5, 6, 7]},
                  holders={"topic1": [4], "topic2": [7]})
    r = h.heartbeat("member", 10)
    expect_response(r, "member", 11, None)
    h.expect_member("member", epoch=11, state="UNRELEASED_PARTITIONS",
                    assigned={"topic1": [1, 2, 3], "topic2": [4, 5, 6]})
    h.expect_previous_epoch("member", 10, owned={"topic1": [1, 2, 3], "topic2": [4, 5, 6]}, epoch=11)


def test_cab_stable_to_unreleased_partitions_with_owned_partitions_not_having_revoked_partitions():
    """CurrentAssignmentBuilderTest.testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions @ 4.0.0.

    topic2 6 leaves the target but the client already owns nothing: no revocation step, the
    member goes to epoch 11 and waits for topic2 7, held at epoch 10.
    """
    h = cab_group(cab_member(10, 10, "STABLE", {"topic1": [1, 2, 3], "topic2": [4, 5, 6]}),
                  target_epoch=11, target={"topic1": [1, 2, 3], "topic2": [4, 5, 7]},
                  holders={"topic2": [7]})
    r = h.heartbeat("member", 10, owned_partitions={})
    expect_response(r, "member", 11, {"topic1": [1, 2, 3], "topic2": [4, 5]})
    h.expect_member("member", epoch=11, state="UNRELEASED_PARTITIONS", assigned={"topic1": [1, 2, 3], "topic2": [4, 5]})
    h.expect_previous_epoch("member", 10, owned={"topic1": [1, 2, 3], "topic2": [4, 5]}, epoch=11)


def test_cab_unrevoked_partitions_to_stable():
    """CurrentAssignmentBuilderTest.testUnrevokedPartitionsToStable @ 4.0.0: the acknowledgement completes it."""
    h = cab_group(cab_member(10, 10, "UNREVOKED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]},
                             pending={"topic1": [1], "topic2": [4]}),
                  target_epoch=11, target={"topic1": [2, 3], "topic2": [5, 6]})
    r = h.heartbeat("member", 10, owned_partitions={"topic1": [2, 3], "topic2": [5, 6]})
    expect_response(r, "member", 11, None)
    h.expect_member("member", epoch=11, state="STABLE", assigned={"topic1": [2, 3], "topic2": [5, 6]})
    h.expect_previous_epoch("member", 10, owned={"topic1": [2, 3], "topic2": [5, 6]}, epoch=11)
    assert h.state() == "Stable"  # (derived) the only member is STABLE at the target epoch


def test_cab_remains_in_unrevoked_partitions():
    """CurrentAssignmentBuilderTest.testRemainsInUnrevokedPartitions @ 4.0.0.

    No progress while the owned partitions are unknown (null) or still contain a partition
    pending revocation.
    """
    before = cab_member(10, 10, "UNREVOKED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]},
                        pending={"topic1": [1], "topic2": [4]})
    h = cab_group(before, target_epoch=12, target={"topic1": [3], "topic2": [6]})
    for owned in (None, {"topic1": [1, 2, 3], "topic2": [5, 6]}, {"topic1": [2, 3], "topic2": [4, 5, 6]}):
        r = h.heartbeat("member", 10, owned_partitions=owned)
        expect_response(r, "member", 10, None)
        h.expect_member("member", epoch=10, state="UNREVOKED_PARTITIONS",
                        assigned={"topic1": [2, 3], "topic2": [5, 6]}, pending={"topic1": [1], "topic2": [4]})


def test_cab_unrevoked_partitions_to_unrevoked_partitions():
    """CurrentAssignmentBuilderTest.testUnrevokedPartitionsToUnrevokedPartitions @ 4.0.0.

    The member acknowledges, but the target moved on (epoch 12) and takes more away: it
    revokes again, at epoch 10 + 1 = 11 (the 4.0 rule; 4.2 keeps epoch 10, KAFKA-19974).
    """
    h = cab_group(cab_member(10, 10, "UNREVOKED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]},
                             pending={"topic1": [1], "topic2": [4]}),
                  target_epoch=12, target={"topic1": [3], "topic2": [6]})
    r = h.heartbeat("member", 10, owned_partitions={"topic1": [2, 3], "topic2": [5, 6]})
    expect_response(r, "member", 11, {"topic1": [3], "topic2": [6]})
    h.expect_member("member", epoch=11, state="UNREVOKED_PARTITIONS", assigned={"topic1": [3], "topic2": [6]},
                    pending={"topic1": [2], "topic2": [5]})


def test_cab_unrevoked_partitions_to_unreleased_partitions():
    """CurrentAssignmentBuilderTest.testUnrevokedPartitionsToUnreleasedPartitions @ 4.0.0.

    Nothing left to revoke; the new partitions are held at epoch 10: UNRELEASED_PARTITIONS
    at the target epoch 11, previous epoch 11.
    """
    h = cab_group(cab_member(11, 10, "UNREVOKED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]}),
                  target_epoch=11, target={"topic1": [2, 3, 4], "topic2": [5, 6, 7]},
                  holders={"topic1": [4], "topic2": [7]})
    r = h.heartbeat("member", 11, owned_partitions={"topic1": [2, 3], "topic2": [5, 6]})
    expect_response(r, "member", 11, None)
    h.expect_member("member", epoch=11, state="UNRELEASED_PARTITIONS", assigned={"topic1": [2, 3], "topic2": [5, 6]})
    # previous epoch 11, no longer 10: a retry with 10 is fenced.
    r = h.heartbeat("member", 10, owned_partitions={"topic1": [2, 3], "topic2": [5, 6]})
    assert r.error == Errors.FENCED_MEMBER_EPOCH


def test_cab_unreleased_partitions_to_stable():
    """CurrentAssignmentBuilderTest.testUnreleasedPartitionsToStable @ 4.0.0.

    The target moved to epoch 12 without the missing partitions: STABLE at 12.
    """
    h = cab_group(cab_member(11, 11, "UNRELEASED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]}),
                  target_epoch=12, target={"topic1": [2, 3], "topic2": [5, 6]})
    r = h.heartbeat("member", 11)
    expect_response(r, "member", 12, None)
    h.expect_member("member", epoch=12, state="STABLE", assigned={"topic1": [2, 3], "topic2": [5, 6]})
    h.expect_previous_epoch("member", 11, owned={"topic1": [2, 3], "topic2": [5, 6]}, epoch=12)


def test_cab_unreleased_partitions_to_stable_with_new_partitions():
    """CurrentAssignmentBuilderTest.testUnreleasedPartitionsToStableWithNewPartitions @ 4.0.0.

    The missing partitions were released: they come at once, STABLE at epoch 11.
    """
    h = cab_group(cab_member(11, 11, "UNRELEASED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]}),
                  target_epoch=11, target={"topic1": [2, 3, 4], "topic2": [5, 6, 7]})
    r = h.heartbeat("member", 11)
    expect_response(r, "member", 11, {"topic1": [2, 3, 4], "topic2": [5, 6, 7]})
    h.expect_member("member", epoch=11, state="STABLE", assigned={"topic1": [2, 3, 4], "topic2": [5, 6, 7]})


def test_cab_unreleased_partitions_to_unreleased_partitions():
    """CurrentAssignmentBuilderTest.testUnreleasedPartitionsToUnreleasedPartitions @ 4.0.0: still held, no change."""
    h = cab_group(cab_member(11, 11, "UNRELEASED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]}),
                  target_epoch=11, target={"topic1": [2, 3, 4], "topic2": [5, 6, 7]},
                  holders={"topic1": [4], "topic2": [7]})
    r = h.heartbeat("member", 11)
    expect_response(r, "member", 11, None)
    h.expect_member("member", epoch=11, state="UNRELEASED_PARTITIONS", assigned={"topic1": [2, 3], "topic2": [5, 6]})


def test_cab_unreleased_partitions_to_unrevoked_partitions():
    """CurrentAssignmentBuilderTest.testUnreleasedPartitionsToUnrevokedPartitions @ 4.0.0.

    A new target (epoch 12) takes partitions away: revoke first, at the member's epoch 11.
    """
    h = cab_group(cab_member(11, 11, "UNRELEASED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]}),
                  target_epoch=12, target={"topic1": [3], "topic2": [6]})
    r = h.heartbeat("member", 11)
    expect_response(r, "member", 11, {"topic1": [3], "topic2": [6]})
    h.expect_member("member", epoch=11, state="UNREVOKED_PARTITIONS", assigned={"topic1": [3], "topic2": [6]},
                    pending={"topic1": [2], "topic2": [5]})


def test_cab_unknown_state():
    """CurrentAssignmentBuilderTest.testUnknownState @ 4.0.0.

    A member in a state this coordinator does not know is fenced unless it reports that it
    owns nothing; then it is reconciled from scratch to the target epoch 12.
    """
    h = cab_group(cab_member(11, 11, "UNKNOWN", {"topic1": [3], "topic2": [6]},
                             pending={"topic1": [2], "topic2": [5]}),
                  target_epoch=12, target={"topic1": [3], "topic2": [6]})
    r = h.heartbeat("member", 11)
    assert r.error == Errors.FENCED_MEMBER_EPOCH

    r = h.heartbeat("member", 11, owned_partitions={})
    expect_response(r, "member", 12, None)
    h.expect_member("member", epoch=12, state="STABLE", assigned={"topic1": [3], "topic2": [6]})
    h.expect_previous_epoch("member", 11, owned={"topic1": [3], "topic2": [6]}, epoch=12)


# ======================================================================================
# Server assignors, fed through the coordinator
# ======================================================================================


def assign_through_coordinator(assignor, topics, members, *, instance_ids=None, version=KAFKA_VERSION):
    """One run of a built-in assignor on Kafka's input.

    `members` is {member id: (subscribed topics, previous target)}, in Kafka's TreeMap
    order. The group is restored in Assigning (group epoch 11, target epoch 10) with every
    member holding its previous target; the first member's heartbeat computes the target.
    """
    h = Harness(topics, assignors=("uniform", "range"), version=version)
    instance_ids = instance_ids or {}
    h.load(group_epoch=11, target_epoch=10,
           members={mid: member(10, 9, assigned=previous, topics=subscription, rebalance_timeout_ms=5000,
                                server_assignor=assignor, instance_id=instance_ids.get(mid))
                    for mid, (subscription, previous) in members.items()},
           target={mid: previous for mid, (_, previous) in members.items()})
    first = next(iter(members))
    r = h.heartbeat(first, 10, instance_id=instance_ids.get(first))
    assert r.error == NONE
    assert h.coord.target_assignment_epoch(GROUP) == 11
    return h, h.target()


def expect_assignment(computed, expected):
    """AssignmentTestUtil.assertAssignment: one entry per member, each exactly as expected."""
    assert set(computed) == set(expected)
    assert {m: computed[m] for m in expected} == {m: norm(a) for m, a in expected.items()}


def check_validity_and_balance(subscriptions, computed):
    """OptimizedUniformAssignmentBuilderTest.checkValidityAndBalance."""
    members = list(computed)
    for m in members:
        assert set(computed[m]) <= set(subscriptions[m]), f"{m} got partitions of a topic it does not subscribe to"
    seen = set()
    for m in members:
        for topic, partitions in computed[m].items():
            for p in partitions:
                assert (topic, p) not in seen, f"{topic}-{p} is assigned twice"
                seen.add((topic, p))
    sizes = [sum(len(ps) for ps in computed[m].values()) for m in members]
    assert max(sizes) - min(sizes) <= 1, sizes


# -- uniform, homogeneous subscriptions ---------------------------------------------------


def test_uniform_one_member_no_topic_subscription():
    """OptimizedUniformAssignmentBuilderTest.testOneMemberNoTopicSubscription @ 4.0.0.

    A member subscribed to nothing gets nothing (the assignor returns no assignment, so the
    coordinator gives the member an empty target).
    """
    h = Harness({"topic1": 3}, assignors=("uniform", "range"))
    r = h.heartbeat("A", 0, rebalance_timeout_ms=5000, subscribed_topic_names=[], owned_partitions={})
    expect_response(r, "A", 1, {})
    h.expect_member("A", epoch=1, state="STABLE", assigned={})
    assert {m: a for m, a in h.target().items() if a} == {}


def test_uniform_first_assignment_num_members_greater_than_total_num_partitions():
    """OptimizedUniformAssignmentBuilderTest.testFirstAssignmentNumMembersGreaterThanTotalNumPartitions @ 4.0.0."""
    members = {m: (["topic3"], {}) for m in ("A", "B", "C")}
    _, computed = assign_through_coordinator("uniform", {"topic3": 2}, members)
    expect_assignment(computed, {"A": {"topic3": [0]}, "B": {"topic3": [1]}, "C": {}})
    check_validity_and_balance({m: s for m, (s, _) in members.items()}, computed)


def test_uniform_validity_and_balance_for_large_sample_set():
    """OptimizedUniformAssignmentBuilderTest.testValidityAndBalanceForLargeSampleSet @ 4.0.0.

    99 topics of 3 partitions, 49 members subscribed to all of them.
    """
    topics = {f"topic-{i}": 3 for i in range(1, 100)}
    members = {f"member{i}": (list(topics), {}) for i in range(1, 50)}
    members = dict(sorted(members.items()))  # Kafka's TreeMap
    _, computed = assign_through_coordinator("uniform", topics, members)
    check_validity_and_balance({m: s for m, (s, _) in members.items()}, computed)
    # (derived) the builder throws "Partitions were left unassigned" otherwise
    assert sum(len(ps) for a in computed.values() for ps in a.values()) == 99 * 3


def test_uniform_reassignment_for_two_members_two_topics_given_unbalanced_prev_assignment():
    """OptimizedUniformAssignmentBuilderTest.testReassignmentForTwoMembersTwoTopicsGivenUnbalancedPrevAssignment @ 4.0.0."""
    members = {
        "A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}),
        "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}),
    }
    _, computed = assign_through_coordinator("uniform", {"topic1": 3, "topic2": 3}, members)
    expect_assignment(computed, {"A": {"topic1": [0, 1], "topic2": [0]}, "B": {"topic1": [2], "topic2": [1, 2]}})
    check_validity_and_balance({m: s for m, (s, _) in members.items()}, computed)


def test_uniform_reassignment_when_one_member_added_after_initial_assignment_with_two_members_two_topics():
    """OptimizedUniformAssignmentBuilderTest.testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics @ 4.0.0."""
    members = {
        "A": (["topic1", "topic2"], {"topic1": [0, 2], "topic2": [0]}),
        "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]}),
        "C": (["topic1", "topic2"], {}),
    }
    _, computed = assign_through_coordinator("uniform", {"topic1": 3, "topic2": 3}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0, 2]},
        "B": {"topic1": [1], "topic2": [1]},
        "C": {"topic2": [0, 2]},
    })
    check_validity_and_balance({m: s for m, (s, _) in members.items()}, computed)


def test_uniform_reassignment_when_one_subscription_removed_after_initial_assignment_with_two_members_two_topics():
    """OptimizedUniformAssignmentBuilderTest.testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics @ 4.0.0."""
    members = {
        "A": (["topic2"], {"topic1": [0], "topic2": [0]}),
        "B": (["topic2"], {"topic1": [1], "topic2": [1]}),
    }
    _, computed = assign_through_coordinator("uniform", {"topic1": 2, "topic2": 2}, members)
    expect_assignment(computed, {"A": {"topic2": [0]}, "B": {"topic2": [1]}})
    check_validity_and_balance({m: s for m, (s, _) in members.items()}, computed)


# -- uniform, heterogeneous subscriptions -------------------------------------------------


def test_uniform_heterogeneous_first_assignment_num_members_greater_than_total_num_partitions():
    """UniformHeterogeneousAssignmentBuilderTest.testFirstAssignmentNumMembersGreaterThanTotalNumPartitions @ 4.0.0."""
    members = {"A": (["topic3"], {}), "B": (["topic3"], {}), "C": (["topic1"], {})}
    _, computed = assign_through_coordinator("uniform", {"topic3": 1, "topic1": 2}, members)
    expect_assignment(computed, {"A": {"topic3": [0]}, "B": {}, "C": {"topic1": [0, 1]}})


def test_uniform_heterogeneous_reassignment_when_partitions_are_added_for_two_members():
    """UniformHeterogeneousAssignmentBuilderTest.testReassignmentWhenPartitionsAreAddedForTwoMembers @ 4.0.0."""
    members = {
        "A": (["topic1", "topic3"], {"topic1": [0, 1, 2, 3], "topic3": [0, 1]}),
        "B": (["topic1", "topic2", "topic3", "topic4"], {"topic2": [0, 1, 2], "topic4": [0, 1, 2]}),
    }
    _, computed = assign_through_coordinator("uniform", {"topic1": 6, "topic2": 5, "topic3": 3, "topic4": 3}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0, 1, 2, 3, 4, 5], "topic3": [0, 1, 2]},
        "B": {"topic2": [0, 1, 2, 3, 4], "topic4": [0, 1, 2]},
    })


def test_uniform_heterogeneous_reassignment_when_one_member_removed_with_three_members_three_topics():
    """UniformHeterogeneousAssignmentBuilderTest.testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithThreeMembersThreeTopics @ 4.0.0."""
    members = {
        "A": (["topic1", "topic3"], {"topic1": [0, 1, 2], "topic3": [0, 1]}),
        "B": (["topic2"], {"topic2": [3, 4, 5, 6]}),
    }
    _, computed = assign_through_coordinator("uniform", {"topic1": 3, "topic2": 8, "topic3": 3}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0, 1, 2], "topic3": [0, 1, 2]},
        "B": {"topic2": [0, 1, 2, 3, 4, 5, 6, 7]},
    })


def test_uniform_heterogeneous_reassignment_when_one_subscription_removed_with_two_members_two_topics():
    """UniformHeterogeneousAssignmentBuilderTest.testReassignmentWhenOneSubscriptionRemovedAfterInitialAssignmentWithTwoMembersTwoTopics @ 4.0.0."""
    members = {
        "A": (["topic1"], {"topic1": [0, 2], "topic2": [1, 3]}),
        "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [0, 2, 4]}),
    }
    _, computed = assign_through_coordinator("uniform", {"topic1": 3, "topic2": 5}, members)
    expect_assignment(computed, {"A": {"topic1": [0, 1, 2]}, "B": {"topic2": [0, 1, 2, 3, 4]}})


def test_uniform_heterogeneous_first_assignment_with_two_members_including_one_without_subscriptions():
    """UniformHeterogeneousAssignmentBuilderTest.testFirstAssignmentWithTwoMembersIncludingOneWithoutSubscriptions @ 4.0.0."""
    members = {"A": (["topic1"], {}), "B": ([], {})}
    _, computed = assign_through_coordinator("uniform", {"topic1": 3}, members)
    expect_assignment(computed, {"A": {"topic1": [0, 1, 2]}, "B": {}})


# -- range ----------------------------------------------------------------------------------


def test_range_first_assignment_two_members_two_topics_same_subscriptions():
    """RangeAssignorTest.testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions @ 4.0.0."""
    members = {"A": (["topic1", "topic3"], {}), "B": (["topic1", "topic3"], {})}
    _, computed = assign_through_coordinator("range", {"topic1": 3, "topic3": 2}, members)
    expect_assignment(computed, {"A": {"topic1": [0, 1], "topic3": [0]}, "B": {"topic1": [2], "topic3": [1]}})


def test_range_first_assignment_three_members_three_topics_different_subscriptions():
    """RangeAssignorTest.testFirstAssignmentThreeMembersThreeTopicsDifferentSubscriptions @ 4.0.0."""
    members = {"A": (["topic1", "topic2"], {}), "B": (["topic3"], {}), "C": (["topic2", "topic3"], {})}
    _, computed = assign_through_coordinator("range", {"topic1": 3, "topic2": 3, "topic3": 2}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0, 1, 2], "topic2": [0, 1]},
        "B": {"topic3": [0]},
        "C": {"topic2": [2], "topic3": [1]},
    })


def test_range_first_assignment_num_members_greater_than_num_partitions():
    """RangeAssignorTest.testFirstAssignmentNumMembersGreaterThanNumPartitions @ 4.0.0."""
    members = {m: (["topic1", "topic3"], {}) for m in ("A", "B", "C")}
    _, computed = assign_through_coordinator("range", {"topic1": 3, "topic3": 2}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0], "topic3": [0]},
        "B": {"topic1": [1], "topic3": [1]},
        "C": {"topic1": [2]},
    })


def _range_static_replacement(partitions, instance_ids):
    """Range with instance ids: member A leaves for good and "memberA1" joins with A's instance id.

    The recomputed target (the joiner bumps the epoch) gives memberA1 exactly what A had,
    because members with an instance id are sorted by it (RangeAssignor.sortMemberIds).
    """
    members = {m: (["topic1"], {}) for m in sorted(instance_ids)}
    h, initial = assign_through_coordinator("range", {"topic1": partitions}, members,
                                            instance_ids={m: i for m, i in instance_ids.items() if i})
    r = h.heartbeat("A", -1, instance_id=instance_ids["A"])
    assert r.error == NONE and r.member_epoch == -1
    r = h.join("memberA1", ["topic1"], server_assignor="range", instance_id=instance_ids["A"])
    assert r.error == NONE
    after = h.target()
    assert after["memberA1"] == initial["A"]
    for m in members:
        if m != "A":
            assert after[m] == initial[m]
    return initial


def test_range_static_membership():
    """RangeAssignorTest.testStaticMembership @ 4.0.0."""
    initial = _range_static_replacement(3, {"A": "instanceA", "B": "instanceB"})
    assert initial == {"A": {"topic1": [0, 1]}, "B": {"topic1": [2]}}  # (derived) RangeAssignor on this input


def test_range_mixed_static_membership():
    """RangeAssignorTest.testMixedStaticMembership @ 4.0.0: A and C static, B dynamic, 5 partitions."""
    initial = _range_static_replacement(5, {"A": "instanceA", "B": None, "C": "instanceC"})
    # (derived) static members first, by instance id: A, C, then B
    assert initial == {"A": {"topic1": [0, 1]}, "C": {"topic1": [2, 3]}, "B": {"topic1": [4]}}


def test_range_reassignment_num_members_greater_than_num_partitions_when_one_member_added():
    """RangeAssignorTest.testReassignmentNumMembersGreaterThanNumPartitionsWhenOneMemberAdded @ 4.0.0."""
    members = {
        "A": (["topic1", "topic2"], {"topic1": [0], "topic2": [0]}),
        "B": (["topic1", "topic2"], {"topic1": [1], "topic2": [1]}),
        "C": (["topic1", "topic2"], {}),
    }
    _, computed = assign_through_coordinator("range", {"topic1": 2, "topic2": 2}, members)
    expect_assignment(computed, {"A": {"topic1": [0], "topic2": [0]}, "B": {"topic1": [1], "topic2": [1]}, "C": {}})


def test_range_reassignment_when_one_partition_added_for_two_members_two_topics():
    """RangeAssignorTest.testReassignmentWhenOnePartitionAddedForTwoMembersTwoTopics @ 4.0.0."""
    members = {
        "A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}),
        "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}),
    }
    _, computed = assign_through_coordinator("range", {"topic1": 4, "topic2": 4}, members)
    expect_assignment(computed, {"A": {"topic1": [0, 1], "topic2": [0, 1]}, "B": {"topic1": [2, 3], "topic2": [2, 3]}})


def test_range_reassignment_when_one_member_added_after_initial_assignment_with_two_members_two_topics():
    """RangeAssignorTest.testReassignmentWhenOneMemberAddedAfterInitialAssignmentWithTwoMembersTwoTopics @ 4.0.0."""
    members = {
        "A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}),
        "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}),
        "C": (["topic1", "topic2"], {}),
    }
    _, computed = assign_through_coordinator("range", {"topic1": 3, "topic2": 3}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0], "topic2": [0]},
        "B": {"topic1": [1], "topic2": [1]},
        "C": {"topic1": [2], "topic2": [2]},
    })


def test_range_reassignment_when_one_member_and_one_partition_added_with_two_members_two_topics():
    """RangeAssignorTest.testReassignmentWhenOneMemberAddedAndOnePartitionAfterInitialAssignmentWithTwoMembersTwoTopics @ 4.0.0."""
    members = {
        "A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}),
        "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}),
        "C": (["topic1"], {}),
    }
    _, computed = assign_through_coordinator("range", {"topic1": 4, "topic2": 3}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0, 1], "topic2": [0, 1]},
        "B": {"topic1": [2], "topic2": [2]},
        "C": {"topic1": [3]},
    })


def test_range_reassignment_when_one_member_removed_after_initial_assignment_with_two_members_two_topics():
    """RangeAssignorTest.testReassignmentWhenOneMemberRemovedAfterInitialAssignmentWithTwoMembersTwoTopics @ 4.0.0.

    Member A is gone (it left with -1); B, alone, gets every partition.
    """
    members = {
        "A": (["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}),
        "B": (["topic1", "topic2"], {"topic1": [2], "topic2": [2]}),
    }
    h = Harness({"topic1": 3, "topic2": 3}, assignors=("uniform", "range"))
    h.load(group_epoch=10, target_epoch=10,
           members={m: member(10, 9, assigned=prev, topics=subs, rebalance_timeout_ms=5000, server_assignor="range")
                    for m, (subs, prev) in members.items()},
           target={m: prev for m, (_, prev) in members.items()})
    assert h.heartbeat("A", -1).error == NONE
    r = h.heartbeat("B", 10)
    assert r.error == NONE
    assert h.coord.target_assignment_epoch(GROUP) == 11
    expect_assignment(h.target(), {"B": {"topic1": [0, 1, 2], "topic2": [0, 1, 2]}})


def test_range_reassignment_when_multiple_subscriptions_removed_with_three_members_two_topics():
    """RangeAssignorTest.testReassignmentWhenMultipleSubscriptionsRemovedAfterInitialAssignmentWithThreeMembersTwoTopics @ 4.0.0."""
    members = {
        "A": (["topic1"], {"topic1": [0, 1, 2], "topic2": [0]}),
        "B": (["topic1", "topic2", "topic3"], {"topic2": [1]}),
        "C": (["topic2"], {"topic2": [2], "topic3": [0, 1]}),
    }
    _, computed = assign_through_coordinator("range", {"topic1": 3, "topic2": 3, "topic3": 2}, members)
    expect_assignment(computed, {
        "A": {"topic1": [0, 1]},
        "B": {"topic1": [2], "topic2": [0, 1], "topic3": [0, 1]},
        "C": {"topic2": [2]},
    })


# ======================================================================================
# What Kafka 4.2 changed, replayed at 4.2.0-rc1
# ======================================================================================
# The same kind of scenarios, from the tests at the tag 4.2.0-rc1 (same paths), on a
# coordinator configured as Kafka 4.2: the epoch-0 rejoin of an existing member
# (KAFKA-19233), the epoch kept when revoking again (KAFKA-19974), re-granting a partition
# the member itself has pending revocation (KAFKA-19449), partitions of topics the member no
# longer subscribes to (KAFKA-19431) and the uniform assignor's stable "+1" slots
# (KAFKA-18688, 4.1). Kafka 4.2's tests give topics 10 partitions in these CAB cases.

KAFKA_42 = "4.2.0"  # the coordinator's version for scenarios read at the tag 4.2.0-rc1
CAB_TOPICS_42 = {"topic1": 10, "topic2": 10}


def _rejoin_with_epoch_zero(member_record, *, group_epoch, target):
    h = Harness({"foo": 3}, version=KAFKA_42)
    h.load(group_epoch=group_epoch, target_epoch=group_epoch, members={MEMBER_1: member_record},
           target={MEMBER_1: target})
    assert h.coord.member_state(GROUP, MEMBER_1) == member_record["state"]
    return h, h.heartbeat(MEMBER_1, 0, rebalance_timeout_ms=5000, subscribed_topic_names=["foo"], owned_partitions={})


def test_42_member_can_rejoin_with_epoch_zero_in_stable_state():
    """GroupMetadataManagerTest.testMemberCanRejoinWithEpochZeroInStableState @ 4.2.0-rc1.

    A STABLE member rejoining with epoch 0 gets its epoch (100) and assignment back; the
    group epoch does not move and no assignor runs.
    """
    h, r = _rejoin_with_epoch_zero(member(100, 99, assigned={"foo": [0, 1, 2]}, topics=["foo"],
                                          rebalance_timeout_ms=5000),
                                   group_epoch=100, target={"foo": [0, 1, 2]})
    expect_response(r, MEMBER_1, 100, {"foo": [0, 1, 2]})
    assert h.coord.group_epoch(GROUP) == 100
    assert h.assignor.calls == []


def test_42_member_can_rejoin_with_epoch_zero_in_unrevoked_partitions_state():
    """GroupMetadataManagerTest.testMemberCanRejoinWithEpochZeroInUnrevokedPartitionsState @ 4.2.0-rc1.

    A member still revoking foo 2 rejoins owning nothing: that counts as the revocation, and
    it moves to the target epoch 101 with foo 0 and 1.
    """
    h, r = _rejoin_with_epoch_zero(member(100, 99, state="UNREVOKED_PARTITIONS", assigned={"foo": [0, 1]},
                                          pending={"foo": [2]}, topics=["foo"], rebalance_timeout_ms=5000),
                                   group_epoch=101, target={"foo": [0, 1]})
    expect_response(r, MEMBER_1, 101, {"foo": [0, 1]})
    assert h.assignor.calls == []


def test_42_member_can_rejoin_with_epoch_zero_in_unreleased_partitions_state():
    """GroupMetadataManagerTest.testMemberCanRejoinWithEpochZeroInUnreleasedPartitionsState @ 4.2.0-rc1.

    A member waiting for foo 1 and 2 (now free) rejoins: epoch 100, foo 0-2.
    """
    h, r = _rejoin_with_epoch_zero(member(100, 99, state="UNRELEASED_PARTITIONS", assigned={"foo": [0]},
                                          topics=["foo"], rebalance_timeout_ms=5000),
                                   group_epoch=100, target={"foo": [0, 1, 2]})
    expect_response(r, MEMBER_1, 100, {"foo": [0, 1, 2]})
    assert h.coord.group_epoch(GROUP) == 100


def test_42_cab_unrevoked_partitions_to_unrevoked_partitions():
    """CurrentAssignmentBuilderTest.testUnrevokedPartitionsToUnrevokedPartitions @ 4.2.0-rc1.

    As at 4.0.0, but the member revoking again keeps epoch 10 (KAFKA-19974).
    """
    h = cab_group(cab_member(10, 10, "UNREVOKED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]},
                             pending={"topic1": [1], "topic2": [4]}),
                  target_epoch=12, target={"topic1": [3], "topic2": [6]}, topics=CAB_TOPICS_42, version=KAFKA_42)
    r = h.heartbeat("member", 10, owned_partitions={"topic1": [2, 3], "topic2": [5, 6]})
    expect_response(r, "member", 10, {"topic1": [3], "topic2": [6]})
    h.expect_member("member", epoch=10, state="UNREVOKED_PARTITIONS", assigned={"topic1": [3], "topic2": [6]},
                    pending={"topic1": [2], "topic2": [5]})


def test_42_cab_unrevoked_partitions_to_stable_with_returned_partitions_pending_revocation():
    """CurrentAssignmentBuilderTest.testUnrevokedPartitionsToStableWithReturnedPartitionsPendingRevocation @ 4.2.0-rc1.

    topic1 4, pending revocation by the member itself, is back in its target: once the member
    has acknowledged, it gets it back at once with topic2 7 (KAFKA-19449): STABLE at 12.
    """
    h = cab_group(cab_member(10, 10, "UNREVOKED_PARTITIONS", {"topic1": [2, 3], "topic2": [5, 6]},
                             pending={"topic1": [4]}),
                  target_epoch=12, target={"topic1": [2, 3, 4], "topic2": [5, 6, 7]}, topics=CAB_TOPICS_42,
                  version=KAFKA_42)
    r = h.heartbeat("member", 10, owned_partitions={"topic1": [2, 3], "topic2": [5, 6]})
    expect_response(r, "member", 12, {"topic1": [2, 3, 4], "topic2": [5, 6, 7]})
    h.expect_member("member", epoch=12, state="STABLE", assigned={"topic1": [2, 3, 4], "topic2": [5, 6, 7]})
    h.expect_previous_epoch("member", 10, owned={"topic1": [2, 3, 4], "topic2": [5, 6, 7]}, epoch=12)


def test_42_cab_stable_to_stable_with_assignment_topics_no_longer_in_subscription():
    """CurrentAssignmentBuilderTest.testStableToStableWithAssignmentTopicsNoLongerInSubscription @ 4.2.0-rc1.

    Case (member epoch 10, target epoch 11, subscription unchanged in this heartbeat): the
    member subscribes to topic2 only, so topic1 is out of its target (KAFKA-19431); the
    client owns only topic2, so nothing is left to revoke: STABLE at 11 with topic2 4-6.
    """
    h = cab_group(member(10, 10, assigned={"topic1": [1, 2, 3], "topic2": [4, 5, 6]}, topics=["topic2"],
                         rebalance_timeout_ms=5000),
                  target_epoch=11, target={"topic1": [1, 2, 3], "topic2": [4, 5, 6]}, topics=CAB_TOPICS_42,
                  version=KAFKA_42)
    r = h.heartbeat("member", 10, owned_partitions={"topic2": [4, 5, 6]})
    expect_response(r, "member", 11, {"topic2": [4, 5, 6]})
    h.expect_member("member", epoch=11, state="STABLE", assigned={"topic2": [4, 5, 6]})
    h.expect_previous_epoch("member", 10, owned={"topic2": [4, 5, 6]}, epoch=11)


def test_42_cab_stable_to_unrevoked_partitions_with_assignment_topics_no_longer_in_subscription():
    """CurrentAssignmentBuilderTest.testStableToUnrevokedPartitionsWithAssignmentTopicsNoLongerInSubscription @ 4.2.0-rc1.

    Case (10, 11, subscription unchanged in this heartbeat): the client still owns topic1
    1-3, which its subscription no longer covers: revoke them first, at epoch 10.
    """
    h = cab_group(member(10, 10, assigned={"topic1": [1, 2, 3], "topic2": [4, 5, 6]}, topics=["topic2"],
                         rebalance_timeout_ms=5000),
                  target_epoch=11, target={"topic1": [1, 2, 3], "topic2": [4, 5, 6]}, topics=CAB_TOPICS_42,
                  version=KAFKA_42)
    r = h.heartbeat("member", 10, owned_partitions={"topic1": [1, 2, 3], "topic2": [4, 5, 6]})
    expect_response(r, "member", 10, {"topic2": [4, 5, 6]})
    h.expect_member("member", epoch=10, state="UNREVOKED_PARTITIONS", assigned={"topic2": [4, 5, 6]},
                    pending={"topic1": [1, 2, 3]})


def test_42_uniform_first_assignment_num_members_greater_than_total_num_partitions():
    """OptimizedUniformAssignmentBuilderTest.testFirstAssignmentNumMembersGreaterThanTotalNumPartitions @ 4.2.0-rc1.

    Since KAFKA-18688 (4.1) the two "+1" slots go to the last members that can take them: B
    and C, where 4.0.0 gave them to A and B.
    """
    members = {m: (["topic3"], {}) for m in ("A", "B", "C")}
    _, computed = assign_through_coordinator("uniform", {"topic3": 2}, members, version=KAFKA_42)
    expect_assignment(computed, {"A": {}, "B": {"topic3": [0]}, "C": {"topic3": [1]}})
    check_validity_and_balance({m: s for m, (s, _) in members.items()}, computed)


def test_42_uniform_reassignment_stickiness_when_already_balanced():
    """OptimizedUniformAssignmentBuilderTest.testReassignmentStickinessWhenAlreadyBalanced @ 4.2.0-rc1.

    Five partitions, three members, already balanced with A and C holding two: nothing moves.
    (Kafka lists topic2, which does not exist, in B's and C's subscriptions of a group it
    declares homogeneous; the coordinator derives homogeneity from the subscriptions, so all
    three subscribe to topic1, the topic the assignor sees.)
    """
    members = {
        "A": (["topic1"], {"topic1": [0, 3]}),
        "B": (["topic1"], {"topic1": [1]}),
        "C": (["topic1"], {"topic1": [2, 4]}),
    }
    _, computed = assign_through_coordinator("uniform", {"topic1": 5}, members, version=KAFKA_42)
    expect_assignment(computed, {"A": {"topic1": [0, 3]}, "B": {"topic1": [1]}, "C": {"topic1": [2, 4]}})
    check_validity_and_balance({m: s for m, (s, _) in members.items()}, computed)
