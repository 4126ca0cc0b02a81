"""Smoke test of the broker-memory benchmark: every scenario it times exists and one runs.

In-process and small, so it takes a fraction of a second; the timed runs live in
benchmarks/broker_memory.py (`make bench`).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import broker_memory  # noqa: E402


def test_benchmark_scenarios_and_one_row():
    names = broker_memory.scenarios()
    assert broker_memory.TYPICAL in names and "default" in names
    row = broker_memory.run_one("both_bounds/large requests", repeat=1)
    assert row["requests_sent"] >= row["requests_completed"] > 0 and len(row["runs_ms"]) == 1
    text = broker_memory.report([row], broker_memory.machine_info(), 1)
    assert "both_bounds/large requests" in text
