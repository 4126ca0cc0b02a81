"""The Java KafkaConsumer in a group: the poll loop, liveness before and after KIP-62,
eager and cooperative rebalancing, commits, and static membership.

Read from `AbstractCoordinator.java`, `ConsumerCoordinator.java`, `Heartbeat.java` and
`KafkaConsumer.java` at the release tags:

- before 0.10.1 a heartbeat is sent only from inside `poll()`/`commitSync()`, and the JoinGroup
  rebalance timeout is the session timeout;
- from 0.10.1 (KIP-62) a background thread heartbeats every `heartbeat.interval.ms` and, when
  `poll()` has not been called for `max.poll.interval.ms`, sends LeaveGroup (dynamic members only)
  and stops; the next `poll()` rejoins as a new member and its partitions are "lost";
- eager rebalancing revokes everything before JoinGroup; cooperative (KIP-429, 2.4+) revokes
  only what moves, and needs a second rebalance to hand it over.

Simplifications, stated so chapters can say them too: requests reach the coordinator with no
network delay (responses are delivered as separate events at the same millisecond); while a
consumer keeps up, records gather for `poll_resolution_ms` between polls (a real consumer polls
far more often: latency is known to that resolution, nothing else changes); a fetch returns
records from owned partitions in turn, without fetch-size limits; the rebalance listener commits
nothing itself; JoinGroup/SyncGroup lost to a network cut are retried when the cut ends.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from kafkasim.client.assignors import Subscription, assign, owned_partitions, rebalance_protocols, sticky_user_data
from kafkasim.client.client_log import POLL_TIMEOUT_TEXT, ClientLog
from kafkasim.core.config import normalize_version
from kafkasim.core.embedded_protocol import decode, encode
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import Errors
from kafkasim.core.java import INT_MAX



class World(Protocol):
    """What a consumer needs from the run it lives in (kafkasim.scenario.world.World provides it):
    the clock, the coordinator to send requests to, the topics, and where events go."""

    sim: Simulation
    coord: Any
    version: tuple[int, ...]
    group_id: str
    partitions: Any
    topics: dict[str, int]
    topic_partitions: Any
    member_names: Any
    rows: list[tuple]
    poll_resolution_ms: int

    def processing_clock(self, name: str) -> Any: ...

UNJOINED, PREPARING, COMPLETING, STABLE = "UNJOINED", "PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE"
EAGER, COOPERATIVE = "eager", "cooperative"
INFINITY = float("inf")
NONE = Errors.NONE

#: The reason the 3.x Java client gives in its LeaveGroup when the poll timer expires: the words it logs.
POLL_TIMEOUT_REASON = POLL_TIMEOUT_TEXT

#: Fatal JoinGroup/SyncGroup errors: the Java client throws and the application stops.
#: INVALID_GROUP_ID (an empty group.id) is InvalidGroupIdException to the application (AbstractCoordinator).
FATAL = {Errors.GROUP_MAX_SIZE_REACHED, Errors.FENCED_INSTANCE_ID, Errors.INVALID_SESSION_TIMEOUT,
         Errors.INCONSISTENT_GROUP_PROTOCOL, Errors.INVALID_GROUP_ID}


class Consumer:
    """One consumer process: an application thread running the poll loop and, from 0.10.1,
    a heartbeat thread. It talks to the coordinator only through requests, and writes events
    (and, when the scenario collects client logs, the client's log lines through `log`)."""

    log: ClientLog | None = None

    def __init__(self, world: World, name: str, config: dict, start_ms: int = 0):
        self._bind(world, name)
        self.config = config
        v = world.version
        normalize_version(v)  # a world of a version kafkasim does not model is refused as Scenario refuses it
        self.kip62 = v >= (0, 10, 1)               # background heartbeat thread + max.poll.interval.ms
        self.hb_in_completing = v >= (2, 7)         # KAFKA-10134: heartbeats resume after the JoinGroup response
        self.lost_callback = v >= (2, 4)            # onPartitionsLost (KIP-429)
        self.nonblocking_rebalance = v >= (2, 5)    # KAFKA-8421: poll() returns data during a cooperative rebalance
        self.two_step_join = v >= (2, 2)            # KIP-394 MEMBER_ID_REQUIRED
        self.instance_id = config.get("group.instance.id")
        self.client_id: str = config["client.id"]  # a dynamic member's id is <client.id>-<UUID>
        self.strategies: list[str] = list(config["partition.assignment.strategy"])
        # The highest protocol that every configured assignor supports (the ConsumerCoordinator
        # constructor at 2.4.0): ["cooperative-sticky", "range"] is eager, because of range.
        common = set.intersection(*(rebalance_protocols(s) for s in self.strategies))
        self.protocol = COOPERATIVE if COOPERATIVE in common and v >= (2, 4) else EAGER
        self.session_ms = config["session.timeout.ms"]
        self.heartbeat_ms = config["heartbeat.interval.ms"]
        self.max_poll_ms = config.get("max.poll.interval.ms") if self.kip62 else None
        self.max_records = config["max.poll.records"] or INT_MAX
        self.auto_commit = config["enable.auto.commit"]
        self.auto_commit_ms = config["auto.commit.interval.ms"]
        self.rebalance_timeout_ms = self.max_poll_ms if self.kip62 else self.session_ms
        self.clock = world.processing_clock(name)
        self.start_ms = start_ms
        self._reset_process_state()

    def _bind(self, world: World, name: str) -> None:
        """What every consumer of a world holds: its name, the world's clock, coordinator, partitions and rows."""
        self.world, self.name = world, name
        self.parts, self.rows, self.group_id = world.partitions, world.rows, world.group_id
        self.resolution = world.poll_resolution_ms
        self.sim, self.coord = world.sim, world.coord

    def _reset_process_state(self) -> None:
        """A fresh process: no member id, no generation, nothing owned."""
        self.alive = False
        self.member_id = ""
        self.generation = -1
        self.assignor: str | None = None    # the protocol name of the last JoinGroup response
        self.state = UNJOINED
        self.need_join = True
        self.owned: dict[int, int] = {}     # partition index -> fetch position
        self.sticky_memory: tuple[int, list] | None = None  # StickyAssignor's last (generation, assignment)
        self.lost_reason: str | None = None
        self.waiting = False                # the app thread is blocked in poll() on a rebalance
        self.batch = None                   # (slices, count, start, timer) of the batch being processed
        self.next_poll = None
        self.last_poll = 0
        self.last_fetch = -10**12
        self.last_hb_send = -10**12
        self.next_auto_commit = 0
        self.frozen_until = 0
        self.heartbeat_ok = 0               # the last successful heartbeat response (read by the client log)
        self.heartbeat_error = "NONE"       # the last heartbeat response's error (read by the client log)
        self.cut_until = 0
        self.hb_timer = None
        self.poll_timer = None
        self.app_state = None
        self.rr = 0                         # round-robin start over owned partitions
        self.idle = False                   # the app thread is inside poll(), waiting for records
        self.stalled_until = 0              # the app thread is stuck in application code until then
        self.before_stall: str | None = None  # what the app thread was doing when it got stuck
        self.before_pause: str | None = None  # ... and when a stop-the-world pause froze it
        self.closing = False                # close() asked while a batch was being processed
        self.poll_throws: Errors | None = None  # what the next poll() throws: a fenced auto-commit (asyncCommitFenced)
        self._stop_waiters: list = []       # what runs once this process has stopped

    # -- plumbing -------------------------------------------------------------------------
    def _row(self, kind: str, *, topic=None, partition=None, error=None, reason=None, value=None) -> None:
        self.world.rows.append((self.sim.now, "consumer", self.world.group_id, self.name, kind,
                                self.generation if self.generation >= 0 else None, topic, partition,
                                error, reason, value, None))

    def _set_app_state(self, state: str) -> None:
        if state != self.app_state:
            self.app_state = state
            self._row("StateChanged", reason=state)

    def _paused(self, fn, *args) -> bool:
        """True if the process cannot run now: dead, or frozen (then `fn` runs when it thaws)."""
        if not self.alive:
            return True
        if self.sim.now < self.frozen_until:
            self.sim.at(self.frozen_until, fn, *args)
            return True
        return False

    def _deliver(self, handler):
        """Coordinator responses reach the client as events of their own (never re-entrantly)."""
        incarnation = self.incarnation

        def callback(resp):
            self.sim.schedule(0, self._receive, handler, resp, incarnation)
        return callback

    def _receive(self, handler, resp, incarnation) -> None:
        if incarnation != self.incarnation or self._paused(self._receive, handler, resp, incarnation):
            return
        if self.sim.now < self.cut_until:  # lost on the wire: retry when the network is back
            self.sim.at(self.cut_until, self._retry_after_cut, incarnation)
            return
        handler(resp)

    # -- lifecycle ------------------------------------------------------------------------
    incarnation = 0

    def start(self) -> None:
        self.incarnation += 1
        self._reset_process_state()
        self.alive = True
        self._row("Started", reason="static" if self.instance_id else "dynamic")
        if self.log is not None:
            self.log.started(self.sim.now)
        self._set_app_state("joining")
        self.sim.schedule(0, self._poll)

    def crash(self) -> None:
        """The process is gone: no callbacks, no LeaveGroup, nothing committed."""
        if not self.alive:
            return
        parts = self.world.partitions
        for i in self.owned:
            parts.cause[i] = "crash"
            self._disown(i)
        self._row("Crashed", value=len(self.owned))
        self._stop("stopped")

    def close(self) -> None:
        """Graceful shutdown (scale in): revoke, commit, LeaveGroup (dynamic members only). The
        consumer is not thread-safe: the application closes it from its poll loop, once the batch
        it is processing is done (a shutdown hook calls `wakeup()`), else the commit would cover
        records never processed."""
        if not self.alive or self._paused(self.close):
            return
        if self.batch is not None:
            self.closing = True
            return
        self._close_now()

    def _close_now(self) -> None:
        if self.owned:
            if self.auto_commit:
                self._commit(sync=True)
            if self.log is not None:
                self.log.revoked(self.sim.now, self._owned_tps())
            self._revoke(list(self.owned), "PartitionsRevoked", "closed")
        if self.member_id and self.instance_id is None:
            if self.log is not None:
                self.log.closing(self.sim.now, self.member_id)
            self.coord.leave_group(self.world.group_id, [self.member_id], reason="the consumer is being closed")
        self._row("Closed")
        self._stop("stopped")

    def when_stopped(self, fn) -> None:
        """Run `fn()` once this process has stopped (at once if it is not running): a restart
        starts the new process only after the old one has closed, frozen or busy as it may be."""
        if self.alive:
            self._stop_waiters.append(fn)
        else:
            fn()

    def _stop(self, state: str) -> None:
        waiters, self._stop_waiters = self._stop_waiters, []
        for fn in waiters:
            self.sim.schedule(0, fn)
        self._set_app_state(state)
        self.alive = False
        for timer in (self.hb_timer, self.poll_timer, self.next_poll, self.batch and self.batch[3]):
            if timer is not None:
                timer.cancel()
        self.batch = None

    def freeze(self, duration_ms: int) -> None:
        """A stop-the-world pause (GC): every thread stops; a batch in progress ends that much later."""
        if not self.alive:
            return
        end = max(self.frozen_until, self.sim.now + duration_ms)
        extra = end - max(self.frozen_until, self.sim.now)
        self.frozen_until = end
        self._row("Frozen", value=duration_ms)
        self._extend_batch(extra)
        if self.app_state != "paused":
            self.before_pause = self.app_state
        self._set_app_state("paused")
        self.sim.at(end, self._resume_state, "paused", self.before_pause, self.incarnation)

    def _resume_state(self, held: str, previous: str, incarnation: int) -> None:
        """End of a pause or stall: back to what the thread was doing, unless something else happened."""
        if self.sim.now < (self.stalled_until if held == "stalled" else self.frozen_until):
            return  # stuck or frozen again meanwhile: the later fault's end resumes
        if incarnation == self.incarnation and self.alive and self.app_state == held:
            self._set_app_state(previous)

    def stall(self, duration_ms: int) -> None:
        """Slow processing: the poll thread is stuck in application code for `duration_ms`; the
        heartbeat thread is not. A batch in progress ends that much later. A thread inside
        `poll()` (waiting for records or a rebalance, or owning nothing) returns from it now,
        having reset the poll timer on its last pass, and calls it again when the stuck call
        returns: only if that takes max.poll.interval.ms does the poll timer expire."""
        if not self.alive:
            return
        self._row("Stalled", value=duration_ms)
        now = self.sim.now
        if self.app_state != "stalled":
            self.before_stall = self.app_state
        self.stalled_until = max(self.stalled_until, now + duration_ms)  # a stall while stalled ends with the later one
        if self.batch is not None:
            self._extend_batch(duration_ms)
        else:
            if self.idle or self.waiting:
                self.last_poll = now
            self.idle = self.waiting = False
            if self.next_poll is not None:
                self.next_poll.cancel()
            self.next_poll = self.sim.at(self.stalled_until, self._poll)
        self._set_app_state("stalled")
        self.sim.at(self.stalled_until, self._resume_state, "stalled", self.before_stall, self.incarnation)

    def cut_network(self, duration_ms: int) -> None:
        """Requests and responses between this member and the coordinator are lost for a while."""
        if self.alive:
            self.cut_until = max(self.cut_until, self.sim.now + duration_ms)
            self._row("NetworkCut", value=duration_ms)

    def _extend_batch(self, extra: int) -> None:
        if self.batch is not None and extra > 0:
            records, count, start, timer = self.batch
            timer.cancel()
            self.batch = (records, count, start, self.sim.at(timer.time + extra, self._batch_done))

    # -- the application thread: poll loop -----------------------------------------------
    def _poll_starts(self) -> bool:
        """`poll()`'s prologue, the same in every consumer: False when this poll does not run (dead,
        frozen: it runs when thawed; busy; closing: it closes); else the app thread is in poll()."""
        if self._paused(self._poll) or self._busy():
            return False
        if self.closing:
            self.close()
            return False
        self.idle = self.waiting = False
        self.next_poll = None
        return True

    def _poll(self) -> None:
        if not self._poll_starts():
            return
        if self.poll_throws is not None:  # ConsumerCoordinator.invokeCompletedOffsetCommitCallbacks
            return self._fatal(self.poll_throws)
        now = self.sim.now
        self.last_poll = now
        if self.state is STABLE:
            if not self.kip62:
                self._heartbeat_from_poll()
            if self.auto_commit and now >= self.next_auto_commit and self.owned:
                self._commit(sync=False)
                self.next_auto_commit = now + self.auto_commit_ms
            if not self.need_join:  # the common case: go and fetch
                return self._fetch_and_process()
        if self.need_join and self.state in (UNJOINED, STABLE):
            self._join_prepare()
            self._send_join()
        if not self.alive:
            return
        if self.state != STABLE and not (self.protocol == COOPERATIVE and self.nonblocking_rebalance):
            self.waiting = True  # poll() blocks until the rebalance completes
            return
        self._fetch_and_process()

    def _busy(self) -> bool:
        """The app thread is elsewhere: stuck in application code (its poll is due when the stall
        ends) or processing a batch (it polls when the batch is done). A poll that was due before
        a pause thawed does not run a second time."""
        return self.sim.now < self.stalled_until or self.batch is not None

    def _fetch_and_process(self) -> None:
        """Take up to max.poll.records from owned partitions (in turn) and process them as one batch.

        This is the hot path of every run: plain local arithmetic, one timer per batch. The batch
        shows as "processing" between its Fetched and Processed events (see `Run.member_states`).
        """
        now = self.sim.now
        parts = self.parts
        rate, t = parts.rate, parts.duration_ms
        if now < t:
            t = now
        owned = self.owned
        ends = {}
        available = 0
        for i, pos in owned.items():
            end = int(rate[i] * t)
            if end > pos:
                ends[i] = end
                available += end - pos
        resolution = self.resolution
        last_fetch = self.last_fetch
        if available == 0 or (available < self.max_records and now < last_fetch + resolution):
            # Keeping up: poll() waits for records, on the grid of the simulator's poll resolution.
            if now >= last_fetch + resolution:
                self.last_fetch = last_fetch = now
            wake = last_fetch + resolution
            if available == 0:  # nothing at all: sleep until the next record is produced
                wake = max(wake, self._next_record_at())
            if not self.kip62:  # a consumer blocked in poll() still runs its heartbeat task on time
                wake = min(wake, max(now, self.last_hb_send + self.heartbeat_ms))
            if self.app_state != "consuming":
                self._set_app_state("consuming")
            self.idle = True
            self.next_poll = self.sim.at(wake, self._poll) if wake < INFINITY else None
            return
        self.last_fetch = now
        count = want = available if available < self.max_records else self.max_records
        records = []
        order = list(owned)
        k, rr = len(order), self.rr
        for j in range(k):  # take from owned partitions in turn, starting where the last batch stopped
            i = order[(rr + j) % k]
            end = ends.get(i)
            if end is not None:
                pos = owned[i]
                n = end - pos if end - pos < want else want
                records.append((i, pos, pos + n))
                owned[i] = pos + n
                want -= n
                if not want:
                    self.rr = (rr + j + 1) % k
                    break
        duration = int(math.ceil(self.clock.take(count)))
        if self.app_state != "consuming":
            self._set_app_state("consuming")
        self.rows.append((now, "consumer", self.group_id, self.name, "Fetched",
                          self.generation if self.generation >= 0 else None, None, None, None, None,
                          count, None))
        self.batch = (records, count, now, self.sim.at(now + duration, self._batch_done))

    def _next_record_at(self) -> float:
        """When the next record appears in an owned partition (INFINITY: never, production is over)."""
        parts, soonest = self.parts, INFINITY
        for i, pos in self.owned.items():
            rate = parts.rate[i]
            if rate > 0:
                at = math.ceil((pos + 1) / rate)
                while int(rate * at) <= pos:  # float rounding: the first ms at which end_offset > pos
                    at += 1
                if at <= parts.duration_ms:
                    soonest = min(soonest, at)
        return soonest

    def _wake(self) -> None:
        """The app thread waiting in poll() notices at once that it must rejoin (it wakes within
        fetch.max.wait.ms in Kafka; here, immediately)."""
        if self.idle and (self.next_poll is None or self.next_poll.time > self.sim.now):
            if self.next_poll is not None:
                self.next_poll.cancel()
            self.next_poll = self.sim.schedule(0, self._poll)

    def _batch_done(self) -> None:
        if self._paused(self._batch_done):
            return
        records, count, start, _ = self.batch
        self.batch = None
        now = self.sim.now
        self.parts.process(records, count, start, now)
        self.rows.append((now, "consumer", self.group_id, self.name, "Processed",
                          self.generation if self.generation >= 0 else None, None, None, None, None, count, None))
        if not self.auto_commit and self._commit(sync=True) is Errors.FENCED_INSTANCE_ID:
            return self._fatal(Errors.FENCED_INSTANCE_ID)  # the application's commitSync() throws it
        self._poll()

    # -- commits --------------------------------------------------------------------------
    def _commit(self, sync: bool) -> Errors | None:
        """OffsetCommit of every owned partition's position; the answer (None: nothing owned).

        A static member fenced by a newer process with its group.instance.id is answered
        FENCED_INSTANCE_ID: commitSync() throws FencedInstanceIdException (`commitOffsetsSync`), an
        asynchronous auto-commit makes the next poll() throw it (`asyncCommitFenced`), while the
        auto-commits of close() and of a rebalance only log it (`maybeAutoCommitOffsetsSync`)."""
        if not self.owned:
            return None
        tps = self.parts.tps
        offsets = {tps[i]: pos for i, pos in self.owned.items()}
        error: Errors | None = None
        if self.sim.now < self.cut_until:
            error = Errors.REQUEST_TIMED_OUT
        elif self.kip62 and self.generation < 0:
            error = Errors.UNKNOWN_MEMBER_ID  # kicked out: fails locally, the broker is never asked
            if self.log is not None:
                self.log.commit_refused(self.sim.now)
        elif self.nonblocking_rebalance and self.state in (PREPARING, COMPLETING):
            error = Errors.REBALANCE_IN_PROGRESS
        else:
            if not self.kip62 and sync:
                self._heartbeat_from_poll()  # commitSync runs the delayed heartbeat task too
            error = self.coord.commit_offsets(self.group_id, self.member_id, self.generation, offsets,
                                              self.instance_id).error
            if self.log is not None and error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
                self.log.commit_failed(self.sim.now, error.name, error.message, self.generation, self.member_id,
                                       self.assignor)
        if error is NONE:
            self._row("Commit", value=len(offsets))
            return error
        exception = ("RebalanceInProgressException" if self.nonblocking_rebalance and error is Errors.REBALANCE_IN_PROGRESS
                     else error.exception if error is Errors.FENCED_INSTANCE_ID else "CommitFailedException")
        self._row("CommitFailed", error=error.name, reason=exception if sync else "auto-commit failed (logged)",
                  value=len(offsets))
        if error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION) and self.generation >= 0:
            self._reset_generation(error, "rebalance")
        elif error is Errors.FENCED_INSTANCE_ID and not sync:
            self.poll_throws = error
        return error

    # -- rebalance: client side -----------------------------------------------------------
    def _join_prepare(self) -> None:
        """onJoinPrepare: lost, eager or cooperative handling of what this member owns.

        From 2.4 a member without a generation (its first join, or after a reset) takes the "lost"
        branch, which calls no callback when it owns nothing (`ConsumerCoordinator.onJoinPrepare`
        at 2.4.0); up to 2.3 every join calls onPartitionsRevoked, even with nothing, even the first
        (the same method at 2.3.0).
        """
        owned = list(self.owned)
        log = self.log
        if self.generation < 0 and (owned or self.lost_callback):
            if owned:
                if log is not None:
                    log.lost(self.sim.now, self._owned_tps())
                kind = "PartitionsLost" if self.lost_callback else "PartitionsRevoked"
                self._revoke(owned, kind, self.lost_reason or "rebalance")
            return
        if self.auto_commit and owned:
            self._commit(sync=True)  # both protocols commit first; errors are only logged
        if self.protocol == EAGER:
            if log is not None:
                log.revoked(self.sim.now, self._owned_tps())
            self._revoke(owned, "PartitionsRevoked", "rebalance", always=True)

    def _owned_tps(self) -> list[tuple[str, int]]:
        tps = self.world.partitions.tps
        return [tps[i] for i in self.owned]

    def _revoke(self, partitions: list[int], kind: str, cause: str, always: bool = False) -> None:
        parts = self.world.partitions
        committed = self.coord.committed(self.world.group_id)
        for i in partitions:
            tp = parts.tps[i]
            if committed.get(tp, 0) < self.owned[i]:
                parts.cause[i] = cause  # whoever reads it next will process some records again
            del self.owned[i]
            self._disown(i)
            self._row(kind, topic=tp[0], partition=tp[1])
        if not partitions and always:
            self._row(kind, value=0)  # eager always calls onPartitionsRevoked, even with nothing

    def _send_join(self) -> None:
        if not self.alive:
            return
        self.state = PREPARING
        self._cancel_heartbeats()
        self._set_app_state("joining")
        if self.sim.now < self.cut_until:
            self.sim.at(self.cut_until, self._retry_after_cut, self.incarnation)
            return
        if self.log is not None:
            self.log.joining(self.sim.now)
        protocols = [(name, encode(self._subscription(name))) for name in self.strategies]
        self.coord.join_group(self.world.group_id, self.member_id, self.instance_id, self.session_ms,
                              self.rebalance_timeout_ms, "consumer", protocols,
                              require_known_member_id=self.two_step_join, client_id=self.client_id,
                              callback=self._deliver(self._on_join_response))

    def _subscription(self, assignor: str) -> dict:
        """The JoinGroup metadata for one assignor (`ConsumerCoordinator.metadata`): topics, generation,
        the partitions owned now (none under eager: all were revoked in onJoinPrepare) and each
        assignor's own userData. Only the eager sticky assignor sends one that matters: its last
        assignment and that assignment's generation (`StickyAssignor.subscriptionUserData`), which
        is all it reads (`StickyAssignor.memberData`, 3.7.0). Cooperative-sticky reads the owned
        partitions, so listed first in an eager group it sees none and assigns every partition."""
        tps = self.world.partitions.tps
        meta = {"topics": self.world.topics, "generation": self.generation,
                "owned": owned_partitions(tps[i] for i in self.owned)}
        if assignor == "sticky" and self.sticky_memory is not None:
            generation, partitions = self.sticky_memory
            meta["user_data"] = {"generation": generation, "partitions": sticky_user_data(partitions)}
        return meta

    def _retry_after_cut(self, incarnation: int) -> None:
        if incarnation == self.incarnation and self.alive and self.state in (PREPARING, COMPLETING):
            self._send_join()

    def _on_join_response(self, r) -> None:
        if self.state != PREPARING:
            return
        error = r.error
        if error is Errors.MEMBER_ID_REQUIRED:
            if self.log is not None:
                self.log.member_id_required(self.sim.now, r.member_id)
            self.member_id = r.member_id
            self.world.member_names[r.member_id] = self.name
            return self._send_join()
        if error is Errors.UNKNOWN_MEMBER_ID:
            self.member_id = ""
            return self._send_join()
        if error in FATAL:
            return self._fatal(error)
        if error is not Errors.NONE:
            return self._send_join()
        self.member_id, self.generation, self.assignor = r.member_id, r.generation_id, r.protocol_name
        self.world.member_names[r.member_id] = self.name
        if self.log is not None:
            self.log.joined(self.sim.now, self.generation, self.member_id, self.assignor, r.leader_id,
                            len(r.members or ()))
        self.state = COMPLETING
        self._set_app_state("awaiting_sync")
        if self.hb_in_completing and self.kip62:
            self._enable_heartbeats()
        assignments = None
        if r.leader_id == self.member_id and r.members and not r.skip_assignment:
            assignments = self._lead(r)
        self.coord.sync_group(self.world.group_id, self.member_id, self.generation, assignments,
                              self.instance_id, callback=self._deliver(self._on_sync_response))

    def _lead(self, r) -> dict[str, bytes]:
        """The leader runs the assignor chosen by the coordinator for every member. Each member's
        list goes out in the assignor's order (`ConsumerProtocol.serializeAssignment`), which the
        sticky assignor remembers."""
        subs = {}
        for member_id, data in r.member_metadata.items():
            meta = decode(data)
            owned, generation = meta["owned"], meta["generation"]
            if r.protocol_name == "sticky":  # StickyAssignor.memberData reads its userData only
                owned, generation = [], None
                if "user_data" in meta:
                    owned, generation = meta["user_data"]["partitions"], meta["user_data"]["generation"]
            subs[member_id] = Subscription(tuple(meta["topics"]), tuple(tuple(tp) for tp in owned), generation,
                                           r.member_instance_ids.get(member_id))
        result = assign(r.protocol_name, self.world.topic_partitions, subs, kafka_version=self.world.version)
        return {m: encode(tps) for m, tps in result.items()}

    def _on_sync_response(self, s) -> None:
        if self.state != COMPLETING:
            return
        if s.error in FATAL:
            return self._fatal(s.error)
        if s.error is Errors.REBALANCE_IN_PROGRESS:
            self.state = STABLE  # not joined yet: rejoin at once (we are inside poll)
            self.need_join = True
            return self._rejoin_now()
        if s.error is not Errors.NONE:
            return self._reset_generation(s.error, "rebalance", rejoin_now=True)
        assigned = [tuple(tp) for tp in decode(s.assignment) or []]
        if self.log is not None:
            self.log.synced(self.sim.now, self.generation, self.member_id, self.assignor, assigned)
        self._complete_rebalance(assigned)

    def _complete_rebalance(self, assigned: list[tuple[str, int]]) -> None:
        """onJoinComplete: install the assignment and call the listener as Kafka does; only the
        assignor the JoinGroup response named hears of it (`onAssignment`)."""
        parts = self.world.partitions
        if self.log is not None:
            self.log.assigned(self.sim.now, assigned, self._owned_tps(), self.protocol == COOPERATIVE)
        new = [parts.index[tp] for tp in sorted(assigned)]
        self.state = STABLE
        self.need_join = False
        self.lost_reason = None
        if self.assignor == "sticky":
            self.sticky_memory = (self.generation, assigned)
        revoked = [i for i in self.owned if i not in set(new)]
        if revoked:  # cooperative: give these up now and rejoin so that they can move (KIP-429)
            self._revoke(revoked, "PartitionsRevoked", "rebalance")
            self.need_join = True
        self._assign([i for i in new if i not in self.owned])
        self.next_auto_commit = self.sim.now + self.auto_commit_ms
        if self.kip62:
            self._enable_heartbeats()
        else:
            self.last_hb_send = self.sim.now
        self._set_app_state("consuming")
        if self.waiting:
            self._poll()
        else:
            self._wake()  # a cooperative member kept polling during the rebalance: new partitions to read

    def _assign(self, added: list[int]) -> None:
        """Take the added partitions from their committed offsets, then onPartitionsAssigned
        (always called, even with nothing: a row with value 0)."""
        parts = self.world.partitions
        committed = self.coord.committed(self.world.group_id)
        for i in added:
            previous = parts.owner[i]
            if previous is not None and previous is not self:  # taken from a zombie: why it lost it
                parts.cause[i] = previous.loss_cause()
            parts.owner[i] = self
            self.owned[i] = committed.get(parts.tps[i], 0)
            self._row("PartitionsAssigned", topic=parts.tps[i][0], partition=parts.tps[i][1])
        if not added:
            self._row("PartitionsAssigned", value=0)

    def _disown(self, i: int) -> None:
        parts = self.world.partitions
        if parts.owner[i] is self:
            parts.owner[i] = None

    def loss_cause(self) -> str:
        """Why this member lost partitions it still believes it owns (read when they are handed over)."""
        return self.lost_reason or self.coord.removal_reason.get(self.member_id) or "rebalance"

    def _rejoin_now(self) -> None:
        if self.waiting:
            self._poll()

    def _reset_generation(self, error: Errors, reason: str, rejoin_now: bool = False) -> None:
        """resetGeneration: forget the generation (and on UNKNOWN_MEMBER_ID the member id); rejoin."""
        if error is Errors.UNKNOWN_MEMBER_ID:
            self.member_id = ""
            reason = self.coord.removal_reason.get(self._last_member_id(), reason)
        self.generation = -1
        self.state = UNJOINED
        self.need_join = True
        self.lost_reason = reason
        self._cancel_heartbeats()
        self._set_app_state("removed")
        if rejoin_now:
            self._rejoin_now()

    def _last_member_id(self) -> str:
        for member_id, name in reversed(self.world.member_names.items()):
            if name == self.name:
                return member_id
        return ""

    def _fatal(self, error: Errors) -> None:
        self._row("Fatal", error=error.name, reason=error.exception)
        self._stop("stopped")

    # -- liveness: heartbeats ------------------------------------------------------------
    def _enable_heartbeats(self) -> None:
        """HeartbeatThread.enable(): resetTimeouts() also restarts the poll timer."""
        now = self.sim.now
        self.last_poll = now
        self.heartbeat_ok = now  # resetTimeouts() restarts the session timer too
        if self.hb_timer is None or not self.hb_timer.active:
            self.hb_timer = self.sim.schedule(self.heartbeat_ms, self._heartbeat_tick, self.incarnation)
        if self.poll_timer is None or not self.poll_timer.active:
            self.poll_timer = self.sim.at(now + self.max_poll_ms, self._poll_timer_fired, self.incarnation)

    def _cancel_heartbeats(self) -> None:
        for timer in (self.hb_timer, self.poll_timer):
            if timer is not None:
                timer.cancel()
        self.hb_timer = self.poll_timer = None

    def _heartbeat_tick(self, incarnation: int) -> None:
        if incarnation != self.incarnation:
            return
        now = self.sim.now
        if not self.alive or now < self.frozen_until:
            self._paused(self._heartbeat_tick, incarnation)
            return
        self.hb_timer = None
        if self.state is STABLE or (self.state is COMPLETING and self.hb_in_completing):
            if self.log is not None and self._session_check(now):
                self.hb_timer = self.sim.at(now + self.heartbeat_ms, self._heartbeat_tick, incarnation)
                return
            self._send_heartbeat()
            self.hb_timer = self.sim.at(now + self.heartbeat_ms, self._heartbeat_tick, incarnation)

    def _session_check(self, now: int) -> bool:
        """For the client log only: the heartbeat thread's checks before it sends
        (`AbstractCoordinator.HeartbeatThread.run`). No successful response for session.timeout.ms
        marks the coordinator unknown; once reachable it is discovered again (in the same tick:
        Kafka looks it up after retry.backoff.ms). True if the coordinator is still unreachable."""
        log = self.log
        if now - self.heartbeat_ok >= self.session_ms:
            log.coordinator_lost(now, now - self.heartbeat_ok, self.heartbeat_error)
        if now < self.cut_until:
            return not log.coordinator_known
        if not log.coordinator_known:
            log.coordinator_reached(now)
            self.heartbeat_ok = now  # resetSessionTimeout() on discovery
        return False

    def _heartbeat_from_poll(self) -> None:
        """Before KIP-62 the heartbeat is a delayed task run only inside poll()/commitSync()."""
        if self.sim.now - self.last_hb_send >= self.heartbeat_ms:
            self._send_heartbeat()

    def _send_heartbeat(self) -> None:
        now = self.last_hb_send = self.sim.now
        if now < self.cut_until:
            return  # lost; the coordinator's session timer keeps running
        error = self.coord.heartbeat(self.group_id, self.member_id, self.generation, self.instance_id).error
        if self.log is not None:
            self.heartbeat_error = error.name
            if error is NONE or error is Errors.REBALANCE_IN_PROGRESS:
                self.heartbeat_ok = now  # receiveHeartbeat()
            if error is not NONE:
                self.log.heartbeat_error(now, error.name, self.generation, self.member_id, self.assignor,
                                         len(self.owned), self.protocol == COOPERATIVE)
        if error is NONE:
            return
        if error is Errors.REBALANCE_IN_PROGRESS:
            self.need_join = True
            self._wake()
        elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
            self._reset_generation(error, "rebalance")
            self._wake()
        elif error is Errors.FENCED_INSTANCE_ID:
            # The heartbeat thread fails only on a fenced instance id; any other error is retried
            # (`AbstractCoordinator.HeartbeatThread.run`).
            self._fatal(error)

    def _poll_timer_fired(self, incarnation: int) -> None:
        """The heartbeat thread notices that poll() has not been called for max.poll.interval.ms."""
        if incarnation != self.incarnation or self._paused(self._poll_timer_fired, incarnation):
            return
        self.poll_timer = None
        if self.state not in (STABLE, COMPLETING) or self.generation < 0:
            return
        deadline = self.last_poll + self.max_poll_ms
        if self.idle:  # waiting inside poll() resets the poll timer on every pass of its loop
            deadline = self.sim.now + self.max_poll_ms
        if self.sim.now < deadline:
            self.poll_timer = self.sim.at(deadline, self._poll_timer_fired, incarnation)
            return
        self._row("PollTimeout", reason="poll_timeout", value=self.sim.now - self.last_poll)
        leave = self.instance_id is None and self.sim.now >= self.cut_until  # static members never send LeaveGroup
        if self.log is not None:
            self.log.poll_timeout(self.sim.now, self.member_id, leave, self.sim.now - deadline, self.max_poll_ms)
        if leave:
            self.coord.leave_group(self.world.group_id, [self.member_id], reason=POLL_TIMEOUT_REASON)
        self.member_id = "" if self.instance_id is None else self.member_id
        self.generation = -1
        self.state = UNJOINED
        self.need_join = True
        self.lost_reason = "poll_timeout"
        self._cancel_heartbeats()
        if self.batch is None:
            self._set_app_state("removed")
