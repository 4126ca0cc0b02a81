"""Share groups on the coordinator (KIP-932): ShareGroupHeartbeat replayed from the share-group tests
of Kafka's `GroupMetadataManagerTest` (GMMT) and `ShareGroupHeartbeatRequestTest` (SGHRT).

Each replay names its test method and tag (Confluent's v8.N.0 = Apache 4.N.0). GMMT builds its
context with a `MockPartitionAssignor` that returns a prepared assignment whatever the initialized
partitions; kafkasim runs the real `simple` assignor, so where a test's prepared assignment differs
from what `simple` computes the docstring says so and the expectation is the simple assignor's
(4.0: every subscribed partition to every member; 4.1+: only initialized partitions).
"""

from __future__ import annotations

import pytest

from kafkasim import Errors, GroupCoordinator, Simulation
from kafkasim.coordinator.broker_log import metadata_hash
from kafkasim.core.config import BROKER_CONFIGS, broker_config
from kafkasim.core.errors import ConfigError

from coordinator_helpers import glance_share_admin, glance_share_coordinator

M1 = "Rz3TqYCwS6S1h9bA8kE0Yw"  # 22-character ids, as Uuid.randomUuid().toString() gives
M2 = "p7VxK0nWQk2cXh4fJ9bZ1Q"


def coordinator(version="4.2", topics=None, **kw) -> GroupCoordinator:
    return GroupCoordinator(Simulation(seed=0), kafka_version=version, topics=topics or {}, **kw)


def hb(coord, group="fooup", member=M1, epoch=0, topics=None, rack=None):
    return coord.share_group_heartbeat(group, member_id=member, member_epoch=epoch, rack_id=rack,
                                       subscribed_topic_names=topics)


# == the design's "At a glance" block, run as written ===========================================
def test_at_a_glance_block_runs_as_written():
    sim = Simulation(seed=0)
    coord = glance_share_coordinator(sim)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=0, rack_id=None,
                                    subscribed_topic_names=["foo"])
    # 4.2: nothing is initialized yet, so the first target is empty (sent: epoch 0).
    assert (r.error, r.error_message, r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == \
        (Errors.NONE, None, "m1", 1, 5000, {})
    coord.complete_share_init("g")
    assert coord.group_epoch("g") == 1  # complete_share_init does not bump
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=1)
    assert (r.member_epoch, r.assignment) == (2, {"foo": [0, 1, 2]})
    assert coord.group_type("g") == "share"
    assert coord.group_state("g") == "Stable"
    assert (coord.group_epoch("g"), coord.target_assignment_epoch("g")) == (2, 2)
    assert coord.target_assignment("g") == {"m1": {"foo": [0, 1, 2]}}
    assert (coord.member_ids("g"), coord.member_epoch("g", "m1"), coord.assigned_partitions("g", "m1")) == \
        (["m1"], 2, {"foo": [0, 1, 2]})
    glance_share_admin(coord)
    assert (coord.group_type("g2"), coord.group_state("g2"), coord.member_epoch("g2", "m1")) == ("share", "Stable", 10)
    sp = coord.share_partition("g", "foo", 0)
    assert coord.share_partition("g", "foo", 0) is sp
    assert sp.acquire("m1", 500, fetch_offset=sp.next_fetch_offset, log_batches=[(0, 99), (100, 149)]) == \
        [(0, 149, 1)]
    assert sp.lock_timers()[0].time == 60000  # the group's share.record.lock.duration.ms, read when armed
    assert sp.acknowledge("m1", [(0, 99, "ACCEPT"), (100, 149, "RELEASE")]) is Errors.NONE
    assert sp.release_all("m1") is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset, sp.delivery_complete_count) == (100, 149, 100, 0)
    assert (sp.state(120), sp.delivery_count(120), sp.owner(120), sp.cached_batches(), sp.can_acquire_records()) == \
        ("AVAILABLE", 1, "", [(0, 149)], True)  # one acquired batch, split into offset states
    assert (sp.lock_timers(), sp.stats["write_share_group_state"]) == ([], 1)
    sim.advance(30001)
    assert coord.member_ids("g") == ["m1"]  # its timer was armed at 0 with 45000 (the override came later)
    sim.advance(15000)
    assert (coord.member_ids("g"), coord.group_epoch("g"), coord.group_state("g")) == ([], 3, "Empty")


# == GroupMetadataManagerTest replays ==========================================================
def test_member_can_rejoin_with_epoch_zero_42():
    """GMMT.testShareGroupMemberCanRejoinWithEpochZero (v8.2.0): a member at epoch 100 (previous 99)
    rejoins with epoch 0: accepted, keeps epoch 100, group epoch unchanged, full assignment sent."""
    coord = coordinator("4.2", {"foo": 3})
    coord.load_share_group("fooup", group_epoch=100, target_assignment_epoch=100,
                           members={M1: {"member_epoch": 100, "previous_member_epoch": 99,
                                         "subscribed_topic_names": ["foo"], "assigned": {"foo": [0, 1, 2]}}},
                           target_assignment={M1: {"foo": [0, 1, 2]}})
    r = hb(coord, epoch=0, topics=["foo"])
    assert (r.error, r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == \
        (Errors.NONE, M1, 100, 5000, {"foo": [0, 1, 2]})
    assert coord.group_epoch("fooup") == 100


def test_rejoin_with_epoch_zero_is_fenced_before_42():
    """The same rejoin at 4.1.1 (v8.1.0): `throwIfShareGroupMemberEpochIsInvalid` has no epoch-0
    early return (KAFKA-19233 came in 4.2), so 0 < 100 and 0 != 99 is fenced."""
    coord = coordinator("4.1", {"foo": 3})
    coord.load_share_group("fooup", group_epoch=100,
                           members={M1: {"member_epoch": 100, "previous_member_epoch": 99,
                                         "subscribed_topic_names": ["foo"], "assigned": {"foo": [0, 1, 2]}}},
                           target_assignment={M1: {"foo": [0, 1, 2]}})
    r = hb(coord, epoch=0, topics=["foo"])
    assert (r.error, r.error_message) == (Errors.FENCED_MEMBER_EPOCH, (
        "The share group member has a smaller member epoch (0) than the one known by the group coordinator (100). "
        "The member must abandon all its partitions and rejoin."))
    assert r.error.code == 110
    r = hb(coord, epoch=99)  # its previous epoch: the lost-response case is accepted
    assert (r.error, r.member_epoch, r.assignment) == (Errors.NONE, 100, None)
    r = hb(coord, epoch=101)
    assert r.error_message.startswith("The share group member has a greater member epoch (101) than the one known "
                                      "by the group coordinator (100).")


def test_session_timeout_expiration_42():
    """GMMT.testSessionTimeoutExpirationForShareMember (v8.2.0): join at epoch 1 on foo (6
    partitions), a 45000 ms session; 45001 ms later the member is fenced and the group epoch is 2."""
    coord = coordinator("4.2", {"foo": 6})
    assert hb(coord, epoch=0, topics=["foo"]).member_epoch == 1
    coord.sim.advance(44999)
    assert coord.member_ids("fooup") == [M1]
    coord.sim.advance(2)  # the test sleeps 45001; the timer expires at its deadline (MockTimer: deadline <= now)
    assert (coord.member_ids("fooup"), coord.group_epoch("fooup"), coord.group_state("fooup")) == ([], 2, "Empty")
    rows = [r for r in coord.sim.events.rows if r[4] in ("MemberFenced", "MemberRemoved", "GroupEpochBumped")]
    assert [(r[0], r[4], r[9]) for r in rows][-3:] == [(45000, "MemberFenced", "session_timeout"),
                                                       (45000, "MemberRemoved", "session_timeout"),
                                                       (45000, "GroupEpochBumped", "member_removed")]
    r = hb(coord, epoch=1)
    assert (r.error, r.error_message) == (Errors.UNKNOWN_MEMBER_ID, f"Member {M1} is not a member of group fooup.")


def test_a_share_member_leaving_takes_its_target_timer_and_topics_with_it_and_bumps_the_epoch():
    """`shareGroupFenceMember` for a leave (epoch -1): the member's row carries its epoch, its target goes,
    its session timer is cancelled (only the other member's fires, at 45 s), the subscription metadata
    loses the topic only it read (4.1+ logs the new hash) and the group epoch bump carries the new epoch."""
    coord = coordinator("4.2", {"foo": 6, "bar": 2})
    hb(coord, epoch=0, topics=["foo"])
    hb(coord, member=M2, epoch=0, topics=["foo", "bar"])
    coord.sim.advance(1000)
    assert hb(coord, member=M2, epoch=-1).error is Errors.NONE
    rows = [(r[0], r[3], r[4], r[9], r[10]) for r in coord.sim.events.rows if r[0] == 1000]
    assert rows == [(1000, M2, "ShareGroupHeartbeat", None, -1.0), (1000, M2, "MemberRemoved", "leave_group", 2.0),
                    (1000, None, "GroupEpochBumped", "member_removed", 3.0)]
    assert list(coord.share_groups.target_assignment("fooup")) == [M1]
    assert coord.broker_log[-1].split("] ", 2)[-1].startswith(
        f"[GroupId fooup] Computed new metadata hash: {metadata_hash({'foo': 6})}.")
    coord.sim.advance(45_000)
    assert (coord.member_ids("fooup"), coord.share_groups.stats["timer_events"]) == ([], 1)

def test_member_id_generation_42_and_40():
    """GMMT.testShareGroupMemberIdGeneration, v8.2.0: the client's member id is kept, epoch 1, an
    empty assignment sent, and foo-0, bar-0 start initializing. v8.0.0: the same with no topics in
    the image; 4.0 generates an id for an empty one (`Uuid.randomUuid()`)."""
    coord = coordinator("4.2", {"foo": 1, "bar": 1})
    r = coord.share_group_heartbeat("group-foo", member_id=M1, member_epoch=0, subscribed_topic_names=["foo", "bar"])
    assert (r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == (M1, 1, 5000, {})
    assert coord.share_groups.initializing_partitions("group-foo") == {"bar": [0], "foo": [0]}
    coord = coordinator("4.0")
    r = coord.share_group_heartbeat("group-foo", member_id=M1, member_epoch=0, subscribed_topic_names=["foo", "bar"])
    assert (r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == (M1, 1, 5000, {})
    r = coord.share_group_heartbeat("group-foo", member_id="", member_epoch=0, subscribed_topic_names=["foo"])
    assert r.error is Errors.NONE and len(r.member_id) == 22 and r.member_id != M1
    assert coord.member_ids("group-foo") == [M1, r.member_id]


def test_unknown_group_id_41_42_and_40():
    """GMMT.testShareGroupUnknownGroupId: epoch 100 for an unknown group. v8.2.0 (and 4.1):
    GroupIdNotFoundException "Share group fooup not found."; v8.0.0: IllegalStateException, which
    the coordinator answers UNKNOWN_SERVER_ERROR with no message."""
    for version in ("4.1", "4.2"):
        r = hb(coordinator(version), epoch=100, topics=["foo", "bar"])
        assert (r.error, r.error.code, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, 69, "Share group fooup not found.")
    r = hb(coordinator("4.0"), epoch=100, topics=["foo", "bar"])
    assert (r.error, r.error_message) == (Errors.UNKNOWN_SERVER_ERROR, None)


def test_unknown_member_id_joins_42():
    """GMMT.testShareGroupUnknownMemberIdJoins (v8.2.0): a first member creates the group; a second,
    unknown member id with epoch 1 gets UNKNOWN_MEMBER_ID and nothing changes."""
    coord = coordinator("4.2", {"foo": 1, "bar": 1})
    assert hb(coord, epoch=0, topics=["foo", "bar"]).member_epoch == 1
    r = hb(coord, member=M2, epoch=1, topics=["foo", "bar"])
    assert (r.error, r.error.code, r.error_message) == (
        Errors.UNKNOWN_MEMBER_ID, 25, f"Member {M2} is not a member of group fooup.")
    assert (coord.member_ids("fooup"), coord.group_epoch("fooup")) == ([M1], 1)


def test_member_joins_empty_group_with_assignments_40():
    """GMMT.testShareGroupMemberJoinsEmptyGroupWithAssignments (v8.0.0): foo (6) and bar (3); the
    join gets epoch 1 and every partition (4.0's simple assignor gives each member all of them, as
    the test's prepared assignment does). The member is at epoch 1, previous 0."""
    coord = coordinator("4.0", {"foo": 6, "bar": 3})
    r = hb(coord, epoch=0, topics=["foo", "bar"])
    assert (r.member_epoch, r.assignment) == (1, {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]})
    assert (coord.member_epoch("fooup", M1), coord.previous_member_epoch("fooup", M1)) == (1, 0)
    assert coord.target_assignment("fooup") == {M1: {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]}}
    assert coord.member_state("fooup", M1) == "STABLE"
    assert coord.partitions_pending_revocation("fooup", M1) == {}


def test_member_joins_empty_group_42_waits_for_initialization():
    """GMMT.testShareGroupMemberJoinsEmptyGroupWithAssignments (v8.2.0): the same join records
    foo 0-5 and bar 0-2 as initializing (its ShareGroupStatePartitionMetadata record). The test's
    mock assignor hands out all partitions at epoch 1; the simple assignor assigns only initialized
    partitions, so epoch 1 is empty and the heartbeat after initialization assigns them at epoch 2
    (the timeline of SGHRT.testShareGroupHeartbeatIsAccessibleWhenShareGroupIsEnabled)."""
    coord = coordinator("4.2", {"foo": 6, "bar": 3})
    r = hb(coord, epoch=0, topics=["foo", "bar"])
    assert (r.member_epoch, r.assignment) == (1, {})
    assert coord.share_groups.initializing_partitions("fooup") == {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]}
    r = hb(coord, epoch=1)
    assert (r.member_epoch, r.assignment) == (1, None)  # nothing initialized yet: no bump
    coord.complete_share_init("fooup")
    assert coord.share_groups.initialized_partitions("fooup") == {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]}
    r = hb(coord, epoch=1)
    assert (r.member_epoch, r.assignment) == (2, {"bar": [0, 1, 2], "foo": [0, 1, 2, 3, 4, 5]})


def test_topic_created_after_join_42():
    """SGHRT.testShareGroupHeartbeatIsAccessibleWhenShareGroupIsEnabled (v8.2.0, real simple
    assignor): join before the topic exists -> epoch 1, []; the topic is created (3 partitions) ->
    next heartbeat epoch 2, still []; after initialization -> epoch 3 with partitions 0, 1, 2."""
    coord = coordinator("4.2")
    r = hb(coord, epoch=0, topics=["foo"])
    assert (r.member_epoch, r.assignment) == (1, {})
    coord.create_partitions("foo", 3)
    r = hb(coord, epoch=1)
    assert (r.member_epoch, r.assignment) == (2, None)
    assert coord.assigned_partitions("fooup", M1) == {}
    coord.complete_share_init("fooup")
    r = hb(coord, epoch=2)
    assert (r.member_epoch, r.assignment) == (3, {"foo": [0, 1, 2]})


def test_leaving_member_bumps_group_epoch_42():
    """GMMT.testShareGroupLeavingMemberBumpsGroupEpoch (v8.2.0): a group at epoch 10 with two members
    (m2 also on zar); m2 leaves: the response echoes m2 with epoch -1 (interval 0, no assignment),
    and the group epoch is 11 with m2's target gone."""
    coord = coordinator("4.2", {"foo": 6, "bar": 3, "zar": 1})
    coord.load_share_group("fooup", group_epoch=10, target_assignment_epoch=10, members={
        M1: {"member_epoch": 10, "previous_member_epoch": 9, "subscribed_topic_names": ["foo", "bar"],
             "assigned": {"foo": [0, 1, 2], "bar": [0, 1]}},
        M2: {"member_epoch": 10, "previous_member_epoch": 9, "subscribed_topic_names": ["foo", "bar", "zar"],
             "assigned": {"foo": [3, 4, 5], "bar": [2]}}},
        target_assignment={M1: {"foo": [0, 1, 2], "bar": [0, 1]}, M2: {"foo": [3, 4, 5], "bar": [2]}})
    r = hb(coord, member=M2, epoch=-1, topics=["foo", "bar"])
    assert (r.error, r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == \
        (Errors.NONE, M2, -1, 0, None)
    assert (coord.group_epoch("fooup"), coord.member_ids("fooup")) == (11, [M1])
    assert coord.target_assignment("fooup") == {M1: {"bar": [0, 1], "foo": [0, 1, 2]}}
    r = hb(coord, group="nope", epoch=-1)
    assert (r.error, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, "Group nope not found.")
    r = hb(coord, member=M2, epoch=-1)
    assert (r.error, r.error_message) == (Errors.UNKNOWN_MEMBER_ID, f"Member {M2} is not a member of group fooup.")


def test_new_member_rejected_at_maximum_size_42():
    """GMMT.testShareGroupNewMemberIsRejectedWithMaximumMembersIsReached (v8.2.0): group.share.max.size
    = 1, a group at epoch 100; member 1 joins at epoch 101, member 2 gets GROUP_MAX_SIZE_REACHED."""
    coord = coordinator("4.2", {"foo": 1, "bar": 1}, group_share_max_size=1)
    coord.load_share_group("fooup", group_epoch=100, members={})
    assert coord.group_state("fooup") == "Empty"
    assert hb(coord, epoch=0, topics=["foo", "bar"]).member_epoch == 101
    r = hb(coord, member=M2, epoch=0, topics=["foo", "bar"])
    assert (r.error, r.error.code, r.error_message) == (
        Errors.GROUP_MAX_SIZE_REACHED, 81, "The share group has reached its maximum capacity of 1 members.")
    assert hb(coord, epoch=101).error is Errors.NONE  # a known member is still served


def test_share_group_states_42():
    """GMMT.testShareGroupStates (v8.2.0): Empty with no member, Stable with one, whatever its
    assignment (there is no Assigning or Reconciling state)."""
    coord = coordinator("4.2", {"foo": 4})
    coord.load_share_group("fooup", group_epoch=10, members={})
    assert coord.group_state("fooup") == "Empty"
    coord = coordinator("4.2", {"foo": 4})
    coord.load_share_group("fooup", group_epoch=11, target_assignment_epoch=11,
                           members={M1: {"member_epoch": 11, "previous_member_epoch": 10,
                                         "subscribed_topic_names": ["foo"], "assigned": {"foo": [1, 2]}}},
                           target_assignment={M1: {"foo": [1, 2, 3]}})
    assert coord.group_state("fooup") == "Stable"
    assert coord.share_groups.delete_group("fooup") is Errors.NON_EMPTY_GROUP


def test_dynamic_configs_42():
    """GMMT.testShareGroupDynamicConfigs (v8.2.0): join with the broker's 5000 ms interval and a
    45000 ms session; the group's share.session.timeout.ms=50000 and share.heartbeat.interval.ms=10000
    are read at the next heartbeat (interval 10000, session re-armed for 50000). The test's mock
    assignor had all six partitions assigned at epoch 1, so its second heartbeat stays at epoch 1;
    with the simple assignor the initialized partitions arrive at epoch 2."""
    coord = coordinator("4.2", {"foo": 6})
    r = hb(coord, epoch=0, topics=["foo"])
    assert (r.member_epoch, r.heartbeat_interval_ms) == (1, 5000)
    coord.sim.advance(5000)
    coord.set_group_config("fooup", {"share.session.timeout.ms": 50000, "share.heartbeat.interval.ms": 10000})
    coord.complete_share_init("fooup")
    r = hb(coord, epoch=1)
    assert (r.member_epoch, r.heartbeat_interval_ms, r.assignment) == (2, 10000, {"foo": [0, 1, 2, 3, 4, 5]})
    coord.sim.advance(49999)
    assert coord.member_ids("fooup") == [M1]
    coord.sim.advance(1)  # 5000 + 50000: the group's session timeout, at its deadline
    assert coord.member_ids("fooup") == []


def test_heartbeat_on_the_wrong_kind_of_group_42():
    """GMMT.testConsumerGroupHeartbeatOnShareGroup and testShareGroupHeartbeatOnConsumerGroup
    (v8.2.0): GroupIdNotFoundException both ways ("Group G is not a consumer group." /
    "... not a share group.")."""
    coord = coordinator("4.2", {"foo": 6})
    coord.load_share_group("group-foo", group_epoch=1, members={
        M1: {"member_epoch": 1, "previous_member_epoch": 0, "subscribed_topic_names": ["foo"]}},
        target_assignment={M1: {}})
    r = coord.consumer_group_heartbeat("group-foo", member_id=M1, member_epoch=0, rebalance_timeout_ms=5000,
                                       subscribed_topic_names=["foo", "bar"], server_assignor="range",
                                       owned_partitions={})
    assert (r.error, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, "Group group-foo is not a consumer group.")
    assert coord.group_type("group-foo") == "share"
    coord.load_consumer_group("group-bar", group_epoch=10, members={
        M1: {"member_epoch": 10, "previous_member_epoch": 9, "subscribed_topic_names": ["foo"],
             "assigned": {"foo": [0, 1, 2]}}}, target_assignment={M1: {"foo": [0, 1, 2]}})
    r = hb(coord, group="group-bar", member=M2, epoch=1, topics=["foo", "bar"])
    assert (r.error, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, "Group group-bar is not a share group.")
    assert (coord.group_type("group-bar"), coord.member_epoch("group-bar", M1)) == ("consumer", 10)


def test_initialize_on_partition_update_42():
    """GMMT.testShareGroupHeartbeatInitializeOnPartitionUpdate (v8.2.0): t1 and t2 (2 partitions
    each) initialize at the join (epoch 1); t1 grows to 4: the next heartbeat bumps to epoch 2 and
    only t1-2, t1-3 start initializing, t1 0-1 and t2 0-1 stay initialized."""
    coord = coordinator("4.2", {"t1": 2, "t2": 2})
    r = hb(coord, group="share-group", epoch=0, topics=["t1", "t2"])
    assert r.member_epoch == 1
    assert coord.share_groups.initializing_partitions("share-group") == {"t1": [0, 1], "t2": [0, 1]}
    coord.complete_share_init("share-group")
    coord.create_partitions("t1", 4)
    r = hb(coord, group="share-group", epoch=1)
    assert r.member_epoch == 2
    assert coord.share_groups.initializing_partitions("share-group") == {"t1": [2, 3]}
    assert coord.share_groups.initialized_partitions("share-group") == {"t1": [0, 1], "t2": [0, 1]}
    assert r.assignment == {"t1": [0, 1], "t2": [0, 1]}  # only initialized partitions are assigned
    coord.complete_share_init("share-group")
    r = hb(coord, group="share-group", epoch=2)
    assert (r.member_epoch, r.assignment) == (3, {"t1": [0, 1, 2, 3], "t2": [0, 1]})


def test_two_members_share_partitions_42():
    """The 4.2 simple assignor through the heartbeat: 3 members on a 2-partition topic share
    (desired sharing 2, quotas [2, 1, 1]); every member gets work, nothing is revoked first."""
    coord = coordinator("4.2", {"T1": 2})
    hb(coord, member="A", epoch=0, topics=["T1"])
    coord.complete_share_init("fooup")
    assert hb(coord, member="A", epoch=1).assignment == {"T1": [0, 1]}
    rb = hb(coord, member="B", epoch=0, topics=["T1"])
    rc = hb(coord, member="C", epoch=0, topics=["T1"])
    assert (rb.member_epoch, rc.member_epoch) == (3, 4)
    ra = hb(coord, member="A", epoch=2)
    assert ra.member_epoch == 4 and ra.error is Errors.NONE
    target = coord.target_assignment("fooup")
    assert sorted(len(target[m]["T1"]) for m in "ABC") == [1, 1, 2]
    assert sorted(p for m in "ABC" for p in target[m]["T1"]) == [0, 0, 1, 1]


# == request validation (KafkaApis, GroupCoordinatorService) ==================================
@pytest.mark.parametrize("version, kwargs, message", [
    ("4.2", dict(member=""), "Invalid member id in the request."),
    ("4.2", dict(member="x" * 37), "Invalid member id in the request."),
    ("4.1", dict(member=""), "MemberId can't be empty."),
    ("4.2", dict(group=" "), "GroupId can't be empty."),
    ("4.2", dict(rack=""), "RackId can't be empty."),
    ("4.2", dict(topics=[]), "SubscribedTopicNames must be set in first request."),
    ("4.2", dict(topics=None), "SubscribedTopicNames must be set in first request."),
    ("4.1", dict(epoch=-2), "MemberEpoch is invalid."),
])
def test_request_validation(version, kwargs, message):
    """`KafkaApis.handleShareGroupHeartbeat` (4.2: member id 1-36 characters) and
    `GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid` (v8.1.0, v8.2.0)."""
    args = dict(topics=["foo"])
    args.update(kwargs)
    r = hb(coordinator(version, {"foo": 1}), **args)
    assert (r.error, r.error.code, r.error_message) == (Errors.INVALID_REQUEST, 42, message)
    assert repr(r) == f"ShareGroupHeartbeatResponse(error=Errors.INVALID_REQUEST, error_message={message!r})"


def test_not_served_before_40():
    """Before 4.0 the broker has no share groups: UNSUPPORTED_VERSION (35), the share arguments are
    accepted and unused, and a share partition is refused naming 4.0."""
    coord = coordinator("3.9", {"foo": 1}, group_share_max_size=5)
    r = hb(coord, topics=["foo"])
    assert (r.error, r.error.code) == (Errors.UNSUPPORTED_VERSION, 35)
    with pytest.raises(ConfigError, match="4.0"):
        coord.share_partition("g", "foo", 0)


# == configs ====================================================================================
def test_share_configs_defaults_and_ranges():
    """`GroupCoordinatorConfig` / `ShareGroupConfig` at 4.0.0-4.2.0: the record-lock limit is 200
    in 4.0 and 2000 from 4.1; ranges and startup checks as Kafka's."""
    spec = BROKER_CONFIGS["group.share.partition.max.record.locks"]
    assert [spec.default(v) for v in ("3.9", "4.0", "4.1", "4.2")] == [None, 200, 2000, 2000]
    assert broker_config("4.2")["group.share.max.size"] == 200
    assert coordinator("4.0").share_groups.configs["group.share.partition.max.record.locks"] == 200
    with pytest.raises(ConfigError, match=r"group.share.max.size.*1000"):
        coordinator("4.2", group_share_max_size=1001)
    with pytest.raises(ConfigError, match=r"group.share.delivery.count.limit"):
        coordinator("4.2", group_share_delivery_count_limit=1)
    with pytest.raises(ConfigError, match="group.share.heartbeat.interval.ms must be less than "
                                          "group.share.session.timeout.ms"):
        coordinator("4.2", group_share_heartbeat_interval_ms=15000, group_share_session_timeout_ms=15000,
                    group_share_min_session_timeout_ms=15000)
    with pytest.raises(ConfigError, match="group.share.record.lock.duration.ms must be greater than or equal to "
                                          "group.share.min.record.lock.duration.ms"):
        coordinator("4.2", group_share_record_lock_duration_ms=10000)
    with pytest.raises(ConfigError, match="share_state_init_delay_ms must be an integer >= 0"):
        coordinator("4.2", share_state_init_delay_ms=-1)


def test_group_configs_validation():
    """`GroupConfig.validate` (v8.2.0): bounds from the broker, InvalidConfigurationException
    wording, None deletes; the consumer groups' two configs go through the same call."""
    coord = coordinator("4.2", {"foo": 1})
    with pytest.raises(ConfigError, match="^share.record.lock.duration.ms must be greater than or equal to "
                                          "group.share.min.record.lock.duration.ms$"):
        coord.set_group_config("g", {"share.record.lock.duration.ms": 10000})
    with pytest.raises(ConfigError, match="^share.session.timeout.ms must be less than or equal to "
                                          "group.share.max.session.timeout.ms$"):
        coord.set_group_config("g", {"share.session.timeout.ms": 60001})
    with pytest.raises(ConfigError, match="did you mean 'share.session.timeout.ms'"):
        coord.set_group_config("g", {"share.sesion.timeout.ms": 50000})
    with pytest.raises(ConfigError, match="share.auto.offset.reset"):
        coord.set_group_config("g", {"share.auto.offset.reset": "newest"})
    coord.set_group_config("g", {"share.auto.offset.reset": "earliest", "consumer.heartbeat.interval.ms": 6000})
    assert coord.group_config("g") == {"share.auto.offset.reset": "earliest", "consumer.heartbeat.interval.ms": 6000}
    coord.set_group_config("g", {"consumer.heartbeat.interval.ms": None})
    assert coord.group_config("g") == {"share.auto.offset.reset": "earliest"}
    with pytest.raises(ConfigError, match="Unknown group config 'share.isolation.level'"):
        coordinator("4.0").set_group_config("g", {"share.isolation.level": "read_committed"})


def test_consumer_group_dynamic_configs():
    """GMMT.testConsumerGroupDynamicConfigs (v8.2.0): consumer.session.timeout.ms and
    consumer.heartbeat.interval.ms set on the group are read at the member's next heartbeat."""
    coord = coordinator("4.2", {"foo": 6})
    r = coord.consumer_group_heartbeat("fooup", member_id=M1, member_epoch=0, rebalance_timeout_ms=5000,
                                       subscribed_topic_names=["foo"], owned_partitions={})
    assert r.heartbeat_interval_ms == 5000
    coord.set_group_config("fooup", {"consumer.session.timeout.ms": 50000, "consumer.heartbeat.interval.ms": 10000})
    r = coord.consumer_group_heartbeat("fooup", member_id=M1, member_epoch=r.member_epoch)
    assert r.heartbeat_interval_ms == 10000
    coord.sim.advance(49999)
    assert coord.member_ids("fooup") == [M1]
    coord.sim.advance(1)
    assert coord.member_ids("fooup") == []


def test_share_partition_start_offset_from_auto_offset_reset():
    """`share_partition`: SPSO = SPEO = the log end offset (latest, the default) or the log start
    offset (earliest); unknown topic or partition: KeyError."""
    coord = coordinator("4.2", {"foo": 2})
    assert coord.share_partition("g", "foo", 0, log_start_offset=5, log_end_offset=40).start_offset == 40
    coord.set_group_config("h", {"share.auto.offset.reset": "earliest"})
    sp = coord.share_partition("h", "foo", 1, log_start_offset=5, log_end_offset=40)
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (5, 5, 5)
    with pytest.raises(KeyError):
        coord.share_partition("g", "foo", 2)
    with pytest.raises(KeyError):
        coord.share_partition("g", "bar", 0)


def test_load_share_group_refuses_bad_input():
    coord = coordinator("4.2", {"foo": 1})
    with pytest.raises(ConfigError, match="cannot exceed"):
        coord.load_share_group("g", group_epoch=3, target_assignment_epoch=4)
    with pytest.raises(ConfigError, match="Unknown share group member fields"):
        coord.load_share_group("g", group_epoch=3, members={"m": {"epoch": 3}})


def test_init_delay_completes_initialization():
    """`share_state_init_delay_ms`: the share coordinator answers after that delay, and the next
    heartbeat assigns."""
    coord = coordinator("4.2", {"foo": 2}, share_state_init_delay_ms=10)
    assert hb(coord, epoch=0, topics=["foo"]).assignment == {}
    coord.sim.advance(9)
    assert hb(coord, epoch=1).member_epoch == 1
    coord.sim.advance(1)
    assert hb(coord, epoch=1).assignment == {"foo": [0, 1]}


def test_where_the_broker_serves_share_groups():
    """`KafkaApis.isShareGroupProtocolEnabled` at v8.0.0 (new coordinator and
    `ShareGroupConfig.isShareGroupEnabled`: group.share.enable or share among the protocols),
    v8.1.0/v8.2.0 (group.share.enable or share.version >= 1) and v8.3.0 (share.version only)."""
    from kafkasim.core.config import share_groups_refusal
    assert "Kafka 4.0 or later" in share_groups_refusal("3.9")
    assert "group.share.enable=true" in share_groups_refusal("4.0")
    assert share_groups_refusal("4.0", {"group.share.enable": True}) is None
    assert share_groups_refusal("4.0", {"group.coordinator.rebalance.protocols": ["classic", "consumer", "share"]}) \
        is None
    assert "share.version=1" in share_groups_refusal("4.1")
    assert share_groups_refusal("4.1", share_version=1) is None
    assert share_groups_refusal("4.1", {"group.share.enable": True}) is None
    assert share_groups_refusal("4.2") is None
    assert "share.version=1" in share_groups_refusal("4.2", share_version=0)
    assert share_groups_refusal("4.2", {"group.share.enable": True}, share_version=0) is None
    assert share_groups_refusal("4.3") is None
    with pytest.raises(ConfigError, match="does not exist in Kafka 4.3"):
        share_groups_refusal("4.3", {"group.share.enable": True})


def test_classic_requests_on_a_share_group_42():
    """GMMT.testClassicGroupJoinOnShareGroup (INCONSISTENT_GROUP_PROTOCOL), testClassicGroupSyncOnShareGroup
    and testClassicGroupLeaveOnShareGroup (UNKNOWN_MEMBER_ID), v8.2.0; a classic Heartbeat gets
    UNKNOWN_MEMBER_ID too (`classicGroupHeartbeat`). The share group is left as it was."""
    coord = coordinator("4.2", {"foo": 1})
    coord.load_share_group("group-foo", group_epoch=1, members={
        M1: {"member_epoch": 1, "previous_member_epoch": 0, "subscribed_topic_names": ["foo"]}})
    join = coord.join_group("group-foo", member_id="", require_known_member_id=False)
    assert (join.done, join.error, join.error.code) == (True, Errors.INCONSISTENT_GROUP_PROTOCOL, 23)
    sync = coord.sync_group("group-foo", M1, 1)
    assert (sync.done, sync.error) == (True, Errors.UNKNOWN_MEMBER_ID)
    assert coord.heartbeat("group-foo", M1, 1).error is Errors.UNKNOWN_MEMBER_ID
    assert coord.leave_group("group-foo", [M1]).error is Errors.UNKNOWN_MEMBER_ID
    assert (coord.group_type("group-foo"), coord.member_ids("group-foo"), coord.group_epoch("group-foo")) == \
        ("share", [M1], 1)


def test_groups_start_at_epoch_one_from_43():
    """KAFKA-20268 (v8.3.0, `ModernGroup`'s constructor sets the group epoch to 1): a new share
    group's first heartbeat answers epoch 2, and the heartbeat after initialization 3. The second
    target waits for 4.3's default group.share.assignment.interval.ms (1000 ms, KIP-1263): at 999 ms
    the heartbeat bumps the group epoch to 3 but the member stays at the target's epoch 2."""
    for version in ("4.3", "4.4"):
        coord = coordinator(version, {"foo": 2})
        r = hb(coord, epoch=0, topics=["foo"])
        assert (r.member_epoch, r.assignment) == (2, {})
        coord.sim.advance(999)
        coord.complete_share_init("fooup")
        r = hb(coord, epoch=2)
        assert (r.member_epoch, r.assignment, coord.group_epoch("fooup")) == (2, None, 3)
        coord.sim.advance(1)
        r = hb(coord, epoch=2)
        assert (r.member_epoch, r.assignment) == (3, {"foo": [0, 1]})


def _messages(coord) -> list[str]:
    return [line.split("] ", 2)[-1].rsplit(" (org.apache", 1)[0] for line in coord.broker_log]


def test_broker_log_lines_42_and_40():
    """`GroupMetadataManager`'s share-group INFO lines (v8.2.0, v8.0.0): join, hash change (4.1+),
    epoch bump (4.1+ with the metadata hash), new target (4.0 with the assignment appended), the
    member's new assignment state, leave; the leave's hash change is logged, its bump is not."""
    from kafkasim.coordinator.broker_log import metadata_hash
    coord = coordinator("4.2", {"foo": 2})
    hb(coord, group="g", member="m1", epoch=0, topics=["foo"])
    hb(coord, group="g", member="m1", epoch=-1)
    h = metadata_hash({"foo": 2})
    assert _messages(coord) == [
        "[GroupId g] Member m1 joins the share group using the share protocol.",
        f"[GroupId g] Computed new metadata hash: {h}.",
        f"[GroupId g] Bumped group epoch to 1 with metadata hash {h}.",
        "[GroupId g] Computed a new target assignment for epoch 1 with "
        "'org.apache.kafka.coordinator.group.assignor.SimpleAssignor@<hash>' assignor in 0ms.",
        "[GroupId g] Member m1 new assignment state: epoch=1, previousEpoch=0, state=STABLE, assignedPartitions=[].",
        "[GroupId g] Member m1 left the share group.",
        "[GroupId g] Computed new metadata hash: 0.",
    ]
    coord = coordinator("4.0", {"foo": 2})
    hb(coord, group="g", member="m1", epoch=0, topics=["foo"])
    assert _messages(coord)[1:] == [
        "[GroupId g] Bumped group epoch to 1.",
        "[GroupId g] Computed a new target assignment for epoch 1 with "
        "'org.apache.kafka.coordinator.group.assignor.SimpleAssignor@<hash>' assignor in 0ms: {'m1': {'foo': [0, 1]}}.",
        "[GroupId g] Member m1 new assignment state: epoch=1, previousEpoch=0, state=STABLE, "
        "assignedPartitions=[foo-0, foo-1].",
    ]


def test_event_rows_of_a_join_and_a_leave():
    """The rows a join and a leave write, request row first (kinds of the consumer manager's schema)."""
    coord = coordinator("4.0", {"foo": 2})
    hb(coord, group="g", member="m1", epoch=0, topics=["foo"])
    hb(coord, group="g", member="m1", epoch=-1)
    assert [(r[3], r[4], r[5], r[9], r[11]) for r in coord.sim.events.rows] == [
        ("m1", "ShareGroupHeartbeat", 1, None, "Stable"),
        ("m1", "MemberJoined", 0, None, "Stable"),
        (None, "GroupEpochBumped", 1, "new_group", "Stable"),
        (None, "TargetAssignmentComputed", 1, "simple", "Stable"),
        ("m1", "MemberEpochBumped", 1, "STABLE", "Stable"),
        (None, "StateChanged", 1, "Empty", "Stable"),
        ("m1", "ShareGroupHeartbeat", 2, None, "Empty"),
        ("m1", "MemberRemoved", 1, "leave_group", "Empty"),
        (None, "GroupEpochBumped", 2, "member_removed", "Empty"),
        (None, "StateChanged", 2, "Stable", "Empty"),
    ]


@pytest.mark.parametrize("version, retry_ms", [("4.1", 10000), ("4.2", 30000)])
def test_initialization_retried_after_the_interval(version, retry_ms):
    """`subscribedTopicsChangeMap`: an initializing entry younger than the retry interval is not
    sent again; an older one is (4.1.1: 2 x offsets.commit.timeout.ms = 10000, hard-coded; 4.2.0:
    max(group.share.initialize.retry.interval.ms = 30000, offsets.commit.timeout.ms))."""
    coord = coordinator(version, {"foo": 2})
    hb(coord, epoch=0, topics=["foo"])
    assert coord.share_groups.stats["share_state_inits"] == 1
    coord.sim.advance(retry_ms - 1)
    hb(coord, epoch=1)
    assert coord.share_groups.stats["share_state_inits"] == 1
    coord.sim.advance(1)
    hb(coord, epoch=1)
    assert coord.share_groups.stats["share_state_inits"] == 2
    assert coord.share_groups.initializing_partitions("fooup") == {"foo": [0, 1]}


def test_share_rules_by_version_name_the_assignor_generation_and_the_41_log():
    """The simple assignor's generation per release (SimpleAssignor.java 4.0 / 4.1,
    Simple*AssignmentBuilder 4.2+), and the 4.1+ epoch-bump line with the metadata hash."""
    from kafkasim.coordinator.modern.share.rules import ShareRules
    got = {v: (ShareRules.for_version(v).version, ShareRules.for_version(v).assignor,
               ShareRules.for_version(v).new_metadata_log) for v in ("4.0", "4.1", "4.2.0", "4.4")}
    assert got == {"4.0": ((4, 0), "all", False), "4.1": ((4, 1), "hash", True),
                   "4.2.0": ((4, 2), "sharing", True), "4.4": ((4, 4), "sharing", True)}
    assert ShareRules.for_version("3.9").assignor is None


def test_share_partition_refuses_by_duration_reset_it_cannot_model():
    """`share.auto.offset.reset=by_duration:<ISO-8601>` (KIP-932) starts at the first record newer
    than now minus the duration, which needs record timestamps kafkasim does not keep: refused
    with the config named, while earliest and latest set the start offset."""
    coord = coordinator(topics={"foo": 1})
    coord.set_group_config("g", {"share.auto.offset.reset": "by_duration:PT1H"})
    with pytest.raises(ConfigError, match=r"share\.auto\.offset\.reset=by_duration:PT1H needs record timestamps"):
        coord.share_partition("g", "foo", 0, log_start_offset=3, log_end_offset=10)
    coord.set_group_config("g", {"share.auto.offset.reset": "earliest"})
    assert coord.share_partition("g", "foo", 0, log_start_offset=3, log_end_offset=10).start_offset == 3


def test_load_share_group_accepts_target_epoch_zero_and_refuses_a_taken_id():
    """GMMT's `ShareGroupBuilder` replays a target assignment epoch of 0 (no target computed yet);
    a group id already used by a group of another type cannot be a share group."""
    coord = coordinator(topics={"foo": 1})
    coord.load_share_group("s", group_epoch=3, target_assignment_epoch=0)
    assert (coord.group_epoch("s"), coord.target_assignment_epoch("s")) == (3, 0)
    coord.join_group("classic", member_id="", require_known_member_id=False)
    with pytest.raises(ConfigError, match="group 'classic' already exists"):
        coord.load_share_group("classic", group_epoch=1)


def test_target_assignment_row_counts_the_members_whose_target_changed():
    """4.0's SimpleAssignor gives every member every partition of its topics: m2 joining changes
    only its own target (m1 keeps foo-0 and foo-1), so each computation changes one member."""
    coord = coordinator("4.0", {"foo": 2})
    hb(coord, group="g", member="m1", epoch=0, topics=["foo"])
    hb(coord, group="g", member="m2", epoch=0, topics=["foo"])
    assert [r[10] for r in coord.sim.events.rows if r[4] == "TargetAssignmentComputed"] == [1, 1]
    assert coord.target_assignment("g") == {"m1": {"foo": [0, 1]}, "m2": {"foo": [0, 1]}}


# == pinned by mutation testing (issue 29) ======================================================
def _stale_fooup(version):
    """GMMT.testSubscriptionMetadataRefreshedAfterGroupIsLoaded's group (v8.2.0), as a share group:
    stored at epoch 10 with foo at 3 partitions (M1 holds 0-2), while foo now has 6."""
    coord = coordinator(version, {"foo": 6})
    coord.load_share_group("fooup", group_epoch=10, target_assignment_epoch=10,
                           members={M1: {"member_epoch": 10, "previous_member_epoch": 10,
                                         "subscribed_topic_names": ["foo", "bar"], "assigned": {"foo": [0, 1, 2]}}},
                           target_assignment={M1: {"foo": [0, 1, 2]}}, subscription_metadata={"foo": 3})
    return coord


def test_a_loaded_groups_metadata_is_refreshed_at_its_first_heartbeat():
    """GMMT.testSubscriptionMetadataRefreshedAfterGroupIsLoaded (v8.2.0; ModernGroup, the same for a
    share group): a group starts with `DeadlineAndEpoch.EMPTY` (deadline 0), so `hasMetadataExpired`
    is true until its first heartbeat, which recomputes the metadata though no subscription
    changed; the next deadline is Integer.MAX_VALUE away. 4.0: the epoch bumps to 11 and M1 gets
    0-5 (every partition to every member). 4.2: the new metadata hash bumps the epoch; M1 keeps
    0-2 until 3-5 are initialized."""
    from kafkasim.coordinator.broker_log import metadata_hash
    coord = _stale_fooup("4.0")
    r = hb(coord, epoch=10)
    assert (r.member_epoch, r.assignment, coord.group_epoch("fooup")) == (11, {"foo": [0, 1, 2, 3, 4, 5]}, 11)
    r = hb(coord, epoch=11)
    assert (r.member_epoch, r.assignment, coord.group_epoch("fooup")) == (11, None, 11)
    coord = _stale_fooup("4.2")
    r = hb(coord, epoch=10)
    assert (r.member_epoch, coord.group_epoch("fooup"), coord.assigned_partitions("fooup", M1)) == \
        (11, 11, {"foo": [0, 1, 2]})
    assert _messages(coord)[1] == f"[GroupId fooup] Computed new metadata hash: {metadata_hash({'foo': 6})}."


def test_a_new_groups_metadata_hash_starts_at_zero():
    """ModernGroup's `metadataHash` is a TimelineLong, 0 in a new group, and the hash of no topic is
    0 (`computeGroupHash` of an empty map): a first member subscribing only to a topic that does
    not exist bumps the epoch (its subscription changed) without "Computed new metadata hash"."""
    coord = coordinator("4.2", {"foo": 2})
    hb(coord, group="g", member="m1", epoch=0, topics=["bar"])
    assert _messages(coord)[:2] == [
        "[GroupId g] Member m1 joins the share group using the share protocol.",
        "[GroupId g] Bumped group epoch to 1 with metadata hash 0."]


# == pinned by mutation testing (issue 29) =======================================================
def test_replay_restores_a_share_members_fields_and_refuses_what_a_record_cannot_hold():
    """`ShareGroupMember.Builder.updateWith` (v8.2.0): epochs, rack, subscription and assignment come
    back as stored; a share member's state is always STABLE (`MemberState`: no revocation in a
    share group), and the subscribed topics are a list."""
    coord = coordinator("4.2", {"foo": 3})
    coord.load_share_group("g", group_epoch=5, members={
        M1: {"member_epoch": 5, "previous_member_epoch": 4, "state": "STABLE", "rack_id": "rack-a",
             "subscribed_topic_names": ["foo"], "assigned": {"foo": [0, 2]}}})
    m = coord.share_groups.groups["g"].members[M1]
    assert (m.member_epoch, m.previous_member_epoch, m.state, m.rack_id, m.subscribed_topic_names, m.assigned) == \
        (5, 4, "STABLE", "rack-a", frozenset({"foo"}), {"foo": frozenset({0, 2})})
    with pytest.raises(ConfigError) as e:
        coord.load_share_group("h", group_epoch=5, members={M2: {"state": "UNREVOKED_PARTITIONS"}})
    assert str(e.value) == (f"Invalid member state 'UNREVOKED_PARTITIONS' for '{M2}'; a share group member is "
                            "always STABLE")
    with pytest.raises(ConfigError) as e:
        coord.load_share_group("h", group_epoch=5, members={M2: {"subscribed_topic_names": "foo"}})
    assert str(e.value) == f"subscribed_topic_names of '{M2}' must be a list of topic names, got 'foo'"


def test_load_share_group_names_each_epoch_it_refuses_and_needs_4_0():
    coord = coordinator("4.2", {"foo": 1})
    with pytest.raises(ConfigError) as e:
        coord.load_share_group("g", group_epoch=-1)
    assert str(e.value) == "group_epoch must be an integer >= 0, got -1"
    with pytest.raises(ConfigError) as e:
        coord.load_share_group("g", group_epoch=3, target_assignment_epoch=-1)
    assert str(e.value) == "target_assignment_epoch must be an integer >= 0, got -1"
    with pytest.raises(ConfigError) as e:
        coordinator("3.9", {"foo": 1}).load_share_group("g", group_epoch=1)
    assert str(e.value) == "share groups (KIP-932) need kafka_version 4.0 or later, got '3.9'"


def test_a_leave_on_a_consumer_group_is_group_id_not_found_and_changes_nothing():
    """`shareGroupLeave` looks the group up with `shareGroup(groupId)`: a consumer group of that id
    is GroupIdNotFoundException "Group G is not a share group." (69), its member untouched."""
    coord = coordinator("4.2", {"foo": 3})
    coord.load_consumer_group("c", group_epoch=10, members={
        M1: {"member_epoch": 10, "subscribed_topic_names": ["foo"], "assigned": {"foo": [0]}}},
        target_assignment={M1: {"foo": [0]}})
    r = hb(coord, group="c", member=M1, epoch=-1)
    assert (r.error, r.error.code, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, 69, "Group c is not a share group.")
    assert (coord.member_ids("c"), coord.group_epoch("c")) == ([M1], 10)


def test_a_session_expiry_is_one_timer_event_of_the_coordinator():
    """`stats` counts the coordinator's work: a member's session timer firing once is one timer event."""
    coord = coordinator("4.2", {"foo": 1})
    hb(coord, group="g", topics=["foo"])
    coord.sim.advance(45_000)
    assert coord.member_ids("g") == [] and coord.share_groups.stats["timer_events"] == 1


def test_each_session_expiry_adds_one_timer_event():
    """Two members joining 1 s apart expire 1 s apart: each expiry is one more timer event, none resets the count."""
    coord = coordinator("4.2", {"foo": 2})
    hb(coord, group="g", topics=["foo"])
    coord.sim.advance(1000)
    hb(coord, group="g", member=M2, topics=["foo"])
    coord.sim.advance(44_000)
    assert (coord.member_ids("g"), coord.share_groups.stats["timer_events"]) == ([M2], 1)
    coord.sim.advance(1000)
    assert (coord.member_ids("g"), coord.share_groups.stats["timer_events"]) == ([], 2)


def _target_rows(coord) -> list[float]:
    return [r[10] for r in coord.sim.events.rows if r[4] == "TargetAssignmentComputed"]


def test_a_member_with_no_target_before_counts_as_changed_even_when_its_new_target_is_empty():
    """`TargetAssignmentBuilder.build` writes a target record for each member whose new assignment (EMPTY
    when the assignor gives it none, `newMemberAssignment`) differs from its old one, which is null for
    a member that had none: 4.2's first target for M1 (nothing initialized yet) is empty and still a
    change; 4.0's for a member subscribed only to a missing topic too, and that empty target stays."""
    coord = coordinator("4.2", {"foo": 2})
    hb(coord, epoch=0, topics=["foo"])
    coord.complete_share_init("fooup")
    hb(coord, epoch=1)
    assert _target_rows(coord) == [1, 1] and coord.share_groups.stats["assignments"] == 2
    old = coordinator("4.0", {"foo": 2})
    hb(old, member=M1, epoch=0, topics=["nope"])
    hb(old, member=M2, epoch=0, topics=["foo"])
    assert _target_rows(old) == [1, 1] and old.share_groups.stats["assignments"] == 2
    assert old.target_assignment("fooup") == {M1: {}, M2: {"foo": [0, 1]}}


def test_initialized_partitions_are_assigned_past_a_topic_no_longer_subscribed():
    """`initializedAssignmentPending` skips an initialized topic the group no longer subscribes to and
    goes on: foo, initialized after M1 moved from bar to foo, bumps the epoch and is assigned."""
    coord = coordinator("4.2", {"bar": 2, "foo": 2})
    hb(coord, epoch=0, topics=["bar"])
    coord.complete_share_init("fooup")
    assert hb(coord, epoch=1, topics=["foo"]).member_epoch == 2  # bar's partitions go, foo is not initialized
    coord.complete_share_init("fooup")
    assert coord.share_groups.initialized_partitions("fooup") == {"bar": [0, 1], "foo": [0, 1]}
    r = hb(coord, epoch=2)
    assert (r.member_epoch, r.assignment) == (3, {"foo": [0, 1]})


def test_a_subscribed_topic_missing_from_the_cluster_is_not_initialized_and_the_others_are():
    """`subscribedTopicsChangeMap`: `metadataImage.topicMetadata(name).ifPresent(...)`, topic by topic."""
    coord = coordinator("4.2", {"foo": 2})
    hb(coord, epoch=0, topics=["aaa", "foo"])
    assert coord.share_groups.initializing_partitions("fooup") == {"foo": [0, 1]}


def test_an_initializing_entry_is_fresh_for_the_retry_interval_from_its_own_time():
    """`subscribedTopicsChangeMap` keeps an initializing topic while `now - its timestamp < delta`
    (4.2: 30000 ms): joined at 100 s, M1's next heartbeat 29.999 s later sends nothing again."""
    coord = coordinator("4.2", {"foo": 2})
    coord.sim.advance(100_000)
    hb(coord, epoch=0, topics=["foo"])
    coord.sim.advance(29_999)
    hb(coord, epoch=1)
    assert coord.share_groups.stats["share_state_inits"] == 1


def test_partitions_added_while_initializing_join_the_pending_entry_and_stay_until_answered():
    """`addInitializingTopicsRecords` merges the new partitions into the initializing entry
    (`combineInitMaps`), and `initializeShareGroupState` removes only the partitions it was answered
    for: foo grows from 2 to 3 while 0-1 are initializing (the share coordinator answers after
    100 ms); the answer for 0-1 leaves 2 initializing, so no heartbeat asks again before 2's answer."""
    coord = coordinator("4.2", {"foo": 2}, share_state_init_delay_ms=100)
    groups = coord.share_groups
    hb(coord, epoch=0, topics=["foo"])
    coord.sim.advance(10)
    coord.create_partitions("foo", 3)
    hb(coord, epoch=1)
    assert groups.initializing_partitions("fooup") == {"foo": [0, 1, 2]} and groups.stats["share_state_inits"] == 2
    coord.sim.advance(40)
    hb(coord, epoch=2)  # 0-1 and 2 are still initializing: nothing is sent again
    assert groups.stats["share_state_inits"] == 2
    coord.sim.advance(50)  # t=100: the answer for 0-1
    assert (groups.initialized_partitions("fooup"), groups.initializing_partitions("fooup")) == \
        ({"foo": [0, 1]}, {"foo": [2]})
    hb(coord, epoch=2)
    coord.sim.advance(10)  # t=110: the answer for 2
    assert (groups.initialized_partitions("fooup"), groups.initializing_partitions("fooup"),
            groups.stats["share_state_inits"]) == ({"foo": [0, 1, 2]}, {}, 2)


def test_a_partition_added_to_an_initialized_topic_is_requested_once():
    """`subscribedTopicsChangeMap` counts initialized and freshly initializing partitions together:
    foo initialized at 0-1 and grown to 3 asks for 2 once; the next heartbeat finds 0-2 covered."""
    coord = coordinator("4.2", {"foo": 2})
    groups = coord.share_groups
    hb(coord, epoch=0, topics=["foo"])
    coord.complete_share_init("fooup")
    hb(coord, epoch=1)
    coord.create_partitions("foo", 3)
    hb(coord, epoch=2)
    assert (groups.initializing_partitions("fooup"), groups.stats["share_state_inits"]) == ({"foo": [2]}, 2)
    hb(coord, epoch=3)
    assert (groups.initializing_partitions("fooup"), groups.stats["share_state_inits"]) == ({"foo": [2]}, 2)


def test_a_subscription_change_drops_the_unsubscribed_partitions_before_the_next_target():
    """4.3 (KIP-1263): a subscription change bumps the epoch, but within `group.share.assignment.interval.ms`
    (1000) no target is computed; `maybeReconcile` still runs (`hasSubscriptionChanged`) and
    `ShareGroupAssignmentBuilder` filters the current target to the subscribed topics at the same
    member epoch: M1 keeps foo and loses bar at once."""
    coord = coordinator("4.3", {"bar": 2, "foo": 2})
    hb(coord, epoch=0, topics=["foo", "bar"])  # epoch 2 (KAFKA-20268: groups start at 1)
    coord.complete_share_init("fooup")
    coord.sim.advance(1000)
    r = hb(coord, epoch=2)
    assert (r.member_epoch, r.assignment) == (3, {"bar": [0, 1], "foo": [0, 1]})
    coord.sim.advance(500)
    r = hb(coord, epoch=3, topics=["foo"])
    assert (r.member_epoch, r.assignment, coord.group_epoch("fooup"), coord.target_assignment_epoch("fooup")) == \
        (3, {"foo": [0, 1]}, 4, 3)


def test_share_partition_names_what_it_refuses():
    """`share_partition`'s refusals name the topic, the partition and the offsets given; a group reset
    by duration is refused (no record timestamps)."""
    coord = coordinator("4.2", {"foo": 2})
    with pytest.raises(KeyError) as e:
        coord.share_partition("g", "bar", 0)
    assert e.value.args == ("unknown topic 'bar'",)
    with pytest.raises(KeyError) as e:
        coord.share_partition("g", "foo", 2)
    assert e.value.args == ("topic 'foo' has no partition 2 (it has 2)",)
    with pytest.raises(ConfigError) as e:
        coord.share_partition("g", "foo", 0, log_start_offset=-1)
    assert str(e.value) == "log_start_offset must be an integer >= 0, got -1"
    with pytest.raises(ConfigError) as e:
        coord.share_partition("g", "foo", 0, log_start_offset=5, log_end_offset=3)
    assert str(e.value) == "log_end_offset must be an integer >= 5, got 3"
    coord.set_group_config("g", {"share.auto.offset.reset": "by_duration:PT1H"})
    with pytest.raises(ConfigError) as e:
        coord.share_partition("g", "foo", 0)
    assert str(e.value) == ("share.auto.offset.reset=by_duration:PT1H needs record timestamps, which kafkasim's "
                            "share partitions do not keep: use earliest or latest")


# == pinned by mutation testing (issue 29): the ShareGroupHeartbeat request ========================
def test_a_member_id_of_36_characters_is_valid_and_37_is_not_42():
    """`KafkaApis.isMemberIdValid` (v8.2.0): `memberId.nonEmpty && memberId.length <= 36`, the length
    of a human-readable UUID; 37 is "Invalid member id in the request."."""
    uuid36 = "123e4567-e89b-12d3-a456-426614174000"
    coord = coordinator("4.2", {"foo": 1})
    r = hb(coord, member=uuid36, topics=["foo"])
    assert (r.error, r.member_id, r.member_epoch) == (Errors.NONE, uuid36, 1)
    r = hb(coord, member=uuid36 + "0", topics=["foo"])
    assert (r.error, r.error_message) == (Errors.INVALID_REQUEST, "Invalid member id in the request.")


def test_the_requests_defaults_are_an_empty_member_id_and_epoch_zero_a_join():
    """ShareGroupHeartbeatRequest.json (v8.0.0, v8.2.0): MemberId and MemberEpoch have no default, so
    a string is "" and an int32 0. A request naming only the group and topics is a join: 4.0
    generates the member id (22 characters, `Uuid.toString()`); 4.2 refuses the empty id."""
    coord = coordinator("4.0", {"foo": 1})
    r = coord.share_group_heartbeat("g", subscribed_topic_names=["foo"])
    assert (r.error, len(r.member_id), r.member_epoch, r.assignment) == (Errors.NONE, 22, 1, {"foo": [0]})
    assert coord.member_ids("g") == [r.member_id]
    r = coordinator("4.2", {"foo": 1}).share_group_heartbeat("g", subscribed_topic_names=["foo"])
    assert (r.error, r.error_message) == (Errors.INVALID_REQUEST, "Invalid member id in the request.")


def test_every_share_group_heartbeat_is_one_request_whatever_its_answer():
    """`stats` counts the coordinator's work: a join, a refused heartbeat and a leave are three requests."""
    coord = coordinator("4.2", {"foo": 1})
    hb(coord, topics=["foo"])
    hb(coord, epoch=7)  # FENCED_MEMBER_EPOCH
    hb(coord, epoch=-1)
    assert coord.share_groups.stats["requests"] == 3


def test_subscribed_topic_names_given_as_one_string_is_refused_naming_it():
    """A str is an iterable of one-letter topic names: refused as a TypeError naming the argument."""
    with pytest.raises(TypeError) as e:
        hb(coordinator("4.2", {"foo": 1}), topics="foo")
    assert str(e.value) == "subscribed_topic_names must be a list of topic names, got the string 'foo'"


def test_a_share_heartbeats_rows_are_the_coordinators_and_name_the_member():
    """The request row (the consumer manager's schema: source "coordinator", generation = group epoch,
    error name, value = the epoch sent, group state). It names the member the response names (4.0:
    the generated id) or, on an error, the request's; a steady heartbeat at the target epoch writes
    only that row (`if (groupEpoch > group.assignmentEpoch())`: no new target)."""
    coord = coordinator("4.0", {"foo": 1})
    r = coord.share_group_heartbeat("g", member_id="", member_epoch=0, subscribed_topic_names=["foo"])
    rows = coord.sim.events.rows
    assert rows[0] == (0, "coordinator", "g", r.member_id, "ShareGroupHeartbeat", 1, None, None, "NONE", None, 0.0,
                       "Stable")
    n = len(rows)
    coord.sim.advance(5)
    assert hb(coord, group="g", member=r.member_id, epoch=1).error is Errors.NONE
    assert hb(coord, group="g", member="m9", epoch=1).error is Errors.UNKNOWN_MEMBER_ID
    assert rows[n:] == [
        (5, "coordinator", "g", r.member_id, "ShareGroupHeartbeat", 1, None, None, "NONE", None, 1.0, "Stable"),
        (5, "coordinator", "g", "m9", "ShareGroupHeartbeat", 1, None, None, "UNKNOWN_MEMBER_ID", None, 1.0, "Stable")]
    assert coord.share_groups.stats["assignments"] == 1


def test_a_steady_share_heartbeat_writes_a_row_only_when_it_fails_unless_recorded():
    """`record_heartbeats=False` (as the consumer manager): joins and leaves (epoch <= 0) and failed
    heartbeats are recorded, a successful one at epoch >= 1 is not."""
    coord = coordinator("4.0", {"foo": 1}, record_heartbeats=False)
    hb(coord, group="g", member="m1", topics=["foo"])
    rows = coord.sim.events.rows
    assert rows[0][3:5] == ("m1", "ShareGroupHeartbeat")
    n = len(rows)
    assert (hb(coord, group="g", member="m1", epoch=1).error, hb(coord, group="g", member="m1", epoch=7).error) == \
        (Errors.NONE, Errors.FENCED_MEMBER_EPOCH)
    assert rows[n:] == [(0, "coordinator", "g", "m1", "ShareGroupHeartbeat", 1, None, None, "FENCED_MEMBER_EPOCH",
                         None, 7.0, "Stable")]
    hb(coord, group="g", member="m1", epoch=-1)
    assert [r[4] for r in rows[n + 1:]][:2] == ["ShareGroupHeartbeat", "MemberRemoved"]


def test_a_heartbeat_that_raises_leaves_no_row():
    """Nothing is stored when the request fails: an exception from inside the handler (here the
    front's member-id source) propagates and takes the request's placeholder row with it."""
    def broken() -> str:
        raise RuntimeError("no id")
    coord = coordinator("4.0", {"foo": 1})
    coord.share_groups.new_member_id = broken
    with pytest.raises(RuntimeError, match="no id"):
        coord.share_group_heartbeat("g", member_id="", member_epoch=0, subscribed_topic_names=["foo"])
    assert coord.sim.events.rows == [] and not coord.share_groups.has_group("g")


def test_a_rack_id_is_kept_until_another_is_sent_and_bumps_nothing():
    """`ShareGroupMember.Builder.maybeUpdateRackId(Optional.ofNullable(rackId))` (v8.2.0): a null
    RackId leaves the stored one; a new one replaces it. `hasMemberSubscriptionChanged` bumps the
    group epoch only for the subscribed topics, so a rack change does not."""
    coord = coordinator("4.2", {"foo": 1})
    hb(coord, topics=["foo"], rack="rack-a")
    member = lambda: coord.share_groups.groups["fooup"].members[M1]  # noqa: E731
    assert member().rack_id == "rack-a"
    hb(coord, epoch=1)
    assert member().rack_id == "rack-a"
    r = hb(coord, epoch=1, rack="rack-b")
    assert (r.error, member().rack_id, coord.group_epoch("fooup")) == (Errors.NONE, "rack-b", 1)


def test_each_group_epoch_bump_names_its_cause():
    """The GroupEpochBumped row's reason: the group's creation, a member joining, a member changing
    its subscription, the subscribed topics' metadata changing (4.0: every bump computes a target);
    4.1+: initialized partitions not yet in the target (`initializedAssignmentPending`)."""
    coord = coordinator("4.0", {"foo": 1, "bar": 1})
    hb(coord, group="g", member="m1", topics=["foo"])
    hb(coord, group="g", member="m2", topics=["foo", "bar"])  # bar's metadata is new too: still a join
    hb(coord, group="g", member="m1", epoch=coord.member_epoch("g", "m1"), topics=["foo", "bar"])
    coord.create_partitions("foo", 2)
    hb(coord, group="g", member="m1", epoch=coord.member_epoch("g", "m1"))
    assert [(r[5], r[9]) for r in coord.sim.events.rows if r[4] == "GroupEpochBumped"] == [
        (1, "new_group"), (2, "member_joined"), (3, "subscription_changed"), (4, "metadata_changed")]
    coord = coordinator("4.2", {"foo": 1})
    hb(coord, group="g", member="m1", topics=["foo"])
    coord.complete_share_init("g")
    hb(coord, group="g", member="m1", epoch=1)
    assert [(r[5], r[9]) for r in coord.sim.events.rows if r[4] == "GroupEpochBumped"] == [
        (1, "new_group"), (2, "initialized")]
