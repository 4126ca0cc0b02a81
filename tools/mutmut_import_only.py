"""Print (JSON) the mutated functions that run while pytest imports the tests and never while
they run: their work (a table filled at import) is done before mutmut forks its workers, so no
mutant of theirs ever acts there (tools/mutation.py's `run_at_import` checks them alone instead).

    cd mutants && python ../tools/mutmut_import_only.py TEST_FILES...

The tests run once with mutmut's trampolines recording every call (its "stats" mode): calls made
before the first test are import-time, calls made during a test are not.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from mutmut.mutation.trampoline import set_mutant_under_test
from mutmut.state import state


class Calls:
    """The functions called during collection, and those called by a test."""

    def __init__(self) -> None:
        self.at_import: set[str] = set()

    def pytest_collection_finish(self) -> None:
        self.at_import = set(state()._stats)
        state()._stats.clear()


def main(tests: list[str]) -> int:
    sys.path.insert(0, os.getcwd())  # the mutated package, as in mutmut's own runs
    set_mutant_under_test("stats")
    calls = Calls()
    code = pytest.main(["-q", "-p", "no:randomly", "-p", "no:cacheprovider", *tests], plugins=[calls])
    if code != 0:
        print(f"mutmut_import_only: the tests failed unmutated (exit status {code})", file=sys.stderr)
        return 1
    print(json.dumps(sorted(calls.at_import - state()._stats)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
