"""Fetch sizing: the seed's large-message figures, the 0.8.2 Int overflow (KAFKA-1196), and what
KIP-74's fetch.max.bytes changes. Byte counts are worked out here from the 0.8.2 FetchResponse
layout (FetchResponse.scala @ 0.8.2.2), not read back from the module."""

import re

import pytest

from kafkasim.core.errors import ConfigError
from kafkasim.core.java import INT_MAX, int32
from kafkasim.broker.fetch_sizing import (MiB, fetch_sizing, java_consumer_fetch, seed_large_messages,
                                          size_field_outcome, sizing_for_message, wire_size, zookeeper_consumer_fetch)


def by_hand(partitions, per_partition, topic="topic"):
    # correlationId 4 + topic count 4; topic: short string (2 + name) + partition count 4;
    # per partition: id 4 + error 2 + hw 8 + message set size 4 + the messages
    return 4 + 4 + (2 + len(topic) + 4) + partitions * (4 + 2 + 8 + 4 + per_partition)


def test_wire_size_follows_the_082_layout():
    assert wire_size(360, 300 * MiB) == by_hand(360, 300 * MiB)
    assert wire_size(3, 10, "orders") == by_hand(3, 10, "orders")


def test_int32_wraps_like_the_jvm():
    assert int32(INT_MAX) == INT_MAX and int32(INT_MAX + 1) == -(2**31)
    assert int32(2**32 + 5) == 5 and int32(-1) == -1


@pytest.mark.parametrize("fetch, fits", [(MiB, 2047), (10 * MiB, 204)])
def test_overflow_threshold(fetch, fits):
    # spec E.7: with 1 MiB per partition about 2048 fully lagging partitions overflow, with 10 MiB about 205
    ok = zookeeper_consumer_fetch(partitions=fits, consumer={"fetch.message.max.bytes": fetch})
    over = zookeeper_consumer_fetch(partitions=fits + 1, consumer={"fetch.message.max.bytes": fetch})
    assert not ok["overflow"] and ok["ok"] and ok["max_partitions_per_request"] == fits
    assert over["overflow"] and by_hand(fits + 1, fetch) > INT_MAX >= by_hand(fits, fetch)


def test_seed_figures_as_the_seed_computes_them():
    s = seed_large_messages()
    assert s["response_mb"] == 108000 and int(s["response_gb"]) == 105        # "105 GB (approximately)"
    assert s["heap_mb"] == 18000 and round(s["heap_gb"]) == 18                 # "18 GB (approximately)"
    assert s["response_gb"] == pytest.approx(105.47, abs=0.01) and s["heap_gb"] == pytest.approx(17.58, abs=0.01)
    assert s["before"]["response_bytes"] == 300 * 360 * 2**20
    assert s["bookkeeping_after"]["heap_bytes_seed_formula"] == 8 * 45 * 1 * 50 * 2**20
    assert 18 + 2 <= s["max_heap_gb"]                                         # Kafka's 18 GB + the app's 2 GB


def test_the_seeds_2_gb_limit_is_int_max_value_and_its_heap_is_24_gb():
    """Seed 003's "maximum of 2 GB" for one fetch response is the Int32 size field's Int.MaxValue
    (2**31 - 1 bytes) rounded up, and it configured the consumer JVM's max heap as 24 GB."""
    s = seed_large_messages()
    assert s["limit_gb"] * 2**30 - 1 == INT_MAX
    assert s["max_heap_gb"] == 24


def test_the_seeds_sizes_are_whole_megabytes_and_its_configs_carry_its_messages():
    """Seed 003 multiplies whole numbers of MB ("300 MB x 360 = 108000 MB", "8 x 45 x 1 x 50 MB =
    18000 MB") and, before and after the fix, sizes fetch.message.max.bytes, message.max.bytes and
    replica.fetch.max.bytes to its largest message (300 MB, then 50 MB gzipped), with
    queued.max.message.chunks = 1 only after: the one problem left each time is KAFKA-1196's overflow."""
    s = seed_large_messages()
    assert (f"{s['response_mb']:,} MB", f"{s['heap_mb']:,} MB") == ("108,000 MB", "18,000 MB")
    for run, mb, chunks in ((s["before"], 300, 2), (s["bookkeeping_after"], 50, 1)):
        assert run["configs"] == {"fetch.message.max.bytes": mb * MiB, "queued.max.message.chunks": chunks,
                                  "num.consumer.fetchers": 1, "message.max.bytes": mb * MiB,
                                  "replica.fetch.max.bytes": mb * MiB}
        assert len(run["problems"]) == 1 and "KAFKA-1196" in run["message"] and not run["message_too_large"]


def test_the_seed_overflow_is_flagged_before_it_happens():
    before = seed_large_messages()["before"]
    assert before["overflow"] and not before["ok"]
    total = by_hand(360, 300 * MiB)
    assert before["wire_size_bytes"] == total
    assert before["size_field"] == ((total + 2**31) % 2**32) - 2**31
    for words in ("fetch.message.max.bytes", "Int.MaxValue", "KAFKA-1196", "IllegalArgumentException"):
        assert words in before["message"]
    # (2**31 - 1 - 19) // (300 MiB + 18) = 6 partitions fit, so 360 partitions need 60 consumers
    assert before["max_partitions_per_request"] == 6 and "at least 60 consumers" in before["message"]


def test_whole_partitions_need_more_consumers_than_the_seeds_inequality():
    # 300 MB x 360 / c < 2048 MB gives c >= 53, but 53 consumers leave one with 7 partitions (2100 MB)
    c53 = zookeeper_consumer_fetch(partitions=360, consumers=53, consumer={"fetch.message.max.bytes": 300 * MiB})
    c60 = zookeeper_consumer_fetch(partitions=360, consumers=60, consumer={"fetch.message.max.bytes": 300 * MiB})
    assert c53["partitions_per_request"] == 7 and c53["overflow"]
    assert c60["partitions_per_request"] == 6 and not c60["overflow"]


def test_after_the_fix_the_worst_case_still_overflows_with_one_leader():
    s = seed_large_messages()
    one, two = s["bookkeeping_after"], s["bookkeeping_after_two_leaders"]
    assert one["response_bytes"] == 45 * 50 * 2**20 > INT_MAX and one["overflow"]
    assert one["size_field"] < 0 and "closes the connection" in one["message"]
    assert two["partitions_per_request"] == 23 and not two["overflow"]


def test_wrapped_sign_decides_the_failure():
    assert size_field_outcome(INT_MAX) == "ok"
    assert "closes the connection" in size_field_outcome(2**31)              # wraps to -2**31
    assert "IllegalArgumentException" in size_field_outcome(2**32 + 100)      # wraps to +100


def test_fetchers_and_leaders_split_a_consumers_partitions():
    r = zookeeper_consumer_fetch(partitions=100, consumers=3, leader_brokers=2,
                                 consumer={"num.consumer.fetchers": 2})
    assert r["partitions_per_consumer"] == 34 and r["partitions_per_request"] == 9   # ceil(34 / 4)


def test_heap_bound_counts_queued_chunks_and_the_response_in_flight():
    r = zookeeper_consumer_fetch(partitions=10, consumers=2, consumers_per_jvm=2, streams_per_consumer=3)
    # per consumer: 3 streams x 2 chunks + 5 partitions of the response in flight, 1 MiB each
    assert r["heap_bytes"] == 2 * (3 * 2 + 5) * MiB
    assert r["heap_bytes_seed_formula"] == 2 * 5 * 2 * MiB


def test_a_message_above_the_fetch_size_is_stuck():
    r = zookeeper_consumer_fetch(partitions=1, message_bytes=2 * MiB)
    assert r["message_too_large"] and "MessageSizeTooLargeException" in r["message"]
    assert "message.max.bytes (1000012)" in r["message"]                     # the broker would refuse it too


def test_java_consumer_before_kip74_has_the_same_overflow():
    r = java_consumer_fetch("0.9", partitions=360, message_bytes=300 * MiB,
                            consumer={"max.partition.fetch.bytes": 300 * MiB},
                            broker={"message.max.bytes": 300 * MiB, "replica.fetch.max.bytes": 300 * MiB})
    assert r["overflow"] and "max.partition.fetch.bytes" in r["message"] and r["response_limit_bytes"] is None
    stuck = java_consumer_fetch("0.10.0", partitions=1, message_bytes=2 * MiB,
                                broker={"message.max.bytes": 2 * MiB, "replica.fetch.max.bytes": 2 * MiB})
    assert stuck["message_too_large"] and "RecordTooLargeException" in stuck["message"]


def test_kip74_bounds_the_response_and_lets_a_large_message_through():
    r = java_consumer_fetch("0.10.1", partitions=360, message_bytes=300 * MiB,
                            broker={"message.max.bytes": 300 * MiB})
    assert r["response_limit_bytes"] == 50 * MiB and r["partition_limit_bytes"] == MiB
    assert not r["overflow"] and not r["message_too_large"] and r["ok"]
    assert r["response_bytes"] == 300 * MiB          # the first batch comes back whole
    small = java_consumer_fetch("0.10.1", partitions=360, message_bytes=1000)
    assert small["response_bytes"] == 50 * MiB       # min(360 x 1 MiB, fetch.max.bytes)


def test_kip541_broker_cap():
    r = java_consumer_fetch("2.5", partitions=1000, consumer={"fetch.max.bytes": 100 * MiB})
    assert r["response_limit_bytes"] == 57671680 and r["response_bytes"] == 57671680
    assert java_consumer_fetch("2.4", partitions=1000, consumer={"fetch.max.bytes": 100 * MiB})[
        "response_limit_bytes"] == 100 * MiB


def test_fetch_sizing_table():
    df = fetch_sizing(partitions=360, consumers=1, message_bytes=300 * MiB,
                      consumer_by_version={"0.8.2": {"fetch.message.max.bytes": 300 * MiB},
                                           "0.9": {"max.partition.fetch.bytes": 300 * MiB}},
                      broker={"message.max.bytes": 300 * MiB, "replica.fetch.max.bytes": 300 * MiB})
    assert list(df.kafka_version) == ["0.8.2", "0.9", "0.10.1", "2.5", "3.7"]
    assert list(df.overflow) == [True, True, False, False, False]
    assert df.size_field.iloc[0] == int32(by_hand(360, 300 * MiB))


@pytest.mark.parametrize("call, words", [
    (lambda: zookeeper_consumer_fetch(partitions=0), ["partitions", "[1, +inf]"]),
    (lambda: zookeeper_consumer_fetch(partitions=4, consumers=2, consumers_per_jvm=3), ["consumers_per_jvm", "[1, 2]"]),
    (lambda: zookeeper_consumer_fetch(partitions=4, consumer={"fetch.message.max.bytes": -1}),
     ["fetch.message.max.bytes", "[0, +inf]"]),
    (lambda: zookeeper_consumer_fetch(partitions=4, message_bytes=0), ["message_bytes"]),
    (lambda: java_consumer_fetch("0.8.2", partitions=4), ["zookeeper_consumer_config"]),
    (lambda: java_consumer_fetch("0.9", partitions=4, broker={"message.max.bytes": 2 * MiB}),
     ["replica.fetch.max.bytes should be equal or greater than message.max.bytes"]),
])
def test_bad_input_names_the_config_and_range(call, words):
    with pytest.raises(ConfigError) as err:
        call()
    for w in words:
        assert w in str(err.value), str(err.value)


def test_replica_fetch_rule_is_gone_with_kip74():
    r = java_consumer_fetch("0.10.1", partitions=4, broker={"message.max.bytes": 2 * MiB})
    assert r["configs"]["replica.fetch.max.bytes"] == MiB and re.search("ok", r["message"])


# -- issue 29: each rule at its boundary ---------------------------------------------------------
def int32_by_hand(n):
    return ((n + 2**31) % 2**32) - 2**31


KAFKA_EXCEPTION = ("the broker throws KafkaException (\"This operation cannot be completed on a complete request.\") "
                   "and closes the connection; the fetcher retries forever, no data")


@pytest.mark.parametrize("size, outcome", [
    (INT_MAX, "ok"),
    (2**31, f"the size wraps to {-2**31}: " + KAFKA_EXCEPTION),
    (2**32 - 4, "the size wraps to -4: " + KAFKA_EXCEPTION),
    (2**32 - 3, "the size wraps to -3: the broker sends the size and header and counts the response as sent; the "
                "consumer throws InvalidRequestException (\"-3 is not a valid request size.\"); the fetcher retries, "
                "no data"),
    (2**32, "the size wraps to 0: the broker sends the size and header and counts the response as sent; the consumer "
            "throws InvalidRequestException (\"0 is not a valid request size.\"); the fetcher retries, no data"),
    (2**32 + 1, "the size wraps to 1: the consumer allocates 1 bytes (OutOfMemoryError if the heap is smaller), then "
                "FetchResponsePartitionData.readFrom fails with IllegalArgumentException in Buffer.limit; the fetcher "
                "retries forever, no data"),
])
def test_the_082_send_is_complete_before_a_byte_when_4_plus_the_size_is_0_or_less_and_a_size_of_0_or_less_is_refused(
        size, outcome):
    """FetchResponseSend @ 0.8.2.2: sendSize = 4 + size, complete = sent >= sendSize, so writeTo's
    expectIncomplete throws from a wrapped size of -4 down; from -3 to 0 the header goes out and the
    consumer's BoundedByteBufferReceive throws InvalidRequestException on a size <= 0; a positive
    wrapped size is allocated and read."""
    assert size_field_outcome(size) == outcome


def test_a_response_of_exactly_int_max_value_bytes_fits_and_one_byte_more_overflows():
    # one partition: 19 bytes of response and topic header + 18 of partition header + the data = 2**31 - 1
    f = INT_MAX - 37
    ok = zookeeper_consumer_fetch(partitions=1, consumer={"fetch.message.max.bytes": f})
    assert (ok["wire_size_bytes"], ok["overflow"], ok["ok"]) == (INT_MAX, False, True)
    assert ok["max_partitions_per_request"] == 1
    assert ok["message"] == "ok: the worst-case response fits in Int.MaxValue"
    j = java_consumer_fetch("0.9", partitions=1, consumer={"max.partition.fetch.bytes": f})
    assert (j["wire_size_bytes"], j["overflow"], j["ok"]) == (INT_MAX, False, True)
    assert j["message"] == "ok: the worst-case response fits in Int.MaxValue"
    j1 = java_consumer_fetch("0.9", partitions=1, consumer={"max.partition.fetch.bytes": f + 1})
    assert j1["overflow"] and j1["size_field"] == -2**31
    assert j1["problems"] == [f"max.partition.fetch.bytes ({f + 1}) x 1 partitions in one fetch request = {2**31} "
                              f"bytes, over Int.MaxValue (2147483647): the size wraps to {-2**31}: {KAFKA_EXCEPTION} "
                              "(KAFKA-1196); Kafka 0.10.1+ bounds the response with fetch.max.bytes (KIP-74)"]


def test_a_fetch_size_that_overflows_alone_asks_for_a_smaller_fetch_size_not_more_consumers():
    # (2**31 - 1 - 19) // (18 + f): 1 partition fits at f = 2**31 - 1 - 37, none at one byte more
    f = INT_MAX - 36
    r = zookeeper_consumer_fetch(partitions=5, consumers=5, consumer={"fetch.message.max.bytes": f})
    assert r["max_partitions_per_request"] == 0 and r["partitions_per_request"] == 1
    assert r["message"] == (f"fetch.message.max.bytes ({f}) x 1 partitions in one fetch request = {2**31} bytes, over "
                            f"Int.MaxValue (2147483647): the size wraps to {-2**31}: {KAFKA_EXCEPTION} (KAFKA-1196). "
                            "Not even one such partition fits in one request: lower fetch.message.max.bytes (e.g. by "
                            "compressing the messages)")


@pytest.mark.parametrize("topic", ["orders", "topic"])
def test_the_topic_name_is_a_short_string_in_the_response_and_in_the_most_partitions_that_fit(topic):
    f = INT_MAX - 37    # 4 + 4 + (2 + 5 + 4) + 18 + f = Int.MaxValue with a 5-letter topic; "orders" 1 byte over
    r = zookeeper_consumer_fetch(partitions=1, topic=topic, consumer={"fetch.message.max.bytes": f})
    assert r["wire_size_bytes"] == by_hand(1, f, topic) == f + 32 + len(topic)
    assert r["overflow"] == (topic == "orders")
    assert r["max_partitions_per_request"] == (1 if topic == "topic" else 0)
    j = java_consumer_fetch("0.9", partitions=3, topic=topic)
    assert j["wire_size_bytes"] == by_hand(3, MiB, topic)


def test_the_least_consumers_advised_is_the_least_that_fits_over_leaders_and_fetchers():
    # 1 partition fits per request; 12 partitions over 3 leaders x 2 fetchers need 12 / 6 = 2 consumers
    f = INT_MAX - 37
    common = dict(partitions=12, leader_brokers=3, consumer={"fetch.message.max.bytes": f, "num.consumer.fetchers": 2})
    one = zookeeper_consumer_fetch(consumers=1, **common)
    assert one["partitions_per_request"] == 2 and one["overflow"]
    assert one["message"].endswith(". At most 1 such partitions fit in one request: use at least 2 consumers (or "
                                   "spread the partitions over more leader brokers, or lower fetch.message.max.bytes, "
                                   "e.g. by compressing the messages)")
    assert not zookeeper_consumer_fetch(consumers=2, **common)["overflow"]
    three = zookeeper_consumer_fetch(partitions=3, consumer={"fetch.message.max.bytes": f})
    assert "use at least 3 consumers" in three["message"]      # one partition per request: one consumer each


CARRIES = {"message.max.bytes": MiB + 1, "replica.fetch.max.bytes": MiB + 1}
STUCK_082 = ("fetch.message.max.bytes (1048576) is below the message size (1048577): MessageSizeTooLargeException "
             "(\"Found a message larger than the maximum fetch size of this consumer ...\"); the consumer is stuck at "
             "that offset")
STUCK_09 = ("max.partition.fetch.bytes (1048576) is below the message size (1048577): RecordTooLargeException (\"There "
            "are some messages at [Partition=Offset]: ... whose size is larger than the fetch size ... and hence "
            "cannot be ever returned\")")


def test_a_message_of_exactly_the_fetch_size_is_fetched_and_one_byte_more_is_stuck():
    """0.8.2 ConsumerIterator / 0.9 Fetcher: a message (log entry) larger than the fetch size can
    never be returned; one of exactly the fetch size fits the fetch."""
    assert zookeeper_consumer_fetch(partitions=1, message_bytes=MiB, broker=CARRIES)["ok"]
    assert zookeeper_consumer_fetch(partitions=1, message_bytes=MiB + 1, broker=CARRIES)["problems"] == [STUCK_082]
    for version in ("0.9", "0.10.0"):
        assert java_consumer_fetch(version, partitions=1, message_bytes=MiB, broker=CARRIES)["ok"]
        stuck = java_consumer_fetch(version, partitions=1, message_bytes=MiB + 1, broker=CARRIES)
        assert stuck["problems"] == [STUCK_09] and stuck["message_too_large"]
    assert java_consumer_fetch("0.10.1", partitions=1, message_bytes=MiB + 1, broker=CARRIES)["ok"]


def refused(limit, quote):
    return (f"message.max.bytes ({limit}) is below the message size ({limit + 1}): the broker rejects the message "
            f"(\"{quote}\", MESSAGE_TOO_LARGE = 10)")


@pytest.mark.parametrize("version, limit, quote", [
    # Log.scala 0.8.2-0.10.x (MessageSizeTooLargeException, then RecordTooLargeException)
    ("0.8.2", 1000012, "Message size is ... bytes which exceeds the maximum configured message size of ..."),
    ("0.10.1", 1000012, "Message size is ... bytes which exceeds the maximum configured message size of ..."),
    # Log.analyzeAndValidateRecords 0.11-1.1, then with the partition from 2.0 (UnifiedLog in 3.x); 1048588 from 2.5
    ("0.11", 1000012, "The record batch size is ... bytes which exceeds the maximum configured value of ..."),
    ("1.1", 1000012, "The record batch size is ... bytes which exceeds the maximum configured value of ..."),
    ("2.0", 1000012, "The record batch size in the append to ... is ... bytes which exceeds the maximum configured "
                     "value of ..."),
    ("3.7", 1048588, "The record batch size in the append to ... is ... bytes which exceeds the maximum configured "
                     "value of ..."),
])
def test_the_broker_refuses_a_message_one_byte_over_message_max_bytes_in_its_versions_words(version, limit, quote):
    """Log.append: a message over message.max.bytes is refused with MESSAGE_TOO_LARGE (10), one of
    exactly message.max.bytes is taken."""
    def calc(message):
        if version == "0.8.2":
            return zookeeper_consumer_fetch(partitions=1, message_bytes=message,
                                            consumer={"fetch.message.max.bytes": 2 * MiB})
        return java_consumer_fetch(version, partitions=1, message_bytes=message)
    assert calc(limit)["ok"]
    assert calc(limit + 1)["problems"] == [refused(limit, quote)]


def test_two_problems_are_said_in_one_message_joined_by_a_bar():
    r = java_consumer_fetch("0.9", partitions=2100, message_bytes=MiB + 1, broker=CARRIES)
    assert len(r["problems"]) == 2 and r["problems"][1] == STUCK_09
    assert r["message"] == r["problems"][0] + " | " + STUCK_09 and not r["ok"]


def test_the_java_consumer_row_counts_its_partitions_limits_and_memory():
    # 10 partitions over 3 consumers: 4, 3, 3; 4 over 2 leaders: 2 per request of 1 MiB; 3.7's
    # fetch.max.bytes 50 MiB under the broker's 55 MiB (KIP-541); one response per leader per consumer
    r = java_consumer_fetch("3.7", partitions=10, consumers=3, leader_brokers=2, consumers_per_jvm=3)
    assert r == {"kafka_version": "3.7", "consumer_type": "Java consumer", "partitions_per_consumer": 4,
                 "partitions_per_request": 2, "partition_limit_bytes": MiB, "response_limit_bytes": 50 * MiB,
                 "response_bytes": 2 * MiB, "wire_size_bytes": None, "size_field": None, "overflow": False,
                 "max_partitions_per_request": None, "message_too_large": False, "heap_bytes_seed_formula": None,
                 "heap_bytes": 3 * 2 * 2 * MiB,
                 "configs": {"max.partition.fetch.bytes": MiB, "fetch.max.bytes": 50 * MiB,
                             "broker fetch.max.bytes": 55 * MiB, "message.max.bytes": 1048588,
                             "replica.fetch.max.bytes": MiB},
                 "problems": [], "ok": True, "message": "ok: the response is bounded"}
    old = java_consumer_fetch("0.9", partitions=10, consumers=3, leader_brokers=2, consumers_per_jvm=3)
    assert (old["consumer_type"], old["partitions_per_consumer"], old["wire_size_bytes"], old["heap_bytes"],
            old["message"]) == ("Java consumer", 4, by_hand(2, MiB), 3 * 2 * 2 * MiB,
                                "ok: the worst-case response fits in Int.MaxValue")
    assert old["configs"] == {"max.partition.fetch.bytes": MiB, "fetch.max.bytes": None,
                              "broker fetch.max.bytes": None, "message.max.bytes": 1000012,
                              "replica.fetch.max.bytes": MiB}


def test_the_zookeeper_consumer_row_counts_its_partitions_chunks_and_memory():
    r = zookeeper_consumer_fetch(partitions=10, consumers=3, consumers_per_jvm=2, streams_per_consumer=2)
    assert r == {"kafka_version": "0.8.2", "consumer_type": "ZooKeeper consumer", "partitions_per_consumer": 4,
                 "partitions_per_request": 4, "partition_limit_bytes": MiB, "response_limit_bytes": None,
                 "response_bytes": 4 * MiB, "wire_size_bytes": by_hand(4, MiB), "size_field": by_hand(4, MiB),
                 "overflow": False, "max_partitions_per_request": (INT_MAX - 19) // (18 + MiB),
                 "message_too_large": False, "heap_bytes_seed_formula": 2 * 4 * 2 * MiB,
                 "heap_bytes": 2 * (2 * 2 + 4) * MiB,
                 "configs": {"fetch.message.max.bytes": MiB, "queued.max.message.chunks": 2,
                             "num.consumer.fetchers": 1, "message.max.bytes": 1000012,
                             "replica.fetch.max.bytes": MiB},
                 "problems": [], "ok": True, "message": "ok: the worst-case response fits in Int.MaxValue"}


def test_java_memory_is_one_response_per_leader_the_consumer_fetches_from():
    # 2 consumers in the JVM, each with 4 partitions on 2 leaders: 2 x 2 responses of 2 x 1 MiB
    r = java_consumer_fetch("0.9", partitions=8, consumers=2, leader_brokers=2, consumers_per_jvm=2)
    assert r["heap_bytes"] == 2 * 2 * 2 * MiB


def range_error(name, value, low=1, high="+inf"):
    bound = f"at least {low}" if value < low else f"no more than {high}"
    return f"Invalid value {value} for configuration {name}: Value must be {bound} (valid range: [{low}, {high}])"


@pytest.mark.parametrize("calc", [zookeeper_consumer_fetch, lambda **kw: java_consumer_fetch("3.7", **kw)])
@pytest.mark.parametrize("kwargs, error", [
    (dict(partitions=0), range_error("partitions", 0)),
    (dict(partitions=4, consumers=0), range_error("consumers", 0)),
    (dict(partitions=4, leader_brokers=0), range_error("leader_brokers", 0)),
    (dict(partitions=4, consumers=2, consumers_per_jvm=0), range_error("consumers_per_jvm", 0, 1, 2)),
    (dict(partitions=4, message_bytes=0), range_error("message_bytes", 0, 1, INT_MAX)),
    (dict(partitions=4, message_bytes=INT_MAX + 1), range_error("message_bytes", INT_MAX + 1, 1, INT_MAX)),
])
def test_a_workload_is_positive_and_a_message_is_1_byte_to_int_max_value(calc, kwargs, error):
    with pytest.raises(ConfigError) as err:
        calc(**kwargs)
    assert str(err.value) == error


@pytest.mark.parametrize("message", [1, INT_MAX])
def test_a_message_of_1_byte_or_int_max_value_bytes_is_a_valid_workload(message):
    assert java_consumer_fetch("3.7", partitions=1, message_bytes=message)["partitions_per_request"] == 1
    assert zookeeper_consumer_fetch(partitions=1, message_bytes=message)["partitions_per_request"] == 1


def test_a_zookeeper_consumer_has_at_least_one_stream():
    with pytest.raises(ConfigError) as err:
        zookeeper_consumer_fetch(partitions=1, streams_per_consumer=0)
    assert str(err.value) == range_error("streams_per_consumer", 0)


def test_the_sizing_table_has_a_column_per_figure_and_exact_integers_with_na():
    df = fetch_sizing(versions=("0.8.2", "3.7"), partitions=10)
    assert list(df.columns) == ["kafka_version", "consumer_type", "partitions_per_consumer", "partitions_per_request",
                                "partition_limit_bytes", "response_limit_bytes", "response_bytes", "wire_size_bytes",
                                "size_field", "overflow", "max_partitions_per_request", "message_too_large",
                                "heap_bytes_seed_formula", "heap_bytes", "ok", "message"]
    for column in ("response_limit_bytes", "wire_size_bytes", "size_field", "max_partitions_per_request",
                   "heap_bytes_seed_formula"):
        assert str(df[column].dtype) == "Int64", column
    assert df["response_limit_bytes"].isna().tolist() == [True, False]
    assert df["wire_size_bytes"].tolist()[0] == by_hand(10, MiB)


@pytest.mark.parametrize("message", [1, 1000012, 1000013, 1048588, 1048589, MiB, MiB + 1, 300 * MiB])
def test_sizing_for_a_message_configures_every_version_to_carry_it(message):
    rows = sizing_for_message(message, partitions=1)
    assert rows["ok"].tolist() == [True] * 4, rows["message"].tolist()
    assert rows["partition_limit_bytes"].tolist() == [max(message, MiB)] * 2 + [MiB] * 2


@pytest.mark.parametrize("message, versions", [(0, ("0.8.2", "3.7")), (-1, ("3.7",))])
def test_sizing_for_a_message_names_message_bytes_and_its_range_not_the_broker_config_set_from_it(message, versions):
    with pytest.raises(ConfigError) as err:
        sizing_for_message(message, versions=versions, partitions=1)
    assert str(err.value) == range_error("message_bytes", message, 1, INT_MAX)
