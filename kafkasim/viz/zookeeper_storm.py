"""Charts of the 0.8.2 ZooKeeper consumer (kafkasim.zookeeper.consumer_connector): who stops to rebalance
after one membership change, the ZooKeeper request herd it sets off, how that herd grows with the
group name's size, and today's group coordinator for contrast.

Every chart reads a `ZookeeperRun`'s documented readers (`member_states()`, `zk_load()`,
`summary`, `scenario`) or the model's closed forms (`herd_cost`, `compare_with_group_coordinator`),
never the model's internals. Runs are given as one run or as {label: run}, drawn on one time axis.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from kafkasim.zookeeper.consumer_connector import (BACKOFF, CONSUMING, FAILED, REBALANCING, herd_cost, seed_incident,
                                  simulate_zookeeper)
from kafkasim.viz import sliders, style, tables
from kafkasim.viz.layers import fault_rules
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit
from kafkasim.viz.summary import summary_spec

#: States in which a connector does not fetch because of a rebalance (attempting, or sleeping
#: rebalance.backoff.ms between attempts).
STOPPED = (REBALANCING, BACKOFF)
#: The connector states (zookeeper_consumer), coloured like the group coordinator's consumers.
ZK_STATE_COLORS = {CONSUMING: style.STATE_COLORS["consuming"], REBALANCING: style.STATE_COLORS["joining"],
                   BACKOFF: style.STATE_COLORS["awaiting_sync"], FAILED: style.ERROR_COLOR,
                   "paused": style.STATE_COLORS["paused"], "closed": style.STATE_COLORS["stopped"]}
SERIES_COLORS = ("#e45756", "#4c78a8", "#54a24b", "#f58518", "#b279a2", "#9d9d9d")


def _labelled(runs) -> dict:
    """{label: run} from one run, a sequence of runs, or a dict."""
    if isinstance(runs, dict):
        if not runs:
            raise ValueError("give at least one run")
        return runs
    if hasattr(runs, "zk_load"):
        return {"run": runs}
    runs = list(runs)
    if not runs:
        raise ValueError("give at least one run")
    return {f"run {i + 1}": r for i, r in enumerate(runs)}


def _series_scale(labels) -> dict:
    labels = list(labels)
    return {"domain": labels, "range": [SERIES_COLORS[i % len(SERIES_COLORS)] for i in range(len(labels))]}


def storm_frame(run, bucket_ms: int = 1000) -> pd.DataFrame:
    """time_s, rebalancing, requests_per_s, reads, writes: per time bucket, how many connectors were
    stopped for a rebalance (mean over the bucket) and what ZooKeeper served."""
    load = run.zk_load(bucket_ms)
    n = len(load)
    states = run.member_states()
    stopped = states[states["state"].isin(STOPPED)]
    counts = tables.mean_count(stopped, 0, n * bucket_ms, n, "rebalancing").iloc[:n]
    return pd.DataFrame({"time_s": load["time_ms"].to_numpy() / 1000.0,
                         "rebalancing": counts["rebalancing"].to_numpy(),
                         "requests_per_s": load["requests_per_s"].round(1).to_numpy(),
                         "reads": load["reads"].round(1).to_numpy(), "writes": load["writes"].round(1).to_numpy()})


def fault_frame(run) -> pd.DataFrame:
    """time_s, label, short: the scenario's faults (a disconnect, a join...) for fault_rules."""
    rows = [(f.at_ms / 1000, f.label(), f.short_label()) for f in run.scenario.faults]
    return pd.DataFrame(rows, columns=["time_s", "label", "short"])


def _frames(runs, bucket_ms: int) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    runs = _labelled(runs)
    series = pd.concat([storm_frame(r, bucket_ms).assign(run=label) for label, r in runs.items()], ignore_index=True)
    first = next(iter(runs.values()))
    end = max(r.end_ms for r in runs.values()) / 1000
    return series, fault_frame(first), end


def _series_spec(series, y: str, y_title: str, span, labels, height: int, width: int, where=None,
                 legend: bool = True) -> dict:
    tips = [tip("run", "run", "nominal"), tip("time_s", "from (s)"), tip("rebalancing", "connectors rebalancing",
                                                                       fmt=".1f"),
            tip("requests_per_s", "ZooKeeper requests/s", fmt=",.0f"), tip("reads", "reads", fmt=",.0f"),
            tip("writes", "writes", fmt=",.0f")]
    return unit(series, {"type": "line", "interpolate": "step-after", "strokeWidth": 2}, {
        "x": field("time_s", scale=style.time_scale(span), title=style.TIME_TITLE, axis={"grid": False}),
        "y": field(y, title=y_title),
        "color": field("run", "nominal", scale=_series_scale(labels),
                       legend={"title": None, "orient": "top"} if legend else None),
        "tooltip": tips}, where=where, width=width, height=height)


@returns_chart
def rebalancing_over_time(runs, *, bucket_ms: int = 1000, width: int = style.WIDTH, height: int = 180,
                          title: str | None = "Connectors stopped for a rebalance") -> dict:
    """How many connectors were rebalancing (an attempt running, or sleeping `rebalance.backoff.ms`)
    over time, one line per run, with the first run's faults marked."""
    series, faults, end = _frames(runs, bucket_ms)
    view = _series_spec(series, "rebalancing", "connectors rebalancing", (0, end), series["run"].unique(), height,
                        width)
    spec = {"layer": [view, *fault_rules(faults, span=(0, end), width=width)]}
    if title:
        spec["title"] = title_of(title, f"mean per {bucket_ms / 1000:g} s bucket")
    return spec


@returns_chart
def zookeeper_load(runs, *, bucket_ms: int = 1000, width: int = style.WIDTH, height: int = 180,
                   title: str | None = "ZooKeeper requests per second") -> dict:
    """The requests (reads + writes) ZooKeeper served per second, one line per run: the herd effect."""
    series, faults, end = _frames(runs, bucket_ms)
    view = _series_spec(series, "requests_per_s", "requests / s", (0, end), series["run"].unique(), height, width)
    spec = {"layer": [view, *fault_rules(faults, span=(0, end), width=width)]}
    if title:
        spec["title"] = title_of(title, "exists, getData, getChildren, create, delete, setData")
    return spec


@returns_chart
def storm_chart(runs, *, bucket_ms: int = 1000, width: int = style.WIDTH,
                title: str | None = "One membership change, seen from the connectors and from ZooKeeper") -> dict:
    """`rebalancing_over_time` above `zookeeper_load`, on one time axis."""
    top = rebalancing_over_time.spec(runs, bucket_ms=bucket_ms, width=width, title=None)
    bottom = zookeeper_load.spec(runs, bucket_ms=bucket_ms, width=width, title=None)
    bottom["layer"][0]["encoding"]["color"]["legend"] = None
    spec = {"vconcat": [top, bottom], "spacing": 10}
    if title:
        spec["title"] = title_of(title, f"per {bucket_ms / 1000:g} s bucket")
    return spec


@returns_chart
def connector_states(run, window=None, *, width: int = style.WIDTH, max_members: int = 80,
                     title: str | None = "Each connector over time") -> dict:
    """One row per connector (grouped by the topic it reads), coloured by state: consuming,
    rebalancing, backoff (sleeping between attempts), failed (gave up), closed."""
    states = run.member_states()
    members = tables.member_order(states["member"])
    if len(members) > max_members:
        raise ValueError(f"{len(members)} connectors is too many rows (max_members={max_members}); "
                         "use rebalancing_over_time for large groups")
    lo, hi = tables.window_ms(run, window)
    frame = tables.clip(states, lo, hi).assign(start_s=lambda f: f["start"] / 1000, end_s=lambda f: f["end"] / 1000)
    frame = frame.drop(columns=["start", "end"])
    domain = [s for s in ZK_STATE_COLORS if s in set(frame["state"])]
    span = (lo / 1000, hi / 1000)
    bars = unit(frame, "bar", {
        "x": field("start_s", scale=style.time_scale(span), title=style.TIME_TITLE, axis={"grid": False}),
        "x2": {"field": "end_s"},
        "y": field("member", "nominal", sort=members, title=None, axis={"labelFontSize": 9}),
        "color": field("state", "nominal", scale={"domain": domain, "range": [ZK_STATE_COLORS[s] for s in domain]},
                       legend={"title": "connector state", "orient": "right"}),
        "tooltip": [tip("member", "connector", "nominal"), tip("state", "state", "nominal"),
                    tip("start_s", "from (s)", fmt=".3f"), tip("end_s", "to (s)", fmt=".3f")]},
        width=width, height=min(11 * len(members), 640))
    faults = fault_frame(run)
    faults = faults[(faults["time_s"] >= span[0]) & (faults["time_s"] <= span[1])]
    spec = {"layer": [bars, *fault_rules(faults, span=span, width=width)]}
    if title:
        spec["title"] = title_of(title, "orange: rebalancing (fetchers stopped, partitions released)")
    return spec


def herd_frame(sizes) -> pd.DataFrame:
    """consumers, reads, writes, requests, registration_reads: `herd_cost` of one departure that
    notifies each number of connectors in `sizes` (the group name held one more), each owning one
    partition before (the seed's layout) and the leaver's among them after."""
    rows = []
    for n in sizes:
        cost = herd_cost(n, partitions=n + 1, owned_before=n)
        rows.append((n, cost["reads"], cost["writes"], cost["requests"], cost["registration_reads"]))
    return pd.DataFrame(rows, columns=["consumers", "reads", "writes", "requests", "registration_reads"])


@returns_chart
def herd_curve(sizes=(10, 20, 50, 120, 240, 600, 1200, 2400), *, mark: int | None = 1199,
               width: int = 420, height: int = 260, title: str | None = "ZooKeeper requests for one change") -> dict:
    """Requests one membership change costs against the connectors sharing the group name (log-log):
    reads grow with the square of the group, writes linearly. `mark` highlights one size."""
    sizes = sorted(set(sizes) | ({mark} if mark else set()))
    frame = herd_frame(sizes).melt(id_vars="consumers", value_vars=["reads", "writes"], var_name="request",
                                   value_name="count")
    axis_x = field("consumers", scale={"type": "log"}, title="connectors notified (all who share the group name, but the leaver)")
    axis_y = field("count", scale={"type": "log"}, title="requests per change")
    colors = {"domain": ["reads", "writes"], "range": ["#4c78a8", "#f58518"]}
    tips = [tip("consumers", "connectors"), tip("request", "type", "nominal"), tip("count", "requests", fmt=",")]
    layers = [unit(frame, {"type": "line", "point": True},
                   {"x": axis_x, "y": axis_y, "color": field("request", "nominal", scale=colors,
                                                              legend={"title": None, "orient": "top"}),
                    "tooltip": tips}, width=width, height=height)]
    if mark:
        marked = frame[(frame["consumers"] == mark) & (frame["request"] == "reads")]
        marked = marked.assign(text=[f"{mark:,} connectors: {int(c):,} reads" for c in marked["count"]])
        layers.append(unit(marked, {"type": "text", "align": "right", "dx": -8, "dy": -8, "fontSize": 11},
                           {"x": axis_x, "y": axis_y, "text": field("text", "nominal")}))
    spec = {"layer": layers}
    if title:
        spec["title"] = title_of(title, "each notified connector reads every registration of its group name")
    return spec


@returns_chart
def coordinator_contrast(frame: pd.DataFrame, *, width: int = 300, title: str | None =
                         "Who rebalances when one consumer leaves") -> dict:
    """Bars of `compare_with_group_coordinator()`: consumers rebalanced, by client and group naming."""
    df = frame.rename(columns={"consumer": "client", "group names": "naming", "consumers rebalanced": "rebalanced",
                               "consumers in the leaver's group": "in_group"})
    df = df[["client", "naming", "rebalanced", "in_group", "consumers"]]
    naming = {"domain": ["one group name", "a group per topic"], "range": ["#e45756", "#4c78a8"]}
    y = field("naming", "nominal", title=None, sort=naming["domain"])
    x = field("rebalanced", title="consumers rebalanced", scale={"domain": [0, int(df["consumers"].max())]})
    tips = [tip("client", "client", "nominal"), tip("naming", "group names", "nominal"),
            tip("rebalanced", "consumers rebalanced", fmt=","), tip("in_group", "in the leaver's group", fmt=","),
            tip("consumers", "consumers in all", fmt=",")]
    rows = []
    for client, part in df.groupby("client", sort=False):
        bars = unit(part, "bar", {"y": y, "x": x, "color": field("naming", "nominal", scale=naming, legend=None),
                                  "tooltip": tips})
        text = unit(part, {"type": "text", "align": "left", "dx": 4},
                    {"y": y, "x": x, "text": field("rebalanced", format=",")})
        rows.append({"layer": [bars, text], "width": width, "height": 50,
                     "title": title_of(client, fontSize=12)})
    spec = {"vconcat": rows, "spacing": 8}
    if title:
        spec["title"] = title_of(title, "same topics, same consumers; only the client and the group names differ")
    return spec


# -- the kernel-free explorer -------------------------------------------------------------------
#: The explorer's settings: label, and how a value is shown (None: as is).
STORM_SETTINGS = {
    "group.id naming": ("group names", None),
    "topics": ("topics", None),
    "consumers per topic": ("consumers per topic", None),
    "zookeeper capacity": ("ZooKeeper requests/s", lambda v: "unlimited" if v == 0 else f"{v:,}"),
}


def storm_grid_frames(grid: dict, *, bucket_ms: int = 2000, duration_ms: int = 100_000, leave_at_ms: int = 10_000,
                      seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate the seed incident at every point of `grid` (keys of STORM_SETTINGS; "group.id
    naming" in {"one group name", "a group per topic"}, "zookeeper capacity" 0 for unlimited) and
    return (series, numbers): the storm per time bucket and the key numbers, one column per setting."""
    unknown = sorted(set(grid) - set(STORM_SETTINGS))
    if unknown:
        raise ValueError(f"unknown settings {unknown}; choose from {list(STORM_SETTINGS)}")
    defaults = {"group.id naming": ["one group name"], "topics": [10], "consumers per topic": [120],
                "zookeeper capacity": [0]}
    grid = {**defaults, **grid}
    names = list(grid)
    series, numbers = [], []
    for point in itertools.product(*(grid[n] for n in names)):
        values = dict(zip(names, point))
        per_topic = values["group.id naming"] == "a group per topic"
        consumers = values["consumers per topic"]
        run = simulate_zookeeper(seed_incident(per_topic, topics=values["topics"], consumers=consumers,
                                               partitions=consumers, leave_at_ms=leave_at_ms, duration_ms=duration_ms,
                                               zk_ops_per_s=values["zookeeper capacity"] or None, seed=seed))
        keys = {sliders.column(n): v for n, v in values.items()}
        series.append(storm_frame(run, bucket_ms)[["time_s", "rebalancing", "requests_per_s"]].assign(**keys))
        s = run.summary
        stable = s["time_until_stable_ms"]
        shown = [("connectors in all", f"{s['consumers']:,}"),
                 ("connectors that rebalanced", f"{s['consumers_rebalanced']:,}"),
                 ("ZooKeeper reads", f"{s['zk_reads']:,}"), ("ZooKeeper writes", f"{s['zk_writes']:,}"),
                 ("until every connector fetches again",
                  "still rebalancing" if stable is None else f"{stable / 1000:,.1f} s"),
                 ("fetching time lost (all connectors)", f"{s['consumer_downtime_ms'] / 1000:,.0f} s")]
        numbers.append(pd.DataFrame({"order": range(len(shown)), "label": [a for a, _ in shown],
                                     "value": [b for _, b in shown]}).assign(**keys))
    return pd.concat(series, ignore_index=True), pd.concat(numbers, ignore_index=True)


@returns_chart
def storm_explorer(grid: dict, *, bucket_ms: int = 2000, duration_ms: int = 100_000, width: int = style.WIDTH,
                   initial: dict | None = None, title: str | None = "Explore the storm") -> dict:
    """The seed incident over a precomputed grid (see `storm_grid_frames`), with one slider per
    setting: connectors rebalancing and ZooKeeper load over time, and the key numbers."""
    series, numbers = storm_grid_frames(grid, bucket_ms=bucket_ms, duration_ms=duration_ms)
    names = [n for n in STORM_SETTINGS if n in grid]
    where = sliders.matches(names)
    span = (0, duration_ms / 1000)
    x = field("time_s", scale=style.time_scale(span), title=style.TIME_TITLE, axis={"grid": False})
    tips = [tip("time_s", "from (s)"), tip("rebalancing", "connectors rebalancing", fmt=".1f"),
            tip("requests_per_s", "ZooKeeper requests/s", fmt=",.0f")]

    def panel(y, y_title, color, height):
        return unit(series, {"type": "area", "interpolate": "step-after", "color": color, "opacity": 0.7,
                             "line": {"color": color}},
                    {"x": x, "y": field(y, title=y_title), "tooltip": tips}, where=where, width=width, height=height)

    table = summary_spec(numbers, where)
    knobs = []
    for name in names:
        label, show = STORM_SETTINGS[name]
        values = list(grid[name])
        knobs.append((name, values, label, (initial or {}).get(name), [show(v) for v in values] if show else None))
    params, shown = sliders.controls(knobs, width)
    points = int(np.prod([len(grid[n]) for n in names]))
    per = f"mean per {bucket_ms / 1000:g} s"
    parts = [shown, panel("rebalancing", ["connectors rebalancing", f"({per})"], style.STATE_COLORS["joining"], 150),
             panel("requests_per_s", ["ZooKeeper requests/s", f"({per})"], "#4c78a8", 150), table]
    return {"vconcat": parts, "spacing": 12, "params": params,
            "title": title_of(title or "", f"{sliders.hint(points)}; one connector of the first topic leaves at 10 s")}
