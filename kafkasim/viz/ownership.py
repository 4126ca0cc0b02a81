"""Partition ownership over time: who owned which partition when, and when it was not consumed.

Ownership is what each consumer believed (PartitionsAssigned until PartitionsRevoked / Lost,
a crash or close), so two bars can overlap on one row: a "zombie" that the coordinator already
removed still holds the partition while its new owner starts (the duplicates come from
there). The red strips are `Run.unconsumed()`: no owner, or an owner that was not consuming
(frozen, stalled, rebalancing, already removed); their legend says so, and no owner is red
(style.OWNER_COLORS). Above `max_partitions` rows the chart shows the
number of partitions not being consumed over time instead.
"""

from __future__ import annotations

import pandas as pd

from kafkasim.viz import style, tables
from kafkasim.viz.layers import (band_frame, fault_frame, fault_rules, protocols_of, rebalance_bands, scrubbed,
                                 scrubber as time_slider, seconds, span_s, time_x)
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

ROW_PX = 14
MAX_HEIGHT = 620


def _clipped(frame: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    """Clipped to the window, with "tp" (Kafka's TopicPartition.toString, "orders-3") instead of
    topic and partition."""
    frame = tables.clip(frame, lo, hi)
    frame.insert(0, "tp", frame["topic"].astype(str) + "-" + frame["partition"].astype(int).astype(str))
    return frame.drop(columns=["topic", "partition"]).reset_index(drop=True)


def owners(run, window=None) -> pd.DataFrame:
    """tp ("orders-3"), member, start, end: ownership intervals, consecutive ones of the same owner
    merged (a sticky or cooperative rebalance that keeps a partition leaves no seam)."""
    frame = run.partition_owners().sort_values(["topic", "partition", "member", "start"])  # stable (lexsort)
    frame = tables.merge_runs(frame, ["topic", "partition", "member"])
    return _clipped(frame, *tables.window_ms(run, window))


def unconsumed(run, window=None) -> pd.DataFrame:
    """tp, start, end: when each partition was not being consumed (after startup)."""
    return _clipped(run.unconsumed(), *tables.window_ms(run, window))


@returns_chart
def partition_ownership(run, window=None, *, max_partitions: int = 120, width: int = style.WIDTH,
                        title: str | None = "Partition ownership", scrubber: bool = False) -> dict:
    """One row per partition: bars coloured by owner, red strips while it was not consumed.

    scrubber: a slider over time that replays the run up to the instant it selects (one row per
    partition only; a chart on its own, since its param sits at the top level).
    """
    span = span_s(run, window)
    topics = run.scenario.topics
    tps = [f"{t}-{p}" for t in sorted(topics) for p in range(topics[t])]
    gaps = seconds(unconsumed(run, window), "start", "end")
    bands, faults = band_frame(run, window), fault_frame(run, window)
    protocols = protocols_of([run])
    if len(tps) > max_partitions:
        spec = _aggregate(gaps, bands, faults, len(tps), span, width, protocols)
        sub = f"{len(tps)} partitions (aggregated: how many were not being consumed); shaded: rebalancing"
    else:
        own = seconds(owners(run, window), "start", "end")
        spec = _partition_layers(own, gaps, bands, faults, tps, span, width, protocols)
        if scrubber:
            spec["layer"], spec["params"] = scrubbed(spec["layer"]), [time_slider(span)]
        sub = (f"{len(tps)} partitions, {own['member'].nunique()} owners; red: not being consumed "
               f"({run.summary['partition_downtime_ms'] / 1000:g} partition-seconds in the run); shaded: rebalancing")
    if title:
        spec["title"] = title_of(title, sub, offset=14)
    return spec


def _partition_layers(own, gaps, bands, faults, tps, span, width, protocols: tuple[str, ...]) -> dict:
    """One row per partition: the rebalance bands, owners' bars (named where wide enough), gaps and faults."""
    members = tables.member_order(own["member"])
    y = field("tp", "nominal", sort=tps, title=None,
              axis={"labels": len(tps) <= 60, "ticks": False, "labelFontSize": 10 if len(tps) <= 30 else 8})
    tips = [tip("tp", "partition", "nominal"), tip("member", "owner", "nominal"),
            tip("start_s", "from (s)", fmt=".3f"), tip("end_s", "to (s)", fmt=".3f")]
    legend = {"orient": "right", "columns": 1 + len(members) // 16} if len(members) <= 48 else None
    color = field("member", "nominal", sort=members, title="owner", legend=legend, scale=style.owner_scale(members))
    bars = unit(own, {"type": "bar", "height": {"band": 0.7}, "opacity": 0.85},
                {"x": time_x("start_s", span), "x2": {"field": "end_s"}, "y": y, "color": color, "tooltip": tips})
    # Owner names on bars wide enough to hold them (small groups only).
    wide = own[(own["end_s"] - own["start_s"]) > (span[1] - span[0]) * 0.06]
    names = unit(wide if len(tps) <= 40 else wide.iloc[:0],
                 {"type": "text", "fontSize": 9, "color": "white", "align": "left", "dx": 3},
                 {"x": field("start_s"), "y": y, "text": field("member", "nominal"), "tooltip": tips})
    holes = unit(gaps.assign(what=style.UNCONSUMED_LABEL), {"type": "bar", "height": {"band": 0.3}}, {
        "x": field("start_s"), "x2": {"field": "end_s"}, "y": y, "color": style.gap_legend("what"),
        "tooltip": [tip("tp", "not consumed", "nominal"), tip("start_s", "from (s)", fmt=".3f"),
                    tip("end_s", "to (s)", fmt=".3f")]})
    return {"layer": [rebalance_bands(bands, span, protocols=protocols), bars, names, holes,
                      *fault_rules(faults, span=span, width=width)],
            "resolve": {"scale": {"color": "independent"}},
            "width": width, "height": min(MAX_HEIGHT, max(60, ROW_PX * len(tps)))}


def _aggregate(gaps, bands, faults, partitions: int, span, width, protocols: tuple[str, ...]) -> dict:
    intervals = gaps.assign(start=gaps["start_s"] * 1000, end=gaps["end_s"] * 1000)
    counts = seconds(tables.mean_count(intervals, span[0] * 1000, span[1] * 1000, 200, "partitions"), "time")
    mark = {"type": "area", "interpolate": "step-after", "color": style.UNCONSUMED_COLOR, "opacity": 0.8}
    area = unit(counts, mark, {
        "x": time_x("time_s", span),
        "y": field("partitions", title=f"partitions not consumed (of {partitions})", scale={"domainMin": 0}),
        "tooltip": [tip("time_s", "from (s)", fmt=".1f"), tip("partitions", "not consumed (mean)", fmt=".1f")]})
    return {"layer": [rebalance_bands(bands, span, protocols=protocols), area,
                      *fault_rules(faults, span=span, width=width)],
            "resolve": {"scale": {"color": "independent"}}, "width": width, "height": 220}
