"""Real Kafka broker logs (`server.log`, its rotations) read back into kafkasim's event schema.

Pure Python (no Spark, no Java): it runs on a laptop, and `kafkasim.analysis.spark.parse_broker_logs`
runs the same code inside Spark executors. The simulator writes its broker log with
`kafkasim.coordinator.broker_log`; this module is its inverse, and reads real logs of every Kafka version
with a group coordinator, 0.9 to 4.x (wording by version: docs/broker-log-parser.md, read at each
release tag from `GroupCoordinator.scala`, `GroupMetadataManager.scala` and the Java
`group-coordinator/.../GroupMetadataManager.java`).

How a line is read
------------------
1. Find the coordinator's own message prefix anywhere in the line: `[GroupCoordinator N]:`
   (0.9 to 3.9), `[GroupCoordinator id=N topic=__consumer_offsets partition=P]` (the new
   coordinator, default from 4.0), `[GroupMetadataManager brokerId=N]` (1.0+) or
   `[Group Metadata Manager on Broker N]:` (0.9 to 0.11). Lines without one are other loggers'
   lines: counted, never parsed further (which is what makes a real `server.log` fast to read).
2. Everything before the prefix is the "head" (log4j date and level, and whatever a container
   runtime or a copy-paste put in front); the last date-time in it is the event's time.
   Everything after is the message, up to the logger name `(kafka.coordinator...)` /
   `(org.apache.kafka.coordinator...)` when the layout prints one (Kafka's default
   `[%d] %p %m (%c)%n`, its test layout `(%c:%L)`, Strimzi's `... (%c) [%t]`).
3. The message is matched against the wordings (see "Wordings covered"). JSON lines (Docker's json-file driver,
   log4j JSON layouts) are decoded first; Kubernetes CRI partial lines (`... stdout P ...`)
   and Docker partial entries are joined; a line wrapped by hand or by a terminal is joined
   with the lines that follow it when they carry no date of their own.

Outcomes: every coordinator record yields events, or is a known line that carries no event
(start-up, offsets loading, KIP-848 regex scans and DEBUG lines: counted as ``ignored``), or is kept
aside in ``unparsed`` with its file, line number, the problem and the text. A truncated line
whose group and generation (or member) are complete still yields its event, with the cut
reason text ending in "…", and is also listed in ``unparsed`` ("truncated, kept ..."). Nothing
is fatal.

Time: ``time`` is milliseconds since `origin` (default `broker_log.START_TIME`, so a simulated
log reads back to the simulated times; for a real log, `START_TIME + timedelta(milliseconds=time)`
is the wall-clock time again). Log4j prints local time without a zone; dates that carry a zone
(`Z`, `+01:00`) are converted to UTC.

Wordings covered: every RebalanceStarted ("Preparing to rebalance/restabilize"),
GenerationStabilized, AssignmentReceived (then GroupStable), GroupEmpty, GroupDead,
GroupLoaded, MemberRemoved (session expiry, LeaveGroup, poll timeout from 3.2, rebalance and
sync timeouts), PendingMemberAdded/Expired, MemberAdded and MemberReplaced line of 0.9 to 4.x,
and the consumer groups' lines (KIP-848, 4.x and the early-access 3.7 - 3.9), read into the kinds
`kafkasim.coordinator.modern.consumer` writes: MemberJoined, MemberReplaced,
MemberLeftTemporarily, MemberFenced, MemberRemoved, GroupEpochBumped (its cause taken from the
group's previous line, see RECENT_MS), TargetAssignmentComputed, GroupLoaded, the
ConsumerGroupHeartbeat errors Kafka logs, and GroupConverted / GroupConversionRefused between
protocols; `docs/broker-log-parser.md` lists them by version with an example of each, and the
layouts read.

Simplifications: the coordinator's view only (no consumer events); member states after an event
are not in the lines, so ``state`` is filled only where Kafka's code fixes it (never for a
consumer group: Kafka logs no consumer-group state, and reconciliation only at DEBUG); a heartbeat expiry of
a member that never finished joining (kafkasim's "new_member_timeout") reads as "session_timeout",
because Kafka logs both alike, and before 3.2 a poll-timeout LeaveGroup reads as "leave_group".
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Iterator

from kafkasim.coordinator.broker_log import START_TIME
from kafkasim.coordinator.classic.coordinator import POLL_TIMEOUT_PREFIX  # the client's reason for a KIP-62 poll-timeout LeaveGroup
from kafkasim.core.events import FIELDS
from kafkasim.core.provenance import provenance, with_provenance

#: Lines of one record a wrapped line may be spread over (the first and up to 3 more).
MAX_CONTINUATION_LINES = 3
#: Columns of `ParseResult.rows`: the event schema, then where the event was read.
ROW_FIELDS = (*FIELDS, "file", "line", "seq")
#: Columns of `ParseResult.unparsed`.
UNPARSED_FIELDS = ("file", "line", "problem", "text")
#: Counters of a parse (`ParseResult.counts`).
COUNTS = ("lines", "coordinator", "events", "ignored", "unparsed", "salvaged", "joined", "other")

# The coordinator's message prefixes; the group that matched (`Match.lastgroup`) names the source.
_MARK = re.compile(
    r"\[(?:GroupCoordinator (?P<coordinator>-?\d+)\]:? ?"
    r"|GroupCoordinator id=(?P<new_coordinator>-?\d+) topic=\S+ partition=\d+\] ?"
    r"|GroupMetadataManager brokerId=(?P<metadata_manager>-?\d+)\] ?"
    r"|Group Metadata Manager on Broker (?P<old_metadata_manager>-?\d+)\]:? ?)")
_LOGGERS = (" (kafka.coordinator", " (org.apache.kafka.coordinator")
# The last date-time in the head (the application's own, after any container runtime's).
_TS = re.compile(r".*(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[,.](\d{1,9}))?(?: ?(Z|[+-]\d\d:?\d\d)\b)?")
_TS_NEAR_START = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d")
_CRI = re.compile(r"(\S+ (?:stdout|stderr) )([PF]) ")
# Kafka's default layout `[%d] %p %m (%c)%n`: with this head a line without its logger was cut.
_DEFAULT_HEAD = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] [A-Z]+ $")
_ELLIPSES = ("...", "…")

_OFFSETS_TP = r"(?: \(__consumer_offsets-\d+\))?"
_GROUP = r"(?P<g>.+?)"
_CG = r"\[GroupId (?P<g>.+?)\] "  # the consumer-group lines' own prefix
_GEN = r"(?P<n>-?\d+)"
_MEMBER = r"(?P<m>\S+)"


class _Template:
    """One wording: `head` + `tail` must match the whole message (a trailing '.' is optional,
    because the new coordinator adds one); a cut line may still be `salvage`d from `head` alone
    when every field the head captures is followed by its delimiter."""

    __slots__ = ("full", "head", "build")

    def __init__(self, head: str, tail: str, build: Callable, salvage: bool = False):
        self.full = re.compile(head + tail + r"\.?")
        self.head = re.compile(head + r"(?=[ .,(\]])") if salvage else None
        self.build = build


def _ev(t, kind, group, member=None, generation=None, reason=None, value=None, state=None, error=None) -> tuple:
    return (t, "coordinator", group, member, kind, generation, None, None, error, reason, value, state)


def _int(text):
    return None if text is None else int(text)


def _members(text: str) -> list[str]:
    return [m for m in (s.strip() for s in text.split(",")) if m]


def _leave_reason(client_reason: str | None) -> str:
    return "poll_timeout" if (client_reason or "").startswith(POLL_TIMEOUT_PREFIX) else "leave_group"


_ADDING = re.compile(r"Adding new member (\S+?)(?: with group instance ?id (\S+?))?(?:;|$)")
_PENDING_SYNC = re.compile(r"Removing (?:Set\((.*)\)|\[(.*)\]) on pending sync request expiration")


def _preparing(m, t, ctx):
    g, n, reason = m["g"], int(m["n"]), m.groupdict().get("r")
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
            out.append(_ev(t, "MemberAdded", g, added.group(1), n, "static" if static else "dynamic"))
        expired = _PENDING_SYNC.match(reason)
        if expired:
            out += [_ev(t, "MemberRemoved", g, x, n, "sync_timeout") for x in _members(expired.group(1) or
                                                                                       expired.group(2))]
    out.append(_ev(t, "RebalanceStarted", g, None, n, reason, state="PreparingRebalance"))
    return out


def _stabilized(m, t, ctx):
    return [_ev(t, "GenerationStabilized", m["g"], None, int(m["n"]), value=_int(m.groupdict().get("c")),
                state="CompletingRebalance")]


def _assignment(m, t, ctx):
    g, n, leader, count = m["g"], int(m["n"]), m["l"], _int(m.groupdict().get("c"))
    return [_ev(t, "AssignmentReceived", g, leader, n, value=count, state="CompletingRebalance"),
            _ev(t, "GroupStable", g, leader, n, value=count, state="Stable")]


def _empty(m, t, ctx):
    return [_ev(t, "GroupEmpty", m["g"], None, int(m["n"]), state="Empty")]


def _dead_and_removed(m, t, ctx):
    if ctx.prefix == "old_metadata_manager":  # 0.10.1's GroupMetadataManager: the group's offsets expired
        return [_ev(t, "GroupDead", m["g"], None, int(m["n"]), "expired", state="Dead")]
    # 0.9-0.10.0 GroupCoordinator: a join phase ended with nobody; the group is removed, generation kept.
    return [_ev(t, "GroupEmpty", m["g"], None, int(m["n"]), state="Dead")]


def _dead(m, t, ctx):
    return [_ev(t, "GroupDead", m["g"], None, int(m["n"]), state="Dead")]


def _unloaded(m, t, ctx):
    return [_ev(t, "GroupDead", m["g"], None, _int(m.groupdict().get("n")), "unloaded", state="Dead")]


def _loaded(m, t, ctx):
    return [_ev(t, "GroupLoaded", m["g"], None, _int(m.groupdict().get("n")), value=_int(m.groupdict().get("c")))]


def _removed(reason: str):
    def build(m, t, ctx):
        return [_ev(t, "MemberRemoved", m["g"], m["m"], reason=reason)]
    return build


def _left(m, t, ctx):
    return [_ev(t, "MemberRemoved", m["g"], m["m"], reason=_leave_reason(m.groupdict().get("c")))]


def _not_rejoined(m, t, ctx):
    return [_ev(t, "MemberRemoved", m["g"], x, reason="rebalance_timeout", state="PreparingRebalance")
            for x in _members(m["set"] if m["set"] is not None else m["list"])]


def _pending_added(m, t, ctx):
    return [_ev(t, "PendingMemberAdded", m["g"], m["m"], state=m["s"])]


def _pending_expired(m, t, ctx):
    return [_ev(t, "PendingMemberExpired", m["g"], m["m"])]


def _added(static: bool | None = None):
    def build(m, t, ctx):
        is_static = static if static is not None else m.groupdict().get("k") == "Static"
        return [_ev(t, "MemberAdded", m["g"], m["m"], reason="static" if is_static else "dynamic",
                    state=m.groupdict().get("s"))]
    return build


def _static_joined(m, t, ctx):
    if m["o"] is not None:
        return [_ev(t, "MemberReplaced", m["g"], None, reason=m["o"])]
    return [_ev(t, "MemberAdded", m["g"], m["m"], reason="static", state=m["s"])]


def _replaced(m, t, ctx):
    return [_ev(t, "MemberReplaced", m.groupdict().get("g"), m["m"], reason=m["o"])]


# -- consumer groups (KIP-848): GroupMetadataManager.java 4.0.0 / 4.1.1 / 4.2.0-rc1, and the early-access
# wording of 3.7-3.9 where it differs. Kafka logs no consumer-group state, so `state` stays None.
_FENCE_REASONS = (("the member session expired", "session_timeout"),
                  ("its session expired", "session_timeout"),                                   # 3.7
                  ("the classic member failed to join within the rebalance timeout", "rebalance_timeout"),
                  ("the member failed to sync within timeout", "sync_timeout"),
                  ("it failed to transition from epoch", "rebalance_timeout"),
                  ("it failed to revoke partitions within", "rebalance_timeout"))               # 3.7
_FENCED_EPOCH = re.compile(r"it failed to transition from epoch (-?\d+) ")
#: A bump line right after one of these lines of the same group (within RECENT_MS) was caused by it.
_BUMPED_BY = {"joined": "member_joined", "removed": "member_removed", "scanned": "regex_resolved"}
#: How long after a join, leave, fence or regex scan a bump of the same group counts as its consequence.
RECENT_MS = 1000


def _fenced(m, t, ctx):
    why = next((r for text, r in _FENCE_REASONS if m["r"].startswith(text)), "fenced")
    epoch = _FENCED_EPOCH.match(m["r"] + " ")
    value = float(epoch.group(1)) if epoch else None
    ctx.note(m["g"], t, "removed")
    return [_ev(t, "MemberFenced", m["g"], m["m"], reason=why, value=value),
            _ev(t, "MemberRemoved", m["g"], m["m"], reason=why, value=value)]


def _cg_joined(m, t, ctx):
    static = m["k"] is not None
    reason = "static" if static else None
    if m["p"] == "classic":
        reason = "static_classic" if static else "classic"
    ctx.note(m["g"], t, "joined")
    return [_ev(t, "MemberJoined", m["g"], m["m"], reason=reason)]


def _cg_replaced(m, t, ctx):
    ctx.note(m["g"], t, "replaced")
    return [_ev(t, "MemberReplaced", m["g"], m["m"], reason=m.groupdict().get("o"))]


def _cg_left(m, t, ctx):
    ctx.note(m["g"], t, "removed")
    found = m.groupdict()
    member = found.get("m") or found.get("s")
    return [_ev(t, "MemberRemoved", m["g"], member, reason=_leave_reason(m.groupdict().get("c")))]


def _cg_left_temporarily(m, t, ctx):
    ctx.note(m["g"], t, "other")
    return [_ev(t, "MemberLeftTemporarily", m["g"], m["m"], value=-2.0)]


def _cg_refused_heartbeat(error: str, epoch: float | None):
    def build(m, t, ctx):
        ctx.note(m["g"], t, "other")
        return [_ev(t, "ConsumerGroupHeartbeat", m["g"], m.groupdict().get("m"), value=epoch, error=error)]
    return build


def _cg_epoch(m, t, ctx):
    g, n = m["g"], int(m["n"])
    last = ctx.recent.pop(g, None)
    if n == 1:
        reason = "new_group"
    elif last is not None and 0 <= t - last[0] <= RECENT_MS:
        reason = _BUMPED_BY.get(last[1])
    else:
        reason = None
    return [_ev(t, "GroupEpochBumped", g, None, n, reason, float(n))]


def _cg_target(m, t, ctx):
    ctx.note(m["g"], t, "other")
    return [_ev(t, "TargetAssignmentComputed", m["g"], None, int(m["n"]), m["a"])]


def _cg_scanned(m, t, ctx):
    ctx.note(m["g"], t, "scanned")
    return []


def _cg_pending(m, t, ctx):
    ctx.note(m["g"], t, "other")
    return [_ev(t, "PendingMemberAdded", m["g"], m["m"])]


def _cg_converted(m, t, ctx):
    ctx.note(m["g"], t, "other")
    direction = "upgrade" if m["to"] == "consumer" else "downgrade"
    return [_ev(t, "GroupConverted", m["g"], reason=("offline_" if m["e"] else "online_") + direction)]


_REFUSALS = {
    "because online upgrade is disabled": "upgrade_disabled",
    "because the group does not use the consumer embedded protocol": "upgrade_not_consumer_protocol",
    "because the group size exceeds the consumer group maximum size": "upgrade_group_too_large",
    "because the embedded consumer protocol is malformed": "upgrade_malformed_protocol",
    "because the online downgrade is disabled": "downgrade_disabled",
    "because its group size is greater than classic group max size": "downgrade_group_too_large",
}


def _cg_refused(m, t, ctx):
    return [_ev(t, "GroupConversionRefused", m["g"], reason=_REFUSALS[m["why"]])]


def _cg_refused_as(cause: str):
    def build(m, t, ctx):
        return [_ev(t, "GroupConversionRefused", m["g"], reason=cause)]
    return build


def _nothing(m, t, ctx):
    return []


_LEFT_TAIL = r"(?: request|; client reason: (?P<c>.*))"
_JOIN_STATE = r" in (?P<s>\w+) state\. "

#: first word of the message -> (strict, templates). An unmatched message under a strict key is
#: kept aside as unparsed; under a lenient key (lines Kafka has many more of) it is ignored.
_TEMPLATES: dict[str, tuple[bool, list[_Template]]] = {
    "Preparing": (True, [
        _Template(r"Preparing to (?:rebalance|restabilize) group " + _GROUP + r" (?:in state (?P<s>\w+) )?"
                  r"with old generation " + _GEN, _OFFSETS_TP + r"(?: \(reason: (?P<r>.*)\))?", _preparing, True)]),
    "Stabilized": (True, [
        _Template(r"Stabilized group " + _GROUP + r" generation " + _GEN,
                  _OFFSETS_TP + r"(?: with (?P<c>\d+) members)?", _stabilized, True)]),
    "Assignment": (True, [
        _Template(r"Assignment received from leader (?:(?P<l>\S+) )?for group " + _GROUP + r" for generation " + _GEN,
                  r"(?:\. The group has (?P<c>\d+) members, \d+ of which are static)?", _assignment, True)]),
    "Group": (True, [
        _Template(r"Group " + _GROUP + r" with generation " + _GEN + r" is now empty", _OFFSETS_TP, _empty, True),
        _Template(r"Group " + _GROUP + r" generation " + _GEN + r" is dead and removed", "", _dead_and_removed),
        _Template(r"Group " + _GROUP + r" transitioned to Dead in generation " + _GEN, "", _dead),
        _Template(r"Group " + _GROUP + r" removed dynamic members who haven't joined: ",
                  r"(?:Set\((?P<set>.*)\)|\[(?P<list>.*)\])", _not_rejoined),
        _Template(r"Group .+? (?:is dead, skipping rebalance stage|could not complete rebalance because no members "
                  r"rejoined|removed members who haven't sent their sync request: .*)", "", _nothing)]),
    "Member": (True, [
        _Template(r"Member " + _MEMBER + r" in group " + _GROUP + r" has failed", r"(?:, removing it from the group)?",
                  _removed("session_timeout"), True),
        _Template(r"Member " + _MEMBER + r" in group " + _GROUP + r" has left", r", removing it from the group",
                  _removed("leave_group"), True),
        _Template(r"Member\[group\.instance\.id .*?, member\.id " + _MEMBER + r"\] in group " + _GROUP + r" has left",
                  r", removing it from the group", _removed("leave_group"), True),
        _Template(r"Member MemberMetadata\(memberId=(?P<m>[^,]+), .*\) has left group " + _GROUP +
                  r" through explicit `LeaveGroup`", _LEFT_TAIL, _left, True)]),
    "Pending": (True, [
        _Template(r"Pending member " + _MEMBER + r" in group " + _GROUP +
                  r" has been removed after session timeout expiration", "", _pending_expired),
        _Template(r"Pending member " + _MEMBER + r" is leaving group " + _GROUP, "", _removed("leave_group")),
        _Template(r"Pending member with memberId=" + _MEMBER + r" has left group " + _GROUP +
                  r" through explicit `LeaveGroup` request", r"(?:; client reason: (?P<c>.*))?", _left),
        _Template(r"Pending dynamic member with id " + _MEMBER + r" joins group " + _GROUP + _JOIN_STATE +
                  r"Adding to the group now", "", _added(False))]),
    "Dynamic": (True, [
        _Template(r"Dynamic member with unknown member id (?:re)?joins group " + _GROUP + _JOIN_STATE +
                  r"Created a new member id " + _MEMBER + r" and request(?:ing)? the member to rejoin with this id",
                  "", _pending_added),
        _Template(r"(?P<k>Dynamic) Member with unknown member id joins group " + _GROUP + _JOIN_STATE +
                  r"Created a new member id " + _MEMBER + r" for this member and add to the group", "", _added()),
        _Template(r"Dynamic member with unknown member id joins group " + _GROUP + r" in state (?P<s>\w+)\. "
                  r"Created a new member id " + _MEMBER + r" and added the member to the group", "", _added(False))]),
    "Static": (True, [
        _Template(r"Static member with groupInstanceId=\S+ and unknown member id joins group " + _GROUP + _JOIN_STATE +
                  r"(?:Replacing previously mapped member (?P<o>\S+) with this groupInstanceId|Created a new member "
                  r"id (?P<m>\S+) for this member and (?:add|added) to the group)", "", _static_joined),
        _Template(r"(?P<k>Static) Member with unknown member id joins group " + _GROUP + _JOIN_STATE +
                  r"Created a new member id " + _MEMBER + r" for this member and add to the group", "", _added()),
        _Template(r"Static member \S+ of group " + _GROUP + r" with unknown member id rejoins, assigning new member "
                  r"id " + _MEMBER + r", while old member id (?P<o>\S+) will be removed", "", _replaced),
        _Template(r"Static member \S+ with unknown member id rejoins, assigning new member id " + _MEMBER +
                  r", while old member (?P<o>\S+) will be removed", "", _replaced),
        _Template(r"Static member which joins during Stable stage and doesn't affect (?:selectProtocol|the selected "
                  r"protocol) will not trigger (?:a )?rebalance", "", _nothing)]),
    "[Group": (True, [
        _Template(r"\[Group " + _GROUP + r"\] (?:Pending member|Member|Dynamic Member|Static Member) " + _MEMBER +
                  r"(?: with instance id \S+)? has left group through explicit `LeaveGroup` request",
                  r"; client reason: (?P<c>.*)", _left)]),
    "[GroupId": (False, [
        _Template(_CG + r"(?:(?P<k>Static) member|Member) " + _MEMBER + r"(?: with instance id \S+)? joins the "
                  r"consumer group(?: using the (?P<p>\w+) protocol)?", "", _cg_joined),
        _Template(_CG + r"Bumped group epoch to " + _GEN + r"(?: with metadata hash -?\d+)?", "", _cg_epoch),
        _Template(_CG + r"Computed a new target assignment for epoch " + _GEN + r" with '(?P<a>[^']*)' assignor"
                  r"(?: in \d+ms)?(?:: .*)?", "", _cg_target),
        _Template(_CG + r"Member " + _MEMBER + r" fenced from the group because (?P<r>.*)", "", _fenced),
        _Template(_CG + r"Member " + _MEMBER + r" left the consumer group", "", _cg_left),
        _Template(_CG + r"Static [Mm]ember " + _MEMBER + r" with instance id \S+ left the consumer group", "",
                  _cg_left),
        _Template(_CG + r"Static [Mm]ember " + _MEMBER + r" with instance id \S+ temporarily left the consumer group",
                  "", _cg_left_temporarily),
        _Template(_CG + r"Static member with (?:unknown member id and )?instance id \S+ re-joins the consumer group"
                  r"(?: using the \w+ protocol)?\. Created a new member " + _MEMBER + r" to replace the existing "
                  r"member (?P<o>\S+?)", "", _cg_replaced),
        _Template(_CG + r"Static member " + _MEMBER + r" with instance id \S+ re-joins the consumer group", "",
                  _cg_replaced),  # 3.7: the old member is not named
        _Template(_CG + r"Static member " + _MEMBER + r" with instance id \S+ cannot join the group because the "
                  r"instance id is (?:is )?owned by member \S+", "",
                  _cg_refused_heartbeat("UNRELEASED_INSTANCE_ID", 0.0)),
        _Template(_CG + r"Static member " + _MEMBER + r" with instance id \S+ is fenced by existing member \S+", "",
                  _cg_refused_heartbeat("FENCED_INSTANCE_ID", None)),
        _Template(_CG + r"Failed to compute a new target assignment for epoch " + _GEN + r": .*", "",
                  _cg_refused_heartbeat("UNKNOWN_SERVER_ERROR", None)),
        _Template(_CG + r"Scanned \d+ topics to refresh regular expressions \[.*\] in \d+ms", "", _cg_scanned),
        _Template(_CG + r"Dynamic member with unknown member id joins the consumer group\. Created a new member id " +
                  _MEMBER + r" and requesting the member to rejoin with this id", "", _cg_pending),
        _Template(_CG + r"(?:Dynamic member " + _MEMBER + r"|Static member " + _MEMBER.replace("<m>", "<s>") +
                  r" with instance id \S+) has left group through explicit `LeaveGroup` request; client reason: "
                  r"(?P<c>.*)", "", _cg_left),
        _Template(_CG + r"Converted the (?P<e>empty )?(?:classic|consumer) group to a (?P<to>consumer|classic) group",
                  "", _cg_converted)]),
    "Cannot": (False, [
        _Template(r"Cannot upgrade classic group " + _GROUP + r" to consumer group (?P<why>because (?:online upgrade "
                  r"is disabled|the group does not use the consumer embedded protocol|the group size exceeds the "
                  r"consumer group maximum size))", "", _cg_refused),
        _Template(r"Cannot upgrade classic group " + _GROUP + r" to consumer group (?P<why>because the embedded "
                  r"consumer protocol is malformed): .*", "", _cg_refused),
        _Template(r"Cannot upgrade classic group " + _GROUP + r" to consumer group: .*", "",
                  _cg_refused_as("upgrade_unsupported_version")),
        _Template(r"Cannot downgrade consumer group " + _GROUP + r" to classic group (?P<why>because (?:the online "
                  r"downgrade is disabled|its group size is greater than classic group max size))", "", _cg_refused),
        _Template(r"Cannot downgrade the consumer group " + _GROUP + r": fail to parse the Consumer Protocol \S+", "",
                  _cg_refused_as("downgrade_malformed_protocol"))]),
    "[GroupId=": (False, [
        _Template(r"\[GroupId=" + _GROUP + r"\] Unload(?:ing|ed) group metadata for (?:generation|group epoch) " + _GEN,
                  "", _unloaded)]),
    "Loading": (False, [
        _Template(r"Loading group metadata for " + _GROUP + r" with generation " + _GEN, "", _loaded)]),
    "Loaded": (False, [
        _Template(r"Loaded (?:classic|consumer) group " + _GROUP + r" with (?P<c>\d+) members", "", _loaded)]),
    "Unloading": (False, [
        _Template(r"Unloading group metadata for " + _GROUP + r" with generation " + _GEN, "", _unloaded)]),
}

_KEY = re.compile(r"\[GroupId=|\[GroupId(?= )|\[Group(?= )|[A-Za-z]+")


def _key(message: str) -> str:
    """The dispatch key: the first word ("Member" also for "Member[group.instance.id ...")."""
    m = _KEY.match(message)
    return m.group() if m else ""


class _Ctx:
    """What a template builder may need beyond the match: which prefix, whether the line was cut,
    and the parser's memory of each consumer group's last line (`recent`: group -> (time, what))."""

    __slots__ = ("prefix", "cut", "recent")

    def __init__(self, prefix: str, cut: bool, recent: dict | None = None):
        self.prefix, self.cut = prefix, cut
        self.recent = {} if recent is None else recent

    def note(self, group: str, time: int, what: str) -> None:
        self.recent[group] = (time, what)


_STRICT = [k for k, (strict, _) in _TEMPLATES.items() if strict]

# -- outcomes of one record ------------------------------------------------------------------------
_OTHER, _IGNORED, _EVENTS, _UNPARSED = range(4)


@dataclass
class ParseResult:
    """Events (ROW_FIELDS), lines kept aside (UNPARSED_FIELDS) and counters (COUNTS)."""

    rows: list = field(default_factory=list)
    unparsed: list = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    files: list = field(default_factory=list)   # what was read, in order
    origin: datetime = START_TIME                # the instant time 0 stands for

    def extend(self, other: "ParseResult") -> None:
        self.rows += other.rows
        self.unparsed += other.unparsed
        self.counts.update(other.counts)
        self.files += [f for f in other.files if f not in self.files]
        self.origin = other.origin

    @property
    def provenance(self) -> dict:
        """Where these events came from (kafkasim.core.provenance): the files read, and kafkasim's
        version; a real broker's Kafka version and configs are not in its log."""
        return provenance("kafkasim.analysis.log_parser", kafka_version=None, seed=None, configs=None,
                          inputs={"files": self.files, "origin": self.origin.isoformat()})

    def events(self):
        """The events as a pandas DataFrame (see `events_table`)."""
        import pandas as pd

        from kafkasim.core.events import to_frame

        df = to_frame([r[:len(FIELDS)] for r in self.rows])
        for i, name in enumerate(("file", "line", "seq"), start=len(FIELDS)):
            df[name] = pd.Series([r[i] for r in self.rows], dtype="object" if name == "file" else "int64")
        return df

    def events_table(self):
        """The events as a pyarrow Table: kafkasim's event schema plus `file`, `line` and `seq`
        (an order within the file: line * 1_000_000 + the event's index on its line)."""
        import pyarrow as pa

        from kafkasim.core.events import to_arrow

        table = to_arrow(self.rows, [pa.field("file", pa.string()), pa.field("line", pa.int64()),
                                     pa.field("seq", pa.int64())])
        return with_provenance(table, self.provenance)

    def unparsed_table(self):
        """The lines kept aside as a pyarrow Table (UNPARSED_FIELDS)."""
        import pyarrow as pa

        schema = pa.schema([("file", pa.string()), ("line", pa.int64()), ("problem", pa.string()),
                            ("text", pa.string())])
        columns = list(zip(*self.unparsed)) if self.unparsed else [()] * 4
        return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(columns, schema)], schema=schema)


class LogParser:
    """Parses the lines of one log file. `parse` may be called again for the next chunk."""

    def __init__(self, file: str = "<lines>", origin: datetime = START_TIME):
        self.file = file
        self.origin = origin
        self._seconds: dict[tuple, int] = {}
        self._records = 0  # coordinator records so far, to recognise adjacent ones
        self._last_added: tuple = (None, -1)
        self._recent: dict[str, tuple[int, str]] = {}  # consumer group -> its last line (time, what)

    # -- public ---------------------------------------------------------------------------------
    def parse(self, lines: Iterable[str], first_line: int = 1, lookahead: Iterable[str] = ()) -> ParseResult:
        """Parse `lines` (numbered from `first_line`). A record wrapped over the end of `lines` may
        take its continuation lines from `lookahead` (the start of the next chunk)."""
        result = ParseResult(files=[self.file], origin=self.origin)
        counts = result.counts
        self._result = result
        self._it = iter(lines)
        self._extra = iter(lookahead)
        self._pushed: list[str] = []
        self._owned_done = False
        n = first_line - 1
        other = physical = 0
        it, pushed = self._it, self._pushed
        while True:  # the hot loop: most lines of a server.log are other loggers'
            if pushed:
                line = pushed.pop()
            else:
                line = next(it, None)
                if line is None:
                    self._owned_done = True
                    break
            n += 1
            physical += 1
            if "[Group" not in line:
                other += 1
                continue
            used = self._record(line, n)
            n += used
            physical += used
        counts["lines"] += physical
        counts["other"] += other
        counts["unparsed"] = len(result.unparsed)
        counts["events"] = len(result.rows)
        return result

    # -- line supply (with pushback, and lookahead past the end of a chunk) ----------------------
    def _peek_line(self) -> tuple[str | None, bool]:
        """The next physical line and whether it belongs to this chunk (False: lookahead)."""
        if self._pushed:
            return self._pushed.pop(), True
        if not self._owned_done:
            line = next(self._it, None)
            if line is not None:
                return line, True
            self._owned_done = True
        return next(self._extra, None), False

    # -- one record ---------------------------------------------------------------------------
    def _record(self, line: str, n: int) -> int:
        """Handle a line that mentions a coordinator prefix; returns how many more physical
        lines it consumed (continuations)."""
        used = 0
        line = line.rstrip("\r\n")
        first = line[:1]
        if first.isdigit():
            cri = _CRI.match(line)
            if cri and cri.group(2) == "P":
                line, used = self._join_cri(line, cri)
        elif first == "{" or (first.isspace() and line.lstrip().startswith("{")):
            decoded, more = self._decode_json(line.lstrip())
            used += more
            if decoded is not None:
                line = decoded
        # A line without a logger name may be tried several ways (continuations): each try may
        # note what a consumer-group line says (`_Ctx.note`), so the memory is restored between tries.
        memory = None if any(logger in line for logger in _LOGGERS) else dict(self._recent)
        outcome = self._try(line)
        if outcome[0] != _OTHER and not outcome[1]:
            # No logger name at the end: the line may be wrapped onto the next ones.
            joined, extra, text = self._try_continuations(line, outcome, memory)
            if joined is not None:
                outcome = joined
                used += extra
                self._result.counts["joined"] += 1
            if memory is not None:  # replay the try that was kept, on the memory from before the tries
                self._recent.clear()
                self._recent.update(memory)
                self._try(text if joined is not None else line)
        self._emit(outcome, n, line)
        return used

    def _try(self, line: str):
        """(kind, complete, payload): kind is _OTHER / _IGNORED / _EVENTS / _UNPARSED."""
        mark = _MARK.search(line)
        if mark is None:
            return (_OTHER, True, None)
        rest = line[mark.end():]
        complete = False
        for logger in _LOGGERS:
            j = rest.rfind(logger)
            if j >= 0:
                rest, complete = rest[:j], True
                break
        message = rest.rstrip()
        head = line[:mark.start()]
        cut = False
        if not complete:
            if message.endswith(_ELLIPSES):
                message, cut = message.rstrip(".…"), True
            else:
                cut = _DEFAULT_HEAD.search(head) is not None
        return self._message(message, self._time(head), mark.lastgroup, complete, cut)

    def _message(self, message: str, time, prefix: str, complete: bool, cut: bool):
        key = _key(message)
        strict, templates = _TEMPLATES.get(key, (False, ()))
        if not templates and cut and (key == message or not message) and any(k.startswith(key) for k in _STRICT):
            return (_UNPARSED, complete, "truncated")
        for tpl in templates:
            m = tpl.full.fullmatch(message)
            if m is not None and not cut:
                if time is None:
                    return (_UNPARSED, complete, "no date and time in the line")
                events = tpl.build(m, time, _Ctx(prefix, False, self._recent))
                return (_EVENTS, complete, events) if events else (_IGNORED, complete, None)
        if not templates or not strict:
            return (_IGNORED, complete, None)
        if complete:
            return (_UNPARSED, complete, "unrecognised wording")
        for tpl in templates:
            if tpl.head is None:
                continue
            m = tpl.head.match(message)
            if m is not None:
                if time is None:
                    return (_UNPARSED, complete, "no date and time in the line")
                events = tpl.build(m, time, _Ctx(prefix, True, self._recent))
                kinds = ", ".join(e[4] for e in events)
                return (_EVENTS, complete, events, f"truncated, kept {kinds}" + (
                    " with a cut reason" if "(reason: " in message else ""))
        return (_UNPARSED, complete, "truncated or unrecognised wording")

    def _time(self, head: str) -> int | None:
        if head[:1] == "[" and head[24:25] == "]" and head[5:6] == "-" and head[20:21] == ",":  # Kafka's own layout, the fast way
            date, hms, frac, zone = head[1:11], head[12:20], head[21:24], None
        else:
            m = _TS.match(head)
            if m is None:
                return None
            date, hms, frac, zone = m.groups()
        key = (date, hms, zone)
        base = self._seconds.get(key)
        if base is None:
            try:
                dt = datetime.fromisoformat(f"{date}T{hms}")
            except ValueError:
                return None
            if zone:
                z = zone if zone == "Z" else zone[:3] + ":" + zone[-2:]
                dt = datetime.fromisoformat(f"{date}T{hms}{'+00:00' if z == 'Z' else z}")
                dt = dt.astimezone(timezone.utc).replace(tzinfo=None)
            base = self._seconds[key] = (dt - self.origin) // timedelta(milliseconds=1)
            if len(self._seconds) > 100_000:
                self._seconds.clear()
        return base + (int((frac + "00")[:3]) if frac else 0)

    # -- joining -------------------------------------------------------------------------------
    def _try_continuations(self, line: str, first, memory: dict | None = None):
        """Join up to MAX_CONTINUATION_LINES following lines without a date of their own; keep the
        first join that reads as a whole record. Lines not used are given back. Returns (outcome,
        lines used, joined text), or (None, 0, None)."""
        taken: list[tuple[str, bool]] = []
        texts = [line]  # a wrap may have kept or dropped the space at each break
        best = None
        for _ in range(MAX_CONTINUATION_LINES):
            nxt, owned = self._peek_line()
            if nxt is None:
                break
            taken.append((nxt, owned))
            cont = nxt.rstrip("\r\n")
            if not cont.strip() or "[Group" in cont or _TS_NEAR_START.search(cont[:80]):
                break
            texts = [text + sep + cont for text in texts for sep in ("", " ")]
            # Of the joins that read as a whole record, the one that yields the most events
            # (a dropped space shows as a member id glued to the next word).
            for text in texts:
                if memory is not None:
                    self._recent.clear()
                    self._recent.update(memory)
                outcome = self._try(text)
                if outcome[0] == _EVENTS and len(outcome) == 3 and (best is None or len(outcome[2]) > len(best[0][2])):
                    best = (outcome, len(taken), text)
            if best is not None:
                break
        used = best[1] if best is not None else 0
        for nxt, owned in reversed(taken[used:]):
            if owned:
                self._pushed.append(nxt)
        if best is None or (first[0] == _EVENTS and len(first) == 3 and not best[0][1]):
            return None, 0, None
        return best[0], used, best[2]

    def _join_cri(self, line: str, cri) -> tuple[str, int]:
        """Kubernetes CRI splits long lines: `<time> stdout P <part>` ... `<time> stdout F <last part>`."""
        parts, used = [line], 0
        while True:
            nxt, owned = self._peek_line()
            if nxt is None:
                break
            m = _CRI.match(nxt)
            if m is None:
                if owned:
                    self._pushed.append(nxt)
                break
            used += 1
            parts.append(nxt[m.end():].rstrip("\r\n"))
            if m.group(2) == "F":
                break
        return "".join(parts), used

    def _decode_json(self, text: str) -> tuple[str | None, int]:
        """The string inside a JSON log line that holds the coordinator message, with the JSON's
        own timestamp put in front when the message has none. Docker splits lines over 16 KB into
        entries whose "log" does not end in a newline: those are joined."""
        try:
            obj = json.loads(text)
        except ValueError:
            return None, 0
        if not isinstance(obj, dict):
            return None, 0
        used = 0
        log = obj.get("log")
        if isinstance(log, str) and not log.endswith("\n"):
            while True:
                nxt, owned = self._peek_line()
                if nxt is None:
                    break
                try:
                    part = json.loads(nxt).get("log")
                except (ValueError, AttributeError):
                    part = None
                if not isinstance(part, str):
                    if owned:
                        self._pushed.append(nxt)
                    break
                used += 1
                log += part
                if part.endswith("\n"):
                    break
            obj["log"] = log
        strings = [v for v in obj.values() if isinstance(v, str)]
        message = next((s for s in strings if _MARK.search(s)), None)
        if message is None:
            return None, used
        message = message.rstrip("\r\n")
        if _TS.match(message[:_MARK.search(message).start()]) is None:
            stamp = next((s for s in strings if s is not message and _TS_NEAR_START.match(s)), None)
            if stamp is not None:
                message = stamp + " " + message
        return message, used

    # -- results ---------------------------------------------------------------------------------
    def _emit(self, outcome, n: int, text: str) -> None:
        kind = outcome[0]
        result = self._result
        counts = result.counts
        if kind == _OTHER:
            counts["other"] += 1
            return
        counts["coordinator"] += 1
        self._records += 1
        if kind == _IGNORED:
            counts["ignored"] += 1
        elif kind == _UNPARSED:
            result.unparsed.append((self.file, n, outcome[2], text))
        else:
            k = 0
            for event in outcome[2]:
                if event[4] == "MemberAdded":
                    # The same addition told twice, by a join line and the next line's rebalance reason.
                    key = (event[0], event[2], event[3])
                    last, at = self._last_added
                    self._last_added = (key, self._records)
                    if key == last and at == self._records - 1:
                        continue
                result.rows.append((*event, self.file, n, n * 1_000_000 + k))
                k += 1
            if len(outcome) == 4:
                counts["salvaged"] += 1
                result.unparsed.append((self.file, n, outcome[3], text))


def parse_lines(lines: Iterable[str], file: str = "<lines>", origin: datetime = START_TIME,
                first_line: int = 1) -> ParseResult:
    """Parse log lines (e.g. `Run.broker_log`, or a pasted excerpt) into a ParseResult."""
    return LogParser(file, origin).parse(lines, first_line)


# -- files ----------------------------------------------------------------------------------------
def _open_text(path: str):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, encoding="utf-8", errors="replace", newline="")


def _split_lines(f) -> Iterator[str]:
    """Lines split on '\\n' only (so that line numbers agree with newline counts)."""
    tail = ""
    while True:
        block = f.read(1 << 20)
        if not block:
            break
        parts = (tail + block).split("\n")
        tail = parts.pop()
        yield from parts
    if tail:
        yield tail


def parse_file(path: str, origin: datetime = START_TIME) -> ParseResult:
    """Parse one file (plain or .gz) from its first line."""
    with _open_text(path) as f:
        return LogParser(str(path), origin).parse(_split_lines(f))


def parse_files(paths: Iterable[str], origin: datetime = START_TIME) -> ParseResult:
    """Parse files one after another (see `expand_paths` for directories)."""
    result = ParseResult()
    for path in paths:
        result.extend(parse_file(path, origin))
    return result


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files to read: a file as given; a directory gives its `server.log*` files (rotations
    `server.log.1`, `server.log.2024-03-05-20`, `.gz` included), searched recursively.
    FileNotFoundError names a path that does not exist or a directory without server logs."""
    out: list[str] = []
    for path in paths:
        path = os.fspath(path)
        if os.path.isfile(path):
            out.append(path)
        elif os.path.isdir(path):
            found = sorted(os.path.join(root, name) for root, _, names in os.walk(path)
                           for name in names if name.startswith("server.log"))
            if not found:
                raise FileNotFoundError(f"{path}: a directory without server.log files (Kafka writes the "
                                        f"coordinator's lines to server.log and its rotations server.log.*)")
            out += found
        else:
            raise FileNotFoundError(f"{path}: no such file or directory")
    return list(dict.fromkeys(out))


# -- chunks (for parallel readers such as Spark) ---------------------------------------------------
def chunk_plan(paths: list[str], chunk_bytes: int = 32 << 20) -> list[tuple[str, int, int]]:
    """(path, start, end) byte ranges of about `chunk_bytes`; a .gz file is one chunk (it cannot be split)."""
    plan = []
    for path in paths:
        size = os.path.getsize(path)
        if path.endswith(".gz") or size <= chunk_bytes:
            plan.append((path, 0, size))
        else:
            plan += [(path, start, min(start + chunk_bytes, size)) for start in range(0, size, chunk_bytes)]
    return plan


def count_newlines(path: str, start: int, end: int) -> int:
    """Newlines in bytes [start, end) of a plain file (for the line numbers of later chunks)."""
    count = 0
    with open(path, "rb") as f:
        f.seek(start)
        left = end - start
        while left > 0:
            block = f.read(min(left, 8 << 20))
            if not block:
                break
            count += block.count(b"\n")
            left -= len(block)
    return count


def parse_chunk(path: str, start: int, end: int, newlines_before: int = 0,
                origin: datetime = START_TIME) -> ParseResult:
    """Parse the lines that begin in bytes [start, end) of `path`; `newlines_before` is the number
    of newlines in [0, start) (see `count_newlines`), which numbers the lines."""
    if path.endswith(".gz") or (start == 0 and end >= os.path.getsize(path)):
        return parse_file(path, origin)
    with open(path, "rb") as f:
        first_line = newlines_before + 1
        if start > 0:
            f.seek(start - 1)
            if f.read(1) != b"\n":
                f.readline()  # the line that straddles `start` belongs to the previous chunk
                first_line += 1
        pos = f.tell()
        data = f.read(max(end - pos, 0))
        if data and not data.endswith(b"\n"):
            data += f.readline()  # the last line that begins before `end`, read to its end
        text = data.decode("utf-8", errors="replace")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()

        def lookahead():
            for _ in range(MAX_CONTINUATION_LINES + 1):
                raw = f.readline()
                if not raw:
                    return
                yield raw.decode("utf-8", errors="replace")

        return LogParser(str(path), origin).parse(lines, first_line, lookahead())
