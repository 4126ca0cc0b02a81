"""Kafka Streams' lines (kafkasim.analysis.logs.kafka_streams): each line's expected event is written by hand
from the format string in Apache Kafka's streams/src/main/java/org/apache/kafka/streams/ at the release named
beside it (processor/internals/StreamThread.java, KafkaStreams.java, processor/internals/
StreamsRebalanceListener.java), behind the LogContext prefixes `stream-thread [%s] ` and `stream-client [%s] `,
in the layouts a Streams application prints: Kafka's log4j `[%d] %p %m (%c)%n`, Logback's
`%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n`, Log4j2's and Spring Boot's defaults."""

from __future__ import annotations

import random
from datetime import datetime

import pytest
from hypothesis import given, settings

from kafkasim.analysis.logs import ROW_FIELDS, parse_lines
from reader_properties import assert_read_whole, mixes

ORIGIN = datetime(2024, 3, 5)
#: 2024-03-05 20:21:14.681, in ms since ORIGIN
T = ((20 * 60 + 21) * 60 + 14) * 1000 + 681
THREAD = "orders-app-5f1c-StreamThread-1"
CLIENT = "orders-app-5f1c"
KEYS = ("time", "source", "group", "member", "kind", "topic", "partition", "error", "reason", "value", "state",
        "log_source", "versions", "detail", "client")
THREAD_LOGGER = " (org.apache.kafka.streams.processor.internals.StreamThread)"


def log4j(message: str, prefix: str = f"stream-thread [{THREAD}] ", level: str = "INFO",
          logger: str = THREAD_LOGGER) -> str:
    return f"[2024-03-05 20:21:14,681] {level} {prefix}{message}{logger}"


def logback(message: str, prefix: str = f"stream-thread [{THREAD}] ", level: str = "INFO") -> str:
    """Logback's `%d{yyyy-MM-dd HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n`: no logger after the message,
    so a record of several lines shows its first line alone."""
    return f"2024-03-05 20:21:14.681 [{THREAD}] {level:<5} o.a.k.s.p.internals.StreamThread - {prefix}{message}"


def rows(text) -> list[dict]:
    result = parse_lines(text, origin=ORIGIN)
    assert result.unparsed == [], result.unparsed
    return [{k: v for k, v in zip(ROW_FIELDS, r) if k in KEYS} for r in result.rows]


def expected(kind, versions, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, log_source="kafka-streams", versions=versions, client=THREAD)
    row.update(fields)
    return row


FENCED = ("Detected that the thread is being fenced. This implies that this thread missed a rebalance and dropped "
          "out of the consumer group. Will close out all assigned tasks and rejoin the consumer group.")


@pytest.mark.parametrize("line,events", [
    # StreamThread.setState: log.info("State transition from {} to {}", oldState, newState) (1.0 - 4.1)
    (log4j("State transition from RUNNING to PARTITIONS_REVOKED"),
     [expected("MemberTransition", "1.0-", reason="PARTITIONS_REVOKED", detail="RUNNING", state="StreamThread")]),
    (log4j("State transition from PARTITIONS_ASSIGNED to RUNNING"),
     [expected("MemberTransition", "1.0-", reason="RUNNING", detail="PARTITIONS_ASSIGNED", state="StreamThread")]),
    # KafkaStreams.setState, behind new LogContext(String.format("stream-client [%s] ", clientId))
    (log4j("State transition from RUNNING to REBALANCING", prefix=f"stream-client [{CLIENT}] ",
           logger=" (org.apache.kafka.streams.KafkaStreams)"),
     [expected("MemberTransition", "1.0-", reason="REBALANCING", detail="RUNNING", state="KafkaStreams",
               client=CLIENT)]),
    # 1.0's KafkaStreams: new LogContext(String.format("stream-client [%s]", clientId)), no space before the message
    (log4j("State transition from CREATED to RUNNING", prefix=f"stream-client [{CLIENT}]",
           logger=" (org.apache.kafka.streams.KafkaStreams)"),
     [expected("MemberTransition", "1.0-", reason="RUNNING", detail="CREATED", state="KafkaStreams", client=CLIENT)]),
    # StreamThread.handleTaskMigrated (2.6 - 4.1), a WARN
    (log4j(FENCED, level="WARN"), [expected("PartitionsLost", "2.6-", reason="missed a rebalance")]),
    # StreamThread.runLoop, 1.0: "Detected a task that got migrated to another thread. " + "This implies that this
    # thread missed a rebalance and dropped out of the consumer group. " + "Trying to rejoin the consumer group now."
    (log4j("Detected a task that got migrated to another thread. This implies that this thread missed a rebalance "
           "and dropped out of the consumer group. Trying to rejoin the consumer group now.", level="WARN"),
     [expected("PartitionsLost", "1.0", reason="missed a rebalance")]),
    # 1.1: "Detected task {} that got migrated to another thread: {} " + "This implies that the thread may have missed
    # a rebalance and dropped out of the consumer group. " + "Will try to rejoin the consumer group. Below is the
    # detailed description of the task:\n{}" (the record's first line)
    (logback("Detected task 0_1 that got migrated to another thread: The task 0_1 is owned by another thread This "
           "implies that the thread may have missed a rebalance and dropped out of the consumer group. Will try to "
           "rejoin the consumer group. Below is the detailed description of the task:", level="WARN"),
     [expected("PartitionsLost", "1.1-2.5", reason="missed a rebalance", detail="0_1")]),
    # 2.0 - 2.5: "Detected task {} that got migrated to another thread. " + "This implies that this thread missed ..."
    (logback("Detected task 1_0 that got migrated to another thread. This implies that this thread missed a rebalance "
           "and dropped out of the consumer group. Will try to rejoin the consumer group. Below is the detailed "
           "description of the task:", level="WARN"),
     [expected("PartitionsLost", "1.1-2.5", reason="missed a rebalance", detail="1_0")]),
    # StreamThread.run: log.error("Encountered the following error during processing:", e) (1.0 - 2.5), "...
    # unexpected Kafka exception during processing, " + "this usually indicate Streams internal errors:" (2.2 - 2.5),
    # "... exception during processing " + "and the thread is going to shut down: " (2.6 - 2.7); the stack trace follows
    (logback("Encountered the following error during processing:", level="ERROR"),
     [expected("ConsumerStopped", "1.0-2.5", reason="thread died on an exception")]),
    (logback("Encountered the following unexpected Kafka exception during processing, this usually indicate Streams "
             "internal errors:", level="ERROR"),
     [expected("ConsumerStopped", "2.2-2.5", reason="thread died on an exception")]),
    (logback("Encountered the following exception during processing and the thread is going to shut down: ",
             level="ERROR"), [expected("ConsumerStopped", "2.6-2.7", reason="thread died on an exception")]),
    # StreamsRebalanceListener.onPartitionsLost (2.4 - 4.1): "at state {}: partitions {} lost due to missed
    # rebalance.\n" + ..., its first line as Logback prints it (no logger after the message)
    (logback("at state RUNNING: partitions [orders-0, payments-3] lost due to missed rebalance."),
     [expected("PartitionsLost", "2.4-", topic="orders", partition=0, detail="RUNNING"),
      expected("PartitionsLost", "2.4-", topic="payments", partition=3, detail="RUNNING")]),
    (logback("at state PARTITIONS_ASSIGNED: partitions [] lost due to missed rebalance."),
     [expected("PartitionsLost", "2.4-", value=0.0, detail="PARTITIONS_ASSIGNED")]),
])
def test_each_wording_reads_as_its_event(line, events):
    assert rows([line]) == events


def test_the_layouts_a_streams_application_prints_read_the_same():
    message = f"stream-thread [{THREAD}] State transition from RUNNING to PARTITIONS_REVOKED"
    event = expected("MemberTransition", "1.0-", reason="PARTITIONS_REVOKED", detail="RUNNING", state="StreamThread")
    logback = f"20:21:14.681 [{THREAD}] INFO  o.a.k.s.p.internals.StreamThread - {message}"
    log4j2 = f"2024-03-05 20:21:14.681 [{THREAD}] INFO  org.apache.kafka.streams.processor.internals.StreamThread - " \
             f"{message}"
    boot = (f"2024-03-05T20:21:14.681Z  INFO 1 --- [-StreamThread-1] o.a.k.s.p.internals.StreamThread         : "
            f"{message}")
    compose = f"streams-1  | {log4j('State transition from RUNNING to PARTITIONS_REVOKED')}"
    assert rows([logback, log4j2, boot, compose]) == [event] * 4


def test_the_lost_partitions_record_is_one_record_over_its_lines():
    """log4j prints the message's "\\n\\tlost active tasks: ..." lines and then the logger on a line of its own."""
    lines = [f"[2024-03-05 20:21:14,681] INFO stream-thread [{THREAD}] at state RUNNING: partitions [orders-2] lost "
             "due to missed rebalance.", "\tlost active tasks: [0_2]", "\tlost assigned standby tasks: []",
             " (org.apache.kafka.streams.processor.internals.StreamsRebalanceListener)"]
    result = parse_lines(lines, origin=ORIGIN)
    assert [(r[4], r[6], r[7]) for r in result.rows] == [("PartitionsLost", "orders", 2)]
    assert result.counts["joined"] == 1 and result.counts["other"] == 0 and result.unparsed == []


def test_the_consumer_lines_of_a_streams_app_stay_the_java_readers_and_name_the_group():
    """The thread's consumer logs `[Consumer clientId=<thread>-consumer, groupId=<application.id>] `: its lines are the
    Java consumer's, and the group they name is given to the Streams lines of the file (name_groups)."""
    from kafkasim.analysis.diagnose.client_rules import name_groups

    consumer = (f"[2024-03-05 20:21:14,681] INFO [Consumer clientId={THREAD}-consumer, groupId=orders-app] Revoke "
                "previously assigned partitions orders-0 (org.apache.kafka.clients.consumer.internals."
                "ConsumerCoordinator)")
    result = parse_lines([consumer, log4j("State transition from RUNNING to PARTITIONS_REVOKED")], "app.log",
                         origin=ORIGIN)
    source, group, kind = (ROW_FIELDS.index(n) for n in ("log_source", "group", "kind"))
    assert [(r[source], r[group], r[kind]) for r in result.rows] == [
        ("java", "orders-app", "PartitionsRevoked"), ("kafka-streams", None, "MemberTransition")]
    assert [(r[source], r[group]) for r in name_groups(result.rows)] == [("java", "orders-app"),
                                                                         ("kafka-streams", "orders-app")]


def test_a_cut_state_transition_is_kept_aside_with_why():
    line = f"[2024-03-05 20:21:14,681] INFO stream-thread [{THREAD}] State transition from RUNNING to PARTI…"
    result = parse_lines([line], origin=ORIGIN)
    assert result.rows == [] and [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated or unrecognised wording")]


@pytest.mark.parametrize("cut", ["…", "..."])
def test_a_line_cut_right_after_the_thread_prefix_is_kept_aside_as_truncated(cut):
    """Nothing of the message is left, so it could be any of the wordings read: kept aside as truncated,
    not counted as another line."""
    line = f"[2024-03-05 20:21:14,681] INFO stream-thread [{THREAD}] {cut}"
    result = parse_lines([line], origin=ORIGIN)
    assert result.rows == [] and [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated")]


def test_other_streams_lines_are_counted_not_read():
    """Lines of the same prefixes and first words that are no rebalance wording: StreamThread's "Detected that
    shutdown was requested", a task's "State store ..." (ProcessorStateManager), GlobalStreamThread's own prefix."""
    result = parse_lines([
        log4j("Detected that shutdown was requested. All clients in this app will now begin to shutdown"),
        log4j("State store orders-store did not find checkpoint offset, hence would default to the starting offset"),
        logback("Handle new assignment with:"),
        f"[2024-03-05 20:21:14,681] INFO global-stream-thread [{CLIENT}-GlobalStreamThread] State transition from "
        "CREATED to RUNNING (org.apache.kafka.streams.processor.internals.GlobalStreamThread)"], origin=ORIGIN)
    assert result.rows == [] and result.unparsed == []
    assert result.counts["ignored"] == 3 and result.counts["other"] == 1


PIECES = [f"stream-thread [{THREAD}] ", "stream-client [", "stream-thread [", "] ", "State transition from ",
          "RUNNING", " to ", "PARTITIONS_REVOKED", "at state ", ": partitions [", "orders-0", ", ", "]",
          " lost due to missed rebalance.", FENCED, "Detected task ", " that got migrated to another thread",
          THREAD_LOGGER, "[2024-03-05 20:21:14,681] INFO ", "\t", "│", "\x00", "{\"log\":\"", "\n", "…",
          "99999999999999999999"]


@settings(max_examples=300, deadline=None)
@given(mixes(PIECES))
def test_any_mix_of_streams_pieces_is_never_fatal(lines):
    assert_read_whole(lines, ORIGIN)


def test_a_long_line_built_to_backtrack_costs_little():
    rng = random.Random(7)
    line = logback("Detected task " + "0_1 that got migrated to another thread: " * 20_000 + rng.choice("ab"),
                   level="WARN")
    cut = logback("at state RUNNING: partitions [" + "orders-0, " * 50_000 + rng.choice("ab"))
    result = parse_lines([line, cut, log4j("State transition from RUNNING to PENDING_SHUTDOWN")], origin=ORIGIN)
    assert [r[4] for r in result.rows] == ["MemberTransition"]
