"""Execute the chapters and the book's notebook pages with papermill, reusing fresh copies.

Shared by tools/book.py (the site) and tools/course.py (the instructor edition). Like make, an
executed copy newer than its notebook, than every file of kafkasim/ and than the chapter's committed
results (notebooks/results/<chapter>/), and without an error output, is reused: a build that stops
resumes with the chapters it has not finished (and chapter 10 resumes its sweep, see
kafkasim/analysis/results.py).

Time limits are per chapter, not per cell: a chapter may take CHAPTER_LIMIT_S in all (its notebook
metadata `kafkasim.build_limit_s` may raise it), whatever its longest cell. A chapter that fails or
runs out of time stops the build with one line (`ChapterFailed`): the chapter, the cell, the
error's last line, and the executed copy kept for inspection in build/executed*/failed/.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
NOTEBOOKS = ROOT / "notebooks"
KERNEL = "kafkasim"
RESULTS = NOTEBOOKS / "results"
#: A chapter's time limit, all cells together (measured full-size chapters take 0.5 to 1.5 minutes on
#: 2 cores, book/README.md): generous, so only a hung or runaway chapter trips it.
CHAPTER_LIMIT_S = 20 * 60


class ChapterFailed(RuntimeError):
    """A chapter that raised or ran out of time; its message is the one line the build prints."""


class Flavour:
    """Where one kind of build reads and writes."""

    def __init__(self, ci: bool):
        self.parameters = {"CI": True} if ci else {}
        self.executed = ROOT / "build" / ("executed-ci" if ci else "executed")
        self.stage = ROOT / "build" / ("book-src-ci" if ci else "book-src")
        self.output = ROOT / "build" / "book-ci" if ci else BOOK  # jupyter-book adds _build/html

    @property
    def html(self) -> Path:
        return self.output / "_build" / "html"


def chapters() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def book_notebooks() -> list[Path]:
    """Notebook pages that live in book/ itself (e.g. the offline-pages demo)."""
    return sorted(BOOK.glob("*.ipynb"))


def executed_path(notebook: Path, executed_dir: Path) -> Path:
    """build/executed[-ci]/00-welcome.ipynb for a chapter (as tests/test_notebooks.py names it),
    build/executed[-ci]/book/x.ipynb for a page of book/."""
    if notebook.parent == NOTEBOOKS:
        return executed_dir / notebook.name
    return executed_dir / notebook.relative_to(ROOT)


def is_fresh(notebook: Path, executed: Path) -> bool:
    import nbformat

    if not executed.exists():
        return False
    inputs = [notebook, *(ROOT / "kafkasim").rglob("*.py"), *(RESULTS / notebook.stem).glob("*")]
    if executed.stat().st_mtime < max(p.stat().st_mtime for p in inputs):
        return False
    nb = nbformat.read(executed, as_version=4)
    return not any(o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", []))


def limit_s(notebook: Path) -> int:
    """The chapter's time limit: CHAPTER_LIMIT_S, or its metadata's `kafkasim.build_limit_s`."""
    import nbformat

    meta = nbformat.read(notebook, as_version=4).metadata.get("kafkasim", {})
    return int(meta.get("build_limit_s", CHAPTER_LIMIT_S))


def execute(notebook: Path, executed: Path, parameters: dict) -> None:
    """Execute `notebook` into `executed` within the chapter's time limit; ChapterFailed (its copy
    moved to failed/ beside `executed`, never reused) when a cell raises or the time is up."""
    import papermill
    from sliced_kernel import SlicedKernelManager

    # Charts as Altair's HTML, which the pages draw with the vendored vega (kafkasim/viz/render.py).
    os.environ["KAFKASIM_CHARTS"] = "html"
    executed.parent.mkdir(parents=True, exist_ok=True)
    limit = limit_s(notebook)
    deadline = []  # set when the first cell starts (the kernel's start has its own limit)

    def remaining(cell) -> int:  # each cell may use what the chapter has left (nbclient's timeout_func)
        deadline[:] = deadline or [time.monotonic() + limit]
        return max(1, math.ceil(deadline[0] - time.monotonic()))

    try:
        papermill.execute_notebook(str(notebook), str(executed), parameters=parameters or None,
                                   kernel_name=KERNEL, cwd=str(notebook.parent), timeout_func=remaining,
                                   progress_bar=False, kernel_manager_class=SlicedKernelManager)
    except BaseException as err:
        failed = executed.parent / "failed" / executed.name
        failed.parent.mkdir(exist_ok=True)
        if executed.exists():
            executed.replace(failed)
        if isinstance(err, KeyboardInterrupt):
            raise
        raise ChapterFailed(failure_line(notebook, failed, err, limit)) from err


def failure_line(notebook: Path, copy: Path, err: BaseException, limit: int) -> str:
    """`<chapter>: cell <n> (id <id>) failed: <error's last line>; executed copy: <copy>`."""
    import nbformat

    where = "a cell"
    if copy.exists():  # the cell that raised or was running, numbered as in the chapter's own notebook
        source = [cell.get("id") for cell in nbformat.read(notebook, as_version=4).cells]
        for cell in nbformat.read(copy, as_version=4).cells:
            state = cell.metadata.get("papermill", {})
            if (state.get("exception") or state.get("status") == "running"
                    or any(o.get("output_type") == "error" for o in cell.get("outputs", []))):
                number = source.index(cell.get("id")) if cell.get("id") in source else "?"
                where = f"cell {number} (id {cell.get('id', '?')})"
                break
    name = getattr(err, "ename", type(err).__name__)
    lines = [line for line in str(getattr(err, "evalue", err)).splitlines() if line.strip()]
    if isinstance(err, TimeoutError):  # nbclient's CellTimeoutError: the chapter's time ran out
        last = f"the chapter passed its time limit of {limit} s"
    else:
        last = f"{name}: {lines[-1].strip() if lines else ''}"
    shown = copy.relative_to(ROOT) if copy.is_relative_to(ROOT) else copy
    return f"{notebook.relative_to(ROOT)}: {where} failed: {last}; executed copy: {shown}"


def execute_all(flavour: Flavour) -> dict[Path, Path]:
    """{notebook: executed copy} for every chapter and book page, executing stale ones."""
    done = {}
    for notebook in chapters() + book_notebooks():
        out = executed_path(notebook, flavour.executed)
        if not is_fresh(notebook, out):
            print(f"executing {notebook.relative_to(ROOT)} -> {out.relative_to(ROOT)} "
                  f"(limit {limit_s(notebook)} s)", flush=True)
            start = time.monotonic()
            execute(notebook, out, flavour.parameters)
            print(f"executed {notebook.relative_to(ROOT)} in {time.monotonic() - start:.0f} s", flush=True)
        done[notebook] = out
    return done
