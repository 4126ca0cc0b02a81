"""Broker log lines in Kafka's layout and wording, by version (kafka-broker-log-wording.md)."""

import re

import pytest

from kafkasim.broker_log import BrokerLog, java_string_hash, offsets_partition, parse_version
from kafkasim.errors import Errors

from coordinator_helpers import join, new_coordinator, stable_group, two_step_join

LAYOUT = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] INFO (\[GroupCoordinator[^\]]*\]:? )(.*) \(([\w.]+)\)$")


def test_java_hash_and_offsets_partition_match_java():
    assert java_string_hash("hello") == 99162322  # "hello".hashCode()
    assert java_string_hash("polygenelubricants") == -2147483648  # the famous Integer.MIN_VALUE hash
    assert offsets_partition("polygenelubricants") == 0  # Utils.abs(MIN_VALUE) is 0
    assert offsets_partition("g") == 103 % 50


def test_every_line_has_kafkas_layout_and_the_clock_maps_to_the_start_date():
    sim, coord, ids, leader = stable_group(3, group_initial_rebalance_delay_ms=3000)
    coord.leave_group("g", [ids[1]])
    sim.advance(61_000)
    assert coord.broker_log
    for line in coord.broker_log:
        m = LAYOUT.match(line)
        assert m, line
        assert m.group(2) == "[GroupCoordinator 0]: " and m.group(4) == "kafka.coordinator.group.GroupCoordinator"
    assert coord.broker_log[0].startswith("[2026-01-01 00:00:00,000]")
    expired_at = next(r[0] for r in sim.events.rows if r[4] == "MemberRemoved" and r[9] == "session_timeout")
    assert expired_at > 10_000
    stamp = f"[2026-01-01 00:00:{expired_at // 1000:02d},{expired_at % 1000:03d}]"
    assert any(line.startswith(stamp) and "has failed" in line for line in coord.broker_log)


def test_the_issue_example_line():
    sim, coord = new_coordinator(group_initial_rebalance_delay_ms=3000)
    two_step_join(coord, client_id="c")
    line = next(x for x in coord.broker_log if "Preparing" in x)
    assert re.fullmatch(
        r"\[2026-01-01 00:00:00,000\] INFO \[GroupCoordinator 0\]: Preparing to rebalance group g in state "
        r"PreparingRebalance with old generation 0 \(__consumer_offsets-3\) \(reason: Adding new member c-[0-9a-f-]{36} "
        r"with group instance id None; client reason: not provided\) \(kafka.coordinator.group.GroupCoordinator\)", line)


def _lines_for(version):
    sim, coord = new_coordinator(kafka_version=version, group_initial_rebalance_delay_ms=0)
    a, b = two_step_join(coord), two_step_join(coord)
    sim.advance(0)
    coord.sync_group("g", a.leader_id, 1, {})
    coord.sync_group("g", b.member_id, 1)
    coord.leave_group("g", [b.member_id])
    sim.advance(60_000)  # a never rejoins nor heartbeats
    return coord.broker_log


@pytest.mark.parametrize("version,expected", [
    ("0.10.0", ["Preparing to restabilize group g with old generation 0",
                "Stabilized group g generation 1",
                "Assignment received from leader for group g for generation 1",
                "Group g generation 1 is dead and removed"]),
    ("2.0", ["Preparing to rebalance group g with old generation 0 (__consumer_offsets-3)",
             "Stabilized group g generation 1 (__consumer_offsets-3)"]),
    ("2.4", ["in state PreparingRebalance with old generation 1 (__consumer_offsets-3) (reason: removing member",
             "has left, removing it from the group",
             "Member[group.instance.id None, member.id consumer-"]),
    ("2.8", ["Stabilized group g generation 1 (__consumer_offsets-3) with 2 members",
             "The group has 2 members, 0 of which are static.",
             "Group g with generation 2 is now empty (__consumer_offsets-3)"]),
    ("3.7", ["Assignment received from leader consumer-",
             "has left group g through explicit `LeaveGroup`; client reason: not provided",
             "Removing member consumer-", "on LeaveGroup; client reason: not provided)",
             "Member consumer-", "in group g has failed, removing it from the group"]),
    ("4.0", ["[GroupCoordinator id=0 topic=__consumer_offsets partition=3] Preparing to rebalance group g in state "
             "PreparingRebalance with old generation 0 (reason: Adding new member consumer-",
             "Stabilized group g generation 1 with 2 members.",
             "Group g with generation 2 is now empty.",
             "(org.apache.kafka.coordinator.group.GroupMetadataManager)"]),
])
def test_wording_follows_the_version(version, expected):
    text = "\n".join(_lines_for(version))
    for fragment in expected:
        assert fragment in text, f"{version}: {fragment!r} not in log"


def test_old_versions_omit_the_partition_and_the_reason():
    text = "\n".join(_lines_for("0.10.0"))
    assert "__consumer_offsets" not in text and "reason:" not in text
    assert "(kafka.coordinator.GroupCoordinator)" in text


def test_bad_version_is_rejected():
    with pytest.raises(ValueError, match="kafka_version"):
        parse_version("three")
    with pytest.raises(ValueError, match="kafka_version"):
        BrokerLog("")


def test_error_codes_match_kafka():
    codes = {e.name: e.code for e in Errors}
    assert codes["NONE"] == 0 and codes["UNKNOWN_SERVER_ERROR"] == -1
    assert codes["ILLEGAL_GENERATION"] == 22 and codes["UNKNOWN_MEMBER_ID"] == 25
    assert codes["REBALANCE_IN_PROGRESS"] == 27 and codes["MEMBER_ID_REQUIRED"] == 79
    assert codes["GROUP_MAX_SIZE_REACHED"] == 81 and codes["FENCED_INSTANCE_ID"] == 82
    assert Errors.for_code(81) is Errors.GROUP_MAX_SIZE_REACHED
    assert Errors.GROUP_MAX_SIZE_REACHED.exception == "GroupMaxSizeReachedException"
    with pytest.raises(ValueError, match="unknown Kafka error code 77"):
        Errors.for_code(77)  # KIP-389 proposed 77; Kafka shipped 81
