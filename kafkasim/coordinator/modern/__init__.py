"""The modern group protocols on the coordinator (Kafka 4's `org.apache.kafka.coordinator.group.modern`).

- `consumer/`: the consumer rebalance protocol of KIP-848 (`ConsumerGroupHeartbeat`): the broker
  computes a target assignment per group epoch and members reconcile to it one heartbeat at a time;
- `share/`: share groups of KIP-932 ("Queues for Kafka"): the ShareGroupHeartbeat
  (`ShareGroupManager`) and the share-partition state (`SharePartition`: acquisition locks,
  delivery counts, acknowledgements);
- `api`: what both heartbeats share (`ApiError`, `HeartbeatResponse`); `queries`: what both managers
  answer alike (`ModernGroupQueries`: queries by group and member, event rows; Kafka's `ModernGroup`). The two protocols never
  import each other (pyproject's "modern" contract): shared pieces live here.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`.
"""
