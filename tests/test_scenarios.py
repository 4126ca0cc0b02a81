"""Consumer-group behaviour a Kafka engineer would recognise, and the accounting invariants,
on whole simulated runs (ConsumerCoordinator.java, AbstractCoordinator.java, KafkaConsumer.java)."""

from collections import defaultdict

import pytest

from kafkasim import Scenario, faults, simulate
from kafkasim.core.errors import ConfigError
from kafkasim.scenario.workload import LogNormal


def small(**kw) -> Scenario:
    base = dict(members=3, topics={"orders": 6}, produce_rate_per_s=300, duration_ms=240_000, drain_ms=60_000,
                processing_ms=2, seed=3)
    base.update(kw)
    return Scenario(**base)


def removed_at(run, name, reason):
    ids = {mid for mid, n in run.member_names.items() if n == name}
    return [r[0] for r in run.rows if r[4] == "MemberRemoved" and r[3] in ids and r[9] == reason]


def heartbeats_of(run, name):
    ids = {mid for mid, n in run.member_names.items() if n == name}
    return [r[0] for r in run.rows if r[1] == "coordinator" and r[4] == "Heartbeat" and r[3] in ids]


# -- liveness, both eras ---------------------------------------------------------------------
def test_kip62_stuck_member_is_removed_by_poll_timeout_while_heartbeats_continue():
    run = simulate(small(kafka_version="3.7", faults=[faults.SlowProcessing("c-2", at_ms=60_000, duration_ms=400_000)],
                         duration_ms=600_000))
    [t] = removed_at(run, "c-2", "poll_timeout")
    # c-2 keeps up: its last batch before the stall ended at 59.647 s and it waits inside poll() for
    # records, which resets the poll timer on every pass; the stuck call starts when poll() returns.
    last = [r[4] for r in run.rows if r[3] == "c-2" and r[4] in ("Fetched", "Processed") and 59_000 <= r[0] <= 60_000]
    assert last == ["Fetched", "Processed"]
    assert t == 60_000 + 300_000  # max.poll.interval.ms (3.7 default) after the stall began
    assert run.summary["duplicates_by_cause"].keys() <= {"poll_timeout"}
    beats = [b for b in heartbeats_of(run, "c-2") if b <= t]
    assert beats and t - max(beats) <= 3000  # the heartbeat thread kept the session alive until then
    assert not removed_at(run, "c-2", "session_timeout")
    assert run.summary["duplicates"] > 0 and run.summary["commit_failures"] >= 0


def test_pre_kip62_member_processing_longer_than_session_timeout_is_removed_by_session_timeout():
    run = simulate(small(kafka_version="0.10.0", faults=[faults.SlowProcessing("c-2", at_ms=60_000, duration_ms=40_000)]))
    [t] = removed_at(run, "c-2", "session_timeout")
    assert 60_000 + 30_000 - 3_000 - 1_000 <= t <= 60_000 + 30_000  # session.timeout.ms 30000 in 0.10.0
    # The same stall with 0.10.1 semantics is harmless: the heartbeat thread keeps it alive.
    run2 = simulate(small(kafka_version="0.10.1", faults=[faults.SlowProcessing("c-2", at_ms=60_000, duration_ms=40_000)]))
    assert run2.summary["removals_by_reason"] == {}


@pytest.mark.parametrize("version,session", [("0.10.0", 30_000), ("2.8", 10_000), ("3.7", 45_000)])
def test_crashed_member_is_removed_after_session_timeout(version, session):
    run = simulate(small(kafka_version=version, faults=[faults.Crash("c-1", at_ms=100_000)]))
    [t] = removed_at(run, "c-1", "session_timeout")
    assert 100_000 + session - 3_000 - 1_000 <= t <= 100_000 + session


@pytest.mark.parametrize("pause_ms,removed", [(50_000, True), (20_000, False)])
def test_gc_pause_removes_member_only_when_longer_than_session_timeout(pause_ms, removed):
    run = simulate(small(kafka_version="3.7", faults=[faults.Pause("c-3", at_ms=90_000, duration_ms=pause_ms)]))
    assert bool(removed_at(run, "c-3", "session_timeout")) is removed
    if removed:  # removed, then back as a new member: two more rebalances
        assert run.summary["rebalances"] == 3
    else:
        assert run.summary["rebalances"] == 1


def test_static_member_restart_within_session_timeout_causes_no_rebalance():
    dynamic = simulate(small(faults=[faults.Restart("c-2", at_ms=100_000, delay_ms=10_000)]))
    static = simulate(small(static_membership=True, faults=[faults.Restart("c-2", at_ms=100_000, delay_ms=10_000)]))
    assert static.summary["rebalances"] == 1  # only the initial one
    assert dynamic.summary["rebalances"] > 1
    assert any("Static member with groupInstanceId=c-2" in line and "Replacing previously mapped member" in line
               for line in static.broker_log)


def test_cooperative_keeps_unaffected_partitions_consumed_while_eager_stops_all():
    trace = [faults.ScaleOut(at_ms=120_000)]
    # Members learn of the rebalance at the same heartbeat; each rejoins when its current batch ends,
    # so batches long and varied enough to be in flight make the early rejoiners wait (eager).
    varied = LogNormal(median_ms=4, p99_ms=40)
    eager = simulate(small(faults=trace, processing_ms=varied, consumer={"partition.assignment.strategy": ["range"]}))
    coop = simulate(small(faults=trace, processing_ms=varied,
                          consumer={"partition.assignment.strategy": ["cooperative-sticky"]}))
    assert eager.summary["rebalances"] == 2      # initial + scale out
    assert coop.summary["rebalances"] == 3       # initial + two for the scale out (KIP-429)

    def revoked(run):
        return {r[7] for r in run.rows if r[4] == "PartitionsRevoked" and r[6] is not None and r[0] >= 120_000}

    # Eager: every old member gives up everything; those that rejoin first wait for the last.
    assert revoked(eager) == set(range(6))
    gaps = eager.unconsumed()
    assert len(set(gaps[gaps.start >= 120_000].partition)) >= 2 and eager.summary["partition_downtime_ms"] > 0
    # Cooperative: only the partition that moves to the new member stops; the others never do.
    gaps = coop.unconsumed()
    stopped = set(gaps[gaps.start >= 120_000].partition)
    assert stopped == revoked(coop) and len(stopped) == 1


def test_eager_revokes_with_an_empty_set_and_cooperative_assigns_with_an_empty_set():
    run = simulate(small(members=8, faults=[faults.ScaleOut(at_ms=60_000)]))  # 8 > 6 partitions: idle members
    idle = [r for r in run.rows if r[4] == "PartitionsAssigned" and r[10] == 0]
    assert idle, "onPartitionsAssigned is called even with nothing"


def test_rebalance_storm_of_slow_batches_and_its_cure():
    slow = LogNormal(median_ms=40, p99_ms=2000)
    storm = simulate(small(processing_ms=slow, duration_ms=600_000, consumer={"max.poll.interval.ms": 10_000}))
    cured = simulate(small(processing_ms=slow, duration_ms=600_000,
                           consumer={"max.poll.interval.ms": 10_000, "max.poll.records": 20}))
    assert storm.summary["removals_by_reason"].get("poll_timeout", 0) > 0
    assert cured.summary["removals_by_reason"].get("poll_timeout", 0) < storm.summary["removals_by_reason"]["poll_timeout"]
    assert storm.summary["duplicates"] > cured.summary["duplicates"]


# -- invariants on every scenario ---------------------------------------------------------------
SCENARIOS = {
    "healthy": small(),
    "crash": small(faults=[faults.Crash("c-1", at_ms=50_000)]),
    "restart": small(faults=[faults.Restart("c-1", at_ms=50_000, delay_ms=20_000)]),
    "gc": small(faults=[faults.Pause("c-2", at_ms=50_000, duration_ms=60_000)]),
    "stall": small(faults=[faults.SlowProcessing("c-2", at_ms=50_000, duration_ms=100_000)],
                   consumer={"max.poll.interval.ms": 30_000}),
    "cut": small(faults=[faults.NetworkCut("c-3", at_ms=50_000, duration_ms=60_000)]),
    "scale": small(faults=[faults.ScaleOut(at_ms=40_000, count=2), faults.ScaleIn(at_ms=120_000, members=("c-1",))]),
    "cooperative-scale-out": small(consumer={"partition.assignment.strategy": ["cooperative-sticky"]},
                                   faults=[faults.ScaleOut(at_ms=120_000)]),
    "cooperative": small(consumer={"partition.assignment.strategy": ["cooperative-sticky"]},
                         faults=[faults.ScaleOut(at_ms=40_000), faults.Crash("c-2", at_ms=100_000)]),
    "sync-commit": small(consumer={"enable.auto.commit": False}, faults=[faults.Crash("c-1", at_ms=50_000)]),
    "old-0.10.0": small(kafka_version="0.10.0", faults=[faults.SlowProcessing("c-1", at_ms=50_000, duration_ms=35_000)]),
    "static": small(static_membership=True, faults=[faults.Pause("c-1", at_ms=50_000, duration_ms=50_000)]),
    "lognormal": small(processing_ms=LogNormal(3, 80), consumer={"max.poll.records": 100}),
}


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def any_run(request):
    return simulate(SCENARIOS[request.param])


def test_every_produced_record_is_processed(any_run):
    s = any_run.summary
    assert s["records_produced"] > 0
    assert s["unprocessed_at_end"] == 0


def test_duplicates_equal_records_processed_more_than_once(any_run):
    s = any_run.summary
    unique = s["records_produced"] - s["unprocessed_at_end"]
    assert s["records_processed"] - unique == s["duplicates"] == sum(s["duplicates_by_cause"].values())


def test_no_partition_has_two_owners_within_a_generation(any_run):
    owners = defaultdict(set)
    for r in any_run.rows:
        if r[1] == "consumer" and r[4] == "PartitionsAssigned" and r[6] is not None:
            owners[(r[5], r[6], r[7])].add(r[3])
    assert owners and all(len(m) == 1 for m in owners.values())


def test_generations_never_decrease(any_run):
    gens = [r[5] for r in any_run.rows if r[1] == "coordinator" and r[4] in ("GenerationStabilized", "GroupEmpty")]
    assert gens == sorted(gens) and len(set(gens)) == len(gens)


def test_same_scenario_same_events_byte_for_byte():
    sc = SCENARIOS["cooperative"]
    a, b = simulate(sc), simulate(sc)
    assert a.rows == b.rows and a.broker_log == b.broker_log
    assert a.events.to_csv() == b.events.to_csv()
    assert simulate(sc.replace(seed=99)).broker_log != a.broker_log


# -- the Run API ---------------------------------------------------------------------------
def test_run_api(tmp_path):
    import pyarrow.parquet as pq

    sc = small(faults=[faults.Pause("c-2", at_ms=120_000, duration_ms=60_000)])
    run = simulate(sc)
    assert run.scenario is sc
    assert {"time", "source", "group", "member", "kind", "generation", "partition", "error", "reason",
            "value"} <= set(run.events.columns)
    assert set(run.summary) >= {"rebalances", "generations", "unconsumed_ms", "removals", "records_processed",
                                "duplicates", "max_lag", "mean_lag", "latency_ms"}
    assert run.broker_log and all(line.startswith("[2026-01-01 ") for line in run.broker_log)
    states = run.member_states()
    assert set(states["state"]) >= {"joining", "consuming", "processing", "paused"}
    assert (states["end"] > states["start"]).all()
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    table = pq.read_table(path)
    assert table.num_rows == len(run.events)
    assert b"kafkasim.scenario" in table.schema.metadata


@pytest.mark.parametrize("kwargs,fragment", [
    ({"consumer": {"session.timeout.msx": 1}}, "did you mean 'session.timeout.ms'"),
    ({"consumer": {"max.poll.records": 0}}, "max.poll.records"),
    ({"members": 0}, "members must be an integer >= 1"),
    ({"topics": {}}, "topics must map"),
    ({"faults": ["crash"]}, "faults must be kafkasim.core.faults"),
    ({"kafka_version": "2.2", "static_membership": True}, "needs Kafka 2.3"),
])
def test_bad_scenarios_get_clear_errors(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        small(**kwargs)


def test_replace_merges_consumer_and_broker_configs_into_the_existing_ones_and_sets_other_fields():
    """`Scenario.replace`: configs add to the scenario's (a later value wins), any other field is replaced."""
    sc = Scenario(consumer={"session.timeout.ms": 10_000, "max.poll.records": 100},
                  broker={"group.min.session.timeout.ms": 3_000}, members=2)
    changed = sc.replace(consumer={"max.poll.records": 50}, broker={"group.max.session.timeout.ms": 60_000},
                         members=4)
    assert changed.consumer == {"session.timeout.ms": 10_000, "max.poll.records": 50}
    assert changed.broker == {"group.min.session.timeout.ms": 3_000, "group.max.session.timeout.ms": 60_000}
    assert changed.members == 4
    assert sc.consumer == {"session.timeout.ms": 10_000, "max.poll.records": 100} and sc.members == 2  # a copy


def test_fault_on_unknown_member_is_a_clear_error():
    with pytest.raises(ConfigError, match="members are c-1, c-2, c-3"):
        simulate(small(faults=[faults.Crash("c-9", at_ms=10)]))


# -- broker configs reach the coordinator --------------------------------------------------------
def _targets_and_joins(broker: dict) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """(time, group epoch) of each target computation, the joining heartbeats' times, and the times
    of every heartbeat the coordinator answered, in a 4.3 consumer group of three members."""
    run = simulate(Scenario(kafka_version="4.3", members=3, topics={"orders": 6}, duration_ms=30_000, seed=1,
                            consumer={"group.protocol": "consumer"}, broker=broker))
    rows = [r for r in run.rows if r[1] == "coordinator"]
    beats = [r for r in rows if r[4] == "ConsumerGroupHeartbeat"]
    joins = [r[0] for r in beats if r[10] == 0]  # (time, source, group, member, kind, ..., value: the epoch sent)
    epoch, targets = None, []
    for r in rows:  # the group epoch a computation is for: the last one bumped
        if r[4] == "GroupEpochBumped":
            epoch = r[10]
        elif r[4] == "TargetAssignmentComputed":
            targets.append((r[0], epoch))
    return targets, joins, sorted({r[0] for r in beats})


@pytest.mark.parametrize("interval", [None, 0, 8000, 20_000])
def test_scenario_passes_the_assignment_interval_to_the_coordinator(interval):
    """KIP-1263 (4.3): the first join computes the target at once (epoch 2: a new group starts at
    epoch 1, KAFKA-20268); later joins only bump the epoch; the postponed target is computed by the
    first heartbeat of any member once `group.consumer.assignment.interval.ms` has passed since the
    last computation (no timer). Interval 0 computes on every bump. 20000 is above the default
    maximum (15000): accepted only with `group.consumer.max.assignment.interval.ms` raised, which
    must therefore reach the coordinator too."""
    broker = {} if interval is None else {"group.consumer.assignment.interval.ms": interval}
    if interval == 20_000:
        broker["group.consumer.max.assignment.interval.ms"] = 30_000
    targets, joins, beats = _targets_and_joins(broker)
    assert len(joins) == 3 and joins == sorted(joins) and joins[-1] - joins[0] < 1000  # start_spread_ms
    if interval == 0:
        assert targets == [(joins[0], 2), (joins[1], 3), (joins[2], 4)]
    else:
        wait = 1000 if interval is None else interval  # 4.3's default, or the broker's value
        due = next(t for t in beats if t >= joins[0] + wait)
        assert targets == [(joins[0], 2), (due, 4)]
        # every member heartbeats every 5000 ms from its join: the computation falls on one of those
        assert (due - joins[0]) % 5000 == 0 and due - joins[0] == -(-wait // 5000) * 5000


def test_assignment_interval_bounds_are_checked_for_a_scenario():
    with pytest.raises(ConfigError, match="group.consumer.assignment.interval.ms"):
        Scenario(kafka_version="4.3", consumer={"group.protocol": "consumer"},
                 broker={"group.consumer.assignment.interval.ms": 20_000})
    with pytest.raises(ConfigError, match="does not exist in Kafka 4.2"):
        Scenario(kafka_version="4.2", consumer={"group.protocol": "consumer"},
                 broker={"group.consumer.assignment.interval.ms": 1000})
