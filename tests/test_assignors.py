"""Tests of kafkasim.client.assignors against Kafka's javadoc examples, spec B.4/B.5 and Kafka's own tests.

Kafka's tests live in clients/src/test/java/org/apache/kafka/clients/consumer/
{RangeAssignorTest, RoundRobinAssignorTest, StickyAssignorTest, CooperativeStickyAssignorTest,
internals/AbstractStickyAssignorTest}.java; each replay below names its Java test. Java's
`verifyValidityAndBalance` is `check_valid_and_balanced` here; for the cooperative assignor Java
runs further rebalances until nothing is revoked, which `run_until_stable` does.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafkasim.core.errors import ConfigError

from kafkasim.client.assignors import (ASSIGNORS, COOPERATIVE, EAGER, Subscription, assign, assignor_name,
                                member_order, rebalance_protocols)

S = Subscription
STICKY_FAMILY = ["sticky", "cooperative-sticky"]


def parts(topic: str, *ps: int) -> list[tuple[str, int]]:
    return [(topic, p) for p in ps]


def as_sets(assignment):
    return {m: set(tps) for m, tps in assignment.items()}


def owned_by(assignment, generation=1, topics=None, subs=None):
    """The next JoinGroup's subscriptions: each member reports what it was just given."""
    return {m: S(tuple(subs[m].topics) if subs else topics, tuple(tps), generation) for m, tps in assignment.items()}


def run_until_stable(assignor, ppt, subs, generation=1, max_rounds=4):
    """Like CooperativeStickyAssignorTest.verifyValidityAndBalance: while a member revokes
    something, rebalance again with everyone reporting what they now own. Returns (assignment,
    subscriptions of the last round). For eager assignors this is a single assign()."""
    result = assign(assignor, ppt, subs)
    rounds = 0
    while assignor == "cooperative-sticky":
        check_cooperative(subs, result)
        revoked = {tp for m, s in subs.items() for tp in s.owned if tp not in set(result[m])}
        if not revoked:
            break
        subs = {m: S(s.topics, tuple(result[m]), generation, s.instance_id) for m, s in subs.items()}
        result = assign(assignor, ppt, subs)
        rounds += 1
        assert rounds <= max_rounds
    return result, subs


def check_cooperative(subs, result):
    """verifyCooperativeValidity: no partition is added to one member while another (that reported
    owning it) loses it in the same rebalance."""
    added, revoked = set(), set()
    for m, tps in result.items():
        owned = set(subs[m].owned)
        added |= set(tps) - owned
        revoked |= owned - set(tps)
    assert not (added & revoked), f"assigned while still owned elsewhere: {sorted(added & revoked)}"


def check_valid_and_balanced(ppt, subs, result, exactly_once=True):
    """AbstractStickyAssignorTest.verifyValidityAndBalance, in the stronger form of Kafka's
    `isBalanced()`: no partition could move to a member subscribed to its topic that has 2+ fewer."""
    assert set(result) == set(subs)
    seen = [tp for tps in result.values() for tp in tps]
    assert len(seen) == len(set(seen)), "a partition is assigned twice"
    subscribed = {(t, p) for s in subs.values() for t in s.topics for p in range(ppt.get(t, 0))}
    if exactly_once:
        assert set(seen) == subscribed
    for m, tps in result.items():
        assert all(t in subs[m].topics for t, _ in tps), f"{m} got a partition of a topic it does not subscribe to"
    owner = {tp: m for m, tps in result.items() for tp in tps}
    for m, s in subs.items():
        for t in s.topics:
            for p in range(ppt.get(t, 0)):
                o = owner.get((t, p))
                if o is not None:
                    assert len(result[o]) <= len(result[m]) + 1, \
                        f"{(t, p)} could move from {o} ({len(result[o])}) to {m} ({len(result[m])})"


def fully_balanced(result) -> bool:
    sizes = [len(v) for v in result.values()]
    return max(sizes) - min(sizes) <= 1


def withheld(ppt, subs):
    """CooperativeStickyAssignor's partitionsTransferringOwnership, observed from outside: what the
    sticky target gives a member that the cooperative result holds back."""
    target = assign("sticky", ppt, subs)
    coop = assign("cooperative-sticky", ppt, subs)
    for m in subs:
        assert set(coop[m]) <= set(target[m])
    return {tp: m for m in subs for tp in target[m] if tp not in set(coop[m])}


# ---------------------------------------------------------------------------------------------
# Names, protocols, member order

def test_assignor_names_and_java_class_aliases():
    assert set(ASSIGNORS) == {"range", "roundrobin", "sticky", "cooperative-sticky"}
    assert assignor_name("org.apache.kafka.clients.consumer.RangeAssignor") == "range"
    assert assignor_name("CooperativeStickyAssignor") == "cooperative-sticky"
    assert assignor_name("org.apache.kafka.clients.consumer.StickyAssignor") == "sticky"
    assert assignor_name("RoundRobinAssignor") == "roundrobin"
    assert assignor_name("org.apache.kafka.clients.consumer.CooperativeStickyAssignor") == "cooperative-sticky"
    subs = {"C0": S(("t0",))}
    assert assign("org.apache.kafka.clients.consumer.RangeAssignor", {"t0": 2}, subs) == {"C0": parts("t0", 0, 1)}


def test_unknown_assignor_names_the_valid_ones_and_suggests():
    with pytest.raises(ValueError) as e:
        assign("cooperative-stiky", {"t0": 1}, {"C0": S(("t0",))})
    text = str(e.value)
    assert "'cooperative-stiky'" in text
    assert all(n in text for n in ("range", "roundrobin", "sticky", "cooperative-sticky"))
    assert "Did you mean 'cooperative-sticky'" in text
    with pytest.raises(ValueError, match="Did you mean 'RangeAssignor'"):
        assignor_name("RangeAsignor")
    with pytest.raises(ValueError, match="Did you mean 'range'"):
        rebalance_protocols("Range")
    with pytest.raises(ValueError) as e:
        assignor_name("uniform")
    assert "Did you mean" not in str(e.value)


def test_rebalance_protocols():
    # ConsumerPartitionAssignor.supportedProtocols(): only CooperativeSticky supports COOPERATIVE.
    assert rebalance_protocols("range") == {EAGER}
    assert rebalance_protocols("roundrobin") == {EAGER}
    assert rebalance_protocols("StickyAssignor") == {EAGER}
    assert rebalance_protocols("cooperative-sticky") == {EAGER, COOPERATIVE}
    # the 3.0+ default [Range, CooperativeSticky] therefore runs EAGER (B.1)
    assert set.intersection(rebalance_protocols("range"), rebalance_protocols("cooperative-sticky")) == {EAGER}


def test_member_order_static_first_by_instance_id_then_member_id():
    # AbstractPartitionAssignor.MemberInfo.compareTo; "...-10-..." sorts before "...-2-..." (B.1)
    subs = {"consumer-2-b": S(("t",)), "consumer-10-a": S(("t",)),
            "z-member": S(("t",), instance_id="instance-a"), "a-member": S(("t",), instance_id="instance-b")}
    assert member_order(subs) == ["z-member", "a-member", "consumer-10-a", "consumer-2-b"]


def test_subscription_rejects_a_bare_topic_string():
    with pytest.raises(TypeError, match="collection of topic names"):
        S("t0")


# ---------------------------------------------------------------------------------------------
# RangeAssignor

def test_range_javadoc_example():
    subs = {"C0": S(("t0", "t1")), "C1": S(("t0", "t1"))}
    assert assign("range", {"t0": 3, "t1": 3}, subs) == {
        "C0": parts("t0", 0, 1) + parts("t1", 0, 1), "C1": parts("t0", 2) + parts("t1", 2)}


def test_range_extras_pile_on_the_first_member_across_topics():
    # spec B.4 step 3 (derived): 2 members, 10 topics x 1 partition -> m0 gets all 10
    topics = tuple(f"t{i}" for i in range(10))
    result = assign("range", {t: 1 for t in topics}, {"m0": S(topics), "m1": S(topics)})
    assert result == {"m0": [(t, 0) for t in topics], "m1": []}


def test_range_idle_members_when_more_members_than_partitions():
    subs = {f"c{i}": S(("t",)) for i in range(5)}
    assert assign("range", {"t": 3}, subs) == {"c0": [("t", 0)], "c1": [("t", 1)], "c2": [("t", 2)], "c3": [], "c4": []}


@pytest.mark.parametrize("assignor", list(ASSIGNORS))
def test_one_consumer_no_topic_and_nonexistent_topic(assignor):
    # RangeAssignorTest / RoundRobinAssignorTest / AbstractStickyAssignorTest
    #   .testOneConsumerNoTopic and .testOneConsumerNonexistentTopic
    assert assign(assignor, {}, {"consumer": S(())}) == {"consumer": []}
    assert assign(assignor, {}, {"consumer": S(("topic",))}) == {"consumer": []}
    assert assign(assignor, {"topic": 0}, {"consumer": S(("topic",))}) == {"consumer": []}


@pytest.mark.parametrize("assignor", list(ASSIGNORS))
def test_only_assigns_partitions_from_subscribed_topics(assignor):
    # *.testOnlyAssignsPartitionsFromSubscribedTopics
    result = assign(assignor, {"topic": 3, "other": 3}, {"consumer": S(("topic",))})
    assert result == {"consumer": parts("topic", 0, 1, 2)}


@pytest.mark.parametrize("assignor", list(ASSIGNORS))
def test_two_consumers_one_topic_one_partition(assignor):
    # *.testTwoConsumersOneTopicOnePartition: the first member (by id) gets it
    result = assign(assignor, {"topic": 1}, {"consumer2": S(("topic",)), "consumer1": S(("topic",))})
    assert result == {"consumer1": [("topic", 0)], "consumer2": []}


def test_range_multiple_consumers_mixed_topics():
    # RangeAssignorTest.testMultipleConsumersMixedTopics
    subs = {"consumer1": S(("topic1",)), "consumer2": S(("topic1", "topic2")), "consumer3": S(("topic1",))}
    assert assign("range", {"topic1": 3, "topic2": 2}, subs) == {
        "consumer1": [("topic1", 0)], "consumer2": [("topic1", 1), ("topic2", 0), ("topic2", 1)],
        "consumer3": [("topic1", 2)]}


def test_range_one_static_and_one_dynamic_consumer():
    # RangeAssignorTest.testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions: the static
    # member sorts first although its member id is higher
    subs = {"consumer-b": S(("topic1", "topic2"), instance_id="instance1"), "consumer-a": S(("topic1", "topic2"))}
    result = assign("range", {"topic1": 3, "topic2": 3}, subs)
    assert result["consumer-b"] == [("topic1", 0), ("topic1", 1), ("topic2", 0), ("topic2", 1)]
    assert result["consumer-a"] == [("topic1", 2), ("topic2", 2)]


def test_static_member_range_assignment_persistent():
    # RangeAssignorTest.testStaticMemberRangeAssignmentPersistent
    topics = ("topic1", "topic2")
    subs = {f"consumer{i}": S(topics, instance_id=f"instance{i}") for i in (1, 2, 3)}
    subs["consumer4"] = S(topics)
    expected = {"consumer1": [("topic1", 0), ("topic1", 1), ("topic2", 0)],
                "consumer2": [("topic1", 2), ("topic2", 1)],
                "consumer3": [("topic1", 3), ("topic2", 2)],
                "consumer4": [("topic1", 4), ("topic2", 3)]}
    assert assign("range", {"topic1": 5, "topic2": 4}, subs) == expected
    del subs["consumer4"]
    subs["consumer5"] = S(topics)   # a new dynamic member replaces consumer4
    expected["consumer5"] = expected.pop("consumer4")
    assert assign("range", {"topic1": 5, "topic2": 4}, subs) == expected


def test_static_member_range_assignment_persistent_after_member_id_changes():
    # RangeAssignorTest.testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges
    topics = ("topic1", "topic2")
    ppt = {"topic1": 5, "topic2": 5}
    before = {f"consumer{i}": S(topics, instance_id=f"instance{i}") for i in (1, 2, 3)}
    after = {"consumer1": before["consumer1"], "consumer5": before["consumer2"], "consumer4": before["consumer3"]}

    def by_instance(subs):
        return {subs[m].instance_id: tps for m, tps in assign("range", ppt, subs).items()}

    assert by_instance(before) == {
        "instance1": [("topic1", 0), ("topic1", 1), ("topic2", 0), ("topic2", 1)],
        "instance2": [("topic1", 2), ("topic1", 3), ("topic2", 2), ("topic2", 3)],
        "instance3": [("topic1", 4), ("topic2", 4)]}
    assert by_instance(after) == by_instance(before)


# ---------------------------------------------------------------------------------------------
# RoundRobinAssignor

def test_roundrobin_javadoc_example_equal_subscriptions():
    subs = {"C0": S(("t0", "t1")), "C1": S(("t0", "t1"))}
    assert assign("roundrobin", {"t0": 3, "t1": 3}, subs) == {
        "C0": [("t0", 0), ("t0", 2), ("t1", 1)], "C1": [("t0", 1), ("t1", 0), ("t1", 2)]}


def test_roundrobin_javadoc_example_unequal_subscriptions():
    subs = {"C0": S(("t0",)), "C1": S(("t0", "t1")), "C2": S(("t0", "t1", "t2"))}
    assert assign("roundrobin", {"t0": 1, "t1": 2, "t2": 3}, subs) == {
        "C0": [("t0", 0)], "C1": [("t1", 0)], "C2": [("t1", 1), ("t2", 0), ("t2", 1), ("t2", 2)]}


def test_roundrobin_multiple_consumers_mixed_topics():
    # RoundRobinAssignorTest.testMultipleConsumersMixedTopics
    subs = {"consumer1": S(("topic1",)), "consumer2": S(("topic1", "topic2")), "consumer3": S(("topic1",))}
    assert assign("roundrobin", {"topic1": 3, "topic2": 2}, subs) == {
        "consumer1": [("topic1", 0)], "consumer2": [("topic1", 1), ("topic2", 0), ("topic2", 1)],
        "consumer3": [("topic1", 2)]}


def test_static_member_roundrobin_assignment_persistent():
    # RoundRobinAssignorTest.testStaticMemberRoundRobinAssignmentPersistent
    topics = ("topic1", "topic2")
    subs = {f"consumer{i}": S(topics, instance_id=f"instance{i}") for i in (1, 2, 3)}
    subs["consumer4"] = S(topics)
    expected = {"consumer1": [("topic1", 0), ("topic2", 1)], "consumer2": [("topic1", 1), ("topic2", 2)],
                "consumer3": [("topic1", 2)], "consumer4": [("topic2", 0)]}
    assert assign("roundrobin", {"topic1": 3, "topic2": 3}, subs) == expected
    del subs["consumer4"]
    subs["consumer5"] = S(topics)
    expected["consumer5"] = expected.pop("consumer4")
    assert assign("roundrobin", {"topic1": 3, "topic2": 3}, subs) == expected


# ---------------------------------------------------------------------------------------------
# Sticky and CooperativeSticky: javadoc examples, spec B.4 and B.5

EX1_TOPICS = ("t0", "t1", "t2", "t3")
EX1_PPT = {t: 2 for t in EX1_TOPICS}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_sticky_javadoc_example1_initial_assignment(assignor):
    subs = {c: S(EX1_TOPICS) for c in ("C0", "C1", "C2")}
    assert assign(assignor, EX1_PPT, subs) == {
        "C0": [("t0", 0), ("t1", 1), ("t3", 0)], "C1": [("t0", 1), ("t2", 0), ("t3", 1)],
        "C2": [("t1", 0), ("t2", 1)]}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_sticky_javadoc_example1_after_c1_leaves(assignor):
    first = assign("sticky", EX1_PPT, {c: S(EX1_TOPICS) for c in ("C0", "C1", "C2")})
    subs = {c: S(EX1_TOPICS, tuple(first[c]), 1) for c in ("C0", "C2")}
    result = assign(assignor, EX1_PPT, subs)
    # The javadoc's property: every earlier assignment is preserved.
    assert set(first["C0"]) <= set(result["C0"]) and set(first["C2"]) <= set(result["C2"])
    # Spec B.4 "Surprise": the javadoc's exact placement (C0 += t2p0; C2 += t0p1, t3p1) comes from the
    # pre-2.6 algorithm. The current constrained path (unassigned t0p1, t2p0, t3p1 round-robin over
    # the two under-quota members, C0 filling up first) gives C0 += t0p1 and C2 += t2p0, t3p1.
    assert as_sets(result) == {"C0": {("t0", 0), ("t1", 1), ("t3", 0), ("t0", 1)},
                               "C2": {("t1", 0), ("t2", 1), ("t2", 0), ("t3", 1)}}
    assert as_sets(result) != {"C0": {("t0", 0), ("t1", 1), ("t3", 0), ("t2", 0)},
                               "C2": {("t1", 0), ("t2", 1), ("t0", 1), ("t3", 1)}}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_sticky_javadoc_example2_unequal_subscriptions(assignor):
    ppt = {"t0": 1, "t1": 2, "t2": 3}
    subs = {"C0": S(("t0",)), "C1": S(("t0", "t1")), "C2": S(("t0", "t1", "t2"))}
    first = assign(assignor, ppt, subs)
    assert first == {"C0": [("t0", 0)], "C1": [("t1", 0), ("t1", 1)], "C2": [("t2", 0), ("t2", 1), ("t2", 2)]}
    # C0 leaves: sticky keeps 5 of 6 partitions where they were
    after = assign(assignor, ppt, {c: S(subs[c].topics, tuple(first[c]), 1) for c in ("C1", "C2")})
    assert after == {"C1": [("t1", 0), ("t1", 1), ("t0", 0)], "C2": [("t2", 0), ("t2", 1), ("t2", 2)]}


@pytest.mark.parametrize("assignor,c3", [("sticky", [("topic", 0)]), ("cooperative-sticky", [])])
def test_owned_partition_invalidated_when_claimed_by_multiple_consumers_equal_partitions_per_consumer(assignor, c3):
    # StickyAssignorTest / CooperativeStickyAssignorTest
    #   .testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer
    t = ("topic",)
    subs = {"consumer1": S(t, (("topic", 0), ("topic", 1)), 1), "consumer2": S(t, (("topic", 0), ("topic", 2)), 1),
            "consumer3": S(t, (), 1)}
    result = assign(assignor, {"topic": 3}, subs)
    assert result == {"consumer1": [("topic", 1)], "consumer2": [("topic", 2)], "consumer3": c3}


@pytest.mark.parametrize("assignor,c3", [("sticky", [("topic", 0)]), ("cooperative-sticky", [])])
def test_owned_partition_invalidated_when_claimed_by_multiple_consumers_unequal_partitions_per_consumer(assignor, c3):
    # CooperativeStickyAssignorTest (and StickyAssignorTest)
    #   .testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer
    # spec B.4: c1 = [p1, p3], c2 = [p2], c3 = [] (cooperative: p0 is held back until both revoke it)
    t = ("topic",)
    subs = {"consumer1": S(t, (("topic", 0), ("topic", 1)), 1), "consumer2": S(t, (("topic", 0), ("topic", 2)), 1),
            "consumer3": S(t, (), 1)}
    result = assign(assignor, {"topic": 4}, subs)
    assert result == {"consumer1": [("topic", 1), ("topic", 3)], "consumer2": [("topic", 2)], "consumer3": c3}


def test_b5_worked_example_two_to_three_members():
    ppt = {"t": 6}
    t = ("t",)
    p = lambda *ps: {("t", i) for i in ps}   # noqa: E731
    gen1_subs = {"C1": S(t), "C2": S(t)}
    # Generation 1
    for assignor in ("sticky", "cooperative-sticky", "roundrobin"):
        assert as_sets(assign(assignor, ppt, gen1_subs)) == {"C1": p(0, 2, 4), "C2": p(1, 3, 5)}
    assert as_sets(assign("range", ppt, gen1_subs)) == {"C1": p(0, 1, 2), "C2": p(3, 4, 5)}

    # C3 joins. Eager range: everything recomputed, 3 partitions change owner.
    three = {"C1": S(t), "C2": S(t), "C3": S(t)}
    assert as_sets(assign("range", ppt, three)) == {"C1": p(0, 1), "C2": p(2, 3), "C3": p(4, 5)}

    # Eager sticky: the members' userData carries their generation-1 assignment; 2 partitions move.
    gen1 = assign("sticky", ppt, gen1_subs)
    sticky_subs = {"C1": S(t, tuple(gen1["C1"]), 1), "C2": S(t, tuple(gen1["C2"]), 1), "C3": S(t)}
    assert as_sets(assign("sticky", ppt, sticky_subs)) == {"C1": p(0, 2), "C2": p(1, 3), "C3": p(4, 5)}

    # Cooperative sticky, generation 2: p4 and p5 are withheld (their owners must revoke them first).
    gen2 = assign("cooperative-sticky", ppt, sticky_subs)
    assert as_sets(gen2) == {"C1": p(0, 2), "C2": p(1, 3), "C3": set()}
    assert withheld(ppt, sticky_subs) == {("t", 4): "C3", ("t", 5): "C3"}
    revoked = {m: set(sticky_subs[m].owned) - set(gen2[m]) for m in gen2}
    assert revoked == {"C1": p(4), "C2": p(5), "C3": set()}   # C1 and C2 revoke, then rejoin

    # Generation 3: the revoking members rejoin without p4/p5; C3 receives them; nothing else moves.
    gen3_subs = {m: S(t, tuple(gen2[m]), 2) for m in gen2}
    gen3 = assign("cooperative-sticky", ppt, gen3_subs)
    assert as_sets(gen3) == {"C1": p(0, 2), "C2": p(1, 3), "C3": p(4, 5)}
    assert withheld(ppt, gen3_subs) == {}


# ---------------------------------------------------------------------------------------------
# Replays of AbstractStickyAssignorTest / StickyAssignorTest / CooperativeStickyAssignorTest.
# Parametrised over both sticky assignors; the cooperative one runs until stable as Kafka's
# CooperativeStickyAssignorTest.verifyValidityAndBalance does before the test's assertions.

@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_multiple_consumers_mixed_topic_subscriptions(assignor):
    # AbstractStickyAssignorTest.testMultipleConsumersMixedTopicSubscriptions (general path)
    ppt = {"topic1": 3, "topic2": 2}
    subs = {"consumer1": S(("topic1",)), "consumer2": S(("topic1", "topic2")), "consumer3": S(("topic1",))}
    result = assign(assignor, ppt, subs)
    assert result == {"consumer1": [("topic1", 0), ("topic1", 2)], "consumer2": [("topic2", 0), ("topic2", 1)],
                      "consumer3": [("topic1", 1)]}
    check_valid_and_balanced(ppt, subs, result)


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_consumer_owning_min_quota_expected_max_quota(assignor):
    # AbstractStickyAssignorTest.testConsumerOwningMinQuotaExpectedMaxQuota
    ppt = {"topic1": 2, "topic2": 3}
    t = ("topic1", "topic2")
    subs = {"consumer1": S(t, (("topic1", 0), ("topic2", 1)), 1), "consumer2": S(t, (("topic1", 1), ("topic2", 2)), 1)}
    assert withheld(ppt, subs) == {}
    result, subs = run_until_stable(assignor, ppt, subs)
    assert result == {"consumer1": [("topic1", 0), ("topic2", 1), ("topic2", 0)],
                      "consumer2": [("topic1", 1), ("topic2", 2)]}
    check_valid_and_balanced(ppt, subs, result)


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_max_quota_consumer_more_than_num_expected_max_capacity_members(assignor):
    # AbstractStickyAssignorTest.testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers.
    # consumer1 and consumer2 both own maxQuota (2) partitions but only one may keep 2: the HashMap
    # tie of spec B.4's caveat. Java visits consumer2 first (String.hashCode spreads to buckets 12,
    # 11, 10 for consumer1, 2, 3 and a HashMap iterates by bucket), so in Kafka consumer2 keeps two
    # and consumer3 takes topic2-0 from consumer1. kafkasim visits members in id order, so the roles
    # of consumer1 and consumer2 are exchanged: the same result up to that swap.
    ppt = {"topic1": 2, "topic2": 2}
    t = ("topic1", "topic2")
    subs = {"consumer1": S(t, (("topic1", 0), ("topic2", 0)), 1), "consumer2": S(t, (("topic1", 1), ("topic2", 1)), 1),
            "consumer3": S(t, (), 1)}
    assert withheld(ppt, subs) == {("topic2", 1): "consumer3"}     # Kafka: {topic2-0: consumer3}
    result, subs = run_until_stable(assignor, ppt, subs)
    check_valid_and_balanced(ppt, subs, result)
    assert result == {"consumer1": [("topic1", 0), ("topic2", 0)], "consumer2": [("topic1", 1)],
                      "consumer3": [("topic2", 1)]}
    # Kafka's exact expectation, once the member Java visits first also sorts first:
    swapped = {"consumer1": S(t, (("topic1", 0), ("topic2", 0)), 1), "consumer0": S(t, (("topic1", 1), ("topic2", 1)), 1),
               "consumer3": S(t, (), 1)}
    assert withheld(ppt, swapped) == {("topic2", 0): "consumer3"}
    result, _ = run_until_stable(assignor, ppt, swapped)
    assert result == {"consumer0": [("topic1", 1), ("topic2", 1)], "consumer1": [("topic1", 0)],
                      "consumer3": [("topic2", 0)]}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_all_consumers_are_under_min_quota(assignor):
    # AbstractStickyAssignorTest.testAllConsumersAreUnderMinQuota
    ppt = {"topic1": 2, "topic2": 3}
    t = ("topic1", "topic2")
    subs = {"consumer1": S(t, (("topic1", 0),), 1), "consumer2": S(t, (("topic1", 1),), 1), "consumer3": S(t, (), 1)}
    assert withheld(ppt, subs) == {}
    result = assign(assignor, ppt, subs)
    assert result == {"consumer1": [("topic1", 0), ("topic2", 1)], "consumer2": [("topic1", 1), ("topic2", 2)],
                      "consumer3": [("topic2", 0)]}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_add_remove_consumer_one_topic(assignor):
    # AbstractStickyAssignorTest.testAddRemoveConsumerOneTopic
    ppt = {"topic": 3}
    t = ("topic",)
    first = assign(assignor, ppt, {"consumer1": S(t)})
    assert first == {"consumer1": parts("topic", 0, 1, 2)}
    subs = {"consumer1": S(t, tuple(first["consumer1"]), 1), "consumer2": S(t, (), 1)}
    assert withheld(ppt, subs) == {("topic", 2): "consumer2"}
    second, subs = run_until_stable(assignor, ppt, subs)
    assert second == {"consumer1": parts("topic", 0, 1), "consumer2": parts("topic", 2)}
    third = assign(assignor, ppt, {"consumer2": S(t, tuple(second["consumer2"]), 1)})
    assert as_sets(third) == {"consumer2": set(parts("topic", 0, 1, 2))}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_add_remove_two_consumers_two_topics(assignor):
    # AbstractStickyAssignorTest.testAddRemoveTwoConsumersTwoTopics (exact lists, including order)
    ppt = {"topic1": 3, "topic2": 4}
    t = ("topic1", "topic2")
    first = assign(assignor, ppt, {"consumer1": S(t), "consumer2": S(t)})
    assert first == {"consumer1": [("topic1", 0), ("topic1", 2), ("topic2", 1), ("topic2", 3)],
                     "consumer2": [("topic1", 1), ("topic2", 0), ("topic2", 2)]}
    subs = {"consumer1": S(t, tuple(first["consumer1"]), 1), "consumer2": S(t, tuple(first["consumer2"]), 1),
            "consumer3": S(t, (), 1), "consumer4": S(t, (), 1)}
    assert withheld(ppt, subs) == {("topic1", 2): "consumer3", ("topic2", 3): "consumer3",
                                   ("topic2", 2): "consumer4"}
    second, subs = run_until_stable(assignor, ppt, subs)
    check_valid_and_balanced(ppt, subs, second)
    assert second == {"consumer1": [("topic1", 0), ("topic2", 1)], "consumer2": [("topic2", 0), ("topic1", 1)],
                      "consumer3": [("topic1", 2), ("topic2", 3)], "consumer4": [("topic2", 2)]}
    subs = {"consumer3": S(t, tuple(second["consumer3"]), 1), "consumer4": S(t, tuple(second["consumer4"]), 1)}
    assert withheld(ppt, subs) == {}
    third = assign(assignor, ppt, subs)
    assert third == {"consumer3": [("topic1", 2), ("topic2", 3), ("topic1", 0), ("topic2", 1)],
                     "consumer4": [("topic2", 2), ("topic1", 1), ("topic2", 0)]}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_poor_roundrobin_assignment_scenario(assignor):
    # AbstractStickyAssignorTest.testPoorRoundRobinAssignmentScenario: round robin leaves consumer3
    # empty; the sticky assignors balance 2/2/2/2.
    ppt = {f"topic{i}": (i % 2) + 1 for i in range(1, 6)}
    everything = tuple(ppt)
    odd = ("topic1", "topic3", "topic5")
    subs = {"consumer1": S(everything), "consumer2": S(odd), "consumer3": S(odd), "consumer4": S(everything)}
    rr = assign("roundrobin", ppt, subs)
    assert rr["consumer3"] == []
    result = assign(assignor, ppt, subs)
    check_valid_and_balanced(ppt, subs, result)
    assert sorted(len(v) for v in result.values()) == [2, 2, 2, 2]


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_reassignment_after_one_consumer_leaves(assignor):
    # AbstractStickyAssignorTest.testReassignmentAfterOneConsumerLeaves: topic ti has i partitions and
    # consumer ci subscribes to t1..ti (general path). Kafka then asserts isSticky(): no two members
    # swap partitions of one topic. Here, more strictly, no remaining member loses a partition
    # except to balance, so every member keeps what it had unless it now holds the most.
    ppt = {f"t{i:02d}": i for i in range(1, 20)}
    subs = {f"c{i:02d}": S(tuple(f"t{j:02d}" for j in range(1, i + 1))) for i in range(1, 20)}
    first = assign(assignor, ppt, subs)
    check_valid_and_balanced(ppt, subs, first)
    subs = {m: S(s.topics, tuple(first[m]), 1) for m, s in subs.items() if m != "c10"}
    second, subs2 = run_until_stable(assignor, ppt, subs)
    check_valid_and_balanced(ppt, subs2, second)
    moved = {}
    for m, tps in second.items():
        for tp in tps:
            prev = next((o for o, ps in first.items() if tp in ps), None)
            if prev not in (m, "c10"):
                moved.setdefault(tp[0], set()).add((prev, m))
    for topic, pairs in moved.items():
        assert not any((b, a) in pairs for a, b in pairs), f"partitions of {topic} swapped between members"


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_all_consumers_reach_expected_quota_and_are_considered_filled(assignor):
    # AbstractStickyAssignorTest.testAllConsumersReachExpectedQuotaAndAreConsideredFilled
    t = ("topic",)
    subs = {"consumer1": S(t, (("topic", 0), ("topic", 1)), 1), "consumer2": S(t, (("topic", 2),), 1),
            "consumer3": S(t, (), 1)}
    assert withheld({"topic": 4}, subs) == {}
    assert assign(assignor, {"topic": 4}, subs) == {
        "consumer1": parts("topic", 0, 1), "consumer2": parts("topic", 2), "consumer3": parts("topic", 3)}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
@pytest.mark.parametrize("stale_generation", [9, None])
def test_owned_partitions_invalidated_for_consumer_with_stale_or_no_generation(assignor, stale_generation):
    # AbstractStickyAssignorTest.testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration and
    # ...WithNoGeneration: both claim the same partitions; the generation-10 member keeps them.
    ppt = {"topic": 3, "topic2": 3}
    t = ("topic", "topic2")
    claim = (("topic", 0), ("topic", 2), ("topic2", 1))
    subs = {"consumer1": S(t, claim, 10), "consumer2": S(t, claim, stale_generation)}
    assert withheld(ppt, subs) == {}
    assert as_sets(assign(assignor, ppt, subs)) == {
        "consumer1": set(claim), "consumer2": {("topic", 1), ("topic2", 0), ("topic2", 2)}}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_partitions_transferring_ownership_include_partition_claimed_by_multiple_consumers(assignor):
    # AbstractStickyAssignorTest.testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration
    t = ("topic",)
    subs = {"consumer1": S(t, (("topic", 0), ("topic", 1)), 1), "consumer2": S(t, (("topic", 0), ("topic", 2)), 1),
            "consumer3": S(t, (), 1)}
    assert withheld({"topic": 3}, subs) == {("topic", 0): "consumer3"}
    result, _ = run_until_stable(assignor, {"topic": 3}, subs)
    assert result == {"consumer1": [("topic", 1)], "consumer2": [("topic", 2)], "consumer3": [("topic", 0)]}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_ensure_partitions_assigned_to_highest_generation(assignor):
    # AbstractStickyAssignorTest.testEnsurePartitionsAssignedToHighestGeneration
    ppt = {"topic": 3, "topic2": 3, "topic3": 3}
    t = tuple(ppt)
    subs = {"consumer1": S(t, (("topic", 0), ("topic2", 0), ("topic3", 0)), 10),
            "consumer2": S(t, (("topic", 1), ("topic2", 1), ("topic3", 1)), 9),
            "consumer3": S(t, (("topic2", 1), ("topic3", 0), ("topic3", 2)), 8)}
    assert withheld(ppt, subs) == {}
    assert as_sets(assign(assignor, ppt, subs)) == {
        "consumer1": {("topic", 0), ("topic2", 0), ("topic3", 0)},
        "consumer2": {("topic", 1), ("topic2", 1), ("topic3", 1)},
        "consumer3": {("topic", 2), ("topic2", 2), ("topic3", 2)}}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_no_reassignment_on_current_members(assignor):
    # AbstractStickyAssignorTest.testNoReassignmentOnCurrentMembers: uncontested claims of older
    # generations (9, 8, 7) still count (Kafka 3.6+, KAFKA-14639), so the new member only gets
    # the three free partitions. (Spec B.4's older rule would drop the gen-8 and gen-7 claims.)
    ppt = {"topic": 3, "topic1": 3, "topic2": 3, "topic3": 3}
    t = ("topic", "topic2", "topic3", "topic1")
    subs = {"consumer1": S(t, (), None),
            "consumer2": S(t, (("topic", 0), ("topic2", 0), ("topic1", 0)), 9),
            "consumer3": S(t, (("topic3", 2), ("topic2", 2), ("topic1", 1)), 8),
            "consumer4": S(t, (("topic3", 1), ("topic", 1), ("topic", 2)), 7)}
    assert withheld(ppt, subs) == {}
    result = assign(assignor, ppt, subs)
    assert set(result["consumer1"]) == {("topic1", 2), ("topic2", 1), ("topic3", 0)}
    for m in ("consumer2", "consumer3", "consumer4"):
        assert set(result[m]) == set(subs[m].owned)


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_owned_partitions_invalidated_for_consumer_with_multiple_generation(assignor):
    # AbstractStickyAssignorTest.testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration
    ppt = {"topic": 3, "topic2": 3}
    t = ("topic", "topic2")
    subs = {"consumer1": S(t, (("topic", 0), ("topic2", 1), ("topic", 1)), 10),
            "consumer2": S(t, (("topic", 0), ("topic2", 1), ("topic2", 2)), 8)}
    assert withheld(ppt, subs) == {}
    assert as_sets(assign(assignor, ppt, subs)) == {
        "consumer1": {("topic", 0), ("topic2", 1), ("topic", 1)},
        "consumer2": {("topic", 2), ("topic2", 2), ("topic2", 0)}}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_subscription_not_equal_and_assign_same_partition_with_3_generation(assignor):
    # AbstractStickyAssignorTest.testSubscriptionNotEqualAndAssignSamePartitionWith3Generation
    ppt = {"topic": 6, "topic1": 1}
    for g1, g2, g3 in [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1)]:
        subs = {"consumer1": S(("topic",), parts("topic", 0, 2), g1),
                "consumer2": S(("topic",), parts("topic", 1, 2, 3), g2),
                "consumer3": S(("topic",), parts("topic", 2, 4, 5), g3),
                "consumer4": S(("topic1",), parts("topic1", 0), 2)}
        result = assign(assignor, ppt, subs)
        flat = [tp for tps in result.values() for tp in tps]
        assert len(flat) == len(set(flat))
        if assignor == "sticky":
            assert all(1 <= len(v) <= 2 for v in result.values())
            # topic-2 goes to its highest-generation claimer
            winner = ["consumer1", "consumer2", "consumer3"][[g1, g2, g3].index(3)]
            assert ("topic", 2) in result[winner]
        else:
            check_cooperative(subs, result)


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
@pytest.mark.parametrize("all_equal", [True, False])
def test_assignment_with_conflicting_previous_generations(assignor, all_equal):
    # StickyAssignorTest.testAssignmentWithConflictingPreviousGenerations
    ppt = {"topic": 4, "topic2": 4, "topic3": 4}
    every = ("topic", "topic2", "topic3")
    c1_topics = every if all_equal else ("topic",)
    c2_topics = every if all_equal else ("topic", "topic2")
    c1 = (parts("topic", 0, 1, 2) + parts("topic2", 2, 3) + parts("topic3", 0)) if all_equal else parts("topic", 0, 1, 2, 3)
    c2 = parts("topic", 0, 1) + parts("topic2", 0, 1, 2, 3)
    c3 = parts("topic", 2, 3) + parts("topic3", 0, 1, 2, 3)
    subs = {"consumer1": S(c1_topics, tuple(c1), 1), "consumer2": S(c2_topics, tuple(c2), 2),
            "consumer3": S(every, tuple(c3), 2)}
    result, subs2 = run_until_stable(assignor, ppt, subs)
    assert sorted(len(v) for v in result.values()) == [4, 4, 4]
    if assignor == "sticky":   # (the cooperative run's later rounds report newer ownership)
        assert set(result["consumer2"]) <= set(c2) and set(result["consumer3"]) <= set(c3)
    check_valid_and_balanced(ppt, subs2, result)


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
@pytest.mark.parametrize("all_equal", [True, False])
def test_assignment_with_multiple_generations1(assignor, all_equal):
    # StickyAssignorTest.testAssignmentWithMultipleGenerations1
    ppt = {"topic": 6, "topic2": 6}
    every = ("topic", "topic2")
    c2_topics = every if all_equal else ("topic",)
    subs = {"consumer1": S(every), "consumer2": S(c2_topics), "consumer3": S(every)}
    r1, _ = run_until_stable(assignor, ppt, subs)
    assert [len(r1[c]) for c in ("consumer1", "consumer2", "consumer3")] == [4, 4, 4]
    check_valid_and_balanced(ppt, subs, r1)

    subs = {"consumer1": S(every, tuple(r1["consumer1"]), 1), "consumer2": S(c2_topics, tuple(r1["consumer2"]), 1)}
    r2, _ = run_until_stable(assignor, ppt, subs)
    assert len(r2["consumer1"]) == 6 and len(r2["consumer2"]) == 6
    if all_equal:
        assert set(r1["consumer1"]) <= set(r2["consumer1"])
    assert set(r1["consumer2"]) <= set(r2["consumer2"])
    assert set(r2["consumer2"]) & set(r1["consumer3"])

    # consumer1 leaves; consumer3 comes back with its generation-1 assignment, which conflicts
    # with consumer2's generation-2 one: consumer2's claims win.
    subs = {"consumer2": S(c2_topics, tuple(r2["consumer2"]), 2), "consumer3": S(every, tuple(r1["consumer3"]), 1)}
    r3, subs3 = run_until_stable(assignor, ppt, subs)
    assert len(r3["consumer2"]) == 6 and len(r3["consumer3"]) == 6
    assert not set(r3["consumer2"]) & set(r3["consumer3"])
    check_valid_and_balanced(ppt, subs3, r3)


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_add_remove_topic_two_consumers(assignor):
    # AbstractStickyAssignorTest.testAddRemoveTopicTwoConsumers
    ppt = {"topic": 3}
    r1 = assign(assignor, ppt, {"consumer1": S(("topic",)), "consumer2": S(("topic",))})
    assert sorted(len(v) for v in r1.values()) == [1, 2]
    ppt = {"topic": 3, "topic2": 3}
    both = ("topic", "topic2")
    subs = {m: S(both, tuple(r1[m]), 1) for m in r1}
    assert withheld(ppt, subs) == {}
    r2 = assign(assignor, ppt, subs)
    assert all(len(v) == 3 and set(r1[m]) <= set(v) for m, v in r2.items())
    ppt = {"topic2": 3}
    subs = {m: S(("topic2",), tuple(r2[m]), 1) for m in r2}
    assert withheld(ppt, subs) == {}
    r3 = assign(assignor, ppt, subs)
    assert sorted(len(v) for v in r3.values()) == [1, 2]
    assert all(set(v) <= set(r2[m]) for m, v in r3.items())


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_assignment_updated_for_deleted_topic_and_only_subscribed_topic_deleted(assignor):
    # AbstractStickyAssignorTest.testAssignmentUpdatedForDeletedTopic and
    # .testNoExceptionThrownWhenOnlySubscribedTopicDeleted
    result = assign(assignor, {"topic1": 1, "topic3": 100}, {"consumer": S(("topic1", "topic2", "topic3"))})
    assert len(result["consumer"]) == 101
    first = assign(assignor, {"topic": 3}, {"consumer": S(("topic",))})
    assert assign(assignor, {}, {"consumer": S(("topic",), tuple(first["consumer"]), 1)}) == {"consumer": []}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_stickiness_when_the_potential_leader_leaves(assignor):
    # AbstractStickyAssignorTest.testStickiness
    t = ("topic1",)
    subs = {f"consumer{i}": S(t) for i in range(1, 5)}
    first = assign(assignor, {"topic1": 3}, subs)
    assert all(len(v) <= 1 for v in first.values())
    subs = {m: S(t, tuple(first[m]), 1) for m in ("consumer2", "consumer3", "consumer4")}
    assert withheld({"topic1": 3}, subs) == {}
    second = assign(assignor, {"topic1": 3}, subs)
    assert all(len(v) == 1 for v in second.values())
    assert all(set(first[m]) <= set(second[m]) for m in second)


# ---------------------------------------------------------------------------------------------
# Property tests

MEMBER_POOL = ["c0", "c1", "c2", "c10", "consumer-1-aa", "consumer-10-ff", "consumer-2-0b", "B", "a", "é"]
TOPIC_POOL = ["t0", "t1", "t2", "t10"]
GENERATIONS = [None, -1, 1, 2, 3]


@st.composite
def groups(draw, equal=None, conflicts=True):
    """(partitions_per_topic, subscriptions): random topics, members (some static), subscriptions
    (equal or not), and previous ownership with random generations (optionally with conflicts)."""
    topics = draw(st.lists(st.sampled_from(TOPIC_POOL), min_size=1, max_size=4, unique=True))
    ppt = {t: draw(st.integers(0, 7)) for t in topics}
    subscribable = topics + ["ghost"]   # "ghost" has no metadata
    members = draw(st.lists(st.sampled_from(MEMBER_POOL), min_size=1, max_size=7, unique=True))
    equal = draw(st.booleans()) if equal is None else equal
    common = draw(st.lists(st.sampled_from(subscribable), min_size=1, unique=True))
    topic_lists = {m: common if equal else draw(st.lists(st.sampled_from(subscribable), unique=True))
                   for m in members}
    all_partitions = [(t, p) for t in topics for p in range(ppt[t])]
    owned = {m: [] for m in members}
    for tp in all_partitions:   # at most one owner per partition ...
        who = draw(st.integers(-1, len(members) - 1))
        if who >= 0:
            owned[members[who]].append(tp)
    if conflicts and all_partitions:   # ... plus some contested claims
        for m, tp in draw(st.lists(st.tuples(st.sampled_from(members), st.sampled_from(all_partitions)), max_size=6)):
            if tp not in owned[m]:
                owned[m].append(tp)
    subs = {}
    for i, m in enumerate(members):
        static = draw(st.booleans())
        subs[m] = S(tuple(topic_lists[m]), tuple(draw(st.permutations(owned[m]))),
                    draw(st.sampled_from(GENERATIONS)), f"inst-{len(members) - i}" if static else None)
    return ppt, subs


def subscribed_partitions(ppt, subs):
    return {(t, p) for s in subs.values() for t in s.topics for p in range(ppt.get(t, 0))}


@settings(max_examples=300)
@given(groups(), st.sampled_from(["range", "roundrobin", "sticky"]))
def test_property_eager_assignors_assign_every_subscribed_partition_exactly_once(group, assignor):
    ppt, subs = group
    result = assign(assignor, ppt, subs)
    assert list(result) == sorted(subs, key=lambda m: m.encode("utf-16-be"))
    flat = [tp for tps in result.values() for tp in tps]
    assert len(flat) == len(set(flat))
    assert set(flat) == subscribed_partitions(ppt, subs)
    for m, tps in result.items():
        assert all(t in subs[m].topics for t, _ in tps)


@settings(max_examples=300)
@given(groups())
def test_property_cooperative_sticky_never_assigns_a_partition_still_claimed_elsewhere(group):
    ppt, subs = group
    result = assign("cooperative-sticky", ppt, subs)
    flat = [tp for tps in result.values() for tp in tps]
    assert len(flat) == len(set(flat))
    assert set(flat) <= subscribed_partitions(ppt, subs)
    for m, tps in result.items():
        assert all(t in subs[m].topics for t, _ in tps)
        for tp in tps:
            if tp not in subs[m].owned:   # a new owner only if no other member still claims it
                assert not any(tp in s.owned for o, s in subs.items() if o != m), (m, tp)
    # it is the sticky target minus partitions withheld from their new owner
    target = assign("sticky", ppt, subs)
    for m in subs:
        assert set(result[m]) <= set(target[m])
        for tp in set(target[m]) - set(result[m]):
            assert any(tp in s.owned for o, s in subs.items() if o != m)


@settings(max_examples=200)
@given(groups())
def test_property_cooperative_sticky_converges_to_a_valid_balanced_assignment(group):
    # CooperativeStickyAssignorTest.verifyValidityAndBalance: at most 4 follow-up rebalances
    ppt, subs = group
    result, last = run_until_stable("cooperative-sticky", ppt, subs)
    check_valid_and_balanced(ppt, last, result)


@settings(max_examples=300)
@given(groups(equal=True), st.sampled_from(["roundrobin", "sticky"]))
def test_property_balanced_when_all_subscriptions_are_equal(group, assignor):
    ppt, subs = group
    assert fully_balanced(assign(assignor, ppt, subs))


@settings(max_examples=300)
@given(groups(equal=False))
def test_property_sticky_general_path_cannot_be_improved_by_one_move(group):
    ppt, subs = group
    check_valid_and_balanced(ppt, subs, assign("sticky", ppt, subs))


@settings(max_examples=300)
@given(groups(equal=True, conflicts=False), st.sampled_from(STICKY_FAMILY))
def test_property_members_keep_min_of_owned_and_min_quota(group, assignor):
    ppt, subs = group
    topics = set(next(iter(subs.values())).topics)
    total = sum(n for t, n in ppt.items() if t in topics)
    min_quota = total // len(subs)
    result = assign(assignor, ppt, subs)
    for m, s in subs.items():
        # uncontested claims on subscribed topics count, whatever their generation
        owned = {tp for tp in s.owned if tp[0] in topics}
        assert len(owned & set(result[m])) >= min(len(owned), min_quota), m


@settings(max_examples=200)
@given(groups(), st.sampled_from(list(ASSIGNORS)), st.randoms(use_true_random=False))
def test_property_deterministic_and_independent_of_dict_order(group, assignor, rnd):
    ppt, subs = group
    first = assign(assignor, ppt, subs)
    assert assign(assignor, ppt, subs) == first
    members, topics = list(subs), list(ppt)
    rnd.shuffle(members)
    rnd.shuffle(topics)
    again = assign(assignor, {t: ppt[t] for t in topics}, {m: subs[m] for m in members})
    assert list(again.items()) == list(first.items())


def test_large_group_smoke():
    # 1,000 members x 10,000 partitions, equal and unequal subscriptions: valid and balanced
    # (no timing assertion; see the module report for timings)
    rng = random.Random(7)
    topics = [f"topic-{i:03d}" for i in range(100)]
    ppt = {t: 100 for t in topics}
    members = [f"consumer-{i}-{rng.getrandbits(32):08x}" for i in range(1000)]
    equal = {m: S(tuple(topics)) for m in members}
    for assignor in ("roundrobin", "sticky", "cooperative-sticky"):
        assert fully_balanced(assign(assignor, ppt, equal))
    unequal = {m: S(tuple(rng.sample(topics, rng.randint(5, 30)))) for m in members}
    check_valid_and_balanced(ppt, unequal, assign("sticky", ppt, unequal))


# -- mutation survivors: behaviours no test pinned down (make mutation) ---------------------------
@pytest.mark.parametrize("assignor", ["range", "roundrobin"])
def test_a_topic_nobody_subscribes_to_does_not_stop_the_topics_after_it(assignor):
    """Topic "a" sorts first and has no subscriber: the assignor skips it and still assigns "b".
    `assign` drops "a" before the assignor runs, so the table entry is also called with it."""
    subs = {"m-1": Subscription(("b",)), "m-2": Subscription(("b",))}
    expected = {"m-1": [("b", 0)], "m-2": [("b", 1)]}
    assert assign(assignor, {"a": 2, "b": 2}, subs) == expected
    assert ASSIGNORS[assignor]({"a": 2, "b": 2}, subs, (3, 9)) == expected


def test_member_ids_sort_in_javas_utf16_order():
    """Java's String.compareTo compares UTF-16 units: U+1F600 (surrogates D83D DE00) sorts before
    U+FFFD, where Python's code-point order puts it after. Range gives the first member in Java's
    order the first partitions."""
    first, second = "c-\U0001F600", "c-\uFFFD"
    subs = {second: Subscription(("t",)), first: Subscription(("t",))}
    assert member_order(subs) == [first, second]
    assert assign("range", {"t": 2}, subs) == {second: [("t", 1)], first: [("t", 0)]}


def test_roundrobin_deals_topics_in_javas_utf16_order():
    """RoundRobinAssignor walks the topics sorted (`new TreeSet<>(topics)` of topic names, Java's
    String.compareTo): "t-\U0001F600" (surrogates D83D DE00) before "t-\uFFFD", where Python's
    code-point order puts it after; the first topic's partition goes to the first member."""
    first, second = "t-\U0001F600", "t-\uFFFD"
    subs = {"m-1": Subscription((first, second)), "m-2": Subscription((first, second))}
    assert assign("roundrobin", {second: 1, first: 1}, subs) == {"m-1": [(first, 0)], "m-2": [(second, 0)]}


def test_a_subscription_of_the_wrong_type_is_named():
    with pytest.raises(TypeError, match=r"^subscription of member 'm-1' must be a Subscription, got tuple$"):
        assign("range", {"t": 1}, {"m-1": ("t",)})


def test_an_unknown_assignor_without_a_near_name_gets_no_hint():
    with pytest.raises(ConfigError) as e:
        assignor_name("zzzzzzzz")
    assert str(e.value).endswith("such as org.apache.kafka.clients.consumer.RangeAssignor.")


@pytest.mark.parametrize("count", [-1, True, 2.0, "3"])
def test_a_partition_count_that_is_not_an_int_of_at_least_0_is_named(count):
    with pytest.raises(ValueError) as e:
        assign("range", {"t": count}, {"m-1": Subscription(("t",))})
    assert str(e.value) == f"partition count of topic 't' must be an int >= 0, got {count!r}"


def test_owned_partitions_given_as_lists_are_stored_as_tuples():
    """Subscription turns `owned` into a tuple of (topic, int) pairs, so a claim written as a list
    (as JSON gives it) still counts: C0 keeps t0-1, C1 gets t0-0 (path 1, minQuota 1, by hand)."""
    c0 = S(("t0",), [["t0", 1]], 1)
    assert c0.owned == (("t0", 1),)
    assert c0 == S(("t0",), (("t0", 1),), 1)
    assert assign("sticky", {"t0": 2}, {"C0": c0, "C1": S(("t0",))}) == {"C0": [("t0", 1)], "C1": [("t0", 0)]}


def test_sticky_general_path_keeps_moving_from_the_same_holder_before_the_next_topic():
    """Path 2 (C's subscription differs): A owns all of t1 and t2, B nothing. Balancing takes t1
    first (topics by subscriber count, then name) and keeps taking from A, still the most loaded
    holder, until A and B have 4 each: B gets all of t1 and t2 stays with A (worked out by hand
    from the module docstring). Leaving A out after one move would hand B 1 of t1 and 3 of t2."""
    owned = tuple(parts("t1", 0, 1, 2, 3) + parts("t2", 0, 1, 2, 3))
    subs = {"A": S(("t1", "t2"), owned, 1), "B": S(("t1", "t2")), "C": S(("t3",))}
    got = assign("sticky", {"t1": 4, "t2": 4, "t3": 1}, subs)
    assert as_sets(got) == {"A": set(parts("t2", 0, 1, 2, 3)), "B": set(parts("t1", 0, 1, 2, 3)), "C": {("t3", 0)}}


def test_a_case_variant_name_is_suggested_first_and_at_most_three_close_names():
    with pytest.raises(ConfigError, match=r"Did you mean 'StickyAssignor' or 'sticky'\?$"):
        assignor_name("stickyASSIGNOR")   # the case-insensitive match first, then difflib's
    with pytest.raises(ConfigError, match=r"Did you mean 'org\.apache\.kafka\.clients\.consumer\.RangeAssignor' or "
                                          r"'org\.apache\.kafka\.clients\.consumer\.StickyAssignor' or "
                                          r"'org\.apache\.kafka\.clients\.consumer\.RoundRobinAssignor'\?$"):
        assignor_name("org.apache.kafka.clients.consumer.Assignor")


def test_sticky_keeps_at_most_the_quota_when_partitions_divide_evenly():
    """4 partitions, 2 members: minQuota = maxQuota = 2, so a member that owned 3 keeps its first 2."""
    got = assign("sticky", {"t": 4}, {"a": Subscription(("t",), (("t", 0), ("t", 1), ("t", 2))),
                                      "b": Subscription(("t",))})
    assert got == {"a": [("t", 0), ("t", 1)], "b": [("t", 2), ("t", 3)]}


def test_a_claim_on_a_partition_past_the_topics_end_is_dropped():
    """t has partitions 0-2: a's claim on t-3 is not valid, so a keeps t-0 only (minQuota 1), the
    unfilled b takes t-1, then a (first of the members at minQuota) the extra t-2."""
    got = assign("sticky", {"t": 3}, {"a": Subscription(("t",), (("t", 0), ("t", 3))), "b": Subscription(("t",))})
    assert got == {"a": [("t", 0), ("t", 2)], "b": [("t", 1)]}


def test_the_general_sticky_path_leaves_a_topic_nobody_subscribes_to():
    """Called directly (as `assign` never does: it drops unsubscribed topics first), the
    general path assigns nothing of a topic without subscribers."""
    got = ASSIGNORS["sticky"]({"a": 2, "b": 2, "z": 3}, {"m1": Subscription(("a", "b")), "m2": Subscription(("a",))},
                              (3, 7))
    assert got == {"m1": [("b", 0), ("b", 1)], "m2": [("a", 0), ("a", 1)]}


@pytest.mark.parametrize("assignor", STICKY_FAMILY)
def test_the_general_sticky_path_takes_a_subscribed_topic_with_no_partitions(assignor):
    """Kafka's assign(partitionsPerTopic, subscriptions) may be given a topic with 0 partitions
    (AbstractStickyAssignorTest.testOneConsumerNonexistentTopic puts topic -> 0 at 3.0, an empty
    list at 3.7); GeneralAssignmentBuilder then simply has none of its partitions to place. Called
    directly (`assign` drops such topics first), path 2 skips "e", which both members subscribe to.
    By hand, as Kafka: topics by subscriber count then name (u, e, t), each free partition to the
    least-loaded subscriber, ties by member id: u-0 -> m2, t-0 -> m1, t-1 -> m1 (1 = 1), t-2 -> m2,
    t-3 -> m1 (2 = 2); 3 against 2 is balanced."""
    subs = {"m1": S(("e", "t")), "m2": S(("e", "t", "u"))}
    got = ASSIGNORS[assignor]({"e": 0, "t": 4, "u": 1}, subs, (3, 7))
    assert got == {"m1": parts("t", 0, 1, 3), "m2": [("u", 0), ("t", 2)]}


def test_the_general_sticky_path_moves_a_partition_again_in_a_later_balancing_pass():
    """The general path balances topic by topic and repeats while anything moved: a partition a member received
    in one pass can leave it in the next. m0 and m2 take t0 and t3, m1 and m3 t0 only. Kept: m0 t0-0, t0-2,
    t3-0, t3-1, t3-3, t3-5 (6); m1 t0-1; m2 t3-2; m3 t0-3. The free t3-4, t3-6, t3-7 go to m2 (the least loaded
    of t3's two): 6, 1, 4, 1. Pass 1: t3 moves m0's last, t3-5, to m2 (5, 5); t0 moves t0-2 to m1 and t0-0 to m3
    (m0 3, m1 2, m3 2). Pass 2: t3 moves m2's last, the t3-5 it received, back to m0: 4 and 4."""
    subs = {"m0": S(("t0", "t3"), (("t0", 0), ("t0", 2), ("t3", 0), ("t3", 1), ("t3", 3), ("t3", 5))),
            "m1": S(("t0",), (("t0", 1),)), "m2": S(("t0", "t3"), (("t3", 2),)), "m3": S(("t0",), (("t0", 3),))}
    assert assign("sticky", {"t0": 4, "t3": 8}, subs) == {
        "m0": [("t3", 0), ("t3", 1), ("t3", 3), ("t3", 5)], "m1": [("t0", 1), ("t0", 2)],
        "m2": [("t3", 2), ("t3", 4), ("t3", 6), ("t3", 7)], "m3": [("t0", 3), ("t0", 0)]}


def test_the_general_sticky_path_takes_each_move_from_the_holder_that_is_most_loaded_now():
    """Path 2 (E's subscription differs): each move takes from the most-loaded holder of the topic as it is after
    the previous move (module docstring), so two equal holders give in turn and each keeps 3 of its own 6, the
    fewest moves balance needs (StickyAssignor's javadoc: preserve as many existing assignments as possible;
    Kafka's own placement differs, see the module docstring). By hand: u-0 -> E; t: A (ties by member id) gives
    its last, t-5, to C; B (6 > A's 5) t-11 to D; A t-4 to C; B t-10 to D; A t-3 to C; B t-9 to D: 3 each. Going
    on with A after its first move would take A down to 2, then B would give t-11 to A: 7 moves."""
    subs = {"A": S(("t",), tuple(parts("t", 0, 1, 2, 3, 4, 5)), 1),
            "B": S(("t",), tuple(parts("t", 6, 7, 8, 9, 10, 11)), 1), "C": S(("t",)), "D": S(("t",)), "E": S(("u",))}
    assert assign("sticky", {"t": 12, "u": 1}, subs) == {
        "A": parts("t", 0, 1, 2), "B": parts("t", 6, 7, 8), "C": parts("t", 5, 4, 3), "D": parts("t", 11, 10, 9),
        "E": [("u", 0)]}
