"""Real Kafka broker logs (`server.log`, its rotations, pasted excerpts) read back into kafkasim's event schema.

Pure Python (no Spark, no Java): it runs on a laptop, and `kafkasim.analysis.spark.parse_broker_logs`
runs the same code inside Spark executors. The simulator writes its broker log with
`kafkasim.coordinator.broker_log`; this module is its inverse, and reads real logs of every Kafka version
with a group coordinator, 0.9 to 4.x (wording by version: docs/broker-log-parser.md, read at each
release tag from `GroupCoordinator.scala`, `GroupMetadataManager.scala` and the Java
`group-coordinator/.../GroupMetadataManager.java`). What it promises for damaged input, and every
pasted form it reads, with an example of each: docs/log-reader.md.

How a line is read
------------------
1. Find the coordinator's own message prefix anywhere in the line: `[GroupCoordinator N]:`
   (0.9 to 3.9), `[GroupCoordinator id=N topic=__consumer_offsets partition=P]` (the new
   coordinator, default from 4.0), `[GroupMetadataManager brokerId=N]` (1.0+) or
   `[Group Metadata Manager on Broker N]:` (0.9 to 0.11). Lines without one are other loggers'
   lines: counted, never parsed further (which is what makes a real `server.log` fast to read).
2. Everything before the prefix is the "head" (log4j date and level, and whatever a container
   runtime or a copy-paste put in front); the last date-time in it is the event's time (the
   layouts read: `_WHEN`). Everything after is the message, up to the logger name
   `(kafka.coordinator...)` / `(org.apache.kafka.coordinator...)` when the layout prints one (Kafka's
   default `[%d] %p %m (%c)%n`, its test layout `(%c:%L)`, Strimzi's `... (%c) [%t]`).
3. The message is matched against the wordings (see "Wordings covered"). JSON lines (Docker's json-file driver,
   log4j JSON layouts) are decoded first; Kubernetes CRI partial lines (`... stdout P ...`)
   and Docker partial entries are joined; a line wrapped by hand or by a terminal is joined
   with the lines that follow it when they carry no date of their own.

Pastes: terminal frames (box-drawing characters such as `│` at the edges of a line, or inside it
where a terminal UI wrapped it) are removed before matching; two records fused into one line are
split; a record without a date of its own takes its time from its neighbours and is flagged
(``time_inferred``, see "Time").

Outcomes: every coordinator record yields events, or is a known line that carries no event
(start-up, offsets loading, KIP-848 regex scans and DEBUG lines: counted as ``ignored``), or is kept
aside in ``unparsed`` with its file, line number, the problem and the text. A damaged record whose
fields are complete still yields its events and is also listed in ``unparsed`` (counted as
``salvaged``): a truncated line (its cut reason text ending in "…"), an impossible date or a zone
not understood, a number no column can hold (a generation past 2^31 is left empty). A file that
cannot be read, or not to its end (missing, a FIFO or other non-regular file, a damaged gzip
stream), is one row of ``unparsed`` with an empty text (`ParseResult.file_problems`). Nothing is
fatal: for any bytes in any file the reader returns what it could read, in time linear in the
input (the patterns commit to the first reading of each field, and lines are read up to
MAX_LINE_CHARS).

Time: ``time`` is milliseconds since `origin` (default `broker_log.START_TIME`, so a simulated
log reads back to the simulated times; for a real log, `START_TIME + timedelta(milliseconds=time)`
is the wall-clock time again). Log4j prints local time without a zone; dates that carry a zone
(`Z`, `+01:00`) are converted to UTC. A record without a date of its own (cut off by a paste, or
an impossible one) takes the time of the nearest line before it that has one (the line just
before it, of any logger, else the previous coordinator record), else of the next coordinator
record; one with a time of day only takes the day from that neighbour. Its events carry
``time_inferred`` = True (a column of `ROW_FIELDS` beside the event schema, which the simulator's
events do not have). With no dated line in the whole file (or Spark chunk), the events are kept at
time 0 and listed in ``unparsed``.

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
because Kafka logs both alike, and before 3.2 a poll-timeout LeaveGroup reads as "leave_group". A
group id that contains the words which follow it in its line (" generation ", " has failed") is
read up to their first occurrence.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import re
import stat
import zlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Iterator

from kafkasim.analysis import output_folders, write_parquet_atomically
from kafkasim.coordinator.broker_log import START_TIME
from kafkasim.coordinator.classic.coordinator import POLL_TIMEOUT_PREFIX  # the client's reason for a KIP-62 poll-timeout LeaveGroup
from kafkasim.core.events import FIELDS
from kafkasim.core.provenance import provenance, with_provenance

#: Lines of one record a wrapped line may be spread over (the first and up to 3 more).
MAX_CONTINUATION_LINES = 3
#: Characters of a line that are read. A longer coordinator line is read as cut at this length
#: (its events kept when its fields are complete) and listed in ``unparsed``; the rest of it is
#: skipped without being held in memory. Kafka's longest lines (a KIP-848 target assignment of a
#: large group, a Set of members that did not rejoin) stay well below it.
MAX_LINE_CHARS = 1 << 20
#: Characters of a line's text kept in ``unparsed``; a longer text is cut, its length noted.
MAX_KEPT_CHARS = 16 << 10
#: Columns of `ParseResult.rows`: the event schema, then where the event was read, and whether its
#: time was taken from the neighbouring lines (the line had no date of its own, or an impossible one).
ROW_FIELDS = (*FIELDS, "file", "line", "seq", "time_inferred")
#: Columns of `ParseResult.unparsed`.
UNPARSED_FIELDS = ("file", "line", "problem", "text")
#: Counters of a parse (`ParseResult.counts`): physical lines; coordinator records (a fused line
#: counts each of its records); events; records without an event; rows of ``unparsed``; damaged
#: records whose events were kept; records joined from wrapped lines; other loggers' lines; records
#: split off a fused line; records whose time was inferred; files (or chunks) not read to their end.
COUNTS = ("lines", "coordinator", "events", "ignored", "unparsed", "salvaged", "joined", "other", "split",
          "inferred", "unreadable")

_INF = float("inf")
_INT32 = (-(1 << 31), (1 << 31) - 1)   # Arrow's int32: generation and partition columns
_EXACT = float(1 << 53)                 # the largest integer a float64 `value` holds exactly

# The coordinator's message prefixes; the group that matched (`Match.lastgroup`) names the source.
_MARK = re.compile(
    r"\[(?:GroupCoordinator (?P<coordinator>-?\d++)\]:? ?"
    r"|GroupCoordinator id=(?P<new_coordinator>-?\d++) topic=\S++ partition=\d++\] ?"
    r"|GroupMetadataManager brokerId=(?P<metadata_manager>-?\d++)\] ?"
    r"|Group Metadata Manager on Broker (?P<old_metadata_manager>-?\d++)\]:? ?)")
_LOGGERS = (" (kafka.coordinator", " (org.apache.kafka.coordinator")

# -- dates ------------------------------------------------------------------------------------------
# The layouts Kafka deployments print, the last one in the head wins (the application's own date,
# after any container runtime's):
#   2024-03-05 20:21:14,681   log4j's default and ISO8601 (Kafka's `[%d]`), also with T, `.`, up to 9 digits
#   2024/03/05 20:21:14       yyyy/MM/dd
#   24/03/05 20:21:14         yy/MM/dd, the Spark and Hadoop log4j layouts
#   05 Mar 2024 20:21:14,681  log4j's DATE
#   20:21:14,681              a time of day only (log4j's ABSOLUTE, a syslog `Mar  5 20:21:14`, or a
#                             date cut off by a paste): the day comes from the neighbouring lines
# each with an optional zone: Z, UTC, GMT, +01:00, +0100, +01. Only the last 512 characters of the
# head are searched, so a long head costs no more than a short one.
_DATE = r"\d{4}-\d\d-\d\d|\d{4}/\d\d/\d\d|\d\d/\d\d/\d\d|\d\d? [A-Z][a-z]{2} \d{4}"
_WHEN = re.compile(
    r".*(?:(?<!\d)(?P<date>" + _DATE + r")[T ]|(?<![\d:])(?<!\d[-/]\d\d[ T])(?<!\d{4} ))"
    r"(?P<hms>\d\d:\d\d:\d\d)(?![\d:])(?:[,.](?P<f>\d{1,9}))?"
    r"(?: ?(?P<z>Z|UTC|GMT|[+-]\d\d(?::?\d\d)?)(?![\w:]))?", re.S | re.A)
_HEAD_WINDOW = 512
#: The start of a record: a date and time (with the `[` of Kafka's layout). Inside a message it
#: marks a second line fused on by a paste; at the start of a line it ends a wrapped record.
_RECORD_START = re.compile(r"\[?(?<!\d)(?:" + _DATE + r")[T ]\d\d:\d\d:\d\d", re.A)
_LINE_START_TIME = re.compile(r"(?<![\d:])\d\d:\d\d:\d\d(?![\d])", re.A)
_LEVEL_END = re.compile(r"(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL) *$")
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                       "Nov", "Dec"), start=1)}
_DAY_MS = 86_400_000

_CRI = re.compile(r"(\S++ (?:stdout|stderr) )([PF]) ")
# Kafka's default layout `[%d] %p %m (%c)%n`: with this head a line without its logger was cut.
_DEFAULT_HEAD = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] [A-Z]++ $")
_ELLIPSES = ("...", "…")

# -- terminal frames -------------------------------------------------------------------------------
# Box-drawing characters and block elements (U+2500 - U+259F): the borders terminal UIs (k9s,
# tmux panes, bat) draw around and inside what a user copies. Kafka never writes them.
_BOX = "".join(map(chr, range(0x2500, 0x25A0)))
_EDGE = _BOX + " \t\r\n"
# A left border, possibly after a line number (`  12 │ ...`), and a frame inside a line.
_LEFT_FRAME = re.compile(r"[ \t]*+(?:\d++[ \t]*+)?[\u2500-\u259f](?:[ \t]*+[\u2500-\u259f])*+(?P<pad>[ \t]*+)")
_INNER_FRAME = re.compile(r"(?P<before>[ \t]*+)[\u2500-\u259f](?:[ \t]*+[\u2500-\u259f])*+(?P<after>[ \t]*+)")
#: Breaks inside one framed line tried both ways (with and without a space); a line with more
#: breaks than this (more than a wrapped record has) is joined the likelier way only.
_MAX_FRAME_BREAKS = 4


class _Template:
    """One wording: `head` + `tail` must match the whole message (a trailing '.' is optional,
    because the new coordinator adds one); a cut line may still be `salvage`d from `head` alone
    when every field the head captures is followed by its delimiter."""

    __slots__ = ("full", "head", "build")

    def __init__(self, head: str, tail: str, build: Callable, salvage: bool = False):
        self.full = re.compile(head + tail + r"\.?", re.S)
        self.head = re.compile(head + r"(?=[ .,:(\]])", re.S) if salvage else None
        self.build = build


def _ev(t, kind, group, member=None, generation=None, reason=None, value=None, state=None, error=None) -> tuple:
    return (t, "coordinator", group, member, kind, generation, None, None, error, reason, value, state)


def _int(text):
    """A number of the line; past 18 digits (which `int` may refuse to convert, and no Arrow column
    holds) it is infinite, whatever its sign, so that the range check of `LogParser._emit` leaves the
    field empty (and `_number` names it "of more than 18 digits")."""
    if text is None:
        return None
    if len(text) > 19:
        return _INF
    return int(text)


def _members(text: str) -> list[str]:
    return [m for m in (s.strip() for s in text.split(",")) if m]


def _leave_reason(client_reason: str | None) -> str:
    return "poll_timeout" if (client_reason or "").startswith(POLL_TIMEOUT_PREFIX) else "leave_group"


_ADDING = re.compile(r"Adding new member (\S+?)(?: with group instance ?id (\S+?))?(?:;|$)")
_PENDING_SYNC = re.compile(r"Removing (?:Set\((.*)\)|\[(.*)\]) on pending sync request expiration", re.S)


def _preparing(m, t, ctx):
    g, n, reason = m["g"], _int(m["n"]), m.groupdict().get("r")
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
    return [_ev(t, "GenerationStabilized", m["g"], None, _int(m["n"]), value=_int(m.groupdict().get("c")),
                state="CompletingRebalance")]


def _assignment(m, t, ctx):
    g, n, leader, count = m["g"], _int(m["n"]), m["l"], _int(m.groupdict().get("c"))
    return [_ev(t, "AssignmentReceived", g, leader, n, value=count, state="CompletingRebalance"),
            _ev(t, "GroupStable", g, leader, n, value=count, state="Stable")]


def _empty(m, t, ctx):
    return [_ev(t, "GroupEmpty", m["g"], None, _int(m["n"]), state="Empty")]


def _dead_and_removed(m, t, ctx):
    if ctx.prefix == "old_metadata_manager":  # 0.10.1's GroupMetadataManager: the group's offsets expired
        return [_ev(t, "GroupDead", m["g"], None, _int(m["n"]), "expired", state="Dead")]
    # 0.9-0.10.0 GroupCoordinator: a join phase ended with nobody; the group is removed, generation kept.
    return [_ev(t, "GroupEmpty", m["g"], None, _int(m["n"]), state="Dead")]


def _dead(m, t, ctx):
    return [_ev(t, "GroupDead", m["g"], None, _int(m["n"]), state="Dead")]


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
    value = float(_int(epoch.group(1))) if epoch else None
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
    g, n = m["g"], _int(m["n"])
    last = ctx.recent.pop(g, None)
    if n == 1:
        reason = "new_group"
    elif last is not None and t is not None and last[0] is not None and 0 <= t - last[0] <= RECENT_MS:
        reason = _BUMPED_BY.get(last[1])
    else:
        reason = None
    return [_ev(t, "GroupEpochBumped", g, None, n, reason, float(n))]


def _cg_target(m, t, ctx):
    ctx.note(m["g"], t, "other")
    return [_ev(t, "TargetAssignmentComputed", m["g"], None, _int(m["n"]), m["a"])]


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
_OFFSETS_TP = r"(?: \(__consumer_offsets-\d++\))?"
_N = r"(?P<n>-?\d++)"
_M = r"(?P<m>\S++)"
_JOIN_STATE = r" in (?P<s>\w++) state\. "


def _cg(rest: str) -> str:
    """A consumer-group line: `[GroupId g] ` and what follows, the group read up to the first place
    where all of `rest` matches (an atomic group: what follows never makes it try a longer id)."""
    return r"\[GroupId (?>(?P<g>.+?)\] " + rest + ")"


# How the patterns stay linear: every field of free length (a group id `.+?`, a member `\S`, a number
# `\d`) is followed, inside an atomic group `(?>...)` or by a possessive quantifier, by what
# delimits it, so that once read it is never read again another way; free text (a reason, a
# client reason, a list) comes last. A long line built to make a pattern backtrack costs a few
# passes over the line, not its square (tests/test_log_parser_robustness.py measures it).
#: first word of the message -> (strict, templates). An unmatched message under a strict key is
#: kept aside as unparsed; under a lenient key (lines Kafka has many more of) it is ignored.
_TEMPLATES: dict[str, tuple[bool, list[_Template]]] = {
    "Preparing": (True, [
        _Template(r"Preparing to (?:rebalance|restabilize) group (?>(?P<g>.+?) (?:in state (?P<s>\w++) )?"
                  r"with old generation " + _N + ")", _OFFSETS_TP + r"(?: \(reason: (?P<r>.*)\))?", _preparing, True)]),
    "Stabilized": (True, [
        _Template(r"Stabilized group (?>(?P<g>.+?) generation " + _N + ")",
                  _OFFSETS_TP + r"(?: with (?P<c>\d++) members)?", _stabilized, True)]),
    "Assignment": (True, [
        _Template(r"Assignment received from leader (?:(?P<l>\S++) )?for group (?>(?P<g>.+?) for generation " + _N +
                  ")", r"(?:\. The group has (?P<c>\d++) members, \d++ of which are static)?", _assignment, True)]),
    "Group": (True, [
        _Template(r"Group (?>(?P<g>.+?) with generation " + _N + r" is now empty)", _OFFSETS_TP, _empty, True),
        _Template(r"Group (?>(?P<g>.+?) generation " + _N + r" is dead and removed)", "", _dead_and_removed),
        _Template(r"Group (?>(?P<g>.+?) transitioned to Dead in generation " + _N + ")", "", _dead),
        _Template(r"Group (?>(?P<g>.+?) removed dynamic members who haven't joined: )",
                  r"(?:Set\((?P<set>.*)\)|\[(?P<list>.*)\])", _not_rejoined),
        _Template(r"Group (?>.+? (?:is dead, skipping rebalance stage|could not complete rebalance because no members "
                  r"rejoined))", "", _nothing),
        _Template(r"Group (?>.+? removed members who haven't sent their sync request: )", ".*", _nothing)]),
    "Member": (True, [
        _Template(r"Member " + _M + r" in group (?>(?P<g>.+?) has failed)", r"(?:, removing it from the group)?",
                  _removed("session_timeout"), True),
        _Template(r"Member " + _M + r" in group (?>(?P<g>.+?) has left)", r", removing it from the group",
                  _removed("leave_group"), True),
        _Template(r"Member\[group\.instance\.id (?>.*?, member\.id )(?>(?P<m>\S+?)\] in group )(?>(?P<g>.+?) has left)",
                  r", removing it from the group", _removed("leave_group"), True),
        _Template(r"Member MemberMetadata\(memberId=(?P<m>[^,]++), (?>.*?\) has left group )"
                  r"(?>(?P<g>.+?) through explicit `LeaveGroup`)", _LEFT_TAIL, _left, True)]),
    "Pending": (True, [
        _Template(r"Pending member " + _M + r" in group (?>(?P<g>.+?) has been removed after session timeout "
                  r"expiration)", "", _pending_expired),
        _Template(r"Pending member " + _M + r" is leaving group (?P<g>.+?)", "", _removed("leave_group")),
        _Template(r"Pending member with memberId=" + _M + r" has left group (?>(?P<g>.+?) through explicit "
                  r"`LeaveGroup` request)", r"(?:; client reason: (?P<c>.*))?", _left),
        _Template(r"Pending dynamic member with id " + _M + r" joins group (?>(?P<g>.+?)" + _JOIN_STATE +
                  r"Adding to the group now)", "", _added(False))]),
    "Dynamic": (True, [
        _Template(r"Dynamic member with unknown member id (?:re)?joins group (?>(?P<g>.+?)" + _JOIN_STATE +
                  r"Created a new member id " + _M + r" and request(?:ing)? the member to rejoin with this id)",
                  "", _pending_added),
        _Template(r"(?P<k>Dynamic) Member with unknown member id joins group (?>(?P<g>.+?)" + _JOIN_STATE +
                  r"Created a new member id " + _M + r" for this member and add to the group)", "", _added()),
        _Template(r"Dynamic member with unknown member id joins group (?>(?P<g>.+?) in state (?P<s>\w++)\. "
                  r"Created a new member id " + _M + r" and added the member to the group)", "", _added(False))]),
    "Static": (True, [
        _Template(r"Static member with groupInstanceId=\S++ and unknown member id joins group (?>(?P<g>.+?)" +
                  _JOIN_STATE + r"(?:Replacing previously mapped member (?P<o>\S++) with this groupInstanceId|Created "
                  r"a new member id (?P<m>\S++) for this member and (?:add|added) to the group))", "", _static_joined),
        _Template(r"(?P<k>Static) Member with unknown member id joins group (?>(?P<g>.+?)" + _JOIN_STATE +
                  r"Created a new member id " + _M + r" for this member and add to the group)", "", _added()),
        _Template(r"Static member \S++ of group (?>(?P<g>.+?) with unknown member id rejoins, assigning new member "
                  r"id (?P<m>\S+?), while old member id (?P<o>\S++) will be removed)", "", _replaced),
        _Template(r"Static member \S++ with unknown member id rejoins, assigning new member id (?>(?P<m>\S+?), while "
                  r"old member (?P<o>\S++) will be removed)", "", _replaced),
        _Template(r"Static member which joins during Stable stage and doesn't affect (?:selectProtocol|the selected "
                  r"protocol) will not trigger (?:a )?rebalance", "", _nothing)]),
    "[Group": (True, [
        _Template(r"\[Group (?>(?P<g>.+?)\] (?:Pending member|Member|Dynamic Member|Static Member) " + _M +
                  r"(?: with instance id \S++)? has left group through explicit `LeaveGroup` request)",
                  r"; client reason: (?P<c>.*)", _left)]),
    "[GroupId": (False, [
        _Template(_cg(r"(?:(?P<k>Static) member|Member) " + _M + r"(?: with instance id \S++)? joins the consumer "
                      r"group"), r"(?: using the (?P<p>\w++) protocol)?", _cg_joined),
        _Template(_cg(r"Bumped group epoch to " + _N), r"(?: with metadata hash -?\d++)?", _cg_epoch),
        _Template(_cg(r"Computed a new target assignment for epoch " + _N + r" with '(?P<a>[^']*+)' assignor"),
                  r"(?: in \d++ms)?(?:: .*)?", _cg_target, True),
        _Template(_cg(r"Member " + _M + r" fenced from the group because "), r"(?P<r>.*)", _fenced),
        _Template(_cg(r"Member " + _M + r" left the consumer group"), "", _cg_left),
        _Template(_cg(r"Static [Mm]ember " + _M + r" with instance id \S++ left the consumer group"), "", _cg_left),
        _Template(_cg(r"Static [Mm]ember " + _M + r" with instance id \S++ temporarily left the consumer group"),
                  "", _cg_left_temporarily),
        _Template(_cg(r"Static member with (?:unknown member id and )?instance id \S++ re-joins the consumer group"
                      r"(?: using the \w++ protocol)?\. Created a new member " + _M + r" to replace the existing "
                      r"member "), r"(?P<o>\S+?)", _cg_replaced),
        _Template(_cg(r"Static member " + _M + r" with instance id \S++ re-joins the consumer group"), "",
                  _cg_replaced),  # 3.7: the old member is not named
        _Template(_cg(r"Static member " + _M + r" with instance id \S++ cannot join the group because the "
                      r"instance id is (?:is )?owned by member "), r"\S+", _cg_refused_heartbeat("UNRELEASED_INSTANCE_ID", 0.0)),
        _Template(_cg(r"Static member " + _M + r" with instance id \S++ is fenced by existing member "), r"\S+",
                  _cg_refused_heartbeat("FENCED_INSTANCE_ID", None)),
        _Template(_cg(r"Failed to compute a new target assignment for epoch " + _N + r": "), ".*",
                  _cg_refused_heartbeat("UNKNOWN_SERVER_ERROR", None)),
        _Template(_cg(r"Scanned \d++ topics to refresh regular expressions \["), r".*\] in \d++ms", _cg_scanned),
        _Template(_cg(r"Dynamic member with unknown member id joins the consumer group\. Created a new member id " +
                      _M + r" and requesting the member to rejoin with this id"), "", _cg_pending),
        _Template(_cg(r"(?:Dynamic member " + _M + r"|Static member (?P<s>\S++) with instance id \S++) has left "
                      r"group through explicit `LeaveGroup` request; client reason: "), r"(?P<c>.*)", _cg_left),
        _Template(_cg(r"Converted the (?P<e>empty )?(?:classic|consumer) group to a (?P<to>consumer|classic) group"),
                  "", _cg_converted)]),
    "Cannot": (False, [
        _Template(r"Cannot upgrade classic group (?>(?P<g>.+?) to consumer group (?P<why>because (?:online upgrade "
                  r"is disabled|the group does not use the consumer embedded protocol|the group size exceeds the "
                  r"consumer group maximum size)))", "", _cg_refused),
        _Template(r"Cannot upgrade classic group (?>(?P<g>.+?) to consumer group (?P<why>because the embedded "
                  r"consumer protocol is malformed): )", ".*", _cg_refused),
        _Template(r"Cannot upgrade classic group (?>(?P<g>.+?) to consumer group: )", ".*",
                  _cg_refused_as("upgrade_unsupported_version")),
        _Template(r"Cannot downgrade consumer group (?>(?P<g>.+?) to classic group (?P<why>because (?:the online "
                  r"downgrade is disabled|its group size is greater than classic group max size)))", "", _cg_refused),
        _Template(r"Cannot downgrade the consumer group (?>(?P<g>.+?): fail to parse the Consumer Protocol )", r"\S+",
                  _cg_refused_as("downgrade_malformed_protocol"))]),
    "[GroupId=": (False, [
        _Template(r"\[GroupId=(?>(?P<g>.+?)\] Unload(?:ing|ed) group metadata for (?:generation|group epoch) " + _N +
                  ")", "", _unloaded)]),
    "Loading": (False, [
        _Template(r"Loading group metadata for (?>(?P<g>.+?) with generation " + _N + ")", "", _loaded)]),
    "Loaded": (False, [
        _Template(r"Loaded (?:classic|consumer) group (?>(?P<g>.+?) with (?P<c>\d++) members)", "", _loaded)]),
    "Unloading": (False, [
        _Template(r"Unloading group metadata for (?>(?P<g>.+?) with generation " + _N + ")", "", _unloaded)]),
}
_NO_TEMPLATES = (False, ())


# -- share groups (KIP-932): the INFO lines GroupMetadataManager.java writes for a share group -------
# Read at 4.0.0 / 4.1.1 / 4.2.0 and confluentinc/kafka branches 4.3 and 4.4 (the wordings did not change):
#   "[GroupId g] Member m joins the share group using the share protocol."  (every epoch-0 heartbeat)
#   "[GroupId g] Member m left the share group."                             (shareGroupLeave)
#   "[GroupId g] Member m new assignment state: epoch=E, previousEpoch=P, state=STABLE,
#    assignedPartitions=[...]."                                              (maybeReconcile; INFO for share)
#   "[GroupId g] Computed a new target assignment for epoch E with '<SimpleAssignor object>' assignor ..."
#   "Loaded share group g with n members."
# The epoch bump and the session-expiry fence share the consumer groups' wording (read above). Kept
# in one table so that it can move with the parser: `SHARE_GROUP_TEMPLATES`, merged in front of the
# general ones below. A share member's new epoch is a MemberEpochBumped only when it differs from the
# epoch its last line showed (a subscription change reassigns at the same epoch).
_SIMPLE_ASSIGNOR = r"org\.apache\.kafka\.coordinator\.group\.assignor\.SimpleAssignor@[^']*+"


def _sg_joined(m, t, ctx):
    ctx.note(m["g"], t, "joined")
    return [_ev(t, "MemberJoined", m["g"], m["m"])]


def _sg_left(m, t, ctx):
    ctx.note(m["g"], t, "removed")
    ctx.recent.pop((m["g"], m["m"]), None)
    return [_ev(t, "MemberRemoved", m["g"], m["m"], reason="leave_group")]


def _sg_reconciled(m, t, ctx):
    """A new member epoch, once per epoch (the memory is keyed (group, member), apart from groups)."""
    g, member, epoch = m["g"], m["m"], _int(m["n"])
    last = ctx.recent.get((g, member))
    ctx.recent[(g, member)] = (t, epoch)
    if (last[1] if last is not None else _int(m["p"])) == epoch:
        return []
    return [_ev(t, "MemberEpochBumped", g, member, reason=m["s"], value=float(epoch))]


def _sg_target(m, t, ctx):
    ctx.note(m["g"], t, "other")
    return [_ev(t, "TargetAssignmentComputed", m["g"], None, _int(m["n"]), "simple")]


SHARE_GROUP_TEMPLATES: dict[str, list[_Template]] = {
    "[GroupId": [
        _Template(_cg(r"Member " + _M + r" joins the share group using the share protocol"), "", _sg_joined),
        _Template(_cg(r"Member " + _M + r" left the share group"), "", _sg_left),
        _Template(_cg(r"Member " + _M + r" new assignment state: epoch=" + _N + r", previousEpoch=(?P<p>-?\d++), "
                      r"state=(?P<s>\w++), assignedPartitions=\["), r"[^\]]*+\]", _sg_reconciled),
        _Template(_cg(r"Computed a new target assignment for epoch " + _N + r" with '" + _SIMPLE_ASSIGNOR +
                      r"' assignor"), r"(?: in \d++ms)?(?:: .*)?", _sg_target, True)],
    "Loaded": [_Template(r"Loaded share group (?>(?P<g>.+?) with (?P<c>\d++) members)", "", _loaded)],
}
for _key_, _share_templates in SHARE_GROUP_TEMPLATES.items():
    _TEMPLATES[_key_][1][:0] = _share_templates

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

    def note(self, group: str, time: int | None, what: str) -> None:
        self.recent[group] = (time, what)


_STRICT = [k for k, (strict, _) in _TEMPLATES.items() if strict]


# -- outcomes of one record ------------------------------------------------------------------------
_OTHER, _IGNORED, _EVENTS, _UNPARSED = range(4)
# An outcome is a tuple: (kind, complete, payload, note, time, time inferred, time of day, split, partial):
#   complete  the line ended with its logger name (it cannot continue on the next line)
#   payload   the events (_EVENTS), or the problem (_UNPARSED)
#   note      what to list in `unparsed` beside the events of a damaged record (None: nothing)
#   time      ms since the origin (None: no time yet, the next dated record gives it)
#   tod       the record's own time of day when it had no date
#   split     the record was split off another line fused onto it
#   partial   the events were read from the head of a cut line (a salvage)
_OTHER_OUTCOME = (_OTHER, True, None, None, None, False, None, False, False)
_FUSED = (_OTHER, True, None, None, None, False, None, True, False)  # see `_try`
_NO_TIME = (None, None, None)
_MS = timedelta(milliseconds=1)
_BOX_SET = frozenset(_BOX)


def _kept(text: str) -> str:
    """A line's text as kept in ``unparsed`` (cut past MAX_KEPT_CHARS)."""
    if len(text) <= MAX_KEPT_CHARS:
        return text
    return f"{text[:MAX_KEPT_CHARS]}… ({len(text):,} characters)"


def _join(*notes) -> str | None:
    kept = [n for n in notes if n]
    return "; ".join(kept) if kept else None


def _no_surrogates(text: str) -> str:
    """JSON may spell lone UTF-16 surrogates (`"\\ud800"`), which no UTF-8 column (Arrow, Parquet) holds."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _offset(zone: str) -> timedelta | None:
    """The UTC offset a zone stands for; None for one no clock has (beyond ±18:00, as Java's ZoneOffset)."""
    if zone in ("Z", "UTC", "GMT"):
        return timedelta(0)
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    if hours > 18 or minutes > 59 or (hours == 18 and minutes):
        return None
    offset = timedelta(hours=hours, minutes=minutes)
    return -offset if zone[0] == "-" else offset


def _number(x) -> str:
    return "of more than 18 digits" if x == _INF else f"{x:,}" if isinstance(x, int) else f"{x:g}"  # _INF: see `_int`


def _in_range(event: tuple) -> tuple[tuple, str]:
    """The event without the numbers no column holds exactly (generation: int32; value: a float64
    integer up to 2^53), and what was left out."""
    g, v = event[5], event[10]
    why = []
    if g is not None and not _INT32[0] <= g <= _INT32[1]:
        why.append(f"generation {_number(g)} out of range (a 32-bit integer): left empty")
        g = None
    if v is not None and not -_EXACT <= v <= _EXACT:
        why.append(f"value {_number(v)} out of range: left empty")
        v = None
    return (*event[:5], g, *event[6:10], v, *event[11:]), "; ".join(why)


def _strip_frame(line: str) -> tuple[str, bool, int, int]:
    """(text, framed, spaces inside the left border, spaces inside the right border): the line
    without the terminal frames at its edges (a left border possibly after a line number, a right
    border)."""
    framed, left, right_pad = False, 0, 0
    m = _LEFT_FRAME.match(line)
    if m is not None:
        framed, left = True, len(m.group("pad"))
        line = line[m.end():]
    right = line.rstrip(" \t\r\n")
    if right and right[-1] in _BOX_SET:
        framed = True
        line = right.rstrip(_EDGE)
        frame = right[len(line):]  # the spaces and borders at the end
        right_pad = len(frame) - len(frame.lstrip(" \t"))
    return line, framed, left, right_pad


def _inner_frames(line: str, start: int = 0, pad: int = 0) -> tuple[list[str], list[str]]:
    """The pieces of a line between the frames inside it (after `start`), and the likelier joint at
    each break: a space when a side of the frame had more spaces than the frame's padding `pad`
    (a terminal fills a wrapped row to its border, so a wider gap is a space of the text), none
    when the frame sat against the text."""
    runs = list(_INNER_FRAME.finditer(line, start))
    if not runs:
        return [line], []
    pieces, seps = [line[:runs[0].start()]], []
    for i, run in enumerate(runs):
        end = runs[i + 1].start() if i + 1 < len(runs) else len(line)
        spaced = len(run.group("before")) > pad or len(run.group("after")) > pad
        seps.append(" " if spaced else "")
        pieces.append(line[run.end():end])
    return pieces, seps


def _joins(pieces: list[str], seps: list[str], tries: int) -> list[str]:
    """The pieces joined: the likelier joint at every break first, then the other one at each of
    the first `tries` breaks (2^tries texts, each built once: linear in the line)."""
    n_alt = min(len(seps), tries)
    out = []
    for mask in range(1 << n_alt):
        parts = [pieces[0]]
        for i, piece in enumerate(pieces[1:]):
            sep = seps[i]
            if i < n_alt and mask >> i & 1:
                sep = "" if sep else " "
            parts += (sep, piece)
        out.append("".join(parts))
    return out


def _fused_cuts(line: str, first) -> list[int]:
    """Where the second, third ... records of a line begin, when a paste fused several into one:
    after the previous record's logger name, else at the last date-time before the next prefix,
    else before the level word in front of it, else at the prefix itself."""
    cuts = []
    prev = first.end()
    for m in _MARK.finditer(line, prev):
        region = line[prev:m.start()]
        cut = None
        found = [j for j in (region.find(logger) for logger in _LOGGERS) if j >= 0]
        if found:
            close = region.find(")", min(found) + 2)
            if close >= 0:
                cut = close + 1
        if cut is None:
            last = None
            for last in _RECORD_START.finditer(region):
                pass
            if last is not None:
                cut = last.start()
            else:
                level = _LEVEL_END.search(region, max(0, len(region) - 12))
                cut = level.start() if level is not None else len(region)
        cuts.append(prev + cut)
        prev = m.end()
    return cuts


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
    def file_problems(self) -> list:
        """(file, line, problem) for each file (or Spark chunk) that could not be read, or not to its
        end: the rows of ``unparsed`` whose text is empty. `line` is the last line read (0: none)."""
        return [(f, n, p) for f, n, p, text in self.unparsed if text == ""]

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
        dtypes = {"file": "object", "line": "int64", "seq": "int64", "time_inferred": "bool"}
        for i, name in enumerate(ROW_FIELDS[len(FIELDS):], start=len(FIELDS)):
            df[name] = pd.Series([r[i] for r in self.rows], dtype=dtypes[name])
        return df

    def events_table(self):
        """The events as a pyarrow Table: kafkasim's event schema plus `file`, `line`, `seq` (an
        order within the file: line * 1_000_000 + the event's index on its line) and `time_inferred`."""
        import pyarrow as pa

        from kafkasim.core.events import to_arrow

        extra = [pa.field("file", pa.string()), pa.field("line", pa.int64()), pa.field("seq", pa.int64()),
                 pa.field("time_inferred", pa.bool_())]
        try:
            table = to_arrow(self.rows, extra)
        except UnicodeEncodeError:  # lone surrogates in lines handed to parse_lines
            table = to_arrow([tuple(_no_surrogates(v) if isinstance(v, str) else v for v in r) for r in self.rows],
                             extra)
        return with_provenance(table, self.provenance)

    def unparsed_table(self):
        """The lines kept aside as a pyarrow Table (UNPARSED_FIELDS)."""
        import pyarrow as pa

        schema = pa.schema([("file", pa.string()), ("line", pa.int64()), ("problem", pa.string()),
                            ("text", pa.string())])
        rows = self.unparsed
        for attempt in range(2):
            columns = list(zip(*rows)) if rows else [()] * 4
            try:
                return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(columns, schema)],
                                            schema=schema)
            except UnicodeEncodeError:  # lone surrogates in lines handed to parse_lines
                rows = [tuple(_no_surrogates(v) if isinstance(v, str) else v for v in r) for r in rows]
        raise AssertionError("unreachable")


class LogParser:
    """Parses the lines of one log file. `parse` may be called again for the next chunk."""

    def __init__(self, file: str = "<lines>", origin: datetime = START_TIME):
        self.file = file
        if origin.tzinfo is not None:  # times are UTC or the log's own clock, without a zone
            origin = origin.astimezone(timezone.utc).replace(tzinfo=None)
        self.origin = origin
        self._seconds: dict[tuple, object] = {}
        self._records = 0  # coordinator records so far, to recognise adjacent ones
        self._last_added: tuple = (None, -1)
        self._recent: dict[str, tuple] = {}  # consumer group -> its last line (time, what)
        self._last_time: int | None = None  # the time of the last coordinator record
        self._pending: list[tuple] = []  # records with events but no time yet: (first row, end row, tod, line, text)
        self._prev_other: str | None = None  # the other logger's line just before this record
        self._ref: tuple = (-1, None)  # (record number, its reference time) for records without a date
        self._taken = 0  # lines this record took from the supply (continuations)

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
        other = physical = borrowed = 0
        it, pushed = self._it, self._pushed
        last_other = None
        while True:  # the hot loop: most lines of a server.log are other loggers'
            if pushed:
                line = pushed.pop()
            else:
                line = next(it, None)
                if line is None:
                    break
            n += 1
            physical += 1
            if "[Group" not in line:
                other += 1
                last_other = line
                continue
            self._taken = 0
            try:
                used = self._record(line, n, last_other)
            except Exception as exc:  # a fault of this parser must not cost the rest of the file
                used = self._taken
                result.unparsed.append((self.file, n, f"not read ({type(exc).__name__}: {exc})"[:300], _kept(line)))
            last_other = None
            n += used
            physical += self._taken
            borrowed += used - self._taken
        if self._pending:
            self._settle(None)
        # Continuation lines taken from the next chunk are counted there, as other loggers' lines
        # (the next chunk cannot know they continue a record): they are taken off this chunk's
        # "other", so that the counts of a file's chunks add up to those of the whole file.
        counts["lines"] += physical
        counts["other"] += other - borrowed
        counts["unparsed"] = len(result.unparsed)
        counts["events"] = len(result.rows)
        return result

    def failed(self, problem: str, line: int = 0) -> ParseResult:
        """A result that holds only a file-level problem (a file that could not be read)."""
        result = ParseResult(files=[self.file], origin=self.origin)
        result.unparsed.append((self.file, line, problem, ""))
        result.counts.update(unparsed=1, unreadable=1)
        return result

    # -- line supply (with pushback, and lookahead past the end of a chunk) ----------------------
    def _peek_line(self) -> tuple[str | None, bool]:
        """The next physical line and whether it belongs to this chunk (False: lookahead)."""
        if self._pushed:
            self._taken += 1
            return self._pushed.pop(), True
        if not self._owned_done:
            line = next(self._it, None)
            if line is not None:
                self._taken += 1
                return line, True
            self._owned_done = True
        return next(self._extra, None), False

    def _push(self, line: str, owned: bool) -> None:
        """Give back a line taken with `_peek_line` (lookahead lines are not this chunk's to give back)."""
        if owned:
            self._pushed.append(line)
            self._taken -= 1

    # -- one record ---------------------------------------------------------------------------
    def _record(self, line: str, n: int, prev_other: str | None) -> int:
        """Handle a line that mentions a coordinator prefix; returns how many more physical
        lines it consumed (continuations)."""
        used = 0
        self._prev_other = prev_other
        pad = right_pad = 0  # spaces inside the frame of this line (a terminal UI's padding)
        line = line.rstrip("\r\n")
        over = len(line) > MAX_LINE_CHARS
        if over:
            line = line[:MAX_LINE_CHARS]
        plain = line.isascii()
        if not plain:  # terminal frames at the edges (only a non-ASCII line can have them)
            line, _, pad, right_pad = _strip_frame(line)
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
        mark = _MARK.search(line)
        if mark is None:
            self._emit(_OTHER_OUTCOME, n, line)
            return used
        if not plain and not line.isascii():  # frames inside the message: where a terminal UI wrapped it
            pieces, seps = _inner_frames(line, mark.end(), pad)
            if seps:
                line = self._best_of(_joins(pieces, seps, _MAX_FRAME_BREAKS if len(seps) <= _MAX_FRAME_BREAKS else 0))
                mark = _MARK.search(line)
        k = 0
        # A line without a logger name may be tried several ways (continuations): each try may
        # note what a consumer-group line says (`_Ctx.note`), so the memory is restored between tries.
        memory = None if any(logger in line for logger in _LOGGERS) else dict(self._recent)
        outcome = self._try(line, mark, over)
        if outcome is _FUSED:  # a second prefix: records fused into one line by a paste
            start = 0
            cuts = _fused_cuts(line, mark)
            self._result.counts["split"] += len(cuts)
            for cut in cuts:
                piece = line[start:cut]
                outcome = self._try(piece)
                k = self._emit(outcome if outcome is not _FUSED else _OTHER_OUTCOME, n, piece, k)
                start = cut
            line = line[start:]
            memory = None if any(logger in line for logger in _LOGGERS) else dict(self._recent)
            outcome = self._try(line, None, over)
        if outcome[0] != _OTHER and not outcome[1]:
            # No logger name at the end: the line may be wrapped onto the next ones.
            joined, extra, text = self._try_continuations(line, outcome, memory, pad, right_pad)
            if joined is not None:
                outcome = joined
                used += extra
                self._result.counts["joined"] += 1
            if memory is not None:  # replay the try that was kept, on the memory from before the tries
                self._recent.clear()
                self._recent.update(memory)
                self._try(text if joined is not None else line)
        self._emit(outcome, n, line, k)
        return used

    def _best_of(self, texts: list[str]) -> str:
        """Of several readings of one line, the one that reads as a whole record with the most events
        (the first one on a tie)."""
        if len(texts) == 1:
            return texts[0]
        memory = dict(self._recent)
        best, best_score = texts[0], None
        for text in texts:
            outcome = self._try(text)
            self._recent.clear()
            self._recent.update(memory)
            events = outcome[0] == _EVENTS
            score = (events and not outcome[8], outcome[1], len(outcome[2]) if events else 0)
            if best_score is None or score > best_score:
                best, best_score = text, score
        return best

    def _try(self, line: str, mark=None, over: bool = False):
        """The outcome of reading `line` as one record (see _OTHER_OUTCOME for its fields), or _FUSED
        when a second coordinator prefix follows the first; `over`: the line was cut at MAX_LINE_CHARS."""
        if mark is None:
            mark = _MARK.search(line)
            if mark is None:
                return _OTHER_OUTCOME
        rest = line[mark.end():]
        if "[Group" in rest and _MARK.search(rest) is not None:
            return _FUSED
        head = line[:mark.start()]
        for logger in _LOGGERS:
            j = rest.rfind(logger)
            if j >= 0:
                if over:
                    break
                return self._message(rest[:j].rstrip(), self._time(head), mark.lastgroup, True, False)
        message = rest.rstrip()
        complete = cut = split = False
        note = None
        if not over:
            fused_on = _RECORD_START.search(message)
            if fused_on is not None and fused_on.start() > 0:  # another logger's line fused on by a paste
                message, complete, split = message[:fused_on.start()].rstrip(), True, True
            if message.endswith(_ELLIPSES):
                message, cut = message.rstrip(".…"), True
            else:
                cut = _DEFAULT_HEAD.search(head, max(0, len(head) - 40)) is not None
        else:
            cut = complete = True
            note = f"a line of more than {MAX_LINE_CHARS:,} characters, read up to there"
        return self._message(message, self._time(head), mark.lastgroup, complete, cut, note, split)

    def _message(self, message: str, when, prefix: str, complete: bool, cut: bool, note: str | None = None,
                 split: bool = False):
        key = _key(message)
        strict, templates = _TEMPLATES.get(key, _NO_TEMPLATES)
        if not templates:
            if cut and (key == message or not message) and any(k.startswith(key) for k in _STRICT):
                return self._outcome(_UNPARSED, complete, "truncated", note, when, split)
            return self._outcome(_IGNORED, complete, None, note, when, split)
        if not cut:
            for tpl in templates:
                m = tpl.full.fullmatch(message)
                if m is not None:
                    if when.__class__ is int:  # the record's own time (nearly every line)
                        t, inferred, tod = when, False, None
                    else:
                        t, inferred, tod, time_note = self._when(when)
                        note = _join(note, time_note)
                    events = tpl.build(m, t, _Ctx(prefix, False, self._recent))
                    return (_EVENTS if events else _IGNORED, complete, events, note, t, inferred, tod, split, False)
            if complete:
                if strict:
                    return self._outcome(_UNPARSED, complete, "unrecognised wording", note, when, split)
                return self._outcome(_IGNORED, complete, None, note, when, split)
        for tpl in templates:
            if tpl.head is None:
                continue
            m = tpl.head.match(message)
            if m is not None:
                t, inferred, tod, time_note = self._when(when)
                events = tpl.build(m, t, _Ctx(prefix, True, self._recent))
                kinds = ", ".join(e[4] for e in events)
                salvage = f"truncated, kept {kinds}" + (" with a cut reason" if "(reason: " in message else "")
                return (_EVENTS, complete, events, _join(salvage, note, time_note), t, inferred, tod, split, True)
        if not strict:
            return self._outcome(_IGNORED, complete, None, note, when, split)
        return self._outcome(_UNPARSED, complete, "truncated or unrecognised wording", note, when, split)

    @staticmethod
    def _outcome(kind, complete, payload, note, when, split):
        """An outcome without events: its own time only (it is a neighbour for the records around it).
        A line cut at MAX_LINE_CHARS (the only note an ignored line can carry) is kept aside even when
        its wording is one not read: what was past the limit is unknown."""
        if kind == _IGNORED and note is not None:
            kind, payload, note = _UNPARSED, note, None
        problem = payload if note is None or kind != _UNPARSED else f"{payload}; {note}"
        return (kind, complete, problem, None, when if when.__class__ is int else when[0], False, None, split, False)

    # -- time ----------------------------------------------------------------------------------
    def _time(self, head: str):
        """The time in a record's head: ms since the origin (an int), or a tuple (ms or None, time of
        day in ms or None, note or None) when the head has no full date, an impossible one, or a zone
        not understood."""
        size = len(head)
        # The fast way: a head that ends as Kafka's own layout does, `[2024-03-05 20:21:14,681] INFO `
        # (behind a container's prefix or not), with a second already read by the pattern below. No
        # other date can follow it in the 5 or 6 characters left, so it is the last one of the head.
        # Its milliseconds must be three ASCII digits, as the pattern reads them (`int` would also
        # take "+12", "1_2" or other scripts' digits).
        i = size - 31 if head[size - 31:size - 30] == "[" else size - 32
        if i >= 0 and head[i] == "[" and head[i + 24:i + 26] == "] " and head[i + 20] == "," and head[i + 11] == " ":
            base = self._seconds.get((head[i + 1:i + 11], head[i + 12:i + 20], None))
            ms = head[i + 21:i + 24]
            if base.__class__ is int and ms.isascii() and ms.isdigit():
                return base + int(ms)
        m = _WHEN.match(head, size - _HEAD_WINDOW if size > _HEAD_WINDOW else 0)
        if m is None:
            return _NO_TIME
        date, hms, frac, zone = m.group("date", "hms", "f", "z")
        ms = int((frac + "00")[:3]) if frac else 0
        if date is None:
            h, mi, s = int(hms[:2]), int(hms[3:5]), int(hms[6:8])
            if h > 23 or mi > 59 or s > 59:
                return (None, None, f"impossible time of day {hms}: time taken from the neighbouring lines")
            return (None, ((h * 60 + mi) * 60 + s) * 1000 + ms, None)
        key = (date, hms, zone)
        base = self._seconds.get(key)
        if base is None:
            if len(self._seconds) >= 100_000:
                self._seconds.clear()
            base = self._seconds[key] = self._base(date, hms, zone)
        if base.__class__ is int:
            return base + ms
        return base if base[0] is None else (base[0] + ms, None, base[2])

    def _base(self, date: str, hms: str, zone: str | None):
        """The whole second `date hms zone` in ms since the origin, or a tuple as `_time` returns."""
        try:
            if date[4:5] in ("-", "/"):
                y, mo, d = int(date[:4]), int(date[5:7]), int(date[8:10])
            elif date[2:3] == "/":
                y, mo, d = 2000 + int(date[:2]), int(date[3:5]), int(date[6:8])
            else:
                day, month, year = date.split()
                y, mo, d = int(year), _MONTHS[month], int(day)
            dt = datetime(y, mo, d, int(hms[:2]), int(hms[3:5]), int(hms[6:8]))
        except (ValueError, KeyError, OverflowError):
            return (None, None, f"impossible date {date} {hms}: time taken from the neighbouring lines")
        note = None
        if zone:
            offset = _offset(zone)
            if offset is None:
                note = f"zone {zone} not understood: read as the log's own clock"
            else:
                try:
                    dt -= offset
                except OverflowError:
                    return (None, None, f"impossible date {date} {hms}{zone}: time taken from the neighbouring lines")
        base = (dt - self.origin) // _MS
        return base if note is None else (base, None, note)

    def _when(self, when):
        """(time, inferred, time of day, note) of a record whose head read as `when` (see `_time`)."""
        if when.__class__ is int:
            return when, False, None, None
        t, tod, note = when
        if t is not None:
            return t, False, None, note
        ref = self._reference()
        if ref is None:
            return None, True, tod, note  # the next record with a time settles it (`_settle`)
        return (ref if tod is None else self._on_day_of(ref, tod)), True, tod, note

    def _reference(self) -> int | None:
        """The time of the nearest dated line before this record: the other logger's line just
        before it when that one has a date, else the previous coordinator record's."""
        if self._ref[0] != self._records:
            ref = None
            other = self._prev_other
            if other is not None:
                when = self._time(other[:_HEAD_WINDOW])
                if when.__class__ is int:
                    ref = when
                elif when[0] is not None:
                    ref = when[0]
                elif when[1] is not None and self._last_time is not None:
                    ref = self._on_day_of(self._last_time, when[1])
            self._ref = (self._records, ref if ref is not None else self._last_time)
        return self._ref[1]

    def _on_day_of(self, ref: int, tod: int) -> int:
        """The instant at time of day `tod` nearest to `ref` (within 12 hours of it)."""
        try:
            at = self.origin + timedelta(milliseconds=ref)
        except OverflowError:
            return ref
        t = (at.replace(hour=0, minute=0, second=0, microsecond=0) - self.origin) // _MS + tod
        if t - ref > _DAY_MS // 2:
            t -= _DAY_MS
        elif ref - t > _DAY_MS // 2:
            t += _DAY_MS
        return t

    def _settle(self, t: int | None) -> None:
        """Give the records read before any time the time `t` of the next one; at the end (t None),
        a time of day goes on the origin's day, and a record with no time at all stays at time 0."""
        result = self._result
        rows = result.rows
        midnight = (self.origin.replace(hour=0, minute=0, second=0, microsecond=0) - self.origin) // _MS
        for start, end, tod, n, text in self._pending:
            if t is not None:
                when = t if tod is None else self._on_day_of(t, tod)
            elif tod is not None:
                when = midnight + tod
            else:
                when = 0
                result.unparsed.append((self.file, n, "no date and time in this line or the lines around it: its "
                                                      "events are kept at time 0 (the origin)", _kept(text)))
                result.counts["salvaged"] += 1
            for i in range(start, end):
                rows[i] = (when, *rows[i][1:])
        self._pending.clear()

    # -- joining -------------------------------------------------------------------------------
    def _try_continuations(self, line: str, first, memory: dict | None = None, pad: int = 0, right_pad: int = 0):
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
            seps = ("", " ")
            if not cont.isascii():  # a framed continuation: see _inner_frames for the likelier joint
                cont, framed, left, right = _strip_frame(cont)
                if framed:
                    if left > pad or right_pad > pad:
                        seps = (" ", "")
                    right_pad = right
                pieces, inner = _inner_frames(cont, 0, pad)
                if inner:
                    cont = _joins(pieces, inner, 0)[0]
            if (not cont.strip() or "[Group" in cont or _RECORD_START.search(cont, 0, 80)
                    or _LINE_START_TIME.search(cont, 0, 20) or len(texts[0]) + len(cont) > MAX_LINE_CHARS):
                break
            texts = [text + sep + cont for text in texts for sep in seps]
            # Of the joins that read as a whole record, the one that yields the most events
            # (a dropped space shows as a member id glued to the next word).
            for text in texts:
                if memory is not None:
                    self._recent.clear()
                    self._recent.update(memory)
                outcome = self._try(text)
                if outcome[0] == _EVENTS and not outcome[8] and (best is None or len(outcome[2]) > len(best[0][2])):
                    best = (outcome, len(taken), text)
            if best is not None:
                break
        if best is not None and first[0] == _EVENTS and not first[8] and not best[0][1]:
            best = None  # the line read whole on its own, and no join ends the record: keep it as it was
        used = best[1] if best is not None else 0
        for nxt, owned in reversed(taken[used:]):
            self._push(nxt, owned)
        if best is None:
            return None, 0, None
        return best[0], used, best[2]

    def _join_cri(self, line: str, cri) -> tuple[str, int]:
        """Kubernetes CRI splits long lines: `<time> stdout P <part>` ... `<time> stdout F <last part>`."""
        parts, used, size = [line], 0, len(line)
        while True:
            nxt, owned = self._peek_line()
            if nxt is None:
                break
            m = _CRI.match(nxt)
            if m is None:
                self._push(nxt, owned)
                break
            used += 1
            part = nxt[m.end():].rstrip("\r\n")
            size += len(part)
            if size <= MAX_LINE_CHARS:
                parts.append(part)
            if m.group(2) == "F":
                break
        return "".join(parts), used

    def _decode_json(self, text: str) -> tuple[str | None, int]:
        """The string inside a JSON log line that holds the coordinator message, with the JSON's
        own timestamp put in front when the message has none. Docker splits lines over 16 KB into
        entries whose "log" does not end in a newline: those are joined."""
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            return None, 0
        if not isinstance(obj, dict):
            return None, 0
        used = 0
        log = obj.get("log")
        if isinstance(log, str) and not log.endswith("\n"):
            while len(log) <= MAX_LINE_CHARS:
                nxt, owned = self._peek_line()
                if nxt is None:
                    break
                try:
                    part = json.loads(nxt).get("log")
                except (ValueError, AttributeError, RecursionError):
                    part = None
                if not isinstance(part, str):
                    self._push(nxt, owned)
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
        message = _no_surrogates(message.rstrip("\r\n"))
        head = message[:_MARK.search(message).start()]
        if _WHEN.match(head, max(0, len(head) - _HEAD_WINDOW)) is None:
            stamp = next((s for s in strings if s is not message and _RECORD_START.match(s)), None)
            if stamp is not None:
                message = _no_surrogates(stamp) + " " + message
        return message, used

    # -- results ---------------------------------------------------------------------------------
    def _emit(self, outcome, n: int, text: str, k: int = 0) -> int:
        """Record an outcome read from line `n`; `k` numbers its events on the line (returned, moved on)."""
        kind = outcome[0]
        result = self._result
        counts = result.counts
        if kind == _OTHER:
            counts["other"] += 1
            return k
        counts["coordinator"] += 1
        self._records += 1
        t = outcome[4]
        if t is not None:
            self._last_time = t
            if self._pending:
                self._settle(t)
        if outcome[7]:
            counts["split"] += 1
        if kind == _IGNORED:
            counts["ignored"] += 1
            return k
        if kind == _UNPARSED:
            result.unparsed.append((self.file, n, outcome[2], _kept(text)))
            return k
        note, inferred, file = outcome[3], outcome[5], self.file
        rows = result.rows
        start = len(rows)
        for event in outcome[2]:
            if event[4] == "MemberAdded":
                # The same addition told twice, by a join line and the next line's rebalance reason.
                key = (event[0], event[2], event[3])
                last, at = self._last_added
                self._last_added = (key, self._records)
                if key == last and at == self._records - 1:
                    continue
            g, v = event[5], event[10]  # what Arrow's int32 and float64 columns hold (_INT32, _EXACT)
            if ((g is not None and not -2147483648 <= g <= 2147483647)
                    or (v is not None and not -9007199254740992.0 <= v <= 9007199254740992.0)):
                event, why = _in_range(event)
                note = _join(note, why)
            rows.append((*event, file, n, n * 1_000_000 + k, inferred))
            k += 1
        if inferred and len(rows) > start:
            counts["inferred"] += 1
            if t is None:  # no time yet: the next record with one settles it
                self._pending.append((start, len(rows), outcome[6], n, text))
        if note:
            counts["salvaged"] += 1
            result.unparsed.append((file, n, note, _kept(text)))
        return k


def parse_lines(lines: Iterable[str] | str, file: str = "<lines>", origin: datetime = START_TIME,
                first_line: int = 1) -> ParseResult:
    """Parse log lines (e.g. `Run.broker_log`, or a pasted excerpt: a list of lines, or the whole
    paste as one string) into a ParseResult."""
    if isinstance(lines, str):
        lines = lines.split("\n")
        if lines[-1] == "":
            lines.pop()
    return LogParser(file, origin).parse(lines, first_line)


# -- files ----------------------------------------------------------------------------------------
_GZIP_MAGIC = b"\x1f\x8b"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_BLOCK = 1 << 20


class NotARegularFile(OSError):
    """A path that names a FIFO, a socket, a device or a directory: never read (a FIFO would wait
    for a writer forever, a device may never end)."""


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _open_binary(path: str):
    """A regular file opened for binary reading. The open never waits (O_NONBLOCK: a FIFO opens at
    once, and is then refused); NotARegularFile names what else the path is."""
    nonblock = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, os.O_RDONLY | nonblock | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(f"{_kind_of(mode)}, not a log file: skipped")
        if nonblock:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _why(path: str, exc: BaseException) -> str:
    """What kept a file from being read, in a line."""
    if isinstance(exc, NotARegularFile):
        return str(exc)
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        return f"a symbolic link to a missing file ({os.readlink(path)}): skipped"
    if isinstance(exc, OSError) and exc.strerror:
        return f"unreadable: {exc.strerror}"
    return f"unreadable: {type(exc).__name__}: {exc}"


def _format_of(start: bytes) -> str:
    """"gzip", "utf-16" (a byte-order mark: PowerShell's `>` writes it), or "text" (UTF-8)."""
    if start.startswith(_GZIP_MAGIC):
        return "gzip"
    if start[:2] in _UTF16_BOMS:
        return "utf-16"
    return "text"


def _text_blocks(f, problems: list) -> Iterator[str]:
    """The decoded text of a binary file, block by block: gzip-compressed or not (by its magic
    bytes, whatever its name), UTF-8 (invalid bytes replaced, a BOM dropped) or UTF-16 with a BOM. A
    read that fails (a truncated or corrupt gzip stream, an I/O error) ends the text and adds a
    problem to `problems`; what was read before it is kept."""
    fmt = _format_of(f.peek(4)[:4])
    stream = gzip.GzipFile(fileobj=f, mode="rb") if fmt == "gzip" else f
    decoder = None
    try:
        while True:
            try:
                block = stream.read1(_BLOCK)
            except (OSError, EOFError, zlib.error, ValueError) as exc:
                if fmt == "gzip":  # truncated (EOFError), corrupt (BadGzipFile, zlib.error), a bad checksum
                    problems.append(f"damaged gzip stream ({type(exc).__name__}: {exc}), read up to there")
                else:
                    problems.append(f"{_why('', exc)}, read up to there")
                break
            if decoder is None:
                if not block:
                    return
                encoding = "utf-16" if block[:2] in _UTF16_BOMS else "utf-8-sig"
                decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
            if not block:
                break
            text = decoder.decode(block)
            if text:
                yield text
        if decoder is not None:
            text = decoder.decode(b"", final=True)
            if text:
                yield text
    finally:
        if stream is not f:
            stream.close()


def _split_lines(blocks: Iterable[str], counter: list | None = None) -> Iterator[str]:
    """Lines split on '\\n' only (so that line numbers agree with newline counts). A line is held
    up to MAX_LINE_CHARS + 1 characters (the parser sees that it was longer); the rest is skipped."""
    tail = ""
    over = False
    for block in blocks:
        if over:
            i = block.find("\n")
            if i < 0:
                continue
            yield tail
            tail, over, block = "", False, block[i + 1:]
        parts = (tail + block).split("\n")
        tail = parts.pop()
        yield from parts
        if len(tail) > MAX_LINE_CHARS:
            tail, over = tail[:MAX_LINE_CHARS + 1], True
    if tail:
        yield tail


def _parse_open_file(parser: LogParser, f) -> ParseResult:
    """Parse an open binary file from its first line; a read that fails is the result's file problem."""
    problems: list[str] = []
    result = parser.parse(_split_lines(_text_blocks(f, problems)))
    for problem in problems:
        read = result.counts["lines"]
        result.unparsed.append((parser.file, read, f"{problem} (line {read:,})", ""))
        result.counts["unreadable"] += 1
    result.counts["unparsed"] = len(result.unparsed)
    return result


def parse_file(path: str, origin: datetime = START_TIME) -> ParseResult:
    """Parse one file from its first line: plain or gzip-compressed (known by its content), UTF-8 or
    UTF-16. Never raises for what the file holds or is: a file that cannot be read (or not to its
    end) is reported in the result (`ParseResult.file_problems`)."""
    parser = LogParser(str(path), origin)
    try:
        f = _open_binary(str(path))
    except OSError as exc:
        return parser.failed(_why(str(path), exc))
    try:
        with f:
            return _parse_open_file(parser, f)
    except Exception as exc:  # a fault of this parser must not end a run over many files
        return parser.failed(f"not read ({type(exc).__name__}: {exc})")


def parse_files(paths: Iterable[str], origin: datetime = START_TIME) -> ParseResult:
    """Parse files one after another (see `expand_paths` for directories)."""
    result = ParseResult()
    for path in paths:
        result.extend(parse_file(path, origin))
    return result


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files to read: a path as given; a directory gives its `server.log*` entries (rotations
    `server.log.1`, `server.log.2024-03-05-20`, `.gz` included), searched recursively. Entries that
    are not regular files (a FIFO, a dangling symbolic link) are listed too: parsing reports and
    skips them, without ever opening them for a read that could wait. FileNotFoundError names a
    path that does not exist or a directory without server logs."""
    out: list[str] = []
    for path in paths:
        path = os.fspath(path)
        if os.path.isdir(path):
            refused: list[OSError] = []
            found = sorted(os.path.join(root, name) for root, _, names in os.walk(path, onerror=refused.append)
                           for name in names if name.startswith("server.log"))
            if not found and refused:
                raise _listing_refused(path, refused[0])
            if not found:
                raise FileNotFoundError(f"{path}: a directory without server.log files (Kafka writes the "
                                        f"coordinator's lines to server.log and its rotations server.log.*)")
            out += found
        elif os.path.lexists(path):
            out.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or directory")
    return list(dict.fromkeys(out))


def _listing_refused(path: str, exc: OSError) -> OSError:
    """A directory that could not be listed, a permission problem named as one."""
    where = exc.filename if exc.filename and os.fspath(exc.filename) != path else path
    if isinstance(exc, PermissionError):
        return PermissionError(f"{path}: permission denied: the directory {where} cannot be listed by this user "
                               f"({exc.strerror})")
    return OSError(f"{path}: the directory {where} cannot be listed ({exc.strerror or exc})")


# -- chunks (for parallel readers such as Spark) ---------------------------------------------------
def _probe(path: str) -> tuple[int, bool]:
    """(size, splittable): a plain text file can be read in byte ranges; a gzip or UTF-16 file,
    or one that cannot be opened (its chunk reports why), is read whole."""
    try:
        with _open_binary(path) as f:
            return os.fstat(f.fileno()).st_size, _format_of(f.peek(4)[:4]) == "text"
    except OSError:
        return 0, False


def chunk_plan(paths: list[str], chunk_bytes: int = 32 << 20) -> list[tuple[str, int, int]]:
    """(path, start, end) byte ranges of about `chunk_bytes`; a compressed file is one chunk (it
    cannot be split), and so is a file that cannot be read (its chunk reports the problem)."""
    plan = []
    for path in paths:
        size, splittable = _probe(path)
        if not splittable or size <= chunk_bytes:
            plan.append((path, 0, size))
        else:
            plan += [(path, start, min(start + chunk_bytes, size)) for start in range(0, size, chunk_bytes)]
    return plan


def count_newlines(path: str, start: int, end: int) -> int:
    """Newlines in bytes [start, end) of a plain file (for the line numbers of later chunks); 0
    for a file that cannot be read (its chunks report why)."""
    count = 0
    try:
        with _open_binary(path) as f:
            f.seek(start)
            left = end - start
            while left > 0:
                block = f.read(min(left, 8 << 20))
                if not block:
                    break
                count += block.count(b"\n")
                left -= len(block)
    except OSError:
        return 0
    return count


_LINE_BYTES = 4 * MAX_LINE_CHARS + 4  # enough bytes for MAX_LINE_CHARS + 1 characters of UTF-8


def _skip_line(f) -> None:
    """Read past the current line's newline, holding at most 64 KB of it at a time."""
    while True:
        more = f.readline(1 << 16)
        if not more or more.endswith(b"\n"):
            return


def _rest_of_line(f, keep: int) -> bytes:
    """The rest of the current line (up to its newline), of which only the first `keep` bytes are
    held: a line of a gigabyte costs no more memory than a short one."""
    head = f.readline(keep)
    if head and not head.endswith(b"\n"):
        _skip_line(f)
    return head


def parse_chunk(path: str, start: int, end: int, newlines_before: int = 0,
                origin: datetime = START_TIME, name: str | None = None) -> ParseResult:
    """Parse the lines that begin in bytes [start, end) of `path`; `newlines_before` is the number
    of newlines in [0, start) (see `count_newlines`), which numbers the lines; `name`: the file as
    its results name it (default `path`). Never raises for what the file holds or is (see `parse_file`)."""
    parser = LogParser(str(path) if name is None else name, origin)
    try:
        f = _open_binary(str(path))
    except OSError as exc:
        return parser.failed(_why(str(path), exc), newlines_before)
    try:
        with f:
            size = os.fstat(f.fileno()).st_size
            if _format_of(f.peek(4)[:4]) != "text" or (start == 0 and end >= size):
                if start > 0:  # a file that cannot be split, planned as if it could: its first chunk reads it
                    return ParseResult(files=[parser.file], origin=parser.origin)
                return _parse_open_file(parser, f)
            return _parse_range(parser, f, start, end, newlines_before)
    except Exception as exc:  # a fault of this parser must not end a Spark job
        return parser.failed(f"not read ({type(exc).__name__}: {exc})", newlines_before)


def _parse_range(parser: LogParser, f, start: int, end: int, newlines_before: int) -> ParseResult:
    first_line = newlines_before + 1
    if start > 0:
        f.seek(start - 1)
        if f.read(1) != b"\n":
            _skip_line(f)  # the line that straddles `start` belongs to the previous chunk
            first_line += 1
    pos = f.tell()
    try:
        data = f.read(max(end - pos, 0))
        if data and not data.endswith(b"\n"):
            data += _rest_of_line(f, _LINE_BYTES)  # the last line that begins before `end`, read to its end
    except OSError as exc:
        return parser.failed(_why(parser.file, exc), newlines_before)
    text = data.decode(errors="replace")  # UTF-8
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    def lookahead():
        for _ in range(MAX_CONTINUATION_LINES + 1):
            try:
                raw = _rest_of_line(f, _LINE_BYTES)
            except OSError:
                return
            if not raw:
                return
            yield raw.decode(errors="replace")  # UTF-8

    return parser.parse(lines, first_line, lookahead())


# -- output folders (`kafkasim logs`, `parse_broker_logs`) ---------------------------------------------
_OWN_PART = re.compile(r"\.?part-\d+\.parquet(?:\.tmp-\d+)?")


def fresh_output(out: str) -> None:
    """Empty `out/events` and `out/unparsed` of an earlier parse (a second parse into the same `out`
    must not read the first one's parts back), or create them. A folder with files kafkasim did not
    write, or an `out` that cannot be a folder, is refused (ValueError), nothing deleted."""
    for name in ("events", "unparsed"):
        path = os.path.join(out, name)
        if os.path.isdir(path):
            foreign = sorted(n for n in os.listdir(path) if not _OWN_PART.fullmatch(n))
            if foreign:
                raise ValueError(f"{path} holds files kafkasim did not write ({', '.join(foreign[:3])}); "
                                 f"choose another --out folder")
    output_folders(out, "events", "unparsed")
    for name in ("events", "unparsed"):
        for n in os.listdir(os.path.join(out, name)):
            os.remove(os.path.join(out, name, n))


def write_part(result: ParseResult, out: str, index: int) -> None:
    """`out/events/part-<index>.parquet` and `out/unparsed/part-<index>.parquet`, each written under a
    hidden name and renamed: never read half-written, and a retried task rewrites the same bytes."""
    for folder, table in (("events", result.events_table()), ("unparsed", result.unparsed_table())):
        write_parquet_atomically(table, os.path.join(out, folder, f"part-{index:05d}.parquet"))
