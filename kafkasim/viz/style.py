"""Colours and sizes shared by every chart, so that a state or a rebalance looks the same in the
timeline, the lag panels, a comparison and the explorers. No chart sets a top-level `config`
(Vega-Lite allows it only at the top), so any chart can be placed beside others as it is."""

from __future__ import annotations

#: Consumer states (kafkasim.client.consumer) in display order; "active" stands for a run of consuming
#: and processing merged into one band.
STATE_COLORS = {
    "joining": "#f58518",
    "awaiting_sync": "#ffbf79",
    "consuming": "#54a24b",
    "processing": "#a0d58f",
    "active": "#54a24b",
    "paused": "#b279a2",
    "stalled": "#e45756",
    "removed": "#9d9d9d",
    "stopped": "#4c4c4c",
}
#: Coordinator group states drawn as bands (GroupMetadata.scala's PreparingRebalance, CompletingRebalance).
PHASE_COLORS = {"PreparingRebalance": "#4c78a8", "CompletingRebalance": "#9ecae9"}
BAND_OPACITY = 0.18
REMOVAL_COLOR = "#111111"
FAULT_COLOR = "#6b3fa0"
ERROR_COLOR = "#d62728"
UNCONSUMED_COLOR = "#d62728"

WIDTH = 680
TIME_TITLE = "time (s)"


def state_scale(states=None) -> dict:
    """The fixed state -> colour scale (restricted to `states`, in display order, if given)."""
    domain = [s for s in STATE_COLORS if states is None or s in states]
    return {"domain": domain, "range": [STATE_COLORS[s] for s in domain]}


def phase_scale() -> dict:
    return {"domain": list(PHASE_COLORS), "range": list(PHASE_COLORS.values())}


def time_scale(span) -> dict:
    return {"domain": [float(span[0]), float(span[1])], "nice": False, "zero": False, "clamp": True}
