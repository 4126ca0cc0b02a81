"""One run of each chapter per test session, shared by tests/test_notebooks.py (the chapter runs as the
book shows it) and tests/test_exercises.py (its checks tell right answers from wrong ones).

A chapter runs once at CI size, its exercises unanswered, as a reader first meets it. After each check
cell the run adds one cell (tagged ASKED) that asks the check about other answers in a copy of the
chapter's namespace, so nothing it sets reaches the cells that follow: the exercise's stored wrong and
right answers with the whole check cell, then the answers a loose check would let through with the
check's verdict statement alone (`probes`). The copy in build/executed-ci/, which the book's pages are
built from (tools/book.py), leaves the added cells out. Executing each chapter once instead of twice
saves about a third of `make test`.
"""

import ast
import functools
import json
import os
import re
import sys
from pathlib import Path

import nbformat
import papermill

from kafkasim.viz.exercises import RIGHT, WRONG

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from sliced_kernel import SlicedKernelManager  # noqa: E402 (a missed wake-up costs a second, not the cell's limit)

NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
OUT_DIR = ROOT / "build" / "executed-ci"  # as the reader's run leaves it: the book's pages
ASKED_DIR = ROOT / "build" / "executed-ci-asked"  # with the added cells, to inspect after a failure
KERNEL = "kafkasim"
CI_PARAMETERS = {"CI": True}
ASKED = "check-asked"  # the tag of the added cells
# Per cell, not per notebook: generous, so only a hung cell trips it.
CELL_TIMEOUT_S = int(os.environ.get("KAFKASIM_CELL_TIMEOUT", "600"))


def tagged(nb, tag):
    return [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]


def read(path):
    return nbformat.read(path, as_version=4)


def printed(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def prediction(answer: str) -> tuple[str, object]:
    """The variable an exercise sets and the value an answer gives it: `name = <literal>  # ...`."""
    tree = ast.parse(answer)
    assigns = [n for n in tree.body if isinstance(n, ast.Assign)]
    assert len(assigns) == 1 and len(assigns[0].targets) == 1 and isinstance(assigns[0].targets[0], ast.Name), \
        f"an answer sets one variable: {answer!r}"
    return assigns[0].targets[0].id, ast.literal_eval(assigns[0].value)


def is_checker(node) -> bool:
    """A call of kafkasim's `check` or of a chapter's own checker (`check_removal_time`)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("check")


def tolerances(source: str) -> set:
    """The `tolerance=` of every checker call in a cell (0 where none is given)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if is_checker(node):
            kw = [k.value for k in node.keywords if k.arg == "tolerance"]
            found.add(ast.literal_eval(kw[0]) if kw else 0)
    return found


def verdict_statement(check_source: str, variable: str) -> str:
    """The check cell's statement that calls the checker with the prediction: re-run with other
    predictions, it gives the verdict on them from the values the cell measured."""
    tree = ast.parse(check_source)
    found = [stmt for stmt in tree.body
             if isinstance(stmt, (ast.Expr, ast.Assign)) and is_checker(stmt.value)
             and any(isinstance(n, ast.Name) and n.id == variable for n in ast.walk(stmt.value))]
    assert len(found) == 1, f"a check cell calls its checker once with {variable}:\n{check_source}"
    return ast.unparse(found[0])


def options(exercise_source: str) -> list:
    """The choices an exercise cell's comment offers: quoted strings, or numbers in a list that
    says "one of" or "... or ..." (`# one of 35_000, 45_000`, `# 0, 1, 2 or 3`)."""
    comment = exercise_source.partition("#")[2]
    quoted = re.findall(r'"([^"]*)"', comment)
    if quoted:
        return quoted
    if " or " in comment or "one of" in comment:
        return [int(n.replace("_", "")) for n in re.findall(r"\b\d[\d_]*\b", comment)]
    return []


def probes(exercise, check_source: str) -> list[tuple[object, bool]]:
    """(prediction, whether the check must accept it): the right answer, the stored wrong one, and
    the answers a loose check would pass: a number moved by twice the check's tolerance (by one
    where it has none: it compares exactly), every other option of a multiple-choice question, a
    set with one name fewer or one name more (from the names the answers and the comment give)."""
    meta = exercise.metadata["kafkasim"]
    _, right = prediction(meta["right"])
    _, wrong = prediction(meta["wrong"])
    offered = options(exercise.source)
    found = [(right, True), (wrong, False)]
    if isinstance(right, bool):
        found.append((not right, False))
    elif isinstance(right, (int, float)):
        (tolerance,) = tolerances(check_source)
        step = 2 * tolerance * abs(right) or 1  # exact checks (and an answer of 0): one off
        found += [(right - step, False), (right + step, False)]
        found += [(o, False) for o in offered if isinstance(o, (int, float)) and o != right]
    elif isinstance(right, str):
        assert offered, f"a multiple-choice exercise lists its options in its comment:\n{exercise.source}"
        assert right in offered, f"the right answer {right!r} is not among the options {offered}"
        found += [(o, False) for o in offered if o != right]
    elif isinstance(right, (set, frozenset)):
        names = set(right) | set(wrong) | set(offered)
        found += [(right - {n}, False) for n in sorted(right)] + [(right | {n}, False) for n in sorted(names - right)]
    unique = []
    for value, accepted in found:
        if all(value != v or type(value) is not type(v) for v, _ in unique):
            unique.append((value, accepted))
    return unique


def probe_cell(exercise, check_source: str):
    """A cell that asks the check about answers, each in a copy of the chapter's namespace (nothing
    it sets leaks), and prints one JSON line per answer: the stored wrong and right answers run the
    whole check cell, as a reader who answers wrongly and then rightly would; the other probes run
    its verdict statement alone, on the values the cell measured (no second simulation)."""
    meta = exercise.metadata["kafkasim"]
    variable, _ = prediction(meta["right"])
    statement = verdict_statement(check_source, variable)
    cases = [(meta["wrong"], check_source, False), (meta["right"], check_source, True)]
    cases += [(f"{variable} = {value!r}", statement, accepted)  # probes() lists right and wrong first
              for value, accepted in probes(exercise, check_source)[2:]]
    source = f"""import contextlib as _contextlib, io as _io, json as _json
for _assign, _code, _accepted in {cases!r}:
    _out = _io.StringIO()
    with _contextlib.redirect_stdout(_out):
        exec(_assign + "\\n" + _code, dict(globals()))
    print(_json.dumps({{"probe": _assign, "accepted": _accepted, "printed": _out.getvalue()}}))
"""
    return nbformat.v4.new_code_cell(source, metadata={"tags": [ASKED], "probes": len(cases)})


def misjudged(text: str, probes_made: int) -> list[str]:
    """What a probe cell printed (one JSON line per probe), as the probes the check misjudged:
    a right answer not marked RIGHT, a wrong one not marked WRONG, or probes that never ran."""
    lines = [json.loads(line) for line in text.splitlines()]
    bad = [f"{p['probe']}: {p['printed']}" for p in lines
           if not ((RIGHT in p["printed"] and WRONG not in p["printed"]) if p["accepted"]
                   else (WRONG in p["printed"] and RIGHT not in p["printed"]))]
    return bad + ([f"{probes_made - len(lines)} probes never ran"] if len(lines) != probes_made else [])


def with_checks_asked(nb):
    """The chapter with a probe cell after each check cell (about the exercise before it)."""
    cells, exercise = [], None
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        exercise = cell if "exercise" in tags else exercise
        cells.append(cell)
        if "check" in tags:
            assert exercise is not None, f"a check cell before any exercise:\n{cell.source}"
            cells.append(probe_cell(exercise, cell.source))
    nb.cells = cells
    return nb


def as_read(nb):
    """The executed chapter without the added cells, its cells numbered as a reader's run numbers them."""
    nb = nbformat.from_dict(nb)
    nb.cells = [c for c in nb.cells if ASKED not in c.get("metadata", {}).get("tags", [])]
    counted = [c for c in nb.cells if c.cell_type == "code" and c.get("execution_count") is not None]
    for count, cell in enumerate(counted, start=1):
        cell.execution_count = count
        for output in cell.outputs:
            if "execution_count" in output:
                output.execution_count = count
    return nb


@functools.cache
def _run(path: Path):
    """(the executed chapter with its added cells, or None; the error that stopped it, or None)."""
    ASKED_DIR.mkdir(parents=True, exist_ok=True)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    source = ASKED_DIR / f"source-{path.name}"
    nbformat.write(with_checks_asked(read(path)), source)
    asked = ASKED_DIR / path.name
    error = None
    try:  # PapermillExecutionError names the failing cell and carries its traceback
        papermill.execute_notebook(str(source), str(asked), parameters=CI_PARAMETERS, kernel_name=KERNEL,
                                   cwd=str(NOTEBOOK_DIR), execution_timeout=CELL_TIMEOUT_S, progress_bar=False,
                                   kernel_manager_class=SlicedKernelManager)
    except Exception as err:  # noqa: BLE001 (kept, and raised again to every test that asks)
        error = err
    done = read(asked) if asked.exists() else None
    if done is not None:  # with an error output, tools/book.py executes the chapter again
        nbformat.write(as_read(done), OUT_DIR / path.name)
    return done, error


def executed(path: Path):
    """The chapter executed once at CI size with its checks asked (see the module's docstring)."""
    done, error = _run(path)
    if error is not None:
        raise error
    return done
