"""Tests named after the rule they pin (issue 29): each states a documented rule of the analysis or
of a chapter's check, with its expectation written by hand, and fails if the rule were reversed
(a tie-break the other way, a reason counted on the wrong side of a table, a type inferred wrongly,
a tolerance loosened). The Spark tests use the shared local session (`spark` in conftest.py) on a
few hand-made summary rows, not a sweep."""

from __future__ import annotations

import pytest

from kafkasim import faults as F
from kafkasim.analysis import spark as ks
from kafkasim.analysis.sweep_grid import SUMMARY_COLUMNS, Grid
from kafkasim.core.errors import ConfigError
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


# -- a sweep's summary row: each removal counted under its own reason ----------------------------------------
def test_a_sweep_row_counts_each_removal_under_its_own_reason():
    """One member stuck past max.poll.interval.ms (poll_timeout), one scaled in (its own LeaveGroup),
    one crashed (session_timeout): one removal each, every other reason 0."""
    from kafkasim.analysis.sweep_grid import run_one
    from kafkasim.core.events import REMOVAL_REASONS

    base = {"members": 4, "topics": {"t": 8}, "duration_ms": 120_000, "consumer": {"max.poll.interval.ms": 20_000},
            "faults": [{"type": "SlowProcessing", "member": "c-2", "at_ms": 20_000, "duration_ms": 60_000},
                       {"type": "ScaleIn", "at_ms": 30_000, "members": ["c-3"]},
                       {"type": "Crash", "member": "c-4", "at_ms": 40_000}]}
    (spec,) = Grid.from_dict({"base": base, "grid": {"session.timeout.ms": [10_000]}}).runs()
    run, row = run_one(spec)
    once = {"poll_timeout", "leave_group", "session_timeout"}
    assert {r: row[f"removals_{r}"] for r in REMOVAL_REASONS} == {r: int(r in once) for r in REMOVAL_REASONS}
    latency = run.summary["latency_ms"]
    assert [row[f"latency_{p}_ms"] for p in ("p50", "p95", "p99", "max")] == \
        [latency["p50"], latency["p95"], latency["p99"], latency["max"]]
    assert (row["error"], row["seed"], row["end_ms"], row["events"]) == (None, 1, 120_000, len(run.rows))


# -- groups of more than 10 members: member ids in Java's String order -----------------------------------------
@pytest.mark.parametrize("assignor", ["range", "roundrobin"])
def test_range_and_roundrobin_order_members_by_member_id_as_java_strings_so_c_10_comes_before_c_2(assignor):
    """RangeAssignor sorts a topic's consumers, RoundRobinAssignor all members, by member id
    (`MemberInfo.compareTo`, `Utils.sorted`): Java's String order. A member id is the client id
    ("consumer-<group>-<n>", n counted per JVM: consumers built in one process, `one_process`), '-', a
    UUID, so the 10th consumer's id sorts before the 2nd's ('-' < '0'). With 12 partitions for 12
    members each gets one, in that order."""
    from kafkasim import Scenario, simulate

    run = simulate(Scenario(members=12, topics={"t": 12}, duration_ms=30_000, one_process=True,
                            consumer={"partition.assignment.strategy": assignor}))
    owners = run.partition_owners()
    final = owners[owners["end"] == run.end_ms].sort_values("partition")
    order = ["c-1", "c-10", "c-11", "c-12", "c-2", "c-3", "c-4", "c-5", "c-6", "c-7", "c-8", "c-9"]
    assert list(zip(final["member"], final["partition"])) == list(zip(order, range(12)))


# -- faults: how a chart names them, and what they accept ----------------------------------------------------
@pytest.mark.parametrize("fault, label, short", [
    # "<Fault> <member> for <duration> s at <time> s": seconds without trailing zeros (`:g`)
    (lambda: F.Pause('c-2', 60_000, 50_000), "Pause c-2 for 50 s at 60 s", "Pause c-2"),
    (lambda: F.NetworkCut('c-4', 90_000, 2_500), "NetworkCut c-4 for 2.5 s at 90 s", "NetworkCut c-4"),
    (lambda: F.SlowProcessing('c-3', 0), "SlowProcessing c-3 for 60 s at 0 s", "SlowProcessing c-3"),  # 60 s default
    (lambda: F.Crash('c-1', 1_500), "Crash c-1 at 1.5 s", "Crash c-1"),  # no duration: none said
    (lambda: F.Restart('c-1', 10_000), "Restart c-1 at 10 s (down 30 s)", "Restart c-1"),  # 30 s default delay
    (lambda: F.Restart('c-1', 10_000, 5_000, graceful=True, consumer={'group.protocol': 'consumer'}),
     "Restart c-1 at 10 s (graceful, down 5 s, group.protocol=consumer)", "Restart c-1"),
    (lambda: F.ScaleOut(30_000, 2), "ScaleOut +2 at 30 s", "ScaleOut +2"),
    (lambda: F.ScaleIn(45_000, ('c-2', 'c-3')), "ScaleIn c-2, c-3 at 45 s", "ScaleIn c-2, c-3"),
    (lambda: F.ScaleIn(45_000, 'c-5'), "ScaleIn c-5 at 45 s", "ScaleIn c-5"),  # one name given as a string
])
def test_a_fault_is_labelled_by_what_it_does_to_whom_when_and_for_how_long(fault, label, short):
    made = fault()
    assert (made.label(), made.short_label()) == (label, short)


@pytest.mark.parametrize("make, message", [
    (lambda: F.Pause('c-1', -1), "Pause.at_ms must be an integer >= 0, got -1"),
    (lambda: F.Pause('', 1), "Pause.member must be a member's name such as 'c-1', got ''"),
    (lambda: F.Pause('c-1', 1, -5), "Pause.duration_ms must be an integer >= 0, got -5"),
    (lambda: F.Pause('c-1', 1, True), "Pause.duration_ms must be an integer >= 0, got True"),
    (lambda: F.Restart('c-1', 1, delay_ms=-1), "Restart.delay_ms must be an integer >= 0, got -1"),
    (lambda: F.Restart('c-1', 1, graceful=1), "Restart.graceful must be True or False, got 1"),
    (lambda: F.Restart('c-1', 1, consumer=[('group.protocol', 'consumer')]),
     "Restart.consumer must be a dict of consumer configs to change, e.g. {'group.protocol': 'consumer'}, "
     "got [('group.protocol', 'consumer')]"),
    (lambda: F.ScaleOut(1, 0), "ScaleOut.count must be an integer >= 1, got 0"),
    (lambda: F.ScaleOut(-1, 1), "ScaleOut.at_ms must be an integer >= 0, got -1"),
    (lambda: F.ScaleIn(-1, ('c-1',)), "ScaleIn.at_ms must be an integer >= 0, got -1"),
    (lambda: F.ScaleIn(1, ()), "ScaleIn.members must name at least one member, e.g. ('c-2',), got ()"),
    (lambda: F.ScaleIn(1, ('c-1', 5)), "ScaleIn.members must be a member's name such as 'c-1', got 5"),
    (lambda: F.rolling_restart(['c-1'], 0, 0), "rolling_restart every_ms must be an integer >= 1, got 0"),
])
def test_a_fault_refuses_what_cannot_happen_naming_the_field_and_its_bound(make, message):
    with pytest.raises(ConfigError) as e:
        make()
    assert str(e.value) == message


def test_the_smallest_values_a_fault_accepts_are_instant_and_zero_long():
    """A fault at 0 ms lasting 0 ms and a Restart back at once are allowed; a ScaleOut adds one at least."""
    assert F.Pause("c-1", 0, 0).duration_ms == 0 and F.Restart("c-1", 0, delay_ms=0).delay_ms == 0
    assert F.ScaleOut(0, 1).count == 1 and F.ScaleIn(0, ["c-1"]).members == ("c-1",)
    assert [(r.member, r.at_ms, r.delay_ms, r.graceful) for r in F.rolling_restart(["c-3", "c-1"], 5, 1, 2)] == \
        [("c-3", 5, 2, True), ("c-1", 6, 2, True)]
    # Each member of a rolling restart is down 10 s unless told otherwise.
    assert [r.delay_ms for r in F.rolling_restart(["c-1", "c-2"], 0, 30_000)] == [10_000, 10_000]


# -- rebalance episodes, by hand ------------------------------------------------------------------------------
def _events(spark, rows: list[tuple]):
    """Coordinator rows (time, group, kind, generation, value, reason, state) as a sweep's events
    (run "r", `seq` in the order given)."""
    from kafkasim.core.events import FIELDS

    full = []
    for seq, (time, group, kind, generation, value, reason, state) in enumerate(rows):
        row = dict.fromkeys(FIELDS)
        row.update(time=time, source="coordinator", group=group, kind=kind, generation=generation,
                   value=None if value is None else float(value), reason=reason, state=state)
        full.append((*row.values(), "r", seq))
    return spark.createDataFrame(full, f"{ks.EVENTS_DDL}, run_id string, seq long")


def test_a_rebalance_episode_runs_from_leaving_a_settled_state_to_the_next_and_counts_its_restarts(spark):
    P, C = "PreparingRebalance", "CompletingRebalance"
    events = _events(spark, [
        (0, "g", "RebalanceStarted", 0, None, "first", P),
        (10, "g", "GenerationStabilized", 1, 3, None, C),
        (10, "g", "GroupStable", 1, 3, None, "Stable"),        # same ms: after the stabilization (seq)
        (50, "g", "RebalanceStarted", 1, None, "second", P),
        (55, "g", "RebalanceStarted", 1, None, "restarted", P),  # a restart: the same episode
        (70, "g", "GenerationStabilized", 2, 2, None, C),
        (71, "g", "GroupStable", 2, 2, None, "Stable"),
        (90, "g", "RebalanceStarted", 2, None, "open", P),     # never settles: open
        # A consumer group (KIP-848): the epoch bump starts it, Assigning then Reconciling, until Stable.
        (5, "h", "GroupEpochBumped", 7, 7, None, "Assigning"),
        (6, "h", "MemberStateChanged", None, None, None, "Reconciling"),
        (8, "h", "GroupEpochBumped", 8, 8, None, "Reconciling"),
        (20, "h", "StateChanged", None, None, None, "Stable"),
    ])
    episodes = ks.rebalance_episodes(events)
    assert episodes.columns == ["run_id", "group", "episode", "start", "end", "duration_ms", "rebalances",
                                "generation", "members", "outcome", "reason"]
    got = [tuple(r) for r in episodes.orderBy("group", "episode").collect()]
    assert got == [("r", "g", 1, 0, 10, 10, 1, 1, 3.0, "Stable", "first"),
                   ("r", "g", 2, 50, 71, 21, 2, 2, 2.0, "Stable", "second"),
                   ("r", "g", 3, 90, None, None, 1, None, None, None, "open"),
                   ("r", "h", 1, 5, 20, 15, 2, 8, None, "Stable", None)]
    rates = {r.group: (r.rebalances, r.span_ms, r.per_hour) for r in ks.rebalance_rate(events).collect()}
    # Starts per hour over the group's first to last coordinator event: 4 in 90 ms, 2 in 15 ms.
    assert rates == {"g": (4, 90, 4 * 3_600_000 / 90), "h": (2, 15, 2 * 3_600_000 / 15)}


# -- a grid: what it refuses, in its own words -----------------------------------------------------------------
@pytest.mark.parametrize("data, message", [
    (["a", "list"], "g.yaml: expected a mapping with keys base, grid, seeds"),
    ({"grids": {"members": [3]}}, "g.yaml: unknown key(s) grids (expected base, grid, seeds)"),
    ({"base": ["members"], "grid": {"members": [3]}}, "g.yaml: base and grid must be mappings"),
    ({"grid": {"members": [3, 3]}}, "g.yaml: grid.members lists a value twice"),
    ({"grid": {"members": [[3]]}}, "g.yaml: grid.members values must be numbers, strings or booleans, got [3]"),
    ({"grid": {"members": []}}, "g.yaml: grid.members must be a non-empty list of values, got []"),
    # Two names that make one column, or a column a summary already has (end_ms, seed, ...).
    ({"grid": {"session.timeout.ms": [1], "session_timeout_ms": [2]}},
     "g.yaml: parameter column name(s) session_timeout_ms clash with each other or with a summary column"),
    ({"grid": {"end.ms": [1]}}, "g.yaml: parameter column name(s) end_ms clash with each other or with a summary column"),
    ({"grid": {"seed": [1, 2]}}, "g.yaml: sweep seeds with the seeds key, not grid.seed"),
    ({"grid": {"members": [3]}, "seeds": 1_000_001},
     "g.yaml: seeds must be a count from 1 to 1,000,000 or a list of integers, got 1000001"),
    ({"grid": {"members": [3]}, "seeds": True}, "g.yaml: seeds must be a count from 1 to 1,000,000 or a list of "
                                                 "integers, got True"),
    ({"grid": {"members": [3]}, "seeds": [1, True]}, "g.yaml: seeds must be a count from 1 to 1,000,000 or a list "
                                                      "of integers, got [1, True]"),
    ({"grid": {"members": [3]}, "seeds": [4, -1]},
     "g.yaml: seeds must be from 0 to 9,223,372,036,854,775,807 (a seed is a Spark and Parquet long), got -1"),
])
def test_a_grid_refuses_what_a_sweep_cannot_run_naming_the_file_and_the_key(data, message):
    with pytest.raises(ConfigError) as e:
        Grid.from_dict(data, "g.yaml")
    assert str(e.value) == message


@pytest.mark.parametrize("seeds, expected", [(None, (1,)), (3, (1, 2, 3)), (1_000_000, None), ([7, 0], (7, 0))])
def test_seeds_are_a_count_from_1_or_a_list_taken_as_given(seeds, expected):
    data = {"grid": {"members": [3]}} if seeds is None else {"grid": {"members": [3]}, "seeds": seeds}
    got = Grid.from_dict(data).seeds
    assert got == expected if expected else (len(got), got[0], got[-1]) == (1_000_000, 1, 1_000_000)


def test_the_kafka_versions_a_grid_names_are_checked_where_it_names_them():
    with pytest.raises(ConfigError, match=r"^g: base\.kafka_version: Unsupported kafka_version '9\.9'"):
        Grid.from_dict({"base": {"kafka_version": "9.9"}, "grid": {"members": [3]}}, "g")
    with pytest.raises(ConfigError, match=r"^g: grid\.kafka_version: Unsupported kafka_version '0\.7'"):
        Grid.from_dict({"grid": {"kafka_version": ["3.7", "0.7"]}}, "g")


@pytest.mark.parametrize("name, value, where", [
    ("members", 6, {"members": 6}),                                                # a Scenario field
    ("session.timeout.ms", 10_000, {"consumer": {"session.timeout.ms": 10_000}}),  # a consumer config
    ("group.initial.rebalance.delay.ms", 0, {"broker": {"group.initial.rebalance.delay.ms": 0}}),  # a broker one
    ("faults[0].duration_ms", 9_000,
     {"faults": [{"type": "Pause", "member": "c-1", "at_ms": 5, "duration_ms": 9_000}]}),
    ("processing_ms.p99_ms", 200, {"processing_ms": {"type": "LogNormal", "median_ms": 2, "p99_ms": 200}}),
])
def test_a_swept_name_sets_the_field_or_config_of_that_name_and_nothing_else(name, value, where):
    from kafkasim.analysis.sweep_grid import apply_param, column_name

    base = {"faults": [{"type": "Pause", "member": "c-1", "at_ms": 5, "duration_ms": 1}],
            "processing_ms": {"type": "LogNormal", "median_ms": 2, "p99_ms": 20}}
    assert apply_param(base, name, value) == {**base, **where}
    assert base["faults"][0]["duration_ms"] == 1 and base["processing_ms"]["p99_ms"] == 20  # a copy
    assert column_name(name) == {"members": "members", "session.timeout.ms": "session_timeout_ms",
                                 "group.initial.rebalance.delay.ms": "group_initial_rebalance_delay_ms",
                                 "faults[0].duration_ms": "faults_0_duration_ms",
                                 "processing_ms.p99_ms": "processing_ms_p99_ms"}[name]


@pytest.mark.parametrize("processing", ["Constant", "LogNormal"])
def test_a_scenarios_to_dict_reads_back_as_the_same_scenario_the_distributions_description_skipped(processing):
    # scenario_from_spec: "`Scenario.to_dict()` reads back too"; to_dict writes the distribution's `describe`
    # text beside its fields (for whoever reads a run's scenario), which is no field of the distribution.
    from kafkasim import Scenario
    from kafkasim.analysis.sweep_grid import scenario_from_spec
    from kafkasim.scenario.workload import Constant, LogNormal

    scenario = Scenario(members=2, processing_ms=Constant(3) if processing == "Constant" else LogNormal(2, 20))
    assert "describe" in scenario.to_dict()["processing_ms"]
    assert scenario_from_spec(scenario.to_dict()) == scenario


@pytest.mark.parametrize("processing, message", [
    ({"type": "Pareto", "alpha": 2}, "processing_ms: type must be one of Constant, LogNormal, got {'type': 'Pareto', "
                                     "'alpha': 2}"),
    ({"median_ms": 2}, "processing_ms: type must be one of Constant, LogNormal, got {'median_ms': 2}"),
    # a field the distribution does not have: Python's own words for it, behind the setting's name
    ({"type": "LogNormal", "median_ms": 2, "p95_ms": 20},
     r"re:processing_ms: \S*LogNormal\S* got an unexpected keyword argument 'p95_ms'"),
])
def test_a_processing_time_mapping_names_the_distributions_there_are_or_the_field_refused(processing, message):
    import re

    from kafkasim.analysis.sweep_grid import scenario_from_spec

    with pytest.raises(ConfigError) as e:
        scenario_from_spec({"members": 2, "processing_ms": processing})
    if message.startswith("re:"):
        assert re.fullmatch(message[3:], str(e.value))
    else:
        assert str(e.value) == message


def test_a_one_seed_grids_estimated_events_are_the_sum_of_its_runs_estimates():
    # Grid.estimated_events: every combination sampled (fewer than 200), each estimated once, times the seeds
    # (one here, the default): exactly what estimate_events gives each run, a whole number of events.
    from kafkasim import Scenario
    from kafkasim.scenario.world import estimate_events

    grid = Grid.from_dict({"base": {"duration_ms": 60_000}, "grid": {"members": [2, 6]}})
    each = [estimate_events(Scenario(duration_ms=60_000, members=m)) for m in (2, 6)]
    got = grid.estimated_events()
    assert type(got) is int and got == sum(each)


def test_estimated_events_builds_at_most_200_combinations_and_scales_their_events_to_the_whole_grid(monkeypatch):
    # Grid.estimated_events: "estimate_events of up to `sample` (200) combinations ..., scaled to all of them",
    # so a large grid costs 200 scenarios to estimate. Here 201 combinations of 3 seeds, each sampled one
    # estimated at 1 event: 200 events for 200 of the 201 combinations, scaled to 201 x 3 runs = 603, an int.
    import kafkasim.analysis.sweep_grid as sweep_grid

    built = []
    monkeypatch.setattr(sweep_grid, "estimate_events", lambda scenario: built.append(scenario.duration_ms) or 1)
    grid = Grid.from_dict({"grid": {"duration_ms": [10_000 + i for i in range(201)]}, "seeds": 3})
    got = grid.estimated_events()
    assert len(built) == len(set(built)) == 200
    assert type(got) is int and got == 603


def test_a_partition_directory_escapes_as_hive_does_and_writes_booleans_as_spark_does():
    from kafkasim.analysis.sweep_grid import partition_dir

    assert partition_dir({"a": True, "b": False, "c": 1.5, "d": "x/y=z:1"}) == "a=true/b=false/c=1.5/d=x%2Fy%3Dz%3A1"


# -- consumer groups (KIP-848): rules a surviving mutant showed untested ----------------------------------------
def test_4_2_a_member_changing_its_regex_revokes_what_the_new_one_does_not_cover_at_once():
    """KAFKA-19431 (4.2): a change of subscription revokes the partitions of topics the member no
    longer subscribes to at once, without waiting for a new target; a regex counts like topic
    names. A regex new to the group is resolved later, so until then it covers no topic: the member
    gives up both. 4.0 waits for the assignor (the member keeps them, STABLE)."""
    from test_consumer_protocol import Scripted, hb, manager

    got = {}
    for version in ("4.0", "4.2"):
        fixed = Scripted("fixed")
        sim, groups = manager(group_consumer_assignors=[fixed], kafka_version=version)
        fixed.next = {"m1": {"foo": [0], "bar": [0]}}
        r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=300_000,
                                            subscribed_topic_regex="foo|bar", owned_partitions={})
        sim.advance(100)  # the regex is resolved
        r = hb(groups, "m1", r.member_epoch)
        r = hb(groups, "m1", r.member_epoch, owned_partitions={"foo": [0], "bar": [0]})
        r = hb(groups, "m1", r.member_epoch, subscribed_topic_regex="fo+")
        got[version] = (r.member_epoch, r.assignment, groups.member_state("g", "m1"))
    assert got == {"4.0": (2, None, "STABLE"), "4.2": (2, {}, "UNREVOKED_PARTITIONS")}


def test_a_restored_member_without_epochs_gets_kafkas_builder_defaults():
    """`ConsumerGroupMember.Builder`: memberEpoch 0, previousMemberEpoch -1, rebalanceTimeoutMs -1,
    state STABLE, when the records do not say."""
    from test_consumer_protocol import manager

    sim, groups = manager()
    groups.load_consumer_group("g", group_epoch=3, members={"m1": {"assigned": {"foo": [0]}}})
    m = groups.member("g", "m1")
    assert (m.member_epoch, m.previous_member_epoch, m.rebalance_timeout_ms, m.state) == (0, -1, -1, "STABLE")


# -- a sweep folder, written run by run in this process (Spark's executors do the same, unseen by mutmut) --------
SMALL = {"members": 2, "topics": {"t": 2}, "duration_ms": 10_000}


def test_a_committed_run_is_its_events_then_its_summary_each_under_its_partition(tmp_path):
    """`commit_run`: events at events/<col=value>/<run_id>.parquet (the run's rows, then `run_id`
    and `seq`, a 64-bit position), then the summary row at summaries/<col=value>/run-<run_id>.parquet."""
    import pyarrow.parquet as pq

    from kafkasim import simulate
    from kafkasim.analysis.sweep_grid import commit_run
    from kafkasim.core.events import FIELDS

    (run,) = Grid.from_dict({"base": SMALL, "grid": {"session.timeout.ms": [10_000]}}).runs()
    row = commit_run(run, str(tmp_path))
    assert row["session_timeout_ms"] == 10_000 and row["run_id"] == run.run_id and row["error"] is None
    events = pq.read_table(tmp_path / "events" / "session_timeout_ms=10000" / f"{run.run_id}.parquet")
    assert events.column_names == [*FIELDS, "run_id", "seq"]
    assert str(events.schema.field("seq").type) == "int64"
    rows = simulate(run.scenario()).rows
    assert events.num_rows == len(rows) == row["events"]
    assert events["seq"].to_pylist() == list(range(len(rows))) and set(events["run_id"].to_pylist()) == {run.run_id}
    assert [tuple(r.values())[:2] for r in events.select(["time", "source"]).to_pylist()] == [r[:2] for r in rows]
    (summary,) = pq.read_table(tmp_path / "summaries" / "session_timeout_ms=10000" / f"run-{run.run_id}.parquet"
                               ).to_pylist()
    assert (summary["run_id"], summary["error"], summary["events"]) == (run.run_id, None, len(rows))


def test_a_failed_run_leaves_a_failure_row_and_no_events_until_a_retry_replaces_it(tmp_path):
    """A run whose scenario cannot run is recorded as failed-<id> with "<error type>: <message>";
    the same run succeeding later removes that file."""
    import dataclasses
    import pyarrow.parquet as pq

    from kafkasim.analysis.sweep_grid import commit_run, scenario_from_spec

    (run,) = Grid.from_dict({"base": SMALL, "grid": {"members": [2]}}).runs()
    bad = dataclasses.replace(run, spec={**run.spec, "members": 0})
    with pytest.raises(ConfigError) as refused:
        scenario_from_spec(bad.spec)
    row = commit_run(bad, str(tmp_path))
    assert row["error"] == f"ConfigError: {refused.value}" and row["members"] == 2
    folder = tmp_path / "summaries" / "members=2"
    assert sorted(p.name for p in folder.iterdir()) == [f"failed-{run.run_id}.parquet"]
    assert not (tmp_path / "events").exists() or not any((tmp_path / "events").rglob("*.parquet"))
    assert pq.read_table(folder / f"failed-{run.run_id}.parquet").to_pylist()[0]["error"] == row["error"]
    commit_run(run, str(tmp_path))  # the retry succeeds
    assert sorted(p.name for p in folder.iterdir()) == [f"run-{run.run_id}.parquet"]


def test_a_sweep_folder_records_its_parameters_types_and_base_as_text_where_json_cannot(tmp_path):
    import datetime
    import json

    from kafkasim.analysis.sweep_grid import open_sweep_folder

    base = {**SMALL, "note": datetime.date(2026, 11, 27)}  # YAML reads 2026-11-27 as a date
    grid = Grid.from_dict({"base": base, "grid": {"session.timeout.ms": [10_000, 45_000], "static_membership": [True]}})
    assert open_sweep_folder(str(tmp_path), grid) == {"session_timeout_ms": "long", "static_membership": "boolean"}
    assert json.loads((tmp_path / "sweep.json").read_text()) == {
        "parameters": {"session.timeout.ms": "session_timeout_ms", "static_membership": "static_membership"},
        "types": {"session_timeout_ms": "long", "static_membership": "boolean"},
        "base": {**SMALL, "note": "2026-11-27"}}
