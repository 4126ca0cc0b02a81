"""Which Kafka release's consumer-protocol rules apply, by `kafka_version`.

The coordinator code changed between 4.0 and 4.2 in ways a learner can see; each flag names the
Jira that changed it (read from `GroupMetadataManager.java`, `CurrentAssignmentBuilder.java` and
`UniformHomogeneousAssignmentBuilder.java` at the 4.0.0, 4.1.1 and 4.2.0-rc1 tags). Versions before
4.0 (the early-access 3.7-3.9 protocol, off by default there) get the 4.0 rules.

May import: `kafkasim.core`, `kafkasim.coordinator.modern.consumer.reconciliation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkasim.coordinator.modern.consumer.reconciliation import Rules
from kafkasim.core.config import parse_version


@dataclass(frozen=True)
class ProtocolRules:
    """Version switches for the coordinator side of the consumer protocol.

    - `rejoin_with_epoch_zero` (KAFKA-19233, 4.2): epoch 0 from a member that still exists is
      accepted and the member record reused; before, it is fenced unless its previous epoch is 0;
    - `bump_on_regex_clear` (KAFKA-19891 in 4.2, KAFKA-19899 in 4.1.2): clearing a regex bumps the epoch;
    - `uniform_stable_extra` (KAFKA-18688, 4.1): the homogeneous uniform assignor keeps a "+1"
      slot with the member that already holds it;
    - `reconciliation`: the `CurrentAssignmentBuilder` switches (see `Rules`).
    """

    version: tuple[int, int, int]
    rejoin_with_epoch_zero: bool
    bump_on_regex_clear: bool
    uniform_stable_extra: bool
    reconciliation: Rules

    @classmethod
    def for_version(cls, kafka_version) -> "ProtocolRules":
        v = (tuple(parse_version(kafka_version)) + (0, 0, 0))[:3]
        since_42 = v >= (4, 2, 0)
        return cls(
            version=v,
            rejoin_with_epoch_zero=since_42,
            bump_on_regex_clear=since_42 or (4, 1, 2) <= v,
            uniform_stable_extra=v >= (4, 1, 0),
            reconciliation=Rules(
                unrevoked_keeps_epoch=since_42,
                own_pending_not_unreleased=since_42 or (4, 0, 2) <= v < (4, 1, 0) or (4, 1, 2) <= v,
                revoke_unsubscribed_now=since_42,
            ),
        )


__all__ = ["ProtocolRules"]
