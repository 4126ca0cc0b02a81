"""Fetch sizing: the seed's large-message figures, the 0.8.2 Int overflow (KAFKA-1196), and what
KIP-74's fetch.max.bytes changes. Byte counts are worked out here from the 0.8.2 FetchResponse
layout (FetchResponse.scala @ 0.8.2.2), not read back from the module."""

import re

import pytest

from kafkasim.core.errors import ConfigError
from kafkasim.core.java import INT_MAX, int32
from kafkasim.broker.fetch_sizing import (MiB, fetch_sizing, java_consumer_fetch, seed_large_messages,
                            size_field_outcome, wire_size, zookeeper_consumer_fetch)


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
