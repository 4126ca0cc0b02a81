"""How the charts read at a glance: fault labels that never print over each other (placed in rows,
checked in the spec and in a real browser), colours that mean one thing each (no owner looks like
a gap, states and phases apart), and the kernel-free explorers' controls (a slider per number, a
readout naming what they selected, a time scrubber)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import altair as alt
import pandas as pd
import pytest
import vl_convert as vlc

from kafkasim import Scenario, faults, simulate, viz
from kafkasim.viz import layers, sliders, style
from kafkasim.viz.timeline import member_timeline

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import site_check  # noqa: E402

VL_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
#: Three faults half a second apart on a 120-s axis: their labels start 3 px apart.
CLOSE = [faults.Crash("c-1", 30_000), faults.Pause("c-2", 30_500, duration_ms=20_000),
         faults.SlowProcessing("c-3", 31_000, duration_ms=20_000)]


def delta_e(a: str, b: str) -> float:
    """CIE76 colour difference of two #rrggbb colours (sRGB, D65): about 2 is just noticeable,
    above 20 two colours read as different at a glance."""
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b))) ** 0.5


def _lab(colour: str) -> tuple[float, float, float]:
    linear = [(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
              for c in (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))]
    r, g, b = linear
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = [v ** (1 / 3) if v > 216 / 24389 else (24389 / 27 * v + 16) / 116 for v in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


# -- fault labels ------------------------------------------------------------------------------------
def test_fault_labels_close_in_time_take_rows_of_their_own():
    frame = pd.DataFrame({"time_s": [10.0, 10.5, 11.0, 100.0],
                          "short": ["c-1 crashed", "c-2 paused 40 s", "c-3 restarted", "c-4 crashed"]})
    placed = layers.label_rows(frame, (0, 120), 680)
    # 680 px over 120 s: the first three start at 58.7, 61.5 and 64.3 px and are 71.5 px or more
    # long (6.5 px a character), so each needs a row; the fourth, at 568.7 px, fits in row 0.
    assert placed["row"].tolist() == [0, 1, 2, 0]
    assert placed["label_s"].tolist() == pytest.approx([10 + 2 / 680 * 120, 10.5 + 2 / 680 * 120,
                                                        11 + 2 / 680 * 120, 100 + 2 / 680 * 120])


def test_a_label_at_the_right_edge_is_written_left_of_its_line():
    frame = pd.DataFrame({"time_s": [119.0], "short": ["c-4 crashed"]})
    (start,) = layers.label_rows(frame, (0, 120), 680)["label_s"]
    # x = 674.3 px; 71.5 px of text would run past 680 px, so it ends 2 px left of the line.
    assert start == pytest.approx((119 / 120 * 680 - 2 - 71.5) / 680 * 120)


def test_labels_in_one_row_keep_apart_in_every_placement():
    times = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 100, 110, 115, 118, 119.5]
    frame = pd.DataFrame({"time_s": times, "short": [f"c-{i} paused {i} s" for i in range(len(times))]})
    placed = layers.label_rows(frame, (0, 120), 500)
    for _, row in placed.groupby("row"):
        spans = sorted((s / 120 * 500, s / 120 * 500 + len(t) * layers.LABEL_CHAR_PX)
                       for s, t in zip(row["label_s"], row["short"]))
        assert all(b_start - a_end >= layers.LABEL_GAP_PX for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
        assert all(0 <= a and b <= 500 for a, b in spans)


def test_rows_are_counted_per_grid_point():
    # Two grid points, each with one fault at 10 s: the page shows one point at a time, so both are row 0.
    frame = pd.DataFrame({"time_s": [10.0, 10.0], "short": ["c-1 crashed", "c-1 paused 5 s"], "p_fault": ["a", "b"]})
    assert layers.label_rows(frame, (0, 120), 680)["row"].tolist() == [0, 0]


def test_the_timeline_stacks_close_fault_labels_one_row_above_the_other():
    run = simulate(Scenario(duration_ms=120_000, faults=CLOSE))
    spec = member_timeline(run).to_dict()
    texts = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"
             and layer["mark"].get("color") == style.FAULT_COLOR]
    assert [t["mark"]["dy"] for t in texts] == [-2, -2 - layers.LABEL_ROW_PX, -2 - 2 * layers.LABEL_ROW_PX]
    rows = [spec["datasets"][t["data"]["name"]] for t in texts]
    assert [[r["short"] for r in row] for row in rows] == [[CLOSE[0].short_label()], [CLOSE[1].short_label()],
                                                           [CLOSE[2].short_label()]]


def _chart_page(folder: Path, spec: dict) -> None:
    """A page drawing `spec` as SVG with vega inlined (no network), as the book's pages do."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<script>{vlc.javascript_bundle()}</script></head><body>"
        "<div class='cell_output'><div id='altair-viz-1'></div></div>"
        f"<script>vegaEmbed('#altair-viz-1', {json.dumps(spec)}, {{renderer: 'svg'}})</script></body></html>")


def test_no_label_overlaps_another_in_a_real_browser(tmp_path, chromium, monkeypatch):
    run = simulate(Scenario(duration_ms=120_000, faults=CLOSE))
    _chart_page(tmp_path / "rows", member_timeline(run).to_dict())
    (report,) = site_check.check_site(tmp_path / "rows", tmp_path / "shots", chromium)
    assert report.facts["charts"] == report.facts["chartsDrawn"] == 1
    assert not [p for p in report.problems if "overlapping" in p], report.problems
    # The same chart with every label in row 0 (as before labels had rows) fails the check.
    monkeypatch.setattr(layers, "label_rows",
                        lambda frame, span=None, width=0: frame.assign(row=0, label_s=frame["time_s"]))
    _chart_page(tmp_path / "one-row", member_timeline(run).to_dict())
    (report,) = site_check.check_site(tmp_path / "one-row", tmp_path / "shots", chromium)
    assert "chart 0: 3 overlapping text labels" in "\n".join(report.problems)


# -- colours -------------------------------------------------------------------------------------------
def test_no_owner_looks_like_a_partition_not_consumed():
    assert style.UNCONSUMED_COLOR not in style.OWNER_COLORS
    assert min(delta_e(c, style.UNCONSUMED_COLOR) for c in style.OWNER_COLORS) > 30
    assert min(delta_e(c, style.ERROR_COLOR) for c in style.OWNER_COLORS) > 30
    assert len(set(style.OWNER_COLORS)) == len(style.OWNER_COLORS)


def test_ownership_colours_owners_from_the_palette_and_lists_the_gap_in_a_legend():
    run = simulate(Scenario(duration_ms=120_000, faults=[faults.Crash("c-3", 30_000)]))
    spec = viz.partition_ownership(run).to_dict()
    layers_ = spec["layer"]
    owners = next(v for v in layers_ if v["mark"]["type"] == "bar" and v["encoding"]["color"].get("field") == "member")
    scale = owners["encoding"]["color"]["scale"]
    assert scale["domain"] == ["c-1", "c-2", "c-3", "c-4", "c-5", "c-6"]
    assert scale["range"] == list(style.OWNER_COLORS[:6])
    assert scale["range"][2] == "#54a24b"  # c-3 is green, not the gap's red (Tableau's third colour is red)
    gap = next(v for v in layers_ if v["encoding"].get("color", {}).get("field") == "what")
    assert gap["encoding"]["color"]["scale"] == {"domain": ["not consumed"], "range": [style.UNCONSUMED_COLOR]}
    assert gap["encoding"]["color"]["legend"] is not None
    svg = vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[])
    assert ">not consumed<" in svg  # the legend's entry, drawn


def test_states_and_phases_drawn_together_are_told_apart():
    # "active" is consuming and processing merged into one band (never drawn beside them).
    states = {k: v for k, v in style.STATE_COLORS.items() if k != "active"}
    assert style.STATE_COLORS["active"] == style.STATE_COLORS["consuming"]
    marks = {**{f"state {k}": v for k, v in states.items()}, **{f"phase {k}": v for k, v in style.PHASE_COLORS.items()},
             "fault line": style.FAULT_COLOR, "removal": style.REMOVAL_COLOR}
    close = [(a, b, round(delta_e(marks[a], marks[b]), 1)) for i, a in enumerate(marks) for b in list(marks)[i + 1:]
             if delta_e(marks[a], marks[b]) < 20]
    assert close == []


# -- the explorers' controls -------------------------------------------------------------------------
def test_uneven_numbers_are_a_slider_over_their_positions():
    index, value = (p.to_dict() for p in sliders.params("max.poll.records", [10, 50, 500], "max.poll.records", 50))
    assert index == {"name": "p_max_poll_records__i", "value": 1,
                     "bind": {"input": "range", "min": 0, "max": 2, "step": 1, "name": "max.poll.records "}}
    assert value == {"name": "p_max_poll_records", "expr": "[10, 50, 500][p_max_poll_records__i]"}
    (even,) = (p.to_dict() for p in sliders.params("members", [2, 4, 6], "members"))
    assert even["bind"] == {"input": "range", "min": 2, "max": 6, "step": 2, "name": "members "}
    (category,) = (p.to_dict() for p in sliders.params("group.protocol", ["classic", "consumer"], "group.protocol"))
    assert category["bind"]["input"] == "radio"


def _svg(spec: dict, **values) -> str:
    spec = json.loads(json.dumps(spec))
    for param in spec["params"]:
        if param["name"] in values:
            param["value"] = values[param["name"]]
    return vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[])


@pytest.fixture(scope="module")
def explorer():
    base = Scenario(duration_ms=120_000, faults=[faults.Pause("c-2", 30_000, duration_ms=20_000)])
    grid = {"session.timeout.ms": [10_000, 45_000], "max.poll.records": [10, 50, 500],
            "group.protocol": ["classic", "consumer"]}
    return viz.grid_explorer(base, grid, charts=("timeline", "summary")).to_dict()


def test_the_readout_names_each_setting_and_its_value(explorer):
    svg = _svg(explorer, p_session_timeout_ms=10_000, p_max_poll_records__i=2, p_group_protocol="classic")
    assert "session.timeout.ms = 10000   ·   max.poll.records = 500   ·   group.protocol = classic" in svg
    svg = _svg(explorer, p_session_timeout_ms=45_000, p_max_poll_records__i=0, p_group_protocol="consumer")
    assert "session.timeout.ms = 45000   ·   max.poll.records = 10   ·   group.protocol = consumer" in svg


def test_the_time_scrubber_replays_the_run_up_to_its_instant(explorer):
    # session.timeout.ms = 10 s: c-2, paused at 30 s, is removed about 10 s later. Replayed up to
    # 35 s the removal has not happened yet; at the end of the run it has.
    removal = 'aria-roledescription="point"'
    at_end = _svg(explorer, p_session_timeout_ms=10_000, p_group_protocol="classic")
    early = _svg(explorer, p_session_timeout_ms=10_000, p_group_protocol="classic", t_s=35.0)
    assert at_end.count(removal) >= 1 and early.count(removal) == 0
    assert CLOSE[1].short_label().split()[0] in at_end


def test_ownership_replays_up_to_the_scrubbers_instant():
    # c-3 crashes at 30 s: its partitions are not consumed from then until the rebalance. Replayed
    # up to 20 s no gap shows yet; at the end of the run they do.
    run = simulate(Scenario(duration_ms=120_000, faults=[faults.Crash("c-3", 30_000)]))
    spec = viz.partition_ownership(run, scrubber=True).to_dict()
    assert [p["name"] for p in spec["params"]] == ["t_s"]

    def drawn(t: float) -> int:  # the gap strips in the SVG (each mark's aria-label lists its fields)
        return len(re.findall(r'aria-label="[^"]*what: not consumed', _svg(spec, t_s=t)))

    assert drawn(20.0) == 0 and drawn(120.0) == len(run.unconsumed()) > 0
