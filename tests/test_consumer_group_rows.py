"""Exact rows, epochs, log lines and error messages of the consumer-group coordinator where the
other consumer-protocol test files stop short: classic members inside a consumer group
(`classicGroup{Join,Sync,Leave}ToConsumerGroup`), the conversions, the 4.2 reconciliation of a
changed subscription (`CurrentAssignmentBuilder.updateCurrentAssignment`), and the small
record types. Rules are those of the 4.0.0 tag unless a test names another.
"""

from __future__ import annotations

from collections import Counter

import pytest

from kafkasim import Errors
from kafkasim.coordinator.assignor import HETEROGENEOUS, HOMOGENEOUS
from kafkasim.coordinator.modern.consumer import (
    ApiError, ConsumerGroup, ConsumerGroupHeartbeatResponse, ConsumerGroupMember, ProtocolRules, Reconciler, Rules)
from kafkasim.coordinator.modern.consumer.group import ClassicMember
from test_consumer_protocol import Scripted, hb, join, manager
from test_migration import Group, subscription


def rows(sim, *wanted):
    """(time, member, kind, generation, value, reason, state) of the rows of those kinds."""
    return [(r[0], r[3], r[4], r[5], r[10], r[9], r[11]) for r in sim.events.rows if r[4] in wanted]


# == classic members inside a consumer group ===================================================
def test_a_static_classic_member_joins_and_is_replaced_by_itself_at_epoch_zero():
    """`getOrMaybeSubscribeStaticConsumerGroupMember(useClassicProtocol=true)`: a new instance id
    makes a new member under the id handed out (no MEMBER_ID_REQUIRED for a static member); the
    same member rejoining is copied at epoch 0 / previous 0 and reconciled from there."""
    g = Group()
    g.cg_join("m1")                                               # epoch 1: m1 holds foo-0..3
    s = g.join(instance_id="i1", client="s")
    assert (s.error, s.generation_id, s.protocol_name) == (Errors.NONE, 2, "cooperative-sticky")
    sid = s.member_id
    assert g.coord.member_ids("g") == ["m1", sid]
    assert f"[GroupId g] Static member {sid} with instance id i1 joins the consumer group using the classic " \
           f"protocol." in g.log()
    # written when stored, before the epoch bump: s is still STABLE at epoch 0 there
    assert rows(g.sim, "MemberJoined")[-1] == (0, sid, "MemberJoined", 1, None, "static", "Reconciling")
    # m1 still holds the partitions of s's target: s waits at epoch 2 with nothing
    assert (g.coord.member_state("g", sid), g.coord.member_epoch("g", sid)) == ("UNRELEASED_PARTITIONS", 2)
    again = g.join(sid, instance_id="i1", client="s")
    assert (again.error, again.generation_id) == (Errors.NONE, 2)
    assert (g.coord.member_epoch("g", sid), g.coord.consumer_groups.previous_member_epoch("g", sid)) == (2, 0)
    assert g.coord.group_epoch("g") == 2


def test_a_revoking_static_classic_member_rejoining_stays_at_epoch_zero():
    """The replacing copy is at epoch 0 / previous 0 (`Builder(existing, memberId)` in
    `getOrMaybeSubscribeStaticConsumerGroupMember`); a copy still revoking that still owns what it
    must give up is kept as is by `CurrentAssignmentBuilder`, so it answers generation 0."""
    fixed = Scripted("fixed")
    sim, groups = manager(group_consumer_assignors=[fixed])
    fixed.next = {"m1": {"foo": [0, 1, 2]}}
    join(groups, "m1")                                                     # epoch 1
    fixed.next = {"m1": {"foo": [0, 1, 2]}, "s": {"foo": [3, 4, 5]}}
    fresh = [("range", subscription())]
    assert groups.classic_join("g", "s", "i1", 10000, 60000, "consumer", fresh, "unused").generation_id == 2
    fixed.next = {"m1": {"foo": [0, 1, 2]}, "s": {"foo": [3]}, "m2": {"foo": [4, 5]}}
    join(groups, "m2")                                                     # epoch 3: s must give up foo-4,5
    owning = [("range", subscription(owned=[("foo", 3), ("foo", 4), ("foo", 5)], generation=2))]
    for _ in range(2):
        r = groups.classic_join("g", "s", "i1", 10000, 60000, "consumer", owning, "unused")
        assert (r.error, r.generation_id) == (Errors.NONE, 0)
        assert (groups.member_state("g", "s"), groups.member_epoch("g", "s"), groups.previous_member_epoch("g", "s"),
                groups.assigned_partitions("g", "s"), groups.partitions_pending_revocation("g", "s")) == (
            "UNREVOKED_PARTITIONS", 0, 0, {"foo": [3]}, {"foo": [4, 5]})


def test_a_dynamic_classic_member_join_is_logged_with_the_classic_protocol():
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    assert g.join(a).error is Errors.NONE
    assert g.log()[-3] == f"[GroupId g] Member {a} joins the consumer group using the classic protocol."
    no = g.join("m1")                       # `throwIfMemberDoesNotUseClassicProtocol`
    assert (no.error, no.member_id) == (Errors.UNKNOWN_MEMBER_ID, "m1")


def test_a_classic_leave_group_fences_a_static_member_and_answers_each_member():
    """`classicGroupLeaveToConsumerGroup`: one error per listed member, the static member's line
    names its instance id, and the fence is a "leave_group" removal with one epoch bump."""
    g = Group()
    g.cg_join("m1")
    sid = g.join(instance_id="i1", client="s").member_id         # epoch 2
    before = g.coord.consumer_groups.stats["requests"]
    g.sim.advance(500)
    resp = g.coord.leave_group("g", [(sid, "i1"), ("ghost", None)], reason="bye")
    assert resp.member_errors == [Errors.NONE, Errors.UNKNOWN_MEMBER_ID]
    assert g.coord.consumer_groups.stats["requests"] == before + 1
    assert f"[GroupId g] Static member {sid} with instance id i1 has left group through explicit `LeaveGroup` " \
           f"request; client reason: bye" in g.log()
    assert rows(g.sim, "MemberRemoved", "GroupEpochBumped")[-2:] == [
        (500, sid, "MemberRemoved", 2, 2.0, "leave_group", "Reconciling"),
        (500, None, "GroupEpochBumped", 3, 3.0, "member_removed", "Assigning")]
    assert g.coord.consumer_groups.removal_reason[sid] == "leave_group"
    assert g.coord.member_ids("g") == ["m1"]


def test_a_classic_member_session_starts_at_its_join_group():
    """The JoinGroup itself arms the classic session timer (`scheduleConsumerGroupSessionTimeout`
    with the member's own session timeout): with no heartbeat the member is fenced exactly then."""
    g = Group()
    g.cg_join("m1")
    g.sim.advance(1000)
    a = g.join(client="a").member_id
    assert g.join(a, session_ms=10000, rebalance_ms=60000).generation_id == 2   # t=1000
    assert g.sync(a, 2).error is Errors.NONE                                      # the sync timer is cancelled
    g.sim.advance(10000)
    assert rows(g.sim, "MemberFenced") == [(11000, a, "MemberFenced", 2, 2.0, "session_timeout", "Reconciling")]


def test_a_classic_member_that_never_syncs_is_fenced_with_its_epoch():
    """`scheduleConsumerGroupSyncTimeout`: the member's rebalance timeout; a 0 ms timeout fires at
    the same millisecond."""
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    g.sim.advance(300)
    assert g.join(a, session_ms=45000, rebalance_ms=0).generation_id == 2
    g.sim.advance(0)
    assert rows(g.sim, "MemberFenced") == [(300, a, "MemberFenced", 2, 2.0, "sync_timeout", "Reconciling")]
    assert g.coord.member_ids("g") == ["m1"]


def test_the_sync_timer_of_a_replaced_static_classic_member_finds_nobody_to_fence():
    """A static classic member rejoining with no member id replaces the old one (`replaceMember`),
    whose sync timer runs on: when it fires it counts as a timer event but fences nobody (the
    member is gone); the new member's own sync timer, a rebalance timeout after its join, fences it."""
    g = Group()
    g.cg_join("m1")
    old = g.join(client="a", instance_id="i-1", rebalance_ms=5000).member_id     # t=0: sync timer at 5000
    g.sim.advance(1000)
    new = g.join(client="a", instance_id="i-1", rebalance_ms=5000).member_id     # t=1000: sync timer at 6000
    assert new != old
    g.sim.advance(4000)
    assert (g.coord.consumer_groups.stats["timer_events"], rows(g.sim, "MemberFenced")) == (1, [])
    g.sim.advance(1000)
    assert g.coord.consumer_groups.stats["timer_events"] == 2
    assert rows(g.sim, "MemberFenced") == [(6000, new, "MemberFenced", 2, 2.0, "sync_timeout", "Reconciling")]


def test_a_classic_sync_after_the_group_moved_on_asks_the_member_to_rejoin():
    """`throwIfRebalanceInProgress`: a STABLE member behind the group epoch gets
    REBALANCE_IN_PROGRESS and a join timer of its rebalance timeout."""
    g = Group()
    a, b = g.stable_classic()                    # session 10 s, rebalance 60 s
    g.cg_join("m1")                              # the upgrade: epoch 2
    assert g.sync(a, 1).error is Errors.REBALANCE_IN_PROGRESS     # t=0: a's join timer, 60 s
    epoch, owned = 2, []
    for _ in range(6):                                              # t = 9000 ... 54000
        g.sim.advance(9000)
        assert g.heartbeat(a, 1) is Errors.REBALANCE_IN_PROGRESS   # renews the session, not the join timer
        r = g.cg_heartbeat("m1", epoch, owned)                      # m1 stays, so no downgrade
        epoch, owned = r.member_epoch, owned if r.assignment is None else r.assignment.get("foo", [])
    g.sim.advance(5999)
    assert g.coord.member_ids("g") == [a, "m1"]
    g.sim.advance(1)
    # b, silent, was fenced at 10000 (epoch 3); a at 60000, still at its epoch 1
    assert rows(g.sim, "MemberFenced") == [(10000, b, "MemberFenced", 2, 1.0, "session_timeout", "Reconciling"),
                                           (60000, a, "MemberFenced", 3, 1.0, "join_timeout", "Reconciling")]


def test_a_revoking_classic_member_syncs_at_its_own_generation():
    """SyncGroup of a member still revoking (UNREVOKED_PARTITIONS at epoch 1, group epoch 2)
    succeeds; its response row carries the member's generation, not the group epoch."""
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    jb = g.join(b, owned=[("foo", 2), ("foo", 3)], generation=1)
    assert (jb.generation_id, g.coord.member_state("g", b)) == (1, "UNREVOKED_PARTITIONS")
    assert g.sync(b, 1).error is Errors.NONE
    assert [(r[3], r[4], r[5]) for r in g.sim.events.rows if r[4] == "SyncGroupResponse"][-1] == \
        (b, "SyncGroupResponse", 1)


def test_classic_join_on_the_manager_defaults_and_sentinels():
    """`classicGroupJoinToConsumerGroup` on the manager: a dynamic member without id must rejoin
    with the id handed out (JoinGroup v4+); rebalance timeout -1 keeps the last one
    (`maybeUpdateRebalanceTimeoutMs(ofSentinel(...))`); the client id is kept."""
    sim, groups = manager()
    join(groups, "m1")
    protocols = [("range", subscription())]
    first = groups.classic_join("g", "", None, 10000, 60000, "consumer", protocols, "c-1")
    assert (first.error, first.member_id) == (Errors.MEMBER_ID_REQUIRED, "c-1")
    ok = groups.classic_join("g", "c-1", None, 10000, 60000, "consumer", protocols, "unused", client_id="app")
    assert (ok.error, ok.generation_id) == (Errors.NONE, 2)
    again = groups.classic_join("g", "c-1", None, 10000, -1, "consumer", protocols, "unused", client_id="app")
    assert again.error is Errors.NONE
    member = groups.member("g", "c-1")
    assert (member.rebalance_timeout_ms, member.classic) == (60000, ClassicMember(10000, tuple(
        (n, bytes(d)) for n, d in protocols), "app"))


def test_the_online_downgrade_removes_the_last_consumer_member_and_keeps_client_ids():
    """`convertToClassicGroup`: the leaving consumer member is removed ("leave_group"), the rows
    and states tell it, and the classic members keep their client ids."""
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1, client="a")
    g.join(b, owned=[("foo", 2)], generation=1, client="b")
    g.sim.advance(1000)
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert rows(g.sim, "MemberRemoved", "GroupConverted")[-2:] == [
        (1000, "m1", "MemberRemoved", 2, 2.0, "leave_group", "Reconciling"),
        (1000, None, "GroupConverted", 2, None, "online_downgrade", "PreparingRebalance")]
    assert g.coord.consumer_groups.removal_reason["m1"] == "leave_group"
    assert (g.coord.member("g", a).client_id, g.coord.member("g", b).client_id) == ("a", "b")


# == conversions ================================================================================
def test_conversion_rows_carry_the_group_state_after_the_conversion():
    g = Group()
    g.stable_classic()
    g.cg_join("m1")
    assert rows(g.sim, "GroupConverted") == [(0, None, "GroupConverted", 1, None, "online_upgrade", "Stable")]


def test_a_downgrade_beyond_the_classic_max_size_is_refused():
    """`validateOnlineDowngradeWithFencedMembers`: the classic members left exceed
    `group.max.size`, so the consumer group stays and fences as usual."""
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    g.coord.max_size = 1
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert g.coord.group_type("g") == "consumer" and g.coord.group_epoch("g") == 3
    assert rows(g.sim, "GroupConversionRefused") == [
        (0, None, "GroupConversionRefused", 2, None, "downgrade_group_too_large", "Reconciling")]
    assert "Cannot downgrade consumer group g to classic group because its group size is greater than classic " \
           "group max size." in g.log()


def test_a_malformed_embedded_protocol_refuses_the_upgrade():
    """`convertToConsumerGroup` catching SchemaException: GROUP_ID_NOT_FOUND, the classic group stays."""
    g = Group()
    bad = [("range", b"\x00")]
    first = g.coord.join_group("g", "", None, 10000, 60000, "consumer", bad, client_id="a").member_id
    g.coord.join_group("g", first, None, 10000, 60000, "consumer", bad, client_id="a")
    g.sim.advance(0)
    assert g.coord.group_state("g") == "CompletingRebalance"
    answer = g.cg_join("m1")
    assert (answer.error, answer.error_message) == (
        Errors.GROUP_ID_NOT_FOUND,
        "Cannot upgrade classic group g to consumer group because the embedded consumer protocol is malformed.")
    assert [r[5:] for r in rows(g.sim, "GroupConversionRefused")] == [("upgrade_malformed_protocol",
                                                                       "CompletingRebalance")]
    assert g.log()[-1] == ("Cannot upgrade classic group g to consumer group because the embedded consumer "
                           "protocol is malformed: cannot read the consumer subscription b'\\x00': Expecting value: "
                           "line 1 column 1 (char 0).")


# == CurrentAssignmentBuilder: a changed subscription (4.2) ====================================
RULES_42 = ProtocolRules.for_version("4.2").reconciliation


def fs(assignment):
    return {t: frozenset(ps) for t, ps in assignment.items()}


def free(topic, partition):
    return None


def cab(member, target_epoch, target, owned, subscribed, changed=True):
    return Reconciler(member, target_epoch, fs(target), free, None if owned is None else fs(owned), RULES_42,
                      frozenset(subscribed), changed).build()


def show(member):
    return (member.state, member.member_epoch, member.previous_member_epoch,
            {t: sorted(ps) for t, ps in member.assigned.items()},
            {t: sorted(ps) for t, ps in member.pending_revocation.items()})


def test_cab_42_subscribed_topic_name_and_unresolved_regular_expression():
    """CurrentAssignmentBuilderTest.testSubscribedTopicNameAndUnresolvedRegularExpression @ 4.2.0-rc1."""
    member = ConsumerGroupMember("member", member_epoch=10, previous_member_epoch=10,
                                 subscribed_topic_names=frozenset({"foo"}), subscribed_topic_regex="bar*",
                                 assigned=fs({"foo": [1, 2, 3], "bar": [4, 5, 6]}))
    new = cab(member, 10, {"foo": [1, 2, 3], "bar": [4, 5, 6]}, {"foo": [1, 2, 3], "bar": [4, 5, 6]}, {"foo"})
    assert show(new) == ("UNREVOKED_PARTITIONS", 10, 10, {"foo": [1, 2, 3]}, {"bar": [4, 5, 6]})


def test_cab_42_unresolved_regular_expression():
    """CurrentAssignmentBuilderTest.testUnresolvedRegularExpression @ 4.2.0-rc1."""
    member = ConsumerGroupMember("member", member_epoch=10, previous_member_epoch=10, subscribed_topic_regex="bar*",
                                 assigned=fs({"foo": [1, 2, 3], "bar": [4, 5, 6]}))
    new = cab(member, 10, {"foo": [1, 2, 3], "bar": [4, 5, 6]}, {"foo": [1, 2, 3], "bar": [4, 5, 6]}, ())
    assert show(new) == ("UNREVOKED_PARTITIONS", 10, 10, {}, {"foo": [1, 2, 3], "bar": [4, 5, 6]})


def test_cab_42_subscribed_topic_name_and_resolved_regular_expression():
    """CurrentAssignmentBuilderTest.testSubscribedTopicNameAndResolvedRegularExpression @ 4.2.0-rc1:
    nothing is out of the subscription, the member is returned as is."""
    member = ConsumerGroupMember("member", member_epoch=10, previous_member_epoch=10,
                                 subscribed_topic_names=frozenset({"foo"}), subscribed_topic_regex="bar*",
                                 assigned=fs({"foo": [1, 2, 3], "bar": [4, 5, 6]}))
    target = {"foo": [1, 2, 3], "bar": [4, 5, 6]}
    assert cab(member, 10, target, target, {"foo", "bar"}) is member
    assert cab(member, 10, target, None, {"foo", "bar"}) is member   # unknown owned partitions: still nothing


def test_cab_42_remains_in_unrevoked_partitions_with_assignment_topics_no_longer_in_subscription():
    """CurrentAssignmentBuilderTest.testRemainsInUnrevokedPartitionsWithAssignmentTopicsNoLongerInSubscription
    @ 4.2.0-rc1: the dropped topic joins what is already pending revocation."""
    member = ConsumerGroupMember("member", member_epoch=10, previous_member_epoch=10, state="UNREVOKED_PARTITIONS",
                                 subscribed_topic_names=frozenset({"topic2"}),
                                 assigned=fs({"topic1": [2, 3], "topic2": [5, 6]}),
                                 pending_revocation=fs({"topic1": [1], "topic2": [4]}))
    new = cab(member, 12, {"topic1": [1, 3, 4], "topic2": [6, 7]}, {"topic1": [1, 2, 3], "topic2": [4, 5, 6]},
              {"topic2"})
    assert show(new) == ("UNREVOKED_PARTITIONS", 10, 10, {"topic2": [5, 6]}, {"topic1": [1, 2, 3], "topic2": [4]})


def test_cab_42_unsubscribed_partitions_the_client_already_dropped_just_shrink_the_assignment():
    """`updateCurrentAssignment`'s last branch (worked from 4.2.0-rc1): the client no longer
    reports the dropped topic, so the member stays STABLE with the rest."""
    member = ConsumerGroupMember("member", member_epoch=10, previous_member_epoch=9,
                                 subscribed_topic_names=frozenset({"foo"}),
                                 assigned=fs({"foo": [1, 2, 3], "bar": [4, 5, 6]}))
    new = cab(member, 10, {"foo": [1, 2, 3], "bar": [4, 5, 6]}, {"foo": [1, 2, 3]}, {"foo"})
    assert show(new) == ("STABLE", 10, 9, {"foo": [1, 2, 3]}, {})


def test_cab_without_a_subscription_change_keeps_a_stable_member():
    """The builder's default is `hasSubscriptionChanged = false`: a STABLE member at the target
    epoch is returned as is, even under the 4.2 rules."""
    member = ConsumerGroupMember("member", member_epoch=10, previous_member_epoch=10,
                                 assigned=fs({"foo": [1, 2, 3]}))
    assert Reconciler(member, 10, fs({"foo": [1, 2, 3]}), free, fs({"foo": [1, 2, 3]}), RULES_42).build() is member


def test_cab_unknown_state():
    """CurrentAssignmentBuilderTest.testUnknownState @ 4.2.0-rc1 (the same at 4.0.0)."""
    member = ConsumerGroupMember("member", member_epoch=11, previous_member_epoch=11, state="UNKNOWN",
                                 subscribed_topic_names=frozenset({"topic1", "topic2"}),
                                 assigned=fs({"topic1": [3], "topic2": [6]}),
                                 pending_revocation=fs({"topic1": [2], "topic2": [5]}))
    target = fs({"topic1": [3], "topic2": [6]})
    with pytest.raises(ApiError) as e:
        Reconciler(member, 12, target, lambda t, p: "member", None, Rules()).build()
    assert (e.value.error, e.value.message) == (
        Errors.FENCED_MEMBER_EPOCH,
        "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.")
    new = Reconciler(member, 12, target, lambda t, p: "member", {}, Rules()).build()
    assert show(new) == ("STABLE", 12, 11, {"topic1": [3], "topic2": [6]}, {})


# == the group and member records ===============================================================
def test_member_repr_evolve_and_classic_metadata_equality():
    m = ConsumerGroupMember("m", member_epoch=3, previous_member_epoch=2, state="UNREVOKED_PARTITIONS",
                            assigned=fs({"foo": [2, 0]}), pending_revocation=fs({"bar": [1]}))
    assert repr(m) == ("ConsumerGroupMember('m', epoch=3, previous=2, state=UNREVOKED_PARTITIONS, "
                       "assigned={'foo': [0, 2]}, pending_revocation={'bar': [1]})")
    with pytest.raises(TypeError, match=r"^unknown member fields \['bogus', 'epoch'\]$"):
        m.evolve(epoch=4, bogus=1)
    one = ClassicMember(10000, [("range", b"x")], "app")
    assert one == ClassicMember(10000, (("range", b"x"),), "app")
    assert one != ClassicMember(10000, (("range", b"x"),), "other") and one != ClassicMember(9000, (), "app")


def test_subscribed_topics_join_names_and_resolved_regexes():
    """`ConsumerGroup.subscribedTopicNames`: names and resolved regexes together; a heartbeat's
    own counts (a regex this member drops) replace the group's."""
    group = ConsumerGroup("g")
    group.name_counts = Counter({"bar": 1})
    group.regex_counts = Counter({"f.*": 1})
    group.resolved_regexes = {"f.*": frozenset({"foo", "fuzz"})}
    assert group.subscribed_topics() == {"bar", "foo", "fuzz"}
    assert group.subscribed_topics(Counter({"bar": 2}), Counter()) == {"bar"}


@pytest.mark.parametrize("names, regexes, members, kind", [
    ({"foo": 2}, {}, 2, HOMOGENEOUS),
    ({"foo": 2, "bar": 1}, {}, 2, HETEROGENEOUS),
    ({}, {"f.*": 2}, 2, HOMOGENEOUS),
    ({}, {"f.*": 1, "b.*": 1}, 2, HETEROGENEOUS),
    ({"foo": 2}, {"f.*": 1}, 2, HETEROGENEOUS),   # all by name, one by regex as well
    ({}, {"f.*": 1}, 2, HETEROGENEOUS),
])
def test_subscription_type(names, regexes, members, kind):
    """`ConsumerGroup.subscriptionType` (4.0.0)."""
    assert ConsumerGroup("g").subscription_type(Counter(names), Counter(regexes), members) == kind


def test_a_loaded_member_keeps_its_regex_subscription():
    sim, groups = manager()
    groups.load_consumer_group("g", group_epoch=1, members={"m": {"member_epoch": 1, "subscribed_topic_regex": "f.*",
                                                                  "assigned": {"foo": [0, 1, 2, 3, 4, 5]}}},
                               target_assignment={"m": {"foo": [0, 1, 2, 3, 4, 5]}})
    assert groups.member("g", "m").subscribed_topic_regex == "f.*"
    r = hb(groups, "m", 1)
    assert (r.error, r.member_epoch) == (Errors.NONE, 1)
    assert groups.group_epoch("g") == 1   # foo still matches: nothing changed


# == the heartbeat ==============================================================================
def test_each_heartbeat_counts_one_request():
    sim, groups = manager()
    join(groups, "m1")
    hb(groups, "m1", 1)
    hb(groups, "m1", 1, rebalance_timeout_ms=1000)
    assert groups.stats["requests"] == 3


def test_a_dynamic_member_rejoining_with_an_instance_id_keeps_its_record():
    """`getOrMaybeSubscribeStaticConsumerGroupMember`, new instance id: `getOrMaybeCreateMember`
    returns the existing member, so fields the request leaves out (its server assignor) stay."""
    sim, groups = manager(group_consumer_assignors=["uniform", "range"])
    join(groups, "m1", server_assignor="range")
    r = join(groups, "m1", instance_id="i1")
    assert (r.error, r.member_epoch) == (Errors.NONE, 1)
    assert groups.member("g", "m1").server_assignor == "range"
    join(groups, "m2")
    assert rows(sim, "TargetAssignmentComputed")[-1] == (0, None, "TargetAssignmentComputed", 2, 2.0, "range",
                                                         "Reconciling")


def test_a_static_member_rejoining_after_a_temporary_leave_starts_from_epoch_zero():
    """The replacing copy is at epoch 0 / previous 0 (`Builder(existing, memberId)`), then
    reconciled: previous epoch 0, epoch = the target epoch."""
    sim, groups = manager()
    join(groups, "a", instance_id="i1")
    join(groups, "b")                                         # epoch 2
    hb(groups, "a", 1, instance_id="i1")
    leave = groups.consumer_group_heartbeat("g", member_id="a", member_epoch=-2, instance_id="i1")
    assert (leave.error, leave.member_epoch) == (Errors.NONE, -2)
    r = join(groups, "a2", instance_id="i1")
    assert (r.error, r.member_epoch) == (Errors.NONE, 2)
    assert (groups.member_epoch("g", "a2"), groups.previous_member_epoch("g", "a2")) == (2, 0)


def test_a_steady_heartbeat_with_an_unknown_instance_id_is_refused():
    """The shortcut for settled members does not answer for another instance id."""
    sim, groups = manager()
    join(groups, "a", instance_id="i1")
    r = hb(groups, "a", 1, instance_id="i2")
    assert (r.error, r.error_message) == (Errors.UNKNOWN_MEMBER_ID, "Instance id i2 is unknown.")


def test_a_member_the_assignor_leaves_out_gets_an_empty_target():
    fixed = Scripted("fixed")
    sim, groups = manager(group_consumer_assignors=[fixed])
    fixed.next = {"m1": {"foo": [0, 1]}}
    join(groups, "m1")
    fixed.next = {"m2": {"foo": [2]}}
    join(groups, "m2")
    assert groups.target_assignment("g") == {"m1": {}, "m2": {"foo": [2]}}
    assert rows(sim, "TargetAssignmentComputed")[-1][4] == 2.0


def test_an_assignor_bug_propagates_and_leaves_no_half_written_row():
    class Broken:
        name = "broken"

        def assign(self, members, topics):
            raise RuntimeError("bug")

    for record in (True, False):
        sim, groups = manager(group_consumer_assignors=[Broken()], record_heartbeats=record)
        with pytest.raises(RuntimeError, match="bug"):
            join(groups, "m1")
        assert None not in sim.events.rows and not groups.has_group("g")


def test_clearing_a_regex_needs_no_refresh_of_the_others():
    """`maybeUpdateRegularExpressions`: a member dropping its regex asks for no new resolution."""
    events = []
    sim, groups = manager(log=lambda t, e, g, m, d: events.append((t, e)))
    groups.consumer_group_heartbeat("g", member_id="a", member_epoch=0, rebalance_timeout_ms=300000,
                                    subscribed_topic_regex="f.*", owned_partitions={})
    groups.consumer_group_heartbeat("g", member_id="b", member_epoch=0, rebalance_timeout_ms=300000,
                                    subscribed_topic_regex="b.*", owned_partitions={})
    sim.advance(20000)
    hb(groups, "b", groups.member_epoch("g", "b"), subscribed_topic_regex="", subscribed_topic_names=["bar"])
    sim.advance(0)
    assert [e for e in events if e == (20000, "regex_refreshed")] == []


# == responses ==================================================================================
def test_api_error_and_response_text():
    assert str(ApiError(Errors.FENCED_MEMBER_EPOCH, "custom")) == "FENCED_MEMBER_EPOCH: custom"
    e = ApiError(Errors.UNKNOWN_MEMBER_ID)
    assert str(e) == f"UNKNOWN_MEMBER_ID: {Errors.UNKNOWN_MEMBER_ID.message}" and e.message
    assert repr(ConsumerGroupHeartbeatResponse(error=Errors.UNKNOWN_MEMBER_ID, error_message="gone")) == \
        "ConsumerGroupHeartbeatResponse(error=Errors.UNKNOWN_MEMBER_ID, error_message='gone')"
    assert repr(ConsumerGroupHeartbeatResponse(member_id="m", member_epoch=2, heartbeat_interval_ms=5000,
                                               assignment={"foo": [0]})) == \
        ("ConsumerGroupHeartbeatResponse(error=Errors.NONE, member_id='m', member_epoch=2, "
         "heartbeat_interval_ms=5000, assignment={'foo': [0]})")


def test_a_static_classic_member_under_a_new_id_is_logged_as_a_replacement():
    """`getOrMaybeSubscribeStaticConsumerGroupMember(useClassicProtocol=true)` with a known instance id
    and a new member id: "re-joins the consumer group using the classic protocol", naming both ids."""
    g = Group()
    g.cg_join("m1")
    first = g.coord.join_group("g", "", "i-1", 10000, 60000, "consumer", [("range", subscription())], client_id="c1")
    again = g.coord.join_group("g", "", "i-1", 10000, 60000, "consumer", [("range", subscription())], client_id="c1")
    assert again.error is Errors.NONE and again.member_id != first.member_id
    assert g.log()[-1] == (f"[GroupId g] Static member with instance id i-1 re-joins the consumer group using the "
                           f"classic protocol. Created a new member {again.member_id} to replace the existing member "
                           f"{first.member_id}.")
    assert g.coord.consumer_groups.member_ids("g") == ["m1", again.member_id]


def test_classic_requests_count_one_each_and_answer_as_kafka_fills_them():
    """One request per JoinGroup and SyncGroup; SyncGroup without a protocol name (before v5) is answered
    with the member's first protocol; a refused one carries no assignment; a refused JoinGroup of an
    unknown member names no member; the manager's answer names the member it is for."""
    g = Group()
    g.cg_join("m1")
    groups = g.coord.consumer_groups
    before = groups.stats["requests"]
    joined = g.coord.join_group("g", "", "i-1", 10000, 60000, "consumer",
                                [("range", subscription()), ("roundrobin", subscription())], client_id="c1")
    synced = g.coord.sync_group("g", joined.member_id, joined.generation_id, None, "i-1")
    assert groups.stats["requests"] == before + 2
    assert (synced.error, synced.protocol_name, synced.assignment) == (Errors.NONE, "range", b"[]")
    answer = groups.classic_sync("g", joined.member_id, joined.generation_id, "i-1")
    assert (answer.member_id, answer.generation_id, answer.protocol_name) == (joined.member_id, 2, "range")
    refused = g.coord.sync_group("g", "nobody", 2)
    assert (refused.error, refused.assignment) == (Errors.UNKNOWN_MEMBER_ID, b"")
    other = g.coord.join_group("g", "", None, 10000, 60000, "other", [("range", subscription())], client_id="c2")
    assert (other.error, other.member_id) == (Errors.INCONSISTENT_GROUP_PROTOCOL, "")
    assert groups.classic_join("g", "", None, 10000, 60000, "other", [("range", subscription())], "uuid-1",
                               client_id="c2").member_id == ""


def test_a_full_group_takes_back_its_own_classic_member():
    """group.consumer.max.size counts members other than the one joining (`throwIfConsumerGroupIsFull`):
    at the limit a new classic member is refused, a known one rejoins."""
    g = Group(group_consumer_max_size=2)
    g.cg_join("m1")
    first = g.coord.join_group("g", "", "i-1", 10000, 60000, "consumer", [("range", subscription())], client_id="c1")
    assert first.error is Errors.NONE
    again = g.coord.join_group("g", first.member_id, "i-1", 10000, 60000, "consumer", [("range", subscription())],
                               client_id="c1")
    assert (again.error, again.member_id) == (Errors.NONE, first.member_id)
    third = g.coord.join_group("g", "", "i-3", 10000, 60000, "consumer", [("range", subscription())], client_id="c3")
    assert third.error is Errors.GROUP_MAX_SIZE_REACHED


def test_the_join_timeout_of_a_classic_member_runs_from_its_first_rebalance_in_progress():
    """`throwIfRebalanceInProgress` arms the join timeout only if absent
    (`scheduleConsumerGroupJoinTimeoutIfAbsent`): a classic member (20 s rebalance timeout) told at
    1 s that the group moved on, and again every 4 s, is fenced at 21 s however often it heartbeats."""
    g = Group()
    g.cg_join("m1")
    m = g.join(client="c1", rebalance_ms=20000).member_id
    joined = g.join(m, client="c1", rebalance_ms=20000)
    assert g.sync(m, joined.generation_id).error is Errors.NONE
    g.sim.advance(500)
    g.cg_join("m2")  # the group epoch moves on
    n = len(g.sim.events.rows)
    for t in range(1000, 25000, 4000):
        g.sim.advance(t - g.sim.now)
        if g.coord.consumer_groups.has_group("g") and m in g.coord.consumer_groups.member_ids("g"):
            assert g.heartbeat(m, joined.generation_id) is Errors.REBALANCE_IN_PROGRESS
    assert [r[:6] + r[8:10] for r in g.sim.events.rows[n:] if r[3] == m and r[4] in ("MemberFenced", "MemberRemoved")
            ] == [(21000, "coordinator", "g", m, "MemberFenced", 3, None, "join_timeout"),
                  (21000, "coordinator", "g", m, "MemberRemoved", 3, None, "rebalance_timeout")]


def test_a_steady_heartbeat_writes_a_row_only_when_it_fails_unless_recorded():
    sim, groups = manager(record_heartbeats=False)
    join(groups, "m1")
    n = len(sim.events.rows)
    assert (hb(groups, "m1", 1).error, hb(groups, "m1", 7).error) == (Errors.NONE, Errors.FENCED_MEMBER_EPOCH)
    assert sim.events.rows[n:] == [(0, "coordinator", "g", "m1", "ConsumerGroupHeartbeat", 1, None, None,
                                    "FENCED_MEMBER_EPOCH", None, 7.0, "Stable")]


def test_a_deleted_group_says_which_state_it_left():
    sim, groups = manager()
    join(groups, "m1")
    sim.advance(100_000)  # the member's session (45 s) ends: Empty
    n = len(sim.events.rows)
    assert groups.delete_group("g") is Errors.NONE
    assert sim.events.rows[n:] == [(100000, "coordinator", "g", None, "StateChanged", 2, None, None, None, "Empty",
                                    None, "Dead")]


@pytest.mark.parametrize("config, message", [
    ({"topics": {"foo": 0}}, "Invalid value 0 for configuration partitions of topic foo: Value must be at least 1 "
                             "(valid range: [1, 2147483647])"),
    ({"group_consumer_max_size": 2**31}, "Invalid value 2147483648 for configuration group.consumer.max.size: "
                                         "Value must be no more than 2147483647 (valid range: [1, 2147483647])"),
])
def test_topic_sizes_and_the_group_size_are_ints_of_at_least_one(config, message):
    from kafkasim import ConfigError

    with pytest.raises(ConfigError) as e:
        manager(**config)
    assert str(e.value) == message


def test_a_fenced_static_member_is_logged_with_its_instance_id():
    """`throwIfStaticMemberIsUnknown`/`throwIfInstanceIdIsFenced`: a heartbeat at epoch > 0 for an
    instance id another member holds is FENCED_INSTANCE_ID, logged with both ids (4.x wording)."""
    from kafkasim import GroupCoordinator, Simulation

    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.0", topics={"foo": 2})
    coord.consumer_group_heartbeat("g", member_id="a", member_epoch=0, instance_id="i-1", rebalance_timeout_ms=60000,
                                   subscribed_topic_names=["foo"], owned_partitions={})
    r = coord.consumer_group_heartbeat("g", member_id="b", member_epoch=1, instance_id="i-1")
    assert (r.error, r.error_message) == (Errors.FENCED_INSTANCE_ID,
                                          "Static member b with instance id i-1 was fenced by member a.")
    assert coord.broker_log[-1].split("] ", 2)[-1] == (
        "[GroupId g] Static member b with instance id i-1 is fenced by existing member a. "
        "(org.apache.kafka.coordinator.group.GroupMetadataManager)")
