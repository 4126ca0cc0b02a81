"""Classic members inside a consumer group (KIP-848 online migration): the JoinGroup, SyncGroup,
Heartbeat and LeaveGroup of consumers that still speak the classic protocol, answered by a
consumer group, as `GroupMetadataManager.classicGroup{Join,Sync,Heartbeat,Leave}ToConsumerGroup`
do (tags 4.0.0, 4.1.1, 4.2.0-rc1, and Confluent's v8.3.0 / v8.3.1 = Apache 4.3.0 / 4.3.1 for the
changes named below; `group-coordinator/src/main/java/org/apache/kafka/coordinator/
group/GroupMetadataManager.java`).

A classic member is a consumer-group member like any other (same epochs, target assignment and
reconciliation) with a `ClassicMember` record: its own session timeout and JoinGroup protocols.
There is no join barrier: its JoinGroup runs the heartbeat's steps at once (bump the epoch if it
is new or changed its subscription, compute the target, reconcile it with the partitions its
subscription says it owns) and is answered at once, generation = its member epoch, with no
member list, so nobody acts as leader. SyncGroup hands it its current assigned partitions. Its
Heartbeat answers REBALANCE_IN_PROGRESS whenever rejoining would move it on, which is how the
broker drives a classic client through the reconciliation: an eager client revokes everything
at each such rejoin, a cooperative one only what it must give up.

From 4.3 (KAFKA-20272) Heartbeat and SyncGroup compare the member's epoch with the target
assignment epoch, not the group epoch: while `group.consumer.assignment.interval.ms` postpones a
target, a classic member is not sent to rejoin for nothing. From 4.3.1 (KAFKA-20640) a JoinGroup
is refused with INCONSISTENT_GROUP_PROTOCOL under `group.consumer.migration.policy=disabled`, and a
static member the group knows may rejoin a full group (KAFKA-20601).

Timers: the member's classic session timer (re-armed by JoinGroup and Heartbeat), a sync timer
after each JoinGroup response and a join timer after each REBALANCE_IN_PROGRESS, both of the
member's rebalance timeout, which fence it when they fire.

Simplified: a classic member's SyncGroup does not renew its session; static classic members are
replaced at every JoinGroup as in Kafka, but the downgrade a static replacement can trigger
(`validateOnlineDowngradeWithReplacedMemberId`) is not modelled.

May import: `kafkasim.core`, `kafkasim.coordinator.modern.consumer`.
"""

from __future__ import annotations

from typing import Iterable

from kafkasim.coordinator.modern.consumer.group import (
    UNRELEASED_PARTITIONS, UNREVOKED_PARTITIONS, ClassicMember, ConsumerGroup, ConsumerGroupMember)
from kafkasim.coordinator.modern.consumer.responses import ApiError
from kafkasim.core.embedded_protocol import decode_subscription, encode_assignment
from kafkasim.core.errors import Errors

PROTOCOL_TYPE = "consumer"  # `ConsumerProtocol.PROTOCOL_TYPE`


class ClassicAnswer:
    """What a classic request to a consumer group gets back; the coordinator front turns it into
    the classic response object. `assignment` is SyncGroup's embedded-protocol bytes."""

    __slots__ = ("error", "member_id", "generation_id", "protocol_name", "assignment", "member_errors")

    def __init__(self, error: Errors = Errors.NONE, member_id: str = "", generation_id: int = -1,
                 protocol_name: str | None = None, assignment: bytes = b"", member_errors: list | None = None):
        self.error, self.member_id, self.generation_id = error, member_id, generation_id
        self.protocol_name, self.assignment, self.member_errors = protocol_name, assignment, member_errors


class ClassicMembers:
    """The classic requests of `ConsumerGroupManager` (a mixin: it uses the manager's steps)."""

    # == JoinGroup ==============================================================================
    def classic_join(self, group_id: str, member_id: str, instance_id: str | None, session_timeout_ms: int,
                     rebalance_timeout_ms: int, protocol_type: str, protocols: Iterable, new_member_id: str,
                     require_known_member_id: bool = True, client_id: str = "consumer") -> ClassicAnswer:
        """`classicGroupJoinToConsumerGroup`: the group exists and is not empty. `new_member_id`
        is the id the coordinator hands out if the member has none (a random Uuid)."""
        self.stats["requests"] += 1
        group = self.groups[group_id]
        protocols = tuple((name, bytes(data)) for name, data in protocols)
        unknown = not member_id
        member_id = member_id or new_member_id
        try:
            self._check_classic_join_allowed(group)
            self._check_size(group, member_id, instance_id)
            if not group.supports_classic_protocols(protocol_type, (name for name, _ in protocols)):
                raise ApiError(Errors.INCONSISTENT_GROUP_PROTOCOL)
            if unknown and instance_id is None and require_known_member_id:
                self._emit_log("classic_member_id_required", group_id, member_id)
                return ClassicAnswer(Errors.MEMBER_ID_REQUIRED, member_id=member_id)
            return self._classic_join(group, member_id, instance_id, session_timeout_ms, rebalance_timeout_ms,
                                      protocols, client_id)
        except ApiError as e:
            return ClassicAnswer(e.error, member_id="" if unknown else member_id)

    def _check_classic_join_allowed(self, group: ConsumerGroup) -> None:
        """`throwIfClassicMemberCannotJoinConsumerGroup` (4.3.1+, KAFKA-20640)."""
        if self.rules.classic_join_needs_migration and self.migration_disabled:
            message = (f"Cannot join the consumer group {group.group_id} with the classic protocol because the "
                       "group migration is disabled.")
            self._emit_log("classic_join_refused", group.group_id, None, message=message)
            raise ApiError(Errors.INCONSISTENT_GROUP_PROTOCOL)  # JoinGroup's response has no message

    def _classic_join(self, group: ConsumerGroup, member_id: str, instance_id: str | None, session_timeout_ms: int,
                      rebalance_timeout_ms: int, protocols: tuple, client_id: str) -> ClassicAnswer:
        try:
            topics, owned = decode_subscription(protocols[0][1])
        except (ValueError, IndexError):  # `deserializeSubscription` throws IllegalStateException ("Malformed
            raise ApiError(Errors.UNKNOWN_SERVER_ERROR) from None  # embedded consumer protocol ..."): unexpected
        member, replaced = self._classic_member_for_join(group, member_id, instance_id)
        updated = member.evolve(
            instance_id=instance_id, subscribed_topic_names=frozenset(topics),  # the server assignor is kept
            rebalance_timeout_ms=rebalance_timeout_ms if rebalance_timeout_ms != -1 else member.rebalance_timeout_ms,
            classic=ClassicMember(session_timeout_ms, protocols, client_id))
        reconciled = self._update_member(group, member, updated, replaced,
                                         {t: frozenset(ps) for t, ps in owned.items()})
        self._cancel_timer(group.classic_timer, ("join", member_id))
        self._touch_session(group, member_id, session_timeout_ms)
        self._arm_classic_timer(group, "sync", reconciled)
        self._sync_state(group)
        return ClassicAnswer(member_id=member_id, generation_id=reconciled.member_epoch,
                             protocol_name=protocols[0][0])

    def _classic_member_for_join(self, group: ConsumerGroup, member_id: str, instance_id: str | None
                                 ) -> tuple[ConsumerGroupMember, ConsumerGroupMember | None]:
        """`getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember(createIfNotExists=true,
        useClassicProtocol=true)`: no epoch check; an unknown id makes a new member; an existing
        static member is replaced by a copy at epoch 0, even by itself."""
        if instance_id is None:
            member = group.members.get(member_id)
            if member is not None and member.classic is None:  # "Member {id} does not use the classic protocol."
                raise ApiError(Errors.UNKNOWN_MEMBER_ID)  # (JoinGroup's response has no message)
            self._emit_log("member_joined", group.group_id, member_id, protocol="classic")
            return member or ConsumerGroupMember(member_id), None
        current_id = group.static_members.get(instance_id)
        if current_id is None:
            self._emit_log("static_member_joined", group.group_id, member_id, instance_id=instance_id,
                           protocol="classic")
            return group.members.get(member_id) or ConsumerGroupMember(member_id), None
        current = group.members[current_id]
        self._emit_log("static_member_replaced", group.group_id, member_id, instance_id=instance_id,
                       old_member=current_id, protocol="classic")
        copy = current.evolve(member_id=member_id, member_epoch=0, previous_member_epoch=0)
        if current_id == member_id:
            return copy, None
        return copy, current

    # == SyncGroup ==============================================================================
    def classic_sync(self, group_id: str, member_id: str, generation_id: int, instance_id: str | None = None,
                     protocol_type: str | None = None, protocol_name: str | None = None) -> ClassicAnswer:
        """`classicGroupSyncToConsumerGroup`: the member's current assigned partitions."""
        self.stats["requests"] += 1
        group = self.groups[group_id]
        try:
            member = self._classic_member(group, member_id, instance_id, generation_id)
            if (protocol_type is not None and protocol_type != PROTOCOL_TYPE) or \
                    (protocol_name is not None and protocol_name not in member.classic.protocol_names):
                raise ApiError(Errors.INCONSISTENT_GROUP_PROTOCOL)
            self._throw_if_rebalance_in_progress(group, member)
        except ApiError as e:
            return ClassicAnswer(e.error)  # its row names the requester
        self._cancel_timer(group.classic_timer, ("sync", member_id))
        return ClassicAnswer(member_id=member_id, generation_id=member.member_epoch,
                             protocol_name=protocol_name or member.classic.protocol_names[0],
                             assignment=encode_assignment(member.assigned))

    def _classic_target_epoch(self, group: ConsumerGroup) -> int:
        """The epoch a classic member must reach: the target epoch from 4.3 (KAFKA-20272), the group
        epoch before."""
        return group.assignment_epoch if self.rules.classic_follows_target_epoch else group.group_epoch

    def _throw_if_rebalance_in_progress(self, group: ConsumerGroup, member: ConsumerGroupMember) -> None:
        """`throwIfRebalanceInProgress`: the group moved on and the member has nothing to revoke."""
        if self._classic_target_epoch(group) > member.member_epoch and member.state != UNREVOKED_PARTITIONS:
            self._arm_classic_timer(group, "join", member, if_absent=True)
            raise ApiError(Errors.REBALANCE_IN_PROGRESS)

    # == Heartbeat ==============================================================================
    def classic_heartbeat(self, group_id: str, member_id: str, generation_id: int,
                          instance_id: str | None = None) -> Errors:
        """`classicGroupHeartbeatToConsumerGroup`: renew the session; REBALANCE_IN_PROGRESS when
        a rejoin would move the member on."""
        self.stats["requests"] += 1
        group = self.groups[group_id]
        try:
            member = self._classic_member(group, member_id, instance_id, generation_id)
        except ApiError as e:
            return e.error
        self._touch_session(group, member_id, member.classic.session_timeout_ms)
        if member.member_epoch < self._classic_target_epoch(group) or member.state == UNREVOKED_PARTITIONS or \
                (member.state == UNRELEASED_PARTITIONS and self._missing_partitions_free(group, member)):
            self._arm_classic_timer(group, "join", member, if_absent=True)
            return Errors.REBALANCE_IN_PROGRESS
        return Errors.NONE

    @staticmethod
    def _missing_partitions_free(group: ConsumerGroup, member: ConsumerGroupMember) -> bool:
        """`hasUnreleasedPartitions` read the other way: every partition of the member's target
        that it does not hold yet is now free, so a rejoin would complete its assignment."""
        for topic, parts in group.target[member.member_id].items():  # UNRELEASED: it has a target
            held = member.assigned.get(topic, frozenset())
            for p in parts - held:
                if group.owner(topic, p) is not None:
                    return False
        return True

    # == LeaveGroup =============================================================================
    def classic_leave(self, group_id: str, members: Iterable[tuple[str, str | None]],
                      reason: str | None = None) -> ClassicAnswer:
        """`classicGroupLeaveToConsumerGroup`: the listed members are fenced in one go (one epoch
        bump); each gets its own error, as in a batch LeaveGroup (KIP-345)."""
        self.stats["requests"] += 1
        group = self.groups[group_id]
        errors, leaving = [], []
        for member_id, instance_id in members:
            try:
                member = self._leaving_member(group, member_id, instance_id)
            except ApiError as e:
                errors.append(e.error)
                continue
            errors.append(Errors.NONE)
            self._emit_log("classic_member_left", group_id, member.member_id, instance_id=instance_id,
                           client_reason=reason)
            leaving.append(member)
        if leaving:
            self._fence_members(group, leaving, "leave_group")
        return ClassicAnswer(member_errors=errors)

    def _leaving_member(self, group: ConsumerGroup, member_id: str, instance_id: str | None) -> ConsumerGroupMember:
        if instance_id is None:
            member = group.members.get(member_id)
            if member is None:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID)
            return member
        current_id = group.static_members.get(instance_id)
        if current_id is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID)
        if member_id and current_id != member_id:
            raise ApiError(Errors.FENCED_INSTANCE_ID)
        return group.members[current_id]

    # == conversions (the coordinator front's `kafkasim.coordinator.migration` calls these) ========
    def adopt_classic_members(self, group_id: str, epoch: int, members: Iterable[ConsumerGroupMember]
                              ) -> ConsumerGroup:
        """A consumer group made from a classic one (`ConsumerGroup.fromClassicGroup`): group
        epoch = target epoch = the classic generation, each member STABLE at it with its last
        classic assignment as assigned and target, and its classic session timer armed. It is not
        stored here: the heartbeat that converts it stores it (`_commit`); until then its timers
        find no such group and do nothing, as Kafka's do when the conversion fails."""
        group = ConsumerGroup(group_id)
        group.group_epoch = group.assignment_epoch = epoch
        for member in members:
            group.put_member(member)
            group.set_target(member.member_id, member.assigned)
        group.subscription_metadata = self._metadata(group.subscribed_topics())
        for member in group.members.values():
            self._touch_session(group, member.member_id, member.classic.session_timeout_ms)
        group.state = group.compute_state()
        return group

    def release_group(self, group_id: str, removed: Iterable[ConsumerGroupMember] = (),
                      reason: str | None = None) -> ConsumerGroup:
        """Take a consumer group out of this manager's hands, its timers stopped; `removed` are
        members leaving with it (for `reason`), recorded as removed."""
        group = self.groups.pop(group_id)
        self._cancel_all_timers(group)
        for member in removed:
            self.removal_reason[member.member_id] = reason
            self._event(group, "MemberRemoved", member.member_id, reason=reason, value=member.member_epoch)
        return group

    # == shared =================================================================================
    def _classic_member(self, group: ConsumerGroup, member_id: str, instance_id: str | None,
                        generation_id: int) -> ConsumerGroupMember:
        """`validateConsumerGroupMember` + `throwIfMemberDoesNotUseClassicProtocol` +
        `throwIfGenerationIdUnmatched`."""
        if instance_id is not None:
            current_id = group.static_members.get(instance_id)
            if current_id is None:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID)
            if current_id != member_id:
                raise ApiError(Errors.FENCED_INSTANCE_ID)
        member = group.members.get(member_id)
        if member is None or member.classic is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID)
        if generation_id != member.member_epoch:
            raise ApiError(Errors.ILLEGAL_GENERATION)
        return member

    def _arm_classic_timer(self, group: ConsumerGroup, kind: str, member: ConsumerGroupMember,
                           if_absent: bool = False) -> None:
        """`scheduleConsumerGroup{Join,Sync}Timeout`: the member's rebalance timeout to rejoin
        (join) or to send SyncGroup (sync), else it is fenced."""
        key = (kind, member.member_id)
        if if_absent and key in group.classic_timer:
            return
        self._cancel_timer(group.classic_timer, key)
        group.classic_timer[key] = self.sim.schedule(max(0, member.rebalance_timeout_ms), self._on_classic_timeout,
                                                     group, kind, member.member_id)

    def _on_classic_timeout(self, group: ConsumerGroup, kind: str, member_id: str) -> None:
        if self.groups.get(group.group_id) is not group:
            return
        self.stats["timer_events"] += 1
        del group.classic_timer[(kind, member_id)]  # a timer cancelled or re-armed left the dict with it
        member = group.members.get(member_id)
        if member is None or member.classic is None:
            return
        why = "the classic member failed to join within the rebalance timeout" if kind == "join" \
            else "the member failed to sync within timeout"
        self._emit_log("member_fenced", group.group_id, member_id, reason=why)
        self._event(group, "MemberFenced", member_id, reason=f"{kind}_timeout", value=member.member_epoch)
        self._fence(group, member, "rebalance_timeout")


__all__ = ["ClassicAnswer", "ClassicMembers", "PROTOCOL_TYPE"]
