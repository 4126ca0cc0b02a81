"""Known bugs of brokers and clients whose signature a log shows: a data table, one row per bug.

A row names the bug, the side it lives on, the versions it affects and the first ones that fix it,
its source, and its signature: one of the `PATTERNS` below with its parameters. Adding a bug whose
lines look like one of these patterns is adding a row; a new kind of signature is a new pattern
(a small function over a group's Timeline). The versions a broker or client runs are not in the
coordinator's lines, so a match is reported as "if your broker/client runs ..." with the range.

A client bug whose signature is in the client's own lines names the log sources it reads (`clients`:
the `log_source` of the client reader's rows) and its pattern is one of `CLIENT_PATTERNS`, over the
group's rows of those clients (`client_matches`, run by client_rules). Its releases (`first`, `fixed_in`)
are compared with the version the log shows where it shows one (librdkafka's INIT line, a reader's
ClientVersion row, the Java client's "Kafka version", or a `versions` column that names one release):
inside the range the finding says so and scores higher, outside it there is no finding; a line whose
wording first appeared after the fix cannot show the bug either. `base` is the score without a version:
how specific the signature is to the bug (`None`: too common in healthy groups to name without one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from kafkasim.analysis.diagnose.timeline import ERROR, FILE, GEN, KIND, REASON, T, VALUE, Timeline
from kafkasim.analysis.log_parser import ROW_FIELDS

_LOG_SOURCE, _VERSIONS, _DETAIL, _CLIENT = (ROW_FIELDS.index(n) for n in ("log_source", "versions", "detail", "client"))


@dataclass(frozen=True)
class Bug:
    bug: str
    side: str          # "broker" or a client library ("Java client", "librdkafka", ...)
    affected: str
    fixed: str
    pattern: str       # a key of PATTERNS (or of CLIENT_PATTERNS for a bug with `clients`)
    params: dict
    what: str          # the bug in a few words, as its report says
    source: str
    clients: tuple = ()          # the log sources whose lines show it (a client bug read in the client's log)
    first: str | None = None     # the first affected release, and the first fixed one (compared with the log's)
    fixed_in: str | None = None
    base: float | None = None    # the score without a version in the log (None: only with one)


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
    # SESSTMOUT "Consumer group session timed out (in join-state J) after N ms without a successful response from
    # the group coordinator (broker B, last error was Broker: Group rebalance in progress)" (src/rdkafka_cgrp.c
    # rd_kafka_cgrp_session_timeout_check, v1.4.0+): the coordinator was answering, with REBALANCE_IN_PROGRESS,
    # which did not count as a successful response until the fix.
    Bug("librdkafka#3450", "librdkafka", "1.4.0 to 1.7.0", "1.8.0", "client_rows",
        {"kinds": ("SessionTimeout",), "errors": ("REBALANCE_IN_PROGRESS",)},
        "heartbeat responses with REBALANCE_IN_PROGRESS did not renew the client's session timer, so a member "
        "timed out and lost its assignment during a rebalance longer than session.timeout.ms",
        "https://github.com/confluentinc/librdkafka/issues/3450 (fix: confluentinc/librdkafka#3435, CHANGELOG "
        "v1.8.0)", clients=("librdkafka",), first="1.4.0", fixed_in="1.8.0", base=0.8),
    # kafka-python's HeartbeatThread (kafka/coordinator/base.py, 1.4.0+: KIP-62's background heartbeat):
    # "Heartbeat session expired, marking coordinator dead" / "Marking the coordinator dead (node N) for group G:
    # Heartbeat session expired.", then "Heartbeat: local member_id was not recognized; this consumer needs to
    # re-join", and the consumer never rejoins: the heartbeat thread and the consumer deadlocked on their locks.
    # A pause of the process shows the same two lines, so without a version the stall is the likelier reading.
    Bug("kafka-python#1544", "kafka-python", "1.4.0 to 1.4.3", "1.4.4", "followed_by",
        {"first": ({"kinds": ("SessionTimeout",)}, {"kinds": ("CoordinatorLost",), "reason": "Heartbeat session expired"}),
         "then": {"kinds": ("HeartbeatResponse",), "errors": ("UNKNOWN_MEMBER_ID",)}, "within_ms": 300_000},
        "the consumer and its heartbeat thread deadlock: heartbeats stop, the session expires and the consumer "
        "never rejoins (1.4.4's CHANGES: \"(Attempt to) Fix deadlock between consumer and heartbeat\")",
        "https://github.com/dpkp/kafka-python/issues/1544 (fix: dpkp/kafka-python#1628, CHANGES.md 1.4.4)",
        clients=("kafka-python",), first="1.4.0", fixed_in="1.4.4", base=0.5),
    # aiokafka's "Successfully synced group G with generation N" (aiokafka/consumer/group_coordinator.py
    # _on_join_follower/_on_join_leader's SyncGroup handler): the coordinator never gives generation -1, the
    # client's "no generation" value; it is logged when the member id and generation were reset (an
    # UnknownMemberIdError on a commit) while the join was in flight, and the group then rebalances forever.
    Bug("aiokafka#727", "aiokafka", "up to 0.7.0", "0.7.1", "client_rows",
        {"kinds": ("SyncGroupResponse", "JoinGroupResponse"), "generation": -1, "no_error": True},
        "the generation and member id were reset while a join was in flight, so the member synced with "
        "generation -1 and the group kept rebalancing",
        "https://github.com/aio-libs/aiokafka/issues/727 (fix: aio-libs/aiokafka#747, CHANGES 0.7.1)",
        clients=("aiokafka",), first="0.1.0", fixed_in="0.7.1", base=0.8),
    # kafkajs "[ConsumerGroup] Consumer has joined the group" with an empty memberAssignment
    # (src/consumer/consumerGroup.js): from 2.0.0 the runner heartbeats only while processing a batch
    # (src/consumer/runner.js), so a member without partitions never heartbeats and is removed without noticing.
    # An empty assignment is common in healthy groups (more members than partitions): named only with a version.
    Bug("kafkajs#1361", "kafkajs", "2.0.0", "2.0.1", "client_rows",
        {"kinds": ("PartitionsAssigned",), "value": 0},
        "a member assigned no partitions never heartbeats, is removed from the group and never rejoins",
        "https://github.com/tulios/kafkajs/issues/1361 (fix: tulios/kafkajs#1362, CHANGELOG 2.0.1)",
        clients=("kafkajs",), first="2.0.0", fixed_in="2.0.1", base=None),
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
    """(bug, the rows that show it) for every known bug whose signature this group's coordinator lines show."""
    out = []
    for bug in KNOWN_BUGS:
        if bug.clients:
            continue
        rows = PATTERNS[bug.pattern](tl, **bug.params)
        if rows:
            out.append((bug, rows))
    return out


def _fits(r: tuple, kinds: tuple, errors: tuple | None = None, reason: str | None = None,
          generation: int | None = None, value: float | None = None, no_error: bool = False) -> bool:
    return (r[KIND] in kinds and (errors is None or r[ERROR] in errors)
            and (reason is None or (r[REASON] or "").startswith(reason))
            and (generation is None or r[GEN] == generation) and (value is None or r[VALUE] == value)
            and not (no_error and r[ERROR] is not None))


def _client_rows(rows: list, **fields) -> list:
    """The rows of the given kinds whose fields have the given values (see `_fits`)."""
    return [r for r in rows if _fits(r, **fields)]


def _followed_by(rows: list, first: tuple, then: dict, within_ms: int) -> list:
    """Each `then` row with the last row of the same process (file and client id) that fits one of the `first`
    specifications and came at most `within_ms` before it."""
    out = []
    for r in rows:
        if not _fits(r, **then):
            continue
        before = [x for x in rows if any(_fits(x, **f) for f in first) and (x[FILE], x[_CLIENT]) == (r[FILE], r[_CLIENT])
                  and x[T] is not None and r[T] is not None and 0 <= r[T] - x[T] <= within_ms]
        if before:
            out += [before[-1], r]
    return list(dict.fromkeys(out))


CLIENT_PATTERNS: dict[str, Callable[..., list]] = {
    "client_rows": _client_rows,
    "followed_by": _followed_by,
}

_RELEASE = re.compile(r"v?(\d+(?:\.\d+){0,3})(?![\w.])")


def release(text: str | None) -> tuple | None:
    """A release as a comparable tuple ("1.7.0" -> (1, 7), "v2.0.0" -> (2,)); None when it is not one
    (a pre-release such as "2.1.0-beta.1" is its release's: the pattern ends at the "-")."""
    m = _RELEASE.match(text.strip()) if text else None
    if m is None:
        return None
    v = tuple(int(p) for p in m.group(1).split("."))
    while len(v) > 1 and v[-1] == 0:
        v = v[:-1]
    return v


#: Confluent Platform's builds print their own release, suffixed "-ccs" (community) or "-ce" (enterprise):
#: "Kafka version: 7.6.0-ccs" is Apache Kafka 3.6. CP 5.0 - 5.5 are Apache 2.0 - 2.5, CP 6.0 - 6.2 are 2.6 - 2.8,
#: CP 7.N is 3.N and CP 8.N is 4.N (Confluent's release notes; its `v8.N.x` tags build Apache 4.N.x).
_CONFLUENT = re.compile(r"\d[\d.]*(?:-\d+)?-c(?:cs|e)\b")


def apache_release(text: str | None) -> tuple | None:
    """The Apache Kafka release of a Java client's "Kafka version": a Confluent build's is its Apache line
    (major.minor: CP's patch numbers are its own); None when it is not one, or a CP release before 5.0."""
    v = release(text)
    if v is None or not _CONFLUENT.match(text.strip()):
        return v
    major, minor = v[0], (v + (0,))[1]
    apache = {5: (2, minor) if minor <= 5 else None, 6: (2, 6 + minor) if minor <= 2 else None,
              7: (3, minor), 8: (4, minor)}.get(major)
    return None if apache is None else apache[:1] if apache[1] == 0 else apache


def _named_release(text: str | None) -> tuple | None:
    """The one release a `versions` column names ("1.6.0"); None for a range ("1.4-", "2.4-3.9") or a family
    ("2.x": `release` reads none)."""
    return release(text) if text and "-" not in text else None


def _log_versions(rows: list, clients: tuple) -> set:
    """The releases of `clients` the log names: their ClientVersion rows (the Java client's KafkaVersion),
    and a `versions` column that names one release."""
    out = set()
    for r in rows:
        if r[_LOG_SOURCE] not in clients:
            continue
        if r[KIND] == "KafkaVersion" and "java" in clients:
            v = apache_release(r[_DETAIL])
        elif r[KIND] == "ClientVersion":
            v = release(r[_DETAIL])
        else:
            v = _named_release(r[_VERSIONS])
        if v is not None:
            out.add(v)
    return out


def client_matches(rows: list) -> list[tuple[Bug, list, float, str]]:
    """(bug, the rows that show it, score, what the log says of the version) for every client bug whose
    signature these rows (one group's client rows) show."""
    out = []
    for bug in KNOWN_BUGS:
        if not bug.clients:
            continue
        mine = [r for r in rows if r[_LOG_SOURCE] in bug.clients]
        shown = CLIENT_PATTERNS[bug.pattern](mine, **bug.params)
        first, fixed = release(bug.first), release(bug.fixed_in)
        # a wording that first appeared in a fixed release cannot show the bug (`release` reads a range's first)
        shown = [r for r in shown if (release(r[_VERSIONS]) or ()) < fixed]
        if not shown:
            continue
        versions = _log_versions(mine, bug.clients)
        inside = sorted(v for v in versions if first <= v < fixed)
        if versions and not inside:
            continue  # the log names the client's release, and it is not an affected one
        if inside:
            said = ".".join(map(str, inside[0]))
            out.append((bug, shown, 0.9, f"your log shows {bug.side} {said}, an affected release"))
        elif bug.base is not None:
            out.append((bug, shown, bug.base, f"if your client runs {bug.side} {bug.affected}"))
    return out
