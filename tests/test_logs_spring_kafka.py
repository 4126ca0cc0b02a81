"""spring-kafka's listener container lines (kafkasim.analysis.logs.spring_kafka): each line's expected event is
written by hand from the format string in spring-projects/spring-kafka's spring-kafka/src/main/java/org/
springframework/kafka/listener/ (AbstractMessageListenerContainer.java, KafkaMessageListenerContainer.java) at the
releases named beside it, as the layouts Spring applications use print them with the container's logger
before the message: Spring Boot's default (`%-40.40logger{39} : %m`), Logback's and Log4j2's
`%logger{36} - %msg`. The CommitFailedException an application prints after "Consumer exception" is the
Java consumer's (clients/.../consumer/CommitFailedException.java, ConsumerCoordinator.java)."""

from __future__ import annotations

import json
import random
from datetime import datetime

import pytest
from hypothesis import given, settings

from kafkasim.analysis.logs import ROW_FIELDS, parse_lines
from reader_properties import assert_read_whole, mixes

ORIGIN = datetime(2024, 3, 5)
#: 2024-03-05 20:21:14.681, in ms since ORIGIN
T = ((20 * 60 + 21) * 60 + 14) * 1000 + 681
KEYS = ("time", "source", "group", "member", "kind", "topic", "partition", "error", "reason", "value", "state",
        "log_source", "versions", "detail", "client", "time_inferred")


def boot(message: str, level: str = "INFO") -> str:
    """Spring Boot 3's console default: date, level, pid, `---`, [application name], [thread], logger padded to 40,
    ` : `."""
    return (f"2024-03-05T20:21:14.681Z {level:>5} 1 --- [orders] [ntainer#0-0-C-1] "
            f"o.s.k.l.KafkaMessageListenerContainer    : {message}")


#: CommitFailedException's default message (CommitFailedException.java, 2.3+), as a stack trace prints it
COMMIT = ("org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed since the group has "
          "already rebalanced and assigned the partitions to another member. This means that the time between "
          "subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies "
          "that the poll loop is spending too much time message processing. You can address this either by "
          "increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with "
          "max.poll.records.")


def rows(text) -> list[dict]:
    result = parse_lines(text, origin=ORIGIN)
    assert result.unparsed == [], result.unparsed
    return [{k: v for k, v in zip(ROW_FIELDS, r) if k in KEYS} for r in result.rows]


def expected(kind, versions, group="orders", log_source="spring-kafka", **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, group=group, log_source=log_source, versions=versions,
               time_inferred=False)
    row.update(fields)
    return row


@pytest.mark.parametrize("message,events", [
    # createSimpleLoggingConsumerRebalanceListener (2.3+): logger.info(() -> getGroupId() + ": partitions assigned: "
    # + partitions), the Collection's toString
    ("orders: partitions assigned: [orders-0, orders-1]",
     [expected("PartitionsAssigned", "2.3-", topic="orders", partition=0),
      expected("PartitionsAssigned", "2.3-", topic="orders", partition=1)]),
    ("orders: partitions revoked: [orders-1]", [expected("PartitionsRevoked", "2.3-", topic="orders", partition=1)]),
    ("orders: partitions revoked: []", [expected("PartitionsRevoked", "2.3-", value=0.0)]),
    # onPartitionsLost (2.4+)
    ("orders: partitions lost: [orders-0]", [expected("PartitionsLost", "2.4-", topic="orders", partition=0)]),
    # getGroupId() of a container without a group id prints "null"
    ("null: partitions assigned: [t-0]", [expected("PartitionsAssigned", "2.3-", group=None, topic="t", partition=0)]),
    # 2.0 - 2.2: logger.info("partitions assigned: " + partitions); 1.3: logger.info("partitions assigned:" + ...)
    ("partitions assigned: [orders-2]",
     [expected("PartitionsAssigned", "2.0-2.2", group=None, topic="orders", partition=2)]),
    ("partitions revoked:[orders-2]", [expected("PartitionsRevoked", "1.3", group=None, topic="orders", partition=2)]),
    # ListenerConsumer.run (2.3+): logger.error(fie, "'" + ConsumerConfig.GROUP_INSTANCE_ID_CONFIG
    # + "' has been fenced")
    ("'group.instance.id' has been fenced",
     [expected("ConsumerStopped", "2.3-", group=None, error="FENCED_INSTANCE_ID")]),
    # ListenerConsumer.wrapUp (2.2+): logger.error("Fatal consumer exception; stopping container")
    ("Fatal consumer exception; stopping container",
     [expected("ConsumerStopped", "2.2-", group=None, reason="fatal consumer exception")]),
    # wrapUp: logger.info(() -> getGroupId() + ": Consumer stopped") (2.3+), "Consumer stopped" (1.3 - 2.2)
    ("orders: Consumer stopped", [expected("ConsumerStopped", "2.3-")]),
    ("Consumer stopped", [expected("ConsumerStopped", "1.3-2.2", group=None)]),
    # checkRebalanceCommits (v2.8.7+): logger.warn(() -> "These offsets could not be committed; partition(s) lost during
    # rebalance: " + uncommitted), a Map of TopicPartition to OffsetAndMetadata
    ("These offsets could not be committed; partition(s) lost during rebalance: {orders-0=OffsetAndMetadata{offset=42, "
     "leaderEpoch=null, metadata=''}}",
     [expected("CommitFailed", "2.8.7-", group=None, reason="partition(s) lost during rebalance")]),
    # enforceRebalanceIfNecessary (v3.0.15+): String.format("Enforced rebalance requested for container: %s",
    # getListenerId())
    ("Enforced rebalance requested for container: orders-listener",
     [expected("RejoinRequested", "3.0.15-", group=None, reason="Enforced rebalance requested for container: "
                                                                "orders-listener", detail="orders-listener")]),
])
def test_each_wording_reads_as_its_event(message, events):
    assert rows([boot(message, "ERROR" if "fenced" in message or "Fatal" in message else "INFO")]) == events


def test_logback_log4j2_and_spring_boot_2_layouts_read_the_same():
    message = "orders: partitions assigned: [orders-0]"
    event = [expected("PartitionsAssigned", "2.3-", topic="orders", partition=0)]
    thread = "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1"
    logback = f"20:21:14.681 [{thread}] INFO  o.s.k.l.KafkaMessageListenerContainer - {message}"
    log4j2 = f"2024-03-05 20:21:14,681 INFO [{thread}] org.springframework.kafka.listener." \
             f"KafkaMessageListenerContainer - {message}"
    boot2 = (f"2024-03-05 20:21:14.681  INFO 7 --- [ntainer#0-0-C-1] o.s.k.l.KafkaMessageListenerContainer    : "
             f"{message}")
    compose = f"orders-1  | {boot(message)}"
    assert rows([log4j2, boot2, compose, logback]) == event * 3 + [dict(event[0], time_inferred=True)]
    # Logback's default `%d{HH:mm:ss.SSS}` has no date: the day is the dated record's before it


def test_json_layouts_that_keep_the_logger_in_a_field_of_its_own():
    """Spring Boot's structured logging (ECS: `log.logger`; Logstash: `logger_name`): the logger's field is the
    mark, the `message` field its message, the `@timestamp` its time."""
    logger = "org.springframework.kafka.listener.KafkaMessageListenerContainer"
    ecs = json.dumps({"@timestamp": "2024-03-05T20:21:14.681Z", "log.level": "INFO", "process.pid": 1,
                      "process.thread.name": "org.springframework.kafka.KafkaListenerEndpointContainer#0-0-C-1",
                      "service.name": "orders", "log.logger": logger,
                      "message": "orders: partitions assigned: [orders-0]", "ecs.version": "8.11"})
    logstash = json.dumps({"@timestamp": "2024-03-05T20:21:14.681Z", "@version": "1",
                           "message": "orders: partitions lost: [orders-1]", "logger_name": logger,
                           "thread_name": "ntainer#0-0-C-1", "level": "INFO", "level_value": 20000})
    assert rows([ecs, logstash]) == [expected("PartitionsAssigned", "2.3-", topic="orders", partition=0),
                                     expected("PartitionsLost", "2.4-", topic="orders", partition=1)]


def test_the_container_messages_without_its_logger_are_not_read():
    """The words alone are common ones: without the container's logger in front, a line is another logger's."""
    result = parse_lines(["2024-03-05 20:21:14.681 INFO orders: partitions assigned: [orders-0]",
                          "2024-03-05 20:21:14.681 INFO o.s.k.l.KafkaMessageListenerContainer - Consumer exception"],
                         origin=ORIGIN)
    assert result.rows == [] and result.unparsed == []
    assert result.counts["other"] == 1 and result.counts["ignored"] == 1


def test_a_consumer_exception_with_its_commit_failed_exception():
    """spring-kafka's `logger.error(e, "Consumer exception")` (handleConsumerException, 2.1+) prints the exception on
    the next lines: the CommitFailedException's message is the Java consumer's, read without a date (its time is the
    record's before it) and without the LogContext prefix (no group: the file's other lines give it)."""
    lines = [boot("orders: partitions assigned: [orders-0]"),
             boot("Consumer exception", "ERROR"),
             "java.lang.IllegalStateException: This error handler cannot process 'org.apache.kafka.clients.consumer."
             "CommitFailedException's; no record information is available",
             "\tat org.springframework.kafka.listener.DefaultErrorHandler.handleOtherException("
             "DefaultErrorHandler.java:198)",
             # CommitFailedException() (2.3+): its default message
             "Caused by: org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed since the "
             "group has already rebalanced and assigned the partitions to another member. This means that the time "
             "between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically "
             "implies that the poll loop is spending too much time message processing. You can address this either by "
             "increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with "
             "max.poll.records.",
             # ConsumerCoordinator.sendOffsetCommitRequest (2.5+)
             "org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the "
             "consumer is not part of an active group for auto partition assignment; it is likely that the consumer "
             "was kicked out of the group."]
    assert rows(lines) == [
        expected("PartitionsAssigned", "2.3-", topic="orders", partition=0),
        expected("CommitFailed", "2.3-", group=None, log_source="java", reason="group rebalanced", time_inferred=True),
        expected("CommitFailed", "2.5-", group=None, log_source="java", reason="not part of an active group",
                 time_inferred=True)]
    # Before 2.3 the message advised "increasing the session timeout"
    old = ("org.apache.kafka.clients.consumer.CommitFailedException: Commit cannot be completed since the group has "
           "already rebalanced and assigned the partitions to another member. This means that the time between "
           "subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies "
           "that the poll loop is spending too much time message processing. You can address this either by "
           "increasing the session timeout or by reducing the maximum size of batches returned in poll() with "
           "max.poll.records.")
    assert [(r["kind"], r["versions"]) for r in rows([boot("Consumer exception", "ERROR"), old])] == [
        ("CommitFailed", "1.0-2.2")]


def test_a_fenced_static_member_and_a_commit_lost_to_a_rebalance_are_diagnosed():
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines([boot("orders: partitions assigned: [orders-0]"),
                             boot("'group.instance.id' has been fenced", "ERROR")], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("misconfiguration", "orders", 0.9)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 2)]
    report = diagnose_lines([boot("orders: partitions assigned: [orders-0]"), boot("Consumer exception", "ERROR"),
                             COMMIT, boot("Consumer exception", "ERROR"), COMMIT], "app.log")
    # client_rules.slow_processing: 0.7 for the first CommitFailedException, 0.02 for the second
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("slow-processing", "orders", 0.72)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 3), ("app.log", 5)]


def test_a_commit_failed_exception_beside_the_poll_timeout_is_more_evidence_not_more_score():
    """With the Java consumer's own poll-timeout line (AbstractCoordinator.java 2.4+) in the file, the finding is that
    line's (0.95); the CommitFailedException after it joins the evidence."""
    from kafkasim.analysis.diagnose import diagnose_lines

    poll = ("2024-03-05T20:21:14.600Z  WARN 1 --- [orders] [ead | orders-1] o.a.k.c.c.internals.ConsumerCoordinator  : "
            "[Consumer clientId=consumer-orders-1, groupId=orders] consumer poll timeout has expired. This means the "
            "time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which "
            "typically implies that the poll loop is spending too much time processing messages. You can address "
            "this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in "
            "poll() with max.poll.records.")
    report = diagnose_lines([poll, boot("Consumer exception", "ERROR"), COMMIT], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("slow-processing", "orders", 0.95)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 1), ("app.log", 3)]


def test_a_cut_rebalance_line_is_kept_aside_with_why():
    result = parse_lines([boot("orders: partitions assigned: [orders-0, ord…")], origin=ORIGIN)
    assert result.rows == [] and [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated or unrecognised wording")]


def test_a_container_line_cut_before_its_first_word_is_kept_aside_as_truncated():
    """Nothing of the message is left (a paste cut right after the logger): it may have been any of the
    container's rebalance wordings, so it is not taken for another line."""
    result = parse_lines([boot("…")], origin=ORIGIN)
    assert result.rows == [] and [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated")]


def test_other_container_lines_are_counted_not_read():
    result = parse_lines([boot("Paused consumer resumed by Kafka due to rebalance; consumer paused again, so the "
                               "initial poll() will never return any records", "WARN"),
                          boot("Commit retries exhausted", "ERROR")], origin=ORIGIN)
    assert result.rows == [] and result.unparsed == [] and result.counts["ignored"] == 2


PIECES = ["o.s.k.l.KafkaMessageListenerContainer    : ", "KafkaMessageListenerContainer", " - ", "orders: ",
          "partitions assigned: ", "partitions revoked:", "partitions lost: ", "[", "orders-0", ", ", "]", ": ",
          "'group.instance.id' has been fenced", "Consumer stopped", "org.apache.kafka.clients.consumer.",
          "CommitFailedException: ", "Commit cannot be completed", "2024-03-05T20:21:14.681Z  INFO 1 --- ", "│",
          "\x00", "{\"log\":\"", "\n", "…", "99999999999999999999", "$ListenerConsumer"]


@settings(max_examples=300, deadline=None)
@given(mixes(PIECES))
def test_any_mix_of_container_pieces_is_never_fatal(lines):
    assert_read_whole(lines, ORIGIN)


def test_a_long_line_built_to_backtrack_costs_little():
    rng = random.Random(7)
    dotted = "2024-03-05 20:21:14.681 INFO " + "a." * 100_000 + "KafkaMessageListenerContainerX" + rng.choice("ab")
    groups = boot("o: " * 50_000 + "partitions assigned: [" + rng.choice("ab"))
    result = parse_lines([dotted, groups, boot("orders: partitions lost: [orders-0]")], origin=ORIGIN)
    assert [r[4] for r in result.rows] == ["PartitionsLost"]
