"""The classic consumer-group protocol on the coordinator: JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit; the group states Empty, PreparingRebalance, CompletingRebalance,
Stable and Dead; static membership (KIP-345) and `group.max.size` (KIP-389). `group` holds the
group, its members and the state rules; `coordinator` answers the requests and runs the timers.

Kafka source: `core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala`,
`GroupMetadata.scala`, `MemberMetadata.scala` (through 3.9); `group-coordinator/src/main/java/
org/apache/kafka/coordinator/group/classic/` and `GroupMetadataManager.java` (4.0+).

May import: `kafkasim.core` and `kafkasim.coordinator.broker_log`; never `modern` (the front,
`kafkasim.coordinator.group_coordinator`, joins the two).
"""
