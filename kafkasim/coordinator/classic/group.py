"""A classic group and its members, with the group states and their allowed transitions: Kafka's
`GroupMetadata.scala` and `MemberMetadata.scala` (through 3.9), `classic/ClassicGroup.java`,
`ClassicGroupMember.java` and `ClassicGroupState.java` (4.0+). The coordinator
(`kafkasim.coordinator.classic.coordinator`) changes them; charts read their states from events."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from kafkasim.core.engine import Timer

EMPTY, PREPARING, COMPLETING, STABLE, DEAD = (
    "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead")
GROUP_STATES = (EMPTY, PREPARING, COMPLETING, STABLE, DEAD)

#: Allowed previous states for each state (GroupMetadata.scala `validPreviousStates`).
VALID_PREVIOUS_STATES = {
    EMPTY: {PREPARING},
    PREPARING: {STABLE, COMPLETING, EMPTY},
    COMPLETING: {PREPARING},
    STABLE: {COMPLETING},
    DEAD: set(GROUP_STATES),
}

Protocols = Sequence[tuple[str, bytes]]


class SessionCheck:
    """One engine timer checking the sessions of the members armed for `time` (the coordinator's
    `_arm_session`), or the pending member ids that expire then (`_arm_pending`)."""

    __slots__ = ("time", "entries", "timer", "made")

    def __init__(self, time: int, made: int = 0):
        self.time = time
        self.made = made  # how many checks the coordinator had made, this one included
        self.entries: list[tuple["Group", "Member | str"]] = []
        self.timer: Timer | None = None  # None once it has run


# -- group model ----------------------------------------------------------------------------
class Member:
    """MemberMetadata: one member of a group, as the coordinator knows it."""

    __slots__ = ("member_id", "instance_id", "client_id", "client_host", "session_timeout_ms",
                 "rebalance_timeout_ms", "protocol_type", "protocols", "assignment", "awaiting_join",
                 "awaiting_sync", "is_new", "deadline", "timer")
    # The parked JoinGroup (None: not awaiting one). Set by Group.add, the only way into a group, as
    # GroupMetadata.add sets awaitingJoinCallback: a value given here could never be read.
    awaiting_join: JoinGroupResponse | None

    def __init__(self, member_id: str, instance_id: str | None, client_id: str, session_timeout_ms: int,
                 rebalance_timeout_ms: int, protocol_type: str, protocols: Protocols):
        self.member_id = member_id
        self.instance_id = instance_id
        self.client_id = client_id
        self.client_host = "/127.0.0.1"
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.protocol_type = protocol_type
        self.protocols = list(protocols)
        self.assignment = b""
        self.awaiting_sync: SyncGroupResponse | None = None
        self.is_new = False
        self.deadline = 0               # session expires at this time unless renewed
        self.timer: SessionCheck | None = None  # the expiry check armed at or before `deadline`

    @property
    def is_static(self) -> bool:
        return self.instance_id is not None

    def matches(self, protocols: Protocols) -> bool:
        return self.protocols == list(protocols)

    def metadata(self, protocol: str) -> bytes:
        for name, data in self.protocols:
            if name == protocol:
                return data
        raise KeyError(protocol)

    def describe(self) -> str:
        """Scala's MemberMetadata.toString, which Kafka 3.x writes into its LeaveGroup line."""
        instance = "None" if self.instance_id is None else f"Some({self.instance_id})"
        names = ", ".join(name for name, _ in self.protocols)
        return (f"MemberMetadata(memberId={self.member_id}, groupInstanceId={instance}, clientId={self.client_id}, "
                f"clientHost={self.client_host}, sessionTimeoutMs={self.session_timeout_ms}, "
                f"rebalanceTimeoutMs={self.rebalance_timeout_ms}, supportedProtocols=List({names}))")


class Group:
    """GroupMetadata: state, generation, members, pending ids and the group's timers."""

    __slots__ = ("group_id", "state", "previous_state", "generation_id", "protocol_type", "protocol_name",
                 "leader_id", "members", "static_members", "pending_join", "pending_sync",
                 "num_awaiting_join", "new_member_added", "supported_protocols", "join_timer",
                 "initial_delay", "sync_timer")

    def __init__(self, group_id: str):
        self.group_id = group_id
        self.state = EMPTY
        self.previous_state: str | None = None
        self.generation_id = 0
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}
        self.pending_join: dict[str, SessionCheck] = {}   # member id -> the check that expires it
        self.pending_sync: set[str] = set()
        self.num_awaiting_join = 0
        self.new_member_added = False
        self.supported_protocols: dict[str, int] = {}
        self.join_timer: Timer | None = None
        self.initial_delay: tuple[int, int] | None = None  # (delay, remaining) of an InitialDelayedJoin
        self.sync_timer: Timer | None = None

    # -- membership bookkeeping (GroupMetadata.add / remove / updateMember) ----------------------
    def add(self, member: Member, callback: JoinGroupResponse | None) -> None:
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        for name, _ in member.protocols:
            self.supported_protocols[name] = self.supported_protocols.get(name, 0) + 1
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        member.awaiting_join = callback
        if callback is not None:
            self.num_awaiting_join += 1

    def remove(self, member_id: str) -> Member | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            for name, _ in member.protocols:
                self.supported_protocols[name] -= 1
            if member.awaiting_join is not None:
                self.num_awaiting_join -= 1
            if member.instance_id is not None:
                self.static_members.pop(member.instance_id, None)
        if self.leader_id == member_id:
            self.leader_id = next(iter(self.members), None)
        self.pending_join.pop(member_id, None)  # its expiry check now skips it
        self.pending_sync.discard(member_id)
        return member

    def update_member(self, member: Member, protocols: Protocols, rebalance_timeout_ms: int,
                      session_timeout_ms: int, callback: JoinGroupResponse | None) -> None:
        for name, _ in member.protocols:
            self.supported_protocols[name] -= 1
        for name, _ in protocols:
            self.supported_protocols[name] = self.supported_protocols.get(name, 0) + 1
        member.protocols = list(protocols)
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if callback is not None and member.awaiting_join is None:
            self.num_awaiting_join += 1
        elif callback is None and member.awaiting_join is not None:
            self.num_awaiting_join -= 1
        member.awaiting_join = callback

    # -- derived facts ---------------------------------------------------------------------------
    @property
    def rebalance_timeout_ms(self) -> int:
        """The members' longest, from 0 (`ClassicGroup.rebalanceTimeoutMs`): a member converted from a
        consumer group loaded without one (-1, the builder's default) arms the join timer at 0 ms."""
        return max([0, *(m.rebalance_timeout_ms for m in self.members.values())])

    def can_rebalance(self) -> bool:
        return self.state in (STABLE, COMPLETING, EMPTY)

    def has_all_members_joined(self) -> bool:
        return self.num_awaiting_join == len(self.members) and not self.pending_join

    def supports_protocols(self, protocol_type: str, names: set[str]) -> bool:
        if self.state == EMPTY:
            return bool(protocol_type) and bool(names)
        if self.protocol_type != protocol_type:
            return False
        count, supported = len(self.members), self.supported_protocols
        for name in names:
            if supported.get(name, 0) == count:
                return True
        return False

    def select_protocol(self) -> str:
        """Each member votes for its first protocol that every member supports; most votes wins."""
        count = len(self.members)
        candidates = {n for n, c in self.supported_protocols.items() if c == count}
        votes = Counter(next(name for name, _ in member.protocols if name in candidates)
                        for member in self.members.values())
        return votes.most_common(1)[0][0]  # ties: first voted (Kafka: hash-map order)
