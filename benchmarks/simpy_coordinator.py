"""The join-storm scenario's group coordinator, written the way a SimPy user would.

This is the baseline for ``benchmarks/join_storm.py``. It models the part of Kafka's
classic group coordinator that the scenario exercises, following Kafka's
``GroupCoordinator.scala`` and ``InitialDelayedJoin``, on a plain :class:`simpy.Environment`:

- two-step dynamic join (KIP-394): an empty member id gets MEMBER_ID_REQUIRED (79) and a
  pending id with a pending-member timer of session.timeout.ms; the second JoinGroup
  adds the member (new-member join timeout 300000 ms) and is parked;
- the initial delayed join (KIP-134): group.initial.rebalance.delay.ms with the
  ``newMemberAdded`` extension rule, never completed early;
- join completion: generation + 1, leader, protocol vote, every parked JoinGroup
  answered (the leader with the member list), session timers reset, pending-sync timer;
- SyncGroup: followers park until the leader's assignment arrives, then Stable;
- Heartbeat: validated by member id and generation; resets the member's session timer;
- session expiry removes a member that is not "satisfied" and triggers a rebalance.

Requests that are answered at once return the response; a parked request returns a
SimPy event that the member process yields. The coordinator counts the protocol events
it handles (requests and timer firings) in :attr:`SimpyCoordinator.stats`.

Three ways to keep a per-member session timer are offered (``session_mode``):

``"rearm"`` (default)
    each reset drops the callback of the member's pending ``Timeout`` and schedules a
    new one; the stale timeout still passes through the heap, doing nothing.
``"interrupt"``
    the textbook shape: one watchdog process per member, ``yield env.timeout(session)``,
    interrupted (``process.interrupt()``) on every reset.
``"deadline"``
    the member stores a deadline; one ``Timeout`` per member is pending at a time and,
    when it fires, either expires the member or re-arms itself for the stored deadline
    (the same trick the kafkasim engine guide recommends). Its firings are counted as
    timer events because the coordinator processes each one.
"""

from __future__ import annotations

import random
import uuid

import simpy
from simpy.events import Event, Interrupt, Timeout

# Kafka error codes (org.apache.kafka.common.protocol.Errors).
NONE = 0
COORDINATOR_NOT_AVAILABLE = 15
ILLEGAL_GENERATION = 22
INCONSISTENT_GROUP_PROTOCOL = 23
UNKNOWN_MEMBER_ID = 25
INVALID_SESSION_TIMEOUT = 26
REBALANCE_IN_PROGRESS = 27
MEMBER_ID_REQUIRED = 79

# Group states.
EMPTY = "Empty"
PREPARING_REBALANCE = "PreparingRebalance"
COMPLETING_REBALANCE = "CompletingRebalance"
STABLE = "Stable"
DEAD = "Dead"

NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000  # hard-coded in Kafka
GROUP_MIN_SESSION_TIMEOUT_MS = 6_000
GROUP_MAX_SESSION_TIMEOUT_MS = 1_800_000

SESSION_MODES = ("rearm", "interrupt", "deadline")


class JoinResponse:
    __slots__ = ("error", "member_id", "generation_id", "protocol_type", "protocol_name",
                 "leader_id", "members")

    def __init__(self, error, member_id, generation_id=-1, protocol_type=None,
                 protocol_name=None, leader_id="", members=()):
        self.error = error
        self.member_id = member_id
        self.generation_id = generation_id
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.leader_id = leader_id
        self.members = members


class SyncResponse:
    __slots__ = ("error", "assignment")

    def __init__(self, error, assignment=b""):
        self.error = error
        self.assignment = assignment


class Member:
    __slots__ = ("group", "member_id", "client_id", "group_instance_id", "session_timeout_ms",
                 "rebalance_timeout_ms", "protocol_type", "protocols", "assignment",
                 "awaiting_join", "awaiting_sync", "is_new", "timer", "timer_at",
                 "deadline", "watchdog")

    def __init__(self, group, member_id, client_id, group_instance_id, session_timeout_ms,
                 rebalance_timeout_ms, protocol_type, protocols):
        self.group = group
        self.member_id = member_id
        self.client_id = client_id
        self.group_instance_id = group_instance_id
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.protocol_type = protocol_type
        self.protocols = protocols
        self.assignment = b""
        self.awaiting_join = None  # simpy Event of a parked JoinGroup
        self.awaiting_sync = None  # simpy Event of a parked SyncGroup
        self.is_new = False
        self.timer = None  # pending Timeout (rearm / deadline modes)
        self.timer_at = 0  # deadline mode: when that Timeout fires
        self.deadline = 0  # deadline mode
        self.watchdog = None  # interrupt mode: the watchdog process


class Group:
    __slots__ = ("group_id", "state", "previous_state", "generation_id", "protocol_type",
                 "protocol_name", "leader_id", "members", "pending_join_members",
                 "pending_sync_members", "num_members_awaiting_join", "new_member_added",
                 "join_timer", "sync_timer", "pending_timers")

    def __init__(self, group_id):
        self.group_id = group_id
        self.state = EMPTY
        self.previous_state = EMPTY
        self.generation_id = 0
        self.protocol_type = None
        self.protocol_name = None
        self.leader_id = None
        self.members = {}
        self.pending_join_members = set()
        self.pending_sync_members = set()
        self.num_members_awaiting_join = 0
        self.new_member_added = False
        self.join_timer = None
        self.sync_timer = None
        self.pending_timers = {}  # pending member id -> Timeout

    def transition_to(self, state):
        self.previous_state = self.state
        self.state = state

    def rebalance_timeout_ms(self):
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)


def _cancel(timeout):
    """Cancel a pending SimPy timeout: drop its callbacks (it still leaves the heap)."""
    if timeout is not None and timeout.callbacks:
        timeout.callbacks.clear()


class SimpyCoordinator:
    """Classic group coordinator on a SimPy environment (the join-storm subset)."""

    def __init__(self, env, *, initial_rebalance_delay_ms=3000, session_mode="rearm",
                 seed=0):
        if session_mode not in SESSION_MODES:
            raise ValueError(f"session_mode must be one of {SESSION_MODES}")
        self.env = env
        self.initial_rebalance_delay_ms = initial_rebalance_delay_ms
        self.session_mode = session_mode
        self.groups = {}
        self._rng = random.Random(seed)
        self.stats = {"join_group": 0, "sync_group": 0, "heartbeat": 0,
                      "join_timer": 0, "sync_timer": 0, "session_timer": 0,
                      "pending_member_timer": 0, "expired": 0, "rebalances": 0}
        self.on_stable = None  # optional simpy Event, succeeded when a group goes Stable

    # -- timers ------------------------------------------------------------------------
    def _timer(self, delay, callback, arg):
        # The timer's argument travels as the Timeout's value (no per-event closure).
        t = Timeout(self.env, delay, arg)
        t.callbacks.append(callback)
        return t

    def _reset_session(self, group, member, timeout_ms):
        """(Re)arm the member's heartbeat/session timer to now + timeout_ms."""
        mode = self.session_mode
        if mode == "rearm":
            t = member.timer
            if t is not None and t.callbacks:
                t.callbacks.clear()
            member.timer = self._timer(timeout_ms, self._on_session_timer, member)
        elif mode == "deadline":
            now = self.env.now
            deadline = member.deadline = now + timeout_ms
            t = member.timer
            if t is not None and t.callbacks:
                if member.timer_at <= deadline:
                    return  # the armed check fires first and re-arms for the deadline
                t.callbacks.clear()  # the deadline moved earlier: arm a new check
            member.timer_at = deadline
            member.timer = self._timer(timeout_ms, self._on_session_deadline, member)
        else:  # interrupt: the watchdog sleeps for member.deadline (a duration here)
            member.deadline = timeout_ms
            w = member.watchdog
            if w is None or not w.is_alive:
                member.watchdog = self.env.process(self._watchdog(group, member))
            else:
                w.interrupt()

    def _stop_session(self, member):
        _cancel(member.timer)
        member.timer = None
        w = member.watchdog
        if w is not None and w.is_alive:
            member.watchdog = None
            w.interrupt("stop")

    def _on_session_timer(self, event):
        self.stats["session_timer"] += 1
        member = event.value
        self._expire_member(member.group, member)

    def _on_session_deadline(self, event):
        self.stats["session_timer"] += 1
        member = event.value
        now = self.env.now
        if now < member.deadline:
            member.timer_at = member.deadline
            member.timer = self._timer(member.deadline - now, self._on_session_deadline,
                                       member)
        else:
            member.timer = None
            self._expire_member(member.group, member)

    def _watchdog(self, group, member):
        timeout = self.env.timeout
        while True:
            try:
                yield timeout(member.deadline)
            except Interrupt as stop:
                if stop.cause == "stop":
                    return
                continue
            self.stats["session_timer"] += 1
            member.watchdog = None
            self._expire_member(group, member)
            return

    # -- JoinGroup ---------------------------------------------------------------------
    def join_group(self, group_id, member_id, client_id, group_instance_id,
                   session_timeout_ms, rebalance_timeout_ms, protocol_type, protocols,
                   require_known_member_id=True):
        self.stats["join_group"] += 1
        if not (GROUP_MIN_SESSION_TIMEOUT_MS <= session_timeout_ms
                <= GROUP_MAX_SESSION_TIMEOUT_MS):
            return JoinResponse(INVALID_SESSION_TIMEOUT, member_id)
        group = self.groups.get(group_id)
        if group is None:
            if member_id:
                return JoinResponse(UNKNOWN_MEMBER_ID, member_id)
            group = self.groups[group_id] = Group(group_id)
        if group.state == DEAD:
            return JoinResponse(COORDINATOR_NOT_AVAILABLE, member_id)
        if group.protocol_type is not None and group.protocol_type != protocol_type:
            return JoinResponse(INCONSISTENT_GROUP_PROTOCOL, member_id)
        if not member_id:
            # KIP-394: hand out an id and ask the client to come back with it.
            new_id = f"{client_id}-{uuid.UUID(int=self._rng.getrandbits(128), version=4)}"
            if require_known_member_id:
                group.pending_join_members.add(new_id)
                group.pending_timers[new_id] = self._timer(
                    session_timeout_ms, self._on_pending_timer, (group, new_id))
                return JoinResponse(MEMBER_ID_REQUIRED, new_id)
            return self._add_member_and_rebalance(
                group, new_id, client_id, group_instance_id, session_timeout_ms,
                rebalance_timeout_ms, protocol_type, protocols)
        if member_id in group.pending_join_members:
            group.pending_join_members.discard(member_id)
            _cancel(group.pending_timers.pop(member_id, None))
            return self._add_member_and_rebalance(
                group, member_id, client_id, group_instance_id, session_timeout_ms,
                rebalance_timeout_ms, protocol_type, protocols)
        member = group.members.get(member_id)
        if member is None:
            return JoinResponse(UNKNOWN_MEMBER_ID, member_id)
        return self._update_member_and_rebalance(group, member, protocols)

    def _on_pending_timer(self, event):
        self.stats["pending_member_timer"] += 1
        group, member_id = event.value
        group.pending_timers.pop(member_id, None)
        if member_id in group.pending_join_members:
            group.pending_join_members.discard(member_id)
            self._maybe_complete_join(group)

    def _add_member_and_rebalance(self, group, member_id, client_id, group_instance_id,
                                  session_timeout_ms, rebalance_timeout_ms, protocol_type,
                                  protocols):
        member = Member(group, member_id, client_id, group_instance_id, session_timeout_ms,
                        rebalance_timeout_ms, protocol_type, protocols)
        member.is_new = True
        if group.state == PREPARING_REBALANCE and group.previous_state == EMPTY:
            group.new_member_added = True
        if not group.members:
            group.protocol_type = protocol_type
        group.members[member_id] = member
        if group.leader_id is None:
            group.leader_id = member_id
        event = member.awaiting_join = Event(self.env)
        group.num_members_awaiting_join += 1
        self._reset_session(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS)
        self._maybe_prepare_rebalance(group)
        return event

    def _update_member_and_rebalance(self, group, member, protocols):
        member.protocols = protocols
        if member.awaiting_join is None:
            member.awaiting_join = Event(self.env)
            group.num_members_awaiting_join += 1
        event = member.awaiting_join
        if group.state in (STABLE, COMPLETING_REBALANCE, EMPTY):
            self._prepare_rebalance(group)
        else:
            self._maybe_complete_join(group)
        return event

    def _maybe_prepare_rebalance(self, group):
        if group.state in (STABLE, COMPLETING_REBALANCE, EMPTY):
            self._prepare_rebalance(group)
        else:
            self._maybe_complete_join(group)

    def _prepare_rebalance(self, group):
        self.stats["rebalances"] += 1
        if group.state == COMPLETING_REBALANCE:
            for m in group.members.values():
                m.assignment = b""
                if m.awaiting_sync is not None:
                    ev, m.awaiting_sync = m.awaiting_sync, None
                    ev.succeed(SyncResponse(REBALANCE_IN_PROGRESS))
                    self._reset_session(group, m, m.session_timeout_ms)
        _cancel(group.sync_timer)
        group.sync_timer = None
        group.pending_sync_members.clear()
        if group.state == EMPTY:
            delay = self.initial_rebalance_delay_ms
            remaining = max(group.rebalance_timeout_ms() - delay, 0)
            group.join_timer = self._timer(delay, self._on_initial_join_timer,
                                           (group, delay, remaining))
        else:
            group.join_timer = self._timer(group.rebalance_timeout_ms(),
                                           self._on_join_timer, group)
        group.transition_to(PREPARING_REBALANCE)

    def _on_initial_join_timer(self, event):
        self.stats["join_timer"] += 1
        group, delay, remaining = event.value
        if group.new_member_added and remaining != 0:
            group.new_member_added = False
            d = min(self.initial_rebalance_delay_ms, remaining)
            group.join_timer = self._timer(
                d, self._on_initial_join_timer, (group, d, max(remaining - delay, 0)))
        else:
            group.join_timer = None
            self._complete_join(group)

    def _on_join_timer(self, event):
        self.stats["join_timer"] += 1
        event.value.join_timer = None
        self._complete_join(event.value)

    def _maybe_complete_join(self, group):
        if (group.state == PREPARING_REBALANCE
                and group.previous_state != EMPTY  # initial rebalance never completes early
                and group.num_members_awaiting_join == len(group.members)
                and not group.pending_join_members):
            _cancel(group.join_timer)
            group.join_timer = None
            self._complete_join(group)

    def _complete_join(self, group):
        members = group.members
        for m in [m for m in members.values()
                  if m.awaiting_join is None and m.group_instance_id is None]:
            self._remove_member(group, m)
        if group.state == DEAD:
            return
        if group.leader_id not in members or members[group.leader_id].awaiting_join is None:
            group.leader_id = next((mid for mid, m in members.items()
                                    if m.awaiting_join is not None), None)
            if group.leader_id is None and members:
                group.join_timer = self._timer(group.rebalance_timeout_ms(),
                                               self._on_join_timer, group)
                return
        group.generation_id += 1
        if not members:
            group.protocol_name = None
            group.transition_to(EMPTY)
            return
        group.protocol_name = self._select_protocol(group)
        group.transition_to(COMPLETING_REBALANCE)
        group.pending_sync_members.clear()
        name = group.protocol_name
        leader_id = group.leader_id
        generation = group.generation_id
        ptype = group.protocol_type
        member_list = [(m.member_id, m.group_instance_id, dict(m.protocols).get(name, b""))
                       for m in members.values()]
        leader = members[leader_id]
        # Answer the leader first, then the followers, in join order.
        order = [leader] + [m for m in members.values() if m is not leader]
        reset = self._reset_session
        for m in order:
            ev = m.awaiting_join
            if ev is not None:
                m.awaiting_join = None
                ev.succeed(JoinResponse(NONE, m.member_id, generation, ptype, name,
                                        leader_id,
                                        member_list if m is leader else ()))
            reset(group, m, m.session_timeout_ms)
            m.is_new = False
        group.num_members_awaiting_join = 0
        group.pending_sync_members.update(members)
        group.sync_timer = self._timer(group.rebalance_timeout_ms(), self._on_sync_timer,
                                       (group, generation))

    @staticmethod
    def _select_protocol(group):
        candidates = None
        for m in group.members.values():
            names = {name for name, _ in m.protocols}
            candidates = names if candidates is None else candidates & names
        votes = {}
        for m in group.members.values():
            for name, _ in m.protocols:
                if name in candidates:
                    votes[name] = votes.get(name, 0) + 1
                    break
        return max(votes, key=votes.get)

    def _remove_member(self, group, member):
        del group.members[member.member_id]
        group.pending_sync_members.discard(member.member_id)
        self._stop_session(member)
        if member.awaiting_join is not None:
            ev, member.awaiting_join = member.awaiting_join, None
            group.num_members_awaiting_join -= 1
            ev.succeed(JoinResponse(UNKNOWN_MEMBER_ID, member.member_id))
        if group.leader_id == member.member_id:
            group.leader_id = next(iter(group.members), None)

    def _on_sync_timer(self, event):
        self.stats["sync_timer"] += 1
        group, generation = event.value
        group.sync_timer = None
        if (generation == group.generation_id
                and group.state in (COMPLETING_REBALANCE, STABLE)
                and group.pending_sync_members):
            for mid in list(group.pending_sync_members):
                self._remove_member(group, group.members[mid])
            if group.state in (STABLE, COMPLETING_REBALANCE):
                self._prepare_rebalance(group)

    def _expire_member(self, group, member):
        if group.state == DEAD or group.members.get(member.member_id) is not member:
            return
        if not member.is_new and (member.awaiting_join is not None
                                  or member.awaiting_sync is not None):
            return  # "satisfied": re-armed at join completion or sync propagation
        self.stats["expired"] += 1
        self._remove_member(group, member)
        if group.state in (STABLE, COMPLETING_REBALANCE):
            self._prepare_rebalance(group)
        elif group.state == PREPARING_REBALANCE:
            self._maybe_complete_join(group)

    # -- SyncGroup ---------------------------------------------------------------------
    def sync_group(self, group_id, member_id, generation_id, assignments=None):
        self.stats["sync_group"] += 1
        group = self.groups.get(group_id)
        if group is None:
            return SyncResponse(UNKNOWN_MEMBER_ID)
        if group.state == DEAD:
            return SyncResponse(COORDINATOR_NOT_AVAILABLE)
        member = group.members.get(member_id)
        if member is None:
            return SyncResponse(UNKNOWN_MEMBER_ID)
        if generation_id != group.generation_id:
            return SyncResponse(ILLEGAL_GENERATION)
        state = group.state
        if state == STABLE:
            group.pending_sync_members.discard(member_id)
            return SyncResponse(NONE, member.assignment)
        if state == PREPARING_REBALANCE:
            return SyncResponse(REBALANCE_IN_PROGRESS)
        if state == EMPTY:
            return SyncResponse(UNKNOWN_MEMBER_ID)
        # CompletingRebalance. Followers park until the leader's assignment arrives.
        pending = group.pending_sync_members
        pending.discard(member_id)
        if not pending:
            _cancel(group.sync_timer)
            group.sync_timer = None
        if member_id != group.leader_id:
            event = member.awaiting_sync = Event(self.env)
            return event
        # The leader: store the assignment (persisted at once here), answer every parked
        # follower, and go Stable. The leader's own response is returned directly.
        assignments = assignments or {}
        reset = self._reset_session
        for mid, m in group.members.items():
            m.assignment = assignments.get(mid, b"")
            ev = m.awaiting_sync
            if ev is not None:
                m.awaiting_sync = None
                ev.succeed(SyncResponse(NONE, m.assignment))
                reset(group, m, m.session_timeout_ms)
        reset(group, member, member.session_timeout_ms)
        group.transition_to(STABLE)
        if self.on_stable is not None and not self.on_stable.triggered:
            self.on_stable.succeed(self.env.now)
        return SyncResponse(NONE, member.assignment)

    # -- Heartbeat ---------------------------------------------------------------------
    def heartbeat(self, group_id, member_id, generation_id):
        self.stats["heartbeat"] += 1
        group = self.groups.get(group_id)
        if group is None:
            return UNKNOWN_MEMBER_ID
        if group.state == DEAD:
            return COORDINATOR_NOT_AVAILABLE
        member = group.members.get(member_id)
        if member is None:
            return UNKNOWN_MEMBER_ID
        if generation_id != group.generation_id:
            return ILLEGAL_GENERATION
        state = group.state
        if state == EMPTY:
            return UNKNOWN_MEMBER_ID
        self._reset_session(group, member, member.session_timeout_ms)
        if state == PREPARING_REBALANCE:
            return REBALANCE_IN_PROGRESS
        return NONE

    # -- queries -----------------------------------------------------------------------
    def group_state(self, group_id):
        return self.groups[group_id].state

    def generation_id(self, group_id):
        return self.groups[group_id].generation_id

    def member_ids(self, group_id):
        return list(self.groups[group_id].members)


def new_environment():
    return simpy.Environment()
