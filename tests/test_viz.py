"""kafkasim.viz: every chart is a valid Vega-Lite spec that renders offline (vl-convert), on
representative runs from a healthy group to 1,000 members, and what it draws agrees with the
run's own accounting (Run.summary, member_states, the scenario's faults)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import altair as alt
import pytest
import vl_convert as vlc

from kafkasim import Scenario, faults, simulate
from kafkasim import viz
from kafkasim.core.config import ASSIGNORS
from kafkasim.core.errors import ConfigError
from kafkasim.viz import protocol, settings, tables
from kafkasim.viz.ownership import owners, unconsumed
from vega_fields import missing_fields  # (tests/ is on sys.path)

VL_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
SHORT = dict(duration_ms=120_000)

SCENARIOS = {
    "healthy": Scenario(**SHORT),
    "crash": Scenario(**SHORT, faults=[faults.Crash("c-2", 30_000)]),
    "gc_pause": Scenario(**SHORT, faults=[faults.Pause("c-2", 30_000, duration_ms=50_000)]),
    "slow_processing": Scenario(**SHORT, consumer={"max.poll.interval.ms": 30_000},
                                faults=[faults.SlowProcessing("c-2", 30_000, duration_ms=50_000)]),
    "cooperative": Scenario(**SHORT, consumer={"partition.assignment.strategy": ["cooperative-sticky"]},
                            faults=[faults.Restart("c-2", 30_000, delay_ms=20_000)]),
    "static": Scenario(**SHORT, static_membership=True, faults=[faults.Restart("c-2", 30_000, delay_ms=20_000)]),
    "fifty": Scenario(members=50, topics={"orders": 100}, duration_ms=180_000,
                      faults=[faults.Crash("c-7", 60_000), faults.Pause("c-20", 100_000, duration_ms=50_000)]),
}


@pytest.fixture(scope="module")
def runs():
    return {name: simulate(s) for name, s in SCENARIOS.items()}


@pytest.fixture(scope="module")
def big():
    """1,000 members on 1,000 partitions: the charts must aggregate, not draw every member."""
    return simulate(Scenario(members=1000, topics={"orders": 1000}, duration_ms=60_000,
                             faults=[faults.Crash("c-7", 10_000)], consumer={"session.timeout.ms": 10_000}))


def render(chart) -> tuple[dict, str]:
    """Validate against the Vega-Lite schema (Altair) and render to SVG offline (vl-convert),
    which compiles the spec and runs its dataflow: a bad expression or encoding fails here."""
    spec = chart.to_dict()  # validate=True: raises on any schema error
    svg = vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[])
    assert svg.startswith("<svg")
    assert missing_fields(spec) == []  # every encoded field is a column of its data
    return spec, svg


def datasets(spec: dict) -> dict[str, list]:
    return {name: list(rows) for name, rows in spec.get("datasets", {}).items()}


# -- every chart, every representative run -------------------------------------------------------
@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("chart", list(viz.CHARTS))
def test_chart_is_valid_vega_lite_and_renders(runs, name, chart):
    spec, svg = render(viz.CHARTS[chart](runs[name]))
    # Every table is embedded (offline pages) and small: aggregated, far below Altair's 5,000-row guard.
    assert "url" not in json.dumps(spec.get("data", {}))
    assert all(len(rows) < 2000 for rows in datasets(spec).values())
    assert spec["$schema"].endswith(f"{alt.SCHEMA_VERSION}.json")


def test_charts_compose_with_altair_operators(runs):
    run = runs["gc_pause"]
    render(viz.member_timeline(run) & viz.lag_chart(run, panels=("lag",)))
    render(viz.member_timeline(run, title=None) | viz.summary_chart(run))


def test_spec_and_chart_are_the_same_thing(runs):
    run = runs["crash"]
    spec = viz.member_timeline.spec(run)
    chart = viz.member_timeline(run).to_dict()
    assert [layer["mark"] for layer in chart["layer"]] == [layer["mark"] for layer in spec["layer"]]


# -- 1,000 members: aggregated and small ---------------------------------------------------------
def test_thousand_members_are_aggregated(big):
    spec, svg = render(viz.member_timeline(big))
    rows = datasets(spec)
    assert sum(len(r) for r in rows.values()) < 3000
    layers = spec["layer"]
    assert not any(layer["encoding"].get("y", {}).get("field") == "member" for layer in layers)
    assert any(layer["mark"]["type"] == "area" for layer in layers)
    counts = [r for r in max(rows.values(), key=len) if "members" in r]
    # Members per state add up to the group (1,000 after everyone started, minus the crashed one's
    # "stopped" which is still counted as a state).
    by_time: dict[float, float] = {}
    for r in counts:
        by_time[r["time_s"]] = by_time.get(r["time_s"], 0) + r["members"]
    assert max(by_time.values()) == pytest.approx(1000, abs=0.5)
    assert len(json.dumps(spec)) < 250_000


def test_thousand_partitions_ownership_is_aggregated(big):
    spec, _ = render(viz.partition_ownership(big))
    assert "not being consumed" in json.dumps(spec["title"])
    assert sum(len(r) for r in datasets(spec).values()) < 2000
    render(viz.lag_chart(big))
    seq_spec, _ = render(viz.sequence_diagram(big, window=(0, 20_000)))
    assert any("showing 8 of 1000 members" in s for s in seq_spec["title"]["subtitle"])


# -- what the timeline draws ---------------------------------------------------------------------
def test_consumer_name_strips_the_member_id_uuid():
    assert tables.consumer_name("c-1-0b7e6a1c-1f0e-4c7e-9a43-2f1d2b3c4d5e") == "c-1"
    assert tables.consumer_name("consumer-group-12-0b7e6a1c-1f0e-4c7e-9a43-2f1d2b3c4d5e") == "consumer-group-12"
    assert tables.consumer_name("c-10") == "c-10"
    assert tables.member_order(["c-10", "c-2", "c-1"]) == ["c-1", "c-2", "c-10"]


def test_states_cover_each_member_without_gaps(runs):
    run = runs["healthy"]
    frame = tables.states(run, merge_active=True)
    for member, rows in frame.groupby("member"):
        assert (rows["start"].iloc[1:].to_numpy() == rows["end"].iloc[:-1].to_numpy()).all()
        assert rows["end"].iloc[-1] == run.end_ms
    assert set(frame["state"]) == {"joining", "active"}


def test_active_bands_agree_with_member_states(runs):
    # The merged bands come from StateChanged events alone; Run.member_states splits consuming into
    # processing by batch. Merging the latter must give the former.
    for run in runs.values():
        slow = run.member_states().sort_values("member", kind="stable")
        slow["state"] = slow["state"].replace({"consuming": "active", "processing": "active"})
        slow = tables.merge_runs(slow, ["member", "state"])
        assert tables.states(run, merge_active=True).values.tolist() == slow.values.tolist()


def test_short_window_keeps_the_poll_loop_and_long_one_merges_it(runs):
    run = runs["healthy"]
    assert {"consuming", "processing"} <= set(tables.states(run, (20_000, 25_000))["state"])
    assert "active" in set(tables.states(run)["state"])  # 600 s of flips: merged by default
    window = tables.states(run, (20_000, 25_000))
    assert window["start"].min() == 20_000 and window["end"].max() == 25_000


def test_pause_and_stall_appear_where_the_faults_put_them(runs):
    paused = tables.states(runs["gc_pause"])
    row = paused[(paused["member"] == "c-2") & (paused["state"] == "paused")]
    assert list(zip(row["start"], row["end"])) == [(30_000, 80_000)]  # Pause at 30 s for 50 s
    stalled = tables.states(runs["slow_processing"])
    assert stalled[(stalled["member"] == "c-2") & (stalled["state"] == "stalled")]["start"].tolist() == [30_000]


def test_removals_carry_the_coordinators_reason(runs):
    crash = tables.removals(runs["crash"])
    assert crash[["member", "reason"]].values.tolist() == [["c-2", "session_timeout"]]
    # The crash is at 30 s; the coordinator notices after session.timeout.ms (45 s in 3.7) since
    # the last heartbeat (at most heartbeat.interval.ms = 3 s before the crash).
    assert 30_000 + 45_000 - 3_000 <= crash["time"].iloc[0] <= 30_000 + 45_000
    slow = tables.removals(runs["slow_processing"])
    assert slow["reason"].tolist() == ["poll_timeout"]
    spec = viz.member_timeline.spec(runs["crash"])
    marks = [l for l in spec["layer"] if l["mark"].get("shape") == "triangle-down"]
    assert [r["reason"] for r in marks[0]["data"]["values"]] == ["session_timeout"]


#: Rebalances of each run, counted by hand from its faults (3.7, eager range, session.timeout.ms 45 s;
#: the members start within the first second, inside the 3 s group.initial.rebalance.delay.ms).
REBALANCES = {
    "healthy": 1,          # the initial join
    "crash": 2,            # + c-2 removed when its session expires, 45 s after its last heartbeat
    "gc_pause": 3,         # + c-2 removed (the 50 s pause outlasts the session), + its rejoin at 80 s
    "slow_processing": 3,  # + c-2's LeaveGroup 30 s (max.poll.interval.ms) after its last poll(), + its rejoin at 80 s
    "cooperative": 2,      # + the restarted c-2 joining at 50 s; that rebalance waits for the old c-2's
                           #   session to expire, and its partitions, owned by nobody alive, move without a revocation
    "static": 1,           # the 20 s restart is within the session: the static member takes its place back
    "fifty": 3,            # + c-7's removal, whose rebalance also waits out c-20's session (paused from 100 s),
                           #   + c-20's rejoin when it thaws at 150 s
}


def test_rebalance_bands_and_ticks_match_the_summary(runs):
    for name, run in runs.items():
        bands = tables.rebalances(run)
        assert (bands["end"] - bands["start"]).sum() == run.summary["rebalance_ms"]
        assert len(tables.rebalance_starts(run)) == run.summary["rebalances"] == REBALANCES[name], name


def test_fifty_members_get_one_row_each(runs):
    spec = viz.member_timeline.spec(runs["fifty"])
    bars = next(l for l in spec["layer"] if l["mark"]["type"] == "bar")
    assert bars["encoding"]["y"]["sort"] == ["coordinator", *[f"c-{i}" for i in range(1, 51)]]
    assert spec["height"] <= 620


# -- lag, throughput, duplicates -----------------------------------------------------------------
def test_duplicates_never_fall_and_end_at_the_summary(runs):
    for run in runs.values():
        series = tables.duplicates(run)["duplicates"].tolist()
        assert series == sorted(series)
        assert series[-1] == run.summary["duplicates"]
    gc = tables.duplicates(runs["gc_pause"])
    assert runs["gc_pause"].summary["duplicates"] > 0
    assert gc[gc["time"] < 30_000]["duplicates"].max() == 0  # nothing is processed twice before the fault


def test_throughput_bins_account_for_every_record(runs):
    run = runs["crash"]
    frame = tables.throughput(run)
    seconds = (frame["end"] - frame["start"]) / 1000
    assert (frame["processed_per_s"] * seconds).sum() == pytest.approx(run.summary["records_processed"], rel=1e-3)
    # By hand: 1,000 records/s (the default produce_rate_per_s) for the run's 120 s.
    assert (frame["produced_per_s"] * seconds).sum() == pytest.approx(1_000 * 120, rel=1e-3)


def test_downsampled_lag_keeps_the_peak(runs):
    run = runs["fifty"]
    small = tables.lag(run, max_points=40)
    assert len(small) <= 41
    assert small["lag"].max() == run.summary["max_lag"]


def test_lag_chart_panels_are_selectable(runs):
    spec, _ = render(viz.lag_chart(runs["gc_pause"], panels=("duplicates",)))
    assert len(spec["vconcat"]) == 1
    with pytest.raises(ValueError, match="panels"):
        viz.lag_chart(runs["gc_pause"], panels=("latency",))


# -- ownership -----------------------------------------------------------------------------------
def test_ownership_gaps_are_the_runs_unconsumed_intervals(runs):
    run = runs["crash"]
    spec = viz.partition_ownership.spec(run)
    holes = next(l for l in spec["layer"] if l["encoding"].get("color", {}).get("field") == "what")
    assert holes["encoding"]["color"]["scale"] == {"domain": ["not consumed"], "range": ["#d62728"]}
    drawn = sorted((r["tp"], r["start_s"], r["end_s"]) for r in holes["data"]["values"])
    expected = sorted((f"{t}-{p}", a / 1000, b / 1000) for t, p, a, b in run.unconsumed().itertuples(index=False))
    assert drawn == expected and drawn  # the crashed member's partitions, until the rebalance


def test_ownership_merges_kept_partitions(runs):
    # Cooperative-sticky keeps the partitions of members that stay: one bar each, no seam.
    frame = owners(runs["cooperative"])
    kept = frame[frame["member"] == "c-1"]
    assert len(kept) == kept["tp"].nunique()


def test_ownership_in_a_window_is_the_whole_runs_cut_to_it(runs):
    """ownership.owners(run, window): the merged intervals that overlap [lo, hi], each cut to it, in the same order
    (by partition, then owner, then start); a window is checked like every chart's (tables.window_ms)."""
    run = runs["cooperative"]
    whole = owners(run)
    lo, hi = 20_000, 60_000
    cut = [(tp, m, max(a, lo), min(b, hi)) for tp, m, a, b in whole[["tp", "member", "start", "end"]].itertuples(
        index=False) if b > lo and a < hi]
    frame = owners(run, (lo, hi))
    assert list(frame.columns) == ["tp", "member", "start", "end"] and list(frame.index) == list(range(len(cut)))
    assert frame.values.tolist() == [list(r) for r in cut]
    # c-2's two partitions were not consumed from its restart at 30 s to their next owner at 72,009: cut at hi
    assert unconsumed(run, (lo, hi)).values.tolist() == [["orders-5", 30_000, hi], ["orders-11", 30_000, hi]]
    # 12 partitions owned from 6,009 ms: c-2's two until its restart at 30 s (back at 72,009: outside), ten to the end
    assert len(whole) == 14 and len(cut) == 12
    assert [r for r in cut if r[1] == "c-2"] == [("orders-5", "c-2", lo, 30_000), ("orders-11", "c-2", lo, 30_000)]
    with pytest.raises(ValueError, match=r"window must be \(start_ms, end_ms\)"):
        owners(run, (60_000, 20_000))


# -- protocol sequence diagram -------------------------------------------------------------------
def test_sequence_shows_kip394_member_id_required_for_dynamic_members_only(runs):
    dynamic = protocol.messages(runs["healthy"], (0, 7_000))
    replies = dynamic[dynamic["label"] == "JoinGroup: MEMBER_ID_REQUIRED (79)"]
    assert sorted(replies["member"]) == [f"c-{i}" for i in range(1, 7)]
    static = protocol.messages(runs["static"], (0, 7_000))
    assert not static["label"].str.contains("MEMBER_ID_REQUIRED").any()  # static members skip KIP-394


def test_sequence_shows_rebalance_in_progress_on_heartbeats(runs):
    frame = protocol.messages(runs["gc_pause"], (70_000, 82_000))
    errors = frame[frame["kind"] == "error"]
    assert "Heartbeat: REBALANCE_IN_PROGRESS (27)" in set(errors["label"])
    assert "removes c-2: session_timeout" in set(frame["label"])
    spec, svg = render(viz.sequence_diagram(runs["gc_pause"], window=(70_000, 82_000)))
    assert "REBALANCE_IN_PROGRESS (27)" in svg


def test_sequence_coordinator_notes_name_each_step_of_a_rebalance(runs):
    """protocol._coordinator_note: the removal and its reason, the rebalance's reason cut to 70 characters (the
    log's "removing member M on heartbeat expiration" is longer), the generation with its size, leader and
    assignor, and Stable; in the time order the coordinator wrote them."""
    run = runs["gc_pause"]
    frame = protocol.messages(run, (70_000, 75_000))
    ev = run.events
    reason = ev.loc[(ev["kind"] == "RebalanceStarted") & (ev["time"] == 72_009), "reason"].item()
    assert len(reason) > 70
    assert frame.loc[frame["kind"] == "coordinator note", ["time", "label"]].values.tolist() == [
        [72_009, "removes c-2: session_timeout"], [72_009, f"rebalance: {reason[:69]}…"],
        [72_009, "generation 2: 5 members, leader c-1, assignor range"], [72_009, "Stable, generation 2"]]


def test_sequence_thins_successful_heartbeats(runs):
    run = runs["healthy"]
    everything = viz.sequence_diagram.spec(run, (10_000, 40_000), heartbeats="all", max_messages=10_000)
    errors_only = viz.sequence_diagram.spec(run, (10_000, 40_000), heartbeats="errors")
    n_all = len(everything["data"]["values"])
    assert n_all > 50 and len(errors_only["data"]["values"]) < n_all
    long = viz.sequence_diagram.spec(run, (10_000, 100_000))  # 180 heartbeats: only failures are kept
    assert any("successful heartbeats not shown" in s for s in long["title"]["subtitle"])
    assert not any(r["label"] == "Heartbeat" for r in long["data"]["values"])
    short = viz.sequence_diagram.spec(run, (10_000, 20_000))  # 3 rounds of 6: all shown
    assert sum(r["label"] == "Heartbeat" for r in short["data"]["values"]) == 18
    with pytest.raises(ValueError):
        viz.sequence_diagram(run, heartbeats="some")


def test_sequence_picks_the_interesting_members_of_a_large_group(runs):
    spec = viz.sequence_diagram.spec(runs["fifty"], (55_000, 110_000))
    lanes = next(l for l in spec["layer"] if l["mark"]["type"] == "text" and "lane" in json.dumps(l["encoding"]))
    names = [r["lane"] for r in lanes["data"]["values"]]
    assert names[0] == "coordinator" and "c-7" in names and len(names) == 9


# -- comparison ----------------------------------------------------------------------------------
def test_compare_puts_runs_side_by_side_with_what_differs():
    trace = [faults.Pause("c-2", 30_000, duration_ms=20_000)]
    runs = [simulate(Scenario(**SHORT, consumer={"session.timeout.ms": s}, faults=trace)) for s in (10_000, 45_000)]
    spec, _ = render(viz.compare(runs))
    assert [c["title"]["text"] for c in spec["hconcat"]] == ["session.timeout.ms=10000", "session.timeout.ms=45000"]
    assert "removed 1" in spec["hconcat"][0]["title"]["subtitle"]
    assert "removed 0" in spec["hconcat"][1]["title"]["subtitle"]
    rows, _ = render(viz.compare(runs, charts=("timeline",), labels=["short", "long"], direction="rows"))
    assert [c["title"]["text"] for c in rows["vconcat"]] == ["short", "long"]
    with pytest.raises(ValueError):
        viz.compare(runs[:1])


# -- the grid explorer (sliders without a kernel) ------------------------------------------------
@pytest.fixture(scope="module")
def grid_spec():
    base = Scenario(**SHORT, faults=[faults.Pause("c-2", 30_000, duration_ms=20_000)])
    grid = {"session.timeout.ms": [10_000, 20_000, 30_000, 40_000, 50_000], "heartbeat.interval.ms": [1_000, 3_000]}
    return viz.grid_explorer(base, grid, charts=("timeline", "lag", "summary")).to_dict()


def test_grid_explorer_binds_params_to_inputs(grid_spec):
    params = {p["name"]: p for p in grid_spec["params"]}
    assert params["p_session_timeout_ms"]["bind"] == {"input": "range", "min": 10_000, "max": 50_000, "step": 10_000,
                                                      "name": "session.timeout.ms "}
    # Two numbers are a slider too (two stops), not radio buttons.
    assert params["p_heartbeat_interval_ms"]["bind"] == {"input": "range", "min": 1_000, "max": 3_000, "step": 2_000,
                                                         "name": "heartbeat.interval.ms "}
    assert params["p_heartbeat_interval_ms"]["value"] == 3_000  # the base scenario's value (3.7 default)
    # The time scrubber: over the run (120 s), starting at its end so that the whole run shows.
    assert params["t_s"]["value"] == 120.0 and params["t_s"]["bind"]["input"] == "range"
    assert (params["t_s"]["bind"]["min"], params["t_s"]["bind"]["max"]) == (0.0, 120.0)
    text = json.dumps(grid_spec)
    assert "datum.p_session_timeout_ms == p_session_timeout_ms && datum.p_heartbeat_interval_ms" in text
    assert sum(len(rows) for rows in datasets(grid_spec).values()) < 5000
    vega = vlc.vegalite_to_vega(grid_spec, vl_version=VL_VERSION)
    bound = {s["name"]: s["bind"] for s in vega["signals"] if "bind" in s}
    assert set(bound) == {"p_session_timeout_ms", "p_heartbeat_interval_ms", "t_s"}


def _svg_with(spec: dict, **values) -> str:
    spec = json.loads(json.dumps(spec))
    for param in spec["params"]:
        if param["name"] in values:
            param["value"] = values[param["name"]]
    return vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[])


def test_moving_a_slider_changes_the_picture(grid_spec):
    # session.timeout.ms 10 s: the 20 s pause gets c-2 removed; 50 s: it survives the pause.
    short = _svg_with(grid_spec, p_session_timeout_ms=10_000)
    long = _svg_with(grid_spec, p_session_timeout_ms=50_000)
    assert short != long
    assert "session_timeout 1" in short and "session_timeout 1" not in long


def test_grid_point_that_kafka_rejects_shows_kafkas_error():
    spec = viz.grid_explorer(Scenario(**SHORT), {"heartbeat.interval.ms": [3_000, 60_000]},
                             charts=("timeline", "summary")).to_dict()
    svg = _svg_with(spec, p_heartbeat_interval_ms=60_000)
    assert "Heartbeat must be set lower than the session timeout" in svg


def test_grid_explorer_checks_its_arguments():
    with pytest.raises(ConfigError, match="unknown explorer setting"):
        viz.grid_explorer(Scenario(), {"session.timeout": [1]})
    with pytest.raises(ValueError, match="combinations"):
        viz.grid_explorer(Scenario(), {"members": list(range(1, 70))})
    with pytest.raises(ValueError, match="charts"):
        viz.grid_explorer(Scenario(), {"members": [1, 2]}, charts=("pie",))


# -- settings by Kafka name ----------------------------------------------------------------------
def test_settings_apply_by_kafka_name():
    base = Scenario()
    s = settings.scenario_with(base, {"session.timeout.ms": 10_000, "max.poll.records": 50, "members": 3,
                                      "partitions": 4, "static.membership": True})
    assert s.consumer_config["session.timeout.ms"] == 10_000 and s.consumer_config["max.poll.records"] == 50
    assert (s.members, s.topics, s.static_membership) == (3, {"orders": 4}, True)
    lognormal = settings.scenario_with(base, {"processing.median.ms": 2, "processing.p99.ms": 50}).processing_ms
    assert (lognormal.median_ms, lognormal.p99_ms) == (2, 50)
    pause = settings.scenario_with(base, {"fault": "Pause", "fault.at.ms": 5_000, "fault.duration.ms": 7_000}).faults
    assert pause == (faults.Pause("c-1", 5_000, duration_ms=7_000),)
    assert settings.scenario_with(Scenario(faults=pause), {"fault": "none"}).faults == ()


def test_rebalance_protocol_is_what_the_assignors_imply():
    base = Scenario()
    assert settings.current("rebalance.protocol", base) == "eager"  # 3.x default [range, cooperative-sticky]
    coop = settings.scenario_with(base, {"rebalance.protocol": "cooperative"})
    assert coop.consumer_config["partition.assignment.strategy"] == ["cooperative-sticky"]
    back = settings.scenario_with(coop, {"rebalance.protocol": "eager"})
    assert back.consumer_config["partition.assignment.strategy"] == ["sticky"]
    assert settings.protocol_of(["cooperative-sticky"], "2.3") == "eager"
    assert set(settings.KNOBS["partition.assignment.strategy"].options) == set(ASSIGNORS)


def test_settings_raise_kafkas_errors():
    with pytest.raises(ConfigError, match="Heartbeat must be set lower than the session timeout"):
        settings.scenario_with(Scenario(), {"heartbeat.interval.ms": 50_000})
    with pytest.raises(ConfigError, match="max.poll.interval.ms"):
        settings.scenario_with(Scenario(), {"kafka.version": "0.10.0", "max.poll.interval.ms": 60_000})
    with pytest.raises(ConfigError, match="2.4"):
        settings.scenario_with(Scenario(), {"kafka.version": "2.3", "rebalance.protocol": "cooperative"})
    with pytest.raises(ConfigError, match="unknown explorer setting"):
        settings.scenario_with(Scenario(), {"session_timeout_ms": 1})


def test_version_defaults_follow_kafkas_history():
    base = Scenario()
    # session.timeout.ms: 30000 (0.9) -> 10000 (0.10.1, KIP-62) -> 45000 (3.0, KIP-735).
    assert [settings.version_default("session.timeout.ms", base, v) for v in ("0.10.0", "2.8", "3.7")] == \
        [30_000, 10_000, 45_000]
    assert settings.version_default("max.poll.interval.ms", base, "0.10.0") is None  # before KIP-62
    pinned = Scenario(consumer={"session.timeout.ms": 20_000})
    assert settings.version_default("session.timeout.ms", pinned, "2.8") == 20_000


def test_to_png_renders_offline(runs, tmp_path):
    png = viz.to_png(viz.summary_chart(runs["healthy"]), tmp_path / "summary.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and (tmp_path / "summary.png").stat().st_size == len(png)


def test_grid_explorer_sliders_work_in_a_real_browser(grid_spec, tmp_path, chromium):
    """Open the grid explorer in headless Chromium with vega/vega-lite/vega-embed inlined (no
    network), drag the session.timeout.ms slider as a reader would (an input event on the bound
    <input>), and read the redrawn SVG."""
    script = """
    const svgText = () => document.querySelector('#vis svg').textContent;
    vegaEmbed('#vis', SPEC, {renderer: 'svg', actions: false}).then(async (r) => {
      await r.view.runAsync();
      const before = svgText();
      const slider = document.querySelector('input[type=range][name=p_session_timeout_ms]');
      slider.value = 50000;
      slider.dispatchEvent(new Event('input', {bubbles: true}));
      await new Promise(done => setTimeout(done, 300));
      await r.view.runAsync();
      const after = svgText();
      document.getElementById('result').textContent = JSON.stringify({
        inputs: Array.from(document.querySelectorAll('input')).map(i => [i.type, i.name]),
        signal: r.view.signal('p_session_timeout_ms'),
        before: before.includes('session_timeout 1'), after: after.includes('session_timeout 1')});
    }).catch(e => { document.getElementById('result').textContent = 'ERROR ' + e; });
    """.replace("SPEC", json.dumps(grid_spec, default=list))
    page = tmp_path / "grid.html"
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><script>{vlc.javascript_bundle()}</script>"
                    f"</head><body><div id='vis'></div><pre id='result'>pending</pre><script>{script}</script>"
                    f"</body></html>")
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=10000",
         "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180).stdout
    result = json.loads(html.unescape(re.search(r"<pre id=\"result\">([^<]*)</pre>", dom).group(1)))
    assert ["range", "p_session_timeout_ms"] in result["inputs"]
    assert ["range", "p_heartbeat_interval_ms"] in result["inputs"]
    assert result["signal"] == 50_000
    # The first grid point (10 s) removes the paused member; after the drag to 50 s it survives.
    assert result["before"] and not result["after"]


def test_import_kafkasim_needs_no_chart_libraries():
    code = ("import sys, kafkasim; loaded = {'altair', 'ipywidgets', 'vl_convert'} & set(sys.modules); "
            "assert not loaded, loaded")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the "kafkasim" renderer: offline in JupyterLab, HTML for the book (kafkasim/viz/render.py) ---
def _bundle(chart):
    bundle = chart._repr_mimebundle_()
    return bundle[0] if isinstance(bundle, tuple) else bundle


def test_importing_viz_makes_kafkasim_the_active_renderer():
    import altair as alt

    assert alt.renderers.active == "kafkasim"


def test_live_notebooks_get_the_vegalite5_mime_type_no_cdn(monkeypatch):
    from kafkasim.viz import render

    monkeypatch.delenv(render.ENV, raising=False)
    bundle = _bundle(viz.lag_chart(simulate(Scenario(duration_ms=20_000))))
    assert set(bundle) == {render.MIME_TYPE, "text/plain"}
    assert bundle[render.MIME_TYPE]["$schema"].endswith("/v5.json")
    assert "cdn.jsdelivr" not in json.dumps(bundle)


def test_book_builds_get_altairs_html(monkeypatch):
    from kafkasim.viz import render

    monkeypatch.setenv(render.ENV, "html")
    assert set(_bundle(viz.lag_chart(simulate(Scenario(duration_ms=20_000))))) == {"text/html"}
    monkeypatch.setenv(render.ENV, "svg")
    with pytest.raises(ValueError, match="KAFKASIM_CHARTS must be 'html' or 'mimetype'"):
        render.output_kind()
