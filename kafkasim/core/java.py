"""Java's integer semantics where Kafka's behaviour depends on them: `Integer.MAX_VALUE` (the
"unbounded" default of `group.max.size` and friends, the 32-bit size fields of KAFKA-1196) and
`String.hashCode`, which places a group on a `__consumer_offsets` partition
(`GroupMetadataManager.partitionFor`) and orders the 0.8.2 consumer's partitions
(`PartitionAssignor.scala`); and Kafka's `Uuid.toString` (member ids of the consumer protocol)."""

import base64
import random
import uuid

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def int32(value: int) -> int:
    """`value` as a Java int holds it: wrapped to 32 signed bits."""
    return (value + 2**31) % 2**32 - 2**31


def java_string_hash(s: str) -> int:
    """Java's `String.hashCode`: signed 32 bits over UTF-16 code units."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return int32(h)


def random_uuid(rng: random.Random) -> str:
    """`Uuid.randomUuid().toString()`: a version-4 UUID in URL-safe base64 without padding,
    never starting with "-" (22 characters, e.g. "EwFjvWuzQxSbkbv9xqoDIg")."""
    while True:
        raw = uuid.UUID(int=rng.getrandbits(128), version=4).bytes
        text = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
        if not text.startswith("-"):
            return text
