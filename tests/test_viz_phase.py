"""Sweep results as charts (kafkasim.viz.phase) and sweeping a field of the processing-time
distribution (kafkasim.analysis.sweep_grid): small tables, no Spark."""

import itertools

import pandas as pd
import pytest

from kafkasim.core.errors import ConfigError
from kafkasim.analysis.sweep_grid import Grid, apply_param, scenario_from_spec
from kafkasim.viz.phase import phase_diagram, sweep_explorer
from kafkasim.scenario.workload import LogNormal

LOGNORMAL = {"type": "LogNormal", "median_ms": 2, "p99_ms": 20}


def test_a_field_of_the_processing_distribution_can_be_swept():
    grid = Grid.from_dict({"base": {"members": 2, "duration_ms": 10_000, "processing_ms": LOGNORMAL},
                           "grid": {"processing_ms.p99_ms": [20, 500]}, "seeds": 1})
    runs = grid.runs()
    assert [r.params for r in runs] == [{"processing_ms_p99_ms": 20}, {"processing_ms_p99_ms": 500}]
    assert grid.param_types() == {"processing_ms_p99_ms": "long"}
    dists = [r.scenario().processing_ms for r in runs]
    assert dists == [LogNormal(2, 20), LogNormal(2, 500)]
    assert LOGNORMAL["p99_ms"] == 20  # the base is copied, never changed


def test_sweeping_a_distribution_field_needs_a_distribution_mapping():
    with pytest.raises(ConfigError, match="processing_ms.p99_ms: base must give processing_ms as a mapping"):
        apply_param({"processing_ms": 2.0}, "processing_ms.p99_ms", 20)
    # A bad value is Kafka-free but still named: LogNormal's own check, with the grid's parameters.
    grid = Grid.from_dict({"base": {"processing_ms": LOGNORMAL}, "grid": {"processing_ms.p99_ms": [1]}})
    with pytest.raises(ConfigError, match=r"processing_ms.p99_ms=1: .*median_ms <= p99_ms"):
        grid.runs()
    assert scenario_from_spec(apply_param({"processing_ms": LOGNORMAL}, "processing_ms.median_ms", 5)
                              ).processing_ms == LogNormal(5, 20)


def _table():
    rows = []
    for version, p99, timeout, records, members in itertools.product(
            ["0.10.0", "3.7"], [10, 500], [6_000, 30_000], [50, 500], [2, 3, 4]):
        storm = p99 == 500 and timeout == 6_000
        rows.append({"kafka_version": version, "processing_ms_p99_ms": p99, "poll_timeout_ms": timeout,
                     "max_poll_records": records, "members": members, "runs": 3,
                     "rebalances_per_hour_mean": 300.0 / members if storm else 0.0,
                     "duplicates_mean": 40.0 * records / 50 if storm else 0.0})
    return pd.DataFrame(rows)


def test_phase_diagram_is_a_valid_faceted_heatmap():
    table = _table()
    chart = phase_diagram(table[table["members"] == 2], "rebalances_per_hour_mean", x="poll_timeout_ms",
                          y="processing_ms_p99_ms", column="max_poll_records", row="kafka_version",
                          labels={"poll_timeout_ms": "poll timeout (s)"})
    spec = chart.to_dict()  # validates against the Vega-Lite schema
    enc = spec["encoding"]
    assert spec["mark"]["type"] == "rect"
    assert enc["x"]["title"] == "poll timeout (s)" and enc["x"]["sort"] == [6_000, 30_000]
    assert enc["x"]["axis"]["labelExpr"] == "datum.value / 1000"  # whole seconds in ms: labelled in s
    assert "axis" not in enc["y"]  # p99 values are ms, under 1000
    assert enc["column"]["field"] == "max_poll_records" and enc["row"]["field"] == "kafka_version"
    assert enc["color"]["scale"]["domain"] == [0, 150.0]
    assert enc["color"]["condition"]["test"] == "datum['rebalances_per_hour_mean'] === 0"  # no storm: grey
    (data,) = spec["datasets"].values()
    assert len(data) == 2 * 2 * 2 * 2  # versions x p99 x timeouts x max.poll.records, for 2 members


def test_sweep_explorer_binds_one_input_per_parameter_and_filters_every_view():
    table = _table()
    chart = sweep_explorer(table, ["rebalances_per_hour_mean", "duplicates_mean"], x="poll_timeout_ms",
                           y="processing_ms_p99_ms",
                           sliders={"members": [2, 3, 4], "max_poll_records": [50, 500], "kafka_version": ["0.10.0", "3.7"]},
                           initial={"kafka_version": "3.7"})
    spec = chart.to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params["p_members"]["bind"]["input"] == "range" and params["p_members"]["value"] == 2
    assert params["p_max_poll_records"]["bind"] == {"input": "range", "min": 50, "max": 500, "step": 450,
                                                    "name": "max_poll_records "}
    assert params["p_kafka_version"]["value"] == "3.7"
    assert len(spec["hconcat"]) == 2
    for view in spec["hconcat"]:
        (step,) = [t for t in view["transform"] if "filter" in t]
        assert step["filter"] == ("datum['members'] == p_members && datum['max_poll_records'] == p_max_poll_records"
                                  " && datum['kafka_version'] == p_kafka_version")
    # One table shared by both views, every combination in it; colour scales fixed to the whole table.
    assert len(spec["datasets"]) == 1 and len(next(iter(spec["datasets"].values()))) == len(table)
    assert [v["encoding"]["color"]["scale"]["domain"] for v in spec["hconcat"]] == [[0, 150.0], [0, 400.0]]


def test_sweep_explorer_names_missing_columns():
    with pytest.raises(ValueError, match=r"columns \['nope'\] are not in the table"):
        sweep_explorer(_table(), ["nope"], x="poll_timeout_ms", y="processing_ms_p99_ms", sliders={"members": [2]})


def test_faceted_panels_are_as_wide_and_tall_as_their_repeated_axis_titles():
    # Each panel repeats the axis titles: "poll timeout (s)" (16 characters, 7 px each, less the 10-px
    # gap) over 2 cells needs 51-px cells; "processing_ms_p99_ms" (20) over 2 rows, 65-px cells.
    table = _table()
    spec = phase_diagram(table[table["members"] == 2], "rebalances_per_hour_mean", x="poll_timeout_ms",
                         y="processing_ms_p99_ms", column="max_poll_records", row="kafka_version",
                         labels={"poll_timeout_ms": "poll timeout (s)"}).to_dict()
    assert (spec["width"], spec["height"]) == ({"step": 51}, {"step": 65})
    alone = phase_diagram(table[table["members"] == 2], "rebalances_per_hour_mean", x="poll_timeout_ms",
                          y="processing_ms_p99_ms").to_dict()
    assert (alone["width"], alone["height"]) == ({"step": 18}, {"step": 18})  # one panel: titles once
