"""franz-go's consumer-group lines (twmb/franz-go, the pure-Go client `kgo`), 1.0 to 1.21.

franz-go logs through its `kgo.Logger` interface: `Log(level, msg, keyvals...)`, a fixed message and
key/value pairs. Read at the minor tags v1.0.0 - v1.21.0 and at v1.21.5 of twmb/franz-go from
`pkg/kgo/consumer_group.go` (the classic protocol), `pkg/kgo/consumer_group_848.go` (KIP-848, 1.19+) and
`pkg/kgo/consumer.go` ("injecting fake fetch with an error", 1.14+); the keys of each message are the
source's, in its order. Three layouts print them (docs/log-reader.md):

- `kgo.BasicLogger` (`pkg/kgo/logger.go`): `[LEVEL] message; key: val, key: val` behind the optional
  prefix of its `prefixFn` (a date, most often);
- `log/slog`'s TextHandler (through `plugin/kslog`), logrus' text formatter (`plugin/klogrus`):
  `time=... level=INFO msg="joining group" group=orders`;
- JSON (zap through `plugin/kzap`, slog's JSONHandler): `{"level":"info","ts":...,"msg":"joining group",
  "group":"orders"}`, which the reader turns into the key=value form (`layouts.key_values`).

The message is the mark (it has no prefix of its own), in one of those framings. Errors print as
franz-go's `kerr.Error` does, `NAME: description` (`pkg/kerr/kerr.go`), NAME being Kafka's; network
failures as Go's `net` errors ("unable to dial: dial tcp ...: connection refused", "EOF", ...).
franz-go logs none of its settings (session or rebalance timeout): only the protocol it runs shows
("beginning to manage the next-gen group lifecycle": group.protocol=consumer).
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.wording import Template, event, number
from kafkasim.core.errors import Errors

#: message -> (keys in the order the source logs them, versions). The messages read; each is its own key.
MESSAGES: dict[str, tuple[tuple[str, ...], str]] = {
    # consumer_group.go joinAndSync / handleJoinResp / handleSyncResp
    "joining group": (("group",), "1.0-"),
    "join group failed": (("group", "err"), "1.0-"),
    "join returned MemberIDRequired, rejoining with response's MemberID": (("group", "member_id"), "1.0-"),
    "join returned UnknownMemberID, rejoining without a member id": (("group",), "1.0-"),
    "joined, balancing group": (("group", "member_id", "instance_id", "generation", "balance_protocol", "leader"),
                                "1.0-"),
    "joined as leader but unable to balance group due to KIP-345 limitations": (
        ("group", "member_id", "instance_id", "generation", "balance_protocol", "leader"), "1.9-"),
    "joined": (("group", "member_id", "instance_id", "generation", "leader"), "1.0-"),
    "syncing": (("group", "protocol_type", "protocol"), "1.0-"),
    "sync failed with RebalanceInProgress, rejoining": (("group",), "1.0-"),
    "sync group failed": (("group", "err"), "1.0-"),
    "synced": (("group", "assigned"), "1.0-"),
    # consumer_group.go heartbeat
    "heartbeat errored": (("group", "err"), "1.0-"),
    "heartbeat errored again while waiting for user revoke to finish": (("group", "err"), "1.0-"),
    "heartbeat hit retryable error, retrying": (("group", "err", "backoff", "retries"), "1.21-"),
    "heartbeat hit retryable error, max retries reached": (("group", "err", "retries"), "1.21-"),
    # consumer_group.go leave; consumer_group_848.go leave848
    "leaving group": (("group", "member_id"), "1.0-"),
    "leaving next-gen group": (("group", "member_id", "instance_id"), "1.19-"),
    # consumer_group.go: lines of a rebalance that carry no event (the partitions are read from the callbacks')
    "beginning to manage the group lifecycle": (("group",), "1.0-"),
    "new group session begun": (("group", "added", "lost"), "1.0-"),
    "beginning heartbeat loop": (("group",), "1.0-"),
    "eager consumer revoking prior assigned partitions": (("group", "revoking"), "1.0-"),
    "cooperative consumer revoking prior assigned partitions because leaving group": (("group", "revoking"), "1.0-"),
    "heartbeat saw a change in group status; partitions were added or lost": (("group",), "1.19-"),
    "falling back to standard consumer group management due to lack of broker support": (("group",), "1.19-"),
    # consumer_group.go: the wrapped callbacks ("entering "+name)
    "entering OnPartitionsAssigned": (("with", "context_expired"), "1.0-"),
    "entering OnPartitionsRevoked": (("with", "context_expired"), "1.0-"),
    "entering OnPartitionsLost": (("with", "context_expired"), "1.0-"),
    # consumer_group.go manage: the error that ended a try (after the line of the request that failed)
    "join and sync loop errored": (("group", "err", "consecutive_errors", "backoff"), "1.0-1.18"),
    "group manage loop errored": (("group", "err", "consecutive_errors", "backoff"), "1.19-"),
    # consumer.go addFakeReadyForDraining: the error handed to the application's PollFetches
    "injecting fake fetch with an error": (("err", "why"), "1.14-"),
    # consumer_group_848.go (KIP-848)
    "beginning to manage the next-gen group lifecycle": (("group",), "1.19-"),
    "received fenced member epoch with epoch 0; clearing member ID to forcefully join as a new member": (
        ("group", "prior_member_id", "prior_generation", "new_member_id", "new_generation"), "1.19-1.20"),
    "consumer group heartbeat saw fenced member epoch, abandoning assignment and rejoining": (
        ("group", "member_id", "generation"), "1.19-1.20"),
    "consumer group heartbeat error, abandoning assignment and rejoining with new member id": (
        ("group", "member_id", "generation", "err"), "1.21-"),
    "consumer group heartbeat error, abandoning assignment and rejoining": (
        ("group", "member_id", "generation", "err"), "1.21-"),
    "consumer group initial heartbeat hit retryable error, backing off and retrying": (
        ("group", "err", "consecutive_errors", "unreleased_instance_retries"), "1.21-"),
    "UnreleasedInstanceID after 3 retries - static instance is held by another member; check for duplicate "
    "InstanceID config or an unclean peer shutdown": (("group", "instance"), "1.21-"),
}
_ALTERNATION = "|".join(re.escape(m) for m in sorted(MESSAGES, key=len, reverse=True))
#: BasicLogger's `[LEVEL] message`, then `; key: val, ...` or nothing.
_BASIC = r"(?P<franz>\[(?:ERROR|WARN|INFO|DEBUG)\] (?P<fz_msg>" + _ALTERNATION + r")(?=; |\s*$))"
#: A key=value record's `msg=` (quoted when it holds a space, as slog and logrus quote it).
_KV = r"(?P<franz_kv>(?<![\w.])msg=(?P<fz_q>\"?)(?P<fzk_msg>" + _ALTERNATION + r")(?P=fz_q)(?=\s|$))"
#: Each framing is searched in a line that holds the key of its group (every message but the callbacks' logs
#: one first), the callbacks' name, or the words of a group's error handed to PollFetches.
FREE = tuple((needle, pattern) for pattern, group in ((_BASIC, "; group: "), (_KV, " group="))
             for needle in (group, "OnPartitions", "group session"))
PREFIXES = ("franz", "franz_kv")

_KAFKA_ERRORS = frozenset(e.name for e in Errors)
#: `kerr.Error`'s "NAME: description", maybe wrapped in ErrGroupSession's "unable to join group session: ".
_KERR = re.compile(r"(?:unable to join group session: )?(?P<name>[A-Z][A-Z0-9_]++): ")
#: Go's net and io errors franz-go meets when the connection to the coordinator fails (pkg/kgo/broker.go
#: "unable to dial: %w"; errChosenBrokerDead in pkg/kgo/errors.go).
_NETWORK = re.compile(r"unable to dial|\bEOF\b|connection reset|broken pipe|i/o timeout|connection refused|"
                      r"use of closed network connection|the broker connection has died")
#: A `*string` printed by `%v` before 1.9 (its address) or empty: no instance id.
_NO_INSTANCE = re.compile(r"<nil>|null|0x[0-9a-f]++|")
_INT = re.compile(r"-?\d{1,19}")
_ESCAPE = re.compile(r"\\(.)", re.S)
_LOGFMT = re.compile(r"(?:^|\s)(?P<k>[\w.]++)=(?P<v>\"(?:[^\"\\]|\\.)*+\"|\S*+)")
#: The reader's memory key of the last error a franz-go line named (see `_session_error`).
_LAST = ("franz-go", "error")


def _values(kv: str, keys: tuple[str, ...], layout: str) -> dict[str, str]:
    """The values of `keys` in the text after the message: `; k: v, k: v` (BasicLogger: each value runs up to
    the next expected key, as the keys come in the source's order) or ` k=v k="v w"` (slog, logrus)."""
    out: dict[str, str] = {}
    if layout == "franz_kv":
        for m in _LOGFMT.finditer(kv):
            v = m["v"]
            if v.startswith('"'):  # strconv.Quote's: only \" and \\ matter here
                v = _ESCAPE.sub(r"\1", v[1:-1])
            out.setdefault(m["k"], v)
        return {k: out[k] for k in keys if k in out}
    if not kv.startswith("; "):
        return out
    kv = "," + kv[1:]  # every key after ", ", the first one too
    pos, found = 0, []
    for k in keys:
        at = kv.find(", " + k + ": ", pos)
        if at < 0:
            continue
        start = at + len(k) + 4
        found.append((k, at, start))
        pos = start
    for j, (k, _, start) in enumerate(found):
        end = found[j + 1][1] if j + 1 < len(found) else len(kv)
        out[k] = kv[start:end]
    return out


def _error(text: str | None) -> dict:
    """`error` (Kafka's name) when the error is a `kerr.Error`, else the text as `reason`."""
    if not text:
        return {}
    m = _KERR.match(text)
    if m is not None and m["name"] in _KAFKA_ERRORS:
        return {"error": m["name"]}
    return {"reason": text}


def _instance(text: str | None) -> str | None:
    return None if text is None or _NO_INSTANCE.fullmatch(text) else text


def _gen(text: str | None):
    return number(text) if text is not None and _INT.fullmatch(text) else None


def _ev(t, kind, group=None, **fields) -> tuple:
    return event(t, "consumer", kind, group or None, **fields)


def _failed(kind: str, t, ctx, v: dict, **fixed) -> list:
    """A request that failed: `kind` with the error it names, or (a network error) a lost coordinator."""
    err = v.get("err")
    ctx.recent[_LAST] = err
    if err is not None and _NETWORK.search(err) and not _KERR.match(err):
        return [_ev(t, "CoordinatorLost", v.get("group"), reason=err, state="disconnected")]
    fields = {**_error(err), **fixed}
    return [_ev(t, kind, v.get("group"), **fields)]


def _joined(t, ctx, v):
    return [_ev(t, "JoinGroupResponse", v.get("group"), member=v.get("member_id") or None,
                generation=_gen(v.get("generation")), reason=v.get("balance_protocol"),
                instance=_instance(v.get("instance_id")))]


#: One topic's partitions in `with`: Go's `%v` of the map (`orders:[0 1]`), zap's JSON of it (`"orders":[0,1]`),
#: or the `mtps` type's String() (`orders[0 1]`, after 1.21.5).
_TOPIC = re.compile(r"\"?([^\s,\[\]:\"{}]++)\"?:? ?\[([\d ,]*+)\]")


def _partitions(kind: str, t, ctx, v):
    """One event per partition of `with` (`map[string][]int32`, printed as Go prints a map:
    `map[orders:[0 1] pay:[2]]`), as the Java reader writes them; one with value 0 when the map is empty."""
    out = []
    for topic, parts in _TOPIC.findall(v.get("with", "")):  # `map[]` reads as topic "map" with no partition
        for p in parts.replace(",", " ").split():
            out.append(_ev(t, kind, topic=topic, partition=number(p)))
    return out or [_ev(t, kind, value=0.0)]


def _session_error(t, ctx, v):
    """The error that ended a try of the group's management, or that PollFetches hands the application: the
    request's own line named it just before (`join group failed`, `heartbeat errored`, ...), except at a
    level that hides that line (ERROR), where this one is its only trace: read only when it names another error."""
    err = v.get("err")
    if err is None or ctx.recent.get(_LAST) == err.removeprefix("unable to join group session: "):
        return []
    if "why" in v and not err.startswith("unable to join group session: "):
        return []  # a fetch error (data loss, a metadata load error): no group's
    ctx.recent[_LAST] = err
    return [_ev(t, "GroupSessionError", v.get("group"), **_error(err))]


def _fixed(kind: str, t, ctx, v, **fields):
    return [_ev(t, kind, v.get("group"), **fields)]


def _member_failure(kind: str, t, ctx, v, member_key: str = "member_id", generation_key: str = "generation",
                    **fixed):
    """A KIP-848 heartbeat failure naming the member and its epoch."""
    err = v.get("err")
    if err is not None:
        ctx.recent[_LAST] = err
    fields = {**_error(err), **fixed}
    return [_ev(t, kind, v.get("group"), member=v.get(member_key) or None,
                generation=_gen(v.get(generation_key)), instance=_instance(v.get("instance")), **fields)]


def _leave(t, ctx, v):
    # franz-go leaves only from Client.LeaveGroup(Context), which Client.Close calls (consumer_group.go leave).
    return [_ev(t, "LeaveGroup", v.get("group"), member=v.get("member_id") or None,
                reason="the consumer is being closed (Client.Close or LeaveGroup)",
                instance=_instance(v.get("instance_id")))]


def _synced(t, ctx, v):
    return [_ev(t, "SyncGroupResponse", v.get("group"), detail=v.get("assigned"))]


def _syncing(t, ctx, v):
    return [_ev(t, "SyncGroup", v.get("group"), reason=v.get("protocol"))]


def _consumer_protocol(t, ctx, v):
    return [_ev(t, "ClientConfig", v.get("group"), reason="group.protocol", detail="consumer")]


def _nothing(t, ctx, v):
    return []


_BUILDERS = {
    "joining group": partial(_fixed, "JoinGroup"),
    "join group failed": partial(_failed, "JoinGroupResponse"),
    "join returned MemberIDRequired, rejoining with response's MemberID": lambda t, ctx, v: [
        _ev(t, "JoinGroupResponse", v.get("group"), member=v.get("member_id") or None, error="MEMBER_ID_REQUIRED")],
    "join returned UnknownMemberID, rejoining without a member id": partial(_fixed, "JoinGroupResponse",
                                                                            error="UNKNOWN_MEMBER_ID"),
    "joined, balancing group": _joined,
    "joined as leader but unable to balance group due to KIP-345 limitations": _joined,
    "joined": _joined,
    "syncing": _syncing,
    "sync failed with RebalanceInProgress, rejoining": partial(_fixed, "SyncGroupResponse",
                                                               error="REBALANCE_IN_PROGRESS"),
    "sync group failed": partial(_failed, "SyncGroupResponse"),
    "synced": _synced,
    "heartbeat errored": partial(_failed, "HeartbeatResponse"),
    "heartbeat errored again while waiting for user revoke to finish": partial(_failed, "HeartbeatResponse"),
    "heartbeat hit retryable error, retrying": partial(_failed, "ConsumerGroupHeartbeat"),
    "heartbeat hit retryable error, max retries reached": partial(_failed, "ConsumerGroupHeartbeat"),
    "leaving group": _leave,
    "leaving next-gen group": _leave,
    "beginning to manage the group lifecycle": _nothing,
    "new group session begun": _nothing,
    "beginning heartbeat loop": _nothing,
    "eager consumer revoking prior assigned partitions": _nothing,
    "cooperative consumer revoking prior assigned partitions because leaving group": _nothing,
    "heartbeat saw a change in group status; partitions were added or lost": _nothing,
    "falling back to standard consumer group management due to lack of broker support": _nothing,
    "entering OnPartitionsAssigned": partial(_partitions, "PartitionsAssigned"),
    "entering OnPartitionsRevoked": partial(_partitions, "PartitionsRevoked"),
    "entering OnPartitionsLost": partial(_partitions, "PartitionsLost"),
    "join and sync loop errored": _session_error,
    "group manage loop errored": _session_error,
    "injecting fake fetch with an error": _session_error,
    "beginning to manage the next-gen group lifecycle": _consumer_protocol,
    "received fenced member epoch with epoch 0; clearing member ID to forcefully join as a new member":
        partial(_member_failure, "ConsumerGroupHeartbeat", member_key="prior_member_id",
                generation_key="prior_generation", error="FENCED_MEMBER_EPOCH"),
    "consumer group heartbeat saw fenced member epoch, abandoning assignment and rejoining":
        partial(_member_failure, "ConsumerGroupHeartbeat", error="FENCED_MEMBER_EPOCH"),
    "consumer group heartbeat error, abandoning assignment and rejoining with new member id":
        partial(_member_failure, "ConsumerGroupHeartbeat"),
    "consumer group heartbeat error, abandoning assignment and rejoining":
        partial(_member_failure, "ConsumerGroupHeartbeat"),
    "consumer group initial heartbeat hit retryable error, backing off and retrying":
        partial(_failed, "ConsumerGroupHeartbeat"),
    "UnreleasedInstanceID after 3 retries - static instance is held by another member; check for duplicate "
    "InstanceID config or an unclean peer shutdown": partial(_member_failure, "ConsumerGroupHeartbeat",
                                                             error="UNRELEASED_INSTANCE_ID"),
}
assert set(_BUILDERS) == set(MESSAGES), "a message without its builder"


def _read(keys: tuple[str, ...], build, m, t, ctx):
    """A message's events: its builder given the values of its keys."""
    return build(t, ctx, _values(m["kv"], keys, ctx.prefix))


TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    message: (False, [Template(r"(?P<kv>.*)", "", partial(_read, keys, _BUILDERS[message]), versions=versions)])
    for message, (keys, versions) in MESSAGES.items()}


def key(message: str, mark) -> str:
    """The message itself: the mark holds it."""
    return mark["fzk_msg"] if mark.lastgroup == "franz_kv" else mark["fz_msg"]
