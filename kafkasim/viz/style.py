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
UNCONSUMED_LABEL = "not consumed"
#: Partition owners (ownership, assignments): Tableau 20 without its reds and pinks, so that no owner
#: looks like a partition not being consumed (UNCONSUMED_COLOR) or an error. Distinct hues first.
OWNER_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#72b7b2", "#eeca3b", "#b279a2", "#9d755d", "#bab0ac",
                "#9ecae9", "#ffbf79", "#88d27a", "#b79a20", "#439894", "#83bcb6", "#79706e", "#d6a5c9",
                "#d8b5a5", "#f2cf5b")

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


def owner_scale(members) -> dict:
    """Owner -> colour, in `members`' order (OWNER_COLORS, repeated past 18 owners)."""
    members = list(members)
    return {"domain": members, "range": [OWNER_COLORS[i % len(OWNER_COLORS)] for i in range(len(members))]}


def gap_legend(name: str, title: str | None = None) -> dict:
    """A colour channel for field `name` (holding UNCONSUMED_LABEL) that draws the gaps' colour and
    lists them in a legend of their own (with resolve color independent)."""
    return {"field": name, "type": "nominal", "scale": {"domain": [UNCONSUMED_LABEL], "range": [UNCONSUMED_COLOR]},
            "legend": {"title": title, "orient": "right", "symbolType": "square"}}


def time_scale(span) -> dict:
    return {"domain": [float(span[0]), float(span[1])], "nice": False, "zero": False, "clamp": True}
