"""One rule per cause label: each reads a group's Timeline and returns the findings it supports.

Every rule names, in a comment, the Kafka source that writes the line it reads. Scores: a rule's
base score says how specific its lines are to the cause (a poll-timeout LeaveGroup names it; a
lone session expiry could be a GC pause or a cut network), plus 0.02 per further occurrence, at
most 0.99. What the coordinator's lines alone cannot tell apart is in docs/diagnose.md.
"""

from __future__ import annotations

import re

from kafkasim.analysis.diagnose import bugs
from kafkasim.analysis.diagnose.model import SETTINGS, Finding, Line
from kafkasim.analysis.diagnose.timeline import ERROR, FILE, KIND, LINE, MEMBER, REASON, Move, Timeline

#: Session expiries of different members this close together are one outage, not one process each.
TOGETHER_MS = 5_000
#: A member back within this long after it left is the same process coming back, or its restart.
RETURN_MS = 300_000
#: A rebalance this long, with this many joins inside it, is a slow join of a large group.
SLOW_JOIN_MS, SLOW_JOIN_ARRIVALS = 60_000, 10
#: Joins into a formed group, each its own rebalance, past this many: a join storm.
STORM_REBALANCES = 8
#: KIP-800 (3.2+): the client's reason in the coordinator's line ("not provided" from older clients).
_CLIENT_REASON = re.compile(r"client reason: (?!not provided)")


def finding(cause: str, tl: Timeline, base: float, moves: list, summary: str) -> Finding:
    """A finding whose score grows with the occurrences seen, its evidence the lines of `moves`
    (Moves, Episodes or rows), in log order, at most 12."""
    lines: dict = {}
    for m in moves:
        lines.setdefault((m.file, m.line) if hasattr(m, "file") else (m[FILE], m[LINE]), None)
        if len(lines) >= 12:
            break
    score = round(min(0.99, base + 0.02 * max(0, len(moves) - 1)), 3)
    return Finding(cause, tl.group, score, summary, [Line(f, n) for f, n in lines], list(SETTINGS[cause]))


def _names(tl: Timeline, moves: list) -> str:
    """The members of `moves` as the report names them: by client id where it tells them apart, else by
    their full member id (`Timeline.identity`)."""
    names = list(dict.fromkeys(tl.identity(m.member) or "?" for m in moves))
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


class Reading:
    """What the rules share about one group: departures paired with the arrivals that followed them."""

    def __init__(self, tl: Timeline):
        self.tl = tl
        reasons = " ".join(ep.reason or "" for ep in tl.episodes)
        self.kip800 = bool(_CLIENT_REASON.search(reasons))  # the clients send their reason (3.2+ on both sides)
        self.formed = tl.formed_at()
        self.back: dict[int, Move] = {}      # id(departure) -> the arrival that followed it
        used: set[int] = set()
        for d in tl.departures:
            a = tl.returned(d, RETURN_MS, used)
            if a is not None:
                self.back[id(d)] = a
                used.add(id(a))
        self.new_arrivals = [a for a in tl.arrivals if id(a) not in used and self.formed is not None
                             and a.time > self.formed]
        self.expiries = [d for d in tl.departures if d.reason == "session_timeout"]
        self.together = _clusters(self.expiries)

    def lived(self, d: Move) -> bool:
        """Came back under the same member id: under KIP-848 the same consumer (a new process draws a
        new Uuid), so the process lived through its absence."""
        a = self.back.get(id(d))
        return a is not None and self.tl.protocol == "consumer" and a.member == d.member


def _clusters(expiries: list[Move]) -> list[list[Move]]:
    """Session expiries of two or more members within TOGETHER_MS of the first."""
    out, i = [], 0
    while i < len(expiries):
        j = i
        while j + 1 < len(expiries) and expiries[j + 1].time - expiries[i].time <= TOGETHER_MS:
            j += 1
        if len({m.member for m in expiries[i:j + 1]}) >= 2:
            out.append(expiries[i:j + 1])
        i = j + 1
    return out


def slow_processing(r: Reading) -> list[Finding]:
    tl, out = r.tl, []
    # AbstractCoordinator.maybeLeaveGroup (Java client 3.2+, KIP-800): a LeaveGroup whose reason is
    # "consumer poll timeout has expired..." (ConsumerCoordinator's poll timer, KIP-62), logged by the
    # coordinator as "Preparing to rebalance ... on LeaveGroup; client reason: ..." (GroupCoordinator.scala)
    poll = [d for d in tl.departures if d.reason == "poll_timeout"]
    if poll:
        out.append(finding("slow-processing", tl, 0.95, poll,
                           f"{_names(tl, poll)} left on a poll timeout ({len(poll)} time(s)): more than "
                           f"max.poll.interval.ms went by between two poll() calls while the process lived"))
    # GroupCoordinator.onCompleteJoin / GroupMetadataManager.java completeClassicGroupJoin: "removed dynamic
    # members who haven't joined" once the rebalance timeout (the members' max.poll.interval.ms) ran out,
    # not at once (that is KAFKA-8653: bugs.py).
    at_start = {(x[FILE], x[LINE]) for x in bugs.PATTERNS["removed_at_rebalance_start"](tl, "rebalance_timeout", 1000)}
    late = [d for d in tl.departures if d.reason == "rebalance_timeout" and not d.fenced
            and (d.file, d.line) not in at_start]
    if late:
        out.append(finding("slow-processing", tl, 0.75, late,
                           f"{_names(tl, late)} did not rejoin within the rebalance timeout (max.poll.interval.ms): "
                           f"busy between poll() calls, or in onPartitionsRevoked"))
    # GroupMetadataManager.java "Member {} left the consumer group" (KIP-848): the consumer's poll timer
    # expired and it left with epoch -1, keeping its member id to rejoin (AbstractMembershipManager
    # transitionToSendingLeaveGroup / maybeRejoinStaleMember); a new process would draw a new id.
    stale = [d for d in tl.departures if d.reason in ("leave_group", "poll_timeout") and r.lived(d)
             and d.reason != "poll_timeout"]
    if stale:
        out.append(finding("slow-processing", tl, 0.85, stale,
                           f"{_names(tl, stale)} left the consumer group and came back under the same member id: "
                           f"the process lived, so it left on a poll timeout"))
    # Before KIP-800 a poll-timeout LeaveGroup and a close read alike ("has left"): one member leaving and
    # coming back, alone, is more often a poll timeout than a one-pod deploy.
    lone = _lone_returns(r)
    if lone and not r.kip800 and tl.protocol == "classic":
        out.append(finding("slow-processing", tl, 0.55, lone,
                           f"{_names(tl, lone)} left by LeaveGroup and rejoined later; without the client's reason "
                           f"(Kafka before 3.2) this is a poll timeout or a restart of that one member"))
    return out


def _restarts(r: Reading) -> list[Move]:
    """Graceful departures followed by an arrival (not the same consumer coming back)."""
    return [d for d in r.tl.departures if d.reason == "leave_group" and id(d) in r.back and not r.lived(d)]


def _lone_returns(r: Reading) -> list[Move]:
    restarts = _restarts(r)
    return restarts if len(restarts) == 1 else []


def session_timeout(r: Reading) -> list[Finding]:
    # GroupCoordinator.onExpireHeartbeat "Member {} in group {} has failed, removing it from the group";
    # GroupMetadataManager.java (KIP-848) "fenced from the group because the member session expired".
    tl = r.tl
    together = {id(m) for c in r.together for m in c}
    alone = [d for d in r.expiries if id(d) not in together]
    if not alone:
        return []
    back = [d for d in alone if id(d) in r.back]
    base = 0.8 if back else 0.6
    how = (f"came back {(r.back[id(back[0])].time - back[0].time) / 1000:g} s later, so the process lived"
           if back else "did not come back in this log (a crash looks the same)")
    return [finding("session-timeout-gc-or-stall", tl, base, alone,
                    f"{_names(tl, alone)}: heartbeats stopped for session.timeout.ms and the coordinator removed it "
                    f"({len(alone)} time(s)); it {how}: a GC pause, a starved or blocked heartbeat thread")]


def network(r: Reading) -> list[Finding]:
    tl, out = r.tl, []
    # The same "has failed" / "session expired" lines (see session_timeout), for several members at once:
    # processes do not pause together, a network between them and the coordinator does.
    if r.together:
        cluster = r.together[0]
        moves = [m for c in r.together for m in c]
        out.append(finding("network", tl, 0.85, moves,
                           f"{len(r.together)} time(s) several members lost their sessions within "
                           f"{TOGETHER_MS / 1000:g} s of each other (first {_names(tl, cluster)}): the connection to "
                           f"the coordinator was lost, not one process"))
    # GroupMetadataManager.removeGroupsForPartition "Unloading group metadata" / loadGroupsForPartition
    # "Loading group metadata" (4.x: "Unloaded group metadata", "Loaded ... group"): the coordinator moved
    # to another broker (a broker restart or a leader change of __consumer_offsets) while the group lived.
    # GroupCoordinator.onElection / onResignation (2.8 - 3.9) "Elected as / Resigned as the group coordinator for
    # partition P" of the group's partition (offsets.to_groups) say the same.
    moved = [x for x in tl.rows if (x[KIND] == "GroupDead" and x[REASON] == "unloaded")
             or (x[KIND] == "GroupLoaded" and x is not tl.rows[0])
             or x[KIND] in ("CoordinatorElected", "CoordinatorResigned")]
    if moved:
        out.append(finding("network", tl, 0.6, moved,
                           "the group's coordinator moved (its __consumer_offsets partition was unloaded or "
                           "loaded): every member had to find the new coordinator"))
    return out


def rolling_restart(r: Reading) -> list[Finding]:
    # "has left" / "has left group through explicit `LeaveGroup`" (GroupCoordinator.removeMemberAndUpdateGroup,
    # GroupMetadataManager.java), each followed by a new dynamic member ("Dynamic member with unknown member
    # id joins group", KIP-394) with no group.instance.id ("with group instance id None"): deploys restart
    # the members one by one, and each restart is two rebalances.
    tl = r.tl
    restarts = _restarts(r)
    # Distinct members by Timeline.identity: with default client ids (one process per consumer) each
    # restart's member id is its own, so restarts are counted, not processes (the lines cannot tell them).
    members = {tl.identity(d.member) for d in restarts}
    static = any(a.static for a in tl.arrivals)
    if len(members) < 2 and not (restarts and r.kip800):
        return []
    spread = restarts[-1].time - restarts[0].time > TOGETHER_MS if len(restarts) > 1 else True
    if static or not spread:
        return []
    base = 0.9 if len(members) >= 3 else 0.75 if len(members) == 2 else 0.5
    return [finding("rolling-restart-dynamic-members", tl, base, restarts,
                    f"{len(members)} member(s) left by LeaveGroup one after another and came back as new dynamic "
                    f"members ({_names(tl, restarts)}): each restart cost two rebalances")]


def scaling(r: Reading) -> list[Finding]:
    # New members joining a formed group ("Dynamic member with unknown member id joins group ... in Stable
    # state", "joins the consumer group") that replace nobody, and members leaving by LeaveGroup that are
    # not replaced while the group keeps others: its size changed for good.
    tl, out = r.tl, []
    added = r.new_arrivals
    storm = len({_episode_of(tl, a) for a in added}) >= STORM_REBALANCES
    if added and not storm:
        out.append(finding("scaling", tl, 0.8, added,
                           f"{len(added)} new member(s) joined the running group ({_names(tl, added)}) without "
                           f"replacing any: scaled out"))
    gone = [d for d in tl.departures if d.reason == "leave_group" and id(d) not in r.back]
    if gone and not _emptied(tl, gone[-1]):
        out.append(finding("scaling", tl, 0.8, gone,
                           f"{len(gone)} member(s) left by LeaveGroup and were not replaced ({_names(tl, gone)}), "
                           f"the group kept running: scaled in"))
    return out


def _episode_of(tl: Timeline, m: Move):
    return tl.episode_at(m.time)


def _emptied(tl: Timeline, d: Move) -> bool:
    """Did the group end up with nobody after `d` (the application shut down, not a scale-in)? The
    member count of the next generation ("Stabilized group ... with N members") says; without one,
    whether anyone joined that has not left."""
    if any(x[KIND] == "GroupEmpty" and x[0] >= d.time for x in tl.rows):
        return True
    after = [n for t, _, n in tl.generations if t >= d.time and n is not None]
    if after:
        return after[0] == 0
    left = {m.member for m in tl.departures}
    return not any(a.member not in left for a in tl.arrivals)


def slow_join(r: Reading) -> list[Finding]:
    tl, out = r.tl, []
    # "Preparing to rebalance" ... "Stabilized group" (GroupCoordinator.prepareRebalance / onCompleteJoin):
    # joins kept arriving for SLOW_JOIN_MS or more, each delaying the join phase (KIP-134's
    # group.initial.rebalance.delay.ms, then the rebalance timeout).
    # Before 2.2 (KIP-394) and at 2.8 only the first join of a rebalance has a line of its own, so the
    # number that joined is also read from the member counts of "Stabilized group ... with N members".
    before = 0
    for ep in tl.episodes:
        end = ep.end if ep.end is not None else tl.last
        grew = (ep.members or 0) - before
        before = ep.members if ep.members is not None else before
        if ep.epoch or end - ep.start < SLOW_JOIN_MS:
            continue
        inside = [a for a in tl.arrivals if ep.start <= a.time <= end]
        joined = max(len(inside), grew)
        if joined >= SLOW_JOIN_ARRIVALS:
            done = f"took {(end - ep.start) / 1000:g} s" if ep.end is not None else \
                f"had not finished after {(end - ep.start) / 1000:g} s"
            out.append(finding("too-many-members-or-slow-join", tl, 0.85, [ep] + inside,
                               f"a rebalance {done} while {joined} members joined: a large group joining "
                               f"slowly"))
    # One rebalance per join into a formed group, STORM_REBALANCES or more of them: a join storm.
    added = r.new_arrivals
    episodes = {_episode_of(tl, a) for a in added}
    if len(episodes) >= STORM_REBALANCES:
        out.append(finding("too-many-members-or-slow-join", tl, 0.8, added,
                           f"{len(added)} members joined one after another, {len(episodes)} rebalances: the group "
                           f"never settled while it grew"))
    # Removal reasons: group.max.size (KIP-389, GroupCoordinator "exceeds the maximum"), a SyncGroup not sent
    # in time ("on pending sync request expiration", KAFKA-12890's fix), a join never completed
    # ("Pending member ... has been removed after session timeout expiration", KIP-394).
    for reason, base, why in (("group_max_size", 0.9, "over group.max.size"),
                              ("sync_timeout", 0.7, "sent no SyncGroup within the rebalance timeout"),
                              ("pending_expired", 0.6, "never completed their join (KIP-394 pending members)")):
        hit = [d for d in tl.departures if d.reason == reason]
        if hit:
            out.append(finding("too-many-members-or-slow-join", tl, base, hit,
                               f"{len(hit)} member(s) removed: {why} ({_names(tl, hit)})"))
    return out


def misconfiguration(r: Reading) -> list[Finding]:
    tl, out = r.tl, []
    # GroupMetadataManager.java validateOnlineUpgrade / convertToConsumerGroup ("Cannot upgrade classic
    # group ... because online upgrade is disabled", ...): clients of both protocols in one group id that
    # group.consumer.migration.policy does not allow.
    refused = [x for x in tl.rows if x[KIND] == "GroupConversionRefused"]
    if refused:
        out.append(finding("misconfiguration", tl, 0.85, refused,
                           f"the coordinator refused to convert the group between protocols ({refused[0][REASON]}): "
                           f"clients with another group.protocol share this group id"))
    # GroupMetadataManager.java "Static member {} with instance id {} is fenced by existing member"
    # (FENCED_INSTANCE_ID): two processes with one group.instance.id.
    fenced = [x for x in tl.rows if x[ERROR] == "FENCED_INSTANCE_ID"]
    if fenced:
        out.append(finding("misconfiguration", tl, 0.9, fenced,
                           "a static member was fenced by another member with the same group.instance.id: two "
                           "processes share one group.instance.id"))
    # GroupCoordinator.updateStaticMemberAndRebalance "Static member ... rejoins, assigning new member id X,
    # while old member id Y will be removed" (GroupMetadataManager.java "... to replace the existing member
    # Y"): a member id replaced, then its replacement replaced, within a minute, again and again: two
    # processes taking turns with one group.instance.id (a restart replaces each member once).
    turns = _ping_pong([x for x in tl.rows if x[KIND] == "MemberReplaced" and x[MEMBER] and x[REASON]])
    if turns:
        out.append(finding("misconfiguration", tl, 0.8, turns,
                           f"one static member replaced {len(turns)} times, each replacing the last within "
                           f"{PING_PONG_MS / 1000:g} s: a group.instance.id used by more than one process"))
    return out


#: Replacements of one static member this close together are two processes fighting over its instance id.
PING_PONG_MS, PING_PONG_TURNS = 60_000, 3


def _ping_pong(replaced: list) -> list:
    """The longest chain of replacements (old member id -> new) whose links are each PING_PONG_MS or
    less apart, if it has PING_PONG_TURNS links or more."""
    chains: dict[str, list] = {}  # current member id -> the replacements that led to it
    best: list = []
    for x in replaced:
        chain = chains.pop(x[REASON], [])
        chain = chain + [x] if chain and x[0] - chain[-1][0] <= PING_PONG_MS else [x]
        chains[x[MEMBER]] = chain
        best = chain if len(chain) > len(best) else best
    return best if len(best) >= PING_PONG_TURNS else []


def known_bugs(r: Reading) -> list[Finding]:
    tl, out = r.tl, []
    for bug, rows in bugs.matches(tl):
        cause = "broker-bug-or-coordinator" if bug.side == "broker" else "client-bug"
        base = 0.9 if bug.side == "broker" else 0.55
        out.append(finding(cause, tl, base, rows,
                           f"{bug.bug} ({bug.side} {bug.affected}, fixed in {bug.fixed}) if your {bug.side} runs "
                           f"one of those versions: {bug.what}. {bug.source}"))
    # GroupMetadataManager.java "Failed to compute a new target assignment for epoch ...": the coordinator
    # itself failed (UNKNOWN_SERVER_ERROR to the members).
    failed = [x for x in tl.rows if x[ERROR] == "UNKNOWN_SERVER_ERROR"]
    if failed:
        out.append(finding("broker-bug-or-coordinator", tl, 0.75, failed,
                           "the coordinator failed to compute the group's target assignment"))
    return out


#: GroupCoordinator's rebalance reason when the SyncGroup's assignment could not be written to __consumer_offsets
#: (GroupMetadataManager.storeGroup's callback): "error when storing group assignment during SyncGroup (member: M)"
#: 2.1 - 2.8, "Error when ..." 3.0 - 3.4, "Error COORDINATOR_NOT_AVAILABLE when ..." 3.5 - 3.9.
_STORE_FAILED = re.compile(r"[Ee]rror (?:[A-Z_]+ )?when storing group assignment during SyncGroup")


def coordinator_failing(r: Reading) -> list[Finding]:
    """The coordinator could not write the group to its __consumer_offsets partition: storeGroup maps
    NOT_ENOUGH_REPLICAS (ISR below min.insync.replicas) to COORDINATOR_NOT_AVAILABLE, the SyncGroup fails and
    the group rebalances again, and commits fail the same way (GroupMetadataManager.scala storeGroup /
    storeOffsets, 1.0 - 3.9)."""
    tl = r.tl
    stored = [x for x in tl.rows if (x[KIND] == "RebalanceStarted" and _STORE_FAILED.match(x[REASON] or ""))
              or x[KIND] == "GroupStoreFailed"]
    # ReplicaManager.appendToLocalLog "Error processing append operation on partition __consumer_offsets-P" of
    # the group's partition (offsets.to_groups): the write itself failed on the partition leader.
    appends = [x for x in tl.rows if x[KIND] == "OffsetsAppendFailed"]
    # Partition.maybeShrinkIsr "[Partition __consumer_offsets-P broker=N] Shrinking ISR from 3,1 to 3": the
    # partition's followers fell behind; with fewer in sync than min.insync.replicas its writes fail.
    shrunk = [x for x in tl.rows if x[KIND] == "OffsetsIsrShrunk"]
    if not (stored or appends or shrunk):
        return []
    if stored or appends:
        base = 0.9 if stored else 0.85
        what = ("the coordinator could not store the group's assignment (its SyncGroup failed and the group "
                "rebalanced again)" if stored else "writes to the group's __consumer_offsets partition failed")
    else:
        base, what = 0.5, "the group's __consumer_offsets partition lost in-sync replicas"
    isr = f"; its ISR shrank {len(shrunk)} time(s)" if shrunk and (stored or appends) else ""
    return [finding("broker-bug-or-coordinator", tl, base, stored + appends + shrunk,
                    f"{what}{isr}: the coordinator failed to write to __consumer_offsets (under-replicated or "
                    f"below min.insync.replicas), not the consumers")]


def kip848(r: Reading) -> list[Finding]:
    tl, out = r.tl, []
    # GroupMetadataManager.java scheduleConsumerGroupRebalanceTimeout: "fenced from the group because it
    # failed to transition from epoch N within Mms" (3.7: "failed to revoke partitions within").
    slow = [d for d in tl.departures if d.reason == "rebalance_timeout" and d.fenced]
    if slow:
        out.append(finding("kip848-specific", tl, 0.75, slow,
                           f"{_names(tl, slow)} fenced for not revoking its partitions within the rebalance timeout "
                           f"(the consumer protocol's reconciliation)"))
    # "Static member {} with instance id {} cannot join the group because the instance id is owned by member"
    # (UNRELEASED_INSTANCE_ID): a restarted static member back before its old session left.
    unreleased = [x for x in tl.rows if x[ERROR] == "UNRELEASED_INSTANCE_ID"]
    if unreleased:
        out.append(finding("kip848-specific", tl, 0.8, unreleased,
                           "a static member's instance id was still owned by its previous member "
                           "(UNRELEASED_INSTANCE_ID)"))
    # "Converted the classic group to a consumer group" (not the empty one: that is how a consumer group
    # is born): an online migration, which rebalances the group.
    converted = [x for x in tl.rows if x[KIND] == "GroupConverted" and x[REASON] and x[REASON].startswith("online")]
    if converted:
        out.append(finding("kip848-specific", tl, 0.4, converted,
                           f"the group was converted between protocols online ({converted[0][REASON]})"))
    return out


#: Every rule, in label order; each returns its findings for one group.
RULES = (slow_processing, session_timeout, network, rolling_restart, scaling, slow_join, misconfiguration,
         known_bugs, coordinator_failing, kip848)
