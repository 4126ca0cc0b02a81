"""Tests named after the rule they pin (issue 29): each states a documented rule of the analysis or
of a chapter's check, with its expectation written by hand, and fails if the rule were reversed
(a tie-break the other way, a reason counted on the wrong side of a table, a type inferred wrongly,
a tolerance loosened). The Spark tests use the shared local session (`spark` in conftest.py) on a
few hand-made summary rows, not a sweep."""

from __future__ import annotations

import pytest

from kafkasim.analysis import spark as ks
from kafkasim.analysis.sweep_grid import SUMMARY_COLUMNS, Grid
from kafkasim.viz.exercises import check

#: Every reason a member is removed for (`kafkasim.core.events.REMOVAL_REASONS`), with whether a
#: setting whose runs remove a member for it is still safe by the safe region's default: only a
#: member's own LeaveGroup (a ScaleIn, a shutdown) is planned; every timeout, the group's size cap
#: (GROUP_MAX_SIZE_REACHED) and a fencing are not.
PLANNED = {"leave_group": True, "session_timeout": False, "poll_timeout": False, "rebalance_timeout": False,
           "sync_timeout": False, "group_max_size": False, "new_member_timeout": False, "fenced": False}


def summaries(spark, rows: list[dict], params: dict[str, str]):
    """A sweep's summary table of `rows` (each a dict of the columns it sets; the rest 0 or null)."""
    types = {**SUMMARY_COLUMNS, **params}
    zero = {"long": 0, "double": 0.0, "string": None, "boolean": False}
    full = [{c: row.get(c, zero[t]) for c, t in types.items()} for row in rows]
    ddl = ", ".join(f"`{c}` {t}" for c, t in types.items())
    return spark.createDataFrame([tuple(r.values()) for r in full], ddl)


def test_the_removal_reasons_table_names_every_reason_kafkasim_records():
    from kafkasim.core.events import REMOVAL_REASONS
    assert set(PLANNED) == set(REMOVAL_REASONS)


@pytest.mark.parametrize("reason", sorted(PLANNED))
def test_safe_region_counts_every_removal_but_a_members_own_leave_group(spark, reason):
    rows = [{"run_id": "a", "seed": 1, "end_ms": 60_000, "session_timeout_ms": 10_000},
            {"run_id": "b", "seed": 2, "end_ms": 60_000, "session_timeout_ms": 10_000, f"removals_{reason}": 1},
            {"run_id": "c", "seed": 1, "end_ms": 60_000, "session_timeout_ms": 45_000}]
    got = [r.asDict() for r in ks.safe_region(summaries(spark, rows, {"session_timeout_ms": "long"})).collect()]
    planned = PLANNED[reason]
    assert got == [
        {"session_timeout_ms": 10_000, "runs": 2, "safe_runs": 2 if planned else 1, "safe": planned,
         "worst_removals_unplanned": 0 if planned else 1, "worst_duplicates": 0},
        {"session_timeout_ms": 45_000, "runs": 1, "safe_runs": 1, "safe": True, "worst_removals_unplanned": 0,
         "worst_duplicates": 0}]


def test_safe_region_is_unsafe_when_one_seed_duplicates_and_ignores_failed_runs(spark):
    rows = [{"run_id": "a", "seed": 1, "end_ms": 60_000, "session_timeout_ms": 10_000},
            {"run_id": "b", "seed": 2, "end_ms": 60_000, "session_timeout_ms": 10_000, "duplicates": 3},
            # A run that failed (its error set) says nothing about the setting: not counted either way.
            {"run_id": "c", "seed": 1, "end_ms": 60_000, "session_timeout_ms": 45_000, "duplicates": 9,
             "error": "ConfigError: ..."},
            {"run_id": "d", "seed": 2, "end_ms": 60_000, "session_timeout_ms": 45_000}]
    got = [r.asDict() for r in ks.safe_region(summaries(spark, rows, {"session_timeout_ms": "long"})).collect()]
    assert got == [
        {"session_timeout_ms": 10_000, "runs": 2, "safe_runs": 1, "safe": False, "worst_removals_unplanned": 0,
         "worst_duplicates": 3},
        {"session_timeout_ms": 45_000, "runs": 1, "safe_runs": 1, "safe": True, "worst_removals_unplanned": 0,
         "worst_duplicates": 0}]


def test_safe_region_limits_are_largest_acceptable_values_inclusive(spark):
    rows = [{"run_id": "a", "seed": 1, "end_ms": 60_000, "x": 1, "duplicates": 2},
            {"run_id": "b", "seed": 1, "end_ms": 60_000, "x": 2, "duplicates": 3}]
    got = [(r.x, r.safe, r.worst_duplicates)
           for r in ks.safe_region(summaries(spark, rows, {"x": "long"}), limits={"duplicates": 2}).collect()]
    assert got == [(1, True, 2), (2, False, 3)]


def test_by_parameters_rebalances_per_hour_divides_by_the_runs_own_length(spark):
    # 2 rebalances in 30 simulated minutes: 4 an hour; 3 in 2 hours: 1.5 an hour. Mean 2.75 over the seeds.
    rows = [{"run_id": "a", "seed": 1, "end_ms": 1_800_000, "x": 1, "rebalances": 2, "duplicates": 4},
            {"run_id": "b", "seed": 2, "end_ms": 7_200_000, "x": 1, "rebalances": 3, "duplicates": 0}]
    (row,) = ks.by_parameters(summaries(spark, rows, {"x": "long"}), metrics=("rebalances_per_hour", "duplicates"),
                              ).collect()
    assert (row.x, row.runs, row.rebalances_per_hour_mean, row.rebalances_per_hour_min,
            row.rebalances_per_hour_max) == (1, 2, 2.75, 1.5, 4.0)
    assert (row.duplicates_mean, row.duplicates_min, row.duplicates_max) == (2.0, 0, 4)
    assert row.duplicates_std == pytest.approx(8 ** 0.5)  # sample standard deviation of 0 and 4


# -- sweep axes: the column type inferred from the values ---------------------------------------------------
def _types(values) -> str:
    grid = Grid.from_dict({"base": {"members": 2, "duration_ms": 10_000}, "grid": {"session.timeout.ms": values}})
    return grid.param_types()["session_timeout_ms"]


@pytest.mark.parametrize("values, kind", [
    ([True, False], "boolean"),
    ([6_000, 45_000], "long"),
    ([6_000, 4.5e4], "double"),      # one float makes the axis a double
    ([0.5, 1.5], "double"),
    # Python's bool is an int; the rule does not let a bool make an axis numeric, nor a number boolean.
    ([True, 1], "string"),
    ([False, 0.5], "string"),
    (["6s", 45_000], "string"),
])
def test_a_sweep_axis_type_is_the_narrowest_that_holds_every_value_and_bools_are_not_numbers(values, kind):
    assert _types(values) == kind


# -- a chapter's check: what it accepts --------------------------------------------------------------------
@pytest.mark.parametrize("predicted, actual, tolerance, right", [
    (110, 100, 0.1, True),          # tolerance is relative: within 10 % of the measured value
    (90, 100, 0.1, True),
    (111, 100, 0.1, False),
    (89, 100, 0.1, False),
    (100.5, 100, 0.0, False),       # no tolerance: exactly
    (100, 100, 0.0, True),
    (1_100, 1_000, 0.05, False),    # relative to the measured value, not absolute
    (" Stable ", "stable", 0.0, True),   # words: case and surrounding spaces do not matter
    ("Stabl", "stable", 0.0, False),
    ({"c-2", "c-1"}, {"c-1", "c-2"}, 0.0, True),    # a set: order does not matter ...
    (["c-2", "c-1"], ["c-1", "c-2"], 0.0, False),   # ... a list: it does
    ({"c-1"}, {"c-1", "c-2"}, 0.0, False),
    ({"c-1", "c-2", "c-3"}, {"c-1", "c-2"}, 0.0, False),
    (False, True, 0.0, False),
    (True, True, 0.0, True),
    (None, 100, 0.5, False),        # not answered yet is not right
])
def test_a_check_accepts_within_its_relative_tolerance_and_rejects_beyond(capsys, predicted, actual, tolerance, right):
    verdict = check(predicted, actual, "why", tolerance=tolerance, unit="ms")
    assert bool(verdict) is right
    out = capsys.readouterr().out
    if predicted is None:
        assert out.startswith("… No prediction yet.")
    elif right:
        assert out == f"✔ Right. The simulation says {actual} ms. why\n"
    else:
        assert out == f"✘ Not quite. You predicted {predicted} ms; the simulation says {actual} ms. why\n"
