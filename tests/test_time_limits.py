"""Nothing in the suite can hang it. Every test has a time limit (pytest-timeout: the default in
pyproject.toml, longer ones for notebook and wheelhouse tests in tests/conftest.py), and every
simulation a test runs has a bound on its events (`TEST_MAX_EVENTS`, tests/conftest.py), which
stops a run that runs away within seconds and names what kept it going."""

import shutil
import time
from pathlib import Path

import pytest

from kafkasim.core.engine import Simulation, TooManyEvents
from test_robustness import Repeater

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

INNER = """
import pytest


@pytest.mark.timeout(2)
def test_runs_away():
    while True:
        pass


def test_the_run_goes_on():
    pass


@pytest.mark.notebook
def test_a_notebook_test_gets_a_longer_limit(request, pytestconfig):
    default = float(pytestconfig.getini("timeout"))
    assert request.node.get_closest_marker("timeout").args[0] > default > 0
"""


def test_a_runaway_test_fails_at_its_time_limit_and_the_run_goes_on(pytester):
    # The project's own pytest configuration and conftest (with the helper it imports), around a test that never ends.
    shutil.copy(ROOT / "pyproject.toml", pytester.path / "pyproject.toml")
    for name in ("conftest.py", "spark_helpers.py"):
        shutil.copy(ROOT / "tests" / name, pytester.path / name)
    inner = pytester.makepyfile(test_inner=INNER)
    start = time.monotonic()
    result = pytester.runpytest_subprocess(inner, "-p", "no:cacheprovider")
    elapsed = time.monotonic() - start
    result.assert_outcomes(failed=1, passed=2)
    result.stdout.fnmatch_lines(["*Timeout*", "*FAILED test_inner.py::test_runs_away*Timeout*2.0s*"])
    assert elapsed < 30, f"the 2 s limit took {elapsed:.0f} s to end the inner run"


def test_every_test_here_has_a_time_limit(pytestconfig):
    assert pytestconfig.pluginmanager.hasplugin("timeout"), "pytest-timeout is not installed: make venv"
    assert 0 < float(pytestconfig.getini("timeout")) <= 600


def test_a_runaway_simulation_stops_at_the_tests_event_bound(bounded_simulations):
    sim = Simulation(0)
    ticker = Repeater(sim, 1, "c-7")
    sim.at(0, ticker.tick)
    start = time.monotonic()
    with pytest.raises(TooManyEvents, match=rf"ran its {bounded_simulations:,} events \(Simulation.max_events\) "
                                            r"by [\d,]+ ms, the last Repeater.tick of c-7"):
        sim.run()
    assert ticker.runs == bounded_simulations and time.monotonic() - start < 30
