"""The broker-log reader is total and reads real pastes (issue 18, items 3 and 4; docs/log-reader.md).

Total: for any bytes in any file it returns the events it could read, every other coordinator line
kept aside with its file, line number and problem, and a file it cannot read (or not to its end)
reported as such; never an exception, never a hang (a FIFO is never opened for reading, a line
built to make the patterns backtrack costs linear time). A hypothesis property test throws
random and mutated input at it: dates, zones, numbers, encodings, binary junk, huge lines, damaged
gzip.

Pastes: a record without a date of its own takes its time from its neighbours (flagged
``time_inferred``); the date layouts of Kafka deployments; lines fused by a paste; terminal frames
and borders. Each form of docs/log-reader.md is tested here, and every example of that page is
read back.
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import random
import re
import stat
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kafkasim import Scenario, simulate
from kafkasim import faults as F
from kafkasim.analysis import logs as lp
from kafkasim.analysis.logs import files
from kafkasim.analysis.logs.reader import DOCKER_PIECE_BYTES, MAX_BLOCK_LINES, docker_piece
from kafkasim.analysis.logs.sources import BROKER
from kafkasim.analysis.logs import (COUNTS, MAX_KEPT_CHARS, MAX_LINE_CHARS, ROW_FIELDS, chunk_plan,
                                          count_newlines, expand_paths, parse_chunk, parse_file, parse_files,
                                          parse_lines)
from kafkasim.core.events import FIELDS

ROOT = Path(__file__).resolve().parents[1]
ORIGIN = datetime(2024, 3, 5, 20, 0, 0)
STAMP = "[2024-03-05 20:21:14,681]"
T = (21 * 60 + 14) * 1000 + 681  # STAMP in ms since ORIGIN
M1 = "consumer-1-0b1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
GRP = "kafka.coordinator.group.GroupCoordinator"
BARE = f"Member {M1} in group my-group has failed, removing it from the group"
REASON = f"removing member {M1} on heartbeat expiration"
REBALANCE = (f"Preparing to rebalance group my-group in state PreparingRebalance with old generation 4 "
             f"(__consumer_offsets-12) (reason: {REASON})")
NOISE = "[2024-03-05 20:21:10,000] INFO [ReplicaManager broker=1] Shrinking ISR (kafka.server.ReplicaManager)"
COL = {name: i for i, name in enumerate(ROW_FIELDS)}
BOX = re.compile(r"[\u2500-\u259f]")


def kafka_line(message, stamp=STAMP, prefix="[GroupCoordinator 1]: ", logger=GRP):
    return f"{stamp} INFO {prefix}{message} ({logger})"


def rows(lines, origin=ORIGIN):
    result = parse_lines(lines, origin=origin)
    return [dict(zip(ROW_FIELDS, r)) for r in result.rows], result


def check_result(result, n_lines=None):
    """What every result promises, whatever it was given."""
    assert set(result.counts) <= set(COUNTS)
    if n_lines is not None:
        assert result.counts["lines"] == n_lines
    assert result.counts["events"] == len(result.rows) and result.counts["unparsed"] == len(result.unparsed)
    for r in result.rows:
        assert len(r) == len(ROW_FIELDS)
        assert isinstance(r[0], int) and -(1 << 63) <= r[0] < (1 << 63)
        assert r[5] is None or -(1 << 31) <= r[5] < (1 << 31)
        assert r[10] is None or -(1 << 53) <= r[10] <= (1 << 53)
        assert isinstance(r[COL["time_inferred"]], bool)
        assert r[9] is None or not BOX.search(r[9]), r
    for file, line, problem, text in result.unparsed:
        assert isinstance(problem, str) and problem
        assert len(text) <= MAX_KEPT_CHARS + 40
        assert line >= 0 and (n_lines is None or line <= max(n_lines, 0))
    result.events_table()
    result.unparsed_table()
    result.events()


# -- the corpus the mutations start from ----------------------------------------------------------
def _corpus() -> list[str]:
    lines = []
    for version, consumer in (("0.10.0", {}), ("2.4", {}), ("3.7", {}), ("4.0", {}),
                              ("4.0", {"group.protocol": "consumer"})):
        run = simulate(Scenario(kafka_version=version, members=3, topics={"t": 4}, duration_ms=60_000,
                                consumer=consumer, faults=(F.Crash("c-1", 10_000), F.Pause("c-2", 30_000, 15_000))))
        lines += run.broker_log
    return sorted(set(lines), key=lines.index)


CORPUS = _corpus()
LAYOUTS = [
    lambda x: x,
    lambda x: "kafka-1  | " + x,
    lambda x: f"2024-03-05T20:21:14.690123456Z stdout F {x}",
    lambda x: "│" + x + "│",
    lambda x: x.replace("[2026-", "[26/").replace("-01 ", "/01 ", 1),
]
DATES = st.builds(lambda y, mo, d, h, mi, s, f, z: f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}{f}{z}",
                  st.integers(0, 9999), st.integers(0, 99), st.integers(0, 99), st.integers(0, 99),
                  st.integers(0, 99), st.integers(0, 99), st.sampled_from(["", ",000", ".5", ",123456789", ",12x"]),
                  st.sampled_from(["", "Z", "+01:00", "-0830", "+99:99", "-18:00", "+18:30", " UTC", " CET", "+2400",
                                   "-00"]))
NUMBERS = st.sampled_from(["2147483647", "2147483648", "-2147483649", "9223372036854775808", "1" * 30,
                           "9" * 5000, "-0", "00000000000000000000001", "١٢٣"])
JUNK = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80) | st.sampled_from(
    ["\x00\x01\x02", "\ufffd\ufffd", "│┃║╭╮", "[GroupCoordinator 1]: ", "[GroupCoordinator id=1 topic=t partition=0] ",
     " (kafka.coordinator.group.GroupCoordinator)", "(reason: ", ")", "...", "…", "\r", "\t", "{", '"', "\\u",
     "[2024-03-05 20:21:14,681] ", "24/03/05 20:21:14 ", "20:21:14 "])


@st.composite
def mutated_line(draw):
    line = LAYOUTS[draw(st.integers(0, len(LAYOUTS) - 1))](draw(st.sampled_from(CORPUS)))
    for _ in range(draw(st.integers(0, 4))):
        how = draw(st.sampled_from(["date", "number", "insert", "delete", "cut", "repeat", "surrogate"]))
        if how == "date":
            line = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}", draw(DATES), line, count=1)
        elif how == "number":
            numbers = list(re.finditer(r"\d+", line))
            if numbers:
                m = numbers[draw(st.integers(0, len(numbers) - 1))]
                line = line[:m.start()] + draw(NUMBERS) + line[m.end():]
        elif how == "insert":
            i = draw(st.integers(0, len(line)))
            line = line[:i] + draw(JUNK) + line[i:]
        elif how == "delete":
            i = draw(st.integers(0, len(line)))
            line = line[:i] + line[i + draw(st.integers(1, 40)):]
        elif how == "cut":
            line = line[:draw(st.integers(0, len(line)))]
        elif how == "repeat":  # a long line of the kind that makes patterns backtrack
            i = draw(st.integers(0, len(line)))
            j = draw(st.integers(i, len(line)))
            line = line[:i] + line[i:j] * draw(st.integers(2, 2000)) + line[j:]
        else:  # a lone surrogate, as a JSON escape may decode to
            i = draw(st.integers(0, len(line)))
            line = line[:i] + "\ud800" + line[i:]
    return line


LINES = st.lists(mutated_line() | JUNK, min_size=1, max_size=12)


@settings(max_examples=150, deadline=5000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(LINES)
def test_any_lines_give_a_result_and_lose_nothing(lines):
    lines = [x.replace("\n", " ") for x in lines]  # parse_lines takes lines split already
    result = parse_lines(lines, origin=ORIGIN)
    check_result(result, len(lines))


def _encode(text: str, how: str) -> bytes:
    if how == "utf-16":
        return text.encode("utf-16", "surrogatepass")
    if how == "latin-1":
        return text.encode("latin-1", "replace")
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=60, deadline=5000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])
@given(lines=LINES, sep=st.sampled_from(["\n", "\r\n"]), how=st.sampled_from(["utf-8", "latin-1", "utf-16"]),
       junk=st.binary(max_size=200), gz=st.sampled_from([None, "whole", "truncated", "flipped", "tail"]),
       cut=st.floats(0, 1), chunk=st.integers(64, 4096))
def test_any_bytes_in_a_file_give_a_result(tmp_path_factory, lines, sep, how, junk, gz, cut, chunk):
    data = _encode(sep.join(x.replace("\n", " ") for x in lines) + sep, how) + junk
    if gz is not None:
        data = gzip.compress(data)
        at = int(len(data) * cut)
        if gz == "truncated":
            data = data[:at]
        elif gz == "flipped" and data:
            data = data[:at] + bytes([data[min(at, len(data) - 1)] ^ 0x5A]) + data[at + 1:]
        elif gz == "tail":
            data += junk
    path = tmp_path_factory.mktemp("bytes") / "server.log"
    path.write_bytes(data)
    result = parse_file(str(path), ORIGIN)
    check_result(result)
    assert len(result.file_problems) <= 1 and result.counts["unreadable"] == len(result.file_problems)
    if gz is None and how == "utf-8":
        assert result.counts["lines"] == data.count(b"\n") + (not data.endswith(b"\n"))
    for p, start, end in chunk_plan([str(path)], chunk):  # the Spark path: byte ranges
        check_result(parse_chunk(p, start, end, count_newlines(p, 0, start), ORIGIN))


# -- named cases of the property above ------------------------------------------------------------
@pytest.mark.parametrize("stamp", ["[2024-02-30 20:21:14,681]", "[0000-01-01 00:00:00,000]", "[2024-13-45 25:61:61,000]",
                                   "[9999-12-31 23:59:59,999]", "[0001-01-01 00:00:00,000]", "[2024-03-05 20:21:14,6x1]",
                                   "[2024-03-05 24:00:00,000]", "[2024-03-05 23:59:60,000]"])
def test_impossible_dates_take_their_neighbours_time(stamp):
    evs, result = rows([NOISE, kafka_line(BARE, stamp)])
    check_result(result, 2)
    (ev,) = evs
    assert ev["kind"] == "MemberRemoved" and ev["member"] == M1
    if ev["time_inferred"]:
        assert ev["time"] == (21 * 60 + 10) * 1000  # NOISE's time
        assert any("impossible" in u[2] for u in result.unparsed)


@pytest.mark.parametrize("zone,offset_ms", [("+99:99", 0), ("+2400", 0), ("-18:30", 0), ("+18:00", -18 * 3600_000),
                                            ("Z", 0), ("+05:30", -(5 * 60 + 30) * 60_000), ("-0830", 8.5 * 3600_000)])
def test_zones_are_converted_or_reported(zone, offset_ms):
    evs, result = rows([f"2024-03-05 20:21:14,681{zone} INFO [GroupCoordinator 1]: {BARE} ({GRP})"])
    check_result(result, 1)
    assert evs[0]["time"] == T + offset_ms and not evs[0]["time_inferred"]
    assert [u[2] for u in result.unparsed] == ([] if offset_ms or zone == "Z" else
                                               [f"zone {zone} not understood: read as the log's own clock"])


def test_a_year_9999_date_with_a_zone_past_the_calendar_is_reported_not_fatal():
    evs, result = rows([NOISE, f"9999-12-31 23:59:59,999-18:00 INFO [GroupCoordinator 1]: {BARE} ({GRP})"])
    check_result(result, 2)
    assert evs[0]["time_inferred"] and "impossible date" in result.unparsed[0][2]


@pytest.mark.parametrize("generation", ["2147483648", "-2147483649", "9223372036854775808", "9" * 5000])
def test_a_generation_no_column_holds_is_left_empty_and_reported(generation):
    line = kafka_line(f"Stabilized group g generation {generation} (__consumer_offsets-3) with 3 members")
    evs, result = rows([line, kafka_line(f"Preparing to rebalance group g in state PreparingRebalance with old "
                                         f"generation {generation} (__consumer_offsets-3) (reason: x)")])
    check_result(result, 2)
    assert [(e["kind"], e["generation"]) for e in evs] == [("GenerationStabilized", None), ("RebalanceStarted", None)]
    assert [u[1] for u in result.unparsed] == [1, 2]
    assert all("out of range" in u[2] for u in result.unparsed) and result.counts["salvaged"] == 2
    assert result.events_table().column("generation").null_count == 2


def test_the_largest_generation_kafka_can_write_is_kept():
    (ev,), result = rows([kafka_line("Stabilized group g generation 2147483647 (__consumer_offsets-3)")])
    assert ev["generation"] == 2**31 - 1 and result.unparsed == []


def test_huge_member_counts_and_epochs_are_left_empty():
    evs, result = rows([kafka_line("Stabilized group g generation 5 (__consumer_offsets-3) with "
                                   "99999999999999999999 members"),
                        kafka_line("[GroupId g] Bumped group epoch to 99999999999.",
                                   prefix="[GroupCoordinator id=1 topic=__consumer_offsets partition=1] ",
                                   logger="org.apache.kafka.coordinator.group.GroupMetadataManager")])
    check_result(result, 2)
    assert [(e["kind"], e["generation"], e["value"]) for e in evs] == [("GenerationStabilized", 5, None),
                                                                      ("GroupEpochBumped", None, 99999999999.0)]


def test_json_lines_with_lone_surrogates_or_deep_nesting():
    lines = ['{"log":"' + kafka_line(BARE.replace(M1, M1 + "\\udc80")) + '\\n","stream":"\\ud800"}',
             "{" + '"a":{' * 100_000 + "[GroupCoordinator 1]: ", '{"log": 1, "x": "[GroupCoordinator 1]: "}']
    evs, result = rows(lines)
    check_result(result, 3)
    assert [(e["kind"], e["member"]) for e in evs] == [("MemberRemoved", M1 + "?")]


def test_a_fault_of_the_parser_costs_one_record_not_the_file(monkeypatch):
    def broken(m, t, ctx):
        raise RuntimeError("a bug")

    stabilized = BROKER.templates["Stabilized"][1][0]
    monkeypatch.setattr(stabilized, "build", broken)
    evs, result = rows([kafka_line(BARE), kafka_line("Stabilized group g generation 5 (__consumer_offsets-3)"),
                        kafka_line(BARE)])
    assert [e["line"] for e in evs] == [1, 3]
    assert [(u[1], u[2]) for u in result.unparsed] == [(2, "not read (RuntimeError: a bug)")]


# -- never a hang: long lines, backtracking, FIFOs ----------------------------------------------------
P = "[2024-03-05 20:21:14,681] INFO [GroupCoordinator 1]: "
P4 = "[2024-03-05 20:21:14,681] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=12] "
#: Lines built to make the patterns of 0.x (before issue 18) backtrack: each cost the old parser
#: seconds at 200 KB (quadratic, minutes at 1 MB); now a few passes over the line.
ATTACKS = {
    "rebalance reason": P + "Preparing to rebalance group " + " with old generation 1 (reason: x" * 6000,
    "leave metadata": P + "Member MemberMetadata(memberId=a, " + ") has left group  through explicit `LeaveGroup`; "
                                                                 "client reason: " * 3000,
    "removed set": P + "Group " + " removed dynamic members who haven't joined: Set(" * 4000,
    "instance id": P + "Member[group.instance.id " + ", member.id x] in group y has left" * 5000,
    "static rejoin": P + "Static member i of group " + " with unknown member id rejoins, assigning new member id a, "
                                                       "while old member id b will be" * 2000,
    "consumer group": P4 + "[GroupId " + "] Member a fenced from the group because " * 5000 + "\x00",
    "digits": P + "Preparing to rebalance group g with old generation " + "1" * 200_000 + " (reason: x",
    "prefixes": "[GroupCoordinator id=1 topic=" * 7000,
    "head dates": "2024-03-05 20:21:14" * 10_000 + " [GroupCoordinator 1]: " + BARE,
    "frames": P + "Preparing to rebalance group g" + " │ with old generation 1 │ (reason: x" * 5000,
    "fused": (kafka_line(BARE) + " ") * 800,
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_lines_built_to_backtrack_are_read_in_linear_time(name):
    line = ATTACKS[name]
    assert len(line) >= 150_000
    start = time.process_time()  # this process's CPU: the same under load, and backtracking is CPU
    result = parse_lines([line, line[:50_000]])
    seconds = time.process_time() - start
    check_result(result, 2)
    assert seconds < 2.0, f"{name}: {seconds:.2f} s for {len(line):,} characters"


def _docs_messages() -> list[str]:
    """Every example message of docs/broker-log-parser.md (one per wording and version)."""
    found = []
    for row in (ROOT / "docs" / "broker-log-parser.md").read_text().splitlines():
        if row.startswith("|"):
            found += [m.strip() for m in re.findall(r"``?([^`]{20,}?)``?(?=[ ;.,)|(]|$)", row)]
    return sorted(set(found))


def test_every_wording_repeated_after_every_word_stays_linear():
    """Each example message, its tail repeated (without its closing, so that the whole match fails
    late) after each of a few word boundaries: the kind of line that makes a pattern backtrack."""
    messages = _docs_messages()
    assert len(messages) > 100
    worst = (0.0, "")
    for message in messages:
        spaces = [m.start() for m in re.finditer(" ", message)]
        for k in spaces[::max(1, len(spaces) // 3)]:
            tail = message[k:].rstrip(").") + " ("
            line = P + message[:k] + tail * (20_000 // len(tail) + 1)
            start = time.process_time()
            parse_lines([line])
            worst = max(worst, (time.process_time() - start, line[:100]))
    assert worst[0] < 0.5, worst


def test_a_line_longer_than_the_limit_is_read_up_to_it():
    long_set = ", ".join(f"c-{i}-7f3a" for i in range(200_000))
    line = kafka_line(f"Group my-group removed dynamic members who haven't joined: Set({long_set})")
    assert len(line) > MAX_LINE_CHARS
    result = parse_lines([line, kafka_line(BARE)])
    check_result(result, 2)
    assert [u[1] for u in result.unparsed] == [1]
    assert f"a line of more than {MAX_LINE_CHARS:,} characters" in result.unparsed[0][2]
    target = kafka_line("[GroupId g] Computed a new target assignment for epoch 8 with 'uniform' assignor in 3ms: {" +
                        "ZVqm4PEeTbW1d2m6CGbOqw=[t-0, t-1], " * 40_000 + "}.",
                        prefix="[GroupCoordinator id=1 topic=__consumer_offsets partition=1] ")
    evs, result = rows([target])
    assert [(e["kind"], e["generation"], e["reason"]) for e in evs] == [("TargetAssignmentComputed", 8, "uniform")]


def test_cri_parts_past_the_line_limit_are_dropped():
    """A record that Kubernetes split into CRI parts of more than MAX_LINE_CHARS in all is read up to
    the part that passes the limit: the rest is dropped (its lines still consumed), and the record,
    cut, is kept aside."""
    half = "m" * (MAX_LINE_CHARS // 2)
    first = f"2024-03-05T20:21:14.690Z stdout P {STAMP} INFO [GroupCoordinator 1]: Member {half}"
    last = f"2024-03-05T20:21:14.690Z stdout F {half} in group my-group has failed, removing it from the group ({GRP})"
    evs, result = rows([first, last])
    assert evs == []
    assert result.unparsed == [("<lines>", 1, "truncated or unrecognised wording",
                                f"{first[:MAX_KEPT_CHARS]}… ({len(first):,} characters)")]
    assert result.counts["lines"] == 2 and result.counts["coordinator"] == 1 and result.counts["other"] == 0


def test_cri_parts_of_exactly_the_line_limit_in_all_are_read_whole():
    """The limit is inclusive: a record whose CRI parts hold MAX_LINE_CHARS characters in all (the first
    line with its CRI prefix, then each later part) is read whole, its event kept."""
    first = f"2024-03-05T20:21:14.690Z stdout P {STAMP} INFO [GroupCoordinator 1]: Member "
    tail = f" in group my-group has failed, removing it from the group ({GRP})"
    member = "m" * (MAX_LINE_CHARS - len(first) - len(tail))
    evs, result = rows([first + member, f"2024-03-05T20:21:14.690Z stdout F {tail}"])
    assert [(e["kind"], e["group"], e["member"], e["time"]) for e in evs] == [("MemberRemoved", "my-group", member, T)]
    assert result.unparsed == []


def test_a_cut_line_whose_wording_ends_in_a_free_field_is_kept_aside_not_salvaged():
    """Only a wording whose fields each end before a delimiter can be read from a cut line (Template's
    `salvage`, off unless asked for): "Pending member m is leaving group g" (GroupCoordinator.scala,
    2.x) ends with the group id, which a line cut past MAX_LINE_CHARS may have cut, so no event is kept."""
    line = kafka_line("Pending member m-1 is leaving group g " + "x" * MAX_LINE_CHARS)
    evs, result = rows([line])
    assert evs == []
    assert [u[2] for u in result.unparsed] == [
        f"truncated or unrecognised wording; a line of more than {MAX_LINE_CHARS:,} characters, read up to there"]


@pytest.mark.parametrize("line, stripped", [
    ("Member é in group g has failed", ("Member é in group g has failed", False, 0, 0)),  # no frame: as it is
    ("│  Member é in group g has failed │", ("Member é in group g has failed", True, 2, 1)),
    ("12 │ Member é in group g has failed", ("Member é in group g has failed", True, 1, 0)),  # a line number first
    ("Member é in group g has failed   ║", ("Member é in group g has failed", True, 0, 3)),
])
def test_strip_frame_removes_only_the_terminal_borders_and_counts_the_padding_inside_them(line, stripped):
    """(text, framed, spaces inside the left border, spaces inside the right border): a line with no border
    is no framed line and has no padding, so a wrap's joint is not guessed from a frame it does not have."""
    from kafkasim.analysis.logs.layouts import strip_frame
    assert strip_frame(line) == stripped


def test_a_file_of_one_endless_line_is_read_in_bounded_memory(tmp_path):
    path = tmp_path / "server.log"
    with open(path, "wb") as f:
        f.write(kafka_line(BARE).encode() + b"\n" + b"[GroupCoordinator 1]: " + b"x" * (24 << 20) + b"\n")
        f.write(kafka_line(BARE).encode() + b"\n")
    start = time.perf_counter()
    result = parse_file(str(path), ORIGIN)
    assert time.perf_counter() - start < 10
    check_result(result, 3)
    assert [r[COL["line"]] for r in result.rows] == [1, 3]
    for p, s, e in chunk_plan([str(path)], 1 << 20):
        check_result(parse_chunk(p, s, e, count_newlines(p, 0, s), ORIGIN))


def _in_time(fn, seconds=30):
    """Run fn in a thread; a hang fails the test instead of the suite."""
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("result", fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the log reader hung"
    return out["result"]


def _log_dir(tmp_path: Path) -> tuple[Path, list[str]]:
    """A log directory with every kind of entry a real one may hold, good and bad."""
    lines = simulate(Scenario(members=3, topics={"t": 4}, duration_ms=60_000,
                              faults=(F.Crash("c-1", 10_000),))).broker_log
    text = "\n".join(lines) + "\n"
    (tmp_path / "server.log").write_text(text)
    packed = gzip.compress(text.encode())
    (tmp_path / "server.log.1.gz").write_bytes(packed[:len(packed) // 2])  # truncated
    flipped = bytearray(packed)
    flipped[len(flipped) // 2] ^= 0xFF
    (tmp_path / "server.log.2.gz").write_bytes(bytes(flipped))  # corrupt
    (tmp_path / "server.log.3").write_bytes(packed)  # compressed, without .gz
    (tmp_path / "server.log.4.gz").write_text(text)  # named .gz, not compressed
    (tmp_path / "server.log.5").write_bytes(text.encode("utf-16"))  # PowerShell's `>`
    (tmp_path / "server.log.6").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())  # BOM, CRLF
    junk = random.Random(7)
    (tmp_path / "server.log.7").write_bytes(junk.randbytes(3000) + b"[GroupCoordinator 1]: \xff\xfe" + junk.randbytes(3000))
    (tmp_path / "server.log.8").write_bytes(b"")
    os.mkfifo(tmp_path / "server.log.fifo")
    os.symlink(tmp_path / "gone" / "server.log", tmp_path / "server.log.dangling")
    return tmp_path, lines


PROBLEMS = {"server.log.1.gz": "damaged gzip stream (EOFError", "server.log.2.gz": "damaged gzip stream",
            "server.log.fifo": "a FIFO (named pipe), not a log file: skipped",
            "server.log.dangling": "a symbolic link to a missing file"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_log_directory_with_bad_entries_is_read_without_hanging(tmp_path):
    folder, lines = _log_dir(tmp_path)
    files = expand_paths([folder])
    assert {os.path.basename(p) for p in files} >= {"server.log", "server.log.fifo", "server.log.dangling"}
    result = _in_time(lambda: parse_files(files, ORIGIN))
    check_result(result)
    problems = {os.path.basename(f): p for f, n, p in result.file_problems}
    assert problems.keys() == PROBLEMS.keys()
    for name, start in PROBLEMS.items():
        assert problems[name].startswith(start), problems[name]
    by_file = {os.path.basename(f): sum(1 for r in result.rows if r[COL["file"]] == f) for f in files}
    whole = by_file["server.log"]
    assert whole > 10 and by_file["server.log.3"] == by_file["server.log.4.gz"] == by_file["server.log.5"] == \
        by_file["server.log.6"] == whole
    assert 0 < by_file["server.log.1.gz"] < whole  # what was read before the damage is kept
    # the same by byte ranges, as Spark reads them
    chunked = _in_time(lambda: [parse_chunk(p, s, e, count_newlines(p, 0, s), ORIGIN) for p, s, e in
                                chunk_plan(files, 2048)])
    assert sum(len(c.rows) for c in chunked) == len(result.rows)
    assert sorted(p for c in chunked for p in c.file_problems) == sorted(result.file_problems)


def test_a_fifo_or_a_link_named_on_its_own_is_reported(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    os.symlink(tmp_path / "nowhere", tmp_path / "link")
    assert expand_paths([tmp_path / "pipe", tmp_path / "link"]) == [str(tmp_path / "pipe"), str(tmp_path / "link")]
    for name in ("pipe", "link"):
        result = _in_time(lambda: parse_file(str(tmp_path / name)))
        assert len(result.file_problems) == 1 and result.rows == []
    with pytest.raises(FileNotFoundError):
        expand_paths([tmp_path / "missing"])


def test_an_unreadable_file_is_reported(tmp_path, monkeypatch):
    path = tmp_path / "server.log"
    path.write_text(kafka_line(BARE) + "\n")
    real_open = os.open

    def refuse(p, *args, **kwargs):
        if os.fspath(p) == str(path):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    for result in (parse_file(str(path)), parse_chunk(str(path), 0, 100)):
        assert result.file_problems == [(str(path), 0, "unreadable: Permission denied")]
        assert result.counts["unreadable"] == 1
    assert chunk_plan([str(path)]) == [(str(path), 0, 0)] and count_newlines(str(path), 0, 10) == 0


def test_a_fault_of_the_parser_while_reading_a_file_is_that_files_problem(tmp_path, monkeypatch):
    path = tmp_path / "server.log"
    path.write_text(kafka_line(BARE) + "\n")

    def broken(parser, f):
        raise RuntimeError("a bug")

    monkeypatch.setattr(files, "_parse_open_file", broken)
    result = parse_file(str(path), ORIGIN)
    assert result.unparsed == [(str(path), 0, "not read (RuntimeError: a bug)", "")]
    assert result.file_problems == [(str(path), 0, "not read (RuntimeError: a bug)")]
    assert result.files == [str(path)] and result.rows == [] and result.counts == {"unparsed": 1, "unreadable": 1}


def test_the_spark_path_is_total_too(spark, tmp_path):
    from kafkasim.analysis import spark as ks

    (tmp_path / "logs").mkdir()
    folder, _ = _log_dir(tmp_path / "logs")
    with open(folder / "server.log", "a") as f:
        f.write(kafka_line("Stabilized group g generation 2147483648 (__consumer_offsets-3)") + "\n")
        f.write(f"INFO [GroupCoordinator 1]: {BARE} ({GRP})\n")
    parsed = _in_time(lambda: ks.parse_broker_logs(spark, [folder], str(tmp_path / "out")), seconds=300)
    plain = parse_files(expand_paths([folder]))
    assert {k: parsed.counts[k] for k in COUNTS} == {k: plain.counts.get(k, 0) for k in COUNTS}
    problems = parsed.unparsed.where("text = ''").collect()
    assert sorted(os.path.basename(r.file) for r in problems) == sorted(PROBLEMS)
    events = parsed.events.toPandas()
    assert len(events) == len(plain.rows) and events["time_inferred"].sum() == 1
    assert events["generation"].isna().sum() >= 1


# -- pastes (docs/log-reader.md) ----------------------------------------------------------------------
def test_a_record_without_a_date_takes_the_time_of_the_line_before_it():
    evs, result = rows([NOISE, f"INFO [GroupCoordinator 1]: {BARE} ({GRP})", kafka_line(BARE)])
    assert [(e["time"], e["time_inferred"]) for e in evs] == [((21 * 60 + 10) * 1000, True), (T, False)]
    assert result.unparsed == [] and result.counts["inferred"] == 1


def test_a_record_whose_date_was_cut_keeps_its_time_of_day():
    evs, _ = rows([kafka_line(BARE, "[2024-03-05 23:59:59,000]"), f"00:00:01,500] INFO [GroupCoordinator 1]: {BARE} ({GRP})"])
    assert [(e["time"], e["time_inferred"]) for e in evs] == [(4 * 3600_000 - 1000, False), (4 * 3600_000 + 1500, True)]


def test_the_last_millisecond_of_a_day_is_a_possible_time_of_day():
    evs, result = rows([kafka_line(BARE, "[2024-03-05 23:58:00,000]"),
                        f"23:59:59,999 INFO [GroupCoordinator 1]: {BARE} ({GRP})"])
    assert [(e["time"], e["time_inferred"]) for e in evs] == [(4 * 3600_000 - 120_000, False), (4 * 3600_000 - 1, True)]
    assert result.unparsed == []


def test_records_before_the_first_date_take_the_next_one():
    evs, result = rows([f"[GroupCoordinator 1]: {BARE}", f"20:21:10 INFO [GroupCoordinator 1]: {BARE}",
                        kafka_line(BARE)])
    assert [(e["time"], e["time_inferred"]) for e in evs] == [(T, True), (T - 4681, True), (T, False)]
    assert result.unparsed == []


def test_records_of_a_paste_without_any_date_are_kept_at_time_0():
    evs, result = rows([f"INFO [GroupCoordinator 1]: {BARE} ({GRP})"] * 2)
    assert [(e["time"], e["time_inferred"]) for e in evs] == [(0, True), (0, True)]
    assert [u[1] for u in result.unparsed] == [1, 2] and "time 0" in result.unparsed[0][2]
    evs, result = rows([f"20:21:14,681 INFO [GroupCoordinator 1]: {BARE} ({GRP})"])  # log4j's ABSOLUTE layout
    assert [(e["time"], e["time_inferred"]) for e in evs] == [(T, True)] and result.unparsed == []


@pytest.mark.parametrize("head,ms", [
    ("2024-03-05T20:21:14.681 INFO ", T),                   # ISO8601 with T
    ("2024-03-05T20:21:14,681 INFO ", T),                   # log4j2 %d{ISO8601}
    ("2024-03-05T20:21:14.681Z INFO ", T),                  # UTC (ORIGIN is read as UTC too)
    ("2024-03-05T21:21:14.681+01:00 INFO ", T),             # an offset
    ("2024-03-05 21:21:14,681+0100 INFO ", T),
    ("2024-03-05T20:21:14.681123456 INFO ", T),             # nanoseconds
    ("24/03/05 20:21:14 INFO ", T - 681),                   # Spark's and Hadoop's yy/MM/dd
    ("24/03/05 20:21:14.681 INFO ", T),
    ("2024/03/05 20:21:14 INFO ", T - 681),                 # yyyy/MM/dd
    ("05 Mar 2024 20:21:14,681 INFO ", T),                  # log4j %d{DATE}
    ("5 Mar 2024 20:21:14,681 INFO ", T),
    ("[2024-03-05 20:21:14,681] INFO ", T),                 # Kafka's own
    ("kafka-1  | 24/03/05 20:21:14 INFO ", T - 681),        # behind a container's prefix
])
def test_date_layouts_of_kafka_deployments(head, ms):
    (ev,), result = rows([f"{head}[GroupCoordinator 1]: {BARE} ({GRP})"])
    assert ev["time"] == ms and not ev["time_inferred"] and result.unparsed == []


def test_a_syslog_date_without_a_year_takes_the_day_from_its_neighbours():
    evs, _ = rows([NOISE, f"Mar  5 20:21:14 broker1 kafka[2211]: [GroupCoordinator 1]: {BARE}"])
    assert [(e["time"], e["time_inferred"]) for e in evs] == [(T - 681, True)]


@pytest.mark.parametrize("between", ["", " ", "  ", "\t"])
def test_two_records_fused_by_a_paste_are_split(between):
    second = kafka_line(REBALANCE, "[2024-03-05 20:21:15,000]")
    evs, result = rows([kafka_line(BARE) + between + second])
    assert [(e["kind"], e["time"], e["line"]) for e in evs] == [("MemberRemoved", T, 1), ("RebalanceStarted", T + 319, 1)]
    assert evs[1]["reason"] == REASON and result.unparsed == [] and result.counts["split"] == 1
    assert [e["seq"] for e in evs] == [1_000_000, 1_000_001]


def test_fused_records_of_every_kind():
    logger_before = f"2024-03-05T20:21:14.681 INFO [{GRP}] [GroupCoordinator 1]: "
    evs, result = rows([
        kafka_line(BARE) + NOISE,                                # a record, then another logger's line
        NOISE + kafka_line(BARE),                                # another logger's line, then a record
        logger_before + BARE + logger_before + REBALANCE,        # the layout without a logger at the end
        logger_before + BARE + NOISE,
        kafka_line(BARE) + kafka_line(BARE) + kafka_line(BARE),  # three
        kafka_line(BARE) + f"INFO [GroupCoordinator 1]: {BARE} ({GRP})",  # the second without its date
    ])
    assert [(e["line"], e["kind"], e["time_inferred"]) for e in evs] == [
        (1, "MemberRemoved", False), (2, "MemberRemoved", False), (3, "MemberRemoved", False),
        (3, "RebalanceStarted", False), (4, "MemberRemoved", False)] + [(5, "MemberRemoved", False)] * 3 + [
        (6, "MemberRemoved", False), (6, "MemberRemoved", True)]
    assert all(e["time"] == T for e in evs if e["kind"] == "MemberRemoved")
    assert result.unparsed == []


def test_a_fused_record_begins_right_after_the_logger_name_before_it():
    """Also after a record whose message is empty: what comes between the logger name and the next
    record (a space) is the next record's, as its text in ``unparsed`` shows."""
    second = kafka_line("Preparing to explode group g", "[2024-03-05 20:21:15,000]")
    for first, kinds in ((kafka_line(BARE), ["MemberRemoved"]), (kafka_line(""), [])):
        evs, result = rows([first + " " + second])
        assert [(e["kind"], e["time"], e["line"]) for e in evs] == [(kind, T, 1) for kind in kinds]
        assert result.unparsed == [("<lines>", 1, "unrecognised wording", " " + second)]
        assert result.counts["split"] == 1 and result.counts["coordinator"] == 2


def test_a_record_split_off_a_fused_line_is_counted_even_when_its_wording_is_not_read():
    """`split` counts every record cut off another line fused onto it by a paste, one the reader ignores too (a
    coordinator line of a wording it has no template for): the cut is in the file whatever the record said.
    (Both without `(%c)`: the second, another logger's, starts at its date.)"""
    ignored = "2024-03-05 20:21:14,681 INFO [GroupCoordinator 1]: Scheduling unloading of offsets and group metadata"
    for first, ignores in ((ignored, 1), (f"2024-03-05 20:21:14,681 INFO [GroupCoordinator 1]: {BARE}", 0)):
        _, result = rows([f"{first} 2024-03-05 20:21:15,000 INFO Rolled new log segment at offset 7"])
        assert (result.counts["split"], result.counts["ignored"], result.counts["coordinator"]) == (1, ignores, 1)


def test_a_fused_record_without_a_date_or_a_logger_name_is_split_before_its_level():
    """A layout without `(%c)`, the second record's date lost in the paste: the first record ends
    before the level word of the second, which takes the first one's time."""
    evs, result = rows([f"2024-03-05 20:21:14,681 INFO [GroupCoordinator 1]: {BARE} INFO [GroupCoordinator 1]: {BARE}"])
    assert [(e["kind"], e["member"], e["reason"], e["time"], e["time_inferred"]) for e in evs] == [
        ("MemberRemoved", M1, "session_timeout", T, False), ("MemberRemoved", M1, "session_timeout", T, True)]
    assert result.unparsed == [] and result.counts["split"] == 1


@pytest.mark.parametrize("frame", [lambda x: f"│{x}│", lambda x: f"│ {x}      │", lambda x: f"┃ {x} ┃",
                                   lambda x: f"║{x}║", lambda x: f"  12 │ {x}", lambda x: f"{x}   │",
                                   lambda x: f"│ {x.replace(' (reason', ' │ │ (reason')} │"])
def test_terminal_frames_are_stripped(frame):
    (ev,), result = rows([frame(kafka_line(REBALANCE))])
    assert ev["reason"] == REASON and ev["generation"] == 4 and result.unparsed == []


@pytest.mark.parametrize("pad", [0, 1])
@pytest.mark.parametrize("width", [80, 97, 100, 131])
def test_wrapped_lines_in_a_frame_are_joined_without_their_borders(width, pad):
    """A terminal UI (k9s) wraps a line at its width and draws its border on every row; the space
    at a break is kept when the row shows it (before the right border or after the left one)."""
    line = kafka_line(REBALANCE)
    rows_ = [line[i:i + width] for i in range(0, len(line), width)]
    space = " " * pad
    framed = [f"│{space}{r.ljust(width)}{space}│" for r in rows_]
    evs, result = rows([NOISE, *framed, NOISE])
    assert [(e["kind"], e["generation"], e["reason"]) for e in evs] == [("RebalanceStarted", 4, REASON)]
    assert result.counts["joined"] == 1 and result.unparsed == []
    joined = [f"│{space}{r.ljust(width)}{space}│" for r in rows_]
    (ev,), _ = rows(["".join(joined)])  # the rows pasted onto one line, borders and all
    assert ev["reason"] == REASON


def test_the_reason_never_keeps_a_frame_character():
    line = kafka_line(REBALANCE)
    for cut in range(60, len(line) - 20, 7):
        evs, _ = rows([f"│{line[:cut]}│", f"│{line[cut:]}│"])
        assert [e["reason"] for e in evs] == [REASON], cut


def test_frames_on_lines_joined_with_their_continuation_by_a_paste():
    line = kafka_line(REBALANCE)
    evs, _ = rows([f"│ {line[:120]} ││ {line[120:]} │"])
    assert [e["reason"] for e in evs] == [REASON]


def test_a_frame_that_cut_a_word_is_joined_without_its_spaces():
    """A frame with spaces around it (wider than the left border's padding) reads as a space first;
    the join without one is tried too, and kept when only it reads whole."""
    line = kafka_line(REBALANCE)
    k = line.index("generation") + 5
    (ev,), result = rows([f"│{line[:k]} │ {line[k:]}│"])
    assert [ev[f] for f in FIELDS] == [T, "coordinator", "my-group", None, "RebalanceStarted", 4, None, None, None,
                                       REASON, None, "PreparingRebalance"]
    assert result.unparsed == []


def test_the_joins_of_a_framed_line_flip_the_first_breaks_in_binary_order_each_text_once():
    """`layouts.joins`: the likelier joint at every break (its separator as cut), then each combination
    of the other joint ("" for " ", " " for "") at the first `tries` breaks, break 0 as the lowest bit."""
    from kafkasim.analysis.logs.layouts import joins
    assert joins(["a", "b", "c"], [" ", ""], 2) == ["a bc", "abc", "a b c", "ab c"]
    assert joins(["a", "b", "c"], [" ", ""], 1) == ["a bc", "abc"]  # the second break keeps its likelier joint
    assert joins(["a", "b"], [" "], 0) == ["a b"]


def test_a_line_with_more_frame_breaks_than_a_wrapped_record_has_is_joined_the_likelier_way_only():
    """Past MAX_FRAME_BREAKS breaks in one line, only one joint per break is tried (a space where the frame
    had spaces around it): the one reading is the line."""
    from kafkasim.analysis.logs.layouts import MAX_FRAME_BREAKS
    words = REBALANCE.split(" ")
    framed = " │ ".join([" ".join(words[:3]), *words[3:3 + MAX_FRAME_BREAKS], " ".join(words[3 + MAX_FRAME_BREAKS:])])
    assert framed.count("│") == MAX_FRAME_BREAKS + 1
    (ev,), result = rows([kafka_line(framed)])
    assert (ev["kind"], ev["generation"], ev["reason"]) == ("RebalanceStarted", 4, REASON)
    assert result.unparsed == []


# (kind, complete, events) of each reading of a framed line, as `_try` would answer them: a whole record
# (events, not a salvage) beats one that is not; then a complete one (ended with its logger name); then the
# most events; the first on a tie.
_WHOLE, _SALVAGE = (lp.reader._EVENTS, False), (lp.reader._EVENTS, True)


@pytest.mark.parametrize("readings, best", [
    ({"a": (*_SALVAGE, True, 3), "b": (*_WHOLE, False, 1)}, "b"),  # whole beats a salvage, however complete
    ({"a": (lp.reader._OTHER, False, True, 0), "b": (*_WHOLE, False, 1)}, "b"),  # whole beats no events
    ({"a": (*_WHOLE, False, 3), "b": (*_WHOLE, True, 1)}, "b"),  # then complete beats more events
    ({"a": (*_WHOLE, True, 1), "b": (*_WHOLE, True, 2)}, "b"),  # then the most events
    ({"a": (lp.reader._OTHER, False, True, 0), "b": (*_SALVAGE, True, 1)}, "b"),  # a salvage has events
    ({"a": (*_WHOLE, True, 2), "b": (*_WHOLE, True, 2)}, "a"),  # the first on a tie
    ({"a": (lp.reader._OTHER, False, True, 0), "b": (lp.reader._OTHER, False, True, 0)}, "a"),
])
def test_of_several_readings_of_a_framed_line_the_whole_complete_one_with_most_events_is_kept(readings, best):
    parser = lp.LogParser()
    parser._recent["kept"] = 1

    def reading(text):
        kind, partial, complete, n = readings[text]
        parser._recent["tried"] = text  # a try may note what it read: forgotten before the next one
        events = [("event",)] * n if kind == lp.reader._EVENTS else None
        return (kind, complete, events, None, 0, False, None, False, partial, ("broker", None))

    parser._try = reading
    assert parser._best_of(list(readings)) == best
    assert parser._best_of([best]) == best
    assert dict(parser._recent) == {"kept": 1}


@pytest.mark.parametrize("how", ["json_escape", "cri_part"])
def test_box_characters_of_a_line_read_all_in_ascii_are_the_records_own_not_a_frame(how):
    """A terminal draws its frame on every row it shows, so a line whose characters are all ASCII as
    read was copied out of no frame. Box characters that only its JSON escapes (Fluent Bit's JSON
    output writes every non-ASCII character as `\\uXXXX`) or a later CRI part bring are the record's
    own: a group id may hold any character (GroupCoordinator.isValidGroupId: non-empty only)."""
    line = kafka_line(BARE.replace("my-group", "orders\u2502eu"))
    if how == "json_escape":
        lines = [json.dumps({"log": line + "\n", "stream": "stdout", "time": "2024-03-05T20:21:14.681234567Z"})]
    else:
        k = line.index(" in group")
        lines = [f"2024-03-05T20:21:14.690Z stdout P {line[:k]}", f"2024-03-05T20:21:14.690Z stdout F {line[k:]}"]
    assert lines[0].isascii()
    (ev,), result = rows(lines)
    assert [ev[f] for f in ("time", "group", "member", "kind", "reason")] == [
        T, "orders\u2502eu", M1, "MemberRemoved", "session_timeout"]
    assert result.unparsed == [] and result.counts["lines"] == len(lines)


# -- JSON records: Docker's pieces of a long line, shippers' whole records -------------------------
DOCKER_TIME = "2024-03-05T20:21:14.681234567Z"
REBALANCE_AT = "[2024-03-05 20:21:15,002]"
T_REBALANCE = T + 321
#: 700 members who did not rejoin a rebalance (GroupCoordinator.scala `onCompleteJoin`, 2.8+, one line for all of
#: them): 35,748 bytes, 3 entries when Docker writes it (two full pieces and the rest).
NOT_REJOINED = [f"consumer-{i}-0b1b2c3d-4e5f-4a6b-8c7d-{i:012x}" for i in range(700)]
NOT_REJOINED_LINE = kafka_line(f"Group my-group removed dynamic members who haven't joined: "
                               f"Set({', '.join(NOT_REJOINED)})")


def docker_entries(line: str, driver: str = "json-file", stream: str = "stdout") -> list[str]:
    """The JSON lines Docker writes for one line its container printed (moby daemon/logger/copier.go):
    the line's bytes cut into pieces of DOCKER_PIECE_BYTES, one entry each. json-file keeps the
    line's newline on the last piece only (an empty one when the line fills its pieces exactly);
    the fluentd driver keeps no newline and says which piece is which (fluentd.go `Log`, as
    Fluentd's out_file `format json` writes the records). A byte that is no whole character is
    written as U+FFFD: "replace" does so for the 2-byte characters these tests cut."""
    raw = line.encode()
    logs = [raw[i:i + DOCKER_PIECE_BYTES].decode("utf-8", "replace")
            for i in range(0, len(raw) + 1, DOCKER_PIECE_BYTES)]
    if driver == "json-file":
        logs[-1] += "\n"
        return [json.dumps({"log": log, "stream": stream, "time": DOCKER_TIME}) for log in logs]
    return [json.dumps({"container_id": "9f3c", "container_name": "/kafka-1", "source": stream, "log": log,
                        "partial_message": "true", "partial_id": "5e1a", "partial_ordinal": str(i),
                        "partial_last": str(i == len(logs)).lower()}) for i, log in enumerate(logs, 1)]


# Records one a line whose "log" has no newline, as each writer does: Fluent Bit's tail input (its
# default `Key log`), Fluent Bit's built-in CRI parser (flb_ml_parser_cri.c: time, stream, _p, log),
# Docker's fluentd driver (a line that fits one piece: no partial fields), and Docker's json-file
# for the last bytes of a stream that ended without a newline (copier.go: a piece of no full size).
WHOLE_RECORDS = {
    "fluent_bit_tail": lambda line: {"log": line},
    "fluent_bit_cri": lambda line: {"time": DOCKER_TIME, "stream": "stdout", "_p": "F", "log": line},
    "docker_fluentd_driver": lambda line: {"container_id": "9f3c", "container_name": "/kafka-1", "source": "stdout",
                                           "log": line},
    "docker_json_file_stream_end": lambda line: {"log": line, "stream": "stdout", "time": DOCKER_TIME},
}


def test_a_docker_piece_is_exactly_16_kib_as_written_without_a_newline():
    """Docker cuts a long line where its copier's buffer (16 KiB) is full; every other "log" it writes
    ends in a newline or is shorter. Each U+FFFD may stand for one byte Docker wrote so (a character
    the cut split), or be a whole character of three bytes."""
    n = 16 * 1024
    assert [docker_piece("x" * k) for k in (n - 1, n, n + 1)] == [False, True, False]
    assert not docker_piece("x" * (n - 1) + "\n") and not docker_piece("x" * n + "\n")
    assert docker_piece("x" * (n - 2) + "\u00fc")  # a whole 2-byte character at the end of the piece
    assert docker_piece("x" * (n - 1) + "\ufffd")  # the first byte of a character the cut split
    assert docker_piece("x" * (n - 3) + "\ufffd")  # a U+FFFD the container printed (3 bytes)
    assert not docker_piece("x" * (n - 2) + "\ufffd")  # 16 KiB less 1 byte, or 1 more
    assert not docker_piece("x" * (n + 1) + "\ufffd")  # 16 KiB and 2 or 4 bytes more
    assert not docker_piece("x" * n + "\ufffd" * 2)  # 16 KiB and 2 to 6 bytes more
    assert not docker_piece("\udc80")  # a lone surrogate a JSON escape brings is counted, not a fault


@pytest.mark.parametrize("shape", WHOLE_RECORDS)
def test_json_records_whose_log_has_no_newline_are_whole_records_each_on_its_own_line(shape):
    """A "log" without a newline is a piece of a longer line only when it is Docker's full piece:
    a short one is a whole record, read on its own line number, never joined with the next record
    (so never split off it again: `split` stays 0)."""
    lines = [json.dumps(WHOLE_RECORDS[shape](kafka_line(BARE))),
             json.dumps(WHOLE_RECORDS[shape](kafka_line(REBALANCE, REBALANCE_AT)))]
    evs, result = rows(lines)
    assert [(e["time"], e["kind"], e["group"], e["member"], e["reason"], e["line"]) for e in evs] == [
        (T, "MemberRemoved", "my-group", M1, "session_timeout", 1),
        (T_REBALANCE, "RebalanceStarted", "my-group", None, REASON, 2)]
    assert result.unparsed == []
    assert (result.counts["lines"], result.counts["coordinator"], result.counts["split"]) == (2, 2, 0)


@pytest.mark.parametrize("driver", ["json-file", "fluentd"])
def test_a_line_docker_cut_into_pieces_is_joined_up_to_its_last_piece(driver):
    """A line of 700 members who did not rejoin is 3 entries: two full pieces and the rest. They are
    read as one record on the first entry's line; the record after them keeps its own."""
    pieces = docker_entries(NOT_REJOINED_LINE, driver)
    assert len(NOT_REJOINED_LINE) == 35_748 and len(pieces) == 3
    evs, result = rows(pieces + docker_entries(kafka_line(REBALANCE, REBALANCE_AT), driver))
    assert [(e["time"], e["kind"], e["member"], e["reason"], e["line"]) for e in evs] == [
        (T, "MemberRemoved", m, "rebalance_timeout", 1) for m in NOT_REJOINED] + [
        (T_REBALANCE, "RebalanceStarted", None, REASON, 4)]
    assert result.unparsed == []
    assert (result.counts["lines"], result.counts["coordinator"], result.counts["split"]) == (4, 2, 0)


def test_an_entry_after_a_joined_line_is_a_record_of_its_own_kept_aside_without_its_newline():
    """The entry after a line's last piece starts a record: one of a wording not read is kept aside on
    its own line, its message without the newline json-file wrote."""
    bad = kafka_line("Preparing to explode group g")
    evs, result = rows(docker_entries(NOT_REJOINED_LINE) + docker_entries(bad))
    assert {(e["kind"], e["line"]) for e in evs} == {("MemberRemoved", 1)} and len(evs) == len(NOT_REJOINED)
    assert result.unparsed == [("<lines>", 4, "unrecognised wording", bad)]
    assert (result.counts["lines"], result.counts["coordinator"]) == (4, 2)


def _exactly(size: int) -> str:
    """A Kafka line of exactly `size` characters (ASCII: as many bytes), its group name the padding."""
    without_group = kafka_line(f"Member {M1} in group  has failed, removing it from the group")
    group = "g" * (size - len(without_group))
    return kafka_line(f"Member {M1} in group {group} has failed, removing it from the group")


def test_a_line_that_fills_its_pieces_exactly_ends_with_an_entry_of_its_newline_alone():
    """A line of exactly 16 KiB fills a piece; its newline comes alone in the next entry. Joined, read
    on the first line; the record after it keeps its own."""
    line = _exactly(DOCKER_PIECE_BYTES)
    group = line.split(" in group ")[1].split()[0]  # the padding
    pieces = docker_entries(line)
    assert len(line) == DOCKER_PIECE_BYTES and [json.loads(p)["log"] for p in pieces] == [line, "\n"]
    evs, result = rows(pieces + docker_entries(kafka_line(REBALANCE, REBALANCE_AT)))
    assert [(e["time"], e["kind"], e["group"], e["member"], e["line"]) for e in evs] == [
        (T, "MemberRemoved", group, M1, 1), (T_REBALANCE, "RebalanceStarted", "my-group", None, 3)]
    assert result.unparsed == [] and result.counts["split"] == 0


def test_a_piece_cut_inside_a_character_is_joined_and_the_character_lost():
    """Docker cuts at 16 KiB of bytes, so a cut may split a character: it writes each of its bytes as
    U+FFFD (two here, one on each side of the cut). The piece is still a piece, and joined."""
    prefix = f"{STAMP} INFO [GroupCoordinator 1]: Member {M1} in group "
    group = "g" * (DOCKER_PIECE_BYTES - len(prefix) - 1) + "\u00fcber"  # ü's first byte ends the piece
    line = kafka_line(f"Member {M1} in group {group} has failed, removing it from the group")
    pieces = docker_entries(line)
    assert json.loads(pieces[0])["log"].endswith("g\ufffd") and json.loads(pieces[1])["log"].startswith("\ufffdber")
    (ev,), result = rows(pieces)
    assert (ev["time"], ev["kind"], ev["group"], ev["member"], ev["line"]) == (
        T, "MemberRemoved", group.replace("\u00fc", "\ufffd\ufffd"), M1, 1)
    assert result.unparsed == [] and result.counts["split"] == 0


def test_a_piece_is_joined_only_with_an_entry_of_its_own_stream():
    """Docker copies stdout and stderr each on its own (copier.go: a goroutine a stream), so another
    stream's entry may come between two pieces of a line. The pieces are not joined across it (as
    Fluent Bit's `docker` multiline parser groups by `stream`): the other stream's record keeps its
    line, and the cut piece is kept aside on its own."""
    first, *rest = docker_entries(NOT_REJOINED_LINE)
    evs, result = rows([first, *docker_entries(kafka_line(REBALANCE, REBALANCE_AT), stream="stderr"), *rest])
    assert [(e["time"], e["kind"], e["reason"], e["line"]) for e in evs] == [
        (T_REBALANCE, "RebalanceStarted", REASON, 2)]
    assert [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated or unrecognised wording")]
    assert result.counts["split"] == 0


def test_a_file_that_ends_on_a_piece_reads_that_piece_as_it_is():
    """The copy stopped after a full piece, before the entry of its newline: nothing follows to join,
    and the piece is read on its own line."""
    first, newline = docker_entries(_exactly(DOCKER_PIECE_BYTES))
    assert json.loads(newline)["log"] == "\n"
    evs, result = rows([first])
    assert [(e["time"], e["kind"], e["member"], e["line"]) for e in evs] == [(T, "MemberRemoved", M1, 1)]
    assert result.unparsed == [] and (result.counts["lines"], result.counts["coordinator"]) == (1, 1)


@pytest.mark.parametrize("after,expected", [(kafka_line(REBALANCE, REBALANCE_AT), [("RebalanceStarted", 2)]),
                                            ("[1, 2]", [])], ids=["plain text", "JSON but no object"])
def test_a_piece_followed_by_no_json_record_is_read_alone_and_the_next_line_on_its_own(after, expected):
    """A piece is joined only with JSON records of its stream: a line of text, or JSON that is not an
    object, after it ends the piece there, and is read on its own line number."""
    first, _ = docker_entries(_exactly(DOCKER_PIECE_BYTES))
    evs, result = rows([first, after])
    assert [(e["kind"], e["line"]) for e in evs] == [("MemberRemoved", 1), *expected]
    assert result.unparsed == [] and result.counts["lines"] == 2 and result.counts["other"] == 1 - len(expected)


def test_a_line_of_max_line_chars_is_still_joined_with_its_newline():
    """Pieces are joined while the line so far is no longer than MAX_LINE_CHARS, the bound of any line:
    a line of exactly that size (64 full pieces) still gets its newline entry, so no entry is left over."""
    pieces = docker_entries(_exactly(MAX_LINE_CHARS))
    assert len(pieces) == MAX_LINE_CHARS // DOCKER_PIECE_BYTES + 1 == 65
    evs, result = rows(pieces + docker_entries(kafka_line(REBALANCE, REBALANCE_AT)))
    assert [(e["kind"], e["line"]) for e in evs] == [("MemberRemoved", 1), ("RebalanceStarted", 66)]
    assert (result.counts["lines"], result.counts["coordinator"], result.counts["other"]) == (66, 2, 0)


@pytest.mark.parametrize("end", [" \t", "X", "\r"])
def test_a_json_records_message_loses_its_line_end_only(end):
    """The newline Docker keeps in "log" (and a CR before it) goes; the rest of the message is kept as
    written, blanks and letters at its end included, in what is kept aside."""
    bad = kafka_line("Preparing to explode group g") + end
    evs, result = rows([json.dumps({"log": bad + "\n", "stream": "stdout", "time": DOCKER_TIME})])
    assert evs == [] and result.unparsed == [("<lines>", 1, "unrecognised wording", bad.rstrip("\r"))]


def test_a_message_starting_with_a_date_out_of_the_readers_sight_is_not_its_own_time():
    """Only the last 512 characters before the source's prefix are searched for a date: a record whose
    date is further back (a long thread name) has no time of its own, and a JSON record with no other
    string is given none either (the message is not taken for a shipper's time)."""
    message = f"2024-03-05 20:21:14,681 INFO [{'t' * 600}] [GroupCoordinator 1]: {BARE}"
    evs, result = rows([json.dumps({"log": message})])
    assert [(e["time"], e["kind"], e["time_inferred"], e["line"]) for e in evs] == [(0, "MemberRemoved", True, 1)]
    assert [u[2].split(":")[0] for u in result.unparsed] == ["no date and time in this line or the lines around it"]


# -- every example of docs/log-reader.md ------------------------------------------------------------
def _doc_examples() -> list[tuple[str, list[str]]]:
    """(title, lines) of every ```log block of the page, with the kinds its `reads as` line names."""
    text = (ROOT / "docs" / "log-reader.md").read_text()
    return re.findall(r"```log\n(.*?)```\n+reads as: `([^`]*)`", text, re.S)


@pytest.mark.parametrize("block,expected", _doc_examples())
def test_every_example_of_the_docs_page_reads_as_it_says(block, expected):
    result = parse_lines(block.rstrip("\n").split("\n"), origin=datetime(2024, 3, 5))
    check_result(result)
    got = [(r[4], r[COL["time_inferred"]]) for r in result.rows]
    want = [(k.rstrip("*"), k.endswith("*")) for k in expected.split(", ")]
    assert got == want, (block, result.unparsed)


def test_the_docs_page_has_an_example_of_each_form():
    assert len(_doc_examples()) >= 12


def test_a_whole_paste_may_be_given_as_one_string():
    result = parse_lines(f"{NOISE}\nINFO [GroupCoordinator 1]: {BARE} ({GRP})\n{kafka_line(BARE)}\n", origin=ORIGIN)
    assert [(r[4], r[COL["line"]], r[COL["time_inferred"]]) for r in result.rows] == [("MemberRemoved", 2, True),
                                                                                      ("MemberRemoved", 3, False)]
    assert result.counts["lines"] == 3


def test_a_line_past_the_limit_is_kept_aside_even_when_its_wording_is_not_read():
    """Scanned-regexes lines are read as no event; one cut at MAX_LINE_CHARS is still reported, with
    the limit it passed (what was past it is unknown)."""
    regexes = ", ".join(f"orders-{i}-.*" for i in range(120_000))
    line = kafka_line(f"[GroupId my-group] Scanned 42 topics to refresh regular expressions [{regexes}] in 1ms.",
                      prefix="[GroupCoordinator id=1 topic=__consumer_offsets partition=1] ",
                      logger="org.apache.kafka.coordinator.group.GroupMetadataManager")
    assert len(line) > MAX_LINE_CHARS
    evs, result = rows([line])
    assert evs == [] and result.counts["ignored"] == 0
    assert result.unparsed == [("<lines>", 1, f"a line of more than {MAX_LINE_CHARS:,} characters, read up to there",
                                f"{line[:MAX_KEPT_CHARS]}… ({MAX_LINE_CHARS:,} characters)")]  # the part read


def test_a_time_reads_the_same_alone_and_after_a_line_of_the_same_second():
    """The fast path for a second already read takes three ASCII digits of milliseconds after a
    space-separated date, as the full pattern does; other heads are read by the pattern either way."""
    for head, ms in [("[2024-03-05 20:21:14,+12]", 0), ("[2024-03-05 20:21:14,1_2]", 100),
                     ("[2024-03-05X20:21:14,681]", 681)]:
        later = kafka_line(BARE).replace(STAMP, head)
        alone, after = rows([later]), rows([kafka_line(BARE), later])
        assert [e["time"] for e in alone[0]] == [T - 681 + ms]
        assert [e["time"] for e in after[0]] == [T, T - 681 + ms]


# -- Kubernetes CRI parts (the CRI log format: `<time> <stream> <P|F> <text>`, P a partial line whose
#    next entries carry the rest up to the F entry, each entry ending in its own newline) -----------
CRI_TIME = "2024-03-05T20:21:14.690Z"


def cri_parts(text, cuts, end="", tag_last="F"):
    """`text` cut at `cuts` into CRI entries: P for all but the last, `tag_last` for the last."""
    pieces = [text[a:b] for a, b in zip((0, *cuts), (*cuts, len(text)))]
    return [f"{CRI_TIME} stdout {'P' if i < len(pieces) - 1 else tag_last} {piece}{end}"
            for i, piece in enumerate(pieces)]


@pytest.mark.parametrize("after", [" ", "X"])
def test_a_cri_part_keeps_its_last_character_whatever_it_is(after):
    """A CRI part ends where the runtime cut the line, in any character; only the entry's own line
    ending is not the record's. A middle part cut right after a space, or after an "X" of the member
    id, joins with the next into the record as written."""
    member = "consumer-1-X" + M1[10:]
    line = kafka_line(f"Member {member} in group my-group has failed, removing it from the group")
    cut = line.index(f"Member {member}") + (len("Member ") if after == " " else len("Member consumer-1-X"))
    assert line[cut - 1] == after
    evs, result = rows(cri_parts(line, [line.index("]: ") + 3, cut]))  # the first part names the coordinator
    assert [(e["kind"], e["member"], e["time"]) for e in evs] == [("MemberRemoved", member, T)]
    assert result.unparsed == []


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_cri_parts_read_with_their_line_endings_lose_only_those(end):
    """Lines read from a file keep their "\\n" (or "\\r\\n" from a Windows copy): a middle part's ending is
    removed, not its first characters, so the three parts join into the one record."""
    line = kafka_line(BARE)
    evs, result = rows(cri_parts(line, [70, 140], end=end))
    assert [(e["kind"], e["member"], e["time"]) for e in evs] == [("MemberRemoved", M1, T)]
    assert result.unparsed == []


def test_a_cri_record_ends_at_its_f_entry_and_counts_each_entry_as_a_line():
    """The F entry is a record's last: the full CRI entry after it (another logger's line) is read on
    its own, and the record after that starts at line 6, its four entries being lines 1 to 4."""
    first = kafka_line(BARE)
    second = kafka_line(f"Member {M1[:-1]}5 in group my-group has failed, removing it from the group",
                        stamp="[2024-03-05 20:21:15,681]")
    lines = cri_parts(first, [40, 80, 120]) + cri_parts(NOISE, []) + cri_parts(second, [])
    evs, result = rows(lines)
    assert [(e["member"], e["time"], e["line"]) for e in evs] == [(M1, T, 1), (M1[:-1] + "5", T + 1000, 6)]
    assert (result.counts["lines"], result.counts["coordinator"], result.counts["other"]) == (6, 2, 1)
    assert result.unparsed == []


def test_a_line_after_a_cri_part_that_is_no_cri_entry_is_read_as_its_own_record():
    """The entry after a P part is not a CRI entry (another source mixed in, or the rest lost): the
    parts read so far are the record, and that line is read on its own, as line 3."""
    first = kafka_line(BARE)
    second = kafka_line(f"Member {M1[:-1]}5 in group my-group has failed, removing it from the group",
                        stamp="[2024-03-05 20:21:15,681]")
    evs, result = rows(cri_parts(first, [70], tag_last="P") + [second])
    assert [(e["member"], e["time"], e["line"]) for e in evs] == [(M1, T, 1), (M1[:-1] + "5", T + 1000, 3)]
    assert result.counts["lines"] == 3 and result.unparsed == []


def test_cri_parts_at_the_end_of_the_input_without_their_f_entry_are_the_record():
    """A file that ends inside a split line (a container stopped, a log rotated between the parts):
    the parts read are the record."""
    evs, result = rows(cri_parts(kafka_line(BARE), [70], tag_last="P"))
    assert [(e["kind"], e["member"], e["time"]) for e in evs] == [("MemberRemoved", M1, T)]
    assert result.unparsed == []


def test_a_json_records_epoch_time_is_a_date_from_1e9_seconds_or_1e12_milliseconds_below_1e11_seconds():
    """`layouts.key_values`: a number of 10^12 or more in "ts"/"time" is milliseconds (zap's
    EpochMillisTimeEncoder), below that seconds (zap's default EpochTimeEncoder); a date only from 10^9 s
    (2001-09-09T01:46:40Z) up to, not including, 10^11 s; any other number stays as it was written."""
    from kafkasim.analysis.logs.layouts import key_values
    assert key_values({"ts": 10**9, "msg": "m"}) == "ts=2001-09-09T01:46:40.000Z msg=m"
    assert key_values({"ts": 10**12, "msg": "m"}) == "ts=2001-09-09T01:46:40.000Z msg=m"
    assert key_values({"time": 1709670074681, "msg": "m"}) == "time=2024-03-05T20:21:14.681Z msg=m"
    assert key_values({"ts": 10**9 - 1, "msg": "m"}) == "ts=999999999 msg=m"
    assert key_values({"ts": 10**11, "msg": "m"}) == "ts=100000000000 msg=m"
    assert key_values({"ts": 10**14, "msg": "m"}) == "ts=100000000000000 msg=m"
    assert key_values({"ts": 10**11 - 1, "msg": "m"}) == "ts=5138-11-16T09:46:39.000Z msg=m"


def test_a_json_records_non_ascii_text_is_kept_as_written_not_escaped():
    """Go writes UTF-8 as it is: encoding/json for a value that is no string, slog's TextHandler
    (strconv.Quote keeps printable runes) when it quotes; so "é" stays "é", never "\\u00e9"."""
    from kafkasim.analysis.logs.layouts import key_values
    assert key_values({"msg": "réquête reçue", "topics": ["commandes-é"]}) == \
        'msg="réquête reçue" topics="[\\"commandes-é\\"]"'


def test_a_time_of_day_goes_on_the_day_that_puts_it_within_12_hours_of_its_neighbour():
    """`Clock._on_day_of(ref, tod)`: the instant at time of day `tod` nearest to `ref`, the neighbour's time;
    exactly 12 hours away it stays on the neighbour's day; in ms since the origin, floored as a dated
    line's time is (an origin 1 µs past midnight puts 01:00 at 3,599,999 ms)."""
    from types import SimpleNamespace
    from kafkasim.analysis.logs.clock import Clock
    hour, day = 3_600_000, 86_400_000
    on = Clock._on_day_of

    def at(ref, tod, origin=datetime(2024, 3, 5)):
        return on(SimpleNamespace(origin=origin), ref, tod)
    assert at(2 * hour, 10 * hour) == 10 * hour and at(10 * hour, 2 * hour) == 2 * hour  # 8 h: the same day
    assert at(23 * hour, 1 * hour) == day + hour                     # 01:00 after 23:00: the next day
    assert at(1 * hour, 23 * hour) == -hour                          # 23:00 before 01:00: the day before
    assert at(6 * hour, 18 * hour) == 18 * hour and at(18 * hour, 6 * hour) == 6 * hour  # 12 h: the same day
    assert at(6 * hour - 1, 18 * hour) == 18 * hour - day            # just over 12 h: the day before
    assert at(30 * hour, 7 * hour) == day + 7 * hour                 # the neighbour's day, not the origin's
    assert at(hour, 2 * hour, datetime(2024, 3, 5, 0, 0, 0, 1)) == \
        (datetime(2024, 3, 5, 2) - datetime(2024, 3, 5, 0, 0, 0, 1)) // timedelta(milliseconds=1) == 2 * hour - 1


def test_skipping_the_rest_of_a_huge_line_holds_64_kb_pieces_never_the_line(tmp_path):
    """`_rest_of_line` keeps the head it needs and reads past the rest in pieces of 64 KB: skipping a 4 MB
    line allocates a few such pieces at a time (tracemalloc's peak under 4 x 64 KB), never the line, and the
    next line is read whole."""
    import tracemalloc

    from kafkasim.analysis.logs.files import _rest_of_line

    path = tmp_path / "huge.log"
    path.write_bytes(b"x" * (4 << 20) + b"\nnext line\n")
    with open(path, "rb") as f:
        tracemalloc.start()
        try:
            head = _rest_of_line(f, 10)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert head == b"x" * 10 and f.readline() == b"next line\n"
    assert peak < 4 * (1 << 16)


# -- chunks and newline counts, read directly ----------------------------------------------------------------
# Spark runs these inside its executors (`parse_broker_logs`' mapInPandas bodies), where `make mutation`'s
# shared Spark Connect server runs the package unmutated: these tests call them in the test's own process.
@pytest.mark.parametrize("start, end", [(0, 9), (1, 9), (2, 8), (3, 9), (4, 5), (0, 100), (5, 100), (9, 9)])
def test_count_newlines_counts_the_newlines_in_its_byte_range_up_to_the_files_end(tmp_path, start, end):
    from kafkasim.analysis.logs import count_newlines

    data = b"ab\ncd\nef\n"
    (tmp_path / "s.log").write_bytes(data)
    assert count_newlines(str(tmp_path / "s.log"), start, end) == data[start:end].count(b"\n")


def test_count_newlines_adds_up_the_blocks_of_a_range_longer_than_one_read(tmp_path):
    """Past 8 MB the range is read in several blocks: each block's newlines add to the count, and a
    newline at the range's last byte counts."""
    from kafkasim.analysis.logs import count_newlines

    data = (b"x" * 99 + b"\n") * 200_000  # 20 MB, a newline every 100 bytes
    (tmp_path / "big.log").write_bytes(data)
    assert count_newlines(str(tmp_path / "big.log"), 0, len(data)) == 200_000
    start, end = 91, 91 + (8 << 20) + 1  # one block, then a last byte alone: a newline (index 8,388,699)
    assert data[end - 1:end] == b"\n"
    assert count_newlines(str(tmp_path / "big.log"), start, end) == data[start:end].count(b"\n")


def test_count_newlines_reads_a_range_in_blocks_of_8_mb_at_most(tmp_path):
    """Memory: a 20 MB range is read 8 MB at a time, never whole: tracemalloc's peak is two blocks (the
    next one is read before the last is let go), under 17 MB."""
    import tracemalloc

    from kafkasim.analysis.logs import count_newlines

    (tmp_path / "big.log").write_bytes(b"\n" * (20 << 20))
    tracemalloc.start()
    try:
        assert count_newlines(str(tmp_path / "big.log"), 0, 20 << 20) == 20 << 20
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * (8 << 20) + (1 << 20)


@pytest.mark.parametrize("data, lines", [(b"ab\ncd\nef\n", 2), (b"\ncd\nef\n", 2)])
def test_a_chunk_from_byte_1_leaves_the_line_begun_at_byte_0_to_the_chunk_before(tmp_path, data, lines):
    """A chunk parses the lines that begin in [start, end): from byte 1 that excludes a line that begins at
    byte 0 ("ab"), while an empty line at byte 0 leaves "cd" beginning at byte 1."""
    from kafkasim.analysis.logs import parse_chunk

    (tmp_path / "c.log").write_bytes(data)
    assert parse_chunk(str(tmp_path / "c.log"), 1, len(data), newlines_before=0).counts["lines"] == lines


def _chunk_file(tmp_path, data: bytes):
    """`data` as a log file, and its path as `parse_chunk` takes it."""
    (tmp_path / "server.log").write_bytes(data)
    return str(tmp_path / "server.log")


WHOLE = kafka_line(BARE)  # a whole coordinator record: line 1 of each file below


@pytest.mark.parametrize("start, end", [(len(WHOLE) + 11, len(WHOLE) + 51), (len(WHOLE) + 102, len(WHOLE) + 102),
                                        (0, 0)], ids=["inside a line", "empty at a line's start", "empty at byte 0"])
def test_a_chunk_in_which_no_line_begins_reads_no_line(tmp_path, start, end):
    """Lines begin at bytes 0, len(WHOLE) + 1 (100 x's) and len(WHOLE) + 102 (a record): a chunk inside the x's
    ends before the next line begins, and an empty chunk holds no byte, so neither reads a line (not even the
    record after it: that one is the next chunk's)."""
    path = _chunk_file(tmp_path, f"{WHOLE}\n{'x' * 100}\n{WHOLE}\n".encode())
    result = parse_chunk(path, start, end, count_newlines(path, 0, start), ORIGIN)
    assert result.rows == [] and result.unparsed == [] and result.files == [path]
    assert result.counts["lines"] == 0 and result.counts["events"] == 0


@pytest.mark.parametrize("end", ["\n", ""], ids=["a newline", "none"])
def test_a_chunk_reads_its_last_line_to_the_files_end_with_or_without_a_newline(tmp_path, end):
    """The chunk from line 2 holds one line, the file's last: ended by a newline (the empty string after it is
    no line) or by the end of the file (a line all the same)."""
    path = _chunk_file(tmp_path, f"{NOISE}\n{WHOLE}{end}".encode())
    size = os.path.getsize(path)
    result = parse_chunk(path, len(NOISE) + 1, size + 10, newlines_before=1, origin=ORIGIN)
    assert [(r[COL["line"]], r[COL["kind"]], r[COL["time"]]) for r in result.rows] == [(2, "MemberRemoved", T)]
    assert result.counts["lines"] == 1 and result.counts["other"] == 0 and result.unparsed == []


@pytest.mark.parametrize("after_end", [False, True], ids=["the chunk's last line", "a line past its end"])
def test_a_huge_line_at_a_chunks_end_is_held_to_its_first_line_bytes_never_whole(tmp_path, after_end):
    """A chunk reads its last line to its end, and looks past its end for the continuation of a record
    without its logger name; of a 32 MB line either way it holds the first _LINE_BYTES (4 MB, enough for
    MAX_LINE_CHARS + 1 characters) and skips the rest: tracemalloc's peak stays under 4 x _LINE_BYTES, below
    the line's size, and the chunk reads what the whole file reads of its line 1 (the record, cut or not)."""
    import tracemalloc

    from kafkasim.analysis.logs.files import _LINE_BYTES

    record = kafka_line(BARE, logger="")[:-3]  # no " ()": a record that may continue on the next line
    path = _chunk_file(tmp_path, record.encode() + (b"\n" if after_end else b" ") + b"y" * (32 << 20) + b"\n")
    tracemalloc.start()
    try:
        chunk = parse_chunk(path, 0, len(record) + 1 if after_end else 10, 0, ORIGIN)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    whole = parse_file(path, ORIGIN)
    assert [(r[COL["line"]], r[COL["kind"]]) for r in chunk.rows] == [(1, "MemberRemoved")]
    assert chunk.rows == whole.rows and chunk.unparsed == whole.unparsed
    assert peak < 4 * _LINE_BYTES < 32 << 20


EIO = OSError(errno.EIO, os.strerror(errno.EIO))


class _BadBlockFrom(io.BufferedReader):
    """A file whose bytes from `bad` on cannot be read, as past a disk's bad block: a read that reaches
    them raises `error` (read1 and readline first return the bytes before them)."""

    def __init__(self, path: str, bad: int, error: OSError = EIO):
        super().__init__(io.FileIO(path))
        self.bad, self.error = bad, error

    def read(self, size=-1):
        if size < 0 or self.tell() + size > self.bad:
            raise self.error
        return super().read(size)

    def read1(self, size=-1):
        return self._up_to_bad(super().read1, size)

    def readline(self, size=-1):
        return self._up_to_bad(super().readline, size)

    def _up_to_bad(self, read, size):
        left = self.bad - self.tell()
        if left <= 0:
            raise self.error
        return read(left if size < 0 else min(size, left))


@pytest.mark.parametrize("start, bad, error, problem", [
    (len(WHOLE) + 1, len(WHOLE), EIO, "unreadable: Input/output error"),
    (len(WHOLE) + 1, len(WHOLE) + 1, EIO, "unreadable: Input/output error"),
    (len(WHOLE) + 11, len(WHOLE) + 16, EIO, "unreadable: Input/output error"),
    (len(WHOLE) + 1, len(WHOLE) + 1, OSError("stale handle"), "unreadable: OSError: stale handle")],
    ids=["the newline before it", "its first line", "the line straddling its start", "an error without errno"])
def test_a_read_error_in_a_chunk_is_its_problem_at_the_line_before_the_chunk(tmp_path, monkeypatch, start, bad,
                                                                             error, problem):
    """Three records; a chunk from line 2 (1 newline before it), or from inside it, whose file cannot be read
    from byte `bad` on (whichever read of the chunk meets it) reports the error at line 1, its only row in
    `unparsed`: by its strerror (EIO's is "Input/output error"), or by its type and text when it has none."""
    path = _chunk_file(tmp_path, f"{WHOLE}\n{WHOLE}\n{WHOLE}\n".encode())
    monkeypatch.setattr(files, "_open_binary", lambda p: _BadBlockFrom(p, bad, error))
    result = parse_chunk(path, start, os.path.getsize(path), newlines_before=1, origin=ORIGIN)
    assert result.unparsed == [(path, 1, problem, "")]
    assert result.rows == [] and result.counts == {"unparsed": 1, "unreadable": 1}


@pytest.mark.parametrize("end_past_size", [0, 100])
def test_a_chunk_of_the_whole_file_reads_it_as_a_whole_file_keeping_the_lines_before_a_read_error(
        tmp_path, monkeypatch, end_past_size):
    """A chunk from byte 0 to the file's size or past it is the whole file, read as `parse_file` reads one:
    the 2 lines before a read error at line 3 are read, and the error is noted after them (line 2)."""
    path = _chunk_file(tmp_path, f"{WHOLE}\n{WHOLE}\n{WHOLE}\n".encode())
    monkeypatch.setattr(files, "_open_binary", lambda p: _BadBlockFrom(p, 2 * (len(WHOLE) + 1)))
    result = parse_chunk(path, 0, os.path.getsize(path) + end_past_size, origin=ORIGIN)
    assert [r[COL["line"]] for r in result.rows] == [1, 2]
    problem = "unreadable: Input/output error, read up to there (line 2)"
    assert result.unparsed == [(path, 2, problem, "")] and result.counts["lines"] == 2


def test_a_file_that_becomes_unreadable_after_its_plan_is_reported_by_each_chunk_at_its_line(tmp_path, monkeypatch):
    """Planned and counted while readable, then refused (a permission changed): each chunk reports the file
    at the line before its first, the newlines counted before it (0, 1, 2 for chunks of one line each)."""
    path = _chunk_file(tmp_path, f"{WHOLE}\n{WHOLE}\n{WHOLE}\n".encode())
    plan = [(s, e, count_newlines(path, 0, s)) for _, s, e in chunk_plan([path], len(WHOLE) + 1)]
    assert [n for _, _, n in plan] == [0, 1, 2]
    real_open = os.open

    def refuse(p, *args, **kwargs):
        if os.fspath(p) == path:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), p)
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    for start, end, before in plan:
        result = parse_chunk(path, start, end, before, ORIGIN)
        assert result.unparsed == [(path, before, "unreadable: Permission denied", "")] and result.rows == []


@pytest.mark.parametrize("encode", [lambda text: gzip.compress(text.encode()), lambda text: text.encode("utf-16")],
                         ids=["gzip", "utf-16"])
def test_a_file_that_cannot_be_split_is_read_whole_by_its_first_chunk_only(tmp_path, encode):
    """Byte ranges of a gzip or UTF-16 file (known by its first bytes, not its name) cannot be read apart:
    planned as if they could (byte 0 to 1, then 40 bytes each), the chunk from byte 0 reads the whole file
    (its 3 records) and the others, the one from byte 1 too, read nothing (with the parse's origin, which a
    result's provenance names)."""
    path = _chunk_file(tmp_path, encode(f"{WHOLE}\n{WHOLE}\n{WHOLE}\n"))
    size = os.path.getsize(path)
    starts = [0, 1, *range(41, size, 40)]
    first, *others = [parse_chunk(path, s, e, count_newlines(path, 0, s), ORIGIN)
                      for s, e in zip(starts, [*starts[1:], size])]
    assert [r[COL["line"]] for r in first.rows] == [1, 2, 3] and first.rows == parse_file(path, ORIGIN).rows
    assert len(others) >= 2
    for other in others:
        assert other.files == [path] and other.rows == other.unparsed == [] and other.counts == {}
        assert other.origin == ORIGIN


def test_a_fault_of_the_parser_in_a_chunk_is_that_chunks_problem_at_the_line_before_it(tmp_path, monkeypatch):
    """Like `parse_file`, a chunk never raises for a fault of the parser (a Spark job must not end): it is
    the chunk's problem, named by its type and text, at the line before the chunk (1 newline before it)."""
    path = _chunk_file(tmp_path, f"{WHOLE}\n{WHOLE}\n".encode())

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(files, "_parse_range", broken)
    result = parse_chunk(path, len(WHOLE) + 1, os.path.getsize(path), 1, ORIGIN)
    assert result.unparsed == [(path, 1, "not read (RuntimeError: a bug)", "")] and result.rows == []


def test_a_chunks_results_name_the_file_by_name_not_by_path(tmp_path, monkeypatch):
    """`name` (Spark's executors read a copy, the results name the file given): the chunk's file list, its
    rows, its kept lines and a problem reading it all say `name`."""
    name = "broker-1/server.log"
    bad = kafka_line("Preparing to explode group g")
    path = _chunk_file(tmp_path, f"{NOISE}\n{WHOLE}\n{bad}\n".encode())
    result = parse_chunk(path, len(NOISE) + 1, os.path.getsize(path), 1, ORIGIN, name=name)
    assert result.files == [name] and [r[COL["file"]] for r in result.rows] == [name]
    assert result.unparsed == [(name, 3, "unrecognised wording", bad)]
    monkeypatch.setattr(files, "_open_binary", lambda p: _BadBlockFrom(p, 0))
    assert parse_chunk(path, len(NOISE) + 1, 1000, 1, ORIGIN, name=name).file_problems == [
        (name, 1, "unreadable: Input/output error")]


def _config_record(settings: list[bytes]) -> tuple[bytes, int]:
    """A "ConsumerConfig values:" record (AbstractConfig.logAll: one `\\tname = value` line per config, then
    the logger name) and the length of its header line."""
    header = f"{STAMP} INFO ConsumerConfig values: ".encode() + b"\n"
    return header + b"".join(b"\t" + s + b"\n" for s in settings) + b" (org.apache.kafka.clients.consumer.ConsumerConfig)\n", \
        len(header)


def test_a_record_straddling_a_chunks_end_is_read_whole_by_the_chunk_it_begins_in(tmp_path):
    """A chunk reads past its end the rest of a record that begins in it: a "ConsumerConfig values:"
    block whose header is the chunk's last line keeps every setting (in SETTINGS order), the lines
    past the end decoded as the chunk's own are (a Latin-1 é replaced). The next chunk counts those
    8 lines (7 settings and the logger name), so this one takes them off its "other"."""
    data, header = _config_record([
        b"allow.auto.create.topics = true", b"auto.commit.interval.ms = 5000", b"bootstrap.servers = [broker-1:9092]",
        b"client.id = caf\xe9-1", b"group.id = orders", b"group.instance.id = null", b"session.timeout.ms = 45000"])
    result = parse_chunk(_chunk_file(tmp_path, data), 0, header, 0, ORIGIN)
    keys = ("time", "source", "kind", "group", "reason", "value", "detail", "client", "instance", "line")
    row = (T, "consumer", "ClientConfig", "orders")
    assert [tuple(r[COL[k]] for k in keys) for r in result.rows] == [
        (*row, "group.id", None, "orders", "caf\ufffd-1", None, 1),
        (*row, "client.id", None, "caf\ufffd-1", "caf\ufffd-1", None, 1),
        (*row, "group.instance.id", None, "null", "caf\ufffd-1", None, 1),
        (*row, "session.timeout.ms", 45000.0, "45000", "caf\ufffd-1", None, 1),
        (*row, "auto.commit.interval.ms", 5000.0, "5000", "caf\ufffd-1", None, 1)]
    assert result.unparsed == [] and (result.counts["lines"], result.counts["other"]) == (1, -8)


@pytest.mark.parametrize("filler", [0, MAX_BLOCK_LINES - 2, MAX_BLOCK_LINES - 1])
def test_wherever_a_chunk_ends_in_a_block_the_chunks_add_up_to_the_whole_file(tmp_path, filler):
    """The cut after each line of a block: the two chunks' events and counts add up to the file's read
    whole. With `filler` settings of no interest first, session.timeout.ms is the block's last line
    (MAX_BLOCK_LINES in all: still read, past a cut after the header) or the first one past it (read by
    neither reading)."""
    settings = [b"group.id = orders", *(b"x%03d = 1" % i for i in range(filler)), b"session.timeout.ms = 45000"]
    data, _ = _config_record(settings)
    path = _chunk_file(tmp_path, data)
    whole = parse_file(path, ORIGIN)
    assert ("session.timeout.ms" in whole.events()["reason"].tolist()) is (len(settings) <= MAX_BLOCK_LINES)
    ends = [i + 1 for i, byte in enumerate(data) if byte == 10][:-1]
    for end in ends if filler == 0 else ends[:1]:
        parts = [parse_chunk(path, 0, end, 0, ORIGIN),
                 parse_chunk(path, end, len(data), count_newlines(path, 0, end), ORIGIN)]
        assert sorted(row for part in parts for row in part.rows) == sorted(whole.rows)
        assert {k: parts[0].counts[k] + parts[1].counts[k] for k in whole.counts} == whole.counts


@pytest.mark.parametrize("parts", [MAX_BLOCK_LINES, MAX_BLOCK_LINES + 1])
def test_a_chunk_reads_at_most_max_block_lines_past_its_end(tmp_path, parts):
    """The longest record a reader joins is a block of MAX_BLOCK_LINES lines, so a chunk reads no more than
    that past its end. A CRI record whose first part is the chunk's last line, its member id spread over
    the parts after it: with MAX_BLOCK_LINES parts past the end (the last tagged F) it is read whole; with
    one more its end is never seen, and no event is made of it."""
    prefix = "2024-03-05T20:21:14.690Z stdout"
    first = f"{prefix} P {STAMP} INFO [GroupCoordinator 1]: Member m"
    rest = [f"{prefix} P m"] * (parts - 1) + [f"{prefix} F  in group my-group has failed, removing it from the group"]
    path = _chunk_file(tmp_path, ("\n".join([first, *rest]) + "\n").encode())
    result = parse_chunk(path, 0, len(first) + 1, 0, ORIGIN)
    members = [r[COL["member"]] for r in result.rows]
    assert members == (["m" * parts] if parts == MAX_BLOCK_LINES else [])

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_chunk_through_a_symbolic_link_names_what_kept_its_target_from_being_read(tmp_path, monkeypatch):
    """Only a link whose target is missing is named a missing link's (with its target); a link to a FIFO is
    a FIFO's problem, and one to a file that refuses this user a permission problem."""
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "refused.log").write_text(WHOLE + "\n")
    for target in ("pipe", "refused.log", "gone.log"):
        os.symlink(tmp_path / target, tmp_path / f"to-{target}")
    real_open = os.open

    def refuse(p, *args, **kwargs):
        if os.path.realpath(p) == str(tmp_path / "refused.log"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), p)
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    problems = {target: _in_time(lambda: parse_chunk(str(tmp_path / f"to-{target}"), 0, 100, 0, ORIGIN)).file_problems
                for target in ("pipe", "refused.log", "gone.log")}
    assert problems == {
        "pipe": [(str(tmp_path / "to-pipe"), 0, "a FIFO (named pipe), not a log file: skipped")],
        "refused.log": [(str(tmp_path / "to-refused.log"), 0, "unreadable: Permission denied")],
        "gone.log": [(str(tmp_path / "to-gone.log"), 0,
                      f"a symbolic link to a missing file ({tmp_path / 'gone.log'}): skipped")]}


def test_a_file_that_cannot_be_read_keeps_the_instant_its_time_0_stands_for(tmp_path):
    """A failed parse is still a result of that parse: its `origin` is the one asked for, so its (empty)
    events line up with the other files' when results are merged."""
    from kafkasim.analysis.logs import parse_chunk, parse_file

    origin = datetime(2024, 5, 1, 12, 0)
    assert parse_file(str(tmp_path / "missing.log"), origin).origin == origin
    assert parse_chunk(str(tmp_path / "missing.log"), 0, 10, origin=origin).origin == origin


@pytest.mark.parametrize("mode, named", [(stat.S_IFIFO, "a FIFO (named pipe)"), (stat.S_IFSOCK, "a socket"),
                                         (stat.S_IFCHR, "a character device"), (stat.S_IFBLK, "a block device"),
                                         (stat.S_IFDIR, "a directory"), (stat.S_IFLNK, "not a regular file")])
def test_a_path_that_is_no_regular_file_is_named_by_what_it_is(mode, named):
    """A log path the reader refuses (it could wait for a writer forever, or never end) is named by its kind
    in the file's problem, and whatever else it is, as not a regular file."""
    from kafkasim.analysis.logs.files import _kind_of

    assert _kind_of(mode | 0o644) == named


def test_files_parsed_one_after_another_keep_the_origin_they_are_given(tmp_path):
    """`parse_files` reads each file as `parse_file` does with the same origin (the instant times are counted
    from), not the default one."""
    paths = []
    for i, members in enumerate((2, 3)):
        path = tmp_path / f"server.log.{i}"
        path.write_text("\n".join(simulate(Scenario(members=members, topics={"t": 2}, duration_ms=20_000)).broker_log))
        paths.append(str(path))
    rows = files.parse_files(paths, ORIGIN).rows
    assert rows == files.parse_file(paths[0], ORIGIN).rows + files.parse_file(paths[1], ORIGIN).rows
    assert rows != files.parse_files(paths).rows


def test_a_parse_with_no_event_has_the_events_frame_of_every_parse():
    """ParseResult.events: the columns after kafkasim's event schema keep their types with no row at all (a file
    of other lines), as the frames of a parse that found events have them: line and seq int64, time_inferred bool."""
    types = {name: str(t) for name, t in parse_lines(["a line"], "x.log").events().dtypes.items()}
    assert {name: types[name] for name in ("file", "line", "seq", "time_inferred", "detail")} == {
        "file": "object", "line": "int64", "seq": "int64", "time_inferred": "bool", "detail": "object"}
