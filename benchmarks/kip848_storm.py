"""KIP-848 join storm: N members join one group at t=0, under the consumer protocol beside the
classic one, until every member is stable, with Kafka 4.2's defaults beside 4.3's.

The scenario, one topic of N partitions (one per member):

``consumer``  t = 0: each of the N members sends ConsumerGroupHeartbeat with epoch 0 (one engine
              timer, one member after the other, as join_storm.py does). Then every 5000 ms
              (the broker's group.consumer.heartbeat.interval.ms) each member heartbeats with its
              epoch and the partitions it owns, as the Java client does once it has reconciled
              (it adopts each assignment at once). Stable: the group state is Stable, that is
              every member STABLE at the target epoch, which equals the group epoch.
``classic``   the classic protocol's storm of join_storm.py, up to the moment the group is
              Stable: two-step JoinGroup at t = 0 (KIP-394), the initial delayed join (3000 ms,
              extended once), then SyncGroup with the leader's assignment: Stable at 6000 ms.

Under Kafka 4.2's defaults (as in 4.0 and 4.1) every joining heartbeat bumps the group epoch
and the coordinator recomputes the whole target assignment in that heartbeat
(`GroupMetadataManager.consumerGroupHeartbeat` -> `updateTargetAssignment`), so a storm of N
joins costs N assignor runs over up to N members: O(N^2), in Kafka as here. Kafka 4.3's defaults
(`GroupCoordinatorConfig` at v8.3.0) add `group.consumer.assignment.interval.ms` = 1000 ms
(KIP-1263): at most one target computation per second and group, the next one made by the first
heartbeat after the interval (`canComputeNextTargetAssignment`); and a new group starts at epoch 1
(KAFKA-20268), so N joins end at group epoch N + 1. Each row is a `GroupCoordinator` built with
that `kafka_version` and nothing else set.

Events: requests the coordinator handles plus timer firings it processes, as join_storm.py
counts them. One measurement per process: ``python benchmarks/kip848_storm.py --protocol
consumer --n 10000 --version 4.2`` prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from measure import in_fresh_process, machine_info  # noqa: E402

NAME = "kip848_storm"
GROUP, TOPIC = "g", "t"
HEARTBEAT_MS = 5000
#: (protocol, Kafka version whose defaults the coordinator runs, N): 4.2 stops at 10,000 (quadratic, see above).
CASES = [("classic", "4.2", 1000), ("classic", "4.2", 10000), ("classic", "4.2", 100000),
         ("consumer", "4.2", 1000), ("consumer", "4.2", 10000),
         ("consumer", "4.3", 1000), ("consumer", "4.3", 10000), ("consumer", "4.3", 100000)]
QUICK = [c for c in CASES if c[2] <= 10000]
TARGET = {"n": 100000, "wall_s": 10.0, "rss_mb": 2048}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_consumer(n: int, version: str) -> dict:
    sys.path.insert(0, ROOT)
    from kafkasim import GroupCoordinator, Simulation

    sim = Simulation(0)
    coord = GroupCoordinator(sim, kafka_version=version, topics={TOPIC: n}, record_heartbeats=False)
    first_epoch = coord.consumer_groups.rules.initial_group_epoch  # 0 before 4.3, 1 from 4.3
    heartbeat = coord.consumer_group_heartbeat
    ids = [f"member-{i}" for i in range(n)]
    epoch, owned, stable = {}, {}, []  # (stable: the simulated time the group is Stable)
    errors = [0]

    def join():
        for m in ids:
            r = heartbeat(GROUP, member_id=m, member_epoch=0, rebalance_timeout_ms=300000,
                          subscribed_topic_names=[TOPIC], owned_partitions={})
            errors[0] += r.error.value != 0
            epoch[m], owned[m] = r.member_epoch, r.assignment or {}

    def tick():
        for m in ids:
            r = heartbeat(GROUP, member_id=m, member_epoch=epoch[m], owned_partitions=owned[m])
            errors[0] += r.error.value != 0
            epoch[m] = r.member_epoch
            if r.assignment is not None:
                owned[m] = r.assignment

    t0, c0 = time.perf_counter(), time.process_time()
    join()                                 # t = 0
    while coord.group_state(GROUP) != "Stable" and sim.now < 600_000:
        sim.advance(HEARTBEAT_MS)          # session checks and other timers due meanwhile run
        tick()                             # the cohort's heartbeats, every 5 s
    stable.append(sim.now)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    stats = coord.consumer_groups.stats
    group_epoch = coord.group_epoch(GROUP)
    per_member = {m: coord.assigned_partitions(GROUP, m) for m in ids}
    partitions = [p for a in per_member.values() for p in a.get(TOPIC, [])]
    checks = {"stable": bool(stable), "every_member_at_group_epoch":
              all(coord.member_epoch(GROUP, m) == group_epoch for m in ids),
              "one_partition_each": sorted(partitions) == list(range(n)) and all(len(a.get(TOPIC, [])) == 1
                                                                                 for a in per_member.values()),
              "clients_own_what_they_are_assigned": all(owned[m] == per_member[m] for m in ids),
              "no_errors": errors[0] == 0, "one_bump_per_join": group_epoch == first_epoch + n}
    return _row("consumer", version, n, wall, stats["requests"], stats["timer_events"], stable[0] if stable else None,
                checks, cpu_s=round(cpu, 4), interval_ms=coord.consumer_groups.assignment_interval_ms,
                assignments=stats["assignments"], group_epoch=group_epoch)


def run_classic(n: int, version: str = "4.2") -> dict:
    sys.path.insert(0, ROOT)
    from kafkasim import GroupCoordinator, Simulation
    from kafkasim.core.embedded_protocol import encode, encode_assignment
    from kafkasim.core.errors import Errors

    sim = Simulation(0)
    coord = GroupCoordinator(sim, kafka_version=version, record_heartbeats=False)
    protocols = [("range", encode({"topics": [TOPIC], "generation": -1, "owned": []}))]
    answered, synced, errors = [], [], [0]

    def on_join(resp):
        answered.append(resp)
        if len(answered) == n:
            sim.schedule(0, sync_all)

    def storm():
        for i in range(n):
            r = coord.join_group(GROUP, "", None, 45000, 300000, "consumer", protocols, True, f"consumer-{i}")
            coord.join_group(GROUP, r.member_id, None, 45000, 300000, "consumer", protocols, True, f"consumer-{i}",
                             callback=on_join)

    def sync_all():
        leader = next(r for r in answered if r.members)
        plan = {m: encode_assignment({TOPIC: [i]}) for i, m in enumerate(leader.members)}
        for r in sorted(answered, key=lambda r: r is not leader):
            s = coord.sync_group(GROUP, r.member_id, r.generation_id, plan if r is leader else None)
            errors[0] += s.error is not Errors.NONE
            synced.append(s)
        if coord.group_state(GROUP) == "Stable" and all(s.done for s in synced):
            stable.append(sim.now)

    stable: list[int] = []
    sim.schedule(0, storm)
    t0, c0 = time.perf_counter(), time.process_time()
    sim.run(until=6000)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    checks = {"stable": bool(stable), "all_members": len(coord.member_ids(GROUP)) == n,
              "generation_1": coord.generation_id(GROUP) == 1, "no_errors": errors[0] == 0}
    return _row("classic", version, n, wall, coord.stats["requests"], coord.stats["timer_events"],
                stable[0] if stable else None, checks, cpu_s=round(cpu, 4))


def _row(protocol, version, n, wall, requests, timers, stable_ms, checks, **extra) -> dict:
    events = requests + timers
    return {"benchmark": NAME, "protocol": protocol, "version": version, "n": n, "wall_s": round(wall, 4),
            "requests": requests, "timer_events": timers, "events": events,
            "events_per_s": round(events / wall) if wall > 0 else None, "peak_rss_mb": round(_rss_mb(), 1),
            "stable_at_ms": stable_ms, "checks": checks, "ok": all(checks.values()),
            "load_avg": round(os.getloadavg()[0], 1), **extra}


def run_one(protocol: str, n: int, version: str = "4.2") -> dict:
    return run_classic(n, version) if protocol == "classic" else run_consumer(n, version)


def chapter_default(repeat: int = 15) -> dict:
    """Chapter 11's scenario (`Scenario(kafka_version="4.0", consumer={"group.protocol": "consumer"})`)
    and the same under the classic protocol: simulate() wall and CPU time, medians of `repeat`."""
    sys.path.insert(0, ROOT)
    from kafkasim import Scenario, simulate

    out, cpu = {}, {}
    for protocol in ("consumer", "classic"):
        scenario = Scenario(kafka_version="4.0", consumer={"group.protocol": protocol})
        walls, cpus = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            simulate(scenario)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        out[protocol] = round(statistics.median(walls) * 1000, 1)
        cpu[protocol] = round(statistics.median(cpus) * 1000, 1)
    return {"benchmark": NAME, "case": "chapter-default", "median_ms": out, "median_cpu_ms": cpu,
            "ok": out["consumer"] < 50, "load_avg": round(os.getloadavg()[0], 1)}


def run_suite(*, quick=False, repeat=1, python=None, log=print):
    python = python or sys.executable
    rows = []
    for protocol, version, n in QUICK if quick else CASES:
        walls = []
        for _ in range(max(1, repeat if n < 100000 else 1)):
            walls.append(in_fresh_process(python, __file__, "--protocol", protocol, "--n", str(n),
                                          "--version", version))
        row = sorted(walls, key=lambda r: r["wall_s"])[len(walls) // 2]
        log(f"  {protocol} {version} N={n}: {row['wall_s']:.2f} s, stable at {row['stable_at_ms']} ms")
        rows.append(row)
    rows.append(in_fresh_process(python, __file__, "--chapter", timeout=600))
    return rows


def report(rows, info, repeat):
    loads = [r["load_avg"] for r in rows if "load_avg" in r]
    load = (f" The machine was shared: load average {min(loads)} to {max(loads)} at the end of the runs."
            if loads else "")
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"{info['os']}. Each measurement in a fresh process (median of {repeat} below N = 100,000); CPU s is the "
             f"process's own CPU time, which other load on the machine does not inflate as it does wall s.{load}", "",
             "| protocol | Kafka defaults | N | wall s | CPU s | events (requests + timers) | events/s | peak RSS MB "
             "| stable at (simulated) | group epoch | target assignments | checks |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if r.get("case") == "chapter-default":
            continue
        rule = f"{r['version']} (classic)" if r["protocol"] == "classic" else \
            f"{r['version']} (every join)" if r["interval_ms"] == 0 else \
            f"{r['version']} (interval {r['interval_ms']} ms)"
        lines.append(f"| {r['protocol']} | {rule} | {r['n']:,} | {r['wall_s']:,.2f} | {r.get('cpu_s', 0):,.2f} "
                     f"| {r['events']:,} | {r['events_per_s']:,} | {r['peak_rss_mb']:,.0f} | {r['stable_at_ms']:,} ms "
                     f"| {r.get('group_epoch', '–')} | {r.get('assignments', '–')} "
                     f"| {'ok' if r['ok'] else 'FAILED'} |")
    chapter = next((r for r in rows if r.get("case") == "chapter-default"), None)
    if chapter:
        wall, cpu = chapter["median_ms"], chapter.get("median_cpu_ms", {})
        lines += ["", f"Chapter 11's default scenario (`Scenario(kafka_version=\"4.0\", consumer="
                      f"{{\"group.protocol\": ...}})`), `simulate()` median of 15: consumer protocol "
                      f"{wall['consumer']} ms ({cpu.get('consumer', '–')} ms CPU), classic {wall['classic']} ms "
                      f"({cpu.get('classic', '–')} ms CPU) (target under 50 ms: "
                      f"{_verdict(wall['consumer'], cpu.get('consumer'), 50)})."]
    big = [r for r in rows if r.get("n") == TARGET["n"] and r.get("protocol") == "consumer"]
    if big:
        r = big[0]
        memory = r["peak_rss_mb"] < TARGET["rss_mb"]
        lines.append(f"N = 100,000 under the consumer protocol, with Kafka {r['version']}'s defaults: "
                     f"{r['wall_s']:.1f} s "
                     f"({r.get('cpu_s', 0):.1f} s CPU) and {r['peak_rss_mb']:.0f} MB (target under 10 s: "
                     f"{_verdict(r['wall_s'], r.get('cpu_s'), TARGET['wall_s'])}; under 2 GB: "
                     f"{'met' if memory else 'NOT met'}).")
    return "\n".join(lines) + "\n"


def _verdict(wall: float, cpu: float | None, target: float) -> str:
    """Whether a time target is met, on wall time and, when that fails, on the run's own CPU time."""
    if wall < target:
        return "met"
    if cpu is not None and cpu < target:
        return "met on CPU time, not on wall time on the loaded machine"
    return "NOT met"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--protocol", choices=("consumer", "classic"), help="one measurement in this process")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--version", default="4.2", help="the Kafka version whose defaults the coordinator runs (4.2, 4.3)")
    ap.add_argument("--chapter", action="store_true", help="time chapter 11's default scenario (one JSON line)")
    ap.add_argument("--quick", action="store_true", help="the suite without N = 100,000")
    args = ap.parse_args(argv)
    if args.chapter:
        print(json.dumps(chapter_default()))
        return 0
    if args.protocol:
        print(json.dumps(run_one(args.protocol, args.n, args.version)))
        return 0
    rows = run_suite(quick=args.quick, log=lambda s: print(s, file=sys.stderr))
    print(report(rows, machine_info(), 1))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
