"""The chapters' "predict, then run" exercises check themselves, and the checks can fail.

Convention (book/README.md): a cell tagged `exercise` sets the reader's prediction and carries a
deliberately wrong answer in its metadata (`"kafkasim": {"wrong": "..."}`); a later cell tagged
`check` prints the verdict (kafkasim.viz.exercises.check, or a chapter's own checker with the same
wording); a cell tagged `solution` asserts the right answer.
"""

from pathlib import Path

import nbformat
import papermill
import pytest

from kafkasim.viz.exercises import RIGHT, UNANSWERED, WRONG, check

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
OUT_DIR = ROOT / "build" / "executed-wrong"
MARK_WRONG = "Not quite"  # in WRONG, and in every chapter's own checker


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
    assert MARK_WRONG in WRONG


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_exercise_has_a_wrong_answer_a_check_and_a_solution(path):
    nb = read(path)
    exercises = tagged(nb, "exercise")
    assert exercises, f"{path.name} has no cell tagged 'exercise'"
    for cell in exercises:
        wrong = cell.metadata.get("kafkasim", {}).get("wrong")
        assert wrong, f"{path.name}: exercise cell without metadata kafkasim.wrong:\n{cell.source[:200]}"
        compile(wrong, path.name, "exec")  # a wrong answer that is at least valid Python
    assert len(tagged(nb, "check")) >= len(exercises), f"{path.name}: an exercise without a 'check' cell"
    assert tagged(nb, "solution"), f"{path.name}: no cell tagged 'solution'"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_checks_say_not_quite_to_wrong_answers(path, tmp_path):
    """Run the chapter (CI size) with every exercise answered wrongly: each check must say so,
    and the solutions, which compute the right answers, must still pass."""
    nb = read(path)
    for cell in tagged(nb, "exercise"):
        cell.source = cell.metadata["kafkasim"]["wrong"]
    src = tmp_path / path.name
    nbformat.write(nb, src)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(str(src), str(OUT_DIR / path.name), parameters={"CI": True}, kernel_name="kafkasim",
                               cwd=str(path.parent), progress_bar=False)
    done = read(OUT_DIR / path.name)
    for cell in tagged(done, "check"):
        text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
        assert MARK_WRONG in text, f"{path.name}: a check did not reject the wrong answer:\n{cell.source}\n{text}"
