"""Build the kafkasim book (Jupyter Book 1) from notebooks executed by papermill.

    python tools/book.py         # `make book`: full-size parameters, site in book/_build/html
    python tools/book.py --ci    # CI parameters, site in build/book-ci/_build/html (tests/test_site.py)

1. Vendor the pages' JavaScript from npm (tools/vendor_js.py; once per Altair/ipywidgets version).
2. Execute every chapter (notebooks/*.ipynb) and every notebook page of book/ with papermill into
   build/executed/ (with --ci: CI = True into build/executed-ci/, the folder tests/test_notebooks.py
   writes, so `make test` executes each chapter once). Like make, a copy newer than its notebook,
   than every file of kafkasim/ and than the chapter's committed results, and without an error
   output, is reused; each chapter has a time limit, and a failure stops the build with one line
   (tools/execute.py).
3. Stage a source tree that mirrors the repository (build/book-src/): the executed copies at their
   repository paths (so the Binder and Colab buttons open the real notebooks), book/'s pages under
   book/, _config.yml and _toc.yml at its root, and the generated chapter map, glossary and
   instructor guide (tools/course.py) in book/_generated/.
4. ``jupyter-book build --all -W``: any warning fails the build.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]  # this checkout's kafkasim, and the tools beside

import book_pages  # noqa: E402
import course  # noqa: E402
import vendor_js  # noqa: E402
from execute import BOOK, ChapterFailed, Flavour, chapters, execute_all  # noqa: E402

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
    except ChapterFailed as err:  # one line: the chapter, the cell, the error, the executed copy
        sys.exit(f"tools/book.py: {err}")
    print(f"book built: {html.relative_to(ROOT)}/index.html")


if __name__ == "__main__":
    main()
