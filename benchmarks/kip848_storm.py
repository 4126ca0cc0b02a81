"""KIP-848 join storm: N members join one group at t=0, under the consumer protocol beside the
classic one, until every member is stable.

The scenario, one topic of N partitions (one per member), Kafka 4.2 rules:

``consumer``  t = 0: each of the N members sends ConsumerGroupHeartbeat with epoch 0 (one engine
              timer, one member after the other, as join_storm.py does). Then every 5000 ms
              (the broker's group.consumer.heartbeat.interval.ms) each member heartbeats with its
              epoch and the partitions it owns, as the Java client does once it has reconciled
              (it adopts each assignment at once). Stable: the group state is Stable, that is
              every member STABLE at the target epoch, which equals the group epoch.
``classic``   the classic protocol's storm of join_storm.py, up to the moment the group is
              Stable: two-step JoinGroup at t = 0 (KIP-394), the initial delayed join (3000 ms,
              extended once), then SyncGroup with the leader's assignment: Stable at 6000 ms.

Under the rules of Kafka 4.0 to 4.2 every joining heartbeat bumps the group epoch and the
coordinator recomputes the whole target assignment in that heartbeat
(`GroupMetadataManager.consumerGroupHeartbeat` -> `updateTargetAssignment`), so a storm of N
joins costs N assignor runs over up to N members: O(N^2), in Kafka as here. Kafka 4.3's
`group.consumer.assignment.interval.ms` (KIP-1263, default 1000 ms) computes at most one target
per interval and group; the row "4.3 interval" runs the same storm with it.

Events: requests the coordinator handles plus timer firings it processes, as join_storm.py
counts them. One measurement per process: ``python benchmarks/kip848_storm.py --protocol
consumer --n 10000 --interval 0`` prints one JSON line.
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
#: (protocol, assignment interval ms, N): 4.0-4.2 rules stop at 10,000 (quadratic, see above).
CASES = [("classic", 0, 1000), ("classic", 0, 10000), ("classic", 0, 100000),
         ("consumer", 0, 1000), ("consumer", 0, 10000),
         ("consumer", 1000, 1000), ("consumer", 1000, 10000), ("consumer", 1000, 100000)]
QUICK = [c for c in CASES if c[2] <= 10000]
TARGET = {"n": 100000, "wall_s": 10.0, "rss_mb": 2048}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_consumer(n: int, interval: int) -> dict:
    sys.path.insert(0, ROOT)
    from kafkasim import GroupCoordinator, Simulation

    sim = Simulation(0)
    coord = GroupCoordinator(sim, kafka_version="4.2", topics={TOPIC: n}, record_heartbeats=False,
                             group_consumer_assignment_interval_ms=interval)
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

    t0 = time.perf_counter()
    join()                                 # t = 0
    while coord.group_state(GROUP) != "Stable" and sim.now < 600_000:
        sim.advance(HEARTBEAT_MS)          # session checks and other timers due meanwhile run
        tick()                             # the cohort's heartbeats, every 5 s
    stable.append(sim.now)
    wall = time.perf_counter() - t0
    stats = coord.consumer_groups.stats
    group_epoch = coord.group_epoch(GROUP)
    per_member = {m: coord.assigned_partitions(GROUP, m) for m in ids}
    partitions = [p for a in per_member.values() for p in a.get(TOPIC, [])]
    checks = {"stable": bool(stable), "every_member_at_group_epoch":
              all(coord.member_epoch(GROUP, m) == group_epoch for m in ids),
              "one_partition_each": sorted(partitions) == list(range(n)) and all(len(a.get(TOPIC, [])) == 1
                                                                                 for a in per_member.values()),
              "clients_own_what_they_are_assigned": all(owned[m] == per_member[m] for m in ids),
              "no_errors": errors[0] == 0, "one_bump_per_join": group_epoch == n}
    return _row("consumer", interval, n, wall, stats["requests"], stats["timer_events"], stable[0] if stable else None,
                checks, assignments=stats["assignments"], group_epoch=group_epoch)


def run_classic(n: int) -> dict:
    sys.path.insert(0, ROOT)
    from kafkasim import GroupCoordinator, Simulation
    from kafkasim.core.embedded_protocol import encode, encode_assignment
    from kafkasim.core.errors import Errors

    sim = Simulation(0)
    coord = GroupCoordinator(sim, kafka_version="4.2", record_heartbeats=False)
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
    t0 = time.perf_counter()
    sim.run(until=6000)
    wall = time.perf_counter() - t0
    checks = {"stable": bool(stable), "all_members": len(coord.member_ids(GROUP)) == n,
              "generation_1": coord.generation_id(GROUP) == 1, "no_errors": errors[0] == 0}
    return _row("classic", 0, n, wall, coord.stats["requests"], coord.stats["timer_events"],
                stable[0] if stable else None, checks)


def _row(protocol, interval, n, wall, requests, timers, stable_ms, checks, **extra) -> dict:
    events = requests + timers
    return {"benchmark": NAME, "protocol": protocol, "interval_ms": interval, "n": n, "wall_s": round(wall, 4),
            "requests": requests, "timer_events": timers, "events": events,
            "events_per_s": round(events / wall) if wall > 0 else None, "peak_rss_mb": round(_rss_mb(), 1),
            "stable_at_ms": stable_ms, "checks": checks, "ok": all(checks.values()), **extra}


def run_one(protocol: str, n: int, interval: int = 0) -> dict:
    return run_classic(n) if protocol == "classic" else run_consumer(n, interval)


def chapter_default(repeat: int = 15) -> dict:
    """Chapter 11's scenario (`Scenario(kafka_version="4.0", consumer={"group.protocol": "consumer"})`)
    and the same under the classic protocol: simulate() wall time, median of `repeat`."""
    sys.path.insert(0, ROOT)
    from kafkasim import Scenario, simulate

    out = {}
    for protocol in ("consumer", "classic"):
        scenario = Scenario(kafka_version="4.0", consumer={"group.protocol": protocol})
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            simulate(scenario)
            times.append(time.perf_counter() - t0)
        out[protocol] = round(statistics.median(times) * 1000, 1)
    return {"benchmark": NAME, "case": "chapter-default", "median_ms": out, "ok": out["consumer"] < 50}


def run_suite(*, quick=False, repeat=1, python=None, log=print):
    python = python or sys.executable
    rows = []
    for protocol, interval, n in QUICK if quick else CASES:
        walls = []
        for _ in range(max(1, repeat if n < 100000 else 1)):
            walls.append(in_fresh_process(python, __file__, "--protocol", protocol, "--n", str(n),
                                          "--interval", str(interval)))
        row = sorted(walls, key=lambda r: r["wall_s"])[len(walls) // 2]
        log(f"  {protocol} interval={interval} N={n}: {row['wall_s']:.2f} s, stable at {row['stable_at_ms']} ms")
        rows.append(row)
    rows.append(in_fresh_process(python, __file__, "--chapter", timeout=600))
    return rows


def report(rows, info, repeat):
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"{info['os']}. Each measurement in a fresh process (median of {repeat} below N = 100,000).", "",
             "| protocol | rule | N | wall s | events (requests + timers) | events/s | peak RSS MB "
             "| stable at (simulated) | target assignments | checks |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if r.get("case") == "chapter-default":
            continue
        rule = "classic" if r["protocol"] == "classic" else \
            "4.0-4.2 (every join)" if r["interval_ms"] == 0 else f"4.3 interval {r['interval_ms']} ms"
        lines.append(f"| {r['protocol']} | {rule} | {r['n']:,} | {r['wall_s']:,.2f} | {r['events']:,} "
                     f"| {r['events_per_s']:,} | {r['peak_rss_mb']:,.0f} | {r['stable_at_ms']:,} ms "
                     f"| {r.get('assignments', '–')} | {'ok' if r['ok'] else 'FAILED'} |")
    chapter = next((r for r in rows if r.get("case") == "chapter-default"), None)
    if chapter:
        lines += ["", f"Chapter 11's default scenario (`Scenario(kafka_version=\"4.0\", consumer="
                      f"{{\"group.protocol\": ...}})`), `simulate()` median of 15: consumer protocol "
                      f"{chapter['median_ms']['consumer']} ms, classic {chapter['median_ms']['classic']} ms "
                      f"(target under 50 ms: {'met' if chapter['ok'] else 'NOT met'})."]
    big = [r for r in rows if r.get("n") == TARGET["n"] and r.get("protocol") == "consumer"]
    if big:
        r = big[0]
        met = r["wall_s"] < TARGET["wall_s"] and r["peak_rss_mb"] < TARGET["rss_mb"]
        lines.append(f"N = 100,000 under the consumer protocol: {r['wall_s']:.1f} s and {r['peak_rss_mb']:.0f} MB "
                     f"(target under 10 s and 2 GB: {'met' if met else 'NOT met'}, with the 4.3 interval).")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--protocol", choices=("consumer", "classic"), help="one measurement in this process")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--interval", type=int, default=0, help="group.consumer.assignment.interval.ms (4.3; 0: 4.0-4.2)")
    ap.add_argument("--chapter", action="store_true", help="time chapter 11's default scenario (one JSON line)")
    ap.add_argument("--quick", action="store_true", help="the suite without N = 100,000")
    args = ap.parse_args(argv)
    if args.chapter:
        print(json.dumps(chapter_default()))
        return 0
    if args.protocol:
        print(json.dumps(run_one(args.protocol, args.n, args.interval)))
        return 0
    rows = run_suite(quick=args.quick, log=lambda s: print(s, file=sys.stderr))
    print(report(rows, machine_info(), 1))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
