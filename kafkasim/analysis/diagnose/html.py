"""`--html`: one self-contained page that works offline: the timeline and the worst rebalance's
sequence as charts, the findings, and each evidence line highlighted in its context.

The charts are Vega-Lite specs drawn to SVG in this process by vl-convert (the `viz` extra; the
same offline renderer `kafkasim.viz.to_png` uses, with no base URL allowed), so the page carries
no script and loads nothing. Without vl-convert the page says so and keeps everything else.
"""

from __future__ import annotations

import html

from kafkasim.analysis.diagnose.report import protocols, timeline_lines
from kafkasim.analysis.diagnose.timeline import FILE, KIND, LINE, MEMBER, T, wall
from kafkasim.analysis.logs.files import read_lines

_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc}pre{background:#f6f6f6;padding:.6em;
overflow-x:auto;font-size:.8em}.hit{background:#ffe08a;display:block}.score{font-weight:bold}
.finding{border-left:4px solid #c0392b;padding-left:.8em;margin:1em 0}.none{color:#2e7d32}"""
#: Lines shown around each evidence line.
CONTEXT = 2


def page(report) -> str:
    """The whole report as one HTML document."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>kafkasim diagnose</title>"
             f"<style>{_CSS}</style></head><body><h1>kafkasim diagnose</h1>",
             f"<p>{len(report.files)} file(s): {html.escape(', '.join(report.files))}</p>"]
    if not report.timelines:
        parts.append("<p>No consumer-group lines found in the input: nothing to diagnose.</p>")
    texts = _evidence_text(report)
    for name, tl in report.timelines.items():
        parts.append(f"<h2>Group {html.escape(name)} ({protocols(tl)})</h2>")
        parts.append(_svg(_timeline_spec(tl, report.origin)))
        found = [f for f in report.findings if f.group == name]
        worst = _worst(tl, found)
        if worst is not None:
            parts.append(f"<h3>The rebalance of {wall(worst.start, report.origin)} ({_secs(worst)}), event by "
                         f"event</h3>" + _svg(_sequence_spec(tl, worst)))
        parts.append("<h3>Timeline</h3><pre>" + html.escape("\n".join(timeline_lines(tl, report.origin))) + "</pre>")
        parts.append("<h3>Findings, best first</h3>")
        if not found:
            parts.append("<p class='none'>No rebalance trouble found.</p>")
        for f in found:
            parts.append(f"<div class='finding'><p><span class='score'>{html.escape(f.cause)}</span> (score "
                         f"{f.score:.2f}): {html.escape(f.summary)}</p><p>Would have prevented it:</p><ul>"
                         + "".join(f"<li>{html.escape(s)}</li>" for s in f.settings) + "</ul>")
            for e in f.evidence:
                parts.append(f"<p>{html.escape(e.file)}:{e.line}</p>" + _context(texts, e.file, e.line))
            parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _secs(ep) -> str:
    return f"{ep.duration / 1000:g} s" if ep.end is not None else "not finished in the log"


def _worst(tl, findings):
    """The rebalance to draw event by event: the first classic rebalance an evidence line falls in
    (the findings best first, each one's lines in order); else the longest (one not finished ends
    at the log's last line), the earliest of equally long ones. A consumer group's epoch bumps are
    instants, never drawn."""
    eps = [e for e in tl.episodes if not e.epoch]
    if not eps:
        return None
    for f in findings:
        for e in f.evidence:
            row = next((r for r in tl.rows if (r[FILE], r[LINE]) == (e.file, e.line)), None)
            i = tl.episode_at(row[T]) if row is not None else None
            if i is not None and not tl.episodes[i].epoch:
                return tl.episodes[i]
    return max(eps, key=lambda e: ((e.end if e.end is not None else tl.last) - e.start, -e.start))


def _timeline_rows(tl) -> tuple[list, list]:
    """What the timeline chart is fed: each arrival and departure (`s`, seconds from the group's first
    line; `member`, as `Timeline.identity` names it: every arrival and departure line names its member;
    `what`, joined or left; `why`, the coordinator's reason, "join" for an arrival that gives none), and
    each rebalance's span in seconds (one not finished by the log's last line ends there). Times are
    whole ms, so seconds are exact to the ms."""
    def sec(ms):
        return (ms - tl.first) / 1000
    moves = [{"s": sec(m.time), "member": tl.identity(m.member), "what": what, "why": m.reason or "join"}
             for what, ms in (("joined", tl.arrivals), ("left", tl.departures)) for m in ms]
    spans = [{"start": sec(e.start), "end": sec(e.end if e.end is not None else tl.last)} for e in tl.episodes]
    return moves, spans


def _timeline_spec(tl, origin) -> dict:
    """Members' arrivals and departures over time (seconds from the group's first line), each
    rebalance a shaded span with a line at its start (the rows: `_timeline_rows`)."""
    moves, spans = _timeline_rows(tl)
    x = {"field": "start", "type": "quantitative", "title": f"seconds after {wall(tl.first, origin)}"}
    return {"width": 900, "height": max(120, 18 * len({m["member"] for m in moves})),
            "title": "members joining and leaving; rebalances shaded",
            "layer": [
                {"data": {"values": spans}, "mark": {"type": "rect", "color": "#f3c98b", "opacity": 0.5},
                 "encoding": {"x": x, "x2": {"field": "end"}}},
                {"data": {"values": spans}, "mark": {"type": "rule", "color": "#e67e22", "strokeDash": [3, 3]},
                 "encoding": {"x": {"field": "start", "type": "quantitative"}}},
                {"data": {"values": moves}, "mark": {"type": "point", "filled": True, "size": 70},
                 "encoding": {"x": {"field": "s", "type": "quantitative"},
                              "y": {"field": "member", "type": "nominal", "title": None},
                              "color": {"field": "what", "type": "nominal",
                                        "scale": {"domain": ["joined", "left"], "range": ["#2e7d32", "#c0392b"]}},
                              "shape": {"field": "why", "type": "nominal", "title": "reason"}}}]}


def _sequence_rows(tl, ep) -> list:
    """What the sequence chart is fed: the group's lines from the rebalance's start to its end (the
    log's last line if not finished), both included, the first 200 of them, each `order` (its place
    among them), `who` it concerns (`Timeline.identity`, "coordinator" when no member) and `kind`."""
    end = ep.end if ep.end is not None else tl.last
    rows = [r for r in tl.rows if ep.start <= r[T] <= end]
    return [{"order": i, "who": tl.identity(r[MEMBER]) or "coordinator", "kind": r[KIND]}
            for i, r in enumerate(rows[:200])]


def _sequence_spec(tl, ep) -> dict:
    """The events of one rebalance, by who they concern, in order (a sequence diagram on its side;
    the rows: `_sequence_rows`)."""
    values = _sequence_rows(tl, ep)
    return {"width": 900, "height": max(120, 22 * len({v["who"] for v in values})),
            "data": {"values": values},
            "layer": [{"mark": {"type": "point", "filled": True},
                       "encoding": {"x": {"field": "order", "type": "quantitative", "title": "event, in log order"},
                                    "y": {"field": "who", "type": "nominal", "title": None}}},
                      {"mark": {"type": "text", "dy": -9, "fontSize": 9},
                       "encoding": {"x": {"field": "order", "type": "quantitative"},
                                    "y": {"field": "who", "type": "nominal"}, "text": {"field": "kind"}}}]}


def _svg(spec: dict) -> str:
    try:
        import vl_convert
    except ImportError:
        return "<p>(charts need vl-convert-python, the viz extra: pip install 'kafkasim[viz]')</p>"
    return vl_convert.vegalite_to_svg(spec, allowed_base_urls=[])


def _evidence_text(report) -> dict:
    """{file: {line: text}} for the evidence lines and CONTEXT lines around each."""
    wanted: dict[str, set] = {}
    for f in report.findings:
        for e in f.evidence:
            wanted.setdefault(e.file, set()).update(range(e.line - CONTEXT, e.line + CONTEXT + 1))
    return {file: read_lines(file, lines) for file, lines in wanted.items()}


def _context(texts: dict, file: str, line: int) -> str:
    """The CONTEXT lines either side of an evidence line and the line itself (class `hit`), as read;
    nothing when none could be read (`_evidence_text` holds every evidence file)."""
    lines = texts[file]
    shown = [(n, lines[n]) for n in range(line - CONTEXT, line + CONTEXT + 1) if n in lines]
    if not shown:
        return ""
    body = "".join(f"<span class='{'hit' if n == line else ''}'>{n:>6}  {html.escape(t)}</span>\n"
                   for n, t in shown)
    return f"<pre>{body}</pre>"
