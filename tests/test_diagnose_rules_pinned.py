"""The diagnosis's documented rules, one per test (issue 29): the findings' order and score, the
redaction's placeholders, the simulated incidents. Expectations come from the docstrings, by hand."""

from __future__ import annotations

import gzip
import os
import random
import sys
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest

from kafkasim.analysis.diagnose import client_rules, html, offsets
from kafkasim.analysis.diagnose.incidents import incident
from kafkasim.analysis.diagnose.model import LABELS, SETTINGS, Finding, Line, best_first
from kafkasim.analysis.diagnose.redact import Redactor
from kafkasim.analysis.diagnose.rules import (RETURN_MS, SLOW_JOIN_ARRIVALS, SLOW_JOIN_MS, STORM_REBALANCES,
                                             TOGETHER_MS)
from kafkasim.analysis.diagnose.timeline import (FILE, FORMING_MS, GROUP, KIND, LINE, MEMBER, REASON, SEQ, T,
                                                 Episode, Move, Timeline)
from kafkasim.analysis.log_parser import ROW_FIELDS, parse_lines
from kafkasim.analysis.logs.files import read_lines
from vega_fields import missing_fields, views  # (tests/ is on sys.path)

UUID = "0b6f4a62-3c1e-4a5b-9d2e-7f8a9b0c1d2e"


def test_findings_are_best_first_then_by_label_order_then_group():
    f = [Finding("network", "b", 0.5, ""), Finding("slow-processing", "b", 0.5, ""),
         Finding("network", "a", 0.5, ""), Finding("scaling", None, 0.9, "")]
    assert [(x.cause, x.group) for x in best_first(f)] == [
        ("scaling", None), ("slow-processing", "b"), ("network", "a"), ("network", "b")]
    assert LABELS.index("slow-processing") < LABELS.index("network")


def test_a_findings_json_has_exactly_the_promised_keys_with_1_based_lines():
    f = Finding("network", "g", 0.75, "cut", [Line("server.log", 3)], ["session.timeout.ms"])
    assert f.to_json() == {"cause": "network", "group": "g", "score": 0.75, "summary": "cut",
                           "evidence": [{"file": "server.log", "line": 3}], "settings": ["session.timeout.ms"]}


def _row(member, reason=None):
    row = [None] * (SEQ + 1)
    row[MEMBER], row[REASON] = member, reason
    return tuple(row)


def test_redaction_gives_each_name_one_placeholder_everywhere():
    r = Redactor().learn([_row(f"app-1-{UUID}", "clientId=app-1, clientHost=/10.0.0.7"),
                          _row(f"app-2-{UUID[:-1]}f")])
    text = r(f"member app-1-{UUID} of app-1 at 10.0.0.7 and app-2-{UUID[:-1]}f")
    assert text == "member member-1 of client-1 at ip-1 and member-2"
    assert r("app-1 again") == "client-1 again"  # the same placeholder on a later line


def test_redaction_leaves_short_and_null_names_and_times_of_day():
    r = Redactor()
    for value in ("x", "None", "null", "", None):
        r.add(value, "member")
    assert r.names == {}
    assert r("at 12:34:56 nothing to hide") == "at 12:34:56 nothing to hide"
    assert r("from fe80::1 and 2001:db8:0:0:0:0:0:1") == "from ip-1 and ip-2"


def test_a_healthy_incident_has_no_fault_and_an_unknown_cause_is_refused():
    assert incident(None).faults == ()
    assert len(incident(None, variant=1).faults) > 0 and incident(None, variant=1).static_membership
    with pytest.raises(ValueError, match="no simulated incident for 'gremlins'"):
        incident("gremlins")


def test_an_incident_at_4_0c_is_a_consumer_protocol_group_of_kafka_4_0():
    s = incident("network", version="4.0c", members=4)
    assert s.kafka_version == "4.0" and s.consumer.get("group.protocol") == "consumer"
    assert [f.member for f in s.faults] == ["c-2", "c-3"]  # variant 0: two members cut together
    assert [f.member for f in incident("network", variant=1).faults] == ["c-2"]


def test_a_client_id_a_line_names_is_redacted_as_a_client():
    # ConsumerCoordinator's lines name the client as "clientId=..." (LogContext): it is a client placeholder.
    assert Redactor()("Rebalance failed. clientId=billing-7, groupId=g") == "Rebalance failed. clientId=client-1, groupId=g"


def test_an_instance_id_a_line_names_is_redacted_as_an_instance():
    # GroupCoordinator (2.3 - 3.9): "Static member with groupInstanceId=X and unknown member id joins group ..."
    # and "Adding new member M with group instance id X": the static member's id is an instance placeholder.
    r = Redactor()
    assert r("Static member with groupInstanceId=checkout-pod-3 and unknown member id joins group g") == \
        "Static member with groupInstanceId=instance-1 and unknown member id joins group g"
    assert r("Adding new member m with group instance id checkout-pod-3") == \
        "Adding new member m with group instance id instance-1"


def _two_rebalances() -> list[str]:
    """A 2.x server.log of group orders: rebalances of 3.5 s (10:00:00 to 10:00:03.5) and 12.25 s (10:01:00 to
    10:01:12.25), each from "Preparing to rebalance" to "Stabilized group" (GroupCoordinator)."""
    gc = " (kafka.coordinator.group.GroupCoordinator)"

    def prepare(at, generation):
        return (f"[2024-03-05 10:{at}] INFO [GroupCoordinator 1]: Preparing to rebalance group orders in state "
                f"PreparingRebalance with old generation {generation} (__consumer_offsets-12) (reason: Adding new "
                f"member c-{generation}-{UUID} with group instance id None){gc}")

    def stabilized(at, generation):
        return (f"[2024-03-05 10:{at}] INFO [GroupCoordinator 1]: Stabilized group orders generation {generation} "
                f"(__consumer_offsets-12) with {generation} members{gc}")

    return [prepare("00:00,000", 0), stabilized("00:03,500", 1), prepare("01:00,000", 1), stabilized("01:12,250", 2)]


def test_a_groups_first_report_line_gives_its_longest_rebalance_in_seconds():
    """report.text: a group's heading counts its rebalances and gives the longest in seconds (12.25 s)."""
    from kafkasim.analysis.diagnose import diagnose_lines
    from kafkasim.analysis.diagnose.report import text
    assert text(diagnose_lines(_two_rebalances(), "server.log")).splitlines()[0] == (
        "group orders (classic protocol), 2024-03-05 10:00:00.000 to 2024-03-05 10:01:12.250: 2 rebalances, "
        "longest rebalance 12.25 s")


def test_a_rebalances_json_gives_its_times_in_ms_its_generation_members_trigger_and_first_line():
    """Timeline.to_json (`--json`, issue 31): each episode is {start, end, duration_ms, generation, members, reason,
    file, line, epoch_bump}, times in ms from the report's origin (START_TIME) like the moves'."""
    from datetime import datetime, timedelta
    from kafkasim.analysis.diagnose import diagnose_lines
    from kafkasim.analysis.diagnose.timeline import START_TIME

    def ms(minute, second):
        return (datetime(2024, 3, 5, 10, minute) + timedelta(seconds=second) - START_TIME) // timedelta(milliseconds=1)

    (tl,) = diagnose_lines(_two_rebalances(), "server.log").timelines.values()
    assert tl.to_json()["episodes"] == [
        {"start": ms(0, 0), "end": ms(0, 3.5), "duration_ms": 3500, "generation": 1, "members": 1,
         "reason": f"Adding new member c-0-{UUID} with group instance id None", "file": "server.log", "line": 1,
         "epoch_bump": False},
        {"start": ms(1, 0), "end": ms(1, 12.25), "duration_ms": 12250, "generation": 2, "members": 2,
         "reason": f"Adding new member c-1-{UUID} with group instance id None", "file": "server.log", "line": 3,
         "epoch_bump": False}]


def test_a_session_expiry_followed_by_the_same_client_rejoining_says_how_long_after_and_that_it_lived():
    """rules.session_timeout: "Member M in group G has failed, removing it from the group" (GroupCoordinator
    .onExpireHeartbeat) and the same client id joining again (a classic member id changes on rejoin) 7.5 s later
    (10:00:30 to 10:00:37.5): the process lived (a GC pause or a stall), the stronger 0.8."""
    from kafkasim.analysis.diagnose import diagnose_lines
    gc, at = " (kafka.coordinator.group.GroupCoordinator)", "[2024-03-05 10:{}] INFO [GroupCoordinator 1]: "
    other = "5d1e9a04-6b2f-4c3d-8e7f-0a1b2c3d4e5f"

    def joins(when, generation, member):
        return (at.format(when) + f"Preparing to rebalance group orders in state PreparingRebalance with old "
                f"generation {generation} (__consumer_offsets-12) (reason: Adding new member {member} with group "
                f"instance id None){gc}")

    lines = [joins("00:00,000", 0, f"c-1-{UUID}"),
             at.format("00:03,000") + f"Stabilized group orders generation 1 (__consumer_offsets-12) with 1 members{gc}",
             at.format("00:30,000") + f"Member c-1-{UUID} in group orders has failed, removing it from the group{gc}",
             joins("00:37,500", 1, f"c-1-{other}"),
             at.format("00:40,500") + f"Stabilized group orders generation 2 (__consumer_offsets-12) with 1 members{gc}"]
    (found,) = [f for f in diagnose_lines(lines, "server.log").findings if f.cause == "session-timeout-gc-or-stall"]
    assert (found.score, found.evidence) == (0.8, [Line("server.log", 3)])
    assert found.summary == ("c-1: heartbeats stopped for session.timeout.ms and the coordinator removed it (1 time(s)); "
                             "it came back 7.5 s later, so the process lived: a GC pause, a starved or blocked "
                             "heartbeat thread")


@pytest.mark.parametrize("client,expiry", [("java", "session timed out without receiving a heartbeat response"),
                                           ("librdkafka", "|SESSTMOUT|")])
def test_a_client_session_expiry_with_no_later_answer_is_a_weak_pause_finding(client, expiry):
    # client_rules._one_expiry: the client's session timer fired and the log ends before any answer from
    # the coordinator: a pause or a cut network, which no later line tells apart: the weaker 0.6.
    import dataclasses
    from kafkasim.analysis.diagnose import diagnose_lines
    from kafkasim.scenario.world import simulate
    run = simulate(dataclasses.replace(incident("session-timeout-gc-or-stall", "3.7", 4, 1, 0), client_log=client))
    c2 = run.client_logs["c-2"]
    cut = next(i for i, line in enumerate(c2, 1) if expiry in line)
    report = diagnose_lines(c2[:cut], "c-2.log")
    assert [(f.cause, f.score) for f in report.findings] == [("session-timeout-gc-or-stall", 0.6)]
    assert report.findings[0].evidence == [Line("c-2.log", cut)]


def test_under_the_consumer_protocol_the_clients_session_settings_are_not_read():
    # KIP-848: with group.protocol=consumer the session and heartbeat are the broker's
    # (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms); the client's own
    # session.timeout.ms and heartbeat.interval.ms are not used, so they misconfigure nothing.
    from kafkasim.analysis.diagnose import diagnose_lines

    def block(protocol):  # AbstractConfig.logAll: "ConsumerConfig values: " then "\tname = value" lines
        return ["[2024-03-05 20:21:00,000] INFO ConsumerConfig values: ", f"\tgroup.protocol = {protocol}",
                "\tgroup.id = orders", "\theartbeat.interval.ms = 20000", "\tsession.timeout.ms = 45000",
                " (org.apache.kafka.clients.consumer.ConsumerConfig)",
                "[2024-03-05 20:21:00,100] INFO Kafka version: 4.0.0 (org.apache.kafka.common.utils.AppInfoParser)"]
    assert [f.cause for f in diagnose_lines(block("classic"), "c.log").findings] == ["misconfiguration"]
    assert diagnose_lines(block("consumer"), "c.log").findings == []


def test_a_fit_starts_the_scenario_at_the_logs_first_line_and_reads_static_membership():
    # replay.Fit.offset_ms: "the log's time of the scenario's 0", its first line (00:00:00,009 here);
    # members joining with a group.instance.id make a static-membership scenario, said in what was read.
    from kafkasim.analysis.diagnose.replay import fit_lines
    from kafkasim.scenario.world import simulate
    run = simulate(incident(None, "3.7", 4, 1, 1))  # a rolling restart of static members
    assert run.broker_log[0].startswith("[2026-01-01 00:00:00,009]")
    fit = fit_lines(run.broker_log)
    assert fit.offset_ms == fit.timeline.first == 9
    assert "static membership: members join with a group.instance.id" in fit.read
    assert not any("static membership" in str(note) for note in fit_lines(simulate(incident(None)).broker_log).read)


def test_a_departures_json_names_its_reason_and_where_it_was_read():
    # The --json timeline (issue 31): each arrival and departure is {time, member, reason, file, line}.
    from kafkasim.analysis.diagnose import diagnose_lines
    from kafkasim.scenario.world import simulate
    report = diagnose_lines(simulate(incident("session-timeout-gc-or-stall", "3.7")).broker_log)
    (tl,) = report.timelines.values()
    gone = tl.to_json()["departures"]
    assert gone and set(gone[0]) == {"time", "member", "reason", "file", "line"}
    assert "session_timeout" in {d["reason"] for d in gone}


def test_an_unreleased_instance_id_is_named_with_its_error_code():
    # GroupMetadataManager (4.0): "Static member ... cannot join the group because the instance id is owned
    # by member ..." with UNRELEASED_INSTANCE_ID: a static member restarted before its old session left.
    from kafkasim.analysis.diagnose import diagnose_lines
    from kafkasim.scenario.world import simulate
    report = diagnose_lines(simulate(incident("kip848-specific", "4.0c")).broker_log)
    (summary,) = [f.summary for f in report.findings if f.cause == "kip848-specific"]
    assert "instance id was still owned by its previous member" in summary  # what happened, in words
    assert summary.endswith("(UNRELEASED_INSTANCE_ID)")                     # and Kafka's error name


def test_a_slow_join_cut_before_it_ended_says_how_long_it_had_lasted():
    """rules.slow_join on a log that stops inside the join phase: 120 consumers starting over 90 s
    (the slow-join incident, 8 x 15 members, variant 1), cut before "Stabilized group": the rebalance began
    at the first "Preparing to rebalance" (00:00:00,061) and the log's last line is at 00:01:29,821, so it
    had not finished after 89.76 s, with all 120 members joined."""
    from kafkasim.analysis.diagnose import diagnose_lines
    from kafkasim.scenario.world import simulate

    log = simulate(incident("too-many-members-or-slow-join", "3.7", 8, 1, 1)).broker_log
    cut = log[:next(i for i, line in enumerate(log) if "Stabilized group" in line)]
    assert cut[1].startswith("[2026-01-01 00:00:00,061]") and cut[-1].startswith("[2026-01-01 00:01:29,821]")
    assert [(f.cause, f.summary) for f in diagnose_lines(cut).findings] == [
        ("too-many-members-or-slow-join", "a rebalance had not finished after 89.76 s while 120 members joined: a "
                                          "large group joining slowly")]


def test_an_offsets_partitions_row_goes_to_its_groups_and_every_other_row_is_kept():
    """offsets.to_groups: a `__consumer_offsets-P` row without a group is copied to each group of the log whose
    partition P is (GroupMetadataManager.partitionFor at 50: user-sessions-stream 32, LocalizeTracks 25, as Kafka
    printed them in the corpus's server.logs); the rows before and after it stay as they were."""
    gc = " (kafka.coordinator.group.GroupCoordinator)"
    lines = [f"[2020-02-19 10:59:01,000] INFO [GroupCoordinator 1]: Stabilized group {g} generation 5 "
             f"(__consumer_offsets-{p}){gc}" for g, p in (("user-sessions-stream", 32), ("LocalizeTracks", 25))]
    lines.insert(1, "[2020-02-19 10:59:02,000] ERROR [ReplicaManager broker=1] Error processing append operation "
                    "on partition __consumer_offsets-32 (kafka.server.ReplicaManager)")
    rows = parse_lines(lines).rows
    assert [r[GROUP] for r in rows] == ["user-sessions-stream", None, "LocalizeTracks"]
    assert offsets.to_groups(rows) == [rows[0], rows[1][:GROUP] + ("user-sessions-stream",) + rows[1][GROUP + 1:],
                                       rows[2]]


def _client_row(file: str, t: int, kind: str, member: str, line: int, **fields) -> tuple:
    """A Java client's reader row (ROW_FIELDS) with the given fields, the others empty."""
    base = dict.fromkeys(ROW_FIELDS)
    base.update(time=t, source="consumer", group="g", kind=kind, member=member, file=file, line=line, seq=line,
                log_source="java", time_inferred=False, **fields)
    return tuple(base[f] for f in ROW_FIELDS)


def _scaling(rows: list) -> list[str]:
    """The summaries client_rules.group_size gives these rows under the cause "scaling"."""
    signals = client_rules._Signals()
    client_rules.group_size(rows, signals)
    return [summary for _, _, summary, _ in signals.by_cause["scaling"]]


@pytest.mark.parametrize("after_ms, scaled_in", [(RETURN_MS, False), (RETURN_MS + 1, True)])
def test_a_close_is_replaced_by_a_process_starting_at_most_return_ms_later(after_ms, scaled_in):
    """client_rules.group_size: a close followed by no new process within RETURN_MS ("a member back within
    this long ... is its restart", rules.py; Timeline.returned counts an arrival RETURN_MS later as back) while
    the others rebalance on is a scale-in."""
    rows = [_client_row("a.log", 0, "JoinGroupResponse", "m-a", 1, generation=1),
            _client_row("b.log", 0, "JoinGroupResponse", "m-b", 1, generation=1),
            _client_row("a.log", 10_000, "LeaveGroup", "m-a", 2, reason="the consumer is being closed"),
            _client_row("b.log", 20_000, "JoinGroup", "m-b", 2),
            _client_row("c.log", 10_000 + after_ms, "JoinGroupResponse", "m-c", 1, generation=2)]
    summaries = _scaling(rows)
    assert ("1 consumer(s) closed and none replaced them while the others rebalanced: scaled in" in summaries) \
        == scaled_in


@pytest.mark.parametrize("state, after_ms, added", [("FATAL", RETURN_MS, False), ("FATAL", RETURN_MS + 1, True),
                                                    ("RECONCILING", RETURN_MS, True)])
def test_a_process_starting_at_most_return_ms_after_a_fatal_error_replaces_it_and_is_no_consumer_added(
        state, after_ms, added):
    """client_rules.group_size: like a close, a member's FATAL transition (the consumer protocol's fatal error) ends
    its process; a process with a new member id starting at most RETURN_MS later is its replacement, one starting
    later a consumer added to the running group: scaled out. Another transition ends nothing."""
    rows = [_client_row("a.log", 0, "JoinGroupResponse", "m-a", 1, generation=1),
            _client_row("b.log", 0, "JoinGroupResponse", "m-b", 1, generation=1),
            _client_row("a.log", 10_000, "MemberTransition", "m-a", 2, reason=state),
            _client_row("c.log", 10_000 + after_ms, "JoinGroupResponse", "m-c", 1, generation=2)]
    summaries = _scaling(rows)
    assert ("1 consumer(s) joined the running group without replacing any: scaled out" in summaries) == added


@pytest.mark.parametrize("after, scaled_in", [
    (("JoinGroup", None, None), True),                     # Java "(Re-)joining group"
    (("MemberTransition", "RECONCILING", "STABLE"), True),  # "transitioned from STABLE to RECONCILING"
    (("MemberTransition", "STABLE", "RECONCILING"), False),  # the end of a rebalance, not taking part in one
    (("HeartbeatResponse", None, None), False)])            # a heartbeat is no rebalance
def test_a_close_is_a_scale_in_only_while_another_consumer_takes_part_in_a_rebalance(after, scaled_in):
    """client_rules._rebalancing: the others "rebalanced" after a close when one of them (re-)joined the group
    (JoinGroup) or, under the consumer protocol (AbstractMembershipManager.java), got a new assignment to
    reconcile; a member settling into STABLE, or heartbeating, is none."""
    kind, reason, detail = after
    closed = "the consumer is being closed"
    for protocol_rows in ([_client_row("a.log", 0, "JoinGroupResponse", "m-a", 1, generation=1),
                           _client_row("b.log", 0, "JoinGroupResponse", "m-b", 1, generation=1),
                           _client_row("a.log", 10_000, "LeaveGroup", "m-a", 2, reason=closed)],
                          [_client_row("a.log", 0, "MemberTransition", "m-a", 1, reason="STABLE", detail="RECONCILING"),
                           _client_row("b.log", 0, "MemberTransition", "m-b", 1, reason="STABLE", detail="RECONCILING"),
                           _client_row("a.log", 10_000, "MemberTransition", "m-a", 2, reason="UNSUBSCRIBED",
                                       detail="LEAVING")]):
        rows = [*protocol_rows, _client_row("b.log", 20_000, kind, "m-b", 2, reason=reason, detail=detail)]
        summaries = _scaling(rows)
        assert summaries == (["1 consumer(s) closed and none replaced them while the others rebalanced: scaled in"]
                             if scaled_in else [])


@pytest.mark.parametrize("rejoin_ms, scaled_in", [(10_000, False), (10_001, True)])
def test_a_consumer_whose_log_shows_only_its_close_is_a_scale_in_not_a_consumer_added(rejoin_ms, scaled_in):
    """client_rules.group_size: a steady Java consumer logs nothing at INFO, so an excerpt of an incident may show a
    consumer only closing. It ran before the log began: a process starting at a close (its own) is no consumer
    added. Its close is a scale-in once another consumer rejoins strictly after it."""
    rows = [_client_row("b.log", 0, "JoinGroupResponse", "m-b", 1, generation=1),
            _client_row("a.log", 10_000, "LeaveGroup", "m-a", 1, reason="the consumer is being closed"),
            _client_row("b.log", rejoin_ms, "JoinGroup", "m-b", 2)]
    assert [(f.cause, f.score, f.summary, f.evidence) for f in client_rules.findings(rows)] == ([
        ("scaling", 0.75, "1 consumer(s) closed and none replaced them while the others rebalanced: scaled in",
         [Line("a.log", 1)])] if scaled_in else [])


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
@pytest.mark.parametrize("waves, found", [
    (STORM_REBALANCES - 1, ("scaling", 0.87, "7 consumer(s) joined the running group without replacing any: "
                                             "scaled out")),
    (STORM_REBALANCES, ("too-many-members-or-slow-join", 0.94, "8 consumers joined the running group one after "
                                                               "another, in 8 generations: the group never settled "
                                                               "while it grew"))])
def test_consumers_added_in_storm_rebalances_generations_are_a_group_that_never_settled(protocol, waves, found):
    """client_rules.group_size: consumers added one a minute, each joining in a generation of its own (a classic
    JoinGroup response's generation; under the consumer protocol the epoch a member reaches STABLE with): in
    STORM_REBALANCES (8) or more the group never settled while it grew, in fewer it scaled out; each consumer
    past the first adds 0.02 to the score."""
    def joined(file: str, t: int, generation: int) -> tuple:
        if protocol == "classic":
            return _client_row(file, t, "JoinGroupResponse", f"m-{file}", 1, generation=generation)
        return _client_row(file, t, "MemberTransition", f"m-{file}", 1, reason="STABLE", detail="JOINING",
                           value=float(generation))
    rows = [joined("a.log", 0, 1), *(joined(f"{n}.log", 60_000 * n, n + 1) for n in range(1, waves + 1))]
    assert [(f.cause, f.score, f.summary, f.evidence[-1]) for f in client_rules.findings(rows)] == [
        (*found, Line(f"{waves}.log", 1))]


def test_a_static_member_is_a_consumer_added_once_per_group_instance_id():
    """client_rules.group_size: a process with a group.instance.id no earlier process had is a consumer added; one
    with an id seen before is that static member restarted (KIP-345: it gets a new member id, and closing it sent
    no LeaveGroup to pair it with)."""
    rows = [_client_row("a.log", 0, "JoinGroupResponse", "m-a", 1, generation=1, instance="i-a"),
            _client_row("b.log", 0, "JoinGroupResponse", "m-b", 1, generation=1, instance="i-b"),
            _client_row("a2.log", 600_000, "JoinGroupResponse", "m-a2", 1, generation=1, instance="i-a"),
            _client_row("c.log", 900_000, "JoinGroupResponse", "m-c", 1, generation=2, instance="i-c")]
    assert [(f.cause, f.summary, f.evidence) for f in client_rules.findings(rows)] == [
        ("scaling", "1 consumer(s) joined the running group without replacing any: scaled out", [Line("c.log", 1)])]


def test_a_consumer_added_whose_log_ends_before_it_joined_is_shown_by_its_first_line():
    """client_rules.group_size: a consumer-protocol member added to the running group whose log ends while it is
    JOINING (no STABLE yet) is a consumer added all the same, its first line the evidence."""
    rows = [_client_row("a.log", 0, "MemberTransition", "m-a", 1, reason="STABLE", detail="JOINING", value=1.0),
            _client_row("b.log", 0, "MemberTransition", "m-b", 1, reason="STABLE", detail="JOINING", value=2.0),
            _client_row("c.log", 600_000, "MemberTransition", "m-c", 1, reason="JOINING", detail="UNSUBSCRIBED",
                        value=0.0)]
    assert [(f.cause, f.summary, f.evidence) for f in client_rules.findings(rows)] == [
        ("scaling", "1 consumer(s) joined the running group without replacing any: scaled out", [Line("c.log", 1)])]


def test_a_rolling_restart_counts_consumers_not_close_lines():
    """client_rules.rolling_restart: three dynamic members closed a minute apart, each followed by a new member id;
    one close is in two files (a log and its rotated copy overlap). The finding counts three consumers: 0.9, and
    0.02 for each consumer past the first."""
    closed = "the consumer is being closed"
    rows = [_client_row(f"{c}.log", 0, "JoinGroupResponse", f"m-{c}", 1, generation=1) for c in "abc"]
    for n, c in enumerate("abc", 1):
        rows += [_client_row(f"{c}.log", 60_000 * n, "LeaveGroup", f"m-{c}", 2, reason=closed),
                 _client_row(f"{c}2.log", 60_000 * n + 10_000, "JoinGroupResponse", f"m-{c}2", 1, generation=n + 1)]
    rows.append(_client_row("a.log.1", 60_000, "LeaveGroup", "m-a", 9, reason=closed))
    assert [(f.cause, f.score, f.summary) for f in client_rules.findings(sorted(rows, key=lambda r: r[T]))] == [
        ("rolling-restart-dynamic-members", 0.94, "3 consumers closed one after another, each followed by a new "
         "member id, and none has a group.instance.id: a rolling restart of dynamic members, two rebalances per "
         "restart")]


def test_a_consumer_group_forms_with_its_first_burst_of_starts():
    """client_rules._formed (Timeline.formed_at's rule from the clients' side): a consumer group, with no JoinGroup
    response, has its members once its first processes started each at most FORMING_MS (3 s) after the one
    before; only a process starting later is a consumer added to the running group."""
    starts = {"a.log": 3_600_000, "b.log": 3_601_000, "c.log": 3_603_000, "d.log": 3_606_001}
    rows = [_client_row(f, t, "MemberTransition", f"m-{f[0]}", 1, reason="STABLE", detail="JOINING")
            for f, t in starts.items()]
    assert [(f.cause, f.summary) for f in client_rules.findings(rows)] == [
        ("scaling", "1 consumer(s) joined the running group without replacing any: scaled out")]


def test_the_replay_charts_tooltip_fields_are_columns_of_its_data_and_its_time_says_seconds():
    # A field the data lacks shows "undefined" with no error from Altair or Vega-Lite (tests/vega_fields.py).
    from kafkasim.analysis.diagnose.replay import fit_lines, replay
    from kafkasim.scenario.world import simulate
    spec = replay(fit_lines(simulate(incident("session-timeout-gc-or-stall", "3.7")).broker_log)).chart().to_dict()
    assert missing_fields(spec) == []
    tips = [view["encoding"]["tooltip"] for view in views(spec) if "tooltip" in view["encoding"]]
    assert len(tips) == 2  # the joins and departures of the log, then of the replay
    assert all([t["field"] for t in tip] == ["member", "what", "reason", "s"] for tip in tips)
    assert all(tip[-1]["title"] == "time (s)" for tip in tips)


def test_the_replay_chart_draws_both_timelines_in_seconds_from_the_logs_first_line_with_the_fits_names():
    # replay_rows: the log's times less the fit's offset (its first line, the scenario's 0), the replay's
    # as they are; an open rebalance ends at its timeline's last line; a join's reason is "join"; members
    # are named c-N as the fit names them on both panels (the log's client id, the run's member id), one
    # the fit (or the run) did not name keeps the client id the log gives it.
    from types import SimpleNamespace
    from kafkasim.analysis.diagnose.replay import replay_rows
    from kafkasim.analysis.diagnose.timeline import Episode, Move, Timeline
    uuid = "-0c2d5a8e-6e6b-4b6e-9d6c-0a3f1c2b4d5e"
    log = Timeline("g", first=5_000, last=20_000)
    log.episodes = [Episode(6_000, 7_500, 1, None, 2, "f", 2), Episode(15_000, None, 2, None, 1, "f", 5)]
    log.arrivals = [Move(5_000, "app-1" + uuid, None, "f", 1), Move(5_500, "app-2" + uuid, None, "f", 2)]
    log.departures = [Move(15_000, "app-1" + uuid, "session_timeout", "f", 4)]
    sim = Timeline("g", first=0, last=9_000)
    sim.episodes = [Episode(1_000, 2_400, 1, None, 2, "sim", 1)]
    sim.arrivals = [Move(0, "c-1" + uuid, None, "sim", 1)]
    sim.departures = [Move(8_000, "c-2" + uuid, "session_timeout", "sim", 2)]  # a member id no consumer was given
    rep = SimpleNamespace(fit=SimpleNamespace(timeline=log, offset_ms=5_000, names={"app-1": "c-1"}),
                          simulated=sim, run=SimpleNamespace(member_names={"c-1" + uuid: "c-1"}))
    spans, moves = replay_rows(rep)
    assert spans == [{"timeline": "log", "start": 1.0, "end": 2.5}, {"timeline": "log", "start": 10.0, "end": 15.0},
                     {"timeline": "replay", "start": 1.0, "end": 2.4}]
    assert moves == [
        {"timeline": "log", "s": 0.0, "what": "joined", "reason": "join", "member": "c-1"},
        {"timeline": "log", "s": 0.5, "what": "joined", "reason": "join", "member": "app-2"},
        {"timeline": "log", "s": 10.0, "what": "left", "reason": "session_timeout", "member": "c-1"},
        {"timeline": "replay", "s": 0.0, "what": "joined", "reason": "join", "member": "c-1"},
        {"timeline": "replay", "s": 8.0, "what": "left", "reason": "session_timeout", "member": "c-2"}]


def test_the_replays_members_are_named_as_the_run_named_its_consumers_a_kip_848_uuid_too():
    # replay_rows names the replay's members by the run's member_names (member id -> consumer), not by the
    # fit's names of the log: a KIP-848 member id is a client-made Uuid (Uuid.randomUuid().toString(), no
    # client id in it), which only the run knows as "c-2"; one the run never gave keeps its Uuid.
    from types import SimpleNamespace
    from kafkasim.analysis.diagnose.replay import replay_rows
    from kafkasim.analysis.diagnose.timeline import Move, Timeline
    named, unnamed = "EwFjvWuzQxSbkbv9xqoDIg", "Vx3kQ1pTQ0u9bGx7Yh2aZw"
    log = Timeline("g", first=0, last=1_000)
    sim = Timeline("g", first=0, last=9_000)
    sim.arrivals = [Move(2_000, named, None, "sim", 1), Move(3_000, unnamed, None, "sim", 2)]
    rep = SimpleNamespace(fit=SimpleNamespace(timeline=log, offset_ms=0, names={named: "c-1"}),
                          simulated=sim, run=SimpleNamespace(member_names={named: "c-2"}))
    assert [(m["timeline"], m["member"]) for m in replay_rows(rep)[1]] == [("replay", "c-2"), ("replay", unnamed)]


def test_diagnose_files_keeps_only_the_group_asked_for_and_names_every_file(tmp_path):
    """`diagnose_files(paths, group)`: the rows of `group` alone are diagnosed (the `--group` filter);
    `Report.files` lists the paths as given. `diagnose_lines` names its one file the same way."""
    from pathlib import Path

    from kafkasim.analysis.diagnose import diagnose_files, diagnose_lines

    incidents = Path(__file__).resolve().parent.parent / "examples" / "incidents"
    other = tmp_path / "other.log"
    other.write_text((incidents / "network.log").read_text().replace("workbook-group", "payments"))
    paths = [incidents / "slow-processing.log", other]
    report = diagnose_files(paths, group="payments")
    assert list(report.timelines) == ["payments"] and {f.group for f in report.findings} == {"payments"}
    assert report.files == [str(p) for p in paths]
    assert sorted(diagnose_files(paths).timelines) == ["payments", "workbook-group"]
    assert diagnose_lines((incidents / "network.log").read_text(), "server.log").files == ["server.log"]


def test_a_member_is_in_a_generation_after_a_join_response_or_a_transition_to_stable():
    """client_rules._joined: Java's "Successfully joined group with generation" (AbstractCoordinator.java) or,
    under the consumer protocol, "transitioned from ... to STABLE" (AbstractMembershipManager.java); a
    transition to any other state (RECONCILING, JOINING) is not yet a generation."""
    joined = [client_rules._joined(_client_row("a.log", 0, kind, "m-a", 1, reason=reason))
              for kind, reason in [("JoinGroupResponse", None), ("MemberTransition", "STABLE"),
                                   ("MemberTransition", "RECONCILING"), ("MemberTransition", "JOINING"),
                                   ("JoinGroup", "STABLE")]]
    assert joined == [True, True, False, False, False]


def test_a_clients_releases_are_read_from_its_version_lines_and_a_versions_column_naming_one():
    """bugs._log_versions: the ClientVersion rows (the Java client's KafkaVersion, AppInfoParser's "Kafka
    version: ..."), and a `versions` column that names one release; other rows' details are not versions,
    a range or a family ("2.x") names none, and rows of other clients are not read."""
    from kafkasim.analysis.diagnose.bugs import _log_versions

    rows = [_client_row("a.log", 0, "KafkaVersion", "m-a", 1, detail="3.7.0"),
            _client_row("a.log", 1, "JoinGroupResponse", "m-a", 2, versions="3.1", detail="2.0.0"),
            _client_row("a.log", 2, "JoinGroup", "m-a", 3, versions="2.4-3.9", detail="2.1.0"),
            _client_row("a.log", 2, "JoinGroup", "m-a", 3, versions="2.x"),  # a family names none either
            _client_row("a.log", 3, "JoinGroup", "m-a", 4, versions="3.3"),
            _client_row("a.log", 4, "ClientVersion", "m-a", 5, detail="v1.9.2"),
            _client_row("b.log", 0, "KafkaVersion", "m-b", 1, detail="7.5.2-ccs")]  # Confluent's build of 3.5
    source = ROW_FIELDS.index("log_source")
    rows[3:6] = [(*r[:source], "librdkafka", *r[source + 1:]) for r in rows[3:6]]
    assert _log_versions(rows, ("java",)) == {(3, 7), (3, 1), (3, 5)}
    assert _log_versions(rows, ("librdkafka",)) == {(3, 3), (1, 9, 2)}


def _broker_join_then_leave(leaving: list[str]) -> list[str]:
    """A 3.x coordinator's lines: c-1-a and c-2-b join group g (generation 1, 2 members), then each of
    `leaving` leaves by LeaveGroup, and the log ends before the next generation."""
    p = "[2021-06-01 10:00:{}] INFO [GroupCoordinator 1]: "
    end = " (kafka.coordinator.group.GroupCoordinator)"
    lines = [p.format(s) + f"Preparing to rebalance group g in state PreparingRebalance with old generation 0 "
             f"(__consumer_offsets-3) (reason: Adding new member {m} with group instance id None; client reason: "
             f"not provided)" + end for s, m in [("00,000", "c-1-a"), ("00,100", "c-2-b")]]
    lines.append(p.format("03,000") + "Stabilized group g generation 1 (__consumer_offsets-3) with 2 members" + end)
    for s, m in zip(["30,000", "31,000"], leaving):
        lines += [p.format(s) + f"Member MemberMetadata(memberId={m}, groupInstanceId=None, clientId=c, "
                  "clientHost=/127.0.0.1, sessionTimeoutMs=45000, rebalanceTimeoutMs=300000, supportedProtocols="
                  "List(range)) has left group g through explicit `LeaveGroup`; client reason: the consumer is "
                  "being closed" + end,
                  p.format(s) + "Preparing to rebalance group g in state PreparingRebalance with old generation 1 "
                  f"(__consumer_offsets-3) (reason: Removing member {m} on LeaveGroup; client reason: the consumer "
                  "is being closed)" + end]
    return lines


@pytest.mark.parametrize("leaving, found", [
    (["c-1-a"], ["1 member(s) left by LeaveGroup and were not replaced (c-1-a), the group kept running: scaled in"]),
    (["c-1-a", "c-2-b"], [])])
def test_members_leaving_are_a_scale_in_only_while_someone_who_joined_stays(leaving, found):
    """rules.scaling / _emptied (docs/diagnose.md: "members leaving by LeaveGroup, not replaced, while the
    group goes on"): with no later generation to count, the group went on if a member that joined has not
    left; when every member that joined left, the application shut down: no scale-in."""
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines(_broker_join_then_leave(leaving), "server.log")
    assert [f.summary for f in report.findings if f.cause == "scaling"] == found


def test_java_default_client_ids_keep_their_number_as_the_fitted_members_name():
    """replay._names / _java_numbers: distinct Java default client ids `consumer-<group>-N`
    (ConsumerConfig.maybeOverrideClientId: "consumer-" + groupId + "-" + seq) keep their N as the scenario's
    c-N, whatever order they first appear in; a client id with anything after N is not a default one."""
    from kafkasim.analysis.diagnose.replay import fit_lines

    def fitted(first: str, second: str) -> dict:
        ids = {"c-1-a": f"{first}-{UUID}", "c-2-b": f"{second}-{UUID.replace('0b', '1b', 1)}"}
        lines = [line.replace("c-1-a", ids["c-1-a"]).replace("c-2-b", ids["c-2-b"]) for line in _broker_join_then_leave([])]
        return fit_lines(lines, "g").names

    assert fitted("consumer-g-2", "consumer-g-1") == {"consumer-g-2": "c-2", "consumer-g-1": "c-1"}
    assert fitted("consumer-g-2-x", "consumer-g-1") == {"consumer-g-2-x": "c-1", "consumer-g-1": "c-2"}


@pytest.mark.parametrize("pause_ms, changes", [
    (200_000, "session.timeout.ms=210000, max.poll.interval.ms=600000"),
    (700_000, "session.timeout.ms=710000, max.poll.interval.ms=710000"),
    (5_000, "session.timeout.ms=90000, max.poll.interval.ms=600000"),
    (200_001, "session.timeout.ms=211000, max.poll.interval.ms=600000")])
def test_longer_timeouts_are_twice_the_fitted_ones_or_past_the_longest_fault_plus_10_s(pause_ms, changes):
    """docs/diagnose.md, what-if `longer timeouts`: session.timeout.ms and max.poll.interval.ms twice the
    fitted ones (Kafka 3.x defaults 45 s and 300 s), or past the longest fault + 10 s, rounded up to the
    second; the session within group.max.session.timeout.ms (30 min)."""
    from kafkasim import Scenario
    from kafkasim.analysis.diagnose.replay import VARIANTS, Fit
    from kafkasim.core.faults import Pause

    scenario = Scenario(members=2, kafka_version="3.7", faults=[Pause("c-1", 10_000, duration_ms=pause_ms)])
    longer, said = VARIANTS["longer timeouts"](Fit("g", True, scenario=scenario))
    assert said == changes
    session, poll = (int(part.split("=")[1]) for part in changes.split(", "))
    assert (longer.consumer["session.timeout.ms"], longer.consumer["max.poll.interval.ms"]) == (session, poll)


def _longer(scenario, protocol: str = "classic"):
    """The "longer timeouts" what-if of a Fit of `scenario`: (its scenario, the changes it says)."""
    from kafkasim.analysis.diagnose.replay import VARIANTS, Fit

    return VARIANTS["longer timeouts"](Fit("g", True, scenario=scenario, protocol=protocol))


def test_longer_timeouts_double_the_fitted_consumer_configs_not_the_versions_defaults():
    """what-if `longer timeouts`: twice the scenario's own session.timeout.ms (20 s) and max.poll.interval.ms
    (120 s), past the 25 s pause + 10 s; every other consumer config kept."""
    from kafkasim import Scenario
    from kafkasim.core.faults import Pause

    consumer = {"heartbeat.interval.ms": 2000, "session.timeout.ms": 20_000, "max.poll.interval.ms": 120_000}
    longer, said = _longer(Scenario(members=2, kafka_version="3.7", consumer=consumer,
                                    faults=[Pause("c-1", 10_000, duration_ms=25_000)]))
    assert said == "session.timeout.ms=40000, max.poll.interval.ms=240000"
    assert longer.consumer == {"heartbeat.interval.ms": 2000, "session.timeout.ms": 40_000,
                               "max.poll.interval.ms": 240_000}


@pytest.mark.parametrize("faults, poll", [((), 10_000), (("crash",), 10_000), (("crash", 3_000), 13_000)])
def test_longer_timeouts_count_a_fault_without_a_duration_and_no_fault_as_0_ms(faults, poll):
    """what-if `longer timeouts`: the longest fault is the longest duration_ms; a Crash has none (0 ms), and
    a scenario without faults has a longest fault of 0 ms, so the poll timeout is at least 10 s (twice the
    1 s fitted is less); the session is twice 3.7's 45 s default."""
    from kafkasim import Scenario
    from kafkasim.core.faults import Crash, Pause

    made = [Crash("c-1", 5_000) if f == "crash" else Pause("c-2", 5_000, duration_ms=f) for f in faults]
    longer, said = _longer(Scenario(members=2, kafka_version="3.7", consumer={"max.poll.interval.ms": 1000},
                                    faults=made))
    assert said == f"session.timeout.ms=90000, max.poll.interval.ms={poll}"


@pytest.mark.parametrize("version, broker, pause_ms, changes", [
    ("2.2", {}, 400_000, "session.timeout.ms=300000, max.poll.interval.ms=600000"),
    ("2.3", {}, 2_000_000, "session.timeout.ms=1800000, max.poll.interval.ms=2010000"),
    ("3.7", {"group.max.session.timeout.ms": 600_000}, 700_000, "session.timeout.ms=600000, max.poll.interval.ms=710000")])
def test_longer_timeouts_keep_the_session_within_the_brokers_group_max_session_timeout_ms(version, broker, pause_ms,
                                                                                        changes):
    """what-if `longer timeouts`: the session no longer than the broker's group.max.session.timeout.ms (the
    coordinator answers INVALID_SESSION_TIMEOUT above it): 300 s from 0.10.0 (KAFKA-3636), 30 min from 2.3
    (KAFKA-7862), or what the broker sets; max.poll.interval.ms has no broker maximum. 2.2's session default is
    10 s, 2.3's too; the broker's own settings are kept."""
    from kafkasim import Scenario
    from kafkasim.core.faults import Pause

    longer, said = _longer(Scenario(members=2, kafka_version=version, broker=broker,
                                    faults=[Pause("c-1", 10_000, duration_ms=pause_ms)]))
    assert said == changes
    assert longer.broker == broker


def test_longer_timeouts_before_kip_62_lengthen_only_the_session_and_say_what_kafka_refuses():
    """what-if `longer timeouts` on Kafka 0.10.0: no max.poll.interval.ms before 0.10.1 (KIP-62), so only the
    session: twice 0.10.0's 30 s, past the 400 s pause + 10 s, within that version's 300 s maximum. Before 2.0
    KafkaConsumer wants request.timeout.ms above session.timeout.ms: with the 40 s default Kafka refuses the
    60 s session (5 s pause), and the what-if row says so instead of figures."""
    from kafkasim import Scenario
    from kafkasim.analysis.diagnose.replay import Fit, what_if
    from kafkasim.core.faults import Pause

    longer, said = _longer(Scenario(members=2, kafka_version="0.10.0", consumer={"request.timeout.ms": 700_000},
                                    faults=[Pause("c-1", 10_000, duration_ms=400_000)]))
    assert said == "session.timeout.ms=300000"
    assert longer.consumer == {"request.timeout.ms": 700_000, "session.timeout.ms": 300_000}
    fit = Fit("g", True, scenario=Scenario(members=2, kafka_version="0.10.0",
                                           faults=[Pause("c-1", 10_000, duration_ms=5_000)]))
    assert what_if(fit, ("longer timeouts",)) == [
        {"setting": "longer timeouts", "changes": "",
         "note": "request.timeout.ms should be greater than session.timeout.ms and fetch.max.wait.ms "
                 "(request.timeout.ms=40000, session.timeout.ms=60000, fetch.max.wait.ms=500)"}]


@pytest.mark.parametrize("broker, cap", [({}, 60_000), ({"group.consumer.max.session.timeout.ms": 120_000}, 120_000)])
def test_longer_timeouts_of_a_consumer_group_set_the_brokers_session_to_its_maximum(broker, cap):
    """what-if `longer timeouts` under the consumer protocol (KIP-848): the session is the broker's
    group.consumer.session.timeout.ms (the client's session.timeout.ms is refused with it, KAFKA-17338), set to
    group.consumer.max.session.timeout.ms (60 s by default, or the broker's own); max.poll.interval.ms is the
    client's, twice 300 s or past the 700 s pause + 10 s; everything else kept."""
    from kafkasim import Scenario
    from kafkasim.core.faults import Pause

    longer, said = _longer(Scenario(members=2, kafka_version="4.0", consumer={"group.protocol": "consumer"},
                                    broker=broker, faults=[Pause("c-1", 10_000, duration_ms=700_000)]), "consumer")
    assert said == f"group.consumer.session.timeout.ms={cap} (its broker maximum), max.poll.interval.ms=710000"
    assert longer.consumer == {"group.protocol": "consumer", "max.poll.interval.ms": 710_000}
    assert longer.broker == {**broker, "group.consumer.session.timeout.ms": cap}


def test_the_static_what_if_gives_each_member_an_instance_id_unless_they_have_one_and_as_fitted_changes_nothing():
    """what-if `static membership` (KIP-345): the same scenario with a group.instance.id per member; a group
    already static has the reason in its row, no figures. `as fitted` is the fitted scenario itself."""
    from dataclasses import replace

    from kafkasim.analysis.diagnose.replay import VARIANTS, what_if

    fit = _classic_fit("3.7")
    assert VARIANTS["as fitted"](fit) == (fit.scenario, "the fitted scenario")
    assert VARIANTS["static membership"](fit) == (replace(fit.scenario, static_membership=True),
                                                  "group.instance.id per member (KIP-345)")
    fit.scenario = replace(fit.scenario, static_membership=True)
    assert what_if(fit, ("static membership",)) == [
        {"setting": "static membership", "changes": "", "note": "already static"}]


def test_a_fits_text_gives_the_scenario_its_faults_what_was_read_and_what_was_assumed():
    """Fit.text: "fitted scenario for group G: Kafka V, N members, P protocol" (", static membership" when
    static), the members counting those the join storm's ScaleOuts start; one "  fault: <label>" line per fault
    that is not such a join, or "  no fault"; then "  read from the log:" and "  assumed:", each item
    indented four spaces. A fit that is not ok is one line with its reason."""
    from kafkasim import Scenario
    from kafkasim.analysis.diagnose.replay import Fit
    from kafkasim.core.faults import Crash, ScaleOut

    joins = (ScaleOut(2_000, 2),)
    static = Fit("g", True, scenario=Scenario(members=2, kafka_version="3.7", static_membership=True,
                                              faults=joins + (Crash("c-2", 5_000),)),
                 read=["static membership: members join with a group.instance.id", "c-2 crashed"],
                 assumed=["seed 1"], joins=joins)
    assert static.text() == ("fitted scenario for group g: Kafka 3.7, 4 members, classic protocol, static membership\n"
                             "  fault: Crash c-2 at 5 s\n"
                             "  read from the log:\n"
                             "    static membership: members join with a group.instance.id\n"
                             "    c-2 crashed\n"
                             "  assumed:\n"
                             "    seed 1")
    quiet = Fit("h", True, scenario=Scenario(members=3, kafka_version="4.0", consumer={"group.protocol": "consumer"}),
                protocol="consumer")
    assert quiet.text() == ("fitted scenario for group h: Kafka 4.0, 3 members, consumer protocol\n"
                            "  no fault\n  read from the log:\n  assumed:")
    assert Fit("k", False, "only 1 line").text() == "cannot fit a scenario to group k: only 1 line"


def test_a_replays_text_gives_its_closeness_and_each_part_to_two_decimals_and_the_tolerance():
    """Replay.text: "replay closeness S (part value, ...; rebalance starts matched within TOLERANCE_MS ms)",
    the parts in their order, each value to two decimals."""
    from kafkasim.analysis.diagnose.replay import Fit, Replay, Timeline

    rep = Replay(Fit("g", True), None, Timeline("g"), 0.722, {"starts": 0.667, "removals": 1.0, "generations": 0.5})
    assert rep.text() == ("replay closeness 0.72 (starts 0.67, removals 1.00, generations 0.50; "
                          "rebalance starts matched within 5000 ms)")


def _classic_fit(version: str):
    """A classic group's Fit on `version` whose consumer sets the three configs the consumer protocol
    refuses, and max.poll.interval.ms; its broker raises the session ceiling."""
    from kafkasim import Scenario
    from kafkasim.analysis.diagnose.replay import Fit

    consumer = {"partition.assignment.strategy": "range", "heartbeat.interval.ms": 2000,
                "session.timeout.ms": 20_000, "max.poll.interval.ms": 120_000}
    return Fit("g", True, scenario=Scenario(members=2, kafka_version=version, consumer=consumer,
                                            broker={"group.max.session.timeout.ms": 600_000}))


@pytest.mark.parametrize("version, switched", [("3.7", "4.0"), ("4.2", "4.2")])
def test_the_consumer_protocol_what_if_drops_exactly_the_configs_the_java_consumer_refuses_with_it(version, switched):
    """what-if `consumer protocol` (KIP-848): Kafka's ConsumerConfig (clients/src/main/java/org/apache/
    kafka/clients/consumer/ConsumerConfig.java, 4.0 to 4.4, CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS and
    checkUnsupportedConfigs, KAFKA-17338) throws "... cannot be set when group.protocol=CONSUMER" for
    partition.assignment.strategy, heartbeat.interval.ms and session.timeout.ms (the broker assigns and
    sets the session and the heartbeat interval); the others, max.poll.interval.ms here, are kept. The
    protocol is generally available from Kafka 4.0 (docs/diagnose.md), so an older version becomes 4.0
    and a 4.x one stays; the classic group's broker settings are cleared, and the label says all of it."""
    from kafkasim.analysis.diagnose.replay import VARIANTS

    scenario, said = VARIANTS["consumer protocol"](_classic_fit(version))
    assert scenario.consumer == {"max.poll.interval.ms": 120_000, "group.protocol": "consumer"}
    assert (scenario.kafka_version, scenario.broker) == (switched, {})
    assert said == f"group.protocol=consumer on Kafka {switched} (KIP-848; session.timeout.ms is the broker's)"


def test_the_cooperative_what_if_keeps_every_consumer_config_and_sets_cooperative_sticky():
    """what-if `cooperative-sticky` (KIP-429): the same classic group with partition.assignment.strategy
    replaced by cooperative-sticky, every other consumer config kept; with the consumer protocol the
    broker assigns (KIP-848), so the setting does not apply and its row gives the reason, no figures."""
    from kafkasim.analysis.diagnose.replay import VARIANTS, what_if

    fit = _classic_fit("3.7")
    scenario, said = VARIANTS["cooperative-sticky"](fit)
    assert scenario.consumer == {"partition.assignment.strategy": "cooperative-sticky", "heartbeat.interval.ms": 2000,
                                 "session.timeout.ms": 20_000, "max.poll.interval.ms": 120_000}
    assert said == "partition.assignment.strategy=cooperative-sticky (KIP-429)"
    fit.protocol = "consumer"
    assert what_if(fit, ("cooperative-sticky",)) == [
        {"setting": "cooperative-sticky", "changes": "", "note": "the consumer protocol assigns on the broker"}]


def test_the_what_if_table_right_aligns_figures_in_columns_as_wide_as_their_widest_value_then_the_changes():
    """what_if_text: the setting column as wide as the longest setting, left-aligned; each figure column as
    wide as its name or its widest figure (max_lag's 12345678 here, wider than its name), names and figures
    right-aligned, two spaces apart; a row with a note shows it in parentheses instead of figures (and
    widens nothing); then, in the rows' order, "  setting: changes" for each row with changes."""
    from kafkasim.analysis.diagnose.replay import what_if_text

    def row(setting, changes, *figures):
        keys = ("rebalances", "generations", "removals", "unconsumed_ms", "partition_downtime_ms", "rebalance_ms",
                "duplicates", "max_lag")
        return {"setting": setting, "changes": changes, "note": "", **dict(zip(keys, figures))}

    rows = [row("as fitted", "the fitted scenario", 3, 4, 1, 12000, 45000, 9500, 250, 12345678),
            {"setting": "static membership", "changes": "", "note": "already static"},
            row("cooperative-sticky", "partition.assignment.strategy=cooperative-sticky (KIP-429)",
                1, 2, 0, 3000, 6000, 2100, 0, 4000)]
    assert what_if_text(rows).split("\n") == [
        "setting             rebalances  generations  removals"
        "  unconsumed_ms  partition_downtime_ms  rebalance_ms  duplicates   max_lag",
        "as fitted                    3            4         1"
        "          12000                  45000          9500         250  12345678",
        "static membership   (already static)",
        "cooperative-sticky           1            2         0"
        "           3000                   6000          2100           0      4000",
        "  as fitted: the fitted scenario",
        "  cooperative-sticky: partition.assignment.strategy=cooperative-sticky (KIP-429)"]


#: replay._pick's reason when the report holds no group at all.
NO_GROUP = "no consumer-group lines in the log (the reader knows the group coordinator's lines)"
#: fit_scenario's reason for a group of one line.
ONE_LINE = "only 1 line of group {0}: a scenario needs the group's members and what happened to them"
#: command.replays' heading of the what-if table.
WHAT_IF_HEADING = "what if the same faults met other settings (one run each, seed 1):"


def _in_group(group: str, lines: list[str]) -> list[str]:
    """`lines` of group g as lines of `group` (and its own member ids)."""
    return [line.replace("group g ", f"group {group} ").replace("c-1-a", f"{group}-1-a")
            .replace("c-2-b", f"{group}-2-b") for line in lines]


def _diagnosed(tmp_path, lines: list[str]):
    """The report of `lines` written to a server.log (the fit reads the lines' text back from the file)."""
    from kafkasim.analysis.diagnose import diagnose_files

    log = tmp_path / "server.log"
    log.write_text("\n".join(lines) + "\n")
    return diagnose_files([str(log)])


def test_fit_files_fits_the_group_named_seed_1_by_default_and_says_which_groups_a_log_has(tmp_path):
    """replay.fit_files: the named group of the files, with seed 1 unless told ("seed N" in what was assumed);
    like fit_scenario, a log of two groups and none named says which to name, and a group the log does not
    have is named in the reason."""
    from kafkasim.analysis.diagnose.replay import fit_files

    lines = _broker_join_then_leave(["c-1-a"])
    log = tmp_path / "server.log"
    log.write_text("\n".join(lines + _in_group("k", lines)) + "\n")
    k = fit_files([str(log)], "k")
    assert (k.ok, k.group, k.scenario.group_id, k.scenario.seed, k.assumed[-1][-6:]) == (True, "k", "k", 1, "seed 1")
    assert fit_files([str(log)], "g", seed=7).scenario.seed == 7
    assert fit_files([str(log)]).reason == "the log has 2 groups; name one (g, k)"
    assert fit_files([str(log)], "x").reason == "no group x in the log"


def test_a_replays_json_gives_the_fitted_scenario_its_closeness_and_the_what_if_rows(tmp_path):
    """replay.replay_to_json (--replay-json): every key with what it carries. From the log by hand: group g,
    its wording dates it 3.2 (a KIP-800 client reason) to 3.9 (the `[GroupCoordinator N]:` prefix, a
    `MemberMetadata(...)` LeaveGroup line) and the oldest is simulated; 2 members join with no instance id;
    the LeaveGroup line prints sessionTimeoutMs=45000, rebalanceTimeoutMs=300000 (the Java client's
    max.poll.interval.ms); c-1 leaves 30 s after the first line and no one replaces it. What was read and
    assumed is the fit's, the closeness and its parts the replay's, the rows what_if's ([] without them)."""
    from kafkasim.analysis.diagnose.replay import fit_scenario, replay, replay_to_json, what_if

    fit = fit_scenario(_diagnosed(tmp_path, _broker_join_then_leave(["c-1-a"])), "g")
    rep, rows = replay(fit), what_if(fit)
    expected = {"group": "g", "kafka_version": "3.2", "version_range": ["3.2", "3.9"], "protocol": "classic",
                "members": 2, "static_membership": False,
                "consumer": {"session.timeout.ms": 45000, "max.poll.interval.ms": 300000}, "broker": {},
                "faults": ["ScaleIn c-1 at 30 s"], "joins": [], "read": fit.read, "assumed": fit.assumed,
                "closeness": rep.score, "parts": rep.parts, "what_if": rows}
    assert replay_to_json(rep, rows) == expected
    assert replay_to_json(rep) == {**expected, "what_if": []}
    assert [r["setting"] for r in rows] == ["as fitted", "static membership", "cooperative-sticky",
                                           "consumer protocol", "longer timeouts"]


def test_replays_give_each_group_its_fit_replay_what_if_heading_and_table_then_a_blank_line(tmp_path):
    """command.replays: per group, in the report's order, the fit, the replay's closeness, the what-if
    heading and table, a blank line; a group that cannot be fitted is one line saying why, with
    {"group", "error"} in the JSON, and the groups after it are still replayed."""
    from kafkasim.analysis.diagnose.command import replays
    from kafkasim.analysis.diagnose.replay import fit_scenario, replay, replay_to_json, what_if, what_if_text

    alone = ("[2021-06-01 09:59:59,000] INFO [GroupCoordinator 1]: Stabilized group h generation 4 "
             "(__consumer_offsets-5) with 3 members (kafka.coordinator.group.GroupCoordinator)")
    report = _diagnosed(tmp_path, [alone] + _broker_join_then_leave(["c-1-a"]))
    assert list(report.timelines) == ["h", "g"]
    fit = fit_scenario(report, "g")
    rep, rows = replay(fit), what_if(fit)
    body, machine = replays(report)
    assert body == (f"replay of group h: cannot fit a scenario: {ONE_LINE.format('h')}\n\n"
                    f"{fit.text()}\n{rep.text()}\n{WHAT_IF_HEADING}\n{what_if_text(rows)}\n")
    assert body.splitlines()[2] == "fitted scenario for group g: Kafka 3.2, 2 members, classic protocol"
    assert machine == [{"group": "h", "error": ONE_LINE.format("h")}, replay_to_json(rep, rows)]


def test_replays_of_a_log_without_any_group_give_the_fits_reason():
    """command.replays with no timeline at all: one line with fit_scenario's reason, and {"group": None, "error"}."""
    from kafkasim.analysis.diagnose import diagnose_lines
    from kafkasim.analysis.diagnose.command import replays
    from kafkasim.analysis.diagnose.replay import fit_scenario

    report = diagnose_lines(["[2021-06-01 10:00:00,000] INFO [KafkaServer id=1] started (kafka.server.KafkaServer)"])
    assert report.timelines == {} and fit_scenario(report).reason == NO_GROUP
    assert replays(report) == (f"replay: cannot fit a scenario: {NO_GROUP}\n", [{"group": None, "error": NO_GROUP}])


def test_a_replay_that_fails_is_one_line_and_the_diagnosis_and_the_other_groups_stand(monkeypatch, tmp_path):
    """command.replays: a group whose replay raises (anything but NotEnoughToFit) gets one line, "replay of
    group G failed: Type: message", and {"group", "error"} in the JSON, instead of ending `kafkasim diagnose
    --replay`; the groups after it are still replayed."""
    import kafkasim.analysis.diagnose.replay as replay_module
    from kafkasim.analysis.diagnose.command import replays

    real = replay_module.replay

    def broken_for_g(fit):
        if fit.group == "g":
            raise RuntimeError("disk on fire")
        return real(fit)

    monkeypatch.setattr(replay_module, "replay", broken_for_g)
    lines = _broker_join_then_leave(["c-1-a"])
    report = _diagnosed(tmp_path, lines + _in_group("k", lines))
    assert list(report.timelines) == ["g", "k"]
    body, machine = replays(report)
    assert body.startswith("replay of group g failed: RuntimeError: disk on fire\n\n"
                           "fitted scenario for group k: Kafka 3.2, 2 members, classic protocol\n")
    assert machine[0] == {"group": "g", "error": "RuntimeError: disk on fire"}
    assert (machine[1]["group"], machine[1]["faults"]) == ("k", ["ScaleIn c-1 at 30 s"])
    assert len(machine) == 2


def test_diagnose_on_spark_reads_the_files_with_the_parses_progress_shown():
    """command.SparkLogs: the executors parse the files (`parse_broker_logs`) into a temporary folder with
    the progress asked for (`kafkasim diagnose --spark` shows it on stderr), and the folder goes on close."""
    import os
    from types import SimpleNamespace

    from kafkasim.analysis.diagnose.command import SparkLogs

    asked = []

    def parse_broker_logs(spark, files, out, progress=None):
        asked.append((spark, files, os.path.isdir(out), progress))
        return SimpleNamespace(counts={"lines": 3})

    ks = SimpleNamespace(parse_broker_logs=parse_broker_logs)
    for progress in (True, False):
        with SparkLogs(ks, "spark", ["a.log"], progress=progress) as logs:
            assert logs.counts == {"lines": 3}
        assert not os.path.exists(logs._out)
    assert asked == [("spark", ["a.log"], True, True), ("spark", ["a.log"], True, False)]


def test_a_groups_diagnosis_in_an_executor_comes_back_with_its_first_rows_order_key():
    """command._diagnose_group (the applyInArrow body, run here without Spark): one row of the declared
    schema "t long, file_order long, seq long, payload binary": the order key (time, file's place, position)
    of the group's first row as `diagnose_rows` meets them, and its timelines and findings pickled."""
    import pickle

    import pyarrow as pa

    from kafkasim.analysis.diagnose import diagnose_rows
    from kafkasim.analysis.diagnose.command import _diagnose_group

    rows = parse_lines(_broker_join_then_leave(["c-1-a"]), "b.log").rows
    table = pa.table({name: [r[i] for r in rows] for i, name in enumerate(ROW_FIELDS)})
    out = _diagnose_group(table, ["a.log", "b.log"], keep_rows=True)
    assert out.schema == pa.schema([("t", pa.int64()), ("file_order", pa.int64()), ("seq", pa.int64()),
                                    ("payload", pa.binary())])
    first = min(rows, key=lambda r: (r[0], r[ROW_FIELDS.index("seq")]))
    assert out.num_rows == 1 and out.column("file_order").to_pylist() == [1]
    assert (out.column("t")[0].as_py(), out.column("seq")[0].as_py()) == (first[0], first[ROW_FIELDS.index("seq")])
    timelines, findings = pickle.loads(out.column("payload")[0].as_py())
    expected = diagnose_rows(rows, ["a.log", "b.log"])
    assert list(timelines) == ["g"] and findings == expected.findings
    assert len(timelines["g"].rows) == len(expected.timelines["g"].rows) > 0


def _executor_table(rows: list):
    import pyarrow as pa

    return pa.table({name: [r[i] for r in rows] for i, name in enumerate(ROW_FIELDS)})


def test_a_groups_diagnosis_in_an_executor_orders_an_instants_rows_by_the_files_order():
    """The executor sorts the group's rows as the plain path does (`sort_rows`): by time, then within an
    instant by the file's place in the files given (not the order Spark hands the rows in), then position."""
    import pickle

    from kafkasim.analysis.diagnose.command import _diagnose_group

    lines = _broker_join_then_leave(["c-1-a"])
    first, second = parse_lines(lines, "b.log").rows, parse_lines(lines, "a.log").rows
    out = _diagnose_group(_executor_table(first + second), ["a.log", "b.log"], keep_rows=True)
    timelines, _ = pickle.loads(out.column("payload")[0].as_py())
    times = sorted({r[0] for r in first})
    per_time = {t: sum(r[0] == t for r in first) for t in times}
    assert [r[ROW_FIELDS.index("file")] for r in timelines["g"].rows] == [
        f for t in times for f in ["a.log"] * per_time[t] + ["b.log"] * per_time[t]]


def test_a_groups_diagnosis_in_an_executor_drops_its_rows_unless_asked_to_keep_them():
    """Without `keep_rows` (no --html, no --replay) each timeline comes back with an empty list of rows (the
    driver would hold every line otherwise), its findings unchanged."""
    import pickle

    from kafkasim.analysis.diagnose import diagnose_rows
    from kafkasim.analysis.diagnose.command import _diagnose_group

    rows = parse_lines(_broker_join_then_leave(["c-1-a"]), "b.log").rows
    timelines, findings = pickle.loads(_diagnose_group(_executor_table(rows), ["b.log"], keep_rows=False)
                                       .column("payload")[0].as_py())
    assert timelines["g"].rows == [] and findings == diagnose_rows(rows, ["b.log"]).findings != []


# --html (kafkasim.analysis.diagnose.html): what a reader of the page sees, each value by hand.

def _tl_row(t: int, kind: str, member: str | None, line: int, file: str = "server.log") -> tuple:
    row = [None] * len(ROW_FIELDS)
    row[T], row[KIND], row[MEMBER], row[FILE], row[LINE] = t, kind, member, file, line
    return tuple(row)


def _episode(start: int, end: int | None, line: int, epoch: bool = False) -> Episode:
    return Episode(start, end, None, None, None, "server.log", line, epoch=epoch)


def test_the_timeline_chart_puts_each_move_at_its_seconds_from_the_groups_first_line_with_who_and_why():
    """_timeline_rows: a move is at (its time - the group's first line) / 1000 s, named by its client id
    (the member id less its UUID), "joined" or "left", why as the coordinator says ("join" for an
    arrival that says nothing); a rebalance is its span in seconds, one not finished ending at the
    log's last line (here 7.25 s after the first)."""
    tl = Timeline("g", first=1_000, last=8_250,
                  arrivals=[Move(1_100, f"app-1-{UUID}", None, "server.log", 2),
                            Move(2_345, "app-2", "static", "server.log", 4)],
                  departures=[Move(6_001, f"app-1-{UUID}", "leave_group", "server.log", 7)],
                  episodes=[_episode(1_000, 3_500, 1), _episode(6_001, None, 8)])
    moves, spans = html._timeline_rows(tl)
    assert moves == [{"s": 0.1, "member": "app-1", "what": "joined", "why": "join"},
                     {"s": 1.345, "member": "app-2", "what": "joined", "why": "static"},
                     {"s": 5.001, "member": "app-1", "what": "left", "why": "leave_group"}]
    assert spans == [{"start": 0.0, "end": 2.5}, {"start": 5.001, "end": 7.25}]


def test_the_timeline_chart_says_its_seconds_count_from_the_groups_first_line_and_its_legend_names_the_rows():
    """_timeline_spec: the x axis is titled with the first line's wall time (the log's clock, to the
    ms), the colour legend's domain is exactly the rows' `what` values, the shapes say "reason"."""
    tl = Timeline("g", first=1_000, last=2_000, arrivals=[Move(1_000, "a", None, "server.log", 1)],
                  departures=[Move(2_000, "a", "leave_group", "server.log", 2)])
    spec = html._timeline_spec(tl, datetime(2024, 3, 5, 10, 0))
    assert spec["title"] == "members joining and leaving; rebalances shaded"
    assert spec["layer"][0]["encoding"]["x"]["title"] == "seconds after 2024-03-05 10:00:01.000"
    points = spec["layer"][2]
    assert points["encoding"]["color"]["scale"]["domain"] == ["joined", "left"] == [
        m["what"] for m in points["data"]["values"]]
    assert points["encoding"]["shape"]["title"] == "reason"


def test_the_sequence_chart_holds_a_rebalances_lines_from_start_to_end_included_in_log_order():
    """_sequence_rows: the lines at the rebalance's start and end are in it, those before and after
    not; each is its place among them, who (client id; "coordinator" for a line naming no member)
    and its kind."""
    rows = [_tl_row(999, "MemberAdded", "x", 1), _tl_row(1_000, "RebalanceStarted", None, 2),
            _tl_row(1_200, "MemberAdded", f"app-1-{UUID}", 3), _tl_row(3_500, "GenerationStabilized", None, 4),
            _tl_row(3_501, "MemberRemoved", "app-1", 5)]
    ep = _episode(1_000, 3_500, 2)
    tl = Timeline("g", first=999, last=3_501, rows=rows, episodes=[ep])
    assert html._sequence_rows(tl, ep) == [{"order": 0, "who": "coordinator", "kind": "RebalanceStarted"},
                                           {"order": 1, "who": "app-1", "kind": "MemberAdded"},
                                           {"order": 2, "who": "coordinator", "kind": "GenerationStabilized"}]


def test_the_sequence_chart_of_an_unfinished_rebalance_runs_to_the_logs_last_line_and_shows_200_lines():
    """_sequence_rows: a rebalance not finished in the log goes on to its last line; at most the first
    200 lines are drawn (here 250 from its start)."""
    rows = [_tl_row(t, "MemberAdded", f"c-{t}", t) for t in range(1, 251)]
    ep = _episode(1, None, 1)
    tl = Timeline("g", first=1, last=250, rows=rows, episodes=[ep])
    values = html._sequence_rows(tl, ep)
    assert [v["order"] for v in values] == list(range(200)) and values[-1]["who"] == "c-200"


def _three_rebalances(**kw) -> Timeline:
    """Rebalances of 1 s (0-1 s), 5 s (10-15 s) and one not finished from 20 s to the log's last line
    (22 s): the longest is the second; the log's first line is in the first."""
    rows = [_tl_row(0, "RebalanceStarted", None, 1), _tl_row(1_000, "GenerationStabilized", None, 2),
            _tl_row(5_000, "MemberRemoved", "a", 3), _tl_row(10_000, "RebalanceStarted", None, 4),
            _tl_row(15_000, "GenerationStabilized", None, 5), _tl_row(20_000, "RebalanceStarted", None, 6),
            _tl_row(22_000, "MemberAdded", "b", 7)]
    eps = [_episode(0, 1_000, 1), _episode(10_000, 15_000, 4), _episode(20_000, None, 6)]
    return Timeline("g", first=0, last=22_000, rows=rows, episodes=eps, **kw)


def _finding(*lines: int, file: str = "server.log") -> Finding:
    return Finding("network", "g", 0.5, "", [Line(file, n) for n in lines])


def test_the_rebalance_drawn_is_the_one_the_first_evidence_line_falls_in():
    """_worst: the first evidence line (of the best finding first) inside a rebalance picks it, even a
    short or unfinished one; a line read in no row (another file) or between rebalances is passed over."""
    tl = _three_rebalances()
    assert html._worst(tl, [_finding(7)]) is tl.episodes[2]
    assert html._worst(tl, [_finding(7, file="client.log"), _finding(3, 2)]) is tl.episodes[0]


def test_the_rebalance_drawn_without_evidence_in_one_is_the_longest_the_earliest_of_equals():
    """_worst: with no evidence line in a rebalance, the longest (an unfinished one counted to the
    log's last line: 2 s here), and of two equally long ones the earliest; epoch bumps never."""
    tl = _three_rebalances()
    assert html._worst(tl, []) is tl.episodes[1]
    assert html._worst(tl, [_finding(3)]) is tl.episodes[1]
    tl.last = 40_000  # the unfinished one now lasts 20 s
    assert html._worst(tl, []) is tl.episodes[2]
    twins = Timeline("g", first=0, last=9_000, episodes=[_episode(0, 2_000, 1), _episode(5_000, 7_000, 3)])
    assert html._worst(twins, []) is twins.episodes[0]
    bumps = Timeline("g", first=0, last=0, episodes=[_episode(0, 0, 1, epoch=True)])
    assert html._worst(bumps, []) is None


def test_a_rebalances_heading_gives_its_seconds_or_says_it_did_not_finish():
    """_secs: a finished rebalance's duration in seconds (3.5 s), else "not finished in the log"."""
    assert html._secs(_episode(1_000, 4_500, 1)) == "3.5 s"
    assert html._secs(_episode(1_000, None, 1)) == "not finished in the log"


def test_an_evidence_line_is_shown_with_two_lines_either_side_itself_highlighted():
    """_context: CONTEXT (2) lines before and after, each numbered to 6 places; only the evidence line
    has class `hit`; lines not read are left out, and none read is nothing at all."""
    texts = {"a.log": {n: f"line {n} <x>" for n in range(1, 10)}, "b.log": {}}
    assert html._context(texts, "a.log", 5) == (
        "<pre><span class=''>     3  line 3 &lt;x&gt;</span>\n<span class=''>     4  line 4 &lt;x&gt;</span>\n"
        "<span class='hit'>     5  line 5 &lt;x&gt;</span>\n<span class=''>     6  line 6 &lt;x&gt;</span>\n"
        "<span class=''>     7  line 7 &lt;x&gt;</span>\n</pre>")
    assert html._context(texts, "a.log", 10) == (
        "<pre><span class=''>     8  line 8 &lt;x&gt;</span>\n<span class=''>     9  line 9 &lt;x&gt;</span>\n</pre>")
    assert html._context(texts, "b.log", 5) == ""


def test_the_page_reads_each_evidence_line_and_two_either_side_of_it(tmp_path):
    """_evidence_text: {file: {line: text}} of lines line-2 to line+2 of each evidence line, no more."""
    log = tmp_path / "server.log"
    log.write_text("".join(f"line {n}\n" for n in range(1, 21)))
    report = SimpleNamespace(findings=[_finding(10, file=str(log))])
    assert html._evidence_text(report) == {str(log): {n: f"line {n}" for n in range(8, 13)}}


# read_lines (kafkasim.analysis.logs.files): the text --html and --replay show for a file:line, the
# line the log reader numbered (docs/log-reader.md, "Per file"), expectations written by hand.
LINES = "first\r\nkeeps two spaces  \r\nends in XX\nbad \ufffd byte\n" + "y" * 2001 + "\nlast"
SHOWN = {1: "first", 2: "keeps two spaces  ", 3: "ends in XX", 4: "bad \ufffd byte", 5: "y" * 2000, 6: "last"}


@pytest.mark.parametrize("encode", [
    lambda text: text.replace("\ufffd", "\udcff").encode("utf-8", "surrogateescape"),  # a lone 0xff byte
    lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),  # a UTF-8 byte-order mark, dropped
    lambda text: gzip.compress(text.encode("utf-8")),  # compressed, known by its magic bytes not its name
    lambda text: text.encode("utf-16"),  # UTF-16 with its byte-order mark (PowerShell's `>`)
], ids=["invalid-utf8", "utf8-bom", "gzip", "utf16"])
def test_a_shown_line_is_the_numbered_line_without_its_line_end_cut_at_2000_characters(tmp_path, encode):
    """Only the line end goes ('\\n', and the '\\r' of a CRLF): trailing spaces and letters stay; an
    invalid UTF-8 byte shows as U+FFFD; a line longer than SHOWN_LINE_CHARS (2,000) is cut there."""
    log = tmp_path / "server.log"
    log.write_bytes(encode(LINES))
    assert read_lines(str(log), set(range(1, 7))) == SHOWN
    assert read_lines(str(log), {-1, 0, 1, 2, 3}) == {1: "first", 2: "keeps two spaces  ", 3: "ends in XX"}
    assert read_lines(str(log), {6, 7, 8}) == {6: "last"}


def test_lines_that_cannot_be_read_are_left_out(tmp_path):
    """A missing file, a directory and a FIFO give nothing (a FIFO is never opened for a read that
    could wait); a truncated gzip stream gives the lines before the damage."""
    os.mkfifo(tmp_path / "pipe")
    for name in ("missing.log", ".", "pipe"):
        assert read_lines(str(tmp_path / name), {1, 2}) == {}
    packed = gzip.compress("".join(f"line {n}\n" for n in range(1, 4)).encode() + random.Random(0).randbytes(9000))
    (tmp_path / "server.log.1").write_bytes(packed[:len(packed) - 2000])
    assert read_lines(str(tmp_path / "server.log.1"), {1, 3, 9999}) == {1: "line 1", 3: "line 3"}


def test_a_chart_is_drawn_loading_nothing_or_the_page_says_what_it_needs(monkeypatch):
    """_svg: vl-convert may load no URL (the page must work offline); without it, one line says to
    install the viz extra."""
    spec = {"data": {"url": "data.csv"}, "mark": "point"}
    with pytest.raises(ValueError, match="not allowed"):
        html._svg(spec)
    monkeypatch.setitem(sys.modules, "vl_convert", None)
    assert html._svg(spec) == "<p>(charts need vl-convert-python, the viz extra: pip install 'kafkasim[viz]')</p>"


def _body(page: str) -> str:
    return page[page.index("<body>"):]


def test_the_page_gives_per_group_its_charts_worst_rebalance_timeline_and_findings_with_their_lines(
        tmp_path, monkeypatch):
    """page: the files read; per group a heading with its protocol, the timeline chart, the rebalance
    drawn event by event (its wall time and duration), the timeline's lines, the findings best first
    with what would have prevented each and each evidence line among its neighbours, or a line saying
    nothing was found (docs/diagnose.md, --html)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(html, "_svg", lambda spec: "<svg/>")
    g = _broker_join_then_leave(["c-1-a"])
    h = [line.replace("group g ", "group h ") for line in _broker_join_then_leave([])]
    (tmp_path / "server.log").write_text("\n".join(g) + "\n")
    (tmp_path / "server.log.1").write_text("\n".join(h) + "\n")
    from kafkasim.analysis.diagnose import diagnose_files
    assert _body(html.page(diagnose_files(["server.log", "server.log.1"]))) == "\n".join([
        "<body><h1>kafkasim diagnose</h1>",
        "<p>2 file(s): server.log, server.log.1</p>",
        "<h2>Group g (classic protocol)</h2>",
        "<svg/>",
        "<h3>The rebalance of 2021-06-01 10:00:30.000 (not finished in the log), event by event</h3><svg/>",
        "<h3>Timeline</h3><pre>  2021-06-01 10:00:00.000  rebalance -&gt; generation 1, 3 s, 2 members: Adding new "
        "member c-1-a with group instance id None; client reason: not provided  [server.log:1]",
        "  2021-06-01 10:00:00.000  + c-1-a joined  [server.log:1]",
        "  2021-06-01 10:00:00.100  + c-2-b joined  [server.log:2]",
        "  2021-06-01 10:00:30.000  - c-1-a left: LeaveGroup  [server.log:4]",
        "  2021-06-01 10:00:30.000  rebalance -&gt; no new generation, not finished in this log: Removing member "
        "c-1-a on LeaveGroup; client reason: the consumer is being closed  [server.log:5]</pre>",
        "<h3>Findings, best first</h3>",
        "<div class='finding'><p><span class='score'>scaling</span> (score 0.80): 1 member(s) left by LeaveGroup "
        "and were not replaced (c-1-a), the group kept running: scaled in</p><p>Would have prevented it:</p><ul>"
        "<li>partition.assignment.strategy=cooperative-sticky (KIP-429), or group.protocol=consumer (KIP-848)</li>"
        "<li>an autoscaler stabilization window longer than a rebalance; scale in steps, not one consumer at a "
        "time</li><li>group.initial.rebalance.delay.ms (broker) so consumers starting together join one "
        "rebalance</li></ul>",
        f"<p>server.log:4</p><pre><span class=''>     2  {g[1]}</span>",
        f"<span class=''>     3  {g[2]}</span>",
        f"<span class='hit'>     4  {g[3]}</span>",
        f"<span class=''>     5  {g[4]}</span>",
        "</pre>",
        "</div>",
        "<h2>Group h (classic protocol)</h2>",
        "<svg/>",
        "<h3>The rebalance of 2021-06-01 10:00:00.000 (3 s), event by event</h3><svg/>",
        "<h3>Timeline</h3><pre>  2021-06-01 10:00:00.000  rebalance -&gt; generation 1, 3 s, 2 members: Adding new "
        "member c-1-a with group instance id None; client reason: not provided  [server.log.1:1]",
        "  2021-06-01 10:00:00.000  + c-1-a joined  [server.log.1:1]",
        "  2021-06-01 10:00:00.100  + c-2-b joined  [server.log.1:2]</pre>",
        "<h3>Findings, best first</h3>",
        "<p class='none'>No rebalance trouble found.</p>",
        "</body></html>"])


def test_a_page_without_group_lines_names_its_file_and_says_there_is_nothing_to_diagnose(tmp_path, monkeypatch):
    """page: with no consumer-group line, the file read and one line saying so, nothing else."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.log").write_text("[2024-05-01 10:00:00,000] INFO some other broker line "
                                        "(kafka.server.KafkaServer)\n")
    from kafkasim.analysis.diagnose import diagnose_files
    assert _body(html.page(diagnose_files(["other.log"]))) == (
        "<body><h1>kafkasim diagnose</h1>\n<p>1 file(s): other.log</p>\n"
        "<p>No consumer-group lines found in the input: nothing to diagnose.</p>\n</body></html>")


def test_the_page_tells_the_time_on_the_reports_clock():
    """page: the rebalance drawn is headed with its start on `report.origin`'s clock (the instant the
    rows' time 0 stands for), like the timeline's lines, not on the simulation's START_TIME."""
    from kafkasim.analysis.diagnose import diagnose_lines
    report = diagnose_lines(_broker_join_then_leave(["c-1-a"]), "server.log")
    report.origin += timedelta(hours=1)
    page = html.page(report)
    assert "<h3>The rebalance of 2021-06-01 11:00:30.000 (not finished in the log), event by event</h3>" in page
    assert "  2021-06-01 11:00:30.000  - c-1-a left: LeaveGroup  [server.log:4]" in page


def test_the_sequence_chart_puts_each_line_at_its_place_in_the_log_on_the_row_of_who_it_concerns():
    """_sequence_spec: drawn from `_sequence_rows`, x is the line's place ("event, in log order"), y who
    it concerns, each point labelled with its kind."""
    rows = [_tl_row(0, "RebalanceStarted", None, 1), _tl_row(5, "MemberAdded", "a", 2)]
    ep = _episode(0, 5, 1)
    spec = html._sequence_spec(Timeline("g", first=0, last=5, rows=rows, episodes=[ep]), ep)
    assert spec["data"]["values"] == [{"order": 0, "who": "coordinator", "kind": "RebalanceStarted"},
                                      {"order": 1, "who": "a", "kind": "MemberAdded"}]
    points, labels = spec["layer"]
    assert points["encoding"]["x"] == {"field": "order", "type": "quantitative", "title": "event, in log order"}
    assert points["encoding"]["y"]["field"] == labels["encoding"]["y"]["field"] == "who"
    assert labels["encoding"]["text"] == {"field": "kind"}


@pytest.mark.parametrize("groups, shown", [([], "none"), ([f"g{i:02d}" for i in range(10)], "g00, g01, g02, g03, g04, "
                                                         "g05, g06, g07, g08, g09"),
                                           ([f"g{i:02d}" for i in range(11)], "g00, g01, g02, g03, g04, g05, g06, "
                                                                              "g07, g08, g09 ...")])
def test_no_such_group_names_the_first_ten_groups_found_and_says_when_there_are_more(groups, shown):
    """command.check_group: --group naming none of the logs' groups lists at most 10 of them (sorted), "..."
    only when more were found, "none" when the logs hold no group."""
    from kafkasim.analysis.diagnose.command import NoSuchGroup, check_group

    check_group(groups, groups[0] if groups else None)  # a group found, or none asked for: no error
    with pytest.raises(NoSuchGroup) as raised:
        check_group(groups, "nope")
    assert str(raised.value) == f"--group nope: no such group in these logs (groups found: {shown})"


def test_the_commands_run_redacts_only_when_asked_and_names_the_files_it_read(tmp_path):
    """command.run (`kafkasim diagnose` without Spark): the page keeps the members' names unless `redact` is
    given (then c-1-a is member-1 throughout); it names the files read, in the order given."""
    from kafkasim.analysis.diagnose.command import run

    rows = parse_lines(_broker_join_then_leave(["c-1-a"]), "b.log").rows
    plain, redacted = tmp_path / "plain.html", tmp_path / "redacted.html"
    assert run(rows, ["a.log", "b.log"], html_out=str(plain)).startswith("group g (classic protocol), ")
    run(rows, ["a.log", "b.log"], html_out=str(redacted), redact=True)
    plain, redacted = plain.read_text(encoding="utf-8"), redacted.read_text(encoding="utf-8")
    assert "<p>2 file(s): a.log, b.log</p>" in plain
    assert "c-1-a" in plain and "member-1" not in plain
    assert "c-1-a" not in redacted and "member-1" in redacted


def test_a_rebalance_reason_on_screen_is_cut_to_90_characters_its_last_an_ellipsis():
    """report.timeline_lines: a trigger of up to 90 characters is shown whole; a longer one as its first 89
    and "…", 90 in all."""
    from kafkasim.analysis.diagnose.report import timeline_lines

    fits, longer = "r" * 89 + "x", "r" * 89 + "xy"
    tl = Timeline("g", first=0, last=2_000)
    tl.episodes = [Episode(0, 1_000, 1, fits, 2, "f", 1), Episode(1_000, 2_000, 2, longer, 2, "f", 2)]
    shown = [line.split(": ", 1)[1].split("  [")[0] for line in timeline_lines(tl, datetime(2024, 3, 5))]
    assert shown == [fits, "r" * 89 + "…"]


def test_a_client_finding_takes_its_strongest_signal_then_two_points_per_more_sighting_to_0_99_and_12_lines():
    """client_rules._finding: the summary and base score of the strongest signal, +0.02 for each sighting past
    the first (to 0.99 at most, 3 decimals); the evidence lines of the strongest signal first, each once, 12 at most."""
    from kafkasim.analysis.diagnose.client_rules import _finding
    from kafkasim.analysis.diagnose.model import SETTINGS

    def row(line):
        r = [None] * len(ROW_FIELDS)
        r[ROW_FIELDS.index("file")], r[ROW_FIELDS.index("line")] = "c.log", line
        return tuple(r)

    found = _finding("network", "g", [(0.6, [row(3), row(1)], "weak", 1), (0.8, [row(2), row(3)], "strong", 2)], {})
    assert (found.cause, found.group, found.score, found.summary) == ("network", "g", 0.84, "strong")
    assert found.evidence == [Line("c.log", 2), Line("c.log", 3), Line("c.log", 1)]
    assert found.settings == list(SETTINGS["network"])
    assert _finding("network", "g", [(0.95, [row(1)], "s", 4)], {}).score == 0.99  # 0.95 + 0.06, capped
    assert _finding("network", "g", [(0.81234, [row(1)], "s", 1)], {}).score == 0.812
    many = _finding("network", "g", [(0.5, [row(n) for n in range(1, 14)], "s", 1)], {})
    assert many.evidence == [Line("c.log", n) for n in range(1, 13)]


# --- client_rules: the rules over a client's own lines (slow_processing, sessions, _removed, _config) ---

_POLL_SUMMARY = ("the client's poll timer expired {} time(s) (its log: max.poll.interval.ms went by between two poll() "
                 "calls while the process lived), so it left the group")


def test_a_poll_timeout_counts_the_timers_expiries_and_shows_its_leave_rejoin_and_failed_commits():
    """client_rules.slow_processing (docs/diagnose.md, Client logs): Java's "consumer poll timeout has expired"
    (AbstractCoordinator.java 2.4+), each a sighting (0.95, +0.02 per further one); its LeaveGroup "due to consumer
    poll timeout has expired", "Member M will rejoin the group now" (3.8+) and a CommitFailedException "... has
    already rebalanced" are shown after them; the summary counts the timer's expiries (2), not the leaves (1)."""
    rows = [_client_row("a.log", 0, "PollTimeout", "m-a", 1, reason="poll_timeout"),
            _client_row("a.log", 0, "LeaveGroup", "m-a", 2, reason="consumer poll timeout has expired."),
            _client_row("a.log", 100, "PollTimeoutRejoin", "m-a", 3),
            _client_row("a.log", 5_000, "PollTimeout", "m-a", 4, reason="poll_timeout"),
            _client_row("a.log", 6_000, "CommitFailed", None, 5, reason="group rebalanced")]
    from kafkasim.analysis.diagnose.model import SETTINGS
    assert client_rules.findings(rows) == [
        Finding("slow-processing", "g", 0.97, _POLL_SUMMARY.format(2),
                [Line("a.log", n) for n in (1, 4, 2, 3, 5)], list(SETTINGS["slow-processing"]))]


def test_a_poll_timeout_leave_without_the_timers_line_counts_the_leaves():
    """client_rules.slow_processing: a LeaveGroup "due to consumer poll timeout has expired" (AbstractCoordinator
    .java 2.4+) whose "consumer poll timeout has expired" line the log lacks counts one expiry per leave; a
    failed commit after it is shown as well (0.95, one sighting)."""
    rows = [_client_row("a.log", 0, "LeaveGroup", "m-a", 1, reason="consumer poll timeout has expired."),
            _client_row("a.log", 1_000, "CommitFailed", None, 2, reason="group rebalanced")]
    (found,) = client_rules.findings(rows)
    assert (found.cause, found.score, found.summary, found.evidence) == (
        "slow-processing", 0.95, _POLL_SUMMARY.format(1), [Line("a.log", 1), Line("a.log", 2)])


def test_only_a_commit_failed_because_the_group_rebalanced_is_a_weak_poll_loop_finding():
    """client_rules.slow_processing without a poll timer's line: CommitFailedException's "Commit cannot be completed
    since the group has already rebalanced ..." (CommitFailedException.java 1.0+) names the poll loop: 0.7, +0.02
    per further one; its "not part of an active group" form (2.5+) names no cause and is not counted."""
    rows = [_client_row("a.log", 0, "CommitFailed", None, 1, reason="group rebalanced"),
            _client_row("a.log", 1_000, "CommitFailed", None, 2, reason="group rebalanced"),
            _client_row("a.log", 2_000, "CommitFailed", None, 3, reason="not part of an active group")]
    (found,) = client_rules.findings(rows)
    assert (found.cause, found.score, found.summary, found.evidence) == (
        "slow-processing", 0.72, "2 offset commit(s) failed because the group had rebalanced without this member; "
                                 "the consumer's CommitFailedException names the usual cause: more than "
                                 "max.poll.interval.ms between two poll() calls", [Line("a.log", 1), Line("a.log", 2)])
    assert client_rules.findings(rows[2:]) == []


_UNKNOWN_MEMBER_SUMMARY = ("the coordinator no longer knew the member (UNKNOWN_MEMBER_ID): its session had expired; "
                           "the client's log holds no line of its session timer, so a pause and a cut network look "
                           "alike")


@pytest.mark.parametrize("kind", ["HeartbeatResponse", "ConsumerGroupHeartbeat"])
def test_an_unknown_member_answer_alone_is_a_weak_session_expiry_under_either_protocol(kind):
    """client_rules._removed: UNKNOWN_MEMBER_ID on a classic heartbeat (AbstractCoordinator.java 2.6+) or on a
    consumer-protocol one ("GroupHeartbeatRequest failed because member M is unknown", HeartbeatRequestManager.java
    3.7+; franz-go's consumer_group_848.go) with no session timer line: 0.6 (docs/diagnose.md, Client logs)."""
    (found,) = client_rules.findings([_client_row("a.log", 0, kind, "m-a", 1, error="UNKNOWN_MEMBER_ID")])
    assert (found.cause, found.score, found.summary, found.evidence) == (
        "session-timeout-gc-or-stall", 0.6, _UNKNOWN_MEMBER_SUMMARY, [Line("a.log", 1)])


def test_an_unknown_member_answer_is_paired_only_with_a_session_timer_of_its_own_process():
    """client_rules.sessions: the session timer read with an UNKNOWN_MEMBER_ID answer is one of the same process
    (file and client id: one file may hold several consumers' lines); consumer-g-1's timer 0.5 s before
    consumer-g-2's answer is no frozen process (0.85) but two weak sightings: 0.6 + 0.02, the answer's first."""
    rows = [_client_row("app.log", 0, "SessionTimeout", "m-1", 1, client="consumer-g-1"),
            _client_row("app.log", 500, "HeartbeatResponse", "m-2", 2, client="consumer-g-2",
                        error="UNKNOWN_MEMBER_ID")]
    (found,) = client_rules.findings(rows)
    assert (found.cause, found.score, found.summary, found.evidence) == (
        "session-timeout-gc-or-stall", 0.62, _UNKNOWN_MEMBER_SUMMARY, [Line("app.log", 2), Line("app.log", 1)])


def test_a_settings_shown_text_is_the_lines_own_then_its_number_then_empty_each_value_once():
    """client_rules._config: setting -> [(text, file:line)] of each distinct value a ClientConfig line gave it; the
    text is the line's own (ConsumerConfig's "max.poll.interval.ms = 1000000", not 1e+06), else its number, else
    empty; lines of other kinds set nothing."""
    def setting(line, name, **fields):
        return _client_row("c.log", 0, "ClientConfig", None, line, reason=name, **fields)

    rows = [setting(1, "max.poll.interval.ms", value=1e6, detail="1000000"),
            setting(2, "max.poll.records", value=500.0), setting(3, "group.instance.id"),
            setting(4, "max.poll.interval.ms", value=1e6, detail="1000000"),
            _client_row("c.log", 9, "LeaveGroup", "m-a", 5, reason="consumer poll timeout has expired.")]
    assert client_rules._config(rows) == {"max.poll.interval.ms": [("1000000", "c.log:1")],
                                          "max.poll.records": [("500", "c.log:2")],
                                          "group.instance.id": [("", "c.log:3")]}


@pytest.mark.parametrize("kind, error", [("CoordinatorDisconnected", None), ("HeartbeatResponse", "_TRANSPORT"),
                                         ("ConsumerGroupHeartbeat", "COORDINATOR_NOT_AVAILABLE")])
def test_a_lost_connection_alone_is_a_weak_network_finding(kind, error):
    """client_rules.network: "Consumer has been disconnected from the group coordinator" (AbstractCoordinator.java
    2.8+), or a heartbeat answered with an unreachable coordinator (librdkafka's "_TRANSPORT", a KIP-848 heartbeat's
    COORDINATOR_NOT_AVAILABLE), with nothing else in the log: network at 0.6, the lost connections counted."""
    (found,) = client_rules.findings([_client_row("a.log", 0, kind, "m-a", 1, error=error)])
    assert (found.cause, found.score, found.summary, found.evidence) == (
        "network", 0.6, "the client lost its connection to the group coordinator 1 time(s)", [Line("a.log", 1)])
    # the same kinds answered otherwise are no lost connection
    if error is not None:
        assert client_rules.findings([_client_row("a.log", 0, kind, "m-a", 1, error="REBALANCE_IN_PROGRESS")]) == []


def _timer_and_answers(*answers_ms: int, timer_ms: int | None = 0) -> list:
    """One process's session timer (at `timer_ms`, if any) and its UNKNOWN_MEMBER_ID answers, in time order."""
    rows = [] if timer_ms is None else [(timer_ms, "SessionTimeout", None)]
    rows += [(t, "HeartbeatResponse", "UNKNOWN_MEMBER_ID") for t in answers_ms]
    rows.sort(key=lambda r: r[0])
    return [_client_row("a.log", t, kind, "m-a", n, client="consumer-g-1", error=error)
            for n, (t, kind, error) in enumerate(rows, 1)]


@pytest.mark.parametrize("answer_ms, found", [(RETURN_MS, [("network", 0.9)]),
                                              (RETURN_MS + 1, [("session-timeout-gc-or-stall", 0.62)])])
def test_an_unknown_member_answer_pairs_with_its_processs_timer_up_to_return_ms_before_it(answer_ms, found):
    """client_rules.sessions: a timer at most RETURN_MS before the answer is that answer's expiry (answered long
    after: the network, 0.9); one earlier is not: a timer alone and an answer alone, two weak sightings (0.6 + 0.02)."""
    assert [(f.cause, f.score) for f in client_rules.findings(_timer_and_answers(answer_ms))] == found


def test_a_session_timer_pairs_with_one_answer_and_an_answer_without_a_timer_does_not_stop_the_others():
    """client_rules.sessions: each timer is used once (a second answer after it is an answer alone), and an answer
    with no timer before it is a weak sighting while the answers after it are still paired."""
    one_timer = client_rules.findings(_timer_and_answers(5_000, 6_000))  # the timer pairs with 5 s; 6 s is alone
    assert sorted((f.cause, f.score) for f in one_timer) == [("network", 0.9), ("session-timeout-gc-or-stall", 0.6)]
    first_alone = _timer_and_answers(1_000, timer_ms=None) + [
        _client_row("a.log", 2_000, "SessionTimeout", "m-a", 3, client="consumer-g-1"),
        _client_row("a.log", 5_000, "HeartbeatResponse", "m-a", 4, client="consumer-g-1", error="UNKNOWN_MEMBER_ID")]
    assert sorted((f.cause, f.score) for f in client_rules.findings(first_alone)) == [
        ("network", 0.9), ("session-timeout-gc-or-stall", 0.6)]


# --- client_rules.rolling_restart: dynamic consumers closing one after another, each followed by a new member id ---

_CLOSED = "the consumer is being closed"


def _restarts(*restarts: tuple[int, int], config: tuple = (), static: bool = False) -> list:
    """Java consumers restarted one after another, rows in time order: consumer x of a.log, b.log, ... (member m-x,
    "instanceId=pod-x" in its lines' prefix if `static`) joined at 0 (line 1), closed at its (close_ms, new_ms)
    pair's first time (line 2: "Member m-x sending LeaveGroup request to coordinator N due to the consumer is being
    closed", AbstractCoordinator.maybeLeaveGroup 2.4+), and its restarted process joined as the new member m-x2 at
    the second (line 3). `config`: (setting, text) pairs, the ClientConfig lines 1, 2, ... of app.log."""
    rows = [_client_row("app.log", 0, "ClientConfig", None, n, reason=name, detail=text)
            for n, (name, text) in enumerate(config, 1)]
    for x, (close_ms, new_ms) in zip("abc", restarts):
        instance = {"instance": f"pod-{x}"} if static else {}
        rows += [_client_row(f"{x}.log", 0, "JoinGroupResponse", f"m-{x}", 1, **instance),
                 _client_row(f"{x}.log", close_ms, "LeaveGroup", f"m-{x}", 2, reason=_CLOSED, **instance),
                 _client_row(f"{x}.log", new_ms, "JoinGroupResponse", f"m-{x}2", 3, **instance)]
    return sorted(rows, key=lambda r: (r[T], r[FILE], r[LINE]))


def _rolling_restart(score: float, consumers: int, closes: str, shown: tuple = ()) -> Finding:
    """The finding of a rolling restart of `consumers` dynamic members whose closes are line 2 of `closes`' files."""
    return Finding("rolling-restart-dynamic-members", "g", score,
                   f"{consumers} consumers closed one after another, each followed by a new member id, and none has a "
                   f"group.instance.id: a rolling restart of dynamic members, two rebalances per restart",
                   [Line(f"{x}.log", 2) for x in closes], [*shown, *SETTINGS["rolling-restart-dynamic-members"]])


@pytest.mark.parametrize("new_ms, found", [(0, False), (RETURN_MS, True), (RETURN_MS + 1, False)])
def test_a_close_is_restarted_by_a_new_member_id_after_it_and_at_most_return_ms_later(new_ms, found):
    """client_rules.rolling_restart: a close is a restart when a member id not seen before shows up after it (one
    first seen at the close's own instant is not) and at most RETURN_MS later ("a member back within this long
    after it left is the same process coming back, or its restart", rules.py). b's restart, 2 * RETURN_MS after
    a's close, always counts: a's alone decides between a rolling restart of two (0.75 + 0.02) and nothing."""
    rows = _restarts((10_000, 10_000 + new_ms), (10_000 + 2 * RETURN_MS, 11_000 + 2 * RETURN_MS))
    assert client_rules.findings(rows) == ([_rolling_restart(0.77, 2, "ab")] if found else [])


@pytest.mark.parametrize("spread_ms, found", [(TOGETHER_MS, False), (TOGETHER_MS + 1, True)])
def test_restarted_consumers_are_a_rolling_restart_only_when_their_closes_span_more_than_together_ms(spread_ms, found):
    """client_rules.rolling_restart: closes at most TOGETHER_MS (5 s, rules.py: "this close together are one
    outage, not one process each") from the first to the last are consumers stopped together, not one after
    another."""
    rows = _restarts((10_000, 11_000), (10_000 + spread_ms, 11_000 + spread_ms))
    assert client_rules.findings(rows) == ([_rolling_restart(0.77, 2, "ab")] if found else [])


def test_three_consumers_restarted_are_a_surer_rolling_restart_than_two_each_counted_once():
    """client_rules.rolling_restart: base 0.9 for three consumers restarted or more, 0.75 for two, each consumer a
    sighting (+0.02 past the first, client_rules._finding); the closes' span runs from the first to the last (b
    closes 2 s after a, within TOGETHER_MS, c 10 s after a)."""
    three = _restarts((10_000, 11_000), (12_000, 13_000), (20_000, 21_000))
    assert client_rules.findings(three) == [_rolling_restart(0.94, 3, "abc")]
    assert client_rules.findings(_restarts((10_000, 11_000), (20_000, 21_000))) == [_rolling_restart(0.77, 2, "ab")]


@pytest.mark.parametrize("text, shown", [(None, ""), ("", ""), ("null", "null")])
def test_a_group_instance_id_setting_of_null_or_empty_is_no_static_member(text, shown):
    """client_rules.rolling_restart: the consumer's group.instance.id defaults to null (ConsumerConfig) and
    AbstractConfig.logAll prints it "group.instance.id = null"; an empty one is no id either (ConsumerConfig's
    NonEmptyString validator), nor a setting line without text (java_client.config_block reads the three alike):
    the members are dynamic and the restart is found, the settings' lines shown with it; a line of another setting
    (group.protocol = classic) says nothing of an instance id."""
    rows = _restarts((10_000, 11_000), (20_000, 21_000),
                     config=(("group.instance.id", text), ("group.protocol", "classic")))
    assert client_rules.findings(rows) == [_rolling_restart(0.77, 2, "ab", (
        f"group.instance.id = {shown} in this log (app.log:1)", "group.protocol = classic in this log (app.log:2)"))]


@pytest.mark.parametrize("config, static", [((("group.instance.id", "pod-a"),), False), ((), True)])
def test_a_group_instance_id_set_or_in_a_lines_prefix_makes_the_restart_a_static_one_and_no_finding(config, static):
    """client_rules.rolling_restart: a group.instance.id setting with an id, or a line naming one (the "instanceId=I, "
    of KafkaConsumer's log prefix, 2.3+), is static membership (KIP-345): its restarts are no rolling restart of
    dynamic members, whichever of the two the log shows."""
    assert client_rules.findings(_restarts((10_000, 11_000), (20_000, 21_000), config=config, static=static)) == []


def test_a_close_naming_no_member_counts_as_its_process():
    """client_rules.rolling_restart: the consumers restarted are counted by the closing member's id, else by the
    close's process (client_rules._process: its file and client id), as franz-go's "leaving group" of a client
    without a member id reads (franz_go._leave: member None): closes of a.log and b.log are two consumers, two
    closes of one process one only, no rolling restart."""
    two = [r[:MEMBER] + (None,) + r[MEMBER + 1:] if r[KIND] == "LeaveGroup" else r
           for r in _restarts((10_000, 11_000), (20_000, 21_000))]
    assert client_rules.findings(two) == [_rolling_restart(0.77, 2, "ab")]
    one = [_client_row("a.log", 10_000, "LeaveGroup", None, 1, reason=_CLOSED),
           _client_row("a.log", 11_000, "JoinGroupResponse", "m-a2", 2),
           _client_row("a.log", 20_000, "LeaveGroup", None, 3, reason=_CLOSED),
           _client_row("a.log", 21_000, "JoinGroupResponse", "m-a3", 4)]
    assert client_rules.findings(one) == []


# --- client_rules: closes, the group's forming, slow joins, misconfiguration, KIP-848 errors, the coordinator ---

def _as(rows: list, kind: str, new_kind: str, **fields) -> list:
    """`rows` with each row of `kind` made a `new_kind` row with `fields`, at the same time, file, line and member."""
    return [_client_row(r[FILE], r[T], new_kind, r[MEMBER], r[LINE], **fields) if r[KIND] == kind else r for r in rows]


def test_a_leave_group_for_another_reason_than_a_close_is_no_restart():
    """client_rules._closes: only the LeaveGroup "due to the consumer is being closed" (AbstractCoordinator
    .maybeLeaveGroup 2.4+) is a close; consumers leaving "due to consumer poll timeout has expired." and rejoining
    with a new member id (the leave resets it) are two poll-timer expiries (slow_processing: 0.95 + 0.02), no
    rolling restart."""
    rows = _as(_restarts((10_000, 11_000), (20_000, 21_000)), "LeaveGroup", "LeaveGroup",
               reason="consumer poll timeout has expired.")
    assert client_rules.findings(rows) == [
        Finding("slow-processing", "g", 0.97, _POLL_SUMMARY.format(2), [Line("a.log", 2), Line("b.log", 2)],
                list(SETTINGS["slow-processing"]))]


@pytest.mark.parametrize("left_to, found", [("UNSUBSCRIBED", True), ("STALE", False)])
def test_under_the_consumer_protocol_a_close_is_the_transition_from_leaving_to_unsubscribed(left_to, found):
    """client_rules._closes: under group.protocol=consumer a consumer closing logs "Member M with epoch E transitioned
    from LEAVING to UNSUBSCRIBED." (AbstractMembershipManager.java 4.x); LEAVING -> STALE is the leave of an expired
    poll timer (MemberState.java: STALE's only previous state is LEAVING, "when the poll timer expires"), no close.
    The members' joins are their transitions to STABLE."""
    rows = _as(_as(_restarts((10_000, 11_000), (20_000, 21_000)), "JoinGroupResponse", "MemberTransition",
                   reason="STABLE", detail="RECONCILING"), "LeaveGroup", "MemberTransition", reason=left_to,
               detail="LEAVING")
    assert client_rules.findings(rows) == ([_rolling_restart(0.77, 2, "ab")] if found else [])


_SCALED_OUT = "{} consumer(s) joined the running group without replacing any: scaled out"


def test_a_classic_group_forms_at_its_first_join_response_however_far_apart_its_members_started():
    """client_rules._formed: a classic group has its members at its first JoinGroup response, the initial rebalance
    having gathered everyone who joined before it (GroupCoordinator's InitialDelayedJoin, 0.11+: each member joining
    within group.initial.rebalance.delay.ms extends the wait): c, started 3.9 s after b (more than FORMING_MS), was
    answered with a and b at 9 s; only d, starting after that answer, joined the running group."""
    rows = [_client_row("a.log", 0, "JoinGroup", None, 1), _client_row("b.log", 2_000, "JoinGroup", None, 1),
            _client_row("c.log", 5_900, "JoinGroup", None, 1),
            *[_client_row(f"{x}.log", 9_000, "JoinGroupResponse", f"m-{x}", 2, generation=1) for x in "abc"],
            _client_row("d.log", 9_500, "JoinGroup", None, 1),
            _client_row("d.log", 12_000, "JoinGroupResponse", "m-d", 2, generation=2)]
    assert client_rules.findings(rows) == [
        Finding("scaling", "g", 0.75, _SCALED_OUT.format(1), [Line("d.log", 2)], list(SETTINGS["scaling"]))]


@pytest.mark.parametrize("starts", [(0, FORMING_MS, 2 * FORMING_MS, 3 * FORMING_MS + 1), (0, FORMING_MS + 1)])
def test_a_consumer_group_forms_with_starts_each_at_most_forming_ms_after_the_one_before(starts):
    """client_rules._formed (Timeline.formed_at's rule): a consumer group's first burst of process starts runs from
    the first start while each comes at most FORMING_MS after the one before (exactly FORMING_MS still does, however
    far from the first); the first start more than FORMING_MS after the one before, here the last one, is a consumer
    added to the running group."""
    rows = [_client_row(f"{x}.log", t, "MemberTransition", f"m-{x}", 1, reason="STABLE", detail="JOINING")
            for x, t in zip("abcd", starts)]
    last = "abcd"[len(starts) - 1]
    assert client_rules.findings(rows) == [
        Finding("scaling", "g", 0.75, _SCALED_OUT.format(1), [Line(f"{last}.log", 1)], list(SETTINGS["scaling"]))]


def _first_joins(*waits_ms: int) -> list:
    """Consumers of c0.log, c1.log, ...: each "(Re-)joining group" (line 1) its wait before the answer all of them
    got at 100 s, "Successfully joined group with generation Generation{generationId=1, ...}" (line 2)."""
    rows = []
    for i, wait in enumerate(waits_ms):
        rows += [_client_row(f"c{i}.log", 100_000 - wait, "JoinGroup", None, 1),
                 _client_row(f"c{i}.log", 100_000, "JoinGroupResponse", f"m-{i}", 2, generation=1)]
    return sorted(rows, key=lambda r: (r[T], r[FILE], r[LINE]))


@pytest.mark.parametrize("slow_ms, fast, found", [(SLOW_JOIN_MS, SLOW_JOIN_ARRIVALS - 7, True),
                                                  (SLOW_JOIN_MS - 1, SLOW_JOIN_ARRIVALS - 7, False),
                                                  (SLOW_JOIN_MS, SLOW_JOIN_ARRIVALS - 8, False)])
def test_a_slow_join_is_a_first_answer_slow_join_ms_or_more_late_in_a_generation_slow_join_arrivals_joined(
        slow_ms, fast, found):
    """client_rules.slow_join (rules.slow_join from the clients' side: KIP-134's delay extended by each join): 7
    consumers waiting SLOW_JOIN_MS (60 s) or more for their first JoinGroup answer, in a generation that
    SLOW_JOIN_ARRIVALS (10) consumers or more joined (7 and `fast` ones answered after 10 s), are a large group
    joining slowly: 0.85, +0.02 per further slow consumer; 1 ms less, or one consumer less, is none."""
    rows = _first_joins(*[slow_ms] * 7, *[10_000] * fast)
    assert client_rules.findings(rows) == ([
        Finding("too-many-members-or-slow-join", "g", 0.97,
                "7 consumer(s) waited up to 60 s for their first JoinGroup answer, in a generation 10 consumers "
                "joined: a large group joining slowly", [Line(f"c{i}.log", 2) for i in range(7)],
                list(SETTINGS["too-many-members-or-slow-join"]))] if found else [])


def _settings(*settings: tuple, version: str | None = None) -> list:
    """A Java consumer's "ConsumerConfig values:" block as the reader keeps it (java_client.config_block): one
    ClientConfig row per (setting, text) pair, a.log lines 1, 2, ... (AbstractConfig.logAll prints them sorted by
    name), the text's number (if it is one) as value; then AppInfoParser's "Kafka version: V" if `version`."""
    rows = [_client_row("a.log", 0, "ClientConfig", None, n, reason=name, detail=text,
                        value=float(text) if text.isdigit() else None) for n, (name, text) in enumerate(settings, 1)]
    return rows + ([_client_row("a.log", 0, "KafkaVersion", None, len(rows) + 1, detail=version)] if version else [])


def _misconfiguration(score: float, summary: str, evidence: list, shown: tuple = ()) -> Finding:
    """A misconfiguration finding with the settings lines `shown`."""
    return Finding("misconfiguration", "g", score, summary, evidence, [*shown, *SETTINGS["misconfiguration"]])


@pytest.mark.parametrize("beat, found", [("15000", False), ("15001", True)])
def test_a_heartbeat_interval_over_a_third_of_the_session_timeout_is_a_misconfiguration(beat, found):
    """client_rules.misconfiguration: heartbeat.interval.ms "must be set lower than session.timeout.ms, but typically
    should be set no higher than 1/3 of that value" (CommonClientConfigs.HEARTBEAT_INTERVAL_MS_DOC): 15000 ms of a
    45000 ms session is a third, 15001 more (0.7). logAll prints heartbeat.interval.ms before session.timeout.ms:
    the session line after it is read all the same."""
    rows = _settings(("heartbeat.interval.ms", beat), ("session.timeout.ms", "45000"))
    assert client_rules.findings(rows) == ([_misconfiguration(
        0.7, "heartbeat.interval.ms 15001 is more than a third of session.timeout.ms 45000: a lost heartbeat or two "
             "expires the session", [Line("a.log", 1), Line("a.log", 2)],
        ("session.timeout.ms = 45000 in this log (a.log:2)", "heartbeat.interval.ms = 15001 in this log (a.log:1)"))]
        if found else [])


@pytest.mark.parametrize("version, session, found", [
    (None, "6000", None), (None, "5999", (6000, 1800000, "")), (None, "1800000", None),
    (None, "1800001", (6000, 1800000, "")),  # the line's number whole, not 1.8e+06
    ("2.2.1", "300000", None), ("2.2.1", "300001", (6000, 300000, " at 2.2.1")),
    # Confluent's builds: CP 5.2 is Apache 2.2, CP 7.2 is 3.2 (whose maximum is 1800000, KAFKA-7862 in 2.3)
    ("5.2.1-ccs", "300001", (6000, 300000, " at 5.2.1-ccs")), ("7.2.1-ccs", "300001", None),
    ("7.2.1-ccs", "1800001", (6000, 1800000, " at 7.2.1-ccs")),
    ("4.1.0-ccs", "1800001", (6000, 1800000, "")),  # CP 4.1 is older than any line mapped: 4.0's defaults
    ("0.8.2.1", "1", None)])  # before 0.9 the broker had no such range
def test_a_session_timeout_outside_the_brokers_default_range_is_refused_with_invalid_session_timeout(
        version, session, found):
    """client_rules.misconfiguration: the coordinator refuses a session.timeout.ms below group.min.session.timeout.ms
    or above group.max.session.timeout.ms, both accepted (GroupCoordinator.handleJoinGroup: "sessionTimeoutMs <
    groupMinSessionTimeoutMs || sessionTimeoutMs > groupMaxSessionTimeoutMs"), with INVALID_SESSION_TIMEOUT (0.75);
    the defaults are those of the client's Apache Kafka release when its log names it (6000 and 300000 before 2.3,
    KAFKA-7862; a Confluent build's "-ccs" release read as its Apache line, bugs.apache_release), else of 4.0 (6000
    and 1800000)."""
    if found:
        low, high, at = found
        found = [_misconfiguration(
            0.75, f"session.timeout.ms {session} is outside the broker's default range [{low}, {high}] "
                  f"(group.min/max.session.timeout.ms{at}): INVALID_SESSION_TIMEOUT", [Line("a.log", 1)],
            (f"session.timeout.ms = {session} in this log (a.log:1)",))]
    assert client_rules.findings(_settings(("session.timeout.ms", session), version=version)) == (found or [])


def test_a_session_timeout_line_without_a_number_is_not_checked():
    """client_rules.misconfiguration: only settings the reader read a number from (a ClientConfig row's value) are
    compared: a session.timeout.ms line without one says nothing of the heartbeat or the broker's range."""
    assert client_rules.findings(_settings(("heartbeat.interval.ms", "3000"), ("session.timeout.ms", ""))) == []


@pytest.mark.parametrize("error, why", [
    ("INVALID_SESSION_TIMEOUT", "the coordinator refused the client's session.timeout.ms"),
    ("FENCED_INSTANCE_ID", "another process uses the same group.instance.id")])
def test_a_join_refused_for_its_session_timeout_or_a_fenced_instance_id_is_a_misconfiguration(error, why):
    """client_rules.misconfiguration: JoinGroup answered INVALID_SESSION_TIMEOUT (Errors.java 26: the session is
    outside the broker's range) or FENCED_INSTANCE_ID (82: another process joined with the same group.instance.id,
    KIP-345), whatever line says it ("JoinGroup failed: ...", AbstractCoordinator.java): 0.9, +0.02 per further one."""
    rows = [_client_row(f"{x}.log", 0, "JoinGroupResponse", None, 1, error=error) for x in "ab"]
    assert client_rules.findings(rows) == [_misconfiguration(0.92, f"{error}: {why}", [Line("a.log", 1),
                                                                                     Line("b.log", 1)])]


def test_a_consumer_protocol_heartbeat_answered_group_id_not_found_is_a_misconfiguration():
    """client_rules.misconfiguration: a ConsumerGroupHeartbeat answered GROUP_ID_NOT_FOUND means the group id is a
    classic group the coordinator would not upgrade (GroupMetadataManager.validateOnlineUpgrade, 4.0: "Cannot upgrade
    classic group G to consumer group because online upgrade is disabled" / "... does not use the consumer embedded
    protocol") or a group of another type ("Group G is not a consumer group."): 0.85, the group.protocol line
    shown."""
    rows = [*_settings(("group.protocol", "consumer")),
            _client_row("a.log", 1_000, "ConsumerGroupHeartbeat", None, 2, error="GROUP_ID_NOT_FOUND")]
    assert client_rules.findings(rows) == [_misconfiguration(
        0.85, "GROUP_ID_NOT_FOUND on a consumer-protocol heartbeat: the group id is a classic group the coordinator "
              "would not convert (group.consumer.migration.policy) or a group of another type", [Line("a.log", 2)],
        ("group.protocol = consumer in this log (a.log:1)",))]


@pytest.mark.parametrize("error, base, why", [
    ("FENCED_MEMBER_EPOCH", 0.75, "the member's epoch was fenced by the coordinator (the consumer protocol's "
                                  "reconciliation)"),
    ("UNRELEASED_INSTANCE_ID", 0.8, "a static member's instance id was still owned by its previous member")])
def test_a_kip_848_heartbeat_error_is_named_counted_and_explained(error, base, why):
    """client_rules.kip848: a ConsumerGroupHeartbeat answered FENCED_MEMBER_EPOCH ("... failed for member M because
    epoch E is fenced.") or UNRELEASED_INSTANCE_ID ("... failed due to unreleased instance id I"), as
    ConsumerHeartbeatRequestManager.java (4.x) logs them: Errors.java 110 and 111, answers of the consumer
    protocol's heartbeat only (KIP-848), so a classic heartbeat's row with the error is not read. 0.75 and 0.8,
    +0.02 per further one, the count in the summary."""
    rows = [_client_row("a.log", t, "ConsumerGroupHeartbeat", "m-a", n, error=error) for n, t in ((1, 0), (2, 5_000))]
    assert client_rules.findings(rows) == [
        Finding("kip848-specific", "g", round(base + 0.02, 3), f"{error} (2 time(s)): {why}",
                [Line("a.log", 1), Line("a.log", 2)], list(SETTINGS["kip848-specific"]))]
    assert client_rules.findings(_as(rows, "ConsumerGroupHeartbeat", "HeartbeatResponse", error=error)) == []


def test_a_sync_group_answered_coordinator_not_available_is_the_coordinator_failing_to_store_the_group():
    """client_rules.coordinator_failing: the coordinator answers a SyncGroup whose __consumer_offsets append failed
    (NOT_ENOUGH_REPLICAS) with COORDINATOR_NOT_AVAILABLE (GroupMetadataManager.scala storeGroup, 1.0 - 3.9): 0.7,
    the requests counted and the first one's error named."""
    rows = [_client_row("a.log", 0, "SyncGroupResponse", "m-a", 1, error="COORDINATOR_NOT_AVAILABLE")]
    assert client_rules.findings(rows) == [
        Finding("broker-bug-or-coordinator", "g", 0.7,
                "the coordinator answered 1 SyncGroup, commit or FindCoordinator request(s) with "
                "COORDINATOR_NOT_AVAILABLE: it could not write to (or find a leader for) the group's "
                "__consumer_offsets partition", [Line("a.log", 1)], list(SETTINGS["broker-bug-or-coordinator"]))]
