"""The group coordinator's INFO lines, in Kafka's wording and log4j layout for a chosen version.

Wording by version (listed in docs/broker-log-parser.md) was read at each release tag from
`GroupCoordinator.scala` (0.9 to 3.9) and, for 4.x, from the classic-group code of the Java
`group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java` (the new
coordinator, the only one from 4.0; its classic-group lines are the same at 4.0.0, 4.1.0 and
4.2.0-rc1), with the `[GroupCoordinator id=N topic=__consumer_offsets partition=P] ` prefix its
`CoordinatorRuntime` gives each `__consumer_offsets` partition's `LogContext`. The layout is Kafka's
default `[%d] %p %m (%c)%n` (`config/log4j.properties` up to 3.9, `config/log4j2.yaml` from 4.0).
Simulated time 0 maps to START_TIME, so a log is the same on every machine. Lines Kafka logs below
INFO are not written, because a real `server.log` would not show them either.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from kafkasim.core.config import parse_version
from kafkasim.core.java import java_string_hash

START_TIME = datetime(2026, 1, 1)
OFFSETS_TOPIC = "__consumer_offsets"
OFFSETS_TOPIC_PARTITIONS = 50  # offsets.topic.num.partitions default


def offsets_partition(group_id: str, partitions: int = OFFSETS_TOPIC_PARTITIONS) -> int:
    """`GroupMetadataManager.partitionFor`: Utils.abs(groupId.hashCode) % partitions."""
    h = java_string_hash(group_id)
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def scala_option(value: str | None) -> str:
    return "None" if value is None else f"Some({value})"


class BrokerLog:
    """Writes coordinator log lines for one broker, in the wording of `kafka_version`."""

    def __init__(self, kafka_version: str = "3.7", broker_id: int = 0):
        self.version = parse_version(kafka_version)
        self.broker_id = broker_id
        self.new_coordinator = self.version >= (4, 0)
        self.lines: list[str] = []
        self._stamp_ms = -1
        self._stamp = ""
        if self.new_coordinator:
            self._logger = "org.apache.kafka.coordinator.group.GroupMetadataManager"
        elif self.version >= (0, 11):
            self._logger = "kafka.coordinator.group.GroupCoordinator"
        else:
            self._logger = "kafka.coordinator.GroupCoordinator"

    @property
    def member_left_before_rebalance(self) -> bool:
        """Is a LeaveGroup's "has left" line written before the rebalance it causes? Before 3.0 and
        in 4.x (`removeCurrentMemberFromClassicGroup` logs it, then the rebalance starts once every
        member of the request is out); in 3.x after (`GroupCoordinator.handleLeaveGroup`)."""
        return self.version < (3, 0) or self.new_coordinator

    # -- layout ---------------------------------------------------------------------------
    def _timestamp(self, ms: int) -> str:
        if ms != self._stamp_ms:
            t = START_TIME + timedelta(milliseconds=ms)
            self._stamp_ms, self._stamp = ms, t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"
        return self._stamp

    def _write(self, ms: int, group: str, old_text: str, new_text: str | None = None) -> None:
        if self.new_coordinator:
            prefix = f"[GroupCoordinator id={self.broker_id} topic={OFFSETS_TOPIC} partition={offsets_partition(group)}] "
            message = new_text if new_text is not None else old_text + "."
        else:
            prefix, message = f"[GroupCoordinator {self.broker_id}]: ", old_text
        self.lines.append(f"[{self._timestamp(ms)}] INFO {prefix}{message} ({self._logger})")

    def _tp(self, group: str) -> str:
        """' (__consumer_offsets-P)' from 0.11 on (absent before and in the new coordinator)."""
        return f" ({OFFSETS_TOPIC}-{offsets_partition(group)})" if (0, 11) <= self.version < (4, 0) else ""

    def _client_reason(self, reason: str | None) -> str:
        return f"; client reason: {reason or 'not provided'}" if self.version >= (3, 2) else ""

    # -- rebalance reasons (the `(reason: ...)` text, 2.1+) ---------------------------------
    def reason_new_member(self, member: str, instance_id: str | None, client_reason: str | None) -> str:
        # Scala prints the Option (None / Some(i)); Java the String or "null".
        inst = (instance_id if instance_id is not None else "null") if self.new_coordinator \
            else scala_option(instance_id)
        if self.version >= (2, 5):
            return f"Adding new member {member} with group instance id {inst}{self._client_reason(client_reason)}"
        if self.version >= (2, 3):
            return f"Adding new member {member} with group instanceid {inst}"
        return f"Adding new member {member}"

    def reason_heartbeat_expiration(self, member: str) -> str:
        return f"removing member {member} on heartbeat expiration" + ("." if self.new_coordinator else "")

    def reason_leave_group(self, member: str, client_reason: str | None) -> str:
        if self.new_coordinator:
            return f"explicit `LeaveGroup` request for ({member}) members."
        if self.version >= (3, 0):
            return f"Removing member {member} on LeaveGroup{self._client_reason(client_reason)}"
        return f"removing member {member} on LeaveGroup"

    def reason_rejoin(self, member: str, state: str, *, leader: bool, metadata_changed: bool,
                      client_reason: str | None) -> str:
        if self.version < (2, 7):
            return f"Updating metadata for member {member}"
        if metadata_changed:
            text = f"Updating metadata for member {member} during {state}"
        elif leader:
            text = f"{'Leader' if self.version >= (3, 0) else 'leader'} {member} re-joining group during {state}"
        else:
            text = f"Member {member} {'is joining' if self.new_coordinator else 'joining'} group during {state}"
        return text + self._client_reason(client_reason)

    def reason_static_update(self, member: str, instance_id: str, client_reason: str | None) -> str:
        return f"Updating metadata for static member {member} with instance id {instance_id}" + \
            self._client_reason(client_reason)

    def reason_static_protocol_change(self, member: str, instance_id: str, client_reason: str | None) -> str:
        return (f"Group's selectedProtocol will change because static member {member} with instance id "
                f"{instance_id} joined with change of protocol{self._client_reason(client_reason)}")

    def reason_pending_sync(self, members: list[str]) -> str:
        return f"Removing {self.scala_set(members)} on pending sync request expiration"

    def scala_set(self, members: list[str]) -> str:
        return ("[" + ", ".join(members) + "]") if self.new_coordinator else ("Set(" + ", ".join(members) + ")")

    # -- lines ----------------------------------------------------------------------------
    def preparing_rebalance(self, ms: int, group: str, state: str, old_generation: int, reason: str) -> None:
        if self.version < (0, 11):
            text = f"Preparing to restabilize group {group} with old generation {old_generation}"
        elif self.version < (2, 1):
            text = f"Preparing to rebalance group {group} with old generation {old_generation}{self._tp(group)}"
        else:
            text = (f"Preparing to rebalance group {group} in state {state} with old generation "
                    f"{old_generation}{self._tp(group)} (reason: {reason})")
        self._write(ms, group, text, text + ("" if text.endswith(".") else "."))

    def stabilized(self, ms: int, group: str, generation: int, members: int) -> None:
        text = f"Stabilized group {group} generation {generation}{self._tp(group)}"
        if self.version >= (2, 8):
            text += f" with {members} members"
        self._write(ms, group, text)

    def assignment_received(self, ms: int, group: str, generation: int, leader: str, members: int,
                            static: int) -> None:
        if self.version >= (3, 0):
            text = f"Assignment received from leader {leader} for group {group} for generation {generation}"
        else:
            text = f"Assignment received from leader for group {group} for generation {generation}"
        if self.version >= (2, 8):
            text += f". The group has {members} members, {static} of which are static"
            self._write(ms, group, text + ".", text + ".")
        else:
            self._write(ms, group, text)

    def group_empty(self, ms: int, group: str, generation: int) -> None:
        if self.version < (0, 10, 1):
            self._write(ms, group, f"Group {group} generation {generation - 1} is dead and removed")
        else:
            self._write(ms, group, f"Group {group} with generation {generation} is now empty{self._tp(group)}")

    def member_failed(self, ms: int, group: str, member: str) -> None:
        if self.version >= (0, 11, 0, 1):  # DEBUG/TRACE before 0.11.0.1
            self._write(ms, group, f"Member {member} in group {group} has failed, removing it from the group")

    def member_left(self, ms: int, group: str, member: str, instance_id: str | None, client_reason: str | None,
                    description: str) -> None:
        """`description` is the MemberMetadata toString that 3.x embeds in the line."""
        if self.new_coordinator:
            self._write(ms, group, "", f"[Group {group}] Member {member} has left group through explicit "
                                       f"`LeaveGroup` request; client reason: {client_reason or 'not provided'}")
        elif self.version >= (3, 0):
            self._write(ms, group, f"Member {description} has left group {group} through explicit `LeaveGroup`"
                                   + (self._client_reason(client_reason) if self.version >= (3, 2) else " request"))
        elif self.version >= (2, 4):
            self._write(ms, group, f"Member[group.instance.id {scala_option(instance_id)}, member.id {member}] "
                                   f"in group {group} has left, removing it from the group")
        elif self.version >= (2, 2):
            self._write(ms, group, f"Member {member} in group {group} has left, removing it from the group")

    def pending_member_left(self, ms: int, group: str, member: str, client_reason: str | None) -> None:
        if self.version >= (3, 0):
            self._write(ms, group, f"Pending member with memberId={member} has left group {group} through explicit "
                                   f"`LeaveGroup` request" + self._client_reason(client_reason),
                        f"[Group {group}] Pending member {member} has left group through explicit `LeaveGroup` "
                        f"request; client reason: {client_reason or 'not provided'}")
        elif self.version >= (2, 2):
            self._write(ms, group, f"Pending member {member} is leaving group {group}.")

    def pending_member_expired(self, ms: int, group: str, member: str) -> None:
        if self.version >= (2, 2):
            text = f"Pending member {member} in group {group} has been removed after session timeout expiration."
            self._write(ms, group, text, text)

    def removed_not_rejoined(self, ms: int, group: str, members: list[str]) -> None:
        if self.version >= (2, 8):
            text = f"Group {group} removed dynamic members who haven't joined: {self.scala_set(members)}"
            self._write(ms, group, text, text)  # no closing period in 4.x either

    def member_id_required(self, ms: int, group: str, state: str, member: str) -> None:
        if self.version >= (3, 0):  # DEBUG in 2.4 - 2.8
            verb = "requesting" if self.new_coordinator else "request"
            text = (f"Dynamic member with unknown member id joins group {group} in {state} state. Created a new "
                    f"member id {member} and {verb} the member to rejoin with this id.")
            self._write(ms, group, text, text)

    def pending_member_joined(self, ms: int, group: str, state: str, member: str) -> None:
        """A member that got MEMBER_ID_REQUIRED rejoins with its id (KIP-394): INFO only in 4.x
        (DEBUG in `GroupCoordinator.scala` and in the Java coordinator up to 3.9)."""
        if self.new_coordinator:
            text = (f"Pending dynamic member with id {member} joins group {group} in {state} state. "
                    "Adding to the group now.")
            self._write(ms, group, text, text)

    def dynamic_member_added(self, ms: int, group: str, state: str, member: str) -> None:
        if self.new_coordinator:
            self._write(ms, group, "", f"Dynamic member with unknown member id joins group {group} in state {state}. "
                                       f"Created a new member id {member} and added the member to the group.")
        elif self.version >= (2, 5):
            self._write(ms, group, f"Dynamic Member with unknown member id joins group {group} in {state} state. "
                                   f"Created a new member id {member} for this member and add to the group.")

    def static_member_added(self, ms: int, group: str, state: str, instance_id: str, member: str,
                            old_member: str | None) -> None:
        if self.version >= (3, 0):
            verb = "added" if self.new_coordinator else "add"
            tail = (f"Replacing previously mapped member {old_member} with this groupInstanceId." if old_member
                    else f"Created a new member id {member} for this member and {verb} to the group.")
            text = f"Static member with groupInstanceId={instance_id} and unknown member id joins group {group} " \
                   f"in {state} state. {tail}"
            self._write(ms, group, text, text)
        elif old_member and self.version >= (2, 5):
            self._write(ms, group, f"Static member {instance_id} of group {group} with unknown member id rejoins, "
                                   f"assigning new member id {member}, while old member id {old_member} will be removed.")
        elif old_member and self.version >= (2, 3):
            self._write(ms, group, f"Static member {instance_id} with unknown member id rejoins, assigning new "
                                   f"member id {member}, while old member {old_member} will be removed.")
