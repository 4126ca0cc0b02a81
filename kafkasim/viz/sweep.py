"""One number per run against one setting, over a sweep of runs (replicated over seeds): each run
a dot, the mean of each setting a line, and optionally a bound the reader can compute in advance.
For questions such as "how does the stop-the-world time grow with the group size?"."""

from __future__ import annotations

from typing import Callable

import pandas as pd

from kafkasim.viz import style
from kafkasim.viz.settings import current
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

DOT_COLOR = "#9ecae9"
MEAN_COLOR = "#1f5fa0"


@returns_chart
def sweep_chart(runs, x: str, metric: Callable, *, metric_title: str, log_x: bool = False,
                bound: tuple[str, float] | None = None, width: int = 460, height: int = 240,
                title: str | None = None) -> dict:
    """`metric(run)` of every run against the knob `x` (a name in kafkasim.viz.settings.KNOBS, read
    from each run's scenario). bound: (label, value) drawn as a dashed horizontal line."""
    runs = list(runs)
    if not runs:
        raise ValueError("sweep_chart() needs at least one run")
    frame = pd.DataFrame({"x": [float(current(x, r.scenario)) for r in runs],
                          "value": [float(metric(r)) for r in runs],
                          "seed": [r.scenario.seed for r in runs]})
    means = frame.groupby("x", as_index=False)["value"].mean()
    scale = {"type": "log" if log_x else "linear", "nice": False, "zero": False,
             "domain": [float(frame["x"].min()), float(frame["x"].max())]}
    x_enc = field("x", title=x, scale=scale, axis={"values": sorted(frame["x"].unique()), "grid": False})
    y_enc = field("value", title=metric_title)
    layers = [
        unit(frame, {"type": "point", "filled": True, "size": 40, "color": DOT_COLOR, "opacity": 0.9},
             {"x": x_enc, "y": y_enc, "tooltip": [tip("x", x), tip("seed"), tip("value", metric_title, fmt=",.2f")]}),
        unit(means, {"type": "line", "point": {"filled": True, "color": MEAN_COLOR}, "color": MEAN_COLOR},
             {"x": x_enc, "y": y_enc, "tooltip": [tip("x", x), tip("value", f"mean {metric_title}", fmt=",.2f")]}),
    ]
    if bound is not None:
        label, value = bound
        line = pd.DataFrame({"value": [float(value)], "label": [label]})
        layers += [unit(line, {"type": "rule", "color": style.ERROR_COLOR, "strokeDash": [5, 4]},
                        {"y": field("value"), "tooltip": [tip("label", "bound", "nominal")]}),
                   unit(line, {"type": "text", "color": style.ERROR_COLOR, "align": "left", "baseline": "bottom",
                               "dx": 4, "dy": -3, "fontSize": 11},
                        {"x": {"value": 0}, "y": field("value"), "text": field("label", "nominal")})]
    spec = {"layer": layers, "width": width, "height": height}
    if title:
        seeds = frame["seed"].nunique()
        spec["title"] = title_of(title, f"{len(runs)} runs, {seeds} seed{'s' if seeds > 1 else ''} per point; "
                                        f"dots: runs, line: mean")
    return spec
