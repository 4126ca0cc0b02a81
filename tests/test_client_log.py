"""The consumers' own logs (kafkasim.client.client_log): whole lines, times included, for a join,
a rebalance, a poll-timeout removal, a session timeout after a GC pause and a coordinator lost to
a network cut, as the Java client (2.8, 3.7, 4.x consumer protocol) and librdkafka 2.8.0 word them.

Wordings were read from Kafka's AbstractCoordinator.java / ConsumerCoordinator.java /
ConsumerRebalanceListenerInvoker.java (2.8.0, 3.7.0), AbstractMembershipManager.java /
AbstractHeartbeatRequestManager.java (confluentinc/kafka v8.0.0, v8.1.0) and librdkafka's
rdkafka_cgrp.c (v2.8.0). Times: the members start at 0 (start_spread_ms=0); the first generation
completes at 6 s (group.initial.rebalance.delay.ms 3000, extended once by the second JoinGroup of
the two-step join, InitialDelayedJoin); heartbeats every 3 s; faults at 60 s.
"""

import pytest

from kafkasim.client.client_log import hash_set_order, topic_partition_hash
from kafkasim.core import faults as F
from kafkasim.core.errors import ConfigError
from kafkasim.scenario import Scenario, simulate
from test_client_rules import one_member_world

C = "org.apache.kafka.clients.consumer.internals."
# Each consumer is its own process, so c-2's default client.id is its JVM's first, consumer-<group.id>-1
# (ConsumerConfig.maybeOverrideClientId, 2.4+), as c-1's is: c-2 is told apart by its member id's UUID.
P2 = "[Consumer clientId=consumer-workbook-group-1, groupId=workbook-group] "
G = "[Consumer clientId=consumer-g-1, groupId=g] "  # a writer called directly (java_log)
NODE = "localhost:9092 (id: 2147483647 rack: null)"
M1 = "consumer-workbook-group-1-e653b132-5f23-4e63-8368-5502ec397902"   # c-2's first member id (seeded)
M2 = "consumer-workbook-group-1-a121a050-2663-4e4a-82af-f1bcc0caaec0"   # after it lost its id
# The assignors order members by member id (RangeAssignor, AbstractStickyAssignor): with one client id for
# all, by UUID, so c-2 (e653b132) comes before c-1 (consumer-workbook-group-1-f612f15a-...) and gets
# orders-0, orders-1 of the range; a member joining later as a121a050-... comes before both.


def run(version="3.7", faults=(), style="java", consumer=None, member="c-2"):
    duration = 500_000 if any(isinstance(f, F.SlowProcessing) for f in faults) else 120_000
    scenario = Scenario(kafka_version=version, members=2, topics={"orders": 4}, duration_ms=duration, faults=faults,
                        consumer=consumer or {}, client_log=style, start_spread_ms=0)
    return simulate(scenario).client_logs[member]


def java(ts, message, logger="ConsumerCoordinator", level="INFO", prefix=P2):
    return f"[2026-01-01 {ts}] {level} {prefix}{message} ({C}{logger})"


def in_order(lines, expected):
    """Each expected line is in the log, in this order (other lines may come between)."""
    at = -1
    for line in expected:
        assert line in lines[at + 1:], f"missing after line {at}: {line}\n" + "\n".join(lines)
        at = lines.index(line, at + 1)


def gen(g, member, protocol="range"):
    return f"Generation{{generationId={g}, memberId='{member}', protocol='{protocol}'}}"


def test_join_java_3_7_is_the_whole_log():
    assert run() == [
        java("00:00:00,000", f"Discovered group coordinator {NODE}"),
        java("00:00:00,000", "(Re-)joining group"),
        java("00:00:00,000", f"Request joining group due to: need to re-join with the given member-id: {M1}"),
        java("00:00:00,000", "(Re-)joining group"),
        java("00:00:06,000", f"Successfully joined group with generation {gen(1, M1)}"),
        java("00:00:06,000", f"Successfully synced group in generation {gen(1, M1)}"),
        java("00:00:06,000", "Notifying assignor about the new Assignment(partitions=[orders-0, orders-1])"),
        java("00:00:06,000", "Adding newly assigned partitions: orders-0, orders-1", "ConsumerRebalanceListenerInvoker"),
    ]


def test_join_java_2_8_has_no_rejoin_reason_but_notifies_the_assignor():
    """2.8 logs no "Request joining group due to" (3.0); "Notifying assignor about the new Assignment(...)" is
    ConsumerCoordinator.invokeOnAssignment's since 2.6.0 (KAFKA-9823, #8445), before the partitions are added."""
    lines = run("2.8")
    assert lines[:3] == [java("00:00:00,000", f"Discovered group coordinator {NODE}"),
                         java("00:00:00,000", "(Re-)joining group"), java("00:00:00,000", "(Re-)joining group")]
    assert lines[-2:] == [
        java("00:00:06,000", "Notifying assignor about the new Assignment(partitions=[orders-0, orders-1])"),
        java("00:00:06,000", "Adding newly assigned partitions: orders-0, orders-1")]
    assert not any("Request joining" in line for line in lines)


def test_rebalance_on_scale_out_eager():
    """A third member at 60 s: c-2's next heartbeat (63 s) gets REBALANCE_IN_PROGRESS."""
    in_order(run("2.8", [F.ScaleOut(60_000)]), [
        java("00:01:03,000", "Attempt to heartbeat failed since group is rebalancing"),
        java("00:01:03,000", "Revoke previously assigned partitions orders-0, orders-1"),
        java("00:01:03,000", "(Re-)joining group"),
        java("00:01:03,000", f"Successfully joined group with generation {gen(2, M1)}"),
        java("00:01:03,000", "Adding newly assigned partitions: orders-2")])
    assert java("00:01:03,000", "Request joining group due to: group is already rebalancing") in run("3.7", [F.ScaleOut(60_000)])


def test_rebalance_cooperative_prints_the_assignment_table_over_several_lines():
    lines = run("3.7", [F.ScaleOut(60_000)], consumer={"partition.assignment.strategy": ["cooperative-sticky"]})
    start = lines.index(java("00:00:06,000", "Updating assignment with").rsplit(" (", 1)[0])
    assert lines[start + 1:start + 6] == [
        "\tAssigned partitions:                       [orders-0, orders-2]",
        "\tCurrent owned partitions:                  []",
        "\tAdded partitions (assigned - owned):       [orders-0, orders-2]",
        "\tRevoked partitions (owned - assigned):     []",
        f" ({C}ConsumerCoordinator)"]


def test_poll_timeout_java_3_7_and_2_8():
    """poll() last returned at 59 s; stuck 400 s; the heartbeat thread finds 300 s passed at 359 s."""
    slow = [F.SlowProcessing("c-2", 60_000, 400_000)]
    from kafkasim.client.client_log import POLL_TIMEOUT_TEXT
    in_order(run("3.7", slow), [
        java("00:05:59,000", POLL_TIMEOUT_TEXT, level="WARN"),
        java("00:05:59,000", f"Member {M1} sending LeaveGroup request to coordinator {NODE} due to consumer poll "
                             f"timeout has expired."),
        java("00:05:59,000", "Resetting generation and member id due to: consumer pro-actively leaving the group"),
        java("00:05:59,000", "Request joining group due to: consumer pro-actively leaving the group")])
    assert POLL_TIMEOUT_TEXT.startswith("consumer poll timeout has expired. This means the time between subsequent "
                                        "calls to poll() was longer than the configured max.poll.interval.ms")
    assert java("00:05:59,000", f"Member {M1} sending LeaveGroup request to coordinator {NODE} due to "
                                f"{POLL_TIMEOUT_TEXT}") in run("2.8", slow)


def test_session_timeout_after_gc_pause_java_3_7():
    """Frozen from 60 s to 110 s, longer than session.timeout.ms (45 s): the coordinator removed it;
    at 110 s its commit and heartbeat learn it."""
    in_order(run("3.7", [F.Pause("c-2", 60_000, 50_000)]), [
        java("00:01:50,000", f"OffsetCommit failed with {gen(1, M1)}: The coordinator is not aware of this member."),
        java("00:01:50,000", "Resetting generation and member id due to: encountered UNKNOWN_MEMBER_ID from "
                             "OFFSET_COMMIT response"),
        java("00:01:50,000", "Giving away all assigned partitions as lost since generation/memberID has been "
                             "reset,indicating that consumer is in old state or no longer part of the group"),
        java("00:01:50,000", "Lost previously assigned partitions orders-0, orders-1", "ConsumerRebalanceListenerInvoker"),
        java("00:01:50,000", "(Re-)joining group"),
        java("00:01:51,000", f"Successfully joined group with generation {gen(3, M2)}")])


def test_coordinator_lost_to_a_network_cut_java_2_8():
    """Cut 60-110 s: the last heartbeat answered at 57 s + 10 s (2.8's session.timeout.ms, 45 s from 3.0 by
    KIP-735) = 67 s, seen by the heartbeat thread's next pass at 69 s; 2.8 misses a space."""
    in_order(run("2.8", [F.NetworkCut("c-2", 60_000, 50_000)]), [
        java("00:01:09,000", f"Group coordinator {NODE} is unavailable or invalid due to cause: session timed out "
                             f"without receiving a heartbeat response.isDisconnected: false. Rediscovery will be attempted."),
        java("00:01:51,000", f"Discovered group coordinator {NODE}"),
        java("00:01:51,000", f"Attempt to heartbeat with {gen(1, M1)} and group instance id Optional.empty failed due "
                             f"to UNKNOWN_MEMBER_ID, resetting generation"),
        java("00:01:51,000", "Lost previously assigned partitions orders-0, orders-1")])


def test_a_cut_is_over_at_its_end_so_a_session_expiring_then_finds_the_network_back():
    """A cut from 60 s for 42 s loses what is sent in [60 s, 102 s): from 102 s on the network is back. c-2's
    last heartbeat answered is the one at 57 s, so at 102 s, the cut's end, its heartbeat thread finds
    session.timeout.ms (45 s) gone (`AbstractCoordinator.HeartbeatThread.run`, 3.7.0: `sessionTimeoutExpired`,
    `markCoordinatorUnknown`), and the network being back it finds the coordinator again (kafkasim: on the same
    pass, Kafka after a FindCoordinator round trip; `FindCoordinatorResponseHandler.onSuccess`: "Discovered group
    coordinator {}"); its heartbeat then learns that the coordinator removed it at 102 s too (the session timer
    armed at 57 s runs before c-2's pass). librdkafka names the last heartbeat error (`rkcg_last_heartbeat_err`),
    which kafkasim takes to be a timeout while the cut lasts and none once it is over: Success."""
    cut = [F.NetworkCut("c-2", 60_000, 42_000)]
    assert run("3.7", cut)[8:12] == [  # the 8 lines of the join (test_join_java_3_7_is_the_whole_log), then these
        java("00:01:42,000", f"Group coordinator {NODE} is unavailable or invalid due to cause: session timed out "
                             f"without receiving a heartbeat response. isDisconnected: false. Rediscovery will be "
                             f"attempted."),
        java("00:01:42,000", f"Requesting disconnect from last known coordinator {NODE}"),
        java("00:01:42,000", f"Discovered group coordinator {NODE}"),
        java("00:01:42,000", f"Attempt to heartbeat with {gen(1, M1)} and group instance id Optional.empty failed due "
                             f"to UNKNOWN_MEMBER_ID, resetting generation")]
    assert [line for line in run(style="librdkafka", faults=cut) if "|SESSTMOUT|" in line] == [
        "%4|1767225702.000|SESSTMOUT|rdkafka#consumer-1| [thrd:main]: Consumer group session timed out (in join-state "
        "steady) after 45000 ms without a successful response from the group coordinator (broker 0, last error was "
        "Success): revoking assignment and rejoining group"]


def test_the_heartbeat_thread_beats_into_a_cut_looks_up_a_lost_coordinator_and_restarts_the_session_on_finding_it():
    """`AbstractCoordinator.HeartbeatThread.run` (3.7.0), one pass per heartbeat.interval.ms: while the coordinator
    is known it sends a heartbeat (lost in a cut); once none was answered for session.timeout.ms (45 s) it marks the
    coordinator unknown, and while it is unknown it looks it up instead of sending one. Found (kafkasim: on the
    pass that looks it up; `FindCoordinatorResponseHandler.onSuccess`), it is "Discovered" and
    `heartbeat.resetSessionTimeout()` starts the session again from there: with no heartbeat answered after it, it
    is lost again 45 s later and found again on that pass, the network being whole. The passes are called alone
    here (`_session_check`: True when the pass sends no heartbeat), with the last heartbeat answered at 57 s and
    the network cut until 111 s."""
    world, consumer = one_member_world(client_log="java")
    consumer.heartbeat_ok, consumer.cut_until = 57_000, 111_000
    passes = [99_000, 102_000, 108_000, 111_000, 114_000, 153_000, 156_000]
    assert [consumer._session_check(ms) for ms in passes] == [False, True, True, False, False, False, False]
    assert consumer.heartbeat_ok == 156_000
    unavailable = (f"Group coordinator {NODE} is unavailable or invalid due to cause: session timed out without "
                   f"receiving a heartbeat response. isDisconnected: false. Rediscovery will be attempted.")
    lost = [unavailable, f"Requesting disconnect from last known coordinator {NODE}"]
    found = [f"Discovered group coordinator {NODE}"]
    assert world.client_logs["c-1"] == [java(ts, text) for ts, texts in (
        ("00:01:42,000", lost), ("00:01:51,000", found), ("00:02:36,000", lost + found)) for text in texts]


def test_consumer_protocol_4_0_poll_timeout_and_fencing():
    member = "69TBAu0VSCaKcWiQ2ra3vw"
    consumer = {"group.protocol": "consumer"}
    slow = run("4.0", [F.SlowProcessing("c-2", 60_000, 400_000)], consumer=consumer)
    in_order(slow, [
        java("00:00:00,000", f"Member {member} with epoch 0 transitioned from UNSUBSCRIBED to JOINING.",
             "ConsumerMembershipManager"),
        java("00:05:59,000", "Consumer poll timeout has expired. This means the time between subsequent calls to "
                             "poll() was longer than the configured max.poll.interval.ms, which typically implies that "
                             "the poll loop is spending too much time processing messages. You can address this either "
                             "by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in "
                             "poll() with max.poll.records.", "ConsumerHeartbeatRequestManager", "WARN"),
        java("00:05:59,000", f"Member {member} with epoch 2 transitioned from STABLE to PREPARE_LEAVING.",
             "ConsumerMembershipManager"),
        java("00:05:59,000", f"Member {member} with epoch -1 transitioned from LEAVING to STALE.",
             "ConsumerMembershipManager"),
        # resetPollTimer at the next poll (460 s): last poll 59 s, max.poll.interval.ms 300 s
        java("00:07:40,000", "Time between subsequent calls to poll() was longer than the configured "
                             "max.poll.interval.ms, exceeded approximately by 101000 ms. Member "
                             f"{member} will rejoin the group now.", "ConsumerHeartbeatRequestManager", "WARN"),
        java("00:07:40,000", f"Member {member} with epoch 0 transitioned from STALE to JOINING.",
             "ConsumerMembershipManager")])
    gc = run("4.0", [F.Pause("c-2", 60_000, 50_000)], consumer=consumer)
    in_order(gc, [
        java("00:01:50,000", f"ConsumerGroupHeartbeatRequest failed because member {member} is unknown. in 100ms: "
                             f"Member {member} is not a member of group workbook-group.", "ConsumerHeartbeatRequestManager"),
        java("00:01:50,000", f"Member {member} with epoch 2 transitioned from STABLE to FENCED.", "ConsumerMembershipManager")])


def test_consumer_protocol_heartbeat_fenced_or_unknown_is_logged_at_info_with_its_backoff_and_message():
    """AbstractHeartbeatRequestManager.onErrorResponse (v8.0.0): FENCED_MEMBER_EPOCH names the member
    and its epoch, UNKNOWN_MEMBER_ID the member only; both through `logInfo`, "{} in {}ms: {}" (the
    remaining backoff, the response's error message), as the heartbeat manager."""
    from kafkasim.client.client_log import client_log
    lines: list[str] = []
    log = client_log("java", lines, "4.0", "consumer-g-1", "g", group_protocol="consumer")
    log.heartbeat_fenced(1000, "FENCED_MEMBER_EPOCH", "m1", 3, 0, "The member epoch is fenced.")
    log.heartbeat_fenced(2000, "UNKNOWN_MEMBER_ID", "m1", 3, 100, "Member m1 is not a member of group g.")
    prefix = "INFO [Consumer clientId=consumer-g-1, groupId=g] ConsumerGroupHeartbeatRequest failed"
    assert lines == [
        f"[2026-01-01 00:00:01,000] {prefix} for member m1 because epoch 3 is fenced. in 0ms: The member epoch is "
        f"fenced. ({C}ConsumerHeartbeatRequestManager)",
        f"[2026-01-01 00:00:02,000] {prefix} because member m1 is unknown. in 100ms: Member m1 is not a member of "
        f"group g. ({C}ConsumerHeartbeatRequestManager)"]


def test_consumer_protocol_4_0_fatal_heartbeat_errors_are_logged_before_fatal():
    """AbstractHeartbeatRequestManager.onErrorResponse (v8.0.0) logs an error the member cannot go on from at
    ERROR, then the membership manager moves to FATAL: a classic group's migration refused
    (GroupMetadataManager.validateOnlineUpgrade answers GROUP_ID_NOT_FOUND, a case the manager has not: "unexpected
    error"), and a static member whose instance id is still held (ConsumerHeartbeatRequestManager.handleSpecificError)."""
    from dataclasses import replace

    from kafkasim.analysis.diagnose.incidents import incident

    refused = simulate(replace(incident("misconfiguration", "4.0"), client_log="java")).client_logs["c-1"]
    member = "LH9CsiJZS6aMncgx_7VUwQ"
    in_order(refused, [
        f"[2026-01-01 00:00:35,000] ERROR [Consumer clientId=consumer-workbook-group-1, groupId=workbook-group] "
        f"ConsumerGroupHeartbeatRequest failed due to unexpected error GROUP_ID_NOT_FOUND: Cannot upgrade classic group "
        f"workbook-group to consumer group because online upgrade is disabled. ({C}ConsumerHeartbeatRequestManager)",
        f"[2026-01-01 00:00:35,000] INFO [Consumer clientId=consumer-workbook-group-1, groupId=workbook-group] "
        f"Member {member} with epoch 0 transitioned from JOINING to FATAL. ({C}ConsumerMembershipManager)"])
    held = simulate(replace(incident("kip848-specific", "4.0c"), client_log="java")).client_logs["c-2"]
    # the message: GroupMetadataManager.throwIfStaticMemberIsUnreleased (v8.0.0); c-2's new member id, and the
    # member id its previous process held (the incident's seeded ids)
    assert [line for line in held if " ERROR " in line] == [
        "[2026-01-01 00:00:35,000] ERROR [Consumer instanceId=c-2, clientId=consumer-workbook-group-c-2, "
        "groupId=workbook-group] ConsumerGroupHeartbeatRequest failed due to unreleased instance id c-2: Static "
        "member FyHTWGeVTw25SwyCXymCiQ with instance id c-2 cannot join the group because the instance id is owned "
        f"by 69TBAu0VSCaKcWiQ2ra3vw member. ({C}ConsumerHeartbeatRequestManager)"]


def test_librdkafka_join_poll_timeout_and_session_timeout():
    lines = run(style="librdkafka")
    leader = "rdkafka-e653b132-5f23-4e63-8368-5502ec397902"
    assert lines[0].startswith("%7|1767225606.000|JOINGROUP|rdkafka#consumer-1| [thrd:main]: JoinGroup response: "
                               "GenerationId 1, Protocol range, LeaderId ")
    # 2 + 4 + (2 + len("orders") + 4 + 2 * 4) + 4 bytes
    assert "%7|1767225606.000|SYNCGROUP|rdkafka#consumer-1| [thrd:main]: SyncGroup response: Success (30 bytes of " \
           "MemberState data)" in lines
    assert lines[-1] == ('%7|1767225606.000|ASSIGN|rdkafka#consumer-1| [thrd:main]: Group "workbook-group": new '
                         'assignment of 2 partition(s) in join-state wait-sync')
    assert leader in lines[0] or leader not in "".join(lines)
    slow = run(style="librdkafka", faults=[F.SlowProcessing("c-2", 60_000, 400_000)])
    assert ("%4|1767225959.000|MAXPOLL|rdkafka#consumer-1| [thrd:main]: Application maximum poll interval (300000ms) "
            "exceeded by 0ms (adjust max.poll.interval.ms for long-running message processing): leaving group") in slow
    cut = run(style="librdkafka", faults=[F.NetworkCut("c-2", 60_000, 50_000)])
    # the last heartbeat answered at 57 s; 45 s (session.timeout.ms) later, at 102 s, during the cut. The one sent
    # at 60 s is still in flight (rd_kafka_cgrp_heartbeat sends no other meanwhile, and its timeout is the session's):
    # the last error is the answer at 57 s, Success (rkcg_last_heartbeat_err)
    assert ("%4|1767225702.000|SESSTMOUT|rdkafka#consumer-1| [thrd:main]: Consumer group session timed out (in "
            "join-state steady) after 45000 ms without a successful response from the group coordinator (broker 0, "
            "last error was Success): revoking assignment and rejoining group") in cut


def test_same_scenario_same_logs_and_default_off_changes_nothing():
    faults = [F.Pause("c-2", 60_000, 50_000), F.ScaleOut(30_000)]
    base = Scenario(kafka_version="3.7", members=3, duration_ms=120_000, faults=faults)
    off, on = simulate(base), simulate(base.replace(client_log="java"))
    assert off.client_logs == {} and "client_log" not in base.to_dict()
    assert on.rows == off.rows and on.broker_log == off.broker_log  # writing the Java log changes no event
    assert simulate(base.replace(client_log="java")).client_logs == on.client_logs
    assert sorted(on.client_logs) == ["c-1", "c-2", "c-3", "c-4"]


def test_topic_partition_hash_set_order():
    """By hand: "orders".hashCode() = -1008770331; TopicPartition(orders, 0).hashCode() = 31 * 31 +
    that = -1008769370 = 0xC3DF66A6 unsigned; bucket (h ^ h >>> 16) & 15 = 0x6 ^ 0xF = 9."""
    assert topic_partition_hash(("orders", 0)) == -1008769370
    h = -1008769370 & 0xFFFFFFFF
    assert (h ^ (h >> 16)) & 15 == 9
    # 17 partitions: the table has 32 buckets (17 / .75 + 1 = 23.6 -> 32); order follows the buckets
    tps = [("orders", p) for p in range(17)]
    order = hash_set_order(tps)
    buckets = [((topic_partition_hash(tp) & 0xFFFFFFFF) ^ ((topic_partition_hash(tp) & 0xFFFFFFFF) >> 16)) & 31
               for tp in order]
    assert buckets == sorted(buckets) and sorted(order) == tps


@pytest.mark.parametrize("kwargs, words", [
    ({"client_log": "log4j"}, "client_log must be None, 'java' or 'librdkafka'"),
    ({"client_log": "java", "kafka_version": "2.6"}, "use kafka_version='2.7' or later"),
    ({"client_log": "librdkafka", "kafka_version": "4.0", "consumer": {"group.protocol": "consumer"}},
     "group.protocol=consumer wording is not modelled"),
])
def test_bad_client_log_is_refused(kwargs, words):
    """By the Scenario, and by the writer's factory called on its own (client_log.client_log)."""
    from kafkasim.client.client_log import client_log

    match = words.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
    with pytest.raises(ConfigError, match=match):
        Scenario(**kwargs)
    with pytest.raises(ConfigError, match=match):
        client_log(kwargs["client_log"], [], kwargs.get("kafka_version", "3.7"), "consumer-g-1", "g",
                   group_protocol=kwargs.get("consumer", {}).get("group.protocol"))


def java_log(version, instance_id=None, group_protocol=None):
    """A Java writer called directly (client.id consumer-g-1, group g), and the list it writes to."""
    from kafkasim.client.client_log import client_log
    lines: list[str] = []
    return lines, client_log("java", lines, version, "consumer-g-1", "g", instance_id=instance_id,
                             group_protocol=group_protocol)


def consumer_protocol_log(version, instance_id=None):
    return java_log(version, instance_id, "consumer")


@pytest.mark.parametrize("version, why", [
    ("3.1", "generation has been reset,indicating that consumer is no longer part of the group"),
    ("3.2", "generation/memberID has been reset,indicating that consumer is in old state or no longer part of the "
            "group"),
])
def test_a_lost_assignment_is_given_away_since_the_generation_was_reset_before_3_2_and_generation_or_member_id_from_3_2(
        version, why):
    """`ConsumerCoordinator.onJoinPrepare` with no generation: "Giving away all assigned partitions as lost since
    generation has been reset,indicating that consumer is no longer part of the group" at 3.1.0 (and the 3.1
    branch); KAFKA-13419 (#11451, c219fba, first in 3.2.0) made it "generation/memberID has been reset,indicating
    that consumer is in old state or no longer part of the group" (two literals joined, no space after the comma).
    Then `invokePartitionsLost`: "Lost previously assigned partitions {}", logged by ConsumerCoordinator before 3.7."""
    lines, log = java_log(version)
    log.lost(5000, [("orders", 0)])
    assert lines == [java("00:00:05,000", f"Giving away all assigned partitions as lost since {why}", prefix=G),
                     java("00:00:05,000", "Lost previously assigned partitions orders-0", prefix=G)]


@pytest.mark.parametrize("version, reset", [
    ("2.8", None),  # logged at DEBUG ("Resetting generation after encountering ...")
    ("3.1", "Resetting generation due to: encountered UNKNOWN_MEMBER_ID from OFFSET_COMMIT response"),
    ("3.2", "Resetting generation and member id due to: encountered UNKNOWN_MEMBER_ID from OFFSET_COMMIT response")])
def test_a_reset_generation_is_logged_at_info_from_3_0_and_names_the_member_id_from_3_2(version, reset):
    """`AbstractCoordinator.resetStateAndRejoin`: `log.info("Resetting generation due to: {}", reason)` from 3.0.0
    (KAFKA-12352; 2.8.0 logs it at DEBUG); 3.2.0 (KAFKA-13419) adds "and member id " when the member id is reset
    too, as UNKNOWN_MEMBER_ID resets it (ILLEGAL_GENERATION does not: then the 3.1 wording). The logger is the
    subclass's (`logContext.logger(this.getClass())`): ConsumerCoordinator."""
    resets = []
    for error in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION"):
        lines, log = java_log(version)
        log.commit_failed(5000, error, "The coordinator is not aware of this member.", 3, "m-1", "range")
        resets.append([line for line in lines if "Resetting generation" in line])
    ours = None if reset is None else java("00:00:05,000", reset, prefix=G)
    assert resets[0] == ([] if ours is None else [ours])
    assert resets[1] == ([] if ours is None else [ours.replace("and member id ", "").replace(
        "UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION")])


@pytest.mark.parametrize("version, line", [
    ("2.8", "Attempt to heartbeat failed since group is rebalancing"),
    ("3.0", "Request joining group due to: group is already rebalancing")])
def test_a_heartbeat_during_a_rebalance_is_said_failed_before_3_0_and_a_rejoin_request_from_3_0(version, line):
    """`AbstractCoordinator.HeartbeatResponseHandler` on REBALANCE_IN_PROGRESS in a STABLE member: 2.8.0 logs
    "Attempt to heartbeat failed since group is rebalancing" and calls `requestRejoin()`, which logs nothing;
    3.0.0 (KAFKA-12352) drops that line for `requestRejoin("group is already rebalancing")`, which logs
    "Request joining group due to: {}"."""
    lines, log = java_log(version)
    log.heartbeat_error(5000, "REBALANCE_IN_PROGRESS", 3, "m-1", "range", 2, False)
    assert lines == [java("00:00:05,000", line, prefix=G)]


@pytest.mark.parametrize("version, error, reset", [
    ("2.8", "UNKNOWN_MEMBER_ID", None),  # logged at DEBUG ("Resetting generation after encountering ...")
    ("2.8", "ILLEGAL_GENERATION", None),
    ("3.0", "UNKNOWN_MEMBER_ID", "Resetting generation due to: encountered UNKNOWN_MEMBER_ID from HEARTBEAT response"),
    ("3.0", "ILLEGAL_GENERATION",
     "Resetting generation due to: encountered ILLEGAL_GENERATION from HEARTBEAT response"),
    ("3.2", "UNKNOWN_MEMBER_ID",
     "Resetting generation and member id due to: encountered UNKNOWN_MEMBER_ID from HEARTBEAT response"),
    ("3.2", "ILLEGAL_GENERATION",
     "Resetting generation due to: encountered ILLEGAL_GENERATION from HEARTBEAT response"),
])
def test_a_heartbeat_refused_for_its_member_or_generation_resets_the_generation_and_only_for_the_member_its_id(
        version, error, reset):
    """`HeartbeatResponseHandler` on ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID with the generation unchanged:
    "Attempt to heartbeat with {} and group instance id {} failed due to {}, resetting generation" (the sent
    `Generation`, `groupInstanceId` an `Optional<String>`) at 2.8.0-4.x, then `resetGenerationOnResponseError`
    (2.8.0: at DEBUG; 3.0.0, KAFKA-12352: "Resetting generation due to: encountered {error} from HEARTBEAT
    response" and `requestRejoin` with the same reason). From 3.2.0 (KAFKA-13419) `resetStateOnResponseError(...,
    error != Errors.ILLEGAL_GENERATION)`: only UNKNOWN_MEMBER_ID also resets the member id, "and member id "."""
    lines, log = java_log(version)
    log.heartbeat_error(5000, error, 3, "m-1", "range", 2, False)
    attempt = (f"Attempt to heartbeat with {gen(3, 'm-1')} and group instance id Optional.empty failed due to "
               f"{error}, resetting generation")
    rejoin = f"Request joining group due to: encountered {error} from HEARTBEAT response"
    assert lines == [java("00:00:05,000", text, prefix=G) for text in [attempt] + ([reset, rejoin] if reset else [])]


def test_a_static_member_s_heartbeat_error_names_its_group_instance_id_as_a_java_optional():
    """The same line for a static member: `rebalanceConfig.groupInstanceId` is `Optional.of(id)`, printed by
    `Optional.toString` as "Optional[<id>]", and the LogContext prefix names the instanceId (KafkaConsumer, 3.2.0)."""
    lines, log = java_log("3.2", instance_id="i-1")
    log.heartbeat_error(5000, "ILLEGAL_GENERATION", 3, "m-1", "range", 2, False)
    prefix = "[Consumer instanceId=i-1, clientId=consumer-g-1, groupId=g] "
    assert lines == [java("00:00:05,000", text, prefix=prefix) for text in [
        f"Attempt to heartbeat with {gen(3, 'm-1')} and group instance id Optional[i-1] failed due to "
        f"ILLEGAL_GENERATION, resetting generation",
        "Resetting generation due to: encountered ILLEGAL_GENERATION from HEARTBEAT response",
        "Request joining group due to: encountered ILLEGAL_GENERATION from HEARTBEAT response"]]


@pytest.mark.parametrize("version, logger", [("3.6", "ConsumerCoordinator"),
                                             ("3.7", "ConsumerRebalanceListenerInvoker")])
def test_revoked_partitions_are_logged_by_the_coordinator_before_3_7_and_by_the_listener_invoker_from_3_7(
        version, logger):
    """`invokePartitionsRevoked`: "Revoke previously assigned partitions {}" with `Utils.join(…, ", ")` of a
    TreeSet (3.2+), in ConsumerCoordinator up to 3.6 (confluentinc v7.6.0, branch 3.6), moved to
    ConsumerRebalanceListenerInvoker, its own logger, by KAFKA-15628 (#14638, first in 3.7)."""
    lines, log = java_log(version)
    log.revoked(5000, [("orders", 1), ("orders", 0)])
    assert lines == [java("00:00:05,000", "Revoke previously assigned partitions orders-0, orders-1", logger, prefix=G)]


@pytest.mark.parametrize("version, listener", [("3.2", "ConsumerCoordinator"), ("3.6", "ConsumerCoordinator"),
                                               ("3.7", "ConsumerRebalanceListenerInvoker")])
def test_a_cooperative_assignment_revokes_what_is_no_longer_assigned_asks_to_rejoin_then_adds_the_rest(
        version, listener):
    """`ConsumerCoordinator.onJoinComplete` (COOPERATIVE), read at 3.2.0, v7.6.0 and v7.7.0: the "Updating
    assignment with" table of TreeSets (3.2+, MINOR #11584); revoked = owned - assigned, handed to
    `invokePartitionsRevoked` ("Revoke previously assigned partitions {}", `Utils.join(…, ", ")`), then
    `requestRejoin(…, String.format("need to revoke partitions %s as indicated by the current assignment and
    re-join", revokedPartitions))`; then `invokeOnAssignment`: "Notifying assignor about the new {}" with
    `Assignment.toString`, its partitions a List in the order received; then `invokePartitionsAssigned` with
    assigned - owned. The two callbacks' lines move to ConsumerRebalanceListenerInvoker in 3.7 (KAFKA-15628);
    the table, the rejoin (AbstractCoordinator, `getClass()`) and the assignor's line stay ConsumerCoordinator's."""
    lines, log = java_log(version)
    log.assigned(5000, [("orders", 3), ("orders", 0)], [("orders", 2), ("orders", 0), ("orders", 1)], True)
    assert lines == [
        java("00:00:05,000", "Updating assignment with", prefix=G).rsplit(" (", 1)[0],
        "\tAssigned partitions:                       [orders-0, orders-3]",
        "\tCurrent owned partitions:                  [orders-0, orders-1, orders-2]",
        "\tAdded partitions (assigned - owned):       [orders-3]",
        "\tRevoked partitions (owned - assigned):     [orders-1, orders-2]",
        f" ({C}ConsumerCoordinator)",
        java("00:00:05,000", "Revoke previously assigned partitions orders-1, orders-2", listener, prefix=G),
        java("00:00:05,000", "Request joining group due to: need to revoke partitions [orders-1, orders-2] as "
                             "indicated by the current assignment and re-join", prefix=G),
        java("00:00:05,000", "Notifying assignor about the new Assignment(partitions=[orders-3, orders-0])", prefix=G),
        java("00:00:05,000", "Adding newly assigned partitions: orders-3", listener, prefix=G)]


def test_a_lost_coordinator_is_said_once_and_again_only_after_it_was_rediscovered():
    """`AbstractCoordinator` (3.2.0): `markCoordinatorUnknown` logs only while `coordinator != null`, then nulls
    it; the heartbeat thread looks the coordinator up only while it is unknown (`coordinatorUnknown()`), and
    "Discovered group coordinator {}" is logged when it is found. So a coordinator still unknown is not said
    lost twice, one found again is not discovered twice, and its next loss is said again."""
    lines, log = java_log("3.2")
    log.coordinator_lost(69_000, 45_000, "REQUEST_TIMED_OUT")
    log.coordinator_lost(72_000, 48_000, "REQUEST_TIMED_OUT")  # still unknown: nothing
    log.coordinator_reached(111_000)
    log.coordinator_reached(114_000)  # known: nothing
    log.coordinator_lost(200_000, 45_000, "REQUEST_TIMED_OUT")
    # 3.2 misses the space before isDisconnected (back in 3.3) and asks to disconnect (#11449, 3.2.0)
    unavailable = (f"Group coordinator {NODE} is unavailable or invalid due to cause: session timed out without "
                   f"receiving a heartbeat response.isDisconnected: false. Rediscovery will be attempted.")
    disconnect = f"Requesting disconnect from last known coordinator {NODE}"
    assert lines == [java("00:01:09,000", unavailable, prefix=G), java("00:01:09,000", disconnect, prefix=G),
                     java("00:01:51,000", f"Discovered group coordinator {NODE}", prefix=G),
                     java("00:03:20,000", unavailable, prefix=G), java("00:03:20,000", disconnect, prefix=G)]


def test_the_coordinator_is_named_by_a_node_whose_id_is_integer_max_value_minus_the_broker_s(monkeypatch):
    """`FindCoordinatorResponseHandler.onSuccess` (3.7.0): the coordinator's connection is `new Node(Integer.MAX_VALUE
    - coordinatorData.nodeId(), host, port)`, which `Node.toString` prints as "host:port (id: N rack: null)" (4.0
    adds " isFenced: false"). kafkasim's coordinator is broker BROKER_ID, 0 (2147483647); as broker 2 it is
    2147483647 - 2 = 2147483645, and librdkafka's session timeout names broker 2."""
    from kafkasim.client import client_log as writers
    monkeypatch.setattr(writers, "BROKER_ID", 2)
    for version, fenced in (("3.7", ""), ("4.0", " isFenced: false")):
        lines, log = java_log(version)
        log.discovered(0)
        assert lines == [java("00:00:00,000", f"Discovered group coordinator localhost:9092 (id: 2147483645 rack: "
                                              f"null{fenced})", prefix=G)]
    lines = []
    writers.client_log("librdkafka", lines, "3.7", "rdkafka", "g").session_expired(45_000, 45_000, "NONE")
    assert lines == ["%4|1767225645.000|SESSTMOUT|rdkafka#consumer-1| [thrd:main]: Consumer group session timed out "
                     "(in join-state init) after 45000 ms without a successful response from the group coordinator "
                     "(broker 2, last error was Success): revoking assignment and rejoining group"]


def test_a_java_writer_takes_client_log_s_arguments_by_name():
    """`ClientLog(lines, kafka_version, client_id, group_id, instance_id=None)`: a Java writer passes them on
    whole, by position or by name; a static member's prefix names its instance (`ConsumerUtils.createLogContext`)."""
    from kafkasim.client.client_log import JavaClassicLog
    lines: list[str] = []
    JavaClassicLog(lines=lines, kafka_version="3.7", client_id="consumer-g-1", group_id="g",
                   instance_id="i-1").joining(1000)
    static = "[Consumer instanceId=i-1, clientId=consumer-g-1, groupId=g] "
    assert lines == [java("00:00:01,000", "(Re-)joining group", prefix=static)]


def test_a_message_over_several_lines_is_written_whole_with_its_logger_after_its_last_character():
    """log4j's `[%d] %p %m (%c)%n` (config/tools-log4j.properties): the message goes out whole, its line breaks
    included, and " (logger)" follows its last character: on its last line's text, or alone on a line of its own
    when the message ends with a line break, as the assignment table's format string does."""
    lines, log = java_log("3.7")
    log.write(1000, "first\n\tsecond")
    log.write(2000, "table\n\trow\n")
    head = "INFO [Consumer clientId=consumer-g-1, groupId=g] "
    assert lines == [f"[2026-01-01 00:00:01,000] {head}first", f"\tsecond ({C}ConsumerCoordinator)",
                     f"[2026-01-01 00:00:02,000] {head}table", "\trow", f" ({C}ConsumerCoordinator)"]


def test_consumer_protocol_reconciling_names_the_member_then_revokes_as_a_joined_list_in_4_0_a_set_in_4_1():
    """`ConsumerMembershipManager.reconcile` (v8.0.0): the table with the member id as its second row,
    added = assigned - owned, revoked = owned - assigned; `revokePartitions` then logs the revoked
    partitions with `Utils.join(…, ", ")` in 4.0 and a Set's `toString` from 4.1; nothing revoked: no line."""
    a0, a1, a2 = (("a", p) for p in range(3))
    prefix = "[2026-01-01 00:00:02,000] INFO [Consumer clientId=consumer-g-1, groupId=g] "
    for version, shown in (("4.0", "a-0"), ("4.1", "[a-0]")):
        lines, log = consumer_protocol_log(version)
        log.reconciling(2000, 3, "m1", [a2, a1], [a1, a0])
        assert lines == [
            f"{prefix}Reconciling assignment with local epoch 3",
            "\tMember:                                    m1",
            "\tAssigned partitions:                       [a-1, a-2]",
            "\tCurrent owned partitions:                  [a-0, a-1]",
            "\tAdded partitions (assigned - owned):       [a-2]",
            "\tRevoked partitions (owned - assigned):     [a-0]",
            f" ({C}ConsumerMembershipManager)",  # the message ends with a line break, as Kafka's
            f"{prefix}Revoking previously assigned partitions {shown} ({C}ConsumerMembershipManager)"]
    lines, log = consumer_protocol_log("4.1")
    log.reconciling(2000, 4, "m1", [a0], [])
    assert len(lines) == 7 and lines[-2] == "\tRevoked partitions (owned - assigned):     []"
    lines, log = consumer_protocol_log("4.0")
    log.reconciling(2000, 5, "m1", [a0], [a0, a1, a2])
    assert lines[-1] == f"{prefix}Revoking previously assigned partitions a-1, a-2 ({C}ConsumerMembershipManager)"


@pytest.mark.parametrize("error, text", [
    ("UNRELEASED_INSTANCE_ID", "failed due to unreleased instance id i-1: the message"),
    ("FENCED_INSTANCE_ID", "failed due to fenced instance id i-1: the message. This is expected in the case that "
                           "the member was removed from the group by an admin client, and another member joined "
                           "using the same group instance id."),
    ("INVALID_REQUEST", "failed due to INVALID_REQUEST: the message"),
    ("GROUP_MAX_SIZE_REACHED", "failed due to GROUP_MAX_SIZE_REACHED: the message"),
    ("UNSUPPORTED_ASSIGNOR", "failed due to UNSUPPORTED_ASSIGNOR: the message"),
    ("UNSUPPORTED_VERSION", "failed due to UNSUPPORTED_VERSION: the message"),
    ("GROUP_AUTHORIZATION_FAILED", "failed due to unexpected error GROUP_AUTHORIZATION_FAILED: the message"),
])
def test_consumer_protocol_fatal_heartbeat_error_wording_per_error(error, text):
    """`ConsumerHeartbeatRequestManager.handleSpecificError` words the two instance-id errors (naming
    the group.instance.id); `AbstractHeartbeatRequestManager.onErrorResponse` says "failed due to
    {error}" for the errors it names and "unexpected error {error}" for the rest; all at ERROR."""
    lines, log = consumer_protocol_log("4.0", instance_id="i-1")
    log.heartbeat_fatal(1000, error, "the message")
    assert lines == [f"[2026-01-01 00:00:01,000] ERROR [Consumer instanceId=i-1, clientId=consumer-g-1, groupId=g] "
                     f"ConsumerGroupHeartbeatRequest {text} ({C}ConsumerHeartbeatRequestManager)"]


def test_consumer_protocol_discovered_coordinator_is_logged_by_the_coordinator_request_manager():
    """`CoordinatorRequestManager.onSuccessfulResponse` (3.7 - 4.4): "Discovered group coordinator {}" at INFO, as
    its own logger (the classic consumer's is AbstractCoordinator's). Its `coordinator` parameter hides the Node
    field: what is printed is the response's FindCoordinatorResponseData.Coordinator (the generated toString: key,
    broker id, host, port, error code, and the ErrorMessage KafkaApis leaves at its default "")."""
    lines, log = consumer_protocol_log("4.0")
    log.discovered(0)
    assert lines == [f"[2026-01-01 00:00:00,000] INFO [Consumer clientId=consumer-g-1, groupId=g] Discovered group "
                     f"coordinator Coordinator(key='g', nodeId=0, host='localhost', port=9092, errorCode=0, "
                     f"errorMessage='') ({C}CoordinatorRequestManager)"]


def test_classic_poll_timeout_wording_changes_at_3_0():
    """`AbstractCoordinator.HeartbeatThread` from 3.0.0: a WARN with the whole text, the LeaveGroup
    "due to consumer poll timeout has expired." and the reset (its two lines); before 3.0 the
    LeaveGroup line alone carries the whole text as its reason."""
    from kafkasim.client.client_log import POLL_TIMEOUT_TEXT, client_log
    for version, expected in (("2.8", [f"due to {POLL_TIMEOUT_TEXT}"]),
                              ("3.0", [POLL_TIMEOUT_TEXT, "due to consumer poll timeout has expired.",
                                       "due to: consumer pro-actively leaving the group",
                                       "Request joining group due to: consumer pro-actively leaving the group"])):
        lines: list[str] = []
        client_log("java", lines, version, "consumer-g-1", "g").poll_timeout(1000, "m1", True, 5000, 300000)
        assert len(lines) == len(expected) and all(text in line for text, line in zip(expected, lines)), lines


@pytest.mark.parametrize("version, suffix", [("3.1", ""), ("3.2", ": m-1")])
def test_a_join_asked_again_with_the_member_id_given_names_that_id_from_3_2(version, suffix):
    """`JoinGroupResponseHandler` on MEMBER_ID_REQUIRED: requestRejoin("need to re-join with the given member-id")
    at 3.1.0; KAFKA-13419 (3.2.0) appends ": " + memberId. Logged by `requestRejoin` as "Request joining group due
    to: {}"."""
    lines, log = java_log(version)
    log.member_id_required(5000, "m-1")
    assert lines == [java("00:00:05,000", f"Request joining group due to: need to re-join with the given member-id"
                                          f"{suffix}", prefix=G)]



@pytest.mark.parametrize("error, text", [
    ("REBALANCE_IN_PROGRESS", "Broker: Group rebalance in progress"), ("NOT_COORDINATOR", "Broker: Not coordinator"),
    ("FENCED_INSTANCE_ID", "Broker: Static consumer fenced by other consumer with same group.instance.id")])
def test_librdkafkas_session_timeout_names_the_last_heartbeat_answers_error_in_its_own_words(error, text):
    """rd_kafka_cgrp_session_timeout_check prints rd_kafka_err2str(rkcg_last_heartbeat_err): librdkafka's text of
    the error (src/rdkafka.c's _ERR_DESC table), not Kafka's name."""
    from kafkasim.client.client_log import client_log

    lines: list[str] = []
    client_log("librdkafka", lines, "3.7", "rdkafka", "g").session_expired(45_000, 45_000, error)
    assert lines == [f"%4|1767225645.000|SESSTMOUT|rdkafka#consumer-1| [thrd:main]: Consumer group session timed out "
                     f"(in join-state init) after 45000 ms without a successful response from the group coordinator "
                     f"(broker 0, last error was {text}): revoking assignment and rejoining group"]
