"""What the modern protocols (consumer groups, KIP-848; share groups, KIP-932) share on the
request path: `HeartbeatResponse` (the slots both heartbeat responses have) and `ApiError`, the failure a heartbeat handler raises to produce an error response
(Kafka's `ApiException` subclasses, caught by `GroupCoordinatorService` and turned into the
response's ErrorCode and ErrorMessage). Kept here, above `consumer/` and `share/`, as Kafka keeps
`ModernGroup` and `TargetAssignmentBuilder` in `org.apache.kafka.coordinator.group.modern`.

May import: `kafkasim.core`.
"""

from __future__ import annotations

from kafkasim.core.errors import Errors


class ApiError(Exception):
    """A request failed with a Kafka error (Kafka's `ApiException` subclasses); nothing is written."""

    def __init__(self, error: Errors, message: str | None = None):
        super().__init__(f"{error.name}: {message or error.message}")
        self.error = error
        self.message = message or error.message


class HeartbeatResponse:
    """A modern heartbeat's answer (ConsumerGroupHeartbeat, ShareGroupHeartbeat): `assignment` is
    `{topic: [partitions]}`, or None when the response carries none. An error response carries only
    the error code and message (member id None, epoch 0, interval 0), as the RPCs' defaults read."""

    __slots__ = ("error", "error_message", "member_id", "member_epoch", "heartbeat_interval_ms", "assignment")

    def __init__(self, error: Errors = Errors.NONE, error_message: str | None = None, member_id: str | None = None,
                 member_epoch: int = 0, heartbeat_interval_ms: int = 0,
                 assignment: dict[str, list[int]] | None = None):
        self.error = error
        self.error_message = error_message
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.assignment = assignment

    @property
    def done(self) -> bool:
        """Always True: the modern protocols answer every heartbeat at once (no parked requests)."""
        return True

    def __repr__(self) -> str:
        if self.error is not Errors.NONE:
            return f"{type(self).__name__}(error={self.error!r}, error_message={self.error_message!r})"
        return (f"{type(self).__name__}(error={self.error!r}, member_id={self.member_id!r}, "
                f"member_epoch={self.member_epoch}, heartbeat_interval_ms={self.heartbeat_interval_ms}, "
                f"assignment={self.assignment!r})")


__all__ = ["ApiError", "HeartbeatResponse"]
