"""The same sweep and the same log parse on a real standalone cluster (a master and a worker from
the venv's PySpark) and on a real Spark Connect server, through `kafkasim` as a user runs it,
row for row and byte for byte equal to local mode; and what a user meets on a cluster: relative
paths, a session asked for twice, another master, an unreachable master, executors that cannot
run kafkasim. Each Spark client runs in a process of its own (one Spark session per process)."""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from kafkasim import Scenario, simulate
from kafkasim.analysis import spark as ks
from kafkasim.analysis.cli import EXIT_OK, EXIT_SPARK
from kafkasim.analysis.logs import ROW_FIELDS, parse_files
from spark_helpers import connect_server, free_port, snapshot, standalone_cluster

pytestmark = pytest.mark.cluster

GRID = {"base": {"members": 3, "topics": {"t": 4}, "duration_ms": 60_000,
                 "faults": [{"type": "Pause", "member": "c-1", "at_ms": 20_000, "duration_ms": 8_000}]},
        "grid": {"session.timeout.ms": [6_000, 30_000]}, "seeds": 4}
RUNS = 8
PYTHON = f"spark.pyspark.python={sys.executable}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with standalone_cluster(tmp_path_factory.mktemp("standalone")) as url:
        yield url


@pytest.fixture(scope="module")
def connect(tmp_path_factory):
    with connect_server(tmp_path_factory.mktemp("connect")) as url:
        yield url


@pytest.fixture(scope="module")
def local_sweep(spark, tmp_path_factory):
    out = tmp_path_factory.mktemp("local-sweep")
    ks.sweep(spark, GRID, str(out))
    return snapshot(out)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """Two broker logs, and what the plain parser reads from them (by the names given)."""
    folder = tmp_path_factory.mktemp("logs")
    for i, name in enumerate(("server.log", "server.log.1")):
        run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=60_000, seed=i + 1))
        (folder / name).write_text("\n".join(run.broker_log) + "\n")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        expected = parse_files(["server.log", "server.log.1"])
    finally:
        os.chdir(cwd)
    return folder, expected


def kafkasim(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkasim.analysis.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def sweep_on(master: str, tmp_path: Path, *conf: str) -> tuple[subprocess.CompletedProcess, Path]:
    (tmp_path / "grid.yaml").write_text(yaml.safe_dump(GRID))
    conf_args = [a for c in conf for a in ("--conf", c)]
    done = kafkasim("sweep", "grid.yaml", "--out", "out", "--master", master, *conf_args, cwd=tmp_path)
    return done, tmp_path / "out"


def check_sweep(done: subprocess.CompletedProcess, out: Path, master: str, local_sweep) -> None:
    assert done.returncode == EXIT_OK, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == f"kafkasim sweep: starting Spark on {master}"
    progress = [line for line in lines if line.startswith(f"sweep of {RUNS} runs: ")]
    assert progress[-1].startswith(f"sweep of {RUNS} runs: {RUNS}/{RUNS} runs (100%)")  # the final line is right
    assert f"{RUNS} runs in the grid: {RUNS} simulated now ({RUNS} ok, 0 failed)" in done.stdout
    assert snapshot(out) == local_sweep


def check_logs(done: subprocess.CompletedProcess, out: Path, expected) -> None:
    assert done.returncode == EXIT_OK, done.stderr
    events = pd.read_parquet(out / "events").sort_values(["file", "seq"])
    assert events["file"].unique().tolist() == ["server.log", "server.log.1"]  # as typed, relative
    columns = ["file", "line", "kind", "time", "group", "member"]
    at = [ROW_FIELDS.index(c) for c in columns]
    assert [tuple(r) for r in events[columns].itertuples(index=False)] == [
        tuple(r[i] for i in at) for r in expected.rows]
    assert json.loads((out / "counts.json").read_text())["counts"]["events"] == len(expected.rows)


# -- a standalone cluster --------------------------------------------------------------------------
def test_a_sweep_on_a_standalone_cluster_equals_local_mode(cluster, local_sweep, tmp_path):
    done, out = sweep_on(cluster, tmp_path, PYTHON)
    check_sweep(done, out, cluster, local_sweep)


def test_logs_with_relative_paths_on_a_standalone_cluster(cluster, logs, tmp_path):
    folder, expected = logs
    out = tmp_path / "out"
    done = kafkasim("logs", "server.log", "server.log.1", "--out", str(out), "--master", cluster, "--conf", PYTHON,
                    cwd=folder)
    check_logs(done, out, expected)


def test_a_session_asked_for_twice_ships_kafkasim_once_and_another_master_is_refused(cluster, tmp_path):
    script = textwrap.dedent(f"""
        from kafkasim.analysis import spark as ks
        first = ks.session({cluster!r}, conf={{"spark.pyspark.python": {sys.executable!r}}})
        path = ks.package_zip()
        again = ks.session({cluster!r}, conf={{"spark.pyspark.python": {sys.executable!r}}})
        print("same", first is again, ks.package_zip() == path)
        def where(batches):
            import kafkasim
            for b in batches:
                yield b.assign(path=kafkasim.__file__)
        print("executors_import", first.range(1).mapInPandas(where, "id long, path string").first().path)
        try:
            ks.session("local[1]")
        except ks.SparkUnavailable as e:
            print("refused", e.kind, e)
        print("zip", path)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    out = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert done.returncode == 0, done.stderr
    assert out["same"] == "True True"
    assert "kafkasim.zip" in out["executors_import"]  # the shipped sources, not an installed copy
    assert out["refused"] == (f"session a Spark session on {cluster} is already running in this process: stop it "
                              f"first (spark.stop()) to start one on local[1]")
    assert not Path(out["zip"]).exists()  # the zip's folder went with the process


def test_executors_without_kafkasims_packages_are_named_in_one_line(cluster, tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    done, _ = sweep_on(cluster, tmp_path, f"spark.pyspark.python={tmp_path / 'bare' / 'bin' / 'python'}")
    assert done.returncode == EXIT_SPARK["executors"] == 5
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"kafkasim sweep: error: the executors on {cluster} cannot import ")
    assert last.endswith("set spark.pyspark.python (or PYSPARK_PYTHON) to a Python 3.11 with numpy, pandas and "
                         "pyarrow on every node".replace("3.11", "%d.%d" % sys.version_info[:2]))
    assert "Traceback" not in done.stderr


# -- Spark Connect ---------------------------------------------------------------------------------
def test_a_sweep_over_spark_connect_equals_local_mode(connect, local_sweep, tmp_path):
    done, out = sweep_on(connect, tmp_path)
    check_sweep(done, out, connect, local_sweep)


def test_logs_over_spark_connect(connect, logs, tmp_path):
    folder, expected = logs
    out = tmp_path / "out"
    done = kafkasim("logs", "server.log", "server.log.1", "--out", str(out), "--master", connect, cwd=folder)
    check_logs(done, out, expected)


def test_spark_remote_picks_connect_and_the_client_needs_no_java(connect, logs, tmp_path):
    folder, expected = logs
    env = {**os.environ, "SPARK_REMOTE": connect, "PATH": os.path.dirname(sys.executable)}
    env.pop("JAVA_HOME", None)
    done = subprocess.run([sys.executable, "-m", "kafkasim.analysis.cli", "logs", "server.log", "server.log.1",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=folder, env=env,
                          timeout=300)
    assert done.stderr.startswith(f"kafkasim logs: starting Spark on {connect}")
    check_logs(done, tmp_path / "out", expected)


# -- a master that is not there --------------------------------------------------------------------
@pytest.mark.parametrize("scheme,what", [("spark", "Spark master"), ("sc", "Spark Connect server")])
def test_an_unreachable_master_is_named_at_once(tmp_path, scheme, what):
    url = f"{scheme}://127.0.0.1:{free_port()}"
    start = time.monotonic()
    done, _ = sweep_on(url, tmp_path)
    assert done.returncode == EXIT_SPARK["unreachable"] == 4
    assert done.stderr.strip().splitlines()[-1] == (f"kafkasim sweep: error: cannot reach the {what} at {url} "
                                                    f"(Connection refused): check the URL and that it is running")
    assert time.monotonic() - start < 30


# -- executors with another Python (its message, as PySpark's worker words it) ------------------------
class _Refusing:
    """A session whose one task fails with `error` (an executor's Python can only be changed on a
    real cluster by installing another one, which a test machine may not have)."""

    def __init__(self, error):
        self.error = error

    def range(self, n):
        return self

    def mapInPandas(self, body, schema):
        return self

    def collect(self):
        raise self.error


@pytest.mark.parametrize("text,cause", [
    ("PythonException: [PYTHON_VERSION_MISMATCH] Python in worker has different version: 3.12 than that in "
     "driver: 3.11, PySpark cannot run with different minor versions.", "run another Python than this driver"),
    ("Python in worker has different version (3, 10) than that in driver 3.11, PySpark cannot run with "
     "different minor versions.", "run another Python than this driver"),
    ("ModuleNotFoundError: No module named 'pyarrow'", "cannot import pyarrow"),
    ("Cannot run program \"/opt/nope/python\": error=2, No such file or directory", "cannot run Python tasks "
     "(Cannot run program \"/opt/nope/python\": error=2, No such file or directory)"),
])
def test_executor_failures_are_named_with_the_fix(text, cause):
    here = "%d.%d" % sys.version_info[:2]
    with pytest.raises(ks.SparkUnavailable) as e:
        ks._check_executors(_Refusing(RuntimeError(text + "\n\tat org.apache.spark...")), "spark://m:7077")
    assert e.value.kind == "executors"
    assert str(e.value) == (f"the executors on spark://m:7077 {cause}: set spark.pyspark.python (or PYSPARK_PYTHON) "
                            f"to a Python {here} with numpy, pandas and pyarrow on every node")
