"""`group.protocol` as a sweep dimension (issue 17, item 9): a grid crosses it with other settings,
each run gets its own id and the right client, and the runs of the two protocols differ where
Kafka says they should: the same poll-timeout leaves, a different cost."""

from kafkasim.analysis.sweep_grid import Grid, run_all

# one_process: the classic members' ids are numbered (consumer-workbook-group-1, -2, -3), which fixes the
# order range deals partitions in, and so the counts below.
GRID = {"base": {"kafka_version": "4.0", "topics": {"orders": 6}, "produce_rate_per_s": 120, "duration_ms": 90_000,
                 "members": 3, "processing_ms": {"type": "LogNormal", "median_ms": 2, "p99_ms": 500},
                 "one_process": True},
        "grid": {"group.protocol": ["classic", "consumer"], "max.poll.interval.ms": [6000, 30000],
                 "max.poll.records": [500]},
        "seeds": [1]}


def test_the_protocol_is_a_dimension_with_its_own_runs():
    runs = Grid.from_dict(GRID).runs()
    assert [(r.params["group_protocol"], r.params["max_poll_interval_ms"]) for r in runs] == [
        ("classic", 6000), ("classic", 30000), ("consumer", 6000), ("consumer", 30000)]
    assert len({r.run_id for r in runs}) == 4
    assert [r.spec["consumer"] for r in runs][::2] == [
        {"group.protocol": "classic", "max.poll.interval.ms": 6000, "max.poll.records": 500},
        {"group.protocol": "consumer", "max.poll.interval.ms": 6000, "max.poll.records": 500}]


def test_the_same_leaves_under_both_protocols_at_a_different_cost():
    rows = {(r["group_protocol"], r["max_poll_interval_ms"]): r for r in run_all(Grid.from_dict(GRID).runs())}
    assert all(r["error"] is None for r in rows.values())
    # 6 s is too short for 500 records of this tail under either protocol, 30 s is enough for both
    assert rows["classic", 6000]["removals_poll_timeout"] == 14
    # one of the consumer protocol's members misses its revocation deadline (the rebalance timeout,
    # also max.poll.interval.ms) while stuck in a batch: the coordinator fences it
    assert (rows["consumer", 6000]["removals_poll_timeout"], rows["consumer", 6000]["removals_rebalance_timeout"]) == \
        (11, 1)
    assert rows["classic", 30000]["removals_poll_timeout"] == 0 == rows["consumer", 30000]["removals_poll_timeout"]
    assert (rows["classic", 6000]["partition_downtime_ms"], rows["consumer", 6000]["partition_downtime_ms"]) == \
        (40422, 6258)
    # calm: the consumer protocol's start-up hand-overs wait for heartbeats, idle classic members' do not
    assert (rows["classic", 30000]["partition_downtime_ms"], rows["consumer", 30000]["partition_downtime_ms"]) == \
        (0, 4814)
