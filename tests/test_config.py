"""kafkasim.core.config: defaults by Kafka version, validators and cross-field rules, as in Kafka's source."""

import re

import pytest

from kafkasim.core.config import (ASSIGNORS, BROKER_CONFIGS, CONSUMER_CONFIGS, KAFKA_VERSIONS, SERVER_ASSIGNORS,
                             ZOOKEEPER_CONSUMER_CONFIGS, ConfigSpec, broker_config, consumer_config,
                             java_hash_set_order, normalize_version, version_tuple, zookeeper_consumer_config)
from kafkasim.core.errors import ConfigError

INT_MAX = 2**31 - 1
VERSIONS = ("0.9", "0.10.0", "0.10.1", "2.3", "2.4", "2.8", "3.0", "3.7", "4.0", "4.2")


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
    ("4.0", 45000, 500, 300000, 30000, ["range", "cooperative-sticky"]),
    ("4.1", 45000, 500, 300000, 30000, ["range", "cooperative-sticky"]),
    ("4.2", 45000, 500, 300000, 30000, ["range", "cooperative-sticky"]),
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
                            "group.instance.id", "fetch.max.bytes", "group.protocol", "group.remote.assignor"}
    assert new["default.api.timeout.ms"] == 60000 and new["fetch.max.bytes"] == 52428800
    assert new["group.protocol"] == "classic" and new["group.instance.id"] is None
    assert new["group.remote.assignor"] is None
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
    ("4.0", 1800000), ("4.1", 1800000), ("4.2", 1800000),  # GroupCoordinatorConfig.java at 4.0.0 / 4.1.0 / 4.2.0-rc1
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
    assert normalize_version("4.0.1") == "4.0" and normalize_version("4.1.1") == "4.1"
    assert normalize_version("4.2.0") == "4.2" and version_tuple("4.0.0") == (4,)
    assert normalize_version("4.3.1") == "4.3" and normalize_version("4.4.0") == "4.4"
    assert KAFKA_VERSIONS[-6:] == ("3.9", "4.0", "4.1", "4.2", "4.3", "4.4")


@pytest.mark.parametrize("bad", ["0.10", "4.5", "5.0", "9.9", "2.9", "banana", "3", ""])
def test_unsupported_versions_name_the_supported_ones(bad):
    with pytest.raises(ConfigError, match="0.9, 0.10.0, 0.10.1") as err:
        consumer_config(bad)
    assert "3.7" in str(err.value) and "3.8, 3.9, 4.0, 4.1, 4.2, 4.3, 4.4" in str(err.value)


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
    ("3.6", "group.remote.assignor", "3.7"),
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
    with pytest.raises(ConfigError, match=re.escape("Broker config 'group.consumer.session.timeout.ms' does not exist "
                                                    "in Kafka 3.6: it was added in Kafka 3.7 (KIP-848, KAFKA-16036)")):
        broker_config("3.6", {"group.consumer.session.timeout.ms": 45000})
    with pytest.raises(ConfigError, match=re.escape("does not exist in Kafka 3.7: it was added in Kafka 3.8 "
                                                    "(KIP-848, KAFKA-16294)")):
        broker_config("3.7", {"group.consumer.migration.policy": "upgrade"})


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
    # CaseInsensitiveValidString lists its choices from a java.util.HashSet: CONSUMER hashes first.
    with pytest.raises(ConfigError, match=re.escape("Invalid value eager for configuration group.protocol: String "
                                                    "must be one of (case insensitive): CONSUMER, CLASSIC")):
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


# -- Kafka 4.x and KIP-848 (ConsumerConfig.java, GroupCoordinatorConfig.java, KafkaConfig.scala at 4.0.0,
#    4.1.0, 4.2.0-rc1; the 3.7 - 3.9 early access at 3.7.0, 3.8.0, 3.9.0-rc3) --------------------------------
V4 = ("4.0", "4.1", "4.2")
UNIFORM, RANGE = SERVER_ASSIGNORS["uniform"], SERVER_ASSIGNORS["range"]


@pytest.mark.parametrize("version", V4)
def test_4x_consumer_defaults_are_39s(version):
    # No consumer default kafkasim lists changed in 4.x; group.protocol stays classic.
    cfg = consumer_config(version)
    assert cfg == consumer_config("3.9")
    assert cfg["group.protocol"] == "classic" and cfg["group.remote.assignor"] is None
    assert cfg["session.timeout.ms"] == 45000 and cfg["heartbeat.interval.ms"] == 3000
    assert cfg["partition.assignment.strategy"] == ["range", "cooperative-sticky"]
    assert cfg["auto.offset.reset"] == "latest" and cfg["max.poll.interval.ms"] == 300000


@pytest.mark.parametrize("version", V4)
def test_4x_broker_defaults_of_the_older_configs_are_39s(version):
    new, old = broker_config(version), broker_config("3.9")
    for name in ("group.initial.rebalance.delay.ms", "group.min.session.timeout.ms", "group.max.session.timeout.ms",
                 "group.max.size", "offsets.topic.num.partitions", "queued.max.requests", "queued.max.request.bytes",
                 "socket.request.max.bytes", "num.network.threads", "num.io.threads", "fetch.max.bytes",
                 "replica.fetch.response.max.bytes", "message.max.bytes", "replica.fetch.max.bytes"):
        assert new[name] == old[name], name
    assert (new["group.min.session.timeout.ms"], new["group.max.session.timeout.ms"], new["message.max.bytes"]) == \
        (6000, 1800000, 1048588)


KIP848_BROKER = ("group.coordinator.rebalance.protocols", "group.consumer.session.timeout.ms",
                 "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms",
                 "group.consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms",
                 "group.consumer.max.heartbeat.interval.ms", "group.consumer.max.size", "group.consumer.assignors",
                 "group.consumer.migration.policy")


@pytest.mark.parametrize("version, protocols, assignors, migration", [
    ("3.6", None, None, None),
    ("3.7", ["classic"], ["uniform", "range"], None),            # early access: consumer protocol off
    ("3.8", ["classic"], ["uniform", "range"], "disabled"),
    ("3.9", ["classic"], ["uniform", "range"], "disabled"),
    ("4.0", ["classic", "consumer"], ["uniform", "range"], "bidirectional"),
    ("4.1", ["classic", "consumer", "streams"], ["uniform", "range"], "bidirectional"),
    ("4.2", ["classic", "consumer", "streams"], ["uniform", "range"], "bidirectional"),
])
def test_kip848_broker_defaults_by_version(version, protocols, assignors, migration):
    cfg = broker_config(version)
    assert cfg["group.coordinator.rebalance.protocols"] == protocols
    assert cfg["group.consumer.assignors"] == assignors
    assert cfg["group.consumer.migration.policy"] == migration
    timings = [cfg[n] for n in KIP848_BROKER[1:8]]
    assert timings == ([None] * 7 if version == "3.6" else [45000, 45000, 60000, 5000, 5000, 15000, INT_MAX])


def test_kip848_specs_for_the_glossary():
    assert BROKER_CONFIGS["group.consumer.session.timeout.ms"].added_by == "KIP-848, KAFKA-16036"
    assert BROKER_CONFIGS["group.consumer.heartbeat.interval.ms"].valid_values == "[1,...]"
    assert BROKER_CONFIGS["group.consumer.migration.policy"].defaults == (("3.8", "disabled"), ("4.0", "bidirectional"))
    assert BROKER_CONFIGS["group.coordinator.rebalance.protocols"].defaults_by_version(("3.9", "4.0", "4.1")) == {
        "3.9": ["classic"], "4.0": ["classic", "consumer"], "4.1": ["classic", "consumer", "streams"]}
    assert CONSUMER_CONFIGS["group.remote.assignor"].nullable and CONSUMER_CONFIGS["group.remote.assignor"].added == "3.7"
    assert SERVER_ASSIGNORS == {"uniform": "org.apache.kafka.coordinator.group.assignor.UniformAssignor",
                                "range": "org.apache.kafka.coordinator.group.assignor.RangeAssignor"}
    for name in KIP848_BROKER:
        assert "KIP-848" in BROKER_CONFIGS[name].added_by and BROKER_CONFIGS[name].history


# -- the consumer under group.protocol=consumer (ConsumerConfig.checkUnsupportedConfigs, KAFKA-17338) --------
@pytest.mark.parametrize("version", V4)
@pytest.mark.parametrize("overrides, named", [
    ({"session.timeout.ms": 45000}, "session.timeout.ms"),   # even its default value
    ({"heartbeat.interval.ms": 3000}, "heartbeat.interval.ms"),
    ({"partition.assignment.strategy": "range"}, "partition.assignment.strategy"),
    ({"partition.assignment.strategy": "uniform"}, "partition.assignment.strategy"),  # refused before it is looked up
    ({"session.timeout.ms": 10000, "partition.assignment.strategy": ["range"], "heartbeat.interval.ms": 20000},
     "partition.assignment.strategy, heartbeat.interval.ms, session.timeout.ms"),      # Kafka's order
])
def test_consumer_protocol_refuses_the_classic_configs(version, overrides, named):
    for protocol in ("consumer", "CONSUMER", " Consumer "):
        with pytest.raises(ConfigError) as err:
            consumer_config(version, {"group.protocol": protocol, **overrides})
        assert str(err.value) == f"{named} cannot be set when group.protocol=CONSUMER"


def test_consumer_protocol_accepts_what_it_does_not_refuse():
    cfg = consumer_config("4.0", {"group.protocol": "consumer", "group.remote.assignor": "range",
                                  "max.poll.interval.ms": 60000, "group.instance.id": "app-1"})
    assert (cfg["group.protocol"], cfg["group.remote.assignor"], cfg["max.poll.interval.ms"]) == \
        ("consumer", "range", 60000)
    # A blank value is not "set" (Utils.isBlank), and the consumer protocol has no client-side assignor to need.
    assert consumer_config("4.0", {"group.protocol": "consumer", "partition.assignment.strategy": ""})[
        "partition.assignment.strategy"] == []
    # The classic Heartbeat rule does not apply either.
    assert consumer_config("4.2", {"group.protocol": "consumer"})["session.timeout.ms"] == 45000
    # Before 4.0 ConsumerConfig had no such check: the configs were accepted (and not used).
    assert consumer_config("3.9", {"group.protocol": "consumer", "session.timeout.ms": 10000,
                                   "partition.assignment.strategy": "range"})["session.timeout.ms"] == 10000


@pytest.mark.parametrize("version, refused", [("3.7", False), ("3.8", False), ("3.9", True), ("4.0", True),
                                              ("4.1", True), ("4.2", True)])
def test_group_remote_assignor_only_with_the_consumer_protocol(version, refused):
    # 3.9: ConsumerConfig.checkGroupRemoteAssignor (KAFKA-15773); 4.0+: checkUnsupportedConfigs.
    assert consumer_config(version, {"group.protocol": "consumer", "group.remote.assignor": "uniform"})[
        "group.remote.assignor"] == "uniform"
    assert consumer_config(version, {"group.remote.assignor": None})["group.remote.assignor"] is None
    assert consumer_config(version, {"group.remote.assignor": " "})["group.remote.assignor"] == ""
    if refused:
        with pytest.raises(ConfigError) as err:
            consumer_config(version, {"group.remote.assignor": "uniform"})
        assert str(err.value) == "group.remote.assignor cannot be set when group.protocol=CLASSIC"
    else:
        assert consumer_config(version, {"group.remote.assignor": "uniform"})["group.remote.assignor"] == "uniform"


@pytest.mark.parametrize("version", V4)
def test_classic_consumer_in_4x_looks_up_its_assignors_as_before(version):
    assert consumer_config(version, {"partition.assignment.strategy": "RangeAssignor, sticky"})[
        "partition.assignment.strategy"] == ["range", "sticky"]
    with pytest.raises(ConfigError, match="unknown assignor"):
        consumer_config(version, {"partition.assignment.strategy": "uniform"})
    with pytest.raises(ConfigError, match="Must configure at least one partition assigner"):
        consumer_config(version, {"partition.assignment.strategy": ""})
    with pytest.raises(ConfigError, match="The assignor name: 'range' is used in more than one assignor"):
        consumer_config(version, {"partition.assignment.strategy": ["range", "RangeAssignor"]})


def test_assignment_strategy_list_validation_from_4_2():
    # KIP-1161 (KAFKA-19112): ConfigDef drops a repeated entry (with a WARN) and refuses an empty one.
    assert consumer_config("4.2", {"partition.assignment.strategy": "range,range"})[
        "partition.assignment.strategy"] == ["range"]
    with pytest.raises(ConfigError, match="'range' is used in more than one assignor"):
        consumer_config("4.1", {"partition.assignment.strategy": "range,range"})
    with pytest.raises(ConfigError) as err:
        consumer_config("4.2", {"partition.assignment.strategy": "range,,roundrobin"})
    assert str(err.value) == "Configuration 'partition.assignment.strategy' values must not be empty."
    with pytest.raises(ConfigError, match="unknown assignor"):
        consumer_config("4.1", {"partition.assignment.strategy": "range,,roundrobin"})


# -- auto.offset.reset=by_duration (KIP-1106, AutoOffsetResetStrategy.Validator, 4.0+) ----------------------
def _by_duration_error(value):
    return (f"Invalid value {value} for configuration auto.offset.reset: Invalid value `{value}` for configuration "
            "auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or of the format "
            "'by_duration:<PnDTnHnMn.nS.>'.")


@pytest.mark.parametrize("value", ["by_duration:PT1H", "by_duration:P1D", "by_duration:pt0.5s", "by_duration:PT0S",
                                   "by_duration:P2DT3H4M5.5S", "by_duration:P-1DT25H", "earliest", "none"])
def test_auto_offset_reset_by_duration_from_4_0(value):
    for version in V4:
        assert consumer_config(version, {"auto.offset.reset": value})["auto.offset.reset"] == value
    if value.startswith("by_duration"):
        with pytest.raises(ConfigError, match="String must be one of: latest, earliest, none"):
            consumer_config("3.9", {"auto.offset.reset": value})


@pytest.mark.parametrize("value", ["by_duration:-PT1H", "by_duration:PT-1S", "by_duration:PT", "by_duration:P",
                                   "by_duration:1H", "by_duration", "BY_DURATION:PT1H", "LATEST", "smallest",
                                   "by_duration:PT9223372036854775808S"])
def test_auto_offset_reset_refused_in_4x(value):
    with pytest.raises(ConfigError) as err:
        consumer_config("4.0", {"auto.offset.reset": value})
    assert str(err.value) == _by_duration_error(value)


# -- broker: the KIP-848 checks of GroupCoordinatorConfig (3.9+) / KafkaConfig (3.7, 3.8) ----------------------
@pytest.mark.parametrize("name", KIP848_BROKER[1:8])
def test_group_consumer_ints_are_at_least_1(name):
    with pytest.raises(ConfigError, match=re.escape(name)) as err:
        broker_config("4.0", {name: 0})
    assert "[1, +inf]" in str(err.value)


# The configs of GroupCoordinatorConfigTest.testInvalidConfigs (4.0.0), one broken rule each.
GROUP_RULES = [
    ({"group.consumer.max.heartbeat.interval.ms": 10, "group.consumer.min.heartbeat.interval.ms": 20,
      "group.consumer.heartbeat.interval.ms": 20},
     "group.consumer.max.heartbeat.interval.ms must be {ge} group.consumer.min.heartbeat.interval.ms "
     "(group.consumer.max.heartbeat.interval.ms=10, group.consumer.min.heartbeat.interval.ms=20)"),
    ({"group.consumer.max.heartbeat.interval.ms": 30, "group.consumer.min.heartbeat.interval.ms": 20,
      "group.consumer.heartbeat.interval.ms": 10},
     "group.consumer.heartbeat.interval.ms must be {ge} group.consumer.min.heartbeat.interval.ms "
     "(group.consumer.heartbeat.interval.ms=10, group.consumer.min.heartbeat.interval.ms=20)"),
    ({"group.consumer.max.heartbeat.interval.ms": 30, "group.consumer.min.heartbeat.interval.ms": 20,
      "group.consumer.heartbeat.interval.ms": 40},
     "group.consumer.heartbeat.interval.ms must be {le} group.consumer.max.heartbeat.interval.ms "
     "(group.consumer.heartbeat.interval.ms=40, group.consumer.max.heartbeat.interval.ms=30)"),
    ({"group.consumer.max.session.timeout.ms": 10, "group.consumer.min.session.timeout.ms": 20,
      "group.consumer.session.timeout.ms": 20},
     "group.consumer.max.session.timeout.ms must be {ge} group.consumer.min.session.timeout.ms "
     "(group.consumer.max.session.timeout.ms=10, group.consumer.min.session.timeout.ms=20)"),
    ({"group.consumer.max.session.timeout.ms": 30, "group.consumer.min.session.timeout.ms": 20,
      "group.consumer.session.timeout.ms": 10},
     "group.consumer.session.timeout.ms must be {ge} group.consumer.min.session.timeout.ms "
     "(group.consumer.session.timeout.ms=10, group.consumer.min.session.timeout.ms=20)"),
    ({"group.consumer.max.session.timeout.ms": 30, "group.consumer.min.session.timeout.ms": 20,
      "group.consumer.session.timeout.ms": 40},
     "group.consumer.session.timeout.ms must be {le} group.consumer.max.session.timeout.ms "
     "(group.consumer.session.timeout.ms=40, group.consumer.max.session.timeout.ms=30)"),
]
# Scala's require (KafkaConfig.validateValues) in 3.7 and 3.8; Utils.require in GroupCoordinatorConfig from 3.9;
# "equals to" became "equal to" in 4.0.
WORDING = {"3.7": ("requirement failed: ", "greater than or equals to", "less than or equals to"),
           "3.8": ("requirement failed: ", "greater than or equals to", "less than or equals to"),
           "3.9": ("", "greater than or equals to", "less than or equals to"),
           "4.0": ("", "greater than or equal to", "less than or equal to"),
           "4.1": ("", "greater than or equal to", "less than or equal to"),
           "4.2": ("", "greater than or equal to", "less than or equal to")}


@pytest.mark.parametrize("version", list(WORDING))
@pytest.mark.parametrize("overrides, message", GROUP_RULES)
def test_group_consumer_min_max_rules(version, overrides, message):
    prefix, ge, le = WORDING[version]
    with pytest.raises(ConfigError) as err:
        broker_config(version, overrides)
    assert str(err.value) == prefix + message.format(ge=ge, le=le)


@pytest.mark.parametrize("version", ["3.7", "3.8", "3.9", "4.0", "4.1", "4.2"])
def test_group_consumer_heartbeat_below_session_timeout_from_4_0(version):
    # KAFKA-17618 (4.0); the configs of GroupCoordinatorConfigTest.
    overrides = {"group.consumer.min.heartbeat.interval.ms": 45000, "group.consumer.max.heartbeat.interval.ms": 60000,
                 "group.consumer.heartbeat.interval.ms": 50000, "group.consumer.session.timeout.ms": 50000}
    if version < "4.0":
        assert broker_config(version, overrides)["group.consumer.heartbeat.interval.ms"] == 50000
        return
    with pytest.raises(ConfigError) as err:
        broker_config(version, overrides)
    assert str(err.value) == ("group.consumer.heartbeat.interval.ms must be less than "
                              "group.consumer.session.timeout.ms (group.consumer.heartbeat.interval.ms=50000, "
                              "group.consumer.session.timeout.ms=50000)")
    ok = broker_config(version, {**overrides, "group.consumer.session.timeout.ms": 50001})
    assert ok["group.consumer.session.timeout.ms"] == 50001


def test_group_consumer_rules_are_checked_together_with_the_older_broker_rule():
    # 3.7/3.8: at the end of KafkaConfig.validateValues; 3.9+: GroupCoordinatorConfig is built first.
    both = {"group.consumer.max.size": 5, "group.consumer.session.timeout.ms": 70000, "queued.max.request.bytes": 1}
    with pytest.raises(ConfigError, match="^requirement failed: queued.max.request.bytes"):
        broker_config("3.8", both)
    with pytest.raises(ConfigError, match="^group.consumer.session.timeout.ms must be less than or equals to"):
        broker_config("3.9", both)
    assert broker_config("4.0", {"group.consumer.max.size": 5})["group.consumer.max.size"] == 5


@pytest.mark.parametrize("version, valid", [
    ("3.7", "consumer, classic"), ("3.8", "consumer, classic, unknown"), ("3.9", "consumer, classic, share, unknown"),
    ("4.0", "consumer, classic, share"), ("4.1", "consumer, classic, share, streams"),
    ("4.2", "consumer, classic, share, streams"),
])
def test_rebalance_protocols_by_version(version, valid):
    # ConfigDef.ValidList.in(GroupType values): case-sensitive, Kafka's enum order.
    assert broker_config(version, {"group.coordinator.rebalance.protocols": "classic,consumer"})[
        "group.coordinator.rebalance.protocols"] == ["classic", "consumer"]
    for bad in ("CONSUMER", "eager"):
        with pytest.raises(ConfigError) as err:
            broker_config(version, {"group.coordinator.rebalance.protocols": f"classic,{bad}"})
        assert str(err.value) == (f"Invalid value {bad} for configuration group.coordinator.rebalance.protocols: "
                                  f"String must be one of: {valid}")
    # KafkaConfig.groupCoordinatorRebalanceProtocols
    with pytest.raises(ConfigError) as err:
        broker_config(version, {"group.coordinator.rebalance.protocols": "consumer"})
    assert str(err.value) == "Disabling the 'classic' protocol is not supported."


def test_rebalance_protocols_empty_and_repeated():
    with pytest.raises(ConfigError) as err:
        broker_config("4.1", {"group.coordinator.rebalance.protocols": ""})
    assert str(err.value) == "Disabling the 'classic' protocol is not supported."
    with pytest.raises(ConfigError) as err:  # 4.2: ValidList.in(false, ...), KIP-1161
        broker_config("4.2", {"group.coordinator.rebalance.protocols": ""})
    assert str(err.value) == ("Configuration 'group.coordinator.rebalance.protocols' must not be empty. Valid values "
                              "include: [consumer, classic, share, streams]")
    assert broker_config("4.2", {"group.coordinator.rebalance.protocols": "classic,classic"})[
        "group.coordinator.rebalance.protocols"] == ["classic"]
    assert broker_config("4.1", {"group.coordinator.rebalance.protocols": "classic,streams"})[
        "group.coordinator.rebalance.protocols"] == ["classic", "streams"]


@pytest.mark.parametrize("version", ["3.7", "3.8", "3.9"])
def test_server_assignors_by_class_name_before_4_0(version):
    cfg = broker_config(version, {"group.consumer.assignors": [RANGE, UNIFORM]})
    assert cfg["group.consumer.assignors"] == ["range", "uniform"]
    with pytest.raises(ConfigError, match=r"^Class uniform cannot be found \(3.7 - 3.9 name the server assignors by "
                                          r"Java class"):
        broker_config(version, {"group.consumer.assignors": "uniform"})
    iface = ("org.apache.kafka.coordinator.group.assignor.PartitionAssignor" if version == "3.7" else
             "org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor")
    with pytest.raises(ConfigError) as err:
        broker_config(version, {"group.consumer.assignors": "org.apache.kafka.clients.consumer.RangeAssignor"})
    assert str(err.value) == f"org.apache.kafka.clients.consumer.RangeAssignor is not an instance of {iface}"


@pytest.mark.parametrize("version", V4)
def test_server_assignors_by_name_from_4_0(version):
    cfg = broker_config(version, {"group.consumer.assignors": f"range, {UNIFORM}"})
    assert cfg["group.consumer.assignors"] == ["range", "uniform"]
    with pytest.raises(ConfigError, match=r"^Class foo cannot be found \(the server assignors are uniform and range"):
        broker_config(version, {"group.consumer.assignors": "foo"})
    with pytest.raises(ConfigError) as err:
        broker_config(version, {"group.consumer.assignors": "org.apache.kafka.clients.consumer.RangeAssignor"})
    assert str(err.value) == ("org.apache.kafka.clients.consumer.RangeAssignor is not an instance of "
                              "org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor")


def test_server_assignor_list_must_be_keyable_by_name():
    # GroupMetadataManager: Collectors.toMap(name) and consumerGroupAssignors().get(0), when the coordinator starts.
    dup = ("Duplicate key uniform (attempted merging values org.apache.kafka.coordinator.group.assignor.UniformAssignor"
           "@... and org.apache.kafka.coordinator.group.assignor.UniformAssignor@...)")
    for version, overrides in (("4.0", {"group.consumer.assignors": "uniform,uniform"}),
                               ("4.2", {"group.consumer.assignors": f"uniform,{UNIFORM}"}),
                               ("3.9", {"group.consumer.assignors": f"{UNIFORM},{UNIFORM}",
                                        "group.coordinator.rebalance.protocols": "classic,consumer"})):
        with pytest.raises(ConfigError) as err:
            broker_config(version, overrides)
        assert str(err.value) == dup
    # 4.2 drops the repeated entry first (KIP-1161); 3.7 - 3.9 build the map only with the consumer protocol on.
    assert broker_config("4.2", {"group.consumer.assignors": "uniform,uniform"})["group.consumer.assignors"] == \
        ["uniform"]
    assert broker_config("3.9", {"group.consumer.assignors": f"{UNIFORM},{UNIFORM}"})["group.consumer.assignors"] == \
        ["uniform", "uniform"]
    empty = {"group.consumer.assignors": ""}
    assert broker_config("3.9", empty)["group.consumer.assignors"] == []
    with pytest.raises(ConfigError) as err:
        broker_config("3.9", {**empty, "group.coordinator.rebalance.protocols": "classic,consumer"})
    assert str(err.value) == "Assignors must be set before building."
    with pytest.raises(ConfigError, match=r"^Index 0 out of bounds for length 0 \(GroupMetadataManager"):
        broker_config("4.1", empty)
    with pytest.raises(ConfigError) as err:
        broker_config("4.2", empty)
    assert str(err.value) == ("Configuration 'group.consumer.assignors' must not be empty. Valid values include: "
                              "any non-empty value")


def test_migration_policy():
    assert broker_config("4.0", {"group.consumer.migration.policy": "UPGRADE"})[
        "group.consumer.migration.policy"] == "upgrade"
    for version in ("3.8", "4.0"):
        with pytest.raises(ConfigError) as err:
            broker_config(version, {"group.consumer.migration.policy": "foobar"})
        # Word for word GroupCoordinatorConfigTest.testInvalidConfigs (4.0.0): the choices in HashSet order.
        assert str(err.value) == ("Invalid value foobar for configuration group.consumer.migration.policy: String "
                                  "must be one of (case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL")


def test_java_hash_set_order():
    assert java_hash_set_order(["BIDIRECTIONAL", "UPGRADE", "DOWNGRADE", "DISABLED"]) == \
        ["DISABLED", "DOWNGRADE", "UPGRADE", "BIDIRECTIONAL"]
    assert java_hash_set_order(["CLASSIC", "CONSUMER"]) == ["CONSUMER", "CLASSIC"]
    assert java_hash_set_order(["V1", "V2"]) == ["V1", "V2"]  # FieldSyntaxVersionTest
    many = [f"k{i}" for i in range(20)]  # resized table: still every element once
    assert sorted(java_hash_set_order(many)) == sorted(many)
