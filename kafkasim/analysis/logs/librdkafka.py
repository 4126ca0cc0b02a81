"""librdkafka's consumer-group lines (the C client under confluent-kafka-python, -go and -dotnet, and
many others), 0.11 to 2.x, as its default logger prints them to stderr (`rd_kafka_log_print` in
`src/rdkafka.c`): `%LEVEL|SECONDS.MILLIS|FACILITY|NAME| [thrd:THREAD]: message`, where NAME is the
handle's name, `<client.id>#consumer-<n>` (`rdkafka#consumer-1` by default).

Read at each release tag from `src/rdkafka_cgrp.c` (MAXPOLL, SESSTMOUT, HEARTBEAT, JOINGROUP,
REBALANCE), `src/rdkafka.c` (INIT) and `src/rdkafka_conf.c` (CONF, the settings printed under
`debug=conf`); each template says the releases whose source has its wording (docs/log-reader.md).
MAXPOLL and SESSTMOUT are warnings, printed by default; the others are printed only with
`debug=cgrp` (or `consumer`, `conf`). The time is the line's own (seconds since the epoch, UTC).

Errors are printed as `rd_kafka_err2str` words ("Broker: Group rebalance in progress"): the ones a
rebalance meets are named as Kafka names them (ERRORS), any other is kept as `reason`.
"""

from __future__ import annotations

import re

from kafkasim.analysis.logs.wording import Template, event, number

FREE = (("#consumer-", r"(?P<rdkafka>%?(?P<rd_level>[0-7])\|(?P<rd_ts>\d{9,11}\.\d{3})\|(?P<rd_fac>[A-Z0-9_]++)\|"
                       r"(?P<rd_name>[^|\s#]*+#consumer-\d++)\| (?:\[thrd:[^\]]*+\]: )?)"),)
PREFIXES = ("rdkafka",)
#: The prefixes whose time is in the mark itself (seconds since the epoch, UTC): prefix -> group.
EPOCH = {"rdkafka": "rd_ts"}
#: `rd_kafka_err2str` of the errors a rebalance meets (`rd_kafka_err_descs` in src/rdkafka.c) -> Kafka's name.
ERRORS = {"Broker: Group rebalance in progress": "REBALANCE_IN_PROGRESS",
          "Broker: Unknown member": "UNKNOWN_MEMBER_ID",
          "Broker: Specified group generation id is not valid": "ILLEGAL_GENERATION",
          "Broker: Not coordinator": "NOT_COORDINATOR",
          "Broker: Coordinator not available": "COORDINATOR_NOT_AVAILABLE",
          "Broker: Coordinator load in progress": "COORDINATOR_LOAD_IN_PROGRESS",
          "Broker: Static consumer fenced by other consumer with same group.instance.id": "FENCED_INSTANCE_ID",
          "Broker: Group member needs a valid member ID": "MEMBER_ID_REQUIRED",
          "Broker: Consumer group has reached maximum size": "GROUP_MAX_SIZE_REACHED",
          "Local: Broker transport failure": "_TRANSPORT",
          "Local: Timed out": "_TIMED_OUT"}
#: Settings printed under debug=conf kept as ClientConfig events (librdkafka's CONFIGURATION.md names).
SETTINGS = ("group.id", "client.id", "group.instance.id", "group.protocol", "group.remote.assignor",
            "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "partition.assignment.strategy",
            "enable.auto.commit", "auto.commit.interval.ms", "coordinator.query.interval.ms")
_NUMERIC = re.compile(r"-?\d{1,18}")


def _ev(t, ctx, kind, group=None, **fields) -> tuple:
    return event(t, "consumer", kind, group, client=ctx.mark["rd_name"], **fields)


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


def _heartbeat(m, t, ctx):
    found = m.groupdict()
    return [_ev(t, ctx, "HeartbeatResponse", found.get("g"), **_error(m["e"]))]


def _joined(m, t, ctx):
    fields = _error(m["e"])
    return [_ev(t, ctx, "JoinGroupResponse", member=m["m"] or None, generation=number(m["n"]),
                reason=fields.get("reason", m["p"] or None), error=fields.get("error"))]


def _rebalance(m, t, ctx):
    return [_ev(t, ctx, "RebalanceStarted", m["g"], reason=m["r"], value=float(number(m["c"])), detail=m["p"])]


def _revoking_all(m, t, ctx):
    kind = "PartitionsLost" if m["lost"] else "PartitionsRevoked"
    return [_ev(t, ctx, kind, m["g"], value=float(number(m["c"])))]


def _conf(m, t, ctx):
    name, text = m["k"], m["v"].strip()
    if name not in SETTINGS:
        return []
    value = float(text) if _NUMERIC.fullmatch(text) else None
    return [_ev(t, ctx, "ClientConfig", reason=name, value=value, detail=text)]


def _init(m, t, ctx):
    return [_ev(t, ctx, "ClientVersion", detail=m["v"])]


TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    "MAXPOLL": (True, [Template(r"Application maximum poll interval \((?P<i>\d++)ms\) exceeded by (?P<x>\d++)ms "
                                r"\(adjust max\.poll\.interval\.ms for long-running message processing\): "
                                r"leaving group", "", _max_poll, versions="1.0-")]),
    "SESSTMOUT": (True, [Template(r"Consumer group session timed out \(in join-state (?P<js>[\w-]++)\) after "
                                  r"(?P<ms>\d++) ms without a successful response from the group coordinator \(broker "
                                  r"-?\d++, last error was (?P<e>[^)]*+)\): revoking assignment and rejoining group",
                                  "", _session_timeout, versions="1.4-")]),
    "HEARTBEAT": (False, [
        Template(r"Group \"(?P<g>[^\"]*+)\" heartbeat error response in state \S++ \(join-state [^\s,]++, \d++ "
                 r"partition\(s\) assigned\): (?P<e>.*)", "", _heartbeat, versions="1.6-"),
        Template(r"Heartbeat failed due to coordinator \([^)]*+\) no longer available: (?P<e>.*?): re-querying for "
                 r"coordinator", "", _heartbeat, versions="1.0-")]),
    "JOINGROUP": (False, [Template(r"JoinGroup response: GenerationId (?P<n>-?\d++), Protocol (?P<p>[^,\s]*+), "
                                   r"LeaderId [^,\s]*+(?: \(me\))?, my MemberId (?P<m>[^,\s]*+), member metadata "
                                   r"count \d++: (?P<e>.*)", "", _joined, versions="0.11-")]),
    "REBALANCE": (False, [
        Template(r"Group \"(?P<g>[^\"]*+)\" (?:initiating rebalance|is rebalancing) \((?P<p>[A-Z]++)\) in state \S++ "
                 r"\(join-state [^\s)]++\) with (?P<c>\d++) assigned partition\(s\)(?: \(lost\))?: (?P<r>.*)", "",
                 _rebalance, versions="1.6-"),
        Template(r"Group \"(?P<g>[^\"]*+)\": revoking all (?P<c>\d++) partition\(s\)(?: \(terminating\))?"
                 r"(?P<lost> \(assignment lost\))?", "", _revoking_all, versions="1.6-")]),
    "CONF": (False, [Template(r"\s*+(?P<k>[a-z][\w.]*+) = (?P<v>.*)", "", _conf, versions="1.6-")]),
    "INIT": (False, [Template(r"librdkafka v(?P<v>\S++) \(0x[0-9a-f]++\) \S++ initialized \(builtin\.features ", ".*",
                              _init, versions="1.0-")]),
}


def key(message: str, mark) -> str:
    """The facility the line names (`MAXPOLL`, `REBALANCE`, ...)."""
    return mark["rd_fac"]
