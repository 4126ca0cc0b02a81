"""The `kafkasim` command: parameter sweeps, broker-log ingestion on Spark, and the diagnosis of a group's logs.

    kafkasim sweep GRID.yaml --out DIR [--master URL] [--conf KEY=VALUE] [--yes] [--debug]
    kafkasim logs PATH... --out DIR [--master URL] [--conf KEY=VALUE] [--no-spark] [--debug]
    kafkasim diagnose LOG... [--group G] [--json OUT] [--html OUT] [--redact] [--replay] [--replay-json OUT]
                      [--spark [--master URL]] [--debug]

Progress goes to stderr, the summary to stdout. Every error is one line on stderr (`--debug`
adds the traceback). Exit status: 0 done, 1 a run failed (or an unexpected error), 2 bad input
(usage, grid file, path, --out, an unconfirmed huge grid, logs of which not one line could be
read), 3 no Java or PySpark, 4 the Spark master or Connect server does not answer, 5 its executors
cannot run kafkasim (another Python, missing packages), 6 another Spark session runs in this
process, 130 interrupted: a sweep keeps every finished run, and the same command resumes it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections import Counter

from kafkasim.core.errors import ConfigError

EXIT_OK, EXIT_FAILED_RUNS, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
#: Spark could not start or run kafkasim, by cause: no Java 17+ or no PySpark; the master or Connect
#: server does not answer; executors with another Python or without kafkasim's packages; another
#: session already running in this process.
EXIT_SPARK = {"java": 3, "pyspark": 3, "unreachable": 4, "executors": 5, "session": 6}
#: Grids of more runs than this start only with --yes (or a "y" typed at a terminal).
CONFIRM_RUNS = 100_000


class _BadInput(Exception):
    """An error the user can fix; printed without a traceback."""


class _SparkProblem(Exception):
    """Spark could not start or run kafkasim: `kind` picks the exit status (EXIT_SPARK)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class _Interrupted(Exception):
    """Ctrl-C, with what was saved."""


_MASTER = os.environ.get("SPARK_REMOTE") or "local[*]"
_EXIT_STATUSES = """exit status:
  0    done                          4    the Spark master or Connect server does not answer
  1    a run failed, or a bug        5    the executors cannot run kafkasim (Python, packages)
  2    bad input (usage, files)      6    another Spark session runs in this process
  3    no Java 17+ or no PySpark     130  interrupted (a sweep keeps its finished runs)"""


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="print the traceback of an error")
    common.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting (repeatable), e.g. --conf spark.pyspark.python=/opt/py311/bin/python")
    ap = argparse.ArgumentParser(prog="kafkasim", description="Kafka consumer-group simulations and broker logs "
                                                               "on Spark.", epilog=_EXIT_STATUSES,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sw = sub.add_parser("sweep", parents=[common], help="simulate every scenario of a grid file, results as Parquet",
                        description="Simulate every combination of a grid file's parameters (and seeds) on Spark. "
                                    "Each run is saved as it finishes; runs already in --out are skipped, so the "
                                    "same command resumes an interrupted sweep.")
    sw.add_argument("grid", help="YAML or JSON grid file (see kafkasim.analysis.sweep_grid)")
    sw.add_argument("--out", required=True, help="output folder (events/, summaries/, sweep.json)")
    sw.add_argument("--master", default=_MASTER, help="Spark master: local[N], spark://, yarn, k8s://, or a Spark "
                                                      "Connect sc://host:port (default: SPARK_REMOTE, else local[*])")
    sw.add_argument("--runs-per-task", type=int, default=None, help="runs per Spark task (default: 16, in 4 to 8 tasks per core)")
    sw.add_argument("--yes", action="store_true", help=f"start a grid of more than {CONFIRM_RUNS:,} runs without "
                                                       f"asking")
    lg = sub.add_parser("logs", parents=[common], help="read Kafka broker logs into kafkasim's event schema, as Parquet",
                        description="Parse Kafka broker logs (server.log and its rotations; directories are searched "
                                    "for server.log*) into events/ and unparsed/ under --out.")
    lg.add_argument("paths", nargs="+", metavar="PATH", help="log files or directories")
    lg.add_argument("--out", required=True, help="output folder (events/, unparsed/, counts.json)")
    lg.add_argument("--master", default=_MASTER, help="as for sweep")
    lg.add_argument("--chunk-mb", type=int, default=32, help="split large files into chunks of this size (MB)")
    lg.add_argument("--no-spark", action="store_true", help="parse in this process with plain Python (no Java needed)")
    dg = sub.add_parser("diagnose", parents=[common], help="name why consumer groups rebalanced, with the lines that "
                                                           "show it",
                        description="Read Kafka logs (server.log and rotations; directories are searched for "
                                    "server.log*) and report, per consumer group, its rebalances and the causes "
                                    "they point to, best first, each with its file:line evidence and the settings "
                                    "that would have prevented it.")
    dg.add_argument("paths", nargs="+", metavar="LOG", help="log files or directories")
    dg.add_argument("--group", help="only this consumer group")
    dg.add_argument("--json", metavar="OUT", help='write {"groups": [...], "findings": [...]} to OUT ("-": stdout)')
    dg.add_argument("--html", metavar="OUT", help="write a self-contained offline HTML report to OUT")
    dg.add_argument("--redact", action="store_true", help="replace host names, IPs, client, member and instance ids")
    dg.add_argument("--replay", action="store_true", help="also fit a scenario to each group, replay it beside the "
                                                          "log (closeness) and run what-ifs (static membership, "
                                                          "cooperative-sticky, the consumer protocol, longer timeouts)")
    dg.add_argument("--replay-json", metavar="OUT", help="write the fits, closeness and what-ifs as JSON to OUT "
                                                         "(apart from --json, whose schema stays issue 31's)")
    dg.add_argument("--spark", action="store_true", help="read the logs with Spark (days of logs from many brokers)")
    dg.add_argument("--master", default=_MASTER, help="as for sweep (with --spark)")
    return ap


def _spark(args):
    """The session for --master and --conf, announced first (a cluster takes a while to answer)."""
    try:
        import kafkasim.analysis.spark as ks
    except ImportError as e:
        raise _SparkProblem("pyspark", f"{e}") from None
    conf = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise _BadInput(f"--conf {item!r}: expected KEY=VALUE, e.g. --conf spark.executor.memory=2g")
        conf[key.strip()] = value
    print(f"kafkasim {args.command}: starting Spark on {args.master}", file=sys.stderr)
    try:
        return ks, ks.session(args.master, conf=conf)
    except ks.SparkUnavailable as e:
        raise _SparkProblem(e.kind, str(e)) from None


def _confirm(grid, yes: bool) -> None:
    """A grid past CONFIRM_RUNS starts only when confirmed: its run count and estimated cost first."""
    from kafkasim.scenario.world import EVENTS_PER_SECOND

    if grid.size <= CONFIRM_RUNS or yes:
        return
    events = grid.estimated_events()
    hours = events / EVENTS_PER_SECOND / 3600
    what = (f"this grid has {grid.size:,} runs, about {events:,} events: {hours:,.1f} core-hours of simulation "
            f"(an hour on {max(1, round(hours)):,} cores)")
    if sys.stdin.isatty() and sys.stderr.isatty():
        if input(f"kafkasim sweep: {what}. Start it? [y/N] ").strip().lower() in ("y", "yes"):
            return
    raise _BadInput(f"{what}; past {CONFIRM_RUNS:,} runs a sweep starts only with --yes")


def _sweep(args) -> int:
    from kafkasim.analysis import local_path
    from kafkasim.analysis.sweep_grid import Grid, finished_runs, open_sweep_folder

    grid = Grid.from_file(args.grid)
    if args.runs_per_task is not None and args.runs_per_task < 1:
        raise _BadInput("--runs-per-task must be at least 1")
    _confirm(grid, args.yes)
    runs = grid.runs()  # every scenario is checked before Spark starts
    out = local_path(args.out, "--out")
    open_sweep_folder(out, grid)  # an unusable --out or another sweep's folder: refused before Spark starts
    ks, spark = _spark(args)
    print(f"kafkasim sweep: {len(runs):,} runs ({len(runs) // len(grid.seeds):,} combinations x {len(grid.seeds)} "
          f"seeds) on {args.master}", file=sys.stderr)
    try:
        result = ks.sweep(spark, grid, out, runs_per_task=args.runs_per_task, progress=True)
    except KeyboardInterrupt:
        saved = len(finished_runs(out) & {r.run_id for r in runs})
        raise _Interrupted(f"{saved:,} of {len(runs):,} runs are saved in {out} (runs in flight are lost); run the "
                           f"same command to resume") from None
    now = result.done + result.failed
    rate = f", {now / result.seconds:.2f} runs/s" if now and result.seconds else ""
    print(f"kafkasim sweep: {result.runs} runs in the grid: {now} simulated now ({result.done} ok, {result.failed} "
          f"failed), {result.skipped} already in {result.out}; {result.seconds:.1f} s{rate}")
    _, summaries = ks.read_sweep(spark, result.out)
    safe = ks.safe_region(summaries).collect()
    print(f"  events:    {os.path.join(result.out, 'events')} (Parquet, partitioned by "
          f"{', '.join(grid.columns.values())})")
    print(f"  summaries: {os.path.join(result.out, 'summaries')}")
    print(f"  safe (no member removed except by its own LeaveGroup, no duplicates): "
          f"{sum(r['safe'] for r in safe)} of {len(safe)} combinations")
    if len(safe) <= 40:
        for r in safe:
            setting = ", ".join(f"{name}={r[column]}" for name, column in grid.columns.items())
            print(f"    {'safe  ' if r['safe'] else 'UNSAFE'} {setting}: {r['safe_runs']}/{r['runs']} runs safe, "
                  f"up to {r['worst_removals_unplanned']} removals, {r['worst_duplicates']} duplicates")
    if result.failed:
        failed = summaries.where("error IS NOT NULL").select("run_id", "error").limit(3).collect()
        for row in failed:
            print(f"  failed run {row['run_id']}: {row['error']}")
    return EXIT_FAILED_RUNS if result.failed else EXIT_OK


def _logs(args) -> int:
    from kafkasim.analysis.logs import expand_paths, fresh_output
    from kafkasim.analysis import local_path

    try:
        files = expand_paths(args.paths)
    except OSError as e:  # a missing path, or a directory that cannot be listed
        raise _BadInput(str(e)) from None
    if args.chunk_mb < 1:
        raise _BadInput("--chunk-mb must be at least 1")
    out = local_path(args.out, "--out")
    try:
        fresh_output(out)  # a second parse into the same --out starts from empty folders
    except ValueError as e:
        raise _BadInput(str(e)) from None
    try:
        if args.no_spark:
            counts, by_kind, groups, problems, seconds = _logs_plain(files, out)
        else:
            ks, spark = _spark(args)
            print(f"kafkasim logs: {len(files)} file(s) on {args.master}", file=sys.stderr)
            parsed = ks.parse_broker_logs(spark, files, out, chunk_bytes=args.chunk_mb << 20, progress=True)
            counts, seconds = parsed.counts, parsed.seconds
            by_kind = Counter({r["kind"]: r["count"] for r in parsed.events.groupBy("kind").count().collect()})
            groups = Counter({r["group"]: r["count"] for r in parsed.events.where("kind = 'RebalanceStarted'")
                              .groupBy("group").count().collect()})
            problems = [(r["file"], r["problem"]) for r in parsed.unparsed.where(parsed.unparsed.text == "").collect()]
    except KeyboardInterrupt:
        raise _Interrupted(f"{out} holds part of the parse only; run the same command to parse again") from None
    _print_log_summary(files, out, counts, by_kind, groups, problems, seconds)
    _some_read(files, counts, problems)
    return EXIT_OK


def _some_read(files, counts, problems) -> None:
    """_BadInput when not one line of the inputs could be read: why, a permission problem named as one."""
    if counts.get("unreadable", 0) < len(files) or counts.get("lines"):
        return
    denied = [file for file, problem in problems if "Permission denied" in problem]
    if denied:
        raise _BadInput(f"read none of the {len(files)} file(s) given: permission denied for {len(denied)} of them, "
                        f"e.g. {denied[0]} (the user running kafkasim may not read it)")
    shown = "; ".join(f"{file}: {problem}" for file, problem in problems[:3])
    raise _BadInput(f"read none of the {len(files)} file(s) given: {shown}")


def _diagnose(args) -> int:
    from kafkasim.analysis.diagnose import command as diagnose_cli
    from kafkasim.analysis.diagnose import read_files
    from kafkasim.analysis.log_parser import expand_paths

    try:
        files = expand_paths(args.paths)
    except OSError as e:
        raise _BadInput(str(e)) from None
    for flag in ("json", "html", "replay_json"):
        out = getattr(args, flag)
        if out and out != "-" and os.path.isdir(out):
            raise _BadInput(f"--{flag.replace('_', '-')} {out}: is a directory; give a file name")
    outputs = dict(json_out=args.json, html_out=args.html, replay=args.replay, replay_json=args.replay_json)
    try:
        if args.spark:
            stdout = _diagnose_on_spark(args, files, outputs)
        else:
            rows, counts, problems = read_files(files)
            _some_read(files, counts, problems)
            stdout = diagnose_cli.run(rows, files, group=args.group, redact=args.redact, **outputs)
    except KeyboardInterrupt:
        raise _Interrupted("nothing was written") from None
    except diagnose_cli.NoSuchGroup as e:
        raise _BadInput(str(e)) from None
    except OSError as e:
        raise _BadInput(f"cannot write the report: {e}") from None
    print(stdout, end="")
    return EXIT_OK


def _diagnose_on_spark(args, files: list[str], outputs: dict) -> str:
    """The diagnosis made group by group in Spark's executors (the driver never holds the events)."""
    from kafkasim.analysis.diagnose import command as diagnose_cli

    ks, spark = _spark(args)
    print(f"kafkasim diagnose: {len(files)} file(s) on {args.master}", file=sys.stderr)
    with diagnose_cli.SparkLogs(ks, spark, files, progress=True) as logs:
        _some_read(files, logs.counts, logs.problems)
        keep_rows = bool(args.html or args.replay or args.replay_json)
        report, clean = diagnose_cli.diagnose_on_spark(logs, args.group, keep_rows=keep_rows, redact=args.redact)
    return diagnose_cli.write(report, clean, **outputs)


def _logs_plain(files, out):
    """The same outputs without Spark: one process, pyarrow writes the Parquet files."""
    from kafkasim.analysis.logs import parse_file, write_part
    from kafkasim.analysis.logs.files import write_counts

    start = time.perf_counter()
    by_kind, groups, counts, problems = Counter(), Counter(), Counter(), []
    for i, path in enumerate(files):
        print(f"kafkasim logs: {path}", file=sys.stderr)
        result = parse_file(path)
        counts.update(result.counts)
        by_kind.update(r[4] for r in result.rows)
        groups.update(r[2] for r in result.rows if r[4] == "RebalanceStarted")
        problems += [(file, problem) for file, _, problem in result.file_problems]
        write_part(result, out, i)
    write_counts(out, files, counts)
    return counts, by_kind, groups, problems, time.perf_counter() - start


def _print_log_summary(files, out, counts: Counter, by_kind, groups, problems, seconds) -> None:
    lines = counts["lines"]
    rate = f" ({lines / seconds:,.0f} lines/s)" if seconds else ""
    print(f"kafkasim logs: {len(files)} file(s), {lines:,} lines, {counts['coordinator']:,} from the group "
          f"coordinator; {seconds:.1f} s{rate}")
    kinds = ", ".join(f"{k} {n:,}" for k, n in by_kind.most_common())
    print(f"  events:   {sum(by_kind.values()):,} ({kinds or 'none'}) -> {os.path.join(out, 'events')}")
    if groups:
        top = ", ".join(f"{g} {n:,}" for g, n in groups.most_common(5))
        print(f"  rebalances by group ({len(groups)} groups): {top}")
    print(f"  unparsed: {counts['unparsed']:,} lines ({counts['salvaged']:,} of them damaged records "
          f"whose events were kept) -> {os.path.join(out, 'unparsed')}")
    print(f"  ignored:  {counts['ignored']:,} coordinator lines without an event; "
          f"{counts['joined']:,} wrapped lines joined")
    if counts["unreadable"]:
        print(f"  not read to their end: {counts['unreadable']:,} file(s)")
        for file, problem in problems[:5]:
            print(f"    {file}: {problem}")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)  # a usage error exits with 2 (argparse)
    try:
        return {"sweep": _sweep, "logs": _logs, "diagnose": _diagnose}[args.command](args)
    except (_BadInput, ConfigError) as e:
        return _fail(args, str(e), EXIT_BAD_INPUT)
    except _SparkProblem as e:
        return _fail(args, str(e), EXIT_SPARK[e.kind])
    except _Interrupted as e:
        return _fail(args, f"interrupted: {e}", EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        return _fail(args, "interrupted", EXIT_INTERRUPTED)
    except Exception as e:  # noqa: BLE001 - one line, and the traceback under --debug
        hint = "" if args.debug else " (run with --debug for the traceback)"
        return _fail(args, f"{type(e).__name__}: {e}{hint}", EXIT_FAILED_RUNS)


def _fail(args, message: str, status: int) -> int:
    """One line on stderr (the first of a long message), the traceback before it under --debug."""
    if args.debug:
        traceback.print_exc()
    first = (message.strip().splitlines() or ["failed"])[0]
    if status == EXIT_INTERRUPTED:
        print(f"\nkafkasim {args.command}: {first}", file=sys.stderr)
    else:
        print(f"kafkasim {args.command}: error: {first}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
