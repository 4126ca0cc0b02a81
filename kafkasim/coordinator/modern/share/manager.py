"""The coordinator side of share groups (KIP-932): ShareGroupHeartbeat (API key 76).

Kafka source (4.0.0, 4.1.1, 4.2.0 = Confluent's v8.0.0, v8.1.0, v8.2.0):
`group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java`
(`shareGroupHeartbeat`, `shareGroupLeave`, `shareGroupFenceMember`, `initializedAssignmentPending`,
`subscribedTopicsChangeMap`, `maybeReconcile`), `modern/share/ShareGroup.java`,
`ShareGroupMember.java`, `ShareGroupAssignmentBuilder.java`, `GroupCoordinatorService.java`
(`throwIfShareGroupHeartbeatRequestIsInvalid`) and `KafkaApis.scala` (`handleShareGroupHeartbeat`).

One heartbeat, at one instant: validate; find or create the group and member (epoch checks, the
`group.share.max.size` limit); apply the subscription and rack; bump the group epoch if the
subscription or the subscribed topics' metadata changed, or (4.1+) if initialized partitions are
not yet in the target; if the group epoch is ahead of the target epoch, run the `simple` assignor
over every member (4.1+: only over initialized partitions); move this member straight to its
target (no revocation: share groups never revoke before assigning); re-arm its session timer;
answer; (4.1+) record the subscribed partitions that still need their share state initialized.
Nothing is stored when the request fails.

Initialization (4.1+): the InitializeShareGroupState the coordinator sends to the share
coordinator is answered by `complete_share_init` (as Kafka's GMM unit tests drive it), or after
`share_state_init_delay_ms` when that is set. The next heartbeat of any member then bumps the
epoch and assigns the partitions.

Events (rows of `kafkasim.core.events`, source "coordinator", generation = group epoch):
ShareGroupHeartbeat (first; error; value = the epoch sent), MemberJoined, GroupEpochBumped (reason
new_group... member_joined, subscription_changed, metadata_changed, initialized, member_removed),
TargetAssignmentComputed (reason "simple"), MemberEpochBumped, MemberFenced ("session_timeout"),
MemberRemoved ("leave_group", "session_timeout"), StateChanged, GroupLoaded.

Kafka 4.3 and 4.4 (confluentinc/kafka branches 4.3 and 4.4, `GroupMetadataManager.java`,
`GroupCoordinatorConfig.java`, `ShareGroupConfig.java`, `GroupConfig.java`), modelled: new groups
at epoch 1 (KAFKA-20268); the assignment interval (KIP-1263: `group.share.assignment.interval.ms`,
or the group's `share.assignment.interval.ms`; the mechanism is `modern.assignment_interval`'s, shared
with consumer groups) and initialized partitions bumping the epoch only when no target is pending;
the per-group limits of KIP-1240 (read by the share partitions); 4.4's catch-up of an emptied group's
target epoch (KAFKA-20442), partitions added to an already initialized topic starting at offset 0
(KAFKA-20742), and the dead-letter queue (KIP-1191, `share.version=2`): `dlq_write` checks the DLQ
topic as `ShareGroupDLQStateManager.validateDlqTopic` does and keeps what was written by topic.
Not modelled: KIP-1323 (4.4), which is an admin-tool change only (`kafka-share-groups.sh
--reset-offsets --from-file`, a CSV plan such as a consumer group's committed offsets, KAFKA-20524)
sent as AlterShareGroupOffsets, an RPC kafkasim does not have; a replay seeds the same state with
`SharePartition.load_state(start_offset, [])`.

Simplified, and said so: no `__consumer_offsets` writes (a heartbeat is atomic), no topic ids
(topics are names), no rack use, no authorisation, no metadata hash (the subscribed topics'
partition counts are compared instead, which changes on the same events), no topic deletion; a
restored group (`load_share_group`) has no assignment timestamp, so its next target is computed at
once whatever the interval (Kafka restores the timestamp from its record); the
DLQ topic's own config `errors.deadletterqueue.group.enable` is not modelled (a topic in the
cluster's table counts as enabled), an auto-created DLQ topic is not added to the topic table, and
the DLQ records carry no copy of the record (`errors.deadletterqueue.copy.record.enable` is kept, unused).
A fenced member's acquired records stay acquired (Kafka releases them only when the share session
closes or the locks expire), as here.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`, `kafkasim.coordinator.modern.api`,
`kafkasim.coordinator.modern.group_config`, `kafkasim.coordinator.modern.share`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from kafkasim.coordinator.assignor.simple import simple_share_assign
from kafkasim.coordinator.modern.api import ApiError
from kafkasim.coordinator.modern.assignment_interval import can_compute_next_target_assignment
from kafkasim.coordinator.modern.queries import ModernGroupQueries
from kafkasim.coordinator.modern.group_config import GROUP_CONFIGS, GroupConfigs
from kafkasim.coordinator.modern.share.group import (
    STABLE, Assignment, ShareGroup, ShareGroupMember, as_lists)
from kafkasim.coordinator.modern.share.partition import DlqRecord, SharePartition, share_feature
from kafkasim.coordinator.modern.share.responses import ShareGroupHeartbeatResponse
from kafkasim.coordinator.modern.share.rules import ShareRules
from kafkasim.core.config import BROKER_CONFIGS, broker_config
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError, Errors, check_int

LogHook = Callable[[int, str, str, "str | None", dict], None]

#: The broker configs a share-group coordinator reads, as GroupCoordinator's arguments name them.
SHARE_BROKER_CONFIGS = tuple(name for name in BROKER_CONFIGS
                             if name.startswith(("group.share.", "errors.deadletterqueue.")))

LEAVE_GROUP_MEMBER_EPOCH = -1
_MAX_MEMBER_ID_LENGTH = 36  # KafkaApis.isMemberIdValid (4.2)


def share_broker_config(kafka_version, given: Mapping[str, Any]) -> dict[str, Any]:
    """The `group.share.*` broker configs, validated as Kafka's ConfigDef ranges and startup checks
    do (`broker_config`); before 4.0 checked as 4.0 would and unused."""
    rules = ShareRules.for_version(kafka_version)
    cfg = broker_config(kafka_version if rules.served else "4.0",
                        {k: v for k, v in given.items() if v is not None})
    return {name: cfg[name] for name in SHARE_BROKER_CONFIGS}


class ShareGroupManager(ModernGroupQueries):
    """Owns the share groups of one coordinator and answers ShareGroupHeartbeat.

    `topics` is the cluster's topic table ({name: partitions}), shared with the consumer groups'
    manager (the front passes the same dict); `configs` the validated `group.share.*` broker
    configs (`share_broker_config`); `group_configs` the per-group overrides."""

    KIND = "share"

    def __init__(self, sim: Simulation, *, topics: dict[str, int], configs: Mapping[str, Any],
                 group_configs: GroupConfigs, kafka_version="4.2", share_state_init_delay_ms: int | None = None,
                 share_version: int | None = None, record_heartbeats: bool = True, log: LogHook | None = None):
        self.sim = sim
        self.kafka_version = kafka_version
        self.rules = ShareRules.for_version(kafka_version)
        self.share_version = share_feature(share_version, self.rules.served and self.rules.version >= (4, 4))
        self.topics = topics
        self.configs = dict(configs)
        self.group_configs = group_configs
        self.init_delay_ms = None if share_state_init_delay_ms is None else \
            check_int("share_state_init_delay_ms", share_state_init_delay_ms, 0)
        self.record_heartbeats = record_heartbeats
        self.log = log
        self.groups: dict[str, ShareGroup] = {}
        self.partitions: dict[tuple[str, str, int], SharePartition] = {}
        self.stats = {"requests": 0, "timer_events": 0, "assignments": 0, "share_state_inits": 0}
        #: The dead-letter-queue topics (4.4, KIP-1191): topic -> the records written to it, in order.
        self.dlq_topics: dict[str, list[DlqRecord]] = {}
        #: The DLQ writes that failed: (record, Kafka's ConfigException message).
        self.dlq_failures: list[tuple[DlqRecord, str]] = []
        self._deleted: set[str] = set()
        self._rows = sim.events.rows
        #: Set by the coordinator front: the kind of group ("consumer", "classic") holding an id
        #: that no share group holds, or None.
        self.other_type: Callable[[str], str | None] = lambda group_id: None
        #: Set by the coordinator front: a fresh member id (4.0 generates one for an empty id).
        self.new_member_id: Callable[[], str] | None = None

    # == the request ==========================================================================
    def share_group_heartbeat(self, group_id: str, member_id: str = "", member_epoch: int = 0,
                              rack_id: str | None = None,
                              subscribed_topic_names: Iterable[str] | None = None) -> ShareGroupHeartbeatResponse:
        """Handle one ShareGroupHeartbeat (`GroupMetadataManager.shareGroupHeartbeat`, `shareGroupLeave`).

        `member_epoch` 0 joins (or rejoins), -1 leaves; a field left None means "unchanged".
        """
        self.stats["requests"] += 1
        if isinstance(subscribed_topic_names, str):
            raise TypeError(f"subscribed_topic_names must be a list of topic names, got the string "
                            f"{subscribed_topic_names!r}")
        names = None if subscribed_topic_names is None else frozenset(subscribed_topic_names)
        rows, at = self._rows, None
        if self.record_heartbeats or member_epoch <= 0:
            at = len(rows)
            rows.append(None)  # the request row comes first; filled in once answered
        try:
            member_id = self._validate(group_id, member_id or "", member_epoch, rack_id, names)
            if member_epoch == LEAVE_GROUP_MEMBER_EPOCH:
                resp = self._leave(group_id, member_id)
            else:
                resp = self._heartbeat(group_id, member_id, member_epoch, rack_id, names)
        except ApiError as e:
            resp = ShareGroupHeartbeatResponse(error=e.error, error_message=e.message)
        except BaseException:
            if at is not None:
                del rows[at]
            raise
        group = self.groups.get(group_id)
        row = (self.sim.now, "coordinator", group_id, (resp.member_id or member_id) or None, "ShareGroupHeartbeat",
               group.group_epoch if group else None, None, None, resp.error._name_, None, float(member_epoch),
               group.state if group else None)
        if at is not None:
            rows[at] = row
        elif resp.error is not Errors.NONE:
            rows.append(row)
        return resp

    def _validate(self, group_id: str, member_id: str, epoch: int, rack_id: str | None, names) -> str:
        """`KafkaApis.handleShareGroupHeartbeat` then `throwIfShareGroupHeartbeatRequestIsInvalid`
        (4.1+); returns the member id (4.0: generated for an empty one, by the coordinator)."""
        rules = self.rules
        if not rules.served:
            raise ApiError(Errors.UNSUPPORTED_VERSION)
        if rules.member_id_checked_by_apis and (not member_id or len(member_id) > _MAX_MEMBER_ID_LENGTH):
            raise ApiError(Errors.INVALID_REQUEST, "Invalid member id in the request.")
        if rules.validate_request:
            if not member_id.strip():
                raise ApiError(Errors.INVALID_REQUEST, "MemberId can't be empty.")
            if not group_id or not group_id.strip():
                raise ApiError(Errors.INVALID_REQUEST, "GroupId can't be empty.")
            if rack_id is not None and not rack_id.strip():
                raise ApiError(Errors.INVALID_REQUEST, "RackId can't be empty.")
            if epoch == 0 and not names:
                raise ApiError(Errors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request.")
            if epoch < LEAVE_GROUP_MEMBER_EPOCH:
                raise ApiError(Errors.INVALID_REQUEST, "MemberEpoch is invalid.")
        return member_id

    # == a regular heartbeat ====================================================================
    def _heartbeat(self, group_id: str, member_id: str, epoch: int, rack_id: str | None,
                   names: frozenset | None) -> ShareGroupHeartbeatResponse:
        group = self._get_or_create_group(group_id, create=epoch == 0)
        created = group_id not in self.groups
        self._check_size(group, member_id)
        if not member_id:  # 4.0: the coordinator generates the member id (`Uuid.randomUuid()`, the front's)
            member_id = self.new_member_id()
        member = group.members.get(member_id)
        if member is None:
            if epoch != 0:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group {group_id}.")
            member = ShareGroupMember(member_id)
        else:
            self._check_epoch(member, epoch)
        if epoch == 0:
            self._emit_log("member_joined", group_id, member_id)
        updated = member
        if rack_id is not None and rack_id != member.rack_id:
            updated = updated.evolve(rack_id=rack_id)
        if names is not None and names != member.subscribed_topic_names:
            updated = updated.evolve(subscribed_topic_names=names)
        subscription_changed = updated.subscribed_topic_names != member.subscribed_topic_names
        members = {**group.members, member_id: updated}
        bump, reason = subscription_changed, ("member_joined" if member_id not in group.members
                                              else "subscription_changed")
        if not bump and self.rules.init_gate and self._initialized_assignment_pending(group) and \
                (not self.rules.assignment_interval or group.assignment_epoch >= group.group_epoch):
            bump, reason = True, "initialized"
        group_epoch, metadata = group.group_epoch, group.subscription_metadata
        if bump or group.metadata_expired:
            metadata = self._metadata(group.subscribed_topics(members))
            if metadata != group.subscription_metadata:
                self._emit_log("metadata_hash", group_id, None, metadata=metadata)
                if not bump:
                    reason = "metadata_changed"
                bump = True
            if bump:
                group_epoch += 1
                if created:
                    reason = "new_group"
        targets = None
        if group_epoch > group.assignment_epoch and can_compute_next_target_assignment(
                group.last_assignment_ms, self.assignment_interval_ms(group_id), self.sim.now):
            targets = self._compute_targets(group, members, metadata)
        # -- commit -----------------------------------------------------------------------------
        if created:  # a deleted id stays in `_deleted`, read only for an id no group holds
            self.groups[group_id] = group
        is_new = member_id not in group.members
        group.members[member_id] = updated
        if is_new:
            self._event(group, "MemberJoined", member_id)
        group.subscription_metadata, group.metadata_expired = metadata, False
        if group_epoch != group.group_epoch:
            group.group_epoch = group_epoch
            self._event(group, "GroupEpochBumped", reason=reason, value=group_epoch)
            self._emit_log("group_epoch_bumped", group_id, None, epoch=group_epoch, metadata=metadata)
        if targets is not None:
            self._store_target(group, members, targets, group_epoch)
        reconciled = self._reconcile(group, updated, bump)
        self._touch_session(group, member_id)
        self._sync_state(group)
        if self.rules.init_gate:
            self._maybe_initialize(group)
        send = epoch == 0 or reconciled.assigned != member.assigned or \
            (self.rules.full_request_sends_assignment and names is not None)
        return ShareGroupHeartbeatResponse(member_id=member_id, member_epoch=reconciled.member_epoch,
                                           heartbeat_interval_ms=self.heartbeat_interval_ms(group_id),
                                           assignment=as_lists(reconciled.assigned) if send else None)

    def _store_target(self, group: ShareGroup, members: Mapping, targets: dict, target_epoch: int) -> None:
        """The new target assignment, stored at `target_epoch`. Its members whose target changed are
        counted as `TargetAssignmentBuilder.build` writes their records: a member with no target
        before counts, even when its new one is empty."""
        changed = sum(1 for m in members if targets[m] != group.target.get(m))
        group.target = targets
        group.assignment_epoch = target_epoch
        group.last_assignment_ms = self.sim.now
        self.stats["assignments"] += 1
        self._event(group, "TargetAssignmentComputed", reason="simple", value=changed)
        self._emit_log("target_assignment_computed", group.group_id, None, epoch=target_epoch,
                       assignment={m: as_lists(a) for m, a in targets.items()})

    def _get_or_create_group(self, group_id: str, create: bool) -> ShareGroup:
        """`getOrMaybeCreateShareGroup` (4.1+) / `getOrMaybeCreatePersistedShareGroup` (4.0)."""
        group = self.groups.get(group_id)
        if group is not None:
            return group
        if self.other_type(group_id) is not None:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.")
        if not create:
            if self.rules.unknown_group_not_found:
                raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Share group {group_id} not found.")
            # 4.0: IllegalStateException, which the coordinator answers as UNKNOWN_SERVER_ERROR with no
            # message (CoordinatorOperationExceptionHelper.handleOperationException).
            error = ApiError(Errors.UNKNOWN_SERVER_ERROR)
            error.message = None
            raise error
        return ShareGroup(group_id, self.rules.initial_group_epoch)

    def _check_size(self, group: ShareGroup, member_id: str) -> None:
        """`throwIfShareGroupIsFull`."""
        limit = self.configs["group.share.max.size"]
        if len(group.members) >= limit and (not member_id or member_id not in group.members):
            raise ApiError(Errors.GROUP_MAX_SIZE_REACHED,
                           f"The share group has reached its maximum capacity of {limit} members.")

    def _check_epoch(self, member: ShareGroupMember, received: int) -> None:
        """`throwIfShareGroupMemberEpochIsInvalid`: 4.2 accepts epoch 0 (a rejoin) at once."""
        if received == 0 and self.rules.rejoin_with_epoch_zero:
            return
        if received > member.member_epoch:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, _fenced_message("greater", received, member.member_epoch))
        if received < member.member_epoch and received != member.previous_member_epoch:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, _fenced_message("smaller", received, member.member_epoch))

    def _initialized_assignment_pending(self, group: ShareGroup) -> bool:
        """`initializedAssignmentPending`: a subscribed topic whose initialized partitions are not
        exactly the partitions the target assigns."""
        subscribed = group.subscribed_topics()
        for topic, partitions in group.initialized.items():
            if topic not in subscribed:
                continue
            assigned = {p for a in group.target.values() for p in a.get(topic, ())}
            if assigned != set(partitions):
                return True
        return False

    def _compute_targets(self, group: ShareGroup, members: Mapping[str, ShareGroupMember],
                         metadata: Mapping[str, int]) -> dict[str, Assignment]:
        """`updateTargetAssignment` with the `simple` assignor over every member (4.1+: over the
        initialized partitions only; 4.0's assignor ignores `assignable`). Every member gets a target,
        empty when the assignor gives it nothing (`TargetAssignmentBuilder.newMemberAssignment`). Kafka
        turns a `PartitionAssignorException` into UNKNOWN_SERVER_ERROR ("Failed to compute a new target
        assignment for epoch N", as the consumer manager does here); the simple assignor raises one only
        for a subscribed topic missing from the metadata, and each member is given only the topics of
        `metadata`, so it cannot fail here."""
        order = list(metadata)
        subscriptions = {m: [t for t in order if t in mem.subscribed_topic_names] for m, mem in members.items()}
        current = {m: as_lists(group.target.get(m, {})) for m in members}
        assignable = {t: sorted(group.initialized.get(t, ())) for t in order}
        plain = simple_share_assign(self.kafka_version, subscriptions, dict(metadata), current, assignable)
        return {m: {t: frozenset(ps) for t, ps in plain.get(m, {}).items() if ps} for m in members}

    def _reconcile(self, group: ShareGroup, member: ShareGroupMember, subscription_changed: bool) -> ShareGroupMember:
        """`maybeReconcile` + `ShareGroupAssignmentBuilder`: straight to the target, filtered to the
        subscribed topics; a new epoch when the target's differs."""
        epoch = group.assignment_epoch
        if not subscription_changed and member.member_epoch == epoch:
            return member
        target = group.target.get(member.member_id, {})
        assigned = {t: ps for t, ps in target.items() if t in member.subscribed_topic_names}  # no empty ps in a target
        if epoch != member.member_epoch:  # (the builder also sets STABLE: a share member is never anything else)
            updated = member.evolve(assigned=assigned, member_epoch=epoch,
                                    previous_member_epoch=member.member_epoch)
        else:
            updated = member.evolve(assigned=assigned)
        if updated != member:
            group.members[member.member_id] = updated
            if updated.member_epoch != member.member_epoch:
                self._event(group, "MemberEpochBumped", member.member_id, reason=STABLE, value=updated.member_epoch)
            self._emit_log("member_reconciled", group.group_id, member.member_id, epoch=updated.member_epoch,
                           previous_epoch=updated.previous_member_epoch, state=STABLE,
                           assigned=as_lists(updated.assigned))
        return updated

    # == share-state initialization (4.1+) =====================================================
    def _maybe_initialize(self, group: ShareGroup) -> None:
        """`subscribedTopicsChangeMap` + `maybeCreateInitializeShareGroupStateRequest`: subscribed
        partitions neither initialized nor freshly initializing become initializing, and an
        InitializeShareGroupState goes to the share coordinator."""
        now, fresh_for = self.sim.now, self.rules.init_retry_interval_ms
        change: dict[str, frozenset] = {}
        for topic in sorted(group.subscribed_topics()):
            count = self.topics.get(topic)
            if count is None:
                continue
            already = set(group.initialized.get(topic, ()))
            pending = group.initializing.get(topic)
            if pending is not None and now - pending[1] < fresh_for:
                already |= pending[0]
            if not already or len(already) < count:
                change[topic] = frozenset(range(count)) - already
        if not change:
            return
        for topic, partitions in change.items():
            pending = group.initializing.get(topic)
            if self.rules.known_topic_starts_at_zero and (topic in group.initialized or pending is not None):
                group.starts_at_zero.update((topic, p) for p in partitions)
            # `addInitializingTopicsRecords` -> `combineInitMaps`: added to what is initializing, at the new time
            group.initializing[topic] = (partitions | (pending[0] if pending else frozenset()), now)
        self.stats["share_state_inits"] += 1
        if self.init_delay_ms is not None:
            self.sim.schedule(self.init_delay_ms, self._initialized, group, change)

    def _initialized(self, group: ShareGroup, partitions: Mapping[str, frozenset]) -> None:
        """InitializeShareGroupState succeeded: the partitions move to initialized."""
        if self.groups.get(group.group_id) is not group:
            return
        for topic, parts in partitions.items():
            group.initialized[topic] = frozenset(group.initialized.get(topic, frozenset()) | parts)
            pending = group.initializing.get(topic)
            if pending is not None:
                left = pending[0] - parts
                if left:
                    group.initializing[topic] = (left, pending[1])
                else:
                    del group.initializing[topic]

    def complete_share_init(self, group_id: str) -> None:
        """The share coordinator answered InitializeShareGroupState: every initializing partition of
        the group becomes initialized. No epoch bump: the next heartbeat of any member makes it and
        assigns them. A no-op for an unknown group or when nothing is pending (always in 4.0, which
        initializes nothing)."""
        group = self.groups.get(group_id)
        if group is not None:
            self._initialized(group, {t: ps for t, (ps, _) in group.initializing.items()})

    # == leaving and fencing ====================================================================
    def _leave(self, group_id: str, member_id: str) -> ShareGroupHeartbeatResponse:
        """`shareGroupLeave`: `shareGroup(groupId)` (not the heartbeat's lookup), then the member."""
        group = self.groups.get(group_id)
        if group is None:
            if self.other_type(group_id) is not None:
                raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a share group.")
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        member = group.members.get(member_id)
        if member is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group {group_id}.")
        self._emit_log("member_left", group_id, member_id)
        self._fence(group, member, "leave_group")
        return ShareGroupHeartbeatResponse(member_id=member_id, member_epoch=LEAVE_GROUP_MEMBER_EPOCH)

    def _fence(self, group: ShareGroup, member: ShareGroupMember, reason: str) -> None:
        """`shareGroupFenceMember`: the member, its target and its subscription go; the group epoch
        bumps (the others' targets are recomputed at the next heartbeat of any member)."""
        mid = member.member_id
        del group.members[mid]
        group.target.pop(mid, None)
        timer = group.session_timer.pop(mid, None)
        if timer is not None:
            timer.cancel()
        self._event(group, "MemberRemoved", mid, reason=reason, value=member.member_epoch)
        metadata = self._metadata(group.subscribed_topics())
        if metadata != group.subscription_metadata:
            self._emit_log("metadata_hash", group.group_id, None, metadata=metadata)
        group.subscription_metadata = metadata
        group.group_epoch += 1
        self._event(group, "GroupEpochBumped", reason="member_removed", value=group.group_epoch)
        if not group.members and self.rules.empty_group_catches_up:
            # KAFKA-20442 (4.4): "use a timestamp of zero to mimic the behavior of a new group so that
            # the assignment interval does not delay the next assignment computation".
            group.assignment_epoch, group.last_assignment_ms = group.group_epoch, None
        self._sync_state(group)

    # == timers and per-group configs ============================================================
    def session_timeout_ms(self, group_id: str) -> int:
        """`shareGroupSessionTimeoutMs`: the group's `share.session.timeout.ms`, else the broker's."""
        return self.group_configs.value(group_id, "share.session.timeout.ms",
                                        self.configs["group.share.session.timeout.ms"])

    def heartbeat_interval_ms(self, group_id: str) -> int:
        """`shareGroupHeartbeatIntervalMs`: the group's `share.heartbeat.interval.ms`, else the broker's."""
        return self.group_configs.value(group_id, "share.heartbeat.interval.ms",
                                        self.configs["group.share.heartbeat.interval.ms"])

    def _cancel_all_timers(self, group: ShareGroup) -> None:
        """A deleted group's share state goes with it (DeleteShareGroupState): its share partitions,
        and their lock timers, are dropped; the same id starts afresh."""
        for key in [k for k in self.partitions if k[0] == group.group_id]:
            for timer in self.partitions.pop(key).lock_timers():
                timer.cancel()

    def assignment_interval_ms(self, group_id: str) -> int:
        """`shareGroupAssignmentIntervalMs` (4.3): the group's `share.assignment.interval.ms`, else the
        broker's `group.share.assignment.interval.ms`; 0 before 4.3 (a target at every epoch bump)."""
        if not self.rules.assignment_interval:
            return 0
        return self.group_configs.value(group_id, "share.assignment.interval.ms",
                                        self.configs["group.share.assignment.interval.ms"])

    def _touch_session(self, group: ShareGroup, member_id: str) -> None:
        """`scheduleShareGroupSessionTimeout`: the member is fenced if silent for the session timeout."""
        timer = group.session_timer.pop(member_id, None)
        if timer is not None:
            timer.cancel()
        group.session_timer[member_id] = self.sim.schedule(self.session_timeout_ms(group.group_id),
                                                           self._on_session_timeout, group, member_id)

    def _on_session_timeout(self, group: ShareGroup, member_id: str) -> None:
        if self.groups.get(group.group_id) is not group:
            return
        self.stats["timer_events"] += 1
        member = group.members.get(member_id)  # its fence pops the timer
        if member is None:
            return
        self._session_expired(group, member)

    # == topics =================================================================================
    def topic_changed(self, topic: str) -> None:
        """A topic was created or grew (`onNewMetadataImage`): subscribed groups notice at their
        next heartbeat."""
        for group in self.groups.values():
            if topic in group.subscribed_topics():
                group.metadata_expired = True

    def _metadata(self, topics: Iterable[str]) -> dict[str, int]:
        cluster = self.topics
        return {t: cluster[t] for t in sorted(topics) if t in cluster}

    # == the share partitions (the partition leader's state) =====================================
    def share_partition(self, group_id: str, topic: str, partition: int, *, log_start_offset: int = 0,
                        log_end_offset: int = 0) -> SharePartition:
        """The leader's `SharePartition` for (group, topic, partition): made on first use
        (`SharePartitionManager.getOrCreateSharePartition`, then `maybeInitialize`), ACTIVE, with
        SPSO = SPEO from the group's `share.auto.offset.reset` (latest: `log_end_offset`;
        earliest: `log_start_offset`); later calls return the same object."""
        key = (group_id, topic, partition)
        sp = self.partitions.get(key)
        if sp is not None:
            return sp
        if not self.rules.served:
            raise ConfigError(f"share groups (KIP-932) need kafka_version 4.0 or later, got {self.kafka_version!r}")
        count = self.topics.get(topic)
        if count is None:
            raise KeyError(f"unknown topic {topic!r}")
        if not isinstance(partition, int) or not 0 <= partition < count:
            raise KeyError(f"topic {topic!r} has no partition {partition!r} (it has {count})")
        check_int("log_start_offset", log_start_offset, 0)
        check_int("log_end_offset", log_end_offset, log_start_offset)
        name = "share.auto.offset.reset"
        reset = self.group_configs.value(group_id, name, GROUP_CONFIGS[name][1])  # GroupConfig's default, latest
        group = self.groups.get(group_id)
        if group is not None and (topic, partition) in group.starts_at_zero:
            # KAFKA-20742: InitializeShareGroupState sent start offset 0, not -1; a log that no longer
            # starts at 0 is read from its start (the fetch's out-of-range reset), hence log_start_offset.
            reset = "earliest"
        if reset.startswith("by_duration:"):
            raise ConfigError(f"share.auto.offset.reset={reset} needs record timestamps, which "
                              "kafkasim's share partitions do not keep: use earliest or latest")
        sp = SharePartition(self.sim, group_id, topic, partition, kafka_version=self.kafka_version,
                            max_in_flight_records=self.configs["group.share.partition.max.record.locks"],
                            max_delivery_count=self.configs["group.share.delivery.count.limit"],
                            default_record_lock_duration_ms=self.configs["group.share.record.lock.duration.ms"],
                            group_config=lambda: self.group_configs.get(group_id), share_version=self.share_version,
                            dlq_writer=self.dlq_write)
        sp.load_state(log_start_offset if reset == "earliest" else log_end_offset, [])
        self.partitions[key] = sp
        return sp

    def dlq_write(self, record: DlqRecord) -> str | None:
        """Produce one DLQ record (4.4, KIP-1191) to the group's `errors.deadletterqueue.topic.name`,
        checked as `ShareGroupDLQStateManager.validateDlqTopic` does; None, or Kafka's
        ConfigException message when the topic cannot be used (the record is archived regardless).
        Its first two checks (the name is empty; it starts with "__") cannot fail here: a partition
        writes only for a group that sets a name (`SharePartition.dlq_enabled`), and a name starting
        with "__" is refused when set (`GroupConfigs.set`)."""
        group_id = record.group_id
        topic = self.group_configs.get(group_id)["errors.deadletterqueue.topic.name"]
        prefix = self.configs["errors.deadletterqueue.topic.name.prefix"] or ""
        failure = None
        if topic not in self.topics and topic not in self.dlq_topics and \
                not self.configs["errors.deadletterqueue.auto.create.topics.enable"]:
            failure = (f"DLQ topic does not exist and auto create is disabled on cluster for share group: "
                       f"{group_id}, topic: {topic}.")
        elif prefix and not topic.startswith(prefix):
            failure = (f"Configured DLQ topic name does not comply with the DLQ topic prefix in share group: "
                       f"{group_id}, topic: {topic}, prefix: {prefix}.")
        if failure is not None:
            self.dlq_failures.append((record, failure))
            return failure
        self.dlq_topics.setdefault(topic, []).append(record)
        return None

    # == restoring a group ========================================================================
    def load_share_group(self, group_id: str, *, group_epoch: int, target_assignment_epoch: int | None = None,
                         members: Mapping[str, Mapping[str, Any]] | None = None,
                         target_assignment: Mapping[str, Mapping[str, Iterable[int]]] | None = None,
                         subscription_metadata: Mapping[str, int] | None = None,
                         initialized_partitions: Mapping[str, Iterable[int]] | None = None) -> None:
        """Restore a share group in a given state, as `GroupMetadataManager.replay` rebuilds it
        (GMMT's `ShareGroupBuilder`). Members get no session timer until their first heartbeat
        (`arm_loaded_timers` does Kafka's `onLoaded`)."""
        if not self.rules.served:
            raise ConfigError(f"share groups (KIP-932) need kafka_version 4.0 or later, got {self.kafka_version!r}")
        if group_id in self.groups or self.other_type(group_id) is not None:
            raise ConfigError(f"group {group_id!r} already exists")
        check_int("group_epoch", group_epoch, 0)
        target_epoch = group_epoch if target_assignment_epoch is None else \
            check_int("target_assignment_epoch", target_assignment_epoch, 0)
        if target_epoch > group_epoch:
            raise ConfigError(f"target_assignment_epoch ({target_epoch}) cannot exceed group_epoch ({group_epoch})")
        group = ShareGroup(group_id, group_epoch)
        group.assignment_epoch = target_epoch
        for mid, fields in (members or {}).items():
            group.members[mid] = _restored_member(mid, fields)
        if target_assignment is not None:
            group.target = {m: {t: frozenset(ps) for t, ps in a.items() if ps} for m, a in target_assignment.items()}
        group.subscription_metadata = dict(subscription_metadata) if subscription_metadata is not None else \
            self._metadata(group.subscribed_topics())
        if initialized_partitions is None:
            found: dict[str, set] = {}
            for assignment in [m.assigned for m in group.members.values()] + list(group.target.values()):
                for t, ps in assignment.items():
                    found.setdefault(t, set()).update(ps)
            initialized_partitions = found
        if self.rules.init_gate:
            group.initialized = {t: frozenset(ps) for t, ps in initialized_partitions.items() if ps}
        self._store_loaded(group)

    def arm_loaded_timers(self, group_id: str) -> None:
        """`GroupMetadataManager.onLoaded`: a full session timer for every member."""
        group = self._group(group_id)
        for mid in group.members:
            self._touch_session(group, mid)

    # == queries ================================================================================
    def partitions_pending_revocation(self, group_id: str, member_id: str) -> dict[str, list[int]]:
        self._member(group_id, member_id)
        return {}

    def initialized_partitions(self, group_id: str) -> dict[str, list[int]]:
        """The partitions whose share state is initialized (4.1+; everything subscribed in 4.0)."""
        return {t: sorted(ps) for t, ps in sorted(self._group(group_id).initialized.items())}

    def initializing_partitions(self, group_id: str) -> dict[str, list[int]]:
        return {t: sorted(ps) for t, (ps, _) in sorted(self._group(group_id).initializing.items())}

def _fenced_message(which: str, received: int, known: int) -> str:
    return (f"The share group member has a {which} member epoch ({received}) than the one known by the group "
            f"coordinator ({known}). The member must abandon all its partitions and rejoin.")


_MEMBER_FIELDS = {"member_epoch", "previous_member_epoch", "state", "assigned", "subscribed_topic_names", "rack_id"}


def _restored_member(member_id: str, fields: Mapping[str, Any]) -> ShareGroupMember:
    unknown = set(fields) - _MEMBER_FIELDS
    if unknown:
        raise ConfigError(f"Unknown share group member fields {sorted(unknown)} for {member_id!r}; "
                          f"known: {sorted(_MEMBER_FIELDS)}")
    state = fields.get("state", STABLE)
    if state != STABLE:
        raise ConfigError(f"Invalid member state {state!r} for {member_id!r}; a share group member is always STABLE")
    names = fields.get("subscribed_topic_names") or ()
    if isinstance(names, str):
        raise ConfigError(f"subscribed_topic_names of {member_id!r} must be a list of topic names, got {names!r}")
    return ShareGroupMember(member_id, member_epoch=fields.get("member_epoch", 0),
                            previous_member_epoch=fields.get("previous_member_epoch", -1),
                            rack_id=fields.get("rack_id"), subscribed_topic_names=frozenset(names),
                            assigned={t: frozenset(ps) for t, ps in (fields.get("assigned") or {}).items() if ps})


__all__ = ["ShareGroupManager", "share_broker_config", "SHARE_BROKER_CONFIGS"]
