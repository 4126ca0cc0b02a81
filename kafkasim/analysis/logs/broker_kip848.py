"""The broker's lines about consumer groups (KIP-848, `group.protocol=consumer`): 4.x and the
early-access wording of 3.7 - 3.9 where it differs, read from the Java
`group-coordinator/.../GroupMetadataManager.java` at 3.7.0, 4.0.0, 4.1.1 and 4.2.0-rc1
(docs/broker-log-parser.md lists them by version). Kafka logs no consumer-group state, so
`state` stays None; a GroupEpochBumped takes its cause from the group's previous line (RECENT_MS).
"""

from __future__ import annotations

import re
from functools import partial

from kafkasim.analysis.logs.broker import M, N, Template, cg, ev, leave_reason, nothing, number

_FENCE_REASONS = (("the member session expired", "session_timeout"),
                  ("its session expired", "session_timeout"),                                   # 3.7
                  ("the classic member failed to join within the rebalance timeout", "rebalance_timeout"),
                  ("the member failed to sync within timeout", "sync_timeout"),
                  ("it failed to transition from epoch", "rebalance_timeout"),
                  ("it failed to revoke partitions within", "rebalance_timeout"))               # 3.7
_FENCED_EPOCH = re.compile(r"it failed to transition from epoch (-?\d+) ")
#: A bump line right after one of these lines of the same group (within RECENT_MS) was caused by it.
_BUMPED_BY = {"joined": "member_joined", "removed": "member_removed", "scanned": "regex_resolved"}
#: How long after a join, leave, fence or regex scan a bump of the same group counts as its consequence.
RECENT_MS = 1000


def _fenced(m, t, ctx):
    why = next((r for text, r in _FENCE_REASONS if m["r"].startswith(text)), "fenced")
    epoch = _FENCED_EPOCH.match(m["r"] + " ")
    value = float(number(epoch.group(1))) if epoch else None
    ctx.note(m["g"], t, "removed")
    return [ev(t, "MemberFenced", m["g"], m["m"], reason=why, value=value),
            ev(t, "MemberRemoved", m["g"], m["m"], reason=why, value=value)]


def _cg_joined(m, t, ctx):
    static = m["k"] is not None
    reason = "static" if static else None
    if m["p"] == "classic":
        reason = "static_classic" if static else "classic"
    ctx.note(m["g"], t, "joined")
    return [ev(t, "MemberJoined", m["g"], m["m"], reason=reason)]


def _cg_replaced(m, t, ctx):
    ctx.forget(m["g"])
    return [ev(t, "MemberReplaced", m["g"], m["m"], reason=m.groupdict().get("o"))]


def _cg_left(m, t, ctx):
    ctx.note(m["g"], t, "removed")
    found = m.groupdict()
    member = found.get("m") or found.get("s")
    return [ev(t, "MemberRemoved", m["g"], member, reason=leave_reason(m.groupdict().get("c")))]


def _cg_left_temporarily(m, t, ctx):
    ctx.forget(m["g"])
    return [ev(t, "MemberLeftTemporarily", m["g"], m["m"], value=-2.0)]


def _cg_refused_heartbeat(error: str, epoch: float | None, m, t, ctx):
    ctx.forget(m["g"])
    return [ev(t, "ConsumerGroupHeartbeat", m["g"], m.groupdict().get("m"), value=epoch, error=error)]


def _cg_epoch(m, t, ctx):
    g, n = m["g"], number(m["n"])
    last = ctx.recent.pop(g, None)
    if n == 1:
        reason = "new_group"
    elif last is not None and t is not None and last[0] is not None and 0 <= t - last[0] <= RECENT_MS:
        reason = _BUMPED_BY.get(last[1])
    else:
        reason = None
    return [ev(t, "GroupEpochBumped", g, None, n, reason, float(n))]


def _cg_target(m, t, ctx):
    ctx.forget(m["g"])
    return [ev(t, "TargetAssignmentComputed", m["g"], None, number(m["n"]), m["a"])]


def _cg_scanned(m, t, ctx):
    ctx.note(m["g"], t, "scanned")
    return []


def _cg_pending(m, t, ctx):
    ctx.forget(m["g"])
    return [ev(t, "PendingMemberAdded", m["g"], m["m"])]


def _cg_converted(m, t, ctx):
    ctx.forget(m["g"])
    direction = "upgrade" if m["to"] == "consumer" else "downgrade"
    return [ev(t, "GroupConverted", m["g"], reason=("offline_" if m["e"] else "online_") + direction)]


_REFUSALS = {
    "because online upgrade is disabled": "upgrade_disabled",
    "because the group does not use the consumer embedded protocol": "upgrade_not_consumer_protocol",
    "because the group size exceeds the consumer group maximum size": "upgrade_group_too_large",
    "because the embedded consumer protocol is malformed": "upgrade_malformed_protocol",
    "because the online downgrade is disabled": "downgrade_disabled",
    "because its group size is greater than classic group max size": "downgrade_group_too_large",
}


def _cg_refused(m, t, ctx):
    return [ev(t, "GroupConversionRefused", m["g"], reason=_REFUSALS[m["why"]])]


def _cg_refused_as(cause: str, m, t, ctx):
    return [ev(t, "GroupConversionRefused", m["g"], reason=cause)]




TEMPLATES: dict[str, tuple[bool, list[Template]]] = {
    "[GroupId": (False, [
        Template(cg(r"(?:(?P<k>Static) member|Member) " + M + r"(?: with instance id \S++)? joins the consumer "
                      r"group"), r"(?: using the (?P<p>\w++) protocol)?", _cg_joined),
        Template(cg(r"Bumped group epoch to " + N), r"(?: with metadata hash -?\d++)?", _cg_epoch),
        Template(cg(r"Computed a new target assignment for epoch " + N + r" with '(?P<a>[^']*+)' assignor"),
                  r"(?: in \d++ms)?(?:: .*)?", _cg_target, True),
        Template(cg(r"Member " + M + r" fenced from the group because "), r"(?P<r>.*)", _fenced),
        Template(cg(r"Member " + M + r" left the consumer group"), "", _cg_left),
        Template(cg(r"Static [Mm]ember " + M + r" with instance id \S++ left the consumer group"), "", _cg_left),
        Template(cg(r"Static [Mm]ember " + M + r" with instance id \S++ temporarily left the consumer group"),
                  "", _cg_left_temporarily),
        Template(cg(r"Static member with (?:unknown member id and )?instance id \S++ re-joins the consumer group"
                      r"(?: using the \w++ protocol)?\. Created a new member " + M + r" to replace the existing "
                      r"member "), r"(?P<o>\S+?)", _cg_replaced),
        Template(cg(r"Static member " + M + r" with instance id \S++ re-joins the consumer group"), "",
                  _cg_replaced),  # 3.7: the old member is not named
        Template(cg(r"Static member " + M + r" with instance id \S++ cannot join the group because the "
                      r"instance id is (?:is )?owned by member "), r"\S+",
                  partial(_cg_refused_heartbeat, "UNRELEASED_INSTANCE_ID", 0.0)),
        Template(cg(r"Static member " + M + r" with instance id \S++ is fenced by existing member "), r"\S+",
                  partial(_cg_refused_heartbeat, "FENCED_INSTANCE_ID", None)),
        Template(cg(r"Failed to compute a new target assignment for epoch " + N + r": "), ".*",
                  partial(_cg_refused_heartbeat, "UNKNOWN_SERVER_ERROR", None)),
        Template(cg(r"Scanned \d++ topics to refresh regular expressions \["), r".*\] in \d++ms", _cg_scanned),
        Template(cg(r"Dynamic member with unknown member id joins the consumer group\. Created a new member id " +
                      M + r" and requesting the member to rejoin with this id"), "", _cg_pending),
        Template(cg(r"(?:Dynamic member " + M + r"|Static member (?P<s>\S++) with instance id \S++) has left "
                      r"group through explicit `LeaveGroup` request; client reason: "), r"(?P<c>.*)", _cg_left),
        Template(cg(r"Converted the (?P<e>empty )?(?:classic|consumer) group to a (?P<to>consumer|classic) group"),
                  "", _cg_converted)]),
    "Cannot": (False, [
        Template(r"Cannot upgrade classic group (?>(?P<g>.+?) to consumer group (?P<why>because (?:online upgrade "
                  r"is disabled|the group does not use the consumer embedded protocol|the group size exceeds the "
                  r"consumer group maximum size)))", "", _cg_refused),
        Template(r"Cannot upgrade classic group (?>(?P<g>.+?) to consumer group (?P<why>because the embedded "
                  r"consumer protocol is malformed): )", ".*", _cg_refused),
        Template(r"Cannot upgrade classic group (?>(?P<g>.+?) to consumer group: )", ".*",
                  partial(_cg_refused_as, "upgrade_unsupported_version")),
        Template(r"Cannot downgrade consumer group (?>(?P<g>.+?) to classic group (?P<why>because (?:the online "
                  r"downgrade is disabled|its group size is greater than classic group max size)))", "", _cg_refused),
        Template(r"Cannot downgrade the consumer group (?>(?P<g>.+?): fail to parse the Consumer Protocol )", r"\S+",
                  partial(_cg_refused_as, "downgrade_malformed_protocol"))]),
}
