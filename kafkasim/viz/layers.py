"""Layers that several charts share (rebalance bands, fault markers, the time axis), built from
tables in seconds so that the same code draws one run or a precomputed grid of runs."""

from __future__ import annotations

from typing import Iterable

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


def fault_rules(frame: pd.DataFrame, labels: bool = True, where: str | None = None) -> list[dict]:
    """A dashed vertical line at each fault of the scenario, labelled above the plot
    (`frame` from `fault_frame`)."""
    tips = [tip("label", "fault", "nominal"), tip("time_s", "at (s)")]
    rule = unit(frame, {"type": "rule", "color": style.FAULT_COLOR, "strokeDash": [4, 3], "strokeWidth": 1.5},
                {"x": field("time_s"), "tooltip": tips}, where=where)
    if not labels:
        return [rule]
    text = unit(frame, {"type": "text", "color": style.FAULT_COLOR, "align": "left", "baseline": "bottom",
                        "dx": 2, "dy": -2, "fontSize": 10},
                {"x": field("time_s"), "y": {"value": 0}, "text": field("short", "nominal"), "tooltip": tips},
                where=where)
    return [rule, text]
