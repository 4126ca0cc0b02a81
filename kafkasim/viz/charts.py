"""The chart functions by name, so that explorers and comparisons can be told which to draw
("timeline", "lag", ...) or be given any function of a Run that returns an Altair chart."""

from __future__ import annotations

from typing import Callable

from kafkasim.viz.consumption import lag_chart
from kafkasim.viz.ownership import partition_ownership
from kafkasim.viz.protocol import sequence_diagram
from kafkasim.viz.summary import summary_chart
from kafkasim.viz.timeline import member_timeline

CHARTS: dict[str, Callable] = {
    "timeline": member_timeline,
    "ownership": partition_ownership,
    "lag": lag_chart,
    "sequence": sequence_diagram,
    "summary": summary_chart,
}


def resolve(chart) -> Callable:
    """A chart function from a name in CHARTS or a callable `fn(run, window=None, **kw)`."""
    if callable(chart):
        return chart
    try:
        return CHARTS[chart]
    except (KeyError, TypeError):
        raise ValueError(f"unknown chart {chart!r}; choose from {', '.join(CHARTS)} or pass a function "
                         f"of a Run that returns an Altair chart") from None
