"""Share groups (KIP-932) at scale: 100 share consumers on 10 partitions, beside a consumer group.

The load of issue 28: one topic of 10 partitions produced at 10,000 records/s for 10 simulated
minutes (6,000,000 records), 2 ms of processing per record (`Scenario`'s default), Kafka 4.2's
defaults. Three cases, each one run in a fresh process:

``share``      ``Scenario(group_type="share", members=100)``: a share group; every record is
               acquired, processed and acknowledged in ranges (one engine event per fetched batch),
               and the run is checked against KIP-932's invariants (`Run` does it on every share run).
``classic``    the same load read by a consumer group of 100 members (group.protocol=classic).
``consumer``   the same under group.protocol=consumer (KIP-848).

Targets for ``share``: ``simulate()`` under 10 s and the process under 2 GB. CPU time
(``time.process_time``) is reported beside wall time: on the shared two-core machine the wall time
of one run varies with what else runs, CPU time much less.

    .venv/bin/python benchmarks/share_groups.py                  # the three cases, Markdown
    .venv/bin/python benchmarks/share_groups.py --case share     # one case, one JSON line
"""

from __future__ import annotations

import os
import resource
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from measure import case_main, cases_in_fresh_processes, machine_info, timed  # noqa: E402

NAME = "share_groups"
CASES = ("share", "classic", "consumer")
TARGET_S, TARGET_MB = 10.0, 2048
LOAD = dict(kafka_version="4.2", members=100, topics={"orders": 10}, produce_rate_per_s=10_000, duration_ms=600_000)


def _scenario(case: str, duration_ms: int):
    sys.path.insert(0, ROOT)
    from kafkasim import Scenario

    load = {**LOAD, "duration_ms": duration_ms}
    if case == "share":
        return Scenario(group_type="share", **load)
    return Scenario(consumer={"group.protocol": case}, **load)


def run_case(case: str, duration_ms: int = LOAD["duration_ms"]) -> dict:
    """One case, timed (a shorter `duration_ms` for the tests)."""
    from kafkasim import simulate

    sc = _scenario(case, duration_ms)
    run, wall, cpu = timed(lambda: simulate(sc))
    s, summary_wall, _ = timed(lambda: run.summary)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = {"benchmark": NAME, "case": case, "members": sc.members, "partitions": sum(sc.topics.values()),
           "simulated_ms": sc.duration_ms, "simulate_wall_s": wall, "simulate_cpu_s": cpu,
           "summary_wall_s": summary_wall, "engine_events": run.engine_stats["events"], "event_rows": len(run.rows),
           "records_produced": s["records_produced"], "records_processed": s["records_processed"],
           "unprocessed_at_end": s["unprocessed_at_end"], "duplicates": s["duplicates"],
           "max_lag": s["max_lag"], "latency_p99_ms": s["latency_ms"]["p99"],
           "peak_rss_mb": round(rss, 1)}
    if case == "share":
        out.update(records_stuck=s["records_stuck"], redeliveries=s["redeliveries"],
                   throughput_per_s=s["throughput_per_s"])
        out["wall_ok"] = wall < TARGET_S
        out["ok"] = cpu < TARGET_S and rss < TARGET_MB  # the wall time depends on the machine's load
    else:
        out["ok"] = True
    return out


def run_suite(*, quick=False, repeat=1, python=None, log=print):
    return cases_in_fresh_processes(__file__, CASES, lambda row: f"simulate {row['simulate_wall_s']:.1f} s wall, {row['simulate_cpu_s']:.1f} s CPU",
                                    python=python, timeout=900, log=log)


def report(rows, info, repeat):
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"{info['os']}. Each case once, in a fresh process: other load on the machine inflates wall times, "
             "CPU times much less.", "",
             "| case | members | partitions | records produced | processed (duplicates) | never processed "
             "| p99 latency | simulate() wall | CPU | then .summary | engine events | event rows | peak RSS MB | target met |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        target = "–"
        if r["case"] == "share":
            target = (f"< {TARGET_S:g} s: {'yes' if r['wall_ok'] else 'no'} on wall, "
                      f"{'yes' if r['simulate_cpu_s'] < TARGET_S else 'NO'} on CPU; "
                      f"< 2 GB: {'yes' if r['peak_rss_mb'] < TARGET_MB else 'NO'}")
        lines.append(f"| {r['case']} | {r['members']:,} | {r['partitions']:,} | {r['records_produced']:,} "
                     f"| {r['records_processed']:,} ({r['duplicates']:,}) | {r['unprocessed_at_end']:,} "
                     f"| {r['latency_p99_ms'] / 1000:,.1f} s | {r['simulate_wall_s']:,.1f} s | {r['simulate_cpu_s']:,.1f} s "
                     f"| {r['summary_wall_s']:,.2f} s | {r['engine_events']:,} | {r['event_rows']:,} "
                     f"| {r['peak_rss_mb']:.0f} | {target} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    return case_main(argv, __doc__, CASES, run_case, run_suite, report)


if __name__ == "__main__":
    sys.exit(main())
