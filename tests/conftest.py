import os

import pytest
from hypothesis import settings

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
# Executed chapters feed the CI-sized book, whose pages draw Altair's HTML output with the
# vendored vega (kafkasim/viz/render.py); JupyterLab gets the Vega-Lite mime type instead.
os.environ.setdefault("KAFKASIM_CHARTS", "html")


@pytest.fixture(scope="session")
def spark():
    """One quiet local[2] SparkSession for every Spark test.

    PySpark and Java are part of the project's setup (`make venv`, README), so their absence
    fails the tests with what to install rather than skipping them quietly."""
    from kafkasim.analysis import spark as ks

    problem = ks.java_problem()
    if problem:
        pytest.fail(problem)
    session = ks.session("local[2]", conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"})
    yield session
    session.stop()
