"""Findings from client logs (kafkasim/analysis/diagnose/client_rules.py): the simulator's Java and
librdkafka logs of each cause, lines written from the clients' format strings, healthy logs, and a
client log merged with the broker's (one finding per cause and group, evidence from both)."""

from __future__ import annotations

import dataclasses

import pytest

from kafkasim.analysis.diagnose import diagnose_lines, diagnose_rows
from kafkasim.analysis.diagnose.incidents import incident
from kafkasim.analysis.diagnose.model import Line
from kafkasim.analysis.diagnose.report import text
from kafkasim.analysis.log_parser import parse_lines
from kafkasim.scenario.world import simulate

PREFIX = "[2024-03-05 20:21:{s:02d},000] {lvl} [Consumer clientId=consumer-orders-1, groupId=orders] "
LOGGER = " (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator)"


def _client_run(cause, version, client, variant=0, with_broker=False, members=4):
    run = simulate(dataclasses.replace(incident(cause, version, members, 1, variant), client_log=client))
    rows, files = [], []
    if with_broker:
        files.append("broker.log")
        rows += parse_lines(run.broker_log, "broker.log").rows
    for name, lines in run.client_logs.items():
        files.append(f"{name}.log")
        rows += parse_lines(lines, files[-1]).rows
    return run, diagnose_rows(rows, files)


def _line_of(lines: list[str], words: str, start: int = 0) -> int:
    """The 1-based number of the first line holding `words` (after line `start`)."""
    return next(i for i, text in enumerate(lines, 1) if i > start and words in text)


def test_java_poll_timeout_alone_names_slow_processing_with_its_two_lines():
    run, report = _client_run("slow-processing", "3.7", "java")
    c2 = run.client_logs["c-2"]  # incidents.py: SlowProcessing of names[1]
    poll = _line_of(c2, "consumer poll timeout has expired. This means")
    leave = _line_of(c2, "sending LeaveGroup request to coordinator")
    assert [f.cause for f in report.findings] == ["slow-processing"]
    f = report.findings[0]
    assert (f.group, f.score) == ("workbook-group", 0.95)
    assert f.evidence == [Line("c-2.log", poll), Line("c-2.log", leave)]


def test_librdkafka_maxpoll_without_a_group_line_is_still_a_finding_with_its_setting():
    # src/rdkafka_cgrp.c (v1.0.0+): rd_kafka_log(rk, LOG_WARNING, "MAXPOLL", "Application maximum poll interval
    # (%dms) exceeded by %dms (adjust max.poll.interval.ms for long-running message processing): leaving group")
    line = ("%4|1709669774.681|MAXPOLL|rdkafka#consumer-1| [thrd:main]: Application maximum poll interval (300000ms) "
            "exceeded by 88ms (adjust max.poll.interval.ms for long-running message processing): leaving group")
    report = diagnose_lines([line], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("slow-processing", None, 0.95)]
    assert report.findings[0].evidence == [Line("app.log", 1)]
    assert report.findings[0].settings[0] == "max.poll.interval.ms = 300000 in this log (app.log:1)"
    assert "lines that name no group:" in text(report)


@pytest.mark.parametrize("client,expiry,gone", [
    ("java", "session timed out without receiving a heartbeat response", "failed due to UNKNOWN_MEMBER_ID"),
    ("librdkafka", "|SESSTMOUT|", "Broker: Unknown member")])
def test_a_frozen_process_is_a_pause_and_a_cut_one_is_the_network(client, expiry, gone):
    # Pause (incidents.py variant 0: c-2 paused 30 s..90 s): the session timer and the UNKNOWN_MEMBER_ID answer
    # come at the same instant (the process woke up); NetworkCut of c-2 alone (variant 1): the timer fires at
    # 27 s + 45 s, the answer when the network is back at 90 s.
    for cause, variant, want, score in (("session-timeout-gc-or-stall", 0, "session-timeout-gc-or-stall", 0.85),
                                        ("network", 1, "network", 0.9)):
        run, report = _client_run(cause, "3.7", client, variant)
        c2 = run.client_logs["c-2"]
        e = _line_of(c2, expiry)
        assert [(f.cause, f.score) for f in report.findings] == [(want, score)]
        assert report.findings[0].evidence == [Line("c-2.log", e), Line("c-2.log", _line_of(c2, gone, e))]


# AbstractCoordinator.java (2.7+), the heartbeat thread on heartbeat.sessionTimeoutExpired: markCoordinatorUnknown(
# "session timed out without receiving a heartbeat response") logs "Group coordinator {} is unavailable or invalid due
# to cause: {}. isDisconnected: {}. Rediscovery will be attempted."; HeartbeatResponseHandler (2.6+): "Attempt to
# heartbeat with {} and group instance id {} failed due to {}, resetting generation".
SESSION_TIMER = ("Group coordinator broker-1:9092 (id: 2147483646 rack: null) is unavailable or invalid due to cause: "
                 "session timed out without receiving a heartbeat response. isDisconnected: false. Rediscovery will be "
                 "attempted.")
UNKNOWN_MEMBER = ("Attempt to heartbeat with Generation{generationId=1, memberId='consumer-orders-1-4d2c', "
                  "protocol='range'} and group instance id Optional.empty failed due to UNKNOWN_MEMBER_ID, resetting "
                  "generation")


def _java_at(ms: int, message: str) -> str:
    """A ConsumerCoordinator INFO line `ms` milliseconds after 20:21:00."""
    return PREFIX.replace(",000]", f",{ms % 1000:03d}]").format(s=ms // 1000, lvl="INFO") + message + LOGGER


@pytest.mark.parametrize("answer_ms, cause, score, summary", [
    (6000, "session-timeout-gc-or-stall", 0.85,
     "the client's session timer fired at the same instant as the coordinator's answer that it was no longer a "
     "member: the process had been frozen (a GC pause, a stall) and noticed both on waking"),
    (6001, "network", 0.9,
     "the client's session timer fired while the process ran and the coordinator answered only 1.001 s later: the "
     "connection to the coordinator was lost, not the process")])
def test_a_session_timer_up_to_1_s_before_the_unknown_member_answer_is_a_pause_and_later_than_that_the_network(
        answer_ms, cause, score, summary):
    """FROZEN_MS = 1 s (docs/diagnose.md, Client logs): a frozen process notices its session timer and the
    coordinator's UNKNOWN_MEMBER_ID answer on waking, within 1 s of each other (1000 ms still is); a timer 1001 ms
    before the answer fired while the process ran and the coordinator answered only then: the network."""
    report = diagnose_lines([_java_at(5000, SESSION_TIMER), _java_at(answer_ms, UNKNOWN_MEMBER)], "c.log")
    assert [(f.cause, f.group, f.score, f.summary) for f in report.findings] == [(cause, "orders", score, summary)]
    assert report.findings[0].evidence == [Line("c.log", 1), Line("c.log", 2)]


def test_a_session_timer_with_no_answer_after_it_is_a_pause_or_a_cut_unless_its_last_error_was_unreachable():
    """A Java session timer alone cannot tell a pause from a cut network (0.6). librdkafka's SESSTMOUT names its last
    error (src/rdkafka_cgrp.c rd_kafka_cgrp_session_timeout_check, v1.4.0+: "Consumer group session timed out (in
    join-state %s) after %d ms without a successful response from the group coordinator (broker %d, last error was
    %s): revoking assignment and rejoining group"): "Local: Timed out" (RD_KAFKA_RESP_ERR__TIMED_OUT) says the process
    ran and its requests failed, the network (0.7: no coordinator answer confirms it)."""
    alone = diagnose_lines([_java_at(5000, SESSION_TIMER)], "c.log")
    assert [(f.cause, f.group, f.score, f.summary) for f in alone.findings] == [
        ("session-timeout-gc-or-stall", "orders", 0.6,
         "the client's session timed out without an answer from the coordinator (a pause or a cut network: no later "
         "line of this log tells them apart)")]
    line = ("%4|1709669774.681|SESSTMOUT|rdkafka#consumer-1| [thrd:main]: Consumer group session timed out (in "
            "join-state steady) after 45000 ms without a successful response from the group coordinator (broker 0, "
            "last error was Local: Timed out): revoking assignment and rejoining group")
    timed_out = diagnose_lines([line], "app.log")
    assert [(f.cause, f.group, f.score, f.summary) for f in timed_out.findings] == [
        ("network", None, 0.7,
         "the client's session timer fired while the process ran and its requests failed (_TIMED_OUT): the connection "
         "to the coordinator was lost, not the process")]
    assert timed_out.findings[0].evidence == [Line("app.log", 1)]

def test_java_rolling_restart_reads_every_close_followed_by_a_new_member():
    run, report = _client_run("rolling-restart-dynamic-members", "3.7", "java")
    assert [f.cause for f in report.findings] == ["rolling-restart-dynamic-members"]
    f = report.findings[0]
    assert f.score == 0.96  # 0.9 for three or more members, + 0.02 for each of the 3 further ones
    closes = sorted((f"{n}.log", i) for n, lines in run.client_logs.items() for i, t in enumerate(lines, 1)
                    if "due to the consumer is being closed" in t)
    assert len(closes) == 4 and sorted((e.file, e.line) for e in f.evidence) == closes


@pytest.mark.parametrize("client", ["java", "librdkafka"])
@pytest.mark.parametrize("variant", [0, 1])
def test_healthy_client_logs_give_no_finding(client, variant):
    _, report = _client_run(None, "3.7", client, variant)
    assert report.findings == []


def _config_block(session: int, heartbeat: int) -> list[str]:
    # AbstractConfig.logAll: "ConsumerConfig values: " then one "\tname = value" line per config.
    return ["[2024-03-05 20:21:00,000] INFO ConsumerConfig values: ", "\tgroup.id = orders",
            f"\theartbeat.interval.ms = {heartbeat}", f"\tsession.timeout.ms = {session}",
            " (org.apache.kafka.clients.consumer.ConsumerConfig)",
            "[2024-03-05 20:21:00,100] INFO Kafka version: 3.7.0 (org.apache.kafka.common.utils.AppInfoParser)",
            PREFIX.format(s=1, lvl="INFO") + "(Re-)joining group" + LOGGER]


def test_heartbeat_above_a_third_of_the_session_is_a_misconfiguration():
    report = diagnose_lines(_config_block(45000, 20000), "c.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("misconfiguration", "orders", 0.7)]
    # the config block is one log record: its rows carry the record's first line (docs/log-reader.md)
    assert report.findings[0].evidence == [Line("c.log", 1)]
    assert "heartbeat.interval.ms = 20000 in this log (c.log:1)" in report.findings[0].settings
    assert diagnose_lines(_config_block(45000, 15000), "c.log").findings == []  # exactly a third: allowed


def test_session_outside_the_brokers_default_range_is_a_misconfiguration():
    # group.min.session.timeout.ms 6000 (0.9+), group.max.session.timeout.ms 1800000 (2.3+): config.py.
    report = diagnose_lines(_config_block(2_000_000, 3000), "c.log")
    assert [(f.cause, f.score) for f in report.findings] == [("misconfiguration", 0.75)]
    assert "[6000, 1800000]" in report.findings[0].summary and "3.7.0" in report.findings[0].summary


def test_disconnected_coordinator_line_is_a_weak_network_finding():
    # AbstractCoordinator.markCoordinatorUnknown (2.7+): "Group coordinator {} is unavailable or invalid due to
    # cause: {}. isDisconnected: {}. Rediscovery will be attempted."
    line = (PREFIX.format(s=5, lvl="INFO") + "Group coordinator broker-1:9092 (id: 2147483646 rack: null) is "
            "unavailable or invalid due to cause: coordinator unavailable. isDisconnected: true. Rediscovery will be "
            "attempted." + LOGGER)
    report = diagnose_lines([line], "c.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("network", "orders", 0.6)]
    assert diagnose_lines([line.replace("isDisconnected: true", "isDisconnected: false")], "c.log").findings == []


def test_unreleased_instance_id_in_the_heartbeat_is_kip848_specific():
    # ConsumerHeartbeatRequestManager.java (4.0): "{} failed due to unreleased instance id {}: {}"
    line = ("[2024-03-05 20:21:05,000] ERROR [Consumer instanceId=i-1, clientId=consumer-orders-1, groupId=orders] "
            "ConsumerGroupHeartbeatRequest failed due to unreleased instance id i-1: Instance id i-1 is in use "
            "(org.apache.kafka.clients.consumer.internals.ConsumerHeartbeatRequestManager)")
    report = diagnose_lines([line], "c.log")
    assert [(f.cause, f.score) for f in report.findings] == [("kip848-specific", 0.8)]
    assert report.findings[0].evidence == [Line("c.log", 1)]


def test_a_refused_migration_in_the_clients_log_alone_is_a_misconfiguration():
    """The misconfiguration incident (4.0): a consumer restarted with group.protocol=consumer into a classic group
    whose broker has group.consumer.migration.policy=disabled. Its heartbeat is answered GROUP_ID_NOT_FOUND
    (GroupMetadataManager.validateOnlineUpgrade) and logged as an unexpected error before FATAL
    (AbstractHeartbeatRequestManager.onErrorResponse): with no server.log, that line names the cause."""
    run, report = _client_run("misconfiguration", "4.0", "java")
    line = _line_of(run.client_logs["c-1"], "failed due to unexpected error GROUP_ID_NOT_FOUND")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("misconfiguration", "workbook-group", 0.85)]
    assert report.findings[0].evidence == [Line("c-1.log", line)]


def test_consumers_added_to_a_running_group_are_a_scale_out_in_the_clients_logs():
    """Scaling incident, variant 0 (3.7): two consumers start at 30 s, after the group formed at 6 s; each new
    process's first "Successfully joined group with generation" is the evidence (line 5 of its own log: after
    Discovered, (Re-)joining, the member-id rejoin request, (Re-)joining)."""
    run, report = _client_run("scaling", "3.7", "java")
    assert [(f.cause, f.score, f.summary) for f in report.findings] == [
        ("scaling", 0.77, "2 consumer(s) joined the running group without replacing any: scaled out")]
    assert report.findings[0].evidence == [Line("c-5.log", 5), Line("c-6.log", 5)]
    assert "Successfully joined group with generation" in run.client_logs["c-5"][4]


def test_a_librdkafka_consumer_added_to_the_group_is_a_scale_out_too():
    """Scaling incident, variant 0, librdkafka (debug=cgrp): a new process's first lines are its JoinGroup and
    SyncGroup responses, which name no group; its ASSIGN line names it (rd_kafka_cgrp_handle_assignment)."""
    run, report = _client_run("scaling", "3.7", "librdkafka")
    assert [(f.cause, f.summary) for f in report.findings] == [
        ("scaling", "2 consumer(s) joined the running group without replacing any: scaled out")]
    assert report.findings[0].evidence == [Line("c-5.log", 1), Line("c-6.log", 1)]
    assert "JoinGroup response: GenerationId 2," in run.client_logs["c-5"][0]


def test_consumers_closed_and_not_replaced_are_a_scale_in_under_the_consumer_protocol():
    """Scaling incident, variant 1 at 4.0 with group.protocol=consumer: c-3 and c-4 close at 30 s (LEAVING to
    UNSUBSCRIBED), no new process or member id follows, and c-1, c-2 reconcile a new assignment."""
    run, report = _client_run("scaling", "4.0c", "java", variant=1)
    lines = {n: _line_of(run.client_logs[n], "transitioned from LEAVING to UNSUBSCRIBED") for n in ("c-3", "c-4")}
    assert [(f.cause, f.summary) for f in report.findings] == [
        ("scaling", "2 consumer(s) closed and none replaced them while the others rebalanced: scaled in")]
    assert sorted(report.findings[0].evidence, key=lambda e: e.file) == [Line("c-3.log", lines["c-3"]),
                                                                          Line("c-4.log", lines["c-4"])]


def test_a_rolling_restart_is_not_also_a_scale_in():
    # each closed consumer is followed by a new member id (its restarted process, in the same file)
    _, report = _client_run("rolling-restart-dynamic-members", "3.7", "java")
    assert [f.cause for f in report.findings] == ["rolling-restart-dynamic-members"]


def test_consumers_joining_in_many_generations_are_a_join_storm_not_a_scale_out():
    """The slow-join incident (3.7): 60 consumers start over 60 s; those starting after the first JoinGroup
    response join in generations 2 to 12 (STORM_REBALANCES = 8 or more): the group never settled."""
    _, report = _client_run("too-many-members-or-slow-join", "3.7", "java")
    assert [(f.cause, f.summary) for f in report.findings] == [
        ("too-many-members-or-slow-join", "33 consumers joined the running group one after another, in 11 "
                                          "generations: the group never settled while it grew")]


def test_a_first_join_answered_a_minute_later_in_a_large_generation_is_a_slow_join():
    """The slow-join incident at 120 consumers (3.7): they start over 60 s, each join extending the initial
    rebalance by group.initial.rebalance.delay.ms (KIP-134), so generation 1 forms only after the last one, all
    120 in it. Those that started in the first 3 s waited SLOW_JOIN_MS (60 s) or more for their answer; no
    consumer joins a later generation, so there is no join storm, only a slow join."""
    run, report = _client_run("too-many-members-or-slow-join", "3.7", "java", members=8)
    assert [(f.cause, f.summary) for f in report.findings] == [
        ("too-many-members-or-slow-join", "9 consumer(s) waited up to 63 s for their first JoinGroup answer, in a "
                                          "generation 120 consumers joined: a large group joining slowly")]
    assert len(report.findings[0].evidence) == 9


@pytest.mark.parametrize("version", ["3.7", "4.0c"])
def test_consumers_starting_together_are_no_scale_out(version):
    """A healthy group: under the consumer protocol no initial rebalance gathers the members, so the
    group is formed by the first burst of starts (each within FORMING_MS = 3 s of the one before)."""
    assert _client_run(None, version, "java")[1].findings == []


def test_broker_and_client_logs_together_give_one_finding_with_evidence_from_both():
    run, report = _client_run("session-timeout-gc-or-stall", "3.7", "java", with_broker=True)
    causes = [(f.cause, f.group) for f in report.findings]
    assert causes.count(("session-timeout-gc-or-stall", "workbook-group")) == 1
    f = report.findings[0]
    assert f.cause == "session-timeout-gc-or-stall" and f.score == 0.85
    files = {e.file for e in f.evidence}
    assert files == {"broker.log", "c-2.log"}
    failed = _line_of(run.broker_log, "has failed, removing it from the group")
    assert Line("broker.log", failed) in f.evidence


def test_the_clients_side_tells_a_lone_network_cut_from_a_pause_beside_the_broker_log():
    # The broker's lines alone name a single member cut off a GC pause (docs/diagnose.md); its client's
    # session timer fired 18 s before the coordinator's answer, so with both logs it is the network.
    _, report = _client_run("network", "3.7", "java", variant=1, with_broker=True)
    assert report.top() == "network"
    assert [f.cause for f in report.findings].count("network") == 1
