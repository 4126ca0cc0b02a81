"""kafkasim.analysis.spark on one shared quiet local[2] session (the `spark` fixture in conftest.py):
sweeps against the same runs in plain Python, resuming, broker logs against the pure-Python
parser, and the DataFrame analysis against what `Run` computes on its own. Small scenarios
(3 members, one simulated minute) keep the whole file well under a minute."""

import gzip
import json
import os

import pandas as pd
import pytest

from kafkasim import Scenario, simulate
from kafkasim.analysis import spark as ks
from kafkasim import faults as F
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS
from kafkasim.analysis.sweep_grid import Grid, run_all, scenario_from_spec
from kafkasim.analysis.logs import COUNTS, chunk_plan, expand_paths, parse_files

BASE = {"members": 3, "topics": {"t": 4}, "duration_ms": 60_000,
        "faults": [{"type": "Pause", "member": "c-1", "at_ms": 20_000, "duration_ms": 5_000}]}
GRID = {"base": BASE, "grid": {"session.timeout.ms": [6_000, 30_000], "faults[0].duration_ms": [2_000, 12_000]},
        "seeds": 2}
METRICS = ["rebalances", "generations", "partition_downtime_ms", "duplicates", "removals_session_timeout",
           "rebalance_ms", "latency_p99_ms", "events", "end_ms"]


@pytest.fixture(scope="module")
def swept(spark, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("sweep"))
    result = ks.sweep(spark, GRID, out, runs_per_task=4)
    events, summaries = ks.read_sweep(spark, out)
    return out, result, events, summaries


@pytest.mark.local_spark  # a Connect server's executors import the package it was sent
def test_executors_import_this_checkout_of_kafkasim(spark):
    import kafkasim

    def where(batches):
        import kafkasim as k
        for batch in batches:
            yield pd.DataFrame({"path": [k.__file__] * len(batch)})

    (row,) = spark.range(1).mapInPandas(where, "path string").collect()
    assert row.path == kafkasim.__file__


def test_sweep_equals_the_same_runs_in_plain_python(swept):
    out, result, events, summaries = swept
    assert (result.runs, result.done, result.failed, result.skipped) == (8, 8, 0, 0)
    plain = pd.DataFrame(run_all(Grid.from_dict(GRID).runs())).set_index("run_id").sort_index()
    got = summaries.toPandas().set_index("run_id").sort_index()
    assert list(got.index) == list(plain.index)
    for column in METRICS + ["session_timeout_ms", "faults_0_duration_ms", "seed"]:
        assert got[column].tolist() == plain[column].tolist(), column
    assert got["error"].isna().all()
    # The grid really varies what it says: a 12 s pause outlasts a 6 s session, not a 30 s one.
    removed = got.groupby(["session_timeout_ms", "faults_0_duration_ms"])["removals_session_timeout"].min()
    assert removed[(6_000, 12_000)] == 1 and removed[(30_000, 12_000)] == 0 and removed[(6_000, 2_000)] == 0


def test_events_are_partitioned_by_the_swept_parameters_and_equal_the_run(swept):
    out, _, events, summaries = swept
    row = summaries.where("session_timeout_ms = 6000 AND faults_0_duration_ms = 12000 AND seed = 1").first()
    path = os.path.join(out, "events", "session_timeout_ms=6000", "faults_0_duration_ms=12000",
                        f"{row.run_id}.parquet")
    assert os.path.exists(path)
    run = simulate(scenario_from_spec(json.loads(row.scenario)))
    assert run.summary["rebalances"] == row.rebalances
    assert run.summary["latency_ms"]["p99"] == row.latency_p99_ms
    got = events.where(f"run_id = '{row.run_id}'").orderBy("seq").select(*FIELDS).collect()
    assert [tuple(r) for r in got] == [tuple(float(x) if i == 10 and x is not None else x for i, x in enumerate(r))
                                       for r in run.rows]


def test_a_rerun_skips_what_is_written_and_an_extension_runs_only_the_new_runs(spark, swept):
    out, *_ = swept
    again = ks.sweep(spark, GRID, out)
    assert (again.skipped, again.done, again.failed) == (8, 0, 0)
    wider = {**GRID, "grid": {**GRID["grid"], "session.timeout.ms": [6_000, 30_000, 45_000]}}
    more = ks.sweep(spark, wider, out)
    assert (more.runs, more.skipped, more.done) == (12, 8, 4)
    _, summaries = ks.read_sweep(spark, out)
    assert summaries.count() == 12 and summaries.select("run_id").distinct().count() == 12


def test_a_run_that_fails_is_recorded_and_retried(spark, tmp_path):
    # Scenario accepts the fault (it names a member), simulate() rejects it: the run fails in an executor.
    grid = {"base": {**BASE, "faults": [{"type": "Crash", "member": "c-9", "at_ms": 1_000}]},
            "grid": {"members": [2]}}
    first = ks.sweep(spark, grid, str(tmp_path))
    assert (first.done, first.failed) == (0, 1)
    _, summaries = ks.read_sweep(spark, str(tmp_path))
    assert "c-9" in summaries.first().error
    assert ks.sweep(spark, grid, str(tmp_path)).failed == 1  # not skipped: failed runs are retried


def test_another_sweep_into_the_same_folder_is_refused(spark, swept):
    out, *_ = swept
    with pytest.raises(ConfigError, match="another --out"):
        ks.sweep(spark, {"base": BASE, "grid": {"members": [2, 3]}}, out)


# -- analysis ---------------------------------------------------------------------------------------
def test_episodes_and_group_states_add_up_to_the_runs_rebalance_time(swept):
    _, _, events, summaries = swept
    episodes = ks.rebalance_episodes(events).toPandas()
    end = summaries.select("run_id", "end_ms", "rebalance_ms", "rebalances").toPandas().set_index("run_id")
    episodes["until"] = episodes["end"].fillna(episodes["run_id"].map(end["end_ms"]))
    total = (episodes["until"] - episodes["start"]).groupby(episodes["run_id"]).sum()
    assert total.to_dict() == end["rebalance_ms"].to_dict()
    assert episodes.groupby("run_id")["rebalances"].sum().to_dict() == end["rebalances"].to_dict()
    assert set(episodes["outcome"].dropna()) <= {"Stable", "Empty"}
    first = episodes[episodes["episode"] == 1]
    assert (first["generation"] == 1).all() and first["reason"].str.startswith("Adding new member").all()

    states = ks.time_in_state(events, per="group", end=summaries).toPandas()
    rebalancing = states[states["state"].isin(["PreparingRebalance", "CompletingRebalance"])]
    assert rebalancing.groupby("run_id")["ms"].sum().to_dict() == end["rebalance_ms"].to_dict()


def test_member_time_in_state_equals_run_member_states(swept):
    _, _, events, summaries = swept
    row = summaries.orderBy("run_id").first()
    run = simulate(scenario_from_spec(json.loads(row.scenario)))
    states = run.member_states()
    expected = (states["end"] - states["start"]).groupby([states["member"], states["state"]]).sum().to_dict()
    got = ks.time_in_state(events.where(f"run_id = '{row.run_id}'"), per="member", end=summaries).toPandas()
    assert {(r.member, r.state): r.ms for r in got.itertuples()} == expected
    assert got.groupby("member")["share"].sum().round(9).eq(1).all()


def test_parameter_tables_and_the_safe_region(swept):
    _, _, _, summaries = swept
    plain = summaries.toPandas()
    table = ks.by_parameters(summaries, metrics=["duplicates"]).toPandas()
    expected = plain.groupby(["session_timeout_ms", "faults_0_duration_ms"])["duplicates"].mean()
    assert table.set_index(["session_timeout_ms", "faults_0_duration_ms"])["duplicates_mean"].to_dict() == \
        expected.to_dict()
    assert (table["runs"] == 2).all()
    safe = ks.safe_region(summaries).toPandas().set_index(["session_timeout_ms", "faults_0_duration_ms"])
    # Unsafe exactly where a pause outlasted the session: the member was removed.
    assert safe["safe"].to_dict() == {(6000, 2000): True, (6000, 12000): False, (30000, 2000): True,
                                      (30000, 12000): True}
    rates = ks.rebalance_rate(ks.read_sweep(summaries.sparkSession, swept[0])[0], span=summaries).toPandas()
    assert rates.set_index("run_id")["rebalances"].to_dict() == plain.set_index("run_id")["rebalances"].to_dict()


# -- Kafka 4's consumer protocol as a sweep dimension ---------------------------------------------------------
PROTOCOL_GRID = {"base": {**BASE, "kafka_version": "4.0", "duration_ms": 90_000},
                 "grid": {"group.protocol": ["classic", "consumer"], "faults[0].duration_ms": [2_000, 50_000]},
                 "seeds": 1}


@pytest.fixture(scope="module")
def protocol_swept(spark, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("protocols"))
    result = ks.sweep(spark, PROTOCOL_GRID, out, runs_per_task=2)
    events, summaries = ks.read_sweep(spark, out)
    return out, result, events, summaries


def test_a_sweep_takes_the_group_protocol_as_a_dimension(protocol_swept):
    out, result, events, summaries = protocol_swept
    assert (result.runs, result.done, result.failed) == (4, 4, 0)
    assert sorted(os.listdir(os.path.join(out, "events"))) == ["group_protocol=classic", "group_protocol=consumer"]
    got = summaries.toPandas().set_index("run_id").sort_index()
    plain = pd.DataFrame(run_all(Grid.from_dict(PROTOCOL_GRID).runs())).set_index("run_id").sort_index()
    for column in METRICS + ["group_protocol", "faults_0_duration_ms"]:
        assert got[column].tolist() == plain[column].tolist(), column
    consumer = events.where("group_protocol = 'consumer' AND kind = 'ConsumerGroupHeartbeat'").count()
    assert consumer > 0 and events.where("group_protocol = 'classic' AND kind = 'ConsumerGroupHeartbeat'").count() == 0


def test_consumer_group_episodes_are_its_assigning_and_reconciling_stretches(protocol_swept):
    _, _, events, summaries = protocol_swept
    end = summaries.select("run_id", "group_protocol", "end_ms", "rebalance_ms", "rebalances").toPandas() \
        .set_index("run_id")
    episodes = ks.rebalance_episodes(events).toPandas()
    episodes["until"] = episodes["end"].fillna(episodes["run_id"].map(end["end_ms"]))
    total = (episodes["until"] - episodes["start"]).groupby(episodes["run_id"]).sum()
    assert total.to_dict() == end["rebalance_ms"].to_dict()  # both protocols, as Run.summary counts them
    assert episodes.groupby("run_id")["rebalances"].sum().to_dict() == end["rebalances"].to_dict()
    consumer = episodes[episodes["run_id"].map(end["group_protocol"]) == "consumer"]
    assert set(consumer["outcome"].dropna()) <= {"Stable", "Empty"} and consumer["members"].isna().all()
    first = consumer[consumer["episode"] == 1]
    assert (first["reason"] == "new_group").all() and (first["generation"] == 1).all()

    states = ks.time_in_state(events, per="group", end=summaries).toPandas()
    states["protocol"] = states["run_id"].map(end["group_protocol"])
    assert set(states.loc[states["protocol"] == "consumer", "state"]) <= {"Assigning", "Reconciling", "Stable", "Empty"}
    rebalancing = states[states["state"].isin(ks.REBALANCING_STATES)]
    assert rebalancing.groupby("run_id")["ms"].sum().to_dict() == end["rebalance_ms"].to_dict()
    assert "Reconciling" in set(rebalancing.loc[rebalancing["protocol"] == "consumer", "state"])

    rates = ks.rebalance_rate(events, span=summaries).toPandas().set_index("run_id")
    assert rates["rebalances"].to_dict() == end["rebalances"].to_dict()


def test_consumer_member_time_in_state_equals_run_member_states(protocol_swept):
    _, _, events, summaries = protocol_swept
    row = summaries.where("group_protocol = 'consumer' AND faults_0_duration_ms = 50000").first()
    run = simulate(scenario_from_spec(json.loads(row.scenario)))
    states = run.member_states()
    expected = (states["end"] - states["start"]).groupby([states["member"], states["state"]]).sum().to_dict()
    got = ks.time_in_state(events.where(f"run_id = '{row.run_id}'"), per="member", end=summaries).toPandas()
    assert {(r.member, r.state): r.ms for r in got.itertuples()} == expected


def test_parameter_tables_and_the_safe_region_per_protocol(protocol_swept):
    _, _, _, summaries = protocol_swept
    plain = summaries.toPandas()
    keys = ["group_protocol", "faults_0_duration_ms"]
    table = ks.by_parameters(summaries, metrics=["duplicates", "rebalance_ms"]).toPandas().set_index(keys)
    for metric in ("duplicates", "rebalance_ms"):
        assert table[f"{metric}_mean"].to_dict() == plain.groupby(keys)[metric].mean().to_dict()
    safe = ks.safe_region(summaries).toPandas().set_index(keys)
    # A 50 s pause outlasts both 45 s sessions (session.timeout.ms, group.consumer.session.timeout.ms).
    assert safe["safe"].to_dict() == {("classic", 2000): True, ("classic", 50000): False,
                                      ("consumer", 2000): True, ("consumer", 50000): False}
    assert safe.loc[("consumer", 50000), "worst_removals_unplanned"] == 1


# -- broker logs ----------------------------------------------------------------------------------------
def _logs(folder):
    """A simulated 3.7 log (a rebalance storm of pauses), as a rotated file, a .gz rotation, and the
    current file with noise, a wrapped line and a cut line."""
    run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=120_000, consumer={"session.timeout.ms": 6_000},
                            faults=(F.Pause("c-1", 20_000, 10_000), F.Pause("c-2", 60_000, 10_000))))
    noise = "[2026-01-01 00:00:01,000] INFO [ReplicaManager broker=0] Shrinking ISR (kafka.server.ReplicaManager)"
    lines = [x for line in run.broker_log for x in (line, noise)] * 30
    (folder / "server.log.1").write_text("\n".join(lines) + "\n")
    with gzip.open(folder / "server.log.2.gz", "wt") as f:
        f.write("\n".join(lines[:200]) + "\n")
    long = max(run.broker_log, key=len)
    current = lines[:50] + [long[:90], long[90:], long[:120], "\x00garbage"] + lines[50:]
    (folder / "server.log").write_text("\n".join(current) + "\n")
    return run


def test_parse_broker_logs_equals_the_plain_parser(spark, tmp_path):
    _logs(tmp_path)
    size = (tmp_path / "server.log").stat().st_size
    parsed = ks.parse_broker_logs(spark, [tmp_path], str(tmp_path / "out"), chunk_bytes=size // 3)
    files = expand_paths([tmp_path])
    assert parsed.tasks == len(chunk_plan(files, size // 3)) >= 3 + 1 + 3  # the plain files split, the .gz whole
    plain = parse_files(files)
    assert {k: parsed.counts[k] for k in COUNTS} == {k: plain.counts.get(k, 0) for k in COUNTS}
    got = parsed.events.orderBy("file", "seq").toPandas()
    want = plain.events().sort_values(["file", "seq"], kind="stable").reset_index(drop=True)
    assert got["kind"].tolist() == want["kind"].tolist()
    assert got[["time", "line", "seq"]].values.tolist() == want[["time", "line", "seq"]].values.tolist()
    unparsed = parsed.unparsed.orderBy("line").collect()
    assert [(os.path.basename(r.file), r.line, r.problem.startswith("truncated")) for r in unparsed] == [
        ("server.log", 53, True)]
    assert parsed.counts["joined"] == 1


def test_the_same_analysis_reads_a_parsed_log_and_the_run_it_came_from(spark, tmp_path):
    run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=120_000, consumer={"session.timeout.ms": 6_000},
                            faults=(F.Pause("c-1", 20_000, 10_000), F.ScaleIn(80_000, ("c-2", "c-3")),
                                    F.ScaleIn(100_000, ("c-1",)))))
    (tmp_path / "server.log").write_text("\n".join(run.broker_log) + "\n")
    parsed = ks.parse_broker_logs(spark, [tmp_path / "server.log"], str(tmp_path / "out"))
    simulated = spark.createDataFrame(run.events.assign(seq=range(len(run.rows))))
    columns = ["start", "end", "rebalances", "generation", "outcome", "reason"]
    from_log = ks.rebalance_episodes(parsed.events).orderBy("start").toPandas()[columns]
    from_run = ks.rebalance_episodes(simulated).orderBy("start").toPandas()[columns]
    pd.testing.assert_frame_equal(from_log, from_run, check_dtype=False)
    assert len(from_log) >= 3 and from_log["outcome"].iloc[-1] == "Empty"


def test_missing_log_paths_are_named(spark, tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.log"):
        ks.parse_broker_logs(spark, [tmp_path / "missing.log"], str(tmp_path / "out"))
