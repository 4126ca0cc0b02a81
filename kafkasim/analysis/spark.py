"""kafkasim on Spark: parameter sweeps, real broker logs, and their analysis in the DataFrame API.

Needs the `spark` extra (PySpark 4, Java 17+; a Spark Connect client needs the `connect` extra
and no Java). `import kafkasim` never imports this module.

- `session()`: a quiet local SparkSession, or one on a cluster (`spark://`, `yarn`, `k8s://`) or a
  Spark Connect server (`sc://`), with kafkasim importable by the executors. Everything below
  runs on classic Spark and Connect alike (no SparkContext: DataFrames, `mapInPandas`, tags).
- `sweep(spark, grid, out)`: every run of a `kafkasim.analysis.sweep_grid.Grid` simulated inside Spark executors
  (`mapInPandas`). Each executor commits its runs one by one (`sweep_grid.commit_run`): the events at
  `out/events/<param>=<value>/.../<run_id>.parquet`, then the run's summary row in `out/summaries`
  under the same folders, merged into one file per combination when the sweep ends. Events never
  pass through the JVM, so the simulator's time is what a sweep costs. Runs already in `out` are
  skipped, so an interrupted (Ctrl-C, a killed driver) or extended sweep resumes, losing at most
  the runs in flight.
- `parse_broker_logs(spark, paths, out)`: Kafka broker logs read by `kafkasim.analysis.logs` in
  executors, in byte-range chunks of large files, into `out/events` and `out/unparsed`.
- Analysis that works on simulated and parsed events alike: `rebalance_episodes` (window
  functions over the coordinator's group-state changes), `time_in_state` (per member or per
  group), `rebalance_rate`; and over sweep summaries: `by_parameters` and `safe_region`.
  Classic groups and consumer groups (KIP-848, `group.protocol=consumer`, which a sweep can
  take as a dimension) alike: a consumer group rebalances while Assigning or Reconciling, and
  a rebalance starts with a group epoch bump (GroupEpochBumped), as `Run.summary` counts them.

Executors write their Parquet files themselves (a temporary name, then an atomic rename; a
retried task rewrites identical bytes), so output paths must be on storage every executor and
this driver reach: always true for `local[N]`, a shared file system on a cluster. Progress is
counted from the files written, and a result the driver cannot see stops the call with that
diagnosis.
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
    raise ImportError("kafkasim.analysis.spark needs PySpark 4: pip install 'kafkasim[spark]' (and Java 17+, or "
                      "'kafkasim[spark,connect]' for a Spark Connect client)") from e

from kafkasim.analysis import local_path
from kafkasim.coordinator.broker_log import START_TIME
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS, REMOVAL_REASONS
from kafkasim.analysis.sweep_grid import (SUMMARY_COLUMNS, Grid, RunSpec, commit_run, committed_runs, compact_summaries,
                                         finished_runs, open_sweep_folder)
from kafkasim.analysis.logs import (COUNTS, EXTRA_TYPES, chunk_plan, count_newlines, expand_paths, fresh_output,
                                   parse_chunk, write_part)
from kafkasim.analysis.logs.files import write_counts
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
class SparkUnavailable(RuntimeError):
    """Spark could not start, or its executors cannot run kafkasim. `kind` says which: "java" (no
    Java 17+ for a classic session), "unreachable" (no master or Connect server at the URL),
    "executors" (their Python cannot run kafkasim), "session" (another session is running). The
    message is one line that names the cause and the fix."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


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


def is_connect(spark) -> bool:
    """A Spark Connect session (no SparkContext, no JVM in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


#: The session `session()` returned last, and the master it was asked for.
_current: dict = {}


def session(master: str | None = None, app_name: str = "kafkasim", quiet: bool = True, conf: dict | None = None):
    """A SparkSession with kafkasim importable by its executors, for every kind of Spark: `local[N]`
    (the default is `local[2]`, or the `SPARK_REMOTE` environment variable when set), `spark://`,
    `yarn`, `k8s://`, and Spark Connect `sc://host:port` (no Java needed here). Calling it again
    with the same master returns the same session; another master while a session runs is refused.
    Local masters get small test-friendly settings; `quiet`: no UI, no console progress bars, log4j
    at ERROR; `conf`: more Spark settings (`spark.pyspark.python` picks the executors' Python).
    A cluster's executors are checked before the session is returned. SparkUnavailable says what
    is wrong and what to do."""
    master = master or os.environ.get("SPARK_REMOTE") or "local[2]"
    conf = dict(conf or {})
    problem = None if master.startswith("sc://") else java_problem()
    if problem:
        raise SparkUnavailable("java", problem)
    running = _current.get("spark")
    if running is not None and _alive(running):
        if _current["master"] != master:
            raise SparkUnavailable("session", f"a Spark session on {_current['master']} is already running in this "
                                              f"process: stop it first (spark.stop()) to start one on {master}")
        return running
    _check_reachable(master)
    spark = _connect_session(master, conf) if master.startswith("sc://") else _classic_session(master, app_name,
                                                                                                 quiet, conf)
    if not master.startswith("local"):
        _ship_package(spark)
        _check_executors(spark, master)
    _current.update(master=master, spark=spark)
    return spark


def _alive(spark) -> bool:
    if is_connect(spark):
        return not spark.is_stopped
    return spark.sparkContext._jsc is not None


def _check_reachable(master: str) -> None:
    """A standalone master or a Connect server that does not answer is named at once (Spark itself
    retries for a minute, then prints a Java traceback)."""
    import socket

    m = re.fullmatch(r"(spark|sc)://([^:/,]+):?(\d*)(?:/.*)?", master)
    if m is None:
        return
    scheme, host, port = m.group(1), m.group(2), int(m.group(3) or (7077 if m.group(1) == "spark" else 15002))
    try:
        with socket.create_connection((host, port), timeout=5):
            return
    except OSError as e:
        what = "Spark master" if scheme == "spark" else "Spark Connect server"
        raise SparkUnavailable("unreachable", f"cannot reach the {what} at {master} ({e.strerror or e}): check the "
                                              f"URL and that it is running") from None


def _classic_session(master: str, app_name: str, quiet: bool, conf: dict):
    from pyspark.sql import SparkSession

    package_root = _package_root()
    local = master.startswith("local")
    # PySpark reads the executors' Python from the environment only: `spark.pyspark.python` is
    # passed on through it. A local master runs this interpreter; a cluster's default is its own.
    python = conf.pop("spark.pyspark.python", None) or os.environ.get("PYSPARK_PYTHON") or (
        sys.executable if local else None)
    if python:
        os.environ["PYSPARK_PYTHON"] = python
    if local:  # local executors inherit the environment: they import this checkout
        paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if package_root not in paths:
            os.environ["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, paths)])
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
    settings.update(conf)
    for key, value in settings.items():
        builder = builder.config(key, value)
    with _jvm_output() as started:
        try:
            spark = builder.getOrCreate()
        except Exception as e:  # noqa: BLE001 - the JVM died before answering: say why in one line
            raise SparkUnavailable("java", _jvm_failure(started.text(), e)) from None
    if spark.sparkContext.master != master:  # getOrCreate returned a session started elsewhere
        raise SparkUnavailable("session", f"a Spark session on {spark.sparkContext.master} is already running in "
                                          f"this process: stop it first (spark.stop()) to start one on {master}")
    if quiet:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


class _jvm_output:
    """While Spark's JVM starts, what it writes to stdout and stderr (fds 1 and 2, which it inherits) is
    held back: a JVM that fails prints a Java stack trace or a few lines of its own (HotSpot's "Error
    occurred during initialization of VM" on stdout), which `_jvm_failure` turns into one line. Once
    it has started, what it wrote and whatever it writes later go where they went before."""

    FDS = (1, 2)

    def __init__(self):
        self._held = {fd: bytearray() for fd in self.FDS}
        self._saved: dict[int, int] = {}
        self._forward = False
        self._lock = threading.Lock()

    def __enter__(self) -> "_jvm_output":
        for fd in self.FDS:
            (sys.stdout if fd == 1 else sys.stderr).flush()
            self._saved[fd] = os.dup(fd)
            read, write = os.pipe()
            os.dup2(write, fd)
            os.close(write)
            threading.Thread(target=self._pump, args=(fd, read), daemon=True).start()
        return self

    def _pump(self, fd: int, read: int) -> None:
        while chunk := os.read(read, 65536):
            with self._lock:
                if self._forward:
                    os.write(self._saved[fd], chunk)
                else:
                    self._held[fd] += chunk

    def text(self) -> str:
        return "".join(self._held[fd].decode("utf-8", "replace") for fd in self.FDS)

    def __exit__(self, kind, *_) -> None:
        with self._lock:
            for fd in self.FDS:
                (sys.stdout if fd == 1 else sys.stderr).flush()
                os.dup2(self._saved[fd], fd)  # this process writes there again; the JVM keeps writing into the pipes
                if kind is None:
                    os.write(self._saved[fd], bytes(self._held[fd]))
            self._forward = kind is None  # the pumps forward the JVM's later output (it holds the pipes open)


#: What every JVM that fails to start says last, which names no cause.
_JVM_GENERIC = re.compile(r"Could not create the Java Virtual Machine|A fatal exception has occurred|"
                          r"Error occurred during initialization of VM")


def _jvm_failure(output: str, error: Exception) -> str:
    """One line for a JVM that did not start: its first error line that names a cause (not a stack
    frame, not HotSpot's closing words), else PySpark's; the JVM's whole output follows on the next
    lines (shown by --debug)."""
    lines = [line.strip() for line in output.splitlines() if line.strip() and not line.lstrip().startswith("at ")]
    said = [line for line in lines if re.search(r"Exception|Error|[Cc]ould not|Invalid|[Uu]nrecognized", line)
            and not _JVM_GENERIC.search(line)]
    why = (said or lines or [str(error).splitlines()[0] if str(error) else type(error).__name__])[0]
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    return (f"Java could not start Spark ({java}): {why[:300]} (check `{java} -version`, JAVA_HOME and the --conf "
            f"settings, e.g. spark.driver.memory)\nthe JVM's output:\n{output}")


def _connect_session(url: str, conf: dict):
    """A Spark Connect client session: the server owns the executors and their Python."""
    from pyspark.sql import SparkSession

    if "spark.pyspark.python" in conf:
        raise SparkUnavailable("session", "spark.pyspark.python cannot be set from a Spark Connect client: the "
                                          "server's executors run the Python the server was started with "
                                          "(set PYSPARK_PYTHON where the server starts)")
    builder = SparkSession.builder.remote(url)
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _package_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def package_zip() -> str:
    """kafkasim's sources as a zip for a cluster's executors, at a path that depends only on their
    content (so shipping it again is harmless), in a folder of this process that is removed when it
    exits; folders left by processes that died are removed here."""
    import atexit
    import hashlib

    root = _package_root()
    sources = sorted(os.path.join(folder, n) for folder, dirs, names in os.walk(os.path.join(root, "kafkasim"))
                     for n in names if n.endswith(".py"))
    digest = hashlib.sha256()
    for path in sources:
        digest.update(os.path.relpath(path, root).encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(f.read() + b"\0")
    base = tempfile.gettempdir()
    mine = os.path.join(base, f"kafkasim-spark-{os.getpid()}")
    target = os.path.join(mine, digest.hexdigest()[:16], "kafkasim.zip")
    if os.path.exists(target):
        return target
    for name in os.listdir(base):
        pid = name[len("kafkasim-spark-"):]
        if name.startswith("kafkasim-spark-") and pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    if not os.path.isdir(mine):
        atexit.register(shutil.rmtree, mine, True)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with zipfile.ZipFile(target + ".tmp", "w") as z:
        for path in sources:
            z.write(path, os.path.relpath(path, root))
    os.replace(target + ".tmp", target)
    return target


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _ship_package(spark) -> None:
    """Send kafkasim to a cluster's executors (local executors import it in place)."""
    path = package_zip()
    if is_connect(spark):
        try:
            spark.addArtifacts(path, pyfile=True)
        except Exception as e:  # noqa: BLE001 - the same artifact again: already there
            if "already exists" not in str(e).lower() and "duplicate" not in str(e).lower():
                raise
    else:
        spark.sparkContext.addPyFile(path)


def _probe_executor(batches):
    """mapInPandas body run once on an executor: its Python version, and what it cannot import."""
    import importlib
    import sys as executor_sys

    import pandas as pd

    for batch in batches:
        missing = []
        for name in ("numpy", "pandas", "pyarrow", "kafkasim"):
            try:
                importlib.import_module(name)
            except ImportError:
                missing.append(name)
        version = "%d.%d" % executor_sys.version_info[:2]
        yield pd.DataFrame({"python": [version] * len(batch), "missing": [",".join(missing)] * len(batch)})


def _check_executors(spark, master: str) -> None:
    """Run one small task: executors with another Python or without kafkasim's packages fail here,
    in one line that says what to install or set, rather than deep inside a sweep."""
    here = "%d.%d" % sys.version_info[:2]
    fix = (f"set spark.pyspark.python (or PYSPARK_PYTHON) to a Python {here} with numpy, pandas and pyarrow on "
           f"every node" if not master.startswith("sc://") else
           f"start the Connect server with PYSPARK_PYTHON set to a Python {here} with numpy, pandas and pyarrow")
    try:
        row = spark.range(1).mapInPandas(_probe_executor, "python string, missing string").collect()[0]
    except Exception as e:  # noqa: BLE001 - Py4J or Connect errors: their text says what happened
        text = str(e)
        version = re.search(r"Python in worker has different version:? \(?(\d+, ?\d+|\d+\.\d+)", text)
        module = re.search(r"No module named '([\w.]+)'", text)
        if version:
            raise SparkUnavailable("executors", f"the executors on {master} run another Python than this "
                                                f"driver: {fix}") from None
        if module:
            raise SparkUnavailable("executors", f"the executors on {master} cannot import {module.group(1)}: "
                                                f"{fix}") from None
        raise SparkUnavailable("executors", f"the executors on {master} cannot run Python tasks "
                                            f"({text.strip().splitlines()[0] if text.strip() else type(e).__name__})"
                                            f": {fix}") from None
    if row.python != here:
        raise SparkUnavailable("executors", f"the executors on {master} run Python {row.python}, this driver "
                                            f"Python {here}: {fix}")
    if row.missing:
        raise SparkUnavailable("executors", f"the executors on {master} cannot import {row.missing}: {fix}")


# -- progress, interruption and paths ------------------------------------------------------------------
class StderrProgress:
    """Progress lines on stderr: rewritten in place on a terminal, one line every `every` s otherwise."""

    def __init__(self, label: str, unit: str, every: float = 10.0, stream=None):
        self.label, self.unit, self.every = label, unit, every
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self._last = -1e9
        self._shown = None

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if (done, total) == self._shown or (not self.tty and now - self._last < self.every and done < total):
            return
        self._last, self._shown = now, (done, total)
        pct = 100.0 * done / total if total else 100.0
        text = f"{self.label}: {done:,}/{total:,} {self.unit} ({pct:.0f}%), {now - self.start:.0f} s"
        self.stream.write(("\r" + text + "\x1b[K") if self.tty else text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


class _Action:
    """While a Spark action runs, on classic Spark and Connect alike: progress as `count()` of
    `total` (results committed to disk, which the driver sees whatever Spark it runs on), and
    Ctrl-C turned into a cancellation of the action's job group (classic) or tag (Connect),
    which PySpark classic cannot do by tag for jobs started from Python. PySpark's own SIGINT handler calls
    into the JVM inside the signal handler, on the connection the interrupted call is reading,
    which breaks it (tracebacks, crashed workers); here the interruption runs on a thread of its
    own, the action fails, and KeyboardInterrupt is raised in its place. A second Ctrl-C raises at once."""

    def __init__(self, spark, progress: Callable | None, count: Callable[[], int], total: int,
                 interval: float = 0.5):
        self.spark, self.progress, self.count, self.total, self.interval = spark, progress, count, total, interval
        self.tag = f"kafkasim-{os.getpid()}-{time.monotonic_ns()}"
        self.interrupted = False
        self._previous = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        if is_connect(self.spark):
            self.spark.addTag(self.tag)
        else:
            self.spark.sparkContext.setJobGroup(self.tag, "kafkasim", interruptOnCancel=True)
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_ctrl_c)
        if self.progress is not None:
            self.progress(0, self.total)
            self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        self._stop.set()
        if self.progress is not None:
            self._thread.join()
            self.progress(self.count(), self.total)  # the final line: what is on disk now
            if hasattr(self.progress, "close"):
                self.progress.close()
        if is_connect(self.spark):
            self.spark.removeTag(self.tag)
        else:
            self.spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        if self.interrupted and exc is not None and not isinstance(exc, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        return False

    def _on_ctrl_c(self, signum, frame) -> None:
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True
        cancel = self.spark.interruptTag if is_connect(self.spark) else self.spark.sparkContext.cancelJobGroup
        threading.Thread(target=cancel, args=(self.tag,), daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.progress(self.count(), self.total)
            except Exception:  # noqa: BLE001 - progress must never break the job
                pass


def _progress(progress, label: str, unit: str):
    if progress is True:
        return StderrProgress(label, unit)
    return progress or None


def _parallelism(spark) -> int:
    """Cores Spark runs tasks on, as far as the session can tell (a Connect client asks the server's
    configuration; 8 when it does not say)."""
    if not is_connect(spark):
        return spark.sparkContext.defaultParallelism
    value = spark.conf.get("spark.default.parallelism", None)
    m = re.fullmatch(r"local\[(\d+)(?:,\d+)?\]", spark.conf.get("spark.master", None) or "")
    return int(value) if value else int(m.group(1)) if m else 8


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
    """Simulate every run of `grid` (a Grid, a grid file path, or its dict) on Spark (classic or
    Connect); results in `out` (see the module docstring), committed run by run: runs already
    there are skipped, so the same call resumes an interrupted sweep. Returns counts and time.
    `progress`: True for lines on stderr, or a callable(done_runs, total_runs)."""
    if not isinstance(grid, Grid):
        grid = Grid.from_file(grid) if isinstance(grid, (str, os.PathLike)) else Grid.from_dict(grid)
    start = time.perf_counter()
    runs = grid.runs()
    out = local_path(out, "--out")
    open_sweep_folder(out, grid)
    done_before = finished_runs(out)
    pending = [r for r in runs if r.run_id not in done_before]
    result = SweepResult(out, len(runs), len(runs) - len(pending), 0, 0, 0.0, 0)
    if pending:
        random.Random(0).shuffle(pending)  # mix slow and fast runs across tasks
        parallelism = _parallelism(spark)
        # A Python task costs tens of ms however little it does: enough runs per task that the
        # simulations dominate, enough tasks per core to balance the load and report progress.
        tasks = -(-len(pending) // (runs_per_task or RUNS_PER_TASK))
        if runs_per_task is None:  # 4 to 8 tasks per core, whole waves
            tasks = -(-max(min(tasks, 8 * parallelism), 4 * parallelism) // parallelism) * parallelism
        tasks = min(tasks, len(pending))
        rows = [(r.run_id, json.dumps(r.params), r.seed, json.dumps(r.spec)) for r in pending]
        frame = spark.createDataFrame(rows, "run_id string, params string, seed long, spec string").repartition(tasks)
        ids = {r.run_id for r in pending}
        with _Action(spark, _progress(progress, f"sweep of {len(pending):,} runs", "runs"),
                     lambda: len(committed_runs(out) & ids), len(pending)):
            outcomes = frame.mapInPandas(functools.partial(_simulate_partition, out=out),
                                         schema="run_id string, ok boolean").collect()
        result.done = sum(row.ok for row in outcomes)
        result.failed, result.tasks = len(outcomes) - result.done, tasks
        missing = {row.run_id for row in outcomes} - committed_runs(out)
        if len(outcomes) != len(pending) or missing:
            raise RuntimeError(f"{len(missing) or len(pending) - len(outcomes):,} runs ended on the executors but "
                               f"their results are not in {out}: on a cluster, --out must be on storage that every "
                               f"executor writes and this driver reads (a shared file system)")
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
    events: object      # DataFrame: kafkasim.analysis.logs.ROW_FIELDS
    unparsed: object    # DataFrame: file, line, problem, text
    counts: Counter
    seconds: float
    tasks: int


_SPARK_TYPES = {"string": "string", "int64": "long", "bool": "boolean"}
_LOG_EVENTS_DDL = EVENTS_DDL + "".join(f", {name} {_SPARK_TYPES[kind]}" for name, kind in EXTRA_TYPES)
_UNPARSED_DDL = "file string, line long, problem string, text string"
_COUNTS_DDL = "chunk long, " + ", ".join(f"{c} long" for c in COUNTS)


def _parse_partition(batches, out: str, origin: str):
    """mapInPandas body: parse each chunk, write its events and unparsed lines, yield its counts."""
    import pandas as pd

    for batch in batches:
        rows = []
        for chunk, path, name, start, end, before in zip(batch["chunk"], batch["path"], batch["name"], batch["start"],
                                                         batch["end"], batch["newlines_before"]):
            result = parse_chunk(path, int(start), int(end), int(before), datetime.fromisoformat(origin), name=name)
            write_part(result, out, int(chunk))
            rows.append({"chunk": int(chunk), **{c: result.counts.get(c, 0) for c in COUNTS}})
        yield pd.DataFrame(rows, columns=["chunk", *COUNTS])


def _count_partition(batches):
    """mapInPandas body: newlines before each chunk's end (for the line numbers of later chunks)."""
    import pandas as pd

    for batch in batches:
        counts = [count_newlines(p, int(s), int(e)) for p, s, e in zip(batch["path"], batch["start"], batch["end"])]
        yield pd.DataFrame({"chunk": batch["chunk"], "newlines": counts})


def parse_broker_logs(spark, paths: Iterable[str], out: str, *, chunk_bytes: int = 32 << 20,
                      origin: datetime = START_TIME, progress: Callable | bool | None = None) -> LogParse:
    """Parse Kafka broker logs (files, or directories of server.log* files) with Spark (classic or
    Connect) into `out/events` and `out/unparsed` (Parquet) and `out/counts.json`. Large plain files
    are split into `chunk_bytes` ranges parsed in parallel; line numbers stay those of the file.
    Executors read absolute paths; the `file` column shows each path as given. FileNotFoundError
    names a missing path."""
    start = time.perf_counter()
    files = expand_paths(paths)
    named = {local_path(f, "log"): f for f in files}
    out = local_path(out, "--out")
    try:
        fresh_output(out)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    plan = chunk_plan(list(named), chunk_bytes)
    parts = os.path.join(out, "events")
    with _Action(spark, _progress(progress, "logs", "chunks"), lambda: sum(
            n.startswith("part-") for n in os.listdir(parts)), len(plan)):
        # Line numbers of later chunks: newlines before each chunk (a fast C count in executors).
        multi = {p for p, n in Counter(p for p, _, _ in plan).items() if n > 1}
        split = [(i, p, s, e) for i, (p, s, e) in enumerate(plan) if p in multi]
        counts = {}
        if split:
            frame = spark.createDataFrame(split, "chunk long, path string, start long, end long")
            counts = {r.chunk: r.newlines for r in frame.repartition(min(len(split), 4 * _parallelism(spark)))
                      .mapInPandas(_count_partition, "chunk long, newlines long").collect()}
        before, running = [], {}
        for i, (p, s, e) in enumerate(plan):
            before.append(running.get(p, 0))
            running[p] = running.get(p, 0) + counts.get(i, 0)
        rows = [(i, p, named[p], s, e, b) for i, ((p, s, e), b) in enumerate(zip(plan, before))]
        # A task per chunk costs a second or more on a loaded machine: many small files (hourly
        # rotations, clients' logs) share tasks, a few per core.
        frame = spark.createDataFrame(rows, "chunk long, path string, name string, start long, end long, "
                                            "newlines_before long").repartition(min(len(rows),
                                                                                    4 * _parallelism(spark)))
        body = functools.partial(_parse_partition, out=out, origin=origin.isoformat())
        per_chunk = frame.mapInPandas(body, schema=_COUNTS_DDL).collect()
    written = {n for n in os.listdir(parts) if n.startswith("part-")}
    if len(per_chunk) != len(plan) or len(written) != len(plan):
        raise RuntimeError(f"{len(plan) - len(written):,} of {len(plan):,} chunks were parsed on the executors but "
                           f"their results are not in {out}: on a cluster, --out must be on storage that every "
                           f"executor writes and this driver reads (a shared file system)")
    total = Counter()
    for row in per_chunk:
        total.update({c: row[c] for c in COUNTS})
    write_counts(out, files, total)
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
