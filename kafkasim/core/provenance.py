"""Where a result came from, so that a result file alone says how to reproduce it.

Every `Run`, sweep result and parsed broker log carries a provenance record: kafkasim's version,
the model that wrote it, the Kafka version and seed, the configs as resolved against that
version's defaults, and the inputs (a scenario, or the log files read). Parquet files keep it in
their schema metadata under `kafkasim.provenance`, as JSON.
"""

from __future__ import annotations

import json
from typing import Any

#: kafkasim's release (pyproject.toml's version; tests/test_environment.py keeps the two equal).
KAFKASIM_VERSION = "0.1.0"
PARQUET_KEY = b"kafkasim.provenance"


def provenance(model: str, *, kafka_version: str | None, seed: int | None, configs: dict[str, dict] | None,
               inputs: dict[str, Any]) -> dict[str, Any]:
    """The provenance record of one result (see the module docstring)."""
    return {"kafkasim_version": KAFKASIM_VERSION, "model": model, "kafka_version": kafka_version, "seed": seed,
            "configs": configs, "inputs": inputs}


def to_json(record: dict) -> str:
    """The record as stable JSON (sorted keys; values JSON cannot hold written as text)."""
    return json.dumps(record, sort_keys=True, default=str)


def parquet_metadata(record: dict) -> dict[bytes, bytes]:
    """The schema metadata entry that carries `record` in a Parquet file."""
    return {PARQUET_KEY: to_json(record).encode()}


def with_provenance(table, record: dict):
    """A pyarrow Table whose schema metadata also holds `record`."""
    return table.replace_schema_metadata({**(table.schema.metadata or {}), **parquet_metadata(record)})


def read_provenance(path) -> dict:
    """The provenance record stored in a Parquet file written by kafkasim."""
    import pyarrow.parquet as pq

    metadata = pq.read_schema(path).metadata or {}
    if PARQUET_KEY not in metadata:
        raise ValueError(f"{path} holds no kafkasim provenance (was it written by kafkasim?)")
    return json.loads(metadata[PARQUET_KEY])
