"""Layers that several charts share (rebalance bands, fault markers, the time axis), built from
tables in seconds so that the same code draws one run or a precomputed grid of runs."""

from __future__ import annotations

from typing import Iterable

import altair as alt
import pandas as pd

from kafkasim.viz import style, tables
from kafkasim.viz.spec import field, tip, unit


def seconds(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """Replace ms columns by `<name>_s` columns in seconds (charts speak seconds, events ms)."""
    return frame.drop(columns=list(columns)).assign(
        **{f"{col}_s": frame[col].to_numpy(dtype=float) / 1000.0 for col in columns})


def span_s(run, window=None) -> tuple[float, float]:
    lo, hi = tables.window_ms(run, window)
    return lo / 1000, hi / 1000


def time_x(name: str, span, title: str | None = style.TIME_TITLE) -> dict:
    return field(name, scale=style.time_scale(span), title=title, axis={"grid": False})


def band_frame(run, window=None) -> pd.DataFrame:
    frame = seconds(tables.rebalances(run, window), "start", "end")
    frame["reason"] = frame["reason"].fillna("").str.slice(0, 160)
    return frame


def fault_frame(run, window=None) -> pd.DataFrame:
    return seconds(tables.fault_marks(run, window), "time")


BAND_TIPS = [tip("phase", "group state", "nominal"), tip("start_s", "from (s)", fmt=".3f"),
             tip("end_s", "to (s)", fmt=".3f"), tip("generation"), tip("reason", "why", "nominal")]


def protocols_of(runs: Iterable) -> tuple[str, ...]:
    """The group protocols of some runs, in style.PROTOCOLS order (what their bands' legend lists)."""
    used = {tables.protocol(run) for run in runs}
    return tuple(p for p in style.PROTOCOLS if p in used)


def band_tips(protocols: tuple[str, ...] = ("classic",)) -> list[dict]:
    """The bands' tooltip; a consumer group's generation is its group epoch."""
    if "consumer" not in protocols:
        return BAND_TIPS
    title = "generation / group epoch" if "classic" in protocols else "group epoch"
    return [*BAND_TIPS[:3], tip("generation", title), BAND_TIPS[4]]


def rebalance_bands(frame: pd.DataFrame, span, legend: bool = True, where: str | None = None,
                    protocols: tuple[str, ...] = ("classic",)) -> dict:
    """Shaded bands while the coordinator was rebalancing the group (`frame` from `band_frame`):
    PreparingRebalance or CompletingRebalance for classic groups, Assigning or Reconciling for
    consumer groups (KIP-848); the legend lists the phases of `protocols`."""
    return unit(frame, {"type": "rect", "opacity": style.BAND_OPACITY}, {
        "x": time_x("start_s", span), "x2": {"field": "end_s"},
        "color": field("phase", "nominal", scale=style.phase_scale(protocols),
                       legend={"title": "group state", "orient": "right"} if legend else None),
        "tooltip": band_tips(protocols)}, where=where)


#: Fault labels: 10-px text, an average advance per character that no sans-serif font exceeds
#: for these labels ("c-2 paused 40 s"), and the height of one row of labels.
LABEL_FONT_PX = 10
LABEL_CHAR_PX = 6.5
LABEL_ROW_PX = 12
LABEL_GAP_PX = 6


def label_rows(frame: pd.DataFrame, span=None, width: int = style.WIDTH) -> pd.DataFrame:
    """`frame` (time_s, short) with `row` and `label_s`: where each fault's label starts (left-aligned,
    right of its line, or left of it where it would run past the plot's right edge) and the row it
    sits in, the lowest row where it keeps LABEL_GAP_PX from every label already there. Estimated in
    pixels for a plot `width` wide over `span`; without a span every label gets its own row. Rows are
    counted per grid point (the `p_` columns of a precomputed explorer), of which the page shows one."""
    keys = [c for c in frame.columns if c.startswith("p_")]
    parts = [_rows_of(group, span, width) for _, group in frame.groupby(keys, sort=False, dropna=False)] \
        if keys and len(frame) else [_rows_of(frame, span, width)]
    return pd.concat(parts).loc[frame.index] if len(parts) > 1 else parts[0]


def _rows_of(frame: pd.DataFrame, span, width: int) -> pd.DataFrame:
    frame = frame.sort_values("time_s", kind="stable")
    lo, hi = span if span is not None else (0.0, 0.0)
    scale = width / (hi - lo) if hi > lo else None
    taken: list[list[tuple[float, float]]] = []  # per row: the pixel intervals of its labels
    rows, starts = [], []
    for time_s, text in zip(frame["time_s"], frame["short"].astype(str)):
        if scale is None:  # no pixel geometry: a row of its own
            rows.append(len(rows))
            starts.append(time_s)
            continue
        x, w = (time_s - lo) * scale, len(text) * LABEL_CHAR_PX
        start = x + 2 if x + 2 + w <= width else max(0.0, x - 2 - w)
        row = next((r for r, spans in enumerate(taken)
                    if all(start + w + LABEL_GAP_PX <= a or b + LABEL_GAP_PX <= start for a, b in spans)), len(taken))
        if row == len(taken):
            taken.append([])
        taken[row].append((start, start + w))
        rows.append(row)
        starts.append(lo + start / scale)
    return frame.assign(row=rows, label_s=starts)


def fault_rules(frame: pd.DataFrame, labels: bool = True, where: str | None = None, span=None,
                width: int = style.WIDTH) -> list[dict]:
    """A dashed vertical line at each fault of the scenario, labelled above the plot (`frame` from
    `fault_frame`). Labels that would overprint each other are stacked in rows (`label_rows`, for
    a plot `width` px wide over `span`), one text layer per row."""
    tips = [tip("label", "fault", "nominal"), tip("time_s", "at (s)")]
    rule = unit(frame, {"type": "rule", "color": style.FAULT_COLOR, "strokeDash": [4, 3], "strokeWidth": 1.5},
                {"x": field("time_s"), "tooltip": tips}, where=where)
    if not labels:
        return [rule]
    placed = label_rows(frame, span, width)
    return [rule, *(unit(placed[placed["row"] == row],
                         {"type": "text", "color": style.FAULT_COLOR, "align": "left", "baseline": "bottom",
                          "dy": -2 - LABEL_ROW_PX * row, "fontSize": LABEL_FONT_PX},
                         {"x": field("label_s"), "y": {"value": 0}, "text": field("short", "nominal"),
                          "tooltip": tips}, where=where)
                    for row in range(int(placed["row"].max()) + 1 if len(placed) else 1))]


#: The time scrubber's param: the instant (s) up to which a timeline shows its run.
NOW = "t_s"
NOW_COLOR = "#222222"


def scrubber(span):
    """A slider over the run's time (the param NOW), starting at its end so that the whole run
    shows (an Altair parameter object, which Altair lifts to the top level of a composed chart)."""
    lo, hi = float(span[0]), float(span[1])
    step = max(0.001, round((hi - lo) / 200, 3))
    return alt.param(name=NOW, value=hi, bind={"input": "range", "min": lo, "max": hi, "step": step,
                                               "name": "replay up to time (s) "}).param


def scrubbed(views: list[dict]) -> list[dict]:
    """`views` (layers of a time chart, x in seconds) showing only what happened up to NOW:
    intervals (x to x2) cut at NOW, instants (x, or time_s for fault labels) after it hidden, and a
    line at NOW."""
    out = []
    for view in views:
        encoding = dict(view["encoding"])
        x, x2 = encoding["x"].get("field"), encoding.get("x2", {}).get("field")
        moment = "time_s" if x == "label_s" else x
        steps = [{"filter": f"datum.{moment} <= {NOW}"}]
        if x2:
            steps.append({"calculate": f"min(datum.{x2}, {NOW})", "as": "until_s"})
            encoding["x2"] = {**encoding["x2"], "field": "until_s"}
        out.append({**view, "encoding": encoding, "transform": view.get("transform", []) + steps})
    now = unit({"values": [{}]}, {"type": "rule", "color": NOW_COLOR, "strokeWidth": 1.5},
               {"x": {"datum": {"expr": NOW}, "type": "quantitative"}})
    return [*out, now]
