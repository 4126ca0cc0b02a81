"""Known bugs of brokers and clients whose signature a log shows: a data table, one row per bug.

A row names the bug, the side it lives on, the versions it affects and the first ones that fix it,
its source, and its signature: one of the `PATTERNS` below with its parameters. Adding a bug whose
lines look like one of these patterns is adding a row; a new kind of signature is a new pattern
(a small function over a group's Timeline). The versions a broker or client runs are not in the
coordinator's lines, so a match is reported as "if your broker/client runs ..." with the range.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from kafkasim.analysis.diagnose.timeline import KIND, REASON, T, Timeline


@dataclass(frozen=True)
class Bug:
    bug: str
    side: str          # "broker" or a client library ("Java client", "librdkafka", ...)
    affected: str
    fixed: str
    pattern: str       # a key of PATTERNS
    params: dict
    what: str          # the bug in a few words, as its report says
    source: str


KNOWN_BUGS = (
    Bug("KAFKA-8653", "broker", "2.3.0", "2.3.1, 2.4.0", "removed_at_rebalance_start",
        {"reason": "rebalance_timeout", "within_ms": 1000},
        "JoinGroup v0 requests get a rebalance timeout of 0, so a rebalance ends as soon as it starts and "
        "removes every member that has not rejoined yet, in an endless loop",
        "https://issues.apache.org/jira/browse/KAFKA-8653 (fix: apache/kafka#7072)"),
    Bug("KAFKA-9752", "broker", "up to 2.4.1", "2.5.0 (its 2.2, 2.3 and 2.4 backports never shipped in a release)",
        "stuck_in_state",
        {"state": "PreparingRebalance", "min_ms": 600_000},
        "after a new member's session timeout (old JoinGroup versions), the group's rebalance never completes",
        "https://issues.apache.org/jira/browse/KAFKA-9752 (fix: apache/kafka#8339)"),
    Bug("KAFKA-12890", "broker", "2.6.1 to 2.8.0", "2.8.1, 3.0.0", "stuck_in_state",
        {"state": "CompletingRebalance", "min_ms": 600_000},
        "a group waits in CompletingRebalance for a SyncGroup that never comes, since heartbeats in that state "
        "keep the members alive",
        "https://issues.apache.org/jira/browse/KAFKA-12890 (fix: apache/kafka#10863, #10895 for 2.8)"),
    Bug("KAFKA-10134", "Java client", "0.10.1.0 to 2.6.0", "2.6.1, 2.7.0", "removed_in_state",
        {"reason": "session_timeout", "state": "CompletingRebalance"},
        "the heartbeat thread is paused while the consumer rebalances, so a member whose SyncGroup (a slow "
        "assignor) outlasts session.timeout.ms is expired (KAFKA-10122 was closed in favour of this fix)",
        "https://issues.apache.org/jira/browse/KAFKA-10134 (fix: apache/kafka#8834)"),
)


def _removed_at_rebalance_start(tl: Timeline, reason: str, within_ms: int) -> list:
    """Members removed with `reason` within `within_ms` of the start of their rebalance
    (GroupCoordinator.onCompleteJoin: "removed dynamic members who haven't joined")."""
    out = []
    for r in tl.rows:
        if r[KIND] == "MemberRemoved" and r[REASON] == reason:
            i = tl.episode_at(r[T])
            if i is not None and r[T] - tl.episodes[i].start <= within_ms:
                out.append(r)
    return out


def _stuck_in_state(tl: Timeline, state: str, min_ms: int) -> list:
    """The group's state stays `state` for `min_ms` or more (up to the group's last line)."""
    out = []
    if state == "PreparingRebalance":
        for ep in tl.episodes:
            end = ep.end if ep.end is not None else tl.last
            if not ep.epoch and end - ep.start >= min_ms:
                out.append(next(r for r in tl.rows if r[T] == ep.start and r[KIND] == "RebalanceStarted"))
    else:
        for r, until in _completing(tl):
            if until - r[T] >= min_ms:
                out.append(r)
    return out


_LEAVES_COMPLETING = ("AssignmentReceived", "RebalanceStarted", "GroupEmpty")


def _completing(tl: Timeline) -> list:
    """(GenerationStabilized row, when the group left CompletingRebalance or the log ended)."""
    out, open_row = [], None
    for r in tl.rows:
        if open_row is not None and r[KIND] in _LEAVES_COMPLETING:
            out.append((open_row, r[T]))
            open_row = None
        if r[KIND] == "GenerationStabilized":
            if open_row is not None:
                out.append((open_row, r[T]))
            open_row = r
    if open_row is not None:
        out.append((open_row, tl.last))
    return out


def _removed_in_state(tl: Timeline, reason: str, state: str) -> list:
    """Members removed with `reason` while the group was in `state` (only CompletingRebalance: the
    lines between "Stabilized group" and "Assignment received", in the log's order)."""
    out, inside = [], False
    for r in tl.rows:
        if r[KIND] == "GenerationStabilized":
            inside = state == "CompletingRebalance"
        elif r[KIND] in _LEAVES_COMPLETING:
            inside = False
        elif inside and r[KIND] == "MemberRemoved" and r[REASON] == reason:
            out.append(r)
    return out


PATTERNS: dict[str, Callable[..., list]] = {
    "removed_at_rebalance_start": _removed_at_rebalance_start,
    "stuck_in_state": _stuck_in_state,
    "removed_in_state": _removed_in_state,
}


def matches(tl: Timeline) -> list[tuple[Bug, list]]:
    """(bug, the rows that show it) for every known bug whose signature this group's lines show."""
    out = []
    for bug in KNOWN_BUGS:
        rows = PATTERNS[bug.pattern](tl, **bug.params)
        if rows:
            out.append((bug, rows))
    return out
