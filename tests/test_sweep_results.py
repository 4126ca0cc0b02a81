"""Stored sweep results (kafkasim.analysis.results): a result is read only when it was made from
the same inputs by the same simulator code; otherwise the sweep runs again, resuming the work
folder an interrupted computation left. The results committed in notebooks/results/ must be
those of today's code: each one's key is checked, and some of its runs are simulated again and
compared field by field."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kafkasim.analysis import results
from kafkasim.analysis import spark as ks
from kafkasim.analysis.sweep_grid import SUMMARY_METRICS, Grid, finished_runs, run_one

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = sorted((ROOT / "notebooks" / "results").rglob("*.parquet"))
GRID = {"base": {"members": 2, "topics": {"t": 2}, "duration_ms": 60_000},
        "grid": {"session.timeout.ms": [6_000, 10_000]}, "seeds": 3}
RUNS = 6


# -- the key -------------------------------------------------------------------------------------
def copy_of_package(tmp_path: Path) -> Path:
    package = tmp_path / "kafkasim"
    shutil.copytree(results.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def test_code_version_follows_the_model_files_only(tmp_path):
    package = copy_of_package(tmp_path)
    before = results.code_version(package)
    assert before == results.code_version(results.PACKAGE)
    (package / "viz" / "charts.py").write_text("# a view is not part of a sweep's rows\n")
    (package / "analysis" / "logs" / "reader.py").write_text("# nor is the log reader\n")
    assert results.code_version(package) == before
    coordinator = package / "coordinator" / "classic" / "group.py"
    coordinator.write_text(coordinator.read_text() + "\n# one more line\n")
    assert results.code_version(package) != before


def test_the_code_version_covers_every_module_a_sweep_runs(tmp_path):
    """Simulate one run of each kind chapter 10 sweeps, in a fresh interpreter: every kafkasim module
    it imports (the log reader aside, `kafkasim.analysis.logs`, which `kafkasim.analysis.spark` imports for logs) is a
    file that code_version hashes."""
    script = """
import json, sys
from kafkasim.analysis.sweep_grid import Grid, run_one
from kafkasim.analysis import spark
base = {"topics": {"orders": 6}, "produce_rate_per_s": 120, "duration_ms": 30000,
        "processing_ms": {"type": "LogNormal", "median_ms": 2, "p99_ms": 500}}
for version, consumer in [("0.10.0", {"session.timeout.ms": 6000, "request.timeout.ms": 305000}), ("3.7", {}),
                          ("4.0", {"group.protocol": "classic"}), ("4.0", {"group.protocol": "consumer"})]:
    grid = {"base": {**base, "kafka_version": version, "consumer": consumer}, "grid": {"members": [3]}}
    assert all(run_one(run)[1]["error"] is None for run in Grid.from_dict(grid).runs())
print(json.dumps(sorted(m.__file__ for name, m in sys.modules.items() if name.startswith("kafkasim"))))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    imported = {Path(f).resolve() for f in json.loads(out.stdout)}
    hashed = set(results.source_files())
    assert imported - hashed == set((results.PACKAGE / "analysis" / "logs").glob("*.py"))
    assert len(imported & hashed) >= 40  # the models, the scenario layer and the sweep code, found by path


def test_the_key_changes_with_the_inputs_and_the_code():
    key = results.result_key({"grid": GRID, "warmup_ms": 10_000}, code="a" * 16)
    assert key == results.result_key({"warmup_ms": 10_000, "grid": GRID}, code="a" * 16)  # order does not matter
    assert key != results.result_key({"grid": GRID, "warmup_ms": 5_000}, code="a" * 16)
    assert key != results.result_key({"grid": GRID, "warmup_ms": 10_000}, code="b" * 16)


def test_find_reads_only_a_file_with_the_same_key(tmp_path):
    table = pa.table({"run_id": ["b", "a"], "x": [2, 1]})
    path = results.store(table, tmp_path / "one" / "r.parquet", {"grid": GRID}, regenerate="make it")
    record = results.read_record(path)
    assert record["key"] == results.result_key({"grid": GRID})
    assert record["code_version"] == results.code_version() and record["rows"] == 2
    assert pq.read_table(path)["run_id"].to_pylist() == ["a", "b"]  # sorted: the same runs, the same file
    assert results.find("r", record["key"], [None, tmp_path / "none", tmp_path / "one"]).path == path
    assert results.find("r", results.result_key({"grid": GRID, "seeds": 9}), [tmp_path / "one"]) is None
    pq.write_table(table, tmp_path / "plain.parquet")
    with pytest.raises(ValueError, match="plain.parquet is not a stored sweep result"):
        results.read_record(tmp_path / "plain.parquet")


# -- cached, on Spark --------------------------------------------------------------------------------
def summaries_of(spark):
    calls = []

    def compute(work):
        calls.append(ks.sweep(spark, GRID, str(Path(work) / "sweep")))
        _, summaries = ks.read_sweep(spark, str(Path(work) / "sweep"))
        return summaries.drop("scenario", "provenance", "sim_seconds")
    return compute, calls


def test_a_result_is_computed_once_then_read(spark, tmp_path, monkeypatch):
    compute, calls = summaries_of(spark)
    lines = []
    first = results.cached(spark, "s", {"grid": GRID}, compute, folders=[], cache=tmp_path, regenerate="r",
                           report=lines.append)
    second = results.cached(spark, "s", {"grid": GRID}, compute, folders=[], cache=tmp_path, regenerate="r",
                            report=lines.append)
    assert [c.done for c in calls] == [RUNS]  # the second call simulated nothing
    assert first.count() == second.count() == RUNS
    key = results.result_key({"grid": GRID})
    assert lines == [f"s: {RUNS} runs stored in {tmp_path / 's.parquet'} (key {key})",
                     f"s: {RUNS} runs read from {tmp_path / 's.parquet'} (key {key}: the same inputs and "
                     f"simulator code {results.code_version()})"]
    assert not (tmp_path / "work").exists() or not any((tmp_path / "work").iterdir())  # work folder removed
    # Another simulator: the stored result is stale, so the sweep runs again.
    monkeypatch.setattr(results, "code_version", lambda package=None: "0" * 16)
    results.cached(spark, "s", {"grid": GRID}, compute, folders=[], cache=tmp_path, regenerate="r",
                   report=lines.append)
    assert [c.done for c in calls] == [RUNS, RUNS]


def test_an_interrupted_computation_resumes_its_work_folder(spark, tmp_path):
    compute, calls = summaries_of(spark)

    def interrupted(work):
        ks.sweep(spark, {**GRID, "seeds": 2}, str(Path(work) / "sweep"))  # 4 of the 6 runs, then it stops
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        results.cached(spark, "s", {"grid": GRID}, interrupted, folders=[], cache=tmp_path, regenerate="r")
    work = tmp_path / "work" / f"s-{results.result_key({'grid': GRID})}"
    assert len(finished_runs(str(work / "sweep"))) == 4
    results.cached(spark, "s", {"grid": GRID}, compute, folders=[], cache=tmp_path, regenerate="r")
    assert [(c.skipped, c.done) for c in calls] == [(4, 2)]


def test_committed_results_come_first(spark, tmp_path):
    compute, calls = summaries_of(spark)
    results.cached(spark, "s", {"grid": GRID}, compute, folders=[], cache=tmp_path / "committed", regenerate="r")
    lines = []
    results.cached(spark, "s", {"grid": GRID}, compute, folders=[tmp_path / "committed"], cache=tmp_path / "cache",
                   regenerate="r", report=lines.append)
    assert len(calls) == 1 and "read from" in lines[0] and "committed" in lines[0]
    assert not (tmp_path / "cache" / "s.parquet").exists()


# -- the committed results ------------------------------------------------------------------------
def test_there_are_committed_results():
    assert COMMITTED, "notebooks/results/ holds no stored sweep results"


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_committed_results_are_todays_or_reproduced_by_todays_code(path):
    """A committed result is read by the chapter only if today's simulator made it, or gives the same
    rows for the runs `results.reproduces` simulates again; otherwise the book would sweep again."""
    record = results.read_record(path)
    assert record["key"] == results.result_key(record["inputs"], record["code_version"])
    assert record["rows"] == pq.read_metadata(path).num_rows == Grid.from_dict(record["inputs"]["grid"]).size
    if record["code_version"] != results.code_version():
        assert results.reproduces(path) == [], (
            f"{path.relative_to(ROOT)} was made by the simulator at {record['code_version']}, and today's code "
            f"({results.code_version()}) gives other rows for some of its runs. Make it again: {record['regenerate']}")


def test_a_stored_result_of_other_code_is_read_only_while_its_sampled_runs_reproduce(tmp_path, monkeypatch):
    """Today's code reproduces the sampled runs: the file is found; a field changed in one sampled
    row (as a model change would): the run is named and the file is not read."""
    path = COMMITTED[0]
    inputs = results.read_record(path)["inputs"]
    monkeypatch.setattr(results, "SAMPLE", 2)
    assert results.find_reproduced(path.stem, inputs, [path.parent]).path == path
    table = pq.read_table(path)
    first = table.slice(0, 1).to_pylist()[0]
    changed = pa.Table.from_pylist([{**first, "rebalances": first["rebalances"] + 1}], schema=table.schema)
    tampered = tmp_path / path.name
    pq.write_table(pa.concat_tables([changed, table.slice(1)]), tampered)
    assert results.reproduces(tampered, sample=2) == [first["run_id"]]
    assert results.find_reproduced(path.stem, inputs, [tmp_path]) is None
    assert results.find_reproduced(path.stem, {**inputs, "warmup_ms": 1}, [path.parent]) is None  # other inputs


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_committed_rows_are_what_the_simulator_gives(path):
    """Five runs of each file, picked across it, simulated again: every summary field equal, and the
    rebalances after the warm-up (chapter 10's derived column) counted again from the events."""
    record = results.read_record(path)
    table = pq.read_table(path)
    specs = {r.run_id: r for r in Grid.from_dict(record["inputs"]["grid"]).runs(check=False)}
    assert set(table["run_id"].to_pylist()) == set(specs)
    rows = table.to_pylist()
    for row in rows[:: max(1, len(rows) // 5)][:5]:
        run, fresh = run_one(specs[row["run_id"]])
        assert row["error"] is None and fresh["error"] is None
        assert {m: row[m] for m in SUMMARY_METRICS} == {m: fresh[m] for m in SUMMARY_METRICS}, row["run_id"]
        assert (row["end_ms"], row["seed"], json.loads(row["duplicates_by_cause"])) == (
            run.end_ms, specs[row["run_id"]].seed, json.loads(fresh["duplicates_by_cause"]))
        if "storm_rebalances" in row:
            later = sum(1 for e in run.rows  # rows are FIELDS tuples: time first, kind fifth
                        if e[4] == "RebalanceStarted" and e[0] >= record["inputs"]["warmup_ms"])
            assert row["storm_rebalances"] == later, row["run_id"]
