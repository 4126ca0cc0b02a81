"""Which Kafka release's consumer-protocol rules apply, by `kafka_version`.

The coordinator code changed between 4.0 and 4.4 in ways a learner can see; each flag names the
Jira that changed it (read from `GroupMetadataManager.java`, `CurrentAssignmentBuilder.java`,
`UniformHomogeneousAssignmentBuilder.java`, `modern/ModernGroup.java` and
`modern/consumer/ConsumerGroup.java` at the 4.0.0, 4.1.1 and 4.2.0-rc1 tags, and at Confluent's
`v8.3.0` (= Apache 4.3.0), `v8.3.1` (4.3.1) and the head of its `4.4` branch). Versions before 4.0
(the early-access 3.7-3.9 protocol, off by default there) get the 4.0 rules. The patch releases
modelled: 4.0.2, 4.1.2 and 4.3.1 (a line, "4.3", means its first release, 4.3.0).

May import: `kafkasim.core`, `kafkasim.coordinator.modern.consumer.reconciliation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkasim.coordinator.modern.consumer.reconciliation import Rules
from kafkasim.core.config import normalize_version, parse_version


@dataclass(frozen=True)
class ProtocolRules:
    """Version switches for the coordinator side of the consumer protocol.

    - `rejoin_with_epoch_zero` (KAFKA-19233, 4.2): epoch 0 from a member that still exists is
      accepted and the member record reused; before, it is fenced unless its previous epoch is 0;
    - `bump_on_regex_clear` (KAFKA-19891 in 4.2, KAFKA-19899 in 4.1.2): clearing a regex bumps the epoch;
    - `uniform_stable_extra` (KAFKA-18688, 4.1): the homogeneous uniform assignor keeps a "+1"
      slot with the member that already holds it;
    - `initial_group_epoch` (KAFKA-20268, 4.3): a new group starts at group and target epoch 1
      (an empty target), so its first computed target is epoch 2; 0 before, where the first
      heartbeat of a new group always bumped to 1;
    - `assignment_epochs` (KIP-1251, KAFKA-20066, 4.3): each assigned partition remembers the epoch
      it was assigned at; an OffsetCommit with an older member epoch is checked per partition
      against it, and a static member leaving with -2 has its partitions' epochs reset to 0;
    - `classic_follows_target_epoch` (KAFKA-20272, 4.3): a classic member's Heartbeat and SyncGroup
      compare its epoch with the target assignment epoch, not the group epoch, so a postponed
      target does not send it to rejoin;
    - `static_rejoin_when_full` (KAFKA-20601, 4.3.1 and 4.4): a known static member may rejoin a
      group at `group.consumer.max.size`;
    - `classic_join_needs_migration` (KAFKA-20640, 4.3.1 and 4.4): under
      `group.consumer.migration.policy=disabled` a classic member may not join a consumer group;
    - `bump_on_assignor_change` (KAFKA-20434, 4.4): a change of the group's preferred server
      assignor bumps the group epoch;
    - `empty_group_catches_up` (KAFKA-20442, 4.4): when the last members are fenced or leave, the
      target epoch catches up with the group epoch and the assignment interval restarts;
    - `reconciliation`: the `CurrentAssignmentBuilder` switches (see `Rules`).
    """

    version: tuple[int, int, int]
    rejoin_with_epoch_zero: bool
    bump_on_regex_clear: bool
    uniform_stable_extra: bool
    reconciliation: Rules
    initial_group_epoch: int = 0
    assignment_epochs: bool = False
    classic_follows_target_epoch: bool = False
    static_rejoin_when_full: bool = False
    classic_join_needs_migration: bool = False
    bump_on_assignor_change: bool = False
    empty_group_catches_up: bool = False

    @classmethod
    def for_version(cls, kafka_version) -> "ProtocolRules":
        v = (tuple(parse_version(kafka_version)) + (0, 0, 0))[:3]
        normalize_version(v)  # a version kafkasim does not model is refused, as Scenario refuses it
        since_42, since_43, since_431 = v >= (4, 2, 0), v >= (4, 3, 0), v >= (4, 3, 1)
        return cls(
            version=v,
            rejoin_with_epoch_zero=since_42,
            bump_on_regex_clear=since_42 or (4, 1, 2) <= v,
            uniform_stable_extra=v >= (4, 1, 0),
            reconciliation=Rules(
                unrevoked_keeps_epoch=since_42,
                own_pending_not_unreleased=since_42 or (4, 0, 2) <= v < (4, 1, 0) or (4, 1, 2) <= v,
                revoke_unsubscribed_now=since_42,
                unsubscribe_moves_previous_epoch=since_43,
            ),
            initial_group_epoch=1 if since_43 else 0,
            assignment_epochs=since_43,
            classic_follows_target_epoch=since_43,
            static_rejoin_when_full=since_431,
            classic_join_needs_migration=since_431,
            bump_on_assignor_change=v >= (4, 4, 0),
            empty_group_catches_up=v >= (4, 4, 0),
        )


__all__ = ["ProtocolRules"]
