"""The coordinator side of the consumer rebalance protocol (KIP-848): `ConsumerGroupHeartbeat`.

Kafka source (tags 4.0.0, 4.1.1, 4.2.0-rc1; Confluent's v8.3.0 = 4.3.0, v8.3.1 = 4.3.1 and the 4.4
branch head for the 4.3 / 4.4 changes): `group-coordinator/src/main/java/org/apache/kafka/
coordinator/group/GroupMetadataManager.java` (request handling, timers, leaving, fencing, static
membership, regex subscriptions), `modern/consumer/ConsumerGroup.java`, `ConsumerGroupMember.java`,
`CurrentAssignmentBuilder.java`, `modern/TargetAssignmentBuilder.java`, and the assignors in
`assignor/`; configs in `GroupCoordinatorConfig.java`; errors in `clients/.../protocol/Errors.java`.

One heartbeat, as `GroupMetadataManager.consumerGroupHeartbeat` runs it, all at one instant:
validate the request; find or create the group and the member (epoch checks, static
membership); apply the fields the member sent (None / -1 mean "unchanged"); bump the group epoch
if the subscription or the subscribed topics' metadata changed (or the group is new); if the
group epoch is now ahead of the target assignment epoch, run the assignor over all members once
for that epoch; reconcile this member only (`reconciliation.Reconciler`); re-arm its session
timer; answer. Nothing is stored when the request fails: the whole step is computed first and
committed at the end, as Kafka appends a heartbeat's records only when it succeeds.

Events (rows of `kafkasim.core.events`, source "coordinator", generation = group epoch, state =
the group state when the row is written):

====================  ==========================================================================
kind                  meaning (member, reason, value)
====================  ==========================================================================
ConsumerGroupHeartbeat the request; error = the response's error; value = the epoch it carried
                      (0 join, -1 leave, -2 static leave); written first, complete when answered
MemberJoined          a new member; reason "static" for a member with an instance id
MemberReplaced        a static member rejoined with a new member id; reason = the old member id
MemberLeftTemporarily a static member left with epoch -2 (it keeps its partitions)
GroupEpochBumped      value = the new group epoch; reason: new_group, member_joined,
                      subscription_changed, metadata_changed, member_removed, regex_resolved or
                      assignor_changed (4.4, KAFKA-20434)
TargetAssignmentComputed  reason = the assignor; value = members whose target changed
MemberEpochBumped     value = the member's new epoch; reason = its member state
MemberStateChanged    the member state changed at the same epoch; reason = the new member state
MemberFenced          reason "session_timeout" or "rebalance_timeout"; value = the member epoch
MemberRemoved         reason in REMOVAL_REASONS ("leave_group", "session_timeout", "rebalance_timeout")
StateChanged          the group state changed during one request or timer; reason = the old state
GroupLoaded           `load_consumer_group`; value = members
JoinGroup, SyncGroupResponse, ...  classic members' requests (`classic_members`, written by the front)
MemberFenced          also reason "join_timeout" / "sync_timeout" for a classic member
====================  ==========================================================================

A `log` callable, when given, is called as `log(time_ms, event, group_id, member_id, details)` for
what Kafka's `GroupMetadataManager` writes to the broker log (member_joined, static_member_joined,
static_member_replaced, unreleased_instance_id, fenced_instance_id, member_left,
static_member_left, static_member_left_temporarily, member_fenced, group_epoch_bumped,
target_assignment_computed, assignment_failed, member_reconciled (DEBUG in Kafka),
regex_refreshed, group_loaded); the broker-log writer turns them into Kafka's lines
(`kafkasim.coordinator.broker_log.BrokerLog.consumer_group`). It is called where Kafka logs: a
join when the member is looked up, an epoch bump when it is computed (with `metadata`, the
`{topic: partitions}` that 4.1+ hashes into that line), so a heartbeat that fails afterwards (an
invalid regex, an assignor error) leaves those lines behind, as in Kafka.

What is modelled: group and member epochs, the target assignment recomputed once per group epoch,
reconciliation (revoke before assign, release before reassign), the group states Empty,
Assigning, Reconciling, Stable (and Dead after `delete_group`), member states, session and
rebalance timers with fencing, leaving (-1) and static leaving (-2), static replacement and
UNRELEASED_INSTANCE_ID, `group.consumer.max.size`, server assignor choice (most requested, else
the first configured), regex subscriptions with Kafka's asynchronous resolution (at the same
simulated millisecond, after the response; a new regex waits for the 10 s minimum between
refreshes), lazy metadata refresh (a partition change is noticed at the next heartbeat of any
member), the 4.0 to 4.4 differences (`rules.ProtocolRules`), among them 4.3's assignment
interval (KIP-1263: `group.consumer.assignment.interval.ms`, 1000 ms by default from 4.3, absent
before; a target postponed by it is computed by the next heartbeat of any member once the
interval has passed, members reconciling towards the previous target meanwhile), 4.3's start at
epoch 1 (KAFKA-20268) and per-partition assignment epochs (KIP-1251), 4.3.1's static rejoin into a
full group (KAFKA-20601), 4.4's epoch bump on a change of preferred assignor (KAFKA-20434) and
catch-up of an emptied group's target epoch (KAFKA-20442).

Simplified, and what it costs a learner:
- no `__consumer_offsets` writes: a heartbeat is atomic and instantaneous (no append linger of
  5 ms, no replication), and a restored group has no session timers until its members heartbeat
  (the issue's API; Kafka's `onLoaded` arms them, see `arm_loaded_timers`);
- no rack-aware assignment, no topic ids (topics are names), no authorisation checks;
- regexes use Python's `re` (with `fullmatch`, as RE2J's `matches`), rejecting only the obvious
  non-RE2 constructs (backreferences, lookaround): RE2 syntax is simplified;
- classic members inside consumer groups are `classic_members`'s; the conversions between the
  two kinds of group are the coordinator front's (`kafkasim.coordinator.migration`);
- the assignors iterate members in join order and topics by name where Kafka iterates hash
  maps, so exact picks can differ from a real broker (balance and stickiness do not);
- `group.consumer.min/max.session.timeout.ms` and `...heartbeat.interval.ms` bounds are not
  enforced (they only bound the broker default and per-group overrides); per-group dynamic
  configs other than `consumer.session.timeout.ms`, `consumer.heartbeat.interval.ms` and (4.3)
  `consumer.assignment.interval.ms` (set through the front's `set_group_config`) and dynamic broker
  configs are not modelled;
- 4.3's assignment offload switch is not modelled: at v8.3.0 `group.consumer.assignor.offload.enable`
  is no config (KAFKA-20339 removed it for 4.3; `consumerGroupAssignorOffloadEnable()` returns the
  constant true) and at the 4.4 head an internal one (KAFKA-20930), and in both nothing on the
  heartbeat path reads it: the target is computed inline, as here;
- a restored group (`load_consumer_group`) has no assignment timestamp: its next target is computed
  at once whatever the interval (Kafka restores the timestamp from its record).

May import: `kafkasim.core`, `kafkasim.coordinator.assignor`, `kafkasim.coordinator.modern.consumer`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Callable, Iterable, Mapping

from kafkasim.coordinator.assignor import GroupSpec, PartitionAssignorException, server_assignors
from kafkasim.coordinator.assignor.spec import EMPTY
from kafkasim.coordinator.modern.consumer.classic_members import ClassicMembers
from kafkasim.coordinator.modern.consumer.group import (
    MEMBER_STATES, UNREVOKED_PARTITIONS, Assignment, ClassicMember, ConsumerGroup, ConsumerGroupMember,
    as_lists)
from kafkasim.coordinator.modern.consumer.reconciliation import Reconciler
from kafkasim.coordinator.modern.assignment_interval import assignment_interval, can_compute_next_target_assignment
from kafkasim.coordinator.modern.queries import ModernGroupQueries
from kafkasim.coordinator.modern.consumer.responses import ApiError, ConsumerGroupHeartbeatResponse
from kafkasim.coordinator.modern.consumer.rules import ProtocolRules
from kafkasim.core.config import BROKER_CONFIGS
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError, Errors, check_range
from kafkasim.core.java import INT_MAX

#: Minimum time between two regex refreshes of a group (`REGEX_BATCH_REFRESH_INTERVAL_MS`).
REGEX_REFRESH_MIN_INTERVAL_MS = 10_000

#: RE2J's `PatternSyntaxException` descriptions (com.google.re2j.Parser) the model gives itself.
_PERL_OP, _BAD_REPEAT = "invalid or unsupported Perl syntax", "invalid repeat count"
#: What Python's `re` accepts and RE2 has not, with RE2J's description: lookaround, `(?P=name)`,
#: comments, atomic and conditional groups (no flag RE2J knows after "(?": parsePerlFlags),
#: backreferences (no escape it knows: parseEscape), possessive repeats (a repeat of a repeat).
_NOT_RE2 = ((re.compile(r"\(\?(?:<?[=!]|P=|[#>(])"), _PERL_OP),
            (re.compile(r"\\[1-9]|\\k<"), "invalid escape sequence"),
            (re.compile(r"(?<!\\)[*+?}]\+"), "invalid nested repetition operator"))
_REPEAT = re.compile(r"(?<!\\)\{(\d+)(?:,(\d*))?\}")

LogHook = Callable[[int, str, str, "str | None", dict], None]


def _broker_default(name: str, kafka_version: str):
    """A `group.consumer.*` default of that version (BROKER_CONFIGS); before 3.7, which had no
    consumer protocol, the first release's."""
    spec = BROKER_CONFIGS[name]
    value = spec.default(kafka_version)
    return spec.defaults[0][1] if value is None else value


class ConsumerGroupManager(ClassicMembers, ModernGroupQueries):
    """Owns the consumer-protocol groups of one coordinator and answers `ConsumerGroupHeartbeat`,
    and the classic requests of classic members inside them (`ClassicMembers`)."""

    KIND = "consumer"

    def __init__(self, sim: Simulation, *, topics: Mapping[str, int] | None = None,
                 group_consumer_session_timeout_ms: int | None = None,
                 group_consumer_heartbeat_interval_ms: int | None = None,
                 group_consumer_max_size: int | None = None,
                 group_consumer_assignors: Iterable[Any] | None = None,
                 group_consumer_assignment_interval_ms: int | None = None,
                 group_consumer_min_assignment_interval_ms: int | None = None,
                 group_consumer_max_assignment_interval_ms: int | None = None,
                 kafka_version: str = "4.0", record_heartbeats: bool = True, log: LogHook | None = None):
        self.sim = sim
        self.rules = ProtocolRules.for_version(kafka_version)
        session, hb = "group.consumer.session.timeout.ms", "group.consumer.heartbeat.interval.ms"
        self.session_timeout_ms = check_range(session, _or(group_consumer_session_timeout_ms,
                                                           _broker_default(session, kafka_version)), 1, INT_MAX)
        self.heartbeat_interval_ms = check_range(hb, _or(group_consumer_heartbeat_interval_ms,
                                                         _broker_default(hb, kafka_version)), 1, INT_MAX)
        if self.heartbeat_interval_ms >= self.session_timeout_ms:  # KAFKA-17618, as core.config words it
            raise ConfigError(f"{hb} must be less than {session} ({hb}={self.heartbeat_interval_ms}, "
                              f"{session}={self.session_timeout_ms})")
        self.max_size = check_range("group.consumer.max.size", _or(
            group_consumer_max_size, _broker_default("group.consumer.max.size", kafka_version)), 1, INT_MAX)
        self.assignment_interval_ms = assignment_interval(
            kafka_version, "consumer", group_consumer_assignment_interval_ms,
            group_consumer_min_assignment_interval_ms, group_consumer_max_assignment_interval_ms)
        self.assignors = server_assignors(group_consumer_assignors, self.rules.uniform_stable_extra)
        self.default_assignor = next(iter(self.assignors))
        self.topics: dict[str, int] = {}
        for name, count in (topics or {}).items():
            self._check_topic(name, count)
            self.topics[name] = count
        self.topics_version = 0          # bumped when a topic is created (regexes must be refreshed)
        self.groups: dict[str, ConsumerGroup] = {}
        self.record_heartbeats = record_heartbeats
        self.log = log
        self.stats = {"requests": 0, "timer_events": 0, "assignments": 0}
        self.removal_reason: dict[str, str] = {}  # member id -> why the coordinator removed it
        self._deleted: set[str] = set()
        self._rows = sim.events.rows
        #: Set by the coordinator front: called with a group, the members about to be fenced and why;
        #: True when it turned the group into a classic group instead (online downgrade).
        self.downgrade: Callable[[ConsumerGroup, list[ConsumerGroupMember], str], bool] | None = None
        #: Set by the coordinator front: called with a group id that a joining member names and no
        #: consumer group holds; None (no classic group of that id), or the consumer group made of it
        #: (None if it was empty) and what completes the conversion when the heartbeat is stored; or
        #: raises ApiError.
        self.upgrade: Callable[[str], tuple[ConsumerGroup | None, Callable[[], None]] | None] | None = None
        self._converting: dict[str, Callable[[], None]] = {}  # group id -> completion, until `_commit`
        #: Set by the coordinator front: group.consumer.migration.policy is "disabled" (4.3.1 then
        #: refuses classic members' JoinGroup, KAFKA-20640).
        self.migration_disabled = False
        #: Set by the coordinator front: the per-group dynamic configs (`consumer.session.timeout.ms`,
        #: `consumer.heartbeat.interval.ms`, `GroupConfig`), read at each heartbeat; None: none.
        self.group_configs = None
        #: Set by the coordinator front: the ids share groups hold (a consumer heartbeat to one fails).
        self.share_group_ids: Mapping[str, Any] = {}

    # == the request ==========================================================================
    def consumer_group_heartbeat(self, group_id: str, member_id: str = "", member_epoch: int = 0,
                                 instance_id: str | None = None, rack_id: str | None = None,
                                 rebalance_timeout_ms: int = -1, subscribed_topic_names: Iterable[str] | None = None,
                                 server_assignor: str | None = None,
                                 owned_partitions: Mapping[str, Iterable[int]] | None = None,
                                 subscribed_topic_regex: str | None = None) -> ConsumerGroupHeartbeatResponse:
        """Handle one ConsumerGroupHeartbeat (`GroupMetadataManager.consumerGroupHeartbeat`).

        A field left None (and `rebalance_timeout_ms=-1`) means "unchanged since my last
        heartbeat", as on the wire. `owned_partitions` is `{topic: [partition, ...]}`.
        """
        self.stats["requests"] += 1
        if (subscribed_topic_names is None and subscribed_topic_regex is None and server_assignor is None
                and rack_id is None and rebalance_timeout_ms == -1 and member_epoch > 0):
            resp = self._steady_heartbeat(group_id, member_id, member_epoch, instance_id)
            if resp is not None:
                return resp
        member_id = member_id or ""
        names = None if subscribed_topic_names is None else _topic_names(subscribed_topic_names)
        owned = None if owned_partitions is None else {t: frozenset(ps) for t, ps in owned_partitions.items()}
        rows, at = self._rows, None
        if self.record_heartbeats or member_epoch <= 0:
            at = len(rows)
            rows.append(None)  # the request row comes first; filled in once answered
        try:
            self._validate(group_id, member_id, member_epoch, instance_id, rack_id, rebalance_timeout_ms, names,
                           subscribed_topic_regex, server_assignor, owned_partitions)
            if member_epoch < 0:
                resp = self._leave(group_id, member_id, member_epoch, instance_id)
            else:
                resp = self._heartbeat(group_id, member_id, member_epoch, instance_id, rack_id, rebalance_timeout_ms,
                                       names, subscribed_topic_regex, server_assignor, owned)
        except ApiError as e:
            resp = ConsumerGroupHeartbeatResponse(error=e.error, error_message=e.message)
        except BaseException:  # a bug, e.g. in a learner's assignor: no half-written row
            if at is not None:
                del rows[at]
            raise
        group = self.groups.get(group_id)
        row = (self.sim.now, "coordinator", group_id, member_id or None, "ConsumerGroupHeartbeat",
               group.group_epoch if group else None, None, None, resp.error._name_, None, float(member_epoch),
               group.state if group else None)
        if at is not None:
            rows[at] = row
        elif resp.error is not Errors.NONE:
            rows.append(row)
        return resp

    def _steady_heartbeat(self, group_id: str, member_id: str, epoch: int,
                          instance_id: str | None) -> ConsumerGroupHeartbeatResponse | None:
        """The heartbeat of a reconciled member of a settled group, which changes nothing but its
        session deadline: answered without the full path (None: take the full path). The
        result is the one the full path gives; the shortcut keeps 100,000-member groups cheap."""
        group = self.groups.get(group_id)
        if group is None or group.metadata_expired or group.regex_counts or not group_id.strip():
            return None
        member = group.members.get(member_id)
        if member is None or not member.is_reconciled_to(epoch) or epoch != group.assignment_epoch \
                or epoch != group.group_epoch or (instance_id is not None and instance_id != member.instance_id):
            return None
        self._touch_session(group, member_id)
        if self.record_heartbeats:
            self._rows.append((self.sim.now, "coordinator", group_id, member_id, "ConsumerGroupHeartbeat", epoch,
                               None, None, "NONE", None, float(epoch), group.state))
        return ConsumerGroupHeartbeatResponse(member_id=member_id, member_epoch=epoch,
                                              heartbeat_interval_ms=self._heartbeat_interval(group_id))

    def _validate(self, group_id: str, member_id: str, epoch: int, instance_id: str | None, rack_id: str | None,
                  rebalance_timeout_ms: int, names, regex: str | None, assignor: str | None, owned) -> None:
        """`throwIfConsumerGroupHeartbeatRequestIsInvalid` (RPC v1: the client sends its member id)."""
        if not member_id.strip():
            raise ApiError(Errors.INVALID_REQUEST, "MemberId can't be empty.")
        if not group_id or not group_id.strip():
            raise ApiError(Errors.INVALID_REQUEST, "GroupId can't be empty.")
        if instance_id is not None and not instance_id.strip():
            raise ApiError(Errors.INVALID_REQUEST, "InstanceId can't be empty.")
        if rack_id is not None and not rack_id.strip():
            raise ApiError(Errors.INVALID_REQUEST, "RackId can't be empty.")
        if epoch == 0:
            if rebalance_timeout_ms == -1:
                raise ApiError(Errors.INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.")
            if owned is None or len(owned) > 0:
                raise ApiError(Errors.INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining.")
            if names is None and regex is None:
                raise ApiError(Errors.INVALID_REQUEST, "Either SubscribedTopicNames or SubscribedTopicRegex must "
                                                       "be non-null when (re-)joining.")
        elif epoch == -2:
            if instance_id is None:
                raise ApiError(Errors.INVALID_REQUEST, "InstanceId can't be null.")
        elif epoch < -2:
            raise ApiError(Errors.INVALID_REQUEST, "MemberEpoch is invalid.")
        if assignor is not None and assignor not in self.assignors:
            raise ApiError(Errors.UNSUPPORTED_ASSIGNOR, f"ServerAssignor {assignor} is not supported. Supported "
                                                        f"assignors: {', '.join(self.assignors)}.")

    # == a regular heartbeat ====================================================================
    def _heartbeat(self, group_id: str, member_id: str, epoch: int, instance_id: str | None, rack_id: str | None,
                   rebalance_timeout_ms: int, names: frozenset | None, regex: str | None, assignor: str | None,
                   owned: dict | None) -> ConsumerGroupHeartbeatResponse:
        group = self.groups.get(group_id)
        if group is None and group_id in self.share_group_ids:  # `getOrMaybeCreateConsumerGroup`
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        if group is None and epoch == 0 and self.upgrade is not None:
            upgraded = self.upgrade(group_id)  # a classic group of that id made a consumer group, or ApiError
            if upgraded is not None:
                group, self._converting[group_id] = upgraded
        try:
            return self._heartbeat_in(group, group_id, member_id, epoch, instance_id, rack_id, rebalance_timeout_ms,
                                      names, regex, assignor, owned)
        finally:
            self._converting.pop(group_id, None)  # failed before `_commit`: the group stays classic

    def _heartbeat_in(self, group: ConsumerGroup | None, group_id: str, member_id: str, epoch: int,
                      instance_id: str | None, rack_id: str | None, rebalance_timeout_ms: int,
                      names: frozenset | None, regex: str | None, assignor: str | None,
                      owned: dict | None) -> ConsumerGroupHeartbeatResponse:
        if group is None:
            if epoch != 0:
                raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Consumer group {group_id} not found.")
            group = ConsumerGroup(group_id, self.rules.initial_group_epoch)
        self._check_size(group, member_id, instance_id)
        member, replaced = self._lookup_member(group, member_id, epoch, instance_id, owned)
        if epoch == 0:
            self._log_join(group, member_id, instance_id, replaced)
        updated = _with_fields(member, instance_id, rack_id, rebalance_timeout_ms, names, regex, assignor)
        regex_changed, regex_bump, regex_refresh = self._regex_update(group, member, updated)
        reconciled = self._update_member(group, member, updated, replaced, owned, regex_changed, regex_bump)
        self._touch_session(group, updated.member_id)
        self._maybe_refresh_regexes(group, regex_refresh)
        self._sync_state(group)
        full = rebalance_timeout_ms != -1 and (names is not None or regex is not None) and owned is not None
        send = epoch == 0 or full or reconciled.assigned != member.assigned
        return ConsumerGroupHeartbeatResponse(member_id=reconciled.member_id, member_epoch=reconciled.member_epoch,
                                              heartbeat_interval_ms=self._heartbeat_interval(group_id),
                                              assignment=as_lists(reconciled.assigned) if send else None)

    def _update_member(self, group: ConsumerGroup, member: ConsumerGroupMember, updated: ConsumerGroupMember,
                       replaced: ConsumerGroupMember | None, owned: dict | None, regex_changed: bool = False,
                       regex_bump: bool = False) -> ConsumerGroupMember:
        """Steps 1-4 of a heartbeat or of a classic member's JoinGroup: epoch, target, store,
        reconcile. Raises (an assignor failure) before anything is stored."""
        names_changed = updated.subscribed_topic_names != member.subscribed_topic_names
        is_new = member.member_id not in group.members and replaced is None
        plan = _Plan(group, member, updated, replaced)
        # A new group moved off epoch 0 at once before 4.3; from 4.3 it starts at 1 (KAFKA-20268).
        new_group = group.group_epoch == 0 and not self.rules.initial_group_epoch
        assignor_changed = self.rules.bump_on_assignor_change and self._assignor_changed(plan)  # KAFKA-20434
        self._plan_epoch(plan, new_group or names_changed or regex_bump, is_new, assignor_changed)
        self._plan_target(plan)                       # may raise: nothing is stored yet
        self._commit(plan, is_new)
        return self._reconcile(plan, owned, names_changed or regex_changed)

    def _log_join(self, group: ConsumerGroup, member_id: str, instance_id: str | None,
                  replaced: ConsumerGroupMember | None) -> None:
        """Kafka logs a join as soon as the member is found or created (`getOrMaybeSubscribe*Member`),
        before the rest of the heartbeat is validated, and for a known member rejoining as well."""
        if replaced is not None:
            self._emit_log("static_member_replaced", group.group_id, member_id, instance_id=instance_id,
                           old_member=replaced.member_id, protocol="consumer")
        else:
            self._emit_log("static_member_joined" if instance_id else "member_joined", group.group_id, member_id,
                           instance_id=instance_id, protocol="consumer")

    def _check_size(self, group: ConsumerGroup, member_id: str, instance_id: str | None = None) -> None:
        """`throwIfConsumerGroupIsFull`: only members already in the group may heartbeat into a full one;
        from 4.3.1 also a static member whose instance id the group knows (KAFKA-20601)."""
        if self.rules.static_rejoin_when_full and instance_id is not None and instance_id in group.static_members:
            return
        if len(group.members) >= self.max_size and member_id not in group.members:
            raise ApiError(Errors.GROUP_MAX_SIZE_REACHED,
                           f"The consumer group has reached its maximum capacity of {self.max_size} members.")

    def _lookup_member(self, group: ConsumerGroup, member_id: str, epoch: int, instance_id: str | None,
                       owned: dict | None) -> tuple[ConsumerGroupMember, ConsumerGroupMember | None]:
        """`getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember`: the member (new if joining) and,
        for a static member coming back with a new id, the member it replaces."""
        if instance_id is None:
            member = group.members.get(member_id)
            if member is None:
                if epoch != 0:
                    raise ApiError(Errors.UNKNOWN_MEMBER_ID,
                                   f"Member {member_id} is not a member of group {group.group_id}.")
                return ConsumerGroupMember(member_id), None
            self._check_epoch(member, epoch, owned)
            return member, None
        current_id = group.static_members.get(instance_id)
        current = group.members.get(current_id) if current_id is not None else None
        if epoch == 0:
            if current is None:
                return group.members.get(member_id) or ConsumerGroupMember(member_id), None
            if current.member_epoch != -2:
                self._emit_log("unreleased_instance_id", group.group_id, member_id,
                               instance_id=instance_id, owner=current.member_id)
                raise ApiError(Errors.UNRELEASED_INSTANCE_ID,
                               f"Static member {member_id} with instance id {instance_id} cannot join the group "
                               f"because the instance id is owned by {current.member_id} member.")
            return current.evolve(member_id=member_id, member_epoch=0, previous_member_epoch=0), current
        if current is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
        if current.member_id != member_id:
            self._emit_log("fenced_instance_id", group.group_id, member_id, instance_id=instance_id,
                           owner=current.member_id)
            raise ApiError(Errors.FENCED_INSTANCE_ID, f"Static member {member_id} with instance id {instance_id} "
                                                      f"was fenced by member {current.member_id}.")
        self._check_epoch(current, epoch, owned)
        return current, None

    def _check_epoch(self, member: ConsumerGroupMember, received: int, owned: dict | None) -> None:
        """`throwIfConsumerGroupMemberEpochIsInvalid`: one retry at the previous epoch is allowed
        when the member owns a subset of its assignment (a lost response)."""
        if received == 0 and self.rules.rejoin_with_epoch_zero:
            return
        known = member.member_epoch
        if received > known:
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, _fenced_message("greater", received, known))
        if received < known and (received != member.previous_member_epoch or not _is_subset(owned, member.assigned)):
            raise ApiError(Errors.FENCED_MEMBER_EPOCH, _fenced_message("smaller", received, known))

    def _regex_update(self, group: ConsumerGroup, member: ConsumerGroupMember,
                      updated: ConsumerGroupMember) -> tuple[bool, bool, bool]:
        """`maybeUpdateRegularExpressions`: (changed, bump now, refresh needed). A regex new to the
        group is compiled (INVALID_REGULAR_EXPRESSION) and resolved later; one already resolved
        bumps the epoch at once."""
        old, new = member.subscribed_topic_regex, updated.subscribed_topic_regex
        if old == new:
            return False, False, False
        if new:
            if group.regex_counts.get(new, 0) == 0:
                _compile_regex(new)
                return True, False, True
            return True, new in group.resolved_regexes, False
        return True, bool(old) and self.rules.bump_on_regex_clear, False

    # -- planning: everything a heartbeat would change, before anything changes -----------------
    def _plan_epoch(self, plan: "_Plan", bump: bool, is_new: bool, assignor_changed: bool = False) -> None:
        """Steps 1-2 of the heartbeat: the subscription metadata and the group epoch."""
        group = plan.group
        subscription_changed = bump
        if bump or assignor_changed or group.metadata_expired:
            plan.metadata = self._metadata(group.subscribed_topics(plan.name_counts(), plan.regex_counts()))
            bump = bump or plan.metadata != group.subscription_metadata
        if bump or assignor_changed:
            plan.group_epoch = group.group_epoch + 1
            new = group.group_epoch == 0 or (group.group_epoch == self.rules.initial_group_epoch and not group.members)
            plan.bump_reason = ("new_group" if new else
                                "member_joined" if subscription_changed and is_new else
                                "subscription_changed" if subscription_changed else
                                "assignor_changed" if assignor_changed else "metadata_changed")
            # logged when computed (`updateSubscriptionMetadata`), even if the assignor then fails
            self._emit_log("group_epoch_bumped", group.group_id, None, epoch=plan.group_epoch, metadata=plan.metadata)

    def _plan_target(self, plan: "_Plan") -> None:
        """Step 3: a new target assignment, once per group epoch (`updateTargetAssignment`)."""
        group, updated = plan.group, plan.updated
        if plan.group_epoch > group.assignment_epoch and self._may_assign(group):
            plan.targets, plan.assignor = self._compute_targets(plan)
            plan.target_epoch = plan.group_epoch
            plan.target = plan.targets.assigned.get(updated.member_id, EMPTY)
        else:
            plan.target_epoch = group.assignment_epoch
            plan.target = group.target_of(updated.member_id, updated.instance_id)

    def _assignor_changed(self, plan: "_Plan") -> bool:
        """`hasPreferredServerAssignorChanged` (4.4): the group's preferred assignor, the default when
        no member names one, differs once this member's change is applied."""
        group, default = plan.group, self.default_assignor
        before = group.preferred_assignor(group.assignor_counts, self.assignors) or default
        return before != (group.preferred_assignor(plan.assignor_counts(), self.assignors) or default)

    def _may_assign(self, group: ConsumerGroup) -> bool:
        """`canComputeNextTargetAssignment` (4.3, KIP-1263): at once when the group has no computed
        target yet (Kafka: assignment timestamp 0) or the interval is 0, else once
        `group.consumer.assignment.interval.ms` has passed since the last computation. Nothing
        is scheduled: the next heartbeat of any member after that computes it."""
        return can_compute_next_target_assignment(group.last_assignment_ms, self._assignment_interval(group.group_id),
                                                  self.sim.now)

    def _assignment_interval(self, group_id: str) -> int:
        """`consumerGroupAssignmentIntervalMs` (4.3): the group's `consumer.assignment.interval.ms`, else
        the broker's (0 before 4.3)."""
        if self.group_configs is None:  # the group config exists from 4.3 only (GroupConfigs refuses it before)
            return self.assignment_interval_ms
        return self.group_configs.value(group_id, "consumer.assignment.interval.ms", self.assignment_interval_ms)

    def _compute_targets(self, plan: "_Plan") -> tuple["_Targets", str]:
        group, updated = plan.group, plan.updated
        name = group.preferred_assignor(plan.assignor_counts(), self.assignors) or self.default_assignor
        member_ids = list(group.members)
        if plan.replaced is not None:
            member_ids.remove(plan.replaced.member_id)
        if updated.member_id not in group.members or plan.replaced is not None:
            if updated.member_id in member_ids:
                member_ids.remove(updated.member_id)
            member_ids.append(updated.member_id)
        metadata = plan.metadata if plan.metadata is not None else group.subscription_metadata
        spec = self._spec(group, member_ids, metadata, plan)
        try:
            targets = self.assignors[name].assign(spec)
        except PartitionAssignorException as e:
            self._emit_log("assignment_failed", group.group_id, None, epoch=plan.group_epoch, error=str(e))
            raise ApiError(Errors.UNKNOWN_SERVER_ERROR, f"Failed to compute a new target assignment for epoch "
                                                        f"{plan.group_epoch}: {e}") from None
        self.stats["assignments"] += 1
        return _Targets(member_ids, targets), name

    def _spec(self, group: ConsumerGroup, member_ids: list[str], metadata: Mapping[str, int],
              plan: "_Plan | None") -> GroupSpec:
        """The assignor's view: members with their effective subscriptions and current targets."""
        updated = plan.updated if plan is not None else None
        members = group.members
        record = (lambda mid: updated if mid == updated.member_id else members[mid]) if updated is not None \
            else members.__getitem__
        targets: Mapping[str, Assignment] = group.target
        if updated is not None:
            own = group.target_of(updated.member_id, updated.instance_id)
            if own is not targets.get(updated.member_id, EMPTY):  # a static member inherits its predecessor's
                targets = {**targets, updated.member_id: own}
        cache: dict[tuple, frozenset] = {}
        resolved = group.resolved_regexes

        def subscribed(mid: str) -> frozenset:
            m = record(mid)
            key = (m.subscribed_topic_names, m.subscribed_topic_regex)
            topics = cache.get(key)
            if topics is None:
                found = {t for t in m.subscribed_topic_names if t in metadata}
                if m.subscribed_topic_regex:
                    found |= {t for t in resolved.get(m.subscribed_topic_regex, ()) if t in metadata}
                topics = cache[key] = frozenset(found)
            return topics

        counts = plan.name_counts() if plan is not None else group.name_counts
        regexes = plan.regex_counts() if plan is not None else group.regex_counts
        kind = group.subscription_type(counts, regexes, len(member_ids))
        return GroupSpec(member_ids, metadata, kind, subscribed, targets, lambda mid: record(mid).instance_id,
                         lambda mid: record(mid).rack_id, group.inverted)

    # -- commit ----------------------------------------------------------------------------------
    def _commit(self, plan: "_Plan", is_new: bool) -> None:
        """Apply the plan: the records of Kafka's heartbeat, replayed in order (a new group is stored
        now; a stored one is stored again, a no-op)."""
        group, updated, replaced = plan.group, plan.updated, plan.replaced
        self.groups[group.group_id] = group
        self._deleted.discard(group.group_id)
        converted = self._converting.pop(group.group_id, None)
        if converted is not None:
            converted()
        if replaced is not None:
            inherited = group.target.get(replaced.member_id, EMPTY)
            group.remove_member(replaced.member_id)  # its timers run on and find nobody (replaceMember)
            group.set_target(updated.member_id, inherited)
        if group.members.get(updated.member_id) is not updated:
            group.put_member(updated)
            self._forget_unused_regex(group, plan.member.subscribed_topic_regex)
        if replaced is not None:  # (the join lines were logged at lookup: `_log_join`)
            self._event(group, "MemberReplaced", updated.member_id, reason=replaced.member_id)
        elif is_new:
            self._event(group, "MemberJoined", updated.member_id, reason="static" if updated.instance_id else None)
        if plan.metadata is not None:
            group.subscription_metadata = plan.metadata
            group.metadata_expired = False
        if plan.group_epoch != group.group_epoch:
            group.group_epoch = plan.group_epoch
            self._event(group, "GroupEpochBumped", reason=plan.bump_reason, value=plan.group_epoch)
        if plan.targets is not None:
            self._apply_targets(group, plan.targets, plan.target_epoch, plan.assignor)

    def _apply_targets(self, group: ConsumerGroup, targets: "_Targets", epoch: int, assignor: str) -> None:
        """Store the new targets; members whose target object did not change cost one lookup."""
        changed = 0
        current, new = group.target.get, targets.assigned.get
        for mid in targets.member_ids:
            assignment = new(mid, EMPTY)
            if current(mid) is not assignment and group.set_target(mid, assignment):
                changed += 1
        group.assignment_epoch = epoch
        group.last_assignment_ms = self.sim.now
        self._event(group, "TargetAssignmentComputed", reason=assignor, value=changed, generation=epoch)
        self._emit_log("target_assignment_computed", group.group_id, None, epoch=epoch, assignor=assignor,
                       members=len(targets.member_ids), changed=changed)

    def _reconcile(self, plan: "_Plan", owned: dict | None, subscription_changed: bool) -> ConsumerGroupMember:
        """Step 4: reconcile this member only (`maybeReconcile`), then arm or cancel its rebalance timer."""
        group, member = plan.group, plan.group.members[plan.updated.member_id]
        changed = subscription_changed and self.rules.reconciliation.revoke_unsubscribed_now
        if not changed and member.is_reconciled_to(plan.target_epoch):
            return member
        subscribed = self._effective_topics(group, member) if changed or \
            self.rules.reconciliation.revoke_unsubscribed_now else None
        new = Reconciler(member, plan.target_epoch, plan.target, group.owner, owned, self.rules.reconciliation,
                         subscribed, changed).build()
        if new is member:
            return member
        if self.rules.assignment_epochs:
            new = new.evolve(epochs=_carried_epochs(member, new))
        group.put_member(new)
        self._record_reconciliation(group, member, new)
        if new.state == UNREVOKED_PARTITIONS:
            self._arm_rebalance_timer(group, new)
        else:
            self._cancel_timer(group.rebalance_timer, new.member_id)
        return new

    def _record_reconciliation(self, group: ConsumerGroup, old: ConsumerGroupMember, new: ConsumerGroupMember) -> None:
        if new.member_epoch != old.member_epoch:
            self._event(group, "MemberEpochBumped", new.member_id, reason=new.state, value=new.member_epoch)
        elif new.state != old.state:
            self._event(group, "MemberStateChanged", new.member_id, reason=new.state, value=new.member_epoch)
        self._emit_log("member_reconciled", group.group_id, new.member_id, epoch=new.member_epoch,
                       previous_epoch=new.previous_member_epoch, state=new.state,
                       assigned=as_lists(new.assigned), revoked=as_lists(new.pending_revocation))

    def _effective_topics(self, group: ConsumerGroup, member: ConsumerGroupMember) -> frozenset:
        """The member's subscribed topics that exist, names and regex together (`TopicIds`)."""
        topics = {t for t in member.subscribed_topic_names if t in self.topics}
        if member.subscribed_topic_regex:
            topics |= {t for t in group.resolved_regexes.get(member.subscribed_topic_regex, ()) if t in self.topics}
        return frozenset(topics)

    # == leaving ================================================================================
    def _leave(self, group_id: str, member_id: str, epoch: int, instance_id: str | None
               ) -> ConsumerGroupHeartbeatResponse:
        """`consumerGroupLeave`: -1 removes the member; -2 (static) keeps it, and its partitions,
        until it comes back or its session expires, without bumping the epoch."""
        group = self.groups.get(group_id)
        if group is None and group_id in self.share_group_ids:
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        if group is None:  # `consumerGroup(groupId)`, not the heartbeat's `getOrMaybeCreateConsumerGroup`
            raise ApiError(Errors.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        if instance_id is None:
            member = group.members.get(member_id)
            if member is None:
                raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Member {member_id} is not a member of group {group_id}.")
            self._emit_log("member_left", group_id, member_id)
            self._fence(group, member, "leave_group")
            return ConsumerGroupHeartbeatResponse(member_id=member_id, member_epoch=epoch)
        member = self._static_member(group, member_id, instance_id)
        if epoch == -2:
            self._emit_log("static_member_left_temporarily", group_id, member_id, instance_id=instance_id)
            # 4.3 (KIP-1251): its partitions count as assigned from epoch 0 to whoever takes its place.
            epochs = {tp: 0 for tp in _partitions(member.assigned)} if self.rules.assignment_epochs else None
            group.put_member(member.evolve(member_epoch=-2, pending_revocation=EMPTY, epochs=epochs))
            self._event(group, "MemberLeftTemporarily", member.member_id, value=-2)
            self._sync_state(group)
            return ConsumerGroupHeartbeatResponse(member_id=member.member_id, member_epoch=-2)
        self._emit_log("static_member_left", group_id, member_id, instance_id=instance_id)
        self._fence(group, member, "leave_group")
        return ConsumerGroupHeartbeatResponse(member_id=member_id, member_epoch=epoch)

    def _static_member(self, group: ConsumerGroup, member_id: str, instance_id: str) -> ConsumerGroupMember:
        current_id = group.static_members.get(instance_id)
        if current_id is None:
            raise ApiError(Errors.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
        if current_id != member_id:
            self._emit_log("fenced_instance_id", group.group_id, member_id, instance_id=instance_id, owner=current_id)
            raise ApiError(Errors.FENCED_INSTANCE_ID, f"Static member {member_id} with instance id {instance_id} "
                                                      f"was fenced by member {current_id}.")
        return group.members[current_id]

    def _fence(self, group: ConsumerGroup, member: ConsumerGroupMember, reason: str) -> None:
        self._fence_members(group, [member], reason)

    def _fence_members(self, group: ConsumerGroup, members: list[ConsumerGroupMember], reason: str) -> None:
        """`consumerGroupFenceMembers`: remove the members, free their partitions, bump the epoch
        once. The target is recomputed only at the next heartbeat (the group shows Assigning
        meanwhile). When only classic members would remain, `downgrade` may turn the group into
        a classic group instead (`validateOnlineDowngradeWithFencedMembers`)."""
        if self.downgrade is not None and self.downgrade(group, members, reason):
            return
        for member in members:
            mid = member.member_id
            group.remove_member(mid)
            self._forget_unused_regex(group, member.subscribed_topic_regex)
            self._cancel_member_timers(group, mid)
            self.removal_reason[mid] = reason
            self._event(group, "MemberRemoved", mid, reason=reason, value=member.member_epoch)
        group.subscription_metadata = self._metadata(group.subscribed_topics())
        group.group_epoch += 1
        self._event(group, "GroupEpochBumped", reason="member_removed", value=group.group_epoch)
        self._emit_log("group_epoch_bumped", group.group_id, None, epoch=group.group_epoch,
                       metadata=group.subscription_metadata)
        if not group.members and self.rules.empty_group_catches_up:
            # 4.4 (KAFKA-20442): the empty group's target epoch catches up, with timestamp 0, "to mimic
            # the behavior of a new group so that the assignment interval does not delay" the next one.
            group.assignment_epoch, group.last_assignment_ms = group.group_epoch, None
        self._sync_state(group)

    def _cancel_member_timers(self, group: ConsumerGroup, member_id: str) -> None:
        for timers in (group.session_timer, group.rebalance_timer):
            self._cancel_timer(timers, member_id)
        for kind in ("join", "sync"):
            self._cancel_timer(group.classic_timer, (kind, member_id))
        group.session_deadline.pop(member_id, None)

    def _forget_unused_regex(self, group: ConsumerGroup, regex: str) -> None:
        """The last subscriber of a regex is gone: drop its resolution (the regex tombstone)."""
        if regex and group.regex_counts.get(regex, 0) == 0:
            group.resolved_regexes.pop(regex, None)

    # == timers =================================================================================
    def _touch_session(self, group: ConsumerGroup, member_id: str, timeout_ms: int | None = None) -> None:
        """Re-arm the session timer for now + `group.consumer.session.timeout.ms` (a classic
        member's own session timeout when given).

        The pending engine timer is kept and only checked when it fires (a later deadline re-arms
        it), so a heartbeat costs no heap work; expiry is still at the exact deadline.
        """
        deadline = self.sim.now + (self._session_timeout(group.group_id) if timeout_ms is None else timeout_ms)
        group.session_deadline[member_id] = deadline
        timer = group.session_timer.get(member_id)
        if timer is None or timer.time > deadline:
            if timer is not None:
                timer.cancel()
            group.session_timer[member_id] = self.sim.at(deadline, self._on_session_check, group, member_id)

    def _session_timeout(self, group_id: str) -> int:
        """`consumerGroupSessionTimeoutMs`: the group's `consumer.session.timeout.ms`, else the broker's."""
        if self.group_configs is None:
            return self.session_timeout_ms
        return self.group_configs.value(group_id, "consumer.session.timeout.ms", self.session_timeout_ms)

    def _heartbeat_interval(self, group_id: str) -> int:
        """`consumerGroupHeartbeatIntervalMs`: the group's `consumer.heartbeat.interval.ms`, else the broker's."""
        if self.group_configs is None:
            return self.heartbeat_interval_ms
        return self.group_configs.value(group_id, "consumer.heartbeat.interval.ms", self.heartbeat_interval_ms)

    def _on_session_check(self, group: ConsumerGroup, member_id: str) -> None:
        if self.groups.get(group.group_id) is not group:
            return
        self.stats["timer_events"] += 1
        group.session_timer.pop(member_id, None)
        deadline = group.session_deadline.get(member_id)
        if deadline is None:
            return
        if deadline > self.sim.now:
            group.session_timer[member_id] = self.sim.at(deadline, self._on_session_check, group, member_id)
            return
        del group.session_deadline[member_id]
        member = group.members.get(member_id)
        if member is None:
            return  # replaced static member: "Could not fence ... because the member does not exist"
        self._session_expired(group, member)

    def _arm_rebalance_timer(self, group: ConsumerGroup, member: ConsumerGroupMember) -> None:
        """`scheduleConsumerGroupRebalanceTimeout`: revoke within the member's rebalance timeout
        (its `max.poll.interval.ms`) or be fenced; re-armed by every new UNREVOKED record."""
        self._cancel_timer(group.rebalance_timer, member.member_id)
        timeout = max(0, member.rebalance_timeout_ms)
        group.rebalance_timer[member.member_id] = self.sim.schedule(
            timeout, self._on_rebalance_timeout, group, member.member_id, member.member_epoch, timeout)

    def _on_rebalance_timeout(self, group: ConsumerGroup, member_id: str, epoch: int, timeout: int) -> None:
        if self.groups.get(group.group_id) is not group:
            return
        self.stats["timer_events"] += 1
        member = group.members.get(member_id)  # its fence pops the timer (`_cancel_member_timers`)
        if member is None or member.member_epoch != epoch:
            return  # "Ignoring rebalance timeout ... because the member left the epoch"
        self._emit_log("member_fenced", group.group_id, member_id,
                       reason=f"it failed to transition from epoch {epoch} within {timeout}ms")
        self._event(group, "MemberFenced", member_id, reason="rebalance_timeout", value=epoch)
        self._fence(group, member, "rebalance_timeout")

    @staticmethod
    def _cancel_timer(timers: dict, member_id: str) -> None:
        timer = timers.pop(member_id, None)
        if timer is not None:
            timer.cancel()

    # == regular expressions ====================================================================
    def _maybe_refresh_regexes(self, group: ConsumerGroup, required: bool) -> None:
        """The refresh conditions of `maybeUpdateRegularExpressions`: regexes in use, none running,
        at least 10 s since the last one, and something unresolved or new topics created."""
        if not required and not group.regex_counts:
            return
        if group.regex_refresh_pending:
            return
        if group.resolved_regexes and group.regex_refresh_ms is not None and \
                self.sim.now <= group.regex_refresh_ms + REGEX_REFRESH_MIN_INTERVAL_MS:
            return
        required = required or len(group.regex_counts) != len(group.resolved_regexes) \
            or group.regex_topics_version < self.topics_version
        if required and group.regex_counts:
            group.regex_refresh_pending = True
            self.sim.schedule(0, self._on_regex_refresh, group)

    def _on_regex_refresh(self, group: ConsumerGroup) -> None:
        """`refreshRegularExpressions` + `handleRegularExpressionsResult`: resolve every regex of
        the group against the cluster's topics; bump the epoch if a resolution or the metadata changed."""
        if self.groups.get(group.group_id) is not group:
            return
        group.regex_refresh_pending = False
        resolved = {regex: frozenset(t for t in self.topics if re.fullmatch(regex, t)) for regex in group.regex_counts}
        bump = any(group.resolved_regexes.get(regex, frozenset()) != topics for regex, topics in resolved.items())
        group.resolved_regexes.update(resolved)
        group.regex_refresh_ms, group.regex_topics_version = self.sim.now, self.topics_version
        self._emit_log("regex_refreshed", group.group_id, None, regexes=sorted(group.regex_counts),
                       topics=len(self.topics))
        metadata = self._metadata(group.subscribed_topics())
        if metadata != group.subscription_metadata:
            group.subscription_metadata, bump = metadata, True
        if bump:
            group.group_epoch += 1
            self._event(group, "GroupEpochBumped", reason="regex_resolved", value=group.group_epoch)
            self._emit_log("group_epoch_bumped", group.group_id, None, epoch=group.group_epoch,
                           metadata=group.subscription_metadata)
        self._sync_state(group)

    # == topics and metadata ====================================================================
    def create_partitions(self, topic: str, partitions: int) -> None:
        """Create `topic`, or grow it to `partitions` (like `kafka-topics --alter --partitions`).
        Groups subscribed to it notice at their next heartbeat (`onNewMetadataImage`)."""
        current = self.topics.get(topic)
        self._check_topic(topic, partitions)
        if current is not None and partitions <= current:
            raise ConfigError(f"Topic {topic} currently has {current} partitions, which is higher than or equal to "
                              f"the requested {partitions}; partitions can only be added.")
        self.topics[topic] = partitions
        if current is None:
            self.topics_version += 1
        for group in self.groups.values():
            if topic in group.subscribed_topics():
                group.metadata_expired = True

    def _metadata(self, topics: Iterable[str]) -> dict[str, int]:
        """Subscription metadata: the subscribed topics that exist, with their partition counts."""
        cluster = self.topics
        return {t: cluster[t] for t in sorted(topics) if t in cluster}

    @staticmethod
    def _check_topic(name: str, partitions: int) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigError(f"Invalid topic name {name!r}: expected a non-empty string")
        check_range(f"partitions of topic {name}", partitions, 1, INT_MAX)

    # == restoring a group (as the coordinator does from __consumer_offsets) ===================
    def load_consumer_group(self, group_id: str, *, group_epoch: int, target_assignment_epoch: int | None = None,
                            members: Mapping[str, Mapping[str, Any]] | None = None,
                            target_assignment: Mapping[str, Mapping[str, Iterable[int]]] | None = None,
                            subscription_metadata: Mapping[str, int] | None = None,
                            resolved_regexes: Mapping[str, Iterable[str]] | None = None) -> None:
        """Restore a group in a given state, as `GroupMetadataManager.replay` rebuilds it.

        `members` maps member ids to `member_epoch`, `previous_member_epoch`, `state`, `assigned`,
        `pending_revocation`, `subscribed_topic_names`, `subscribed_topic_regex`,
        `rebalance_timeout_ms`, `instance_id`, `rack_id`, `server_assignor`, `assignment_epochs`
        (`{topic: {partition: epoch}}`, 4.3's KIP-1251; absent: the member epoch, as Kafka reads a
        record without them) and `classic` (a classic member: `session_timeout_ms`, `protocols` as
        `[(name, embedded-protocol bytes)]`, `client_id`, default ""; it needs `rebalance_timeout_ms`);
        Kafka's `ConsumerGroupMember.Builder` defaults for the rest. `subscription_metadata` (the stored
        `{topic: partitions}`) defaults to the cluster's current topics, and regexes are resolved
        against them unless `resolved_regexes` is given. The first heartbeat re-reads the
        metadata, as after a real load. Restored members get no session timer until their first
        heartbeat (`arm_loaded_timers` does what Kafka's `onLoaded` does).
        """
        old = self.groups.pop(group_id, None)
        if old is not None:
            self._cancel_all_timers(old)
        group = ConsumerGroup(group_id)
        group.group_epoch = check_range("group_epoch", group_epoch, 0, INT_MAX)
        group.assignment_epoch = group_epoch if target_assignment_epoch is None else target_assignment_epoch
        if group.assignment_epoch > group.group_epoch:
            raise ConfigError(f"target_assignment_epoch ({group.assignment_epoch}) must not exceed "
                              f"group_epoch ({group.group_epoch})")
        for mid, fields in (members or {}).items():
            try:
                group.put_member(_restored_member(mid, fields))
            except AssertionError as e:
                raise ConfigError(f"Cannot load consumer group {group_id}: {e}") from None
        for mid, assignment in (target_assignment or {}).items():
            group.set_target(mid, {t: frozenset(ps) for t, ps in assignment.items() if ps})
        self._restore_regexes(group, resolved_regexes)
        group.subscription_metadata = dict(subscription_metadata) if subscription_metadata is not None \
            else self._metadata(group.subscribed_topics())
        group.metadata_expired = True  # the refresh deadline is 0 after a load
        self._store_loaded(group)

    def _restore_regexes(self, group: ConsumerGroup, resolved: Mapping[str, Iterable[str]] | None) -> None:
        if resolved is not None:
            group.resolved_regexes = {r: frozenset(ts) for r, ts in resolved.items()}
        else:
            for regex in group.regex_counts:
                _compile_regex(regex)
                group.resolved_regexes[regex] = frozenset(t for t in self.topics if re.fullmatch(regex, t))
        if group.resolved_regexes:
            group.regex_refresh_ms, group.regex_topics_version = self.sim.now, self.topics_version

    def arm_loaded_timers(self, group_id: str) -> None:
        """`GroupMetadataManager.onLoaded`: a full session timer for every member, and a rebalance
        timer for every member in UNREVOKED_PARTITIONS (a coordinator failover resets them)."""
        group = self._group(group_id)
        for mid, member in group.members.items():
            self._touch_session(group, mid)
            if member.state == UNREVOKED_PARTITIONS:
                self._arm_rebalance_timer(group, member)

    def _cancel_all_timers(self, group: ConsumerGroup) -> None:
        for timers in (group.session_timer, group.rebalance_timer, group.classic_timer):
            for timer in timers.values():
                timer.cancel()
            timers.clear()

    # == queries ================================================================================
    def partitions_pending_revocation(self, group_id: str, member_id: str) -> dict[str, list[int]]:
        return as_lists(self._member(group_id, member_id).pending_revocation)

    def partition_owner(self, group_id: str, topic: str, partition: int) -> str | None:
        """The member currently holding the partition (assigned or pending revocation), if any."""
        return self._group(group_id).owner(topic, partition)

    def member(self, group_id: str, member_id: str) -> ConsumerGroupMember:
        return self._member(group_id, member_id)

class _Plan:
    """What one heartbeat would change, computed before anything is stored."""

    __slots__ = ("group", "member", "updated", "replaced", "metadata", "group_epoch", "bump_reason", "targets",
                 "assignor", "target_epoch", "target", "_names", "_regexes")

    def __init__(self, group: ConsumerGroup, member: ConsumerGroupMember, updated: ConsumerGroupMember,
                 replaced: ConsumerGroupMember | None):
        self.group, self.member, self.updated, self.replaced = group, member, updated, replaced
        self.metadata: dict[str, int] | None = None
        self.group_epoch = group.group_epoch
        self.bump_reason: str | None = None
        self.targets: _Targets | None = None
        self.assignor: str | None = None
        self.target_epoch = group.assignment_epoch
        self.target: Assignment = EMPTY
        self._names: Counter | None = None
        self._regexes: Counter | None = None

    def name_counts(self) -> Counter:
        """Topic-name subscription counts with this member's change (`computeSubscribedTopicNames`)."""
        if self._names is None:
            self._names = _delta(self.group.name_counts, self.member.subscribed_topic_names,
                                 self.updated.subscribed_topic_names)
        return self._names

    def regex_counts(self) -> Counter:
        if self._regexes is None:
            old, new = self.member.subscribed_topic_regex, self.updated.subscribed_topic_regex
            self._regexes = _delta(self.group.regex_counts, (old,) if old else (), (new,) if new else ())
        return self._regexes

    def assignor_counts(self) -> Counter:
        old, new = self.member.server_assignor, self.updated.server_assignor
        return _delta(self.group.assignor_counts, (old,) if old else (), (new,) if new else ())


class _Targets:
    """An assignor's result: the members it ran over, and what it gave them (absent: nothing)."""

    __slots__ = ("member_ids", "assigned")

    def __init__(self, member_ids: list[str], assigned: Mapping[str, Assignment]):
        self.member_ids = member_ids
        self.assigned = assigned


# -- helpers ------------------------------------------------------------------------------------
def _or(value, default):
    return default if value is None else value


def _delta(counts: Counter, remove: Iterable, add: Iterable) -> Counter:
    remove, add = tuple(remove), tuple(add)
    if remove == add:
        return counts
    out = Counter(counts)
    for key in remove:
        out[key] -= 1
    for key in add:
        out[key] += 1
    return +out


def _partitions(assignment: Assignment) -> Iterable[tuple[str, int]]:
    return ((t, p) for t, ps in assignment.items() for p in ps)


def _carried_epochs(old: ConsumerGroupMember, new: ConsumerGroupMember) -> dict[tuple[str, int], int]:
    """KIP-1251 (`CurrentAssignmentBuilder` at 4.3): a partition the member already held keeps its
    assignment epoch; a newly assigned one gets the target epoch, the member's new epoch."""
    epochs = {}
    for assignment in (new.assigned, new.pending_revocation):
        for tp in _partitions(assignment):
            epoch = old.assignment_epoch(*tp)
            epochs[tp] = new.member_epoch if epoch is None else epoch
    return epochs


def _topic_names(names: Iterable[str]) -> frozenset:
    if isinstance(names, str):
        raise TypeError(f"subscribed_topic_names must be a list of topic names, got the string {names!r}")
    return frozenset(names)


def _with_fields(member: ConsumerGroupMember, instance_id, rack_id, rebalance_timeout_ms, names, regex,
                 assignor) -> ConsumerGroupMember:
    """`ConsumerGroupMember.Builder.maybeUpdate*`: apply what the request sent."""
    changes: dict[str, Any] = {}
    for field, value in (("instance_id", instance_id), ("rack_id", rack_id), ("server_assignor", assignor),
                         ("subscribed_topic_names", names), ("subscribed_topic_regex", regex)):
        if value is not None and value != getattr(member, field):
            changes[field] = value
    if rebalance_timeout_ms != -1 and rebalance_timeout_ms != member.rebalance_timeout_ms:
        changes["rebalance_timeout_ms"] = rebalance_timeout_ms
    return member.evolve(**changes) if changes else member


def _is_subset(owned: Mapping[str, frozenset] | None, assigned: Assignment) -> bool:
    """`isSubset`: the client owns only partitions of its current assignment (null: no)."""
    if owned is None:
        return False
    for topic, parts in owned.items():
        current = assigned.get(topic)
        if current is None or not parts <= current:
            return False
    return True


def _fenced_message(which: str, received: int, known: int) -> str:
    return (f"The consumer group member has a {which} member epoch ({received}) than the one known by the group "
            f"coordinator ({known}). The member must abandon all its partitions and rejoin.")


#: Python `re` errors and the RE2J descriptions (`PatternSyntaxException.getDescription`) Kafka
#: puts in the INVALID_REGULAR_EXPRESSION message, most specific first. Python's other errors are
#: about `(?...)` forms (an unknown flag or extension, a comment), which RE2J refuses as Perl syntax.
_RE2_DESCRIPTIONS = (
    ("unterminated character set", "missing closing ]"),
    ("missing ), unterminated subpattern", "missing closing )"),
    ("unbalanced parenthesis", "unexpected )"),
    ("nothing to repeat", "missing argument to repetition operator"),
    ("multiple repeat", "invalid nested repetition operator"),
    ("bad escape (end of pattern)", "trailing backslash at end of expression"),
    ("bad escape", "invalid escape sequence"),
    ("bad character range", "invalid character class range"),
    ("min repeat greater than max repeat", _BAD_REPEAT),
    ("redefinition of group name", "duplicate capture group name"),
    ("missing group name", "invalid named capture"),
    ("bad character in group name", "invalid named capture"),
    ("missing >, unterminated name", "invalid named capture"),
)


def _compile_regex(regex: str) -> None:
    """`throwIfRegularExpressionIsInvalid`, with Python's `re` standing in for RE2J: RE2's
    missing constructs (lookaround, backreferences) and repeat counts over 1000 (RE2J's
    parseRepeat; Python takes up to 2**32 - 1) are refused, and syntax errors are described in
    RE2J's words."""
    description = next((d for pattern, d in _NOT_RE2 if pattern.search(regex)), None)
    if description is None and any(int(n) > 1000 for m in _REPEAT.finditer(regex) for n in m.groups() if n):
        description = _BAD_REPEAT
    if description is None:
        try:
            re.compile(regex)
            return
        except re.error as e:
            description = next((d for py, d in _RE2_DESCRIPTIONS if e.msg.startswith(py)), _PERL_OP)
    raise ApiError(Errors.INVALID_REGULAR_EXPRESSION,
                   f"SubscribedTopicRegex `{regex}` is not a valid regular expression: {description}.")


_MEMBER_FIELDS = {"member_epoch", "previous_member_epoch", "state", "assigned", "pending_revocation",
                  "subscribed_topic_names", "subscribed_topic_regex", "rebalance_timeout_ms", "instance_id",
                  "rack_id", "server_assignor", "assignment_epochs", "classic"}


def _restored_member(member_id: str, fields: Mapping[str, Any]) -> ConsumerGroupMember:
    unknown = set(fields) - _MEMBER_FIELDS
    if unknown:
        raise ConfigError(f"Unknown consumer group member fields {sorted(unknown)} for {member_id!r}; "
                          f"known: {sorted(_MEMBER_FIELDS)}")
    state = fields.get("state", "STABLE")
    if state not in MEMBER_STATES:
        raise ConfigError(f"Invalid member state {state!r} for {member_id!r}; valid: {', '.join(MEMBER_STATES)}")

    def assignment(key: str) -> dict[str, frozenset]:
        return {t: frozenset(ps) for t, ps in (fields.get(key) or {}).items() if ps}

    epochs = fields.get("assignment_epochs")
    if epochs is not None:
        epochs = {(t, int(p)): e for t, parts in epochs.items() for p, e in parts.items()}
    classic = fields.get("classic")
    if classic is not None:
        classic = ClassicMember(classic["session_timeout_ms"], tuple(classic["protocols"]),
                                classic.get("client_id", ""))
    return ConsumerGroupMember(
        member_id, instance_id=fields.get("instance_id"), rack_id=fields.get("rack_id"),
        rebalance_timeout_ms=fields.get("rebalance_timeout_ms", -1), server_assignor=fields.get("server_assignor"),
        subscribed_topic_names=_topic_names(fields.get("subscribed_topic_names") or ()),
        subscribed_topic_regex=fields.get("subscribed_topic_regex") or "",
        member_epoch=fields.get("member_epoch", 0), previous_member_epoch=fields.get("previous_member_epoch", -1),
        state=state, assigned=assignment("assigned"), pending_revocation=assignment("pending_revocation"),
        epochs=epochs, classic=classic)


__all__ = ["ConsumerGroupManager", "REGEX_REFRESH_MIN_INTERVAL_MS"]
