"""The ZooKeeper era: the Kafka 0.8.2 high-level consumer (`consumer_connector`:
`ZookeeperConsumerConnector.scala`) and the ZooKeeper 3.4 ensemble it coordinates through
(`ensemble`: znodes, sessions, one-shot watches), with their rebalance storms.

May import: `kafkasim.core`.
"""
