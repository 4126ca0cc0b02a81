"""The `kafkasim` command: clear errors before Spark starts (bad grid file, missing path, no
Java), logs without Spark, and a sweep end to end on the shared test session."""

import os
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from kafkasim import Scenario, simulate
from kafkasim.analysis.cli import EXIT_BAD_INPUT, EXIT_FAILED_RUNS, EXIT_OK, EXIT_SPARK, main
from kafkasim.analysis.logs import parse_file
from kafkasim.core.errors import ConfigError

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
    ("grid: {members: [3]}\nseeds: 0\n", "seeds must be a count from 1 to 1,000,000"),
    ("grid: {members: [3]}\nseeds: [9223372036854775808]\n", "seeds must be from 0 to 9,223,372,036,854,775,807"),
    ("grid: {members: [3]}\nseeds: 1000000000000\n", "seeds must be a count from 1 to 1,000,000"),
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


@pytest.mark.parametrize("name,data,read", [
    # a .json file is read as JSON: its mistakes are named so, even where YAML would accept the text
    ("grid.json", b'{"grid": {"members": [3, 4]}, "seeds": 2}', {"members": [3, 4]}),
    ("grid.json", b"grid: {members: [3]}\n", "not valid JSON"),
    ("grid.json", b'{"grid": {"members": [3]},}', "not valid JSON"),
    # either parser finds the encoding: UTF-8, or UTF-16 by its byte-order mark
    ("grid.yaml", "grid: {members: [3]}  # café\n".encode("utf-16"), {"members": [3]}),
    ("grid.json", '{"grid": {"members": [3]}, "seeds": 1}'.encode("utf-16"), {"members": [3]}),
    # bytes in no Unicode encoding are the file's problem, named, not a UnicodeDecodeError's traceback
    ("grid.yaml", "grid: {members: [3]}  # café\n".encode("latin-1"), "not valid YAML"),
    ("grid.json", '{"grid": {"members": [3]}} café'.encode("latin-1"), "not valid JSON"),
])
def test_a_grid_file_is_json_by_its_name_else_yaml_in_the_encoding_it_says(tmp_path, name, data, read):
    from kafkasim.analysis.sweep_grid import Grid

    (tmp_path / name).write_bytes(data)
    if isinstance(read, dict):
        assert Grid.from_file(tmp_path / name).axes == read
    else:
        with pytest.raises(ConfigError) as refused:
            Grid.from_file(tmp_path / name)
        assert str(refused.value).startswith(f"{tmp_path / name}: {read}: ")


def test_a_missing_grid_file_or_log_path_is_named(tmp_path, capsys):
    assert main(["sweep", str(tmp_path / "nope.yaml"), "--out", str(tmp_path)]) == EXIT_BAD_INPUT
    assert "nope.yaml: cannot read the grid file" in capsys.readouterr().err
    assert main(["logs", str(tmp_path / "server.log"), "--out", str(tmp_path)]) == EXIT_BAD_INPUT
    assert "server.log: no such file or directory" in capsys.readouterr().err


def test_no_java_says_what_to_install(tmp_path, capsys, monkeypatch):
    (tmp_path / "grid.yaml").write_text(GOOD)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java here
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert main(["sweep", str(tmp_path / "grid.yaml"), "--out", str(tmp_path / "out")]) == EXIT_SPARK["java"] == 3
    err = capsys.readouterr().err
    assert "Spark needs Java 17+" in err and "openjdk-17" in err and "JAVA_HOME" in err
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert main(["logs", str(tmp_path / "grid.yaml"), "--out", str(tmp_path / "out")]) == EXIT_SPARK["java"]
    assert f"JAVA_HOME={tmp_path} has no bin/java" in capsys.readouterr().err


FAILING_JAVA = """#!/bin/sh
if [ "$1" = "-version" ]; then echo 'openjdk version "17.0.9" 2023-10-17' >&2; exit 0; fi
echo 'Exception in thread "main" java.lang.NoClassDefFoundError: org/apache/spark/launcher/Main' >&2
echo '	at java.base/java.lang.ClassLoader.defineClass1(Native Method)' >&2
exit 1
"""


@pytest.mark.local_spark  # the JVM this test breaks is the local one a command starts
@pytest.mark.parametrize("java,conf,why", [
    # a broken Java 17 (it says its version, then cannot run Spark's launcher): its stack trace is one line
    ("broken", [], 'Exception in thread "main" java.lang.NoClassDefFoundError: org/apache/spark/launcher/Main'),
    # the real JVM refuses the heap size: HotSpot's lines on stdout and stderr are one line too
    ("real", ["--conf", "spark.driver.memory=1x"], "Invalid maximum heap size: -Xmx1x"),
])
def test_a_jvm_that_cannot_start_is_one_line(tmp_path, java, conf, why):
    """In a fresh process (the JVM's own output goes to the process's file descriptors): the status is
    3, stderr is the announcement and the error, stdout is empty."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if java == "broken":
        (tmp_path / "bin").mkdir()
        (tmp_path / "bin" / "java").write_text(FAILING_JAVA)
        (tmp_path / "bin" / "java").chmod(0o755)
        env["JAVA_HOME"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "kafkasim.analysis.cli", "diagnose",
                           str(ROOT / "examples" / "incidents" / "network.log"), "--spark", "--master", "local[1]",
                           *conf], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == EXIT_SPARK["java"] == 3
    assert proc.stdout == ""
    shown = os.path.join(env["JAVA_HOME"], "bin", "java") if env.get("JAVA_HOME") else "java"
    assert proc.stderr.splitlines() == ["kafkasim diagnose: starting Spark on local[1]",
                                        f"kafkasim diagnose: error: Java could not start Spark ({shown}): {why} "
                                        f"(check `{shown} -version`, JAVA_HOME and the --conf settings, e.g. "
                                        f"spark.driver.memory)"]


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
    (tmp_path / "grid.yaml").write_text(GOOD.replace("seeds:", "  members: [2]\nseeds:"))  # a second axis, one value
    args = ["sweep", str(tmp_path / "grid.yaml"), "--out", str(tmp_path / "out"), "--master", "local[2]"]
    assert main(args) == EXIT_OK
    out, err = capsys.readouterr()
    assert "kafkasim sweep: 2 runs (2 combinations x 1 seeds) on local[2]" in err.splitlines()
    assert "2 runs in the grid: 2 simulated now (2 ok, 0 failed), 0 already in" in out
    assert "of 2 combinations" in out
    out_dir = tmp_path / "out"  # where the Parquet went, partitioned by the swept axes' column names
    assert f"  events:    {out_dir / 'events'} (Parquet, partitioned by session_timeout_ms, members)" in out.splitlines()
    assert f"  summaries: {out_dir / 'summaries'}" in out.splitlines()
    assert main(args) == EXIT_OK
    assert "0 simulated now (0 ok, 0 failed), 2 already in" in capsys.readouterr().out


def test_the_example_grid_is_valid():
    from kafkasim.analysis.sweep_grid import Grid

    grid = Grid.from_file(ROOT / "examples" / "gc-pause-grid.yaml")
    assert len(grid.runs()) == 75


# -- errors people make: one line each, and an exit status that says which ---------------------------
def test_usage_errors_exit_with_2():
    with pytest.raises(SystemExit) as e:
        main(["sweep"])
    assert e.value.code == EXIT_BAD_INPUT


@pytest.mark.parametrize("make,problem", [
    (lambda p: p.write_text("a file"), "it is a file"),
    (lambda p: p.parent.joinpath("f").write_text("x") or None, "Not a directory"),
])
def test_an_unusable_out_is_refused_before_anything_runs(tmp_path, capsys, make, problem):
    (tmp_path / "grid.yaml").write_text(GOOD)
    out = tmp_path / "out" if problem == "it is a file" else tmp_path / "f" / "out"
    make(tmp_path / "out")
    for args in (["sweep", str(tmp_path / "grid.yaml")], ["logs", str(tmp_path / "grid.yaml"), "--no-spark"]):
        assert main([*args, "--out", str(out)]) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{out}: cannot be used as the output folder ({problem})" in err, err


def test_a_huge_grid_asks_for_yes_with_its_size_and_cost(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text("base: {duration_ms: 60000}\ngrid:\n  session.timeout.ms: [10000, 20000, 30000, 45000]\n"
                    "  members: [2, 3, 4, 5, 6]\nseeds: 10000\n")
    assert main(["sweep", str(grid), "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("kafkasim sweep: error: this grid has 200,000 runs, about ") and "core-hours" in err
    assert err.rstrip().endswith("past 100,000 runs a sweep starts only with --yes")
    assert not (tmp_path / "out").exists()


def test_estimated_events_scale_the_sample_to_the_grid():
    from kafkasim.analysis.sweep_grid import Grid
    from kafkasim.scenario.world import estimate_events

    grid = Grid.from_dict({"base": {"duration_ms": 60_000}, "grid": {"members": [2, 6]}, "seeds": 3})
    each = [estimate_events(Scenario(duration_ms=60_000, members=m)) for m in (2, 6)]
    assert grid.size == 6 and grid.estimated_events() == sum(each) * 3


def test_a_second_parse_into_the_same_out_replaces_the_first(tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    run = simulate(Scenario(members=2, topics={"t": 2}, duration_ms=30_000))
    for name in ("server.log", "server.log.1"):
        (logs / name).write_text("\n".join(run.broker_log))
    out = tmp_path / "out"
    assert main(["logs", str(logs), "--out", str(out), "--no-spark"]) == EXIT_OK
    assert main(["logs", str(logs / "server.log"), "--out", str(out), "--no-spark"]) == EXIT_OK
    assert sorted(p.name for p in (out / "events").iterdir()) == ["part-00000.parquet"]
    assert len(pd.read_parquet(out / "events")) == len(parse_file(str(logs / "server.log")).rows)
    (out / "events" / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert main(["logs", str(logs), "--out", str(out), "--no-spark"]) == EXIT_BAD_INPUT
    assert "holds files kafkasim did not write (notes.txt)" in capsys.readouterr().err
    assert (out / "events" / "notes.txt").exists() and (out / "events" / "part-00000.parquet").exists()


def test_a_log_that_cannot_be_read_is_reported_and_the_others_are_read(tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    run = simulate(Scenario(members=2, topics={"t": 2}, duration_ms=30_000))
    (logs / "server.log").write_text("\n".join(run.broker_log))
    os.mkfifo(logs / "server.log.1")
    assert main(["logs", str(logs), "--out", str(tmp_path / "out"), "--no-spark"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "not read to their end: 1 file(s)" in out and f"{logs / 'server.log.1'}: a FIFO" in out
    assert len(pd.read_parquet(tmp_path / "out" / "events")) == len(parse_file(str(logs / "server.log")).rows)


def test_an_unexpected_error_is_one_line_and_the_traceback_is_under_debug(tmp_path, capsys, monkeypatch):
    import kafkasim.analysis.logs as logs

    def broken(path):
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(logs, "parse_file", broken)
    (tmp_path / "server.log").write_text("x\n")
    args = ["logs", str(tmp_path / "server.log"), "--out", str(tmp_path / "out"), "--no-spark"]
    assert main(args) == EXIT_FAILED_RUNS
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "kafkasim logs: error: RuntimeError: disk on fire"
    assert not any("Traceback" in line for line in err)
    assert main([*args, "--debug"]) == EXIT_FAILED_RUNS
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "disk on fire" in err


def test_ctrl_c_during_a_parse_says_what_is_left(tmp_path, capsys, monkeypatch):
    import kafkasim.analysis.logs as logs

    def interrupted(path):
        raise KeyboardInterrupt

    monkeypatch.setattr(logs, "parse_file", interrupted)
    (tmp_path / "server.log").write_text("x\n")
    assert main(["logs", str(tmp_path / "server.log"), "--out", str(tmp_path / "out"), "--no-spark"]) == 130
    assert capsys.readouterr().err.strip() == (f"kafkasim logs: {tmp_path / 'server.log'}\n\nkafkasim logs: "
                                               f"interrupted: {tmp_path / 'out'} holds part of the parse only; run "
                                               f"the same command to parse again")


def test_logs_summary_counts_rebalances_per_group_and_writes_counts_json(tmp_path, capsys):
    # `kafkasim logs --no-spark` of a log with no coordinator line: every count it prints is 0, and the
    # groups a simulated run's rebalances name are counted by group id (the event's group column).
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "server.log").write_text("[2026-01-01 00:00:00,000] INFO Started (kafka.Kafka)\n")
    assert main(["logs", str(tmp_path / "empty"), "--out", str(tmp_path / "o1"), "--no-spark"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "1 lines, 0 from the group coordinator" in out and "  ignored:  0 coordinator lines" in out
    assert f"-> {tmp_path / 'o1' / 'unparsed'}" in out
    assert (tmp_path / "o1" / "counts.json").exists()
    run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=60_000))
    (tmp_path / "server.log").write_text("\n".join(run.broker_log))
    assert main(["logs", str(tmp_path / "server.log"), "--out", str(tmp_path / "o2"), "--no-spark"]) == EXIT_OK
    rebalances = run.summary["rebalances"]
    assert f"rebalances by group (1 groups): {run.scenario.group_id} {rebalances}" in capsys.readouterr().out
