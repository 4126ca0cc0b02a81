"""Broker memory (KIP-72): how fast is one chapter-sized run of ``kafkasim.broker.network``?

A slider in chapter 06 re-runs one scenario and redraws from its summary, time series and
per-client frame, so what is timed is ``simulate_network(scenario)`` plus ``run.summary``
(which builds ``requests``, ``timeseries`` and ``clients``). Scenarios: the default
``NetworkScenario()`` and every pair of ``kip72_experiments()``; the "typical chapter run" is
``memory_limit/bounded`` (100 producers of 10 KB to 1 MiB, 10 simulated seconds, a 10 MiB pool).

Each scenario is measured in a fresh process: one untimed warm-up run (imports, first-call
costs), then ``--repeat`` timed runs; the median and the minimum are reported. Target: the
median of every scenario under 200 ms.

    python benchmarks/broker_memory.py                 # the suite, as a Markdown table
    python benchmarks/broker_memory.py --one memory_limit/bounded --repeat 5   # one JSON line
    python benchmarks/run_all.py --only broker_memory --write-readme
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)  # this checkout's kafkasim, not an installed one

from measure import machine_info  # noqa: E402  (one machine description for every benchmark)

NAME = "broker_memory"
TARGET_MS = 200.0
TYPICAL = "memory_limit/bounded"


def scenarios() -> dict:
    from kafkasim.broker.network import NetworkScenario, kip72_experiments

    out = {"default": NetworkScenario()}
    for experiment, pair in kip72_experiments().items():
        for label, scenario in pair.items():
            out[f"{experiment}/{label}"] = scenario
    return out


def run_one(name: str, repeat: int = 5) -> dict:
    """Time one scenario in this process (after one warm-up run); return a result row."""
    from kafkasim.broker.network import simulate_network

    scenario = scenarios()[name]
    simulate_network(scenario).summary  # warm-up
    walls, sims = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run = simulate_network(scenario)
        t1 = time.perf_counter()
        summary = run.summary
        t2 = time.perf_counter()
        sims.append((t1 - t0) * 1000)
        walls.append((t2 - t0) * 1000)
    median = statistics.median(walls)
    return {
        "scenario": name, "repeat": repeat, "clients": sum(g.count for g in scenario.clients),
        "duration_ms": scenario.duration_ms, "requests_sent": summary["requests_sent"],
        "requests_completed": summary["requests_completed"], "engine_events": run.engine_events,
        "event_rows": len(run.rows), "simulate_ms": round(statistics.median(sims), 1),
        "median_ms": round(median, 1), "min_ms": round(min(walls), 1), "runs_ms": [round(w, 1) for w in walls],
        "ok": median < TARGET_MS,
    }


def measure(name: str, repeat: int, python: str | None = None) -> dict:
    proc = subprocess.run([python or sys.executable, os.path.abspath(__file__), "--one", name, "--repeat", str(repeat)],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_suite(*, quick=False, repeat=3, python=None, log=print) -> list[dict]:
    names = [TYPICAL] if quick else list(scenarios())
    rows = []
    for name in names:
        row = measure(name, max(repeat, 3), python)
        log(f"  {name:32s} median {row['median_ms']:7.1f} ms  ({row['requests_sent']:,} requests)")
        rows.append(row)
    return rows


def report(rows, info, repeat) -> str:
    lines = [
        f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
        f"{info['os']}. Each scenario in a fresh process: one warm-up run, then the median (and minimum) of "
        f"{rows[0]['repeat'] if rows else repeat} timed runs of `simulate_network(scenario)` + `run.summary`.",
        "",
        "| scenario | clients | simulated s | requests (completed) | engine events | event rows "
        "| simulate ms | + summary: median ms | min ms | under 200 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        name = f"**{r['scenario']}** (typical)" if r["scenario"] == TYPICAL else r["scenario"]
        lines.append(f"| {name} | {r['clients']} | {r['duration_ms'] / 1000:g} | {r['requests_sent']:,} "
                     f"({r['requests_completed']:,}) | {r['engine_events']:,} | {r['event_rows']:,} "
                     f"| {r['simulate_ms']:.1f} | {r['median_ms']:.1f} | {r['min_ms']:.1f} "
                     f"| {'yes' if r['ok'] else 'NO'} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--one", metavar="SCENARIO", help="time one scenario in this process and print a JSON line")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per scenario (default 5)")
    ap.add_argument("--quick", action="store_true", help=f"only the typical chapter run ({TYPICAL})")
    ap.add_argument("--json", metavar="PATH", help="also save the rows as JSON")
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one, args.repeat)))
        return 0
    rows = run_suite(quick=args.quick, repeat=args.repeat, log=lambda s: print(s, file=sys.stderr, flush=True))
    print(report(rows, machine_info(), args.repeat))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
