"""kafkasim.viz.pause_resume: every chart is a valid Vega-Lite spec that renders offline, and what it draws
agrees with the run's own accounting (PauseRun.summary) and with Kafka's SubscriptionState
(cooperative keeps the flags of retained partitions, eager clears them all)."""

from __future__ import annotations

import json

import altair as alt
import pytest
import vl_convert as vlc

from kafkasim.core.errors import ConfigError
from kafkasim.client.pause_resume import COOPERATIVE, EAGER, PauseScenario, simulate_pause, sweep
from kafkasim.viz import pause_resume as pviz
from test_viz import VL_VERSION, _svg_with, render as render_offline  # (tests/ is on sys.path)

SCENARIOS = {
    "3.7 eager": dict(),
    "2.4 eager": dict(kafka_version="2.4"),
    "2.3 eager lost": dict(kafka_version="2.3", changes=((12_000, "lost", "consumer-1"),)),
    "3.7 cooperative": dict(protocol=COOPERATIVE),
    "3.7 cooperative leave": dict(protocol=COOPERATIVE, changes=((12_000, "leave", None),)),
    "consumer pause": dict(remedy="proposal_consumer_pause"),
    "repause": dict(remedy="repause_on_assigned", app_loop="pause_once"),
}


@pytest.fixture(scope="module")
def runs():
    return {name: simulate_pause(**kw) for name, kw in SCENARIOS.items()}


@pytest.fixture(scope="module")
def small_sweep():
    return sweep(versions=("2.3", "2.4", "3.7"))


def render(chart) -> tuple[dict, str]:
    """test_viz.render (schema-validated, rendered offline to SVG), and every table embedded."""
    spec, svg = render_offline(chart)
    assert "url" not in json.dumps(spec.get("data", {}))  # offline pages
    return spec, svg


# -- valid, rendering specs ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", SCENARIOS)
def test_timeline_is_valid_vega_lite_and_renders(runs, name):
    spec, svg = render(pviz.pause_timeline(runs[name]))
    assert spec["$schema"].endswith(f"{alt.SCHEMA_VERSION}.json")
    assert "orders-5" in svg


def test_timeline_window_clips_every_table(runs):
    run = runs["3.7 eager"]
    frames = pviz.timeline_frames(run, (14_000, 16_000))
    for kind in ("owned", "paused", "bands"):
        assert frames[kind].start_s.min() >= 14 and frames[kind].end_s.max() <= 16
    assert len(frames["unexpected"]) == 3 and frames["marks"].empty  # pause at 6 s, join at 12 s: outside
    render(pviz.pause_timeline(run, (14_000, 16_000)))
    assert pviz.pause_timeline.spec(run)["width"] == 680  # the dict behind the chart
    with pytest.raises(ValueError, match="window"):
        pviz.pause_timeline(run, (20_000, 10_000))


def test_sweep_charts_are_valid_and_show_every_run(small_sweep):
    spec, svg = render(pviz.unexpected_chart(small_sweep))
    for label in ("2.3 eager", "2.4 eager", "2.4 cooperative", "3.7 cooperative"):
        assert label in svg
    assert "2.3 cooperative" not in svg  # no cooperative protocol before KIP-429
    spec, svg = render(pviz.remedy_matrix(small_sweep))
    assert "proposal_consumer_pause (proposal)" in svg and "repause_on_assigned (proposal)" not in svg
    with pytest.raises(ValueError, match="no rows for remedy"):
        pviz.unexpected_chart(small_sweep, remedy="pray")


# -- what the timeline draws agrees with the run ----------------------------------------------------------
#: (records returned while paused, pause flags cleared), by hand: 2 members pause all 6 partitions at
#: 6 s; a third joins at 12 s; max.poll.records is 500. Eager revokes all 6 (6 flags cleared) and each
#: of the 3 members gets one poll() of unpaused partitions before its loop pauses again: 3 x 500.
#: Cooperative revokes only the 2 partitions that move to the newcomer: 2 flags, 1 x 500. When a
#: member leaves instead, its partitions reach the other unpaused (nothing revoked there): 500. A
#: consumer-level pause is never cleared: nothing returned; re-pausing in onPartitionsAssigned
#: clears the 6 flags but pauses again before poll() returns. (2.3's lost partitions: not derived.)
UNEXPECTED = {"3.7 eager": (1500, 6), "2.4 eager": (1500, 6), "3.7 cooperative": (500, 2),
              "3.7 cooperative leave": (500, 0), "consumer pause": (0, 0), "repause": (0, 6)}


@pytest.mark.parametrize("name", SCENARIOS)
def test_red_dots_and_crosses_add_up_to_the_summary(runs, name):
    run = runs[name]
    records, cleared = run.summary["unexpected_records"], sum(run.summary["pause_flags_cleared"].values())
    assert pviz.unexpected_points(run).records.sum() == records
    assert len(pviz.cleared_marks(run)) == cleared
    assert (records, cleared) == UNEXPECTED.get(name, (records, cleared))


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_partition_has_two_owners_only_for_an_expelled_consumer_before_2_4(runs, name):
    """<= 2.3, an expelled member's assignment() keeps the old partitions until its rejoin completes
    (onJoinComplete installs fresh state), while their new owner already consumes: the zombie that
    2.4's onPartitionsLost path removed (KIP-429). Otherwise a partition has one owner at a time."""
    owned = pviz.owned_intervals(runs[name])
    overlaps = set()
    for p, rows in owned.groupby("partition"):
        rows = rows.sort_values("start")
        if not (rows.start.to_numpy()[1:] >= rows.end.to_numpy()[:-1]).all():
            overlaps.add(p)
    assert overlaps == ({0, 1, 2} if name == "2.3 eager lost" else set())


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_flag_is_only_set_on_an_owned_partition(runs, name):
    owned, paused = pviz.owned_intervals(runs[name]), pviz.paused_intervals(runs[name])
    for r in paused.itertuples():
        mine = owned[(owned.member == r.member) & (owned.partition == r.partition)]
        assert ((mine.start <= r.start) & (mine.end >= r.end)).any(), r


def test_eager_clears_every_flag_in_the_rebalance(runs):
    """C.2, eager 2.4+: onJoinPrepare's assignFromSubscribed(empty) clears all six flags at the join."""
    cleared = pviz.cleared_marks(runs["3.7 eager"])
    assert sorted(cleared.partition) == list(range(6))
    assert set(cleared.time) == {15_000} and set(cleared.reason) == {"revocation"}


def test_before_2_4_the_flags_go_with_fresh_state(runs):
    assert set(pviz.cleared_marks(runs["2.3 eager lost"]).reason) == {"fresh_state"}


def test_cooperative_keeps_the_flag_of_retained_partitions(runs):
    """C.2, cooperative: p0-p3 stay paused from the pause loop to resume, in one unbroken interval;
    only the moved p4, p5 lose the flag (cleared once each) and come back at consumer-3."""
    paused = pviz.paused_intervals(runs["3.7 cooperative"])
    s = runs["3.7 cooperative"].scenario
    for p in range(4):
        rows = paused[paused.partition == p]
        assert len(rows) == 1 and rows.start.iloc[0] < s.changes[0][0] and rows.end.iloc[0] >= s.resume_at_ms
    cleared = pviz.cleared_marks(runs["3.7 cooperative"])
    assert sorted(cleared.partition) == [4, 5]
    dots = pviz.unexpected_points(runs["3.7 cooperative"])
    assert set(dots.member) == {"consumer-3"} and set(dots.partition) <= {4, 5}


def test_buffered_path_only_in_2_4_eager(runs):
    """C.4 path (a): 2.4's blocking join returns buffered data; from 2.5 only fresh fetches come back."""
    assert set(pviz.unexpected_points(runs["2.4 eager"]).path) == {"buffered", "new fetch"}
    assert set(pviz.unexpected_points(runs["3.7 eager"]).path) == {"new fetch"}


def test_consumer_level_pause_is_drawn_on_owned_partitions_and_never_cleared(runs):
    run = runs["consumer pause"]
    paused = pviz.paused_intervals(run)
    assert set(paused.by) == {"consumer-level pause"}
    assert set(paused.partition) == set(range(6))
    assert pviz.cleared_marks(run).empty and pviz.unexpected_points(run).empty


def test_repausing_listener_shows_as_the_pauser(runs):
    paused = pviz.paused_intervals(runs["repause"])
    assert {"application", "onPartitionsAssigned"} <= set(paused.by)
    assert pviz.unexpected_points(runs["repause"]).empty


def test_scenario_marks_name_the_change(runs):
    assert list(pviz.scenario_marks(runs["3.7 cooperative leave"]).short) == ["pause loop", "resume", "leave"]
    assert list(pviz.scenario_marks(runs["consumer pause"]).short)[0] == "pause()"


# -- the kernel-free explorer --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def explorer_spec():
    grid = {"max.poll.records": [100, 300, 500], "kafka_version": ["2.3", "3.7"], "protocol": [EAGER, COOPERATIVE]}
    return pviz.pause_explorer(PauseScenario(), grid).to_dict()


def test_explorer_binds_a_range_slider_and_radios(explorer_spec):
    params = {p["name"]: p for p in explorer_spec["params"]}
    assert params["p_max_poll_records"]["bind"] == {"input": "range", "min": 100, "max": 500, "step": 200,
                                                    "name": "max.poll.records "}
    assert params["p_max_poll_records"]["value"] == 500  # the base scenario's (the 3.7 default)
    assert params["p_kafka_version"]["bind"]["input"] == "radio" and params["p_kafka_version"]["value"] == "3.7"
    vega = vlc.vegalite_to_vega(explorer_spec, vl_version=VL_VERSION)
    assert {s["name"] for s in vega["signals"] if "bind" in s} == {"p_max_poll_records", "p_kafka_version",
                                                                   "p_protocol"}
    assert sum(len(rows) for rows in explorer_spec["datasets"].values()) < 5000


def test_moving_the_slider_redraws_with_the_simulated_numbers(explorer_spec):
    """Three members each get max.poll.records unexpected records in the poll that ends the eager rebalance."""
    full = _svg_with(explorer_spec, p_max_poll_records=500)
    small = _svg_with(explorer_spec, p_max_poll_records=100)
    assert full != small
    assert ">1,500<" in full and ">300<" in small
    assert simulate_pause(consumer={"max.poll.records": 100}).summary["unexpected_records"] == 300


def test_explorer_point_kafka_rejects_shows_kafkas_reason(explorer_spec):
    svg = _svg_with(explorer_spec, p_kafka_version="2.3", p_protocol=COOPERATIVE)
    assert "Kafka says" in svg and "2.4" in svg


def test_explorer_checks_its_arguments():
    with pytest.raises(ConfigError, match="unknown explorer setting"):
        pviz.pause_explorer(PauseScenario(), {"session.timeout.ms": [10_000]})
    with pytest.raises(ValueError, match="combinations"):
        pviz.pause_explorer(PauseScenario(), {"max.poll.records": list(range(1, 200))})
    with pytest.raises(ValueError, match="at least one"):
        pviz.pause_explorer(PauseScenario(), {})


def test_scenario_with_applies_kafka_names():
    s = pviz.scenario_with(PauseScenario(), {"max.poll.records": 50, "change": "lost", "protocol": COOPERATIVE})
    assert s.consumer_config["max.poll.records"] == 50
    assert s.changes == ((12_000, "lost", "consumer-1"),) and s.strategy == "cooperative-sticky"


# -- the live explorer -----------------------------------------------------------------------------------
def test_live_explorer_resimulates_on_every_change():
    from kafkasim.viz.widgets import PauseExplorer

    box = PauseExplorer()
    first = box.run
    assert first.summary["unexpected_records"] == 1500 and len(box.output.outputs) == 1
    assert list(box.controls) == list(pviz.GRID_SETTINGS)
    assert type(box.controls["protocol"]).__name__ == "ToggleButtons"
    box.set("remedy", "repause_on_assigned")
    assert box.run is not first and box.run.summary["unexpected_records"] == 0
    box.set("kafka_version", "2.3")
    box.set("protocol", COOPERATIVE)   # no cooperative before 2.4: Kafka's error, no chart
    assert box.run is None and "2.4" in box.error.value
    assert box.output.outputs == ()
