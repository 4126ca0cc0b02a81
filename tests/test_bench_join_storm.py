"""Smoke test of the join-storm benchmark: both models run the same scenario correctly.

Small N and in-process, so it takes well under a second; the timed runs live in
benchmarks/run_all.py (`make bench`).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "benchmarks"))

import join_storm  # noqa: E402

N = 40


@pytest.mark.parametrize("impl", join_storm.IMPLS)
def test_join_storm_runs_the_scenario(impl):
    row = join_storm.run_one(impl, N)
    assert row["checks"] == {k: True for k in row["checks"]}, row
    assert row["requests"] == {"join_group": 2 * N, "sync_group": N, "heartbeat": 20 * N}
    assert row["stable_at_ms"] == 6000  # 3000 ms initial delay, extended once (KIP-134)
    assert row["end_ms"] == 66000


def test_simpy_deadline_and_kafkasim_count_the_same_timer_firings():
    # Both keep a session deadline and check it when the timer fires.
    a = join_storm.run_one("simpy-deadline", N)
    b = join_storm.run_one("kafkasim", N)
    assert a["events"] == b["events"]
