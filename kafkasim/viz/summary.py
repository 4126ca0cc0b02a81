"""The key numbers of a run, worded for a learner, as text, as HTML and as a chart.

They are `Run.summary` (see kafkasim.scenario.run.SUMMARY_DOC); only the wording and units are here.
"""

from __future__ import annotations

import html

import pandas as pd

from kafkasim.viz.spec import field, returns_chart, title as title_of, unit

#: (summary key, label, short label) in display order; ms values are shown in seconds.
KEY_NUMBERS = (
    ("rebalances", "rebalances", "rebalances"),
    ("removals_by_reason", "members removed", "removed"),
    ("unconsumed_ms", "time with a partition not consumed", "unconsumed"),
    ("all_unconsumed_ms", "time with no partition consumed", "nothing consumed"),
    ("rebalance_ms", "time rebalancing", "rebalancing"),
    ("duplicates", "duplicates (records processed again)", "duplicates"),
    ("commit_failures", "failed commits", "failed commits"),
    ("max_lag", "max lag (records)", "max lag"),
    ("latency_ms", "p99 latency", "p99 latency"),
    # share groups (KIP-932): kafkasim.scenario.run.SHARE_SUMMARY_DOC
    ("redeliveries", "redeliveries (delivery count above 1)", "redeliveries"),
    ("lock_expiries", "records whose lock expired", "locks expired"),
    ("records_archived", "records archived", "archived"),
)
DEFAULT_KEYS = tuple(key for key, _, _ in KEY_NUMBERS[:9])
#: The key numbers of a share group's run.
SHARE_KEYS = ("duplicates", "redeliveries", "lock_expiries", "records_archived", "max_lag", "latency_ms")
_LABELS = {key: (label, short) for key, label, short in KEY_NUMBERS}


def _format(key: str, value) -> str:
    if key == "removals_by_reason":
        total = sum(value.values())
        return f"{total} ({', '.join(f'{r} {n}' for r, n in value.items())})" if total else "0"
    if key == "latency_ms":
        value = value.get("p99")
        return "n/a" if value is None else f"{value / 1000:,.2f} s"
    if key.endswith("_ms"):
        return f"{value / 1000:,.1f} s"
    return f"{value:,}"


def key_numbers(summary: dict, keys=DEFAULT_KEYS, short: bool = False) -> list[tuple[str, str]]:
    """[(label, formatted value)] for `keys` of a run's summary (short labels for headings)."""
    unknown = [k for k in keys if k not in _LABELS]
    if unknown:
        raise ValueError(f"unknown summary keys {unknown}; choose from {list(_LABELS)}")
    return [(_LABELS[k][short], _format(k, summary[k])) for k in keys]


def summary_html(summary: dict, keys=DEFAULT_KEYS) -> str:
    return pairs_html(key_numbers(summary, keys))


def pairs_html(pairs) -> str:
    """[(label, value)] as the explorers' small two-column table."""
    rows = "".join(f"<tr><td style='padding:1px 10px 1px 0'>{html.escape(label)}</td>"
                   f"<td style='text-align:right'><b>{html.escape(value)}</b></td></tr>"
                   for label, value in pairs)
    return f"<table style='font-size:13px'>{rows}</table>"


def summary_frame(summary: dict, keys=DEFAULT_KEYS) -> pd.DataFrame:
    """order, label, value: one row per key number (for `summary_chart` and the grid explorer)."""
    pairs = key_numbers(summary, keys)
    return pd.DataFrame({"order": range(len(pairs)), "label": [p[0] for p in pairs], "value": [p[1] for p in pairs]})


def summary_spec(frame: pd.DataFrame, where: str | None = None, title: str | None = "Key numbers") -> dict:
    """The key numbers (`summary_frame`) as a two-column text chart: a chart, so that it can sit
    in a layout and follow the grid explorer's sliders."""
    y = field("order", "ordinal", axis=None)
    spec = {"layer": [unit(frame, {"type": "text", "align": "left", "fontSize": 12},
                           {"x": {"value": 0}, "y": y, "text": field("label", "nominal")}, where=where),
                      unit(frame, {"type": "text", "align": "left", "fontSize": 12, "fontWeight": "bold"},
                           {"x": {"value": 250}, "y": y, "text": field("value", "nominal")}, where=where)],
            "width": 420, "height": 18 * max(1, frame["order"].nunique()), "view": {"stroke": None}}
    if title:
        spec["title"] = title_of(title)
    return spec


@returns_chart
def summary_chart(run, window=None, *, keys=DEFAULT_KEYS, width=None, title: str | None = "Key numbers") -> dict:
    """A run's key numbers as a chart (of the whole run: `window` and `width` are accepted so that
    it can be drawn wherever the other charts are, and ignored)."""
    return summary_spec(summary_frame(run.summary, keys), title=title)
