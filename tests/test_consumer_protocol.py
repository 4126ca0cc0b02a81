"""The coordinator side of the consumer protocol (KIP-848): exact epochs, exact assignments,
exact fencing times, on kafkasim's own scenarios.

Rules are those of Kafka's `group-coordinator` module at the 4.0.0 tag unless a test names a
later version (`GroupMetadataManager.java`, `CurrentAssignmentBuilder.java`,
`assignor/Uniform*AssignmentBuilder.java`, `assignor/RangeAssignor.java`).
"""

from __future__ import annotations

import random

import pytest

from kafkasim import ConfigError, Errors, GroupCoordinator, Simulation
from kafkasim.coordinator.assignor import (
    HETEROGENEOUS, HOMOGENEOUS, GroupSpec, PartitionAssignorException, RangeAssignor, UniformAssignor, server_assignors)
from kafkasim.coordinator.modern.consumer import ConsumerGroupManager

TOPICS = {"foo": 6, "bar": 3}


def manager(topics=None, **config):
    sim = Simulation(seed=0)
    return sim, ConsumerGroupManager(sim, topics=dict(TOPICS if topics is None else topics), **config)


def join(groups, member_id, topics=("foo",), group="g", **fields):
    fields.setdefault("rebalance_timeout_ms", 300000)
    return groups.consumer_group_heartbeat(group, member_id=member_id, member_epoch=0,
                                           subscribed_topic_names=list(topics), owned_partitions={}, **fields)


def hb(groups, member_id, epoch, group="g", **fields):
    return groups.consumer_group_heartbeat(group, member_id=member_id, member_epoch=epoch, **fields)


def kinds(sim, *wanted):
    return [(r[0], r[3], r[4], r[5], r[9], r[10], r[11]) for r in sim.events.rows if r[4] in wanted]


class Scripted:
    """A pluggable server assignor that returns what the test prepared."""

    def __init__(self, name="scripted"):
        self.name = name
        self.next = {}
        self.seen = []

    def assign(self, members, topics):
        self.seen.append((members, topics))
        return self.next


# -- item 4 of issue 17, exactly as written --------------------------------------------------
def test_issue_api_example_runs_as_written():
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim, topics={"foo": 6, "bar": 3}, group_consumer_session_timeout_ms=45000,
                             group_consumer_heartbeat_interval_ms=5000, group_consumer_max_size=2**31 - 1,
                             group_consumer_assignors=("uniform", "range"))
    r = coord.consumer_group_heartbeat(
        "g", member_id="m1", member_epoch=0, instance_id=None, rack_id=None, rebalance_timeout_ms=300000,
        subscribed_topic_names=["foo"], server_assignor=None, owned_partitions={})
    assert (r.error, r.member_id, r.member_epoch, r.heartbeat_interval_ms) == (Errors.NONE, "m1", 1, 5000)
    assert r.assignment == {"foo": [0, 1, 2, 3, 4, 5]}
    assert coord.group_state("g") == "Stable"
    assert coord.group_epoch("g") == 1 and coord.target_assignment_epoch("g") == 1
    assert coord.target_assignment("g") == {"m1": {"foo": [0, 1, 2, 3, 4, 5]}}
    assert coord.member_epoch("g", "m1") == 1 and coord.member_state("g", "m1") == "STABLE"
    assert coord.assigned_partitions("g", "m1") == {"foo": [0, 1, 2, 3, 4, 5]}
    assert coord.partitions_pending_revocation("g", "m1") == {}
    coord.create_partitions("foo", 8)
    r = coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=1)
    assert r.member_epoch == 2 and r.assignment == {"foo": list(range(8))}
    sim.advance(45001)
    assert coord.group_state("g") == "Empty" and coord.group_epoch("g") == 3


def test_coordinator_defaults_are_kafka_4x_and_classic_groups_still_work():
    sim = Simulation(seed=0)
    coord = GroupCoordinator(sim)
    groups = coord.consumer_groups
    assert (groups.session_timeout_ms, groups.heartbeat_interval_ms, groups.max_size) == (45000, 5000, 2**31 - 1)
    assert list(groups.assignors) == ["uniform", "range"]
    coord.join_group("classic", "")  # the classic protocol on the same coordinator
    assert coord.group_state("classic") == "Empty" and coord.group_state("nope") is None


# -- joining, epochs and the target assignment ---------------------------------------------
def test_second_member_waits_for_the_first_to_revoke_then_both_are_stable():
    sim, groups = manager()
    join(groups, "m1")
    r2 = join(groups, "m2")
    assert (r2.member_epoch, r2.assignment) == (2, {})  # epoch 2 at once, partitions still held by m1
    assert groups.member_state("g", "m2") == "UNRELEASED_PARTITIONS"
    assert groups.target_assignment("g") == {"m1": {"foo": [0, 1, 2]}, "m2": {"foo": [3, 4, 5]}}
    assert groups.group_state("g") == "Reconciling"
    r1 = hb(groups, "m1", 1)
    assert (r1.member_epoch, r1.assignment) == (1, {"foo": [0, 1, 2]})  # revoke first, epoch unchanged
    assert groups.member_state("g", "m1") == "UNREVOKED_PARTITIONS"
    assert groups.partitions_pending_revocation("g", "m1") == {"foo": [3, 4, 5]}
    assert hb(groups, "m2", 2).assignment is None  # 3-5 not released yet
    r1 = hb(groups, "m1", 1, owned_partitions={"foo": [0, 1, 2]})
    assert (r1.member_epoch, r1.assignment) == (2, None)  # acknowledged: epoch 2, nothing new to send
    r2 = hb(groups, "m2", 2)
    assert (r2.member_epoch, r2.assignment) == (2, {"foo": [3, 4, 5]})
    assert groups.group_state("g") == "Stable"
    assert groups.previous_member_epoch("g", "m1") == 1 and groups.previous_member_epoch("g", "m2") == 2


def test_joiner_with_no_topics_into_an_existing_group_causes_no_bump():
    sim, groups = manager()
    join(groups, "m1")
    r = join(groups, "m2", topics=())
    assert (r.member_epoch, r.assignment) == (1, {}) and groups.group_epoch("g") == 1
    assert groups.group_state("g") == "Stable"


def test_target_is_computed_once_per_group_epoch():
    sim, groups = manager()
    join(groups, "m1")
    join(groups, "m2")
    before = groups.stats["assignments"]
    for _ in range(3):
        hb(groups, "m1", 1)
        hb(groups, "m2", 2)
    assert groups.stats["assignments"] == before == 2


def test_response_carries_the_assignment_only_on_join_full_request_or_change():
    sim, groups = manager()
    join(groups, "m1")
    assert hb(groups, "m1", 1).assignment is None
    full = hb(groups, "m1", 1, rebalance_timeout_ms=300000, subscribed_topic_names=["foo"],
              owned_partitions={"foo": list(range(6))})
    assert full.assignment == {"foo": [0, 1, 2, 3, 4, 5]}


def test_subscription_change_bumps_and_reassigns():
    sim, groups = manager()
    join(groups, "m1")
    r = hb(groups, "m1", 1, subscribed_topic_names=["foo", "bar"])
    assert (r.member_epoch, r.assignment) == (2, {"bar": [0, 1, 2], "foo": list(range(6))})
    r = hb(groups, "m1", 2, subscribed_topic_names=["bar"])
    assert (r.member_epoch, r.assignment) == (2, {"bar": [0, 1, 2]})
    assert groups.member_state("g", "m1") == "UNREVOKED_PARTITIONS"
    r = hb(groups, "m1", 2, owned_partitions={"bar": [0, 1, 2]})
    assert (r.member_epoch, groups.member_state("g", "m1")) == (3, "STABLE")


def test_rebalance_timeout_change_does_not_bump_the_epoch():
    sim, groups = manager()
    join(groups, "m1")
    hb(groups, "m1", 1, rebalance_timeout_ms=1000, server_assignor="range", rack_id="r1")
    assert groups.group_epoch("g") == 1 and groups.member("g", "m1").rebalance_timeout_ms == 1000


# -- epoch validation ------------------------------------------------------------------------
def test_greater_epoch_is_fenced_with_kafkas_message():
    sim, groups = manager()
    join(groups, "m1")
    r = hb(groups, "m1", 5)
    assert r.error is Errors.FENCED_MEMBER_EPOCH and r.error.code == 110
    assert r.error_message == ("The consumer group member has a greater member epoch (5) than the one known by the "
                               "group coordinator (1). The member must abandon all its partitions and rejoin.")


def test_previous_epoch_is_accepted_once_with_a_subset_of_the_assignment():
    sim, groups = manager()
    join(groups, "m1")
    hb(groups, "m1", 1, subscribed_topic_names=["foo", "bar"])  # epoch 2, response "lost"
    ok = hb(groups, "m1", 1, owned_partitions={"foo": [0, 1]})
    assert ok.error is Errors.NONE and ok.member_epoch == 2
    assert hb(groups, "m1", 1).error is Errors.FENCED_MEMBER_EPOCH  # owned unknown: not a subset
    assert hb(groups, "m1", 1, owned_partitions={"zzz": [0]}).error is Errors.FENCED_MEMBER_EPOCH


def test_epoch_zero_rejoin_of_a_live_member_fenced_in_4_0_accepted_in_4_2():
    for version, error, epoch in (("4.0", Errors.FENCED_MEMBER_EPOCH, 0), ("4.2", Errors.NONE, 2)):
        sim, groups = manager(kafka_version=version)
        join(groups, "m1")
        assert join(groups, "m1").error is Errors.NONE  # epoch 1, previous 0: 0 passes as a retry
        hb(groups, "m1", 1, subscribed_topic_names=["foo", "bar"])  # epoch 2, previous 1
        r = join(groups, "m1", topics=("foo", "bar"))
        assert (r.error, r.member_epoch) == (error, epoch), version
        if error is Errors.NONE:
            assert r.assignment == {"bar": [0, 1, 2], "foo": list(range(6))}


def test_unknown_group_and_unknown_member():
    sim, groups = manager()
    r = hb(groups, "m1", 3)
    assert r.error is Errors.GROUP_ID_NOT_FOUND and r.error_message == "Consumer group g not found."
    r = hb(groups, "m1", -1)  # a leave goes through `consumerGroup(groupId)`, which words it otherwise
    assert r.error is Errors.GROUP_ID_NOT_FOUND and r.error_message == "Group g not found."
    join(groups, "m1")
    r = hb(groups, "m9", 1)
    assert r.error is Errors.UNKNOWN_MEMBER_ID and r.error_message == "Member m9 is not a member of group g."
    assert (r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == (None, 0, 0, None)


# -- request validation (GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid) --
@pytest.mark.parametrize("fields, error, message", [
    (dict(member_id=" ", member_epoch=0), Errors.INVALID_REQUEST, "MemberId can't be empty."),
    (dict(member_id="m", member_epoch=0, instance_id=""), Errors.INVALID_REQUEST, "InstanceId can't be empty."),
    (dict(member_id="m", member_epoch=1, rack_id=" "), Errors.INVALID_REQUEST, "RackId can't be empty."),
    (dict(member_id="m", member_epoch=0), Errors.INVALID_REQUEST,
     "RebalanceTimeoutMs must be provided in first request."),
    (dict(member_id="m", member_epoch=0, rebalance_timeout_ms=1, owned_partitions={"foo": [0]}),
     Errors.INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining."),
    (dict(member_id="m", member_epoch=0, rebalance_timeout_ms=1, owned_partitions={}), Errors.INVALID_REQUEST,
     "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."),
    (dict(member_id="m", member_epoch=-2), Errors.INVALID_REQUEST, "InstanceId can't be null."),
    (dict(member_id="m", member_epoch=-3), Errors.INVALID_REQUEST, "MemberEpoch is invalid."),
    (dict(member_id="m", member_epoch=1, server_assignor="sticky"), Errors.UNSUPPORTED_ASSIGNOR,
     "ServerAssignor sticky is not supported. Supported assignors: uniform, range."),
])
def test_invalid_requests_fail_and_store_nothing(fields, error, message):
    sim, groups = manager()
    r = groups.consumer_group_heartbeat("g", **fields)
    assert (r.error, r.error_message) == (error, message)
    assert groups.group_state("g") is None and not groups.groups


def test_error_codes_of_the_protocol():
    assert [Errors.FENCED_MEMBER_EPOCH.code, Errors.UNRELEASED_INSTANCE_ID.code, Errors.UNSUPPORTED_ASSIGNOR.code,
            Errors.STALE_MEMBER_EPOCH.code, Errors.INVALID_REGULAR_EXPRESSION.code] == [110, 111, 112, 113, 128]
    assert Errors.INVALID_REGULAR_EXPRESSION.exception == "InvalidRegularExpression"
    assert Errors.for_code(113) is Errors.STALE_MEMBER_EPOCH


# -- group.consumer.max.size -------------------------------------------------------------------
def test_full_group_rejects_new_members_but_not_existing_ones():
    sim, groups = manager(group_consumer_max_size=2)
    join(groups, "m1")
    join(groups, "m2")
    r = join(groups, "m3")
    assert r.error is Errors.GROUP_MAX_SIZE_REACHED and r.error.code == 81
    assert r.error_message == "The consumer group has reached its maximum capacity of 2 members."
    assert hb(groups, "m1", 1).error is Errors.NONE
    assert groups.member_ids("g") == ["m1", "m2"]


# -- timers ------------------------------------------------------------------------------------
def test_session_expires_exactly_one_session_timeout_after_the_last_heartbeat():
    sim, groups = manager()
    join(groups, "m1")
    join(groups, "m2")
    sim.advance(5000)
    hb(groups, "m2", 2)
    sim.advance(39999)  # t = 44999
    assert groups.member_ids("g") == ["m1", "m2"]
    sim.advance(1)  # t = 45000: m1's session (last heartbeat at 0) ends
    assert groups.member_ids("g") == ["m2"] and groups.group_epoch("g") == 3
    assert groups.group_state("g") == "Assigning"  # the target waits for the next heartbeat
    assert groups.removal_reason["m1"] == "session_timeout"
    sim.advance(4999)
    assert groups.member_ids("g") == ["m2"]
    sim.advance(1)  # t = 50000
    assert groups.member_ids("g") == [] and groups.group_state("g") == "Empty" and groups.group_epoch("g") == 4
    fenced = kinds(sim, "MemberFenced")
    assert [(t, m, reason) for t, m, _, _, reason, _, _ in fenced] == [(45000, "m1", "session_timeout"),
                                                                      (50000, "m2", "session_timeout")]


def test_heartbeats_keep_a_member_alive_and_the_next_heartbeat_recomputes_after_a_fence():
    sim, groups = manager()
    join(groups, "m1")
    join(groups, "m2")
    for _ in range(20):
        sim.advance(5000)
        hb(groups, "m2", groups.member_epoch("g", "m2"))
    assert groups.member_ids("g") == ["m2"] and groups.group_epoch("g") == 3
    assert groups.target_assignment_epoch("g") == 3
    assert groups.assigned_partitions("g", "m2") == {"foo": list(range(6))}
    assert groups.group_state("g") == "Stable"


def test_rebalance_timeout_fences_a_member_that_does_not_revoke():
    sim, groups = manager()
    join(groups, "m1", rebalance_timeout_ms=10000)
    sim.advance(1000)
    join(groups, "m2")
    sim.advance(1000)
    hb(groups, "m1", 1)  # t = 2000: UNREVOKED_PARTITIONS, the revocation clock starts
    for t in (5000, 8000, 11000):
        sim.advance(t - sim.now)
        hb(groups, "m1", 1)  # alive but never acknowledges
    sim.advance(11999 - sim.now)
    assert "m1" in groups.member_ids("g")
    sim.advance(1)  # t = 12000
    assert groups.member_ids("g") == ["m2"] and groups.removal_reason["m1"] == "rebalance_timeout"
    assert kinds(sim, "MemberFenced")[0][:5] == (12000, "m1", "MemberFenced", 2, "rebalance_timeout")
    r = hb(groups, "m1", 1)
    assert r.error is Errors.UNKNOWN_MEMBER_ID
    r2 = hb(groups, "m2", 2)
    assert (r2.member_epoch, r2.assignment) == (3, {"foo": list(range(6))})


def test_acknowledgement_cancels_the_rebalance_timer():
    sim, groups = manager()
    join(groups, "m1", rebalance_timeout_ms=10000)
    join(groups, "m2")
    hb(groups, "m1", 1)
    group = groups.groups["g"]
    assert "m1" in group.rebalance_timer
    hb(groups, "m1", 1, owned_partitions={"foo": [0, 1, 2]})
    assert "m1" not in group.rebalance_timer
    sim.advance(10000)
    assert groups.member_ids("g") == ["m1", "m2"]


def test_leave_bumps_the_epoch_and_the_group_reads_assigning_until_a_heartbeat():
    sim, groups = manager()
    join(groups, "m1")
    join(groups, "m2")
    r = hb(groups, "m2", -1)
    assert (r.error, r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == (
        Errors.NONE, "m2", -1, 0, None)
    assert groups.group_epoch("g") == 3 and groups.group_state("g") == "Assigning"
    assert groups.removal_reason["m2"] == "leave_group" and "m2" not in groups.groups["g"].session_deadline
    r = hb(groups, "m1", 1)
    assert (r.member_epoch, r.assignment) == (3, None)  # m1 never gave anything up: epoch 3, same partitions
    assert groups.group_state("g") == "Stable" and groups.target_assignment("g") == {"m1": {"foo": list(range(6))}}
    assert hb(groups, "m9", -1).error is Errors.UNKNOWN_MEMBER_ID
    assert hb(groups, "m1", -1, group="other").error is Errors.GROUP_ID_NOT_FOUND


# -- static membership (KIP-345 under KIP-848) ----------------------------------------------------
def test_static_member_leaves_with_minus_two_and_a_new_process_takes_over_its_partitions():
    sim, groups = manager()
    join(groups, "a1", instance_id="A")
    join(groups, "b1", instance_id="B")
    hb(groups, "a1", 1, owned_partitions={"foo": [0, 1, 2]})
    hb(groups, "b1", 2)
    hb(groups, "a1", 2)
    assert groups.group_state("g") == "Stable" and groups.group_epoch("g") == 2
    r = hb(groups, "b1", -2, instance_id="B")
    assert (r.member_id, r.member_epoch, r.assignment) == ("b1", -2, None)
    assert groups.group_epoch("g") == 2 and groups.group_state("g") == "Reconciling"  # no bump
    assert groups.partition_owner("g", "foo", 4) == "b1"  # still held
    r = join(groups, "a9", instance_id="A")
    assert r.error is Errors.UNRELEASED_INSTANCE_ID and r.error.code == 111
    assert r.error_message == ("Static member a9 with instance id A cannot join the group because the instance id "
                               "is owned by a1 member.")
    r = join(groups, "b2", instance_id="B")
    assert (r.member_id, r.member_epoch, r.assignment) == ("b2", 2, {"foo": [3, 4, 5]})
    assert groups.member_ids("g") == ["a1", "b2"] and groups.group_epoch("g") == 2
    assert groups.group_state("g") == "Stable"
    assert kinds(sim, "MemberReplaced")[0][1] == "b2" and kinds(sim, "MemberReplaced")[0][4] == "b1"
    r = hb(groups, "b1", 2, instance_id="B")
    assert r.error is Errors.FENCED_INSTANCE_ID and r.error_message == (
        "Static member b1 with instance id B was fenced by member b2.")
    assert hb(groups, "x", 2, instance_id="C").error is Errors.UNKNOWN_MEMBER_ID


def test_static_member_gone_with_minus_two_is_removed_when_its_session_expires():
    sim, groups = manager()
    join(groups, "a1", instance_id="A")
    sim.advance(3000)
    hb(groups, "a1", -2, instance_id="A")  # the session still counts from t = 0
    sim.advance(42000)
    assert groups.member_ids("g") == [] and groups.group_epoch("g") == 2


def test_static_member_leaving_with_minus_one_is_removed_for_good():
    sim, groups = manager()
    join(groups, "a1", instance_id="A")
    r = hb(groups, "a1", -1, instance_id="A")
    assert (r.member_epoch, groups.member_ids("g"), groups.group_epoch("g")) == (-1, [], 2)
    r = join(groups, "a2", instance_id="A")
    assert (r.error, r.member_epoch) == (Errors.NONE, 3)


# -- metadata ------------------------------------------------------------------------------------
def test_added_partitions_are_noticed_at_the_next_heartbeat():
    sim, groups = manager()
    join(groups, "m1")
    join(groups, "m2")
    hb(groups, "m1", 1, owned_partitions={"foo": [0, 1, 2]})
    hb(groups, "m2", 2)
    groups.create_partitions("foo", 8)
    assert groups.group_epoch("g") == 2  # lazily: nothing happens until a heartbeat
    r = hb(groups, "m2", 2)
    assert r.member_epoch == 3 and r.assignment == {"foo": [3, 4, 5, 7]}
    assert groups.target_assignment("g") == {"m1": {"foo": [0, 1, 2, 6]}, "m2": {"foo": [3, 4, 5, 7]}}
    with pytest.raises(ConfigError, match="partitions can only be added"):
        groups.create_partitions("foo", 8)


def test_creating_a_subscribed_topic_bumps_the_epoch():
    sim, groups = manager()
    join(groups, "m1", topics=("foo", "later"))
    groups.create_partitions("later", 2)
    r = hb(groups, "m1", 1)
    assert r.member_epoch == 2 and r.assignment == {"foo": list(range(6)), "later": [0, 1]}


# -- regular expressions -------------------------------------------------------------------------
def test_invalid_regex_is_rejected_with_code_128():
    sim, groups = manager()
    r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                        subscribed_topic_regex="fo(o", owned_partitions={})
    assert r.error is Errors.INVALID_REGULAR_EXPRESSION and r.error.code == 128
    assert r.error_message == "SubscribedTopicRegex `fo(o` is not a valid regular expression: missing closing )."
    r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                        subscribed_topic_regex="(?!bar).*", owned_partitions={})
    assert r.error is Errors.INVALID_REGULAR_EXPRESSION  # RE2 has no lookahead
    assert not groups.groups


@pytest.mark.parametrize("regex, description", [
    ("(?!bar).*", "invalid or unsupported Perl syntax"),       # lookahead: no flag after "(?"
    ("(?<=a)b", "invalid or unsupported Perl syntax"),         # lookbehind
    ("(?P<n>a)(?P=n)", "invalid or unsupported Perl syntax"),  # named backreference
    ("(a)\\1", "invalid escape sequence"),                   # backreference: parseEscape
    ("x{1001}", "invalid repeat count"),                     # parseRepeat: at most 1000
    ("x{1,99999999999}", "invalid repeat count"),
    ("x{2,1}", "invalid repeat count"),
    ("(?P<n>a)(?P<n>b)", "duplicate capture group name"),
    ("(?P<>a)", "invalid named capture"), ("(?P<a-b>x)", "invalid named capture"),
    ("(?P<ab", "invalid named capture"),
    ("(?z)x", "invalid or unsupported Perl syntax"),           # not a flag RE2J knows
    ("(?#note)x", "invalid or unsupported Perl syntax"),       # RE2 has no comments,
    ("(?>ab)c", "invalid or unsupported Perl syntax"),         # no atomic groups,
    ("(a)?(?(1)b|c)", "invalid or unsupported Perl syntax"),   # no conditionals
    ("a*+b", "invalid nested repetition operator"),          # possessive: a repeat of a repeat
    ("x**", "invalid nested repetition operator"),
])
def test_a_regex_re2j_refuses_is_described_in_re2js_words(regex, description):
    """GroupMetadataManager.throwIfRegularExpressionIsInvalid (KIP-848) compiles the regex with RE2J
    and answers INVALID_REGULAR_EXPRESSION with `PatternSyntaxException.getDescription()`
    (com.google.re2j.Parser's ERR_* texts), also for what Python's `re` accepts (lookaround,
    backreferences, repeat counts over 1000) or refuses in other words."""
    sim, groups = manager()
    r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                        subscribed_topic_regex=regex, owned_partitions={})
    assert r.error is Errors.INVALID_REGULAR_EXPRESSION
    assert r.error_message == f"SubscribedTopicRegex `{regex}` is not a valid regular expression: {description}."


def test_a_repeat_count_of_1000_and_an_escaped_brace_are_valid_regexes():
    """RE2J's parseRepeat takes counts up to 1000; `\\{` is a literal brace, no repeat, and `\\++`
    a literal plus repeated."""
    sim, groups = manager(topics={"foo": 1})
    for regex in ("fo{1,1000}", "fo{2}", "fo{1,}", "x\\{1001}|foo", "x\\++|foo"):
        r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                            subscribed_topic_regex=regex, owned_partitions={})
        assert r.error is Errors.NONE, regex


def test_regex_is_resolved_after_the_response_then_assigned_at_the_next_heartbeat():
    sim, groups = manager(topics={"foo": 2, "food": 1, "bar": 3})
    r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                        subscribed_topic_regex="foo.*", owned_partitions={})
    assert (r.member_epoch, r.assignment) == (1, {})
    sim.advance(0)  # the asynchronous resolution, at the same millisecond
    assert groups.group_epoch("g") == 2 and groups.group_state("g") == "Assigning"
    r = hb(groups, "m1", 1)
    assert (r.member_epoch, r.assignment) == (2, {"foo": [0, 1], "food": [0]})
    groups.create_partitions("football", 1)
    sim.advance(10000)
    hb(groups, "m1", 2)  # 10 s after the last refresh: not yet
    sim.advance(0)
    assert groups.group_epoch("g") == 2
    sim.advance(1)
    hb(groups, "m1", 2)
    sim.advance(0)
    assert groups.group_epoch("g") == 3
    assert hb(groups, "m1", 2).assignment == {"foo": [0, 1], "food": [0], "football": [0]}
    groups.create_partitions("foosball", 1)  # each topic created asks for a refresh again
    sim.advance(10001)
    hb(groups, "m1", 3)
    sim.advance(0)
    assert groups.group_epoch("g") == 4


def test_second_member_with_an_already_resolved_regex_bumps_at_once():
    sim, groups = manager(topics={"foo": 2, "bar": 2})
    for mid in ("m1", "m2"):
        groups.consumer_group_heartbeat("g", member_id=mid, member_epoch=0, rebalance_timeout_ms=1000,
                                        subscribed_topic_regex="foo|bar", owned_partitions={})
        sim.advance(0)
    assert groups.group_epoch("g") == 3
    assert groups.target_assignment("g") == {"m1": {"bar": [0, 1]}, "m2": {"foo": [0, 1]}}


def test_a_changed_regex_resolution_bumps_the_epoch_even_when_the_metadata_does_not_change():
    """`handleRegularExpressionsResult` bumps the epoch when a regex's resolved topics differ from
    the stored ones (an unresolved regex counts as EMPTY), on its own: m1 already subscribes to foo
    by name, so m2's regex resolving to foo changes the resolution but not the subscription metadata."""
    sim, groups = manager(topics={"foo": 2, "bar": 2})
    join(groups, "m1", topics=("foo",))
    groups.consumer_group_heartbeat("g", member_id="m2", member_epoch=0, rebalance_timeout_ms=1000,
                                    subscribed_topic_regex="fo+", owned_partitions={})
    assert groups.group_epoch("g") == 1  # an unresolved regex waits for its resolution
    sim.advance(0)
    assert groups.group_epoch("g") == 2  # the resolution {} -> {foo}
    assert kinds(sim, "GroupEpochBumped")[-1] == (0, None, "GroupEpochBumped", 2, "regex_resolved", 2.0, "Assigning")


def test_a_regex_refresh_that_resolves_nothing_new_keeps_the_epoch():
    """`handleRegularExpressionsResult` bumps only when a resolution or the subscription metadata
    changed: a regex matching no topic resolves to what EMPTY already is, and a later refresh (new
    topics, 10 s after the last one) that resolves the same topics changes nothing either."""
    sim, groups = manager(topics={"foo": 2, "bar": 2})
    for group, regex in (("g", "fo+"), ("none", "nothing.*")):
        groups.consumer_group_heartbeat(group, member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                        subscribed_topic_regex=regex, owned_partitions={})
    sim.advance(0)
    assert (groups.group_epoch("g"), groups.group_epoch("none")) == (2, 1)
    assert hb(groups, "m1", 1).member_epoch == 2
    groups.create_partitions("baz", 1)
    sim.advance(10001)
    hb(groups, "m1", 2)
    refreshes = len([r for r in sim.events.rows if r[4] == "GroupEpochBumped"])
    sim.advance(0)
    assert groups.groups["g"].regex_refresh_ms == 10001  # the refresh ran
    assert groups.group_epoch("g") == 2
    assert len([r for r in sim.events.rows if r[4] == "GroupEpochBumped"]) == refreshes


# -- assignors -------------------------------------------------------------------------------------
def test_pluggable_assignor_sees_members_and_topics_and_its_result_becomes_the_target():
    scripted = Scripted("mine")
    sim, groups = manager(group_consumer_assignors=[scripted, "uniform"])
    scripted.next = {"m1": {"foo": [5, 4]}, "ghost": {"bar": [0]}}
    r = join(groups, "m1", topics=("foo", "nope"), instance_id="i1", rack_id="r1")
    assert r.assignment == {"foo": [4, 5]}
    members, topics = scripted.seen[-1]
    assert topics == {"foo": 6}
    assert members == {"m1": {"subscribed_topic_names": ["foo"], "instance_id": "i1", "rack_id": "r1",
                              "assignment": {}}}
    join(groups, "m2", server_assignor="uniform")  # m2 asks for uniform, m1 for nothing: uniform
    # heterogeneous ("nope" counts as a name): m1 keeps 4-5, the free partitions go least-loaded first
    assert groups.target_assignment("g") == {"m1": {"foo": [3, 4, 5]}, "m2": {"foo": [0, 1, 2]}}
    scripted.next = {"m1": {"foo": [0]}, "m2": {"foo": [1]}}
    hb(groups, "m2", 2, server_assignor="mine")  # one vote each: the first configured assignor wins
    hb(groups, "m1", 1, subscribed_topic_names=["foo"])
    assert scripted.seen[-1][0]["m1"]["assignment"] == {"foo": [3, 4, 5]}
    assert groups.target_assignment("g") == {"m1": {"foo": [0]}, "m2": {"foo": [1]}}


def test_assignor_failure_fails_the_heartbeat_and_stores_nothing():
    class Broken:
        name = "broken"

        def assign(self, members, topics):
            raise PartitionAssignorException("no luck")

    sim, groups = manager(group_consumer_assignors=[Broken()])
    r = join(groups, "m1")
    assert r.error is Errors.UNKNOWN_SERVER_ERROR
    assert r.error_message == "Failed to compute a new target assignment for epoch 1: no luck"
    assert not groups.groups


def spec(members, topics, subscriptions, targets=None, instances=None, kind=None):
    targets = targets or {}
    inverted = {}
    for mid, assignment in targets.items():
        for t, ps in assignment.items():
            for p in ps:
                inverted.setdefault(t, {})[p] = mid
    if kind is None:
        kind = HOMOGENEOUS if len({subscriptions[m] for m in members}) == 1 else HETEROGENEOUS
    return GroupSpec(members, topics, kind, lambda m: subscriptions[m],
                     {m: {t: frozenset(ps) for t, ps in a.items()} for m, a in targets.items()},
                     lambda m: (instances or {}).get(m), lambda m: None, inverted)


def lists(result):
    return {m: {t: sorted(ps) for t, ps in sorted(a.items())} for m, a in result.items()}


def test_uniform_homogeneous_first_assignment_and_the_extra_slot_rule_by_version():
    both = frozenset({"t1", "t3"})
    s = spec(["A", "B"], {"t1": 3, "t3": 2}, {"A": both, "B": both})
    # 4.0: the first member takes the extra partition; 4.1+ (KAFKA-18688) leaves it to the last.
    assert lists(UniformAssignor(stable_extra=False).assign(s)) == {"A": {"t1": [0, 1, 2]}, "B": {"t3": [0, 1]}}
    assert lists(UniformAssignor(stable_extra=True).assign(s)) == {"A": {"t1": [0, 1]},
                                                                   "B": {"t1": [2], "t3": [0, 1]}}


def test_uniform_homogeneous_is_sticky_and_keeps_the_extra_slot_with_its_holder_in_4_1():
    foo = frozenset({"foo"})
    previous = {"A": {"foo": [0, 1]}, "B": {"foo": [2, 3, 4]}}
    s = spec(["A", "B", "C"], {"foo": 7}, {m: foo for m in "ABC"}, targets=previous)
    new = lists(UniformAssignor(stable_extra=True).assign(s))
    assert new == {"A": {"foo": [0, 1]}, "B": {"foo": [2, 3, 4]}, "C": {"foo": [5, 6]}}
    old_rule = lists(UniformAssignor(stable_extra=False).assign(s))
    assert old_rule == {"A": {"foo": [0, 1, 5]}, "B": {"foo": [2, 3]}, "C": {"foo": [4, 6]}}


def test_uniform_heterogeneous_balances_across_different_subscriptions():
    subs = {"A": frozenset({"t1"}), "B": frozenset({"t1", "t2"}), "C": frozenset({"t2"})}
    result = lists(UniformAssignor().assign(spec(["A", "B", "C"], {"t1": 3, "t2": 3}, subs)))
    # t1 first (same ratio, same subscribers, name order): A, B, A; then t2 to C, C, B
    assert result == {"A": {"t1": [0, 2]}, "B": {"t1": [1], "t2": [2]}, "C": {"t2": [0, 1]}}


def test_uniform_heterogeneous_drops_unsubscribed_topics_and_keeps_the_rest():
    subs = {"A": frozenset({"t1"}), "B": frozenset({"t1", "t2"})}
    previous = {"A": {"t1": [0, 1, 2], "t2": [0, 1]}, "B": {}}
    result = lists(UniformAssignor().assign(spec(["A", "B"], {"t1": 3, "t2": 2}, subs, targets=previous)))
    assert result == {"A": {"t1": [0, 1, 2]}, "B": {"t2": [0, 1]}}  # 3 vs 2: balanced, nothing moves


def test_range_is_co_partitioned_and_orders_static_members_first():
    both = frozenset({"t1", "t2"})
    s = spec(["m-b", "m-a", "m-c"], {"t1": 4, "t2": 4}, {m: both for m in ("m-a", "m-b", "m-c")},
             instances={"m-c": "i0"})
    assert lists(RangeAssignor().assign(s)) == {"m-c": {"t1": [0, 1], "t2": [0, 1]},
                                                "m-a": {"t1": [2], "t2": [2]}, "m-b": {"t1": [3], "t2": [3]}}


def test_range_heterogeneous_counts_subscribers_per_topic():
    subs = {"A": frozenset({"t1"}), "B": frozenset({"t1", "t2"}), "C": frozenset({"t2"})}
    assert lists(RangeAssignor().assign(spec(["A", "B", "C"], {"t1": 3, "t2": 2}, subs))) == {
        "A": {"t1": [0, 1]}, "B": {"t1": [2], "t2": [0]}, "C": {"t2": [1]}}


# -- configuration ------------------------------------------------------------------------------
@pytest.mark.parametrize("config, message", [
    (dict(group_consumer_session_timeout_ms=0), r"group\.consumer\.session\.timeout\.ms.*\[1, 2147483647\]"),
    (dict(group_consumer_heartbeat_interval_ms=0), r"group\.consumer\.heartbeat\.interval\.ms.*at least 1"),
    (dict(group_consumer_session_timeout_ms=5000),
     "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms"),
    (dict(group_consumer_max_size=0), r"group\.consumer\.max\.size.*at least 1"),
    (dict(group_consumer_assignors=["uniform", "sticky"]), r"group\.consumer\.assignors.*'uniform', 'range'"),
    (dict(group_consumer_assignors=["range", "range"]), "must not be duplicated"),
    (dict(group_consumer_assignors=[]), "at least one assignor"),
])
def test_bad_configs_raise_config_error_naming_the_kafka_config(config, message):
    with pytest.raises(ConfigError, match=message):
        manager(**config)


def test_assignors_accept_kafka_list_syntax_and_class_names():
    assert list(server_assignors("range, uniform")) == ["range", "uniform"]
    assert list(server_assignors(["org.apache.kafka.coordinator.group.assignor.UniformAssignor"])) == ["uniform"]
    with pytest.raises(TypeError, match="assign"):
        server_assignors([type("NoAssign", (), {"name": "x"})()])


# -- restoring a group -------------------------------------------------------------------------
def loaded(**config):
    sim, groups = manager(**config)
    groups.load_consumer_group("g", group_epoch=10, target_assignment_epoch=10, members={
        "m1": {"member_epoch": 10, "previous_member_epoch": 9, "state": "STABLE",
               "assigned": {"foo": [0, 1, 2], "bar": [0, 1]}, "subscribed_topic_names": ["foo", "bar"],
               "rebalance_timeout_ms": 5000, "instance_id": None, "server_assignor": "range"},
        "m2": {"member_epoch": 10, "previous_member_epoch": 9, "state": "STABLE",
               "assigned": {"foo": [3, 4, 5], "bar": [2]}, "subscribed_topic_names": ["foo", "bar"],
               "rebalance_timeout_ms": 5000, "server_assignor": "range"},
    }, target_assignment={"m1": {"foo": [0, 1, 2], "bar": [0, 1]}, "m2": {"foo": [3, 4, 5], "bar": [2]}})
    return sim, groups


def test_loaded_group_has_no_session_timers_until_members_heartbeat():
    sim, groups = loaded()
    assert groups.group_state("g") == "Stable" and kinds(sim, "GroupLoaded")[0][5] == 2.0
    sim.advance(10**6)
    assert groups.member_ids("g") == ["m1", "m2"]
    assert hb(groups, "m1", 10).member_epoch == 10 and groups.group_epoch("g") == 10  # metadata unchanged
    sim.advance(45000)
    assert groups.member_ids("g") == ["m2"]


def test_a_loaded_group_records_its_state_so_an_unchanged_state_writes_no_row():
    """A load stores the group's state (`ConsumerGroup.state`, replayed): a first heartbeat that keeps
    the group Stable changes no state, so no StateChanged row; a leave then makes it Assigning (epoch
    11, target 10): one row, from Stable."""
    sim, groups = loaded()
    hb(groups, "m1", 10)
    assert kinds(sim, "StateChanged") == []
    hb(groups, "m2", -1)
    assert [(r[3], r[4], r[6]) for r in kinds(sim, "StateChanged")] == [(11, "Stable", "Assigning")]


def test_arm_loaded_timers_does_what_kafkas_on_loaded_does():
    sim, groups = loaded()
    groups.arm_loaded_timers("g")
    sim.advance(45000)
    assert groups.member_ids("g") == [] and groups.group_epoch("g") == 12


def test_third_member_reconciles_through_range_with_exact_epochs():
    sim, groups = loaded()
    r3 = join(groups, "m3", topics=("foo", "bar"), server_assignor="range")
    assert (r3.member_epoch, r3.assignment, groups.member_state("g", "m3")) == (11, {}, "UNRELEASED_PARTITIONS")
    assert groups.target_assignment("g") == {"m1": {"bar": [0], "foo": [0, 1]}, "m2": {"bar": [1], "foo": [2, 3]},
                                             "m3": {"bar": [2], "foo": [4, 5]}}
    r1 = hb(groups, "m1", 10)
    assert (r1.member_epoch, r1.assignment) == (10, {"bar": [0], "foo": [0, 1]})
    assert groups.partitions_pending_revocation("g", "m1") == {"bar": [1], "foo": [2]}
    r2 = hb(groups, "m2", 10)
    assert (r2.member_epoch, r2.assignment) == (10, {"foo": [3]})  # gives up foo 4-5 and bar 2
    assert hb(groups, "m3", 11).assignment is None  # everything it wants is still held
    r1 = hb(groups, "m1", 10, owned_partitions={"foo": [0, 1], "bar": [0]})
    assert (r1.member_epoch, groups.member_state("g", "m1")) == (11, "STABLE")
    r2 = hb(groups, "m2", 10, owned_partitions={"foo": [3]})
    assert (r2.member_epoch, r2.assignment) == (11, {"bar": [1], "foo": [2, 3]})
    r3 = hb(groups, "m3", 11)
    assert (r3.member_epoch, r3.assignment) == (11, {"bar": [2], "foo": [4, 5]})
    assert groups.group_state("g") == "Stable"


def test_load_rejects_two_holders_of_one_partition_and_unknown_fields():
    sim, groups = manager()
    with pytest.raises(ConfigError, match="still owned by a"):
        groups.load_consumer_group("g", group_epoch=1, members={"a": {"assigned": {"foo": [0]}},
                                                                "b": {"assigned": {"foo": [0]}}})
    with pytest.raises(ConfigError, match="Unknown consumer group member fields"):
        groups.load_consumer_group("g", group_epoch=1, members={"a": {"epoch": 1}})


def test_replay_restores_every_member_field_as_the_records_hold_it():
    """`ConsumerGroupMember.Builder.updateWith` (both records): every stored field comes back as
    written; a classic member's record without a client id reads the Builder's default, ""."""
    sim, groups = manager()
    groups.load_consumer_group("g", group_epoch=7, target_assignment_epoch=6, members={
        "a": {"member_epoch": 6, "previous_member_epoch": 5, "state": "UNREVOKED_PARTITIONS",
              "assigned": {"foo": [0, 1]}, "pending_revocation": {"foo": [2]}, "subscribed_topic_names": ["foo"],
              "subscribed_topic_regex": "b.*", "rebalance_timeout_ms": 4321, "instance_id": "i-a",
              "rack_id": "rack-1", "server_assignor": "range",
              "classic": {"session_timeout_ms": 12000, "protocols": [("range", b"\x00")], "client_id": "app-a"}},
        "b": {"rebalance_timeout_ms": 0, "classic": {"session_timeout_ms": 9000, "protocols": [("range", b"\x01")]}}})
    a, b = groups.member("g", "a"), groups.member("g", "b")
    b_classic = {"session_timeout_ms": 9000, "protocols": [("range", b"\x01")]}
    assert (a.member_epoch, a.previous_member_epoch, a.state, a.instance_id, a.rack_id, a.rebalance_timeout_ms,
            a.server_assignor, a.subscribed_topic_regex) == (6, 5, "UNREVOKED_PARTITIONS", "i-a", "rack-1", 4321,
                                                             "range", "b.*")
    assert (sorted(a.subscribed_topic_names), a.assigned, a.pending_revocation) == \
        (["foo"], {"foo": frozenset({0, 1})}, {"foo": frozenset({2})})
    assert (a.classic.session_timeout_ms, a.classic.protocols, a.classic.client_id) == \
        (12000, (("range", b"\x00"),), "app-a")
    assert (b.classic.session_timeout_ms, b.classic.client_id, b.member_epoch, b.previous_member_epoch,
            b.rebalance_timeout_ms, b.rack_id, b.state) == (9000, "", 0, -1, 0, None, "STABLE")
    # loaded without one, a classic member keeps the builder's -1, as Kafka's own tests load them
    groups.load_consumer_group("h", group_epoch=1, members={"c": {"classic": b_classic}})
    assert groups.member("h", "c").rebalance_timeout_ms == -1


def test_load_names_group_epoch_and_its_int32_range_and_the_member_states():
    """The group epoch is a non-negative int32 (0 is a new group's); an unknown member state names
    the four of `MemberState`."""
    sim, groups = manager()
    groups.load_consumer_group("g", group_epoch=0)
    assert groups.group_epoch("g") == 0
    groups.load_consumer_group("g", group_epoch=2**31 - 1)
    assert groups.group_epoch("g") == 2**31 - 1
    with pytest.raises(ConfigError) as e:
        groups.load_consumer_group("g", group_epoch=-1)
    assert str(e.value) == ("Invalid value -1 for configuration group_epoch: Value must be at least 0 "
                            "(valid range: [0, 2147483647])")
    with pytest.raises(ConfigError, match=r"^Invalid value 2147483648 for configuration group_epoch: "
                                          r"Value must be no more than 2147483647"):
        groups.load_consumer_group("g", group_epoch=2**31)
    with pytest.raises(ConfigError) as e:
        groups.load_consumer_group("g", group_epoch=3, target_assignment_epoch=4)
    assert str(e.value) == "target_assignment_epoch (4) must not exceed group_epoch (3)"
    with pytest.raises(ConfigError) as e:
        groups.load_consumer_group("g", group_epoch=3, members={"a": {"state": "ASSIGNING"}})
    assert str(e.value) == ("Invalid member state 'ASSIGNING' for 'a'; valid: STABLE, UNREVOKED_PARTITIONS, "
                            "UNRELEASED_PARTITIONS, UNKNOWN")


def test_reloading_a_group_drops_the_timers_of_the_copy_it_replaces():
    """A second load (the coordinator moved back) replaces the group: the old copy's session timers
    are cancelled, and the new one has none until `onLoaded` or a heartbeat."""
    sim, groups = loaded()
    groups.arm_loaded_timers("g")
    sim.advance(40000)
    groups.load_consumer_group("g", group_epoch=10, members={"m1": {"member_epoch": 10, "assigned": {"foo": [0]},
                                                                  "subscribed_topic_names": ["foo"]}},
                               target_assignment={"m1": {"foo": [0]}})
    assert sim.peek() is None  # nothing left of the old copy's session timers
    sim.advance(10**6)
    assert groups.member_ids("g") == ["m1"] and groups.group_epoch("g") == 10


def test_a_loaded_group_rereads_its_stored_metadata_and_regexes_at_the_first_heartbeat():
    """The stored `{topic: partitions}` and regex resolution are what a load restores; the refresh
    deadline is 0, so the first heartbeat compares them with the cluster and bumps on a change."""
    sim, groups = manager()
    groups.load_consumer_group("g", group_epoch=4, members={
        "a": {"member_epoch": 4, "assigned": {"foo": [0, 1, 2, 3]}, "subscribed_topic_names": ["foo"],
              "rebalance_timeout_ms": 5000}}, target_assignment={"a": {"foo": [0, 1, 2, 3]}},
        subscription_metadata={"foo": 4})
    assert groups.groups["g"].subscription_metadata == {"foo": 4}
    r = hb(groups, "a", 4)
    assert (r.member_epoch, r.assignment, groups.group_epoch("g")) == (5, {"foo": [0, 1, 2, 3, 4, 5]}, 5)
    sim, groups = manager(topics={"foo": 2, "fab": 1})
    groups.load_consumer_group("g", group_epoch=4, members={
        "a": {"member_epoch": 4, "assigned": {"foo": [0, 1]}, "subscribed_topic_regex": "f.*",
              "rebalance_timeout_ms": 5000}}, target_assignment={"a": {"foo": [0, 1]}},
        resolved_regexes={"f.*": ["foo"]}, subscription_metadata={"foo": 2})
    assert groups.groups["g"].resolved_regexes == {"f.*": frozenset({"foo"})}


# -- Kafka 4.2 reconciliation changes ----------------------------------------------------------------
def test_4_2_unsubscribing_revokes_at_once_without_a_new_target():
    results = {}
    for version in ("4.0", "4.2"):
        sim, groups = manager(group_consumer_assignors=[Scripted("fixed")], kafka_version=version)
        fixed = groups.assignors["fixed"].assignor
        fixed.next = {"m1": {"foo": [0], "bar": [0]}}
        join(groups, "m1", topics=("foo", "bar"))
        fixed.next = {"m1": {"foo": [0], "bar": [0]}}  # the assignor keeps bar although m1 drops it
        r = hb(groups, "m1", 1, subscribed_topic_names=["foo"])
        results[version] = (r.member_epoch, r.assignment, groups.member_state("g", "m1"))
    assert results["4.0"] == (2, None, "STABLE")  # bar stays until the assignor drops it
    assert results["4.2"] == (1, {"foo": [0]}, "UNREVOKED_PARTITIONS")  # KAFKA-19431


def test_4_2_a_member_subscribed_by_names_and_a_regex_keeps_the_topics_of_both():
    """`CurrentAssignmentBuilder.subscribedTopicIds` (4.2): the member's subscribed topics are its
    names and its resolved regex together (`UnionSet`). Dropping the name qux revokes qux at once
    (KAFKA-19431); foo (still a name) and bar (matched by ba.*) stay, though the assignor keeps all three."""
    fixed = Scripted("fixed")
    sim, groups = manager(topics={"foo": 1, "bar": 1, "qux": 1}, group_consumer_assignors=[fixed],
                          kafka_version="4.2")
    fixed.next = {"m1": {"foo": [0], "bar": [0], "qux": [0]}}
    join(groups, "m1", topics=("foo", "qux"), subscribed_topic_regex="ba.*")
    sim.advance(0)  # the regex resolves to bar: epoch 2
    assert hb(groups, "m1", 1).assignment == {"foo": [0], "bar": [0], "qux": [0]}
    r = hb(groups, "m1", 2, subscribed_topic_names=["foo"])
    assert (r.member_epoch, r.assignment, groups.member_state("g", "m1")) == (
        2, {"foo": [0], "bar": [0]}, "UNREVOKED_PARTITIONS")


def test_4_2_a_member_revoking_again_keeps_its_epoch():
    """KAFKA-19974: 4.0 moves a member that must revoke again to epoch + 1, 4.2 keeps its epoch."""
    for version, epoch in (("4.0", 2), ("4.2", 1)):
        fixed = Scripted("fixed")
        sim, groups = manager(group_consumer_assignors=[fixed], kafka_version=version)
        fixed.next = {"m1": {"foo": [0, 1, 2]}}
        join(groups, "m1")
        fixed.next = {"m1": {"foo": [0, 1]}}
        join(groups, "m2", topics=("bar",))  # epoch 2: m1 must give up foo-2
        hb(groups, "m1", 1)
        fixed.next = {"m1": {"foo": [0]}}
        join(groups, "m3", topics=("bar",))  # epoch 3: and foo-1 too
        r = hb(groups, "m1", 1, owned_partitions={"foo": [0, 1]})  # acknowledges foo-2 only
        assert (r.member_epoch, r.assignment) == (epoch, {"foo": [0]}), version
        assert groups.member_state("g", "m1") == "UNREVOKED_PARTITIONS"


def test_own_pending_partition_coming_back_is_regranted_at_once_from_4_0_2():
    """KAFKA-19449: a partition the member is revoking that returns to its target."""
    for version, state, assignment in (("4.0.0", "UNRELEASED_PARTITIONS", {"foo": [0, 1]}),
                                       ("4.0.2", "STABLE", {"foo": [0, 1, 2]})):
        fixed = Scripted("fixed")
        sim, groups = manager(group_consumer_assignors=[fixed], kafka_version=version)
        fixed.next = {"m1": {"foo": [0, 1, 2]}}
        join(groups, "m1")
        fixed.next = {"m1": {"foo": [0, 1]}}
        join(groups, "m2", topics=("bar",))
        hb(groups, "m1", 1)  # revoking foo-2
        fixed.next = {"m1": {"foo": [0, 1, 2]}}
        join(groups, "m3", topics=("bar",))  # foo-2 is m1's again
        r = hb(groups, "m1", 1, owned_partitions={"foo": [0, 1]})
        assert (r.member_epoch, groups.member_state("g", "m1"), groups.assigned_partitions("g", "m1")) == (
            3, state, assignment), version
        r = hb(groups, "m1", 3)
        assert groups.assigned_partitions("g", "m1") == {"foo": [0, 1, 2]}


# -- events ---------------------------------------------------------------------------------------
def test_event_rows_tell_the_story_of_a_join():
    sim, groups = manager()
    join(groups, "m1")
    got = [(kind, member, gen, reason, value, state) for _, member, kind, gen, reason, value, state in
           kinds(sim, "ConsumerGroupHeartbeat", "MemberJoined", "GroupEpochBumped", "TargetAssignmentComputed",
                 "MemberEpochBumped", "StateChanged")]
    assert got == [
        ("ConsumerGroupHeartbeat", "m1", 1, None, 0.0, "Stable"),
        ("MemberJoined", "m1", 0, None, None, "Stable"),
        ("GroupEpochBumped", None, 1, "new_group", 1.0, "Assigning"),
        ("TargetAssignmentComputed", None, 1, "uniform", 1.0, "Reconciling"),
        ("MemberEpochBumped", "m1", 1, "STABLE", 1.0, "Stable"),
        ("StateChanged", None, 1, "Empty", None, "Stable"),
    ]
    assert all(r[1] == "coordinator" and r[2] == "g" for r in sim.events.rows)


def test_log_hook_receives_what_kafka_logs():
    calls = []
    sim, groups = manager(log=lambda *args: calls.append(args))
    join(groups, "m1")
    hb(groups, "m1", -1)
    assert [c[1] for c in calls] == ["member_joined", "group_epoch_bumped", "target_assignment_computed",
                                     "member_reconciled", "member_left", "group_epoch_bumped"]
    assert calls[2][4] == {"epoch": 1, "assignor": "uniform", "members": 1, "changed": 1}


def test_delete_group_only_when_empty_then_dead():
    sim, groups = manager()
    join(groups, "m1")
    assert groups.delete_group("g") is Errors.NON_EMPTY_GROUP
    hb(groups, "m1", -1)
    assert groups.delete_group("g") is Errors.NONE and groups.group_state("g") == "Dead"
    assert groups.delete_group("g") is Errors.GROUP_ID_NOT_FOUND


def test_the_steady_heartbeat_shortcut_answers_as_the_full_path_does():
    outcomes = []
    for rebalance_timeout in (-1, 300000):  # -1 takes the shortcut; re-sending the same value does not
        sim, groups = manager()
        join(groups, "m1", instance_id="i1")
        join(groups, "m2")
        hb(groups, "m1", 1, instance_id="i1", owned_partitions={"foo": [0, 1, 2]})
        hb(groups, "m2", 2)
        sim.advance(7)
        r1 = hb(groups, "m1", 2, instance_id="i1", rebalance_timeout_ms=rebalance_timeout)
        r2 = hb(groups, "m2", 2, rebalance_timeout_ms=rebalance_timeout)
        group = groups.groups["g"]
        outcomes.append((repr(r1), repr(r2), dict(group.session_deadline), groups.group_state("g"),
                         [row for row in sim.events.rows if row[0] == 7]))
    assert outcomes[0] == outcomes[1]


def test_assignment_interval_of_kafka_4_3_batches_joins():
    """4.3 (KIP-1263): the group starts at epoch 1 (KAFKA-20268); the first join computes epoch 2's
    target at once, the next joins only bump the epoch and reconcile towards epoch 2's target."""
    sim, groups = manager(group_consumer_assignment_interval_ms=1000, kafka_version="4.3")
    join(groups, "m1")  # no target computed yet: computed at once
    for mid in ("m2", "m3"):
        r = join(groups, mid)
        assert (r.member_epoch, r.assignment) == (2, {})  # the previous target epoch
    assert (groups.group_epoch("g"), groups.target_assignment_epoch("g"), groups.group_state("g")) == (
        4, 2, "Assigning")
    sim.advance(1000)
    r = hb(groups, "m3", 2)
    assert (r.member_epoch, groups.target_assignment_epoch("g"), groups.stats["assignments"]) == (4, 4, 2)


def test_assignment_interval_does_not_exist_before_kafka_4_3():
    with pytest.raises(ConfigError, match="'group.consumer.assignment.interval.ms' does not exist in Kafka 4.2: it "
                                          r"was added in Kafka 4.3 \(KIP-1263, KAFKA-20300\)"):
        manager(group_consumer_assignment_interval_ms=1000, kafka_version="4.2")
    assert manager(group_consumer_assignment_interval_ms=0, kafka_version="4.2")[1].assignment_interval_ms == 0


def test_arm_loaded_timers_also_arms_rebalance_timers_of_revoking_members():
    sim, groups = manager()
    groups.load_consumer_group("g", group_epoch=5, target_assignment_epoch=5, members={
        "m1": {"member_epoch": 4, "previous_member_epoch": 4, "state": "UNREVOKED_PARTITIONS",
               "assigned": {"foo": [0]}, "pending_revocation": {"foo": [1]}, "subscribed_topic_names": ["foo"],
               "rebalance_timeout_ms": 3000}}, target_assignment={"m1": {"foo": [0]}})
    groups.arm_loaded_timers("g")
    sim.advance(2999)
    assert groups.member_ids("g") == ["m1"]
    sim.advance(1)
    assert groups.member_ids("g") == [] and groups.removal_reason["m1"] == "rebalance_timeout"
    assert groups.stats["timer_events"] == 1  # the rebalance timer; no session timer has fired yet



def test_each_rebalance_timer_that_fires_counts_once_among_the_timer_events():
    """Two revoking members loaded with rebalance timeouts of 3 s and 4 s: each timer fences its member
    when it fires, and each firing is one more timer event (none reset the count)."""
    sim, groups = manager()
    member = {"member_epoch": 4, "previous_member_epoch": 4, "state": "UNREVOKED_PARTITIONS",
              "subscribed_topic_names": ["foo"]}
    groups.load_consumer_group("g", group_epoch=5, target_assignment_epoch=5, members={
        "m1": {**member, "assigned": {"foo": [0]}, "pending_revocation": {"foo": [1]}, "rebalance_timeout_ms": 3000},
        "m2": {**member, "assigned": {"foo": [2]}, "pending_revocation": {"foo": [3]}, "rebalance_timeout_ms": 4000}},
        target_assignment={"m1": {"foo": [0]}, "m2": {"foo": [2]}})
    groups.arm_loaded_timers("g")
    sim.advance(3000)
    assert (groups.member_ids("g"), groups.stats["timer_events"]) == (["m2"], 1)
    sim.advance(1000)
    assert (groups.member_ids("g"), groups.stats["timer_events"]) == ([], 2)
    assert [r[:2] for r in kinds(sim, "MemberFenced")] == [(3000, "m1"), (4000, "m2")]

# -- invariants under random traffic, and scale ----------------------------------------------------
def test_random_traffic_never_gives_a_partition_two_owners_and_converges():
    sim, groups = manager(topics={"foo": 7, "bar": 4})
    rng = random.Random(7)
    epochs, owned = {}, {}
    subs = [("foo",), ("bar",), ("foo", "bar")]
    for step in range(3000):
        mid = f"m{rng.randrange(8)}"
        action = rng.random()
        if mid not in epochs:
            r = join(groups, mid, topics=rng.choice(subs), rebalance_timeout_ms=20000)
        elif action < 0.05:
            r = hb(groups, mid, -1)
        elif action < 0.1:
            r = hb(groups, mid, epochs[mid], subscribed_topic_names=list(rng.choice(subs)))
        else:
            r = hb(groups, mid, epochs[mid], owned_partitions=owned.get(mid))
        if r.error is not Errors.NONE or r.member_epoch < 0:
            epochs.pop(mid, None)
            owned.pop(mid, None)
        else:
            epochs[mid] = r.member_epoch
            if r.assignment is not None:
                owned[mid] = r.assignment
        sim.advance(rng.choice((0, 100, 1000)))
        held = [(t, p) for m in groups.member_ids("g") for a in (groups.assigned_partitions("g", m),
                groups.partitions_pending_revocation("g", m)) for t, ps in a.items() for p in ps]
        assert len(held) == len(set(held)), step
    for _ in range(4):  # requests stop changing: everyone acknowledges what it has
        for mid in list(epochs):
            r = hb(groups, mid, epochs[mid], owned_partitions=owned.get(mid))
            epochs[mid] = r.member_epoch
            owned[mid] = r.assignment if r.assignment is not None else owned.get(mid)
    assert groups.group_state("g") == "Stable"
    assert all(groups.member_epoch("g", m) == groups.group_epoch("g") for m in groups.member_ids("g"))


def test_a_thousand_members_join_and_heartbeat_quickly():
    sim, groups = manager(topics={"foo": 100})
    for i in range(1000):
        join(groups, f"m{i:04d}")
    assert groups.group_epoch("g") == 1000 and groups.stats["assignments"] == 1000
    for i in range(1000):
        hb(groups, f"m{i:04d}", groups.member_epoch("g", f"m{i:04d}"), owned_partitions={})
    for i in range(1000):
        hb(groups, f"m{i:04d}", groups.member_epoch("g", f"m{i:04d}"))
    assert groups.group_state("g") == "Stable" and groups.stats["assignments"] == 1000
    sizes = [sum(map(len, groups.assigned_partitions("g", f"m{i:04d}").values())) for i in range(1000)]
    assert sorted(set(sizes)) == [0, 1] and sum(sizes) == 100


# The version switches, one row per release around each boundary. Expected values come from the
# Jira fix versions named in `ProtocolRules`/`Rules` (KAFKA-19233, KAFKA-19891/19899, KAFKA-18688,
# KAFKA-19974, KAFKA-19449, KAFKA-19431), not from the code under test.
#   version   rejoin0 regex  extra  keeps  own_pending  unsub
RULES_TABLE = [
    ("3.7",    False, False, False, False, False, False),
    ("4.0",    False, False, False, False, False, False),
    ("4.0.1",  False, False, False, False, False, False),
    ("4.0.2",  False, False, False, False, True,  False),
    ("4.0.9",  False, False, False, False, True,  False),
    ("4.1",    False, False, True,  False, False, False),
    ("4.1.1",  False, False, True,  False, False, False),
    ("4.1.2",  False, True,  True,  False, True,  False),
    ("4.2",    True,  True,  True,  True,  True,  True),
    ("4.2.0",  True,  True,  True,  True,  True,  True),
]


@pytest.mark.parametrize("version, rejoin0, regex, extra, keeps, own_pending, unsub", RULES_TABLE)
def test_protocol_rules_by_version(version, rejoin0, regex, extra, keeps, own_pending, unsub):
    from kafkasim.coordinator.modern.consumer import ProtocolRules, Rules

    rules = ProtocolRules.for_version(version)
    assert (rules.rejoin_with_epoch_zero, rules.bump_on_regex_clear, rules.uniform_stable_extra) == (
        rejoin0, regex, extra)
    assert rules.reconciliation == Rules(unrevoked_keeps_epoch=keeps, own_pending_not_unreleased=own_pending,
                                         revoke_unsubscribed_now=unsub)
    # Two-part versions are padded with zeros: "4.1" is 4.1.0.
    assert rules.version == tuple(int(p) for p in (version + ".0.0").split("."))[:3]
    assert Rules() == Rules(False, False, False)


def test_protocol_rules_of_a_version_given_as_a_tuple():
    from kafkasim.coordinator.modern.consumer import ProtocolRules

    assert ProtocolRules.for_version((4,)).version == (4, 0, 0)
    assert ProtocolRules.for_version((4, 1)) == ProtocolRules.for_version("4.1.0")
    assert ProtocolRules.for_version((4, 1, 2, 7)).version == (4, 1, 2)


def test_a_heartbeat_response_and_an_api_error_read_as_kafkas():
    """An error response shows only its error and message (ConsumerGroupHeartbeatResponse.json's
    defaults for the rest); an ApiError's text is the error name and its message, Kafka's default
    message unless the handler gave one."""
    from kafkasim.coordinator.modern.consumer import ApiError, ConsumerGroupHeartbeatResponse

    ok = ConsumerGroupHeartbeatResponse(member_id="m1", member_epoch=3, heartbeat_interval_ms=5000,
                                        assignment={"foo": [0]})
    assert repr(ok) == ("ConsumerGroupHeartbeatResponse(error=Errors.NONE, member_id='m1', member_epoch=3, "
                        "heartbeat_interval_ms=5000, assignment={'foo': [0]})")
    failed = ConsumerGroupHeartbeatResponse(Errors.FENCED_MEMBER_EPOCH, "The member epoch is fenced.")
    assert repr(failed) == ("ConsumerGroupHeartbeatResponse(error=Errors.FENCED_MEMBER_EPOCH, "
                            "error_message='The member epoch is fenced.')")
    assert failed.done and (failed.member_id, failed.member_epoch, failed.assignment) == (None, 0, None)
    given = ApiError(Errors.UNKNOWN_MEMBER_ID, "Member m9 is not a member of group g.")
    assert str(given) == "UNKNOWN_MEMBER_ID: Member m9 is not a member of group g."
    assert given.message == "Member m9 is not a member of group g."
    default = ApiError(Errors.UNKNOWN_MEMBER_ID)
    assert str(default) == "UNKNOWN_MEMBER_ID: The coordinator is not aware of this member."  # Errors.java
    assert default.message == "The coordinator is not aware of this member."


def test_a_member_subscribed_by_names_and_by_a_regex_is_assigned_the_topics_of_both():
    """The group's subscribed topics are a member's names plus what its regex resolved to (KIP-848;
    `ConsumerGroup`'s subscribed topic names count both): the names at once, the regex's topics once
    resolved, at the next heartbeat."""
    sim, groups = manager(topics={"foo": 2, "food": 1, "bar": 3})
    r = groups.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=1000,
                                        subscribed_topic_names=["bar"], subscribed_topic_regex="foo.*",
                                        owned_partitions={})
    assert (r.error, r.member_epoch, r.assignment) == (Errors.NONE, 1, {"bar": [0, 1, 2]})
    sim.advance(0)
    r = hb(groups, "m1", 1)
    assert (r.member_epoch, r.assignment) == (2, {"bar": [0, 1, 2], "foo": [0, 1], "food": [0]})


def test_deleting_a_consumer_group_deletes_its_offsets_and_a_refusal_keeps_them():
    """GroupMetadataManager.deleteGroup (via GroupCoordinatorService.deleteGroups) removes the group
    together with its committed offsets (OffsetMetadataManager.deleteAllOffsets); a group that still
    has members is refused NON_EMPTY_GROUP and keeps everything."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"foo": 3})
    r = coord.consumer_group_heartbeat("c", member_id="c1", member_epoch=0, rebalance_timeout_ms=300000,
                                       subscribed_topic_names=["foo"], owned_partitions={})
    assert coord.commit_offsets("c", "c1", r.member_epoch, {("foo", 0): 5}).error is Errors.NONE
    assert coord.delete_groups(["c"]) == {"c": Errors.NON_EMPTY_GROUP}
    assert coord.committed("c") == {("foo", 0): 5}
    coord.consumer_group_heartbeat("c", member_id="c1", member_epoch=-1)  # LeaveGroup
    assert coord.delete_groups(["c"]) == {"c": Errors.NONE}
    assert (coord.committed("c"), coord.group_type("c")) == ({}, None)
