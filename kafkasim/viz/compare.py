"""Two or more runs side by side (typically the same fault trace under different settings),
on the same time axis, each headed by what differs between the scenarios and its key numbers."""

from __future__ import annotations

import altair as alt

from kafkasim.viz import style, summary
from kafkasim.viz.charts import resolve

#: The key numbers printed under each run's heading.
HEADLINE_KEYS = ("rebalances", "removals_by_reason", "unconsumed_ms", "duplicates")
#: What a config nobody set means where "default" would hide it: a run without group.protocol
#: runs the classic protocol (the default of every Kafka release line, and the only one before 3.7).
UNSET = {"group.protocol": "classic"}
#: Side by side, the columns share 1.2 chart widths (a comparison may scroll a little, each run
#: stays readable), each at least COLUMN_MIN_WIDTH px, where a timeline's time axis still fits.
COLUMNS_SHARE, COLUMN_MIN_WIDTH = 1.2, 260


def _flat(scenario) -> dict:
    """A scenario as {name: text}, configs under their Kafka names, for diffing."""
    out = {}
    for key, value in scenario.to_dict().items():
        if key in ("consumer", "broker"):
            out.update({k: str(v) for k, v in value.items()})
        elif key == "processing_ms":
            out["processing"] = value["describe"]
        elif key == "faults":
            out["faults"] = "; ".join(f.label() for f in scenario.faults) or "no fault"
        else:
            out[key] = str(value)
    return out


def scenario_labels(scenarios) -> list[str]:
    """What tells the scenarios apart, e.g. ["session.timeout.ms=10000", "session.timeout.ms=45000"],
    or ["group.protocol=classic", "group.protocol=consumer"]."""
    flats = [_flat(s) for s in scenarios]
    keys = sorted({k for f in flats for k in f})
    differing = [k for k in keys if len({f.get(k) for f in flats}) > 1]
    if not differing:
        return [f"run {i + 1}" for i in range(len(flats))]
    return [", ".join(f"{k}={f.get(k, UNSET.get(k, 'default'))}" for k in differing) for f in flats]


def compare(runs, *, charts=("timeline", "lag"), labels=None, window=None, width: int | None = None,
            direction: str = "columns") -> alt.ConcatChart:
    """Runs side by side ("columns") or one above the other ("rows"), each a stack of `charts`
    (names in kafkasim.viz.CHARTS, or functions of a Run), on one shared time window. Runs of
    both group protocols compare as they are: each draws its own group's rebalance phases
    (classic PreparingRebalance / CompletingRebalance, consumer Assigning / Reconciling). Without
    `width`, columns share COLUMNS_SHARE chart widths (at least COLUMN_MIN_WIDTH each), rows take one."""
    runs = list(runs)
    if len(runs) < 2:
        raise ValueError("compare() needs two or more runs")
    if direction not in ("columns", "rows"):
        raise ValueError(f"direction must be 'columns' or 'rows', got {direction!r}")
    labels = list(labels) if labels is not None else scenario_labels([r.scenario for r in runs])
    if len(labels) != len(runs):
        raise ValueError(f"{len(labels)} labels for {len(runs)} runs")
    window = window or (0, max(r.end_ms for r in runs))
    width = width or (max(COLUMN_MIN_WIDTH, int(style.WIDTH * COLUMNS_SHARE / len(runs))) if direction == "columns"
                      else style.WIDTH)
    functions = [resolve(c) for c in charts]
    columns = [_column_spec([fn(run, window, width=width, title=None) for fn in functions], label, headline(run))
               for run, label in zip(runs, labels)]
    return _joined_spec(columns, direction)


def headline(run) -> str:
    """The numbers under a run's label: HEADLINE_KEYS, with their short names, joined by " · "."""
    return " · ".join(f"{name} {value}" for name, value in summary.key_numbers(run.summary, HEADLINE_KEYS, short=True))


def _column_spec(parts: list, label: str, numbers: str) -> alt.VConcatChart:
    """One run's charts stacked, titled with its label and its headline."""
    return alt.vconcat(*parts, spacing=10).properties(
        title=alt.TitleParams(label, subtitle=numbers, anchor="start", fontSize=13))


def _joined_spec(columns: list, direction: str):
    """The runs' columns side by side ("columns") or one above the other ("rows")."""
    return alt.hconcat(*columns, spacing=24) if direction == "columns" else alt.vconcat(*columns, spacing=24)
