"""Charts, knobs and explorers of the broker network model (kafkasim.viz.network, NetworkExplorer):
valid Vega-Lite, and numbers on the charts that agree with the run they draw."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kafkasim.core.errors import ConfigError
from kafkasim.broker.network import MiB, kip72_experiments, simulate_network
from kafkasim.viz import network as nv
from vega_fields import missing_fields  # (tests/ is on sys.path)

EXPERIMENTS = kip72_experiments()


def short(scenario, ms=3_000):
    return scenario.replace(duration_ms=ms)


@pytest.fixture(scope="module")
def memory_runs():
    return {k: simulate_network(short(s)) for k, s in EXPERIMENTS["memory_limit"].items()}


@pytest.fixture(scope="module")
def starvation_runs():
    return {k: simulate_network(short(s)) for k, s in EXPERIMENTS["starvation"].items()}


# -- every chart is valid Vega-Lite ------------------------------------------------------------
@pytest.mark.parametrize("name", list(nv.CHARTS))
@pytest.mark.parametrize("several", [False, True])
def test_every_chart_is_valid_vega_lite(memory_runs, name, several):
    runs = memory_runs if several and name != "summary" else memory_runs["bounded"]
    chart = nv.CHARTS[name](runs)
    spec = chart.to_dict()  # validate=True: raises on any schema error
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    json.dumps(spec)  # plain JSON, nothing numpy left
    assert missing_fields(spec) == []  # every encoded field is a column of its data
    assert nv.CHARTS[name].spec(runs) is not None


def test_charts_take_a_window(memory_runs):
    run = memory_runs["bounded"]
    frame = nv.memory_frame(run, window=(1_000, 2_000))
    assert frame["time_s"].min() == 1.0 and frame["time_s"].max() == 2.0
    nv.memory_chart(run, (1_000, 2_000)).to_dict()
    nv.throughput_chart(run, (1_000, 2_000)).to_dict()
    nv.depleted_chart(run, (1_000, 2_000)).to_dict()


# -- the numbers on the charts are the run's ---------------------------------------------------
def test_memory_chart_keeps_the_peak_and_draws_bound_and_overshoot_limit(memory_runs):
    for label, run in memory_runs.items():
        frame = nv.memory_frame(run, label)
        assert len(frame) <= nv.MEMORY_POINTS + 2
        assert frame["mib"].max() * MiB == pytest.approx(run.summary["peak_memory_bytes"])
    bounds = nv.bound_frame(memory_runs["bounded"])
    s = memory_runs["bounded"].summary
    assert list(bounds["mib"] * MiB) == pytest.approx([s["bound_bytes"], s["overshoot_limit_bytes"]])
    assert s["bound_bytes"] < s["peak_memory_bytes"] <= s["overshoot_limit_bytes"]  # the lenient overshoot, drawn
    assert len(nv.bound_frame(memory_runs["unbounded"])) == 0


def test_latency_components_add_up_to_client_latency_and_hidden_ones_are_labelled(memory_runs):
    for label, run in memory_runs.items():
        frame = nv.latency_frame(run, label)
        assert frame["mean_ms"].sum() == pytest.approx(run.summary["client_latency_ms"]["mean"], abs=0.01)
        hidden = frame[frame["in_kafka"] == "no"]
        assert len(hidden) == 4 and all(c.endswith(nv.HIDDEN_MARK) for c in hidden["component"])
        shown = frame[frame["in_kafka"] != "no"]
        assert set(shown["component"]) == {"RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs",
                                           "ResponseQueueTimeMs", "ResponseSendTimeMs"}
        # Kafka's components add up to the mean TotalTimeMs
        assert shown["mean_ms"].sum() == pytest.approx(
            run.summary["kafka_request_metrics_ms"]["TotalTimeMs"]["mean"], abs=0.01)
    memory_wait = "waiting for pool memory" + nv.HIDDEN_MARK
    waits = {k: nv.latency_frame(r).set_index("component").loc[memory_wait, "mean_ms"] for k, r in memory_runs.items()}
    assert waits["unbounded"] == 0 and waits["bounded"] > 0


def test_percentiles_match_the_summary(memory_runs):
    run = memory_runs["bounded"]
    pct = nv.percentile_frame(run).set_index(["measure", "percentile"])["ms"]
    s = run.summary
    assert pct[("TotalTimeMs (Kafka)", "p99")] == pytest.approx(s["kafka_request_metrics_ms"]["TotalTimeMs"]["p99"])
    assert pct[("client latency (not in Kafka metrics)", "p99")] == pytest.approx(s["client_latency_ms"]["p99"])


def test_throughput_bins_account_for_every_byte(memory_runs):
    run = memory_runs["bounded"]
    frame = nv.throughput_frame(run)
    df = run.requests
    width_s = frame["time_s"].iloc[1] - frame["time_s"].iloc[0]
    edges_end = np.minimum(frame["time_s"] + width_s, run.end_ms / 1000)
    frame = frame.assign(bytes=frame["mb_per_s"] * 1e6 * (edges_end - frame["time_s"]))
    by = frame.groupby("what")["bytes"].sum()
    assert by["completed"] == pytest.approx(df.loc[df["end"].notna(), "size_bytes"].sum(), rel=1e-9)
    assert by["offered"] == pytest.approx(df["size_bytes"].sum(), rel=1e-9)


def test_depleted_spells_add_up_to_memory_pool_depleted_time_total(memory_runs):
    bounded, unbounded = memory_runs["bounded"], memory_runs["unbounded"]
    spells = nv.depleted_frame(bounded)
    assert spells["ms"].sum() == bounded.summary["memory_pool_depleted_time_total_ms"] > 0
    merged = nv.merge_spells(spells, 0.01)
    assert merged["ms"].sum() == spells["ms"].sum() and merged["spells"].sum() == len(spells)
    assert len(merged) < len(spells)
    assert (merged["start_s"].iloc[1:].to_numpy() - merged["end_s"].iloc[:-1].to_numpy() >= 0.01).all()
    assert len(nv.depleted_frame(unbounded)) == 0
    assert nv.depleted_totals(unbounded)["text"][0] == "unbounded: never depleted"
    share = nv.depleted_totals(bounded)["percent"][0]
    assert share == pytest.approx(bounded.summary["memory_pool_avg_depleted_percent"], abs=0.01)


def test_fairness_shows_the_starved_clients_without_the_shuffle(starvation_runs):
    for label, run in starvation_runs.items():
        frame = nv.fairness_frame(run, label)
        clients = run.clients
        assert list(frame["client"]) == list(clients["client"])
        assert np.allclose(frame["ratio"], clients["completion_ratio"].round(4))
        assert (frame["completed"] == 0).sum() == run.summary["starved_clients"]
    assert starvation_runs["no shuffle"].summary["starved_clients"] > 0 == starvation_runs["shuffle"].summary[
        "starved_clients"]
    assert "starved" in nv.fairness_totals(starvation_runs["no shuffle"], "no shuffle")["text"][0]


def test_key_numbers_say_which_waits_kafka_does_not_show(memory_runs):
    pairs = dict(nv.key_numbers(memory_runs["bounded"].summary))
    assert pairs["queued.max.request.bytes"] == "10.00 MiB"
    assert "memory wait p99 (not in Kafka metrics)" in pairs
    assert dict(nv.key_numbers(memory_runs["unbounded"].summary))["queued.max.request.bytes"] == "unbounded"


# -- knobs ------------------------------------------------------------------------------------
def test_knobs_set_broker_configs_and_the_producers():
    base = EXPERIMENTS["memory_limit"]["bounded"]
    sc = nv.network_scenario_with(base, {"queued.max.request.bytes": 20 * MiB, "num.io.threads": 2,
                                         "producers": 7, "max.request.size": 500_000, "requests.per.s": 1,
                                         "shuffle.on.low.memory": False})
    assert sc.broker_config["queued.max.request.bytes"] == 20 * MiB and sc.broker_config["num.io.threads"] == 2
    assert sc.broker_config["socket.request.max.bytes"] == MiB  # the base's override is kept
    group = sc.clients[0]
    assert (group.count, group.size_bytes, group.rate_per_s) == (7, (10_000, 500_000), 1)
    assert sc.shuffle_on_low_memory is False
    for name in nv.NETWORK_KNOBS:
        assert nv.network_current(name, sc) is not None
    assert nv.network_current("max.request.size", sc) == 500_000


def test_knobs_raise_kafkas_errors():
    base = EXPERIMENTS["memory_limit"]["bounded"]
    with pytest.raises(ConfigError, match="queued.max.request.bytes must be larger or equal to socket.request.max"):
        nv.network_scenario_with(base, {"queued.max.request.bytes": MiB // 2})
    with pytest.raises(ConfigError, match="InvalidReceiveException"):
        nv.network_scenario_with(base, {"max.request.size": 5 * MiB})
    with pytest.raises(ConfigError, match="unknown network explorer setting"):
        nv.network_scenario_with(base, {"session.timeout.ms": 10_000})


# -- the kernel-free explorer -----------------------------------------------------------------
GRID = {"queued.max.request.bytes": [-1, MiB // 2, 10 * MiB], "num.io.threads": [2, 8]}


@pytest.fixture(scope="module")
def grid_spec():
    return nv.network_grid_explorer(short(EXPERIMENTS["memory_limit"]["bounded"], 2_000), GRID).to_dict()


def test_grid_explorer_binds_one_input_per_knob(grid_spec):
    params = {p["name"]: p for p in grid_spec["params"]}
    assert set(params) == {"p_queued_max_request_bytes__i", "p_queued_max_request_bytes", "p_num_io_threads"}
    # Uneven byte counts: a slider over their positions, starting at the base's value; the value
    # param is computed from it, and the filter reads the value.
    q = params["p_queued_max_request_bytes__i"]
    values = GRID["queued.max.request.bytes"]
    assert q["bind"]["input"] == "range" and (q["bind"]["min"], q["bind"]["max"]) == (0, len(values) - 1)
    assert q["value"] == values.index(10 * MiB)  # the base's value
    assert q["bind"]["name"].strip() == "queued.max.request.bytes"
    assert params["p_queued_max_request_bytes"]["expr"] == f"{values}[p_queued_max_request_bytes__i]"
    text = json.dumps(grid_spec)
    assert "datum.p_queued_max_request_bytes == p_queued_max_request_bytes" in text


def test_grid_explorer_embeds_every_run_and_kafkas_error(grid_spec):
    rows = [r for data in grid_spec["datasets"].values() for r in data]
    memory = [r for r in rows if "mib" in r and "time_s" in r]
    peaks = {}
    for r in memory:
        key = (r["p_queued_max_request_bytes"], r["p_num_io_threads"])
        peaks[key] = max(peaks.get(key, 0), r["mib"])
    assert set(peaks) == {(q, t) for q in (-1, 10 * MiB) for t in (2, 8)}  # the rejected point has no run
    assert peaks[(-1, 2)] > peaks[(10 * MiB, 2)]  # moving the slider changes the picture
    assert peaks[(10 * MiB, 2)] * MiB < 10 * MiB + MiB  # below the overshoot limit
    errors = [r for r in rows if r.get("label") == "Kafka says"]
    assert len(errors) == 2 and "must be larger or equal to socket.request.max.bytes" in errors[0]["value"]


def test_grid_explorer_refuses_bad_input():
    base = EXPERIMENTS["memory_limit"]["bounded"]
    with pytest.raises(ConfigError):
        nv.network_grid_explorer(base, {"members": [1, 2]})
    with pytest.raises(ValueError, match="charts must be"):
        nv.network_grid_explorer(base, {"num.io.threads": [1]}, charts=("timeline",))


# -- the live explorer ------------------------------------------------------------------------
def test_network_explorer_redraws_and_shows_kafkas_errors():
    from kafkasim.viz.widgets import NetworkExplorer

    e = NetworkExplorer(short(EXPERIMENTS["memory_limit"]["bounded"], 2_000), debounce_ms=0)
    assert e.controls["queued.max.request.bytes"].value == 10 * MiB and e.controls["producers"].value == 100
    assert len(e.output.outputs) == 3 and "not in Kafka metrics" in e.summary.value
    bounded_peak = e.run.summary["peak_memory_bytes"]
    e.set("queued.max.request.bytes", -1)
    assert e.run.summary["bound_bytes"] is None and e.run.summary["peak_memory_bytes"] > bounded_peak
    assert "unbounded" in e.summary.value
    e.set("max.request.size", 5 * MiB)  # above socket.request.max.bytes = 1 MiB: the broker would close it
    assert e.error.value == "" and len(e.output.outputs) == 3  # so the limit rises to its next stop, said so
    assert e.run.scenario.broker_config["socket.request.max.bytes"] == 10 * MiB
    assert "socket.request.max.bytes goes to 10,485,760 bytes" in e.caption.value
    e.set("queued.max.request.bytes", 5 * MiB)  # a pool below that limit: the broker would refuse to start
    assert e.run.scenario.broker_config["queued.max.request.bytes"] == 10 * MiB
    assert "queued.max.request.bytes goes to 10,485,760 bytes" in e.caption.value
    e.set("max.request.size", MiB)
    assert e.error.value == "" and len(e.output.outputs) == 3
    static = e.static({"num.io.threads": [2, 8]}, charts=("memory", "summary")).to_dict()
    assert {p["name"] for p in static["params"]} == {"p_num_io_threads"}
