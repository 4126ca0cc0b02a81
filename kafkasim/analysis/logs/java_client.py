"""The Java consumer's rebalance lines (Apache Kafka's `KafkaConsumer`, and everything built on it:
Spring Kafka, Kafka Streams, Kafka Connect workers' consumers), 1.1 to 4.x.

Read at each release from `clients/src/main/java/org/apache/kafka/clients/consumer/internals/`:
`AbstractCoordinator.java`, `ConsumerCoordinator.java` and (3.7+) `ConsumerRebalanceListenerInvoker.java`
for the classic protocol; under `group.protocol=consumer` (KIP-848) `MembershipManagerImpl.java` and
`HeartbeatRequestManager.java` (3.7 - 3.9), `AbstractMembershipManager.java` and
`AbstractHeartbeatRequestManager.java` (4.x); `common/config/AbstractConfig.java` (the "ConsumerConfig
values:" block), `common/utils/AppInfoParser.java` ("Kafka version: ...") and `consumer/CommitFailedException.java`
(the exception as an application prints it, e.g. after spring-kafka's "Consumer exception": its first line,
which has no LogContext prefix). Each template says the releases whose source has its wording
(docs/log-reader.md, "Client logs", lists them with the files).

Every line of the consumer carries its LogContext prefix (`ConsumerUtils.createLogContext`, before 3.7
`KafkaConsumer`): `[Consumer clientId=C, groupId=G] `, with `instanceId=I, ` first for a static member
(2.3+). The events are the consumer's side (source "consumer", kinds as the simulated consumer writes
them where it writes them: JoinGroup, PartitionsRevoked, PartitionsAssigned, PartitionsLost,
PollTimeout, MemberTransition, CommitFailed; the responses it logs as JoinGroupResponse,
SyncGroupResponse, HeartbeatResponse and ConsumerGroupHeartbeat with their `error`).

Simplifications: lines of 0.9 - 1.0 (no LogContext prefix: the group is in the message) and DEBUG lines
are not read; the coordinator a line names is kept as text (`detail`), not as a broker id.
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.wording import Template, event, number, topic_partitions
from kafkasim.core.errors import Errors

BRACKETED = (r"(?P<java>Consumer (?:instanceId=(?P<j_instance>[^,\]]*+), )?clientId=(?P<j_client>[^,\]]*+), "
             r"groupId=(?P<j_group>[^\]]*+)\] ?)",)
FREE = (("ConsumerConfig values", r"(?P<java_config>ConsumerConfig values: ?)"),
        ("Kafka version", r"(?P<java_version>(?<![\w.])Kafka version ?: ?)"),
        ("consumer.CommitFailedException: ", r"(?P<java_commit>(?<![\w.$])org\.apache\.kafka\.clients\.consumer\."
                                             r"CommitFailedException: ?)"))
PREFIXES = ("java", "java_config", "java_version", "java_commit")
NEEDLES = ("[Consumer ",)
LOGGERS = (" (org.apache.kafka.clients", " (org.apache.kafka.common")
#: The settings of a "ConsumerConfig values:" block kept as ClientConfig events (the ones a rebalance
#: depends on; `ConsumerConfig.java` names them).
SETTINGS = ("group.id", "client.id", "group.instance.id", "group.protocol", "group.remote.assignor",
            "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "max.poll.records",
            "partition.assignment.strategy", "enable.auto.commit", "auto.commit.interval.ms", "request.timeout.ms",
            "default.api.timeout.ms", "internal.leave.group.on.close", "retry.backoff.ms")

_ERROR_OF_MESSAGE = {e.message: e.name for e in Errors if e.message}
_GEN = (r"Generation\{generationId=(?P<n>-?\d++), memberId='(?P<m>[^']*+)', protocol='(?P<p>[^']*+)'\}")
_INSTANCE = r"(?:Optional\[[^\]]*+\]|Optional\.empty|\S++)"
#: A broker as `Node.toString()` prints it: `host:9092 (id: 1 rack: null)` (4.x adds ` isFenced: false`).
_NODE = r"\S++ \(id: -?\d++ rack: [^)]*+\)"


def _ids(ctx) -> tuple:
    """(group, client, instance) of the line's prefix ("null": none)."""
    mark = ctx.mark
    group, instance = mark["j_group"], mark["j_instance"]
    return (None if group in (None, "null") else group, mark["j_client"],
            None if instance in (None, "null") else instance)


def _ev(t, ctx, kind, **fields) -> tuple:
    group, client, instance = _ids(ctx)
    return event(t, "consumer", kind, group, client=client, instance=instance, **fields)


def _generation(m) -> dict:
    """generation, member and protocol of a `Generation{...}` (2.7+) or a bare generation id (before)."""
    found = m.groupdict()
    return {"generation": number(found.get("n") or found.get("n2")), "member": found.get("m") or None,
            "reason": found.get("p")}


def _simple(kind: str, m, t, ctx, **fixed):
    found = m.groupdict()
    fields = dict(fixed)
    if found.get("r") is not None:
        fields["reason"] = found["r"]
    if found.get("m") is not None:
        fields["member"] = found["m"]
    if found.get("ms") is not None:
        fields["value"] = float(number(found["ms"]))
    if found.get("c") is not None:
        fields["detail"] = found["c"]
    if found.get("disc") == "true":  # markCoordinatorUnknown(cause, isDisconnected) (2.7+): the connection dropped
        fields["state"] = "disconnected"
    return [_ev(t, ctx, kind, **fields)]


def _joined(kind: str, m, t, ctx):
    return [_ev(t, ctx, kind, **_generation(m))]


def _failed(kind: str, m, t, ctx, error: str | None = None):
    """A JoinGroup, SyncGroup or heartbeat response with an error: named by the line, or by Kafka's
    message for it (`Errors.java`), or by the situation the wording stands for (`error`)."""
    found = m.groupdict()
    message = found.get("msg")
    name = found.get("e") or (message and _ERROR_OF_MESSAGE.get(message.strip())) or error
    fields = _generation(m)
    fields["reason"] = "stale" if found.get("stale") else None  # the sent generation is no longer current
    return [_ev(t, ctx, kind, error=name, **fields)]


def _partitions(kind: str, m, t, ctx):
    """One event per partition of the list, as the simulated consumer writes them; one with value 0
    when the list is empty."""
    out = [_ev(t, ctx, kind, topic=topic, partition=p) for topic, p in topic_partitions(m["l"])]
    return out or [_ev(t, ctx, kind, value=0.0)]


def _transition(m, t, ctx):
    """The epoch is the value (its pattern always holds digits; past 18 of them `number` makes it infinite)."""
    return [_ev(t, ctx, "MemberTransition", member=m["m"], reason=m["to"], detail=m["from"],
                value=float(number(m["e"])))]


def _version(m, t, ctx):
    return [event(t, "consumer", "KafkaVersion", detail=m["v"])]


#: CommitFailedException's default message; `{}`: what it advises increasing (its wording changed in 2.3).
_REBALANCED = (r"Commit cannot be completed since the group has already rebalanced and assigned the partitions to "
               r"another member\. This means that the time between subsequent calls to poll\(\) was longer than the "
               r"configured max\.poll\.interval\.ms, which typically implies that the poll loop is spending too much "
               r"time message processing\. You can address this either by increasing {} or by reducing the maximum "
               r"size of batches returned in poll\(\) with max\.poll\.records")


def _commit_failed(reason: str, m, t, ctx):
    """A CommitFailedException as an application prints it (the exception's first line, in a stack
    trace or after the application's own message): the consumer's words, without its LogContext prefix."""
    return [event(t, "consumer", "CommitFailed", reason=reason)]


_POLL_ADVICE = (r"This means the time between subsequent calls to poll\(\) was longer than the configured "
                r"max\.poll\.interval\.ms, which typically implies that the poll loop is spending too much time "
                r"processing messages\.")
_REJOIN = r" Need to re-join the group\. Sent generation was " + _GEN

#: The heartbeat request manager's failure lines (`onErrorResponse`; an error it has no case for is
#: "unexpected"), one wording for both names of the request: (its words after the request's name, the error
#: it stands for, whether it came a release later: the instance-id failures).
_HEARTBEAT_FAILURES = (
    (r" failed for member (?P<m>\S++) because epoch (?P<n2>-?\d++) is fenced\.", "FENCED_MEMBER_EPOCH", False),
    (r" failed because member (?P<m>\S++) is unknown\.", "UNKNOWN_MEMBER_ID", False),
    (r" failed because the group coordinator " + _NODE + r" is not available\.", "COORDINATOR_NOT_AVAILABLE", False),
    (r" failed due to unreleased instance id [^\s:]++: ", "UNRELEASED_INSTANCE_ID", True),
    (r" failed due to fenced instance id [^\s:]++: ", "FENCED_INSTANCE_ID", True),
    (r" failed due to (?P<e>[A-Z_]++): ", None, False),
    (r" failed due to unexpected error (?P<e>[A-Z_]++): ", None, False))
#: The request's name (`GroupHeartbeatRequest` in 3.7-3.9, `ConsumerGroupHeartbeatRequest` from 4.0), the
#: releases of its wordings, and of its instance-id ones.
_HEARTBEAT_REQUESTS = (("GroupHeartbeatRequest", "3.7-3.9", "3.8-3.9"),
                       ("ConsumerGroupHeartbeatRequest", "4.0-", "4.0-"))


TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    "(Re-)joining": (True, [Template(r"\(Re-\)joining group", "", partial(_simple, "JoinGroup"), versions="1.1-")]),
    "Successfully": (True, [
        Template(r"Successfully joined group with generation (?:" + _GEN + r"|(?P<n2>-?\d++))", "",
                 partial(_joined, "JoinGroupResponse"), versions="1.1-"),
        Template(r"Successfully synced group in generation " + _GEN, "", partial(_joined, "SyncGroupResponse"),
                 versions="2.7-")]),
    "JoinGroup": (False, [
        Template(r"JoinGroup failed: (?P<msg>.*?)" + _REJOIN, "", partial(_failed, "JoinGroupResponse"),
                 versions="2.7-"),
        Template(r"JoinGroup failed: The group instance id \S++ has been fenced by another instance\. Sent "
                 r"generation was " + _GEN, "", partial(_failed, "JoinGroupResponse", error="FENCED_INSTANCE_ID"),
                 versions="2.7-"),
        Template(r"JoinGroup failed: Coordinator " + _NODE + r" is loading the group", ".*",
                 partial(_failed, "JoinGroupResponse", error="COORDINATOR_LOAD_IN_PROGRESS"), versions="2.7-"),
        Template(r"JoinGroup failed: (?P<msg>.*?) Marking coordinator unknown\. Sent generation was " + _GEN, "",
                 partial(_failed, "JoinGroupResponse"), versions="2.7-"),
        Template(r"JoinGroup failed due to non-fatal error: (?P<e>REBALANCE_IN_PROGRESS)", ".*",
                 partial(_failed, "JoinGroupResponse"), versions="2.7-")]),
    "SyncGroup": (False, [
        Template(r"SyncGroup failed: The group began another rebalance\." + _REJOIN, "",
                 partial(_failed, "SyncGroupResponse", error="REBALANCE_IN_PROGRESS"), versions="2.7-"),
        Template(r"SyncGroup failed: The group instance id \S++ has been fenced by another instance\. Sent "
                 r"generation was " + _GEN, "", partial(_failed, "SyncGroupResponse", error="FENCED_INSTANCE_ID"),
                 versions="2.7-"),
        Template(r"SyncGroup failed: (?P<msg>.*?)" + _REJOIN, "", partial(_failed, "SyncGroupResponse"),
                 versions="2.7-"),
        Template(r"SyncGroup failed: (?P<msg>.*?) Marking coordinator unknown\. Sent generation was " + _GEN, "",
                 partial(_failed, "SyncGroupResponse"), versions="2.7-")]),
    "Attempt": (False, [
        Template(r"Attempt to heartbeat failed since group is rebalancing", "",
                 partial(_failed, "HeartbeatResponse", error="REBALANCE_IN_PROGRESS"), versions="1.0-2.8"),
        Template(r"Attempt to heartbeat failed since generation (?P<n2>-?\d++) is not current", "",
                 partial(_failed, "HeartbeatResponse", error="ILLEGAL_GENERATION"), versions="1.0-2.5"),
        Template(r"Attempt to heartbeat failed for since member id (?P<m>\S+?) is not valid\.", "",
                 partial(_failed, "HeartbeatResponse", error="UNKNOWN_MEMBER_ID"), versions="1.0-2.5"),
        Template(r"Attempt to heartbeat failed since coordinator " + _NODE + r" is either not "
                 r"started or not valid", "", partial(_failed, "HeartbeatResponse", error="NOT_COORDINATOR"),
                 versions="1.0-"),
        Template(r"Attempt to heartbeat with (?P<stale>stale )?" + _GEN + r" and group instance id " + _INSTANCE +
                 r" failed due to (?P<e>[A-Z_]++), (?:resetting generation|ignoring the error)", "",
                 partial(_failed, "HeartbeatResponse"), versions="2.6-")]),
    "This": (True, [Template(r"This member will leave the group because consumer poll timeout has expired\. " +
                             _POLL_ADVICE, ".*", partial(_simple, "PollTimeout", reason="poll_timeout"),
                             versions="2.1-2.3")]),
    "consumer": (True, [Template(r"consumer poll timeout has expired\. " + _POLL_ADVICE, ".*",
                                 partial(_simple, "PollTimeout", reason="poll_timeout"), versions="2.4-")]),
    "Consumer": (False, [
        Template(r"Consumer poll timeout has expired\. " + _POLL_ADVICE, ".*",
                 partial(_simple, "PollTimeout", reason="poll_timeout"), versions="3.8-"),
        Template(r"Consumer has been disconnected from the group coordinator for (?P<ms>\d++)ms", "",
                 partial(_simple, "CoordinatorDisconnected"), versions="2.8-")]),
    "Time": (False, [Template(r"Time between subsequent calls to poll\(\) was longer than the configured "
                              r"max\.poll\.interval\.ms, exceeded approximately by (?P<ms>-?\d++) ms\. Member "
                              r"(?P<m>\S++) will rejoin the group now", "", partial(_simple, "PollTimeoutRejoin"),
                              versions="3.8-")]),
    "Member": (False, [
        Template(r"Member (?P<m>\S++) sending LeaveGroup request to coordinator (?P<c>" + _NODE + r")(?: due to "
                 r"(?P<r>.*))?", "", partial(_simple, "LeaveGroup"), versions="2.2-"),
        Template(r"Member (?P<m>\S++) with epoch (?P<e>-?\d++) transitioned from (?P<from>[A-Z_]++) to "
                 r"(?P<to>[A-Z_]++)", "", _transition, versions="3.7-"),
        Template(r"Member (?P<m>\S++) is triggering callbacks to release assignment .*? and leave group", "",
                 partial(_simple, "LeaveGroup", reason="unsubscribe or close"), versions="3.8-")]),
    "Discovered": (False, [Template(r"Discovered group coordinator (?P<c>.+)", "",
                                    partial(_simple, "CoordinatorDiscovered"), versions="1.1-")]),
    "Group": (False, [
        Template(r"Group coordinator (?P<c>" + _NODE + r") is unavailable or invalid, will attempt "
                 r"rediscovery", "", partial(_simple, "CoordinatorLost"), versions="1.1-2.6"),
        Template(r"Group coordinator (?P<c>" + _NODE + r") is unavailable or invalid due to cause: "
                 r"(?P<r>.*?)\. ?isDisconnected: (?P<disc>true|false)\. Rediscovery will be attempted", "",
                 partial(_simple, "CoordinatorLost"), versions="2.7-")]),
    "Request": (False, [Template(r"Request joining group due to: (?P<r>.*)", "", partial(_simple, "RejoinRequested"),
                                 versions="3.0-")]),
    "Resetting": (False, [Template(r"Resetting generation (?:and member id )?due to: (?P<r>.*)", "",
                                   partial(_simple, "GenerationReset"), versions="2.4-")]),
    "Revoke": (False, [Template(r"Revoke previously assigned partitions ?(?P<l>.*)", "",
                                partial(_partitions, "PartitionsRevoked"), versions="2.4-")]),
    "Revoking": (False, [Template(r"Revoking previously assigned partitions ?(?P<l>.*)", "",
                                  partial(_partitions, "PartitionsRevoked"),
                                  versions="1.0-2.3, 3.7- (consumer protocol)")]),
    "Adding": (False, [Template(r"Adding newly assigned partitions:? ?(?P<l>.*)", "",
                                partial(_partitions, "PartitionsAssigned"), versions="2.4-")]),
    "Setting": (False, [Template(r"Setting newly assigned partitions:? ?(?P<l>.*)", "",
                                 partial(_partitions, "PartitionsAssigned"), versions="1.0-2.3")]),
    "Lost": (False, [Template(r"Lost previously assigned partitions ?(?P<l>.*)", "",
                              partial(_partitions, "PartitionsLost"), versions="2.4-")]),
    "Finished": (False, [Template(r"Finished assignment for group at generation (?P<n2>-?\d++): ", ".*",
                                  partial(_joined, "AssignmentComputed"), versions="2.4-")]),
    "Failing": (False, [Template(r"Failing OffsetCommit request since the consumer is not part of an active group", "",
                                 partial(_simple, "CommitFailed", reason="not part of an active group"),
                                 versions="2.3-")]),
    "Asynchronous": (False, [Template(r"Asynchronous auto-commit of offsets .*? failed: (?P<r>.*)", "",
                                      partial(_simple, "CommitFailed"), versions="1.0-")]),
    "Synchronous": (False, [Template(r"Synchronous auto-commit of offsets .*? failed: (?P<r>.*)", "",
                                     partial(_simple, "CommitFailed"), versions="1.0-")]),
    **{request: (False, [Template(request + words, ".*", partial(_failed, "ConsumerGroupHeartbeat", error=error),
                                  versions=later if came_later else versions)
                         for words, error, came_later in _HEARTBEAT_FAILURES])
       for request, versions, later in _HEARTBEAT_REQUESTS},
    "#version": (False, [Template(r"(?P<v>\d[\w.+-]*+)", "", _version, versions="1.0-")]),
    # CommitFailedException.java's default message (ConsumerCoordinator's OffsetCommitResponseHandler raises it when the
    # group no longer knows the member's generation), and ConsumerCoordinator.sendOffsetCommitRequest's own (2.5+).
    "#commit": (False, [
        Template(_REBALANCED.format("the session timeout"), "", partial(_commit_failed, "group rebalanced"),
                 versions="1.0-2.2"),
        Template(_REBALANCED.format(r"max\.poll\.interval\.ms"), "", partial(_commit_failed, "group rebalanced"),
                 versions="2.3-"),
        Template(r"Offset commit cannot be completed since the consumer is not part of an active group for auto "
                 r"partition assignment; it is likely that the consumer was kicked out of the group", "",
                 partial(_commit_failed, "not part of an active group"), versions="2.5-")]),
}

_WORD = re.compile(r"\S+")


def key(message: str, mark) -> str:
    """The message's first word (space-delimited: "(Re-)joining"); "#version" after AppInfoParser's words,
    "#commit" after a CommitFailedException's class name."""
    if mark.lastgroup == "java_version":
        return "#version"
    if mark.lastgroup == "java_commit":
        return "#commit"
    m = _WORD.match(message)
    return m.group() if m else ""


_NUMERIC = re.compile(r"-?\d{1,18}")


def config_block(settings: dict[str, str], t) -> list[tuple]:
    """The ClientConfig events of a "ConsumerConfig values:" block (AbstractConfig.logAll: one
    `\\tname = value` line per config, sorted by name): one per setting of SETTINGS, the setting's
    name as `reason`, its text as `detail`, its number (if it is one) as `value`."""
    group = settings.get("group.id") or None
    client = settings.get("client.id") or None
    instance = settings.get("group.instance.id")
    instance = None if instance in (None, "", "null") else instance
    out = []
    for name in SETTINGS:
        if name in settings:
            text = settings[name]
            value = float(text) if _NUMERIC.fullmatch(text) else None
            out.append(event(t, "consumer", "ClientConfig", group, reason=name, value=value, detail=text,
                             client=client, instance=instance))
    return out
