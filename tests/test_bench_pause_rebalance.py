"""Smoke test of the pause_rebalance benchmark: its workloads run and cover what they claim.
Timings are measured by benchmarks/pause_rebalance.py, never asserted here."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))

import pause_rebalance  # noqa: E402


def test_quick_suite_runs_every_quick_workload():
    rows = pause_rebalance.run_suite(quick=True, repeat=1)
    assert {r["workload"]: r["runs"] for r in rows} == {"one run": 1, "chapter sweep": 35, "C.5 matrix": 14}
    assert "| chapter sweep |" in pause_rebalance.report(rows, pause_rebalance.machine_info(), 1)
