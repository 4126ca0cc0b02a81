"""Join storm: N dynamic members join one group at t=0, sync, then heartbeat for 60 s.

The scenario, the same for every implementation:

1. t = 0: each of N members sends JoinGroup with an empty member id and gets
   MEMBER_ID_REQUIRED (79) plus an id (KIP-394), then at once sends JoinGroup with that
   id, which the coordinator parks. The first such join starts the initial delayed join
   (group.initial.rebalance.delay.ms = 3000, rebalance timeout 300000); members added
   during the first window extend it once by another 3000 ms (KIP-134), so with
   everybody arriving at t = 0 the join phase completes at 6000 ms.
2. On its JoinGroup response each member sends SyncGroup, the leader first, with an
   assignment (a tiny payload) for every member. The group goes Stable, generation 1.
3. Every member then sends a Heartbeat every 3000 ms for 60 simulated seconds after the
   group went Stable (session.timeout.ms = 10000, so nobody expires): 20 heartbeats each,
   the last one exactly at Stable + 60000 ms, which is included.

"Events" are counted the same way for every implementation, by the models themselves:
every JoinGroup, SyncGroup and Heartbeat request the coordinator handles, plus every
timer firing the coordinator processes (join timer, pending-member timer, session-timer
checks or expiries, pending-sync timer). Requests must be 2N + N + 20N everywhere.

Implementations (``--impl``):

``kafkasim``          kafkasim's engine and GroupCoordinator; one engine timer per 3 s
                      heartbeat tick for the whole cohort, calling ``heartbeat_batch``.
``kafkasim-single``   the same, but each tick calls ``coord.heartbeat`` once per member.
``kafkasim-norecord`` like ``kafkasim`` with ``GroupCoordinator(sim, record_heartbeats=False)``:
                      successful heartbeats are not written to the event log (failed ones
                      still are), to show what the per-heartbeat event rows cost.
``simpy``             SimPy: one process per member; per-member session timer as a
                      ``Timeout`` re-armed on every heartbeat (``benchmarks/simpy_coordinator.py``).
``simpy-interrupt``   SimPy, session timer as a watchdog process interrupted on heartbeat.
``simpy-deadline``    SimPy, session timer holding a deadline, checked when it fires.
``simpy-nogc``        ``simpy`` with Python's cyclic garbage collector paused while it runs, as
                      kafkasim's engine does on its own (so the two can be compared like for like).

One measurement per process: ``python benchmarks/join_storm.py --impl kafkasim --n 100000``
prints one JSON line. Without ``--impl`` it runs the whole suite, each (implementation,
N, repeat) in a fresh subprocess, and prints a Markdown table of medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

from measure import machine_info  # noqa: E402  (one machine description for every benchmark)

NAME = "join_storm"
GROUP = "g"
SESSION_TIMEOUT_MS = 10_000
REBALANCE_TIMEOUT_MS = 300_000
INITIAL_REBALANCE_DELAY_MS = 3_000
HEARTBEAT_INTERVAL_MS = 3_000
HEARTBEAT_PHASE_MS = 60_000
HEARTBEATS_PER_MEMBER = HEARTBEAT_PHASE_MS // HEARTBEAT_INTERVAL_MS  # 20
PROTOCOL_TYPE = "consumer"
PROTOCOLS = [("range", b"")]
ASSIGNMENT = b"\x00\x01"  # a tiny per-member payload, the same bytes for everyone

IMPLS = ("kafkasim", "kafkasim-single", "kafkasim-norecord", "simpy", "simpy-interrupt",
         "simpy-deadline", "simpy-nogc")
DEFAULT_IMPLS = ("kafkasim", "kafkasim-single", "kafkasim-norecord", "simpy",
                 "simpy-deadline", "simpy-nogc")
BASELINE = "simpy"
NS = (1_000, 10_000, 100_000)
QUICK_NS = (1_000, 10_000)


def _rss_mb():
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


_GC = {"collections": [0, 0, 0], "seconds": [0.0, 0.0, 0.0], "_t": 0.0}


def _gc_callback(phase, info):
    if phase == "start":
        _GC["_t"] = time.perf_counter()
    else:
        g = info["generation"]
        _GC["collections"][g] += 1
        _GC["seconds"][g] += time.perf_counter() - _GC["_t"]


def _gc_reset():
    """Time the cyclic garbage collector from here on (both implementations alike)."""
    import gc
    _GC["collections"] = [0, 0, 0]
    _GC["seconds"] = [0.0, 0.0, 0.0]
    if _gc_callback not in gc.callbacks:
        gc.callbacks.append(_gc_callback)


def _gc_stop():
    """Stop timing the collector at the end of the run: a collection that the checks after it set
    off (the first allocation once the collector is back on) is not the run's."""
    import gc
    if _gc_callback in gc.callbacks:
        gc.callbacks.remove(_gc_callback)


def expected_requests(n):
    return {"join_group": 2 * n, "sync_group": n,
            "heartbeat": HEARTBEATS_PER_MEMBER * n}


# ---------------------------------------------------------------------------- SimPy ---
def _simpy_member(env, coord, index, tally):
    """One consumer: join, join again with the id, sync, then heartbeat every 3 s."""
    from simpy_coordinator import JoinResponse, SyncResponse, NONE, MEMBER_ID_REQUIRED

    client_id = f"consumer-{index}"
    r = coord.join_group(GROUP, "", client_id, None, SESSION_TIMEOUT_MS,
                         REBALANCE_TIMEOUT_MS, PROTOCOL_TYPE, PROTOCOLS)
    if r.error != MEMBER_ID_REQUIRED:
        tally["join_errors"] += 1
        return
    member_id = r.member_id
    r = coord.join_group(GROUP, member_id, client_id, None, SESSION_TIMEOUT_MS,
                         REBALANCE_TIMEOUT_MS, PROTOCOL_TYPE, PROTOCOLS)
    if r.__class__ is not JoinResponse:
        r = yield r  # parked until the join phase completes
    if r.error != NONE:
        tally["join_errors"] += 1
        return
    generation = r.generation_id
    assignments = None
    if r.leader_id == member_id:
        assignments = {mid: ASSIGNMENT for mid, _instance, _meta in r.members}
    s = coord.sync_group(GROUP, member_id, generation, assignments)
    if s.__class__ is not SyncResponse:
        s = yield s  # a follower that synced before the leader
    if s.error != NONE:
        tally["sync_errors"] += 1
        return
    timeout = env.timeout
    heartbeat = coord.heartbeat
    errors = 0
    for _ in range(HEARTBEATS_PER_MEMBER):
        yield timeout(HEARTBEAT_INTERVAL_MS)
        if heartbeat(GROUP, member_id, generation) != NONE:
            errors += 1
    tally["heartbeat_errors"] += errors


def run_simpy(n, session_mode="rearm", seed=0, pause_gc=False):
    sys.path.insert(0, HERE)
    import gc
    import simpy
    from simpy_coordinator import SimpyCoordinator, STABLE

    baseline = _rss_mb()
    t0 = time.perf_counter()
    env = simpy.Environment()
    coord = SimpyCoordinator(env, initial_rebalance_delay_ms=INITIAL_REBALANCE_DELAY_MS,
                             session_mode=session_mode, seed=seed)
    coord.on_stable = env.event()
    tally = {"join_errors": 0, "sync_errors": 0, "heartbeat_errors": 0}
    for i in range(n):
        env.process(_simpy_member(env, coord, i, tally))
    t1, c1 = time.perf_counter(), time.process_time()
    _gc_reset()
    if pause_gc:
        gc.disable()
    env.run(until=coord.on_stable)
    t_stable = env.now
    end = t_stable + HEARTBEAT_PHASE_MS
    env.run(until=end + 1)  # SimPy stops before events at `until`: include `end`
    t2, c2 = time.perf_counter(), time.process_time()
    _gc_stop()
    gc.enable()

    st = coord.stats
    requests = {k: st[k] for k in ("join_group", "sync_group", "heartbeat")}
    timers = {k: st[k] for k in ("join_timer", "pending_member_timer", "session_timer",
                                 "sync_timer")}
    scheduled = next(env._eid)  # SimPy's event sequence counter (private, read once)
    return _result(
        impl=("simpy-nogc" if pause_gc else "simpy") if session_mode == "rearm" else f"simpy-{session_mode}",
        n=n, seed=seed, baseline=baseline, setup_s=t1 - t0, wall_s=t2 - t1, cpu_s=c2 - c1,
        requests=requests, timers=timers,
        engine_events=scheduled - len(env._queue),
        t_stable=t_stable, end=end,
        state=coord.group_state(GROUP), generation=coord.generation_id(GROUP),
        members=len(coord.member_ids(GROUP)), expired=st["expired"],
        errors=tally, stable_name=STABLE)


# ------------------------------------------------------------------------- kafkasim ---
def run_kafkasim(n, batch=True, seed=0, record_heartbeats=True):
    sys.path.insert(0, ROOT)
    from kafkasim import Simulation
    from kafkasim.coordinator import GroupCoordinator
    from kafkasim.core.errors import Errors

    baseline = _rss_mb()
    t0 = time.perf_counter()
    sim = Simulation(seed=seed)
    # Kafka defaults (initial rebalance delay 3000 ms); heartbeats recorded by default.
    if record_heartbeats:
        coord = GroupCoordinator(sim)
    else:
        coord = GroupCoordinator(sim, record_heartbeats=False)
    t1, c1 = time.perf_counter(), time.process_time()

    NONE = Errors.NONE
    MEMBER_ID_REQUIRED = Errors.MEMBER_ID_REQUIRED
    tally = {"join_errors": 0, "sync_errors": 0, "heartbeat_errors": 0}
    counts = {"join_group": 0, "sync_group": 0, "heartbeat": 0}
    driver = {"answered": [], "member_ids": [], "generation": None, "t_stable": None}
    _gc_reset()

    def on_join_response(resp):
        # Called by the coordinator as each parked JoinGroup is answered (at join completion).
        answered = driver["answered"]
        answered.append(resp)
        if len(answered) == n:
            # The whole cohort has its answer: it sends SyncGroup next, as one engine timer.
            sim.schedule(0, sync_all)

    def storm():
        # t = 0: every member's two-step JoinGroup (KIP-394), one member after the other.
        join = coord.join_group
        for i in range(n):
            client_id = f"consumer-{i}"
            r = join(GROUP, "", None, SESSION_TIMEOUT_MS, REBALANCE_TIMEOUT_MS,
                     PROTOCOL_TYPE, PROTOCOLS, True, client_id)
            if r.error != MEMBER_ID_REQUIRED:
                tally["join_errors"] += 1
                continue
            r = join(GROUP, r.member_id, None, SESSION_TIMEOUT_MS, REBALANCE_TIMEOUT_MS,
                     PROTOCOL_TYPE, PROTOCOLS, True, client_id, callback=on_join_response)
            if r.done:  # should be parked until the join phase completes
                tally["join_errors"] += 1
        counts["join_group"] += 2 * n

    def sync_all():
        # Every member got its JoinGroup response: SyncGroup, the leader first.
        answered = driver["answered"]
        leader = [r for r in answered if r.member_id == r.leader_id]
        order = leader + [r for r in answered if r.member_id != r.leader_id]
        sync = coord.sync_group
        ids = driver["member_ids"]
        for r in order:
            if r.error != NONE:
                tally["join_errors"] += 1
                continue
            assignments = None
            if r.member_id == r.leader_id:
                assignments = {mid: ASSIGNMENT for mid in r.members}
            s = sync(GROUP, r.member_id, r.generation_id, assignments)
            if not s.done or s.error != NONE:
                tally["sync_errors"] += 1
            else:
                ids.append(r.member_id)
        counts["sync_group"] += len(order)
        driver["generation"] = leader[0].generation_id
        driver["t_stable"] = sim.now
        driver["answered"] = None
        # One engine timer per 3-s heartbeat tick for the whole cohort.
        for k in range(1, HEARTBEATS_PER_MEMBER + 1):
            sim.schedule(k * HEARTBEAT_INTERVAL_MS, tick)

    def tick_batch():
        ids = driver["member_ids"]
        errors = coord.heartbeat_batch(GROUP, ids, driver["generation"])
        counts["heartbeat"] += len(ids)
        tally["heartbeat_errors"] += len(errors)

    def tick_single():
        hb = coord.heartbeat
        gen = driver["generation"]
        ids = driver["member_ids"]
        bad = 0
        for mid in ids:
            if hb(GROUP, mid, gen).error != NONE:
                bad += 1
        counts["heartbeat"] += len(ids)
        tally["heartbeat_errors"] += bad

    tick = tick_batch if batch else tick_single
    sim.at(0, storm)
    # Phase 1: step the engine timer by timer until the group is Stable (a few timers).
    while driver["t_stable"] is None:
        nxt = sim.peek()
        if nxt is None:
            raise RuntimeError("kafkasim: the join phase never completed")
        sim.run(until=nxt)
    t_stable = driver["t_stable"]
    end = t_stable + HEARTBEAT_PHASE_MS
    sim.run(until=end)  # kafkasim runs timers due at `until` too
    t2, c2 = time.perf_counter(), time.process_time()
    _gc_stop()

    cst = dict(coord.stats)
    if cst.get("requests") != sum(counts.values()):
        raise RuntimeError(f"kafkasim counted {cst.get('requests')} requests, the driver "
                           f"sent {sum(counts.values())}")
    members = coord.member_ids(GROUP)
    removed = sum(1 for row in sim.events.rows if row[4] == "MemberRemoved")
    return _result(
        impl=("kafkasim" if record_heartbeats else "kafkasim-norecord") if batch
        else "kafkasim-single", n=n, seed=seed,
        baseline=baseline, setup_s=t1 - t0, wall_s=t2 - t1, cpu_s=c2 - c1, requests=counts,
        timers={"coordinator_timers": cst.get("timer_events", 0)},
        engine_events=sim.stats.get("events"),
        t_stable=t_stable, end=end, state=coord.group_state(GROUP),
        generation=coord.generation_id(GROUP), members=len(members),
        expired=removed, errors=tally, stable_name="Stable",
        extra={"event_rows": len(sim.events.rows),
               "broker_log_lines": len(coord.broker_log)})


# ---------------------------------------------------------------------- result row ---
def _result(*, impl, n, seed, baseline, setup_s, wall_s, cpu_s, requests, timers, engine_events,
            t_stable, end, state, generation, members, expired, errors, stable_name,
            extra=None):
    events = sum(requests.values()) + sum(timers.values())
    checks = {
        "requests_as_expected": requests == expected_requests(n),
        "stable": str(state) == stable_name,
        "generation_1": generation == 1,
        "all_members": members == n,
        "nobody_expired": not expired,
        "no_errors": not any(errors.values()),
    }
    row = {
        "benchmark": NAME, "impl": impl, "n": n, "seed": seed,
        "events": events, "requests": requests, "timer_events": timers,
        "engine_events": engine_events,
        "setup_s": round(setup_s, 4), "wall_s": round(wall_s, 4), "cpu_s": round(cpu_s, 4),
        "events_per_s": round(events / wall_s) if wall_s > 0 else None,
        "events_per_cpu_s": round(events / cpu_s) if cpu_s > 0 else None,
        "gc_s": round(sum(_GC["seconds"]), 4),
        "gc_collections": list(_GC["collections"]),
        "peak_rss_mb": round(_rss_mb(), 1), "baseline_rss_mb": round(baseline, 1),
        "stable_at_ms": t_stable, "end_ms": end,
        "state": str(state), "generation": generation, "members": members,
        "expired": expired, "errors": errors, "checks": checks,
        "ok": all(checks.values()),
        "python": platform.python_version(),
    }
    if extra:
        row.update(extra)
    return row


def run_one(impl, n, seed=0):
    if impl == "kafkasim":
        return run_kafkasim(n, batch=True, seed=seed)
    if impl == "kafkasim-single":
        return run_kafkasim(n, batch=False, seed=seed)
    if impl == "kafkasim-norecord":
        return run_kafkasim(n, batch=True, seed=seed, record_heartbeats=False)
    if impl == "simpy":
        return run_simpy(n, "rearm", seed)
    if impl == "simpy-nogc":
        return run_simpy(n, "rearm", seed, pause_gc=True)
    if impl.startswith("simpy-"):
        return run_simpy(n, impl.split("-", 1)[1], seed)
    raise ValueError(f"unknown implementation {impl!r}")


# ---------------------------------------------------------------------------- suite ---
def measure(impl, n, repeat=3, python=None, timeout=3600, log=None):
    """Run (impl, n) `repeat` times, each in a fresh subprocess; return the median row."""
    python = python or sys.executable
    runs = []
    for i in range(repeat):
        proc = subprocess.run(
            [python, os.path.abspath(__file__), "--impl", impl, "--n", str(n)],
            capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        if proc.returncode != 0:
            raise RuntimeError(f"{impl} n={n} failed:\n{proc.stderr[-4000:]}")
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        runs.append(row)
        if log:
            log(f"  {impl:16s} n={n:>7,} run {i + 1}/{repeat}: wall {row['wall_s']:.3f} s "
                f"(CPU {row['cpu_s']:.3f} s), "
                f"{row['events']:,} events, peak {row['peak_rss_mb']:.0f} MB"
                f"{'' if row['ok'] else '  CHECKS FAILED: ' + json.dumps(row['checks'])}")
    if len({json.dumps([r["requests"], r["timer_events"]], sort_keys=True)
            for r in runs}) != 1:
        raise RuntimeError(f"{impl} n={n}: event counts differ between repeats")
    med = dict(runs[0])
    for key in ("wall_s", "cpu_s", "setup_s", "gc_s", "peak_rss_mb", "baseline_rss_mb"):
        med[key] = statistics.median(r[key] for r in runs)
    med["wall_s_runs"] = [r["wall_s"] for r in runs]
    med["events_per_s"] = round(med["events"] / med["wall_s"])
    med["events_per_cpu_s"] = round(med["events"] / med["cpu_s"])
    med["ok"] = all(r["ok"] for r in runs)
    med["repeat"] = repeat
    return med


def run_suite(*, quick=False, repeat=3, impls=DEFAULT_IMPLS, ns=None, python=None,
              log=print):
    ns = ns or (QUICK_NS if quick else NS)
    rows = []
    for n in ns:
        for impl in impls:
            rows.append(measure(impl, n, repeat=repeat, python=python, log=log))
        # The request counts must agree across implementations.
        reqs = {json.dumps(r["requests"], sort_keys=True) for r in rows if r["n"] == n}
        if len(reqs) != 1:
            raise RuntimeError(f"n={n}: request counts differ between implementations: "
                               f"{reqs}")
    return rows


def _fmt_int(x):
    return "" if x is None else f"{x:,}"


def _ratio(r, base):
    if not base:
        return ""
    return (f"{r['events_per_s'] / base['events_per_s']:.2f}x "
            f"({base['wall_s'] / r['wall_s']:.2f}x)")


def _cpu_ratio(r, base):
    """Events per CPU second over the baseline's: what other load on the machine leaves alone."""
    if not base:
        return ""
    return f"{r['events_per_cpu_s'] / base['events_per_cpu_s']:.2f}x"


def markdown(rows, info, repeat):
    by_n = {}
    for r in rows:
        by_n.setdefault(r["n"], {})[r["impl"]] = r
    lines = [
        f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), "
        f"Python {info['python']}, SimPy {info['simpy']}, {info['os']}. "
        f"Median of {repeat} runs, each in a fresh process. CPU s is the run's own CPU time "
        f"(`time.process_time`), which other load on the machine does not inflate as it does wall s: "
        f"on a loaded machine compare the CPU ratios.",
        "",
        "| implementation | N | events (requests + timers) | engine events | setup s "
        "| wall s | CPU s | of which GC s | events/s | peak RSS MB (after imports) "
        "| vs simpy: events/s (wall) | vs simpy: events per CPU s "
        "| vs simpy-deadline: events/s (wall) | vs simpy-deadline: events per CPU s | checks |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for n, impls in by_n.items():
        for impl, r in impls.items():
            req = sum(r["requests"].values())
            tim = sum(r["timer_events"].values())
            lines.append(
                f"| {impl} | {n:,} | {r['events']:,} ({req:,} + {tim:,}) "
                f"| {_fmt_int(r['engine_events'])} | {r['setup_s']:.3f} "
                f"| {r['wall_s']:.3f} | {r['cpu_s']:.3f} | {r['gc_s']:.2f} | {r['events_per_s']:,} "
                f"| {r['peak_rss_mb']:.0f} ({r['baseline_rss_mb']:.0f}) "
                f"| {_ratio(r, impls.get(BASELINE))} | {_cpu_ratio(r, impls.get(BASELINE))} "
                f"| {_ratio(r, impls.get('simpy-deadline'))} | {_cpu_ratio(r, impls.get('simpy-deadline'))} "
                f"| {'ok' if r['ok'] else 'FAILED'} |")
    return "\n".join(lines)


def targets(rows):
    """The issue's targets, evaluated on the kafkasim (batch) rows."""
    out = []
    by = {(r["impl"], r["n"]): r for r in rows}
    for (impl, n), r in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if impl != "kafkasim":
            continue
        base = by.get((BASELINE, n))
        if base:
            ratio = r["events_per_s"] / base["events_per_s"]
            cpu = r["events_per_cpu_s"] / base["events_per_cpu_s"]
            out.append(f"- N={n:,}: kafkasim events/s = {ratio:.2f}x SimPy's on wall time, {cpu:.2f}x on CPU time "
                       f"(target >= 3x): {'met' if min(ratio, cpu) >= 3 else 'NOT met'}")
        if n == 100_000:
            out.append(f"- N=100,000: wall {r['wall_s']:.2f} s (target < 10 s): "
                       f"{'met' if r['wall_s'] < 10 else 'NOT met'}; peak RSS "
                       f"{r['peak_rss_mb']:.0f} MB (target < 2048 MB): "
                       f"{'met' if r['peak_rss_mb'] < 2048 else 'NOT met'}")
    return "\n".join(out)


def report(rows, info, repeat):
    return markdown(rows, info, repeat) + "\n\nTargets:\n\n" + targets(rows) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--impl", choices=IMPLS, help="run one measurement in this process "
                    "and print it as one JSON line")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="suite: N = 1,000 and 10,000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--impls", default=",".join(DEFAULT_IMPLS),
                    help="suite: comma-separated implementations")
    ap.add_argument("--ns", help="suite: comma-separated N values")
    args = ap.parse_args(argv)
    if args.impl:
        print(json.dumps(run_one(args.impl, args.n, args.seed)))
        return 0
    ns = tuple(int(x) for x in args.ns.split(",")) if args.ns else None
    rows = run_suite(quick=args.quick, repeat=args.repeat, ns=ns,
                     impls=tuple(args.impls.split(",")),
                     log=lambda s: print(s, file=sys.stderr))
    print(report(rows, machine_info(), args.repeat))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
