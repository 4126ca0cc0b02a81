"""kafkasim on Spark: parameter sweeps, real broker logs, and their analysis in the DataFrame API.

Needs the `spark` extra (PySpark 4, Java 17+). `import kafkasim` never imports this module.

- `session()`: a quiet local SparkSession (or a cluster one with `master=`), with kafkasim
  importable by the executors.
- `sweep(spark, grid, out)`: every run of a `kafkasim.analysis.sweep_grid.Grid` simulated inside Spark executors
  (`mapInPandas`). Each executor commits its runs one by one (`sweep_grid.commit_run`): the events at
  `out/events/<param>=<value>/.../<run_id>.parquet`, then the run's summary row in `out/summaries`
  under the same folders, merged into one file per combination when the sweep ends. Events never
  pass through the JVM, so the simulator's time is what a sweep costs. Runs already in `out` are
  skipped, so an interrupted (Ctrl-C, a killed driver) or extended sweep resumes, losing at most
  the runs in flight.
- `parse_broker_logs(spark, paths, out)`: Kafka broker logs read by `kafkasim.analysis.log_parser` in
  executors, in byte-range chunks of large files, into `out/events` and `out/unparsed`.
- Analysis that works on simulated and parsed events alike: `rebalance_episodes` (window
  functions over the coordinator's group-state changes), `time_in_state` (per member or per
  group), `rebalance_rate`; and over sweep summaries: `by_parameters` and `safe_region`.
  Classic groups and consumer groups (KIP-848, `group.protocol=consumer`, which a sweep can
  take as a dimension) alike: a consumer group rebalances while Assigning or Reconciling, and
  a rebalance starts with a group epoch bump (GroupEpochBumped), as `Run.summary` counts them.

Executors write their Parquet files themselves (a temporary name, then an atomic rename; a
retried task rewrites identical bytes), so output paths must be on storage every executor can
reach: always true for `local[N]`, a shared file system on a cluster.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterable

try:
    from pyspark.sql import Window
    from pyspark.sql import functions as F
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError("kafkasim.analysis.spark needs PySpark 4 and Java 17+: pip install 'kafkasim[spark]'") from e

from kafkasim.coordinator.broker_log import START_TIME
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS, REMOVAL_REASONS
from kafkasim.analysis.sweep_grid import (SUMMARY_COLUMNS, Grid, RunSpec, commit_run, compact_summaries, finished_runs,
                                         open_sweep_folder)
from kafkasim.analysis.log_parser import (COUNTS, chunk_plan, count_newlines, expand_paths, fresh_output,
                                         parse_chunk, write_part)
from kafkasim.scenario.run import REBALANCE_PHASES, REBALANCE_STARTS

MIN_JAVA = 17
#: Runs per sweep task unless told otherwise (see `sweep`).
RUNS_PER_TASK = 16
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
# PySpark's gateway counts as a shell: without a level of its own Spark resets the console to WARN.
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""
_EVENT_TYPES = {"time": "long", "generation": "int", "partition": "int", "value": "double"}
EVENTS_DDL = ", ".join(f"`{f}` {_EVENT_TYPES.get(f, 'string')}" for f in FIELDS)
#: Group-level state changes of a classic group's coordinator (the rows whose `state` is the group's new state).
CLASSIC_GROUP_STATE_KINDS = ("RebalanceStarted", "GenerationStabilized", "AssignmentReceived", "GroupStable",
                             "GroupEmpty", "GroupDead")
#: A consumer group's (KIP-848): its coordinator writes the group state on every row, and a
#: request or timer's last row holds the state it left the group in (StateChanged when it changed).
CONSUMER_GROUP_STATE_KINDS = ("MemberJoined", "MemberLeftTemporarily", "MemberFenced", "GroupEpochBumped",
                              "TargetAssignmentComputed", "MemberEpochBumped", "MemberStateChanged", "StateChanged")
GROUP_STATE_KINDS = CLASSIC_GROUP_STATE_KINDS + CONSUMER_GROUP_STATE_KINDS
#: PreparingRebalance and CompletingRebalance (classic), Assigning and Reconciling (consumer groups).
REBALANCING_STATES = REBALANCE_PHASES
#: Where a generation or group epoch begins: GenerationStabilized (classic), GroupEpochBumped (consumer).
EPOCH_KINDS = ("GenerationStabilized", "GroupEpochBumped")
#: Removals a sweep's safe region counts by default: everything but a member leaving on purpose.
UNPLANNED_REMOVALS = tuple(r for r in REMOVAL_REASONS if r != "leave_group")


# -- Java and the session ------------------------------------------------------------------------------
def java_problem() -> str | None:
    """None if a Java >= 17 is available to Spark, else what is wrong and what to install."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    install = ("Install a Java runtime 17 or later: Debian/Ubuntu `sudo apt-get install openjdk-17-jre-headless`, "
               "macOS `brew install openjdk@17`, conda `conda install -c conda-forge openjdk=17`, then check "
               "that `java -version` works (or set JAVA_HOME).")
    if not java or not os.path.exists(java):
        where = f"JAVA_HOME={home} has no bin/java" if home else "no `java` on PATH and JAVA_HOME is not set"
        return f"Spark needs Java {MIN_JAVA}+, but {where}. {install}"
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"Spark needs Java {MIN_JAVA}+, but {java} -version failed ({e}). {install}"
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if m is None:
        return f"Spark needs Java {MIN_JAVA}+, but `{java} -version` printed no version. {install}"
    major = int(m.group(2)) if m.group(1) == "1" else int(m.group(1))  # "1.8.0_392" is Java 8
    if major < MIN_JAVA:
        return f"Spark needs Java {MIN_JAVA}+, but {java} is Java {major}. {install}"
    return None


def session(master: str = "local[2]", app_name: str = "kafkasim", quiet: bool = True, conf: dict | None = None):
    """A SparkSession with kafkasim importable by its executors (an existing session is reused).
    Local masters get small test-friendly settings; `quiet`: no UI, no console
    progress bars, log4j at ERROR; `conf`: more Spark settings. RuntimeError names what to
    install when Java is missing."""
    problem = java_problem()
    if problem:
        raise RuntimeError(problem)
    from pyspark.sql import SparkSession

    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # executors run this interpreter
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if package_root not in paths:  # local executors inherit the environment
        os.environ["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, paths)])
    local = master.startswith("local")
    if local:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {}
    if local:  # small data: a few shuffle partitions, not 200
        cores = master[6:-1] if master.startswith("local[") else "1"
        cores = str(os.cpu_count() or 1) if cores == "*" else cores.split(",")[0]
        settings = {"spark.sql.shuffle.partitions": cores, "spark.driver.memory": "1g"}
    if quiet:
        props = os.path.join(tempfile.gettempdir(), "kafkasim-log4j2.properties")
        with open(props, "w") as f:
            f.write(_LOG4J2)
        settings.update({"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                         "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{props}"})
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if quiet:
        spark.sparkContext.setLogLevel("ERROR")
    if not local:
        _ship_package(spark, package_root)
    return spark


def _ship_package(spark, package_root: str) -> None:
    """Send kafkasim to a cluster's executors as a zip (local executors import it in place)."""
    target = os.path.join(tempfile.mkdtemp(prefix="kafkasim-"), "kafkasim.zip")
    with zipfile.ZipFile(target, "w") as z:
        for root, _, names in os.walk(os.path.join(package_root, "kafkasim")):
            for name in names:
                if name.endswith(".py"):
                    full = os.path.join(root, name)
                    z.write(full, os.path.relpath(full, package_root))
    spark.sparkContext.addPyFile(target)


# -- progress ------------------------------------------------------------------------------------------
class StderrProgress:
    """Progress lines on stderr: rewritten in place on a terminal, one line every `every` s otherwise."""

    def __init__(self, label: str, every: float = 10.0, stream=None):
        self.label, self.every = label, every
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self._last = -1e9
        self._shown = None

    def __call__(self, done: int, total: int, note: str = "") -> None:
        now = time.monotonic()
        if (done, total) == self._shown or (not self.tty and now - self._last < self.every and done < total):
            return
        self._last, self._shown = now, (done, total)
        pct = 100.0 * done / total if total else 100.0
        text = f"{self.label}: {done}/{total} tasks ({pct:.0f}%){note}, {now - self.start:.0f} s"
        self.stream.write(("\r" + text + "\x1b[K") if self.tty else text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


class _Watch:
    """While an action runs: polls Spark's status tracker for the tasks of its job group, and turns
    Ctrl-C into a cancellation of that group. PySpark's own SIGINT handler calls into the JVM from
    inside the signal handler, on the connection the interrupted call is reading, which breaks it
    (tracebacks, crashed workers); here the cancellation runs on a thread of its own, the action
    fails as cancelled, and KeyboardInterrupt is raised in its place. A second Ctrl-C raises at once."""

    def __init__(self, spark, progress: Callable | None, interval: float = 0.5):
        self.sc = spark.sparkContext
        self.progress, self.interval = progress, interval
        self.group = f"kafkasim-{os.getpid()}-{time.monotonic_ns()}"
        self.interrupted = False
        self._previous = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.sc.setJobGroup(self.group, "kafkasim", interruptOnCancel=True)
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_ctrl_c)
        if self.progress is not None:
            self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        self._stop.set()
        if self.progress is not None:
            self._thread.join()
            if exc is None:
                self._report()
        self.sc.setLocalProperty("spark.jobGroup.id", None)
        if self.interrupted and exc is not None and not isinstance(exc, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        return False

    def _on_ctrl_c(self, signum, frame) -> None:
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True
        threading.Thread(target=self.sc.cancelJobGroup, args=(self.group,), daemon=True).start()

    def _report(self) -> None:
        """Tasks of the first stage of each job: the simulations (or log chunks); later stages
        only write what those produced, and adaptive execution may skip their tasks."""
        tracker = self.sc.statusTracker()
        done = total = 0
        for job_id in tracker.getJobIdsForGroup(self.group):
            job = tracker.getJobInfo(job_id)
            stage = tracker.getStageInfo(min(job.stageIds)) if job and job.stageIds else None
            if stage is not None:
                done += stage.numCompletedTasks
                total += stage.numTasks
        if total:
            self.progress(done, total)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._report()
            except Exception:  # noqa: BLE001 - progress must never break the job
                pass


def _progress(progress, label: str):
    if progress is True:
        return StderrProgress(label)
    return progress or None


# -- sweeps ----------------------------------------------------------------------------------------------
@dataclass
class SweepResult:
    out: str
    runs: int            # runs in the grid
    skipped: int         # already in `out` before this call
    done: int            # simulated now, successfully
    failed: int          # simulated now, with an error (see the summaries' `error` column)
    seconds: float
    tasks: int


def _summary_ddl(types: dict[str, str]) -> str:
    cols = {**SUMMARY_COLUMNS, **types}
    return ", ".join(f"`{name}` {kind}" for name, kind in cols.items())


def _simulate_partition(batches, out: str):
    """mapInPandas body: simulate and commit each run of the batch (`commit_run`); yield whether it
    succeeded. The results are on disk run by run, so an interruption loses only the runs in flight."""
    import pandas as pd

    for batch in batches:
        ok = []
        for spec_json, params_json, seed, rid in zip(batch["spec"], batch["params"], batch["seed"], batch["run_id"]):
            row = commit_run(RunSpec(rid, json.loads(params_json), int(seed), json.loads(spec_json)), out)
            ok.append(row["error"] is None)
        yield pd.DataFrame({"run_id": batch["run_id"], "ok": ok})


def sweep(spark, grid: Grid | str | dict, out: str, *, runs_per_task: int | None = None,
          progress: Callable | bool | None = None) -> SweepResult:
    """Simulate every run of `grid` (a Grid, a grid file path, or its dict) on Spark; results in
    `out` (see the module docstring), committed run by run: runs already there are skipped, so
    the same call resumes an interrupted sweep. Returns counts and time. `progress`: True for
    lines on stderr, or a callable(done_tasks, total_tasks)."""
    if not isinstance(grid, Grid):
        grid = Grid.from_file(grid) if isinstance(grid, (str, os.PathLike)) else Grid.from_dict(grid)
    start = time.perf_counter()
    runs = grid.runs()
    out = os.path.abspath(os.fspath(out))
    open_sweep_folder(out, grid)
    done_before = finished_runs(out)
    pending = [r for r in runs if r.run_id not in done_before]
    result = SweepResult(out, len(runs), len(runs) - len(pending), 0, 0, 0.0, 0)
    if pending:
        random.Random(0).shuffle(pending)  # mix slow and fast runs across tasks
        parallelism = spark.sparkContext.defaultParallelism
        # A Python task costs tens of ms however little it does: enough runs per task that the
        # simulations dominate, enough tasks per core to balance the load and report progress.
        tasks = -(-len(pending) // (runs_per_task or RUNS_PER_TASK))
        if runs_per_task is None:  # 4 to 8 tasks per core, whole waves
            tasks = -(-max(min(tasks, 8 * parallelism), 4 * parallelism) // parallelism) * parallelism
        tasks = min(tasks, len(pending))
        rows = [(r.run_id, json.dumps(r.params), r.seed, json.dumps(r.spec)) for r in pending]
        frame = spark.createDataFrame(spark.sparkContext.parallelize(rows, tasks),
                                      "run_id string, params string, seed long, spec string")
        body = functools.partial(_simulate_partition, out=out)
        progress = _progress(progress, f"sweep of {len(pending)} runs")
        try:
            with _Watch(spark, progress):
                outcomes = frame.mapInPandas(body, schema="run_id string, ok boolean").collect()
        finally:
            if hasattr(progress, "close"):
                progress.close()
        result.done = sum(row.ok for row in outcomes)
        result.failed, result.tasks = len(outcomes) - result.done, tasks
    compact_summaries(out)
    result.seconds = time.perf_counter() - start
    return result


def read_sweep(spark, out: str):
    """(events, summaries) DataFrames of a sweep in `out`, with the swept parameters typed as
    they were in the grid (not as Spark would guess them from directory names)."""
    with open(os.path.join(out, "sweep.json")) as f:
        types = json.load(f)["types"]
    params = ", ".join(f"`{k}` {v}" for k, v in types.items())
    events = spark.read.schema(f"{EVENTS_DDL}, run_id string, seq long, {params}").parquet(
        os.path.join(out, "events"))
    summaries = spark.read.schema(_summary_ddl(types)).parquet(os.path.join(out, "summaries"))
    best = Window.partitionBy("run_id").orderBy(F.col("error").isNull().desc())  # a success over a failure
    summaries = summaries.withColumn("_n", F.row_number().over(best)).where("_n = 1").drop("_n")
    return events, summaries


# -- broker logs -------------------------------------------------------------------------------------------
@dataclass
class LogParse:
    out: str
    files: list
    events: object      # DataFrame: FIELDS + file, line, seq, time_inferred
    unparsed: object    # DataFrame: file, line, problem, text
    counts: Counter
    seconds: float
    tasks: int


_LOG_EVENTS_DDL = f"{EVENTS_DDL}, file string, line long, seq long, time_inferred boolean"
_UNPARSED_DDL = "file string, line long, problem string, text string"
_COUNTS_DDL = "chunk long, " + ", ".join(f"{c} long" for c in COUNTS)


def _parse_partition(batches, out: str, origin: str):
    """mapInPandas body: parse each chunk, write its events and unparsed lines, yield its counts."""
    import pandas as pd

    for batch in batches:
        rows = []
        for chunk, path, start, end, before in zip(batch["chunk"], batch["path"], batch["start"], batch["end"],
                                                   batch["newlines_before"]):
            result = parse_chunk(path, int(start), int(end), int(before), datetime.fromisoformat(origin))
            write_part(result, out, int(chunk))
            rows.append({"chunk": int(chunk), **{c: result.counts.get(c, 0) for c in COUNTS}})
        yield pd.DataFrame(rows, columns=["chunk", *COUNTS])


def parse_broker_logs(spark, paths: Iterable[str], out: str, *, chunk_bytes: int = 32 << 20,
                      origin: datetime = START_TIME, progress: Callable | bool | None = None) -> LogParse:
    """Parse Kafka broker logs (files, or directories of server.log* files) with Spark into
    `out/events` and `out/unparsed` (Parquet) and `out/counts.json`. Large plain files are split
    into `chunk_bytes` ranges parsed in parallel; line numbers stay those of the file.
    FileNotFoundError names a missing path."""
    start = time.perf_counter()
    files = expand_paths(paths)
    out = os.path.abspath(os.fspath(out))
    try:
        fresh_output(out)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    plan = chunk_plan(files, chunk_bytes)
    sc = spark.sparkContext
    progress = _progress(progress, "logs")
    try:
        with _Watch(spark, progress):
            # Line numbers of later chunks: newlines before each chunk (a fast C count in executors).
            multi = {p for p, n in Counter(p for p, _, _ in plan).items() if n > 1}
            split = [(i, p, s, e) for i, (p, s, e) in enumerate(plan) if p in multi]
            counts = dict(sc.parallelize(split, min(len(split), sc.defaultParallelism * 4))
                          .map(lambda c: (c[0], count_newlines(c[1], c[2], c[3]))).collect()) if split else {}
            before, running = [], {}
            for i, (p, s, e) in enumerate(plan):
                before.append(running.get(p, 0))
                running[p] = running.get(p, 0) + counts.get(i, 0)
            rows = [(i, p, s, e, b) for i, ((p, s, e), b) in enumerate(zip(plan, before))]
            frame = spark.createDataFrame(sc.parallelize(rows, len(rows)),
                                          "chunk long, path string, start long, end long, newlines_before long")
            body = functools.partial(_parse_partition, out=out, origin=origin.isoformat())
            per_chunk = frame.mapInPandas(body, schema=_COUNTS_DDL).collect()
    finally:
        if hasattr(progress, "close"):
            progress.close()
    total = Counter()
    for row in per_chunk:
        total.update({c: row[c] for c in COUNTS})
    with open(os.path.join(out, "counts.json"), "w") as f:
        json.dump({"files": files, "counts": dict(total)}, f, indent=1)
    events, unparsed = read_logs(spark, out)
    return LogParse(out, files, events, unparsed, total, time.perf_counter() - start, len(plan))


def read_logs(spark, out: str):
    """(events, unparsed) DataFrames of a `parse_broker_logs` output folder."""
    return (spark.read.schema(_LOG_EVENTS_DDL).parquet(os.path.join(out, "events")),
            spark.read.schema(_UNPARSED_DDL).parquet(os.path.join(out, "unparsed")))


# -- analysis --------------------------------------------------------------------------------------------
def _keys(events, keys) -> list[str]:
    """Columns that identify one group's history: run_id (sweeps) and group."""
    if keys is not None:
        return list(keys)
    return [c for c in ("run_id",) if c in events.columns] + ["group"]


def _order(events) -> list[str]:
    return ["time", "seq"] if "seq" in events.columns else ["time"]


def group_states(events, keys=None):
    """The coordinator's group-state changes (GROUP_STATE_KINDS rows with a state), with
    `rebalancing` (state is PreparingRebalance or CompletingRebalance, or a consumer group's
    Assigning or Reconciling)."""
    keys = _keys(events, keys)
    return (events.where((F.col("source") == "coordinator") & F.col("kind").isin(*GROUP_STATE_KINDS)
                         & F.col("state").isNotNull())
            .select(*keys, *_order(events), "kind", "generation", "value", "reason", "state")
            .withColumn("rebalancing", F.col("state").isin(*REBALANCING_STATES)))


def rebalance_episodes(events, keys=None):
    """One row per rebalance episode: from the rebalance start that left a settled state
    (Stable, Empty, Dead, or nothing yet) to the next settled state. A rebalance starts with a
    RebalanceStarted (classic group) or a GroupEpochBumped (consumer group, which then is
    Assigning or Reconciling until every member has reconciled). Columns: keys..., episode,
    start, end, duration_ms (null while still open), rebalances (starts within it: more than 1
    means it restarted, or for a consumer group that the epoch moved again), generation (the last
    one stabilized, or a consumer group's last group epoch), members (in that generation, when
    the log says; null for a consumer group), outcome (the settled state, null while open),
    reason (of the first start)."""
    keys = _keys(events, keys)
    order = _order(events)
    states = group_states(events, keys)
    w = Window.partitionBy(*keys).orderBy(*order)
    first = F.col("rebalancing") & ~F.coalesce(F.lag("rebalancing").over(w), F.lit(False))
    states = states.withColumn("episode", F.sum(first.cast("int")).over(
        w.rowsBetween(Window.unboundedPreceding, Window.currentRow)))
    at = F.struct(*order)
    started = F.col("kind").isin(*REBALANCE_STARTS)
    stabilized = F.col("kind") == "GenerationStabilized"
    epoch = F.col("kind").isin(*EPOCH_KINDS)
    settled = ~F.col("rebalancing")
    episodes = states.where(F.col("episode") > 0).groupBy(*keys, "episode").agg(
        F.min(F.when(F.col("rebalancing"), F.col("time"))).alias("start"),
        F.min(F.when(settled, F.col("time"))).alias("end"),
        F.count(F.when(started, 1)).alias("rebalances"),
        F.max_by(F.when(epoch, F.col("generation")), F.when(epoch, at)).alias("generation"),
        F.max_by(F.when(stabilized, F.col("value")), F.when(stabilized, at)).alias("members"),
        F.min_by(F.when(settled, F.col("state")), F.when(settled, at)).alias("outcome"),
        F.min_by(F.when(started, F.col("reason")), F.when(started, at)).alias("reason"))
    return (episodes.withColumn("duration_ms", F.col("end") - F.col("start"))
            .select(*keys, "episode", "start", "end", "duration_ms", "rebalances", "generation", "members", "outcome",
                    "reason"))


def member_states(events, keys=None):
    """Each consumer's state after each of its state-relevant events, as `Run.member_states`
    defines it: the StateChanged state, with "consuming" split into "processing" between a
    batch's Fetched and Processed events. Columns: keys..., member, time[, seq], state."""
    keys = _keys(events, keys)
    order = _order(events)
    kind = F.col("kind")
    rows = events.where((F.col("source") == "consumer")
                        & kind.isin("StateChanged", "Fetched", "Processed", "Started"))
    so_far = Window.partitionBy(*keys, "member").orderBy(*order).rowsBetween(Window.unboundedPreceding,
                                                                             Window.currentRow)
    macro = F.last(F.when(kind == "StateChanged", F.col("reason")), ignorenulls=True).over(so_far)
    in_batch = F.last(F.when(kind == "Fetched", F.lit(True)).when(kind.isin("Processed", "Started"), F.lit(False)),
                      ignorenulls=True).over(so_far)
    state = F.when((macro == "consuming") & F.coalesce(in_batch, F.lit(False)), F.lit("processing")).otherwise(macro)
    return rows.select(*keys, "member", *order, state.alias("state"))


def time_in_state(events, per: str = "member", end=None, keys=None):
    """Milliseconds spent in each state: per="member" from the consumers' events (`member_states`,
    simulated runs), per="group" from the coordinator's group-state changes (simulated and parsed).
    The last state lasts until `end` (a DataFrame of the run keys and `end_ms`, e.g. a sweep's
    summaries) or else until the last event of the run. Columns: keys..., [member,] state, ms, share."""
    keys = _keys(events, keys)
    run_keys = [k for k in keys if k != "group"]
    order = _order(events)
    if per == "member":
        rows = member_states(events, keys)
        who = [*keys, "member"]
    elif per == "group":
        rows = group_states(events, keys).select(*keys, *order, "state")
        who = keys
    else:
        raise ValueError(f"per must be 'member' or 'group', got {per!r}")
    if end is not None:
        rows = rows.join(end.select(*run_keys, "end_ms"), on=run_keys, how="left")
    else:
        last = events.groupBy(*(run_keys or [F.lit(1).alias("_all")])).agg(F.max("time").alias("end_ms"))
        rows = rows.join(last, on=run_keys, how="left") if run_keys else rows.crossJoin(last.drop("_all"))
    w = Window.partitionBy(*who).orderBy(*order)
    rows = rows.withColumn("until", F.coalesce(F.lead("time").over(w), F.col("end_ms")))
    spent = (rows.groupBy(*who, "state").agg(F.sum(F.col("until") - F.col("time")).alias("ms"))
             .where(F.col("ms") > 0))
    total = Window.partitionBy(*who)
    return spent.withColumn("share", F.col("ms") / F.sum("ms").over(total))


def rebalance_rate(events, keys=None, span=None):
    """Rebalances (RebalanceStarted, or a consumer group's GroupEpochBumped) per hour for each
    group: columns keys..., rebalances, span_ms, per_hour. The span is `span` (a DataFrame of run
    keys and `end_ms`) or the time from the group's first to its last coordinator event."""
    keys = _keys(events, keys)
    run_keys = [k for k in keys if k != "group"]
    coord = events.where(F.col("source") == "coordinator")
    out = coord.groupBy(*keys).agg(F.count(F.when(F.col("kind").isin(*REBALANCE_STARTS), 1)).alias("rebalances"),
                                   (F.max("time") - F.min("time")).alias("span_ms"))
    if span is not None:
        out = out.drop("span_ms").join(span.select(*run_keys, F.col("end_ms").alias("span_ms")), on=run_keys)
    return out.withColumn("per_hour", F.when(F.col("span_ms") > 0, F.col("rebalances") * 3_600_000.0
                                             / F.col("span_ms")))


def _with_derived(summaries):
    return (summaries.where(F.col("error").isNull())
            .withColumn("rebalances_per_hour", F.col("rebalances") * 3_600_000.0 / F.col("end_ms"))
            .withColumn("removals_unplanned", sum((F.col(f"removals_{r}") for r in UNPLANNED_REMOVALS), F.lit(0))))


def _params(summaries, params) -> list[str]:
    if params is not None:
        return list(params)
    return [c for c in summaries.columns if c not in SUMMARY_COLUMNS]


def by_parameters(summaries, metrics: Iterable[str] = ("rebalances_per_hour", "partition_downtime_ms", "duplicates"),
                  params=None):
    """Metrics as functions of the swept parameters: for each combination, over its seeds,
    `<metric>_mean`, `_std`, `_min`, `_max` and `runs`. Derived metrics available besides the
    summary columns: rebalances_per_hour, removals_unplanned (every removal but leave_group)."""
    params = _params(summaries, params)
    aggs = [F.count("*").alias("runs")]
    for m in metrics:
        aggs += [F.mean(m).alias(f"{m}_mean"), F.stddev(m).alias(f"{m}_std"), F.min(m).alias(f"{m}_min"),
                 F.max(m).alias(f"{m}_max")]
    return _with_derived(summaries).groupBy(*params).agg(*aggs).orderBy(*params)


def safe_region(summaries, limits: dict | None = None, params=None):
    """Which settings are safe: a combination is safe when every one of its runs stays within
    `limits` (metric -> largest acceptable value; default: no member removed except by its own
    LeaveGroup, and no duplicates). Columns: params..., runs, safe_runs, safe, and the worst
    value of each limited metric (`worst_<metric>`)."""
    limits = limits or {"removals_unplanned": 0, "duplicates": 0}
    params = _params(summaries, params)
    ok = functools.reduce(lambda a, b: a & b, [F.col(m) <= v for m, v in limits.items()])
    out = _with_derived(summaries).groupBy(*params).agg(
        F.count("*").alias("runs"), F.count(F.when(ok, 1)).alias("safe_runs"),
        *[F.max(m).alias(f"worst_{m}") for m in limits])
    return out.withColumn("safe", F.col("runs") == F.col("safe_runs")).orderBy(*params)
