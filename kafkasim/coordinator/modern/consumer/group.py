"""A consumer group of the consumer protocol (KIP-848) and its members, as the coordinator holds them.

Kafka source: `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/`
`ConsumerGroup.java` and `ConsumerGroupMember.java`, `modern/ModernGroup.java`,
`modern/MemberState.java` (tags 4.0.0 to 4.2.0-rc1; Confluent's v8.3.0 = Apache 4.3.0 for the initial
epoch, KAFKA-20268, and the partitions' assignment epochs, KIP-1251).

The group state is computed, never transitioned (`ConsumerGroup.maybeUpdateGroupState`): no
members -> Empty; group epoch ahead of the target assignment epoch -> Assigning; some member not
STABLE at the target epoch -> Reconciling; else Stable. Kafka loops over the members for the
last test; here a count of STABLE members per epoch answers it in O(1), so a group of 100,000
members costs nothing extra per heartbeat. "Dead" exists in Kafka's enum but its state function
never produces it; the simulator reports it for a deleted group.

`owners` is Kafka's `currentPartitionEpoch`: the member holding each partition (assigned or
pending revocation). Giving a partition to a second holder raises, as `addPartitionEpochs` throws
IllegalStateException: that is the code-level guarantee that no partition has two owners.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

from kafkasim.coordinator.assignor.spec import EMPTY, HETEROGENEOUS, HOMOGENEOUS
from kafkasim.coordinator.modern.queries import as_lists

# Group states (`ConsumerGroup.ConsumerGroupState.toString`).
EMPTY_STATE, ASSIGNING, RECONCILING, STABLE_STATE, DEAD = "Empty", "Assigning", "Reconciling", "Stable", "Dead"
GROUP_STATES = (EMPTY_STATE, ASSIGNING, RECONCILING, STABLE_STATE, DEAD)

# Member states (`modern/MemberState.java`).
STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS, UNKNOWN = (
    "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS", "UNKNOWN")
MEMBER_STATES = (STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS, UNKNOWN)

#: Member epochs with a meaning of their own (`ConsumerGroupHeartbeatRequest`).
JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH = 0, -1, -2

Assignment = Mapping[str, frozenset]


class ClassicMember:
    """`ConsumerGroupMemberMetadataValue.ClassicMemberMetadata`: what a member that speaks the
    classic protocol inside a consumer group (KIP-848 online migration) keeps besides the usual
    fields: its own session timeout, its JoinGroup protocols (name, embedded-protocol bytes) and
    its client id."""

    __slots__ = ("session_timeout_ms", "protocols", "client_id")

    def __init__(self, session_timeout_ms: int, protocols: tuple, client_id: str):
        self.session_timeout_ms = session_timeout_ms
        self.protocols = tuple(protocols)
        self.client_id = client_id

    @property
    def protocol_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.protocols)

    def __eq__(self, other) -> bool:
        return isinstance(other, ClassicMember) and (self.session_timeout_ms, self.protocols, self.client_id) == \
            (other.session_timeout_ms, other.protocols, other.client_id)

    __hash__ = None


class ConsumerGroupMember:
    """`ConsumerGroupMember`: an immutable record; every change makes a copy (`evolve`), so the
    coordinator can compute a whole heartbeat before it commits anything, as Kafka does with
    records. Copies share their assignment maps until those change."""

    __slots__ = ("member_id", "instance_id", "rack_id", "rebalance_timeout_ms", "server_assignor",
                 "subscribed_topic_names", "subscribed_topic_regex", "member_epoch", "previous_member_epoch",
                 "state", "assigned", "pending_revocation", "classic", "epochs")

    def __init__(self, member_id: str, *, instance_id: str | None = None, rack_id: str | None = None,
                 rebalance_timeout_ms: int = -1, server_assignor: str | None = None,
                 subscribed_topic_names: frozenset = frozenset(), subscribed_topic_regex: str = "",
                 member_epoch: int = 0, previous_member_epoch: int = -1, state: str = STABLE,
                 assigned: Assignment = EMPTY, pending_revocation: Assignment = EMPTY,
                 classic: ClassicMember | None = None, epochs: Mapping[tuple[str, int], int] | None = None):
        self.member_id = member_id
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.server_assignor = server_assignor
        self.subscribed_topic_names = subscribed_topic_names
        self.subscribed_topic_regex = subscribed_topic_regex
        self.member_epoch = member_epoch
        self.previous_member_epoch = previous_member_epoch
        self.state = state
        self.assigned = assigned
        self.pending_revocation = pending_revocation
        self.classic = classic          # None: the member speaks the consumer protocol
        #: KIP-1251 (4.3): (topic, partition) -> the epoch it was assigned at, for every partition assigned
        #: or pending revocation; None: not tracked (before 4.3), each counts as assigned at the member epoch.
        self.epochs = epochs

    def evolve(self, **changes) -> "ConsumerGroupMember":
        """A copy with `changes` applied (Kafka's `ConsumerGroupMember.Builder`)."""
        copy = object.__new__(ConsumerGroupMember)
        for name in self.__slots__:
            setattr(copy, name, changes.pop(name) if name in changes else getattr(self, name))
        if changes:
            raise TypeError(f"unknown member fields {sorted(changes)}")
        return copy

    def same_as(self, other: "ConsumerGroupMember") -> bool:
        """Field-by-field equality (Kafka's `equals`), cheap when maps are shared."""
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def assignment_epoch(self, topic: str, partition: int) -> int | None:
        """`ConsumerGroupMember.assignmentEpoch`, then `pendingRevocationEpoch` (4.3, KIP-1251): the epoch
        the member got the partition at; None when it neither holds it nor is revoking it. Untracked
        epochs read as the member epoch (not below 0), as `Utils.assignmentFromTopicPartitions` reads a
        record without them."""
        if partition not in self.assigned.get(topic, ()) and partition not in self.pending_revocation.get(topic, ()):
            return None
        if self.epochs is not None and (topic, partition) in self.epochs:
            return self.epochs[(topic, partition)]
        return max(self.member_epoch, 0)

    def is_reconciled_to(self, epoch: int) -> bool:
        """`ModernGroupMember.isReconciledTo`: STABLE at that epoch."""
        return self.state == STABLE and self.member_epoch == epoch

    @property
    def is_static(self) -> bool:
        return self.instance_id is not None

    def __repr__(self) -> str:
        return (f"ConsumerGroupMember({self.member_id!r}, epoch={self.member_epoch}, "
                f"previous={self.previous_member_epoch}, state={self.state}, "
                f"assigned={_show(self.assigned)}, pending_revocation={_show(self.pending_revocation)})")


def _show(assignment: Assignment) -> dict[str, list[int]]:
    return {t: sorted(ps) for t, ps in sorted(assignment.items())}



class ConsumerGroup:
    """`ConsumerGroup`: epochs, members, target assignment and the indexes Kafka keeps beside them."""

    __slots__ = ("group_id", "group_epoch", "assignment_epoch", "members", "static_members", "target",
                 "inverted", "owners", "name_counts", "regex_counts", "resolved_regexes", "regex_refresh_ms",
                 "regex_topics_version", "regex_refresh_pending", "assignor_counts", "subscription_metadata",
                 "metadata_expired", "stable_at_epoch", "state", "session_deadline", "session_timer",
                 "rebalance_timer", "last_assignment_ms", "classic_timer", "num_classic")

    def __init__(self, group_id: str, epoch: int = 0):
        """A new group at group and target epoch `epoch`: 0 before 4.3, 1 from 4.3 (KAFKA-20268,
        `ModernGroup` and `TargetAssignmentMetadata.INITIAL`: an empty target at epoch 1)."""
        self.group_id = group_id
        self.group_epoch = epoch
        self.assignment_epoch = epoch
        self.members: dict[str, ConsumerGroupMember] = {}
        self.static_members: dict[str, str] = {}          # instance id -> member id
        self.target: dict[str, Assignment] = {}            # member id -> target assignment
        self.inverted: dict[str, dict[int, str]] = {}      # topic -> partition -> member id (target)
        self.owners: dict[tuple[str, int], str] = {}       # (topic, partition) -> holder (currentPartitionEpoch)
        self.name_counts: Counter = Counter()              # topic -> members subscribed by name
        self.regex_counts: Counter = Counter()             # regex -> members subscribed to it
        self.resolved_regexes: dict[str, frozenset] = {}   # regex -> topics it matched at the last refresh
        self.regex_refresh_ms: int | None = None           # when the last refresh started
        self.regex_topics_version = 0                      # cluster topic-creation version seen then
        self.regex_refresh_pending = False
        self.assignor_counts: Counter = Counter()          # server assignor name -> members asking for it
        self.subscription_metadata: dict[str, int] = {}    # subscribed existing topic -> partition count
        self.metadata_expired = False                      # ModernGroup.hasMetadataExpired
        self.stable_at_epoch: Counter = Counter()          # epoch -> members STABLE at that epoch
        self.state = EMPTY_STATE
        self.session_deadline: dict[str, int] = {}         # member id -> session expiry
        self.session_timer: dict[str, object] = {}         # member id -> pending session check
        self.rebalance_timer: dict[str, object] = {}       # member id -> rebalance (revocation) timer
        self.last_assignment_ms: int | None = None
        self.classic_timer: dict[tuple, object] = {}       # ("join" | "sync", member id) -> its timer
        self.num_classic = 0                               # members that speak the classic protocol

    # -- state -------------------------------------------------------------------------------
    def compute_state(self) -> str:
        """`ConsumerGroup.maybeUpdateGroupState`, in O(1)."""
        if not self.members:
            return EMPTY_STATE
        if self.group_epoch > self.assignment_epoch:
            return ASSIGNING
        if self.stable_at_epoch[self.assignment_epoch] < len(self.members):
            return RECONCILING
        return STABLE_STATE

    # -- members -----------------------------------------------------------------------------
    def put_member(self, new: ConsumerGroupMember) -> ConsumerGroupMember | None:
        """`ConsumerGroup.updateMember`: store `new` and keep every index in step."""
        old = self.members.get(new.member_id)
        self.members[new.member_id] = new
        self._index(old, -1)
        self._index(new, +1)
        if old is None or old.assigned is not new.assigned or old.pending_revocation is not new.pending_revocation:
            if old is not None:
                self._release(old)
            self._hold(new)
        return old

    def remove_member(self, member_id: str) -> ConsumerGroupMember:
        """`ConsumerGroup.removeMember` plus the target tombstone of `GroupMetadataManager.removeMember`."""
        old = self.members.pop(member_id)
        self._index(old, -1)
        self._release(old)
        self.set_target(member_id, EMPTY)
        self.target.pop(member_id, None)
        return old

    def _index(self, member: ConsumerGroupMember | None, sign: int) -> None:
        if member is None:
            return
        for topic in member.subscribed_topic_names:
            _bump(self.name_counts, topic, sign)
        if member.subscribed_topic_regex:
            _bump(self.regex_counts, member.subscribed_topic_regex, sign)
        if member.server_assignor is not None:
            _bump(self.assignor_counts, member.server_assignor, sign)
        if member.state == STABLE:
            _bump(self.stable_at_epoch, member.member_epoch, sign)
        if member.classic is not None:
            self.num_classic += sign
        if member.instance_id is not None:
            if sign > 0:
                self.static_members[member.instance_id] = member.member_id
            elif self.static_members.get(member.instance_id) == member.member_id:
                del self.static_members[member.instance_id]

    def _hold(self, member: ConsumerGroupMember) -> None:
        owners, mid = self.owners, member.member_id
        for assignment in (member.assigned, member.pending_revocation):
            for topic, parts in assignment.items():
                for p in parts:
                    holder = owners.setdefault((topic, p), mid)
                    if holder != mid:
                        raise AssertionError(f"Cannot give {topic}-{p} to {mid}: it is still owned by {holder}")

    def _release(self, member: ConsumerGroupMember) -> None:
        owners, mid = self.owners, member.member_id
        for assignment in (member.assigned, member.pending_revocation):
            for topic, parts in assignment.items():
                for p in parts:
                    if owners.get((topic, p)) == mid:
                        del owners[(topic, p)]

    def classic_members(self) -> list[ConsumerGroupMember]:
        return [m for m in self.members.values() if m.classic is not None]

    def supports_classic_protocols(self, protocol_type: str, names: Iterable[str]) -> bool:
        """`ConsumerGroup.supportsClassicProtocols`: type "consumer" and a protocol name that
        every classic member already in the group also supports."""
        if protocol_type != "consumer":
            return False
        names = set(names)
        for member in self.classic_members():
            names &= set(member.classic.protocol_names)
        return bool(names)

    def owner(self, topic: str, partition: int) -> str | None:
        return self.owners.get((topic, partition))

    # -- target assignment -------------------------------------------------------------------
    def set_target(self, member_id: str, assignment: Assignment) -> bool:
        """Replace a member's target, keeping the inverted index; True if it changed."""
        old = self.target.get(member_id, EMPTY)
        if old is assignment or old == assignment:
            if member_id not in self.target and assignment is not EMPTY:
                self.target[member_id] = assignment
            return False
        inverted = self.inverted
        for topic, parts in old.items():
            owners = inverted.get(topic)
            if owners is not None:
                for p in parts:
                    if owners.get(p) == member_id:
                        del owners[p]
                if not owners:
                    del inverted[topic]
        for topic, parts in assignment.items():
            owners = inverted.setdefault(topic, {})
            for p in parts:
                owners[p] = member_id
        self.target[member_id] = assignment
        return True

    def target_of(self, member_id: str, instance_id: str | None = None) -> Assignment:
        """`ConsumerGroup.targetAssignment(memberId, instanceId)`: a static member replacing an
        older one inherits that one's target."""
        if instance_id is not None:
            previous = self.static_members.get(instance_id)
            if previous is not None:
                return self.target.get(previous, EMPTY)
        return self.target.get(member_id, EMPTY)

    # -- subscriptions -----------------------------------------------------------------------
    def subscribed_topics(self, name_counts: Mapping[str, int] | None = None,
                          regexes: Iterable[str] | None = None) -> set[str]:
        """Every topic subscribed by name or through a resolved regex (`subscribedTopicNames`)."""
        names = self.name_counts if name_counts is None else name_counts
        topics = {t for t, c in names.items() if c > 0}
        for regex in (self.regex_counts if regexes is None else regexes):
            topics |= self.resolved_regexes.get(regex, frozenset())
        return topics

    def subscription_type(self, name_counts: Mapping[str, int], regex_counts: Mapping[str, int],
                          members: int) -> str:
        """`ConsumerGroup.subscriptionType`: homogeneous when every member subscribes to the same
        topic names, or all to one and the same regex and nothing else."""
        live = {r: c for r, c in regex_counts.items() if c > 0}
        names = {t: c for t, c in name_counts.items() if c > 0}
        if not live:
            return HOMOGENEOUS if all(c == members for c in names.values()) else HETEROGENEOUS
        if len(live) > 1 or next(iter(live.values())) != members or names:
            return HETEROGENEOUS
        return HOMOGENEOUS

    def preferred_assignor(self, counts: Mapping[str, int], order: Iterable[str]) -> str | None:
        """`ConsumerGroup.computePreferredServerAssignor`: the name most members ask for. Kafka
        breaks ties in hash-map order; here the earlier entry of `group.consumer.assignors` wins."""
        best, best_count = None, 0
        for name in order:
            count = counts.get(name, 0)
            if count > best_count:
                best, best_count = name, count
        return best


def _bump(counter: Counter, key, sign: int) -> None:
    value = counter[key] + sign
    if value:
        counter[key] = value
    else:
        del counter[key]


__all__ = ["ClassicMember", "ConsumerGroup", "ConsumerGroupMember", "GROUP_STATES", "MEMBER_STATES", "EMPTY_STATE", "ASSIGNING",
           "RECONCILING", "STABLE_STATE", "DEAD", "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS",
           "UNKNOWN", "JOIN_GROUP_MEMBER_EPOCH", "LEAVE_GROUP_MEMBER_EPOCH", "LEAVE_GROUP_STATIC_MEMBER_EPOCH",
           "as_lists"]
