"""Scenario speed: how long `simulate()` takes for the scenarios the chapters and widgets run.

Two measurements, each in a fresh process:

``default``   ``Scenario()``: 6 members, 12 partitions, 1,000 records/s, 10 simulated minutes,
              Kafka 3.7 defaults. The median of 15 runs after 3 warm-up runs, for
              ``simulate()`` alone and for computing ``run.summary`` afterwards. Target: the
              simulation under 50 ms, so that a widget redraw stays under 200 ms.
``large``     1,000 members, one topic of 10,000 partitions, 1,000 records/s, 10 simulated
              minutes. One run (after importing). Target: under 10 s.

    .venv/bin/python benchmarks/scenario_speed.py                 # both, prints Markdown
    .venv/bin/python benchmarks/scenario_speed.py --case default  # one, prints a JSON line

CPU time (``time.process_time``) is reported beside wall time: on a shared two-core machine
the wall time of a single run varies with what else is running, CPU time much less.
"""

from __future__ import annotations

import os
import resource
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from measure import case_main, cases_in_fresh_processes, machine_info, timed  # noqa: E402

NAME = "scenario_speed"
CASES = ("default", "large")
TARGET_S = {"default": 0.050, "large": 10.0}


def _scenario(case: str):
    sys.path.insert(0, ROOT)
    from kafkasim import Scenario

    if case == "default":
        return Scenario()
    return Scenario(members=1000, topics={"orders": 10_000}, produce_rate_per_s=1000, duration_ms=600_000)


def run_case(case: str) -> dict:
    from kafkasim import simulate

    sc = _scenario(case)
    runs = 15 if case == "default" else 1
    for _ in range(3 if case == "default" else 0):
        simulate(sc).summary
    sim_wall, sim_cpu, sum_wall = [], [], []
    for _ in range(runs):
        run, wall, cpu = timed(lambda: simulate(sc))
        _, swall, _ = timed(lambda: run.summary)
        sim_wall.append(wall)
        sim_cpu.append(cpu)
        sum_wall.append(swall)
    s = run.summary
    return {"benchmark": NAME, "case": case, "runs": runs, "members": sc.members,
            "partitions": sum(sc.topics.values()), "simulated_ms": sc.duration_ms,
            "simulate_wall_s": statistics.median(sim_wall), "simulate_cpu_s": statistics.median(sim_cpu),
            "summary_wall_s": statistics.median(sum_wall), "engine_events": run.engine_stats["events"],
            "event_rows": len(run.rows), "records_processed": s["records_processed"],
            "rebalances": s["rebalances"], "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "ok": statistics.median(sim_wall) < TARGET_S[case]}


def run_suite(*, quick=False, repeat=1, python=None, log=print):
    return cases_in_fresh_processes(__file__, CASES, lambda row: f"simulate {row['simulate_wall_s'] * 1000:.1f} ms wall",
                                    python=python, timeout=600, log=log)


def report(rows, info, repeat):
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"{info['os']}. Each case in a fresh process.", "",
             "| case | members | partitions | simulated | runs | simulate() wall (median) | CPU | then .summary "
             "| engine events | event rows | peak RSS MB | target | met |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['members']:,} | {r['partitions']:,} | {r['simulated_ms'] / 60000:g} min "
                     f"| {r['runs']} | {r['simulate_wall_s'] * 1000:,.1f} ms | {r['simulate_cpu_s'] * 1000:,.1f} ms "
                     f"| {r['summary_wall_s'] * 1000:,.1f} ms | {r['engine_events']:,} | {r['event_rows']:,} "
                     f"| {r['peak_rss_mb']:.0f} | < {TARGET_S[r['case']] * 1000:,.0f} ms | {'yes' if r['ok'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    return case_main(argv, __doc__, CASES, run_case, run_suite, report)


if __name__ == "__main__":
    sys.exit(main())
