"""Every notebook in notebooks/ runs top to bottom without error, as CI runs it.

Convention: each notebook has one cell tagged `parameters` (papermill) that sets
`CI = False` and the full-size values; the cells after it shrink the work when CI is
True. The test injects {"CI": True} and runs the notebook with the `kafkasim` kernel
(registered by `make venv`), from the notebooks/ folder, as a reader's kernel would.
Executed copies are written to build/executed-ci/ to inspect after a failure: one run per
chapter (tests/chapter_runs.py), which tests/test_exercises.py shares.
"""

import ast
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from chapter_runs import KERNEL, NOTEBOOK_DIR, NOTEBOOKS, OUT_DIR, executed, tagged

by_name = pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])


def test_there_are_notebooks():
    # An empty parametrisation would be reported as skipped; make it fail instead.
    assert NOTEBOOKS, f"no notebooks found in {NOTEBOOK_DIR}"


def parameters_cells(path: Path) -> list:
    nb = nbformat.read(path, as_version=4)
    return [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]


@by_name
def test_parameters_cell_defines_ci(path):
    cells = parameters_cells(path)
    assert len(cells) == 1, f"expected one cell tagged 'parameters', found {len(cells)}"
    tree = ast.parse(cells[0].source)
    ci_values = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "CI" for t in node.targets)
    ]
    assert ci_values, "the parameters cell does not assign CI"
    assert isinstance(ci_values[-1], ast.Constant) and ci_values[-1].value is False, (
        "the parameters cell must set CI = False (full size for readers)"
    )


@pytest.fixture(scope="session")
def kernel():
    try:
        KernelSpecManager().get_kernel_spec(KERNEL)
    except NoSuchKernel:
        pytest.fail(f"Jupyter kernel {KERNEL!r} is not registered: run `make venv`")
    return KERNEL


@pytest.mark.notebook
@by_name
def test_notebook_runs(path, kernel):
    executed(path)  # raises PapermillExecutionError, with the failing cell's traceback, on any error
    # A check prints its verdict; a stray value under it (a bare True/False) is noise on the page.
    as_read = nbformat.read(OUT_DIR / path.name, as_version=4)
    shown = [c.source[:80] for c in tagged(as_read, "check")
             if any(o.output_type == "execute_result" for o in c.get("outputs", []))]
    assert not shown, f"check cells that display a value besides their verdict: {shown}"
