"""The KIP-848 join-storm benchmark runs the scenario it describes: small N, in-process; the timed
runs live in benchmarks/run_all.py (`make bench`)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))

import kip848_storm  # noqa: E402

N = 40


@pytest.mark.parametrize("version, assignments, epoch, interval", [("4.2", N, N, 0), ("4.3", 2, N + 1, 1000)])
def test_the_consumer_protocol_storm(version, assignments, epoch, interval):
    """N joins at t = 0 (N epoch bumps), then two heartbeat rounds: at 5 s every member reaches
    the last epoch and takes what is free, at 10 s the rest; one assignor run per join with 4.2's
    defaults, two in all with 4.3's (its 1000 ms group.consumer.assignment.interval.ms, KIP-1263:
    t = 0, then the first heartbeat of the round at 5 s). A 4.3 group starts at epoch 1
    (KAFKA-20268): N joins end at N + 1."""
    row = kip848_storm.run_one("consumer", N, version)
    assert row["checks"] == {k: True for k in row["checks"]}, row
    assert (row["requests"], row["timer_events"], row["group_epoch"], row["stable_at_ms"]) == (3 * N, 0, epoch, 10_000)
    assert (row["assignments"], row["interval_ms"], row["version"]) == (assignments, interval, version)


def test_the_classic_storm_until_stable():
    row = kip848_storm.run_one("classic", N)
    assert row["checks"] == {k: True for k in row["checks"]}, row
    # 2N JoinGroup (KIP-394) + N SyncGroup; the initial delayed join's timer, extended once (KIP-134)
    assert (row["requests"], row["timer_events"], row["stable_at_ms"]) == (3 * N, 2, 6000)


def test_the_report_says_whether_the_targets_are_met():
    rows = [kip848_storm.run_one("consumer", N, "4.3"), kip848_storm.run_one("consumer", N, "4.2"), {
        "case": "chapter-default", "benchmark": "kip848_storm", "median_ms": {"consumer": 31.0, "classic": 26.0},
        "median_cpu_ms": {"consumer": 30.0, "classic": 25.5}, "ok": True, "load_avg": 1.5}]
    info = {"date": "today", "cpus": 2, "cpu_model": "x", "python": "3.11", "os": "L"}
    text = kip848_storm.report(rows, info, 1)
    assert f"| consumer | 4.3 (interval 1000 ms) | {N} |" in text and f"| consumer | 4.2 (every join) | {N} |" in text
    assert f"| {N + 1} | 2 | ok |" in text and f"| {N} | {N} | ok |" in text
    assert ("consumer protocol 31.0 ms (30.0 ms CPU), classic 26.0 ms (25.5 ms CPU) (target under 50 ms: met)"
            in text)
    assert "The machine was shared: load average " in text
    rows[-1]["median_ms"]["consumer"] = 220.0  # a loaded machine: wall over target, own CPU time under it
    assert "(target under 50 ms: met on CPU time, not on wall time on the loaded machine)" in \
        kip848_storm.report(rows, info, 1)
    rows[-1]["median_cpu_ms"]["consumer"] = 60.0
    assert "(target under 50 ms: NOT met)" in kip848_storm.report(rows, info, 1)
