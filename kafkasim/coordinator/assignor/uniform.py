"""The `uniform` server-side assignor, the default of `group.consumer.assignors` (KIP-848).

Kafka source: `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`
`UniformAssignor.java`, `UniformHomogeneousAssignmentBuilder.java` and
`UniformHeterogeneousAssignmentBuilder.java` (tags 4.0.0, 4.1.1, 4.2.0-rc1).

Priorities, as in Kafka: balance first (partition counts differ by at most one where the
subscriptions allow it), then stickiness to each member's previous *target*. The subscription
type of the group picks the algorithm:

- homogeneous (every member subscribes to the same topics): each member keeps its previous
  target up to its quota, the excess and the partitions in nobody's target are pooled, and the
  members below quota are filled from the pool in member order. Kafka 4.0 gives the "+1" slots to
  the first members in iteration order; 4.1+ (KAFKA-18688) keeps a "+1" slot for a member that
  already holds that many partitions, so fewer partitions move (`stable_extra`).
- heterogeneous: partitions of unsubscribed topics are dropped, the free partitions are handed
  out topic by topic (most partitions per subscriber first) to the least-loaded subscriber, then
  up to 16 passes move partitions from the most- to the least-loaded subscriber of each topic.

Simplified: Kafka orders topics by a `HashSet` of random topic UUIDs where this module uses topic
names (sorted), and members by a `HashMap` where this module uses the group's join order; racks
are ignored (as in Kafka 4.0-4.3, KAFKA-19387). Exact picks can therefore differ from a real
broker; balance and stickiness hold the same way.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor.spec`.
"""

from __future__ import annotations

from fractions import Fraction

from kafkasim.coordinator.assignor.spec import EMPTY, HOMOGENEOUS, Assignment, GroupSpec, PartitionAssignorException

#: Passes of the heterogeneous balancing phase (`UniformHeterogeneousAssignmentBuilder.MAX_ITERATION_COUNT`).
MAX_ITERATION_COUNT = 16


class UniformAssignor:
    """Kafka's `UniformAssignor` (name "uniform"). `stable_extra` is the 4.1+ homogeneous rule."""

    name = "uniform"

    def __init__(self, stable_extra: bool = True):
        self.stable_extra = stable_extra

    def assign(self, spec: GroupSpec) -> dict[str, Assignment]:
        if not spec.member_ids:
            return {}
        if spec.subscription_type == HOMOGENEOUS:
            return assign_homogeneous(spec, self.stable_extra)
        return HeterogeneousBuilder(spec).build()

    def __repr__(self) -> str:
        return f"UniformAssignor(stable_extra={self.stable_extra})"


# -- homogeneous ----------------------------------------------------------------------------
def assign_homogeneous(spec: GroupSpec, stable_extra: bool) -> dict[str, Assignment]:
    """`UniformHomogeneousAssignmentBuilder.build`: O(members + partitions), and members whose
    target does not change come back as the very same object (the coordinator compares by identity)."""
    members = spec.member_ids
    topics = spec.subscribed_topics(members[0])
    if not topics:
        return {}
    pool, total = _unassigned_pool(spec, topics)
    count = len(members)
    min_quota, extra_left = divmod(total, count)
    result: dict[str, Assignment] = {}
    unfilled: list[tuple[str, int]] = []
    target = spec.targets.get
    for index, member_id in enumerate(members):
        if extra_left > 0:
            quota = min_quota + 1
            has_extra = True
            if not stable_extra:  # 4.0 spends the extra slot at once, in member order
                extra_left -= 1
        else:
            quota = min_quota
            has_extra = False
        new = target(member_id)
        if not new:
            new = EMPTY
        elif len(new) == 1:  # the common case, without building anything
            for topic, parts in new.items():
                if topic in topics and len(parts) <= quota:
                    quota -= len(parts)
                else:
                    new, quota = _keep_up_to_quota(new, topics, quota, pool)
        else:
            new, quota = _keep_up_to_quota(new, topics, quota, pool)
        if stable_extra:
            if quota > 0 and has_extra and count - index > extra_left:
                quota, has_extra = quota - 1, False  # leave the extra slot to a later member
            if has_extra:
                extra_left -= 1
        if quota > 0:
            unfilled.append((member_id, quota))
        result[member_id] = new
    _fill(result, unfilled, pool)
    return result


def _unassigned_pool(spec: GroupSpec, topics: frozenset) -> tuple[list[tuple[str, int]], int]:
    """Partitions of the subscribed topics in nobody's target, topic by topic. Topic names are
    ASCII in Kafka (`[a-zA-Z0-9._-]`), so name order is Java's `String` order."""
    pool: list[tuple[str, int]] = []
    total = 0
    for topic in sorted(topics):
        count = spec.topics.get(topic, -1)
        if count == -1:
            raise PartitionAssignorException(
                f"Members are subscribed to topic {topic} which doesn't exist in the topic metadata.")
        taken = spec.assigned_partitions(topic)
        pool.extend((topic, p) for p in range(count) if p not in taken)
        total += count
    return pool, total


def _keep_up_to_quota(old: Assignment, topics: frozenset, quota: int,
                      pool: list[tuple[str, int]]) -> tuple[Assignment, int]:
    """Keep the member's previous target up to `quota`; pool the excess, drop unsubscribed topics."""
    new: dict[str, frozenset] | None = None
    for topic in sorted(old):
        parts = old[topic]
        if topic not in topics:
            new = dict(old) if new is None else new
            del new[topic]
        elif len(parts) <= quota:
            quota -= len(parts)
        else:
            ordered = sorted(parts)
            kept, excess = ordered[:quota], ordered[quota:]
            quota = 0
            pool.extend((topic, p) for p in excess)
            new = dict(old) if new is None else new
            if kept:
                new[topic] = frozenset(kept)
            else:
                del new[topic]
    return (old if new is None else new), quota


def _fill(result: dict[str, Assignment], unfilled: list[tuple[str, int]], pool: list[tuple[str, int]]) -> None:
    """`assignRemainingPartitions`: members below quota take from the pool in order."""
    at = 0
    for member_id, quota in unfilled:
        if at >= len(pool):
            return   # the pool is used up: nothing is left unassigned
        taken = pool[at:at + quota]
        at += len(taken)
        grown: dict[str, set[int]] = {t: set(ps) for t, ps in result[member_id].items()}
        for topic, partition in taken:
            grown.setdefault(topic, set()).add(partition)
        result[member_id] = {t: frozenset(ps) for t, ps in grown.items()}
    if at < len(pool):
        raise PartitionAssignorException("Partitions were left unassigned")


# -- heterogeneous --------------------------------------------------------------------------
class _Balancer:
    """`UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer`: a least-loaded range
    that grows rightwards and a most-loaded range that grows leftwards over members sorted by
    partition count (ties by member index)."""

    # Set by `initialize`, before any other method reads them.
    order: list[int]
    least_end: int
    least_count: int
    next_least: int
    most_start: int
    most_end: int
    most_count: int
    next_most: int

    def __init__(self, sizes: list[int]):
        self.sizes = sizes

    def initialize(self, members: list[int]) -> int:
        sizes = self.sizes
        self.order = order = sorted(members, key=lambda i: (sizes[i], i))
        self.least_end, self.least_count, self.next_least = 0, sizes[order[0]] - 1, 0
        n = len(order)
        self.most_start, self.most_end, self.most_count, self.next_most = n, n, sizes[order[-1]] + 1, n - 1
        return sizes[order[-1]] - sizes[order[0]]

    def next_least_loaded(self) -> int:
        order, sizes = self.order, self.sizes
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(order) and sizes[order[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = order[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        order, sizes = self.order, self.sizes
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = sizes[order[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and sizes[order[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = order[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        order, at = self.order, self.next_most + 1
        order[at], order[self.most_end - 1] = order[self.most_end - 1], order[at]
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


class HeterogeneousBuilder:
    """`UniformHeterogeneousAssignmentBuilder`, with members numbered in `spec.member_ids` order."""

    def __init__(self, spec: GroupSpec):
        self.spec = spec
        self.member_ids = list(spec.member_ids)
        self.subscribers: dict[str, list[int]] = {}
        for index, member_id in enumerate(self.member_ids):
            for topic in spec.subscribed_topics(member_id):
                if topic not in spec.topics:
                    raise PartitionAssignorException(
                        f"Members are subscribed to topic {topic} which doesn't exist in the topic metadata.")
                self.subscribers.setdefault(topic, []).append(index)
        self.sizes = [0] * len(self.member_ids)
        self.owners = {t: [-1] * spec.topics[t] for t in self.subscribers}
        self.result: list[Assignment] = []
        self.changed: set[int] = set()

    def build(self) -> dict[str, Assignment]:
        if not self.subscribers:
            return {}
        self._revoke_unsubscribed()
        self._assign_remaining()
        self._balance()
        result = self.result
        for index in self.changed:
            result[index] = {t: frozenset(ps) for t, ps in result[index].items() if ps}
        return dict(zip(self.member_ids, result))

    def _topic_order(self, topics) -> list[str]:
        """Partitions per subscriber descending, then subscribers ascending, then topic."""
        subs, counts = self.subscribers, self.spec.topics
        return sorted(topics, key=lambda t: (-Fraction(counts[t], len(subs[t])), len(subs[t]), t))

    def _revoke_unsubscribed(self) -> None:
        spec = self.spec
        for index, member_id in enumerate(self.member_ids):
            old = spec.target(member_id)
            subscribed = spec.subscribed_topics(member_id)
            kept = old
            for topic, parts in old.items():
                if topic in subscribed:
                    self.sizes[index] += len(parts)
                    owners = self.owners[topic]
                    for p in parts:
                        if p < len(owners):
                            owners[p] = index
                else:
                    if kept is old:
                        kept = dict(old)
                    del kept[topic]
            self.result.append(kept)

    def _assign_remaining(self) -> None:
        free = {t: [p for p, o in enumerate(owners) if o == -1] for t, owners in self.owners.items()}
        balancer = _Balancer(self.sizes)
        for topic in self._topic_order([t for t, ps in free.items() if ps]):
            balancer.initialize(self.subscribers[topic])
            for partition in free[topic]:
                self._move(topic, partition, balancer.next_least_loaded())

    def _balance(self) -> None:
        topics = self._topic_order([t for t, s in self.subscribers.items() if len(s) >= 2])
        if not topics:
            return
        balancer = _Balancer(self.sizes)
        last = -1
        for _ in range(MAX_ITERATION_COUNT):
            for index, topic in enumerate(topics):
                if index == last:
                    return  # a full round without moves
                if self._balance_topic(topic, balancer) > 0 or last == -1:
                    last = index

    def _balance_topic(self, topic: str, balancer: _Balancer) -> int:
        if balancer.initialize(self.subscribers[topic]) <= 1:
            return 0
        owners = self.owners[topic]
        partitions = sorted(range(len(owners)), key=lambda p: (owners[p], p))
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        for i, p in enumerate(partitions):
            start.setdefault(owners[p], i)
            end[owners[p]] = i + 1
        moved = 0
        while not balancer.is_balanced():
            most = self._next_giver(balancer, start, end)
            if most == -1:
                break
            end[most] -= 1
            partition = partitions[end[most]]
            least = balancer.next_least_loaded()
            if balancer.is_balanced():
                break
            self._move(topic, partition, least)
            moved += 1
        return moved

    @staticmethod
    def _next_giver(balancer: _Balancer, start: dict[int, int], end: dict[int, int]) -> int:
        """The next most-loaded member that still has a partition of this topic to give."""
        while True:
            most = balancer.next_most_loaded()
            if most == -1 or (most in end and end[most] - start[most] > 0):
                return most
            balancer.exclude_most_loaded()

    def _move(self, topic: str, partition: int, index: int) -> None:
        owners = self.owners[topic]
        old = owners[partition]
        if old != -1:
            self._mutable(old)[topic].discard(partition)
            self.sizes[old] -= 1
        self._mutable(index).setdefault(topic, set()).add(partition)
        owners[partition] = index
        self.sizes[index] += 1

    def _mutable(self, index: int) -> dict[str, set[int]]:
        if index not in self.changed:
            self.changed.add(index)
            self.result[index] = {t: set(ps) for t, ps in self.result[index].items()}
        return self.result[index]  # type: ignore[return-value]


__all__ = ["UniformAssignor", "assign_homogeneous", "HeterogeneousBuilder", "MAX_ITERATION_COUNT", "EMPTY"]
