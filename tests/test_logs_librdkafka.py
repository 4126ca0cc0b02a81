"""librdkafka's lines (kafkasim.analysis.logs.librdkafka): each line's expected event written by hand from
the format strings of src/rdkafka_cgrp.c, src/rdkafka.c and src/rdkafka_conf.c at the release named
beside it, as `rd_kafka_log_print` writes them to stderr (`%LEVEL|SECONDS.MILLIS|FAC|NAME| message`),
bare or behind docker compose and `kubectl logs --prefix` prefixes."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from kafkasim.analysis.logs import ROW_FIELDS, librdkafka, parse_lines
from reader_properties import read_rows
from kafkasim.analysis.logs.wording import Ctx
from kafkasim.core.events import FIELDS

#: A builder's event tuple (wording.event): the event schema, then what a line tells beyond it.
EVENT = (*FIELDS, "detail", "client", "instance")
ORIGIN = datetime(2024, 3, 5)
#: 1709669774.681 s since the epoch is 2024-03-05 20:16:14.681 UTC: ms since ORIGIN
T = ((20 * 60 + 16) * 60 + 14) * 1000 + 681
KEYS = ("time", "source", "group", "member", "kind", "generation", "error", "reason", "value", "state", "log_source",
        "versions", "detail", "client")


def rd(level: int, fac: str, message: str, name: str = "rdkafka#consumer-1", thread: str = "main") -> str:
    return f"%{level}|1709669774.681|{fac}|{name}| [thrd:{thread}]: {message}"


def rows(lines) -> list[dict]:
    return read_rows(lines, KEYS, ORIGIN)


def expected(kind, versions, **fields) -> dict:
    row = {k: None for k in KEYS}
    row.update(time=T, source="consumer", kind=kind, log_source="librdkafka", versions=versions,
               client="rdkafka#consumer-1")
    row.update(fields)
    return row


@pytest.mark.parametrize("line,events", [
    # rdkafka_cgrp.c 1.0+: rd_kafka_log(LOG_WARNING, "MAXPOLL", "Application maximum poll interval (%dms) exceeded by
    # %dms (adjust max.poll.interval.ms for long-running message processing): leaving group")
    (rd(4, "MAXPOLL", "Application maximum poll interval (300000ms) exceeded by 88ms (adjust max.poll.interval.ms for "
                      "long-running message processing): leaving group"),
     [expected("PollTimeout", "1.0-", reason="poll_timeout", value=300088.0),
      expected("ClientConfig", "1.0-", reason="max.poll.interval.ms", value=300000.0, detail="300000")]),
    # 1.4+: rd_kafka_cgrp_session_timeout_check, "%s: revoking assignment and rejoining group"
    (rd(4, "SESSTMOUT", "Consumer group session timed out (in join-state steady) after 45012 ms without a successful "
                        "response from the group coordinator (broker 1, last error was Broker: Not coordinator): "
                        "revoking assignment and rejoining group"),
     [expected("SessionTimeout", "1.4-", error="NOT_COORDINATOR", value=45012.0, detail="steady")]),
    (rd(4, "SESSTMOUT", "Consumer group session timed out (in join-state wait-sync) after 10003 ms without a "
                        "successful response from the group coordinator (broker 2, last error was Success): revoking "
                        "assignment and rejoining group"),
     [expected("SessionTimeout", "1.4-", value=10003.0, detail="wait-sync")]),
    # 1.6+ (debug=cgrp): "Group \"%s\" heartbeat error response in state %s (join-state %s, %d partition(s)
    # assigned): %s" with rd_kafka_err2str
    (rd(7, "HEARTBEAT", 'Group "orders" heartbeat error response in state up (join-state steady, 2 partition(s) '
                        'assigned): Broker: Group rebalance in progress'),
     [expected("HeartbeatResponse", "1.6-", group="orders", error="REBALANCE_IN_PROGRESS")]),
    (rd(7, "HEARTBEAT", "Heartbeat failed due to coordinator (broker-1:9092/1) no longer available: Local: Broker "
                        "transport failure: re-querying for coordinator"),
     [expected("HeartbeatResponse", "1.0-", error="_TRANSPORT")]),
    # 1.6+: "JoinGroup response: GenerationId %d, Protocol %.*s, LeaderId %.*s%s, my MemberId %.*s, member metadata
    # count %d: %s" (" (me)" when this member leads; "(no error)" or err2str); 0.9.4 - 1.5 said "%d members in group"
    (rd(7, "JOINGROUP", "JoinGroup response: GenerationId 5, Protocol range, LeaderId rdkafka-9f1b (me), my MemberId "
                        "rdkafka-9f1b, member metadata count 2: (no error)"),
     [expected("JoinGroupResponse", "1.6-", member="rdkafka-9f1b", generation=5, reason="range")]),
    (rd(7, "JOINGROUP", "JoinGroup response: GenerationId -1, Protocol , LeaderId , my MemberId , member metadata "
                        "count 0: Broker: Unknown member"),
     [expected("JoinGroupResponse", "1.6-", generation=-1, error="UNKNOWN_MEMBER_ID")]),
    # 1.6+: "Group \"%.*s\" %s (%s) in state %s (join-state %s) with %d assigned partition(s)%s: %s"
    (rd(7, "REBALANCE", 'Group "orders" is rebalancing (EAGER) in state up (join-state steady) with 2 assigned '
                        'partition(s): rebalance in progress'),
     [expected("RebalanceStarted", "1.6-", group="orders", reason="rebalance in progress", value=2.0,
               detail="EAGER")]),
    (rd(7, "REBALANCE", 'Group "orders" initiating rebalance (COOPERATIVE) in state up (join-state steady) with 3 '
                        'assigned partition(s) (lost): Heartbeat failed: Broker: Unknown member'),
     [expected("RebalanceStarted", "1.6-", group="orders", reason="Heartbeat failed: Broker: Unknown member",
               value=3.0, detail="COOPERATIVE")]),
    (rd(7, "REBALANCE", 'Group "orders": revoking all 3 partition(s) (assignment lost)'),
     [expected("PartitionsLost", "1.6-", group="orders", value=3.0)]),
    # rd_kafka_cgrp_handle_assignment: "Group \"%s\": new assignment of %d partition(s) in join-state %s" (1.6-),
    # "in join state %s" (0.9.4 - 1.5): the only line of a new member's join that names its group
    (rd(7, "ASSIGN", 'Group "orders": new assignment of 2 partition(s) in join-state wait-sync'),
     [expected("PartitionsAssigned", "1.6-", group="orders", value=2.0)]),
    (rd(7, "ASSIGN", 'Group "orders": new assignment of 0 partition(s) in join state wait-assign-rebalance_cb'),
     [expected("PartitionsAssigned", "0.9.4-1.5", group="orders", value=0.0)]),
    # 0.9 - 1.5: the same heartbeat line said "join state" (no hyphen)
    (rd(7, "HEARTBEAT", 'Group "g1" heartbeat error response in state up (join state assigned, 1 partition(s) '
                        'assigned): Broker: Specified group generation id is not valid'),
     [expected("HeartbeatResponse", "0.9-1.5", group="g1", error="ILLEGAL_GENERATION")]),
    # 0.9.4 - 1.5: "JoinGroup response: GenerationId %d, Protocol %.*s, LeaderId %.*s%s, my MemberId %.*s, %d members
    # in group: %s"
    (rd(7, "JOINGROUP", "JoinGroup response: GenerationId 12, Protocol roundrobin, LeaderId rdkafka-1a, my MemberId "
                        "rdkafka-2b, 0 members in group: (no error)"),
     [expected("JoinGroupResponse", "0.9.4-1.5", member="rdkafka-2b", generation=12, reason="roundrobin")]),
    # 1.0 - 1.5: "Group \"%.*s\" is rebalancing in state %s (join-state %s) %s assignment: %s" (with/without)
    (rd(7, "REBALANCE", 'Group "orders" is rebalancing in state up (join-state started) without assignment: group '
                        'rejoin'),
     [expected("RebalanceStarted", "1.0-1.5", group="orders", reason="group rejoin")]),
    # group.protocol=consumer (KIP-848), 2.4+: rd_kafka_cgrp_handle_ConsumerGroupHeartbeat, "ConsumerGroupHeartbeat
    # failed due to: %s: will rejoin the group" (UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH) and the coordinator's two
    (rd(7, "HEARTBEAT", "ConsumerGroupHeartbeat failed due to: Broker: The member epoch is fenced by the group "
                        "coordinator: will rejoin the group"),
     [expected("ConsumerGroupHeartbeat", "2.4-", error="FENCED_MEMBER_EPOCH")]),
    (rd(7, "HEARTBEAT", "ConsumerGroupHeartbeat failed due to coordinator (broker-2:9092/2) loading in progress: "
                        "Broker: Coordinator load in progress: retrying"),
     [expected("ConsumerGroupHeartbeat", "2.4-", error="COORDINATOR_LOAD_IN_PROGRESS")]),
    (rd(7, "HEARTBEAT", "ConsumerGroupHeartbeat failed due to coordinator (none) no longer available: Local: Broker "
                        "transport failure: re-querying for coordinator"),
     [expected("ConsumerGroupHeartbeat", "2.4-", error="_TRANSPORT")]),
    # rdkafka.c rd_kafka_set_fatal_error: LOG_EMERG "Fatal error: %s: %s"; 2.4+ "ConsumerGroupHeartbeat fatal error: %s"
    (rd(0, "FATAL", "Fatal error: Broker: The instance ID is still used by another member in the consumer group: "
                    "ConsumerGroupHeartbeat fatal error: Broker: The instance ID is still used by another member in "
                    "the consumer group"),
     [expected("ConsumerGroupHeartbeat", "2.4-", error="UNRELEASED_INSTANCE_ID")]),
    # 1.4+: "Fatal consumer error: %s" (a static member fenced by a newer instance)
    (rd(0, "FATAL", "Fatal error: Broker: Static consumer fenced by other consumer with same group.instance.id: Fatal "
                    "consumer error: Broker: Static consumer fenced by other consumer with same group.instance.id"),
     [expected("FatalError", "1.4-", error="FENCED_INSTANCE_ID")]),
    # CGRPCOORD, a broker thread's line (rd_rkb_dbg: the broker's name in front): 0.9 - 1.3 "Group \"%.*s\"
    # GroupCoordinator response error: %s" (err2str); 1.4+ "... FindCoordinator response error: %s: %s" (err2name)
    (rd(7, "CGRPCOORD", 'kafkanode145:9092/145: Group "billing" GroupCoordinator response error: Broker: Group '
                        'coordinator not available'),
     [expected("CoordinatorNotFound", "0.9-1.3", group="billing", error="COORDINATOR_NOT_AVAILABLE",
               detail="kafkanode145:9092/145")]),
    (rd(7, "CGRPCOORD", 'GroupCoordinator/3: Group "billing" FindCoordinator response error: NOT_COORDINATOR: '
                        'Broker: Not coordinator', thread="GroupCoordinator"),
     [expected("CoordinatorNotFound", "1.4-", group="billing", error="NOT_COORDINATOR", detail="GroupCoordinator/3")]),
    (rd(7, "CGRPCOORD", 'Group "billing" changing coordinator 3 -> 1'),
     [expected("CoordinatorDiscovered", "0.9-", group="billing", detail="broker 1",
               reason="changing coordinator 3 -> 1")]),
    # LEAVE: "Group \"%.*s\": leave" (0.9), "... leave (in state %s)" (0.11.6+)
    (rd(7, "LEAVE", 'Group "orders": leave (in state up)'),
     [expected("LeaveGroup", "0.9-", group="orders", state="up")]),
    # rdkafka_conf.c 1.6+ (debug=conf): rd_kafka_dbg(CONF, "CONF", "  %s = %s")
    (rd(7, "CONF", "  session.timeout.ms = 45000", thread="app"),
     [expected("ClientConfig", "1.6-", reason="session.timeout.ms", value=45000.0, detail="45000")]),
    (rd(7, "CONF", "  group.instance.id = pod-0", thread="app"),
     [expected("ClientConfig", "1.6-", reason="group.instance.id", detail="pod-0")]),
    # rdkafka.c 1.0+: "librdkafka v%s (0x%x) %s initialized (builtin.features %s, %s, debug 0x%x)"
    (rd(7, "INIT", "librdkafka v2.3.0 (0x20300ff) rdkafka#consumer-1 initialized (builtin.features gzip,snappy,ssl,"
                   "sasl,regex,lz4,sasl_gssapi,sasl_plain,sasl_scram,plugins,zstd,sasl_oauthbearer,http,oidc, GCC GXX "
                   "PKGCONFIG INSTALL GNULD LDS C11THREADS LIBDL PLUGINS ZLIB SSL SASL_CYRUS HDRHISTOGRAM SYSLOG "
                   "SNAPPY SOCKEM SASL_SCRAM SASL_OAUTHBEARER OAUTHBEARER_OIDC CRC32C_HW, debug 0x2000)", thread="app"),
     [expected("ClientVersion", "1.0-", detail="2.3.0")]),
])
def test_each_wording_reads_as_its_event(line, events):
    assert rows([line]) == events


def test_a_client_id_names_the_handle_and_prefixes_are_read_through():
    """The handle is `<client.id>#consumer-<n>`; docker compose and `kubectl logs --prefix` put theirs in front."""
    line = rd(4, "MAXPOLL", "Application maximum poll interval (60000ms) exceeded by 12ms (adjust "
                            "max.poll.interval.ms for long-running message processing): leaving group",
              name="billing-svc#consumer-2")
    got = rows(["worker-1  | " + line, "[pod/worker-0/app] " + line])
    assert [(r["kind"], r["client"], r["value"]) for r in got] == [
        ("PollTimeout", "billing-svc#consumer-2", 60012.0), ("ClientConfig", "billing-svc#consumer-2", 60000.0)] * 2


def test_an_unknown_warning_of_a_strict_facility_is_kept_aside():
    result = parse_lines([rd(4, "MAXPOLL", "Application maximum poll interval exceeded")], origin=ORIGIN)
    assert result.rows == [] and [(u[1], u[2]) for u in result.unparsed] == [(1, "unrecognised wording")]


def test_debug_lines_of_other_facilities_and_settings_are_counted_only():
    result = parse_lines([rd(7, "FETCH", "Fetch topic orders [0] at offset 12"),
                          rd(7, "CONF", "  socket.keepalive.enable = true", thread="app")], origin=ORIGIN)
    assert result.rows == [] and result.unparsed == [] and result.counts["ignored"] == 2


def test_the_lines_own_stamp_is_its_time_whatever_is_in_front():
    """The epoch stamp is UTC (rd_gettimeofday), and it is the line's time even behind a container runtime's
    stamp (a CRI line written 44 minutes later, say, by a buffering pipe)."""
    line = rd(7, "REBALANCE", 'Group "g": revoking all 0 partition(s)')
    result = parse_lines([line, "2024-03-05T21:00:00.000000000Z stdout F " + line], origin=ORIGIN)
    assert [r[0] for r in result.rows] == [T, T]
    assert [r[ROW_FIELDS.index("time_inferred")] for r in result.rows] == [False, False]


def test_revoking_all_partitions_is_a_revoke_unless_the_assignment_is_lost():
    """rd_kafka_cgrp_revoke_all_rejoin (src/rdkafka_cgrp.c, 1.6+), COOPERATIVE: "Group \"%.*s\": revoking all %d
    partition(s)%s%s", " (terminating)" when the consumer closes, " (assignment lost)" when the group lost it.
    Only the lost ones are PartitionsLost; a close hands them back (PartitionsRevoked)."""
    got = rows([rd(7, "REBALANCE", 'Group "orders": revoking all 3 partition(s) (terminating)'),
                rd(7, "REBALANCE", 'Group "orders": revoking all 2 partition(s) (terminating) (assignment lost)')])
    assert got == [expected("PartitionsRevoked", "1.6-", group="orders", value=3.0),
                   expected("PartitionsLost", "1.6-", group="orders", value=2.0)]


def test_a_fatal_error_is_an_event_at_the_lines_time_naming_the_handle():
    """rd_kafka_set_fatal_error's "Fatal error: %s: Fatal consumer error: %s" (1.4+): the consumer stops at the line's
    time."""
    template = librdkafka.TEMPLATES["FATAL"][1][0]
    fenced = "Broker: Static consumer fenced by other consumer with same group.instance.id"
    m = template.full.fullmatch(f"Fatal error: {fenced}: Fatal consumer error: {fenced}")
    mark = re.fullmatch(librdkafka._NAME, "rdkafka#consumer-1")
    (row,) = template.build(m, T, Ctx("rd", False, mark=mark))
    assert dict(zip(EVENT, row)) == {**dict.fromkeys(EVENT), "time": T, "source": "consumer",
                                          "kind": "FatalError", "error": "FENCED_INSTANCE_ID",
                                          "client": "rdkafka#consumer-1"}
