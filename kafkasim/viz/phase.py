"""Charts of a parameter sweep's results (one row per combination of swept values, e.g.
`kafkasim.analysis.spark.by_parameters(...).toPandas()`): phase diagrams as heatmaps, and the same
heatmaps behind bound sliders, so that a static page can walk through a sweep of thousands of
runs with no kernel. They read only the aggregated table, never a run."""

from __future__ import annotations

import math

import pandas as pd

from kafkasim.viz.sliders import column as param_name, params as slider_params
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

#: One sequential scheme: every metric charted here is worse when higher.
SCHEME = "orangered"
#: Cells where the metric is exactly zero (no storm at all), told apart from small values.
ZERO_COLOR = "#eeeeee"


def _label(name: str, labels: dict | None) -> str:
    return (labels or {}).get(name, name)


def _axis(name: str, labels: dict | None, values) -> dict:
    """An ordinal axis of swept values in their numeric order; a duration in ms whose values are
    all whole seconds is labelled in seconds (say so in its label: "poll timeout (s)")."""
    values = sorted(values)
    axis = field(name, "ordinal", title=_label(name, labels), sort=values)
    numeric = pd.api.types.is_numeric_dtype(pd.Series(values))
    if name.endswith("_ms") and numeric and all(v >= 1000 and v % 1000 == 0 for v in values):
        axis["axis"] = {"labelExpr": "datum.value / 1000", "labelAngle": 0}
    return axis


def _heatmap(frame: pd.DataFrame, metric: str, x: str, y: str, *, labels=None, where=None, column=None,
             fmt: str = ",.3~g", size: int = 26, legend: dict | None = None) -> dict:
    """One heatmap view: x by y cells coloured by `metric`, on a colour scale fixed to the whole
    table (so that moving a slider never rescales it)."""
    high = float(frame[metric].max()) if len(frame) else 1.0
    encoding = {
        "x": _axis(x, labels, frame[x].unique()),
        "y": {**_axis(y, labels, frame[y].unique()), "sort": "descending"},
        # A square-root scale, so that a little is visibly more than nothing; exactly zero is grey.
        "color": field(metric, scale={"scheme": SCHEME, "type": "sqrt", "domain": [0, high if high > 0 else 1]},
                       title=_label(metric, labels),
                       # titlePadding: the top label of a vertical colour bar sits half a line above it.
                       legend={"orient": "right", "format": fmt, "titlePadding": 10, **(legend or {})},
                       condition={"test": f"datum['{metric}'] === 0", "value": ZERO_COLOR}),
        "tooltip": [tip(c, _label(c, labels), "nominal" if frame[c].dtype == object else "quantitative",
                        None if frame[c].dtype == object else ",.4~g")
                    for c in dict.fromkeys([x, y, *(column or []), metric, "runs"]) if c in frame],
    }
    spec = unit(frame, {"type": "rect", "stroke": "white", "strokeWidth": 0.5},
                encoding, where=where, width={"step": size}, height={"step": size})
    return spec


@returns_chart
def phase_diagram(frame: pd.DataFrame, metric: str, *, x: str, y: str, column: str | None = None,
                  row: str | None = None, labels: dict | None = None, title: str | None = None,
                  subtitle: str | None = None) -> dict:
    """A heatmap of `metric` over two swept parameters (`x`, `y`), one panel per value of `column`
    (and of `row`). `frame` has one row per cell (other parameters already fixed or aggregated);
    `labels` maps column names to axis titles."""
    spec = _heatmap(frame, metric, x, y, labels=labels, column=[c for c in (column, row) if c])
    for channel, name in (("column", column), ("row", row)):
        if name:
            spec["encoding"][channel] = field(name, "ordinal", title=_label(name, labels),
                                              sort=sorted(frame[name].unique()))
    # Each panel repeats its axis titles: a panel at least as wide (tall) as its x (y) title, so
    # that the titles of neighbouring panels never print over each other.
    spec["width"] = {"step": _step(_label(x, labels), frame[x].nunique()) if column else 18}
    spec["height"] = {"step": _step(_label(y, labels), frame[y].nunique()) if row else 18}
    spec["title"] = title_of(title or _label(metric, labels), subtitle)
    return spec


#: Axis titles: 11-px bold text, at most this many pixels a character; and a gap between panels.
TITLE_CHAR_PX = 7
PANEL_GAP_PX = 10


def _step(axis_title: str, cells: int, least: int = 18) -> int:
    """The cell size (px) at which `cells` cells are as long as `axis_title`."""
    return max(least, math.ceil((len(axis_title) * TITLE_CHAR_PX - PANEL_GAP_PX) / max(cells, 1)))


@returns_chart
def sweep_explorer(frame: pd.DataFrame, metrics: list[str], *, x: str, y: str, sliders: dict,
                   labels: dict | None = None, initial: dict | None = None, title: str | None = None) -> dict:
    """The sweep without a kernel: one heatmap per metric side by side, all filtered by the same
    bound inputs. `sliders` maps a parameter column to its values (a range slider for evenly spaced
    numbers, else radio buttons or a drop-down); `initial` gives their starting values.
    Every combination is embedded once: the views share one table (Altair's top-level datasets)."""
    missing = [c for c in [x, y, *metrics, *sliders] if c not in frame]
    if missing:
        raise ValueError(f"columns {missing} are not in the table (it has {list(frame.columns)})")
    params, clauses = [], []
    for name, values in sliders.items():
        values = sorted(values)
        col = param_name(name)
        start = (initial or {}).get(name, values[0])
        params += slider_params(name, values, _label(name, labels), start)
        clauses.append(f"datum['{name}'] == {col}")
    where = " && ".join(clauses)
    # Narrow views with their colour bar below, so that three fit side by side on a book page.
    below = {"orient": "bottom", "direction": "horizontal", "title": None, "gradientLength": 120}
    views = [_heatmap(frame, m, x, y, labels=labels, where=where, column=list(sliders), size=20, legend=below)
             for m in metrics]
    for view, metric in zip(views, metrics):
        view["title"] = title_of(_label(metric, labels))
    return {"hconcat": views, "spacing": 24, "params": params, "resolve": {"scale": {"color": "independent"}},
            "title": title_of(title or "Explore the sweep",
                              f"{len(frame):,} combinations precomputed; move the inputs below the chart")}
