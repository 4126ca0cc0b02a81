"""`mutmut run` on a list of mutant names read from a file (tools/mutation.py's `check`).

    python tools/mutmut_names.py CHILDREN FILE

A full run names 47,000 mutants: more than a command line holds, and mutmut 3.8 matches each
mutant against every name given with `fnmatch` (53,938 x 47,000 patterns: hours before the first
mutant runs). Here the names are read from a file and matched by set membership; mutmut then runs
as `mutmut run --max-children CHILDREN NAMES...` would, with three changes that alter no verdict
and only its cost (`faster`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import mutmut.__main__ as mutmut
import mutmut.mutation.trampoline as trampoline
from mutmut.runners.harness import PytestRunner
from mutmut.state import state
from mutmut.workers.isolation import ForkServerRunner

# pytest's unraisable-exception plugin calls gc.collect() five times as each child ends: a fifth
# of a child's time (py-spy) in a process holding the whole package and its tests.
NO_GC_AT_EXIT = ["-p", "no:unraisableexception"]


def by_duration(tests: list[str]) -> list[str]:
    """Fastest first (by mutmut's own timings), then by name: with `-x` a killed mutant stops at
    its first failing test. mutmut's fork server sends them in a set's order, which changes with
    the hash seed and often puts a minute-long test first."""
    return sorted(tests, key=lambda test: (state().duration_by_test.get(test, 0.0), test))


def active_mutant() -> str:
    """mutmut's `get_mutant_under_test` without reading `os.environ` on every call of every
    mutated function (a tenth of a simulation's time): the child sets the name once."""
    name = trampoline._mutant_under_test
    return name if name is not None else os.environ.get("MUTANT_UNDER_TEST", "")


def faster() -> None:
    """The three changes: tests fastest first, no garbage collection at a child's exit, the
    active mutant read from memory."""
    submit, execute = ForkServerRunner.submit, PytestRunner.execute_pytest
    ForkServerRunner.submit = lambda self, name, tests, *rest: submit(self, name, by_duration(tests), *rest)
    PytestRunner.execute_pytest = lambda self, params, **kw: execute(self, [*params, *NO_GC_AT_EXIT], **kw)
    trampoline.get_mutant_under_test = active_mutant


def main(children: str, listed: str) -> None:
    names = Path(listed).read_text().split()
    wanted = set(names)
    every = mutmut.collect_source_file_mutation_data

    def chosen(*, mutant_names):
        mutants, by_path = every(mutant_names=())
        return [m for m in mutants if m[1] in wanted], by_path

    mutmut.collect_source_file_mutation_data = chosen
    faster()
    sys.argv = ["mutmut", "run", "--max-children", children, *names]
    mutmut.cli()


if __name__ == "__main__":
    main(*sys.argv[1:])
