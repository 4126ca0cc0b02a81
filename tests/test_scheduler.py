"""`make test`'s scheduler (tests/conftest.py): a test file is one unit of work, the chapters' three files
one unit, and the longest units go first."""

import conftest


class _Node:
    """A worker as the scheduler sees it: what it was sent, in order."""

    shutting_down = False

    def __init__(self, name):
        self.gateway = type("Gateway", (), {"id": name})()
        self.sent = []

    def send_runtest_some(self, indexes):
        self.sent.append(indexes)

    def shutdown(self):
        self.shutting_down = True


COLLECTION = [
    "tests/test_assignors.py::test_a", "tests/test_assignors.py::test_b", "tests/test_assignors.py::test_c",
    "tests/test_cli.py::test_sweep", "tests/test_exercises.py::test_x[00]", "tests/test_notebooks.py::test_y[00]",
    "tests/test_rules.py::test_r[1]", "tests/test_rules.py::test_r[2]", "tests/test_rules.py::test_r[3]",
    "tests/test_rules.py::test_r[4]", "tests/test_site.py::test_z", "tests/test_spark_cluster.py::test_s",
]


def test_the_chapters_go_first_to_one_worker_then_the_longest_files(pytestconfig, monkeypatch):
    monkeypatch.setattr(pytestconfig.option, "tx", ["2*popen"], raising=False)  # what -n 2 sets
    scheduler = conftest.pytest_xdist_make_scheduler(pytestconfig, None)
    nodes = [_Node("gw0"), _Node("gw1")]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, COLLECTION)
    scheduler.schedule()
    sent = [[[COLLECTION[i] for i in batch] for batch in node.sent] for node in nodes]
    assert sent[0] == [["tests/test_exercises.py::test_x[00]", "tests/test_notebooks.py::test_y[00]",
                        "tests/test_site.py::test_z"]]  # 3 tests pending: nothing more yet
    assert sent[1] == [["tests/test_spark_cluster.py::test_s"], ["tests/test_cli.py::test_sweep"]]
    # The largest file first among the others (xdist's order: most tests first), once a worker has 2 left.
    scheduler.mark_test_complete(nodes[0], COLLECTION.index("tests/test_exercises.py::test_x[00]"))
    assert [COLLECTION[i] for i in nodes[0].sent[-1]] == [f"tests/test_rules.py::test_r[{k}]" for k in (1, 2, 3, 4)]
