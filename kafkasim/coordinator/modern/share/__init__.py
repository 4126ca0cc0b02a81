"""Share groups (KIP-932, "Queues for Kafka") on the coordinator: ShareGroupHeartbeat and the
share-partition state.

Kafka keeps `SharePartition` on the partition leader (`core/src/main/java/kafka/server/share/
SharePartition.java`, package `kafka.server.share`) and persists it through the share
coordinator (`share-coordinator/.../ShareCoordinatorShard.java`); kafkasim keeps it here, beside
the share group, so that one coordinator front serves every kind of group (as Kafka 4's
`GroupMetadataManager` does for the groups themselves).

    from kafkasim import Simulation
    from kafkasim.coordinator.modern.share import SharePartition
    sim = Simulation(seed=0)
    sp = SharePartition(sim, "g", "foo", 0, kafka_version="4.2")
    sp.acquire("m1", 500, log_batches=[(0, 99), (100, 149)])
        # [AcquiredRecords(first_offset=0, last_offset=149, delivery_count=1)]
    sp.acknowledge("m1", [(0, 99, "ACCEPT"), (100, 149, "RELEASE")])   # Errors.NONE
    sp.start_offset, sp.next_fetch_offset                               # 100, 100
    sim.advance(30001)                                                  # locks expire

Landed: `SharePartition` (acquire, acknowledge with ACCEPT/RELEASE/REJECT/GAP/RENEW, release_all,
lock expiry as simulation timers, delivery counts and the limit, the in-flight cap, throttled
redelivery, record_limit mode, load_state, persisted_state for a leader failover) per Kafka 4.0,
4.1, 4.2 and 4.3's per-group limits; the `simple` assignor is in `kafkasim.coordinator.assignor.simple`.

Landed (the coordinator step): `ShareGroupManager` (`manager`: ShareGroupHeartbeat as
`GroupMetadataManager.shareGroupHeartbeat` / `shareGroupLeave` run it, with `group` for
`ShareGroup.java` / `ShareGroupMember.java`, `rules` for the 4.0 / 4.1 / 4.2 switches, share-state
initialization before assignment from 4.1, session fencing, `load_share_group`, `share_partition`),
held by `GroupCoordinator` as `share_groups`; per-group configs are `modern.group_config`'s.

Landed (4.3 and 4.4, confluentinc/kafka branches 4.3 and 4.4): the share assignment interval
(KIP-1263, `modern.assignment_interval`), the per-group limits as group configs (KIP-1240), the
dead-letter queue (KIP-1191, `share.version=2`: `DlqRecord`, `ShareGroupManager.dlq_write`), the
emptied group's target epoch (KAFKA-20442) and known topics' new partitions at offset 0 (KAFKA-20742).

Still to come: the log start offset moving past SPSO (retention, DeleteRecords).

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`, `kafkasim.coordinator.modern.api`,
`kafkasim.coordinator.modern.group_config`.
"""

from kafkasim.coordinator.assignor.simple import share_version
from kafkasim.coordinator.modern.share.partition import (
    ACK_TYPE_TO_RECORD_STATE, ACKNOWLEDGE_TYPES, CLIENT_REJECT, DELIVERY_COUNT_EXCEEDED, AcquiredRecords, DlqRecord,
    SharePartition, SharePartitionRules)
from kafkasim.coordinator.modern.share.group import ShareGroup, ShareGroupMember
from kafkasim.coordinator.modern.share.manager import SHARE_BROKER_CONFIGS, ShareGroupManager, share_broker_config
from kafkasim.coordinator.modern.share.responses import ShareGroupHeartbeatResponse
from kafkasim.coordinator.modern.share.rules import ShareRules
from kafkasim.coordinator.modern.share.state import (
    ACKNOWLEDGED, ACQUIRED, ARCHIVED, AVAILABLE, EMPTY_MEMBER_ID, RECORD_STATE_IDS, InFlightBatch, InFlightState)

__all__ = ["ShareGroupManager", "ShareGroupHeartbeatResponse", "ShareGroup", "ShareGroupMember", "ShareRules",
           "share_broker_config", "SHARE_BROKER_CONFIGS", "SharePartition", "AcquiredRecords", "DlqRecord",
           "CLIENT_REJECT", "DELIVERY_COUNT_EXCEEDED", "SharePartitionRules", "share_version", "InFlightBatch",
           "InFlightState", "AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ARCHIVED", "EMPTY_MEMBER_ID",
           "RECORD_STATE_IDS", "ACKNOWLEDGE_TYPES", "ACK_TYPE_TO_RECORD_STATE"]
