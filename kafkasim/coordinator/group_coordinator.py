"""The one group coordinator of a broker, serving classic and consumer-protocol groups side by
side, as Kafka 4's `GroupMetadataManager` does (`group-coordinator/src/main/java/org/apache/kafka/
coordinator/group/GroupMetadataManager.java`): JoinGroup, SyncGroup, Heartbeat and LeaveGroup go
to the classic groups (`classic.coordinator.ClassicGroupCoordinator`), ConsumerGroupHeartbeat to the
consumer groups (`modern.consumer.ConsumerGroupManager`, KIP-848), OffsetCommit to either kind. Both
write to one broker log (`broker_log`): the consumer groups' lines through the manager's log hook,
`BrokerLog.consumer_group`, from 4.0 (the release whose coordinator writes them by default).

May import: `kafkasim.core` and the coordinator's rooms (`classic`, `modern`, `assignor`, `broker_log`).
"""

from __future__ import annotations

from kafkasim.coordinator.classic.coordinator import ClassicGroupCoordinator, OffsetCommitResponse
from kafkasim.coordinator.modern.consumer import ConsumerGroupManager
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import Errors


def _consumer_protocol(name: str):
    """A GroupCoordinator method answered by its ConsumerGroupManager (same signature and doc)."""
    def forward(self, *args, **kwargs):
        return getattr(self.consumer_groups, name)(*args, **kwargs)
    forward.__name__ = forward.__qualname__ = name
    forward.__doc__ = getattr(ConsumerGroupManager, name).__doc__
    forward.__wrapped__ = getattr(ConsumerGroupManager, name)
    return forward


class GroupCoordinator(ClassicGroupCoordinator):
    """One broker's group coordinator: the classic protocol's requests (see ClassicGroupCoordinator)
    and the consumer protocol's `consumer_group_heartbeat`, on one clock and one event log.

    `topics` are the cluster's topics ({name: partitions}) that consumer groups subscribe to; the
    `group_consumer_*` arguments are Kafka's `group.consumer.*` broker configs (None: 4.x defaults).
    """

    def __init__(self, sim: Simulation, *, topics: dict[str, int] | None = None,
                 group_consumer_session_timeout_ms: int | None = None,
                 group_consumer_heartbeat_interval_ms: int | None = None,
                 group_consumer_max_size: int | None = None, group_consumer_assignors=None, **classic):
        super().__init__(sim, **classic)
        self.consumer_groups = ConsumerGroupManager(
            sim, topics=topics, group_consumer_session_timeout_ms=group_consumer_session_timeout_ms,
            group_consumer_heartbeat_interval_ms=group_consumer_heartbeat_interval_ms,
            group_consumer_max_size=group_consumer_max_size, group_consumer_assignors=group_consumer_assignors,
            kafka_version=self.kafka_version, record_heartbeats=self.record_heartbeats,
            log=self.log.consumer_group if self.log.new_coordinator else None)

    def group_state(self, group_id: str) -> str | None:
        """The state of the classic or consumer-protocol group of that id (None: no such group)."""
        if self.consumer_groups.has_group(group_id):
            return self.consumer_groups.group_state(group_id)
        return super().group_state(group_id)

    def member_ids(self, group_id: str) -> list[str]:
        if self.consumer_groups.has_group(group_id):
            return self.consumer_groups.member_ids(group_id)
        return super().member_ids(group_id)

    def commit_offsets(self, group_id: str, member_id: str, generation_id: int, offsets: dict,
                       group_instance_id: str | None = None, callback=None):
        """OffsetCommit. To a consumer-protocol group the generation field carries the member epoch
        (OffsetCommit v9+), checked as `ConsumerGroup.validateOffsetCommit` does (4.0.0-4.2.0-rc1):
        a negative epoch commits only while the group is empty, an unknown member gets
        UNKNOWN_MEMBER_ID, another epoch STALE_MEMBER_EPOCH. Offsets are kept per group id, as
        Kafka's `OffsetMetadataManager` keeps them for either kind of group."""
        if not self.consumer_groups.has_group(group_id):
            return super().commit_offsets(group_id, member_id, generation_id, offsets, group_instance_id, callback)
        self.stats["requests"] += 1
        error = self._consumer_commit_error(group_id, member_id, generation_id)
        if error is Errors.NONE:
            error = super()._commit(group_id, "", -1, offsets, None)  # the group id's offset store
        resp = OffsetCommitResponse(callback)
        resp.partition_errors = dict.fromkeys(offsets, error)
        self._rows.append((self.sim.now, "coordinator", group_id, member_id or None, "OffsetCommit", generation_id,
                           None, None, error._name_, None, float(len(offsets)), self.group_state(group_id)))
        resp._complete(error)
        return resp

    def _consumer_commit_error(self, group_id: str, member_id: str, member_epoch: int) -> Errors:
        groups = self.consumer_groups
        if member_epoch < 0 and not groups.member_ids(group_id):
            return Errors.NONE  # the admin client, or a consumer without group management
        try:
            expected = groups.member_epoch(group_id, member_id)
        except KeyError:
            return Errors.UNKNOWN_MEMBER_ID
        return Errors.NONE if member_epoch == expected else Errors.STALE_MEMBER_EPOCH

    consumer_group_heartbeat = _consumer_protocol("consumer_group_heartbeat")
    load_consumer_group = _consumer_protocol("load_consumer_group")
    create_partitions = _consumer_protocol("create_partitions")
    target_assignment = _consumer_protocol("target_assignment")
    target_assignment_epoch = _consumer_protocol("target_assignment_epoch")
    group_epoch = _consumer_protocol("group_epoch")
    member_epoch = _consumer_protocol("member_epoch")
    member_state = _consumer_protocol("member_state")
    assigned_partitions = _consumer_protocol("assigned_partitions")
    partitions_pending_revocation = _consumer_protocol("partitions_pending_revocation")
