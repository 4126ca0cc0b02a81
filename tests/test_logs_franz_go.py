"""franz-go's lines (kafkasim.analysis.logs.franz_go): each line's expected events written by hand from the
`Log(level, msg, keyvals...)` calls of pkg/kgo/consumer_group.go, consumer_group_848.go and consumer.go of
twmb/franz-go at the release named beside it, as kgo.BasicLogger prints them (pkg/kgo/logger.go:
`[LEVEL] msg; key: val, key: val`, here behind a prefixFn that prints the date), as slog's TextHandler
prints them through plugin/kslog (`time=... level=INFO msg="..." key=val`), and as zap's JSON encoder
prints them through plugin/kzap; then the diagnosis of such lines, and any bytes around them."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkasim.analysis.logs import ROW_FIELDS, parse_lines
from reader_properties import assert_read_whole, mutated, read_rows

ORIGIN = datetime(2024, 3, 5)
T = (20 * 60 + 21) * 60_000 + 14_681  # 20:21:14.681 as ms since ORIGIN
KEYS = ("time", "source", "group", "member", "kind", "generation", "topic", "partition", "error", "reason", "state",
        "value", "log_source", "versions", "detail", "instance")
FENCED = ("FENCED_INSTANCE_ID: The broker rejected this static consumer since another consumer with the same "
          "group.instance.id has registered with a different member.id.")  # pkg/kerr/kerr.go: "%s: %s" of code 82
REBALANCING = "REBALANCE_IN_PROGRESS: The group is rebalancing, so a rejoin is needed."  # code 27


def basic(level: str, message: str, *keyvals) -> str:
    """BasicLogger's line behind a prefixFn printing the date: `prefix[LEVEL] msg; k: v, k: v`."""
    pairs = ", ".join(f"{k}: {v}" for k, v in zip(keyvals[::2], keyvals[1::2]))
    return f"2024-03-05 20:21:14.681 [{level}] {message}" + (f"; {pairs}" if pairs else "")


def rows(lines) -> list[dict]:
    return read_rows(lines, KEYS, ORIGIN)


def expected(kind, versions, group="orders", **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, group=group, log_source="franz-go", versions=versions)
    row.update(fields)
    return row


@pytest.mark.parametrize("line,events", [
    # consumer_group.go joinAndSync (1.0-): Log(LogLevelInfo, "joining group", "group", g.cfg.group)
    (basic("INFO", "joining group", "group", "orders"), [expected("JoinGroup", "1.0-")]),
    # Log(LogLevelWarn, "join group failed", "group", g.cfg.group, "err", err)
    (basic("WARN", "join group failed", "group", "orders", "err", FENCED),
     [expected("JoinGroupResponse", "1.0-", error="FENCED_INSTANCE_ID")]),
    # handleJoinResp: "join returned MemberIDRequired, rejoining with response's MemberID", "group", "member_id"
    (basic("INFO", "join returned MemberIDRequired, rejoining with response's MemberID", "group", "orders",
           "member_id", "kgo-5e1c"),
     [expected("JoinGroupResponse", "1.0-", member="kgo-5e1c", error="MEMBER_ID_REQUIRED")]),
    (basic("INFO", "join returned UnknownMemberID, rejoining without a member id", "group", "orders"),
     [expected("JoinGroupResponse", "1.0-", error="UNKNOWN_MEMBER_ID")]),
    # "joined, balancing group", group, member_id, instance_id (strptr{} 1.9-: "<nil>" or the id), generation,
    # balance_protocol, leader
    (basic("INFO", "joined, balancing group", "group", "orders", "member_id", "kgo-5e1c", "instance_id", "<nil>",
           "generation", 5, "balance_protocol", "cooperative-sticky", "leader", "true"),
     [expected("JoinGroupResponse", "1.0-", member="kgo-5e1c", generation=5, reason="cooperative-sticky")]),
    # before 1.9 instance_id was the *string itself, which %v prints as its address
    (basic("INFO", "joined", "group", "orders", "member_id", "kgo-77", "instance_id", "0xc000123450",
           "generation", 6, "leader", "false"),
     [expected("JoinGroupResponse", "1.0-", member="kgo-77", generation=6)]),
    (basic("INFO", "joined as leader but unable to balance group due to KIP-345 limitations", "group", "orders",
           "member_id", "kgo-77", "instance_id", "pod-0", "generation", 6, "balance_protocol", "range",
           "leader", "true"),
     [expected("JoinGroupResponse", "1.9-", member="kgo-77", generation=6, reason="range", instance="pod-0")]),
    # "syncing", group, protocol_type, protocol; "synced", group, assigned (mtps.String(): "t[0 1], u[2]")
    (basic("INFO", "syncing", "group", "orders", "protocol_type", "consumer", "protocol", "range"),
     [expected("SyncGroup", "1.0-", reason="range")]),
    (basic("INFO", "synced", "group", "orders", "assigned", "orders[0 1], pay[2]"),
     [expected("SyncGroupResponse", "1.0-", detail="orders[0 1], pay[2]")]),
    (basic("INFO", "sync failed with RebalanceInProgress, rejoining", "group", "orders"),
     [expected("SyncGroupResponse", "1.0-", error="REBALANCE_IN_PROGRESS")]),
    (basic("WARN", "sync group failed", "group", "orders", "err",
           "ILLEGAL_GENERATION: Specified group generation id is not valid."),
     [expected("SyncGroupResponse", "1.0-", error="ILLEGAL_GENERATION")]),
    # heartbeat: Log(LogLevelInfo, "heartbeat errored", "group", g.cfg.group, "err", err)
    (basic("INFO", "heartbeat errored", "group", "orders", "err", REBALANCING),
     [expected("HeartbeatResponse", "1.0-", error="REBALANCE_IN_PROGRESS")]),
    (basic("INFO", "heartbeat errored again while waiting for user revoke to finish", "group", "orders", "err",
           "UNKNOWN_MEMBER_ID: The coordinator is not aware of this member."),
     [expected("HeartbeatResponse", "1.0-", error="UNKNOWN_MEMBER_ID")]),
    # a network error (pkg/kgo/broker.go: "unable to dial: %w"): the coordinator could not be reached
    (basic("INFO", "heartbeat errored", "group", "orders", "err",
           "unable to dial: dial tcp 10.0.0.7:9092: connect: connection refused"),
     [expected("CoordinatorLost", "1.0-", reason="unable to dial: dial tcp 10.0.0.7:9092: connect: connection refused",
               state="disconnected")]),
    # leave: "leaving group", group, member_id (LeaveGroup, which Client.Close calls)
    (basic("INFO", "leaving group", "group", "orders", "member_id", "kgo-5e1c"),
     [expected("LeaveGroup", "1.0-", member="kgo-5e1c",
               reason="the consumer is being closed (Client.Close or LeaveGroup)")]),
    # the wrapped callbacks: Log(LogLevelDebug, "entering "+name, "with", m[, "context_expired", true]), m a
    # map[string][]int32 that BasicLogger's %v prints as Go prints a map (1.0 - 1.21.5)
    (basic("DEBUG", "entering OnPartitionsRevoked", "with", "map[orders:[0 1]]"),
     [expected("PartitionsRevoked", "1.0-", group=None, topic="orders", partition=0),
      expected("PartitionsRevoked", "1.0-", group=None, topic="orders", partition=1)]),
    (basic("DEBUG", "entering OnPartitionsLost", "with", "map[orders:[3] pay:[0]]", "context_expired", "true"),
     [expected("PartitionsLost", "1.0-", group=None, topic="orders", partition=3),
      expected("PartitionsLost", "1.0-", group=None, topic="pay", partition=0)]),
    (basic("DEBUG", "entering OnPartitionsAssigned", "with", "map[]"),
     [expected("PartitionsAssigned", "1.0-", group=None, value=0.0)]),
    # after 1.21.5 the map is an mtps: "orders[2], pay[0 5]"
    (basic("DEBUG", "entering OnPartitionsAssigned", "with", "orders[2], pay[0 5]"),
     [expected("PartitionsAssigned", "1.0-", group=None, topic="orders", partition=2),
      expected("PartitionsAssigned", "1.0-", group=None, topic="pay", partition=0),
      expected("PartitionsAssigned", "1.0-", group=None, topic="pay", partition=5)]),
    # the manage loop's error, alone (at LogLevelError the request's WARN line is not printed)
    (basic("ERROR", "group manage loop errored", "group", "orders", "err", FENCED, "consecutive_errors", 1,
           "backoff", "250ms"),
     [expected("GroupSessionError", "1.19-", error="FENCED_INSTANCE_ID")]),
    (basic("ERROR", "join and sync loop errored", "group", "orders", "err",
           "INVALID_SESSION_TIMEOUT: The session timeout is not within the range allowed by the broker (as configured "
           "by group.min.session.timeout.ms and group.max.session.timeout.ms).", "consecutive_errors", 1,
           "backoff", "250ms"),
     [expected("GroupSessionError", "1.0-1.18", error="INVALID_SESSION_TIMEOUT")]),
    # consumer.go addFakeReadyForDraining: "injecting fake fetch with an error", "err", err, "why", why (1.14-),
    # err an ErrGroupSession ("unable to join group session: %v", pkg/kgo/errors.go)
    (basic("INFO", "injecting fake fetch with an error", "err", "unable to join group session: " + FENCED, "why",
           "notification of group management loop error"),
     [expected("GroupSessionError", "1.14-", group=None, error="FENCED_INSTANCE_ID")]),
    # consumer_group_848.go (KIP-848)
    (basic("INFO", "beginning to manage the next-gen group lifecycle", "group", "orders"),
     [expected("ClientConfig", "1.19-", reason="group.protocol", detail="consumer")]),
    (basic("INFO", "consumer group heartbeat saw fenced member epoch, abandoning assignment and rejoining", "group",
           "orders", "member_id", "Vx3kQ1", "generation", 12),
     [expected("ConsumerGroupHeartbeat", "1.19-1.20", member="Vx3kQ1", generation=12, error="FENCED_MEMBER_EPOCH")]),
    (basic("INFO", "received fenced member epoch with epoch 0; clearing member ID to forcefully join as a new member",
           "group", "orders", "prior_member_id", "Vx3kQ1", "prior_generation", 0, "new_member_id", "Zt9", "new_generation",
           0),
     [expected("ConsumerGroupHeartbeat", "1.19-1.20", member="Vx3kQ1", generation=0, error="FENCED_MEMBER_EPOCH")]),
    (basic("INFO", "consumer group heartbeat error, abandoning assignment and rejoining with new member id", "group",
           "orders", "member_id", "Vx3kQ1", "generation", 14, "err",
           "UNKNOWN_MEMBER_ID: The coordinator is not aware of this member."),
     [expected("ConsumerGroupHeartbeat", "1.21-", member="Vx3kQ1", generation=14, error="UNKNOWN_MEMBER_ID")]),
    (basic("WARN", "consumer group heartbeat error, abandoning assignment and rejoining", "group", "orders",
           "member_id", "Vx3kQ1", "generation", 14, "err",
           "GROUP_MAX_SIZE_REACHED: The consumer group has reached its max size."),
     [expected("ConsumerGroupHeartbeat", "1.21-", member="Vx3kQ1", generation=14, error="GROUP_MAX_SIZE_REACHED")]),
    (basic("ERROR", "UnreleasedInstanceID after 3 retries - static instance is held by another member; check for "
                    "duplicate InstanceID config or an unclean peer shutdown", "group", "orders", "instance", "pod-0"),
     [expected("ConsumerGroupHeartbeat", "1.21-", instance="pod-0", error="UNRELEASED_INSTANCE_ID")]),
    (basic("INFO", "heartbeat hit retryable error, retrying", "group", "orders", "err", "EOF", "backoff", "250ms",
           "retries", 1),
     [expected("CoordinatorLost", "1.21-", reason="EOF", state="disconnected")]),
    (basic("INFO", "leaving next-gen group", "group", "orders", "member_id", "Vx3kQ1", "instance_id", "pod-0"),
     [expected("LeaveGroup", "1.19-", member="Vx3kQ1", instance="pod-0",
               reason="the consumer is being closed (Client.Close or LeaveGroup)")]),
])
def test_each_wording_reads_as_its_events(line, events):
    assert rows([line]) == events


def test_slog_text_and_zap_json_read_as_basic_logger_lines():
    """slog's TextHandler quotes a value with a space (msg="joined, balancing group"), not one without
    (msg=joined); zap's JSON encoder writes the time as seconds since the epoch ("ts"), slog's JSONHandler as
    RFC 3339 ("time"): the same events as BasicLogger's line, at the record's own time."""
    text = ('time=2024-03-05T20:21:14.681Z level=INFO msg="joined, balancing group" group=orders member_id=kgo-5e1c '
            'instance_id=pod-0 generation=5 balance_protocol=cooperative-sticky leader=true')
    bare = 'time=2024-03-05T20:21:14.681Z level=INFO msg=joined group=orders member_id=kgo-77 instance_id=<nil> ' \
           'generation=6 leader=false'
    zap = json.dumps({"level": "info", "ts": 1709670074.681, "caller": "kzap/kzap.go:110", "msg": "heartbeat errored",
                      "group": "orders", "err": REBALANCING})
    slog = json.dumps({"time": "2024-03-05T21:21:14.681+01:00", "level": "WARN", "msg": "join group failed",
                       "group": "orders", "err": FENCED})
    callback = json.dumps({"level": "debug", "ts": 1709670074.681, "msg": "entering OnPartitionsRevoked",
                           "with": {"orders": [0, 1]}})  # zap.Any of the map: a JSON object
    assert rows([text, bare, zap, slog, callback]) == [
        expected("JoinGroupResponse", "1.0-", member="kgo-5e1c", generation=5, reason="cooperative-sticky",
                 instance="pod-0"),
        expected("JoinGroupResponse", "1.0-", member="kgo-77", generation=6),
        expected("HeartbeatResponse", "1.0-", error="REBALANCE_IN_PROGRESS"),
        expected("JoinGroupResponse", "1.0-", error="FENCED_INSTANCE_ID"),
        expected("PartitionsRevoked", "1.0-", group=None, topic="orders", partition=0),
        expected("PartitionsRevoked", "1.0-", group=None, topic="orders", partition=1)]


def test_a_quoted_slog_value_is_read_whole_between_its_quotes_with_its_escapes_undone():
    """slog's TextHandler quotes a value with a space or a quote as strconv.Quote does (`\\"` for a quote,
    `\\\\` for a backslash): the value is the text between the quotes, unescaped, to its last character."""
    line = ('time=2024-03-05T20:21:14.681Z level=WARN msg="heartbeat errored" group="team \\"orders\\" \\\\ eu" '
            'err="REBALANCE_IN_PROGRESS: The group is rebalancing, so a rejoin is needed."')
    assert rows([line]) == [expected("HeartbeatResponse", "1.0-", group='team "orders" \\ eu',
                                     error="REBALANCE_IN_PROGRESS")]


def test_a_json_records_epoch_time_is_written_in_utc_whatever_the_machines_zone(monkeypatch):
    """zap's "ts" is seconds since the epoch, an instant: `layouts.key_values` writes it as a UTC date ("Z"),
    never in the local zone of the machine that reads the log."""
    import time as clock
    from kafkasim.analysis.logs.layouts import key_values
    monkeypatch.setenv("TZ", "America/New_York")
    clock.tzset()
    try:
        assert key_values({"ts": 1709670074.681, "msg": "joined"}) == "ts=2024-03-05T20:21:14.681Z msg=joined"
    finally:
        monkeypatch.undo()
        clock.tzset()


def test_a_json_records_object_value_is_written_as_compact_json_quoted():
    """A value that is no string (zap.Any of a map, a list) is written as Go's encoding/json would print it,
    without spaces, then quoted as slog quotes a value holding a quote."""
    from kafkasim.analysis.logs.layouts import key_values
    assert key_values({"msg": "entering OnPartitionsRevoked", "with": {"orders": [0, 1]}, "n": 2}) == \
        'msg="entering OnPartitionsRevoked" with="{\\"orders\\":[0,1]}" n=2'


def test_the_loop_error_after_the_requests_own_line_is_not_read_twice():
    """At INFO the failed join's WARN line comes first, then the fake fetch PollFetches returns and the manage
    loop's ERROR line (manageFailWait injects the one before it logs the other), all with the same error
    (consumer_group.go manage, consumer.go): one event."""
    got = rows([basic("WARN", "join group failed", "group", "orders", "err", FENCED),
                basic("INFO", "injecting fake fetch with an error", "err", "unable to join group session: " + FENCED,
                      "why", "notification of group management loop error"),
                basic("ERROR", "group manage loop errored", "group", "orders", "err", FENCED, "consecutive_errors", 1,
                      "backoff", "250ms")])
    assert [(r["kind"], r["error"]) for r in got] == [("JoinGroupResponse", "FENCED_INSTANCE_ID")]


def test_a_fetch_error_injected_is_no_group_error_and_other_messages_are_counted_only():
    """A fake fetch of a partition's error (data loss) is another logger's line to the reader; a known message
    without an event is counted as ignored, an unknown one as another logger's."""
    result = parse_lines([basic("INFO", "injecting fake fetch with an error", "err", "OFFSET_OUT_OF_RANGE: x", "why",
                                "notification of data loss"),
                          basic("INFO", "new group session begun", "group", "orders", "added", "orders[0]", "lost", ""),
                          basic("INFO", "assigning partitions", "why", "x")], origin=ORIGIN)
    assert result.rows == [] and result.unparsed == []
    assert (result.counts["ignored"], result.counts["other"]) == (1, 2)


def test_a_fetch_error_injected_in_a_line_tagged_with_a_group_is_still_no_group_error():
    """Only an ErrGroupSession ("unable to join group session: ...") is the group's: the other fake fetches
    (consumer.go addFakeReadyForDraining: data loss, a failed offset fetch) are a partition's, even when the
    application's slog logger puts a `group` attribute before the record's (`slog.With("group", ...)`), which
    makes the line one the reader searches."""
    tagged = ('time=2024-03-05T20:21:14.681Z level=INFO msg="injecting fake fetch with an error" group=orders '
              'err="OFFSET_OUT_OF_RANGE: x" why="notification of data loss"')
    result = parse_lines([tagged], origin=ORIGIN)
    assert result.rows == [] and result.counts["ignored"] == 1
    session = tagged.replace('err="OFFSET', 'err="unable to join group session: OFFSET')
    assert [(r["kind"], r["error"]) for r in rows([session])] == [("GroupSessionError", "OFFSET_OUT_OF_RANGE")]


def test_the_manage_loop_failing_again_with_the_same_error_is_one_group_session_error():
    """At LogLevelError only manageFailWait's "group manage loop errored" is printed, once per failed try
    (consumer_group.go, consecutive_errors 1, 2, ...): the reader reads it only when it names another error
    than the last one it read, so a try failing again alike adds no event, another error does."""
    def loop(n: int, err: str) -> str:
        return basic("ERROR", "group manage loop errored", "group", "orders", "err", err, "consecutive_errors", n,
                     "backoff", "250ms")
    got = rows([loop(1, FENCED), loop(2, FENCED), loop(3, "REBALANCE_IN_PROGRESS: x"), loop(4, FENCED)])
    assert [r["error"] for r in got] == ["FENCED_INSTANCE_ID", "REBALANCE_IN_PROGRESS", "FENCED_INSTANCE_ID"]


def test_the_manage_loops_error_after_a_kip_848_heartbeats_own_line_naming_it_is_not_a_second_error():
    """consumer_group_848.go logs the heartbeat's failure with its `err`, then the manage loop ends the try with
    the same error: one failure, read from the heartbeat's line. A line without `err` (the fenced epoch's,
    whose error is its wording) leaves the last error read as it was."""
    unknown = "UNKNOWN_MEMBER_ID: The coordinator is not aware of this member."
    heartbeat = basic("WARN", "consumer group heartbeat error, abandoning assignment and rejoining", "group", "orders",
                      "member_id", "Vx3kQ1", "generation", 14, "err", unknown)
    fenced = basic("INFO", "consumer group heartbeat saw fenced member epoch, abandoning assignment and rejoining",
                   "group", "orders", "member_id", "Vx3kQ1", "generation", 15)
    loop = basic("ERROR", "group manage loop errored", "group", "orders", "err", unknown, "consecutive_errors", 1,
                 "backoff", "250ms")
    assert [(r["kind"], r["error"]) for r in rows([heartbeat, fenced, loop])] == [
        ("ConsumerGroupHeartbeat", "UNKNOWN_MEMBER_ID"), ("ConsumerGroupHeartbeat", "FENCED_MEMBER_EPOCH")]


def test_words_of_franz_go_inside_other_text_are_no_record():
    """Its messages are read only in their framings: `[LEVEL] msg` then `; ` or the end, `msg=`."""
    result = parse_lines(["2024-03-05 20:21:14,681 INFO joining group orders now",
                          "[INFO] joining group because",
                          "notmsg=joined group=orders"], origin=ORIGIN)
    assert result.rows == [] and result.counts["other"] == 3


def test_duplicate_instance_ids_are_diagnosed_as_misconfiguration():
    """franz-go issue 479's situation seen from the client: two clients with one kgo.InstanceID, the join refused
    with FENCED_INSTANCE_ID (KIP-345)."""
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines([basic("INFO", "joining group", "group", "orders"),
                             basic("WARN", "join group failed", "group", "orders", "err", FENCED)], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("misconfiguration", "orders", 0.9)]
    assert [(e.file, e.line) for e in report.findings[0].evidence] == [("app.log", 2)]


def test_a_member_unknown_after_a_network_cut_is_diagnosed():
    from kafkasim.analysis.diagnose import diagnose_lines

    report = diagnose_lines([basic("INFO", "heartbeat errored", "group", "orders", "err",
                                   "unable to dial: dial tcp 10.0.0.7:9092: i/o timeout")], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [("network", "orders", 0.6)]


@pytest.mark.parametrize("cut", ["", "1e3", "-"])
def test_a_generation_that_is_no_int32_leaves_the_join_without_a_generation(cut):
    """franz-go prints `generation` as Go's %v of an int32 (consumer_group.go handleJoinResp): a value that is no
    whole number (empty, `1e3`, a lone sign: text the client never prints there) is not guessed, and the rest of
    the line is still read."""
    line = basic("INFO", "joined", "group", "orders", "member_id", "kgo-77", "instance_id", "<nil>",
                 "generation", cut, "leader", "false")
    assert rows([line]) == [expected("JoinGroupResponse", "1.0-", member="kgo-77")]


_PIECES = st.sampled_from([basic("INFO", "joined, balancing group", "group", "g", "member_id", "m", "instance_id",
                                 "<nil>", "generation", 1, "balance_protocol", "range", "leader", "true"),
                           basic("INFO", "heartbeat errored", "group", "g", "err", REBALANCING),
                           'time=2024-03-05T20:21:14Z level=INFO msg="leaving group" group=g member_id=m',
                           json.dumps({"ts": 1709670074.681, "msg": "synced", "group": "g", "assigned": "t[0]"}),
                           "[DEBUG] entering OnPartitionsLost; with: map[t:[0 1]]"])


@settings(max_examples=200, deadline=5000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated(_PIECES) | st.text(max_size=80), min_size=1, max_size=8))
def test_any_text_around_its_lines_gives_a_result(lines):
    lines = [x.replace("\n", " ").replace("\r", " ") for x in lines]
    for r in assert_read_whole(lines, ORIGIN).rows:
        assert r[ROW_FIELDS.index("log_source")] in ("franz-go", "broker", "java", "librdkafka", "kafka-python",
                                                     "sarama")


def test_consumers_closed_one_after_another_are_a_rolling_restart():
    """Two franz-go clients closed a minute apart (leave: "leaving group", member_id), each followed by a member
    id not seen before (a new process), none with an instance id: the rolling-restart rule (client_rules.py)."""
    from kafkasim.analysis.diagnose import diagnose_lines

    def at(hms: str, message: str) -> str:
        return f"2024-03-05 {hms}.000 [INFO] {message}"

    def joined(member: str, generation: int) -> str:
        return (f"joined; group: orders, member_id: {member}, instance_id: <nil>, generation: {generation}, "
                f"leader: false")

    report = diagnose_lines([at("20:00:00", joined("kgo-a", 1)), at("20:00:00", joined("kgo-b", 1)),
                             at("20:01:00", "leaving group; group: orders, member_id: kgo-a"),
                             at("20:01:10", joined("kgo-c", 3)),
                             at("20:02:00", "leaving group; group: orders, member_id: kgo-b"),
                             at("20:02:10", joined("kgo-d", 5))], "app.log")
    assert [(f.cause, f.group, f.score) for f in report.findings] == [
        ("rolling-restart-dynamic-members", "orders", 0.77)]
    assert [e.line for e in report.findings[0].evidence] == [3, 5]


def test_basic_loggers_values_run_to_the_next_expected_key_found_after_the_previous_one():
    """BasicLogger prints `msg; k: v, k: v` in the order of the Log call's keyvals: a key is looked for only
    after the previous key's value starts (a group id may hold ", err: "), its first occurrence there (an
    error text may hold ", member_id: "), and a key the line lacks is skipped, not the end of the search."""
    from kafkasim.analysis.logs.franz_go import _values
    keys = ("group", "member_id", "err")
    assert _values("; group: g, member_id: m, err: boom", keys, "basic") == \
        {"group": "g", "member_id": "m", "err": "boom"}
    assert _values("; member_id: m, err: boom", keys, "basic") == {"member_id": "m", "err": "boom"}
    assert _values("; group: g, err: boom", keys, "basic") == {"group": "g", "err": "boom"}
    assert _values("; group: team, err: eu, member_id: m, err: boom", keys, "basic") == \
        {"group": "team, err: eu", "member_id": "m", "err": "boom"}
    assert _values("; group: g, member_id: m, err: bad, member_id: n", keys, "basic") == \
        {"group": "g", "member_id": "m", "err": "bad, member_id: n"}
    # the first key's name inside no key: nothing; text that is not `; k: v`: nothing
    assert _values("; groups: g", keys, "basic") == {}
    assert _values(" group: g", keys, "basic") == {}
