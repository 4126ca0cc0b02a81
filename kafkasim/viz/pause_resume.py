"""Charts of `kafkasim.client.pause_resume` runs: who owned each partition, when its pause flag was set, when a
rebalance cleared it, and the records `poll()` returned although the application had paused
everything (KAFKA-13463). Plus the sweep over versions, protocols and remedies, a kernel-free
explorer over a precomputed grid of runs, and a live (ipywidgets) explorer.

    from kafkasim.client.pause_resume import simulate_pause, sweep
    import kafkasim.viz.pause_resume as pviz

    pviz.pause_timeline(simulate_pause(kafka_version="2.4"))   # per-partition flag and surprises
    pviz.unexpected_chart(sweep(remedies=("none",)))            # by version and protocol
    pviz.remedy_matrix(sweep())                                  # remedy x version x protocol
    pviz.pause_explorer(PauseScenario(), {"kafka_version": ["2.4", "3.7"], ...})  # sliders, no kernel

Everything is read from the run's events (`run.rows`, kafkasim.core.events order) and `run.summary`;
nothing here looks inside the model.
"""

from __future__ import annotations

import html
import itertools
import textwrap

import pandas as pd

from kafkasim.core.config import KAFKA_VERSIONS
from kafkasim.core.errors import ConfigError
from kafkasim.client.pause_resume import APP_LOOPS, COOPERATIVE, EAGER, REMEDIES, PauseScenario, simulate_pause
from kafkasim.client.subscription_state import at_least
from kafkasim.viz import sliders, style
from kafkasim.viz.settings import Knob
from kafkasim.viz.layers import fault_rules, rebalance_bands, time_x
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit
from kafkasim.viz.summary import summary_spec

T, SOURCE, GROUP, MEMBER, KIND, GENERATION, TOPIC, PARTITION, ERROR, REASON, VALUE, STATE = range(12)

#: Member colours: no purple (the pause flag's colour) and no red (unexpected records).
MEMBER_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#72b7b2", "#eeca3b", "#9d755d", "#bab0ac", "#88d27a")
FLAG = "pause flag set"
FLAG_COLOR = style.STATE_COLORS["paused"]
CLEARED_COLOR = "#111111"
UNEXPECTED_COLOR = style.ERROR_COLOR
MAX_POINTS = 160
#: RecordsReturned reasons of records poll() returned although the application had paused everything.
UNEXPECTED = ("unexpected_from_buffer", "unexpected_new_fetch")
#: The grid explorer's settings: PauseScenario fields, and `max.poll.records` (a consumer config).
GRID_SETTINGS = ("kafka_version", "protocol", "remedy", "app_loop", "change", "max.poll.records")

#: How each setting is shown, live (kafkasim.viz.widgets.PauseExplorer) and without a kernel (pause_explorer).
PAUSE_KNOBS: dict[str, Knob] = {k.name: k for k in (
    Knob("kafka_version", "Kafka version", "choice", options=KAFKA_VERSIONS),
    Knob("protocol", "rebalance protocol", "toggle", options=(EAGER, COOPERATIVE)),
    Knob("remedy", "remedy", "choice", options=tuple(REMEDIES)),
    Knob("app_loop", "application loop", "choice", options=tuple(APP_LOOPS)),
    Knob("change", "membership change", "choice", options=("join", "leave", "lost")),
    Knob("max.poll.records", "max.poll.records", "int", 50, 1000, 50),
)}


def pause_current(name: str, base: PauseScenario):
    """The base scenario's value of an explorer setting (None: it has no membership change)."""
    return {"kafka_version": base.kafka_version, "protocol": base.protocol, "remedy": base.remedy,
            "app_loop": base.app_loop, "change": base.changes[0][1] if base.changes else None,
            "max.poll.records": base.consumer_config.get("max.poll.records")}[name]

#: (summary key, label) of the key numbers, in display order.
KEY_NUMBERS = (
    ("unexpected_records", "records returned while paused"),
    ("unexpected_from_buffer", "... of them from the buffer"),
    ("unexpected_polls", "poll() calls that returned them"),
    ("records_lost", "records lost (skipped, committed)"),
    ("pause_flags_cleared", "pause flags cleared"),
    ("records_fetched", "records fetched"),
    ("generations", "generation at the end"),
)


# -- tables ---------------------------------------------------------------------------------------
def _end_ms(run) -> int:
    return run.scenario.duration_ms


def _partition(run, p) -> str:
    return f"{run.scenario.topic}-{int(p)}"


def owned_intervals(run) -> pd.DataFrame:
    """member, partition, start, end (ms): while the partition was in the member's `assignment()`.

    It starts at onPartitionsAssigned. 2.4+: it ends at onPartitionsRevoked/Lost (eager and the
    lost path clear the assignment right there; cooperative revokes only what moves, so a retained
    partition's interval goes on). <= 2.3: revoked partitions stay in `assignment()` until
    onJoinComplete installs the new one, so the interval ends at the member's next
    onPartitionsAssigned. Also ended by the member leaving, or the end of the run."""
    late_revoke = not at_least(run.scenario.kafka_version, "2.4")
    open_: dict[tuple, int] = {}
    revoked: set[tuple] = set()
    out = []

    def close(keys, t):
        for key in keys:
            out.append((*key, open_.pop(key), t))
            revoked.discard(key)

    for row in run.rows:
        kind, member, key = row[KIND], row[MEMBER], (row[MEMBER], row[PARTITION])
        if kind == "PartitionsAssigned":
            close([k for k in revoked if k[0] == member], row[T])
            open_.setdefault(key, row[T])
        elif kind in ("PartitionsRevoked", "PartitionsLost") and key in open_:
            revoked.add(key) if late_revoke else close([key], row[T])
        elif kind == "LeaveGroup":
            close([k for k in open_ if k[0] == member], row[T])
    close(list(open_), _end_ms(run))
    return pd.DataFrame(out, columns=["member", "partition", "start", "end"])


def paused_intervals(run) -> pd.DataFrame:
    """member, partition, start, end, by: when each partition's pause flag was set. A flag ends at
    resume(), at a rebalance that clears it (PauseFlagCleared), or when the partition leaves the
    member. The consumer-level pause of the KAFKA-13463 proposal is drawn on every partition the
    member owned while it was set (by = "consumer-level pause")."""
    owned = owned_intervals(run)
    open_: dict[tuple, tuple[int, str]] = {}
    consumer_level: dict[str, int] = {}
    out = []
    for row in run.rows:
        kind, member, p = row[KIND], row[MEMBER], row[PARTITION]
        if kind == "Paused" and p is None:
            consumer_level.setdefault(member, row[T])
        elif kind == "Resumed" and p is None and member in consumer_level:
            out += _clip(owned, member, consumer_level.pop(member), row[T])
        elif kind == "Paused":
            open_.setdefault((member, p), (row[T], row[REASON]))   # who paused: always named
        elif kind in ("Resumed", "PauseFlagCleared") and (member, p) in open_:
            start, by = open_.pop((member, p))
            out.append((member, p, start, row[T], by))
    for (member, p), (start, by) in open_.items():
        mine = owned[(owned.member == member) & (owned.partition == p) & (owned.start <= start)]
        end = int(mine.end.max()) if len(mine) else _end_ms(run)
        out.append((member, p, start, max(start, end), by))
    for member, start in consumer_level.items():
        out += _clip(owned, member, start, _end_ms(run))
    return pd.DataFrame(out, columns=["member", "partition", "start", "end", "by"])


def _clip(owned: pd.DataFrame, member: str, start: int, end: int) -> list[tuple]:
    mine = owned[(owned.member == member) & (owned.start < end) & (owned.end > start)]
    return [(member, r.partition, max(start, r.start), min(end, r.end), "consumer-level pause")
            for r in mine.itertuples()]


def cleared_marks(run) -> pd.DataFrame:
    """time, member, partition, reason: each pause flag a rebalance removed (revocation, lost,
    fresh_state)."""
    rows = [(r[T], r[MEMBER], r[PARTITION], r[REASON]) for r in run.rows if r[KIND] == "PauseFlagCleared"]
    return pd.DataFrame(rows, columns=["time", "member", "partition", "reason"])


def unexpected_points(run) -> pd.DataFrame:
    """time, member, partition, records, path: what poll() returned while the application had
    paused everything; path "buffered" (fetched before the rebalance) or "new fetch"."""
    rows = [(r[T], r[MEMBER], r[PARTITION], int(r[VALUE]),
             "buffered" if r[REASON] == "unexpected_from_buffer" else "new fetch")
            for r in run.rows if r[KIND] == "RecordsReturned" and r[REASON] in UNEXPECTED]
    return pd.DataFrame(rows, columns=["time", "member", "partition", "records", "path"])


def rebalance_intervals(run) -> pd.DataFrame:
    """phase, start, end, generation, reason: from RebalanceStarted to GenerationStabilized."""
    out, start = [], None
    for r in run.rows:
        if r[SOURCE] != "coordinator":
            continue
        if r[KIND] == "RebalanceStarted" and start is None:
            start = r
        elif r[KIND] == "GenerationStabilized" and start is not None:
            out.append(("PreparingRebalance", start[T], r[T], r[GENERATION], start[REASON]))
            start = None
    if start is not None:
        out.append(("PreparingRebalance", start[T], _end_ms(run), start[GENERATION], start[REASON]))
    return pd.DataFrame(out, columns=["phase", "start", "end", "generation", "reason"])


def scenario_marks(run) -> pd.DataFrame:
    """time, label, short: the application's pause and resume, and each membership change."""
    s = run.scenario
    if s.remedy == "proposal_consumer_pause":
        marks = [(s.pause_at_ms, "consumer-level pause() (proposal)", "pause()")]
    elif s.app_loop == "pause_every_poll":
        marks = [(s.pause_at_ms, "pause(assignment()) before every poll()", "pause loop")]
    else:
        marks = [(s.pause_at_ms, "pause(assignment()) once", "pause once")]
    if s.resume_at_ms is not None and s.resume_at_ms < s.duration_ms:
        marks.append((s.resume_at_ms, "resume(assignment())", "resume"))
    for t, action, who in s.changes:
        who = who or "the last member started"
        marks.append((t, {"join": "a new member joins", "leave": f"{who} leaves (LeaveGroup)",
                          "lost": f"{who} expelled by the coordinator (lost)"}[action],
                      {"join": "join", "leave": "leave", "lost": "expelled"}[action]))
    return pd.DataFrame(marks, columns=["time", "label", "short"])


def _window(run, window) -> tuple[int, int]:
    end = _end_ms(run)
    if window is None:
        return 0, end
    lo, hi = max(0, int(window[0])), min(end, int(window[1]))
    if hi <= lo:
        raise ValueError(f"window must be (start_ms, end_ms) with start < end inside 0..{end} ms, got {window!r}")
    return lo, hi


def _in_window(frame: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    """Rows of an interval table (start, end) or a point table (time) inside [lo, hi], clipped, in seconds."""
    if "time" in frame:
        frame = frame[(frame.time >= lo) & (frame.time <= hi)]
        return frame.drop(columns=["time"]).assign(time_s=frame.time / 1000)
    frame = frame[(frame.end >= lo) & (frame.start <= hi)]
    return frame.drop(columns=["start", "end"]).assign(
        start_s=frame.start.clip(lower=lo) / 1000, end_s=frame.end.clip(upper=hi) / 1000)


def timeline_frames(run, window=None) -> dict[str, pd.DataFrame]:
    """The tables the timeline draws, windowed, in seconds, partitions named "orders-N"."""
    lo, hi = _window(run, window)
    frames = {"owned": owned_intervals(run), "paused": paused_intervals(run), "cleared": cleared_marks(run),
              "unexpected": unexpected_points(run), "bands": rebalance_intervals(run), "marks": scenario_marks(run)}
    out = {}
    for kind, frame in frames.items():
        frame = _in_window(frame, lo, hi)
        if "partition" in frame:
            frame = frame.assign(partition=[_partition(run, p) for p in frame.partition])
        out[kind] = frame.reset_index(drop=True)
    out["owned"] = out["owned"].assign(color=out["owned"]["member"])
    out["paused"] = out["paused"].assign(color=FLAG)
    return out


# -- the per-partition timeline -------------------------------------------------------------------
def _color_scale(members) -> dict:
    members = sorted(set(members), key=lambda m: (len(m), m))
    return {"domain": [*members, FLAG], "range": [*itertools.islice(itertools.cycle(MEMBER_COLORS), len(members)),
                                                  FLAG_COLOR]}


def timeline_spec(frames: dict, partitions: list[str], members: list[str], span, width: int = style.WIDTH,
                  where: str | None = None) -> dict:
    """The layered per-partition view of `timeline_frames` (or the grid explorer's concatenation,
    filtered by `where`)."""
    y = field("partition", "nominal", sort=partitions, title=None, scale={"domain": partitions})
    color = field("color", "nominal", scale=_color_scale(members),
                  legend={"title": None, "orient": "bottom", "direction": "horizontal"})
    owned = unit(frames["owned"], {"type": "bar", "height": 18, "opacity": 0.45},
                 {"x": time_x("start_s", span), "x2": {"field": "end_s"}, "y": y, "color": color,
                  "tooltip": [tip("member", "owner", "nominal"), tip("partition", None, "nominal"),
                              tip("start_s", "from (s)", fmt=".3f"), tip("end_s", "to (s)", fmt=".3f")]}, where=where)
    paused = unit(frames["paused"], {"type": "bar", "height": 7},
                  {"x": field("start_s"), "x2": {"field": "end_s"}, "y": y, "color": color,
                   "tooltip": [tip("member", None, "nominal"), tip("partition", None, "nominal"),
                               tip("by", "paused by", "nominal"), tip("start_s", "from (s)", fmt=".3f"),
                               tip("end_s", "to (s)", fmt=".3f")]}, where=where)
    cleared = unit(frames["cleared"], {"type": "point", "shape": "cross", "size": 110, "filled": True,
                                       "color": CLEARED_COLOR, "angle": 45},
                   {"x": field("time_s"), "y": y,
                    "tooltip": [tip("member", None, "nominal"), tip("partition", None, "nominal"),
                                tip("reason", "flag cleared by", "nominal"), tip("time_s", "at (s)", fmt=".3f")]},
                   where=where)
    tips = [tip("member", None, "nominal"), tip("partition", None, "nominal"), tip("records"),
            tip("path", "came from", "nominal"), tip("time_s", "at (s)", fmt=".3f")]
    dots = unit(frames["unexpected"], {"type": "circle", "color": UNEXPECTED_COLOR, "opacity": 0.9},
                {"x": field("time_s"), "y": y, "size": {"value": 180}, "tooltip": tips}, where=where)
    labels = unit(frames["unexpected"], {"type": "text", "color": UNEXPECTED_COLOR, "align": "left", "dx": 9,
                                         "fontWeight": "bold", "fontSize": 11},
                  {"x": field("time_s"), "y": y, "text": field("records", "quantitative"), "tooltip": tips},
                  where=where)
    # The bands' phase colours and the owner/flag colours are two different scales.
    drawn = {"layer": [owned, paused, cleared, dots, labels,
                       *fault_rules(frames["marks"], where=where, span=span, width=width)]}
    return {"layer": [rebalance_bands(frames["bands"], span, legend=False, where=where), drawn],
            "width": width, "height": 26 * len(partitions),
            "resolve": {"scale": {"color": "independent"}, "legend": {"color": "independent"}}}


def _members(frames) -> list[str]:
    return sorted(set(frames["owned"]["member"]), key=lambda m: (len(m), m))


@returns_chart
def pause_timeline(run, window=None, *, width: int = style.WIDTH, title: str | None = None) -> dict:
    """Per partition: its owner (wide bar), its pause flag (thin purple bar), every flag a rebalance
    cleared (x) and every batch poll() returned while the application had paused everything (red
    dot, with its record count); rebalances shaded."""
    frames = timeline_frames(run, window)
    partitions = [_partition(run, p) for p in range(run.scenario.partitions)]
    lo, hi = _window(run, window)
    spec = timeline_spec(frames, partitions, _members(frames), (lo / 1000, hi / 1000), width)
    s, n = run.scenario, run.summary["unexpected_records"]
    spec["title"] = title_of(title or f"Kafka {s.kafka_version}, {s.protocol}, remedy: {s.remedy}",
                             f"{n} records returned while everything was paused (red); x = pause flag cleared by "
                             f"a rebalance; shaded = rebalancing")
    return spec


# -- the sweep --------------------------------------------------------------------------------------
def _label(df: pd.DataFrame) -> pd.Series:
    return df["kafka_version"].astype(str) + " " + df["protocol"].astype(str)


@returns_chart
def unexpected_chart(sweep_df: pd.DataFrame, *, remedy: str = "none", width: int = 520) -> dict:
    """Records the KAFKA-13463 loop did not expect, per Kafka version and protocol, split by where
    they came from (buffered before the rebalance, or fetched after it), for one remedy."""
    df = sweep_df[sweep_df.remedy == remedy]
    if df.empty:
        raise ValueError(f"the sweep has no rows for remedy {remedy!r}; it has {sorted(set(sweep_df.remedy))}")
    order = list(dict.fromkeys(_label(df)))
    long = pd.DataFrame({"run": list(_label(df)) * 2,
                         "path": ["buffered before the rebalance"] * len(df) + ["fetched after the flag was lost"] * len(df),
                         "records": list(df.unexpected_from_buffer) + list(df.unexpected_new_fetch)})
    bars = unit(long, "bar", {
        "x": field("run", "nominal", sort=order, title="Kafka version and protocol", axis={"labelAngle": -30}),
        "y": field("records", title="unexpected records", stack=True),
        "color": field("path", "nominal", scale={"range": ["#b279a2", UNEXPECTED_COLOR]},
                       legend={"title": "where they came from", "orient": "top"}),
        "tooltip": [tip("run", "run", "nominal"), tip("path", None, "nominal"), tip("records")]})
    return {**bars, "width": width, "height": 220,
            "title": title_of("What poll() returned although the application had paused everything",
                              f"remedy: {remedy}")}


@returns_chart
def remedy_matrix(sweep_df: pd.DataFrame, *, value: str = "unexpected_records", width: int = 560) -> dict:
    """A heat map: remedy (rows) x Kafka version and protocol (columns), coloured and labelled by
    `value` (a sweep column); proposals that Kafka never shipped are marked."""
    df = sweep_df.assign(run=_label(sweep_df),
                         remedy_label=[r + ("" if k else " (proposal)") for r, k in zip(sweep_df.remedy,
                                                                                        sweep_df.in_kafka)])
    frame = df[["run", "remedy_label", value]].rename(columns={value: "value"})
    cols, rows = list(dict.fromkeys(df.run)), list(dict.fromkeys(df.remedy_label))
    x = field("run", "nominal", sort=cols, title="Kafka version and protocol", axis={"labelAngle": -30, "orient": "top"})
    y = field("remedy_label", "nominal", sort=rows, title=None, axis={"labelLimit": 320})
    cells = unit(frame, "rect", {"x": x, "y": y, "color": field("value", scale={"scheme": "reds"}, legend=None),
                                 "tooltip": [tip("remedy_label", "remedy", "nominal"), tip("run", None, "nominal"),
                                             tip("value", value)]})
    text = unit(frame, {"type": "text", "fontSize": 12}, {"x": x, "y": y, "text": field("value"),
                                                          "color": {"condition": {"test": "datum.value > 900",
                                                                                  "value": "white"},
                                                                    "value": "black"}})
    return {"layer": [cells, text], "width": width, "height": 30 * len(rows),
            "title": title_of(f"{value.replace('_', ' ')}, by remedy",
                              "the KAFKA-13463 loop, a third member joins; '(proposal)': never shipped in Kafka")}


# -- key numbers ---------------------------------------------------------------------------------------
def key_numbers(summary: dict) -> pd.DataFrame:
    """order, label, value: the pause run's key numbers (for summary charts and the explorers)."""
    def fmt(value):
        if isinstance(value, dict):
            total = sum(value.values())
            return f"{total} ({', '.join(f'{k} {n}' for k, n in value.items())})" if total else "0"
        return f"{value:,}"
    return pd.DataFrame({"order": range(len(KEY_NUMBERS)), "label": [label for _, label in KEY_NUMBERS],
                         "value": [fmt(summary[key]) for key, _ in KEY_NUMBERS]})


def key_numbers_html(summary: dict) -> str:
    rows = "".join(f"<tr><td style='padding:1px 10px 1px 0;white-space:pre'>{html.escape(r.label)}</td>"
                   f"<td style='text-align:right'><b>{html.escape(r.value)}</b></td></tr>"
                   for r in key_numbers(summary).itertuples())
    return f"<table style='font-size:13px'>{rows}</table>"


# -- the explorer without a kernel ------------------------------------------------------------------------
def check_settings(names) -> None:
    unknown = [k for k in names if k not in GRID_SETTINGS]
    if unknown:
        raise ConfigError(f"unknown explorer setting(s) {unknown}; choose from {', '.join(GRID_SETTINGS)}")


def scenario_with(base: PauseScenario, values: dict) -> PauseScenario:
    """`base` with grid settings applied (GRID_SETTINGS); "change" is "join", "leave" or "lost"
    (of consumer-1) at the base's first change time; cooperative gets the cooperative-sticky assignor."""
    check_settings(values)
    fields = {k: v for k, v in values.items() if k in ("kafka_version", "protocol", "remedy", "app_loop")}
    if "protocol" in fields:
        fields["assignor"] = None
    if "change" in values:
        at = base.changes[0][0] if base.changes else base.pause_at_ms + 6_000
        fields["changes"] = ((at, values["change"], "consumer-1" if values["change"] == "lost" else None),)
    if "max.poll.records" in values:
        fields["consumer"] = {**base.consumer, "max.poll.records": values["max.poll.records"]}
    return base.replace(**fields)


@returns_chart
def pause_explorer(base: PauseScenario, grid: dict, *, window=None, width: int = style.WIDTH,
                   title: str | None = None) -> dict:
    """Simulate `base` at every combination of `grid` ({setting: [values]}, settings from
    GRID_SETTINGS) and return the timeline and key numbers with one bound input per setting: a
    range slider for evenly spaced numbers, radio buttons or a drop-down otherwise. A point Kafka
    would reject (cooperative before 2.4) shows Kafka's reason instead."""
    if not grid or any(not list(v) for v in grid.values()):
        raise ValueError("the grid needs at least one setting, each with at least one value")
    check_settings(grid)
    points = list(itertools.product(*(list(v) for v in grid.values())))
    if len(points) > MAX_POINTS:
        raise ValueError(f"the grid has {len(points)} combinations (> {MAX_POINTS}); every one is embedded in the page")
    params = {name: sliders.column(name) for name in grid}
    collected: dict[str, list[pd.DataFrame]] = {}
    members: set[str] = set()
    end = 0
    for point in points:
        keys = {params[name]: value for name, value in zip(grid, point)}
        try:
            run = simulate_pause(scenario_with(base, dict(zip(grid, point))))
        except ConfigError as error:
            lines = textwrap.wrap(str(error), 60)
            text = pd.DataFrame({"order": range(len(lines)), "label": ["Kafka says"] + [""] * (len(lines) - 1),
                                 "value": lines})
            collected.setdefault("summary", []).append(text.assign(**keys))
            continue
        frames = timeline_frames(run, window)
        members |= set(frames["owned"]["member"])
        end = max(end, _window(run, window)[1])
        for kind, frame in frames.items():
            collected.setdefault(kind, []).append(frame.assign(**keys))
        collected.setdefault("summary", []).append(key_numbers(run.summary).assign(**keys))
    frames = {kind: pd.concat(parts, ignore_index=True) for kind, parts in collected.items()}
    where = sliders.matches(grid)
    partitions = [f"{base.topic}-{p}" for p in range(base.partitions)]
    span = ((window[0] if window else 0) / 1000, (end or base.duration_ms) / 1000)
    bound, shown = sliders.controls([(name, list(values), PAUSE_KNOBS[name].label, pause_current(name, base), None)
                                     for name, values in grid.items()], width)
    parts = [shown]
    if "owned" in frames:
        view = timeline_spec(frames, partitions, sorted(members, key=lambda m: (len(m), m)), span, width, where)
        view["title"] = title_of("Owner (wide bar), pause flag (purple), flag cleared (x), returned while paused (red)",
                                 fontSize=12)
        parts.append(view)
    parts.append(summary_spec(frames["summary"], where))
    return {"vconcat": parts, "spacing": 14, "params": bound,
            "title": title_of(title or "Explore: " + ", ".join(grid), sliders.hint(len(points)))}


__all__ = ["GRID_SETTINGS", "cleared_marks", "key_numbers", "owned_intervals", "PAUSE_KNOBS", "pause_current", "pause_explorer",
           "pause_timeline", "paused_intervals", "rebalance_intervals", "remedy_matrix", "scenario_with",
           "timeline_frames", "unexpected_chart", "unexpected_points"]
