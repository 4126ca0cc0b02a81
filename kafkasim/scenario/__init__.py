"""The learner's face of the consumer-group models: a question as data (`Scenario`), the
simulation that answers it (`simulate`, wiring the coordinator, consumers and workload into one
world), and the answer (`Run`: events, summary, broker log, provenance). `share` holds what a
share group's run (KIP-932) adds: its log batches, events, invariants and queue metrics.

May import: `kafkasim.core` and the models (`coordinator`, `client`, `broker`, `zookeeper`).
Never analysis or views: they read what a Run holds.
"""

from kafkasim.scenario.run import Run
from kafkasim.scenario.world import Scenario, simulate

__all__ = ["Scenario", "simulate", "Run"]
