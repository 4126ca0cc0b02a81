"""The share-partition state on the partition leader (KIP-932): Kafka's `SharePartition`.

Kafka source: `core/src/main/java/kafka/server/share/SharePartition.java` at 4.0.0, 4.1.1 and
4.2.0 (with 4.3's per-group limits, KIP-1240), tested by `SharePartitionTest.java`. The share
partition keeps the in-flight records between the share-partition start offset (SPSO) and end
offset (SPEO), hands them out under acquisition locks, counts deliveries, and takes
acknowledgements. Every state change it makes (acknowledge, release, lock expiry) is one
WriteShareGroupState to the share coordinator, counted in `stats["write_share_group_state"]`.

4.4's dead-letter queue (KIP-1191, feature `share.version=2`; `SharePartition` on the 4.4 branch):
when the group sets `errors.deadletterqueue.topic.name`, a record archived at the delivery limit
(RELEASE, lock expiry, session release) or REJECTed is handed to the DLQ (`DlqRecord`, with
Kafka's cause "Offset delivery count exceeded the threshold." or "Offset rejected by client.")
and then ARCHIVED. Kafka passes it through the non-terminal ARCHIVING state and writes twice
(phase 1 ARCHIVING, phase 2 ARCHIVED after the DLQ produce, `initiateDLQAndArchive`); kafkasim
produces at once, so ARCHIVING is never seen, but both writes are counted. A failed DLQ write
still archives the record ("Failed to write to DLQ, proceeding to ARCHIVED regardless.").

Simplified, and said so: the share coordinator always answers at once and never fails (Kafka's
rollback on a failed write is not needed; the rollback of an acknowledgement that fails
validation is); there is no log, so `acquire` takes the log batches a read returned; compaction
(`maybeArchiveStaleBatches`), transactions (`read_committed`), log-start-offset movement and the
fetch lock are not modelled.

May import: `kafkasim.core`, `kafkasim.coordinator.assignor` (the version check it shares with
the simple assignor).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from kafkasim.coordinator.assignor.simple import share_version as share_line
from kafkasim.coordinator.modern.share.persisted import PersistedState
from kafkasim.coordinator.modern.share.state import (
    ACKNOWLEDGED, ACQUIRED, ARCHIVED, AVAILABLE, DECREASE, EMPTY_MEMBER_ID, INCREASE, NO_OP, TERMINAL,
    InFlightBatch, InFlightState)
from kafkasim.core.engine import Simulation, Timer
from kafkasim.core.errors import ConfigError, Errors, check_int
from kafkasim.core.java import INT_MAX

#: `AcknowledgeType` ids (`clients/.../consumer/AcknowledgeType.java`); GAP is 0 on the wire.
ACKNOWLEDGE_TYPES = {"GAP": 0, "ACCEPT": 1, "RELEASE": 2, "REJECT": 3, "RENEW": 4}
#: `SharePartition.ACK_TYPE_TO_RECORD_STATE` (RENEW changes no state).
ACK_TYPE_TO_RECORD_STATE = {"GAP": ARCHIVED, "ACCEPT": ACKNOWLEDGED, "RELEASE": AVAILABLE, "REJECT": ARCHIVED}
ACQUIRE_MODES = ("batch_optimized", "record_limit")
#: `ShareGroupDLQManager.DELIVERY_COUNT_EXCEEDED` / `CLIENT_REJECT` (4.4): why a record went to the DLQ.
DELIVERY_COUNT_EXCEEDED = "Offset delivery count exceeded the threshold."
CLIENT_REJECT = "Offset rejected by client."
#: `RecordState.ARCHIVING` (4.4): written by a DLQ flow's phase 1. kafkasim never holds it (it produces to the
#: DLQ at once); `load_state` reads it from a state cut short there.
ARCHIVING = "ARCHIVING"
#: `SharePartition.MINIMUM_THROTTLE_RECORDS_DELIVERY_LIMIT` (4.2).
MINIMUM_THROTTLE_RECORDS_DELIVERY_LIMIT = 2

#: Broker defaults (`ShareGroupConfig`): `group.share.partition.max.record.locks` (200 in 4.0,
#: 2000 from 4.1), `group.share.delivery.count.limit`, `group.share.record.lock.duration.ms`.
DEFAULT_MAX_RECORD_LOCKS = {(4, 0): 200}
DEFAULT_MAX_RECORD_LOCKS_LATER = 2000
DEFAULT_DELIVERY_COUNT_LIMIT = 5
DEFAULT_RECORD_LOCK_DURATION_MS = 30000


class AcquiredRecords(NamedTuple):
    """`ShareFetchResponseData.AcquiredRecords`: a range handed to one member, with its count."""

    first_offset: int
    last_offset: int
    delivery_count: int


class DlqRecord(NamedTuple):
    """`ShareGroupDLQRecordParameter` (4.4, KIP-1191): a range of one share partition sent to the
    group's dead-letter-queue topic, with its delivery count and cause."""

    group_id: str
    topic: str
    partition: int
    first_offset: int
    last_offset: int
    delivery_count: int
    cause: str


@dataclass(frozen=True)
class SharePartitionRules:
    """What changed in `SharePartition` between versions (each field names its Jira/KIP)."""

    split_new_batches: bool        # 4.1+: new ranges cut at log batches once BatchSize is reached
    release_decrements: bool       # 4.1 only: session release DECREASEs the count (KAFKA-17541 part 1)
    release_leaves_batch: bool     # 4.0-4.1: session release leaves a split batch at the first offset
                                   # another member holds; 4.2 skips that offset only (KAFKA-19953)
    cap_in_acquisition: bool       # 4.2+: `lastOffsetAndMaxRecordsToAcquire`
    throttle: bool                 # 4.2+: throttled redelivery (KAFKA-17541 part 2)
    record_limit: bool             # 4.2+: `share.acquire.mode=record_limit` (KIP-1206)
    renew: bool                    # 4.2+: RENEW acknowledgements (KIP-1222)
    gap_window: bool               # 4.1+: gaps in the persisted state are fetched (`InitialReadGapOffset`,
                                   # `GapWindow` in 4.2)
    start_adjust: bool             # 4.2+: a fetch below SPSO with nothing cached starts at SPSO
    gap_bounds: bool               # 4.2+: the gap start never moves back, nor past the window's end, and
                                   # an acquisition from the gap stops at its end (KAFKA-19632)
    group_limits: bool             # 4.3+: per-group delivery limit, record locks, RENEW switch (KIP-1240)
    dlq: bool                      # 4.4+: the dead-letter queue, with share.version=2 (KIP-1191)
    offset_ack_wording: bool       # 4.2+: "The offset cannot be acknowledged. ..." where 4.0-4.1 say
                                   # "The batch cannot be acknowledged. ..." (KAFKA-19476)

    @classmethod
    def for_version(cls, kafka_version) -> "SharePartitionRules":
        v = share_line(kafka_version)
        return cls(split_new_batches=v >= (4, 1), release_decrements=v == (4, 1), release_leaves_batch=v < (4, 2),
                   cap_in_acquisition=v >= (4, 2),
                   throttle=v >= (4, 2), record_limit=v >= (4, 2), renew=v >= (4, 2), gap_window=v >= (4, 1),
                   start_adjust=v >= (4, 2), gap_bounds=v >= (4, 2), group_limits=v >= (4, 3), dlq=v >= (4, 4),
                   offset_ack_wording=v >= (4, 2))


class _Failed(Exception):
    """An acknowledgement batch failed: the whole call answers `error` and is rolled back. Raised as
    `_Failed(error, message)`: `message` is the exception's message Kafka puts in the response's
    ErrorMessage (`SharePartition.ack_error_message`), None where Kafka answers the code alone."""

    def __init__(self, error: Errors, message: str | None = None):
        self.error, self.message = error, message


class SharePartition:
    """Kafka's `SharePartition` for one (group, topic, partition), ACTIVE from the start.

    Built as `SharePartitionTest`'s `SharePartitionBuilder` builds it: the limits are plain ints
    (>= 1), not checked against the broker configs' ranges; `None` takes the version's default.
    `group_config()` returns the group's dynamic overrides (`share.record.lock.duration.ms`, and
    from 4.3 `share.delivery.count.limit`, `share.partition.max.record.locks`,
    `share.renew.acknowledge.enable`; from 4.4 `errors.deadletterqueue.topic.name`), read each time
    they are used. `share_version` is the feature level (None: 2 from 4.4, else 1); `dlq_writer`
    produces a `DlqRecord` to the DLQ topic and returns None, or why it failed (the coordinator
    passes one that checks the topic as `ShareGroupDLQStateManager.validateDlqTopic`); None: every
    DLQ write succeeds. What was written is `dlq_records`.
    """

    def __init__(self, sim: Simulation, group_id: str, topic: str, partition: int, *, kafka_version="4.2",
                 max_in_flight_records: int | None = None, max_delivery_count: int | None = None,
                 default_record_lock_duration_ms: int | None = None,
                 group_config: Callable[[], Mapping[str, Any]] | None = None, share_version: int | None = None,
                 dlq_writer: Callable[[DlqRecord], str | None] | None = None):
        self.rules = SharePartitionRules.for_version(kafka_version)
        self.share_version = share_feature(share_version, self.rules.dlq)
        self._dlq_writer = dlq_writer
        self.dlq_records: list[DlqRecord] = []
        self.kafka_version = kafka_version
        version = share_line(kafka_version)
        if max_in_flight_records is None:
            max_in_flight_records = DEFAULT_MAX_RECORD_LOCKS.get(version, DEFAULT_MAX_RECORD_LOCKS_LATER)
        self.max_in_flight_records = check_int("max_in_flight_records", max_in_flight_records, 1)
        self.max_delivery_count = check_int("max_delivery_count", DEFAULT_DELIVERY_COUNT_LIMIT
                                            if max_delivery_count is None else max_delivery_count, 1)
        self.default_record_lock_duration_ms = check_int(
            "default_record_lock_duration_ms", DEFAULT_RECORD_LOCK_DURATION_MS
            if default_record_lock_duration_ms is None else default_record_lock_duration_ms, 1)
        self.sim = sim
        self.group_id, self.topic, self.partition = group_id, topic, partition
        self._group_config = group_config or dict
        self._cache: dict[int, InFlightBatch] = {}
        self._keys: list[int] = []          # the cache's first offsets, ascending (Kafka's NavigableMap)
        self._start = 0
        self._end = 0
        self._find_next = False             # `findNextFetchOffset`
        self._gap: list[int] | None = None  # `GapWindow` [endOffset, gapStartOffset] (4.1+)
        self.stats = {"write_share_group_state": 0, "timer_events": 0}
        self.dlq_failures = 0  # DLQ writes that failed (4.4): the records were archived regardless
        self._persisted_start = 0
        self._persisted = PersistedState()  # the state batches as last written
        #: The ErrorMessage of the last `acknowledge`'s answer: Kafka's exception message, None on
        #: success or where Kafka sends none. `SharePartitionManager.mapAcknowledgementFutures` puts
        #: `getMessage()` of the failure in ShareAcknowledgeResponse's ErrorMessage (4.0+); `KafkaApis`
        #: copies it to ShareFetch's AcknowledgeErrorMessage (4.2+), and the 4.2+ consumer's exception
        #: carries it (`ShareConsumeRequestManager`: `Errors.forCode(...).exception(acknowledgeErrorMessage)`).
        self.ack_error_message: str | None = None
        #: kafkasim's observer of every WriteShareGroupState (not Kafka's): called with the written
        #: [(first, last, InFlightState)]; a scenario writes them as events.
        self.on_write: Callable[[Sequence[tuple[int, int, InFlightState]]], None] | None = None

    # -- limits, read when used -----------------------------------------------------------------
    def _override(self, name: str, default):
        value = self._group_config().get(name)
        return default if value is None else value

    def max_delivery(self) -> int:
        """`maxDeliveryCount()`: the group's `share.delivery.count.limit` (4.3+) or the default."""
        return self._override("share.delivery.count.limit", self.max_delivery_count) \
            if self.rules.group_limits else self.max_delivery_count

    def max_in_flight(self) -> int:
        """`maxInFlightRecords()`: the group's `share.partition.max.record.locks` (4.3+) or the default."""
        return self._override("share.partition.max.record.locks", self.max_in_flight_records) \
            if self.rules.group_limits else self.max_in_flight_records

    def dlq_enabled(self) -> bool:
        """`isDLQEnabledForGroup` (4.4): share.version >= 2 and the group names a DLQ topic."""
        return (self.rules.dlq and self.share_version >= 2
                and bool(self._group_config().get("errors.deadletterqueue.topic.name")))

    def _to_dlq(self, entries: Sequence[tuple[int, int, InFlightState, str | None]]) -> None:
        """`initiateDLQAndArchive` for every archived range with a DLQ cause: produced to the DLQ
        (failures logged and ignored), then the phase-2 write of ARCHIVED, one per range."""
        if not self.dlq_enabled():
            return
        for first, last, state, cause in entries:
            if cause is not None and state.state == ARCHIVED:
                self._produce_to_dlq(first, last, state.delivery_count, cause)

    def _produce_to_dlq(self, first: int, last: int, delivery_count: int, cause: str) -> None:
        """Phase 2 of `initiateDLQAndArchive`: the DLQ produce (a group without a DLQ topic now fails
        `validateDlqTopic`), then ARCHIVED written whatever came of it."""
        record = DlqRecord(self.group_id, self.topic, self.partition, first, last, delivery_count, cause)
        # The writer answers None when the produce succeeded, else why it failed.
        if self.dlq_enabled() and (self._dlq_writer is None or self._dlq_writer(record) is None):
            self.dlq_records.append(record)
        else:
            self.dlq_failures += 1
        self.stats["write_share_group_state"] += 1

    def throttle_limit(self) -> int:
        """`throttleRecordsDeliveryLimit`: max(2, ceil(limit / 2)) (4.2+)."""
        return max(MINIMUM_THROTTLE_RECORDS_DELIVERY_LIMIT, math.ceil(self.max_delivery() / 2))

    def record_lock_duration_ms(self) -> int:
        """`recordLockDurationMsOrDefault`: the group's `share.record.lock.duration.ms` or the default."""
        return self._override("share.record.lock.duration.ms", self.default_record_lock_duration_ms)

    # -- the cache (Kafka's NavigableMap<Long, InFlightBatch>) ----------------------------------
    def _floor(self, offset: int) -> InFlightBatch | None:
        i = bisect_right(self._keys, offset) - 1
        return self._cache[self._keys[i]] if i >= 0 else None

    def _range(self, low: int, high: int) -> list[InFlightBatch]:
        """Batches whose first offset is in [low, high] (`subMap(low, true, high, true)`)."""
        return [self._cache[k] for k in self._keys[bisect_left(self._keys, low):bisect_right(self._keys, high)]]

    def _put(self, batch: InFlightBatch) -> None:
        self._cache[batch.first] = batch
        insort(self._keys, batch.first)

    def _batches(self) -> list[InFlightBatch]:
        return [self._cache[k] for k in self._keys]

    # -- locks ----------------------------------------------------------------------------------
    def _arm(self, first: int, last: int, deadline: int | None = None) -> Timer:
        """`scheduleAcquisitionLockTimeout`: a lock over first..last, for the lock duration. Kafka's
        timer task also carries the member id, read only by its log lines: kafkasim has none."""
        at = self.sim.now + self.record_lock_duration_ms() if deadline is None else deadline
        return self.sim.at(at, self._lock_expired, first, last)

    def _split(self, batch: InFlightBatch) -> None:
        batch.split(self._arm)

    def _lock_expired(self, first: int, last: int) -> None:
        """`releaseAcquisitionLockOnTimeout`: the locked records become AVAILABLE (ARCHIVED at the
        limit), owner cleared, count unchanged; one write.

        Kafka walks the cached batches from `first` to `last`, skipping records no longer ACQUIRED
        and archiving those below SPSO. Here a lock always covers one record state: a whole batch
        (`first..last`), or one offset of a split batch (`split` re-arms the batch's lock per
        offset); every change out of ACQUIRED cancels it, and SPSO only passes terminal records
        (the log start offset never moves: `updateCacheAndOffsets` is not modelled). So the lock
        that fires finds its record ACQUIRED and at or above SPSO."""
        self.stats["timer_events"] += 1
        state = self._floor(first).state_of(first)
        state.try_update(AVAILABLE, NO_OP, self.max_delivery(), EMPTY_MEMBER_ID)
        state.cancel_timer()
        if state.state != ARCHIVED:
            self._find_next = True
        self._write([(first, last, state)])
        self._to_dlq([(first, last, state, DELIVERY_COUNT_EXCEEDED)])
        self._update_cached_state_and_offsets()

    def lock_timers(self) -> list[Timer]:
        """The armed acquisition-lock timers, in deadline order (a `Timer` compares by time, then by
        the order timers were scheduled)."""
        return sorted(state.timer for batch in self._batches() for _, _, state in batch.states()
                      if state.timer is not None and state.timer.active)

    # -- offsets ----------------------------------------------------------------------------------
    @property
    def start_offset(self) -> int:
        """SPSO: the first offset not yet in a terminal state."""
        return self._start

    @property
    def end_offset(self) -> int:
        """SPEO: the last offset acquired so far (SPSO when the cache is empty)."""
        return self._end

    def _gap_active(self) -> bool:
        return self._gap is not None and self._gap[0] == self._end

    @property
    def next_fetch_offset(self) -> int:
        """`nextFetchOffset()`: the lowest AVAILABLE cached offset after a release or expiry, else
        SPEO + 1 (SPEO when the cache is empty); from 4.2 a gap in the persisted state first."""
        last_cached = self._cache[self._keys[-1]].last if self._keys else None
        if not self._find_next:
            return self._end if last_cached is None or self._start > last_cached else self._end + 1
        if last_cached is None or self._start > last_cached:
            self._find_next = False
            return self._end
        gap_start = self._gap[1] if self._gap_active() else -1
        for batch in self._batches():
            if self._gap_active():
                if batch.first > gap_start:
                    return gap_start
                gap_start = max(batch.last + 1, gap_start) if self.rules.gap_bounds else batch.last + 1
            for first, _, state in batch.states():
                if state.state == AVAILABLE:
                    return first
        self._find_next = False
        return self._end + 1

    def _num_in_flight(self) -> int:
        return self._end - self._start + 1 if self._cache else 0

    def can_acquire_records(self) -> bool:
        """`canAcquireRecords()`: re-available records, or fewer in flight than the limit."""
        if self.next_fetch_offset != self._end + 1:
            return True
        return self._num_in_flight() < self.max_in_flight()

    @property
    def delivery_complete_count(self) -> int:
        """`deliveryCompleteCount()`: terminal records at or above SPSO (4.2's lag subtracts it)."""
        return sum(min(last, batch.last) - max(first, self._start) + 1
                   for batch in self._batches() for first, last, state in batch.states()
                   if state.state in TERMINAL and last >= self._start)

    # -- per-offset queries ---------------------------------------------------------------------
    def _state_at(self, offset: int) -> InFlightState | None:
        batch = self._floor(offset)
        return None if batch is None or offset > batch.last else batch.state_of(offset)

    def state(self, offset: int) -> str | None:
        """The record state of a cached offset, or None."""
        s = self._state_at(offset)
        return None if s is None else s.state

    def delivery_count(self, offset: int) -> int | None:
        s = self._state_at(offset)
        return None if s is None else s.delivery_count

    def owner(self, offset: int) -> str:
        """The member holding the offset, or "" (`EMPTY_MEMBER_ID`)."""
        s = self._state_at(offset)
        return EMPTY_MEMBER_ID if s is None else s.member_id

    def cached_batches(self) -> list[tuple[int, int]]:
        """`cachedState()`: the in-flight batches, (first, last) by first offset."""
        return [(b.first, b.last) for b in self._batches()]

    def split_batches(self) -> list[tuple[int, int]]:
        """The cached batches that keep a per-offset state (`offsetState() != null`)."""
        return [(b.first, b.last) for b in self._batches() if b.offset_state is not None]

    # -- seeding ----------------------------------------------------------------------------------
    def load_state(self, start_offset: int, state_batches: Sequence[tuple[int, int, str, int]]) -> None:
        """What ReadShareGroupState returned at initialization (`maybeInitialize`). From 4.4 a batch
        may be ARCHIVING, its DLQ flow cut short after phase 1: `maybeResumeDlqArchiving`
        (KAFKA-20672) produces it to the DLQ again, cause by its delivery count, and archives it."""
        if self._cache:
            raise ConfigError("load_state: records are already in flight; load before the first acquire")
        start_offset = check_int("start_offset", start_offset, 0)
        persisted = (AVAILABLE, ACKNOWLEDGED, ARCHIVED) + ((ARCHIVING,) if self.rules.dlq else ())
        previous = start_offset - 1
        gap_start = -1
        batches, archiving = [], []
        for entry in state_batches:
            first, last, state, count = entry
            if state not in persisted:
                raise ConfigError(f"load_state: state {state!r} of {first}-{last} is not persisted; "
                                  f"valid: {', '.join(persisted)} (ACQUIRED is never written)")
            check_int("delivery_count", count, 0)
            if first < start_offset or last < first or first <= previous and batches:
                raise ConfigError(f"load_state: batch {first}-{last} overlaps, is out of order or starts "
                                  f"below the start offset {start_offset}")
            if gap_start == -1 and first > previous + 1:
                gap_start = previous + 1
            previous = last
            if state == ARCHIVING:
                archiving.append((first, last, count))
            batches.append(InFlightBatch(first, last, InFlightState(ARCHIVED if state == ARCHIVING else state, count)))
        self._start = self._persisted_start = start_offset
        for batch in batches:
            self._put(batch)
            self._persisted.put(batch.first, batch.last, batch.batch_state.state, batch.batch_state.delivery_count)
        for first, last, count in archiving:
            self._produce_to_dlq(first, last, count,
                                 DELIVERY_COUNT_EXCEEDED if count >= self.max_delivery() else CLIENT_REJECT)
        if self._cache:
            self._find_next = True
            self._end = batches[-1].last
            if gap_start != -1 and self.rules.gap_window:
                self._gap = [self._end, gap_start]
            self._update_cached_state_and_offsets()
        else:
            self._end = start_offset

    # -- acquire ----------------------------------------------------------------------------------
    def acquire(self, member_id: str, max_records: int | None, *, fetch_offset: int | None = None,
                log_batches: Sequence[tuple[int, int]], batch_size: int = 500,
                acquire_mode: str = "batch_optimized") -> list[AcquiredRecords]:
        """`SharePartition.acquire`: take the fetched records for `member_id`, AVAILABLE cached
        records first, new ones after; each acquisition counts a delivery and arms a lock."""
        if acquire_mode not in ACQUIRE_MODES or (acquire_mode == "record_limit" and not self.rules.record_limit):
            valid = ACQUIRE_MODES if self.rules.record_limit else ACQUIRE_MODES[:1]
            raise ConfigError(f"Invalid value {acquire_mode!r} for configuration share.acquire.mode in Kafka "
                              f"{self.kafka_version}: String must be one of: {', '.join(valid)}")
        batches = _checked_log_batches(log_batches)
        batch_size = check_int("batch_size", batch_size, 1)
        max_records = INT_MAX if max_records is None else max_records
        if fetch_offset is None:
            fetch_offset = self.next_fetch_offset
        if not batches or max_records <= 0 or not self.can_acquire_records():
            return []
        first_base, last_offset = batches[0][0], batches[-1][1]
        if last_offset < self._start:
            return []
        if self.rules.cap_in_acquisition:
            last_to_acquire, max_to_acquire = self._last_offset_and_max_records(fetch_offset, max_records, last_offset)
        else:
            last_to_acquire, max_to_acquire = last_offset, max_records
        if max_to_acquire <= 0:
            return []
        record_limit = acquire_mode == "record_limit"
        base = first_base
        floor = self._floor(base)
        if floor is None:
            if self.rules.start_adjust:
                base = max(base, self._start)
        elif floor.last >= base:
            base = floor.first
        sub = self._range(min(first_base, base), last_to_acquire)
        if not sub:
            return self._acquire_new(member_id, batches, record_limit, base, last_to_acquire, batch_size,
                                     max_to_acquire)[0]
        result = self._acquire_cached(member_id, batches, record_limit, sub, base, last_to_acquire, batch_size,
                                      max_to_acquire)
        if result:
            self._update_gap_start(result[-1].last_offset + 1)
        return result

    def _acquire_cached(self, member_id: str, batches: list[tuple[int, int]], record_limit: bool,
                        sub: list[InFlightBatch], base: int, last_to_acquire: int, batch_size: int,
                        max_to_acquire: int) -> list[AcquiredRecords]:
        """The overlap part of `acquire`: cached batches (and, 4.1+, the persisted state's gaps
        between them) in offset order, then new records past the last of them while fewer than
        `max_to_acquire` were taken. A throttled batch ends the acquisition: Kafka sets
        `maxRecordsToAcquire` to 0, so nothing new follows it."""
        first_base = batches[0][0]
        result: list[AcquiredRecords] = []
        acquired = 0
        gap_start = base
        for batch in sub:
            if acquired >= max_to_acquire:
                break
            if self._gap_active():
                # Kafka calls acquireNewBatchRecords only when gap_start < batch.first (and for new
                # records only past the last cached offset): `_acquire_new` takes nothing from an
                # empty range, so those checks are left to it.
                records, count = self._acquire_new(member_id, batches, record_limit, gap_start, batch.first - 1,
                                                   batch_size, max_to_acquire - acquired)
                result += records
                acquired += count
                gap_start = batch.last + 1
                if acquired >= max_to_acquire:
                    break
            full = batch.first >= first_base and batch.last <= last_to_acquire
            remaining = max_to_acquire - acquired
            subset_limit = record_limit and batch.last - batch.first + 1 > remaining
            throttle = self.rules.throttle and self._should_throttle(batch, first_base, last_to_acquire)
            if throttle and acquired > 0:
                return result
            if not full or batch.offset_state is not None or subset_limit or throttle:
                if batch.offset_state is None:
                    if batch.batch_state.state != AVAILABLE:
                        continue
                    self._split(batch)
                acquired += self._acquire_subset(member_id, record_limit, remaining, first_base, last_to_acquire,
                                                 batch, result)
                if throttle:  # Kafka also asks for a count > 0: the first AVAILABLE offset is always taken
                    return result
                continue
            state = batch.batch_state
            if state.state != AVAILABLE or not state.try_update(ACQUIRED, INCREASE, self.max_delivery(), member_id):
                continue
            state.timer = self._arm(batch.first, batch.last)
            result.append(AcquiredRecords(batch.first, batch.last, state.delivery_count))
            acquired += batch.last - batch.first + 1
        if acquired < max_to_acquire:  # new records past the cached ones (none when they reach last_to_acquire)
            records, _ = self._acquire_new(member_id, batches, record_limit, sub[-1].last + 1, last_to_acquire,
                                           batch_size, max_to_acquire - acquired)
            result += records
        return result

    def _last_offset_and_max_records(self, fetch_offset: int, max_records: int, last_offset: int) -> tuple[int, int]:
        """`lastOffsetAndMaxRecordsToAcquire` (4.2): the in-flight cap inside one acquisition."""
        max_to_acquire = min(max_records, self.max_in_flight() - self._num_in_flight())
        last_to_acquire = last_offset
        if max_to_acquire <= 0 and fetch_offset <= self._end:
            max_to_acquire = min(max_records, self._end - fetch_offset + 1)
            last_to_acquire = min(last_offset, self._end)
        return last_to_acquire, max_to_acquire

    def _acquire_new(self, member_id: str, batches: list[tuple[int, int]], record_limit: bool, first: int,
                     last: int, batch_size: int, max_records: int) -> tuple[list[AcquiredRecords], int]:
        """`acquireNewBatchRecords`: records never acquired before, whole log batches (soft limit)."""
        # Kafka moves the first offset to SPEO only when SPEO is past it: the larger of the two.
        first_acquired = first if self._cache else max(first, self._end)
        last_acquired = last
        if max_records < last_acquired - first_acquired + 1:
            last_acquired = _last_offset_of_batch_with(batches, first_acquired + max_records - 1)
            if self.rules.gap_bounds and self._gap_active():  # 4.1 takes the whole log batch
                last_acquired = min(last_acquired, last)
        if last_acquired < first_acquired:
            return [], 0
        records = self._create_batches(member_id, batches, record_limit, max_records, first_acquired, last_acquired,
                                       batch_size)
        if self._keys[0] == first_acquired:
            self._start = first_acquired
        self._end = max(self._end, last_acquired)
        if record_limit:
            last_acquired = records[0].last_offset
        self._update_gap_start(last_acquired + 1)
        return records, last_acquired - first_acquired + 1

    def _create_batches(self, member_id: str, batches: list[tuple[int, int]], record_limit: bool, max_records: int,
                        first: int, last: int, batch_size: int) -> list[AcquiredRecords]:
        """`createBatches`: cut at log-batch boundaries once a chunk reaches `batch_size` (4.1+)."""
        chunks = []
        current = first
        # Kafka also asks for more than `batch_size` records (`recordCount > batchSize`): implied by
        # the cut below, which needs a log batch starting `batch_size` or more past `first` and at or
        # before `last`.
        if not record_limit and self.rules.split_new_batches:
            for base, _ in batches:
                if base > last:
                    break
                if base - current >= batch_size:
                    chunks.append((current, base - 1))
                    current = base
        chunks.append((current, last))
        if record_limit and last - current + 1 > max_records:
            # Kafka builds the batch ACQUIRED and splits it at once (`maybeInitializeOffsetStateUpdate`):
            # the batch state is never read, so the batch is built split.
            batch = InFlightBatch(current, last, None)
            batch.offset_state = {o: InFlightState(ACQUIRED, 1, member_id, self._arm(o, o))
                                  if o <= current + max_records - 1 else InFlightState(AVAILABLE, 0)
                                  for o in range(current, last + 1)}
            self._find_next = True
            self._put(batch)
            return [AcquiredRecords(current, current + max_records - 1, 1)]
        for f, lst in chunks:
            self._put(InFlightBatch(f, lst, InFlightState(ACQUIRED, 1, member_id, self._arm(f, lst))))
        return [AcquiredRecords(f, lst, 1) for f, lst in chunks]

    def _should_throttle(self, batch: InFlightBatch, first: int, last: int) -> bool:
        """`shouldThrottleRecordsDelivery` (4.2): an AVAILABLE record at the throttle threshold."""
        limit = self.throttle_limit()
        return any(s.state == AVAILABLE and s.delivery_count >= limit for _, _, s in batch.states(first, last))

    def _acquire_subset(self, member_id: str, record_limit: bool, max_records: int, first: int, last: int,
                        batch: InFlightBatch, result: list[AcquiredRecords]) -> int:
        """`acquireSubsetBatchRecords`: offset by offset; from 4.2 a throttled batch gives
        `max(1, size >> (count - T + 1))` records and a record on its last attempt goes alone."""
        limit = self.max_delivery()
        throttle_limit = self.throttle_limit()
        acquired, throttled_max = 0, None  # Kafka's -1 and hasThrottledRecord in one
        taken: list[AcquiredRecords] = []
        for offset, state in batch.offset_state.items():
            if offset < first:
                continue
            if offset > last:
                break
            if state.state != AVAILABLE:
                continue
            if self.rules.throttle:
                if limit > 2 and state.delivery_count == limit - 1 and acquired > 0:
                    break
                if state.delivery_count >= throttle_limit and throttled_max is None:
                    throttled_max = max(1, len(batch.offset_state) >> (state.delivery_count - throttle_limit + 1))
            state.try_update(ACQUIRED, INCREASE, limit, member_id)  # AVAILABLE -> ACQUIRED always succeeds
            state.timer = self._arm(offset, offset)
            taken.append(AcquiredRecords(offset, offset, state.delivery_count))
            acquired += 1
            if self.rules.throttle and state.delivery_count == limit and limit > 2:
                break
            if record_limit and acquired == max_records:
                break
            if acquired == throttled_max:
                break
        result += _accumulate(taken)
        return acquired

    def _update_gap_start(self, offset: int) -> None:
        """`maybeUpdatePersisterGapWindowStartOffset` (4.2; `maybeUpdateReadGapFetchOffset` in 4.1)."""
        if self._gap is not None:
            if self._gap[0] == self._end and (offset <= self._gap[0] or not self.rules.gap_bounds):
                self._gap[1] = offset
            else:
                self._gap = None

    # -- acknowledge ------------------------------------------------------------------------------
    def acknowledge(self, member_id: str, batches: Sequence[tuple[int, int, Any]]) -> Errors:
        """`SharePartition.acknowledge`: `[(first, last, type or [type per offset])]`. The first
        failing batch fails the call and every change of the call is rolled back."""
        changes: list[tuple] = []
        try:
            for entry in batches:
                first, last, types = _checked_ack_batch(entry, self.rules.renew)
                if last < self._start:
                    continue
                self._acknowledge_batch(member_id, first, last, types, changes)
        except _Failed as failed:
            # Every change was made on an ACQUIRED record, so the rollback makes no record AVAILABLE:
            # `rollbackOrProcessStateUpdates`'s `updateFindNextFetchOffset(true)` for a record rolled
            # back to AVAILABLE never applies here.
            for _, _, state, snapshot, _ in reversed(changes):
                state.state, state.member_id = snapshot[0], snapshot[2]  # the count is not reverted
            self.ack_error_message = failed.message
            return failed.error
        self.ack_error_message = None
        self._commit(changes)
        return Errors.NONE

    def _acknowledge_batch(self, member_id: str, first: int, last: int, types: list[str],
                           changes: list[tuple]) -> None:
        for batch in self._ack_sub_map(first, last):
            if batch.last < self._start:
                continue
            if batch.offset_state is None:  # `validateAcknowledgementBatchMemberId`
                owner = batch.batch_state.member_id
                if owner == EMPTY_MEMBER_ID:
                    raise _Failed(Errors.INVALID_RECORD_STATE, "The batch cannot be acknowledged. The batch is not "
                                                               "in the acquired state.")
                if owner != member_id:
                    raise _Failed(Errors.INVALID_RECORD_STATE, "Member is not the owner of batch record")
            # From here an unsplit batch is ACQUIRED: a record has an owner exactly while it is
            # ACQUIRED (only a move to ACQUIRED sets one, every move out clears it, a rollback restores
            # both). So Kafka's checks "The batch cannot be acknowledged. The subset batch is not in
            # the acquired state." (before the split) and "The batch cannot be acknowledged. The batch
            # is not in the acquired state." (`acknowledgeCompleteBatch`) never fail here.
            full = batch.first >= first and batch.last <= last
            start_moved = batch.first < self._start <= batch.last
            if not full or batch.offset_state is not None or len(types) > 1 or start_moved:
                if batch.offset_state is None:
                    self._split(batch)
                for offset, state in batch.offset_state.items():
                    if offset < first or offset < self._start:
                        continue
                    if offset > last:
                        break
                    if state.state != ACQUIRED:
                        raise _Failed(Errors.INVALID_RECORD_STATE, "The offset cannot be acknowledged. The offset is "
                                      "not acquired." if self.rules.offset_ack_wording else
                                      "The batch cannot be acknowledged. The offset is not acquired.")
                    if state.member_id != member_id:
                        raise _Failed(Errors.INVALID_RECORD_STATE, "Member is not the owner of offset")
                    kind = types[offset - first] if len(types) > 1 else types[0]
                    self._apply(kind, offset, offset, state, changes)
            else:
                self._apply(types[0], batch.first, batch.last, batch.batch_state, changes)

    def _ack_sub_map(self, first: int, last: int) -> list[InFlightBatch]:
        """`fetchSubMapForAcknowledgementBatch`: the cached batches an acknowledgement covers."""
        floor = self._floor(first)
        if floor is None and first < self._start <= last:
            floor = self._floor(self._start)
        if floor is None:
            raise _Failed(Errors.INVALID_RECORD_STATE, "Batch record not found. The request batch offsets are not "
                                                       "found in the cache.")
        sub = self._range(floor.first, last)
        if sub[-1].last < first:
            raise _Failed(Errors.INVALID_REQUEST, "Batch record not found. The first offset in request is past "
                                                  "acquired records.")
        if last > sub[-1].last:
            raise _Failed(Errors.INVALID_REQUEST, "Batch record not found. The last offset in request is past "
                                                  "acquired records.")
        return sub

    def _apply(self, kind: str, first: int, last: int, state: InFlightState, changes: list[tuple]) -> None:
        """One ACQUIRED record state acknowledged (Kafka's member id here only feeds its log lines)."""
        if kind == "RENEW":  # a fresh full lock; nothing changes, nothing is written
            if self.rules.group_limits and not self._override("share.renew.acknowledge.enable", True):
                raise _Failed(Errors.INVALID_RECORD_STATE, "Renewing acquisition locks is not enabled for the group.")
            state.cancel_timer()
            state.timer = self._arm(first, last)
            return
        snapshot = state.snapshot()
        # ACQUIRED -> AVAILABLE, ACKNOWLEDGED or ARCHIVED always succeeds: Kafka's "Unable to
        # acknowledge records for the batch" (a refused transition) cannot happen here.
        state.try_update(ACK_TYPE_TO_RECORD_STATE[kind], NO_OP, self.max_delivery(), EMPTY_MEMBER_ID)
        cause = CLIENT_REJECT if kind == "REJECT" else DELIVERY_COUNT_EXCEEDED if kind == "RELEASE" else None
        changes.append((first, last, state, snapshot, cause))

    def _commit(self, changes: list[tuple]) -> None:
        """The write succeeded (`completeStateTransition(true)`): locks cancelled, SPSO moved."""
        if not changes:
            return
        self._write([(first, last, state) for first, last, state, _, _ in changes])
        self._to_dlq([(first, last, state, cause) for first, last, state, _, cause in changes])
        for _, _, state, _, _ in changes:
            state.cancel_timer()
            if state.state == AVAILABLE:
                self._find_next = True
        self._update_cached_state_and_offsets()

    # -- release ----------------------------------------------------------------------------------
    def release_all(self, member_id: str) -> Errors:
        """`releaseAcquiredRecords(memberId)`: the member's share session closed. Its ACQUIRED
        records become AVAILABLE (ARCHIVED at the limit); the count is kept in 4.0 and 4.2+,
        decremented in 4.1. Kafka archives the records below SPSO whatever their count, after a
        move of the log start offset inside a batch: not modelled, SPSO only passes terminal records."""
        ops = DECREASE if self.rules.release_decrements else NO_OP
        limit = self.max_delivery()
        changes: list[tuple] = []
        for batch in self._batches():
            for first, last, state in batch.states():
                if state.member_id not in (member_id, EMPTY_MEMBER_ID):
                    if self.rules.release_leaves_batch:
                        break  # 4.0-4.1 return from the batch (an unsplit one has a single state)
                    continue
                if state.state == ACQUIRED:  # no snapshot: a release is never rolled back
                    state.try_update(AVAILABLE, ops, limit, EMPTY_MEMBER_ID)
                    changes.append((first, last, state, None, DELIVERY_COUNT_EXCEEDED))
        self._commit(changes)
        return Errors.NONE

    # -- the share coordinator's copy --------------------------------------------------------------
    def _write(self, written: Sequence[tuple[int, int, InFlightState]]) -> None:
        """One WriteShareGroupState: the start offset of the moment and the changed records."""
        self.stats["write_share_group_state"] += 1
        if self.on_write is not None:
            self.on_write(written)
        self._persisted_start = self._start
        for first, last, state in written:
            self._persisted.put(first, last, state.state, state.delivery_count)
        self._persisted.trim(self._persisted_start)

    def persisted_state(self) -> tuple[int, list[tuple[int, int, str, int]]]:
        """What the share coordinator holds (`__share_group_state`): the start offset and state
        batches as last written. ACQUIRED is never written, so a new leader built with
        `SharePartition(...).load_state(*old.persisted_state())` sees records that were ACQUIRED
        at the failover as their last persisted state, or not at all (fetched again as new)."""
        return self._persisted_start, self._persisted.batches()

    # -- SPSO -------------------------------------------------------------------------------------
    def _can_move_start_offset(self) -> bool:
        batch = self._floor(self._start)
        if batch is None or self._start > batch.last:
            return False
        return batch.state_of(self._start).state in TERMINAL

    def _update_cached_state_and_offsets(self) -> None:
        """`maybeUpdateCachedStateAndOffsets`: SPSO past the terminal run at it; fully terminal
        batches leave the cache; everything terminal empties it (SPSO = SPEO = last + 1)."""
        if not self._cache or not self._can_move_start_offset():
            return
        last_acknowledged = self._last_terminal_offset()
        if last_acknowledged == -1:
            return
        last_cached = self._cache[self._keys[-1]].last
        if last_acknowledged == last_cached:
            self._start = self._end = last_cached + 1
            self._cache.clear()
            self._keys.clear()
            return
        entry = self._floor(last_acknowledged)
        # The batches leaving the cache: through `entry` when it is wholly terminal, else only those
        # before it. Kafka's `lastKeyToRemove = -1` (nothing to remove when `entry` is the first
        # batch) guards `subMap(firstKey, lastKeyToRemove)`, which refuses a last key below the
        # first; an empty slice needs no guard, so `cut` is simply 0 then.
        cut = bisect_right(self._keys, entry.first)
        if last_acknowledged == entry.last:
            higher = self._keys[cut]
            self._start = max(self._start, higher)
            if self._gap_active():
                self._start = min(self._gap[1], self._start)
        else:
            self._start = max(self._start, last_acknowledged + 1)
            cut -= 1
        for key in self._keys[:cut]:
            del self._cache[key]
        del self._keys[:cut]

    def _last_terminal_offset(self) -> int:
        """`findLastOffsetAcknowledgedAndMetadata`: the end of the terminal run from the cache's start,
        -1 if none. The run stops at the first batch reaching the gap start (`lastOffset() >=
        gapStartOffset()`): records from there may still be fetched from the gap. That can be the
        first batch (the gap start moves back when it is acquired again), hence a -1 here too."""
        last_acknowledged = -1
        for batch in self._batches():
            if self._gap_active() and batch.last >= self._gap[1]:
                return last_acknowledged
            for _, last, state in batch.states():
                if state.state not in TERMINAL:
                    return last_acknowledged
                last_acknowledged = last
        return last_acknowledged

    def __repr__(self) -> str:
        return (f"SharePartition({self.group_id!r}, {self.topic}-{self.partition}, start={self._start}, "
                f"end={self._end}, batches={self.cached_batches()})")


def share_feature(share_version: int | None, dlq: bool) -> int:
    """The feature `share.version` (`ShareVersion`): 1 (share groups), 2 (4.4+: the DLQ, KIP-1191);
    None: the version's latest production level (2 from 4.4, else 1)."""
    if share_version is None:
        return 2 if dlq else 1
    top = 2 if dlq else 1
    if isinstance(share_version, bool) or share_version not in range(1, top + 1):
        raise ConfigError(f"share_version (the feature share.version) must be 1" + (" or 2" if dlq else
                          " before Kafka 4.4 (2, the dead-letter queue of KIP-1191, is 4.4's)") + f", got {share_version!r}")
    return share_version


def _checked_log_batches(log_batches: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The log read's record batches: ascending, non-overlapping, non-negative (ConfigError)."""
    out: list[tuple[int, int]] = []
    for entry in log_batches:
        try:
            base, last = entry
        except (TypeError, ValueError):
            raise ConfigError(f"log_batches entries must be (base_offset, last_offset), got {entry!r}") from None
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (base, last)) or base < 0 or last < base:
            raise ConfigError(f"log batch {entry!r} must be two offsets >= 0 with base_offset <= last_offset")
        if out and base <= out[-1][1]:
            raise ConfigError(f"log_batches must be ascending and not overlap: {out[-1]} then {entry!r}")
        out.append((base, last))
    return out


def _checked_ack_batch(entry: tuple[int, int, Any], renew: bool) -> tuple[int, int, list[str]]:
    """One acknowledgement batch; INVALID_REQUEST for an unknown type (RENEW before 4.2) or a
    malformed range, as `KafkaApis.validateAcknowledgementBatches` answers before the share
    partition sees the batch: the code alone (`ShareAcknowledgeResponse.partitionResponse`), no
    message (`SharePartition`'s own "Invalid acknowledge type: [...]" is not reached from the wire)."""
    try:
        first, last, types = entry
    except (TypeError, ValueError):
        raise ConfigError(f"acknowledgement batches are (first_offset, last_offset, type), got {entry!r}") from None
    types = [types] if isinstance(types, str) else list(types)
    known = set(ACKNOWLEDGE_TYPES) - (set() if renew else {"RENEW"})
    if not types or any(t not in known for t in types):
        raise _Failed(Errors.INVALID_REQUEST)
    if first > last or (len(types) > 1 and len(types) != last - first + 1):
        raise _Failed(Errors.INVALID_REQUEST)
    return first, last, types


def _last_offset_of_batch_with(batches: list[tuple[int, int]], offset: int) -> int:
    """`lastOffsetFromBatchWithRequestOffset`: the end of the log batch holding `offset`, else `offset`
    (between batches). The batches ascend without overlap, so the last one starting at or before
    `offset` ends at the largest such end."""
    return max([offset] + [last for base, last in batches if base <= offset])


def _accumulate(records: list[AcquiredRecords]) -> list[AcquiredRecords]:
    """`ShareFetchUtils.accumulateAcquiredRecords`: adjacent offsets with one count merge."""
    out: list[AcquiredRecords] = []
    for r in records:
        if out and r.first_offset == out[-1].last_offset + 1 and r.delivery_count == out[-1].delivery_count:
            out[-1] = out[-1]._replace(last_offset=r.last_offset)
        else:
            out.append(r)
    return out
