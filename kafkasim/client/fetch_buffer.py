"""The consumer's fetch buffer: the queue of completed fetches that `poll()` drains.

Read from `clients/src/main/java/org/apache/kafka/clients/consumer/internals/Fetcher.java`
(`fetchedRecords`, `fetchRecords`, `fetchablePartitions`, <= 3.4), `AbstractFetch.java` (3.5-3.6)
and `FetchCollector.java` + `FetchBuffer.java` (`collectFetch`, 3.7+). The rules:

* a partition with buffered data (queued, or the partly returned "next in line" fetch) is not
  fetched again until that data is used up;
* up to 2.3, a completed fetch for a paused partition is drained and discarded when `poll()`
  reaches it, and fetched again after `resume()`;
* 2.4+ (KAFKA-7548, which made KIP-385 obsolete): it goes back to the tail of the queue and is
  returned without a new fetch once the partition is resumed;
* in every version, when its turn comes, a fetch is drained if its partition is no longer
  assigned, or assigned but not fetchable (no position; 3.2.3+ pending revocation; <= 2.3 paused),
  or if its offset is not the partition's position (stale); otherwise its records are returned and
  the position advances;
* a group rebalance does not clear the buffer; only the user's `assign`/`subscribe`/`unsubscribe`
  do (KAFKA-7096, 2.1.0), which `clear_buffered_data` models.

Simplified: one broker (so at most one fetch request in flight, as Kafka allows per node), no
fetch sessions, records counted, not materialised.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable, NamedTuple

from kafkasim.client.subscription_state import SubscriptionState, TopicPartition, at_least

NOT_ASSIGNED, NOT_FETCHABLE, STALE = "not_assigned", "not_fetchable", "stale_offset"


@dataclass(slots=True)
class CompletedFetch:
    """One partition's records from one fetch response: offsets [next_offset, end_offset)."""

    tp: TopicPartition
    next_offset: int
    end_offset: int
    assignment_id: int  # SubscriptionState.assignment_id when the fetch was sent

    @property
    def remaining(self) -> int:
        return self.end_offset - self.next_offset


class Returned(NamedTuple):
    """Records `poll()` hands to the application: [first, first + count) of tp."""

    tp: TopicPartition
    first: int
    count: int
    fetched_before_assignment: bool  # sent under an earlier assignment: it sat in the buffer across a rebalance


class Discarded(NamedTuple):
    tp: TopicPartition
    count: int
    reason: str  # NOT_ASSIGNED, NOT_FETCHABLE, STALE, or the caller's reason for clear_buffered_data


class Fetcher:
    """The completed-fetch queue of one consumer and the rules that drain it."""

    def __init__(self, subscriptions: SubscriptionState, max_poll_records: int):
        self.subscriptions = subscriptions
        self.max_poll_records = max_poll_records
        self.keep_paused = at_least(subscriptions.kafka_version, "2.4")  # KAFKA-7548
        self.completed: deque[CompletedFetch] = deque()
        self.next_in_line: CompletedFetch | None = None
        self.in_flight = False

    # -- what to fetch --------------------------------------------------------------------------
    def buffered(self) -> dict[TopicPartition, int]:
        """Records waiting in the buffer, per partition (next-in-line first, then queue order)."""
        out: dict[TopicPartition, int] = {}
        nil = self.next_in_line
        for cf in ([nil] if nil is not None and nil.remaining else []) + list(self.completed):
            out[cf.tp] = out.get(cf.tp, 0) + cf.remaining
        return out

    def fetchable_partitions(self) -> list[TopicPartition]:
        """`Fetcher.fetchablePartitions`: fetchable and with nothing buffered."""
        if self.in_flight:
            return []
        buffered = self.buffered()
        return [tp for tp in self.subscriptions.fetchable_partitions() if tp not in buffered]

    def send_fetches(self) -> list[tuple[TopicPartition, int]]:
        """`sendFetches()`: (partition, position) of each partition to fetch; marks the request in flight."""
        parts = self.fetchable_partitions()
        self.in_flight = self.in_flight or bool(parts)
        return [(tp, self.subscriptions.position(tp)) for tp in parts]

    def add(self, fetches: Iterable[CompletedFetch]) -> None:
        """A fetch response arrived: its partitions join the queue (whatever their state now)."""
        self.in_flight = False
        self.completed.extend(cf for cf in fetches if cf.remaining > 0)

    # -- poll() ---------------------------------------------------------------------------------
    def collect(self) -> tuple[list[Returned], list[Discarded]]:
        """`fetchedRecords()` / `collectFetch()`: up to max.poll.records records, in queue order."""
        returned: list[Returned] = []
        discarded: list[Discarded] = []
        paused_back: list[CompletedFetch] = []
        remaining = self.max_poll_records
        subs = self.subscriptions
        while remaining > 0:
            nil = self.next_in_line
            if nil is None or nil.remaining == 0:
                if not self.completed:
                    break
                self.next_in_line = self.completed.popleft()
            elif self.keep_paused and subs.is_paused(nil.tp):
                paused_back.append(nil)     # KAFKA-7548: kept for after resume()
                self.next_in_line = None
            else:
                got = self._fetch_records(nil, remaining, discarded)
                if got is not None:
                    returned.append(got)
                    remaining -= got.count
        self.completed.extend(paused_back)
        return returned, discarded

    def _fetch_records(self, cf: CompletedFetch, max_records: int, discarded: list[Discarded]) -> Returned | None:
        subs = self.subscriptions
        if not subs.is_assigned(cf.tp):
            reason = NOT_ASSIGNED   # "since it is no longer assigned"
        elif not subs.is_fetchable(cf.tp):
            reason = NOT_FETCHABLE  # "since it is no longer fetchable" (<= 2.3: also when paused)
        elif cf.next_offset != subs.position(cf.tp):
            reason = STALE          # "Ignoring fetched records ... since the current position is ..."
        else:
            n = min(max_records, cf.remaining)
            first = cf.next_offset
            cf.next_offset += n
            subs.seek(cf.tp, cf.next_offset)
            return Returned(cf.tp, first, n, cf.assignment_id != subs.assignment_id)
        discarded.append(Discarded(cf.tp, cf.remaining, reason))
        cf.next_offset = cf.end_offset  # drain()
        return None

    def clear_buffered_data(self, keep: Iterable[TopicPartition], reason: str) -> list[Discarded]:
        """Drop buffered data of partitions not in `keep` (`clearBufferedDataForUnassignedPartitions`)."""
        keep = set(keep)
        gone = [cf for cf in ([self.next_in_line] if self.next_in_line else []) + list(self.completed)
                if cf.tp not in keep and cf.remaining]
        self.completed = deque(cf for cf in self.completed if cf.tp in keep)
        if self.next_in_line is not None and self.next_in_line.tp not in keep:
            self.next_in_line = None
        return [Discarded(cf.tp, cf.remaining, reason) for cf in gone]


__all__ = ["NOT_ASSIGNED", "NOT_FETCHABLE", "STALE", "CompletedFetch", "Discarded", "Fetcher", "Returned"]
