"""The chapters' "predict, then run" exercises check themselves, and the checks tell right from wrong.

Convention (book/README.md): a cell tagged `exercise` sets the reader's prediction and carries a
right and a deliberately wrong answer in its metadata (`"kafkasim": {"right": "...", "wrong":
"..."}`); a later cell tagged `check` prints the verdict (kafkasim.viz.exercises.check, or a
chapter's own checker that prints the same marks, RIGHT and WRONG); a cell tagged `solution`
asserts the right answer.
"""

from pathlib import Path

import nbformat
import papermill
import pytest

from kafkasim.viz.exercises import RIGHT, UNANSWERED, WRONG, check

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
OUT_DIR = ROOT / "build" / "executed-both-ways"
ANSWERED_RIGHT = "check-with-right-answer"  # the tag of the cells the test adds


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


def answered_both_ways(nb):
    """The chapter as a reader who first answers every exercise wrongly, runs the check, then puts
    in the right answer and runs the check again ("run both cells again", as UNANSWERED says): each
    exercise cell holds its wrong answer, and after each check cell comes a cell tagged
    ANSWERED_RIGHT with the exercise's right answer and the check cell's own code."""
    cells, answers = [], None
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "exercise" in tags:
            answers = cell.metadata["kafkasim"]
            cell.source = answers["wrong"]
        cells.append(cell)
        if "check" in tags:
            assert answers is not None, f"a check cell before any exercise:\n{cell.source}"
            cells.append(nbformat.v4.new_code_cell(answers["right"] + "\n" + cell.source,
                                                   metadata={"tags": [ANSWERED_RIGHT]}))
    nb.cells = cells
    return nb


def printed(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_checks_mark_wrong_answers_wrong_and_right_answers_right(path, tmp_path):
    """Run the chapter (CI size) answered both ways: every check cell, run with the exercise's
    wrong answer, must print WRONG (and not RIGHT); run again with its right answer, RIGHT (and
    not WRONG). The solutions, which compute the right answers themselves, must still pass."""
    nb = answered_both_ways(read(path))
    src = tmp_path / path.name
    nbformat.write(nb, src)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(str(src), str(OUT_DIR / path.name), parameters={"CI": True}, kernel_name="kafkasim",
                               cwd=str(path.parent), progress_bar=False)
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
