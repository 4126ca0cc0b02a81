"""Replay and what-if (issue 31 item 4): a scenario fitted to each sample incident recovers what the
incident was made of (tools/make_incidents.py, kafkasim/analysis/diagnose/incidents.py), its replay
lies close to the log (1.00 measured on each of the nine samples) and far from another incident's log,
static membership spares a rolling restart its rebalances, and a log with too little says why.

Expected faults are written here from the incidents' definitions, not read from the fit. Instants are
checked within a tolerance: 1 s for a fault the log dates exactly (a LeaveGroup, a join), and one
heartbeat interval for one read from a session expiry (the last heartbeat was session.timeout.ms
before it; the fault began before the next one: heartbeat.interval.ms 3000 classic, the broker's
group.consumer.heartbeat.interval.ms 5000 under KIP-848).
"""

import json
import sys
from pathlib import Path

import pytest

from kafkasim.analysis.cli import EXIT_OK, main
from kafkasim.analysis.diagnose import diagnose_files, diagnose_lines
from kafkasim.analysis.diagnose.incidents import incident
from kafkasim.analysis.diagnose.replay import (MAX_REPLAY_MS, NotEnoughToFit, closeness, fit_files, fit_lines,
                                               fit_scenario, replay, what_if, what_if_text)
from kafkasim.analysis.diagnose.timeline import Episode, Move, Timeline
from kafkasim.core.config import KAFKA_VERSIONS
from kafkasim.scenario.world import simulate

ROOT = Path(__file__).resolve().parent.parent
INCIDENTS = ROOT / "examples" / "incidents"
sys.path.insert(0, str(ROOT / "tools"))

from make_incidents import EXAMPLES  # noqa: E402

EXACT_MS = 1_000
#: file -> (fault kind, member or None, instant in ms): as incidents.py makes each sample (4 members, c-1..c-4).
EXPECTED = {
    "slow-processing.log": [("SlowProcessing", "c-2", 30_000)],
    "session-timeout-gc-or-stall.log": [("Pause", "c-2", 30_000)],
    "network.log": [("NetworkCut", "c-2", 30_000), ("NetworkCut", "c-3", 30_000)],
    "rolling-restart-dynamic-members.log": [("Restart", f"c-{i}", 30_000 + 15_000 * (i - 1)) for i in range(1, 5)],
    "scaling.log": [("ScaleOut", None, 30_000)],
    "too-many-members-or-slow-join.log": [],
    "misconfiguration.log": [("Restart", "c-1", 30_000)],
    "kip848-specific.log": [("Restart", None, 30_000)],
    "healthy.log": [],
}
#: Faults read from a session expiry, known to within a heartbeat interval.
FROM_EXPIRY = {"Pause": 3_000, "NetworkCut": 3_000, "Crash": 3_000}


def _as_logged(truth, name: str) -> str:
    """The name a fit gives consumer `name` of the incident: every process has the default client id
    consumer-workbook-group-1, so the fit names members c-1, c-2, ... by order of first appearance in
    the log; that order is read here from the incident's own run (its member id -> consumer name)."""
    run = simulate(truth)
    order = [run.member_names[a.member] for a in diagnose_lines(run.broker_log).timelines["workbook-group"].arrivals]
    return f"c-{list(dict.fromkeys(order)).index(name) + 1}"


def _in_range(version: str, fit) -> bool:
    lo, hi = fit.version_range
    return KAFKA_VERSIONS.index(lo) <= KAFKA_VERSIONS.index(version.rstrip("c")) <= KAFKA_VERSIONS.index(hi)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_fit_recovers_each_sample_incident(name):
    cause, version = EXAMPLES[name]
    truth = incident(cause, version)
    fit = fit_files([str(INCIDENTS / name)])
    assert fit.ok, fit.reason
    s = fit.scenario
    assert fit.members == truth.members
    assert _in_range(version, fit) and s.kafka_version == fit.version_range[0]
    assert fit.protocol == ("consumer" if version.endswith("c") else "classic")
    assert s.static_membership == truth.static_membership
    got = sorted(fit.faults, key=lambda f: (f.at_ms, getattr(f, "member", "")))
    want = EXPECTED[name]
    assert [type(f).__name__ for f in got] == [k for k, _, _ in want]
    for f, (kind, member, at) in zip(got, want):
        tolerance = 5_000 if fit.protocol == "consumer" and kind == "Restart" else FROM_EXPIRY.get(kind, EXACT_MS)
        assert abs(f.at_ms - at) <= tolerance, (f, at)
        if member is not None:
            assert f.member == _as_logged(truth, member)
    assert fit.text().startswith(f"fitted scenario for group workbook-group: Kafka {s.kafka_version}, "
                                 f"{truth.members} members")


def test_the_fitted_details_of_three_samples():
    slow = fit_files([str(INCIDENTS / "slow-processing.log")]).scenario
    # max.poll.interval.ms=60000 as the incident sets it, read from the LeaveGroup's rebalanceTimeoutMs
    assert slow.consumer == {"session.timeout.ms": 45_000, "max.poll.interval.ms": 60_000}
    assert slow.faults[0].duration_ms == pytest.approx(100_000, abs=EXACT_MS)  # stalled until it rejoined
    conv = fit_files([str(INCIDENTS / "misconfiguration.log")]).scenario
    restart = conv.faults[0]
    assert (restart.graceful, restart.consumer, restart.delay_ms) == (True, {"group.protocol": "consumer"}, 5_000)
    assert conv.broker == {"group.consumer.migration.policy": "disabled"}
    storm = fit_files([str(INCIDENTS / "too-many-members-or-slow-join.log")])
    # The incident starts its 60 members within 60 s: those joining after the first second start at their
    # logged join instants (3.7 logs every join), the last at 55.2 s (the sample's last join line).
    assert storm.scenario.members + sum(j.count for j in storm.joins) == 60 and storm.scenario.start_spread_ms == 1000
    assert max(j.at_ms for j in storm.joins) == 55_199 and storm.faults == ()


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_replay_of_each_sample_is_close_to_its_log(name):
    rep = replay(fit_files([str(INCIDENTS / name)]))
    assert rep.score >= 0.95, rep.parts  # measured: 1.00 on each of the nine
    assert set(rep.parts) == {"starts", "removals", "generations"}
    assert rep.text().startswith(f"replay closeness {rep.score:.2f}")


def test_a_replay_is_far_from_another_incidents_log():
    rep = replay(fit_files([str(INCIDENTS / "slow-processing.log")]))
    other = diagnose_files([str(INCIDENTS / "rolling-restart-dynamic-members.log")]).timelines["workbook-group"]
    score, parts = closeness(other, rep.simulated, other.first)
    # The rolling restart has 9 rebalances, the slow member's replay 2 by then (formation, the poll
    # timeout at 90 s): 2 starts match (0 s, and 90 s within 5 s of the 85 s rejoin): 2*2/11; no
    # removal reason in common (leave_group x4 against poll_timeout); generations 1 - 7/9.
    assert parts == {"starts": round(4 / 11, 3), "removals": 0.0, "generations": round(2 / 9, 3)}
    assert score == round((4 / 11 + 0 + 2 / 9) / 3, 3) < 0.3


def test_closeness_by_hand():
    def tl(starts, reasons):
        t = Timeline("g", first=0, last=max(starts))
        t.episodes = [Episode(s, s + 10, None, None, None, "f", 1) for s in starts]
        t.departures = [Move(s, "m", r, "f", 1) for s, r in zip(starts, reasons)]
        return t

    # 10 s has no partner within 5 s (3 s is 7 s away): 1 of 2 matched each side; the removals differ.
    score, parts = closeness(tl([0, 10_000], ["session_timeout"]), tl([0, 3_000], ["leave_group"]))
    assert parts == {"starts": 0.5, "removals": 0.0, "generations": 1.0} and score == 0.5
    # A replayed rebalance later than the log's end (10 s) + 5 s is not counted: 1 of 2 against 1 of 1.
    parts = closeness(tl([0, 10_000], []), tl([0, 15_001], []))[1]
    assert parts == {"starts": round(2 / 3, 3), "removals": 1.0, "generations": 0.5}
    assert closeness(tl([0, 10_000], []), tl([1_000, 14_000], []))[0] == 1.0  # each within 5 s
    assert closeness(tl([0, 10_000], []), tl([1_000, 3_000], []))[1]["starts"] == 0.5  # one to one


@pytest.mark.parametrize("cause, version, variant, members", [
    ("slow-processing", "4.0", 0, 4),        # 4.x classic lines print no max.poll.interval.ms
    ("slow-processing", "4.0c", 1, 3),       # KIP-848: the member leaves and comes back under its own id
    ("scaling", "2.8", 3, 4),                # 2.8 logs one join per rebalance: the count from "Stabilized"
    ("session-timeout-gc-or-stall", "2.8", 0, 8),
    ("network", "4.0c", 0, 4),
    ("rolling-restart-dynamic-members", "4.0", 1, 3),
    ("too-many-members-or-slow-join", "2.8", 1, 4),
])
def test_fresh_incidents_are_fitted_and_replayed_closely(cause, version, variant, members):
    truth = incident(cause, version, members=members, variant=variant)
    run = simulate(truth)
    fit = fit_lines(run.broker_log)
    assert fit.ok, fit.reason
    assert fit.members == truth.members and _in_range(version, fit)
    assert fit.protocol == ("consumer" if version.endswith("c") else "classic")
    ended = [f for f in truth.faults if f.at_ms < max(r[0] for r in diagnose_lines(run.broker_log).timelines[
        "workbook-group"].rows)]
    assert sorted(type(f).__name__ for f in fit.faults) == sorted(type(f).__name__ for f in ended)
    if cause == "scaling":
        assert [(f.count) for f in fit.faults if type(f).__name__ == "ScaleOut"] == [2]
    assert replay(fit).score >= 0.9


def test_a_join_storm_is_replayed_at_its_logged_join_instants_whatever_its_seed():
    # The storm's rebalances follow the members' start instants, which the scenario's seed draws: a
    # replay with seed 1 of a storm simulated with seed 2 matches only because the fit starts the
    # late members at their logged join instants (measured 0.844 when they were left to the seed).
    truth = incident("too-many-members-or-slow-join", "3.7", seed=2)
    fit = fit_lines(simulate(truth).broker_log)
    assert fit.scenario.seed == 1 and fit.members == truth.members
    assert replay(fit).score >= 0.95  # measured 1.00


def test_static_membership_spares_a_rolling_restart_its_rebalances():
    fit = fit_files([str(INCIDENTS / "rolling-restart-dynamic-members.log")])
    rows = {r["setting"]: r for r in what_if(fit, ("as fitted", "static membership"))}
    members = fit.scenario.members
    # Dynamic members: the first rebalance, then one when each member leaves and one when it rejoins.
    assert rows["as fitted"]["rebalances"] == 1 + 2 * members
    # Static members (KIP-345) back within session.timeout.ms (45 s > 10 s down): only the first one.
    assert rows["static membership"]["rebalances"] == 1 < rows["as fitted"]["rebalances"]
    assert rows["static membership"]["removals"] == 0 and rows["as fitted"]["removals"] == members


def test_what_if_covers_every_setting_and_says_which_do_not_apply():
    classic = what_if(fit_files([str(INCIDENTS / "session-timeout-gc-or-stall.log")]))
    assert [r["setting"] for r in classic] == ["as fitted", "static membership", "cooperative-sticky",
                                               "consumer protocol", "longer timeouts"]
    assert all(r["note"] == "" and r["rebalances"] >= 1 for r in classic)
    by = {r["setting"]: r for r in classic}
    # The 61.5 s pause outlasts 45 s but not the longer session (90 s): no removal, only the first rebalance.
    assert (by["as fitted"]["removals"], by["longer timeouts"]["removals"]) == (1, 0)
    assert by["longer timeouts"]["rebalances"] == 1
    assert "session.timeout.ms=90000" in by["longer timeouts"]["changes"]
    kip848 = {r["setting"]: r for r in what_if(fit_files([str(INCIDENTS / "kip848-specific.log")]))}
    assert kip848["consumer protocol"]["note"] == "already the consumer protocol"
    assert kip848["cooperative-sticky"]["note"] == "the consumer protocol assigns on the broker"
    table = what_if_text(list(kip848.values()))
    assert table.splitlines()[0].split()[:3] == ["setting", "rebalances", "generations"]
    assert "\nstatic membership   (already static)\n" in table  # padded to "cooperative-sticky", the longest
    assert what_if_text([kip848["static membership"]]).splitlines()[1] == "static membership  (already static)"


_G = "[2026-01-01 00:00:0{}] INFO [GroupCoordinator 0]: {} (kafka.coordinator.group.GroupCoordinator)"


@pytest.mark.parametrize("lines, reason", [
    ([], "no consumer-group lines in the log"),
    (["just an application's line"], "no consumer-group lines in the log"),
    ([_G.format("1,000", "Preparing to rebalance group g in state PreparingRebalance with old generation 4 "
                         "(__consumer_offsets-1) (reason: Adding new member c-1-7f3a with group instance id None; "
                         "client reason: not provided)")], "only 1 line of group g"),
    ([_G.format("1,000", "Preparing to restabilize group g with old generation 4"),   # 0.9: no member count
      _G.format("3,000", "Stabilized group g generation 5")], "no member count"),
    ([_G.format("0,009", "Preparing to rebalance group g with old generation 0 (__consumer_offsets-24)"),  # 2.0
      _G.format("6,009", "Stabilized group g generation 1 (__consumer_offsets-24)"),
      _G.format("7,009", "Member consumer-2-f612f15a-0ecf-4bfd-9d29-096a4907d846 in group g has failed, removing it "
                         "from the group")], "no member count"),  # one member seen leaving: of how many?
    ([_G.format("1,000", "Stabilized group g generation 5"), _G.format("2,000", "Stabilized group h generation 5")],
     "the log has 2 groups; name one (g, h)"),
])
def test_too_little_to_fit_says_why(lines, reason):
    fit = fit_lines(lines)
    assert not fit.ok and fit.reason.startswith(reason) and fit.scenario is None
    with pytest.raises(NotEnoughToFit, match=reason.replace("(", r"\(").replace(")", r"\)")):
        replay(fit)
    with pytest.raises(NotEnoughToFit):
        what_if(fit)
    assert fit.text() == f"cannot fit a scenario to group {fit.group}: {fit.reason}"


def test_a_log_longer_than_a_replay_is_refused():
    far = ("[2026-01-01 02:00:00,000] INFO [GroupCoordinator 0]: Stabilized group g generation 6 "
           "(__consumer_offsets-1) with 3 members (kafka.coordinator.group.GroupCoordinator)")
    fit = fit_lines([_G.format("1,000", "Stabilized group g generation 5 (__consumer_offsets-1) with 3 members"), far])
    assert not fit.ok and f"at most {MAX_REPLAY_MS // 60_000} min" in fit.reason


def test_cli_replay_prints_the_fit_and_keeps_the_json_schema(capsys, tmp_path):
    out, report_json = tmp_path / "replay.json", tmp_path / "report.json"
    code = main(["diagnose", str(INCIDENTS / "rolling-restart-dynamic-members.log"), "--replay", "--json",
                 str(report_json), "--replay-json", str(out)])
    text = capsys.readouterr().out
    assert code == EXIT_OK
    assert "replay closeness 1.00" in text and "\nstatic membership " in text and "read from the log:" in text
    report = json.loads(report_json.read_text())
    assert set(report) == {"groups", "findings"}  # issue 31's schema, nothing added
    machine = json.loads(out.read_text())["replays"][0]
    assert (machine["group"], machine["members"], machine["closeness"]) == ("workbook-group", 4, 1.0)
    assert [r["setting"] for r in machine["what_if"]][:2] == ["as fitted", "static membership"]


def test_cli_replay_of_a_one_line_log_is_one_sentence(capsys, tmp_path):
    log = tmp_path / "server.log"
    log.write_text((INCIDENTS / "scaling.log").read_text().splitlines()[0] + "\n")
    assert main(["diagnose", str(log), "--replay"]) == EXIT_OK
    out = capsys.readouterr()
    assert "replay of group workbook-group: cannot fit a scenario: only 1 line of group workbook-group" in out.out
    assert "Traceback" not in out.out + out.err


def test_the_chart_puts_the_log_above_the_replay():
    spec = replay(fit_files([str(INCIDENTS / "network.log")])).chart().to_dict()
    assert [panel["title"] for panel in spec["vconcat"]] == ["log", "replay"]
    assert spec["title"] == "group workbook-group: closeness 1.00"


def test_cli_replay_is_redacted_too(capsys, tmp_path):
    out = tmp_path / "replay.json"
    assert main(["diagnose", str(INCIDENTS / "slow-processing.log"), "--redact", "--replay", "--replay-json",
                 str(out)]) == EXIT_OK
    text, body = capsys.readouterr().out, out.read_text()
    # the incident's c-2 is the first to join its log: c-1 by order of first appearance (_as_logged)
    assert "fault: SlowProcessing c-1 for 100 s at 29.991 s" in text
    for secret in ("consumer-workbook-group-1", "f612f15a-0ecf-4bfd-9d29-096a4907d846", "127.0.0.1"):
        assert secret not in text and secret not in body


def test_the_benchmarks_quick_grid():
    """benchmarks/replay_closeness.py --quick: every run fitted with its member count and a version
    range holding its version; fault kinds missed only where the broker's lines cannot tell (one
    member cut off reads as a Pause; a static rolling restart, the healthy variant, leaves no line)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import replay_closeness

    rows = replay_closeness.measure(quick=True)
    assert all(r["fitted"] and r["members"] and r["version"] for r in rows)
    assert {r["cause"] for r in rows if not r["faults"]} == {"network", "healthy"}
    assert min(r["closeness"] for r in rows) >= 0.95


def test_a_timeline_can_be_fitted_on_its_own():
    report = diagnose_files([str(INCIDENTS / "slow-processing.log")])
    alone = fit_scenario(report.timelines["workbook-group"])  # without the diagnosis' cause: the same fault here
    assert [f.label() for f in alone.faults] == [f.label() for f in fit_scenario(report).faults] == [
        "SlowProcessing c-1 for 100 s at 29.991 s"]  # the incident's c-2, first to join (_as_logged)


def test_without_the_lines_text_the_version_is_the_scenarios_default_and_says_so():
    # diagnose_lines keeps no text: fit_scenario cannot read the wording (fit_lines can).
    fit = fit_scenario(diagnose_lines((INCIDENTS / "slow-processing.log").read_text()))
    assert (fit.scenario.kafka_version, fit.version_range) == ("3.7", ("0.9", "4.4"))
    assert fit.assumed[0] == "Kafka 3.7 (Scenario's default): no line's wording dates the log (or its text was " \
                             "not given)"
    assert fit_lines((INCIDENTS / "slow-processing.log").read_text()).version_range == ("3.2", "3.9")


def _config_block(time: str, group: str, **settings) -> str:
    """A Java consumer's "ConsumerConfig values:" record (AbstractConfig.logAll: one `\\tname = value`
    line per config, sorted by name, the logger after the last)."""
    lines = [f"[{time}] INFO ConsumerConfig values: ", f"\tgroup.id = {group}"]
    lines += [f"\t{name.replace('_', '.')} = {value}" for name, value in sorted(settings.items())]
    return "\n".join(lines + [" (org.apache.kafka.clients.consumer.ConsumerConfig)", ""])


def test_the_fit_takes_the_timeouts_a_client_printed_that_the_coordinator_did_not(tmp_path):
    """The slow-processing sample's coordinator lines print the member's session and rebalance timeouts
    (45000, 60000) but not heartbeat.interval.ms: a client's config block fills that in (2000, not the
    default 3000), and a value the coordinator applied wins over the client's printed one."""
    broker = INCIDENTS / "slow-processing.log"
    when = broker.read_text().splitlines()[0][1:24]
    client = tmp_path / "app.log"
    client.write_text(_config_block(when, "workbook-group", heartbeat_interval_ms=2000, max_poll_interval_ms=90000,
                                    session_timeout_ms=10000))
    fit = fit_files([str(broker), str(client)])
    assert fit.scenario.consumer == {"heartbeat.interval.ms": 2000, "session.timeout.ms": 45_000,
                                     "max.poll.interval.ms": 60_000}
    assert [r for r in fit.read if "client's configuration" in r] == [
        f"heartbeat.interval.ms=2000 (the client's configuration), {client}:1"]
    assert not any(a.startswith("heartbeat.interval.ms=") for a in fit.assumed)
    other = tmp_path / "other-group.log"
    other.write_text(_config_block(when, "billing", heartbeat_interval_ms=2000))
    assert "heartbeat.interval.ms" not in fit_files([str(broker), str(other)], "workbook-group").scenario.consumer


def test_clients_that_printed_different_timeouts_are_fitted_with_the_first_and_say_so(tmp_path):
    broker = INCIDENTS / "slow-processing.log"
    when = broker.read_text().splitlines()[0][1:24]
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_text(_config_block(when, "workbook-group", heartbeat_interval_ms=2000))
    b.write_text(_config_block(when, "workbook-group", heartbeat_interval_ms=5000))
    fit = fit_files([str(broker), str(a), str(b)])
    assert fit.scenario.consumer["heartbeat.interval.ms"] == 2000
    assert "heartbeat.interval.ms differs between the group's clients: 2000 fitted (the first printed)" in fit.assumed


def test_under_the_consumer_protocol_only_the_clients_poll_interval_is_fitted(tmp_path):
    """KIP-848: the session timeout and heartbeat interval are the broker's group.consumer.* configs, so a
    client's printed session.timeout.ms (still in its config block) is not the member's."""
    broker = INCIDENTS / "kip848-specific.log"
    when = broker.read_text().splitlines()[0][1:24]
    client = tmp_path / "app.log"
    client.write_text(_config_block(when, "workbook-group", group_protocol="consumer", session_timeout_ms=10000,
                                    heartbeat_interval_ms=2000, max_poll_interval_ms=120000))
    fit = fit_files([str(broker), str(client)])
    assert fit.scenario.consumer == {"max.poll.interval.ms": 120_000, "group.protocol": "consumer"}
    assert [r for r in fit.read if "client's configuration" in r] == [
        f"max.poll.interval.ms=120000 (the client's configuration), {client}:1"]


def test_a_client_log_alone_is_not_fitted_and_says_what_to_add():
    """A consumer's own log (here the simulator's Java consumer log of a member that stalls past
    max.poll.interval.ms) names the cause, but not the group's other members: the fit asks for server.log."""
    from kafkasim import faults
    from kafkasim.scenario.world import Scenario

    run = simulate(Scenario(client_log="java", duration_ms=150_000, consumer={"max.poll.interval.ms": 60_000},
                            faults=(faults.SlowProcessing("c-2", at_ms=30_000, duration_ms=100_000),)))
    fit = fit_lines(run.client_logs["c-2"])
    assert (fit.ok, fit.reason) == (False, "only client lines of group workbook-group: the members and what happened "
                                           "to them are fitted from the group coordinator's lines; add the brokers' "
                                           "server.log of the same period")
    assert diagnose_lines(run.client_logs["c-2"]).top() == "slow-processing"
