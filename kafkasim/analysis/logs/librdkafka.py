"""librdkafka's consumer-group lines (the C client under confluent-kafka-python, -go and -dotnet, and
many others), 0.9 to 2.x, in the layouts librdkafka and its bindings print them (LAYOUTS).

librdkafka hands each line to a log callback as (level, facility, handle name, message); the layout
is the callback's. Its default (`rd_kafka_log_print` in `src/rdkafka.c`) prints
`%LEVEL|SECONDS.MILLIS|FACILITY|NAME| [thrd:THREAD]: message`, where NAME is the handle's name,
`<client.id>#consumer-<n>` (`rdkafka#consumer-1` by default); the bindings print the same four
fields their own way. Each layout is one prefix pattern ending where the message begins: the same
TEMPLATES read the message whatever the layout.

Read at each release tag from `src/rdkafka_cgrp.c` (MAXPOLL, SESSTMOUT, HEARTBEAT, JOINGROUP,
REBALANCE, CGRPCOORD, LEAVE), `src/rdkafka.c` (INIT, FATAL) and `src/rdkafka_conf.c` (CONF, the settings
printed under `debug=conf`); each template says the releases whose source has its wording
(docs/log-reader.md). MAXPOLL, SESSTMOUT and FATAL are warnings or errors, printed by default; the
others are printed only with `debug=cgrp` (or `consumer`, `conf`). The time is the line's own epoch
stamp (seconds since the epoch, UTC) where the layout has one, else the date in front of the prefix.

Errors are printed as `rd_kafka_err2str` words ("Broker: Group rebalance in progress"): the ones a
rebalance meets are named as Kafka names them (ERRORS), any other is kept as `reason`.
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.wording import Template, event, number

#: The handle's name (`rd_kafka_name`: `<client.id>#consumer-<n>`, src/rdkafka.c rd_kafka_new) and the facility.
_NAME = r"(?P<rd_name>[^\s|#:\[\]]*+#consumer-\d++)"
_FAC = r"(?P<rd_fac>[A-Z][A-Z0-9_]*+)"
#: What `rd_kafka_log0` (src/rdkafka.c) puts in front of every message: the thread's name (`log.thread.name`,
#: on by default from 0.9.4) and, for a broker's line (`rd_rkb_dbg`), the broker's name
#: (`[proto://]host:port/id`, or `GroupCoordinator/id`).
_BUF = r"(?:\[thrd:[^\]]*+\]: )?(?:(?P<rd_broker>(?:[a-z_]++://)?[^\s/:\[\]\"]++(?::\d++)?/\w++): )?"
#: prefix -> its pattern up to the message, each from the source that prints it (docs/log-reader.md):
LAYOUTS = {
    # librdkafka's default log_cb, rd_kafka_log_print (src/rdkafka.c, 0.8-): "%%%i|%u.%03u|%s|%s| %s\n"
    "rdkafka": r"%?(?P<rd_level>[0-7])\|(?P<rd_ts>\d{9,11}\.\d{3})\|" + _FAC + r"\|" + _NAME + r"\| ",
    # the logger of librdkafka's example programs (examples/rdkafka_example.c, rdkafka_consumer_example.c 0.9-1.2,
    # rdkafka_complex_consumer_example.c 1.3-): "%u.%03u RDKAFKA-%i-%s: %s: %s\n"
    "rdkafka_example": r"(?P<rd_ts>\d{9,11}\.\d{3}) RDKAFKA-(?P<rd_level>[0-7])-" + _FAC + ": " + _NAME + ": ",
    # librdkafka's syslog log_cb, rd_kafka_log_syslog (src/rdkafka.c, 0.8-): syslog(level, "%s: %s: %s", ...)
    "rdkafka_syslog": r"(?<![\w-])" + _FAC + ": " + _NAME + ": ",
    # confluent-kafka-python with `logger=` (src/confluent_kafka/src/confluent_kafka.c log_cb, 0.11.4-):
    # logger.log(level, "%s [%s] %s", fac, rd_kafka_name(rk), buf), behind the logging module's format
    "rdkafka_python": r"(?<![\w-])" + _FAC + r" \[" + _NAME + r"\] ",
    # confluent-kafka-go LogEvent.String() (kafka/log.go, 1.4.0-): "[%v][%s][%s][%d]%s" (RFC 3339 time, name,
    # tag, level, message)
    "rdkafka_go": r"\[" + _NAME + r"\]\[" + _FAC + r"\]\[(?P<rd_level>[0-7])\]",
    # confluent-kafka-dotnet Loggers.ConsoleLogger (src/Confluent.Kafka/Loggers.cs, 0.9.4-):
    # "{logInfo.Level}|{now}|{logInfo.Name}|{logInfo.Facility}| {logInfo.Message}" (local time, yyyy-MM-dd HH:mm:ss.fff)
    "rdkafka_dotnet": r"\|" + _NAME + r"\|" + _FAC + r"\| ",
}
FREE = tuple(("#consumer-", f"(?P<{prefix}>{pattern}{_BUF})") for prefix, pattern in LAYOUTS.items())
PREFIXES = tuple(LAYOUTS)
#: The prefixes whose time is in the mark itself (seconds since the epoch, UTC): prefix -> group.
EPOCH = {"rdkafka": "rd_ts", "rdkafka_example": "rd_ts"}
#: `rd_kafka_err2str` of the errors a rebalance meets (`rd_kafka_err_descs` in src/rdkafka.c) -> Kafka's name;
#: the coordinator errors were reworded in 1.3 ("Broker: Group coordinator not available" 0.9-1.2).
ERRORS = {"Broker: Group rebalance in progress": "REBALANCE_IN_PROGRESS",
          "Broker: Unknown member": "UNKNOWN_MEMBER_ID",
          "Broker: Specified group generation id is not valid": "ILLEGAL_GENERATION",
          "Broker: Not coordinator": "NOT_COORDINATOR",
          "Broker: Not coordinator for group": "NOT_COORDINATOR",
          "Broker: Coordinator not available": "COORDINATOR_NOT_AVAILABLE",
          "Broker: Group coordinator not available": "COORDINATOR_NOT_AVAILABLE",
          "Broker: Coordinator load in progress": "COORDINATOR_LOAD_IN_PROGRESS",
          "Broker: Group coordinator load in progress": "COORDINATOR_LOAD_IN_PROGRESS",
          "Broker: Invalid session timeout": "INVALID_SESSION_TIMEOUT",
          "Broker: Inconsistent group protocol": "INCONSISTENT_GROUP_PROTOCOL",
          "Broker: Static consumer fenced by other consumer with same group.instance.id": "FENCED_INSTANCE_ID",
          "Broker: Group member needs a valid member ID": "MEMBER_ID_REQUIRED",
          "Broker: Consumer group has reached maximum size": "GROUP_MAX_SIZE_REACHED",
          "Broker: The member epoch is fenced by the group coordinator": "FENCED_MEMBER_EPOCH",
          "Broker: The member epoch is stale": "STALE_MEMBER_EPOCH",
          "Broker: The instance ID is still used by another member in the consumer group": "UNRELEASED_INSTANCE_ID",
          "Broker: The assignor or its version range is not supported by the consumer group": "UNSUPPORTED_ASSIGNOR",
          "Local: Broker transport failure": "_TRANSPORT",
          "Local: Timed out": "_TIMED_OUT"}
#: Settings printed under debug=conf kept as ClientConfig events (librdkafka's CONFIGURATION.md names).
SETTINGS = ("group.id", "client.id", "group.instance.id", "group.protocol", "group.remote.assignor",
            "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "partition.assignment.strategy",
            "enable.auto.commit", "auto.commit.interval.ms", "coordinator.query.interval.ms")
_NUMERIC = re.compile(r"-?\d{1,18}")


def _ev(t, ctx, kind, group=None, **fields) -> tuple:
    return event(t, "consumer", kind, group, client=ctx.mark.group("rd_name"), **fields)


def _error(text: str) -> dict:
    """`error` (Kafka's name) when librdkafka's words are known, else the words as `reason`."""
    name = ERRORS.get(text.strip())
    return {"error": name} if name else ({} if text.strip() in ("Success", "(no error)") else {"reason": text})


def _max_poll(m, t, ctx):
    interval, over = number(m["i"]), number(m["x"])
    return [_ev(t, ctx, "PollTimeout", reason="poll_timeout", value=float(interval + over)),
            _ev(t, ctx, "ClientConfig", reason="max.poll.interval.ms", value=float(interval), detail=m["i"])]


def _session_timeout(m, t, ctx):
    return [_ev(t, ctx, "SessionTimeout", value=float(number(m["ms"])), detail=m["js"], **_error(m["e"]))]


def _heartbeat(kind: str, m, t, ctx):
    """A heartbeat answered with an error: the classic protocol's Heartbeat, or (2.4+, group.protocol=consumer)
    the ConsumerGroupHeartbeat (KIP-848)."""
    return [_ev(t, ctx, kind, m.groupdict().get("g"), **_error(m["e"]))]


def _fatal(kind: str, m, t, ctx):
    """`rd_kafka_set_fatal_error`: the consumer stops. KIP-848's fatal heartbeat errors (UNRELEASED_INSTANCE_ID,
    GROUP_MAX_SIZE_REACHED, UNSUPPORTED_ASSIGNOR, ...) are ConsumerGroupHeartbeat answers; the classic protocol's
    (FENCED_INSTANCE_ID, from a JoinGroup, SyncGroup or Heartbeat answer the line does not name) a FatalError."""
    return [_ev(t, ctx, kind, **_error(m["e"]))]


def _coordinator_error(m, t, ctx):
    """FindCoordinator (GroupCoordinator before 1.4) answered with an error: no coordinator for the group. From
    1.4 the line names the error (`rd_kafka_err2name`: Kafka's name, `_`-prefixed for librdkafka's own)."""
    found = m.groupdict()
    fields = {"error": found["n"]} if found.get("n") else _error(found["s"])
    return [_ev(t, ctx, "CoordinatorNotFound", m["g"], detail=ctx.mark.group("rd_broker"), **fields)]


def _coordinator_changed(m, t, ctx):
    return [_ev(t, ctx, "CoordinatorDiscovered", m["g"], detail=f"broker {m['to']}",
                reason=f"changing coordinator {m['fr']} -> {m['to']}")]


def _leave(m, t, ctx):
    return [_ev(t, ctx, "LeaveGroup", m["g"], state=m["s"])]


def _joined(m, t, ctx):
    fields = _error(m["e"])
    return [_ev(t, ctx, "JoinGroupResponse", member=m["m"] or None, generation=number(m["n"]),
                reason=fields.get("reason", m["p"] or None), error=fields.get("error"))]


def _rebalance(m, t, ctx):
    found = m.groupdict()
    count = found.get("c")
    return [_ev(t, ctx, "RebalanceStarted", m["g"], reason=m["r"], value=float(number(count)) if count else None,
                detail=found.get("p"))]


def _revoking_all(m, t, ctx):
    kind = "PartitionsLost" if m["lost"] else "PartitionsRevoked"
    return [_ev(t, ctx, kind, m["g"], value=float(number(m["c"])))]


def _assigned(m, t, ctx):
    """The group's new assignment, as a count (the line lists no partition): it names the group, which the
    JoinGroup and SyncGroup lines beside it do not."""
    return [_ev(t, ctx, "PartitionsAssigned", m["g"], value=float(number(m["c"])))]


def _conf(m, t, ctx):
    name, text = m["k"], m["v"].strip()
    if name not in SETTINGS:
        return []
    value = float(text) if _NUMERIC.fullmatch(text) else None
    return [_ev(t, ctx, "ClientConfig", reason=name, value=value, detail=text)]


def _init(m, t, ctx):
    return [_ev(t, ctx, "ClientVersion", detail=m["v"])]


_GROUP = r"Group \"(?P<g>[^\"]*+)\""
_BEAT = partial(_heartbeat, "HeartbeatResponse")
_CG_BEAT = partial(_heartbeat, "ConsumerGroupHeartbeat")
TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    "MAXPOLL": (True, [Template(r"Application maximum poll interval \((?P<i>\d++)ms\) exceeded by (?P<x>\d++)ms "
                                r"\(adjust max\.poll\.interval\.ms for long-running message processing\): "
                                r"leaving group", "", _max_poll, versions="1.0-")]),
    "SESSTMOUT": (True, [Template(r"Consumer group session timed out \(in join-state (?P<js>[\w-]++)\) after "
                                  r"(?P<ms>\d++) ms without a successful response from the group coordinator \(broker "
                                  r"-?\d++, last error was (?P<e>[^)]*+)\): revoking assignment and rejoining group",
                                  "", _session_timeout, versions="1.4-")]),
    # rd_kafka_set_fatal_error (src/rdkafka.c 1.0-): "Fatal error: %s: %s" (err2str, then the caller's words:
    # "Fatal consumer error: %s" in rdkafka_cgrp.c 1.4-, "ConsumerGroupHeartbeat fatal error: %s" 2.4-)
    "FATAL": (False, [
        Template(r"Fatal error: (?P<e>.+?): Fatal consumer error: .*", "", partial(_fatal, "FatalError"),
                 versions="1.4-"),
        Template(r"Fatal error: (?P<e>.+?): ConsumerGroupHeartbeat fatal error: .*", "",
                 partial(_fatal, "ConsumerGroupHeartbeat"), versions="2.4-")]),
    "HEARTBEAT": (False, [
        Template(_GROUP + r" heartbeat error response in state \S++ \(join-state [^\s,]++, \d++ "
                 r"partition\(s\) assigned\): (?P<e>.*)", "", _BEAT, versions="1.6-"),
        Template(_GROUP + r" heartbeat error response in state \S++ \(join state [^\s,]++, \d++ "
                 r"partition\(s\) assigned\): (?P<e>.*)", "", _BEAT, versions="0.9-1.5"),
        Template(r"Heartbeat failed due to coordinator \([^)]*+\) no longer available: (?P<e>.*?): re-querying for "
                 r"coordinator", "", _BEAT, versions="1.0-"),
        # group.protocol=consumer (KIP-848), rd_kafka_cgrp_handle_ConsumerGroupHeartbeat
        Template(r"ConsumerGroupHeartbeat failed due to coordinator \([^)]*+\) (?:no longer available|loading in "
                 r"progress): (?P<e>.*?): (?:re-querying for coordinator|retrying)", "", _CG_BEAT, versions="2.4-"),
        Template(r"ConsumerGroupHeartbeat failed due to: (?P<e>.*?): will rejoin the group", "", _CG_BEAT,
                 versions="2.4-")]),
    "JOINGROUP": (False, [
        Template(r"JoinGroup response: GenerationId (?P<n>-?\d++), Protocol (?P<p>[^,\s]*+), LeaderId [^,\s]*+"
                 r"(?: \(me\))?, my MemberId (?P<m>[^,\s]*+), member metadata count \d++: (?P<e>.*)", "", _joined,
                 versions="1.6-"),
        Template(r"JoinGroup response: GenerationId (?P<n>-?\d++), Protocol (?P<p>[^,\s]*+), LeaderId [^,\s]*+"
                 r"(?: \(me\))?, my MemberId (?P<m>[^,\s]*+), -?\d++ members in group: (?P<e>.*)", "", _joined,
                 versions="0.9.4-1.5")]),
    "REBALANCE": (False, [
        Template(_GROUP + r" (?:initiating rebalance|is rebalancing) \((?P<p>[A-Z]++)\) in state \S++ "
                 r"\(join-state [^\s)]++\) with (?P<c>\d++) assigned partition\(s\)(?: \(lost\))?: (?P<r>.*)", "",
                 _rebalance, versions="1.6-"),
        Template(_GROUP + r" is rebalancing in state \S++ \(join-state [^\s)]++\) with(?:out)? assignment: (?P<r>.*)",
                 "", _rebalance, versions="1.0-1.5"),
        Template(_GROUP + r": revoking all (?P<c>\d++) partition\(s\)(?: \(terminating\))?"
                 r"(?P<lost> \(assignment lost\))?", "", _revoking_all, versions="1.6-")]),
    # rd_kafka_cgrp_handle_assignment (src/rdkafka_cgrp.c): "Group \"%s\": new assignment of %d partition(s) in
    # join state %s" (0.9.4 - 1.5), "join-state" from 1.6
    "ASSIGN": (False, [
        Template(_GROUP + r": new assignment of (?P<c>\d++) partition\(s\) in join-state \S++", "", _assigned,
                 versions="1.6-"),
        Template(_GROUP + r": new assignment of (?P<c>\d++) partition\(s\) in join state \S++", "", _assigned,
                 versions="0.9.4-1.5")]),
    "CGRPCOORD": (False, [
        Template(_GROUP + r" FindCoordinator response error: (?P<n>[A-Z_]++): (?P<e>.*)", "", _coordinator_error,
                 versions="1.4-"),
        Template(_GROUP + r" GroupCoordinator response error: (?P<s>.*)", "", _coordinator_error, versions="0.9-1.3"),
        Template(_GROUP + r" changing coordinator (?P<fr>-?\d++) -> (?P<to>-?\d++)", "", _coordinator_changed,
                 versions="0.9-")]),
    "LEAVE": (False, [Template(_GROUP + r": leave(?: \(in state (?P<s>[^\s)]++)\))?(?:: .*)?", "", _leave,
                               versions="0.9-")]),
    "CONF": (False, [Template(r"\s*+(?P<k>[a-z][\w.]*+) = (?P<v>.*)", "", _conf, versions="1.6-")]),
    "INIT": (False, [Template(r"librdkafka v(?P<v>\S++) \(0x[0-9a-f]++\) \S++ initialized \(builtin\.features ", ".*",
                              _init, versions="1.0-")]),
}


def key(message: str, mark) -> str:
    """The facility the line names (`MAXPOLL`, `REBALANCE`, ...)."""
    return mark["rd_fac"]
