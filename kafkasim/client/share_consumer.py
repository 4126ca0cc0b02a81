"""The share consumer (KIP-932, "Queues for Kafka"): Kafka's `KafkaShareConsumer` in a share group.

Read from `clients/src/main/java/org/apache/kafka/clients/consumer/` at 4.0, 4.1 and 4.2
(confluentinc/kafka branches 4.0 to 4.2 = Apache 4.0.x to 4.2.x): `KafkaShareConsumer.java`,
`internals/ShareConsumerImpl.java`, `internals/ShareHeartbeatRequestManager.java`,
`internals/ShareMembershipManager.java`, `internals/ShareInFlightBatch.java`:

- the background thread sends ShareGroupHeartbeat (API key 76) at the interval of the last
  response, and at once after a new assignment (ACKNOWLEDGING; an empty first assignment is
  not one, `AbstractMembershipManager.processAssignmentReceived`); the member id is the client's own random Uuid from 4.1 (4.0: the coordinator's); a
  member fenced (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID) rejoins with epoch 0; a heartbeat lost or
  answered with a coordinator error is retried after retry.backoff.ms, doubled up to 1 s
  (`AbstractHeartbeatRequestManager`), any other error is fatal;
- there is no rebalance listener, no offset commit and no poll timer (`ShareConsumerImpl` at 4.2
  never reads max.poll.interval.ms): a consumer stuck in its application code keeps its
  membership, and its records go back when their acquisition locks expire;
- `poll()` sends the pending acknowledgements (piggybacked on the ShareFetch) and acquires records
  from the share partitions of the assignment: MaxRecords = BatchSize = max.poll.records (4.1+),
  a soft limit in `batch_optimized` mode (whole log batches) and a hard one in `record_limit`
  (`share.acquire.mode`, 4.2);
- implicit acknowledgement (`share.acknowledgement.mode=implicit`, the default): the records of
  the previous poll are accepted at the next `poll()`, `commitSync()` or `commitAsync()`
  (`acknowledgeBatchIfImplicitAcknowledgement`), NOT at `close()`, which releases them; explicit:
  every record is acknowledged by the application (ACCEPT, RELEASE, REJECT, RENEW from 4.2);
- `close()` sends the acknowledgements with share session epoch -1, which releases every record the
  member still holds (`SharePartition.releaseAcquiredRecords`), then leaves with epoch -1; from
  4.1 a closed connection (a crashed process) releases them too, 4.0 waits for the locks.

Events (source "consumer", generation = the member epoch): Started, StateChanged, Fetched and
Processed (value: records), PartitionsAssigned/PartitionsRevoked/PartitionsLost (the assignment, no
callback), Crashed, Closed, Fatal, and per range of offsets `Acquired` (topic, partition, reason
"first-last", value = the delivery count) and `Acknowledged` (reason "TYPE first-last", value =
records, error = the partition's error, None on success).

Simplified, and what it costs a learner: requests take no time and the share coordinator answers
at once; one broker leads every partition (one share session); a ShareFetch asks the assigned
partitions in turn until max.poll.records is reached; a consumer waiting for records polls on the
grid of the scenario's poll resolution (Kafka long-polls up to fetch.max.wait.ms); no prefetch;
4.0's inferred acknowledgement mode is taken from the config as 4.1 does; acknowledgements lost to
a network cut fail (REQUEST_TIMED_OUT), and are not retried.

May import: `kafkasim.core`, `kafkasim.client.consumer`, `kafkasim.client.subscription_state`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from kafkasim.client.consumer import Consumer, World
from kafkasim.client.subscription_state import IllegalStateException
from kafkasim.core.errors import Errors
from kafkasim.core.java import random_uuid

#: AcknowledgeType (`clients/.../consumer/AcknowledgeType.java`): RENEW from 4.2 (KIP-1222).
ACKNOWLEDGE_TYPES = ("ACCEPT", "RELEASE", "REJECT", "RENEW")
#: Heartbeat errors after which the member rejoins with epoch 0 (`ShareMembershipManager.transitionToFenced`).
REJOIN = {Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID}
#: Heartbeat errors that are only retried, after the backoff (`AbstractHeartbeatRequestManager.onErrorResponse`);
#: any other error is fatal (`handleFatalFailure`). Simplified: Kafka retries NOT_COORDINATOR and
#: COORDINATOR_NOT_AVAILABLE as soon as it has found the coordinator again (no backoff of their own);
#: kafkasim's share coordinator never moves, and answers neither.
RETRIABLE = {Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR, Errors.COORDINATOR_LOAD_IN_PROGRESS,
             Errors.REQUEST_TIMED_OUT}
#: retry.backoff.max.ms's default (CommonClientConfigs, KIP-580): not a share consumer config of kafkasim.
RETRY_BACKOFF_MAX_MS = 1000


class ShareRecord(NamedTuple):
    """A record as `poll()` returns it: `ConsumerRecord` with its `deliveryCount()`."""

    topic: str
    partition: int
    offset: int
    delivery_count: int


class ShareConsumer(Consumer):
    """One `KafkaShareConsumer` process in the scenario's share group. Its application thread
    runs the poll loop of the classic consumer (`Consumer`: batches, crash, freeze, stall, network
    cut, close); membership is ShareGroupHeartbeat, and records are acquired and acknowledged on the
    leader's share partitions (`world.share_partition(i)`)."""

    def __init__(self, world: World, name: str, config: dict, start_ms: int):
        # Not Consumer.__init__: a share consumer has no session, heartbeat, assignor, commit or static-membership
        # configs (the Consumer methods that read them are all overridden), and reads its configs here only;
        # `start_ms` is World's (it schedules start).
        self._bind(world, name)
        v = world.version
        self.client_member_id = v >= (4, 1)       # KIP-1082 for share groups: the client's own Uuid
        self.release_on_disconnect = v >= (4, 1)  # the share session is dropped with the connection
        self.renew = v >= (4, 2)                  # AcknowledgeType.RENEW (KIP-1222)
        self.explicit = config.get("share.acknowledgement.mode") == "explicit"
        #: The simulated application's RENEW period while it processes a batch (None: it never renews);
        #: Scenario allows it only in explicit mode from 4.2 (`check_share_scenario`).
        self.renew_ms: int | None = world.share_renew_ms
        self.acquire_mode = config.get("share.acquire.mode") or "batch_optimized"
        self.max_records: int = config["max.poll.records"]
        self.retry_backoff_ms: int = config["retry.backoff.ms"]
        self.clock = world.processing_clock(name)
        self._ids = self.sim.random(f"member-id/{name}")
        self._reset_process_state()

    def _reset_process_state(self) -> None:
        super()._reset_process_state()
        self.epoch = 0
        self.assigned: list[int] = []       # partition indexes of the assignment, in (topic, partition) order
        self._hand_over([])
        self.acks: dict[int, list[tuple[int, int, str]]] = {}  # acknowledgements not sent yet, per partition
        self.sessions: set[int] = set()     # partitions fetched from (the share session's partitions)
        self.next_fetch_at = 0
        self.hb_backoff = self.retry_backoff_ms  # the wait before the next retry of a failed heartbeat

    def _hand_over(self, got: list[tuple[int, int, int, int]]) -> None:
        """What the last poll() returned, (i, first, last, count) ranges, none acknowledged by hand yet."""
        self.delivered = got
        self.batch_acked: set[tuple[int, int]] = set()  # (i, offset) acknowledged by hand since the last poll

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        self.incarnation += 1
        self._reset_process_state()
        self.alive = True
        if self.client_member_id:
            self.member_id = random_uuid(self._ids)
            self.world.member_names[self.member_id] = self.name
        self._row("Started", reason="dynamic")
        self._set_app_state("joining")
        self._arm_heartbeat(self.sim.now)
        if not self.manual:
            self.sim.schedule(0, self._poll)

    def crash(self) -> None:
        """The process dies. From 4.1 the broker sees the connection close and releases the
        member's records at once; 4.0 keeps them until their locks expire."""
        if not self.alive:
            return
        self._row("Crashed", value=len(self.assigned))
        if self.release_on_disconnect and self.sim.now >= self.cut_until:  # a cut network carries no FIN
            self._release_all()
        self._stop("stopped")

    def _close_now(self) -> None:
        """`ShareConsumerImpl.close`: pending acknowledgements with session epoch -1 (the session
        closes: the member's other records are released), then the leave heartbeat (-1). Implicit
        mode does not accept the last poll's records at close: they are released."""
        self._send_acks()
        if self.sim.now >= self.cut_until:  # else the session close is lost too: the locks expire
            self._release_all()
        if self.epoch > 0 and self.sim.now >= self.cut_until:
            self.coord.share_group_heartbeat(self.group_id, self.member_id, -1)
        for i in self.assigned:
            self._row("PartitionsRevoked", topic=self.parts.tps[i][0], partition=self.parts.tps[i][1])
        self._row("Closed")
        self._stop("stopped")

    def loss_cause(self) -> str:
        return self.lost_reason or "rebalance"

    # -- heartbeats (the background thread) -------------------------------------------------
    def _arm_heartbeat(self, at: int) -> None:
        """The one heartbeat timer (`hb_timer`): `_stop` cancels it, so no heartbeat runs for a stopped process."""
        if self.hb_timer is not None:
            self.hb_timer.cancel()
        self.hb_timer = self.sim.at(at, self._heartbeat)

    def _heartbeat(self) -> None:
        now = self.sim.now
        if now < self.frozen_until:
            self.hb_timer = self.sim.at(self.frozen_until, self._heartbeat)
            return
        self.hb_timer = None
        if now < self.cut_until:  # lost on the wire
            return self._retry_heartbeat()
        joining = self.epoch == 0
        r = self.coord.share_group_heartbeat(self.group_id, self.member_id, self.epoch,
                                             subscribed_topic_names=list(self.world.topics) if joining else None)
        if r.error is Errors.NONE:
            self.hb_backoff = self.retry_backoff_ms
            if not self.member_id:  # 4.0: the coordinator's id
                self.member_id = r.member_id
                self.world.member_names[r.member_id] = self.name
            self.epoch = r.member_epoch
            self.generation = self.epoch
            changed = r.assignment is not None and self._assignment(r.assignment)
            # A new assignment is reconciled (no callbacks), then acknowledged by a heartbeat sent at once
            # (ACKNOWLEDGING: AbstractMembershipManager.shouldHeartbeatNow); else the next one after the interval.
            self._arm_heartbeat(now if changed else now + r.heartbeat_interval_ms)
        elif r.error in REJOIN:
            self._fenced()
        elif r.error in RETRIABLE:
            self._retry_heartbeat()
        else:
            self._fatal(r.error)

    def _retry_heartbeat(self) -> None:
        """`HeartbeatRequestState.onFailedAttempt` (a request lost or answered with an error): the next
        heartbeat after retry.backoff.ms, doubled after each failure up to retry.backoff.max.ms (Kafka
        adds a 20% jitter, kafkasim none); a success starts again from retry.backoff.ms."""
        self._arm_heartbeat(self.sim.now + self.hb_backoff)
        self.hb_backoff = min(RETRY_BACKOFF_MAX_MS, self.hb_backoff * 2)

    def _fenced(self) -> None:
        """`transitionToFenced`: the assignment is gone; rejoin at once with epoch 0 (4.0: a new id)."""
        self.lost_reason = "fenced"
        self._set_assigned([], "PartitionsLost")
        self.epoch, self.generation = 0, -1
        if not self.client_member_id:
            self.member_id = ""
        self._arm_heartbeat(self.sim.now)

    def _assignment(self, assignment: dict[str, list[int]]) -> bool:
        """The assignment a heartbeat brought; True if it differs from the one held."""
        index = self.parts.index
        new = sorted(index[(t, p)] for t, ps in assignment.items() for p in ps if (t, p) in index)
        if new == self.assigned:
            return False
        self._set_assigned(new, "PartitionsRevoked")
        if self.assigned:
            self._wake()
        return True

    def _set_assigned(self, new: list[int], gone_kind: str) -> None:
        """The new assignment, as rows: what left (no callback in a share consumer), what came."""
        tps, kept = self.parts.tps, set(new)
        for i in self.assigned:
            if i not in kept:
                self._row(gone_kind, topic=tps[i][0], partition=tps[i][1])
        old = set(self.assigned)
        for i in new:
            if i not in old:
                self._row("PartitionsAssigned", topic=tps[i][0], partition=tps[i][1])
        self.assigned = new

    # -- the application thread: poll loop -----------------------------------------------------
    def _poll(self) -> None:
        if not self._poll_starts():
            return
        now = self.sim.now  # no poll timer to reset: ShareConsumerImpl never reads max.poll.interval.ms
        self._send_acks(implicit=True)
        if not self.assigned:
            self._set_app_state("joining")
            self.idle = True  # an assignment wakes it
            return
        if now < self.next_fetch_at or now < self.cut_until:
            return self._wait(max(self.next_fetch_at, min(self.cut_until, now + self.resolution)))
        self._fetch_and_process()

    def _wait(self, until: int) -> None:
        """poll() waits for records (Kafka long-polls; here the next fetch is at `until`). Not `idle`: an
        assignment that comes meanwhile changes nothing, the next fetch is due at `until` anyway."""
        self._set_app_state("consuming")
        self.next_poll = self.sim.at(until, self._poll)

    def _fetch_and_process(self) -> None:
        """One ShareFetch, then the records processed as one batch."""
        now = self.sim.now
        got, count = self._acquire()
        # A full batch: more may be waiting, fetch again at once; else wait for the poll resolution.
        self.next_fetch_at = now if count >= self.max_records else now + self.resolution
        if not got:
            return self._wait(now + self.resolution)
        self._set_app_state("consuming")
        duration = int(math.ceil(self.clock.take(count)))
        self._row("Fetched", value=count)
        self.batch = (got, count, now, self.sim.at(now + duration, self._batch_done))
        if self.renew_ms:
            self.sim.at(now + self.renew_ms, self._renew, self.incarnation, now)

    def _renew(self, incarnation: int, started: int) -> None:
        """The application, between two records of a long batch, renews the locks of the batch
        (`acknowledge(record, RENEW)` for each, then `commitAsync()`; KIP-1222, 4.2+). A thread frozen
        or stuck in application code renews nothing until it runs again."""
        if incarnation != self.incarnation or self.batch is None or self.batch[2] != started:
            return  # a later batch, or none (a dead process has none: `_stop`)
        now = self.sim.now
        busy_until = max(self.frozen_until, self.stalled_until)
        if now < busy_until:
            self.sim.at(busy_until, self._renew, incarnation, started)
            return
        for i, first, last, _ in self.batch[0]:
            self._add_ack(i, first, last, "RENEW")
        self._send_acks()
        self.sim.at(now + self.renew_ms, self._renew, incarnation, started)

    def _acquire(self) -> tuple[list[tuple[int, int, int, int]], int]:
        """One ShareFetch: acquire up to max.poll.records from the assigned partitions in turn;
        the acquired (partition index, first, last, delivery count) ranges and their size."""
        now = self.sim.now  # never under a network cut: poll() waits it out (a manual poll() gets nothing)
        world, member, mode = self.world, self.member_id, self.acquire_mode
        remaining = self.max_records
        got: list[tuple[int, int, int, int]] = []
        order = self.assigned
        k = len(order)
        tps = self.parts.tps
        for j in range(k):
            i = order[(self.rr + j) % k]
            sp = world.share_partition(i)
            batches = world.log_batches(i, sp.next_fetch_offset, remaining, now)
            if not batches:
                continue
            self.sessions.add(i)
            for a in sp.acquire(member, remaining, log_batches=batches, batch_size=self.max_records,
                                acquire_mode=mode):  # from the fetch offset, as `acquire` defaults
                got.append((i, a.first_offset, a.last_offset, a.delivery_count))
                remaining -= a.last_offset - a.first_offset + 1
                self._row("Acquired", topic=tps[i][0], partition=tps[i][1], reason=f"{a.first_offset}-{a.last_offset}",
                          value=a.delivery_count)
            if remaining <= 0:
                self.rr = (self.rr + j + 1) % k
                break
        return got, self.max_records - remaining

    # -- driven by hand (tests, notebooks): KafkaShareConsumer's own calls -----------------------
    manual = False  # True: no simulated application; poll() and acknowledge() are called by hand

    def poll(self) -> list[ShareRecord]:
        """`KafkaShareConsumer.poll()` called by hand (`manual` consumers): the pending
        acknowledgements are sent (implicit mode: the previous batch accepted), then one ShareFetch."""
        if self.explicit and self.delivered:
            pending = {(i, o) for i, first, last, _ in self.delivered for o in range(first, last + 1)}
            if pending - self.batch_acked:
                raise IllegalStateException("All records must be acknowledged in explicit acknowledgement mode.")
        self._send_acks(implicit=True)
        got = self._acquire()[0] if self.sim.now >= self.cut_until else []  # the ShareFetch is lost
        self._hand_over(got)
        return share_records(got, self.parts.tps)

    def _batch_done(self) -> None:
        # Never frozen nor stopped here: a freeze moves the batch's end past its own, `_stop` cancels it.
        got, count, start, _ = self.batch
        self.batch = None
        now = self.sim.now
        self.parts.process_ranges(got, count, start, now)
        self._row("Processed", value=count)
        if self.explicit:
            for i, first, last, _ in got:  # the application's acknowledge(record, type) for each record
                for a, b, kind in self.world.app_acknowledgements(i, first, last):
                    self._add_ack(i, a, b, kind)
        else:
            self.delivered = got
        self._poll()

    # -- acknowledgements --------------------------------------------------------------------
    def acknowledge(self, record: ShareRecord, type: str = "ACCEPT") -> None:
        """`KafkaShareConsumer.acknowledge(record, type)`, called by hand (`manual` consumers):
        explicit mode only, a record of the last poll(); sent with the next poll() or commit."""
        if not self.explicit:
            raise IllegalStateException("Implicit acknowledgement of delivery is being used.")
        if type not in ACKNOWLEDGE_TYPES or (type == "RENEW" and not self.renew):
            valid = ACKNOWLEDGE_TYPES if self.renew else ACKNOWLEDGE_TYPES[:3]
            raise ValueError(f"Invalid AcknowledgeType {type!r}: one of {', '.join(valid)} in Kafka "
                             f"{'.'.join(map(str, self.world.version))}")
        i = self.parts.index.get((record.topic, record.partition))
        if i is None or not any(j == i and a <= record.offset <= b for j, a, b, _ in self.delivered):
            raise IllegalStateException("The record cannot be acknowledged.")
        # A second acknowledgement of a record not sent yet replaces the first (ShareInFlightBatch).
        # Only this method adds to a manual consumer's pending acknowledgements: one offset each.
        offset = record.offset
        kept = [(a, b, kind) for a, b, kind in self.acks.get(i, []) if a != offset]
        self.acks[i] = sorted(kept + [(offset, offset, type)])
        if type != "RENEW":  # a renewed record must still be acknowledged (KIP-1222)
            self.batch_acked.add((i, offset))

    def _add_ack(self, i: int, first: int, last: int, kind: str) -> None:
        ranges = self.acks.setdefault(i, [])
        if ranges and ranges[-1][2] == kind and ranges[-1][1] + 1 == first:
            ranges[-1] = (ranges[-1][0], last, kind)
        else:
            ranges.append((first, last, kind))

    def commit_sync(self) -> dict[tuple[str, int], Errors]:
        """`commitSync()`: the implicit batch accepted, every pending acknowledgement sent now;
        the error of each partition (Errors.NONE on success)."""
        return self._send_acks(implicit=True)

    def _send_acks(self, implicit: bool = False) -> dict[tuple[str, int], Errors]:
        """Send what is pending, one acknowledgement per partition (atomic on the leader); `implicit`:
        first accept the last poll's records in implicit mode (a poll or a commit, not close)."""
        if implicit and not self.explicit:
            for i, first, last, _ in self.delivered:
                self._add_ack(i, first, last, "ACCEPT")
            self.delivered = []
        acks, self.acks = self.acks, {}
        out: dict[tuple[str, int], Errors] = {}
        tps = self.parts.tps
        for i, ranges in acks.items():
            if self.sim.now < self.cut_until:
                error = Errors.REQUEST_TIMED_OUT
            else:
                error = self.world.share_acknowledge(i, self.member_id, ranges)
            out[tps[i]] = error
            name = None if error is Errors.NONE else error.name
            for first, last, kind in ranges:
                self._row("Acknowledged", topic=tps[i][0], partition=tps[i][1], error=name,
                          reason=f"{kind} {first}-{last}", value=last - first + 1)
        return out

    def _release_all(self) -> None:
        """The share session closes: every record this member holds is released."""
        for i in sorted(self.sessions):
            self.world.share_release_all(i, self.member_id)
        self.delivered, self.acks = [], {}


def share_records(acquired: list[tuple[int, int, int, int]], tps: list[tuple[str, int]]) -> list[ShareRecord]:
    """The records of acquired ranges, one by one (what `poll()` hands the application)."""
    return [ShareRecord(*tps[i], o, count) for i, first, last, count in acquired for o in range(first, last + 1)]


__all__ = ["ShareConsumer", "ShareRecord", "IllegalStateException", "ACKNOWLEDGE_TYPES", "share_records"]
