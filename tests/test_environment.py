"""pyproject.toml (pip) and environment.yml (conda, Binder) must list the same packages
with the same version bounds. Conda cannot be solved on the CI machine, so this
comparison is what keeps environment.yml honest."""

import re
import tomllib
from importlib import metadata
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent

# conda-forge names that differ from PyPI names (none so far; add pairs here).
PIP_TO_CONDA: dict[str, str] = {}
# Packages only the conda environment needs: the interpreter, the JVM and pip itself.
CONDA_ONLY = {"python", "openjdk", "pip"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip_requirements() -> dict[str, SpecifierSet]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    reqs = {}
    for line in lines:
        req = Requirement(line)
        name = normalise(req.name)
        name = PIP_TO_CONDA.get(name, name)
        assert name not in reqs, f"{name} is listed twice in pyproject.toml"
        reqs[name] = req.specifier
    return reqs


def conda_requirements() -> dict[str, str]:
    """Name -> version spec text, as written in environment.yml ('' when unbounded)."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    reqs = {}
    for dep in env["dependencies"]:
        assert isinstance(dep, str), f"unexpected entry in environment.yml: {dep!r}"
        name, _, spec = dep.partition(" ")
        name = normalise(name)
        assert name not in reqs, f"{name} is listed twice in environment.yml"
        reqs[name] = spec.replace(" ", "")
    return reqs


def test_same_packages():
    pip = set(pip_requirements())
    conda = set(conda_requirements()) - CONDA_ONLY
    assert pip - conda == set(), "in pyproject.toml but missing from environment.yml"
    assert conda - pip == set(), "in environment.yml but missing from pyproject.toml"


def test_same_version_bounds():
    conda = conda_requirements()
    differ = {
        name: (str(spec), conda[name])
        for name, spec in pip_requirements().items()
        if name in conda and spec != SpecifierSet(conda[name])
    }
    assert differ == {}, "bounds differ (pyproject, environment.yml)"


def test_every_dependency_is_bounded_both_ways():
    for name, spec in pip_requirements().items():
        operators = {s.operator for s in spec}
        assert operators & {">=", ">", "=="}, f"{name} has no lower bound"
        assert operators & {"<", "<=", "=="}, f"{name} has no upper bound"


def test_conda_python_satisfies_requires_python():
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    conda_python = conda_requirements()["python"].lstrip("=")
    assert Version(conda_python) in SpecifierSet(requires)


def test_floors_are_those_pyspark_needs_for_its_sql_extra():
    """mapInPandas (sweeps, log parsing) refuses pandas and pyarrow below PySpark's own floors for
    its `sql` extra: the project's bounds may not let an install fall below them."""
    ours = pip_requirements()
    for line in metadata.requires("pyspark") or []:
        req = Requirement(line)
        if req.marker is not None and req.marker.evaluate({"extra": "sql"}) and normalise(req.name) in ours:
            theirs = min(Version(s.version) for s in req.specifier if s.operator == ">=")
            floor = min(Version(s.version) for s in ours[normalise(req.name)] if s.operator == ">=")
            assert floor >= theirs, f"{req.name}: pyproject allows {floor}, PySpark's sql extra needs {theirs}"
