"""librdkafka's lines in the layouts its log callbacks print (kafkasim.analysis.logs.librdkafka.LAYOUTS): each
layout written by hand from the format string of the source that prints it, around the same messages, read into
the same events (the templates read the message once the layout is peeled).

  rd_kafka_log_print      src/rdkafka.c (librdkafka 0.8-)        "%%%i|%u.%03u|%s|%s| %s\\n"
  the examples' logger    examples/rdkafka_example.c (0.8-)      "%u.%03u RDKAFKA-%i-%s: %s: %s\\n"
  rd_kafka_log_syslog     src/rdkafka.c (0.8-)                   syslog(level, "%s: %s: %s", fac, name, buf)
  confluent-kafka-python  src/confluent_kafka/src/confluent_kafka.c log_cb (0.11.4-): "%s [%s] %s" to logging
  confluent-kafka-go      kafka/log.go LogEvent.String() (1.4.0-): "[%v][%s][%s][%d]%s"
  confluent-kafka-dotnet  src/Confluent.Kafka/Loggers.cs ConsoleLogger (0.9.4-):
                          "{Level}|{now}|{Name}|{Facility}| {Message}"
"""

from __future__ import annotations

from datetime import datetime

import pytest

from kafkasim.analysis.logs import parse_lines
from reader_properties import read_rows

ORIGIN = datetime(2024, 3, 5)
#: 2024-03-05 20:16:14.681 (1709669774.681 s since the epoch) in ms since ORIGIN; the Go layout's RFC 3339 time has
#: whole seconds.
T = ((20 * 60 + 16) * 60 + 14) * 1000 + 681
T_SECONDS = T - 681
KEYS = ("time", "kind", "group", "member", "generation", "error", "reason", "value", "detail", "client", "log_source",
        "versions", "time_inferred")
NAME = "rdkafka#consumer-1"
#: rd_kafka_log0 puts "[thrd:%s]: " in front of the message (log.thread.name, on by default).
HEARTBEAT = ('[thrd:main]: Group "orders" heartbeat error response in state up (join-state steady, 2 partition(s) '
             'assigned): Broker: Unknown member')
MAXPOLL = ("[thrd:main]: Application maximum poll interval (300000ms) exceeded by 88ms (adjust max.poll.interval.ms "
           "for long-running message processing): leaving group")


def layouts(level: int, level_name: str, fac: str, buf: str) -> dict[str, str]:
    """One librdkafka line as each callback prints it (the python and syslog lines behind their own heads)."""
    return {
        "rd_kafka_log_print": f"%{level}|1709669774.681|{fac}|{NAME}| {buf}",
        "examples": f"1709669774.681 RDKAFKA-{level}-{fac}: {NAME}: {buf}",
        "syslog": f"2024-03-05T20:16:14.681 host-1 rdkafka[4242]: {fac}: {NAME}: {buf}",
        # logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s %(message)s")
        "python": f"2024-03-05 20:16:14,681 {level_name.upper()} consumer {fac} [{NAME}] {buf}",
        "go": f"[2024-03-05T20:16:14Z][{NAME}][{fac}][{level}]{buf}",
        "dotnet": f"{level_name}|2024-03-05 20:16:14.681|{NAME}|{fac}| {buf}",
    }


def rows(lines) -> list[dict]:
    return read_rows(lines, KEYS, ORIGIN)


def expected(kind, versions, time=T, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=time, kind=kind, client=NAME, log_source="librdkafka", versions=versions, time_inferred=False)
    row.update(fields)
    return row


@pytest.mark.parametrize("layout", list(layouts(7, "Debug", "HEARTBEAT", HEARTBEAT)))
def test_every_layout_reads_a_heartbeat_error_as_the_same_event(layout):
    line = layouts(7, "Debug", "HEARTBEAT", HEARTBEAT)[layout]
    time = T_SECONDS if layout == "go" else T
    assert rows([line]) == [expected("HeartbeatResponse", "1.6-", time, group="orders", error="UNKNOWN_MEMBER_ID")]


@pytest.mark.parametrize("layout", list(layouts(4, "Warning", "MAXPOLL", MAXPOLL)))
def test_every_layout_reads_the_poll_timeout_warning(layout):
    line = layouts(4, "Warning", "MAXPOLL", MAXPOLL)[layout]
    time = T_SECONDS if layout == "go" else T
    assert rows([line]) == [
        expected("PollTimeout", "1.0-", time, reason="poll_timeout", value=300088.0),
        expected("ClientConfig", "1.0-", time, reason="max.poll.interval.ms", value=300000.0, detail="300000")]


def test_the_examples_logger_of_0_9_without_thread_names_and_with_a_brokers_name():
    """0.9's lines as librdkafka-568 and -1374 show them: no "[thrd:...]: " (log.thread.name off), the broker's name
    (rd_rkb_dbg's `extra`) in front of a broker thread's message, and 0.9-1.5's "join state" wording."""
    lines = ['1456576794.650 RDKAFKA-7-HEARTBEAT: rdkafka#consumer-1: Group "g1" heartbeat error response in state up '
             '(join state assigned, 1 partition(s) assigned): Broker: Group rebalance in progress',
             '1456576794.650 RDKAFKA-7-CGRPCOORD: rate#consumer-1: [thrd:10.0.0.7:9091/5]: 10.0.0.7:9091/5: Group "g1" '
             'changing coordinator 5 -> 3']
    t = (1456576794650 - int((ORIGIN - datetime(1970, 1, 1)).total_seconds() * 1000))
    assert rows(lines) == [
        expected("HeartbeatResponse", "0.9-1.5", t, group="g1", error="REBALANCE_IN_PROGRESS"),
        expected("CoordinatorDiscovered", "0.9-", t, group="g1", detail="broker 3",
                 reason="changing coordinator 5 -> 3", client="rate#consumer-1")]


def test_protocol_traces_are_known_lines_without_events():
    """RECV/SEND/REQERR/RETRY/BROKERFAIL trace every request of every broker (debug=protocol, broker): the request's
    name, size and round trip, not its group's answer; the cgrp lines printed beside them carry the event."""
    lines = ["1456576794.621 RDKAFKA-7-RECV: rdkafka#consumer-1: localhost:9093/0: Received HeartbeatResponse (v0, 2 "
             "bytes, CorrId 131, rtt 2.47ms)",
             "1456576794.650 RDKAFKA-7-REQERR: rdkafka#consumer-1: localhost:9093/0: HeartbeatRequest failed: Broker: "
             "Group rebalance in progress: explicit actions 0x0",
             "%7|1502951784.868|SEND|rate#consumer-1| [thrd:10.0.0.7:9091/5]: 10.0.0.7:9091/5: Sent JoinGroupRequest "
             "(v0, 93 bytes @ 0, CorrId 5)"]
    result = parse_lines(lines, origin=ORIGIN)
    assert result.rows == [] and result.unparsed == []
    assert (result.counts["coordinator"], result.counts["ignored"]) == (3, 3)


def test_a_producer_or_admin_handle_is_another_loggers_line():
    result = parse_lines([f"%7|1709669774.681|HEARTBEAT|rdkafka#producer-1| {HEARTBEAT}",
                          f"2024-03-05 20:16:14,681 DEBUG kafka HEARTBEAT [rdkafka#producer-1] {HEARTBEAT}"],
                         origin=ORIGIN)
    assert result.rows == [] and result.unparsed == [] and result.counts["other"] == 2


def test_an_unknown_warning_of_a_strict_facility_is_kept_aside_in_every_layout():
    lines = list(layouts(4, "Warning", "MAXPOLL", "[thrd:main]: Application maximum poll interval exceeded").values())
    result = parse_lines(lines, origin=ORIGIN)
    assert result.rows == []
    assert [(u[1], u[2]) for u in result.unparsed] == [(n, "unrecognised wording") for n in range(1, len(lines) + 1)]


def test_a_python_json_logger_line_and_a_container_prefix_are_read_through():
    """python-json-logger writes the record as JSON (the message and asctime as fields); docker compose puts the
    service's name in front of the Go binding's line."""
    json_line = ('{"asctime": "2024-03-05 20:16:14,681", "levelname": "WARNING", "message": "MAXPOLL [' + NAME +
                 '] [thrd:main]: Application maximum poll interval (60000ms) exceeded by 12ms (adjust '
                 'max.poll.interval.ms for long-running message processing): leaving group"}')
    go_line = "worker-1  | " + layouts(7, "Debug", "HEARTBEAT", HEARTBEAT)["go"]
    assert [(r["kind"], r["time"], r["value"], r["error"]) for r in rows([json_line, go_line])] == [
        ("PollTimeout", T, 60012.0, None), ("ClientConfig", T, 60000.0, None),
        ("HeartbeatResponse", T_SECONDS, None, "UNKNOWN_MEMBER_ID")]


def test_a_cut_warning_is_kept_aside_as_truncated():
    line = layouts(4, "Warning", "SESSTMOUT", "[thrd:main]: Consumer group session timed out (in join-state steady) "
                                              "after 45012 ms without a successful response from...")["python"]
    result = parse_lines([line], origin=ORIGIN)
    assert result.rows == [] and [(u[1], u[2]) for u in result.unparsed] == [(1, "truncated or unrecognised wording")]
