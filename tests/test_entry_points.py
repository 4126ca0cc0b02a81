"""Every entry point refuses what kafkasim does not model, before anything runs, with a message
naming the input and its valid range: Kafka versions (issue "Kafka 4.3 and 4.4", item 2), faults
and processing-time distributions, runs too large to start, impossible dates in broker logs, and a
`kafkasim` command that could read none of its inputs (item 5). Expected messages are written out
by hand, not taken from the code."""

from __future__ import annotations

import os
import time
from datetime import datetime
from types import SimpleNamespace

import pytest

import kafkasim.scenario.world as world_module
from kafkasim import Scenario, simulate
from kafkasim.analysis import logs as lp
from kafkasim.analysis.cli import EXIT_BAD_INPUT, main
from kafkasim.analysis.experiments import compare_with_group_coordinator
from kafkasim.analysis.sweep_grid import Grid
from kafkasim.broker.fetch_sizing import java_consumer_fetch
from kafkasim.broker.network import NetworkScenario
from kafkasim.client.consumer import Consumer
from kafkasim.client.pause_resume import PauseScenario
from kafkasim.client.subscription_state import SubscriptionState
from kafkasim.coordinator import GroupCoordinator
from kafkasim.coordinator.broker_log import BrokerLog
from kafkasim.coordinator.group_size import JoinStorm
from kafkasim.core import faults
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError
from kafkasim.scenario.workload import Constant, LogNormal

# KAFKA_VERSIONS, written out: every release line with a group coordinator, 0.9 to 4.4.
SUPPORTED = ("0.9, 0.10.0, 0.10.1, 0.10.2, 0.11, 1.0, 1.1, 2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, "
             "3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7, 3.8, 3.9, 4.0, 4.1, 4.2, 4.3, 4.4")


def unsupported(version) -> str:
    return (f"Unsupported kafka_version {version!r}; supported versions: {SUPPORTED} "
            f"(a release such as '3.7.1' maps to its line)")


# -- 1. Kafka versions, at every entry point that takes one ------------------------------------------
ENTRY_POINTS = {
    "Scenario": lambda v: Scenario(kafka_version=v),
    "GroupCoordinator": lambda v: GroupCoordinator(Simulation(), kafka_version=v),
    "BrokerLog": lambda v: BrokerLog(v),
    "NetworkScenario": lambda v: NetworkScenario(kafka_version=v),
    "java_consumer_fetch": lambda v: java_consumer_fetch(v, partitions=3),
    "SubscriptionState": lambda v: SubscriptionState(v),
    "PauseScenario": lambda v: PauseScenario(kafka_version=v),
    "JoinStorm": lambda v: JoinStorm(kafka_version=v),
    "compare_with_group_coordinator": lambda v: compare_with_group_coordinator(kafka_version=v, duration_ms=1),
}


@pytest.mark.parametrize("version", ["5.0", "4.5", "0.8.2", "3.10"])
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_entry_point_refuses_an_unmodelled_version_naming_the_supported_ones(entry, version):
    hint = (" (Kafka before 0.9 has no group coordinator; the 0.8.2 ZooKeeper consumer is "
            "zookeeper_consumer_config())") if version == "0.8.2" else ""
    expected = f"Unsupported kafka_version {version!r}{hint}; supported versions: {SUPPORTED} " \
               f"(a release such as '3.7.1' maps to its line)"
    with pytest.raises(ConfigError) as e:
        ENTRY_POINTS[entry](version)
    assert str(e.value) == expected


@pytest.mark.parametrize("entry", [e for e in ENTRY_POINTS if e != "compare_with_group_coordinator"])  # runs sims
def test_the_new_lines_and_a_patch_release_are_accepted_everywhere(entry):
    for version in ("4.3", "4.4", "4.3.1", "0.9.0.1"):
        ENTRY_POINTS[entry](version)


def test_the_consumer_refuses_a_world_of_an_unmodelled_version():
    """A Consumer takes its version from the world it joins (a Scenario's is checked already; a world
    built by hand is checked here, before any of the consumer's version-dependent behaviour is set)."""
    sim = Simulation()
    world = SimpleNamespace(partitions=None, rows=[], group_id="g", poll_resolution_ms=1000, sim=sim,
                            coord=GroupCoordinator(sim), version=(5, 0))
    with pytest.raises(ConfigError) as e:
        Consumer(world, "c-1", {"client.id": "consumer-g-1"})
    assert str(e.value) == unsupported((5, 0))


def test_a_sweep_grid_refuses_an_unmodelled_version_when_it_is_read():
    for data, where in (({"base": {"kafka_version": "5.0"}, "grid": {"members": [1, 2]}}, "base.kafka_version"),
                        ({"grid": {"kafka_version": ["3.7", "5.0"]}}, "grid.kafka_version")):
        with pytest.raises(ConfigError) as e:
            Grid.from_dict(data, "g.yaml")
        assert str(e.value) == f"g.yaml: {where}: {unsupported('5.0')}"
    assert Grid.from_dict({"grid": {"kafka_version": ["3.7", "4.4"]}}).size == 2


def test_the_sweep_command_refuses_an_unmodelled_version_before_spark_starts(tmp_path, capsys):
    grid = tmp_path / "grid.yaml"
    grid.write_text('base: {members: 2}\ngrid:\n  kafka_version: ["4.3", "4.5"]\n')
    assert main(["sweep", str(grid), "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == f"kafkasim sweep: error: {grid}: grid.kafka_version: {unsupported('4.5')}\n"
    assert not (tmp_path / "out").exists()


# -- 2. faults --------------------------------------------------------------------------------------
@pytest.mark.parametrize("make,message", [
    (lambda: faults.Crash(3, 1000), "Crash.member must be a member's name such as 'c-1', got 3"),
    (lambda: faults.Pause("", 1000), "Pause.member must be a member's name such as 'c-1', got ''"),
    (lambda: faults.Restart(None, 1000), "Restart.member must be a member's name such as 'c-1', got None"),
    (lambda: faults.ScaleIn(1000, ()), "ScaleIn.members must name at least one member, e.g. ('c-2',), got ()"),
    (lambda: faults.ScaleIn(1000, ["c-1", 2]), "ScaleIn.members must be a member's name such as 'c-1', got 2"),
    (lambda: faults.Pause("c-1", -1), "Pause.at_ms must be an integer >= 0, got -1"),
    (lambda: faults.NetworkCut("c-1", 0, duration_ms=1.5), "NetworkCut.duration_ms must be an integer >= 0, got 1.5"),
    (lambda: faults.ScaleOut(1000, 0), "ScaleOut.count must be an integer >= 1, got 0"),
])
def test_faults_are_validated_like_configs(make, message):
    with pytest.raises(ConfigError) as e:
        make()
    assert str(e.value) == message


def test_scale_in_takes_a_list_or_one_name():
    assert faults.ScaleIn(1000, ["c-1", "c-2"]).members == ("c-1", "c-2")
    assert faults.ScaleIn(1000, "c-2").members == ("c-2",)


# -- 3. processing-time distributions -------------------------------------------------------------
CONSTANT = "processing_ms must be a number of ms per record in [0, 2147483647], got {}"
LOGNORMAL = "LogNormal needs 0 < median_ms <= p99_ms <= 2147483647 ms, got median_ms={}, p99_ms={}"


@pytest.mark.parametrize("ms", [float("nan"), float("inf"), -1.0, 1e308, 2**31])
def test_a_constant_processing_time_outside_its_range_is_refused(ms):
    with pytest.raises(ConfigError) as e:
        Scenario(processing_ms=ms)
    assert str(e.value) == CONSTANT.format(repr(float(ms)))  # a number is read as a float (as_distribution)
    with pytest.raises(ConfigError) as e:
        Constant(ms)
    assert str(e.value) == CONSTANT.format(repr(ms))
    with pytest.raises(ConfigError) as e:
        Constant(True)
    assert str(e.value) == CONSTANT.format("True")


def test_the_largest_constant_processing_time_is_java_s_int_max():
    assert Scenario(processing_ms=2**31 - 1).processing_ms == Constant(2147483647.0)


@pytest.mark.parametrize("median,p99", [(float("inf"), float("inf")), (float("nan"), 1), (0, 1), (2, 1),
                                        (1e-300, 1e300), (1, 3e9), ("2", 20), (2, True)])
def test_log_normal_parameters_outside_their_range_are_refused(median, p99):
    with pytest.raises(ConfigError) as e:
        LogNormal(median, p99)
    assert str(e.value) == LOGNORMAL.format(repr(median), repr(p99))


def test_a_log_normal_tail_whose_mean_is_infinite_in_practice_is_refused():
    """mean = median * exp(sigma^2 / 2), sigma = ln(p99 / median) / 2.3263: with median 1 ms and p99 1e9
    ms, sigma = 20.72 / 2.3263 = 8.91 and ln(mean) = 39.7, above ln(2^31 - 1) = 21.49; with p99 1e6 ms,
    sigma = 5.94 and ln(mean) = 17.6, a mean of 45.5 s per record: allowed."""
    with pytest.raises(ConfigError) as e:
        LogNormal(1, 1e9)
    assert str(e.value) == ("LogNormal(median_ms=1, p99_ms=1000000000.0) has a mean above 2147483647 ms per record "
                            "(p99_ms / median_ms = 1e+09): a tail this heavy makes processing times infinite; bring "
                            "p99_ms closer to median_ms")
    assert LogNormal(1, 1e6).mean_ms == pytest.approx(45_542_269, rel=1e-6)


# -- 4. the run-size estimate counts what faults add ----------------------------------------------
def test_a_fault_that_adds_millions_of_members_is_refused_before_the_run_is_built(monkeypatch):
    """The default scenario (600 s, 12 partitions, 6 members heartbeating every 3 s) with 5,000,000
    members added at 1 s: 600 x 12 x 1.4 = 10,080; member-seconds 6 x 600 + 5,000,000 x 599 =
    2,995,003,600, times 0.3 + 1/3 = 1,896,835,613; joining 5,000,006 x 7 = 35,000,042; in all
    1,931,845,735 events, 300 bytes each = 539.8 GB, at 150,000 a second 215 minutes."""
    def no_world(scenario):
        raise AssertionError("the run was built before its size was checked")

    monkeypatch.setattr(world_module, "World", no_world)
    start = time.process_time()
    with pytest.raises(ConfigError) as e:
        simulate(Scenario(faults=[faults.ScaleOut(1000, 5_000_000)]))
    assert time.process_time() - start < 1.0
    assert str(e.value) == ("this scenario would write about 1,931,845,735 events (about 539.8 GB and 215 min), more "
                            "than the 10,000,000 that simulate() runs without being asked: shorten duration_ms, use "
                            "fewer members (ScaleOut's count included) or partitions, or call simulate(scenario, "
                            "max_events=None) to run it anyway")


def test_members_added_late_count_from_their_start():
    """Ten members at 1 s or at 599 s: 10 x (599 - 1) member-seconds apart, at 0.3 + 1/3 an event each."""
    early = world_module.estimate_events(Scenario(faults=[faults.ScaleOut(1000, 10)]))
    late = world_module.estimate_events(Scenario(faults=[faults.ScaleOut(599_000, 10)]))
    assert early - late in (3787, 3788)  # 5,980 x 0.6333 = 3,787.33, each side truncated to an int


# -- 5. impossible dates in broker logs, on every path ------------------------------------------------
NOISE = "[2024-03-05 20:21:10,000] INFO [ReplicaManager broker=1] Shrinking ISR (kafka.server.ReplicaManager)"
MEMBER = "consumer-1-0b1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
FAILED = (f"INFO [GroupCoordinator 1]: Member {MEMBER} in group my-group has failed, removing it from the group "
          f"(kafka.coordinator.group.GroupCoordinator)")
ORIGIN = datetime(2024, 3, 5, 20)
NOISE_MS = (21 * 60 + 10) * 1000  # NOISE's time since ORIGIN


@pytest.mark.parametrize("stamp,shown", [
    ("[2026-02-30 20:21:14,681]", "2026-02-30 20:21:14"),   # no 30 February
    ("[2026-13-05 20:21:14,681]", "2026-13-05 20:21:14"),   # month 13
    ("[2026-03-05 25:21:14,681]", "2026-03-05 25:21:14"),   # hour 25
    ("[2026-03-05 20:60:14,681]", "2026-03-05 20:60:14"),
    ("[2025-02-29 20:21:14,681]", "2025-02-29 20:21:14"),   # 2025 is not a leap year
    ("2026-02-30T20:21:14.681Z", "2026-02-30 20:21:14"),    # ISO layout with a zone
    ("30 Feb 2026 20:21:14,681", "30 Feb 2026 20:21:14"),
])
def test_an_impossible_date_is_rejected_on_every_path(tmp_path, stamp, shown):
    """The record takes the time of the line before it (flagged inferred), and the note names the
    date, whether its head is read by the full pattern (first line) or after the whole second is
    cached (second line, the fast path's lookup), in lines, in a file, and in a byte range (Spark)."""
    lines = [NOISE, f"{stamp} {FAILED}", f"{stamp} {FAILED}"]
    path = tmp_path / "server.log"
    path.write_text("\n".join(lines) + "\n")
    size = os.path.getsize(path)
    note = f"impossible date {shown}: time taken from the neighbouring lines"
    for result in (lp.parse_lines(lines, origin=ORIGIN),
                   lp.parse_file(str(path), ORIGIN),
                   lp.parse_chunk(str(path), 0, size, 0, ORIGIN)):
        rows = [dict(zip(lp.ROW_FIELDS, r)) for r in result.rows]
        assert [(r["time"], r["time_inferred"], r["kind"]) for r in rows] == [(NOISE_MS, True, "MemberRemoved")] * 2
        assert [u[1:3] for u in result.unparsed] == [(2, note), (3, note)]


def test_the_same_second_on_a_possible_date_is_read_on_both_paths():
    origin = datetime(2024, 2, 29, 20)
    lines = [f"[2024-02-29 20:21:14,681] {FAILED}", f"[2024-02-29 20:21:14,682] {FAILED}"]
    rows = [dict(zip(lp.ROW_FIELDS, r)) for r in lp.parse_lines(lines, origin=origin).rows]
    assert [(r["time"], r["time_inferred"]) for r in rows] == [(1_274_681, False), (1_274_682, False)]


# -- 6. a `kafkasim logs` that could read none of its inputs -------------------------------------------
def refuse_reads(monkeypatch, paths):
    """Reads of `paths` fail as chmod 000 makes them fail for a user who is not root (the tests may
    run as root, for whom chmod denies nothing)."""
    real_open = os.open

    def refuse(p, *args, **kwargs):
        if os.fspath(p) in paths:
            raise PermissionError(13, "Permission denied", os.fspath(p))
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)


def test_logs_that_cannot_be_read_for_permission_exit_non_zero_naming_it(tmp_path, capsys, monkeypatch):
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("server.log", "server.log.1"):
        (logs / name).write_text(f"[2024-03-05 20:21:14,681] {FAILED}\n")
    refuse_reads(monkeypatch, {str(logs / "server.log"), str(logs / "server.log.1")})
    assert main(["logs", str(logs), "--out", str(tmp_path / "out"), "--no-spark"]) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        f"kafkasim logs: error: read none of the 2 file(s) given: permission denied for 2 of them, e.g. "
        f"{logs / 'server.log'} (the user running kafkasim may not read it)")
    assert f"{logs / 'server.log'}: unreadable: Permission denied" in captured.out


def test_logs_of_which_none_is_a_readable_file_exit_non_zero(tmp_path, capsys):
    os.mkfifo(tmp_path / "server.log")
    assert main(["logs", str(tmp_path / "server.log"), "--out", str(tmp_path / "out"), "--no-spark"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == (f"kafkasim logs: error: read none of the 1 file(s) given: "
                                                        f"{tmp_path / 'server.log'}: a FIFO (named pipe), not a log "
                                                        f"file: skipped")


def test_one_readable_log_among_unreadable_ones_is_a_success(tmp_path, capsys, monkeypatch):
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("server.log", "server.log.1"):
        (logs / name).write_text(f"[2024-03-05 20:21:14,681] {FAILED}\n")
    refuse_reads(monkeypatch, {str(logs / "server.log.1")})
    assert main(["logs", str(logs), "--out", str(tmp_path / "out"), "--no-spark"]) == 0
    assert "not read to their end: 1 file(s)" in capsys.readouterr().out


def test_a_log_directory_that_cannot_be_listed_is_named_as_a_permission_problem(tmp_path, capsys, monkeypatch):
    logs = tmp_path / "logs"
    logs.mkdir()
    real_walk = os.walk

    def walk(top, onerror=None, **kwargs):
        if os.fspath(top) == str(logs):
            onerror(PermissionError(13, "Permission denied", str(logs)))
            return iter(())
        return real_walk(top, onerror=onerror, **kwargs)

    monkeypatch.setattr(os, "walk", walk)
    assert main(["logs", str(logs), "--out", str(tmp_path / "out"), "--no-spark"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == (f"kafkasim logs: error: {logs}: permission denied: the directory {logs} "
                                       f"cannot be listed by this user (Permission denied)\n")
    assert not (tmp_path / "out").exists()


def test_one_process_is_true_or_false():
    with pytest.raises(ConfigError) as e:
        Scenario(one_process="yes")
    assert str(e.value) == "one_process must be True or False, got 'yes'"
