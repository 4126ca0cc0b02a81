"""The one event schema that every model writes and every reader (metrics, charts, Spark) reads.

A row is a plain tuple in `FIELDS` order, appended as it happens; it becomes a DataFrame only
when someone asks. Simulated runs and parsed real broker logs share this schema, so every
analysis works on both.

Columns
-------
time        int    simulated time in ms since the start (the broker log maps 0 to START_TIME)
source      str    who wrote it: "coordinator", "consumer", "broker", "zookeeper", "fault"
group       str    consumer group id (None for events outside a group)
member      str    member id (or consumer name / client id where no member id exists yet; the network
                   thread, e.g. "network-thread-0", for ProcessorBlocked/ProcessorUnblocked)
kind        str    a Kafka request name (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit),
                   a response (JoinGroupResponse, SyncGroupResponse), or a decision
                   (RebalanceStarted, GenerationStabilized, GroupStable, GroupEmpty, MemberAdded,
                   PendingMemberAdded, PendingMemberExpired, MemberRemoved, MemberReplaced,
                   AssignmentReceived, ...); consumers add PartitionsRevoked, PartitionsAssigned,
                   Processed, Commit, CommitFailed, ...; the broker network model (kafkasim.broker.network) adds
                   Produce/Fetch/... (request read) and ProduceResponse/... (response sent), ChannelMuted,
                   ChannelUnmuted, MemoryPoolDepleted, MemoryPoolRecovered, ProcessorBlocked, ProcessorUnblocked;
                   parsed broker logs add GroupLoaded (kafkasim.analysis.logs); consumer groups
                   (KIP-848) add the kinds listed in kafkasim.coordinator.modern.consumer.manager, and
                   GroupConverted / GroupConversionRefused (kafkasim.coordinator.migration); share groups
                   (KIP-932) add Acquired and Acknowledged (consumer: reason "first-last" / "TYPE first-last")
                   and RecordStateChanged, LockExpired, RecordsReleased, SharePartitionState (broker: state =
                   the record state written; kafkasim.scenario.share)
generation  int    the group generation the event belongs to (None when not applicable)
topic       str    topic, for partition-level events
partition   int    partition number, for partition-level events
error       str    Kafka error name of a response (e.g. "REBALANCE_IN_PROGRESS"); None when not a response
reason      str    why: for MemberRemoved one of REMOVAL_REASONS; for RebalanceStarted Kafka's reason text
value       float  a number whose meaning depends on kind (members in a generation, records in a batch, ...)
state       str    the group state after the event (coordinator events), else None
"""

from __future__ import annotations

from typing import Iterable

FIELDS = ("time", "source", "group", "member", "kind", "generation", "topic", "partition",
          "error", "reason", "value", "state")

#: Why a member left a group, as recorded in MemberRemoved events.
REMOVAL_REASONS = ("session_timeout", "poll_timeout", "leave_group", "rebalance_timeout",
                   "sync_timeout", "group_max_size", "new_member_timeout", "fenced")

_INT_COLUMNS = ("generation", "partition")
_STR_COLUMNS = ("source", "group", "member", "kind", "topic", "error", "reason", "state")


class EventLog:
    """An append-only list of event tuples (see the module docstring for the columns)."""

    __slots__ = ("rows",)

    def __init__(self, rows: Iterable[tuple] | None = None):
        self.rows: list[tuple] = list(rows) if rows is not None else []

    def add(self, time: int, source: str, kind: str, group: str | None = None, member: str | None = None,
            generation: int | None = None, topic: str | None = None, partition: int | None = None,
            error: str | None = None, reason: str | None = None, value: float | None = None,
            state: str | None = None) -> None:
        self.rows.append((time, source, group, member, kind, generation, topic, partition,
                          error, reason, value, state))

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def of_kind(self, *kinds: str) -> list[tuple]:
        """Rows whose kind is one of `kinds` (a quick filter that needs no pandas)."""
        return [r for r in self.rows if r[4] in kinds]

    def to_frame(self):
        """The events as a pandas DataFrame with stable dtypes."""
        return to_frame(self.rows)


def to_frame(rows: Iterable[tuple]):
    import pandas as pd

    df = pd.DataFrame.from_records(list(rows), columns=list(FIELDS))
    df["time"] = df["time"].astype("int64")
    for col in _INT_COLUMNS:
        df[col] = df[col].astype("Int64")
    df["value"] = df["value"].astype("float64")
    for col in _STR_COLUMNS:
        df[col] = df[col].astype("object")
    return df


def arrow_schema():
    """The event schema as a pyarrow schema (for Parquet and Spark)."""
    import pyarrow as pa

    types = {"time": pa.int64(), "generation": pa.int32(), "partition": pa.int32(), "value": pa.float64()}
    return pa.schema([pa.field(name, types.get(name, pa.string())) for name in FIELDS])


def to_arrow(rows, extra=()):
    """Rows as a pyarrow Table: tuples in FIELDS order, then one value per field of `extra`
    (pyarrow fields), built column by column without pandas (fast enough for Parquet writers)."""
    import pyarrow as pa

    schema = arrow_schema()
    for f in extra:
        schema = schema.append(f)
    columns = list(zip(*rows)) if rows else [()] * len(schema)
    return pa.Table.from_arrays([pa.array(col, type=f.type) for col, f in zip(columns, schema)], schema=schema)


# -- intervals every consumer model's run derives from its events ---------------------------------
def ownership_intervals(rows, end_ms: int) -> list[tuple]:
    """(member, topic, partition, start, end) from PartitionsAssigned/Revoked/Lost and process ends."""
    open_: dict[tuple, int] = {}
    out = []
    for row in rows:
        if row[1] != "consumer":
            continue
        kind, member, time = row[4], row[3], row[0]
        if kind == "PartitionsAssigned" and row[6] is not None:
            open_[(member, row[6], row[7])] = time
        elif kind in ("PartitionsRevoked", "PartitionsLost") and row[6] is not None:
            start = open_.pop((member, row[6], row[7]), None)
            if start is not None:
                out.append((member, row[6], row[7], start, time))
        elif kind in ("Crashed", "Fatal", "Closed"):
            for key in [k for k in open_ if k[0] == member]:
                out.append((*key, open_.pop(key), time))
    out.extend((*key, start, end_ms) for key, start in open_.items())
    return out


#: Consumer states in which a member makes progress on the partitions it owns.
ACTIVE_STATES = frozenset({"consuming", "processing"})


def state_intervals(rows, end_ms: int) -> list[tuple]:
    """(member, state, start, end) from the consumers' StateChanged events; "consuming" is split
    into "processing" between a batch's Fetched and Processed events."""
    macro: dict[str, str] = {}
    in_batch: dict[str, bool] = {}
    current: dict[str, tuple[str, int]] = {}
    out = []
    for row in rows:
        if row[1] != "consumer":
            continue
        kind = row[4]
        member = row[3]
        if kind == "StateChanged":
            macro[member] = row[9]
        elif kind == "Fetched":
            in_batch[member] = True
        elif kind in ("Processed", "Started"):
            in_batch[member] = False
        else:
            continue
        state = macro.get(member)
        if state == "consuming" and in_batch.get(member):
            state = "processing"
        old = current.get(member)
        if old is None or old[0] != state:
            if old is not None and old[1] < row[0]:
                out.append((member, *old, row[0]))
            current[member] = (state, row[0])
    out.extend((member, state, start, end_ms) for member, (state, start) in current.items() if start < end_ms)
    return out
