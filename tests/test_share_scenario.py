"""Scenario(group_type="share"): share groups (KIP-932) under the workbook's faults.

Expected rows are derived by hand from the rules of Kafka's share consumer and SharePartition
(see the comments): a producer at 1 record/ms writes 5-record log batches (linger.ms=5), the
consumer takes max.poll.records=500 per ShareFetch and processes 0.5 ms per record.
"""

from __future__ import annotations

import pytest

from kafkasim.core import faults as F
from kafkasim.core.errors import ConfigError
from kafkasim.scenario import Scenario, simulate
from kafkasim.scenario.share import InvariantBroken, share_invariants

ONE = dict(group_type="share", members=1, topics={"t": 1}, produce_rate_per_s=1000, processing_ms=0.5,
           start_spread_ms=0)


def _rows(run, *kinds):
    return [r for r in run.rows if r[4] in kinds]


def _strip(rows):
    """(time, member or source, kind, topic, partition, reason, value, state) of each row."""
    return [(r[0], r[3] or r[1], r[4], r[6], r[7], r[9], r[10], r[11]) for r in rows]


def test_first_poll_waits_for_share_state_initialization_then_takes_500_records():
    # 4.2: the first heartbeat (t=0) creates the group (epoch 1) with an empty target: the partition is
    # only initializing. Initialized at once, the next heartbeat (t=5000, the 5 s interval) bumps the
    # epoch to 2 and assigns t-0. poll() then acquires offsets 0-499 (SPSO 0: share.auto.offset.reset
    # earliest), processes them in 250 ms, accepts them at the next poll, which takes 500-999, ...
    # The new assignment is acknowledged by a heartbeat sent at once (ACKNOWLEDGING); the empty one at 0
    # was not a new assignment (AbstractMembershipManager.processAssignmentReceived at 4.2).
    run = simulate(Scenario(kafka_version="4.2", duration_ms=6000, **ONE))
    heartbeat = _rows(run, "ShareGroupHeartbeat", "GroupEpochBumped")
    assert [(r[0], r[4], r[5], r[9]) for r in heartbeat] == [
        (0, "ShareGroupHeartbeat", 1, None), (0, "GroupEpochBumped", 1, "new_group"),
        (5000, "ShareGroupHeartbeat", 2, None), (5000, "GroupEpochBumped", 2, "initialized"),
        (5000, "ShareGroupHeartbeat", 2, None)]
    share = _rows(run, "PartitionsAssigned", "Acquired", "Fetched", "Processed", "Acknowledged", "RecordStateChanged")
    assert _strip(share[:10]) == [
        (5000, "c-1", "PartitionsAssigned", "t", 0, None, None, None),
        (5000, "c-1", "Acquired", "t", 0, "0-499", 1, None),
        (5000, "c-1", "Fetched", None, None, None, 500, None),
        (5250, "c-1", "Processed", None, None, None, 500, None),
        (5250, "broker", "RecordStateChanged", "t", 0, "0-499", 1, "ACKNOWLEDGED"),
        (5250, "c-1", "Acknowledged", "t", 0, "ACCEPT 0-499", 500, None),
        (5250, "c-1", "Acquired", "t", 0, "500-999", 1, None),
        (5250, "c-1", "Fetched", None, None, None, 500, None),
        (5500, "c-1", "Processed", None, None, None, 500, None),
        (5500, "broker", "RecordStateChanged", "t", 0, "500-999", 1, "ACKNOWLEDGED")]
    s = run.summary
    # 4 batches of 250 ms from 5000: the 4th (1500-1999) done and accepted at 6000, when the run ends (the
    # engine runs what is due at its end), 2000-2499 acquired then; 4000 of the 6000 records never done.
    assert (s["records_accepted"], s["records_processed"], s["records_stuck"], s["drain_ms"]) == (2000, 2000, 4000, None)


def test_crash_releases_at_once_from_4_1_but_waits_for_the_lock_in_4_0():
    # The process dies at 5100 holding 0-499 (4.2) and restarts at 6100 (a new member id).
    run = simulate(Scenario(kafka_version="4.2", duration_ms=6000, drain_ms=60000,
                            faults=[F.Restart("c-1", 5100, delay_ms=1000)], **ONE))
    rows = _strip(_rows(run, "Crashed", "RecordsReleased", "Acquired"))
    # 4.1+: the closed connection drops the share session: 0-499 AVAILABLE at once, count kept (4.2),
    # so the restarted member's first fetch gets them with delivery count 2.
    assert rows[1:5] == [(5100, "c-1", "Crashed", None, None, None, 1, None),
                         (5100, "broker", "RecordsReleased", "t", 0, "0-499", 1, "AVAILABLE"),
                         (6100, "c-1", "Acquired", "t", 0, "0-499", 2, None),
                         (6350, "c-1", "Acquired", "t", 0, "500-999", 1, None)]
    assert (run.summary["redeliveries"], run.summary["lock_expiries"], run.summary["drain_ms"]) == (500, 0, 3100)
    old = simulate(Scenario(kafka_version="4.0", broker={"group.share.enable": True}, duration_ms=6000,
                            drain_ms=60000, faults=[F.Restart("c-1", 5100, delay_ms=1000)], **ONE))
    rows = _strip(_rows(old, "Crashed", "LockExpired", "Acquired"))
    crashed = rows.index((5100, "c-1", "Crashed", None, None, None, 1, None))
    # 4.0: no release on disconnect. 4500-4999 (acquired at 5000) wait for their lock: 5000 + 30000.
    # Meanwhile SPEO - SPSO + 1 = 500 >= 200 (group.share.partition.max.record.locks in 4.0): nothing
    # new is acquired either. The restarted member polls every second from 6100: first at 35100.
    assert rows[crashed - 1:crashed + 4] == [
        (5000, "c-1", "Acquired", "t", 0, "4500-4999", 1, None),
        (5100, "c-1", "Crashed", None, None, None, 1, None),
        (35000, "broker", "LockExpired", "t", 0, "4500-4999", 1, "AVAILABLE"),
        (35100, "c-1", "Acquired", "t", 0, "4500-4999", 2, None),
        (35350, "c-1", "Acquired", "t", 0, "5000-5499", 1, None)]
    assert old.summary["lock_expiries"] == 500


def test_poison_record_is_released_until_the_delivery_limit_archives_it():
    # Explicit mode: the application RELEASEs offset 700 each time (PoisonRecord), ACCEPTs the rest.
    # Deliveries of 700 carry counts 1..5 (group.share.delivery.count.limit=5); the 5th RELEASE archives it.
    run = simulate(Scenario(kafka_version="4.2", duration_ms=6000, drain_ms=20000,
                            consumer={"share.acknowledgement.mode": "explicit"},
                            faults=[F.PoisonRecord("t", 0, 700)], **ONE))
    counts = [r[10] for r in _rows(run, "Acquired") if int(r[9].split("-")[0]) <= 700 <= int(r[9].split("-")[1])]
    assert counts == [1, 2, 3, 4, 5]
    writes = [(r[9], r[10], r[11]) for r in _rows(run, "RecordStateChanged") if "700" in r[9].split("-")]
    assert writes[-1] == ("700-700", 5, "ARCHIVED")
    s = run.summary
    assert (s["records_archived"], s["records_accepted"], s["redeliveries"], s["duplicates"]) == (1, 5999, 4, 4)
    assert s["records_stuck"] == 0


def test_poison_record_needs_explicit_acknowledgement_and_a_share_group():
    with pytest.raises(ConfigError, match="share.acknowledgement.mode': 'explicit'"):
        Scenario(kafka_version="4.2", faults=[F.PoisonRecord("t", 0, 7)], **ONE)
    with pytest.raises(ConfigError, match="PoisonRecord needs a share group"):
        Scenario(kafka_version="4.2", topics={"t": 1}, faults=[F.PoisonRecord("t", 0, 7)])


@pytest.mark.parametrize("fault", [
    F.Crash("c-2", 20_000), F.Restart("c-2", 20_000), F.Pause("c-2", 20_000, 50_000),
    F.SlowProcessing("c-2", 20_000, 60_000), F.NetworkCut("c-2", 20_000, 40_000), F.ScaleOut(30_000, 2),
    F.ScaleIn(30_000, ("c-1",))], ids=lambda f: type(f).__name__)
def test_every_fault_drains_with_every_record_accepted_once(fault):
    # Invariants are checked inside simulate (Run); here the books balance too.
    run = simulate(Scenario(kafka_version="4.2", group_type="share", members=3, topics={"orders": 2},
                            produce_rate_per_s=400, duration_ms=120_000, drain_ms=120_000, processing_ms=7.0,
                            faults=[fault]))
    s = run.summary
    assert s["records_stuck"] == 0 and s["records_accepted"] == s["records_produced"] == 48000
    assert s["records_processed"] == s["records_produced"] + s["duplicates"]


def test_share_groups_are_refused_where_the_broker_has_them_off():
    with pytest.raises(ConfigError, match="early access in Kafka 4.0 and off by default: set group.share.enable=true"):
        Scenario(kafka_version="4.0", **ONE)
    with pytest.raises(ConfigError, match=r"preview in Kafka 4.1 .* share.version=1"):
        Scenario(kafka_version="4.1", **ONE)
    with pytest.raises(ConfigError, match=r"Kafka 3.9 has no share groups \(KIP-932\): they need Kafka 4.0 or later"):
        Scenario(kafka_version="3.9", **ONE)
    Scenario(kafka_version="4.1", share_version=1, **ONE)
    Scenario(kafka_version="4.0", broker={"group.share.enable": True}, **ONE)
    Scenario(kafka_version="4.2", **ONE)
    with pytest.raises(ConfigError, match="group_type must be 'consumer'"):
        Scenario(group_type="queue")


def test_consumer_configs_a_share_consumer_rejects_are_refused_in_kafkas_words():
    # ShareConsumerConfig.checkUnsupportedConfigsPreProcess (4.1, 4.2): every one present, in Kafka's list order.
    with pytest.raises(ConfigError) as e:
        Scenario(kafka_version="4.2", consumer={"session.timeout.ms": 45000, "enable.auto.commit": False,
                                                "group.protocol": "consumer"}, **ONE)
    assert str(e.value) == "enable.auto.commit, session.timeout.ms, group.protocol cannot be set when using a share group."
    with pytest.raises(ConfigError, match="static_membership: a share consumer has no group.instance.id"):
        Scenario(kafka_version="4.2", static_membership=True, **ONE)


def test_same_seed_same_rows_byte_for_byte():
    sc = Scenario(kafka_version="4.2", group_type="share", members=4, topics={"o": 3}, produce_rate_per_s=300,
                  duration_ms=60_000, processing_ms=9.0, faults=[F.Crash("c-2", 20_000)], seed=7)
    a, b = simulate(sc), simulate(sc)
    assert repr(a.rows).encode() == repr(b.rows).encode()
    assert simulate(sc.replace(seed=8)).rows != a.rows


def _acq(t, member, first, last, count=1):
    return (t, "consumer", "g", member, "Acquired", 1, "t", 0, None, f"{first}-{last}", count, None)


def _write(t, kind, first, last, state, count=1):
    return (t, "broker", "g", None, kind, None, "t", 0, None, f"{first}-{last}", count, state)


def test_broken_invariants_are_caught():
    ok = [_acq(0, "a", 0, 9), _write(5, "RecordStateChanged", 0, 9, "ACKNOWLEDGED"),
          _write(6, "SharePartitionState", 10, 10, None)]
    ok[-1] = (6, "broker", "g", None, "SharePartitionState", None, "t", 0, None, "10-10", 10, None)
    share_invariants(ok, 5)
    with pytest.raises(InvariantBroken, match="acquired by b at 1 ms while a still held"):
        share_invariants([_acq(0, "a", 0, 9), _acq(1, "b", 5, 5)], 5)
    with pytest.raises(InvariantBroken, match="delivery count 6, above the limit 5"):
        share_invariants([_acq(0, "a", 0, 9, 6)], 5)
    with pytest.raises(InvariantBroken, match="a record acknowledged twice"):
        share_invariants([_write(1, "RecordStateChanged", 0, 9, "ACKNOWLEDGED"),
                          _write(2, "LockExpired", 9, 9, "ARCHIVED")], 5)
    with pytest.raises(InvariantBroken, match="start offset is 10 at the end, but only 9 records"):
        share_invariants([_write(1, "RecordStateChanged", 0, 8, "ACKNOWLEDGED"), ok[-1]], 5)
    # a lock expiry ends the hold: another member may take the records then
    share_invariants([_acq(0, "a", 0, 9), _write(30000, "LockExpired", 0, 9, "AVAILABLE"), _acq(30001, "b", 0, 9, 2)], 5)


# Two members on one partition (4.2: the simple assignor shares it, both get t-0 at their 5 s heartbeat);
# at 5000 c-1 acquires 0-499 and c-2 500-999, 250 ms of processing each.
TWO = dict(kafka_version="4.2", group_type="share", members=2, topics={"t": 1}, produce_rate_per_s=1000,
           processing_ms=0.5, start_spread_ms=0, duration_ms=8000, drain_ms=60000)
SHARE_KINDS = ("Acquired", "Acknowledged", "LockExpired", "RecordsReleased", "Closed", "MemberFenced")


def _share_rows(fault):
    run = simulate(Scenario(faults=[fault], **TWO))
    return run, [(r[0], r[3] if r[1] == "consumer" else r[1], r[4], r[9], r[10], r[8])
                 for r in run.rows if r[4] in SHARE_KINDS]


def test_gc_pause_holds_records_until_the_lock_expires_and_stalls_the_partition():
    # Reference scenarios S2 and S8. c-2 freezes at 5100 holding 500-999. c-1 goes on until the in-flight
    # range SPSO..SPEO = 500..2499 reaches group.share.partition.max.record.locks (2000): nothing new is
    # acquired after 2000-2499 until c-2's lock expires at 5000 + 30000, when c-1 takes 500-999 (count 2).
    run, rows = _share_rows(F.Pause("c-2", 5100, 50_000))
    assert rows[:9] == [
        (5000, "c-1", "Acquired", "0-499", 1, None), (5000, "c-2", "Acquired", "500-999", 1, None),
        (5250, "c-1", "Acknowledged", "ACCEPT 0-499", 500, None), (5250, "c-1", "Acquired", "1000-1499", 1, None),
        (5500, "c-1", "Acknowledged", "ACCEPT 1000-1499", 500, None), (5500, "c-1", "Acquired", "1500-1999", 1, None),
        (5750, "c-1", "Acknowledged", "ACCEPT 1500-1999", 500, None), (5750, "c-1", "Acquired", "2000-2499", 1, None),
        (6000, "c-1", "Acknowledged", "ACCEPT 2000-2499", 500, None)]
    assert rows[9:11] == [(35000, "broker", "LockExpired", "500-999", 1, None),
                          (35000, "c-1", "Acquired", "500-999", 2, None)]
    # The coordinator fences c-2 at its last heartbeat (5000) + 45 s; thawed at 55100, c-2 finishes its batch
    # at 55250 and ACCEPTs: the records are below SPSO by then, so the acknowledgement succeeds and changes nothing.
    fenced = [r for r in rows if r[2] == "MemberFenced"]
    assert [r[0] for r in fenced] == [50000]
    assert rows[-1] == (55250, "c-2", "Acknowledged", "ACCEPT 500-999", 500, None)
    s = run.summary
    assert (s["duplicates"], s["redeliveries"], s["lock_expiries"], s["records_accepted"]) == (500, 500, 500, 8000)


def test_network_cut_loses_the_acknowledgement_and_the_records_come_back():
    run, rows = _share_rows(F.NetworkCut("c-2", 5100, 40_000))
    assert (5250, "c-2", "Acknowledged", "ACCEPT 500-999", 500, "REQUEST_TIMED_OUT") in rows
    assert rows[rows.index((35000, "broker", "LockExpired", "500-999", 1, None)) + 1] == \
        (35000, "c-1", "Acquired", "500-999", 2, None)
    assert run.summary["acknowledgement_failures"] == 500


def test_slow_processing_lets_the_lock_expire_under_the_consumer():
    # Reference scenario S6: c-2's processing of 500-999 takes 40 s more; its lock expires at 35000.
    run, rows = _share_rows(F.SlowProcessing("c-2", 5100, 40_000))
    assert rows[9:11] == [(35000, "broker", "LockExpired", "500-999", 1, None),
                          (35000, "c-1", "Acquired", "500-999", 2, None)]
    assert run.summary["duplicates"] == 500


def test_graceful_close_releases_the_last_implicit_batch():
    # ScaleIn: c-2 closes once its batch is done (5250). ShareConsumerImpl.close sends only acknowledged
    # records (sendAcknowledgementsAndLeaveGroup): implicit mode accepts a batch at the next poll or commit,
    # not at close, so the session close releases 500-999, redelivered to c-1 (count 2, kept in 4.2).
    run, rows = _share_rows(F.ScaleIn(5100, ("c-2",)))
    assert rows[3:8] == [(5250, "c-1", "Acquired", "1000-1499", 1, None),
                         (5250, "broker", "RecordsReleased", "500-999", 1, None),
                         (5250, "c-2", "Closed", None, None, None),
                         (5500, "c-1", "Acknowledged", "ACCEPT 1000-1499", 500, None),
                         (5500, "c-1", "Acquired", "500-999", 2, None)]
    assert (run.summary["records_released_on_close"], run.summary["duplicates"]) == (500, 500)


def test_scale_out_shares_the_partition_with_the_new_member():
    # c-3 starts at 5100; the share state is initialized, so its first heartbeat assigns t-0 (sharing 3 on 1
    # partition) and it takes the next records at once.
    run, rows = _share_rows(F.ScaleOut(5100, 1))
    assert rows[2] == (5100, "c-3", "Acquired", "1000-1499", 1, None)
    assert {r[1] for r in rows if r[2] == "Acquired"} == {"c-1", "c-2", "c-3"}
    assert run.summary["duplicates"] == 0


def test_queue_metrics_side_by_side():
    # Share group (ONE): 12 full batches of 500 from 5000, 250 ms each: all 6000 records accepted at 8000,
    # 2000 ms after production ended; 6000 records in 8 s.
    share = simulate(Scenario(kafka_version="4.2", duration_ms=6000, drain_ms=10000, **ONE))
    assert share.queue_metrics == {"throughput_per_s": 750.0, "redeliveries": 0, "duplicates": 0,
                                   "records_stuck": 0, "drain_ms": 2000}
    # The consumer group on the same load: the same keys, read from its ledger (processed = done).
    group = simulate(Scenario(kafka_version="4.2", members=1, topics={"t": 1}, produce_rate_per_s=1000,
                              duration_ms=6000, drain_ms=10000, processing_ms=0.5, start_spread_ms=0))
    last = group.ledger.progress[-1][0]
    assert group.queue_metrics == {"throughput_per_s": round(6000 / (last / 1000), 1), "redeliveries": 0,
                                   "duplicates": 0, "records_stuck": 0, "drain_ms": last - 6000}
    stuck = simulate(Scenario(kafka_version="4.2", duration_ms=6000, **ONE)).queue_metrics
    assert (stuck["records_stuck"], stuck["drain_ms"]) == (4000, None)


def test_crash_in_4_1_releases_with_the_delivery_count_decremented():
    # Reference scenario S3: 4.1 releases a closed session's records with the count decremented
    # (KAFKA-17541 part 1), so the redelivery carries count 1 again; 4.2 keeps it (KAFKA-19972).
    run = simulate(Scenario(kafka_version="4.1", share_version=1, duration_ms=6000, drain_ms=60000,
                            faults=[F.Restart("c-1", 5100, delay_ms=1000)], **ONE))
    rows = _strip(_rows(run, "RecordsReleased", "Acquired"))
    assert rows[1:3] == [(5100, "broker", "RecordsReleased", "t", 0, "0-499", 0, "AVAILABLE"),
                         (6100, "c-1", "Acquired", "t", 0, "0-499", 1, None)]
    assert run.summary["redeliveries"] == 0  # a redelivery the counts do not show


def _lock_rows(renew_ms):
    # 500 records (1 record/ms for 500 ms), 80 ms of processing each: a batch takes 40 s, the lock 30 s.
    run = simulate(Scenario(kafka_version="4.2", group_type="share", members=1, topics={"t": 1},
                            produce_rate_per_s=1000, duration_ms=500, drain_ms=300_000, processing_ms=80.0,
                            start_spread_ms=0, consumer={"share.acknowledgement.mode": "explicit"},
                            share_renew_ms=renew_ms))
    kinds = ("Acquired", "Acknowledged", "LockExpired", "RecordStateChanged")
    return run, [(r[0], r[4], r[9], r[10], r[8]) for r in run.rows if r[4] in kinds]


def test_processing_slower_than_the_lock_redelivers_until_throttled():
    # Reference scenarios S6 and S11: each 40 s batch outlives its 30 s lock; the late ACCEPT fails
    # (INVALID_RECORD_STATE) and the same member gets the records again. From 4.2 the 4th delivery
    # (count 3 >= T = max(2, ceil(5 / 2)) = 3) is cut to 500 >> 1 = 250 records, each half done in 20 s.
    run, rows = _lock_rows(None)
    assert rows[:10] == [
        (5000, "Acquired", "0-499", 1, None), (35000, "LockExpired", "0-499", 1, None),
        (45000, "Acknowledged", "ACCEPT 0-499", 500, "INVALID_RECORD_STATE"), (45000, "Acquired", "0-499", 2, None),
        (75000, "LockExpired", "0-499", 2, None),
        (85000, "Acknowledged", "ACCEPT 0-499", 500, "INVALID_RECORD_STATE"), (85000, "Acquired", "0-499", 3, None),
        (115000, "LockExpired", "0-499", 3, None),
        (125000, "Acknowledged", "ACCEPT 0-499", 500, "INVALID_RECORD_STATE"), (125000, "Acquired", "0-249", 4, None)]
    assert (run.summary["duplicates"], run.summary["acknowledgement_failures"]) == (1500, 1500)


def test_renew_keeps_the_lock_of_a_long_batch():
    # KIP-1222 (4.2): RENEW every 10 s re-arms a full 30 s lock; the ACCEPT at 45 s succeeds.
    run, rows = _lock_rows(10_000)
    assert rows == [(5000, "Acquired", "0-499", 1, None), (15000, "Acknowledged", "RENEW 0-499", 500, None),
                    (25000, "Acknowledged", "RENEW 0-499", 500, None), (35000, "Acknowledged", "RENEW 0-499", 500, None),
                    (45000, "RecordStateChanged", "0-499", 1, None), (45000, "Acknowledged", "ACCEPT 0-499", 500, None)]
    assert run.summary["duplicates"] == 0
    with pytest.raises(ConfigError, match="needs Kafka 4.2 or later"):
        Scenario(kafka_version="4.1", share_version=1, share_renew_ms=10_000,
                 consumer={"share.acknowledgement.mode": "explicit"}, **ONE)
    with pytest.raises(ConfigError, match="apply to group_type='share' only"):
        Scenario(share_renew_ms=10_000)


# -- the log a share consumer reads, pinned by mutation testing (issue 28 item 8) ------------------
class _Parts:
    """The two members of `Partitions` that `ShareLog` reads for the log: rates (records per ms,
    per partition) and end offsets, production stopping at `duration_ms`."""

    def __init__(self, tps, rate, duration_ms=1000):
        self.tps, self.rate, self.duration_ms = tps, rate, duration_ms
        self.index = {tp: i for i, tp in enumerate(tps)}  # (topic, partition) -> index, for PoisonRecord

    def end_offset(self, i: int, t: int) -> int:
        return int(self.rate[i] * min(t, self.duration_ms))


def _share_log(tps, rate, duration_ms=1000):
    from types import SimpleNamespace
    from kafkasim.scenario.share import ShareLog
    return ShareLog(SimpleNamespace(partitions=_Parts(tps, rate, duration_ms), rows=[], group_id="g"))


def test_a_log_batch_holds_the_topic_rate_times_linger_ms():
    """One producer per topic, sticky partitioner (KIP-480): it fills one partition's batch with
    everything the topic gets during linger.ms = 5 (KIP-1030). Topic t: 2 partitions at 0.2
    records/ms = 0.4 records/ms for the topic: batches of int(0.4 x 5) = 2; topic u alone at
    0.1/ms: max(1, int(0.5)) = 1."""
    log = _share_log([("t", 0), ("t", 1), ("u", 0)], [0.2, 0.2, 0.1])
    assert log.batch_records == [2, 2, 1]


def test_a_read_returns_whole_complete_batches_from_the_one_holding_the_fetch_offset():
    """Batches of 4 (0.8/ms x 5 ms). At 10 ms the log end is 8: 0-3 and 4-7 complete. At 12 ms it
    is 9: the batch 8-11 is still being filled, so not readable. A fetch from offset 5 starts at
    the batch holding it (4-7). After production ends (1000 ms, end 800) the last batch counts."""
    log = _share_log([("t", 0)], [0.8])
    assert log.log_batches(0, 0, 500, now=10) == [(0, 3), (4, 7)]
    assert log.log_batches(0, 5, 500, now=12) == [(4, 7)]
    assert log.log_batches(0, 8, 500, now=12) == []
    log_end = _share_log([("t", 0)], [0.7], duration_ms=10)  # end 7, batches of int(3.5) = 3
    assert log_end.log_batches(0, 6, 500, now=20) == [(6, 6)]


def test_the_application_acknowledges_every_record_of_a_fetch_once_the_poison_with_its_type():
    """Explicit mode: the poison record is acknowledged alone with the PoisonRecord's type, the records
    around it ACCEPTed in ranges, down to the single record after a poison that is second to last."""
    log = _share_log([("t", 0)], [0.8])
    log.add_poison(F.PoisonRecord("t", 0, 8, "REJECT"))
    log.add_poison(F.PoisonRecord("t", 0, 3))  # RELEASE
    assert log.app_acknowledgements(0, 0, 9) == [(0, 2, "ACCEPT"), (3, 3, "RELEASE"), (4, 7, "ACCEPT"),
                                                 (8, 8, "REJECT"), (9, 9, "ACCEPT")]
    assert log.app_acknowledgements(0, 3, 8) == [(3, 3, "RELEASE"), (4, 7, "ACCEPT"), (8, 8, "REJECT")]
    assert log.app_acknowledgements(0, 10, 19) == [(10, 19, "ACCEPT")]  # no poison in this fetch


def test_finish_writes_each_partition_spso_and_speo_at_the_end_time():
    """The run's last rows: per partition `SharePartitionState` at the end time, reason "SPSO-SPEO",
    value SPSO (the module docstring's event); a partition never read has 0-0."""
    from types import SimpleNamespace
    from kafkasim.scenario.share import ShareLog
    world = SimpleNamespace(partitions=_Parts([("t", 0)], [0.8]), rows=[], group_id="g",
                            sim=SimpleNamespace(now=1234))
    ShareLog(world).finish()
    assert world.rows == [(1234, "broker", "g", None, "SharePartitionState", None, "t", 0, None, "0-0", 0, None)]


def test_refusals_say_how_to_enable_share_groups_in_a_scenario():
    """The broker's refusal (4.1: a preview, feature share.version or group.share.enable; 4.0:
    early access, group.share.enable) ends with the Scenario arguments that lift it; a 4.0
    PoisonRecord says 4.0 has no share.acknowledgement.mode (ShareConsumerConfig has it from 4.1)."""
    with pytest.raises(ConfigError) as e:
        Scenario(kafka_version="4.1", **ONE)
    assert str(e.value).endswith("; in a Scenario: broker={'group.share.enable': True} or share_version=1 (the feature)")
    with pytest.raises(ConfigError) as e:
        Scenario(kafka_version="4.0", **ONE)
    assert str(e.value).endswith("; in a Scenario: broker={'group.share.enable': True}")
    with pytest.raises(ConfigError) as e:
        Scenario(kafka_version="4.0", broker={"group.share.enable": True}, faults=[F.PoisonRecord("t", 0, 7)], **ONE)
    assert str(e.value).endswith("set consumer={'share.acknowledgement.mode': 'explicit'} (Kafka 4.1 or later: 4.0 "
                                 "has no such config and infers the mode from the first acknowledge(), which "
                                 "kafkasim does not model)")


# -- refusals pinned word for word (issue 29) -------------------------------------------------------
EXPLICIT = {"share.acknowledgement.mode": "explicit"}
RENEW_REFUSAL = ("share_renew_ms: the application renews locks with acknowledge(record, AcknowledgeType.RENEW), "
                 "which needs Kafka 4.2 or later (KIP-1222) and consumer={'share.acknowledgement.mode': 'explicit'}")


@pytest.mark.parametrize("kw, message", [
    # No share groups before 4.0: nothing a Scenario can set, so no "in a Scenario" hint.
    (dict(kafka_version="3.9"),
     "group_type='share' in Kafka 3.9: Kafka 3.9 has no share groups (KIP-932): they need Kafka 4.0 or later"),
    # 4.3+: only the feature share.version serves them (group.share.enable is no longer read).
    (dict(kafka_version="4.3", share_version=0),
     "group_type='share' in Kafka 4.3: share groups need the feature share.version=1 (kafka-features.sh upgrade "
     "--feature share.version=1); in a Scenario: share_version=1 (the feature)"),
    # KIP-1222: AcknowledgeType.RENEW is 4.2's, and acknowledge() works in explicit mode only.
    (dict(kafka_version="4.2", share_renew_ms=10_000), RENEW_REFUSAL),
    (dict(kafka_version="4.1", share_version=1, share_renew_ms=10_000, consumer=EXPLICIT), RENEW_REFUSAL),
    (dict(kafka_version="4.2", share_renew_ms=0, consumer=EXPLICIT), "share_renew_ms must be an integer >= 1, got 0"),
    # ShareConsumerConfig refuses group.instance.id, in Kafka's words.
    (dict(kafka_version="4.2", static_membership=True),
     "static_membership: a share consumer has no group.instance.id (ShareConsumerConfig refuses it: "
     "\"group.instance.id cannot be set when using a share group.\")"),
    # ShareConsumerImpl.acknowledge in implicit mode: IllegalStateException, with what to set.
    (dict(kafka_version="4.2", faults=[F.PoisonRecord("t", 0, 7, "RELEASE")]),
     "PoisonRecord: the simulated application acknowledges the poison record with acknowledge(record, "
     "AcknowledgeType.RELEASE), which a KafkaShareConsumer accepts only in explicit mode (else "
     "IllegalStateException \"Implicit acknowledgement of delivery is being used.\"): set "
     "consumer={'share.acknowledgement.mode': 'explicit'}"),
    # 4.1 has share.acknowledgement.mode (ShareConsumerConfig), so no note on 4.0's inferred mode.
    (dict(kafka_version="4.1", share_version=1, faults=[F.PoisonRecord("t", 0, 7, "REJECT")]),
     "PoisonRecord: the simulated application acknowledges the poison record with acknowledge(record, "
     "AcknowledgeType.REJECT), which a KafkaShareConsumer accepts only in explicit mode (else "
     "IllegalStateException \"Implicit acknowledgement of delivery is being used.\"): set "
     "consumer={'share.acknowledgement.mode': 'explicit'}"),
    (dict(kafka_version="4.2", consumer=EXPLICIT, faults=[F.PoisonRecord("t", 1, 7)]),
     "PoisonRecord names t-1, which is not a partition of topics {'t': 1}"),
    (dict(kafka_version="4.2", consumer=EXPLICIT, faults=[F.PoisonRecord("u", 0, 7)]),
     "PoisonRecord names u-0, which is not a partition of topics {'t': 1}"),
])
def test_share_scenario_refusals_name_the_kafka_config_and_what_to_set(kw, message):
    """Bad input gets a clear error naming the Kafka config (or the client call) and what to set."""
    with pytest.raises(ConfigError) as e:
        Scenario(**{**ONE, **kw})
    assert str(e.value) == message


# -- the run's share bookkeeping, pinned by mutation testing (issue 29) ----------------------------
def _broken(rows, limit=5) -> str:
    with pytest.raises(InvariantBroken) as caught:
        share_invariants(rows, limit)
    return str(caught.value)


def test_a_broken_share_guarantee_names_the_topic_partition_offsets_and_event_time():
    """Each of KIP-932's guarantees, broken once, reported as "topic-partition offsets first-last ...
    at <the event's time> ms" so the faulty event can be found in the run."""
    assert _broken([_acq(7, "a", 0, 9, 6)]) == \
        "t-0 offsets 0-9 delivered to a at 7 ms with delivery count 6, above the limit 5"
    assert _broken([_acq(0, "a", 0, 9), _acq(3, "b", 5, 5)]) == \
        "t-0 offsets 5-5 acquired by b at 3 ms while a still held some of them"
    twice = [_write(1, "RecordStateChanged", 0, 9, "ACKNOWLEDGED"), _write(4, "LockExpired", 9, 9, "ARCHIVED")]
    assert _broken(twice) == \
        "t-0 offsets 9-9 made ARCHIVED at 4 ms, but some were acknowledged before: a record acknowledged twice"
    spso_10 = (6, "broker", "g", None, "SharePartitionState", None, "t", 0, None, "10-10", 10, None)
    assert _broken([_write(1, "RecordStateChanged", 0, 8, "ACKNOWLEDGED"), spso_10]) == \
        "t-0: the share partition start offset is 10 at the end, but only 9 records below it were accepted, " \
        "rejected or archived"


def test_records_acknowledged_past_a_gap_above_the_final_spso_do_not_count_below_it():
    """SPSO moves only over a contiguous run of terminal records (SharePartition's
    `maybeUpdateCachedStateAndOffsets`): with 9 still AVAILABLE, 0-8 and 10-11 acknowledged leave SPSO
    at 9, which holds: 9 records below it. SPSO 10 with 10-11 acknowledged but 9 not breaks it (9 of 10).
    A partition whose SPSO never moved (0) holds with nothing acknowledged."""
    def spso(n):
        return (20, "broker", "g", None, "SharePartitionState", None, "t", 0, None, f"{n}-11", n, None)
    acked = [_write(1, "RecordStateChanged", 0, 8, "ACKNOWLEDGED"),
             _write(2, "RecordStateChanged", 10, 11, "ACKNOWLEDGED")]
    share_invariants(acked + [spso(9)], 5)
    assert _broken(acked + [spso(10)]).endswith("start offset is 10 at the end, but only 9 records below it were "
                                                "accepted, rejected or archived")
    share_invariants([_acq(0, "a", 0, 11), spso(0)], 5)


class _Coordinator:
    """The one member of `GroupCoordinator` `ShareLog.partition` calls: `share_partition`, made on
    first use, the same object after (`SharePartitionManager.getOrCreateSharePartition`)."""

    def __init__(self, offsets):
        self.offsets, self.made = offsets, {}

    def share_partition(self, group_id, topic, p):
        from types import SimpleNamespace
        key = (group_id, topic, p)
        if key not in self.made:
            spso, speo = self.offsets[(topic, p)]
            self.made[key] = SimpleNamespace(start_offset=spso, end_offset=speo, on_write=None)
        return self.made[key]


def _world(now=50, offsets=None):
    from types import SimpleNamespace
    return SimpleNamespace(partitions=_Parts([("t", 0), ("t", 1)], [0.8, 0.8]), rows=[], group_id="g",
                           sim=SimpleNamespace(now=now), coord=_Coordinator(offsets or {}))


def test_a_write_share_group_state_becomes_one_event_per_contiguous_run_of_one_state_and_count():
    """The module docstring's events: each WriteShareGroupState the share partition makes (`on_write`,
    ranges in any order) is written as rows "first-last", adjacent ranges of the same state and
    delivery count merged; a gap, another state or another count starts a new row."""
    from kafkasim.coordinator.modern.share.state import InFlightState
    from kafkasim.scenario.share import ShareLog
    world = _world(now=50, offsets={("t", 1): (0, 0)})
    log = ShareLog(world)
    acked, archived = InFlightState("ACKNOWLEDGED", 1), InFlightState("ARCHIVED", 1)
    log.partition(1).on_write([(5, 9, acked), (0, 4, acked), (10, 12, InFlightState("ACKNOWLEDGED", 2)),
                               (13, 14, InFlightState("ACKNOWLEDGED", 2)), (15, 15, archived), (17, 17, archived)])
    assert world.rows == [
        (50, "broker", "g", None, "LockExpired", None, "t", 1, None, "0-9", 1, "ACKNOWLEDGED"),
        (50, "broker", "g", None, "LockExpired", None, "t", 1, None, "10-14", 2, "ACKNOWLEDGED"),
        (50, "broker", "g", None, "LockExpired", None, "t", 1, None, "15-15", 1, "ARCHIVED"),
        (50, "broker", "g", None, "LockExpired", None, "t", 1, None, "17-17", 1, "ARCHIVED")]


def test_share_log_hands_out_the_coordinators_share_partition_of_the_runs_group():
    """The share consumers read and acknowledge the leader's share partition of the run's group
    (`GroupCoordinator.share_partition(group_id, topic, partition)`), the same object every time."""
    from kafkasim.scenario.world import World
    world = World(Scenario(kafka_version="4.2", duration_ms=6000, group_id="orders", **ONE))
    sp = world.share.partition(0)
    assert sp is world.coord.share_partition("orders", "t", 0) and sp.group_id == "orders"
    assert world.share.partition(0) is sp and sp.on_write is not None


def test_finish_writes_the_spso_and_speo_of_the_partitions_read():
    """A partition the consumers read ends with its share partition's SPSO-SPEO; one never read 0-0.
    The 4.2 run of the first test above: at 6000 ms 0-1999 are accepted and 2000-2499 acquired, so
    SPSO = 2000 (the first record not terminal), SPEO = 2499 (the last acquired)."""
    from kafkasim.scenario.share import ShareLog
    run = simulate(Scenario(kafka_version="4.2", duration_ms=6000, **ONE))
    assert _rows(run, "SharePartitionState") == [
        (6000, "broker", "workbook-group", None, "SharePartitionState", None, "t", 0, None, "2000-2499", 2000, None)]
    world = _world(now=70, offsets={("t", 1): (3, 8)})
    log = ShareLog(world)
    log.partition(1)
    log.finish()
    assert world.rows == [(70, "broker", "g", None, "SharePartitionState", None, "t", 0, None, "0-0", 0, None),
                          (70, "broker", "g", None, "SharePartitionState", None, "t", 1, None, "3-8", 3, None)]


def test_a_read_with_max_poll_records_1_returns_only_the_batch_holding_the_fetch_offset():
    """KafkaShareConsumer's max.poll.records is at least 1; a read returns whole batches up to that many
    records past the fetch offset: from offset 3, the last of batch 0-3 (batches of 4, 0.8/ms x 5 ms),
    one record is within 0-3, so 4-7 is not read."""
    log = _share_log([("t", 0)], [0.8])
    assert log.log_batches(0, 3, 1, now=20) == [(0, 3)]
    assert log.log_batches(0, 3, 2, now=20) == [(0, 3), (4, 7)]


def test_production_ended_at_duration_ms_so_the_last_partial_batch_is_readable_then():
    """Production stops at duration_ms: at that instant the producer sends what it holds, so the last
    batch, short, is in the log. Rate 0.7/ms for 10 ms: end offset 7, batches of int(3.5) = 3; at 10 ms
    6-6 is readable; at 9 ms (end 6) offset 6 is not produced yet."""
    log = _share_log([("t", 0)], [0.7], duration_ms=10)
    assert log.log_batches(0, 6, 500, now=10) == [(6, 6)]
    assert log.log_batches(0, 6, 500, now=9) == []
    assert log.log_batches(0, 0, 500, now=9) == [(0, 2), (3, 5)]


def test_the_end_of_a_crashed_process_pause_does_not_touch_the_restarted_one():
    """A restart is a new process: what the old one had scheduled does nothing to it. c-1 is paused
    at 1000 for 19 s while joining, crashes at 2000 (restarted at 3000, assigned t-0 at once: the
    share state is initialized) and the new process is paused at 10000 for 10 s while consuming:
    both pauses end at 20000, and the new process goes back to consuming, not to the old one's
    joining."""
    run = simulate(Scenario(kafka_version="4.2", group_type="share", members=1, topics={"t": 1},
                            produce_rate_per_s=100, duration_ms=30_000, start_spread_ms=0, processing_ms=1.0,
                            faults=[F.Pause("c-1", 1000, 19_000), F.Restart("c-1", 2000, 1000),
                                    F.Pause("c-1", 10_000, 10_000)]))
    states = [(r[0], r[9]) for r in run.rows if r[1] == "consumer" and r[4] == "StateChanged" and r[0] <= 20_000]
    assert states == [(0, "joining"), (1000, "paused"), (2000, "stopped"), (3000, "joining"), (3000, "consuming"),
                      (10_000, "paused"), (20_000, "consuming")]
