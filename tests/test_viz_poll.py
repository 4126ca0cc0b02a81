"""kafkasim.viz.poll: batch durations read from the events agree with the removals they cause,
and the safe-region heatmap draws one cell per run with the metric it was given."""

from __future__ import annotations

import altair as alt
import pytest
import vl_convert as vlc

from kafkasim import Scenario, faults, simulate
from kafkasim import viz
from kafkasim.viz import poll, tables
from kafkasim.scenario.workload import LogNormal
from vega_fields import missing_fields  # (tests/ is on sys.path)

VL_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def render(chart) -> dict:
    spec = chart.to_dict()  # validates against the Vega-Lite schema
    assert vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[]).startswith("<svg")
    assert missing_fields(spec) == []  # every encoded field is a column of its data
    return spec


def overloaded(median_ms: float, interval_ms: int, **kw) -> Scenario:
    """Production far above capacity: every poll() returns a full max.poll.records batch."""
    return Scenario(members=3, topics={"orders": 6}, produce_rate_per_s=200, duration_ms=600_000,
                    processing_ms=LogNormal(median_ms, 80 * median_ms), seed=2,
                    consumer={"max.poll.interval.ms": interval_ms, "enable.auto.commit": False}, **kw)


@pytest.fixture(scope="module")
def storm():
    return simulate(overloaded(100, 60_000))


def test_batches_are_the_gaps_between_polls(storm):
    frame = poll.batches(storm)
    assert len(frame) and (frame["duration_ms"] == frame["end"] - frame["start"]).all()
    assert frame["records"].max() == 500  # max.poll.records, 3.7 default
    assert frame["records"].sum() == storm.summary["records_processed"]
    # Every poll-timeout removal comes max.poll.interval.ms after the start of the removed member's
    # batch (the poll() that returned it), whether that batch ended before the run did or not.
    removed = tables.removals(storm)
    removed = removed[removed["reason"] == "poll_timeout"]
    assert len(removed) == poll.poll_timeouts(storm) > 0
    starts = {(r[3], r[0]) for r in storm.rows if r[4] == "Fetched"}
    assert all((m, t - 60_000) in starts for m, t in zip(removed["member"], removed["time"]))
    finished_late = frame[frame["duration_ms"] > 60_000]
    assert len(finished_late) <= len(removed)


def test_crashed_batch_is_left_out():
    run = simulate(Scenario(members=2, topics={"orders": 2}, duration_ms=60_000, processing_ms=LogNormal(50, 500),
                            faults=[faults.Crash("c-1", at_ms=30_000)], seed=1))
    frame = poll.batches(run)
    crashed_at = 30_000
    assert not ((frame["member"] == "c-1") & (frame["end"] > crashed_at)).any()


def test_batch_durations_chart_counts_the_overruns(storm):
    spec = render(viz.batch_durations(storm))
    over = int((poll.batches(storm)["duration_ms"] > 60_000).sum())
    assert f"{over} longer than max.poll.interval.ms" in spec["title"]["subtitle"]
    assert "max.poll.interval.ms = 60,000" in str(spec)


def test_safe_region_one_cell_per_run_and_safe_cells_are_green():
    runs = [simulate(overloaded(m, i)) for m in (5, 100) for i in (30_000, 600_000)]
    spec = render(viz.safe_region(runs, lines={"500 x mean": lambda m: 500 * m * LogNormal(1, 80).mean_ms}))
    cells = next(rows for rows in spec["datasets"].values() if rows and "value" in rows[0])
    assert len(cells) == 4
    values = {(c["x"], c["y"]): c["value"] for c in cells}
    assert values[(100.0, 30_000.0)] > 0                     # 500 x ~590 ms per record >> 30 s
    assert values[(5.0, 600_000.0)] == 0                      # 500 x ~30 ms << 600 s
    assert all(c["safe"] == (c["value"] == 0) for c in cells)
    assert all(c["x_lo"] < c["x"] < c["x_hi"] and c["y_lo"] < c["y"] < c["y_hi"] for c in cells)


def test_safe_region_needs_runs():
    with pytest.raises(ValueError, match="at least one run"):
        viz.safe_region([])
