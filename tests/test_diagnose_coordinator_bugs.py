"""The coordinator failing to write `__consumer_offsets` (rules.coordinator_failing, client_rules.coordinator_failing,
diagnose/offsets.py, the broker lines analysis/logs/broker.py reads for them) and client bugs read from the clients'
own lines (bugs.KNOWN_BUGS rows with `clients`, bugs.client_matches): lines written from Kafka's and the clients'
format strings, each with a log that must fire the rule and one that must not."""

from __future__ import annotations

from datetime import datetime

import pytest

from kafkasim.analysis.diagnose import bugs, diagnose_lines, diagnose_rows
from kafkasim.analysis.diagnose.model import Line
from kafkasim.analysis.log_parser import ROW_FIELDS, parse_lines

# The partitions are the ones Kafka itself printed beside these group ids in the corpus's server.logs
# (tests/data/incidents/yolean-k8s-kafka-108, librdkafka-2722): GroupMetadataManager.partitionFor at 50 partitions.
SESSIONS, TRACKS = "user-sessions-stream", "LocalizeTracks"
GC = " (kafka.coordinator.group.GroupCoordinator)"


def _broker(s: int, text: str, level: str = "INFO", logger: str = GC) -> str:
    return f"[2020-02-19 10:59:{s:02d},000] {level} {text}{logger}"


def _cycle(group: str, p: int, reason: str = "removing member m-1 on heartbeat expiration") -> list[str]:
    """A rebalance of `group` (GroupCoordinator.scala 2.1 - 3.9 wordings) with the given reason."""
    return [_broker(1, f"[GroupCoordinator 1]: Preparing to rebalance group {group} in state PreparingRebalance with "
                       f"old generation 4 (__consumer_offsets-{p}) (reason: {reason})"),
            _broker(2, f"[GroupCoordinator 1]: Stabilized group {group} generation 5 (__consumer_offsets-{p})"),
            _broker(2, f"[GroupCoordinator 1]: Assignment received from leader for group {group} for generation 5")]


def _append_error(s: int, partition: str) -> list[str]:
    # ReplicaManager.appendToLocalLog (1.0+ logIdent) and the Throwable log4j prints on the next line
    # (Partition.appendRecordsToLeader, 2.2+ wording).
    return [_broker(s, f"[ReplicaManager broker=1] Error processing append operation on partition {partition}",
                    "ERROR", " (kafka.server.ReplicaManager)"),
            "org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR Set(1) is "
            f"insufficient to satisfy the min.isr requirement of 2 for partition {partition}"]


def _causes(report) -> list[tuple]:
    return [(f.cause, f.group, f.score) for f in report.findings]


def test_a_failed_append_to_the_groups_offsets_partition_names_the_coordinator():
    lines = _cycle(SESSIONS, 32) + _append_error(3, "__consumer_offsets-32")
    report = diagnose_lines(lines, "server.log")
    assert _causes(report) == [("broker-bug-or-coordinator", SESSIONS, 0.85)]
    assert report.findings[0].evidence == [Line("server.log", 4)]


@pytest.mark.parametrize("partition", ["__consumer_offsets-33", "orders-32"])
def test_a_failed_append_elsewhere_is_not_this_groups(partition):
    report = diagnose_lines(_cycle(SESSIONS, 32) + _append_error(3, partition), "server.log")
    assert report.findings == []


def test_replica_manager_lines_about_other_topics_stay_other_loggers_lines():
    result = parse_lines(_append_error(3, "orders-32")[:1])
    assert result.rows == [] and result.counts["other"] == 1 and result.counts["coordinator"] == 0


def test_a_partition_number_no_int32_holds_is_left_empty():
    line = _broker(3, "[ReplicaManager broker=1] Error processing append operation on partition "
                      "__consumer_offsets-99999999999", "ERROR", " (kafka.server.ReplicaManager)")
    result = parse_lines([line])
    assert [dict(zip(ROW_FIELDS, r))["partition"] for r in result.rows] == [None]
    result.events_table()  # the Arrow columns take it


@pytest.mark.parametrize("partition,expected", [("2147483647", 2147483647), ("2147483648", None)])
def test_a_partition_number_is_kept_up_to_the_largest_int32(partition, expected):
    """A partition is a Java int (TopicPartition.partition): Int.MaxValue is the last number a line can
    name and the events' int32 partition column holds; one more is left empty."""
    line = _broker(3, "[ReplicaManager broker=1] Error processing append operation on partition "
                      f"__consumer_offsets-{partition}", "ERROR", " (kafka.server.ReplicaManager)")
    result = parse_lines([line])
    assert [dict(zip(ROW_FIELDS, r))["partition"] for r in result.rows] == [expected]
    result.events_table()


def test_an_isr_shrink_keeps_the_isr_before_as_reason_and_the_replicas_left_in_sync_as_value():
    """Partition.scala maybeShrinkIsr (4.0 wording, logIdent `[Partition tp broker=N] `): "Shrinking ISR from
    ${isr.mkString(",")} to $newIsrLog. Leader: ... Out of sync replicas: ...": from 1,2,3 to 1,3, broker 2 fell
    out; the ISR before is the row's reason, the 2 replicas still in sync its value."""
    line = _broker(40, "[Partition __consumer_offsets-12 broker=1] Shrinking ISR from 1,2,3 to 1,3. Leader: "
                       "(highWatermark: 4081, endOffset: 4097). Out of sync replicas: (brokerId: 2, endOffset: 4081, "
                       "lastCaughtUpTimeMs: 1582106349117).", logger=" (kafka.cluster.Partition)")
    rows = [dict(zip(ROW_FIELDS, r)) for r in parse_lines([line], origin=datetime(2020, 2, 19, 10, 59)).rows]
    assert [(r["time"], r["kind"], r["topic"], r["partition"], r["group"], r["reason"], r["value"]) for r in rows] == [
        (40_000, "OffsetsIsrShrunk", "__consumer_offsets", 12, None, "1,2,3", 2)]


def test_the_0_10_replica_manager_prefix_and_partition_name_are_read():
    # 0.9 - 0.11: logIdent "[Replica Manager on Broker N]: ", TopicAndPartition printed as [topic,partition].
    line = _broker(3, "[Replica Manager on Broker 1]: Error processing append operation on partition "
                      "[__consumer_offsets,32]", "ERROR", " (kafka.server.ReplicaManager)")
    row = dict(zip(ROW_FIELDS, parse_lines([line]).rows[0]))
    assert (row["kind"], row["topic"], row["partition"], row["group"]) == ("OffsetsAppendFailed",
                                                                          "__consumer_offsets", 32, None)


@pytest.mark.parametrize("reason", [
    "error when storing group assignment during SyncGroup (member: m-1)",                         # 2.1 - 2.8
    "Error when storing group assignment during SyncGroup (member: m-1)",                         # 3.0 - 3.4
    "Error COORDINATOR_NOT_AVAILABLE when storing group assignment during SyncGroup (member: m-1)",  # 3.5 - 3.9
])
def test_the_sync_group_store_failure_reason_names_the_coordinator(reason):
    report = diagnose_lines(_cycle(TRACKS, 25, reason), "server.log")
    assert _causes(report) == [("broker-bug-or-coordinator", TRACKS, 0.9)]
    assert report.findings[0].evidence == [Line("server.log", 1)]


def test_an_isr_shrink_of_the_offsets_partition_alone_is_a_weak_finding_and_with_a_store_failure_joins_it():
    # Partition.maybeShrinkIsr, 2.2+ wording with its Leader/Out of sync tail.
    shrink = _broker(0, "[Partition __consumer_offsets-25 broker=3] Shrinking ISR from 3,1 to 3. Leader: "
                        "(highWatermark: 1844937, endOffset: 1876468). Out of sync replicas: (brokerId: 1, endOffset: "
                        "1844937).", logger=" (kafka.cluster.Partition)")
    alone = diagnose_lines([shrink] + _cycle(TRACKS, 25), "server.log")
    assert _causes(alone) == [("broker-bug-or-coordinator", TRACKS, 0.5)]
    both = diagnose_lines([shrink] + _cycle(TRACKS, 25, "error when storing group assignment during SyncGroup "
                                                          "(member: m-1)"), "server.log")
    # base 0.9 (the store failure) + 0.02 for the second line shown
    assert _causes(both) == [("broker-bug-or-coordinator", TRACKS, 0.92)]
    assert both.findings[0].evidence == [Line("server.log", 2), Line("server.log", 1)]
    other = shrink.replace("__consumer_offsets-25", "__consumer_offsets-26")
    assert diagnose_lines([other] + _cycle(TRACKS, 25), "server.log").findings == []


def test_store_group_append_failures_are_read_with_their_exception_at_their_lines_time():
    # GroupMetadataManager.storeGroup (1.0 - 3.9), ERROR, both wordings.
    lines = _cycle(TRACKS, 25) + [
        _broker(3, "[GroupMetadataManager brokerId=1] Appending metadata message for group LocalizeTracks generation 5 "
                   "failed due to org.apache.kafka.common.errors.RecordTooLargeException, returning UNKNOWN error code "
                   "to the client", "ERROR", " (kafka.coordinator.group.GroupMetadataManager)"),
        _broker(4, "[GroupMetadataManager brokerId=1] Appending metadata message for group LocalizeTracks generation 5 "
                   "failed due to unexpected error: org.apache.kafka.common.errors.CorruptRecordException", "ERROR",
                " (kafka.coordinator.group.GroupMetadataManager)")]
    # each at its line's time: 10:59:03 and 10:59:04, in ms from an origin at 10:59:00
    rows = [dict(zip(ROW_FIELDS, r)) for r in parse_lines(lines, origin=datetime(2020, 2, 19, 10, 59)).rows
            if r[4] == "GroupStoreFailed"]
    assert [(r["time"], r["group"], r["generation"], r["reason"]) for r in rows] == [
        (3000, TRACKS, 5, "org.apache.kafka.common.errors.RecordTooLargeException"),
        (4000, TRACKS, 5, "org.apache.kafka.common.errors.CorruptRecordException")]
    assert _causes(diagnose_lines(lines, "server.log")) == [("broker-bug-or-coordinator", TRACKS, 0.92)]


def test_the_coordinator_of_the_groups_partition_moving_is_network():
    # GroupCoordinator.onResignation / onElection (2.8 - 3.9).
    moved = [_broker(9, "[GroupCoordinator 1]: Resigned as the group coordinator for partition 25 in epoch 7")]
    assert _causes(diagnose_lines(_cycle(TRACKS, 25) + moved, "server.log")) == [("network", TRACKS, 0.6)]
    elsewhere = [moved[0].replace("partition 25", "partition 24")]
    assert diagnose_lines(_cycle(TRACKS, 25) + elsewhere, "server.log").findings == []


# -- client bugs, from the clients' lines ---------------------------------------------------------------------
RD = "%{lvl}|1625755{s:03d}.261|{fac}|rdkafka#consumer-1| [thrd:main]: "
# src/rdkafka_cgrp.c rd_kafka_cgrp_session_timeout_check (v1.4.0+); the last error as rd_kafka_err2str words it.
SESSTMOUT = (RD.format(lvl=4, s=725, fac="SESSTMOUT") + "Consumer group session timed out (in join-state steady) "
             "after 26100 ms without a successful response from the group coordinator (broker 10004, last error was "
             "{error}): revoking assignment and rejoining group")
# src/rdkafka.c rd_kafka_new: "librdkafka v%s (0x%x) %s initialized (builtin.features %s, debug 0x%x)"
INIT = (RD.format(lvl=7, s=700, fac="INIT") + "librdkafka v{v} (0x10700ff) rdkafka#consumer-1 initialized "
        "(builtin.features gzip,snappy, debug 0x2000)")


def test_librdkafka_3450_a_session_timeout_while_the_coordinator_answered_rebalance_in_progress():
    report = diagnose_lines([SESSTMOUT.format(error="Broker: Group rebalance in progress")], "app.log")
    assert _causes(report)[0] == ("client-bug", None, 0.8)
    assert report.findings[0].summary.startswith("librdkafka#3450, fixed in librdkafka 1.8.0: if your client runs "
                                                 "librdkafka 1.4.0 to 1.7.0")
    assert report.findings[0].evidence == [Line("app.log", 1)]


def test_librdkafka_3450_with_the_release_in_the_log_scores_higher_or_not_at_all():
    sess = SESSTMOUT.format(error="Broker: Group rebalance in progress")
    affected = diagnose_lines([INIT.format(v="1.7.0"), sess], "app.log")
    assert _causes(affected)[0] == ("client-bug", None, 0.9)
    assert "your log shows librdkafka 1.7, an affected release" in affected.findings[0].summary
    fixed = diagnose_lines([INIT.format(v="1.8.2"), sess], "app.log")
    assert "client-bug" not in [f.cause for f in fixed.findings]


def test_librdkafka_3450_not_for_a_session_lost_on_a_timeout():
    report = diagnose_lines([SESSTMOUT.format(error="Local: Timed out")], "app.log")
    assert "client-bug" not in [f.cause for f in report.findings]


# kafka-python kafka/coordinator/base.py HeartbeatThread._run_once and _handle_heartbeat_response (1.4+).
KP = "2018-07-11 05:04:{s:02d},000 WARNING kafka.coordinator "
EXPIRED = KP.format(s=7) + "Heartbeat session expired, marking coordinator dead"
UNKNOWN = KP.format(s=10) + "Heartbeat: local member_id was not recognized; this consumer needs to re-join"


def test_kafka_python_1544_session_expiry_then_unknown_member_is_named_below_a_stall_without_a_version():
    report = diagnose_lines([EXPIRED, UNKNOWN], "app.log")
    bug = [f for f in report.findings if f.cause == "client-bug"]
    assert [(f.score, f.evidence) for f in bug] == [(0.5, [Line("app.log", 1), Line("app.log", 2)])]
    assert report.findings[0].cause != "client-bug"
    assert "kafka-python#1544" in bug[0].summary and "kafka-python 1.4.0 to 1.4.3" in bug[0].summary


def test_kafka_python_1544_not_for_an_unknown_member_alone():
    report = diagnose_lines([UNKNOWN], "app.log")
    assert "client-bug" not in [f.cause for f in report.findings]


def _row(**fields) -> tuple:
    """A reader row (ROW_FIELDS) with the given fields, the others empty; seq follows the line."""
    base = dict.fromkeys(ROW_FIELDS)
    base.update(source="consumer", file="app.log", seq=fields.get("line", 1) * 1_000_000, time_inferred=False)
    base.update(fields)
    return tuple(base[f] for f in ROW_FIELDS)


# aiokafka's and kafkajs's readers are being written beside this (analysis/logs/): their rows are hand-made here,
# in the kinds the other clients' readers emit for the same happening, and matched with bugs.client_matches (the
# client rules read a source once client_rules.CLIENT_SOURCES lists it).
def _matched(rows: list) -> list[tuple]:
    return [(bug.bug, [r[ROW_FIELDS.index("line")] for r in shown], score) for bug, shown, score, _ in
            bugs.client_matches(rows)]


def test_aiokafka_727_a_sync_with_generation_minus_one():
    # aiokafka group_coordinator.py "Successfully synced group %s with generation %s" as a SyncGroupResponse row.
    rows = [_row(time=0, line=1, log_source="aiokafka", kind="CommitFailed", group="app", error="UNKNOWN_MEMBER_ID"),
            _row(time=10, line=2, log_source="aiokafka", kind="SyncGroupResponse", group="app", generation=-1),
            _row(time=10, line=3, log_source="aiokafka", kind="SyncGroupResponse", group="app", generation=372)]
    assert _matched(rows) == [("aiokafka#727", [2], 0.8)]
    assert _matched([rows[0], rows[2]]) == []
    failed = _row(time=10, line=2, log_source="aiokafka", kind="SyncGroupResponse", group="app", generation=-1,
                  error="REBALANCE_IN_PROGRESS")
    assert _matched([failed]) == []


def test_kafkajs_1361_an_empty_assignment_is_named_only_with_an_affected_release():
    empty = _row(time=0, line=2, log_source="kafkajs", kind="PartitionsAssigned", group="g", value=0)
    assert _matched([empty]) == []
    v200 = _row(time=0, line=1, log_source="kafkajs", kind="ClientVersion", group="g", detail="2.0.0")
    assert _matched([v200, empty]) == [("kafkajs#1361", [2], 0.9)]
    v201 = _row(time=0, line=1, log_source="kafkajs", kind="ClientVersion", group="g", detail="2.0.1")
    assert _matched([v201, empty]) == []
    some = _row(time=0, line=2, log_source="kafkajs", kind="PartitionsAssigned", group="g", value=3)
    assert _matched([v200, some]) == []


def test_a_signature_of_another_client_is_not_read():
    # librdkafka#3450's signature in kafka-python's rows: not that bug.
    row = _row(time=0, line=1, log_source="kafka-python", kind="SessionTimeout", error="REBALANCE_IN_PROGRESS")
    assert bugs.client_matches([row]) == []


def test_a_wording_that_first_appeared_after_the_fix_cannot_show_the_bug():
    row = _row(time=0, line=1, log_source="librdkafka", kind="SessionTimeout", error="REBALANCE_IN_PROGRESS",
               versions="1.9-")
    assert bugs.client_matches([row]) == []
    older = _row(time=0, line=1, log_source="librdkafka", kind="SessionTimeout", error="REBALANCE_IN_PROGRESS",
                 versions="1.4-")
    assert [b.bug for b, *_ in bugs.client_matches([older])] == ["librdkafka#3450"]
    at_the_fix = _row(time=0, line=1, log_source="librdkafka", kind="SessionTimeout", error="REBALANCE_IN_PROGRESS",
                      versions="1.8-")
    assert bugs.client_matches([at_the_fix]) == []


def test_a_bug_ruled_out_by_its_clients_release_leaves_the_next_bug_to_be_read():
    """A group of librdkafka 1.9.0 and aiokafka consumers: librdkafka#3450's signature is no finding past its fix,
    and aiokafka#727's, listed after it, still is."""
    rows = [_row(time=0, line=1, log_source="librdkafka", kind="ClientVersion", group="app", detail="1.9.0"),
            _row(time=5, line=2, log_source="librdkafka", kind="SessionTimeout", group="app",
                 error="REBALANCE_IN_PROGRESS"),
            _row(time=10, line=3, log_source="aiokafka", kind="SyncGroupResponse", group="app", generation=-1)]
    assert _matched(rows) == [("aiokafka#727", [3], 0.8)]
    assert _matched(rows[1:]) == [("librdkafka#3450", [2], 0.8), ("aiokafka#727", [3], 0.8)]


@pytest.mark.parametrize("text,expected", [("1.7.0", (1, 7)), ("v2.0.0", (2,)), ("2.1.0-beta.1", (2, 1)),
                                           ("0.10.1.0", (0, 10, 1)), ("2.x", None), ("", None), (None, None),
                                           ("0.0", (0,)), ("1.9-", (1, 9)), (" 1.8.0 ", (1, 8))])
def test_release(text, expected):
    assert bugs.release(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("3.7.1", (3, 7, 1)), ("4.0.0", (4,)), ("3.7.1-SNAPSHOT", (3, 7, 1)), ("junk", None), (None, None),
    # Confluent Platform's builds ("-ccs", "-ce"): their Apache line, major.minor
    ("5.0.0-ccs", (2,)), ("5.5.3-ccs", (2, 5)), ("5.6.0-ccs", None), ("6.0.1-ccs", (2, 6)), ("6.2.4-ce", (2, 8)),
    ("6.3.0-ccs", None), ("7.0.1-ccs", (3,)), ("7.6.0-ccs", (3, 6)), ("8.1.0-ce", (4, 1)), ("8.4.0-0-ccs", (4, 4)),
    ("4.1.0-ccs", None), ("9.0.0-ccs", None)])
def test_apache_release(text, expected):
    """A Java client's "Kafka version" (AppInfoParser.java) as an Apache release: CP 5.0 - 5.5 are Apache 2.0 - 2.5,
    6.0 - 6.2 are 2.6 - 2.8, 7.N is 3.N, 8.N is 4.N; older or unknown CP releases are none."""
    assert bugs.apache_release(text) == expected


def test_every_client_bug_row_has_its_releases_and_a_source():
    for bug in bugs.KNOWN_BUGS:
        if bug.clients:
            assert bugs.release(bug.first) < bugs.release(bug.fixed_in), bug.bug
            assert bug.pattern in bugs.CLIENT_PATTERNS and bug.source.startswith("https://github.com/"), bug.bug


def test_client_commits_and_syncs_refused_with_coordinator_not_available_name_the_coordinator():
    rows = [_row(time=t, line=n, log_source="librdkafka", kind=kind, group="g", error="COORDINATOR_NOT_AVAILABLE")
            for n, (t, kind) in enumerate([(0, "SyncGroupResponse"), (5, "OffsetCommitResponse")], 1)]
    report = diagnose_rows(rows, ["app.log"])
    assert _causes(report) == [("broker-bug-or-coordinator", "g", 0.72)]
    # a heartbeat refused so is the coordinator moving, not failing to write
    beat = _row(time=0, line=1, log_source="librdkafka", kind="HeartbeatResponse", group="g",
                error="COORDINATOR_NOT_AVAILABLE")
    assert "broker-bug-or-coordinator" not in [f.cause for f in diagnose_rows([beat], ["app.log"]).findings]


def _kp_at(minute: int, second: int, text: str) -> str:
    return f"2018-07-11 05:{minute:02d}:{second:02d},000 WARNING kafka.coordinator {text}"


def _kp_1544_evidence(lines: list[str]) -> list[list[Line]]:
    return [f.evidence for f in diagnose_lines(lines, "app.log").findings if f.cause == "client-bug"]


def test_kafka_python_1544_the_unknown_member_counts_from_the_same_millisecond_to_300_s_after_the_expiry():
    """bugs.KNOWN_BUGS' kafka-python#1544 row: the refused heartbeat comes at most within_ms = 300,000 ms after the
    expiry, bounds included; a log's millisecond clock writes both lines in one millisecond when they follow at once
    (HeartbeatThread._run_once marks the coordinator dead, the next heartbeat is refused)."""
    expired = _kp_at(4, 7, "Heartbeat session expired, marking coordinator dead")
    unknown = "Heartbeat: local member_id was not recognized; this consumer needs to re-join"
    both = [Line("app.log", 1), Line("app.log", 2)]
    assert _kp_1544_evidence([expired, _kp_at(4, 7, unknown)]) == [both]
    assert _kp_1544_evidence([expired, _kp_at(9, 7, unknown)]) == [both]
    assert _kp_1544_evidence([expired, _kp_at(9, 8, unknown)]) == []


def test_kafka_python_1544_shows_every_refused_heartbeat_after_the_expiry():
    """The deadlocked consumer never rejoins, so each later heartbeat is refused too: the finding shows them all."""
    assert _kp_1544_evidence([EXPIRED, UNKNOWN, UNKNOWN.replace(":10,", ":12,")]) == [
        [Line("app.log", 1), Line("app.log", 2), Line("app.log", 3)]]
