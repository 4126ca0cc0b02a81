"""kafkasim.viz.sweep_chart: one dot per run at its setting, the mean per setting, an optional bound."""

from __future__ import annotations

import altair as alt
import pytest
import vl_convert as vlc

from kafkasim import Scenario, simulate
from kafkasim import viz

VL_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def test_sweep_chart_dots_means_and_bound():
    runs = [simulate(Scenario(members=n, topics={"orders": 4}, duration_ms=20_000, seed=s))
            for n in (1, 2, 4) for s in (1, 2)]
    chart = viz.sweep_chart(runs, "members", lambda r: r.summary["records_processed"], metric_title="processed",
                            log_x=True, bound=("produced", runs[0].summary["records_produced"]), title="t")
    spec = chart.to_dict()
    assert vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[]).startswith("<svg")
    tables = [rows for rows in spec["datasets"].values()]
    dots = next(t for t in tables if t and "seed" in t[0])
    means = next(t for t in tables if t and "seed" not in t[0] and "x" in t[0])
    assert sorted(d["x"] for d in dots) == [1, 1, 2, 2, 4, 4]
    for m in means:
        same = [d["value"] for d in dots if d["x"] == m["x"]]
        assert m["value"] == pytest.approx(sum(same) / len(same))
    assert "6 runs, 2 seeds per point" in spec["title"]["subtitle"]


def test_sweep_chart_needs_runs():
    with pytest.raises(ValueError, match="at least one run"):
        viz.sweep_chart([], "members", len, metric_title="x")
