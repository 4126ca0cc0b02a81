"""The one group coordinator of a broker, serving classic, consumer-protocol and share groups side
by side, as Kafka 4's `GroupMetadataManager` does (`group-coordinator/src/main/java/org/apache/kafka/
coordinator/group/GroupMetadataManager.java`): JoinGroup, SyncGroup, Heartbeat and LeaveGroup go
to the classic groups (`classic.coordinator.ClassicGroupCoordinator`), ConsumerGroupHeartbeat to the
consumer groups (`modern.consumer.ConsumerGroupManager`, KIP-848), ShareGroupHeartbeat to the share
groups (`modern.share.ShareGroupManager`, KIP-932), OffsetCommit to classic or consumer groups. One
topic table serves both modern managers, and one set of per-group configs (`modern.group_config`,
`set_group_config`). All write to one broker log (`broker_log`): the consumer groups' lines through the manager's log hook,
`BrokerLog.consumer_group`, from 4.0 (the release whose coordinator writes them by default).

Conversions between the two kinds of group are `migration`'s.

May import: `kafkasim.core` and the coordinator's rooms (`migration`, `classic`, `modern`, `assignor`, `broker_log`).
"""

from __future__ import annotations

from typing import Callable, Iterable

from kafkasim.coordinator.classic.coordinator import (
    ClassicGroupCoordinator, HeartbeatResponse, JoinGroupResponse, LeaveGroupResponse, OffsetCommitResponse,
    SyncGroupResponse)
from kafkasim.coordinator.migration import Migration
from kafkasim.coordinator.modern.consumer import ConsumerGroupManager
from kafkasim.coordinator.modern.consumer.classic_members import PROTOCOL_TYPE, ClassicAnswer
from kafkasim.coordinator.modern.group_config import GroupConfigs
from kafkasim.coordinator.modern.share import ShareGroupManager, share_broker_config
from kafkasim.core.config import BROKER_CONFIGS, broker_config
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import Errors
from kafkasim.core.java import random_uuid


def _modern_answer(coordinator, name: str, group_id, *args, **kwargs):
    """The answer to a query about a modern group: by the share groups' manager for a share group, else by
    the consumer groups' (a module function, not `_modern`'s closure, made at import: mutmut reaches it)."""
    manager = coordinator.share_groups if coordinator.share_groups.has_group(group_id) else coordinator.consumer_groups
    return getattr(manager, name)(group_id, *args, **kwargs)


def _modern(name: str):
    """A query answered by `_modern_answer` (same signature and doc as ConsumerGroupManager's)."""
    def forward(self, group_id, *args, **kwargs):
        return _modern_answer(self, name, group_id, *args, **kwargs)
    forward.__name__ = forward.__qualname__ = name
    forward.__doc__ = getattr(ConsumerGroupManager, name).__doc__
    return forward


def _manager_method(attribute: str, manager: type, name: str):
    """A GroupCoordinator method answered by one of its managers (same signature and doc)."""
    def forward(self, *args, **kwargs):
        return getattr(getattr(self, attribute), name)(*args, **kwargs)
    forward.__name__ = forward.__qualname__ = name
    forward.__doc__ = getattr(manager, name).__doc__
    forward.__wrapped__ = getattr(manager, name)
    return forward


def _share(name: str):
    """A GroupCoordinator method answered by its ShareGroupManager."""
    return _manager_method("share_groups", ShareGroupManager, name)


def _consumer_protocol(name: str):
    """A GroupCoordinator method answered by its ConsumerGroupManager."""
    return _manager_method("consumer_groups", ConsumerGroupManager, name)


class GroupCoordinator(ClassicGroupCoordinator):
    """One broker's group coordinator: the classic protocol's requests (see ClassicGroupCoordinator)
    and the consumer protocol's `consumer_group_heartbeat`, on one clock and one event log.

    `topics` are the cluster's topics ({name: partitions}) that consumer groups subscribe to; the
    `group_consumer_*` arguments are Kafka's `group.consumer.*` broker configs (None: 4.x defaults).
    `group_consumer_assignment_interval_ms` is 4.3's KIP-1263 minimum time between two target
    computations of a group (None: the version's default, 1000 ms from 4.3), within
    `group_consumer_min/max_assignment_interval_ms` (0 and 15000 by default); 0, the only behaviour of
    4.0-4.2 (where the configs do not exist), recomputes on every epoch bump.
    `kafka_version` must be a version kafkasim models (`KAFKA_VERSIONS`, or a release of one such
    line): anything else is refused as `Scenario` refuses it (`normalize_version`).
    `group_consumer_migration_policy` says which online conversions between the two kinds of
    group are made (`kafkasim.coordinator.migration`); JoinGroup, SyncGroup, Heartbeat,
    LeaveGroup and OffsetCommit to a consumer group are answered by it, for its classic members.

    Share groups (KIP-932, 4.0+): the `group_share_*` arguments are Kafka's `group.share.*` broker
    configs (`GroupCoordinatorConfig`, `ShareGroupConfig`; None: the version's default), checked
    against Kafka's ranges and startup rules; before 4.0 they are accepted and unused, and
    `share_group_heartbeat` answers UNSUPPORTED_VERSION. Kafka ships share groups off in 4.0
    (early access, `group.share.enable`) and 4.1 (preview, feature `share.version=1`), on from 4.2:
    at the request level they are served from 4.0 as if switched on. `share_state_init_delay_ms`
    (kafkasim's, >= 0) is how long the share coordinator takes to answer InitializeShareGroupState
    (None: only `complete_share_init` answers it, as Kafka's unit tests drive it).
    4.1+: `group_share_assignors` (`group.share.assignors`, exactly one entry: simple). 4.3:
    `group_share_assignment_interval_ms` and its min/max (KIP-1263, as the consumer groups'), the
    bounds of the per-group delivery limit and record locks (KIP-1240). 4.4: the dead-letter queue
    (KIP-1191): `share_version` (the feature `share.version`; None: the version's default, 2 from 4.4,
    where a new cluster finalizes it; 2 turns the DLQ on), `errors_deadletterqueue_auto_create_topics_enable`
    and `errors_deadletterqueue_topic_name_prefix` (dynamic cluster configs, read as static here).
    """

    def __init__(self, sim: Simulation, *, topics: dict[str, int] | None = None,
                 group_consumer_session_timeout_ms: int | None = None,
                 group_consumer_heartbeat_interval_ms: int | None = None,
                 group_consumer_max_size: int | None = None, group_consumer_assignors=None,
                 group_consumer_assignment_interval_ms: int | None = None,
                 group_consumer_min_assignment_interval_ms: int | None = None,
                 group_consumer_max_assignment_interval_ms: int | None = None,
                 group_consumer_migration_policy: str | None = None,
                 group_share_session_timeout_ms: int | None = None,
                 group_share_heartbeat_interval_ms: int | None = None, group_share_max_size: int | None = None,
                 group_share_record_lock_duration_ms: int | None = None,
                 group_share_delivery_count_limit: int | None = None,
                 group_share_partition_max_record_locks: int | None = None,
                 group_share_min_session_timeout_ms: int | None = None,
                 group_share_max_session_timeout_ms: int | None = None,
                 group_share_min_heartbeat_interval_ms: int | None = None,
                 group_share_max_heartbeat_interval_ms: int | None = None,
                 group_share_min_record_lock_duration_ms: int | None = None,
                 group_share_max_record_lock_duration_ms: int | None = None,
                 group_share_assignors=None,
                 group_share_min_delivery_count_limit: int | None = None,
                 group_share_max_delivery_count_limit: int | None = None,
                 group_share_min_partition_max_record_locks: int | None = None,
                 group_share_max_partition_max_record_locks: int | None = None,
                 group_share_assignment_interval_ms: int | None = None,
                 group_share_min_assignment_interval_ms: int | None = None,
                 group_share_max_assignment_interval_ms: int | None = None,
                 errors_deadletterqueue_auto_create_topics_enable: bool | None = None,
                 errors_deadletterqueue_topic_name_prefix: str | None = None,
                 share_version: int | None = None,
                 share_state_init_delay_ms: int | None = None, **classic):
        super().__init__(sim, **classic)
        share_args = {k: v for k, v in locals().items() if k.startswith(("group_share_", "errors_deadletterqueue_"))}
        share_configs = share_broker_config(self.kafka_version, {_share_config_name(k): v for k, v in share_args.items()})
        self.consumer_groups = ConsumerGroupManager(
            sim, topics=topics, group_consumer_session_timeout_ms=group_consumer_session_timeout_ms,
            group_consumer_heartbeat_interval_ms=group_consumer_heartbeat_interval_ms,
            group_consumer_max_size=group_consumer_max_size, group_consumer_assignors=group_consumer_assignors,
            group_consumer_assignment_interval_ms=group_consumer_assignment_interval_ms,
            group_consumer_min_assignment_interval_ms=group_consumer_min_assignment_interval_ms,
            group_consumer_max_assignment_interval_ms=group_consumer_max_assignment_interval_ms,
            kafka_version=self.kafka_version, record_heartbeats=self.record_heartbeats,
            log=self.log.consumer_group if self.log.new_coordinator else None)
        policy = group_consumer_migration_policy
        if policy is None:  # the config's default in that version; none before 3.8
            policy = BROKER_CONFIGS["group.consumer.migration.policy"].default(self.kafka_version) or "disabled"
        self.migration = Migration(self, self.consumer_groups, policy)
        self.group_configs = GroupConfigs(self.kafka_version, {
            **_group_config_bounds(self.kafka_version, share_configs),
            "group.consumer.session.timeout.ms": self.consumer_groups.session_timeout_ms,
            "group.consumer.heartbeat.interval.ms": self.consumer_groups.heartbeat_interval_ms,
            "group.consumer.assignment.interval.ms": self.consumer_groups.assignment_interval_ms,
            **{name: value for name, value in (
                ("group.consumer.min.assignment.interval.ms", group_consumer_min_assignment_interval_ms),
                ("group.consumer.max.assignment.interval.ms", group_consumer_max_assignment_interval_ms))
               if value is not None}})
        self.consumer_groups.group_configs = self.group_configs
        self.share_groups = ShareGroupManager(
            sim, topics=self.consumer_groups.topics, configs=share_configs, group_configs=self.group_configs,
            kafka_version=self.kafka_version, share_state_init_delay_ms=share_state_init_delay_ms,
            share_version=share_version,
            record_heartbeats=self.record_heartbeats,
            log=self.log.share_group if self.log.new_coordinator else None)
        self.share_groups.other_type = self.group_type  # asked only for an id no share group holds
        self.share_groups.new_member_id = lambda: random_uuid(self._rng)
        self.consumer_groups.share_group_ids = self.share_groups.groups

    def set_group_config(self, group_id: str, configs) -> None:
        """Kafka's per-group dynamic configs (IncrementalAlterConfigs on a GROUP resource,
        `kafka-configs --entity-type groups`; `GroupConfig`): `consumer.session.timeout.ms`,
        `consumer.heartbeat.interval.ms`, `share.session.timeout.ms`, `share.heartbeat.interval.ms`,
        `share.record.lock.duration.ms`, `share.auto.offset.reset`, `share.isolation.level` (4.1+).
        None deletes an override; the group need not exist. ConfigError as Kafka's
        InvalidConfigurationException words it. Read at the next heartbeat (timeouts, intervals),
        when a lock is armed (lock duration), when a share partition initializes (reset). From 4.3
        also `consumer.assignment.interval.ms`, `share.assignment.interval.ms` (KIP-1263),
        `share.delivery.count.limit`, `share.partition.max.record.locks`,
        `share.renew.acknowledge.enable` (KIP-1240); from 4.4 `errors.deadletterqueue.topic.name`,
        `errors.deadletterqueue.copy.record.enable` (KIP-1191)."""
        self.group_configs.set(group_id, configs)

    def group_config(self, group_id: str) -> dict:
        """The group's dynamic config overrides ({} when none)."""
        return self.group_configs.get(group_id)

    def create_partitions(self, topic: str, partitions: int) -> None:
        """Create `topic`, or grow it to `partitions` (like `kafka-topics --alter --partitions`).
        Consumer and share groups subscribed to it notice at their next heartbeat."""
        self.consumer_groups.create_partitions(topic, partitions)
        self.share_groups.topic_changed(topic)

    def group_state(self, group_id: str) -> str | None:
        """The state of the classic, consumer-protocol or share group of that id ("Dead" once a
        modern group is deleted; None: no such group)."""
        if self.share_groups.has_group(group_id):
            return self.share_groups.group_state(group_id)
        if self.consumer_groups.has_group(group_id):
            return self.consumer_groups.group_state(group_id)
        classic = super().group_state(group_id)
        if classic is not None:
            return classic
        return self.share_groups.group_state(group_id) or self.consumer_groups.group_state(group_id)

    def delete_groups(self, group_ids: Iterable[str]) -> dict[str, Errors]:
        """DeleteGroups for every kind of group (`GroupCoordinatorService.deleteGroups`, then
        `GroupMetadataManager.deleteGroup`): a consumer or share group only when empty (else
        NON_EMPTY_GROUP), its committed offsets with it; classic groups as before."""
        group_ids = list(group_ids)
        result = {}
        for group_id in group_ids:
            for manager in (self.share_groups, self.consumer_groups):
                if manager.has_group(group_id):
                    result[group_id] = manager.delete_group(group_id)
                    if result[group_id] is Errors.NONE:
                        self.offsets.pop(group_id, None)
                    break
        result.update(super().delete_groups([g for g in group_ids if g not in result]))
        return {group_id: result[group_id] for group_id in group_ids}

    def member_ids(self, group_id: str) -> list[str]:
        if self.share_groups.has_group(group_id):
            return self.share_groups.member_ids(group_id)
        if self.consumer_groups.has_group(group_id):
            return self.consumer_groups.member_ids(group_id)
        return super().member_ids(group_id)

    def group_type(self, group_id: str) -> str | None:
        """"share", "consumer" or "classic" (Kafka's `Group.GroupType`), None when nothing holds the id."""
        if self.share_groups.has_group(group_id):
            return "share"
        if self.consumer_groups.has_group(group_id):
            return "consumer"
        return "classic" if group_id in self.groups else None

    # == classic requests to a consumer group (classic members, KIP-848 migration) ==============
    def join_group(self, group_id: str, member_id: str = "", group_instance_id: str | None = None,
                   session_timeout_ms: int = 45000, rebalance_timeout_ms: int = 300000,
                   protocol_type: str = PROTOCOL_TYPE, protocols=(("range", b""),),
                   require_known_member_id: bool = True, client_id: str = "consumer",
                   reason: str | None = None, supports_skip_assignment: bool | None = None,
                   callback: Callable | None = None) -> JoinGroupResponse:
        """JoinGroup (`classicGroupJoin`): a non-empty consumer group answers it at once for a
        classic member; an empty one first becomes a classic group; else the classic protocol."""
        if group_id in self.share_groups.groups:  # GMMT.testClassicGroupJoinOnShareGroup
            return self._to_share_group(group_id, member_id or client_id, "JoinGroup",
                                        JoinGroupResponse(member_id, callback), Errors.INCONSISTENT_GROUP_PROTOCOL)
        group = self.consumer_groups.groups.get(group_id)
        if group is not None and not group.members:
            self.migration.join_empty_consumer_group(group_id)
        elif group is not None:
            self._classic_row(group_id, member_id or client_id, "JoinGroup", reason=reason)
            answer = self.consumer_groups.classic_join(
                group_id, member_id, group_instance_id, session_timeout_ms, rebalance_timeout_ms, protocol_type,
                protocols, random_uuid(self._rng), require_known_member_id, client_id)
            resp = JoinGroupResponse(answer.member_id, callback)
            resp.generation_id, resp.protocol_type, resp.protocol_name = \
                answer.generation_id, PROTOCOL_TYPE, answer.protocol_name
            return self._classic_answer(group_id, "JoinGroupResponse", resp, answer, member_id or client_id)
        return ClassicGroupCoordinator.join_group(  # not super(): an object less on every JoinGroup
            self, group_id, member_id, group_instance_id, session_timeout_ms, rebalance_timeout_ms, protocol_type,
            protocols, require_known_member_id, client_id, reason, supports_skip_assignment, callback)

    def sync_group(self, group_id: str, member_id: str, generation_id: int, assignments: dict | None = None,
                   group_instance_id: str | None = None, protocol_type: str | None = None,
                   protocol_name: str | None = None, callback: Callable | None = None) -> SyncGroupResponse:
        if group_id in self.share_groups.groups:
            return self._to_share_group(group_id, member_id, "SyncGroup", SyncGroupResponse(callback))
        if group_id not in self.consumer_groups.groups:  # not super(): an object less on every request
            return ClassicGroupCoordinator.sync_group(self, group_id, member_id, generation_id, assignments,
                                                      group_instance_id, protocol_type, protocol_name, callback)
        answer = self.consumer_groups.classic_sync(group_id, member_id, generation_id, group_instance_id,
                                                   protocol_type, protocol_name)
        resp = SyncGroupResponse(callback)
        resp.assignment, resp.protocol_type, resp.protocol_name = answer.assignment, PROTOCOL_TYPE, answer.protocol_name
        return self._classic_answer(group_id, "SyncGroupResponse", resp, answer, member_id)

    def heartbeat(self, group_id: str, member_id: str, generation_id: int, group_instance_id: str | None = None,
                  callback: Callable | None = None) -> HeartbeatResponse:
        if group_id in self.share_groups.groups:
            return self._to_share_group(group_id, member_id, "Heartbeat", HeartbeatResponse(callback))
        if group_id not in self.consumer_groups.groups:
            return ClassicGroupCoordinator.heartbeat(self, group_id, member_id, generation_id, group_instance_id,
                                                     callback)
        error = self.consumer_groups.classic_heartbeat(group_id, member_id, generation_id, group_instance_id)
        if self.record_heartbeats or error is not Errors.NONE:
            self._classic_row(group_id, member_id, "Heartbeat", generation=generation_id, error=error)
        resp = HeartbeatResponse(callback)
        resp._complete(error)
        return resp

    def leave_group(self, group_id: str, members: Iterable, reason: str | None = None,
                    callback: Callable | None = None) -> LeaveGroupResponse:
        if self.share_groups.has_group(group_id):
            resp = LeaveGroupResponse(callback)
            resp.member_errors = {}
            return self._to_share_group(group_id, None, "LeaveGroup", resp)
        if not self.consumer_groups.has_group(group_id):
            return super().leave_group(group_id, members, reason, callback)
        items = [(m, None) if isinstance(m, str) else (m[0], m[1]) for m in members]
        for member_id, instance_id in items:
            self._classic_row(group_id, member_id or instance_id, "LeaveGroup", reason=reason)
        answer = self.consumer_groups.classic_leave(group_id, items, reason)
        resp = LeaveGroupResponse(callback)
        resp.member_errors = answer.member_errors
        resp._complete(Errors.NONE)
        return resp

    def _to_share_group(self, group_id: str, member: str | None, kind: str, resp,
                        error: Errors = Errors.UNKNOWN_MEMBER_ID):
        """A classic request to a share group's id (GMMT.test*OnShareGroup, 4.0-4.2): JoinGroup gets
        INCONSISTENT_GROUP_PROTOCOL, SyncGroup, Heartbeat and LeaveGroup UNKNOWN_MEMBER_ID; nothing changes."""
        self._rows.append((self.sim.now, "coordinator", group_id, member or None, kind, None, None, None,
                           error._name_, None, None, self.group_state(group_id)))
        resp._complete(error)
        return resp

    def _classic_answer(self, group_id: str, kind: str, resp, answer: ClassicAnswer, requester: str):
        member = answer.member_id or requester
        self._classic_row(group_id, member, kind, generation=answer.generation_id if answer.generation_id >= 0
                          else None, error=answer.error, reason=requester if member != requester else None)
        resp._complete(answer.error)
        return resp

    def _classic_row(self, group_id: str, member: str | None, kind: str, *, generation: int | None = None,
                     error: Errors | None = None, reason: str | None = None) -> None:
        """An event row as the classic coordinator writes it, for a request to a consumer group
        (generation: the group epoch unless given; state: the consumer group's)."""
        if generation is None:
            generation = self.consumer_groups.group_epoch(group_id)
        self._rows.append((self.sim.now, "coordinator", group_id, member or None, kind, generation, None, None,
                           None if error is None else error._name_, reason, None, self.group_state(group_id)))

    # == offsets ================================================================================
    def commit_offsets(self, group_id: str, member_id: str, generation_id: int, offsets: dict,
                       group_instance_id: str | None = None, callback=None):
        """OffsetCommit. To a consumer-protocol group the generation field carries the member epoch
        (OffsetCommit v9+), checked as `ConsumerGroup.validateOffsetCommit` does (4.0.0-4.2.0-rc1):
        a negative epoch commits only while the group is empty, an unknown member gets
        UNKNOWN_MEMBER_ID, another epoch STALE_MEMBER_EPOCH (ILLEGAL_GENERATION for a classic
        member). From 4.3 (KIP-1251, `ConsumerGroup.createAssignmentEpochValidator` at v8.3.0) an
        older epoch is accepted for each partition the member holds (assigned or pending
        revocation) since an epoch no later than it: assignment epoch <= commit epoch <= member
        epoch; one partition that fails the check fails the whole request (the validator throws
        out of `OffsetMetadataManager.commitOffset`), with STALE_MEMBER_EPOCH (113; ILLEGAL_GENERATION,
        22, for a classic member) on every partition, as `commitOffset`'s error response. Offsets
        are kept per group id (`store_offsets`), as Kafka's `OffsetMetadataManager` keeps them for
        either kind of group."""
        if self.share_groups.has_group(group_id):  # ShareGroup.validateOffsetCommit
            resp = OffsetCommitResponse(callback)
            resp.partition_errors = dict.fromkeys(offsets, Errors.GROUP_ID_NOT_FOUND)
            return self._to_share_group(group_id, member_id, "OffsetCommit", resp, Errors.GROUP_ID_NOT_FOUND)
        if not self.consumer_groups.has_group(group_id):
            return super().commit_offsets(group_id, member_id, generation_id, offsets, group_instance_id, callback)
        self.stats["requests"] += 1
        error = self._consumer_commit_error(group_id, member_id, generation_id, offsets)
        if error is Errors.NONE:
            self.store_offsets(group_id, offsets)
        resp = OffsetCommitResponse(callback)
        resp.partition_errors = dict.fromkeys(offsets, error)
        self._rows.append((self.sim.now, "coordinator", group_id, member_id or None, "OffsetCommit", generation_id,
                           None, None, error._name_, None, float(len(offsets)), self.group_state(group_id)))
        resp._complete(error)
        return resp

    def _consumer_commit_error(self, group_id: str, member_id: str, member_epoch: int, offsets: dict) -> Errors:
        groups = self.consumer_groups
        if member_epoch < 0 and not groups.member_ids(group_id):
            return Errors.NONE  # the admin client, or a consumer without group management
        try:
            member = groups.member(group_id, member_id)
        except KeyError:
            return Errors.UNKNOWN_MEMBER_ID
        if member_epoch == member.member_epoch:
            return Errors.NONE
        stale = Errors.ILLEGAL_GENERATION if member.classic is not None else Errors.STALE_MEMBER_EPOCH
        if member_epoch > member.member_epoch or not groups.rules.assignment_epochs:
            return stale
        for partition in offsets:  # KIP-1251: per partition, against the epoch it was assigned at
            topic, index = partition if isinstance(partition, tuple) else (None, partition)
            epoch = member.assignment_epoch(topic, index)
            if epoch is None or member_epoch < epoch:
                return stale
        return Errors.NONE

    consumer_group_heartbeat = _consumer_protocol("consumer_group_heartbeat")
    load_consumer_group = _consumer_protocol("load_consumer_group")
    target_assignment = _modern("target_assignment")
    target_assignment_epoch = _modern("target_assignment_epoch")
    group_epoch = _modern("group_epoch")
    member_epoch = _modern("member_epoch")
    previous_member_epoch = _modern("previous_member_epoch")
    member_state = _modern("member_state")
    assigned_partitions = _modern("assigned_partitions")
    partitions_pending_revocation = _modern("partitions_pending_revocation")

    share_group_heartbeat = _share("share_group_heartbeat")
    complete_share_init = _share("complete_share_init")
    load_share_group = _share("load_share_group")
    share_partition = _share("share_partition")


def _share_config_name(argument: str) -> str:
    """`group_share_max_size` -> `group.share.max.size`; `errors_deadletterqueue_topic_name_prefix` -> its dots."""
    if argument.startswith("errors_"):
        return argument.replace("_", ".")
    return "group.share." + argument[len("group_share_"):].replace("_", ".")


def _group_config_bounds(kafka_version: str, share_configs: dict) -> dict:
    """The broker min/max bounds `GroupConfig.validateValues` checks group configs against."""
    cfg = broker_config(kafka_version if BROKER_CONFIGS["group.consumer.min.session.timeout.ms"]
                        .exists_in(kafka_version) else "4.0")
    return {**{k: v for k, v in cfg.items() if k.startswith("group.consumer.m")}, **share_configs}
