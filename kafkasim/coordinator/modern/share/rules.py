"""Which Kafka release's share-group coordinator rules apply, by `kafka_version`.

Read from `GroupMetadataManager.java` (`shareGroupHeartbeat`, `shareGroupLeave`,
`throwIfShareGroupMemberEpochIsInvalid`), `GroupCoordinatorService.java`
(`throwIfShareGroupHeartbeatRequestIsInvalid`) and `KafkaApis.scala` (`handleShareGroupHeartbeat`)
at 4.0.0, 4.1.1 and 4.2.0 (Confluent's v8.0.0, v8.1.0, v8.2.0), and the 4.3 / 4.4 switches at
confluentinc/kafka branches 4.3 and 4.4. The share-partition rules are
`partition.SharePartitionRules`, the assignor's generations `kafkasim.coordinator.assignor.simple`.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkasim.coordinator.assignor.simple import generation
from kafkasim.core.config import normalize_version, parse_version


@dataclass(frozen=True)
class ShareRules:
    """Version switches of the share-group heartbeat.

    - `served`: share groups exist (4.0+); before, every ShareGroupHeartbeat gets UNSUPPORTED_VERSION;
    - `assignor`: the simple assignor's generation ("all" 4.0, "hash" 4.1, "sharing" 4.2+);
    - `init_gate` (4.1+): only partitions whose share state is initialized are assignable
      (InitializeShareGroupState, `initializedAssignmentPending`);
    - `validate_request` (4.1+): `throwIfShareGroupHeartbeatRequestIsInvalid`; 4.0 generates a
      member id for an empty one (`Uuid.randomUuid()`);
    - `member_id_checked_by_apis` (4.2): `KafkaApis` refuses an empty or > 36-character member id;
    - `rejoin_with_epoch_zero` (4.2): epoch 0 from a known member is accepted (keeps its epoch);
    - `full_request_sends_assignment` (4.1+): SubscribedTopicNames set sends the assignment;
    - `unknown_group_not_found` (4.1+): a non-zero epoch for an unknown group is GROUP_ID_NOT_FOUND;
      4.0 throws IllegalStateException (`getOrMaybeCreatePersistedShareGroup`): UNKNOWN_SERVER_ERROR;
    - `new_metadata_log` (4.1+): the epoch-bump line carries the metadata hash;
    - `initial_group_epoch` (4.3, KAFKA-20268): a new group starts at epoch 1;
    - `init_retry_interval_ms`: an initializing entry older than this is retried (4.1: 2 x
      offsets.commit.timeout.ms = 10000, hard-coded; 4.2: group.share.initialize.retry.interval.ms, 30000);
    - `assignment_interval` (4.3, KIP-1263): a target is computed at most once per
      `group.share.assignment.interval.ms` (`canComputeNextTargetAssignment`), and initialized
      partitions bump the epoch only when no target is pending (`assignmentEpoch >= groupEpoch`);
    - `empty_group_catches_up` (4.4, KAFKA-20442): fencing the last member sets the target epoch to
      the new group epoch with timestamp 0 (`shareGroupFenceMember`);
    - `known_topic_starts_at_zero` (4.4, KAFKA-20742): partitions added to a topic the group already
      initialized start at offset 0, not at `share.auto.offset.reset`.
    """

    version: tuple[int, int]
    served: bool
    assignor: str | None
    init_gate: bool
    validate_request: bool
    member_id_checked_by_apis: bool
    rejoin_with_epoch_zero: bool
    full_request_sends_assignment: bool
    unknown_group_not_found: bool
    new_metadata_log: bool
    initial_group_epoch: int
    init_retry_interval_ms: int
    assignment_interval: bool
    empty_group_catches_up: bool
    known_topic_starts_at_zero: bool

    @classmethod
    def for_version(cls, kafka_version) -> "ShareRules":
        full = (tuple(parse_version(kafka_version)) + (0, 0, 0))[:3]
        normalize_version(full)  # a version kafkasim does not model is refused
        v = full[:2]
        served, since_41, since_42 = v >= (4, 0), v >= (4, 1), v >= (4, 2)
        return cls(version=v, served=served, assignor=generation(kafka_version) if served else None,
                   init_gate=since_41, validate_request=since_41, member_id_checked_by_apis=since_42,
                   rejoin_with_epoch_zero=since_42, full_request_sends_assignment=since_41,
                   unknown_group_not_found=since_41, new_metadata_log=since_41,
                   initial_group_epoch=1 if v >= (4, 3) else 0,
                   init_retry_interval_ms=30000 if since_42 else 10000, assignment_interval=v >= (4, 3),
                   empty_group_catches_up=v >= (4, 4), known_topic_starts_at_zero=v >= (4, 4))


__all__ = ["ShareRules"]
