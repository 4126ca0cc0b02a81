"""How fast is the pause-across-rebalance model (`kafkasim.client.pause_resume`)? A chapter's sliders and its
sweep over Kafka versions x protocols x remedies must feel instant: the target is well under 1 s.

    .venv/bin/python benchmarks/pause_rebalance.py              # Markdown table
    .venv/bin/python benchmarks/pause_rebalance.py --json       # one JSON line per measurement
    .venv/bin/python benchmarks/run_all.py --only pause_rebalance --write-readme

Everything runs in this process (each workload is milliseconds to a second); every workload is
run once to warm up, then `--repeat` times, and the median is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kafkasim.core.config import KAFKA_VERSIONS  # noqa: E402
from kafkasim.client.pause_resume import ERAS, REMEDIES, behaviour_matrix, simulate_pause, sweep  # noqa: E402

from measure import machine_info  # noqa: E402  (one machine description for every benchmark)

NAME = "pause_rebalance"
TARGET_S = 1.0  # the chapter sweep


def _one_run():
    run = simulate_pause()
    return {"runs": 1, "events": len(run.rows)}


def _chapter_sweep():
    df = sweep()
    return {"runs": len(df), "events": None}


def _full_sweep():
    df = sweep(versions=KAFKA_VERSIONS)
    return {"runs": len(df), "events": None}


def _matrix(versions):
    def work():
        return {"runs": len(behaviour_matrix(versions=versions)), "events": None}
    return work


#: (name, what it is, function, in --quick)
WORKLOADS = [
    ("one run", "simulate_pause() with the defaults: 3.7, eager, 2 members + 1 joining, 36 s simulated", _one_run,
     True),
    ("chapter sweep", f"sweep(): {len(ERAS)} eras x eager/cooperative x {len(REMEDIES)} remedies", _chapter_sweep,
     True),
    ("C.5 matrix", f"behaviour_matrix() over the eras {', '.join(ERAS)}", _matrix(ERAS), True),
    ("full sweep", f"sweep() over all {len(KAFKA_VERSIONS)} release lines", _full_sweep, False),
    ("C.5 matrix, all lines", f"behaviour_matrix() over all {len(KAFKA_VERSIONS)} release lines",
     _matrix(KAFKA_VERSIONS), False),
]


def measure(name, doc, fn, repeat):
    fn()  # warm-up (imports, caches)
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    wall = statistics.median(times)
    row = {"workload": name, "what": doc, "runs": out["runs"], "events": out["events"], "wall_s": wall,
           "ms_per_run": 1000 * wall / out["runs"], "repeat": repeat}
    if name == "chapter sweep":
        row["target_s"] = TARGET_S
        row["ok"] = wall < TARGET_S
    else:
        row["ok"] = True
    return row


def run_suite(*, quick=False, repeat=5, python=None, log=None):
    rows = []
    for name, doc, fn, in_quick in WORKLOADS:
        if quick and not in_quick:
            continue
        rows.append(measure(name, doc, fn, repeat))
        if log:
            log(f"{name}: {rows[-1]['wall_s']:.3f} s")
    return rows


def report(rows, info, repeat):
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"in one process; median of {repeat} after a warm-up run.", "",
             "| workload | what | runs | wall s | ms per run |", "|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['what']} | {r['runs']} | {r['wall_s']:.3f} | {r['ms_per_run']:.1f} |")
    lines.append("")
    for r in rows:
        if "target_s" in r:
            lines.append(f"Target: the chapter sweep in under {r['target_s']:.0f} s: "
                         f"{'met' if r['ok'] else 'NOT met'} ({r['wall_s']:.3f} s).")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the sweeps over all release lines")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per workload (median reported)")
    ap.add_argument("--json", action="store_true", help="print one JSON line per workload instead of Markdown")
    args = ap.parse_args(argv)
    rows = run_suite(quick=args.quick, repeat=args.repeat)
    if args.json:
        for r in rows:
            print(json.dumps(r))
    else:
        print(report(rows, machine_info(), args.repeat))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
