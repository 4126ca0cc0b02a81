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

Consumer groups (KIP-848, `group.protocol=consumer`) have lines of their own, written by the same
`GroupMetadataManager` logger with the same prefix, most starting `[GroupId <group>] `; they were
read from `GroupMetadataManager.java` at the tags 4.0.0, 4.1.1 and 4.2.0-rc1 (each method names the
Kafka method that logs it). `consumer_group` is the `log` hook of
`modern.consumer.ConsumerGroupManager`: the manager calls it where Kafka logs, so the lines come in
Kafka's order (the member's join line, then the epoch bump, then the new target assignment; a
fence, then the bump). What Kafka logs at DEBUG (reconciliation steps, subscription metadata) is
not written, and Kafka logs no consumer-group state transition at any level. These lines are
written from 4.0 on; the early-access protocol of 3.7-3.9 (other wording, more INFO lines) is not.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Callable, Iterable, Mapping

from kafkasim.core.config import normalize_version, parse_version
from kafkasim.core.log_time import START_TIME
from kafkasim.core.java import java_string_hash

OFFSETS_TOPIC = "__consumer_offsets"
OFFSETS_TOPIC_PARTITIONS = 50  # offsets.topic.num.partitions default


def offsets_partition(group_id: str, partitions: int = OFFSETS_TOPIC_PARTITIONS) -> int:
    """`GroupMetadataManager.partitionFor`: Utils.abs(groupId.hashCode) % partitions."""
    h = java_string_hash(group_id)
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def scala_option(value: str | None) -> str:
    return "None" if value is None else f"Some({value})"


def metadata_hash(metadata: Mapping[str, int] | None) -> int:
    """The group's metadata hash that 4.1+ prints when it bumps the epoch, as a stand-in: Kafka's
    (`Utils.computeGroupHash` over `computeTopicHash`, XXH3) covers each subscribed topic's id,
    which a real cluster draws at random, so no simulator can print a real broker's value. Like
    Kafka's, it is 0 when no subscribed topic exists and changes whenever a topic's partition
    count does; here it is the first 8 bytes of a BLAKE2b digest of the sorted `{topic: partitions}`,
    as a signed Java long."""
    if not metadata:
        return 0
    text = "\n".join(f"{topic}\0{metadata[topic]}" for topic in sorted(metadata))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True)


def java_hash_map_order(keys: Iterable[str], initial_capacity: int) -> list[str]:
    """The iteration order of a Java `new HashMap<>(initial_capacity)` filled with `keys` in that
    order: by bucket (`hashCode ^ hashCode >>> 16`, masked by the table size the map grew to),
    then in insertion order within a bucket."""
    keys = list(dict.fromkeys(keys))
    capacity = 1  # tableSizeFor: the smallest power of two >= initial_capacity
    while capacity < initial_capacity:
        capacity <<= 1
    while len(keys) > int(capacity * 0.75):  # putVal: ++size > threshold doubles the table, at most
        capacity <<= 1                       # once a put, so the table ends where the threshold holds size

    def bucket(key: str) -> int:
        h = java_string_hash(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)
    return sorted(keys, key=bucket)  # sorted is stable: insertion order within a bucket


#: `consumer_group_conversion_refused` causes -> (level, Kafka's message), the same at 4.0.0, 4.1.1 and 4.2.0-rc1:
#: `validateOnlineUpgrade`, `convertToConsumerGroup`, `validateOnlineDowngradeWith{Fenced,Replaced}Member{s}`
#: and `convertToClassicGroup` in GroupMetadataManager.java. "{error}" is the exception's message.
CONVERSION_REFUSALS = {
    "upgrade_disabled": ("INFO", "Cannot upgrade classic group {group} to consumer group because online upgrade is "
                                 "disabled."),
    "upgrade_not_consumer_protocol": ("INFO", "Cannot upgrade classic group {group} to consumer group because the "
                                              "group does not use the consumer embedded protocol."),
    "upgrade_group_too_large": ("INFO", "Cannot upgrade classic group {group} to consumer group because the group "
                                        "size exceeds the consumer group maximum size."),
    "upgrade_malformed_protocol": ("WARN", "Cannot upgrade classic group {group} to consumer group because the "
                                           "embedded consumer protocol is malformed: {error}."),
    "upgrade_unsupported_version": ("WARN", "Cannot upgrade classic group {group} to consumer group: {error}."),
    "downgrade_disabled": ("INFO", "Cannot downgrade consumer group {group} to classic group because the online "
                                   "downgrade is disabled."),
    "downgrade_group_too_large": ("INFO", "Cannot downgrade consumer group {group} to classic group because its "
                                          "group size is greater than classic group max size."),
    "downgrade_malformed_protocol": ("WARN", "Cannot downgrade the consumer group {group}: fail to parse the "
                                             "Consumer Protocol consumer."),
}

#: The fence reasons of `consumerGroupFenceMemberOperation` ("... fenced from the group because {reason}.").
FENCED_SESSION_EXPIRED = "the member session expired"              # scheduleConsumerGroupSessionTimeout
FENCED_CLASSIC_JOIN_TIMEOUT = "the classic member failed to join within the rebalance timeout"
FENCED_CLASSIC_SYNC_TIMEOUT = "the member failed to sync within timeout"


def fenced_rebalance_timeout(epoch: int, timeout_ms: int) -> str:
    """The reason `scheduleConsumerGroupRebalanceTimeout` gives (its own template, the same words)."""
    return f"it failed to transition from epoch {epoch} within {timeout_ms}ms"


class BrokerLog:
    """Writes coordinator log lines for one broker, in the wording of `kafka_version`."""

    def __init__(self, kafka_version: str = "3.7", broker_id: int = 0):
        normalize_version(kafka_version)  # an unmodelled version is refused as Scenario refuses it
        self.version = parse_version(kafka_version)
        self.broker_id = broker_id
        self.new_coordinator = self.version >= (4, 0)
        self.lines: list[str] = []
        self._stamp_ms = -1
        self._stamp = ""
        self._prefixes: dict[str, str] = {}
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

    def _prefix(self, group: str) -> str:
        """The new coordinator's `LogContext` prefix for the group's `__consumer_offsets` partition."""
        prefix = self._prefixes.get(group)
        if prefix is None:
            prefix = self._prefixes[group] = (f"[GroupCoordinator id={self.broker_id} topic={OFFSETS_TOPIC} "
                                              f"partition={offsets_partition(group)}] ")
        return prefix

    def _write(self, ms: int, group: str, old_text: str, new_text: str | None = None) -> None:
        if self.new_coordinator:
            prefix = self._prefix(group)
            message = new_text if new_text is not None else old_text + "."
        else:
            prefix, message = f"[GroupCoordinator {self.broker_id}]: ", old_text
        self.lines.append(f"[{self._timestamp(ms)}] INFO {prefix}{message} ({self._logger})")

    def _write_new(self, ms: int, group: str, message: str, level: str = "INFO") -> None:
        """A line only the new coordinator (4.0+) writes; nothing before 4.0."""
        if self.new_coordinator:
            self.lines.append(f"[{self._timestamp(ms)}] {level} {self._prefix(group)}{message} ({self._logger})")

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
            self._write_new(ms, group, f"[Group {group}] Member {member} has left group through explicit "
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
        """INFO from 2.5 (`GroupCoordinator.doUnknownJoinGroup`; no line before), reworded in 4.0."""
        if self.version >= (2, 5):
            self._write(ms, group, f"Dynamic Member with unknown member id joins group {group} in {state} state. "
                                   f"Created a new member id {member} for this member and add to the group.",
                        f"Dynamic member with unknown member id joins group {group} in state {state}. "
                        f"Created a new member id {member} and added the member to the group.")

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

    def reason_downgrade(self, group: str, static_replacement: bool = False) -> str:
        """The rebalance reason when a consumer group becomes a classic group again
        (`convertToClassicGroup`): 4.0.0-4.0.1 and 4.1.0 say only "Downgrade group g from consumer to
        classic."; 4.0.2+, 4.1.1+ and 4.2 (KAFKA-19546) say why, and also rebalance when a static
        member replaces another with a different subscription."""
        v = self.version
        if (4, 0, 2) <= v < (4, 1) or v >= (4, 1, 1):
            why = "static member replacement with different subscription" if static_replacement else "member leaving"
            return f"Downgrade group {group} from consumer to classic for {why}."
        return f"Downgrade group {group} from consumer to classic."

    # -- consumer groups (KIP-848): GroupMetadataManager.java, 4.0.0 / 4.1.1 / 4.2.0-rc1 -----------
    def consumer_member_joined(self, ms: int, group: str, member: str, instance_id: str | None = None,
                               protocol: str = "consumer") -> None:
        """A member heartbeats with epoch 0 (`getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember`;
        a known dynamic member rejoining is logged the same way). `protocol` is "classic" for a
        classic member joining a consumer group."""
        if instance_id is None:
            text = f"[GroupId {group}] Member {member} joins the consumer group using the {protocol} protocol."
        else:
            text = (f"[GroupId {group}] Static member {member} with instance id {instance_id} joins the consumer group "
                    f"using the {protocol} protocol.")
        self._write_new(ms, group, text)

    def consumer_static_member_replaced(self, ms: int, group: str, instance_id: str, member: str, old_member: str,
                                        protocol: str = "consumer") -> None:
        """A static member comes back under a new member id (`getOrMaybeSubscribeStaticConsumerGroupMember`)."""
        self._write_new(ms, group, f"[GroupId {group}] Static member with instance id {instance_id} re-joins the "
                                   f"consumer group using the {protocol} protocol. Created a new member {member} to "
                                   f"replace the existing member {old_member}.")

    def consumer_unreleased_instance_id(self, ms: int, group: str, member: str, instance_id: str, owner: str) -> None:
        """UNRELEASED_INSTANCE_ID (`throwIfInstanceIdIsUnreleased`; "is is owned" in 3.7-3.9)."""
        self._write_new(ms, group, f"[GroupId {group}] Static member {member} with instance id {instance_id} cannot "
                                   f"join the group because the instance id is owned by member {owner}.")

    def consumer_fenced_instance_id(self, ms: int, group: str, member: str, instance_id: str, owner: str) -> None:
        """FENCED_INSTANCE_ID (`throwIfInstanceIdIsFenced`)."""
        self._write_new(ms, group, f"[GroupId {group}] Static member {member} with instance id {instance_id} is fenced "
                                   f"by existing member {owner}.")

    def consumer_member_left(self, ms: int, group: str, member: str, instance_id: str | None = None,
                             temporarily: bool = False) -> None:
        """A leave heartbeat (`consumerGroupLeave`): epoch -1, or -2 for a static member that comes back."""
        if instance_id is None:
            text = f"[GroupId {group}] Member {member} left the consumer group."
        else:
            text = (f"[GroupId {group}] Static member {member} with instance id {instance_id} "
                    f"{'temporarily left' if temporarily else 'left'} the consumer group.")
        self._write_new(ms, group, text)

    def consumer_member_fenced(self, ms: int, group: str, member: str, reason: str) -> None:
        """A timer fenced the member (`consumerGroupFenceMemberOperation`,
        `scheduleConsumerGroupRebalanceTimeout`); `reason` is one of the FENCED_* texts or
        `fenced_rebalance_timeout(...)`."""
        self._write_new(ms, group, f"[GroupId {group}] Member {member} fenced from the group because {reason}.")

    def group_epoch_bumped(self, ms: int, group: str, epoch: int, metadata: Mapping[str, int] | None = None) -> None:
        """The group epoch moved (`updateSubscriptionMetadata`, `consumerGroupFenceMembers`,
        `handleRegularExpressionsResult`); from 4.1 (KAFKA-17747, which replaced the subscription
        metadata record with a hash) with the group's metadata hash (see `metadata_hash`)."""
        if self.version >= (4, 1):
            text = f"[GroupId {group}] Bumped group epoch to {epoch} with metadata hash {metadata_hash(metadata)}."
        else:
            text = f"[GroupId {group}] Bumped group epoch to {epoch}."
        self._write_new(ms, group, text)

    def target_assignment_computed(self, ms: int, group: str, epoch: int, assignor: str, elapsed_ms: int = 0) -> None:
        """`updateTargetAssignment` at INFO (the DEBUG variant, which adds the assignment, replaces it
        when DEBUG is on). The assignor runs in no simulated time: `elapsed_ms` is 0."""
        self._write_new(ms, group, f"[GroupId {group}] Computed a new target assignment for epoch {epoch} with "
                                   f"'{assignor}' assignor in {elapsed_ms}ms.")

    def target_assignment_failed(self, ms: int, group: str, epoch: int, error: str) -> None:
        """The assignor threw (`updateTargetAssignment`, ERROR). 4.2 passes the exception to the
        logger, so a real log has its stack trace on the following lines; they are not written."""
        self._write_new(ms, group, f"[GroupId {group}] Failed to compute a new target assignment for epoch {epoch}: "
                                   f"{error}.", "ERROR")

    def regexes_refreshed(self, ms: int, group: str, topics: int, regexes: Iterable[str], elapsed_ms: int = 0) -> None:
        """`refreshRegularExpressions`: the cluster's topic count, and the regexes as Java prints the
        key set of the `HashMap` it built (`java_hash_map_order`)."""
        regexes = list(regexes)
        shown = ", ".join(java_hash_map_order(regexes, len(regexes)))
        self._write_new(ms, group, f"[GroupId {group}] Scanned {topics} topics to refresh regular expressions "
                                   f"[{shown}] in {elapsed_ms}ms.")

    def consumer_group_loaded(self, ms: int, group: str, members: int) -> None:
        """`onLoaded` (no `[GroupId]` in this line)."""
        self._write_new(ms, group, f"Loaded consumer group {group} with {members} members.")

    def consumer_group_unloaded(self, ms: int, group: str, epoch: int) -> None:
        """`onUnloaded` (note `GroupId=`)."""
        self._write_new(ms, group, f"[GroupId={group}] Unloaded group metadata for group epoch {epoch}.")

    def consumer_group_converted(self, ms: int, group: str, to: str, empty: bool = False) -> None:
        """A group changed protocol: `to` is "consumer" (`convertToConsumerGroup`, or
        `getOrMaybeCreateConsumerGroup` for an empty group) or "classic" (`convertToClassicGroup`,
        or `classicGroupJoinToClassicGroup` for an empty group)."""
        if to not in ("consumer", "classic"):
            raise ValueError(f"to must be 'consumer' or 'classic', got {to!r}")
        source = "classic" if to == "consumer" else "consumer"
        self._write_new(ms, group, f"[GroupId {group}] Converted the {'empty ' if empty else ''}{source} group to a "
                                   f"{to} group.")

    def consumer_group_conversion_refused(self, ms: int, group: str, cause: str, error: str = "") -> None:
        """An online upgrade or downgrade that cannot happen (CONVERSION_REFUSALS names the causes)."""
        level, template = CONVERSION_REFUSALS[cause]
        self._write_new(ms, group, template.format(group=group, error=error), level)

    def classic_member_id_required(self, ms: int, group: str, member: str) -> None:
        """A classic member without an id joins a consumer group (`classicGroupJoinToConsumerGroup`)."""
        self._write_new(ms, group, f"[GroupId {group}] Dynamic member with unknown member id joins the consumer "
                                   f"group. Created a new member id {member} and requesting the member to rejoin with "
                                   f"this id.")

    def classic_join_refused(self, ms: int, group: str, message: str) -> None:
        """4.3.1+ (KAFKA-20640): a classic JoinGroup to a consumer group under migration policy disabled
        (`throwIfClassicMemberCannotJoinConsumerGroup` at v8.3.1, INFO; the message is the error's)."""
        self._write_new(ms, group, message)

    def classic_member_left_consumer_group(self, ms: int, group: str, member: str, instance_id: str | None,
                                           client_reason: str | None) -> None:
        """A classic LeaveGroup to a consumer group (`classicGroupLeaveToConsumerGroup`)."""
        who = f"Dynamic member {member}" if instance_id is None else \
            f"Static member {member} with instance id {instance_id}"
        self._write_new(ms, group, f"[GroupId {group}] {who} has left group through explicit `LeaveGroup` request; "
                                   f"client reason: {client_reason or 'not provided'}")

    # -- the ConsumerGroupManager's log hook ---------------------------------------------------
    def consumer_group(self, ms: int, event: str, group: str, member: str | None, details: Mapping) -> None:
        """`log(time_ms, event, group_id, member_id, details)` as `ConsumerGroupManager` calls it:
        the line Kafka writes for that event at INFO or above, or nothing (DEBUG events such as
        member_reconciled, and every event before 4.0). Events and their details are listed in
        `CONSUMER_GROUP_EVENTS`."""
        if self.new_coordinator:
            write = CONSUMER_GROUP_EVENTS.get(event)
            if write is not None:
                write(self, ms, group, member, details)


    # -- share groups (KIP-932): GroupMetadataManager.java, 4.0.0 / 4.1.1 / 4.2.0 -------------------
    def share_group(self, ms: int, event: str, group: str, member: str | None, details: Mapping) -> None:
        """`log(time_ms, event, group_id, member_id, details)` as `ShareGroupManager` calls it: the
        INFO line `GroupMetadataManager` writes for a share group. Every event the manager emits is in
        `SHARE_GROUP_EVENTS`, whose entry gives None where this version writes no line."""
        text = SHARE_GROUP_EVENTS[event](self, group, member, details)
        if text is not None:
            self._write_new(ms, group, text)

    def share_target_assignment(self, group: str, epoch: int, assignment: Mapping) -> str:
        """The new-target line: the assignor is the `SimpleAssignor` object, which has no `toString`
        (Java's `Class@hashCode`, the identity hash shown as <hash>); 4.0 logs the assignment too, here
        as `{member: {topic: [partitions]}}` (Kafka prints its map of `MemberAssignmentImpl` with topic ids)."""
        assignor = "org.apache.kafka.coordinator.group.assignor.SimpleAssignor@<hash>"
        text = f"[GroupId {group}] Computed a new target assignment for epoch {epoch} with '{assignor}' assignor in 0ms"
        return text + (f": {dict(assignment)}." if self.version < (4, 1) else ".")

    def share_metadata_changed(self, group: str, metadata: Mapping[str, int]) -> str | None:
        """4.1+: "Computed new metadata hash"; 4.0 prints its subscription metadata, Java
        `TopicMetadata` objects with topic ids, which kafkasim does not have: no line."""
        if self.version >= (4, 1):
            return f"[GroupId {group}] Computed new metadata hash: {metadata_hash(metadata)}."
        return None

    def share_epoch_bumped(self, group: str, epoch: int, metadata: Mapping[str, int] | None) -> str:
        if self.version >= (4, 1):
            return f"[GroupId {group}] Bumped group epoch to {epoch} with metadata hash {metadata_hash(metadata)}."
        return f"[GroupId {group}] Bumped group epoch to {epoch}."

def _protocol(d: Mapping) -> str:
    return d.get("protocol") or "consumer"


#: The hook's events -> the line they write (details used); member_reconciled is DEBUG in Kafka.
CONSUMER_GROUP_EVENTS: dict[str, Callable[[BrokerLog, int, str, "str | None", Mapping], None]] = {
    "member_joined": lambda log, ms, g, m, d: log.consumer_member_joined(ms, g, m, None, _protocol(d)),
    "static_member_joined": lambda log, ms, g, m, d: log.consumer_member_joined(ms, g, m, d["instance_id"],
                                                                                _protocol(d)),
    "static_member_replaced": lambda log, ms, g, m, d: log.consumer_static_member_replaced(
        ms, g, d["instance_id"], m, d["old_member"], _protocol(d)),
    "unreleased_instance_id": lambda log, ms, g, m, d: log.consumer_unreleased_instance_id(ms, g, m, d["instance_id"],
                                                                                          d["owner"]),
    "fenced_instance_id": lambda log, ms, g, m, d: log.consumer_fenced_instance_id(ms, g, m, d["instance_id"],
                                                                                  d["owner"]),
    "member_left": lambda log, ms, g, m, d: log.consumer_member_left(ms, g, m),
    "static_member_left": lambda log, ms, g, m, d: log.consumer_member_left(ms, g, m, d["instance_id"]),
    "static_member_left_temporarily": lambda log, ms, g, m, d: log.consumer_member_left(ms, g, m, d["instance_id"],
                                                                                        temporarily=True),
    "member_fenced": lambda log, ms, g, m, d: log.consumer_member_fenced(ms, g, m, d["reason"]),
    "group_epoch_bumped": lambda log, ms, g, m, d: log.group_epoch_bumped(ms, g, d["epoch"], d.get("metadata")),
    "target_assignment_computed": lambda log, ms, g, m, d: log.target_assignment_computed(ms, g, d["epoch"],
                                                                                          d["assignor"]),
    "assignment_failed": lambda log, ms, g, m, d: log.target_assignment_failed(ms, g, d["epoch"], d["error"]),
    "regex_refreshed": lambda log, ms, g, m, d: log.regexes_refreshed(ms, g, d["topics"], d["regexes"]),
    "group_loaded": lambda log, ms, g, m, d: log.consumer_group_loaded(ms, g, d["members"]),
    "group_unloaded": lambda log, ms, g, m, d: log.consumer_group_unloaded(ms, g, d["epoch"]),
    "group_converted": lambda log, ms, g, m, d: log.consumer_group_converted(ms, g, d["to"], d.get("empty", False)),
    "conversion_refused": lambda log, ms, g, m, d: log.consumer_group_conversion_refused(ms, g, d["cause"],
                                                                                        d.get("error", "")),
    "classic_member_id_required": lambda log, ms, g, m, d: log.classic_member_id_required(ms, g, m),
    "classic_join_refused": lambda log, ms, g, m, d: log.classic_join_refused(ms, g, d["message"]),
    "classic_member_left": lambda log, ms, g, m, d: log.classic_member_left_consumer_group(
        ms, g, m, d.get("instance_id"), d.get("client_reason")),
}

#: `ShareGroupManager`'s log events -> the line (`member_reconciled` is INFO for share groups).
SHARE_GROUP_EVENTS: dict[str, Callable[[BrokerLog, str, "str | None", Mapping], "str | None"]] = {
    "member_joined": lambda log, g, m, d: f"[GroupId {g}] Member {m} joins the share group using the share protocol.",
    "member_left": lambda log, g, m, d: f"[GroupId {g}] Member {m} left the share group.",
    "member_fenced": lambda log, g, m, d: f"[GroupId {g}] Member {m} fenced from the group because {d['reason']}.",
    "group_epoch_bumped": lambda log, g, m, d: log.share_epoch_bumped(g, d["epoch"], d.get("metadata")),
    "target_assignment_computed": lambda log, g, m, d: log.share_target_assignment(g, d["epoch"], d["assignment"]),
    "assignment_failed": lambda log, g, m, d: (f"[GroupId {g}] Failed to compute a new target assignment for "
                                               f"epoch {d['epoch']}: {d['error']}."),
    "member_reconciled": lambda log, g, m, d: (
        f"[GroupId {g}] Member {m} new assignment state: epoch={d['epoch']}, previousEpoch={d['previous_epoch']}, "
        f"state={d['state']}, assignedPartitions=[{', '.join(f'{t}-{p}' for t, ps in d['assigned'].items() for p in ps)}]."),
    "group_loaded": lambda log, g, m, d: f"Loaded share group {g} with {d['members']} members.",
    "metadata_hash": lambda log, g, m, d: log.share_metadata_changed(g, d["metadata"]),
}
