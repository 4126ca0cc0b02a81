"""The founding write-up on KIP-62 (a Chinese-language note on Kafka rebalances),
reproduced as chapter 02 does: a consumer whose batches outlast session.timeout.ms is removed
again and again under Kafka 0.10.0 (heartbeats only from inside poll()), and never under 0.10.1
(background heartbeat thread); and the two workarounds of the 0.10.0 era, with their price."""

import pytest

from kafkasim import Scenario, faults, simulate
from kafkasim.core.errors import ConfigError

BATCH_MS = 500 * 100  # max.poll.records x 100 ms per record


def backlog(version: str, **consumer) -> Scenario:
    """40 records/s for 5 minutes against 3 x 10 records/s: every poll() returns 500 records (50 s of work)."""
    return Scenario(kafka_version=version, members=3, topics={"orders": 6}, produce_rate_per_s=40,
                    duration_ms=300_000, drain_ms=300_000, processing_ms=100, seed=7,
                    consumer={"session.timeout.ms": 30_000, "max.poll.records": 500, **consumer})


def test_batches_longer_than_the_session_churn_without_progress_before_kip62():
    s = simulate(backlog("0.10.0")).summary
    assert s["removals_by_reason"]["session_timeout"] > 10 and set(s["removals_by_reason"]) == {"session_timeout"}
    assert s["commit_failures"] > 0 and s["duplicates_by_cause"].get("session_timeout", 0) > 0
    assert s["unprocessed_at_end"] > 0  # five minutes after production stopped: never caught up


def test_the_same_workload_is_stable_with_the_heartbeat_thread():
    s = simulate(backlog("0.10.1")).summary
    assert s["removals_by_reason"] == {} and s["commit_failures"] == 0 and s["duplicates"] == 0
    assert s["unprocessed_at_end"] == 0


@pytest.mark.parametrize("session_ms,stable", [(45_000, False), (55_000, True)])
def test_workaround_1_a_session_timeout_longer_than_a_batch(session_ms, stable):
    run = simulate(backlog("0.10.0", **{"session.timeout.ms": session_ms, "request.timeout.ms": session_ms + 10_000}))
    assert (run.summary["removals_by_reason"] == {}) is stable
    assert stable is (session_ms > BATCH_MS)


def test_workaround_1_needs_request_timeout_above_session_timeout_in_0_10_0():
    with pytest.raises(ConfigError, match="request.timeout.ms should be greater than session.timeout.ms"):
        backlog("0.10.0", **{"session.timeout.ms": 45_000})


def test_workaround_2_smaller_batches():
    assert simulate(backlog("0.10.0", **{"max.poll.records": 250})).summary["removals_by_reason"] == {}


def test_the_price_of_workaround_1_is_slower_crash_detection():
    def detection(consumer):
        run = simulate(Scenario(kafka_version="0.10.0", members=3, topics={"orders": 6}, produce_rate_per_s=300,
                                duration_ms=240_000, seed=7, consumer=consumer,
                                faults=[faults.Crash("c-2", at_ms=120_000)]))
        [t] = [r[0] for r in run.rows if r[4] == "MemberRemoved"]
        return t - 120_000

    default, longer = detection({}), detection({"session.timeout.ms": 55_000, "request.timeout.ms": 65_000})
    assert 30_000 - 3_000 <= default <= 30_000 and 55_000 - 3_000 <= longer <= 55_000
