"""Reconciliation: moving one member from its current assignment towards its target, one
heartbeat at a time (Kafka's `CurrentAssignmentBuilder`).

Kafka source: `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/
CurrentAssignmentBuilder.java` (4.0.0; the 4.2.0-rc1 and v8.3.0 = 4.3.0 changes are behind `Rules` flags).

Two rules make the protocol safe without a stop-the-world barrier:

- revoke before assign, per member: a member that must give partitions up keeps its epoch, is
  told only what it keeps (UNREVOKED_PARTITIONS), and gets nothing new until a heartbeat reports
  owned partitions without the revoked ones;
- release before reassign, across members: a partition still held by anyone (assigned or
  pending revocation) is withheld from its new owner, which advances to the target epoch in
  UNRELEASED_PARTITIONS and picks the partition up on a later heartbeat.

Every epoch change goes through `updateMemberEpoch`, which moves the old epoch to
`previous_member_epoch` even when the value does not change (so a record is written).

May import: `kafkasim.core`, `kafkasim.coordinator.modern.consumer.group`,
`kafkasim.coordinator.modern.consumer.responses`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from kafkasim.coordinator.modern.consumer.group import (
    STABLE, UNKNOWN, UNRELEASED_PARTITIONS, UNREVOKED_PARTITIONS, Assignment, ConsumerGroupMember)
from kafkasim.coordinator.modern.consumer.responses import ApiError
from kafkasim.core.errors import Errors

_NONE: frozenset = frozenset()
Owned = Mapping[str, frozenset]


@dataclass(frozen=True)
class Rules:
    """Version-dependent reconciliation rules.

    - `unrevoked_keeps_epoch` (KAFKA-19974, 4.2): leaving UNREVOKED_PARTITIONS uses the member's
      epoch, not epoch + 1, so a member that must revoke again does not jump ahead;
    - `own_pending_not_unreleased` (KAFKA-19449, 4.2, 4.0.2, 4.1.2): a partition this member has
      pending revocation and that comes back in its target is re-granted at once;
    - `revoke_unsubscribed_now` (KAFKA-19431, 4.2): partitions of topics the member no longer
      subscribes to are revoked in the heartbeat that changes the subscription;
    - `unsubscribe_moves_previous_epoch` (4.3, apache/kafka#21325 "Update previous member epoch when
      members unsubscribe from topic"): that revocation also sets the previous member epoch to the
      current one (`updateCurrentAssignment` calls `updateMemberEpoch(memberEpoch)` at v8.3.0).
    """

    unrevoked_keeps_epoch: bool = False
    own_pending_not_unreleased: bool = False
    revoke_unsubscribed_now: bool = False
    unsubscribe_moves_previous_epoch: bool = False


def owns_any(owned: Owned | None, partitions: Assignment) -> bool:
    """`ownsRevokedPartitions`: does the client still report any of `partitions`? Unknown (None)
    owned partitions count as yes, so nothing advances without an acknowledgement."""
    if owned is None:
        return True
    for topic, parts in owned.items():
        pending = partitions.get(topic)
        if pending and not pending.isdisjoint(parts):
            return True
    return False


class Reconciler:
    """`CurrentAssignmentBuilder` for one member and one heartbeat."""

    def __init__(self, member: ConsumerGroupMember, target_epoch: int, target: Assignment,
                 owner: Callable[[str, int], str | None], owned: Owned | None, rules: Rules,
                 subscribed: frozenset | None = None, subscription_changed: bool = False):
        self.member = member
        self.target_epoch = target_epoch
        self.target = target
        self.owner = owner
        self.owned = owned
        self.rules = rules
        self.subscribed = subscribed  # effective topics; used only under revoke_unsubscribed_now
        self.subscription_changed = subscription_changed and rules.revoke_unsubscribed_now

    def build(self) -> ConsumerGroupMember:
        """The member's next state, or the same object when nothing can change."""
        member = self.member
        if member.state == STABLE:
            if member.member_epoch != self.target_epoch:
                return self._next(member.member_epoch)
            return self._drop_unsubscribed() if self.subscription_changed else member
        if member.state == UNREVOKED_PARTITIONS:
            if owns_any(self.owned, member.pending_revocation):
                return self._drop_unsubscribed() if self.subscription_changed else member
            bump = 0 if self.rules.unrevoked_keeps_epoch else 1
            return self._next(member.member_epoch + bump)
        if member.state == UNRELEASED_PARTITIONS:
            return self._next(member.member_epoch)
        if member.state == UNKNOWN:
            if self.owned is None or any(self.owned.values()):
                raise ApiError(Errors.FENCED_MEMBER_EPOCH, "The consumer group member is in a unknown state. "
                                                           "The member must abandon all its partitions and rejoin.")
            return self._next(self.target_epoch)
        return member

    def _target_for(self, topic: str) -> frozenset:
        if self.rules.revoke_unsubscribed_now and self.subscribed is not None and topic not in self.subscribed:
            return _NONE  # KAFKA-19431: an unsubscribed topic has no target
        return self.target.get(topic, _NONE)

    def _next(self, epoch: int) -> ConsumerGroupMember:
        """`computeNextAssignment`: keep, revoke, and grant only what nobody holds."""
        member, owner = self.member, self.owner
        own_pending = member.pending_revocation if self.rules.own_pending_not_unreleased else {}
        keep: dict[str, frozenset] = {}
        revoke: dict[str, frozenset] = {}
        grant: dict[str, frozenset] = {}
        unreleased = False
        for topic in {**self.target, **member.assigned}:
            target, current = self._target_for(topic), member.assigned.get(topic, _NONE)
            kept = current & target
            if kept:
                keep[topic] = kept
            if len(kept) < len(current):
                revoke[topic] = current - kept
            mine = own_pending.get(topic, _NONE)
            free = frozenset(p for p in target - kept if owner(topic, p) is None or p in mine)
            if len(free) < len(target) - len(kept):
                unreleased = True
            if free:
                grant[topic] = free
        if revoke and owns_any(self.owned, revoke):
            return self._result(UNREVOKED_PARTITIONS, epoch, keep, revoke)
        if grant:
            for topic, parts in grant.items():
                keep[topic] = keep.get(topic, _NONE) | parts
            return self._result(UNRELEASED_PARTITIONS if unreleased else STABLE, self.target_epoch, keep, {})
        return self._result(UNRELEASED_PARTITIONS if unreleased else STABLE, self.target_epoch, keep, {})

    def _drop_unsubscribed(self) -> ConsumerGroupMember:
        """`updateCurrentAssignment` (4.2): revoke partitions of unsubscribed topics right away."""
        member, subscribed = self.member, self.subscribed or _NONE
        dropped = {t: ps for t, ps in member.assigned.items() if t not in subscribed}
        if not dropped:
            return member
        assigned = {t: ps for t, ps in member.assigned.items() if t in subscribed}
        pending = dict(member.pending_revocation)
        for topic, parts in dropped.items():
            pending[topic] = pending.get(topic, _NONE) | parts
        previous = member.member_epoch if self.rules.unsubscribe_moves_previous_epoch else member.previous_member_epoch
        if owns_any(self.owned, pending):
            return member.evolve(state=UNREVOKED_PARTITIONS, assigned=assigned, pending_revocation=pending,
                                 previous_member_epoch=previous)
        return member.evolve(assigned=assigned, previous_member_epoch=previous)  # already dropped by the client

    def _result(self, state: str, epoch: int, assigned: dict, pending: dict) -> ConsumerGroupMember:
        member = self.member
        new = member.evolve(state=state, member_epoch=epoch, previous_member_epoch=member.member_epoch,
                            assigned=_share(assigned, member.assigned),
                            pending_revocation=_share(pending, member.pending_revocation))
        return member if new.same_as(member) else new


def _share(new: dict, old: Assignment) -> Assignment:
    """Reuse the old map when equal, so unchanged members keep their identity (cheap compares)."""
    return old if new == old else new


__all__ = ["Reconciler", "Rules", "owns_any"]
