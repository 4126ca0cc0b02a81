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
    run = simulate(Scenario(kafka_version="4.2", duration_ms=6000, **ONE))
    heartbeat = _rows(run, "ShareGroupHeartbeat", "GroupEpochBumped")
    assert [(r[0], r[4], r[5], r[9]) for r in heartbeat] == [
        (0, "ShareGroupHeartbeat", 1, None), (0, "GroupEpochBumped", 1, "new_group"),
        (5000, "ShareGroupHeartbeat", 2, None), (5000, "GroupEpochBumped", 2, "initialized")]
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
