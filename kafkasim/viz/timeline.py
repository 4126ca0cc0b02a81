"""The member timeline: one row per consumer, its state over time, rebalances as bands,
removals marked with the coordinator's reason, faults as dashed lines.

The states are the consumer model's (kafkasim.client.consumer): joining (JoinGroup sent), awaiting_sync
(SyncGroup sent), consuming / processing (the poll loop), paused (a stop-the-world GC pause),
stalled (the poll thread stuck while the heartbeat thread runs, KIP-62), removed (the
coordinator dropped the member; it rejoins at its next poll()), stopped (crashed or closed).
Under group.protocol=consumer (kafkasim.client.consumer_membership) a member is "joining" from
its join heartbeat (epoch 0) until it has reconciled its first assignment, and "removed" once
fenced, until its next poll(); it keeps consuming while it reconciles, so there is no awaiting_sync.
The top row is the group's state at the coordinator: PreparingRebalance / CompletingRebalance for
a classic group, Assigning / Reconciling for a consumer group, with a tick where a rebalance
started (RebalanceStarted) or the group epoch was bumped (GroupEpochBumped). Above `max_members`
members the rows would be thinner than a pixel, so the chart shows how many members were in
each state over time instead (same colours).
"""

from __future__ import annotations

import pandas as pd

from kafkasim.viz import style, tables
from kafkasim.viz.layers import (band_frame, fault_frame, fault_rules, protocols_of, rebalance_bands, scrubbed,
                                 scrubber as time_slider, seconds, span_s, time_x)
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

ROW_PX = 14
MAX_HEIGHT = 620
#: Time bins of the aggregate chart (groups above `max_members`): its areas and removal ticks share them.
AGGREGATE_BINS = 200
#: The top row: the group's state at the coordinator (bands while it rebalances).
COORDINATOR_ROW = "coordinator"
#: What the tick on the coordinator's row marks, and its tooltip's titles, by group protocol.
STARTS = {"classic": ("a rebalance started", "rebalance started at (s)", "from generation"),
          "consumer": ("group epoch bumped", "group epoch bumped at (s)", "to group epoch")}


def marks(protocols: tuple[str, ...] = ("classic",)) -> str:
    """The timeline's subtitle for groups of these `protocols` (MARKS for classic groups)."""
    what = " or ".join(STARTS[p][0] for p in protocols) or STARTS["classic"][0]
    return f"shaded: group rebalancing; | {what}; ▼ removed by the coordinator"


#: How to read the per-member timeline's marks (its subtitle), for classic groups.
MARKS = marks()


@returns_chart
def member_timeline(run, window=None, *, merge_active: bool | None = None, max_members: int = 120,
                    width: int = style.WIDTH, title: str | None = "Members over time", scrubber: bool = False) -> dict:
    """Each member's state over time, with rebalances, removals and faults.

    window: (start_ms, end_ms) to zoom in. The poll loop's consuming/processing flips show when
    the window is short enough; otherwise they merge into one "active" band (merge_active).
    scrubber: a slider over time that replays the run up to the instant it selects (one row per
    member only; a chart on its own, since its param sits at the top level).
    """
    frames = timeline_frames(run, window, merge_active)
    members = tables.member_order(frames["states"]["member"])
    span = span_s(run, window)
    protocols = protocols_of([run])
    if len(members) > max_members:
        spec = aggregate_spec(frames, span, width, protocols)
        how = "shaded: group rebalancing; members per state (aggregated); ticks: removals"
    else:
        spec = timeline_spec(frames, members, span, width, protocols=protocols, scrub=scrubber)
        how = marks(protocols)
        if scrubber:
            spec["params"] = [time_slider(span)]
    if title:
        sub = f"{len(members)} members, Kafka {run.scenario.kafka_version}{_protocol_note(run)}; {how}"
        spec["title"] = title_of(title, sub, offset=14)
    return spec


def timeline_frames(run, window=None, merge_active: bool | None = None) -> dict[str, pd.DataFrame]:
    """The tables the timeline draws, in seconds: states, bands, removals, faults."""
    return {"states": seconds(tables.states(run, window, merge_active), "start", "end"),
            "bands": band_frame(run, window),
            "removals": seconds(tables.removals(run, window), "time"),
            "starts": seconds(tables.rebalance_starts(run, window), "time"),
            "faults": fault_frame(run, window)}


def _protocol_note(run) -> str:
    """", group.protocol=consumer" for a consumer-protocol run (a classic one's subtitle is unchanged)."""
    return ", group.protocol=consumer" if tables.protocol(run) == "consumer" else ""


def start_ticks(frame: pd.DataFrame, y: dict, protocols: tuple[str, ...] = ("classic",),
                where: str | None = None) -> dict:
    """A tick on the coordinator's row at each rebalance start (`frame` from `timeline_frames`);
    with both protocols (a grid explorer sweeping group.protocol) `frame` has a `protocol` column."""
    protocols = tuple(protocols) or ("classic",)
    encoding = {"x": field("time_s"), "y": y}
    if len(protocols) > 1:
        encoding["color"] = field("protocol", "nominal", legend=None, scale={
            "domain": list(protocols), "range": [_start_color(p) for p in protocols]})
        titles = ("rebalance started / group epoch bumped at (s)", "generation / group epoch")
    else:
        titles = STARTS[protocols[0]][1:]
    encoding["tooltip"] = [tip("time_s", titles[0], fmt=".3f"), tip("generation", titles[1]),
                           tip("reason", "why", "nominal")]
    return unit(frame, {"type": "tick", "color": _start_color(protocols[0]), "thickness": 2, "bandSize": 12},
                encoding, transform=[{"calculate": f"'{COORDINATOR_ROW}'", "as": "member"}], where=where)


def _start_color(protocol: str) -> str:
    """The colour of the first rebalance phase of a protocol (PreparingRebalance, Assigning)."""
    return style.PHASE_COLORS[style.PROTOCOL_PHASES[protocol][0]]


def timeline_spec(frames: dict, members: list[str], span, width: int = style.WIDTH, where: str | None = None,
                  protocols: tuple[str, ...] = ("classic",), scrub: bool = False) -> dict:
    """One row per member (and the coordinator's row on top) from `timeline_frames`; the bands'
    legend lists the rebalance phases of the group `protocols` drawn. scrub: follow the time
    scrubber (layers.NOW, whose param the caller puts at the top level)."""
    rows = [COORDINATOR_ROW, *members]
    y = field("member", "nominal", sort=rows, title=None,
              axis={"labels": len(members) <= 60, "ticks": False, "labelFontSize": 10 if len(members) <= 30 else 8})
    states = frames["states"]
    bars = unit(states, {"type": "bar", "height": {"band": 0.75}}, {
        "x": time_x("start_s", span), "x2": {"field": "end_s"}, "y": y,
        "color": field("state", "nominal", scale=style.state_scale(set(states["state"])),
                       legend={"title": "member state", "orient": "right"}),
        "tooltip": [tip("member", type_="nominal"), tip("state", type_="nominal"),
                    tip("start_s", "from (s)", fmt=".3f"), tip("end_s", "to (s)", fmt=".3f")]}, where=where)
    marks = unit(frames["removals"], {"type": "point", "shape": "triangle-down", "filled": True, "size": 90,
                                      "color": style.REMOVAL_COLOR, "stroke": "white", "strokeWidth": 0.5}, {
        "x": field("time_s"), "y": y,
        "tooltip": [tip("member", "removed", "nominal"), tip("reason", "reason", "nominal"),
                    tip("time_s", "at (s)", fmt=".3f"), tip("member_id", "member id", "nominal")]}, where=where)
    starts = start_ticks(frames["starts"], y, protocols, where)
    background = rebalance_bands(frames["bands"], span, legend=False, where=where, protocols=protocols)
    group_row = rebalance_bands(frames["bands"], span, where=where, protocols=protocols)
    group_row["mark"] = {"type": "rect", "opacity": 0.85, "height": {"band": 0.75}}
    group_row["transform"] = group_row.get("transform", []) + starts["transform"][-1:]
    group_row["encoding"]["y"] = y
    layers = [background, group_row, starts, bars, marks,
              *fault_rules(frames["faults"], where=where, span=span, width=width)]
    return {"layer": scrubbed(layers) if scrub else layers,
            "resolve": {"scale": {"color": "independent"}},
            "width": width, "height": min(MAX_HEIGHT, max(60, ROW_PX * len(rows)))}


def state_counts(states: pd.DataFrame, span, bins: int) -> pd.DataFrame:
    """members, state, time_s: the mean number of members in each state over the time bin that
    starts at `time_s` (every state at every bin, zeros included, so that areas stack). Rows come
    by state in name order; the chart stacks them by its own `order`."""
    lo, hi = span[0] * 1000, span[1] * 1000
    ms = states.assign(start=states["start_s"] * 1000, end=states["end_s"] * 1000)
    parts = [tables.mean_count(group, lo, hi, bins, "members").assign(state=state)
             for state, group in ms.groupby("state")]
    counts = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["time", "members", "state"])
    return seconds(counts, "time")


def aggregate_spec(frames: dict, span, width: int = style.WIDTH, protocols: tuple[str, ...] = ("classic",)
                   ) -> dict:
    """Members per state over time (stacked), for groups too large for one row per member."""
    counts = state_counts(frames["states"], span, AGGREGATE_BINS)
    counts["order"] = counts["state"].map({s: i for i, s in enumerate(style.STATE_COLORS)})
    area = unit(counts, {"type": "area", "interpolate": "step-after"}, {
        "x": time_x("time_s", span), "y": field("members", title="members", stack="zero"),
        "color": field("state", "nominal", scale=style.state_scale(set(counts["state"])),
                       legend={"title": "member state", "orient": "right"}),
        "order": field("order"),
        "tooltip": [tip("state", type_="nominal"), tip("members", "members (mean)", fmt=".1f"),
                    tip("time_s", "from (s)", fmt=".1f")]})
    removed = frames["removals"]
    step = max(0.001, round((span[1] - span[0]) / AGGREGATE_BINS, 3))
    per_bin = (removed.assign(bin_s=(removed["time_s"] // step) * step)
               .groupby(["bin_s", "reason"]).size().reset_index(name="removed"))
    ticks = unit(per_bin, {"type": "tick", "color": style.REMOVAL_COLOR, "thickness": 2}, {
        "x": field("bin_s"), "y": {"value": 4},
        "tooltip": [tip("removed", "members removed"), tip("reason", type_="nominal"), tip("bin_s", "at (s)")]})
    return {"layer": [rebalance_bands(frames["bands"], span, protocols=protocols), area, ticks,
                      *fault_rules(frames["faults"], span=span, width=width)],
            "resolve": {"scale": {"color": "independent"}}, "width": width, "height": 300}
