"""The explorer without a kernel: simulate every combination of a small grid of settings when
the notebook executes, and return one Altair chart whose sliders (Vega-Lite params bound to
range, radio or select inputs) filter the precomputed tables. A reader of the static book page
moves the sliders and the timeline and the key numbers follow, with no Python behind them.

Only aggregated tables are embedded (merged state bands, down-sampled lag), so a 5 x 5 grid of
the default scenario stays well under Altair's 5,000-row guard. A grid point whose settings
Kafka would reject shows Kafka's error instead of a chart.
"""

from __future__ import annotations

import itertools
import re

import altair as alt
import pandas as pd

from ..errors import ConfigError
from ..scenario import simulate
from . import style, summary, tables
from .consumption import PANELS, panel_frames, panels_spec
from .settings import KNOBS, check_names, current, scenario_with
from .spec import returns_chart, title as title_of
from .timeline import MARKS, timeline_frames, timeline_spec

CHARTS = ("timeline", *PANELS, "summary")
MAX_POINTS = 64
MAX_ROWS = 5000


def _column(name: str) -> str:
    """A Vega-safe field and param name for a setting ("session.timeout.ms" -> "p_session_timeout_ms")."""
    return "p_" + re.sub(r"\W", "_", name)


def _binding(name: str, values: list, label: str | None = None) -> dict:
    """A slider for 3+ evenly spaced numbers, radio buttons for up to 4 choices, else a drop-down
    (labelled `label`, by default the knob's label)."""
    label = f"{label or KNOBS[name].label} "
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric and len(values) >= 3:
        ordered = sorted(values)
        steps = {round(b - a, 9) for a, b in zip(ordered, ordered[1:])}
        if len(steps) == 1:
            return {"input": "range", "min": ordered[0], "max": ordered[-1], "step": steps.pop(), "name": label}
    kind = "radio" if len(values) <= 4 else "select"
    return {"input": kind, "options": list(values), "labels": [str(v) for v in values], "name": label}


@returns_chart
def grid_explorer(base, grid: dict, *, charts=("timeline", "summary"), window=None, width: int = style.WIDTH,
                  summary_keys=summary.DEFAULT_KEYS, title: str | None = None) -> dict:
    """Simulate `base` at every combination of `grid` ({setting name: [values]}, names as in
    kafkasim.viz.settings.KNOBS) and return a chart with one slider per setting.

    charts: any of "timeline", "lag", "throughput", "duplicates", "summary", top to bottom.
    """
    check_names(grid)
    unknown = [c for c in charts if c not in CHARTS]
    if unknown or not charts:
        raise ValueError(f"charts must be a non-empty subset of {CHARTS}, got {charts!r}")
    points = list(itertools.product(*(list(v) for v in grid.values())))
    if not points or len(points) > MAX_POINTS:
        raise ValueError(f"the grid has {len(points)} combinations; give between 1 and {MAX_POINTS} "
                         f"(every one is simulated and embedded in the page)")
    columns = {name: _column(name) for name in grid}
    panels = tuple(c for c in charts if c in PANELS)
    collected: dict[str, list[pd.DataFrame]] = {}
    span_end = 0
    for point in points:
        values = dict(zip(grid, point))
        keys = {columns[n]: v for n, v in values.items()}
        try:
            run = simulate(scenario_with(base, values))
        except ConfigError as error:
            _add(collected, "summary", pd.DataFrame({"order": [0], "label": ["Kafka says"], "value": [str(error)]}),
                 keys)
            continue
        span_end = max(span_end, tables.window_ms(run, window)[1])
        if "timeline" in charts:
            for kind, frame in timeline_frames(run, window, merge_active=True).items():
                _add(collected, f"timeline.{kind}", frame, keys)
        if panels:
            max_points = max(20, 2400 // len(points))
            for kind, frame in panel_frames(run, window, panels, max_points).items():
                _add(collected, f"panels.{kind}", frame, keys)
        _add(collected, "summary", summary.summary_frame(run.summary, summary_keys), keys)
    frames = {kind: pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)
              for kind, parts in collected.items()}
    for kind, frame in frames.items():
        if len(frame) > MAX_ROWS:
            raise ValueError(f"the grid's {kind} table has {len(frame)} rows (> {MAX_ROWS}): use fewer grid "
                             f"points, a window, or fewer charts")
    where = " && ".join(f"datum.{col} == {col}" for col in columns.values())
    span = ((window[0] if window else 0) / 1000, (span_end or base.duration_ms) / 1000)
    parts = []
    for chart in charts:
        if chart == "timeline" and "timeline.states" in frames:
            sub = {kind.split(".", 1)[1]: frame for kind, frame in frames.items() if kind.startswith("timeline.")}
            members = tables.member_order(sub["states"]["member"])
            view = timeline_spec(sub, members, span, width, where)
            view["title"] = title_of("Members over time", MARKS)
            parts.append(view)
        elif chart == "summary":
            parts.append(summary.summary_spec(frames["summary"], where))
        elif chart == panels[0] and "panels.bands" in frames:
            sub = {kind.split(".", 1)[1]: frame for kind, frame in frames.items() if kind.startswith("panels.")}
            parts.append(panels_spec(sub, span, width, where))
    # Altair parameter objects (not dicts), so that Altair can lift them to the top level.
    params = [alt.param(name=col, value=_initial(base, name, grid[name]), bind=_binding(name, list(grid[name]))).param
              for name, col in columns.items()]
    heading = title or "Explore: " + ", ".join(grid)
    return {"vconcat": parts, "spacing": 14, "params": params,
            "title": title_of(heading, f"{len(points)} runs precomputed; move the sliders below the chart")}


def _add(collected: dict, kind: str, frame: pd.DataFrame, keys: dict) -> None:
    collected.setdefault(kind, []).append(frame.assign(**keys))


def _initial(base, name: str, values):
    """The slider's starting value: the base scenario's, when it is one of the grid's values."""
    try:
        value = current(name, base)
    except ConfigError:
        value = None
    return value if value in list(values) else list(values)[0]
