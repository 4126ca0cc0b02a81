"""Every live explorer of every chapter, built as its notebook builds it (tests/chapter_explorers.py),
draws a chart at every stop of every control: no Python message in place of the charts, no fault on
a member that is not there, and the controls that do not apply disabled and saying why."""

from __future__ import annotations

import ipywidgets as widgets
import pytest

from kafkasim import faults
from kafkasim.viz.settings import retarget_faults

from chapter_explorers import chapter_explorers

EXPLORERS = {f"{e.chapter}:{e.cell_id}": e for e in chapter_explorers(ci=True)}


def stops(control) -> list:
    if isinstance(control, widgets.IntSlider):
        return list(range(control.min, control.max + 1, control.step))
    if isinstance(control, widgets.Checkbox):
        return [False, True]
    return list(control.options)


def assert_drawn(e, where: str) -> None:
    assert e.run is not None and len(e.output.outputs) == len(e.chart_functions), f"{where}: {e.error.value}"
    assert all(o["output_type"] == "display_data" and o["data"] for o in e.output.outputs), where
    assert "Error" not in e.error.value.replace("Exception (", ""), f"{where}: {e.error.value}"
    scenario = getattr(e.run, "scenario", None)
    if scenario is not None and hasattr(scenario, "faults"):  # every fault on a member running then
        assert retarget_faults(scenario)[0] == scenario, f"{where}: {scenario.faults}"


def test_every_chapter_explorer_is_found():
    chapters = sorted({name.split(":")[0] for name in EXPLORERS})
    assert chapters == ["01-consumer-groups", "02-liveness", "03-slow-consumers", "04-rebalance-protocol",
                        "05-group-size", "06-broker-memory", "07-zookeeper-rebalance-storms",
                        "09-pause-and-rebalance", "10-rebalances-at-scale", "11-consumer-protocol",
                        "12-share-groups", "13-diagnose-your-incident"]


@pytest.mark.parametrize("name", sorted(EXPLORERS))
def test_every_stop_of_every_control_draws_a_chart(name):
    e = EXPLORERS[name].build(debounce_ms=0)
    assert_drawn(e, f"{name} as built")
    for control_name, control in list(e.controls.items()):
        if control.disabled:  # it says why, and moving it changes nothing
            assert control.description.endswith(")"), f"{name}: {control_name} disabled without a reason"
            continue
        start = control.value
        for value in stops(control):
            e.set(control_name, value)
            assert_drawn(e, f"{name}: {control_name}={value!r}")
        e.set(control_name, start)


def test_chapter_11_fault_follows_the_group_size_and_the_classic_only_control_is_marked():
    e = EXPLORERS["11-consumer-protocol:f8753a9f"].build(debounce_ms=0)
    toggle = e.controls["rebalance.protocol"]
    assert toggle.disabled and toggle.description == "rebalance protocol (classic only)"
    e.set("members", 4)  # the chapter's stall is on c-5, which joins only at 70 s (ScaleOut)
    assert e.run.scenario.faults[0] == faults.SlowProcessing("c-4", at_ms=60_000, duration_ms=40_000)
    assert "The SlowProcessing of c-5 hits c-4 here: the group has 4 members at 60 s." in e.caption.value
    e.set("members", 6)
    assert e.run.scenario.faults[0].member == "c-5" and e.caption.value == ""
    e.set("group.protocol", "classic")
    assert not toggle.disabled and toggle.description == "rebalance protocol"


def test_a_decorated_definition_is_copied_with_its_decorator(tmp_path):
    """The slice a chapter's explorer is built from keeps `@dataclass` above its class: without it the
    class has no `__init__` taking fields, and `P(x=3)` fails only in the copy, not in the notebook."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from dataclasses import dataclass\n\n@dataclass\nclass P:\n    x: int = 3"),
                nbformat.v4.new_code_cell("p = P(x=4)\nExplorer(p.x)")]
    nbformat.write(nb, tmp_path / "99-x.ipynb")
    (found,) = chapter_explorers([tmp_path / "99-x.ipynb"])
    assert found.source == "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int = 3\np = P(x=4)"
    namespace: dict = {}
    exec(found.source, namespace)
    assert namespace["p"].x == 4
