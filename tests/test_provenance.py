"""Every result says where it came from: kafkasim's version, the Kafka version, the seed, the configs
as resolved against that version's defaults, and its inputs; Parquet files carry the same record."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

import kafkasim
from kafkasim import Scenario, faults, read_provenance, simulate
from kafkasim.analysis.logs import parse_lines
from kafkasim.analysis.sweep_grid import Grid, run_one, write_events
from kafkasim.core.engine import Simulation
from kafkasim.core.provenance import KAFKASIM_VERSION

ROOT = Path(__file__).resolve().parent.parent


def test_kafkasim_version_is_the_projects():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert KAFKASIM_VERSION == kafkasim.__version__ == project["version"]


@pytest.fixture(scope="module")
def run():
    return simulate(Scenario(kafka_version="2.8", members=2, duration_ms=20_000, seed=7,
                             consumer={"max.poll.records": 100}, faults=[faults.Crash("c-1", at_ms=5_000)]))


def test_a_run_records_the_resolved_configs_version_and_seed(run):
    p = run.provenance
    assert (p["kafkasim_version"], p["model"], p["kafka_version"], p["seed"]) == (KAFKASIM_VERSION,
                                                                                "kafkasim.scenario", "2.8", 7)
    consumer = p["configs"]["consumer"]
    assert consumer["max.poll.records"] == 100            # the override
    assert consumer["session.timeout.ms"] == 10_000        # 2.8's default (45 s only from 3.0, KIP-735)
    assert p["configs"]["broker"]["group.max.size"] == 2**31 - 1
    assert p["inputs"]["scenario"]["faults"] == [{"type": "Crash", "member": "c-1", "at_ms": 5000}]


def test_the_parquet_file_alone_reproduces_the_run(run, tmp_path):
    run.to_parquet(tmp_path / "run.parquet")
    stored = read_provenance(tmp_path / "run.parquet")
    assert stored == json.loads(json.dumps(run.provenance, default=str))
    scenario = stored["inputs"]["scenario"]
    again = simulate(Scenario(kafka_version=stored["kafka_version"], seed=stored["seed"], members=scenario["members"],
                              duration_ms=scenario["duration_ms"], consumer=scenario["consumer"],
                              faults=[faults.Crash(f["member"], f["at_ms"]) for f in scenario["faults"]]))
    assert again.rows == run.rows


def test_a_finished_run_keeps_no_live_simulation(run):
    from kafkasim.client.consumer import Consumer
    from kafkasim.coordinator import GroupCoordinator

    live = (Simulation, GroupCoordinator, Consumer)
    assert not [name for name, value in vars(run).items() if isinstance(value, live)]
    assert run.ledger.owner is None   # the ledger forgot which consumer believed it owned what
    assert run.summary["records_produced"] > 0 and run.engine_stats["events"] > 0


def test_a_sweep_result_carries_it_in_its_row_and_its_events_file(tmp_path):
    spec = Grid.from_dict({"base": {"members": 2, "duration_ms": 10_000}, "grid": {"session.timeout.ms": [10_000]},
                           "seeds": [3]}).runs()[0]
    result, row = run_one(spec)
    assert json.loads(row["provenance"])["seed"] == 3
    assert json.loads(row["provenance"])["configs"]["consumer"]["session.timeout.ms"] == 10_000
    stored = read_provenance(write_events(result, spec, str(tmp_path)))
    assert stored["seed"] == 3 and stored["kafkasim_version"] == KAFKASIM_VERSION


def test_a_parsed_log_names_the_files_it_read(run, tmp_path):
    import pyarrow.parquet as pq

    parsed = parse_lines(run.broker_log, file="server.log")
    pq.write_table(parsed.events_table(), tmp_path / "events.parquet")
    stored = read_provenance(tmp_path / "events.parquet")
    assert (stored["model"], stored["inputs"]["files"], stored["kafka_version"]) == (
        "kafkasim.analysis.logs", ["server.log"], None)


def test_a_file_without_provenance_says_so(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": [1]}), tmp_path / "other.parquet")
    with pytest.raises(ValueError, match="holds no kafkasim provenance"):
        read_provenance(tmp_path / "other.parquet")


def test_a_pause_run_records_its_model_version_resolved_consumer_configs_and_scenario():
    """`simulate_pause` (KAFKA-13463's model) has no random draws (its Simulation is seeded 0): its record
    names that model, the scenario's Kafka version, seed 0, the consumer configs resolved against that
    version, and the scenario's fields as given."""
    from kafkasim.client.pause_resume import PauseScenario, simulate_pause

    scenario = PauseScenario(kafka_version="3.1")
    p = simulate_pause(scenario).provenance
    assert p == {"kafkasim_version": KAFKASIM_VERSION, "model": "kafkasim.client.pause_resume",
                 "kafka_version": "3.1", "seed": 0, "configs": {"consumer": scenario.consumer_config},
                 "inputs": {"scenario": scenario.to_dict()}}
    assert p["configs"]["consumer"]["session.timeout.ms"] == 45_000  # 3.0's default (KIP-735), resolved
    assert p["inputs"]["scenario"]["kafka_version"] == "3.1"
