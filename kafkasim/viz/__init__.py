"""Charts of simulated runs (Altair). Every function takes a Run (or several) and returns an
Altair chart; nothing here displays anything, so a chapter draws a chart in one call::

    from kafkasim import Scenario, simulate, faults
    from kafkasim import viz

    run = simulate(Scenario(faults=[faults.Pause("c-2", at_ms=60_000, duration_ms=50_000)]))
    viz.member_timeline(run)                        # who was doing what, rebalances, removals
    viz.partition_ownership(run)                    # who owned which partition, gaps in red
    viz.lag_chart(run)                              # lag, throughput, duplicates
    viz.sequence_diagram(run, window=(100_000, 125_000))   # JoinGroup/SyncGroup/Heartbeat...
    viz.compare([run, other_run])                   # side by side on one time axis
    viz.grid_explorer(Scenario(), {"session.timeout.ms": [10_000, 30_000, 45_000]})  # sliders, no kernel
    viz.assignment_map(run, {"before": 59_000, "after": 119_000})   # owners at instants, moves framed

The same charts draw runs of Kafka 4's consumer protocol (`Scenario(kafka_version="4.0",
consumer={"group.protocol": "consumer"})`, KIP-848): the bands show the consumer group in
Assigning / Reconciling, the sequence diagram its ConsumerGroupHeartbeats with their member epochs
and the members' callbacks, and `group.protocol` is a knob of the explorers (kafkasim.viz.settings),
so the two protocols compare side by side on the same fault.

Time-based charts take `window=(start_ms, end_ms)`. Charts aggregate instead of drawing every
event (one "active" band for the poll loop, binned throughput, members-per-state above 120
members), so they stay small and fast for large groups. Each function builds its Vega-Lite spec
as a dict (`fn.spec(...)` returns it) and wraps it in an Altair chart (see `spec`). Altair and
vl-convert are imported only by this package (the `viz` extra), never by `import kafkasim`.

The live explorers (`kafkasim.viz.widgets`, ipywidgets) and the chapters' self-checking exercises
(`kafkasim.viz.exercises`) live here too: everything a learner sees in a notebook.

May import: `kafkasim.core`, the models and `kafkasim.scenario` (it reads Runs and their events,
and re-simulates for explorers). Never `kafkasim.analysis`: the two are independent.
"""

from kafkasim.viz import render
from kafkasim.viz.assignment import assignment_explorer, assignment_map
from kafkasim.viz.charts import CHARTS
from kafkasim.viz.compare import compare, scenario_labels
from kafkasim.viz.consumption import lag_chart
from kafkasim.viz.grid_explorer import grid_explorer
from kafkasim.viz.ownership import partition_ownership
from kafkasim.viz.poll import batch_durations, safe_region
from kafkasim.viz.sweep import sweep_chart
from kafkasim.viz.protocol import sequence_diagram
from kafkasim.viz.settings import KNOBS, scenario_with
from kafkasim.viz.summary import key_numbers, summary_chart
from kafkasim.viz.timeline import member_timeline

render.enable()  # charts draw offline in JupyterLab (see render.py)


def to_png(chart, path=None, scale: float = 1.0) -> bytes:
    """Render a chart to PNG offline (vl-convert); write it to `path` if given."""
    import altair as alt
    import vl_convert

    version = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    png = vl_convert.vegalite_to_png(chart.to_dict(), vl_version=version, scale=scale, allowed_base_urls=[])
    if path is not None:
        with open(path, "wb") as f:
            f.write(png)
    return png


__all__ = ["member_timeline", "partition_ownership", "lag_chart", "sequence_diagram", "compare", "grid_explorer",
           "summary_chart", "key_numbers", "scenario_labels", "scenario_with", "KNOBS", "CHARTS", "to_png",
           "batch_durations", "safe_region", "sweep_chart",
           "assignment_map", "assignment_explorer"]
