"""aiokafka's consumer-group lines (aio-libs/aiokafka, the asyncio client), 0.5 to 0.14.

aiokafka logs through Python's `logging` (logger `aiokafka.consumer.group_coordinator`), so a line's
prefix is whatever the application's format makes it: the message is the mark. Read at the tags
v0.5.0 - v0.14.0 from `aiokafka/consumer/group_coordinator.py` (GroupCoordinator, CoordinatorGroupRebalance):
its warnings and errors (printed at Python's default WARNING level) about heartbeats, the coordinator
and commits, and its INFO lines about joins, syncs and assignments. Its errors print as kafka-python's
do, `[Error N] ClassName: ...` (aiokafka/errors.py; kafka-python's kafka/errors.py before 0.8), N being
Kafka's protocol error code (Errors.java).

Three heartbeat warnings have kafka-python's very words (aiokafka began as its port): without aiokafka's
logger name on the line they are read as kafka-python's (the events are the same). aiokafka has no line of
its own for the poll timer: when `max_poll_interval_ms` goes by it leaves the group, and its only line is
"LeaveGroup request succeeded" (LeaveGroup, with no reason: a close leaves with the same words).
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.wording import Template, event, number
from kafkasim.core.errors import Errors

#: The mark is the wording's first word (aiokafka has no prefix of its own), looking ahead at the words after
#: it; the templates read the rest of the message. The wordings kafka-python prints in the very same words
#: (`(Re-)joining group G`, the heartbeat's three, `LeaveGroup request failed: E`, the partitions lines) are
#: marked only behind aiokafka's logger name (`aio_named`); the others are aiokafka's own.
FREE = (("aiokafka.consumer.group_coordinator",
         r"(?P<aio_named>aiokafka\.consumer\.group_coordinator\b[^\n]{0,40}?(?P<aio_w>Heartbeat(?= failed for group )|"
         r"\(Re-\)joining(?= group \S)|LeaveGroup(?= request failed: )|Revoking(?= previously assigned partitions )|"
         r"Setting(?= newly assigned partitions )))"),
        ("Heartbeat", r"(?P<aio>(?P<aio_w>Heartbeat)(?= session expired - marking| failed: local member_id was not "
                      r"recognized; resetting| failed: \w+Error\(| send request failed: ))"),
        ("Marking the coordinator dead", r"(?P<aio_dead>(?P<aio_w>Marking)(?= the coordinator dead \(node [^()\s]*+\)"
                                         r"for group ))"),
        ("Successfully synced group ", r"(?P<aio_sync>(?P<aio_w>Successfully)(?= synced group \S+ with generation ))"),
        ("Joined group '", r"(?P<aio_joined>(?P<aio_w>Joined)(?= group '))"),
        ("OffsetCommit failed for group ", r"(?P<aio_commit>(?P<aio_w>OffsetCommit)(?= failed for group ))"),
        ("LeaveGroup request succeeded", r"(?P<aio_leave>(?P<aio_w>LeaveGroup)(?= request succeeded))"),
        ("Attempt to join group failed ", r"(?P<aio_fatal>(?P<aio_w>Attempt)(?= to join group failed due to fatal "
                                         r"error: ))"),
        ("-- marking coordinator dead", r"(?P<aio_send>(?P<aio_w>Error)(?= sending \w+ to node \S+ \[[^\n]*\] -- "
                                        r"marking coordinator dead))"))
PREFIXES = ("aio_named", "aio", "aio_dead", "aio_sync", "aio_joined", "aio_commit", "aio_leave", "aio_fatal",
            "aio_send")
_CODE = re.compile(r"\[Error (\d{1,4})\]")
#: The `errno` of the error classes (aiokafka/errors.py) a line prints by name (a commit line's `error_type.__name__`,
#: a heartbeat's `error_type()`).
#: (The others, authorization and metadata size among them, are kept as their names in `reason`.)
CLASSES = {"RequestTimedOutError": 7, "GroupLoadInProgressError": 14, "GroupCoordinatorNotAvailableError": 15,
           "NotCoordinatorForGroupError": 16, "IllegalGenerationError": 22, "InconsistentGroupProtocolError": 23,
           "UnknownMemberIdError": 25, "InvalidSessionTimeoutError": 26, "RebalanceInProgressError": 27,
           "InvalidCommitOffsetSizeError": 28, "MemberIdRequired": 79}
#: aiokafka's (and kafka-python's) class name of a broken connection (kafka-python renamed it in 1.4).
_CONNECTION = re.compile(r"(?:Kafka)?ConnectionError\b")
_TP = re.compile(r"TopicPartition\(topic='([^']*+)', partition=(\d++)\)")


def _ev(t, kind, group=None, **fields) -> tuple:
    return event(t, "consumer", kind, group, **fields)


def _error(text: str) -> dict:
    """`error` as Kafka names it, from an `[Error N]` of the text or an error class's name, else the text as
    `reason`."""
    code = _CODE.search(text)
    errno = number(code.group(1)) if code is not None else CLASSES.get(text.strip())
    if errno is not None:
        try:
            return {"error": Errors.for_code(errno).name}
        except ValueError:
            pass
    return {"reason": text.strip()}


def _const(kind: str, m, t, ctx, **fixed):
    return [_ev(t, kind, m.groupdict().get("g"), **fixed)]


def _unexpected(m, t, ctx):
    """A heartbeat answered with an error aiokafka does not handle: Kafka's name when its class is one of CLASSES."""
    return [_ev(t, "HeartbeatResponse", **_error(m["e"]))]


def _heartbeat_failed(m, t, ctx):
    return [_ev(t, "HeartbeatResponse", **_error(m["e"]))]


def _coordinator_send(m, t, ctx):
    state = "disconnected" if _CONNECTION.match(m["e"]) else None
    return [_ev(t, "CoordinatorLost", reason=m["e"], detail=f"node {m['n']}", state=state)]


def _synced(m, t, ctx):
    return [_ev(t, "SyncGroupResponse", m["g"], generation=number(m["n"]))]


def _joined(m, t, ctx):
    return [_ev(t, "JoinGroupResponse", m["g"], member=m["m"], generation=number(m["n"]))]


def _commit(why: str | None, m, t, ctx):
    """CommitFailed: the error as Kafka names it, `reason` what the client does next (or the text of an error
    not named); the partition when the line names one. Each template has `e`, the per-partition one `e2` in
    its other wording."""
    found = m.groupdict()
    fields = _error(found["e"] if found.get("e2") is None else found["e2"])
    partition = number(found.get("p"))
    return [_ev(t, "CommitFailed", m["g"], error=fields.get("error"), reason=fields.get("reason", why),
                topic=found.get("topic"), partition=partition)]


def _leave_failed(m, t, ctx):
    return [_ev(t, "LeaveGroup", reason=f"request failed: {m['e']}")]


def _join_failed(m, t, ctx):
    return [_ev(t, "JoinGroupResponse", **_error(m["e"]))]


def _partitions(kind: str, m, t, ctx):
    """One event per partition of the set (`{TopicPartition(topic='t', partition=0), ...}`), as Java's lines
    give them; one with value 0 when the set is empty."""
    out = [_ev(t, kind, m["g"], topic=topic, partition=number(p)) for topic, p in _TP.findall(m["l"])]
    return out or [_ev(t, kind, m["g"], value=0.0)]


_ERROR_TEXT = r"\((?P<e>[^()]*+(?:\([^()]*+\)[^()]*+)*+)\)"  # an error's text in parentheses, with its own
TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    # GroupCoordinator._do_heartbeat: the three kafka-python wordings (read here behind aiokafka's logger name)
    "Heartbeat failed for group": (True, [
        Template(r" failed for group (?P<g>\S+?) because it is rebalancing", "",
                 partial(_const, "HeartbeatResponse", error="REBALANCE_IN_PROGRESS"), versions="0.5-"),
        Template(r" failed for group (?P<g>\S+?): coordinator \(node [^)]*+\) is either not started or not valid",
                 "", partial(_const, "HeartbeatResponse", error="NOT_COORDINATOR"), versions="0.5-"),
        Template(r" failed for group (?P<g>\S+?): generation id is not +current", "",
                 partial(_const, "HeartbeatResponse", error="ILLEGAL_GENERATION"), versions="0.5-")]),
    "Heartbeat failed: local member_id": (True, [
        Template(r" failed: local member_id was not recognized; resetting and re-joining group", "",
                 partial(_const, "HeartbeatResponse", error="UNKNOWN_MEMBER_ID"), versions="0.5-")]),
    # log.error("Heartbeat failed: %r", err) for any other error, then raised: err is the error (`error_type()`)
    # in 0.5.0, from 0.5.1 KafkaError(f"Unexpected exception in heartbeat task: {error_type()!r}")
    "Heartbeat failed:": (True, [
        Template(r" failed: (?P<e>\w+Error)\(\)", "", _unexpected, versions="0.5.0"),
        Template(r" failed: KafkaError\('Unexpected exception in heartbeat task: (?P<e>\w+)\(\)'\)", "",
                 _unexpected, versions="0.5.1-")]),
    "Heartbeat send request failed": (True, [
        Template(r" send request failed: (?P<e>.*?)\. Will retry", "", _heartbeat_failed, versions="0.5-")]),
    # GroupCoordinator._heartbeat_routine: the session timer
    "Heartbeat session expired": (True, [
        Template(r" session expired - marking coordinator dead", "", partial(_const, "SessionTimeout"),
                 versions="0.5-")]),
    # GroupCoordinator.coordinator_dead ("(node %s)for group": no space)
    "Marking the coordinator dead": (True, [
        Template(r" the coordinator dead \(node (?P<n>[^()\s]*+)\)for group (?P<g>\S+?)", "",
                 lambda m, t, ctx: [_ev(t, "CoordinatorLost", m["g"], detail=f"node {m['n']}")], versions="0.5-")]),
    # GroupCoordinator._send_req
    "Error sending": (True, [
        Template(r" sending \w+ to node (?P<n>\S+) \[(?P<e>.*)\] -- marking coordinator dead", "", _coordinator_send,
                 versions="0.5-")]),
    # CoordinatorGroupRebalance._on_join_complete... / _send_sync_group_request / perform_group_join
    "Successfully synced group": (True, [
        Template(r" synced group (?P<g>\S+) with generation (?P<n>-?\d++)", "", _synced, versions="0.5-")]),
    "Joined group '": (True, [
        Template(r" group '(?P<g>[^']*+)' \(generation (?P<n>-?\d++)\) with member_id (?P<m>\S+)", "", _joined,
                 versions="0.5-")]),
    "(Re-)joining group": (True, [Template(r" group (?P<g>\S+)", "", partial(_const, "JoinGroup"), versions="0.5-")]),
    "Attempt to join group failed": (True, [
        Template(r" to join group failed due to fatal error: (?P<e>.*)", "", _join_failed, versions="0.5-")]),
    # GroupCoordinator._do_commit_offsets: one line per partition's error. Its "with offset %s" prints the
    # OffsetAndMetadata committed (a namedtuple: kafka-python's up to 0.8, aiokafka/structs.py's from 0.9), as
    # its repr, `OffsetAndMetadata(offset=1200, metadata='')`.
    "OffsetCommit failed for group": (True, [
        Template(r" failed for group (?P<g>\S+) due to group error " + _ERROR_TEXT + r", will rejoin", "",
                 partial(_commit, "will rejoin"), versions="0.5-"),
        Template(r" failed for group (?P<g>\S+) due to a coordinator error " + _ERROR_TEXT + r", will find new "
                 r"coordinator and retry", "", partial(_commit, "will find new coordinator and retry"),
                 versions="0.5-"),
        Template(r" failed for group (?P<g>\S+) because group is initializing " + _ERROR_TEXT + r", will retry", "",
                 partial(_commit, "group is initializing"), versions="0.5-"),
        Template(r" failed for group (?P<g>\S+) on partition TopicPartition\(topic='(?P<topic>[^']*+)', "
                 r"partition=(?P<p>\d++)\) (?:due to (?P<e>\w+), will retry|with offset OffsetAndMetadata\(offset=-?\d++, "
                 r"metadata=.*?\): (?P<e2>\w+))", "",
                 partial(_commit, None), versions="0.5-"),
        Template(r" failed for group (?P<g>\S+) - (?P<e>\w+)", "", partial(_commit, None), versions="0.5-")]),
    # GroupCoordinator._maybe_leave_group: on close, unsubscribe, and when max_poll_interval_ms went by
    "LeaveGroup request": (True, [
        Template(r" request succeeded", "", partial(_const, "LeaveGroup"), versions="0.5-"),
        Template(r" request failed: (?P<e>.*)", "", _leave_failed, versions="0.5-")]),
    # GroupCoordinator._on_join_prepare / _on_join_complete
    "Revoking previously assigned partitions": (True, [
        Template(r" previously assigned partitions (?P<l>.*?) for group (?P<g>\S+)", "",
                 partial(_partitions, "PartitionsRevoked"), versions="0.5-")]),
    "Setting newly assigned partitions": (True, [
        Template(r" newly assigned partitions (?P<l>.*?) for group (?P<g>\S+)", "",
                 partial(_partitions, "PartitionsAssigned"), versions="0.5-")]),
}
_KEYS = sorted(TEMPLATES, key=len, reverse=True)


def key(message: str, mark) -> str:
    """The wording's opening words (TEMPLATES' keys): the mark's word and the message after it. Every mark
    looks ahead at the words that follow its word in one key, so one key always begins the message."""
    whole = mark["aio_w"] + message
    return next(k for k in _KEYS if whole.startswith(k))
