"""aiokafka's lines (kafkasim.analysis.logs.aiokafka): each line's expected events written by hand from the
format strings of aiokafka/consumer/group_coordinator.py (aio-libs/aiokafka v0.5.0 - v0.14.0), with its errors
printed as aiokafka/errors.py prints them (`[Error N] ClassName: args`, or the bare class name a commit line
prints), behind the prefixes Python's logging prints: a format with a date, and basicConfig's `LEVEL:logger:`."""

from __future__ import annotations

from datetime import datetime

import pytest

from kafkasim.analysis.logs import ROW_FIELDS, aiokafka, parse_lines
from reader_properties import read_rows
from kafkasim.core.events import FIELDS

#: A builder's event tuple (wording.event): the event schema, then what a line tells beyond it.
EVENT = (*FIELDS, "detail", "client", "instance")
ORIGIN = datetime(2024, 3, 5)
T = (20 * 60 + 21) * 60_000 + 14_681  # 20:21:14,681 as ms since ORIGIN
KEYS = ("time", "source", "group", "member", "kind", "generation", "topic", "partition", "error", "reason", "state",
        "value", "log_source", "versions", "detail")
LOGGER = "aiokafka.consumer.group_coordinator"


def py(message: str, level: str = "WARNING", logger: str = LOGGER) -> str:
    """`%(asctime)s %(levelname)s %(name)s: %(message)s`."""
    return f"2024-03-05 20:21:14,681 {level} {logger}: {message}"


def rows(lines) -> list[dict]:
    return read_rows(lines, KEYS, ORIGIN)


def expected(kind, group=None, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, group=group, log_source="aiokafka", versions="0.5-")
    row.update(fields)
    return row


def tp(topic: str, partition: int) -> str:
    """structs.TopicPartition's repr (a NamedTuple)."""
    return f"TopicPartition(topic='{topic}', partition={partition})"


@pytest.mark.parametrize("line,events", [
    # _do_heartbeat: the three warnings in kafka-python's words, read as aiokafka's behind its logger name
    (py("Heartbeat failed for group orders because it is rebalancing"),
     [expected("HeartbeatResponse", "orders", error="REBALANCE_IN_PROGRESS")]),
    (py("Heartbeat failed for group orders: coordinator (node 2) is either not started or not valid"),
     [expected("HeartbeatResponse", "orders", error="NOT_COORDINATOR")]),
    # "Heartbeat failed for group %s: generation id is not " " current." (two spaces: the strings are joined)
    (py("Heartbeat failed for group orders: generation id is not  current."),
     [expected("HeartbeatResponse", "orders", error="ILLEGAL_GENERATION")]),
    # "Heartbeat failed: local member_id was not recognized;" " resetting and re-joining group"
    (py("Heartbeat failed: local member_id was not recognized; resetting and re-joining group"),
     [expected("HeartbeatResponse", error="UNKNOWN_MEMBER_ID")]),
    # log.error("Heartbeat failed: %r", err), err = KafkaError(f"Unexpected exception in heartbeat task:
    # {error_type()!r}") from 0.5.1 (the error itself in 0.5.0)
    (py("Heartbeat failed: KafkaError('Unexpected exception in heartbeat task: InconsistentGroupProtocolError()')",
        "ERROR"),
     [expected("HeartbeatResponse", error="INCONSISTENT_GROUP_PROTOCOL", versions="0.5.1-")]),
    (py("Heartbeat failed: KafkaError('Unexpected exception in heartbeat task: UnknownError()')", "ERROR"),
     [expected("HeartbeatResponse", reason="UnknownError", versions="0.5.1-")]),
    (py("Heartbeat failed: InvalidSessionTimeoutError()", "ERROR"),
     [expected("HeartbeatResponse", error="INVALID_SESSION_TIMEOUT", versions="0.5.0")]),
    # log.error("Heartbeat send request failed: %s. Will retry.", err)
    (py("Heartbeat send request failed: [Error 7] RequestTimedOutError. Will retry.", "ERROR"),
     [expected("HeartbeatResponse", error="REQUEST_TIMED_OUT")]),
    # _heartbeat_routine: log.error("Heartbeat session expired - marking coordinator dead")
    (py("Heartbeat session expired - marking coordinator dead", "ERROR"), [expected("SessionTimeout")]),
    # coordinator_dead: "Marking the coordinator dead (node %s)for group %s." (no space before "for")
    (py("Marking the coordinator dead (node 2)for group orders."),
     [expected("CoordinatorLost", "orders", detail="node 2")]),
    # _send_req: "Error sending %s to node %s [%s] -- marking coordinator dead" (a broken connection: disconnected)
    (py("Error sending HeartbeatRequest_v1 to node 2 [KafkaConnectionError: Connection at kafka-2:9092 closed] -- "
        "marking coordinator dead", "ERROR"),
     [expected("CoordinatorLost", reason="KafkaConnectionError: Connection at kafka-2:9092 closed", detail="node 2",
               state="disconnected")]),
    (py("Error sending OffsetCommitRequest_v2 to node 2 [[Error 7] RequestTimedOutError] -- marking coordinator "
        "dead", "ERROR"),
     [expected("CoordinatorLost", reason="[Error 7] RequestTimedOutError", detail="node 2")]),
    # CoordinatorGroupRebalance: "(Re-)joining group %s", "Joined group '%s' (generation %s) with member_id %s",
    # "Successfully synced group %s with generation %s"
    (py("(Re-)joining group orders", "INFO"), [expected("JoinGroup", "orders")]),
    (py("Joined group 'orders' (generation 7) with member_id aiokafka-0.12.0-5b1d-9e", "INFO"),
     [expected("JoinGroupResponse", "orders", member="aiokafka-0.12.0-5b1d-9e", generation=7)]),
    (py("Successfully synced group orders with generation 7", "INFO"),
     [expected("SyncGroupResponse", "orders", generation=7)]),
    # log.error("Attempt to join group failed due to fatal error: %s", err) with err = error_type()
    (py("Attempt to join group failed due to fatal error: [Error 26] InvalidSessionTimeoutError", "ERROR"),
     [expected("JoinGroupResponse", error="INVALID_SESSION_TIMEOUT")]),
    # _do_commit_offsets: error_type(self.group_id) in the group errors' line, error_type.__name__ in the others
    (py("OffsetCommit failed for group orders due to group error ([Error 25] UnknownMemberIdError: orders), "
        "will rejoin", "ERROR"),
     [expected("CommitFailed", "orders", error="UNKNOWN_MEMBER_ID", reason="will rejoin")]),
    (py("OffsetCommit failed for group orders due to a coordinator error (NotCoordinatorForGroupError), will find "
        "new coordinator and retry", "INFO"),
     [expected("CommitFailed", "orders", error="NOT_COORDINATOR", reason="will find new coordinator and retry")]),
    (py("OffsetCommit failed for group orders because group is initializing (GroupLoadInProgressError), will "
        "retry", "INFO"),
     [expected("CommitFailed", "orders", error="COORDINATOR_LOAD_IN_PROGRESS", reason="group is initializing")]),
    (py(f"OffsetCommit failed for group orders on partition {tp('orders', 3)} with offset "
        "OffsetAndMetadata(offset=1200, metadata=''): InvalidTopicError", "ERROR"),
     [expected("CommitFailed", "orders", topic="orders", partition=3, reason="InvalidTopicError")]),
    (py("OffsetCommit failed for group orders - GroupAuthorizationFailedError", "ERROR"),
     [expected("CommitFailed", "orders", reason="GroupAuthorizationFailedError")]),
    # _maybe_leave_group (close, unsubscribe, and max_poll_interval_ms gone by)
    (py("LeaveGroup request succeeded", "INFO"), [expected("LeaveGroup")]),
    (py("LeaveGroup request failed: [Error 25] UnknownMemberIdError", "ERROR"),
     [expected("LeaveGroup", reason="request failed: [Error 25] UnknownMemberIdError")]),
    # _on_join_prepare / _on_join_complete: a set of TopicPartition, `set()` when empty
    (py(f"Revoking previously assigned partitions {{{tp('orders', 0)}, {tp('orders', 1)}}} for group orders", "INFO"),
     [expected("PartitionsRevoked", "orders", topic="orders", partition=0),
      expected("PartitionsRevoked", "orders", topic="orders", partition=1)]),
    (py("Setting newly assigned partitions set() for group orders", "INFO"),
     [expected("PartitionsAssigned", "orders", value=0.0)]),
])
def test_each_wording_reads_as_its_events(line, events):
    assert rows([line]) == events


def test_kafka_pythons_words_without_aiokafkas_logger_are_kafka_pythons():
    """aiokafka began as kafka-python's port: a line in their shared words names aiokafka only by its logger."""
    line = "Heartbeat failed for group orders because it is rebalancing"
    got = rows([py(line), py(line, logger="kafka.coordinator"), "WARNING:aiokafka.consumer.group_coordinator:" + line])
    assert [(r["log_source"], r["versions"], r["error"]) for r in got] == [
        ("aiokafka", "0.5-", "REBALANCE_IN_PROGRESS"), ("kafka-python", "2.x", "REBALANCE_IN_PROGRESS"),
        ("aiokafka", "0.5-", "REBALANCE_IN_PROGRESS")]
    # kafka-python's "(Re-)joining group %s" and partitions lines (kafka/coordinator/base.py, consumer.py) are not read
    result = parse_lines([py("(Re-)joining group orders", "INFO", "kafka.coordinator"),
                          py("Setting newly assigned partitions set() for group orders", "INFO", "kafka.coordinator")],
                         origin=ORIGIN)
    assert result.rows == [] and result.counts["other"] == 2


def test_a_kibana_date_is_a_time_of_day():
    """A Kibana paste (`February 25th 2021, 12:19:40.770`): its day is not a date the reader knows, its time of
    day is taken, on the day of the log's origin."""
    got = rows(["February 25th 2021, 12:19:40.770 Successfully synced group app with generation 372"])
    assert [(r["time"], r["kind"], r["group"], r["generation"]) for r in got] == [
        ((12 * 60 + 19) * 60_000 + 40_770, "SyncGroupResponse", "app", 372)]


def test_a_cut_or_changed_line_is_kept_aside_with_why():
    result = parse_lines([py("Heartbeat session expired - marking coordinator dead now", "ERROR"),
                          py("OffsetCommit failed for group orders due to group error ([Error 25] Unkn...", "ERROR"),
                          py("Successfully synced group orders with generation x7", "INFO")], origin=ORIGIN)
    assert result.rows == []
    assert [(u[1], u[2]) for u in result.unparsed] == [(1, "unrecognised wording"),
                                                       (2, "truncated or unrecognised wording"),
                                                       (3, "unrecognised wording")]


@pytest.mark.parametrize("text", [
    "Heartbeat session expired - marking\x00\udcff" * 100,
    "aiokafka.consumer.group_coordinator " * 200 + "Heartbeat failed for group ",
    "Error sending X to node 1 [" + "[" * 5000 + " -- marking coordinator dead",
    "Revoking previously assigned partitions {" + "TopicPartition(topic='" * 2000,
])
def test_any_bytes_are_never_fatal(text):
    result = parse_lines([text, py("LeaveGroup request succeeded", "INFO")], origin=ORIGIN)
    assert [r[ROW_FIELDS.index("kind")] for r in result.rows][-1] == "LeaveGroup"


def test_a_commit_refused_to_an_unknown_member_and_a_session_expiry_are_diagnosed():
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines([py("Heartbeat session expired - marking coordinator dead", "ERROR"),
                             py("Heartbeat failed: local member_id was not recognized; resetting and re-joining "
                                "group"),
                             py("Successfully synced group orders with generation 8", "INFO")], "app.log")
    # client_rules.sessions: the session timer and the UNKNOWN_MEMBER_ID answer at the same instant (within
    # FROZEN_MS): the process was frozen, 0.85; both lines are its evidence
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("session-timeout-gc-or-stall", "orders", 0.85)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 1), ("app.log", 2)]


@pytest.mark.parametrize("index,tail,error,why", [
    (0, " due to group error ([Error 25] UnknownMemberIdError: orders), will rejoin", "UNKNOWN_MEMBER_ID",
     "will rejoin"),
    (1, " due to a coordinator error (NotCoordinatorForGroupError), will find new coordinator and retry",
     "NOT_COORDINATOR", "will find new coordinator and retry"),
    (2, " because group is initializing (GroupLoadInProgressError), will retry", "COORDINATOR_LOAD_IN_PROGRESS",
     "group is initializing")])
def test_a_commit_failure_named_by_its_error_keeps_what_aiokafka_does_next(index, tail, error, why):
    """_do_commit_offsets' group, coordinator and loading errors end with what the client does next."""
    template = aiokafka.TEMPLATES["OffsetCommit failed for group"][1][index]
    m = template.full.fullmatch(" failed for group orders" + tail)
    (row,) = template.build(m, T, None)
    assert dict(zip(EVENT, row)) == {**dict.fromkeys(EVENT), "time": T, "source": "consumer",
                                          "group": "orders", "kind": "CommitFailed", "error": error, "reason": why}


@pytest.mark.parametrize("tail,error,reason", [
    (" due to InvalidCommitOffsetSizeError, will retry", "INVALID_COMMIT_OFFSET_SIZE", None),
    (" due to OffsetMetadataTooLargeError, will retry", None, "OffsetMetadataTooLargeError"),
    # the committed OffsetAndMetadata's repr; its metadata is the application's text, "): " included
    (" with offset OffsetAndMetadata(offset=1200, metadata='run 7): ok'): InvalidTopicError", None,
     "InvalidTopicError")])
def test_a_commit_failure_on_one_partition_names_its_topic_partition_and_error(tail, error, reason):
    """_do_commit_offsets' per-partition lines, "on partition %s due to %s, will retry" (offset metadata too large,
    invalid commit offset size) and "on partition %s with offset %s: %s" (any other error): the partition is the
    TopicPartition's repr, the error the class's name."""
    template = aiokafka.TEMPLATES["OffsetCommit failed for group"][1][3]
    m = template.full.fullmatch(f" failed for group orders on partition {tp('pay', 11)}" + tail)
    (row,) = template.build(m, T, None)
    assert dict(zip(EVENT, row)) == {**dict.fromkeys(EVENT), "time": T, "source": "consumer", "group": "orders",
                                     "kind": "CommitFailed", "topic": "pay", "partition": 11, "error": error,
                                     "reason": reason}
