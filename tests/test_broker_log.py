"""Broker log lines in Kafka's layout and wording, by version (docs/broker-log-parser.md)."""

import re

import pytest

from kafkasim import GroupCoordinator, Simulation
from kafkasim.coordinator.broker_log import BrokerLog, metadata_hash, offsets_partition
from kafkasim.core.config import parse_version
from kafkasim.core.java import java_string_hash
from kafkasim.core.errors import Errors

from coordinator_helpers import join, new_coordinator, stable_group, two_step_join

LAYOUT = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] INFO (\[GroupCoordinator[^\]]*\]:? )(.*) \(([\w.]+)\)$")


def test_java_hash_and_offsets_partition_match_java():
    assert java_string_hash("hello") == 99162322  # "hello".hashCode()
    assert java_string_hash("polygenelubricants") == -2147483648  # the famous Integer.MIN_VALUE hash
    assert offsets_partition("polygenelubricants") == 0  # Utils.abs(MIN_VALUE) is 0
    assert offsets_partition("g") == 103 % 50


def test_every_line_has_kafkas_layout_and_the_clock_maps_to_the_start_date():
    sim, coord, ids, leader = stable_group(3, group_initial_rebalance_delay_ms=3000)
    coord.leave_group("g", [ids[1]])
    sim.advance(61_000)
    assert coord.broker_log
    for line in coord.broker_log:
        m = LAYOUT.match(line)
        assert m, line
        assert m.group(2) == "[GroupCoordinator 0]: " and m.group(4) == "kafka.coordinator.group.GroupCoordinator"
    assert coord.broker_log[0].startswith("[2026-01-01 00:00:00,000]")
    expired_at = next(r[0] for r in sim.events.rows if r[4] == "MemberRemoved" and r[9] == "session_timeout")
    assert expired_at > 10_000
    stamp = f"[2026-01-01 00:00:{expired_at // 1000:02d},{expired_at % 1000:03d}]"
    assert any(line.startswith(stamp) and "has failed" in line for line in coord.broker_log)


def test_the_issue_example_line():
    sim, coord = new_coordinator(group_initial_rebalance_delay_ms=3000)
    two_step_join(coord, client_id="c")
    line = next(x for x in coord.broker_log if "Preparing" in x)
    assert re.fullmatch(
        r"\[2026-01-01 00:00:00,000\] INFO \[GroupCoordinator 0\]: Preparing to rebalance group g in state "
        r"PreparingRebalance with old generation 0 \(__consumer_offsets-3\) \(reason: Adding new member c-[0-9a-f-]{36} "
        r"with group instance id None; client reason: not provided\) \(kafka.coordinator.group.GroupCoordinator\)", line)


def _lines_for(version):
    sim, coord = new_coordinator(kafka_version=version, group_initial_rebalance_delay_ms=0)
    a, b = two_step_join(coord), two_step_join(coord)
    sim.advance(0)
    coord.sync_group("g", a.leader_id, 1, {})
    coord.sync_group("g", b.member_id, 1)
    coord.leave_group("g", [b.member_id])
    sim.advance(60_000)  # a never rejoins nor heartbeats
    return coord.broker_log


@pytest.mark.parametrize("version,expected", [
    ("0.10.0", ["Preparing to restabilize group g with old generation 0",
                "Stabilized group g generation 1",
                "Assignment received from leader for group g for generation 1",
                "Group g generation 1 is dead and removed"]),
    ("2.0", ["Preparing to rebalance group g with old generation 0 (__consumer_offsets-3)",
             "Stabilized group g generation 1 (__consumer_offsets-3)"]),
    ("2.4", ["in state PreparingRebalance with old generation 1 (__consumer_offsets-3) (reason: removing member",
             "has left, removing it from the group",
             "Member[group.instance.id None, member.id consumer-"]),
    ("2.8", ["Stabilized group g generation 1 (__consumer_offsets-3) with 2 members",
             "The group has 2 members, 0 of which are static.",
             "Group g with generation 2 is now empty (__consumer_offsets-3)"]),
    ("3.7", ["Assignment received from leader consumer-",
             "has left group g through explicit `LeaveGroup`; client reason: not provided",
             "Removing member consumer-", "on LeaveGroup; client reason: not provided)",
             "Member consumer-", "in group g has failed, removing it from the group"]),
    *[(v, ["[GroupCoordinator id=0 topic=__consumer_offsets partition=3] Preparing to rebalance group g in state "
           "PreparingRebalance with old generation 0 (reason: Adding new member consumer-",
           "with group instance id null; client reason: not provided).",
           "Stabilized group g generation 1 with 2 members.",
           "Group g with generation 2 is now empty.",
           "(org.apache.kafka.coordinator.group.GroupMetadataManager)"]) for v in ("4.0", "4.1", "4.2")],
])
def test_wording_follows_the_version(version, expected):
    text = "\n".join(_lines_for(version))
    for fragment in expected:
        assert fragment in text, f"{version}: {fragment!r} not in log"


def test_old_versions_omit_the_partition_and_the_reason():
    text = "\n".join(_lines_for("0.10.0"))
    assert "__consumer_offsets" not in text and "reason:" not in text
    assert "(kafka.coordinator.GroupCoordinator)" in text


def test_bad_version_is_rejected():
    with pytest.raises(ValueError, match="kafka_version"):
        parse_version("three")
    with pytest.raises(ValueError, match="kafka_version"):
        BrokerLog("")


def test_error_codes_match_kafka():
    codes = {e.name: e.code for e in Errors}
    assert codes["NONE"] == 0 and codes["UNKNOWN_SERVER_ERROR"] == -1
    assert codes["ILLEGAL_GENERATION"] == 22 and codes["UNKNOWN_MEMBER_ID"] == 25
    assert codes["REBALANCE_IN_PROGRESS"] == 27 and codes["MEMBER_ID_REQUIRED"] == 79
    assert codes["GROUP_MAX_SIZE_REACHED"] == 81 and codes["FENCED_INSTANCE_ID"] == 82
    assert Errors.for_code(81) is Errors.GROUP_MAX_SIZE_REACHED
    assert Errors.GROUP_MAX_SIZE_REACHED.exception == "GroupMaxSizeReachedException"
    with pytest.raises(ValueError, match="unknown Kafka error code 77"):
        Errors.for_code(77)  # KIP-389 proposed 77; Kafka shipped 81


def _messages(log):
    """The messages of a BrokerLog's lines (prefix and logger checked and stripped)."""
    out = []
    for line in log.lines:
        m = LAYOUT.match(line)
        assert m, line
        if log.new_coordinator:
            assert m.group(2) == f"[GroupCoordinator id=0 topic=__consumer_offsets partition={offsets_partition('g')}] "
            assert m.group(4) == "org.apache.kafka.coordinator.group.GroupMetadataManager"
        out.append(m.group(3))
    return out


def _classic_lines(version):
    log = BrokerLog(version)
    log.preparing_rebalance(0, "g", "PreparingRebalance", 3, log.reason_new_member("m-1", None, None))
    log.preparing_rebalance(0, "g", "PreparingRebalance", 3, log.reason_new_member("m-2", "i-2", "go"))
    log.preparing_rebalance(0, "g", "PreparingRebalance", 4,
                            log.reason_rejoin("m-1", "PreparingRebalance", leader=False, metadata_changed=False,
                                              client_reason=None))
    log.preparing_rebalance(0, "g", "PreparingRebalance", 4, log.reason_leave_group("m-1", None))
    log.preparing_rebalance(0, "g", "PreparingRebalance", 4, log.reason_pending_sync(["m-1", "m-2"]))
    log.static_member_added(0, "g", "Empty", "i-1", "m-3", None)
    log.static_member_added(0, "g", "Stable", "i-1", "m-4", "m-3")
    log.removed_not_rejoined(0, "g", ["m-1", "m-2"])
    log.pending_member_joined(0, "g", "PreparingRebalance", "m-5")
    log.member_id_required(0, "g", "Stable", "m-5")
    log.dynamic_member_added(0, "g", "Stable", "m-6")
    log.member_failed(0, "g", "m-6")
    log.member_left(0, "g", "m-4", "i-1", None, "MemberMetadata(memberId=m-4, ...)")
    return log


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
def test_new_coordinator_classic_lines_word_for_word(version):
    # GroupMetadataManager.java (classic groups) at 4.0.0, 4.1.0 and 4.2.0-rc1: the same wording.
    log = _classic_lines(version)
    assert _messages(log) == [
        "Preparing to rebalance group g in state PreparingRebalance with old generation 3 (reason: Adding new member "
        "m-1 with group instance id null; client reason: not provided).",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 3 (reason: Adding new member "
        "m-2 with group instance id i-2; client reason: go).",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 4 (reason: Member m-1 is "
        "joining group during PreparingRebalance; client reason: not provided).",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 4 (reason: explicit "
        "`LeaveGroup` request for (m-1) members.).",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 4 (reason: Removing "
        "[m-1, m-2] on pending sync request expiration).",
        "Static member with groupInstanceId=i-1 and unknown member id joins group g in Empty state. Created a new "
        "member id m-3 for this member and added to the group.",
        "Static member with groupInstanceId=i-1 and unknown member id joins group g in Stable state. Replacing "
        "previously mapped member m-3 with this groupInstanceId.",
        "Group g removed dynamic members who haven't joined: [m-1, m-2]",
        "Pending dynamic member with id m-5 joins group g in PreparingRebalance state. Adding to the group now.",
        "Dynamic member with unknown member id joins group g in Stable state. Created a new member id m-5 and "
        "requesting the member to rejoin with this id.",
        "Dynamic member with unknown member id joins group g in state Stable. Created a new member id m-6 and added "
        "the member to the group.",
        "Member m-6 in group g has failed, removing it from the group.",
        "[Group g] Member m-4 has left group through explicit `LeaveGroup` request; client reason: not provided",
    ]
    assert log.member_left_before_rebalance  # removeCurrentMemberFromClassicGroup logs, then the rebalance starts


def test_39_classic_lines_are_unchanged():
    log = _classic_lines("3.9")
    assert _messages(log) == [
        "Preparing to rebalance group g in state PreparingRebalance with old generation 3 (__consumer_offsets-3) "
        "(reason: Adding new member m-1 with group instance id None; client reason: not provided)",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 3 (__consumer_offsets-3) "
        "(reason: Adding new member m-2 with group instance id Some(i-2); client reason: go)",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 4 (__consumer_offsets-3) "
        "(reason: Member m-1 joining group during PreparingRebalance; client reason: not provided)",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 4 (__consumer_offsets-3) "
        "(reason: Removing member m-1 on LeaveGroup; client reason: not provided)",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 4 (__consumer_offsets-3) "
        "(reason: Removing Set(m-1, m-2) on pending sync request expiration)",
        "Static member with groupInstanceId=i-1 and unknown member id joins group g in Empty state. Created a new "
        "member id m-3 for this member and add to the group.",
        "Static member with groupInstanceId=i-1 and unknown member id joins group g in Stable state. Replacing "
        "previously mapped member m-3 with this groupInstanceId.",
        "Group g removed dynamic members who haven't joined: Set(m-1, m-2)",
        # the pending member's join is DEBUG before 4.0: no line
        "Dynamic member with unknown member id joins group g in Stable state. Created a new member id m-5 and "
        "request the member to rejoin with this id.",
        "Dynamic Member with unknown member id joins group g in Stable state. Created a new member id m-6 for this "
        "member and add to the group.",
        "Member m-6 in group g has failed, removing it from the group",
        "Member MemberMetadata(memberId=m-4, ...) has left group g through explicit `LeaveGroup`; client reason: "
        "not provided",
    ]
    assert not log.member_left_before_rebalance and BrokerLog("2.8").member_left_before_rebalance


@pytest.mark.parametrize("version, leave_first", [("2.8", True), ("3.7", False), ("4.0", True), ("4.2", True)])
def test_a_leave_is_logged_before_or_after_the_rebalance_it_causes(version, leave_first):
    """2.x and the 4.x Java coordinator (removeCurrentMemberFromClassicGroup) log the member's leave,
    then the rebalance; 3.x's GroupCoordinator.handleLeaveGroup logs the rebalance first."""
    lines = _lines_for(version)
    leave = next(i for i, line in enumerate(lines) if "has left" in line)
    rebalance = next(i for i, line in enumerate(lines) if "Preparing to rebalance" in line and "with old generation 1"
                     in line)
    assert (leave < rebalance) is leave_first


@pytest.mark.parametrize("version, logged", [("3.9", 0), ("4.0", 2)])
def test_a_pending_member_joining_is_info_only_in_4x(version, logged):
    """KIP-394's second JoinGroup: "Pending dynamic member ... joins group" is INFO from 4.0 (DEBUG before)."""
    lines = _lines_for(version)
    joined = [line for line in lines if "Pending dynamic member with id consumer-" in line]
    assert len(joined) == logged
    if logged:
        assert joined[0].endswith("joins group g in Empty state. Adding to the group now. "
                                  "(org.apache.kafka.coordinator.group.GroupMetadataManager)")


# -- consumer groups (KIP-848) -----------------------------------------------------------------------
# Expected lines written out by hand from GroupMetadataManager.java at 4.0.0, 4.1.1 and 4.2.0-rc1.
ANY_LEVEL = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] (INFO|WARN|ERROR) "
                       r"\[GroupCoordinator id=0 topic=__consumer_offsets partition=3\] (.*) "
                       r"\(org\.apache\.kafka\.coordinator\.group\.GroupMetadataManager\)$")


def _consumer_group_lines(version):
    from kafkasim.coordinator.broker_log import FENCED_SESSION_EXPIRED, fenced_rebalance_timeout

    log = BrokerLog(version)
    log.consumer_member_joined(0, "g", "m-1")
    log.consumer_member_joined(0, "g", "m-2", "i-2")
    log.consumer_member_joined(0, "g", "m-3", None, "classic")
    log.consumer_static_member_replaced(0, "g", "i-2", "m-4", "m-2")
    log.consumer_unreleased_instance_id(0, "g", "m-5", "i-2", "m-4")
    log.consumer_fenced_instance_id(0, "g", "m-5", "i-2", "m-4")
    log.consumer_member_left(0, "g", "m-1")
    log.consumer_member_left(0, "g", "m-4", "i-2", temporarily=True)
    log.consumer_member_left(0, "g", "m-4", "i-2")
    log.consumer_member_fenced(0, "g", "m-3", FENCED_SESSION_EXPIRED)
    log.consumer_member_fenced(0, "g", "m-6", fenced_rebalance_timeout(4, 300000))
    log.group_epoch_bumped(0, "g", 5, {"foo": 6})
    log.target_assignment_computed(0, "g", 5, "uniform")
    log.target_assignment_failed(0, "g", 6, "no luck")
    log.regexes_refreshed(0, "g", 3, ["foo.*", "bar.*"])
    log.consumer_group_loaded(0, "g", 2)
    log.consumer_group_unloaded(0, "g", 7)
    log.consumer_group_converted(0, "g", "consumer")
    log.consumer_group_converted(0, "g", "consumer", empty=True)
    log.consumer_group_converted(0, "g", "classic")
    log.consumer_group_converted(0, "g", "classic", empty=True)
    log.consumer_group_conversion_refused(0, "g", "upgrade_disabled")
    log.consumer_group_conversion_refused(0, "g", "upgrade_malformed_protocol", "Error reading field 'topics'")
    log.consumer_group_conversion_refused(0, "g", "downgrade_group_too_large")
    log.classic_member_id_required(0, "g", "m-7")
    log.classic_member_left_consumer_group(0, "g", "m-7", None, None)
    log.classic_member_left_consumer_group(0, "g", "m-8", "i-8", "the consumer is being closed")
    out = []
    for line in log.lines:
        m = ANY_LEVEL.match(line)
        assert m, line
        out.append((m.group(2), m.group(3)))
    return out


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
def test_consumer_group_lines_word_for_word(version):
    got = _consumer_group_lines(version)
    bump = got[11][1]
    if version == "4.0":
        assert bump == "[GroupId g] Bumped group epoch to 5."
    else:  # KAFKA-17747 (4.1): the group's metadata hash replaces the subscription metadata
        assert re.fullmatch(r"\[GroupId g\] Bumped group epoch to 5 with metadata hash -?\d+\.", bump), bump
    assert got[:11] + got[12:] == [
        ("INFO", "[GroupId g] Member m-1 joins the consumer group using the consumer protocol."),
        ("INFO", "[GroupId g] Static member m-2 with instance id i-2 joins the consumer group using the consumer "
                 "protocol."),
        ("INFO", "[GroupId g] Member m-3 joins the consumer group using the classic protocol."),
        ("INFO", "[GroupId g] Static member with instance id i-2 re-joins the consumer group using the consumer "
                 "protocol. Created a new member m-4 to replace the existing member m-2."),
        ("INFO", "[GroupId g] Static member m-5 with instance id i-2 cannot join the group because the instance id is "
                 "owned by member m-4."),
        ("INFO", "[GroupId g] Static member m-5 with instance id i-2 is fenced by existing member m-4."),
        ("INFO", "[GroupId g] Member m-1 left the consumer group."),
        ("INFO", "[GroupId g] Static member m-4 with instance id i-2 temporarily left the consumer group."),
        ("INFO", "[GroupId g] Static member m-4 with instance id i-2 left the consumer group."),
        ("INFO", "[GroupId g] Member m-3 fenced from the group because the member session expired."),
        ("INFO", "[GroupId g] Member m-6 fenced from the group because it failed to transition from epoch 4 within "
                 "300000ms."),
        ("INFO", "[GroupId g] Computed a new target assignment for epoch 5 with 'uniform' assignor in 0ms."),
        ("ERROR", "[GroupId g] Failed to compute a new target assignment for epoch 6: no luck."),
        ("INFO", "[GroupId g] Scanned 3 topics to refresh regular expressions [bar.*, foo.*] in 0ms."),
        ("INFO", "Loaded consumer group g with 2 members."),
        ("INFO", "[GroupId=g] Unloaded group metadata for group epoch 7."),
        ("INFO", "[GroupId g] Converted the classic group to a consumer group."),
        ("INFO", "[GroupId g] Converted the empty classic group to a consumer group."),
        ("INFO", "[GroupId g] Converted the consumer group to a classic group."),
        ("INFO", "[GroupId g] Converted the empty consumer group to a classic group."),
        ("INFO", "Cannot upgrade classic group g to consumer group because online upgrade is disabled."),
        ("WARN", "Cannot upgrade classic group g to consumer group because the embedded consumer protocol is "
                 "malformed: Error reading field 'topics'."),
        ("INFO", "Cannot downgrade consumer group g to classic group because its group size is greater than classic "
                 "group max size."),
        ("INFO", "[GroupId g] Dynamic member with unknown member id joins the consumer group. Created a new member id "
                 "m-7 and requesting the member to rejoin with this id."),
        ("INFO", "[GroupId g] Dynamic member m-7 has left group through explicit `LeaveGroup` request; client reason: "
                 "not provided"),
        ("INFO", "[GroupId g] Static member m-8 with instance id i-8 has left group through explicit `LeaveGroup` "
                 "request; client reason: the consumer is being closed"),
    ]


def test_consumer_group_lines_only_from_4_0():
    """3.7-3.9 ran the protocol in early access, with other words: none of these lines is written."""
    log = BrokerLog("3.9")
    log.consumer_group(0, "member_joined", "g", "m-1", {"instance_id": None, "protocol": "consumer"})
    log.consumer_member_left(0, "g", "m-1")
    log.group_epoch_bumped(0, "g", 1)
    assert log.lines == []


def test_metadata_hash_stand_in():
    from kafkasim.coordinator.broker_log import metadata_hash

    assert metadata_hash({}) == metadata_hash(None) == 0  # Kafka: 0 when no subscribed topic exists
    h = metadata_hash({"foo": 6, "bar": 3})
    assert h == metadata_hash({"bar": 3, "foo": 6}) and -2**63 <= h < 2**63
    assert len({h, metadata_hash({"foo": 7, "bar": 3}), metadata_hash({"foo": 6})}) == 3
    # The values a run prints are part of its byte-identical log: pinned, a negative one included
    # (the hash is a signed Java long, as Kafka prints it).
    assert (h, metadata_hash({"foo": 7, "bar": 3}), metadata_hash({"a": 1})) == (
        6607439453771773656, -3872077527390157181, -3637318169027460351)


def test_regexes_in_java_hash_map_order():
    """`refreshRegularExpressions` prints the key set of a `new HashMap<>(regexes.size())`; the
    expected orders were printed by Java 17's HashMap."""
    from kafkasim.coordinator.broker_log import java_hash_map_order

    assert java_hash_map_order(["foo.*", "bar.*"], 2) == ["bar.*", "foo.*"]
    assert java_hash_map_order(["orders-.*", "payments-.*", "audit\\..*", "x"], 4) == [
        "payments-.*", "x", "audit\\..*", "orders-.*"]
    keys = [f"t{i}.*" for i in range(1, 14)]
    assert java_hash_map_order(keys, 13) == ["t5.*", "t12.*", "t4.*", "t11.*", "t7.*", "t6.*", "t13.*", "t1.*",
                                             "t3.*", "t2.*", "t9.*", "t8.*", "t10.*"]
    # A power-of-two capacity is kept as is (16 buckets, not 32), and a small map that grows three
    # times (4 -> 8 -> 16 -> 32 buckets at 0.75 load) ends with 32 buckets.
    assert java_hash_map_order(["a", "b", "c", "q", "Q", "aa", "zz", "topic-17"], 16) == [
        "aa", "zz", "a", "q", "Q", "b", "c", "topic-17"]
    assert java_hash_map_order([f"t{i}" for i in range(14)], 3) == [
        "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t12", "t11", "t13", "t0", "t1", "t2", "t3"]


def test_java_hash_map_grows_past_three_quarters_full_from_its_power_of_two_capacity():
    """HashMap: `tableSizeFor` rounds the initial capacity up to a power of two (8 stays 8), and
    `putVal` doubles the table once `++size > threshold` (0.75 x capacity): 2 keys in a 1-bucket
    map end in 4 buckets, 3 keys fit 4 buckets (threshold 3), 6 fit 8 (threshold 6). The orders
    were printed by Java 17's `new HashMap<>(capacity)` key set."""
    from kafkasim.coordinator.broker_log import java_hash_map_order

    assert java_hash_map_order(["t1", "t2"], 1) == ["t1", "t2"]
    assert java_hash_map_order(["t0", "t1", "t4"], 3) == ["t0", "t4", "t1"]
    assert java_hash_map_order(["t0", "t1", "t2", "t3", "t4", "t8"], 6) == ["t4", "t0", "t8", "t1", "t2", "t3"]
    assert java_hash_map_order(["t0", "t8"], 8) == ["t0", "t8"]


@pytest.mark.parametrize("version,reason", [
    ("4.0", "Downgrade group g from consumer to classic."),
    ("4.0.1", "Downgrade group g from consumer to classic."),
    ("4.0.2", "Downgrade group g from consumer to classic for member leaving."),  # KAFKA-19546
    ("4.1", "Downgrade group g from consumer to classic."),
    ("4.1.1", "Downgrade group g from consumer to classic for member leaving."),
    ("4.2", "Downgrade group g from consumer to classic for member leaving."),
])
def test_downgrade_rebalance_reason_by_version(version, reason):
    log = BrokerLog(version)
    assert log.reason_downgrade("g") == reason
    if reason.endswith("leaving."):
        assert log.reason_downgrade("g", static_replacement=True) == (
            "Downgrade group g from consumer to classic for static member replacement with different subscription.")


def _consumer_coordinator(version="4.0", **config):
    from kafkasim import GroupCoordinator, Simulation

    sim = Simulation(seed=0)
    return sim, GroupCoordinator(sim, kafka_version=version, topics={"foo": 6}, **config)


def _cg_join(coord, member, **fields):
    fields.setdefault("rebalance_timeout_ms", 10000)
    return coord.consumer_group_heartbeat("g", member_id=member, member_epoch=0, subscribed_topic_names=["foo"],
                                          owned_partitions={}, **fields)


def _cg_messages(coord):
    return [ANY_LEVEL.match(line).group(3).removeprefix("[GroupId g] ") for line in coord.broker_log]


def test_the_epoch_bump_of_a_regex_resolution_logs_the_hash_of_the_resolved_topics():
    """`handleRegularExpressionsResult` bumps the epoch with the subscription metadata that the new
    resolution gives; from 4.1 (KAFKA-17747) the line carries that metadata's hash: here the hash
    of {foo: 2}, the one topic the regex `fo+` resolves to, not 0 (no subscribed topic)."""
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version="4.2", topics={"foo": 2, "bar": 3})
    coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                   subscribed_topic_regex="fo+", owned_partitions={})
    sim.advance(0)
    assert metadata_hash({"foo": 2}) != 0
    assert f"Bumped group epoch to 2 with metadata hash {metadata_hash({'foo': 2})}." in _cg_messages(coord)


@pytest.mark.parametrize("version", ["4.0", "4.2"])
def test_the_coordinator_writes_consumer_group_lines_in_kafkas_order(version):
    """Join, epoch bump, target assignment; heartbeats that change nothing write nothing (Kafka
    logs reconciliation at DEBUG); a leave, then its bump; a session expiry, then its bump."""
    sim, coord = _consumer_coordinator(version)
    _cg_join(coord, "m1")
    sim.advance(1000)
    _cg_join(coord, "m2")
    for _ in range(3):
        sim.advance(2000)
        coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=coord.member_epoch("g", "m1"),
                                       owned_partitions=coord.assigned_partitions("g", "m1"))
        coord.consumer_group_heartbeat("g", member_id="m2", member_epoch=coord.member_epoch("g", "m2"),
                                       owned_partitions=coord.assigned_partitions("g", "m2"))
    assert coord.group_state("g") == "Stable"
    settled = len(coord.broker_log)
    for _ in range(5):  # steady heartbeats: no line
        sim.advance(3000)
        coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=2)
        coord.consumer_group_heartbeat("g", member_id="m2", member_epoch=2)
    assert len(coord.broker_log) == settled
    coord.consumer_group_heartbeat("g", member_id="m2", member_epoch=-1)
    sim.advance(60_000)  # m1 stops heartbeating
    hashed = version != "4.0"
    assert [re.sub(r" with metadata hash -?\d+", " #", m) for m in _cg_messages(coord)] == [
        "Member m1 joins the consumer group using the consumer protocol.",
        "Bumped group epoch to 1 #." if hashed else "Bumped group epoch to 1.",
        "Computed a new target assignment for epoch 1 with 'uniform' assignor in 0ms.",
        "Member m2 joins the consumer group using the consumer protocol.",
        "Bumped group epoch to 2 #." if hashed else "Bumped group epoch to 2.",
        "Computed a new target assignment for epoch 2 with 'uniform' assignor in 0ms.",
        "Member m2 left the consumer group.",
        "Bumped group epoch to 3 #." if hashed else "Bumped group epoch to 3.",
        "Member m1 fenced from the group because the member session expired.",
        "Bumped group epoch to 4 #." if hashed else "Bumped group epoch to 4.",
    ]
    stamps = [ANY_LEVEL.match(line).group(1) for line in coord.broker_log]
    assert stamps[0] == "2026-01-01 00:00:00,000" and stamps[3] == "2026-01-01 00:00:01,000"
    if hashed:  # the last bump: nobody subscribes any more, Kafka's hash of no topic is 0
        assert coord.broker_log[-1].split("] ", 2)[2].startswith("[GroupId g] Bumped group epoch to 4 with metadata "
                                                                 "hash 0.")


def test_a_failing_join_leaves_its_lines_as_in_kafka():
    """Kafka logs the join when it finds the member and the bump when it computes it; an assignor
    that then throws adds an ERROR line, and nothing is stored."""
    from kafkasim.coordinator.assignor import PartitionAssignorException

    class Broken:
        name = "broken"

        def assign(self, members, topics):
            raise PartitionAssignorException("no luck")

    sim, coord = _consumer_coordinator(group_consumer_assignors=[Broken()])
    assert _cg_join(coord, "m1").error is Errors.UNKNOWN_SERVER_ERROR
    assert _cg_messages(coord) == [
        "Member m1 joins the consumer group using the consumer protocol.",
        "Bumped group epoch to 1.",
        "Failed to compute a new target assignment for epoch 1: no luck.",
    ]
    assert ANY_LEVEL.match(coord.broker_log[-1]).group(2) == "ERROR"


def test_no_consumer_group_lines_in_early_access():
    sim, coord = _consumer_coordinator("3.9")
    _cg_join(coord, "m1")
    coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert coord.group_epoch("g") == 2 and coord.broker_log == []


OLD_LINE = "[2026-01-01 00:00:01,234] INFO [GroupCoordinator 0]: {} (kafka.coordinator.group.GroupCoordinator)"
NEW_LINE = ("[2026-01-01 00:00:01,234] INFO [GroupCoordinator id=0 topic=__consumer_offsets partition=3] {} "
            "(org.apache.kafka.coordinator.group.GroupMetadataManager)")


@pytest.mark.parametrize("version, reason, line", [
    ("2.1", "why", None),  # no such line before 2.2 (KIP-345's pending members)
    ("2.2", "why", OLD_LINE.format("Pending member m-1 is leaving group g.")),
    ("2.8", "why", OLD_LINE.format("Pending member m-1 is leaving group g.")),
    ("3.0", "why", OLD_LINE.format("Pending member with memberId=m-1 has left group g through explicit "
                                   "`LeaveGroup` request")),
    ("3.1", "why", OLD_LINE.format("Pending member with memberId=m-1 has left group g through explicit "
                                   "`LeaveGroup` request")),
    ("3.2", "why", OLD_LINE.format("Pending member with memberId=m-1 has left group g through explicit "
                                   "`LeaveGroup` request; client reason: why")),  # KIP-800
    ("3.9", None, OLD_LINE.format("Pending member with memberId=m-1 has left group g through explicit "
                                  "`LeaveGroup` request; client reason: not provided")),
    ("4.0", "why", NEW_LINE.format("[Group g] Pending member m-1 has left group through explicit `LeaveGroup` "
                                   "request; client reason: why")),
    ("4.0", None, NEW_LINE.format("[Group g] Pending member m-1 has left group through explicit `LeaveGroup` "
                                  "request; client reason: not provided")),
])
def test_pending_member_left_by_version(version, reason, line):
    """`GroupCoordinator.scala` (2.2-3.9, KIP-800's client reason from 3.2) and
    `GroupMetadataManager.java` (4.x) when a pending member sends LeaveGroup."""
    log = BrokerLog(version)
    log.pending_member_left(1234, "g", "m-1", reason)
    assert log.lines == ([] if line is None else [line])


@pytest.mark.parametrize("version, line", [
    ("2.1", None),  # pending member ids (KIP-394) from 2.2
    ("2.2", OLD_LINE.format("Pending member m-1 in group g has been removed after session timeout expiration.")),
    ("3.9", OLD_LINE.format("Pending member m-1 in group g has been removed after session timeout expiration.")),
    ("4.0", NEW_LINE.format("Pending member m-1 in group g has been removed after session timeout expiration.")),
])
def test_pending_member_expired_by_version(version, line):
    """`GroupCoordinator.onExpireHeartbeat` (2.2-3.9) and `GroupMetadataManager` (4.x, same words)
    when a pending member id (KIP-394) sends no second JoinGroup within the session timeout."""
    log = BrokerLog(version)
    log.pending_member_expired(1234, "g", "m-1")
    assert log.lines == ([] if line is None else [line])


@pytest.mark.parametrize("version, line", [
    ("2.4", None),  # no such line in 2.4's GroupCoordinator.doUnknownJoinGroup
    ("2.5", OLD_LINE.format("Dynamic Member with unknown member id joins group g in Stable state. Created a new "
                            "member id m-2 for this member and add to the group.")),
    ("3.9", OLD_LINE.format("Dynamic Member with unknown member id joins group g in Stable state. Created a new "
                            "member id m-2 for this member and add to the group.")),
    ("4.0", NEW_LINE.format("Dynamic member with unknown member id joins group g in state Stable. Created a new "
                            "member id m-2 and added the member to the group.")),
])
def test_dynamic_member_added_is_info_from_2_5(version, line):
    """`GroupCoordinator.doUnknownJoinGroup` logs a dynamic member that joins without needing a
    member id first at INFO from 2.5.0 (2.4.0 has no such line); `GroupMetadataManager.java` (4.x)
    words it anew, with the group's `__consumer_offsets` partition in the prefix."""
    log = BrokerLog(version)
    log.dynamic_member_added(1234, "g", "Stable", "m-2")
    assert log.lines == ([] if line is None else [line])


@pytest.mark.parametrize("version, line", [
    ("2.2", None),  # static membership (KIP-345) from 2.3
    ("2.3", "Static member i-1 with unknown member id rejoins, assigning new member id m-2, while old member m-1 "
            "will be removed."),
    ("2.4", "Static member i-1 with unknown member id rejoins, assigning new member id m-2, while old member m-1 "
            "will be removed."),
    ("2.5", "Static member i-1 of group g with unknown member id rejoins, assigning new member id m-2, while old "
            "member id m-1 will be removed."),
    ("2.8", "Static member i-1 of group g with unknown member id rejoins, assigning new member id m-2, while old "
            "member id m-1 will be removed."),
])
def test_static_member_replaced_by_version(version, line):
    log = BrokerLog(version)
    log.static_member_added(1234, "g", "Stable", "i-1", "m-2", "m-1")
    assert log.lines == ([] if line is None else [OLD_LINE.format(line)])


@pytest.mark.parametrize("version, expected", [
    ("3.1", "Updating metadata for static member m-1 with instance id i-1"),
    ("3.2", "Updating metadata for static member m-1 with instance id i-1; client reason: why"),
])
def test_static_update_reason_carries_the_client_reason_from_3_2(version, expected):
    assert BrokerLog(version).reason_static_update("m-1", "i-1", "why") == expected


@pytest.mark.parametrize("version, line", [
    ("2.8", "Member[group.instance.id None, member.id m-1] in group g has left, removing it from the group"),
    ("3.0", "Member MemberMetadata(m-1) has left group g through explicit `LeaveGroup` request"),
    ("3.2", "Member MemberMetadata(m-1) has left group g through explicit `LeaveGroup`; client reason: why"),
])
def test_member_left_wording_changes_at_3_0_and_3_2(version, line):
    log = BrokerLog(version)
    log.member_left(1234, "g", "m-1", None, "why", "MemberMetadata(m-1)")
    assert log.lines == [OLD_LINE.format(line)]


@pytest.mark.parametrize("version, written", [("0.11.0.0", False), ("0.11.0.1", True), ("1.0", True)])
def test_member_failed_is_info_from_0_11_0_1(version, written):
    """`onMemberFailure`'s "has failed" line is INFO from 0.11.0.1 (DEBUG or TRACE before)."""
    log = BrokerLog(version)
    log.member_failed(1234, "g", "m-1")
    assert log.lines == ([OLD_LINE.format("Member m-1 in group g has failed, removing it from the group")]
                         if written else [])


@pytest.mark.parametrize("version, expected", [
    ("2.6", "Updating metadata for member m-1"),
    ("2.7", "leader m-1 re-joining group during Stable"),
    ("3.0", "Leader m-1 re-joining group during Stable"),
    ("3.2", "Leader m-1 re-joining group during Stable; client reason: why"),
])
def test_leader_rejoin_reason_by_version(version, expected):
    assert BrokerLog(version).reason_rejoin("m-1", "Stable", leader=True, metadata_changed=False,
                                            client_reason="why") == expected


def test_the_epoch_bump_line_prints_the_groups_metadata_hash_from_4_1():
    log = BrokerLog("4.1")
    log.group_epoch_bumped(1234, "g", 5, {"foo": 6})
    assert log.lines == [NEW_LINE.format("[GroupId g] Bumped group epoch to 5 with metadata hash 1231248764596688917.")]


def test_a_conversion_to_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="^to must be 'consumer' or 'classic', got 'share'$"):
        BrokerLog("4.0").consumer_group_converted(0, "g", "share")


@pytest.mark.parametrize("version, expected", [
    ("2.8", "removing member m-1 on LeaveGroup"),
    ("3.0", "Removing member m-1 on LeaveGroup"),
    ("3.2", "Removing member m-1 on LeaveGroup; client reason: why"),
    ("4.0", "explicit `LeaveGroup` request for (m-1) members."),
])
def test_leave_group_rebalance_reason_by_version(version, expected):
    assert BrokerLog(version).reason_leave_group("m-1", "why") == expected
