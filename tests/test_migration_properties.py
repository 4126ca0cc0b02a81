"""Random rolling migrations between the classic and the consumer protocol (KIP-848): any policy,
either direction, members restarted in any order at any pace, gracefully or by a crash, with
eager or cooperative classic members, dynamic or static, and a GC pause thrown in. Whatever
the coordinator converts or refuses, every run keeps the invariants of the consumer-protocol
runs (`test_consumer_protocol_client.assert_invariants`): no partition used by two live members
at once, every duplicate accounted for, and, once drained, nothing lost."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kafkasim import Scenario, simulate
from kafkasim.core import faults as F
from test_consumer_protocol_client import assert_invariants

POLICIES = ("bidirectional", "upgrade", "downgrade", "disabled")
MEMBERS = ("c-1", "c-2", "c-3", "c-4")


@st.composite
def migrations(draw):
    start = draw(st.sampled_from(["classic", "consumer"]))
    to = "consumer" if start == "classic" else "classic"
    order = draw(st.permutations(MEMBERS))
    restarted = order[:draw(st.integers(1, len(MEMBERS)))]
    at, faults = 20_000, []
    changes = {"group.protocol": to, **({"partition.assignment.strategy": None} if to == "consumer" else {})}
    for name in restarted:
        at += draw(st.integers(1, 40)) * 1000
        faults.append(F.Restart(name, at, draw(st.integers(0, 15)) * 1000, graceful=draw(st.booleans()),
                                consumer=changes))
    if draw(st.booleans()):
        faults.append(F.Pause(draw(st.sampled_from(MEMBERS)), draw(st.integers(10, 150)) * 1000,
                              duration_ms=draw(st.integers(1, 60)) * 1000))
    classic = {"partition.assignment.strategy": draw(st.sampled_from([["range"], ["cooperative-sticky"]]))}
    return Scenario(kafka_version=draw(st.sampled_from(["4.0", "4.1", "4.2", "4.3", "4.4"])), members=len(MEMBERS),
                    topics={"orders": draw(st.integers(2, 8))}, duration_ms=200_000, drain_ms=120_000,
                    seed=draw(st.integers(0, 1000)), static_membership=draw(st.booleans()),
                    consumer={"group.protocol": start, **(classic if start == "classic" else {})},
                    broker={"group.consumer.migration.policy": draw(st.sampled_from(POLICIES))},
                    faults=faults)


@settings(max_examples=40)
@given(migrations())
def test_rolling_migrations_keep_every_invariant(scenario):
    run = simulate(scenario)
    assert_invariants(run, drained=run.events[run.events["kind"] == "Fatal"].empty)
    ev = run.events
    conversions = ev[ev["kind"] == "GroupConverted"]["reason"].tolist()
    # the group changes kind at most once per restarted member, and one way at a time
    assert all(a != b for a, b in zip(conversions, conversions[1:]) if "online" in a and "online" in b)
