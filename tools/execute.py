"""Execute the chapters and the book's notebook pages with papermill, reusing fresh copies.

Shared by tools/book.py (the site) and tools/course.py (the instructor edition). Like make, an
executed copy newer than its notebook and than every file of kafkasim/, and without an error
output, is reused.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
NOTEBOOKS = ROOT / "notebooks"
KERNEL = "kafkasim"
CELL_TIMEOUT_S = 600  # per cell, as tests/test_notebooks.py: only a hung cell trips it


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
    inputs = [notebook, *(ROOT / "kafkasim").rglob("*.py")]
    if executed.stat().st_mtime < max(p.stat().st_mtime for p in inputs):
        return False
    nb = nbformat.read(executed, as_version=4)
    return not any(o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", []))


def execute(notebook: Path, executed: Path, parameters: dict) -> None:
    import papermill

    # Charts as Altair's HTML, which the pages draw with the vendored vega (kafkasim/viz/render.py).
    os.environ["KAFKASIM_CHARTS"] = "html"
    executed.parent.mkdir(parents=True, exist_ok=True)
    try:
        papermill.execute_notebook(str(notebook), str(executed), parameters=parameters or None,
                                   kernel_name=KERNEL, cwd=str(notebook.parent),
                                   execution_timeout=CELL_TIMEOUT_S, progress_bar=False)
    except BaseException:
        executed.unlink(missing_ok=True)  # never reuse a half-executed copy
        raise


def execute_all(flavour: Flavour) -> dict[Path, Path]:
    """{notebook: executed copy} for every chapter and book page, executing stale ones."""
    done = {}
    for notebook in chapters() + book_notebooks():
        out = executed_path(notebook, flavour.executed)
        if not is_fresh(notebook, out):
            print(f"executing {notebook.relative_to(ROOT)} -> {out.relative_to(ROOT)}", flush=True)
            execute(notebook, out, flavour.parameters)
        done[notebook] = out
    return done
