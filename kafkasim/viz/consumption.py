"""Lag, throughput and duplicates over time, stacked on one time axis with the rebalances.

Lag is `Run.lag` (produced but not yet processed, sampled every `sample_ms`; the peak of each
bin when down-sampled); throughput bins the Processed events' record counts against the
production rate; duplicates are cumulative (how they are derived: kafkasim.viz.tables).
"""

from __future__ import annotations

import pandas as pd

from kafkasim.viz import style, tables
from kafkasim.viz.layers import (band_frame, fault_frame, fault_rules, protocols_of, rebalance_bands, seconds, span_s,
                                 time_x)
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

PANELS = ("lag", "throughput", "duplicates")
PANEL_HEIGHT = 110
LINE_COLOR = "#4c78a8"
PRODUCED_COLOR = "#9d9d9d"
DUPLICATE_COLOR = "#e45756"


@returns_chart
def lag_chart(run, window=None, *, panels=PANELS, width: int = style.WIDTH,
              title: str | None = "Lag, throughput and duplicates") -> dict:
    """Up to three panels sharing the time axis: "lag", "throughput", "duplicates"."""
    spec = panels_spec(panel_frames(run, window, panels), span_s(run, window), width=width,
                       protocols=protocols_of([run]))
    if title:
        s = run.summary
        sub = (f"max lag {s['max_lag']:,} records; {s['duplicates']:,} duplicates; {s['records_produced']:,} records "
               f"produced, {s['records_processed']:,} processed (duplicates included); shaded: rebalancing")
        spec["title"] = title_of(title, sub)
    return spec


def panel_frames(run, window=None, panels=PANELS, max_points: int = 300) -> dict[str, pd.DataFrame]:
    """The tables the panels draw, in seconds (plus "bands" and "faults")."""
    unknown = [p for p in panels if p not in PANELS]
    if unknown or not panels:
        raise ValueError(f"panels must be a non-empty subset of {PANELS}, got {panels!r}")
    frames = {"bands": band_frame(run, window), "faults": fault_frame(run, window)}
    if "lag" in panels:
        frames["lag"] = seconds(tables.lag(run, window, max_points), "time")
    if "throughput" in panels:
        frames["throughput"] = _throughput_frame(run, window, max_points // 2)
    if "duplicates" in panels:
        frames["duplicates"] = seconds(tables.duplicates(run, window), "time")
    return frames


def panels_spec(frames: dict, span, width: int = style.WIDTH, where: str | None = None,
                protocols: tuple[str, ...] = ("classic",)) -> dict:
    """The panels present in `frames` (from `panel_frames`), stacked on a shared time axis, with
    the rebalance bands of groups of these `protocols`."""
    names = [p for p in PANELS if p in frames]
    views = []
    for i, name in enumerate(names):
        x = time_x("time_s", span, style.TIME_TITLE if i == len(names) - 1 else None)
        faults = fault_rules(frames["faults"], labels=i == 0, where=where, span=span, width=width)
        layers = [rebalance_bands(frames["bands"], span, legend=False, where=where, protocols=protocols),
                  _PANEL[name](frames[name], x, where), *faults]
        views.append({"layer": layers, "resolve": {"scale": {"color": "independent"}},
                      "width": width, "height": PANEL_HEIGHT})
    return {"vconcat": views, "spacing": 6, "resolve": {"scale": {"x": "shared"}}}


def _throughput_frame(run, window, bins: int) -> pd.DataFrame:
    frame = seconds(tables.throughput(run, window, bins), "start", "end")
    long = frame.melt(id_vars=["start_s", "end_s"], value_vars=["processed_per_s", "produced_per_s"],
                      var_name="series", value_name="records_per_s")
    long["series"] = long["series"].str.replace("_per_s", "", regex=False)
    # A closing point so that the last bin's step is drawn to its end.
    tail = long[long["start_s"] == long["start_s"].max()].assign(start_s=lambda f: f["end_s"])
    return pd.concat([long, tail], ignore_index=True).rename(columns={"start_s": "time_s"})


def _lag_spec(frame, x, where) -> dict:
    return unit(frame, {"type": "area", "line": {"color": LINE_COLOR}, "color": LINE_COLOR, "opacity": 0.3},
                {"x": x, "y": field("lag", title="lag (records)"),
                 "tooltip": [tip("time_s", "time (s)"), tip("lag", "lag (records)", fmt=",")]}, where=where)


def _throughput_spec(frame, x, where) -> dict:
    series = ["processed", "produced"]
    return unit(frame, {"type": "line", "interpolate": "step-after"}, {
        "x": x, "y": field("records_per_s", title="records/s"),
        "color": field("series", "nominal", scale={"domain": series, "range": [LINE_COLOR, PRODUCED_COLOR]},
                       legend={"title": None, "orient": "top-right", "direction": "horizontal"}),
        "strokeDash": field("series", "nominal", scale={"domain": series, "range": [[1, 0], [4, 3]]}, legend=None),
        "tooltip": [tip("series", type_="nominal"), tip("time_s", "from (s)"), tip("end_s", "to (s)"),
                    tip("records_per_s", "records/s", fmt=",.0f")]}, where=where)


def _duplicates_spec(frame, x, where) -> dict:
    return unit(frame, {"type": "line", "interpolate": "step-after", "color": DUPLICATE_COLOR},
                {"x": x, "y": field("duplicates", title="duplicates (total)",  # a count: whole ticks, also all zero
                                   axis={"format": ",d", "tickMinStep": 1}),
                 "tooltip": [tip("time_s", "time (s)"), tip("duplicates", fmt=",")]}, where=where)


_PANEL = {"lag": _lag_spec, "throughput": _throughput_spec, "duplicates": _duplicates_spec}
