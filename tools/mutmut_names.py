"""`mutmut run` on a list of mutant names read from a file (tools/mutation.py's `check`).

    python tools/mutmut_names.py CHILDREN FILE

A full run names 47,000 mutants: more than a command line holds, and mutmut 3.8 matches each
mutant against every name given with `fnmatch` (53,938 x 47,000 patterns: hours before the first
mutant runs). Here the names are read from a file and matched by set membership; mutmut then runs
as `mutmut run --max-children CHILDREN NAMES...` would, with three changes that alter no verdict
and only its cost (`faster`), and one that lets more tests judge a mutant (`widen`). Names that pick no
mutant (a run that only generates the mutants and maps the tests) end the run before mutmut's clean run.
"""

from __future__ import annotations

import ast
import os
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import mutmut.__main__ as mutmut
import mutmut.mutation.trampoline as trampoline
from mutmut.runners.harness import PytestRunner
from mutmut.state import state
from mutmut.workers.isolation import ForkServerRunner

# pytest's unraisable-exception plugin calls gc.collect() five times as each child ends: a fifth
# of a child's time (py-spy) in a process holding the whole package and its tests.
NO_GC_AT_EXIT = ["-p", "no:unraisableexception"]


#: What each test pays in a child besides its own time: the setup of the fixtures it shares with
#: other tests (`setup_costs`; filled once mutmut's timings are loaded).
SETUP: dict[str, float] = {}


def by_duration(tests: list[str]) -> list[str]:
    """Cheapest first (by mutmut's own timings and `SETUP`), then by name: with `-x` a killed mutant
    stops at its first failing test. mutmut's fork server sends them in a set's order, which changes
    with the hash seed and often puts a slow one first (the 1,000-member viz fixture: 9 s in a child)."""
    durations = state().duration_by_test
    return sorted(tests, key=lambda test: (durations.get(test, 0.0) + SETUP.get(test, 0.0), test))


def setup_costs(durations: dict[str, float], sources: dict[str, str], conftest: str = "") -> dict[str, float]:
    """A test's cost in a child beyond its own timing: for each fixture it shares with other tests (its
    file's, or conftest's), the longest timing among the tests reading it. mutmut's timings come from
    one process that set each shared fixture up once, inside the first test reading it; a child sets
    it up again for whichever of its tests reads it first (Spark's session: a JVM, 10 s, though most
    Spark tests were timed at under 1.5 s)."""
    inherited = set(shared_fixtures(conftest, every=True).get("", ()))
    readers: dict[tuple[str, str], list[str]] = defaultdict(list)
    for test in durations:
        path, _, rest = test.partition("::")
        for fixture in shared_fixtures(sources.get(path, ""), inherited).get(rest.split("[")[0], ()):
            readers[path if fixture not in inherited else "", fixture].append(test)
    costs: dict[str, float] = defaultdict(float)
    for tests in readers.values():
        setup = max(durations[test] for test in tests)
        for test in tests:
            costs[test] += setup
    return dict(costs)


def active_mutant() -> str:
    """mutmut's `get_mutant_under_test` without reading `os.environ` on every call of every
    mutated function (7% of a 1,000-member simulation): the child sets the name once."""
    name = trampoline._mutant_under_test
    return name if name is not None else os.environ.get("MUTANT_UNDER_TEST", "")


def faster() -> None:
    """The three changes: tests fastest first, no garbage collection at a child's exit, the
    active mutant read from memory."""
    submit, execute = ForkServerRunner.submit, PytestRunner.execute_pytest
    ForkServerRunner.submit = lambda self, name, tests, *rest: submit(self, name, by_duration(tests), *rest)
    PytestRunner.execute_pytest = lambda self, params, **kw: execute(self, [*params, *NO_GC_AT_EXIT], **kw)
    trampoline.get_mutant_under_test = active_mutant


def shared_fixtures(source: str, inherited: Iterable[str] = (), every: bool = False) -> dict[str, set[str]]:
    """{test function: the fixtures it uses (directly or through the file's other fixtures) that are
    set up once for many tests (any scope but "function")}, for a test file's source; `inherited`
    names such fixtures of a conftest, which the file's own shadow. `every`: also {"": all such
    fixtures the source defines}."""
    params: dict[str, set[str]] = {}
    shared, tests = set(inherited), set()
    for node in ast.parse(source).body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params[node.name] = {a.arg for a in node.args.args}
        scope = _fixture_scope(node)
        if scope not in (None, "function"):
            shared.add(node.name)
        else:
            shared.discard(node.name)
            if scope is None and node.name.startswith("test"):
                tests.add(node.name)

    def reach(names: set[str], seen: set[str]) -> set[str]:
        for name in names - seen:
            seen.add(name)
            if name in params and name not in tests:
                reach(params[name], seen)
        return seen

    used = {t: found for t in tests if (found := reach(params[t], set()) & shared)}
    return {**used, "": shared - set(inherited)} if every else used


def _fixture_scope(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """"function" for `@pytest.fixture`, its `scope=` for `@pytest.fixture(scope=...)`, None for no fixture."""
    for deco in node.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        target = call.func if call else deco
        if isinstance(target, (ast.Attribute, ast.Name)) and getattr(target, "attr", getattr(target, "id", "")) == "fixture":
            scope = next((k.value for k in (call.keywords if call else ()) if k.arg == "scope"), None)
            return scope.value if isinstance(scope, ast.Constant) else "function"
    return None


def widen(tests_by_function: dict[str, set[str]], tests: Iterable[str], sources: dict[str, str]) -> None:
    """Map a function to every test sharing a fixture set up once with a test it is mapped to.
    mutmut maps what a module-scoped fixture calls to the first test that set it up only; in a
    child the fixture is built again with the mutant on, but the other tests reading it never run
    (chapter 09's behaviour matrix: its 0.9 row alone judged the whole matrix)."""
    uses = {path: shared_fixtures(text) for path, text in sources.items()}
    group: dict[tuple[str, str], set[str]] = defaultdict(set)
    groups_of: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for test in tests:
        path, _, rest = test.partition("::")
        for fixture in uses.get(path, {}).get(rest.split("[")[0], ()):
            group[path, fixture].add(test)
            groups_of[test].append((path, fixture))
    for mapped in tests_by_function.values():
        mapped |= {other for test in list(mapped) for key in groups_of.get(test, ()) for other in group[key]}


def new_functions(old_hashes: dict[str, str], current_hashes: dict[str, str]) -> set[str]:
    """The functions mutmut's stored stats have never seen (none when there are no stored stats). On a
    later run mutmut records calls for new tests only, so such a function (a helper split off a
    mapped one) would be judged by the new tests alone: `_heartbeat_in`'s 59 false survivors."""
    return set(current_hashes) - set(old_hashes) if old_hashes else set()


STATS = Path("mutants") / "mutmut-stats.json"  # mutmut's map of tests to functions, under the run's root


def remapped(load):
    """mutmut's `collect_or_load_stats` (`load`), then, when functions are new since the stored stats, every test
    run again with its calls recorded (`new_functions`), and the map widened (`widen`) and the setup costs noted.
    The stored stats go first: mutmut saves them only when a collection succeeds, and a failed one would otherwise
    leave the map that never saw the new functions, whose hashes the next start would no longer call new."""
    def collect_or_load_stats(runner, *args, **kwargs):
        done = load(runner, *args, **kwargs)
        added = new_functions(state().old_function_hashes, state().current_function_hashes)
        if added:
            print(f"mutation: {len(added)} functions new since mutmut's stats: every test is run again with its "
                  "calls recorded, and their mutants' verdicts are forgotten", flush=True)
            STATS.unlink(missing_ok=True)
            for table in (state().tests_by_mangled_function_name, state().duration_by_test,
                          state().function_dependencies):
                table.clear()
            mutmut.run_stats_collection(runner)
            mutmut._reset_mutant_results(lambda key, exit_code: key.rpartition("__mutmut_")[0] in added)
        tests = list(state().duration_by_test)
        files = {test.partition("::")[0] for test in tests}
        sources = {f: Path(f).read_text() for f in files if Path(f).exists()}
        widen(state().tests_by_mangled_function_name, tests, sources)
        conftest = Path("tests/conftest.py")
        SETUP.update(setup_costs(state().duration_by_test, sources, conftest.read_text() if conftest.exists() else ""))
        return done

    return collect_or_load_stats


def main(children: str, listed: str) -> None:
    names = Path(listed).read_text().split()
    wanted = set(names)
    every = mutmut.collect_source_file_mutation_data

    def chosen(*, mutant_names):
        mutants, by_path = every(mutant_names=())
        picked = [m for m in mutants if m[1] in wanted]
        if not picked:  # a run that only generates the mutants and maps the tests (`mutation.check`'s first):
            raise SystemExit(0)  # not mutmut's clean run of every test next (7 minutes), which the next run does
        return picked, by_path

    mutmut.collect_source_file_mutation_data = chosen
    mutmut.collect_or_load_stats = remapped(mutmut.collect_or_load_stats)
    faster()
    sys.argv = ["mutmut", "run", "--max-children", children, *names]
    mutmut.cli()


if __name__ == "__main__":
    main(*sys.argv[1:])
