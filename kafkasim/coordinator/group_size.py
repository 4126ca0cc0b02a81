"""Group size limits (KIP-389, KAFKA-7641): `group.max.size`, a join storm, member-metadata memory.

The rule itself lives in the coordinator (`GroupCoordinator._accept_joining_member`, Kafka's
`acceptJoiningMember`); this module builds what a chapter needs around it:

- the gap between the KIP's draft and what shipped in Kafka 2.2 (`KIP_389_DRAFT`, `kip_vs_shipped`);
- a byte model of what the coordinator keeps per member (`member_bytes`), to set against the
  KIP's 120-byte estimate;
- `JoinStorm`: a buggy client that keeps joining with fresh member ids and never comes back
  (KAFKA-7610, the KIP's motivating case), run against the real coordinator model, sampling the
  group's size and member-metadata bytes over time (how long an ordinary group's rebalance takes as
  it grows is `kafkasim.analysis.experiments.rebalance_durations`: it runs whole scenarios).

Modelled simplifications, said again in the chapter: the byte model counts payload only (the
strings and byte arrays a member carries plus its fixed-size fields), not JVM object headers,
string headers or hash-map entries; the storm's client never heartbeats, never sends SyncGroup and
never reads an answer; the coordinator applies the 2.6+ capacity rule (KAFKA-9885) for every version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import pandas as pd

from kafkasim.core.config import broker_config, consumer_config, parse_version
from kafkasim.coordinator import GroupCoordinator
from kafkasim.coordinator.classic.group import Group, Member
from kafkasim.core.java import INT_MAX
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError, Errors

# -- KIP-389: the draft and what shipped ----------------------------------------------------------
#: What the KIP-389 wiki draft (the workbook's seed, page version 7) proposed.
KIP_389_DRAFT = {
    "default": 1_000_000,        # GroupMaxSize default in the draft's KafkaConfig snippet
    "error_code": 77,            # GROUP_MAX_SIZE_REACHED(77, ...) in the draft's Errors.java snippet
    "member_bytes": 120,         # its rough size of one member's metadata
    "enforced_in": "handleJoinGroup and handleSyncGroup",
}
#: Kafka 2.2.0 gave code 77 to STALE_BROKER_EPOCH (KIP-380) and GROUP_MAX_SIZE_REACHED became 81.
CODE_77_IN_KAFKA = "STALE_BROKER_EPOCH"
SHIPPED_IN = "2.2"


def group_max_size_default(kafka_version: str = "3.7") -> int | None:
    """Shipped default of `group.max.size` (None before 2.2, when the config did not exist)."""
    return broker_config(kafka_version)["group.max.size"]


def kip_estimate_bytes(members: int = KIP_389_DRAFT["default"],
                       member_bytes: int = KIP_389_DRAFT["member_bytes"]) -> int:
    """The draft's back-of-envelope memory bound for one group: members x bytes per member."""
    return members * member_bytes


def kip_vs_shipped(kafka_version: str) -> pd.DataFrame:
    """One row per aspect: what the KIP-389 draft proposed, and what `kafka_version` does."""
    default = group_max_size_default(kafka_version)
    shipped = Errors.GROUP_MAX_SIZE_REACHED
    rows = [
        ("config", "group.max.size", "group.max.size" if default is not None else "(absent before 2.2)"),
        ("default", f"{KIP_389_DRAFT['default']:,}", "(none)" if default is None else f"{default:,}"),
        ("valid range", "not stated", "[1, 2147483647] (atLeast(1), int)" if default is not None else "-"),
        ("error", f"GROUP_MAX_SIZE_REACHED = {KIP_389_DRAFT['error_code']}",
         f"{shipped.name} = {shipped.code} (77 went to {CODE_77_IN_KAFKA})" if default is not None else "(none)"),
        ("checked on", KIP_389_DRAFT["enforced_in"],
         "JoinGroup only (acceptJoiningMember)" if default is not None else "nothing: groups grow without limit"),
        ("consumer on the error", "fails (fatal)",
         f"fatal: poll() throws {shipped.exception}" if default is not None else "-"),
        ("memory at the default", f"{kip_estimate_bytes() // 1_000_000} MB per group (120 B x 1,000,000)",
         "unbounded in practice" if default == INT_MAX else "-"),
    ]
    return pd.DataFrame(rows, columns=["aspect", "KIP-389 draft", f"Kafka {kafka_version}"])


# -- what a member costs the coordinator ---------------------------------------------------------
#: MemberMetadata's fixed-size fields counted by the model: rebalanceTimeoutMs and
#: sessionTimeoutMs (int32 each) and the isNew flag (one byte).
FIXED_FIELD_BYTES = 4 + 4 + 1


def subscription_bytes(topics: Sequence[str], user_data: bytes | None = None) -> int:
    """Serialized size of a consumer's Subscription, version 0 layout (ConsumerProtocol):
    int16 version, int32 topic count, each topic as int16 length + UTF-8, nullable bytes user data."""
    return 2 + 4 + sum(2 + len(t.encode()) for t in topics) + 4 + len(user_data or b"")


def member_bytes(member: Member) -> int:
    """Payload bytes the coordinator keeps for one member (the model of this chapter).

    Counted: member id, group instance id, client id, client host, protocol type, each protocol's
    name and metadata, the assignment, and FIXED_FIELD_BYTES. Not counted: JVM object and string
    headers, references, and the members map's entries, which a heap dump would add on top.
    """
    strings = (member.member_id, member.instance_id or "", member.client_id, member.client_host,
               member.protocol_type)
    return (sum(len(s.encode()) for s in strings)
            + sum(len(name.encode()) + len(data) for name, data in member.protocols)
            + len(member.assignment) + FIXED_FIELD_BYTES)


def pending_member_bytes(member_id: str) -> int:
    """A pending member (KIP-394, 2.2+) is only an id in a set: its UTF-8 bytes."""
    return len(member_id.encode())


def group_bytes(group: Group | None) -> int:
    """Member-metadata bytes of one group: its members plus its pending member ids."""
    if group is None:
        return 0
    return sum(member_bytes(m) for m in group.members.values()) + sum(
        pending_member_bytes(p) for p in group.pending_join)


# -- the storm ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class JoinStorm:
    """A client stuck in a join loop: every `1000 / joins_per_s` ms it sends JoinGroup with an empty
    member id. From Kafka 2.2 (JoinGroup v4, KIP-394) it gets MEMBER_ID_REQUIRED and comes straight
    back with the id, which makes it a member; before 2.2 the first JoinGroup already does. It then
    forgets the id, as the client of KAFKA-7610 did after a request timeout, and starts over.

    `session_timeout_ms` and `rebalance_timeout_ms` (the client's `max.poll.interval.ms`) default
    to the consumer defaults of `kafka_version`; `group_max_size` None means the broker default.
    """

    kafka_version: str = "3.7"
    group_max_size: int | None = None
    joins_per_s: float = 10.0
    duration_ms: int = 900_000
    session_timeout_ms: int | None = None
    rebalance_timeout_ms: int | None = None
    topics: tuple = ("orders",)
    client_id: str = "consumer-workbook-group-1"
    sample_ms: int = 5_000
    seed: int = 1
    group_id: str = "workbook-group"
    broker: dict = field(default_factory=dict)

    def __post_init__(self):
        overrides = dict(self.broker)
        if self.group_max_size is not None:
            overrides["group.max.size"] = self.group_max_size
        object.__setattr__(self, "broker_config", broker_config(self.kafka_version, overrides))
        consumer = consumer_config(self.kafka_version, {
            k: v for k, v in (("session.timeout.ms", self.session_timeout_ms),
                              ("max.poll.interval.ms", self.rebalance_timeout_ms)) if v is not None})
        object.__setattr__(self, "consumer_config", consumer)
        rate = self.joins_per_s
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 1000:
            raise ConfigError(f"joins_per_s must be a number in (0, 1000], got {rate!r}")
        for name in ("duration_ms", "sample_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be an integer >= 1, got {value!r}")

    @property
    def interval_ms(self) -> int:
        return max(1, round(1000 / self.joins_per_s))

    @property
    def two_step(self) -> bool:
        """JoinGroup v4+ (Kafka 2.2+, KIP-394): a new member first gets MEMBER_ID_REQUIRED."""
        return parse_version(self.kafka_version) >= (2, 2)

    def protocols(self) -> list[tuple[str, bytes]]:
        """The client's protocols: the version's default assignors, each with a v0 subscription."""
        metadata = bytes(subscription_bytes(self.topics))  # the right length; the content does not matter
        return [(name, metadata) for name in self.consumer_config["partition.assignment.strategy"]]

    def run(self) -> "StormRun":
        return _run_storm(self)


@dataclass
class StormRun:
    """A storm's outcome: `samples` (time_ms, members, pending, bytes, state), counters, the
    coordinator's events and broker log, and the storm that produced it."""

    storm: JoinStorm
    samples: pd.DataFrame
    joins: int
    accepted: int
    rejected: int
    events: pd.DataFrame
    broker_log: list[str]

    @property
    def peak_members(self) -> int:
        return int(self.samples["members"].max())

    @property
    def peak_bytes(self) -> int:
        return int(self.samples["bytes"].max())

    @property
    def bytes_per_member(self) -> float:
        """Mean bytes per member at the peak sample (the model's figure to set against 120 B)."""
        peak = self.samples.loc[self.samples["bytes"].idxmax()]
        return float(peak["bytes"] / max(1, peak["members"] + peak["pending"]))

    def removals(self) -> dict[str, int]:
        """Members removed by the coordinator, by reason (session_timeout, new_member_timeout, ...)."""
        removed = self.events[self.events["kind"] == "MemberRemoved"]
        return {str(k): int(v) for k, v in removed["reason"].value_counts().sort_index().items()}


def _run_storm(storm: JoinStorm) -> StormRun:
    sim = Simulation(storm.seed)
    broker = storm.broker_config
    coord = GroupCoordinator(sim, kafka_version=storm.kafka_version, group_max_size=broker["group.max.size"],
                             group_initial_rebalance_delay_ms=broker["group.initial.rebalance.delay.ms"])
    settings = dict(session_timeout_ms=storm.consumer_config["session.timeout.ms"],
                    rebalance_timeout_ms=storm.consumer_config["max.poll.interval.ms"],
                    protocols=storm.protocols(), client_id=storm.client_id)
    counts = {"joins": 0, "accepted": 0, "rejected": 0}
    samples: list[tuple] = []

    def join() -> None:
        counts["joins"] += 1
        first = coord.join_group(storm.group_id, require_known_member_id=storm.two_step, **settings)  # no member id
        last = first
        if first.error is Errors.MEMBER_ID_REQUIRED:
            last = coord.join_group(storm.group_id, first.member_id, **settings)
        if last.error is Errors.GROUP_MAX_SIZE_REACHED:  # an error is set only with the answer (`_Response`)
            counts["rejected"] += 1
        elif last.member_id in coord.groups[storm.group_id].members:  # the group: made by the join at 0
            counts["accepted"] += 1
        if sim.now + storm.interval_ms < storm.duration_ms:
            sim.schedule(storm.interval_ms, join)

    def sample() -> None:
        group = coord.groups[storm.group_id]  # created by the join at 0, which runs first
        samples.append((sim.now, len(group.members), len(group.pending_join), group_bytes(group), group.state))
        sim.schedule(storm.sample_ms, sample)  # one past duration_ms never runs: `run` stops there

    sim.at(0, join)
    sim.at(0, sample)  # scheduled after the first join: the sample at 0 sees it
    sim.run(until=storm.duration_ms)
    frame = pd.DataFrame(samples, columns=["time_ms", "members", "pending", "bytes", "state"])
    return StormRun(storm, frame, counts["joins"], counts["accepted"], counts["rejected"],
                    sim.events.to_frame(), list(coord.broker_log))


def storm_grid(max_sizes: Sequence[int | None], rates: Sequence[float], **common) -> pd.DataFrame:
    """Samples of one storm per (group.max.size, joins/s), stacked, with `group_max_size` (None
    shown as the broker default) and `joins_per_s` columns: the table behind the static explorer."""
    parts = []
    for size in max_sizes:
        for rate in rates:
            run = JoinStorm(group_max_size=size, joins_per_s=rate, **common).run()
            limit = run.storm.broker_config["group.max.size"]
            parts.append(run.samples.assign(group_max_size=limit, joins_per_s=float(rate),
                                            rejected=run.rejected, peak_members=run.peak_members))
    return pd.concat(parts, ignore_index=True)


def fatal_members(run) -> list[str]:
    """Consumers of a Run that stopped on GROUP_MAX_SIZE_REACHED (the Java client treats it as fatal)."""
    events = run.events
    fatal = events[(events["kind"] == "Fatal") & (events["error"] == Errors.GROUP_MAX_SIZE_REACHED.name)]
    return sorted(fatal["member"].unique().tolist(), key=lambda m: (len(m), m))
