"""What a diagnosis is made of: the cause labels, a finding, and the settings that prevent each cause.

The labels are the ones `kafkasim diagnose --json` promises (issue 31); a finding names one of
them, the group, a score in [0, 1] (how strongly the lines point at that cause), a sentence,
the lines that show it (file and 1-based line) and the settings that would have prevented it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Every cause a finding may name, in the order the report lists them when scores tie.
LABELS = ("slow-processing", "session-timeout-gc-or-stall", "network", "rolling-restart-dynamic-members",
          "scaling", "too-many-members-or-slow-join", "misconfiguration", "client-bug",
          "broker-bug-or-coordinator", "kip848-specific")

#: Settings (Kafka's names; the KIP that brought them) that would have kept each cause from rebalancing the group.
SETTINGS = {
    "slow-processing": [
        "max.poll.interval.ms above the longest time between two poll() calls (KIP-62)",
        "max.poll.records lower, so one batch is processed well within max.poll.interval.ms",
        "processing handed to another thread (pause() the partitions meanwhile), poll() kept in its loop"],
    "session-timeout-gc-or-stall": [
        "session.timeout.ms above the longest GC pause or stall (default 45000 from Kafka 3.0, KIP-735)",
        "heartbeat.interval.ms at most a third of session.timeout.ms",
        "JVM GC tuned for short pauses (G1 MaxGCPauseMillis, ZGC), CPU limits that do not throttle the heartbeat "
        "thread"],
    "network": [
        "session.timeout.ms longer than the outages seen (the member is only fenced once it expires)",
        "request.timeout.ms and reconnect.backoff.max.ms so the client finds the coordinator again quickly",
        "connections.max.idle.ms of the broker and of every proxy/load balancer above the client's",
        "group.instance.id (static membership, KIP-345): a member back within the session keeps its partitions"],
    "rolling-restart-dynamic-members": [
        "group.instance.id per process (static membership, KIP-345) with session.timeout.ms longer than a restart",
        "partition.assignment.strategy=cooperative-sticky (KIP-429): only moved partitions are revoked",
        "group.protocol=consumer (KIP-848, Kafka 4.0+): no group-wide stop while members come and go"],
    "scaling": [
        "partition.assignment.strategy=cooperative-sticky (KIP-429), or group.protocol=consumer (KIP-848)",
        "an autoscaler stabilization window longer than a rebalance; scale in steps, not one consumer at a time",
        "group.initial.rebalance.delay.ms (broker) so consumers starting together join one rebalance"],
    "too-many-members-or-slow-join": [
        "group.initial.rebalance.delay.ms (broker) long enough for all members to join the first rebalance",
        "group.max.size (broker, KIP-389) to refuse runaway joins; fewer members per group",
        "max.poll.interval.ms (the rebalance timeout) large enough for the slowest member to rejoin",
        "group.protocol=consumer (KIP-848): members join without a group-wide barrier"],
    "misconfiguration": [
        "session.timeout.ms within the broker's group.min.session.timeout.ms and group.max.session.timeout.ms",
        "heartbeat.interval.ms at most a third of session.timeout.ms",
        "a group.instance.id unique to each process; one group.id per application",
        "group.consumer.migration.policy (broker) that allows the protocols the clients use (KIP-848)"],
    "client-bug": ["the client library upgraded to the version that fixes the bug named"],
    "broker-bug-or-coordinator": [
        "the broker upgraded to the version that fixes the bug named",
        "a healthy __consumer_offsets topic (replication, min.insync.replicas, disk) for the coordinator to write to"],
    "kip848-specific": [
        "group.consumer.session.timeout.ms and group.consumer.heartbeat.interval.ms (broker, KIP-848)",
        "a group.instance.id unique to each process, released (leave) before its replacement starts",
        "group.consumer.migration.policy (broker) set for the migration planned"],
}


@dataclass(frozen=True)
class Line:
    """Where a finding was seen: a file and a 1-based line number in it."""

    file: str
    line: int


@dataclass
class Finding:
    """One cause, in one group, with what shows it."""

    cause: str
    group: str | None
    score: float
    summary: str
    evidence: list[Line] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The --json shape (issue 31): exactly these keys, `line` 1-based."""
        return {"cause": self.cause, "group": self.group, "score": float(self.score), "summary": self.summary,
                "evidence": [{"file": e.file, "line": int(e.line)} for e in self.evidence],
                "settings": list(self.settings)}


def best_first(findings: list[Finding]) -> list[Finding]:
    """Highest score first; ties by label order, then group, so the order is deterministic."""
    return sorted(findings, key=lambda f: (-f.score, LABELS.index(f.cause), f.group or ""))
