"""kafka-python's consumer-group lines (the pure-Python client, dpkp/kafka-python).

kafka-python logs through Python's `logging` (logger `kafka.coordinator`), so a line's prefix (date,
level, logger, process) is whatever the application's logging format makes it: the message itself
is the mark. Read from `kafka/coordinator/base.py` of kafka-python 2.x (BaseCoordinator and its
HeartbeatThread; the stored copy read is commit 0024227 of dpkp/kafka-python): its warnings and
errors (printed at the default WARNING level) about heartbeats, the coordinator, joins and leaving.
The group is in the message where the format string has it; kafka-python's errors print as
`[Error N] ClassName: ...` (kafka/errors.py), N being Kafka's protocol error code (Errors.java); from
2.3.0 the fatal join error prints as its class name alone (`error_type.__name__`).
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.wording import Template, event, number

#: The mark is a wording's first word (kafka-python has no prefix of its own), looking ahead at the words after it;
#: the templates read the rest of the message.
FREE = (("Heartbeat", r"(?P<kpython>Heartbeat(?= failed for group | poll expired, leaving group| session expired, "
                      r"marking coordinator dead|: local member_id was not recognized))"),
        ("Marking the coordinator dead", r"(?P<kpython_dead>Marking(?= the coordinator dead \(node [^()]*+\) for "
                                                       r"group ))"),
        ("Attempt to join group ", r"(?P<kpython_join>Attempt(?= to join group \S+ failed due to fatal error))"),
        ("Leaving consumer group", r"(?P<kpython_leave>Leaving(?= consumer group \())"))
PREFIXES = ("kpython", "kpython_dead", "kpython_join", "kpython_leave")
#: Kafka's protocol error codes (Errors.java) kafka-python prints as `[Error N]` in the lines read here.
ERROR_CODES = {15: "COORDINATOR_NOT_AVAILABLE", 16: "NOT_COORDINATOR", 22: "ILLEGAL_GENERATION",
               23: "INCONSISTENT_GROUP_PROTOCOL", 24: "INVALID_GROUP_ID", 25: "UNKNOWN_MEMBER_ID",
               26: "INVALID_SESSION_TIMEOUT", 27: "REBALANCE_IN_PROGRESS"}
_CODE = re.compile(r"\[Error (\d{1,4})\]")
#: kafka/errors.py's class of each of those errors (NOT_COORDINATOR -> NotCoordinatorError) -> its name.
_BY_CLASS = {"".join(w.title() for w in name.split("_")) + "Error": name for name in ERROR_CODES.values()}


def _ev(t, kind, group=None, **fields) -> tuple:
    return event(t, "consumer", kind, group, **fields)


def _const(kind: str, m, t, ctx, **fixed):
    return [_ev(t, kind, m.groupdict().get("g"), **fixed)]


def _dead(m, t, ctx):
    cause = m["e"].strip()
    state = "disconnected" if cause == "Node Disconnected" else None  # coordinator(): is_disconnected(node)
    return [_ev(t, "CoordinatorLost", m["g"], reason=cause, detail=f"node {m['n']}", state=state)]


def _join_failed(m, t, ctx):
    """2.x before 2.3 prints the error (`[Error 26] InvalidSessionTimeoutError: ...`), 2.3+ its class name."""
    text = m["e"].strip()
    code = _CODE.search(text)
    error = ERROR_CODES.get(number(code.group(1))) if code else _BY_CLASS.get(text)
    return [_ev(t, "JoinGroupResponse", m["g"], error=error, reason=None if error else text)]


TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    # BaseCoordinator._handle_heartbeat_response
    "Heartbeat failed for group": (True, [
        Template(r" failed for group (?P<g>\S+?) because it is rebalancing", "",
                 partial(_const, "HeartbeatResponse", error="REBALANCE_IN_PROGRESS"), versions="2.x"),
        Template(r" failed for group (?P<g>\S+?): coordinator \(node [^)]*+\) is either not started or "
                 r"not valid", "", partial(_const, "HeartbeatResponse", error="NOT_COORDINATOR"), versions="2.x"),
        Template(r" failed for group (?P<g>\S+?): generation id is not +current", "",
                 partial(_const, "HeartbeatResponse", error="ILLEGAL_GENERATION"), versions="2.x")]),
    "Heartbeat: local member_id was not recognized": (True, [
        Template(r": local member_id was not recognized; this consumer needs to re-join", "",
                 partial(_const, "HeartbeatResponse", error="UNKNOWN_MEMBER_ID"), versions="2.x")]),
    # HeartbeatThread._run_once: the session timer and the poll timer (max_poll_interval_ms)
    "Heartbeat session expired": (True, [
        Template(r" session expired, marking coordinator dead", "", partial(_const, "SessionTimeout"),
                 versions="2.x")]),
    "Heartbeat poll expired": (True, [
        Template(r" poll expired, leaving group", "", partial(_const, "PollTimeout", reason="poll_timeout"),
                 versions="2.x")]),
    # BaseCoordinator.coordinator_dead
    "Marking the coordinator dead": (True, [
        Template(r" the coordinator dead \(node (?P<n>[^)]*+)\) for group (?P<g>\S+?): (?P<e>.*?)", "",
                 _dead, versions="2.x")]),
    # BaseCoordinator._handle_join_group_response (InconsistentGroupProtocol, InvalidSessionTimeout, InvalidGroupId)
    "Attempt to join group": (False, [
        Template(r" to join group (?P<g>\S+?) failed due to fatal error: (?P<e>.*)", "", _join_failed,
                 versions="2.x")]),
    # BaseCoordinator.maybe_leave_group
    "Leaving consumer group": (True, [
        Template(r" consumer group \((?P<g>[^)]*+)\)", "", partial(_const, "LeaveGroup"), versions="2.x")]),
}
_KEYS = tuple(TEMPLATES)


def key(message: str, mark) -> str:
    """The wording's opening words (TEMPLATES' keys): the mark's word and the message after it. The mark looks
    ahead at those words in the line as read (already cut at MAX_LINE_CHARS), so one key always fits; "" (no
    wording, the reader's contract) is never returned here."""
    whole = mark.group() + message
    for k in _KEYS:
        if whole.startswith(k):
            return k
    return ""
