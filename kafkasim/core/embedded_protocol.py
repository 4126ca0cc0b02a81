"""The consumer's embedded protocol: the bytes a consumer puts in JoinGroup (its subscription)
and the leader puts in SyncGroup (each member's assignment), which the classic coordinator
passes through unread and the KIP-848 coordinator decodes when classic members live in a
consumer group (Kafka's `clients/.../consumer/internals/ConsumerProtocol.java`).

Simplified: JSON instead of Kafka's versioned binary schema. A subscription is
`{"topics": [...], "generation": g, "owned": [[topic, partition], ...]}`, plus `"user_data"` for
what an eager sticky assignor remembers (Kafka's `userData`); an assignment is
`[[topic, partition], ...]`. `ValueError` is the "malformed protocol" a broker would see.

May import: nothing of kafkasim.
"""

from __future__ import annotations

import json
from typing import Iterable, Mapping


def encode(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True).encode()


def decode(data: bytes):
    return json.loads(data) if data else None


def decode_subscription(data: bytes) -> tuple[list[str], dict[str, list[int]]]:
    """(topics, owned partitions as {topic: [partition]}) of a JoinGroup subscription."""
    try:
        meta = decode(data)
        topics = [str(t) for t in meta["topics"]]
        owned: dict[str, list[int]] = {}
        for topic, partition in meta.get("owned") or []:
            owned.setdefault(str(topic), []).append(int(partition))
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"cannot read the consumer subscription {data!r}: {e}") from None
    return topics, owned


def encode_assignment(assignment: Mapping[str, Iterable[int]]) -> bytes:
    return encode(sorted([t, p] for t, ps in assignment.items() for p in ps))


def decode_assignment(data: bytes) -> dict[str, list[int]]:
    """{topic: [partition]} of a SyncGroup assignment (empty bytes: nothing assigned)."""
    try:
        out: dict[str, list[int]] = {}
        for topic, partition in decode(data) or []:
            out.setdefault(str(topic), []).append(int(partition))
    except (ValueError, TypeError) as e:
        raise ValueError(f"cannot read the consumer assignment {data!r}: {e}") from None
    return out
