"""`mutmut run` on a list of mutant names read from a file (tools/mutation.py's `check`).

    python tools/mutmut_names.py CHILDREN FILE

A full run names 47,000 mutants: more than a command line holds, and mutmut 3.8 matches each
mutant against every name given with `fnmatch` (53,938 x 47,000 patterns: hours before the first
mutant runs). Here the names are read from a file and matched by set membership; mutmut then runs
as `mutmut run --max-children CHILDREN NAMES...` would.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mutmut.__main__ as mutmut


def main(children: str, listed: str) -> None:
    names = Path(listed).read_text().split()
    wanted = set(names)
    every = mutmut.collect_source_file_mutation_data

    def chosen(*, mutant_names):
        mutants, by_path = every(mutant_names=())
        return [m for m in mutants if m[1] in wanted], by_path

    mutmut.collect_source_file_mutation_data = chosen
    sys.argv = ["mutmut", "run", "--max-children", children, *names]
    mutmut.cli()


if __name__ == "__main__":
    main(*sys.argv[1:])
