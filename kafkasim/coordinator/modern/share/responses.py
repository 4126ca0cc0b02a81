"""The ShareGroupHeartbeat response (API key 76): `clients/src/main/resources/common/message/
ShareGroupHeartbeatResponse.json`, with the slots and behaviour of the consumer protocol's
response (`kafkasim.coordinator.modern.api.HeartbeatResponse`).

May import: `kafkasim.core`, `kafkasim.coordinator.modern.api`.
"""

from __future__ import annotations

from kafkasim.coordinator.modern.api import HeartbeatResponse


class ShareGroupHeartbeatResponse(HeartbeatResponse):
    """`assignment` is `{topic: [partitions]}`, `{}` when sent but empty, None when not sent. A
    leave answers the member id with epoch -1, interval 0 and no assignment."""

    __slots__ = ()


__all__ = ["ShareGroupHeartbeatResponse"]
