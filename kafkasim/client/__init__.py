"""The Java consumer (`clients/src/main/java/org/apache/kafka/clients/consumer/`):

- `consumer`: the poll loop and group membership (`KafkaConsumer.java`, `ConsumerCoordinator.java`,
  `AbstractCoordinator.java`, `Heartbeat.java`);
- `consumer_membership`: the same consumer under `group.protocol=consumer` (KIP-848), Kafka 4's
  `AsyncKafkaConsumer` with `ConsumerMembershipManager.java` and `ConsumerHeartbeatRequestManager.java`;
- `assignors`: the client-side partition assignors of the classic protocol (`RangeAssignor.java`,
  `RoundRobinAssignor.java`, `StickyAssignor.java`, `CooperativeStickyAssignor.java`);
- `subscription_state`: `SubscriptionState.java`, which partitions are owned, paused, pending revocation;
- `fetch_buffer`: the completed fetches `poll()` drains (`Fetcher.java`, `FetchBuffer.java`);
- `pause_resume`: `pause()`/`resume()` across rebalances (KAFKA-13463), a small simulator of its own;
- `share_consumer`: `KafkaShareConsumer` in a share group (KIP-932): ShareGroupHeartbeat, ShareFetch,
  implicit and explicit acknowledgement (`ShareConsumerImpl.java`, `ShareMembershipManager.java`).

May import: `kafkasim.core`. The consumer reaches the coordinator through the scenario's world
at run time, never by importing it.
"""
