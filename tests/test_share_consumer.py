"""The share consumer (`client.share_consumer`, KafkaShareConsumer) and its configs
(`core.config.share_consumer_config`, ShareConsumerConfig).

Replays of Kafka's `ShareConsumerTest` (clients/clients-integration-tests/src/test/java/org/apache/
kafka/clients/consumer/ShareConsumerTest.java on confluentinc/kafka's branch 4.2, Apache 4.2.x) drive
one consumer by hand (`manual`): a producer at R records/s for D ms produces R x D / 1000 records
in log batches of R x 5 ms / 1000 records (linger.ms=5), as `scenario.share` writes the log.
"""

from __future__ import annotations

import pytest

from kafkasim.client.share_consumer import IllegalStateException, ShareConsumer, ShareRecord
from kafkasim.core.config import SHARE_GROUP_UNSUPPORTED_CONFIGS, consumer_config, share_consumer_config
from kafkasim.core.errors import ConfigError, Errors
from kafkasim.scenario import Scenario
from kafkasim.scenario.world import World


# -- ShareConsumerConfig --------------------------------------------------------------------------
def test_share_consumer_defaults_by_version():
    assert share_consumer_config("4.0")["share.acknowledgement.mode"] is None  # 4.0 infers the mode
    assert share_consumer_config("4.1")["share.acknowledgement.mode"] == "implicit"
    assert share_consumer_config("4.1")["share.acquire.mode"] is None
    c = share_consumer_config("4.2")
    assert (c["share.acknowledgement.mode"], c["share.acquire.mode"], c["max.poll.records"]) == \
        ("implicit", "batch_optimized", 500)
    assert not set(SHARE_GROUP_UNSUPPORTED_CONFIGS) & set(c)


def test_every_refused_config_named_in_kafkas_order_and_words():
    given = {name: None for name in reversed(SHARE_GROUP_UNSUPPORTED_CONFIGS)}  # present is enough, even null
    with pytest.raises(ConfigError) as e:
        share_consumer_config("4.2", given)
    assert str(e.value) == ("auto.offset.reset, enable.auto.commit, group.instance.id, isolation.level, "
                            "partition.assignment.strategy, interceptor.classes, session.timeout.ms, "
                            "heartbeat.interval.ms, group.protocol, group.remote.assignor cannot be set when "
                            "using a share group.")
    share_consumer_config("4.0", {"session.timeout.ms": 10})  # 4.0: no ShareConsumerConfig, ignored


def test_share_modes_are_validated_as_kafka_does():
    with pytest.raises(ConfigError) as e:
        share_consumer_config("4.2", {"share.acquire.mode": "fast"})
    assert str(e.value) == ("Invalid value fast for configuration share.acquire.mode: Invalid value `fast` for "
                            "configuration share.acquire.mode. The value must either be 'batch_optimized' or "
                            "'record_limit'.")
    assert share_consumer_config("4.2", {"share.acknowledgement.mode": "EXPLICIT"})["share.acknowledgement.mode"] \
        == "explicit"
    with pytest.raises(ConfigError, match="does not exist in Kafka 4.1: it was added in Kafka 4.2"):
        share_consumer_config("4.1", {"share.acquire.mode": "record_limit"})
    with pytest.raises(ConfigError, match="needs Kafka 4.0 or later"):
        share_consumer_config("3.9")


def test_kafka_consumer_refuses_share_configs():
    # ConsumerConfig's CLASSIC_ and CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS (4.2).
    with pytest.raises(ConfigError, match=r"^share.acknowledgement.mode, share.acquire.mode cannot be set when "
                                          r"group.protocol=CONSUMER"):
        consumer_config("4.2", {"group.protocol": "consumer", "share.acknowledgement.mode": "explicit",
                                "share.acquire.mode": "record_limit"})


# -- one consumer driven by hand ------------------------------------------------------------------
def _world(records: int, *, rate: int = 1000, version: str = "4.2", broker=None, **consumer) -> World:
    """A topic t-0 holding `records` records (produced in the first ms), the group reading it from the start."""
    scenario = Scenario(kafka_version=version, group_type="share", topics={"t": 1}, produce_rate_per_s=rate,
                        duration_ms=records * 1000 // rate, consumer=consumer, broker=broker or {})
    world = World(scenario)
    world.coord.set_group_config(world.group_id, {"share.auto.offset.reset": "earliest"})
    return world


def _consumer(world: World, start_ms: int | None = None) -> ShareConsumer:
    """A manual consumer, joined and assigned: the first heartbeat joins (epoch 1, nothing assignable
    until the share state is initialized), the next one, 5 s later, assigns t-0."""
    c = world.add_consumer(world.sim.now if start_ms is None else start_ms)
    c.manual = True
    world.sim.advance(5001)
    assert c.assigned == [0]
    return c


def _offsets(records):
    return [(r.offset, r.delivery_count) for r in records]


def test_explicit_acknowledge_release_poll_accept():
    # ShareConsumerTest.testExplicitAcknowledgeReleasePollAccept (4.2)
    world = _world(1, **{"share.acknowledgement.mode": "explicit"})
    c = _consumer(world)
    records = c.poll()
    assert _offsets(records) == [(0, 1)]
    c.acknowledge(records[0], "RELEASE")
    records = c.poll()
    assert _offsets(records) == [(0, 2)]  # released: delivered again, count 2
    c.acknowledge(records[0], "ACCEPT")
    assert c.poll() == []
    assert world.share_partition(0).start_offset == 1


def test_explicit_acknowledge_release_then_accept_keeps_the_last():
    # ShareConsumerTest.testExplicitAcknowledgeReleaseAccept (4.2)
    world = _world(1, **{"share.acknowledgement.mode": "explicit"})
    c = _consumer(world)
    record = c.poll()[0]
    c.acknowledge(record, "RELEASE")
    c.acknowledge(record, "ACCEPT")
    assert c.poll() == []
    assert world.share_partition(0).start_offset == 1


def test_explicit_acknowledge_throws_not_in_batch():
    # ShareConsumerTest.testExplicitAcknowledgeThrowsNotInBatch (4.2)
    c = _consumer(_world(1, **{"share.acknowledgement.mode": "explicit"}))
    record = c.poll()[0]
    c.acknowledge(record)
    assert c.poll() == []
    with pytest.raises(IllegalStateException, match="^The record cannot be acknowledged.$"):
        c.acknowledge(record)


def test_implicit_acknowledge_fails_explicit():
    # ShareConsumerTest.testImplicitAcknowledgeFailsExplicit (4.2)
    c = _consumer(_world(1))
    record = c.poll()[0]
    assert c.poll() == []
    with pytest.raises(IllegalStateException, match="^Implicit acknowledgement of delivery is being used.$"):
        c.acknowledge(record)


def test_explicit_mode_poll_refuses_unacknowledged_records():
    c = _consumer(_world(2, **{"share.acknowledgement.mode": "explicit"}))
    records = c.poll()
    c.acknowledge(records[0])
    with pytest.raises(IllegalStateException, match=r"^All records must be acknowledged in explicit acknowledgement "
                                                    r"mode\.$"):  # ShareConsumerImpl (4.2)
        c.poll()


def test_implicit_acknowledge_commit_sync():
    # ShareConsumerTest.testImplicitAcknowledgeCommitSync (4.2): one partition's result, then none.
    world = _world(1)
    c = _consumer(world)
    assert len(c.poll()) == 1
    assert c.commit_sync() == {("t", 0): Errors.NONE}
    assert c.commit_sync() == {}
    assert c.poll() == []


def test_acquisition_lock_timeout_on_consumer():
    # ShareConsumerTest.testAcquisitionLockTimeoutOnConsumer (4.2), with the broker's 30 s lock: a record
    # fetched and not acknowledged before its lock expires is fetched again with count 2.
    world = _world(1)
    c = _consumer(world)
    assert _offsets(c.poll()) == [(0, 1)]
    c.delivered = []  # the application drops the batch without polling: nothing acknowledged
    world.sim.advance(30_000)
    assert world.share_partition(0).state(0) == "AVAILABLE"
    assert _offsets(c.poll()) == [(0, 2)]
    assert c.poll() == []
    assert world.share_partition(0).start_offset == 1


def test_poll_in_batch_optimized_and_record_limit_modes():
    # ShareConsumerTest.testPollInBatchOptimizedMode / testPollInRecordLimitMode (4.2): 10 records in one
    # batch (2 records/ms x linger.ms 5), max.poll.records=5.
    c = _consumer(_world(10, rate=2000, **{"max.poll.records": 5, "share.acquire.mode": "batch_optimized"}))
    assert len(c.poll()) == 10
    c = _consumer(_world(10, rate=2000, **{"max.poll.records": 5, "share.acquire.mode": "record_limit"}))
    assert [r.offset for r in c.poll()] == [0, 1, 2, 3, 4]


def test_delivery_count_after_closing_the_session_with_explicit_acknowledgement():
    # ShareConsumerTest.testDeliveryCountDifferentBehaviorWhenClosingSessionWithExplicitAcknowledgement (4.2):
    # record 0 RELEASEd and committed, record 1 released by close(); both come back with count 2 (4.2
    # keeps the count on a session release, KAFKA-19972).
    world = _world(2, **{"share.acknowledgement.mode": "explicit"})
    c = _consumer(world)
    records = c.poll()
    assert len(records) == 2
    c.acknowledge(records[0], "RELEASE")
    assert c.commit_sync() == {("t", 0): Errors.NONE}
    c.close()
    second = _consumer(world)
    assert _offsets(second.poll()) == [(0, 2), (1, 2)]


def test_behavior_on_delivery_count_boundary():
    # ShareConsumerTest.testBehaviorOnDeliveryCountBoundary (4.2), group.share.delivery.count.limit=3.
    world = _world(1, broker={"group.share.delivery.count.limit": 3}, **{"share.acknowledgement.mode": "explicit"})
    c = _consumer(world)
    records = c.poll()
    assert _offsets(records) == [(0, 1)]
    c.acknowledge(records[0], "RELEASE")
    assert c.commit_sync() == {("t", 0): Errors.NONE}
    assert _offsets(c.poll()) == [(0, 2)]
    c.close()  # released by the session close, count 2 < 3: AVAILABLE again
    assert _offsets(_consumer(world).poll()) == [(0, 3)]


def test_late_accept_after_the_lock_expired_fails_with_invalid_record_state():
    # Reference scenario S6: the lock expired and another member holds the record.
    world = _world(1)
    c = _consumer(world)
    assert len(c.poll()) == 1
    world.sim.advance(30_000)
    other = _consumer(world)
    assert _offsets(other.poll()) == [(0, 2)]
    assert c.commit_sync() == {("t", 0): Errors.INVALID_RECORD_STATE}


def test_renew_needs_kafka_4_2():
    c = _consumer(_world(1, version="4.1", broker={"group.share.enable": True},
                         **{"share.acknowledgement.mode": "explicit"}))
    record = c.poll()[0]
    with pytest.raises(ValueError, match="Invalid AcknowledgeType 'RENEW': one of ACCEPT, RELEASE, REJECT in Kafka 4.1"):
        c.acknowledge(record, "RENEW")


def test_renew_moves_the_lock_deadline():
    # KIP-1222 (4.2): RENEW re-arms a full lock; the record stays with this member past the first deadline.
    world = _world(1, **{"share.acknowledgement.mode": "explicit"})
    c = _consumer(world)
    record = c.poll()[0]
    acquired_at = world.sim.now
    world.sim.advance(20_000)
    c.acknowledge(record, "RENEW")
    assert c.commit_sync() == {("t", 0): Errors.NONE}
    world.sim.advance(15_000)  # past acquired_at + 30 s, before the renewed deadline
    assert world.sim.now > acquired_at + 30_000
    assert world.share_partition(0).state(0) == "ACQUIRED"
    c.acknowledge(record, "ACCEPT")
    assert c.commit_sync() == {("t", 0): Errors.NONE}
    assert world.share_partition(0).start_offset == 1
    assert isinstance(record, ShareRecord)


# -- pinned by mutation testing (issue 28 item 8) ---------------------------------------------------
def test_acknowledgements_out_of_order_keep_each_type_on_its_offsets():
    """`ShareConsumerImpl.acknowledge`: any order; the batches sent are per offset range and type
    (`AcknowledgementBatch`), only adjacent offsets of one type merge. ACCEPT 0, ACCEPT 2, RELEASE
    1: 0 and 2 are acknowledged, 1 alone goes back (SPSO 1) and is delivered again, count 2. The
    batch 0-2 stays cached, 0 included, while it holds a record not terminal."""
    world = _world(3, **{"share.acknowledgement.mode": "explicit"})
    c = _consumer(world)
    records = c.poll()
    assert _offsets(records) == [(0, 1), (1, 1), (2, 1)]
    c.acknowledge(records[0], "ACCEPT")
    c.acknowledge(records[2], "ACCEPT")
    c.acknowledge(records[1], "RELEASE")
    assert _offsets(c.poll()) == [(1, 2)]
    sp = world.share_partition(0)
    assert (sp.start_offset, sp.state(0), sp.state(2)) == (1, "ACKNOWLEDGED", "ACKNOWLEDGED")


def test_share_records_expand_each_acquired_range_from_its_first_offset():
    """`ShareFetchResponse.AcquiredRecords` (first, last, delivery count): poll() returns the
    records first..last of the range, each with the range's delivery count."""
    from kafkasim.client.share_consumer import share_records
    got = share_records([(0, 3, 4, 2), (1, 7, 7, 1)], [("t", 0), ("u", 5)])
    assert got == [ShareRecord("t", 0, 3, 2), ShareRecord("t", 0, 4, 2), ShareRecord("u", 5, 7, 1)]


def test_a_share_consumer_starts_as_a_dynamic_member_and_joins():
    """A share consumer has no group.instance.id (ShareConsumerConfig refuses it), so it always
    starts as a dynamic member; its first state is joining (the ShareGroupHeartbeat with epoch 0)."""
    world = _world(3)
    _consumer(world)
    rows = [(r[4], r[9]) for r in world.rows if r[1] == "consumer" and r[3] == "c-1"]
    assert rows[:2] == [("Started", "dynamic"), ("StateChanged", "joining")]


def test_implicit_acknowledgement_accepts_exactly_the_delivered_ranges():
    """`acknowledgeBatchIfImplicitAcknowledgement`: commitSync() accepts the records the last
    poll() delivered, range by range. c1 holds 0-4 and releases 0-1 and 3-4 (2 stays its own); c2
    gets 0-1 and 3-4 (second delivery), and its commit accepts those four, not offset 2 between
    them, which c1 still holds: no error, SPSO stays 2."""
    world = _world(5)
    c1 = _consumer(world)
    assert _offsets(c1.poll()) == [(o, 1) for o in range(5)]
    sp = world.share_partition(0)
    assert sp.acknowledge(c1.member_id, [(0, 1, "RELEASE"), (3, 4, "RELEASE")]) is Errors.NONE
    c2 = _consumer(world)
    assert _offsets(c2.poll()) == [(0, 2), (1, 2), (3, 2), (4, 2)]
    assert c2.commit_sync() == {("t", 0): Errors.NONE}
    assert [sp.state(o) for o in range(5)] == ["ACKNOWLEDGED", "ACKNOWLEDGED", "ACQUIRED", "ACKNOWLEDGED",
                                               "ACKNOWLEDGED"]
    assert (sp.owner(2), sp.start_offset) == (c1.member_id, 2)


def test_retry_backoff_is_read_and_an_unexplained_loss_is_a_rebalance():
    """retry.backoff.ms (CommonClientConfigs, default 100) spaces the heartbeat retries; a share
    consumer's partitions go to another member for a rebalance unless it was fenced or crashed."""
    c = _consumer(_world(1, **{"retry.backoff.ms": 250}))
    assert c.retry_backoff_ms == 250
    assert c.loss_cause() == "rebalance"
    assert _consumer(_world(1)).retry_backoff_ms == 100


def test_close_at_the_end_of_a_network_cut_reaches_the_coordinator():
    """A network cut loses requests while it lasts, [start, start + duration): a close() at the
    moment it ends (the network back) sends the leave heartbeat (epoch -1) and the member is gone
    at once, without waiting for share.session.timeout.ms."""
    world = _world(3)
    c = _consumer(world)
    assert _offsets(c.poll()) == [(0, 1), (1, 1), (2, 1)]
    c.cut_network(1000)
    world.sim.advance(1000)
    assert c.cut_until == world.sim.now
    c.close()
    assert world.coord.member_ids(world.group_id) == []
    # the share session's close reaches the leader too: implicit mode releases the last poll's records
    assert [world.share_partition(0).state(o) for o in range(3)] == ["AVAILABLE"] * 3


# -- pinned by mutation testing (issue 29) ------------------------------------------------------------
def _renew_rows(*faults):
    """500 records (1/ms for 500 ms), 80 ms of processing each (a 40 s batch, the lock 30 s), RENEW
    every 10 s (KIP-1222, 4.2): c-1's share rows."""
    from kafkasim.scenario import simulate
    run = simulate(Scenario(kafka_version="4.2", group_type="share", members=1, topics={"t": 1},
                            produce_rate_per_s=1000, duration_ms=500, drain_ms=120_000, processing_ms=80.0,
                            start_spread_ms=0, consumer={"share.acknowledgement.mode": "explicit"},
                            share_renew_ms=10_000, faults=list(faults)))
    kinds = ("Acquired", "Acknowledged", "LockExpired", "RecordStateChanged")
    return [(r[0], r[4], r[9], r[8]) for r in run.rows if r[4] in kinds]


@pytest.mark.parametrize("fault", ["Pause", "SlowProcessing"])
def test_a_frozen_application_renews_when_it_thaws_then_every_renew_period_from_there(fault):
    """A GC pause (or a thread stuck in application code) stops the application thread: the RENEW
    due at 15000 (5000 + 10 s) is sent when it runs again at 22000 (held 12000-22000), the next
    ones 10 s apart from there (32000, 42000, 52000); the batch acquired at 5000 ends 40 s + 10 s
    held later (55000), and its ACCEPT then succeeds: each RENEW re-armed a full 30 s lock."""
    from kafkasim.core import faults as F
    assert _renew_rows(getattr(F, fault)("c-1", 12_000, 10_000)) == [
        (5000, "Acquired", "0-499", None),
        (22000, "Acknowledged", "RENEW 0-499", None), (32000, "Acknowledged", "RENEW 0-499", None),
        (42000, "Acknowledged", "RENEW 0-499", None), (52000, "Acknowledged", "RENEW 0-499", None),
        (55000, "RecordStateChanged", "0-499", None), (55000, "Acknowledged", "ACCEPT 0-499", None)]


def _membership_rows(run):
    """(time, member, kind, "topic-partition" or state) of the consumers' membership rows."""
    kinds = ("StateChanged", "PartitionsAssigned", "PartitionsRevoked", "PartitionsLost")
    return [(r[0], r[3], r[4], f"{r[6]}-{r[7]}" if r[4] != "StateChanged" else r[9])
            for r in run.rows if r[1] == "consumer" and r[4] in kinds]


def test_a_partition_moved_by_the_assignor_is_revoked_at_the_members_next_heartbeat():
    """4.2's SimpleHomogeneousAssignmentBuilder: c-2 joining at 6000 makes both quotas 1 of 2
    partitions, so c-1 (t-0, t-1) is trimmed to one (revokeOverfilledMembers) and c-2 gets the
    other at its first heartbeat. c-1 learns it at its next heartbeat, 5 s after the last (5000):
    a share consumer has no rebalance listener, the partition is just gone (PartitionsRevoked, not
    PartitionsLost, which is for a fenced member)."""
    from kafkasim.core import faults as F
    from kafkasim.scenario import simulate
    run = simulate(Scenario(kafka_version="4.2", group_type="share", members=1, topics={"t": 2},
                            produce_rate_per_s=1000, processing_ms=0.5, start_spread_ms=0, duration_ms=12_000,
                            drain_ms=10_000, faults=[F.ScaleOut(6000, 1)]))
    assert _membership_rows(run)[4:] == [
        (6000, "c-2", "StateChanged", "joining"), (6000, "c-2", "PartitionsAssigned", "t-0"),
        (6000, "c-2", "StateChanged", "consuming"), (10000, "c-1", "PartitionsRevoked", "t-0")]


def test_a_fenced_member_polls_as_joining_until_its_rejoin_heartbeat_brings_partitions():
    """ShareMembershipManager.transitionToFenced: the assignment is lost and the member rejoins
    with epoch 0. c-2's network is cut 5100-55100, past share.session.timeout.ms (45 s after its
    last heartbeat, 5000): its heartbeats, retried 1000 ms apart, reach the coordinator at 55500
    and get UNKNOWN_MEMBER_ID. Its poll (every 100 ms, poll_resolution_ms) at 55500 then finds
    no partition: "joining" (epoch 0: no generation), until the rejoin heartbeat assigns t-0 again
    (epoch 5)."""
    from kafkasim.core import faults as F
    from kafkasim.scenario import simulate
    run = simulate(Scenario(kafka_version="4.2", group_type="share", members=2, topics={"t": 1},
                            produce_rate_per_s=1000, processing_ms=0.5, start_spread_ms=0, duration_ms=8000,
                            drain_ms=60_000, poll_resolution_ms=100, faults=[F.NetworkCut("c-2", 5100, 50_000)]))
    rows = [r for r in _membership_rows(run) if r[1] == "c-2"]
    assert rows[3:] == [(55500, "c-2", "PartitionsLost", "t-0"), (55500, "c-2", "StateChanged", "joining"),
                        (55500, "c-2", "PartitionsAssigned", "t-0"), (55500, "c-2", "StateChanged", "consuming")]
    # The generation column is the member epoch: 3 when the loss is seen, none while rejoining, then 5.
    assert [(r[4], r[5]) for r in run.rows if r[3] == "c-2" and r[0] == 55500 and r[1] == "consumer"] == [
        ("PartitionsLost", 3), ("StateChanged", None), ("PartitionsAssigned", 5), ("StateChanged", 5)]


def test_share_fetch_batch_size_is_max_poll_records():
    """ShareSessionHandler.newShareFetchBuilder (4.2) sends MaxRecords = BatchSize =
    max.poll.records; SharePartition.createBatches cuts the acquired records at a log-batch
    boundary only once a chunk reaches BatchSize. max.poll.records=1000 over 1000 records (log
    batches of 5): one ShareFetch acquires 0-999 as ONE range, not cut at Kafka's default 500."""
    world = _world(1000, **{"max.poll.records": 1000})
    c = _consumer(world)
    assert len(c.poll()) == 1000
    assert [r[9] for r in world.rows if r[4] == "Acquired"] == ["0-999"]


def _fetches(max_poll_records: int, polls: int, topics=None) -> list[list[tuple[int | str, str]]]:
    """t-0..t-2 hold 10 records each in log batches of 3 (0.6 records/ms x linger.ms 5); one manual
    consumer assigned all three: the (partition, "first-last") ranges each poll() acquires. With
    `topics`, those topics share the 0.6 records/ms, and ranges name their "topic-partition"."""
    scenario = Scenario(kafka_version="4.2", group_type="share", topics=topics or {"t": 3}, produce_rate_per_s=600,
                        duration_ms=50, consumer={"max.poll.records": max_poll_records})
    world = World(scenario)
    world.coord.set_group_config(world.group_id, {"share.auto.offset.reset": "earliest"})
    c = world.add_consumer(0)
    c.manual = True
    world.sim.advance(5001)  # joined, then assigned every partition at the next heartbeat (as _consumer)
    assert c.assigned == list(range(len(world.partitions.tps)))
    fetches = []
    for _ in range(polls):
        start = len(world.rows)
        c.poll()
        fetches.append([(f"{r[6]}-{r[7]}" if topics else r[7], r[9]) for r in world.rows[start:] if r[4] == "Acquired"])
    return fetches


def test_a_share_fetch_asks_the_partitions_in_turn_from_the_one_after_the_last_that_filled_it():
    """The module's simplification of the share session's fetch: one ShareFetch asks the assigned
    partitions in turn until max.poll.records is reached, the next one starting at the partition
    after the one that filled it. max.poll.records=5 takes whole batches (the soft limit): fetches
    1-3 take 0-5 of t-0, t-1, t-2 (the batch holding offset 4 ends at 5). Fetch 4 from t-0: 6-9 (4,
    1 left), then t-1: 6-8 fills it (the second partition asked: the next starts at t-2). Fetch 5:
    t-2 6-9 (1 left), t-0 has nothing, t-1 9-9. max.poll.records=3: one batch fills each fetch
    exactly, so each fetch moves on to the next partition."""
    assert _fetches(5, 6) == [[(0, "0-5")], [(1, "0-5")], [(2, "0-5")], [(0, "6-9"), (1, "6-8")],
                              [(2, "6-9"), (1, "9-9")], []]
    assert _fetches(3, 4) == [[(0, "0-2")], [(1, "0-2")], [(2, "0-2")], [(0, "3-5")]]


def test_a_manual_poll_under_a_network_cut_gets_nothing_and_fetches_again_when_it_ends():
    """A network cut loses requests while it lasts, [start, start + duration): a poll() during it
    sends nothing that arrives (no records); at its end the ShareFetch gets the record."""
    world = _world(1)
    c = _consumer(world)
    c.cut_network(1000)
    assert c.poll() == []
    world.sim.advance(1000)
    assert _offsets(c.poll()) == [(0, 1)]


def _consumer_rows(world, start):
    return [(r[4], r[6], r[7], r[9], r[10]) for r in world.rows[start:] if r[1] == "consumer"]


def test_close_gives_up_the_partitions_as_rows_and_leaves_once_joined():
    """`ShareConsumerImpl.close`: no rebalance listener, so the partitions given up are rows
    (PartitionsRevoked), then Closed and the thread stopped. The leave heartbeat (epoch -1) removes
    a member that joined (epoch 1 after its first heartbeat); one that never sent a heartbeat is
    unknown to the coordinator, which hears nothing from it (kafkasim sends no request). A crash
    gives up nothing by hand: Crashed (value: the partitions held) and stopped."""
    world = _world(1)
    c = _consumer(world)
    start = len(world.rows)
    c.close()
    assert _consumer_rows(world, start) == [("PartitionsRevoked", "t", 0, None, None), ("Closed", None, None, None, None),
                                            ("StateChanged", None, None, "stopped", None)]
    assert world.coord.member_ids(world.group_id) == []
    world = _world(1)
    joined = world.add_consumer(0)
    world.sim.advance(1)  # epoch 1, nothing assigned yet
    assert joined.epoch == 1
    joined.close()
    assert world.coord.member_ids(world.group_id) == []
    world = _world(1)
    never = world.add_consumer(0)
    never.start()  # started by hand before its first heartbeat: epoch 0
    start = len(world.rows)
    never.close()
    assert [r[4] for r in world.rows[start:] if r[1] == "coordinator"] == []
    world = _world(1)
    c = _consumer(world)
    start = len(world.rows)
    c.crash()
    assert _consumer_rows(world, start) == [("Crashed", None, None, None, 1), ("StateChanged", None, None, "stopped", None)]


def test_explicit_mode_checks_only_the_records_of_the_last_poll():
    """ShareConsumerImpl checks that every record the last poll() returned was acknowledged, and
    only those: record_limit mode with max.poll.records=1 delivers 0, then 1; acknowledging 1 is
    enough for the third poll (0 went with the second)."""
    c = _consumer(_world(2, **{"share.acknowledgement.mode": "explicit", "share.acquire.mode": "record_limit",
                               "max.poll.records": 1}))
    first = c.poll()
    assert _offsets(first) == [(0, 1)]
    c.acknowledge(first[0])
    second = c.poll()
    assert _offsets(second) == [(1, 1)]
    c.acknowledge(second[0])
    assert c.poll() == []


def test_acknowledgements_sent_as_a_network_cut_ends_arrive():
    """The cut is [start, start + duration): a commitSync() at its end reaches the leader."""
    world = _world(1)
    c = _consumer(world)
    assert len(c.poll()) == 1
    c.cut_network(1000)
    world.sim.advance(1000)
    assert c.commit_sync() == {("t", 0): Errors.NONE}



@pytest.mark.parametrize("crash_at,states", [(999, ["ACQUIRED"] * 3), (1000, ["AVAILABLE"] * 3)])
def test_a_crash_releases_the_records_only_once_the_network_cut_has_ended(crash_at, states):
    """From 4.1 the leader releases a crashed share consumer's records when its connection closes; a cut
    network carries no FIN. The cut is [start, start + duration): a crash 1 ms before its end leaves the
    records locked (until their locks expire), a crash at its end releases them at once."""
    world = _world(3)
    c = _consumer(world)
    assert _offsets(c.poll()) == [(0, 1), (1, 1), (2, 1)]
    c.cut_network(1000)
    world.sim.advance(crash_at)
    c.crash()
    assert [world.share_partition(0).state(o) for o in range(3)] == states

# -- pinned by mutation testing (issue 29) ----------------------------------------------------------
def test_an_unknown_acknowledge_type_names_the_four_of_4_2():
    """`AcknowledgeType` (4.2, KIP-1222): ACCEPT, RELEASE, REJECT and RENEW; 4.1 has the first three."""
    c = _consumer(_world(1, **{"share.acknowledgement.mode": "explicit"}))
    record = c.poll()[0]
    with pytest.raises(ValueError) as e:
        c.acknowledge(record, "DROP")
    assert str(e.value) == "Invalid AcknowledgeType 'DROP': one of ACCEPT, RELEASE, REJECT, RENEW in Kafka 4.2"


def test_only_a_record_of_the_last_poll_can_be_acknowledged():
    """`ShareInFlightBatch.acknowledge`: the record's partition and offset must be in the batch
    the last poll() returned; another offset of the same partition is refused."""
    c = _consumer(_world(3, **{"share.acknowledgement.mode": "explicit"}))
    assert _offsets(c.poll()) == [(0, 1), (1, 1), (2, 1)]
    for record in (ShareRecord("t", 0, 3, 1), ShareRecord("u", 0, 1, 1)):
        with pytest.raises(IllegalStateException, match="^The record cannot be acknowledged.$"):
            c.acknowledge(record)
    c.acknowledge(ShareRecord("t", 0, 2, 1))


def test_a_renewed_record_must_still_be_acknowledged_before_the_next_poll():
    """KIP-1222: RENEW extends the lock but is not a final acknowledgement, so explicit mode's
    next poll() still refuses while the record has no ACCEPT, RELEASE or REJECT."""
    world = _world(1, **{"share.acknowledgement.mode": "explicit"})
    c = _consumer(world)
    record = c.poll()[0]
    c.acknowledge(record, "RENEW")
    with pytest.raises(IllegalStateException, match="^All records must be acknowledged in explicit"):
        c.poll()
    c.acknowledge(record, "ACCEPT")
    assert c.poll() == [] and world.share_partition(0).start_offset == 1


@pytest.mark.parametrize("version", ["4.0", "4.1"])
def test_a_fenced_share_member_loses_its_partitions_as_fenced_and_rejoins_with_its_id_from_4_1(version):
    """`transitionToFenced`: the partitions are lost because of the fence, the member rejoins with
    epoch 0; 4.0 asks the coordinator for a new member id, 4.1+ keeps its own Uuid (KIP-1082).
    Here the coordinator forgets the member (its leave, sent behind its back at 5001); its next
    heartbeat, at 10000, is answered UNKNOWN_MEMBER_ID."""
    world = _world(1, version=version, broker={"group.share.enable": True})
    c = _consumer(world)
    old = c.member_id
    world.coord.share_group_heartbeat(world.group_id, old, -1)
    world.sim.advance(5000)
    assert c.loss_cause() == "fenced" and c.assigned == [0]
    assert [(r[0], r[4]) for r in world.sim.events.rows if r[1] == "consumer" and r[0] == 10000] == \
        [(10000, "PartitionsLost"), (10000, "PartitionsAssigned")]
    assert (c.member_id == old) is (version == "4.1") and len(c.member_id) == 22
    assert world.coord.share_group_heartbeat(world.group_id, c.member_id, c.epoch).error is Errors.NONE


# -- pinned by mutation testing (issue 29, session 4) -------------------------------------------------
def _sent_heartbeats(world: World, answer=None) -> list[tuple[int, str, int, list | None]]:
    """Every ShareGroupHeartbeat that reaches the coordinator, as (time, consumer, member epoch,
    SubscribedTopicNames); `answer(now)` may name an error the coordinator answers instead, as
    Kafka's ShareHeartbeatRequestManagerTest completes a request with the error it tests."""
    from kafkasim.coordinator.modern.share import ShareGroupHeartbeatResponse
    sent, real = [], world.coord.share_group_heartbeat

    def heartbeat(group_id, member_id, member_epoch, subscribed_topic_names=None):
        sent.append((world.sim.now, world.member_names.get(member_id), member_epoch, subscribed_topic_names))
        error = answer(world.sim.now) if answer else None
        if error is not None:
            return ShareGroupHeartbeatResponse(error=error)
        return real(group_id, member_id, member_epoch, subscribed_topic_names=subscribed_topic_names)
    world.coord.share_group_heartbeat = heartbeat
    return sent


def test_a_share_heartbeat_names_the_subscribed_topics_only_when_joining():
    """ShareHeartbeatRequestManager.HeartbeatState.buildRequestData (4.2): SubscribedTopicNames "only
    sent when joining or if it has changed since the last heartbeat" (a share consumer's subscription
    never changes here). c-1 joins at 0 (epoch 0, topic t), is assigned t-0 at 5000 (epoch 2, the
    share state initialized) and acknowledges it at once; its leave, sent behind its back at 5001,
    bumps the group to epoch 3, so its heartbeat at 10000 is fenced (UNKNOWN_MEMBER_ID) and it
    rejoins at once with epoch 0 and t again, assigned t-0 at epoch 4."""
    world = _world(1)
    sent = _sent_heartbeats(world)
    c = _consumer(world)
    world.coord.share_group_heartbeat(world.group_id, c.member_id, -1)  # the coordinator forgets it
    world.sim.advance(5000)
    assert sent == [(0, "c-1", 0, ["t"]), (5000, "c-1", 1, None), (5000, "c-1", 2, None), (5001, "c-1", -1, None),
                    (10000, "c-1", 2, None), (10000, "c-1", 0, ["t"]), (10000, "c-1", 4, None)]


def test_a_heartbeat_answered_coordinator_load_in_progress_is_retried_after_a_doubling_backoff():
    """AbstractHeartbeatRequestManager.onErrorResponse (4.2): COORDINATOR_LOAD_IN_PROGRESS is retried,
    after `HeartbeatRequestState.onFailedAttempt`'s backoff: retry.backoff.ms (250 here), doubled
    after each failure (RequestState's ExponentialBackoff, base 2; kafkasim has no jitter). The
    heartbeat at 5000 and its retry at 5250 are answered so; the one at 5750 is answered and assigns
    t-0 (acknowledged at once). No error reaches the application (ShareHeartbeatRequestManagerTest.
    testHeartbeatResponseOnErrorHandling)."""
    world = _world(1, **{"retry.backoff.ms": 250})
    loading = Errors.COORDINATOR_LOAD_IN_PROGRESS
    sent = _sent_heartbeats(world, lambda now: loading if 5000 <= now < 5500 else None)
    c = world.add_consumer(0)
    c.manual = True
    world.sim.advance(6000)
    assert [t for t, *_ in sent] == [0, 5000, 5250, 5750, 5750]
    assert c.alive and c.assigned == [0] and not [r for r in world.rows if r[4] == "Fatal"]


def test_a_member_over_group_share_max_size_fails_fatally():
    """AbstractHeartbeatRequestManager.onErrorResponse (4.2): GROUP_MAX_SIZE_REACHED is fatal
    (handleFatalFailure; ShareHeartbeatRequestManagerTest's errorProvider: isFatal). With
    group.share.max.size=1, c-2's first heartbeat is refused (`throwIfShareGroupIsFull`): the
    consumer stops, naming the error and the exception the application gets, and sends no more."""
    world = _world(1, broker={"group.share.max.size": 1})
    sent = _sent_heartbeats(world)
    _consumer(world)
    start = len(world.rows)
    world.add_consumer(world.sim.now)
    world.sim.advance(20_000)
    assert _consumer_rows(world, start)[:4] == [
        ("Started", None, None, "dynamic", None), ("StateChanged", None, None, "joining", None),
        ("Fatal", None, None, "GroupMaxSizeReachedException", None), ("StateChanged", None, None, "stopped", None)]
    assert [r[8] for r in world.rows[start:] if r[4] == "Fatal"] == ["GROUP_MAX_SIZE_REACHED"]
    assert [t for t, who, *_ in sent if who == "c-2"] == [5001]


def test_heartbeats_lost_to_a_network_cut_back_off_from_retry_backoff_ms_doubling_up_to_1_s():
    """RequestState.onFailedAttempt (4.2): a heartbeat lost on the wire is retried after
    retry.backoff.ms (100), doubled each time up to retry.backoff.max.ms (1000); a success starts
    again from 100. c-1's network is cut from its start, 0-4000: its heartbeats at 0, 100, 300, 700,
    1500, 2500 and 3500 are lost, the one at 4500 joins. Cut again 9000-10000: the heartbeat due at
    9500 is lost, then 9600 and 9800; the one at 10200 assigns t-0, acknowledged at once."""
    world = _world(1)
    sent = _sent_heartbeats(world)
    c = world.add_consumer(0)
    c.manual = True
    world.sim.at(0, c.cut_network, 4000)  # after the start, before the first heartbeat
    world.sim.at(9000, c.cut_network, 1000)
    world.sim.advance(12_000)
    assert [t for t, *_ in sent] == [4500, 10200, 10200]


@pytest.mark.parametrize("version", ["4.0", "4.1"])
def test_every_member_id_of_a_share_run_names_its_consumer(version):
    """`Run.member_names` maps each member id to the consumer that held it: in 4.0 the coordinator's
    id, from 4.1 the client's own Uuid (KIP-1082); a new one either way for a new process: c-1 is
    restarted at 20 s (down 1 s) and joins again as a new member."""
    from kafkasim.core import faults as F
    from kafkasim.scenario import simulate
    scenario = Scenario(kafka_version=version, group_type="share", members=2, topics={"t": 2},
                        produce_rate_per_s=1000, duration_ms=30_000, start_spread_ms=0,
                        broker={"group.share.enable": True}, faults=[F.Restart("c-1", 20_000, 1000)])
    run = simulate(scenario)
    joined = [r[3] for r in run.rows if r[1] == "coordinator" and r[4] == "MemberJoined"]
    assert [run.member_names[m] for m in joined] == ["c-1", "c-2", "c-1"]


def test_a_consumers_member_ids_do_not_depend_on_the_other_consumers():
    """Each consumer draws its member ids (4.1+, KIP-1082) from a random stream of its own
    (`Simulation.random`): c-1's ids, before and after a restart, are the same whether c-2 runs
    beside it or not (c-2's id drawn between them)."""
    from kafkasim.core import faults as F
    from kafkasim.scenario import simulate

    def ids(members):
        run = simulate(Scenario(kafka_version="4.2", group_type="share", members=members, topics={"t": 1},
                                produce_rate_per_s=100, duration_ms=10_000, start_spread_ms=0,
                                faults=[F.Restart("c-1", 5000, 1000)]))
        return [m for m, name in run.member_names.items() if name == "c-1"]
    alone = ids(1)
    assert len(alone) == 2 and ids(2) == alone


def test_acknowledging_before_any_poll_is_refused():
    """ShareFetch.acknowledge (4.2): a record of no batch the last poll() returned cannot be
    acknowledged, and before the first poll() there is none."""
    c = _consumer(_world(1, **{"share.acknowledgement.mode": "explicit"}))
    with pytest.raises(IllegalStateException, match="^The record cannot be acknowledged.$"):
        c.acknowledge(ShareRecord("t", 0, 0, 1))


def test_adjacent_acknowledgements_of_one_type_go_as_one_batch():
    """Acknowledgements.getAcknowledgementBatches (4.2): consecutive offsets of one type are one
    AcknowledgementBatch, whatever their delivery counts. c-1 acquires 0-9, releases 0-4, then
    crashes (4.1: 5-9 released with the count given back, KAFKA-17541); c-2 acquires 0-4 (second
    delivery) and 5-9 (first) as two ranges, and its commitSync accepts 0-9 as one batch."""
    world = _world(10, version="4.1", broker={"group.share.enable": True})
    c1 = _consumer(world)
    assert len(c1.poll()) == 10
    assert world.share_partition(0).acknowledge(c1.member_id, [(0, 4, "RELEASE")]) is Errors.NONE
    c1.crash()
    c2 = _consumer(world)
    assert _offsets(c2.poll()) == [(o, 2) for o in range(5)] + [(o, 1) for o in range(5, 10)]
    start = len(world.rows)
    assert c2.commit_sync() == {("t", 0): Errors.NONE}
    assert [(r[4], r[9], r[10]) for r in world.rows[start:] if r[1] == "consumer"] == [("Acknowledged", "ACCEPT 0-9", 10)]


def test_a_share_fetch_skips_a_partition_read_to_its_end_and_asks_the_next():
    """The fetch of `test_a_share_fetch_asks_the_partitions_in_turn...`, over a-0 (15 records: 0.3
    records/ms, log batches of 1) and b-0..b-2 (5 each), max.poll.records=5: fetches 1-5 fill from
    a-0, b-0, b-1, b-2, a-0; the sixth starts at b-0, which has nothing past its last offset, as b-1
    and b-2: it goes on to a-0."""
    assert _fetches(5, 6, {"a": 1, "b": 3}) == [[("a-0", "0-4")], [("b-0", "0-4")], [("b-1", "0-4")],
                                                [("b-2", "0-4")], [("a-0", "5-9")], [("a-0", "10-14")]]
