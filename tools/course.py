"""The course kit for instructors: student and instructor editions, a guide, an offline wheelhouse.

    python tools/course.py kit [--ci]        # `make course`: build/course/ and build/kafkasim-course-<v>.zip
    python tools/course.py wheelhouse [--spark]   # `make wheelhouse`: build/wheelhouse/
    python tools/course.py guide             # print the instructor guide (Markdown)

Everything is computed from the chapters (notebooks/*.ipynb), so the kit stays true as they change:

- **Student edition** (build/course/student/): every chapter without its solutions (cells tagged
  `solution`, `Solution` sections of markdown cells, the exercises' right answers, and their
  wrong answers and misconceptions, which hint at the right ones) and without outputs. Exercise and check
  cells stay, so a student predicts, runs, and gets a verdict.
- **Instructor edition** (build/course/instructor/): the chapters executed at full size, solutions
  included: the copies `make book` leaves in build/executed/ (tools/book.py), executed again with
  papermill only when stale.
- **Instructor guide**: per chapter the objectives (its `## Objectives` cell), minutes,
  prerequisites, suggested live demonstration, the misconception each exercise targets and the
  answer key (the solution cells' code), plus a half-day and a full-day plan computed from the
  minutes. The same text is a page of the book (tools/book.py stages it in book/_generated/).
- **Wheelhouse** (build/wheelhouse/): the wheels a student needs on this platform (kafkasim with
  the `viz` extra, JupyterLab and ipykernel; the `spark` extra only with --spark), so a classroom
  installs with `pip install --no-index`.

The course metadata every chapter carries (book/README.md, rule 7 for chapter authors):
notebook metadata ``kafkasim: {minutes, prerequisites, demo}`` and, on each ``exercise`` cell,
``kafkasim: {wrong, misconception}``. A chapter without it stops the build with a clear error.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

import execute  # noqa: E402  (tools/execute.py: chapters, executed copies, papermill)
import book_pages  # noqa: E402

COURSE = ROOT / "build" / "course"
WHEELHOUSE = ROOT / "build" / "wheelhouse"
GUIDE_NAME = "instructor-guide.md"

#: What a student installs: kafkasim with these extras, plus these tools (bounds from the `dev` extra).
STUDENT_EXTRAS = ("viz",)
STUDENT_TOOLS = ("jupyterlab", "ipykernel")

DAY_START_MIN = 9 * 60
SETUP_MIN = 15       # install from the wheelhouse, open JupyterLab, run the first cell
BLOCK_MAX_MIN = 90   # teaching time between two breaks, at most (a longer chapter is a block alone)
BREAK_MIN = 15
LUNCH_MIN = 60

_SOLUTION_HEADING = re.compile(r"^#{1,6}\s+Solutions?\b.*$", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s")


class CourseError(Exception):
    """A chapter lacks what the course kit needs (the message names the notebook and the key)."""


# -- reading the chapters -------------------------------------------------------------------------

@dataclass(frozen=True)
class Exercise:
    code: str            # the exercise cell, as the student sees it
    wrong: str           # a plausible wrong answer (tests/test_exercises.py runs it)
    misconception: str   # the misconception that wrong answer reflects


@dataclass(frozen=True)
class Chapter:
    path: Path
    page: book_pages.Chapter   # number, title, promise, docname
    minutes: int
    prerequisites: tuple[str, ...]   # notebook stems, e.g. "00-welcome"
    demo: str
    objectives: str                  # Markdown, from the `## Objectives` section
    exercises: tuple[Exercise, ...]
    solutions: tuple[str, ...]       # the code of the `solution` cells: the answer key

    @property
    def label(self) -> str:
        return f"{self.page.number} · {self.page.title}"


def tagged(nb: nbformat.NotebookNode, tag: str) -> list:
    return [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]


def _where(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def course_metadata(nb: nbformat.NotebookNode, path: Path) -> dict:
    """The notebook's ``kafkasim`` metadata, checked: minutes (int > 0), prerequisites (list of
    chapter names), demo (text)."""
    meta = nb.metadata.get("kafkasim")
    rule = "(book/README.md rule 7: nb.metadata['kafkasim'] = {'minutes': 40, 'prerequisites': ['00-welcome'], 'demo': '...'})"
    if not isinstance(meta, dict):
        raise CourseError(f"{_where(path)}: notebook metadata 'kafkasim' is missing {rule}")
    minutes = meta.get("minutes")
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes <= 0:
        raise CourseError(f"{_where(path)}: metadata kafkasim.minutes must be a positive int, got {minutes!r} {rule}")
    prerequisites = meta.get("prerequisites")
    if not isinstance(prerequisites, list) or not all(isinstance(p, str) for p in prerequisites):
        raise CourseError(f"{_where(path)}: metadata kafkasim.prerequisites must be a list of chapter names "
                          f"(notebook stems), got {prerequisites!r} {rule}")
    demo = meta.get("demo")
    if not isinstance(demo, str) or not demo.strip():
        raise CourseError(f"{_where(path)}: metadata kafkasim.demo (a suggested live demonstration) is missing {rule}")
    return meta


def exercises(nb: nbformat.NotebookNode, path: Path) -> tuple[Exercise, ...]:
    found = []
    for cell in tagged(nb, "exercise"):
        meta = cell.metadata.get("kafkasim", {})
        missing = [key for key in ("wrong", "misconception") if not str(meta.get(key, "")).strip()]
        if missing:
            raise CourseError(f"{_where(path)}: exercise cell without metadata kafkasim.{' and kafkasim.'.join(missing)} "
                              f"(book/README.md rules 3 and 7):\n{cell.source[:200]}")
        found.append(Exercise(cell.source, meta["wrong"], meta["misconception"]))
    if not found:
        raise CourseError(f"{_where(path)}: no cell tagged 'exercise' (book/README.md rules 3 and 7)")
    return tuple(found)


def objectives(nb: nbformat.NotebookNode, path: Path) -> str:
    """The body of the ``## Objectives`` section (up to the next heading of level 1 or 2)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        for i, line in enumerate(lines):
            if line.strip().lower() == "## objectives":
                body = []
                for rest in lines[i + 1:]:
                    if re.match(r"^#{1,2}\s", rest):
                        break
                    body.append(rest)
                if "\n".join(body).strip():
                    return "\n".join(body).strip()
    raise CourseError(f"{_where(path)}: no '## Objectives' section with text (book/README.md rule 7)")


def read_chapter(path: Path) -> Chapter:
    nb = nbformat.read(path, as_version=4)
    meta = course_metadata(nb, path)
    return Chapter(
        path=path,
        page=book_pages.read_chapter(path, ROOT if path.is_relative_to(ROOT) else path.parent.parent),
        minutes=meta["minutes"],
        prerequisites=tuple(meta["prerequisites"]),
        demo=meta["demo"].strip(),
        objectives=objectives(nb, path),
        exercises=exercises(nb, path),
        solutions=tuple(c.source for c in tagged(nb, "solution")),
    )


def read_chapters(paths: Iterable[Path] | None = None) -> list[Chapter]:
    """Every chapter (default: notebooks/*.ipynb), checked; prerequisites must name chapters."""
    chapters = [read_chapter(p) for p in (execute.chapters() if paths is None else paths)]
    known = {c.path.stem for c in chapters}
    for c in chapters:
        unknown = [p for p in c.prerequisites if p not in known]
        if unknown:
            raise CourseError(f"{_where(c.path)}: metadata kafkasim.prerequisites names {unknown}, "
                              f"which are not chapters (known: {sorted(known)})")
    return chapters


# -- the two editions -----------------------------------------------------------------------------

def without_solution_sections(markdown: str) -> str:
    """Drop every ``Solution`` section (its heading and the text up to the next heading)."""
    kept, skipping = [], False
    for line in markdown.splitlines():
        if _HEADING.match(line):
            skipping = bool(_SOLUTION_HEADING.match(line))
        if not skipping:
            kept.append(line)
    return "\n".join(kept).strip("\n")


def student_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy without solution cells, solution sections, outputs, and the exercises' metadata."""
    out = copy.deepcopy(nb)
    cells = []
    for cell in out.cells:
        if "solution" in cell.get("metadata", {}).get("tags", []):
            continue
        if cell.cell_type == "markdown":
            cell.source = without_solution_sections(cell.source)
            if not cell.source.strip():
                continue
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
        cell.metadata.pop("kafkasim", None)  # an exercise's right answer, and its wrong one and misconception
        cells.append(cell)
    out.cells = cells
    out.metadata.pop("papermill", None)
    return out


def _chapter_files(target: Path) -> None:
    """Files beside the chapters (data they read), so that relative paths work in an edition."""
    for item in execute.NOTEBOOKS.iterdir():
        if item.suffix == ".ipynb" or item.name.startswith(".") or item.name == "__pycache__":
            continue
        dest = target / item.name
        if item.is_dir():
            # work/: a sweep being made again for notebooks/results/ (kafkasim/analysis/results.py), not data
            shutil.copytree(item, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "work"))
        else:
            shutil.copy2(item, dest)


def _fresh_dir(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def student_edition(chapters: list[Chapter], target: Path) -> list[Path]:
    _fresh_dir(target)
    _chapter_files(target)
    written = []
    for chapter in chapters:
        out = target / chapter.path.name
        nbformat.write(student_notebook(nbformat.read(chapter.path, as_version=4)), out)
        written.append(out)
    return written


def instructor_edition(chapters: list[Chapter], target: Path, ci: bool = False) -> list[Path]:
    """The executed chapters of the book (build/executed/, or executed-ci/ with `ci`), executing
    with papermill the ones that are missing or stale, as tools/book.py does."""
    flavour = execute.Flavour(ci)
    _fresh_dir(target)
    _chapter_files(target)
    written = []
    for chapter in chapters:
        executed = execute.executed_path(chapter.path, flavour.executed)
        if not execute.is_fresh(chapter.path, executed):
            print(f"executing {_where(chapter.path)} -> {_where(executed)}", flush=True)
            execute.execute(chapter.path, executed, flavour.parameters)
        written.append(Path(shutil.copy2(executed, target / chapter.path.name)))
    return written


# -- plans ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Slot:
    start: int      # minutes since midnight
    minutes: int
    what: str
    demo: str = ""

    @property
    def end(self) -> int:
        return self.start + self.minutes


@dataclass(frozen=True)
class PlanSpec:
    title: str
    first: int      # chapter numbers, inclusive
    last: int
    lunch: bool     # a lunch break near the middle
    end_by: int     # minutes since midnight: the plan says so when it runs later


PLANS = (PlanSpec("Half-day workshop", 0, 4, False, 13 * 60 + 30),
         PlanSpec("Full day", 0, 13, True, 17 * 60 + 30))


def clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def blocks(chapters: list[Chapter], limit: int = BLOCK_MAX_MIN) -> list[list[Chapter]]:
    """Consecutive chapters packed into teaching blocks of at most `limit` minutes."""
    out: list[list[Chapter]] = []
    for chapter in chapters:
        if out and sum(c.minutes for c in out[-1]) + chapter.minutes <= limit:
            out[-1].append(chapter)
        else:
            out.append([chapter])
    return out


def plan(chapters: list[Chapter], lunch: bool, start: int = DAY_START_MIN) -> list[Slot]:
    """Setup, then the chapters in blocks with a break between two blocks; with `lunch`, the break
    nearest the middle of the teaching time is a lunch break."""
    packed = blocks(chapters)
    teaching = [sum(c.minutes for c in b) for b in packed]
    lunch_after = -1
    if lunch and len(packed) > 1:
        half, done, best = sum(teaching) / 2, 0, None
        for i, minutes in enumerate(teaching[:-1]):
            done += minutes
            if best is None or abs(done - half) < best:
                best, lunch_after = abs(done - half), i
    slots = [Slot(start, SETUP_MIN, "Setup: install from the wheelhouse, register the kernel, open JupyterLab")]
    for i, block in enumerate(packed):
        for chapter in block:
            slots.append(Slot(slots[-1].end, chapter.minutes, f"Chapter {chapter.label}", chapter.demo))
        if i < len(packed) - 1:
            slots.append(Slot(slots[-1].end, LUNCH_MIN if i == lunch_after else BREAK_MIN,
                              "Lunch" if i == lunch_after else "Break"))
    return slots


def in_range(chapters: list[Chapter], first: int, last: int) -> list[Chapter]:
    return [c for c in chapters if c.page.number.isdigit() and first <= int(c.page.number) <= last]


# -- the guide and the kit's README ----------------------------------------------------------------

def book_link(chapter: Chapter) -> str:
    return f"{{doc}}`{chapter.label} </{chapter.page.docname}>`"


def kit_link(chapter: Chapter) -> str:
    return f"[{chapter.label}](student/{chapter.path.name})"


def _cell(text: str) -> str:
    """Text fit for one cell of a Markdown table."""
    return " ".join(text.split()).replace("|", "\\|")


def _overrun_note(spec: PlanSpec, chosen: list[Chapter], end: int) -> str:
    """When the plan ends after `spec.end_by`: which last chapters to leave for self-study."""
    if end <= spec.end_by:
        return ""
    keep = len(chosen) - 1
    while keep > 0 and plan(chosen[:keep], spec.lunch)[-1].end > spec.end_by:
        keep -= 1
    left = chosen[keep:]
    return (f" That is later than {clock(spec.end_by)}: to finish by then, leave chapter"
            f"{'s' if len(left) > 1 else ''} {', '.join(c.page.number for c in left)} "
            f"({sum(c.minutes for c in left)} minutes) for self-study or a second session.")


def _plan_section(spec: PlanSpec, chapters: list[Chapter], link: Callable[[Chapter], str]) -> list[str]:
    chosen = in_range(chapters, spec.first, spec.last)
    lines = [f"### {spec.title}: chapters {spec.first:02d} to {spec.last:02d}", ""]
    if not chosen:
        return lines + [f"No chapter numbered {spec.first:02d} to {spec.last:02d} exists yet.", ""]
    slots = plan(chosen, spec.lunch)
    present = {int(c.page.number) for c in chosen}
    missing = [f"{n:02d}" for n in range(spec.first, spec.last + 1) if n not in present]
    teaching = sum(c.minutes for c in chosen)
    pauses = sum(s.minutes for s in slots if s.what in ("Break", "Lunch"))
    summary = (f"{clock(slots[0].start)} to {clock(slots[-1].end)}: {teaching} minutes of chapters, "
               f"{SETUP_MIN} of setup and {pauses} of breaks.")
    summary += _overrun_note(spec, chosen, slots[-1].end)
    if missing:
        summary += f" Chapters {', '.join(missing)} are not in this edition yet, so the plan leaves them out."
    by_label = {f"Chapter {c.label}": c for c in chosen}
    lines += [summary, "", "| Time | Minutes | Activity | Live demonstration |", "|---|---|---|---|"]
    for s in slots:
        what = f"Chapter {link(by_label[s.what])}" if s.what in by_label else s.what
        lines.append(f"| {clock(s.start)}–{clock(s.end)} | {s.minutes} | {what} | {_cell(s.demo)} |")
    return lines + [""]


def _chapter_section(chapter: Chapter, chapters: list[Chapter], link: Callable[[Chapter], str]) -> list[str]:
    by_stem = {c.path.stem: c for c in chapters}
    prereqs = ", ".join(link(by_stem[p]) for p in chapter.prerequisites) or "none"
    lines = [f"### {chapter.label}", "", f"{chapter.page.promise}", "",
             f"- **Time:** {chapter.minutes} minutes", f"- **Prerequisites:** {prereqs}",
             f"- **Chapter:** {link(chapter)}", f"- **Live demonstration:** {chapter.demo}", "",
             "**Objectives**", "", chapter.objectives, "", "**Exercises and the misconceptions they target**", ""]
    for i, ex in enumerate(chapter.exercises, 1):
        lines += [f"{i}. {ex.misconception}", f"   A student holding it answers `{ex.wrong.strip()}`.", ""]
    lines += ["**Answer key** (the solution cells, as the instructor edition runs them)", ""]
    for code in chapter.solutions:
        lines += ["```python", code.rstrip(), "```", ""]
    return lines


def guide_body(chapters: list[Chapter], link: Callable[[Chapter], str]) -> str:
    """The guide from its plans on (MyST with `book_link` for the book page, Markdown with `kit_link`)."""
    total = sum(c.minutes for c in chapters)
    lines = [
        "## Plans", "",
        f"This edition has {len(chapters)} chapter{'s' if len(chapters) != 1 else ''}, {total} minutes of "
        f"learner time in all. The times below come from each chapter's minutes. A session starts with "
        f"{SETUP_MIN} minutes of setup; chapters are grouped into blocks of at most {BLOCK_MAX_MIN} "
        f"minutes with a {BREAK_MIN}-minute break between blocks (the full day has a {LUNCH_MIN}-minute "
        "lunch near its middle). A chapter's time includes its exercises; its suggested live "
        "demonstration opens it.", "",
    ]
    for spec in PLANS:
        lines += _plan_section(spec, chapters, link)
    lines += ["## Chapters", ""]
    for chapter in chapters:
        lines += _chapter_section(chapter, chapters, link)
    return "\n".join(lines).rstrip() + "\n"


def guide(chapters: list[Chapter]) -> str:
    """The guide of the kit: a title, who it is for, and the body with links into student/."""
    return ("# Instructor guide\n\n"
            "For people who teach with the workbook. It gives the answers away: keep it from the "
            "students. Generated by `make course` from the chapters (their objectives, course "
            "metadata and solution cells), so it matches this kit's editions.\n\n"
            + guide_body(chapters, kit_link))


def version() -> str:
    import kafkasim

    return kafkasim.__version__


def spark_chapters(chapters: list[Chapter]) -> list[Chapter]:
    """The chapters that need the `spark` extra (they import PySpark or kafkasim.analysis.spark)."""
    needs = re.compile(r"\bpyspark\b|\bkafkasim\.analysis\.spark\b|from kafkasim\.analysis import .*\bspark\b")
    return [c for c in chapters if needs.search(c.page.text)]


def kit_readme(chapters: list[Chapter], spark: bool, ci: bool = False) -> str:
    v, py, extras = version(), f"{sys.version_info.major}.{sys.version_info.minor}", student_extras(spark)
    users = ", ".join(c.page.number for c in spark_chapters(chapters)) or "none in this edition"
    spark_note = (
        f"The wheelhouse includes the `spark` extra (PySpark, about 450 MB) for the chapters that use "
        f"Spark ({users}); they also need Java 17 on the student machines, which pip cannot install."
        if spark else
        f"The wheelhouse leaves out the `spark` extra, which only the chapters that use Spark need "
        f"({users}): PySpark alone is a wheel of about 450 MB, more than everything else together, and "
        f"it needs Java 17, which pip cannot install. Show those chapters from the instructor edition "
        f"and the website, or build the kit with `make course SPARK=1` and install Java 17 on the "
        f"student machines.")
    size = ("**Built with `--ci`, for development: the instructor edition and the website hold the "
            "small CI-sized runs. Build a kit for a class with `make course`.**\n\n" if ci else "")
    return f"""# kafkasim course kit {v}: read me first

{size}A kit for teaching Kafka consumer groups with the kafkasim workbook ({len(chapters)} chapter{"s" if len(chapters) != 1 else ""}),
in a classroom with or without a network. Generated by `make course` from the repository.

| Folder or file | What it is |
|---|---|
| `README.md` | this page |
| `{GUIDE_NAME}` | a half-day and a full-day plan; per chapter the objectives, time, prerequisites, a live demonstration, the misconceptions the exercises target, and the answer keys |
| `student/` | the chapters to hand out: no solutions, no outputs; exercises and their checks kept |
| `instructor/` | the chapters executed at full size, solutions included |
| `book/` | the workbook's website, which works offline (below) |
| `wheelhouse/` | every package a student needs, for Python {py} on {_platform()} |

## Before the class: install without a network

The wheelhouse was built for the machine that built the kit: Python {py} on {_platform()}. On each
student machine of that kind, from this folder:

```sh
python{py} -m venv kafkasim-env
. kafkasim-env/bin/activate
pip install --no-index --find-links wheelhouse -r wheelhouse/requirements.txt
python -m ipykernel install --sys-prefix --name kafkasim --display-name "Python 3 (kafkasim)"
jupyter lab student/
```

`--no-index` keeps pip off the internet: it installs only from `wheelhouse/` (`kafkasim[{extras}]`
{v}, JupyterLab and ipykernel, and their dependencies). The kernel name `kafkasim` is the one the
notebooks ask for. For other machines, build the kit again on one of them (`make course`).

{spark_note}

## During the class

- Follow a plan from `{GUIDE_NAME}`. Each chapter opens with its live demonstration; students
  then work through it and answer the "Predict, then run" exercises, whose check cells say
  right or wrong and why.
- The website: `python -m http.server --directory book 8000`, then open <http://127.0.0.1:8000>.
  Every chart and slider runs in the browser, without a kernel or a network.
- Each chapter has a cell of parameters near its top: `CI = False` gives the full-size runs of
  the instructor edition and the website; `CI = True` gives quicker, smaller runs on slow machines.
"""


def _platform() -> str:
    import sysconfig

    return sysconfig.get_platform()


# -- the wheelhouse ---------------------------------------------------------------------------------

def student_extras(spark: bool = False) -> str:
    return ",".join(STUDENT_EXTRAS + (("spark",) if spark else ()))


def student_requirements(spark: bool = False) -> list[str]:
    """kafkasim with the student extras, and the tools with the bounds of pyproject's `dev` extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    tools = [line for line in project["optional-dependencies"]["dev"]
             if re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0].lower() in STUDENT_TOOLS]
    assert len(tools) == len(STUDENT_TOOLS), f"{STUDENT_TOOLS} must be in pyproject's dev extra"
    return [f"kafkasim[{student_extras(spark)}]=={project['version']}", *tools]


def wheelhouse(target: Path = WHEELHOUSE, spark: bool = False) -> Path:
    """`pip wheel` of the project (built from a clean copy of its sources) and every dependency
    a student needs, for this interpreter and platform; writes target/requirements.txt."""
    requirements = student_requirements(spark)
    _fresh_dir(target)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "kafkasim"
        source.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, source / name)
        shutil.copytree(ROOT / "kafkasim", source / "kafkasim", ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(target),
                        f"{source}[{student_extras(spark)}]", *requirements[1:]], check=True)
    (target / "requirements.txt").write_text("\n".join(requirements) + "\n")
    return target


# -- the kit ----------------------------------------------------------------------------------------

_STORED = {".whl", ".zip", ".png", ".jpg", ".gz", ".woff", ".woff2"}  # compressed already


def _add_tree(archive: zipfile.ZipFile, folder: Path, prefix: str) -> None:
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            method = zipfile.ZIP_STORED if path.suffix in _STORED else zipfile.ZIP_DEFLATED
            archive.write(path, f"{prefix}/{path.relative_to(folder).as_posix()}", compress_type=method)


def zip_kit(course: Path, site: Path, wheels: Path, out: Path) -> Path:
    """One archive, everything under kafkasim-course-<version>/, README.md as its first entry."""
    prefix = out.stem
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(course / "README.md", f"{prefix}/README.md")
        archive.write(course / GUIDE_NAME, f"{prefix}/{GUIDE_NAME}")
        for name in ("student", "instructor"):
            _add_tree(archive, course / name, f"{prefix}/{name}")
        _add_tree(archive, site, f"{prefix}/book")
        _add_tree(archive, wheels, f"{prefix}/wheelhouse")
    return out


def _require(path: Path, what: str, command: str) -> Path:
    if not path.exists():
        raise CourseError(f"{what} is missing ({_where(path)}): run `{command}` first")
    return path


def kit(ci: bool = False, wheels: Path = WHEELHOUSE) -> Path:
    """build/course/ and the archive build/kafkasim-course-<version>.zip."""
    chapters = read_chapters()
    site = _require(execute.Flavour(ci).html / "index.html", "the built book", "make book").parent
    _require(wheels / "requirements.txt", "the wheelhouse", "make wheelhouse")
    spark = "spark" in (wheels / "requirements.txt").read_text().split("\n")[0]
    _fresh_dir(COURSE)
    student_edition(chapters, COURSE / "student")
    instructor_edition(chapters, COURSE / "instructor", ci)
    (COURSE / GUIDE_NAME).write_text(guide(chapters))
    (COURSE / "README.md").write_text(kit_readme(chapters, spark, ci))
    return zip_kit(COURSE, site, wheels, ROOT / "build" / f"kafkasim-course-{version()}{'-ci' if ci else ''}.zip")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    kit_cmd = commands.add_parser("kit", help="student and instructor editions, guide, and the zip")
    kit_cmd.add_argument("--ci", action="store_true",
                         help="use the CI-sized executions and site (build/executed-ci, build/book-ci): for development")
    wheels_cmd = commands.add_parser("wheelhouse", help="download the wheels a student needs into build/wheelhouse")
    wheels_cmd.add_argument("--spark", action="store_true", help="include the spark extra (PySpark, ~450 MB)")
    commands.add_parser("guide", help="print the instructor guide")
    args = parser.parse_args()
    try:
        if args.command == "kit":
            out = kit(ci=args.ci)
            print(f"course kit: {_where(out)} ({out.stat().st_size / 1e6:.0f} MB); unpacked in {_where(COURSE)}")
        elif args.command == "wheelhouse":
            out = wheelhouse(spark=args.spark)
            print(f"wheelhouse: {_where(out)} ({len(list(out.glob('*.whl')))} wheels)")
        else:
            print(guide(read_chapters()), end="")
    except (CourseError, execute.ChapterFailed) as err:
        sys.exit(f"tools/course.py: {err}")


if __name__ == "__main__":
    main()
