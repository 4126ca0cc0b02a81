"""kafka-python's lines (kafkasim.analysis.logs.kafka_python): each line's expected event written by hand
from the format strings of kafka/coordinator/base.py (kafka-python 2.x, BaseCoordinator and HeartbeatThread),
behind Python logging's default-looking prefix `DATE LEVEL logger: ` that an application may print."""

from __future__ import annotations

from datetime import datetime

import pytest

from reader_properties import read_rows

ORIGIN = datetime(2024, 3, 5)
T = (20 * 60 + 21) * 60_000 + 14_681  # 20:21:14,681 as ms since ORIGIN
KEYS = ("time", "source", "group", "kind", "error", "reason", "state", "log_source", "versions", "detail")


def py(message: str, level: str = "WARNING") -> str:
    return f"2024-03-05 20:21:14,681 {level} kafka.coordinator: {message}"


def rows(lines) -> list[dict]:
    return read_rows(lines, KEYS, ORIGIN)


def expected(kind, group=None, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, group=group, log_source="kafka-python", versions="2.x")
    row.update(fields)
    return row


@pytest.mark.parametrize("line,event", [
    # _handle_heartbeat_response: log.warning("Heartbeat failed for group %s because it is rebalancing", group_id)
    (py("Heartbeat failed for group orders because it is rebalancing"),
     expected("HeartbeatResponse", "orders", error="REBALANCE_IN_PROGRESS")),
    # "Heartbeat failed for group %s: coordinator (node %s) is either not started or not valid"
    (py("Heartbeat failed for group orders: coordinator (node 1) is either not started or not valid"),
     expected("HeartbeatResponse", "orders", error="NOT_COORDINATOR")),
    # "Heartbeat failed for group %s: generation id is not " " current." (two spaces: the strings are joined)
    (py("Heartbeat failed for group orders: generation id is not  current."),
     expected("HeartbeatResponse", "orders", error="ILLEGAL_GENERATION")),
    # "Heartbeat: local member_id was not recognized;" " this consumer needs to re-join"
    (py("Heartbeat: local member_id was not recognized; this consumer needs to re-join"),
     expected("HeartbeatResponse", error="UNKNOWN_MEMBER_ID")),
    # HeartbeatThread._run_once: 'Heartbeat session expired, marking coordinator dead'
    (py("Heartbeat session expired, marking coordinator dead"), expected("SessionTimeout")),
    # HeartbeatThread._run_once: 'Heartbeat poll expired, leaving group'
    (py("Heartbeat poll expired, leaving group"), expected("PollTimeout", reason="poll_timeout")),
    # coordinator_dead: "Marking the coordinator dead (node %s) for group %s: %s." (coordinator(): 'Node Disconnected')
    (py("Marking the coordinator dead (node 1) for group orders: Node Disconnected."),
     expected("CoordinatorLost", "orders", reason="Node Disconnected", detail="node 1", state="disconnected")),
    # _handle_join_group_response: log.error("Attempt to join group %s failed due to fatal error: %s", ...) with
    # kafka/errors.py's "[Error 26] InvalidSessionTimeoutError: ..." (26: INVALID_SESSION_TIMEOUT, Errors.java)
    (py("Attempt to join group orders failed due to fatal error: [Error 26] InvalidSessionTimeoutError: x", "ERROR"),
     expected("JoinGroupResponse", "orders", error="INVALID_SESSION_TIMEOUT")),
    # maybe_leave_group: log.info('Leaving consumer group (%s).', group_id)
    (py("Leaving consumer group (orders).", "INFO"), expected("LeaveGroup", "orders")),
])
def test_each_wording_is_read(line, event):
    assert rows([line]) == [event]


def test_a_fatal_join_error_of_a_code_not_mapped_keeps_its_words_as_the_reason():
    """ERROR_CODES maps the codes base.py logs with this wording (23, 24, 26); any other error printed there
    (kafka/errors.py's `[Error N] Name: args`) is no error code the reader can name, so its words are the
    reason, stripped, and the error stays empty."""
    line = py("Attempt to join group orders failed due to fatal error: [Error 30] GroupAuthorizationFailedError: "
              "orders ", "ERROR")
    assert rows([line]) == [expected("JoinGroupResponse", "orders",
                                     reason="[Error 30] GroupAuthorizationFailedError: orders")]


def test_a_poll_timeout_and_a_fatal_join_error_are_diagnosed():
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines([py("Heartbeat failed for group orders because it is rebalancing"),
                             py("Heartbeat poll expired, leaving group")], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("slow-processing", "orders", 0.95)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 2)]
    report = diagnose_lines([py("Attempt to join group orders failed due to fatal error: [Error 26] "
                                "InvalidSessionTimeoutError: JoinGroupResponse_v0(error_code=26)", "ERROR")], "app.log")
    assert [(f.cause, f.score) for f in report.findings] == [("misconfiguration", 0.9)]


def test_the_words_inside_another_line_are_not_a_record():
    # coordinator_dead's cause "Heartbeat session expired" is not the HeartbeatThread's own warning
    got = rows([py("Marking the coordinator dead (node 0) for group g: Heartbeat session expired.")])
    assert [r["kind"] for r in got] == ["CoordinatorLost"] and got[0]["reason"] == "Heartbeat session expired"


@pytest.mark.parametrize("name, error, reason", [
    ("InconsistentGroupProtocolError", "INCONSISTENT_GROUP_PROTOCOL", None),   # errno 23 in kafka/errors.py
    ("InvalidGroupIdError", "INVALID_GROUP_ID", None),                         # 24
    ("GroupAuthorizationFailedError", None, "GroupAuthorizationFailedError"),  # 30: not a code the reader maps
])
def test_a_fatal_join_error_printed_by_its_class_name_alone_is_read_as_that_error(name, error, reason):
    """kafka-python 2.3.0 logs `error_type.__name__` in the fatal join line, with no `[Error N]`: the class
    names the error (kafka/errors.py), read as the same Kafka error as its code, or kept as the reason."""
    line = py(f"Attempt to join group orders failed due to fatal error: {name}", "ERROR")
    assert rows([line]) == [expected("JoinGroupResponse", "orders", error=error, reason=reason)]


@pytest.mark.parametrize("cause", ["Heartbeat session expired", "[Error 16] NotCoordinatorError"])
def test_a_coordinator_marked_dead_for_another_cause_than_a_disconnection_has_no_disconnected_state(cause):
    """coordinator_dead's cause is 'Node Disconnected' only from coordinator(), when the client sees the node
    disconnected; the heartbeat thread (session expired) and an error response (NOT_COORDINATOR, as
    `[Error 16] NotCoordinatorError`) mark it dead with the connection still up."""
    line = py(f"Marking the coordinator dead (node 1) for group orders: {cause}.")
    assert rows([line]) == [expected("CoordinatorLost", "orders", reason=cause, detail="node 1")]


def test_kafka_python_2_3s_fatal_join_error_is_diagnosed_as_its_code_is():
    """The same misconfiguration (INVALID_SESSION_TIMEOUT) as test_a_poll_timeout_and_a_fatal_join_error_are_diagnosed's
    `[Error 26]` line, in kafka-python 2.3's wording."""
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines([py("Attempt to join group orders failed due to fatal error: InvalidSessionTimeoutError",
                                "ERROR")], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("misconfiguration", "orders", 0.9)]
