"""The `simple` assignor of share groups (KIP-932): the only `group.share.assignors` entry.

Kafka source: `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`
`SimpleAssignor.java` (4.0.0, 4.1.1), and from 4.2 `SimpleHomogeneousAssignmentBuilder.java` and
`SimpleHeterogeneousAssignmentBuilder.java` (KAFKA-19362, KAFKA-19363). A share partition may go
to several members at once: delivery safety comes from the per-record locks on the partition
leader (`kafkasim.coordinator.modern.share`), not from exclusive ownership.

- 4.0: every member gets every partition of the topics it subscribes to; members subscribing to
  nothing are left out of the result.
- 4.1: `desired = ceil(P / M)`; each member first takes `partitions[abs(hashCode % P)]` (Java's
  `String.hashCode`), then keeps current partitions nobody hashed to while below `desired`, then
  the partitions left go round robin (a member may end at `desired + 1`).
- 4.2: balance, then stickiness. `sharing = ceil(M / P)` members per partition; member i's quota
  is `ceil(q * (i + 1)) - ceil(q * i)` with `q = sharing * P / M`. Current partitions of
  unsubscribed topics go, members above quota and partitions above `sharing` are trimmed, and the
  rest is filled round robin over the members below quota. Heterogeneous groups do this per topic.

Simplified: Kafka iterates `HashMap`s/`HashSet`s of members and of `TopicIdPartition`s with
random topic ids; here members go in the given (join) order, topics in subscription order and
partitions ascending, so runs are reproducible. Kafka's own 4.2 tests assert only the orders
that do not matter (every partition assigned, the quotas); the 4.1 tests' exact picks hold here.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor.spec`.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

from kafkasim.coordinator.assignor.spec import Assignment, GroupSpec, PartitionAssignorException
from kafkasim.core.config import version_tuple
from kafkasim.core.errors import ConfigError
from kafkasim.core.java import java_string_hash

TP = tuple[str, int]
#: {member: {topic: [partitions]}}, the shape `simple_share_assign` takes and returns.
Plain = dict[str, dict[str, list[int]]]


def share_version(kafka_version) -> tuple[int, int]:
    """(major, minor) of a version with share groups (KIP-932, 4.0+); ConfigError otherwise."""
    v = (version_tuple(kafka_version) + (0,))[:2]  # "4.0" reads (4,); ConfigError naming the supported versions
    if v < (4, 0):
        raise ConfigError(f"share groups (KIP-932) need kafka_version 4.0 or later, got {kafka_version!r}")
    return v


def generation(kafka_version) -> str:
    """Which algorithm a version runs: "all" (4.0), "hash" (4.1) or "sharing" (4.2+)."""
    v = share_version(kafka_version)
    return "all" if v < (4, 1) else "hash" if v < (4, 2) else "sharing"


class SimpleAssignor:
    """Kafka's `SimpleAssignor` (name "simple") as it behaves in `kafka_version`."""

    name = "simple"

    def __init__(self, kafka_version: str):
        self.kafka_version = kafka_version
        self.generation = generation(kafka_version)

    def assign(self, spec: GroupSpec) -> dict[str, Assignment]:
        """The target assignment; `spec.assignable(topic)` (if set) gives the initialized partitions."""
        order = list(spec.topics)
        members = {m: sorted(spec.subscribed_topics(m), key=order.index) for m in spec.member_ids}
        current = {m: {t: sorted(ps) for t, ps in spec.target(m).items()} for m in spec.member_ids}
        described = spec.assignable
        assignable = None if described is None else {t: list(described(t)) for t in order}
        plain = _assign(self.generation, members, dict(spec.topics), current, assignable)
        return {m: {t: frozenset(ps) for t, ps in a.items() if ps} for m, a in plain.items()}

    def __repr__(self) -> str:
        return f"SimpleAssignor({self.kafka_version!r})"


def simple_share_assign(kafka_version, members: Mapping[str, Sequence[str]], topics: Mapping[str, int],
                        current: Mapping[str, Mapping[str, Sequence[int]]] | None = None,
                        assignable: Mapping[str, Sequence[int]] | None = None) -> Plain:
    """The simple assignor as a pure function: `{member: [topics]}`, `{topic: partitions}` ->
    `{member: {topic: [partitions]}}`. `current` is each member's current target, `assignable`
    the initialized partitions per topic (None: all). Raises `PartitionAssignorException` for a
    subscribed topic missing from `topics`."""
    return _assign(generation(kafka_version), {m: list(ts) for m, ts in members.items()}, dict(topics),
                   {m: {t: list(ps) for t, ps in a.items()} for m, a in (current or {}).items()}, assignable)


def _assign(gen: str, members: dict[str, list[str]], topics: dict[str, int],
            current: Mapping[str, Mapping[str, list[int]]], assignable: Mapping[str, Sequence[int]] | None) -> Plain:
    if not members:
        return {}
    for subscribed in members.values():
        for topic in subscribed:
            if topic not in topics:
                raise PartitionAssignorException(
                    f"Members are subscribed to topic {topic} which doesn't exist in the topic metadata.")
    first = next(iter(members.values()))
    homogeneous = all(set(ts) == set(first) for ts in members.values())

    initialized = None if assignable is None or gen == "all" else {t: set(ps) for t, ps in assignable.items()}

    def targets(subscribed: Sequence[str]) -> list[TP]:
        """`computeTargetPartitions`: the (assignable, 4.1+) partitions of the topics, in order."""
        return [(t, p) for t in subscribed for p in range(topics[t])
                if initialized is None or p in initialized.get(t, ())]

    old = {m: {(t, p) for t, ps in current.get(m, {}).items() for p in ps} for m in members}
    if gen == "all":
        return _plain({m: set(targets(ts)) for m, ts in members.items() if ts}, order=None)
    if gen == "hash":
        result = _hash_homogeneous(members, first, targets(first), old) if homogeneous \
            else _hash_heterogeneous(members, targets, old)
    else:
        result = _sharing(members, homogeneous, first, targets, old)
    return _plain(result, order=list(members))


def _plain(result: Mapping[str, set], order: list[str] | None) -> Plain:
    out: Plain = {}
    for m in (order if order is not None else result):
        by_topic: dict[str, list[int]] = {}
        for t, p in sorted(result.get(m, ())):
            by_topic.setdefault(t, []).append(p)
        out[m] = by_topic
    return out


# -- 4.1: hash, keep current, round robin -------------------------------------------------------
def member_hash_assignment(member_ids: Sequence[str], partitions: Sequence[TP]) -> dict[TP, list[str]]:
    """`SimpleAssignor.memberHashAssignment` (4.1): each member to `partitions[abs(hashCode % P)]`."""
    out: dict[TP, list[str]] = {}
    if partitions:
        for m in member_ids:
            index = abs(math.fmod(java_string_hash(m), len(partitions)))  # Java's % keeps the sign
            out.setdefault(partitions[int(index)], []).append(m)
    return out


def round_robin_with_count(member_ids: Sequence[str], partitions: Sequence[TP], assignment: dict[str, set],
                           desired: int) -> None:
    """`SimpleAssignor.roundRobinAssignmentWithCount` (4.1): a member takes partitions while it
    holds at most `desired` (so it can end at `desired + 1`), then leaves the rotation.
    `assignment` holds a set for each member (Kafka makes a missing one; no caller here lacks one)."""
    rotation = list(dict.fromkeys(member_ids))
    position, i = 0, 0
    while i < len(partitions):
        if position >= len(rotation):
            position = 0
            if not rotation:
                raise PartitionAssignorException("Inconsistent number of member IDs")
        member = rotation[position]
        held = assignment[member]
        if len(held) <= desired:
            held.add(partitions[i])
            position += 1
            i += 1
        else:
            rotation.pop(position)


def _hash_homogeneous(members: dict[str, list[str]], subscribed: list[str], partitions: list[TP],
                      old: dict[str, set]) -> dict[str, set]:
    """`newAssignmentHomogeneous` (4.1): the hashed partitions; then each member keeps, while it
    holds fewer than `desired`, its current partitions of the subscribed topics nobody hashed to;
    the partitions nobody holds go round robin."""
    desired = -(-len(partitions) // len(members))
    hashed = member_hash_assignment(list(members), partitions)
    final: dict[str, set] = {m: set() for m in members}
    for tp, ms in hashed.items():
        for m in ms:
            final[m].add(tp)
    kept: set[TP] = set()
    for m in members:
        held = final[m]
        for tp in sorted(old[m]):
            if tp[0] in subscribed and len(held) < desired and tp not in hashed:
                held.add(tp)
                kept.add(tp)
    round_robin_with_count(list(members), [tp for tp in partitions if tp not in hashed and tp not in kept],
                           final, desired)
    return final


def _hash_heterogeneous(members: dict[str, list[str]], targets: Callable[[Sequence[str]], list[TP]],
                        old: dict[str, set]) -> dict[str, set]:
    per_member = {m: targets(ts) for m, ts in members.items() if ts}
    all_targets = list(dict.fromkeys(tp for ps in per_member.values() for tp in ps))
    subscribers: dict[str, list[str]] = {}
    for m, ps in per_member.items():
        for t, _ in ps:
            if m not in subscribers.setdefault(t, []):
                subscribers[t].append(m)
    hashed: dict[TP, list[str]] = {}
    for m, ps in per_member.items():
        for tp, ms in member_hash_assignment([m], ps).items():
            hashed.setdefault(tp, []).extend(ms)
    currently = {tp for ps in old.values() for tp in ps}
    unassigned: dict[str, list[TP]] = {}
    for tp in all_targets:
        if tp not in hashed and tp not in currently:
            unassigned.setdefault(tp[0], []).append(tp)
    for topic, tps in unassigned.items():  # `roundRobinAssignment`: no count
        for i, tp in enumerate(tps):
            hashed.setdefault(tp, []).append(subscribers[topic][i % len(subscribers[topic])])
    final: dict[str, set] = {}
    for tp, ms in hashed.items():
        for m in ms:
            final.setdefault(m, set()).add(tp)
    for m in members:
        for tp in sorted(old[m]):
            if m in subscribers.get(tp[0], ()) and tp not in hashed:
                final[m].add(tp)  # a subscriber has target partitions, so it hashed to one: in `final`
    return final


# -- 4.2: sharing and quotas --------------------------------------------------------------------
def quotas(members: int, partitions: int) -> tuple[int, list[int]]:
    """`(desiredSharing, desiredAssignmentCount)` of the 4.2 builders."""
    sharing = 0 if partitions == 0 else -(-members // partitions)
    precise = sharing * partitions / members
    return sharing, [math.ceil(precise * (i + 1)) - math.ceil(precise * i) for i in range(members)]


def _share_partitions(member_ids: list[str], partitions: list[TP], held: dict[str, set]) -> None:
    """One builder run over `partitions` among `member_ids`, editing `held` (the members' kept
    partitions of these topics): trim overfilled members, then overshared partitions, then fill."""
    sharing, quota = quotas(len(member_ids), len(partitions))
    by_partition: dict[TP, list[str]] = {}
    for m in member_ids:
        for tp in sorted(held[m]):
            by_partition.setdefault(tp, []).append(m)
    for i, m in enumerate(member_ids):  # revokeOverfilledMembers
        for tp in sorted(held[m]):
            if len(held[m]) <= quota[i]:
                break
            held[m].discard(tp)
            by_partition[tp].remove(m)
    for tp, ms in by_partition.items():  # revokeOversharedPartitions, lowest index first
        while len(ms) > sharing:
            held[ms.pop(0)].discard(tp)
    unfilled = [m for i, m in enumerate(member_ids) if len(held[m]) < quota[i]]
    index = {m: i for i, m in enumerate(member_ids)}
    # assignRemainingPartitions: one rotation over the unfilled members, carried across partitions.
    position, placed = 0, False
    for tp in partitions:
        assigned = by_partition.get(tp, [])
        to_make = sharing - len(assigned)
        while to_make > 0:
            if position >= len(unfilled):
                if not placed:  # a whole pass placed nothing: Kafka's loop `break`s, but its iterator
                    return      # stays exhausted and its flag false, so every later partition breaks too
                position, placed = 0, False
            m = unfilled[position]
            if m in assigned:  # Kafka does not add the new holder to `membersAssigned`
                position += 1
                continue
            held[m].add(tp)
            to_make -= 1
            placed = True
            if len(held[m]) >= quota[index[m]]:
                unfilled.pop(position)
                if not unfilled:  # every member at its quota: Kafka's loop ends too (or, with a
                    return        # non-assignable partition still held, its emptied iterator throws)
            else:
                position += 1


def _sharing(members: dict[str, list[str]], homogeneous: bool, first: list[str],
             targets: Callable[[Sequence[str]], list[TP]], old: dict[str, set]) -> dict[str, set]:
    member_ids = list(members)
    if homogeneous:
        if not first:
            return {}
        held = {m: {tp for tp in old[m] if tp[0] in first} for m in member_ids}
        _share_partitions(member_ids, targets(first), held)
        return held
    topics = list(dict.fromkeys(t for ts in members.values() for t in ts))
    if not topics:
        return {}
    result = {m: {tp for tp in old[m] if tp[0] in topics} for m in member_ids}
    for topic in topics:  # a non-subscriber's quota for the topic is 0: it loses what it held
        subscribers = [m for m in member_ids if topic in members[m]]
        held = {m: {tp for tp in result[m] if tp[0] == topic} for m in subscribers}
        _share_partitions(subscribers, targets([topic]), held)
        for m in member_ids:
            result[m] = {tp for tp in result[m] if tp[0] != topic} | held.get(m, set())
    return result


__all__ = ["SimpleAssignor", "simple_share_assign", "member_hash_assignment", "round_robin_with_count",
           "quotas", "generation", "share_version", "PartitionAssignorException"]
