"""spring-kafka's listener container lines (`@KafkaListener` and every `KafkaMessageListenerContainer`),
1.3 to 4.x.

The container drives a Java consumer, whose own `[Consumer clientId=..., groupId=...] ` lines the Java
consumer's reader (`java_client`) reads. This module reads the container's lines, read from
`spring-kafka/src/main/java/org/springframework/kafka/listener/`: `AbstractMessageListenerContainer.java`
(the default rebalance listener: "partitions assigned/revoked/lost") and `KafkaMessageListenerContainer.java`
(its `ListenerConsumer`: a fenced group.instance.id, a fatal stop, commits lost to a rebalance, an
enforced rebalance), at the maintenance branches 1.3.x - 4.1.x and main of spring-projects/spring-kafka,
the first release of a wording from its tags (v2.6.0 - v4.1.1; before 2.6, its branch). Each template
says the releases whose source has its wording (docs/log-reader.md, "spring-kafka").

The container's messages have no prefix of their own ("my-group: partitions assigned: [orders-0]"),
and their words are common ones: the mark is the logger that prints them, `KafkaMessageListenerContainer`
(its `LogAccessor` is `LogFactory.getLog(getClass())`), as the layouts Spring applications use print it
before the message: Spring Boot's `%-40.40logger{39} : %m` (`o.s.k.l.KafkaMessageListenerContainer    : `),
Logback's and Log4j2's `%logger{36} - %msg`. The group is the message's own `getGroupId() + ": "`
(2.3+). Events are the consumer's side (source "consumer").

Simplifications: a layout that prints the logger after the message (Kafka's `%m (%c)`) or none at all is
not read; "Consumer exception" is kept as a known line (its exception, on the next line, is the Java
consumer's: `java_client` reads a CommitFailedException); the `NonResponsiveConsumerEvent`
("Consumer not responding") and idle events are published to the application, not logged.
"""

from __future__ import annotations

from functools import partial

from kafkasim.analysis.logs.wording import Template, event, topic_partitions

FREE = (("KafkaMessageListenerContainer",
         r"(?P<spring>(?<![\w.$])(?:[\w$]++\.)*+KafkaMessageListenerContainer(?:\$ListenerConsumer)?"
         r"[ \t]*+(?:[:\-][ \t]++)?)"),)
PREFIXES = ("spring",)
#: The message's own group: `getGroupId() + ": "` (2.3+), any text up to the first ": ".
_GROUP = r"(?P<g>(?:[^:]|:(?! ))*+): "
_KINDS = {"assigned": "PartitionsAssigned", "revoked": "PartitionsRevoked", "lost": "PartitionsLost"}


def _group(m) -> str | None:
    group = m.groupdict().get("g")
    return None if group in (None, "null") else group  # getGroupId() of a container without one


def _ev(t, m, kind, **fields) -> tuple:
    return event(t, "consumer", kind, _group(m), **fields)


def _partitions(m, t, ctx):
    """The default rebalance listener (createSimpleLoggingConsumerRebalanceListener): one event per
    partition of the Collection's `[a-0, b-1]`, as the Java consumer's lines give; value 0 when empty."""
    kind = _KINDS[m["w"]]
    out = [_ev(t, m, kind, topic=topic, partition=p) for topic, p in topic_partitions(m["l"])]
    return out or [_ev(t, m, kind, value=0.0)]


def _const(kind: str, m, t, ctx, **fixed):
    return [_ev(t, m, kind, **fixed)]


def _enforced(m, t, ctx):
    return [_ev(t, m, "RejoinRequested", reason=m["r"], detail=m["c"])]


_LIST = r"(?P<l>\[[^\]]*+\])"
TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    "partitions": (True, [
        Template(_GROUP + r"partitions (?P<w>assigned|revoked): " + _LIST, "", _partitions, versions="2.3-"),
        Template(_GROUP + r"partitions (?P<w>lost): " + _LIST, "", _partitions, versions="2.4-"),
        Template(r"partitions (?P<w>assigned|revoked): " + _LIST, "", _partitions, versions="2.0-2.2"),
        Template(r"partitions (?P<w>assigned|revoked):" + _LIST, "", _partitions, versions="1.3")]),
    # ListenerConsumer.run: catch (FencedInstanceIdException fie) -> logger.error(fie, "'group.instance.id' has been
    # fenced"), and the container stops (fatalError)
    "'group.instance.id'": (True, [Template(r"'group\.instance\.id' has been fenced", "",
                                            partial(_const, "ConsumerStopped", error="FENCED_INSTANCE_ID"),
                                            versions="2.3-")]),
    # ListenerConsumer.wrapUp: a fatal error that is not an Error stops the container
    "Fatal": (False, [Template(r"Fatal consumer exception; stopping container", "",
                               partial(_const, "ConsumerStopped", reason="fatal consumer exception"),
                               versions="2.2-")]),
    # ListenerConsumer.wrapUp, after consumer.close(): "Consumer stopped" (1.3 - 2.2), getGroupId() + ": ..." (2.3+)
    "Consumer stopped": (False, [
        Template(_GROUP + r"Consumer stopped", "", partial(_const, "ConsumerStopped"), versions="2.3-"),
        Template(r"Consumer stopped", "", partial(_const, "ConsumerStopped"), versions="1.3-2.2")]),
    # ListenerConsumer.checkRebalanceCommits: offsets of partitions no longer assigned after a rebalance
    "These": (False, [Template(r"These offsets could not be committed; partition\(s\) lost during rebalance: ", ".*",
                               partial(_const, "CommitFailed", reason="partition(s) lost during rebalance"),
                               versions="2.8.7-")]),
    # ListenerConsumer.enforceRebalanceIfNecessary: the reason it passes to consumer.enforceRebalance(reason)
    "Enforced": (False, [Template(r"(?P<r>Enforced rebalance requested for container: (?P<c>.*))", "", _enforced,
                                  versions="3.0.15-")]),
}
_KEYS = tuple(TEMPLATES)


def key(message: str, mark) -> str:
    """The wording's opening words (TEMPLATES' keys), after the group's "G: " when the message has one."""
    for text in (message, message.partition(": ")[2]):
        for k in _KEYS:
            if text.startswith(k):
                return k
    return ""
