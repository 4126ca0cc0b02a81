"""`make mutation`'s bookkeeping (tools/mutation.py): which mutants a sample checks, how the kill
ratio counts killed, timed-out and equivalent mutants, and when a listed equivalent no longer is."""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import nullcontext
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import mutation  # noqa: E402

STATUS = {
    "kafkasim.analysis.logs.reader.x_a__mutmut_1": "killed",
    "kafkasim.analysis.logs.reader.x_a__mutmut_2": "timeout",
    "kafkasim.analysis.logs.reader.x_a__mutmut_3": "survived",
    "kafkasim.analysis.logs.reader.x_a__mutmut_4": "survived",
    "kafkasim.coordinator.assignor.range.xǁRangeAssignorǁassign__mutmut_1": "killed",
    "kafkasim.coordinator.group_size.x_b__mutmut_1": "no tests",
    "kafkasim.coordinator.group_size.x_b__mutmut_2": "not checked",
    "kafkasim.core.engine.x_c__mutmut_1": "killed",
}


def test_module_of_reads_functions_and_methods():
    assert mutation.module_of("kafkasim.analysis.logs.reader.x_a__mutmut_1") == "kafkasim.analysis.logs.reader"
    assert mutation.module_of("kafkasim.coordinator.assignor.range.xǁRangeAssignorǁassign__mutmut_1") == \
        "kafkasim.coordinator.assignor.range"


def test_a_sample_is_per_module_seeded_and_filtered():
    names = [f"kafkasim.m{m}.x_f__mutmut_{i}" for m in (1, 2) for i in range(10)]
    picked = mutation.choose(names, 3, None)
    assert len(picked) == 6 and picked == mutation.choose(list(reversed(names)), 3, None)
    assert {mutation.module_of(n) for n in picked} == {"kafkasim.m1", "kafkasim.m2"}
    assert mutation.choose(names, 0, "kafkasim.m2") == sorted(n for n in names if ".m2." in n)


def test_of_viz_only_what_a_chart_is_fed_is_chosen():
    names = ["kafkasim.viz.network.x_memory_frame__mutmut_1", "kafkasim.viz.network.x_memory_spec__mutmut_1",
             "kafkasim.viz.claims.xǁSpreadǁcompact__mutmut_1", "kafkasim.viz.style.x_palette__mutmut_1",
             "kafkasim.viz.exercises.x__matches__mutmut_1", "kafkasim.broker.network.x_memory_spec__mutmut_1",
             "kafkasim.viz.x_to_png__mutmut_1",  # viz/__init__.py (mutmut leaves "__init__" out): PNG export, styling
             "kafkasim.viz.protocol.x_diagram__mutmut_6"]  # the sequence diagrams' spec builder
    assert mutation.function_of(names[2]) == "compact" and mutation.function_of(names[4]) == "_matches"
    assert mutation.choose(names, 0, None) == sorted([names[0], names[2], names[4], names[5]])


def test_of_the_diagnosis_replay_the_charts_rows_are_chosen_not_its_altair_styling():
    names = ["kafkasim.analysis.diagnose.replay.x_replay_rows__mutmut_1",
             "kafkasim.analysis.diagnose.replay.x_replay_chart__mutmut_1",
             "kafkasim.analysis.diagnose.rules.x_replay_chart__mutmut_1"]  # the name alone is not enough
    assert mutation.choose(names, 0, None) == [names[0], names[2]]


def test_of_the_diagnosis_page_the_charts_rows_and_the_page_are_chosen_not_the_specs_styling():
    names = ["kafkasim.analysis.diagnose.html.x__sequence_rows__mutmut_1",
             "kafkasim.analysis.diagnose.html.x__sequence_spec__mutmut_1",
             "kafkasim.analysis.diagnose.html.x__timeline_rows__mutmut_1",
             "kafkasim.analysis.diagnose.html.x__timeline_spec__mutmut_1",
             "kafkasim.analysis.diagnose.html.x_page__mutmut_1"]
    assert mutation.choose(names, 0, None) == [names[0], names[2], names[4]]


def test_of_analysis_spark_only_the_analysis_is_chosen_not_the_session_plumbing():
    names = ["kafkasim.analysis.spark.x_safe_region__mutmut_1", "kafkasim.analysis.spark.x_session__mutmut_1",
             "kafkasim.analysis.spark.xǁ_Heartbeatǁ_run__mutmut_1"]
    assert mutation.choose(names, 0, None) == names[:1]


def test_report_counts_timeouts_as_killed_and_equivalents_apart():
    equivalent = {"kafkasim.analysis.logs.reader.x_a__mutmut_4": "the default restated"}
    text = mutation.report(STATUS, sorted(STATUS), equivalent)
    # log parser: 4 checked, 2 killed (one timed out), 1 survived, 1 equivalent: 2 of 3 judged.
    assert "| kafkasim.analysis.logs.reader | 4 | 2 | 1 | 1 | 66.7% | >= 90%: NOT met |" in text
    assert "| kafkasim.coordinator.group_size | 1 | 0 | 1 | 0 | 0.0% | >= 90%: NOT met |" in text
    assert "| kafkasim.core.engine | 1 | 1 | 0 | 0 | 100.0% |  |" in text  # not a targeted part
    assert "| assignors | 1 | 1 | 0 | 0 | 100.0% | >= 90%: met |" in text
    assert "| coordinator | 1 | 0 | 1 | 0 | 0.0% | >= 90%: NOT met |" in text
    assert "| all | 7 | 4 | 2 | 1 | 66.7% | |" in text
    assert "Survivors (2)" in text and "- `kafkasim.analysis.logs.reader.x_a__mutmut_3` (survived)" in text
    assert "- `kafkasim.analysis.logs.reader.x_a__mutmut_4`: the default restated" in text


DIFF = """# kafkasim.analysis.logs.reader.x_a__mutmut_4: survived
--- kafkasim/analysis/logs/reader.py
+++ kafkasim/analysis/logs/reader.py
@@ -1,2 +1,2 @@
-    return get_close_matches(word, names, n=1, cutoff=0.6)
+    return get_close_matches(word, names, n=1, )
"""


@pytest.mark.parametrize("listed_change, counted", [("return get_close_matches(word, names, n=1, )", True),
                                                     ("return get_close_matches(word, names, n=2, )", False)])
def test_an_equivalent_counts_only_while_its_change_is_the_listed_one(tmp_path, monkeypatch, capsys,
                                                                       listed_change, counted):
    listed = tmp_path / "equivalent.toml"
    listed.write_text(f'[[equivalent]]\nmutant = "kafkasim.analysis.logs.reader.x_a__mutmut_4"\n'
                      f'change = "{listed_change}"\nwhy = "0.6 is the default cutoff"\n'
                      f'[[equivalent]]\nmutant = "kafkasim.analysis.logs.reader.x_a__mutmut_1"\n'
                      f'change = "x"\nwhy = "killed anyway: not an equivalent"\n')
    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: DIFF)
    found = mutation.equivalents(STATUS, listed)
    assert found == ({"kafkasim.analysis.logs.reader.x_a__mutmut_4": "0.6 is the default cutoff"} if counted else {})
    assert ("no longer" in capsys.readouterr().err) is not counted


def test_each_equivalent_mutant_is_listed_once_with_its_change_and_why():
    """Two entries for one mutant (two helpers, one merge) would let a stale reason stand beside a
    current one: the list names each mutant once, each with its changed line and why."""
    listed = mutation.tomllib.loads(mutation.EQUIVALENT.read_text())["equivalent"]
    names = [entry["mutant"] for entry in listed]
    assert len(names) == len(set(names))
    assert all(entry["change"].strip() and len(entry["why"]) > 20 for entry in listed)


def test_share_group_modules_count_in_their_own_part_before_the_coordinator():
    """Issue 28: the share-group modules are a targeted part of their own, even those under
    kafkasim.coordinator (a module counts in the first part whose prefix it has)."""
    status = {"kafkasim.coordinator.modern.share.partition.x_a__mutmut_1": "killed",
              "kafkasim.client.share_consumer.x_b__mutmut_1": "survived",
              "kafkasim.coordinator.group_size.x_c__mutmut_1": "killed"}
    text = mutation.report(status, sorted(status))
    assert "| share groups | 2 | 1 | 1 | 0 | 50.0% | >= 90%: NOT met |" in text
    assert "| coordinator | 1 | 1 | 0 | 0 | 100.0% | >= 90%: met |" in text
    assert "| kafkasim.client.share_consumer | 1 | 0 | 1 | 0 | 0.0% | >= 90%: NOT met |" in text


def test_timeouts_and_survivors_are_run_again_alone_once_per_change(tmp_path, monkeypatch):
    """mutmut's timeouts and survivors are doubtful (a loaded machine trips its limit; its forked
    children import before the mutant is on): each is run again alone, kills are not, and a verdict
    is reused while the mutant's change is the same, run again when it moved."""
    runs = []
    change = {"now": DIFF}
    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: change["now"] if args[0] == "show" else "t::a")
    monkeypatch.setattr(mutation, "_run_alone", lambda name, tests: runs.append((name, tests)) or "killed")
    monkeypatch.setattr(mutation, "_selection", dict)
    kept = tmp_path / "alone.json"
    names = sorted(STATUS)
    doubtful = ["kafkasim.analysis.logs.reader.x_a__mutmut_2", "kafkasim.analysis.logs.reader.x_a__mutmut_3",
                "kafkasim.analysis.logs.reader.x_a__mutmut_4"]
    assert mutation.alone(names, STATUS, path=kept) == dict.fromkeys(doubtful, "killed")
    assert runs == [(n, ["t::a"]) for n in doubtful]
    assert mutation.alone(names, STATUS, path=kept) == dict.fromkeys(doubtful, "killed") and len(runs) == 3
    change["now"] = DIFF.replace("n=1, )", "n=3, )")
    assert mutation.alone(names, STATUS, path=kept, run=False) == {}
    assert mutation.alone(names, STATUS, ("killed",), path=kept) == dict.fromkeys(
        [n for n in names if STATUS[n] == "killed"], "killed") and len(runs) == 6


def fake_mutmut(tmp_path: Path, monkeypatch, cli: str) -> None:
    """A stand-in for mutmut's package under tmp_path, on PYTHONPATH, whose 60,000 mutants are k.x_f__mutmut_0
    to 59,999 and whose `cli()` runs `cli` (a function body); `mutation.ROOT` is tmp_path."""
    fake = tmp_path / "fake" / "mutmut"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text(
        "import pathlib, sys\n"
        "def collect_source_file_mutation_data(*, mutant_names):\n"
        "    assert mutant_names == ()\n"
        "    return [(None, f'k.x_f__mutmut_{i}', None) for i in range(60_000)], {}\n"
        "def collect_or_load_stats(*args, **kwargs):\n"
        "    pass\n"
        "def cli():\n" + cli)
    for module, text in {"mutation/trampoline": "", "state": "state = None",
                         "runners/harness": "class PytestRunner:\n    execute_pytest = None",
                         "workers/isolation": "class ForkServerRunner:\n    submit = None"}.items():
        (fake / f"{module}.py").parent.mkdir(exist_ok=True)
        (fake / f"{module}.py").write_text(text)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "fake"))
    monkeypatch.setattr(mutation, "ROOT", tmp_path)


def test_a_full_runs_names_reach_mutmut_in_one_run_though_no_command_line_holds_them(tmp_path, monkeypatch):
    """A full run names 47,000 mutants, more than a command line holds (ARG_MAX): one mutmut run
    reads them all, so their tests run unmutated once, not once per slice; and it picks them by name,
    not by matching each mutant against every name as a pattern (hours)."""
    fake_mutmut(tmp_path, monkeypatch,
                "    picked = [m[1] for m in collect_source_file_mutation_data(mutant_names=sys.argv[4:])[0]]\n"
                "    pathlib.Path('argv.txt').write_text('\\n'.join(sys.argv[:4] + picked))\n")
    names = [f"k.x_f__mutmut_{i}" for i in range(0, 100_000, 2)]
    mutation.check(names, 2)
    assert (tmp_path / "argv.txt").read_text().split("\n") == ["mutmut", "run", "--max-children", "2",
                                                               *names[:30_000]]


@pytest.mark.parametrize("names, cleaned", [(["kafkasim.no_such_module.*"], False), (["k.x_f__mutmut_3"], True)])
def test_a_run_that_picks_no_mutant_stops_before_mutmuts_clean_run_of_the_tests(tmp_path, monkeypatch, names, cleaned):
    """`check`'s first run only generates the mutants and maps the tests to them (`run`): mutmut would then run
    every selected test unmutated (7 minutes, again in the run that checks the mutants), so a run whose names pick
    no mutant ends there, with exit status 0; a run that picks one goes on to the clean run."""
    fake_mutmut(tmp_path, monkeypatch,
                "    collect_source_file_mutation_data(mutant_names=sys.argv[4:])\n"
                "    pathlib.Path('cleaned.txt').write_text('the clean run')\n")
    mutation.check(names, 2)
    assert (tmp_path / "cleaned.txt").exists() is cleaned


def test_mutmuts_children_run_the_fastest_tests_first_and_skip_the_exit_collections(monkeypatch):
    """What `mutmut_names.faster` changes: the order and cost of a child's tests, not its verdict."""
    import mutmut_names
    from mutmut.runners.harness import PytestRunner
    from mutmut.state import state
    from mutmut.workers.isolation import ForkServerRunner

    sent, ran = [], []
    monkeypatch.setattr(ForkServerRunner, "submit", lambda self, name, tests, limit, estimate: sent.append(tests))
    monkeypatch.setattr(PytestRunner, "execute_pytest", lambda self, params, **kw: ran.append(params))
    monkeypatch.setattr(state(), "duration_by_test", {"a::slow": 5.0, "b::fast": 0.1, "a::fast": 0.1})
    import mutmut.mutation.trampoline as trampoline
    monkeypatch.setattr(trampoline, "get_mutant_under_test", trampoline.get_mutant_under_test)
    mutmut_names.faster()
    ForkServerRunner.submit(None, "m.x_f__mutmut_1", ["a::slow", "new::test", "b::fast", "a::fast"], 10, 1.0)
    PytestRunner.execute_pytest(None, ["-x", "t::a"])
    assert sent == [["new::test", "a::fast", "b::fast", "a::slow"]]  # unknown (0 s) first; ties by name
    assert ran == [["-x", "t::a", "-p", "no:unraisableexception"]]
    monkeypatch.setattr(trampoline, "_mutant_under_test", "m.x_f__mutmut_1")
    assert trampoline.get_mutant_under_test() == "m.x_f__mutmut_1"
    monkeypatch.setattr(trampoline, "_mutant_under_test", None)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stats")
    assert trampoline.get_mutant_under_test() == "stats"


def test_a_function_run_by_a_fixture_shared_by_many_tests_is_judged_by_all_of_them():
    """mutmut maps what a module-scoped fixture calls to the first test that set it up; `widen` maps
    it to every test reading that fixture, directly or through a function-scoped one, and to no other."""
    import mutmut_names

    source = (
        "import pytest\n\n"
        "@pytest.fixture(scope='module')\ndef matrix():\n    return 1\n\n"
        "@pytest.fixture\ndef row(matrix):\n    return matrix\n\n"
        "@pytest.fixture(scope='session')\ndef other():\n    return 2\n\n"
        "def test_first(matrix):\n    pass\n\n"
        "def test_through_a_fixture(row):\n    pass\n\n"
        "def test_other(other):\n    pass\n\n"
        "def test_alone(tmp_path):\n    pass\n")
    assert mutmut_names.shared_fixtures(source) == {"test_first": {"matrix"}, "test_through_a_fixture": {"matrix"},
                                                    "test_other": {"other"}}
    tests = ["t/a.py::test_first[0.9]", "t/a.py::test_first[2.4]", "t/a.py::test_through_a_fixture",
             "t/a.py::test_other", "t/a.py::test_alone", "t/b.py::test_first"]
    mapping = {"m.x_built": {"t/a.py::test_first[0.9]"}, "m.x_alone": {"t/a.py::test_alone"},
               "m.x_other": {"t/a.py::test_other", "t/b.py::test_first"}}
    mutmut_names.widen(mapping, tests, {"t/a.py": source})
    assert mapping == {"m.x_built": {"t/a.py::test_first[0.9]", "t/a.py::test_first[2.4]",
                                     "t/a.py::test_through_a_fixture"},
                       "m.x_alone": {"t/a.py::test_alone"},
                       "m.x_other": {"t/a.py::test_other", "t/b.py::test_first"}}



def test_a_test_reading_a_fixture_set_up_once_costs_that_setup_again_in_a_child(monkeypatch):
    """mutmut timed each shared fixture's setup inside the first test reading it; a child sets it up again
    for whichever of its tests reads it first: `setup_costs` charges every reader the longest timing among
    the readers of each such fixture (a conftest's or the file's own; a file's function-scoped fixture of
    the same name shadows the conftest's), and the children's order counts it."""
    import mutmut_names
    from mutmut.state import state

    conftest = ("@pytest.fixture(scope='session')\ndef spark():\n    return 1\n\n"
                "@pytest.fixture\ndef tmp():\n    return 1\n")
    source = ("@pytest.fixture(scope='module')\ndef matrix():\n    return 1\n\n"
              "def test_a(spark):\n    pass\n\ndef test_b(spark, matrix):\n    pass\n\n"
              "def test_c(matrix):\n    pass\n\ndef test_d(tmp):\n    pass\n")
    shadowing = "@pytest.fixture\ndef spark():\n    return 0\n\ndef test_e(spark):\n    pass\n"
    durations = {"t/a.py::test_a": 10.0, "t/a.py::test_b[1]": 0.5, "t/a.py::test_c": 3.0, "t/a.py::test_d": 0.1,
                 "t/b.py::test_e": 0.2}
    costs = mutmut_names.setup_costs(durations, {"t/a.py": source, "t/b.py": shadowing}, conftest)
    assert costs == {"t/a.py::test_a": 10.0, "t/a.py::test_b[1]": 13.0, "t/a.py::test_c": 3.0}
    monkeypatch.setattr(state(), "duration_by_test", durations)
    monkeypatch.setattr(mutmut_names, "SETUP", costs)
    assert mutmut_names.by_duration(list(durations)) == ["t/a.py::test_d", "t/b.py::test_e", "t/a.py::test_c",
                                                         "t/a.py::test_b[1]", "t/a.py::test_a"]


def test_functions_the_stored_stats_never_saw_are_new_but_none_without_stored_stats():
    """mutmut maps a function added since its stats only to new tests: `new_functions` names them so
    that every test is recorded again; a first run (no stored hashes) records every test anyway."""
    import mutmut_names

    old = {"m.x_a": "1", "m.xǁCǁb": "2"}
    current = {"m.x_a": "9", "m.xǁCǁb": "2", "m.xǁCǁsplit_off": "3"}
    assert mutmut_names.new_functions(old, current) == {"m.xǁCǁsplit_off"}
    assert mutmut_names.new_functions(old, {"m.x_a": "1"}) == set()
    assert mutmut_names.new_functions({}, {"m.x_a": "1"}) == set()


@pytest.fixture
def no_spark(monkeypatch):
    """For the tests of what a run chooses to check: no Spark Connect server (about 10 s a start), which
    `test_resume_checks_only_the_chosen_mutants_without_a_verdict` starts for real."""
    monkeypatch.setattr(mutation, "connect_server", nullcontext)


@pytest.mark.parametrize("collection", ["fails", "succeeds"])
def test_functions_new_since_the_stats_are_mapped_by_every_test_or_the_stats_are_gone(tmp_path, monkeypatch,
                                                                                      collection):
    """A function new since the stored stats (`new_functions`) makes every test run again with its calls recorded.
    If that collection fails, the stored stats must not stay behind: they already carry the new function's hash,
    so the next start would not call it new, and its mutants would be judged by the tests mapped before it existed
    (`client_rules._shown`: a survivor that a test kills by hand)."""
    import mutmut.__main__ as mutmut_main
    import mutmut_names
    from mutmut.state import state

    monkeypatch.chdir(tmp_path)
    stats = tmp_path / mutmut_names.STATS
    stats.parent.mkdir()
    stats.write_text("{}")
    for name, value in {"old_function_hashes": {"m.x_a": "1"}, "current_function_hashes": {"m.x_a": "1", "m.x_b": "2"},
                        "tests_by_mangled_function_name": {"m.x_a": {"t.py::old"}}, "duration_by_test": {"t.py::old": 1.0},
                        "function_dependencies": {}}.items():
        monkeypatch.setattr(state(), name, value)
    recorded = []

    def collect(runner, tests=None):
        recorded.append((stats.exists(), dict(state().tests_by_mangled_function_name)))
        if collection == "fails":
            raise SystemExit(1)
        stats.write_text("{}")  # mutmut saves the map of a collection that succeeded

    monkeypatch.setattr(mutmut_main, "run_stats_collection", collect)
    monkeypatch.setattr(mutmut_main, "_reset_mutant_results", lambda should_reset: None)
    with pytest.raises(SystemExit) if collection == "fails" else nullcontext():
        mutmut_names.remapped(lambda runner: "loaded")("runner")
    assert recorded == [(False, {})]  # every test again, from no stored map
    assert stats.exists() is (collection == "succeeds")


def test_resume_checks_only_the_chosen_mutants_without_a_verdict(tmp_path, monkeypatch):
    """A run stopped halfway goes on where it stopped; without --resume every chosen mutant is checked.
    The tests of a run use one Spark Connect server, started for it (`--spark local`: none)."""
    checked, remote = [], []
    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: "")
    monkeypatch.setattr(mutation, "results", lambda: dict(STATUS))
    monkeypatch.setattr(mutation, "check", lambda names, children: checked.append(names)
                        or remote.append(os.environ.get("KAFKASIM_TEST_SPARK_REMOTE")))
    monkeypatch.setattr(mutation, "alone", lambda *args, **kwargs: {})
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "REPORT", tmp_path / "report.md")
    mutation.main(["--sample", "0", "--only", "kafkasim.coordinator", "--resume"])
    assert "KAFKASIM_TEST_SPARK_REMOTE" not in os.environ  # the server is gone with the run
    mutation.main(["--sample", "0", "--only", "kafkasim.coordinator", "--spark", "local"])
    assert re.fullmatch(r"sc://127\.0\.0\.1:\d+/;session_id=[0-9a-f-]{36}", remote[0]) and remote[1] == remote[0]
    assert remote[2:] == [None, None]
    generate = ["kafkasim.no_such_module.*"]  # each run first generates and maps, through mutmut_names
    assert checked == [generate, ["kafkasim.coordinator.group_size.x_b__mutmut_2"],
                       generate, ["kafkasim.coordinator.assignor.range.xǁRangeAssignorǁassign__mutmut_1",
                                  "kafkasim.coordinator.group_size.x_b__mutmut_1",
                                  "kafkasim.coordinator.group_size.x_b__mutmut_2"]]


def test_resume_survived_forgets_mutmuts_verdicts_on_survivors_and_untested_mutants_only(tmp_path, monkeypatch,
                                                                                          no_spark):
    """mutmut keeps a survivor's verdict until its function changes: a test added since cannot kill
    it. RESUME=survived drops the verdicts of the chosen survivors and untested mutants, no other."""
    meta = tmp_path / "mutants" / "kafkasim" / "coordinator" / "group_size.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {"kafkasim.coordinator.group_size.x_b__mutmut_1": 33, "kafkasim.coordinator.group_size.x_b__mutmut_2": 0,
             "kafkasim.coordinator.group_size.x_b__mutmut_3": 1, "kafkasim.coordinator.group_size.x_b__mutmut_4": 0}
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": {"x_b": "h"}}))
    assert mutation.forget({"kafkasim.coordinator.group_size.x_b__mutmut_1",
                            "kafkasim.coordinator.group_size.x_b__mutmut_2", "kafkasim.other.x_c__mutmut_1"},
                           tmp_path / "mutants") == 2
    assert json.loads(meta.read_text()) == {"exit_code_by_key": {
        "kafkasim.coordinator.group_size.x_b__mutmut_1": None, "kafkasim.coordinator.group_size.x_b__mutmut_2": None,
        "kafkasim.coordinator.group_size.x_b__mutmut_3": 1, "kafkasim.coordinator.group_size.x_b__mutmut_4": 0},
        "hash_by_function_name": {"x_b": "h"}}
    forgot, checked = [], []
    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: "")
    monkeypatch.setattr(mutation, "results", lambda: dict(STATUS))
    monkeypatch.setattr(mutation, "forget", lambda names: forgot.append(names) or len(names))
    monkeypatch.setattr(mutation, "check", lambda names, children: checked.append(names))
    monkeypatch.setattr(mutation, "alone", lambda *args, **kwargs: {})
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "REPORT", tmp_path / "report.md")
    mutation.main(["--sample", "0", "--only", "kafkasim.analysis,kafkasim.coordinator", "--resume", "survived"])
    assert forgot == [{"kafkasim.analysis.logs.reader.x_a__mutmut_3", "kafkasim.analysis.logs.reader.x_a__mutmut_4",
                       "kafkasim.coordinator.group_size.x_b__mutmut_1"}]


def test_a_mutant_runs_alone_with_its_mapped_tests_and_every_test_file_importing_its_module(monkeypatch):
    """A factory run at import is mapped to the first test that imported it; the files that import
    its module are the ones that read what it built, the module's own first (pytest -x stops at the
    first failure, and they are the likeliest to fail)."""
    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: "tests/test_b.py::t1\ntests/test_a.py::t\n")
    selection = {"tests/test_a.py": "from kafkasim.analysis.logs import java_client\n",
                 "tests/test_b.py": "import kafkasim.analysis.logs.java_client as jc\n",
                 "tests/test_c.py": "from kafkasim.analysis.logs import java_client_extra, reader\n",
                 "tests/test_d.py": "    from kafkasim.analysis.logs import (reader,\n    java_client)\n",
                 "tests/test_e.py": "from kafkasim.analysis.logs.java_client import X\n",
                 "tests/test_f.py": "# kafkasim.analysis.logs.java_client, in a comment\n",
                 "tests/test_logs_java_client.py": "from kafkasim.analysis.log_parser import parse_lines\n",
                 "tests/test_g.py": "from kafkasim.analysis.logs import ROW_FIELDS\n",
                 "tests/test_h.py": "from kafkasim.analysis import logs\n"}
    assert mutation.tests_of("kafkasim.analysis.logs.java_client.x__simple__mutmut_4", selection) == [
        "tests/test_b.py::t1", "tests/test_a.py::t", "tests/test_logs_java_client.py", "tests/test_c.py",
        "tests/test_d.py", "tests/test_e.py", "tests/test_g.py"]
    # a module right below the package (`kafkasim.scenario`): the package is not a clue, everything imports it
    assert mutation.tests_of("kafkasim.scenario.x_f__mutmut_1", {"tests/test_x.py": "from kafkasim import Scenario\n"}) \
        == ["tests/test_b.py::t1", "tests/test_a.py::t"]


def test_functions_run_only_while_the_tests_are_imported_are_found_by_running_the_tests_once(tmp_path, monkeypatch):
    """A table filled at import runs its factory before any test (and before mutmut forks): such a
    factory is found; a function a test calls is not, though the import called it too."""
    from mutmut.mutation.file_mutation import mutate_file_contents

    (tmp_path / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["."]\n')
    source = ("def factory(n):\n    return n + 1\n\n\ndef both(n):\n    return n * 2\n\n\n"
              "def later(n):\n    return n - 1\n\n\nTABLE = [factory(1), both(1)]\n")
    monkeypatch.chdir(tmp_path)  # mutmut reads its configuration from the working directory
    (tmp_path / "table.py").write_text(mutate_file_contents("table.py", source).code)
    (tmp_path / "test_table.py").write_text(
        "import table\n\n\ndef test_table():\n    assert table.TABLE == [2, 2] and table.both(2) == 4"
        " and table.later(2) == 1\n")
    assert mutation.run_at_import(["test_table.py"], where=tmp_path) == {"table.x_factory"}


def test_a_full_runs_alone_reruns_its_timeouts_and_the_survivors_of_functions_run_at_import(tmp_path, monkeypatch):
    """--alone timeouts: a survivor mutmut judged with its function really mutated stands (alone it
    could only become a kill); one whose function ran at import was never run mutated, nor a timeout."""
    asked = []
    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: "")
    monkeypatch.setattr(mutation, "run_at_import", lambda: {"kafkasim.analysis.logs.reader.x_a"})
    monkeypatch.setattr(mutation, "alone", lambda names, status, which, **kw: asked.append((names, which)) or {})
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "REPORT", tmp_path / "report.md")
    survivor = {**STATUS, "kafkasim.core.engine.x_c__mutmut_1": "survived"}
    monkeypatch.setattr(mutation, "results", lambda: survivor)
    mutation.main(["--sample", "0", "--only", "kafkasim.analysis,kafkasim.core", "--alone", "timeouts",
                   "--report-only"])
    assert asked == [(["kafkasim.analysis.logs.reader.x_a__mutmut_1", "kafkasim.analysis.logs.reader.x_a__mutmut_2",
                       "kafkasim.analysis.logs.reader.x_a__mutmut_3", "kafkasim.analysis.logs.reader.x_a__mutmut_4"],
                      ("timeout", "survived"))]


def _meta(root: Path, module: str, codes: dict[str, int | None], hashes: dict[str, str]) -> Path:
    meta = root / "mutants" / (module.replace(".", "/") + ".py.meta")
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": hashes}))
    return meta


def test_kept_verdicts_come_back_on_another_machine_only_for_functions_whose_code_is_unchanged(tmp_path, monkeypatch):
    """A full run outlasts a session and `mutants/` stays on its machine: `keep` writes each function's
    verdicts with its code's hash, `restore` gives mutmut back those of an unchanged function, never over
    a verdict it has (a timeout's negative exit code included), and a verdict run alone comes back with its
    change."""
    f, g = "kafkasim.core.faults.x_f", "kafkasim.core.faults.xǁCǁg"
    ran = tmp_path / "ran"
    _meta(ran, "kafkasim.core.faults", {f"{f}__mutmut_1": -24, f"{f}__mutmut_2": 0, f"{f}__mutmut_3": None,
                                        f"{g}__mutmut_1": 36, f"{g}__mutmut_2": 1},
          {"x_f": "hf", "xǁCǁg": "hg"})
    alone_json = ran / "alone.json"
    alone_json.write_text(json.dumps({f"{g}__mutmut_1": {"change": ["a = 2"], "verdict": "killed"}}))
    kept = tmp_path / "verdicts.tsv"
    kept.write_text("kafkasim.old.x_h\thh\t1 0\n")
    assert mutation.keep(ran / "mutants", kept, alone_json) == 4
    assert kept.read_text().splitlines()[2:] == [f"{f}\thf\t-24 0 -", f"{g}\thg\t36/k 1", "kafkasim.old.x_h\thh\t1 0"]
    # mutmut forgot f's verdicts (a new test selection) and judged its third mutant; g's code changed
    _meta(ran, "kafkasim.core.faults", {f"{f}__mutmut_1": None, f"{f}__mutmut_2": None, f"{f}__mutmut_3": 1,
                                        f"{g}__mutmut_1": 1, f"{g}__mutmut_2": None}, {"x_f": "hf", "xǁCǁg": "hg2"})
    before = kept.read_text()
    assert mutation.keep(ran / "mutants", kept, alone_json) == 2
    assert kept.read_text().splitlines()[2:] == [f"{f}\thf\t-24 0 1", f"{g}\thg2\t1/k -", "kafkasim.old.x_h\thh\t1 0"]
    kept.write_text(before)

    fresh = tmp_path / "fresh"  # g's code changed there; f's third mutant and g's had no verdict
    meta = _meta(fresh, "kafkasim.core.faults", {f"{f}__mutmut_1": None, f"{f}__mutmut_2": 1, f"{f}__mutmut_3": None,
                                                 f"{g}__mutmut_1": None, f"{g}__mutmut_2": None},
                 {"x_f": "hf", "xǁCǁg": "changed"})
    assert mutation.restore(fresh / "mutants", kept, fresh / "alone.json") == 1
    assert json.loads(meta.read_text())["exit_code_by_key"] == {
        f"{f}__mutmut_1": -24, f"{f}__mutmut_2": 1, f"{f}__mutmut_3": None, f"{g}__mutmut_1": None,
        f"{g}__mutmut_2": None}
    assert not (fresh / "alone.json").exists()

    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: "--- a\n+++ b\n-a = 1\n+a = 2\n")
    _meta(fresh, "kafkasim.core.faults", {f"{g}__mutmut_1": None, f"{g}__mutmut_2": None}, {"xǁCǁg": "hg"})
    assert mutation.restore(fresh / "mutants", kept, fresh / "alone.json") == 2
    assert json.loads((fresh / "alone.json").read_text()) == {f"{g}__mutmut_1": {"change": ["a = 2"],
                                                                                    "verdict": "killed"}}


def test_a_resumed_run_restores_the_kept_verdicts_before_choosing_what_to_check(tmp_path, monkeypatch, no_spark):
    calls = []
    monkeypatch.setattr(mutation, "mutmut", lambda *args, quiet=False: "")
    monkeypatch.setattr(mutation, "results", lambda: calls.append("results") or dict(STATUS))
    monkeypatch.setattr(mutation, "check", lambda names, children: calls.append("check"))
    monkeypatch.setattr(mutation, "restore", lambda: calls.append("restore") or 0)
    monkeypatch.setattr(mutation, "keep", lambda: calls.append("keep") or 0)
    monkeypatch.setattr(mutation, "alone", lambda *args, **kwargs: {})
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "REPORT", tmp_path / "report.md")
    mutation.main(["--sample", "0", "--only", "kafkasim.coordinator", "--resume"])
    assert calls == ["keep", "check", "restore", "results", "check", "results", "keep"]
    calls.clear()
    mutation.main(["--sample", "0", "--only", "kafkasim.coordinator"])
    assert calls == ["check", "results", "check", "results", "keep"]
