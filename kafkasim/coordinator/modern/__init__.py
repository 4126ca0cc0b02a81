"""The modern group protocols on the coordinator (Kafka 4's `org.apache.kafka.coordinator.group.modern`).

- `consumer/`: the consumer rebalance protocol of KIP-848 (`ConsumerGroupHeartbeat`): the broker
  computes a target assignment per group epoch and members reconcile to it one heartbeat at a time;
- `share/` (KIP-932) has no room yet.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`.
"""
