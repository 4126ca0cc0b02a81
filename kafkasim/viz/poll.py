"""Charts about the poll loop and `max.poll.interval.ms`: how long each batch kept a member away
from `poll()`, and over a grid of runs, where the settings are safe.

A batch runs from its Fetched event (poll() returned `value` records) to its Processed event (the
application is done and calls poll() again), so its duration is the gap between two poll() calls
that the heartbeat thread measures against `max.poll.interval.ms` (KIP-62). A batch cut short by a
crash has no Processed event and is left out.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import pandas as pd

from kafkasim.viz import style, tables
from kafkasim.viz.settings import current
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit
from kafkasim.viz.tables import KIND, MEMBER, T, VALUE

LIMIT_COLOR = style.ERROR_COLOR
SAFE_COLOR = "#c7e9c0"


def batches(run) -> pd.DataFrame:
    """One row per processed batch: member, start, end (ms), records, duration_ms. A Processed row always
    closes its member's last Fetched: a crash or close cancels the batch in progress (no Processed row)."""
    open_: dict[str, tuple[int, float]] = {}
    out = []
    for row in run.rows:
        kind = row[KIND]
        if kind == "Fetched":
            open_[row[MEMBER]] = (row[T], row[VALUE])
        elif kind == "Processed" and row[MEMBER] in open_:
            start, count = open_.pop(row[MEMBER])
            out.append((row[MEMBER], start, row[T], int(count), row[T] - start))
    return pd.DataFrame(out, columns=["member", "start", "end", "records", "duration_ms"])


def poll_timeouts(run) -> int:
    """How many times the coordinator removed a member because its poll timer ran out."""
    return run.summary["removals_by_reason"].get("poll_timeout", 0)


@returns_chart
def batch_durations(run, window=None, *, bins: int = 40, width: int = style.WIDTH,
                    title: str | None = "Time between poll() calls") -> dict:
    """A histogram of batch durations (the time the application spent between two poll() calls),
    with `max.poll.interval.ms` as a red line: every batch right of it cost a removal."""
    frame = batches(run)
    if window is not None:
        lo, hi = tables.window_ms(run, window)
        frame = frame[(frame["start"] >= lo) & (frame["start"] < hi)]
    limit_s = (run.scenario.consumer_config.get("max.poll.interval.ms") or 0) / 1000
    seconds = frame["duration_ms"].to_numpy(dtype=float) / 1000
    top = max(limit_s * 1.15, float(seconds.max()) * 1.02 if len(seconds) else 1.0)
    edges = np.linspace(0, top, bins + 1)
    counts, _ = np.histogram(seconds, bins=edges)
    hist = pd.DataFrame({"from_s": edges[:-1], "to_s": edges[1:], "batches": counts})
    x_scale = {"domain": [0, float(top)], "nice": False}
    layers = [unit(hist, {"type": "rect", "color": "#4c78a8", "stroke": "white", "strokeWidth": 0.5}, {
        "x": field("from_s", title="seconds between two poll() calls (one batch)", scale=x_scale),
        "x2": {"field": "to_s"}, "y": field("batches", title="batches"), "y2": {"datum": 0},
        "tooltip": [tip("from_s", "from (s)", fmt=".1f"), tip("to_s", "to (s)", fmt=".1f"), tip("batches")]})]
    if limit_s:
        limit = pd.DataFrame({"limit_s": [limit_s], "label": [f"max.poll.interval.ms = {limit_s * 1000:,.0f}"]})
        layers += [unit(limit, {"type": "rule", "color": LIMIT_COLOR, "strokeWidth": 2},
                        {"x": field("limit_s"), "tooltip": [tip("label", "limit", "nominal")]}),
                   unit(limit, {"type": "text", "color": LIMIT_COLOR, "align": "right", "baseline": "top", "dx": -4,
                                "dy": 4, "fontSize": 11}, {"x": field("limit_s"), "y": {"value": 0},
                                                           "text": field("label", "nominal")})]
    spec = {"layer": layers, "width": width, "height": 160}
    if title:
        over = int((seconds > limit_s).sum()) if limit_s else 0
        mean = float(seconds.mean()) if len(seconds) else 0.0
        sub = (f"{len(seconds):,} batches, mean {mean:,.1f} s, longest {seconds.max() if len(seconds) else 0:,.1f} s; "
               f"{over} longer than max.poll.interval.ms")
        spec["title"] = title_of(title, sub)
    return spec


def _edges(values: list[float]) -> dict[float, tuple[float, float]]:
    """Cell edges on a log axis: geometric midpoints between neighbours, mirrored at the ends."""
    v = sorted(set(values))
    if len(v) == 1:
        return {v[0]: (v[0] / 1.5, v[0] * 1.5)}
    mids = [math.sqrt(a * b) for a, b in zip(v, v[1:])]
    lows = [v[0] ** 2 / mids[0], *mids]
    highs = [*mids, v[-1] ** 2 / mids[-1]]
    return {value: (lo, hi) for value, lo, hi in zip(v, lows, highs)}


@returns_chart
def safe_region(runs, x: str = "processing.median.ms", y: str = "max.poll.interval.ms", *,
                metric: Callable = poll_timeouts, metric_title: str = "poll-timeout removals",
                lines: dict | None = None, width: int = 460, height: int = 320,
                title: str | None = "Where the poll loop is safe") -> dict:
    """A heatmap over a grid of runs: `x` and `y` are explorer knob names (kafkasim.viz.settings.KNOBS,
    read from each run's scenario, both positive and drawn on log axes), the colour and the
    number in each cell are `metric(run)`; cells where it is 0 are green.

    lines: {label: f(x) -> y} curves drawn over the cells (same units as the knobs), such as
    "max.poll.records x mean time per record", the boundary a reader can compute in advance.
    """
    runs = list(runs)
    if not runs:
        raise ValueError("safe_region() needs at least one run")
    points = [(float(current(x, r.scenario)), float(current(y, r.scenario)), metric(r)) for r in runs]
    xe, ye = _edges([p[0] for p in points]), _edges([p[1] for p in points])
    cells = pd.DataFrame([(px, py, *xe[px], *ye[py], m) for px, py, m in points],
                         columns=["x", "y", "x_lo", "x_hi", "y_lo", "y_hi", "value"])
    cells["safe"] = cells["value"] == 0
    x_dom = [min(lo for lo, _ in xe.values()), max(hi for _, hi in xe.values())]
    y_dom = [min(lo for lo, _ in ye.values()), max(hi for _, hi in ye.values())]
    xs = {"type": "log", "domain": x_dom, "nice": False}
    ys = {"type": "log", "domain": y_dom, "nice": False}
    ticks_x, ticks_y = sorted(xe), sorted(ye)
    x_enc = field("x_lo", title=x, scale=xs, axis={"values": ticks_x, "grid": False})
    y_enc = field("y_lo", title=y, scale=ys, axis={"values": ticks_y, "grid": False, "format": ",.0f"})
    tips = [tip("x", x), tip("y", y, fmt=",.0f"), tip("value", metric_title)]
    color = {"condition": {"test": "datum.safe", "value": SAFE_COLOR},
             "field": "value", "type": "quantitative", "title": metric_title,
             "scale": {"scheme": "orangered", "type": "symlog"}, "legend": {"orient": "right"}}
    layers = [
        unit(cells, {"type": "rect", "stroke": "white", "strokeWidth": 1},
             {"x": x_enc, "x2": {"field": "x_hi"}, "y": y_enc, "y2": {"field": "y_hi"}, "color": color,
              "tooltip": tips}),
        unit(cells, {"type": "text", "fontSize": 11},
             {"x": field("x", scale=xs), "y": field("y", scale=ys), "text": field("value", "quantitative"),
              "tooltip": tips}),
    ]
    if lines:
        grid = np.geomspace(x_dom[0], x_dom[1], 60)
        curves = pd.concat([pd.DataFrame({"x": grid, "y": [float(fn(v)) for v in grid], "line": label})
                            for label, fn in lines.items()], ignore_index=True)
        curves = curves[(curves["y"] >= y_dom[0]) & (curves["y"] <= y_dom[1])]
        layers.append(unit(curves, {"type": "line", "strokeWidth": 2, "clip": True}, {
            "x": field("x", scale=xs), "y": field("y", scale=ys),
            "strokeDash": field("line", "nominal", legend={"title": None, "orient": "bottom", "direction": "vertical",
                                                         "labelLimit": 600}),
            "color": {"value": "#222222"}, "tooltip": [tip("line", type_="nominal")]}))
    spec = {"layer": layers, "width": width, "height": height, "resolve": {"scale": {"color": "independent"}}}
    if title:
        spec["title"] = title_of(title, f"{len(runs)} runs; green: no {metric_title}; numbers: {metric_title}")
    return spec
