"""The lines of `__consumer_offsets` partitions, given to the groups whose coordinator writes to them.

The broker's ReplicaManager and Partition lines (analysis/logs/broker.py: "Error processing append
operation on partition __consumer_offsets-P", "Shrinking ISR from ...", and the coordinator's "Elected as
/ Resigned as the group coordinator for partition P") name a partition, not a group. A group's partition
is `GroupMetadataManager.partitionFor`: Utils.abs(groupId.hashCode) % offsets.topic.num.partitions.
Simplification: that count is taken at its default (50); a cluster that changed it before creating the
topic has its partitions' lines given to no group (or the wrong one).
"""

from __future__ import annotations

from kafkasim.analysis.diagnose.timeline import GROUP, KIND
from kafkasim.analysis.log_parser import ROW_FIELDS
from kafkasim.coordinator.broker_log import offsets_partition

_PARTITION = ROW_FIELDS.index("partition")
#: The row kinds of a __consumer_offsets partition: broker.py's `offsets_ev` makes each of them, always with
#: the topic __consumer_offsets and no group, and nothing else makes them (so the kind alone says it).
KINDS = ("OffsetsAppendFailed", "OffsetsIsrShrunk", "CoordinatorElected", "CoordinatorResigned")


def to_groups(rows: list) -> list:
    """`rows` with each __consumer_offsets partition's row copied to every group of the log whose offsets
    partition it is (in place of the row without a group)."""
    groups = {r[GROUP] for r in rows if r[GROUP] is not None}
    by_partition: dict[int, list] = {}
    for g in sorted(groups):
        by_partition.setdefault(offsets_partition(g), []).append(g)
    out = []
    for r in rows:
        if r[KIND] in KINDS:
            out += [r[:GROUP] + (g,) + r[GROUP + 1:] for g in by_partition.get(r[_PARTITION], ())]
        else:
            out.append(r)
    return out
