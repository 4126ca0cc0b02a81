"""Fetch sizing for large messages: how big one fetch response can get, what the consumer must
hold in memory, and where a 0.8.x response overflows its 32-bit size (KAFKA-1196).

Read from Kafka's source at the release tags:

* 0.8.2 ZooKeeper consumer: one fetcher thread per (leader broker, fetcher id) sends one fetch
  request at a time for all its partitions, each asking `fetch.message.max.bytes`
  (`AbstractFetcherThread`), so a response holds up to partitions x fetch.message.max.bytes and is
  read whole into the heap (`BoundedByteBufferReceive`). Each partition's data becomes a chunk in
  its stream's queue of `queued.max.message.chunks`.
* The broker adds the response size up in a Scala `Int` (`FetchResponse.sizeInBytes`,
  `TopicData.sizeInBytes` in `core/src/main/scala/kafka/api/FetchResponse.scala` @ 0.8.2.2; the
  same fold over `Int` through 0.10.x) and writes it as the 4-byte size prefix
  (`FetchResponseSend`: `buffer.putInt(size)`). Past 2147483647 bytes the sum wraps:

  - wrapped to -4 or below: `FetchResponseSend.complete` (sent >= 4 + size) is true before a
    byte is sent, so `writeTo` throws `KafkaException("This operation cannot be completed on a
    complete request.")`; the broker's network Processor logs "Closing socket for ... because of
    error" and closes the connection. The fetcher sees the connection drop, logs "Error in fetch",
    and sends the same request again, forever: the consumer gets no data while lag grows;
  - wrapped to -3 .. 0: the broker sends the size and the header, which makes 4 + size bytes or
    more, and counts the response as sent; the consumer's `BoundedByteBufferReceive` refuses the
    size (`InvalidRequestException("0 is not a valid request size.")`), the fetcher logs "Error in
    fetch" and gets no data on any retry;
  - wrapped to a smaller positive size: the consumer allocates a buffer of that size (an
    `OutOfMemoryError` if the heap cannot hold it), and parsing fails in
    `FetchResponsePartitionData.readFrom` at `messageSetBuffer.limit(messageSetSize)`
    (FetchResponse.scala line 34 @ 0.8.2.2): `IllegalArgumentException` from
    `java.nio.Buffer.limit` once a partition's data runs past the buffer, again on every retry.

  No 0.8.x commit references KAFKA-1196; the fix is structural: KIP-74 (0.10.1, KAFKA-2063) adds
  a response-level `fetch.max.bytes` (50 MiB) that the broker fills partition by partition.
* 0.9+ Java consumer: one fetch per leader broker at a time, `max.partition.fetch.bytes` per
  partition; from 0.10.1 the response is capped by `fetch.max.bytes` (from 2.5 also by the
  broker's `fetch.max.bytes`, KIP-541), and neither limit is absolute: the first batch of the first
  non-empty partition is returned whole, so a large message is never stuck. Before 0.10.1 a
  message larger than `max.partition.fetch.bytes` is stuck (`RecordTooLargeException`).

Simplifications: the consumer's partitions are dealt evenly over its leader brokers (and, in 0.8.2,
over `num.consumer.fetchers`; the real split follows a hash); "worst case" means every partition is
fully behind, so each returns its whole per-partition limit; wire headers follow the 0.8.2 layout
(v1+ responses add 4 bytes of throttle time); memory counts the bytes a consumer may hold, not
the JVM's overheads (a queued chunk is a slice of its response's buffer and keeps all of it alive,
which the bound below ignores). Sizes are bytes; `MiB` = 2**20, which the seed writes "MB".
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from kafkasim.core.config import (ZOOKEEPER_CONSUMER_VERSION, broker_config, consumer_config, version_tuple,
                     zookeeper_consumer_config)
from kafkasim.core.java import INT_MAX, int32
from kafkasim.core.errors import Errors, check_range

MiB = 1 << 20
GiB = 1 << 30

#: 0.8.2 fetch response layout (FetchResponse.scala): correlation id + topic count; per topic a
#: short string + partition count; per partition id + error code + high watermark + set size.
RESPONSE_HEADER_BYTES = 4 + 4
PARTITION_HEADER_BYTES = 4 + 2 + 8 + 4
#: The broker the 0.8.2 calculator configures: 0.9's configs and rules, which 0.8.2 shares.
BROKER_VERSION = "0.9"
#: The topic the calculators name when none is given: only its length counts (a short string).
TOPIC = "topic"


def topic_header_bytes(topic: str) -> int:
    return 2 + len(topic.encode()) + 4


def wire_size(partitions: int, bytes_per_partition: int, topic: str = TOPIC) -> int:
    """Exact 0.8.2 fetch response size (without the 4-byte size prefix) for `partitions` partitions
    of one topic, each carrying `bytes_per_partition` bytes of messages."""
    per_partition = PARTITION_HEADER_BYTES + bytes_per_partition
    return RESPONSE_HEADER_BYTES + topic_header_bytes(topic) + partitions * per_partition


def size_field_outcome(size: int) -> str:
    """What a 0.8.x broker and consumer do with a response of `size` bytes (see the module docstring)."""
    field = int32(size)
    if size <= INT_MAX:
        return "ok"
    if 4 + field <= 0:  # FetchResponseSend.complete: sent (0) >= 4 + size before the first write
        return (f"the size wraps to {field}: the broker throws KafkaException (\"This operation cannot be completed "
                "on a complete request.\") and closes the connection; the fetcher retries forever, no data")
    if field <= 0:      # BoundedByteBufferReceive.readFrom: size <= 0 is not a valid request size
        return (f"the size wraps to {field}: the broker sends the size and header and counts the response as sent; "
                f"the consumer throws InvalidRequestException (\"{field} is not a valid request size.\"); the fetcher "
                "retries, no data")
    return (f"the size wraps to {field}: the consumer allocates {field} bytes (OutOfMemoryError if the heap is "
            "smaller), then FetchResponsePartitionData.readFrom fails with IllegalArgumentException in "
            "Buffer.limit; the fetcher retries forever, no data")


def _workload(partitions, consumers, leader_brokers, consumers_per_jvm, message_bytes, fetchers=1) -> tuple:
    check_range("partitions", partitions, 1)
    check_range("consumers", consumers, 1)
    check_range("leader_brokers", leader_brokers, 1)
    check_range("consumers_per_jvm", consumers_per_jvm, 1, consumers)
    if message_bytes is not None:
        check_range("message_bytes", message_bytes, 1, INT_MAX)
    per_consumer = math.ceil(partitions / consumers)        # range: the first consumers get the extra one
    per_request = math.ceil(per_consumer / (leader_brokers * fetchers))
    return per_consumer, per_request


def _broker_problems(message_bytes: int | None, broker: dict, version: str) -> list[str]:
    """The broker's own limit, quoted as its log append words the refusal in `version` (Log.scala,
    UnifiedLog.scala: a message of exactly message.max.bytes is accepted)."""
    limit = broker["message.max.bytes"]
    if message_bytes is None or message_bytes <= limit:
        return []
    vt = version_tuple(version)
    text = ("Message size is ... bytes which exceeds the maximum configured message size of ..." if vt < (0, 11) else
            "The record batch size is ... bytes which exceeds the maximum configured value of ..." if vt < (2,) else
            "The record batch size in the append to ... is ... bytes which exceeds the maximum configured value of ...")
    return [f"message.max.bytes ({limit}) is below the message size ({message_bytes}): the broker rejects the "
            f"message (\"{text}\", {Errors.MESSAGE_TOO_LARGE.name} = {Errors.MESSAGE_TOO_LARGE.code})"]


def _overflow(config: str, limit: int, per_request: int, size: int) -> str:
    return (f"{config} ({limit}) x {per_request} partitions in one fetch request = {size} bytes, over Int.MaxValue "
            f"({INT_MAX}): {size_field_outcome(size)} (KAFKA-1196)")


def _result(version: str, kind: str, per_consumer: int, per_request: int, part_limit: int, response_limit,
            data: int, size: int | None, problems: list[str], ok_text: str, **extra) -> dict:
    """The calculators' common result (one row of `fetch_sizing`)."""
    return {"kafka_version": version, "consumer_type": kind, "partitions_per_consumer": per_consumer,
            "partitions_per_request": per_request, "partition_limit_bytes": part_limit,
            "response_limit_bytes": response_limit, "response_bytes": data, "wire_size_bytes": size,
            "size_field": None if size is None else int32(size), "overflow": size is not None and size > INT_MAX,
            **extra, "problems": problems, "ok": not problems, "message": " | ".join(problems) or ok_text}


def zookeeper_consumer_fetch(*, partitions: int, consumers: int = 1, message_bytes: int | None = None,
                             leader_brokers: int = 1, consumers_per_jvm: int = 1, streams_per_consumer: int = 1,
                             consumer: Mapping[str, Any] | None = None, broker: Mapping[str, Any] | None = None,
                             topic: str = TOPIC) -> dict:
    """Fetch sizing of the 0.8.2 ZooKeeper consumer for one topic of `partitions` partitions read by
    `consumers` connectors (`consumers_per_jvm` of them in one JVM), the largest message being
    `message_bytes` (default: fetch.message.max.bytes). `consumer` holds 0.8.2 consumer overrides
    (fetch.message.max.bytes, queued.max.message.chunks, num.consumer.fetchers); `broker` broker
    overrides (message.max.bytes, replica.fetch.max.bytes: 0.8.2 has 0.9's defaults and rule).

    `overflow` is True when the worst-case response is over Int.MaxValue; `message` says what
    breaks and which configs to change.
    """
    cfg = zookeeper_consumer_config(consumer)
    fetch, chunks, fetchers = (cfg["fetch.message.max.bytes"], cfg["queued.max.message.chunks"],
                               cfg["num.consumer.fetchers"])
    check_range("streams_per_consumer", streams_per_consumer, 1)
    per_consumer, per_request = _workload(partitions, consumers, leader_brokers, consumers_per_jvm, message_bytes,
                                          fetchers)
    b = broker_config(BROKER_VERSION, broker)
    message = fetch if message_bytes is None else message_bytes
    size = wire_size(per_request, fetch, topic)
    fits = (INT_MAX - RESPONSE_HEADER_BYTES - topic_header_bytes(topic)) // (PARTITION_HEADER_BYTES + fetch)
    problems = []
    if size > INT_MAX:
        problems.append(_overflow("fetch.message.max.bytes", fetch, per_request, size) + (
            # one partition alone overflows: more consumers cannot help
            ". Not even one such partition fits in one request: lower fetch.message.max.bytes (e.g. by compressing "
            "the messages)" if fits == 0 else
            f". At most {fits} such partitions fit in one request: use at least "
            f"{math.ceil(partitions / (fits * leader_brokers * fetchers))} consumers (or spread the partitions over "
            "more leader brokers, or lower fetch.message.max.bytes, e.g. by compressing the messages)"))
    if message > fetch:
        problems.append(f"fetch.message.max.bytes ({fetch}) is below the message size ({message}): "
                        "MessageSizeTooLargeException (\"Found a message larger than the maximum fetch size of this "
                        "consumer ...\"); the consumer is stuck at that offset")
    problems += _broker_problems(message_bytes, b, BROKER_VERSION)
    return _result(
        ZOOKEEPER_CONSUMER_VERSION, "ZooKeeper consumer", per_consumer, per_request, fetch, None, per_request * fetch,
        size, problems, "ok: the worst-case response fits in Int.MaxValue",
        max_partitions_per_request=fits, message_too_large=message > fetch,
        heap_bytes_seed_formula=consumers_per_jvm * per_consumer * chunks * fetch,
        heap_bytes=consumers_per_jvm * (streams_per_consumer * chunks + per_consumer) * fetch,
        configs={"fetch.message.max.bytes": fetch, "queued.max.message.chunks": chunks,
                 "num.consumer.fetchers": fetchers, "message.max.bytes": b["message.max.bytes"],
                 "replica.fetch.max.bytes": b["replica.fetch.max.bytes"]})


def java_consumer_fetch(kafka_version: str, *, partitions: int, consumers: int = 1, message_bytes: int | None = None,
                        leader_brokers: int = 1, consumers_per_jvm: int = 1, consumer: Mapping[str, Any] | None = None,
                        broker: Mapping[str, Any] | None = None, topic: str = TOPIC) -> dict:
    """The same workload for the Java consumer of `kafka_version` (0.9+), at that version's
    defaults with `consumer`/`broker` overrides: max.partition.fetch.bytes per partition, and from
    0.10.1 fetch.max.bytes per response (KIP-74), capped by the broker's fetch.max.bytes from 2.5
    (KIP-541). `heap_bytes` is one response per leader broker per consumer (derived: the consumer
    keeps one fetch in flight per broker and sends no new one for partitions with buffered data).
    """
    cfg, b = consumer_config(kafka_version, consumer), broker_config(kafka_version, broker)
    kip74 = version_tuple(kafka_version) >= (0, 10, 1)
    per_consumer, per_request = _workload(partitions, consumers, leader_brokers, consumers_per_jvm, message_bytes)
    part_limit = cfg["max.partition.fetch.bytes"]
    message = part_limit if message_bytes is None else message_bytes
    limits = [v for v in (cfg["fetch.max.bytes"], b["fetch.max.bytes"]) if v is not None]
    response_limit = min(limits) if limits else None
    data = per_request * part_limit
    if kip74:
        # Limits are not absolute: the first batch of the first non-empty partition comes back whole.
        data = max(min(data, response_limit), message)
    size = wire_size(per_request, part_limit, topic) if not kip74 else None
    problems = []
    if size is not None and size > INT_MAX:
        problems.append(_overflow("max.partition.fetch.bytes", part_limit, per_request, size)
                        + "; Kafka 0.10.1+ bounds the response with fetch.max.bytes (KIP-74)")
    if not kip74 and message > part_limit:
        problems.append(f"max.partition.fetch.bytes ({part_limit}) is below the message size ({message}): "
                        "RecordTooLargeException (\"There are some messages at [Partition=Offset]: ... whose size is "
                        "larger than the fetch size ... and hence cannot be ever returned\")")
    problems += _broker_problems(message_bytes, b, kafka_version)
    return _result(
        kafka_version, "Java consumer", per_consumer, per_request, part_limit, response_limit, data, size, problems,
        "ok: the response is bounded" if kip74 else "ok: the worst-case response fits in Int.MaxValue",
        max_partitions_per_request=None, message_too_large=not kip74 and message > part_limit,
        heap_bytes_seed_formula=None, heap_bytes=consumers_per_jvm * min(leader_brokers, per_consumer) * data,
        configs={"max.partition.fetch.bytes": part_limit, "fetch.max.bytes": cfg["fetch.max.bytes"],
                 "broker fetch.max.bytes": b["fetch.max.bytes"], "message.max.bytes": b["message.max.bytes"],
                 "replica.fetch.max.bytes": b["replica.fetch.max.bytes"]})


def fetch_sizing(versions=("0.8.2", "0.9", "0.10.1", "2.5", "3.7"), *, consumer_by_version: Mapping | None = None,
                 **workload):
    """One row per version for the same workload (keyword arguments of the calculators):
    a DataFrame a chapter can chart. `consumer_by_version` maps a version to its consumer
    overrides ({"0.8.2": {"fetch.message.max.bytes": ...}, "0.9": {...}})."""
    import pandas as pd

    rows = []
    for version in versions:
        overrides = (consumer_by_version or {}).get(version)
        if version == ZOOKEEPER_CONSUMER_VERSION:
            row = zookeeper_consumer_fetch(consumer=overrides, **workload)
        else:
            row = java_consumer_fetch(version, consumer=overrides, **workload)
        rows.append({k: v for k, v in row.items() if k not in ("configs", "problems")})
    df = pd.DataFrame(rows)
    for column in ("response_limit_bytes", "wire_size_bytes", "size_field", "max_partitions_per_request",
                   "heap_bytes_seed_formula"):
        df[column] = df[column].astype("Int64")   # exact integers, <NA> where a version has none
    return df


# -- the seed's large-message incident ---------------------------------------------------------
def _carries(message_bytes: int) -> dict:
    """Broker overrides that accept and replicate a message of `message_bytes` (replica.fetch.max.bytes
    kept at its 1 MiB default or more)."""
    return {"message.max.bytes": message_bytes, "replica.fetch.max.bytes": max(message_bytes, MiB)}


def seed_large_messages() -> dict:
    """The large-message incident (seed 003), computed as the seed computes it (MB = 2**20 bytes,
    GB = 2**30), next to the calculator's exact results.

    Before: one book-keeping consumer for a 360-partition topic with 300 MB messages. After:
    gzip brings the largest message to 50 MB, and the book-keeping group runs 8 consumers in one
    JVM with 45 partitions each and queued.max.message.chunks = 1. The largest message is the
    fetch size each time (the calculators' default), and the brokers are configured to carry it.

    The seed rounds 105.47 GB down to 105 and 17.58 GB up to 18. By its inequality
    (300 MB x 360 / consumers < 2 GB) 53 consumers would do; partitions come whole, so 53 consumers
    still give one of them 7 x 300 MB = 2100 MB > 2048 MB: the calculator asks for 60. After the fix,
    by the seed's own worst case (every partition of a consumer led by one broker), 45 x 50 MB =
    2250 MB is still over 2048 MB; it fits once the 45 partitions have two or more leaders.
    """
    before = zookeeper_consumer_fetch(partitions=360, consumer={"fetch.message.max.bytes": 300 * MiB},
                                      broker=_carries(300 * MiB))
    after = dict(partitions=360, consumers=8, consumers_per_jvm=8,
                 consumer={"fetch.message.max.bytes": 50 * MiB, "queued.max.message.chunks": 1},
                 broker=_carries(50 * MiB))
    bookkeeping = zookeeper_consumer_fetch(**after)
    response_mb = 300 * 360                           # f(m, max_size) x f(p, consumer) = 108000 MB
    heap_mb = 8 * 45 * 1 * 50                         # f(c, jvm) x f(p, consumer) x f(buf, partition) x f(m, max_size)
    return {
        # The seed's own arithmetic.
        "response_mb": response_mb,
        "response_gb": response_mb / 1024,            # 105.47: the seed writes "105 GB (approximately)"
        "heap_mb": heap_mb,
        "heap_gb": heap_mb / 1024,                    # 17.58: the seed writes "18 GB (approximately)"
        "limit_gb": 2,                                # "maximum of 2 GB": exactly Int.MaxValue = 2**31 - 1 bytes
        "max_heap_gb": 24,                            # configured: 18 GB for Kafka + 2 GB for the app + headroom
        # The calculator on the same inputs.
        "before": before,
        "bookkeeping_after": bookkeeping,
        "bookkeeping_after_two_leaders": zookeeper_consumer_fetch(leader_brokers=2, **after),
    }


def sizing_for_message(message_bytes: int, *, versions=("0.8.2", "0.9", "0.10.1", "3.7"), chunks: int | None = None,
                       **workload):
    """`fetch_sizing` for a workload whose largest message is `message_bytes`, each version
    configured just enough to carry it, as an operator would: the broker's message.max.bytes set to
    it (replica.fetch.max.bytes too, from its 1 MiB default up), and the per-partition fetch size
    raised to it where a larger message would be stuck (fetch.message.max.bytes in 0.8.2,
    max.partition.fetch.bytes in 0.9 and 0.10.0). From 0.10.1 the defaults stay: KIP-74 returns an
    oversized first batch whole. `chunks` sets 0.8.2's queued.max.message.chunks."""
    check_range("message_bytes", message_bytes, 1, INT_MAX)
    part = max(message_bytes, MiB)
    broker = _carries(message_bytes)
    zk = {"fetch.message.max.bytes": part, **({"queued.max.message.chunks": chunks} if chunks is not None else {})}
    by_version = {v: (zk if v == ZOOKEEPER_CONSUMER_VERSION else
                      None if version_tuple(v) >= (0, 10, 1) else {"max.partition.fetch.bytes": part})
                  for v in versions}
    return fetch_sizing(versions, consumer_by_version=by_version, message_bytes=message_bytes, broker=broker,
                        **workload)
