"""The consumer's `SubscriptionState`: which partitions it owns, and per partition its position,
`paused` flag and (3.2.3+) `pendingRevocation` mark.

Read from `clients/src/main/java/org/apache/kafka/clients/consumer/internals/SubscriptionState.java`
at 2.3.0, 2.4.0, 3.3.0 and 3.7.0.
What decides whether a pause survives a rebalance is `assignFromSubscribed`:

* 0.9 - 2.3: it builds a fresh `TopicPartitionState` for every partition (`partitionToStateMap`),
  so every group assignment clears every pause flag and position, even of a partition that comes
  straight back (KAFKA-2350: "rebalance does not preserve pause/resume state");
* 2.4+: it reuses the state of partitions still assigned (KAFKA-8179, KIP-429, commit d88f1048da6);
  whether a pause survives then depends on the caller: eager `onJoinPrepare` first assigns the
  empty set, cooperative keeps what stays (see `kafkasim.client.pause_resume`).

Manual `assignFromUser` has reused kept partitions' state in every version (0.9+).

Simplified: positions are plain offsets (no leader epoch, no offset validation or reset states);
a partition without a position is "initializing" until `seek`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from kafkasim.core.config import version_tuple

TopicPartition = tuple[str, int]


def tp_str(tp: TopicPartition) -> str:
    """Java's `TopicPartition.toString()`: "orders-3"."""
    return f"{tp[0]}-{tp[1]}"


@lru_cache(maxsize=None)
def at_least(kafka_version, release: str) -> bool:
    """`kafka_version` is `release` or later ("3.2.3" >= "3.2.3", "3.3" >= "3.2.3", "3.2" < "3.2.3")."""
    return version_tuple(kafka_version) >= version_tuple(release)


class IllegalStateException(RuntimeError):
    """Java's `IllegalStateException`, as `KafkaConsumer.pause`/`resume`/`seek` throw it for a
    partition the consumer does not own (`SubscriptionState.assignedState`), and `KafkaShareConsumer`
    for an acknowledgement its mode does not allow (`client.share_consumer`)."""


@dataclass(slots=True)
class TopicPartitionState:
    """`SubscriptionState.TopicPartitionState`, reduced to what pause and fetching need."""

    position: int | None = None      # next offset to fetch and return; None until seek (INITIALIZING)
    paused: bool = False
    pending_revocation: bool = False  # KAFKA-14196 (3.2.3, 3.3.0): eager auto-commit before revocation

    def is_fetchable(self) -> bool:
        """`!paused && hasValidPosition` (3.2.3+: `&& !pendingRevocation`; only then is it ever set)."""
        return not self.paused and not self.pending_revocation and self.position is not None


class SubscriptionState:
    """The assignment of one consumer: an ordered map partition -> `TopicPartitionState`.

    Methods keep Kafka's names (snake_case) and its rules by version; `kafka_version` is any
    version `kafkasim.core.config` accepts ("2.3", "3.2.3", ...).
    """

    def __init__(self, kafka_version: str):
        self.kafka_version = kafka_version
        self.reuse_state = at_least(kafka_version, "2.4")          # KAFKA-8179 part 7
        self.has_pending_revocation = at_least(kafka_version, "3.2.3")  # KAFKA-14196
        self.assignment: dict[TopicPartition, TopicPartitionState] = {}
        self.assignment_id = 0  # bumped by every assignment change, as Kafka's `assignmentId`

    # -- assignment ---------------------------------------------------------------------------
    def assign_from_subscribed(self, partitions: Iterable[TopicPartition]) -> list[TopicPartition]:
        """Install a group assignment; returns the partitions whose pause flag this cleared.

        <= 2.3 every partition gets fresh state (`partitionToStateMap`); 2.4+ a partition already
        assigned keeps its state object (`assignment.stateValue(tp)`), paused flag included.
        """
        return self._assign(partitions, reuse=self.reuse_state)

    def assign_from_user(self, partitions: Iterable[TopicPartition]) -> list[TopicPartition]:
        """Manual `assign()`: kept partitions keep their state in every version (0.9+)."""
        return self._assign(partitions, reuse=True)

    def _assign(self, partitions, reuse: bool) -> list[TopicPartition]:
        old = self.assignment
        new = {}
        for tp in partitions:
            state = old.get(tp) if reuse else None
            new[tp] = state if state is not None else TopicPartitionState()
        self.assignment = new
        self.assignment_id += 1
        return [tp for tp, s in old.items() if s.paused and new.get(tp) is not s]

    def assigned_partitions(self) -> list[TopicPartition]:
        return list(self.assignment)

    def is_assigned(self, tp: TopicPartition) -> bool:
        return tp in self.assignment

    def _assigned_state(self, tp: TopicPartition) -> TopicPartitionState:
        state = self.assignment.get(tp)
        if state is None:
            raise IllegalStateException(f"No current assignment for partition {tp_str(tp)}")
        return state

    # -- pause --------------------------------------------------------------------------------
    def pause(self, tp: TopicPartition) -> bool:
        """Set the flag; True if it was not set. Raises IllegalStateException if tp is not owned."""
        state = self._assigned_state(tp)
        changed, state.paused = not state.paused, True
        return changed

    def resume(self, tp: TopicPartition) -> bool:
        """Clear the flag; True if it was set. Raises IllegalStateException if tp is not owned."""
        state = self._assigned_state(tp)
        changed, state.paused = state.paused, False
        return changed

    def is_paused(self, tp: TopicPartition) -> bool:
        """False for a partition that is not assigned (it has no state to be paused in)."""
        state = self.assignment.get(tp)
        return state is not None and state.paused

    def paused_partitions(self) -> list[TopicPartition]:
        return [tp for tp, s in self.assignment.items() if s.paused]

    def mark_pending_revocation(self, partitions: Iterable[TopicPartition]) -> None:
        """3.2.3+ only: eager + auto-commit, before the pre-rebalance commit (KAFKA-14196)."""
        if self.has_pending_revocation:
            for tp in partitions:
                self._assigned_state(tp).pending_revocation = True

    # -- fetching -----------------------------------------------------------------------------
    def is_fetchable(self, tp: TopicPartition) -> bool:
        state = self.assignment.get(tp)
        return state is not None and state.is_fetchable()

    def fetchable_partitions(self) -> list[TopicPartition]:
        return [tp for tp, s in self.assignment.items() if s.is_fetchable()]

    def has_valid_position(self, tp: TopicPartition) -> bool:
        return self._assigned_state(tp).position is not None

    def position(self, tp: TopicPartition) -> int | None:
        return self._assigned_state(tp).position

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self._assigned_state(tp).position = offset


__all__ = ["IllegalStateException", "SubscriptionState", "TopicPartition", "TopicPartitionState", "at_least",
           "tp_str"]
