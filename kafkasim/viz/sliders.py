"""Sliders for charts that work without a kernel: Vega-Lite params bound to HTML inputs, and the
filter that keeps the rows of the precomputed grid point they select. Shared by the scenario grid
explorer (kafkasim.viz.grid_explorer) and the chapter explorers built on other models (ZooKeeper storms,
fetch sizing), so that every static page's sliders behave alike.

A numeric knob is a slider: over its values when they are evenly spaced, else over their positions
(an index param, `<param>__i`, from which the value param is computed), so that 10, 50, 200, 2000
are four stops of one slider. Only categories (versions, protocols, faults) are radio buttons (up
to 4 choices) or a drop-down. `readout` writes the current values with their Kafka config names
as a line of the chart, since an index slider cannot show its value itself.
"""

from __future__ import annotations

import json
import re

import altair as alt

INDEX_SUFFIX = "__i"  # the index param of a slider over uneven values (the book's CSS hides its number)


def column(name: str) -> str:
    """A Vega-safe field and param name for a setting ("session.timeout.ms" -> "p_session_timeout_ms")."""
    return "p_" + re.sub(r"\W", "_", name)


def _numeric(values: list) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _even_step(values: list):
    """The step of 2+ evenly spaced numbers, else None."""
    ordered = sorted(values)
    steps = {round(b - a, 9) for a, b in zip(ordered, ordered[1:])}
    return steps.pop() if len(steps) == 1 else None


def indexed(values: list, labels: list[str] | None = None) -> bool:
    """Whether a slider over these values moves an index: numbers not evenly spaced, or named."""
    return _numeric(values) and len(values) >= 2 and (labels is not None or _even_step(values) is None)


def binding(values: list, label: str, labels: list[str] | None = None) -> dict:
    """A slider for 2+ numbers: over the values when evenly spaced, else over their positions
    0..n-1 (`indexed`; `params` adds the value param); for other choices, radio buttons up to 4,
    else a drop-down. `labels` names the choices (e.g. "unlimited" for 0)."""
    if indexed(values, labels):
        return {"input": "range", "min": 0, "max": len(values) - 1, "step": 1, "name": label}
    if _numeric(values) and len(values) >= 2:
        return {"input": "range", "min": min(values), "max": max(values), "step": _even_step(values), "name": label}
    kind = "radio" if len(values) <= 4 else "select"
    return {"input": kind, "options": list(values), "labels": labels or [str(v) for v in values], "name": label}


def params(name: str, values: list, label: str, value=None, labels: list[str] | None = None) -> list:
    """The bound Vega-Lite param(s) for setting `name` (Altair parameter objects, which Altair lifts
    to the top level of a composed chart), starting at `value` (default: the first value): the
    param `column(name)` bound to its input, or for an `indexed` slider, the index param bound to
    it and `column(name)` computed from it (so that `matches` filters on the value either way)."""
    values = list(values)
    start = value if value in values else values[0]
    bound = binding(values, f"{label} ", labels)
    if not indexed(values, labels):
        return [alt.param(name=column(name), value=start, bind=bound).param]
    index = column(name) + INDEX_SUFFIX
    return [alt.param(name=index, value=values.index(start), bind=bound).param,
            alt.param(name=column(name), expr=f"{json.dumps(values)}[{index}]").param]


def readout(knobs, width: int) -> dict:
    """A one-line view writing what the sliders selected, "label = value" per setting, named as
    Kafka names the config. knobs: (name, label, values, value labels or None) per setting."""
    parts = []
    for name, label, values, labels in knobs:
        value = column(name)
        if labels:
            value = f"{json.dumps(list(labels))}[indexof({json.dumps(list(values))}, {value})]"
        parts.append(f"{json.dumps(label + ' = ')} + {value}")
    text = " + '   ·   ' + ".join(parts) or "''"
    mark = {"type": "text", "align": "left", "baseline": "middle", "fontSize": 12, "fontWeight": "bold",
            "color": "#333333", "limit": width, "text": {"expr": text}}
    return {"data": {"values": [{}]}, "mark": mark, "encoding": {"x": {"value": 0}, "y": {"value": 9}},
            "width": width, "height": 18, "view": {"stroke": None}}


def controls(knobs, width: int) -> tuple[list, dict]:
    """The params of an explorer's settings and the readout line naming what they selected.
    knobs: (name, values, label, start value or None, value labels or None) per setting."""
    bound = [p for name, values, label, start, labels in knobs for p in params(name, values, label, start, labels)]
    shown = readout([(name, label, values, labels) for name, values, label, start, labels in knobs], width)
    return bound, shown


def hint(runs: int, what: str = "runs") -> str:
    """An explorer's subtitle: how many runs the page holds and how to pick one."""
    return f"{runs} {what} precomputed; the controls pick one, the bold line names it"


def matches(names) -> str:
    """The Vega filter keeping the rows whose grid columns equal the sliders' current values."""
    return " && ".join(f"datum.{column(n)} == {column(n)}" for n in names)
