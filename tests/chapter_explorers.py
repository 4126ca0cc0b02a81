"""Every live explorer of the chapters, built as its notebook builds it.

The explorer's call (`Explorer(...)`, `NetworkExplorer(...)`, `PauseExplorer(...)`, chapter 13's
`IncidentExplorer(...)`) is found in
the notebook, and only the statements it depends on are run before it (a backward slice over the
notebook's top-level statements, from its parameters cell on), so that a chapter's simulations and
Spark sweeps are not re-run. A value that only a sweep computes is replaced by the grid scenario it
is read from (SUBSTITUTES, one line per case, said why).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXPLORERS = ("Explorer", "NetworkExplorer", "PauseExplorer",
             "IncidentExplorer")  # chapter 13 defines it in the notebook (a diagnosis is analysis, which viz never imports)

#: {notebook stem: {name: source}}: names whose notebook value comes out of a Spark sweep.
SUBSTITUTES = {
    # The stormiest Kafka 3.7 cell of the sweep: one of the grid's scenarios, the notebook reads it back
    # from the sweep's Parquet. Its grid point here: the largest p99, the shortest poll timeout, the
    # largest max.poll.records, the fewest members (the storm corner of the chapter's phase diagrams).
    "10-rebalances-at-scale": {"cell_scenario": (
        "cell_scenario = Grid.from_dict({**grids['3.7'], 'grid': {'processing_ms.p99_ms': [max(P99_MS)], "
        "'max.poll.interval.ms': [min(POLL_TIMEOUTS_MS)], 'max.poll.records': [max(MAX_POLL_RECORDS)], "
        "'members': [min(MEMBERS)]}, 'seeds': [SEED]}).runs()[0].scenario()")},
}


@dataclass
class ChapterExplorer:
    chapter: str
    cell_id: str
    source: str       # the statements run, in order, then the call
    call: str         # the explorer's call, as the notebook writes it

    def build(self, **overrides):
        """Run the slice and the call (with `overrides` as extra keyword arguments, e.g. debounce_ms=0)."""
        namespace: dict = {}
        exec(compile(self.source, f"<{self.chapter}>", "exec"), namespace)
        call = ast.parse(self.call, mode="eval")
        call.body.keywords += [ast.keyword(arg=k, value=ast.Constant(v)) for k, v in overrides.items()]
        return eval(compile(ast.fix_missing_locations(call), f"<{self.chapter} explorer>", "eval"), namespace)


def _defined(node: ast.stmt) -> set[str]:
    names: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def _used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _explorer_call(node: ast.stmt) -> ast.Call | None:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in EXPLORERS:
            return sub
    return None


def chapter_explorers(notebooks=None, ci: bool = False) -> list[ChapterExplorer]:
    """One per explorer call in the chapters: at full size (CI = False, as the book shows them), or
    with the CI parameters that test_notebooks injects (CI = True: shorter runs, the same controls)."""
    found = []
    for path in sorted(notebooks or NOTEBOOKS.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        statements: list[tuple[str, ast.stmt, str]] = []  # (cell id, node, its source)
        for cell in nb.cells:
            if cell.cell_type != "code" or cell.source.lstrip().startswith(("%", "!")):
                continue
            tree = ast.parse(cell.source)
            for node in tree.body:
                statements.append((cell.id, node, _source(cell.source, node)))
                call = _explorer_call(node)
                if call is not None:
                    found.append(_slice(path.stem, cell.id, statements, call, ci))
    return found


def _source(text: str, node: ast.stmt) -> str:
    """A statement's source with its decorators (`ast.get_source_segment` starts at `def`/`class`,
    so a copied `@dataclass` would lose what makes it a dataclass)."""
    decorators = getattr(node, "decorator_list", ())
    if not decorators:
        return ast.get_source_segment(text, node)
    return "\n".join(text.splitlines()[decorators[0].lineno - 1:node.end_lineno])


def _slice(chapter: str, cell_id: str, statements, call: ast.Call, ci: bool) -> ChapterExplorer:
    substitutes = {**SUBSTITUTES.get(chapter, {}), **({"CI": "CI = True"} if ci else {})}
    needed = _used(call)
    chosen: list[str] = []
    for _, node, source in reversed(statements[:-1]):
        defines = _defined(node) & needed
        if not defines:
            continue
        replaced = [name for name in defines if name in substitutes]
        if replaced and replaced[0] == "CI" and len(_defined(node)) > 1:  # a parameters cell is one name a line
            raise ValueError(f"{chapter}: CI is assigned together with other names")
        if replaced:
            source = substitutes[replaced[0]]
            node = ast.parse(source).body[0]
        chosen.append(source)
        needed |= _used(node)
    return ChapterExplorer(chapter, cell_id, "\n".join(reversed(chosen)), ast.unparse(call))
