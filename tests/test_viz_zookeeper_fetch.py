"""kafkasim.viz.zookeeper_storm and kafkasim.viz.fetch_sizing: every chart is a valid Vega-Lite spec that renders
offline (vl-convert), its sliders are bound params, and what it draws agrees with the models
(ZookeeperRun.summary, herd_cost, the fetch calculators)."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd
import pytest
import vl_convert as vlc

from kafkasim import faults
from kafkasim.core.errors import ConfigError
from kafkasim.core.java import INT_MAX
from kafkasim.broker.fetch_sizing import MiB, sizing_for_message, zookeeper_consumer_fetch
from kafkasim.viz import fetch_sizing as vf, sliders, zookeeper_storm as vz
from kafkasim.analysis.experiments import compare_with_group_coordinator
from kafkasim.zookeeper.consumer_connector import (herd_cost, seed_incident,
                                         simulate_zookeeper)
from vega_fields import missing_fields  # (tests/ is on sys.path)

VL_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def render(chart) -> dict:
    """Validate against the Vega-Lite schema (Altair) and render to SVG offline, which compiles the
    spec and runs its dataflow (a bad expression or encoding fails here)."""
    spec = chart.to_dict()
    svg = vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[])
    assert svg.startswith("<svg")
    assert missing_fields(spec) == []  # every encoded field is a column of its data
    return spec


def datasets(spec: dict) -> list[list[dict]]:
    return list(spec.get("datasets", {}).values())


def bound_params(spec: dict) -> dict:
    return {p["name"]: p for p in spec.get("params", []) if "bind" in p}


@pytest.fixture(scope="module")
def storm():
    small = dict(topics=3, consumers=20, partitions=20, duration_ms=30_000)
    return {"one group name": simulate_zookeeper(seed_incident(**small)),
            "a group per topic": simulate_zookeeper(seed_incident(True, **small))}


# -- ZooKeeper -------------------------------------------------------------------------------------
def test_storm_frame_counts_the_connectors_that_stop(storm):
    shared, fixed = storm["one group name"], storm["a group per topic"]
    frame = vz.storm_frame(shared, 100)
    # 59 connectors rebalance after the disconnect at 10 s, and nobody before it; the mean count
    # per bucket integrates to the fetching time they lost
    assert frame[frame.time_s < 10].rebalancing.max() == 0
    assert (frame.rebalancing * 100).sum() == pytest.approx(shared.summary["consumer_downtime_ms"], rel=1e-3)
    assert vz.storm_frame(shared, 1).rebalancing.max() == shared.summary["consumers_rebalanced"] == 59
    assert frame.reads.sum() == pytest.approx(shared.summary["zk_reads"])
    assert vz.storm_frame(fixed, 100).rebalancing.max() <= fixed.summary["consumers_rebalanced"] == 19


def test_storm_charts_render_one_line_per_run(storm):
    for chart in (vz.storm_chart(storm), vz.rebalancing_over_time(storm), vz.zookeeper_load(storm)):
        spec = render(chart)
        runs = {row["run"] for data in datasets(spec) for row in data if "run" in row}
        assert runs == set(storm)
    one = render(vz.rebalancing_over_time(storm["one group name"]))
    assert any(row.get("short") == "ScaleIn topic-00-01" for data in datasets(one) for row in data)


def test_connector_states_has_a_row_per_connector():
    run = simulate_zookeeper(seed_incident(topics=2, consumers=3, partitions=3, duration_ms=20_000))
    spec = render(vz.connector_states(run, (9_000, 12_000)))
    rows = [r for data in datasets(spec) for r in data if "state" in r]
    assert {r["member"] for r in rows} == {f"main_topic-0{t}-{i}" for t in range(2) for i in range(1, 4)}
    assert {"consuming", "rebalancing", "closed"} <= {r["state"] for r in rows}
    with pytest.raises(ValueError, match="max_members"):
        vz.connector_states(simulate_zookeeper(seed_incident(topics=3, consumers=30, partitions=30,
                                                             duration_ms=20_000)))


def test_herd_curve_plots_herd_cost():
    spec = render(vz.herd_curve((120, 1200), mark=1199))
    reads = {r["consumers"]: r["count"] for data in datasets(spec) for r in data if r.get("request") == "reads"}
    assert reads[1199] == herd_cost(1199, partitions=1200, owned_before=1199)["reads"] == 1_456_786
    assert 85 < reads[1200] / reads[120] < 100    # about (1200 / 120) ** 2


def test_coordinator_contrast_bars():
    df = compare_with_group_coordinator(topics=3, consumers=4, partitions=4, duration_ms=30_000)
    spec = render(vz.coordinator_contrast(df))
    bars = [r for data in datasets(spec) for r in data if "rebalanced" in r]
    assert sorted(r["rebalanced"] for r in bars) == sorted(df["consumers rebalanced"])
    assert len(spec["vconcat"]) == 2


def test_storm_explorer_has_a_control_per_setting_and_filters_by_them():
    grid = {"group.id naming": ["one group name", "a group per topic"], "topics": [2, 3, 4],
            "zookeeper capacity": [0, 20_000]}
    spec = render(vz.storm_explorer(grid, duration_ms=30_000, initial={"topics": 3}))
    params = bound_params(spec)
    # A category is radio buttons; numbers are sliders; the named capacity ("unlimited" for 0) is a
    # slider over its two positions, the value computed from the index, its name in the readout.
    assert set(params) == {"p_group_id_naming", "p_topics", "p_zookeeper_capacity__i"}
    assert params["p_group_id_naming"]["bind"]["input"] == "radio"
    assert params["p_topics"]["bind"] == {"input": "range", "min": 2, "max": 4, "step": 1, "name": "topics "}
    assert params["p_topics"]["value"] == 3
    assert params["p_zookeeper_capacity__i"]["bind"] | {"name": ""} == {"input": "range", "min": 0, "max": 1,
                                                                         "step": 1, "name": ""}
    computed = {p["name"]: p for p in spec["params"]}["p_zookeeper_capacity"]
    assert computed == {"name": "p_zookeeper_capacity", "expr": "[0, 20000][p_zookeeper_capacity__i]"}
    text = json.dumps(spec)
    assert "datum.p_topics == p_topics" in text and "datum.p_zookeeper_capacity == p_zookeeper_capacity" in text
    assert '[\\"unlimited\\", \\"20,000\\"][indexof([0, 20000], p_zookeeper_capacity)]' in text
    # every grid point has its key numbers: 2 x 3 x 2 runs
    numbers = [r for data in datasets(spec) for r in data if r.get("label") == "connectors that rebalanced"]
    assert len(numbers) == 12
    shared4 = [r for r in numbers if r["p_topics"] == 4 and r["p_group_id_naming"] == "one group name"]
    assert {r["value"] for r in shared4} == {f"{4 * 120 - 1:,}"}
    with pytest.raises(ValueError, match="unknown settings"):
        vz.storm_explorer({"session.timeout.ms": [1]})


def test_bad_storm_settings_are_config_errors():
    with pytest.raises(ConfigError, match=r"topics.*\[1, \+inf\]"):
        vz.storm_grid_frames({"topics": [0]})
    with pytest.raises(ConfigError, match=r"zk_ops_per_s.*\[1, \+inf\]"):
        simulate_zookeeper(seed_incident(zk_ops_per_s=0.5))


# -- fetch sizing ------------------------------------------------------------------------------------
def test_response_sizes_flag_the_seed_overflow():
    sizing = sizing_for_message(300 * MiB, partitions=360)
    spec = render(vf.response_sizes(sizing))
    bars = {r["version"]: r for data in datasets(spec) for r in data if "version" in r}
    assert [bars[v]["overflow"] for v in ("0.8.2", "0.9", "0.10.1", "3.7")] == [True, True, False, False]
    assert bars["0.8.2"]["text"] == "105.47 GiB" and bars["3.7"]["text"] == "300.0 MiB"
    assert bars["0.8.2"]["verdict"].startswith("OVERFLOW: the 32-bit size wraps to 1,577,064,803")
    limit = [r for data in datasets(spec) for r in data if r.get("label", "").startswith("Int.MaxValue")]
    assert limit[0]["bytes"] == INT_MAX


def test_sizing_for_message_configures_each_version_to_carry_it():
    df = sizing_for_message(50 * MiB, partitions=360, consumers=8, consumers_per_jvm=8, chunks=1)
    assert df.heap_bytes_seed_formula.iloc[0] == 8 * 45 * 1 * 50 * MiB              # the seed's 18 GB
    assert list(df.partition_limit_bytes) == [50 * MiB, 50 * MiB, MiB, MiB]
    assert df.ok.tolist() == [False, False, True, True] and not df.message_too_large.any()
    small = sizing_for_message(1000, partitions=10)
    assert small.ok.all() and small.partition_limit_bytes.iloc[0] == MiB
    with pytest.raises(ConfigError, match=r"message_bytes.*\[1, 2147483647\]"):
        sizing_for_message(0, partitions=10)


def test_heap_chart_and_overflow_boundary_render():
    spec = render(vf.heap_chart({"seed": 8 * 45 * 50 * MiB, "3.7": 400 * MiB}, max_heap_bytes=24 * 2**30))
    assert any(r.get("text") == "17.58 GiB" for data in datasets(spec) for r in data)
    marks = pd.DataFrame({"label": ["before", "after", "two leaders"], "fetch_mib": [300, 50, 50],
                          "partitions": [360, 45, 23]})
    spec = render(vf.overflow_boundary(marks))
    over = {r["label"]: r["over"] for data in datasets(spec) for r in data if "over" in r}
    assert over == {"before": True, "after": True, "two leaders": False}


def test_boundary_agrees_with_the_calculator():
    frame = vf.boundary_frame((1, 10, 300))
    for mib, fits in zip(frame.fetch_mib, frame.partitions):
        row = zookeeper_consumer_fetch(partitions=fits, consumer={"fetch.message.max.bytes": mib * MiB})
        assert row["max_partitions_per_request"] == fits and not row["overflow"]
        assert zookeeper_consumer_fetch(partitions=fits + 1, consumer={"fetch.message.max.bytes": mib * MiB})[
            "overflow"]


def test_fetch_calculator_precomputes_every_workload():
    grid = {"partitions": [120, 360], "consumers": [1, 8, 60], "message_mib": [1, 300], "leader_brokers": [1, 2]}
    spec = render(vf.fetch_calculator(grid, initial={"partitions": 360, "message_mib": 300}))
    params = bound_params(spec)
    assert set(params) == {"p_partitions", "p_consumers__i", "p_message_mib", "p_leader_brokers"}
    assert params["p_partitions"]["value"] == 360
    assert params["p_consumers__i"]["bind"]["max"] == 2  # 1, 8, 60: three stops of a slider
    lines = [r for data in datasets(spec) for r in data if "line" in r]
    assert len(lines) == 2 * 3 * 2 * 2 * 4
    seed = [r for r in lines if (r["p_partitions"], r["p_consumers"], r["p_message_mib"], r["p_leader_brokers"])
            == (360, 1, 300, 1)]
    assert [r["overflow"] for r in seed] == [True, True, False, False]
    fixed = [r for r in lines if (r["p_partitions"], r["p_consumers"], r["p_message_mib"], r["p_leader_brokers"])
             == (360, 60, 300, 1)]
    assert not any(r["overflow"] for r in fixed)              # 60 consumers: 6 partitions each fit
    with pytest.raises(ValueError, match="missing"):
        vf.fetch_calculator({"partitions": [1]})


def test_slider_binding_kinds():
    # Numbers are sliders: over the values when evenly spaced, else over their positions.
    assert sliders.binding([1, 2, 3], "x ") == {"input": "range", "min": 1, "max": 3, "step": 1, "name": "x "}
    assert sliders.binding([3_000, 1_000], "x ") == {"input": "range", "min": 1_000, "max": 3_000, "step": 2_000,
                                                     "name": "x "}
    assert sliders.binding([1, 2, 5, 10, 20], "x ") == {"input": "range", "min": 0, "max": 4, "step": 1, "name": "x "}
    assert sliders.binding([0, 10, 20], "x ", ["none", "10", "20"])["max"] == 2  # named values: by position
    # Categories are radio buttons (up to 4) or a drop-down.
    assert sliders.binding(["a", "b"], "x ")["input"] == "radio"
    assert sliders.binding(["0.10.0", "2.8", "3.7", "4.0", "4.1"], "x ")["input"] == "select"
    assert sliders.binding([True, False], "x ")["input"] == "radio"
    assert sliders.binding([7], "x ")["input"] == "radio"
    assert sliders.matches(["a.b", "c"]) == "datum.p_a_b == p_a_b && datum.p_c == p_c"
