"""Charts for group size limits (KIP-389): a join storm's members and member-metadata memory over
time, the static storm explorer (sliders over precomputed storms), memory against group size
with the KIP's 120-byte estimate, and rebalance duration against group size.

Inputs are the tables of kafkasim.coordinator.group_size (StormRun.samples, storm_grid) and
kafkasim.analysis.experiments.rebalance_durations,
so the same charts draw one storm or a grid of them."""

from __future__ import annotations

import altair as alt
import pandas as pd

from kafkasim.core.java import INT_MAX
from kafkasim.viz import style
from kafkasim.viz.spec import field, returns_chart, tip, title, unit

MB = 1e6
CATEGORY = "tableau10"


def _storm_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Seconds and megabytes (charts speak s and MB; the model counts ms and bytes)."""
    return frame.assign(time_s=frame["time_ms"] / 1000.0, mb=frame["bytes"] / MB).drop(columns=["time_ms"])


def _panels(data: pd.DataFrame, color: dict | None, where: str | None, width: int, limit: str | None) -> list[dict]:
    """Two stacked panels over time: members (+ pending ids) and member-metadata MB."""
    x = field("time_s", title=style.TIME_TITLE, axis={"grid": False})
    tips = [tip("time_s", "time (s)"), tip("members"), tip("pending", "pending ids"), tip("mb", "MB", fmt=".3f"),
            tip("state", "group state", "nominal")]
    enc = {"x": x, "tooltip": tips, **({"color": color} if color else {})}
    members = unit(data, {"type": "line", "interpolate": "step-after"},
                   {**enc, "y": field("members", title="members in the group")}, where=where, width=width, height=150)
    memory = unit(data, {"type": "area" if color is None else "line", "interpolate": "step-after",
                         "opacity": 0.6 if color is None else 1},
                  {**enc, "y": field("mb", title="member metadata (MB)")}, where=where, width=width, height=150)
    if limit is None:
        return [members, memory]
    rule = unit(data, {"type": "rule", "color": style.ERROR_COLOR, "strokeDash": [4, 3]},
                {"y": {"aggregate": "max", "field": limit, "type": "quantitative"}}, where=where)
    return [{"layer": [members, rule], "width": width, "height": 150}, memory]


@returns_chart
def storm_chart(samples: pd.DataFrame, label: str = "label", width: int = style.WIDTH,
                heading: str = "A join storm: members and member-metadata memory") -> dict:
    """Members and member-metadata MB over time for one storm's samples, or several stacked with
    a `label` column (one colour each)."""
    data = _storm_frame(samples)
    color = field(label, "nominal", scale={"scheme": CATEGORY}, legend={"orient": "top", "title": None}) \
        if label in data.columns else None
    return {"vconcat": _panels(data, color, None, width, None), "spacing": 10,
            "title": title(heading, "sampled every few seconds of simulated time")}


@returns_chart
def storm_explorer(grid: pd.DataFrame, width: int = style.WIDTH) -> dict:
    """The kernel-free explorer: a slider for joins per second and a picker for group.max.size
    over `kafkasim.coordinator.group_size.storm_grid` output; the dashed line is the cap in force."""
    limits = grid["group_max_size"].astype(float)
    data = _storm_frame(grid).assign(limit_shown=limits.where(limits < INT_MAX))  # no line for "unlimited"
    sizes = sorted(data["group_max_size"].unique().tolist())
    rates = sorted(data["joins_per_s"].unique().tolist())
    where = "datum.group_max_size == p_group_max_size && datum.joins_per_s == p_joins_per_s"
    steps = {round(b - a, 9) for a, b in zip(rates, rates[1:])}
    label = "joins per second "
    rate_bind = {"input": "range", "min": rates[0], "max": rates[-1], "step": steps.pop(), "name": label} \
        if len(rates) >= 3 and len(steps) == 1 else {"input": "radio", "options": rates, "name": label}
    size_bind = {"input": "select", "options": sizes, "name": "group.max.size ",
                 "labels": [f"{s:,}" + (" (default)" if s == INT_MAX else "") for s in sizes]}
    params = [alt.param(name="p_group_max_size", value=sizes[-1], bind=size_bind).param,
              alt.param(name="p_joins_per_s", value=rates[len(rates) // 2], bind=rate_bind).param]
    panels = _panels(data, None, where, width, "limit_shown")
    stats = unit(data, {"type": "text", "align": "left", "fontSize": 12},
                 {"text": {"field": "line", "type": "nominal"}, "y": {"value": 8}, "x": {"value": 0}},
                 transform=[{"filter": "datum.time_s == 0"},
                            {"calculate": "'peak ' + datum.peak_members + ' members, ' + datum.rejected + "
                                          "' joins turned away with GROUP_MAX_SIZE_REACHED (81)'", "as": "line"}],
                 where=where, width=width, height=16, view={"stroke": None})
    return {"vconcat": [stats, *panels], "spacing": 8, "params": params,
            "title": title("Explore a join storm", f"{len(sizes) * len(rates)} storms precomputed; "
                                                     "move the controls below the chart")}


@returns_chart
def memory_by_group_size(member_bytes: dict[str, float], sizes=(10, 100, 1_000, 10_000, 100_000, 1_000_000,
                                                              10_000_000), width: int = style.WIDTH,
                         mark_at: int = 1_000_000) -> dict:
    """Member-metadata memory of one group against its size (log-log), one line per
    {label: bytes per member}, with a rule at `mark_at` members (the KIP draft's default)."""
    rows = [(label, n, n * b / MB) for label, b in member_bytes.items() for n in sizes]
    data = pd.DataFrame(rows, columns=["model", "members", "mb"])
    x = field("members", scale={"type": "log"}, title="members in one group", axis={"format": "~s"})
    y = field("mb", scale={"type": "log"}, title="member metadata (MB)", axis={"format": "~s"})
    color = field("model", "nominal", scale={"scheme": CATEGORY}, legend={"orient": "top", "title": None})
    tips = [tip("model", type_="nominal"), tip("members", fmt=","), tip("mb", "MB", fmt=",.1f")]
    lines = unit(data, {"type": "line", "point": True}, {"x": x, "y": y, "color": color, "tooltip": tips})
    rule = unit(pd.DataFrame({"members": [mark_at], "text": [f"{mark_at:,} members"]}),
                {"type": "rule", "color": style.FAULT_COLOR, "strokeDash": [4, 3]}, {"x": field("members")})
    # The models' values at the rule are close on a log axis: listed one per line at the top left
    # (where the rising lines are not), never printed over each other.
    marked = data[data["members"] == mark_at].reset_index(drop=True)
    marked = marked.assign(line=[f"{m}: {mb:,.0f} MB" for m, mb in zip(marked["model"], marked["mb"])],
                           row=[8 + 15 * i for i in range(len(marked))])
    labels = unit(marked, {"type": "text", "align": "left", "baseline": "middle", "dx": 8, "fontSize": 11},
                  {"x": {"value": 0}, "y": field("row", scale=None), "text": field("line", "nominal"), "color": color})
    return {"layer": [lines, rule, labels], "width": width, "height": 260,
            "title": title("How much memory one group's member metadata takes",
                           f"top left: MB at {mark_at:,} members (the rule), the KIP-389 draft's proposed default")}


@returns_chart
def rebalance_duration_chart(durations: pd.DataFrame, width: int = style.WIDTH) -> dict:
    """Rebalance duration (s) against group size: one dot per seed, a line through the means."""
    data = durations.assign(rebalance_s=durations["rebalance_ms"] / 1000.0)
    x = field("members", title="members in the group before the new one")
    tips = [tip("members"), tip("seed"), tip("rebalance_s", "rebalance (s)", fmt=".3f")]
    dots = unit(data, {"type": "circle", "opacity": 0.6, "color": style.PHASE_COLORS["PreparingRebalance"]},
                {"x": x, "y": field("rebalance_s", title="rebalance duration (s)"), "tooltip": tips})
    mean = unit(data, {"type": "line", "color": style.PHASE_COLORS["PreparingRebalance"]},
                {"x": x, "y": {"aggregate": "mean", "field": "rebalance_s", "type": "quantitative"}})
    return {"layer": [dots, mean], "width": width, "height": 220,
            "title": title("One consumer joins: how long the rebalance takes", "one dot per seed; line: mean")}
