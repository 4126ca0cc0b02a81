"""kafkasim.viz.widgets.Explorer, headless: controls are set from code, as a reader would move them,
and the run, the charts and the messages must follow."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from kafkasim import Scenario, faults
from kafkasim.core.errors import ConfigError
from kafkasim.viz.widgets import Explorer

BASE = Scenario(duration_ms=90_000, faults=[faults.Pause("c-2", 20_000, duration_ms=20_000)])
ALL = ["session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "max.poll.records",
       "processing.median.ms", "processing.p99.ms", "members", "partitions", "partition.assignment.strategy",
       "rebalance.protocol", "static.membership", "kafka.version", "fault", "fault.at.ms", "fault.duration.ms",
       "fault.member"]


def explorer(**kw) -> Explorer:
    return Explorer(kw.pop("base", BASE), kw.pop("controls", ALL), debounce_ms=0, **kw)


def spec_text(e: Explorer) -> str:
    return json.dumps(e.specs, default=list)


def test_first_draw_shows_charts_and_key_numbers():
    e = explorer()
    assert e.run is not None and e.run.scenario == BASE  # nothing touched: the base scenario itself
    assert len(e.output.outputs) == 2 and all(o["output_type"] == "display_data" for o in e.output.outputs)
    assert "rebalances" in e.summary.value and e.error.value == ""
    assert e.controls["session.timeout.ms"].value == 45_000  # the 3.7 default, read from the scenario


def test_saved_widget_state_does_not_depend_on_the_wall_clock():
    # Executed notebooks save the explorer's widget state: two draws of one scenario must match.
    a, b = explorer(), explorer()
    assert a.summary.value == b.summary.value and a.error.value == b.error.value
    charts = [re.sub(r"altair-viz-[0-9a-f]+", "", json.dumps([o["data"] for o in e.output.outputs])) for e in (a, b)]
    assert charts[0] == charts[1]  # Altair's HTML names each chart's div with a random id


def test_moving_a_slider_resimulates_and_redraws():
    e = explorer()
    before_outputs, before_specs = e.output.outputs, spec_text(e)
    assert e.run.summary["removals_by_reason"] == {}  # a 20 s pause is shorter than 45 s
    e.set("session.timeout.ms", 10_000)
    assert e.run.scenario.consumer_config["session.timeout.ms"] == 10_000
    assert e.run.summary["removals_by_reason"] == {"session_timeout": 1}  # now it is not
    assert e.output.outputs != before_outputs and spec_text(e) != before_specs
    assert "session_timeout 1" in e.summary.value


def test_a_heartbeat_not_below_the_session_timeout_moves_the_other_control_and_says_why():
    e = explorer()
    e.set("heartbeat.interval.ms", 60_000)  # >= session.timeout.ms 45000: the consumer would refuse to start
    assert e.error.value == "" and len(e.output.outputs) == 2
    assert e.controls["session.timeout.ms"].value == 180_000  # the one not moved follows: 3 heartbeats
    assert e.run.scenario.consumer_config["session.timeout.ms"] == 180_000
    assert "session.timeout.ms goes to 180,000 ms" in e.caption.value
    e.set("session.timeout.ms", 30_000)  # now the session timeout moved last: the heartbeat follows
    assert e.controls["heartbeat.interval.ms"].value == 10_000
    assert e.run.scenario.consumer_config["heartbeat.interval.ms"] == 10_000
    assert "heartbeat.interval.ms goes to 10,000 ms" in e.caption.value
    e.set("heartbeat.interval.ms", 3_000)  # valid together: no note
    assert e.caption.value == "" and e.run.scenario.consumer_config["heartbeat.interval.ms"] == 3_000


def test_a_config_error_is_shown_in_place_of_the_charts():
    e = explorer()
    e._fit = lambda values: (_ for _ in ()).throw(ConfigError("Heartbeat must be set lower than the session timeout"))
    e.set("members", 4)
    assert "Heartbeat must be set lower than the session timeout" in e.error.value
    assert "Traceback" not in e.error.value
    assert e.output.outputs == () and e.run is None and e.summary.value == "" and e.caption.value == ""


def test_a_config_absent_in_the_chosen_version_is_disabled_and_marked():
    e = explorer()
    e.set("max.poll.interval.ms", 60_000)
    e.set("kafka.version", "0.10.0")  # max.poll.interval.ms arrived in 0.10.1 (KIP-62)
    control = e.controls["max.poll.interval.ms"]
    assert control.disabled and control.description == "max.poll.interval.ms (0.10.1+)"
    assert e.error.value == "" and "max.poll.interval.ms" not in e.run.scenario.consumer
    e.set("kafka.version", "3.7")  # the reader's value comes back
    assert not control.disabled and control.description == "max.poll.interval.ms"
    assert e.run.scenario.consumer_config["max.poll.interval.ms"] == 60_000


def test_untouched_configs_follow_the_versions_defaults():
    e = explorer()
    e.set("kafka.version", "2.8")
    assert e.controls["session.timeout.ms"].value == 10_000  # 0.10.1-2.8 default (KIP-62)
    assert e.run.scenario.consumer_config["session.timeout.ms"] == 10_000
    e.set("kafka.version", "0.10.0")
    assert e.controls["session.timeout.ms"].value == 30_000
    assert e.controls["max.poll.interval.ms"].disabled  # no such config before 0.10.1
    assert e.error.value == "" and e.run.scenario.kafka_version == "0.10.0"
    e.set("session.timeout.ms", 20_000)
    e.set("kafka.version", "3.7")
    assert e.controls["session.timeout.ms"].value == 20_000  # the reader's value stays
    assert not e.controls["max.poll.interval.ms"].disabled


def test_protocol_and_assignor_stay_consistent():
    e = explorer()
    e.set("rebalance.protocol", "cooperative")
    assert e.controls["partition.assignment.strategy"].value == "cooperative-sticky"
    assert e.run.scenario.consumer_config["partition.assignment.strategy"] == ["cooperative-sticky"]
    e.set("partition.assignment.strategy", "range")
    assert e.controls["rebalance.protocol"].value == "eager"
    assert e.run.scenario.consumer_config["partition.assignment.strategy"] == ["range"]
    e.set("rebalance.protocol", "cooperative")
    e.set("kafka.version", "2.3")  # CooperativeStickyAssignor arrived in 2.4 (KIP-429)
    assert e.error.value == "" and e.controls["rebalance.protocol"].disabled
    assert e.controls["rebalance.protocol"].description == "rebalance protocol (2.4+)"
    assert e.run.scenario.consumer_config["partition.assignment.strategy"] == ["range"]  # 2.3's default
    assert "cooperative-sticky arrived in Kafka 2.4: 2.3 uses range (eager) here." in e.caption.value


def test_broker_rejection_during_the_run_is_shown_with_kafkas_error_code():
    e = explorer()
    e.set("heartbeat.interval.ms", 1_000)
    e.set("session.timeout.ms", 3_000)  # below group.min.session.timeout.ms (6000)
    assert "INVALID_SESSION_TIMEOUT" in e.error.value and "code 26" in e.error.value
    assert len(e.output.outputs) == 2  # the run that hit it is still drawn


def test_workload_fault_and_membership_controls_reach_the_scenario():
    e = explorer()
    e.set("members", 3)
    e.set("partitions", 6)
    e.set("processing.p99.ms", 50)
    e.set("static.membership", True)
    e.set("fault", "Crash")
    e.set("fault.at.ms", 30_000)
    s = e.run.scenario
    assert (s.members, s.topics, s.static_membership) == (3, {"orders": 6}, True)
    assert (s.processing_ms.median_ms, s.processing_ms.p99_ms) == (2.0, 50)
    assert s.faults == (faults.Crash("c-2", 30_000),)  # on the base fault's member
    e.set("processing.p99.ms", 1)  # below the median: the median follows it down
    assert e.error.value == "" and e.controls["processing.median.ms"].value == 1
    assert e.run.scenario.processing_ms.ms == 1  # a constant 1 ms per record
    assert "median follows the p99 down to 1 ms" in e.caption.value
    e.set("processing.median.ms", 20)  # the median moved last: the p99 rises to it
    assert e.controls["processing.p99.ms"].value == 20 and e.run.scenario.processing_ms.ms == 20


def test_a_chapter_chooses_controls_charts_and_summary():
    seen = []

    def my_chart(run, window=None):
        seen.append(run)
        from kafkasim.viz import summary_chart
        return summary_chart(run)

    e = Explorer(BASE, controls=["session.timeout.ms"], charts=["sequence", my_chart],
                 window=(15_000, 50_000), summary_keys=["rebalances", "duplicates"], debounce_ms=0)
    assert list(e.controls) == ["session.timeout.ms"]
    assert seen == [e.run] and len(e.output.outputs) == 2
    assert "duplicates" in e.summary.value and "max lag" not in e.summary.value
    assert "15 s to 50 s" in spec_text(e)
    with pytest.raises(ConfigError, match="unknown explorer setting"):
        Explorer(BASE, controls=["session.timeout"])
    with pytest.raises(ValueError, match="unknown chart"):
        Explorer(BASE, charts=["pie"])


def test_changes_are_debounced_on_the_event_loop(monkeypatch):
    e = Explorer(BASE, controls=["session.timeout.ms"], debounce_ms=50)
    calls = []
    monkeypatch.setattr(e, "refresh", lambda: calls.append(e.controls["session.timeout.ms"].value))

    async def drag():
        for value in (30_000, 20_000, 15_000):
            e.controls["session.timeout.ms"].value = value  # what the browser side does
        assert calls == []
        await asyncio.sleep(0.2)

    asyncio.run(drag())
    assert calls == [15_000]  # one redraw, with the last value

    async def from_code():
        e.set("session.timeout.ms", 10_000)  # code wants the new run at once
        assert calls == [15_000, 10_000]

    asyncio.run(from_code())


def test_static_version_of_the_explorer_and_display():
    e = Explorer(BASE, controls=["session.timeout.ms"], debounce_ms=0)
    chart = e.static({"session.timeout.ms": [10_000, 45_000]})
    spec = chart.to_dict()
    assert [p["name"] for p in spec["params"]] == ["p_session_timeout_ms", "t_s"]  # the setting, the time slider
    bundle = e._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


# -- group.protocol: Kafka 4's consumer protocol (KIP-848) ----------------------------------------------
V4 = Scenario(kafka_version="4.0", duration_ms=90_000, faults=[faults.Pause("c-2", 20_000, duration_ms=50_000)])
CLASSIC_ONLY = ["session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy", "rebalance.protocol"]


def test_group_protocol_switches_to_the_consumer_protocol_and_back():
    e = explorer(base=V4, controls=[*ALL, "group.protocol"])
    assert e.controls["group.protocol"].value == "classic" and "PreparingRebalance" in spec_text(e)
    e.set("session.timeout.ms", 60_000)  # outlasts the 50 s pause: nobody is removed
    assert e.run.summary["removals_by_reason"] == {}
    e.set("group.protocol", "consumer")
    assert e.error.value == "" and e.run.scenario.consumer == {"group.protocol": "consumer"}
    assert all(e.controls[name].disabled for name in CLASSIC_ONLY)  # Kafka's client refuses those configs
    assert "Reconciling" in spec_text(e) and "PreparingRebalance" not in spec_text(e)
    # The broker's group.consumer.session.timeout.ms (45 s) now decides: the paused member is fenced.
    assert e.run.summary["removals_by_reason"] == {"session_timeout": 1}
    e.set("kafka.version", "4.1")
    assert e.run.scenario.kafka_version == "4.1" and all(e.controls[name].disabled for name in CLASSIC_ONLY)
    e.set("kafka.version", "3.7")  # no consumer protocol before 4.0: the classic one, said so
    assert e.error.value == "" and e.run.scenario.consumer == {}
    assert e.controls["group.protocol"].disabled and e.controls["group.protocol"].description == "group.protocol (4.0+)"
    e.set("kafka.version", "4.0")  # the reader's choice comes back
    assert not e.controls["group.protocol"].disabled and e.run.scenario.consumer == {"group.protocol": "consumer"}
    e.set("group.protocol", "classic")
    assert e.error.value == "" and e.run.scenario.consumer == {}
    assert not any(e.controls[name].disabled for name in CLASSIC_ONLY)
    assert e.controls["session.timeout.ms"].value == 45_000  # back at the version's default


def test_a_consumer_protocol_base_starts_with_the_classic_controls_off():
    base = V4.replace(consumer={"group.protocol": "consumer"})
    e = explorer(base=base, controls=[*ALL, "group.protocol"])
    assert e.run.scenario == base and e.error.value == ""
    assert e.controls["group.protocol"].value == "consumer"
    assert all(e.controls[name].disabled for name in CLASSIC_ONLY)
    e.set("members", 3)
    assert e.run.scenario.consumer == {"group.protocol": "consumer"} and e.run.scenario.members == 3
    chart = e.static({"group.protocol": ["classic", "consumer"]}).to_dict()
    assert [p["name"] for p in chart["params"]] == ["p_group_protocol", "t_s"] and chart["params"][0]["value"] == "consumer"


def test_a_config_of_the_base_that_the_chosen_version_lacks_is_left_out_and_said():
    base = BASE.replace(consumer={"max.poll.interval.ms": 15_000})  # as chapter 10's sweep cell sets it
    e = explorer(base=base, controls=["kafka.version", "max.poll.interval.ms"])
    e.set("kafka.version", "0.10.0")
    assert e.error.value == "" and e.run.scenario.consumer == {}
    assert "max.poll.interval.ms arrived in Kafka 0.10.1: not set in 0.10.0." in e.caption.value
    assert e.controls["max.poll.interval.ms"].description == "max.poll.interval.ms (0.10.1+)"


def test_the_fault_member_menu_follows_the_group_size():
    e = explorer(controls=["members", "fault.member"])
    assert e.controls["fault.member"].options == tuple(f"c-{i}" for i in range(1, 7))
    e.set("fault.member", "c-6")
    e.set("members", 4)  # c-6 is gone: the menu shows the last member and the run moves the fault there
    assert e.controls["fault.member"].options == ("c-1", "c-2", "c-3", "c-4")
    assert e.controls["fault.member"].value == "c-4" and e.run.scenario.faults[0].member == "c-4"
    assert "The Pause of c-6 hits c-4 here: the group has 4 members at 20 s." in e.caption.value
    e.set("members", 8)  # back: the reader's pick again
    assert e.controls["fault.member"].value == "c-6" and e.run.scenario.faults[0].member == "c-6"


def test_under_the_consumer_protocol_the_classic_choices_show_none():
    e = explorer(base=V4, controls=["group.protocol", "rebalance.protocol", "partition.assignment.strategy"])
    e.set("rebalance.protocol", "cooperative")
    e.set("group.protocol", "consumer")
    toggle, strategy = e.controls["rebalance.protocol"], e.controls["partition.assignment.strategy"]
    assert (toggle.value, toggle.disabled, toggle.description) == (None, True, "rebalance protocol (classic only)")
    assert (strategy.value, strategy.disabled) == (None, True)
    e.set("group.protocol", "classic")  # back at the version's defaults, enabled
    assert (toggle.value, strategy.value, toggle.disabled) == ("eager", "range", False)
    assert toggle.description == "rebalance protocol"
