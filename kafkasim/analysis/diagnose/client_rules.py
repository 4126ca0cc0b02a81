"""Findings from the clients' own lines (Java consumer, librdkafka, kafka-python, franz-go, sarama, kafkajs,
aiokafka, Kafka Streams, spring-kafka), and their merge with the coordinator's.

What a client's log shows that the coordinator's does not: why it left (its poll timer), whether the
process lived through its silence (a session timer that fired at the same instant as the "unknown
member" answer: the process was frozen and woke up; one that fired seconds before it: the process ran
and could not reach the coordinator), a dropped connection, its own settings. Each rule cites the
client source file and first release of the line it reads (docs/log-reader.md, "Client logs").
`merge` keeps one finding per cause and group: the coordinator's and the client's evidence together.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from kafkasim.analysis.diagnose import bugs
from kafkasim.analysis.diagnose.model import SETTINGS, Finding, Line, best_first
from kafkasim.analysis.diagnose.rules import (RETURN_MS, SLOW_JOIN_ARRIVALS, SLOW_JOIN_MS, STORM_REBALANCES,
                                             TOGETHER_MS)
from kafkasim.analysis.diagnose.timeline import (ERROR, FILE, FORMING_MS, GEN, GROUP, KIND, LINE, MEMBER, REASON,
                                                 STATE, T, VALUE)
from kafkasim.analysis.log_parser import ROW_FIELDS
from kafkasim.core.config import BROKER_CONFIGS

_I = {name: i for i, name in enumerate(ROW_FIELDS)}
LOG_SOURCE, DETAIL, CLIENT, INSTANCE, VERSIONS = (_I[n] for n in ("log_source", "detail", "client", "instance",
                                                                   "versions"))
CLIENT_SOURCES = ("java", "librdkafka", "kafka-python", "franz-go", "sarama", "kafkajs", "aiokafka", "kafka-streams",
                  "spring-kafka")
#: A session timer and the "unknown member" answer this close together: the process noticed both on waking.
FROZEN_MS = 1_000
#: librdkafka errors (rd_kafka_err_descs) and Kafka errors that say the coordinator could not be reached.
_UNREACHABLE = ("_TIMED_OUT", "_TRANSPORT", "NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE")
#: The settings a finding of each cause shows, when the log has them (ClientConfig rows).
_SHOWN = {"slow-processing": ("max.poll.interval.ms", "max.poll.records"),
          "session-timeout-gc-or-stall": ("session.timeout.ms", "heartbeat.interval.ms"),
          "network": ("session.timeout.ms", "request.timeout.ms"),
          "rolling-restart-dynamic-members": ("group.instance.id", "partition.assignment.strategy", "group.protocol"),
          "scaling": ("partition.assignment.strategy", "group.protocol"),
          "too-many-members-or-slow-join": ("max.poll.interval.ms", "group.protocol"),
          "misconfiguration": ("session.timeout.ms", "heartbeat.interval.ms", "group.instance.id", "group.protocol"),
          "kip848-specific": ("group.protocol", "group.instance.id")}


def is_client(r: tuple) -> bool:
    return r[LOG_SOURCE] in CLIENT_SOURCES


def name_groups(rows: list) -> list:
    """The client rows whose line names no group (librdkafka's MAXPOLL, SESSTMOUT) take the group the other
    lines of their file name, when they name one only."""
    named: dict[str, set] = defaultdict(set)
    for r in rows:
        if is_client(r) and r[GROUP] is not None:
            named[r[FILE]].add(r[GROUP])
    out = []
    for r in rows:
        groups = named.get(r[FILE], ())
        if is_client(r) and r[GROUP] is None and len(groups) == 1:
            r = r[:GROUP] + (next(iter(groups)),) + r[GROUP + 1:]
        out.append(r)
    return out


class _Signals:
    """What the rules saw in one group's client rows: cause -> [(base score, rows, summary)]."""

    def __init__(self):
        self.by_cause: dict[str, list] = defaultdict(list)

    def add(self, cause: str, base: float, rows: list, summary: str, count: int | None = None) -> None:
        """`count` occurrences (default: one per row) of `cause`, shown by `rows`."""
        if rows:
            self.by_cause[cause].append((base, rows, summary, len(rows) if count is None else count))


def findings(rows: list) -> list[Finding]:
    """One finding per cause and group from the client rows (rows in time order, groups named), and from the
    broker's lines that name no group (GroupMetadata.isStaticMemberFenced's, 2.3 - 2.8): no group's history
    holds them, so only these line-level rules can read them."""
    by_group: dict = defaultdict(list)
    for r in rows:
        if is_client(r) or r[GROUP] is None:
            by_group[r[GROUP]].append(r)
    out = []
    for group, rs in by_group.items():
        s = _Signals()
        for rule in CLIENT_RULES:
            rule(rs, s)
        config = _config(rs)
        for cause, signals in s.by_cause.items():
            out.append(_finding(cause, group, signals, config))
    return best_first(out)


def _finding(cause: str, group, signals: list, config: dict) -> Finding:
    base, _, summary, _ = max(signals, key=lambda x: x[0])
    lines: dict = {}
    for _, rs, _, _ in sorted(signals, key=lambda x: -x[0]):
        for r in rs:
            lines.setdefault((r[FILE], r[LINE]), None)
    n = sum(count for *_, count in signals)
    score = round(min(0.99, base + 0.02 * max(0, n - 1)), 3)
    shown = [f"{name} = {text} in this log ({where})" for name in _SHOWN.get(cause, ())
             for text, where in config.get(name, [])]
    return Finding(cause, group, score, summary, [Line(f, n) for f, n in list(lines)[:12]],
                   shown + list(SETTINGS[cause]))


def _config(rs: list) -> dict:
    """setting -> [(text, file:line)] of each distinct value a ClientConfig line gave it."""
    out: dict = defaultdict(list)
    for r in rs:
        if r[KIND] == "ClientConfig" and r[REASON]:
            text = _shown(r)
            if text not in [t for t, _ in out[r[REASON]]]:
                out[r[REASON]].append((text, f"{r[FILE]}:{r[LINE]}"))
    return out


def _shown(r) -> str:
    """A setting's value as its line wrote it (a number it gave no text for, in full)."""
    return r[DETAIL] if r[DETAIL] is not None else (f"{r[VALUE]:.15g}" if r[VALUE] is not None else "")


def _process(r: tuple) -> tuple:
    """One client process: its file and client id (a file may hold several consumers' lines)."""
    return r[FILE], r[CLIENT]


def slow_processing(rs: list, s: _Signals) -> None:
    # Java: "consumer poll timeout has expired. This means the time between subsequent calls to poll() ..."
    # (AbstractCoordinator.java HeartbeatThread, 2.4+; "This member will leave the group because ..." 2.1 - 2.3;
    # "Consumer poll timeout has expired." HeartbeatRequestManager.java 3.8 - 3.9, AbstractHeartbeatRequestManager
    # .java 4.x) and its LeaveGroup "... due to consumer poll timeout has expired." (AbstractCoordinator.java 2.4+).
    # librdkafka: MAXPOLL "Application maximum poll interval (Nms) exceeded by Mms ... leaving group"
    # (src/rdkafka_cgrp.c rd_kafka_cgrp_max_poll_interval_check_tmr_cb, v1.0.0+).
    polls = [r for r in rs if r[KIND] == "PollTimeout"]
    leaves = [r for r in rs if r[KIND] == "LeaveGroup" and (r[REASON] or "").startswith("consumer poll timeout")]
    # 3.8+ "Time between subsequent calls to poll() was longer than ... Member M will rejoin the group now."
    rejoins = [r for r in rs if r[KIND] == "PollTimeoutRejoin"]
    # Java: a CommitFailedException "Commit cannot be completed since the group has already rebalanced ... This means
    # that the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms"
    # (CommitFailedException.java 1.0+), as the application prints it (spring-kafka's "Consumer exception"): the
    # consumer's own account of its typical cause, but also what a member removed for its session meets.
    commits = [r for r in rs if r[KIND] == "CommitFailed" and r[REASON] == "group rebalanced"]
    if polls or leaves:
        n = len(polls) or len(leaves)
        s.add("slow-processing", 0.95, polls or leaves,
              f"the client's poll timer expired {n} time(s) (its log: max.poll.interval.ms went by between two "
              f"poll() calls while the process lived), so it left the group")
        # more evidence, no summary of its own (the first signal's wins the tie); the leaves are listed once
        s.add("slow-processing", 0.95, leaves + rejoins + commits, "", count=0)
    elif commits:
        s.add("slow-processing", 0.7, commits,
              f"{len(commits)} offset commit(s) failed because the group had rebalanced without this member; the "
              f"consumer's CommitFailedException names the usual cause: more than max.poll.interval.ms between two "
              f"poll() calls")


def _expiries(rs: list) -> list:
    # Java: "Group coordinator N is unavailable or invalid due to cause: session timed out without receiving a
    # heartbeat response. isDisconnected: false." (AbstractCoordinator.java HeartbeatThread, 2.7+).
    # librdkafka: SESSTMOUT "Consumer group session timed out (in join-state J) after N ms without a successful
    # response from the group coordinator" (src/rdkafka_cgrp.c rd_kafka_cgrp_session_timeout_check, v1.4.0+).
    return [r for r in rs if r[KIND] == "SessionTimeout"
            or (r[KIND] == "CoordinatorLost" and (r[REASON] or "").startswith("session timed out"))]


def _removed(rs: list) -> list:
    # Java: "Attempt to heartbeat with Generation{...} ... failed due to UNKNOWN_MEMBER_ID" (AbstractCoordinator
    # .java HeartbeatResponseHandler, 2.6+), "... since member id M is not valid." (1.0 - 2.5); "GroupHeartbeat
    # Request failed because member M is unknown." (HeartbeatRequestManager.java 3.7 - 3.9, 4.x "Consumer...");
    # librdkafka: HEARTBEAT "heartbeat error response ...: Broker: Unknown member" (src/rdkafka_cgrp.c, v1.6.0+);
    # franz-go: "heartbeat errored; group: G, err: UNKNOWN_MEMBER_ID: ..." (pkg/kgo/consumer_group.go, v1.0.0+), and
    # under KIP-848 "consumer group heartbeat error, abandoning assignment and rejoining ..." (consumer_group_848.go
    # 1.21+).
    return [r for r in rs if r[KIND] in ("HeartbeatResponse", "ConsumerGroupHeartbeat")
            and r[ERROR] == "UNKNOWN_MEMBER_ID"]


def sessions(rs: list, s: _Signals) -> None:
    """A session the coordinator expired, seen from the client: frozen (GC, stall) or cut off (network)."""
    expiries, removed = _expiries(rs), _removed(rs)
    used: set = set()
    for gone in removed:
        before = [e for e in expiries if _process(e) == _process(gone) and id(e) not in used
                  and 0 <= gone[T] - e[T] <= RETURN_MS]
        if not before:
            s.add("session-timeout-gc-or-stall", 0.6, [gone],
                  "the coordinator no longer knew the member (UNKNOWN_MEMBER_ID): its session had expired; the "
                  "client's log holds no line of its session timer, so a pause and a cut network look alike")
            continue
        e = before[-1]
        used.add(id(e))
        _one_expiry(e, gone, s)
    for e in expiries:
        if id(e) not in used:
            _one_expiry(e, None, s)


def _one_expiry(e: tuple, gone: tuple | None, s: _Signals) -> None:
    unreachable = e[ERROR] in _UNREACHABLE
    if unreachable or (gone is not None and gone[T] - e[T] > FROZEN_MS):
        why = (f"its requests failed ({e[ERROR]})" if unreachable else
               f"the coordinator answered only {(gone[T] - e[T]) / 1000:g} s later")
        s.add("network", 0.9 if gone is not None else 0.7, [e] + ([gone] if gone else []), count=1, summary=
              f"the client's session timer fired while the process ran and {why}: the connection to the "
              f"coordinator was lost, not the process")
    elif gone is not None:
        s.add("session-timeout-gc-or-stall", 0.85, [e, gone], count=1, summary=
              "the client's session timer fired at the same instant as the coordinator's answer that it was no "
              "longer a member: the process had been frozen (a GC pause, a stall) and noticed both on waking")
    else:
        s.add("session-timeout-gc-or-stall", 0.6, [e],
              "the client's session timed out without an answer from the coordinator (a pause or a cut network: "
              "no later line of this log tells them apart)")


def network(rs: list, s: _Signals) -> None:
    # Java: "Group coordinator N is unavailable or invalid due to cause: C. isDisconnected: true." (AbstractCoordinator
    # .java markCoordinatorUnknown, 2.7+), "Consumer has been disconnected from the group coordinator for Nms"
    # (AbstractCoordinator.java, 2.8+); librdkafka: HEARTBEAT "Heartbeat failed due to coordinator (B) no longer
    # available: E: re-querying for coordinator" (src/rdkafka_cgrp.c, v1.0.0+); franz-go: "heartbeat errored" with a Go
    # network error (pkg/kgo/consumer_group.go, v1.0.0+); sarama: "client/coordinator request to broker B failed: E"
    # (client.go, v1.19.0+).
    cut = [r for r in rs if (r[KIND] == "CoordinatorLost" and r[STATE] == "disconnected")
           or r[KIND] == "CoordinatorDisconnected"
           or (r[KIND] in ("HeartbeatResponse", "ConsumerGroupHeartbeat") and r[ERROR] in _UNREACHABLE)]
    s.add("network", 0.6, cut, f"the client lost its connection to the group coordinator {len(cut)} time(s)")


def rolling_restart(rs: list, s: _Signals) -> None:
    # Consumers closing (`_closes`), each followed by a member id the group's lines had not shown: a new
    # process, and no group.instance.id (the prefix's instanceId=, KafkaConsumer.java 2.3+).
    if any(r[INSTANCE] for r in rs) or any(r[KIND] == "ClientConfig" and r[REASON] == "group.instance.id"
                                           and r[DETAIL] not in (None, "", "null") for r in rs):
        return
    closes = _closes(rs)
    firsts = _first_seen(rs).values()
    replaced = [c for c in closes if any(c[T] < t <= c[T] + RETURN_MS for t in firsts)]
    procs = {c[MEMBER] or _process(c) for c in replaced}
    if len(procs) < 2 or replaced[-1][T] - replaced[0][T] <= TOGETHER_MS:
        return
    base = 0.9 if len(procs) >= 3 else 0.75
    s.add("rolling-restart-dynamic-members", base, replaced, count=len(procs), summary=
          f"{len(procs)} consumers closed one after another, each followed by a new member id, and none has a "
          f"group.instance.id: a rolling restart of dynamic members, two rebalances per restart")


def _first_seen(rs: list) -> dict:
    """member id -> the time of its first line."""
    seen: dict = {}
    for r in rs:
        if r[MEMBER] is not None:
            seen.setdefault(r[MEMBER], r[T])
    return seen


def _closes(rs: list) -> list:
    """A consumer closing: Java "Member M sending LeaveGroup request to coordinator N due to the consumer is being
    closed" (AbstractCoordinator.java maybeLeaveGroup, 2.4+); under group.protocol=consumer "Member M with epoch E
    transitioned from LEAVING to UNSUBSCRIBED." (MembershipManagerImpl.java 3.7 - 3.9, AbstractMembershipManager
    .java 4.x); franz-go "leaving group; group: G, member_id: M" (pkg/kgo/consumer_group.go leave, v1.0.0+: only
    from Client.Close / LeaveGroup)."""
    return [r for r in rs if (r[KIND] == "LeaveGroup" and (r[REASON] or "").startswith("the consumer is being closed"))
            or (r[KIND] == "MemberTransition" and r[REASON] == "UNSUBSCRIBED" and r[DETAIL] == "LEAVING")]


def _joined(r: tuple) -> bool:
    """A member in a generation: Java "Successfully joined group with generation" (AbstractCoordinator.java, the
    JoinGroup response; librdkafka's JOINGROUP "JoinGroup response"), or "transitioned from ... to STABLE" under
    the consumer protocol (AbstractMembershipManager.java)."""
    return r[KIND] == "JoinGroupResponse" or (r[KIND] == "MemberTransition" and r[REASON] == "STABLE")


def _rebalancing(r: tuple) -> bool:
    """A member taking part in a rebalance: Java "(Re-)joining group" (AbstractCoordinator.java), or a new
    assignment to reconcile under the consumer protocol ("transitioned from STABLE to RECONCILING")."""
    return r[KIND] == "JoinGroup" or (r[KIND] == "MemberTransition" and r[REASON] == "RECONCILING")


def _formed(starts: list[int], rs: list) -> int | None:
    """When the group first had its members (Timeline.formed_at's rule, from the clients' side): the first
    JoinGroup response of a classic group (the initial rebalance gathered the members starting together); a
    consumer group has no such barrier, so its first burst of process starts, each at most FORMING_MS after
    the one before."""
    if any(r[KIND] == "JoinGroupResponse" for r in rs):
        return min(r[T] for r in rs if r[KIND] == "JoinGroupResponse")
    if not any(_joined(r) for r in rs):
        return None
    starts = sorted(starts)
    end = starts[0]
    for t in starts[1:]:
        if t - end > FORMING_MS:
            break
        end = t
    return end


def _processes(rs: list) -> dict:
    """process -> its rows, in time order."""
    procs: dict = defaultdict(list)
    for r in rs:
        procs[_process(r)].append(r)
    return procs


def slow_join(rs: list, s: _Signals) -> None:
    # A consumer's first JoinGroup answered SLOW_JOIN_MS or more after its first line, in a generation that
    # SLOW_JOIN_ARRIVALS or more consumers joined first: the join phase kept waiting for members
    # (rules.slow_join from the clients' side: KIP-134's delay extended by each join, up to the rebalance timeout).
    firsts = [(lines[0], next((x for x in lines if x[KIND] == "JoinGroupResponse"), None))
              for lines in _processes(rs).values()]
    joined = Counter(answer[GEN] for _, answer in firsts if answer is not None)
    slow = [answer for start, answer in firsts if answer is not None and answer[T] - start[T] >= SLOW_JOIN_MS
            and joined[answer[GEN]] >= SLOW_JOIN_ARRIVALS]
    if slow:
        wait = max(answer[T] - start[T] for start, answer in firsts if answer in slow)
        s.add("too-many-members-or-slow-join", 0.85, slow, f"{len(slow)} consumer(s) waited up to {wait / 1000:g} s for "
              f"their first JoinGroup answer, in a generation {max(joined[a[GEN]] for a in slow)} consumers joined: "
              "a large group joining slowly")


def group_size(rs: list, s: _Signals) -> None:
    # The clients' side of rules.scaling and rules.slow_join. A process whose first line comes after the group
    # formed (its first member `_joined`) with a member id not seen before, that starts neither at nor within
    # RETURN_MS after a close or FATAL (at: a consumer whose log shows only its close ran before the log began)
    # and reuses no group.instance.id, is a consumer added to the running group. Added in STORM_REBALANCES or
    # more generations (one rebalance each): the group never settled while it grew; in fewer: scaled out. A close
    # followed by no new process while the others rebalance on: scaled in.
    procs = _processes(rs)
    formed = _formed([lines[0][T] for lines in procs.values()], rs)
    if formed is None:
        return
    closes = _closes(rs)
    ends = [r[T] for r in closes] + [r[T] for r in rs if r[KIND] == "MemberTransition" and r[REASON] == "FATAL"]
    instances: set = set()
    members = _first_seen(rs)
    added = []
    for lines in sorted(procs.values(), key=lambda lines: lines[0][T]):
        start, instance = lines[0][T], next((x[INSTANCE] for x in lines if x[INSTANCE]), None)
        member = next((x[MEMBER] for x in lines if x[MEMBER]), None)  # a new process has a member id of its own
        known = (instance is not None and instance in instances) or member is None or members[member] < start
        if start > formed and not known and not any(e <= start <= e + RETURN_MS for e in ends):
            added.append(next((x for x in lines if _joined(x)), lines[0]))
        instances.add(instance)
    waves = {x[GEN] if x[KIND] == "JoinGroupResponse" else x[VALUE] for x in added}
    if len(waves) >= STORM_REBALANCES:
        s.add("too-many-members-or-slow-join", 0.8, added, f"{len(added)} consumers joined the running group one "
              f"after another, in {len(waves)} generations: the group never settled while it grew")
    elif added:
        s.add("scaling", 0.75, added, f"{len(added)} consumer(s) joined the running group without replacing any: "
              "scaled out")
    starts = [lines[0][T] for lines in procs.values()] + list(members.values())  # new processes, member ids
    gone = [c for c in closes if not any(c[T] < t <= c[T] + RETURN_MS for t in starts)
            and any(x[T] > c[T] and _rebalancing(x) and _process(x) != _process(c) for x in rs)]
    if gone:
        s.add("scaling", 0.75, gone, f"{len({_process(c) for c in gone})} consumer(s) closed and none replaced them "
              "while the others rebalanced: scaled in")


def misconfiguration(rs: list, s: _Signals) -> None:
    config = {}
    for r in rs:
        if r[KIND] == "ClientConfig" and r[VALUE] is not None:
            config.setdefault((_process(r), r[REASON]), r)
    version = next((r[DETAIL] for r in rs if r[KIND] == "KafkaVersion" and bugs.apache_release(r[DETAIL])), None)
    apache = bugs.apache_release(version) if version else (4, 0)
    consumer = any(r[KIND] == "ClientConfig" and r[REASON] == "group.protocol" and (r[DETAIL] or "").lower() == "consumer"
                   for r in rs)
    for (proc, name), r in config.items():
        if name != "session.timeout.ms" or consumer:  # the consumer protocol's session is the broker's (KIP-848)
            continue
        session = r[VALUE]
        beat = config.get((proc, "heartbeat.interval.ms"))
        # ConsumerConfig.java HEARTBEAT_INTERVAL_MS_DOC: "must be set lower than session.timeout.ms, but
        # typically should be set no higher than 1/3 of that value".
        if beat is not None and beat[VALUE] > session / 3:
            s.add("misconfiguration", 0.7, [beat, r], count=1, summary=
                  f"heartbeat.interval.ms {_shown(beat)} is more than a third of session.timeout.ms {_shown(r)}: "
                  f"a lost heartbeat or two expires the session")
        # The coordinator refuses a session outside group.min/max.session.timeout.ms with INVALID_SESSION_TIMEOUT
        # (GroupCoordinator.handleJoinGroup); the defaults by version are config.py's, read at the client's Apache
        # release (the broker's is not in its log), 4.0 when the log names none.
        low = BROKER_CONFIGS["group.min.session.timeout.ms"].default(apache)
        high = BROKER_CONFIGS["group.max.session.timeout.ms"].default(apache)
        if low is not None and not low <= session <= high:  # None: before 0.9, no such configs
            s.add("misconfiguration", 0.75, [r],
                  f"session.timeout.ms {_shown(r)} is outside the broker's default range [{low}, {high}] "
                  f"(group.min/max.session.timeout.ms{' at ' + version if version else ''}): INVALID_SESSION_TIMEOUT")
    # JoinGroup/heartbeat errors naming a misconfiguration (Errors.java): INVALID_SESSION_TIMEOUT, and
    # FENCED_INSTANCE_ID (two processes with one group.instance.id, KIP-345); franz-go's "join group failed" and its
    # loop errors (pkg/kgo/consumer_group.go), sarama's "JoinGroup failed: group instance id I has been fenced"
    # (consumer_group.go 1.34+) and its KError words (errors.go).
    for error, why in (("INVALID_SESSION_TIMEOUT", "the coordinator refused the client's session.timeout.ms"),
                       ("FENCED_INSTANCE_ID", "another process uses the same group.instance.id")):
        hit = [r for r in rs if r[ERROR] == error]
        s.add("misconfiguration", 0.9, hit, f"{error}: {why}")
    # A consumer-protocol heartbeat answered GROUP_ID_NOT_FOUND: the group id is a classic group the coordinator
    # will not convert (GroupMetadataManager.validateOnlineUpgrade, 4.0+: group.consumer.migration.policy, or a
    # group not using the consumer embedded protocol) or a group of another type ("Group G is not a consumer group").
    hit = [r for r in rs if r[KIND] == "ConsumerGroupHeartbeat" and r[ERROR] == "GROUP_ID_NOT_FOUND"]
    s.add("misconfiguration", 0.85, hit, "GROUP_ID_NOT_FOUND on a consumer-protocol heartbeat: the group id is a "
                                         "classic group the coordinator would not convert "
                                         "(group.consumer.migration.policy) or a group of another type")


def kip848(rs: list, s: _Signals) -> None:
    # "GroupHeartbeatRequest failed for member M because epoch E is fenced." and "... due to unreleased instance id
    # I" (HeartbeatRequestManager.java 3.7 - 3.9 / 3.8 - 3.9; ConsumerHeartbeatRequestManager.java 4.x); franz-go's
    # "consumer group heartbeat saw fenced member epoch ..." (1.19 - 1.20) and "UnreleasedInstanceID after 3 retries"
    # (1.21+), pkg/kgo/consumer_group_848.go.
    for error, base, why in (("FENCED_MEMBER_EPOCH", 0.75, "the member's epoch was fenced by the coordinator "
                                                           "(the consumer protocol's reconciliation)"),
                             ("UNRELEASED_INSTANCE_ID", 0.8, "a static member's instance id was still owned by its "
                                                            "previous member")):
        hit = [r for r in rs if r[KIND] == "ConsumerGroupHeartbeat" and r[ERROR] == error]
        s.add("kip848-specific", base, hit, f"{error} ({len(hit)} time(s)): {why}")


def known_bugs(rs: list, s: _Signals) -> None:
    # The client bugs of bugs.KNOWN_BUGS whose signature is in the client's own lines (each row cites the client
    # source of the lines it reads), scored by what the log says of the client's release.
    for bug, rows, score, version in bugs.client_matches(rs):
        s.add("client-bug", score, rows, count=1, summary=
              f"{bug.bug}, fixed in {bug.side} {bug.fixed}: {version}: {bug.what}. {bug.source}")


def coordinator_failing(rs: list, s: _Signals) -> None:
    # The coordinator could not write to __consumer_offsets, as the client hears it: GroupMetadataManager.scala
    # storeGroup / storeOffsets (1.0 - 3.9) answer a SyncGroup or an OffsetCommit whose append failed with
    # NOT_ENOUGH_REPLICAS(_AFTER_APPEND) as COORDINATOR_NOT_AVAILABLE, and FindCoordinator answers
    # COORDINATOR_NOT_AVAILABLE while the group's __consumer_offsets partition has no leader (KafkaApis
    # handleFindCoordinatorRequest). Heartbeats and joins are left out: they get it while the coordinator moves.
    failed = [r for r in rs if r[KIND] in _STORE_KINDS and r[ERROR] in _STORE_ERRORS]
    if failed:
        s.add("broker-bug-or-coordinator", 0.7, failed,
              f"the coordinator answered {len(failed)} SyncGroup, commit or FindCoordinator request(s) with "
              f"{failed[0][ERROR]}: it could not write to (or find a leader for) the group's __consumer_offsets "
              f"partition")


#: Responses that need the coordinator to write, or to have a leader for, the group's __consumer_offsets partition.
_STORE_KINDS = ("SyncGroupResponse", "FindCoordinatorResponse", "OffsetCommitResponse", "CommitFailed")
_STORE_ERRORS = ("COORDINATOR_NOT_AVAILABLE", "NOT_ENOUGH_REPLICAS", "NOT_ENOUGH_REPLICAS_AFTER_APPEND")

#: Every client rule; each adds its signals for one group's client rows.
CLIENT_RULES = (slow_processing, sessions, network, rolling_restart, group_size, slow_join, misconfiguration, kip848,
                known_bugs, coordinator_failing)


def merge(broker: list[Finding], client: list[Finding]) -> list[Finding]:
    """One finding per cause and group: where both sides found one, the higher score and its summary, the
    coordinator's evidence then the client's, the client's settings (with their values) first."""
    out = {(f.cause, f.group): f for f in broker}
    for c in client:
        b = out.get((c.cause, c.group))
        if b is None:
            out[(c.cause, c.group)] = c
            continue
        best = c if c.score > b.score else b
        evidence = list(dict.fromkeys(b.evidence + c.evidence))
        settings = list(dict.fromkeys(c.settings + b.settings))
        out[(c.cause, c.group)] = Finding(c.cause, c.group, max(b.score, c.score), best.summary, evidence, settings)
    return best_first(list(out.values()))
