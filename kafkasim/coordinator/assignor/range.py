"""The `range` server-side assignor of KIP-848 (not the client's `RangeAssignor`).

Kafka source: `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/RangeAssignor.java`
(rewritten for 3.9/4.0 by KAFKA-16944). Members are sorted with instance ids first (by instance
id), then the others by member id; each topic's partitions are cut into contiguous ranges of
floor(P/M) partitions, the first P mod M subscribers taking one more. When every member
subscribes to the same topics with equal partition counts, each member gets the same partition
numbers in every topic (co-partitioning, for joins).

Stickiness: since KAFKA-16944 the assignor recomputes the ranges from scratch on every epoch and
ignores the previous target. Its only stickiness is the instance-id order: static members keep
their ranges across restarts while the member count and the topics do not change. (The
early-access assignor of 3.7/3.8 tried to keep previous partitions; it is not modelled.)

May import: `kafkasim.core`, `kafkasim.coordinator.assignor.spec`.
"""

from __future__ import annotations

from kafkasim.coordinator.assignor.spec import (
    HOMOGENEOUS, Assignment, GroupSpec, PartitionAssignorException, java_order)


class RangeAssignor:
    """Kafka's server-side `RangeAssignor` (name "range")."""

    name = "range"

    def assign(self, spec: GroupSpec) -> dict[str, Assignment]:
        if not spec.member_ids:
            return {}
        members = self.sorted_members(spec)
        if spec.subscription_type == HOMOGENEOUS:
            topics = spec.subscribed_topics(members[0])
            subscribed = {m: topics for m in members}
        else:
            subscribed = {m: spec.subscribed_topics(m) for m in members}
        cursors = _cursors(spec, members, subscribed)
        result: dict[str, Assignment] = {}
        for member_id in members:
            assignment = {}
            for topic in subscribed[member_id]:
                start, end = cursors[topic].take()
                if start < end:
                    assignment[topic] = frozenset(range(start, end))
            result[member_id] = assignment
        return result

    @staticmethod
    def sorted_members(spec: GroupSpec) -> list[str]:
        """Static members first by instance id, then dynamic members by member id (Java string order)."""
        def key(member_id: str) -> tuple[bool, bytes]:
            instance = spec.instance_id(member_id)
            return (False, java_order(instance)) if instance is not None else (True, java_order(member_id))
        return sorted(spec.member_ids, key=key)

    def __repr__(self) -> str:
        return "RangeAssignor()"


class _Cursor:
    """Per-topic state of `RangeAssignor.TopicMetadata`: the next range and the extras left."""

    __slots__ = ("partitions", "quota", "extra", "next")

    def __init__(self, partitions: int, subscribers: int):
        self.partitions = partitions
        self.quota, self.extra = divmod(partitions, subscribers)
        self.next = 0

    def take(self) -> tuple[int, int]:
        quota = self.quota
        if self.extra > 0:
            quota += 1
            self.extra -= 1
        start = self.next
        self.next = end = min(start + quota, self.partitions)
        return start, end


def _cursors(spec: GroupSpec, members: list[str], subscribed: dict[str, frozenset]) -> dict[str, _Cursor]:
    counts: dict[str, int] = {}
    for member_id in members:
        for topic in subscribed[member_id]:
            counts[topic] = counts.get(topic, 0) + 1
    cursors = {}
    for topic, subscribers in counts.items():
        partitions = spec.topics.get(topic, -1)
        if partitions == -1:
            raise PartitionAssignorException("Member is subscribed to a non-existent topic")
        cursors[topic] = _Cursor(partitions, subscribers)
    return cursors


__all__ = ["RangeAssignor"]
