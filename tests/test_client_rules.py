"""Rules of the client (`kafkasim.client`) pinned by name (issue 29), each from Kafka's or
librdkafka's source, never from the code's output: the order Java iterates a partition set in
(`new HashSet<>(collection)` before 3.2, printed here by Java 17; a TreeSet from 3.2), what a closing
consumer logs and tells the coordinator, which heartbeat errors librdkafka logs a rebalance for, and
which heartbeat and commit errors end a classic Java consumer."""

from __future__ import annotations

import pytest

from kafkasim.client.client_log import JavaClassicLog, LibrdkafkaLog, hash_set_order
from kafkasim.client.consumer import Consumer
from kafkasim.core import faults as F
from kafkasim.scenario import Scenario, simulate
from kafkasim.scenario.world import World

ORDERS_12 = [("orders", p) for p in range(12)]
#: `new HashSet<>(12 TopicPartitions orders-0..orders-11)` printed by Java 17: 12 / .75 + 1 = 17 makes
#: 32 buckets (16 would hold them at .75 load only up to 12 exclusive), TopicPartition.hashCode
#: = 31 * (31 + partition) + topic.hashCode().
JAVA_HASH_SET_12 = [("orders", p) for p in (7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6)]


#: The same for orders-0..11 and payments-0..11: 24 / .75 + 1 = 33 makes 64 buckets.
JAVA_HASH_SET_24 = ("payments-4, orders-8, payments-6, orders-10, payments-0, payments-2, payments-8, payments-10, "
                    "orders-1, orders-3, orders-5, orders-7, payments-3, orders-9, payments-5, orders-11, payments-1, "
                    "payments-11, payments-7, payments-9, orders-0, orders-2, orders-4, orders-6")


def test_a_partition_hash_set_sizes_its_table_as_hash_set_of_a_collection_does():
    assert hash_set_order(reversed(ORDERS_12)) == JAVA_HASH_SET_12
    both = ORDERS_12 + [("payments", p) for p in range(12)]
    assert [f"{t}-{p}" for t, p in hash_set_order(both)] == JAVA_HASH_SET_24.split(", ")


def java_log(version: str) -> tuple[list[str], JavaClassicLog]:
    lines: list[str] = []
    return lines, JavaClassicLog(lines, version, "consumer-g-1", "g")


@pytest.mark.parametrize("version, order", [("3.1", JAVA_HASH_SET_12), ("3.2", ORDERS_12)])
def test_revoked_partitions_are_listed_in_hash_set_order_before_3_2_and_sorted_from_3_2(version, order):
    """MINOR #11584 (3.2.0) made ConsumerCoordinator's partition sets TreeSets."""
    lines, log = java_log(version)
    log.revoked(0, list(reversed(ORDERS_12)))
    assert lines == [
        "[2026-01-01 00:00:00,000] INFO [Consumer clientId=consumer-g-1, groupId=g] Revoke previously assigned "
        f"partitions {', '.join(f'{t}-{p}' for t, p in order)} "
        "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"]


def test_a_closing_java_consumer_sends_its_leave_group_then_resets_as_leaving_pro_actively():
    """AbstractCoordinator.maybeLeaveGroup("the consumer is being closed") at 3.7.0, then
    resetStateAndRejoin("consumer pro-actively leaving the group")."""
    lines, log = java_log("3.7")
    log.closing(5_000, "m-1")
    p = "[2026-01-01 00:00:05,000] INFO [Consumer clientId=consumer-g-1, groupId=g] "
    c = " (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"
    assert lines == [
        f"{p}Member m-1 sending LeaveGroup request to coordinator localhost:9092 (id: 2147483647 rack: null) due to "
        f"the consumer is being closed{c}",
        f"{p}Resetting generation and member id due to: consumer pro-actively leaving the group{c}",
        f"{p}Request joining group due to: consumer pro-actively leaving the group{c}"]


@pytest.mark.parametrize("error, message, reset", [
    ("ILLEGAL_GENERATION", "Specified group generation id is not valid.", "Resetting generation due to"),
    ("UNKNOWN_MEMBER_ID", "The coordinator is not aware of this member.", "Resetting generation and member id due to")])
def test_a_commit_refused_for_its_generation_keeps_the_member_id(error, message, reset):
    """ConsumerCoordinator.OffsetCommitResponseHandler (3.2+, KAFKA-13419): "don't reset generation
    member ID when ILLEGAL_GENERATION, since the member might be still valid":
    resetStateOnResponseError(OFFSET_COMMIT, error, error != ILLEGAL_GENERATION)."""
    lines, log = java_log("3.7")
    log.commit_failed(5_000, error, message, 3, "m-1", "range")
    p = "[2026-01-01 00:00:05,000] INFO [Consumer clientId=consumer-g-1, groupId=g] "
    c = " (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"
    assert lines == [
        f"{p}OffsetCommit failed with Generation{{generationId=3, memberId='m-1', protocol='range'}}: {message}{c}",
        f"{p}{reset}: encountered {error} from OFFSET_COMMIT response{c}",
        f"{p}Request joining group due to: encountered {error} from OFFSET_COMMIT response{c}"]


def test_a_closed_consumer_gives_the_coordinator_its_reason_in_the_leave_group():
    """KIP-800 (3.2): KafkaConsumer.close sends LeaveGroup with reason "the consumer is being closed",
    which GroupCoordinator prints as the client reason."""
    result = simulate(Scenario(kafka_version="3.7", members=2, topics={"orders": 4}, duration_ms=60_000,
                               start_spread_ms=0, faults=[F.ScaleIn(at_ms=30_000, members=("c-2",))]))
    reasons = [line.split("client reason: ")[1] for line in result.broker_log
               if "through explicit `LeaveGroup`" in line]
    assert reasons == ["the consumer is being closed (kafka.coordinator.group.GroupCoordinator)"]


@pytest.mark.parametrize("cooperative, error, rebalance", [
    (False, "REBALANCE_IN_PROGRESS", "is rebalancing (EAGER) in state up (join-state steady) with 2 assigned "
                                     "partition(s): rebalance in progress"),
    # rd_kafka_cgrp_handle_Heartbeat: a cooperative member keeps its partitions on REBALANCE_IN_PROGRESS
    # (rd_kafka_cgrp_revoke_all_rejoin_maybe is EAGER's); it still rebalances on a lost member id.
    (True, "REBALANCE_IN_PROGRESS", None),
    (True, "UNKNOWN_MEMBER_ID", "initiating rebalance (COOPERATIVE) in state up (join-state steady) with 2 assigned "
                                "partition(s) (lost): resetting member-id"),
    # an illegal generation resets the generation and is handled as a lost member id, with its own reason
    (False, "ILLEGAL_GENERATION", "initiating rebalance (EAGER) in state up (join-state steady) with 2 assigned "
                                  "partition(s) (lost): illegal generation"),
])
def test_librdkafka_logs_a_rebalance_for_a_heartbeat_error_unless_cooperative_and_only_rebalancing(
        cooperative, error, rebalance):
    lines: list[str] = []
    log = LibrdkafkaLog(lines, "3.7", "rdkafka", "g")
    log.join_state = "steady"
    log.heartbeat_error(0, error, 1, "m-1", "range", 2, cooperative)
    assert len(lines) == (2 if rebalance else 1)
    if rebalance:
        assert lines[1] == f'%7|1767225600.000|REBALANCE|rdkafka#consumer-1| [thrd:main]: Group "g" {rebalance}'


@pytest.mark.parametrize("version, kept_by_consumer_1, to_consumer_4", [
    ("3.7", [0, 3], [2, 5]), ("3.8", [0, 2], [3, 5])])
def test_a_sticky_member_over_its_quota_keeps_its_owned_partitions_in_reported_order_before_3_8(
        version, kept_by_consumer_1, to_consumer_4):
    """AbstractStickyAssignor.assignOwnedPartitions: a member owning more than its quota keeps the first
    of its owned list, in the order its userData reported them (3.7) or sorted by partition (3.8+,
    KAFKA-16277); the pause scenario's group runs the assignor at the scenario's version. Eager sticky,
    6 partitions. Generation 1 (3 members, none owned): round robin, consumer-1 [0, 3], consumer-2
    [1, 4], consumer-3 [2, 5]. consumer-3 leaves: quota 3; each keeps its 2 and the free 2 and 5 go
    round robin: consumer-1 [0, 3, 2] (2 received last), consumer-2 [1, 4, 5]. consumer-4 joins:
    quota 2; consumer-1 keeps the first 2 of [0, 3, 2] (3.7) or of [0, 2, 3] (3.8), consumer-2 [1, 4],
    and consumer-4 gets the two left."""
    from kafkasim.client.pause_resume import PauseScenario, simulate_pause
    run = simulate_pause(PauseScenario(kafka_version=version, assignor="sticky", members=3, partitions=6,
                                       changes=((12_000, "leave", "consumer-3"), (18_000, "join"))))
    last = max(r[5] for r in run.rows if r[4] == "PartitionsAssigned")
    assigned: dict[str, list[int]] = {}
    for r in run.rows:
        if r[4] == "PartitionsAssigned" and r[5] == last:
            assigned.setdefault(r[3], []).append(r[7])
    assert last == 3
    assert assigned == {"consumer-1": kept_by_consumer_1, "consumer-2": [1, 4], "consumer-4": to_consumer_4}


def test_a_pause_scenarios_change_without_a_name_acts_on_the_last_live_member():
    """`changes=((t, "leave", None),)`: the member that leaves is the newest one still running."""
    from kafkasim.client.pause_resume import simulate_pause

    events = simulate_pause(members=3, changes=((12_000, "leave", None),)).events
    left = events[(events.time == 12_000) & (events.kind == "LeaveGroup")]
    assert left[["source", "member", "generation"]].values.tolist() == [["consumer", "consumer-3", 1]]


def one_member_world(**scenario) -> tuple[World, Consumer]:
    """A Kafka 3.7 run of one classic consumer c-1 started at 0 on 2 partitions, set up as `simulate`
    sets it up (offsets committed at 0, faults scheduled) but not run, for a test to add what a
    Scenario cannot: a second process, a coordinator losing the group."""
    world = World(Scenario(kafka_version="3.7", members=1, topics={"orders": 2}, duration_ms=60_000,
                           start_spread_ms=0, **scenario))
    world.coord.commit_offsets(world.group_id, "", -1, {tp: 0 for tp in world.partitions.tps})
    consumer = world.add_consumer(0)
    for fault in world.scenario.faults:
        fault.schedule(world)
    return world, consumer


def heartbeat_answers(world: World, member_id: str) -> list[tuple[int, str]]:
    return [(r[0], r[8]) for r in world.rows if r[1] == "coordinator" and r[4] == "Heartbeat" and r[3] == member_id]


@pytest.mark.parametrize("fault, last_ok_ms, fenced_ms", [
    # its poll thread stuck, its heartbeat thread beats on: 27 s is the first beat after the replacement
    (F.SlowProcessing("c-1", 20_000, duration_ms=20_000), 24_000, 27_000),
    # every thread frozen (a long GC): the beat due at 21 s goes out when it thaws at 40 s
    (F.Pause("c-1", 20_000, duration_ms=20_000), 18_000, 40_000)], ids=["stalled", "frozen"])
def test_a_static_member_fenced_by_its_replacement_stops_at_its_next_heartbeat(fault, last_ok_ms, fenced_ms):
    """KIP-345: a new process with the same group.instance.id takes the member's place in the group
    (here at 25 s, while the old one is stuck or frozen, within session.timeout.ms 45 s). The old
    one's next heartbeat is answered FENCED_INSTANCE_ID, and that error alone ends a classic Java
    consumer from its heartbeat thread: `AbstractCoordinator.HeartbeatThread.run` sets `failed` on a
    FencedInstanceIdException (any other failed heartbeat is retried), beats no more, and the next
    poll() throws it; kafkasim stops the consumer at that answer. By hand (3.7 defaults): the first JoinGroup is answered after group.initial.rebalance.delay.ms
    3 s, then a heartbeat every heartbeat.interval.ms 3 s: 6, 9, ..., 24, 27 s."""
    world, old = one_member_world(static_membership=True, faults=[fault])
    replacement = Consumer(world, "c-1 (new)", dict(old.config))  # same group.instance.id "c-1"
    world.sim.at(25_000, replacement.start)
    world.sim.run(until=60_000)
    assert heartbeat_answers(world, old.member_id)[-2:] == [(last_ok_ms, "NONE"), (fenced_ms, "FENCED_INSTANCE_ID")]
    fatal = [(r[0], r[8], r[9]) for r in world.rows if r[4] == "Fatal"]
    assert fatal == [(fenced_ms, "FENCED_INSTANCE_ID", "FencedInstanceIdException")]
    states = [(r[0], r[9]) for r in world.rows if r[3] == "c-1" and r[4] == "StateChanged"]
    assert states[-1] == (fenced_ms, "stopped")
    assert not old.alive and replacement.alive and sorted(replacement.owned) == [0, 1]


def test_a_heartbeat_answered_not_coordinator_does_not_end_the_consumer():
    """`AbstractCoordinator.HeartbeatResponseHandler`: COORDINATOR_NOT_AVAILABLE or NOT_COORDINATOR
    marks the coordinator unknown and the heartbeat is retried (`HeartbeatThread.run`: failHeartbeat);
    only FENCED_INSTANCE_ID ends the consumer. The coordinator stops coordinating the group at 20 s
    (`unload_group`, a failover); c-1's heartbeat at 21 s (3 s after the one at 18 s) is answered
    NOT_COORDINATOR, and c-1 runs on."""
    world, consumer = one_member_world()
    world.sim.at(20_000, world.coord.unload_group, world.group_id)
    world.sim.run(until=60_000)
    answers = heartbeat_answers(world, consumer.member_id)
    assert [a for a in answers if 18_000 <= a[0] <= 21_000] == [(18_000, "NONE"), (21_000, "NOT_COORDINATOR")]
    assert not [r for r in world.rows if r[4] == "Fatal"]
    assert consumer.alive and consumer.app_state == "consuming"


@pytest.mark.parametrize("consumer, fenced, rows", [
    # commitSync() after each batch: the batch ending at 26 s commits, is answered FENCED_INSTANCE_ID
    # and throws FencedInstanceIdException out of the poll loop (ConsumerCoordinator.commitOffsetsSync)
    ({"enable.auto.commit": False}, "FencedInstanceIdException",
     [(26_000, "Processed"), (26_000, "CommitFailed"), (26_000, "Fatal"), (26_000, "StateChanged")]),
    # auto-commit every 5 s from the join at 3 s: the one at 28 s is fenced and the next poll(),
    # after the batch ending at 29 s, throws it (ConsumerCoordinator.invokeCompletedOffsetCommitCallbacks:
    # asyncCommitFenced); heartbeats every 10 s (13, 23, 33 s) come too late to tell it first
    ({"heartbeat.interval.ms": 10_000}, "auto-commit failed (logged)",
     [(26_000, "Processed"), (26_000, "Fetched"), (27_000, "Processed"), (27_000, "Fetched"),
      (28_000, "Processed"), (28_000, "CommitFailed"), (28_000, "Fetched"), (29_000, "Processed"),
      (29_000, "Fatal"), (29_000, "StateChanged")])],
    ids=["commit-sync", "auto-commit"])
def test_a_static_member_whose_commit_is_answered_fenced_instance_id_stops_at_its_next_poll(consumer, fenced, rows):
    """KIP-345: the commits of a member replaced by a new process with its group.instance.id (at 25.5 s,
    between two of its batches) are answered FENCED_INSTANCE_ID, fatal to the application: commitSync()
    throws FencedInstanceIdException, and an asynchronous commit's fencing is thrown by the next poll().
    Batches end on the second here (poll_resolution_ms 1 s)."""
    world, old = one_member_world(static_membership=True, consumer=consumer)
    replacement = Consumer(world, "c-1 (new)", dict(old.config))  # same group.instance.id "c-1"
    world.sim.at(25_500, replacement.start)
    world.sim.run(until=40_000)
    after = [r for r in world.rows if r[3] == "c-1" and r[0] >= 25_500]
    assert [(r[0], r[4]) for r in after] == rows
    assert [(r[8], r[9]) for r in after if r[4] in ("CommitFailed", "Fatal", "StateChanged")] == [
        ("FENCED_INSTANCE_ID", fenced), ("FENCED_INSTANCE_ID", "FencedInstanceIdException"), (None, "stopped")]
    assert all(answer == "NONE" for _, answer in heartbeat_answers(world, old.member_id))
    assert not old.alive and replacement.alive


def test_a_pause_runs_repr_names_version_protocol_remedy_and_the_records_the_pause_let_through():
    """What a learner sees of a KAFKA-13463 run: Kafka's version, the rebalance protocol, the remedy,
    the records poll() returned to an application that had paused everything, and those never processed.
    Pausing again in onPartitionsAssigned (`repause_on_assigned`) lets none through on any version
    (pause_resume's REMEDIES); without it the eager rebalance at 12 s clears the pause flags. In 2.8
    with auto-commit off, consumer-2 expelled at 13 s commits nothing more: part of what was let through is
    fetched again from the last commit by the partitions' next owner, so fewer are lost than let through."""
    from kafkasim.client.pause_resume import simulate_pause
    none, repause = simulate_pause(), simulate_pause(remedy="repause_on_assigned")
    assert repr(none) == "<PauseRun Kafka 3.7 eager remedy=none: 1500 unexpected records, 1500 lost>"
    expelled = simulate_pause(kafka_version="2.8", changes=((12_000, "join"), (13_000, "lost", "consumer-2")),
                              consumer={"enable.auto.commit": False})
    assert repr(expelled) == "<PauseRun Kafka 2.8 eager remedy=none: 2500 unexpected records, 1500 lost>"
    assert (expelled.summary["unexpected_records"], expelled.summary["records_lost"]) == (2500, 1500)
    assert repr(repause) == "<PauseRun Kafka 3.7 eager remedy=repause_on_assigned: 0 unexpected records, 0 lost>"


def test_a_consumer_that_is_not_part_of_an_active_group_fails_its_commit_without_asking_the_broker():
    """ConsumerCoordinator.sendOffsetCommitRequest (2.4.0 to 3.7.0): with auto-assigned partitions and
    no stable generation it logs "Failing OffsetCommit request since the consumer is not part of an active
    group" and fails the commit with CommitFailedException, sending nothing. c-2's batch is stuck from
    60 s for 400 s; the heartbeat thread leaves the group at 359 s (max.poll.interval.ms 300 s after its
    poll at 59 s); the batch ends at 460 s and its commitSync() (auto-commit off) fails so."""
    run = simulate(Scenario(kafka_version="3.7", members=2, topics={"orders": 4}, duration_ms=500_000,
                            faults=[F.SlowProcessing("c-2", 60_000, 400_000)], client_log="java",
                            start_spread_ms=0, consumer={"enable.auto.commit": False}))
    failing = [line for line in run.client_logs["c-2"] if "Failing OffsetCommit" in line]
    assert failing == [
        "[2026-01-01 00:07:40,000] INFO [Consumer clientId=consumer-workbook-group-1, groupId=workbook-group] "
        "Failing OffsetCommit request since the consumer is not part of an active group "
        "(org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"]
    events = run.events
    failed = events[(events["member"] == "c-2") & (events["kind"] == "CommitFailed")]
    assert failed[["time", "error", "reason"]].values.tolist() == [
        [460_000, "UNKNOWN_MEMBER_ID", "CommitFailedException"]]
    ids = [member_id for member_id, name in run.member_names.items() if name == "c-2"]
    asked = events[(events["source"] == "coordinator") & (events["kind"] == "OffsetCommit")
                   & events["member"].isin(ids) & (events["time"] == 460_000)]
    assert ids and asked.empty  # the broker is never asked


@pytest.mark.parametrize("fault_list, join_times", [
    # c-2's JoinGroup at 0 ms is lost: sent again at 5 s (both steps of KIP-394's join); c-1 rejoins at 6 s
    ([F.NetworkCut("c-2", 0, 5_000)], [5_000, 5_000, 6_000]),
    # the answer to c-2's JoinGroup (6 s, when the delayed initial rebalance completes) is lost: at 8 s c-2
    # joins again with its member id, answered at once with the same generation
    ([F.NetworkCut("c-2", 1_000, 7_000)], [8_000]),
    # the lost answer's retry belongs to a process that crashed at 7 s: the new one, joining since 7.5 s,
    # sends nothing at 8 s
    ([F.NetworkCut("c-2", 1_000, 7_000), F.Restart("c-2", 7_000, delay_ms=500)], [7_500, 7_500, 9_000])],
    ids=["join-sent-in-cut", "answer-lost-in-cut", "answer-lost-then-restart"])
def test_a_join_lost_to_a_network_cut_is_sent_again_when_the_network_is_back(fault_list, join_times):
    """Consumer's docstring: JoinGroup/SyncGroup lost to a network cut are retried when the cut ends (the
    model's stand-in for AbstractCoordinator.joinGroupIfNeeded retrying after request.timeout.ms), by the
    process that sent them only. Two members from 0 ms; the coordinator's JoinGroup rows after 0 ms."""
    events = simulate(Scenario(members=2, topics={"orders": 4}, duration_ms=20_000, start_spread_ms=0,
                               faults=fault_list)).events
    joins = events[(events["kind"] == "JoinGroup") & (events["time"] > 0)]
    assert joins["time"].tolist() == join_times


# -- kafkasim.client.pause_resume: close(), expulsion and the behaviour matrix (KAFKA-13463) -----------------
def _member_rows(run, member: str, since: int) -> list[tuple]:
    """(time, kind, partition, reason, value) of `member`'s and the coordinator's events from `since`."""
    return [(r[0], r[4], r[7], r[9], r[10]) for r in run.rows
            if r[0] >= since and (r[1] == "coordinator" or r[3] == member)]


@pytest.mark.parametrize("version, auto_commit, rows", [
    # enable.auto.commit=false: close() commits nothing (the application commitSync()s each batch itself);
    # 2.4+ (KIP-429) onLeavePrepare -> onPartitionsRevoked(all 3), then the LeaveGroup
    ("3.7", False, [(12_000, "PartitionsRevoked", p, None, 3) for p in range(3)]
     + [(12_000, "LeaveGroup", None, None, None), (12_000, "MemberRemoved", None, "leave_group", None),
        (12_000, "RebalanceStarted", None, "removing member consumer-1: leave_group", None)]),
    # before 2.4 there is no onLeavePrepare: close() calls no rebalance callback
    ("2.3", False, [(12_000, "LeaveGroup", None, None, None), (12_000, "MemberRemoved", None, "leave_group", None),
                    (12_000, "RebalanceStarted", None, "removing member consumer-1: leave_group", None)]),
    ("2.3", True, [(12_000, "LeaveGroup", None, None, None)]),   # paused since 6010: positions already committed
])
def test_a_closing_pause_member_revokes_from_2_4_then_leaves(version, auto_commit, rows):
    from kafkasim.client.pause_resume import simulate_pause

    run = simulate_pause(kafka_version=version, changes=((12_000, "leave", "consumer-1"),), app_loop="pause_once",
                         consumer={"enable.auto.commit": auto_commit})
    assert _member_rows(run, "consumer-1", 12_000)[:len(rows)] == rows
    assert not [r for r in run.rows if r[3] == "consumer-1" and r[0] > 12_000]   # closed: it never polls again


@pytest.mark.parametrize("version", ["2.3", "3.7"])
def test_a_closing_pause_member_with_auto_commit_commits_its_positions_first(version):
    """ConsumerCoordinator.close: maybeAutoCommitOffsetsSync before onLeavePrepare and the LeaveGroup. consumer-1
    consumes (no pause) until it leaves at 12.1 s; its last auto-commit was at 8010 (the next is due 5000 ms later):
    close() commits each partition's position, the offset after the records poll() returned."""
    from kafkasim.client.pause_resume import simulate_pause

    run = simulate_pause(kafka_version=version, pause_at_ms=30_000, resume_at_ms=None, records_per_partition=50_000,
                         changes=((12_100, "leave", "consumer-1"),))
    returned = {p: sum(r[10] for r in run.rows if r[3] == "consumer-1" and r[4] == "RecordsReturned" and r[7] == p)
                for p in range(3)}
    commits = [(p, v) for t, kind, p, _, v in _member_rows(run, "consumer-1", 12_100) if kind == "Commit"]
    assert commits == [(p, returned[p]) for p in range(3)]
    kinds = [kind for _, kind, *_ in _member_rows(run, "consumer-1", 12_100)]
    revoked = ["PartitionsRevoked"] * 3 if version == "3.7" else []
    assert kinds[:len(commits) + len(revoked) + 1] == ["Commit"] * len(commits) + revoked + ["LeaveGroup"]


@pytest.mark.parametrize("version, callback", [("2.3", []), ("2.4", [(15_005, "PartitionsLost", p, None, 3.0)
                                                                       for p in range(3)])])
def test_a_member_closed_after_learning_it_was_expelled_calls_on_partitions_lost_and_commits_nothing(version, callback):
    """onLeavePrepare (2.4+): `generation == Generation.NO_GENERATION` -> invokePartitionsLost, not Revoked; an
    expelled member's auto-commit is not sent. consumer-1, expelled at 12 s (MemberRemoved: session_timeout),
    learns it from the heartbeat at 15 s (UNKNOWN_MEMBER_ID) while it processes a batch until 15010, and
    closes at 15005 still owning orders-0..2."""
    from kafkasim.client.pause_resume import simulate_pause

    run = simulate_pause(kafka_version=version, pause_at_ms=30_000, resume_at_ms=None, records_per_partition=50_000,
                         changes=((12_000, "lost", "consumer-1"), (15_005, "leave", "consumer-1")))
    ev = run.events
    removed = ev[(ev.kind == "MemberRemoved")]
    assert removed[["time", "member", "reason"]].values.tolist() == [
        [12_000, "consumer-1", "session_timeout"], [15_005, "consumer-1", "leave_group"]]
    assert _member_rows(run, "consumer-1", 15_000)[:len(callback) + 3] == [
        (15_000, "HeartbeatFailed", None, None, None), *callback, (15_005, "LeaveGroup", None, None, None),
        (15_005, "MemberRemoved", None, "leave_group", None)]


#: consumer-1 (orders-0..2 under range) had returned 3072, 2380 and 2048 records when it paused at 6010; each
#: fetch brings 1024 (max.partition.fetch.bytes 1 MiB / 1 KiB records), so it buffered 1024 + 692 + 1024 = 2740
#: (0 + 692 + 1024 returned and the reply to the fetch for orders-0 sent at 5810). A third member takes
#: orders-2 (range: 2 each; cooperative-sticky moves the one partition over its quota of 2).
BUFFERED, MOVED, RETAINED = 2740, 1024, 1024 + 692
COLUMNS = ("flag_of_retained", "flag_of_moved", "buffer_while_paused", "buffer_at_rebalance",
           "records_returned_from_buffer", "records_drained", "records_discarded_while_paused")
MATRIX = {
    # <= 2.3: Fetcher drains the paused partitions' data at the next poll; onJoinComplete's fresh state clears flags
    ("2.3", "eager", "join"): ("lost", "lost", "discarded at the next poll()", "-", 0, 0, BUFFERED),
    ("2.3", "eager", "lost"): ("lost", "-", "discarded at the next poll()", "-", 0, 0, BUFFERED),
    # 2.4 eager: the join blocks poll(); the retained partitions' data matches the committed offsets and is returned
    ("2.4", "eager", "join"): ("lost", "lost", "kept in the buffer",
                               "returned after the reassignment; drained (no longer assigned)", RETAINED, MOVED, 0),
    # expelled: consumer-2 owned and consumed orders-0..2 meanwhile, so consumer-1's buffer is behind the commits
    ("2.4", "eager", "lost"): ("lost", "-", "kept in the buffer", "discarded (stale offset)", 0, 0, 0),
    # cooperative: the retained partitions keep flag and buffer; the revoked one is drained
    ("2.4", "cooperative", "join"): ("kept", "lost", "kept in the buffer",
                                     "drained (no longer assigned); kept for retained partitions", 0, MOVED, 0),
    # onPartitionsLost clears everything; the first (two-phase) rebalance gives consumer-1 nothing: all drained
    ("2.4", "cooperative", "lost"): ("lost", "lost", "kept in the buffer", "drained (no longer assigned)", 0,
                                     BUFFERED, 0),
}
for _v in ("2.5", "3.7"):   # KAFKA-8421: poll() drains between onJoinPrepare and onJoinComplete
    MATRIX[(_v, "eager", "join")] = ("lost", "lost", "kept in the buffer", "drained (no longer assigned)", 0,
                                     BUFFERED, 0)
    MATRIX[(_v, "eager", "lost")] = ("lost", "-", "kept in the buffer", "drained (no longer assigned)", 0,
                                     BUFFERED, 0)
    MATRIX[(_v, "cooperative", "join")] = MATRIX[("2.4", "cooperative", "join")]
    MATRIX[(_v, "cooperative", "lost")] = MATRIX[("2.4", "cooperative", "lost")]


def test_the_behaviour_matrix_measures_each_eras_flags_and_buffered_records_exactly():
    """The C.5 matrix of consumer-1 (pause once at 6 s, never resume; at 12 s a third member joins, or
    consumer-1 itself is expelled): one row per era, protocol (cooperative from 2.4) and change, every column."""
    from kafkasim.client.pause_resume import behaviour_matrix

    df = behaviour_matrix(versions=("2.3", "2.4", "2.5", "3.7"))
    got = {(r.kafka_version, r.protocol, r.change): tuple(getattr(r, c) for c in COLUMNS) for r in df.itertuples()}
    assert list(got) == list(MATRIX)
    assert got == MATRIX


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_the_matrix_probe_reads_a_moved_partitions_flag_at_its_new_owner(protocol):
    """_probe asks the partition's owner at the end: with the remedy that pauses in onPartitionsAssigned
    (REMEDIES), the new owner pauses orders-2 as it gets it, so the moved flag reads "kept"; so does the
    retained one (eager: re-assigned and re-paused; cooperative: never revoked)."""
    from kafkasim.client.pause_resume import PauseScenario, _probe

    row = _probe(PauseScenario(protocol=protocol, remedy="repause_on_assigned", app_loop="pause_once",
                               resume_at_ms=None), "consumer-1")
    assert (row["flag_of_retained"], row["flag_of_moved"]) == ("kept", "kept")
