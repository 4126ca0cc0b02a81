"""The broker log reader on the shapes real logs have (issue 29): groups of 10, 100 and 10,000
members, generations and group epochs of several digits, in every modelled Kafka version's
wording, in both directions of the round trip.

- Written, then read: `BrokerLog` writes a rebalance of N members at generation 1,234,567 in the
  wording of each version, and the parser must read back exactly the events written. The expected
  rows are written here by hand from Kafka's log statements (GroupCoordinator.scala up to 3.9,
  GroupMetadataManager.java from 4.0) and from what each line carries: which version names the
  leader, the member count, the reason, and which lines a version does not write at INFO.
- Simulated, then read: runs of 10 and 100 members are read back event by event
  (`assert_read_back` of tests/test_log_parser.py: every parsed event is a simulated one) and kind
  by kind (the per-version rules of tests/test_log_roundtrip.py: every logged event is read once).

Only the parser's public functions are used (`parse_lines`), as by the other parser tests.
"""

from __future__ import annotations

import uuid
from collections import Counter

import pytest

from kafkasim import Scenario, simulate
from kafkasim import faults as F
from kafkasim.analysis.log_parser import parse_lines
from kafkasim.coordinator.broker_log import FENCED_SESSION_EXPIRED, BrokerLog
from kafkasim.core.config import KAFKA_VERSIONS, parse_version
from kafkasim.core.events import FIELDS

from test_log_parser import assert_read_back
from test_log_roundtrip import read_as, shown_as

SIZES = (10, 100, 10_000)
#: Seven digits: Kafka's generationId and group epoch are Int32s, printed without separators.
GENERATION = 1_234_567
MODERN = [v for v in KAFKA_VERSIONS if parse_version(v) >= (4, 0)]


def member_id(i: int) -> str:
    """A member id of Kafka's shape before 4.0: client id, '-', a UUID (`GroupCoordinator.doNewMemberJoinGroup`)."""
    return f"consumer-g-1-{uuid.UUID(int=i + 1)}"


def event(time, kind, member=None, generation=None, reason=None, value=None, state=None) -> tuple:
    """A parsed row's event fields (FIELDS), those a coordinator line can carry set."""
    return (time, "coordinator", "g", member, kind, generation, None, None, None, reason, value, state)


def read(lines: list[str]) -> list[tuple]:
    result = parse_lines(lines)
    assert result.unparsed == [] and result.counts["ignored"] == 0, result.unparsed[:3]
    return [row[:len(FIELDS)] for row in result.rows]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("version", KAFKA_VERSIONS)
def test_a_classic_rebalance_of_n_members_at_a_seven_digit_generation_reads_back_in_every_wording(version, n):
    v = parse_version(version)
    members = [member_id(i) for i in range(n)]
    log = BrokerLog(version)
    log.preparing_rebalance(1_000, "g", "Stable", GENERATION - 1, log.reason_heartbeat_expiration(members[0]))
    for i, m in enumerate(members[1:]):
        log.member_failed(2_000 + i, "g", m)
    log.stabilized(20_000, "g", GENERATION, n)
    log.assignment_received(20_001, "g", GENERATION, members[0], n, n // 2)
    log.removed_not_rejoined(30_000, "g", members[1:])
    log.group_empty(40_000, "g", GENERATION + 1)

    # "(reason: ...)" from 2.1 (KIP-345's groundwork, KAFKA-7235); 4.0's Java text ends with a period.
    reason = None if v < (2, 1) else \
        f"removing member {members[0]} on heartbeat expiration" + ("." if v >= (4, 0) else "")
    want = [event(1_000, "RebalanceStarted", generation=GENERATION - 1, reason=reason, state="PreparingRebalance")]
    if v >= (0, 11, 0, 1):  # "has failed, removing it from the group": TRACE/DEBUG before 0.11.0.1
        want += [event(2_000 + i, "MemberRemoved", m, reason="session_timeout") for i, m in enumerate(members[1:])]
    count = n if v >= (2, 8) else None  # "with N members" / "The group has N members": 2.8 (KIP-700's era lines)
    leader = members[0] if v >= (3, 0) else None  # "Assignment received from leader L": 3.0
    want += [event(20_000, "GenerationStabilized", generation=GENERATION, value=count, state="CompletingRebalance"),
             event(20_001, "AssignmentReceived", leader, GENERATION, value=count, state="CompletingRebalance"),
             event(20_001, "GroupStable", leader, GENERATION, value=count, state="Stable")]
    if v >= (2, 8):  # "removed dynamic members who haven't joined: Set(...)": one line, one removal per member
        want += [event(30_000, "MemberRemoved", m, reason="rebalance_timeout", state="PreparingRebalance")
                 for m in members[1:]]
    # Up to 0.10.0 "Group g generation G is dead and removed" names the generation the group had
    # (BrokerLog is given the next one); from 0.10.1 "... with generation G is now empty".
    want.append(event(40_000, "GroupEmpty", generation=GENERATION if v < (0, 10, 1) else GENERATION + 1,
                      state="Dead" if v < (0, 10, 1) else "Empty"))
    assert read(log.lines) == want


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("version", MODERN)
def test_a_consumer_group_of_n_members_at_a_seven_digit_epoch_reads_back(version, n):
    """KIP-848's lines (GroupMetadataManager.java, 4.0+): members join (dynamic, and static with an
    instance id), the epoch is bumped, a target assignment is computed for it, sessions expire."""
    members = [str(uuid.UUID(int=i + 1)) for i in range(n)]  # 4.x member ids are bare UUIDs (Uuid.randomUuid)
    log = BrokerLog(version)
    for i, m in enumerate(members):
        log.consumer_member_joined(1_000 + i, "g", m, instance_id=f"i-{i}" if i % 2 else None)
    log.group_epoch_bumped(50_000, "g", GENERATION, metadata={"t": 2 * n})
    log.target_assignment_computed(50_000, "g", GENERATION, "uniform", elapsed_ms=12)
    for i, m in enumerate(members):
        log.consumer_member_fenced(60_000 + i, "g", m, FENCED_SESSION_EXPIRED)

    want = [event(1_000 + i, "MemberJoined", m, reason="static" if i % 2 else None) for i, m in enumerate(members)]
    want += [event(50_000, "GroupEpochBumped", generation=GENERATION, value=float(GENERATION)),
             event(50_000, "TargetAssignmentComputed", generation=GENERATION, reason="uniform")]
    for i, m in enumerate(members):  # a fenced member is removed from the group at once
        want += [event(60_000 + i, "MemberFenced", m, reason="session_timeout"),
                 event(60_000 + i, "MemberRemoved", m, reason="session_timeout")]
    assert read(log.lines) == want


def _classic_run(version: str, n: int):
    """N members, then a crash (session timeout), a scale-in (LeaveGroup), a scale-out."""
    return simulate(Scenario(members=n, topics={"t": 2 * n}, duration_ms=120_000, kafka_version=version,
                             faults=(F.Crash("c-3", 20_000), F.ScaleIn(50_000, ("c-5", "c-7")), F.ScaleOut(70_000, 2))))


def _consumer_run(version: str, n: int):
    return simulate(Scenario(members=n, topics={"t": 2 * n}, duration_ms=120_000, kafka_version=version,
                             consumer={"group.protocol": "consumer"},
                             faults=(F.Crash("c-3", 20_000), F.ScaleIn(50_000, ("c-5", "c-7")), F.ScaleOut(70_000, 2))))


@pytest.mark.parametrize("n", (10, 100))
@pytest.mark.parametrize("version, make", [("0.10.0", _classic_run), ("2.2", _classic_run), ("2.8", _classic_run),
                                           ("3.2", _classic_run), ("3.9", _classic_run), ("4.0", _classic_run),
                                           ("4.0", _consumer_run), ("4.4", _consumer_run)])
def test_a_simulated_run_of_n_members_reads_back_event_by_event_and_kind_by_kind(version, make, n):
    v = parse_version(version)
    run = make(version, n)
    # Each event the version logs at INFO is read back once, at its time (tests/test_log_roundtrip.py's rules).
    shown = Counter((r[0], *shown_as(r, v)) for r in run.rows if r[1] == "coordinator" and shown_as(r, v))
    parsed = Counter((r[0], *read_as(r)) for r in parse_lines(run.broker_log).rows)
    assert parsed == shown, f"read back {dict(parsed - shown)} more, {dict(shown - parsed)} fewer"
    kinds = Counter(kind for _, kind, _ in parsed.elements())
    if make is _consumer_run:
        # Every member's join bumps the epoch: more than n epochs, so three digits at n = 100.
        assert kinds["GroupEpochBumped"] > n
        assert kinds["MemberJoined"] == n + 2  # the n members, then the 2 of the scale-out
    else:
        # Every field a classic line carries equals the simulated event's (tests/test_log_parser.py).
        simulated, read_kinds = assert_read_back(run.broker_log, run.rows, v)
        assert read_kinds["RebalanceStarted"] == simulated["RebalanceStarted"] > 0
