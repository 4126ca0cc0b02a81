"""A group's history read from parsed log events: episodes, generations or epochs, arrivals, departures.

Input rows are the log reader's (`kafkasim.analysis.log_parser.ROW_FIELDS`: the event schema,
then file, line, seq, time_inferred), of any `source`: the history is made of the group
coordinator's rows; the clients' (once the reader knows their wordings) are kept beside them in
`Timeline.rows` for the rules. The coordinator's lines used here, by event kind:
RebalanceStarted ("Preparing to rebalance group", GroupCoordinator.prepareRebalance),
GenerationStabilized ("Stabilized group", onCompleteJoin), AssignmentReceived ("Assignment received
from leader", setAndPropagateAssignment), MemberRemoved ("has failed", onExpireHeartbeat; "has left",
removeMemberAndUpdateGroup; "removed dynamic members who haven't joined", onCompleteJoin),
PendingMemberAdded / MemberAdded (KIP-394 joins), and for consumer groups (KIP-848,
GroupMetadataManager.java) MemberJoined, MemberFenced, GroupEpochBumped.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from kafkasim.analysis.log_parser import ROW_FIELDS
from kafkasim.coordinator.broker_log import START_TIME

_I = {name: i for i, name in enumerate(ROW_FIELDS)}
T, SOURCE, GROUP, MEMBER, KIND, GEN, ERROR, REASON, VALUE, STATE, FILE, LINE, SEQ = (
    _I[n] for n in ("time", "source", "group", "member", "kind", "generation", "error", "reason", "value", "state",
                    "file", "line", "seq"))
#: A Java client's member id is `clientId + "-" + UUID` (AbstractCoordinator / ClassicGroup.generateMemberId).
_UUID_TAIL = re.compile(r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
#: The `source` of the coordinator's own rows (the log reader's, and "broker" as the client-log reader may
#: name them); rows of other sources (clients) do not make arrivals, departures or rebalances.
BROKER_SOURCES = ("coordinator", "broker")
_CONSUMER_KINDS = ("MemberJoined", "GroupEpochBumped", "MemberFenced", "TargetAssignmentComputed")
_CLASSIC_KINDS = ("RebalanceStarted", "GenerationStabilized", "AssignmentReceived")
#: group.initial.rebalance.delay.ms's default (KIP-134): joins this close together form the group.
FORMING_MS = 3_000
_ARRIVALS = ("PendingMemberAdded", "MemberAdded", "MemberJoined")
_DEPARTURES = ("MemberRemoved", "PendingMemberExpired")


def client_of(member: str | None) -> str | None:
    """The client id a classic member id starts with (the id without its UUID); a KIP-848 member
    id (a client-made Uuid, kept for the consumer's lifetime) is returned as it is."""
    return None if member is None else _UUID_TAIL.sub("", member)


def shares_client_ids(tl: "Timeline") -> bool:
    """Whether two members present at once share a client id. Each consumer process's default client.id
    is `consumer-<group.id>-1` (ConsumerConfig.maybeOverrideClientId, 2.4+; `consumer-1` before), so the
    members of a group of separate processes differ only by their member id's UUID: the client id then
    says nothing about who is who."""
    return bool(tl._shared_keys)


def wall(ms: int | None, origin: datetime = START_TIME) -> str:
    """The log's own clock for a parsed time (`origin` + ms), to the millisecond."""
    if ms is None:
        return "?"
    return (origin + timedelta(milliseconds=int(ms))).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


@dataclass
class Move:
    """A member arriving or departing: when, who, why, and the line that says so."""

    time: int
    member: str
    reason: str | None
    file: str
    line: int
    static: bool = False
    fenced: bool = False  # a consumer group's fencing (KIP-848), not a classic removal


@dataclass
class Episode:
    """A rebalance: from the first "Preparing to rebalance" to "Stabilized" (classic), or one epoch
    bump (consumer groups, whose reconciliation Kafka logs only at DEBUG)."""

    start: int
    end: int | None
    generation: int | None
    reason: str | None
    members: int | None
    file: str
    line: int
    epoch: bool = False  # a consumer group's epoch bump rather than a classic rebalance

    @property
    def duration(self) -> int | None:
        return None if self.end is None else self.end - self.start


@dataclass
class Timeline:
    """One group's history."""

    group: str
    protocol: str = "classic"  # "consumer" once a consumer group's (KIP-848) line is seen
    protocols: set = field(default_factory=set)  # the protocols whose lines the group has
    first: int | None = None
    last: int | None = None
    episodes: list[Episode] = field(default_factory=list)
    arrivals: list[Move] = field(default_factory=list)
    departures: list[Move] = field(default_factory=list)
    generations: list[tuple] = field(default_factory=list)  # (time, generation or epoch, members or None)
    rows: list = field(default_factory=list)
    _times: list = field(default_factory=list, repr=False)
    _fenced: tuple = field(default=(), repr=False)
    _present: set = field(default_factory=set, repr=False)
    _starts: list = field(default_factory=list, repr=False)
    _shared_keys: set = field(default_factory=set, repr=False)  # client ids two members present at once had
    _keys: set = field(default_factory=set, repr=False)  # client ids of the members seen so far
    _arrived: set = field(default_factory=set, repr=False)  # member ids seen joining

    def identity(self, member: str | None) -> str | None:
        """Who a member is, as far as the coordinator's lines tell: its client id (or a static member's
        group.instance.id, which starts its classic member id: ClassicGroup.generateMemberId) when no
        two members present at once share it, else its full member id (default client ids, one
        process per consumer: `shares_client_ids`). A KIP-848 member id is returned as it is."""
        key = client_of(member)
        return member if key in self._shared_keys else key

    def formed_at(self) -> int | None:
        """When the group first had its members: the end of the first rebalance (classic), or of the
        first burst of joins (consumer groups: each join at most FORMING_MS after the one before, the
        broker's default group.initial.rebalance.delay.ms). Arrivals up to then form the group."""
        if self.protocol == "consumer":
            if not self.arrivals:
                return None
            end = self.arrivals[0].time
            for a in self.arrivals[1:]:
                if a.time - end > FORMING_MS:
                    break
                end = a.time
            return end
        # (every generation is written with an episode's end: a "Stabilized" line or an epoch bump)
        return next((ep.end for ep in self.episodes if ep.end is not None), None)

    def returned(self, d: Move, within_ms: int, used: set) -> Move | None:
        """The first arrival not in `used` after departure `d`, within `within_ms`: of the same member
        (KIP-848 ids live as long as the consumer), else of the same client id (a classic member id
        changes when it rejoins; where every process has the default client id, any arrival has it, so
        the first one is taken); under KIP-848 a new member (a restarted process) if none."""
        times = self._arrival_times()
        i = bisect.bisect_left(times, d.time)
        j = bisect.bisect_right(times, d.time + within_ms)
        first = None
        key = client_of(d.member)
        for k in range(i, j):
            a = self.arrivals[k]
            if id(a) in used or (a.file, a.line) == (d.file, d.line):
                continue
            if self.protocol == "consumer":
                if a.member == d.member:
                    return a
                first = first or a
            elif client_of(a.member) == key:
                return a
        return first

    def _arrival_times(self) -> list[int]:
        if len(self._times) != len(self.arrivals):
            self._times = [a.time for a in self.arrivals]
        return self._times

    def episode_at(self, ms: int) -> int | None:
        """The index of the rebalance going on at `ms` (the last one started by then, if not over)."""
        if len(self._starts) != len(self.episodes):
            self._starts = [e.start for e in self.episodes]
        i = bisect.bisect_right(self._starts, ms) - 1
        if i < 0:
            return None
        end = self.episodes[i].end
        return i if end is None or ms <= end else None

    def to_json(self) -> dict:
        return {"group": self.group, "protocol": self.protocol, "protocols": sorted(self.protocols),
                "episodes": [{"start": e.start, "end": e.end, "duration_ms": e.duration, "generation": e.generation,
                              "members": e.members, "reason": e.reason, "file": e.file, "line": e.line,
                              "epoch_bump": e.epoch}
                             for e in self.episodes],
                "arrivals": [_move_json(m) for m in self.arrivals],
                "departures": [_move_json(m) for m in self.departures]}


def _move_json(m: Move) -> dict:
    return {"time": m.time, "member": m.member, "reason": m.reason, "file": m.file, "line": m.line}


def row_order(files: list[str]):
    """The key `sort_rows` orders by: time; within an instant, file (in the order given), position in it."""
    order = {f: i for i, f in enumerate(files)}
    return lambda r: (r[T] if r[T] is not None else -1, order.get(r[FILE], len(order)), r[SEQ])


def sort_rows(rows: list, files: list[str]) -> list:
    """Rows in time order; within an instant, by file (in the order given) and position in it."""
    return sorted(rows, key=row_order(files))


def timelines(rows: list) -> dict[str, Timeline]:
    """Each group's Timeline, from rows already in time order (`sort_rows`)."""
    out: dict[str, Timeline] = {}
    for r in rows:
        g = r[GROUP]
        if g is None:
            continue
        tl = out.get(g)
        if tl is None:
            tl = out[g] = Timeline(g)
        _add(tl, r)
    for tl in out.values():
        _close(tl)
    return out


def _add(tl: Timeline, r: tuple) -> None:
    tl.rows.append(r)
    t, kind = r[T], r[KIND]
    tl.first = t if tl.first is None else tl.first
    tl.last = t
    if r[SOURCE] not in BROKER_SOURCES:
        return  # a client's line: kept in `rows` for the rules that read it, the history is the coordinator's
    where = (r[FILE], r[LINE])
    open_ep = tl.episodes[-1] if tl.episodes and tl.episodes[-1].end is None and not tl.episodes[-1].epoch \
        else None
    if kind in _CONSUMER_KINDS:
        tl.protocol = "consumer"
        tl.protocols.add("consumer")
    elif kind in _CLASSIC_KINDS:
        tl.protocols.add("classic")
    if kind == "MemberFenced":
        tl._fenced = where
    if kind in _ARRIVALS:
        # One arrival per member while it stays: 2.2+ logs a pending join and then the add, and a classic
        # member of a consumer group is logged joining again at each of its rejoins (KIP-848 migration).
        if r[MEMBER] not in tl._present:
            _note_client(tl, r[MEMBER], {client_of(p) for p in tl._present})
            tl._arrived.add(r[MEMBER])
            tl.arrivals.append(Move(t, r[MEMBER], r[REASON], *where, static=(r[REASON] or "").startswith("static")))
            tl._present.add(r[MEMBER])
    elif kind in _DEPARTURES:
        if r[MEMBER] not in tl._present and r[MEMBER] not in tl._arrived:
            # there since before the log began, so alongside every member seen so far
            _note_client(tl, r[MEMBER], tl._keys)
        tl._present.discard(r[MEMBER])
        tl.departures.append(Move(t, r[MEMBER], r[REASON] if kind == "MemberRemoved" else "pending_expired", *where,
                                  fenced=where == tl._fenced))
    elif kind == "RebalanceStarted":
        if open_ep is None:
            tl.episodes.append(Episode(t, None, None, r[REASON], None, *where))
    elif kind == "GenerationStabilized":
        members = None if r[VALUE] is None else int(r[VALUE])
        if open_ep is None:  # a log that starts mid-rebalance
            open_ep = Episode(t, None, None, None, None, *where)
            tl.episodes.append(open_ep)
        open_ep.end, open_ep.generation, open_ep.members = t, r[GEN], members
        tl.generations.append((t, r[GEN], members))
    elif kind == "GroupEpochBumped":
        tl.generations.append((t, r[GEN], None))
        tl.episodes.append(Episode(t, t, r[GEN], r[REASON], None, *where, epoch=True))


def _note_client(tl: Timeline, member: str | None, alongside: set) -> None:
    """Note `member`'s client id, shared if a member `alongside` it (their client ids given) had it too."""
    key = client_of(member)
    if key != member:
        if key in alongside:
            tl._shared_keys.add(key)
        tl._keys.add(key)


def _close(tl: Timeline) -> None:
    """A consumer group's member count after each epoch bump (joins less departures so far)."""
    if tl.protocol != "consumer":
        return
    present: set = set()
    moves = sorted([(m.time, m.line, 1, m.member) for m in tl.arrivals] +
                   [(m.time, m.line, -1, m.member) for m in tl.departures])
    i = 0
    for ep in (e for e in tl.episodes if e.epoch):
        while i < len(moves) and (moves[i][0], moves[i][1]) <= (ep.start, ep.line):
            (present.add if moves[i][2] > 0 else present.discard)(moves[i][3])
            i += 1
        ep.members = len(present)
