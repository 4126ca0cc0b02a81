"""What a server-side assignor sees, and the adapter that lets a learner plug in an assignor.

Kafka's assignors receive a `GroupSpec` (every member's subscribed topic ids, instance id, rack,
and its *current target* assignment, plus the set of partitions already in someone's target)
and a `SubscribedTopicDescriber` (partition counts of the subscribed topics); see
`group-coordinator-api/src/main/java/org/apache/kafka/coordinator/group/api/assignor/GroupSpec.java`
and `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/TargetAssignmentBuilder.java`.
Here topics are plain names (the simulator has no topic ids) and an assignment is
`{topic: frozenset(partitions)}`.

`GroupSpec` is read lazily so that the built-in assignors cost O(changed members) where Kafka's
do, and O(1) per member otherwise: the coordinator hands over its own maps, not copies.

May import: `kafkasim.core`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

#: A member's assignment, as the coordinator stores it: topic -> partitions.
Assignment = Mapping[str, frozenset]
EMPTY: Mapping[str, frozenset] = {}

HOMOGENEOUS, HETEROGENEOUS = "HOMOGENEOUS", "HETEROGENEOUS"


class PartitionAssignorException(Exception):
    """Kafka's `PartitionAssignorException`: the heartbeat that triggered the computation fails
    with UNKNOWN_SERVER_ERROR and nothing is written (`GroupMetadataManager.updateTargetAssignment`)."""


class GroupSpec:
    """The input of one target-assignment computation (Kafka's `GroupSpecImpl` plus the
    `SubscribedTopicDescriber`).

    `member_ids` is the iteration order the assignors use. Kafka iterates a `HashMap`, whose order
    depends on string hash codes; the simulator uses the group's join order instead, so runs are
    reproducible and easy to follow (Kafka's unit tests use sorted ids, i.e. join order A, B, C).
    """

    __slots__ = ("member_ids", "topics", "subscription_type", "targets", "_subscribed", "_instance",
                 "_rack", "_inverted", "assignable")

    def __init__(self, member_ids: Sequence[str], topics: Mapping[str, int], subscription_type: str,
                 subscribed: Callable[[str], frozenset], targets: Mapping[str, Assignment],
                 instance_id: Callable[[str], str | None], rack_id: Callable[[str], str | None],
                 inverted: Mapping[str, Mapping[int, str]],
                 assignable: Callable[[str], Iterable[int]] | None = None):
        self.member_ids = member_ids
        self.topics = topics                      # subscribed topic -> partition count
        self.subscription_type = subscription_type
        self.targets = targets                    # member id -> current target (members absent: none)
        self._subscribed = subscribed
        self._instance = instance_id
        self._rack = rack_id
        self._inverted = inverted
        #: Kafka's `SubscribedTopicDescriber.assignablePartitions(topic)` (4.1+): a share group's
        #: initialized partitions of a topic; None: every partition is assignable.
        self.assignable = assignable

    def subscribed_topics(self, member_id: str) -> frozenset:
        """The topics the member subscribes to that exist (names and resolved regex together)."""
        return self._subscribed(member_id)

    def target(self, member_id: str) -> Assignment:
        """The member's current target assignment (read-only; return it unchanged to keep it)."""
        return self.targets.get(member_id) or EMPTY

    def instance_id(self, member_id: str) -> str | None:
        return self._instance(member_id)

    def rack_id(self, member_id: str) -> str | None:
        return self._rack(member_id)

    def is_partition_assigned(self, topic: str, partition: int) -> bool:
        """True if some member's target holds the partition (Kafka's `isPartitionAssigned`)."""
        owners = self._inverted.get(topic)
        return owners is not None and partition in owners

    def assigned_partitions(self, topic: str) -> Mapping[int, str]:
        """The partitions of `topic` in someone's target, with that member."""
        return self._inverted.get(topic, EMPTY)


class PluggableAssignor:
    """Wraps a learner's object with `name` and `assign(members, topics)` (item 4 of issue 17).

    Kafka's `group.consumer.assignors` takes class names of `ConsumerGroupPartitionAssignor`
    implementations (`GroupCoordinatorConfig.CONSUMER_GROUP_ASSIGNORS_CONFIG`); here an entry may be
    any object with:

    - `name`: what members put in `ServerAssignor`;
    - `assign(members, topics)`: `members` is `{member_id: {"subscribed_topic_names": [...],
      "instance_id": ..., "rack_id": ..., "assignment": {topic: [p, ...]}}}` with each member's
      current target, `topics` is `{topic: partition_count}` of the subscribed topics; it returns
      `{member_id: {topic: [p, ...]}}`. Members it leaves out get nothing.

    Like Kafka, the result is not checked for balance or overlap: the reconciliation still never
    gives a partition to two members at once (a second claimant waits in UNRELEASED_PARTITIONS).
    Unknown member ids in the result are ignored, as `TargetAssignmentBuilder.build` does.
    """

    def __init__(self, assignor: Any):
        name = getattr(assignor, "name", None)
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"a server assignor needs a non-empty string `name`, got {name!r}")
        if not callable(getattr(assignor, "assign", None)):
            raise TypeError(f"server assignor {name!r} needs an `assign(members, topics)` method")
        self.name = name
        self.assignor = assignor

    def assign(self, spec: GroupSpec) -> dict[str, Assignment]:
        members = {mid: {"subscribed_topic_names": sorted(spec.subscribed_topics(mid)),
                         "instance_id": spec.instance_id(mid), "rack_id": spec.rack_id(mid),
                         "assignment": {t: sorted(ps) for t, ps in sorted(spec.target(mid).items())}}
                   for mid in spec.member_ids}
        result = self.assignor.assign(members, dict(spec.topics))
        if not isinstance(result, Mapping):
            raise TypeError(f"server assignor {self.name!r} must return {{member_id: {{topic: [partitions]}}}}, "
                            f"got {type(result).__name__}")
        known = set(spec.member_ids)
        out: dict[str, Assignment] = {}
        for mid, assignment in result.items():
            if mid in known:
                out[mid] = {t: frozenset(int(p) for p in ps) for t, ps in assignment.items() if ps}
        return out

    def __repr__(self) -> str:
        return f"PluggableAssignor({self.name!r})"


def java_order(s: str) -> bytes:
    """Sort key giving Java's `String.compareTo` order (UTF-16 code units)."""
    return s.encode("utf-16-be")
