"""The result of `simulate`: events, summary metrics, the broker log, and the scenario itself.

Everything here reads events (and the run's ledgers); nothing reaches back into the models.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import cached_property

import numpy as np

from kafkasim.core.provenance import provenance, with_provenance
from kafkasim.core.events import ACTIVE_STATES, arrow_schema, ownership_intervals, state_intervals, to_frame
from kafkasim.scenario.share import share_invariants, share_metrics

#: Summary metrics and what they mean (the keys of `Run.summary`).
SUMMARY_DOC = {
    "rebalances": "rebalances started by the coordinator, the first one included: RebalanceStarted events of a "
                  "classic group; for a consumer-protocol group (KIP-848), group epoch bumps (GroupEpochBumped: a "
                  "member joined or left or was fenced, a subscription or the subscribed topics changed), each of "
                  "which gives the group a new target assignment",
    "generations": "the group's generation at the end (for a consumer-protocol group, its group epoch)",
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
    "rebalance_ms": "total time the group spent in PreparingRebalance or CompletingRebalance (classic), or in "
                    "Assigning or Reconciling (consumer protocol: from a group epoch bump until every member has "
                    "reconciled to the new target assignment); members keep consuming meanwhile under KIP-848, so "
                    "compare it with unconsumed_ms",
}

#: What a share group's summary adds (group_type="share", KIP-932), read from its events. There
#: `rebalances` counts group epoch bumps (a member joined, left or was fenced), `duplicates` the
#: records the application processed more than once, `unprocessed_at_end` those it never processed.
SHARE_SUMMARY_DOC = {
    "records_accepted": "records ACKNOWLEDGED on the share partition (an application's ACCEPT of a record "
                        "below the share-partition start offset succeeds and changes nothing: not counted)",
    "records_rejected": "records the application acknowledged REJECT (successfully): archived at once",
    "records_archived": "records ARCHIVED: rejected, or released or expired at the delivery limit "
                        "(group.share.delivery.count.limit)",
    "redeliveries": "deliveries of a record after its first (acquired with a delivery count above 1; in 4.1 a "
                    "session release decrements the count, KAFKA-17541, so those redeliveries do not show)",
    "lock_expiries": "records whose acquisition lock expired (group.share.record.lock.duration.ms) while acquired",
    "records_released_on_close": "records released when a member's share session closed (close(); from 4.1 "
                                 "also a crashed process's closed connection)",
    "acknowledgement_failures": "records whose acknowledgement failed (INVALID_RECORD_STATE: the lock had "
                                "expired; REQUEST_TIMED_OUT: lost to a network cut)",
    "records_stuck": "produced records neither accepted, rejected nor archived at the end of the run",
    "drain_ms": "time from the end of production until the last record was accepted, rejected or archived "
                "(None while records are stuck)",
    "throughput_per_s": "records accepted, rejected or archived per second, until the last of them",
}


#: What a share group and a consumer group are compared on (`Run.queue_metrics`), the same keys for
#: both kinds. "Done" is accepted, rejected or archived for a share group, processed for a consumer group.
QUEUE_METRICS_DOC = {
    "throughput_per_s": "records done per second, from the start until the last of them was done",
    "redeliveries": "records delivered to the application again (share group: acquired with a delivery count "
                    "above 1; consumer group: fetched again from the committed offset and processed again)",
    "duplicates": "records the application processed more than once (extra processings)",
    "records_stuck": "produced records not done at the end of the run",
    "drain_ms": "time from the end of production until the last record was done (None while records are stuck)",
}


class Run:
    """One finished run: the scenario, its events (`events` is a DataFrame, schema in
    kafkasim.core.events), the broker log, the production/processing ledger its metrics read,
    and its provenance. It keeps nothing of the live simulation (engine, coordinator, consumers)."""

    def __init__(self, scenario, world):
        self.scenario = scenario
        self.rows = world.rows
        self.broker_log: list[str] = world.coord.broker_log
        self.client_logs: dict[str, list[str]] = world.client_logs  # consumer name -> lines (Scenario.client_log)
        self.end_ms = world.end_ms
        self.member_names: dict[str, str] = dict(world.member_names)  # member id -> consumer name
        # client.id -> consumer name, for the rows of a JoinGroup sent before the member had an id
        # (a client.id several consumers share names none of them)
        self.client_names: dict[str, str] = {c: n for c, n in world.client_names.items() if n is not None}
        self.generations = _generation(world.coord, world.group_id)
        self.engine_stats: dict[str, int] = dict(world.sim.stats)
        self.ledger = world.partitions.finished()
        if scenario.group_type == "share":  # KIP-932's guarantees, on every run
            share_invariants(self.rows, scenario.broker_config["group.share.delivery.count.limit"])
        self.provenance = provenance(
            "kafkasim.scenario", kafka_version=scenario.kafka_version, seed=scenario.seed,
            configs={"consumer": scenario.consumer_config, "broker": scenario.broker_config},
            inputs={"scenario": scenario.to_dict()})

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
        return pd.DataFrame({"time": times, "lag": self.ledger.lag(times)})

    @cached_property
    def summary(self) -> dict:
        return summarize(self)

    @cached_property
    def queue_metrics(self) -> dict:
        """`QUEUE_METRICS_DOC`'s metrics, for a share group from its summary, for a consumer group from
        its ledger, so that the two kinds can stand side by side on the same load."""
        s = self.summary
        if self.scenario.group_type == "share":
            return {k: s[k] for k in QUEUE_METRICS_DOC}
        stuck = s["unprocessed_at_end"]
        progress = self.ledger.progress
        done = progress[-1][1]
        last = next(t for t, n in progress if n == done) if done else 0
        return {"throughput_per_s": round(done / (last / 1000), 1) if last else 0.0,
                "redeliveries": s["duplicates"], "duplicates": s["duplicates"], "records_stuck": stuck,
                "drain_ms": max(0, last - self.scenario.duration_ms) if stuck == 0 else None}

    def member_states(self):
        """One row per (member, state interval): member, state, start, end (ms)."""
        import pandas as pd

        return pd.DataFrame(state_intervals(self.rows, self.end_ms), columns=["member", "state", "start", "end"])

    @cached_property
    def _consumed(self) -> dict:
        return _consumed(self.rows, self.end_ms)

    def unconsumed(self):
        """Intervals after startup when a partition was not being consumed: topic, partition, start, end."""
        import pandas as pd

        tps = self.ledger.tps
        start = _coverage(self._consumed, tps, self.end_ms)["startup_ms"]
        return pd.DataFrame(_gaps(self._consumed, tps, start, self.end_ms),
                            columns=["topic", "partition", "start", "end"])

    def partition_owners(self):
        """Ownership intervals: member, topic, partition, start, end (ms)."""
        import pandas as pd

        return pd.DataFrame(ownership_intervals(self.rows, self.end_ms), columns=["member", "topic", "partition", "start", "end"])

    def to_parquet(self, path) -> None:
        """Write the events to Parquet; the provenance (kafkasim.core.provenance), the scenario and
        the summary go into the file's metadata, so the file alone says how to reproduce it."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = arrow_schema()
        # With a schema, pyarrow keeps no index column; its "pandas" metadata, kept, reads the nullable
        # Int64 columns back as such. The scenario's dict and the summary hold JSON types only.
        table = pa.Table.from_pandas(self.events, schema=schema)
        meta = {b"kafkasim.scenario": json.dumps(self.scenario.to_dict()).encode(),
                b"kafkasim.summary": json.dumps(self.summary).encode()}
        pq.write_table(with_provenance(table.replace_schema_metadata({**table.schema.metadata, **meta}),
                                       self.provenance), path)


def _generation(coord, group_id: str) -> int:
    """The classic group's generation, or the consumer-protocol or share group's epoch."""
    if coord.consumer_groups.has_group(group_id) or coord.share_groups.has_group(group_id):
        return coord.group_epoch(group_id)
    group = coord.groups.get(group_id)
    return group.generation_id if group else 0


#: The group states in which the group is rebalancing: classic, then consumer protocol (KIP-848).
REBALANCE_PHASES = ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling")
#: What starts a rebalance: a classic RebalanceStarted, a consumer group's epoch bump.
REBALANCE_STARTS = ("RebalanceStarted", "GroupEpochBumped")


def rebalance_phases(rows, end_ms: int) -> list[tuple]:
    """(phase, start, end, generation, reason) of each stretch the coordinator spent in a rebalance
    phase, from the group state after each coordinator event; `reason` is that of the latest
    RebalanceStarted (classic) or GroupEpochBumped (consumer protocol)."""
    out, current, since, generation, reason = [], None, 0, None, None
    for row in rows:
        if row[1] != "coordinator":
            continue
        if row[4] in REBALANCE_STARTS:
            reason = row[9]
        if row[11] != current:
            if current in REBALANCE_PHASES and row[0] > since:
                out.append((current, since, row[0], generation, reason))
            current, since, generation = row[11], row[0], row[5]
    if current in REBALANCE_PHASES and end_ms > since:
        out.append((current, since, end_ms, generation, reason))
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
    for member, topic, partition, start, end in ownership_intervals(rows, end_ms):
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
    rows, names = run.rows, run.member_names
    removals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    by_reason: dict[str, int] = defaultdict(int)
    poll_timeout_at: dict[str, int] = {}  # member -> when its poll timer last expired
    rebalances = commit_failures = 0
    for row in rows:
        kind = row[4]
        if row[1] == "coordinator":
            if kind == "MemberRemoved":
                member = names.get(row[3], row[3])
                reason = row[9]
                # A consumer-protocol leave carries no reason (the classic LeaveGroup's does): the
                # member's own PollTimeout at that instant says why it left.
                if reason == "leave_group" and poll_timeout_at.get(member) == row[0]:
                    reason = "poll_timeout"
                removals[member][reason] += 1
                by_reason[reason] += 1
            elif kind in REBALANCE_STARTS:
                rebalances += 1
        elif kind == "CommitFailed":
            commit_failures += 1
        elif kind == "PollTimeout":
            poll_timeout_at[row[3]] = row[0]
    rebalance_ms = sum(end - start for _, start, end, _, _ in rebalance_phases(rows, run.end_ms))
    parts = run.ledger
    lags = run.lag["lag"].to_numpy()
    produced = parts.produced(run.end_ms)
    share = {}
    if run.scenario.group_type == "share":
        share = share_metrics(rows, produced, run.scenario.duration_ms)
    return {
        "rebalances": rebalances,
        "generations": run.generations,
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
        **share,
    }
