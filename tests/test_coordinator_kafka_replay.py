"""Scenarios replayed from Apache Kafka's own group-coordinator unit tests.

kafkasim models the *old* (Scala) classic group coordinator as shipped in Kafka 3.7
(``core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala`` at tag 3.7.0).
Each test below follows one Kafka unit test, named in its docstring:

- ``GroupCoordinatorTest`` = ``core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala``
  (tag 3.7.0), the unit tests of that Scala coordinator. Most scenarios come from here.
- ``GroupMetadataManagerTest`` =
  ``group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java``
  (trunk), the tests of the new Java coordinator's classic-group code. Used only where the
  old and the new implementation behave the same, or (clearly marked "old-coordinator
  variant") where the expectation is rewritten for the Scala coordinator.

The scenarios are translated, not copied: the steps and the asserted outcomes are
Kafka's, the code is ours. A few assertions go further than the Kafka test (state,
generation, member set after the scenario); each one is derived from the 3.7.0 Scala
source and is marked "(derived)".

Time. Kafka's Scala tests drive a ``MockTimer``: ``advanceClock(ms)`` moves the clock
first and then runs every task with ``deadline < now`` *at the new now*; tasks armed by
those callbacks are based on the new now. ``Simulation.jump`` does the same except that
it fires ``deadline <= now``, which only matters when a jump lands exactly on a
deadline; the scenarios below keep Kafka's "+1"s so this never happens, and where a Kafka
test lands exactly on a deadline without expecting it to fire, the step is shortened by
1 ms and a comment says so. The Java tests use ``MockCoordinatorTimer``, which fires
``deadline <= now`` at the new now, exactly like ``jump``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kafkasim import Simulation
from kafkasim.coordinator import GroupCoordinator
from kafkasim.core.errors import Errors

# --------------------------------------------------------------------------------------
# Configuration of the two Kafka test suites
# --------------------------------------------------------------------------------------

# GroupCoordinatorTest.setUp / constants.
GROUP_MIN_SESSION_TIMEOUT = 10
GROUP_MAX_SESSION_TIMEOUT = 10 * 60 * 1000
GROUP_MAX_SIZE = 4
GROUP_INITIAL_REBALANCE_DELAY = 50
DEFAULT_REBALANCE_TIMEOUT = 500
DEFAULT_SESSION_TIMEOUT = 500
NEW_MEMBER_JOIN_TIMEOUT = 5 * 60 * 1000  # GroupCoordinator.NewMemberJoinTimeoutMs

GROUP_ID = "groupId"
PROTOCOL_TYPE = "consumer"
PROTOCOL_NAME = "range"
PROTOCOLS = [("range", b"")]
PROTOCOL_SUPERSET = [("range", b""), ("roundrobin", b"")]
LEADER_INSTANCE = "leader"
FOLLOWER_INSTANCE = "follower"
GROUP_INSTANCE = "groupInstanceId"
INVALID_MEMBER = "invalidMember"
CLIENT_ID = "clientId"

# GroupMetadataManagerTestContext defaults (classic group part).
GMMT_INITIAL_REBALANCE_DELAY = 3000
GMMT_MIN_SESSION_TIMEOUT = 10
GMMT_MAX_SESSION_TIMEOUT = 10 * 60 * 1000
GMMT_GROUP_ID = "group-id"

NONE = Errors.NONE


# --------------------------------------------------------------------------------------
# Helpers: a thin harness that mirrors the helper methods of GroupCoordinatorTest
# --------------------------------------------------------------------------------------


@dataclass
class RebalanceResult:
    """GroupCoordinatorTest.RebalanceResult."""

    generation: int
    leader_id: str
    leader_assignment: bytes
    follower_id: str
    follower_assignment: bytes


class Harness:
    def __init__(self, group_id: str = GROUP_ID, **config):
        self.sim = Simulation(seed=0)
        self.coord = GroupCoordinator(self.sim, **config)
        self.group_id = group_id

    # -- clock ---------------------------------------------------------------------
    def advance_clock(self, ms: int) -> None:
        """MockTimer.advanceClock: move first, then run what is due at the new now."""
        self.sim.jump(ms)

    # -- requests ------------------------------------------------------------------
    def send_join(self, member_id: str = "", instance_id: str | None = None, *,
                  protocols=PROTOCOLS, protocol_type: str = PROTOCOL_TYPE,
                  session_timeout: int = DEFAULT_SESSION_TIMEOUT,
                  rebalance_timeout: int = DEFAULT_REBALANCE_TIMEOUT,
                  require_known_member_id: bool = False, group_id: str | None = None):
        """GroupCoordinatorTest.sendJoinGroup (note: requireKnownMemberId defaults to false)."""
        return self.coord.join_group(
            self.group_id if group_id is None else group_id,
            member_id=member_id, group_instance_id=instance_id,
            session_timeout_ms=session_timeout, rebalance_timeout_ms=rebalance_timeout,
            protocol_type=protocol_type, protocols=list(protocols),
            require_known_member_id=require_known_member_id, client_id=CLIENT_ID)

    def dynamic_join(self, member_id: str = "", *, protocols=PROTOCOLS,
                     protocol_type: str = PROTOCOL_TYPE,
                     session_timeout: int = DEFAULT_SESSION_TIMEOUT,
                     rebalance_timeout: int = DEFAULT_REBALANCE_TIMEOUT,
                     group_id: str | None = None):
        """GroupCoordinatorTest.dynamicJoinGroup: two-step join, then advanceClock(delay + 1)."""
        resp = self.send_join(member_id, protocols=protocols, protocol_type=protocol_type,
                              session_timeout=session_timeout, rebalance_timeout=rebalance_timeout,
                              require_known_member_id=True, group_id=group_id)
        if member_id == "":
            assert resp.done
            if resp.error != Errors.MEMBER_ID_REQUIRED:
                return resp
            resp = self.send_join(resp.member_id, protocols=protocols, protocol_type=protocol_type,
                                  session_timeout=session_timeout,
                                  rebalance_timeout=rebalance_timeout,
                                  require_known_member_id=True, group_id=group_id)
        self.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
        assert resp.done, "JoinGroup still parked after the initial delay"
        return resp

    def static_join(self, member_id: str, instance_id: str, *, protocols=PROTOCOLS,
                    protocol_type: str = PROTOCOL_TYPE,
                    clock_advance: int = GROUP_INITIAL_REBALANCE_DELAY + 1,
                    session_timeout: int = DEFAULT_SESSION_TIMEOUT,
                    rebalance_timeout: int = DEFAULT_REBALANCE_TIMEOUT):
        """GroupCoordinatorTest.staticJoinGroup: send, advanceClock(clockAdvance), await."""
        resp = self.send_join(member_id, instance_id, protocols=protocols,
                              protocol_type=protocol_type, session_timeout=session_timeout,
                              rebalance_timeout=rebalance_timeout)
        self.advance_clock(clock_advance)
        assert resp.done, "JoinGroup still parked after the clock advance"
        return resp

    def send_sync(self, generation: int, member_id: str, assignments=None,
                  instance_id: str | None = None, group_id: str | None = None):
        return self.coord.sync_group(self.group_id if group_id is None else group_id,
                                     member_id, generation, assignments=assignments,
                                     group_instance_id=instance_id)

    def sync_leader(self, generation: int, member_id: str, assignments,
                    instance_id: str | None = None):
        resp = self.send_sync(generation, member_id, dict(assignments), instance_id)
        assert resp.done, "leader SyncGroup parked"
        return resp

    def sync_follower(self, generation: int, member_id: str, instance_id: str | None = None,
                      group_id: str | None = None):
        resp = self.send_sync(generation, member_id, None, instance_id, group_id)
        assert resp.done, "follower SyncGroup parked"
        return resp

    def heartbeat(self, member_id: str, generation: int, instance_id: str | None = None,
                  group_id: str | None = None):
        resp = self.coord.heartbeat(self.group_id if group_id is None else group_id,
                                    member_id, generation, group_instance_id=instance_id)
        assert resp.done
        return resp.error

    def commit(self, member_id: str, generation: int, instance_id: str | None = None,
               group_id: str | None = None):
        resp = self.coord.commit_offsets(self.group_id if group_id is None else group_id,
                                         member_id, generation, {0: 42},
                                         group_instance_id=instance_id)
        return resp.error

    def leave(self, *members, group_id: str | None = None):
        return self.coord.leave_group(self.group_id if group_id is None else group_id,
                                      list(members))

    # -- group inspection ----------------------------------------------------------
    @property
    def state(self):
        return self.coord.group_state(self.group_id)

    @property
    def generation(self):
        return self.coord.generation_id(self.group_id)

    @property
    def members(self):
        return list(self.coord.member_ids(self.group_id))

    @property
    def leader(self):
        return self.coord.leader_id(self.group_id)

    @property
    def pending(self):
        return list(self.coord.pending_member_ids(self.group_id))

    # -- composite set-ups from GroupCoordinatorTest -------------------------------
    def static_members_join_and_rebalance(self, *, session_timeout=DEFAULT_SESSION_TIMEOUT,
                                          rebalance_timeout=DEFAULT_REBALANCE_TIMEOUT,
                                          leader_assignment: bytes = b"L",
                                          follower_assignment: bytes = b"F") -> RebalanceResult:
        """GroupCoordinatorTest.staticMembersJoinAndRebalance.

        (Kafka assigns only the leader; we give both members a distinct assignment so
        the later "gets back its assignment" checks can fail.)
        """
        leader_join = self.send_join("", LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET,
                                     session_timeout=session_timeout,
                                     rebalance_timeout=rebalance_timeout)
        follower_join = self.send_join("", FOLLOWER_INSTANCE, protocols=PROTOCOL_SUPERSET,
                                       session_timeout=session_timeout,
                                       rebalance_timeout=rebalance_timeout)
        # First advance: the initial delay expires and, since a second member arrived,
        # is extended once; second advance: the extended delay expires.
        self.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
        self.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
        assert leader_join.done and follower_join.done
        assert leader_join.error == NONE and leader_join.generation_id == 1
        assert follower_join.error == NONE and follower_join.generation_id == 1
        leader_id = leader_join.member_id
        follower_id = follower_join.member_id
        assert leader_join.leader_id == leader_id

        leader_sync = self.sync_leader(1, leader_id, {leader_id: leader_assignment,
                                                      follower_id: follower_assignment})
        assert leader_sync.error == NONE
        assert self.state == "Stable"
        follower_sync = self.sync_follower(1, follower_id)
        assert follower_sync.error == NONE
        assert self.state == "Stable"
        return RebalanceResult(1, leader_id, leader_sync.assignment, follower_id,
                               follower_sync.assignment)

    def join_with_n_members(self, n: int):
        """GroupCoordinatorTest.joinWithNMembers (two-step joins, all at time 0)."""
        first = [self.send_join(require_known_member_id=True) for _ in range(n)]
        assert all(r.done and r.error == Errors.MEMBER_ID_REQUIRED for r in first)
        second = [self.send_join(r.member_id, require_known_member_id=True) for r in first]
        self.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
        self.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
        assert all(r.done for r in second)
        return second

    def setup_group_with_pending_member(self):
        """GroupCoordinatorTest.setupGroupWithPendingMember.

        Two members in PreparingRebalance (both rejoined) plus one pending member id
        (session timeout 100) that has not sent its second JoinGroup.
        """
        join1 = self.dynamic_join()
        assert self.state == "CompletingRebalance"
        assert self.sync_leader(join1.generation_id, join1.member_id,
                                {join1.member_id: b""}).error == NONE
        assert self.state == "Stable"

        second_join = self.send_join()
        first_join = self.send_join(join1.member_id)
        assert first_join.done and second_join.done
        assert self.state == "CompletingRebalance"

        assert self.sync_leader(first_join.generation_id, join1.member_id,
                                {join1.member_id: b""}).error == NONE
        assert self.state == "Stable"

        # Rejoin of an existing member moves the group to PreparingRebalance.
        self.send_join(first_join.member_id)
        assert self.state == "PreparingRebalance"

        # joinGroupPartial: the first step of a new member's two-step join.
        pending = self.send_join(require_known_member_id=True, session_timeout=100)
        assert pending.done and pending.error == Errors.MEMBER_ID_REQUIRED
        assert len(self.pending) == 1

        self.send_join(second_join.member_id)
        assert self.state == "PreparingRebalance"
        assert len(self.pending) == 1
        return pending, join1.member_id, second_join.member_id


@pytest.fixture
def kafka() -> Harness:
    """A coordinator configured like GroupCoordinatorTest.setUp."""
    return Harness(
        GROUP_ID,
        group_min_session_timeout_ms=GROUP_MIN_SESSION_TIMEOUT,
        group_max_session_timeout_ms=GROUP_MAX_SESSION_TIMEOUT,
        group_max_size=GROUP_MAX_SIZE,
        group_initial_rebalance_delay_ms=GROUP_INITIAL_REBALANCE_DELAY,
    )


def gmmt(**overrides) -> Harness:
    """A coordinator configured like GroupMetadataManagerTestContext's defaults."""
    config = dict(
        group_min_session_timeout_ms=GMMT_MIN_SESSION_TIMEOUT,
        group_max_session_timeout_ms=GMMT_MAX_SESSION_TIMEOUT,
        group_initial_rebalance_delay_ms=GMMT_INITIAL_REBALANCE_DELAY,
    )
    config.update(overrides)
    return Harness(GMMT_GROUP_ID, **config)


def assert_join(resp, *, error=NONE, generation=None, members=None, state=None,
                harness: Harness | None = None, leader=None, member_id=None,
                skip_assignment=None):
    """GroupCoordinatorTest.checkJoinGroupResult, on member ids instead of instance ids."""
    assert resp.done
    assert resp.error == error
    if generation is not None:
        assert resp.generation_id == generation
    if members is not None:
        assert set(resp.members) == set(members)
        assert len(resp.members) == len(members)
    if state is not None:
        assert harness is not None and harness.state == state
    if leader is not None:
        assert resp.leader_id == leader
    if member_id is not None:
        assert resp.member_id == member_id
    if skip_assignment is not None:
        assert bool(resp.skip_assignment) is skip_assignment


# ======================================================================================
# JoinGroup validation
# ======================================================================================


def test_invalid_group_id(kafka):
    """Follows GroupCoordinatorTest.testInvalidGroupId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.dynamic_join(group_id="")
    assert resp.error == Errors.INVALID_GROUP_ID
    assert kafka.coord.group_state("") is None  # (derived) no group is created


def test_join_group_session_timeout_too_small(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupSessionTimeoutTooSmall (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala).

    Plus (derived, GroupCoordinator.handleJoinGroup uses `<`): the bound itself is accepted.
    """
    resp = kafka.dynamic_join(session_timeout=GROUP_MIN_SESSION_TIMEOUT - 1)
    assert resp.error == Errors.INVALID_SESSION_TIMEOUT
    assert kafka.state is None  # checked before the group is created

    at_bound = kafka.send_join(session_timeout=GROUP_MIN_SESSION_TIMEOUT,
                               require_known_member_id=True)
    assert at_bound.done and at_bound.error == Errors.MEMBER_ID_REQUIRED


def test_join_group_session_timeout_too_large(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupSessionTimeoutTooLarge (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala).

    Plus (derived, GroupCoordinator.handleJoinGroup uses `>`): the bound itself is accepted.
    """
    resp = kafka.dynamic_join(session_timeout=GROUP_MAX_SESSION_TIMEOUT + 1)
    assert resp.error == Errors.INVALID_SESSION_TIMEOUT
    assert kafka.state is None

    ok = kafka.dynamic_join(session_timeout=GROUP_MAX_SESSION_TIMEOUT)
    assert ok.error == NONE and ok.generation_id == 1


def test_join_group_unknown_consumer_new_group(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupUnknownConsumerNewGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.dynamic_join("memberId")
    assert resp.error == Errors.UNKNOWN_MEMBER_ID
    resp = kafka.static_join("memberId", GROUP_INSTANCE)
    assert resp.error == Errors.UNKNOWN_MEMBER_ID
    assert kafka.state is None  # (derived) a known member id never creates the group


def test_valid_join_group(kafka):
    """Follows GroupCoordinatorTest.testValidJoinGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.dynamic_join()
    assert_join(resp, generation=1, state="CompletingRebalance", harness=kafka,
                leader=resp.member_id, members=[resp.member_id])
    assert resp.member_id.startswith(CLIENT_ID + "-")
    assert resp.protocol_name == PROTOCOL_NAME


def test_join_group_inconsistent_protocol_type(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupInconsistentProtocolType (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.dynamic_join()
    assert first.error == NONE
    other = kafka.send_join(protocol_type="connect")
    assert other.done and other.error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert kafka.members == [first.member_id]


def test_join_group_with_empty_protocol_type(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupWithEmptyProtocolType (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.dynamic_join(protocol_type="")
    assert resp.error == Errors.INCONSISTENT_GROUP_PROTOCOL
    resp = kafka.static_join("", GROUP_INSTANCE, protocol_type="")
    assert resp.error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert kafka.members == []


def test_join_group_with_empty_group_protocol(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupWithEmptyGroupProtocol (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.dynamic_join(protocols=[])
    assert resp.error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert kafka.pending == []  # (derived) rejected before a member id is handed out


def test_join_group_inconsistent_group_protocol(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupInconsistentGroupProtocol (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.send_join(protocols=[("range", b"")])
    other = kafka.dynamic_join(protocols=[("roundrobin", b"")])  # fails at the first step
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    assert first.done and first.error == NONE
    assert other.error == Errors.INCONSISTENT_GROUP_PROTOCOL
    assert kafka.members == [first.member_id]


def test_join_group_second_join_inconsistent_protocol(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupSecondJoinInconsistentProtocol (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.send_join(require_known_member_id=True)
    assert resp.done and resp.error == Errors.MEMBER_ID_REQUIRED
    member_id = resp.member_id
    assert kafka.state == "Empty"  # (derived) the first step changes no state

    refused = kafka.send_join(member_id, protocols=[], require_known_member_id=True)
    assert refused.done and refused.error == Errors.INCONSISTENT_GROUP_PROTOCOL

    accepted = kafka.send_join(member_id, require_known_member_id=True)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    assert accepted.done and accepted.error == NONE
    assert accepted.member_id == member_id


def test_join_group_unknown_consumer_existing_group(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupUnknownConsumerExistingGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.dynamic_join()
    assert first.error == NONE
    other = kafka.send_join("memberId")
    assert other.done and other.error == Errors.UNKNOWN_MEMBER_ID
    assert kafka.members == [first.member_id]


def test_join_group_protocol_type_is_not_provided_when_an_error_occurs(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupProtocolTypeIsNotProvidedWhenAnErrorOccurs (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.send_join("fake-id", LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET)
    assert resp.done and resp.error == Errors.UNKNOWN_MEMBER_ID
    assert not resp.protocol_type  # Kafka: None


def test_join_group_returns_the_protocol_type(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupReturnsTheProtocolType (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    leader = kafka.send_join("", LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET)
    follower = kafka.send_join("", FOLLOWER_INSTANCE, protocols=PROTOCOL_SUPERSET)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    assert leader.done and leader.error == NONE and leader.protocol_type == PROTOCOL_TYPE
    assert follower.done and follower.error == NONE and follower.protocol_type == PROTOCOL_TYPE
    # (derived) only the leader's response carries the members and their metadata
    assert set(leader.members) == {leader.member_id, follower.member_id}
    assert set(leader.member_metadata) == {leader.member_id, follower.member_id}
    assert list(follower.members) == [] and dict(follower.member_metadata) == {}


# ======================================================================================
# group.max.size
# ======================================================================================


def test_join_group_should_receive_error_if_group_over_max_size(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupShouldReceiveErrorIfGroupOverMaxSize (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala).

    Kafka advances 50 ms between joins (MockTimer fires only when now > deadline, so a
    landing exactly on the 50 ms delay does not fire); with `jump` we advance 49 ms to
    keep every landing strictly before the pending deadline, as in Kafka.
    """
    rebalance_timeout = GROUP_INITIAL_REBALANCE_DELAY * 2
    joins = []
    for i in range(1, GROUP_MAX_SIZE + 1):
        joins.append(kafka.send_join(rebalance_timeout=rebalance_timeout))
        if i != 1:
            kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY - 1)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    for resp in joins:
        assert resp.done and resp.error == NONE
    assert kafka.generation == 1 and len(kafka.members) == GROUP_MAX_SIZE

    rejected = kafka.send_join(rebalance_timeout=rebalance_timeout)
    assert rejected.done and rejected.error == Errors.GROUP_MAX_SIZE_REACHED
    assert rejected.error.code == 81
    assert rejected.member_id == ""
    assert len(kafka.members) == GROUP_MAX_SIZE


def test_dynamic_members_join_group_with_max_size_and_required_known_member(kafka):
    """Follows GroupCoordinatorTest.testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    n = GROUP_MAX_SIZE + 1
    first = [kafka.send_join(require_known_member_id=True) for _ in range(n)]
    member_ids = [r.member_id for r in first]
    assert all(r.error == Errors.MEMBER_ID_REQUIRED for r in first)

    second = [kafka.send_join(m, require_known_member_id=True) for m in member_ids]
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    assert all(r.done for r in second)
    errors = [r.error for r in second]
    assert errors.count(NONE) == GROUP_MAX_SIZE
    assert errors.count(Errors.GROUP_MAX_SIZE_REACHED) == n - GROUP_MAX_SIZE
    # (derived) the parked count reaches the max with the 4th join, the 5th is turned away
    assert errors == [NONE] * GROUP_MAX_SIZE + [Errors.GROUP_MAX_SIZE_REACHED]

    rejoin = [kafka.send_join(m, require_known_member_id=True) for m in member_ids]
    assert all(r.done for r in rejoin)
    assert [r.error for r in rejoin] == errors


def test_dynamic_members_join_group_with_max_size(kafka):
    """Follows GroupCoordinatorTest.testDynamicMembersJoinGroupWithMaxSize (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    n = GROUP_MAX_SIZE + 1
    joins = [kafka.send_join(require_known_member_id=False) for _ in range(n)]
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    assert all(r.done for r in joins)
    errors = [r.error for r in joins]
    assert errors.count(NONE) == GROUP_MAX_SIZE
    assert errors.count(Errors.GROUP_MAX_SIZE_REACHED) == n - GROUP_MAX_SIZE

    rejoin = [kafka.send_join(r.member_id) for r in joins]
    assert all(r.done for r in rejoin)
    assert [r.error for r in rejoin] == errors


def test_static_members_join_group_with_max_size(kafka):
    """Follows GroupCoordinatorTest.testStaticMembersJoinGroupWithMaxSize (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    n = GROUP_MAX_SIZE + 1
    instance_ids = [f"instance-id-{i}" for i in range(1, n + 1)]
    joins = [kafka.send_join("", iid) for iid in instance_ids]
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    assert all(r.done for r in joins)
    errors = [r.error for r in joins]
    assert errors.count(NONE) == GROUP_MAX_SIZE
    assert errors.count(Errors.GROUP_MAX_SIZE_REACHED) == n - GROUP_MAX_SIZE

    rejoin = [kafka.send_join(r.member_id, iid) for r, iid in zip(joins, instance_ids)]
    assert all(r.done for r in rejoin)
    assert [r.error for r in rejoin] == errors


def test_dynamic_members_can_rejoin_group_with_max_size_while_rebalancing(kafka):
    """Follows GroupCoordinatorTest.testDynamicMembersCanReJoinGroupWithMaxSizeWhileRebalancing (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    n = GROUP_MAX_SIZE + 1
    first = [kafka.send_join(require_known_member_id=True) for _ in range(n)]
    member_ids = [r.member_id for r in first]
    for m in member_ids:  # second step; the 5th is turned away (4 already parked)
        kafka.send_join(m, require_known_member_id=True)
    # Members can rejoin while rebalancing.
    rejoin = [kafka.send_join(m, require_known_member_id=True) for m in member_ids]
    assert kafka.state == "PreparingRebalance"
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    assert all(r.done for r in rejoin)
    errors = [r.error for r in rejoin]
    assert errors.count(NONE) == GROUP_MAX_SIZE
    assert errors.count(Errors.GROUP_MAX_SIZE_REACHED) == n - GROUP_MAX_SIZE
    assert set(kafka.members) == set(member_ids[:GROUP_MAX_SIZE])  # (derived)


def _over_capacity_stable_group(kafka: Harness):
    """Build a Stable group with 6 members although group.max.size is 4.

    Kafka's test inserts the group directly into the metadata cache. Through the API the
    same shape arises from pending (MEMBER_ID_REQUIRED) ids, which the size check does not
    count: two static members, then four dynamic members whose second JoinGroup each pass
    the PreparingRebalance rule (fewer than 4 members awaiting join). The statics do not
    rejoin and are kept at join completion (static members are never pruned there).
    Returns the 6 member ids and instance ids (None for dynamic) in join order.
    """
    a = kafka.send_join("", "static-a", session_timeout=GROUP_MAX_SESSION_TIMEOUT)
    b = kafka.send_join("", "static-b", session_timeout=GROUP_MAX_SESSION_TIMEOUT)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    assert a.error == NONE and b.error == NONE and kafka.state == "CompletingRebalance"
    assert kafka.sync_leader(1, a.member_id, {}).error == NONE
    assert kafka.sync_follower(1, b.member_id).error == NONE
    assert kafka.state == "Stable"

    first = [kafka.send_join(require_known_member_id=True,
                             session_timeout=GROUP_MAX_SESSION_TIMEOUT) for _ in range(4)]
    assert all(r.error == Errors.MEMBER_ID_REQUIRED for r in first)
    second = [kafka.send_join(r.member_id, require_known_member_id=True,
                              session_timeout=GROUP_MAX_SESSION_TIMEOUT) for r in first]
    assert kafka.state == "PreparingRebalance"
    assert len(kafka.members) == 6
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    assert all(r.done and r.error == NONE for r in second)
    assert kafka.state == "CompletingRebalance" and kafka.generation == 2
    assert len(kafka.members) == 6

    leader = kafka.leader
    assert kafka.sync_leader(2, leader, {}).error == NONE
    for m in kafka.members:
        if m != leader:
            assert kafka.sync_follower(2, m).error == NONE
    assert kafka.state == "Stable"
    ids = [a.member_id, b.member_id] + [r.member_id for r in first]
    instances = ["static-a", "static-b", None, None, None, None]
    assert set(ids) == set(kafka.members)
    return ids, instances


def test_last_joining_members_are_kicked_out_when_rejoining_group_with_max_size(kafka):
    """Follows GroupCoordinatorTest.testLastJoiningMembersAreKickedOutWhenReJoiningGroupWithMaxSize (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala).

    Kafka builds a Stable group of max+2 members directly; we build it through the API
    (see _over_capacity_stable_group), then replay the test: prepareRebalance, every
    member rejoins, the first max are accepted, the last two are rejected and removed.
    """
    ids, instances = _over_capacity_stable_group(kafka)
    kafka.coord.prepare_rebalance(GROUP_ID, reason="")
    assert kafka.state == "PreparingRebalance"

    rejoins = [kafka.send_join(m, iid, session_timeout=GROUP_MAX_SESSION_TIMEOUT)
               for m, iid in zip(ids, instances)]
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    assert all(r.done for r in rejoins)
    errors = [r.error for r in rejoins]
    assert set(errors[:GROUP_MAX_SIZE]) == {NONE}
    assert set(errors[GROUP_MAX_SIZE:]) == {Errors.GROUP_MAX_SIZE_REACHED}
    assert all(r.member_id == "" for r in rejoins[GROUP_MAX_SIZE:])
    for m in ids[GROUP_MAX_SIZE:]:
        assert m not in kafka.members
    # (derived) the accepted ones form generation 3. (Which members are still in the group
    # after the 501 ms advance depends on the pending-sync timer, which Kafka does not check.)
    assert all(r.generation_id == 3 for r in rejoins[:GROUP_MAX_SIZE])


def test_last_joining_members_rejection_completes_join_at_once_old_coordinator(kafka):
    """Follows GroupCoordinatorTest.testLastJoiningMembersAreKickedOutWhenReJoiningGroupWithMaxSize (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala), old-coordinator detail.

    (derived) GroupCoordinator.handleJoinGroup (3.7.0) runs
    `rebalancePurgatory.checkAndComplete(GroupJoinKey(...))` after *every* JoinGroup in
    PreparingRebalance, including one rejected with GROUP_MAX_SIZE_REACHED. When the last
    rejection leaves only members that are awaiting join, the join phase completes right
    then, without waiting for the rebalance timeout (the new Java
    coordinator waits).
    """
    ids, instances = _over_capacity_stable_group(kafka)
    kafka.coord.prepare_rebalance(GROUP_ID, reason="")
    rejoins = [kafka.send_join(m, iid, session_timeout=GROUP_MAX_SESSION_TIMEOUT)
               for m, iid in zip(ids, instances)]
    # No clock advance.
    assert all(r.done for r in rejoins)
    assert [r.error for r in rejoins[:GROUP_MAX_SIZE]] == [NONE] * GROUP_MAX_SIZE
    assert all(r.generation_id == 3 for r in rejoins[:GROUP_MAX_SIZE])
    assert kafka.state == "CompletingRebalance"


# ======================================================================================
# New members, initial delayed join
# ======================================================================================


def test_new_member_timeout_completion(kafka):
    """Follows GroupCoordinatorTest.testNewMemberTimeoutCompletion (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    session_timeout = NEW_MEMBER_JOIN_TIMEOUT + 5000
    resp = kafka.send_join(session_timeout=session_timeout, require_known_member_id=False)
    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    assert resp.done and resp.error == NONE
    member_id = resp.member_id

    assert kafka.sync_leader(resp.generation_id, member_id, {member_id: b""}).error == NONE
    assert len(kafka.members) == 1

    # The 5-minute new-member timeout is no longer in effect after the join completed.
    kafka.advance_clock(NEW_MEMBER_JOIN_TIMEOUT + 100)
    assert kafka.members == [member_id]

    kafka.advance_clock(session_timeout + 100)
    assert kafka.members == []
    # (derived) last member gone from Stable: the join completes at once, gen + 1, Empty
    assert kafka.state == "Empty" and kafka.generation == 2


def test_new_member_join_expiration(kafka):
    """Follows GroupCoordinatorTest.testNewMemberJoinExpiration (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    session_timeout = NEW_MEMBER_JOIN_TIMEOUT + 5000
    rebalance_timeout = NEW_MEMBER_JOIN_TIMEOUT * 2

    first = kafka.dynamic_join(session_timeout=session_timeout,
                               rebalance_timeout=rebalance_timeout)
    assert first.error == NONE and first.leader_id == first.member_id

    resp = kafka.send_join(session_timeout=session_timeout, rebalance_timeout=rebalance_timeout)
    assert not resp.done
    assert len(kafka.members) == 2
    new_member = [m for m in kafka.members if m != first.member_id]
    assert len(new_member) == 1

    kafka.advance_clock(NEW_MEMBER_JOIN_TIMEOUT + 1)
    assert resp.done
    assert resp.error == Errors.UNKNOWN_MEMBER_ID
    assert kafka.members == [first.member_id]
    # (derived) the first member has not rejoined, so the rebalance goes on
    assert kafka.state == "PreparingRebalance" and kafka.generation == 1


def test_new_member_failure_after_join_group_completion(kafka):
    """Follows GroupCoordinatorTest.testNewMemberFailureAfterJoinGroupCompletion (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.dynamic_join()
    assert first.error == NONE and first.leader_id == first.member_id
    assert kafka.sync_leader(first.generation_id, first.member_id,
                             {first.member_id: b""}).error == NONE

    other = kafka.send_join()
    rejoin = kafka.send_join(first.member_id, require_known_member_id=False)
    assert rejoin.done and rejoin.error == NONE
    assert other.done and other.error == NONE

    # verifySessionExpiration: after the join completed, the new member is subject to the
    # ordinary session timeout, not the 5-minute new-member timeout.
    kafka.advance_clock(DEFAULT_SESSION_TIMEOUT + 1)
    assert kafka.state == "Empty"
    assert kafka.members == []
    assert kafka.generation == 3  # (derived)


def test_new_member_failure_after_sync_group_completion(kafka):
    """Follows GroupCoordinatorTest.testNewMemberFailureAfterSyncGroupCompletion (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.dynamic_join()
    assert kafka.sync_leader(first.generation_id, first.member_id,
                             {first.member_id: b""}).error == NONE

    other = kafka.send_join()
    rejoin = kafka.send_join(first.member_id, require_known_member_id=False)
    assert rejoin.done and rejoin.error == NONE and other.done and other.error == NONE
    generation = rejoin.generation_id
    follower_sync = kafka.send_sync(generation, other.member_id)
    assert not follower_sync.done  # waits for the leader
    leader_sync = kafka.sync_leader(generation, first.member_id,
                                    {first.member_id: b"", other.member_id: b""})
    assert leader_sync.error == NONE
    assert follower_sync.done and follower_sync.error == NONE

    kafka.advance_clock(DEFAULT_SESSION_TIMEOUT + 1)
    assert kafka.state == "Empty"
    assert kafka.members == []


def test_delay_initial_rebalance_by_group_initial_rebalance_delay_on_empty_group():
    """Follows GroupMetadataManagerTest.testDelayInitialRebalanceByGroupInitialRebalanceDelayOnEmptyGroup (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (InitialDelayedJoin, DelayedJoin.scala).
    """
    h = gmmt()
    resp = h.send_join()
    assert not resp.done
    assert h.state == "PreparingRebalance"
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY // 2)
    assert not resp.done
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY // 2 + 1)
    assert resp.done and resp.error == NONE
    assert resp.generation_id == 1


def test_reset_rebalance_delay_when_new_member_joins_group_during_initial_rebalance():
    """Follows GroupMetadataManagerTest.testResetRebalanceDelayWhenNewMemberJoinsGroupDuringInitialRebalance (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator: InitialDelayedJoin.onComplete re-arms
    min(delay, remaining) when newMemberAdded.
    """
    h = gmmt()
    rt = GMMT_INITIAL_REBALANCE_DELAY * 3
    first = h.send_join(rebalance_timeout=rt)
    assert not first.done
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY - 1)
    second = h.send_join(rebalance_timeout=rt)
    assert not second.done
    h.advance_clock(2)
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY // 2 + 1)
    assert not first.done and not second.done
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY // 2)
    assert first.done and second.done
    assert first.error == NONE and second.error == NONE
    assert first.generation_id == second.generation_id == 1


def test_delay_rebalance_upto_rebalance_timeout():
    """Follows GroupMetadataManagerTest.testDelayRebalanceUptoRebalanceTimeout (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (InitialDelayedJoin: remaining budget
    max(rebalanceTimeout - delay, 0), re-armed with min(delay, remaining)).
    """
    h = gmmt()
    rt = GMMT_INITIAL_REBALANCE_DELAY * 2
    first = h.send_join(rebalance_timeout=rt)
    second = h.send_join(rebalance_timeout=rt)
    assert not first.done and not second.done
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY + 1)
    third = h.send_join(rebalance_timeout=rt)
    assert not third.done
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY - 1)  # right before the rebalance timeout
    assert not first.done and not second.done and not third.done
    h.advance_clock(1)  # beyond it: completes although a new member arrived
    assert first.done and second.done and third.done
    assert [r.error for r in (first, second, third)] == [NONE, NONE, NONE]
    assert len(h.members) == 3 and h.generation == 1


def test_initial_delay_not_extended_after_first_generation_old_coordinator():
    """Follows GroupMetadataManagerTest.testResetRebalanceDelayWhenNewMemberJoinsGroupDuringInitialRebalance (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java), old-coordinator variant on a group past generation 0.

    (derived) GroupCoordinator.addMemberAndRebalance (3.7.0, unchanged since 0.11.0.0):
    `if (group.is(PreparingRebalance) && group.generationId == 0) group.newMemberAdded = true`.
    The new Java coordinator tests `previousState == EMPTY` instead. So once a group has
    completed a generation and gone Empty again, the Scala coordinator still applies the
    initial delay (prepareRebalance from Empty) but never extends it: the same arrivals as
    in the Java test complete at the first delay expiry.
    """
    h = gmmt()
    rt = GMMT_INITIAL_REBALANCE_DELAY * 3
    seed = h.send_join(rebalance_timeout=rt)
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY)
    assert seed.done and seed.error == NONE and h.generation == 1
    assert h.leave(seed.member_id).member_errors == [NONE]
    assert h.state == "Empty" and h.generation == 2

    first = h.send_join(rebalance_timeout=rt)
    assert h.state == "PreparingRebalance"
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY - 1)
    second = h.send_join(rebalance_timeout=rt)
    h.advance_clock(2)
    assert first.done and second.done
    assert first.error == NONE and second.error == NONE
    assert first.generation_id == 3 and h.state == "CompletingRebalance"


def test_new_member_timeout_during_initial_delay_old_coordinator():
    """Follows GroupMetadataManagerTest.testHeartbeatExpirationShouldRemoveMember (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java), old-coordinator variant.

    (derived) In the Scala coordinator InitialDelayedJoin.tryComplete always returns
    false, so removing the member at the 5-minute new-member timeout does not complete
    the join; the group stays in PreparingRebalance (generation 0) until the 10-minute
    initial delay ends, and only then goes Empty with generation 1. (The Java coordinator
    completes at 5 minutes, which is what the Java test checks.)
    """
    h = gmmt(group_initial_rebalance_delay_ms=10 * 60 * 1000)
    resp = h.send_join()
    assert not resp.done and len(h.members) == 1

    h.advance_clock(NEW_MEMBER_JOIN_TIMEOUT)
    assert resp.done and resp.error == Errors.UNKNOWN_MEMBER_ID
    assert h.members == []
    assert h.state == "PreparingRebalance" and h.generation == 0

    h.advance_clock(10 * 60 * 1000 - NEW_MEMBER_JOIN_TIMEOUT)
    assert h.state == "Empty" and h.generation == 1


# ======================================================================================
# MEMBER_ID_REQUIRED and pending members
# ======================================================================================


def test_heartbeat_expiration_should_remove_pending_member():
    """Follows GroupMetadataManagerTest.testHeartbeatExpirationShouldRemovePendingMember (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (addPendingMemberExpiration / onExpireHeartbeat isPending).
    """
    h = gmmt()
    resp = h.send_join(session_timeout=1000, require_known_member_id=True)
    assert resp.done and resp.error == Errors.MEMBER_ID_REQUIRED
    assert resp.error.code == 79
    assert resp.member_id.startswith(CLIENT_ID + "-")
    assert h.members == [] and h.pending == [resp.member_id]
    assert h.state == "Empty"  # (derived) the first step does not start a rebalance
    h.advance_clock(1000)
    assert h.pending == []


def test_second_member_partially_join_and_timeout(kafka):
    """Follows GroupCoordinatorTest.testSecondMemberPartiallyJoinAndTimeout (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.dynamic_join()
    assert first.error == NONE and first.leader_id == first.member_id
    assert kafka.sync_leader(first.generation_id, first.member_id,
                             {first.member_id: b""}).error == NONE
    kafka.advance_clock(100)
    assert kafka.members == [first.member_id]
    assert kafka.pending == []
    assert kafka.state == "Stable"

    second = kafka.send_join(require_known_member_id=True)
    assert second.done and second.error == Errors.MEMBER_ID_REQUIRED
    assert len(kafka.pending) == 1
    assert kafka.state == "Stable"

    kafka.advance_clock(300)
    assert kafka.heartbeat(first.member_id, 1) == NONE
    kafka.advance_clock(300)  # the pending id's session (500 ms) expires

    assert kafka.members == [first.member_id]
    assert kafka.pending == []
    assert kafka.state == "Stable"
    assert kafka.generation == 1


def test_join_group_completion_when_pending_member_joins(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupCompletionWhenPendingMemberJoins (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    pending, _, _ = kafka.setup_group_with_pending_member()
    resp = kafka.send_join(pending.member_id)
    assert resp.done and resp.error == NONE
    assert kafka.state == "CompletingRebalance"
    assert len(kafka.members) == 3
    assert kafka.pending == []


def test_join_group_completion_when_pending_member_times_out(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupCompletionWhenPendingMemberTimesOut (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    _, m1, m2 = kafka.setup_group_with_pending_member()
    # > 100 (pending member's session timeout), < 500 (the members' session timeouts).
    kafka.advance_clock(120)
    assert kafka.state == "CompletingRebalance"
    assert len(kafka.members) == 2 and set(kafka.members) == {m1, m2}
    assert kafka.pending == []


def test_pending_members_leaves_group(kafka):
    """Follows GroupCoordinatorTest.testPendingMembersLeavesGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    pending, m1, m2 = kafka.setup_group_with_pending_member()
    resp = kafka.leave(pending.member_id)
    assert resp.error == NONE and resp.member_errors == [NONE]
    assert kafka.state == "CompletingRebalance"
    assert set(kafka.members) == {m1, m2}
    assert kafka.pending == []


def test_pending_member_batch_leave_group(kafka):
    """Follows GroupCoordinatorTest.testPendingMemberBatchLeaveGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    pending, _, _ = kafka.setup_group_with_pending_member()
    resp = kafka.leave(("", "unknown-instance"), pending.member_id)
    assert resp.error == NONE
    assert resp.member_errors == [Errors.UNKNOWN_MEMBER_ID, NONE]


def test_joined_member_pending_member_batch_leave_group_with_unknown_member(kafka):
    """Follows GroupMetadataManagerTest.testJoinedMemberPendingMemberBatchLeaveGroupWithUnknownMember (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Run on GroupCoordinatorTest's setupGroupWithPendingMember (same shape as the Java
    context's). Leader, follower and pending id leave in one request, plus an unknown id.
    (derived, old coordinator) the parked JoinGroups of the leavers are answered
    UNKNOWN_MEMBER_ID, and once the pending id is gone everyone remaining (nobody) has
    joined, so the rebalance completes at once: Empty, generation + 1.
    """
    pending, leader, follower = kafka.setup_group_with_pending_member()
    assert kafka.generation == 2
    resp = kafka.leave(leader, follower, pending.member_id, "unknown-member-id")
    assert resp.error == NONE
    assert resp.member_errors == [NONE, NONE, NONE, Errors.UNKNOWN_MEMBER_ID]
    assert kafka.members == [] and kafka.pending == []
    assert kafka.state == "Empty" and kafka.generation == 3


# ======================================================================================
# Heartbeat
# ======================================================================================


def test_heartbeat_unknown_group(kafka):
    """Follows GroupCoordinatorTest.testHeartbeatUnknownGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    assert kafka.heartbeat("memberId", -1) == Errors.UNKNOWN_MEMBER_ID
    assert kafka.state is None


def test_heartbeat_unknown_consumer_existing_group(kafka):
    """Follows GroupCoordinatorTest.testHeartbeatUnknownConsumerExistingGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert join.error == NONE
    assert kafka.sync_leader(join.generation_id, join.member_id, {join.member_id: b""}).error == NONE
    assert kafka.heartbeat("memberId", 1) == Errors.UNKNOWN_MEMBER_ID


def test_heartbeat_rebalance_in_progress(kafka):
    """Follows GroupCoordinatorTest.testHeartbeatRebalanceInProgress (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala).

    Despite its name, the group is in CompletingRebalance (joined, not synced) and the
    heartbeat is answered NONE (see also GroupMetadataManagerTest.testHeartbeatDuringCompletingRebalance).
    """
    join = kafka.dynamic_join()
    assert join.error == NONE
    assert kafka.state == "CompletingRebalance"
    assert kafka.heartbeat(join.member_id, 1) == NONE


def test_heartbeat_during_preparing_rebalance():
    """Follows GroupMetadataManagerTest.testHeartbeatDuringPreparingRebalance (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (handleHeartbeat: PreparingRebalance -> REBALANCE_IN_PROGRESS).
    """
    h = gmmt()
    first = h.send_join(require_known_member_id=True)
    assert first.error == Errors.MEMBER_ID_REQUIRED
    second = h.send_join(first.member_id, require_known_member_id=True)
    assert not second.done
    assert h.state == "PreparingRebalance"
    assert h.heartbeat(first.member_id, 0) == Errors.REBALANCE_IN_PROGRESS


def test_heartbeat_during_completing_rebalance():
    """Follows GroupMetadataManagerTest.testHeartbeatDuringCompletingRebalance (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (handleHeartbeat: CompletingRebalance -> NONE).
    """
    h = gmmt()
    join = h.send_join(rebalance_timeout=10000, session_timeout=5000, require_known_member_id=True)
    join = h.send_join(join.member_id, rebalance_timeout=10000, session_timeout=5000,
                       require_known_member_id=True)
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY)
    assert join.done and join.generation_id == 1
    assert h.state == "CompletingRebalance"
    assert h.heartbeat(join.member_id, join.generation_id) == NONE


def test_heartbeat_illegal_generation(kafka):
    """Follows GroupCoordinatorTest.testHeartbeatIllegalGeneration (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert kafka.sync_leader(join.generation_id, join.member_id, {join.member_id: b""}).error == NONE
    assert kafka.heartbeat(join.member_id, 2) == Errors.ILLEGAL_GENERATION


def test_valid_heartbeat(kafka):
    """Follows GroupCoordinatorTest.testValidHeartbeat (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert kafka.sync_leader(join.generation_id, join.member_id, {join.member_id: b""}).error == NONE
    assert kafka.heartbeat(join.member_id, 1) == NONE


def test_heartbeat_during_rebalance_causes_rebalance_in_progress(kafka):
    """Follows GroupCoordinatorTest.testHeartbeatDuringRebalanceCausesRebalanceInProgress (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert join.error == NONE
    kafka.send_join()  # a new member triggers a rebalance
    assert kafka.state == "PreparingRebalance"
    assert kafka.heartbeat(join.member_id, join.generation_id) == Errors.REBALANCE_IN_PROGRESS


# ======================================================================================
# Session timeout
# ======================================================================================


def test_session_timeout(kafka):
    """Follows GroupCoordinatorTest.testSessionTimeout (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert kafka.sync_leader(join.generation_id, join.member_id, {join.member_id: b""}).error == NONE
    kafka.advance_clock(DEFAULT_SESSION_TIMEOUT + 100)
    assert kafka.heartbeat(join.member_id, 1) == Errors.UNKNOWN_MEMBER_ID
    assert kafka.state == "Empty" and kafka.generation == 2  # (derived)


def test_heartbeat_maintains_session(kafka):
    """Follows GroupCoordinatorTest.testHeartbeatMaintainsSession (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    session_timeout = 1000
    join = kafka.dynamic_join(rebalance_timeout=session_timeout, session_timeout=session_timeout)
    assert kafka.sync_leader(join.generation_id, join.member_id, {join.member_id: b""}).error == NONE
    kafka.advance_clock(session_timeout // 2)
    assert kafka.heartbeat(join.member_id, 1) == NONE
    kafka.advance_clock(session_timeout // 2 + 100)  # past the original session deadline
    assert kafka.heartbeat(join.member_id, 1) == NONE
    assert kafka.members == [join.member_id]


def test_commit_maintains_session(kafka):
    """Follows GroupCoordinatorTest.testCommitMaintainsSession (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    session_timeout = 1000
    join = kafka.dynamic_join(rebalance_timeout=session_timeout, session_timeout=session_timeout)
    assert kafka.sync_leader(join.generation_id, join.member_id, {join.member_id: b""}).error == NONE
    kafka.advance_clock(session_timeout // 2)
    assert kafka.commit(join.member_id, join.generation_id) == NONE
    kafka.advance_clock(session_timeout // 2 + 100)
    assert kafka.heartbeat(join.member_id, 1) == NONE


def test_session_timeout_during_rebalance(kafka):
    """Follows GroupCoordinatorTest.testSessionTimeoutDuringRebalance (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.dynamic_join(rebalance_timeout=2000, session_timeout=1000)
    assert first.error == NONE and first.leader_id == first.member_id
    assert kafka.sync_leader(first.generation_id, first.member_id,
                             {first.member_id: b""}).error == NONE

    other = kafka.send_join()  # triggers a rebalance (join timer: 2000 ms)
    kafka.advance_clock(500)
    assert kafka.heartbeat(first.member_id, first.generation_id) == Errors.REBALANCE_IN_PROGRESS

    kafka.advance_clock(1100)  # the first member's session expires
    assert kafka.heartbeat(first.member_id, first.generation_id) == Errors.UNKNOWN_MEMBER_ID

    # ... and the rebalance completes with only the new member.
    assert other.done and other.error == NONE
    assert other.generation_id == 2 and other.leader_id == other.member_id  # (derived)
    assert kafka.members == [other.member_id]


def test_rebalance_completes_before_member_joins():
    """Follows GroupMetadataManagerTest.testRebalanceCompletesBeforeMemberJoins (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    The Scala twin, GroupCoordinatorTest.testRebalanceCompletesBeforeMemberJoins, has a
    heartbeat land exactly on a session deadline (2051 ms), which only its strict
    MockTimer lets through; the Java version's timeline (MockCoordinatorTimer fires
    deadline <= now at the post-jump time, like `jump`) is replayed instead. The two
    implementations agree here. The 8000 ms jump matters: the join timer (due 13000)
    runs at 16000 and re-arms every session from 16000.
    """
    h = gmmt()
    leader = h.send_join("", "leader-instance-id", rebalance_timeout=10000, session_timeout=5000)
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY)
    assert leader.done and leader.error == NONE
    first_id, first_gen = leader.member_id, leader.generation_id
    assert first_gen == 1 and h.state == "CompletingRebalance"
    sync = h.send_sync(first_gen, first_id, {})
    assert sync.done and sync.error == NONE and h.state == "Stable"

    second = h.send_join("", None, rebalance_timeout=10000, session_timeout=2500)
    assert not second.done and h.state == "PreparingRebalance"

    for _ in range(2):
        h.advance_clock(2500)
        assert h.heartbeat(first_id, first_gen) == Errors.REBALANCE_IN_PROGRESS

    # The join phase completes; the static first member, not rejoined, is kept.
    h.advance_clock(8000)
    assert second.done and second.error == NONE
    assert len(h.members) == 2
    assert h.generation == 2 and h.state == "CompletingRebalance"
    other_id = second.member_id
    assert second.leader_id == other_id  # (derived) leadership moves to the joined member

    sync = h.send_sync(2, other_id, {})
    assert sync.done and sync.error == NONE and h.state == "Stable"

    assert h.heartbeat(first_id, first_gen) == Errors.ILLEGAL_GENERATION

    for expected in (NONE, NONE, Errors.REBALANCE_IN_PROGRESS):
        h.advance_clock(2000)
        assert h.heartbeat(other_id, 2) == expected
    assert h.members == [other_id]
    assert h.state == "PreparingRebalance"

    rejoin = h.send_join(other_id, None, rebalance_timeout=10000, session_timeout=2500)
    assert rejoin.done and rejoin.error == NONE
    assert rejoin.generation_id == 3 and h.state == "CompletingRebalance"

    resync = h.send_sync(3, other_id, {})
    assert resync.done and resync.error == NONE and h.state == "Stable"

    for _ in range(20):
        h.advance_clock(2000)
        assert h.heartbeat(other_id, 3) == NONE


# ======================================================================================
# SyncGroup
# ======================================================================================


def test_sync_group_empty_assignment(kafka):
    """Follows GroupCoordinatorTest.testSyncGroupEmptyAssignment (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    sync = kafka.sync_leader(join.generation_id, join.member_id, {})
    assert sync.error == NONE
    assert sync.assignment == b""
    assert kafka.heartbeat(join.member_id, 1) == NONE
    assert kafka.state == "Stable"


def test_sync_group_from_unknown_group(kafka):
    """Follows GroupCoordinatorTest.testSyncGroupFromUnknownGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    assert kafka.sync_follower(1, "memberId").error == Errors.UNKNOWN_MEMBER_ID


def test_sync_group_from_unknown_member(kafka):
    """Follows GroupCoordinatorTest.testSyncGroupFromUnknownMember (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert kafka.sync_leader(join.generation_id, join.member_id, {join.member_id: b""}).error == NONE
    assert kafka.sync_follower(join.generation_id, "blah").error == Errors.UNKNOWN_MEMBER_ID


def test_sync_group_from_illegal_generation(kafka):
    """Follows GroupCoordinatorTest.testSyncGroupFromIllegalGeneration (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    sync = kafka.sync_leader(join.generation_id + 1, join.member_id, {join.member_id: b""})
    assert sync.error == Errors.ILLEGAL_GENERATION
    assert kafka.state == "CompletingRebalance"


def _two_member_group(kafka: Harness):
    """The common prefix of several GroupCoordinatorTest sync tests: one member joins and
    syncs, then a second member joins and the first rejoins; both get generation 2."""
    first = kafka.dynamic_join()
    assert first.error == NONE and first.leader_id == first.member_id
    assert kafka.sync_leader(first.generation_id, first.member_id,
                             {first.member_id: b""}).error == NONE
    other = kafka.send_join()
    rejoin = kafka.send_join(first.member_id)
    assert rejoin.done and other.done
    assert rejoin.error == NONE and other.error == NONE
    assert rejoin.generation_id == other.generation_id == 2
    assert rejoin.leader_id == first.member_id and other.leader_id == first.member_id
    return first.member_id, other.member_id, rejoin, other


def test_sync_group_follower_after_leader(kafka):
    """Follows GroupCoordinatorTest.testSyncGroupFollowerAfterLeader (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    leader_id, follower_id, _, _ = _two_member_group(kafka)
    leader_sync = kafka.sync_leader(2, leader_id, {leader_id: b"\x00", follower_id: b"\x01"})
    assert leader_sync.error == NONE and leader_sync.assignment == b"\x00"
    follower_sync = kafka.sync_follower(2, follower_id)
    assert follower_sync.error == NONE and follower_sync.assignment == b"\x01"


def test_sync_group_leader_after_follower(kafka):
    """Follows GroupCoordinatorTest.testSyncGroupLeaderAfterFollower (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    leader_id, follower_id, _, _ = _two_member_group(kafka)
    follower_sync = kafka.send_sync(2, follower_id)
    assert not follower_sync.done  # waits for the leader's assignment
    leader_sync = kafka.sync_leader(2, leader_id, {leader_id: b"\x00", follower_id: b"\x01"})
    assert leader_sync.error == NONE and leader_sync.assignment == b"\x00"
    assert follower_sync.done
    assert follower_sync.error == NONE and follower_sync.assignment == b"\x01"
    assert kafka.state == "Stable"


def test_stable_sync_resets_session_old_coordinator(kafka):
    """Follows GroupCoordinatorTest.testSyncGroupFollowerAfterLeader (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala), old-coordinator detail.

    (derived) GroupCoordinator.doSyncGroup (3.7.0), Stable branch, ends with
    `completeAndScheduleNextHeartbeatExpiration(group, group.get(memberId))`: a follower's
    SyncGroup answered in Stable restarts its session (the Java coordinator does
    not). The follower syncs 400 ms after the join completed and sends no
    heartbeat; 150 ms later (past the session deadline set at join completion) it is
    still a member.
    """
    leader_id, follower_id, _, _ = _two_member_group(kafka)
    assert kafka.sync_leader(2, leader_id, {leader_id: b"\x00", follower_id: b"\x01"}).error == NONE
    kafka.advance_clock(400)
    assert kafka.heartbeat(leader_id, 2) == NONE
    follower_sync = kafka.sync_follower(2, follower_id)
    assert follower_sync.error == NONE and follower_sync.assignment == b"\x01"
    kafka.advance_clock(150)
    assert set(kafka.members) == {leader_id, follower_id}
    assert kafka.state == "Stable"
    assert kafka.heartbeat(follower_id, 2) == NONE


def test_leader_failure_in_sync_group(kafka):
    """Follows GroupCoordinatorTest.testLeaderFailureInSyncGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    leader_id, follower_id, _, _ = _two_member_group(kafka)
    follower_sync = kafka.send_sync(2, follower_id)
    assert not follower_sync.done
    kafka.advance_clock(DEFAULT_SESSION_TIMEOUT + 100)
    assert follower_sync.done
    assert follower_sync.error == Errors.REBALANCE_IN_PROGRESS
    # (derived) the leader was removed; leadership moves to the only remaining member
    assert kafka.members == [follower_id]
    assert kafka.leader == follower_id
    assert kafka.state == "PreparingRebalance"


def test_join_group_from_unchanged_follower_does_not_rebalance(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupFromUnchangedFollowerDoesNotRebalance (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    _, follower_id, _, _ = _two_member_group(kafka)
    again = kafka.send_join(follower_id)
    assert again.done and again.error == NONE
    assert again.generation_id == 2
    assert list(again.members) == []  # (derived) follower: no member list
    assert kafka.state == "CompletingRebalance"


def test_join_group_from_unchanged_leader_should_rebalance(kafka):
    """Follows GroupCoordinatorTest.testJoinGroupFromUnchangedLeaderShouldRebalance (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    first = kafka.dynamic_join()
    assert kafka.sync_leader(first.generation_id, first.member_id,
                             {first.member_id: b""}).error == NONE
    second = kafka.send_join(first.member_id)
    assert second.done and second.error == NONE
    assert second.generation_id != first.generation_id


def test_generation_id_increments_on_rebalance(kafka):
    """Follows GroupCoordinatorTest.testGenerationIdIncrementsOnRebalance (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert join.generation_id == 1 and join.error == NONE
    assert kafka.sync_leader(1, join.member_id, {join.member_id: b""}).error == NONE
    rejoin = kafka.send_join(join.member_id)
    assert rejoin.done and rejoin.error == NONE
    assert rejoin.generation_id == 2


# -- pending-sync (DelayedSync) timeout ------------------------------------------------


def test_rebalance_times_out_when_sync_request_is_not_received(kafka):
    """Follows GroupCoordinatorTest.testRebalanceTimesOutWhenSyncRequestIsNotReceived (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    results = kafka.join_with_n_members(3)
    assert {r.error for r in results} == {NONE}
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2)
    for r in results:  # heartbeating does not interfere with the sync timer
        assert kafka.heartbeat(r.member_id, r.generation_id) == NONE
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2 + 1)
    for r in results:
        assert kafka.heartbeat(r.member_id, r.generation_id) == Errors.UNKNOWN_MEMBER_ID
    assert kafka.state == "Empty" and kafka.generation == 2  # (derived)


def test_rebalance_times_out_when_sync_request_is_not_received_from_followers(kafka):
    """Follows GroupCoordinatorTest.testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromFollowers (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    results = kafka.join_with_n_members(3)
    assert {r.error for r in results} == {NONE}
    leader, followers = results[0], results[1:]
    assert leader.leader_id == leader.member_id
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2)
    for r in results:
        assert kafka.heartbeat(r.member_id, r.generation_id) == NONE

    sync = kafka.sync_leader(leader.generation_id, leader.member_id,
                             {r.member_id: b"" for r in results})
    assert sync.error == NONE
    assert kafka.heartbeat(leader.member_id, leader.generation_id) == NONE

    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2 + 1)
    assert kafka.heartbeat(leader.member_id, leader.generation_id) == Errors.REBALANCE_IN_PROGRESS
    for r in followers:
        assert kafka.heartbeat(r.member_id, r.generation_id) == Errors.UNKNOWN_MEMBER_ID


def test_rebalance_times_out_when_sync_request_is_not_received_from_leaders(kafka):
    """Follows GroupCoordinatorTest.testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    results = kafka.join_with_n_members(3)
    leader, followers = results[0], results[1:]
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2)
    for r in results:
        assert kafka.heartbeat(r.member_id, r.generation_id) == NONE

    syncs = [kafka.send_sync(r.generation_id, r.member_id) for r in followers]
    assert not any(s.done for s in syncs)

    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2 + 1)
    assert all(s.done for s in syncs)
    assert {s.error for s in syncs} == {Errors.REBALANCE_IN_PROGRESS}
    assert kafka.heartbeat(leader.member_id, leader.generation_id) == Errors.UNKNOWN_MEMBER_ID
    for r in followers:
        assert kafka.heartbeat(r.member_id, r.generation_id) == Errors.REBALANCE_IN_PROGRESS


def test_rebalance_does_not_time_out_when_all_sync_are_received(kafka):
    """Follows GroupCoordinatorTest.testRebalanceDoesNotTimeOutWhenAllSyncAreReceived (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    results = kafka.join_with_n_members(3)
    leader, followers = results[0], results[1:]
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2)
    for r in results:
        assert kafka.heartbeat(r.member_id, r.generation_id) == NONE

    sync = kafka.sync_leader(leader.generation_id, leader.member_id,
                             {r.member_id: b"" for r in results})
    assert sync.error == NONE
    follower_syncs = [kafka.sync_follower(r.generation_id, r.member_id) for r in followers]
    assert {s.error for s in follower_syncs} == {NONE}

    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2 + 1)
    for r in results:
        assert kafka.heartbeat(r.member_id, r.generation_id) == NONE
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT // 2)
    for r in results:
        assert kafka.heartbeat(r.member_id, r.generation_id) == NONE
    assert kafka.state == "Stable" and kafka.generation == 1


# ======================================================================================
# Rebalance timeout: who is removed at join completion
# ======================================================================================


def test_complete_join_remove_not_yet_rejoined_dynamic_members():
    """Follows GroupMetadataManagerTest.testCompleteJoinRemoveNotYetRejoinedDynamicMembers (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (onCompleteJoin removes notYetRejoined dynamic members).
    """
    h = gmmt()
    first = h.send_join(session_timeout=1000, rebalance_timeout=1000, require_known_member_id=True)
    leader = h.send_join(first.member_id, session_timeout=1000, rebalance_timeout=1000,
                         require_known_member_id=True)
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY)
    assert leader.done and leader.error == NONE and h.generation == 1

    member = h.send_join(session_timeout=1000, rebalance_timeout=1000)
    assert not member.done
    assert len(h.members) == 2 and h.state == "PreparingRebalance"

    h.advance_clock(1000)  # the rebalance timeout; the leader has not rejoined
    assert member.done and member.error == NONE
    assert h.members == [member.member_id]
    assert h.generation == 2


def test_complete_join_phase_no_members_rejoined_extends_join_phase():
    """Follows GroupMetadataManagerTest.testCompleteJoinPhaseNoMembersRejoinedExtendsJoinPhase (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (onCompleteJoin: no member rejoined but members remain
    -> a new DelayedJoin for the rebalance timeout).
    """
    h = gmmt()
    kw = dict(session_timeout=30000, rebalance_timeout=10000)
    first = h.send_join("", "first-instance-id", **kw)
    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY)
    assert first.done and first.error == NONE
    first_id = first.member_id

    second = h.send_join("", "second-instance-id", **kw)
    assert not second.done
    first_rejoin = h.send_join(first_id, "first-instance-id", **kw)
    assert first_rejoin.done and second.done
    assert first_rejoin.error == NONE and second.error == NONE
    assert len(h.members) == 2 and h.generation == 2
    second_id = second.member_id

    h.coord.prepare_rebalance(GMMT_GROUP_ID, reason="trigger rebalance")
    assert len(h.members) == 2 and h.state == "PreparingRebalance"

    h.advance_clock(10000)
    h.advance_clock(10000)
    assert h.state == "PreparingRebalance"
    assert len(h.members) == 2 and h.generation == 2

    first_rejoin = h.send_join(first_id, "first-instance-id", **kw)
    assert not first_rejoin.done
    assert h.state == "PreparingRebalance" and h.generation == 2
    second_rejoin = h.send_join(second_id, "second-instance-id", **kw)
    assert first_rejoin.done and second_rejoin.done
    assert first_rejoin.error == NONE and second_rejoin.error == NONE
    assert h.state == "CompletingRebalance"
    assert len(h.members) == 2 and h.generation == 3


# ======================================================================================
# Static membership
# ======================================================================================


def test_static_member_join_as_first_member(kafka):
    """Follows GroupCoordinatorTest.staticMemberJoinAsFirstMember (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.static_join("", GROUP_INSTANCE)
    assert resp.error == NONE
    assert resp.member_id.startswith(GROUP_INSTANCE + "-")  # (derived) instance id prefix


def test_static_member_rejoin_with_explicit_unknown_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberReJoinWithExplicitUnknownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.static_join("", GROUP_INSTANCE)
    assert resp.error == NONE
    resp = kafka.static_join("unknown_member", GROUP_INSTANCE)
    assert resp.error == Errors.FENCED_INSTANCE_ID
    assert resp.error.code == 82


def test_join_group_replace_static_member():
    """Follows GroupMetadataManagerTest.testJoinGroupReplaceStaticMember (group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupMetadataManagerTest.java).

    Same in the Scala coordinator (GroupMetadata.replaceStaticMember fences the old
    parked JoinGroup with FENCED_INSTANCE_ID).
    """
    h = gmmt()
    old = h.send_join("", "group-instance-id", session_timeout=5000)
    assert not old.done and len(h.members) == 1

    new = h.send_join("", "group-instance-id", session_timeout=5000)
    assert not new.done
    assert old.done and old.error == Errors.FENCED_INSTANCE_ID
    assert len(h.members) == 1

    h.advance_clock(GMMT_INITIAL_REBALANCE_DELAY)
    assert new.done and new.error == NONE
    assert h.members == [new.member_id]
    assert new.member_id != old.member_id


def test_static_member_fence_duplicate_rejoined_follower(kafka):
    """Follows GroupCoordinatorTest.staticMemberFenceDuplicateRejoinedFollower (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    kafka.send_join()  # a third member triggers a rebalance
    kafka.advance_clock(1)
    assert kafka.state == "PreparingRebalance"

    kafka.advance_clock(1)
    old_follower = kafka.send_join(rr.follower_id, FOLLOWER_INSTANCE)
    kafka.advance_clock(1)
    duplicate = kafka.send_join("", FOLLOWER_INSTANCE)
    kafka.advance_clock(1)

    assert_join(old_follower, error=Errors.FENCED_INSTANCE_ID, generation=-1, members=[],
                state="PreparingRebalance", harness=kafka)
    assert not duplicate.done


def test_static_member_fence_duplicate_syncing_follower_after_member_id_changed(kafka):
    """Follows GroupCoordinatorTest.staticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    leader_join = kafka.send_join(rr.leader_id, LEADER_INSTANCE)  # known leader rejoins
    kafka.advance_clock(1)
    assert kafka.state == "PreparingRebalance"
    kafka.advance_clock(1)
    old_follower_join = kafka.send_join(rr.follower_id, FOLLOWER_INSTANCE)
    kafka.advance_clock(1)

    assert_join(leader_join, generation=rr.generation + 1,
                members=[rr.leader_id, rr.follower_id], state="CompletingRebalance",
                harness=kafka, leader=rr.leader_id, member_id=rr.leader_id)
    assert leader_join.protocol_type == PROTOCOL_TYPE
    assert_join(old_follower_join, generation=rr.generation + 1, members=[],
                state="CompletingRebalance", harness=kafka, leader=rr.leader_id,
                member_id=rr.follower_id)

    old_follower_sync = kafka.send_sync(old_follower_join.generation_id, rr.follower_id,
                                        instance_id=FOLLOWER_INSTANCE)
    duplicate = kafka.send_join("", FOLLOWER_INSTANCE)
    kafka.advance_clock(1)
    assert old_follower_sync.done and old_follower_sync.error == Errors.FENCED_INSTANCE_ID
    assert kafka.state == "PreparingRebalance"

    kafka.advance_clock(GROUP_INITIAL_REBALANCE_DELAY + 1)
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    # The duplicate becomes the leader (the old leader's session expired meanwhile).
    assert_join(duplicate, generation=rr.generation + 2, members=[duplicate.member_id],
                state="CompletingRebalance", harness=kafka, leader=duplicate.member_id)


def test_static_member_fence_duplicate_rejoining_follower_after_member_id_changed(kafka):
    """Follows GroupCoordinatorTest.staticMemberFenceDuplicateRejoiningFollowerAfterMemberIdChanged (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    leader_join = kafka.send_join(rr.leader_id, LEADER_INSTANCE)
    kafka.advance_clock(1)
    assert kafka.state == "PreparingRebalance"

    duplicate = kafka.send_join("", FOLLOWER_INSTANCE)
    kafka.advance_clock(1)
    old_follower = kafka.send_join(rr.follower_id, FOLLOWER_INSTANCE)

    assert_join(leader_join, generation=rr.generation + 1,
                members=[rr.leader_id, duplicate.member_id], state="CompletingRebalance",
                harness=kafka)
    assert_join(duplicate, generation=rr.generation + 1, members=[],
                state="CompletingRebalance", harness=kafka)
    assert duplicate.member_id != rr.follower_id
    assert_join(old_follower, error=Errors.FENCED_INSTANCE_ID, generation=-1, members=[],
                state="CompletingRebalance", harness=kafka)


def test_static_member_rejoin_with_known_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinWithKnownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.static_join("", GROUP_INSTANCE)
    assert join.error == NONE
    assigned = join.member_id
    # Same metadata during CompletingRebalance: answered at once.
    rejoin = kafka.send_join(assigned, GROUP_INSTANCE)
    kafka.advance_clock(1)
    assert rejoin.done and rejoin.error == NONE
    assert kafka.state == "CompletingRebalance"
    assert rejoin.generation_id == join.generation_id  # (derived) no new generation

    sync = kafka.send_sync(rejoin.generation_id, assigned, {assigned: b""}, GROUP_INSTANCE)
    kafka.advance_clock(1)
    assert sync.done and sync.error == NONE
    assert kafka.state == "Stable"


def test_static_member_rejoin_with_leader_id_and_unknown_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinWithLeaderIdAndUnknownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala), supportSkippingAssignment = true (JoinGroup v9+, KIP-814)."""
    rr = kafka.static_members_join_and_rebalance()
    join = kafka.static_join("", LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET, clock_advance=1)
    new_leader = join.member_id
    assert new_leader != rr.leader_id
    assert_join(join, generation=rr.generation, members=[new_leader, rr.follower_id],
                state="Stable", harness=kafka, leader=new_leader, skip_assignment=True)
    assert join.protocol_type == PROTOCOL_TYPE

    old_leader_join = kafka.static_join(rr.leader_id, LEADER_INSTANCE,
                                        protocols=PROTOCOL_SUPERSET, clock_advance=1)
    assert old_leader_join.error == Errors.FENCED_INSTANCE_ID

    old_leader_sync = kafka.sync_leader(rr.generation, rr.leader_id, {}, LEADER_INSTANCE)
    assert old_leader_sync.error == Errors.FENCED_INSTANCE_ID
    # The old leader id is no longer a member at all.
    assert kafka.sync_leader(rr.generation, rr.leader_id, {}).error == Errors.UNKNOWN_MEMBER_ID


def test_static_member_rejoin_with_leader_id_and_known_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinWithLeaderIdAndKnownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance(session_timeout=DEFAULT_REBALANCE_TIMEOUT // 2)
    # A static leader rejoining with its known id triggers a rebalance.
    join = kafka.static_join(rr.leader_id, LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET,
                             clock_advance=DEFAULT_REBALANCE_TIMEOUT + 1)
    # The follower timed out meanwhile.
    assert rr.follower_id not in kafka.members
    assert_join(join, generation=rr.generation + 1, members=[rr.leader_id],
                state="CompletingRebalance", harness=kafka, leader=rr.leader_id,
                member_id=rr.leader_id)


def test_static_member_rejoin_with_follower_id_and_change_of_protocol(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinWithFollowerIdAndChangeOfProtocol (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance(session_timeout=DEFAULT_SESSION_TIMEOUT * 2)
    join = kafka.static_join(rr.follower_id, FOLLOWER_INSTANCE,
                             protocols=[("roundrobin", b"")],
                             clock_advance=DEFAULT_SESSION_TIMEOUT + 1)
    assert join.member_id == rr.follower_id
    assert rr.leader_id in kafka.members  # the static leader is kept although it did not rejoin
    assert kafka.leader == rr.follower_id  # ... but leadership moved to a joined member
    assert_join(join, generation=rr.generation + 1, members=[rr.leader_id, rr.follower_id],
                state="CompletingRebalance", harness=kafka, leader=rr.follower_id,
                member_id=rr.follower_id)
    assert join.protocol_name == "roundrobin"  # (derived) the only common protocol


def test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_while_select_protocol_unchanged(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    selected = kafka.coord.protocol_name(GROUP_ID)
    assert selected == PROTOCOL_NAME
    join = kafka.static_join("", FOLLOWER_INSTANCE, protocols=[(selected, b"")], clock_advance=1)
    assert_join(join, generation=rr.generation, members=[], state="Stable", harness=kafka)
    assert join.member_id != rr.follower_id

    old_join = kafka.static_join(rr.follower_id, FOLLOWER_INSTANCE, protocols=[(selected, b"")],
                                 clock_advance=1)
    assert old_join.error == Errors.FENCED_INSTANCE_ID

    old_sync = kafka.sync_follower(rr.generation, rr.follower_id, FOLLOWER_INSTANCE)
    assert old_sync.error == Errors.FENCED_INSTANCE_ID

    new_sync = kafka.sync_follower(rr.generation, join.member_id, FOLLOWER_INSTANCE)
    assert new_sync.error == NONE
    assert new_sync.assignment == rr.follower_assignment == b"F"


def test_static_member_rejoin_with_unknown_member_id_and_change_of_protocol_with_selected_protocol_changed(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala).

    Kafka advances by DefaultSessionTimeout + 1, which lands the old leader's session
    expiry and the join timer on the same deadline (1052 ms) and relies on its timer
    queue running the join timer first. To replay the scenario without that tie, the
    members get a 1000 ms session (as in the sibling test ...FollowerIdAndChangeOfProtocol):
    the old leader is still kept (static, not rejoined) and loses the leadership.
    """
    rr = kafka.static_members_join_and_rebalance(session_timeout=DEFAULT_SESSION_TIMEOUT * 2)
    assert kafka.coord.protocol_name(GROUP_ID) == PROTOCOL_NAME
    join = kafka.static_join("", FOLLOWER_INSTANCE, protocols=[("roundrobin", b"")],
                             session_timeout=DEFAULT_SESSION_TIMEOUT * 2,
                             clock_advance=DEFAULT_SESSION_TIMEOUT + 1)
    assert join.member_id != rr.follower_id
    assert_join(join, generation=rr.generation + 1, members=[rr.leader_id, join.member_id],
                state="CompletingRebalance", harness=kafka, leader=join.member_id)
    assert kafka.leader == join.member_id
    assert join.protocol_name == "roundrobin"


def test_static_member_rejoin_with_known_leader_id_to_trigger_rebalance_and_follower_with_change_of_protocol(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinWithKnownLeaderIdToTriggerRebalanceAndFollowerWithChangeofProtocol (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    leader_rejoin = kafka.send_join(rr.leader_id, LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET)
    follower_rejoin = kafka.send_join(rr.follower_id, FOLLOWER_INSTANCE, protocols=PROTOCOL_SUPERSET)
    kafka.advance_clock(1)

    assert_join(leader_rejoin, generation=rr.generation + 1,
                members=[rr.leader_id, rr.follower_id], state="CompletingRebalance",
                harness=kafka, leader=rr.leader_id, member_id=rr.leader_id)
    assert_join(follower_rejoin, generation=rr.generation + 1, members=[],
                state="CompletingRebalance", harness=kafka, leader=rr.leader_id,
                member_id=rr.follower_id)

    # The follower's protocols change: CompletingRebalance -> PreparingRebalance.
    changed = kafka.send_join(rr.follower_id, FOLLOWER_INSTANCE, protocols=PROTOCOLS)
    assert kafka.state == "PreparingRebalance"

    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    # The leader did not rejoin and its session expired first: only the follower is left.
    assert_join(changed, generation=rr.generation + 2, members=[rr.follower_id],
                state="CompletingRebalance", harness=kafka, leader=rr.follower_id,
                member_id=rr.follower_id)


def test_static_member_rejoin_as_follower_with_unknown_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinAsFollowerWithUnknownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    join = kafka.static_join("", FOLLOWER_INSTANCE, protocols=PROTOCOL_SUPERSET, clock_advance=1)
    assert rr.leader_id in kafka.members  # the leader did not time out
    assert_join(join, generation=rr.generation, members=[], state="Stable", harness=kafka,
                leader=rr.leader_id, skip_assignment=False)
    assert join.member_id != rr.follower_id

    sync = kafka.sync_follower(rr.generation, join.member_id)
    assert sync.error == NONE
    assert sync.assignment == rr.follower_assignment == b"F"


def test_static_member_rejoin_as_follower_with_known_member_id_and_no_protocol_change(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinAsFollowerWithKnownMemberIdAndNoProtocolChange (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    join = kafka.static_join(rr.follower_id, FOLLOWER_INSTANCE, protocols=PROTOCOL_SUPERSET,
                             clock_advance=1)
    assert rr.leader_id in kafka.members
    assert_join(join, generation=rr.generation, members=[], state="Stable", harness=kafka,
                leader=rr.leader_id, member_id=rr.follower_id)


def test_static_member_rejoin_as_follower_with_mismatched_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinAsFollowerWithMismatchedMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    join = kafka.static_join(rr.follower_id, LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET,
                             clock_advance=1)
    assert join.error == Errors.FENCED_INSTANCE_ID
    assert kafka.state == "Stable" and kafka.generation == rr.generation


def test_static_member_rejoin_as_leader_with_mismatched_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberRejoinAsLeaderWithMismatchedMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    join = kafka.static_join(rr.leader_id, FOLLOWER_INSTANCE, protocols=PROTOCOL_SUPERSET,
                             clock_advance=1)
    assert join.error == Errors.FENCED_INSTANCE_ID
    assert kafka.state == "Stable" and kafka.generation == rr.generation


def test_static_member_sync_as_leader_with_invalid_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberSyncAsLeaderWithInvalidMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    sync = kafka.sync_leader(rr.generation, "invalid", {}, LEADER_INSTANCE)
    assert sync.error == Errors.FENCED_INSTANCE_ID


def test_static_member_heartbeat_leader_with_invalid_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberHeartbeatLeaderWithInvalidMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    assert kafka.sync_leader(rr.generation, rr.leader_id, {}).error == NONE
    assert kafka.heartbeat(rr.leader_id, rr.generation) == NONE
    assert kafka.heartbeat(INVALID_MEMBER, rr.generation, LEADER_INSTANCE) == Errors.FENCED_INSTANCE_ID


def test_static_member_commit_offset_with_invalid_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberCommitOffsetWithInvalidMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    assert kafka.sync_leader(rr.generation, rr.leader_id, {}).error == NONE
    assert kafka.commit(rr.leader_id, rr.generation) == NONE
    assert kafka.commit(INVALID_MEMBER, rr.generation, LEADER_INSTANCE) == Errors.FENCED_INSTANCE_ID


def test_should_get_different_static_member_id_after_each_rejoin(kafka):
    """Follows GroupCoordinatorTest.shouldGetDifferentStaticMemberIdAfterEachRejoin (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    last = rr.leader_id
    seen = {last}
    for _ in range(5):
        join = kafka.static_join("", LEADER_INSTANCE, protocols=PROTOCOLS, clock_advance=1)
        assert join.error == NONE
        assert join.member_id.startswith(LEADER_INSTANCE)
        assert join.member_id != last and join.member_id not in seen
        last = join.member_id
        seen.add(last)
    assert kafka.state == "Stable" and kafka.generation == rr.generation  # (derived) no rebalance


def test_static_member_join_with_unknown_instance_id_and_known_member_id(kafka):
    """Follows GroupCoordinatorTest.staticMemberJoinWithUnknownInstanceIdAndKnownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    join = kafka.static_join(rr.leader_id, "unknown_instance", protocols=PROTOCOL_SUPERSET,
                             clock_advance=1)
    assert join.error == Errors.UNKNOWN_MEMBER_ID


def _group_stuck_in_rebalance_due_to_nonjoined_static_member(kafka: Harness) -> RebalanceResult:
    """GroupCoordinatorTest.groupStuckInRebalanceTimeoutDueToNonjoinedStaticMember."""
    long_session = DEFAULT_SESSION_TIMEOUT * 2
    rr = kafka.static_members_join_and_rebalance(session_timeout=long_session)

    dynamic = kafka.send_join(protocols=PROTOCOL_SUPERSET, session_timeout=long_session)
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    assert dynamic.done and dynamic.error == NONE
    assert dynamic.leader_id == dynamic.member_id  # the new dynamic member is elected leader
    assert len(dynamic.members) == 3
    assert dynamic.generation_id == 2
    assert kafka.state == "CompletingRebalance"
    assert set(kafka.members) == {rr.leader_id, rr.follower_id, dynamic.member_id}

    # A leave from the static follower moves the group to PreparingRebalance.
    leave = kafka.leave(rr.follower_id)
    assert leave.error == NONE and leave.member_errors == [NONE]
    assert kafka.state == "PreparingRebalance"

    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    # Only the static leader is kept and the group is stuck in PreparingRebalance.
    assert kafka.members == [rr.leader_id]
    assert kafka.generation == 2
    assert kafka.state == "PreparingRebalance"
    return rr


def test_leader_fail_to_rejoin_before_final_rebalance_timeout_with_long_session_timeout(kafka):
    """Follows GroupCoordinatorTest.testLeaderFailToRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    _group_stuck_in_rebalance_due_to_nonjoined_static_member(kafka)
    kafka.advance_clock(DEFAULT_REBALANCE_TIMEOUT + 1)
    # The static leader's session timed out: the group goes Empty.
    assert kafka.members == []
    assert kafka.leader is None
    assert kafka.generation == 3
    assert kafka.state == "Empty"


def test_leader_rejoin_before_final_rebalance_timeout_with_long_session_timeout(kafka):
    """Follows GroupCoordinatorTest.testLeaderRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    _group_stuck_in_rebalance_due_to_nonjoined_static_member(kafka)
    rejoin = kafka.static_join("", LEADER_INSTANCE)
    assert_join(rejoin, generation=3, members=[rejoin.member_id], state="CompletingRebalance",
                harness=kafka)
    assert kafka.members == [rejoin.member_id]
    assert kafka.leader is not None
    assert kafka.generation == 3


def test_static_member_follower_fail_to_rejoin_before_rebalance_timeout(kafka):
    """Follows GroupCoordinatorTest.testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance(session_timeout=DEFAULT_REBALANCE_TIMEOUT * 2)
    new_member = kafka.send_join("", "newMember", protocols=PROTOCOL_SUPERSET)
    assert kafka.state == "PreparingRebalance"

    leader_rejoin = kafka.static_join(rr.leader_id, LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET,
                                      clock_advance=DEFAULT_REBALANCE_TIMEOUT + 1)
    assert new_member.done
    assert_join(leader_rejoin, generation=rr.generation + 1,
                members=[rr.leader_id, rr.follower_id, new_member.member_id],
                state="CompletingRebalance", harness=kafka, leader=rr.leader_id,
                member_id=rr.leader_id)
    assert_join(new_member, generation=rr.generation + 1, members=[],
                state="CompletingRebalance", harness=kafka, leader=rr.leader_id)


def test_static_member_leader_fail_to_rejoin_before_rebalance_timeout(kafka):
    """Follows GroupCoordinatorTest.testStaticMemberLeaderFailToRejoinBeforeRebalanceTimeout (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance(session_timeout=DEFAULT_REBALANCE_TIMEOUT * 2)
    new_member = kafka.send_join("", "newMember", protocols=PROTOCOL_SUPERSET)
    kafka.advance_clock(1)
    assert kafka.state == "PreparingRebalance"

    follower_rejoin = kafka.static_join(rr.follower_id, FOLLOWER_INSTANCE,
                                        protocols=PROTOCOL_SUPERSET,
                                        clock_advance=DEFAULT_REBALANCE_TIMEOUT + 1)
    assert new_member.done
    if follower_rejoin.leader_id == follower_rejoin.member_id:
        new_leader, new_follower = follower_rejoin, new_member
    else:
        new_leader, new_follower = new_member, follower_rejoin
    assert_join(new_leader, generation=rr.generation + 1,
                members=[rr.leader_id, rr.follower_id, new_member.member_id],
                state="CompletingRebalance", harness=kafka)
    assert_join(new_follower, generation=rr.generation + 1, members=[],
                state="CompletingRebalance", harness=kafka, leader=new_leader.member_id)
    assert rr.leader_id in kafka.members  # (derived) the static old leader is kept
    assert kafka.leader == new_leader.member_id != rr.leader_id


# ======================================================================================
# OffsetCommit
# ======================================================================================


def test_commit_offset_from_unknown_group(kafka):
    """Follows GroupCoordinatorTest.testCommitOffsetFromUnknownGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    assert kafka.commit("memberId", 1) == Errors.ILLEGAL_GENERATION
    assert kafka.state is None


def test_commit_offset_with_default_generation(kafka):
    """Follows GroupCoordinatorTest.testCommitOffsetWithDefaultGeneration (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    assert kafka.commit("", -1) == NONE
    assert kafka.state == "Empty"  # (derived) the group is created, Empty


def test_commit_offsets_after_group_is_empty(kafka):
    """Follows GroupCoordinatorTest.testCommitOffsetsAfterGroupIsEmpty (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert join.error == NONE
    leave = kafka.leave(join.member_id)
    assert leave.error == NONE and leave.member_errors == [NONE]
    assert kafka.state == "Empty"
    assert kafka.commit("", -1) == NONE


def test_commit_offset_in_completing_rebalance(kafka):
    """Follows GroupCoordinatorTest.testCommitOffsetInCompletingRebalance (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert kafka.state == "CompletingRebalance"
    assert kafka.commit(join.member_id, join.generation_id) == Errors.REBALANCE_IN_PROGRESS


def test_commit_offset_in_completing_rebalance_from_unknown_member_id(kafka):
    """Follows GroupCoordinatorTest.testCommitOffsetInCompletingRebalanceFromUnknownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert kafka.commit("", join.generation_id) == Errors.UNKNOWN_MEMBER_ID


def test_commit_offset_in_completing_rebalance_from_illegal_generation(kafka):
    """Follows GroupCoordinatorTest.testCommitOffsetInCompletingRebalanceFromIllegalGeneration (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert kafka.commit(join.member_id, join.generation_id + 1) == Errors.ILLEGAL_GENERATION


# ======================================================================================
# LeaveGroup
# ======================================================================================


def test_leave_group_unknown_group(kafka):
    """Follows GroupCoordinatorTest.testLeaveGroupUnknownGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala).

    Old coordinator: top-level NONE with a per-member UNKNOWN_MEMBER_ID (the Java
    coordinator fails the whole request instead).
    """
    resp = kafka.leave("memberId")
    assert resp.error == NONE
    assert resp.member_errors == [Errors.UNKNOWN_MEMBER_ID]


def test_leave_group_unknown_consumer_existing_group(kafka):
    """Follows GroupCoordinatorTest.testLeaveGroupUnknownConsumerExistingGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    assert join.error == NONE
    resp = kafka.leave("consumerId")
    assert resp.error == NONE and resp.member_errors == [Errors.UNKNOWN_MEMBER_ID]
    assert kafka.members == [join.member_id]


def test_valid_leave_group(kafka):
    """Follows GroupCoordinatorTest.testValidLeaveGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.dynamic_join()
    resp = kafka.leave(join.member_id)
    assert resp.error == NONE and resp.member_errors == [NONE]
    # (derived) the last member left CompletingRebalance: Empty, generation + 1
    assert kafka.members == [] and kafka.state == "Empty" and kafka.generation == 2


def test_leave_group_with_fenced_instance_id(kafka):
    """Follows GroupCoordinatorTest.testLeaveGroupWithFencedInstanceId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.static_join("", LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET)
    assert join.error == NONE
    resp = kafka.leave(("some_member", LEADER_INSTANCE))
    assert resp.error == NONE and resp.member_errors == [Errors.FENCED_INSTANCE_ID]
    assert kafka.members == [join.member_id]


def test_leave_group_static_member_with_unknown_member_id(kafka):
    """Follows GroupCoordinatorTest.testLeaveGroupStaticMemberWithUnknownMemberId (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    join = kafka.static_join("", LEADER_INSTANCE, protocols=PROTOCOL_SUPERSET)
    assert join.error == NONE
    resp = kafka.leave(("", LEADER_INSTANCE))
    assert resp.error == NONE and resp.member_errors == [NONE]
    assert kafka.members == []


def test_static_members_valid_batch_leave_group(kafka):
    """Follows GroupCoordinatorTest.testStaticMembersValidBatchLeaveGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    kafka.static_members_join_and_rebalance()
    resp = kafka.leave(("", LEADER_INSTANCE), ("", FOLLOWER_INSTANCE))
    assert resp.error == NONE and resp.member_errors == [NONE, NONE]
    assert kafka.members == [] and kafka.state == "Empty" and kafka.generation == 2  # (derived)


def test_static_members_unknown_group_batch_leave_group(kafka):
    """Follows GroupCoordinatorTest.testStaticMembersUnknownGroupBatchLeaveGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    resp = kafka.leave(("", LEADER_INSTANCE), ("", FOLLOWER_INSTANCE))
    assert resp.error == NONE
    assert resp.member_errors == [Errors.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID]


def test_static_members_fenced_instance_batch_leave_group(kafka):
    """Follows GroupCoordinatorTest.testStaticMembersFencedInstanceBatchLeaveGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    resp = kafka.leave(("", LEADER_INSTANCE), ("invalid-member", FOLLOWER_INSTANCE))
    assert resp.error == NONE
    assert resp.member_errors == [NONE, Errors.FENCED_INSTANCE_ID]
    # (derived) the leader left, leadership moves to the remaining follower
    assert kafka.members == [rr.follower_id]
    assert kafka.leader == rr.follower_id
    assert kafka.state == "PreparingRebalance"


def test_static_members_unknown_instance_batch_leave_group(kafka):
    """Follows GroupCoordinatorTest.testStaticMembersUnknownInstanceBatchLeaveGroup (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorTest.scala)."""
    rr = kafka.static_members_join_and_rebalance()
    resp = kafka.leave(("", "unknown-instance"), ("", FOLLOWER_INSTANCE))
    assert resp.error == NONE
    assert resp.member_errors == [Errors.UNKNOWN_MEMBER_ID, NONE]
    assert kafka.members == [rr.leader_id]
