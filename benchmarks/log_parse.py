"""Broker-log parsing throughput: lines per second on a synthetic log of at least 1 GB.

The log (generated once into /tmp, never into the repository) mixes, per block of about 8 MB:
the group coordinator's lines of simulated runs in three Kafka wordings (0.10.0, 2.4, 3.7; a
run with repeated GC pauses, so rebalances, removals and rejoins), the same lines behind
container prefixes (docker compose, Kubernetes CRI), a few wrapped and cut lines, and other
loggers' lines (ReplicaManager, Log, ...) in between, as a real server.log has. Each block
shifts the dates by one day so that time keeps increasing.

Three measurements, each in a fresh process, on the same file:

``python``     `kafkasim.analysis.logs.parse_file` in one process, then the same Parquet output
               (what `kafkasim logs --no-spark` does; no Spark, no Java).
``local[1]``   `kafkasim.analysis.spark.parse_broker_logs` on one core (32 MB chunks).
``local[2]``   the same on two cores.

    .venv/bin/python benchmarks/log_parse.py                        # all three, Markdown
    .venv/bin/python benchmarks/log_parse.py --size-gb 0.2          # a smaller log
    .venv/bin/python benchmarks/log_parse.py --mode python          # one, a JSON line

Wall time excludes starting Spark (reported apart) and includes writing the Parquet output
(events and unparsed lines).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from measure import machine_info  # noqa: E402
from measure import in_fresh_process  # noqa: E402

NAME = "log_parse"
MODES = ("python", "local[1]", "local[2]")
WORK = "/tmp/kafkasim-bench"
NOISE = [
    "INFO [ReplicaManager broker=0] Shrinking ISR for partition orders-3 from 0,1,2 to 0 (kafka.cluster.Partition)",
    "INFO [Log partition=orders-7, dir=/var/lib/kafka/data] Rolled new log segment at offset 81273 in 2 ms. "
    "(kafka.log.Log)",
    "INFO [ProducerStateManager partition=orders-7] Wrote producer snapshot at offset 81273 with 0 producer ids "
    "in 1 ms. (kafka.log.ProducerStateManager)",
    "INFO [GroupMetadataManager brokerId=0] Removed 0 expired offsets in 0 milliseconds. "
    "(kafka.coordinator.group.GroupMetadataManager)",
    "INFO [Partition orders-5 broker=0] ISR updated to 0,1,2 and version updated to 14 (kafka.cluster.Partition)",
    "WARN [ReplicaFetcher replicaId=0, leaderId=2, fetcherId=0] Error in response for fetch request "
    "(kafka.server.ReplicaFetcherThread)",
    "INFO [LocalLog partition=__consumer_offsets-24, dir=/var/lib/kafka/data] Deleting segment files "
    "LogSegment(baseOffset=0, size=1822, lastModifiedTime=1709669474681, largestRecordTimestamp=None) "
    "(kafka.log.LocalLog$)",
    "INFO [Controller id=0] Processing automatic preferred replica leader election (kafka.controller.KafkaController)",
]


def _coordinator_lines() -> list[str]:
    from kafkasim import Scenario, simulate
    from kafkasim import faults as F

    lines = []
    for version in ("0.10.0", "2.4", "3.7"):
        faults = tuple(F.Pause(f"c-{1 + i % 6}", 30_000 + 45_000 * i, 15_000) for i in range(12))
        run = simulate(Scenario(kafka_version=version, members=6, duration_ms=600_000, faults=faults,
                                consumer={"session.timeout.ms": 10_000}))
        lines += run.broker_log
    return lines


def _block(rng: random.Random, coordinator: list[str], target_bytes: int) -> str:
    """About `target_bytes` of lines dated 2026-01-01 (shifted per block by the writer)."""
    out, size = [], 0
    stamp = "[2026-01-01 00:00:00,000] "
    while size < target_bytes:
        for line in coordinator:
            for _ in range(rng.randrange(3)):
                noise = stamp[:-1].replace("00:00:00,000", line[12:24]) + " " + rng.choice(NOISE)
                out.append(noise)
            roll = rng.random()
            if roll < 0.05:
                line = "kafka-1  | " + line
            elif roll < 0.10:
                line = f"{line[1:11]}T{line[12:24].replace(',', '.')}000000Z stdout F {line}"
            elif roll < 0.105 and len(line) > 160:
                out.append(line[:100])
                line = line[100:]
            elif roll < 0.11:
                line = line[:rng.randrange(60, len(line))]
            out.append(line)
        size = sum(map(len, out)) + len(out)
    return "\n".join(out) + "\n"


def make_log(path: str, size_gb: float) -> dict:
    """Write the synthetic log (kept and reused when it is already large enough)."""
    target = int(size_gb * (1 << 30))
    if os.path.exists(path) and os.path.getsize(path) >= target:
        return {"bytes": os.path.getsize(path), "generated_s": 0.0}
    start = time.perf_counter()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rng = random.Random(7)
    block = _block(rng, _coordinator_lines(), 8 << 20)
    written, day = 0, 0
    from datetime import date, timedelta
    with open(path + ".tmp", "w") as f:
        while written < target:
            d = (date(2026, 1, 1) + timedelta(days=day)).isoformat()
            text = block.replace("2026-01-01", d)
            f.write(text)
            written += len(text)
            day += 1
    os.replace(path + ".tmp", path)
    return {"bytes": os.path.getsize(path), "generated_s": time.perf_counter() - start}


def run_mode(mode: str, path: str) -> dict:
    size = os.path.getsize(path)
    out = os.path.join(WORK, f"out-{mode.replace('[', '').replace(']', '')}")
    shutil.rmtree(out, ignore_errors=True)
    session_s = 0.0
    if mode == "python":  # what `kafkasim logs --no-spark` does
        import pyarrow.parquet as pq

        from kafkasim.analysis.logs import parse_file

        start = time.perf_counter()
        result = parse_file(path)
        os.makedirs(out)
        pq.write_table(result.events_table(), os.path.join(out, "events.parquet"))
        pq.write_table(result.unparsed_table(), os.path.join(out, "unparsed.parquet"))
        wall = time.perf_counter() - start
        counts, tasks = result.counts, 1
    else:
        from kafkasim.analysis import spark as ks

        start = time.perf_counter()
        spark = ks.session(mode)
        spark.range(1).collect()
        session_s = time.perf_counter() - start
        parsed = ks.parse_broker_logs(spark, [path], out)
        wall, counts, tasks = parsed.seconds, parsed.counts, parsed.tasks
        spark.stop()
    shutil.rmtree(out, ignore_errors=True)
    return {"benchmark": NAME, "mode": mode, "bytes": size, "tasks": tasks, "wall_s": wall, "session_s": session_s,
            "lines": counts["lines"], "coordinator": counts["coordinator"], "events": counts["events"],
            "unparsed": counts["unparsed"], "joined": counts["joined"], "lines_per_s": counts["lines"] / wall,
            "mb_per_s": size / wall / (1 << 20), "ok": counts["lines"] > 0}


def run_suite(*, quick=False, repeat=1, python=None, log=print, size_gb=None):
    python = python or sys.executable
    size_gb = size_gb or (0.2 if quick else 1.0)
    path = os.path.join(WORK, f"server-{size_gb:g}gb.log")
    made = make_log(path, size_gb)
    log(f"  log: {path}, {made['bytes'] / (1 << 30):.2f} GB" +
        (f" (generated in {made['generated_s']:.0f} s)" if made["generated_s"] else " (reused)"))
    rows = []
    for mode in MODES:
        row = in_fresh_process(python, __file__, "--mode", mode, "--path", path)
        log(f"  {mode}: {row['wall_s']:.1f} s, {row['lines_per_s']:,.0f} lines/s")
        rows.append(row)
    return rows


def report(rows, info, repeat):
    by = {r["mode"]: r for r in rows}
    base = by.get("python")
    r0 = rows[0]
    lines = [f"Measured {info['date']} on {info['cpus']} cores ({info['cpu_model']}), Python {info['python']}, "
             f"{info['os']}. Each mode in a fresh process, one run each.", "",
             f"Log: {r0['bytes'] / (1 << 30):.2f} GB, {r0['lines']:,} lines, {r0['coordinator']:,} of them the group "
             f"coordinator's, {r0['events']:,} events, {r0['unparsed']:,} lines kept aside (cut lines), "
             f"{r0['joined']:,} wrapped lines joined.", "",
             "| mode | tasks | wall s | lines/s | MB/s | vs python | Spark start s |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        vs = f"{r['lines_per_s'] / base['lines_per_s']:.2f}x" if base else ""
        lines.append(f"| {r['mode']} | {r['tasks']} | {r['wall_s']:.1f} | {r['lines_per_s']:,.0f} | "
                     f"{r['mb_per_s']:.1f} | {vs} | {r['session_s']:.1f} |")
    if "local[1]" in by and "local[2]" in by:
        lines += ["", f"Scaling local[1] -> local[2]: {by['local[2]']['lines_per_s'] / by['local[1]']['lines_per_s']:.2f}x."]
    same = len({(r["lines"], r["events"], r["unparsed"]) for r in rows}) == 1
    lines += [f"Every mode read the same lines, events and unparsed lines: {'yes' if same else 'NO'}."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=MODES, help="measure one mode in this process (one JSON line)")
    ap.add_argument("--path", help="the log to parse (with --mode)")
    ap.add_argument("--size-gb", type=float, default=1.0, help="size of the synthetic log (default 1.0)")
    args = ap.parse_args(argv)
    if args.mode:
        print(json.dumps(run_mode(args.mode, args.path)))
        return 0
    rows = run_suite(size_gb=args.size_gb, log=lambda s: print(s, file=sys.stderr))
    print(report(rows, machine_info(), 1))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
