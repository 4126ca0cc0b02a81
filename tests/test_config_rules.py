"""Rules of `kafkasim.core.config` pinned by name (issue 29), each written from Kafka's source or
the module's docstrings, never from the code's output: how `java.time.Duration.parse` reads
``auto.offset.reset=by_duration:...`` (its Javadoc examples), the client.id a consumer names itself
by version, the share groups' startup checks (`GroupCoordinatorConfig`, `ShareGroupConfig`), and
the spec factories the config tables are built with (called again here: mutmut switches a mutant
on only after import, when the tables are already built)."""

from __future__ import annotations

import pytest

from kafkasim.core import config as C
from kafkasim.core.errors import ConfigError

NS = 10**9


# java.time.Duration.parse's Javadoc examples (JDK 17), in nanoseconds, and the overflows it throws on.
@pytest.mark.parametrize("text, nanos", [
    ("PT20.345S", 20_345_000_000), ("PT15M", 15 * 60 * NS), ("PT10H", 10 * 3600 * NS), ("P2D", 2 * 86400 * NS),
    ("P2DT3H4M", (2 * 86400 + 3 * 3600 + 4 * 60) * NS), ("PT-6H3M", (-6 * 3600 + 3 * 60) * NS),
    ("-PT6H3M", -(6 * 3600 + 3 * 60) * NS), ("-PT-6H+3M", (6 * 3600 - 3 * 60) * NS),
    # The fraction takes the sign of its seconds ("PT-0.5S" is minus half a second), and is
    # case-insensitive with a comma allowed for the point.
    ("PT-0.5S", -500_000_000), ("pt1,000000001s", NS + 1), ("PT0S", 0), ("PT1.S", NS),
    ("P0D", 0), ("PT0.000000001S", 1),
    # Long.MAX_VALUE seconds parse; one more, or a product or sum beyond a long, throws.
    ("PT9223372036854775807S", 9223372036854775807 * NS), ("PT9223372036854775808S", None),
    ("P106751991167301D", None), ("P106751991167300DT55807S", 9223372036854775807 * NS),
    ("P106751991167300DT55808S", None), ("PT2562047788015216H", None),
    ("PT2562047788015215H", 2562047788015215 * 3600 * NS),
    ("PT153722867280912931M", None),
    # "PT" with no time part, "P" alone, a fraction on minutes: Duration.parse throws.
    ("PT", None), ("pt", None), ("P1Dt", None), ("P", None), ("P1DT", None),
    # Long.MIN_VALUE seconds parse too; a product beyond a long throws even when the sum would fit back.
    ("PT-9223372036854775808S", -9223372036854775808 * NS), ("P106751991167301DT-24H", None), ("PT1.5M", None), ("1D", None), ("", None),
])
def test_a_duration_is_read_as_java_time_duration_parse_reads_it(text, nanos):
    assert C.java_duration_nanos(text) == nanos


@pytest.mark.parametrize("value, ok", [
    ("by_duration:PT0S", True), ("by_duration:P1D", True), ("by_duration:-PT1S", False),
    ("by_duration:PT-0.000000001S", False), ("by_duration:PT", False), ("by_duration:", False),
    ("latest", True), ("earliest", True), ("none", True), ("by_duration", False), ("LATEST", False),
])
def test_4_0_auto_offset_reset_takes_the_three_strategies_or_a_duration_not_negative(value, ok):
    """AutoOffsetResetStrategy.Validator (KIP-1106): a negative duration is refused, zero is not."""
    if ok:
        assert C.consumer_config("4.0", {"auto.offset.reset": value})["auto.offset.reset"] == value
    else:
        with pytest.raises(ConfigError) as e:
            C.consumer_config("4.0", {"auto.offset.reset": value})
        assert str(e.value) == (
            f"Invalid value {value} for configuration auto.offset.reset: Invalid value `{value}` for "
            "configuration auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or "
            "of the format 'by_duration:<PnDTnHnMn.nS.>'.")


def test_before_4_0_auto_offset_reset_is_a_plain_valid_string_without_durations():
    with pytest.raises(ConfigError, match="String must be one of: latest, earliest, none"):
        C.consumer_config("3.9", {"auto.offset.reset": "by_duration:PT1S"})


@pytest.mark.parametrize("version, group, instance, expected, calls", [
    # Up to 2.3 consumer-<n> whatever the group (KafkaConsumer at 2.3.0).
    ("2.3", "g", "i-1", "consumer-7", 1), ("2.3", "", None, "consumer-7", 1),
    # 2.4: the group id and the instance id, else the number; consumer-<n> without a group id.
    ("2.4", "g", "i-1", "consumer-g-i-1", 0), ("2.4", "g", None, "consumer-g-7", 1),
    ("2.4", "", None, "consumer-7", 1), ("2.4", "", "i-1", "consumer-7", 1),
    # 2.5+: always with the group id, so an empty one leaves two dashes (KAFKA-9344).
    ("2.5", "", None, "consumer--7", 1), ("2.5", "g", "i-1", "consumer-g-i-1", 0), ("4.0", "g", None, "consumer-g-7", 1),
])
def test_a_consumer_without_client_id_names_itself_by_version_and_draws_a_number_only_when_it_needs_one(
        version, group, instance, expected, calls):
    drawn = []
    assert C.generated_client_id(version, group, instance, lambda: drawn.append(7) or 7) == expected
    assert drawn == [7] * calls


# GroupCoordinatorConfig's share-group requires (4.0+), then ShareGroupConfig.validate's on the lock
# duration; from 4.3 the assignment interval (KIP-1263) and the delivery limit and record locks
# within their new bounds (KIP-1240). Each row breaks one rule by one and names it as Kafka does.
GE, LE = "greater than or equal to", "less than or equal to"
SHARE_RULES = [
    ("4.0", {"group.share.min.heartbeat.interval.ms": 15001},
     f"group.share.max.heartbeat.interval.ms must be {GE} group.share.min.heartbeat.interval.ms "
     "(group.share.max.heartbeat.interval.ms=15000, group.share.min.heartbeat.interval.ms=15001)"),
    ("4.0", {"group.share.heartbeat.interval.ms": 4999},
     f"group.share.heartbeat.interval.ms must be {GE} group.share.min.heartbeat.interval.ms "
     "(group.share.heartbeat.interval.ms=4999, group.share.min.heartbeat.interval.ms=5000)"),
    ("4.0", {"group.share.heartbeat.interval.ms": 15001},
     f"group.share.heartbeat.interval.ms must be {LE} group.share.max.heartbeat.interval.ms "
     "(group.share.heartbeat.interval.ms=15001, group.share.max.heartbeat.interval.ms=15000)"),
    ("4.0", {"group.share.min.session.timeout.ms": 60001},
     f"group.share.max.session.timeout.ms must be {GE} group.share.min.session.timeout.ms "
     "(group.share.max.session.timeout.ms=60000, group.share.min.session.timeout.ms=60001)"),
    ("4.0", {"group.share.session.timeout.ms": 44999},
     f"group.share.session.timeout.ms must be {GE} group.share.min.session.timeout.ms "
     "(group.share.session.timeout.ms=44999, group.share.min.session.timeout.ms=45000)"),
    ("4.0", {"group.share.session.timeout.ms": 60001},
     f"group.share.session.timeout.ms must be {LE} group.share.max.session.timeout.ms "
     "(group.share.session.timeout.ms=60001, group.share.max.session.timeout.ms=60000)"),
    ("4.0", {"group.share.min.session.timeout.ms": 10, "group.share.session.timeout.ms": 10,
             "group.share.min.heartbeat.interval.ms": 10, "group.share.heartbeat.interval.ms": 10},
     "group.share.heartbeat.interval.ms must be less than group.share.session.timeout.ms "
     "(group.share.heartbeat.interval.ms=10, group.share.session.timeout.ms=10)"),
    ("4.0", {"group.share.record.lock.duration.ms": 14999},
     f"group.share.record.lock.duration.ms must be {GE} group.share.min.record.lock.duration.ms "
     "(group.share.record.lock.duration.ms=14999, group.share.min.record.lock.duration.ms=15000)"),
    ("4.0", {"group.share.record.lock.duration.ms": 60001},
     f"group.share.max.record.lock.duration.ms must be {GE} group.share.record.lock.duration.ms "
     "(group.share.max.record.lock.duration.ms=60000, group.share.record.lock.duration.ms=60001)"),
    ("4.3", {"group.share.heartbeat.interval.ms": 4999},  # 4.3's rules come on top of 4.0's
     f"group.share.heartbeat.interval.ms must be {GE} group.share.min.heartbeat.interval.ms "
     "(group.share.heartbeat.interval.ms=4999, group.share.min.heartbeat.interval.ms=5000)"),
    ("4.3", {"group.share.min.assignment.interval.ms": 15001},
     f"group.share.max.assignment.interval.ms must be {GE} group.share.min.assignment.interval.ms "
     "(group.share.max.assignment.interval.ms=15000, group.share.min.assignment.interval.ms=15001)"),
    ("4.3", {"group.share.min.assignment.interval.ms": 1001},
     f"group.share.assignment.interval.ms must be {GE} group.share.min.assignment.interval.ms "
     "(group.share.assignment.interval.ms=1000, group.share.min.assignment.interval.ms=1001)"),
    ("4.3", {"group.share.assignment.interval.ms": 15001},
     f"group.share.assignment.interval.ms must be {LE} group.share.max.assignment.interval.ms "
     "(group.share.assignment.interval.ms=15001, group.share.max.assignment.interval.ms=15000)"),
    ("4.3", {"group.share.max.delivery.count.limit": 5, "group.share.delivery.count.limit": 6},
     f"group.share.max.delivery.count.limit must be {GE} group.share.delivery.count.limit "
     "(group.share.max.delivery.count.limit=5, group.share.delivery.count.limit=6)"),
    ("4.3", {"group.share.min.delivery.count.limit": 5, "group.share.delivery.count.limit": 4},
     f"group.share.delivery.count.limit must be {GE} group.share.min.delivery.count.limit "
     "(group.share.delivery.count.limit=4, group.share.min.delivery.count.limit=5)"),
    ("4.3", {"group.share.max.partition.max.record.locks": 2000, "group.share.partition.max.record.locks": 2001},
     f"group.share.max.partition.max.record.locks must be {GE} group.share.partition.max.record.locks "
     "(group.share.max.partition.max.record.locks=2000, group.share.partition.max.record.locks=2001)"),
    ("4.3", {"group.share.min.partition.max.record.locks": 2000, "group.share.partition.max.record.locks": 1999},
     f"group.share.partition.max.record.locks must be {GE} group.share.min.partition.max.record.locks "
     "(group.share.partition.max.record.locks=1999, group.share.min.partition.max.record.locks=2000)"),
]


@pytest.mark.parametrize("version, overrides, message", SHARE_RULES)
def test_the_share_group_startup_checks_refuse_each_broken_bound_naming_both_configs(version, overrides, message):
    with pytest.raises(ConfigError) as e:
        C.broker_config(version, overrides)
    assert str(e.value) == message


@pytest.mark.parametrize("version, overrides", [
    # Every bound met with equality: >= and <= hold when the two are equal.
    ("4.0", {"group.share.heartbeat.interval.ms": 5000, "group.share.max.heartbeat.interval.ms": 5000,
             "group.share.session.timeout.ms": 60000, "group.share.min.session.timeout.ms": 60000,
             "group.share.record.lock.duration.ms": 15000, "group.share.max.record.lock.duration.ms": 30000,
             "group.share.min.record.lock.duration.ms": 15000}),
    ("4.0", {"group.share.record.lock.duration.ms": 60000}),
    ("4.3", {"group.share.assignment.interval.ms": 15000, "group.share.min.assignment.interval.ms": 15000,
             "group.share.delivery.count.limit": 10, "group.share.min.delivery.count.limit": 5,
             "group.share.max.delivery.count.limit": 10, "group.share.partition.max.record.locks": 2000,
             "group.share.min.partition.max.record.locks": 2000, "group.share.max.partition.max.record.locks": 2000}),
    # Before 4.3 the record locks have no bound of their own to meet (4.3's max is 4000 by default).
    ("4.2", {"group.share.partition.max.record.locks": 5000}),
])
def test_the_share_group_startup_checks_accept_each_bound_met_exactly(version, overrides):
    cfg = C.broker_config(version, overrides)
    assert {k: cfg[k] for k in overrides} == overrides


def test_before_4_0_a_broker_has_no_share_configs_to_check():
    cfg = C.broker_config("3.9")
    assert cfg["group.share.session.timeout.ms"] is None and cfg["group.share.heartbeat.interval.ms"] is None


# -- the factories the tables are built with --------------------------------------------------------

def test_a_spec_keeps_list_defaults_as_tuples_so_no_caller_can_change_the_table():
    spec = C._spec("x.list", "list", [("1.0", ["a", "b"]), ("2.0", "c")], "The doc.", "The history.", low=1)
    assert spec == C.ConfigSpec("x.list", "list", (("1.0", ("a", "b")), ("2.0", "c")), "The doc.", "The history.",
                                low=1)
    got = spec.default("1.0")
    got.append("z")
    assert spec.default("1.0") == ["a", "b"]


def test_a_share_group_config_is_an_int_of_kip_932_whose_history_names_the_class_defining_it():
    spec = C._share_spec("group.share.x", [("4.0", 5), ("4.1", 6)], "The doc.", "ShareGroupConfig", low=2, high=10)
    assert spec == C.ConfigSpec(
        "group.share.x", "int", (("4.0", 5), ("4.1", 6)), "The doc.", f"{C._SHARE_HISTORY}; defined in ShareGroupConfig",
        low=2, high=10, added_by="KIP-932")
    assert C._SHARE_HISTORY.startswith("added in 4.0 (KIP-932 early access")


@pytest.mark.parametrize("name, kip", [
    # KIP-1263 adds the share assignment interval and its bounds; KIP-1240 the bounds of the per-group
    # delivery count limit and record locks.
    ("group.share.assignment.interval.ms", "KIP-1263"), ("group.share.min.assignment.interval.ms", "KIP-1263"),
    ("group.share.min.delivery.count.limit", "KIP-1240"), ("group.share.max.partition.max.record.locks", "KIP-1240"),
])
def test_a_4_3_share_config_is_an_int_added_in_4_3_by_the_kip_its_name_belongs_to(name, kip):
    spec = C._share_43_spec(name, 7, "The doc.", "GroupCoordinatorConfig", low=0, high=9)
    assert spec == C.ConfigSpec(name, "int", (("4.3", 7),), "The doc.",
                                f"added in 4.3 ({kip}); defined in GroupCoordinatorConfig", low=0, high=9,
                                added_by=kip)
    assert C.BROKER_CONFIGS[name].added_by == kip


# -- Java's HashSet order (printed by Java 17: `new HashSet<>()`, then add "x" + (i * 7919 % 1000) for i < n) --

JAVA_HASH_SET = {
    12: "x838,x271,x109,x757,x514,x190,x0,x676,x433,x919,x595,x352",
    13: "x271,x190,x676,x433,x595,x352,x838,x109,x757,x514,x0,x919,x28",
    24: "x461,x271,x380,x190,x623,x676,x137,x433,x785,x542,x299,x595,x352,x838,x947,x704,x109,x757,x218,x514,x866,"
        "x0,x919,x28",
    25: "x461,x380,x623,x785,x542,x838,x757,x218,x514,x56,x919,x271,x190,x676,x137,x433,x299,x595,x352,x947,x704,"
        "x109,x866,x0,x28",
}


@pytest.mark.parametrize("n", sorted(JAVA_HASH_SET))
def test_a_hash_set_iterates_as_javas_which_doubles_its_16_buckets_past_three_quarters_full(n):
    """12 elements fit 16 buckets, the 13th doubles them to 32; 24 fit 32, the 25th makes 64."""
    assert C.java_hash_set_order([f"x{i * 7919 % 1000}" for i in range(n)]) == JAVA_HASH_SET[n].split(",")


# -- Kafka's refusals, worded as Kafka words them ----------------------------------------------------

@pytest.mark.parametrize("version, value, message", [
    ("3.2", "", "Group instance id must be non-empty string"),  # JoinGroupRequest.validateGroupInstanceId
    ("3.3", "", "Invalid value  for configuration group.instance.id: String must be non-empty"),  # NonEmptyString
    ("2.3", ".", 'Group instance id cannot be "." or ".."'), ("2.3", "..", 'Group instance id cannot be "." or ".."'),
    ("2.3", "a" * 250, "Group instance id can't be longer than 249 characters: " + "a" * 250),
    ("2.3", "a b", "Group instance id \"a b\" is illegal, it contains a character other than ASCII alphanumerics, "
                   "'.', '_' and '-'"),
])
def test_a_group_instance_id_is_refused_as_join_group_request_validates_it(version, value, message):
    with pytest.raises(ConfigError) as e:
        C.consumer_config(version, {"group.instance.id": value})
    assert str(e.value) == message


@pytest.mark.parametrize("value", ["a" * 249, "...", "a.b_c-D9"])
def test_a_group_instance_id_of_249_legal_characters_is_accepted(value):
    assert C.consumer_config("2.3", {"group.instance.id": value})["group.instance.id"] == value


def test_an_empty_assignor_list_is_refused_as_kafka_consumer_refuses_it_at_subscribe():
    with pytest.raises(ConfigError) as e:
        C.consumer_config("3.0", {"partition.assignment.strategy": []})
    assert str(e.value) == ("Must configure at least one partition assigner class name to "
                            "partition.assignment.strategy configuration property")


def test_before_3_1_a_repeated_assignor_is_dropped_and_the_rest_kept_in_order():
    """KAFKA-13204 (3.1) made the repeat an error; before, every assignor after it still counts."""
    got = C.consumer_config("3.0", {"partition.assignment.strategy": ["range", "range", "roundrobin"]})
    assert got["partition.assignment.strategy"] == ["range", "roundrobin"]


@pytest.mark.parametrize("version, overrides, message", [
    ("4.3", {"group.consumer.min.assignment.interval.ms": 15001},
     f"group.consumer.max.assignment.interval.ms must be {GE} group.consumer.min.assignment.interval.ms "
     "(group.consumer.max.assignment.interval.ms=15000, group.consumer.min.assignment.interval.ms=15001)"),
    ("4.3", {"group.consumer.min.assignment.interval.ms": 1001},
     f"group.consumer.assignment.interval.ms must be {GE} group.consumer.min.assignment.interval.ms "
     "(group.consumer.assignment.interval.ms=1000, group.consumer.min.assignment.interval.ms=1001)"),
    ("4.3", {"group.consumer.assignment.interval.ms": 15001},
     f"group.consumer.assignment.interval.ms must be {LE} group.consumer.max.assignment.interval.ms "
     "(group.consumer.assignment.interval.ms=15001, group.consumer.max.assignment.interval.ms=15000)"),
    # 4.3 adds its rules to the others: the heartbeat interval is still checked there.
    ("4.3", {"group.consumer.heartbeat.interval.ms": 15001},
     f"group.consumer.heartbeat.interval.ms must be {LE} group.consumer.max.heartbeat.interval.ms "
     "(group.consumer.heartbeat.interval.ms=15001, group.consumer.max.heartbeat.interval.ms=15000)"),
    # The heartbeat interval at its maximum is still within it (<=), and one above is not.
    ("4.0", {"group.consumer.heartbeat.interval.ms": 15001},
     f"group.consumer.heartbeat.interval.ms must be {LE} group.consumer.max.heartbeat.interval.ms "
     "(group.consumer.heartbeat.interval.ms=15001, group.consumer.max.heartbeat.interval.ms=15000)"),
])
def test_4_3_checks_the_consumer_assignment_interval_within_its_bounds(version, overrides, message):
    with pytest.raises(ConfigError) as e:
        C.broker_config(version, overrides)
    assert str(e.value) == message


def test_4_3_accepts_the_consumer_assignment_interval_and_heartbeat_at_their_bounds():
    overrides = {"group.consumer.assignment.interval.ms": 15000, "group.consumer.min.assignment.interval.ms": 15000,
                 "group.consumer.heartbeat.interval.ms": 15000, "group.consumer.session.timeout.ms": 45000}
    cfg = C.broker_config("4.3", overrides)
    assert {k: cfg[k] for k in overrides} == overrides


@pytest.mark.parametrize("version, ok", [("0.10.0", False), ("0.10.1", True)])
def test_before_kip_74_replica_fetch_max_bytes_must_hold_one_message(version, ok):
    """KafkaConfig.validateValues 0.9.0 - 0.10.0 (gone in 0.10.1 with KIP-74); equal is enough."""
    assert C.broker_config(version, {"replica.fetch.max.bytes": 1000, "message.max.bytes": 1000})[
        "replica.fetch.max.bytes"] == 1000
    if ok:
        assert C.broker_config(version, {"replica.fetch.max.bytes": 999, "message.max.bytes": 1000})
        return
    with pytest.raises(ConfigError) as e:
        C.broker_config(version, {"replica.fetch.max.bytes": 999, "message.max.bytes": 1000})
    assert str(e.value) == ("requirement failed: replica.fetch.max.bytes should be equal or greater than "
                            "message.max.bytes (replica.fetch.max.bytes=999, message.max.bytes=1000)")


@pytest.mark.parametrize("name, value, message", [
    ("auto.offset.reset", "earliest",
     "Wrong value earliest of auto.offset.reset in ConsumerConfig; Valid values are smallest and largest"),
    ("offsets.storage", "Redis",
     "Wrong value redis of offsets.storage in consumer config; Valid values are 'zookeeper' and 'kafka'"),
    ("partition.assignment.strategy", "sticky",
     "Invalid value 'sticky' for configuration partition.assignment.strategy: must be range or roundrobin "
     "(Kafka 0.8.2 would silently use range for any other value)"),
    ("fetch.wait.max.ms", 30001,
     "requirement failed: socket.timeout.ms should always be at least fetch.wait.max.ms to prevent unnecessary "
     "socket timeouts (fetch.wait.max.ms=30001, socket.timeout.ms=30000)"),
])
def test_the_zookeeper_consumer_refuses_as_0_8_2_consumer_config_scala_does(name, value, message):
    with pytest.raises(ConfigError) as e:
        C.zookeeper_consumer_config({name: value})
    assert str(e.value) == message


@pytest.mark.parametrize("name, value, expected", [
    ("auto.offset.reset", "smallest", "smallest"), ("auto.offset.reset", "largest", "largest"),
    ("offsets.storage", "ZooKeeper", "zookeeper"), ("offsets.storage", "KAFKA", "kafka"),
    ("partition.assignment.strategy", "range", "range"), ("partition.assignment.strategy", "roundrobin", "roundrobin"),
    ("fetch.wait.max.ms", 30000, 30000),  # equal to socket.timeout.ms is "at least"
])
def test_the_zookeeper_consumer_accepts_each_valid_value(name, value, expected):
    assert C.zookeeper_consumer_config({name: value})[name] == expected


@pytest.mark.parametrize("name, value, protocol", [
    ("share.acknowledgement.mode", "explicit", "CLASSIC"), ("share.acquire.mode", "record_limit", "CLASSIC"),
])
def test_a_kafka_consumer_refuses_the_share_consumer_configs_naming_its_protocol(name, value, protocol):
    for overrides, shown in (({name: value}, "CLASSIC"), ({name: value, "group.protocol": "consumer"}, "CONSUMER")):
        with pytest.raises(ConfigError) as e:
            C.consumer_config("4.2", overrides)
        assert str(e.value) == (f"{name} cannot be set when group.protocol={shown} (share consumer configs: use "
                                "Scenario(group_type='share') for a KafkaShareConsumer)")


def test_a_kafka_consumer_names_every_share_config_it_refuses_in_order():
    with pytest.raises(ConfigError) as e:
        C.consumer_config("4.2", {"share.acquire.mode": "record_limit", "share.acknowledgement.mode": "explicit"})
    assert str(e.value).startswith("share.acknowledgement.mode, share.acquire.mode cannot be set when "
                                   "group.protocol=CLASSIC ")


@pytest.mark.parametrize("name, value, expected", [
    ("share.acknowledgement.mode", "EXPLICIT", "explicit"), ("share.acknowledgement.mode", "Implicit", "implicit"),
    ("share.acquire.mode", "RECORD_LIMIT", "record_limit"), ("share.acquire.mode", "batch_optimized", "batch_optimized"),
])
def test_a_share_mode_is_read_case_insensitively_and_kept_lower_cased(name, value, expected):
    assert C.share_consumer_config("4.2", {name: value})[name] == expected


@pytest.mark.parametrize("name, value, valid", [
    ("share.acknowledgement.mode", "auto", ("implicit", "explicit")),
    ("share.acquire.mode", "records", ("batch_optimized", "record_limit")),
])
def test_a_share_mode_outside_its_two_values_is_refused_naming_both(name, value, valid):
    with pytest.raises(ConfigError) as e:
        C.share_consumer_config("4.2", {name: value})
    assert str(e.value) == (f"Invalid value {value} for configuration {name}: Invalid value `{value}` for "
                            f"configuration {name}. The value must either be '{valid[0]}' or '{valid[1]}'.")


def test_a_config_too_new_for_the_version_names_the_version_and_the_kip_that_added_it():
    with pytest.raises(ConfigError) as e:
        C.consumer_config("2.2", {"group.instance.id": "a"})
    assert str(e.value) == ("Consumer config 'group.instance.id' does not exist in Kafka 2.2: it was added in Kafka 2.3 "
                            "(KIP-345, KAFKA-7862)")
    spec = C.ConfigSpec("x.y", "int", (("3.0", 1),), "doc")
    with pytest.raises(ConfigError) as e:
        C.check_exists("broker", spec, "2.8")
    assert str(e.value) == "Broker config 'x.y' does not exist in Kafka 2.8: it was added in Kafka 3.0"


def test_overrides_that_are_not_a_dict_are_refused_naming_their_type():
    with pytest.raises(ConfigError) as e:
        C.consumer_config("3.0", [("session.timeout.ms", 1)])
    assert str(e.value) == "consumer config overrides must be a dict of Kafka config names, got list"


# -- share groups on a broker: the deprecation warnings (KIP-1237) and when share RPCs are served (KIP-932) --

DEPRECATED = ("The config `group.coordinator.rebalance.protocols` is deprecated and will be removed in Kafka 5.0. ")
SHARE_DEPRECATED = ("'SHARE' in `group.coordinator.rebalance.protocols` is deprecated. Share groups are controlled by "
                    "the 'share.version' feature. This config will be removed in Kafka 5.0.")


def disabled(protocols: str) -> str:
    return (DEPRECATED + f"The following protocol(s) are currently disabled: {protocols}. In Kafka 5.0, all protocols "
            "will always be enabled and controlled solely by feature versions (group.version, streams.version, "
            "share.version) via kafka-features.sh. Please remove the configuration, which will restore all protocols "
            "to the default enabled state, to prepare for the upgrade.")


@pytest.mark.parametrize("version, protocols, warnings", [
    # KafkaConfig.groupCoordinatorRebalanceProtocols at v8.3.0: the default is classic, consumer, streams.
    ("4.3", ["classic"], [disabled("CONSUMER, STREAMS")]),
    ("4.3", ["classic", "consumer", "streams"], [DEPRECATED + "Please remove the configuration to prepare for the "
                                                               "upgrade."]),
    ("4.3", ["classic", "share"], [SHARE_DEPRECATED, disabled("CONSUMER, STREAMS")]),
    ("4.4", ["classic", "consumer", "streams", "share"],
     [SHARE_DEPRECATED, DEPRECATED + "Please remove the configuration to prepare for the upgrade."]),
    ("4.2", ["classic", "share"], []),  # the deprecation is 4.3's
])
def test_from_4_3_setting_the_rebalance_protocols_warns_naming_what_it_leaves_disabled(version, protocols, warnings):
    assert C.broker_config_warnings(version, {"group.coordinator.rebalance.protocols": protocols}) == warnings


def test_from_4_3_a_broker_that_leaves_the_rebalance_protocols_unset_logs_no_warning():
    assert C.broker_config_warnings("4.3") == []
    assert C.broker_config_warnings("4.3", {"group.max.size": 10}) == []


@pytest.mark.parametrize("version, overrides, share_version, served", [
    # 4.0: early access, group.share.enable=true or share among the rebalance protocols.
    ("4.0", {}, None, False), ("4.0", {"group.share.enable": True}, None, True),
    ("4.0", {"group.coordinator.rebalance.protocols": ["classic", "consumer", "share"]}, None, True),
    ("4.0", {}, 1, False),  # the feature does not exist in 4.0
    # 4.1: preview, the feature finalized by hand or group.share.enable.
    ("4.1", {}, None, False), ("4.1", {}, 1, True), ("4.1", {"group.share.enable": True}, None, True),
    ("4.1", {"group.coordinator.rebalance.protocols": ["classic", "share"]}, None, False),
    # 4.2: share.version=1 by default in a new cluster; 0 switches them off unless group.share.enable.
    ("4.2", {}, None, True), ("4.2", {}, 0, False), ("4.2", {"group.share.enable": True}, 0, True),
    # 4.3+: the feature alone.
    ("4.3", {}, None, True), ("4.3", {}, 0, False), ("4.4", {}, 0, False),
])
def test_a_broker_serves_share_rpcs_as_kafka_apis_is_share_group_protocol_enabled_decides(
        version, overrides, share_version, served):
    refusal = C.share_groups_refusal(version, overrides, share_version)
    assert (refusal is None) == served
    if not served:
        assert refusal == {
            "4.0": "share groups are early access in Kafka 4.0 and off by default: set group.share.enable=true or add "
                   "share to group.coordinator.rebalance.protocols",
            "4.1": "share groups are a preview in Kafka 4.1 and off by default: finalize the feature share.version=1 "
                   "(kafka-features.sh upgrade --feature share.version=1) or set group.share.enable=true",
        }.get(version, "share groups need the feature share.version=1 (kafka-features.sh upgrade --feature "
                       "share.version=1)")


def test_before_4_0_a_broker_has_no_share_groups_at_all():
    assert C.share_groups_refusal("3.9.1") == \
        "Kafka 3.9 has no share groups (KIP-932): they need Kafka 4.0 or later"


def test_4_3_removed_group_share_enable():
    with pytest.raises(ConfigError) as e:
        C.broker_config("4.3", {"group.share.enable": True})
    assert str(e.value) == ("Broker config 'group.share.enable' does not exist in Kafka 4.3 or later: share groups "
                            "are switched on by the share.version feature only (KafkaApis.isShareGroupProtocolEnabled)")
    assert C.broker_config("4.2", {"group.share.enable": True})["group.share.enable"] is True


@pytest.mark.parametrize("version, value, expected", [
    ("4.1", ["simple"], ["simple"]), ("4.1", ["org.apache.kafka.coordinator.group.assignor.SimpleAssignor"], ["simple"]),
    ("4.2", ["simple", "simple"], ["simple"]),  # 4.2's ValidList drops the repeat, then one is left
])
def test_the_share_assignor_list_names_exactly_the_simple_assignor(version, value, expected):
    assert C.broker_config(version, {"group.share.assignors": value})["group.share.assignors"] == expected


@pytest.mark.parametrize("version, value, message", [
    ("4.1", ["simple", "simple"], "group.share.assignors must contain exactly one assignor, but found 2"),
    ("4.1", [], "group.share.assignors must contain exactly one assignor, but found 0"),
    ("4.2", [], "Configuration 'group.share.assignors' must not be empty. Valid values include: any non-empty value"),
    ("4.1", ["uniform"], "Class uniform cannot be found (the share groups' only built-in assignor is simple, "
                         "org.apache.kafka.coordinator.group.assignor.SimpleAssignor)"),
])
def test_the_share_assignor_list_refuses_anything_but_one_simple_assignor(version, value, message):
    with pytest.raises(ConfigError) as e:
        C.broker_config(version, {"group.share.assignors": value})
    assert str(e.value) == message


# -- versions and ConfigDef's type checks ----------------------------------------------------------------

@pytest.mark.parametrize("version", [[3, 7], (3, -1), (3, True), (), "3", "3.7.1.2.0"])
def test_a_version_is_a_string_of_2_to_4_numbers_or_a_tuple_of_non_negative_ints(version):
    with pytest.raises(ConfigError) as e:
        C.parse_version(version)
    assert str(e.value).startswith(f"kafka_version must look like '3.7', '0.10.1' or '3.7.1', got {version!r}; "
                                   "supported versions: 0.9, 0.10.0, ")


@pytest.mark.parametrize("version, expected", [
    ("3.0", (3,)), ("3.7.0", (3, 7)), ("0.10.0", (0, 10)), ("0.9.0.1", (0, 9, 0, 1)), ((3, 7, 0), (3, 7))])
def test_trailing_zeros_do_not_count_so_a_line_and_its_first_release_compare_equal(version, expected):
    assert C.version_tuple(version) == expected


@pytest.mark.parametrize("version, hint", [
    ("0.8.2", " (Kafka before 0.9 has no group coordinator; the 0.8.2 ZooKeeper consumer is "
              "zookeeper_consumer_config())"),
    ("0.10.3", ""), ("4.5", ""), ("5.0", "")])
def test_an_unsupported_version_names_the_supported_ones_and_0_8_the_zookeeper_consumer(version, hint):
    with pytest.raises(ConfigError) as e:
        C.normalize_version(version)
    assert str(e.value) == (f"Unsupported kafka_version {version!r}{hint}; supported versions: "
                            f"{', '.join(C.KAFKA_VERSIONS)} (a release such as '3.7.1' maps to its line)")


INT = C.ConfigSpec("x.int", "int", (("1.0", 1),), "doc")
LONG = C.ConfigSpec("x.long", "long", (("1.0", 1),), "doc", low=0)
CAPPED = C.ConfigSpec("x.capped", "int", (("1.0", 1),), "doc", high=10)


@pytest.mark.parametrize("spec, value, message", [
    (INT, 2**31, "Invalid value 2147483648 for configuration x.int: Expected value to be a 32-bit integer "
                 "(valid range: [-2147483648, 2147483647])"),
    (INT, -2**31 - 1, "Invalid value -2147483649 for configuration x.int: Expected value to be a 32-bit integer "
                      "(valid range: [-2147483648, 2147483647])"),
    (INT, "5", "Invalid value '5' for configuration x.int: Expected value to be a 32-bit integer, but it was a str "
               "(valid range: [-2147483648, 2147483647])"),
    (INT, True, "Invalid value True for configuration x.int: Expected value to be a 32-bit integer, but it was a "
                "bool (valid range: [-2147483648, 2147483647])"),
    (LONG, 2**63, "Invalid value 9223372036854775808 for configuration x.long: Expected value to be a 64-bit "
                  "integer (long) (valid range: [0, 9223372036854775807])"),
    (CAPPED, 2**31, "Invalid value 2147483648 for configuration x.capped: Expected value to be a 32-bit integer "
                    "(valid range: [-2147483648, 10])"),
    (CAPPED, 11, "Invalid value 11 for configuration x.capped: Value must be no more than 10 "
                 "(valid range: [-inf, 10])"),
    (C.ConfigSpec("x.bool", "boolean", (("1.0", True),), "doc"), "yes",
     "Invalid value 'yes' for configuration x.bool: Expected value to be either true or false"),
    (C.ConfigSpec("x.str", "string", (("1.0", "a"),), "doc"), 5,
     "Invalid value 5 for configuration x.str: Expected value to be a string, but it was a int"),
    (C.ConfigSpec("x.list", "list", (("1.0", ()),), "doc"), 5,
     "Invalid value 5 for configuration x.list: Expected a comma separated list."),
])
def test_a_value_of_the_wrong_type_or_size_is_refused_as_config_def_words_it(spec, value, message):
    with pytest.raises(ConfigError) as e:
        spec.validate(value, "1.0")
    assert str(e.value) == message


@pytest.mark.parametrize("spec, value", [(INT, 2**31 - 1), (INT, -2**31), (LONG, 2**63 - 1), (CAPPED, 10)])
def test_the_ends_of_a_java_int_or_long_and_of_a_range_are_valid(spec, value):
    assert spec.validate(value, "1.0") == value


def test_a_valid_string_list_changes_from_the_version_its_history_says():
    spec = C.ConfigSpec("x.mode", "string", (("1.0", "a"),), "doc", choices=("a",),
                        choices_history=(("2.0", ("a", "b")), ("3.0", ("b",))))
    assert spec.validate("b", "2.0") == "b"
    with pytest.raises(ConfigError, match=r"^Invalid value b for configuration x.mode: String must be one of: a$"):
        spec.validate("b", "1.0")
    with pytest.raises(ConfigError, match=r"^Invalid value a for configuration x.mode: String must be one of: b$"):
        spec.validate("a", "3.0")


def test_a_config_table_with_a_type_kafkasim_does_not_know_fails_naming_it():
    with pytest.raises(AssertionError, match=r"^unknown config type 'double' for x.ratio$"):
        C.ConfigSpec("x.ratio", "double", (("1.0", 0.5),), "doc").validate(0.5, "1.0")


@pytest.mark.parametrize("valid, value, expected", [
    (("implicit", "explicit"), "EXPLICIT", "explicit"), (("batch_optimized", "record_limit"), "Record_Limit",
                                                         "record_limit")])
def test_a_share_mode_validator_keeps_a_valid_value_lower_cased(valid, value, expected):
    """ShareAcknowledgementMode/ShareAcquireMode.Validator, built again here (the tables ran it at import)."""
    spec = C.SHARE_CONSUMER_CONFIGS["share.acquire.mode"]
    assert C._share_mode_check(valid)(spec, value, (4, 2)) == expected


def test_a_share_mode_validator_refuses_a_third_value_naming_both_valid_ones():
    spec = C.SHARE_CONSUMER_CONFIGS["share.acknowledgement.mode"]
    with pytest.raises(ConfigError) as e:
        C._share_mode_check(("implicit", "explicit"))(spec, "Auto", (4, 2))
    assert str(e.value) == ("Invalid value Auto for configuration share.acknowledgement.mode: Invalid value `Auto` for "
                            "configuration share.acknowledgement.mode. The value must either be 'implicit' or "
                            "'explicit'.")


@pytest.mark.parametrize("version, refused", [("4.0", False), ("4.1", True)])
def test_from_4_1_a_share_consumer_refuses_the_configs_a_share_group_cannot_use(version, refused):
    """ShareConsumerConfig.checkUnsupportedConfigsPreProcess (4.1); 4.0 ignores them."""
    overrides = {"group.protocol": "consumer", "auto.offset.reset": "earliest"}
    if not refused:
        assert "group.protocol" not in C.share_consumer_config(version, overrides)
        return
    with pytest.raises(ConfigError) as e:
        C.share_consumer_config(version, overrides)
    assert str(e.value) == "auto.offset.reset, group.protocol cannot be set when using a share group."


@pytest.mark.parametrize("call, message", [
    (lambda: C.share_consumer_config("4.1", [("a", 1)]),
     "share consumer config overrides must be a dict of Kafka config names, got list"),
    (lambda: C.share_consumer_config("4.1", {"share.acquire.mode": "record_limit"}),
     "Share consumer config 'share.acquire.mode' does not exist in Kafka 4.1: it was added in Kafka 4.2 (KIP-1206)"),
    (lambda: C.zookeeper_consumer_config({"zookeeper.sesion.timeout.ms": 1}),
     "Unknown ZooKeeper consumer config 'zookeeper.sesion.timeout.ms'; did you mean 'zookeeper.session.timeout.ms'?"),
])
def test_each_kind_of_config_names_itself_in_its_refusals(call, message):
    with pytest.raises(ConfigError) as e:
        call()
    assert str(e.value) == message


SERVER = "org.apache.kafka.coordinator.group.assignor."
HINT_4 = f"the server assignors are uniform and range, by name or Java class: {SERVER}UniformAssignor, {SERVER}RangeAssignor"


@pytest.mark.parametrize("version, item, message", [
    # KAFKA-20843 (4.4) words both refusals as ConfigException(name, value, message).
    ("4.3", "sticky", f"Class sticky cannot be found ({HINT_4})"),
    ("4.4", "sticky", f"Invalid value sticky for configuration group.consumer.assignors: Class cannot be found ({HINT_4})"),
    ("4.3", "com.example.Mine", f"Class com.example.Mine cannot be found ({HINT_4})"),  # unknown even with a dot
    ("4.3", "org.apache.kafka.clients.consumer.RangeAssignor",
     "org.apache.kafka.clients.consumer.RangeAssignor is not an instance of "
     "org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor"),
    ("4.4", "org.apache.kafka.clients.consumer.RangeAssignor",
     "Invalid value org.apache.kafka.clients.consumer.RangeAssignor for configuration group.consumer.assignors: "
     "Class is not an instance of org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor"),
])
def test_a_server_assignor_that_is_not_one_is_refused_in_its_versions_wording(version, item, message):
    with pytest.raises(ConfigError) as e:
        C.broker_config(version, {"group.consumer.assignors": [item]})
    assert str(e.value) == message


@pytest.mark.parametrize("version, message", [
    # 3.9 builds the assignor map only with the consumer protocol on; 4.0 always, and an empty list
    # fails on its first entry, the default.
    ("3.9", None),
    ("4.0", "Index 0 out of bounds for length 0 (GroupMetadataManager: group.consumer.assignors is empty, and its "
            "first entry is the default assignor)"),
])
def test_an_empty_server_assignor_list_fails_when_the_coordinator_builds_its_map(version, message):
    overrides = {"group.consumer.assignors": [], "group.coordinator.rebalance.protocols": ["classic"]}
    if message is None:
        assert C.broker_config(version, overrides)["group.consumer.assignors"] == []
        return
    with pytest.raises(ConfigError) as e:
        C.broker_config(version, overrides)
    assert str(e.value) == message


def test_a_zero_heartbeat_interval_is_refused_as_a_limit_of_kafkasim_not_of_kafka():
    with pytest.raises(ConfigError) as e:
        C.consumer_config("3.7", {"heartbeat.interval.ms": 0})
    assert str(e.value) == ("heartbeat.interval.ms=0: Kafka accepts it (the heartbeat thread then sends one heartbeat "
                            "per round trip), but kafkasim's requests take no time, so heartbeats would never let "
                            "time pass; use 1 ms or more")


def test_a_spec_without_history_has_an_empty_one():
    assert C._spec("x.y", "int", [("1.0", 1)], "doc").history == ""
    assert C.ZOOKEEPER_CONSUMER_CONFIGS["fetch.min.bytes"].history == ""
