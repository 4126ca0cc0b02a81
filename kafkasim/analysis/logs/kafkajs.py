"""kafkajs's consumer-group lines (tulios/kafkajs, the pure-JavaScript client), 1.0 to 2.2.

kafkajs logs through its `logCreator`: each record is a namespace (`[Runner]`, `[ConsumerGroup]`,
`[Consumer]`, `[Connection]`), a message, and fields (`src/loggers/index.js` createLevel: `timestamp`,
`logger: 'kafkajs'`, then the caller's `groupId`, `memberId`, `error`, ...). Two layouts are printed:
the default console logger's JSON line (`src/loggers/console.js`, 1.0 - 2.2:
`{"level":"ERROR","timestamp":"...","logger":"kafkajs","message":"[Runner] ...","groupId":...}`), and
the plain line of the custom logger kafkajs's documentation shows (`docs/CustomLogger.md`:
`` `${label} [${namespace}] ${message} ${JSON.stringify(others)}` ``), often inside a log shipper's
JSON. `rewrite` brings every layout to one: the record's timestamp in front of its namespace, the
message, and its fields after it (read by name, so a field order, a cut or an escaping is no matter).

Read at the tags v1.0.0 - v2.2.4 from `src/consumer/runner.js`, `src/consumer/consumerGroup.js`,
`src/consumer/index.js` and `src/network/connection.js`; errors are printed as kafkajs's messages of
Kafka's error codes (`src/protocol/error.js`, ERRORS), named here as Kafka names them. kafkajs prints no
generation and no settings in these lines (its session and rebalance timeouts are not logged).
"""

from __future__ import annotations

import json
import re

from kafkasim.analysis.logs.layouts import shipper_time
from kafkasim.analysis.logs.wording import Template, event, number
from kafkasim.core.errors import Errors

NAMESPACES = ("Runner", "ConsumerGroup", "Consumer", "Connection")
BRACKETED = (r"(?P<kjs>(?P<kjs_ns>" + "|".join(NAMESPACES) + r")\] )",)
NEEDLES = tuple(f"[{ns}] " for ns in NAMESPACES)
PREFIXES = ("kjs",)
#: kafkajs's message of each Kafka error code a group meets (src/protocol/error.js, the same at 1.0 - 2.2;
#: 79 and 81 from 1.12, 82 from 2.0).
ERRORS = {"The request timed out": 7,
          "The server disconnected before a response was received": 13,
          "The coordinator is loading and hence can't process requests for this group": 14,
          "The group coordinator is not available": 15,
          "This is not the correct coordinator for this group": 16,
          "Specified group generation id is not valid": 22,
          "The group member's supported protocols are incompatible with those of existing members": 23,
          "The coordinator is not aware of this member": 25,
          "The session timeout is not within the range allowed by the broker (as configured by "
          "group.min.session.timeout.ms and group.max.session.timeout.ms)": 26,
          "The group is rebalancing, so a rejoin is needed": 27,
          "The group member needs to have a valid member id before actually entering a consumer group": 79,
          "The consumer group has reached its max size. It already has the configured maximum number of members": 81,
          "The broker rejected this static consumer since another consumer with the same group instance id has "
          "registered with a different member id": 82}
#: The API of a `[Connection] Response API(key: K, version: V)` error line -> the event of its answer.
RESPONSES = {"Heartbeat": "HeartbeatResponse", "JoinGroup": "JoinGroupResponse", "SyncGroup": "SyncGroupResponse",
             "OffsetCommit": "CommitFailed"}

_NS = r"\[(?:" + "|".join(NAMESPACES) + r")\] "
_NAMESPACE = re.compile(_NS)
_Q = r'\\?"'  # a quote, escaped when the record is a string inside a shipper's JSON
#: The record's own time (createLevel: `new Date().toISOString()`), with the comma that joins it to a neighbour.
_STAMP = re.compile(_Q + r"timestamp" + _Q + r":\s*+" + _Q + r"(?P<ts>\d{4}-\d\d-\d\dT[0-9:.]{8,12}Z)" + _Q + ",?")
#: The console logger's `"message":"[Namespace] text"`, read up to its closing quote: JSON.stringify writes a quote
#: of the text as `\"`, a backslash as `\\`; inside a shipper's string (`esc`) each is escaped once more (`\\\"`,
#: `\\\\`) and `\"` ends the text. No closing quote: the line was cut inside it.
_MESSAGE = re.compile(r'(?P<esc>\\)?"message' + _Q + r":\s*+" + _Q + r"(?P<text>" + _NS +
                      r'(?:[^"\\]|(?(esc)(?:\\\\(?:\\["\\]|[^"\\])|\\[^"\\])|\\.))*+)(?P<end>' + _Q + r")?")
#: An escaped quote or backslash, undone once per level of JSON around the text (a control character stays escaped,
#: `\n`: the record is read as one line; so does a shipper's `\u003c` of a string read as text, as in the fields).
_ESCAPED = re.compile(r'\\(["\\])')
_FIELD = re.compile(_Q + r"(?P<k>groupId|memberId|leaderId|isLeader|groupProtocol|duration|error|broker|clientId|"
                    r"retryTime|memberAssignment)" + _Q + r":\s*+(?P<v>" + _Q + r"(?:[^\"\\]|\\[^\"])*+" + _Q +
                    r"|\{[^{}]*+\}|[^,}\s\"\\]++)")
_ASSIGNED = re.compile(r'"([^"]*+)":\s*+\[([\d,\s]*+)\]')
#: The record's level: the console logger's "level" field, or the plain layout's label before its namespace, at the
#: start of a word or of a string (after a quote that opens one: a shipper's JSON read as text), not after a quote
#: that closes a word.
_LEVEL = re.compile(_Q + r"level" + _Q + r":\s*+" + _Q + r"(?P<l>ERROR|WARN|INFO|DEBUG)" + _Q +
                    r"|(?<![\w\"\\])(?:" + _Q + r")?(?P<l2>ERROR|WARN|INFO|DEBUG) (?:\S++ )?" + _NS)


def rewrite(line: str) -> str:
    """One layout for every kafkajs record: `... TIMESTAMP [Namespace] message fields`. A shipper's JSON
    around the record is taken off when it decodes; the timestamp field moves in front of the message (the
    reader reads a record's time before its message), or the shipper's time goes there when the record has
    none (`layouts.shipper_time`, as the reader gives it to any record in a shipper's JSON); the console
    logger's `"message"` field moves out of its JSON, the other fields stay after it (a message cut inside is
    ended with `...`, as a cut is)."""
    stripped = line.strip()
    shipped = None
    if stripped.startswith("{"):
        inner = _inner(stripped)
        if inner is not None:  # its line ending is no matter: the reader takes the blanks off a message's end
            line, shipped = inner
    stamp = _STAMP.search(line)
    ts = ""
    if stamp is not None:
        ts = stamp["ts"] + " "
        line = line[:stamp.start()] + line[stamp.end():]
    elif shipped is not None:
        ts = shipped + " "
    found = _MESSAGE.search(line)
    if found is not None:
        text = found["text"]
        for _ in range(2 if found["esc"] else 1):
            text = _ESCAPED.sub(lambda m: m[1], text)  # (a function: faster than a template here)
        return f"{line[:found.start()]} {ts}{text}{'' if found['end'] else '...'} {line[found.end():]}"
    if not ts:
        return line
    mark = _NAMESPACE.search(line)  # always found: the line holds a namespace (REWRITES' needles), so does `inner`
    return line[:mark.start()] + ts + line[mark.start():]


def _inner(text: str) -> tuple[str, str | None] | None:
    """The string of a shipper's JSON object that holds a kafkajs record, and the shipper's time for a record
    without a date before its namespace (None: not such an object)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or isinstance(obj.get("message"), str) and _NAMESPACE.match(obj["message"]):
        return None  # the console logger's own record: read as text
    strings = [v for v in obj.values() if isinstance(v, str)]
    for record in strings:
        mark = _NAMESPACE.search(record)
        if mark is not None:
            return record, shipper_time(strings, record, record[:mark.start()])
    return None


def fields(line: str) -> dict[str, str]:
    """The record's fields by name (the first of each), strings without their quotes."""
    out: dict[str, str] = {}
    for m in _FIELD.finditer(line):
        value = m["v"]
        if value[:1] in ('"', "\\"):
            value = value.replace('\\"', '"')[1:-1]
        out.setdefault(m["k"], value)
    return out


def _error(text: str | None) -> dict:
    """`error` as Kafka names it when kafkajs's message is one of Kafka's errors, else the text as `reason`."""
    if not text:
        return {}
    code = ERRORS.get(text.strip())
    return {"error": Errors.for_code(code).name} if code is not None else {"reason": text}


def _ev(t, f: dict, kind: str, **extra) -> tuple:
    member = f.get("memberId")
    return event(t, "consumer", kind, f.get("groupId") or None, member=None if member in (None, "null") else member,
                 client=f.get("clientId"), **extra)


def _joined(m, t, ctx):
    f = fields(ctx.mark.string)
    duration = f.get("duration")
    out = [_ev(t, f, "JoinGroupResponse", reason=f.get("groupProtocol"),
               value=float(number(duration)) if duration and duration.isdigit() else None,
               detail=f"leader {f['leaderId']}" if f.get("leaderId") else None)]
    if "memberAssignment" in f:  # 1.4+: {"topic":[0,1]}; one PartitionsAssigned per partition, as Java's lines give
        assigned = [(topic, number(p)) for topic, ps in _ASSIGNED.findall(f["memberAssignment"])
                    for p in ps.replace(" ", "").split(",") if p.isdigit()]
        out += [_ev(t, f, "PartitionsAssigned", topic=topic, partition=p) for topic, p in assigned] or [
            _ev(t, f, "PartitionsAssigned", value=0.0)]
    return out


def _rejoin(m, t, ctx):
    f = fields(ctx.mark.string)
    return [_ev(t, f, "RejoinRequested", **{"reason": f.get("error"), **_error(f.get("error"))})]


def _response(m, t, ctx):
    f = fields(ctx.mark.string)
    kind = RESPONSES.get(m["api"])
    if kind is None or "error" not in f:  # another API, or a debug line of a good answer
        return []
    return [_ev(t, f, kind, detail=f.get("broker"), **_error(f["error"]))]


def _crash(m, t, ctx):
    f = fields(ctx.mark.string)
    return [_ev(t, f, "ClientCrashed", detail=m["msg"], **{**_error(m["msg"]), "reason": m["name"]})]


def _restart(m, t, ctx):
    """1.0 - 1.4 print `e.retryTime`, which an error without one leaves `undefined` (1.5 added defaults)."""
    value = float(number(m["ms"])) if m["ms"] != "undefined" else None
    return [_ev(t, fields(ctx.mark.string), "ClientRestarting", value=value)]


def _starting(m, t, ctx):
    return [_ev(t, fields(ctx.mark.string), "JoinGroup")]


_FIELDS = r"(?: .*)?"  # the record's fields after its message
_JOINED = r"Consumer has joined the group"
_REBALANCING = r"The group is rebalancing, re-joining"
_UNKNOWN = r"The coordinator is not aware of this member, re-joining the group"

TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    # runner.js join() 1.0 - 1.14 ([Runner]); consumerGroup.js joinAndSync() 1.15- ([ConsumerGroup]) (payload:
    # groupId, memberId, leaderId; isLeader and memberAssignment from 1.4, groupProtocol from 1.15; duration)
    _JOINED: (True, [Template(_JOINED, _FIELDS, _joined, versions="1.15-")]),
    _JOINED + "|Runner": (True, [Template(_JOINED, _FIELDS, _joined, versions="1.0-1.14")]),
    # runner.js: logger.error up to 1.15, logger.warn from 1.16 (the level tells the releases apart)
    _REBALANCING: (True, [Template(_REBALANCING, _FIELDS, _rejoin, versions="1.0-")]),
    _REBALANCING + "|ERROR": (True, [Template(_REBALANCING, _FIELDS, _rejoin, versions="1.0-1.15")]),
    _REBALANCING + "|WARN": (True, [Template(_REBALANCING, _FIELDS, _rejoin, versions="1.16-")]),
    _UNKNOWN: (True, [Template(_UNKNOWN, _FIELDS, _rejoin, versions="1.0-")]),
    # connection.js send(): logError(`Response ${apiName}(key: ${apiKey}, version: ${apiVersion})`, {error, ...})
    "Response ": (False, [Template(r"Response (?P<api>[A-Za-z]++)\(key: \d++, version: \d++\)", _FIELDS, _response,
                                   versions="1.0-")]),
    # consumer/index.js: onCrash, the restart after it, start()
    "Crash: ": (True, [Template(r"Crash: (?P<name>\w++): (?P<msg>.*?)(?= [{},]|$)", _FIELDS, _crash,
                                versions="1.0-")]),
    "Restarting the consumer in ": (True, [Template(r"Restarting the consumer in (?P<ms>\d++|undefined)ms", _FIELDS, _restart,
                                                    versions="1.0-")]),
    "Starting": (False, [Template(r"Starting", _FIELDS, _starting, versions="1.0-")]),
}
#: The namespace that prints each wording (another namespace's line of the same words is not read).
_PRINTED_BY = {_JOINED: ("Runner", "ConsumerGroup"), _REBALANCING: ("Runner",), _UNKNOWN: ("Runner",),
               "Response ": ("Connection",), "Crash: ": ("Consumer",), "Restarting the consumer in ": ("Consumer",),
               "Starting": ("Consumer",)}
_WORDINGS = sorted((k for k in TEMPLATES if "|" not in k), key=len, reverse=True)


def _qualifier(wording: str, mark) -> str:
    """What tells the releases of a wording apart: the namespace that printed it, or the level."""
    if wording == _JOINED:
        return "|" + mark["kjs_ns"]
    if wording == _REBALANCING:
        level = _LEVEL.search(mark.string)
        return "|" + (level["l"] or level["l2"]) if level is not None else ""
    return ""


def key(message: str, mark) -> str:
    """The wording the message begins with (TEMPLATES' keys), with its qualifier where one tells releases
    apart; any other message is its own key, of no template (the reader keeps one cut inside a wording aside
    as truncated, and ignores the others)."""
    for k in _WORDINGS:
        if message.startswith(k):
            if mark["kjs_ns"] not in _PRINTED_BY[k]:
                return ""
            qualified = k + _qualifier(k, mark)
            return qualified if qualified in TEMPLATES else k
    return message
