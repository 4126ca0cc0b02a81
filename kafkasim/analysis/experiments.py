"""Experiments that run several models or many scenarios and compare them: they sit above the
scenario layer because they call `simulate` (and the ZooKeeper consumer's `simulate_zookeeper`).

- `rebalance_durations`: how long the rebalance caused by one extra consumer lasts as a classic
  group grows (chapter 05, KIP-389's motivation);
- `compare_with_group_coordinator`: who rebalances when one consumer leaves, under the 0.8.2
  ZooKeeper consumer and under the group coordinator (chapter 07).
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from kafkasim.core.config import normalize_version
from kafkasim.core.faults import ScaleIn, ScaleOut
from kafkasim.scenario import Scenario, simulate
from kafkasim.scenario.run import rebalance_phases
from kafkasim.scenario.workload import LogNormal
from kafkasim.zookeeper.consumer_connector import (SEED_CONSUMERS_PER_TOPIC, SEED_GROUP, SEED_PARTITIONS, SEED_TOPICS,
                                                   seed_incident, simulate_zookeeper)


def rebalance_durations(sizes: Sequence[int], seeds: Sequence[int] = (1, 2, 3), base=None,
                        scale_out_at_ms: int = 60_000) -> pd.DataFrame:
    """For each group size and seed: how long the rebalance caused by one extra consumer lasts
    (PreparingRebalance + CompletingRebalance, ms). The join phase waits for the slowest member to
    finish its current batch and call poll() again, so the time grows with the group's size.

    base: a Scenario (default: 120 partitions, a backlog, log-normal processing time).
    """
    if base is None:
        base = Scenario(topics={"orders": 120}, produce_rate_per_s=20_000, processing_ms=LogNormal(2, 20),
                        duration_ms=scale_out_at_ms + 30_000)
    rows = []
    for size in sizes:
        for seed in seeds:
            run = simulate(base.replace(members=size, seed=seed, faults=[ScaleOut(at_ms=scale_out_at_ms)]))
            phases = rebalance_phases(run.rows, run.end_ms)
            rows.append((size, seed, sum(end - start for _, start, end, _, _ in phases if start >= scale_out_at_ms)))
    return pd.DataFrame(rows, columns=["members", "seed", "rebalance_ms"])


def compare_with_group_coordinator(*, topics: int = SEED_TOPICS, consumers: int = SEED_CONSUMERS_PER_TOPIC,
                                   partitions: int = SEED_PARTITIONS, kafka_version: str = "3.7",
                                   leave_at_ms: int = 10_000, duration_ms: int = 40_000, seed: int = 1):
    """Who rebalances when one consumer leaves: the 0.8.2 ZooKeeper consumer and today's group
    coordinator (`kafkasim.simulate`), with one group name for all topics or one per topic.

    With the coordinator, a member leaving makes every member of its group.id rejoin (JoinGroup),
    whatever it reads: sharing one group.id across topics still rebalances the whole group. (Here
    every member of the shared coordinator group subscribes to all topics, since kafkasim's
    Scenario gives all members one subscription; the coordinator rebalances the whole group either
    way.) Groups of other topics are independent and untouched, so only the leaver's is simulated.
    """
    normalize_version(kafka_version)  # refused before the ZooKeeper runs, as Scenario would refuse it after them
    rows = []
    for per_topic in (False, True):
        run = simulate_zookeeper(seed_incident(per_topic, topics=topics, consumers=consumers, partitions=partitions,
                                               leave_at_ms=leave_at_ms, duration_ms=duration_ms, seed=seed))
        in_group = consumers if per_topic else topics * consumers
        rows.append(("ZooKeeper consumer 0.8.2", "a group per topic" if per_topic else "one group name",
                     topics * consumers, in_group, run.summary["consumers_rebalanced"]))
    names = [f"topic-{i:02d}" for i in range(topics)]
    for per_topic in (False, True):
        members = consumers if per_topic else topics * consumers
        scenario = Scenario(kafka_version=kafka_version, members=members, produce_rate_per_s=0,
                            topics={names[0]: partitions} if per_topic else {n: partitions for n in names},
                            group_id=f"{SEED_GROUP}-{names[0]}" if per_topic else SEED_GROUP,
                            faults=(ScaleIn(leave_at_ms, ("c-1",)),), duration_ms=duration_ms, seed=seed)
        ev = simulate(scenario).events
        joined = ev[(ev.source == "coordinator") & (ev.kind == "JoinGroup") & (ev.time >= leave_at_ms)]
        rows.append((f"group coordinator {kafka_version}", "a group per topic" if per_topic else "one group name",
                     topics * consumers, members, joined.member.nunique()))
    return pd.DataFrame(rows, columns=["consumer", "group names", "consumers", "consumers in the leaver's group",
                                       "consumers rebalanced"])
