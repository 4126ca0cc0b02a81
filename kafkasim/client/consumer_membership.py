"""The consumer under `group.protocol=consumer` (KIP-848): Kafka's `AsyncKafkaConsumer`, whose
background thread runs a membership manager and a heartbeat request manager, on the classic
consumer's poll loop, batches, commits and faults (`client.consumer.Consumer`).

Read from `clients/src/main/java/org/apache/kafka/clients/consumer/internals/` at the tags 4.0.0,
4.1.1 and 4.2.0-rc1: `MemberState.java`, `AbstractMembershipManager.java`,
`ConsumerMembershipManager.java`, `AbstractHeartbeatRequestManager.java`,
`ConsumerHeartbeatRequestManager.java`, and `AsyncKafkaConsumer.java` for `close()`:

- the client makes up its member id when it starts (a random `Uuid`, KIP-1082) and keeps it when
  it rejoins; only a new process (Restart) has a new one;
- a `ConsumerGroupHeartbeat` goes out every HeartbeatIntervalMs of the last response, counted
  from the send; at once, ignoring the interval, when joining, acknowledging a reconciliation or
  leaving (`AbstractMembershipManager.shouldHeartbeatNow`);
- a heartbeat carries only what changed since the last one (None, and -1 for the rebalance
  timeout: unchanged), everything when joining, and everything again after a failed heartbeat
  (`ConsumerHeartbeatRequestManager.HeartbeatState`); the rebalance timeout is max.poll.interval.ms;
- a new assignment is reconciled by the application thread's `poll()`: with auto-commit, commit
  the consumed positions; onPartitionsRevoked (only if something is revoked); onPartitionsAssigned
  (always, even with nothing); then ACKNOWLEDGING, and the next heartbeat, sent at once, reports
  the owned partitions (`AbstractMembershipManager.maybeReconcile`, `revokeAndAssign`); the
  coordinator grants a moving partition only after that acknowledgement of its previous owner;
- FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID: onPartitionsLost, then rejoin with epoch 0 and the
  same member id (`transitionToFenced`); at once when nothing was owned, else after the
  application thread ran the callback;
- no `poll()` for max.poll.interval.ms: leave with epoch -1 (-2 for a static member), go STALE;
  onPartitionsLost and rejoin happen in the next `poll()` (`AbstractHeartbeatRequestManager.poll`,
  `maybeRejoinStaleMember`); `close()` commits, calls onPartitionsRevoked (onPartitionsLost when
  not in the group) and leaves with -1, or -2 for a static member;
- other heartbeat errors are fatal (FATAL): `poll()` throws and the application stops. A static
  member that crashed and comes back before its session expired gets UNRELEASED_INSTANCE_ID,
  fatal too: only a member that left with -2 can be replaced (a graceful `Restart`).

Events (source "consumer", generation = the member epoch when > 0): the classic consumer's
(Started, StateChanged, Fetched, Processed, Commit, CommitFailed, PartitionsRevoked,
PartitionsAssigned, PartitionsLost, PollTimeout, Fatal, Closed, Crashed, ...), and
`MemberTransition` for each MemberState change (reason = the new state, value = the member epoch).

Simplified, and what it costs a learner:
- no network latency: a heartbeat is answered in the millisecond it is sent (no in-flight
  request blocking the next one); one coordinator, so never NOT_COORDINATOR;
- the application thread waiting in `poll()` runs pending callbacks at once (Kafka: at its next
  pass of the poll loop, within the poll timeout or the next heartbeat); callbacks take no time;
- a heartbeat lost to a network cut fails at once (Kafka: after request.timeout.ms or on
  disconnect); it is retried after retry.backoff.ms, doubling up to retry.backoff.max.ms, with
  no jitter;
- topics are names, the subscription is the scenario's topics for good (no topic ids, metadata
  resolution, regex or unsubscribe); no rack (4.1+ sends client.rack when joining); no
  `CloseOptions` (4.1, KIP-1092): close leaves as in 4.0.

May import: `kafkasim.core`, `kafkasim.client.consumer`.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from kafkasim.client.consumer import Consumer, World
from kafkasim.core.errors import Errors
from kafkasim.core.java import random_uuid

# Member states (`MemberState.java`), with the states each may be entered from.
UNSUBSCRIBED, JOINING, RECONCILING, ACKNOWLEDGING, STABLE = (
    "UNSUBSCRIBED", "JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE")
FENCED, PREPARE_LEAVING, LEAVING, FATAL, STALE = "FENCED", "PREPARE_LEAVING", "LEAVING", "FATAL", "STALE"
MEMBER_STATES = (UNSUBSCRIBED, JOINING, RECONCILING, ACKNOWLEDGING, STABLE, FENCED, PREPARE_LEAVING, LEAVING,
                 FATAL, STALE)
VALID_PREVIOUS: dict[str, frozenset[str]] = {
    STABLE: frozenset({JOINING, ACKNOWLEDGING, RECONCILING}),
    RECONCILING: frozenset({STABLE, JOINING, ACKNOWLEDGING, RECONCILING}),
    ACKNOWLEDGING: frozenset({RECONCILING}),
    FATAL: frozenset({JOINING, STABLE, RECONCILING, ACKNOWLEDGING, PREPARE_LEAVING, LEAVING, UNSUBSCRIBED}),
    FENCED: frozenset({JOINING, STABLE, RECONCILING, ACKNOWLEDGING, PREPARE_LEAVING, LEAVING}),
    JOINING: frozenset({FENCED, UNSUBSCRIBED, STALE}),
    PREPARE_LEAVING: frozenset({JOINING, STABLE, RECONCILING, ACKNOWLEDGING, UNSUBSCRIBED}),
    LEAVING: frozenset({PREPARE_LEAVING}),
    UNSUBSCRIBED: frozenset({PREPARE_LEAVING, LEAVING, FENCED}),
    STALE: frozenset({LEAVING}),
}
#: No heartbeat in these states (`shouldSkipHeartbeat`); they are also "not in the group".
SKIP_HEARTBEAT = frozenset({UNSUBSCRIBED, FATAL, STALE, FENCED})
#: States that take a new assignment from a response (`MemberState.canHandleNewAssignment`).
CAN_HANDLE_ASSIGNMENT = VALID_PREVIOUS[RECONCILING]

#: Member epochs of the request (`ConsumerGroupHeartbeatRequest`).
JOIN_EPOCH, LEAVE_EPOCH, STATIC_LEAVE_EPOCH = 0, -1, -2

#: Heartbeat errors retried after the backoff (`AbstractHeartbeatRequestManager.onErrorResponse`).
RETRIABLE = frozenset({Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS})
#: Heartbeat errors that make the member give up its partitions and rejoin.
REJOIN = frozenset({Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID})


class LocalAssignment(NamedTuple):
    """`AbstractMembershipManager.LocalAssignment`: partitions (the run's partition indexes) with a
    local epoch that grows with every different target, so that re-reconciling the same
    partitions is still acknowledged."""

    epoch: int
    partitions: frozenset


NO_ASSIGNMENT = LocalAssignment(-1, frozenset())


def random_member_id(rng: random.Random) -> str:
    """The member id the consumer makes for itself (RPC v1, 4.0+): a random Kafka `Uuid`."""
    return random_uuid(rng)


class HeartbeatState:
    """The fields last sent (`ConsumerHeartbeatRequestManager.HeartbeatState.SentFields`): a
    field goes out again only when it changed, or when joining, or after `reset()`."""

    __slots__ = ("rebalance_timeout_ms", "topics", "assignor", "assignment")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.rebalance_timeout_ms = -1
        self.topics: tuple[str, ...] | None = None
        self.assignor: str | None = None
        self.assignment: LocalAssignment | None = None

    def build(self, m: "MembershipManager") -> dict:
        """The request's fields (`buildRequestData`), as keyword arguments of
        `GroupCoordinator.consumer_group_heartbeat`."""
        joining = m.state == JOINING
        request: dict = {"member_id": m.member_id, "member_epoch": m.epoch, "instance_id": m.instance_id}
        if joining or self.rebalance_timeout_ms != m.rebalance_timeout_ms:
            request["rebalance_timeout_ms"] = self.rebalance_timeout_ms = m.rebalance_timeout_ms
        if joining or self.topics != m.topics:
            self.topics = m.topics
            request["subscribed_topic_names"] = list(m.topics)
        if m.server_assignor is not None and (joining or self.assignor != m.server_assignor):
            request["server_assignor"] = self.assignor = m.server_assignor
        if joining or self.assignment != m.current:
            self.assignment = m.current
            request["owned_partitions"] = m.by_topic(m.current.partitions)
        return request


class MembershipManager:
    """The background thread's side of one consumer process: its MemberState, member epoch,
    target and current assignments (`ConsumerMembershipManager`), and its heartbeats
    (`ConsumerHeartbeatRequestManager`). The application thread's side is `AsyncConsumer`."""

    def __init__(self, consumer: "AsyncConsumer", member_id: str):
        self.consumer = consumer
        self.sim = consumer.sim
        self.member_id = member_id
        self.instance_id: str | None = consumer.instance_id
        self.rebalance_timeout_ms: int = consumer.max_poll_ms
        self.topics: tuple[str, ...] = tuple(consumer.world.topics)
        self.server_assignor: str | None = consumer.config.get("group.remote.assignor")
        self.epoch = JOIN_EPOCH
        self.state = UNSUBSCRIBED
        self.current = self.target = NO_ASSIGNMENT
        self.interval_ms = 0                  # HeartbeatIntervalMs of the last response (0: none yet)
        self.backoff_ms = 0                   # the next retry backoff after a failed heartbeat
        self.sent = HeartbeatState()
        self.poll_timer_expired = False
        self.timer = None                     # the next heartbeat

    # -- state ------------------------------------------------------------------------------
    def transition(self, state: str) -> None:
        """`transitionTo`: only from the states MemberState allows (a bug otherwise)."""
        if state == self.state:
            return
        if self.state not in VALID_PREVIOUS[state]:
            raise AssertionError(f"Invalid state transition from {self.state} to {state}")
        if self.consumer.log is not None:
            self.consumer.log.transition(self.sim.now, self.member_id, self.epoch, self.state, state)
        self.state = state
        self.consumer._row("MemberTransition", reason=state, value=self.epoch)

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch
        self.consumer.generation = epoch if epoch > 0 else -1

    def by_topic(self, partitions: frozenset) -> dict[str, list[int]]:
        """Partition indexes as the request carries them: {topic: [partition, ...]}."""
        out: dict[str, list[int]] = {}
        for topic, p in sorted(self.consumer.parts.tps[i] for i in partitions):
            out.setdefault(topic, []).append(p)
        return out

    # -- joining, reconciling, leaving -----------------------------------------------------------
    def subscribe(self) -> None:
        """The first `poll()` after `subscribe()` (`onConsumerPoll`): join."""
        self.transition(JOINING)
        self.heartbeat_now()

    def rejoin(self) -> None:
        """`clearAssignment` then `transitionToJoining`: epoch 0, every field sent again, at once."""
        self.current = self.target = NO_ASSIGNMENT
        self.poll_timer_expired = False
        self.set_epoch(JOIN_EPOCH)
        self.transition(JOINING)
        self.heartbeat_now()

    def assignment_received(self, assignment: dict[str, list[int]]) -> None:
        """`processAssignmentReceived`: a different target means RECONCILING (on the next poll())."""
        index = self.consumer.parts.index
        partitions = frozenset(index[(t, p)] for t, ps in assignment.items() for p in ps if (t, p) in index)
        if self.target.epoch == NO_ASSIGNMENT.epoch or partitions != self.target.partitions:
            self.target = LocalAssignment(self.target.epoch + 1, partitions)
        if self.target != self.current:
            self.transition(RECONCILING)
            self.consumer.reconciliation_pending()
        elif self.state in (RECONCILING, JOINING):
            self.transition(STABLE)

    def reconciled(self, assignment: LocalAssignment) -> None:
        """The end of `revokeAndAssign`: the assignment is ours; acknowledge it at once."""
        self.current = assignment
        self.transition(ACKNOWLEDGING)
        self.heartbeat_now()

    def fenced(self) -> None:
        """`transitionToFenced`: epoch 0; the consumer releases its partitions (onPartitionsLost)
        and rejoins. A member already leaving just stops."""
        if self.state in (LEAVING, PREPARE_LEAVING):
            self.transition(UNSUBSCRIBED)
            return
        if self.state in SKIP_HEARTBEAT:
            return
        self.transition(FENCED)
        self.set_epoch(JOIN_EPOCH)
        self.consumer.on_fenced()

    def fatal(self, error: Errors) -> None:
        """`transitionToFatal`: no more heartbeats; the next poll() throws."""
        self.transition(FATAL)
        self.consumer.on_fatal(error)

    def leave(self, due_to_poll_timer: bool = False) -> None:
        """`transitionToSendingLeaveGroup` and the leave heartbeat, sent at once (its response is
        ignored): epoch -1, or -2 for a static member (`ConsumerMembershipManager.leaveGroupEpoch`)."""
        if self.state in (FATAL, UNSUBSCRIBED):
            return
        if due_to_poll_timer:  # nothing to release first: straight through PREPARE_LEAVING
            self.poll_timer_expired = True
            self.transition(PREPARE_LEAVING)
        self.set_epoch(STATIC_LEAVE_EPOCH if self.instance_id is not None else LEAVE_EPOCH)
        self.current = NO_ASSIGNMENT
        self.transition(LEAVING)
        self.stop()
        self.send()
        if due_to_poll_timer:
            self.backoff_ms = 0
            self.sent.reset()

    def leave_on_close(self) -> None:
        """`leaveGroupOnClose`: a member out of the group sends nothing (a fenced one unsubscribes)."""
        if self.state == FENCED:
            self.current = self.target = NO_ASSIGNMENT
            self.transition(UNSUBSCRIBED)
        elif self.state not in SKIP_HEARTBEAT:
            self.transition(PREPARE_LEAVING)
            self.leave()

    # -- heartbeats ------------------------------------------------------------------------------
    def heartbeat_now(self) -> None:
        self._arm(self.sim.now)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _arm(self, at: int) -> None:
        """One pending heartbeat, the earliest asked for."""
        timer = self.timer
        if timer is not None and timer.active:
            if timer.time <= at:
                return
            timer.cancel()
        self.timer = self.sim.at(at, self._tick, self.consumer.incarnation)

    def _tick(self, incarnation: int) -> None:
        consumer = self.consumer
        if incarnation != consumer.incarnation or consumer.membership is not self or not consumer.alive:
            return
        now = self.sim.now
        if now < consumer.frozen_until:  # the background thread is frozen too
            self.timer = self.sim.at(consumer.frozen_until, self._tick, incarnation)
            return
        self.timer = None
        if self.state in SKIP_HEARTBEAT:
            return
        self.send()
        if self.state not in SKIP_HEARTBEAT and consumer.alive and self.interval_ms > 0:
            self._arm(now + self.interval_ms)  # the timer restarts when a request is sent

    def send(self) -> None:
        """Build, send, and handle the answer (at the same millisecond)."""
        consumer = self.consumer
        request = self.sent.build(self)
        leaving = self.state == LEAVING
        self.on_request_generated()
        if self.sim.now < consumer.cut_until:  # lost on the wire
            if not leaving:  # a leave is sent once, never retried
                self._failed_attempt()
            return
        response = consumer.coord.consumer_group_heartbeat(consumer.group_id, **request)
        if not leaving:
            self.on_response(response)

    def on_request_generated(self) -> None:
        """`onHeartbeatRequestGenerated`: the acknowledgement is out (STABLE, or RECONCILING if a
        newer target waits); a leave is out (UNSUBSCRIBED, or STALE after a poll timeout)."""
        if self.state == ACKNOWLEDGING:
            if self.target == self.current:
                self.transition(STABLE)
            else:
                self.transition(RECONCILING)
                self.consumer.reconciliation_pending()
        elif self.state == LEAVING:
            if self.poll_timer_expired:  # onPartitionsLost waits for the next poll(), which rejoins
                self.transition(STALE)
            else:
                self.transition(UNSUBSCRIBED)

    def on_response(self, response) -> None:
        if response.error is Errors.NONE:
            self.backoff_ms = 0
            self.interval_ms = response.heartbeat_interval_ms
            self.on_success(response)
            return
        error = response.error
        if error in RETRIABLE:
            self._failed_attempt()
        elif error in REJOIN:
            if self.consumer.log is not None:
                self.consumer.log.heartbeat_fenced(self.sim.now, error.name, self.member_id, self.epoch,
                                                   self._next_backoff(), response.error_message or error.message)
            self.sent.reset()
            self.backoff_ms = 0  # no backoff: the rejoin goes out as soon as the partitions are released
            self.fenced()
        else:
            if self.consumer.log is not None:
                self.consumer.log.heartbeat_fatal(self.sim.now, error.name, response.error_message or error.message)
            self.sent.reset()
            self.fatal(error)

    def on_success(self, response) -> None:
        """`ConsumerMembershipManager.onHeartbeatSuccess`."""
        if self.state in SKIP_HEARTBEAT or self.state == LEAVING:
            return
        self.set_epoch(response.member_epoch)
        if response.assignment is not None and self.state in CAN_HANDLE_ASSIGNMENT:
            self.assignment_received(response.assignment)

    def _next_backoff(self) -> int:
        """retry.backoff.ms, doubling after each failure up to retry.backoff.max.ms (no jitter)."""
        config = self.consumer.config
        low = config.get("retry.backoff.ms") or 100
        high = max(low, config.get("retry.backoff.max.ms") or 1000)
        return min(high, self.backoff_ms * 2) if self.backoff_ms else low

    def _failed_attempt(self) -> None:
        """`HeartbeatRequestState.onFailedAttempt`: send everything next time, after the backoff."""
        self.backoff_ms = self._next_backoff()
        self.sent.reset()
        self._arm(self.sim.now + self.backoff_ms)


class AsyncConsumer(Consumer):
    """A `KafkaConsumer` with group.protocol=consumer (`AsyncKafkaConsumer`): the classic
    consumer's application thread (poll loop, batches, commits, crash, freeze, stall, network
    cut, close), with group membership through `MembershipManager` instead of JoinGroup/SyncGroup.
    `poll()` never blocks on a rebalance: the member keeps consuming what it owns while it
    reconciles."""

    membership: MembershipManager

    def __init__(self, world: World, name: str, config: dict, start_ms: int = 0):
        super().__init__(world, name, config, start_ms)  # max.poll.interval.ms is also the rebalance timeout
        self._ids = self.sim.random(f"member-id/{name}")

    def _reset_process_state(self) -> None:
        super()._reset_process_state()
        self.membership = MembershipManager(self, "")

    def start(self) -> None:
        super().start()
        self.member_id = self.membership.member_id = random_member_id(self._ids)
        self.world.member_names[self.member_id] = self.name

    def _stop(self, state: str) -> None:
        super()._stop(state)
        self.membership.stop()

    # -- the application thread ------------------------------------------------------------------
    def _poll(self) -> None:
        """`poll()`: reset the poll timer; join, rejoin or reconcile first; then fetch."""
        if not self._poll_starts():
            return
        now = self.sim.now
        m = self.membership
        if m.state == STALE and self.log is not None:  # resetPollTimer finds the timer expired
            self.log.stale_rejoin(now, m.member_id, now - self.last_poll - self.max_poll_ms)
        self.last_poll = now
        self._arm_poll_timer()
        if m.state == UNSUBSCRIBED:
            m.subscribe()
        elif m.state in (FENCED, STALE):
            self._rejoin()
        elif m.state == RECONCILING:
            self._reconcile()
        if m.current.epoch == NO_ASSIGNMENT.epoch:  # nothing reconciled since (re)joining: no records yet
            self._set_app_state("joining")
            self.idle = True
            return
        if self.auto_commit and now >= self.next_auto_commit and self.owned:
            self._commit(sync=False)
            self.next_auto_commit = now + self.auto_commit_ms
        self._fetch_and_process()

    def reconciliation_pending(self) -> None:
        """A callback waits for the application thread: a thread waiting in poll() runs it now."""
        self._wake()

    def _reconcile(self) -> None:
        """`maybeReconcile` + `revokeAndAssign`, in Kafka's order."""
        m = self.membership
        target = m.target
        if target == m.current:
            return
        if m.current.epoch != NO_ASSIGNMENT.epoch and target.partitions == m.current.partitions:
            m.reconciled(target)  # same partitions, newer local epoch: acknowledge without callbacks
            return
        if self.auto_commit and self.owned:
            self._commit(sync=True)  # maybeAutoCommitSyncBeforeRebalance; a failure does not stop it
        tps = self.parts.tps
        if self.log is not None:
            self.log.reconciling(self.sim.now, target.epoch, m.member_id, [tps[i] for i in target.partitions],
                                 [tps[i] for i in self.owned])
        revoked = sorted((i for i in self.owned if i not in target.partitions), key=tps.__getitem__)
        if revoked:
            self._revoke(revoked, "PartitionsRevoked", "rebalance")
        self._assign(sorted((i for i in target.partitions if i not in self.owned), key=tps.__getitem__))
        self.next_auto_commit = self.sim.now + self.auto_commit_ms  # resetAutoCommitTimer
        self.lost_reason = None
        m.reconciled(target)
        self._set_app_state("consuming")

    def _rejoin(self) -> None:
        """After fencing or a poll timeout: onPartitionsLost for what is still owned, then join."""
        if self.owned:
            lost = sorted(self.owned, key=self.parts.tps.__getitem__)
            self._revoke(lost, "PartitionsLost", self.lost_reason or "rebalance")
        self.lost_reason = None
        self.membership.rejoin()
        self._set_app_state("joining")

    def on_fenced(self) -> None:
        self.lost_reason = self.coord.consumer_groups.removal_reason.get(self.member_id, "fenced")
        self._set_app_state("removed")
        if self.owned:
            self._wake()  # onPartitionsLost runs on the application thread, then the member rejoins
        else:
            self.membership.rejoin()

    def on_fatal(self, error: Errors) -> None:
        self._fatal(error)

    # -- liveness: the poll timer ---------------------------------------------------------------
    def _arm_poll_timer(self) -> None:
        if self.poll_timer is None or not self.poll_timer.active:
            self.poll_timer = self.sim.at(self.sim.now + self.max_poll_ms, self._poll_timer_fired, self.incarnation)

    def _poll_timer_fired(self, incarnation: int) -> None:
        """The background thread finds poll() not called for max.poll.interval.ms: leave (-1 or -2)."""
        if incarnation != self.incarnation or not self.alive:
            return
        now = self.sim.now
        if now < self.frozen_until:
            self.poll_timer = self.sim.at(self.frozen_until, self._poll_timer_fired, incarnation)
            return
        self.poll_timer = None
        deadline = now + self.max_poll_ms if self.idle else self.last_poll + self.max_poll_ms
        if now < deadline:  # waiting inside poll() resets the timer on every pass of its loop
            self.poll_timer = self.sim.at(deadline, self._poll_timer_fired, incarnation)
            return
        m = self.membership
        if m.state in SKIP_HEARTBEAT or m.state in (PREPARE_LEAVING, LEAVING):
            return  # not checked while out of the group; the next poll() re-arms it
        self._row("PollTimeout", reason="poll_timeout", value=now - self.last_poll)
        if self.log is not None:
            self.log.poll_timeout(now, m.member_id, True, now - deadline, self.max_poll_ms)
        self.lost_reason = "poll_timeout"
        m.leave(due_to_poll_timer=True)
        if self.batch is None:
            self._set_app_state("removed")

    # -- commits --------------------------------------------------------------------------------
    def _commit(self, sync: bool) -> None:
        """OffsetCommit with the member epoch (v9+); a member out of the group sends -1."""
        if not self.owned:
            return
        tps = self.parts.tps
        offsets = {tps[i]: pos for i, pos in self.owned.items()}
        m = self.membership
        if self.sim.now < self.cut_until:
            error = Errors.REQUEST_TIMED_OUT
        else:
            in_group = m.epoch > 0
            error = self.coord.commit_offsets(self.group_id, m.member_id if in_group else "",
                                              m.epoch if in_group else -1, offsets, self.instance_id).error
        if error is Errors.NONE:
            self._row("Commit", value=len(offsets))
            return
        self._row("CommitFailed", error=error.name, reason="CommitFailedException" if sync else
                  "auto-commit failed (logged)", value=len(offsets))

    # -- shutdown -------------------------------------------------------------------------------
    def _close_now(self) -> None:
        """`AsyncKafkaConsumer.close` (once the batch in progress is done, as `close` waits for):
        commit, onPartitionsRevoked (onPartitionsLost when not in the group), then the leave
        heartbeat."""
        m = self.membership
        if self.owned:
            if self.auto_commit:
                self._commit(sync=True)
            kind = "PartitionsRevoked" if m.epoch > 0 else "PartitionsLost"
            self._revoke(sorted(self.owned, key=self.parts.tps.__getitem__), kind, "closed")
        m.leave_on_close()
        self._row("Closed")
        self._stop("stopped")

    def loss_cause(self) -> str:
        """Why this member lost partitions it still believes it owns (read when they are handed over)."""
        return self.lost_reason or self.coord.consumer_groups.removal_reason.get(self.member_id) or "rebalance"


def consumer_class(config: dict) -> type[Consumer]:
    """The implementation `KafkaConsumer` delegates to (`ConsumerDelegateCreator`): the
    `AsyncKafkaConsumer` for group.protocol=consumer, else the classic one."""
    return AsyncConsumer if config.get("group.protocol") == "consumer" else Consumer


__all__ = ["AsyncConsumer", "MembershipManager", "HeartbeatState", "LocalAssignment", "MEMBER_STATES",
           "VALID_PREVIOUS", "consumer_class", "random_member_id"]
