"""sarama's lines (kafkasim.analysis.logs.sarama): each line's expected events written by hand from the
`Logger.Printf`/`Println` calls of consumer_group.go (consumer_group_session.go from 1.60.1), client.go and
the `KError.Error()` words of errors.go of IBM/sarama at the release named beside it, as Go's `log` package
prints them after the prefix applications give sarama.Logger (`log.New(os.Stdout, "[sarama] ", log.LstdFlags)`:
`[sarama] 2024/03/05 20:21:14 message`); then the diagnosis of such lines, and any bytes around them."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkasim.analysis.logs import parse_lines
from reader_properties import assert_read_whole, mutated, read_rows

ORIGIN = datetime(2024, 3, 5)
T = (20 * 60 + 21) * 60_000 + 14_000  # 20:21:14 (log.LstdFlags prints whole seconds) as ms since ORIGIN
KEYS = ("time", "source", "group", "member", "kind", "generation", "topic", "partition", "error", "reason", "state",
        "log_source", "versions", "detail", "instance")


def sarama(message: str) -> str:
    return f"[sarama] 2024/03/05 20:21:14 {message}"


def rows(lines) -> list[dict]:
    return read_rows(lines, KEYS, ORIGIN)


def expected(kind, versions, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, log_source="sarama", versions=versions)
    row.update(fields)
    return row


@pytest.mark.parametrize("line,events", [
    # heartbeatLoop's deferred Logger.Printf("consumergroup/session/%s/%d heartbeat loop stopped\n", memberID, gen) 1.32-
    (sarama("consumergroup/session/sarama-7d1f0c2e-6a1b-4b3f-9a55-2c1d1f0e9b11/5 heartbeat loop stopped"),
     [expected("HeartbeatStopped", "1.32-", member="sarama-7d1f0c2e-6a1b-4b3f-9a55-2c1d1f0e9b11", generation=5)]),
    # release: Logger.Printf("consumergroup/session/%s/%d released\n", ...)
    (sarama("consumergroup/session/sarama-7d1f/5 released"),
     [expected("PartitionsRevoked", "1.32-", member="sarama-7d1f", generation=5)]),
    # loopCheckPartitionNumbers 1.41-: "consumergroup/%s loop check partition number goroutine find partitions in
    # topics %s changed from %d to %d\n" (topics: a []string, printed [a b])
    (sarama("consumergroup/orders loop check partition number goroutine find partitions in topics [orders pay] "
            "changed from 6 to 8"),
     [expected("RejoinRequested", "1.41-", group="orders", reason="partitions of topics [orders pay] changed from 6 to 8")]),
    # client.go findCoordinator: "client/coordinator coordinator for consumergroup %s is #%d (%s)\n" (to 1.36)
    (sarama("client/coordinator coordinator for consumergroup orders is #2 (kafka-2:9092)"),
     [expected("CoordinatorDiscovered", "1.19-", group="orders", detail="#2 (kafka-2:9092)")]),
    # "client/coordinator coordinator for %s is #%d (%s)\n" (1.37-)
    (sarama("client/coordinator coordinator for orders is #2 (kafka-2:9092)"),
     [expected("CoordinatorDiscovered", "1.19-", group="orders", detail="#2 (kafka-2:9092)")]),
    # "client/coordinator coordinator for consumer group %s is not available\n" (to 1.36; "for %s" 1.37-)
    (sarama("client/coordinator coordinator for consumer group orders is not available"),
     [expected("CoordinatorLost", "1.19-", group="orders", error="COORDINATOR_NOT_AVAILABLE")]),
    # "client/coordinator request to broker %s failed: %s\n": the FindCoordinator request failed at the connection
    (sarama("client/coordinator request to broker kafka-1:9092 failed: dial tcp 10.0.0.7:9092: i/o timeout"),
     [expected("CoordinatorLost", "1.19-", reason="dial tcp 10.0.0.7:9092: i/o timeout", detail="kafka-1:9092",
               state="disconnected")]),
    # consumer_group.go 1.34-: Logger.Printf("JoinGroup failed: group instance id %s has been fenced\n", *id)
    (sarama("JoinGroup failed: group instance id pod-0 has been fenced"),
     [expected("JoinGroupResponse", "1.34-", error="FENCED_INSTANCE_ID", instance="pod-0")]),
    # handleError: Logger.Println(err) with KError.Error() (errors.go; 1.33 dropped the trailing '.')
    (sarama("kafka server: The provided member is not known in the current generation"),
     [expected("ConsumerError", "1.19-", error="UNKNOWN_MEMBER_ID")]),
    (sarama("kafka server: A rebalance for the group is in progress. Please re-join the group."),
     [expected("ConsumerError", "1.19-", error="REBALANCE_IN_PROGRESS")]),
    (sarama("kafka server: The broker rejected this static consumer since another consumer with the same "
            "group.instance.id has registered with a different member.id"),
     [expected("ConsumerError", "1.19-", error="FENCED_INSTANCE_ID")]),
    (sarama("kafka server: The coordinator is not available"),
     [expected("ConsumerError", "1.19-", error="COORDINATOR_NOT_AVAILABLE")]),
    # ConsumerError.Error(): "kafka: error while consuming %s/%d: %s"
    (sarama("kafka: error while consuming orders/3: kafka server: The provided session timeout is outside the "
            "allowed range"),
     [expected("ConsumerError", "1.19-", error="INVALID_SESSION_TIMEOUT", topic="orders", partition=3)]),
    # the application's own words in front of a returned error: the error is still sarama's
    ("2024/03/05 20:21:14 Error from consumer: kafka server: The provided generation id is not the current "
     "generation", [expected("ConsumerError", "1.19-", error="ILLEGAL_GENERATION")]),
])
def test_each_wording_reads_as_its_events(line, events):
    assert rows([line]) == events


def test_lines_of_no_rebalance_are_counted_only_and_an_unknown_session_line_is_kept_aside():
    result = parse_lines([sarama("consumergroup/orders loop check partition number goroutine will exit, topics [orders]"),
                          sarama("client/coordinator requesting coordinator for orders from kafka-1:9092"),
                          sarama("kafka server: Message was too large, server rejected it to avoid allocation error"),
                          sarama("client/metadata fetching metadata for all topics from broker kafka-1:9092"),
                          sarama("consumergroup/session/sarama-7d1f/5 paused")], origin=ORIGIN)
    assert result.rows == []
    assert (result.counts["ignored"], result.counts["other"]) == (3, 1)
    assert [(u[1], u[2]) for u in result.unparsed] == [(5, "unrecognised wording")]


def test_a_fenced_static_member_is_diagnosed_as_misconfiguration():
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines([sarama("client/coordinator coordinator for orders is #1 (kafka-1:9092)"),
                             sarama("JoinGroup failed: group instance id pod-0 has been fenced")], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("misconfiguration", "orders", 0.9)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 2)]


def test_a_coordinator_out_of_reach_is_diagnosed_as_network():
    from kafkasim.analysis.diagnose import diagnose_lines

    line = sarama("client/coordinator request to broker kafka-1:9092 failed: dial tcp 10.0.0.7:9092: connect: "
                  "connection refused")
    report = diagnose_lines([sarama("client/coordinator coordinator for orders is #1 (kafka-1:9092)"), line, line],
                            "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("network", "orders", 0.62)]


_PIECES = st.sampled_from([sarama("consumergroup/session/sarama-1/3 heartbeat loop stopped"),
                           sarama("client/coordinator coordinator for consumergroup g is #1 (b:9092)"),
                           sarama("kafka: error while consuming t/0: kafka server: The provided group id was empty"),
                           sarama("JoinGroup failed: group instance id i has been fenced")])


@settings(max_examples=200, deadline=5000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated(_PIECES) | st.text(max_size=80), min_size=1, max_size=8))
def test_any_text_around_its_lines_gives_a_result(lines):
    lines = [x.replace("\n", " ").replace("\r", " ") for x in lines]
    assert_read_whole(lines, ORIGIN)
