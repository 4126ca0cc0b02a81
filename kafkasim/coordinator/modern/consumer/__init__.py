"""The consumer rebalance protocol of KIP-848 on the coordinator (`group.protocol=consumer`).

Kafka source: `group-coordinator/src/main/java/org/apache/kafka/coordinator/group/` at the 4.x tags:
`GroupMetadataManager.java` (`manager`), `modern/consumer/ConsumerGroup.java` and
`ConsumerGroupMember.java` (`group`), `modern/consumer/CurrentAssignmentBuilder.java`
(`reconciliation`), and the server-side assignors (`kafkasim.coordinator.assignor`).

    from kafkasim import Simulation
    from kafkasim.coordinator.modern.consumer import ConsumerGroupManager
    sim = Simulation(seed=0)
    groups = ConsumerGroupManager(sim, topics={"foo": 6})
    r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=300000,
                                        subscribed_topic_names=["foo"], owned_partitions={})
    r.member_epoch, r.assignment      # 1, {"foo": [0, 1, 2, 3, 4, 5]}

`GroupCoordinator` (from `kafkasim`) holds one as `consumer_groups` and forwards the same methods.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`.
"""

from kafkasim.coordinator.modern.consumer.group import (
    ASSIGNING, DEAD, EMPTY_STATE, GROUP_STATES, MEMBER_STATES, RECONCILING, STABLE, STABLE_STATE, UNKNOWN,
    UNRELEASED_PARTITIONS, UNREVOKED_PARTITIONS, ConsumerGroup, ConsumerGroupMember)
from kafkasim.coordinator.modern.consumer.manager import ConsumerGroupManager
from kafkasim.coordinator.modern.consumer.reconciliation import Reconciler, Rules
from kafkasim.coordinator.modern.consumer.responses import ApiError, ConsumerGroupHeartbeatResponse
from kafkasim.coordinator.modern.consumer.rules import ProtocolRules

__all__ = ["ConsumerGroupManager", "ConsumerGroupHeartbeatResponse", "ConsumerGroup", "ConsumerGroupMember",
           "Reconciler", "Rules", "ProtocolRules", "ApiError", "GROUP_STATES", "MEMBER_STATES", "EMPTY_STATE",
           "ASSIGNING", "RECONCILING", "STABLE_STATE", "DEAD", "STABLE", "UNREVOKED_PARTITIONS",
           "UNRELEASED_PARTITIONS", "UNKNOWN"]
