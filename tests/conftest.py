import os
import shutil
import tomllib
from importlib import metadata

import pytest
from hypothesis import settings
from packaging.requirements import Requirement

from spark_helpers import JVM_OPTIONS

# The simulator is deterministic, and so should its tests be: "ci" (the default) runs
# the same examples every time and never fails on timing (a 2-core CI machine is slow
# and Spark or a notebook may be running beside it). For a randomised hunt for new
# counterexamples: HYPOTHESIS_PROFILE=explore make test
settings.register_profile("ci", deadline=None, derandomize=True, database=None)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Spark binds its driver to this address instead of resolving the host name (which
# warns, or fails in a sandbox). Kernels started by the notebook tests inherit it.
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
# Every JVM the tests start lives for seconds to minutes (spark_helpers.JVM_OPTIONS): SPARK_SUBMIT_OPTS gives
# them to every driver started here (local sessions, the command line, the chapters' kernels) and, as a Spark
# setting, to a cluster's executors; tests/spark_helpers.py gives them to the servers it starts.
os.environ.setdefault("SPARK_SUBMIT_OPTS", f'{JVM_OPTIONS} "-Dspark.executor.defaultJavaOptions={JVM_OPTIONS}"')
# Executed chapters feed the CI-sized book, whose pages draw Altair's HTML output with the
# vendored vega (kafkasim/viz/render.py); JupyterLab gets the Vega-Lite mime type instead.
os.environ.setdefault("KAFKASIM_CHARTS", "html")


def pytest_configure(config):
    """Every package `make venv` installs (pyproject.toml: the dependencies and the extras viz, spark,
    connect and dev) is a requirement of the tests, never a reason to skip one: a missing one stops
    the run at once with what to do."""
    project = tomllib.loads((config.rootpath / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = [*project["dependencies"], *(r for name in ("viz", "spark", "connect", "dev") for r in extras[name])]
    missing = []
    for name in (Requirement(line).name for line in wanted):
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        raise pytest.UsageError(f"the tests need {', '.join(missing)}, not installed: run `make venv` "
                                f"(pip install -e '.[viz,spark,connect,dev]')")


@pytest.fixture(scope="session")
def chromium():
    """The headless Chromium of the browser tests: $CHROMIUM (a path, or a name on PATH), else
    Debian's /usr/bin/chromium, as the Makefile and tools/site_check.py find it. `make test` installs
    it first (`make chromium`), so a missing one fails with what to do, never skips."""
    wanted = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    found = shutil.which(wanted)
    if found is None:
        pytest.fail(f"Chromium is missing at {wanted}: run `make chromium` as root (apt-get install chromium), "
                    "or set CHROMIUM=/path/to/chromium")
    return found


# Time limits (pytest-timeout) for the kinds of test that take longer than the default of
# pyproject.toml: a chapter runs for up to a minute or two in CI, and papermill stops a hung cell
# after 600 s (tests/test_notebooks.py), so a notebook test has room for that message first; an
# offline install from the wheelhouse builds a whole venv. A test's own `timeout` mark wins.
MARKER_TIMEOUTS_S = {"notebook": 1200, "wheelhouse": 1800}


def pytest_collection_modifyitems(config, items):
    if os.environ.get("KAFKASIM_TEST_SPARK_REMOTE"):  # see the `spark` fixture: local-only tests leave, said so
        local = [item for item in items if item.get_closest_marker("local_spark")]
        if local:
            config.hook.pytest_deselected(items=local)
            items[:] = [item for item in items if item not in local]
    for item in items:
        if item.get_closest_marker("timeout") is None:
            limits = [s for name, s in MARKER_TIMEOUTS_S.items() if item.get_closest_marker(name)]
            if limits:
                item.add_marker(pytest.mark.timeout(max(limits)))


# `make test` runs on two workers (pytest-xdist, -n 2), a test file at a time, so that a file's module fixtures
# (a Spark cluster, a sweep) are set up once. The chapters' run, their exercises and the book's site keep to one
# worker, in that order (tests/chapter_runs.py runs each chapter once for the first two; the site is built from
# the copies they write). The longest units start first (FIRST, as measured in docs/testing.md): a long one
# started last would run alone at the end. A worker gets its next file when 2 or fewer of its tests are left.
# The rule is a scheduler, not xdist_group marks: with pytest 9.2, `--dist loadgroup` no longer groups
# anything (pytest-dev/pytest-xdist#1386).
CHAPTER_FILES = ("tests/test_exercises.py", "tests/test_notebooks.py", "tests/test_site.py")
FIRST = ("chapters", "tests/test_spark_cluster.py", "tests/test_sweep_resume.py", "tests/test_sweep_results.py",
         "tests/test_cli.py", "tests/test_chapter_explorers.py")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ChaptersOnOneWorker(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.split("::", 1)[0]
            return "chapters" if file in CHAPTER_FILES else file

        def _assign_work_unit(self, node) -> None:
            first = next((scope for scope in FIRST if scope in self.workqueue), None)
            if first is not None:
                self.workqueue.move_to_end(first, last=False)
            super()._assign_work_unit(node)

    return ChaptersOnOneWorker(config, log)


# Engine events one simulation may run in a test (`Simulation.max_events`). The largest run of
# the suite takes about 134,000 (tests/test_viz.py, a thousand members), so a run that runs away
# stops with TooManyEvents, naming the callback that kept it going, within seconds and long before
# the test's time limit. Runs in other processes (notebook kernels, Spark executors) are not bounded.
TEST_MAX_EVENTS = 1_000_000


@pytest.fixture(scope="session", autouse=True)
def bounded_simulations():
    from kafkasim.core.engine import Simulation

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Simulation, "max_events", TEST_MAX_EVENTS)
        yield TEST_MAX_EVENTS


@pytest.fixture(scope="session")
def spark():
    """One quiet local[2] SparkSession for every Spark test.

    PySpark and Java are part of the project's setup (`make venv`, README), so their absence
    fails the tests with what to install rather than skipping them quietly."""
    from kafkasim.analysis import spark as ks

    remote = os.environ.get("KAFKASIM_TEST_SPARK_REMOTE")
    if remote:
        # `make mutation` forks a fresh process per mutant: rather than start a JVM in each, they share one
        # Spark Connect server (local[2]), standing in for the local[2] session the tests ask for. Its executors
        # import the package installed in the server's Python (PYSPARK_PYTHON), so nothing is shipped or probed
        # per mutant (a zip, an upload and a probe job: 8 to 19 s of a child's own Connect session, measured).
        session = ks._connect_session(remote, {"spark.sql.shuffle.partitions": "2"})
        ks._current.update(master="local[2]", spark=session)
        yield session
        return
    problem = ks.java_problem()
    if problem:
        pytest.fail(problem)
    session = ks.session("local[2]", conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"})
    yield session
    session.stop()
