"""Rules of the scenario layer (`kafkasim.scenario`) pinned by name (issue 29), from its docstrings:
the processed-offset ranges of a share group (add, overlap, remove at touching ends), a share batch's
latency, a log-normal's parameter checks, mean and samples, a log-normal whose tail is its median, a custom
sampler's values taken as given, production stopping at the run's end, what a scenario's dict keeps,
the default client.id librdkafka gives itself, a share scenario's consumer configs, a share world's
share state initialized at once, and what the event estimate counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kafkasim.core import faults as F
from kafkasim.core.errors import ConfigError
from kafkasim.scenario import Scenario
from kafkasim.scenario.workload import (MAX_PROCESSING_MS, Constant, Custom, LogNormal, Partitions, ProcessingClock,
                                        RangeSet)


def test_a_range_set_merges_adjacent_ranges_and_cuts_a_removed_one_out_of_the_middle():
    r = RangeSet()
    assert r.add(0, 4) == 0 and r.add(5, 9) == 0 and r.ranges() == [(0, 9)]
    assert r.add(8, 12) == 2 and len(r) == 13
    r.remove(3, 5)
    assert r.ranges() == [(0, 2), (6, 12)] and len(r) == 10
    r.remove(0, 12)
    assert r.ranges() == [] and len(r) == 0


def test_a_range_set_merges_a_range_that_touches_the_next_ones_start_and_keeps_a_one_offset_gap():
    """RangeSet.add: ranges are inclusive, adjacent ones merged: 0..4 then 5..9 is one range whichever
    comes first; 0..4 and 6..9 leave offset 5 out, until it is added."""
    touching, gap = RangeSet(), RangeSet()
    assert touching.add(5, 9) == 0 and touching.add(0, 4) == 0 and touching.ranges() == [(0, 9)]
    assert gap.add(6, 9) == 0 and gap.add(0, 4) == 0 and gap.ranges() == [(0, 4), (6, 9)]
    assert gap.add(5, 5) == 0 and gap.ranges() == [(0, 9)]


def test_a_range_sets_overlap_counts_each_held_offset_once_both_ends_included():
    """RangeSet.overlap(first, last): how many of first..last the set holds, summed over every range
    it meets; a range that ends at `first` or starts at `last` shares that one offset."""
    r = RangeSet()
    for first, last in ((0, 1), (3, 4), (7, 9)):
        r.add(first, last)
    assert r.overlap(0, 4) == 2 + 2       # two whole ranges
    assert r.overlap(0, 9) == 2 + 2 + 3   # all three
    assert r.overlap(2, 7) == 2 + 1       # 3..4, and 7 where the last range starts
    assert r.overlap(4, 4) == 1           # where the second range ends
    assert r.overlap(5, 6) == 0           # between two ranges


def test_a_range_set_removes_the_offsets_it_is_told_and_keeps_what_sticks_out_on_either_side():
    """RangeSet.remove(first, last), both included: a range that ends at `first` loses that offset,
    one that starts at `last` loses that one, one that holds first..last inside is cut in two, and
    offsets the set does not hold change nothing."""
    r = RangeSet()
    for first, last in ((2, 5), (10, 15), (20, 29)):
        r.add(first, last)
    r.remove(0, 1)
    assert r.ranges() == [(2, 5), (10, 15), (20, 29)]
    r.remove(5, 10)
    assert r.ranges() == [(2, 4), (11, 15), (20, 29)]
    r.remove(22, 22)
    assert r.ranges() == [(2, 4), (11, 15), (20, 21), (23, 29)]
    r.remove(16, 19)
    assert r.ranges() == [(2, 4), (11, 15), (20, 21), (23, 29)] and len(r) == 3 + 5 + 2 + 7


def test_a_log_normal_needs_a_median_above_0_ms():
    """LogNormal needs 0 < median_ms: a median of 0 ms has no logarithm, so it is refused with the
    ConfigError that names both parameters and their valid range."""
    with pytest.raises(ConfigError) as err:
        LogNormal(median_ms=0, p99_ms=10)
    assert str(err.value) == "LogNormal needs 0 < median_ms <= p99_ms <= 2147483647 ms, got median_ms=0, p99_ms=10"


def test_a_log_normal_whose_mean_is_above_the_longest_processing_time_is_refused_naming_its_tail():
    """A log-normal's mean is median * exp(sigma^2 / 2), sigma = ln(p99 / median) / z_0.99 (2.326):
    above MAX_PROCESSING_MS (Integer.MAX_VALUE ms) its draws overflow. median 2, p99 2e7: sigma =
    ln(1e7) / 2.326 = 6.93, mean = 2 * exp(24.0) = 5.3e10 ms, refused; the message gives the ratio."""
    sigma = math.log(1e7) / 2.3263478740408408
    assert 2 * math.exp(sigma ** 2 / 2) > 5e10
    with pytest.raises(ConfigError) as err:
        LogNormal(median_ms=2, p99_ms=20_000_000)
    assert str(err.value) == (
        "LogNormal(median_ms=2, p99_ms=20000000) has a mean above 2147483647 ms per record "
        "(p99_ms / median_ms = 1e+07): a tail this heavy makes processing times infinite; "
        "bring p99_ms closer to median_ms")


def test_a_log_normals_mean_is_its_median_times_exp_sigma_squared_over_2_up_to_the_longest_time():
    """median 1, p99 1e5: sigma = ln(1e5) / 2.326 = 4.949, mean = exp(12.25) = 2.09e5 ms, accepted;
    a median and p99 both at MAX_PROCESSING_MS (sigma 0) is a mean of exactly the maximum: not above it."""
    sigma = math.log(1e5) / 2.3263478740408408
    tail = LogNormal(median_ms=1, p99_ms=100_000)
    assert tail.sigma == pytest.approx(4.949, abs=1e-3)
    assert tail.mean_ms == pytest.approx(math.exp(sigma ** 2 / 2)) and 2.08e5 < tail.mean_ms < 2.10e5
    assert LogNormal(median_ms=MAX_PROCESSING_MS, p99_ms=MAX_PROCESSING_MS).mean_ms == 2147483647


def test_a_log_normal_samples_n_times_whose_median_p99_and_mean_are_the_ones_it_is_given():
    """LogNormal.sample(rng, n): n draws whose median is median_ms, 99th percentile p99_ms and mean
    median * exp(sigma^2 / 2) (median 4, p99 40: sigma = ln(10) / 2.326 = 0.990, mean 6.52 ms);
    200 001 draws put each within a percent or two (sampling error about 0.3 %, 0.8 %, 0.3 %)."""
    values = LogNormal(median_ms=4, p99_ms=40).sample(np.random.default_rng(0), 200_001)
    assert values.shape == (200_001,)
    assert np.median(values) == pytest.approx(4, rel=0.01)
    assert np.percentile(values, 99) == pytest.approx(40, rel=0.03)
    assert values.mean() == pytest.approx(4 * math.exp((math.log(10) / 2.3263478740408408) ** 2 / 2), rel=0.02)


def test_a_log_normal_whose_p99_is_its_median_is_a_valid_constant_tail():
    """LogNormal needs 0 < median_ms <= p99_ms: equal is allowed."""
    assert LogNormal(median_ms=50, p99_ms=50).sigma == 0


def test_a_custom_sampler_values_are_taken_as_given():
    values = Custom(lambda rng, n: [3.0, 0.0, 7.5][:n]).sample(np.random.default_rng(0), 3)
    assert values.tolist() == [3.0, 0.0, 7.5]


def test_a_custom_sampler_draws_its_n_values_from_the_runs_generator():
    """Custom: `fn(rng, n)` gets the run's numpy Generator and the count asked for, so a seeded run
    draws the same times again."""
    values = Custom(lambda rng, n: rng.exponential(5.0, n)).sample(np.random.default_rng(7), 4)
    assert values.tolist() == np.random.default_rng(7).exponential(5.0, 4).tolist()


@pytest.mark.parametrize("returned", [[1.0, 2.0, 3.0], [1.0], [-1.0, 2.0], [float("nan"), 2.0],
                                      [float("inf"), 2.0], [None, 2.0]])
def test_a_custom_sampler_must_return_n_finite_values_of_at_least_0_ms(returned):
    """Custom.sample refuses anything but n finite values >= 0 (a wrong count, a negative time, NaN,
    infinity, a missing value) with a ConfigError naming the sampler and the count."""
    with pytest.raises(ConfigError, match=r"^custom processing-time sampler 'slow' must return 2 finite values >= 0$"):
        Custom(lambda rng, n: returned, label="slow").sample(np.random.default_rng(0), 2)


def test_production_stops_at_the_runs_end():
    """Partitions.end_offset: production stops at duration_ms (1 record per ms per partition here)."""
    parts = Partitions({"t": 2}, 2000.0, 10_000)
    assert [parts.end_offset(0, t) for t in (0, 4_000, 10_000, 60_000)] == [0, 4_000, 10_000, 10_000]


def test_a_scenarios_dict_names_its_processing_time_and_its_client_log_only_when_set():
    plain, logged = Scenario().to_dict(), Scenario(client_log="java").to_dict()
    assert plain["processing_ms"]["type"] == logged["processing_ms"]["type"]
    assert "client_log" not in plain and logged["client_log"] == "java"


def test_a_librdkafka_consumer_without_client_id_calls_itself_rdkafka():
    """librdkafka's default client.id is "rdkafka" (rdkafka_conf.c), its handle rdkafka#consumer-1."""
    from kafkasim.scenario import simulate
    log = simulate(Scenario(members=1, duration_ms=10_000, client_log="librdkafka")).client_logs["c-1"]
    assert log and all("|rdkafka#consumer-1|" in line for line in log)


def test_a_share_scenario_applies_its_consumer_configs():
    s = Scenario(kafka_version="4.2", group_type="share", consumer={"share.acknowledgement.mode": "explicit"})
    assert s.consumer_config["share.acknowledgement.mode"] == "explicit"


def test_a_batch_counts_as_processed_at_the_time_it_ends_and_a_duplicate_without_cause_is_unknown():
    """Partitions.process: offsets below the high mark are duplicates attributed to cause[i] ("unknown"
    when nothing was recorded); lag at a batch's end time already counts the batch."""
    parts = Partitions({"t": 1}, 1000.0, 10_000)  # 1 record per ms
    parts.process([(0, 0, 100)], 100, 0, 100)
    parts.process([(0, 50, 120)], 70, 100, 170)
    assert parts.duplicates == {"unknown": 50} and parts.hw_total == 120
    assert parts.lag([99, 100, 170]).tolist() == [99, 0, 50]


def test_a_share_batch_keeps_its_offsets_as_ranges_and_counts_a_second_delivery_as_redelivery():
    parts = Partitions({"t": 2}, 2000.0, 10_000)
    parts.process_ranges([(0, 0, 9, 1), (1, 0, 4, 1)], 15, 0, 15)
    parts.process_ranges([(0, 5, 14, 2)], 10, 15, 25)
    assert [d.ranges() for d in parts.done] == [[(0, 14)], [(0, 4)]]
    assert parts.duplicates == {"redelivery": 5} and parts.hw_total == 20


def test_a_share_batchs_latency_runs_from_each_offsets_produce_time_to_when_its_record_is_done():
    """Partitions.process_ranges spreads the batch evenly from `start` to `end` (2 ms a record here)
    over its slices in order, and keeps per slice (records, first latency, last latency): the record
    at offset o of a partition producing r records per ms was produced at o / r ms. Here r = 2; the
    batch's 6 records end at 102, 104, ..., 112: offsets 10..13 of partition 0 end at 102..108
    (produced at 5 and 6.5: latency 97 and 101.5), offsets 20..21 of partition 1 at 110 and 112
    (produced at 10 and 10.5: 100 and 101.5). A classic batch of the same offsets has the same latency."""
    parts = Partitions({"t": 2}, 4000.0, 10_000)
    parts.process_ranges([(0, 10, 13, 1), (1, 20, 21, 1)], 6, 100, 112)
    assert parts.latency == [(4, 97.0, 101.5), (2, 100.0, 101.5)]
    assert parts.hw_total == 6 and parts.progress[-1] == (112, 6)
    classic = Partitions({"t": 2}, 4000.0, 10_000)
    classic.process([(0, 10, 14), (1, 20, 22)], 6, 100, 112)
    assert classic.latency == parts.latency


def test_a_partition_never_consumed_is_one_gap_from_the_start_to_the_end():
    from kafkasim.scenario.run import _gaps
    consumed = {("t", 0): [(0, 10_000), (12_000, 20_000)]}
    assert _gaps(consumed, [("t", 0), ("t", 1)], 5_000, 30_000) == [
        ("t", 0, 10_000, 12_000), ("t", 0, 20_000, 30_000), ("t", 1, 5_000, 30_000)]


def test_the_latency_maximum_is_the_slowest_record_to_a_tenth_of_a_millisecond():
    """_percentiles: each batch spreads evenly between its first and last record's latency."""
    from kafkasim.scenario.run import _percentiles
    assert _percentiles([(4, 1.0, 12.34)])["max"] == 12.3


def test_a_runs_parquet_file_has_the_event_schema_whatever_its_rows_hold(tmp_path):
    """Run.to_parquet writes with `arrow_schema()`: a column that is all null in this run (no topic on
    a rebalance-only run, say) keeps its declared type instead of one inferred from the rows."""
    import pyarrow.parquet as pq

    from kafkasim.core.events import arrow_schema
    from kafkasim.scenario import simulate
    run = simulate(Scenario(members=1, duration_ms=10_000))
    run.to_parquet(tmp_path / "run.parquet")
    assert pq.read_schema(tmp_path / "run.parquet").remove_metadata() == arrow_schema().remove_metadata()


def test_a_share_worlds_coordinator_initializes_the_share_state_at_once():
    """World: the share coordinator answers InitializeShareGroupState at once (no delay), so a member
    whose first heartbeat comes 1 ms after the group was made gets its partitions then. c-1 and c-2
    start at 0; c-1 is frozen for 1 ms, so its heartbeat waits (requeued for 1 before anything else
    happens at 0). c-2's heartbeat at 0 makes the group (epoch 1, new_group), its target empty: `t`'s
    partitions are only initializing (KIP-932, 4.1+). Answered at once, they are initialized when
    c-1's heartbeat at 1 joins (epoch 2, member_joined): the simple assignor spreads both partitions
    over the two members, and c-1 gets its one at 1. c-2 hears of its own at its next heartbeat, 5000.
    A 1 ms answer would come after c-1's heartbeat (queued at 0, before the request): c-1 would get
    nothing at 1, and the partitions would wait for an `initialized` bump at 5000."""
    from kafkasim.scenario import simulate
    run = simulate(Scenario(kafka_version="4.2", group_type="share", members=2, topics={"t": 2}, start_spread_ms=0,
                            produce_rate_per_s=1000, processing_ms=0.5, duration_ms=6000,
                            faults=[F.Pause("c-1", 0, duration_ms=1)]))
    bumps = [(r[0], r[5], r[9]) for r in run.rows if r[4] == "GroupEpochBumped"]
    assert bumps == [(0, 1, "new_group"), (1, 2, "member_joined")]
    assigned = [(r[0], r[3], r[5], r[7]) for r in run.rows if r[4] == "PartitionsAssigned"]
    assert [(t, member, epoch) for t, member, epoch, _ in assigned] == [(1, "c-1", 2), (5000, "c-2", 2)]
    assert sorted(p for *_, p in assigned) == [0, 1]


@pytest.mark.parametrize("at_ms, count, hand", [(0, 4, 12_402), (300_000, 4, 11_642), (600_000, 4, 10_882),
                                                 (900_000, 10_000, 80_854)])
def test_members_a_scale_out_adds_count_in_the_estimate_from_their_start(at_ms, count, hand):
    """estimate_events: members a ScaleOut adds count from their start (none after the run's end), and
    each joins once (about 7 events), so a fault adding many members is refused like a scenario that
    starts with them. Default scenario, 2 members and `count` added: 600 s x 12 partitions x 1.4 =
    10,080; (2 x 600 + count x max(0, 600 - at)) member-seconds x (0.3 + 1000 / 3000 heartbeats);
    (2 + count) x 7 joining. The float sum may fall just under the whole number, which the int truncates."""
    from kafkasim.scenario.world import estimate_events
    estimate = estimate_events(Scenario(members=2, faults=[F.ScaleOut(at_ms, count)]))
    assert estimate in (hand - 1, hand)
    if at_ms == 0:
        assert estimate == estimate_events(Scenario(members=2 + count))


@pytest.mark.parametrize("poll_resolution_ms, hand", [(1000, 1515), (250, 5136)])
def test_a_share_estimate_counts_five_rows_a_poll_and_the_share_heartbeat_interval(poll_resolution_ms, hand):
    """estimate_events, share group: a share consumer writes some 5 rows per poll (Fetched, Processed,
    Acquired, Acknowledged, the write) and heartbeats every group.share.heartbeat.interval.ms (5 s).
    3 members, 6 partitions, 60 s. At a 1 s poll resolution: 60 x 6 x 1.4 = 504; 180 member-seconds x
    (0.3 + 1000 / 5000 + 5) = 990; 3 x 7 joining: 1,515. At 250 ms: 504 x 4 ** 0.75 = 1,425.5;
    180 x (0.3 + 0.2 + 20) = 3,690; 21: 5,136."""
    from kafkasim.scenario.world import estimate_events
    scenario = Scenario(kafka_version="4.2", group_type="share", members=3, topics={"t": 6}, duration_ms=60_000,
                        poll_resolution_ms=poll_resolution_ms)
    assert estimate_events(scenario) in (hand - 1, hand)


def test_a_consumer_protocol_estimate_heartbeats_at_the_brokers_interval_until_the_drain_ends():
    """estimate_events, group.protocol=consumer (KIP-848): the broker's group.consumer.heartbeat.interval.ms
    sets the heartbeats, not the client's heartbeat.interval.ms; the run lasts duration_ms + drain_ms.
    2 members, 60 s + 30 s drain, 10 s heartbeats: 90 x 12 x 1.4 = 1,512; 180 member-seconds x
    (0.3 + 0.1) = 72; 2 x 7 joining: 1,598."""
    from kafkasim.scenario.world import estimate_events
    scenario = Scenario(kafka_version="4.0", members=2, duration_ms=60_000, drain_ms=30_000,
                        consumer={"group.protocol": "consumer"},
                        broker={"group.consumer.heartbeat.interval.ms": 10_000})
    assert estimate_events(scenario) in (1597, 1598)


@pytest.mark.parametrize("fields", [
    dict(kafka_version="4.2", group_type="share", members=3, topics={"t": 6}, duration_ms=60_000),
    dict(members=2, duration_ms=120_000, faults=[F.ScaleOut(10_000, 10)])])
def test_the_estimate_of_a_share_run_and_of_a_scaled_out_run_is_within_a_third_of_the_real_count(fields):
    """estimate_events' docstring: within a third of the real count. Without its share rows per poll
    the share run's estimate falls to about 0.4 of it; without the added members' seconds, the
    scaled-out run's to about 0.6."""
    from kafkasim.scenario import simulate
    from kafkasim.scenario.world import estimate_events
    scenario = Scenario(**fields)
    real = len(simulate(scenario).rows)
    assert 0.75 <= estimate_events(scenario) / real <= 1.33


def test_a_runs_repr_names_members_version_rebalances_processed_and_duplicates():
    """What a learner sees of a run. Kafka 3.6, three members from 0 ms, 1,200 records/s into 6
    partitions for 120 s, c-3 crashing at 60 s: the group forms once (one rebalance), then again when the
    coordinator expels c-3 a session timeout later (two); the records c-3 processed after its last commit
    are processed again by the others (the duplicates). The counts are the summary's, pinned by its own
    tests."""
    from kafkasim.scenario import simulate
    run = simulate(Scenario(kafka_version="3.6", members=3, topics={"orders": 6}, produce_rate_per_s=1200,
                            duration_ms=120_000, start_spread_ms=0, faults=[F.Crash("c-3", 60_000)]))
    assert repr(run) == "<Run 3 members, Kafka 3.6: 2 rebalances, 122400 processed, 1600 duplicates>"
    assert (run.summary["rebalances"], run.summary["records_processed"], run.summary["duplicates"]) == (2, 122400, 1600)


def test_a_constant_time_samples_its_ms_for_every_record_as_the_clocks_shortcut_takes_it():
    """Constant: every record takes `ms`, drawn as floats like the other distributions' samples;
    ProcessingClock skips the sampler for a Constant (ms x records), which must be what the samples sum to."""
    rng = np.random.default_rng(0)
    values = Constant(2).sample(rng, 3)
    assert values.dtype == np.float64 and values.tolist() == [2.0, 2.0, 2.0]
    assert Constant(0.25).sample(rng, 0).tolist() == []
    assert ProcessingClock(Constant(2), rng).take(3) == values.sum() == 6.0


def test_a_runs_parquet_file_reads_back_as_its_events_and_holds_its_scenario_summary_and_provenance(tmp_path):
    """Run.to_parquet: "the file alone says how to reproduce it". pandas reads the events back as they
    were (the nullable Int64 `generation` and `partition` stay Int64, not float, and no index column
    is added); its metadata holds the scenario's dict, the summary and the provenance as JSON."""
    import json

    import pandas as pd
    import pyarrow.parquet as pq

    from kafkasim import read_provenance
    from kafkasim.scenario import simulate
    run = simulate(Scenario(members=1, duration_ms=10_000))
    path = tmp_path / "run.parquet"
    run.to_parquet(path)
    back = pd.read_parquet(path)
    assert back.equals(run.events) and list(back.columns) == list(run.events.columns)
    assert (str(back["generation"].dtype), str(back["partition"].dtype)) == ("Int64", "Int64")
    meta = pq.read_schema(path).metadata
    assert json.loads(meta[b"kafkasim.scenario"]) == run.scenario.to_dict()
    assert json.loads(meta[b"kafkasim.scenario"])["members"] == 1
    assert json.loads(meta[b"kafkasim.summary"]) == run.summary
    assert read_provenance(path)["inputs"]["scenario"]["duration_ms"] == 10_000



def _share_row(ms, kind, range_, member=None, value=1, state=None, error=None):
    """One share-group event of partition t-0 (kafkasim.scenario.share's schema)."""
    source = "broker" if kind in ("RecordStateChanged", "LockExpired", "RecordsReleased") else "consumer"
    return (ms, source, "g", member, kind, None, "t", 0, error, range_, value, state)


#: A share group's run on t-0, offsets 0-9, production over at 2 s: c-1..c-5 acquire the ten records;
#: c-1 accepts 0-1 and rejects 2 and 3 in two calls (each archived at once); c-2's and c-3's locks expire;
#: c-2's late ACCEPT fails (INVALID_RECORD_STATE); c-4 and c-5 close and release 8 and 9; c-6 acquires 4-9
#: again (their second delivery) and accepts them at 2.4 s.
SHARE_ROWS = [
    _share_row(100, "Acquired", "0-3", "c-1"), _share_row(100, "Acquired", "4-5", "c-2"),
    _share_row(100, "Acquired", "6-7", "c-3"), _share_row(100, "Acquired", "8-8", "c-4"),
    _share_row(100, "Acquired", "9-9", "c-5"),
    _share_row(150, "Acknowledged", "ACCEPT 0-1", "c-1", 2),
    _share_row(150, "RecordStateChanged", "0-1", state="ACKNOWLEDGED"),
    _share_row(160, "Acknowledged", "REJECT 2-2", "c-1"),
    _share_row(160, "RecordStateChanged", "2-2", state="ARCHIVED"),
    _share_row(170, "Acknowledged", "REJECT 3-3", "c-1"),
    _share_row(170, "RecordStateChanged", "3-3", state="ARCHIVED"),
    _share_row(1100, "LockExpired", "4-5", state="AVAILABLE"),
    _share_row(1110, "LockExpired", "6-7", state="AVAILABLE"),
    _share_row(1200, "Acknowledged", "ACCEPT 4-5", "c-2", 2, error="INVALID_RECORD_STATE"),
    _share_row(1300, "RecordsReleased", "8-8", state="AVAILABLE"),
    _share_row(1310, "RecordsReleased", "9-9", state="AVAILABLE"),
    _share_row(1400, "Acquired", "4-9", "c-6", 2),
    _share_row(2400, "Acknowledged", "ACCEPT 4-9", "c-6", 6),
    _share_row(2400, "RecordStateChanged", "4-9", value=2, state="ACKNOWLEDGED"),
]


def test_share_metrics_add_up_every_write_and_successful_acknowledgement_of_the_run():
    """SHARE_SUMMARY_DOC, counted by hand from SHARE_ROWS: accepted 0-1 and 4-9 (8), archived 2 and 3 (two
    writes: 2), rejected the same two by two successful REJECTs (the failed ACCEPT counts as 2 failures,
    not as anything done), lock expiries 4-5 and 6-7 (4), released on close 8 and 9 (2), redelivered 4-9
    (6), none stuck; drained 400 ms after production ended (2.4 s - 2 s); 10 records done in 2.4 s is
    4.17/s, to a tenth 4.2."""
    from kafkasim.scenario.share import share_metrics
    assert share_metrics(SHARE_ROWS, 10, 2_000) == {
        "records_accepted": 8, "records_rejected": 2, "records_archived": 2, "redeliveries": 6,
        "lock_expiries": 4, "records_released_on_close": 2, "acknowledgement_failures": 2, "records_stuck": 0,
        "drain_ms": 400, "throughput_per_s": 4.2}


def test_share_metrics_drain_is_zero_when_the_last_record_was_done_before_production_ended():
    """drain_ms counts from the end of production; done before it (2.4 s, production until 5 s) is 0 ms,
    never negative; a record still stuck leaves it None (11 produced, 10 done)."""
    from kafkasim.scenario.share import share_metrics
    assert share_metrics(SHARE_ROWS, 10, 5_000)["drain_ms"] == 0
    assert share_metrics(SHARE_ROWS, 11, 2_000)["drain_ms"] is None


@pytest.mark.parametrize("duration_ms", [0, 1_000])
def test_share_metrics_of_a_run_that_produced_nothing_drain_at_once_at_no_throughput(duration_ms):
    """Nothing produced and nothing done: nothing stuck, drained at once (0 ms, even at duration 0) and a
    throughput of 0.0 records/s (no time to divide by)."""
    from kafkasim.scenario.share import share_metrics
    metrics = share_metrics([], 0, duration_ms)
    assert (metrics["records_stuck"], metrics["drain_ms"], metrics["throughput_per_s"]) == (0, 0, 0.0)
    assert isinstance(metrics["throughput_per_s"], float)
