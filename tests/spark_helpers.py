"""Spark test helpers: what a sweep folder holds (`snapshot`), and real Spark servers started from
the venv's own PySpark (`spark-class`) on free ports: a standalone master with one worker, and a
Spark Connect server. Each server runs in its own process group, logs into a folder of the
test's, and is stopped (the whole group) when the test ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pyarrow.dataset as ds
import pyspark

SPARK_HOME = os.path.dirname(pyspark.__file__)
SPARK_CLASS = os.path.join(SPARK_HOME, "bin", "spark-class")


def snapshot(out: Path) -> tuple:
    """Everything a sweep folder holds that a reader sees: summary rows (without the wall-clock
    `sim_seconds`) sorted by run, and each events file's bytes by path."""
    table = ds.dataset(out / "summaries", format="parquet", partitioning="hive").to_table()
    rows = sorted(table.drop(["sim_seconds"]).to_pylist(), key=lambda r: r["run_id"])
    events = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted((out / "events").rglob("*.parquet"))}
    return rows, events


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The options of every JVM the tests start (tests/conftest.py gives them to the drivers and executors): they
#: live for seconds to minutes, and a sweep's or a log parse's work is Python's, so the client compiler alone (C1)
#: and the serial collector do, for a quarter less CPU (a 48-run `kafkasim sweep`: 73 to 55 s, measured).
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _env(logs: Path) -> dict:
    return {**os.environ, "SPARK_HOME": SPARK_HOME, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(logs),
            "PYSPARK_PYTHON": sys.executable,
            "SPARK_DAEMON_JAVA_OPTS": JVM_OPTIONS,  # the master's and the worker's
            # No REST submission server (port 6066) beside the master.
            "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false"}


def _start(args: list[str], log: Path, env: dict) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen([SPARK_CLASS, *args], stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)


def _wait(proc: subprocess.Popen, log: Path, ready: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while ready not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{log.name} did not start: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextmanager
def standalone_cluster(folder: Path, cores: int = 2):
    """A master and one worker with `cores` cores: yields the master URL."""
    folder.mkdir(parents=True, exist_ok=True)
    env = _env(folder)
    port = free_port()
    procs = []
    try:
        master_log = folder / "master.log"
        procs.append(_start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                             "--webui-port", str(free_port())], master_log, env))
        _wait(procs[0], master_log, "I have been elected leader")
        url = f"spark://127.0.0.1:{port}"
        worker_log = folder / "worker.log"
        procs.append(_start(["org.apache.spark.deploy.worker.Worker", url, "--cores", str(cores), "--memory", "2g",
                             "--webui-port", str(free_port()), "--work-dir", str(folder / "work")], worker_log, env))
        _wait(procs[1], worker_log, "Successfully registered with master")
        yield url
    finally:
        _stop(procs)


@contextmanager
def connect_server(folder: Path, master: str = "local[2]"):
    """A Spark Connect server running `master`: yields its sc:// URL."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = folder / "connect.log"
    proc = _start([*JVM_OPTIONS.split(), f"-Dspark.master={master}", f"-Dspark.connect.grpc.binding.port={port}",
                   "-Dspark.ui.enabled=false", "org.apache.spark.sql.connect.service.SparkConnectServer"],
                  log, _env(folder))
    try:
        _wait(proc, log, "Spark Connect server started")
        yield f"sc://127.0.0.1:{port}"
    finally:
        _stop([proc])
