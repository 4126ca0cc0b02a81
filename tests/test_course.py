"""The course kit (tools/course.py, `make course`): editions, guide, plans, archive, wheelhouse.

Most tests are quick. What a student runs up to the first exercise is checked to be the chapter
that tests/test_notebooks.py executes. The offline install from the wheelhouse is slow and needs
`make wheelhouse` first: it is marked `wheelhouse`, left out of `make test` and run by
`make test-course`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import book_pages  # noqa: E402
import course  # noqa: E402

CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
by_chapter = pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])


@pytest.fixture(scope="module")
def chapters() -> list[course.Chapter]:
    return course.read_chapters(CHAPTERS)


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory, chapters) -> Path:
    target = tmp_path_factory.mktemp("course") / "student"
    course.student_edition(chapters, target)
    return target


# -- metadata ---------------------------------------------------------------------------------------

@by_chapter
def test_chapter_has_course_metadata(path):
    chapter = course.read_chapter(path)  # raises CourseError naming what is missing
    assert chapter.minutes > 0 and chapter.demo and chapter.objectives
    assert all(ex.misconception and ex.wrong for ex in chapter.exercises)
    assert chapter.solutions, f"{path.name}: no solution cell, so no answer key"


def synthetic(tmp_path: Path, meta: dict | None, exercise_meta: dict | None = None,
              name: str = "07-synthetic.ipynb") -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 07 · Synthetic\n\nA chapter made up for a test."),
        nbformat.v4.new_markdown_cell("## Objectives\n\n1. predict a number.\n\n## Prerequisites\n\nNone."),
        nbformat.v4.new_code_cell("guess = None", metadata={"tags": ["exercise"], "kafkasim": exercise_meta or {
            "wrong": "guess = 2", "misconception": "Two is always the answer."}}),
        nbformat.v4.new_code_cell("print(guess == 3)", metadata={"tags": ["check"]}),
        nbformat.v4.new_markdown_cell("### Solution\n\nThree, because it is three."),
        nbformat.v4.new_code_cell("guess = 1 + 2  # the secret reasoning\nassert guess == 3",
                                  metadata={"tags": ["solution"]}),
    ]
    if meta is not None:
        nb.metadata["kafkasim"] = meta
    path = tmp_path / "notebooks" / name
    path.parent.mkdir(exist_ok=True)
    nbformat.write(nb, path)
    return path


GOOD = {"minutes": 20, "prerequisites": [], "demo": "Show it."}


@pytest.mark.parametrize("meta, message", [
    (None, "notebook metadata 'kafkasim' is missing"),
    ({"prerequisites": [], "demo": "x"}, "kafkasim.minutes must be a positive int"),
    ({"minutes": 0, "prerequisites": [], "demo": "x"}, "kafkasim.minutes must be a positive int"),
    ({"minutes": 20, "prerequisites": "00-welcome", "demo": "x"}, "kafkasim.prerequisites must be a list"),
    ({"minutes": 20, "prerequisites": []}, "kafkasim.demo"),
])
def test_missing_notebook_metadata_fails_clearly(tmp_path, meta, message):
    path = synthetic(tmp_path, meta)
    with pytest.raises(course.CourseError, match=message) as err:
        course.read_chapter(path)
    assert "07-synthetic.ipynb" in str(err.value)


def test_exercise_without_misconception_fails_clearly(tmp_path):
    path = synthetic(tmp_path, GOOD, exercise_meta={"wrong": "guess = 2"})
    with pytest.raises(course.CourseError, match=r"07-synthetic.ipynb: exercise cell without metadata kafkasim.misconception"):
        course.read_chapter(path)


def test_unknown_prerequisite_fails_clearly(tmp_path):
    path = synthetic(tmp_path, dict(GOOD, prerequisites=["05-missing"]))
    with pytest.raises(course.CourseError, match=r"names \['05-missing'\], which are not chapters"):
        course.read_chapters([path])


def test_the_command_line_reports_the_problem(tmp_path, monkeypatch):
    monkeypatch.setattr(course.execute, "chapters", lambda: [synthetic(tmp_path, None)])
    monkeypatch.setattr(sys, "argv", ["course.py", "guide"])
    with pytest.raises(SystemExit, match="tools/course.py: .*07-synthetic.ipynb: notebook metadata 'kafkasim' is missing"):
        course.main()


# -- student edition --------------------------------------------------------------------------------

def solution_lines(nb: nbformat.NotebookNode) -> set[str]:
    """Lines of the solution cells that no other cell of the chapter has: the answers themselves."""
    elsewhere = {line.strip() for c in nb.cells if "solution" not in c.metadata.get("tags", [])
                 for line in c.source.splitlines()}
    return {line.strip() for c in course.tagged(nb, "solution") for line in c.source.splitlines()
            if line.strip() and line.strip() not in elsewhere}


def assert_no_solution(original: nbformat.NotebookNode, student: nbformat.NotebookNode, name: str) -> None:
    assert not course.tagged(student, "solution"), f"{name}: a solution-tagged cell survived"
    text = "\n".join(c.source for c in student.cells)
    for cell in course.tagged(original, "solution"):
        assert cell.source.strip() not in text, f"{name}: a solution's code survived"
    leaked = {line for line in solution_lines(original) if line in {x.strip() for x in text.splitlines()}}
    assert not leaked, f"{name}: lines of a solution survived: {leaked}"
    headings = [line for c in student.cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if course._SOLUTION_HEADING.match(line)]
    assert not headings, f"{name}: a Solution section survived: {headings}"


def test_student_notebook_drops_solutions_and_keeps_exercises(tmp_path):
    original = nbformat.read(synthetic(tmp_path, GOOD), as_version=4)
    original.cells[3].outputs = [nbformat.v4.new_output("stream", text="True\n")]
    original.cells[3].execution_count = 4
    student = course.student_notebook(original)
    assert_no_solution(original, student, "synthetic")
    assert [c.source[:14] for c in student.cells] == [
        "# 07 · Synthet", "## Objectives\n", "guess = None", "print(guess ==", ]
    assert student.cells[2].metadata == {"tags": ["exercise"]}, "the wrong answer and misconception hint at the answer"
    assert student.cells[3].outputs == [] and student.cells[3].execution_count is None
    assert "Three, because" not in str(student) and "secret reasoning" in str(original)


@pytest.mark.parametrize("markdown, kept", [
    ("### Solution", ""),
    ("### Solution\n\nIt is 16000 ms.\n\n## What real Kafka does\n\nText.", "## What real Kafka does\n\nText."),
    ("Run the next cells.\n\n### Solutions\n\nThe answer.", "Run the next cells."),
    ("## A solution-free heading\n\nKept.", "## A solution-free heading\n\nKept."),
])
def test_solution_sections_are_dropped(markdown, kept):
    assert course.without_solution_sections(markdown) == kept


@by_chapter
def test_student_edition_has_no_solution(path, student_dir):
    original = nbformat.read(path, as_version=4)
    student = nbformat.read(student_dir / path.name, as_version=4)
    assert_no_solution(original, student, path.name)
    assert not [c for c in student.cells if "kafkasim" in c.metadata], "an exercise's answers survived"
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code"), "outputs survived"
    assert len(course.tagged(student, "exercise")) == len(course.tagged(original, "exercise"))
    assert len(course.tagged(student, "check")) == len(course.tagged(original, "check"))
    assert len(course.tagged(student, "parameters")) == 1
    assert student.metadata.kernelspec.name == "kafkasim"


def names(source: str) -> tuple[set[str], set[str]]:
    """(names a cell binds, names it reads), IPython magics and shell lines left out."""
    import ast

    from IPython.core.inputtransformer2 import TransformerManager

    # IPython's own reading of magics and shell lines (a line starting "!=" inside an expression is Python)
    tree = ast.parse(TransformerManager().transform_cell(source))
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return bound, read


def reads_of_solution_names(nb: nbformat.NotebookNode) -> list[tuple[str, list[str]]]:
    """(cell, names) for each non-solution cell that reads a name only a solution cell bound."""
    only_in_solutions: set[str] = set()
    bound_elsewhere: set[str] = set()
    found = []
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        bound, read = names(cell.source)
        if "solution" in cell.metadata.get("tags", []):
            only_in_solutions |= bound - bound_elsewhere
            continue
        if (read - bound) & only_in_solutions:
            found.append((cell.source, sorted((read - bound) & only_in_solutions)))
        bound_elsewhere |= bound
        only_in_solutions -= bound
    return found


@by_chapter
def test_student_notebook_needs_no_solution_cell(path):
    """Without the solutions, the rest of a student's notebook still runs: no later cell reads a
    name that only a solution cell binds."""
    assert reads_of_solution_names(nbformat.read(path, as_version=4)) == []


def test_a_cell_that_needs_a_solution_is_found(tmp_path):
    nb = nbformat.read(synthetic(tmp_path, GOOD), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("print(guess * 2)"))  # guess: bound by the exercise too
    assert reads_of_solution_names(nb) == []
    nb.cells[5].source += "\nanswer_ms = 16_000"
    nb.cells.append(nbformat.v4.new_code_cell("%time\nprint(answer_ms)"))
    assert reads_of_solution_names(nb) == [("%time\nprint(answer_ms)", ["answer_ms"])]


def up_to_first_exercise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    first = next(i for i, c in enumerate(nb.cells) if "exercise" in c.metadata.get("tags", []))
    nb.cells = nb.cells[:first + 1]
    return nb


@by_chapter
def test_student_notebook_up_to_its_first_exercise_is_the_chapter_the_tests_run(path, student_dir):
    """What a student meets first works without the solutions: up to its first exercise, the
    student notebook holds the chapter's own code cells in order, which tests/test_notebooks.py
    executes (CI = True), and student/ holds the files beside the chapters, so relative paths
    resolve as they do from notebooks/. (Executing that prefix again here ran most of each chapter
    a third time per `make test`.)"""
    def code(nb):
        return [c.source for c in up_to_first_exercise(nb).cells if c.cell_type == "code"]

    student = nbformat.read(student_dir / path.name, as_version=4)
    assert code(student) == code(nbformat.read(path, as_version=4))
    assert student.metadata.kernelspec.name == "kafkasim"
    beside = {p.name for p in path.parent.iterdir() if p.suffix != ".ipynb" and not p.name.startswith(".")
              and p.name != "__pycache__"}
    assert beside <= {p.name for p in student_dir.iterdir()}


@pytest.mark.parametrize("fresh", [True, False])
def test_instructor_edition_reuses_the_books_full_size_executions(tmp_path, monkeypatch, chapters, fresh):
    """`make course` takes build/executed/ (full size, as `make book` leaves it) when fresh, and
    otherwise executes there with the book's defaults: no CI parameter."""
    executed = []
    monkeypatch.setattr(course.execute, "is_fresh", lambda notebook, copy: fresh)

    def execute(notebook: Path, copy: Path, parameters: dict) -> None:
        executed.append((notebook, copy, parameters))
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(notebook.read_text())

    monkeypatch.setattr(course.execute, "execute", execute)
    monkeypatch.setattr(course.execute, "executed_path", lambda nb, folder: tmp_path / folder.name / nb.name)
    if fresh:
        (tmp_path / "executed").mkdir()
        for c in chapters:
            (tmp_path / "executed" / c.path.name).write_text(c.path.read_text())
    written = course.instructor_edition(chapters, tmp_path / "instructor")
    assert [p.name for p in written] == [c.path.name for c in chapters]
    assert all("solution" in p.read_text() for p in written)
    expected = [] if fresh else [(c.path, tmp_path / "executed" / c.path.name, {}) for c in chapters]
    assert executed == expected


# -- guide and plans --------------------------------------------------------------------------------

def fake(number: int, minutes: int) -> course.Chapter:
    stem = f"{number:02d}-c{number}"
    page = book_pages.Chapter(f"notebooks/{stem}", f"{number:02d}", f"C{number}", "It works.", "")
    return course.Chapter(Path(f"notebooks/{stem}.ipynb"), page, minutes, (), f"demo {number}",
                          "1. objective", (course.Exercise("x = None", "x = 1", "m"),), ("x = 2",))


def test_blocks_never_exceed_the_limit_unless_one_chapter_does():
    packed = course.blocks([fake(i, m) for i, m in enumerate([30, 45, 40, 100, 20, 20, 50])])
    assert [[c.minutes for c in b] for b in packed] == [[30, 45], [40], [100], [20, 20, 50]]


@pytest.mark.parametrize("minutes, lunch", [([30, 45, 40, 60, 50], False), ([30, 45, 40, 60, 50, 40, 60, 45, 50, 60, 70], True)])
def test_plan_times_add_up(minutes, lunch):
    chapters = [fake(i, m) for i, m in enumerate(minutes)]
    slots = course.plan(chapters, lunch)
    assert slots[0].start == course.DAY_START_MIN and slots[0].minutes == course.SETUP_MIN
    assert all(a.end == b.start for a, b in zip(slots, slots[1:])), "slots must follow each other"
    taught = [s for s in slots if s.what.startswith("Chapter")]
    assert [s.minutes for s in taught] == minutes and [s.demo for s in taught] == [c.demo for c in chapters]
    pauses = [s for s in slots if s.what in ("Break", "Lunch")]
    assert len(pauses) == len(course.blocks(chapters)) - 1
    assert sum(s.what == "Lunch" for s in slots) == (1 if lunch else 0)
    assert slots[-1].end - slots[0].start == course.SETUP_MIN + sum(minutes) + sum(s.minutes for s in pauses)
    if lunch:  # near the middle: 11 chapters of 610 minutes, lunch after 305 +- one block
        before = sum(s.minutes for s in taught if s.start < next(p for p in pauses if p.what == "Lunch").start)
        assert abs(before - sum(minutes) / 2) <= course.BLOCK_MAX_MIN


def test_plan_section_says_which_chapters_are_missing():
    spec = course.PlanSpec("Half day", 0, 4, False, 13 * 60)
    text = "\n".join(course._plan_section(spec, [fake(0, 30), fake(2, 40)], course.kit_link))
    assert "Chapters 01, 03, 04 are not in this edition yet" in text
    assert "| 09:00–09:15 | 15 | Setup" in text and "| 09:15–09:45 | 30 | Chapter [00 · C0](student/00-c0.ipynb) | demo 0 |" in text
    assert "09:00 to 10:25: 70 minutes of chapters, 15 of setup and 0 of breaks. Chapters 01" in text


def test_plan_section_says_what_to_leave_out_when_it_runs_late():
    spec = course.PlanSpec("Half day", 0, 4, False, 12 * 60)
    chapters = [fake(i, m) for i, m in enumerate([30, 45, 40, 60, 50])]
    text = "\n".join(course._plan_section(spec, chapters, course.kit_link))
    # 09:15 + 75, break, 40, break, 60, break, 50: ends 13:45; without 04 at 12:40, without 03 and 04 at 11:25.
    assert ("09:00 to 13:45: 225 minutes of chapters, 15 of setup and 45 of breaks. That is later than 12:00: "
            "to finish by then, leave chapters 03, 04 (110 minutes) for self-study or a second session.") in text
    assert course._overrun_note(course.PlanSpec("x", 0, 4, False, 13 * 60 + 45), chapters, 13 * 60 + 45) == ""


def headings(markdown: str) -> list[str]:
    """The heading lines, outside fenced code."""
    found, fenced = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.append(line)
    return found


def test_guide_holds_objectives_misconceptions_and_answer_keys(chapters):
    text = course.guide(chapters)
    levels = [len(h.split()[0]) for h in headings(text)]
    assert levels[0] == 1 and levels.count(1) == 1, "one title"
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:])), "no skipped heading level"
    assert "### Half-day workshop: chapters 00 to 04" in text and "### Full day: chapters 00 to 13" in text
    for chapter in chapters:
        assert f"### {chapter.label}" in text and chapter.objectives in text and chapter.demo in text
        assert f"**Time:** {chapter.minutes} minutes" in text
        for ex in chapter.exercises:
            assert ex.misconception in text and ex.wrong.strip() in text
        for code in chapter.solutions:
            assert code.rstrip() in text


def test_full_day_plan_has_a_slot_for_every_chapter(chapters):
    """Every chapter of the edition, chapter 11 (the consumer protocol) included, has a row in the
    full day's timetable, not only a section with its answer key (issue 17, item 12)."""
    text = course.guide(chapters)
    full_day = text[text.index("### Full day"):text.index("## Chapters")]
    for chapter in chapters:
        assert f"| Chapter {course.kit_link(chapter)} |" in full_day, f"{chapter.label} is not in the full-day plan"


def test_book_page_links_chapters_and_is_listed_under_reference(chapters):
    body = course.guide_body(chapters, course.book_link)
    assert headings(body)[0].startswith("## "), "the page's title is in book/instructor-guide.md"
    assert not [h for h in headings(body) if h.startswith("# ")]
    assert f"{{doc}}`{chapters[0].label} </notebooks/{chapters[0].path.stem}>`" in body
    toc = (ROOT / "book" / "_toc.yml").read_text()
    assert toc.index("- file: book/instructor-guide") > toc.index("caption: Reference")
    assert "```{include} _generated/instructor-guide.md" in (ROOT / "book" / "instructor-guide.md").read_text()


# -- the archive --------------------------------------------------------------------------------------

def test_zip_puts_the_readme_first(tmp_path, chapters):
    kit, site, wheels = tmp_path / "course", tmp_path / "html", tmp_path / "wheels"
    course.student_edition(chapters, kit / "student")
    (kit / "instructor").mkdir()
    (kit / "instructor" / "00-welcome.ipynb").write_text("{}")
    (kit / course.GUIDE_NAME).write_text(course.guide(chapters))
    (kit / "README.md").write_text(course.kit_readme(chapters, spark=False))
    (site / "_static").mkdir(parents=True)
    (site / "index.html").write_text("<html></html>")
    (site / "_static" / "x.js").write_text("1")
    wheels.mkdir()
    (wheels / "requirements.txt").write_text("\n".join(course.student_requirements()) + "\n")
    out = course.zip_kit(kit, site, wheels, tmp_path / "kafkasim-course-9.9.zip")
    names = zipfile.ZipFile(out).namelist()
    assert names[0] == "kafkasim-course-9.9/README.md"
    for entry in ("instructor-guide.md", "student/00-welcome.ipynb", "instructor/00-welcome.ipynb",
                  "book/index.html", "book/_static/x.js", "wheelhouse/requirements.txt"):
        assert f"kafkasim-course-9.9/{entry}" in names
    readme = zipfile.ZipFile(out).read(names[0]).decode()
    assert "pip install --no-index --find-links wheelhouse -r wheelhouse/requirements.txt" in readme
    assert "leaves out the `spark` extra" in readme


def test_student_requirements_follow_pyproject():
    import kafkasim

    reqs = course.student_requirements()
    assert reqs[0] == f"kafkasim[viz]=={kafkasim.__version__}"
    assert {r.split(">")[0] for r in reqs[1:]} == set(course.STUDENT_TOOLS)
    assert course.student_requirements(spark=True)[0] == f"kafkasim[viz,spark]=={kafkasim.__version__}"


# -- offline install (make test-course) ---------------------------------------------------------------

SMOKE = """
import sys
import altair, ipywidgets, jupyterlab, ipykernel
import kafkasim
from kafkasim import Scenario, simulate
assert kafkasim.__file__.startswith(sys.prefix), kafkasim.__file__
run = simulate(Scenario(members=2, topics={"orders": 4}, produce_rate_per_s=10, duration_ms=20_000, seed=7))
again = simulate(Scenario(members=2, topics={"orders": 4}, produce_rate_per_s=10, duration_ms=20_000, seed=7))
assert run.summary["records_processed"] > 0 and run.events.equals(again.events)
print("kafkasim", kafkasim.__version__, "rebalances", run.summary["rebalances"])
"""


def offline_env(home: Path) -> dict[str, str]:
    """The environment of a classroom machine with no network: pip reads no config file, and
    any index or proxy it could try points at a closed port on this machine."""
    env = {k: v for k, v in os.environ.items()
           if not k.upper().startswith(("PIP_", "PYTHON")) and "PROXY" not in k.upper()}
    nowhere = "http://127.0.0.1:9"
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_INDEX_URL=f"{nowhere}/simple",
               HTTP_PROXY=nowhere, HTTPS_PROXY=nowhere, http_proxy=nowhere, https_proxy=nowhere,
               HOME=str(home), JUPYTER_PLATFORM_DIRS="1")
    return env


@pytest.mark.wheelhouse
def test_student_installs_from_the_wheelhouse_offline(tmp_path, chapters):
    wheels = course.WHEELHOUSE
    assert (wheels / "requirements.txt").exists(), "no wheelhouse: run `make wheelhouse` (make test-course does)"
    env, venv = offline_env(tmp_path), tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    python = str(venv / "bin" / "python")

    def run(*args: str) -> str:
        done = subprocess.run(args, env=env, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(args)}\n{done.stdout}\n{done.stderr}"
        return done.stdout

    # The README's commands, as a student types them.
    run(python, "-m", "pip", "install", "--no-index", "--find-links", str(wheels), "-r", str(wheels / "requirements.txt"))
    assert "kafkasim 0.1.0 rebalances" in run(python, "-c", SMOKE)
    run(python, "-m", "ipykernel", "install", "--sys-prefix", "--name", "kafkasim", "--display-name", "Python 3 (kafkasim)")
    # The first chapter, up to its exercise, in the student's own JupyterLab environment.
    first = chapters[0]
    nb = up_to_first_exercise(course.student_notebook(nbformat.read(first.path, as_version=4)))
    params = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells.insert(params + 1, nbformat.v4.new_code_cell("CI = True"))
    nbformat.write(nb, tmp_path / first.path.name)
    run(str(venv / "bin" / "jupyter"), "nbconvert", "--to", "notebook", "--execute", "--output",
        "executed.ipynb", str(tmp_path / first.path.name))
    done = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    assert not [o for c in done.cells for o in c.get("outputs", []) if o.output_type == "error"]


@pytest.mark.parametrize("text, needs", [
    ("from kafkasim.analysis import spark as ks", True), ("import kafkasim.analysis.spark", True), ("from pyspark.sql import functions", True),
    ("every later chapter, chart and Spark job reads this table", False), ("sparkline = 3", False),
])
def test_spark_chapters_are_found_by_their_imports(text, needs):
    chapter = fake(10, 60)
    chapter = course.Chapter(**{**chapter.__dict__, "page": book_pages.Chapter("notebooks/10-c10", "10", "C10", "It works.", text)})
    assert course.spark_chapters([chapter]) == ([chapter] if needs else [])
