"""kafkajs's lines (kafkasim.analysis.logs.kafkajs): each line's expected events written by hand from the
log calls of src/consumer/runner.js, src/consumer/consumerGroup.js, src/consumer/index.js and
src/network/connection.js (tulios/kafkajs at the tag named beside it), with the fields src/loggers/index.js
adds (timestamp, logger), in the layouts kafkajs prints them: its console logger's JSON line
(src/loggers/console.js), the plain line of docs/CustomLogger.md (`${label} [${namespace}] ${message}
${JSON.stringify(others)}`), and either one inside a log shipper's or Docker's JSON."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from kafkasim.analysis.logs import MAX_LINE_CHARS, ROW_FIELDS, kafkajs, parse_lines
from reader_properties import read_rows

ORIGIN = datetime(2024, 3, 5)
STAMP = "2024-03-05T20:21:14.681Z"
T = (20 * 60 + 21) * 60_000 + 14_681  # 20:21:14.681 UTC as ms since ORIGIN
KEYS = ("time", "source", "group", "member", "kind", "topic", "partition", "error", "reason", "value", "log_source",
        "versions", "detail", "client")
REBALANCING = "The group is rebalancing, so a rejoin is needed"  # src/protocol/error.js, code 27
UNKNOWN = "The coordinator is not aware of this member"  # code 25


def console(level: str, namespace: str, message: str, **extra) -> str:
    """console.js: JSON.stringify(Object.assign({level: label}, log, {message: `[${namespace}] ${message}`}))
    where log = {timestamp, logger: 'kafkajs', message, ...extra} (loggers/index.js createLevel)."""
    record = {"level": level, "timestamp": STAMP, "logger": "kafkajs", "message": f"[{namespace}] {message}"}
    record.update(extra)
    return json.dumps(record, separators=(",", ":"))


def plain(level: str, namespace: str, message: str, **extra) -> str:
    """docs/CustomLogger.md's logCreator: `${label} [${namespace}] ${message} ${JSON.stringify(others)}`."""
    others = {"timestamp": STAMP, "logger": "kafkajs", **extra}
    return f"{level} [{namespace}] {message} {json.dumps(others, separators=(',', ':'))}"


def rows(lines) -> list[dict]:
    return read_rows(lines, KEYS, ORIGIN)


def expected(kind, versions, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, log_source="kafkajs", versions=versions)
    row.update(fields)
    return row


JOINED_2X = dict(groupId="orders", memberId="app-9f1b", leaderId="app-0c2d", isLeader=False,
                 memberAssignment={"orders": [0, 2]}, groupProtocol="RoundRobinAssigner", duration=41)


@pytest.mark.parametrize("line,events", [
    # consumerGroup.js joinAndSync() 1.15+: logger.info('Consumer has joined the group', payload)
    (console("INFO", "ConsumerGroup", "Consumer has joined the group", **JOINED_2X),
     [expected("JoinGroupResponse", "1.15-", group="orders", member="app-9f1b", reason="RoundRobinAssigner",
               value=41.0, detail="leader app-0c2d"),
      expected("PartitionsAssigned", "1.15-", group="orders", member="app-9f1b", topic="orders", partition=0),
      expected("PartitionsAssigned", "1.15-", group="orders", member="app-9f1b", topic="orders", partition=2)]),
    # runner.js join() 1.4 - 1.14: the same words under [Runner], no groupProtocol; a member given nothing
    (console("INFO", "Runner", "Consumer has joined the group", groupId="orders", memberId="app-9f1b",
             leaderId="app-9f1b", isLeader=True, memberAssignment={}, duration=12),
     [expected("JoinGroupResponse", "1.0-1.14", group="orders", member="app-9f1b", value=12.0,
               detail="leader app-9f1b"),
      expected("PartitionsAssigned", "1.0-1.14", group="orders", member="app-9f1b", value=0.0)]),
    # runner.js: logger.warn('The group is rebalancing, re-joining', {groupId, memberId, error: e.message, ...}) 1.16+
    (console("WARN", "Runner", "The group is rebalancing, re-joining", groupId="orders", memberId="app-9f1b",
             error=REBALANCING, retryCount=0, retryTime=312),
     [expected("RejoinRequested", "1.16-", group="orders", member="app-9f1b", error="REBALANCE_IN_PROGRESS",
               reason=REBALANCING)]),
    # ... logger.error up to 1.15, here in the plain layout
    (plain("ERROR", "Runner", "The group is rebalancing, re-joining", groupId="orders", memberId="app-9f1b",
           error=REBALANCING),
     [expected("RejoinRequested", "1.0-1.15", group="orders", member="app-9f1b", error="REBALANCE_IN_PROGRESS",
               reason=REBALANCING)]),
    # runner.js: logger.error('The coordinator is not aware of this member, re-joining the group', ...)
    (console("ERROR", "Runner", "The coordinator is not aware of this member, re-joining the group",
             groupId="orders", memberId="app-9f1b", error=UNKNOWN),
     [expected("RejoinRequested", "1.0-", group="orders", member="app-9f1b", error="UNKNOWN_MEMBER_ID",
               reason=UNKNOWN)]),
    # connection.js: logError(`Response ${apiName}(key: ${apiKey}, version: ${apiVersion})`, {error, correlationId,
    # size}) with {broker, clientId} added by its log(); no group in these lines
    (console("ERROR", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="b-1:9092", clientId="app",
             error=UNKNOWN, correlationId=41, size=10),
     [expected("HeartbeatResponse", "1.0-", error="UNKNOWN_MEMBER_ID", detail="b-1:9092", client="app")]),
    (console("ERROR", "Connection", "Response Heartbeat(key: 12, version: 1)", broker="b-1:9092", clientId="app",
             error="This is not the correct coordinator for this group", correlationId=7, size=10),
     [expected("HeartbeatResponse", "1.0-", error="NOT_COORDINATOR", detail="b-1:9092", client="app")]),
    (console("ERROR", "Connection", "Response JoinGroup(key: 11, version: 5)", broker="b-1:9092", clientId="app",
             error="The session timeout is not within the range allowed by the broker (as configured by "
                   "group.min.session.timeout.ms and group.max.session.timeout.ms)", correlationId=3, size=26),
     [expected("JoinGroupResponse", "1.0-", error="INVALID_SESSION_TIMEOUT", detail="b-1:9092", client="app")]),
    (console("ERROR", "Connection", "Response SyncGroup(key: 14, version: 3)", broker="b-1:9092", clientId="app",
             error="Specified group generation id is not valid", correlationId=9, size=14),
     [expected("SyncGroupResponse", "1.0-", error="ILLEGAL_GENERATION", detail="b-1:9092", client="app")]),
    (console("ERROR", "Connection", "Response OffsetCommit(key: 8, version: 5)", broker="b-1:9092", clientId="app",
             error=REBALANCING, correlationId=88, size=30),
     [expected("CommitFailed", "1.0-", error="REBALANCE_IN_PROGRESS", detail="b-1:9092", client="app")]),
    # an error that is none of Kafka's group errors is kept as its words
    (console("ERROR", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="b-1:9092", clientId="app",
             error="Not authorized to access group: Group authorization failed"),
     [expected("HeartbeatResponse", "1.0-", reason="Not authorized to access group: Group authorization failed",
               detail="b-1:9092", client="app")]),
    # consumer/index.js onCrash: logger.error(`Crash: ${e.name}: ${e.message}`, {groupId, retryCount, stack})
    (console("ERROR", "Consumer", f"Crash: KafkaJSNumberOfRetriesExceeded: {REBALANCING}", groupId="orders",
             retryCount=5, stack="KafkaJSNonRetriableError\n  Caused by: KafkaJSProtocolError"),
     [expected("ClientCrashed", "1.0-", group="orders", error="REBALANCE_IN_PROGRESS",
               reason="KafkaJSNumberOfRetriesExceeded", detail=REBALANCING)]),
    # ... logger.error(`Restarting the consumer in ${retryTime}ms`, {retryCount, retryTime, groupId})
    (console("ERROR", "Consumer", "Restarting the consumer in 1292ms", retryCount=5, retryTime=1292,
             groupId="orders"),
     [expected("ClientRestarting", "1.0-", group="orders", value=1292.0)]),
    # 1.0 - 1.4: logger.error(`Restarting the consumer in ${e.retryTime}ms`, ...): an error without retryTime
    (console("ERROR", "Consumer", "Restarting the consumer in undefinedms", groupId="orders"),
     [expected("ClientRestarting", "1.0-", group="orders")]),
    # start(): logger.info('Starting', {groupId})
    (console("INFO", "Consumer", "Starting", groupId="orders"), [expected("JoinGroup", "1.0-", group="orders")]),
])
def test_each_wording_reads_as_its_events(line, events):
    assert rows([line]) == events


def test_the_same_record_in_every_layout_reads_the_same():
    """The console JSON, its keys sorted by a shipper (the time after the message), Docker's json-file around
    it, the plain layout bare and inside a shipper's JSON, behind a CRI prefix: one event, at the record's time."""
    record = dict(groupId="orders", memberId="app-9f1b", error=REBALANCING)
    line = console("WARN", "Runner", "The group is rebalancing, re-joining", **record)
    obj = json.loads(line)
    lines = [line,
             json.dumps(dict(sorted(obj.items())), separators=(",", ":")),
             json.dumps({"log": line + "\n", "stream": "stderr", "time": "2024-03-05T20:21:15.2Z"}),
             plain("WARN", "Runner", "The group is rebalancing, re-joining", **record),
             json.dumps({"loglevel": "warn", "msg": plain("WARN", "Runner", "The group is rebalancing, re-joining",
                                                          **record)}),
             "2024-03-05T20:21:15.200000000Z stderr F " + line]
    got = rows(lines)
    assert [(r["time"], r["kind"], r["group"], r["member"], r["error"], r["versions"]) for r in got] == [
        (T, "RejoinRequested", "orders", "app-9f1b", "REBALANCE_IN_PROGRESS", "1.16-")] * len(lines)


def test_a_line_cut_before_its_message_begins_is_kept_aside_as_truncated():
    """A message cut inside a wording is its own key, kept aside as truncated (`kafkajs.key`); one cut
    before its first character (blanks up to MAX_LINE_CHARS after the namespace) is the start of every
    wording, so it is truncated too, not ignored as a message of no wording read here."""
    line = "INFO [ConsumerGroup] " + " " * MAX_LINE_CHARS + "Consumer has joined the group"
    result = parse_lines([line], origin=ORIGIN)
    assert result.rows == []
    assert [u[2] for u in result.unparsed] == [
        f"truncated; a line of more than {MAX_LINE_CHARS:,} characters, read up to there"]


def test_a_pasted_line_with_a_stray_brace_is_read():
    """A paste that left a `}` too many: no longer JSON, its fields are read by name all the same."""
    line = console("ERROR", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="b-1:9092",
                   clientId="app", error=REBALANCING) + "}"
    assert rows([line]) == [expected("HeartbeatResponse", "1.0-", error="REBALANCE_IN_PROGRESS", detail="b-1:9092",
                                     client="app")]


def test_debug_lines_other_namespaces_and_good_answers_are_counted_only():
    lines = [console("DEBUG", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="b-1:9092",
                     clientId="app", correlationId=41, size=10, data={"errorCode": 0}),
             console("ERROR", "Connection", "Response Metadata(key: 3, version: 6)", broker="b-1:9092",
                     clientId="app", error="This server does not host this topic-partition"),
             console("INFO", "Connection", "Consumer has joined the group", groupId="orders"),
             console("INFO", "Consumer", "Stopped", groupId="orders")]
    result = parse_lines(lines, origin=ORIGIN)
    assert result.rows == [] and result.unparsed == [] and result.counts["ignored"] == 4


def test_a_cut_or_changed_line_is_kept_aside_with_why():
    cut = console("WARN", "Runner", "The group is rebalancing, re-joining")
    cut = cut[:cut.index("rebalancing")]  # `..."message":"[Runner] The group is ` and no more
    changed = console("WARN", "Runner", "The group is rebalancing, re-joining!", groupId="orders")
    result = parse_lines([cut, changed], origin=ORIGIN)
    assert result.rows == []
    assert [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated"), (2, "unrecognised wording")]


@pytest.mark.parametrize("text", [
    "\x00\x01[Runner] \udcff{" * 50,
    '{"message":"[Connection] Response Heartbeat(key: 12, version: 3)","error":"\\"',
    '\\"timestamp\\":\\"2024-03-05T20:21:14.681Z\\" [Consumer] Crash: : ',
    "[ConsumerGroup] Consumer has joined the group " + '"memberAssignment":{"t":[' * 1000,
])
def test_any_bytes_are_never_fatal(text):
    result = parse_lines([text, console("INFO", "Consumer", "Starting", groupId="orders")], origin=ORIGIN)
    assert [r[ROW_FIELDS.index("kind")] for r in result.rows][-1] == "JoinGroup"
    assert all(u[2] for u in result.unparsed)


def test_heartbeats_the_coordinator_no_longer_knows_are_diagnosed():
    from kafkasim.analysis.diagnose import diagnose_lines

    lines = [console("ERROR", "Connection", "Response Heartbeat(key: 12, version: 3)", broker="b-1:9092",
                     clientId="app", error=UNKNOWN),
             console("ERROR", "Runner", "The coordinator is not aware of this member, re-joining the group",
                     groupId="orders", memberId="app-9f1b", error=UNKNOWN)]
    report = diagnose_lines(lines, "app.log")
    # client_rules.sessions: an UNKNOWN_MEMBER_ID answer with no session-timer line before it, 0.6
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("session-timeout-gc-or-stall", "orders", 0.6)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 1)]


def test_a_joined_record_cut_before_its_leader_and_duration_is_still_a_join():
    """consumerGroup.js prints leaderId, memberAssignment and duration after groupId and memberId: a record cut
    before them is the join all the same, with no leader, no duration and no assignment read."""
    line = console("INFO", "ConsumerGroup", "Consumer has joined the group", **JOINED_2X)
    line = line[:line.index(',"leaderId"')]
    assert rows([line]) == [expected("JoinGroupResponse", "1.15-", group="orders", member="app-9f1b")]


def test_a_joined_duration_that_is_not_whole_milliseconds_is_left_empty():
    """kafkajs's duration is `Date.now() - startJoin`, whole milliseconds; a null there (what JSON.stringify writes
    for NaN) is no duration, and the join is read without one."""
    line = console("INFO", "ConsumerGroup", "Consumer has joined the group", **{**JOINED_2X, "duration": None})
    assert rows([line])[0] == expected("JoinGroupResponse", "1.15-", group="orders", member="app-9f1b",
                                       reason="RoundRobinAssigner", detail="leader app-0c2d")


def test_a_joined_record_a_shipper_wrote_again_with_spaces_gives_every_assigned_partition():
    """A shipper that writes the record again as JSON with blanks after its commas (`[0, 2]`): each partition of
    memberAssignment is still one PartitionsAssigned."""
    line = json.dumps(json.loads(console("INFO", "ConsumerGroup", "Consumer has joined the group", **JOINED_2X)))
    assert '[0, 2]' in line
    assert [(r["kind"], r["topic"], r["partition"]) for r in rows([line])] == [
        ("JoinGroupResponse", None, None), ("PartitionsAssigned", "orders", 0), ("PartitionsAssigned", "orders", 2)]


def test_a_record_inside_json_inside_a_shippers_json_is_taken_out_of_both():
    """A second shipper that forwards Docker's json-file line as a string of its own JSON (`{"msg": "{\\"log\\":
    ...}"}`): the record is taken out of the outer JSON first, then the reader decodes Docker's. Its group id,
    "é" as kafkajs's JSON.stringify writes it, is read as named, its level (WARN: 1.16+) from its own field."""
    record = json.dumps({"level": "WARN", "timestamp": STAMP, "logger": "kafkajs",
                         "message": "[Runner] The group is rebalancing, re-joining", "groupId": "commandes-été",
                         "memberId": "app-9f1b", "error": REBALANCING}, separators=(",", ":"), ensure_ascii=False)
    line = json.dumps({"msg": json.dumps({"log": record + "\n", "stream": "stderr"})})
    assert rows([line]) == [expected("RejoinRequested", "1.16-", group="commandes-été", member="app-9f1b",
                                     error="REBALANCE_IN_PROGRESS", reason=REBALANCING)]


def test_a_shippers_json_that_nests_the_record_deeper_is_read_from_its_text():
    """A shipper that puts the record in an object of its own (`{"kubernetes": ..., "record": {"msg": ...}}`):
    no string of the top level holds it, so the line is read as text, its fields inside escaped quotes."""
    record = plain("WARN", "Runner", "The group is rebalancing, re-joining", groupId="orders", memberId="app-9f1b",
                   error=REBALANCING)
    line = json.dumps({"kubernetes": {"pod": "app-1"}, "record": {"msg": record}})
    assert [(r["time"], r["kind"], r["group"], r["member"], r["error"]) for r in rows([line])] == [
        (T, "RejoinRequested", "orders", "app-9f1b", "REBALANCE_IN_PROGRESS")]


def test_a_shippers_line_cut_before_its_end_reads_its_escaped_fields_without_their_escapes():
    """Cut before its end, a shipper's line is no JSON to decode: its fields, quoted as `\\"orders\\"`, are
    read as kafkajs wrote them (the error, cut, is not read)."""
    record = plain("WARN", "Runner", "The group is rebalancing, re-joining", groupId="orders", memberId="app-9f1b",
                   error=REBALANCING)
    line = json.dumps({"msg": record})[:-30]
    assert '\\"groupId\\":\\"orders\\"' in line
    assert [(r["time"], r["kind"], r["group"], r["member"], r["error"]) for r in rows([line])] == [
        (T, "RejoinRequested", "orders", "app-9f1b", None)]


def test_a_member_id_kafkajs_prints_as_null_is_no_member():
    """runner.js sets `consumerGroup.memberId = null` on UNKNOWN_MEMBER_ID before it joins again; a line
    logged until the JoinGroup answer gives it a new one has `"memberId":null` (JSON.stringify), no member."""
    line = console("WARN", "Runner", "The group is rebalancing, re-joining", groupId="orders", memberId=None,
                   error=REBALANCING)
    assert '"memberId":null' in line
    assert rows([line]) == [expected("RejoinRequested", "1.16-", group="orders", error="REBALANCE_IN_PROGRESS",
                                     reason=REBALANCING)]


def test_a_rebalancing_record_printed_without_its_level_is_read_as_every_releases():
    """The level tells 1.0 - 1.15 (ERROR) from 1.16+ (WARN) apart; a logCreator that prints no label leaves
    the record to every release."""
    line = f'[Runner] The group is rebalancing, re-joining {{"timestamp":"{STAMP}","groupId":"orders"}}'
    assert rows([line]) == [expected("RejoinRequested", "1.0-", group="orders")]


def test_a_plain_record_without_its_timestamp_keeps_the_level_its_release_is_read_from():
    """A plain-layout record whose fields hold no timestamp: nothing is put before its namespace, so its
    label (WARN: 1.16+) is still read; the record has no time of its own (kept at the origin)."""
    line = 'WARN [Runner] The group is rebalancing, re-joining {"groupId":"orders"}'
    result = parse_lines([line], origin=ORIGIN)
    assert [(r[ROW_FIELDS.index("kind")], r[ROW_FIELDS.index("versions")], r[0]) for r in result.rows] == [
        ("RejoinRequested", "1.16-", 0)]


@pytest.mark.parametrize("kept", ["Th", "The"])
def test_a_record_cut_inside_the_first_words_of_a_wording_is_kept_aside_as_truncated(kept):
    """A console record cut inside its message, however early: the message is the start of a wording read
    here, so the record is kept aside as truncated (as one cut before its first character is)."""
    line = console("WARN", "Runner", "The group is rebalancing, re-joining", groupId="orders")
    line = line[:line.index("[Runner] ") + len("[Runner] ") + len(kept)]
    result = parse_lines([line], origin=ORIGIN)
    assert result.rows == [] and [u[2] for u in result.unparsed] == ["truncated"]


def test_a_record_without_a_timestamp_of_its_own_takes_its_shippers_time():
    """A logCreator that leaves kafkajs's `timestamp` out (`const { message, timestamp, ...extra } = log`), its
    record inside Docker's json-file line (`{"log": ..., "stream": ..., "time": ...}`): the record takes
    Docker's "time", as any client's record without a date of its own inside a shipper's JSON does, in either
    layout. A record whose head has a date of its own keeps that date."""
    rebalancing = "The group is rebalancing, re-joining"
    docker_time = "2024-03-05T20:21:15.2Z"  # T + 519 ms
    records = [f'WARN [Runner] {rebalancing} {{"groupId":"orders"}}',
               json.dumps({"level": "WARN", "logger": "kafkajs", "message": f"[Runner] {rebalancing}",
                           "groupId": "orders"}, separators=(",", ":")),
               f'{STAMP} WARN [Runner] {rebalancing} {{"groupId":"orders"}}']
    lines = [json.dumps({"log": record + "\n", "stream": "stderr", "time": docker_time}) for record in records]
    assert [[(r["time"], r["kind"], r["group"], r["versions"]) for r in rows([line])] for line in lines] == [
        [(T + 519, "RejoinRequested", "orders", "1.16-")], [(T + 519, "RejoinRequested", "orders", "1.16-")],
        [(T, "RejoinRequested", "orders", "1.16-")]]


def test_a_console_message_holding_quotes_and_backslashes_is_read_whole_and_unescaped():
    """JSON.stringify writes a quote of the message as `\\"` and a backslash as `\\\\` (a shipper's string
    around the record escapes both once more): the message is read up to its closing quote, and the crash's
    detail is e.message as thrown, in the console line and inside a shipper's JSON read as text."""
    message = 'a "quoted" thing in \\\\kafka-1\\logs\\'  # a Windows share's path, ending in a backslash
    line = console("ERROR", "Consumer", f"Crash: KafkaJSError: {message}", groupId="orders")
    assert '\\"quoted\\"' in line and '\\\\\\\\kafka-1\\\\logs\\\\"' in line
    nested = json.dumps({"kubernetes": {"pod": "app-1"}, "record": {"log": line}})
    assert rows([line, nested]) == [expected("ClientCrashed", "1.0-", group="orders", reason="KafkaJSError",
                                             detail=message)] * 2


def test_a_console_message_holding_a_line_break_keeps_it_escaped_in_either_layout():
    """JSON.stringify writes a line break of the message as `\\n`: the record is read as one line, so the
    detail keeps it as written, the same in the console line and inside a shipper's JSON read as text."""
    line = console("ERROR", "Consumer", 'Crash: KafkaJSError: a "quoted"\nthing', groupId="orders")
    nested = json.dumps({"kubernetes": {"pod": "app-1"}, "record": {"log": line}})
    assert rows([line, nested]) == [expected("ClientCrashed", "1.0-", group="orders", reason="KafkaJSError",
                                             detail='a "quoted"\\nthing')] * 2


@pytest.mark.parametrize("level,versions", [("WARN", "1.16-"), ("ERROR", "1.0-1.15")])
def test_a_plain_records_label_inside_a_shippers_undecoded_json_tells_its_releases(level, versions):
    """runner.js logs the rebalancing line at error up to 1.15, at warn from 1.16: the plain layout's label,
    right after the opening quote of a shipper's string the reader does not decode (the record nested deeper,
    or the line cut), still tells the releases apart."""
    record = plain(level, "Runner", "The group is rebalancing, re-joining", groupId="orders", memberId="app-9f1b",
                   error=REBALANCING)
    nested = json.dumps({"kubernetes": {"pod": "app-1"}, "record": {"msg": record}})
    cut = json.dumps({"msg": record})[:-30]
    assert f'"msg": "{level} [Runner] ' in nested and cut.startswith(f'{{"msg": "{level} [Runner] ')
    assert [(r["kind"], r["group"], r["versions"]) for r in rows([nested, cut])] == [
        ("RejoinRequested", "orders", versions)] * 2


@pytest.mark.parametrize("head,versions", [
    ('"', "1.16-"),  # a quote that opens the line's text: the label follows it
    ('msg=\\"', "1.16-"),  # an escaped quote that opens a string
    ('x"', "1.0-"),  # a quote glued to the word before it closes that word: what follows is no label
    ('x\\"', "1.0-"),  # the same, escaped: the word's closing quote in a shipper's string
    ('""', "1.0-"),  # an empty string's closing quote
])
def test_only_a_label_at_the_start_of_a_quoted_string_is_the_records_level(head, versions):
    """A level word right after a quote is the record's label only where that quote opens a string; a word
    glued to a quote that closes another is not, and the record is left to every release."""
    line = f'{head}WARN [Runner] The group is rebalancing, re-joining {{"timestamp":"{STAMP}","groupId":"orders"}}'
    assert rows([line]) == [expected("RejoinRequested", versions, group="orders")]


def test_a_record_is_never_its_own_shippers_time():
    """A record that begins with a date far (over layouts.HEAD_WINDOW characters) before its namespace has no
    date of its own for the reader: the time is the shipper's other string that begins with one (Docker's
    "time"), even when the record comes first in the JSON and begins with a date itself."""
    record = f'{STAMP} app {"x" * 600} WARN [Runner] The group is rebalancing, re-joining {{"groupId":"orders"}}'
    line = json.dumps({"log": record, "stream": "stderr", "time": "2024-03-05T20:21:15.2Z"})  # T + 519 ms
    assert [(r["time"], r["kind"], r["group"]) for r in rows([line])] == [(T + 519, "RejoinRequested", "orders")]


def test_a_console_record_without_a_timestamp_puts_nothing_before_its_message():
    """A logCreator that leaves kafkajs's `timestamp` out, no shipper around it: the message moves out of its
    JSON with no time before it (the reader then keeps its events at the origin and says why)."""
    line = json.dumps({"level": "WARN", "logger": "kafkajs", "message": "[Runner] The group is rebalancing, re-joining",
                       "groupId": "orders"}, separators=(",", ":"))
    assert kafkajs.rewrite(line) == ('{"level":"WARN","logger":"kafkajs", [Runner] The group is rebalancing, '
                                     're-joining ,"groupId":"orders"}')
