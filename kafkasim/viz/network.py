"""Charts of the broker's network layer and its KIP-72 memory pool (`kafkasim.broker.network` runs).

Every chart takes one `NetworkRun` or several as ``{label: run}`` and returns an Altair chart;
each is built from small tables (``*_frame``) and a spec builder (``*_spec``), so that the same
code draws a single run, a comparison, the live explorer and the precomputed grid explorer::

    from kafkasim.broker.network import kip72_experiments, simulate_network
    from kafkasim.viz import network as nv

    runs = {label: simulate_network(s) for label, s in kip72_experiments()["memory_limit"].items()}
    nv.memory_chart(runs)       # MemoryPoolUsed over time, with the bound and the overshoot limit
    nv.latency_chart(runs)      # where a request's time goes, the parts Kafka's metrics miss marked
    nv.throughput_chart(runs)   # completed MB/s against the offered load
    nv.depleted_chart(runs)     # the pool's dry spells (MemoryPoolDepletedTimeTotal)
    nv.fairness_chart(runs)     # completed/sent per client, by network thread

The explorer knobs (`NETWORK_KNOBS`: Kafka broker configs plus the producers' workload) and
`network_grid_explorer`, the kernel-free explorer, are here too. Charts only read a run's
tables (`requests`, `timeseries`, `clients`, `events`, `summary`), never the model.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from kafkasim.core.errors import ConfigError
from kafkasim.broker.network import MiB, NetworkScenario, simulate_network
from kafkasim.viz import sliders, style
from kafkasim.viz.grid_explorer import MAX_ROWS, grid_points, grid_runs
from kafkasim.viz.layers import time_x
from kafkasim.viz.settings import Knob
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit
from kafkasim.viz.summary import summary_spec

#: Latency components in the order a request lives them: (requests column, label, in Kafka's metrics).
#: Their means add up to the mean client latency (created -> response sent).
COMPONENTS = (
    ("socket_wait_ms", "waiting to be read", False),
    ("memory_wait_ms", "waiting for pool memory", False),
    ("read_ms", "reading the body", False),
    ("processor_wait_ms", "waiting for the network thread", False),
    ("RequestQueueTimeMs", "RequestQueueTimeMs", True),
    ("LocalTimeMs", "LocalTimeMs", True),
    ("RemoteTimeMs", "RemoteTimeMs", True),
    ("ResponseQueueTimeMs", "ResponseQueueTimeMs", True),
    ("ResponseSendTimeMs", "ResponseSendTimeMs", True),
)
HIDDEN_MARK = " (not in Kafka metrics)"
#: Oranges for what no broker metric shows, blues for Kafka's RequestMetrics histograms.
_COMPONENT_COLORS = ("#fdd0a2", "#e6550d", "#fdae6b", "#a63603", "#c6dbef", "#2171b5", "#6baed6", "#08519c",
                     "#9ecae1")
RUN_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#9d755d", "#bab0ac")
MEMORY_POINTS = 240  # time bins per run in the memory chart (the peak of each bin is kept)
THROUGHPUT_BINS = 40
ONE_RUN = "run"  # the label of a run drawn alone


def component_label(label: str, in_kafka: bool) -> str:
    return label if in_kafka else label + HIDDEN_MARK


def _as_runs(runs) -> dict:
    """One run or {label: run} -> {label: run}."""
    if isinstance(runs, dict):
        if not runs:
            raise ValueError("no runs to draw")
        return runs
    return {ONE_RUN: runs}


def _window(run, window) -> tuple[int, int]:
    lo, hi = window if window else (0, run.end_ms)
    return int(lo), int(min(hi, run.end_ms))


def _run_scale(labels) -> dict:
    labels = list(labels)
    return {"domain": labels, "range": [RUN_COLORS[i % len(RUN_COLORS)] for i in range(len(labels))]}


# -- memory -----------------------------------------------------------------------------------
def memory_frame(run, label: str = ONE_RUN, window=None, points: int = MEMORY_POINTS) -> pd.DataFrame:
    """run, time_s, mib (the most request memory held in each of `points` time bins), muted
    (the most connections muted for memory in that bin). The peak of the run is always kept."""
    lo, hi = _window(run, window)
    ts = run.timeseries
    before = ts[ts["time"] < lo].tail(1).assign(time=lo)  # the state when the window opens
    ts = pd.concat([before, ts[(ts["time"] >= lo) & (ts["time"] <= hi)]])
    width = max(1, -(-(hi - lo) // points))
    bins = (ts["time"].to_numpy() - lo) // width
    grouped = ts.groupby(bins)  # bins in time order
    frame = pd.DataFrame({"time_s": (lo + grouped["time"].min().index.to_numpy() * width) / 1000.0,
                          "mib": grouped["memory_used_bytes"].max().to_numpy() / MiB,
                          "muted": grouped["memory_muted_channels"].max().to_numpy()})
    end = frame.iloc[-1:].assign(time_s=hi / 1000.0)  # hold the last value to the window's end
    return pd.concat([frame, end], ignore_index=True).assign(run=label)


def bound_frame(run, label: str = ONE_RUN) -> pd.DataFrame:
    """run, what, mib: the bound (`queued.max.request.bytes`) and the overshoot limit (bound +
    `socket.request.max.bytes` - 1), none for an unbounded broker."""
    s = run.summary
    if s["bound_bytes"] is None:
        return pd.DataFrame({"run": [], "what": [], "mib": []})
    return pd.DataFrame({"run": [label] * 2,
                         "what": ["queued.max.request.bytes", "overshoot limit (+ socket.request.max.bytes - 1)"],
                         "mib": [s["bound_bytes"] / MiB, s["overshoot_limit_bytes"] / MiB]})


def memory_spec(frame: pd.DataFrame, bounds: pd.DataFrame, span, labels, width: int = style.WIDTH,
                where: str | None = None) -> dict:
    color = field("run", "nominal", scale=_run_scale(labels), legend={"title": None, "orient": "top"}
                  if len(labels) > 1 else None)
    tips = [tip("run", "run", "nominal"), tip("time_s", "from (s)", fmt=".2f"),
            tip("mib", "peak in this bin (MiB)", fmt=".2f"), tip("muted", "channels muted for memory")]
    line = unit(frame, {"type": "line", "interpolate": "step-after", "strokeWidth": 1.5},
                {"x": time_x("time_s", span), "y": field("mib", title="request memory held (MiB)"),
                 "color": color, "tooltip": tips}, where=where)
    layers = [line]
    if len(bounds):
        layers.append(unit(bounds, {"type": "rule", "strokeWidth": 1.2},
                           {"y": field("mib"), "color": color,
                            "strokeDash": field("what", "nominal",
                                                legend={"title": None, "orient": "bottom", "labelLimit": 400},
                                                scale={"domain": list(dict.fromkeys(bounds["what"])),
                                                       "range": [[6, 3], [1, 2]]}),
                            "tooltip": [tip("run", "run", "nominal"), tip("what", "line", "nominal"),
                                        tip("mib", "MiB", fmt=".3f")]}, where=where))
    return {"layer": layers, "width": width, "height": 200,
            "title": title_of("Request memory held by the broker",
                              ["Kafka's MemoryPoolUsed gauge (peak per time bin); an unbounded broker uses "
                               "MemoryPool.NONE,", "whose gauge reads 0: there only the simulator counts"])}


@returns_chart
def memory_chart(runs, window=None, *, width: int = style.WIDTH) -> dict:
    """Request memory held over time, one line per run, with each bounded run's limit and the
    lenient overshoot limit as dashed rules."""
    runs = _as_runs(runs)
    frame = pd.concat([memory_frame(r, k, window) for k, r in runs.items()], ignore_index=True)
    bounds = pd.concat([bound_frame(r, k) for k, r in runs.items()], ignore_index=True)
    first = next(iter(runs.values()))
    span = tuple(x / 1000 for x in _window(first, window))
    return memory_spec(frame, bounds, span, list(runs), width)


# -- latency ----------------------------------------------------------------------------------
def latency_frame(run, label: str = ONE_RUN, window=None) -> pd.DataFrame:
    """run, order, component, in_kafka, mean_ms, share: the mean time per component over the
    requests completed (within `window`, by completion time)."""
    lo, hi = _window(run, window)
    df = run.requests
    done = df[df["end"].notna() & (df["end"] >= lo) & (df["end"] <= hi)]
    means = [float(done[col].mean()) if len(done) else 0.0 for col, _, _ in COMPONENTS]
    total = sum(means)
    return pd.DataFrame({
        "run": label, "order": range(len(COMPONENTS)),
        "component": [component_label(lab, k) for _, lab, k in COMPONENTS],
        "in_kafka": ["yes: RequestMetrics" if k else "no" for _, _, k in COMPONENTS],
        "mean_ms": np.round(means, 3), "share": np.round([m / total if total else 0.0 for m in means], 4),
        "requests": len(done)})


def percentile_frame(run, label: str = ONE_RUN, window=None) -> pd.DataFrame:
    """run, measure, percentile, ms: p50/p95/p99 of what a client waits vs Kafka's TotalTimeMs."""
    lo, hi = _window(run, window)
    df = run.requests
    done = df[df["end"].notna() & (df["end"] >= lo) & (df["end"] <= hi)]
    rows = []
    for column, measure in (("client_latency_ms", "client latency (not in Kafka metrics)"),
                            ("TotalTimeMs", "TotalTimeMs (Kafka)")):
        values = done[column].to_numpy()  # float: NaN where not reached
        for p in (50, 95, 99):
            rows.append((label, measure, f"p{p}", float(np.percentile(values, p)) if len(values) else None))
    return pd.DataFrame(rows, columns=["run", "measure", "percentile", "ms"])


def _component_scale() -> dict:
    return {"domain": [component_label(lab, k) for _, lab, k in COMPONENTS], "range": list(_COMPONENT_COLORS)}


def latency_spec(frame: pd.DataFrame, percentiles: pd.DataFrame | None, labels, width: int = style.WIDTH,
                 where: str | None = None) -> dict:
    bars = unit(frame, "bar", {
        "y": field("run", "nominal", sort=list(labels), title=None),
        "x": field("mean_ms", title="mean time per completed request (ms)", stack="zero"),
        "color": field("component", "nominal", scale=_component_scale(),
                       legend={"title": "where the time goes (orange: before startTimeNanos, not in Kafka metrics)",
                               "orient": "bottom", "columns": 2, "symbolLimit": 0, "labelLimit": 330,
                               "titleLimit": 600}),
        "order": field("order"),
        "tooltip": [tip("run", "run", "nominal"), tip("component", "component", "nominal"),
                    tip("in_kafka", "in Kafka's request metrics", "nominal"), tip("mean_ms", "mean (ms)", fmt=".1f"),
                    tip("share", "share of client latency", fmt=".0%"), tip("requests", "completed requests")]},
                where=where)
    bars.update(width=width, height={"step": 26},
                title=title_of("Where a request's time goes",
                               "mean per component; orange parts happen before Kafka starts its clock"))
    if percentiles is None:
        return bars
    dots = unit(percentiles, {"type": "point", "filled": True, "size": 70}, {
        "y": field("run", "nominal", sort=list(labels), title=None),
        "x": field("ms", title="latency (ms)"),
        "color": field("measure", "nominal", legend={"title": None, "orient": "bottom"},
                       scale={"domain": ["client latency (not in Kafka metrics)", "TotalTimeMs (Kafka)"],
                              "range": ["#e6550d", "#2171b5"]}),
        "shape": field("percentile", "nominal", legend={"title": None, "orient": "bottom"}),
        "tooltip": [tip("run", "run", "nominal"), tip("measure", "measure", "nominal"),
                    tip("percentile", "percentile", "nominal"), tip("ms", "ms", fmt=".1f")]}, where=where)
    dots.update(width=width, height={"step": 26},
                title=title_of("What clients wait vs what the broker reports",
                               "p50, p95, p99: client latency (created -> response sent) and Kafka's TotalTimeMs"))
    return {"vconcat": [bars, dots], "spacing": 12, "resolve": {"scale": {"color": "independent"}}}


@returns_chart
def latency_chart(runs, window=None, *, width: int = style.WIDTH, percentiles: bool = True) -> dict:
    """Per run, a stacked bar of the mean time per request in each stage, the stages before
    ``startTimeNanos`` (invisible to every broker request metric) in orange; below it, client
    latency percentiles against Kafka's TotalTimeMs."""
    runs = _as_runs(runs)
    frame = pd.concat([latency_frame(r, k, window) for k, r in runs.items()], ignore_index=True)
    pct = pd.concat([percentile_frame(r, k, window) for k, r in runs.items()],
                    ignore_index=True) if percentiles else None
    return latency_spec(frame, pct, list(runs), width)


# -- throughput -------------------------------------------------------------------------------
def throughput_frame(run, label: str = ONE_RUN, window=None, bins: int = THROUGHPUT_BINS) -> pd.DataFrame:
    """run, what ("offered" or "completed"), time_s (bin start), mb_per_s: bytes created by
    clients and bytes of requests whose response was sent, per second, per time bin."""
    lo, hi = _window(run, window)
    width = max(1, -(-(hi - lo) // bins))
    edges = np.arange(lo, hi + width, width)
    df = run.requests
    rows = []
    seconds = np.diff(np.minimum(edges, hi)) / 1000.0  # whole-ms edges: every bin lasts >= 1 ms
    for what, stamp in (("offered", "created"), ("completed", "end")):
        # a stamp not reached (NaN) compares false with every edge: numpy's histogram leaves it out
        sums, _ = np.histogram(df[stamp].to_numpy(), bins=edges, weights=df["size_bytes"].to_numpy())
        rate = sums / 1e6 / seconds
        rows.append(pd.DataFrame({"run": label, "what": what, "time_s": edges[:-1] / 1000.0, "mb_per_s": rate}))
    return pd.concat(rows, ignore_index=True)


def throughput_spec(frame: pd.DataFrame, span, labels, width: int = style.WIDTH, where: str | None = None) -> dict:
    spec = unit(frame, {"type": "line", "interpolate": "step-after"}, {
        "x": time_x("time_s", span), "y": field("mb_per_s", title="MB/s (10^6 bytes)"),
        "color": field("run", "nominal", scale=_run_scale(labels),
                       legend={"title": None, "orient": "top"} if len(labels) > 1 else None),
        "strokeDash": field("what", "nominal", scale={"domain": ["completed", "offered"], "range": [[1, 0], [4, 3]]},
                            legend={"title": None, "orient": "top"}),
        "tooltip": [tip("run", "run", "nominal"), tip("what", None, "nominal"), tip("time_s", "from (s)", fmt=".2f"),
                    tip("mb_per_s", "MB/s", fmt=".1f")]}, where=where)
    spec.update(width=width, height=160, title=title_of("Throughput", "bytes of completed requests per second "
                                                        "(solid) against what the clients sent (dashed)"))
    return spec


@returns_chart
def throughput_chart(runs, window=None, *, width: int = style.WIDTH) -> dict:
    """Completed MB/s over time per run, with the offered load dashed."""
    runs = _as_runs(runs)
    frame = pd.concat([throughput_frame(r, k, window) for k, r in runs.items()], ignore_index=True)
    span = tuple(x / 1000 for x in _window(next(iter(runs.values())), window))
    return throughput_spec(frame, span, list(runs), width)


# -- depleted pool ----------------------------------------------------------------------------
def depleted_frame(run, label: str = ONE_RUN, window=None) -> pd.DataFrame:
    """run, start_s, end_s, ms: the pool's dry spells (MemoryPoolDepleted -> MemoryPoolRecovered,
    the last one closed at the run's end), clipped to `window`; a row per spell."""
    lo, hi = _window(run, window)
    ev = run.events
    marks = ev[ev["kind"].isin(["MemoryPoolDepleted", "MemoryPoolRecovered"])]
    starts = marks.loc[marks["kind"] == "MemoryPoolDepleted", "time"].to_numpy()  # int64 (events.to_frame)
    ends = marks.loc[marks["kind"] == "MemoryPoolRecovered", "time"].to_numpy()
    ends = np.concatenate([ends, [run.end_ms] * (len(starts) - len(ends))])
    s, e = np.maximum(starts, lo), np.minimum(ends, hi)
    keep = e > s
    return pd.DataFrame({"run": label, "start_s": s[keep] / 1000.0, "end_s": e[keep] / 1000.0,
                         "ms": (e - s)[keep]})


def merge_spells(spells: pd.DataFrame, gap_s: float) -> pd.DataFrame:
    """Spells closer than `gap_s` merged into one bar (a chart cannot show gaps finer than a pixel);
    `ms` stays the depleted time inside the bar, `spells` counts what was merged."""
    if not len(spells):
        return spells.assign(spells=pd.Series(dtype=np.int64))
    start, end = spells["start_s"].to_numpy(), spells["end_s"].to_numpy()
    group = np.concatenate([[0], np.cumsum(start[1:] - end[:-1] >= gap_s)])  # a new bar after each gap
    g = spells.groupby(group)
    return pd.DataFrame({"run": g["run"].first(), "start_s": g["start_s"].min(), "end_s": g["end_s"].max(),
                         "ms": g["ms"].sum(), "spells": g["ms"].size()}).reset_index(drop=True)


def depleted_totals(run, label: str = ONE_RUN, window=None, spells: pd.DataFrame | None = None) -> pd.DataFrame:
    """run, text: the depleted share of the window (Kafka's MemoryPoolAvgDepletedPercent)."""
    lo, hi = _window(run, window)
    spells = depleted_frame(run, window=window) if spells is None else spells
    share = float(spells["ms"].sum()) / (hi - lo) if hi > lo else 0.0
    bound = run.summary["bound_bytes"]
    text = "unbounded: never depleted" if bound is None else f"depleted {share:.0%} of the time"
    return pd.DataFrame({"run": [label], "text": [text], "percent": [round(100 * share, 2)]})


def depleted_spec(spells: pd.DataFrame, totals: pd.DataFrame, span, labels, width: int = style.WIDTH,
                  where: str | None = None) -> dict:
    y = field("run", "nominal", sort=list(labels), title=None)
    rects = unit(spells, {"type": "bar", "color": style.ERROR_COLOR, "opacity": 0.75}, {
        "x": time_x("start_s", span), "x2": {"field": "end_s"}, "y": y,
        "tooltip": [tip("run", "run", "nominal"), tip("start_s", "from (s)", fmt=".3f"),
                    tip("end_s", "to (s)", fmt=".3f"), tip("ms", "depleted (ms)"),
                    tip("spells", "dry spells")]}, where=where)
    text = unit(totals, {"type": "text", "align": "left", "dx": 6, "fontSize": 11}, {
        "x": {"value": width}, "y": y, "text": field("text", "nominal"),
        "tooltip": [tip("percent", "MemoryPoolAvgDepletedPercent over the window", fmt=".2f")]}, where=where)
    return {"layer": [rects, text], "width": width, "height": {"step": 24},
            "title": title_of("When the pool was depleted",
                              "dry spells: from a refused allocation to the next allocation or release "
                              "(Kafka's MemoryPoolDepletedTimeTotal)")}


@returns_chart
def depleted_chart(runs, window=None, *, width: int = style.WIDTH) -> dict:
    """One strip per run: a red bar for each dry spell (those less than a pixel apart merged),
    and the share of time depleted."""
    runs = _as_runs(runs)
    spells = {k: depleted_frame(r, k, window) for k, r in runs.items()}
    totals = pd.concat([depleted_totals(r, k, window, spells[k]) for k, r in runs.items()], ignore_index=True)
    span = tuple(x / 1000 for x in _window(next(iter(runs.values())), window))
    gap = (span[1] - span[0]) / width  # one pixel
    bars = pd.concat([merge_spells(f, gap) for f in spells.values()], ignore_index=True)
    return depleted_spec(bars, totals, span, list(runs), width)


# -- fairness ---------------------------------------------------------------------------------
def fairness_frame(run, label: str = ONE_RUN) -> pd.DataFrame:
    """run, position (connection order), client, thread, sent, completed, ratio, wait_s: one row
    per client (`NetworkRun.clients`)."""
    c = run.clients
    return pd.DataFrame({"run": label, "position": range(len(c)), "client": c["client"],
                         "thread": [f"network-thread-{p}" for p in c["processor"]], "sent": c["sent"],
                         "completed": c["completed"], "ratio": c["completion_ratio"].round(4),
                         "wait_s": c["memory_wait_ms"] / 1000.0})  # whole ms: exact to 3 decimals


def fairness_totals(run, label: str = ONE_RUN) -> pd.DataFrame:
    s = run.summary
    jain = "n/a" if s["jain_index"] is None else f"{s['jain_index']:.3f}"
    return pd.DataFrame({"run": [label], "text": [f"{label}: Jain index {jain}, {s['starved_clients']} starved"]})


def fairness_spec(frame: pd.DataFrame, totals: pd.DataFrame, labels, threads, width: int = style.WIDTH,
                  where: str | None = None) -> dict:
    bars = unit(frame, "bar", {
        "x": field("position", "ordinal", title="client (connection order)",
                   axis={"labels": False, "ticks": False}),
        "y": field("ratio", title="completed / sent", scale={"domain": [0, 1]}),
        "color": field("thread", "nominal", title="network thread",
                       scale={"domain": list(threads), "scheme": "tableau10"}, legend={"orient": "right"}),
        "tooltip": [tip("client", "client", "nominal"), tip("thread", "network thread", "nominal"), tip("sent"),
                    tip("completed"), tip("ratio", "completed / sent", fmt=".2f"),
                    tip("wait_s", "time muted for memory (s)", fmt=".1f")]})
    text = unit(totals, {"type": "text", "align": "left", "baseline": "top", "fontSize": 11, "dy": -14},
                {"x": {"value": 0}, "y": {"value": 0}, "text": field("text", "nominal")})
    views = []
    for label in labels:
        sel = f"datum.run == {_quote(label)}" + (f" && {where}" if where else "")
        views.append({"layer": [{**bars, "transform": [{"filter": sel}]}, {**text, "transform": [{"filter": sel}]}],
                      "width": width, "height": 90})
    return {"vconcat": views, "spacing": 20,
            "title": title_of("Fairness: share of each client's requests served",
                              "one bar per client; a client at 0 was starved")}


def _quote(text: str) -> str:
    return "'" + str(text).replace("\\", "\\\\").replace("'", "\\'") + "'"


@returns_chart
def fairness_chart(runs, window=None, *, width: int = style.WIDTH) -> dict:
    """Per run, completed/sent for every client in connection order, coloured by network thread
    (`window` is accepted so the explorer can call every chart alike, and ignored)."""
    runs = _as_runs(runs)
    frame = pd.concat([fairness_frame(r, k) for k, r in runs.items()], ignore_index=True)
    totals = pd.concat([fairness_totals(r, k) for k, r in runs.items()], ignore_index=True)
    threads = sorted(set(frame["thread"]), key=lambda t: int(t.rsplit("-", 1)[1]))
    return fairness_spec(frame, totals, list(runs), threads, width)


# -- key numbers ------------------------------------------------------------------------------
def _mib(v) -> str:
    return "unbounded" if v is None else f"{v / MiB:,.2f} MiB"


def _ms(v) -> str:
    return "n/a" if v is None else f"{v:,.0f} ms"


#: (label, function of the summary -> text) in display order.
KEY_NUMBERS = (
    ("queued.max.request.bytes", lambda s: _mib(s["bound_bytes"])),
    ("peak request memory", lambda s: _mib(s["peak_memory_bytes"])),
    ("time pool depleted", lambda s: f"{s['memory_pool_avg_depleted_percent']:.1f} %"),
    ("throughput", lambda s: f"{s['throughput_mb_per_s']:,.1f} of {s['offered_mb_per_s']:,.1f} MB/s offered"),
    ("requests completed", lambda s: f"{s['requests_completed']:,} of {s['requests_sent']:,}"),
    ("client p99 latency", lambda s: _ms(s["client_latency_ms"]["p99"])),
    ("Kafka TotalTimeMs p99", lambda s: _ms(s["kafka_request_metrics_ms"]["TotalTimeMs"]["p99"])),
    ("memory wait p99 (not in Kafka metrics)", lambda s: _ms(s["not_in_kafka_metrics_ms"]["memory_wait_ms"]["p99"])),
    ("network threads blocked (queue full)", lambda s: _ms(s["processor_blocked_ms"])),
    ("fairness (Jain index)", lambda s: "n/a" if s["jain_index"] is None else f"{s['jain_index']:.3f}"),
    ("starved clients", lambda s: f"{s['starved_clients']}"),
)


def key_numbers(summary: dict) -> list[tuple[str, str]]:
    """[(label, text)] of a `NetworkRun.summary`, for the explorers."""
    return [(label, fn(summary)) for label, fn in KEY_NUMBERS]


def key_frame(summary: dict) -> pd.DataFrame:
    pairs = key_numbers(summary)
    return pd.DataFrame({"order": range(len(pairs)), "label": [p[0] for p in pairs], "value": [p[1] for p in pairs]})


@returns_chart
def key_numbers_chart(run, window=None, *, title: str | None = "Key numbers") -> dict:
    """A run's key numbers as a text chart (whole run; `window` ignored)."""
    return summary_spec(key_frame(run.summary), title=title)


CHARTS = {"memory": memory_chart, "latency": latency_chart, "throughput": throughput_chart,
          "depleted": depleted_chart, "fairness": fairness_chart, "summary": key_numbers_chart}


# -- explorer knobs ---------------------------------------------------------------------------
_BYTES = (-1, MiB, 2 * MiB, 5 * MiB, 10 * MiB, 20 * MiB, 50 * MiB, 100 * MiB, 200 * MiB)
#: Knobs of the network explorers: Kafka broker configs, plus the first client group's workload
#: (``max.request.size`` is the producer config that caps a request; sizes are drawn uniformly
#: from the group's low end up to it).
NETWORK_KNOBS: dict[str, Knob] = {k.name: k for k in (
    Knob("queued.max.request.bytes", "queued.max.request.bytes", "steps", options=_BYTES,
         doc="KIP-72 memory bound for requests read and not yet handled; -1 (default): unbounded"),
    Knob("socket.request.max.bytes", "socket.request.max.bytes", "steps", options=(MiB, 10 * MiB, 104_857_600),
         doc="largest request the broker accepts; queued.max.request.bytes must be >= it"),
    Knob("queued.max.requests", "queued.max.requests", "steps", options=(1, 2, 5, 10, 16, 50, 100, 500),
         doc="capacity of the request queue; full: network threads block"),
    Knob("num.network.threads", "num.network.threads", "int", 1, 16, 1, doc="network (Processor) threads"),
    Knob("num.io.threads", "num.io.threads", "int", 1, 32, 1, doc="request handler (I/O) threads"),
    Knob("producers", "producers", "int", 1, 200, 1, doc="clients in the first client group"),
    Knob("max.request.size", "max.request.size (producer)", "steps",
         options=(10_000, 100_000, 500_000, MiB, 5 * MiB, 10 * MiB),
         doc="largest request a producer sends; sizes are uniform from the group's low end up to it"),
    Knob("requests.per.s", "requests/s per producer", "steps", options=(0.5, 1, 2, 5, 10, 20, 50),
         doc="mean request rate of each client of the first group"),
    Knob("shuffle.on.low.memory", "shuffle on low memory (not a config)", "bool",
         doc="Kafka shuffles read order when memory is low; off shows the starvation it prevents"),
)}
_BROKER = ("queued.max.request.bytes", "socket.request.max.bytes", "queued.max.requests", "num.network.threads",
           "num.io.threads")


def check_network_names(names) -> None:
    unknown = [n for n in names if n not in NETWORK_KNOBS]
    if unknown:
        raise ConfigError(f"unknown network explorer setting(s) {unknown}; known: {', '.join(NETWORK_KNOBS)}")


def network_current(name: str, scenario: NetworkScenario) -> Any:
    """The value a knob shows for a scenario (None: a config absent in its Kafka version)."""
    group = scenario.clients[0]
    if name in _BROKER:
        return scenario.broker_config[name]
    return {"producers": group.count, "max.request.size": group.max_size, "requests.per.s": group.rate_per_s,
            "shuffle.on.low.memory": scenario.shuffle_on_low_memory}[name]


def network_scenario_with(base: NetworkScenario, values: dict) -> NetworkScenario:
    """`base` with the given knob values applied (ConfigError with Kafka's wording if invalid)."""
    check_network_names(values)
    broker = {name: values[name] for name in _BROKER if name in values}
    group = base.clients[0]
    changes = {}
    if "producers" in values:
        changes["count"] = values["producers"]
    if "requests.per.s" in values:
        changes["rate_per_s"] = values["requests.per.s"]
    if "max.request.size" in values:
        high = values["max.request.size"]
        low = group.size_bytes if isinstance(group.size_bytes, int) else group.size_bytes[0]
        changes["size_bytes"] = (min(low, high), high)
    clients = (dataclasses.replace(group, **changes), *base.clients[1:])
    shuffle = values.get("shuffle.on.low.memory")
    extra = {} if shuffle is None else {"shuffle_on_low_memory": bool(shuffle)}
    return base.replace(broker=broker, clients=clients, **extra)


# -- the explorer without a kernel ------------------------------------------------------------
GRID_CHARTS = ("memory", "latency", "fairness", "summary")


@returns_chart
def network_grid_explorer(base: NetworkScenario, grid: dict, *, charts=GRID_CHARTS, width: int = style.WIDTH,
                          title: str | None = None) -> dict:
    """Simulate `base` at every combination of `grid` ({knob: [values]}, names in NETWORK_KNOBS)
    and return one chart whose sliders pick the run shown: no kernel needed.

    charts: any of "memory", "latency", "fairness", "summary", top to bottom. A grid point that
    Kafka would reject (e.g. a pool smaller than ``socket.request.max.bytes``) shows Kafka's error.
    """
    check_network_names(grid)
    points, columns = grid_points(grid, charts, GRID_CHARTS)
    parts: dict[str, list] = {k: [] for k in ("memory", "bounds", "latency", "fairness", "summary")}
    threads: set[str] = set()
    points_per_run = max(40, MEMORY_POINTS * 12 // len(points))
    for keys, run, error in grid_runs(grid, points, columns,
                                      lambda values: simulate_network(network_scenario_with(base, values))):
        if error is not None:
            parts["summary"].append(error.assign(**keys))
            continue
        parts["memory"].append(memory_frame(run, "run", points=points_per_run).assign(**keys))
        parts["bounds"].append(bound_frame(run, "run").assign(**keys))
        parts["latency"].append(latency_frame(run, "run").assign(**keys))
        if "fairness" in charts:
            fair = fairness_frame(run, "run")
            threads |= set(fair["thread"])
            parts["fairness"].append(fair.assign(**keys))
        parts["summary"].append(key_frame(run.summary).assign(**keys))
    frames = {k: pd.concat(v, ignore_index=True) for k, v in parts.items() if v}
    for kind, frame in frames.items():
        if len(frame) > MAX_ROWS:
            raise ValueError(f"the grid's {kind} table has {len(frame)} rows (> {MAX_ROWS}): use fewer grid points")
    where = sliders.matches(grid)
    span = (0.0, base.duration_ms / 1000)
    params, shown = sliders.controls([(name, grid[name], NETWORK_KNOBS[name].label, network_current(name, base), None)
                                      for name in grid], width)
    views = [shown]
    for chart in charts:
        if chart == "memory" and "memory" in frames:
            bounds = frames.get("bounds", pd.DataFrame({"run": [], "what": [], "mib": []}))
            view = memory_spec(frames["memory"], bounds, span, ["run"], width, where)
            view["title"] = title_of("Request memory held by the broker (peak per time bin)")
            views.append(view)
        elif chart == "latency" and "latency" in frames:
            views.append(latency_spec(frames["latency"], None, ["run"], width, where))
        elif chart == "fairness" and "fairness" in frames:
            threads_sorted = sorted(threads, key=lambda t: int(t.rsplit("-", 1)[1]))
            view = fairness_spec(frames["fairness"], pd.DataFrame({"run": [], "text": []}), ["run"],
                                 threads_sorted, width, where)
            views.append(view["vconcat"][0] | {"title": view["title"]})
        elif chart == "summary":
            views.append(summary_spec(frames["summary"], where))
    heading = title or "Explore: " + ", ".join(grid)
    independent = {"color": "independent", "strokeDash": "independent"}
    return {"vconcat": views, "spacing": 14, "params": params,
            "resolve": {"scale": independent, "legend": independent},
            "title": title_of(heading, sliders.hint(len(points)))}

