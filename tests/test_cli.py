"""The `kafkasim` command: clear errors before Spark starts (bad grid file, missing path, no
Java), logs without Spark, and a sweep end to end on the shared test session."""

import tomllib
from pathlib import Path

import pandas as pd
import pytest

from kafkasim import Scenario, simulate
from kafkasim.analysis.cli import EXIT_BAD_INPUT, EXIT_OK, main
from kafkasim.analysis.log_parser import parse_file

ROOT = Path(__file__).resolve().parent.parent
GOOD = """\
base: {members: 2, topics: {t: 2}, duration_ms: 30000}
grid:
  session.timeout.ms: [10000, 45000]
seeds: 1
"""


def test_the_console_script_is_declared():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"kafkasim": "kafkasim.analysis.cli:main"}


@pytest.mark.parametrize("text,message", [
    ("grid: {session.timeout.ms: [10000, 45000]\n", "not valid YAML"),
    ("grid: {sesion.timeout.ms: [10000]}\n", "unknown parameter 'sesion.timeout.ms'"),
    ("grid: {}\n", "grid is empty"),
    ("grid: {members: 3}\n", "grid.members must be a non-empty list"),
    ("grids: {members: [3]}\n", "unknown key(s) grids"),
    ("grid: {members: [3]}\nseeds: 0\n", "seeds must be a count >= 1"),
    ("grid: {session.timeout.ms: [10000, 1000]}\n", "session.timeout.ms=1000"),  # heartbeat.interval.ms is 3000
    ("grid:\n  faults[0].at_ms: [1000]\n", "base has 0 fault(s)"),
    ("- just\n- a list\n", "expected a mapping"),
])
def test_a_bad_grid_file_is_named_with_its_problem(tmp_path, capsys, text, message):
    grid = tmp_path / "grid.yaml"
    grid.write_text(text)
    assert main(["sweep", str(grid), "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"kafkasim sweep: error: {grid}") and message in err
    assert not (tmp_path / "out").exists()  # nothing ran


def test_a_missing_grid_file_or_log_path_is_named(tmp_path, capsys):
    assert main(["sweep", str(tmp_path / "nope.yaml"), "--out", str(tmp_path)]) == EXIT_BAD_INPUT
    assert "nope.yaml: cannot read the grid file" in capsys.readouterr().err
    assert main(["logs", str(tmp_path / "server.log"), "--out", str(tmp_path)]) == EXIT_BAD_INPUT
    assert "server.log: no such file or directory" in capsys.readouterr().err


def test_no_java_says_what_to_install(tmp_path, capsys, monkeypatch):
    (tmp_path / "grid.yaml").write_text(GOOD)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java here
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert main(["sweep", str(tmp_path / "grid.yaml"), "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "Spark needs Java 17+" in err and "openjdk-17" in err and "JAVA_HOME" in err
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert main(["logs", str(tmp_path / "grid.yaml"), "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    assert f"JAVA_HOME={tmp_path} has no bin/java" in capsys.readouterr().err


def test_logs_without_spark(tmp_path, capsys):
    run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=60_000))
    log = tmp_path / "server.log"
    log.write_text("\n".join(run.broker_log + ["[2026-01-01 00:00:00,000] INFO [GroupCoordinator 0]: Stabilized "
                                               "group g generation x (kafka.coordinator.group.GroupCoordinator)"]))
    assert main(["logs", str(tmp_path), "--out", str(tmp_path / "out"), "--no-spark"]) == EXIT_OK
    out = capsys.readouterr().out
    expected = parse_file(str(log))
    events = pd.read_parquet(tmp_path / "out" / "events")
    assert events["kind"].tolist() == [r[4] for r in expected.rows]
    assert pd.read_parquet(tmp_path / "out" / "unparsed")["line"].tolist() == [len(run.broker_log) + 1]
    assert f"{len(run.broker_log) + 1} lines" in out and "unparsed: 1 lines" in out
    assert f"RebalanceStarted {run.summary['rebalances']}" in out


def test_sweep_end_to_end_and_resumed(spark, tmp_path, capsys):
    (tmp_path / "grid.yaml").write_text(GOOD)
    args = ["sweep", str(tmp_path / "grid.yaml"), "--out", str(tmp_path / "out")]
    assert main(args) == EXIT_OK
    out = capsys.readouterr().out
    assert "2 runs in the grid: 2 simulated now (2 ok, 0 failed), 0 already in" in out
    assert "of 2 combinations" in out
    assert main(args) == EXIT_OK
    assert "0 simulated now (0 ok, 0 failed), 2 already in" in capsys.readouterr().out


def test_the_example_grid_is_valid():
    from kafkasim.analysis.sweep_grid import Grid

    grid = Grid.from_file(ROOT / "examples" / "gc-pause-grid.yaml")
    assert len(grid.runs()) == 75
