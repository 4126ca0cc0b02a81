"""Record states and the in-flight batches of a share partition.

Kafka source: `server/src/main/java/org/apache/kafka/server/share/fetch/RecordState.java`,
`InFlightState.java` and `InFlightBatch.java` (4.1+; in 4.0 they are inner classes of
`core/src/main/java/kafka/server/share/SharePartition.java`). A batch holds one state for all its
offsets until something splits it (a partial acknowledgement or acquisition, SPSO moving inside it);
from then on every offset has its own `InFlightState` (`InFlightBatch.offsetState`).

May import: `kafkasim.core`.
"""

from __future__ import annotations

from typing import Callable

from kafkasim.core.engine import Timer

AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVED = "AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ARCHIVED"
#: `RecordState.id`: what WriteShareGroupState persists (ACQUIRED is never written).
RECORD_STATE_IDS = {AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVED: 4}
TERMINAL = frozenset((ACKNOWLEDGED, ARCHIVED))
#: `RecordState.validateTransition`: ACKNOWLEDGED and ARCHIVED are terminal.
_ALLOWED = {AVAILABLE: {ACQUIRED, ARCHIVED}, ACQUIRED: {AVAILABLE, ACKNOWLEDGED, ARCHIVED}}
#: Kafka's `EMPTY_MEMBER_ID`: the owner of a record nobody holds.
EMPTY_MEMBER_ID = ""

INCREASE, DECREASE, NO_OP = "INCREASE", "DECREASE", "NO_OP"  # `DeliveryCountOps`


class InFlightState:
    """State, delivery count, owner and acquisition-lock timer of one batch or one offset."""

    __slots__ = ("state", "delivery_count", "member_id", "timer")

    def __init__(self, state: str, delivery_count: int, member_id: str = EMPTY_MEMBER_ID,
                 timer: Timer | None = None):
        self.state = state
        self.delivery_count = delivery_count
        self.member_id = member_id
        self.timer = timer

    def try_update(self, new_state: str, ops: str, max_delivery_count: int, member_id: str) -> bool:
        """`InFlightState.tryUpdateState`: a record that would become AVAILABLE at the delivery
        limit is ARCHIVED instead (not under DECREASE); ARCHIVED keeps the count. False (nothing
        changed) for a transition `validateTransition` refuses."""
        if new_state == AVAILABLE and ops != DECREASE and self.delivery_count >= max_delivery_count:
            new_state = ARCHIVED
        if new_state not in _ALLOWED.get(self.state, ()):
            return False
        if new_state != ARCHIVED:
            self.delivery_count += 1 if ops == INCREASE else -1 if ops == DECREASE else 0
        self.state = new_state
        self.member_id = member_id
        return True

    def cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def snapshot(self) -> tuple:
        return self.state, self.delivery_count, self.member_id, self.timer

    def __repr__(self) -> str:
        return f"InFlightState({self.state}, count={self.delivery_count}, member={self.member_id!r})"


class InFlightBatch:
    """`InFlightBatch`: offsets `first..last` with one `batch_state`, or per-offset `offset_state`
    once split (`maybeInitializeOffsetStateUpdate`)."""

    __slots__ = ("first", "last", "batch_state", "offset_state")

    def __init__(self, first: int, last: int, state: InFlightState | None):
        self.first = first
        self.last = last
        self.batch_state: InFlightState | None = state
        self.offset_state: dict[int, InFlightState] | None = None

    def split(self, rearm: Callable[[int, int, int], Timer]) -> None:
        """Per-offset states from the batch state; a running lock becomes one lock per offset
        with the same deadline (`rearm(first, last, deadline)`)."""
        if self.offset_state is not None:
            return
        batch = self.batch_state
        assert batch is not None
        deadline = batch.timer.time if batch.timer is not None and batch.timer.active else None
        self.offset_state = {
            o: InFlightState(batch.state, batch.delivery_count, batch.member_id,
                             None if deadline is None else rearm(o, o, deadline))
            for o in range(self.first, self.last + 1)}
        batch.cancel_timer()
        self.batch_state = None

    def states(self, low: int | None = None, high: int | None = None):
        """`(offset range first, last, InFlightState)` of the batch, or per offset within [low, high]."""
        if self.offset_state is None:
            yield self.first, self.last, self.batch_state
            return
        for offset, state in self.offset_state.items():
            if (low is None or offset >= low) and (high is None or offset <= high):
                yield offset, offset, state

    def state_of(self, offset: int) -> InFlightState:
        return self.batch_state if self.offset_state is None else self.offset_state[offset]

    def __repr__(self) -> str:
        inner = self.batch_state if self.offset_state is None else f"{len(self.offset_state)} offsets"
        return f"InFlightBatch({self.first}-{self.last}, {inner})"
