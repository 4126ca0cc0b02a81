"""The KIP-848 server-side assignors called directly on a `GroupSpec`, below the coordinator.

tests/test_consumer_protocol.py and tests/test_consumer_protocol_kafka_replay.py run the assignors
through the coordinator (which drops empty topic entries and never lets a member subscribe to a
missing topic); these tests pin what only the assignor itself shows: its errors, the exact maps it
returns, `GroupSpec`'s queries, and how `group.consumer.assignors` entries are resolved. Kafka's
tests are in group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/ (tags
4.0.0 and 4.1.1 of apache/kafka); each replay names its Java test.
"""

from __future__ import annotations

import pytest

from kafkasim.coordinator.assignor import (
    HETEROGENEOUS, HOMOGENEOUS, GroupSpec, PartitionAssignorException, PluggableAssignor, RangeAssignor,
    UniformAssignor, builtin_assignor, server_assignors)
from kafkasim.coordinator.assignor.uniform import HeterogeneousBuilder
from kafkasim.core.errors import ConfigError


def group_spec(topics, subscriptions, kind, targets=None, instances=None):
    """A GroupSpec over `subscriptions` ({member: topics}, in iteration order); `targets` are the
    members' current targets ({member: {topic: [partitions]}})."""
    targets = {m: {t: frozenset(ps) for t, ps in a.items()} for m, a in (targets or {}).items()}
    inverted: dict[str, dict[int, str]] = {}
    for m, assignment in targets.items():
        for t, ps in assignment.items():
            for p in ps:
                inverted.setdefault(t, {})[p] = m
    return GroupSpec(list(subscriptions), topics, kind, lambda m: frozenset(subscriptions[m]), targets,
                     lambda m: (instances or {}).get(m), lambda m: None, inverted)


def sets(assignment):
    """{member: {topic: [p, ...]}} as the assignors return it: frozensets."""
    return {m: {t: frozenset(ps) for t, ps in a.items()} for m, a in assignment.items()}


# -- range ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, subscriptions", [
    (HOMOGENEOUS, {"A": {"topic2"}}),
    (HETEROGENEOUS, {"A": {"topic1"}, "B": {"topic2"}}),
])
def test_range_member_subscribed_to_a_non_existent_topic(kind, subscriptions):
    """RangeAssignorTest.testOneMemberSubscribedToNonExistentTopic @ 4.0.0 (and the same check of
    assignHeterogeneousGroup): a topic the describer does not know fails the computation, with
    RangeAssignor's message."""
    spec = group_spec({"topic1": 3}, subscriptions, kind)
    with pytest.raises(PartitionAssignorException) as err:
        RangeAssignor().assign(spec)
    assert str(err.value) == "Member is subscribed to a non-existent topic"


def test_range_gives_no_entry_for_a_topic_a_member_gets_nothing_of():
    """RangeAssignorTest.testFirstAssignmentNumMembersGreaterThanNumPartitions @ 4.0.0, at the
    assignor: C's map has no topic3 key at all (`addPartitionsToAssignment` puts a range only
    when start < end), not an empty set."""
    both = {"topic1", "topic3"}
    spec = group_spec({"topic1": 3, "topic3": 2}, {"A": both, "B": both, "C": both}, HOMOGENEOUS)
    assert RangeAssignor().assign(spec) == sets({
        "A": {"topic1": [0], "topic3": [0]},
        "B": {"topic1": [1], "topic3": [1]},
        "C": {"topic1": [2]},
    })


def test_range_sorts_static_members_by_instance_id_then_dynamic_ones_by_member_id():
    """RangeAssignor.sortMemberIds: instance ids decide among static members (C's "instanceB"
    before B's "instanceC", against member-id order), and the dynamic member A comes last though
    its id sorts first. Four partitions over three members: 2, 1, 1 (worked out by hand)."""
    subs = {m: {"topic1"} for m in ("A", "B", "C")}
    spec = group_spec({"topic1": 4}, subs, HOMOGENEOUS, instances={"B": "instanceC", "C": "instanceB"})
    assert RangeAssignor.sorted_members(spec) == ["C", "B", "A"]
    assert RangeAssignor().assign(spec) == sets({"C": {"topic1": [0, 1]}, "B": {"topic1": [2]}, "A": {"topic1": [3]}})


def test_range_assignor_repr():
    assert repr(RangeAssignor()) == "RangeAssignor()"


# -- GroupSpec --------------------------------------------------------------------------------------

def test_group_spec_is_partition_assigned():
    """GroupSpecImplTest.testIsPartitionAssigned @ 4.0.0: true only for a partition in someone's
    target; false for another partition of that topic and for a topic nobody holds."""
    spec = group_spec({"topic1": 3}, {"test-member": {"topic1"}}, HOMOGENEOUS,
                      targets={"test-member": {"topic1": [1]}})
    assert spec.is_partition_assigned("topic1", 1) is True
    assert spec.is_partition_assigned("topic1", 2) is False
    assert spec.is_partition_assigned("other", 2) is False


# -- resolving group.consumer.assignors ----------------------------------------------------------

def _three_members_one_topic_of_two_partitions():
    return group_spec({"topic3": 2}, {m: {"topic3"} for m in ("A", "B", "C")}, HOMOGENEOUS)


def test_built_in_uniform_defaults_to_the_4_1_extra_slot_rule():
    """OptimizedUniformAssignmentBuilderTest.testFirstAssignmentNumMembersGreaterThanTotalNumPartitions
    @ 4.1.1: the two "+1" slots go to B and C (KAFKA-18688). That is what `uniform` does when no
    `stable_extra` is given; 4.0.0's test expects A and B to get them (stable_extra=False)."""
    expected_41 = sets({"A": {}, "B": {"topic3": [0]}, "C": {"topic3": [1]}})
    spec = _three_members_one_topic_of_two_partitions()
    assert builtin_assignor("uniform").assign(spec) == expected_41
    assert server_assignors(None)["uniform"].assign(spec) == expected_41
    assert server_assignors("range,uniform")["uniform"].assign(spec) == expected_41
    assert builtin_assignor("uniform", stable_extra=False).assign(spec) == sets(
        {"A": {"topic3": [0]}, "B": {"topic3": [1]}, "C": {}})


class _Mine:
    """A learner's assignor: everything to the first member."""

    name = "mine"

    def assign(self, members, topics):
        first = next(iter(members))
        return {first: {t: list(range(n)) for t, n in topics.items()}}


class _IterableMine(_Mine):
    """The same, but iterable: it must still count as one assignor, not as a list of entries."""

    def __iter__(self):
        return iter(["range"])


@pytest.mark.parametrize("make", [_Mine, _IterableMine])
def test_a_single_assignor_object_is_one_entry(make):
    """`group.consumer.assignors` given one object (not a list) resolves to that assignor alone."""
    mine = make()
    resolved = server_assignors(mine)
    assert list(resolved) == ["mine"]
    assert isinstance(resolved["mine"], PluggableAssignor) and resolved["mine"].assignor is mine
    spec = group_spec({"topic1": 2}, {"A": {"topic1"}, "B": {"topic1"}}, HOMOGENEOUS)
    assert resolved["mine"].assign(spec) == sets({"A": {"topic1": [0, 1]}})


def test_an_empty_entry_in_the_list_is_rejected():
    """"uniform," has an empty second entry (simulator wording; Kafka 4.2's ConfigDef.ValidList
    says "Configuration 'group.consumer.assignors' values must not be empty.")."""
    with pytest.raises(ConfigError) as err:
        server_assignors("uniform,")
    assert str(err.value) == "Invalid value '' for configuration group.consumer.assignors: Empty value not allowed"


@pytest.mark.parametrize("name, shown", [(None, "None"), ("  ", "'  '"), (7, "7")])
def test_a_pluggable_assignor_needs_a_non_empty_string_name(name, shown):
    """An object without a usable `name` is refused before its `assign` is looked at."""
    attrs = {"assign": lambda self, members, topics: {}}
    if name is not None:
        attrs["name"] = name
    with pytest.raises(TypeError) as err:
        PluggableAssignor(type("Nameless", (), attrs)())
    assert str(err.value) == f"a server assignor needs a non-empty string `name`, got {shown}"



def test_a_pluggable_assignor_returning_no_mapping_is_refused_naming_what_it_must_return():
    """A learner's `assign` that returns a list is stopped with what it must return and what it gave,
    not read as an empty assignment (the simulator's wording: Kafka's interface returns a typed
    `GroupAssignment`, so no broker meets this)."""
    wrong = type("Listy", (), {"name": "listy", "assign": lambda self, members, topics: [("A", {"topic1": [0]})]})()
    spec = group_spec({"topic1": 1}, {"A": {"topic1"}}, HOMOGENEOUS)
    with pytest.raises(TypeError) as err:
        PluggableAssignor(wrong).assign(spec)
    assert str(err.value) == "server assignor 'listy' must return {member_id: {topic: [partitions]}}, got list"

# -- uniform ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, subscriptions, topic", [
    (HOMOGENEOUS, {"A": {"topic2"}}, "topic2"),
    (HETEROGENEOUS, {"A": {"topic3"}, "B": {"topic2"}}, "topic3"),
])
def test_uniform_member_subscribed_to_a_non_existent_topic(kind, subscriptions, topic):
    """OptimizedUniformAssignmentBuilderTest.testOneMemberSubscribedToNonexistentTopic and
    UniformHeterogeneousAssignmentBuilderTest.testTwoMembersSubscribedToNonexistentTopics @ 4.0.0.
    Kafka's message names the topic id; the simulator has names, and reports the first member's."""
    spec = group_spec({"topic1": 3}, subscriptions, kind)
    with pytest.raises(PartitionAssignorException) as err:
        UniformAssignor().assign(spec)
    assert str(err.value) == f"Members are subscribed to topic {topic} which doesn't exist in the topic metadata."


@pytest.mark.parametrize("stable_extra", [True, False])
def test_uniform_homogeneous_member_above_quota_gives_back_its_highest_partition(stable_extra):
    """4 partitions over 3 members: quota 1, one "+1" slot. A holds 2 and keeps the slot, so B,
    also holding 2, keeps partition 2 and pools 3, which C takes (by hand, both extra-slot rules)."""
    subs = {m: {"topic1"} for m in ("A", "B", "C")}
    spec = group_spec({"topic1": 4}, subs, HOMOGENEOUS, targets={"A": {"topic1": [0, 1]}, "B": {"topic1": [2, 3]}})
    assert UniformAssignor(stable_extra=stable_extra).assign(spec) == sets(
        {"A": {"topic1": [0, 1]}, "B": {"topic1": [2]}, "C": {"topic1": [3]}})


def test_uniform_homogeneous_drops_an_unsubscribed_topic_and_trims_to_quota():
    """B's target holds all 5 partitions of topic1 and topic2, which nobody subscribes to any more.
    Quotas 2 and 3; A, first and empty, leaves the "+1" slot to B (4.1+). B keeps topic1 0-2
    without topic2, and A takes the excess 3 and 4 (by hand)."""
    subs = {"A": {"topic1"}, "B": {"topic1"}}
    spec = group_spec({"topic1": 5}, subs, HOMOGENEOUS, targets={"B": {"topic1": [0, 1, 2, 3, 4], "topic2": [0]}})
    assert UniformAssignor().assign(spec) == sets({"A": {"topic1": [3, 4]}, "B": {"topic1": [0, 1, 2]}})


def test_uniform_homogeneous_fails_when_the_targets_overlap():
    """assignRemainingPartitions' check: if partitions are left over after every member is filled
    the computation fails. Only an inconsistent spec gets there: A and B both hold partition 0, so
    both are full and partition 1 has nowhere to go."""
    subs = {"A": {"topic1"}, "B": {"topic1"}}
    spec = group_spec({"topic1": 2}, subs, HOMOGENEOUS, targets={"A": {"topic1": [0]}, "B": {"topic1": [0]}})
    with pytest.raises(PartitionAssignorException) as err:
        UniformAssignor().assign(spec)
    assert str(err.value) == "Partitions were left unassigned"


def test_uniform_returns_an_unchanged_target_as_the_same_object():
    """Members whose target does not change come back as the very object the spec holds (Kafka
    reuses the immutable map; the coordinator then skips them), homogeneous and heterogeneous.
    Heterogeneous: B, the least loaded, holds topic1's only partition; A (4 of topic2) has none
    to give, so nothing moves."""
    both = {"topic1", "topic2"}
    homogeneous = group_spec({"topic1": 2, "topic2": 2}, {"A": both, "B": both}, HOMOGENEOUS,
                             targets={"A": {"topic1": [0], "topic2": [0]}, "B": {"topic1": [1], "topic2": [1]}})
    heterogeneous = group_spec({"topic1": 1, "topic2": 4}, {"A": both, "B": {"topic1"}}, HETEROGENEOUS,
                               targets={"A": {"topic2": [0, 1, 2, 3]}, "B": {"topic1": [0]}})
    for spec in (homogeneous, heterogeneous):
        result = UniformAssignor().assign(spec)
        assert result == spec.targets
        assert all(result[m] is spec.targets[m] for m in ("A", "B"))


def test_uniform_heterogeneous_topic_partitions_run_out_and_members_have_no_partitions():
    """UniformHeterogeneousAssignmentBuilderTest.testReassignmentWhenTopicPartitionsRunOutAndMembersHaveNoPartitions
    @ 4.0.0: A holds all six partitions, B joins; each topic's last partition moves to B until
    the two are balanced."""
    three = {"topic1", "topic2", "topic3"}
    spec = group_spec({"topic1": 2, "topic2": 2, "topic3": 2}, {"A": three, "B": three}, HETEROGENEOUS,
                      targets={"A": {"topic1": [0, 1], "topic2": [0, 1], "topic3": [0, 1]}})
    assert UniformAssignor().assign(spec) == sets({
        "A": {"topic2": [0], "topic3": [0, 1]},
        "B": {"topic1": [0, 1], "topic2": [1]},
    })


def test_uniform_heterogeneous_balances_the_topic_with_most_partitions_per_subscriber_first():
    """A holds all 4 partitions; topic1 (2 per subscriber: A, C) is balanced before topic2
    (2/3: A, B, C). Worked out by hand from the balancer: topic1 moves 1 then 0 from A to C
    (A 2, C 2); on topic2, C is as loaded as A but holds none of it, so A gives 1 to B
    (A 1, B 1) and the levels are then even: 0 stays with A."""
    spec = group_spec({"topic1": 2, "topic2": 2},
                      {"A": {"topic1", "topic2"}, "B": {"topic2"}, "C": {"topic1", "topic2"}}, HETEROGENEOUS,
                      targets={"A": {"topic1": [0, 1], "topic2": [0, 1]}})
    assert UniformAssignor().assign(spec) == sets({
        "A": {"topic2": [0]}, "B": {"topic2": [1]}, "C": {"topic1": [0, 1]},
    })


def test_uniform_heterogeneous_skips_a_most_loaded_member_with_nothing_to_give_and_still_balances():
    """m1 reads t1 only, which m2 holds whole. Balancing t1, the most loaded member (m0, 4 partitions
    once t0 is balanced) holds no t1 partition: the most-loaded range skips it
    (`MemberAssignmentBalancer.excludeMostLoadedMember`) and takes both t1 partitions from m2 for m1;
    t0 is then evened out: 3, 2 and 3 partitions, each member keeping what it can of its target."""
    spec = group_spec({"t0": 6, "t1": 2}, {"m0": {"t0", "t1"}, "m1": {"t1"}, "m2": {"t0", "t1"}}, HETEROGENEOUS,
                      targets={"m0": {"t0": [4]}, "m2": {"t0": [0, 1, 2, 3], "t1": [0, 1]}})
    result = UniformAssignor().assign(spec)
    assert {m: sum(len(ps) for ps in a.values()) for m, a in result.items()} == {"m0": 3, "m1": 2, "m2": 3}
    assert result["m1"] == {"t1": frozenset({0, 1})}
    assert 4 in result["m0"]["t0"] and {0, 1} <= result["m2"]["t0"]

def test_uniform_heterogeneous_rebalances_a_topic_again_after_a_later_topic_moved():
    """topic2 (5 partitions, B and C) goes before topic1 (2, A B C). A drops topic2 (no longer
    subscribed); the free topic2 partitions go 0, 1, 4 to B and 3 to C (B 4, C 3). Round 1:
    topic2 is balanced, topic1 moves 1 from C to A (C 2). Round 2: topic2 moves 4 from B to C
    (B 3, C 3), so topic1, after it, runs again and moves 0 from C to A (by hand)."""
    spec = group_spec({"topic1": 2, "topic2": 5},
                      {"A": {"topic1"}, "B": {"topic1", "topic2"}, "C": {"topic1", "topic2"}}, HETEROGENEOUS,
                      targets={"C": {"topic1": [0, 1]}, "A": {"topic2": [0, 4]}, "B": {"topic2": [2]}})
    assert UniformAssignor().assign(spec) == sets({
        "A": {"topic1": [0, 1]}, "B": {"topic2": [0, 1, 2]}, "C": {"topic2": [3, 4]},
    })


def test_uniform_heterogeneous_two_members_three_topics_given_an_unbalanced_previous_assignment():
    """UniformHeterogeneousAssignmentBuilderTest.testReassignmentForTwoMembersThreeTopicsGivenUnbalancedPrevAssignment
    @ 4.0.0: C (11 partitions) gives topic2 1-3 to B and topic1 5 to A; everyone keeps the rest."""
    spec = group_spec({"topic1": 6, "topic2": 4, "topic3": 4},
                      {"A": {"topic1"}, "B": {"topic1", "topic2"}, "C": {"topic1", "topic2", "topic3"}}, HETEROGENEOUS,
                      targets={"A": {"topic1": [0, 1, 2]}, "B": {"topic1": [3], "topic2": [0]},
                               "C": {"topic1": [4, 5], "topic2": [1, 2, 3], "topic3": [0, 1, 2, 3]}})
    assert UniformAssignor().assign(spec) == sets({
        "A": {"topic1": [0, 1, 2, 5]}, "B": {"topic1": [3], "topic2": [0, 1, 2, 3]},
        "C": {"topic1": [4], "topic3": [0, 1, 2, 3]},
    })


def test_uniform_heterogeneous_a_most_loaded_member_gives_its_own_partitions_highest_first():
    """No partition is free: m1 holds 3 (t0 0 and 3, t1 0), m3 holds t0 1 and 2, m0 and m2 nothing.
    t0 (4 partitions, 4 subscribers) goes first. The most loaded, m1, gives its highest t0 partition,
    3, to m0 (first of the least loaded, ties by member index), then 0 to m2; m3, at 2 against 1,
    is then within one of them and keeps both of its own. t1 is balanced (1, 1, 1). By hand, after
    `UniformHeterogeneousAssignmentBuilder.balanceTopic` (partitions grouped by owner, each giver's
    last one taken)."""
    both = {"t0", "t1"}
    spec = group_spec({"t0": 4, "t1": 1}, {"m0": both, "m1": both, "m2": both, "m3": {"t0"}}, HETEROGENEOUS,
                      targets={"m1": {"t0": [0, 3], "t1": [0]}, "m3": {"t0": [1, 2]}})
    assert UniformAssignor().assign(spec) == sets({
        "m0": {"t0": [3]}, "m1": {"t1": [0]}, "m2": {"t0": [0]}, "m3": {"t0": [1, 2]},
    })


def test_uniform_heterogeneous_a_member_that_gave_its_last_partition_of_a_topic_gives_no_more():
    """m2 alone reads t1, so the free t1 partitions 0 and 2 go to it (4 partitions with t0 1), and
    the free t0 0 to m0. Balancing t0 (m1 0, m0 1, m2 4): m2 gives its only t0 partition, 1, to m1;
    still the most loaded but with no t0 partition left, it is excluded, and m0 (1, as m1 now) gives
    nothing: m0 and m1, both reading t0 only, end with one partition each (by hand, after
    `balanceTopic`'s check that the giver's range of partitions is not empty)."""
    spec = group_spec({"t0": 2, "t1": 3}, {"m0": {"t0"}, "m1": {"t0"}, "m2": {"t0", "t1"}}, HETEROGENEOUS,
                      targets={"m2": {"t0": [1], "t1": [1]}})
    assert UniformAssignor().assign(spec) == sets({
        "m0": {"t0": [0]}, "m1": {"t0": [1]}, "m2": {"t1": [0, 1, 2]},
    })


def test_uniform_heterogeneous_balancing_stops_after_a_round_of_the_topics_without_a_move(monkeypatch):
    """`balanceTopics` loops over the topics (most partitions per subscriber first) until a whole
    round moves nothing, at most 16 rounds. Here nothing can move: t3 and t4 (B 3, C 2) are within
    one; on t1, A (6, with t2 that only A reads) holds none of t1 and is skipped, and B would give
    its t1 partition to itself. So each topic is tried once, in the order t3, t4, t1, and the targets
    stay (by hand)."""
    tried = []
    balance_topic = HeterogeneousBuilder._balance_topic

    def spy(self, topic, balancer):
        tried.append(topic)
        return balance_topic(self, topic, balancer)

    monkeypatch.setattr(HeterogeneousBuilder, "_balance_topic", spy)
    targets = {"A": {"t2": [0, 1, 2, 3, 4, 5]}, "B": {"t1": [0], "t3": [0], "t4": [0]}, "C": {"t3": [1], "t4": [1]}}
    spec = group_spec({"t1": 1, "t2": 6, "t3": 2, "t4": 2},
                      {"A": {"t1", "t2"}, "B": {"t1", "t3", "t4"}, "C": {"t3", "t4"}}, HETEROGENEOUS, targets)
    assert UniformAssignor().assign(spec) == sets(targets)
    assert tried == ["t3", "t4", "t1"]


def test_uniform_heterogeneous_keeps_a_loaded_target_partition_the_topic_does_not_have():
    """A restored group (`load_consumer_group`) may give A partition 2 of a 2-partition topic. The
    heterogeneous path, as the homogeneous one, keeps it in A's target and counts it, instead of
    failing (Kafka cannot meet this: a recreated topic gets a new id, so the old partitions are
    revoked as unsubscribed). The free partition 1 goes to B: A 2, B 1."""
    spec = group_spec({"t0": 2}, {"A": {"t0"}, "B": {"t0"}}, HETEROGENEOUS, targets={"A": {"t0": [0, 2]}})
    assert UniformAssignor().assign(spec) == sets({"A": {"t0": [0, 2]}, "B": {"t0": [1]}})
