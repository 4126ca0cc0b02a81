"""A share group's run (KIP-932): the log the share consumers read, the events of the leader's
share partitions, the invariants every run is checked against, and the queue metrics.

The world side (`ShareLog`) gives the share consumers (`client.share_consumer`) the leader's share
partitions (`GroupCoordinator.share_partition`) and the log batches a read returns, and writes
every WriteShareGroupState of a share partition as events (source "broker", reason "first-last",
value = the delivery count, state = the record state written):

- `RecordStateChanged`: an acknowledgement's write (ACKNOWLEDGED, AVAILABLE after RELEASE, ARCHIVED
  after REJECT or a RELEASE at the delivery limit);
- `LockExpired`: an acquisition lock expired (AVAILABLE, or ARCHIVED at the limit);
- `RecordsReleased`: the member's share session closed (close(), or from 4.1 a closed connection);
- `SharePartitionState` at the end of the run: reason "SPSO-SPEO", value = SPSO.

The log: one producer per topic with Kafka 4's default linger.ms=5 (KIP-1030) and the sticky
partitioner (KIP-480, KIP-794), which fills one partition's batch with what it sends during
linger.ms, then moves on: a partition's log batches are here aligned runs of max(1, int(topic rate x
5 ms)) records (batch.size is not a limit: records are taken as small); a batch is readable once
complete, the last one when production ends. A log read returns
whole batches from the one holding the fetch offset, up to max.poll.records records past it.

Everything downstream (`share_invariants`, `share_metrics`) reads the events only.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from kafkasim.core.config import version_tuple
from kafkasim.core.errors import ConfigError, check_int
from kafkasim.scenario.workload import RangeSet

#: The producer's linger.ms in Kafka 4 (5 ms, KIP-1030): one log batch per 5 ms of production.
LINGER_MS = 5
TERMINAL = ("ACKNOWLEDGED", "ARCHIVED")
#: The broker's event kinds (see the module docstring).
WRITE_KINDS = ("RecordStateChanged", "LockExpired", "RecordsReleased")


class InvariantBroken(AssertionError):
    """A share-group run broke one of KIP-932's guarantees (a bug in the model, never the learner's)."""


def check_share_scenario(scenario: Any, refusal: str | None) -> None:
    """The checks `Scenario` makes for group_type='share': a broker that serves share groups, no
    consumer-group-only options, a PoisonRecord the simulated application can acknowledge."""
    from kafkasim.core import faults

    if refusal is not None:
        how = []
        if "group.share.enable" in refusal:  # 4.0's also names group.coordinator.rebalance.protocols
            how.append("broker={'group.share.enable': True}")
        if "share.version" in refusal:
            how.append("share_version=1 (the feature)")
        raise ConfigError(f"group_type='share' in Kafka {scenario.kafka_version}: {refusal}"
                          + (f"; in a Scenario: {' or '.join(how)}" if how else ""))
    if scenario.static_membership:
        raise ConfigError("static_membership: a share consumer has no group.instance.id (ShareConsumerConfig "
                          "refuses it: \"group.instance.id cannot be set when using a share group.\")")
    if scenario.share_renew_ms is not None:
        check_int("share_renew_ms", scenario.share_renew_ms, 1)
        if scenario.consumer_config.get("share.acknowledgement.mode") != "explicit" or \
                version_tuple(scenario.kafka_version) < (4, 2):
            raise ConfigError("share_renew_ms: the application renews locks with acknowledge(record, "
                              "AcknowledgeType.RENEW), which needs Kafka 4.2 or later (KIP-1222) and "
                              "consumer={'share.acknowledgement.mode': 'explicit'}")
    poison = [f for f in scenario.faults if isinstance(f, faults.PoisonRecord)]
    if poison and scenario.consumer_config.get("share.acknowledgement.mode") != "explicit":
        raise ConfigError(f"PoisonRecord: the simulated application acknowledges the poison record with "
                          f"acknowledge(record, AcknowledgeType.{poison[0].ack}), which a KafkaShareConsumer "
                          f"accepts only in explicit mode (else IllegalStateException \"Implicit acknowledgement of "
                          f"delivery is being used.\"): set consumer={{'share.acknowledgement.mode': 'explicit'}}"
                          + (" (Kafka 4.1 or later: 4.0 has no such config and infers the mode from the first "
                             "acknowledge(), which kafkasim does not model)"
                             if version_tuple(scenario.kafka_version) < (4, 1) else ""))
    for f in poison:
        count = scenario.topics.get(f.topic)
        if count is None or f.partition >= count:
            raise ConfigError(f"PoisonRecord names {f.topic}-{f.partition}, which is not a partition of topics "
                              f"{scenario.topics}")


class ShareLog:
    """The share group's side of one world: share partitions by partition index, log batches,
    poison records, and the broker's events."""

    def __init__(self, world: Any):
        self.world = world
        self.parts = world.partitions
        self.rows = world.rows
        self.group_id = world.group_id
        self._partitions: dict[int, Any] = {}
        self.poison: dict[int, dict[int, str]] = {}   # partition index -> {offset: ack type}
        self.cause = "LockExpired"                     # the kind of the next write
        topic_rate: dict[str, float] = defaultdict(float)
        for (topic, _), rate in zip(self.parts.tps, self.parts.rate):
            topic_rate[topic] += rate
        self.batch_records = [max(1, int(topic_rate[topic] * LINGER_MS)) for topic, _ in self.parts.tps]

    def partition(self, i: int):
        """The leader's share partition of partition index i, its writes turned into events (the
        coordinator makes it on first use and returns the same one after)."""
        topic, p = self.parts.tps[i]
        sp = self._partitions[i] = self.world.coord.share_partition(self.group_id, topic, p)
        sp.on_write = lambda written, i=i: self._written(i, written)
        return sp

    def acknowledge(self, i: int, member_id: str, ranges: list) -> Any:
        return self._call(i, "RecordStateChanged", "acknowledge", member_id, ranges)

    def release_all(self, i: int, member_id: str) -> Any:
        return self._call(i, "RecordsReleased", "release_all", member_id)

    def _call(self, i: int, kind: str, method: str, *args):
        self.cause = kind
        try:
            return getattr(self.partition(i), method)(*args)
        finally:
            self.cause = "LockExpired"  # writes outside a request are lock expiries

    def _written(self, i: int, written) -> None:
        """One WriteShareGroupState as rows, contiguous offsets of one state and count merged."""
        runs: list[list] = []  # [first, last, state, delivery count]
        for first, last, state in sorted(written):  # disjoint ranges: by first offset
            if runs and runs[-1][1] + 1 == first and runs[-1][2:] == [state.state, state.delivery_count]:
                runs[-1][1] = last
            else:
                runs.append([first, last, state.state, state.delivery_count])
        topic, p = self.parts.tps[i]
        now, kind, group = self.world.sim.now, self.cause, self.group_id
        self.rows.extend((now, "broker", group, None, kind, None, topic, p, None, f"{first}-{last}", count, state)
                         for first, last, state, count in runs)

    def log_batches(self, i: int, fetch_offset: int, max_records: int, now: int) -> list[tuple[int, int]]:
        """The log batches a read from `fetch_offset` returns (see the module docstring)."""
        parts = self.parts
        end = parts.end_offset(i, now)
        size = self.batch_records[i]
        if now < parts.duration_ms:
            end -= end % size  # the batch being filled is not in the log yet
        start = fetch_offset - fetch_offset % size
        stop = min(end, fetch_offset + max(1, max_records))
        return [(b, min(b + size, end) - 1) for b in range(start, stop, size)]

    def add_poison(self, fault) -> None:
        i = self.parts.index[(fault.topic, fault.partition)]
        self.poison.setdefault(i, {})[fault.offset] = fault.ack

    def app_acknowledgements(self, i: int, first: int, last: int) -> list[tuple[int, int, str]]:
        """What the simulated application acknowledges for records first..last of partition i:
        ACCEPT, and the PoisonRecord's type for a poison record."""
        bad = self.poison.get(i)
        if not bad:
            return [(first, last, "ACCEPT")]
        out, at = [], first
        for offset in sorted(o for o in bad if first <= o <= last):
            if offset > at:
                out.append((at, offset - 1, "ACCEPT"))
            out.append((offset, offset, bad[offset]))
            at = offset + 1
        if at <= last:
            out.append((at, last, "ACCEPT"))
        return out

    def finish(self) -> None:
        """The share partitions' start and end offsets at the end of the run, as rows."""
        now = self.world.sim.now
        for i, (topic, p) in enumerate(self.parts.tps):
            sp = self._partitions.get(i)
            spso, speo = (sp.start_offset, sp.end_offset) if sp is not None else (0, 0)
            self.rows.append((now, "broker", self.group_id, None, "SharePartitionState", None, topic, p, None,
                              f"{spso}-{speo}", spso, None))


def _range(text: str) -> tuple[int, int]:
    """The offsets of a reason "first-last" or "TYPE first-last" (an acknowledgement)."""
    first, last = text.rpartition(" ")[2].split("-")
    return int(first), int(last)


def share_invariants(rows: Iterable[tuple], delivery_limit: int) -> None:
    """Raise InvariantBroken unless the events keep KIP-932's guarantees: no record acquired by
    two members at once, delivery counts within `delivery_limit`, no record acknowledged (made
    terminal by a write) twice, and every record below a share partition's final SPSO accepted,
    rejected or archived. An application's acknowledgement of records below SPSO succeeds and
    changes nothing (`SharePartition.acknowledge` skips them), so the writes are what count."""
    holds: dict[tuple, dict[str, RangeSet]] = defaultdict(dict)
    terminal: dict[tuple, RangeSet] = defaultdict(RangeSet)
    for row in rows:
        kind = row[4]
        if kind == "Acquired":
            tp, member, (first, last), count = (row[6], row[7]), row[3], _range(row[9]), row[10]
            if count > delivery_limit:
                raise InvariantBroken(f"{tp[0]}-{tp[1]} offsets {first}-{last} delivered to {member} at "
                                      f"{row[0]} ms with delivery count {count:g}, above the limit {delivery_limit}")
            for other, held in holds[tp].items():
                if held.starts and other != member and held.overlap(first, last):
                    raise InvariantBroken(f"{tp[0]}-{tp[1]} offsets {first}-{last} acquired by {member} at "
                                          f"{row[0]} ms while {other} still held some of them")
            holds[tp].setdefault(member, RangeSet()).add(first, last)
        elif kind in WRITE_KINDS:
            tp, (first, last) = (row[6], row[7]), _range(row[9])
            for held in holds[tp].values():
                if held.starts:
                    held.remove(first, last)
            if row[11] in TERMINAL and terminal[tp].add(first, last):
                raise InvariantBroken(f"{tp[0]}-{tp[1]} offsets {first}-{last} made {row[11]} at {row[0]} ms, but "
                                      f"some were acknowledged before: a record acknowledged twice")
        elif kind == "SharePartitionState":
            tp, spso = (row[6], row[7]), int(row[10])
            done = terminal[tp].overlap(0, spso - 1)
            if done != spso:
                raise InvariantBroken(f"{tp[0]}-{tp[1]}: the share partition start offset is {spso} at the end, but "
                                      f"only {done} records below it were accepted, rejected or archived")


def share_metrics(rows: Iterable[tuple], produced: int, duration_ms: int) -> dict:
    """The queue metrics of a share-group run, from its events (keys: `SHARE_SUMMARY_DOC`)."""
    accepted = rejected = archived = redelivered = expired = failed = released = 0
    terminal = 0
    last_done = 0
    for row in rows:
        kind = row[4]
        if kind == "Acquired":
            if row[10] > 1:
                first, last = _range(row[9])
                redelivered += last - first + 1
        elif kind in WRITE_KINDS:
            first, last = _range(row[9])
            n = last - first + 1
            state = row[11]
            if state in TERMINAL:
                terminal += n
                last_done = row[0]
                if state == "ARCHIVED":
                    archived += n
                else:
                    accepted += n
            if kind == "LockExpired":
                expired += n
            elif kind == "RecordsReleased":
                released += n
        elif kind == "Acknowledged":
            first, last = _range(row[9])  # "TYPE first-last"
            if row[8] is not None:
                failed += last - first + 1
            elif row[9].startswith("REJECT "):
                rejected += last - first + 1
    stuck = produced - terminal
    return {"records_accepted": accepted, "records_rejected": rejected, "records_archived": archived,
            "redeliveries": redelivered, "lock_expiries": expired, "records_released_on_close": released,
            "acknowledgement_failures": failed, "records_stuck": stuck,
            "drain_ms": max(0, last_done - duration_ms) if stuck == 0 else None,
            "throughput_per_s": round(terminal / (last_done / 1000), 1) if last_done else 0.0}
