"""The core every model stands on: the discrete-event engine (`engine`), the one event schema
(`events`), Kafka's error codes and kafkasim's input errors (`errors`), consumer and broker
configs by Kafka version (`config`), Java's integer semantics (`java`) and the faults a scenario
injects (`faults`).

Kafka parts followed: `clients/.../common/protocol/Errors.java`, `ConsumerConfig.java`,
`KafkaConfig.scala` and the group coordinator configs (see each module).

May import: the standard library, numpy, pandas, pyarrow. Nothing else of kafkasim.
"""
