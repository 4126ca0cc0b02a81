"""The broker's lines about share groups (KIP-932): the INFO lines `GroupMetadataManager.java` writes
for a share group, read at 4.0.0 / 4.1.1 / 4.2.0 and confluentinc/kafka branches 4.3 and 4.4 (the
wordings did not change there):

    [GroupId g] Member m joins the share group using the share protocol.     (every epoch-0 heartbeat)
    [GroupId g] Member m left the share group.                                (shareGroupLeave)
    [GroupId g] Member m new assignment state: epoch=E, previousEpoch=P, state=STABLE,
        assignedPartitions=[...].                                             (maybeReconcile; INFO for share)
    [GroupId g] Computed a new target assignment for epoch E with '<SimpleAssignor object>' assignor ...
    Loaded share group g with n members.                                      (read with the other kinds: broker.py)

The epoch bump and the session-expiry fence share the consumer groups' wording (broker_kip848). A
share member's new epoch is a MemberEpochBumped only when it differs from the epoch its last line
showed (a subscription change reassigns at the same epoch). TEMPLATES go in front of the consumer
groups' under the same key (sources.py).
"""

from __future__ import annotations

from kafkasim.analysis.logs.broker import M, N, Template, cg, ev, number

_SIMPLE_ASSIGNOR = r"org\.apache\.kafka\.coordinator\.group\.assignor\.SimpleAssignor@[^']*+"


def _joined(m, t, ctx):
    ctx.note(m["g"], t, "joined")
    return [ev(t, "MemberJoined", m["g"], m["m"])]


def _left(m, t, ctx):
    ctx.note(m["g"], t, "removed")
    ctx.recent.pop((m["g"], m["m"]), None)
    return [ev(t, "MemberRemoved", m["g"], m["m"], reason="leave_group")]


def _reconciled(m, t, ctx):
    """A new member epoch, once per epoch (the memory is keyed (group, member), apart from groups)."""
    g, member, epoch = m["g"], m["m"], number(m["n"])
    last = ctx.recent.get((g, member))
    ctx.recent[(g, member)] = (t, epoch)
    if (last[1] if last is not None else number(m["p"])) == epoch:
        return []
    return [ev(t, "MemberEpochBumped", g, member, reason=m["s"], value=float(epoch))]


def _target(m, t, ctx):
    ctx.forget(m["g"])
    return [ev(t, "TargetAssignmentComputed", m["g"], None, number(m["n"]), "simple")]


TEMPLATES: dict[str, list[Template]] = {
    "[GroupId": [
        Template(cg(r"Member " + M + r" joins the share group using the share protocol"), "", _joined),
        Template(cg(r"Member " + M + r" left the share group"), "", _left),
        Template(cg(r"Member " + M + r" new assignment state: epoch=" + N + r", previousEpoch=(?P<p>-?\d++), "
                    r"state=(?P<s>\w++), assignedPartitions=\["), r"[^\]]*+\]", _reconciled),
        Template(cg(r"Computed a new target assignment for epoch " + N + r" with '" + _SIMPLE_ASSIGNOR +
                    r"' assignor"), r"(?: in \d++ms)?(?:: .*)?", _target, True)],
}
