"""Charts of fetch sizing (kafkasim.broker.fetch_sizing): how big one fetch response gets against the signed
32-bit size it is written with (KAFKA-1196), what a consumer JVM must hold, where the overflow
starts, and a calculator that flags the overflow before it happens, without a kernel.

They read the calculators' tables (`fetch_sizing`, `sizing_for_message`, their dict rows); byte
counts are shown in MiB/GiB (2**20 / 2**30 bytes, which the seed writes "MB"/"GB").
"""

from __future__ import annotations

import itertools

import pandas as pd

from kafkasim.core.java import INT_MAX
from kafkasim.broker.fetch_sizing import PARTITION_HEADER_BYTES, GiB, MiB, sizing_for_message, wire_size
from kafkasim.viz import sliders, style
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

OK_COLOR, OVER_COLOR = style.STATE_COLORS["consuming"], style.ERROR_COLOR
LIMIT_TEXT = "Int.MaxValue = 2,147,483,647 bytes (2 GiB - 1)"


def human(n) -> str:
    """Bytes as the seed counts them: MiB below 1 GiB, else GiB."""
    if n is None or n != n:
        return "n/a"
    return f"{n / GiB:,.2f} GiB" if n >= GiB else f"{n / MiB:,.1f} MiB"


def verdict(row) -> str:
    """One line for a calculator row: overflow (with the wrapped size field), stuck message, or ok."""
    if row["overflow"]:
        return f"OVERFLOW: the 32-bit size wraps to {int(row['size_field']):,}"
    if not row["ok"]:
        return "blocked: " + str(row["message"]).split(":")[0]
    return "ok"


def size_frame(sizing: pd.DataFrame) -> pd.DataFrame:
    """version, client, bytes (the worst-case response on the wire, else the bounded data), text,
    overflow, verdict, per_request, heap_bytes, message: one row per row of a `fetch_sizing` table."""
    size = sizing["wire_size_bytes"].fillna(sizing["response_bytes"]).astype(int)   # exact bytes
    return pd.DataFrame({
        "version": sizing["kafka_version"].astype(str), "client": sizing["consumer_type"].astype(str),
        "bytes": size, "text": [human(b) for b in size],
        "overflow": sizing["overflow"], "verdict": [verdict(r) for _, r in sizing.iterrows()],
        "per_request": sizing["partitions_per_request"], "heap_bytes": sizing["heap_bytes"],
        "message": sizing["message"].str[:300]})


def _size_layers(frame: pd.DataFrame, where=None, height: int = 240) -> list[dict]:
    order = list(dict.fromkeys(frame["version"]))
    x = field("version", "ordinal", sort=order, title="Kafka version", axis={"labelAngle": 0})
    y = field("bytes", scale={"type": "log", "domain": [MiB, 256 * GiB]}, title="worst-case fetch response (bytes)",
              axis={"values": [MiB, 10 * MiB, 100 * MiB, GiB, 10 * GiB, 100 * GiB],
                    "labelExpr": "datum.value >= 1073741824 ? format(datum.value / 1073741824, ',') + ' GiB'"
                                 " : format(datum.value / 1048576, ',') + ' MiB'"})
    color = field("overflow", "nominal", scale={"domain": [False, True], "range": [OK_COLOR, OVER_COLOR]},
                  legend={"title": "over Int.MaxValue", "orient": "right"})
    tips = [tip("version", "Kafka", "nominal"), tip("client", "client", "nominal"), tip("text", "response", "nominal"),
            tip("per_request", "partitions in one request"), tip("verdict", "verdict", "nominal")]
    if "message" in frame:  # the calculator drops it (one line per version says it, smaller pages)
        tips.append(tip("message", "calculator says", "nominal"))
    bars = unit(frame, {"type": "bar", "width": {"band": 0.6}},
                {"x": x, "y": y, "y2": {"datum": MiB}, "color": color, "tooltip": tips}, where=where, height=height)
    text = unit(frame, {"type": "text", "dy": -6, "fontSize": 11},
                {"x": x, "y": field("bytes", scale={"type": "log"}), "text": field("text", "nominal")}, where=where)
    limit = pd.DataFrame({"bytes": [INT_MAX], "label": [LIMIT_TEXT]})
    rule = unit(limit, {"type": "rule", "color": style.REMOVAL_COLOR, "strokeDash": [5, 3]},
                {"y": field("bytes"), "tooltip": [tip("label", "limit", "nominal")]})
    label = unit(limit, {"type": "text", "align": "right", "baseline": "top", "dx": -2, "dy": 2, "fontSize": 10},
                 {"y": field("bytes"), "x": {"value": "width"}, "text": field("label", "nominal")})
    return [bars, text, rule, label]


@returns_chart
def response_sizes(sizing: pd.DataFrame, *, width: int = 420, height: int = 240,
                   title: str | None = "One fetch response, worst case") -> dict:
    """Bars of the worst-case fetch response per Kafka version (a `fetch_sizing` table), on a log
    scale, against Int.MaxValue: red bars overflow the 32-bit size field (KAFKA-1196)."""
    spec = {"layer": _size_layers(size_frame(sizing), height=height), "width": width}
    if title:
        spec["title"] = title_of(title, "every partition of the request fully behind; dashed: the size limit")
    return spec


@returns_chart
def heap_chart(cases: dict, *, max_heap_bytes: int | None = None, width: int = 420,
               title: str | None = "Fetch memory in one consumer JVM") -> dict:
    """Horizontal bars of heap bytes per case ({label: bytes}); `max_heap_bytes` draws the -Xmx."""
    frame = pd.DataFrame({"case": list(cases), "gib": [b / GiB for b in cases.values()],
                          "text": [human(b) for b in cases.values()]})
    y = field("case", "nominal", sort=list(cases), title=None, axis={"labelLimit": 320})
    layers = [unit(frame, {"type": "bar", "color": "#4c78a8"},
                   {"y": y, "x": field("gib", title="GiB"), "tooltip": [tip("case", "case", "nominal"),
                                                                       tip("text", "memory", "nominal")]}),
              unit(frame, {"type": "text", "align": "left", "dx": 4}, {"y": y, "x": field("gib"),
                                                                       "text": field("text", "nominal")})]
    if max_heap_bytes:
        limit = pd.DataFrame({"gib": [max_heap_bytes / GiB], "label": [f"-Xmx {human(max_heap_bytes)}"]})
        layers.append(unit(limit, {"type": "rule", "color": style.REMOVAL_COLOR, "strokeDash": [5, 3]},
                           {"x": field("gib"), "tooltip": [tip("label", "heap", "nominal")]}))
    spec = {"layer": layers, "width": width, "height": 34 * len(cases)}
    if title:
        spec["title"] = title_of(title, "bytes the Kafka client may hold at once")
    return spec


def boundary_frame(fetch_mib=(1, 2, 5, 10, 20, 50, 100, 200, 300, 500, 1000)) -> pd.DataFrame:
    """fetch_mib, partitions: the most fully-lagging partitions one 0.8.2 fetch request can carry
    before its size passes Int.MaxValue, for each fetch.message.max.bytes (in MiB)."""
    return pd.DataFrame({"fetch_mib": list(fetch_mib), "partitions": [_most_partitions(m) for m in fetch_mib]})


def _most_partitions(fetch_mib):
    """The most partitions of `fetch_mib` MiB each whose 0.8.2 response size stays within Int.MaxValue
    (a number, or a Series of them)."""
    return (INT_MAX - wire_size(0, 0)) // (PARTITION_HEADER_BYTES + fetch_mib * MiB)


@returns_chart
def overflow_boundary(marks: pd.DataFrame | None = None, *, width: int = 420, height: int = 280,
                      title: str | None = "Where a 0.8.2 fetch response overflows") -> dict:
    """The overflow boundary: partitions per fetch request against fetch.message.max.bytes (log-log);
    below the line the response fits, above it the size wraps. `marks` (label, fetch_mib, partitions)
    places cases on the map, red when over."""
    frame = boundary_frame()
    x = field("fetch_mib", scale={"type": "log"}, title="fetch.message.max.bytes (MiB)")
    y = field("partitions", scale={"type": "log"}, title="partitions in one fetch request")
    layers = [unit(frame, {"type": "line", "color": "#333", "point": True, "interpolate": "monotone"},
                   {"x": x, "y": y, "tooltip": [tip("fetch_mib", "fetch.message.max.bytes (MiB)"),
                                                tip("partitions", "at most, before the overflow")]},
                   width=width, height=height)]
    if marks is not None and len(marks):
        marked = marks.assign(over=marks["partitions"] > _most_partitions(marks["fetch_mib"]))
        color = field("over", "nominal", scale={"domain": [False, True], "range": [OK_COLOR, OVER_COLOR]},
                      legend={"title": "overflows", "orient": "right"})
        layers += [unit(marked, {"type": "point", "filled": True, "size": 90},
                        {"x": x, "y": y, "color": color, "tooltip": [tip("label", "case", "nominal"),
                                                                     tip("fetch_mib", "MiB per partition"),
                                                                     tip("partitions", "partitions per request")]}),
                   unit(marked, {"type": "text", "align": "left", "dx": 8, "fontSize": 11},
                        {"x": x, "y": y, "text": field("label", "nominal")})]
    spec = {"layer": layers}
    if title:
        spec["title"] = title_of(title, "below the line the worst-case response fits in Int.MaxValue")
    return spec


# -- the kernel-free calculator ------------------------------------------------------------------
#: Calculator settings: label for the control.
CALCULATOR_SETTINGS = {"partitions": "partitions of the topic", "consumers": "consumers in the group",
                       "message_mib": "largest message (MiB)", "leader_brokers": "leader brokers"}


def calculator_frames(grid: dict, *, versions=("0.8.2", "0.9", "0.10.1", "3.7"),
                      consumers_per_jvm: str = "all") -> tuple[pd.DataFrame, pd.DataFrame]:
    """`sizing_for_message` at every point of `grid` (keys of CALCULATOR_SETTINGS, message sizes in
    MiB); (sizes, verdicts): one row per point and version, with a column per setting. With
    consumers_per_jvm="all" every consumer of the group runs in one JVM (the seed's book-keeping
    process), else one per JVM."""
    unknown = sorted(set(grid) - set(CALCULATOR_SETTINGS))
    missing = sorted(set(CALCULATOR_SETTINGS) - set(grid))
    if unknown or missing:
        raise ValueError(f"the grid needs exactly {list(CALCULATOR_SETTINGS)}; unknown {unknown}, missing {missing}")
    names = list(CALCULATOR_SETTINGS)
    parts = []
    for point in itertools.product(*(grid[n] for n in names)):
        v = dict(zip(names, point))
        sizing = sizing_for_message(int(v["message_mib"] * MiB), versions=versions, partitions=v["partitions"],
                                    consumers=v["consumers"], leader_brokers=v["leader_brokers"],
                                    consumers_per_jvm=v["consumers"] if consumers_per_jvm == "all" else 1)
        parts.append(size_frame(sizing).assign(**{sliders.column(n): x for n, x in v.items()}))
    sizes = pd.concat(parts, ignore_index=True)
    verdicts = sizes.assign(line=[f"{v}: {t} per response, {verdict}; fetch memory {human(h)}"
                                  for v, t, verdict, h in zip(sizes["version"], sizes["text"], sizes["verdict"],
                                                              sizes["heap_bytes"])])
    return sizes.drop(columns=["message", "heap_bytes"]), verdicts[["version", "line", "overflow",
                                                      *[sliders.column(n) for n in names]]]


@returns_chart
def fetch_calculator(grid: dict, *, initial: dict | None = None, width: int = 420,
                     title: str | None = "Fetch sizing calculator") -> dict:
    """The calculator without a kernel: sliders for partitions, consumers, the largest message and
    the leader brokers over a precomputed grid; bars per Kafka version against Int.MaxValue, and
    one line per version saying whether the response overflows (and what the size field wraps to)."""
    sizes, verdicts = calculator_frames(grid)
    names = list(CALCULATOR_SETTINGS)
    where = sliders.matches(names)
    params, shown = sliders.controls([(n, list(grid[n]), CALCULATOR_SETTINGS[n], (initial or {}).get(n), None)
                                      for n in names], width)
    chart = {"layer": _size_layers(sizes, where), "width": width,
             "title": title_of("Worst-case fetch response", "red: over the 32-bit size limit")}
    order = {v: i for i, v in enumerate(dict.fromkeys(verdicts["version"]))}
    lines = verdicts.assign(order=[order[v] for v in verdicts["version"]])
    text = unit(lines, {"type": "text", "align": "left", "fontSize": 12},
                {"x": {"value": 0}, "y": field("order", "ordinal", axis=None), "text": field("line", "nominal"),
                 "color": field("overflow", "nominal", scale={"domain": [False, True],
                                                              "range": ["#222222", OVER_COLOR]}, legend=None)},
                where=where, width=width, height=18 * len(order), view={"stroke": None})
    points = 1
    for n in names:
        points *= len(grid[n])
    return {"vconcat": [shown, chart, text], "spacing": 12, "params": params,
            "title": title_of(title or "", f"{sliders.hint(points, 'workloads')}; each version configured to carry "
                                           "the message")}
