"""Simulated incidents, one kind per cause the simulator can make, for the examples and the accuracy
benchmark (benchmarks/diagnose_accuracy.py). Each is a Scenario whose broker log (`Run.broker_log`,
written by `kafkasim.coordinator.broker_log`) is what `kafkasim diagnose` reads.

Not made here: client-bug and broker-bug-or-coordinator (the simulator models Kafka without its
bugs), and misconfigurations the coordinator does not log (a session timeout outside the broker's
range is refused to the client, INVALID_SESSION_TIMEOUT, without a line in server.log).
"""

from __future__ import annotations

from kafkasim.core.faults import NetworkCut, Pause, Restart, ScaleIn, ScaleOut, SlowProcessing, rolling_restart
from kafkasim.scenario.world import Scenario

#: Causes the simulator makes, and the Kafka versions each is made at ("4.0c": 4.0 with group.protocol=consumer).
MADE = {
    "slow-processing": ("2.8", "3.7", "4.0", "4.0c"),
    "session-timeout-gc-or-stall": ("2.8", "3.7", "4.0", "4.0c"),
    "network": ("2.8", "3.7", "4.0", "4.0c"),
    "rolling-restart-dynamic-members": ("2.8", "3.7", "4.0", "4.0c"),
    "scaling": ("2.8", "3.7", "4.0", "4.0c"),
    "too-many-members-or-slow-join": ("2.8", "3.7", "4.0"),
    "misconfiguration": ("4.0",),
    "kip848-specific": ("4.0c",),
}

#: When an incident's trouble starts (one shape of scaling aside): 30 s into the run, the group formed.
AT_MS = 30_000


def incident(cause: str | None, version: str = "3.7", members: int = 4, seed: int = 1, variant: int = 0) -> Scenario:
    """A scenario whose trouble is `cause` (None: a healthy group). `variant` picks one of a cause's
    shapes (e.g. network: two members cut together, or one alone), `members` the group's size."""
    consumer = {"group.protocol": "consumer"} if version.endswith("c") else {}
    base = dict(kafka_version=version.rstrip("c"), members=members, seed=seed, duration_ms=200_000,
                consumer=consumer, topics={"orders": max(12, members)})
    names = [f"c-{i}" for i in range(1, members + 1)]
    if cause is None:  # nothing happens (variant 0), or a rolling restart of static members (1, KIP-345)
        if variant % 2 == 0:
            return Scenario(**base)
        return Scenario(**base, static_membership=True, faults=rolling_restart(names, AT_MS, 20_000, 5_000))
    if cause == "slow-processing":  # the poll thread stuck past max.poll.interval.ms (heartbeats go on)
        return Scenario(**{**base, "consumer": {**consumer, "max.poll.interval.ms": 60_000}},
                        faults=(SlowProcessing(names[1], AT_MS + 7_000 * variant, 100_000),))
    if cause == "session-timeout-gc-or-stall":  # a stop-the-world pause past session.timeout.ms
        return Scenario(**base, faults=(Pause(names[1 + variant % (members - 1)], AT_MS, 60_000),))
    if cause == "network":  # members cut off from the coordinator: two together (variant 0), or one alone
        cut = names[1:3] if variant % 2 == 0 else names[1:2]
        return Scenario(**base, faults=tuple(NetworkCut(m, AT_MS, 60_000) for m in cut))
    if cause == "rolling-restart-dynamic-members":
        return Scenario(**base, faults=rolling_restart(names, AT_MS, 15_000 + 5_000 * variant))
    if cause == "scaling":  # out by 2 (variant 0) or by 1 (2), in (1), out then in (3)
        new = [f"c-{members + 1}", f"c-{members + 2}"]
        shapes = [(ScaleOut(AT_MS, 2),), (ScaleIn(AT_MS, tuple(names[-2:])),), (ScaleOut(60_000),),
                  (ScaleOut(AT_MS, 2), ScaleIn(90_000, tuple(new)))]
        return Scenario(**base, faults=shapes[variant % len(shapes)])
    if cause == "too-many-members-or-slow-join":  # a large group whose members start over a minute or more
        big = max(members * 15, 60)
        spread = 60_000 + 30_000 * variant  # the log goes on 60 s past the last start, so the join can end
        return Scenario(**{**base, "members": big, "topics": {"orders": big}, "duration_ms": spread + 60_000,
                           "start_spread_ms": spread})
    if cause == "misconfiguration":  # a consumer-protocol client in a classic group, migration disabled
        return Scenario(**{**base, "broker": {"group.consumer.migration.policy": "disabled"}},
                        faults=(Restart(names[0], AT_MS, 5_000, graceful=True,
                                        consumer={"group.protocol": "consumer"}),))
    if cause == "kip848-specific":  # a static member restarted before its old session ended
        return Scenario(**base, static_membership=True, faults=(Restart(names[1 + variant % (members - 1)],
                                                                         AT_MS, 5_000),))
    raise ValueError(f"no simulated incident for {cause!r}")
