"""ZooKeeper rebalance storm: how long the chapter's runs of the 0.8.2 consumer model take.

Cases (``--case``):

``incident``           the seed incident: 10 topics x 120 connectors in the group name "main",
                       one shuts down at 10 s (1,199 connectors rebalance, ~1.46 M ZooKeeper reads)
``incident-fixed``     the same with a group name per topic (119 rebalance)
``incident-capacity``  ``incident`` with the ensemble limited to 50,000 requests/s
``explorer``           an explorer-sized run: 3 topics x 20 connectors, one group name, one leaves
``explorer-cold``      3 topics x 20 connectors all starting within the first second
``contrast``           ``compare_with_group_coordinator()`` at the seed's scale (two ZooKeeper runs
                       and two runs of the group coordinator with 1,200 and 120 members)
``fetch-sizing``       ``seed_large_messages()`` and a five-version ``fetch_sizing`` table

Each measurement is one fresh process (``--case NAME`` prints one JSON line); the wall time
covers building the scenario, simulating, and computing the summary and the load timeline
(pandas is imported before
the clock starts, and so is kafkasim). Targets: ``incident`` in at most 3 s, explorer runs under 0.25 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

from measure import machine_info  # noqa: E402  (one machine description for every benchmark)

NAME = "zookeeper_storm"
CASES = ("incident", "incident-fixed", "incident-capacity", "explorer", "explorer-cold", "contrast",
         "fetch-sizing")
QUICK_CASES = ("incident", "incident-fixed", "explorer", "explorer-cold")
TARGETS_S = {"incident": 3.0, "incident-fixed": 3.0, "incident-capacity": 3.0, "explorer": 0.25,
             "explorer-cold": 0.25}


def _run(case: str) -> dict:
    from kafkasim.broker.fetch_sizing import MiB, fetch_sizing, seed_large_messages
    from kafkasim.analysis.experiments import compare_with_group_coordinator
    from kafkasim.zookeeper.consumer_connector import (ZookeeperScenario, consumers_per_topic, seed_incident,
                                                       simulate_zookeeper)

    if case == "contrast":
        df = compare_with_group_coordinator()
        return {"rebalanced": [int(x) for x in df["consumers rebalanced"]]}
    if case == "fetch-sizing":
        seed = seed_large_messages()
        df = fetch_sizing(partitions=360, message_bytes=300 * MiB)
        return {"overflow": bool(seed["before"]["overflow"]), "rows": len(df)}
    if case.startswith("incident"):
        scenario = seed_incident(case == "incident-fixed",
                                 zk_ops_per_s=50_000 if case == "incident-capacity" else None,
                                 duration_ms=60_000)
    else:
        topics = {"t0": 20, "t1": 20, "t2": 20}
        scenario = ZookeeperScenario(topics=topics, consumers=consumers_per_topic(topics, 20),
                                     warm_start=case != "explorer-cold", duration_ms=30_000)
        if case == "explorer":
            from kafkasim.core.faults import ScaleIn
            scenario = scenario.replace(faults=(ScaleIn(5_000, ("t0-01",)),))
    run = simulate_zookeeper(scenario)
    s = run.summary
    run.zk_load(1000)
    return {"consumers": s["consumers"], "consumers_rebalanced": s["consumers_rebalanced"],
            "zk_reads": s["zk_reads"], "time_until_stable_ms": s["time_until_stable_ms"],
            "rows": len(run.rows), "engine_events": run.engine_stats["events"]}


def run_one(case: str) -> dict:
    import pandas  # noqa: F401  (imported before the clock starts, as kafkasim is)

    import kafkasim.broker.fetch_sizing  # noqa: F401
    import kafkasim.scenario.world  # noqa: F401
    import kafkasim.zookeeper.consumer_connector  # noqa: F401

    t0 = time.perf_counter()
    out = _run(case)
    wall = time.perf_counter() - t0
    return {"case": case, "wall_s": round(wall, 4), "peak_rss_mb": round(resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1), **out}


def measure(case: str, repeat: int = 3, python: str | None = None, log=None) -> dict:
    runs = []
    for _ in range(repeat):
        proc = subprocess.run([python or sys.executable, os.path.abspath(__file__), "--case", case],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=600)
        if proc.returncode:
            raise RuntimeError(f"{case}: {proc.stderr.strip()}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    med = dict(runs[0])
    med["wall_s"] = statistics.median(r["wall_s"] for r in runs)
    med["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    med["ok"] = case not in TARGETS_S or med["wall_s"] <= TARGETS_S[case]
    if log:
        log(f"{case}: {med['wall_s']:.3f} s")
    return med


def run_suite(*, quick=False, repeat=3, python=None, log=print) -> list[dict]:
    return [measure(c, repeat, python, log) for c in (QUICK_CASES if quick else CASES)]


def report(rows, info, repeat) -> str:
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"{info['os']}. Median of {repeat} runs, each in a fresh process.", "",
             "| case | wall s | target s | peak RSS MB | what it computed |", "|---|---:|---:|---:|---|"]
    for r in rows:
        what = {k: v for k, v in r.items() if k not in ("case", "wall_s", "peak_rss_mb", "ok")}
        target = TARGETS_S.get(r["case"])
        lines.append(f"| {r['case']} | {r['wall_s']:.3f} | {'' if target is None else target} | "
                     f"{r['peak_rss_mb']:.0f} | {', '.join(f'{k}={v}' for k, v in what.items())} |")
    met = [r for r in rows if r["case"] in TARGETS_S]
    lines += ["", "Targets: " + ("all met" if all(r["ok"] for r in met) else
                                 "NOT met: " + ", ".join(r["case"] for r in met if not r["ok"]))]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=CASES, help="run one case in this process and print one JSON line")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if args.case:
        print(json.dumps(run_one(args.case)))
        return 0
    rows = run_suite(quick=args.quick, repeat=args.repeat, log=lambda s: print(s, file=sys.stderr))
    print(report(rows, machine_info(), args.repeat))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
