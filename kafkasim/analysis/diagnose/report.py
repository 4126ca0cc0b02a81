"""The report on a terminal (one screen per group: timeline, then findings best first) and as JSON."""

from __future__ import annotations

import json

from kafkasim.analysis.diagnose.timeline import Timeline, wall

#: Lines of a group's timeline shown on screen (one more is shown rather than cut); a longer one shows its
#: first and last ones.
MAX_TIMELINE = 24
_REASONS = {"session_timeout": "session timeout (heartbeats stopped)", "poll_timeout": "poll timeout (LeaveGroup)",
            "leave_group": "LeaveGroup", "rebalance_timeout": "did not rejoin within the rebalance timeout",
            "sync_timeout": "no SyncGroup in time", "group_max_size": "over group.max.size",
            "pending_expired": "join never completed", "fenced": "fenced"}


def timeline_lines(tl: Timeline, origin) -> list[str]:
    """What happened, in time order: rebalances with their duration and trigger, arrivals, departures."""
    items = []
    for ep in tl.episodes:
        if ep.epoch:
            what = f"epoch {ep.generation} ({ep.reason or 'bumped'})" + (f", {ep.members} members" if ep.members else "")
        else:
            took = f"{ep.duration / 1000:g} s" if ep.end is not None else "not finished in this log"
            gen = f"generation {ep.generation}" if ep.generation is not None else "no new generation"
            members = f", {ep.members} members" if ep.members is not None else ""
            what = f"rebalance -> {gen}, {took}{members}: {_cut(ep.reason or '?', 90)}"
        items.append((ep.start, ep.file, ep.line, what))
    for a in tl.arrivals:
        items.append((a.time, a.file, a.line, f"+ {_who(tl, a.member)} joined" + (" (static)" if a.static else "")))
    for d in tl.departures:
        items.append((d.time, d.file, d.line, f"- {_who(tl, d.member)} left: {_REASONS.get(d.reason, d.reason)}"))
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    out = [f"  {wall(t, origin)}  {what}  [{_where(f, n)}]" for t, f, n, what in items]
    if len(out) > MAX_TIMELINE + 1:  # a cut hides 2 lines at least (one would take the marker's place)
        half = MAX_TIMELINE // 2
        out = out[:half] + [f"  ... {len(out) - MAX_TIMELINE} more lines ..."] + out[-half:]
    return out


def text(report) -> str:
    """The whole stdout report."""
    out = []
    if not report.timelines and not report.findings:
        return ("no consumer-group lines found in the input: nothing to diagnose (the reader knows the group "
                "coordinator's lines of server.log, Kafka 0.9 to 4.x)\n")
    for name, tl in report.timelines.items():
        eps = [e for e in tl.episodes if not e.epoch]
        longest = max((e.duration for e in eps if e.end is not None), default=None)
        bumps = len(tl.episodes) - len(eps)
        counts = ", ".join(([f"{len(eps)} rebalances"] if eps or not bumps else []) +
                           ([f"{bumps} epoch bumps"] if bumps else []))
        out.append(f"group {name} ({protocols(tl)}), {wall(tl.first, report.origin)} to "
                   f"{wall(tl.last, report.origin)}: {counts}"
                   + (f", longest rebalance {longest / 1000:g} s" if longest is not None else ""))
        out += timeline_lines(tl, report.origin)
        found = [f for f in report.findings if f.group == name]
        if not found:
            out.append("  no rebalance trouble found")
        out += _findings(found)
        out.append("")
    unnamed = [f for f in report.findings if f.group not in report.timelines]
    if unnamed:  # a client's lines that name no group (librdkafka's MAXPOLL alone)
        out += ["lines that name no group:", *_findings(unnamed), ""]
    return "\n".join(out)  # each part ends with an empty line: the text ends with a newline


def _findings(found: list) -> list[str]:
    out = []
    for i, f in enumerate(found, 1):
        out.append(f"  {i}. {f.cause} (score {f.score:.2f}): {f.summary}")
        out.append("     evidence: " + ", ".join(_where(e.file, e.line) for e in f.evidence))
        out.append("     would have prevented it: " + "; ".join(f.settings))
    return out


def protocols(tl: Timeline) -> str:
    """"classic protocol", "consumer protocol", or both (a group migrating between them, KIP-848)."""
    kinds = sorted(tl.protocols) or ["classic"]
    return " and ".join(kinds) + (" protocols" if len(kinds) > 1 else " protocol")


def to_json(report) -> str:
    return json.dumps(report.to_json(), indent=1, ensure_ascii=False)


def _where(file: str, line: int) -> str:
    return f"{file}:{line}"


def _who(tl: Timeline, member: str | None) -> str:
    """A member by its client id, or by its member id where processes share the default client id."""
    return tl.identity(member) or "?"


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"
