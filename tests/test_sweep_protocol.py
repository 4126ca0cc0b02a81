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


# -- what commit_run writes (sweep_grid: one run's events, then its summary row) --------------------------------------
SMALL = {"base": {"kafka_version": "3.7", "topics": {"orders": 2}, "produce_rate_per_s": 10, "duration_ms": 10_000,
                  "members": 1},
         "grid": {"max.poll.records": [500]}, "seeds": [1, 2]}


def read_provenance_of(result) -> dict:
    """A run's provenance as its file keeps it (JSON: tuples become lists)."""
    import json

    from kafkasim.core.provenance import to_json
    return json.loads(to_json(result.provenance))


def test_the_seeds_of_one_setting_commit_into_the_same_folders_each_run_its_events_and_provenance(tmp_path):
    """commit_run / write_events: the runs of one setting share its partition folders (the seed is no
    partition), so each makes the folders only when they are not there yet; each run's events file holds its
    events in order, with its run_id and seq (the position that orders events of the same millisecond),
    and the run's provenance, so the file alone says how to reproduce it."""
    import pyarrow.parquet as pq

    from kafkasim import read_provenance
    from kafkasim.analysis.sweep_grid import commit_run, run_one

    runs = Grid.from_dict(SMALL).runs()
    assert len(runs) == 2 and runs[0].params == runs[1].params
    rows = [commit_run(run, str(tmp_path)) for run in runs]
    assert [r["error"] for r in rows] == [None, None]
    folder = tmp_path / "events" / "max_poll_records=500"
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{run.run_id}.parquet" for run in runs)
    assert sorted(p.name for p in (tmp_path / "summaries" / "max_poll_records=500").iterdir()) == sorted(
        f"run-{run.run_id}.parquet" for run in runs)  # each finished run's summary: the mark that it is done
    for run in runs:
        result, _ = run_one(run)
        table = pq.read_table(folder / f"{run.run_id}.parquet")
        n = len(result.rows)
        assert table.column("run_id").to_pylist() == [run.run_id] * n
        assert table.column("seq").to_pylist() == list(range(n))
        assert table.column("time").to_pylist() == [r[0] for r in result.rows]
        assert read_provenance(folder / f"{run.run_id}.parquet") == read_provenance_of(result)



def test_a_failed_runs_summary_file_has_every_summary_column_with_its_type(tmp_path):
    """commit_run writes the summary row with `summary_schema()`: a failed run's row (its error, no metrics)
    has every column all the same, typed as a finished run's, so that Spark and pyarrow read a folder of both
    as one table."""
    import pyarrow.parquet as pq

    from kafkasim.analysis.sweep_grid import commit_run, summary_schema

    failing = {**SMALL, "base": {**SMALL["base"], "faults": [{"type": "Crash", "member": "c-9", "at_ms": 1_000}]},
               "seeds": [1]}
    run = Grid.from_dict(failing).runs()[0]
    row = commit_run(run, str(tmp_path))
    assert row["error"].startswith("ConfigError") and "c-9" in row["error"]
    path = tmp_path / "summaries" / "max_poll_records=500" / f"failed-{run.run_id}.parquet"
    table = pq.read_table(path)
    assert table.schema.remove_metadata() == summary_schema()
    assert table.column("rebalances").to_pylist() == [None] and table.column("seed").to_pylist() == [1]
