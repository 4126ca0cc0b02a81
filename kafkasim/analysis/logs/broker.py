"""The broker's group coordinator, as its lines in `server.log` read, 0.9 to 4.x: the prefixes and
the classic groups' wordings (the consumer groups' are in `broker_kip848`).

Read at each release tag from `GroupCoordinator.scala`, `GroupMetadataManager.scala` and the Java
`group-coordinator/.../GroupMetadataManager.java`; every wording with an example, by version:
docs/broker-log-parser.md. The simulator writes the same lines (kafkasim.coordinator.broker_log).

Simplifications: member states after an event are not in the lines, so ``state`` is filled only
where Kafka's code fixes it; a heartbeat expiry of a member that never finished joining (kafkasim's
"new_member_timeout") reads as "session_timeout", because Kafka logs both alike, and before 3.2 a
poll-timeout LeaveGroup reads as "leave_group". A group id that contains the words which follow it
in its line (" generation ", " has failed") is read up to their first occurrence.
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.wording import Template, members, number
from kafkasim.coordinator.broker_log import OFFSETS_TOPIC
from kafkasim.coordinator.classic.coordinator import POLL_TIMEOUT_PREFIX  # the client's reason for a KIP-62 poll-timeout LeaveGroup

# The coordinator's message prefixes; the group that matched (`Match.lastgroup`) names the prefix:
# `[GroupCoordinator N]:` (0.9 to 3.9), `[GroupCoordinator id=N topic=__consumer_offsets partition=P]`
# (the new coordinator, default from 4.0), `[GroupMetadataManager brokerId=N]` (1.0+) or
# `[Group Metadata Manager on Broker N]:` (0.9 to 0.11).
BRACKETED = (r"GroupCoordinator (?P<coordinator>-?\d++)\]:? ?",
             r"GroupCoordinator id=(?P<new_coordinator>-?\d++) topic=\S++ partition=\d++\] ?",
             r"GroupMetadataManager brokerId=(?P<metadata_manager>-?\d++)\] ?",
             r"Group Metadata Manager on Broker (?P<old_metadata_manager>-?\d++)\]:? ?",
             # The lines about the partitions the coordinator writes to, __consumer_offsets: ReplicaManager.scala's
             # logIdent `[ReplicaManager broker=N] ` (1.0+; `[Replica Manager on Broker N]: ` 0.9 - 0.11) before its
             # append errors, and Partition.scala's `[Partition tp broker=N] ` (1.0+) of those partitions only. A
             # ReplicaManager line about another topic holds no needle: the fast filter counts it as another
             # logger's, unless it is fused to a coordinator line (then this prefix splits them apart).
             r"(?P<replica_manager>ReplicaManager broker=-?\d++\] |Replica Manager on Broker -?\d++\]: )",
             r"(?P<offsets_partition>Partition __consumer_offsets-(?P<op>\d++) broker=-?\d++\] )")
PREFIXES = ("coordinator", "new_coordinator", "metadata_manager", "old_metadata_manager", "replica_manager",
            "offsets_partition", "group_metadata")
#: "__consumer_offsets" alone would be one too: it is in the coordinator's own lines, and a wrapped line's
#: continuation holding a needle is taken for a new record.
NEEDLES = ("[Group", "[Partition __consumer_offsets-", "on partition __consumer_offsets-",
           "on partition [__consumer_offsets,")
#: GroupMetadata.isStaticMemberFenced (2.3 - 2.8) logs through GroupMetadata's own logger, without a prefix:
#: its first words are the mark.
FREE = (("is identified as a known static member",
         r"(?P<group_metadata>(?<![\w.])given (?=member\.id \S++ is identified as a known static member ))"),)
LOGGERS = (" (kafka.coordinator", " (org.apache.kafka.coordinator", " (kafka.server.ReplicaManager",
           " (kafka.cluster.Partition")


def ev(t, kind, group, member=None, generation=None, reason=None, value=None, state=None, error=None) -> tuple:
    """An event of the coordinator (FIELDS only: the reader adds no detail, client or instance)."""
    return (t, "coordinator", group, member, kind, generation, None, None, error, reason, value, state)


def leave_reason(client_reason: str | None) -> str:
    return "poll_timeout" if (client_reason or "").startswith(POLL_TIMEOUT_PREFIX) else "leave_group"


_ADDING = re.compile(r"Adding new member (\S+?)(?: with group instance ?id (\S+?))?(?:;|$)")
_PENDING_SYNC = re.compile(r"Removing (?:Set\((.*)\)|\[(.*)\]) on pending sync request expiration", re.S)


def _preparing(m, t, ctx):
    g, n, reason = m["g"], number(m["n"]), m.groupdict().get("r")
    if ctx.cut:
        rest = m.string[m.end():]
        i = rest.find("(reason: ")
        reason = rest[i + 9:] + "…" if i >= 0 else None
    out = []
    if reason is not None and not ctx.cut:
        added = _ADDING.match(reason)
        if added:
            inst = added.group(2)
            static = inst is not None and inst not in ("None", "null")
            out.append(ev(t, "MemberAdded", g, added.group(1), n, "static" if static else "dynamic"))
        expired = _PENDING_SYNC.match(reason)
        if expired:
            out += [ev(t, "MemberRemoved", g, x, n, "sync_timeout") for x in members(expired.group(1) or
                                                                                       expired.group(2))]
    out.append(ev(t, "RebalanceStarted", g, None, n, reason, state="PreparingRebalance"))
    return out


def _stabilized(m, t, ctx):
    return [ev(t, "GenerationStabilized", m["g"], None, number(m["n"]), value=number(m.groupdict().get("c")),
                state="CompletingRebalance")]


def _assignment(m, t, ctx):
    g, n, leader, count = m["g"], number(m["n"]), m["l"], number(m.groupdict().get("c"))
    return [ev(t, "AssignmentReceived", g, leader, n, value=count, state="CompletingRebalance"),
            ev(t, "GroupStable", g, leader, n, value=count, state="Stable")]


def _empty(m, t, ctx):
    return [ev(t, "GroupEmpty", m["g"], None, number(m["n"]), state="Empty")]


def _dead_and_removed(m, t, ctx):
    if ctx.prefix == "old_metadata_manager":  # 0.10.1's GroupMetadataManager: the group's offsets expired
        return [ev(t, "GroupDead", m["g"], None, number(m["n"]), "expired", state="Dead")]
    # 0.9-0.10.0 GroupCoordinator: a join phase ended with nobody; the group is removed, generation kept.
    return [ev(t, "GroupEmpty", m["g"], None, number(m["n"]), state="Dead")]


def _dead(m, t, ctx):
    return [ev(t, "GroupDead", m["g"], None, number(m["n"]), state="Dead")]


def _unloaded(m, t, ctx):
    return [ev(t, "GroupDead", m["g"], None, number(m.groupdict().get("n")), "unloaded", state="Dead")]


def _loaded(m, t, ctx):
    return [ev(t, "GroupLoaded", m["g"], None, number(m.groupdict().get("n")), value=number(m.groupdict().get("c")))]


def _removed(reason: str, m, t, ctx):
    return [ev(t, "MemberRemoved", m["g"], m["m"], reason=reason)]


def left(m, t, ctx):
    return [ev(t, "MemberRemoved", m["g"], m["m"], reason=leave_reason(m.groupdict().get("c")))]


def _not_rejoined(m, t, ctx):
    return [ev(t, "MemberRemoved", m["g"], x, reason="rebalance_timeout", state="PreparingRebalance")
            for x in members(m["set"] if m["set"] is not None else m["list"])]


def _pending_added(m, t, ctx):
    return [ev(t, "PendingMemberAdded", m["g"], m["m"], state=m["s"])]


def _pending_expired(m, t, ctx):
    return [ev(t, "PendingMemberExpired", m["g"], m["m"])]


def _added(m, t, ctx):
    """MemberAdded: static only in the wording whose first word says so (`Static Member with unknown member
    id joins group ...`); every other wording read here is a dynamic member's."""
    return [ev(t, "MemberAdded", m["g"], m["m"], reason="static" if m.groupdict().get("k") == "Static" else "dynamic",
               state=m.groupdict().get("s"))]


def _static_joined(m, t, ctx):
    if m["o"] is not None:
        return [ev(t, "MemberReplaced", m["g"], None, reason=m["o"])]
    return [ev(t, "MemberAdded", m["g"], m["m"], reason="static", state=m["s"])]


def _replaced(m, t, ctx):
    return [ev(t, "MemberReplaced", m.groupdict().get("g"), m["m"], reason=m["o"])]

def nothing(m, t, ctx):
    return []


def offsets_ev(t, kind, partition, error=None, reason=None, value=None) -> tuple:
    """An event of a `__consumer_offsets` partition (no group: `diagnose.offsets` gives it to the groups whose
    offsets partition it is)."""
    p = number(partition)  # the digits of a `__consumer_offsets-P`: never None
    p = p if p < 1 << 31 else None  # the partition column is Arrow's int32
    return (t, "coordinator", None, None, kind, None, OFFSETS_TOPIC, p, error, reason, value, None)


def _isr_shrunk(m, t, ctx):
    return [offsets_ev(t, "OffsetsIsrShrunk", ctx.mark["op"], reason=m["old"], value=len(members(m["new"])))]


def _store_failed(m, t, ctx):
    return [ev(t, "GroupStoreFailed", m["g"], generation=number(m["n"]), reason=m["e"])]


def _coordinator_moved(kind: str, m, t, ctx):
    return [offsets_ev(t, kind, m["p"])]



LEFT_TAIL = r"(?: request|; client reason: (?P<c>.*))"
OFFSETS_TP = r"(?: \(__consumer_offsets-\d++\))?"
N = r"(?P<n>-?\d++)"
M = r"(?P<m>\S++)"
JOIN_STATE = r" in (?P<s>\w++) state\. "



def cg(rest: str) -> str:
    """A consumer-group line: `[GroupId g] ` and what follows, the group read up to the first place
    where all of `rest` matches (an atomic group: what follows never makes it try a longer id)."""
    return r"\[GroupId (?>(?P<g>.+?)\] " + rest + ")"


#: GroupCoordinator's operation (isStaticMemberFenced's `operation`, 2.5 - 2.8) -> the response that carried
#: FENCED_INSTANCE_ID; before 2.5 the line does not say (read as the join's, the first a duplicate meets).
_FENCED_RESPONSE = {"join-group": "JoinGroupResponse", "sync-group": "SyncGroupResponse", "heartbeat": "HeartbeatResponse",
                    "leave-group": "LeaveGroupResponse", "commit-offsets": "OffsetCommitResponse",
                    "txn-commit-offsets": "TxnOffsetCommitResponse"}


def _static_fenced(m, t, ctx):
    """A static member's request answered FENCED_INSTANCE_ID: its member id is not the one its instance id maps to
    (two processes with one group.instance.id, KIP-345). The line names no group."""
    kind = _FENCED_RESPONSE.get(m["op"], "JoinGroupResponse")  # 2.3 - 2.4 name no operation
    return [ev(t, kind, None, m["m"], error="FENCED_INSTANCE_ID", reason=f"expected member.id {m['e']}")]


# How the patterns stay linear: every field of free length (a group id `.+?`, a member `\S`, a number
# `\d`) is followed, inside an atomic group `(?>...)` or by a possessive quantifier, by what
# delimits it, so that once read it is never read again another way; free text (a reason, a
# client reason, a list) comes last. A long line built to make a pattern backtrack costs a few
# passes over the line, not its square (tests/test_log_parser_robustness.py measures it).
#: first word of the message -> (strict, templates). An unmatched message under a strict key is
#: kept aside as unparsed; under a lenient key (lines Kafka has many more of) it is ignored.
CLASSIC_TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    "Preparing": (True, [
        Template(r"Preparing to (?:rebalance|restabilize) group (?>(?P<g>.+?) (?:in state (?P<s>\w++) )?"
                  r"with old generation " + N + ")", OFFSETS_TP + r"(?: \(reason: (?P<r>.*)\))?", _preparing, True)]),
    "Stabilized": (True, [
        Template(r"Stabilized group (?>(?P<g>.+?) generation " + N + ")",
                  OFFSETS_TP + r"(?: with (?P<c>\d++) members)?", _stabilized, True)]),
    "Assignment": (True, [
        Template(r"Assignment received from leader (?:(?P<l>\S++) )?for group (?>(?P<g>.+?) for generation " + N +
                  ")", r"(?:\. The group has (?P<c>\d++) members, \d++ of which are static)?", _assignment, True)]),
    "Group": (True, [
        Template(r"Group (?>(?P<g>.+?) with generation " + N + r" is now empty)", OFFSETS_TP, _empty, True),
        Template(r"Group (?>(?P<g>.+?) generation " + N + r" is dead and removed)", "", _dead_and_removed),
        Template(r"Group (?>(?P<g>.+?) transitioned to Dead in generation " + N + ")", "", _dead),
        Template(r"Group (?>(?P<g>.+?) removed dynamic members who haven't joined: )",
                  r"(?:Set\((?P<set>.*)\)|\[(?P<list>.*)\])", _not_rejoined),
        Template(r"Group (?>.+? (?:is dead, skipping rebalance stage|could not complete rebalance because no members "
                  r"rejoined))", "", nothing),
        Template(r"Group (?>.+? removed members who haven't sent their sync request: )", ".*", nothing)]),
    "Member": (True, [
        Template(r"Member " + M + r" in group (?>(?P<g>.+?) has failed)", r"(?:, removing it from the group)?",
                  partial(_removed, "session_timeout"), True),
        Template(r"Member " + M + r" in group (?>(?P<g>.+?) has left)", r", removing it from the group",
                  partial(_removed, "leave_group"), True),
        Template(r"Member\[group\.instance\.id (?>.*?, member\.id )(?>(?P<m>\S+?)\] in group )(?>(?P<g>.+?) has left)",
                  r", removing it from the group", partial(_removed, "leave_group"), True),
        Template(r"Member MemberMetadata\(memberId=(?P<m>[^,]++), (?>.*?\) has left group )"
                  r"(?>(?P<g>.+?) through explicit `LeaveGroup`)", LEFT_TAIL, left, True)]),
    "Pending": (True, [
        Template(r"Pending member " + M + r" in group (?>(?P<g>.+?) has been removed after session timeout "
                  r"expiration)", "", _pending_expired),
        Template(r"Pending member " + M + r" is leaving group (?P<g>.+?)", "", partial(_removed, "leave_group")),
        Template(r"Pending member with memberId=" + M + r" has left group (?>(?P<g>.+?) through explicit "
                  r"`LeaveGroup` request)", r"(?:; client reason: (?P<c>.*))?", left),
        Template(r"Pending dynamic member with id " + M + r" joins group (?>(?P<g>.+?)" + JOIN_STATE +
                  r"Adding to the group now)", "", _added)]),
    "Dynamic": (True, [
        Template(r"Dynamic member with unknown member id (?:re)?joins group (?>(?P<g>.+?)" + JOIN_STATE +
                  r"Created a new member id " + M + r" and request(?:ing)? the member to rejoin with this id)",
                  "", _pending_added),
        Template(r"(?P<k>Dynamic) Member with unknown member id joins group (?>(?P<g>.+?)" + JOIN_STATE +
                  r"Created a new member id " + M + r" for this member and add to the group)", "", _added),
        Template(r"Dynamic member with unknown member id joins group (?>(?P<g>.+?) in state (?P<s>\w++)\. "
                  r"Created a new member id " + M + r" and added the member to the group)", "", _added)]),
    "Static": (True, [
        Template(r"Static member with groupInstanceId=\S++ and unknown member id joins group (?>(?P<g>.+?)" +
                  JOIN_STATE + r"(?:Replacing previously mapped member (?P<o>\S++) with this groupInstanceId|Created "
                  r"a new member id (?P<m>\S++) for this member and (?:add|added) to the group))", "", _static_joined),
        Template(r"(?P<k>Static) Member with unknown member id joins group (?>(?P<g>.+?)" + JOIN_STATE +
                  r"Created a new member id " + M + r" for this member and add to the group)", "", _added),
        Template(r"Static member \S++ of group (?>(?P<g>.+?) with unknown member id rejoins, assigning new member "
                  r"id (?P<m>\S+?), while old member id (?P<o>\S++) will be removed)", "", _replaced),
        Template(r"Static member \S++ with unknown member id rejoins, assigning new member id (?>(?P<m>\S+?), while "
                  r"old member (?P<o>\S++) will be removed)", "", _replaced),
        Template(r"Static member which joins during Stable stage and doesn't affect (?:selectProtocol|the selected "
                  r"protocol) will not trigger (?:a )?rebalance", "", nothing)]),
    # GroupMetadata.isStaticMemberFenced: ",but not" (no space) 2.3 - 2.4; " during OP, will respond with instance
    # fenced error" 2.5 - 2.8 (removed in 3.0)
    "member": (True, [
        Template(r"member\.id (?P<m>\S++) is identified as a known static member \S+?, ?but not matching the expected "
                 r"member\.id (?P<e>\S+?)", r"(?: during (?P<op>[\w-]++), will respond with instance fenced error)?",
                 _static_fenced)]),
    "[Group": (True, [
        Template(r"\[Group (?>(?P<g>.+?)\] (?:Pending member|Member|Dynamic Member|Static Member) " + M +
                  r"(?: with instance id \S++)? has left group through explicit `LeaveGroup` request)",
                  r"; client reason: (?P<c>.*)", left)]),
    "[GroupId=": (False, [
        Template(r"\[GroupId=(?>(?P<g>.+?)\] Unload(?:ing|ed) group metadata for (?:generation|group epoch) " + N +
                  ")", "", _unloaded)]),
    "Loading": (False, [
        Template(r"Loading group metadata for (?>(?P<g>.+?) with generation " + N + ")", "", _loaded)]),
    "Loaded": (False, [
        Template(r"Loaded (?:classic|consumer|share) group (?>(?P<g>.+?) with (?P<c>\d++) members)", "", _loaded)]),
    "Unloading": (False, [
        Template(r"Unloading group metadata for (?>(?P<g>.+?) with generation " + N + ")", "", _unloaded)]),
    # The coordinator failing to write to __consumer_offsets. ReplicaManager.appendToLocalLog (0.9+): "Error
    # processing append operation on partition __consumer_offsets-P" (0.9 - 0.11 `[__consumer_offsets,P]`), for
    # an error it does not expect (NotEnoughReplicasException among them: ISR below min.insync.replicas).
    "Error": (False, [
        Template(r"Error processing append operation on partition (?:__consumer_offsets-(?P<p>\d++)|"
                 r"\[__consumer_offsets,(?P<p2>\d++)\])", "",
                 lambda m, t, ctx: [offsets_ev(t, "OffsetsAppendFailed", m["p"] or m["p2"])], versions="0.9-")]),
    # Partition.maybeShrinkIsr (1.0+): "Shrinking ISR from 3,1 to 3." (2.2+ adds ". Leader: (highWatermark: ...).
    # Out of sync replicas: ..."); value: the replicas left in sync.
    "Shrinking": (False, [
        Template(r"Shrinking ISR from (?P<old>[\d,]*+) to (?P<new>[\d,]*+)", r"(?:\. .*)?", _isr_shrunk,
                 versions="1.0-")]),
    # GroupMetadataManager.storeGroup (1.0 - 3.9): the assignment could not be written for an error it does not map
    # to a retriable one ("... failed due to org.apache...RecordTooLargeException, returning UNKNOWN error code to
    # the client", "... failed due to unexpected error: ...").
    "Appending": (False, [
        Template(r"Appending metadata message for group (?>(?P<g>.+?) generation " + N +
                 r" failed due to )(?:unexpected error: )?(?P<e>[^\s,]++)", r"(?:, returning UNKNOWN error code to the "
                 r"client)?", _store_failed, versions="1.0-3.9")]),
    # GroupCoordinator.onElection / onResignation (2.8 - 3.9: "Elected as the group coordinator for partition P in
    # epoch E", "Resigned as the group coordinator for partition P in epoch E"): the coordinator of a partition moved.
    "Elected": (False, [
        Template(r"Elected as the group coordinator for partition (?P<p>\d++)", r"(?: in epoch \S++)?",
                 partial(_coordinator_moved, "CoordinatorElected"), versions="2.8-3.9")]),
    "Resigned": (False, [
        Template(r"Resigned as the group coordinator for partition (?P<p>\d++)", r"(?: in epoch \S++)?",
                 partial(_coordinator_moved, "CoordinatorResigned"), versions="2.8-3.9")]),
}

_KEY = re.compile(r"\[GroupId=|\[GroupId(?= )|\[Group(?= )|[A-Za-z]+")


def key(message: str, mark=None) -> str:
    """The dispatch key: the first word ("Member" also for "Member[group.instance.id ...")."""
    m = _KEY.match(message)
    return m.group() if m else ""
