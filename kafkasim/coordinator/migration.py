"""Conversions between a classic group and a consumer group of the same id (KIP-848 online
migration), as Kafka 4's coordinator makes them (`GroupMetadataManager.java`:
`getOrMaybeCreateConsumerGroup`, `validateOnlineUpgrade`, `convertToConsumerGroup`,
`classicGroupJoinToClassicGroup`, `validateOnlineDowngradeWithFencedMembers`,
`convertToClassicGroup`; `ConsumerGroup.fromClassicGroup`, `ClassicGroup.fromConsumerGroup`;
`ConsumerGroupMigrationPolicy.java`; tags 4.0.0, 4.1.1, 4.2.0-rc1).

A group id holds one kind of group at a time:
- offline, whatever the policy: a joining ConsumerGroupHeartbeat turns an *empty* classic group
  (one that only holds committed offsets, say) into a consumer group, and a JoinGroup turns an
  empty consumer group into a classic group;
- online upgrade (policy `upgrade` or `bidirectional`): the first ConsumerGroupHeartbeat of a
  rolling upgrade turns a live classic group into a consumer group at epoch = its generation;
  its members stay, as classic members of the consumer group (`modern.consumer.classic_members`);
- online downgrade (policy `downgrade` or `bidirectional`): when the last members that speak the
  consumer protocol leave or are fenced, the classic members left become a classic group, Stable
  at generation = the group epoch, each holding its target assignment, and a rebalance starts.
A refused upgrade answers GROUP_ID_NOT_FOUND with the reason it logs (UNKNOWN_SERVER_ERROR for a
group that never completed a generation, as Kafka's fails); an upgrade is records of the heartbeat
that makes it, so one whose heartbeat then fails (GROUP_MAX_SIZE_REACHED at exactly the size limit)
leaves the group classic; a refused downgrade leaves the consumer group as it is. Offsets belong to
the group id and survive every conversion.

Simplified: a static classic member replacing the last consumer-protocol member does not
downgrade the group (Kafka's `validateOnlineDowngradeWithReplacedMemberId`); conversions cannot
fail half-way (Kafka rolls back when the write to `__consumer_offsets` fails).

May import: `kafkasim.core`, `kafkasim.coordinator.classic`, `kafkasim.coordinator.modern`,
`kafkasim.coordinator.broker_log` (the refusals' wording).
"""

from __future__ import annotations

from functools import partial
from typing import Callable

from kafkasim.coordinator.broker_log import CONVERSION_REFUSALS
from kafkasim.coordinator.classic.coordinator import ClassicGroupCoordinator
from kafkasim.coordinator.classic.group import EMPTY, Group, Member
from kafkasim.coordinator.modern.consumer import ApiError, ConsumerGroupManager
from kafkasim.coordinator.modern.consumer.classic_members import PROTOCOL_TYPE
from kafkasim.coordinator.modern.consumer.group import ClassicMember, ConsumerGroup, ConsumerGroupMember
from kafkasim.core.embedded_protocol import decode_assignment, decode_subscription, encode_assignment
from kafkasim.core.errors import ConfigError, Errors

POLICIES = ("bidirectional", "upgrade", "downgrade", "disabled")


class Migration:
    """Watches one coordinator's two kinds of group and converts a group id from one to the
    other when Kafka would (see the module docstring). Installs itself as the consumer-group
    manager's `upgrade` and `downgrade` hooks."""

    def __init__(self, classic: ClassicGroupCoordinator, consumer: ConsumerGroupManager, policy: str):
        if not isinstance(policy, str) or policy.lower() not in POLICIES:
            raise ConfigError(f"Invalid value {policy!r} for configuration group.consumer.migration.policy: "
                              f"String must be one of (case insensitive): {', '.join(p.upper() for p in POLICIES)}")
        self.classic, self.consumer, self.policy = classic, consumer, policy.lower()
        consumer.upgrade, consumer.downgrade = self.upgrade, self.downgrade
        consumer.migration_disabled = self.policy == "disabled"

    # == classic -> consumer ====================================================================
    def upgrade(self, group_id: str) -> tuple[ConsumerGroup | None, Callable[[], None]] | None:
        """A member joins `group_id` with the consumer protocol and no consumer group holds it: None
        without a classic group of that id, else the consumer group made of it (None: the classic group
        was empty) and what completes the conversion once the heartbeat stores it. Kafka's conversion
        is records the heartbeat writes (`getOrMaybeCreateConsumerGroup`): a heartbeat that fails
        after it (GROUP_MAX_SIZE_REACHED) leaves the classic group as it was, though its parked
        requests were answered and the conversion logged. Raises ApiError when refused."""
        group = self.classic.groups.get(group_id)
        if group is None:
            return None
        if group.state == EMPTY:
            self.classic.log.consumer_group_converted(self._now, group_id, "consumer", True)
            return None, partial(self._upgraded, group_id, 0, "offline_upgrade")
        members = self._upgrade_members(group)
        self.classic.answer_parked(group, Errors.REBALANCE_IN_PROGRESS)
        converted = self.consumer.adopt_classic_members(group_id, group.generation_id, members)
        self.classic.log.consumer_group_converted(self._now, group_id, "consumer", False)
        return converted, partial(self._upgraded, group_id, group.generation_id, "online_upgrade")

    def _upgraded(self, group_id: str, epoch: int, reason: str) -> None:
        """The heartbeat that converted the group is stored: the classic group goes (its tombstone)."""
        self.classic.release_group(group_id)
        self._row(group_id, "GroupConverted", reason, epoch)

    def _upgrade_members(self, group: Group) -> list[ConsumerGroupMember]:
        """`validateOnlineUpgrade` and `ConsumerGroup.fromClassicGroup`, or ApiError."""
        cause, detail = None, ""
        if self.policy not in ("upgrade", "bidirectional"):
            cause = "upgrade_disabled"
        elif group.protocol_type != PROTOCOL_TYPE:
            cause = "upgrade_not_consumer_protocol"
        elif len(group.members) > self.consumer.max_size:
            cause = "upgrade_group_too_large"
        elif group.protocol_name is None:
            # `ConsumerGroup.fromClassicGroup` reads `protocolName().get()`: a group that never completed
            # a generation has none, and the NoSuchElementException escapes `convertToConsumerGroup`
            # (4.0.0-4.2.0-rc1): the request fails, nothing is logged or converted.
            raise ApiError(Errors.UNKNOWN_SERVER_ERROR)
        else:
            try:
                return [_consumer_member(group, m) for m in group.members.values()]
            except ValueError as e:
                cause, detail = "upgrade_malformed_protocol", str(e)
        self._refused(group.group_id, cause, detail, group.generation_id)
        # The answer says what the log says, without the parser's detail (`validateOnlineUpgrade`,
        # `convertToConsumerGroup` at 4.0.0-4.2.0-rc1: GroupIdNotFoundException with that text).
        message = CONVERSION_REFUSALS[cause][1].replace(": {error}", "")
        raise ApiError(Errors.GROUP_ID_NOT_FOUND, message.format(group=group.group_id))

    # == consumer -> classic ====================================================================
    def downgrade(self, group: ConsumerGroup, leaving: list[ConsumerGroupMember], reason: str) -> bool:
        """The `leaving` members are about to be fenced: if only classic members would remain,
        make them a classic group (True) instead of fencing as usual (False)."""
        remaining_classic = group.num_classic - sum(m.classic is not None for m in leaving)
        if remaining_classic == 0 or remaining_classic != len(group.members) - len(leaving):
            return False  # consumer-protocol members remain, or nobody (DEBUG "Skip downgrading ... empty.")
        gone = {m.member_id for m in leaving}
        remaining = [m for mid, m in group.members.items() if mid not in gone]
        cause = "downgrade_disabled" if self.policy not in ("downgrade", "bidirectional") else \
            "downgrade_group_too_large" if len(remaining) > self.classic.max_size else None
        if cause is not None:
            self._refused(group.group_id, cause, "", group.group_epoch)
            return False
        self.consumer.release_group(group.group_id, removed=leaving, reason=reason)
        members = [_classic_member(m, group.target.get(m.member_id, {})) for m in remaining]
        self.classic.adopt_group(group.group_id, group.group_epoch, members,
                                 self.classic.log.reason_downgrade(group.group_id))
        self._downgraded(group.group_id, group.group_epoch)
        return True

    def join_empty_consumer_group(self, group_id: str) -> None:
        """A JoinGroup names an empty consumer group: it becomes a classic group
        (`classicGroupJoinToClassicGroup`)."""
        self.consumer.release_group(group_id)
        self._downgraded(group_id, 0, empty=True)

    # == the record of it =======================================================================
    def _downgraded(self, group_id: str, epoch: int, empty: bool = False) -> None:
        """A downgrade is made at once (an upgrade is recorded when its heartbeat is stored: `_upgraded`)."""
        self.classic.log.consumer_group_converted(self._now, group_id, "classic", empty)
        self._row(group_id, "GroupConverted", ("offline_" if empty else "online_") + "downgrade", epoch)

    def _refused(self, group_id: str, cause: str, detail: str, epoch: int) -> None:
        self.classic.log.consumer_group_conversion_refused(self._now, group_id, cause, detail)
        self._row(group_id, "GroupConversionRefused", cause, epoch)

    def _row(self, group_id: str, kind: str, reason: str, epoch: int) -> None:
        state = self.consumer.group_state(group_id) if self.consumer.has_group(group_id) \
            else self.classic.group_state(group_id)
        self.classic.sim.events.rows.append((self._now, "coordinator", group_id, None, kind, epoch, None, None, None,
                                             reason, None, state))

    @property
    def _now(self) -> int:
        return self.classic.sim.now


def _consumer_member(group: Group, member: Member) -> ConsumerGroupMember:
    """A classic member as a member of the new consumer group: STABLE (the default) at the generation, its last
    classic assignment both assigned and target, its subscription read from its JoinGroup."""
    topics, _ = decode_subscription(member.metadata(group.protocol_name))
    assigned = {t: frozenset(ps) for t, ps in decode_assignment(member.assignment).items() if ps}
    gen = group.generation_id
    return ConsumerGroupMember(
        member.member_id, instance_id=member.instance_id, rebalance_timeout_ms=member.rebalance_timeout_ms,
        subscribed_topic_names=frozenset(topics), member_epoch=gen, previous_member_epoch=gen,
        assigned=assigned, classic=ClassicMember(member.session_timeout_ms, tuple(member.protocols), member.client_id))


def _classic_member(member: ConsumerGroupMember, target) -> Member:
    """A classic member of a consumer group as a member of the new classic group, holding its target."""
    classic = member.classic
    out = Member(member.member_id, member.instance_id, classic.client_id, classic.session_timeout_ms,
                 member.rebalance_timeout_ms, PROTOCOL_TYPE, classic.protocols)
    out.assignment = encode_assignment(target)
    return out


__all__ = ["Migration", "POLICIES"]
