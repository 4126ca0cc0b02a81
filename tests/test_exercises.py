"""The chapters' "predict, then run" exercises check themselves, and the checks tell right from wrong.

Convention (book/README.md): a cell tagged `exercise` sets the reader's prediction and carries a
right and a deliberately wrong answer in its metadata (`"kafkasim": {"right": "...", "wrong":
"..."}`); a later cell tagged `check` prints the verdict (kafkasim.viz.exercises.check, or a
chapter's own checker that prints the same marks, RIGHT and WRONG); a cell tagged `solution`
asserts the right answer.

A check must not pass a wrong answer: the chapter's one run (tests/chapter_runs.py) asks each check
about the stored wrong and right answers, then about the answers a loose check would let through (a
number moved by twice the tolerance, every other option of a multiple-choice question), re-evaluating
only the check cell's verdict statement against the values the chapter measured (no second simulation).
"""

import nbformat
import pytest

from chapter_runs import (ASKED, NOTEBOOKS, as_read, executed, misjudged, printed, probe_cell, probes, read,
                          tagged, tolerances, verdict_statement, with_checks_asked)
from kafkasim.viz.exercises import RIGHT, UNANSWERED, WRONG, check


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


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_checks_mark_wrong_answers_wrong_and_right_answers_right(path):
    """The chapter's run (CI size, tests/chapter_runs.py) asks every check about answers: its whole
    cell, run with the exercise's wrong answer, must print WRONG (and not RIGHT); run with its right
    answer, RIGHT (and not WRONG); its verdict on the probes accepts the right answer and nothing else.
    The solutions, which compute the right answers themselves, must still pass: the run raises if not."""
    done = executed(path)
    asked = tagged(done, ASKED)
    assert len(asked) == len(tagged(done, "check")) >= len(tagged(done, "exercise"))
    for cell in asked:
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


def test_the_asked_cells_change_nothing_a_reader_sees():
    """The added cells follow their check cells, run in copies of the namespace (the prediction a later
    cell reads is still the reader's None), and the reader's copy drops them and numbers its cells 1, 2, 3."""
    exercise = nbformat.v4.new_code_cell("guess = None  # a number", metadata={
        "tags": ["exercise"], "kafkasim": {"right": "guess = 3", "wrong": "guess = 4"}})
    check_cell = nbformat.v4.new_code_cell("is_right = check(guess, 3)", metadata={"tags": ["check"]})
    later = nbformat.v4.new_code_cell("seen = (guess, bool(is_right))")
    nb = with_checks_asked(nbformat.v4.new_notebook(cells=[exercise, check_cell, later]))
    assert [c.metadata.get("tags") for c in nb.cells] == [["exercise"], ["check"], [ASKED], None]
    namespace = {"check": check}
    for count, cell in enumerate(nb.cells, start=1):
        exec(cell.source, namespace)
        cell.execution_count = count
    assert namespace["seen"] == (None, False) and "_assign" in namespace
    assert [(c.source, c.execution_count) for c in as_read(nb).cells] == [
        (exercise.source, 1), (check_cell.source, 2), (later.source, 3)]
