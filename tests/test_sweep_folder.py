"""Which folder holds another sweep (sweep_grid.open_sweep_folder): `kafkasim sweep` resumes into a folder only
when its `sweep.json` names the same swept columns, of the same types, and the same base settings; otherwise it
refuses with each difference, before any run. No Spark needed (the resumes themselves: test_sweep_resume.py)."""

from pathlib import Path

import pytest

from kafkasim.analysis.sweep_grid import Grid, open_sweep_folder
from kafkasim.core.errors import ConfigError

BASE = {"members": 4, "topics": {"t": 8}, "duration_ms": 600_000}


def refusal(out: Path, stored: dict, this: dict) -> str:
    """The error of opening `out`, which holds the sweep of grid `stored`, for grid `this` (no run needed)."""
    open_sweep_folder(str(out), Grid.from_dict(stored))
    with pytest.raises(ConfigError) as e:
        open_sweep_folder(str(out), Grid.from_dict(this))
    return str(e.value)


def refused(out: Path, differences: str) -> str:
    return f"{out} holds another sweep ({differences}): use another --out folder, or delete this one to start again"


def test_a_folder_sweeping_other_parameters_is_refused_with_both_parameter_types(tmp_path):
    """sweep_grid.open_sweep_folder: other swept parameters (another column, or a column of another type) make
    another sweep; the message gives the folder's swept columns and types, then this grid's, then each base setting
    that differs too (docs/robustness.md: "the message lists each difference")."""
    axis = {"session.timeout.ms": [6_000, 10_000]}
    added = {"base": BASE, "grid": {**axis, "static_membership": [False, True]}}
    assert refusal(tmp_path / "added", {"base": BASE, "grid": axis}, added) == refused(
        tmp_path / "added", "it sweeps {'session_timeout_ms': 'long'}, this grid sweeps "
                            "{'session_timeout_ms': 'long', 'static_membership': 'boolean'}")
    retyped = {"base": BASE, "grid": {"session.timeout.ms": [6_000, 7_500.5]}}
    assert refusal(tmp_path / "retyped", {"base": BASE, "grid": axis}, retyped) == refused(
        tmp_path / "retyped", "it sweeps {'session_timeout_ms': 'long'}, this grid sweeps "
                              "{'session_timeout_ms': 'double'}")
    both = {"base": {**BASE, "members": 3}, "grid": retyped["grid"]}
    assert refusal(tmp_path / "both", {"base": BASE, "grid": axis}, both) == refused(
        tmp_path / "both", "it sweeps {'session_timeout_ms': 'long'}, this grid sweeps {'session_timeout_ms': 'double'}; "
                           "base members: 4 there, 3 in this grid")


def test_a_folder_of_other_base_settings_lists_each_key_with_its_value_there_and_here_or_not_set(tmp_path):
    """sweep_grid.open_sweep_folder: each base key set differently, or set on one side only, is one difference
    (sorted by key), with its value in the folder and in this grid as written (repr), '(not set)' where absent."""
    axes = {"session.timeout.ms": [6_000, 10_000]}
    stored = {"base": {**BASE, "static_membership": True}, "grid": axes}
    this = {"base": {**BASE, "members": 3, "group_id": "billing"}, "grid": axes}
    assert refusal(tmp_path, stored, this) == refused(
        tmp_path, "base group_id: '(not set)' there, 'billing' in this grid; base members: 4 there, 3 in this grid; "
                  "base static_membership: True there, '(not set)' in this grid")
