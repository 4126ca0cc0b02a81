"""sarama's consumer-group lines (IBM/sarama, formerly Shopify/sarama, the Go client), 1.19 to 1.60.

sarama logs through its package-level `sarama.Logger` (a `StdLogger`, `Printf`/`Println`; silent until
the application sets it, most often to `log.New(os.Stdout, "[sarama] ", log.LstdFlags)`), so a line's
prefix and date (`2023/06/24 15:09:33`) are the application's: sarama's own words are the mark. Read
at the minor tags v1.19.0 - v1.60.0 and at v1.60.1 of IBM/sarama from `consumer_group.go` (its session's lines moved to
`consumer_group_session.go` in 1.60.1), `client.go` (the coordinator lookup) and `errors.go` (the
words of Kafka's errors, `KError.Error()`), which `consumerGroup.handleError` prints with
`Logger.Println(err)` when `Consumer.Return.Errors` is false (the default) and applications print
when it returns them (`kafka: error while consuming T/P: ...` is `ConsumerError.Error()`).

sarama logs none of its settings, and no line of a join or a sync (only the fenced instance id);
what it tells of a rebalance is the end of each session (`consumergroup/session/MEMBER/GENERATION`).
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.wording import Template, event, number

FREE = (("consumergroup/", r"(?P<sarama_cg>(?<![\w/-])consumergroup/)"),
        ("client/coordinator ", r"(?P<sarama_coord>(?<![\w/])client/coordinator )"),
        ("kafka server: ", r"(?P<sarama_err>(?:kafka: error while consuming (?P<sa_t>[^\s/]++)/(?P<sa_p>-?\d{1,10}): )?"
                           r"kafka server: )"),
        ("JoinGroup failed: group instance id ", r"(?P<sarama_fenced>JoinGroup failed: (?=group instance id ))"))
PREFIXES = ("sarama_cg", "sarama_coord", "sarama_err", "sarama_fenced")

#: `KError.Error()` of the errors a rebalance meets (errors.go; the trailing '.' went in 1.33) -> Kafka's name.
ERRORS = {
    "A rebalance for the group is in progress. Please re-join the group": "REBALANCE_IN_PROGRESS",
    "The provided member is not known in the current generation": "UNKNOWN_MEMBER_ID",
    "The provided generation id is not the current generation": "ILLEGAL_GENERATION",
    "Request was for a consumer group that is not coordinated by this broker": "NOT_COORDINATOR",
    "Offset's topic has not yet been created": "COORDINATOR_NOT_AVAILABLE",  # to 1.44
    "The coordinator is not available": "COORDINATOR_NOT_AVAILABLE",  # 1.45-
    "The broker is still loading offsets after a leader change for that offset's topic partition":
        "COORDINATOR_LOAD_IN_PROGRESS",  # to 1.44
    "The coordinator is still loading offsets and cannot currently process requests":
        "COORDINATOR_LOAD_IN_PROGRESS",  # 1.45-
    "The provider group protocol type is incompatible with the other members": "INCONSISTENT_GROUP_PROTOCOL",
    "The provided session timeout is outside the allowed range": "INVALID_SESSION_TIMEOUT",
    "The provided group id was empty": "INVALID_GROUP_ID",
    "The client is not authorized to access this group": "GROUP_AUTHORIZATION_FAILED",
    "The group member needs to have a valid member id before actually entering a consumer group": "MEMBER_ID_REQUIRED",
    "Consumer group The consumer group has reached its max size. already has the configured maximum number of members":
        "GROUP_MAX_SIZE_REACHED",
    "The broker rejected this static consumer since another consumer with the same group.instance.id has registered "
    "with a different member.id": "FENCED_INSTANCE_ID",
}
_ERROR_WORDS = "|".join(re.escape(text) for text in sorted(ERRORS, key=len, reverse=True))


def _ev(t, kind, group=None, **fields) -> tuple:
    return event(t, "consumer", kind, group, **fields)


def _session(kind: str, m, t, ctx):
    """`consumergroup/session/MEMBER/GENERATION ...`: the member id and generation of the session."""
    return [_ev(t, kind, member=m["m"] or None, generation=number(m["n"]))]


def _partitions_changed(m, t, ctx):
    return [_ev(t, "RejoinRequested", m["g"], reason=f"partitions of topics {m['tp']} changed from {m['a']} to {m['b']}")]


def _discovered(m, t, ctx):
    return [_ev(t, "CoordinatorDiscovered", m["g"], detail=f"#{m['b']} ({m['a']})")]


def _not_available(m, t, ctx):
    return [_ev(t, "CoordinatorLost", m["g"], error="COORDINATOR_NOT_AVAILABLE")]


def _request_failed(m, t, ctx):
    # client.go findCoordinator: `broker.FindCoordinator` failed at the connection (a Kafka error is in the response)
    return [_ev(t, "CoordinatorLost", reason=m["e"], detail=m["b"], state="disconnected")]


def _fenced(m, t, ctx):
    return [_ev(t, "JoinGroupResponse", error="FENCED_INSTANCE_ID", instance=m["i"])]


def _error_topic(m, t, ctx):
    """ConsumerError's topic and partition, when the error came wrapped in it."""
    return [_ev(t, "ConsumerError", error=ERRORS[m["e"]], topic=ctx.mark["sa_t"],
                partition=number(ctx.mark["sa_p"]))]


TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    # consumer_group.go (consumer_group_session.go from 1.60.1) heartbeatLoop's deferred line, and release
    "session": (True, [
        Template(r"session/(?P<m>[^/\s]*+)/(?P<n>-?\d++) heartbeat loop stopped", "",
                 partial(_session, "HeartbeatStopped"), versions="1.32-"),
        Template(r"session/(?P<m>[^/\s]*+)/(?P<n>-?\d++) released", "", partial(_session, "PartitionsRevoked"),
                 versions="1.32-")]),
    # consumer_group.go loopCheckPartitionNumbers, topicToPartitionNumbers, subscriptionMetadata
    "group": (False, [
        Template(r"(?P<g>\S+?) loop check partition number goroutine find partitions in topics (?P<tp>.*?) changed "
                 r"from (?P<a>\d++) to (?P<b>\d++)", "", _partitions_changed, versions="1.41-")]),
    # client.go findCoordinator ("consumergroup %s" to 1.36, the key alone from 1.37)
    "coordinator": (False, [
        Template(r"coordinator for (?:consumergroup )?(?P<g>\S++) is #(?P<b>-?\d++) \((?P<a>[^)]*+)\)", "",
                 _discovered, versions="1.19-"),
        Template(r"coordinator for (?:consumer group )?(?P<g>\S++) is not available", "", _not_available,
                 versions="1.19-"),
        Template(r"request to broker (?P<b>\S++) failed: (?P<e>.*)", "", _request_failed, versions="1.19-")]),
    # errors.go KError.Error(), printed by consumer_group.go handleError (Logger.Println) or by the application
    "error": (False, [Template(r"(?P<e>" + _ERROR_WORDS + r")", "", _error_topic, versions="1.19-")]),
    # consumer_group.go joinGroupRequest / syncGroup / heartbeatLoop on FENCED_INSTANCE_ID
    "fenced": (True, [Template(r"group instance id (?P<i>\S++) has been fenced", "", _fenced, versions="1.34-")]),
}
_KEYS = {"sarama_coord": "coordinator", "sarama_err": "error", "sarama_fenced": "fenced"}


def key(message: str, mark) -> str:
    """By the mark: `consumergroup/session/...` lines apart from the group's other `consumergroup/` lines."""
    if mark.lastgroup == "sarama_cg":
        return "session" if message.startswith("session/") else "group"
    return _KEYS[mark.lastgroup]
