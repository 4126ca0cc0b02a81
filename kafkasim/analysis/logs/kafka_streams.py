"""Kafka Streams' rebalance lines (Apache Kafka's `streams/` module), 1.0 to 4.1.

A Streams application logs through the same Java logging as its consumers, so its log also holds
their `[Consumer clientId=<thread>-consumer, groupId=<application.id>] ` lines: the Java consumer's
reader (`java_client`) reads those. This module reads the Streams layer's own lines, read at each
release branch (1.0 - 4.1) in `streams/src/main/java/org/apache/kafka/streams/`:
`processor/internals/StreamThread.java` (its state machine, a thread that missed a rebalance),
`KafkaStreams.java` (the client's state machine) and `processor/internals/StreamsRebalanceListener.java`
(2.4+: partitions lost). Each template says the releases whose source has its wording
(docs/log-reader.md, "Kafka Streams").

Every line carries its LogContext prefix: `stream-thread [<thread name>] ` (StreamThread, and the
assignor and rebalance listener that run on it), `stream-client [<client.id>] ` (KafkaStreams; 1.0 prints
no space after it). The prefix names no group (the application.id is the consumers' group.id:
`client_rules.name_groups` gives a line the group of its file's consumer lines). The events are the
consumer's side (source "consumer"); `client` is the thread's name or the client's id.

Simplifications: DEBUG lines (the rebalance listener's "partitions assigned/revoked" before 2.4,
"Thread state is already ...") and the lines of a thread's tasks are not read; TaskManager's
"Handle new assignment with:" lists tasks, not partitions, over five lines: it is a known line
without an event.
"""

from __future__ import annotations

from kafkasim.analysis.logs.wording import Template, event, topic_partitions

FREE = (("stream-", r"(?P<streams>(?<![\w-])stream-(?P<ks_of>thread|client) \[(?P<ks_id>[^\]]*+)\] ?)"),)
PREFIXES = ("streams",)
#: Kafka's log4j layout `%m (%c)%n` prints the logger after the message.
LOGGERS = (" (org.apache.kafka.streams",)
#: The class whose state machine a "State transition" line is (its prefix says which).
_MACHINE = {"thread": "StreamThread", "client": "KafkaStreams"}
#: StreamThread.State and KafkaStreams.State names.
_STATE = r"[A-Z_]++"
_MISSED = (r"This implies that (?:the|this) thread (?:may have )?missed a rebalance and dropped out of the consumer "
           r"group\. ")


def _ev(t, ctx, kind, **fields) -> tuple:
    return event(t, "consumer", kind, client=ctx.mark["ks_id"] or None, **fields)


def _transition(m, t, ctx):
    """StreamThread.setState / KafkaStreams.setState: "State transition from {} to {}"."""
    return [_ev(t, ctx, "MemberTransition", reason=m["to"], detail=m["from"], state=_MACHINE[ctx.mark["ks_of"]])]


def _dropped_out(m, t, ctx):
    """The thread missed a rebalance and dropped out of the group: it closes all its tasks as lost
    (TaskMigratedException; `taskManager.handleLostAll()`); which partitions the line does not say."""
    return [_ev(t, ctx, "PartitionsLost", reason="missed a rebalance", detail=m.groupdict().get("task"))]


def _died(m, t, ctx):
    """The thread ends on an exception: as spring-kafka's "Fatal consumer exception; stopping container", its
    consumer stops (and leaves the group)."""
    return [_ev(t, ctx, "ConsumerStopped", reason="thread died on an exception")]


def _lost(m, t, ctx):
    """StreamsRebalanceListener.onPartitionsLost: one event per partition, as the Java consumer's "Lost
    previously assigned partitions" gives; `detail` is the thread's state then."""
    out = [_ev(t, ctx, "PartitionsLost", topic=topic, partition=p, detail=m["st"])
           for topic, p in topic_partitions(m["l"])]
    return out or [_ev(t, ctx, "PartitionsLost", value=0.0, detail=m["st"])]


TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    "State transition from": (True, [Template(r"State transition from (?P<from>" + _STATE + r") to (?P<to>" + _STATE +
                                              ")", "", _transition, versions="1.0-")]),
    # StreamThread.handleTaskMigrated (2.6+): log.warn("Detected that the thread is being fenced. " + ...)
    "Detected that the thread is being fenced": (True, [
        Template(r"Detected that the thread is being fenced\. " + _MISSED + r"Will close out all assigned tasks and "
                 r"rejoin the consumer group", "", _dropped_out, versions="2.6-")]),
    # StreamThread.runLoop, TaskMigratedException (1.0): "Detected a task that got migrated to another thread. ..."
    "Detected a task that got migrated": (True, [
        Template(r"Detected a task that got migrated to another thread\. " + _MISSED + r"Trying to rejoin the consumer "
                 r"group now", "", _dropped_out, versions="1.0")]),
    # 1.1: "Detected task {} that got migrated to another thread: {} This implies that the thread may have ...";
    # 2.0 - 2.5: "Detected task {} that got migrated to another thread. This implies that this thread ..."
    "Detected task": (False, [
        Template(r"Detected task (?P<task>\S+?) that got migrated to another thread(?:: .*?|\.) " + _MISSED +
                 r"Will try to rejoin the consumer group\. Below is the detailed description of the task:", ".*",
                 _dropped_out, versions="1.1-2.5")]),
    # StreamThread.run: the exception that ends the thread (its consumer is closed and leaves the group), printed on
    # the lines after; from 2.8 the uncaught exception handler (KIP-671) decides, and logs no such line here.
    "Encountered the following": (False, [
        Template(r"Encountered the following error during processing:", "", _died, versions="1.0-2.5"),
        Template(r"Encountered the following unexpected Kafka exception during processing, this usually indicate "
                 r"Streams internal errors:", "", _died, versions="2.2-2.5"),
        Template(r"Encountered the following exception during processing and the thread is going to shut down:", "",
                 _died, versions="2.6-2.7")]),
    # StreamsRebalanceListener.onPartitionsLost: "at state {}: partitions {} lost due to missed rebalance.\n" + tasks
    "at state": (True, [Template(r"at state (?P<st>" + _STATE + r"): partitions (?P<l>\[[^\]]*+\]) lost due to "
                                 r"missed rebalance\.", ".*", _lost, versions="2.4-")]),
}
_KEYS = tuple(TEMPLATES)


def key(message: str, mark) -> str:
    """The wording's opening words (TEMPLATES' keys): "State store ..." and "Detected that shutdown ..." are other
    lines under the same first word."""
    for k in _KEYS:
        if message.startswith(k):
            return k
    return ""
