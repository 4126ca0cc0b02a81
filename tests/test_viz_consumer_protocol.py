"""kafkasim.viz on runs of Kafka 4's consumer protocol (group.protocol=consumer, KIP-848): every chart
renders offline, and what it draws agrees with the run's events (the coordinator's group epochs and
states, the members' heartbeats, callbacks and removals) and with Run.summary; a classic and a
consumer-protocol run compare on one time axis; the explorers' group.protocol knob."""

from __future__ import annotations

import json
import re

import altair as alt
import pytest
import vl_convert as vlc

from kafkasim import Scenario, faults, simulate
from kafkasim import viz
from kafkasim.core.errors import ConfigError, Errors
from kafkasim.scenario.run import rebalance_phases
from kafkasim.viz import protocol, settings, tables
from test_viz import _svg_with, datasets, render  # (tests/ is on sys.path)

CONSUMER = {"group.protocol": "consumer"}
SHORT = dict(kafka_version="4.0", duration_ms=120_000)
PAUSE = faults.Pause("c-2", 30_000, duration_ms=50_000)  # longer than the 45 s session: c-2 is fenced

SCENARIOS = {
    "healthy": Scenario(**SHORT, consumer=CONSUMER),
    "gc_pause": Scenario(**SHORT, consumer=CONSUMER, faults=[PAUSE]),
    "slow_processing": Scenario(**SHORT, consumer={**CONSUMER, "max.poll.interval.ms": 30_000},
                                faults=[faults.SlowProcessing("c-2", 30_000, duration_ms=50_000)]),
    "static": Scenario(**SHORT, consumer=CONSUMER, static_membership=True,
                       faults=[faults.Restart("c-2", 30_000, delay_ms=20_000, graceful=True)]),
    "scale": Scenario(**SHORT, consumer=CONSUMER, faults=[faults.ScaleOut(30_000), faults.ScaleIn(60_000, ("c-1",))]),
    "fifty": Scenario(kafka_version="4.0", consumer=CONSUMER, members=50, topics={"orders": 100}, duration_ms=180_000,
                      faults=[faults.Crash("c-7", 60_000), faults.Pause("c-20", 100_000, duration_ms=50_000)]),
}


@pytest.fixture(scope="module")
def runs():
    return {name: simulate(s) for name, s in SCENARIOS.items()}


@pytest.fixture(scope="module")
def classic():
    """The gc_pause trace under the classic protocol, same Kafka version and seed."""
    return simulate(Scenario(**SHORT, faults=[PAUSE]))


def coordinator_rows(run, *kinds):
    return [r for r in run.rows if r[1] == "coordinator" and r[2] == run.scenario.group_id and r[4] in kinds]


def layers(spec: dict) -> list[dict]:
    """Every unit view of a (layered, concatenated) spec."""
    out = []
    for key in ("layer", "vconcat", "hconcat"):
        for child in spec.get(key, ()):
            out.extend(layers(child))
    return out + ([spec] if "mark" in spec else [])


def band_layers(spec: dict) -> list[dict]:
    return [v for v in layers(spec) if v["encoding"].get("color", {}).get("field") == "phase"]


# -- every chart renders ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("chart", list(viz.CHARTS))
def test_chart_is_valid_vega_lite_and_renders(runs, name, chart):
    spec, svg = render(viz.CHARTS[chart](runs[name]))
    assert "url" not in json.dumps(spec.get("data", {}))
    assert all(len(rows) < 2000 for rows in datasets(spec).values())
    assert "PreparingRebalance" not in json.dumps(spec)  # a consumer group has no classic phases


# -- the tables: members by name, no coordinator rows among them --------------------------------------------
def test_states_are_the_consumers_only(runs):
    for run in runs.values():
        members = set(tables.states(run, merge_active=True)["member"])
        assert members == set(run.member_names.values())  # not None: the coordinator's StateChanged rows
        slow = run.member_states().sort_values("member", kind="stable")
        slow["state"] = slow["state"].replace({"consuming": "active", "processing": "active"})
        slow = tables.merge_runs(slow, ["member", "state"])
        assert tables.states(run, merge_active=True).values.tolist() == slow.values.tolist()


def test_removals_name_the_consumer_of_a_client_generated_member_id(runs):
    run = runs["gc_pause"]
    (row,) = coordinator_rows(run, "MemberRemoved")
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", row[3])  # a Uuid, no "c-2-" prefix to strip
    removed = tables.removals(run)
    assert removed.values.tolist() == [[row[0], "c-2", row[3], "session_timeout"]]
    # The pause starts at 30 s; the coordinator fences c-2 45 s (group.consumer.session.timeout.ms)
    # after its last heartbeat, at most 5 s (group.consumer.heartbeat.interval.ms) before the pause.
    assert 30_000 + 45_000 - 5_000 <= row[0] <= 30_000 + 45_000
    assert tables.removals(runs["slow_processing"])[["member", "reason"]].values.tolist() == [["c-2", "leave_group"]]


# -- the timeline ----------------------------------------------------------------------------------------
def test_timeline_bands_are_the_consumer_groups_states(runs):
    for run in runs.values():
        spec = viz.member_timeline.spec(run)
        bands = band_layers(spec)
        assert bands and all(b["encoding"]["color"]["scale"]["domain"] == ["Assigning", "Reconciling"] for b in bands)
        values = bands[0]["data"]["values"]
        assert {v["phase"] for v in values} <= {"Assigning", "Reconciling"}
        assert round(sum(v["end_s"] - v["start_s"] for v in values) * 1000) == run.summary["rebalance_ms"]
        group_rows = [r for r in run.rows if r[1] == "coordinator" and r[2] == run.scenario.group_id]
        expected = [(p, a / 1000, b / 1000) for p, a, b, *_ in rebalance_phases(group_rows, run.end_ms)]
        assert [(v["phase"], v["start_s"], v["end_s"]) for v in values] == expected


def test_timeline_ticks_are_the_group_epoch_bumps_and_removals_are_marked(runs):
    run = runs["gc_pause"]
    spec = viz.member_timeline.spec(run)
    ticks = next(v for v in layers(spec) if v["mark"]["type"] == "tick")
    bumps = coordinator_rows(run, "GroupEpochBumped")
    assert len(bumps) == run.summary["rebalances"] == run.summary["generations"] == 8
    assert [(v["time_s"], v["generation"], v["reason"]) for v in ticks["data"]["values"]] == \
        [(r[0] / 1000, r[5], r[9]) for r in bumps]
    assert ticks["encoding"]["tooltip"][1]["title"] == "to group epoch"
    marks = next(v for v in layers(spec) if v["mark"].get("shape") == "triangle-down")
    assert [(v["member"], v["reason"]) for v in marks["data"]["values"]] == [("c-2", "session_timeout")]
    assert "group.protocol=consumer" in spec["title"]["subtitle"] and "group epoch bumped" in spec["title"]["subtitle"]


def test_fifty_members_get_one_row_each(runs):
    spec = viz.member_timeline.spec(runs["fifty"])
    bars = next(v for v in layers(spec) if v["mark"]["type"] == "bar")
    assert bars["encoding"]["y"]["sort"] == ["coordinator", *[f"c-{i}" for i in range(1, 51)]]


# -- ownership, lag, key numbers ---------------------------------------------------------------------------
def test_ownership_gaps_are_the_runs_unconsumed_intervals(runs):
    run = runs["gc_pause"]
    spec = viz.partition_ownership.spec(run)
    holes = next(v for v in layers(spec) if v["encoding"].get("color", {}).get("scale", {}).get("range") == ["#d62728"])
    drawn = sorted((r["tp"], r["start_s"], r["end_s"]) for r in holes["data"]["values"])
    expected = sorted((f"{t}-{p}", a / 1000, b / 1000) for t, p, a, b in run.unconsumed().itertuples(index=False))
    assert drawn == expected and drawn  # c-2's partitions while it was frozen, until they moved
    assert band_layers(spec)[0]["encoding"]["color"]["scale"]["domain"] == ["Assigning", "Reconciling"]


def test_lag_panels_show_the_consumer_groups_bands_and_duplicates(runs):
    run = runs["gc_pause"]
    spec = viz.lag_chart.spec(run)
    for band in band_layers(spec):
        total = sum(v["end_s"] - v["start_s"] for v in band["data"]["values"])
        assert round(total * 1000) == run.summary["rebalance_ms"]
    series = tables.duplicates(run)["duplicates"].tolist()
    assert series == sorted(series) and series[-1] == run.summary["duplicates"] > 0


def test_key_numbers_are_the_summary(runs):
    run = runs["gc_pause"]
    spec = viz.summary_chart.spec(run)
    values = {r["label"]: r["value"] for r in spec["layer"][0]["data"]["values"]}
    assert values["rebalances"] == str(run.summary["rebalances"])
    assert values["time rebalancing"] == f"{run.summary['rebalance_ms'] / 1000:,.1f} s"


# -- the sequence diagram: ConsumerGroupHeartbeat, epochs, callbacks, acknowledgements ------------------------
WINDOW = (70_000, 120_000)  # the fencing of c-2 and its return


def test_sequence_draws_every_heartbeat_with_the_epoch_it_carries(runs):
    run = runs["gc_pause"]
    frame = protocol.messages(run, WINDOW)
    rows = [r for r in coordinator_rows(run, "ConsumerGroupHeartbeat") if WINDOW[0] <= r[0] <= WINDOW[1]]
    requests = frame[frame["kind"] == "request"]
    assert list(zip(requests["time"], requests["member"])) == [(r[0], run.member_names[r[3]]) for r in rows]
    assert all(label.startswith(f"ConsumerGroupHeartbeat epoch {int(r[10])}")
               for label, r in zip(requests["label"], rows))
    assert not frame["label"].str.contains("JoinGroup|SyncGroup|^Heartbeat", regex=True).any()
    failed = [r for r in rows if r[8] != "NONE"]
    assert list(frame.loc[frame["kind"] == "error", "label"]) == \
        [f"ConsumerGroupHeartbeat: {r[8]} ({Errors[r[8]].code})" for r in failed] == \
        ["ConsumerGroupHeartbeat: UNKNOWN_MEMBER_ID (25)"]  # c-2 back from its pause, already fenced
    assert (requests["label"] == "ConsumerGroupHeartbeat epoch 0 (join)").sum() == sum(r[10] == 0 for r in rows) == 1


def test_sequence_replies_are_the_member_epochs_the_coordinator_answered(runs):
    run = runs["gc_pause"]
    frame = protocol.messages(run, WINDOW)
    replies = frame[frame["kind"] == "reply"]
    drawn = [(t, m, *re.fullmatch(r"epoch (-?\d+): (\w+)(, new assignment)?", label).groups()[:2])
             for t, m, label in zip(replies["time"], replies["member"], replies["label"])]
    bumps = [(r[0], run.member_names[r[3]], str(int(r[10])), r[9])
             for r in coordinator_rows(run, "MemberEpochBumped", "MemberStateChanged")
             if WINDOW[0] <= r[0] <= WINDOW[1]]
    assert drawn == bumps
    # "new assignment" exactly where the member went RECONCILING on that response.
    news = {(t, m) for t, m, label in zip(replies["time"], replies["member"], replies["label"])
            if label.endswith("new assignment")}
    reconciling = {(r[0], r[3]) for r in run.rows if r[1] == "consumer" and r[4] == "MemberTransition"
                   and r[9] == "RECONCILING" and WINDOW[0] <= r[0] <= WINDOW[1]}
    assert news == reconciling and news


def test_sequence_shows_callbacks_and_acknowledgements(runs):
    run = runs["gc_pause"]
    frame = protocol.messages(run, WINDOW)
    in_window = [r for r in run.rows if r[1] == "consumer" and WINDOW[0] <= r[0] <= WINDOW[1]]
    for kind, name in protocol.CALLBACKS.items():
        expected: dict[tuple, list[str]] = {}
        for r in in_window:
            if r[4] == kind:
                expected.setdefault((r[0], r[3]), []).extend([f"{r[6]}-{r[7]}"] if r[6] is not None else [])
        notes = frame[(frame["kind"] == "callback") & frame["label"].str.startswith(name)]
        assert {(t, m): d.split(": ", 1)[1] for t, m, d in zip(notes["time"], notes["member"], notes["detail"])} == \
            {key: ", ".join(tps) or "none" for key, tps in expected.items()}
    acks = frame["label"].str.endswith("(ack)").sum()
    assert acks == sum(r[4] == "MemberTransition" and r[9] == "ACKNOWLEDGING" for r in in_window) > 0
    bumps = [f"group epoch {int(r[10])} ({r[9]})" for r in coordinator_rows(run, "GroupEpochBumped")
             if WINDOW[0] <= r[0] <= WINDOW[1]]
    assert [n for n in frame["label"] if n.startswith("group epoch")] == bumps == \
        ["group epoch 7 (member_removed)", "group epoch 8 (member_joined)"]
    states = [f"group {r[9]} → {r[11]}" for r in coordinator_rows(run, "StateChanged")
              if WINDOW[0] <= r[0] <= WINDOW[1]]
    assert [n for n in frame["label"] if n.startswith("group ") and "→" in n] == states


def test_sequence_diagram_spec_draws_the_messages(runs):
    run = runs["gc_pause"]
    frame = protocol.messages(run, WINDOW)
    spec = viz.sequence_diagram.spec(run, WINDOW, heartbeats="all", max_messages=10_000)
    assert [r["label"] for r in spec["data"]["values"]] == frame["label"].tolist()
    thin = viz.sequence_diagram.spec(run, WINDOW, heartbeats="errors", max_messages=10_000)
    assert len(thin["data"]["values"]) == (~frame["ok_heartbeat"]).sum() < len(frame)
    assert any("heartbeats that changed nothing not shown" in s for s in thin["title"]["subtitle"])
    spec, svg = render(viz.sequence_diagram(run, window=(79_000, 86_000)))
    assert "ConsumerGroupHeartbeat epoch 0 (join)" in svg and "UNKNOWN_MEMBER_ID (25)" in svg
    assert "onPartitionsLost" in svg and "callback" in svg


def test_sequence_picks_the_interesting_members_of_a_large_group(runs):
    spec = viz.sequence_diagram.spec(runs["fifty"], (55_000, 110_000))
    lanes = next(v for v in layers(spec) if v["mark"]["type"] == "text" and "lane" in json.dumps(v["encoding"]))
    names = [r["lane"] for r in lanes["data"]["values"]]
    assert names[0] == "coordinator" and "c-7" in names and len(names) == 9
    notes = [r["label"] for r in spec["data"]["values"] if r["kind"] == "coordinator note"]
    about = [m.group(1) for m in (re.match(r"(?:removes )?(c-\d+):", n) for n in notes) if m]
    assert about and set(about) <= set(names)  # notes about members without a lane would point nowhere


def test_sequence_shows_a_static_members_temporary_leave_and_return(runs):
    run = runs["static"]
    frame = protocol.messages(run, (29_000, 51_000))
    c2 = frame[frame["member"].isin(["c-2", "coordinator"])]["label"].tolist()
    expected = ["onPartitionsRevoked: orders-0, orders-1", "ConsumerGroupHeartbeat epoch -2 (static leave)",
                "c-2: left temporarily (static member, epoch -2)", "group Stable → Reconciling", "epoch -2",
                "closes", "starts", "ConsumerGroupHeartbeat epoch 0 (join)"]
    assert c2[:len(expected)] == expected
    old_id = next(r[9] for r in coordinator_rows(run, "MemberReplaced"))
    assert f"c-2: replaces member id {old_id} (static member)" in c2
    assert run.summary["removals_by_reason"] == {} and run.summary["rebalances"] == 6  # no epoch bump: static


# -- the same fault under both protocols -------------------------------------------------------------------
def test_compare_puts_classic_and_consumer_runs_on_one_time_axis(runs, classic):
    consumer = runs["gc_pause"]
    assert viz.scenario_labels([classic.scenario, consumer.scenario]) == ["group.protocol=classic",
                                                                          "group.protocol=consumer"]
    spec, svg = render(viz.compare([classic, consumer], charts=("timeline", "ownership", "lag", "sequence")))
    left, right = spec["hconcat"]
    assert [left["title"]["text"], right["title"]["text"]] == ["group.protocol=classic", "group.protocol=consumer"]
    assert f"rebalances {consumer.summary['rebalances']}" in right["title"]["subtitle"]
    domains = {json.dumps(v["encoding"]["x"]["scale"]["domain"]) for v in layers(spec)
               if v["encoding"].get("x", {}).get("field") in ("start_s", "time_s") and "scale" in v["encoding"]["x"]}
    assert domains == {"[0.0, 120.0]"}
    phases = [{tuple(b["encoding"]["color"]["scale"]["domain"]) for b in band_layers(side)} for side in (left, right)]
    assert phases == [{("PreparingRebalance", "CompletingRebalance")}, {("Assigning", "Reconciling")}]
    assert "JoinGroup" in svg and "ConsumerGroupHeartbeat" in svg


# -- the group.protocol knob ----------------------------------------------------------------------------------
def test_group_protocol_knob_clears_the_classic_only_configs():
    base = Scenario(kafka_version="4.0", consumer={"session.timeout.ms": 10_000, "heartbeat.interval.ms": 1_000,
                                                   "partition.assignment.strategy": ["range"],
                                                   "max.poll.interval.ms": 60_000})
    consumer = settings.scenario_with(base, {"group.protocol": "consumer"})
    assert consumer.consumer == {"max.poll.interval.ms": 60_000, "group.protocol": "consumer"}
    assert settings.current("group.protocol", consumer) == "consumer"
    assert [settings.current(k, consumer) for k in settings.CLASSIC_KNOBS] == [None] * 4
    # A classic knob moved under consumer is cleared too (Kafka's client would refuse it).
    assert settings.scenario_with(consumer, {"session.timeout.ms": 20_000}).consumer == consumer.consumer
    back = settings.scenario_with(consumer, {"group.protocol": "classic"})
    assert back.consumer == {"max.poll.interval.ms": 60_000} and settings.current("group.protocol", back) == "classic"
    assert settings.current("session.timeout.ms", back) == 45_000
    assert settings.scenario_with(base, {"members": 3}) == base.replace(members=3)  # classic: as before
    with pytest.raises(ConfigError, match="4.0"):
        settings.scenario_with(Scenario(), {"group.protocol": "consumer"})  # 3.7: early access only
    with pytest.raises(ConfigError, match="group.protocol must be one of"):
        settings.scenario_with(base, {"group.protocol": "eager"})


def test_grid_explorer_sweeps_the_group_protocol(classic, runs):
    base = Scenario(**SHORT, faults=[PAUSE])
    spec = viz.grid_explorer(base, {"group.protocol": ["classic", "consumer"]},
                             charts=("timeline", "lag", "summary")).to_dict()
    param, scrubber = spec["params"]  # the setting, and the time slider of the timeline
    assert scrubber["name"] == "t_s"
    assert param["name"] == "p_group_protocol" and param["value"] == "classic"
    assert param["bind"]["input"] == "radio" and param["bind"]["options"] == ["classic", "consumer"]
    data = datasets(spec)
    summary = [r for rows in data.values() for r in rows if r.get("label") == "rebalances"]
    assert {r["p_group_protocol"]: r["value"] for r in summary} == {
        "classic": str(classic.summary["rebalances"]), "consumer": str(runs["gc_pause"].summary["rebalances"])}
    starts = [r for rows in data.values() for r in rows if "protocol" in r and "generation" in r]
    assert sum(r["protocol"] == "consumer" for r in starts) == runs["gc_pause"].summary["rebalances"]
    assert sum(r["protocol"] == "classic" for r in starts) == classic.summary["rebalances"]
    assert all(b["encoding"]["color"]["scale"]["domain"] == ["PreparingRebalance", "CompletingRebalance",
                                                               "Assigning", "Reconciling"] for b in band_layers(spec))
    assert _svg_with(spec, p_group_protocol="classic") != _svg_with(spec, p_group_protocol="consumer")


def test_grid_point_kafka_rejects_shows_kafkas_error():
    spec = viz.grid_explorer(Scenario(duration_ms=60_000), {"group.protocol": ["classic", "consumer"]},
                             charts=("timeline", "summary")).to_dict()
    assert "use kafka_version='4.0' or later" in _svg_with(spec, p_group_protocol="consumer")
