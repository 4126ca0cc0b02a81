"""The classic consumer-group coordinator, as Kafka 2.2+ implements it on the broker.

Modelled on the Scala `GroupCoordinator` (core/src/main/scala/kafka/coordinator/group/, the
default coordinator through Kafka 3.9) with its `GroupMetadata`, `MemberMetadata`, `DelayedJoin`,
`InitialDelayedJoin`, `DelayedSync` and `DelayedHeartbeat`, and from 4.0 on the Java
`group-coordinator/.../GroupMetadataManager.java` with `classic/ClassicGroup.java`. Requests are answered through response objects: a JoinGroup or
SyncGroup the coordinator parks has `done == False` until a later request or timer completes it.

Simplifications, stated so chapters can say them too:
- storing group metadata and offsets in `__consumer_offsets` always succeeds at once (no append
  latency, no storage errors);
- one coordinator owns every group; `unload_group` models losing ownership (a failover);
- where Kafka iterates a hash map (choosing a new leader, breaking a protocol-vote tie) the
  simulator takes the first member in join order, so runs are reproducible;
- group-state rules follow the 2.6+ code (KAFKA-9885 for `group.max.size`) for every version;
  `kafka_version` changes the defaults, the initial rebalance delay (absent before 0.11), whether
  an offset commit renews the member's session (from 0.10.0) and the broker log wording.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from kafkasim.coordinator.broker_log import BrokerLog
from kafkasim.core.config import BROKER_CONFIGS, normalize_version
from kafkasim.core.java import INT_MAX
from kafkasim.core.engine import Simulation, Timer
from kafkasim.core.errors import ConfigError, Errors, check_range
from kafkasim.coordinator.classic.group import (COMPLETING, DEAD, EMPTY, PREPARING, STABLE,
                                                VALID_PREVIOUS_STATES, Group, Member, Protocols, SessionCheck)

#: The Java client's LeaveGroup reason when its poll timer expires (recorded as reason "poll_timeout").
POLL_TIMEOUT_PREFIX = "consumer poll timeout has expired"

#: JoinGroup requests of new members time out after 5 minutes (hard-coded, not a config).
NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000

#: The broker configs of the classic group coordinator (GroupCoordinatorConfig).
GROUP_CONFIGS = ("group.initial.rebalance.delay.ms", "group.min.session.timeout.ms", "group.max.session.timeout.ms",
                 "group.max.size")

# -- responses ------------------------------------------------------------------------------
class _Response:
    """Base for responses: `done` turns True when the coordinator answers."""

    __slots__ = ("done", "error", "_callback")

    def __init__(self, callback: Callable | None = None):
        self.done = False
        self.error = Errors.NONE
        self._callback = callback

    def _complete(self, error: Errors) -> None:
        self.error = error
        self.done = True
        if self._callback is not None:
            self._callback(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._fields())
        return f"{type(self).__name__}({fields})"

    def _fields(self) -> list[str]:
        return ["done", "error"]


class _RecordedResponse(_Response):
    """A JoinGroup or SyncGroup response: once the coordinator has taken the request
    (`ClassicGroupCoordinator._record`), its answer, immediate or parked, is also an event row,
    written before the caller's callback runs."""

    __slots__ = ("_coordinator", "_group", "_requester")
    kind = ""  # the row's kind: the response's name

    def _complete(self, error: Errors) -> None:
        self.error = error
        self.done = True
        if self._coordinator is not None:
            self._coordinator._answer_row(self)
        if self._callback is not None:
            self._callback(self)


class JoinGroupResponse(_RecordedResponse):
    __slots__ = ("member_id", "generation_id", "leader_id", "protocol_type", "protocol_name",
                 "members", "member_metadata", "member_instance_ids", "skip_assignment")
    kind = "JoinGroupResponse"

    def __init__(self, member_id: str = "", callback: Callable | None = None):
        self.done = False
        self.error = Errors.NONE
        self._callback = callback
        self._coordinator = None
        self.member_id = member_id
        self.generation_id = -1
        self.leader_id = ""
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.members: list[str] = []
        self.member_metadata: dict[str, bytes] = {}
        self.member_instance_ids: dict[str, str | None] = {}
        self.skip_assignment = False

    def _fields(self) -> list[str]:
        return ["done", "error", "member_id", "generation_id", "leader_id", "protocol_name", "members"]


class SyncGroupResponse(_RecordedResponse):
    __slots__ = ("assignment", "protocol_type", "protocol_name")
    kind = "SyncGroupResponse"

    def __init__(self, callback: Callable | None = None):
        self.done = False
        self.error = Errors.NONE
        self._callback = callback
        self._coordinator = None
        self.assignment = b""
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None

    def _fields(self) -> list[str]:
        return ["done", "error", "assignment"]


class HeartbeatResponse(_Response):
    __slots__ = ()


class OffsetCommitResponse(_Response):
    __slots__ = ("partition_errors",)

    def _fields(self) -> list[str]:
        return ["done", "error", "partition_errors"]


class LeaveGroupResponse(_Response):
    __slots__ = ("member_errors",)

    def _fields(self) -> list[str]:
        return ["done", "error", "member_errors"]


def _answered(response: _Response, error: Errors) -> _Response:
    response._complete(error)
    return response


# -- the coordinator ------------------------------------------------------------------------
class ClassicGroupCoordinator:
    """One broker's group coordinator for classic groups, answering JoinGroup, SyncGroup,
    Heartbeat, OffsetCommit and LeaveGroup for any number of groups, with Kafka's timers and broker
    log lines. `kafkasim.GroupCoordinator` adds the consumer protocol (KIP-848) beside it."""

    def __init__(self, sim: Simulation, *, group_initial_rebalance_delay_ms: int | None = None,
                 group_min_session_timeout_ms: int | None = None, group_max_session_timeout_ms: int | None = None,
                 group_max_size: int | None = None, broker_id: int = 0, kafka_version: str = "3.7",
                 record_heartbeats: bool = True):
        normalize_version(kafka_version)  # a version kafkasim does not model: refused as Scenario refuses it
        # BROKER_CONFIGS' default in that version (None: the config does not exist yet).
        defaults = {name: BROKER_CONFIGS[name].default(kafka_version) for name in GROUP_CONFIGS}
        self.sim = sim
        self.kafka_version = kafka_version
        self.broker_id = broker_id
        self.record_heartbeats = record_heartbeats
        delay = defaults["group.initial.rebalance.delay.ms"]
        if group_initial_rebalance_delay_ms is not None:
            delay = check_range("group.initial.rebalance.delay.ms", group_initial_rebalance_delay_ms, 0, INT_MAX)
        self.initial_rebalance_delay_ms = delay  # None: no initial delay at all (before Kafka 0.11)
        self.min_session_timeout_ms = check_range(
            "group.min.session.timeout.ms", _or(group_min_session_timeout_ms, defaults["group.min.session.timeout.ms"]),
            0, INT_MAX)
        self.max_session_timeout_ms = check_range(
            "group.max.session.timeout.ms", _or(group_max_session_timeout_ms, defaults["group.max.session.timeout.ms"]),
            0, INT_MAX)
        if self.max_session_timeout_ms < self.min_session_timeout_ms:
            raise ConfigError(f"group.max.session.timeout.ms ({self.max_session_timeout_ms}) must be at least "
                              f"group.min.session.timeout.ms ({self.min_session_timeout_ms})")
        self.max_size = check_range("group.max.size", _or(group_max_size, defaults["group.max.size"] or INT_MAX),
                                    1, INT_MAX)
        self.groups: dict[str, Group] = {}
        self.offsets: dict[str, dict] = {}  # group id -> committed offsets (partition -> offset)
        self.log = BrokerLog(kafka_version, broker_id)
        self.broker_log = self.log.lines
        # KAFKA-3470: handleCommitOffsets calls completeAndScheduleNextHeartbeatExpiration from 0.10.0
        # (core/src/main/scala/kafka/coordinator/GroupCoordinator.scala at 0.10.0.0). In 0.9 (the
        # same file at 0.9.0.0 and 0.9.0.1) only Heartbeat, JoinGroup and SyncGroup keep a member
        # alive: a member that commits but stops heartbeating expires.
        self.commit_renews_session = self.log.version >= (0, 10)
        self.stats = {"requests": 0, "timer_events": 0}
        self._rows = sim.events.rows
        self._rng = sim.random(f"coordinator-{broker_id}")
        self._unloaded: set[str] = set()
        self._session_checks: dict[int, SessionCheck] = {}  # deadline -> the latest check armed for it
        self._pending_checks: dict[int, SessionCheck] = {}  # the same for pending member ids
        self._checks_made = 0  # checks of either kind made so far (`_joinable`)
        self.removal_reason: dict[str, str] = {}  # member id -> why the coordinator removed it

    # -- small helpers ----------------------------------------------------------------------
    # Rows carry error names as `error._name_`: the same string as `error.name`, without the enum
    # property lookup, which costs more than the rest of a heartbeat on the hot path.
    def _event(self, group: Group, kind: str, member: str | None = None, *, generation: int | None = None,
               error: Errors | None = None, reason: str | None = None, value: float | None = None) -> None:
        if kind == "MemberRemoved":
            self.removal_reason[member] = reason
        self._rows.append((self.sim.now, "coordinator", group.group_id, member, kind,
                           group.generation_id if generation is None else generation, None, None,
                           None if error is None else error._name_, reason, value, group.state))

    def _new_member_id(self, prefix: str) -> str:
        """`<client.id>-<UUID>`, or `<group.instance.id>-<UUID>` for a static member
        (`GroupMetadata.generateMemberId` from 2.3.1, `ClassicGroup.generateMemberId` in 4.x; 2.3.0
        put the group's state timestamp in place of the UUID, KAFKA-8715, which is not modelled)."""
        return f"{prefix}-{_uuid4(self._rng.getrandbits(128))}"

    def _transition(self, group: Group, state: str) -> None:
        if group.state not in VALID_PREVIOUS_STATES[state]:
            raise AssertionError(f"Group {group.group_id} should be in one of {sorted(VALID_PREVIOUS_STATES[state])} "
                                 f"before moving to {state}, but it is {group.state}")
        group.previous_state, group.state = group.state, state

    def _group_status_error(self, group_id: str) -> Errors | None:
        """validateGroupStatus: checks that come before any group logic."""
        if not group_id:
            return Errors.INVALID_GROUP_ID
        if group_id in self._unloaded:
            return Errors.NOT_COORDINATOR
        return None

    def _validate_member(self, group: Group, member_id: str, instance_id: str | None) -> Errors | None:
        """validateCurrentMember: the instance id maps to this member id, and the member exists."""
        if instance_id is not None:
            current = group.static_members.get(instance_id)
            if current is None:
                return Errors.UNKNOWN_MEMBER_ID
            if current != member_id:
                return Errors.FENCED_INSTANCE_ID
        if member_id not in group.members:
            return Errors.UNKNOWN_MEMBER_ID
        return None

    # -- session timers (DelayedHeartbeat) ----------------------------------------------------
    def _reset_session(self, group: Group, member: Member, timeout_ms: int | None = None) -> None:
        """completeAndScheduleNextHeartbeatExpiration: the session now ends `timeout` ms from now.

        The expiry check is only moved when the new deadline is earlier than the armed one; a later
        deadline is picked up when the check runs, so a healthy member's heartbeat costs no heap work.
        """
        deadline = self.sim.now + (member.session_timeout_ms if timeout_ms is None else timeout_ms)
        member.deadline = deadline
        check = member.timer
        if check is None or check.time > deadline:
            self._arm_session(group, member, deadline)

    def _arm_session(self, group: Group, member: Member, deadline: int) -> None:
        """Schedule the member's expiry check at `deadline`.

        Members armed for the same deadline share one engine timer while no other timer due at
        that time was scheduled in between (`_joinable`; a cohort that joins or heartbeats
        together): they are checked in the order they were armed, exactly as separate timers would
        run, at a fraction of the cost.
        """
        check = self._session_check(deadline)
        check.entries.append((group, member))
        member.timer = check

    def _session_check(self, deadline: int) -> SessionCheck:
        """The check a member armed for `deadline` joins: the latest one for that time if it can
        take one more member (`_joinable`), else a new one."""
        check = self._session_checks.get(deadline)
        if check is None or not self._joinable(check, self._pending_checks):
            check = self._new_check(self._session_checks, deadline, self._on_session_check)
        return check

    def _new_check(self, checks: dict[int, SessionCheck], deadline: int, fire: Callable) -> SessionCheck:
        """A shared check for `deadline` (see `_arm_session`), its engine timer calling `fire(check)`."""
        self._checks_made += 1
        check = checks[deadline] = SessionCheck(deadline, self._checks_made)
        check.timer = self.sim.at(deadline, fire, check)
        return check

    def _joinable(self, check: SessionCheck, others: dict[int, SessionCheck]) -> bool:
        """Can a check that has not run yet take one more entry, the order kept as with a timer of
        the entry's own: no timer due at its time was scheduled after it. So when it is the last
        timer scheduled; or when every timer scheduled since is a check this coordinator made (as
        many timers as checks made since: the engine numbers timers one by one) and none of those
        is due at that time (`others`: the latest check of the other kind for each time). A join
        storm arms each member's pending-id check and session check in turn, for two times: both
        are joinable. Anything else scheduled in between makes a new check."""
        last = self.sim.last_scheduled
        if last is check.timer:
            return True
        other = others.get(check.time)
        return ((other is None or other.made < check.made)
                and last.seq - check.timer.seq == self._checks_made - check.made)

    def _on_session_check(self, check: "SessionCheck") -> None:
        """Check each member armed for this time, in arming order. A member renewed since (the
        common case: it heartbeats) is armed again for its new deadline here; any other goes
        through `_on_session_timer`, with the timer events counted so far written first."""
        time = check.time
        if self._session_checks.get(time) is check:
            del self._session_checks[time]
        check.timer = None  # its engine timer has run: no cycle keeps the entries alive now
        stats, renewed = self.stats, 0
        target = None  # the check renewed members join; still the last timer at its time until
        for entry in check.entries:  # the slow path below schedules something
            group, member = entry
            if member.timer is not check:  # re-armed or cancelled since
                continue
            deadline = member.deadline
            if deadline > time and group.state != DEAD and group.members.get(member.member_id) is member:
                renewed += 1
                if target is None or target.time != deadline:
                    target = self._session_check(deadline)
                target.entries.append(entry)
                member.timer = target
            else:
                member.timer = None
                stats["timer_events"] += renewed
                renewed, target = 0, None
                self._on_session_timer(group, member, time)
        stats["timer_events"] += renewed

    def _on_session_timer(self, group: Group, member: Member, armed_for: int) -> None:
        self.stats["timer_events"] += 1
        if group.members.get(member.member_id) is not member or group.state == DEAD:
            return
        if member.deadline > armed_for:  # renewed since: check again at the new deadline
            self._arm_session(group, member, member.deadline)
            return
        # Members with a parked JoinGroup or SyncGroup are alive; new members are never "satisfied".
        if not member.is_new and (member.awaiting_join is not None or member.awaiting_sync is not None):
            return
        self.log.member_failed(self.sim.now, group.group_id, member.member_id)
        reason = "new_member_timeout" if member.is_new else "session_timeout"
        self._remove_member_and_update_group(group, member, self.log.reason_heartbeat_expiration(member.member_id),
                                             reason)

    def _cancel_session(self, member: Member) -> None:
        member.timer = None  # its pending check, if any, now skips it

    # -- JoinGroup ----------------------------------------------------------------------------
    def join_group(self, group_id: str, member_id: str = "", group_instance_id: str | None = None,
                   session_timeout_ms: int = 45000, rebalance_timeout_ms: int = 300000,
                   protocol_type: str = "consumer", protocols: Protocols = (("range", b""),),
                   require_known_member_id: bool = True, client_id: str = "consumer",
                   reason: str | None = None, supports_skip_assignment: bool | None = None,
                   callback: Callable | None = None) -> JoinGroupResponse:
        """handleJoinGroup. The response may be parked until the join phase completes.

        `require_known_member_id=False` is the one-step join of JoinGroup < v4 (before Kafka 2.2);
        `supports_skip_assignment` is JoinGroup v9+ (KIP-814, Kafka 3.2+; default by kafka_version).
        """
        self.stats["requests"] += 1
        resp = JoinGroupResponse(member_id, callback)
        protocols = list(protocols)
        if not group_id or group_id in self._unloaded:
            return self._join_answer(group_id, member_id or client_id, resp, self._group_status_error(group_id))
        if not self.min_session_timeout_ms <= session_timeout_ms <= self.max_session_timeout_ms:
            return self._join_answer(group_id, member_id or client_id, resp, Errors.INVALID_SESSION_TIMEOUT)
        group = self.groups.get(group_id)
        if group is None:
            if member_id:
                return self._join_answer(group_id, member_id, resp, Errors.UNKNOWN_MEMBER_ID)
            group = self.groups[group_id] = Group(group_id)
        self._event(group, "JoinGroup", member_id or client_id, reason=reason)
        self._record(resp, group, member_id or client_id)

        if not self._accept_joining_member(group, member_id):
            if member_id in group.members or member_id in group.pending_join:
                self._event(group, "MemberRemoved", member_id, reason="group_max_size")
            group.remove(member_id)
            resp.member_id = ""
            resp._complete(Errors.GROUP_MAX_SIZE_REACHED)
        elif not member_id:
            if supports_skip_assignment is None:
                supports_skip_assignment = self.log.version >= (3, 2)
            self._new_member_join(group, group_instance_id, require_known_member_id, client_id, session_timeout_ms,
                                  rebalance_timeout_ms, protocol_type, protocols, resp, reason,
                                  supports_skip_assignment)
        else:
            self._current_member_join(group, member_id, group_instance_id, client_id, session_timeout_ms,
                                      rebalance_timeout_ms, protocol_type, protocols, resp, reason)
        if group.state == PREPARING and group.initial_delay is None:  # an initial delayed join never completes early
            self._try_complete_join(group)
        return resp

    def _join_answer(self, group_id: str, member: str, resp: JoinGroupResponse, error: Errors) -> JoinGroupResponse:
        """Answer a JoinGroup rejected before any group logic (the event still names the group)."""
        self._rows.append((self.sim.now, "coordinator", group_id, member, "JoinGroupResponse", None, None, None,
                           error._name_, None, None, None))
        resp._complete(error)
        return resp

    def _record(self, resp: _RecordedResponse, group: Group, requester: str) -> None:
        """From now on the response's answer, immediate or parked, is also an event (`_answer_row`)."""
        resp._coordinator, resp._group, resp._requester = self, group, requester

    def _answer_row(self, resp: _RecordedResponse) -> None:
        """The row names the member the response is for; when the coordinator handed out a new
        member id, `reason` keeps the name the request came from (its client id)."""
        requester, group = resp._requester, resp._group
        member = getattr(resp, "member_id", None) or requester
        gen = getattr(resp, "generation_id", None)
        self._rows.append((self.sim.now, "coordinator", group.group_id, member, resp.kind,
                           gen if gen is not None and gen >= 0 else group.generation_id, None, None,
                           resp.error._name_, requester if member != requester else None, None, group.state))

    def _accept_joining_member(self, group: Group, member_id: str) -> bool:
        """acceptJoiningMember (KIP-389, rule of KAFKA-9885): the last members to rejoin are turned away."""
        if group.state in (EMPTY, DEAD):
            return True
        member = group.members.get(member_id)
        if group.state == PREPARING:
            return (member is not None and member.awaiting_join is not None) or group.num_awaiting_join < self.max_size
        return member is not None or len(group.members) < self.max_size

    def _new_member_join(self, group: Group, instance_id: str | None, require_known_member_id: bool,
                         client_id: str, session_timeout_ms: int, rebalance_timeout_ms: int, protocol_type: str,
                         protocols: Protocols, resp: JoinGroupResponse, reason: str | None,
                         skip_assignment: bool) -> None:
        if group.state == DEAD:
            resp.member_id = ""
            return resp._complete(Errors.COORDINATOR_NOT_AVAILABLE)
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            resp.member_id = ""
            return resp._complete(Errors.INCONSISTENT_GROUP_PROTOCOL)
        now = self.sim.now
        new_id = self._new_member_id(instance_id if instance_id is not None else client_id)
        if instance_id is not None:
            old_id = group.static_members.get(instance_id)
            self.log.static_member_added(now, group.group_id, group.state, instance_id, new_id, old_id)
            if old_id is not None:
                return self._replace_static_member(group, old_id, new_id, instance_id, protocols,
                                                   rebalance_timeout_ms, session_timeout_ms, resp, reason,
                                                   skip_assignment)
            return self._add_member_and_rebalance(group, new_id, instance_id, client_id, session_timeout_ms,
                                                  rebalance_timeout_ms, protocol_type, protocols, resp, reason)
        if require_known_member_id:  # KIP-394: register a pending id and ask the member to come back with it
            self.log.member_id_required(now, group.group_id, group.state, new_id)
            self._arm_pending(group, new_id, now + session_timeout_ms)
            self._event(group, "PendingMemberAdded", new_id)
            resp.member_id = new_id
            return resp._complete(Errors.MEMBER_ID_REQUIRED)
        self.log.dynamic_member_added(now, group.group_id, group.state, new_id)
        self._add_member_and_rebalance(group, new_id, None, client_id, session_timeout_ms, rebalance_timeout_ms,
                                       protocol_type, protocols, resp, reason)

    def _current_member_join(self, group: Group, member_id: str, instance_id: str | None, client_id: str,
                             session_timeout_ms: int, rebalance_timeout_ms: int, protocol_type: str,
                             protocols: Protocols, resp: JoinGroupResponse, reason: str | None) -> None:
        if group.state == DEAD:
            return resp._complete(Errors.COORDINATOR_NOT_AVAILABLE)
        if not group.supports_protocols(protocol_type, {n for n, _ in protocols}):
            return resp._complete(Errors.INCONSISTENT_GROUP_PROTOCOL)
        if member_id in group.pending_join:
            if instance_id is not None:
                raise ValueError(f"Received unexpected JoinGroup with groupInstanceId={instance_id} for pending "
                                 f"member with memberId={member_id}")
            return self._add_member_and_rebalance(group, member_id, None, client_id, session_timeout_ms,
                                                  rebalance_timeout_ms, protocol_type, protocols, resp, reason)
        error = self._validate_member(group, member_id, instance_id)
        if error is not None:
            return resp._complete(error)
        member = group.members[member_id]
        state = group.state
        if state == PREPARING:
            self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms, session_timeout_ms, resp,
                                              self.log.reason_rejoin(member_id, state, leader=False,
                                                                     metadata_changed=False, client_reason=reason))
        elif state == COMPLETING:
            if member.matches(protocols):  # a retry of a lost JoinGroup response: answer from the current generation
                self._fill_join(group, member, resp)
                resp._complete(Errors.NONE)
            else:
                self._update_member_and_rebalance(group, member, protocols, rebalance_timeout_ms, session_timeout_ms,
                                                  resp, self.log.reason_rejoin(member_id, state, leader=False,
                                                                               metadata_changed=True,
                                                                               client_reason=reason))
        elif state == STABLE:
            leader = group.leader_id == member_id
            if leader or not member.matches(protocols):  # the leader's JoinGroup always forces a rebalance
                self._update_member_and_rebalance(
                    group, member, protocols, rebalance_timeout_ms, session_timeout_ms, resp,
                    self.log.reason_rejoin(member_id, state, leader=leader,
                                           metadata_changed=not member.matches(protocols), client_reason=reason))
            else:
                self._fill_join(group, member, resp, with_members=False)
                resp._complete(Errors.NONE)
        else:  # Empty or Dead: the member should reset its generation and rejoin
            resp._complete(Errors.UNKNOWN_MEMBER_ID)

    def _fill_join(self, group: Group, member: Member, resp: JoinGroupResponse, with_members: bool = True,
                   leader_id: str | None = None) -> None:
        resp.member_id = member.member_id
        resp.generation_id = group.generation_id
        resp.protocol_type = group.protocol_type
        resp.protocol_name = group.protocol_name
        resp.leader_id = group.leader_id if leader_id is None else leader_id
        if with_members and group.leader_id == member.member_id:
            resp.members = list(group.members)
            resp.member_metadata = {m.member_id: m.metadata(group.protocol_name) for m in group.members.values()}
            resp.member_instance_ids = {m.member_id: m.instance_id for m in group.members.values()}

    def _add_member_and_rebalance(self, group: Group, member_id: str, instance_id: str | None, client_id: str,
                                  session_timeout_ms: int, rebalance_timeout_ms: int, protocol_type: str,
                                  protocols: Protocols, resp: JoinGroupResponse, reason: str | None) -> None:
        member = Member(member_id, instance_id, client_id, session_timeout_ms, rebalance_timeout_ms, protocol_type,
                        protocols)
        member.is_new = True
        resp.member_id = member_id
        if group.state == PREPARING and group.generation_id == 0:
            # Extends the initial delayed join (KIP-134). The Scala coordinator checks generation 0,
            # so a group that comes back from Empty later waits one window only.
            group.new_member_added = True
        group.add(member, resp)
        if group.pending_join.pop(member_id, None) is not None:  # its expiry check now skips it
            self.log.pending_member_joined(self.sim.now, group.group_id, group.state, member_id)
        self._event(group, "MemberAdded", member_id, reason="static" if instance_id is not None else "dynamic")
        # New members cannot heartbeat yet, so they get the 5-minute new-member join timeout instead.
        self._reset_session(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
        if group.can_rebalance():  # _maybe_prepare_rebalance, the reason's text made only when used
            self._prepare_rebalance(group, self.log.reason_new_member(member_id, instance_id, reason))

    def _update_member_and_rebalance(self, group: Group, member: Member, protocols: Protocols,
                                     rebalance_timeout_ms: int, session_timeout_ms: int, resp: JoinGroupResponse,
                                     reason: str) -> None:
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, resp)
        self._maybe_prepare_rebalance(group, reason)

    def _replace_static_member(self, group: Group, old_id: str, new_id: str, instance_id: str,
                               protocols: Protocols, rebalance_timeout_ms: int, session_timeout_ms: int,
                               resp: JoinGroupResponse, reason: str | None, skip_assignment: bool) -> None:
        """A static member restarted: it takes over its old identity and assignment (KIP-345)."""
        current_leader = group.leader_id
        member = group.members.pop(old_id)
        # Fence the old instance's parked requests at once.
        if member.awaiting_join is not None:
            parked, member.awaiting_join = member.awaiting_join, None
            group.num_awaiting_join -= 1
            parked._complete(Errors.FENCED_INSTANCE_ID)
        if member.awaiting_sync is not None:
            parked, member.awaiting_sync = member.awaiting_sync, None
            parked._complete(Errors.FENCED_INSTANCE_ID)
        member.member_id = new_id
        group.members[new_id] = member
        if group.leader_id == old_id:
            group.leader_id = new_id
        if old_id in group.pending_sync:
            group.pending_sync.discard(old_id)
            group.pending_sync.add(new_id)
        group.static_members[instance_id] = new_id
        self._event(group, "MemberReplaced", new_id, reason=old_id)
        self._reset_session(group, member)
        group.update_member(member, protocols, rebalance_timeout_ms, session_timeout_ms, resp)
        resp.member_id = new_id
        if group.state == STABLE:
            if group.select_protocol() == group.protocol_name:
                # No rebalance: persist the new member id and answer from the current generation.
                parked, member.awaiting_join = member.awaiting_join, None
                group.num_awaiting_join -= 1
                if skip_assignment:  # v9+: a replaced leader learns it leads but must not reassign
                    self._fill_join(group, member, parked)
                    parked.skip_assignment = group.leader_id == new_id
                else:  # older versions: name the old leader so nobody thinks it must reassign
                    self._fill_join(group, member, parked, with_members=False, leader_id=current_leader)
                parked._complete(Errors.NONE)
            else:
                self._maybe_prepare_rebalance(group, self.log.reason_static_protocol_change(new_id, instance_id, reason))
        elif group.state == COMPLETING:
            # The leader may already have assigned partitions to the old id: always rebalance.
            self._prepare_rebalance(group, self.log.reason_static_update(new_id, instance_id, reason))

    # -- rebalance ------------------------------------------------------------------------------
    def prepare_rebalance(self, group_id: str, reason: str = "coordinator-initiated rebalance") -> None:
        """Start a rebalance of `group_id` if its state allows one (maybePrepareRebalance)."""
        group = self.groups.get(group_id)
        if group is None:
            raise KeyError(f"unknown group {group_id!r}")
        self._maybe_prepare_rebalance(group, reason)

    def _maybe_prepare_rebalance(self, group: Group, reason: str) -> None:
        if group.can_rebalance():
            self._prepare_rebalance(group, reason)

    def _prepare_rebalance(self, group: Group, reason: str) -> None:
        if group.state == COMPLETING:  # parked SyncGroups must rejoin
            for member in group.members.values():
                member.assignment = b""
            self._propagate_assignment(group, Errors.REBALANCE_IN_PROGRESS)
        if group.sync_timer is not None:
            group.sync_timer.cancel()
            group.sync_timer = None
        initial = group.state == EMPTY
        old_generation = group.generation_id
        self._transition(group, PREPARING)
        self.log.preparing_rebalance(self.sim.now, group.group_id, group.state, old_generation, reason)
        self._event(group, "RebalanceStarted", reason=reason)
        if group.join_timer is not None:
            group.join_timer.cancel()
        delay = self.initial_rebalance_delay_ms
        if initial and delay is not None:
            remaining = max(group.rebalance_timeout_ms - delay, 0)
            group.initial_delay = (delay, remaining)
            group.join_timer = self.sim.schedule(delay, self._on_join_timer, group)
        else:
            group.initial_delay = None
            group.join_timer = self.sim.schedule(group.rebalance_timeout_ms, self._on_join_timer, group)
            self._try_complete_join(group)

    def _try_complete_join(self, group: Group) -> None:
        """DelayedJoin.tryComplete: everyone known has rejoined and no pending id is outstanding.
        An initial delayed join never completes early (InitialDelayedJoin.tryComplete is false)."""
        if group.state == PREPARING and group.initial_delay is None and group.has_all_members_joined():
            self._complete_join(group)

    def _on_join_timer(self, group: Group) -> None:
        self.stats["timer_events"] += 1
        group.join_timer = None
        if group.initial_delay is not None:
            delay, remaining = group.initial_delay
            if group.new_member_added and remaining != 0:
                group.new_member_added = False
                group.initial_delay = (min(self.initial_rebalance_delay_ms, remaining), max(remaining - delay, 0))
                group.join_timer = self.sim.schedule(group.initial_delay[0], self._on_join_timer, group)
                return
        self._complete_join(group)

    def _complete_join(self, group: Group) -> None:
        """onCompleteJoin: prune dynamic members that did not rejoin, then open the next generation."""
        if group.join_timer is not None:
            group.join_timer.cancel()
            group.join_timer = None
        group.initial_delay = None
        group.new_member_added = False
        now = self.sim.now
        not_rejoined = [m for m in group.members.values() if m.awaiting_join is None and not m.is_static]
        if not_rejoined:
            self.log.removed_not_rejoined(now, group.group_id, [m.member_id for m in not_rejoined])
            for member in not_rejoined:
                group.remove(member.member_id)
                self._cancel_session(member)
                self._event(group, "MemberRemoved", member.member_id, reason="rebalance_timeout")
        if group.state == DEAD:
            return
        if not self._elect_joined_leader(group) and group.members:
            # Only static members that did not rejoin remain: wait another rebalance timeout.
            group.join_timer = self.sim.schedule(group.rebalance_timeout_ms, self._on_join_timer, group)
            return
        group.generation_id += 1
        group.pending_sync.clear()
        if not group.members:
            group.protocol_name = None
            self._transition(group, EMPTY)
            self.log.group_empty(now, group.group_id, group.generation_id)
            self._event(group, "GroupEmpty")
            return
        group.protocol_name = group.select_protocol()
        self._transition(group, COMPLETING)
        self.log.stabilized(now, group.group_id, group.generation_id, len(group.members))
        self._event(group, "GenerationStabilized", group.leader_id, value=len(group.members),
                    reason=group.protocol_name)
        for member in list(group.members.values()):
            parked = member.awaiting_join
            if parked is not None:
                member.awaiting_join = None
                group.num_awaiting_join -= 1
                self._fill_join(group, member, parked)
                parked._complete(Errors.NONE)
            self._reset_session(group, member)
            member.is_new = False
            group.pending_sync.add(member.member_id)
        group.sync_timer = self.sim.schedule(group.rebalance_timeout_ms, self._on_sync_timer, group)

    def _elect_joined_leader(self, group: Group) -> bool:
        """maybeElectNewJoinedLeader: keep a rejoined leader, else take any rejoined member."""
        if group.leader_id is None:
            return False
        if group.members[group.leader_id].awaiting_join is not None:
            return True
        for member_id, member in group.members.items():
            if member.awaiting_join is not None:
                group.leader_id = member_id
                return True
        return False

    # -- pending members -----------------------------------------------------------------------
    def _arm_pending(self, group: Group, member_id: str, deadline: int) -> None:
        """Register a pending member id (KIP-394) that expires at `deadline` unless it joins first.
        Pending ids registered together share one engine timer, as sessions do (`_arm_session`);
        removing the id from `group.pending_join` is what cancels its expiry."""
        check = self._pending_checks.get(deadline)
        if check is None or not self._joinable(check, self._session_checks):
            check = self._new_check(self._pending_checks, deadline, self._on_pending_check)
        check.entries.append((group, member_id))
        group.pending_join[member_id] = check

    def _on_pending_check(self, check: SessionCheck) -> None:
        """Expire, in registration order, each pending id of this check that is still pending."""
        if self._pending_checks.get(check.time) is check:
            del self._pending_checks[check.time]
        check.timer = None
        for group, member_id in check.entries:
            if group.pending_join.get(member_id) is check:
                self._on_pending_expired(group, member_id)

    def _on_pending_expired(self, group: Group, member_id: str) -> None:
        """A pending id's check ran out (`_on_pending_check` calls it only while the id is pending)."""
        self.stats["timer_events"] += 1
        del group.pending_join[member_id]
        self.log.pending_member_expired(self.sim.now, group.group_id, member_id)
        self._event(group, "PendingMemberExpired", member_id)
        self._try_complete_join(group)

    # -- SyncGroup ----------------------------------------------------------------------------
    def sync_group(self, group_id: str, member_id: str, generation_id: int,
                   assignments: dict[str, bytes] | None = None, group_instance_id: str | None = None,
                   protocol_type: str | None = None, protocol_name: str | None = None,
                   callback: Callable | None = None) -> SyncGroupResponse:
        """handleSyncGroup. Followers wait until the leader's assignment arrives."""
        self.stats["requests"] += 1
        resp = SyncGroupResponse(callback)
        status = self._group_status_error(group_id)
        group = self.groups.get(group_id)
        if status is not None or group is None:
            self._rows.append((self.sim.now, "coordinator", group_id, member_id, "SyncGroupResponse", generation_id,
                               None, None, (status or Errors.UNKNOWN_MEMBER_ID)._name_, None, None, None))
            return _answered(resp, status or Errors.UNKNOWN_MEMBER_ID)
        self._event(group, "SyncGroup", member_id, generation=generation_id)
        self._record(resp, group, member_id)
        if group.state == DEAD:
            return _answered(resp, Errors.COORDINATOR_NOT_AVAILABLE)
        error = self._validate_member(group, member_id, group_instance_id)
        if error is None and generation_id != group.generation_id:
            error = Errors.ILLEGAL_GENERATION
        if error is None and ((protocol_type is not None and protocol_type != group.protocol_type) or
                              (protocol_name is not None and protocol_name != group.protocol_name)):
            error = Errors.INCONSISTENT_GROUP_PROTOCOL
        if error is not None:
            return _answered(resp, error)
        if group.state == PREPARING:
            return _answered(resp, Errors.REBALANCE_IN_PROGRESS)
        member = group.members[member_id]
        if group.state == STABLE:
            self._remove_pending_sync(group, member_id)
            resp.assignment = member.assignment
            resp.protocol_type, resp.protocol_name = group.protocol_type, group.protocol_name
            resp._complete(Errors.NONE)
            self._reset_session(group, member)  # the Scala coordinator resets the session here
            return resp
        # CompletingRebalance
        member.awaiting_sync = resp
        self._remove_pending_sync(group, member_id)
        if group.leader_id == member_id:
            static = sum(1 for m in group.members.values() if m.is_static)
            self.log.assignment_received(self.sim.now, group.group_id, group.generation_id, member_id,
                                         len(group.members), static)
            self._event(group, "AssignmentReceived", member_id, value=len(group.members))
            assignments = assignments or {}
            for m in group.members.values():  # members the leader left out get an empty assignment
                m.assignment = assignments.get(m.member_id, b"")
            self._propagate_assignment(group, Errors.NONE)
            self._transition(group, STABLE)
            self._event(group, "GroupStable", member_id, value=len(group.members))
        return resp

    def _remove_pending_sync(self, group: Group, member_id: str) -> None:
        group.pending_sync.discard(member_id)
        if not group.pending_sync and group.sync_timer is not None:
            group.sync_timer.cancel()
            group.sync_timer = None

    def _propagate_assignment(self, group: Group, error: Errors) -> None:
        """Answer every parked SyncGroup; each answered member's session restarts."""
        for member in list(group.members.values()):
            parked = member.awaiting_sync
            if parked is not None:
                member.awaiting_sync = None
                parked.assignment = member.assignment if error is Errors.NONE else b""
                parked.protocol_type, parked.protocol_name = group.protocol_type, group.protocol_name
                parked._complete(error)
                self._reset_session(group, member)

    def _on_sync_timer(self, group: Group) -> None:
        """DelayedSync expiry: members that never sent SyncGroup are removed, static ones too.

        Kafka's onExpireSync first checks that the group is still at the generation it was armed
        for, Completing or Stable, with members yet to sync; here the timer is cancelled as soon as
        one of those stops holding (`_prepare_rebalance`, `_remove_pending_sync`, `_release`).
        """
        self.stats["timer_events"] += 1
        group.sync_timer = None
        missing = [m for m in group.members if m in group.pending_sync]
        for member_id in missing:
            member = group.remove(member_id)
            self._cancel_session(member)
            self._event(group, "MemberRemoved", member_id, reason="sync_timeout")
        self._prepare_rebalance(group, self.log.reason_pending_sync(missing))

    # -- Heartbeat ----------------------------------------------------------------------------
    def heartbeat(self, group_id: str, member_id: str, generation_id: int, group_instance_id: str | None = None,
                  callback: Callable | None = None) -> HeartbeatResponse:
        """handleHeartbeat: renews the session; REBALANCE_IN_PROGRESS tells the member to rejoin."""
        error = self._heartbeat(group_id, member_id, generation_id, group_instance_id)
        if self.record_heartbeats or error is not Errors.NONE:
            group = self.groups.get(group_id)
            self._rows.append((self.sim.now, "coordinator", group_id, member_id, "Heartbeat", generation_id, None,
                               None, error._name_, None, None, group.state if group else None))
        return _answered(HeartbeatResponse(callback), error)

    def heartbeat_batch(self, group_id: str, member_ids: Iterable[str], generation_id: int) -> dict[str, Errors]:
        """Heartbeats from many members at the same instant (same semantics as `heartbeat`).

        Returns only the members whose heartbeat did not succeed. Members doing the same thing at
        the same time are handled together, so a large healthy group costs little per heartbeat.
        """
        failed: dict[str, Errors] = {}
        group = self.groups.get(group_id)
        if group is None or group.state not in (STABLE, COMPLETING) or generation_id != group.generation_id:
            for member_id in member_ids:
                error = self._heartbeat(group_id, member_id, generation_id, None)
                if error is not Errors.NONE:
                    failed[member_id] = error
                if self.record_heartbeats or error is not Errors.NONE:
                    self._rows.append((self.sim.now, "coordinator", group_id, member_id, "Heartbeat", generation_id,
                                       None, None, error._name_, None, None, group.state if group else None))
            return failed
        # Fast path: a Stable/CompletingRebalance group at the right generation; only the member
        # lookup and the session deadline remain (see `_reset_session` for why no timer moves).
        # Nothing here answers a callback or changes the group, so the rows of the members found
        # up to the first unknown id are written together afterwards, in the same order.
        if not isinstance(member_ids, (list, tuple)):  # read twice below (`index`, the rows)
            member_ids = list(member_ids)
        members, now, state = group.members, self.sim.now, group.state
        unknown = timeout = None
        try:
            for member_id in member_ids:
                member = members[member_id]
                if member.session_timeout_ms != timeout:  # members of a group mostly share one timeout:
                    timeout = member.session_timeout_ms   # one deadline (one int) for all of them
                    deadline = now + timeout
                member.deadline = deadline
                check = member.timer
                if check is None or check.time > deadline:
                    self._arm_session(group, member, deadline)
        except KeyError:
            unknown = member_ids.index(member_id)  # the first unknown id; the ones before it are done
        found = member_ids[:unknown]  # all of them when no id was unknown (`unknown` None)
        self.stats["requests"] += len(found)
        if self.record_heartbeats:
            ok = Errors.NONE._name_
            self._rows.extend([(now, "coordinator", group_id, member_id, "Heartbeat", generation_id, None, None, ok,
                                None, None, state) for member_id in found])
        if unknown is not None:
            self._heartbeat_rest(group, member_ids[unknown:], generation_id, failed)
        return failed

    def _heartbeat_rest(self, group: Group, member_ids: Sequence[str], generation_id: int,
                        failed: dict[str, Errors]) -> None:
        """`heartbeat_batch`'s fast path from an unknown member id on, one member at a time: the
        group is Stable or CompletingRebalance at the right generation, so a member id not in it is
        all `_heartbeat` could refuse (validateCurrentMember: UNKNOWN_MEMBER_ID)."""
        now, rows, state, group_id = self.sim.now, self._rows, group.state, group.group_id
        record = self.record_heartbeats
        for member_id in member_ids:
            member = group.members.get(member_id)
            if member is None:
                error = failed[member_id] = Errors.UNKNOWN_MEMBER_ID
            else:
                self._reset_session(group, member)
                error = Errors.NONE
            if record or error is not Errors.NONE:
                rows.append((now, "coordinator", group_id, member_id, "Heartbeat", generation_id, None, None,
                             error._name_, None, None, state))
        self.stats["requests"] += len(member_ids)

    def _heartbeat(self, group_id: str, member_id: str, generation_id: int, instance_id: str | None) -> Errors:
        self.stats["requests"] += 1
        status = self._group_status_error(group_id)
        if status is not None:
            return status
        group = self.groups.get(group_id)
        if group is None:
            return Errors.UNKNOWN_MEMBER_ID
        if group.state == DEAD:
            return Errors.COORDINATOR_NOT_AVAILABLE
        error = self._validate_member(group, member_id, instance_id)
        if error is not None:
            return error
        if generation_id != group.generation_id:
            return Errors.ILLEGAL_GENERATION
        if group.state == EMPTY:
            return Errors.UNKNOWN_MEMBER_ID
        self._reset_session(group, group.members[member_id])
        # In CompletingRebalance Kafka answers NONE (not REBALANCE_IN_PROGRESS, despite the state's doc).
        return Errors.REBALANCE_IN_PROGRESS if group.state == PREPARING else Errors.NONE

    # -- OffsetCommit ---------------------------------------------------------------------------
    def commit_offsets(self, group_id: str, member_id: str, generation_id: int, offsets: dict,
                       group_instance_id: str | None = None, callback: Callable | None = None) -> OffsetCommitResponse:
        """handleCommitOffsets. From 0.10.0 a commit from a live member also renews its session."""
        self.stats["requests"] += 1
        resp = OffsetCommitResponse(callback)
        error = self._commit(group_id, member_id, generation_id, offsets, group_instance_id)
        resp.partition_errors = dict.fromkeys(offsets, error)
        group = self.groups.get(group_id)
        self._rows.append((self.sim.now, "coordinator", group_id, member_id or None, "OffsetCommit", generation_id,
                           None, None, error._name_, None, float(len(offsets)), group.state if group else None))
        return _answered(resp, error)

    def _commit(self, group_id: str, member_id: str, generation_id: int, offsets: dict,
                instance_id: str | None) -> Errors:
        status = self._group_status_error(group_id)
        if status is not None:
            return status
        group = self.groups.get(group_id)
        if group is None:
            if generation_id >= 0:  # a request from an older generation
                return Errors.ILLEGAL_GENERATION
            group = self.groups[group_id] = Group(group_id)  # not using group management: allowed
        if group.state == DEAD:
            return Errors.COORDINATOR_NOT_AVAILABLE
        if generation_id >= 0 or member_id or instance_id is not None:
            error = self._validate_member(group, member_id, instance_id)
            if error is None and generation_id != group.generation_id:
                error = Errors.ILLEGAL_GENERATION
            if error is not None:
                return error
        elif group.state != EMPTY:  # only members may commit to a non-empty group
            return Errors.UNKNOWN_MEMBER_ID
        if group.state == COMPLETING:
            return Errors.REBALANCE_IN_PROGRESS
        if group.state in (STABLE, PREPARING) and self.commit_renews_session:
            self._reset_session(group, group.members[member_id])
        self.store_offsets(group_id, offsets)
        return Errors.NONE

    def store_offsets(self, group_id: str, offsets: dict) -> None:
        """Kafka's `OffsetMetadataManager`: offsets are kept per group id, whatever the kind of
        group, so they survive a conversion between the classic and the consumer protocol."""
        self.offsets.setdefault(group_id, {}).update(offsets)

    def committed(self, group_id: str) -> dict:
        """The group's committed offsets (partition -> offset)."""
        return dict(self.offsets.get(group_id, ()))

    # -- LeaveGroup -----------------------------------------------------------------------------
    def leave_group(self, group_id: str, members: Iterable, reason: str | None = None,
                    callback: Callable | None = None) -> LeaveGroupResponse:
        """handleLeaveGroup (batch, KIP-345): items are member ids or (member_id, group_instance_id)."""
        self.stats["requests"] += 1
        resp = LeaveGroupResponse(callback)
        items = [(m, None) if isinstance(m, str) else (m[0], m[1]) for m in members]
        resp.member_errors = []
        status = self._group_status_error(group_id)
        group = self.groups.get(group_id)
        if status is not None or (group is not None and group.state == DEAD):
            return _answered(resp, status or Errors.COORDINATOR_NOT_AVAILABLE)
        if group is None:
            resp.member_errors = [Errors.UNKNOWN_MEMBER_ID] * len(items)
            return _answered(resp, Errors.NONE)
        for member_id, instance_id in items:
            self._event(group, "LeaveGroup", member_id or instance_id, reason=reason)
            resp.member_errors.append(self._leave_one(group, member_id, instance_id, reason))
        return _answered(resp, Errors.NONE)

    def _leave_one(self, group: Group, member_id: str, instance_id: str | None, reason: str | None) -> Errors:
        if not member_id:  # administrative removal by group.instance.id
            current = group.static_members.get(instance_id) if instance_id is not None else None
            if current is None:
                return Errors.UNKNOWN_MEMBER_ID
            self._remove_current_member(group, group.members[current], reason)
            return Errors.NONE
        if member_id in group.pending_join:
            del group.pending_join[member_id]  # its expiry check now skips it
            self._event(group, "MemberRemoved", member_id, reason="leave_group")
            self._try_complete_join(group)
            self.log.pending_member_left(self.sim.now, group.group_id, member_id, reason)
            return Errors.NONE
        error = self._validate_member(group, member_id, instance_id)
        if error is not None:
            return error
        self._remove_current_member(group, group.members[member_id], reason)
        return Errors.NONE

    def _remove_current_member(self, group: Group, member: Member, reason: str | None) -> None:
        before, first = self.sim.now, self.log.member_left_before_rebalance
        if first:  # 2.x and 4.x log the leave before the rebalance it causes, 3.x after
            self.log.member_left(before, group.group_id, member.member_id, member.instance_id, reason,
                                 member.describe())
        why = "poll_timeout" if (reason or "").startswith(POLL_TIMEOUT_PREFIX) else "leave_group"
        self._remove_member_and_update_group(group, member, self.log.reason_leave_group(member.member_id, reason), why)
        self._cancel_session(member)
        if not first:
            self.log.member_left(before, group.group_id, member.member_id, member.instance_id, reason,
                                 member.describe())

    def _remove_member_and_update_group(self, group: Group, member: Member, log_reason: str, reason: str) -> None:
        """removeMemberAndUpdateGroup: a parked JoinGroup gets UNKNOWN_MEMBER_ID, then rebalance."""
        parked = member.awaiting_join
        if parked is not None:
            member.awaiting_join = None
            group.num_awaiting_join -= 1
            parked.member_id = ""
            parked._complete(Errors.UNKNOWN_MEMBER_ID)
        group.remove(member.member_id)
        self._cancel_session(member)
        self._event(group, "MemberRemoved", member.member_id, reason=reason)
        if member.awaiting_sync is not None:  # simplification: Kafka leaves it to the client's request timeout
            parked, member.awaiting_sync = member.awaiting_sync, None
            parked._complete(Errors.UNKNOWN_MEMBER_ID)
        if group.state in (STABLE, COMPLETING):
            self._maybe_prepare_rebalance(group, log_reason)
        elif group.state == PREPARING:
            self._try_complete_join(group)

    # -- group lifecycle ------------------------------------------------------------------------
    def delete_groups(self, group_ids: Iterable[str]) -> dict[str, Errors]:
        """DeleteGroups: only an Empty group can be deleted (Empty -> Dead)."""
        result = {}
        for group_id in group_ids:
            group = self.groups.get(group_id)
            if group is None or group.state == DEAD:
                result[group_id] = Errors.GROUP_ID_NOT_FOUND
            elif group.state != EMPTY:
                result[group_id] = Errors.NON_EMPTY_GROUP
            else:
                self._transition(group, DEAD)
                self._event(group, "GroupDead", reason="deleted")
                del self.groups[group_id]
                self.offsets.pop(group_id, None)
                result[group_id] = Errors.NONE
        return result

    def unload_group(self, group_id: str) -> None:
        """This broker stops coordinating the group (a failover): any state -> Dead, parked and later
        requests get NOT_COORDINATOR. The failover's other half, another broker loading the group, is
        not modelled: there is one coordinator."""
        group = self._release(group_id, Errors.NOT_COORDINATOR)
        self.offsets.pop(group_id, None)
        self._transition(group, DEAD)
        self._event(group, "GroupDead", reason="unloaded")
        self._unloaded.add(group_id)

    # -- conversions between protocols (KIP-848 online migration, `kafkasim.coordinator.migration`) --
    def release_group(self, group_id: str) -> Group:
        """Take a classic group out of this coordinator's hands, its parked JoinGroup and SyncGroup
        answered REBALANCE_IN_PROGRESS and its timers stopped (`convertToConsumerGroup`)."""
        return self._release(group_id, Errors.REBALANCE_IN_PROGRESS)

    @staticmethod
    def answer_parked(group: Group, error: Errors) -> None:
        """Answer the group's parked JoinGroup and SyncGroup with `error`
        (`completeAllJoinFutures`, `completeAllSyncFutures`)."""
        for member in group.members.values():
            parked = (member.awaiting_join, member.awaiting_sync)
            member.awaiting_join = member.awaiting_sync = None
            for resp in parked:
                if resp is not None:
                    resp._complete(error)

    def _release(self, group_id: str, error: Errors) -> Group:
        """Remove the group, stop its timers and answer its parked requests with `error`."""
        group = self.groups.pop(group_id)
        self.answer_parked(group, error)
        for timer in (group.join_timer, group.sync_timer):
            if timer is not None:
                timer.cancel()
        group.pending_join.clear()  # their expiry checks skip them
        for member in group.members.values():
            self._cancel_session(member)
        return group

    def adopt_group(self, group_id: str, generation_id: int, members: Iterable[Member],
                    rebalance_reason: str | None) -> Group:
        """A classic group made from a consumer group (`ClassicGroup.fromConsumerGroup`): Stable at
        `generation_id`, the first member its leader, the protocol by the classic vote, every
        member's session armed; then a rebalance for `rebalance_reason` (None: none)."""
        group = Group(group_id)
        for member in members:
            group.add(member, None)
        group.generation_id, group.state = generation_id, STABLE
        group.protocol_name = group.select_protocol()
        self.groups[group_id] = group
        for member in group.members.values():
            self._reset_session(group, member)
        if rebalance_reason is not None:
            self._prepare_rebalance(group, rebalance_reason)
        return group

    # -- queries ----------------------------------------------------------------------------
    def group_state(self, group_id: str) -> str | None:
        """The state of a classic group (None: no such group)."""
        group = self.groups.get(group_id)
        if group is None:
            return DEAD if group_id in self._unloaded else None
        return group.state

    def generation_id(self, group_id: str) -> int:
        return self._group(group_id).generation_id

    def member_ids(self, group_id: str) -> list[str]:
        return list(self._group(group_id).members)

    def leader_id(self, group_id: str) -> str | None:
        return self._group(group_id).leader_id

    def pending_member_ids(self, group_id: str) -> list[str]:
        return list(self._group(group_id).pending_join)

    def protocol_name(self, group_id: str) -> str | None:
        return self._group(group_id).protocol_name

    def member(self, group_id: str, member_id: str) -> Member:
        return self._group(group_id).members[member_id]

    def _group(self, group_id: str) -> Group:
        group = self.groups.get(group_id)
        if group is None:
            raise KeyError(f"unknown group {group_id!r}")
        return group


def _uuid4(bits: int) -> str:
    """`str(uuid.UUID(int=bits, version=4))`: the variant and version bits set as `uuid.UUID` sets them."""
    h = "%032x" % ((bits & ~(0xc000 << 48) | 0x8000 << 48) & ~(0xf000 << 64) | 4 << 76)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _or(value, default):
    return default if value is None else value
