"""The `kafkasim` command: parameter sweeps and broker-log ingestion on Spark.

    kafkasim sweep GRID.yaml --out DIR [--master URL]
    kafkasim logs PATH... --out DIR [--master URL] [--no-spark]

Progress goes to stderr, the summary to stdout. Exit status: 0 done, 1 some runs failed,
2 bad input (grid file, path, missing Java or PySpark), 130 interrupted (finished runs are kept:
run the same command again to resume a sweep).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

from kafkasim.core.errors import ConfigError

EXIT_OK, EXIT_FAILED_RUNS, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


class _BadInput(Exception):
    """An error the user can fix; printed without a traceback."""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="kafkasim", description="Kafka consumer-group simulations and broker logs "
                                                               "on Spark.")
    sub = ap.add_subparsers(dest="command", required=True)
    sw = sub.add_parser("sweep", help="simulate every scenario of a grid file, results as Parquet",
                        description="Simulate every combination of a grid file's parameters (and seeds) on Spark. "
                                    "Runs already in --out are skipped, so the same command resumes a sweep.")
    sw.add_argument("grid", help="YAML or JSON grid file (see kafkasim.analysis.sweep_grid)")
    sw.add_argument("--out", required=True, help="output folder (events/, summaries/, sweep.json)")
    sw.add_argument("--master", default="local[*]", help="Spark master URL (default local[*])")
    sw.add_argument("--runs-per-task", type=int, default=None, help="runs per Spark task (default: 8 tasks per core)")
    lg = sub.add_parser("logs", help="read Kafka broker logs into kafkasim's event schema, as Parquet",
                        description="Parse Kafka broker logs (server.log and its rotations; directories are searched "
                                    "for server.log*) into events/ and unparsed/ under --out.")
    lg.add_argument("paths", nargs="+", metavar="PATH", help="log files or directories")
    lg.add_argument("--out", required=True, help="output folder (events/, unparsed/, counts.json)")
    lg.add_argument("--master", default="local[*]", help="Spark master URL (default local[*])")
    lg.add_argument("--chunk-mb", type=int, default=32, help="split large files into chunks of this size (MB)")
    lg.add_argument("--no-spark", action="store_true", help="parse in this process with plain Python (no Java needed)")
    return ap


def _spark(master: str):
    """A quiet session, or a clear message about what is missing."""
    try:
        import kafkasim.analysis.spark as ks
    except ImportError as e:
        raise _BadInput(f"{e}") from None
    problem = ks.java_problem()
    if problem:
        raise _BadInput(problem)
    return ks, ks.session(master)


def _sweep(args) -> int:
    from kafkasim.analysis.sweep_grid import Grid

    grid = Grid.from_file(args.grid)
    runs = grid.runs()  # every scenario is checked before Spark starts
    if args.runs_per_task is not None and args.runs_per_task < 1:
        raise _BadInput("--runs-per-task must be at least 1")
    ks, spark = _spark(args.master)
    print(f"kafkasim sweep: {len(runs)} runs ({len(runs) // len(grid.seeds)} combinations x {len(grid.seeds)} seeds) "
          f"on {spark.sparkContext.master}", file=sys.stderr)
    result = ks.sweep(spark, grid, args.out, runs_per_task=args.runs_per_task, progress=True)
    now = result.done + result.failed
    rate = f", {now / result.seconds:.2f} runs/s" if now and result.seconds else ""
    print(f"kafkasim sweep: {result.runs} runs in the grid: {now} simulated now ({result.done} ok, {result.failed} "
          f"failed), {result.skipped} already in {result.out}; {result.seconds:.1f} s{rate}")
    if os.path.isdir(os.path.join(result.out, "summaries")):
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
    from kafkasim.analysis.log_parser import expand_paths

    try:
        files = expand_paths(args.paths)
    except FileNotFoundError as e:
        raise _BadInput(str(e)) from None
    if args.chunk_mb < 1:
        raise _BadInput("--chunk-mb must be at least 1")
    if args.no_spark:
        counts, by_kind, groups, seconds = _logs_plain(files, args.out)
    else:
        ks, spark = _spark(args.master)
        print(f"kafkasim logs: {len(files)} file(s) on {spark.sparkContext.master}", file=sys.stderr)
        parsed = ks.parse_broker_logs(spark, files, args.out, chunk_bytes=args.chunk_mb << 20, progress=True)
        counts, seconds = parsed.counts, parsed.seconds
        by_kind = Counter({r["kind"]: r["count"] for r in parsed.events.groupBy("kind").count().collect()})
        groups = Counter({r["group"]: r["count"] for r in parsed.events.where("kind = 'RebalanceStarted'")
                          .groupBy("group").count().collect()})
    _print_log_summary(files, args.out, counts, by_kind, groups, seconds)
    return EXIT_OK


def _logs_plain(files, out):
    """The same outputs without Spark: one process, pyarrow writes the Parquet files."""
    import pyarrow.parquet as pq

    from kafkasim.analysis.log_parser import parse_file

    start = time.perf_counter()
    by_kind, groups, counts = Counter(), Counter(), Counter()
    for folder in ("events", "unparsed"):
        os.makedirs(os.path.join(out, folder), exist_ok=True)
    for i, path in enumerate(files):
        print(f"kafkasim logs: {path}", file=sys.stderr)
        result = parse_file(path)
        counts.update(result.counts)
        by_kind.update(r[4] for r in result.rows)
        groups.update(r[2] for r in result.rows if r[4] == "RebalanceStarted")
        pq.write_table(result.events_table(), os.path.join(out, "events", f"part-{i:05d}.parquet"))
        pq.write_table(result.unparsed_table(), os.path.join(out, "unparsed", f"part-{i:05d}.parquet"))
    with open(os.path.join(out, "counts.json"), "w") as f:
        json.dump({"files": files, "counts": dict(counts)}, f, indent=1)
    return counts, by_kind, groups, time.perf_counter() - start


def _print_log_summary(files, out, counts, by_kind, groups, seconds) -> None:
    lines = counts.get("lines", 0)
    rate = f" ({lines / seconds:,.0f} lines/s)" if seconds else ""
    print(f"kafkasim logs: {len(files)} file(s), {lines:,} lines, {counts.get('coordinator', 0):,} from the group "
          f"coordinator; {seconds:.1f} s{rate}")
    kinds = ", ".join(f"{k} {n:,}" for k, n in by_kind.most_common())
    print(f"  events:   {sum(by_kind.values()):,} ({kinds or 'none'}) -> {os.path.join(out, 'events')}")
    if groups:
        top = ", ".join(f"{g} {n:,}" for g, n in groups.most_common(5))
        print(f"  rebalances by group ({len(groups)} groups): {top}")
    print(f"  unparsed: {counts.get('unparsed', 0):,} lines ({counts.get('salvaged', 0):,} of them cut lines whose "
          f"event was kept) -> {os.path.join(out, 'unparsed')}")
    print(f"  ignored:  {counts.get('ignored', 0):,} coordinator lines without an event; "
          f"{counts.get('joined', 0):,} wrapped lines joined")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _sweep(args) if args.command == "sweep" else _logs(args)
    except (_BadInput, ConfigError) as e:
        print(f"kafkasim {args.command}: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"\nkafkasim {args.command}: interrupted; finished runs are kept (run the same command to resume)",
              file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
