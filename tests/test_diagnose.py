"""`kafkasim diagnose`: the right cause first on each sample incident, the JSON exactly as issue 31
specifies it, healthy runs without a finding, known-bug signatures, redaction, the offline page,
and one-line errors."""

import json
import sys
from datetime import datetime
from pathlib import Path

import pytest

from kafkasim.analysis.cli import EXIT_BAD_INPUT, EXIT_OK, main
from kafkasim.analysis.diagnose import LABELS, Line, diagnose_lines
from kafkasim.analysis.diagnose.report import timeline_lines
from kafkasim.analysis.diagnose.timeline import Episode, Move, Timeline, wall

ROOT = Path(__file__).resolve().parent.parent
INCIDENTS = ROOT / "examples" / "incidents"
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _json(path, capsys, *extra):
    code = main(["diagnose", *map(str, path if isinstance(path, list) else [path]), "--json", "-", *extra])
    text = capsys.readouterr().out
    return code, text, json.loads(text)  # `--json -`: stdout is the JSON alone


@pytest.mark.parametrize("name", [p.stem for p in sorted(INCIDENTS.glob("*.log")) if p.stem != "healthy"])
def test_each_sample_incident_names_its_cause_first(name, capsys):
    code, text, report = _json(INCIDENTS / f"{name}.log", capsys)
    assert code == EXIT_OK
    assert report["findings"][0]["cause"] == name
    assert report["findings"][0]["group"] == "workbook-group"


def test_a_healthy_group_gives_no_finding(capsys):
    code, text, report = _json(INCIDENTS / "healthy.log", capsys)
    assert (code, report["findings"]) == (EXIT_OK, [])
    assert main(["diagnose", str(INCIDENTS / "healthy.log")]) == EXIT_OK  # the screen, without --json -
    assert "  no rebalance trouble found" in capsys.readouterr().out.splitlines()


def test_the_samples_are_what_the_script_writes():
    import make_incidents

    assert make_incidents.main(["--check"]) == 0


def test_json_schema_exactly(capsys):
    files = [INCIDENTS / "slow-processing.log", INCIDENTS / "misconfiguration.log"]
    code, _, report = _json(files, capsys)
    assert set(report) == {"groups", "findings"} and isinstance(report["groups"], list)
    scores = [f["score"] for f in report["findings"]]
    assert scores == sorted(scores, reverse=True) and len(scores) >= 3
    for f in report["findings"]:
        assert list(f) == ["cause", "group", "score", "summary", "evidence", "settings"]
        assert f["cause"] in LABELS and isinstance(f["group"], str) and isinstance(f["score"], float)
        assert isinstance(f["summary"], str) and f["summary"]
        assert f["settings"] and all(isinstance(s, str) for s in f["settings"])
        for e in f["evidence"]:
            assert list(e) == ["file", "line"] and isinstance(e["line"], int) and e["line"] >= 1
    # line is 1-based: the slow-processing finding cites the coordinator's line of the poll-timeout
    # LeaveGroup (GroupCoordinator.scala 3.x "Member MemberMetadata(...) has left group ... through explicit
    # `LeaveGroup`; client reason: consumer poll timeout has expired", KIP-800).
    slow = next(f for f in report["findings"] if f["cause"] == "slow-processing")
    lines = (INCIDENTS / "slow-processing.log").read_text().splitlines()
    cited = [lines[e["line"] - 1] for e in slow["evidence"]]
    assert len(cited) == 1 and "has left group workbook-group through explicit `LeaveGroup`; client reason: consumer poll timeout " \
        "has expired" in cited[0]


# Kafka 2.3.0's wording (GroupCoordinator.scala at 2.3.0); KAFKA-8653: with JoinGroup v0 the rebalance
# timeout is 0, so onCompleteJoin removes the members that have not rejoined the instant it starts.
KAFKA_8653 = """\
[2019-07-10 10:00:00,000] INFO [GroupCoordinator 1]: Preparing to rebalance group legacy in state PreparingRebalance with old generation 7 (__consumer_offsets-3) (reason: Adding new member consumer-1-aaa with group instanceid None) (kafka.coordinator.group.GroupCoordinator)
[2019-07-10 10:00:00,001] INFO [GroupCoordinator 1]: Group legacy removed dynamic members who haven't joined: Set(consumer-2-bbb, consumer-3-ccc) (kafka.coordinator.group.GroupCoordinator)
[2019-07-10 10:00:00,001] INFO [GroupCoordinator 1]: Stabilized group legacy generation 8 (__consumer_offsets-3) (kafka.coordinator.group.GroupCoordinator)
"""


def test_a_known_broker_bug_is_named_with_its_fix_version():
    report = diagnose_lines(KAFKA_8653, "server.log")
    best = report.findings[0]
    assert (best.cause, best.group) == ("broker-bug-or-coordinator", "legacy")
    assert "KAFKA-8653 (broker 2.3.0, fixed in 2.3.1, 2.4.0)" in best.summary
    assert [(e.file, e.line) for e in best.evidence] == [("server.log", 2)]
    assert "slow-processing" not in [f.cause for f in report.findings]  # not a rebalance timeout that ran out


GC = " (kafka.coordinator.group.GroupCoordinator)"
EXPIRIES = [  # GroupCoordinator.onExpireHeartbeat (2.x - 3.x): two members within 5 s, a third 2 min later
    f"[2024-03-05 20:21:14,681] INFO [GroupCoordinator 1]: Member c-1-7f3a in group orders has failed, removing it "
    f"from the group{GC}",
    f"[2024-03-05 20:21:16,002] INFO [GroupCoordinator 1]: Member c-2-91bc in group orders has failed, removing it "
    f"from the group{GC}",
    f"[2024-03-05 20:23:14,681] INFO [GroupCoordinator 1]: Member c-3-0d1e in group orders has failed, removing it "
    f"from the group{GC}"]
# GroupMetadata.isStaticMemberFenced (2.5 - 2.8): names the member and the instance, not the group.
FENCED_STATIC = ("[2023-06-24 15:09:33,711] ERROR given member.id i-1-dac57156-ae34-4b3c-8f90-98d6f4b0aa6d is "
                 "identified as a known static member i-1, but not matching the expected member.id "
                 "i-1-02a09bac-1a4a-453d-b5f9-6e124ea65b77 during join-group, will respond with instance fenced error "
                 "(kafka.coordinator.group.GroupMetadata)")


def test_session_expiries_of_two_members_together_read_as_network():
    report = diagnose_lines(EXPIRIES, "s.log")
    got = [(f.cause, [e.line for e in f.evidence]) for f in report.findings]
    assert got == [("network", [1, 2]), ("session-timeout-gc-or-stall", [3])]


def test_redact_replaces_ids_and_hosts_the_same_way_everywhere(capsys, tmp_path):
    log = tmp_path / "server.log"
    log.write_text((INCIDENTS / "slow-processing.log").read_text())
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    assert main(["diagnose", str(log), "--redact", "--json", str(out), "--html", str(page)]) == EXIT_OK
    text, body, html = capsys.readouterr().out, out.read_text(), page.read_text()
    assert "clientHost=/ip-1" in html  # the evidence lines themselves, around the member's LeaveGroup
    for secret in ("consumer-workbook-group-1", "f612f15a-0ecf-4bfd-9d29-096a4907d846", "127.0.0.1"):
        assert secret not in text and secret not in body and secret not in html
    # every member's client id is consumer-workbook-group-1 (one process each), so the timeline names
    # the member by its member id, redacted as the JSON's
    assert "member-1 left: poll timeout (LeaveGroup)" in text
    report = json.loads(body)
    assert report["groups"][0]["departures"][0]["member"] == "member-1"


def test_html_is_self_contained(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["diagnose", str(INCIDENTS / "network.log"), "--html", str(out)]) == EXIT_OK
    page = out.read_text()
    assert page.count("<svg") == 2 and "<script" not in page
    assert all(u in ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink")
               for u in __import__("re").findall(r"https?://[^\s\"'<>)]+", page))
    assert "<span class='hit'>" in page and "has failed, removing it from the group" in page


@pytest.mark.parametrize("args,message", [
    (["/no/such/file.log"], "kafkasim diagnose: error: /no/such/file.log: no such file or directory"),
    ([str(INCIDENTS / "healthy.log"), "--group", "nope"],
     "kafkasim diagnose: error: --group nope: no such group in these logs (groups found: workbook-group)"),
    ([str(INCIDENTS / "healthy.log"), "--json", "/"], "kafkasim diagnose: error: --json /: is a directory; give a "
                                                      "file name"),
])
def test_errors_are_one_line(args, message, capsys):
    assert main(["diagnose", *args]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == message + "\n"


def test_any_bytes_give_a_report(tmp_path, capsys):
    junk = tmp_path / "junk.log"
    junk.write_bytes(bytes(range(256)) * 40 + b"[GroupCoordinator 1]: Preparing to rebalance group \xff")
    assert main(["diagnose", str(junk)]) == EXIT_OK
    assert capsys.readouterr().out.startswith("no consumer-group lines found in the input")


def test_accuracy_on_a_small_grid():
    """The benchmark's quick grid: every cause named first, except one member cut off from the
    coordinator alone, which the coordinator's lines show exactly as a GC pause (docs/diagnose.md)."""
    import diagnose_accuracy

    pairs = diagnose_accuracy.measure(quick=True)
    wrong = sorted({(t, p) for t, p in pairs if t != p and not (t == "healthy" and p == "(none)")})
    assert wrong == [("network", "session-timeout-gc-or-stall")]
    assert sum(1 for t, p in pairs if t == "network" and p != t) == 4  # variant 1 at 4 versions


def _client_incident(folder: Path, cause: str, style: str, group: str) -> list[str]:
    """A simulated incident's broker log and its consumers' own log (`style`; one application, its
    consumers' lines one after the other in one file), its group renamed."""
    from dataclasses import replace

    from kafkasim.analysis.diagnose.incidents import incident
    from kafkasim.scenario.world import simulate

    run = simulate(replace(incident(cause, "3.7"), client_log=style))
    logs = {f"{group}-server.log": run.broker_log,
            f"{group}-app.log": [line for lines in run.client_logs.values() for line in lines]}
    for name, lines in logs.items():
        (folder / name).write_text("".join(line.replace("workbook-group", group) + "\n" for line in lines))
    return [str(folder / name) for name in logs]


def test_spark_gives_the_same_report_as_plain_python(spark, tmp_path, capsys):
    """Broker and client logs of four groups through --spark (each group diagnosed in an executor) and
    without: the same screen, the same --json and the same --html (its rows kept, its files named), redacted
    alike. librdkafka's MAXPOLL line names no group: on both paths it takes its file's group
    (client_rules.name_groups), so its finding is there."""
    files = [str(INCIDENTS / "network.log"), str(INCIDENTS / "scaling.log"),
             *_client_incident(tmp_path, "slow-processing", "librdkafka", "orders"),
             *_client_incident(tmp_path, "session-timeout-gc-or-stall", "java", "payments")]
    args = [*files, "--redact", "--json"]
    assert main(["diagnose", *args, str(tmp_path / "plain.json"), "--html", str(tmp_path / "plain.html")]) == EXIT_OK
    plain_screen = capsys.readouterr().out
    assert main(["diagnose", *args, str(tmp_path / "spark.json"), "--html", str(tmp_path / "spark.html"),
                 "--spark", "--master", "local[2]"]) == EXIT_OK
    screen, err = capsys.readouterr()
    assert screen == plain_screen
    assert f"kafkasim diagnose: {len(files)} file(s) on local[2]" in err.splitlines()  # said before Spark reads them
    plain, on_spark = (json.loads((tmp_path / n).read_text()) for n in ("plain.json", "spark.json"))
    assert on_spark == plain
    assert (tmp_path / "spark.html").read_text() == (tmp_path / "plain.html").read_text()
    first = {}
    for f in plain["findings"]:
        first.setdefault(f["group"], f["cause"])
    assert first == {"workbook-group": "network", "orders": "slow-processing",
                     "payments": "session-timeout-gc-or-stall"}
    maxpoll = [e for f in plain["findings"] if f["group"] == "orders" and f["cause"] == "slow-processing"
               for e in f["evidence"] if "|MAXPOLL|" in Path(e["file"]).read_text().splitlines()[e["line"] - 1]]
    assert maxpoll and "member-1" in plain_screen and "consumer-workbook-group" not in plain_screen
    for name in ("plain", "spark"):  # one group, and one the logs do not have, alike
        spark_args = ["--spark", "--master", "local[2]"] if name == "spark" else []
        assert main(["diagnose", *files, "--group", "orders", "--json", str(tmp_path / f"{name}-orders.json"),
                     *spark_args]) == EXIT_OK
        assert main(["diagnose", *files, "--group", "billing", *spark_args]) == EXIT_BAD_INPUT
        assert capsys.readouterr().err.splitlines()[-1] == ("kafkasim diagnose: error: --group billing: no such "
                                                            "group in these logs (groups found: orders, payments, "
                                                            "workbook-group)")
    plain, on_spark = (json.loads((tmp_path / f"{n}-orders.json").read_text()) for n in ("plain", "spark"))
    assert on_spark == plain and {f["group"] for f in plain["findings"]} == {"orders"}


def test_the_timeline_of_a_gc_pause():
    """examples/incidents/session-timeout-gc-or-stall.log (Kafka 3.7, c-2 paused 60 s at 30 s, session
    45 s, heartbeats every 3 s from its sync at 6,009 ms): formation, the expiry 45 s after its last
    heartbeat before the pause (27,009 ms) and the rejoin when the pause ends at 90 s."""
    report = diagnose_lines((INCIDENTS / "session-timeout-gc-or-stall.log").read_text(), "gc.log")
    tl = report.timelines["workbook-group"]
    assert [(e.start, e.end, e.generation, e.members, e.line) for e in tl.episodes] == [
        (9, 6009, 1, 4, 2), (72009, 72009, 2, 3, 9), (90000, 90009, 3, 4, 13)]
    assert [(d.time, d.reason, d.line) for d in tl.departures] == [(72009, "session_timeout", 8)]
    assert [a.time for a in tl.arrivals] == [9, 34, 661, 871, 90000]
    # per-process client ids: every member is consumer-workbook-group-1-<uuid>, c-2 included
    assert tl.episodes[1].reason.startswith("removing member consumer-workbook-group-1-") and \
        tl.episodes[1].reason.endswith(" on heartbeat expiration")


def test_group_filter(capsys, tmp_path):
    other = tmp_path / "other.log"
    other.write_text((INCIDENTS / "network.log").read_text().replace("workbook-group", "payments"))
    code, text, report = _json([INCIDENTS / "slow-processing.log", other], capsys, "--group", "payments")
    assert code == EXIT_OK and [g["group"] for g in report["groups"]] == ["payments"]
    assert {f["group"] for f in report["findings"]} == {"payments"} and "workbook-group" not in text


# KAFKA-12890 (2.7/2.8 wording): a group left in CompletingRebalance for 20 minutes; KAFKA-10134: a
# member expired between "Stabilized" and "Assignment received" (its heartbeat thread paused).
STUCK = """\
[2021-06-01 10:00:00,000] INFO [GroupCoordinator 1]: Preparing to rebalance group g in state PreparingRebalance with old generation 3 (__consumer_offsets-3) (reason: Adding new member c-1-x with group instance id None) (kafka.coordinator.group.GroupCoordinator)
[2021-06-01 10:00:03,000] INFO [GroupCoordinator 1]: Stabilized group g generation 4 (__consumer_offsets-3) with 2 members (kafka.coordinator.group.GroupCoordinator)
[2021-06-01 10:00:13,000] INFO [GroupCoordinator 1]: Member c-2-y in group g has failed, removing it from the group (kafka.coordinator.group.GroupCoordinator)
[2021-06-01 10:20:03,000] INFO [GroupCoordinator 1]: Member c-1-x in group g has failed, removing it from the group (kafka.coordinator.group.GroupCoordinator)
"""


def test_bugs_of_the_table_are_found_by_their_signature():
    found = [(f.cause, f.summary.split(" (")[0], [e.line for e in f.evidence])
             for f in diagnose_lines(STUCK, "s.log").findings if f.cause.endswith("bug-or-coordinator")
             or f.cause == "client-bug"]
    assert found == [("broker-bug-or-coordinator", "KAFKA-12890", [2]), ("client-bug", "KAFKA-10134", [3, 4])]


def test_every_known_bug_row_is_complete():
    from kafkasim.analysis.diagnose.bugs import CLIENT_PATTERNS, KNOWN_BUGS, PATTERNS

    timeline = diagnose_lines(STUCK).timelines["g"]
    for bug in KNOWN_BUGS:
        # a Jira id is in its source; a GitHub issue's number is in its URL (".../issues/3450")
        assert (bug.bug if "#" not in bug.bug else "/issues/" + bug.bug.split("#")[1]) in bug.source
        assert bug.fixed and bug.affected
        if bug.clients:  # read in the client's own lines
            CLIENT_PATTERNS[bug.pattern](timeline.rows, **bug.params)  # its parameters fit
        else:
            PATTERNS[bug.pattern](timeline, **bug.params)


def test_client_rows_sit_beside_the_coordinators_history():
    """Rows of another source (the clients' logs, once the reader knows them) are kept for the rules
    but make no arrival, departure or rebalance: the history is the coordinator's."""
    from kafkasim.analysis.diagnose import diagnose_rows
    from kafkasim.analysis.log_parser import ROW_FIELDS, parse_lines

    rows = parse_lines((INCIDENTS / "session-timeout-gc-or-stall.log").read_text(), "gc.log").rows
    client = (72_000, "consumer", "workbook-group", "consumer-workbook-group-2", "MemberRemoved", None, None,
              None, None, "session_timeout", None, None, "client.log", 5, 5_000_000, False, "java", "3.0-", None,
              "consumer-workbook-group-2", None)
    assert len(client) == len(ROW_FIELDS)
    alone, beside = diagnose_rows(rows, ["gc.log"]), diagnose_rows(rows + [client], ["gc.log", "client.log"])
    tl = beside.timelines["workbook-group"]
    assert client in tl.rows and len(tl.departures) == 1 and len(tl.episodes) == 3
    assert [f.to_json() for f in beside.findings] == [f.to_json() for f in alone.findings]


# Two processes with group.instance.id pod-1 taking turns (GroupCoordinator.scala 2.4-3.x wording): each
# replaces the member the other one made 5 s before.
DUPLICATE_INSTANCE = """\
[2024-03-05 20:00:00,000] INFO [GroupCoordinator 1]: Static member pod-1 of group g with unknown member id rejoins, assigning new member id c-1-b, while old member id c-1-a will be removed. (kafka.coordinator.group.GroupCoordinator)
[2024-03-05 20:00:05,000] INFO [GroupCoordinator 1]: Static member pod-1 of group g with unknown member id rejoins, assigning new member id c-1-c, while old member id c-1-b will be removed. (kafka.coordinator.group.GroupCoordinator)
[2024-03-05 20:00:10,000] INFO [GroupCoordinator 1]: Static member pod-1 of group g with unknown member id rejoins, assigning new member id c-1-d, while old member id c-1-c will be removed. (kafka.coordinator.group.GroupCoordinator)
"""


def test_a_duplicate_instance_id_is_a_misconfiguration():
    found = [(f.cause, [e.line for e in f.evidence]) for f in diagnose_lines(DUPLICATE_INSTANCE, "d.log").findings]
    assert found == [("misconfiguration", [1, 2, 3])]


@pytest.mark.parametrize("version", ["2.8", "3.7", "4.0", "4.0c"])
def test_a_rolling_restart_of_static_members_is_no_trouble(version):
    """KIP-345: each static member comes back within its session and replaces itself, once: no
    rebalance, no finding (and not a duplicate group.instance.id)."""
    from kafkasim.analysis.diagnose.incidents import incident
    from kafkasim.scenario.world import simulate

    log = simulate(incident(None, version, variant=1)).broker_log
    report = diagnose_lines(log, "s.log")
    rows = report.timelines["workbook-group"].rows
    assert sum(r[4] == "MemberReplaced" for r in rows) == 4  # one replacement per member
    assert report.findings == []


def test_a_rolling_upgrade_to_the_consumer_protocol():
    """Kafka 4.0, three dynamic members restarted one by one into group.protocol=consumer: the classic
    group's rebalances, then the conversion (GroupMetadataManager.java "Converted the classic group to a
    consumer group") and epochs; the classic members still in it rejoin under their ids, which is not
    a scale-out."""
    from kafkasim.core.faults import rolling_restart
    from kafkasim.scenario.world import Scenario, simulate

    sc = Scenario(kafka_version="4.0", members=3, duration_ms=200_000,
                  faults=rolling_restart(["c-1", "c-2", "c-3"], 30_000, 20_000, consumer={"group.protocol": "consumer"}))
    report = diagnose_lines(simulate(sc).broker_log, "m.log")
    tl = report.timelines["workbook-group"]
    assert tl.protocols == {"classic", "consumer"}
    assert [e.epoch for e in tl.episodes] == [False, False, True, True, True, True, True]
    assert [(f.cause, f.score) for f in report.findings] == [("rolling-restart-dynamic-members", 0.94),
                                                             ("kip848-specific", 0.4)]


def test_a_rebalance_that_never_ends_matches_kafka_9752():
    """A join phase still open 11 minutes later (past twice the default rebalance timeout): the
    signature of KAFKA-9752 (fixed in 2.5.0)."""
    lines = """\
[2020-03-01 10:00:00,000] INFO [GroupCoordinator 1]: Preparing to rebalance group g in state PreparingRebalance with old generation 5 (__consumer_offsets-3) (reason: Adding new member c-1-x with group instance id None) (kafka.coordinator.group.GroupCoordinator)
[2020-03-01 10:11:00,000] INFO [GroupCoordinator 1]: Member c-2-y in group g has failed, removing it from the group (kafka.coordinator.group.GroupCoordinator)
"""
    report = diagnose_lines(lines, "s.log")
    bug = next(f for f in report.findings if f.cause == "broker-bug-or-coordinator")
    assert bug.summary.startswith("KAFKA-9752 (broker up to 2.4.1, fixed in 2.5.0") and bug.evidence[0].line == 1
    assert report.timelines["g"].episodes[0].end is None


def test_a_broker_line_that_names_no_group_is_read_by_the_line_rules():
    """GroupMetadata.isStaticMemberFenced (2.5 - 2.8) names the member and instance, not the group: no group's
    history holds it, and the line-level rules read it as two processes sharing a group.instance.id."""
    report = diagnose_lines([FENCED_STATIC], "server.log")
    assert [(f.cause, f.group, f.score, f.summary, f.evidence) for f in report.findings] == [
        ("misconfiguration", None, 0.9, "FENCED_INSTANCE_ID: another process uses the same group.instance.id",
         [Line("server.log", 1)])]
    assert report.timelines == {}


def test_the_pages_charts_are_valid_vega_lite_and_name_only_columns_their_data_has(monkeypatch):
    """The page's two charts (a group's timeline, its worst rebalance event by event) are drawn to
    SVG with no error for a misspelled key or a field the rows lack: they are checked against
    Vega-Lite's schema (as Altair does) and every encoded field against the rows (issue 29)."""
    import altair as alt
    from vega_fields import missing_fields, views  # (tests/ is on sys.path)

    from kafkasim.analysis.diagnose import diagnose_files, html

    specs = []
    monkeypatch.setattr(html, "_svg", lambda spec: specs.append(spec) or "<svg></svg>")
    html.page(diagnose_files([INCIDENTS / "network.log"]))
    assert len(specs) == 2
    for spec in specs:
        alt.Chart.from_dict({"$schema": alt.SCHEMA_URL, **spec}, validate=True)
        assert all("encoding" in view for view in views(spec)) and missing_fields(spec) == []


def test_a_page_of_logs_without_group_lines_says_there_is_nothing_to_diagnose(tmp_path):
    from kafkasim.analysis.diagnose import diagnose_files, html

    log = tmp_path / "other.log"
    log.write_text("[2024-05-01 10:00:00,000] INFO some other broker line (kafka.server.KafkaServer)\n")
    assert "<p>No consumer-group lines found in the input: nothing to diagnose.</p>" in html.page(
        diagnose_files([log]))


# The screen's and the files' exact form (report.text, command.write): the documented format, docs/diagnose.md
# ("one screen per group: the timeline ..., then the findings, best first, each with its `file:line` evidence and
# the settings that would have prevented it, or `no rebalance trouble found`"; --replay "after the report").

def test_a_report_of_no_group_line_is_one_line_saying_which_lines_the_reader_knows():
    from kafkasim.analysis.diagnose.report import text

    assert text(diagnose_lines(["[2024-05-01 10:00:00,000] INFO other (kafka.server.KafkaServer)"])) == (
        "no consumer-group lines found in the input: nothing to diagnose (the reader knows the group coordinator's "
        "lines of server.log, Kafka 0.9 to 4.x)\n")


def test_the_report_numbers_each_groups_findings_from_1_with_their_evidence_and_settings_then_the_groupless_ones():
    """report.text: a group's heading ("classic protocol" for lines that show neither protocol, as expiries do: the
    only one before KIP-848; its first and last line's time, "0 rebalances" when none, no longest rebalance
    without a finished one), its timeline, its findings numbered from 1 with "evidence: file:line, ..." and "would
    have prevented it: setting; ...", a blank line; then the findings of lines that name no group, numbered anew,
    and a blank line.
    Findings by hand from rules.py: 2 expiries within TOGETHER_MS are network (0.85 + 0.02), the third alone and
    never back a session timeout (0.6); the fenced static member a misconfiguration (0.9)."""
    from kafkasim.analysis.diagnose import SETTINGS
    from kafkasim.analysis.diagnose.report import text

    report = diagnose_lines(EXPIRIES + [FENCED_STATIC], "s.log")
    left = "left: session timeout (heartbeats stopped)"
    assert text(report).endswith("\n")  # as after a group's part: a replay printed next starts on its own line
    assert text(report).splitlines() == [
        "group orders (classic protocol), 2024-03-05 20:21:14.681 to 2024-03-05 20:23:14.681: 0 rebalances",
        f"  2024-03-05 20:21:14.681  - c-1-7f3a {left}  [s.log:1]",
        f"  2024-03-05 20:21:16.002  - c-2-91bc {left}  [s.log:2]",
        f"  2024-03-05 20:23:14.681  - c-3-0d1e {left}  [s.log:3]",
        "  1. network (score 0.87): 1 time(s) several members lost their sessions within 5 s of each other (first "
        "c-1-7f3a, c-2-91bc): the connection to the coordinator was lost, not one process",
        "     evidence: s.log:1, s.log:2",
        "     would have prevented it: " + "; ".join(SETTINGS["network"]),
        "  2. session-timeout-gc-or-stall (score 0.60): c-3-0d1e: heartbeats stopped for session.timeout.ms and the "
        "coordinator removed it (1 time(s)); it did not come back in this log (a crash looks the same): a GC pause, a "
        "starved or blocked heartbeat thread",
        "     evidence: s.log:3",
        "     would have prevented it: " + "; ".join(SETTINGS["session-timeout-gc-or-stall"]),
        "",
        "lines that name no group:",
        "  1. misconfiguration (score 0.90): FENCED_INSTANCE_ID: another process uses the same group.instance.id",
        "     evidence: s.log:4",
        "     would have prevented it: " + "; ".join(SETTINGS["misconfiguration"])]


G4 = "[GroupCoordinator id=1 topic=__consumer_offsets partition=3]"
KIP848 = " (org.apache.kafka.coordinator.group.GroupMetadataManager)"
# Kafka 4.0's GroupMetadataManager.java wordings: group migrating rebalances once as a classic group (2.5 s), is
# converted and bumps its epoch twice; group fresh is a consumer group from its first line (one bump).
MIGRATION = [
    f"[2024-03-05 10:00:00,000] INFO {G4} Preparing to rebalance group migrating in state PreparingRebalance with old "
    f"generation 0 (reason: Adding new member c-1-a with group instance id null; client reason: not provided).{KIP848}",
    f"[2024-03-05 10:00:02,500] INFO {G4} Stabilized group migrating generation 1 with 1 members.{KIP848}",
    f"[2024-03-05 10:00:10,000] INFO {G4} [GroupId migrating] Converted the classic group to a consumer group.{KIP848}",
    f"[2024-03-05 10:00:10,000] INFO {G4} [GroupId migrating] Bumped group epoch to 2.{KIP848}",
    f"[2024-03-05 10:00:15,000] INFO {G4} [GroupId migrating] Bumped group epoch to 3.{KIP848}",
    f"[2024-03-05 10:00:20,000] INFO {G4} [GroupId fresh] Member m-1 joins the consumer group using the consumer "
    f"protocol.{KIP848}",
    f"[2024-03-05 10:00:20,000] INFO {G4} [GroupId fresh] Bumped group epoch to 1.{KIP848}"]
MIGRATION_HEADINGS = [
    "group migrating (classic and consumer protocols), 2024-03-05 10:00:00.000 to 2024-03-05 10:00:15.000: "
    "1 rebalances, 2 epoch bumps, longest rebalance 2.5 s",
    "group fresh (consumer protocol), 2024-03-05 10:00:20.000 to 2024-03-05 10:00:20.000: 1 epoch bumps"]


def _headings(report) -> list[str]:
    from kafkasim.analysis.diagnose.report import text

    return [line for line in text(report).splitlines() if line.startswith("group ")]


def test_a_groups_heading_counts_its_classic_rebalances_and_its_epoch_bumps_apart():
    """A heading says "N rebalances" (classic) and "M epoch bumps" (KIP-848), each when there are some, the
    rebalances also when there is neither; the longest rebalance is a classic one's (an epoch bump has no length).
    It names the protocols the group's lines show (report.protocols): "consumer protocol", or "classic and consumer
    protocols" for a group converted from one to the other (KIP-848's online migration)."""
    assert _headings(diagnose_lines(MIGRATION, "m.log")) == MIGRATION_HEADINGS


def test_a_reports_times_are_the_logs_own_clock_from_the_reports_origin():
    """timeline.wall: a time is ms since the origin the log was read against (Report.origin), shown as origin + ms:
    read against 2024-03-05 10:00, the headings still give the log's own times."""
    from kafkasim.analysis.diagnose import diagnose_rows
    from kafkasim.analysis.log_parser import parse_lines

    origin = datetime(2024, 3, 5, 10)
    report = diagnose_rows(parse_lines(MIGRATION, "m.log", origin).rows, ["m.log"])
    report.origin = origin
    assert _headings(report) == MIGRATION_HEADINGS
    assert wall(None, origin) == "?"  # a time the rows do not give (no reader leaves one out: it takes a neighbour's)


# A group's timeline on the screen (report.timeline_lines): "  <wall time>  <what>  [file:line]", one line per
# rebalance, epoch bump, arrival and departure (docs/diagnose.md: "rebalances with their duration, generation or
# epoch, member count and Kafka's reason; members joining and leaving with why"). Times are ms after ORIGIN.
ORIGIN = datetime(2024, 3, 5, 10)


def _timeline(episodes=(), arrivals=(), departures=()) -> Timeline:
    return Timeline("orders", episodes=list(episodes), arrivals=list(arrivals), departures=list(departures))


def test_a_rebalance_line_gives_its_generation_length_members_and_kafkas_reason_cut_to_90_characters():
    """A classic rebalance from its "Preparing to rebalance" to its "Stabilized" line: the generation it made, how
    long it took and the members it has, then the reason of "Preparing to rebalance" (GroupCoordinator.scala 3.x
    prepareRebalance, "(reason: $reason)"), cut to its first 89 characters and "…" when longer than 90. A rebalance
    the log ends in has no generation, length nor members yet; one whose start the log does not hold (it begins
    with "Stabilized") has no reason: "?".
    The reason is 3.x addMemberAndRebalance's for a first JoinGroup answered MEMBER_ID_REQUIRED (KIP-394), with the
    client's short reason (AbstractCoordinator.joinGroupIfNeeded, KIP-800)."""
    joined = ("Adding new member consumer-orders-1-8a6d8d9e-6c0e-4d43-9a4d-2d8d1e0a3f11 with group instance id None; "
              "client reason: rebalance failed due to MemberIdRequiredException")
    tl = _timeline([Episode(0, 2_500, 5, None, 3, "s.log", 2),
                    Episode(60_000, 63_250, 6, joined, 4, "s.log", 7),
                    Episode(90_000, None, None, "removing member c-2-91bc on heartbeat expiration", None, "s.log", 12)])
    assert timeline_lines(tl, ORIGIN) == [
        "  2024-03-05 10:00:00.000  rebalance -> generation 5, 2.5 s, 3 members: ?  [s.log:2]",
        "  2024-03-05 10:01:00.000  rebalance -> generation 6, 3.25 s, 4 members: Adding new member "
        "consumer-orders-1-8a6d8d9e-6c0e-4d43-9a4d-2d8d1e0a3f11 with group insta…  [s.log:7]",
        "  2024-03-05 10:01:30.000  rebalance -> no new generation, not finished in this log: removing member "
        "c-2-91bc on heartbeat expiration  [s.log:12]"]


def test_an_epoch_bump_line_gives_its_cause_or_bumped_and_the_members_counted_when_any():
    """A consumer group's (KIP-848) epoch bump: "epoch N (cause)", the cause the line before it gives (a join, a
    leave or fence, a regex scan: broker_kip848._BUMPED_BY, or new_group), "bumped" when none does (Kafka 4.0's
    "Bumped group epoch to N." says no more); then the members the log saw join less those it saw leave
    (timeline._close), left out when none (a log that starts after the members joined)."""
    tl = _timeline([Episode(0, 0, 7, None, 0, "s.log", 3, epoch=True),
                    Episode(5_000, 5_000, 8, "member_joined", 2, "s.log", 9, epoch=True)])
    assert timeline_lines(tl, ORIGIN) == ["  2024-03-05 10:00:00.000  epoch 7 (bumped)  [s.log:3]",
                                          "  2024-03-05 10:00:05.000  epoch 8 (member_joined), 2 members  [s.log:9]"]


def test_a_members_line_says_who_joined_static_or_not_and_why_it_left():
    """An arrival "+ who joined", " (static)" for a group.instance.id (KIP-345); a departure "- who left: why", the
    reader's reason in words (session timeout: onExpireHeartbeat's "has failed"; LeaveGroup), a reason the table
    does not know as it is. Who: the client id (a classic member id less its UUID, ClassicGroup.generateMemberId;
    Timeline.identity), "?" for a member the line does not name."""
    uuid = "-8a6d8d9e-6c0e-4d43-9a4d-2d8d1e0a3f11"
    tl = _timeline(arrivals=[Move(0, f"consumer-orders-1{uuid}", None, "s.log", 1),
                             Move(1_000, f"i-2{uuid}", "static", "s.log", 2, static=True)],
                   departures=[Move(30_000, f"consumer-orders-1{uuid}", "session_timeout", "s.log", 5),
                               Move(40_000, None, "leave_group", "s.log", 8),
                               Move(50_000, f"i-2{uuid}", "kicked_out", "s.log", 9)])
    assert timeline_lines(tl, ORIGIN) == [
        "  2024-03-05 10:00:00.000  + consumer-orders-1 joined  [s.log:1]",
        "  2024-03-05 10:00:01.000  + i-2 joined (static)  [s.log:2]",
        "  2024-03-05 10:00:30.000  - consumer-orders-1 left: session timeout (heartbeats stopped)  [s.log:5]",
        "  2024-03-05 10:00:40.000  - ? left: LeaveGroup  [s.log:8]",
        "  2024-03-05 10:00:50.000  - i-2 left: kicked_out  [s.log:9]"]


def test_a_timeline_is_in_time_order_then_by_file_then_by_line():
    """Rebalances, arrivals and departures merged in time order; within an instant by file, then line (as
    timeline.row_order orders the rows: here the files' names are also their order)."""
    tl = _timeline(episodes=[Episode(1_000, None, None, "r", None, "a.log", 1)],
                   arrivals=[Move(0, "c-1", None, "b.log", 2), Move(0, "c-2", None, "a.log", 5)],
                   departures=[Move(0, "c-3", "leave_group", "a.log", 4)])
    assert timeline_lines(tl, ORIGIN) == [
        "  2024-03-05 10:00:00.000  - c-3 left: LeaveGroup  [a.log:4]",
        "  2024-03-05 10:00:00.000  + c-2 joined  [a.log:5]",
        "  2024-03-05 10:00:00.000  + c-1 joined  [b.log:2]",
        "  2024-03-05 10:00:01.000  rebalance -> no new generation, not finished in this log: r  [a.log:1]"]


def test_a_timeline_over_25_lines_shows_its_first_12_and_last_12_and_how_many_lines_are_left_out():
    """MAX_TIMELINE = 24 lines are shown whole, and 25 (a marker would take the one line it hides); of 26, lines
    1-12, "... 2 more lines ..." (13 and 14), 15-26."""
    def left(i):
        return f"  2024-03-05 10:00:{i:02d}.000  - c-{i} left: LeaveGroup  [s.log:{i}]"

    def tl(n):
        return _timeline(departures=[Move(i * 1_000, f"c-{i}", "leave_group", "s.log", i) for i in range(1, n + 1)])

    assert timeline_lines(tl(24), ORIGIN) == [left(i) for i in range(1, 25)]
    assert timeline_lines(tl(25), ORIGIN) == [left(i) for i in range(1, 26)]
    assert timeline_lines(tl(26), ORIGIN) == [*map(left, range(1, 13)), "  ... 2 more lines ...",
                                              *map(left, range(15, 27))]


# One line of group café: too little to fit a scenario (replay.fit_scenario), so --replay says why in one line.
CAFE = ("[2026-01-01 00:00:05,000] INFO [GroupCoordinator 1]: Stabilized group café generation 4 "
        f"(__consumer_offsets-5) with 3 members{GC}\n")
CAFE_REPLAY = "only 1 line of group café: a scenario needs the group's members and what happened to them"


def test_the_replay_is_printed_after_the_report_and_replay_json_alone_prints_the_report_alone(tmp_path, capsys):
    """command.write: --replay prints the replays after the report; --replay-json writes them, prints nothing more."""
    log = tmp_path / "server.log"
    log.write_text(CAFE, encoding="utf-8")
    assert main(["diagnose", str(log)]) == EXIT_OK
    screen = capsys.readouterr().out
    assert main(["diagnose", str(log), "--replay"]) == EXIT_OK
    assert capsys.readouterr().out == f"{screen}replay of group café: cannot fit a scenario: {CAFE_REPLAY}\n"
    assert main(["diagnose", str(log), "--replay-json", str(tmp_path / "replays.json")]) == EXIT_OK
    assert capsys.readouterr().out == screen


def _in_ascii_locale(args: list[str], monkeypatch) -> int:
    """`kafkasim` in a process whose locale encoding is ASCII (LC_ALL=C, no UTF-8 mode)."""
    import os
    import subprocess

    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": "utf-8"}
    code = f"from kafkasim.analysis.cli import main; raise SystemExit(main({args!r}))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, encoding="utf-8")
    assert done.stderr == ""
    return done.returncode


def _here_with_ascii_default(args: list[str], monkeypatch) -> int:
    """`kafkasim` in this process, the diagnosis's files opened as under an ASCII locale: a file opened without
    an encoding gets ASCII (so mutation testing, which sees only this process, judges the same rule)."""
    import builtins

    from kafkasim.analysis.diagnose import command

    monkeypatch.setattr(command, "open", lambda file, mode="r", *rest, encoding=None, **kw: builtins.open(
        file, mode, *rest, encoding=encoding or "ascii", **kw), raising=False)
    return main(args)


@pytest.mark.parametrize("run", [_in_ascii_locale, _here_with_ascii_default])
def test_the_json_files_are_utf_8_whatever_the_locale_replays_indented_by_one_space_names_as_they_are(
        tmp_path, monkeypatch, run):
    """command.write/_write: the files are written as UTF-8 (the JSON keeps a group's name as it is, ensure_ascii
    off) even where the locale's encoding is ASCII (LC_ALL=C without Python's UTF-8 mode); --replay-json is
    `{"replays": [...]}` indented by one space. --json's groups are Timeline.to_json's {group, protocol, protocols,
    episodes, arrivals, departures}: the log starts with the group's "Stabilized" line, an episode of 0 ms."""
    log, out, replays = tmp_path / "server.log", tmp_path / "report.json", tmp_path / "replays.json"
    log.write_text(CAFE, encoding="utf-8")
    assert run(["diagnose", str(log), "--json", str(out), "--replay-json", str(replays)], monkeypatch) == EXIT_OK
    assert replays.read_bytes().decode("utf-8") == (
        '{\n "replays": [\n  {\n   "group": "café",\n   "error": "' + CAFE_REPLAY + '"\n  }\n ]\n}\n')
    assert json.loads(out.read_bytes().decode("utf-8")) == {"groups": [{
        "group": "café", "protocol": "classic", "protocols": ["classic"],
        "episodes": [{"start": 5000, "end": 5000, "duration_ms": 0, "generation": 4, "members": 3, "reason": None,
                      "file": str(log), "line": 1, "epoch_bump": False}],
        "arrivals": [], "departures": []}], "findings": []}


def test_read_files_keeps_every_files_rows_counts_and_problems_in_the_order_given(tmp_path):
    """diagnose.read_files: the rows and counts of each file, and a (file, problem) for each one that could not be
    read to its end, all of them, in the order the files were given."""
    from collections import Counter

    from kafkasim.analysis.diagnose import read_files
    from kafkasim.analysis.log_parser import parse_file

    for name in ("a.log", "b.log"):
        (tmp_path / name).symlink_to(tmp_path / f"missing-{name}")
    files = [str(tmp_path / "a.log"), str(INCIDENTS / "network.log"), str(tmp_path / "b.log")]
    rows, counts, problems = read_files(files)
    whole = parse_file(files[1])
    assert rows == whole.rows and len(rows) > 0
    assert counts == sum((parse_file(f).counts for f in files), Counter())
    assert problems == [(files[0], f"a symbolic link to a missing file ({tmp_path}/missing-a.log): skipped"),
                        (files[2], f"a symbolic link to a missing file ({tmp_path}/missing-b.log): skipped")]
