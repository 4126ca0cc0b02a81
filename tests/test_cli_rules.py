"""The command line's rules pinned one by one (issue 29): the options `kafkasim --help` and the README
document (names, defaults, required ones, help texts, exit statuses), read from the argparse parser
alone without running Spark, and `kafkasim logs` on local Spark against what the plain parser reads."""
import gzip
import json
import os
import re
import sys
from collections import Counter

import pytest

from kafkasim import Scenario, simulate
from kafkasim.analysis.cli import (CONFIRM_RUNS, EXIT_BAD_INPUT, EXIT_FAILED_RUNS, EXIT_INTERRUPTED, EXIT_OK, EXIT_SPARK,
                                   _BadInput, _confirm, _parser, _print_log_summary, _some_read, main)
from kafkasim.analysis.logs import parse_file
from kafkasim.analysis.logs.files import _listing_refused


def _help(capsys, *command: str) -> str:
    """`kafkasim [command] --help`, whitespace collapsed (argparse wraps at the terminal's width)."""
    with pytest.raises(SystemExit) as done:
        _parser().parse_args([*command, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def _usage_error(capsys, argv: list[str]) -> str:
    """The last stderr line of a usage error, which argparse ends with status 2."""
    with pytest.raises(SystemExit) as done:
        _parser().parse_args(argv)
    assert done.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_sweep_takes_the_grid_file_as_its_positional_argument():
    args = _parser().parse_args(["sweep", "grid.yaml", "--out", "o", "--runs-per-task", "4"])
    assert (args.command, args.grid, args.out, args.runs_per_task) == ("sweep", "grid.yaml", "o", 4)


def test_logs_and_diagnose_take_one_or_more_paths():
    assert _parser().parse_args(["logs", "a.log", "dir", "--out", "o"]).paths == ["a.log", "dir"]
    args = _parser().parse_args(["diagnose", "a.log", "b.log", "--spark", "--group", "g1"])
    assert (args.paths, args.spark, args.group) == (["a.log", "b.log"], True, "g1")
    assert _parser().parse_args(["diagnose", "a.log"]).spark is False


def test_logs_requires_out(capsys):
    assert _usage_error(capsys, ["logs", "a.log"]).endswith("the following arguments are required: --out")


def test_master_defaults_to_spark_remote_else_local_star_for_every_command():
    # README "On a cluster" and sweep's help: SPARK_REMOTE, else local[*] (read when kafkasim is imported).
    default = os.environ.get("SPARK_REMOTE") or "local[*]"
    for argv in (["sweep", "g.yaml", "--out", "o"], ["logs", "a.log", "--out", "o"], ["diagnose", "a.log"]):
        assert _parser().parse_args(argv).master == default
        assert _parser().parse_args([*argv, "--master", "spark://h:7077"]).master == "spark://h:7077"


def test_top_help_names_the_tool_and_every_exit_status(capsys):
    text = _help(capsys)
    assert "Kafka consumer-group simulations and broker logs on Spark." in text
    # README: a missing Java, an unreachable master, executors without the packages each end with a status
    # of their own, listed by `kafkasim --help` (the values EXIT_SPARK gives those kinds).
    for status, what in [(0, "done"), (2, "bad input (usage, files)"), (EXIT_SPARK["java"], "no Java 17+ or no PySpark"),
                         (EXIT_SPARK["unreachable"], "the Spark master or Connect server does not answer"),
                         (EXIT_SPARK["executors"], "the executors cannot run kafkasim (Python, packages)"),
                         (EXIT_SPARK["session"], "another Spark session runs in this process"),
                         (130, "interrupted (a sweep keeps its finished runs)")]:
        assert f"{status} {what}" in text


def test_conf_help_shows_the_readmes_executor_python_example(capsys):
    assert "--conf KEY=VALUE a Spark setting (repeatable), e.g. --conf spark.pyspark.python=/opt/py311/bin/python" \
        in _help(capsys, "sweep")


def test_logs_help_names_what_out_holds(capsys):
    assert "--out OUT output folder (events/, unparsed/, counts.json)" in _help(capsys, "logs")


def test_diagnose_help_says_master_is_for_spark(capsys):
    assert "--master MASTER as for sweep (with --spark)" in _help(capsys, "diagnose")


def test_spark_starts_on_the_master_given_by_master_with_each_conf_pair(monkeypatch, capsys):
    """README: `--master URL` picks the Spark master and `--conf KEY=VALUE` sets one Spark property each
    (the value kept as written after the first `=`); the session is asked for exactly those."""
    import argparse

    import kafkasim.analysis.spark as ks
    from kafkasim.analysis.cli import _spark

    asked = []
    monkeypatch.setattr(ks, "session", lambda master=None, conf=None: asked.append((master, conf)) or "S")
    args = argparse.Namespace(command="sweep", master="spark://h:7077", conf=[" spark.executor.memory =2g=x"])
    assert _spark(args) == (ks, "S")
    assert asked == [("spark://h:7077", {"spark.executor.memory": "2g=x"})]
    assert capsys.readouterr().err == "kafkasim sweep: starting Spark on spark://h:7077\n"


def test_an_unexpected_one_line_error_points_to_debug(tmp_path, capsys, monkeypatch):
    import kafkasim.analysis.logs as logs

    def broken(path):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(logs, "parse_file", broken)
    (tmp_path / "server.log").write_text("x\n")
    assert main(["logs", str(tmp_path / "server.log"), "--out", str(tmp_path / "out"), "--no-spark"]) == EXIT_FAILED_RUNS
    assert capsys.readouterr().err.splitlines()[-1] == \
        "kafkasim logs: error: RuntimeError: disk on fire (run with --debug for the traceback)"


def test_logs_on_spark_reads_what_the_plain_parser_reads(spark, tmp_path, capsys, monkeypatch):
    """`kafkasim logs` on local Spark (--chunk-mb 1), a simulated broker log beside a FIFO it cannot read: the
    events by kind and the rebalances by group are those of the plain parser and of the run, and the FIFO is
    named. The parse gets --chunk-mb in bytes (MiB) and shows its progress."""
    import kafkasim.analysis.spark as ks

    asked, parse = [], ks.parse_broker_logs
    monkeypatch.setattr(ks, "parse_broker_logs", lambda *args, **kw: asked.append(kw) or parse(*args, **kw))
    logs = tmp_path / "logs"
    logs.mkdir()
    run = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=60_000))
    (logs / "server.log").write_text("\n".join(run.broker_log))
    os.mkfifo(logs / "server.log.1")
    out = tmp_path / "out"
    assert main(["logs", str(logs), "--out", str(out), "--master", "local[2]", "--chunk-mb", "1"]) == EXIT_OK
    printed, err = capsys.readouterr()
    assert "kafkasim logs: 2 file(s) on local[2]" in err.splitlines()
    assert asked == [{"chunk_bytes": 1 << 20, "progress": True}]
    kinds = Counter(r[4] for r in parse_file(str(logs / "server.log")).rows)
    events = re.search(r"  events:   ([\d,]+) \((.*)\) -> (.*)", printed)
    assert events.group(1) == f"{sum(kinds.values()):,}" and events.group(3) == str(out / "events")
    assert set(events.group(2).split(", ")) == {f"{k} {n:,}" for k, n in kinds.items()}
    assert f"rebalances by group (1 groups): {run.scenario.group_id} {run.summary['rebalances']}" in printed
    assert "not read to their end: 1 file(s)" in printed and f"{logs / 'server.log.1'}: a FIFO" in printed
    assert (out / "counts.json").exists() and any(n.startswith("part-") for n in os.listdir(out / "events"))


def test_sweep_help_gives_the_runs_per_task_default_spark_sweep_applies(capsys):
    """`sweep(runs_per_task=None)` packs RUNS_PER_TASK runs a task, then 4 to 8 tasks per core."""
    from kafkasim.analysis.spark import RUNS_PER_TASK
    assert (f"--runs-per-task RUNS_PER_TASK runs per Spark task (default: {RUNS_PER_TASK}, in 4 to 8 tasks per "
            f"core)") in _help(capsys, "sweep")


def test_the_command_is_named_kafkasim_however_it_was_started(capsys, monkeypatch):
    """`python -m kafkasim`, a console script or a test runner: usage and errors say `kafkasim`."""
    monkeypatch.setattr("sys.argv", ["/some/where/__main__.py"])
    assert _help(capsys).startswith("usage: kafkasim [-h]")
    assert _usage_error(capsys, ["logs", "a.log"]).startswith("kafkasim logs: error:")


def test_master_is_explained_once_in_sweep_and_referred_to_by_the_others(capsys):
    assert ("--master MASTER Spark master: local[N], spark://, yarn, k8s://, or a Spark Connect sc://host:port "
            "(default: SPARK_REMOTE, else local[*])") in _help(capsys, "sweep")
    assert "--master MASTER as for sweep" in _help(capsys, "logs")


def _refusal(files, counts, problems) -> str | None:
    """`_some_read`'s message, None when it lets the run go on."""
    try:
        _some_read(files, counts, problems)
    except _BadInput as e:
        return str(e)
    return None


def test_inputs_none_of_which_could_be_read_are_named_a_permission_problem_first_else_three_of_them():
    """_some_read: when some inputs were refused for permission, the message says how many and names
    the first (the user running kafkasim may not read it); otherwise it shows the first three problems."""
    problems = [("a.log", "unreadable: Permission denied"), ("fifo", "a FIFO (named pipe), not a log file: skipped"),
                ("b.log", "unreadable: Permission denied")]
    assert _refusal(["a.log", "fifo", "b.log"], {"unreadable": 3}, problems) == (
        "read none of the 3 file(s) given: permission denied for 2 of them, e.g. a.log (the user running "
        "kafkasim may not read it)")
    others = [(f"f{i}", f"problem {i}") for i in range(4)]
    assert _refusal([f for f, _ in others], {"unreadable": 4, "lines": 0}, others) == (
        "read none of the 4 file(s) given: f0: problem 0; f1: problem 1; f2: problem 2")


def test_inputs_are_refused_only_when_every_file_was_unreadable_and_not_one_line_read():
    problems = [("a.log", "problem a"), ("b.log", "problem b")]
    files = ["a.log", "b.log"]
    assert _refusal(files, {"unreadable": 2}, problems) == (
        "read none of the 2 file(s) given: a.log: problem a; b.log: problem b")
    assert _refusal(files, {"unreadable": 2, "lines": 1}, problems) is None  # a file cut short: its lines count
    assert _refusal(files, {"unreadable": 1}, problems[:1]) is None  # b.log read, if empty
    assert _refusal(files, {}, []) is None


@pytest.mark.parametrize("exc, expected", [
    (PermissionError(13, "Permission denied", "/logs"),
     "/logs: permission denied: the directory /logs cannot be listed by this user (Permission denied)"),
    # os.walk's onerror names the directory it could not list, which may be one inside the path given
    (PermissionError(13, "Permission denied", "/logs/broker-1"),
     "/logs: permission denied: the directory /logs/broker-1 cannot be listed by this user (Permission denied)"),
    (OSError(5, "Input/output error", "/logs"), "/logs: the directory /logs cannot be listed (Input/output error)"),
    (OSError("no such mount"), "/logs: the directory /logs cannot be listed (no such mount)")])
def test_a_log_directory_that_cannot_be_listed_names_the_directory_and_a_permission_problem_as_one(exc, expected):
    """expand_paths refuses a directory it found nothing in because a listing failed (`_listing_refused`):
    the message names the directory refused, and says permission denied only for a PermissionError."""
    refused = _listing_refused("/logs", exc)
    assert str(refused) == expected and isinstance(refused, PermissionError) == isinstance(exc, PermissionError)


def test_logs_without_spark_writes_counts_json_names_every_files_problem_and_times_the_parse(tmp_path, capsys):
    """`kafkasim logs --no-spark`: counts.json holds the files given and the parse's counts, one entry a line,
    as the Spark path writes it; the problems of every file are kept (two FIFOs: both named), and the
    seconds printed are the parse's own (well under a minute here)."""
    (tmp_path / "server.log").write_text("[2024-03-05 20:21:14,681] INFO hello (kafka.server.KafkaServer)\n")
    out = tmp_path / "out"
    assert main(["logs", str(tmp_path / "server.log"), "--out", str(out), "--no-spark"]) == EXIT_OK
    seconds = float(re.search(r"; ([\d.]+) s", capsys.readouterr().out).group(1))
    assert 0 <= seconds < 60
    counts = parse_file(str(tmp_path / "server.log")).counts
    assert counts["lines"] == 1
    text = (out / "counts.json").read_text()
    assert text.splitlines()[:3] == ["{", ' "files": [', f'  "{tmp_path / "server.log"}"']
    assert json.loads(text) == {"files": [str(tmp_path / "server.log")], "counts": dict(counts)}
    for name in ("a.log", "b.log"):
        os.mkfifo(tmp_path / name)
    assert main(["logs", str(tmp_path / "a.log"), str(tmp_path / "b.log"), "--out", str(tmp_path / "o2"),
                 "--no-spark"]) != EXIT_OK
    err = capsys.readouterr().err
    assert f"{tmp_path / 'a.log'}: a FIFO" in err and f"{tmp_path / 'b.log'}: a FIFO" in err


REBALANCE = ("[2024-03-05 20:21:{s},681] INFO [GroupCoordinator 1]: Preparing to rebalance group {g} in state "
             "PreparingRebalance with old generation {n} (__consumer_offsets-12) (reason: Adding new member {m} with "
             "group instance id None) (kafka.coordinator.group.GroupCoordinator)")


def test_logs_summary_names_its_counts_and_the_five_groups_that_rebalanced_most(tmp_path, capsys):
    """`kafkasim logs` prints what it read: lines (and how many from the coordinator), the events by kind, the
    rebalances of the five groups that rebalanced most (of 8 here: g1 3 times, g2 twice, the rest once, ties
    in the order met), the lines kept aside (a record cut inside its reason, its rebalance kept), the
    coordinator lines without an event and the wrapped lines joined, each with where it was written."""
    starts = [("g1", 4), ("g1", 5), ("g1", 6), ("g2", 1), ("g2", 2), ("g3", 1), ("g4", 1), ("g5", 1), ("g6", 1)]
    lines = [REBALANCE.format(s=10 + i, g=g, n=n, m=f"c-{i}") for i, (g, n) in enumerate(starts)]
    cut = REBALANCE.format(s=20, g="g7", n=2, m="c-9")
    wrapped = REBALANCE.format(s=21, g="g8", n=3, m="c-10")
    lines += [cut[:cut.index("with group instance")], wrapped[:100], wrapped[100:],
              "[2024-03-05 20:21:27,681] INFO [GroupCoordinator 1]: Startup complete. "
              "(kafka.coordinator.group.GroupCoordinator)",
              "[2024-03-05 20:21:28,681] INFO hello (kafka.server.KafkaServer)"]
    log = tmp_path / "server.log"
    log.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    assert main(["logs", str(log), "--out", str(out), "--no-spark"]) == EXIT_OK
    first, *rest = capsys.readouterr().out.splitlines()
    timed = re.fullmatch(r"kafkasim logs: 1 file\(s\), 14 lines, 12 from the group coordinator; "
                         r"([\d.]+) s \(([\d,]+) lines/s\)", first)
    seconds, rate = float(timed.group(1)), int(timed.group(2).replace(",", ""))
    assert 14 / (seconds + 0.05) <= rate + 0.5 and (seconds < 0.05 or rate - 0.5 <= 14 / (seconds - 0.05))
    assert rest == [f"  events:   21 (RebalanceStarted 11, MemberAdded 10) -> {out / 'events'}",
                    "  rebalances by group (8 groups): g1 3, g2 2, g3 1, g4 1, g5 1",
                    f"  unparsed: 1 lines (1 of them damaged records whose events were kept) -> {out / 'unparsed'}",
                    "  ignored:  1 coordinator lines without an event; 1 wrapped lines joined"]


def test_logs_summary_names_the_first_five_files_not_read_to_their_end(tmp_path, capsys):
    fifos = [tmp_path / f"f{i}.log" for i in range(1, 7)]
    for fifo in fifos:
        os.mkfifo(fifo)
    assert main(["logs", *map(str, fifos), "--out", str(tmp_path / "out"), "--no-spark"]) != EXIT_OK
    printed = capsys.readouterr().out.splitlines()
    assert printed[1] == f"  events:   0 (none) -> {tmp_path / 'out' / 'events'}"
    assert printed[-6:] == ["  not read to their end: 6 file(s)", *[
        f"    {fifo}: a FIFO (named pipe), not a log file: skipped" for fifo in fifos[:5]]]


def test_a_parse_timed_at_0_s_prints_no_rate(capsys):
    _print_log_summary(["a.log"], "out", Counter(lines=5), Counter(), Counter(), [], 0.0)
    assert capsys.readouterr().out.splitlines()[0] == ("kafkasim logs: 1 file(s), 5 lines, 0 from the group "
                                                       "coordinator; 0.0 s")


@pytest.mark.parametrize("extra,message", [
    (["--chunk-mb", "0"], "--chunk-mb must be at least 1"),
    (["--out", "s3a://bucket/out"], "--out s3a://bucket/out: executors read and write with Python's file API, so give "
                                    "a path on a file system every node mounts (a s3a: URI cannot be used)"),
])
def test_logs_refuses_a_chunk_under_1_mb_and_an_out_executors_cannot_write_naming_the_option(tmp_path, capsys, extra,
                                                                                             message):
    log = tmp_path / "server.log"
    log.write_text("[2024-03-05 20:21:18,681] INFO hello (kafka.server.KafkaServer)\n")
    argv = ["logs", str(log), "--out", str(tmp_path / "out"), "--no-spark", *extra]
    assert main(argv) != EXIT_OK
    assert capsys.readouterr().err.splitlines()[-1] == f"kafkasim logs: error: {message}"


def test_logs_reads_a_file_cut_short_up_to_its_cut_and_is_no_error(tmp_path, capsys):
    """Every file not read to its end is an error only when no line at all was read (`_some_read`): a gzip
    stream cut in the middle (a log being rotated while copied) gives the lines before the cut, a summary
    naming the file and why, and exit status 0."""
    text = "".join(f"[2024-03-05 20:21:{i % 60:02d},681] INFO hello {i} (kafka.server.KafkaServer)\n"
                   for i in range(2000))
    packed = gzip.compress(text.encode())
    log = tmp_path / "server.log.gz"
    log.write_bytes(packed[:len(packed) // 2])
    assert main(["logs", str(log), "--out", str(tmp_path / "out"), "--no-spark"]) == EXIT_OK
    printed = capsys.readouterr().out.splitlines()
    lines = int(re.search(r", ([\d,]+) lines,", printed[0]).group(1).replace(",", ""))
    assert 0 < lines < 2000
    assert printed[-2:] == ["  not read to their end: 1 file(s)",
                            f"    {log}: damaged gzip stream (EOFError: Compressed file ended before the "
                            f"end-of-stream marker was reached), read up to there (line {lines})"]


class _Grid:
    """What `_confirm` reads of a grid: its run count and its estimated events."""

    def __init__(self, size: int, events: int):
        self.size, self._events = size, events

    def estimated_events(self) -> int:
        return self._events


def _terminal(monkeypatch, stdin: bool, stderr: bool, answer: str | None = None) -> list[str]:
    """Standard input and error as terminals or not; `input` answers `answer` and keeps its prompts."""
    monkeypatch.setattr(sys.stdin, "isatty", lambda: stdin)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: stderr)
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or answer)
    return asked


# 540,000,000 events / 150,000 events/s (EVENTS_PER_SECOND) / 3600 = 1.0 core-hour
BIG = ("this grid has 100,001 runs, about 540,000,000 events: 1.0 core-hours of simulation (an hour on 1 cores)")


def test_a_grid_of_confirm_runs_runs_or_fewer_starts_without_asking(monkeypatch):
    asked = _terminal(monkeypatch, True, True, "n")
    _confirm(_Grid(CONFIRM_RUNS, 10 ** 12), yes=False)
    assert asked == []


@pytest.mark.parametrize("answer", ["y", " Y ", "yes", "YES"])
def test_a_larger_grid_asks_on_a_terminal_with_its_size_and_cost_and_starts_on_yes(monkeypatch, answer):
    asked = _terminal(monkeypatch, True, True, answer)
    _confirm(_Grid(CONFIRM_RUNS + 1, 540_000_000), yes=False)
    assert asked == [f"kafkasim sweep: {BIG}. Start it? [y/N] "]


@pytest.mark.parametrize("stdin,stderr,answer,asks", [(True, True, "n", True), (True, True, "", True),
                                                      (True, False, "y", False), (False, True, "y", False)])
def test_a_larger_grid_is_refused_without_yes_or_a_terminal_on_both_ends(monkeypatch, stdin, stderr, answer, asks):
    asked = _terminal(monkeypatch, stdin, stderr, answer)
    with pytest.raises(_BadInput) as refused:
        _confirm(_Grid(CONFIRM_RUNS + 1, 540_000_000), yes=False)
    assert str(refused.value) == f"{BIG}; past 100,000 runs a sweep starts only with --yes"
    assert len(asked) == asks
    _confirm(_Grid(CONFIRM_RUNS + 1, 540_000_000), yes=True)  # --yes: no question, no refusal


def test_the_cost_of_a_large_grid_is_its_events_over_150000_a_second_in_core_hours_and_cores_for_an_hour():
    with pytest.raises(_BadInput) as refused:
        _confirm(_Grid(200_000, 1_890_000_000), yes=False)  # 3.5 core-hours: an hour on 4 cores
    assert str(refused.value).startswith("this grid has 200,000 runs, about 1,890,000,000 events: 3.5 core-hours of "
                                         "simulation (an hour on 4 cores)")


def _grid_file(folder, axes: str, seeds: int = 1):
    """A grid of 2-member, 1-second runs over `axes` (YAML lines under `grid:`)."""
    grid = folder / "grid.yaml"
    grid.write_text(f"base: {{members: 2, duration_ms: 1000}}\ngrid:\n{axes}seeds: {seeds}\n")
    return grid


def _tiny_grid(folder, seeds: int):
    """A grid of one 2-member point run `seeds` times."""
    return _grid_file(folder, "  session.timeout.ms: [10000]\n", seeds)


@pytest.mark.parametrize("runs_per_task,refused", [(0, True), (1, False)])
def test_sweep_refuses_fewer_than_1_run_per_task(tmp_path, capsys, runs_per_task, refused):
    grid = _tiny_grid(tmp_path, 1)
    argv = ["sweep", str(grid), "--out", "s3a://b/out", "--runs-per-task", str(runs_per_task)]
    assert main(argv) != EXIT_OK
    expected = ("--runs-per-task must be at least 1" if refused else
                "--out s3a://b/out: executors read and write with Python's file API, so give a path on a file system "
                "every node mounts (a s3a: URI cannot be used)")
    assert capsys.readouterr().err.splitlines()[-1] == f"kafkasim sweep: error: {expected}"


def test_sweep_with_yes_starts_a_grid_past_confirm_runs_without_asking(tmp_path, capsys):
    grid = _tiny_grid(tmp_path, CONFIRM_RUNS + 1)
    assert main(["sweep", str(grid), "--out", "s3a://b/out", "--yes"]) != EXIT_OK  # past the question, at --out
    assert capsys.readouterr().err.splitlines()[-1].startswith("kafkasim sweep: error: --out s3a://b/out: ")


@pytest.mark.parametrize("flags, runs_per_task", [([], None), (["--runs-per-task", "3"], 3)])
def test_sweep_hands_runs_per_task_to_spark_sweep_and_asks_for_progress_lines(tmp_path, capsys, monkeypatch, flags,
                                                                              runs_per_task):
    """`kafkasim sweep` runs `kafkasim.analysis.spark.sweep` with --runs-per-task as given (absent: None, the
    sweep's own default) and progress=True (its progress lines on stderr); here a stand-in for the Spark module
    records the call and is interrupted, so nothing is saved."""
    from types import SimpleNamespace

    import kafkasim.analysis.cli as cli

    calls = []

    def sweep(spark, grid, out, **options):
        calls.append((spark, out, options))
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_spark", lambda args: (SimpleNamespace(sweep=sweep), "session"))
    out = str(tmp_path / "out")
    assert main(["sweep", str(_tiny_grid(tmp_path, 1)), "--out", out, *flags]) == cli.EXIT_INTERRUPTED
    assert calls == [("session", out, {"runs_per_task": runs_per_task, "progress": True})]
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kafkasim sweep: interrupted: 0 of 1 runs are saved in {out} (runs in flight are lost); run the same "
        "command to resume")


@pytest.mark.parametrize("seconds, rate", [(2.0, ", 2.00 runs/s"), (0.0, "")])
def test_a_sweep_on_spark_counts_runs_simulated_now_as_ok_plus_failed_and_names_failed_runs(tmp_path, capsys,
                                                                                            monkeypatch, seconds,
                                                                                            rate):
    """The sweep's closing lines: the runs simulated now are those that ended ok plus those that failed
    (3 + 1), the rate is theirs over the sweep's seconds (none when no time was measured), each failed
    run is named with its error, and the exit status says runs failed. A stand-in plays the Spark module."""
    from types import SimpleNamespace

    import kafkasim.analysis.cli as cli

    out = str(tmp_path / "out")
    failed = [{"run_id": "r-7", "error": "ConfigError: boom"}]
    summaries = SimpleNamespace(where=lambda cond: SimpleNamespace(
        select=lambda *cols: SimpleNamespace(limit=lambda n: SimpleNamespace(collect=lambda: failed))))
    ks = SimpleNamespace(
        sweep=lambda spark, grid, out_, **options: SimpleNamespace(runs=6, done=3, failed=1, skipped=2,
                                                                   seconds=seconds, out=out_),
        read_sweep=lambda spark, folder: (None, summaries),
        safe_region=lambda s: SimpleNamespace(collect=lambda: []))
    monkeypatch.setattr(cli, "_spark", lambda args: (ks, "session"))
    assert main(["sweep", str(_tiny_grid(tmp_path, 1)), "--out", out]) == EXIT_FAILED_RUNS
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == (f"kafkasim sweep: 6 runs in the grid: 4 simulated now (3 ok, 1 failed), 2 already in {out}; "
                          f"{seconds:.1f} s{rate}")
    assert printed[-1] == "  failed run r-7: ConfigError: boom"


# -- kafkasim sweep's closing lines: a line per combination (40 or fewer), at most 3 failed runs named --------
def _sweep_printing(monkeypatch, safe_rows: list[dict], *, failed: int = 0, write=lambda out: None, spark="session",
                    **real):
    """Stand in for the Spark module: a sweep that calls `write(out)` and reports `failed` failed runs, no
    summaries, and `safe_region` rows `safe_rows`; `real` puts the real `read_sweep`/`safe_region` in instead."""
    from types import SimpleNamespace

    import kafkasim.analysis.cli as cli

    def sweep(spark, grid, out, **options):
        write(out)
        return SimpleNamespace(runs=0, done=0, failed=failed, skipped=0, seconds=0.0, out=out)

    ks = SimpleNamespace(sweep=sweep, read_sweep=lambda spark, folder: (None, None),
                         safe_region=lambda summaries: SimpleNamespace(collect=lambda: safe_rows))
    ks.__dict__.update(real)
    monkeypatch.setattr(cli, "_spark", lambda args: (ks, spark))


def _combination(safe: bool, safe_runs: int, runs: int, removals: int, duplicates: int, **params) -> dict:
    """A `safe_region` row: the combination's parameter columns and its figures."""
    return {**params, "runs": runs, "safe_runs": safe_runs, "safe": safe, "worst_removals_unplanned": removals,
            "worst_duplicates": duplicates}


def test_a_small_sweep_lists_each_combination_as_safe_or_unsafe_with_its_settings_and_worst_figures(
        tmp_path, capsys, monkeypatch):
    """Each combination's line: `safe  ` (padded to UNSAFE's width) or `UNSAFE`, its swept settings by their
    grid names as `name=value` joined by ", ", its safe runs of its runs, and the most unplanned removals and
    duplicates of one of its runs."""
    grid = _grid_file(tmp_path, "  session.timeout.ms: [10000, 45000]\n  max.poll.records: [500]\n", seeds=3)
    _sweep_printing(monkeypatch, [
        _combination(False, 1, 3, 2, 7, session_timeout_ms=10000, max_poll_records=500),
        _combination(True, 3, 3, 0, 0, session_timeout_ms=45000, max_poll_records=500)])
    assert main(["sweep", str(grid), "--out", str(tmp_path / "out")]) == EXIT_OK
    assert capsys.readouterr().out.splitlines()[-3:] == [
        "  safe (no member removed except by its own LeaveGroup, no duplicates): 1 of 2 combinations",
        "    UNSAFE session.timeout.ms=10000, max.poll.records=500: 1/3 runs safe, up to 2 removals, 7 duplicates",
        "    safe   session.timeout.ms=45000, max.poll.records=500: 3/3 runs safe, up to 0 removals, 0 duplicates"]


@pytest.mark.parametrize("combinations, listed", [(40, True), (41, False)])
def test_a_sweep_lists_its_combinations_one_a_line_only_when_it_has_40_or_fewer(tmp_path, capsys, monkeypatch,
                                                                               combinations, listed):
    """Past 40 combinations the lines would flood the terminal: only the count of safe ones is printed."""
    timeouts = [10_000 + 1000 * i for i in range(combinations)]
    grid = _grid_file(tmp_path, f"  session.timeout.ms: {timeouts}\n")
    _sweep_printing(monkeypatch, [_combination(True, 1, 1, 0, 0, session_timeout_ms=t) for t in timeouts])
    assert main(["sweep", str(grid), "--out", str(tmp_path / "out")]) == EXIT_OK
    printed = capsys.readouterr().out.splitlines()
    each = [f"    safe   session.timeout.ms={t}: 1/1 runs safe, up to 0 removals, 0 duplicates" for t in timeouts]
    total = (f"  safe (no member removed except by its own LeaveGroup, no duplicates): {combinations} of "
             f"{combinations} combinations")
    assert printed[printed.index(total) + 1:] == (each if listed else [])


def _summary_rows(rows: list[dict]):
    """Summary rows as a sweep commits them (`summary_schema`); metrics left out are 0, `error` None."""
    import pyarrow as pa

    from kafkasim.analysis.sweep_grid import SUMMARY_METRICS, summary_schema

    full = [{**{m: 0 for m in SUMMARY_METRICS}, "error": None, **row} for row in rows]
    return pa.Table.from_pylist(full, schema=summary_schema())


def test_a_sweep_with_failed_runs_names_at_most_3_of_them_each_with_its_run_id_and_error(spark, tmp_path, capsys,
                                                                                          monkeypatch):
    """Real summaries (Parquet in a sweep's layout) read by the real `read_sweep` and `safe_region`: 4 runs
    failed, so 3 of them are named with their errors, and no run that ended ok is. Failed runs count in no
    combination; removals by the member's own LeaveGroup leave a run safe. The session resolves names
    case-sensitively (`--conf spark.sql.caseSensitive=true`), which the closing lines must survive."""
    import pyarrow.parquet as pq

    import kafkasim.analysis.spark as ks

    failed = {f"r{i}": f"RuntimeError: run {i} broke" for i in (3, 4, 7, 8)}
    folders = {10000: [{"run_id": "r1"}, {"run_id": "r2", "removals_session_timeout": 1, "removals_poll_timeout": 1,
                                          "removals_leave_group": 3, "duplicates": 4}],
               45000: [{"run_id": "r5", "removals_leave_group": 2}, {"run_id": "r6"}]}
    folders[10000] += [{"run_id": r, "error": failed[r]} for r in ("r3", "r4")]
    folders[45000] += [{"run_id": r, "error": failed[r]} for r in ("r7", "r8")]

    def write(out):
        for timeout, rows in folders.items():
            folder = os.path.join(out, "summaries", f"session_timeout_ms={timeout}")
            os.makedirs(folder)
            pq.write_table(_summary_rows(rows), os.path.join(folder, "part-00000.parquet"))

    grid = _grid_file(tmp_path, "  session.timeout.ms: [10000, 45000]\n", seeds=4)
    _sweep_printing(monkeypatch, [], spark=spark, failed=4, write=write, read_sweep=ks.read_sweep,
                    safe_region=ks.safe_region)
    before = spark.conf.get("spark.sql.caseSensitive")
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        assert main(["sweep", str(grid), "--out", str(tmp_path / "out")]) == EXIT_FAILED_RUNS
    finally:
        spark.conf.set("spark.sql.caseSensitive", before)
    printed = capsys.readouterr().out.splitlines()
    assert printed[-6:-3] == [
        "  safe (no member removed except by its own LeaveGroup, no duplicates): 1 of 2 combinations",
        "    UNSAFE session.timeout.ms=10000: 1/2 runs safe, up to 2 removals, 4 duplicates",
        "    safe   session.timeout.ms=45000: 2/2 runs safe, up to 0 removals, 0 duplicates"]
    named = printed[-3:]
    assert len(set(named)) == 3 and set(named) <= {f"  failed run {r}: {e}" for r, e in failed.items()}, named


# -- kafkasim diagnose --spark: what it hands the Spark diagnosis (a stand-in records the calls) ------------
def _spark_logs(calls: list, counts: Counter, problems: list):
    """A stand-in for `SparkLogs` that records how `kafkasim diagnose --spark` opens the Spark-parsed logs in
    `calls`, and has read `counts` with `problems`."""

    class SparkLogs:
        def __init__(self, ks, spark, files, progress=False):
            calls.append(("SparkLogs", spark, list(files), progress))
            self.counts, self.problems = counts, problems

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    return SparkLogs


@pytest.mark.parametrize("flags, keep_rows", [([], False), (["--html", "{tmp}/r.html"], True), (["--replay"], True),
                                              (["--replay-json", "{tmp}/r.json"], True), (["--redact"], False)])
def test_diagnose_on_spark_asks_for_progress_keeps_rows_only_for_html_or_replay_and_passes_redact(
        tmp_path, capsys, monkeypatch, flags, keep_rows):
    """The events stay in Spark unless the HTML page or a replay needs them (keep_rows); the parse shows its
    progress; --group and --redact reach the diagnosis; --html and the replay reach `write`."""
    import kafkasim.analysis.cli as cli
    from kafkasim.analysis.diagnose import command as diagnose_cli

    calls = []
    monkeypatch.setattr(cli, "_spark", lambda args: (object(), "session"))
    monkeypatch.setattr(diagnose_cli, "SparkLogs", _spark_logs(calls, Counter(lines=10), []))
    monkeypatch.setattr(diagnose_cli, "diagnose_on_spark", lambda logs, group, **kw: calls.append(
        ("diagnose_on_spark", group, kw)) or ("report", "clean"))
    monkeypatch.setattr(diagnose_cli, "write", lambda report, clean, **outputs: calls.append(
        ("write", report, clean, outputs)) or "the report\n")
    log = tmp_path / "server.log"
    log.write_text("a line\n")
    flags = [f.format(tmp=tmp_path) for f in flags]
    assert main(["diagnose", str(log), "--spark", "--group", "g", *flags]) == EXIT_OK
    assert capsys.readouterr().out == "the report\n"
    html = next((f for f in flags if f.endswith(".html")), None)
    replay_json = next((f for f in flags if f.endswith(".json")), None)
    assert calls == [("SparkLogs", "session", [str(log)], True),
                     ("diagnose_on_spark", "g", {"keep_rows": keep_rows, "redact": "--redact" in flags}),
                     ("write", "report", "clean", {"json_out": None, "html_out": html, "replay": "--replay" in flags,
                                                   "replay_json": replay_json})]


def test_diagnose_on_spark_that_read_no_line_names_the_files_problems(tmp_path, capsys, monkeypatch):
    """Spark read not one line: the command ends with the files' problems, as without Spark (`_some_read`)."""
    import kafkasim.analysis.cli as cli
    from kafkasim.analysis.diagnose import command as diagnose_cli

    log = tmp_path / "server.log"
    log.write_text("a line\n")
    monkeypatch.setattr(cli, "_spark", lambda args: (object(), "session"))
    monkeypatch.setattr(diagnose_cli, "SparkLogs", _spark_logs([], Counter(unreadable=1),
                                                               [(str(log), "unreadable: Input/output error")]))
    assert main(["diagnose", str(log), "--spark"]) == cli.EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kafkasim diagnose: error: read none of the 1 file(s) given: {log}: unreadable: Input/output error")


@pytest.fixture(scope="module")
def broker_log_lines():
    """A small run's server.log lines: one group, two members joining."""
    return simulate(Scenario(members=2, duration_ms=20_000, seed=1)).broker_log


def test_diagnose_refuses_an_output_that_is_a_directory_naming_its_flag_and_takes_dash_as_stdout(
        tmp_path, capsys, monkeypatch, broker_log_lines):
    """--json, --html and --replay-json name files; a directory given is refused with the flag as typed
    (--replay-json, not replay_json); "-" is stdout even where a directory of that name exists."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "server.log").write_text("\n".join(broker_log_lines) + "\n")
    assert main(["diagnose", "server.log", "--json", "-"]) == EXIT_OK
    assert list(json.loads(capsys.readouterr().out)) == ["groups", "findings"]
    assert main(["diagnose", "server.log", "--replay-json", "out"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kafkasim diagnose: error: --replay-json out: is a directory; give a file name")


def test_diagnose_names_the_files_it_read_in_its_page_and_says_why_it_could_not_write_it(
        tmp_path, capsys, broker_log_lines):
    """Without Spark: the --html page lists the files given; a page that cannot be written (its folder is
    made if missing, but here a file is in the way) ends the command with the OS's reason, no traceback."""
    log = tmp_path / "server.log"
    log.write_text("\n".join(broker_log_lines) + "\n")
    assert main(["diagnose", str(log), "--html", str(tmp_path / "r.html")]) == EXIT_OK
    assert f"<p>1 file(s): {log}</p>" in (tmp_path / "r.html").read_text(encoding="utf-8")
    inside_a_file = log / "r.html"  # its folder cannot be made: a file is there
    assert main(["diagnose", str(log), "--html", str(inside_a_file)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kafkasim diagnose: error: cannot write the report: [Errno 17] File exists: '{log}'")


def test_diagnose_that_read_no_line_or_was_interrupted_says_so(tmp_path, capsys, monkeypatch):
    """Without Spark, as with it: not one line read ends the command with the files' problems (`_some_read`);
    Ctrl-C while reading says nothing was written."""
    import kafkasim.analysis.diagnose as diagnose

    log = tmp_path / "server.log"
    log.write_text("a line\n")
    monkeypatch.setattr(diagnose, "read_files", lambda files: ([], Counter(unreadable=1),
                                                                [(str(log), "unreadable: Input/output error")]))
    assert main(["diagnose", str(log)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kafkasim diagnose: error: read none of the 1 file(s) given: {log}: unreadable: Input/output error")

    def interrupted(files):
        raise KeyboardInterrupt

    monkeypatch.setattr(diagnose, "read_files", interrupted)
    assert main(["diagnose", str(log)]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err.splitlines()[-1] == "kafkasim diagnose: interrupted: nothing was written"


def test_a_spark_command_without_pyspark_exits_with_pysparks_status_and_the_import_error(tmp_path, capsys, monkeypatch):
    """`_spark`: kafkasim's Spark module cannot be imported (no PySpark): the exit status for a missing PySpark
    (EXIT_SPARK["pyspark"]) and the ImportError's own words on stderr."""
    monkeypatch.setitem(sys.modules, "kafkasim.analysis.spark", None)  # `import` raises ModuleNotFoundError
    log = tmp_path / "server.log"
    log.write_text("a line\n")
    assert main(["diagnose", str(log), "--spark"]) == EXIT_SPARK["pyspark"]
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kafkasim diagnose: error: import of kafkasim.analysis.spark halted; None in sys.modules")


def test_diagnose_reads_an_empty_file_as_a_log_with_nothing_to_diagnose(tmp_path, capsys):
    """An empty file is read (no line, and no reading problem): not "read none of the files", but the report
    that finds no consumer-group line."""
    log = tmp_path / "server.log"
    log.write_text("")
    assert main(["diagnose", str(log)]) == EXIT_OK
    assert capsys.readouterr().out.startswith("no consumer-group lines found in the input: nothing to diagnose")


@pytest.mark.parametrize("conf", ["spark.executor.memory", "=2g", " =2g"])
def test_a_spark_conf_needs_a_key_and_an_equals_sign(tmp_path, capsys, monkeypatch, conf):
    """`_spark`: each --conf is KEY=VALUE; no "=" or no key is refused with an example, before Spark starts."""
    import kafkasim.analysis.spark as ks

    monkeypatch.setattr(ks, "session", lambda *a, **kw: pytest.fail("Spark started"))
    log = tmp_path / "server.log"
    log.write_text("a line\n")
    assert main(["diagnose", str(log), "--spark", "--conf", conf]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kafkasim diagnose: error: --conf {conf!r}: expected KEY=VALUE, e.g. --conf spark.executor.memory=2g")


def test_a_failure_without_words_is_said_failed(capsys):
    """`_fail`: the first line of the message on stderr, "failed" when the message has none."""
    from types import SimpleNamespace

    from kafkasim.analysis.cli import _fail

    assert _fail(SimpleNamespace(debug=False, command="logs"), " \n", EXIT_BAD_INPUT) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == "kafkasim logs: error: failed\n"
