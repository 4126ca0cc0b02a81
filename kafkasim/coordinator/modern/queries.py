"""What a consumer group (KIP-848) and a share group (KIP-932) answer alike: the queries on a group
and its members, and the event rows, state changes and log hook of their managers. Kafka keeps
the common part of both kinds of group in `ModernGroup` and `ModernGroupMember`
(`org.apache.kafka.coordinator.group.modern`); here it is one base class of both managers.

A manager using it has `groups` ({group id: group}), `_deleted` (ids of deleted groups), `_rows`,
`sim`, `log`, and names its kind in `KIND` ("consumer", "share") for the errors of an unknown id.

May import: `kafkasim.core`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkasim.core.errors import Errors

DEAD = "Dead"


def as_lists(assignment: Mapping[str, Any]) -> dict[str, list[int]]:
    """An assignment as the API shows it: topics in name order, partitions ascending, empty topics left out."""
    return {t: sorted(ps) for t, ps in sorted(assignment.items()) if ps}


class ModernGroupQueries:
    """Queries by group and member id (KeyError for an unknown one), deleting and storing a loaded
    group, and the rows both managers write."""

    KIND = "modern"

    # == queries ================================================================================
    def has_group(self, group_id: str) -> bool:
        return group_id in self.groups

    def group_state(self, group_id: str) -> str | None:
        """The group's state ("Empty", "Stable", ...); "Dead" after deletion; None if unknown."""
        group = self.groups.get(group_id)
        if group is None:
            return DEAD if group_id in self._deleted else None
        return group.compute_state()

    def group_epoch(self, group_id: str) -> int:
        return self._group(group_id).group_epoch

    def target_assignment_epoch(self, group_id: str) -> int:
        return self._group(group_id).assignment_epoch

    def target_assignment(self, group_id: str) -> dict[str, dict[str, list[int]]]:
        """Every member's target: `{member_id: {topic: [partition, ...]}}`."""
        group = self._group(group_id)
        return {mid: as_lists(group.target.get(mid, {})) for mid in group.members}

    def member_ids(self, group_id: str) -> list[str]:
        return list(self._group(group_id).members)

    def member_epoch(self, group_id: str, member_id: str) -> int:
        return self._member(group_id, member_id).member_epoch

    def previous_member_epoch(self, group_id: str, member_id: str) -> int:
        return self._member(group_id, member_id).previous_member_epoch

    def member_state(self, group_id: str, member_id: str) -> str:
        return self._member(group_id, member_id).state

    def assigned_partitions(self, group_id: str, member_id: str) -> dict[str, list[int]]:
        return as_lists(self._member(group_id, member_id).assigned)

    def _group(self, group_id: str):
        group = self.groups.get(group_id)
        if group is None:
            raise KeyError(f"unknown {self.KIND} group {group_id!r}")
        return group

    def _member(self, group_id: str, member_id: str):
        member = self._group(group_id).members.get(member_id)
        if member is None:
            raise KeyError(f"unknown member {member_id!r} of {self.KIND} group {group_id!r}")
        return member

    # == loading and deleting ===================================================================
    def delete_group(self, group_id: str) -> Errors:
        """DeleteGroups: only an Empty group can be deleted; it then reads "Dead"."""
        group = self.groups.get(group_id)
        if group is None:
            return Errors.GROUP_ID_NOT_FOUND
        if group.members:
            return Errors.NON_EMPTY_GROUP
        del self.groups[group_id]
        self._cancel_all_timers(group)
        self._deleted.add(group_id)
        self._event(group, "StateChanged", reason=group.state, state=DEAD)
        return Errors.NONE

    def _cancel_all_timers(self, group) -> None:
        """What a deleted group leaves armed (nothing, unless the kind keeps group-level timers)."""

    def _store_loaded(self, group) -> None:
        """The end of a load (`load_consumer_group`, `load_share_group`): the group replaces any of its id."""
        group.state = group.compute_state()
        self.groups[group.group_id] = group
        self._deleted.discard(group.group_id)
        self._event(group, "GroupLoaded", value=len(group.members))
        self._emit_log("group_loaded", group.group_id, None, members=len(group.members))

    def _session_expired(self, group, member) -> None:
        """The member's session timer found it silent for the session timeout (`scheduleConsumerGroup`/
        `scheduleShareGroupSessionTimeout`): fenced and removed, in the same words for both kinds."""
        self._emit_log("member_fenced", group.group_id, member.member_id, reason="the member session expired")
        self._event(group, "MemberFenced", member.member_id, reason="session_timeout", value=member.member_epoch)
        self._fence(group, member, "session_timeout")

    # == events =================================================================================
    def _event(self, group, kind: str, member: str | None = None, *, reason: str | None = None,
               value: float | None = None, generation: int | None = None, state: str | None = None) -> None:
        self._rows.append((self.sim.now, "coordinator", group.group_id, member, kind,
                           group.group_epoch if generation is None else generation, None, None, None, reason,
                           None if value is None else float(value), state or group.compute_state()))

    def _sync_state(self, group) -> None:
        """One StateChanged row per request or timer whose net effect changed the group state."""
        state = group.compute_state()
        if state != group.state:
            previous, group.state = group.state, state
            self._event(group, "StateChanged", reason=previous, state=state)

    def _emit_log(self, event: str, group_id: str, member_id: str | None, **details) -> None:
        if self.log is not None:
            self.log(self.sim.now, event, group_id, member_id, details)
