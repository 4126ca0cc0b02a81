"""The group coordinator: the broker side of consumer groups (Kafka's `group-coordinator` module,
and before 4.0 `core/src/main/scala/kafka/coordinator/group/`).

Rooms, as in Kafka 4's `org.apache.kafka.coordinator.group`:

- `group_coordinator`: `GroupCoordinator`, the one front serving both kinds of group, as Kafka 4's
  `GroupMetadataManager.java` does;
- `classic/`: the classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), Kafka's
  `GroupCoordinator.scala` through 3.9 and `classic/ClassicGroup*.java` from 4.0;
- `modern/consumer/`: the consumer protocol (KIP-848, `ConsumerGroupHeartbeat`),
  `modern/consumer/ConsumerGroup.java` and `CurrentAssignmentBuilder.java`; share groups (KIP-932)
  will land beside it in `modern/share/`;
- `assignor/`: the server-side assignors of KIP-848 (`UniformAssignor.java`, `RangeAssignor.java`);
- `broker_log`: the coordinator's lines in `server.log` (INFO and above, as Kafka's default
  log4j configuration keeps them), worded per Kafka version, classic and consumer groups alike;
- `group_size`: `group.max.size` (KIP-389) experiments run against the coordinator.

Inside, `classic` and `modern` do not import each other; the front stands on both.

May import: `kafkasim.core`. Never the client, the broker network, the scenario layer, analysis or views.
"""

from kafkasim.coordinator.group_coordinator import GroupCoordinator

__all__ = ["GroupCoordinator"]
