"""The broker log round trip, counted: for every Kafka version the simulator models, each coordinator
event that version's broker writes a line about is read back by the log parser, as many times as it
was simulated, kind by kind.

tests/test_log_parser.py checks that every parsed event was simulated; this file checks the other
direction: nothing the log shows is lost. Which simulated events a version's log shows is written
out below by hand from Kafka's coordinator code (GroupCoordinator.scala up to 3.9,
GroupMetadataManager.java from 4.0; docs/broker-log-parser.md), not from kafkasim's BrokerLog: the
level each line is logged at, and the method that logs it. The scenarios cover, in every version,
session timeouts, LeaveGroups, poll timeouts (from 0.10.1, KIP-62), scale-outs, static members (from
2.3, KIP-345) and, from 4.0, consumer groups (KIP-848), dynamic and static.
"""

from collections import Counter

import pytest

from kafkasim import Scenario, simulate
from kafkasim import faults as F
from kafkasim.analysis.logs import parse_lines
from kafkasim.core.config import KAFKA_VERSIONS, parse_version
from kafkasim.core.events import FIELDS

#: Lines of every version: "Preparing to restabilize/rebalance group", "Stabilized group", "Assignment
#: received from leader" (read as AssignmentReceived, then GroupStable: the leader's SyncGroup
#: completes the rebalance), "is dead and removed" (up to 0.10.0) / "is now empty".
EVERY_VERSION = {"RebalanceStarted", "GenerationStabilized", "AssignmentReceived", "GroupStable", "GroupEmpty"}
#: Consumer-group lines (4.0+, GroupMetadataManager.java, INFO), read back with their reason.
CONSUMER_GROUP = {"MemberJoined", "MemberReplaced", "MemberLeftTemporarily", "MemberFenced", "GroupEpochBumped",
                  "TargetAssignmentComputed", "GroupLoaded", "GroupConverted", "GroupConversionRefused"}
#: A refused ConsumerGroupHeartbeat is logged for these errors only (throwIfInstanceIdIs{Unreleased,Fenced},
#: a failing assignor in updateTargetAssignment); every other heartbeat is not logged.
LOGGED_HEARTBEAT_ERRORS = {"UNRELEASED_INSTANCE_ID", "FENCED_INSTANCE_ID", "UNKNOWN_SERVER_ERROR"}
#: Never an INFO line: the requests themselves (Kafka logs requests at DEBUG in kafka.request.logger),
#: and a consumer group's state and its members' reconciliation (Kafka logs no consumer-group state
#: transition at any level, reconciliation steps at DEBUG).
NEVER_LOGGED = {"JoinGroup", "JoinGroupResponse", "SyncGroup", "SyncGroupResponse", "Heartbeat", "LeaveGroup",
                "OffsetCommit", "OffsetFetch", "MemberEpochBumped", "MemberStateChanged", "StateChanged"}
#: Where a rebalance can start (`GroupMetadata.canRebalance`): `maybePrepareRebalance` does nothing
#: in PreparingRebalance, so a member added then gets no "Preparing to rebalance" line of its own.
CAN_REBALANCE = {"Empty", "Stable", "CompletingRebalance"}


def shown_as(row: tuple, v: tuple) -> tuple | None:
    """(kind, reason) as the log of Kafka `v` shows the simulated coordinator event `row`, or None
    when that version writes no INFO line for it."""
    e = dict(zip(FIELDS, row))
    kind, reason = e["kind"], e["reason"]
    if kind in EVERY_VERSION:
        return kind, None
    if kind == "MemberRemoved":
        if reason in ("session_timeout", "new_member_timeout"):
            # "Member m in group g has failed, removing it from the group": TRACE/DEBUG up to 0.11.0, INFO
            # from 0.11.0.1; a member still joining expires the same way (the line gives no reason). A
            # consumer group's member (4.0+) is fenced: "... because the member session expired".
            return (kind, "session_timeout") if v >= (0, 11, 0, 1) else None
        if reason in ("leave_group", "poll_timeout"):
            # "Member m in group g has left, removing it from the group": INFO from 2.2. The poll timeout
            # shows only in the client reason that 3.2 (KIP-800) adds to the line.
            if v < (2, 2):
                return None
            return kind, reason if v >= (3, 2) else "leave_group"
        if reason == "rebalance_timeout":  # "Group g removed dynamic members who haven't joined: Set(...)": 2.8+
            return (kind, reason) if v >= (2, 8) else None
        if reason == "sync_timeout":  # "(reason: Removing Set(...) on pending sync request expiration)": 3.0+
            return (kind, reason) if v >= (3, 0) else None
        raise AssertionError(f"no rule for MemberRemoved with reason {reason!r}: add one")
    if kind == "MemberAdded":
        if reason == "static" and v >= (3, 0):
            # "Static member with groupInstanceId=i and unknown member id joins group g in S state.
            # Created a new member id m for this member and add to the group." (INFO from 3.0)
            return kind, reason
        if reason == "dynamic" and v >= (4, 0):
            # "Pending dynamic member with id m joins group g in S state. Adding to the group now." (INFO in
            # the Java coordinator of 4.0; DEBUG in GroupCoordinator.scala)
            return kind, reason
        # Otherwise only the rebalance it starts names it: "(reason: Adding new member m)" from 2.1, when
        # the line got its reason; "... with group instanceid Some(i))" in 2.3-2.4 and "... with group
        # instance id Some(i); client reason: ...)" from 2.5 for static members (KIP-345, 2.3). A join line
        # and the rebalance line right after it that names the same member are one event to the parser.
        first = (2, 3) if reason == "static" else (2, 1)
        return (kind, reason) if v >= first and e["state"] in CAN_REBALANCE else None
    if kind == "MemberReplaced":
        # "Static member i with unknown member id rejoins, assigning new member id ..." (2.3-2.9), "Replacing
        # previously mapped member m with this groupInstanceId" (3.0+); a consumer group's re-join (4.0+).
        return (kind, None) if v >= (2, 3) else None
    if kind == "PendingMemberAdded":  # KIP-394's "... request the member to rejoin with this id": DEBUG up to 2.8
        return (kind, None) if v >= (3, 0) else None
    if kind == "PendingMemberExpired":  # "has been removed after session timeout expiration": 2.2+
        return (kind, None) if v >= (2, 2) else None
    if kind in CONSUMER_GROUP:
        assert v >= (4, 0), f"a consumer-group event before 4.0: {e}"
        return kind, reason if kind in ("MemberJoined", "MemberFenced", "GroupConverted",
                                        "GroupConversionRefused") else None
    if kind == "ConsumerGroupHeartbeat":
        return (kind, e["error"]) if e["error"] in LOGGED_HEARTBEAT_ERRORS else None
    if kind in NEVER_LOGGED:
        return None
    raise AssertionError(f"no rule for simulated coordinator events of kind {kind!r}: add one")


def read_as(row: tuple) -> tuple:
    """(kind, reason) of a parsed event, keyed as `shown_as` keys a simulated one."""
    e = dict(zip(FIELDS, row))
    kind = e["kind"]
    if kind == "ConsumerGroupHeartbeat":
        return kind, e["error"]
    if kind in ("MemberRemoved", "MemberAdded", "MemberJoined", "MemberFenced", "GroupConverted",
                "GroupConversionRefused"):
        return kind, e["reason"]
    return kind, None


#: (kind, reason) -> the first release line whose log shows it; the scenarios must produce each in
#: every version from that one on, so that each version's wording of it is read.
MUST_SHOW = {
    **{(kind, None): (0, 9) for kind in EVERY_VERSION},
    ("MemberRemoved", "session_timeout"): (1, 0),   # from 0.11.0.1; 0.11 here is 0.11.0.0
    ("MemberAdded", "dynamic"): (2, 1),
    ("MemberRemoved", "leave_group"): (2, 2),
    ("MemberAdded", "static"): (2, 3),
    ("MemberReplaced", None): (2, 3),
    ("PendingMemberAdded", None): (3, 0),
    ("MemberRemoved", "poll_timeout"): (3, 2),
    **{key: (4, 0) for key in [("MemberJoined", None), ("MemberJoined", "static"), ("MemberLeftTemporarily", None),
                               ("MemberFenced", "session_timeout"), ("GroupEpochBumped", None),
                               ("TargetAssignmentComputed", None), ("GroupConverted", "offline_upgrade"),
                               ("ConsumerGroupHeartbeat", "UNRELEASED_INSTANCE_ID")]},
}


def scenarios(version: str) -> dict[str, Scenario]:
    v = parse_version(version)
    base = dict(kafka_version=version, topics={"t": 4}, duration_ms=180_000)
    # A crash (session timeout), a scale-in (LeaveGroup), a scale-out, a poll loop stuck past
    # max.poll.interval.ms (a poll-timeout LeaveGroup from 0.10.1; before KIP-62 the heartbeat waits
    # for poll(), so the session expires), then everyone leaves: the group is empty.
    runs = {"dynamic": Scenario(members=3, faults=(F.Crash("c-1", 20_000), F.ScaleIn(50_000, ("c-2",)),
                                                   F.ScaleOut(70_000, 1),
                                                   F.SlowProcessing("c-3", 90_000, duration_ms=40_000),
                                                   F.ScaleIn(150_000, ("c-3", "c-4"))),
                                consumer={"max.poll.interval.ms": 20_000} if v >= (0, 10, 1) else {}, **base)}
    if v >= (2, 3):
        # A restart within the session (the static member takes its place back under a new member id),
        # a crash, then the rest stop (static members send no LeaveGroup: their sessions expire).
        runs["static"] = Scenario(members=3, static_membership=True, faults=(
            F.Restart("c-1", 20_000, delay_ms=2_000), F.Crash("c-2", 40_000), F.ScaleIn(100_000, ("c-1", "c-3"))),
            **base)
    if v >= (4, 0):
        consumer = {"group.protocol": "consumer", "max.poll.interval.ms": 30_000}
        cg = dict(base, topics={"t": 6}, duration_ms=300_000, members=4, consumer=consumer)
        runs["consumer"] = Scenario(faults=(
            F.Crash("c-1", 20_000), F.Pause("c-2", 40_000, 60_000), F.SlowProcessing("c-3", 120_000, duration_ms=40_000),
            F.ScaleOut(200_000, 2), F.ScaleIn(230_000, ("c-4",))), **cg)
        # A graceful restart (leave with epoch -2, come back), a crash whose instance id is not
        # released when it comes back (UNRELEASED_INSTANCE_ID), a scale-in and a scale-out.
        runs["consumer-static"] = Scenario(static_membership=True, faults=(
            F.Restart("c-1", 20_000, delay_ms=5_000, graceful=True), F.Restart("c-2", 40_000, delay_ms=5_000),
            F.ScaleIn(150_000, ("c-3",)), F.ScaleOut(160_000, 1)), **cg)
    return runs


@pytest.mark.parametrize("version", KAFKA_VERSIONS)
def test_every_logged_event_is_read_back_once_per_kind(version):
    v = parse_version(version)
    seen = set()
    for name, scenario in scenarios(version).items():
        run = simulate(scenario)
        shown = Counter(filter(None, (shown_as(r, v) for r in run.rows if r[1] == "coordinator")))
        result = parse_lines(run.broker_log)
        assert result.unparsed == [] and result.counts["ignored"] == 0, (name, result.unparsed)
        read = Counter(read_as(r) for r in result.rows)
        assert read == shown, f"{version} {name}: read back {dict(read - shown)} more, {dict(shown - read)} fewer"
        seen |= set(shown)
        if name == "static" and v < (2, 5):  # KIP-345's first wording (2.3, 2.4): "group instanceid"
            assert any(" with group instanceid Some(c-" in line for line in run.broker_log)
    missing = {key for key, first in MUST_SHOW.items() if v >= first} - seen
    assert not missing, f"{version}: no scenario made the log show {sorted(missing, key=str)}"
