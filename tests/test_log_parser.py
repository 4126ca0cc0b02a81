"""The broker-log parser (kafkasim.analysis.log_parser): Kafka's wording of every version, real-world
layouts, wrapped, truncated and malformed lines, chunked reading, and the simulator's own logs
read back into the events it simulated. No Spark here.

The expected events of the wording tests come from the message templates of Kafka's
GroupCoordinator.scala and GroupMetadataManager.java (docs/broker-log-parser.md), written out by hand, not from the parser's output.
"""

import gzip
import os
import re
from collections import Counter
from datetime import datetime

import pyarrow.parquet as pq
import pytest

from coordinator_helpers import join, stable_group, two_step_join
from kafkasim import Scenario, simulate
from kafkasim import faults as F
from kafkasim.core.config import KAFKA_VERSIONS
from kafkasim.core.events import FIELDS
from kafkasim.analysis import logs as lp
from kafkasim.analysis.logs import broker
from kafkasim.analysis.logs.sources import BROKER
from kafkasim.analysis.logs.wording import Ctx
from kafkasim.analysis.logs import (ROW_FIELDS, UNPARSED_FIELDS, chunk_plan, count_newlines, expand_paths,
                                          fresh_output, parse_chunk, parse_file, parse_lines, write_part)

ORIGIN = datetime(2024, 3, 5, 20, 0, 0)
LINE = ROW_FIELDS.index("line")
STAMP = "[2024-03-05 20:21:14,681]"
T = (21 * 60 + 14) * 1000 + 681  # STAMP in ms since ORIGIN
M1 = "consumer-1-0b1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
M2 = "consumer-2-11111111-2222-4333-8444-555555555555"
OLD, GRP, NEW = "kafka.coordinator.GroupCoordinator", "kafka.coordinator.group.GroupCoordinator", \
    "org.apache.kafka.coordinator.group.GroupMetadataManager"
NEW_PREFIX = "[GroupCoordinator id=1 topic=__consumer_offsets partition=12] "


def kafka_line(message, prefix="[GroupCoordinator 1]: ", logger=GRP, stamp=STAMP, level="INFO"):
    return f"{stamp} {level} {prefix}{message} ({logger})"


def events(lines, origin=ORIGIN):
    result = parse_lines(lines if isinstance(lines, list) else [lines], origin=origin)
    return [dict(zip(FIELDS, row)) for row in result.rows], result


def only(line, origin=ORIGIN):
    evs, result = events(line, origin)
    assert result.unparsed == [], result.unparsed
    return evs


def check(event, **expected):
    """The event has the `expected` fields, and (unless given) the coordinator as source and the
    time of STAMP, which every line of these tests carries."""
    for key, value in {"source": "coordinator", "time": T, **expected}.items():
        assert event[key] == value, (key, event)


# -- wording by version ---------------------------------------------------------------------------
@pytest.mark.parametrize("line,generation,state,reason", [
    (kafka_line("Preparing to restabilize group my-group with old generation 4", logger=OLD), 4, "PreparingRebalance",
     None),  # 0.9 - 0.10.2
    (kafka_line("Preparing to rebalance group my-group with old generation 4 (__consumer_offsets-12)"), 4,
     "PreparingRebalance", None),  # 0.11 - 2.0
    (kafka_line(f"Preparing to rebalance group my-group in state PreparingRebalance with old generation 4 "
                f"(__consumer_offsets-12) (reason: removing member {M1} on heartbeat expiration)"), 4,
     "PreparingRebalance", f"removing member {M1} on heartbeat expiration"),  # 2.1 - 3.9
    (kafka_line(f"Preparing to rebalance group my-group in state PreparingRebalance with old generation 4 "
                f"(__consumer_offsets-12) (reason: Updating metadata for member {M1} during Stable; client reason: "
                f"rebalance failed due to MemberIdRequiredException (console-consumer-1) List(range, sticky))"), 4,
     "PreparingRebalance", f"Updating metadata for member {M1} during Stable; client reason: rebalance failed due to "
                           f"MemberIdRequiredException (console-consumer-1) List(range, sticky)"),  # nested parentheses
    (kafka_line(f"Preparing to rebalance group my-group in state PreparingRebalance with old generation 4 "
                f"(reason: removing member {M1} on heartbeat expiration.).", NEW_PREFIX, NEW), 4,
     "PreparingRebalance", f"removing member {M1} on heartbeat expiration."),  # 4.x
])
def test_rebalance_started_in_every_wording(line, generation, state, reason):
    (ev,) = only(line)
    check(ev, time=T, source="coordinator", kind="RebalanceStarted", group="my-group", generation=generation,
          state=state, reason=reason)


@pytest.mark.parametrize("instance,kind", [("None", "dynamic"), ("Some(i-1)", "static"), ("null", "dynamic"),
                                           ("i-1", "static")])
def test_a_new_member_in_the_reason_is_a_member_added(instance, kind):
    evs = only(kafka_line(f"Preparing to rebalance group g in state PreparingRebalance with old generation 0 "
                          f"(__consumer_offsets-3) (reason: Adding new member {M1} with group instance id {instance}; "
                          f"client reason: not provided)"))
    assert [e["kind"] for e in evs] == ["MemberAdded", "RebalanceStarted"]
    check(evs[0], member=M1, reason=kind, generation=0, group="g")
    (ev,) = only(kafka_line(f"Preparing to rebalance group g in state PreparingRebalance with old generation 2 "
                            f"(__consumer_offsets-3) (reason: Adding new member {M1})"))[:1]  # 2.1 - 2.2
    check(ev, kind="MemberAdded", member=M1, reason="dynamic")


def test_pending_sync_expiry_in_the_reason_removes_each_member():
    for members in (f"Set({M1}, {M2})", f"[{M1}, {M2}]"):
        evs = only(kafka_line(f"Preparing to rebalance group g in state PreparingRebalance with old generation 3 "
                              f"(__consumer_offsets-3) (reason: Removing {members} on pending sync request expiration)"))
        assert [(e["kind"], e["member"], e["reason"]) for e in evs[:2]] == [
            ("MemberRemoved", M1, "sync_timeout"), ("MemberRemoved", M2, "sync_timeout")]
        assert evs[2]["kind"] == "RebalanceStarted"


@pytest.mark.parametrize("line,members", [
    (kafka_line("Stabilized group my-group generation 5", logger=OLD), None),  # 0.9 - 0.10.2
    (kafka_line("Stabilized group my-group generation 5 (__consumer_offsets-12)"), None),  # 0.11 - 2.7
    (kafka_line("Stabilized group my-group generation 5 (__consumer_offsets-12) with 3 members"), 3),  # 2.8 - 3.9
    (kafka_line("Stabilized group my-group generation 5 with 3 members.", NEW_PREFIX, NEW), 3),  # 4.x
])
def test_generation_stabilized(line, members):
    (ev,) = only(line)
    check(ev, kind="GenerationStabilized", group="my-group", generation=5, value=members, state="CompletingRebalance")


@pytest.mark.parametrize("line,leader,members", [
    (kafka_line("Assignment received from leader for group my-group for generation 5", logger=OLD), None, None),
    (kafka_line("Assignment received from leader for group my-group for generation 5. The group has 3 members, 0 of "
                "which are static."), None, 3),  # 2.8
    (kafka_line(f"Assignment received from leader {M1} for group my-group for generation 5. The group has 3 members, "
                f"1 of which are static."), M1, 3),  # 3.0+
    (kafka_line(f"Assignment received from leader {M1} for group my-group for generation 5. The group has 3 members, "
                f"1 of which are static.", NEW_PREFIX, NEW), M1, 3),  # 4.x
])
def test_assignment_received_then_stable(line, leader, members):
    received, stable = only(line)
    check(received, kind="AssignmentReceived", member=leader, generation=5, value=members, state="CompletingRebalance")
    check(stable, kind="GroupStable", member=leader, generation=5, value=members, state="Stable")


@pytest.mark.parametrize("line,kind,generation,state,reason", [
    (kafka_line("Group my-group generation 5 is dead and removed", logger=OLD), "GroupEmpty", 5, "Dead", None),
    (kafka_line("Group my-group with generation 6 is now empty", logger=OLD), "GroupEmpty", 6, "Empty", None),
    (kafka_line("Group my-group with generation 6 is now empty (__consumer_offsets-12)"), "GroupEmpty", 6, "Empty",
     None),
    (kafka_line("Group my-group with generation 6 is now empty.", NEW_PREFIX, NEW), "GroupEmpty", 6, "Empty", None),
    (kafka_line("Group my-group generation 6 is dead and removed", "[Group Metadata Manager on Broker 1]: ",
                "kafka.coordinator.GroupMetadataManager"), "GroupDead", 6, "Dead", "expired"),  # 0.10.1.0
    (kafka_line("Group my-group transitioned to Dead in generation 6", "[GroupMetadataManager brokerId=1] ",
                "kafka.coordinator.group.GroupMetadataManager"), "GroupDead", 6, "Dead", None),
    (kafka_line("Unloading group metadata for my-group with generation 6"), "GroupDead", 6, "Dead", "unloaded"),
    (kafka_line("[GroupId=my-group] Unloading group metadata for generation 6.", NEW_PREFIX, NEW), "GroupDead", 6,
     "Dead", "unloaded"),
    (kafka_line("Loading group metadata for my-group with generation 6"), "GroupLoaded", 6, None, None),
])
def test_group_lifecycle(line, kind, generation, state, reason):
    (ev,) = only(line)
    check(ev, kind=kind, group="my-group", generation=generation, state=state, reason=reason)


def test_loaded_group_carries_its_member_count():
    (ev,) = only(kafka_line("Loaded classic group my-group with 4 members.", NEW_PREFIX, NEW))
    check(ev, kind="GroupLoaded", group="my-group", value=4, generation=None)


META = (f"MemberMetadata(memberId={M1}, groupInstanceId=None, clientId=consumer-1, clientHost=/10.0.0.7, "
        f"sessionTimeoutMs=45000, rebalanceTimeoutMs=300000, supportedProtocols=List(range, cooperative-sticky))")


@pytest.mark.parametrize("message,prefix,reason", [
    (f"Member {M1} in group my-group has failed", "[GroupCoordinator 1]: ", "session_timeout"),  # 0.9-0.11.0
    (f"Member {M1} in group my-group has failed, removing it from the group", "[GroupCoordinator 1]: ",
     "session_timeout"),
    (f"Member {M1} in group my-group has failed, removing it from the group.", NEW_PREFIX, "session_timeout"),
    (f"Member {M1} in group my-group has left, removing it from the group", "[GroupCoordinator 1]: ", "leave_group"),
    (f"Member[group.instance.id None, member.id {M1}] in group my-group has left, removing it from the group",
     "[GroupCoordinator 1]: ", "leave_group"),  # 2.4 - 2.8
    (f"Member {META} has left group my-group through explicit `LeaveGroup` request", "[GroupCoordinator 1]: ",
     "leave_group"),  # 3.0 - 3.1
    (f"Member {META} has left group my-group through explicit `LeaveGroup`; client reason: the consumer is being "
     f"closed", "[GroupCoordinator 1]: ", "leave_group"),  # 3.2 - 3.9
    (f"Member {META} has left group my-group through explicit `LeaveGroup`; client reason: consumer poll timeout has "
     f"expired. This means the time between subsequent calls to poll() was longer than the configured "
     f"max.poll.interval.ms", "[GroupCoordinator 1]: ", "poll_timeout"),  # KIP-62 leave, 3.2+
    (f"[Group my-group] Member {M1} has left group through explicit `LeaveGroup` request; client reason: not "
     f"provided", NEW_PREFIX, "leave_group"),
    (f"[Group my-group] Dynamic Member {M1} has left group through explicit `LeaveGroup` request; client reason: "
     f"consumer poll timeout has expired.", NEW_PREFIX, "poll_timeout"),
    (f"[Group my-group] Static Member {M1} with instance id i-1 has left group through explicit `LeaveGroup` "
     f"request; client reason: not provided", NEW_PREFIX, "leave_group"),
    (f"[Group my-group] Pending member {M1} has left group through explicit `LeaveGroup` request; client reason: "
     f"not provided", NEW_PREFIX, "leave_group"),
    (f"Pending member {M1} is leaving group my-group.", "[GroupCoordinator 1]: ", "leave_group"),  # 2.2 - 2.8
    (f"Pending member with memberId={M1} has left group my-group through explicit `LeaveGroup` request",
     "[GroupCoordinator 1]: ", "leave_group"),  # 3.0 - 3.1
    (f"Pending member with memberId={M1} has left group my-group through explicit `LeaveGroup` request; client "
     f"reason: not provided", "[GroupCoordinator 1]: ", "leave_group"),  # 3.2+
    (f"[GroupId my-group] Member {M1} left the consumer group.", NEW_PREFIX, "leave_group"),  # KIP-848
])
def test_member_removed(message, prefix, reason):
    (ev,) = only(kafka_line(message, prefix))
    check(ev, kind="MemberRemoved", group="my-group", member=M1, reason=reason)


def test_members_that_did_not_rejoin_are_removed_one_by_one():
    for text in (f"Set({M1}, {M2})", f"[{M1}, {M2}]"):
        evs = only(kafka_line(f"Group my-group removed dynamic members who haven't joined: {text}"))
        assert [(e["kind"], e["member"], e["reason"], e["state"]) for e in evs] == [
            ("MemberRemoved", M1, "rebalance_timeout", "PreparingRebalance"),
            ("MemberRemoved", M2, "rebalance_timeout", "PreparingRebalance")]


@pytest.mark.parametrize("message,prefix,kind,member,reason,state", [
    (f"Dynamic member with unknown member id joins group my-group in Stable state. Created a new member id {M1} and "
     f"request the member to rejoin with this id.", "[GroupCoordinator 1]: ", "PendingMemberAdded", M1, None, "Stable"),
    (f"Dynamic member with unknown member id rejoins group my-group in Stable state. Created a new member id {M1} "
     f"and request the member to rejoin with this id.", "[GroupCoordinator 1]: ", "PendingMemberAdded", M1, None,
     "Stable"),  # 2.4 DEBUG
    (f"Dynamic member with unknown member id joins group my-group in Empty state. Created a new member id {M1} and "
     f"requesting the member to rejoin with this id.", NEW_PREFIX, "PendingMemberAdded", M1, None, "Empty"),
    (f"Dynamic Member with unknown member id joins group my-group in Stable state. Created a new member id {M1} for "
     f"this member and add to the group.", "[GroupCoordinator 1]: ", "MemberAdded", M1, "dynamic", "Stable"),
    (f"Static Member with unknown member id joins group my-group in Stable state. Created a new member id {M1} for "
     f"this member and add to the group.", "[GroupCoordinator 1]: ", "MemberAdded", M1, "static", "Stable"),
    (f"Dynamic member with unknown member id joins group my-group in state Stable. Created a new member id {M1} and "
     f"added the member to the group.", NEW_PREFIX, "MemberAdded", M1, "dynamic", "Stable"),
    (f"Static member with groupInstanceId=i-1 and unknown member id joins group my-group in Empty state. Created a "
     f"new member id {M1} for this member and add to the group.", "[GroupCoordinator 1]: ", "MemberAdded", M1,
     "static", "Empty"),
    (f"Static member with groupInstanceId=i-1 and unknown member id joins group my-group in Empty state. Created a "
     f"new member id {M1} for this member and added to the group.", NEW_PREFIX, "MemberAdded", M1, "static",
     "Empty"),  # 4.x
    (f"Pending dynamic member with id {M1} joins group my-group in PreparingRebalance state. Adding to the group now.",
     NEW_PREFIX, "MemberAdded", M1, "dynamic", "PreparingRebalance"),
    (f"Static member with groupInstanceId=i-1 and unknown member id joins group my-group in Stable state. Replacing "
     f"previously mapped member {M2} with this groupInstanceId.", "[GroupCoordinator 1]: ", "MemberReplaced", None,
     M2, None),
    (f"Static member i-1 of group my-group with unknown member id rejoins, assigning new member id {M1}, while old "
     f"member id {M2} will be removed.", "[GroupCoordinator 1]: ", "MemberReplaced", M1, M2, None),
    (f"Pending member {M1} in group my-group has been removed after session timeout expiration.",
     "[GroupCoordinator 1]: ", "PendingMemberExpired", M1, None, None),
])
def test_members_joining(message, prefix, kind, member, reason, state):
    (ev,) = only(kafka_line(message, prefix))
    check(ev, kind=kind, group="my-group", member=member, reason=reason, state=state)


def test_static_rejoin_of_2_3_has_no_group_in_the_line():
    (ev,) = only(kafka_line(f"Static member i-1 with unknown member id rejoins, assigning new member id {M1}, while "
                            f"old member {M2} will be removed."))
    check(ev, kind="MemberReplaced", group=None, member=M1, reason=M2)


@pytest.mark.parametrize("message,kind", [
    # GroupMetadata.isStaticMemberFenced 2.3 - 2.4: s"...${groupInstanceId.get}," + s"but not matching ..." (no space)
    (f"given member.id {M1} is identified as a known static member i-1,but not matching the expected member.id {M2}",
     "JoinGroupResponse"),
    # 2.5 - 2.8: "... during $operation, will respond with instance fenced error", operation from GroupCoordinator
    (f"given member.id {M1} is identified as a known static member i-1, but not matching the expected member.id {M2} "
     f"during join-group, will respond with instance fenced error", "JoinGroupResponse"),
    (f"given member.id {M1} is identified as a known static member i-1, but not matching the expected member.id {M2} "
     f"during heartbeat, will respond with instance fenced error", "HeartbeatResponse"),
])
def test_a_fenced_static_member_is_read_from_group_metadata_own_line(message, kind):
    """GroupMetadata logs through its own logger, without the coordinator's prefix, and names no group."""
    (ev,) = only(kafka_line(message, prefix="", logger="kafka.coordinator.group.GroupMetadata", level="ERROR"))
    check(ev, kind=kind, group=None, member=M1, error="FENCED_INSTANCE_ID", reason=f"expected member.id {M2}")


# What the table's builder of a wording (a module function, or a partial of one) reads from a matched line.
@pytest.mark.parametrize("key,index,message,expected", [
    ("Static", 1, f"Static Member with unknown member id joins group my-group in Stable state. "
     f"Created a new member id {M1} for this member and add to the group", ("MemberAdded", M1, "static", "Stable")),
    ("Dynamic", 1, f"Dynamic Member with unknown member id joins group my-group in Stable state. "
     f"Created a new member id {M1} for this member and add to the group", ("MemberAdded", M1, "dynamic", "Stable")),
    ("Pending", 3, f"Pending dynamic member with id {M1} joins group my-group in "
     f"PreparingRebalance state. Adding to the group now", ("MemberAdded", M1, "dynamic", "PreparingRebalance")),
    ("Member", 0, f"Member {M1} in group my-group has failed",
     ("MemberRemoved", M1, "session_timeout", None)),
    ("Member", 1, f"Member {M1} in group my-group has left, removing it from the "
     f"group", ("MemberRemoved", M1, "leave_group", None)),
    ("Cannot", 2, "Cannot upgrade classic group my-group to "
     "consumer group: Unsupported version 4.", ("GroupConversionRefused", None, "upgrade_unsupported_version", None)),
    ("Cannot", 4, "Cannot downgrade the consumer group "
     "my-group: fail to parse the Consumer Protocol consumer", ("GroupConversionRefused", None,
                                                                 "downgrade_malformed_protocol", None)),
])
def test_the_builders_make_the_event_of_their_wording(key, index, message, expected):
    template = BROKER.templates[key][1][index]
    kind, member, reason, state = expected
    (row,) = template.build(template.full.fullmatch(message), T, Ctx("coordinator", False))
    assert dict(zip(FIELDS, row)) == {"time": T, "source": "coordinator", "group": "my-group", "member": member,
                                      "kind": kind, "generation": None, "topic": None, "partition": None,
                                      "error": None, "reason": reason, "value": None, "state": state}


@pytest.mark.parametrize("message,kind", [
    ("Elected as the group coordinator for partition 25 in epoch 7", "CoordinatorElected"),
    ("Resigned as the group coordinator for partition 25 in epoch 7", "CoordinatorResigned"),
])
def test_the_coordinator_of_an_offsets_partition_moving_is_an_event_of_that_partition_at_the_lines_time(message,
                                                                                                      kind):
    # GroupCoordinator.onElection / onResignation (2.8 - 3.9): no group in the line, the partition of
    # __consumer_offsets it names; the time is the line's, as every event's.
    (ev,) = only(kafka_line(message))
    check(ev, kind=kind, group=None, member=None, topic="__consumer_offsets", partition=25, time=T)


def test_a_consumer_group_pattern_reads_the_group_id_up_to_the_words_that_follow_it():
    pattern = re.compile(broker.cg(r"Bumped group epoch to " + broker.N))
    assert pattern.fullmatch("[GroupId my-group] Bumped group epoch to 8").groupdict() == {"g": "my-group", "n": "8"}
    assert pattern.fullmatch("[GroupId my] group] Bumped group epoch to 8").groupdict() == {"g": "my] group", "n": "8"}
    assert pattern.fullmatch("[GroupId my-group] Bumped group epoch to x") is None


@pytest.mark.parametrize("message,prefix", [
    ("Startup complete.", "[GroupCoordinator 1]: "),
    ("Finished loading offsets and group metadata from __consumer_offsets-12 in 31 milliseconds, of which 0 "
     "milliseconds was spent in the scheduler.", "[GroupMetadataManager brokerId=1] "),
    ("Group my-group is dead, skipping rebalance stage", "[GroupCoordinator 1]: "),
    ("Static member which joins during Stable stage and doesn't affect selectProtocol will not trigger rebalance.",
     "[GroupCoordinator 1]: "),
    (f"[GroupId my-group] Member {M1} new assignment state: epoch=7, previousEpoch=6, state=STABLE, "
     f"assignedPartitions=[foo-0, foo-1] and revokedPartitions=[].", NEW_PREFIX),  # KIP-848, DEBUG in 4.x
    ("[GroupId my-group] Computed new subscription metadata: {foo=TopicMetadata(...)}.", NEW_PREFIX),  # DEBUG
    ("[GroupId my-group] Converted the empty classic group to a streams group.", NEW_PREFIX),  # KIP-1071
    ("Loading offsets and group metadata from [__consumer_offsets,12]", "[Group Metadata Manager on Broker 1]: "),
])
def test_coordinator_lines_without_an_event_are_ignored_not_rejected(message, prefix):
    evs, result = events(kafka_line(message, prefix))
    assert evs == [] and result.unparsed == []
    assert result.counts["ignored"] == 1 and result.counts["coordinator"] == 1


# -- layouts and containers ------------------------------------------------------------------------
BARE = f"Member {M1} in group my-group has failed, removing it from the group"


@pytest.mark.parametrize("line", [
    kafka_line(BARE),
    kafka_line(BARE) + "\r\n",
    f"{STAMP} INFO [GroupCoordinator 1]: {BARE} (kafka.coordinator.group.GroupCoordinator:66)",  # test layout %c:%L
    f"2024-03-05 20:21:14,681 INFO [GroupCoordinator 1]: {BARE} (kafka.coordinator.group.GroupCoordinator) "
    f"[data-plane-kafka-request-handler-3]",  # Strimzi
    f"kafka-1  | {kafka_line(BARE)}",  # docker compose logs
    f"[pod/kafka-0/kafka] {kafka_line(BARE)}",  # kubectl logs --prefix
    f"2024-03-05T20:21:14.690123456Z stdout F {kafka_line(BARE)}",  # Kubernetes CRI log file
    f"Mar  5 20:21:14 broker1 kafka-server-start.sh[2211]: {kafka_line(BARE)}",  # journald / syslog
    f'{{"log":"{kafka_line(BARE)}\\n","stream":"stdout","time":"2024-03-05T20:21:14.690Z"}}',  # Docker json-file
    f'{{"@timestamp":"2024-03-05T20:21:14.681Z","log.level":"INFO","message":"[GroupCoordinator 1]: {BARE}",'
    f'"log.logger":"{GRP}"}}',  # log4j JSON layout (ECS): the date is UTC, ORIGIN here is UTC too
    f"2024-03-05T20:21:14.681 INFO [kafka.coordinator.group.GroupCoordinator] [GroupCoordinator 1]: {BARE}",
    f"2024-03-05 21:21:14.681+01:00 [GroupCoordinator 1]: {BARE}",  # a zone: converted to UTC
])
def test_layouts_seen_in_real_systems(line):
    (ev,) = only(line)
    check(ev, time=T, kind="MemberRemoved", member=M1, group="my-group", reason="session_timeout")


def test_cri_partial_lines_are_joined():
    line = kafka_line(BARE)
    lines = [f"2024-03-05T20:21:14.690Z stdout P {line[:70]}", f"2024-03-05T20:21:14.690Z stdout P {line[70:140]}",
             f"2024-03-05T20:21:14.690Z stdout F {line[140:]}"]
    evs, result = events(lines)
    assert [e["member"] for e in evs] == [M1] and result.unparsed == []


# -- wrapped, truncated and malformed --------------------------------------------------------------
LONG = kafka_line(f"Preparing to rebalance group my-group in state PreparingRebalance with old generation 12 "
                  f"(__consumer_offsets-12) (reason: Adding new member {M1} with group instance id None; client "
                  f"reason: not provided)")


@pytest.mark.parametrize("width", [80, 100, 120, 160])
@pytest.mark.parametrize("keep_space", [True, False])
def test_hard_wrapped_lines_are_joined(width, keep_space):
    """A terminal copy wraps at its width, with or without the space at the break."""
    pieces = [LONG[i:i + width] for i in range(0, len(LONG), width)]
    if not keep_space:
        pieces = [p.strip() for p in pieces]
    before = kafka_line("Stabilized group other generation 1 (__consumer_offsets-1)")
    evs, result = events([before, *pieces, before])
    assert [e["kind"] for e in evs] == ["GenerationStabilized", "MemberAdded", "RebalanceStarted",
                                        "GenerationStabilized"]
    check(evs[2], generation=12, reason=f"Adding new member {M1} with group instance id None; client reason: not "
                                        f"provided")
    assert result.unparsed == [] and result.counts["lines"] == len(pieces) + 2
    assert parse_lines([before, *pieces, before]).rows[-1][LINE] == len(pieces) + 2  # line numbers stay physical


def test_every_cut_of_a_line_is_either_salvaged_correctly_or_kept_aside():
    """Cut each line of a simulated 3.7 log at every position: the parser never fails, never
    invents a field, and keeps every cut line aside with its line number."""
    run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=60_000, faults=(F.Crash("c-1", 10_000),)))
    whole = parse_lines(run.broker_log)
    assert whole.unparsed == []
    by_line = {}
    for row in whole.rows:
        by_line.setdefault(row[LINE], []).append(row[:len(FIELDS)])
    salvaged = 0
    for n, line in enumerate(run.broker_log, start=1):
        start = line.index("]: ") + 3
        for cut in range(start, len(line) - len(" (kafka.coordinator.group.GroupCoordinator)")):
            result = parse_lines([line[:cut]])
            assert len(result.unparsed) == 1 and result.unparsed[0][1] == 1
            for got in result.rows:
                salvaged += 1
                want = next(w for w in by_line[n] if w[4] == got[4])
                for name, g, w in zip(FIELDS, got[:len(FIELDS)], want):
                    if name == "reason" and isinstance(g, str) and g.endswith("…"):
                        assert w.startswith(g[:-1])
                    elif g is not None:
                        assert g == w, (name, line[:cut])
    assert salvaged > 100


def test_a_line_that_begins_with_a_time_of_day_is_never_a_continuation():
    """With log4j's ABSOLUTE layout (a time of day, no date) the line after a cut record is a record
    of its own: the cut one keeps its salvaged events, its reason marked as cut."""
    cut = (f"20:21:14,681 INFO [GroupCoordinator 1]: Preparing to rebalance group my-group in state PreparingRebalance "
           f"with old generation 4 (__consumer_offsets-12) (reason: removing member {M1} on heartbeat")
    other = "20:21:15,000 INFO [ReplicaManager broker=1] Shrinking ISR (kafka.server.ReplicaManager)"
    result = parse_lines([cut, other], origin=ORIGIN)
    (ev,) = [dict(zip(ROW_FIELDS, r)) for r in result.rows]
    check(ev, kind="RebalanceStarted", group="my-group", member=None, generation=4, state="PreparingRebalance",
          reason=f"removing member {M1} on heartbeat…", line=1, time_inferred=True)
    assert result.unparsed == [("<lines>", 1, "truncated, kept RebalanceStarted with a cut reason", cut)]
    assert result.counts["joined"] == 0 and result.counts["other"] == 1


def test_a_time_of_day_with_no_date_anywhere_goes_on_the_origins_day_from_its_midnight():
    """A file of log4j ABSOLUTE lines only (no date in any line) puts each time of day on the origin's
    day: the time is that day's midnight plus the time of day, in ms from the origin, even when the
    origin itself is not on a whole second."""
    line = f"20:21:14,681 INFO [GroupCoordinator 1]: {BARE} ({GRP})"
    (ev,) = only(line, origin=datetime(2024, 3, 5, 20, 0, 0, 500_000))
    assert (ev["kind"], ev["time"]) == ("MemberRemoved", (21 * 60 + 14) * 1000 + 681 - 500)


def test_a_record_without_its_logger_name_is_joined_only_when_it_does_not_read_whole():
    """A layout without `(%c)`: a record cut by a wrap is joined with the line after it (no logger
    name ends either); one that reads whole on its own is not, and the line after it (a stack
    frame) stays another logger's."""
    head = "2024-03-05 20:21:14,681 INFO [GroupCoordinator 1]: "
    evs, result = events([f"{head}Member {M1} in group my-group has", "failed, removing it from the group"])
    (ev,) = evs
    check(ev, kind="MemberRemoved", group="my-group", member=M1, reason="session_timeout", generation=None, state=None)
    assert result.unparsed == [] and result.counts["joined"] == 1 and result.counts["other"] == 0
    reason = f"removing member {M1} on heartbeat expiration"
    evs, result = events([f"{head}Preparing to rebalance group my-group in state PreparingRebalance with old "
                          f"generation 4 (__consumer_offsets-12) (reason: {reason})",
                          "\tat kafka.coordinator.group.GroupCoordinator.onGroupUnloaded(GroupCoordinator.scala:1021)"])
    (ev,) = evs
    check(ev, kind="RebalanceStarted", group="my-group", generation=4, reason=reason, state="PreparingRebalance")
    assert result.unparsed == [] and result.counts["joined"] == 0 and result.counts["other"] == 1


def test_the_reason_of_a_cut_line_begins_at_its_first_reason_marker():
    """The client's reason is free text, and may hold "(reason: " itself."""
    reason = (f"Updating metadata for member {M1} during Stable; client reason: rebalance failed (reason: session "
              f"timed out)")
    line = kafka_line(f"Preparing to rebalance group my-group in state PreparingRebalance with old generation 4 "
                      f"(__consumer_offsets-12) (reason: {reason})")
    cut = line[:line.index(" timed out")] + "..."
    evs, result = events(cut)
    (ev,) = evs
    check(ev, kind="RebalanceStarted", group="my-group", generation=4, state="PreparingRebalance",
          reason=f"Updating metadata for member {M1} during Stable; client reason: rebalance failed (reason: session…")
    assert result.unparsed == [("<lines>", 1, "truncated, kept RebalanceStarted with a cut reason", cut)]


def test_an_ellipsis_marks_a_cut_line():
    evs, result = events(LONG[:LONG.index("(__consumer_offsets") + 5] + "...")
    assert [e["kind"] for e in evs] == ["RebalanceStarted"]
    assert evs[0]["generation"] == 12 and evs[0]["reason"] is None
    assert result.unparsed[0][2] == "truncated, kept RebalanceStarted"


def test_malformed_lines_are_counted_and_kept_with_their_line_numbers():
    lines = [
        "",
        "\x00\x01\x02 binary garbage \xff",
        "[2024-03-05 20:21:14,681] INFO [ReplicaManager broker=1] Shrinking ISR (kafka.server.ReplicaManager)",
        kafka_line("Stabilized group g generation x (__consumer_offsets-3)"),  # a letter for a number
        kafka_line("Preparing to explode group g"),  # an unknown wording under a known first word
        f"INFO [GroupCoordinator 1]: {BARE} (kafka.coordinator.group.GroupCoordinator)",  # no date
        kafka_line(BARE, stamp="[2024-13-45 25:61:61,000]"),  # an impossible date
        kafka_line("Preparing to rebalance group g with old generation 1 (__consumer_offsets-3)"),
        "\tat kafka.coordinator.group.GroupCoordinator.handleJoinGroup(GroupCoordinator.scala:180)",
    ]
    evs, result = events(lines)
    # Lines 6 and 7 have no date of their own: they take line 5's, and say so (docs/log-reader.md).
    assert [(e["kind"], e["time"]) for e in evs] == [("MemberRemoved", T), ("MemberRemoved", T),
                                                     ("RebalanceStarted", T)]
    assert [r[ROW_FIELDS.index("time_inferred")] for r in result.rows] == [True, True, False]
    assert [(u[1], u[2]) for u in result.unparsed] == [
        (4, "unrecognised wording"), (5, "unrecognised wording"),
        (7, "impossible date 2024-13-45 25:61:61: time taken from the neighbouring lines")]
    assert result.counts["lines"] == 9 and result.counts["other"] == 4 and result.counts["coordinator"] == 5
    assert result.counts["inferred"] == 2 and result.counts["salvaged"] == 1


# -- files and chunks --------------------------------------------------------------------------------
def _sample_log(tmp_path, n_copies=40):
    run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=60_000, faults=(F.Crash("c-1", 10_000),)))
    noise = "[2026-01-01 00:00:01,000] INFO [ReplicaManager broker=0] Shrinking ISR (kafka.server.ReplicaManager)"
    lines = []
    for i in range(n_copies):
        for line in run.broker_log:
            if i % 3 == 1 and len(line) > 150:
                lines += [line[:100], line[100:]]  # wrapped
            else:
                lines.append(line)
            lines.append(noise)
    path = tmp_path / "server.log"
    path.write_text("\n".join(lines) + "\n")
    return path, lines


def test_chunks_read_exactly_what_the_whole_file_reads(tmp_path):
    path, lines = _sample_log(tmp_path)
    whole = parse_file(str(path))
    assert whole.unparsed == [] and whole.counts["lines"] == len(lines) and whole.counts["joined"] > 0
    for size in (1000, 4096, 7777):
        rows = []
        for p, start, end in chunk_plan([str(path)], chunk_bytes=size):
            rows += parse_chunk(p, start, end, count_newlines(p, 0, start)).rows
        assert rows == whole.rows, size


def test_a_record_wrapped_over_the_end_of_a_chunk_takes_its_continuations_from_the_next(tmp_path):
    """A record wrapped over 4 lines (the most joined), its first line the last of a chunk: that
    chunk reads the 3 continuation lines past its end and yields the record's events."""
    a, c = 100, LONG.index("provided)")
    pieces = [LONG[:a], LONG[a:(a + c) // 2], LONG[(a + c) // 2:c], LONG[c:]]
    path = tmp_path / "server.log"
    path.write_text("\n".join(pieces) + "\n")
    boundary = len(pieces[0]) + 1
    first, second = parse_chunk(str(path), 0, boundary, 0, ORIGIN), parse_chunk(str(path), boundary,
                                                                                  path.stat().st_size, 1, ORIGIN)
    reason = f"Adding new member {M1} with group instance id None; client reason: not provided"
    assert [r[:len(FIELDS)] + (r[LINE],) for r in first.rows] == [
        (T, "coordinator", "my-group", M1, "MemberAdded", 12, None, None, None, "dynamic", None, None, 1),
        (T, "coordinator", "my-group", None, "RebalanceStarted", 12, None, None, None, reason, None,
         "PreparingRebalance", 1)]
    assert first.unparsed == [] and first.counts["joined"] == 1
    assert second.rows == [] and second.unparsed == []
    whole = parse_file(str(path), ORIGIN)
    assert first.rows == whole.rows
    # The chunks' counts add up to the whole file's: 4 lines, none of another logger. The second
    # chunk sees the 3 continuations as other loggers' lines; the first takes them off its own.
    assert (first.counts["lines"], first.counts["other"], second.counts["lines"], second.counts["other"]) == (
        1, -3, 3, 3)
    assert (whole.counts["lines"], whole.counts["other"]) == (4, 0)


def test_tables_and_parquet_parts_name_their_columns(tmp_path):
    """events_table has the columns of ROW_FIELDS, unparsed_table those of UNPARSED_FIELDS, and
    write_part writes each as out/events/part-<index>.parquet and out/unparsed/part-<index>.parquet."""
    bad = kafka_line("Preparing to explode group g")
    result = parse_lines([kafka_line(BARE), bad], file="server.log", origin=ORIGIN)
    event = {"time": T, "source": "coordinator", "group": "my-group", "member": M1, "kind": "MemberRemoved",
             "generation": None, "topic": None, "partition": None, "error": None, "reason": "session_timeout",
             "value": None, "state": None, "file": "server.log", "line": 1, "seq": 1_000_000, "time_inferred": False,
             "log_source": "broker", "versions": None, "detail": None, "client": None, "instance": None}
    kept = {"file": "server.log", "line": 2, "problem": "unrecognised wording", "text": bad}
    assert result.events_table().column_names == list(ROW_FIELDS)
    assert result.unparsed_table().column_names == list(UNPARSED_FIELDS)
    assert result.events_table().to_pylist() == [event] and result.unparsed_table().to_pylist() == [kept]
    out = str(tmp_path / "out")
    fresh_output(out)
    write_part(result, out, 7)
    assert sorted(os.listdir(out)) == ["events", "unparsed"]
    assert os.listdir(os.path.join(out, "events")) == os.listdir(os.path.join(out, "unparsed")) == ["part-00007.parquet"]
    assert pq.read_table(os.path.join(out, "events", "part-00007.parquet")).to_pylist() == [event]
    assert pq.read_table(os.path.join(out, "unparsed", "part-00007.parquet")).to_pylist() == [kept]


def test_lines_given_without_a_file_name_are_named_lines():
    bad = kafka_line("Preparing to explode group g")
    result = parse_lines([bad])
    assert result.files == ["<lines>"] and result.unparsed == [("<lines>", 1, "unrecognised wording", bad)]


def test_rotated_and_compressed_files(tmp_path):
    path, _ = _sample_log(tmp_path, 2)
    (tmp_path / "server.log.1").write_text(path.read_text())
    with gzip.open(tmp_path / "server.log.2024-03-05-20.gz", "wt") as f:
        f.write(path.read_text())
    (tmp_path / "controller.log").write_text("not a coordinator log\n")
    files = expand_paths([tmp_path])
    assert [p.rsplit("/", 1)[1] for p in files] == ["server.log", "server.log.1", "server.log.2024-03-05-20.gz"]
    counts = [len(parse_file(p).rows) for p in files]
    assert counts[0] == counts[1] == counts[2] > 0


def test_missing_paths_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.log: no such file"):
        expand_paths([tmp_path / "nope.log"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="without server.log files"):
        expand_paths([tmp_path / "empty"])


# -- the simulator's own log, read back ------------------------------------------------------------
DECISIONS = {"RebalanceStarted", "GenerationStabilized", "AssignmentReceived", "GroupStable", "GroupEmpty",
             "MemberRemoved", "MemberAdded", "PendingMemberAdded", "PendingMemberExpired", "MemberReplaced"}


def _same(parsed, simulated, version):
    """The fields the line carries (the parser leaves the others None) equal the simulated ones.
    Two deliberate differences, both because Kafka's line cannot tell: a heartbeat expiry of a
    member still joining (kafkasim: new_member_timeout) logs as any expiry, and before 3.2 a
    poll-timeout LeaveGroup logs as any LeaveGroup."""
    for name, p, s in zip(FIELDS, parsed, simulated):
        if p is None or p == s:
            continue
        if name == "reason" and (p, s) in {("session_timeout", "new_member_timeout"), ("leave_group", "poll_timeout")}:
            if s == "poll_timeout" and version >= (3, 2):
                return False
            continue
        return False
    return True


def assert_read_back(broker_log, rows, version):
    simulated = [r for r in rows if r[1] == "coordinator" and r[4] in DECISIONS]
    result = parse_lines(broker_log)
    assert result.unparsed == [] and result.counts["ignored"] == 0
    used = set()
    for row in result.rows:
        parsed = row[:len(FIELDS)]
        if version < (0, 10, 1) and parsed[4] == "GroupEmpty":
            # Kafka 0.9-0.10.0 removes an emptied group (Dead) without a new generation; kafkasim
            # models the later behaviour (Empty, generation + 1) and writes the old line's text.
            match = next(i for i, s in enumerate(simulated) if s[4] == "GroupEmpty" and i not in used)
            assert (parsed[5], parsed[11]) == (simulated[match][5] - 1, "Dead")
        else:
            match = next((i for i, s in enumerate(simulated) if i not in used and _same(parsed, s, version)), None)
            assert match is not None, f"parsed {parsed} from line {row[LINE]} is not a simulated event"
        used.add(match)
    return Counter(s[4] for s in simulated), Counter(r[4] for r in result.rows)


def _scenario(version, static):
    has_poll_timeout = version not in ("0.9", "0.10.0")
    faults = [F.Crash("c-1", 20_000), F.ScaleIn(50_000, ("c-2",)), F.ScaleOut(70_000, 1)]
    if has_poll_timeout:
        faults.append(F.SlowProcessing("c-3", 90_000, duration_ms=40_000))
    faults.append(F.ScaleIn(150_000, ("c-3", "c-4")))
    if static:
        faults = [F.Restart("c-1", 20_000, delay_ms=2_000), F.Crash("c-2", 40_000), F.ScaleIn(100_000, ("c-1", "c-3"))]
    return Scenario(kafka_version=version, members=3, topics={"t": 4}, duration_ms=180_000, faults=tuple(faults),
                    consumer={"max.poll.interval.ms": 20_000} if has_poll_timeout else {}, static_membership=static)


@pytest.mark.parametrize("version", KAFKA_VERSIONS)
def test_simulated_logs_read_back_into_the_simulated_events(version):
    v = tuple(int(p) for p in version.split("."))
    for static in (False, True) if v >= (2, 3) else (False,):
        run = simulate(_scenario(version, static))
        simulated, parsed = assert_read_back(run.broker_log, run.rows, v)
        # Every rebalance, generation, assignment and empty group is in the log of every version.
        for kind in ("RebalanceStarted", "GenerationStabilized", "AssignmentReceived", "GroupStable", "GroupEmpty"):
            assert parsed[kind] == simulated[kind] > 0, kind
        # Removals are logged at INFO from 0.11.0.1 (heartbeat expiry) and 2.2 (LeaveGroup).
        if v >= (2, 2):
            assert parsed["MemberRemoved"] == simulated["MemberRemoved"] > 0
        if v >= (3, 0):  # KIP-394's member-id round trip is logged at INFO from 3.0
            assert parsed["PendingMemberAdded"] == simulated["PendingMemberAdded"]
        if static:
            assert parsed["MemberReplaced"] == simulated["MemberReplaced"] == 1


@pytest.mark.parametrize("version", ["2.8", "3.7", "4.0", "4.1", "4.2"])
def test_coordinator_timeouts_read_back(version):
    """Lines a Scenario rarely produces, driven on the coordinator directly (4.0: the new
    coordinator's wording): a member that never sends SyncGroup, one that heartbeats but does not
    rejoin, and a pending member that never comes back."""
    v = tuple(int(p) for p in version.split("."))
    sim, coord, ids, leader = stable_group(2, kafka_version=version)
    follower = next(i for i in ids if i != leader)
    join(coord, "g", leader)  # the leader rejoins; the follower only heartbeats
    for _ in range(25):
        sim.advance(3_000)
        coord.heartbeat("g", follower, 1)
    # Group h: b never sends SyncGroup; sessions outlast the rebalance timeout, so the sync timer fires first.
    a, b = (two_step_join(coord, "h", session=100_000, rebalance=30_000) for _ in range(2))
    sim.advance(0)
    coord.sync_group("h", a.member_id, 1, {})
    first = join(coord, "p")  # group p: MEMBER_ID_REQUIRED, never comes back
    assert first.error.name == "MEMBER_ID_REQUIRED"
    sim.advance(120_000)
    simulated, parsed = assert_read_back(coord.broker_log, sim.events.rows, v)
    removed = Counter((r[2], r[9]) for r in parse_lines(coord.broker_log).rows if r[4] == "MemberRemoved")
    # g: the follower for not rejoining, then the leader, which the test stops driving, by session expiry;
    # h: b for not syncing, then a for not rejoining the rebalance that caused.
    assert removed == {("g", "rebalance_timeout"): 1, ("g", "session_timeout"): 1, ("h", "sync_timeout"): 1,
                       ("h", "rebalance_timeout"): 1}
    assert parsed["PendingMemberExpired"] == simulated["PendingMemberExpired"] == 1


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
def test_4x_classic_wording_written_by_broker_log_reads_back(version):
    """Every classic-group line BrokerLog writes in the 4.x wording (GroupMetadataManager.java at 4.0.0,
    4.1.0, 4.2.0-rc1), read back into its event: none unparsed, none ignored."""
    from kafkasim.coordinator.broker_log import BrokerLog

    log = BrokerLog(version, broker_id=2)
    log.member_id_required(1_000, "g", "Empty", M1)
    log.pending_member_joined(1_001, "g", "Empty", M1)
    log.preparing_rebalance(1_001, "g", "PreparingRebalance", 0, log.reason_new_member(M1, None, None))
    log.stabilized(4_001, "g", 1, 1)
    log.assignment_received(4_002, "g", 1, M1, 1, 0)
    log.static_member_added(5_000, "g", "Stable", "i-2", M2, None)
    log.preparing_rebalance(5_000, "g", "PreparingRebalance", 1, log.reason_new_member(M2, "i-2", "joining"))
    log.static_member_added(6_000, "g", "PreparingRebalance", "i-2", "i-2-new", M2)
    log.removed_not_rejoined(7_000, "g", [M1])
    log.member_failed(8_000, "g", "i-2-new")
    log.preparing_rebalance(8_000, "g", "PreparingRebalance", 2, log.reason_heartbeat_expiration("i-2-new"))
    log.member_left(9_000, "g", M2, None, "the consumer is being closed", "")
    log.preparing_rebalance(9_000, "g", "PreparingRebalance", 2, log.reason_leave_group(M2, None))
    log.pending_member_expired(9_500, "g", "c-9")
    log.group_empty(10_000, "g", 3)
    assert all(line.startswith("[2026-01-01 00:00:") and " INFO [GroupCoordinator id=2 topic=__consumer_offsets "
               "partition=3] " in line and line.endswith(" (org.apache.kafka.coordinator.group.GroupMetadataManager)")
               for line in log.lines)
    result = parse_lines(log.lines)
    assert result.unparsed == [] and result.counts["ignored"] == 0 and result.counts["coordinator"] == len(log.lines)
    got = [(r[0], r[4], r[3], r[5], r[9]) for r in result.rows]
    assert got == [
        (1_000, "PendingMemberAdded", M1, None, None),
        (1_001, "MemberAdded", M1, None, "dynamic"),
        (1_001, "RebalanceStarted", None, 0, f"Adding new member {M1} with group instance id null; client reason: "
                                             "not provided"),
        (4_001, "GenerationStabilized", None, 1, None),
        (4_002, "AssignmentReceived", M1, 1, None),
        (4_002, "GroupStable", M1, 1, None),
        (5_000, "MemberAdded", M2, None, "static"),
        (5_000, "RebalanceStarted", None, 1, f"Adding new member {M2} with group instance id i-2; client reason: "
                                             "joining"),
        (6_000, "MemberReplaced", None, None, M2),
        (7_000, "MemberRemoved", M1, None, "rebalance_timeout"),
        (8_000, "MemberRemoved", "i-2-new", None, "session_timeout"),
        (8_000, "RebalanceStarted", None, 2, "removing member i-2-new on heartbeat expiration."),
        (9_000, "MemberRemoved", M2, None, "leave_group"),
        (9_000, "RebalanceStarted", None, 2, f"explicit `LeaveGroup` request for ({M2}) members."),
        (9_500, "PendingMemberExpired", "c-9", None, None),
        (10_000, "GroupEmpty", None, 3, None),
    ]


# -- consumer groups (KIP-848) ---------------------------------------------------------------------
# One line of each wording, written out by hand from GroupMetadataManager.java at 4.0.0, 4.1.1 and
# 4.2.0-rc1 (and 3.7.0 / 3.8.0 / 3.9.1 for the early-access wording), with Kafka 4 client member ids.
K1, K2 = "ZVqm4PEeTbW1d2m6CGbOqw", "lT3cB-2_Qa6k8yY0hAnJ7g"


def cg_line(message, level="INFO", stamp=STAMP):
    return kafka_line(message, NEW_PREFIX, NEW, stamp=stamp, level=level)


@pytest.mark.parametrize("message,expected", [
    # joins: getOrMaybeSubscribeDynamicConsumerGroupMember / getOrMaybeSubscribeStaticConsumerGroupMember
    (f"[GroupId my-group] Member {K1} joins the consumer group using the consumer protocol.",
     [("MemberJoined", K1, None, None, None, None)]),
    (f"[GroupId my-group] Static member {K1} with instance id i-1 joins the consumer group using the consumer "
     f"protocol.", [("MemberJoined", K1, None, "static", None, None)]),
    (f"[GroupId my-group] Member {M1} joins the consumer group using the classic protocol.",
     [("MemberJoined", M1, None, "classic", None, None)]),
    (f"[GroupId my-group] Static member {M1} with instance id i-1 joins the consumer group using the classic "
     f"protocol.", [("MemberJoined", M1, None, "static_classic", None, None)]),
    (f"[GroupId my-group] Static member with instance id i-1 re-joins the consumer group using the consumer protocol. "
     f"Created a new member {K2} to replace the existing member {K1}.",
     [("MemberReplaced", K2, None, K1, None, None)]),
    # throwIfInstanceIdIsUnreleased / throwIfInstanceIdIsFenced: the heartbeat's error
    (f"[GroupId my-group] Static member {K2} with instance id i-1 cannot join the group because the instance id is "
     f"owned by member {K1}.", [("ConsumerGroupHeartbeat", K2, None, None, 0.0, "UNRELEASED_INSTANCE_ID")]),
    (f"[GroupId my-group] Static member {K2} with instance id i-1 is fenced by existing member {K1}.",
     [("ConsumerGroupHeartbeat", K2, None, None, None, "FENCED_INSTANCE_ID")]),
    # consumerGroupLeave
    (f"[GroupId my-group] Member {K1} left the consumer group.",
     [("MemberRemoved", K1, None, "leave_group", None, None)]),
    (f"[GroupId my-group] Static member {K1} with instance id i-1 temporarily left the consumer group.",
     [("MemberLeftTemporarily", K1, None, None, -2.0, None)]),
    (f"[GroupId my-group] Static member {K1} with instance id i-1 left the consumer group.",
     [("MemberRemoved", K1, None, "leave_group", None, None)]),
    # consumerGroupFenceMemberOperation (the session timer) and scheduleConsumerGroupRebalanceTimeout
    (f"[GroupId my-group] Member {K1} fenced from the group because the member session expired.",
     [("MemberFenced", K1, None, "session_timeout", None, None),
      ("MemberRemoved", K1, None, "session_timeout", None, None)]),
    (f"[GroupId my-group] Member {K1} fenced from the group because it failed to transition from epoch 7 within "
     f"300000ms.", [("MemberFenced", K1, None, "rebalance_timeout", 7.0, None),
                    ("MemberRemoved", K1, None, "rebalance_timeout", 7.0, None)]),
    (f"[GroupId my-group] Member {M1} fenced from the group because the classic member failed to join within the "
     f"rebalance timeout.", [("MemberFenced", M1, None, "rebalance_timeout", None, None),
                             ("MemberRemoved", M1, None, "rebalance_timeout", None, None)]),
    (f"[GroupId my-group] Member {M1} fenced from the group because the member failed to sync within timeout.",
     [("MemberFenced", M1, None, "sync_timeout", None, None), ("MemberRemoved", M1, None, "sync_timeout", None, None)]),
    # updateSubscriptionMetadata, consumerGroupFenceMembers, handleRegularExpressionsResult: 4.0, then 4.1+
    ("[GroupId my-group] Bumped group epoch to 8.", [("GroupEpochBumped", None, 8, None, 8.0, None)]),
    ("[GroupId my-group] Bumped group epoch to 8 with metadata hash -5062412741474839817.",
     [("GroupEpochBumped", None, 8, None, 8.0, None)]),
    ("[GroupId my-group] Bumped group epoch to 1 with metadata hash 0.",
     [("GroupEpochBumped", None, 1, "new_group", 1.0, None)]),
    # updateTargetAssignment: INFO, the DEBUG variant with the assignment, and the ERROR
    ("[GroupId my-group] Computed a new target assignment for epoch 8 with 'uniform' assignor in 3ms.",
     [("TargetAssignmentComputed", None, 8, "uniform", None, None)]),
    (f"[GroupId my-group] Computed a new target assignment for epoch 8 with 'range' assignor in 0ms: "
     f"{{{K1}=MemberAssignmentImpl(partitions={{...}})}}.",
     [("TargetAssignmentComputed", None, 8, "range", None, None)]),
    ("[GroupId my-group] Failed to compute a new target assignment for epoch 9: no luck.",
     [("ConsumerGroupHeartbeat", None, None, None, None, "UNKNOWN_SERVER_ERROR")]),
    # onLoaded / onUnloaded
    ("Loaded consumer group my-group with 3 members.", [("GroupLoaded", None, None, None, 3, None)]),
    ("[GroupId=my-group] Unloaded group metadata for group epoch 9.", [("GroupDead", None, 9, "unloaded", None, None)]),
    # conversions between protocols
    ("[GroupId my-group] Converted the classic group to a consumer group.",
     [("GroupConverted", None, None, "online_upgrade", None, None)]),
    ("[GroupId my-group] Converted the empty classic group to a consumer group.",
     [("GroupConverted", None, None, "offline_upgrade", None, None)]),
    ("[GroupId my-group] Converted the consumer group to a classic group.",
     [("GroupConverted", None, None, "online_downgrade", None, None)]),
    ("[GroupId my-group] Converted the empty consumer group to a classic group.",
     [("GroupConverted", None, None, "offline_downgrade", None, None)]),
    ("Cannot upgrade classic group my-group to consumer group because online upgrade is disabled.",
     [("GroupConversionRefused", None, None, "upgrade_disabled", None, None)]),
    ("Cannot upgrade classic group my-group to consumer group because the group does not use the consumer embedded "
     "protocol.", [("GroupConversionRefused", None, None, "upgrade_not_consumer_protocol", None, None)]),
    ("Cannot upgrade classic group my-group to consumer group because the group size exceeds the consumer group "
     "maximum size.", [("GroupConversionRefused", None, None, "upgrade_group_too_large", None, None)]),
    ("Cannot upgrade classic group my-group to consumer group because the embedded consumer protocol is malformed: "
     "Error reading field 'topics': java.nio.BufferUnderflowException.",
     [("GroupConversionRefused", None, None, "upgrade_malformed_protocol", None, None)]),
    ("Cannot upgrade classic group my-group to consumer group: Unsupported version 4.",
     [("GroupConversionRefused", None, None, "upgrade_unsupported_version", None, None)]),
    ("Cannot downgrade consumer group my-group to classic group because the online downgrade is disabled.",
     [("GroupConversionRefused", None, None, "downgrade_disabled", None, None)]),
    ("Cannot downgrade consumer group my-group to classic group because its group size is greater than classic group "
     "max size.", [("GroupConversionRefused", None, None, "downgrade_group_too_large", None, None)]),
    ("Cannot downgrade the consumer group my-group: fail to parse the Consumer Protocol consumer.",
     [("GroupConversionRefused", None, None, "downgrade_malformed_protocol", None, None)]),
    (f"Preparing to rebalance group my-group in state PreparingRebalance with old generation 12 (reason: Downgrade "
     f"group my-group from consumer to classic for member leaving.).",
     [("RebalanceStarted", None, 12, "Downgrade group my-group from consumer to classic for member leaving.", None,
       None)]),
    # classic members inside a consumer group: classicGroupJoinToConsumerGroup, classicGroupLeaveToConsumerGroup
    (f"[GroupId my-group] Dynamic member with unknown member id joins the consumer group. Created a new member id {M1} "
     f"and requesting the member to rejoin with this id.", [("PendingMemberAdded", M1, None, None, None, None)]),
    (f"[GroupId my-group] Dynamic member {M1} has left group through explicit `LeaveGroup` request; client reason: "
     f"the consumer is being closed", [("MemberRemoved", M1, None, "leave_group", None, None)]),
    (f"[GroupId my-group] Static member {M1} with instance id i-1 has left group through explicit `LeaveGroup` "
     f"request; client reason: consumer poll timeout has expired. This means the time between subsequent calls to "
     f"poll() was longer than the configured max.poll.interval.ms", [("MemberRemoved", M1, None, "poll_timeout", None,
                                                                      None)]),
    # early access (3.7 - 3.9): other words for the same events
    (f"[GroupId my-group] Member {K1} joins the consumer group.", [("MemberJoined", K1, None, None, None, None)]),
    (f"[GroupId my-group] Static member {K2} with instance id i-1 re-joins the consumer group.",
     [("MemberReplaced", K2, None, None, None, None)]),  # 3.7
    (f"[GroupId my-group] Static member with unknown member id and instance id i-1 re-joins the consumer group. "
     f"Created a new member {K2} to replace the existing member {K1}.", [("MemberReplaced", K2, None, K1, None, None)]),
    (f"[GroupId my-group] Static Member {K1} with instance id i-1 temporarily left the consumer group.",
     [("MemberLeftTemporarily", K1, None, None, -2.0, None)]),
    (f"[GroupId my-group] Static Member {K1} with instance id i-1 left the consumer group.",
     [("MemberRemoved", K1, None, "leave_group", None, None)]),
    (f"[GroupId my-group] Member {K1} fenced from the group because its session expired.",
     [("MemberFenced", K1, None, "session_timeout", None, None),
      ("MemberRemoved", K1, None, "session_timeout", None, None)]),
    (f"[GroupId my-group] Member {K1} fenced from the group because it failed to revoke partitions within 45000ms.",
     [("MemberFenced", K1, None, "rebalance_timeout", None, None),
      ("MemberRemoved", K1, None, "rebalance_timeout", None, None)]),
    (f"[GroupId my-group] Member {K1} fenced from the group because the member session expired..",
     [("MemberFenced", K1, None, "session_timeout", None, None),
      ("MemberRemoved", K1, None, "session_timeout", None, None)]),
    (f"[GroupId my-group] Static member {K2} with instance id i-1 cannot join the group because the instance id is is "
     f"owned by member {K1}.", [("ConsumerGroupHeartbeat", K2, None, None, 0.0, "UNRELEASED_INSTANCE_ID")]),
    (f"[GroupId my-group] Computed a new target assignment for epoch 8 with 'uniform' assignor: {{{K1}=...}}.",
     [("TargetAssignmentComputed", None, 8, "uniform", None, None)]),
])
def test_consumer_group_lines(message, expected):
    level = "ERROR" if message.startswith("[GroupId my-group] Failed") else \
        "WARN" if "malformed" in message or "Unsupported" in message else "INFO"
    evs = only(cg_line(message, level))
    assert [(e["kind"], e["member"], e["generation"], e["reason"], e["value"], e["error"]) for e in evs] == expected
    for e in evs:  # Kafka logs no consumer-group state; the classic lines' states are fixed by their code
        check(e, time=T, source="coordinator", group="my-group",
              state={"GroupDead": "Dead", "RebalanceStarted": "PreparingRebalance"}.get(e["kind"]))


def test_consumer_group_lines_without_an_event():
    evs, result = events(cg_line("[GroupId my-group] Scanned 42 topics to refresh regular expressions [orders-.*, "
                                 "audit\\..*] in 1ms."))
    assert evs == [] and result.unparsed == [] and result.counts["ignored"] == 1


def _reasons(lines):
    return [(e["group"], e["generation"], e["reason"]) for e in only([cg_line(x) for x in lines])
            if e["kind"] == "GroupEpochBumped"]


def test_the_cause_of_an_epoch_bump_is_read_from_the_line_before_it():
    """A bump right after a join, a leave or fence, or a regex scan of the same group was caused by it
    (Kafka logs them in one operation); other causes (a subscription or metadata change) are not in
    the log, and the reason stays empty."""
    assert _reasons([
        f"[GroupId my-group] Member {K1} joins the consumer group using the consumer protocol.",
        "[GroupId my-group] Bumped group epoch to 1.",
        "[GroupId my-group] Computed a new target assignment for epoch 1 with 'uniform' assignor in 0ms.",
        f"[GroupId my-group] Member {K2} joins the consumer group using the consumer protocol.",
        f"[GroupId other] Member {K1} left the consumer group.",  # another group's line in between
        "[GroupId my-group] Bumped group epoch to 2 with metadata hash 7.",
        "[GroupId other] Bumped group epoch to 5.",
        f"[GroupId my-group] Member {K2} fenced from the group because the member session expired.",
        "[GroupId my-group] Bumped group epoch to 3.",
        "[GroupId my-group] Scanned 3 topics to refresh regular expressions [foo.*] in 0ms.",
        "[GroupId my-group] Bumped group epoch to 4.",
        "[GroupId my-group] Bumped group epoch to 5.",  # a member's new subscription: not in the log
        f"[GroupId my-group] Static member with instance id i-1 re-joins the consumer group using the consumer "
        f"protocol. Created a new member {K2} to replace the existing member {K1}.",
        "[GroupId my-group] Bumped group epoch to 6.",
    ]) == [("my-group", 1, "new_group"), ("my-group", 2, "member_joined"), ("other", 5, "member_removed"),
           ("my-group", 3, "member_removed"), ("my-group", 4, "regex_resolved"), ("my-group", 5, None),
           ("my-group", 6, None)]
    late = [cg_line(f"[GroupId g] Member {K1} joins the consumer group using the consumer protocol."),
            cg_line("[GroupId g] Bumped group epoch to 3.", stamp="[2024-03-05 20:21:16,681]")]  # 2 s later
    assert [e["reason"] for e in only(late) if e["kind"] == "GroupEpochBumped"] == [None]


def test_a_wrapped_bump_line_keeps_its_cause():
    join_ = cg_line(f"[GroupId my-group] Member {K1} joins the consumer group using the consumer protocol.")
    bump = cg_line("[GroupId my-group] Bumped group epoch to 2 with metadata hash -5062412741474839817.")
    evs, result = events([join_, bump[:150], bump[150:]])
    assert [(e["kind"], e["reason"]) for e in evs] == [("MemberJoined", None), ("GroupEpochBumped", "member_joined")]
    assert result.counts["joined"] == 1 and result.unparsed == []


@pytest.mark.parametrize("between", [
    "[GroupId g] Computed a new target assignment for epoch 1 with 'uniform' assignor in 0ms.",
    f"[GroupId g] Static member {K2} with instance id i-2 is fenced by existing member {K1}.",
    f"[GroupId g] Static member {K2} with instance id i-2 cannot join the group because the instance id is "
    f"owned by member {K1}.",
    f"[GroupId g] Static member {K2} with instance id i-2 temporarily left the consumer group.",
    f"[GroupId g] Dynamic member with unknown member id joins the consumer group. Created a new member id {K2} "
    "and requesting the member to rejoin with this id.",
    "[GroupId g] Converted the classic group to a consumer group.",
    "[GroupId g] Computed a new target assignment for epoch 1 with "
    "'org.apache.kafka.coordinator.group.assignor.SimpleAssignor@1b2c3d' assignor in 0ms.",
])
def test_an_epoch_bump_after_another_line_of_its_group_than_the_cause_has_no_cause(between):
    """The cause is read from the group's line right before the bump only: a join followed by another line
    of the same group (a target assignment, a refused or fenced static member, a pending member, a
    conversion) tells nothing of the next bump."""
    assert _reasons([f"[GroupId g] Member {K1} joins the consumer group using the consumer protocol.", between,
                     "[GroupId g] Bumped group epoch to 2."]) == [("g", 2, None)]


def test_a_share_group_epoch_bump_right_after_a_share_member_joins_is_caused_by_that_join():
    """KIP-932: a share group's bump shares the consumer groups' wording, and its cause is read the
    same way from the line before it (GroupMetadataManager.shareGroupHeartbeat logs the join, then bumps)."""
    assert _reasons([
        f"[GroupId s] Member {K1} joins the share group using the share protocol.",
        "[GroupId s] Bumped group epoch to 1.",
        f"[GroupId s] Member {K2} joins the share group using the share protocol.",
        "[GroupId s] Bumped group epoch to 2.",
        f"[GroupId s] Member {K2} left the share group.",
        "[GroupId s] Bumped group epoch to 3.",
    ]) == [("s", 1, "new_group"), ("s", 2, "member_joined"), ("s", 3, "member_removed")]


# -- consumer groups: the simulator's log read back -------------------------------------------------
#: What the coordinator logs about consumer groups, and the fields each line carries.
CG_KINDS = {"MemberJoined": ("member", "reason"), "MemberReplaced": ("member", "reason"),
            "MemberLeftTemporarily": ("member", "value"), "MemberFenced": ("member", "reason"),
            "MemberRemoved": ("member", "reason"), "GroupEpochBumped": ("generation", "value"),
            "TargetAssignmentComputed": ("generation", "reason"), "GroupLoaded": ("value",),
            "ConsumerGroupHeartbeat": ("member", "error"), "GroupConverted": ("reason",),
            "GroupConversionRefused": ("reason",)}
LOGGED_ERRORS = ("UNRELEASED_INSTANCE_ID", "FENCED_INSTANCE_ID", "UNKNOWN_SERVER_ERROR")
#: Epoch-bump causes the log shows (by the line before the bump); the others read as None.
SHOWN_CAUSES = ("new_group", "member_joined", "member_removed", "regex_resolved")


def _logged(row):
    return row[1] == "coordinator" and row[4] in CG_KINDS and (row[4] != "ConsumerGroupHeartbeat" or
                                                             row[8] in LOGGED_ERRORS)


def _carried(row):
    """The fields of an event that its line carries: time, group, kind and CG_KINDS[kind] (a
    rebalance timeout's epoch too; an epoch bump's cause only when SHOWN_CAUSES has it)."""
    d = dict(zip(FIELDS, row))
    fields = CG_KINDS[d["kind"]]
    out = {"time": d["time"], "group": d["group"], "kind": d["kind"], **{f: d[f] for f in fields}}
    if d["kind"] == "GroupEpochBumped":
        out["reason"] = d["reason"] if d["reason"] in SHOWN_CAUSES else None
    if d["kind"] in ("MemberFenced", "MemberRemoved") and d["reason"] == "rebalance_timeout":
        out["value"] = d["value"]
    return tuple(sorted(out.items()))


def assert_consumer_groups_read_back(broker_log, rows):
    """Every consumer-group event the log carries, read back exactly: the same multiset of
    (time, group, kind, carried fields), nothing unparsed, and every parsed field that the
    comparison leaves out either None or equal to the simulated one."""
    result = parse_lines(broker_log)
    assert result.unparsed == [] and result.counts["coordinator"] == len(broker_log)
    parsed = [r[:len(FIELDS)] for r in result.rows]
    simulated = [r for r in rows if _logged(r)]
    assert Counter(map(_carried, parsed)) == Counter(map(_carried, simulated))
    for p in parsed:
        assert any(all(a is None or a == b for a, b in zip(p, s)) for s in simulated), p
    return Counter(r[4] for r in simulated), Counter(r[4] for r in parsed)


def _consumer_scenario(version, static):
    if static:
        faults = (F.Restart("c-1", 20_000, delay_ms=5_000, graceful=True),  # rolling restart: leave -2, come back
                  F.Restart("c-2", 40_000, delay_ms=5_000),                 # crash: its instance id is not released
                  F.ScaleIn(150_000, ("c-3",)), F.ScaleOut(160_000, 1))
    else:
        faults = (F.Crash("c-1", 20_000), F.Pause("c-2", 40_000, 60_000),  # a GC pause beyond the session timeout
                  F.SlowProcessing("c-3", 120_000, duration_ms=40_000),      # beyond max.poll.interval.ms: leave
                  F.ScaleOut(200_000, 2), F.ScaleIn(230_000, ("c-4",)))
    return Scenario(kafka_version=version, members=4, topics={"t": 6}, duration_ms=300_000, faults=faults,
                    consumer={"group.protocol": "consumer", "max.poll.interval.ms": 30_000},
                    static_membership=static)


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
@pytest.mark.parametrize("static", [False, True])
def test_simulated_consumer_group_logs_read_back(version, static):
    run = simulate(_consumer_scenario(version, static))
    simulated, parsed = assert_consumer_groups_read_back(run.broker_log, run.rows)
    # GroupConverted: the empty classic group that holds the starting offsets becomes a consumer group
    expected = {"GroupConverted", "MemberJoined", "GroupEpochBumped", "TargetAssignmentComputed", "MemberFenced",
                "MemberRemoved"}
    if static:
        expected |= {"MemberLeftTemporarily", "MemberReplaced", "ConsumerGroupHeartbeat"}
    assert set(simulated) == expected and parsed == simulated
    removed = Counter(r[9] for r in parse_lines(run.broker_log).rows if r[4] == "MemberRemoved")
    if static:  # c-2 crashed (fenced when its session expires); c-3 left with -2, fenced the same way
        assert removed == {"session_timeout": 2}
    else:  # c-1 crashed and c-2 paused (sessions expired), c-3 stalled and c-4 scaled in (both left)
        assert removed == {"session_timeout": 2, "leave_group": 2}
    bumps = [r for r in parse_lines(run.broker_log).rows if r[4] == "GroupEpochBumped"]
    assert [r[5] for r in bumps] == list(range(1, len(bumps) + 1))  # every epoch, in order
    assert bumps[0][9] == "new_group" and all(r[9] is not None for r in bumps)


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
def test_consumer_group_coordinator_lines_read_back(version):
    """Lines a Scenario rarely produces, driven on the coordinator: a rebalance timeout, a fenced
    instance id, a regex subscription resolved, and a group restored as the coordinator loads it."""
    from kafkasim import GroupCoordinator, Simulation

    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version=version, topics={"foo": 6, "food": 2})

    def hb(member, epoch, **fields):
        return coord.consumer_group_heartbeat("g", member_id=member, member_epoch=epoch, **fields)

    hb("m1", 0, rebalance_timeout_ms=10_000, subscribed_topic_names=["foo"], owned_partitions={}, instance_id="i1")
    sim.advance(1000)
    hb("m2", 0, rebalance_timeout_ms=10_000, subscribed_topic_regex="foo.*", owned_partitions={})
    sim.advance(1000)
    assert hb("m9", 1, instance_id="i1").error.name == "FENCED_INSTANCE_ID"
    for t in range(2_000, 14_000, 3_000):  # m1 keeps heartbeating but never revokes
        sim.advance(t - sim.now)
        hb("m1", 1, instance_id="i1")
    sim.advance(20_000)
    coord.load_consumer_group("h", group_epoch=4, members={"x": {"member_epoch": 4, "subscribed_topic_names": ["foo"],
                                                                 "assigned": {"foo": [0, 1]}}})
    simulated, parsed = assert_consumer_groups_read_back(coord.broker_log, sim.events.rows)
    assert parsed == simulated
    assert parsed["GroupLoaded"] == 1 and parsed["ConsumerGroupHeartbeat"] == 1
    fenced = [r for r in parse_lines(coord.broker_log).rows if r[4] == "MemberFenced"]
    assert [(r[3], r[9], r[10]) for r in fenced] == [("m1", "rebalance_timeout", 1.0)]
    assert any("Scanned 2 topics to refresh regular expressions [foo.*] in 0ms." in x for x in coord.broker_log)


def test_a_failed_heartbeat_leaves_a_join_in_the_log_as_in_kafka():
    """Kafka logs the join and the bump before the assignor runs: when it throws, the log tells of
    a member that joined although the heartbeat failed and nothing was stored. The parser reads
    what the log says; the simulator records the failed heartbeat only."""
    from kafkasim import GroupCoordinator, Simulation
    from kafkasim.coordinator.assignor import PartitionAssignorException

    class Broken:
        name = "broken"

        def assign(self, members, topics):
            raise PartitionAssignorException("no luck")

    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, kafka_version="4.1", topics={"foo": 6}, group_consumer_assignors=[Broken()])
    coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                   subscribed_topic_names=["foo"], owned_partitions={})
    parsed = [(r[4], r[3], r[5], r[9], r[8]) for r in parse_lines(coord.broker_log).rows]
    assert parsed == [("MemberJoined", "m1", None, None, None), ("GroupEpochBumped", None, 1, "new_group", None),
                      ("ConsumerGroupHeartbeat", None, None, None, "UNKNOWN_SERVER_ERROR")]
    assert [(r[4], r[3], r[8]) for r in sim.events.rows] == [("ConsumerGroupHeartbeat", "m1", "UNKNOWN_SERVER_ERROR")]


def test_every_join_and_every_split_of_a_file_is_counted():
    """Two wrapped records in one read: `joined` counts both; two fused lines: `split` counts each cut."""
    head = "2024-03-05 20:21:14,681 INFO [GroupCoordinator 1]: "
    wrapped = [f"{head}Member {M1} in group my-group has", "failed, removing it from the group"] * 2
    evs, result = events(wrapped)
    assert [e["kind"] for e in evs] == ["MemberRemoved"] * 2 and result.counts["joined"] == 2
    fused = kafka_line(BARE) + " " + kafka_line(BARE)
    evs, result = events([fused, fused])
    assert [r[LINE] for r in result.rows] == [1, 1, 2, 2] and result.counts["split"] == 2


def test_results_extend_with_the_files_they_have_not_named_yet():
    from kafkasim.analysis.log_parser import ParseResult

    a, b = ParseResult(files=["a.log"]), ParseResult(files=["a.log", "b.log"])
    a.extend(b)
    assert a.files == ["a.log", "b.log"]


def test_fresh_output_names_up_to_three_foreign_files_and_reads_only_the_out_folder(tmp_path, monkeypatch):
    out = tmp_path / "out"
    (out / "events").mkdir(parents=True)
    (out / "events" / "part-00000.parquet").write_bytes(b"")
    monkeypatch.chdir(tmp_path)  # the working folder holds a file kafkasim did not write: never looked at
    (tmp_path / "notes.txt").write_text("mine")
    fresh_output(str(out))
    for name in ("a.csv", "b.csv", "c.csv", "d.csv"):
        (out / "events" / name).write_text("")
    with pytest.raises(ValueError, match=r"holds files kafkasim did not write \(a\.csv, b\.csv, c\.csv\); "
                                         r"choose another --out folder$"):
        fresh_output(str(out))


def test_a_result_with_nothing_kept_aside_gives_an_empty_table_of_the_four_typed_columns():
    import pyarrow as pa
    table = parse_lines([kafka_line(BARE)], origin=ORIGIN).unparsed_table()
    assert table.num_rows == 0
    assert table.schema == pa.schema([("file", pa.string()), ("line", pa.int64()), ("problem", pa.string()),
                                      ("text", pa.string())])


def test_a_lone_surrogate_in_a_kept_line_is_replaced_in_the_table():
    line = kafka_line("Preparing to explode group g\ud800")
    result = parse_lines([line], origin=ORIGIN)
    assert result.unparsed == [("<lines>", 1, "unrecognised wording", line)]
    assert result.unparsed_table().to_pylist() == [
        {"file": "<lines>", "line": 1, "problem": "unrecognised wording", "text": line.replace("\ud800", "?")}]


@pytest.mark.parametrize("generation, named", [
    ("1234567890123456789", "1,234,567,890,123,456,789"),  # 19 characters: read, then out of an int's range
    ("12345678901234567890", "of more than 18 digits"),     # 20: not even read as a number
])
def test_a_generation_no_column_holds_is_left_empty_and_named(generation, named):
    line = kafka_line(f"Preparing to rebalance group my-group with old generation {generation} (__consumer_offsets-12)")
    (ev,), result = events([line])
    check(ev, kind="RebalanceStarted", group="my-group", generation=None, state="PreparingRebalance")
    assert result.unparsed == [("<lines>", 1, f"generation {named} out of range (a 32-bit integer): left empty", line)]


@pytest.mark.parametrize("epoch, value", [(2 ** 53, float(2 ** 53)), (2 ** 53 + 2, None)])
def test_a_value_is_kept_up_to_2_to_the_53_inclusive_the_largest_integer_a_double_holds_exactly(epoch, value):
    line = cg_line(f"[GroupId g] Bumped group epoch to {epoch}.")
    (ev,), result = events([line])
    assert (ev["kind"], ev["generation"], ev["value"]) == ("GroupEpochBumped", None, value)
    (problem,) = [u[2] for u in result.unparsed]
    left_out = [p.split(" ")[0] for p in problem.split("; ")]
    assert left_out == (["generation"] if value is not None else ["generation", "value"])


def test_the_former_module_still_gives_every_public_name():
    """`kafkasim.analysis.log_parser` was the reader's one module; notebooks and scripts that import
    from it keep working, on the very objects of `kafkasim.analysis.logs`."""
    from kafkasim.analysis import log_parser, logs

    assert log_parser.__all__ == logs.__all__
    assert all(getattr(log_parser, name) is getattr(logs, name) for name in logs.__all__)
    assert log_parser.parse_lines([kafka_line("Stabilized group g generation 5 (__consumer_offsets-3)")]).rows[0][4] \
        == "GenerationStabilized"
