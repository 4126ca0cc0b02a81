"""The ConsumerGroupHeartbeat response, and the error a handler raises to produce an error response.

Fields follow `clients/src/main/resources/common/message/ConsumerGroupHeartbeatResponse.json`:
an error response carries only the error code and message (member id None, epoch 0, interval 0,
no assignment), as Kafka's `ConsumerGroupHeartbeatResponseData` defaults read.

May import: `kafkasim.core`, `kafkasim.coordinator.modern.api` (`ApiError`, shared with share groups).
"""

from __future__ import annotations

from kafkasim.coordinator.modern.api import ApiError, HeartbeatResponse


class ConsumerGroupHeartbeatResponse(HeartbeatResponse):
    """What the coordinator answers: `assignment` is `{topic: [partitions]}`, or None when the
    response carries no assignment (the member's assignment did not change)."""

    __slots__ = ()


__all__ = ["ApiError", "ConsumerGroupHeartbeatResponse"]
