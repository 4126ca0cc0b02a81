"""The result of `simulate`: events, summary metrics, the broker log, and the scenario itself.

Everything here reads events (and the run's ledgers); nothing reaches back into the models.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import cached_property

import numpy as np

from .events import arrow_schema, to_frame

#: Summary metrics and what they mean (the keys of `Run.summary`).
SUMMARY_DOC = {
    "rebalances": "rebalances started by the coordinator (RebalanceStarted events), the first one included",
    "generations": "the group's generation at the end",
    "startup_ms": "time from the start until every partition had an owner for the first time",
    "unconsumed_ms": "after startup, time during which at least one partition was not being consumed: no owner, "
                     "or an owner that was frozen, stalled, blocked in a rebalance or already removed",
    "all_unconsumed_ms": "after startup, time during which no partition was being consumed (stop-the-world)",
    "partition_downtime_ms": "after startup, the sum over partitions of the time each was not being consumed",
    "removals": "per member: how often the coordinator removed it, by reason",
    "removals_by_reason": "removals of all members, by reason (session_timeout, poll_timeout, leave_group, "
                          "rebalance_timeout, sync_timeout, group_max_size, new_member_timeout)",
    "records_produced": "records produced during duration_ms",
    "records_processed": "records processed, counting every time a record was processed",
    "unprocessed_at_end": "produced records never processed by the end of the run",
    "duplicates": "records processed more than once (extra processings)",
    "duplicates_by_cause": "duplicates by why their partition was handed over with uncommitted progress",
    "commit_failures": "commits that failed (CommitFailedException, RebalanceInProgressException, auto-commit)",
    "max_lag": "largest number of produced-but-unprocessed records, sampled every sample_ms",
    "mean_lag": "time-weighted mean of the same",
    "latency_ms": "end-to-end latency percentiles (produce to processed) p50, p95, p99, max; "
                  "resolution is the scenario's poll_resolution_ms",
    "rebalance_ms": "total time the group spent in PreparingRebalance or CompletingRebalance",
}


class Run:
    """One simulated run. `events` is a DataFrame (schema in kafkasim.events)."""

    def __init__(self, scenario, world):
        self.scenario = scenario
        self.rows = world.rows
        self.broker_log: list[str] = world.coord.broker_log
        self.end_ms = world.end_ms
        self._world = world

    def __repr__(self) -> str:
        s = self.summary
        return (f"<Run {self.scenario.members} members, Kafka {self.scenario.kafka_version}: "
                f"{s['rebalances']} rebalances, {s['records_processed']} processed, {s['duplicates']} duplicates>")

    @cached_property
    def events(self):
        return to_frame(self.rows)

    @cached_property
    def lag(self):
        import pandas as pd

        times = np.arange(0, self.end_ms + 1, self.scenario.sample_ms)
        return pd.DataFrame({"time": times, "lag": self._world.partitions.lag(times)})

    @cached_property
    def summary(self) -> dict:
        return summarize(self)

    def member_states(self):
        """One row per (member, state interval): member, state, start, end (ms)."""
        import pandas as pd

        return pd.DataFrame(_state_intervals(self.rows, self.end_ms), columns=["member", "state", "start", "end"])

    @cached_property
    def _consumed(self) -> dict:
        return _consumed(self.rows, self.end_ms)

    def unconsumed(self):
        """Intervals after startup when a partition was not being consumed: topic, partition, start, end."""
        import pandas as pd

        tps = self._world.partitions.tps
        start = _coverage(self._consumed, tps, self.end_ms)["startup_ms"]
        return pd.DataFrame(_gaps(self._consumed, tps, start, self.end_ms),
                            columns=["topic", "partition", "start", "end"])

    def partition_owners(self):
        """Ownership intervals: member, topic, partition, start, end (ms)."""
        import pandas as pd

        return pd.DataFrame(_ownership(self.rows, self.end_ms), columns=["member", "topic", "partition", "start", "end"])

    def to_parquet(self, path) -> None:
        """Write the events to Parquet; the scenario and summary go into the file's metadata."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = arrow_schema()
        table = pa.Table.from_pandas(self.events, schema=schema, preserve_index=False)
        meta = {b"kafkasim.scenario": json.dumps(self.scenario.to_dict(), default=str).encode(),
                b"kafkasim.summary": json.dumps(self.summary, default=str).encode()}
        pq.write_table(table.replace_schema_metadata({**(table.schema.metadata or {}), **meta}), path)


def _ownership(rows, end_ms: int) -> list[tuple]:
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


def _state_intervals(rows, end_ms: int) -> list[tuple]:
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


def _merge(intervals) -> list[list[int]]:
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        elif end > start:
            merged.append([start, end])
    return merged


def _consumed(rows, end_ms: int) -> dict[tuple, list[list[int]]]:
    """(topic, partition) -> merged intervals during which it was consumed: owned by a member that
    was consuming or processing. A partition whose owner is frozen (GC), stalled, blocked in a
    rebalance or already removed is not consumed, though the owner may still believe it owns it."""
    active: dict[str, list] = defaultdict(list)
    since: dict[str, int] = {}
    for row in [r for r in rows if r[4] == "StateChanged"]:  # consuming covers processing too
        member, time, state = row[3], row[0], row[9]
        if state in ACTIVE_STATES:
            since.setdefault(member, time)
        elif member in since:
            active[member].append((since.pop(member), time))
    for member, time in since.items():
        active[member].append((time, end_ms))
    active = {m: _merge(v) for m, v in active.items()}
    consumed: dict[tuple, list] = defaultdict(list)
    for member, topic, partition, start, end in _ownership(rows, end_ms):
        for a, b in active.get(member, ()):
            if a < end and b > start:
                consumed[(topic, partition)].append((max(a, start), min(b, end)))
    return {tp: _merge(v) for tp, v in consumed.items()}


def _gaps(consumed: dict, tps: list, start: int, end_ms: int) -> list[tuple]:
    """(topic, partition, start, end) of every interval after `start` when a partition was not consumed."""
    out = []
    for tp in tps:
        last = start
        for a, b in consumed.get(tp, []):
            if b <= start:
                continue
            if a > last:
                out.append((*tp, last, a))
            last = max(last, b)
        if last < end_ms:
            out.append((*tp, last, end_ms))
    return out


def _coverage(consumed: dict, tps: list, end_ms: int) -> dict:
    """Startup time, then time with some / with no partition consumed, and partition-ms not consumed."""
    firsts = [consumed[tp][0][0] if consumed.get(tp) else None for tp in tps]
    if None in firsts:
        return {"startup_ms": end_ms, "unconsumed_ms": 0, "all_unconsumed_ms": 0, "partition_downtime_ms": 0}
    startup = max(firsts)
    gaps = _gaps(consumed, tps, startup, end_ms)
    edges = sorted([(a, 1) for *_, a, b in gaps] + [(b, -1) for *_, a, b in gaps])
    some = none = 0
    down, last = 0, startup
    for time, delta in edges:
        if down:
            some += time - last
            none += (time - last) if down == len(tps) else 0
        down += delta
        last = time
    return {"startup_ms": startup, "unconsumed_ms": some, "all_unconsumed_ms": none,
            "partition_downtime_ms": sum(b - a for *_, a, b in gaps)}


def _percentiles(latency: list[tuple[int, float, float]]) -> dict:
    """Percentiles of a mixture of batches whose latencies spread evenly between two ends."""
    if not latency:
        return {"p50": None, "p95": None, "p99": None, "max": None}
    arr = np.asarray(latency, dtype=float)
    n, lo, hi = arr[:, 0], arr[:, 1], arr[:, 2]
    points = 8  # each batch as 8 evenly spaced records
    frac = (np.arange(points) + 0.5) / points
    values = (lo[:, None] + (hi - lo)[:, None] * frac[None, :]).ravel()
    weights = np.repeat(n / points, points)
    order = np.argsort(values)
    values, cum = values[order], np.cumsum(weights[order])
    total = cum[-1]

    def q(p):
        return float(round(values[min(np.searchsorted(cum, p * total), len(values) - 1)], 1))

    return {"p50": q(0.50), "p95": q(0.95), "p99": q(0.99), "max": float(round(max(lo.max(), hi.max()), 1))}


def summarize(run: Run) -> dict:
    world, rows = run._world, run.rows
    names = world.member_names
    removals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    by_reason: dict[str, int] = defaultdict(int)
    rebalances = commit_failures = 0
    rebalance_ms, rebalancing_since = 0, None
    for row in rows:
        kind = row[4]
        if row[1] == "coordinator":
            if kind == "MemberRemoved":
                member = names.get(row[3], row[3])
                removals[member][row[9]] += 1
                by_reason[row[9]] += 1
            elif kind == "RebalanceStarted":
                rebalances += 1
            state = row[11]
            if state in ("PreparingRebalance", "CompletingRebalance"):
                if rebalancing_since is None:
                    rebalancing_since = row[0]
            elif state is not None and rebalancing_since is not None:
                rebalance_ms += row[0] - rebalancing_since
                rebalancing_since = None
        elif kind == "CommitFailed":
            commit_failures += 1
    if rebalancing_since is not None:
        rebalance_ms += run.end_ms - rebalancing_since
    parts = world.partitions
    lags = run.lag["lag"].to_numpy()
    produced = parts.produced(run.end_ms)
    group = world.coord.groups.get(world.group_id)
    return {
        "rebalances": rebalances,
        "generations": group.generation_id if group else 0,
        **_coverage(run._consumed, parts.tps, run.end_ms),
        "removals": {m: dict(r) for m, r in sorted(removals.items())},
        "removals_by_reason": dict(sorted(by_reason.items())),
        "records_produced": produced,
        "records_processed": parts.processed,
        "unprocessed_at_end": produced - parts.hw_total,
        "duplicates": sum(parts.duplicates.values()),
        "duplicates_by_cause": dict(sorted(parts.duplicates.items())),
        "commit_failures": commit_failures,
        "max_lag": int(lags.max()),
        "mean_lag": round(float(np.mean(lags)), 1),
        "latency_ms": _percentiles(parts.latency),
        "rebalance_ms": rebalance_ms,
    }
