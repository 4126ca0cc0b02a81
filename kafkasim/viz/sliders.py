"""Sliders for charts that work without a kernel: Vega-Lite params bound to HTML inputs, and the
filter that keeps the rows of the precomputed grid point they select. Shared by the scenario grid
explorer (kafkasim.viz.grid_explorer) and the chapter explorers built on other models (ZooKeeper storms,
fetch sizing), so that every static page's sliders behave alike."""

from __future__ import annotations

import re

import altair as alt


def column(name: str) -> str:
    """A Vega-safe field and param name for a setting ("session.timeout.ms" -> "p_session_timeout_ms")."""
    return "p_" + re.sub(r"\W", "_", name)


def binding(values: list, label: str, labels: list[str] | None = None) -> dict:
    """A slider for 3+ evenly spaced numbers, radio buttons for up to 4 choices, else a drop-down.
    `labels` names the choices (e.g. "unlimited" for 0)."""
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric and len(values) >= 3 and labels is None:
        ordered = sorted(values)
        steps = {round(b - a, 9) for a, b in zip(ordered, ordered[1:])}
        if len(steps) == 1:
            return {"input": "range", "min": ordered[0], "max": ordered[-1], "step": steps.pop(), "name": label}
    kind = "radio" if len(values) <= 4 else "select"
    return {"input": kind, "options": list(values), "labels": labels or [str(v) for v in values], "name": label}


def param(name: str, values: list, label: str, value=None, labels: list[str] | None = None):
    """The bound Vega-Lite param for setting `name` (an Altair parameter object, which Altair lifts
    to the top level of a composed chart), starting at `value` (default: the first value)."""
    start = value if value in list(values) else list(values)[0]
    return alt.param(name=column(name), value=start, bind=binding(list(values), f"{label} ", labels)).param


def matches(names) -> str:
    """The Vega filter keeping the rows whose grid columns equal the sliders' current values."""
    return " && ".join(f"datum.{column(n)} == {column(n)}" for n in names)
