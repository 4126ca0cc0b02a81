"""kafkasim.viz.assignment: ownership snapshots agree with the run and with the assignors'
promises (sticky moves the fewest partitions, KIP-54), and the kernel-free explorer is a valid,
renderable chart whose sliders select every precomputed run."""

from __future__ import annotations

import altair as alt
import pytest
import vl_convert as vlc

from kafkasim import Scenario, faults, simulate
from kafkasim.core.errors import ConfigError
from kafkasim.viz.assignment import (assignment_explorer, assignment_map, members_at, owners_at,
                                     snapshot_frames)

VL_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
INSTANTS = {"before": 59_000, "after": 119_000}


def scale_out(strategy: str, members: int = 3) -> Scenario:
    return Scenario(members=members, topics={"orders": 6, "payments": 6}, produce_rate_per_s=120,
                    duration_ms=120_000, seed=1, consumer={"partition.assignment.strategy": [strategy]},
                    faults=[faults.ScaleOut(at_ms=60_000)])


@pytest.fixture(scope="module")
def runs():
    return {s: simulate(scale_out(s)) for s in ("range", "roundrobin", "sticky", "cooperative-sticky")}


def test_owners_at_matches_the_consumers_own_assignment_events(runs):
    run = runs["sticky"]
    before, after = owners_at(run, 59_000), owners_at(run, 119_000)
    assert len(before) == len(after) == 12 and before["member"].notna().all() and after["member"].notna().all()
    assert sorted(before["member"].value_counts()) == [4, 4, 4]
    assert sorted(after["member"].value_counts()) == [3, 3, 3, 3]
    assert set(after["member"]) == {"c-1", "c-2", "c-3", "c-4"} == set(members_at(run, 119_000))


def test_sticky_moves_only_what_balance_requires_and_roundrobin_no_less(runs):
    moved = {name: snapshot_frames(run, INSTANTS)[1]["moved"] for name, run in runs.items()}
    # 12 partitions, 3 -> 4 members: the newcomer needs 3, and the sticky assignors move no more (KIP-54).
    assert moved["sticky"] == moved["cooperative-sticky"] == 3
    assert moved["roundrobin"] >= moved["sticky"] and moved["range"] >= 1


def test_members_beyond_the_partition_count_are_counted_idle():
    run = simulate(Scenario(members=8, topics={"orders": 6}, produce_rate_per_s=60, duration_ms=60_000, seed=2))
    _, counts = snapshot_frames(run, {"only": 59_000})
    assert counts == {"moved": 0, "idle": 2, "members": 8, "fewest": 0, "most": 1, "unowned": 0}


def test_a_crashed_member_is_no_member_and_no_owner_after_its_removal():
    run = simulate(Scenario(members=3, topics={"orders": 6}, produce_rate_per_s=60, duration_ms=120_000, seed=2,
                            faults=[faults.Crash("c-2", at_ms=30_000)]))
    assert "c-2" not in members_at(run, 100_000)
    assert "c-2" not in set(owners_at(run, 100_000)["member"])
    assert "c-2" in set(owners_at(run, 29_000)["member"])


def test_assignment_map_renders_offline(runs):
    spec = assignment_map(runs["range"], INSTANTS).to_dict()
    assert vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[]).startswith("<svg")


def test_assignment_explorer_binds_one_input_per_setting_and_embeds_every_run():
    grid = {"members": [2, 3, 4], "partition.assignment.strategy": ["range", "sticky"]}
    spec = assignment_explorer(scale_out("range"), grid, INSTANTS).to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params["p_members"]["bind"]["input"] == "range" and params["p_members"]["value"] == 3
    assert params["p_partition_assignment_strategy"]["bind"]["input"] == "radio"
    cells = [row for data in spec["datasets"].values() for row in data if "tp" in row]
    points = {(row["p_members"], row["p_partition_assignment_strategy"]) for row in cells}
    assert len(points) == 6 and len(cells) == 6 * 2 * 12
    assert vlc.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[]).startswith("<svg")


def test_assignment_explorer_checks_its_arguments():
    with pytest.raises(ConfigError):
        assignment_explorer(Scenario(), {"members.count": [1]}, INSTANTS)
    with pytest.raises(ValueError):
        assignment_explorer(Scenario(), {"members": list(range(1, 70))}, INSTANTS)
    with pytest.raises(ValueError):
        assignment_explorer(Scenario(), {"members": [1]}, {})
