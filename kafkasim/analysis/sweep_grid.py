"""A parameter sweep as data: which scenarios to run, and what each run leaves behind.

A grid is every combination of some swept parameters, each replicated over some seeds
(desmod-style: the full scenario is stored with every result). Pure Python: the Spark sweep
(`kafkasim.analysis.spark.sweep`), the CLI and a plain loop (`run_all`, the benchmark's baseline) all
run the same `RunSpec`s with `run_one`.

Grid file (YAML or JSON)::

    base:                        # Scenario fields shared by every run (optional)
      kafka_version: "3.7"
      members: 6
      duration_ms: 600000
      consumer: {max.poll.interval.ms: 300000}
      processing_ms: {type: LogNormal, median_ms: 2, p99_ms: 20}
      faults:
        - {type: Pause, member: c-2, at_ms: 120000, duration_ms: 20000}
    grid:                        # every combination is one scenario
      session.timeout.ms: [10000, 30000, 45000]     # a consumer config (Kafka's name)
      group.initial.rebalance.delay.ms: [0, 3000]   # a broker config
      members: [3, 6]                               # a Scenario field
      faults[0].duration_ms: [5000, 20000, 60000]   # a field of the first fault in base
      processing_ms.p99_ms: [20, 200]               # a field of base's processing-time distribution
    seeds: 3                     # replications: seeds 1, 2, 3 (or a list such as [7, 8])

A swept name becomes a column (and a Parquet partition directory) with dots and brackets
replaced by underscores: `session_timeout_ms`, `faults_0_duration_ms`, `processing_ms_p99_ms`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
import re
import time
from dataclasses import dataclass
from typing import Any, Iterable

import kafkasim.core.faults as faults_module
from kafkasim.analysis import output_folders, write_parquet_atomically
from kafkasim.core.config import BROKER_CONFIGS, CONSUMER_CONFIGS, normalize_version
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import REMOVAL_REASONS, to_arrow
from kafkasim.core.provenance import to_json, with_provenance
from kafkasim.scenario.world import Scenario, estimate_events, simulate
from kafkasim.scenario.workload import Constant, LogNormal

_SCENARIO_FIELDS = {f.name for f in dataclasses.fields(Scenario)}
_FAULT_TYPES = {cls.__name__: cls for cls in faults_module.ALL}
_DISTRIBUTIONS = {"Constant": Constant, "LogNormal": LogNormal}
_FAULT_PARAM = re.compile(r"faults\[(\d+)\]\.(\w+)")
_DISTRIBUTION_PARAM = re.compile(r"processing_ms\.(\w+)")
#: The largest seed a sweep takes: seeds are stored in a 64-bit signed column.
MAX_SEED = (1 << 63) - 1
#: The most seeds a grid replicates each combination over (given as a count).
MAX_SEEDS = 1_000_000


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: its id, the swept values (by column), its seed and its scenario spec."""

    run_id: str
    params: dict
    seed: int
    spec: dict

    def scenario(self) -> Scenario:
        return scenario_from_spec(self.spec)


# -- scenario specs (JSON-able descriptions of a Scenario) ------------------------------------------
def scenario_from_spec(spec: dict) -> Scenario:
    """A Scenario from a JSON-able dict of its fields. `processing_ms` may be a number or
    {"type": "LogNormal", "median_ms": .., "p99_ms": ..}; `faults` is a list of
    {"type": "Crash", "member": "c-1", "at_ms": ..}. `Scenario.to_dict()` reads back too."""
    unknown = sorted(set(spec) - _SCENARIO_FIELDS)
    if unknown:
        raise ConfigError(f"unknown scenario field(s) {', '.join(unknown)}; Scenario fields are "
                          f"{', '.join(sorted(_SCENARIO_FIELDS))}")
    kwargs = dict(spec)
    if "processing_ms" in kwargs:
        kwargs["processing_ms"] = _distribution(kwargs["processing_ms"])
    if "faults" in kwargs:
        kwargs["faults"] = tuple(_fault(f) for f in kwargs["faults"])
    try:
        return Scenario(**kwargs)
    except TypeError as e:  # a wrongly typed value that Scenario's checks did not name
        raise ConfigError(f"invalid scenario: {e}") from None


def _distribution(value):
    if not isinstance(value, dict):
        return value
    fields = {k: v for k, v in value.items() if k not in ("type", "describe")}
    cls = _DISTRIBUTIONS.get(value.get("type"))
    if cls is None:
        raise ConfigError(f"processing_ms: type must be one of {', '.join(_DISTRIBUTIONS)}, got {value!r}")
    try:
        return cls(**fields)
    except TypeError as e:
        raise ConfigError(f"processing_ms: {e}") from None


def _fault(value):
    if not isinstance(value, dict) or value.get("type") not in _FAULT_TYPES:
        raise ConfigError(f"a fault must be a mapping with type one of {', '.join(_FAULT_TYPES)}, got {value!r}")
    fields = {k: (tuple(v) if isinstance(v, list) else v) for k, v in value.items() if k != "type"}
    try:
        return _FAULT_TYPES[value["type"]](**fields)
    except TypeError as e:
        raise ConfigError(f"fault {value!r}: {e}") from None


def apply_param(spec: dict, name: str, value) -> dict:
    """A copy of `spec` with the swept parameter `name` set (a Scenario field, `faults[i].field`,
    `processing_ms.field` of a distribution given as a mapping, or a consumer or broker config
    by Kafka's name)."""
    spec = json.loads(json.dumps(spec))
    fault = _FAULT_PARAM.fullmatch(name)
    distribution = _DISTRIBUTION_PARAM.fullmatch(name)
    if name in _SCENARIO_FIELDS:
        spec[name] = value
    elif fault:
        index, field = int(fault.group(1)), fault.group(2)
        faults = spec.get("faults", [])
        if index >= len(faults):
            raise ConfigError(f"{name}: base has {len(faults)} fault(s), so there is no faults[{index}]")
        faults[index][field] = value
    elif distribution:
        if not isinstance(spec.get("processing_ms"), dict):
            raise ConfigError(f"{name}: base must give processing_ms as a mapping, e.g. "
                              f"{{type: LogNormal, median_ms: 2, p99_ms: 20}}, got {spec.get('processing_ms')!r}")
        spec["processing_ms"][distribution.group(1)] = value
    elif name in CONSUMER_CONFIGS:
        spec.setdefault("consumer", {})[name] = value
    elif name in BROKER_CONFIGS:
        spec.setdefault("broker", {})[name] = value
    else:
        raise ConfigError(f"unknown parameter {name!r}: sweep a Scenario field ({', '.join(sorted(_SCENARIO_FIELDS))}), "
                          f"faults[i].<field>, processing_ms.<field>, or a consumer or broker config by its Kafka name")
    return spec


def column_name(name: str) -> str:
    """`session.timeout.ms` -> `session_timeout_ms`; `faults[0].duration_ms` -> `faults_0_duration_ms`."""
    return re.sub(r"_+", "_", re.sub(r"[^0-9A-Za-z_]", "_", name)).strip("_")


def run_id(spec: dict) -> str:
    """A stable id of a run: the hash of its scenario spec (seed included)."""
    return hashlib.sha1(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _check_versions(source: str, base: dict, axes: dict) -> None:
    """Every Kafka version a grid names is one kafkasim models, checked when the grid is read
    (before its runs are built), as `Scenario` checks it (`normalize_version`)."""
    where = [("base.kafka_version", base["kafka_version"])] if "kafka_version" in base else []
    where += [("grid.kafka_version", v) for v in axes.get("kafka_version", ())]
    for name, version in where:
        try:
            normalize_version(version)
        except ConfigError as e:
            raise ConfigError(f"{source}: {name}: {e}") from None


# -- grids -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Grid:
    base: dict
    axes: dict          # swept name -> list of values (in file order)
    seeds: tuple
    source: str = dataclasses.field(default="grid", compare=False)  # named in error messages

    @classmethod
    def from_dict(cls, data: Any, source: str = "grid") -> "Grid":
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: expected a mapping with keys base, grid, seeds")
        unknown = sorted(set(data) - {"base", "grid", "seeds"})
        if unknown:
            raise ConfigError(f"{source}: unknown key(s) {', '.join(unknown)} (expected base, grid, seeds)")
        base = data.get("base") or {}
        axes = data.get("grid") or {}
        if not isinstance(base, dict) or not isinstance(axes, dict):
            raise ConfigError(f"{source}: base and grid must be mappings")
        if not axes:
            raise ConfigError(f"{source}: grid is empty; give at least one parameter and its values, e.g. "
                              f"grid: {{session.timeout.ms: [10000, 45000]}}")
        for name, values in axes.items():
            if not isinstance(values, list) or not values:
                raise ConfigError(f"{source}: grid.{name} must be a non-empty list of values, got {values!r}")
            for v in values:
                if not isinstance(v, (int, float, str, bool)):
                    raise ConfigError(f"{source}: grid.{name} values must be numbers, strings or booleans, got {v!r}")
            if len(set(map(repr, values))) != len(values):
                raise ConfigError(f"{source}: grid.{name} lists a value twice")
        if "seed" in axes:  # before the clash check below, which would name the column only
            raise ConfigError(f"{source}: sweep seeds with the seeds key, not grid.seed")
        columns = [column_name(n) for n in axes]
        clash = {c for c in columns if columns.count(c) > 1 or c in SUMMARY_COLUMNS}
        if clash:
            raise ConfigError(f"{source}: parameter column name(s) {', '.join(sorted(clash))} clash with each "
                              f"other or with a summary column")
        seeds = data.get("seeds", 1)
        if isinstance(seeds, int) and not isinstance(seeds, bool) and 1 <= seeds <= MAX_SEEDS:
            seeds = tuple(range(1, seeds + 1))
        elif isinstance(seeds, list) and seeds and all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
            seeds = tuple(seeds)
        else:
            raise ConfigError(f"{source}: seeds must be a count from 1 to {MAX_SEEDS:,} or a list of integers, "
                              f"got {seeds!r}")
        if not all(0 <= s <= MAX_SEED for s in seeds):
            raise ConfigError(f"{source}: seeds must be from 0 to {MAX_SEED:,} (a seed is a Spark and Parquet "
                              f"long), got {min(seeds) if min(seeds) < 0 else max(seeds):,}")
        _check_versions(source, base, axes)
        return cls(base, dict(axes), seeds, source)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Grid":
        """Read a YAML (or JSON) grid file. ConfigError names the file for any problem. Read as bytes:
        both parsers find the encoding themselves (UTF-8, or UTF-16 by its byte-order mark), and bytes
        in no encoding are a parse error, not a crash."""
        path = os.fspath(path)
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError as e:
            raise ConfigError(f"{path}: cannot read the grid file ({e.strerror})") from None
        if path.endswith(".json"):
            try:
                data = json.loads(text)
            except ValueError as e:
                raise ConfigError(f"{path}: not valid JSON: {e}") from None
        else:
            import yaml  # a dependency of kafkasim (pyproject.toml), imported when a grid file is read

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as e:
                raise ConfigError(f"{path}: not valid YAML: {e}") from None
        return cls.from_dict(data, path)

    @property
    def columns(self) -> dict[str, str]:
        """Swept name -> column name."""
        return {name: column_name(name) for name in self.axes}

    @property
    def size(self) -> int:
        """Runs in the grid (counted, not built)."""
        return math.prod(len(v) for v in self.axes.values()) * len(self.seeds)

    def estimated_events(self, sample: int = 200) -> int:
        """About how many events the whole grid writes (`estimate_events` of up to `sample`
        combinations spread over the grid, scaled to all of them), without building every run."""
        names = list(self.axes)
        sizes = [len(self.axes[n]) for n in names]
        combos = math.prod(sizes)
        picks = sorted({i * combos // min(sample, combos) for i in range(min(sample, combos))})
        total = 0
        for index in picks:
            spec = dict(self.base)
            for name, size in zip(reversed(names), reversed(sizes)):
                index, j = divmod(index, size)
                spec = apply_param(spec, name, self.axes[name][j])
            total += estimate_events(scenario_from_spec({**spec, "seed": self.seeds[0]}))
        return total * combos * len(self.seeds) // len(picks)

    def runs(self, check: bool = True) -> list[RunSpec]:
        """Every (combination, seed), in a stable order. With `check`, each scenario is built once,
        so a bad value fails here, naming the grid and its parameters, before anything runs."""
        try:
            return self._runs(check)
        except ConfigError as e:
            raise ConfigError(f"{self.source}: {e}") from None

    def _runs(self, check: bool) -> list[RunSpec]:
        out = []
        names = list(self.axes)
        for combo in itertools.product(*(self.axes[n] for n in names)):
            spec = dict(self.base)
            for name, value in zip(names, combo):
                spec = apply_param(spec, name, value)
            params = {column_name(n): v for n, v in zip(names, combo)}
            if check:  # the seed does not change whether a scenario is valid
                try:
                    scenario_from_spec({**spec, "seed": self.seeds[0]})
                except ConfigError as e:
                    where = ", ".join(f"{n}={v!r}" for n, v in zip(names, combo))
                    raise ConfigError(f"{where}: {e}") from None
            for seed in self.seeds:
                full = {**spec, "seed": seed}
                out.append(RunSpec(run_id(full), params, seed, full))
        return out

    def param_types(self) -> dict[str, str]:
        """Column -> "long", "double", "boolean" or "string" (for Spark and Parquet schemas)."""
        out = {}
        for name, values in self.axes.items():
            if all(isinstance(v, bool) for v in values):
                kind = "boolean"
            elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                kind = "long"
            elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                kind = "double"
            else:
                kind = "string"
            out[column_name(name)] = kind
        return out


# -- running and recording -----------------------------------------------------------------------------
#: Scalar metrics of `Run.summary` copied into a sweep's summary table, with their types.
SUMMARY_METRICS = {
    "rebalances": "long", "generations": "long", "startup_ms": "long", "unconsumed_ms": "long",
    "all_unconsumed_ms": "long", "partition_downtime_ms": "long", "records_produced": "long",
    "records_processed": "long", "unprocessed_at_end": "long", "duplicates": "long", "commit_failures": "long",
    "max_lag": "long", "mean_lag": "double", "rebalance_ms": "long",
    "latency_p50_ms": "double", "latency_p95_ms": "double", "latency_p99_ms": "double", "latency_max_ms": "double",
    **{f"removals_{reason}": "long" for reason in REMOVAL_REASONS},
}
#: Columns of a sweep's summary table besides the swept parameters.
SUMMARY_COLUMNS = {"run_id": "string", "seed": "long", **SUMMARY_METRICS, "end_ms": "long",
                   "events": "long", "sim_seconds": "double", "duplicates_by_cause": "string",
                   "scenario": "string", "provenance": "string", "error": "string"}


def run_one(run: RunSpec) -> tuple[Any, dict]:
    """Simulate one run. Returns (Run or None, summary row); an exception becomes the row's
    `error` (a sweep records a failed run instead of failing)."""
    row = {"run_id": run.run_id, "seed": run.seed, "scenario": json.dumps(run.spec, sort_keys=True), "error": None,
           "provenance": None}
    start = time.perf_counter()
    try:
        result = simulate(run.scenario())
        summary = result.summary
    except Exception as e:  # noqa: BLE001 - recorded per run, see docstring
        row["sim_seconds"] = time.perf_counter() - start
        row["error"] = f"{type(e).__name__}: {e}"
        return None, row
    row["sim_seconds"] = time.perf_counter() - start
    latency = summary.get("latency_ms") or {}
    removals = summary.get("removals_by_reason") or {}
    for name in SUMMARY_METRICS:
        if name.startswith("latency_"):
            value = latency.get(name[len("latency_"):-len("_ms")])
        elif name.startswith("removals_"):
            value = removals.get(name[len("removals_"):], 0)
        else:
            value = summary.get(name)
        row[name] = value
    row["duplicates_by_cause"] = json.dumps(summary.get("duplicates_by_cause") or {}, sort_keys=True)
    row["end_ms"] = result.end_ms
    row["events"] = len(result.rows)
    row["provenance"] = to_json(result.provenance)
    return result, row


def events_table(result, run_id: str):
    """A run's events as a pyarrow Table: kafkasim's event schema plus `run_id` and `seq` (the
    event's position in the run, which orders events of the same millisecond)."""
    import pyarrow as pa

    table = to_arrow(result.rows)
    n = table.num_rows
    table = table.append_column("run_id", pa.array([run_id] * n, pa.string())).append_column(
        "seq", pa.array(range(n), pa.int64()))
    return with_provenance(table, result.provenance)


_UNSAFE = re.compile(r'[\x00-\x1f"#%\'*/:=?\\\x7f{\[\]^]')


def partition_dir(params: dict) -> str:
    """`col=value/col=value` with Hive/Spark's escaping of special characters in values."""
    def text(v):
        return "true" if v is True else "false" if v is False else str(v)

    return "/".join(f"{k}={_UNSAFE.sub(lambda m: f'%{ord(m.group()):02X}', text(v))}" for k, v in params.items())


def write_events(result, run: RunSpec, root: str) -> str:
    """Write one run's events to `root/<partition dirs>/<run_id>.parquet` (atomically: a retried
    task rewrites the same file with the same bytes). Returns the path."""
    folder = os.path.join(root, partition_dir(run.params))
    os.makedirs(folder, exist_ok=True)
    return write_parquet_atomically(events_table(result, run.run_id), os.path.join(folder, f"{run.run_id}.parquet"))


# -- a sweep folder: runs committed one by one -------------------------------------------------------
# out/sweep.json                         the swept parameters, their types and the base settings
# out/events/<params>/<run_id>.parquet   each run's events
# out/summaries/<params>/run-<id>.parquet  each finished run's summary row (failed-<id> for a run that
#                                        failed), committed after its events: the mark that a run is done;
#                                        `compact_summaries` merges a folder's rows into part-00000.parquet
_SUMMARY_FILE = re.compile(r"(run|failed)-(\w+)\.parquet")
COMPACT_FILE = "part-00000.parquet"


def summary_schema():
    """The Arrow schema of a summary file (the swept parameters are in its folder names)."""
    import pyarrow as pa

    kinds = {"string": pa.string(), "long": pa.int64(), "double": pa.float64()}
    return pa.schema([(name, kinds[kind]) for name, kind in SUMMARY_COLUMNS.items()])


def commit_run(run: RunSpec, out: str) -> dict:
    """Simulate one run and commit it to the sweep folder `out`: its events, then its summary row
    (so a run with a summary is complete; an interruption loses only the runs in flight)."""
    import pyarrow as pa

    result, row = run_one(run)
    if result is not None:
        write_events(result, run, os.path.join(out, "events"))
    folder = os.path.join(out, "summaries", partition_dir(run.params))
    os.makedirs(folder, exist_ok=True)
    table = pa.Table.from_pylist([row], schema=summary_schema())
    name = f"{'run' if result is not None else 'failed'}-{run.run_id}.parquet"
    write_parquet_atomically(table, os.path.join(folder, name))
    if result is not None:  # a retried run that succeeds replaces its failure
        try:
            os.remove(os.path.join(folder, f"failed-{run.run_id}.parquet"))
        except FileNotFoundError:
            pass
    return {**run.params, **row}


def _summary_files(out: str):
    """(folder, file names) of every summary folder of `out`, hidden names left out."""
    for folder, dirs, names in os.walk(os.path.join(out, "summaries")):
        dirs.sort()
        visible = sorted(n for n in names if n.endswith(".parquet") and not n.startswith((".", "_")))
        if visible:
            yield folder, visible


def committed_runs(out: str) -> set[str]:
    """Ids of the runs whose own summary file (a success or a failure) is in `out`, not yet merged."""
    return {m.group(2) for _, names in _summary_files(out) for m in map(_SUMMARY_FILE.fullmatch, names) if m}


def finished_runs(out: str) -> set[str]:
    """Ids of the runs of `out` that finished without error (their events and summary committed)."""
    import pyarrow.parquet as pq

    done = set()
    for folder, names in _summary_files(out):
        for name in names:
            m = _SUMMARY_FILE.fullmatch(name)
            if m is not None:
                if m.group(1) == "run":
                    done.add(m.group(2))
            else:  # a compacted file
                table = pq.read_table(os.path.join(folder, name), columns=["run_id", "error"])
                done.update(r for r, e in zip(table["run_id"].to_pylist(), table["error"].to_pylist()) if e is None)
    return done


def compact_summaries(out: str) -> None:
    """Merge each summary folder's files into one (`part-00000.parquet`, one row per run sorted by
    run id, a success over a failure), so a large sweep reads a file per combination, not per run.
    An interruption leaves a row in two files at worst, which readers deduplicate."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for folder, names in _summary_files(out):
        if names == [COMPACT_FILE]:
            continue
        rows = {}
        for name in names:
            for row in pq.read_table(os.path.join(folder, name), schema=summary_schema()).to_pylist():
                if row["error"] is None or rows.get(row["run_id"], row)["error"] is not None:
                    rows[row["run_id"]] = row
        table = pa.Table.from_pylist([rows[k] for k in sorted(rows)], schema=summary_schema())
        write_parquet_atomically(table, os.path.join(folder, COMPACT_FILE))
        for name in names:
            if name != COMPACT_FILE:
                os.remove(os.path.join(folder, name))


def open_sweep_folder(out: str, grid: "Grid") -> dict:
    """Prepare `out` for `grid` and return the swept columns' types. A folder of another sweep (other
    parameters, or other base settings) is refused with what differs; a killed run's temporary files
    are removed. The same grid, or one with more values or seeds, resumes the sweep already there."""
    try:
        output_folders(out, "events", "summaries")
    except ValueError as e:
        raise ConfigError(str(e)) from None
    manifest = {"parameters": grid.columns, "types": grid.param_types(), "base": grid.base}
    path = os.path.join(out, "sweep.json")
    if os.path.exists(path):
        try:
            with open(path) as f:
                old = json.load(f)
        except (OSError, ValueError) as e:
            raise ConfigError(f"{path}: unreadable ({e}); use another --out folder") from None
        differs = _differences(old, json.loads(json.dumps(manifest, default=str)))
        if differs:
            raise ConfigError(f"{out} holds another sweep ({'; '.join(differs)}): use another --out folder, or "
                              f"delete this one to start again")
    else:
        tmp = f"{path}.tmp-{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(manifest, f, indent=1, default=str)
        os.replace(tmp, path)
    for folder, _, names in os.walk(out):
        for name in names:
            if name.startswith(".") and ".tmp-" in name:
                os.remove(os.path.join(folder, name))
    return manifest["types"]


def _differences(old: dict, new: dict) -> list[str]:
    """What makes the sweep in a folder (`old` manifest) another sweep than `new`."""
    out = []
    if old.get("types") != new["types"]:
        out.append(f"it sweeps {old.get('types')}, this grid sweeps {new['types']}")
    base_old, base_new = old.get("base") or {}, new["base"]
    return out + [f"base {key}: {base_old.get(key, '(not set)')!r} there, {base_new.get(key, '(not set)')!r} in this grid"
                  for key in sorted(set(base_old) | set(base_new)) if base_old.get(key) != base_new.get(key)]


def run_all(runs: Iterable[RunSpec], events_root: str | None = None) -> list[dict]:
    """The plain-Python sweep: run each spec in this process (optionally writing its events).
    Returns the summary rows (swept parameters included)."""
    rows = []
    for run in runs:
        result, row = run_one(run)
        if result is not None and events_root is not None:
            write_events(result, run, events_root)
        rows.append({**run.params, **row})
    return rows
