"""Sweep throughput: the same runs in a plain Python loop and with `kafkasim.analysis.spark.sweep` on
`local[1]`, `local[2]` (`local[*]` on two cores), a standalone cluster (a master and one worker of
2 cores, started from the venv's PySpark) and a Spark Connect server (running `local[2]`), in one
benchmark run.

The runs: the default scenario (6 members, 12 partitions, 1,000 records/s, 10 simulated
minutes, Kafka 3.7) with a GC pause of member c-1 at 2 minutes; the grid sweeps
session.timeout.ms (10, 30, 45, 60 s) and the pause (5, 20, 40, 60 s), each over 8 seeds:
128 runs (`--quick`: 2 seeds, 32 runs). Every mode does the same work per run: simulate,
summarize, write the run's events to Parquet; Spark also commits each run's summary and merges
them at the end.

Each mode runs in a fresh process. A Spark mode first starts its session (timed apart: for a
cluster or Connect, from the servers already running, including the check of its executors) and
runs a small warm-up sweep (4 other runs) so that the timed sweep finds its Python workers
started; the warm-up's time is reported too, as the cold-start cost of a first sweep. The timed
sweep is then repeated (`--repeat`, default 3, into a fresh folder each time) and the median
reported, because a shared two-core machine varies by 10-20 % from one sweep to the next.

Spark's overhead per run is the extra time over the plain loop per run, in core-seconds:
(cores x sweep wall - loop wall) / runs.

    .venv/bin/python benchmarks/spark_sweep.py                 # all modes, prints Markdown
    .venv/bin/python benchmarks/spark_sweep.py --quick
    .venv/bin/python benchmarks/spark_sweep.py --mode 'local[2]'  # one mode, a JSON line
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from measure import machine_info  # noqa: E402
from measure import in_fresh_process  # noqa: E402

NAME = "spark_sweep"
MODES = ("loop", "local[1]", "local[2]", "standalone", "connect")
CORES = {"loop": 1, "local[1]": 1, "local[2]": 2, "standalone": 2, "connect": 2}
WORK = "/tmp/kafkasim-bench"
TARGET_SCALING = 1.6


def grid(seeds: int) -> dict:
    return {"base": {"faults": [{"type": "Pause", "member": "c-1", "at_ms": 120_000, "duration_ms": 20_000}]},
            "grid": {"session.timeout.ms": [10_000, 30_000, 45_000, 60_000],
                     "faults[0].duration_ms": [5_000, 20_000, 40_000, 60_000]},
            "seeds": seeds}


def run_mode(mode: str, seeds: int, repeat: int) -> dict:
    from kafkasim.analysis.sweep_grid import Grid, run_all

    work = os.path.join(WORK, f"sweep-{mode.replace('[', '').replace(']', '')}")
    shutil.rmtree(work, ignore_errors=True)
    runs = Grid.from_dict(grid(seeds)).runs()
    warm = {**grid(1), "seeds": [1001]}
    warm["grid"] = {k: v[:2] for k, v in warm["grid"].items()}
    row = {"benchmark": NAME, "mode": mode, "runs": len(runs), "session_s": 0.0, "warmup_s": 0.0, "tasks": 1,
           "walls": []}
    if mode == "loop":
        run_all(Grid.from_dict(warm).runs(), os.path.join(work, "warmup"))  # imports, first-call costs
        for i in range(repeat):
            start = time.perf_counter()
            rows = run_all(runs, os.path.join(work, f"events-{i}"))
            row["walls"].append(time.perf_counter() - start)
        row["failed"] = sum(r["error"] is not None for r in rows)
        row["rebalances"] = sum(r["rebalances"] or 0 for r in rows)
        row["sim_s"] = sum(r["sim_seconds"] for r in rows)
    else:
        from kafkasim.analysis import spark as ks

        servers = _servers(mode, work)
        master = servers.__enter__()
        start = time.perf_counter()
        spark = ks.session(master, conf={"spark.pyspark.python": sys.executable} if mode == "standalone" else None)
        spark.range(1).collect()
        row["session_s"] = time.perf_counter() - start
        start = time.perf_counter()
        ks.sweep(spark, warm, os.path.join(work, "warmup"))
        row["warmup_s"] = time.perf_counter() - start
        for i in range(repeat):
            result = ks.sweep(spark, grid(seeds), os.path.join(work, f"out-{i}"))
            row["walls"].append(result.seconds)
        row["tasks"], row["failed"], row["done"] = result.tasks, result.failed, result.done
        _, summaries = ks.read_sweep(spark, os.path.join(work, f"out-{repeat - 1}"))
        totals = summaries.selectExpr("sum(rebalances) AS r", "sum(sim_seconds) AS s").first()
        row["rebalances"], row["sim_s"] = totals["r"], totals["s"]
        spark.stop()
        servers.__exit__(None, None, None)
    shutil.rmtree(work, ignore_errors=True)
    row["wall_s"] = statistics.median(row["walls"])
    row["runs_per_s"] = row["runs"] / row["wall_s"]
    row["ok"] = row["failed"] == 0
    return row


def _servers(mode: str, work: str):
    """A context that yields the master URL of `mode`, starting (and then stopping) its servers."""
    import contextlib

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from spark_helpers import connect_server, standalone_cluster

    folder = Path(work) / "servers"
    if mode == "standalone":
        return standalone_cluster(folder)
    if mode == "connect":
        return connect_server(folder)
    return contextlib.nullcontext(mode)


def run_suite(*, quick=False, repeat=3, python=None, log=print):
    python = python or sys.executable
    seeds = 2 if quick else 8
    rows = []
    for mode in MODES:
        row = in_fresh_process(python, __file__, "--mode", mode, "--seeds", str(seeds), "--repeat", str(repeat))
        log(f"  {mode}: {row['runs']} runs in {row['wall_s']:.1f} s ({row['runs_per_s']:.2f} runs/s)")
        rows.append(row)
    return rows


def report(rows, info, repeat):
    by = {r["mode"]: r for r in rows}
    loop = by["loop"]
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"{info['os']}. Each mode in a fresh process; sweep times are the median of {repeat} sweeps "
             f"(min-max in brackets).", "",
             f"{loop['runs']} runs; simulating and summarizing them took {loop['sim_s']:.1f} s in the loop "
             f"({loop['sim_s'] / loop['runs'] * 1000:.0f} ms per run); the rest of a mode's time is summaries, "
             f"Parquet and (Spark) scheduling.", "",
             "| mode | tasks | sweep wall s | runs/s | vs loop | Spark start s | first sweep (4 runs, cold workers) s "
             "| overhead per run (core-ms) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        overhead = (CORES[r["mode"]] * r["wall_s"] - loop["wall_s"]) / r["runs"] * 1000
        lines.append(f"| {r['mode']} | {r['tasks']} | {r['wall_s']:.1f} ({min(r['walls']):.1f}-{max(r['walls']):.1f})"
                     f" | {r['runs_per_s']:.2f} | "
                     f"{r['runs_per_s'] / loop['runs_per_s']:.2f}x | {r['session_s']:.1f} | {r['warmup_s']:.1f} | "
                     + ("" if r["mode"] == "loop" else f"{overhead:.0f}") + " |")
    scaling = by["local[2]"]["runs_per_s"] / by["local[1]"]["runs_per_s"]
    same = len({r["rebalances"] for r in rows}) == 1
    lines += ["", f"- Scaling local[1] -> local[2]: {scaling:.2f}x (target >= {TARGET_SCALING}x): "
                  f"{'met' if scaling >= TARGET_SCALING else 'NOT met'}",
              f"- Every mode simulated the same runs (total rebalances {loop['rebalances']:,}): "
              f"{'yes' if same else 'NO'}"]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=MODES, help="measure one mode in this process (one JSON line)")
    ap.add_argument("--seeds", type=int, default=8, help="seeds per combination (16 combinations)")
    ap.add_argument("--quick", action="store_true", help="2 seeds (32 runs)")
    ap.add_argument("--repeat", type=int, default=3, help="timed sweeps per mode; the median is reported")
    args = ap.parse_args(argv)
    if args.mode:
        print(json.dumps(run_mode(args.mode, args.seeds, args.repeat)))
        return 0
    rows = run_suite(quick=args.quick, repeat=args.repeat, log=lambda s: print(s, file=sys.stderr))
    print(report(rows, machine_info(), args.repeat))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
