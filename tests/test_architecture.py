"""The layer rule of docs/architecture.md holds, and the checks that guard it can fail.

The contracts themselves live in pyproject.toml ([tool.importlinter]); `lint-imports` reads them.
Beside them: no module imports another's private names, no import circle between any two modules
(of kafkasim or of tools/), and each subpackage says in its docstring what it models and may import.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
MODELS = ("core", "coordinator", "client", "broker", "zookeeper")
SUBPACKAGES = (*MODELS, "scenario", "analysis", "viz")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """lint-imports on the kafkasim found under `root`, with the contracts of `root`/pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT_IMPORTS), str(root / "pyproject.toml"), "--no-cache"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize("module, line, broken", [
    # the core reaching up into the views: the layer contract breaks
    ("core/engine.py", "import kafkasim.viz.style", "kafkasim.core.engine -> kafkasim.viz.style"),
    # one model importing another: the models are independent siblings
    ("client/consumer.py", "import kafkasim.broker.memory_pool", "kafkasim.client.consumer -> kafkasim.broker.memory_pool"),
    # the scenario layer needing Altair: the light-core contract breaks
    ("scenario/run.py", "import altair", "kafkasim.scenario.run -> altair"),
    # the classic protocol reaching into the consumer protocol: only the front joins them
    ("coordinator/classic/coordinator.py", "import kafkasim.coordinator.modern.consumer.manager",
     "kafkasim.coordinator.classic.coordinator -> kafkasim.coordinator.modern.consumer.manager"),
    # share groups reaching into the consumer protocol: what both need lives in modern/
    ("coordinator/modern/share/partition.py", "import kafkasim.coordinator.modern.consumer.manager",
     "kafkasim.coordinator.modern.share.partition -> kafkasim.coordinator.modern.consumer.manager"),
    # the spark module reaching up into the command line
    ("analysis/spark.py", "import kafkasim.analysis.cli", "kafkasim.analysis.spark -> kafkasim.analysis.cli"),
])
def test_a_broken_contract_is_caught(tmp_path, module, line, broken):
    """A copy of the package with one forbidden import added: lint-imports must fail and name it."""
    shutil.copytree(ROOT / "kafkasim", tmp_path / "kafkasim", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    target = tmp_path / "kafkasim" / module
    target.write_text(target.read_text() + f"\n{line}  # a deliberate break\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert broken in " ".join(result.stdout.split()), result.stdout  # lint-imports wraps long lines


def private_imports(folder: Path, package: str) -> list[str]:
    """`from X import _name`, or `X._name` on an imported module X, for X inside `package`."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == package:
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(folder)}:{node.lineno} imports {alias.name}")
                    modules.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                modules.update(a.asname or a.name for a in node.names if a.name.split(".")[0] == package)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append(f"{path.relative_to(folder)}:{node.lineno} uses {node.value.id}.{node.attr}")
    return found


def test_no_module_imports_another_modules_private_names():
    assert private_imports(ROOT / "kafkasim", "kafkasim") == []
    tools = {p.stem for p in (ROOT / "tools").glob("*.py")}
    assert [hit for name in tools for hit in private_imports(ROOT / "tools", name)] == []


def test_the_private_name_check_finds_one(tmp_path):
    (tmp_path / "m.py").write_text("from kafkasim.scenario.run import _merge\nimport kafkasim.core.events as ev\n"
                                   "ev._secret\n")
    found = private_imports(tmp_path, "kafkasim")
    assert [f.split(" ", 1)[1] for f in found] == ["imports _merge", "uses ev._secret"]


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return out


def test_no_import_circles_between_modules():
    graph = grimp.build_graph("kafkasim", cache_dir=None)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    # A package's __init__ re-exporting its modules is not a circle of logic: leave those edges out.
    edges = {m: {n for n in targets if not m.startswith(n + ".")} for m, targets in edges.items()}
    assert cycles(edges) == []


def test_no_import_circles_between_tools():
    names = {p.stem for p in (ROOT / "tools").glob("*.py")}
    edges = {}
    for name in names:
        tree = ast.parse((ROOT / "tools" / f"{name}.py").read_text())
        imported = {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        edges[name] = imported & names
    assert cycles(edges) == []


def test_the_circle_check_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_each_subpackage_says_what_it_may_import(name):
    doc = importlib.import_module(f"kafkasim.{name}").__doc__ or ""
    assert "May import:" in doc, f"kafkasim.{name} does not say what it may import"


@pytest.mark.parametrize("name", MODELS)
def test_each_model_names_the_kafka_source_it_follows(name):
    doc = importlib.import_module(f"kafkasim.{name}").__doc__ or ""
    assert re.search(r"\w+\.(java|scala)\b", doc), f"kafkasim.{name} names no Kafka source file"


def test_the_names_a_learner_types_come_from_the_root():
    import kafkasim

    for name in ("Simulation", "GroupCoordinator", "Errors", "Scenario", "simulate", "faults", "Run"):
        assert hasattr(kafkasim, name), name
