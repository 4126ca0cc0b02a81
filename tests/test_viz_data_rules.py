"""What the charts and the chapters' checks are fed, one rule per test (issue 29): units, the
explorer's fixes of a combination Kafka refuses, the fault it builds, an exercise's verdict.

Expectations are worked out by hand from each function's docstring, never read off its output.
"""

from __future__ import annotations

import dataclasses
import functools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from kafkasim import GroupCoordinator, LogNormal, Scenario, Simulation, faults, simulate
from kafkasim.broker.fetch_sizing import GiB, MiB, sizing_for_message, wire_size
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import to_frame
from kafkasim.core.java import INT_MAX
from kafkasim.viz.assignment import _counts_frame
from kafkasim.viz.claims import over_seeds, spread
from kafkasim.viz.compare import compare, headline, scenario_labels
from kafkasim.viz.consumption import lag_chart
from kafkasim.viz.exercises import RIGHT, WRONG, check
from kafkasim.viz.fetch_sizing import boundary_frame, calculator_frames, human, size_frame, verdict
from kafkasim.viz.group_size import _storm_frame
from kafkasim.broker.network import ClientGroup, NetworkScenario, simulate_network
from kafkasim.viz.network import (_as_runs, _quote, bound_frame, check_network_names, depleted_frame, depleted_totals,
                                  fairness_frame, fairness_totals, key_frame, latency_frame, memory_frame,
                                  merge_spells, network_scenario_with, percentile_frame, throughput_frame)
from kafkasim.client.pause_resume import PauseScenario
from kafkasim.viz.pause_resume import (_clip, _in_window, _members, check_settings, key_numbers, owned_intervals,
                                      pause_current, paused_intervals, rebalance_intervals, scenario_marks,
                                      timeline_frames, unexpected_points)
from kafkasim.viz.pause_resume import scenario_with as pause_scenario_with
from kafkasim.viz.protocol import COLUMNS, _coordinator_note, _error, layout, messages
from kafkasim.viz.tables import KIND, MEMBER, rows_between
from kafkasim.viz.settings import (_faults, current, fit, protocol_of, retarget_faults, scenario_with, unavailable,
                                   version_default)
from kafkasim.viz.share import ShareTrace, share_messages
from kafkasim.viz.timeline import state_counts
from kafkasim.viz.zookeeper_storm import (herd_frame, rebalancing_over_time, storm_chart, storm_frame,
                                         storm_grid_frames, zookeeper_load)
from kafkasim.zookeeper.consumer_connector import seed_incident, simulate_zookeeper
from vega_fields import encoded_fields, missing_fields, views  # (tests/ is on sys.path)

BASE = Scenario(duration_ms=90_000)  # Kafka 3.7 defaults: session 45 s, heartbeat 3 s, processing 2 ms


# -- exercises: the verdict a reader sees ---------------------------------------------------------
def test_a_prediction_exactly_at_the_tolerance_is_right_on_either_side(capsys):
    # "0.1 accepts within 10 % of it, either side": the edge itself is within.
    assert check(150, 100, tolerance=0.5) and check(50, 100, tolerance=0.5)
    assert not check(151, 100, tolerance=0.5) and not check(49, 100, tolerance=0.5)


def test_a_number_predicted_for_a_word_is_wrong_not_an_error(capsys):
    # check never raises on a wrong answer: the reader's notebook keeps running.
    assert not check(3, "range")
    assert not check("range", 3)
    assert capsys.readouterr().out.splitlines() == [
        f"{WRONG} You predicted 3; the simulation says range.",
        f"{WRONG} You predicted range; the simulation says 3."]


def test_the_verdict_says_why_after_the_measured_value(capsys):
    assert check(4, 4, why="one per removal and one per rejoin", unit="rebalances")
    assert not check(5, 4, why="one per removal and one per rejoin", unit="rebalances")
    assert check(4, 4)
    assert capsys.readouterr().out.splitlines() == [
        f"{RIGHT} The simulation says 4 rebalances. one per removal and one per rejoin",
        f"{WRONG} You predicted 5 rebalances; the simulation says 4 rebalances. one per removal and one per rejoin",
        f"{RIGHT} The simulation says 4."]


def test_a_yes_or_no_prediction_is_never_within_a_tolerance_of_a_number(capsys):
    # A bool is compared as a bool: True is not "within 10 %" of a measured 1.05.
    assert not check(True, 1.05, tolerance=0.1)
    assert not check(1.05, True, tolerance=0.1)


def test_a_yes_or_no_measured_by_numpy_matches_the_readers_true(capsys):
    # A figure read off a pandas frame is numpy's bool, not Python's: `is` alone would call it wrong.
    assert check(True, np.bool_(True)) and check(np.bool_(False), False)
    assert not check(True, np.bool_(False))


def test_a_set_answer_is_right_in_any_order_a_list_only_in_its_order(capsys):
    # "sets as sets": a measured set takes the members in any order (a set of small ints iterates in
    # ascending order, so [2, 1] is not its list); a list or tuple keeps its order.
    assert check([2, 1], {1, 2}) and check((1, 2), [1, 2])
    assert not check([2, 1], [1, 2])


def test_a_word_or_number_predicted_for_a_list_is_wrong_not_spelled_out_or_an_error(capsys):
    assert not check("ab", ["a", "b"])
    assert not check(3, [1, 2, 3])
    assert not check(["a", "b"], "ab")


# -- settings -------------------------------------------------------------------------------------
@pytest.mark.parametrize("version, protocol", [("2.3", "eager"), ("2.4", "cooperative"), ("3.7", "cooperative")])
def test_cooperative_sticky_alone_is_cooperative_from_kafka_2_4(version, protocol):
    # KIP-429: the consumer's incremental cooperative rebalancing shipped in 2.4.0.
    assert protocol_of(["cooperative-sticky"], version) == protocol


# -- claims ---------------------------------------------------------------------------------------
def test_a_spread_printed_plainly_uses_the_general_format():
    assert str(spread([3, 1, 2])) == "2 (median; 1 to 3 over 3 seeds)"
    assert str(spread([1e-6, 1e-6])) == "1e-06 (all 2 seeds)"  # "g" writes a small figure in lower-case e


def test_an_empty_spread_names_the_function_refused():
    with pytest.raises(ValueError, match=r"^spread\(\) needs at least one value$"):
        spread([])
    with pytest.raises(ValueError, match=r"^over_seeds\(\) needs at least one seed$"):
        over_seeds(lambda seed: seed, [])


def test_a_spread_in_a_table_cell_uses_the_general_format_as_printed_plainly():
    assert spread([1e-6, 1e-6]).compact() == "1e-06"
    assert spread([1e6, 3e6, 2e6]).compact() == "2e+06 (1e+06 to 3e+06)"


# -- units a chart speaks -------------------------------------------------------------------------
def test_a_storm_frame_is_in_seconds_and_decimal_megabytes():
    samples = pd.DataFrame({"time_ms": [0, 2_500], "members": [1, 2], "bytes": [0, 3_000_000]})
    frame = _storm_frame(samples)
    assert "time_ms" not in frame.columns
    assert list(frame["time_s"]) == [0.0, 2.5] and list(frame["mb"]) == [0.0, 3.0]
    assert list(frame["members"]) == [1, 2]


def test_fairness_frame_gives_each_clients_memory_wait_in_seconds():
    clients = pd.DataFrame({"client": ["a", "b"], "processor": [0, 1], "sent": [4, 4], "completed": [4, 0],
                            "completion_ratio": [1.0, 0.0], "memory_wait_ms": [0.0, 1_234.0]})
    frame = fairness_frame(SimpleNamespace(clients=clients), "x")
    assert list(frame["wait_s"]) == [0.0, 1.234]
    assert list(frame["thread"]) == ["network-thread-0", "network-thread-1"]


# -- the explorer's fixes of a combination Kafka refuses --------------------------------------------
def test_both_processing_times_set_the_p99_rises_to_the_median():
    # A median cannot exceed the p99: the p99 follows, unless the p99 alone was moved.
    out, notes = fit(BASE, {"processing.median.ms": 50, "processing.p99.ms": 10})
    assert (out["processing.median.ms"], out["processing.p99.ms"]) == (50, 50)
    assert notes == ["The processing p99 rises to the median, 50 ms: every record takes that long."]
    out, _ = fit(BASE, {"processing.p99.ms": 1})
    assert (out["processing.median.ms"], out["processing.p99.ms"]) == (1, 1)


def test_a_heartbeat_not_below_the_session_timeout_goes_to_a_third_of_it():
    # The classic consumer refuses heartbeat.interval.ms >= session.timeout.ms (ConsumerCoordinator).
    out, notes = fit(BASE, {"session.timeout.ms": 3_000})
    assert out["heartbeat.interval.ms"] == 1_000 and len(notes) == 1
    out, _ = fit(BASE, {"heartbeat.interval.ms": 45_000}, last="heartbeat.interval.ms")
    assert out["session.timeout.ms"] == 135_000
    assert fit(BASE, {"session.timeout.ms": 6_000}) == ({"session.timeout.ms": 6_000}, [])


# -- fit: each rule at its Kafka version boundary, exact values and sentences (issue 29) -------------
BASE_4_0_CONSUMER = Scenario(duration_ms=90_000, kafka_version="4.0", consumer={"group.protocol": "consumer"})
HEARTBEAT_REFUSED = "the consumer refuses a heartbeat interval that is not below the session timeout."


def test_the_consumer_protocol_before_kafka_4_0_falls_back_to_classic():
    # KIP-848's consumer protocol is generally available from Apache Kafka 4.0.
    assert fit(BASE, {"kafka.version": "3.9", "group.protocol": "consumer"}) == (
        {"kafka.version": "3.9", "group.protocol": "classic"},
        ["Kafka 3.9 has no consumer protocol (KIP-848 arrived in 4.0): the classic protocol here."])
    assert fit(BASE, {"kafka.version": "4.0", "group.protocol": "consumer"}) == (
        {"kafka.version": "4.0", "group.protocol": "consumer"}, [])


def test_a_base_on_the_consumer_protocol_moved_before_4_0_falls_back_and_is_a_valid_scenario():
    # The base's protocol counts when the reader moved only the version; group.protocol itself (3.7+)
    # is not then also "left out": classic is left unset, which every version runs.
    out, notes = fit(BASE_4_0_CONSUMER, {"kafka.version": "3.9"})
    assert (out, notes) == ({"kafka.version": "3.9", "group.protocol": "classic"},
                            ["Kafka 3.9 has no consumer protocol (KIP-848 arrived in 4.0): the classic protocol here."])
    out, notes = fit(BASE_4_0_CONSUMER, {"kafka.version": "3.6"})
    assert (out, notes) == ({"kafka.version": "3.6", "group.protocol": "classic"},
                            ["Kafka 3.6 has no consumer protocol (KIP-848 arrived in 4.0): the classic protocol here."])
    assert scenario_with(BASE_4_0_CONSUMER, out).consumer == {}


def test_the_heartbeat_rule_holds_under_the_classic_protocol_only():
    # Back to classic from a consumer-protocol base: the heartbeat must be below the session timeout again
    # (4.0's default heartbeat 3 s against 3 s); under the consumer protocol the broker's configs rule.
    assert fit(BASE_4_0_CONSUMER, {"group.protocol": "classic", "session.timeout.ms": 3_000}) == (
        {"group.protocol": "classic", "session.timeout.ms": 3_000, "heartbeat.interval.ms": 1_000},
        [f"heartbeat.interval.ms goes to 1,000 ms, a third of session.timeout.ms: {HEARTBEAT_REFUSED}"])
    assert fit(BASE_4_0_CONSUMER, {"session.timeout.ms": 3_000}) == ({"session.timeout.ms": 3_000}, [])


@pytest.mark.parametrize("name, before, release", [
    ("max.poll.interval.ms", "0.10.0", "0.10.1"),  # KIP-62
    ("max.poll.records", "0.9", "0.10.0"),  # KIP-41
])
def test_a_config_before_its_kafka_release_is_left_out_with_the_release_named(name, before, release):
    value = 10 if name == "max.poll.records" else 60_000
    assert fit(BASE, {"kafka.version": before, name: value}) == (
        {"kafka.version": before}, [f"{name} arrived in Kafka {release}: not set in {before}."])
    assert fit(BASE, {"kafka.version": release, name: value}) == ({"kafka.version": release, name: value}, [])
    # set on the base scenario only, it is left out (and said) too; set by nobody, nothing is said
    base = Scenario(duration_ms=90_000, consumer={name: value})
    assert fit(base, {"kafka.version": before}) == (
        {"kafka.version": before}, [f"{name} arrived in Kafka {release}: not set in {before}."])
    assert fit(BASE, {"kafka.version": before}) == ({"kafka.version": before}, [])


@pytest.mark.parametrize("strategy, before, release", [
    ("cooperative-sticky", "2.3", "2.4"),  # KIP-429, KAFKA-8179
    ("sticky", "0.10.2", "0.11"),  # KIP-54, KAFKA-2273
])
def test_an_assignor_before_its_kafka_release_becomes_range(strategy, before, release):
    # range is every version's first default assignor (ConsumerConfig).
    key = "partition.assignment.strategy"
    assert fit(BASE, {"kafka.version": before, key: strategy}) == (
        {"kafka.version": before, key: "range"},
        [f"{strategy} arrived in Kafka {release}: {before} uses range (eager) here."])
    assert fit(BASE, {"kafka.version": release, key: strategy}) == ({"kafka.version": release, key: strategy}, [])


def test_each_late_assignor_is_named_with_its_own_release():
    base = Scenario(duration_ms=90_000, consumer={"partition.assignment.strategy": ["sticky", "cooperative-sticky"]})
    assert fit(base, {"kafka.version": "0.10.2"}) == (
        {"kafka.version": "0.10.2", "partition.assignment.strategy": "range"},
        ["sticky arrived in Kafka 0.11, cooperative-sticky arrived in Kafka 2.4: 0.10.2 uses range (eager) here."])


def test_the_cooperative_protocol_before_2_4_is_dropped_for_eager_range():
    # "cooperative" configures cooperative-sticky (KIP-429, 2.4): before 2.4 the knob goes, range stays.
    assert fit(BASE, {"kafka.version": "2.3", "rebalance.protocol": "cooperative"}) == (
        {"kafka.version": "2.3", "partition.assignment.strategy": "range"},
        ["cooperative-sticky arrived in Kafka 2.4: 2.3 uses range (eager) here."])
    assert fit(BASE, {"kafka.version": "2.4", "rebalance.protocol": "cooperative"}) == (
        {"kafka.version": "2.4", "rebalance.protocol": "cooperative"}, [])
    assert fit(BASE, {"kafka.version": "2.3"}) == ({"kafka.version": "2.3"}, [])  # range already: nothing said


def test_static_membership_before_2_3_becomes_dynamic():
    # KIP-345: group.instance.id arrived in Kafka 2.3.
    note = "Static membership (group.instance.id, KIP-345) arrived in Kafka 2.3: dynamic members in 2.2."
    assert fit(BASE, {"kafka.version": "2.2", "static.membership": True}) == (
        {"kafka.version": "2.2", "static.membership": False}, [note])
    assert fit(Scenario(duration_ms=90_000, static_membership=True), {"kafka.version": "2.2"}) == (
        {"kafka.version": "2.2", "static.membership": False}, [note])
    assert fit(BASE, {"kafka.version": "2.3", "static.membership": True}) == (
        {"kafka.version": "2.3", "static.membership": True}, [])
    assert fit(BASE, {"kafka.version": "2.2"}) == ({"kafka.version": "2.2"}, [])


def test_the_median_follows_the_p99_down_when_the_p99_was_moved_last():
    out, notes = fit(BASE, {"processing.median.ms": 50, "processing.p99.ms": 10}, last="processing.p99.ms")
    assert (out, notes) == ({"processing.median.ms": 10, "processing.p99.ms": 10},
                            ["The processing median follows the p99 down to 10 ms (a median cannot exceed the p99)."])
    assert fit(BASE, {"processing.p99.ms": 1})[1] == [
        "The processing median follows the p99 down to 1 ms (a median cannot exceed the p99)."]


def test_the_session_timeout_goes_to_three_heartbeats_when_the_heartbeat_was_moved_last():
    assert fit(BASE, {"heartbeat.interval.ms": 45_000}, last="heartbeat.interval.ms") == (
        {"heartbeat.interval.ms": 45_000, "session.timeout.ms": 135_000},
        [f"session.timeout.ms goes to 135,000 ms, three heartbeat intervals: {HEARTBEAT_REFUSED}"])


def test_the_heartbeat_goes_to_a_whole_third_of_the_session_timeout_and_1_ms_at_least():
    # heartbeat.interval.ms is an int config: a third rounds down; never 0 ms (the note says what is set).
    values = {"session.timeout.ms": 10_000, "heartbeat.interval.ms": 10_000}
    out, notes = fit(BASE, values, last="session.timeout.ms")
    assert out["heartbeat.interval.ms"] == 3_333 and type(out["heartbeat.interval.ms"]) is int
    assert notes == [f"heartbeat.interval.ms goes to 3,333 ms, a third of session.timeout.ms: {HEARTBEAT_REFUSED}"]
    assert fit(BASE, {"session.timeout.ms": 2}) == (
        {"session.timeout.ms": 2, "heartbeat.interval.ms": 1},
        [f"heartbeat.interval.ms goes to 1 ms, a third of session.timeout.ms: {HEARTBEAT_REFUSED}"])
    assert fit(BASE, {"session.timeout.ms": 5})[0]["heartbeat.interval.ms"] == 1


# -- which knobs a Kafka version has, and what they show there ---------------------------------------
@pytest.mark.parametrize("name, version, reason", [
    ("max.poll.interval.ms", "0.10.0", "0.10.1+"), ("max.poll.interval.ms", "0.10.1", None),  # KIP-62
    ("max.poll.records", "0.9", "0.10.0+"), ("max.poll.records", "0.10.0", None),  # KIP-41
    ("rebalance.protocol", "2.3", "2.4+"), ("rebalance.protocol", "2.4", None),  # KIP-429
    ("static.membership", "2.2", "2.3+"), ("static.membership", "2.3", None),  # KIP-345
    ("group.protocol", "3.9", "4.0+"), ("group.protocol", "4.0", None),  # KIP-848 GA
    ("group.share.record.lock.duration.ms", "3.9", "4.0+"), ("group.share.delivery.count.limit", "4.0", None),
    ("members", "0.9", None), ("session.timeout.ms", "0.9", None), ("partition.assignment.strategy", "0.9", None),
])
def test_a_knob_is_unavailable_before_its_kafka_release(name, version, reason):
    assert unavailable(name, version) == reason


@pytest.mark.parametrize("name, version, shown", [
    ("session.timeout.ms", "0.10.0", 30_000), ("session.timeout.ms", "0.10.1", 10_000),  # KIP-62
    ("session.timeout.ms", "2.8", 10_000), ("session.timeout.ms", "3.0", 45_000),  # KIP-735
    ("max.poll.records", "0.10.0", INT_MAX), ("max.poll.records", "0.10.1", 500),  # KIP-41, KIP-62
    ("max.poll.interval.ms", "0.10.0", None), ("max.poll.interval.ms", "0.10.1", 300_000),
    # 3.0+: [range, cooperative-sticky] (ConsumerConfigTest.testDefaultPartitionAssignor), the first one shown
    ("partition.assignment.strategy", "2.8", "range"), ("partition.assignment.strategy", "3.0", "range"),
    ("rebalance.protocol", "3.0", "eager"),  # [range, cooperative-sticky]: range is eager only
    ("members", "3.7", None),
])
def test_a_knob_nobody_set_shows_the_versions_default(name, version, shown):
    assert version_default(name, BASE, version) == shown


def test_a_knob_the_base_set_shows_the_base_value_in_every_version():
    base = Scenario(duration_ms=90_000, consumer={"session.timeout.ms": 20_000,
                                                  "partition.assignment.strategy": "cooperative-sticky"})
    assert version_default("session.timeout.ms", base, "0.10.0") == 20_000
    assert version_default("partition.assignment.strategy", base, "3.0") == "cooperative-sticky"
    assert version_default("rebalance.protocol", base, "2.4") == "cooperative"  # KIP-429: 2.4+
    assert version_default("rebalance.protocol", base, "2.3") == "eager"


def test_a_group_protocol_outside_its_values_names_them_and_classic_keeps_the_classic_configs():
    with pytest.raises(ConfigError, match=r"^group.protocol must be one of classic, consumer, got 'kip848'$"):
        scenario_with(BASE, {"group.protocol": "kip848"})
    base = Scenario(duration_ms=90_000, kafka_version="4.0", consumer={"session.timeout.ms": 20_000})
    assert scenario_with(base, {"group.protocol": "classic"}).consumer == {"session.timeout.ms": 20_000}
    assert scenario_with(base, {"group.protocol": "consumer"}).consumer == {"group.protocol": "consumer"}


@pytest.mark.parametrize("fault, shown", [
    (faults.Restart("c-1", 1_000, delay_ms=7_000), 7_000), (faults.Pause("c-1", 1_000, duration_ms=4_000), 4_000),
    (faults.Crash("c-1", 1_000), 20_000), (None, 20_000),
])
def test_the_fault_duration_knob_shows_the_pause_or_restart_time_else_20_s(fault, shown):
    scenario = Scenario(duration_ms=90_000, faults=(fault,) if fault else ())
    assert current("fault.duration.ms", scenario) == shown


# -- faults on a member the group does not have --------------------------------------------------------
@pytest.mark.parametrize("members, plural", [(1, "1 member"), (2, "2 members")])
def test_a_fault_on_a_missing_member_hits_the_last_member_and_says_how_many_there_are(members, plural):
    last = f"c-{members}"
    moved, notes = retarget_faults(Scenario(duration_ms=90_000, members=members, faults=(faults.Crash("c-3", 10_000),)))
    assert moved.faults == (faults.Crash(last, 10_000),)
    assert notes == [f"The Crash of c-3 hits {last} here: the group has {plural} at 10 s."]
    moved, notes = retarget_faults(Scenario(duration_ms=90_000, members=members,
                                            faults=(faults.ScaleIn(at_ms=12_500, members=("c-3",)),)))
    assert moved.faults == (faults.ScaleIn(at_ms=12_500, members=(last,)),)
    assert notes == [f"ScaleIn c-3 becomes ScaleIn {last}: the group has {plural} at 12.5 s."]


def test_a_scale_outs_consumers_count_from_its_own_millisecond():
    # simulate() schedules a ScaleOut's consumers before the other faults: c-3 starts, then crashes, at 10 s.
    scenario = Scenario(duration_ms=90_000, members=2,
                        faults=(faults.ScaleOut(at_ms=10_000), faults.Crash("c-3", 10_000)))
    assert retarget_faults(scenario) == (scenario, [])
    events = simulate(dataclasses.replace(scenario, duration_ms=11_000)).events
    assert list(zip(*(events[events["member"] == "c-3"][c][:3] for c in ("time", "kind")))) == [
        (10_000, "Started"), (10_000, "StateChanged"), (10_000, "Crashed")]


# -- the explorer's fault acts on whom and when it names --------------------------------------------
@pytest.mark.parametrize("kind, expected", [
    ("ScaleOut", faults.ScaleOut(at_ms=12_000)),
    ("ScaleIn", faults.ScaleIn(at_ms=12_000, members=("c-2",))),
    ("Crash", faults.Crash("c-2", 12_000)),
    ("Restart", faults.Restart("c-2", 12_000, delay_ms=7_000)),
    ("Pause", faults.Pause("c-2", 12_000, duration_ms=7_000)),
])
def test_the_explorers_fault_strikes_the_named_member_at_the_named_time(kind, expected):
    values = {"fault": kind, "fault.at.ms": 12_000, "fault.duration.ms": 7_000, "fault.member": "c-2"}
    assert _faults(BASE, values) == (expected,)


# -- share groups' sequence diagram -----------------------------------------------------------------
def test_share_rows_are_never_heartbeats_and_a_note_on_the_leaders_lane_is_a_leader_note():
    # An ACCEPT of 0-4 acquired at 0 (SharePartition): request, NONE reply, and a leader note with
    # the states it left and SPSO 5; a note put on the leader's lane is the leader's.
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"orders": 1})
    trace = ShareTrace(coord.share_partition("g", "orders", 0), 0, 9)
    trace.acquire("c-1", [(0, 4)])
    trace.advance_to(1_000)
    trace.acknowledge("c-1", [(0, 4, "ACCEPT")])
    frame = share_messages(trace, notes=[(1_000, "leader", "log segment rolled"), (1_000, "c-1", "GC pause")])
    assert list(zip(frame["member"], frame["kind"], frame["label"])) == [
        ("c-1", "request", "ShareFetch"), ("c-1", "reply", "ShareFetch: 0-4 (delivery 1)"),
        ("c-1", "request", "ShareAcknowledge ACCEPT 0-4"), ("c-1", "reply", "ShareAcknowledge: NONE (0)"),
        ("leader", "leader note", "0-4 ACKNOWLEDGED (delivery 1); SPSO 5"),
        ("leader", "leader note", "log segment rolled"), ("c-1", "consumer note", "GC pause")]
    assert not frame["ok_heartbeat"].any()  # heartbeats="errors" thins heartbeats only: no share row goes


def release_story() -> ShareTrace:
    """c-1 takes 0-4 and RELEASEs them in the same millisecond; c-2 takes them again at 1 s (delivery 2)
    and ACCEPTs 0-2 at 2 s (SPSO 3); the locks on 3-4, taken at 1 s, expire at 1 s + 30 s (Kafka 4.2's
    group.share.record.lock.duration.ms)."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"orders": 1})
    trace = ShareTrace(coord.share_partition("g", "orders", 0), 0, 4)
    trace.acquire("c-1", [(0, 4)])
    trace.acknowledge("c-1", [(0, 4, "RELEASE")])
    trace.advance_to(1_000)
    trace.acquire("c-2", [(0, 4)])
    trace.advance_to(2_000)
    trace.acknowledge("c-2", [(0, 2, "ACCEPT")])
    trace.advance_to(31_000)
    return trace


def test_a_record_state_held_for_no_time_is_no_bar_and_the_last_one_lasts_to_the_end_asked():
    """intervals: whole ms; a state left in the millisecond it was entered (c-1's acquisition, released at
    once) is no interval; the state each record is in lasts until `end_ms` (here 40 s, past the trace's
    clock at 31 s); records in the same state over the same time are one row, by first offset then start."""
    expected = pd.DataFrame({"first": [0, 0, 0, 3, 3], "last": [4, 2, 2, 4, 4],
                             "start": [0, 1_000, 2_000, 1_000, 31_000], "end": [1_000, 2_000, 40_000, 31_000, 40_000],
                             "state": ["AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ACQUIRED", "AVAILABLE"],
                             "delivery_count": [1, 2, 2, 2, 2], "owner": ["", "c-2", "", "c-2", ""]})
    pd.testing.assert_frame_equal(release_story().intervals(end_ms=40_000), expected)


def test_each_call_names_the_record_states_it_left_the_first_call_too():
    trace = release_story()
    assert [trace.changes(i) for i in range(len(trace.calls))] == [
        "0-4 ACQUIRED (delivery 1)", "0-4 AVAILABLE (delivery 1)", "0-4 ACQUIRED (delivery 2)",
        "0-2 ACKNOWLEDGED (delivery 2)", "3-4 AVAILABLE (delivery 2)"]


def _after(spso: int, speo: int, next_fetch: int) -> str:
    return f"after it: SPSO {spso}, SPEO {speo}, next fetch offset {next_fetch}"


#: release_story as sequence-diagram rows (COLUMNS): a RELEASE puts the next fetch offset back to the first
#: AVAILABLE record (0); ACCEPT 0-2 moves SPSO to 3; the expired locks put it back to 3.
RELEASE_ROWS = [
    (0, "c-1", "request", "ShareFetch", "c-1: ShareFetch", False),
    (0, "c-1", "reply", "ShareFetch: 0-4 (delivery 1)", _after(0, 4, 5), False),
    (0, "c-1", "request", "ShareAcknowledge RELEASE 0-4", "c-1: ShareAcknowledge RELEASE 0-4", False),
    (0, "c-1", "reply", "ShareAcknowledge: NONE (0)", _after(0, 4, 0), False),
    (0, "leader", "leader note", "0-4 AVAILABLE (delivery 1); SPSO 0", _after(0, 4, 0), False),
    (1_000, "c-2", "request", "ShareFetch", "c-2: ShareFetch", False),
    (1_000, "c-2", "reply", "ShareFetch: 0-4 (delivery 2)", _after(0, 4, 5), False),
    (2_000, "c-2", "request", "ShareAcknowledge ACCEPT 0-2", "c-2: ShareAcknowledge ACCEPT 0-2", False),
    (2_000, "c-2", "reply", "ShareAcknowledge: NONE (0)", _after(3, 4, 5), False),
    (2_000, "leader", "leader note", "0-2 ACKNOWLEDGED (delivery 2); SPSO 3", _after(3, 4, 5), False),
    (31_000, "leader", "leader note", "acquisition lock expired: 3-4 AVAILABLE (delivery 2)", _after(3, 4, 3), False)]


def test_a_share_reply_and_a_leader_note_tell_spso_speo_and_the_next_fetch_offset_after_the_call():
    """No share row is an ok heartbeat (heartbeats="errors" would thin it); without notes the rows keep
    their types (integer ms, true/false)."""
    pd.testing.assert_frame_equal(share_messages(release_story()), pd.DataFrame(RELEASE_ROWS, columns=COLUMNS))


def test_a_note_goes_after_the_calls_of_its_millisecond_with_no_detail():
    rows = [*RELEASE_ROWS[:10], (2_000, "c-2", "consumer note", "GC pause", "", False), RELEASE_ROWS[10]]
    pd.testing.assert_frame_equal(share_messages(release_story(), notes=[(2_000, "c-2", "GC pause")]),
                                  pd.DataFrame(rows, columns=COLUMNS))


def _partition():
    """Kafka 4.2's share partition of orders-0 for group g: locks of 30 s, delivery limit 5, 2000 in-flight records."""
    return GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"orders": 1}) \
        .share_partition("g", "orders", 0)


def _calls(trace: ShareTrace) -> list[tuple]:
    return [tuple(c.values()) for c in trace.calls]


def test_a_share_fetch_takes_max_poll_records_500_rounded_up_to_its_last_log_batch():
    # 4.1+: the consumer sends MaxRecords = max.poll.records (500 by default). A read of ten 100-record
    # batches (KIP-932's two-consumer example): 0 + 500 - 1 = 499 ends batch 400-499, so 0-499, count 1.
    trace = ShareTrace(_partition(), 0, 999)
    trace.acquire("c-1", [(b, b + 99) for b in range(0, 1000, 100)])
    # a limit of 250 ends inside batch 200-299: batch_optimized takes that batch whole (MaxRecords is soft)
    trace.acquire("c-2", [(b, b + 99) for b in range(500, 1000, 100)], max_records=250)
    assert _calls(trace) == [(0.0, "c-1", "ShareFetch", "0-499 (delivery 1)", 0, 499, 500),
                             (0.0, "c-2", "ShareFetch", "500-799 (delivery 1)", 0, 799, 800)]


def test_records_another_consumer_holds_are_not_handed_out_the_share_fetch_gets_nothing():
    trace = ShareTrace(_partition(), 0, 4)
    trace.acquire("c-1", [(0, 4)])
    trace.acquire("c-2", [(0, 4)])
    assert [(c["member"], c["answer"]) for c in trace.calls] == [("c-1", "0-4 (delivery 1)"), ("c-2", "nothing")]
    assert trace.changes(1) == ""


def test_each_acknowledgement_batch_and_each_acquired_range_is_named_with_its_type_or_delivery_count():
    # ACCEPT 0-1 -> ACKNOWLEDGED, REJECT 2 -> ARCHIVED, RELEASE 3-4 -> AVAILABLE (count kept: 1);
    # SPSO moves over the terminal 0-2 to 3. The next fetch takes the AVAILABLE 3-4 first (count 1 + 1)
    # and the new 5-9 (count 1): two ranges, as AcquiredRecords merge only equal counts.
    trace = ShareTrace(_partition(), 0, 9)
    trace.acquire("c-1", [(0, 4)])
    trace.advance_to(1_000)
    trace.acknowledge("c-1", [(0, 1, "ACCEPT"), (2, 2, "REJECT"), (3, 4, "RELEASE")])
    trace.advance_to(2_000)
    trace.acquire("c-2", [(0, 4), (5, 9)])
    assert _calls(trace)[1:] == [
        (1.0, "c-1", "ShareAcknowledge ACCEPT 0-1, REJECT 2-2, RELEASE 3-4", "NONE (0)", 3, 4, 3),
        (2.0, "c-2", "ShareFetch", "3-4 (delivery 2), 5-9 (delivery 1)", 3, 9, 10)]
    assert trace.changes(1) == "0-1 ACKNOWLEDGED (delivery 1), 2-2 ARCHIVED (delivery 1), 3-4 AVAILABLE (delivery 1)"


def test_a_trace_follows_only_the_records_first_to_last_inclusive():
    # c-1 takes and accepts 0-14; the trace of 5-9 has rows for those five records and no others.
    trace = ShareTrace(_partition(), 5, 9)
    trace.acquire("c-1", [(0, 4), (5, 9), (10, 14)])
    trace.advance_to(1_000)
    trace.acknowledge("c-1", [(0, 14, "ACCEPT")])
    frame = trace.intervals(end_ms=2_000)
    assert [tuple(r) for r in frame[["first", "last", "start", "end", "state"]].itertuples(index=False)] == [
        (5, 9, 0, 1_000, "ACQUIRED"), (5, 9, 1_000, 2_000, "ACKNOWLEDGED")]
    assert [trace.changes(i) for i in range(2)] == ["5-9 ACQUIRED (delivery 1)", "5-9 ACKNOWLEDGED (delivery 1)"]


def test_a_record_gone_from_the_cache_keeps_its_terminal_state_and_the_records_after_it_are_still_followed():
    # ACCEPT 0-4 makes every cached record terminal: the cache empties (SPSO = SPEO = 5), so 0-4 have
    # no state to read any more; c-2's acquisition of 5-9 at 2 s is still noted.
    trace = ShareTrace(_partition(), 0, 9)
    trace.acquire("c-1", [(0, 4)])
    trace.advance_to(1_000)
    trace.acknowledge("c-1", [(0, 4, "ACCEPT")])
    trace.advance_to(2_000)
    trace.acquire("c-2", [(5, 9)])
    frame = trace.intervals(end_ms=3_000)
    assert [tuple(r) for r in frame[["first", "last", "start", "end", "state", "owner"]].itertuples(index=False)] == [
        (0, 4, 0, 1_000, "ACQUIRED", "c-1"), (0, 4, 1_000, 3_000, "ACKNOWLEDGED", ""),
        (5, 9, 2_000, 3_000, "ACQUIRED", "c-2")]


def test_locks_expiring_at_different_instants_are_one_row_each():
    # c-1's lock on 0-4 (taken at 0) expires at 30 s, c-2's on 5-9 (taken at 1 s) at 31 s; each time
    # the next fetch offset goes back to the first AVAILABLE record, 0.
    trace = ShareTrace(_partition(), 0, 9)
    trace.acquire("c-1", [(0, 4)])
    trace.advance_to(1_000)
    trace.acquire("c-2", [(5, 9)])
    trace.advance_to(40_000)
    assert _calls(trace)[2:] == [(30.0, "leader", "acquisition lock expired", "0-4 AVAILABLE (delivery 1)", 0, 9, 0),
                                 (31.0, "leader", "acquisition lock expired", "5-9 AVAILABLE (delivery 1)", 0, 9, 0)]


def test_a_trace_begun_while_records_are_locked_starts_with_their_expiry():
    sp = _partition()
    sp.acquire("c-1", None, log_batches=[(0, 4)])
    trace = ShareTrace(sp, 0, 4)
    trace.advance_to(30_000)
    assert _calls(trace) == [(30.0, "leader", "acquisition lock expired", "0-4 AVAILABLE (delivery 1)", 0, 4, 0)]


def test_a_trace_keeps_the_observer_of_writes_the_share_partition_had():
    # a Scenario's ShareLog turns every WriteShareGroupState into events: a trace must not cut it off
    sp = _partition()
    seen = []
    sp.on_write = lambda written: seen.append([(f, l, s.state, s.delivery_count) for f, l, s in written])
    trace = ShareTrace(sp, 0, 4)
    trace.acquire("c-1", [(0, 4)])
    trace.acknowledge("c-1", [(0, 4, "ACCEPT")])
    assert seen == [[(0, 4, "ACKNOWLEDGED", 1)]]


# -- the pause/resume timeline (chapter 8) ------------------------------------------------------------
def test_a_member_the_coordinator_removed_is_marked_expelled():
    s = SimpleNamespace(remedy=None, app_loop="pause_once", pause_at_ms=1_000, resume_at_ms=None, duration_ms=10_000,
                        changes=[(4_000, "join", None), (5_000, "leave", "c-3"), (6_000, "lost", "c-2")])
    marks = scenario_marks(SimpleNamespace(scenario=s))
    assert list(marks["short"]) == ["pause once", "join", "leave", "expelled"]
    assert list(marks["label"])[3] == "c-2 expelled by the coordinator (lost)"


def test_the_window_is_closed_an_interval_starting_at_its_end_is_drawn():
    # [lo, hi] with both ends in: an interval that starts at hi shows as a zero-width mark at hi.
    frame = pd.DataFrame({"start": [0, 5_000, 10_000, 10_001], "end": [2_000, 20_000, 12_000, 12_000]})
    shown = _in_window(frame, 2_000, 10_000)
    assert list(zip(shown["start_s"], shown["end_s"])) == [(2.0, 2.0), (5.0, 10.0), (10.0, 10.0)]
    points = _in_window(pd.DataFrame({"time": [1_999, 2_000, 10_000, 10_001]}), 2_000, 10_000)
    assert list(points["time_s"]) == [2.0, 10.0]


def test_the_pause_runs_key_numbers_keep_their_order_and_group_a_breakdown():
    summary = {"unexpected_records": 1_500, "unexpected_from_buffer": 500, "unexpected_polls": 3,
               "records_lost": 0, "pause_flags_cleared": {"revoke": 2, "assign": 1}, "records_fetched": 12_000,
               "generations": {"eager": 0}}
    frame = key_numbers(summary)
    assert list(frame.columns) == ["order", "label", "value"]
    assert list(frame["order"]) == list(range(7)) and frame["label"][0] == "records returned while paused"
    assert list(frame["value"]) == ["1,500", "500", "3", "0", "3 (revoke 2, assign 1)", "12,000", "0"]


def test_an_assignment_summary_shows_the_spread_of_partitions_as_fewest_over_most():
    frame = _counts_frame({"moved": 3, "members": 4, "idle": 1, "fewest": 0, "most": 4, "unowned": 0})
    assert list(zip(frame["order"], frame["label"], frame["value"])) == [
        (0, "partitions moved (last row vs first)", "3"), (1, "members (last row)", "4"),
        (2, "... of which own no partition", "1"), (3, "fewest / most partitions per member", "0 / 4"),
        (4, "partitions without an owner", "0")]


def test_the_timelines_faults_are_those_inside_its_window():
    from kafkasim.viz.timeline import timeline_frames
    run = simulate(Scenario(duration_ms=60_000, faults=[faults.Crash("c-2", 10_000), faults.Crash("c-3", 40_000)]))
    assert list(timeline_frames(run)["faults"]["time_s"]) == [10.0, 40.0]
    assert list(timeline_frames(run, window=(30_000, 60_000))["faults"]["time_s"]) == [40.0]
    from kafkasim.viz.layers import span_s
    assert span_s(run, (30_000, 50_000)) == (30.0, 50.0)  # the time axis spans the window, in seconds
    starts = list(timeline_frames(run)["starts"]["time_s"])  # the first join, c-2's session expiry
    windowed = list(timeline_frames(run, window=(30_000, 60_000))["starts"]["time_s"])
    assert len(starts) == 2 and windowed == [t for t in starts if 30 <= t <= 60] == starts[1:]


def test_only_a_heartbeat_that_succeeded_is_flagged_as_an_ok_heartbeat():
    # protocol.messages: ok_heartbeat is "a heartbeat that succeeded and changed nothing" (thinned by
    # heartbeats="errors"); JoinGroup, SyncGroup and every reply are never thinned.
    from kafkasim.viz.protocol import messages
    frame = messages(simulate(Scenario(duration_ms=20_000)))
    ok = frame[frame["ok_heartbeat"]]
    assert len(ok) > 0 and set(ok["kind"]) == {"request"} and set(ok["label"]) == {"Heartbeat"}
    assert {"JoinGroup", "SyncGroup"} <= set(frame.loc[frame["kind"] == "request", "label"])


def test_a_consumer_heartbeat_reply_is_drawn_when_it_changed_the_members_epoch_state_or_assignment():
    """KIP-848 sequence diagram (`protocol.messages`): a ConsumerGroupHeartbeat's reply is drawn only if it
    changed something. Alone in a 1-partition group, c-1's join gets its reply (epoch 1, the partition), and
    its heartbeats at epoch 1 after that change nothing: no reply. When c-2 joins (ScaleOut at 10 s) the
    group epoch bumps to 2; c-1 keeps the partition, so its next heartbeat's reply bumps its epoch with no
    new assignment, and is drawn."""
    from kafkasim.viz.protocol import messages

    def replies(run):
        frame = messages(run)
        return frame.loc[frame["kind"] == "reply", ["time", "member", "label"]].values.tolist()

    consumer = {"group.protocol": "consumer"}
    alone = simulate(Scenario(members=1, topics={"t": 1}, duration_ms=30_000, kafka_version="4.0", consumer=consumer))
    assert replies(alone) == [[34, "c-1", "epoch 1: STABLE, new assignment"]]  # at c-1's start (34 ms)
    joined = simulate(Scenario(members=1, topics={"t": 1}, duration_ms=20_000, kafka_version="4.0", consumer=consumer,
                               faults=[faults.ScaleOut(at_ms=10_000, count=1)]))
    assert [r for r in replies(joined) if r[1] == "c-1"] == [[34, "c-1", "epoch 1: STABLE, new assignment"],
                                                              [10_034, "c-1", "epoch 2: STABLE"]]


def test_cells_on_a_log_axis_meet_at_geometric_midpoints_mirrored_at_the_ends():
    from kafkasim.viz.poll import _edges
    # 10 and 1000: midpoint sqrt(10 * 1000) = 100; mirrored: 10^2 / 100 = 1 and 1000^2 / 100 = 10,000.
    assert _edges([1000, 10, 1000]) == {10: (1.0, 100.0), 1000: (100.0, 10_000.0)}
    assert _edges([30]) == {30: (20.0, 45.0)}  # a lone value: a factor 1.5 either side
    # 1, 4, 16: midpoints 2 and 8; the last cell mirrors its lower midpoint about 16: 16^2 / 8 = 32
    assert _edges([16, 1, 4]) == {1: (0.5, 2.0), 4: (2.0, 8.0), 16: (8.0, 32.0)}


def test_compare_names_the_directions_it_takes():
    runs = [SimpleNamespace(), SimpleNamespace()]
    with pytest.raises(ValueError, match=r"^direction must be 'columns' or 'rows', got 'diagonal'$"):
        compare(runs, direction="diagonal")


def test_fault_labels_without_a_span_each_get_a_row_and_every_grid_point_keeps_its_labels():
    from kafkasim.viz.layers import label_rows
    frame = pd.DataFrame({"time_s": [30.0, 10.0, 20.0], "short": ["b", "a", "c"]})
    assert list(label_rows(frame)["row"].sort_index()) == [2, 0, 1]  # rows in time order, one each
    grid = pd.DataFrame({"time_s": [10.0, 10.0], "short": ["x", "y"], "p_fault": ["Crash", "Pause"]})
    rows = label_rows(grid, span=(0.0, 60.0))
    assert list(rows.index) == [0, 1] and list(rows["row"]) == [0, 0]  # rows counted per grid point


# -- what a tooltip tells: its field, its title with the unit, its number format ----------------------
def _tooltip(spec: dict, y: str) -> list[dict]:
    """The tooltip of the one view whose y axis draws `y`."""
    (view,) = [v for v in views(spec) if v["encoding"].get("y", {}).get("field") == y]
    return view["encoding"]["tooltip"]


def test_the_lag_tooltip_names_its_units_seconds_and_records():
    # The panel's axis says "lag (records)"; a learner hovering reads the same unit, the count grouped.
    spec = lag_chart.spec(simulate(BASE), panels=("lag",))
    assert _tooltip(spec, "lag") == [
        {"field": "time_s", "type": "quantitative", "title": "time (s)"},
        {"field": "lag", "type": "quantitative", "title": "lag (records)", "format": ","}]


def test_the_storm_tooltip_gives_each_figure_its_name_and_precision():
    # A bucket's connectors rebalancing is a mean over the bucket (storm_frame): one decimal; ZooKeeper's
    # requests, reads and writes are counts, shown whole and grouped; the bucket starts at "from (s)".
    run = simulate_zookeeper(seed_incident(topics=2, consumers=3, partitions=3, duration_ms=20_000))
    expected = [{"field": "run", "type": "nominal", "title": "run"},
                {"field": "time_s", "type": "quantitative", "title": "from (s)"},
                {"field": "rebalancing", "type": "quantitative", "title": "connectors rebalancing", "format": ".1f"},
                {"field": "requests_per_s", "type": "quantitative", "title": "ZooKeeper requests/s", "format": ",.0f"},
                {"field": "reads", "type": "quantitative", "title": "reads", "format": ",.0f"},
                {"field": "writes", "type": "quantitative", "title": "writes", "format": ",.0f"}]
    assert _tooltip(rebalancing_over_time.spec(run), "rebalancing") == expected
    assert _tooltip(zookeeper_load.spec(run), "requests_per_s") == expected


def test_a_tooltip_field_is_a_column_the_data_has():
    # A field the data lacks shows "undefined" (or draws nothing) with no error from Altair or Vega-Lite.
    run, other = simulate(BASE.replace(faults=[faults.Crash("c-2", 30_000)])), simulate(BASE)
    storm = simulate_zookeeper(seed_incident(topics=2, consumers=3, partitions=3, duration_ms=20_000))
    charts = [lag_chart(run), compare([run, other], charts=("timeline", "lag", "summary")),
              rebalancing_over_time(storm), zookeeper_load(storm), storm_chart(storm)]
    for chart in charts:
        spec = chart.to_dict()
        assert encoded_fields(spec) and missing_fields(spec) == []


def test_compared_runs_side_by_side_share_1_2_chart_widths_never_narrower_than_260_px():
    # The chart width is 680 px: two columns of 680 x 1.2 / 2 = 408, three of 272, four of 204 -> 260;
    # one above the other, each run takes the chart width.
    runs = [simulate(BASE.replace(duration_ms=20_000, seed=seed)) for seed in range(4)]

    def widths(spec: dict) -> set:
        """Every width set in the spec's views, layers and panels."""
        found = {spec["width"]} if "width" in spec else set()
        for key in ("layer", "vconcat", "hconcat"):
            found |= {w for child in spec.get(key, []) for w in widths(child)}
        return found


    assert widths(compare(runs[:2], charts=("lag",)).to_dict()) == {408}
    assert widths(compare(runs[:3], charts=("lag",)).to_dict()) == {272}
    assert widths(compare(runs, charts=("lag",)).to_dict()) == {260}
    assert widths(compare(runs[:2], charts=("lag",), direction="rows").to_dict()) == {680}


def test_compare_labels_each_run_by_what_differs_configs_under_their_kafka_names():
    # Consumer and broker configs under their own names, sorted, joined with ", "; a config one run
    # leaves unset reads "default" (group.protocol: "classic").
    a, b = BASE.replace(consumer={"session.timeout.ms": 10_000}), BASE.replace(broker={"group.max.size": 5})
    assert scenario_labels([a, b]) == ["group.max.size=default, session.timeout.ms=10000",
                                       "group.max.size=5, session.timeout.ms=default"]
    v4 = BASE.replace(kafka_version="4.0")
    assert scenario_labels([v4.replace(consumer={"group.protocol": "consumer"}), v4]) == [
        "group.protocol=consumer", "group.protocol=classic"]
    assert scenario_labels([BASE.replace(members=3), BASE.replace(members=4)]) == ["members=3", "members=4"]
    assert scenario_labels([BASE, BASE, BASE]) == ["run 1", "run 2", "run 3"]  # nothing differs: numbered from 1


def test_compare_labels_processing_by_its_description_and_faults_by_their_labels():
    slow = BASE.replace(processing_ms=LogNormal(2, 500))
    described = slow.to_dict()["processing_ms"]["describe"]
    assert scenario_labels([BASE, slow]) == ["processing=2 ms per record", f"processing={described}"]
    two = [faults.Crash("c-1", 5_000), faults.Pause("c-2", 8_000, 3_000)]
    assert scenario_labels([BASE, BASE.replace(faults=two)]) == [
        "faults=no fault", "faults=Crash c-1 at 5 s; Pause c-2 for 3 s at 8 s"]


def test_compare_draws_every_run_on_one_window_from_0_to_the_longest_end_unless_given_one():
    runs = [simulate(BASE.replace(duration_ms=ms, members=2)) for ms in (10_000, 20_000)]
    windows = []

    def recorder(run, window, **kw):
        windows.append(window)
        return lag_chart(run, window, **kw)

    compare(runs, charts=(recorder,))
    assert windows == [(0, runs[1].end_ms)] * 2 and runs[1].end_ms > runs[0].end_ms
    windows.clear()
    compare(runs, charts=(recorder,), window=(2_000, 5_000))
    assert windows == [(2_000, 5_000)] * 2
    with pytest.raises(ValueError, match=r"^compare\(\) needs two or more runs$"):
        compare(runs[:1])
    with pytest.raises(ValueError, match=r"^1 labels for 2 runs$"):
        compare(runs, labels=["only one"])


def test_a_compared_runs_headline_gives_its_four_numbers_by_their_short_names():
    run = SimpleNamespace(summary={"rebalances": 1_234, "removals_by_reason": {"session_timeout": 2, "poll_timeout": 1},
                                   "unconsumed_ms": 12_345, "duplicates": 0, "all_unconsumed_ms": 1_000})
    assert headline(run) == ("rebalances 1,234 · removed 3 (session_timeout 2, poll_timeout 1) · "
                             "unconsumed 12.3 s · duplicates 0")


def test_each_compared_run_is_titled_by_its_label_over_its_headline_and_its_charts_by_nothing():
    # A chart's own title would repeat over every run: the column's title says which run it is.
    runs = [simulate(BASE.replace(duration_ms=20_000, seed=seed)) for seed in (1, 2)]
    spec = compare(runs, charts=("timeline", "lag"), labels=["first", "second"]).to_dict()
    titles = [(c["title"]["text"], c["title"]["subtitle"]) for c in spec["hconcat"]]
    assert titles == [("first", headline(runs[0])), ("second", headline(runs[1]))]
    assert [["title" in part for part in c["vconcat"]] for c in spec["hconcat"]] == [[False, False]] * 2
    rows = compare(runs, charts=("lag",), labels=["first", "second"], direction="rows").to_dict()
    assert [c["title"]["text"] for c in rows["vconcat"]] == ["first", "second"] and "hconcat" not in rows


def test_the_calculator_says_the_fetch_memory_as_the_chapter_does_mib_below_a_gib():
    # 10 partitions of 1 MiB messages, one consumer: 0.8.2 holds queued.max.message.chunks (2) chunks
    # plus one fetch per partition, 12 x 1 MiB; 3.7 one response from its one leader, 10 MiB. Eight
    # consumers of 300 MiB messages in one JVM, 0.10.1: one 300 MiB response each, 2,400 MiB = 2.34 GiB.
    _, small = calculator_frames({"partitions": [10], "consumers": [1], "message_mib": [1], "leader_brokers": [1]})
    lines = dict(zip(small["version"], small["line"]))
    assert lines["0.8.2"] == "0.8.2: 10.0 MiB per response, ok; fetch memory 12.0 MiB"
    assert lines["3.7"] == "3.7: 10.0 MiB per response, ok; fetch memory 10.0 MiB"
    _, big = calculator_frames({"partitions": [360], "consumers": [8], "message_mib": [300], "leader_brokers": [1]})
    assert dict(zip(big["version"], big["line"]))["0.10.1"].endswith("; fetch memory 2.34 GiB")


def test_faults_on_members_the_group_lacks_move_to_its_last_member():
    """retarget_faults: a fault on c-N when fewer than N members run at its time strikes the last one
    (c-<members + those scaled out before>), said in a note; c-N with N members running stays; a name
    not of the form c-<number> is never moved (the explorer names its members c-1, c-2, ...)."""
    scenario = Scenario(members=3, faults=(faults.Pause("c-5", 10_000), faults.ScaleOut(20_000, count=2),
                                           faults.Crash("c-5", 30_000), faults.ScaleIn(40_000, ("c-1", "c-9"))))
    moved, notes = retarget_faults(scenario)
    assert moved.faults == (faults.Pause("c-3", 10_000), faults.ScaleOut(20_000, count=2),
                            faults.Crash("c-5", 30_000),  # c-5 has joined by then
                            faults.ScaleIn(40_000, ("c-1", "c-5")))
    assert notes == ["The Pause of c-5 hits c-3 here: the group has 3 members at 10 s.",
                     "ScaleIn c-1, c-9 becomes ScaleIn c-1, c-5: the group has 5 members at 40 s."]
    assert retarget_faults(moved) == (moved, [])
    others = Scenario(members=3, faults=(faults.Pause("c-x", 10_000), faults.Crash("d-9", 20_000),
                                         faults.ScaleIn(30_000, ("x-c-7", "c-10"))))
    moved, notes = retarget_faults(others)
    assert moved.faults == (faults.Pause("c-x", 10_000), faults.Crash("d-9", 20_000),
                            faults.ScaleIn(30_000, ("x-c-7", "c-3")))
    assert notes == ["ScaleIn x-c-7, c-10 becomes ScaleIn x-c-7, c-3: the group has 3 members at 30 s."]


# -- the explorer's fault knobs change only what they are given --------------------------------------
def test_an_unknown_fault_is_refused_naming_the_knob_and_every_fault_it_can_choose():
    """Bad input: a clear error naming the setting and its valid values (settings.FAULTS, in order)."""

    with pytest.raises(ConfigError) as e:
        scenario_with(BASE, {"fault": "Explode"})
    assert str(e.value) == ("fault must be one of none, Crash, Restart, Pause, SlowProcessing, NetworkCut, "
                            "ScaleOut, ScaleIn, got 'Explode'")


@pytest.mark.parametrize("values, expected", [
    ({"fault.at.ms": 30_000}, faults.Pause("c-2", 30_000, duration_ms=7_000)),
    ({"fault.duration.ms": 3_000}, faults.Pause("c-2", 12_000, duration_ms=3_000)),
    ({"fault": "Restart"}, faults.Restart("c-2", 12_000, delay_ms=7_000)),
])
def test_a_fault_knob_left_unset_keeps_the_base_scenarios_fault_setting(values, expected):
    """scenario_with "changes only the knobs it is given": the fault's kind, time, duration and member
    not among them are the base scenario's own (here a 7 s pause of c-2 at 12 s)."""

    base = BASE.replace(faults=[faults.Pause("c-2", 12_000, duration_ms=7_000)])
    assert tuple(scenario_with(base, values).faults) == (expected,)


# -- the broker's network charts (chapter 6) ---------------------------------------------------------
NAN = float("nan")
#: Four requests of a run 1 s long: created at 0, 100, 250 and 900 ms, the first two answered at 50 and
#: 300 ms, the last two never (NaN, as `NetworkRun.requests` has a stamp not reached).
REQUESTS = pd.DataFrame({"created": [0.0, 100.0, 250.0, 900.0], "end": [50.0, 300.0, NAN, NAN],
                         "size_bytes": np.array([1_000, 2_000, 4_000, 8_000], dtype=np.int64)})


def _throughput(what: list, time_s: list, mb_per_s: list) -> pd.DataFrame:
    return pd.DataFrame({"run": "run", "what": what, "time_s": time_s, "mb_per_s": mb_per_s})


def test_throughput_is_the_bytes_created_or_answered_in_a_bin_over_its_seconds():
    """offered counts a request's bytes in the bin it was created, completed in the bin its response
    was sent (never, for a request not answered); MB are 10^6 bytes; a run drawn alone is "run"."""
    run = SimpleNamespace(requests=REQUESTS, end_ms=1_000)
    quarter = 0.25  # s: 4 bins of 250 ms
    expected = _throughput(["offered"] * 4 + ["completed"] * 4, [0.0, 0.25, 0.5, 0.75] * 2,
                           [3_000 / 1e6 / quarter, 4_000 / 1e6 / quarter, 0.0, 8_000 / 1e6 / quarter,
                            1_000 / 1e6 / quarter, 2_000 / 1e6 / quarter, 0.0, 0.0])
    pd.testing.assert_frame_equal(throughput_frame(run, bins=4), expected, rtol=1e-12)


def test_throughput_bins_are_whole_milliseconds_from_the_windows_start_the_last_cut_at_its_end():
    """A window of 860 ms in 3 bins: 287 ms each (rounded up), from 100 ms; the last ends at 960 ms,
    so its rate is over 286 ms. A request created before the window (at 0) is not in it."""
    run = SimpleNamespace(requests=REQUESTS, end_ms=1_000)
    expected = _throughput(["offered"] * 3 + ["completed"] * 3, [0.1, 0.387, 0.674] * 2,
                           [(2_000 + 4_000) / 1e6 / 0.287, 0.0, 8_000 / 1e6 / 0.286,
                            2_000 / 1e6 / 0.287, 0.0, 0.0])
    pd.testing.assert_frame_equal(throughput_frame(run, window=(100, 960), bins=3), expected, rtol=1e-12)


def test_a_window_shorter_than_its_bins_gets_one_millisecond_bins():
    """The simulator's clock counts whole milliseconds: no bin is narrower than 1 ms."""
    run = SimpleNamespace(requests=REQUESTS, end_ms=1_000)
    frame = throughput_frame(run, window=(250, 252), bins=4)
    pd.testing.assert_frame_equal(frame, _throughput(["offered"] * 2 + ["completed"] * 2, [0.25, 0.251] * 2,
                                                     [4_000 / 1e6 / 0.001, 0.0, 0.0, 0.0]), rtol=1e-12)


def _memory_run(rows: list[tuple[int, int, int]], end_ms: int = 1_000) -> SimpleNamespace:
    """A run whose `timeseries` has the rows (time, memory_used_bytes, memory_muted_channels)."""
    ts = pd.DataFrame(rows, columns=["time", "memory_used_bytes", "memory_muted_channels"])
    return SimpleNamespace(timeseries=ts, end_ms=end_ms)


def _memory(time_s: list, mib: list, muted: list, run: str = "w") -> pd.DataFrame:
    return pd.DataFrame({"time_s": time_s, "mib": mib, "muted": muted, "run": run})


def test_a_memory_window_opens_on_the_state_last_changed_before_it_and_holds_the_last_to_its_end():
    """`timeseries` has a row per change: inside a window with no change, the memory held is the one
    set by the last change before it (not an earlier one), drawn from the window's start to its end."""
    run = _memory_run([(0, 4 * MiB, 2), (40, MiB, 0), (100, 2 * MiB, 0)])
    expected = _memory([0.05, 0.09], [1.0, 1.0], [0, 0])
    pd.testing.assert_frame_equal(memory_frame(run, "w", window=(50, 90)), expected, check_dtype=False)


def test_a_bins_memory_is_the_most_held_in_it_counting_the_state_before_a_change_at_its_start():
    """Window (100, 200) in 2 bins of 50 ms: the first bin holds 3 MiB until the change at 100 ms,
    then 1 MiB (peak 3 MiB, 1 muted); the change at 150 ms starts the second bin; rows are numbered
    from 0, the last one repeating the last bin at the window's end."""
    run = _memory_run([(0, 3 * MiB, 1), (100, MiB, 0), (150, 2 * MiB, 0)])
    expected = _memory([0.1, 0.15, 0.2], [3.0, 2.0, 2.0], [1, 0, 0])
    pd.testing.assert_frame_equal(memory_frame(run, "w", window=(100, 200), points=2), expected, check_dtype=False)


def test_changes_at_both_ends_of_a_memory_window_are_in_it():
    """The window is closed: a change at its start (3 MiB) and one at its end (5 MiB, the peak of the
    run) are drawn; the one at the end falls in a bin of its own, at 200 ms."""
    run = _memory_run([(0, MiB, 0), (100, 3 * MiB, 1), (200, 5 * MiB, 2)])
    expected = _memory([0.1, 0.2, 0.2], [3.0, 5.0, 5.0], [1, 2, 2])
    pd.testing.assert_frame_equal(memory_frame(run, "w", window=(100, 200), points=2), expected, check_dtype=False)


def test_memory_bins_are_whole_milliseconds_rounded_up_and_one_millisecond_at_least():
    """10 ms in 4 bins: 3 ms each (10/4 rounded up), from 0, 3, 6 and 9 ms; in 20 bins: 1 ms each (no
    bin is narrower than the simulator's 1 ms clock), one per change."""
    run = _memory_run([(t, t * MiB, 0) for t in range(10)], end_ms=10)
    four = _memory([0.0, 0.003, 0.006, 0.009, 0.01], [2.0, 5.0, 8.0, 9.0, 9.0], [0] * 5)
    pd.testing.assert_frame_equal(memory_frame(run, "w", points=4), four, check_dtype=False)
    twenty = _memory([t / 1000 for t in range(11)], [float(t) for t in range(10)] + [9.0], [0] * 11)
    pd.testing.assert_frame_equal(memory_frame(run, "w", points=20), twenty, check_dtype=False)


def test_the_bound_lines_are_queued_max_request_bytes_and_it_plus_socket_request_max_bytes_minus_1():
    """KIP-72: the pool refuses a read once full, but a read it allows may take up to
    socket.request.max.bytes - 1 more than the bound (SimpleMemoryPool's lenient overshoot)."""
    scenario = NetworkScenario(broker={"queued.max.request.bytes": 2 * MiB, "socket.request.max.bytes": MiB},
                               clients=(ClientGroup(count=1, rate_per_s=10, size_bytes=1_000),), duration_ms=200)
    frame = bound_frame(simulate_network(scenario), "bounded")
    expected = pd.DataFrame({"run": ["bounded"] * 2,
                             "what": ["queued.max.request.bytes", "overshoot limit (+ socket.request.max.bytes - 1)"],
                             "mib": [2.0, (3 * MiB - 1) / MiB]})
    pd.testing.assert_frame_equal(frame, expected)


def test_an_unbounded_broker_draws_no_bound_lines_but_has_the_columns_of_the_bounded_ones():
    """Its empty table is concatenated with the bounded runs' and read by the same rule layer."""
    frame = bound_frame(SimpleNamespace(summary={"bound_bytes": None}), "unbounded")
    assert len(frame) == 0 and list(frame.columns) == ["run", "what", "mib"]


#: `NetworkRun.requests` in short: when the response was sent (end) and the parts of a request's time.
_LATENCY_COLUMNS = ["socket_wait_ms", "memory_wait_ms", "read_ms", "processor_wait_ms", "RequestQueueTimeMs",
                    "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs"]
_LATENCY_LABELS = ["waiting to be read (not in Kafka metrics)", "waiting for pool memory (not in Kafka metrics)",
                   "reading the body (not in Kafka metrics)",
                   "waiting for the network thread (not in Kafka metrics)", "RequestQueueTimeMs", "LocalTimeMs",
                   "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs"]


def _latency_run() -> SimpleNamespace:
    """Requests answered at 99, 100, 150, 200 and 201 ms and one never; only socket wait and LocalTimeMs."""
    end = [99.0, 100.0, 150.0, 200.0, 201.0, NAN]
    parts = {c: [0.0] * 6 for c in _LATENCY_COLUMNS}
    parts["socket_wait_ms"] = [100.0, 1.0, 0.0, 0.0, 100.0, 50.0]
    parts["LocalTimeMs"] = [100.0, 2.0, 2.0, 2.0, 100.0, NAN]
    parts["client_latency_ms"] = [1_000.0, 0.0, 7.0, 100.0, 1_000.0, NAN]
    parts["TotalTimeMs"] = [1_000.0, 0.0, 7.0, 50.0, 1_000.0, NAN]
    return SimpleNamespace(requests=pd.DataFrame({"end": end, **parts}), end_ms=300)


def test_a_latency_bar_is_each_parts_mean_over_the_requests_answered_within_the_closed_window():
    """Window (100, 200): the requests answered at 100, 150 and 200 ms. Socket wait 1/3 ms (to the
    microsecond), LocalTimeMs 2 ms: shares 1/7 and 6/7 of the 7/3 ms (to 4 decimals); the parts
    before startTimeNanos are not in Kafka's RequestMetrics."""
    frame = latency_frame(_latency_run(), "w", window=(100, 200))
    expected = pd.DataFrame({"run": "w", "order": range(9), "component": _LATENCY_LABELS,
                             "in_kafka": ["no"] * 4 + ["yes: RequestMetrics"] * 5,
                             "mean_ms": [0.333, 0, 0, 0, 0, 2.0, 0, 0, 0],
                             "share": [0.1429, 0, 0, 0, 0, 0.8571, 0, 0, 0], "requests": 3})
    pd.testing.assert_frame_equal(frame, expected, check_dtype=False)


def test_a_window_with_no_answered_request_has_zero_length_latency_bars_not_nan():
    frame = latency_frame(_latency_run(), "w", window=(250, 300))
    assert frame["mean_ms"].tolist() == [0.0] * 9 and frame["share"].tolist() == [0.0] * 9
    assert frame["requests"].tolist() == [0] * 9


def test_percentiles_are_p50_p95_p99_of_client_latency_and_total_time_ms_answered_within_the_window():
    """Window (100, 200) with two requests at its ends: client latency 0 and 100 ms, TotalTimeMs 0 and
    50 ms; between two values the p-th percentile is p % of the way (linear, as the summary's)."""
    run = _latency_run()
    run.requests = run.requests.drop(index=2)
    rows = [("w", "client latency (not in Kafka metrics)", f"p{p}", float(p)) for p in (50, 95, 99)]
    rows += [("w", "TotalTimeMs (Kafka)", f"p{p}", p / 2) for p in (50, 95, 99)]
    expected = pd.DataFrame(rows, columns=["run", "measure", "percentile", "ms"])
    pd.testing.assert_frame_equal(percentile_frame(run, "w", window=(100, 200)), expected)


def test_a_window_with_no_answered_request_has_no_percentiles():
    frame = percentile_frame(_latency_run(), "w", window=(250, 300))
    assert frame["percentile"].tolist() == ["p50", "p95", "p99"] * 2 and frame["ms"].isna().all()


def test_fairness_frame_has_a_row_per_client_in_connection_order_with_its_documented_columns():
    clients = pd.DataFrame({"client": ["a", "b"], "processor": [1, 0], "sent": [4, 3], "completed": [1, 0],
                            "completion_ratio": [0.25, 0.0], "memory_wait_ms": [0.0, 7.0]})
    expected = pd.DataFrame({"run": "x", "position": [0, 1], "client": ["a", "b"],
                             "thread": ["network-thread-1", "network-thread-0"], "sent": [4, 3],
                             "completed": [1, 0], "ratio": [0.25, 0.0], "wait_s": [0.0, 0.007]})
    pd.testing.assert_frame_equal(fairness_frame(SimpleNamespace(clients=clients), "x"), expected)


@pytest.mark.parametrize("jain, starved, text", [(None, 3, "x: Jain index n/a, 3 starved"),
                                                 (0.87654, 0, "x: Jain index 0.877, 0 starved")])
def test_the_fairness_caption_gives_jains_index_to_3_decimals_or_n_a_when_nobody_was_served(jain, starved, text):
    frame = fairness_totals(SimpleNamespace(summary={"jain_index": jain, "starved_clients": starved}), "x")
    pd.testing.assert_frame_equal(frame, pd.DataFrame({"run": ["x"], "text": [text]}))


def test_the_key_numbers_of_a_stuck_broker_say_n_a_for_latencies_no_request_had_and_whole_milliseconds():
    """Nothing answered: no latency percentile, no Jain index (nobody served); the threads blocked on a
    full request queue for 12,345 ms."""
    none = {"p99": None}
    summary = {"bound_bytes": 10 * MiB, "peak_memory_bytes": 15 * MiB, "memory_pool_avg_depleted_percent": 99.5,
               "throughput_mb_per_s": 0.0, "offered_mb_per_s": 1.2, "requests_completed": 0,
               "requests_sent": 1_234, "client_latency_ms": none, "kafka_request_metrics_ms": {"TotalTimeMs": none},
               "not_in_kafka_metrics_ms": {"memory_wait_ms": none}, "processor_blocked_ms": 12_345,
               "jain_index": None, "starved_clients": 3}
    expected = pd.DataFrame({"order": range(11), "label": [
        "queued.max.request.bytes", "peak request memory", "time pool depleted", "throughput", "requests completed",
        "client p99 latency", "Kafka TotalTimeMs p99", "memory wait p99 (not in Kafka metrics)",
        "network threads blocked (queue full)", "fairness (Jain index)", "starved clients"], "value": [
        "10.00 MiB", "15.00 MiB", "99.5 %", "0.0 of 1.2 MB/s offered", "0 of 1,234", "n/a", "n/a", "n/a",
        "12,345 ms", "n/a", "3"]})
    pd.testing.assert_frame_equal(key_frame(summary), expected)


def test_a_run_label_is_a_vega_string_literal_its_quotes_and_backslashes_escaped():
    """fairness_spec filters each run's view with datum.run == <label>: "it's a\\b" must stay one string."""
    assert _quote("it's a\\b") == "'it\\'s a\\\\b'"


def test_drawing_an_empty_comparison_is_refused():
    with pytest.raises(ValueError, match="^no runs to draw$"):
        _as_runs({})


def test_an_unknown_network_explorer_setting_is_refused_naming_every_known_one():
    with pytest.raises(ConfigError) as raised:
        check_network_names(["queued.max.requests", "session.timeout.ms"])
    assert str(raised.value) == (
        "unknown network explorer setting(s) ['session.timeout.ms']; known: queued.max.request.bytes, "
        "socket.request.max.bytes, queued.max.requests, num.network.threads, num.io.threads, producers, "
        "max.request.size, requests.per.s, shuffle.on.low.memory")


def test_max_request_size_caps_a_constant_size_and_leaves_the_other_client_groups_alone():
    """A group of constant 200,000-byte requests under max.request.size 100,000 sends 100,000 bytes
    (low end = high end); the knobs act on the first client group only."""
    other = ClientGroup(name="consumer", count=1, api="Fetch", size_bytes=100)
    base = NetworkScenario(clients=(ClientGroup(size_bytes=200_000), other))
    scenario = network_scenario_with(base, {"max.request.size": 100_000})
    assert scenario.clients[0].size_bytes == (100_000, 100_000) and scenario.clients[1:] == (other,)


@pytest.mark.parametrize("base, values, shuffle", [(True, {"producers": 3}, True), (False, {"producers": 3}, False),
                                                   (False, {"shuffle.on.low.memory": True}, True)])
def test_the_shuffle_knob_sets_the_selectors_shuffle_and_an_unset_knob_keeps_the_bases(base, values, shuffle):
    scenario = network_scenario_with(NetworkScenario(shuffle_on_low_memory=base), values)
    assert scenario.shuffle_on_low_memory is shuffle


# -- the member timeline of a group too large for a row per member: members per state ------------------
def test_members_per_state_are_the_mean_over_each_bin_every_state_at_every_bin():
    """Bins of 500 ms over 100-102 s: a is consuming from 99.5 s to 101.25 s, b joining from 100 s to
    100.5 s, then consuming to the end. A last row at the span's end repeats the last bin (so that a
    step-after area closes). Rows come by state in name order."""
    states = pd.DataFrame({"member": ["b", "a", "b"], "state": ["joining", "consuming", "consuming"],
                           "start_s": [100.0, 99.5, 100.5], "end_s": [100.5, 101.25, 102.0]})
    times = [100.0, 100.5, 101.0, 101.5, 102.0]
    expected = pd.DataFrame({"members": [1.0, 2.0, 1.5, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
                             "state": ["consuming"] * 5 + ["joining"] * 5, "time_s": times * 2})
    pd.testing.assert_frame_equal(state_counts(states, (100, 102), bins=4), expected)


def test_no_member_states_give_an_empty_table_with_the_charts_fields():
    states = pd.DataFrame({"member": [], "state": [], "start_s": [], "end_s": []})
    assert list(state_counts(states, (0, 10), bins=4).columns) == ["members", "state", "time_s"]


def _pool_run(marks: list[tuple[int, str]], bound_bytes: int | None = 1_048_576) -> SimpleNamespace:
    """A NetworkRun 10 s long as the depleted charts read it: its events (the broker's pool marks among
    others) and whether queued.max.request.bytes bounds its memory."""
    rows = [(t, "broker", None, None, kind, None, None, None, None, None, 0.0, None)
            for t, kind in [(0, "ChannelMuted"), *marks]]
    return SimpleNamespace(events=to_frame(rows), end_ms=10_000, summary={"bound_bytes": bound_bytes})


#: Dry spells 1-1.5 s, 2-2.6 s, and one from 9 s never recovered (closed at the run's end, 10 s).
DRY = _pool_run([(1_000, "MemoryPoolDepleted"), (1_500, "MemoryPoolRecovered"), (2_000, "MemoryPoolDepleted"),
                 (2_600, "MemoryPoolRecovered"), (9_000, "MemoryPoolDepleted")])


def _spells(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["run", "start_s", "end_s", "ms"])


def test_a_dry_spell_runs_from_depleted_to_recovered_the_last_one_to_the_runs_end():
    """A run drawn alone is labelled "run"; seconds for the axis, whole ms for the tooltip."""
    pd.testing.assert_frame_equal(depleted_frame(DRY), _spells([("run", 1.0, 1.5, 500), ("run", 2.0, 2.6, 600),
                                                                ("run", 9.0, 10.0, 1_000)]))


def test_dry_spells_are_clipped_to_the_window_one_only_touching_it_is_no_row():
    """Window 1.5-9.5 s: the first spell ends where the window starts (no time inside it), the last is
    cut at 9.5 s."""
    pd.testing.assert_frame_equal(depleted_frame(DRY, "x", window=(1_500, 9_500)),
                                  _spells([("x", 2.0, 2.6, 600), ("x", 9.0, 9.5, 500)]))


def test_the_depleted_share_is_of_the_window_as_memory_pool_avg_depleted_percent():
    """Window 1.5-9.3 s (7.8 s): 600 + 300 ms depleted, 900 / 7800 = 11.538 %: the text in whole percent,
    the percent (MemoryPoolAvgDepletedPercent over the window) to 2 decimals."""
    expected = pd.DataFrame({"run": ["run"], "text": ["depleted 12% of the time"], "percent": [11.54]})
    pd.testing.assert_frame_equal(depleted_totals(DRY, window=(1_500, 9_300)), expected)


def test_an_empty_window_was_never_depleted_and_an_unbounded_pool_says_so():
    assert depleted_totals(DRY, "x", window=(5_000, 5_000)).to_dict("list") == {
        "run": ["x"], "text": ["depleted 0% of the time"], "percent": [0.0]}
    # MemoryPool.NONE (queued.max.request.bytes -1 or 0): no pool, no dry spell
    assert depleted_totals(_pool_run([], bound_bytes=None), "x")["text"].tolist() == ["unbounded: never depleted"]


def test_the_depleted_share_is_of_the_spells_the_chart_draws():
    """depleted_chart hands each run's spells to depleted_totals, which does not read the events again."""
    spells = _spells([("x", 2.0, 2.6, 600)])
    assert depleted_totals(DRY, "x", spells=spells)["percent"].tolist() == [6.0]  # 600 of 10 000 ms


def test_spells_closer_than_the_gap_are_one_bar_that_counts_them_and_their_depleted_ms():
    """Gap 0.5 s: 1.5 -> 2.0 s is not closer (a new bar), 2.6 -> 2.7 s is (one bar of 2 spells, 900 ms)."""
    spells = _spells([("x", 1.0, 1.5, 500), ("x", 2.0, 2.6, 600), ("x", 2.7, 3.0, 300), ("x", 9.0, 10.0, 1_000)])
    expected = pd.DataFrame({"run": ["x"] * 3, "start_s": [1.0, 2.0, 9.0], "end_s": [1.5, 3.0, 10.0],
                             "ms": [500, 900, 1_000], "spells": [1, 2, 1]})
    pd.testing.assert_frame_equal(merge_spells(spells, 0.5), expected)


def test_a_run_without_spells_keeps_integer_spell_counts_beside_another_runs():
    none = merge_spells(depleted_frame(_pool_run([]), "a"), 0.5)
    assert list(none.columns) == ["run", "start_s", "end_s", "ms", "spells"] and none["spells"].dtype == np.int64
    both = pd.concat([none, merge_spells(_spells([("b", 1.0, 1.5, 500)]), 0.5)], ignore_index=True)
    assert both["spells"].dtype == np.int64


# -- the ZooKeeper herd and the 0.8.2 fetch overflow (chapters 7 and 8) ---------------------------------
def test_one_departure_makes_each_of_n_connectors_read_every_registration_and_move_one_partition_each():
    """n + 1 connectors of one partition each, one leaves: the n notified each read the n registrations of
    the group name (n * n) besides 15 fixed reads (2 rewatches, 3 + 2 x 3 brokers before the release, 3 + 1
    topic in the group read), and the n + 1 offsets; they commit and release their n partitions and claim
    all n + 1 (0.8.2 defaults: auto.commit.enable, offsets.storage=zookeeper): writes 3n + 1."""
    expected = pd.DataFrame({"consumers": [1, 10], "reads": [1 + 15 + 2, 100 + 150 + 11], "writes": [4, 31],
                             "requests": [18 + 4, 261 + 31], "registration_reads": [1, 100]})
    pd.testing.assert_frame_equal(herd_frame([1, 10]), expected)


def test_the_overflow_boundary_is_exact_to_the_byte_a_response_of_int_max_fits():
    """A 0.8.2 response of Int.MaxValue bytes fits (its size field holds it), one byte more wraps: one
    partition carrying Int.MaxValue - wire_size(1, 0) bytes fits, one more byte does not. 1 MiB each:
    2047 x (18 + 2^20) + 19 <= Int.MaxValue < 2048 x (18 + 2^20) + 19."""
    most = INT_MAX - wire_size(1, 0)
    sizes = (most / MiB, (most + 1) / MiB, 1)  # whole bytes: exact in binary fractions
    assert boundary_frame(sizes).to_dict("list") == {"fetch_mib": list(sizes), "partitions": [1, 0, 2047]}


# -- the pause/resume timeline (chapter 9): KAFKA-13463's consumer-level pause -------------------------
def test_a_consumer_level_pause_covers_the_partitions_owned_while_it_was_set_none_only_touching_it():
    """Paused from 1 s to 5 s: p1 owned throughout (cut to the pause), p2 owned 3-4 s; p0, lost at the
    moment the pause started, and p3, assigned at the moment it ended, were never paused; c-2's not at all."""
    owned = pd.DataFrame({"member": ["c-1", "c-1", "c-1", "c-1", "c-2"], "partition": [0, 1, 2, 3, 4],
                          "start": [0, 0, 3_000, 5_000, 0], "end": [1_000, 9_000, 4_000, 9_000, 9_000]})
    assert _clip(owned, "c-1", 1_000, 5_000) == [("c-1", 1, 1_000, 5_000, "consumer-level pause"),
                                                 ("c-1", 2, 3_000, 4_000, "consumer-level pause")]


# -- the pause/resume timeline's tables, from hand-written event rows (kafkasim.core.events order) --------------
def pause_row(t, kind, member=None, p=None, reason=None, value=None, source="consumer", generation=None):
    return (t, source, "g", member, kind, generation, None if p is None else "orders", p, None, reason, value, None)


def pause_run(rows, version="3.7", duration_ms=10_000):
    return SimpleNamespace(rows=rows, scenario=SimpleNamespace(
        kafka_version=version, duration_ms=duration_ms, topic="orders", remedy="none", app_loop="pause_once",
        pause_at_ms=1_000, resume_at_ms=None, changes=[]))


#: 3.7: c-1 owns orders-0 and -1 from 0, loses orders-0 at 2 s (onPartitionsLost), leaves at 3 s; c-2 owns
#: orders-2 from 0 and gets orders-0 at 7 s, to the end (10 s).
OWNED_37 = [pause_row(0, "PartitionsAssigned", "c-1", 0, value=2), pause_row(0, "PartitionsAssigned", "c-1", 1, value=2),
            pause_row(0, "PartitionsAssigned", "c-2", 2, value=1), pause_row(2_000, "PartitionsLost", "c-1", 0, value=1),
            pause_row(3_000, "LeaveGroup", "c-1"), pause_row(7_000, "PartitionsAssigned", "c-2", 0, value=1)]


def test_an_owned_interval_ends_at_on_partitions_lost_or_the_members_leave_group_from_2_4():
    assert owned_intervals(pause_run(OWNED_37)).values.tolist() == [
        ["c-1", 0, 0, 2_000], ["c-1", 1, 0, 3_000], ["c-2", 2, 0, 10_000], ["c-2", 0, 7_000, 10_000]]


def test_before_2_4_a_revoked_partition_stays_owned_until_that_members_next_on_partitions_assigned():
    """<= 2.3 onJoinComplete replaces the assignment: c-1's orders-0, revoked at 1 s, ends at c-1's own
    onPartitionsAssigned at 2 s (not at c-2's at 1.5 s); c-2's orders-1 at c-2's at 1.5 s. Once ended, it is
    not ended again by c-1's next onPartitionsAssigned (3 s)."""
    rows = [pause_row(0, "PartitionsAssigned", "c-1", 0), pause_row(0, "PartitionsAssigned", "c-2", 1),
            pause_row(1_000, "PartitionsRevoked", "c-1", 0), pause_row(1_000, "PartitionsRevoked", "c-2", 1),
            pause_row(1_500, "PartitionsAssigned", "c-2", 2), pause_row(2_000, "PartitionsAssigned", "c-1", 0),
            pause_row(3_000, "PartitionsAssigned", "c-1", 3)]
    assert owned_intervals(pause_run(rows, "2.3")).values.tolist() == [
        ["c-2", 1, 0, 1_500], ["c-1", 0, 0, 2_000], ["c-2", 2, 1_500, 10_000], ["c-1", 0, 2_000, 10_000],
        ["c-1", 3, 3_000, 10_000]]


def test_a_pause_flag_ends_at_resume_at_its_clearing_or_when_its_partition_leaves_the_member():
    """Each flag's `by` is who paused it. c-1: orders-0 paused at 1 s, resumed at 1.5 s; orders-1 paused in
    onPartitionsAssigned at 1 s, cleared by a revocation at 2.5 s; orders-0 paused again at 1.8 s and never resumed:
    it ends when orders-0 is lost (2 s). c-2 pauses orders-0 as it gets it at 7 s, until it leaves at 9 s. A flag
    with no ownership on record (orders-5 of c-3) runs to the end of the run."""
    rows = [*OWNED_37[:3], pause_row(1_000, "Paused", "c-1", 0, "application"),
            pause_row(1_000, "Paused", "c-1", 1, "onPartitionsAssigned"), pause_row(1_500, "Resumed", "c-1", 0),
            pause_row(1_800, "Paused", "c-1", 0, "application"), pause_row(2_500, "PauseFlagCleared", "c-1", 1),
            *OWNED_37[3:], pause_row(7_000, "Paused", "c-2", 0, "onPartitionsAssigned"),
            pause_row(8_000, "Paused", "c-3", 5, "application"), pause_row(9_000, "LeaveGroup", "c-2")]
    assert paused_intervals(pause_run(rows)).values.tolist() == [
        ["c-1", 0, 1_000, 1_500, "application"], ["c-1", 1, 1_000, 2_500, "onPartitionsAssigned"],
        ["c-1", 0, 1_800, 2_000, "application"], ["c-2", 0, 7_000, 9_000, "onPartitionsAssigned"],
        ["c-3", 5, 8_000, 10_000, "application"]]


def test_a_consumer_level_pause_is_drawn_on_each_partition_owned_while_it_was_set_until_resume_or_the_end():
    """KAFKA-13463 suggestion 5 (proposal): c-1 pauses at 1 s and resumes at 2.5 s, owning orders-0 until 2 s
    and orders-1 until it leaves at 3 s; c-2 pauses at 8 s and never resumes: orders-2 and orders-0 to 10 s.
    A partition's own Resumed row (orders-2 of c-2) does not end the consumer-level pause."""
    rows = [*OWNED_37, pause_row(500, "Paused", "c-2", 2, "application"), pause_row(600, "Resumed", "c-2", 2),
            pause_row(1_000, "Paused", "c-1", reason="proposal: consumer-level pause()"),
            pause_row(2_500, "Resumed", "c-1", reason="proposal: consumer-level resume()"),
            pause_row(8_000, "Paused", "c-2", reason="proposal: consumer-level pause()"),
            pause_row(9_000, "Resumed", "c-2", 2)]
    assert paused_intervals(pause_run(rows)).values.tolist() == [
        ["c-2", 2, 500, 600, "application"], ["c-1", 0, 1_000, 2_000, "consumer-level pause"], ["c-1", 1, 1_000, 2_500, "consumer-level pause"],
        ["c-2", 2, 8_000, 10_000, "consumer-level pause"], ["c-2", 0, 8_000, 10_000, "consumer-level pause"]]


def test_a_rebalance_band_runs_from_rebalance_started_to_generation_stabilized_or_the_end():
    """Only coordinator rows count; a MemberRemoved inside a rebalance (a member leaving while it runs) neither
    ends nor starts one, nor does the one that empties the group (9.5 s); a rebalance still open at the end
    (10 s) keeps the generation it started in."""
    c = dict(source="coordinator")
    rows = [pause_row(500, "GenerationStabilized", "c-9", generation=7),   # a consumer's row of that name
            pause_row(1_000, "RebalanceStarted", reason="member c-1 joined", generation=0, **c),
            pause_row(2_000, "MemberRemoved", "c-2", reason="leave_group", generation=0, **c),
            pause_row(3_000, "GenerationStabilized", value=1, generation=1, **c),
            pause_row(8_000, "MemberRemoved", "c-1", reason="session_timeout", generation=1, **c),
            pause_row(8_000, "RebalanceStarted", reason="removing member c-1: session_timeout", generation=1, **c)]
    rows[0] = (*rows[0][:1], "consumer", *rows[0][2:])
    ended = [*rows, pause_row(9_000, "GenerationStabilized", value=1, generation=2, **c),
             pause_row(9_500, "MemberRemoved", "c-2", reason="leave_group", generation=2, **c)]
    assert rebalance_intervals(pause_run(ended)).values.tolist() == [
        ["PreparingRebalance", 1_000, 3_000, 1, "member c-1 joined"],
        ["PreparingRebalance", 8_000, 9_000, 2, "removing member c-1: session_timeout"]]
    assert list(rebalance_intervals(pause_run(rows)).columns) == ["phase", "start", "end", "generation", "reason"]
    assert rebalance_intervals(pause_run(rows)).values.tolist() == [
        ["PreparingRebalance", 1_000, 3_000, 1, "member c-1 joined"],
        ["PreparingRebalance", 8_000, 10_000, 1, "removing member c-1: session_timeout"]]


def test_only_records_returned_to_an_application_that_paused_everything_are_unexpected_points():
    rows = [pause_row(1_000, "RecordsReturned", "c-1", 0, None, 500),
            pause_row(2_000, "RecordsReturned", "c-1", 0, "unexpected_from_buffer", 300),
            pause_row(2_000, "RecordsReturned", "c-1", 1, "unexpected_new_fetch", 200),
            pause_row(2_000, "RecordsDiscarded", "c-1", 2, "not_assigned", 100)]
    assert unexpected_points(pause_run(rows)).values.tolist() == [
        [2_000, "c-1", 0, 300, "buffered"], [2_000, "c-1", 1, 200, "new fetch"]]


def test_the_timeline_tables_are_windowed_in_seconds_with_partitions_named_topic_dash_number():
    """The whole run is [0, 10 s]; a window (0, 2500) cuts at 2.5 s; the owned rows are coloured by member,
    the flags by FLAG; rows are numbered from 0 after the cut."""
    run = pause_run([*OWNED_37[:3], pause_row(1_000, "Paused", "c-1", 1, "application"), *OWNED_37[3:]])
    whole = timeline_frames(run)
    assert whole["owned"].values.tolist() == [
        ["c-1", "orders-0", 0.0, 2.0, "c-1"], ["c-1", "orders-1", 0.0, 3.0, "c-1"],
        ["c-2", "orders-2", 0.0, 10.0, "c-2"], ["c-2", "orders-0", 7.0, 10.0, "c-2"]]
    assert list(whole["owned"].columns) == ["member", "partition", "start_s", "end_s", "color"]
    cut = timeline_frames(run, (0, 2_500))
    assert cut["owned"][["partition", "start_s", "end_s"]].values.tolist() == [
        ["orders-0", 0.0, 2.0], ["orders-1", 0.0, 2.5], ["orders-2", 0.0, 2.5]]
    assert cut["paused"].to_dict("list") == {"member": ["c-1"], "partition": ["orders-1"], "by": ["application"],
                                            "start_s": [1.0], "end_s": [2.5], "color": ["pause flag set"]}
    later = timeline_frames(run, (6_000, 20_000))
    assert list(later["owned"].index) == [0, 1] and later["owned"].start_s.tolist() == [6.0, 7.0]
    with pytest.raises(ValueError, match="start < end inside 0..10000 ms"):
        timeline_frames(run, (5_000, 5_000))


def test_the_timeline_lists_members_by_number_so_consumer_10_comes_after_consumer_9():
    owned = pd.DataFrame({"member": ["consumer-10", "consumer-9", "consumer-10", "consumer-1"]})
    assert _members({"owned": owned}) == ["consumer-1", "consumer-9", "consumer-10"]


def test_the_marks_label_the_applications_pause_its_resume_and_each_change():
    """The mark of the pause says which loop (or the proposal's consumer-level pause); resume is marked only
    when it happens before the end; an unnamed leave is the last member started."""
    def marks(**kw):
        base = dict(remedy="none", app_loop="pause_every_poll", pause_at_ms=1_000, resume_at_ms=9_000,
                    duration_ms=10_000, changes=[(4_000, "join", None), (5_000, "leave", None)])
        return scenario_marks(SimpleNamespace(scenario=SimpleNamespace(**{**base, **kw}))).values.tolist()

    assert marks() == [[1_000, "pause(assignment()) before every poll()", "pause loop"],
                       [9_000, "resume(assignment())", "resume"], [4_000, "a new member joins", "join"],
                       [5_000, "the last member started leaves (LeaveGroup)", "leave"]]
    assert marks(app_loop="pause_once", resume_at_ms=10_000, changes=[])[0] == [1_000, "pause(assignment()) once",
                                                                              "pause once"]
    assert len(marks(resume_at_ms=10_000, changes=[])) == 1
    assert marks(remedy="proposal_consumer_pause", changes=[]) == [
        [1_000, "consumer-level pause() (proposal)", "pause()"], [9_000, "resume(assignment())", "resume"]]


def test_an_explorer_setting_replaces_its_scenario_field_and_a_change_keeps_the_bases_time():
    """scenario_with: the four PauseScenario fields as given; a protocol resets the assignor (cooperative
    needs cooperative-sticky); a change happens at the base's first change time, else 6 s after the pause;
    only "lost" names a member (consumer-1), a join or leave takes the default; max.poll.records is a consumer
    config."""
    base = PauseScenario(assignor="roundrobin", changes=((9_000, "join"),), consumer={"fetch.min.bytes": 2})
    s = pause_scenario_with(base, {"kafka_version": "2.4", "protocol": "cooperative", "remedy": "proposal_keep_pause",
                             "app_loop": "pause_once", "change": "leave", "max.poll.records": 100})
    assert (s.kafka_version, s.protocol, s.assignor, s.remedy, s.app_loop) == (
        "2.4", "cooperative", None, "proposal_keep_pause", "pause_once")
    assert s.changes == ((9_000, "leave", None),)
    assert s.consumer == {"fetch.min.bytes": 2, "max.poll.records": 100}
    assert pause_scenario_with(base, {"change": "lost"}).changes == ((9_000, "lost", "consumer-1"),)
    assert pause_scenario_with(base, {"remedy": "none"}).assignor == "roundrobin"
    assert pause_scenario_with(base.replace(changes=(), pause_at_ms=5_000), {"change": "join"}).changes == (
        (11_000, "join", None),)
    assert pause_current("change", base.replace(changes=())) is None
    assert pause_current("change", base.replace(changes=((9_000, "lost", "consumer-2"),))) == "lost"
    with pytest.raises(ConfigError) as e:
        check_settings(["kafka_version", "colour"])
    assert str(e.value) == ("unknown explorer setting(s) ['colour']; choose from kafka_version, protocol, remedy, "
                            "app_loop, change, max.poll.records")


# -- fetch sizing (KAFKA-1196): what the bars, tooltips and calculator lines say ---------------------
def test_fetch_bytes_read_as_mib_below_one_gib_and_gib_from_it_and_n_a_when_unknown():
    assert (human(GiB - 1), human(GiB), human(None), human(float("nan"))) == (
        "1,024.0 MiB", "1.00 GiB", "n/a", "n/a")


def test_a_blocked_row_says_the_config_before_the_first_colon_and_an_overflow_the_wrapped_size():
    """verdict: overflow first (with the signed 32-bit size field), else the first problem's cause."""
    stuck = {"overflow": False, "ok": False, "size_field": None,
             "message": "fetch.message.max.bytes (1048576) is below the message size (1048577): "
                        "MessageSizeTooLargeException (...)"}
    assert verdict(stuck) == "blocked: fetch.message.max.bytes (1048576) is below the message size (1048577)"
    assert verdict({**stuck, "overflow": True, "size_field": -2**31}) == "OVERFLOW: the 32-bit size wraps to -2,147,483,648"
    assert verdict({**stuck, "ok": True}) == "ok"


def test_the_size_bars_show_the_wire_size_up_to_0_10_0_and_the_bounded_data_from_0_10_1():
    # 360 partitions of 300 MiB, one consumer: 0.8.2 and 0.9 put 360 x (300 MiB + 18) + 19 bytes on the wire
    # (the size wraps); 0.10.1 returns one 300 MiB batch (KIP-74); the tooltip keeps a message's first 300 chars
    rows = sizing_for_message(300 * MiB, partitions=360)
    frame = size_frame(rows)
    wire = 19 + 360 * (18 + 300 * MiB)
    assert frame["bytes"].tolist() == [wire, wire, 300 * MiB, 300 * MiB]
    assert frame.dtypes.astype(str).to_dict() == {
        "version": "object", "client": "object", "bytes": "int64", "text": "object", "overflow": "bool",
        "verdict": "object", "per_request": "int64", "heap_bytes": "int64", "message": "object"}
    assert frame["per_request"].tolist() == [360] * 4 and frame["overflow"].tolist() == [True, True, False, False]
    assert frame["verdict"].tolist()[1] == f"OVERFLOW: the 32-bit size wraps to {wire - 26 * 2**32:,}"
    assert [len(m) for m in frame["message"]] == [300, 300, 27, 27]      # "ok: the response is bounded"
    assert frame["message"][0] == rows["message"][0][:300]


def test_the_calculator_checks_its_grid_and_passes_each_setting_and_version_on():
    grid = {"partitions": [8], "consumers": [2], "message_mib": [1], "leader_brokers": [1, 2]}
    with pytest.raises(ValueError) as err:
        calculator_frames({**grid, "topics": [1]})
    assert str(err.value) == ("the grid needs exactly ['partitions', 'consumers', 'message_mib', 'leader_brokers']; "
                              "unknown ['topics'], missing []")
    sizes, verdicts = calculator_frames(grid, versions=("0.9",), consumers_per_jvm="one")
    assert list(sizes.index) == [0, 1] and list(verdicts["version"]) == ["0.9", "0.9"]
    # 4 partitions per consumer of 1 MiB: one leader, 4 per request; two leaders, 2 per request
    assert sizes["per_request"].tolist() == [4, 2] and sizes["p_leader_brokers"].tolist() == [1, 2]
    # one consumer per JVM: one response per leader, 4 MiB either way; both consumers in one JVM: 8 MiB
    assert verdicts["line"].tolist() == ["0.9: 4.0 MiB per response, ok; fetch memory 4.0 MiB",
                                         "0.9: 2.0 MiB per response, ok; fetch memory 4.0 MiB"]
    _, together = calculator_frames(grid, versions=("0.9",))
    assert together["line"].tolist()[0].endswith("fetch memory 8.0 MiB")


def test_a_mean_count_is_the_time_weighted_number_of_open_intervals_per_bin_to_hundredths():
    """tables.mean_count: over 3 bins of 1000 ms, (0, 1000) and (500, 2000) are open 1000 + 500 ms of
    the first bin (1.5), the second one all of the second bin (1.0), none of the third (0.0); a last
    row at `hi` repeats the last bin. One interval open 1 ms of a 3-ms bin is 1/3: 0.33."""
    from kafkasim.viz.tables import mean_count
    counts = mean_count(pd.DataFrame({"start": [0, 500], "end": [1000, 2000]}), 0, 3000, 3, "members")
    assert counts.to_dict("list") == {"time": [0.0, 1000.0, 2000.0, 3000.0], "members": [1.5, 1.0, 0.0, 0.0]}
    third = mean_count(pd.DataFrame({"start": [1], "end": [2]}), 0, 3, 1, "members")
    assert third["members"].tolist() == [0.33, 0.33]


def test_a_mean_count_of_no_intervals_is_zero_in_every_bin():
    """tables.mean_count with nothing open: the same time rows (bin starts and `hi`), each counting 0."""
    from kafkasim.viz.tables import mean_count
    counts = mean_count(pd.DataFrame({"start": [], "end": []}), 0, 1000, 4, "rebalancing")
    assert counts.to_dict("list") == {"time": [0.0, 250.0, 500.0, 750.0, 1000.0], "rebalancing": [0.0] * 5}


def test_aggregated_ownership_counts_the_partitions_not_consumed_per_bin_and_labels_them():
    # Above max_partitions the chart is the mean number of partitions not consumed in each of 200
    # bins over the span (tables.mean_count, ms in, seconds out). orders-0 is idle 1.5-2.5 s and
    # orders-1 2.0-3.0 s: over (1, 3) s the 10-ms bins count 0, then 1, then 2, then 1, and a last
    # row at 3.0 s repeats the last bin so the step area closes.
    from kafkasim.viz.layers import rebalance_bands, time_x
    from kafkasim.viz.ownership import _aggregate
    gaps = pd.DataFrame({"tp": ["orders-0", "orders-1"], "start_s": [1.5, 2.0], "end_s": [2.5, 3.0]})
    bands = pd.DataFrame({"phase": ["Assigning"], "start_s": [1.2], "end_s": [1.4], "generation": [1],
                          "reason": ["member joined"]})
    # two faults 0.4 s apart: 11-character labels (71.5 px) overlap on a 300-px plot of 2 s (0.4 s = 60 px)
    faults_ = pd.DataFrame({"time_s": [1.5, 1.9], "member": ["c-1", "c-2"],
                            "label": ["c-1 crashed at 1.5 s", "c-2 crashed at 1.9 s"], "short": ["c-1 crashed"] * 2})
    spec = _aggregate(gaps, bands, faults_, 1000, (1.0, 3.0), 300, ("consumer",))
    assert spec["width"] == 300 and spec["height"] == 220 and spec["resolve"] == {"scale": {"color": "independent"}}
    band, area, rule, *texts = spec["layer"]
    assert band == rebalance_bands(bands, (1.0, 3.0), protocols=("consumer",))
    assert band["data"]["values"][0]["phase"] == "Assigning"
    rows = area["data"]["values"]
    expected = [0.0] * 50 + [1.0] * 50 + [2.0] * 50 + [1.0] * 51
    assert [r["time_s"] for r in rows] == [round(1 + i * 0.01, 4) for i in range(201)]
    assert [r["partitions"] for r in rows] == expected
    assert area["mark"] == {"type": "area", "interpolate": "step-after", "color": "#d62728", "opacity": 0.8}
    assert area["encoding"] == {
        "x": time_x("time_s", (1.0, 3.0)),
        "y": {"field": "partitions", "type": "quantitative", "title": "partitions not consumed (of 1000)",
              "scale": {"domainMin": 0}},
        "tooltip": [{"field": "time_s", "type": "quantitative", "title": "from (s)", "format": ".1f"},
                    {"field": "partitions", "type": "quantitative", "title": "not consumed (mean)", "format": ".1f"}]}
    assert rule["mark"]["type"] == "rule" and [r["time_s"] for r in rule["data"]["values"]] == [1.5, 1.9]
    # 150 px per second: the first label starts 2 px right of its line, the second overlaps it so
    # takes the next row
    assert [[r["label_s"] for r in t["data"]["values"]] for t in texts] == [[round(1.5 + 2 / 150, 4)],
                                                                           [round(1.9 + 2 / 150, 4)]]


def test_a_storm_chart_labels_its_runs_and_refuses_none():
    """`_labelled`: one run (it has zk_load) is "run"; a sequence, generator included, is "run 1", "run 2"...
    in its order; a dict keeps its labels; no run at all is refused, whatever the form."""
    from kafkasim.viz.zookeeper_storm import _labelled
    a, b = SimpleNamespace(zk_load=None), SimpleNamespace(zk_load=None)
    assert _labelled(a) == {"run": a}
    assert _labelled(iter([a, b])) == {"run 1": a, "run 2": b}
    assert _labelled({"x": b}) == {"x": b}
    for empty in ({}, [], iter(())):
        with pytest.raises(ValueError) as err:
            _labelled(empty)
        assert str(err.value) == "give at least one run"


def test_a_storm_frame_averages_the_stopped_connectors_per_bucket_and_gives_zookeepers_figures_to_a_tenth():
    """storm_frame: one row per bucket of `bucket_ms` from 0 (1 s unless asked), `rebalancing` the mean number of
    connectors stopped (rebalancing or backing off) over the bucket, to a hundredth: the stopped intervals'
    overlap with the bucket over its length; ZooKeeper's requests/s, reads and writes to a tenth. In 3 ms buckets,
    the five connectors that stop at 10,006 ms are stopped for 2 of the bucket from 10,005 ms: 3.33."""
    from kafkasim.zookeeper.consumer_connector import BACKOFF, REBALANCING
    run = simulate_zookeeper(seed_incident(topics=2, consumers=3, partitions=3, duration_ms=20_000))
    assert storm_frame(run)["time_s"].tolist() == [float(s) for s in range(21)]
    frame = storm_frame(run, 3)
    states = run.member_states()
    stopped = states[states["state"].isin([REBALANCING, BACKOFF])]
    starts = np.arange(len(frame)) * 3
    overlap = (np.minimum(stopped["end"].to_numpy()[:, None], starts + 3)
               - np.maximum(stopped["start"].to_numpy()[:, None], starts)).clip(0)
    assert frame["rebalancing"].tolist() == (overlap.sum(axis=0) / 3).round(2).tolist()
    assert frame["rebalancing"][10_005 // 3] == 3.33
    load = run.zk_load(3)
    for column in ("requests_per_s", "reads", "writes"):
        shown = frame[column].to_numpy()
        assert np.allclose(shown * 10, np.round(shown * 10), rtol=0, atol=1e-6)  # tenths
        assert np.abs(shown - load[column].to_numpy()).max() <= 0.05 + 1e-9


def test_a_storm_charts_series_are_bucketed_as_asked_the_span_is_the_longest_run_and_faults_the_firsts():
    """`_frames`: each run's storm_frame at `bucket_ms` (one row per bucket from 0 to its end), stacked with
    a fresh index and a `run` column; the span ends at the longest run's end (s); the faults, in seconds,
    are those of the first run."""
    from kafkasim.viz.zookeeper_storm import _frames
    short = simulate_zookeeper(seed_incident(topics=2, consumers=3, partitions=3, duration_ms=12_000,
                                             leave_at_ms=4_000))
    long = simulate_zookeeper(seed_incident(topics=2, consumers=3, partitions=3, duration_ms=20_000))
    series, marks, end = _frames({"short": short, "long": long}, 2_000)
    assert end == 20.0
    assert list(series.index) == list(range(7 + 11))
    assert series["run"].tolist() == ["short"] * 7 + ["long"] * 11
    assert series["time_s"].tolist() == [2.0 * i for i in range(7)] + [2.0 * i for i in range(11)]
    assert marks["time_s"].tolist() == [4.0] and marks["short"].tolist() == ["ScaleIn topic-00-1"]



# -- the storm explorer's data (storm_grid_frames): what chapter 07's sliders pick from ---------------
STORM_LABELS = ["connectors in all", "connectors that rebalanced", "ZooKeeper reads", "ZooKeeper writes",
                "until every connector fetches again", "fetching time lost (all connectors)"]
STORM_KEYS = ["p_group_id_naming", "p_topics", "p_consumers_per_topic", "p_zookeeper_capacity"]


def _storm_shown(summary: dict) -> list[str]:
    """The key numbers as the explorer's table shows them: counts grouped by thousands, the time until
    stable in seconds to a tenth ("still rebalancing" when a rebalance is still running at the end),
    the fetching time lost in whole seconds."""
    stable = summary["time_until_stable_ms"]
    return [f"{summary['consumers']:,}", f"{summary['consumers_rebalanced']:,}", f"{summary['zk_reads']:,}",
            f"{summary['zk_writes']:,}",
            "still rebalancing" if stable is None else f"{round(stable / 1000, 1):,} s",
            f"{round(summary['consumer_downtime_ms'] / 1000):,} s"]


def _storm_point(frame: pd.DataFrame, **keys) -> pd.DataFrame:
    """The rows of one grid point, keyed by the settings' column names (sliders.column)."""
    rows = frame
    for column, value in keys.items():
        rows = rows[rows[column] == value]
    return rows


def test_the_storm_grid_fills_the_settings_it_does_not_vary_with_the_seed_incidents():
    """Settings missing from the grid take the seed incident's: one group name, 10 topics, unlimited
    ZooKeeper; and bucket_ms=2000, duration_ms=100_000, leave_at_ms=10_000, seed=1 by default."""
    series, numbers = storm_grid_frames({"consumers per topic": [3]})
    run = simulate_zookeeper(seed_incident(False, topics=10, consumers=3, partitions=3, leave_at_ms=10_000,
                                           duration_ms=100_000, seed=1))
    for frame in (series, numbers):
        assert {c: frame[c].unique().tolist() for c in STORM_KEYS} == {
            "p_group_id_naming": ["one group name"], "p_topics": [10], "p_consumers_per_topic": [3],
            "p_zookeeper_capacity": [0]}
    # one row per 2 s bucket from 0 to the end at 100 s, both included (zk_load)
    assert series["time_s"].tolist() == [2.0 * i for i in range(51)]
    direct = storm_frame(run, 2000)
    for column in ("rebalancing", "requests_per_s"):
        assert series[column].tolist() == direct[column].tolist()
    # 10 topics x 3 connectors, all in "main": every one but the leaver rebalances
    shown = numbers["value"].tolist()
    assert shown[:2] == ["30", "29"]
    assert shown == _storm_shown(run.summary)
    assert "," in shown[2]  # the herd's reads pass a thousand here: grouped


def test_each_storm_grid_point_is_one_seed_incident_run_with_its_settings():
    """One row set per grid point, its settings in columns named by sliders.column; the run is the seed
    incident with those settings (a group per topic, zk_ops_per_s from the capacity, partitions = consumers)
    and the bucket, duration, leave time and seed given. Both frames are stacked with a fresh index."""
    namings, capacities = ["one group name", "a group per topic"], [0, 20]
    series, numbers = storm_grid_frames({"group.id naming": namings, "topics": [2], "consumers per topic": [3],
                                         "zookeeper capacity": capacities},
                                        bucket_ms=4_000, duration_ms=20_000, leave_at_ms=4_000, seed=2)
    assert set(series.columns) == {"time_s", "rebalancing", "requests_per_s", *STORM_KEYS}
    assert set(numbers.columns) == {"order", "label", "value", *STORM_KEYS}
    points = [(n, c) for n in namings for c in capacities]
    assert len(series) == len(points) * 6 and len(numbers) == len(points) * 6  # buckets 0, 4, ..., 20 s
    assert list(series.index) == list(range(len(series))) and list(numbers.index) == list(range(len(numbers)))
    shown = set()
    for naming, capacity in points:
        run = simulate_zookeeper(seed_incident(naming == "a group per topic", topics=2, consumers=3, partitions=3,
                                               leave_at_ms=4_000, duration_ms=20_000,
                                               zk_ops_per_s=capacity or None, seed=2))
        keys = {"p_group_id_naming": naming, "p_topics": 2, "p_consumers_per_topic": 3,
                "p_zookeeper_capacity": capacity}
        rows = _storm_point(series, **keys)
        direct = storm_frame(run, 4_000)
        assert rows["time_s"].tolist() == [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]
        for column in ("rebalancing", "requests_per_s"):
            assert rows[column].tolist() == direct[column].tolist()
        table = _storm_point(numbers, **keys)
        assert table["order"].tolist() == list(range(6)) and table["label"].tolist() == STORM_LABELS
        assert table["value"].tolist() == _storm_shown(run.summary)
        shown.add(tuple(table["value"]))
    assert len(shown) == len(points)  # each setting changes what the reader sees


def test_storm_key_numbers_say_still_rebalancing_when_never_stable_and_lost_time_in_whole_seconds():
    """A ZooKeeper serving one request a second cannot answer 19 connectors' rebalances within the 90 s
    after the leave: no time until stable, "still rebalancing". The fetching time lost is in whole
    seconds (some 950 s here: a tenth of a percent off, 1 ms in 1,001, shows as 949). The storm runs to the
    default end, 100 s: connectors still stopped then count in the last bucket only up to it, and stop
    from the default leave, 10 s, on (a millisecond later or earlier changes a bucket's mean)."""
    series, numbers = storm_grid_frames({"consumers per topic": [2], "zookeeper capacity": [1]})
    run = simulate_zookeeper(seed_incident(topics=10, consumers=2, partitions=2, leave_at_ms=10_000,
                                           duration_ms=100_000, zk_ops_per_s=1, seed=1))
    assert run.summary["time_until_stable_ms"] is None
    assert series["rebalancing"].tolist() == storm_frame(run, 2000)["rebalancing"].tolist()
    assert numbers["value"].tolist() == _storm_shown(run.summary)
    assert numbers["value"].tolist()[4] == "still rebalancing"


def test_storm_time_until_stable_is_in_seconds_to_a_tenth():
    """The time until every connector fetches again is in seconds to a tenth (3 topics x 4 connectors in
    one group name, ZooKeeper at 100 requests/s, the leaver at 4 s: some 3.35 s, where a divisor 1 ms
    off would round the other way)."""
    _, numbers = storm_grid_frames({"topics": [3], "consumers per topic": [4], "zookeeper capacity": [100]},
                                   duration_ms=30_000, leave_at_ms=4_000)
    run = simulate_zookeeper(seed_incident(topics=3, consumers=4, partitions=4, duration_ms=30_000,
                                           leave_at_ms=4_000, zk_ops_per_s=100))
    assert run.summary["time_until_stable_ms"] is not None
    assert numbers["value"].tolist() == _storm_shown(run.summary)


def test_an_unknown_storm_setting_is_refused_naming_the_settings_there_are():
    with pytest.raises(ValueError) as err:
        storm_grid_frames({"session.timeout.ms": [1], "topics": [2]})
    assert str(err.value) == ("unknown settings ['session.timeout.ms']; choose from ['group.id naming', 'topics', "
                              "'consumers per topic', 'zookeeper capacity']")


def _ownership_run(owners: list[tuple], states: list[tuple], partitions: int = 2):
    """A run with topic "t" of `partitions`, these (partition, member, start, end) and (member, state, start, end)."""
    own = pd.DataFrame(owners, columns=["partition", "member", "start", "end"]).assign(topic="t")
    return SimpleNamespace(scenario=SimpleNamespace(topics={"t": partitions}),
                           partition_owners=lambda: own,
                           member_states=lambda: pd.DataFrame(states, columns=["member", "state", "start", "end"]))


def test_an_owner_and_a_member_count_from_their_start_up_to_not_including_their_end():
    """`owners_at`/`members_at`: an interval holds at its start instant and no longer at its end one;
    a member "stopped" (crashed or closed) is no member."""
    from kafkasim.viz.assignment import members_at, owners_at
    run = _ownership_run([(0, "c-1", 0, 100), (0, "c-2", 100, 200), (1, "c-2", 50, 200)],
                         [("c-1", "stable", 0, 100), ("c-1", "stopped", 100, 200), ("c-2", "joining", 50, 200)])
    assert owners_at(run, 50).to_dict("list") == {"tp": ["t-0", "t-1"], "member": ["c-1", "c-2"]}
    assert owners_at(run, 49)["member"].tolist() == ["c-1", None]
    assert owners_at(run, 100)["member"].tolist() == ["c-2", "c-2"]
    assert owners_at(run, 200)["member"].tolist() == [None, None]
    assert members_at(run, 49) == ["c-1"] and members_at(run, 50) == ["c-1", "c-2"]
    assert members_at(run, 99) == ["c-1", "c-2"] and members_at(run, 100) == ["c-2"]


def test_of_overlapping_owners_the_one_that_started_last_and_of_a_tie_the_later_row_is_shown():
    """`owners_at`: 17 owners overlap on t-0 (zombies), started at 0 or 5 ms: at 50 ms the last row of
    those started at 5 ms owns it (c-13), whatever sort puts first among equal starts."""
    from kafkasim.viz.assignment import owners_at
    starts = [5, 5, 0, 5, 0, 5, 0, 0, 5, 5, 5, 0, 5, 5, 0, 0, 0]
    run = _ownership_run([(0, f"c-{i}", s, 100) for i, s in enumerate(starts)], [], partitions=1)
    assert owners_at(run, 50)["member"].tolist() == ["c-13"]


def test_a_snapshot_stacks_its_instants_and_counts_a_group_without_members_as_zero():
    """`snapshot_frames`: one cell per partition and instant, stacked with a fresh index, "moved" where
    the owner differs from the first instant's; at a last instant with no member running, fewest and
    most partitions per member are 0 (not an error)."""
    from kafkasim.viz.assignment import snapshot_frames
    run = _ownership_run([(0, "c-1", 0, 100), (1, "c-1", 0, 50), (1, "c-2", 50, 100)],
                         [("c-1", "stable", 0, 100), ("c-2", "stable", 50, 100), ("c-1", "stopped", 100, 200),
                          ("c-2", "stopped", 100, 200), ("c-3", "stable", 55, 100)])
    cells, counts = snapshot_frames(run, {"start": 10, "later": 60, "after": 150})
    assert list(cells.index) == list(range(6))
    assert cells["member"].tolist() == ["c-1", "c-1", "c-1", "c-2", None, None]
    assert cells["moved"].tolist() == [False, False, False, True, False, False]
    assert counts == {"moved": 0, "idle": 0, "members": 0, "fewest": 0, "most": 0, "unowned": 2}
    _, counts = snapshot_frames(run, {"start": 10, "later": 60})
    # c-3 runs but owns nothing: an idle member, the fewest partitions 0
    assert counts == {"moved": 1, "idle": 1, "members": 3, "fewest": 0, "most": 1, "unowned": 0}


def test_fewest_and_most_partitions_per_member_are_the_smallest_and_largest_member_loads():
    """`snapshot_frames`' counts at the last instant: c-1 owns t-0 and t-1, c-2 owns t-2 (no member idle)."""
    from kafkasim.viz.assignment import snapshot_frames
    run = _ownership_run([(0, "c-1", 0, 100), (1, "c-1", 0, 100), (2, "c-2", 0, 100)],
                         [("c-1", "stable", 0, 100), ("c-2", "stable", 0, 100)], partitions=3)
    _, counts = snapshot_frames(run, {"only": 50})
    assert counts == {"moved": 0, "idle": 0, "members": 2, "fewest": 1, "most": 2, "unowned": 0}


# -- the KIP-848 sequence diagram's rows (protocol.ConsumerHeartbeats): labels, ok_heartbeat, details, notes --
# One run, worked out from KIP-848: c-1 alone owns t-0 and t-1 (group epoch 1, heartbeats every 5 s from 34 ms);
# c-2 joins at 10 s (epoch 0; group epoch 2), gets t-1 only once c-1 revoked it (c-1 reconciles at its 10 034 ms
# heartbeat and acknowledges at once; c-2 is told at its 15 s heartbeat), and leaves at 20 s (epoch -1; group
# epoch 3), the new target being computed at c-1's next heartbeat (20 034 ms), which hands c-1 t-1 back.
KIP848 = dict(kafka_version="4.0", consumer={"group.protocol": "consumer"}, topics={"t": 2})


@functools.cache
def _kip848_scaled():
    return simulate(Scenario(members=1, duration_ms=25_000, **KIP848,
                             faults=[faults.ScaleOut(at_ms=10_000, count=1), faults.ScaleIn(20_000, ("c-2",))]))


@functools.cache
def _kip848_static_leave():
    """Static c-2 closes at 10 s (a graceful Restart): it leaves with epoch -2, keeping its place (KIP-345)."""
    return simulate(Scenario(members=2, duration_ms=10_020, static_membership=True, **KIP848,
                             faults=[faults.Restart("c-2", 10_000, delay_ms=5_000, graceful=True)]))


def _kip848_rows(run, kind: str, *columns: str) -> list[list]:
    frame = messages(run)
    return frame.loc[frame["kind"] == kind, ["time", "member", *columns]].values.tolist()


def test_a_consumer_heartbeat_label_gives_the_epoch_it_sent_and_whether_it_joins_leaves_or_acknowledges():
    # 0 join, -1 leave, -2 static leave; "ack" for the heartbeat right after a reconciliation; nothing else.
    hb = "ConsumerGroupHeartbeat epoch"
    assert _kip848_rows(_kip848_scaled(), "request", "label") == [
        [34, "c-1", f"{hb} 0 (join)"], [34, "c-1", f"{hb} 1 (ack)"], [5_034, "c-1", f"{hb} 1"],
        [10_000, "c-2", f"{hb} 0 (join)"], [10_000, "c-2", f"{hb} 2 (ack)"],  # it assigned nothing yet, still acks
        [10_034, "c-1", f"{hb} 1"], [10_034, "c-1", f"{hb} 1 (ack)"],  # revoked t-1 at epoch 1, then acks
        [15_000, "c-2", f"{hb} 2"], [15_000, "c-2", f"{hb} 2 (ack)"], [15_034, "c-1", f"{hb} 2"],
        [20_000, "c-2", f"{hb} 2"], [20_000, "c-2", f"{hb} -1 (leave)"],
        [20_034, "c-1", f"{hb} 2"], [20_034, "c-1", f"{hb} 3 (ack)"]]
    static = _kip848_static_leave()
    assert [r for r in _kip848_rows(static, "request", "label") if r[0] >= 10_000] == [
        [10_009, "c-2", f"{hb} 2"], [10_009, "c-2", f"{hb} -2 (static leave)"]]


def test_only_a_consumer_heartbeat_that_succeeded_changed_nothing_and_acknowledges_nothing_is_an_ok_heartbeat():
    # heartbeats="errors" thins out exactly these: a join, a leave, an ack, a heartbeat whose reply is drawn
    # (it changed the member's epoch, state or assignment), a failed one, every reply and error stay.
    run = _kip848_scaled()
    assert _kip848_rows(run, "request", "ok_heartbeat") == [
        [34, "c-1", False], [34, "c-1", False], [5_034, "c-1", True],
        [10_000, "c-2", False], [10_000, "c-2", False],
        [10_034, "c-1", False],  # its reply is drawn (UNREVOKED_PARTITIONS, new assignment)
        [10_034, "c-1", False], [15_000, "c-2", False], [15_000, "c-2", False], [15_034, "c-1", True],
        [20_000, "c-2", True], [20_000, "c-2", False], [20_034, "c-1", False], [20_034, "c-1", False]]
    assert {flag for _, _, flag in _kip848_rows(run, "reply", "ok_heartbeat")} == {False}
    # c-2's network is cut for longer than the 45 s session: removed at 50 009 ms (its last heartbeat at
    # 5 009 ms + 45 s), its first heartbeat after the cut, at its epoch 2, is answered UNKNOWN_MEMBER_ID.
    fenced = simulate(Scenario(members=2, duration_ms=61_000, **KIP848,
                               faults=[faults.NetworkCut("c-2", 10_000, duration_ms=50_000)]))
    assert _kip848_rows(fenced, "error", "label", "ok_heartbeat") == [
        [60_509, "c-2", "ConsumerGroupHeartbeat: UNKNOWN_MEMBER_ID (25)", False]]
    assert [r for r in _kip848_rows(fenced, "request", "label", "ok_heartbeat") if r[0] == 60_509] == [
        [60_509, "c-2", "ConsumerGroupHeartbeat epoch 2", False]]


def test_a_consumer_heartbeat_detail_names_the_member_id_its_epoch_and_the_group_epoch():
    run = _kip848_scaled()
    (c2,) = {r[3] for r in run.rows if r[4] == "ConsumerGroupHeartbeat" and r[0] == 10_000}  # its member id
    details = [r for r in _kip848_rows(run, "request", "detail") if r[1] == "c-2"]
    assert [d for _, _, d in details] == [
        f"member id {c2}, member epoch 0, group epoch 2", f"member id {c2}, member epoch 2, group epoch 2",
        f"member id {c2}, member epoch 2, group epoch 2", f"member id {c2}, member epoch 2, group epoch 2",
        f"member id {c2}, member epoch 2, group epoch 2", f"member id {c2}, member epoch -1, group epoch 3"]


def test_a_coordinator_note_says_what_it_decided_and_gives_its_reason_as_detail():
    # The group epoch bump (its reason), the target assignment (the assignor; members whose target changed:
    # c-1 loses t-1 and c-2 gets it, 2; after c-2 left only c-1, 1), the group state (the old one).
    notes = [r for r in _kip848_rows(_kip848_scaled(), "coordinator note", "label", "detail") if r[0] >= 10_000]
    assert notes == [
        [10_000, "coordinator", "group epoch 2 (member_joined)", "member_joined"],
        [10_000, "coordinator", "target assignment, epoch 2 (uniform, 2 changed)", "uniform"],
        [10_000, "coordinator", "group Stable → Reconciling", "Stable"],
        [15_000, "coordinator", "group Reconciling → Stable", "Reconciling"],
        [20_000, "coordinator", "removes c-2: leave_group", "leave_group"],
        [20_000, "coordinator", "group epoch 3 (member_removed)", "member_removed"],
        [20_000, "coordinator", "group Stable → Assigning", "Stable"],
        [20_034, "coordinator", "target assignment, epoch 3 (uniform, 1 changed)", "uniform"],
        [20_034, "coordinator", "group Assigning → Stable", "Assigning"]]
    static = _kip848_static_leave()
    # A static member's leave (epoch -2) has no reason: an empty detail.
    assert [r for r in _kip848_rows(static, "coordinator note", "label", "detail") if r[0] == 10_009][0] == [
        10_009, "coordinator", "c-2: left temporarily (static member, epoch -2)", ""]


def test_a_classic_coordinators_membership_notes_are_its_event_and_the_consumer_it_names():
    """protocol._coordinator_note: a group left with no member (GroupEmpty), a static member's new member id
    replacing its old one (MemberReplaced, the old id as the detail) and a pending member id expiring
    (PendingMemberExpired: a JoinGroup answered MEMBER_ID_REQUIRED that never came back, KIP-394) are drawn as
    the event's name and the consumer it names."""
    empty = simulate(Scenario(members=2, topics={"t": 2}, duration_ms=40_000, start_spread_ms=0,
                              faults=[faults.ScaleIn(at_ms=20_000, members=("c-1", "c-2"))]))
    assert _kip848_rows(empty, "coordinator note", "label", "detail")[-1] == [20_000, "coordinator", "GroupEmpty", ""]
    static = simulate(Scenario(kafka_version="2.4", members=2, topics={"t": 2}, duration_ms=40_000, start_spread_ms=0,
                               static_membership=True, faults=[faults.Restart("c-1", 20_000, 5_000)]))
    first_id = next(r[MEMBER] for r in static.rows if r[KIND] == "MemberAdded" and r[MEMBER].startswith("c-1-"))
    assert [r for r in _kip848_rows(static, "coordinator note", "label", "detail") if r[0] >= 20_000] == [
        [25_000, "coordinator", "MemberReplaced c-1", first_id]]
    pending = next(r for r in rows_between(empty, 0, 0) if r[KIND] == "PendingMemberAdded")
    expired = pending[:KIND] + ("PendingMemberExpired",) + pending[KIND + 1:]
    assert _coordinator_note(empty, expired) == "PendingMemberExpired c-1"


def test_a_sequence_diagrams_layout_draws_requests_to_the_coordinator_replies_back_and_notes_on_their_lane():
    """protocol.layout: a request is a solid arrow from its member's lane to the coordinator's (x 0) with its head
    at the coordinator; a reply or an error a dashed one back; a note no arrow, on its lane. The label starts at
    the arrow's left end; the time (s, to the ms) is written once per instant, left of the lanes."""
    frame = pd.DataFrame([(0, "c-1", "request", "JoinGroup", "a", False),
                          (0, "c-1", "reply", "JoinGroup response", "b", False),
                          (1_500, "c-2", "error", "Heartbeat: REBALANCE_IN_PROGRESS (27)", "c", False),
                          (1_500, "c-2", "member note", "crashes", "", False)], columns=COLUMNS)
    out = layout(frame, {"coordinator": 0, "c-1": 1, "c-2": 2})
    columns = ["row", "time_s", "arrow", "x", "x2", "dashed", "head", "label_x", "new_time", "time_label", "time_x"]
    assert [tuple(r) for r in out[columns].itertuples(index=False)] == [
        (0, 0.0, True, 1, 0, False, "left", 0, True, "0.000 s", -0.25),
        (1, 0.0, True, 0, 1, True, "right", 0, False, "0.000 s", -0.25),
        (2, 1.5, True, 0, 2, True, "right", 0, True, "1.500 s", -0.25),
        (3, 1.5, False, 2, 2, False, "right", 2, False, "1.500 s", -0.25)]
    assert out[["member", "kind", "label", "detail"]].equals(frame[["member", "kind", "label", "detail"]])


def test_a_classic_sequence_diagram_has_each_request_its_answer_or_error_and_the_notes_in_log_order():
    """protocol._classic_messages, by hand from the classic protocol (2.4): both consumers start; each first
    JoinGroup, named by the shared client.id, is answered MEMBER_ID_REQUIRED (KIP-394) and sent again with its id;
    the initial rebalance ends at 6 s with the JoinGroup and SyncGroup answers; c-2's close is a LeaveGroup with
    its reason, and c-1 rejoins at its next heartbeat (2 s later). Heartbeats left out."""
    run = simulate(Scenario(kafka_version="2.4", members=2, topics={"t": 2}, duration_ms=20_000, start_spread_ms=0,
                            faults=[faults.ScaleIn(at_ms=10_000, members=("c-2",))]))
    frame = messages(run)
    frame = frame[~frame["label"].str.startswith("Heartbeat")]
    rebalance = ("coordinator", "coordinator note")
    assert [(t, m, k, label if k != "coordinator note" or not label.startswith("rebalance: ") else "rebalance")
            for t, m, k, label in frame[["time", "member", "kind", "label"]].itertuples(index=False)] == [
        (0, "c-1", "member note", "starts"), (0, "c-2", "member note", "starts"),
        (0, "c-1", "request", "JoinGroup"), (0, "c-1", "error", "JoinGroup: MEMBER_ID_REQUIRED (79)"),
        (0, "c-2", "request", "JoinGroup"), (0, "c-2", "error", "JoinGroup: MEMBER_ID_REQUIRED (79)"),
        (0, "c-1", "request", "JoinGroup"), (0, *rebalance, "rebalance"), (0, "c-2", "request", "JoinGroup"),
        (6_000, *rebalance, "generation 1: 2 members, leader c-1, assignor range"),
        (6_000, "c-1", "reply", "JoinGroup response"), (6_000, "c-2", "reply", "JoinGroup response"),
        (6_000, "c-1", "request", "SyncGroup"), (6_000, "c-1", "reply", "SyncGroup response"),
        (6_000, *rebalance, "Stable, generation 1"),
        (6_000, "c-2", "request", "SyncGroup"), (6_000, "c-2", "reply", "SyncGroup response"),
        (10_000, "c-2", "request", "LeaveGroup"), (10_000, *rebalance, "removes c-2: leave_group"),
        (10_000, *rebalance, "rebalance"), (10_000, "c-2", "member note", "closes"),
        (12_000, "c-1", "request", "JoinGroup"), (12_000, *rebalance, "generation 2: 1 members, leader c-1, assignor range"),
        (12_000, "c-1", "reply", "JoinGroup response"), (12_000, "c-1", "request", "SyncGroup"),
        (12_000, "c-1", "reply", "SyncGroup response"), (12_000, *rebalance, "Stable, generation 2")]
    c2 = next(r[MEMBER] for r in run.rows if r[KIND] == "MemberAdded" and run.member_names.get(r[MEMBER]) == "c-2")
    leave, removal = frame[frame["time"] == 10_000]["detail"].iloc[:3:2]
    assert leave == f"member id {c2}, generation 1; reason: the consumer is being closed"
    assert removal == f"removing member {c2} on LeaveGroup"
    assert set(frame.loc[frame["kind"] == "member note", "detail"]) == {""}


@pytest.mark.parametrize("error, shown", [(None, ""), ("", ""), ("NONE", ""),
                                          ("REBALANCE_IN_PROGRESS", "REBALANCE_IN_PROGRESS (27)"),
                                          ("NOT_A_KAFKA_ERROR", "NOT_A_KAFKA_ERROR")])
def test_a_sequence_diagrams_error_is_its_name_and_kafka_code_and_none_is_no_error(error, shown):
    assert _error(error) == shown

# -- the KIP-848 sequence diagram's notes and callbacks (protocol.ConsumerHeartbeats): member notes, a member's
# epoch changed outside its own heartbeat, the "changed" count of a target, the callbacks' labels and details --
def test_a_consumer_groups_member_notes_are_on_the_members_lane_with_no_detail_and_never_thinned():
    # c-1 starts at 34 ms, c-2 at 10 s (ScaleOut) and closes at 20 s (ScaleIn); heartbeats="errors" drops
    # ok_heartbeat rows only, so a note must not be one.
    assert _kip848_rows(_kip848_scaled(), "member note", "label", "detail", "ok_heartbeat") == [
        [34, "c-1", "starts", "", False], [10_000, "c-2", "starts", "", False], [20_000, "c-2", "closes", "", False]]


def test_a_members_epoch_or_state_changed_outside_its_own_consumer_heartbeat_is_a_coordinator_note():
    # KIP-848's online downgrade: c-2 (first to join, 9 ms; closes after its batch at 10 009 ms, c-1 then owns
    # t-0 and t-1 at epoch 3) comes back at 11 s as a classic consumer. Its JoinGroup, answered by the consumer
    # group (GroupMetadataManager.classicGroupJoinToConsumerGroup), bumps the group epoch to 4, computes a
    # target that moves t-1 from c-1 to c-2 (2 changed) and reconciles c-2 at once: epoch 4,
    # UNRELEASED_PARTITIONS (c-1 still owns t-1). No ConsumerGroupHeartbeat of c-2 carries that, so the
    # coordinator says it. c-1 revokes t-1 at its 15 034 ms heartbeat; c-2's classic heartbeat at 17 s (every
    # 3 s from 11 s; at 14 s t-1 was not released yet) gets REBALANCE_IN_PROGRESS, and its rejoin's JoinGroup
    # moves it to STABLE at the same epoch (MemberStateChanged).
    run = simulate(Scenario(members=2, duration_ms=18_000, **KIP848, faults=[
        faults.Restart("c-2", 10_000, delay_ms=1_000, graceful=True, consumer={"group.protocol": "classic"})]))
    assert [r for r in _kip848_rows(run, "coordinator note", "label", "detail") if r[0] >= 11_000] == [
        [11_000, "coordinator", "group epoch 4 (member_joined)", "member_joined"],
        [11_000, "coordinator", "target assignment, epoch 4 (uniform, 2 changed)", "uniform"],
        [11_000, "coordinator", "c-2: epoch 4, UNRELEASED_PARTITIONS", "UNRELEASED_PARTITIONS"],
        [11_000, "coordinator", "group Stable → Reconciling", "Stable"],
        [17_000, "coordinator", "c-2: epoch 4, STABLE", "STABLE"],
        [17_000, "coordinator", "group Reconciling → Stable", "Reconciling"]]


def test_a_target_assignment_note_counts_the_members_whose_target_changed_none_when_an_idle_member_leaves():
    # 3 members, 2 partitions: c-3, the last to join (871 ms), gets nothing. It leaves at 10 s (group epoch 4);
    # c-2's next heartbeat (10 009 ms) computes the target, and the uniform assignor, sticky, moves nothing:
    # 0 changed. The group reconciles until c-1 heartbeats at epoch 4 (10 034 ms).
    run = simulate(Scenario(members=3, duration_ms=10_100, **{**KIP848, "topics": {"t": 2}},
                            faults=[faults.ScaleIn(10_000, ("c-3",))]))
    assert [r for r in _kip848_rows(run, "coordinator note", "label") if r[0] >= 10_000] == [
        [10_000, "coordinator", "removes c-3: leave_group"], [10_000, "coordinator", "group epoch 4 (member_removed)"],
        [10_000, "coordinator", "group Stable → Assigning"],
        [10_009, "coordinator", "target assignment, epoch 4 (uniform, 0 changed)"],
        [10_009, "coordinator", "group Assigning → Reconciling"],
        [10_034, "coordinator", "group Reconciling → Stable"]]


def test_a_callback_note_is_one_row_per_callback_on_the_members_lane_never_thinned():
    # What each member's ConsumerRebalanceListener was called with; the KIP-848 consumer calls
    # onPartitionsAssigned even with nothing new (c-2 joining while t-1 is unreleased, c-1 after revoking).
    assign, revoke = "onPartitionsAssigned", "onPartitionsRevoked"
    rows = _kip848_rows(_kip848_scaled(), "callback", "label", "detail", "ok_heartbeat")
    assert rows == [[t, m, f"{name}: {what}", f"{name}: {what}", False] for t, m, name, what in [
        (34, "c-1", assign, "t-0, t-1"), (10_000, "c-2", assign, "none"), (10_034, "c-1", revoke, "t-1"),
        (10_034, "c-1", assign, "none"), (15_000, "c-2", assign, "t-1"), (20_000, "c-2", revoke, "t-1"),
        (20_034, "c-1", assign, "t-1")]]


def _alone_with(topic: str, partitions: int) -> list[list]:
    """c-1 alone in a consumer group: at its join (34 ms) it is assigned every partition of `topic`."""
    run = simulate(Scenario(members=1, duration_ms=100, **{**KIP848, "topics": {topic: partitions}}))
    return _kip848_rows(run, "callback", "label", "detail")


def test_a_callback_label_names_six_partitions_and_counts_the_others_as_more():
    six = ", ".join(f"t-{p}" for p in range(6))  # the consumer's callback gets them sorted (topic, partition)
    assert _alone_with("t", 6) == [[34, "c-1", f"onPartitionsAssigned: {six}", f"onPartitionsAssigned: {six}"]]
    assert _alone_with("t", 7) == [[34, "c-1", f"onPartitionsAssigned: {six} +1 more",
                                    f"onPartitionsAssigned: {six}, t-6"]]


def test_a_callback_detail_names_every_partition_cut_at_400_characters():
    # A tooltip, not the diagram: it may name more, but not without bound. 12 partitions of a 38-character
    # topic: 22 + 10 x 40 + 2 x 41 (partitions 10, 11) + 11 x 2 = 526 characters, cut to 399 and an ellipsis.
    topic = "payments.eu-west-1.card-authorisations"
    names = [f"{topic}-{p}" for p in range(12)]
    full = f"onPartitionsAssigned: {', '.join(names)}"
    assert len(full) == 526
    assert _alone_with(topic, 12) == [[34, "c-1", f"onPartitionsAssigned: {', '.join(names[:6])} +6 more",
                                       full[:399] + "…"]]


# -- which members a sequence diagram draws (protocol._pick_members) and a member id's consumer name --------------
_UUID = "0b7e6a1c-1f0e-4c7e-9a43-2f1d2b3c4d5e"


@dataclasses.dataclass(eq=False)  # hashable by identity, as the tables' per-run cache needs
class _LaneRun:
    rows: list
    end_ms: int = 10_000
    scenario: SimpleNamespace = dataclasses.field(default_factory=lambda: SimpleNamespace(group_id="g"))
    member_names: dict = dataclasses.field(default_factory=dict)
    client_names: dict = dataclasses.field(default_factory=dict)


def _lanes_story():
    """Seven members, each drawn by what it did: c-1 and c-4 only heartbeat (the rest), c-2 and c-3 get an error
    reply (erred), c-5 has a member note, c-6 is removed (its MemberRemoved names its member id, UUID and all),
    c-7 has a note and an error reply. The coordinator's own rows are no member's."""
    ok, err = "Heartbeat response", "Heartbeat: REBALANCE_IN_PROGRESS"
    messages = [(t, m, kind, label, "", False) for t, m, kind, label in [
        (0, "c-1", "request", "Heartbeat"), (0, "c-1", "reply", ok), (0, "c-2", "request", "Heartbeat"),
        (0, "c-2", "error", err), (0, "c-3", "error", err), (0, "c-4", "request", "Heartbeat"),
        (0, "c-5", "member note", "paused 20 s"), (0, "c-6", "request", "Heartbeat"),
        (0, "coordinator", "coordinator note", "removes c-6: session timeout"),
        (0, "c-7", "member note", "paused 20 s"), (0, "c-7", "error", err)]]
    removed = (0, "coordinator", "g", f"c-6-{_UUID}", "MemberRemoved", 1, None, None, None, "session timeout", None,
               None)
    return pd.DataFrame(messages, columns=COLUMNS), _LaneRun(rows=[removed])


def test_a_sequence_diagram_draws_every_member_when_they_are_at_most_max_members_in_member_order():
    """`sequence_diagram`: "up to max_members": 7 members and max_members 7 (or more) draw all 7."""
    from kafkasim.viz.protocol import _pick_members
    frame, run = _lanes_story()
    everyone = ["c-1", "c-2", "c-3", "c-4", "c-5", "c-6", "c-7"]
    assert _pick_members(frame, run, 7) == everyone
    assert _pick_members(frame, run, 8) == everyone


def test_a_sequence_diagram_over_max_members_draws_noted_or_removed_then_erred_then_the_rest_in_member_order():
    """`_pick_members`: removed ones and those a fault hit (a member note) first, then those with error replies,
    then the rest, each group in natural order; the chosen drawn in member order. c-7, noted and erred, ranks as
    noted: at 3 lanes it is drawn, not c-2 or c-3."""
    from kafkasim.viz.protocol import _pick_members
    frame, run = _lanes_story()
    assert _pick_members(frame, run, 6) == ["c-1", "c-2", "c-3", "c-5", "c-6", "c-7"]  # c-4, the last of the rest
    assert _pick_members(frame, run, 4) == ["c-2", "c-5", "c-6", "c-7"]  # then c-2, the first erred
    assert _pick_members(frame, run, 3) == ["c-5", "c-6", "c-7"]
    assert _pick_members(frame, run, 2) == ["c-5", "c-6"]
    assert _pick_members(frame, run, 1) == ["c-5"]


def test_a_consumer_name_strips_the_uuid_suffix_and_gives_no_id_back_as_it_is():
    """`consumer_name`: "c-1-<uuid>" -> "c-1"; a name without one unchanged; a row with no member (None) or an
    empty id (a first JoinGroup's) is given back as it is."""
    from kafkasim.viz.tables import consumer_name
    assert consumer_name(f"c-1-{_UUID}") == "c-1" and consumer_name("c-10") == "c-10"
    assert consumer_name(None) is None
    assert consumer_name("") == ""
