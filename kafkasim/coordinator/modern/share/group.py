"""A share group and its members: Kafka's `modern/share/ShareGroup.java` and `ShareGroupMember.java`
(4.0.0-4.2.0), with GMM's share-group state-partition metadata (initializing / initialized
partitions, 4.1+).

States are `ShareGroup.ShareGroupState`'s: "Empty" with no member, "Stable" with one or more
(`maybeUpdateGroupState`; no Assigning or Reconciling, since nothing is ever revoked); "Dead"
after deletion. A member is always "STABLE".

May import: `kafkasim.core`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from kafkasim.coordinator.modern.queries import as_lists

EMPTY_STATE, STABLE_STATE, DEAD = "Empty", "Stable", "Dead"
STABLE = "STABLE"

Assignment = Mapping[str, frozenset]


@dataclass(frozen=True)
class ShareGroupMember:
    """`ShareGroupMember`, with `ShareGroupMember.Builder`'s defaults (epoch 0, previous -1)."""

    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: str = STABLE
    rack_id: str | None = None
    subscribed_topic_names: frozenset = frozenset()
    assigned: Mapping[str, frozenset] = field(default_factory=dict)

    def evolve(self, **changes) -> "ShareGroupMember":
        return replace(self, **changes)


class ShareGroup:
    """One share group: epochs, members in join order, the target assignment, the subscription
    metadata last computed, and the share-state partitions (4.1+)."""

    def __init__(self, group_id: str, initial_epoch: int):
        self.group_id = group_id
        self.group_epoch = initial_epoch
        self.assignment_epoch = initial_epoch
        self.members: dict[str, ShareGroupMember] = {}
        self.target: dict[str, Assignment] = {}
        self.subscription_metadata: dict[str, int] = {}  # ModernGroup's metadataHash starts at 0, no topic's hash
        self.metadata_expired = True  # DeadlineAndEpoch.EMPTY (deadline 0): refreshed at the first heartbeat
        self.initialized: dict[str, frozenset] = {}
        self.initializing: dict[str, tuple[frozenset, int]] = {}  # topic -> (partitions, since ms)
        self.session_timer: dict = {}
        self.state = EMPTY_STATE
        self.last_assignment_ms: int | None = None   # KIP-1263: when the target was last computed (None: never)
        self.starts_at_zero: set[tuple[str, int]] = set()  # KAFKA-20742 (4.4): partitions initialized at offset 0

    def compute_state(self) -> str:
        return STABLE_STATE if self.members else EMPTY_STATE

    def subscribed_topics(self, members: Mapping[str, ShareGroupMember] | None = None) -> set[str]:
        return {t for m in (self.members if members is None else members).values() for t in m.subscribed_topic_names}



__all__ = ["ShareGroup", "ShareGroupMember", "EMPTY_STATE", "STABLE_STATE", "DEAD", "STABLE", "as_lists"]
