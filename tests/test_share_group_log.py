"""Share-group broker-log lines (KIP-932) read back by the log parser, as the consumer groups' are
(tests/test_log_parser.py): the wordings GroupMetadataManager.java writes for a share group, read at
4.0.0 / 4.1.1 / 4.2.0 and at confluentinc/kafka branches 4.3 and 4.4, and the round trip over a
coordinator driven through joins, initialization, a partition increase, a leave, a session expiry
and a restored group, for every version that has share groups.

Which simulated events the log shows is written out by hand from GroupMetadataManager.java (the
level and the method of each line), not from kafkasim's BrokerLog: a join (`shareGroupHeartbeat`,
INFO on every epoch-0 heartbeat), a leave (`shareGroupLeave`), a session expiry (the fence line),
an epoch bump on the heartbeat path (`shareGroupFenceMember` logs none), a new target, a member's
new assignment state (INFO for share groups), a loaded group.
"""

from collections import Counter

import pytest

from kafkasim import GroupCoordinator, Simulation
from kafkasim.analysis.log_parser import parse_lines
from kafkasim.analysis.logs.broker_share import TEMPLATES as SHARE_GROUP_TEMPLATES
from kafkasim.core.events import FIELDS

M1, M2 = "6CsVhOtvTIe8qFdQCMyPsA", "pSl2xQ4ZR5q0hS-wV3B8pw"
SIMPLE = "org.apache.kafka.coordinator.group.assignor.SimpleAssignor@6e1567f1"


@pytest.mark.parametrize("message, expected", [
    (f"[GroupId my-group] Member {M1} joins the share group using the share protocol.",
     [("MemberJoined", M1, None, None, None)]),
    (f"[GroupId my-group] Member {M1} left the share group.", [("MemberRemoved", M1, None, "leave_group", None)]),
    (f"[GroupId my-group] Member {M1} fenced from the group because the member session expired.",
     [("MemberFenced", M1, None, "session_timeout", None), ("MemberRemoved", M1, None, "session_timeout", None)]),
    (f"[GroupId my-group] Member {M1} new assignment state: epoch=3, previousEpoch=1, state=STABLE, "
     f"assignedPartitions=[Zr3bCrzYSBeIwJhH0CkS2A-0, Zr3bCrzYSBeIwJhH0CkS2A-1].",
     [("MemberEpochBumped", M1, None, "STABLE", 3.0)]),
    (f"[GroupId my-group] Member {M1} new assignment state: epoch=1, previousEpoch=0, state=STABLE, "
     f"assignedPartitions=[].", [("MemberEpochBumped", M1, None, "STABLE", 1.0)]),
    (f"[GroupId my-group] Computed a new target assignment for epoch 2 with '{SIMPLE}' assignor in 0ms.",
     [("TargetAssignmentComputed", None, 2, "simple", None)]),
    # 4.0 logs the assignment at INFO too
    (f"[GroupId my-group] Computed a new target assignment for epoch 1 with '{SIMPLE}' assignor in 3ms: "
     f"{{{M1}=MemberAssignment(partitions={{}})}}.", [("TargetAssignmentComputed", None, 1, "simple", None)]),
    ("[GroupId my-group] Bumped group epoch to 2 with metadata hash -4375960416113460734.",
     [("GroupEpochBumped", None, 2, None, 2.0)]),
    ("Loaded share group my-group with 2 members.", [("GroupLoaded", None, None, None, 2.0)]),
])
def test_share_group_lines(message, expected):
    line = f"[2026-11-27 10:00:00,000] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=7] {message} " \
           "(org.apache.kafka.coordinator.group.GroupMetadataManager)"
    result = parse_lines([line])
    assert result.unparsed == []
    got = [(r[4], r[3], r[5], r[9], r[10]) for r in result.rows]
    assert got == expected and all(r[2] == "my-group" for r in result.rows)


def test_a_reassignment_at_the_same_epoch_is_no_epoch_bump():
    """maybeReconcile logs a subscription change at the member's epoch too: one bump per epoch."""
    head = "[2026-11-27 10:00:0{}.000] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=7] "
    tail = " (org.apache.kafka.coordinator.group.GroupMetadataManager)"
    lines = [head.format(0) + f"[GroupId g] Member {M1} new assignment state: epoch=2, previousEpoch=1, state=STABLE, "
             "assignedPartitions=[a-0]." + tail,
             head.format(1) + f"[GroupId g] Member {M1} new assignment state: epoch=2, previousEpoch=1, state=STABLE, "
             "assignedPartitions=[a-0, b-0]." + tail]
    assert [(r[4], r[10]) for r in parse_lines(lines).rows] == [("MemberEpochBumped", 2.0)]



def _share_lines(*messages):
    head = "[2026-11-27 10:00:{:02d}.000] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=7] "
    tail = " (org.apache.kafka.coordinator.group.GroupMetadataManager)"
    return [head.format(i) + message + tail for i, message in enumerate(messages)]


def test_a_members_first_line_at_its_previous_epoch_is_no_epoch_bump():
    """With no earlier line of the member (the log starts after its join), its line's own previousEpoch
    tells a bump: a reassignment at the same epoch (epoch=4, previousEpoch=4) is none, epoch=5 then is one."""
    lines = _share_lines(
        f"[GroupId g] Member {M1} new assignment state: epoch=4, previousEpoch=4, state=STABLE, assignedPartitions=[a-0].",
        f"[GroupId g] Member {M1} new assignment state: epoch=5, previousEpoch=4, state=STABLE, assignedPartitions=[a-0].")
    result = parse_lines(lines)
    assert result.unparsed == [] and [(r[4], r[3], r[10]) for r in result.rows] == [("MemberEpochBumped", M1, 5.0)]


def test_a_member_that_left_starts_afresh_when_it_joins_again():
    """shareGroupLeave removes the member, so the reader's memory of it goes too. A client makes its member
    id once (AbstractMembershipManager, KIP-1082): the same consumer subscribing again after the empty group
    was deleted (kafka-share-groups.sh --delete) joins the new group at epoch 1 again, a bump of its own,
    not a repeat of the one before."""
    joined = f"[GroupId g] Member {M1} new assignment state: epoch=1, previousEpoch=0, state=STABLE, assignedPartitions=[]."
    lines = _share_lines(f"[GroupId g] Member {M1} joins the share group using the share protocol.", joined,
                         f"[GroupId g] Member {M1} left the share group.",
                         f"[GroupId g] Member {M1} joins the share group using the share protocol.", joined)
    assert [(r[0] // 1000 % 60, r[4], r[10]) for r in parse_lines(lines).rows] == [
        (0, "MemberJoined", None), (1, "MemberEpochBumped", 1.0), (2, "MemberRemoved", None),
        (3, "MemberJoined", None), (4, "MemberEpochBumped", 1.0)]

def test_the_share_wordings_are_one_table_in_front_of_the_general_ones():
    assert set(SHARE_GROUP_TEMPLATES) == {"[GroupId"}
    assert sum(map(len, SHARE_GROUP_TEMPLATES.values())) == 4  # and "Loaded share group" in broker.py


#: The fields each logged kind's line carries (besides time, group and kind).
CARRIED = {"MemberJoined": ("member",), "MemberRemoved": ("member", "reason"), "MemberFenced": ("member", "reason"),
           "GroupEpochBumped": ("generation", "value"), "TargetAssignmentComputed": ("generation", "reason"),
           "MemberEpochBumped": ("member", "reason", "value"), "GroupLoaded": ("value",)}


def logged(row) -> bool:
    """Whether Kafka writes an INFO line for the simulated share-group event `row`."""
    kind, reason = row[4], row[9]
    if kind == "GroupEpochBumped":
        return reason != "member_removed"  # shareGroupFenceMember writes the epoch without a line
    return kind in CARRIED


def carried(row) -> tuple:
    d = dict(zip(FIELDS, row))
    return (d["time"], d["group"], d["kind"], *(d[f] for f in CARRIED[d["kind"]]))


def drive(version: str) -> GroupCoordinator:
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version=version, topics={"foo": 3, "bar": 2})
    epochs = {}

    def hb(group, member, epoch=None, **fields):
        r = coord.share_group_heartbeat(group, member_id=member, member_epoch=epochs.get(member, 0)
                                        if epoch is None else epoch, **fields)
        assert r.error.name == "NONE", (r.error, r.error_message)
        epochs[member] = r.member_epoch
        sim.advance(1500)
        return r

    hb("g", "m1", subscribed_topic_names=["foo"])
    coord.complete_share_init("g")
    hb("g", "m1")
    hb("g", "m2", subscribed_topic_names=["foo", "bar"])
    coord.complete_share_init("g")
    hb("g", "m1"), hb("g", "m2"), hb("g", "m1")
    coord.create_partitions("foo", 4)
    hb("g", "m2"), hb("g", "m1")
    coord.complete_share_init("g")
    hb("g", "m2"), hb("g", "m1")
    hb("g", "m2", epoch=-1)          # leaves
    hb("g", "m1")
    sim.advance(46_000)              # m1's session expires
    coord.load_share_group("h", group_epoch=5, members={
        "a": {"member_epoch": 5, "previous_member_epoch": 4, "subscribed_topic_names": ["bar"], "assigned": {"bar": [0, 1]}},
        "b": {"member_epoch": 5, "previous_member_epoch": 4, "subscribed_topic_names": ["bar"]}},
        target_assignment={"a": {"bar": [0, 1]}, "b": {"bar": [0, 1]}})
    return coord


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2", "4.3", "4.4"])
def test_simulated_share_group_logs_read_back(version):
    coord = drive(version)
    lines = coord.log.lines
    result = parse_lines(lines)
    assert result.unparsed == [] and result.counts["coordinator"] == len(lines)
    parsed = [r[:len(FIELDS)] for r in result.rows]
    simulated = [r for r in coord.sim.events.rows if logged(r)]
    assert Counter(map(carried, parsed)) == Counter(map(carried, simulated))
    kinds = Counter(r[4] for r in simulated)
    assert kinds["MemberJoined"] == 2 and kinds["GroupLoaded"] == 1 and kinds["MemberFenced"] == 1
    assert Counter(r[9] for r in parsed if r[4] == "MemberRemoved") == {"leave_group": 1, "session_timeout": 1}
    # 4.0 has no initialization gate: m1's join assigns at once (one target fewer, no "initialized" bump)
    bumps = [r[5] for r in parsed if r[4] == "GroupEpochBumped"]
    first = 2 if version >= "4.3" else 1   # KAFKA-20268: 4.3 creates groups at epoch 1
    assert bumps[0] == first and bumps == sorted(bumps)


def test_a_consumer_members_debug_assignment_line_stays_ignored():
    """The consumer groups' reconciliation line (DEBUG, `... and revokedPartitions=[...]`) is not a
    share group's: it carries no event."""
    line = ("[2026-11-27 10:00:00,000] DEBUG [GroupCoordinator id=1 topic=__consumer_offsets partition=7] [GroupId g] "
            f"Member {M1} new assignment state: epoch=3, previousEpoch=2, state=STABLE, assignedPartitions=[a-0] and "
            "revokedPartitions=[]. (org.apache.kafka.coordinator.group.GroupMetadataManager)")
    result = parse_lines([line])
    assert (result.rows, result.unparsed, result.counts["ignored"]) == ([], [], 1)


# == the share lines by version (GroupMetadataManager.shareGroupHeartbeat, 4.0.0 / 4.1.0 / 4.2.0) =======
HASH_FOO_6 = 1231248764596688917  # kafkasim's stand-in hash of {"foo": 6} (tests/test_broker_log.py)


@pytest.mark.parametrize("version, bumped, computed", [
    ("4.0", "[GroupId g] Bumped group epoch to 5.", None),
    ("4.1", f"[GroupId g] Bumped group epoch to 5 with metadata hash {HASH_FOO_6}.",
     f"[GroupId g] Computed new metadata hash: {HASH_FOO_6}."),
    ("4.2", f"[GroupId g] Bumped group epoch to 5 with metadata hash {HASH_FOO_6}.",
     f"[GroupId g] Computed new metadata hash: {HASH_FOO_6}."),
])
def test_the_share_epoch_lines_carry_the_metadata_hash_from_4_1(version, bumped, computed):
    """KAFKA-17747 (4.1.0): `shareGroupHeartbeat` logs "Computed new metadata hash: {}." and "Bumped
    group epoch to {} with metadata hash {}."; 4.0.0 logs "Bumped group epoch to {}." and its
    subscription metadata (TopicMetadata with topic ids, which kafkasim has not: no line)."""
    from kafkasim.coordinator.broker_log import BrokerLog
    log = BrokerLog(version)
    assert (log.share_epoch_bumped("g", 5, {"foo": 6}), log.share_metadata_changed("g", {"foo": 6})) == \
        (bumped, computed)


@pytest.mark.parametrize("version, tail", [
    ("4.0", ": {'m1': {'foo': [0, 1]}}."), ("4.1", "."), ("4.2", ".")])
def test_the_share_target_line_prints_the_assignment_only_in_4_0(version, tail):
    """4.0.0's `updateTargetAssignment` logs the new target at INFO ("... in {}ms: {}."); 4.1.0 logs it
    only at DEBUG, and "... in {}ms." at INFO."""
    from kafkasim.coordinator.broker_log import BrokerLog
    assert BrokerLog(version).share_target_assignment("g", 3, {"m1": {"foo": [0, 1]}}) == (
        "[GroupId g] Computed a new target assignment for epoch 3 with "
        f"'org.apache.kafka.coordinator.group.assignor.SimpleAssignor@<hash>' assignor in 0ms{tail}")
