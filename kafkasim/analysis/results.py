"""Sweep results kept, so that a chapter's full-size sweep runs once, not at every build.

A stored result is one Parquet file, `<folder>/<name>.parquet`, one row per run, whose schema
metadata (`kafkasim.results`) says what made it: its key, the inputs (the grid and whatever the
chapter derives the rows with), the version of the simulator's source (`code_version`) and the
command that makes it again. The key hashes the inputs and that source version, so a changed grid
or a changed model file gives another key, and a stale result is never read.

`cached` asks for a result: the first stored file whose key matches is read (the copies committed
in the repository first, then the build's cache). A committed file made from the same inputs by
other simulator code is read too if today's code gives the same rows for a sample of its runs,
simulated again (`reproduces`): a refactor, or a model change that these runs never reach, does not
cost a full sweep, and the report says which code made the rows and how many were checked.
Otherwise the sweep runs in a work folder kept in the cache, so an interrupted build resumes it
(`kafkasim.analysis.spark.sweep` skips the runs it finished), and the result is stored in the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kafkasim.analysis import write_parquet_atomically
from kafkasim.core.provenance import KAFKASIM_VERSION

PACKAGE = Path(__file__).resolve().parent.parent
#: What a sweep's rows depend on, relative to the package: the models and the scenario layer that
#: wires them, and the sweep's own code (the views, the log parser and the CLI are left out).
SOURCES = ("__init__.py", "core", "client", "broker", "coordinator", "zookeeper", "scenario",
           "analysis/__init__.py", "analysis/sweep_grid.py", "analysis/spark.py")
METADATA_KEY = b"kafkasim.results"
#: Runs of a stored result simulated again before it is read under other simulator code.
SAMPLE = 12


def source_files(package: Path = PACKAGE) -> list[Path]:
    """The .py files of SOURCES under `package`, sorted."""
    files = []
    for source in SOURCES:
        path = package / source
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return sorted(files)


def code_version(package: Path = PACKAGE) -> str:
    """A hash of the simulator's source (`source_files`): equal when no file a sweep runs changed."""
    digest = hashlib.sha256()
    for path in source_files(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def result_key(inputs: dict, code: str | None = None) -> str:
    """The key of the result made from `inputs` by the simulator at `code` (today's by default)."""
    text = json.dumps({"inputs": inputs, "code": code or code_version()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Stored:
    path: Path
    record: dict    # key, inputs, code_version, kafkasim_version, rows, regenerate


def read_record(path: str | os.PathLike) -> dict:
    """The `kafkasim.results` record of a stored result; ValueError if the file holds none."""
    import pyarrow.parquet as pq

    metadata = pq.read_schema(path).metadata or {}
    if METADATA_KEY not in metadata:
        raise ValueError(f"{path} is not a stored sweep result (no {METADATA_KEY.decode()} metadata)")
    return json.loads(metadata[METADATA_KEY])


def find(name: str, key: str, folders: Sequence[str | os.PathLike | None]) -> Stored | None:
    """The first `<folder>/<name>.parquet` whose key is `key` (None folders are skipped)."""
    for folder in folders:
        if folder is None:
            continue
        path = Path(folder) / f"{name}.parquet"
        if path.exists():
            record = read_record(path)
            if record.get("key") == key:
                return Stored(path, record)
    return None


def _same_inputs(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def reproduces(path: str | os.PathLike, sample: int = SAMPLE) -> list[str]:
    """Simulate `sample` runs spread across a stored result again, with today's code; the run ids
    whose stored row differs from today's in a field the sweep writes (empty: today's code gives the
    same rows). Fields a chapter derived (not written by `run_one`) are not compared."""
    import pyarrow.parquet as pq

    from kafkasim.analysis.sweep_grid import Grid, run_one

    record = read_record(path)
    specs = {r.run_id: r for r in Grid.from_dict(record["inputs"]["grid"]).runs(check=False)}
    rows = pq.read_table(path).to_pylist()
    differ = []
    for row in rows[:: max(1, len(rows) // sample)][:sample]:
        _, fresh = run_one(specs[row["run_id"]])
        fields = set(fresh) & set(row) - {"scenario", "provenance", "sim_seconds"}
        if any(row[f] != fresh[f] for f in fields):
            differ.append(row["run_id"])
    return differ


def find_reproduced(name: str, inputs: dict, folders: Sequence[str | os.PathLike | None]) -> Stored | None:
    """The first `<folder>/<name>.parquet` made from `inputs` by other simulator code whose sampled
    runs today's code reproduces."""
    for folder in folders:
        path = Path(folder) / f"{name}.parquet" if folder is not None else None
        if path is not None and path.exists():
            record = read_record(path)
            if _same_inputs(record.get("inputs", {}), inputs) and not reproduces(path):
                return Stored(path, record)
    return None


def store(table, path: str | os.PathLike, inputs: dict, regenerate: str) -> Path:
    """Write a pyarrow Table as a stored result (rows sorted by `run_id`, so the same runs give the
    same file), with its record. Returns the path."""
    record = {"key": result_key(inputs), "inputs": inputs, "code_version": code_version(),
              "kafkasim_version": KAFKASIM_VERSION, "rows": table.num_rows, "regenerate": regenerate}
    if "run_id" in table.column_names:
        table = table.sort_by("run_id")
    metadata = {**(table.schema.metadata or {}), METADATA_KEY: json.dumps(record, sort_keys=True, default=str).encode()}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return Path(write_parquet_atomically(table.replace_schema_metadata(metadata), str(path)))


def cached(spark, name: str, inputs: dict, compute: Callable[[str], object], *,
           folders: Sequence[str | os.PathLike | None], cache: str | os.PathLike, regenerate: str,
           report: Callable[[str], None] = print):
    """A Spark DataFrame of the result `name` made from `inputs`: read from the first of `folders`,
    then `cache`, that stores it under today's key, or else from the first of `folders` whose sampled
    runs today's code reproduces; else made by `compute(work_folder)` (a
    DataFrame: typically a sweep into that folder and what the chapter derives from it) and stored
    in `cache`. The work folder, `cache/work/<name>-<key>`, is kept until the result is stored,
    so a computation that is interrupted resumes there; `regenerate` is the command that makes the
    result again, recorded with it."""
    import pyarrow.dataset as ds

    key = result_key(inputs)
    found = find(name, key, [*folders, cache])
    if found is not None:
        report(f"{name}: {found.record['rows']:,} runs read from {found.path} (key {key}: the same inputs "
               f"and simulator code {found.record['code_version']})")
        return spark.read.parquet(str(found.path))
    found = find_reproduced(name, inputs, folders)
    if found is not None:
        report(f"{name}: {found.record['rows']:,} runs read from {found.path}, made by simulator code "
               f"{found.record['code_version']}; today's code ({code_version()}) gives the same rows for the "
               f"{SAMPLE} runs simulated again")
        return spark.read.parquet(str(found.path))
    work = Path(cache) / "work" / f"{name}-{key}"
    work.mkdir(parents=True, exist_ok=True)
    frame = compute(str(work))
    frame.write.mode("overwrite").parquet(str(work / "result"))  # Spark's own types, through Parquet
    table = ds.dataset(str(work / "result"), format="parquet").to_table()
    path = store(table, Path(cache) / f"{name}.parquet", inputs, regenerate)
    shutil.rmtree(work, ignore_errors=True)
    report(f"{name}: {table.num_rows:,} runs stored in {path} (key {key})")
    return spark.read.parquet(str(path))
