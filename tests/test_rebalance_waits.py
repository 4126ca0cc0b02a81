"""What chapters 03 and 04 teach about slow members, pinned on whole runs: a rebalance waits for
its slowest member, a stuck member leaves by its own poll timer (counted from its last poll()),
and a member removed mid-batch is a zombie whose batch is processed again and whose commitSync()
fails with CommitFailedException (AbstractCoordinator.HeartbeatThread, ConsumerCoordinator
.sendOffsetCommitRequest, GroupCoordinator.onCompleteJoin)."""

from kafkasim import Scenario, faults, simulate
from kafkasim.scenario.workload import LogNormal

BUSY = Scenario(members=3, topics={"orders": 6}, produce_rate_per_s=150, duration_ms=180_000,
                processing_ms=LogNormal(10, 100), seed=5)


def first_stable_after(run, t):
    return min(r[0] for r in run.rows if r[4] == "GroupStable" and r[0] >= t)


def joins_after(run, t, name):
    ids = {mid for mid, n in run.member_names.items() if n == name}
    return [r[0] for r in run.rows if r[1] == "coordinator" and r[4] == "JoinGroup" and r[3] in ids and r[0] >= t]


def test_rebalance_waits_for_the_member_in_a_long_call():
    run = simulate(BUSY.replace(faults=[faults.SlowProcessing("c-2", at_ms=100_000, duration_ms=40_000),
                                        faults.ScaleOut(at_ms=110_000)]))
    stable = first_stable_after(run, 110_000)
    assert 140_000 <= stable < 142_000
    assert joins_after(run, 110_000, "c-1")[0] < 113_000      # the others rejoined within a heartbeat + a batch
    assert joins_after(run, 110_000, "c-2")[0] == stable      # the last JoinGroup completes the join phase
    assert run.summary["removals_by_reason"] == {}


def test_stuck_member_leaves_by_its_poll_timer_before_the_rebalance_timeout():
    run = simulate(BUSY.replace(duration_ms=400_000, consumer={"max.poll.interval.ms": 120_000},
                                faults=[faults.SlowProcessing("c-2", at_ms=60_000, duration_ms=600_000),
                                        faults.ScaleOut(at_ms=110_000)]))
    last_poll = max(r[0] for r in run.rows if r[3] == "c-2" and r[4] in ("Fetched", "Processed") and r[0] <= 60_000)
    stable = first_stable_after(run, 110_000)
    assert stable == last_poll + 120_000 < 110_000 + 120_000
    assert run.summary["removals_by_reason"] == {"poll_timeout": 1}


def test_idle_members_rebalance_without_stopping_anything():
    # No network delay: with nothing in flight, the eager rebalance stops no partition for even 1 ms.
    run = simulate(BUSY.replace(processing_ms=0.1, faults=[faults.ScaleOut(at_ms=60_000)]))
    assert run.summary["rebalances"] == 2 and run.summary["unconsumed_ms"] == 0
    busy = simulate(BUSY.replace(faults=[faults.ScaleOut(at_ms=60_000)]))
    assert busy.summary["unconsumed_ms"] > 0


def test_zombie_batch_is_processed_again_and_its_commit_fails():
    storm = simulate(Scenario(members=6, topics={"orders": 12}, produce_rate_per_s=40, duration_ms=300_000,
                              drain_ms=3_300_000, processing_ms=LogNormal(100, 8000), seed=1,
                              consumer={"enable.auto.commit": False}))
    s = storm.summary
    removed = s["removals_by_reason"]["poll_timeout"]
    assert removed >= 3 and set(s["removals_by_reason"]) == {"poll_timeout"}
    assert s["duplicates"] == 500 * removed == s["duplicates_by_cause"]["poll_timeout"]
    failed = [r for r in storm.rows if r[4] == "CommitFailed"]
    assert len(failed) == removed == s["commit_failures"]
    assert {(r[8], r[9]) for r in failed} == {("UNKNOWN_MEMBER_ID", "CommitFailedException")}
    cured = simulate(storm.scenario.replace(consumer={"max.poll.records": 100}))
    assert cured.summary["removals_by_reason"] == {} and cured.summary["duplicates"] == 0
