"""The explorer without a kernel: simulate every combination of a small grid of settings when
the notebook executes, and return one Altair chart whose controls (Vega-Lite params bound to
inputs: a slider for a numeric setting, radio buttons or a drop-down for a category; see
kafkasim.viz.sliders) filter the precomputed tables. A reader of the static book page moves them
and the timeline and the key numbers follow, with no Python behind them; a bold line names the
run shown ("session.timeout.ms = 45000"), and a time slider replays the timeline up to an instant.

Only aggregated tables are embedded (merged state bands, down-sampled lag), so a 5 x 5 grid of
the default scenario stays well under Altair's 5,000-row guard. A grid point whose settings
Kafka would reject shows Kafka's error instead of a chart. A grid over ``group.protocol``
(classic, consumer) draws each point's own rebalance phases, the bands' legend listing both.
"""

from __future__ import annotations

import itertools

import pandas as pd

from kafkasim.core.errors import ConfigError
from kafkasim.scenario.world import simulate
from kafkasim.viz import sliders, style, summary, tables
from kafkasim.viz.consumption import PANELS, panel_frames, panels_spec
from kafkasim.viz.layers import scrubber as time_slider
from kafkasim.viz.settings import KNOBS, check_names, current, scenario_with
from kafkasim.viz.spec import returns_chart, title as title_of
from kafkasim.viz.style import PROTOCOLS
from kafkasim.viz.timeline import marks, timeline_frames, timeline_spec

CHARTS = ("timeline", *PANELS, "summary")
MAX_POINTS = 64
MAX_ROWS = 5000


def grid_points(grid: dict, charts, allowed) -> tuple[list[tuple], dict[str, str]]:
    """Every combination of `grid`'s values, and each setting's Vega field name; checks that
    `charts` is a non-empty subset of `allowed` and that the grid is small enough to embed."""
    unknown = [c for c in charts if c not in allowed]
    if unknown or not charts:
        raise ValueError(f"charts must be a non-empty subset of {allowed}, got {charts!r}")
    points = list(itertools.product(*(list(v) for v in grid.values())))
    if not points or len(points) > MAX_POINTS:
        raise ValueError(f"the grid has {len(points)} combinations; give between 1 and {MAX_POINTS} "
                         f"(every one is simulated and embedded in the page)")
    return points, {name: sliders.column(name) for name in grid}


def grid_runs(grid: dict, points, columns: dict, simulate_point):
    """Per grid point: (its field values, the run of `simulate_point(values)` or None, None or
    a key-numbers frame holding Kafka's message when the settings are rejected)."""
    for point in points:
        values = dict(zip(grid, point))
        keys = {columns[n]: v for n, v in values.items()}
        try:
            run, error = simulate_point(values), None
        except ConfigError as rejected:
            run, error = None, pd.DataFrame({"order": [0], "label": ["Kafka says"], "value": [str(rejected)]})
        yield keys, run, error


@returns_chart
def grid_explorer(base, grid: dict, *, charts=("timeline", "summary"), window=None, width: int = style.WIDTH,
                  summary_keys=summary.DEFAULT_KEYS, title: str | None = None, scrubber: bool = True) -> dict:
    """Simulate `base` at every combination of `grid` ({setting name: [values]}, names as in
    kafkasim.viz.settings.KNOBS) and return a chart with one control per setting.

    charts: any of "timeline", "lag", "throughput", "duplicates", "summary", top to bottom.
    scrubber: with a timeline, a slider over time that replays it up to the instant chosen.
    """
    check_names(grid)
    points, columns = grid_points(grid, charts, CHARTS)
    panels = tuple(c for c in charts if c in PANELS)
    collected: dict[str, list[pd.DataFrame]] = {}
    span_end = 0
    used: set[str] = set()  # the group protocols of the points
    for keys, run, error in grid_runs(grid, points, columns, lambda values: simulate(scenario_with(base, values))):
        if error is not None:
            _add(collected, "summary", error, keys)
            continue
        span_end = max(span_end, tables.window_ms(run, window)[1])
        protocol = tables.protocol(run)
        used.add(protocol)
        if "timeline" in charts:
            for kind, frame in timeline_frames(run, window, merge_active=True).items():
                if kind == "starts":  # which colour its ticks take when the grid sweeps group.protocol
                    frame = frame.assign(protocol=protocol)
                _add(collected, f"timeline.{kind}", frame, keys)
        if panels:
            max_points = max(20, 2400 // len(points))
            for kind, frame in panel_frames(run, window, panels, max_points).items():
                _add(collected, f"panels.{kind}", frame, keys)
        _add(collected, "summary", summary.summary_frame(run.summary, summary_keys), keys)
    frames = {kind: pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)
              for kind, parts in collected.items()}
    protocols = tuple(p for p in PROTOCOLS if p in used) or ("classic",)
    if len(protocols) == 1 and "timeline.starts" in frames:  # one protocol: one tick colour, no column
        frames["timeline.starts"] = frames["timeline.starts"].drop(columns="protocol")
    for kind, frame in frames.items():
        if len(frame) > MAX_ROWS:
            raise ValueError(f"the grid's {kind} table has {len(frame)} rows (> {MAX_ROWS}): use fewer grid "
                             f"points, a window, or fewer charts")
    where = sliders.matches(grid)
    span = ((window[0] if window else 0) / 1000, (span_end or base.duration_ms) / 1000)
    knobs = [(name, grid[name], KNOBS[name].label, base_value(base, name), None) for name in grid]
    params, shown = sliders.controls(knobs, width)
    parts = [shown]
    scrub = scrubber and "timeline.states" in frames and "timeline" in charts
    for chart in charts:
        if chart == "timeline" and "timeline.states" in frames:
            sub = {kind.split(".", 1)[1]: frame for kind, frame in frames.items() if kind.startswith("timeline.")}
            members = tables.member_order(sub["states"]["member"])
            view = timeline_spec(sub, members, span, width, where, protocols, scrub=scrub)
            view["title"] = title_of("Members over time", marks(protocols))
            parts.append(view)
        elif chart == "summary":
            parts.append(summary.summary_spec(frames["summary"], where))
        elif chart == panels[0] and "panels.bands" in frames:
            sub = {kind.split(".", 1)[1]: frame for kind, frame in frames.items() if kind.startswith("panels.")}
            parts.append(panels_spec(sub, span, width, where, protocols))
    # Altair parameter objects (not dicts), so that Altair can lift them to the top level.
    if scrub:
        params.append(time_slider(span))
    heading = title or "Explore: " + ", ".join(grid)
    return {"vconcat": parts, "spacing": 14, "params": params, "title": title_of(heading, sliders.hint(len(points)))}


def _add(collected: dict, kind: str, frame: pd.DataFrame, keys: dict) -> None:
    collected.setdefault(kind, []).append(frame.assign(**keys))


def base_value(base, name: str):
    """The base scenario's value of setting `name`, where a slider starts if the grid has it."""
    try:
        return current(name, base)
    except ConfigError:
        return None
