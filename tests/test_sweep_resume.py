"""A sweep never loses work: `kafkasim sweep` stopped with Ctrl-C (SIGINT) or killed outright
(SIGKILL of the driver) keeps every run it finished, and the same sweep run again completes it
to exactly what an uninterrupted sweep writes: the same summaries, the same event files, byte
for byte. Temporary files of a killed run are never read as results and are removed."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from kafkasim.analysis import spark as ks
from kafkasim.analysis.sweep_grid import COMPACT_FILE, Grid, finished_runs
from spark_helpers import snapshot

ROOT = Path(__file__).resolve().parent.parent
# 48 runs of a tenth of a second or less, one task each: a sweep of a few seconds on 2 cores, which the
# tests interrupt as soon as its first run is saved.
GRID = {"base": {"members": 4, "topics": {"t": 8}, "duration_ms": 600_000,
                 "faults": [{"type": "Pause", "member": "c-1", "at_ms": 300_000, "duration_ms": 8_000}]},
        "grid": {"session.timeout.ms": [6_000, 10_000, 30_000, 45_000]}, "seeds": 12}
RUNS = 48


@pytest.fixture(scope="module")
def reference(spark, tmp_path_factory):
    out = tmp_path_factory.mktemp("uninterrupted")
    result = ks.sweep(spark, GRID, str(out))
    assert (result.runs, result.done, result.failed) == (RUNS, RUNS, 0)
    return snapshot(out)


def interrupt(tmp_path: Path, sig: int) -> tuple[int, str, Path]:
    """Start `kafkasim sweep` in its own process group, send `sig` to the driver once a run is
    are committed, wait for the whole group (JVM and Python workers) to end."""
    grid, out = tmp_path / "grid.yaml", tmp_path / "out"
    grid.write_text(yaml.safe_dump(GRID))
    proc = subprocess.Popen([sys.executable, "-m", "kafkasim.analysis.cli", "sweep", str(grid), "--out", str(out),
                             "--master", "local[2]", "--runs-per-task", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 180
    while not any((out / "summaries").rglob("run-*.parquet")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
    os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=120)
    while time.monotonic() < deadline:  # the JVM and its Python workers end with the driver
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the sweep's JVM or workers outlived its driver")
    return proc.returncode, err, out


def resume_and_compare(spark, out: Path, reference) -> None:
    saved = finished_runs(str(out))
    assert 1 <= len(saved) < RUNS  # interrupted mid-way, the finished runs kept
    for folder, _, names in os.walk(out / "summaries"):
        for name in names:
            if name.startswith("run-"):  # a committed summary has its events
                events = out / "events" / Path(folder).relative_to(out / "summaries") / name[4:]
                assert events.exists(), events
    result = ks.sweep(spark, GRID, str(out))
    assert (result.skipped, result.done, result.failed) == (len(saved), RUNS - len(saved), 0)
    assert snapshot(out) == reference
    left = [p.name for p in out.rglob("*") if p.is_file() and ".tmp-" in p.name]
    assert left == []
    assert sorted(p.name for p in (out / "summaries").rglob("*.parquet")) == [COMPACT_FILE] * 4


def test_a_sweep_stopped_with_ctrl_c_says_what_is_saved_and_resumes_to_the_same_results(spark, reference, tmp_path):
    code, err, out = interrupt(tmp_path, signal.SIGINT)
    assert code == 130, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("kafkasim sweep: interrupted: ") and f"of {RUNS} runs are saved in {out}" in last
    assert "run the same command to resume" in last and "Traceback" not in err
    resume_and_compare(spark, out, reference)


def test_a_sweep_whose_driver_is_killed_resumes_to_the_same_results(spark, reference, tmp_path):
    code, _, out = interrupt(tmp_path, signal.SIGKILL)
    assert code == -signal.SIGKILL
    # A summary half-written when the process died: hidden, so never read, and removed on resume.
    saved = next((out / "summaries").rglob("run-*.parquet"))
    stray = saved.parent / ".run-0123456789abcdef.parquet.tmp-99999"
    pq.write_table(pq.read_table(saved), stray)
    assert "0123456789abcdef" not in finished_runs(str(out))
    resume_and_compare(spark, out, reference)
    assert not stray.exists()


def test_a_folder_of_another_sweep_is_refused_with_what_differs(spark, tmp_path):
    ks.sweep(spark, {**GRID, "seeds": 1}, str(tmp_path))
    other = {**GRID, "base": {**GRID["base"], "duration_ms": 400_000, "members": 3}}
    with pytest.raises(Exception, match=r"holds another sweep \(base duration_ms: 600000 there, 400000 in this "
                                        r"grid; base members: 4 there, 3 in this grid\)"):
        ks.sweep(spark, other, str(tmp_path))
    assert Grid.from_dict(GRID).size == RUNS
