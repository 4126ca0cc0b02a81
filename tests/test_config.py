"""kafkasim.config: defaults by Kafka version, validators and cross-field rules, as in Kafka's source."""

import re

import pytest

from kafkasim.config import (ASSIGNORS, BROKER_CONFIGS, CONSUMER_CONFIGS, KAFKA_VERSIONS,
                             ZOOKEEPER_CONSUMER_CONFIGS, ConfigSpec, broker_config, consumer_config,
                             normalize_version, version_tuple, zookeeper_consumer_config)
from kafkasim.errors import ConfigError

INT_MAX = 2**31 - 1
VERSIONS = ("0.9", "0.10.0", "0.10.1", "2.3", "2.4", "2.8", "3.0", "3.7")


# -- defaults by version (ConsumerConfig.java / KafkaConfig.scala at each tag) ------------------
@pytest.mark.parametrize("version, session, max_poll_records, max_poll_interval, request_timeout, strategy", [
    ("0.9", 30000, None, None, 40000, ["range"]),
    ("0.10.0", 30000, INT_MAX, None, 40000, ["range"]),
    ("0.10.1", 10000, 500, 300000, 305000, ["range"]),
    ("2.3", 10000, 500, 300000, 30000, ["range"]),
    ("2.4", 10000, 500, 300000, 30000, ["range"]),
    ("2.8", 10000, 500, 300000, 30000, ["range"]),
    ("3.0", 45000, 500, 300000, 30000, ["range", "cooperative-sticky"]),
    ("3.7", 45000, 500, 300000, 30000, ["range", "cooperative-sticky"]),
])
def test_consumer_defaults_by_version(version, session, max_poll_records, max_poll_interval, request_timeout,
                                      strategy):
    cfg = consumer_config(version)
    assert cfg["session.timeout.ms"] == session
    assert cfg["heartbeat.interval.ms"] == 3000
    assert cfg["max.poll.records"] == max_poll_records
    assert cfg["max.poll.interval.ms"] == max_poll_interval
    assert cfg["request.timeout.ms"] == request_timeout
    assert cfg["partition.assignment.strategy"] == strategy
    assert cfg["retry.backoff.ms"] == 100
    assert cfg["enable.auto.commit"] is True and cfg["auto.commit.interval.ms"] == 5000


def test_every_consumer_config_is_a_key_and_absent_ones_map_to_none():
    old, new = consumer_config("0.9"), consumer_config("3.7")
    assert list(old) == list(CONSUMER_CONFIGS) == list(new)
    absent_in_09 = {k for k, v in old.items() if v is None}
    assert absent_in_09 == {"max.poll.interval.ms", "max.poll.records", "default.api.timeout.ms",
                            "group.instance.id", "fetch.max.bytes", "group.protocol"}
    assert new["default.api.timeout.ms"] == 60000 and new["fetch.max.bytes"] == 52428800
    assert new["group.protocol"] == "classic" and new["group.instance.id"] is None
    assert consumer_config("2.0")["default.api.timeout.ms"] == 60000
    assert consumer_config("1.1")["default.api.timeout.ms"] is None


def test_fetch_min_bytes_changed_inside_the_09_line():
    # KAFKA-3170: 1024 in 0.9.0.0, 1 from 0.9.0.1. A line means its first release.
    assert consumer_config("0.9")["fetch.min.bytes"] == 1024
    assert consumer_config("0.9.0.0")["fetch.min.bytes"] == 1024
    assert consumer_config("0.9.0.1")["fetch.min.bytes"] == 1
    assert consumer_config("0.10.0")["fetch.min.bytes"] == 1


@pytest.mark.parametrize("version, max_session", [
    ("0.9", 30000), ("0.10.0", 300000), ("0.10.1", 300000), ("2.2", 300000),
    ("2.3", 1800000), ("2.4", 1800000), ("2.8", 1800000), ("3.0", 1800000), ("3.7", 1800000),
])
def test_broker_group_max_session_timeout_by_version(version, max_session):
    cfg = broker_config(version)
    assert cfg["group.max.session.timeout.ms"] == max_session
    assert cfg["group.min.session.timeout.ms"] == 6000


def test_broker_configs_absent_before_they_were_added_map_to_none():
    b09, b0101, b011, b10, b22, b25 = (broker_config(v) for v in ("0.9", "0.10.1", "0.11", "1.0", "2.2", "2.5"))
    assert b0101["group.initial.rebalance.delay.ms"] is None and b011["group.initial.rebalance.delay.ms"] == 3000
    assert b09["replica.fetch.response.max.bytes"] is None and b0101["replica.fetch.response.max.bytes"] == 10485760
    assert b011["queued.max.request.bytes"] is None and b10["queued.max.request.bytes"] == -1
    assert broker_config("2.1")["group.max.size"] is None and b22["group.max.size"] == INT_MAX
    assert b22["fetch.max.bytes"] is None and b25["fetch.max.bytes"] == 57671680
    assert b22["message.max.bytes"] == 1000012 and b25["message.max.bytes"] == 1048588
    assert (b09["offsets.topic.num.partitions"], b09["queued.max.requests"], b09["socket.request.max.bytes"],
            b09["num.network.threads"], b09["num.io.threads"]) == (50, 500, 104857600, 3, 8)


def test_broker_defaults_agree_with_the_coordinator():
    from kafkasim.coordinator import broker_defaults
    for version in KAFKA_VERSIONS:
        cfg = broker_config(version)
        for name, value in broker_defaults(version).items():
            assert cfg[name] == value, (version, name)


def test_spec_tables_for_the_glossary():
    spec = CONSUMER_CONFIGS["session.timeout.ms"]
    assert isinstance(spec, ConfigSpec) and spec.added == "0.9"
    assert spec.defaults == (("0.9", 30000), ("0.10.1", 10000), ("3.0", 45000))
    assert "KIP-62" in spec.history and "KIP-735" in spec.history
    by_version = CONSUMER_CONFIGS["max.poll.interval.ms"].defaults_by_version()
    assert list(by_version) == list(KAFKA_VERSIONS)
    assert by_version["0.10.0"] is None and by_version["0.10.1"] == 300000
    assert CONSUMER_CONFIGS["max.poll.records"].valid_values == "[1,...]"
    assert BROKER_CONFIGS["fetch.max.bytes"].valid_values == "[1024,...]"
    assert CONSUMER_CONFIGS["auto.offset.reset"].valid_values == "one of: latest, earliest, none"
    assert CONSUMER_CONFIGS["auto.commit.interval.ms"].type_in("0.9") == "long"
    assert CONSUMER_CONFIGS["auto.commit.interval.ms"].type_in("0.10.1") == "int"
    for specs in (CONSUMER_CONFIGS, BROKER_CONFIGS, ZOOKEEPER_CONSUMER_CONFIGS):
        for name, s in specs.items():
            assert s.name == name and s.doc and s.defaults


# -- versions ------------------------------------------------------------------------------
def test_normalize_version():
    assert normalize_version("3.7.1") == "3.7"
    assert normalize_version("0.10.1.1") == "0.10.1"
    assert normalize_version("0.11.0.2") == "0.11"
    assert normalize_version("0.9.0.1") == "0.9"
    assert normalize_version("2.4") == "2.4"
    assert version_tuple("3.0.0") == version_tuple("3.0") == (3,)


@pytest.mark.parametrize("bad", ["0.10", "4.0", "2.9", "banana", "3", ""])
def test_unsupported_versions_name_the_supported_ones(bad):
    with pytest.raises(ConfigError, match="0.9, 0.10.0, 0.10.1") as err:
        consumer_config(bad)
    assert "3.7" in str(err.value)


def test_kafka_08_points_to_the_zookeeper_consumer():
    with pytest.raises(ConfigError, match="zookeeper_consumer_config"):
        broker_config("0.8.2")


# -- overrides ---------------------------------------------------------------------------------
def test_overrides_win_and_leave_other_defaults():
    cfg = consumer_config("3.7", {"session.timeout.ms": 10000, "max.poll.records": 1,
                                  "enable.auto.commit": False, "group.instance.id": "c-1"})
    assert cfg["session.timeout.ms"] == 10000 and cfg["max.poll.records"] == 1
    assert cfg["enable.auto.commit"] is False and cfg["group.instance.id"] == "c-1"
    assert cfg["heartbeat.interval.ms"] == 3000 and cfg["request.timeout.ms"] == 30000
    b = broker_config("2.3", {"group.max.session.timeout.ms": 60000, "group.max.size": 3})
    assert b["group.max.session.timeout.ms"] == 60000 and b["group.max.size"] == 3


def test_returned_lists_are_fresh_copies():
    cfg = consumer_config("3.7")
    cfg["partition.assignment.strategy"].append("sticky")
    assert consumer_config("3.7")["partition.assignment.strategy"] == ["range", "cooperative-sticky"]
    assert CONSUMER_CONFIGS["partition.assignment.strategy"].default("3.7") == ["range", "cooperative-sticky"]


@pytest.mark.parametrize("typo", ["session.timeout.msx", "sesion.timeout.ms"])
def test_unknown_name_suggests_the_close_one(typo):
    with pytest.raises(ConfigError, match=re.escape("did you mean 'session.timeout.ms'")) as err:
        consumer_config("3.7", {typo: 10000})
    assert typo in str(err.value)


def test_unknown_broker_name_suggests_the_close_one():
    with pytest.raises(ConfigError, match=re.escape("did you mean 'group.max.session.timeout.ms'")):
        broker_config("3.7", {"group.max.sesion.timeout.ms": 1})


@pytest.mark.parametrize("version, name, added", [
    ("0.10.0", "max.poll.interval.ms", "0.10.1"),
    ("0.9", "max.poll.records", "0.10.0"),
    ("2.2", "group.instance.id", "2.3"),
    ("1.1", "default.api.timeout.ms", "2.0"),
    ("0.10.0", "fetch.max.bytes", "0.10.1"),
    ("3.6", "group.protocol", "3.7"),
])
def test_config_not_yet_in_version_names_the_version_that_added_it(version, name, added):
    with pytest.raises(ConfigError, match=rf"'{re.escape(name)}' does not exist in Kafka {re.escape(version)}: "
                                          rf"it was added in Kafka {re.escape(added)}"):
        consumer_config(version, {name: 1})


def test_broker_config_not_yet_in_version():
    with pytest.raises(ConfigError, match="added in Kafka 2.2 .KIP-389"):
        broker_config("2.1", {"group.max.size": 10})
    with pytest.raises(ConfigError, match="added in Kafka 0.11"):
        broker_config("0.10.2", {"group.initial.rebalance.delay.ms": 0})
    with pytest.raises(ConfigError, match="added in Kafka 1.0"):
        broker_config("0.11", {"queued.max.request.bytes": 200_000_000})


# -- value validation --------------------------------------------------------------------------
@pytest.mark.parametrize("name, value, valid", [
    ("max.poll.records", 0, "[1, +inf]"),
    ("max.poll.interval.ms", 0, "[1, +inf]"),
    ("fetch.max.bytes", -1, "[0, +inf]"),
    ("auto.commit.interval.ms", -5, "[0, +inf]"),
    ("request.timeout.ms", -1, "[0, +inf]"),
    ("retry.backoff.ms", -1, "[0, +inf]"),
])
def test_out_of_range_consumer_values_name_the_config_and_range(name, value, valid):
    with pytest.raises(ConfigError, match=re.escape(name)) as err:
        consumer_config("3.7", {name: value})
    assert valid in str(err.value) and str(value) in str(err.value)


@pytest.mark.parametrize("name, value, valid", [
    ("group.max.size", 0, "[1, +inf]"),
    ("fetch.max.bytes", 1023, "[1024, +inf]"),
    ("num.io.threads", 0, "[1, +inf]"),
    ("offsets.topic.num.partitions", 0, "[1, +inf]"),
])
def test_out_of_range_broker_values_name_the_config_and_range(name, value, valid):
    with pytest.raises(ConfigError, match=re.escape(name)) as err:
        broker_config("3.7", {name: value})
    assert valid in str(err.value)


def test_session_timeout_has_no_validator_only_the_heartbeat_rule():
    # No ConfigDef range: 1 ms more than the heartbeat is accepted client-side (the broker's
    # group.min.session.timeout.ms is what rejects it, at JoinGroup).
    assert consumer_config("3.7", {"session.timeout.ms": 3001})["session.timeout.ms"] == 3001
    assert broker_config("3.7", {"group.initial.rebalance.delay.ms": 0})["group.initial.rebalance.delay.ms"] == 0


@pytest.mark.parametrize("value", [True, 1.5, "500", None, 2**31])
def test_int_configs_take_java_ints_only(value):
    with pytest.raises(ConfigError, match="max.poll.records") as err:
        consumer_config("3.7", {"max.poll.records": value})
    assert "32-bit integer" in str(err.value) or "non-null" in str(err.value)


def test_long_configs_take_64_bit_ints():
    assert consumer_config("3.7", {"retry.backoff.ms": 2**40})["retry.backoff.ms"] == 2**40
    assert broker_config("3.7", {"queued.max.request.bytes": 2**33})["queued.max.request.bytes"] == 2**33
    with pytest.raises(ConfigError, match="32-bit"):
        consumer_config("3.7", {"auto.commit.interval.ms": 2**33})  # int from 0.10.1 ...
    assert consumer_config("0.10.0", {"auto.commit.interval.ms": 2**33})["auto.commit.interval.ms"] == 2**33  # long


def test_booleans_accept_bools_and_true_false_strings():
    assert consumer_config("3.7", {"enable.auto.commit": "false"})["enable.auto.commit"] is False
    assert consumer_config("3.7", {"enable.auto.commit": " TRUE "})["enable.auto.commit"] is True
    for bad in (0, 1, "yes", None):
        with pytest.raises(ConfigError, match="enable.auto.commit"):
            consumer_config("3.7", {"enable.auto.commit": bad})


def test_string_choices():
    assert consumer_config("3.7", {"auto.offset.reset": "earliest"})["auto.offset.reset"] == "earliest"
    with pytest.raises(ConfigError, match="String must be one of: latest, earliest, none"):
        consumer_config("3.7", {"auto.offset.reset": "smallest"})
    assert consumer_config("3.7", {"group.protocol": "CONSUMER"})["group.protocol"] == "consumer"
    with pytest.raises(ConfigError, match=r"case insensitive\): CLASSIC, CONSUMER"):
        consumer_config("3.7", {"group.protocol": "eager"})
    with pytest.raises(ConfigError, match="Expected value to be a string"):
        consumer_config("3.7", {"client.id": 7})


# -- cross-field rules ---------------------------------------------------------------------------
@pytest.mark.parametrize("version", VERSIONS)
def test_heartbeat_must_be_below_session_timeout(version):
    session = consumer_config(version)["session.timeout.ms"]
    with pytest.raises(ConfigError, match="Heartbeat must be set lower than the session timeout") as err:
        consumer_config(version, {"heartbeat.interval.ms": session})
    assert f"heartbeat.interval.ms={session}" in str(err.value)
    assert f"session.timeout.ms={session}" in str(err.value)
    assert consumer_config(version, {"heartbeat.interval.ms": session - 1})["heartbeat.interval.ms"] == session - 1


def test_lowering_session_timeout_below_default_heartbeat_is_rejected():
    with pytest.raises(ConfigError, match=r"heartbeat.interval.ms=3000, session.timeout.ms=2000"):
        consumer_config("3.7", {"session.timeout.ms": 2000})


def test_heartbeat_rule_is_classic_protocol_only():
    # The KIP-848 consumer (group.protocol=consumer) never builds the classic Heartbeat.
    cfg = consumer_config("3.7", {"group.protocol": "consumer", "heartbeat.interval.ms": 60000})
    assert cfg["heartbeat.interval.ms"] == 60000


def test_before_2_0_request_timeout_must_exceed_session_timeout_and_fetch_wait():
    with pytest.raises(ConfigError, match="request.timeout.ms should be greater than session.timeout.ms and "
                                          "fetch.max.wait.ms") as err:
        consumer_config("0.10.1", {"session.timeout.ms": 305000})
    assert "request.timeout.ms=305000, session.timeout.ms=305000" in str(err.value)
    with pytest.raises(ConfigError, match="request.timeout.ms should be greater"):
        consumer_config("0.9", {"fetch.max.wait.ms": 40000})
    assert consumer_config("1.1", {"session.timeout.ms": 200000})["session.timeout.ms"] == 200000
    with pytest.raises(ConfigError, match="request.timeout.ms should be greater"):
        consumer_config("1.1", {"session.timeout.ms": 305000})
    # removed in 2.0 (#5246)
    assert consumer_config("2.0", {"session.timeout.ms": 305000})["session.timeout.ms"] == 305000


def test_queued_max_request_bytes_must_cover_socket_request_max_bytes():
    with pytest.raises(ConfigError, match="queued.max.request.bytes must be larger or equal to "
                                          "socket.request.max.bytes") as err:
        broker_config("1.0", {"queued.max.request.bytes": 104857599})
    assert "socket.request.max.bytes=104857600" in str(err.value)
    assert broker_config("1.0", {"queued.max.request.bytes": 104857600})["queued.max.request.bytes"] == 104857600
    ok = broker_config("3.7", {"queued.max.request.bytes": 1000, "socket.request.max.bytes": 1000})
    assert ok["queued.max.request.bytes"] == 1000
    assert broker_config("3.7", {"queued.max.request.bytes": 0})["queued.max.request.bytes"] == 0  # disabled
    with pytest.raises(ConfigError, match="queued.max.request.bytes must be larger"):
        broker_config("3.7", {"queued.max.request.bytes": 1000, "socket.request.max.bytes": 1001})


# -- assignors -------------------------------------------------------------------------------
def test_java_class_names_are_normalized_to_short_names():
    cfg = consumer_config("2.4", {"partition.assignment.strategy": [
        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
        "org.apache.kafka.clients.consumer.RangeAssignor"]})
    assert cfg["partition.assignment.strategy"] == ["cooperative-sticky", "range"]
    csv = consumer_config("3.7", {"partition.assignment.strategy":
                                  "org.apache.kafka.clients.consumer.StickyAssignor , roundrobin"})
    assert csv["partition.assignment.strategy"] == ["sticky", "roundrobin"]
    assert consumer_config("0.9", {"partition.assignment.strategy": "RoundRobinAssignor"})[
        "partition.assignment.strategy"] == ["roundrobin"]
    assert set(ASSIGNORS) == {"range", "roundrobin", "sticky", "cooperative-sticky"}


@pytest.mark.parametrize("version, assignor, added", [
    ("0.10.2", "sticky", "0.11"),
    ("2.3", "cooperative-sticky", "2.4"),
    ("2.3", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor", "2.4"),
])
def test_assignor_not_yet_in_version(version, assignor, added):
    with pytest.raises(ConfigError, match=f"was added in Kafka {re.escape(added)}"):
        consumer_config(version, {"partition.assignment.strategy": [assignor]})


def test_bad_assignor_lists():
    with pytest.raises(ConfigError, match="unknown assignor"):
        consumer_config("3.7", {"partition.assignment.strategy": "com.example.MyAssignor"})
    with pytest.raises(ConfigError, match="Must configure at least one partition assigner"):
        consumer_config("3.7", {"partition.assignment.strategy": ""})
    with pytest.raises(ConfigError, match="Expected a comma separated list"):
        consumer_config("3.7", {"partition.assignment.strategy": 3})
    # KAFKA-13204 (3.1): the same assignor name twice is an error; before, the duplicate was harmless.
    with pytest.raises(ConfigError, match="The assignor name: 'range' is used in more than one assignor"):
        consumer_config("3.1", {"partition.assignment.strategy": ["range", "RangeAssignor"]})
    assert consumer_config("3.0", {"partition.assignment.strategy": ["range", "range"]})[
        "partition.assignment.strategy"] == ["range"]


# -- group.instance.id -------------------------------------------------------------------------
def test_group_instance_id_validation():
    assert consumer_config("2.3", {"group.instance.id": " app-1 "})["group.instance.id"] == "app-1"
    assert consumer_config("2.3", {"group.instance.id": None})["group.instance.id"] is None
    with pytest.raises(ConfigError, match="Group instance id must be non-empty string"):
        consumer_config("3.2", {"group.instance.id": ""})
    with pytest.raises(ConfigError, match="String must be non-empty"):  # ConfigDef.NonEmptyString, 3.3+
        consumer_config("3.3", {"group.instance.id": ""})
    with pytest.raises(ConfigError, match="contains a character other than ASCII alphanumerics"):
        consumer_config("3.7", {"group.instance.id": "app 1"})
    with pytest.raises(ConfigError, match="cannot be"):
        consumer_config("3.7", {"group.instance.id": ".."})
    with pytest.raises(ConfigError, match="longer than 249"):
        consumer_config("3.7", {"group.instance.id": "a" * 250})


# -- 0.8.2 ZooKeeper consumer --------------------------------------------------------------------
def test_zookeeper_consumer_defaults():
    cfg = zookeeper_consumer_config()
    assert cfg == {
        "fetch.message.max.bytes": 1048576, "queued.max.message.chunks": 2, "num.consumer.fetchers": 1,
        "fetch.min.bytes": 1, "fetch.wait.max.ms": 100, "socket.timeout.ms": 30000,
        "rebalance.max.retries": 4, "rebalance.backoff.ms": 2000, "refresh.leader.backoff.ms": 200,
        "zookeeper.session.timeout.ms": 6000, "zookeeper.connection.timeout.ms": 6000,
        "zookeeper.sync.time.ms": 2000, "auto.commit.enable": True, "auto.commit.interval.ms": 60000,
        "auto.offset.reset": "largest", "partition.assignment.strategy": "range",
        "offsets.storage": "zookeeper", "dual.commit.enabled": False, "consumer.timeout.ms": -1,
    }


def test_zookeeper_consumer_derived_defaults_follow_their_source():
    cfg = zookeeper_consumer_config({"zookeeper.sync.time.ms": 500, "zookeeper.session.timeout.ms": 4000,
                                     "offsets.storage": "Kafka"})
    assert cfg["rebalance.backoff.ms"] == 500
    assert cfg["zookeeper.connection.timeout.ms"] == 4000
    assert cfg["offsets.storage"] == "kafka" and cfg["dual.commit.enabled"] is True
    explicit = zookeeper_consumer_config({"zookeeper.sync.time.ms": 500, "rebalance.backoff.ms": 3000,
                                          "offsets.storage": "kafka", "dual.commit.enabled": "false"})
    assert explicit["rebalance.backoff.ms"] == 3000 and explicit["dual.commit.enabled"] is False


def test_zookeeper_consumer_validation():
    with pytest.raises(ConfigError, match="Valid values are smallest and largest"):
        zookeeper_consumer_config({"auto.offset.reset": "earliest"})
    with pytest.raises(ConfigError, match="Valid values are 'zookeeper' and 'kafka'"):
        zookeeper_consumer_config({"offsets.storage": "redis"})
    with pytest.raises(ConfigError, match="silently use range"):
        zookeeper_consumer_config({"partition.assignment.strategy": "sticky"})
    with pytest.raises(ConfigError, match="socket.timeout.ms should always be at least fetch.wait.max.ms"):
        zookeeper_consumer_config({"fetch.wait.max.ms": 30001})
    with pytest.raises(ConfigError, match=re.escape("did you mean 'fetch.message.max.bytes'")):
        zookeeper_consumer_config({"fetch.mesage.max.bytes": 1})
    with pytest.raises(ConfigError, match="queued.max.message.chunks"):
        zookeeper_consumer_config({"queued.max.message.chunks": 0})
    assert zookeeper_consumer_config({"partition.assignment.strategy": "roundrobin"})[
        "partition.assignment.strategy"] == "roundrobin"


def test_overrides_must_be_a_mapping():
    with pytest.raises(ConfigError, match="dict"):
        consumer_config("3.7", [("session.timeout.ms", 1)])
