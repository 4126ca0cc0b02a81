"""The `simple` share-group assignor (KIP-932) replays Kafka's `SimpleAssignorTest` per version.

Kafka's tests: `group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/`
`SimpleAssignorTest.java` at 4.0.0, 4.1.1 and 4.2.0. Members A, B, C hash to 65, 66, 67
(`String.hashCode`); topic sets are `LinkedHashSet`s in the order written, which is the order
of the lists here. Each replay names its Java test and tag.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafkasim.coordinator.assignor import (
    HETEROGENEOUS, HOMOGENEOUS, GroupSpec, PartitionAssignorException, SimpleAssignor, simple_share_assign)
from kafkasim.coordinator.assignor.simple import member_hash_assignment, quotas, round_robin_with_count
from kafkasim.core.errors import ConfigError

TOPICS = {"T1": 3, "T2": 3, "T3": 2}


def every_partition_assigned(result, topics) -> bool:
    """`assertEveryPartitionGetsAssignment`: each partition of `topics` is held by someone."""
    held = {(t, p) for a in result.values() for t, ps in a.items() for p in ps}
    return held == {(t, p) for t, n in topics.items() for p in range(n)}


# -- 4.0: every partition to every member ---------------------------------------------------------
def test_4_0_two_members_and_two_topics_homogeneous():
    """testAssignWithTwoMembersAndTwoTopicsHomogeneous (4.0.0): both members get all 5 partitions."""
    got = simple_share_assign("4.0", {"A": ["T1", "T3"], "B": ["T1", "T3"]}, TOPICS)
    assert got == {"A": {"T1": [0, 1, 2], "T3": [0, 1]}, "B": {"T1": [0, 1, 2], "T3": [0, 1]}}


def test_4_0_three_members_three_topics_heterogeneous():
    """testAssignWithThreeMembersThreeTopicsHeterogeneous (4.0.0)."""
    got = simple_share_assign("4.0", {"A": ["T1", "T2"], "B": ["T3"], "C": ["T2", "T3"]}, TOPICS)
    assert got == {"A": {"T1": [0, 1, 2], "T2": [0, 1, 2]}, "B": {"T3": [0, 1]},
                   "C": {"T2": [0, 1, 2], "T3": [0, 1]}}


def test_4_0_one_member_no_assigned_topic_heterogeneous():
    """testAssignWithOneMemberNoAssignedTopicHeterogeneous (4.0.0): B subscribes to nothing, absent."""
    got = simple_share_assign("4.0", {"A": ["T1", "T2"], "B": []}, {"T1": 3, "T2": 2})
    assert got == {"A": {"T1": [0, 1, 2], "T2": [0, 1]}}


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
def test_empty_members_and_no_subscribed_topic(version):
    """testAssignWithEmptyMembers, testAssignWithNoSubscribedTopic (all tags): an empty result (4.0)
    or members with nothing (4.1+)."""
    assert simple_share_assign(version, {}, TOPICS) == {}
    got = simple_share_assign(version, {"A": [], "B": []}, TOPICS)
    assert got == ({} if version == "4.0" else {"A": {}, "B": {}})


@pytest.mark.parametrize("version", ["4.0", "4.1", "4.2"])
def test_subscribed_to_non_existent_topic(version):
    """testAssignWithSubscribedToNonExistentTopic (all tags): PartitionAssignorException."""
    with pytest.raises(PartitionAssignorException, match="T9 which doesn't exist in the topic metadata"):
        simple_share_assign(version, {"A": ["T9"], "B": ["T9"]}, TOPICS)


# -- 4.1: hash, keep current, round robin ---------------------------------------------------------
def test_4_1_member_hash_assignment():
    """testMemberHashAssignment (4.1.1): "member1".."member4" hash to 948881623..26 and
    "AaAaAaAa" to -540425984: over 3 partitions they land on 1, 2, 0, 1, 2."""
    parts = [("T1", 0), ("T2", 0), ("T3", 0)]
    got = member_hash_assignment(["member1", "member2", "member3", "member4", "AaAaAaAa"], parts)
    assert got == {("T1", 0): ["member3"], ("T2", 0): ["member1", "member4"], ("T3", 0): ["member2", "AaAaAaAa"]}


def test_4_1_round_robin_assignment_with_count():
    """testRoundRobinAssignmentWithCount (4.1.1): desired 2, a member may end at 3."""
    assignment = {"member1": {("T1", 0)}, "member2": {("T1", 0)}}
    round_robin_with_count(["member1", "member2"], [("T2", 0), ("T3", 0), ("T4", 0)], assignment, 2)
    assert assignment == {"member1": {("T1", 0), ("T2", 0), ("T4", 0)}, "member2": {("T1", 0), ("T3", 0)}}


def test_4_1_round_robin_assignment_with_count_too_many_partitions():
    """testRoundRobinAssignmentWithCountTooManyPartitions (4.1.1): "Inconsistent number of member IDs"."""
    assignment = {"member1": {("T1", 0)}, "member2": {("T1", 0)}}
    with pytest.raises(PartitionAssignorException, match="^Inconsistent number of member IDs$"):
        round_robin_with_count(["member1", "member2"], [("T2", 0), ("T3", 0), ("T4", 0), ("T4", 1), ("T4", 2)],
                               assignment, 2)


def test_4_1_a_member_keeps_current_partitions_nobody_hashed_to_only_below_the_desired_count():
    """newAssignmentHomogeneous (4.1.1): desired = ceil(4 / 2) = 2. B (66 % 4) hashes to T1:2, A
    (65 % 4) to T1:1. A currently holds S:0, T1:0, T1:1, T1:3: S is no longer subscribed, T1:1 is
    hashed anyway, T1:0 is kept (A then holds 2), T1:3 is not (A is at the desired count). T1:3,
    held by nobody, goes round robin from the first member: B."""
    got = simple_share_assign("4.1", {"B": ["T1"], "A": ["T1"]}, {"T1": 4},
                              current={"A": {"S": [0], "T1": [0, 1, 3]}, "B": {}})
    assert got == {"B": {"T1": [2, 3]}, "A": {"T1": [0, 1]}}


def test_4_1_round_robin_gives_a_member_at_the_desired_count_one_more():
    """roundRobinAssignmentWithCount (4.1.1) "is prepared to add one more partition, even if the
    desired assignment count is already reached": desired = ceil(3 / 2) = 2. A (65 % 3) and D
    (68 % 3) both hash to T1:2; A keeps its current T1:0 and holds 2, yet the round robin, starting
    from A, gives it T1:1 too, and D keeps only the partition it hashed to."""
    got = simple_share_assign("4.1", {"A": ["T1"], "D": ["T1"]}, {"T1": 3}, current={"A": {"T1": [0]}})
    assert got == {"A": {"T1": [0, 1, 2]}, "D": {"T1": [2]}}


def test_4_1_two_members_and_two_topics_homogeneous():
    """testAssignWithTwoMembersAndTwoTopicsHomogeneous (4.1.1): hash T1:0 -> A, T1:1 -> B; round
    robin T1:2, T3:1 -> A and T3:0 -> B."""
    got = simple_share_assign("4.1", {"A": ["T1", "T3"], "B": ["T1", "T3"]}, TOPICS)
    assert got == {"A": {"T1": [0, 2], "T3": [1]}, "B": {"T1": [1], "T3": [0]}}


def test_4_1_two_members_with_allowed_map():
    """testAssignWithTwoMembersAndTwoTopicsHomogeneousWithAllowedMap (4.1.1): every partition
    initialized, same result."""
    got = simple_share_assign("4.1", {"A": ["T1", "T3"], "B": ["T1", "T3"]}, TOPICS,
                              assignable={"T1": [0, 1, 2], "T3": [0, 1]})
    assert got == {"A": {"T1": [0, 2], "T3": [1]}, "B": {"T1": [1], "T3": [0]}}


def test_4_1_three_members_three_topics_heterogeneous():
    """testAssignWithThreeMembersThreeTopicsHeterogeneous (4.1.1): hash T2:2 -> A, T3:0 -> B,
    T2:2 -> C; round robin per topic over its subscribers."""
    got = simple_share_assign("4.1", {"A": ["T1", "T2"], "B": ["T3"], "C": ["T2", "T3"]}, TOPICS)
    assert got == {"A": {"T1": [0, 1, 2], "T2": [0, 2]}, "B": {"T3": [0, 1]}, "C": {"T2": [1, 2]}}
    assert every_partition_assigned(got, TOPICS)


def test_4_1_three_members_heterogeneous_with_non_assignable_topic():
    """testAssignWithThreeMembersThreeTopicsHeterogeneousWithNonAssignableTopic (4.1.1): T3 not
    initialized: B gets nothing, C only T2:1."""
    got = simple_share_assign("4.1", {"A": ["T1", "T2"], "B": ["T3"], "C": ["T2", "T3"]}, TOPICS,
                              assignable={"T1": [0, 1, 2], "T2": [0, 1, 2]})
    assert got == {"A": {"T1": [0, 1, 2], "T2": [0, 2]}, "B": {}, "C": {"T2": [1]}}


def test_4_1_current_assignment_homogeneous():
    """testAssignWithCurrentAssignmentHomogeneous (4.1.1): A, B move to T2, T3 and C joins: hash
    T2:0 -> A, T2:1 -> B, T3:0 -> C; round robin T3:1 -> A, T3:2 -> B."""
    first = simple_share_assign("4.1", {"A": ["T1", "T2"], "B": ["T1", "T2"]}, {"T1": 3, "T2": 2})
    assert first == {"A": {"T1": [0, 2], "T2": [1]}, "B": {"T1": [1], "T2": [0]}}
    got = simple_share_assign("4.1", {"A": ["T2", "T3"], "B": ["T2", "T3"], "C": ["T2", "T3"]},
                              {"T2": 2, "T3": 3}, current=first)
    assert got == {"A": {"T2": [0], "T3": [1]}, "B": {"T2": [1], "T3": [2]}, "C": {"T3": [0]}}


def test_4_1_current_assignment_heterogeneous():
    """testAssignWithCurrentAssignmentHeterogeneous (4.1.1): first A {T1, T2}, B {T3}, C {T2, T3}
    from nothing (as testAssignWithThreeMembersThreeTopicsHeterogeneous); then A {T1, T2, T3} and
    B {T3, T4} keep their current partitions: hash T1:1 -> A (65 % 8), T3:0 -> B (66 % 3); round
    robin, for the partitions nobody hashed to nor holds, T2:1 -> A, T4:0 -> B; then each member
    keeps its current partitions of topics it subscribes to that nobody hashed to: T1:0, T1:2,
    T2:0, T2:2 -> A, T3:1 -> B."""
    first = simple_share_assign("4.1", {"A": ["T1", "T2"], "B": ["T3"], "C": ["T2", "T3"]}, TOPICS)
    assert first == {"A": {"T1": [0, 1, 2], "T2": [0, 2]}, "B": {"T3": [0, 1]}, "C": {"T2": [1, 2]}}
    topics = {**TOPICS, "T4": 1}
    got = simple_share_assign("4.1", {"A": ["T1", "T2", "T3"], "B": ["T3", "T4"]}, topics,
                              current={"A": {"T1": [0, 1, 2], "T2": [0, 2]}, "B": {"T3": [0, 1]}})
    assert got == {"A": {"T1": [0, 1, 2], "T2": [0, 1, 2]}, "B": {"T3": [0, 1], "T4": [0]}}
    assert every_partition_assigned(got, topics)


def test_4_1_heterogeneous_keeps_current_partitions_only_of_topics_still_subscribed():
    """SimpleAssignor.newAssignmentHeterogeneous step 3 (4.1.1): a current partition is kept only
    by a member that still subscribes to its topic ("only consider the member topic subscription
    in current assignment which is being subscribed in the new assignment as well"). From the
    first assignment above, B drops T3 for T4 (nobody subscribes to T3 now): hash T2:2 -> A
    (65 % 6), T4:0 -> B (66 % 1); round robin T2:1 -> A; A keeps T1:0-2 and T2:0, B loses T3."""
    first = {"A": {"T1": [0, 1, 2], "T2": [0, 2]}, "B": {"T3": [0, 1]}}
    got = simple_share_assign("4.1", {"A": ["T1", "T2"], "B": ["T4"]}, {**TOPICS, "T4": 1}, current=first)
    assert got == {"A": {"T1": [0, 1, 2], "T2": [0, 1, 2]}, "B": {"T4": [0]}}


def test_4_1_three_members_heterogeneous_with_allowed_map():
    """testAssignWithThreeMembersThreeTopicsHeterogeneousWithAllowedMap (4.1.1): every partition
    initialized, the same result as without the map."""
    got = simple_share_assign("4.1", {"A": ["T1", "T2"], "B": ["T3"], "C": ["T2", "T3"]}, TOPICS,
                              assignable={"T1": [0, 1, 2], "T2": [0, 1, 2], "T3": [0, 1]})
    assert got == {"A": {"T1": [0, 1, 2], "T2": [0, 2]}, "B": {"T3": [0, 1]}, "C": {"T2": [1, 2]}}


# -- 4.2: sharing and quotas ----------------------------------------------------------------------
def test_4_2_design_example_sharing_two_partitions_among_three():
    """KAFKA-19362 quotas: 3 members on 2 partitions: sharing 2, quotas [2, 1, 1]."""
    assert quotas(3, 2) == (2, [2, 1, 1])
    got = simple_share_assign("4.2", {"A": ["T1"], "B": ["T1"], "C": ["T1"]}, {"T1": 2})
    assert got == {"A": {"T1": [0, 1]}, "B": {"T1": [0]}, "C": {"T1": [1]}}


@pytest.mark.parametrize("members, partitions, expected", [
    (1, 4, (1, [4])), (2, 3, (1, [2, 1])), (4, 3, (2, [2, 1, 2, 1])), (5, 4, (2, [2, 2, 1, 2, 1])),
    (5, 2, (3, [2, 1, 1, 1, 1])), (4, 1, (4, [1, 1, 1, 1])),
])
def test_4_2_quotas(members, partitions, expected):
    """`SimpleHomogeneousAssignmentBuilder`: sharing = ceil(M / P), quota i = ceil(q(i+1)) - ceil(qi)
    with q = sharing * P / M (hand-computed, e.g. M=5, P=4: q = 1.6 -> 2, 2, 1, 2, 1)."""
    assert quotas(members, partitions) == expected


def test_4_2_two_members_and_two_topics_homogeneous():
    """testAssignWithTwoMembersAndTwoTopicsHomogeneous (4.2.0): all 5 partitions assigned, quotas [3, 2]."""
    got = simple_share_assign("4.2", {"A": ["T1", "T3"], "B": ["T1", "T3"]}, TOPICS)
    assert every_partition_assigned(got, {"T1": 3, "T3": 2})
    assert [sum(map(len, got[m].values())) for m in "AB"] == [3, 2]


def test_4_2_three_members_three_topics_heterogeneous():
    """testAssignWithThreeMembersThreeTopicsHeterogeneous (4.2.0): all 8 partitions assigned, each
    to subscribers only."""
    subs = {"A": ["T1", "T2"], "B": ["T3"], "C": ["T2", "T3"]}
    got = simple_share_assign("4.2", subs, TOPICS)
    assert every_partition_assigned(got, TOPICS)
    assert all(t in subs[m] for m, a in got.items() for t in a)


def test_4_2_current_assignment_heterogeneous():
    """testAssignWithCurrentAssignmentHeterogeneous (4.2.0), second step: A {T1, T2, T3}, B {T3, T4};
    all 9 partitions assigned; A keeps T1 and T2, B keeps one of its two T3 partitions."""
    topics = {"T1": 3, "T2": 3, "T3": 2, "T4": 1}
    current = {"A": {"T1": [0, 1, 2], "T2": [0, 2]}, "B": {"T3": [0, 1]}}
    got = simple_share_assign("4.2", {"A": ["T1", "T2", "T3"], "B": ["T3", "T4"]}, topics, current=current)
    assert every_partition_assigned(got, topics)
    assert got["A"]["T1"] == [0, 1, 2] and set(got["A"]["T2"]) >= {0, 2}
    assert len(got["B"]["T3"]) == 1 and got["B"]["T4"] == [0]


@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_4_2_incremental_assignment_homogeneous(direction):
    """testIncrementalAssignment{Increasing,Decreasing}MembersHomogeneous (4.2.0): 24 partitions,
    1 to 101 members one at a time, feeding each result back: every partition is always assigned,
    no member holds more than its quota and no partition more than ceil(M / P) members. (A member
    can stay below its quota when the round robin finds no short partition it lacks.)"""
    topics = {"T1": 24}
    sizes = range(1, 102) if direction == "increasing" else range(101, 0, -1)
    current: dict = {}
    for size in sizes:
        members = {f"M{i}": ["T1"] for i in range(size)}
        got = simple_share_assign("4.2", members, topics, current={m: current.get(m, {}) for m in members})
        assert every_partition_assigned(got, topics), size
        sharing, quota = quotas(size, 24)
        assert all(len(got[m].get("T1", [])) <= q for m, q in zip(members, quota))
        assert max(sum(p in a.get("T1", []) for a in got.values()) for p in range(24)) == sharing
        current = got


def test_4_2_keeps_what_the_quota_allows():
    """Stickiness: a member above its new quota keeps quota-many of its partitions."""
    got = simple_share_assign("4.2", {"A": ["T1"], "B": ["T1"]}, {"T1": 3}, current={"A": {"T1": [0, 1, 2]}})
    assert len(got["A"]["T1"]) == 2 and set(got["A"]["T1"]) < {0, 1, 2}
    assert got["B"]["T1"] == sorted({0, 1, 2} - set(got["A"]["T1"]))


@settings(max_examples=80, deadline=None)
@given(size=st.integers(1, 12), partitions=st.integers(1, 9), seed=st.integers(0, 3))
def test_4_2_balance_properties(size, partitions, seed):
    """Homogeneous 4.2: every partition held, no member over its quota, none shared beyond ceil(M/P)."""
    members = {f"m{(i * 7 + seed) % 50}": ["T"] for i in range(size)}
    got = simple_share_assign("4.2", members, {"T": partitions})
    assert every_partition_assigned(got, {"T": partitions})
    sharing = math.ceil(len(members) / partitions)
    assert all(sum(p in a.get("T", []) for a in got.values()) <= sharing for p in range(partitions))
    assert [len(got[m].get("T", [])) for m in members] == quotas(len(members), partitions)[1]


# -- the GroupSpec form -------------------------------------------------------------------------------
class _Spec(GroupSpec):
    """A GroupSpec with Kafka's `SubscribedTopicDescriber.assignablePartitions` (4.1+)."""

    __slots__ = ("assignable",)


def test_simple_assignor_on_a_group_spec():
    """`SimpleAssignor("4.1").assign(spec)` gives what `simple_share_assign` gives, as frozensets."""
    subs = {"A": frozenset({"T1", "T3"}), "B": frozenset({"T1", "T3"})}
    spec = _Spec(["A", "B"], {"T1": 3, "T3": 2}, HOMOGENEOUS, subs.__getitem__, {}, lambda m: None,
                 lambda m: None, {})
    spec.assignable = lambda t: range({"T1": 3, "T3": 2}[t])
    assert SimpleAssignor("4.1").assign(spec) == {"A": {"T1": frozenset({0, 2}), "T3": frozenset({1})},
                                                   "B": {"T1": frozenset({1}), "T3": frozenset({0})}}
    spec.assignable = lambda t: [0] if t == "T1" else []  # one initialized partition: both share it
    assert SimpleAssignor("4.2").assign(spec) == {"A": {"T1": frozenset({0})}, "B": {"T1": frozenset({0})}}
    assert SimpleAssignor("4.2").name == "simple" and HETEROGENEOUS == "HETEROGENEOUS"
    with pytest.raises(ConfigError, match="4.0 or later"):
        SimpleAssignor("3.9")
    assert SimpleAssignor("4.3").generation == "sharing"  # 4.3's builders are 4.2's


@settings(max_examples=80, deadline=None)
@given(subscriptions=st.lists(st.sets(st.sampled_from(["T1", "T2", "T3"]), min_size=1), min_size=1, max_size=8),
       counts=st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 5)))
def test_4_2_heterogeneous_properties(subscriptions, counts):
    """Heterogeneous 4.2 (`SimpleHeterogeneousAssignmentBuilder`): per topic, every partition is
    held, only by subscribers, none by more than ceil(subscribers / partitions)."""
    topics = dict(zip(["T1", "T2", "T3"], counts))
    members = {f"m{i}": sorted(s) for i, s in enumerate(subscriptions)}
    got = simple_share_assign("4.2", members, topics)
    for topic, n in topics.items():
        subscribers = [m for m, ts in members.items() if topic in ts]
        holders = {p: [m for m in got if p in got[m].get(topic, [])] for p in range(n)}
        assert all(set(hs) <= set(subscribers) for hs in holders.values())
        if subscribers:
            sharing = math.ceil(len(subscribers) / n)
            assert all(1 <= len(hs) <= sharing for hs in holders.values()), (topic, holders)


# -- stickiness, pinned by mutation testing (issue 28 item 8) ----------------------------------------
def test_42_keeps_a_balanced_current_assignment_homogeneous_and_heterogeneous():
    """Simple{Homogeneous,Heterogeneous}AssignmentBuilder (4.2): balance first, then stickiness:
    a current assignment already within every quota is kept as it is. Homogeneous: 2 members, foo
    with 4 partitions, sharing ceil(2 / 4) = 1, quota 2 each: m1 keeps 2-3, m2 keeps 0-1.
    Heterogeneous (per topic): foo's two subscribers have quota 1 each and keep foo-1 / foo-0; bar's
    only subscriber m2 has quota 2 and keeps both."""
    current = {"m1": {"foo": [2, 3]}, "m2": {"foo": [0, 1]}}
    assert simple_share_assign("4.2", {"m1": ["foo"], "m2": ["foo"]}, {"foo": 4}, current) == current
    current = {"m1": {"foo": [1]}, "m2": {"foo": [0], "bar": [0, 1]}}
    got = simple_share_assign("4.2", {"m1": ["foo"], "m2": ["foo", "bar"]}, {"foo": 2, "bar": 2}, current)
    assert {m: {t: sorted(ps) for t, ps in a.items() if ps} for m, a in got.items()} == current


# -- the assignor object reads its GroupSpec (issue 29) ----------------------------------------------
def _spec(subscriptions: dict, topics: dict, targets: dict | None = None) -> GroupSpec:
    """A GroupSpec of members in join order; `subscribed_topics` gives a frozenset, as the group's does."""
    subs = {m: frozenset(ts) for m, ts in subscriptions.items()}
    kind = HOMOGENEOUS if len(set(subs.values())) == 1 else HETEROGENEOUS
    return GroupSpec(list(subs), topics, kind, subs.__getitem__, targets or {}, lambda m: None, lambda m: None, {})


def test_the_assignor_object_keeps_each_members_current_target_read_from_the_spec():
    """4.2 balances, then sticks (SimpleHomogeneousAssignmentBuilder): A on foo-2, foo-3 and B on
    foo-0, foo-1 are already at their quota of 2 (sharing 1, q = 4 / 2), so the spec's current
    targets come back as they are; with no current targets round robin gives A 0, 2 and B 1, 3."""
    current = {"A": {"foo": frozenset({2, 3})}, "B": {"foo": frozenset({0, 1})}}
    assert SimpleAssignor("4.2").assign(_spec({"A": ["foo"], "B": ["foo"]}, {"foo": 4}, current)) == current
    assert SimpleAssignor("4.2").assign(_spec({"A": ["foo"], "B": ["foo"]}, {"foo": 4})) == {
        "A": {"foo": frozenset({0, 2})}, "B": {"foo": frozenset({1, 3})}}


def test_the_assignor_object_takes_each_members_topics_in_the_specs_topic_order():
    """computeTargetPartitions lists the partitions topic by topic in subscription order, here the
    spec's (T2 then T1), not the alphabetical order: 4.1 hashes A (65) to 65 % 3 = 2, T1-1, and
    B (66) to 0, T2-0, and round robin gives the last one, T1-0, to A."""
    spec = _spec({"A": ["T1", "T2"], "B": ["T1", "T2"]}, {"T2": 1, "T1": 2})
    assert SimpleAssignor("4.1").assign(spec) == {"A": {"T1": frozenset({0, 1})}, "B": {"T2": frozenset({0})}}


def test_a_4_0_assignor_object_gives_every_member_every_partition_and_names_its_version():
    """SimpleAssignor.java (4.0.0): each member gets all partitions of its topics, shared; the object
    says which version's algorithm it runs."""
    assignor = SimpleAssignor("4.0")
    assert assignor.assign(_spec({"A": ["foo"], "B": ["foo"]}, {"foo": 3})) == {
        "A": {"foo": frozenset({0, 1, 2})}, "B": {"foo": frozenset({0, 1, 2})}}
    assert repr(assignor) == "SimpleAssignor('4.0')"


# -- 4.2 revoke and fill orders, pinned by mutation testing (issue 29, `_share_partitions`) ----------
def test_42_an_overshared_partition_is_revoked_from_its_lowest_index_holders_first():
    """revokeOversharedPartitions (4.2-4.4, both builders) walks a partition's holders, a
    `HashSet<Integer>` of member indices (small Integers iterate ascending), and revokes until
    `desiredSharing` remain. 3 members on foo (3 partitions): sharing 1, quota 1 each. All hold
    foo-0: m0 and m1 lose it, m2 keeps it; the fill then gives foo-1 to m0 and foo-2 to m1.
    Heterogeneous: m2 also subscribes to bar, which is assigned on its own; foo goes the same way."""
    current = {m: {"foo": [0]} for m in ("m0", "m1", "m2")}
    got = simple_share_assign("4.2", {m: ["foo"] for m in current}, {"foo": 3}, current)
    assert got == {"m0": {"foo": [1]}, "m1": {"foo": [2]}, "m2": {"foo": [0]}}
    members = {"m0": ["foo"], "m1": ["foo"], "m2": ["foo", "bar"]}
    got = simple_share_assign("4.4", members, {"foo": 3, "bar": 1}, current)
    assert got == {"m0": {"foo": [1]}, "m1": {"foo": [2]}, "m2": {"bar": [0], "foo": [0]}}


def test_42_the_fill_rotation_over_unfilled_members_carries_across_partitions():
    """assignRemainingPartitions makes one `memberIterator` before its loop over the partitions, so
    the next partition goes to the member after the last one served, not back to the first:
    2 members, foo with 4 partitions, no current assignment: sharing 1, quota 2 each; foo-0 to m0,
    foo-1 to m1, foo-2 to m0, foo-3 to m1."""
    got = simple_share_assign("4.2", {"m0": ["foo"], "m1": ["foo"]}, {"foo": 4})
    assert got == {"m0": {"foo": [0, 2]}, "m1": {"foo": [1, 3]}}


def test_42_a_pass_over_the_unfilled_members_that_places_nothing_ends_the_fill():
    """assignRemainingPartitions's "tricky case": when a whole pass over the unfilled members places
    nothing (each already holds the partition), the while loop breaks; its Javadoc says it carries
    on, but the iterator stays exhausted and `partitionAssignedForThisIterator` false, so every later
    partition breaks at once too. 7 members on foo (3 partitions): sharing ceil(7 / 3) = 3, q = 9 / 7,
    quotas [2, 1, 1, 2, 1, 1, 1]. m0 and m3 (quota 2) hold foo-0, the only unfilled members; foo-0
    wants a third holder, neither can take it, so the fill stops: foo-2 stays with 2 holders though
    m0 could take it. Nothing is over its quota or sharing, so the current assignment is kept."""
    current = {"m0": {"foo": [0]}, "m1": {"foo": [1]}, "m2": {"foo": [1]}, "m3": {"foo": [0]},
               "m4": {"foo": [1]}, "m5": {"foo": [2]}, "m6": {"foo": [2]}}
    assert quotas(7, 3) == (3, [2, 1, 1, 2, 1, 1, 1])
    assert simple_share_assign("4.2", {m: ["foo"] for m in current}, {"foo": 3}, current) == current


def test_42_no_fill_when_every_member_is_at_its_quota_counting_a_held_non_assignable_partition():
    """revokeUnassignablePartitions drops only the partitions of topics no longer subscribed, so a
    member keeps, and counts toward its quota, a partition not (yet) assignable; assignRemainingPartitions
    returns at once when no member is unfilled. m0, m1 on foo (2 partitions, only foo-0 assignable):
    P = 1, sharing 2, quota 1 each; m0 holds foo-1, m1 foo-0: both full, so foo-0 keeps 1 holder."""
    current = {"m0": {"foo": [1]}, "m1": {"foo": [0]}}
    got = simple_share_assign("4.3", {"m0": ["foo"], "m1": ["foo"]}, {"foo": 2}, current, assignable={"foo": [0]})
    assert got == current


def test_42_a_member_holding_the_partition_is_skipped_for_the_next_unfilled_one():
    """assignRemainingPartitions skips an unfilled member already in `membersAssigned` and offers the
    partition to the next one in the rotation. 3 members on foo (2 partitions): sharing 2, q = 4 / 3,
    quotas [2, 1, 1]; m0 holds foo-0 (unfilled). foo-0 wants one more: m0 is skipped, m1 takes it
    (full); foo-1 wants two: m2, then m0 after the rotation wraps (partitions ascending here: Kafka's
    `HashMap` order of `TopicIdPartition`s depends on the random topic id)."""
    got = simple_share_assign("4.2", {m: ["foo"] for m in ("m0", "m1", "m2")}, {"foo": 2}, {"m0": {"foo": [0]}})
    assert quotas(3, 2) == (2, [2, 1, 1])
    assert got == {"m0": {"foo": [0, 1]}, "m1": {"foo": [0]}, "m2": {"foo": [1]}}


def test_42_no_target_partition_means_sharing_0_and_quota_0():
    """SimpleHomogeneousAssignmentBuilder's constructor: `desiredSharing = 0` when there is no target
    partition (else ceil(M / P) would divide by 0), so q = 0 and every quota is 0."""
    assert quotas(2, 0) == (0, [0, 0])


def test_42_a_homogeneous_group_shares_all_its_topics_partitions_together():
    """SimpleAssignor (4.2+) runs SimpleHomogeneousAssignmentBuilder when every member subscribes to
    the same topics: its targets are all their partitions at once, so 2 members on T1 and T2 (1
    partition each) get P = 2, sharing 1, quota 1 each: one partition per member. Per topic (the
    heterogeneous builder) each topic would have P = 1, sharing 2, and both members would hold both."""
    got = simple_share_assign("4.2", {"m0": ["T1", "T2"], "m1": ["T1", "T2"]}, {"T1": 1, "T2": 1})
    assert got == {"m0": {"T1": [0]}, "m1": {"T2": [0]}}


def test_4_0_gives_every_partition_even_one_not_assignable():
    """SimpleAssignor.computeTargetPartitions (4.0.0) lists partitions 0 to numPartitions - 1 with no
    `isPartitionAssignable` check (added in 4.1): foo-1, not initialized, goes to the member too."""
    got = simple_share_assign("4.0", {"A": ["foo"]}, {"foo": 2}, assignable={"foo": [0]})
    assert got == {"A": {"foo": [0, 1]}}
    assert simple_share_assign("4.1", {"A": ["foo"]}, {"foo": 2}, assignable={"foo": [0]}) == {"A": {"foo": [0]}}


def test_share_version_is_the_major_and_minor_of_a_share_group_version():
    """Which share-group line a release runs is its (major, minor): "4.0" (read as (4,)) is (4, 0),
    a patch release is its line."""
    from kafkasim.coordinator.assignor.simple import share_version
    assert [share_version(v) for v in ("4.0", "4.1.1", "4.2")] == [(4, 0), (4, 1), (4, 2)]
