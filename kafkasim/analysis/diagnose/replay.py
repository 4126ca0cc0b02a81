"""Replay and what-if (issue 31 item 4): a `Scenario` fitted to a group's log, its simulated timeline
beside the real one with how close they are, and the same faults under other settings.

`fit_scenario(report, group)` reads, from the group's Timeline (`timeline.py`) and the text of its
lines: the members (those that joined before the group first formed, or the "Stabilized ... with N
members" count) and how spread their joins were; the Kafka version range the wording belongs to
(`VERSION_MARKS`, from docs/broker-log-parser.md; the oldest release of the range is picked, because
each wording proves "at least this release", while its upper end is only "until the wording
changed"); the protocol (a KIP-848 line makes it `group.protocol=consumer`); the timeouts a line
prints (`sessionTimeoutMs=`/`rebalanceTimeoutMs=` of the 3.x `MemberMetadata(...)`, a consumer
member "fenced ... within Nms"), then those a client printed and the coordinator's lines do not
(`_client_settings`: a Java consumer's "ConsumerConfig values:" block); static membership (instance
ids); and one fault per thing that happened (`_faults`). Everything else is the version's default, and `Fit.assumed` says so.
`replay(fit)` simulates it and scores the two timelines (`closeness`); `what_if(fit)` runs the same
faults under static membership, cooperative-sticky, the consumer protocol and longer timeouts.

Simplifications, said in `Fit.assumed`: a fault's instant is read from the line that shows its
effect, so it is known to within a heartbeat interval (a session expiry) or exactly (a LeaveGroup);
the simulator starts the initial members at seeded instants within `start_spread_ms`, not at the
logged ones; topics and partitions are not in the coordinator's lines of a classic group.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from kafkasim.analysis.diagnose.rules import TOGETHER_MS
from kafkasim.analysis.diagnose.timeline import (BROKER_SOURCES, ERROR, FILE, FORMING_MS, KIND, LINE, MEMBER, REASON,
                                                 SOURCE, T, VALUE, Timeline, shares_client_ids)
from kafkasim.analysis.logs.files import read_lines
from kafkasim.core.config import (CONSUMER_PROTOCOL_UNSUPPORTED, KAFKA_VERSIONS, ConfigError, broker_config,
                                  consumer_config)
from kafkasim.core.faults import Crash, NetworkCut, Pause, Restart, ScaleIn, ScaleOut, SlowProcessing
from kafkasim.scenario.world import Scenario, simulate

#: Rebalance starts of the log and of the replay this close together are the same rebalance.
TOLERANCE_MS = 5_000
#: The replay runs this long past the log's last line of the group.
TAIL_MS = 10_000
#: The version simulated when no line's wording dates the log.
DEFAULT_VERSION = Scenario.kafka_version
#: The longest log (from the group's first line to its last) that is replayed: cut a longer one to the incident.
MAX_REPLAY_MS = 3_600_000
#: Summary keys (`Run.summary`, SUMMARY_DOC) shown side by side by `what_if`; "removals" sums removals_by_reason.
WHAT_IF_KEYS = ("rebalances", "generations", "removals", "unconsumed_ms", "partition_downtime_ms", "rebalance_ms",
                "duplicates", "max_lag")
#: Wordings that date a line (docs/broker-log-parser.md, read at each release tag): regex, first and last
#: release line with that wording (None: still so in the newest), and what it is.
VERSION_MARKS = (
    (r"\[GroupCoordinator \d+\]:", "0.9", "3.9", "the Scala coordinator's prefix `[GroupCoordinator N]:`"),
    (r"\[GroupCoordinator id=\d+ topic=", "4.0", None, "the Java coordinator's prefix (the default from 4.0)"),
    (r"client reason: ", "3.2", None, "a client reason (KIP-800)"),
    (r"generation \d+ \(__consumer_offsets-\d+\) with \d+ members", "2.8", "3.9", "`Stabilized ... with N members`"),
    (r"Stabilized group \S+ generation \d+ \(__consumer_offsets-\d+\)(?! with)", "0.11", "2.7",
     "`Stabilized` without the member count"),
    (r"Assignment received from leader for group", "0.9", "2.8", "`Assignment received` without the leader"),
    (r"Assignment received from leader \S+ for group", "3.0", None, "`Assignment received` naming the leader"),
    (r"Member MemberMetadata\(", "3.0", "3.9", "a LeaveGroup line printing `MemberMetadata(...)`"),
    (r"Member\[group\.instance\.id", "2.4", "2.8", "a LeaveGroup line printing `Member[group.instance.id ...]`"),
    (r"Preparing to rebalance group \S+ in state", "2.1", None, "`Preparing to rebalance ... in state`"),
    (r"Preparing to rebalance group \S+ with old generation", "0.11", "2.0", "`Preparing to rebalance` without state"),
    (r"Preparing to restabilize", "0.9", "0.10.2", "`Preparing to restabilize`"),
    (r"Bumped group epoch to \d+ with metadata hash", "4.1", None, "an epoch bump with its metadata hash"),
    (r"Bumped group epoch to \d+\.(?! with)", "3.7", "4.0", "an epoch bump without a metadata hash"),
    (r"joins the consumer group using the consumer protocol", "3.9", None, "a KIP-848 join naming its protocol"),
    (r"and request the member to rejoin", "2.4", "3.9", "`... and request the member to rejoin`"),
    (r"and requesting the member to rejoin", "4.0", None, "`... and requesting the member to rejoin`"),
)
_MARKS = tuple((re.compile(p), lo, hi, what) for p, lo, hi, what in VERSION_MARKS)
_TIMEOUTS = re.compile(r"sessionTimeoutMs=(\d+), rebalanceTimeoutMs=(\d+)")  # MemberMetadata.toString, 3.0 - 3.9
_FENCED_WITHIN = re.compile(r"within (\d+)ms")  # scheduleConsumerGroupRebalanceTimeout (3.8+)
_INSTANCE = re.compile(r"[Mm]ember (\S+) with instance id (\S+?)[ .]")  # KIP-848 static member lines
_JAVA_CLIENT_ID = r"consumer-{}-(\d+)"  # ConsumerConfig.maybeOverrideClientId: "consumer-" + groupId + "-" + seq


class NotEnoughToFit(ValueError):
    """The log holds too little of the group to fit a scenario to it (the message says what is missing)."""


@dataclass
class Fit:
    """A Scenario fitted to one group's log, with what was read from which line and what was assumed.
    `ok` is False (and `reason` says why, `scenario` is None) when the log holds too little."""

    group: str | None
    ok: bool
    reason: str = ""
    scenario: Scenario | None = None
    read: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    version_range: tuple[str, str] | None = None
    protocol: str = "classic"
    offset_ms: int = 0  # the log's time (ms, as the reader gives it) of the scenario's 0
    timeline: Timeline | None = None
    names: dict = field(default_factory=dict)  # the log's client id / instance id / member id -> "c-N"
    instances: dict = field(default_factory=dict)  # KIP-848 member id -> its group.instance.id
    starting: int = 0  # members c-1 .. c-<starting> start with the scenario; later ones are scaled out
    cause: str | None = None  # the diagnosis' best cause for the group, which settles an ambiguous fault
    joins: tuple = ()  # ScaleOuts that start a join storm's members at their logged join instants (not faults)

    @property
    def members(self) -> int:
        """The group's members: those the scenario starts with, and those `joins` starts later."""
        return 0 if self.scenario is None else self.scenario.members + sum(j.count for j in self.joins)

    @property
    def faults(self) -> tuple:
        """The scenario's faults fitted to what happened (without `joins`)."""
        return () if self.scenario is None else tuple(f for f in self.scenario.faults if f not in self.joins)

    def require(self) -> Fit:
        """This fit, or NotEnoughToFit with its reason."""
        if not self.ok:
            raise NotEnoughToFit(self.reason)
        return self

    def text(self) -> str:
        """The fit on a terminal: the scenario, what was read (with file:line), what was assumed."""
        if not self.ok:
            return f"cannot fit a scenario to group {self.group}: {self.reason}"
        s = self.scenario
        out = [f"fitted scenario for group {self.group}: Kafka {s.kafka_version}, {self.members} members, "
               f"{self.protocol} protocol" + (", static membership" if s.static_membership else "")]
        out += [f"  fault: {f.label()}" for f in self.faults] or ["  no fault"]
        out += ["  read from the log:"] + [f"    {r}" for r in self.read]
        out += ["  assumed:"] + [f"    {a}" for a in self.assumed]
        return "\n".join(out)


def fit_scenario(report, group: str | None = None, *, texts: dict | None = None, seed: int = 1) -> Fit:
    """Fit a Scenario to `group`'s log (a `Report` of `diagnose_files`/`diagnose_lines`, or one
    `Timeline`). `texts` ({file: {line: text}}) gives the lines' text, for the wording and the
    timeouts it prints; by default the report's files are read again (a pasted excerpt's text is not
    kept: fit it with `fit_lines`). Never raises for what the log
    holds: a log with too little gives a Fit with `ok=False` and the reason."""
    tl, top = _pick(report, group)
    if isinstance(tl, str):
        return Fit(group, False, tl)
    lines = {(r[FILE], r[LINE]) for r in tl.rows}
    if len(lines) < 2:
        return Fit(tl.group, False, f"only {len(lines)} line of group {tl.group}: a scenario needs the group's "
                                    "members and what happened to them")
    if not any(r[SOURCE] in BROKER_SOURCES for r in tl.rows):
        return Fit(tl.group, False, f"only client lines of group {tl.group}: the members and what happened to "
                                    "them are fitted from the group coordinator's lines; add the brokers' "
                                    "server.log of the same period", timeline=tl)
    if tl.last - tl.first > MAX_REPLAY_MS:
        return Fit(tl.group, False, f"the group's lines span {(tl.last - tl.first) / 3_600_000:.1f} h; a replay "
                                    f"simulates at most {MAX_REPLAY_MS // 60_000} min: cut the log to the incident",
                   timeline=tl)
    if texts is None:
        texts = _texts(tl)
    fit = Fit(tl.group, True, protocol=tl.protocol, timeline=tl, offset_ms=tl.first, cause=top)
    version = _version(tl, texts, fit)
    settings = _timeouts(tl, texts, version, fit)
    initial, count, spread = _initial(tl, top, fit)
    if count == 0:
        return Fit(tl.group, False, "no member count: no member joins, and no 'Stabilized ... with N members' or "
                                    "'The group has N members' line (Kafka 2.8+; before 2.1 no line names the "
                                    "members that stay)", timeline=tl)
    fit.starting, fit.instances = count, _instances(texts)
    fit.names = _names(tl, initial, fit.instances, count)
    if shares_client_ids(tl):
        fit.assumed.append(f"members named c-1, c-2, ... by order of first appearance: several share a client id "
                           f"({', '.join(sorted(tl._shared_keys)[:3])}: each process's default client.id), so only "
                           f"their member ids tell them apart, and a member rejoining under a new member id is "
                           f"taken to be the one that left before it")
    faults, broker = _faults(tl, fit, settings, texts)
    fit.joins = _storm_joins(tl, initial, count, fit)
    if fit.joins:
        spread = 1000
    static = any(a.static for a in tl.arrivals) or bool(fit.instances)
    if static:
        fit.read.append("static membership: members join with a group.instance.id")
    consumer = dict(settings["read"])
    if tl.protocol == "consumer":
        consumer = {k: v for k, v in consumer.items() if k == "max.poll.interval.ms"}
        consumer["group.protocol"] = "consumer"
    partitions = max(12, count + sum(f.count for f in faults if isinstance(f, ScaleOut)))
    fit.assumed.append(f"one topic of {partitions} partitions, 1000 records/s, processing 2 ms a record "
                       "(a classic coordinator's lines name no topic)")
    fit.assumed.append("the initial members start at seeded instants within start_spread_ms, not at the logged "
                       "ones; seed " + str(seed))
    try:
        fit.scenario = Scenario(kafka_version=version, members=count - sum(j.count for j in fit.joins), seed=seed,
                                group_id=tl.group, duration_ms=max(1, tl.last - tl.first) + TAIL_MS,
                                consumer=consumer, broker=broker, topics={"orders": partitions},
                                faults=tuple(sorted(fit.joins + tuple(faults), key=lambda f: f.at_ms)),
                                static_membership=static, start_spread_ms=spread)
    except ConfigError as e:
        return Fit(tl.group, False, f"the settings read give no valid scenario: {e}", timeline=tl)
    return fit


def fit_files(paths: list[str], group: str | None = None, seed: int = 1) -> Fit:
    """`fit_scenario` of the files (read with the log reader, every group diagnosed as `kafkasim diagnose`
    does, so that a group the files lack, or several groups with none named, gets fit_scenario's reason)."""
    from kafkasim.analysis.diagnose import diagnose_files

    return fit_scenario(diagnose_files(list(paths)), group, seed=seed)


def fit_lines(text: str | list[str], group: str | None = None, seed: int = 1) -> Fit:
    """`fit_scenario` of a pasted excerpt (a string or a list of lines), e.g. `Run.broker_log`."""
    from kafkasim.analysis.diagnose import diagnose_lines

    lines = text.splitlines() if isinstance(text, str) else list(text)
    texts = {"<lines>": dict(enumerate(lines, 1))}
    return fit_scenario(diagnose_lines(lines), group, texts=texts, seed=seed)


@dataclass
class Replay:
    """The fitted scenario's run, its timeline beside the log's, and how close they are."""

    fit: Fit
    run: object  # kafkasim.scenario.run.Run
    simulated: Timeline
    score: float
    parts: dict

    def text(self) -> str:
        parts = ", ".join(f"{k} {v:.2f}" for k, v in self.parts.items())
        return f"replay closeness {self.score:.2f} ({parts}; rebalance starts matched within {TOLERANCE_MS} ms)"

    def chart(self):
        """The log's timeline above the replay's (Altair)."""
        return replay_chart(self)


def replay(fit: Fit) -> Replay:
    """Simulate the fitted scenario and score its timeline against the log's (`closeness`).
    Raises NotEnoughToFit when the fit is not ok."""
    from kafkasim.analysis.diagnose import diagnose_lines

    fit.require()
    try:
        run = simulate(fit.scenario)
    except ConfigError as e:
        raise NotEnoughToFit(f"the fitted scenario cannot run: {e}") from None
    sim = diagnose_lines(run.broker_log).timelines.get(fit.group) or Timeline(fit.group)
    score, parts = closeness(fit.timeline, sim, fit.offset_ms)
    return Replay(fit, run, sim, score, parts)


def closeness(real: Timeline, simulated: Timeline, offset_ms: int = 0,
              tolerance_ms: int = TOLERANCE_MS) -> tuple[float, dict]:
    """How alike two timelines are, in [0, 1]: the mean of three parts, each 1 when they agree.
    "starts": rebalances (or epoch bumps) starting within `tolerance_ms` of each other, matched one to
    one (2 x matched / (real + simulated)); "removals": the members removed, by Kafka's reason (shared
    count / the larger count); "generations": the number of rebalances (1 - difference / the larger).
    The real times are shifted by `offset_ms`; the simulated ones past the log's end are left out."""
    end = (real.last or 0) - offset_ms + tolerance_ms
    r = [e.start - offset_ms for e in real.episodes]
    s = [e.start for e in simulated.episodes if e.start <= end]
    rr = Counter(d.reason for d in real.departures)
    sr = Counter(d.reason for d in simulated.departures if d.time <= end)
    parts = {"starts": _match(r, s, tolerance_ms),
             "removals": sum((rr & sr).values()) / max(sum(rr.values()), sum(sr.values())) if rr or sr else 1.0,
             "generations": 1 - abs(len(r) - len(s)) / max(len(r), len(s)) if r or s else 1.0}
    return round(sum(parts.values()) / len(parts), 3), {k: round(v, 3) for k, v in parts.items()}


def _match(real: list[int], sim: list[int], tolerance_ms: int) -> float:
    """2 x (starts matched one to one, each to the nearest unused one within the tolerance) / all starts."""
    if not real and not sim:
        return 1.0
    free, matched = sorted(sim), 0
    for t in sorted(real):
        near = min(free, key=lambda s: abs(s - t), default=None)
        if near is not None and abs(near - t) <= tolerance_ms:
            free.remove(near)
            matched += 1
    return 2 * matched / (len(real) + len(sim))


def what_if(fit: Fit, settings: tuple[str, ...] | None = None) -> list[dict]:
    """The fitted faults under other settings, one row per setting with `WHAT_IF_KEYS` of its run's
    summary: "as fitted", "static membership" (KIP-345), "cooperative-sticky" (KIP-429, classic),
    "consumer protocol" (KIP-848, Kafka 4.0+), "longer timeouts" (session and poll timeouts past the
    longest fault). A setting that does not apply, or that Kafka refuses, has its reason in "note"
    and no figures. `pandas.DataFrame(rows)` makes it a table."""
    fit.require()
    rows = []
    for name in settings or tuple(VARIANTS):
        try:
            scenario, changes = VARIANTS[name](fit)
            s = simulate(scenario).summary
        except (ConfigError, _NotApplicable) as e:
            rows.append({"setting": name, "changes": "", "note": str(e).splitlines()[0]})
            continue
        rows.append({"setting": name, "changes": changes, "note": "",
                     **{k: sum(s["removals_by_reason"].values()) if k == "removals" else s[k] for k in WHAT_IF_KEYS}})
    return rows


def what_if_text(rows: list[dict]) -> str:
    """The what-if rows as a plain table (one line per setting; a setting that does not apply shows
    why), then what each setting changed."""
    figures = [r for r in rows if not r["note"]]
    first = max([len("setting")] + [len(r["setting"]) for r in rows])
    widths = [max([len(k)] + [len(str(r[k])) for r in figures]) for k in WHAT_IF_KEYS]
    out = ["setting".ljust(first) + "".join("  " + k.rjust(w) for k, w in zip(WHAT_IF_KEYS, widths))]
    for r in rows:
        rest = f"  ({r['note']})" if r["note"] else "".join(f"  {str(r[k]).rjust(w)}"
                                                             for k, w in zip(WHAT_IF_KEYS, widths))
        out.append(r["setting"].ljust(first) + rest)
    out += [f"  {r['setting']}: {r['changes']}" for r in rows if r["changes"]]
    return "\n".join(out)


def replay_to_json(rep: Replay, rows: list[dict] | None = None) -> dict:
    """A machine-readable replay (for `kafkasim diagnose --replay-json`; not part of --json's schema)."""
    s = rep.fit.scenario
    return {"group": rep.fit.group, "kafka_version": s.kafka_version, "version_range": list(rep.fit.version_range),
            "protocol": rep.fit.protocol, "members": rep.fit.members, "static_membership": s.static_membership,
            "consumer": dict(s.consumer), "broker": dict(s.broker), "faults": [f.label() for f in rep.fit.faults],
            "joins": [j.label() for j in rep.fit.joins],
            "read": rep.fit.read, "assumed": rep.fit.assumed, "closeness": rep.score, "parts": rep.parts,
            "what_if": rows or []}


def replay_rows(rep: Replay) -> tuple[list[dict], list[dict]]:
    """What `replay_chart` draws, per timeline ("log", "replay"), in seconds from the log's first line
    of the group (the replay's 0): spans {timeline, start, end}, one per rebalance (one still open ends
    at the timeline's last line), and moves {timeline, s, what, reason, member}, "joined" (reason
    "join") or "left", members named as the log names them (the replay: as the fitted scenario does; a
    member id none of the run's consumers was given, as the log would name it)."""
    spans, moves = [], []
    names = rep.fit.names
    for label, tl, off in (("log", rep.fit.timeline, rep.fit.offset_ms), ("replay", rep.simulated, 0)):
        spans += [{"timeline": label, "start": (e.start - off) / 1000,  # a line set tl.last: an episode's own
                   "end": ((e.end if e.end is not None else tl.last) - off) / 1000} for e in tl.episodes]
        moves += [{"timeline": label, "s": (m.time - off) / 1000, "what": what, "reason": m.reason or "join",
                   "member": names.get(tl.identity(m.member), tl.identity(m.member)) if label == "log"
                   else rep.run.member_names.get(m.member, tl.identity(m.member))}
                  for what, ms in (("joined", tl.arrivals), ("left", tl.departures)) for m in ms]
    return spans, moves


def replay_chart(rep: Replay, width: int = 700):
    """The log's timeline above the replay's (Altair, the `viz` extra): rebalances as shaded spans with
    a dashed line at each start, members joining and leaving as points (`replay_rows`)."""
    import altair as alt

    spans, moves = replay_rows(rep)
    x = alt.X("start:Q", title="seconds from the group's first line")
    rects = alt.Chart(alt.Data(values=spans)).mark_rect(color="#f3c98b", opacity=0.5).encode(x=x, x2="end:Q")
    points = alt.Chart(alt.Data(values=moves)).mark_point(filled=True, size=60).encode(
        x="s:Q", y=alt.Y("member:N", title=None),
        color=alt.Color("what:N", scale=alt.Scale(domain=["joined", "left"], range=["#2e7d32", "#c0392b"])),
        shape="reason:N", tooltip=["member:N", "what:N", "reason:N", alt.Tooltip("s:Q", title="time (s)")])
    starts = alt.Chart(alt.Data(values=spans)).mark_rule(color="#e67e22", strokeDash=[3, 3]).encode(x="start:Q")
    panels = [alt.layer(*(c.transform_filter(f"datum.timeline == '{t}'") for c in (rects, starts, points)))
              .properties(width=width, height=120, title=t) for t in ("log", "replay")]
    return alt.vconcat(*panels).resolve_scale(x="shared").properties(
        title=f"group {rep.fit.group}: closeness {rep.score:.2f}")


# -- fitting ----------------------------------------------------------------------------------------
def _pick(report, group):
    """The group's Timeline and the report's best cause for it, or a sentence saying why there is none."""
    if isinstance(report, Timeline):
        return report, None
    if not report.timelines:
        return "no consumer-group lines in the log (the reader knows the group coordinator's lines)", None
    if group is None:
        if len(report.timelines) > 1:
            return f"the log has {len(report.timelines)} groups; name one ({', '.join(sorted(report.timelines))})", None
        group = next(iter(report.timelines))
    if group not in report.timelines:
        return f"no group {group} in the log", None
    return report.timelines[group], report.top(group)


def _texts(tl: Timeline) -> dict:
    wanted: dict = {}
    for r in tl.rows:
        wanted.setdefault(r[FILE], set()).add(r[LINE])
    return {f: read_lines(f, lines) for f, lines in wanted.items()}


def _line_texts(tl: Timeline, texts: dict):
    seen = set()
    for r in tl.rows:
        key = (r[FILE], r[LINE])
        if key not in seen:
            seen.add(key)
            yield key, texts.get(r[FILE], {}).get(r[LINE], "")


def _version(tl: Timeline, texts: dict, fit: Fit) -> str:
    """The oldest release line whose wording every dated line of the group fits."""
    lo, hi, why = 0, len(KAFKA_VERSIONS) - 1, []
    found = set()
    for (file, line), text in _line_texts(tl, texts):
        for i, (rx, a, b, what) in enumerate(_MARKS):
            if i not in found and rx.search(text):
                found.add(i)
                why.append(f"{what} ({a} to {b or KAFKA_VERSIONS[-1]}), {file}:{line}")
                lo = max(lo, KAFKA_VERSIONS.index(a))
                hi = min(hi, KAFKA_VERSIONS.index(b) if b else len(KAFKA_VERSIONS) - 1)
    if tl.protocol == "consumer":
        lo = max(lo, KAFKA_VERSIONS.index("4.0"))
        fit.assumed.append("a consumer-protocol group runs Kafka 4.0 or later (3.7 - 3.9 had it as early access)")
    if lo > hi:
        fit.assumed.append(f"the wordings disagree ({KAFKA_VERSIONS[hi]} < {KAFKA_VERSIONS[lo]}): several versions "
                           f"in one log, e.g. during an upgrade; the newest is taken")
        hi = lo
    fit.version_range = (KAFKA_VERSIONS[lo], KAFKA_VERSIONS[hi])
    if not why:
        fit.assumed.append(f"Kafka {DEFAULT_VERSION} (Scenario's default): no line's wording dates the log (or "
                           "its text was not given)")
        return DEFAULT_VERSION
    fit.read.append(f"Kafka {KAFKA_VERSIONS[lo]} to {KAFKA_VERSIONS[hi]} from the wording: " + "; ".join(why))
    fit.assumed.append(f"Kafka {KAFKA_VERSIONS[lo]}, the oldest release of that range (each wording proves "
                       "'at least', its end only 'until the wording changed'), with its defaults")
    return KAFKA_VERSIONS[lo]


def _timeouts(tl: Timeline, texts: dict, version: str, fit: Fit) -> dict:
    """Session, heartbeat and poll timeouts: printed in a line, else the version's defaults."""
    read: dict = {}
    for (file, line), text in _line_texts(tl, texts):
        m = _TIMEOUTS.search(text)
        if m and "session.timeout.ms" not in read:
            read["session.timeout.ms"], read["max.poll.interval.ms"] = int(m[1]), int(m[2])
            fit.read.append(f"session.timeout.ms={m[1]}, max.poll.interval.ms={m[2]} (the member's sessionTimeoutMs "
                            f"and rebalanceTimeoutMs, which the Java client sets to max.poll.interval.ms), "
                            f"{file}:{line}")
        m = _FENCED_WITHIN.search(text) if "fenced" in text else None
        if m and "max.poll.interval.ms" not in read:
            read["max.poll.interval.ms"] = int(m[1])
            fit.read.append(f"max.poll.interval.ms={m[1]} (the member's rebalance timeout), {file}:{line}")
    read.update(_client_settings(tl, fit, read))
    consumer = consumer_config(version)
    if tl.protocol == "consumer":
        broker = broker_config(version)
        session, hb = broker["group.consumer.session.timeout.ms"], broker["group.consumer.heartbeat.interval.ms"]
        fit.assumed.append(f"group.consumer.session.timeout.ms={session}, group.consumer.heartbeat.interval.ms={hb} "
                           f"(broker defaults of {version})")
    else:
        session = read.get("session.timeout.ms", consumer["session.timeout.ms"])
        hb = read.get("heartbeat.interval.ms", consumer["heartbeat.interval.ms"])
        if "session.timeout.ms" not in read:
            fit.assumed.append(f"session.timeout.ms={session} (the default of {version}: no line prints it)")
        if "heartbeat.interval.ms" not in read:
            fit.assumed.append(f"heartbeat.interval.ms={hb} (the default of {version})")
    poll = read.get("max.poll.interval.ms", consumer["max.poll.interval.ms"])
    if "max.poll.interval.ms" not in read:
        fit.assumed.append(f"max.poll.interval.ms={poll} (the default of {version}: no line prints it)")
    return {"read": read, "session": session, "heartbeat": hb, "poll": poll}


#: The client settings a fit takes from a client's own lines (a Java consumer's "ConsumerConfig values:"
#: block, AbstractConfig.logAll), when the group's rows hold them (ClientConfig events).
CLIENT_TIMEOUTS = ("session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms")


def _client_settings(tl: Timeline, fit: Fit, known: dict) -> dict:
    """The timeouts the group's clients printed that the coordinator's lines do not (`known`: what the
    coordinator applied wins), each the first value printed (one fitted scenario has one value per
    setting: a log where members differ says so in `assumed`). Under the consumer protocol only
    max.poll.interval.ms is the client's: the session and heartbeat are the broker's (KIP-848)."""
    names = ("max.poll.interval.ms",) if tl.protocol == "consumer" else CLIENT_TIMEOUTS
    read: dict = {}
    for r in tl.rows:
        name = r[REASON] if r[KIND] == "ClientConfig" and r[VALUE] is not None else None
        if name not in names or name in known:
            continue
        if name not in read:
            read[name] = int(r[VALUE])
            fit.read.append(f"{name}={read[name]} (the client's configuration), {r[FILE]}:{r[LINE]}")
        elif int(r[VALUE]) != read[name] and f"{name} differs" not in " ".join(fit.assumed):
            fit.assumed.append(f"{name} differs between the group's clients: {read[name]} fitted (the first printed)")
    return read


def _identity(tl: Timeline, member: str | None, instances: dict) -> str | None:
    """Who a member id is across restarts: its instance id, else `Timeline.identity` (its client id where
    that tells members apart, else the member id itself)."""
    return instances.get(member) or tl.identity(member)


def _instances(texts: dict) -> dict:
    return {m[1]: m[2] for lines in texts.values() for text in lines.values() for m in _INSTANCE.finditer(text)}


def _initial(tl: Timeline, top: str | None, fit: Fit) -> tuple[list[str], int, int]:
    """The members there from the start, their count and the start spread of their joins. A join
    storm's (the diagnosis' too-many-members-or-slow-join) are all its members' first joins. Kafka
    2.8 logs one join line per rebalance, so the count is also read from "Stabilized ... with N members"."""
    formed = tl.formed_at()
    firsts: dict = {}
    for m in sorted(tl.arrivals + tl.departures, key=lambda m: m.time):
        firsts.setdefault(tl.identity(m.member), (m.time, m in tl.arrivals))
    storm = top == "too-many-members-or-slow-join"
    joined = [k for k, (t, arrived) in firsts.items() if arrived and (storm or formed is None or t <= formed)]
    stabilized = [e.members for e in tl.episodes if e.members and not e.epoch]
    count = max([len(joined)] + stabilized[:1] + (stabilized if storm else []) + [_assigned_count(tl) or 0])
    java = _java_numbers(tl, firsts)
    if java:  # the client ids say which consumer of its process each one is: 1 to count started first
        initial = [k for k in firsts if java[k] <= count]
    else:  # a member first seen leaving was there before the log began
        initial = joined + [k for k, (t, arrived) in firsts.items() if not arrived and (formed is None or t > formed)]
        count = max(count, len(initial)) if count else 0  # members seen only leaving do not say how many stay
    joins = [firsts[k][0] for k in joined]
    spread = max(1000, -(-(max(joins) - tl.first) // 1000) * 1000) if joins else 1000
    if joins:
        fit.read.append(f"{len(joins)} members joined from {(min(joins) - tl.first) / 1000:g} s to "
                        f"{(max(joins) - tl.first) / 1000:g} s after the group's first line: start_spread_ms={spread}"
                        + (" (a join storm: every first join is a starting member)" if storm else ""))
    if count > len(joins):
        fit.read.append(f"{count} members in the first generation (its 'Stabilized ... with N members' line)")
    return initial, count, spread


def _storm_joins(tl: Timeline, initial: list, count: int, fit: Fit) -> tuple:
    """A join storm whose every join is logged (2.4+ logs each one; 2.8 one a rebalance): its members
    joining after the first second are started at their logged instants (ScaleOut, joins within 100 ms
    together), since the storm's rebalances follow the join instants, which a seed would not reproduce."""
    if fit.cause != "too-many-members-or-slow-join":
        return ()
    firsts: dict = {}
    for a in sorted(tl.arrivals, key=lambda m: m.time):
        firsts.setdefault(tl.identity(a.member), a.time - tl.first)
    times = sorted(firsts[k] for k in initial if k in firsts)
    if len(times) < count:
        return ()
    out: list = []
    for t in (t for t in times if t > 1000):
        if out and t - out[-1][0] <= 100:
            out[-1][1] += 1
        else:
            out.append([t, 1])
    fit.read.append(f"{sum(n for _, n in out)} of the {count} members started at their logged join instants "
                    f"({len(out)} ScaleOuts), the others within the first second")
    return tuple(ScaleOut(t, n) for t, n in out)


def _assigned_count(tl: Timeline) -> int | None:
    return next((int(r[VALUE]) for r in tl.rows if r[KIND] == "AssignmentReceived" and r[VALUE] is not None), None)


def _java_numbers(tl: Timeline, firsts: dict) -> dict:
    """{client id: N} when the members' client ids are distinct Java defaults `consumer-<group>-N` (the
    consumers of one process: a process numbers its own from 1), else {}."""
    if shares_client_ids(tl):
        return {}
    rx = re.compile(_JAVA_CLIENT_ID.format(re.escape(tl.group)) + "$")
    nums = {k: rx.match(k or "") for k in firsts}
    return {k: int(m[1]) for k, m in nums.items()} if nums and all(nums.values()) else {}


def _names(tl: Timeline, initial: list, instances: dict, count: int) -> dict:
    """Each identity's scenario name "c-N": distinct Java default client ids `consumer-<group>-N` (the
    consumers of one process) keep their N (the simulator names its clients so); otherwise, as when
    every process has the default `consumer-<group>-1` and only member ids tell members apart, by
    order of first appearance, the starting members first. Instance ids (KIP-848 static members)
    take the name of their first member id."""
    firsts = {tl.identity(m.member): None for m in sorted(tl.arrivals + tl.departures, key=lambda m: m.time)}
    java = _java_numbers(tl, firsts)
    if java:
        names = {k: f"c-{n}" for k, n in java.items()}
    else:
        names = {k: f"c-{i}" for i, k in enumerate(initial, 1)}
        names.update({k: f"c-{i}" for i, k in enumerate([k for k in firsts if k not in names], count + 1)})
    for m in sorted(tl.arrivals, key=lambda m: m.time):
        key = _identity(tl, m.member, instances)
        if key not in names and tl.identity(m.member) in names:
            names[key] = names[tl.identity(m.member)]
    return names


def _name(fit: Fit, member: str | None) -> str:
    """The scenario name of a member id; an identity not seen before gets the next free one."""
    names = fit.names
    key = _identity(fit.timeline, member, fit.instances)
    if key not in names:
        names[key] = f"c-{max([fit.starting] + [int(v[2:]) for v in names.values()]) + 1}"
    return names[key]


def _faults(tl: Timeline, fit: Fit, settings: dict, texts: dict) -> tuple[list, dict]:
    """One fault per departure (by Kafka's removal reason) and per burst of new members."""
    off, end = tl.first, tl.last - tl.first + TAIL_MS
    session, hb = settings["session"], settings["heartbeat"]
    instances = fit.instances
    unreleased = [r for r in tl.rows if r[KIND] == "ConsumerGroupHeartbeat" and r[ERROR] == "UNRELEASED_INSTANCE_ID"]
    refused = [r for r in tl.rows if r[KIND] == "GroupConversionRefused"]
    faults, broker, used, gone = [], {}, set(), []
    expiries = [d.time for d in tl.departures if d.reason == "session_timeout"]
    for d in tl.departures:
        name, where, t = _name(fit, d.member), f"{d.file}:{d.line}", d.time - off
        back = tl.returned(d, tl.last - d.time, used)
        if back is not None:
            used.add(id(back))
            fit.names.setdefault(_identity(tl, back.member, instances), name)  # a rejoin's new member id
        until = (back.time - off) if back is not None else end
        busy = back is not None and d.reason == "leave_group" and (
            fit.cause == "slow-processing" or (fit.protocol == "consumer" and back.member == d.member))
        if d.reason in ("poll_timeout", "rebalance_timeout") or busy:
            poll = _poll(tl, fit, settings, t)
            at = max(0, t - poll)
            faults.append(SlowProcessing(name, at, max(1, until - at)))
            why = d.reason if not busy else ("left and came back under the same member id: the process lived"
                                              if fit.protocol == "consumer" else "left and came back; diagnosed "
                                              "slow-processing")
            fit.read.append(f"{name} removed ({why}) at {t / 1000:g} s, {where}: SlowProcessing from "
                            f"max.poll.interval.ms ({poll}) before" + (f", until it rejoined, {back.file}:{back.line}"
                                                                       if back else ", to the end"))
        elif d.reason == "session_timeout":
            at = max(0, t - session + hb // 2)
            again = next((r for r in unreleased if _identity(tl, r[MEMBER], instances) == _identity(tl, d.member, instances)
                          and r[T] <= d.time), None)
            together = sum(abs(x - d.time) <= TOGETHER_MS for x in expiries) > 1
            what = f"{name} session expired at {t / 1000:g} s, {where}: "
            if again is not None:
                faults.append(Restart(name, at, max(0, again[T] - off - at)))
                fit.read.append(what + f"Restart (a crash; its new process asked for the same instance id, "
                                       f"UNRELEASED_INSTANCE_ID, {again[FILE]}:{again[LINE]})")
            elif together:
                faults.append(NetworkCut(name, at, max(1, until - at)))
                fit.read.append(what + "NetworkCut (other sessions expired within 5 s)")
            elif back is not None:
                faults.append(Pause(name, at, max(1, until - at)))
                fit.read.append(what + f"Pause until it rejoined, {back.file}:{back.line}")
            else:
                faults.append(Crash(name, at))
                fit.read.append(what + "Crash (it never came back in the log)")
        elif d.reason == "leave_group":
            refusal = next((r for r in refused if 0 <= r[T] - d.time <= TOGETHER_MS * 12), None)
            if refusal is not None:
                faults.append(Restart(name, t, refusal[T] - d.time, graceful=True,
                                      consumer={"group.protocol": "consumer"}))
                broker["group.consumer.migration.policy"] = "disabled"
                fit.read.append(f"{name} left at {t / 1000:g} s, {where}, and came back with group.protocol=consumer, "
                                f"refused ({refusal[REASON]}), {refusal[FILE]}:{refusal[LINE]}: Restart with "
                                f"group.protocol=consumer")
                fit.assumed.append("group.consumer.migration.policy=disabled (the refusal does not say whether it "
                                   "was 'disabled' or 'downgrade')")
            elif back is not None:
                faults.append(Restart(name, t, back.time - d.time, graceful=True))
                fit.read.append(f"{name} left (LeaveGroup) at {t / 1000:g} s, {where}, back at "
                                f"{(back.time - off) / 1000:g} s, {back.file}:{back.line}: Restart (graceful)")
            else:
                gone.append((t, name, where))
        else:
            fit.assumed.append(f"{name} removed ({d.reason}) at {t / 1000:g} s, {where}: not replayed as a fault")
    for t, names_, wheres in _bursts(gone):
        faults.append(ScaleIn(t, tuple(names_)))
        fit.read.append(f"{', '.join(names_)} left for good at {t / 1000:g} s ({', '.join(wheres)}): ScaleIn")
    faults += _scale_out(tl, fit, used)
    return faults, broker


def _poll(tl: Timeline, fit: Fit, settings: dict, t: int) -> int:
    """max.poll.interval.ms for a poll timeout at `t` (ms from the first line): the one printed, else the
    default, unless the default would start the stall before the group formed (the member polled to
    join): then the time since it formed, rounded down to 10 s, which puts the replay's leave at the
    logged instant (the real value may be smaller, and the stall later)."""
    poll, formed = settings["poll"], tl.formed_at()
    if "max.poll.interval.ms" in settings["read"] or formed is None or t - poll >= formed - tl.first:
        return poll
    since = t - (formed - tl.first)
    poll = max(1000, since // 10_000 * 10_000 if since >= 10_000 else since // 1000 * 1000)
    settings["read"]["max.poll.interval.ms"] = settings["poll"] = poll
    fit.assumed.append(f"max.poll.interval.ms={poll}: no line prints it, and the default would start the stall "
                       f"before the group formed; {poll} ms puts the leave at the logged instant")
    return poll


def _bursts(items: list) -> list:
    """(time, name, where) grouped into bursts whose items are each within FORMING_MS of the first."""
    out = []
    for t, name, where in sorted(items):
        if out and t - out[-1][0] <= FORMING_MS:
            out[-1][1].append(name)
            out[-1][2].append(where)
        else:
            out.append((t, [name], [where]))
    return out


def _scale_out(tl: Timeline, fit: Fit, used: set) -> list:
    """New members (not a return, not a starting member) joining the group: one ScaleOut per burst,
    of as many members as joined, or as the next generation grew by (2.8 logs one join a rebalance)."""
    known = {k for k, v in fit.names.items() if int(v[2:]) <= fit.starting}
    new = []
    for a in sorted(tl.arrivals, key=lambda m: m.time):
        key = _identity(tl, a.member, fit.instances)
        if id(a) in used or key in known:
            continue
        known.add(key)
        new.append((a.time - tl.first, _name(fit, a.member), f"{a.file}:{a.line}"))
    out = []
    for t, names_, wheres in _bursts(new):
        count = max(len(names_), _growth(tl, t + tl.first))
        out.append(ScaleOut(t, count))
        fit.read.append(f"{count} new member(s) joined at {t / 1000:g} s ({', '.join(wheres)}): ScaleOut")
    return out


def _growth(tl: Timeline, at: int) -> int:
    """How many members the rebalance going on at `at` added ("Stabilized ... with N members")."""
    i = tl.episode_at(at)
    if i is None or tl.episodes[i].epoch or not tl.episodes[i].members:
        return 0
    before = next((e.members for e in reversed(tl.episodes[:i]) if e.members and not e.epoch), None)
    return tl.episodes[i].members - before if before else 0


# -- what-if ------------------------------------------------------------------------------------------
class _NotApplicable(Exception):
    pass


def _as_fitted(fit: Fit):
    return fit.scenario, "the fitted scenario"


def _static(fit: Fit):
    if fit.scenario.static_membership:
        raise _NotApplicable("already static")
    return replace(fit.scenario, static_membership=True), "group.instance.id per member (KIP-345)"


def _cooperative(fit: Fit):
    if fit.protocol == "consumer":
        raise _NotApplicable("the consumer protocol assigns on the broker")
    s = fit.scenario
    return (replace(s, consumer={**s.consumer, "partition.assignment.strategy": "cooperative-sticky"}),
            "partition.assignment.strategy=cooperative-sticky (KIP-429)")


def _consumer_protocol(fit: Fit):
    if fit.protocol == "consumer":
        raise _NotApplicable("already the consumer protocol")
    s = fit.scenario
    keep = {k: v for k, v in s.consumer.items() if k not in CONSUMER_PROTOCOL_UNSUPPORTED}
    version = s.kafka_version if KAFKA_VERSIONS.index(s.kafka_version) >= KAFKA_VERSIONS.index("4.0") else "4.0"
    return (replace(s, kafka_version=version, consumer={**keep, "group.protocol": "consumer"}, broker={}),
            f"group.protocol=consumer on Kafka {version} (KIP-848; session.timeout.ms is the broker's)")


def _longer(fit: Fit):
    """max.poll.interval.ms and a classic member's session.timeout.ms twice the fitted ones, or past the
    longest fault + 10 s (rounded up to the second) if that is longer; the session within the broker's
    group.max.session.timeout.ms (the coordinator refuses a longer one, INVALID_SESSION_TIMEOUT). Before
    0.10.1 (KIP-62) there is no max.poll.interval.ms. A consumer-protocol member's session is the broker's
    group.consumer.session.timeout.ms: set to its maximum, group.consumer.max.session.timeout.ms."""
    s = fit.scenario
    past = _up(max((getattr(f, "duration_ms", 0) for f in s.faults), default=0) + 10_000)
    poll = s.consumer_config["max.poll.interval.ms"]
    longer = {} if poll is None else {"max.poll.interval.ms": max(2 * poll, past)}
    if fit.protocol == "consumer":
        cap = s.broker_config["group.consumer.max.session.timeout.ms"]
        broker = {**s.broker, "group.consumer.session.timeout.ms": cap}
        return (replace(s, consumer={**s.consumer, **longer}, broker=broker),
                f"group.consumer.session.timeout.ms={cap} (its broker maximum), "
                f"max.poll.interval.ms={longer['max.poll.interval.ms']}")
    cap = s.broker_config["group.max.session.timeout.ms"]
    longer = {"session.timeout.ms": min(cap, max(2 * s.consumer_config["session.timeout.ms"], past)), **longer}
    return replace(s, consumer={**s.consumer, **longer}), ", ".join(f"{k}={v}" for k, v in longer.items())


def _up(ms: int) -> int:
    return -(-ms // 1000) * 1000


#: The what-if settings, in the order the table shows them.
VARIANTS = {"as fitted": _as_fitted, "static membership": _static, "cooperative-sticky": _cooperative,
            "consumer protocol": _consumer_protocol, "longer timeouts": _longer}


__all__ = ["Fit", "NotEnoughToFit", "Replay", "fit_scenario", "fit_files", "fit_lines", "replay", "closeness",
           "what_if", "what_if_text", "replay_chart", "replay_rows", "replay_to_json", "VARIANTS", "TOLERANCE_MS",
           "VERSION_MARKS"]
