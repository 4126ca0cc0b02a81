"""Build the kafkasim book (Jupyter Book 1) from notebooks executed by papermill.

    python tools/book.py         # `make book`: full-size parameters, site in book/_build/html
    python tools/book.py --ci    # CI parameters, site in build/book-ci/_build/html (tests/test_site.py)

1. Vendor the pages' JavaScript from npm (tools/vendor_js.py; once per Altair/ipywidgets version).
2. Execute every chapter (notebooks/*.ipynb) and every notebook page of book/ with papermill into
   build/executed/ (with --ci: CI = True into build/executed-ci/, the folder tests/test_notebooks.py
   writes, so `make test` executes each chapter once). Like make, a copy newer than its notebook
   and than every file of kafkasim/, and without an error output, is reused.
3. Stage a source tree that mirrors the repository (build/book-src/): the executed copies at their
   repository paths (so the Binder and Colab buttons open the real notebooks), book/'s pages under
   book/, _config.yml and _toc.yml at its root, and the generated chapter map, glossary and
   instructor guide (tools/course.py) in book/_generated/.
4. ``jupyter-book build --all -W``: any warning fails the build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]  # this checkout's kafkasim, and the tools beside

import book_pages  # noqa: E402
import vendor_js  # noqa: E402

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


def stage(executed: dict[Path, Path], stage_dir: Path) -> None:
    """Build the source tree jupyter-book reads (see the module docstring, step 3)."""
    if stage_dir.exists():
        shutil.rmtree(stage_dir)
    shutil.copytree(BOOK, stage_dir / "book", symlinks=True,
                    ignore=shutil.ignore_patterns("_build", "_vendor", "*.ipynb", ".ipynb_checkpoints",
                                                  "__pycache__"))
    (stage_dir / "book" / "_vendor").symlink_to(BOOK / "_vendor", target_is_directory=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.move(stage_dir / "book" / name, stage_dir / name)
    for notebook, copy in executed.items():
        target = stage_dir / notebook.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(copy, target)
    found = [book_pages.read_chapter(stage_dir / p.relative_to(ROOT), stage_dir) for p in chapters()]
    generated = stage_dir / "book" / "_generated"
    generated.mkdir()
    (generated / "chapter-map.md").write_text(book_pages.chapter_map(found))
    (generated / "glossary.md").write_text(book_pages.glossary(found))
    import course  # tools/course.py imports this module, hence not at the top

    try:
        guide = course.guide_body(course.read_chapters(), course.book_link)
    except course.CourseError as err:  # a chapter without its course metadata (book/README.md rule 7)
        sys.exit(f"tools/book.py: {err}")
    (generated / course.GUIDE_NAME).write_text(guide)


def jupyter_book(stage_dir: Path, output: Path) -> None:
    exe = Path(sys.executable).parent / "jupyter-book"
    cmd = [str(exe), "build", str(stage_dir), "--path-output", str(output), "--all", "-W", "-n",
           "--keep-going"]
    subprocess.run(cmd, check=True)


def favicon_ico(svg: Path) -> bytes:
    """An ICO file holding one 32x32 PNG of `svg` (browsers ask for /favicon.ico on pages that
    name no icon, such as the root redirect page)."""
    import struct

    import vl_convert

    png = vl_convert.svg_to_png(svg.read_text())  # the SVG says 32x32
    header = struct.pack("<HHH", 0, 1, 1)  # reserved, type 1 = icon, one image
    entry = struct.pack("<BBBBHHII", 32, 32, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png


def build(ci: bool = False) -> Path:
    """Steps 1 to 4; returns the folder of the built site."""
    flavour = Flavour(ci)
    vendor_js.vendor()
    stage(execute_all(flavour), flavour.stage)
    jupyter_book(flavour.stage, flavour.output)
    (flavour.html / "favicon.ico").write_bytes(favicon_ico(BOOK / "favicon.svg"))
    return flavour.html


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ci", action="store_true", help="CI parameters (CI = True), as the tests use")
    try:
        html = build(ci=parser.parse_args().ci)
    except subprocess.CalledProcessError as err:
        sys.exit(f"tools/book.py: the book build failed ({err.returncode}); see the warnings above")
    print(f"book built: {html.relative_to(ROOT)}/index.html")


if __name__ == "__main__":
    main()
