"""The chapters' "predict, then run" exercises check themselves, and the checks tell right from wrong.

Convention (book/README.md): a cell tagged `exercise` sets the reader's prediction and carries a
right and a deliberately wrong answer in its metadata (`"kafkasim": {"right": "...", "wrong":
"..."}`); a later cell tagged `check` prints the verdict (kafkasim.viz.exercises.check, or a
chapter's own checker that prints the same marks, RIGHT and WRONG); a cell tagged `solution`
asserts the right answer.

A check must not pass a wrong answer: besides the stored wrong one, the run both ways probes each
check with the answers a loose check would let through (a number moved by twice the tolerance,
every other option of a multiple-choice question), re-evaluating only the check cell's verdict
statement against the values the chapter measured (no second simulation).
"""

import ast
import json
import re
from pathlib import Path

import nbformat
import papermill
import pytest

from kafkasim.viz.exercises import RIGHT, UNANSWERED, WRONG, check

from test_notebooks import CELL_TIMEOUT_S, SlicedKernelManager  # per cell: a lost kernel message fails in minutes, not 20

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
OUT_DIR = ROOT / "build" / "executed-both-ways"
ANSWERED_RIGHT = "check-with-right-answer"  # the tag of the cells the test adds
PROBED = "check-probed"  # the tag of the cells that probe a check with more answers


def tagged(nb, tag):
    return [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]


def read(path):
    return nbformat.read(path, as_version=4)


@pytest.mark.parametrize("predicted,actual,kw,ok", [
    (3, 3, {}, True), (4, 3, {}, False), (None, 3, {}, False), (105, 100, {"tolerance": 0.1}, True),
    (120, 100, {"tolerance": 0.1}, False), ("Session_Timeout", "session_timeout", {}, True),
    ({"a", "b"}, {"b", "a"}, {}, True), ([1, 2], [2, 1], {}, False), (True, True, {}, True), (1, True, {}, True),
])
def test_check_verdicts(capsys, predicted, actual, kw, ok):
    verdict = check(predicted, actual, "because", **kw)
    assert bool(verdict) is ok and repr(verdict) == f"Verdict({ok})"
    out = capsys.readouterr().out
    expected = RIGHT if ok else (UNANSWERED if predicted is None else WRONG)
    assert out.startswith(expected)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_exercise_has_a_right_and_a_wrong_answer_a_check_and_a_solution(path):
    nb = read(path)
    exercises = tagged(nb, "exercise")
    assert exercises, f"{path.name} has no cell tagged 'exercise'"
    for cell in exercises:
        for key in ("right", "wrong"):
            answer = cell.metadata.get("kafkasim", {}).get(key)
            assert answer, f"{path.name}: exercise cell without metadata kafkasim.{key}:\n{cell.source[:200]}"
            compile(answer, path.name, "exec")  # at least valid Python
        meta = cell.metadata["kafkasim"]
        assert meta["right"] != meta["wrong"]
    assert len(tagged(nb, "check")) >= len(exercises), f"{path.name}: an exercise without a 'check' cell"
    assert tagged(nb, "solution"), f"{path.name}: no cell tagged 'solution'"


def exercises_in_order(nb):
    """Per exercise cell: (exercise, its check cells, its solution cells), the cells that follow it
    up to the next exercise."""
    groups = []
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "exercise" in tags:
            groups.append((cell, [], []))
        elif groups and ("check" in tags or "solution" in tags):
            groups[-1][1 if "check" in tags else 2].append(cell)
    return groups


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
    """A cell that re-runs the check's verdict statement with each probe as the prediction, in a
    copy of the chapter's namespace (nothing it sets leaks), and prints one JSON line per probe."""
    variable, _ = prediction(exercise.metadata["kafkasim"]["right"])
    statement = verdict_statement(check_source, variable)
    cases = [(f"{variable} = {value!r}", accepted) for value, accepted in probes(exercise, check_source)]
    source = f"""import contextlib as _contextlib, io as _io, json as _json
for _assign, _accepted in {cases!r}:
    _out = _io.StringIO()
    with _contextlib.redirect_stdout(_out):
        exec(_assign + "\\n" + {statement!r}, dict(globals()))
    print(_json.dumps({{"probe": _assign, "accepted": _accepted, "printed": _out.getvalue()}}))
"""
    return nbformat.v4.new_code_cell(source, metadata={"tags": [PROBED], "probes": len(cases)})


def misjudged(text: str, probes_made: int) -> list[str]:
    """What a probe cell printed (one JSON line per probe), as the probes the check misjudged:
    a right answer not marked RIGHT, a wrong one not marked WRONG, or probes that never ran."""
    lines = [json.loads(line) for line in text.splitlines()]
    bad = [f"{p['probe']}: {p['printed']}" for p in lines
           if not ((RIGHT in p["printed"] and WRONG not in p["printed"]) if p["accepted"]
                   else (WRONG in p["printed"] and RIGHT not in p["printed"]))]
    return bad + ([f"{probes_made - len(lines)} probes never ran"] if len(lines) != probes_made else [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_a_check_and_its_solution_use_the_same_tolerance(path):
    """The solution states how close an answer must be; a check cell looser (or stricter) than that
    would pass answers the solution calls wrong."""
    for exercise, checks, solutions in exercises_in_order(read(path)):
        assert len(checks) == 1 and solutions, f"{path.name}: an exercise without one check and a solution"
        in_check = tolerances(checks[0].source)
        in_solution = set().union(*(tolerances(c.source) for c in solutions))
        assert len(in_check) == 1, f"{path.name}: a check cell with {len(in_check)} checker calls:\n{checks[0].source}"
        assert in_check == in_solution, \
            f"{path.name}: the check's tolerance {in_check} is not the solution's {in_solution}:\n{checks[0].source}"
        probe_cell(exercise, checks[0].source)  # the probes can be built: answers are literals, options listed


def test_probes_of_a_numeric_a_multiple_choice_and_a_set_exercise():
    """Written by hand: what a loose check must still reject."""
    def exercise(source, right, wrong):
        return nbformat.v4.new_code_cell(source, metadata={"kafkasim": {"right": right, "wrong": wrong}})

    number = exercise("x = None  # seconds", "x = 100", "x = 50")
    assert probes(number, "check(x, m, tolerance=0.1)") == [(100, True), (50, False), (80.0, False), (120.0, False)]
    assert probes(number, "check(x, m)") == [(100, True), (50, False), (99, False), (101, False)]
    choice = exercise('x = None  # one of 35_000, 45_000, 55_000', "x = 55_000", "x = 45_000")
    assert probes(choice, "check(x, m)") == [(55_000, True), (45_000, False), (54_999, False), (55_001, False),
                                             (35_000, False)]
    words = exercise('p = None  # "up", "down" or "same"', 'p = "down"', 'p = "same"')
    assert probes(words, "check(p, m)") == [("down", True), ("same", False), ("up", False)]
    names = exercise('s = None  # names, e.g. {"none"}', 's = {"a", "b"}', 's = {"a", "b", "c"}')
    assert probes(names, "check(sorted(s), m)") == [({"a", "b"}, True), ({"a", "b", "c"}, False), ({"b"}, False),
                                                    ({"a"}, False), ({"a", "b", "none"}, False)]
    flag = exercise("f = None  # True or False", "f = False", "f = True")
    assert probes(flag, "check(f, m)") == [(False, True), (True, False)]
    assert verdict_statement("m = run()\nis_right = check(p, m, why=f'{m}')\ndisplay(m)", "p") == \
        "is_right = check(p, m, why=f'{m}')"


def answered_both_ways(nb):
    """The chapter as a reader who first answers every exercise wrongly, runs the check, then puts
    in the right answer and runs the check again ("run both cells again", as UNANSWERED says): each
    exercise cell holds its wrong answer, and after each check cell comes a cell tagged
    ANSWERED_RIGHT with the exercise's right answer and the check cell's own code, then a cell
    tagged PROBED that asks the check's verdict on more answers (`probe_cell`)."""
    cells, exercise = [], None
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "exercise" in tags:
            exercise = nbformat.from_dict(cell)
            cell.source = exercise.metadata["kafkasim"]["wrong"]
        cells.append(cell)
        if "check" in tags:
            assert exercise is not None, f"a check cell before any exercise:\n{cell.source}"
            cells.append(nbformat.v4.new_code_cell(exercise.metadata["kafkasim"]["right"] + "\n" + cell.source,
                                                   metadata={"tags": [ANSWERED_RIGHT]}))
            cells.append(probe_cell(exercise, cell.source))
    nb.cells = cells
    return nb


def printed(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_checks_mark_wrong_answers_wrong_and_right_answers_right(path, tmp_path):
    """Run the chapter (CI size) answered both ways: every check cell, run with the exercise's
    wrong answer, must print WRONG (and not RIGHT); run again with its right answer, RIGHT (and
    not WRONG); asked about the probes, it accepts the right answer and nothing else. The
    solutions, which compute the right answers themselves, must still pass."""
    nb = answered_both_ways(read(path))
    src = tmp_path / path.name
    nbformat.write(nb, src)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(str(src), str(OUT_DIR / path.name), parameters={"CI": True}, kernel_name="kafkasim",
                               cwd=str(path.parent), progress_bar=False, execution_timeout=CELL_TIMEOUT_S,
                               kernel_manager_class=SlicedKernelManager)
    done = read(OUT_DIR / path.name)
    wrong, right = tagged(done, "check"), tagged(done, ANSWERED_RIGHT)
    assert len(wrong) == len(right) >= len(tagged(done, "exercise"))
    for cell in wrong:
        text = printed(cell)
        assert WRONG in text and RIGHT not in text, \
            f"{path.name}: a check did not mark the wrong answer {WRONG!r}:\n{cell.source}\n{text}"
    for cell in right:
        text = printed(cell)
        assert RIGHT in text and WRONG not in text, \
            f"{path.name}: a check did not mark the right answer {RIGHT!r}:\n{cell.source}\n{text}"
    probed = tagged(done, PROBED)
    assert len(probed) == len(right)
    for cell in probed:
        assert misjudged(printed(cell), cell.metadata["probes"]) == [], f"{path.name}:\n{cell.source}"


def test_a_probe_cell_tells_a_strict_check_from_a_loose_one(capsys):
    """The probe cell run in a namespace like a chapter's: kafkasim's check passes; the same check
    with three times the tolerance the cell states (6 % instead of 2 %) accepts the right answer
    moved by twice the stated tolerance, and is caught; so is a check that ignores the prediction."""
    exercise = nbformat.v4.new_code_cell("guess_s = None  # seconds", metadata={
        "kafkasim": {"right": "guess_s = 140", "wrong": "guess_s = 110"}})
    cell = probe_cell(exercise, "measured_s = 141\nis_right = check(guess_s, measured_s, tolerance=0.02, unit='s')")
    loose = lambda p, a, why="", tolerance=0, **kw: check(p, a, why, tolerance=3 * tolerance, **kw)  # noqa: E731
    blind = lambda p, a, why="", **kw: check(a, a, why, **kw)  # noqa: E731
    for checker, wrongly_passed in ((check, []), (loose, ["guess_s = 134.4", "guess_s = 145.6"]),
                                    (blind, ["guess_s = 110", "guess_s = 134.4", "guess_s = 145.6"])):
        exec(cell.source, {"check": checker, "measured_s": 141})
        found = misjudged(capsys.readouterr().out, cell.metadata["probes"])
        assert [line.partition(":")[0] for line in found] == wrongly_passed
