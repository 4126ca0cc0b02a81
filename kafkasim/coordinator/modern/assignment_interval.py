"""The target-assignment interval of modern groups (KIP-1263, Kafka 4.3): consumer groups'
`group.consumer.assignment.interval.ms` and share groups' `group.share.assignment.interval.ms`
(`GroupCoordinatorConfig` at v8.3.x), both read by `GroupMetadataManager.canComputeNextTargetAssignment`.

A change within the interval bumps the group epoch at once; the target is computed by the next
heartbeat of any member once the interval has passed since the last computation (nothing is
scheduled). Before 4.3 the configs do not exist and every epoch bump computes a target (interval 0).

May import: `kafkasim.core`.
"""

from __future__ import annotations

from kafkasim.core.config import BROKER_CONFIGS, broker_config, check_exists


def can_compute_next_target_assignment(last_assignment_ms: int | None, interval_ms: int, now_ms: int) -> bool:
    """`canComputeNextTargetAssignment`: at once when no target was computed yet (Kafka: timestamp 0)
    or the interval is 0 (Kafka's escape hatch), else once the interval has passed."""
    return last_assignment_ms is None or interval_ms == 0 or now_ms >= last_assignment_ms + interval_ms


def interval_configs(kind: str) -> tuple[str, str, str]:
    """The interval and its bounds for `kind` "consumer" or "share"."""
    return (f"group.{kind}.assignment.interval.ms", f"group.{kind}.min.assignment.interval.ms",
            f"group.{kind}.max.assignment.interval.ms")


def assignment_interval(kafka_version: str, kind: str, interval: int | None, low: int | None,
                        high: int | None) -> int:
    """`group.<kind>.assignment.interval.ms`, checked against its bounds as `GroupCoordinatorConfig`
    checks them (`broker_config`'s wording). Before 4.3 the configs do not exist: 0 (the only
    behaviour then) is accepted, anything else refused."""
    names = interval_configs(kind)
    given = {name: value for name, value in zip(names, (interval, low, high)) if value is not None}
    if not BROKER_CONFIGS[names[0]].exists_in(kafka_version):
        for name, value in given.items():
            if name != names[0] or value != 0:
                check_exists("broker", BROKER_CONFIGS[name], kafka_version)
        return 0
    return broker_config(kafka_version, given)[names[0]]


__all__ = ["can_compute_next_target_assignment", "assignment_interval", "interval_configs"]
