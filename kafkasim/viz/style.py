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
#: Coordinator group states drawn as bands: a classic group's PreparingRebalance and CompletingRebalance
#: (GroupMetadata.scala, ClassicGroupState.java), a consumer group's Assigning and Reconciling (KIP-848,
#: ConsumerGroup.ConsumerGroupState).
PHASE_COLORS = {"PreparingRebalance": "#4c78a8", "CompletingRebalance": "#9ecae9",
                "Assigning": "#2f8f83", "Reconciling": "#9fd8cf"}
#: The rebalance phases of each group protocol (`group.protocol`), in display order.
PROTOCOL_PHASES = {"classic": ("PreparingRebalance", "CompletingRebalance"), "consumer": ("Assigning", "Reconciling")}
PROTOCOLS = tuple(PROTOCOL_PHASES)
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


def phase_scale(protocols: tuple[str, ...] = ("classic",)) -> dict:
    """The fixed phase -> colour scale of the rebalance bands of groups of these `protocols`."""
    domain = [phase for protocol in PROTOCOLS if protocol in protocols for phase in PROTOCOL_PHASES[protocol]]
    return {"domain": domain, "range": [PHASE_COLORS[p] for p in domain]}


def time_scale(span) -> dict:
    return {"domain": [float(span[0]), float(span[1])], "nice": False, "zero": False, "clamp": True}
