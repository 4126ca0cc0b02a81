"""The share-groups request-level API (issue 28's design, "Share groups: the request-level API"),
section by section: every name, signature, return shape, error, code and message it lists, executed
as written. Expectations come from the design and from Kafka's source at the tags it names
(GroupMetadataManager.java, GroupCoordinatorService.java, KafkaApis.scala, SharePartition.java,
SimpleAssignor.java; 4.3 and 4.4 at confluentinc/kafka branches 4.3 and 4.4), worked out by hand.
"""

from __future__ import annotations

import inspect

import pytest

from kafkasim import Errors, GroupCoordinator, Simulation
from kafkasim.coordinator.assignor import GroupSpec, PartitionAssignorException, SimpleAssignor, simple_share_assign
from kafkasim.coordinator.modern.share import AcquiredRecords, SharePartition, ShareGroupHeartbeatResponse
from kafkasim.core.engine import Timer
from kafkasim.core.errors import ConfigError

from coordinator_helpers import glance_share_admin, glance_share_coordinator


def coord_for(version="4.2", topics=None, sim=None, **kw) -> GroupCoordinator:
    return GroupCoordinator(sim or Simulation(seed=0), kafka_version=version,
                            topics={"foo": 3} if topics is None else topics, **kw)


def join(coord, group="g", member="m1", topics=("foo",), epoch=0):
    return coord.share_group_heartbeat(group, member_id=member, member_epoch=epoch,
                                       subscribed_topic_names=None if topics is None else list(topics))


def assigned(coord, group="g", member="m1", version="4.2"):
    """Join, answer the share-state initialization, heartbeat: the member holds its target."""
    r = join(coord, group, member)
    coord.complete_share_init(group)
    return coord.share_group_heartbeat(group, member_id=member, member_epoch=r.member_epoch)


# == At a glance: the block run as written, each line's documented result checked ===================
def test_at_a_glance():
    sim = Simulation(seed=0)
    coord = glance_share_coordinator(sim)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=0, rack_id=None, subscribed_topic_names=["foo"])
    assert (r.error, r.error_message, r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == \
        (Errors.NONE, None, "m1", 1, 5000, {})
    assert coord.complete_share_init("g") is None
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=1)
    assert (r.member_epoch, r.assignment) == (2, {"foo": [0, 1, 2]})
    assert coord.group_type("g") == "share" and coord.group_state("g") == "Stable"
    assert (coord.group_epoch("g"), coord.target_assignment_epoch("g")) == (2, 2)
    assert coord.target_assignment("g") == {"m1": {"foo": [0, 1, 2]}}
    assert (coord.member_ids("g"), coord.member_epoch("g", "m1"), coord.assigned_partitions("g", "m1")) == \
        (["m1"], 2, {"foo": [0, 1, 2]})
    glance_share_admin(coord)
    sp = coord.share_partition("g", "foo", 0)
    got = sp.acquire("m1", 500, fetch_offset=sp.next_fetch_offset, log_batches=[(0, 99), (100, 149)])
    assert got == [AcquiredRecords(first_offset=0, last_offset=149, delivery_count=1)]
    assert [t.time for t in sp.lock_timers()] == [60000]  # the group's 60 s lock, read when armed
    assert sp.acknowledge("m1", [(0, 99, "ACCEPT"), (100, 149, "RELEASE")]) is Errors.NONE
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset, sp.delivery_complete_count) == (100, 149, 100, 0)
    assert (sp.state(120), sp.delivery_count(120), sp.owner(120)) == ("AVAILABLE", 1, "")
    # SPSO moved inside the batch, which stays cached under its first offset (split per offset)
    assert sp.cached_batches() == [(0, 149)] and sp.can_acquire_records() is True
    assert sp.lock_timers() == [] and sp.stats == {"write_share_group_state": 1, "timer_events": 0}
    sp.acquire("m1", 500, log_batches=[(100, 149)])
    assert sp.release_all("m1") is Errors.NONE
    assert (sp.state(120), sp.delivery_count(120), sp.stats["write_share_group_state"]) == ("AVAILABLE", 2, 2)
    sim.advance(30001)
    assert coord.member_ids("g") == ["m1"]   # 50 s session (group config): not yet
    sim.advance(20000)
    assert coord.member_ids("g") == [] and coord.group_state("g") == "Empty"


def test_at_a_glance_direct_share_partition_and_assignor():
    sim = Simulation(seed=0)
    sp = SharePartition(sim, "g", "foo", 0, kafka_version="4.2", max_in_flight_records=20,
                        max_delivery_count=2, default_record_lock_duration_ms=100)
    assert sp.load_state(5, [(15, 34, "AVAILABLE", 4)]) is None
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (5, 34, 5)
    assert simple_share_assign("4.2", {"A": ["T1"], "B": ["T1"], "C": ["T1"]}, {"T1": 2}) == \
        {"A": {"T1": [0, 1]}, "B": {"T1": [0]}, "C": {"T1": [1]}}
    assert (Errors.INVALID_RECORD_STATE.code, Errors.INVALID_RECORD_STATE.message) == \
        (121, "The record state is invalid. The acknowledgement of delivery could not be completed.")
    assert Errors.INVALID_RECORD_STATE.exception == "InvalidRecordStateException"


def test_the_other_protocols_keep_working_on_the_same_coordinator():
    coord = coord_for()
    join(coord, "s")
    r = coord.consumer_group_heartbeat("c", member_id="c1", member_epoch=0, rebalance_timeout_ms=300000,
                                       subscribed_topic_names=["foo"], owned_partitions={})
    assert r.error is Errors.NONE and coord.group_type("c") == "consumer" and coord.group_type("s") == "share"
    coord.join_group("k", protocols=(("range", b""),))
    assert coord.group_type("k") == "classic" and coord.group_type("none") is None


# == 1 GroupCoordinator(...) =========================================================================
@pytest.mark.parametrize("version, locks", [("4.0", 200), ("4.1", 2000), ("4.2", 2000), ("4.3", 2000), ("4.4", 2000)])
def test_defaults_of_each_version(version, locks):
    coord = coord_for(version)
    cfg = coord.share_groups.configs
    assert (cfg["group.share.session.timeout.ms"], cfg["group.share.heartbeat.interval.ms"], cfg["group.share.max.size"],
            cfg["group.share.record.lock.duration.ms"], cfg["group.share.delivery.count.limit"],
            cfg["group.share.partition.max.record.locks"], cfg["group.share.min.session.timeout.ms"],
            cfg["group.share.max.session.timeout.ms"], cfg["group.share.min.heartbeat.interval.ms"],
            cfg["group.share.max.heartbeat.interval.ms"], cfg["group.share.min.record.lock.duration.ms"],
            cfg["group.share.max.record.lock.duration.ms"]) == \
        (45000, 5000, 200, 30000, 5, locks, 45000, 60000, 5000, 15000, 15000, 60000)
    assert cfg["group.share.assignors"] == (None if version == "4.0" else ["simple"])
    assert cfg["group.share.assignment.interval.ms"] == (1000 if version >= "4.3" else None)


@pytest.mark.parametrize("kw, message", [
    ({"group_share_max_size": 1001}, r"group.share.max.size.*\[1, 1000\]"),
    ({"group_share_max_size": 0}, r"group.share.max.size"),
    ({"group_share_session_timeout_ms": 0}, r"group.share.session.timeout.ms"),
    ({"group_share_record_lock_duration_ms": 999}, r"group.share.record.lock.duration.ms.*\[1000, 3600000\]"),
    ({"group_share_delivery_count_limit": 1}, r"group.share.delivery.count.limit.*\[2, 10\]"),
    ({"group_share_partition_max_record_locks": 99}, r"group.share.partition.max.record.locks.*\[100, 10000\]"),
    ({"group_share_min_record_lock_duration_ms": 30001}, r"group.share.min.record.lock.duration.ms.*\[1000, 30000\]"),
    ({"group_share_max_record_lock_duration_ms": 29999},
     r"group.share.max.record.lock.duration.ms.*\[30000, 3600000\]"),
    ({"group_share_heartbeat_interval_ms": 15000, "group_share_session_timeout_ms": 45000,
      "group_share_max_heartbeat_interval_ms": 50000, "group_share_min_session_timeout_ms": 10000},
     None),  # within every bound
    ({"group_share_heartbeat_interval_ms": 50000, "group_share_max_heartbeat_interval_ms": 60000,
      "group_share_max_session_timeout_ms": 60000},
     "group.share.heartbeat.interval.ms must be less than group.share.session.timeout.ms"),
    ({"group_share_record_lock_duration_ms": 10000},
     "group.share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms"),
])
def test_configs_are_checked_against_kafkas_ranges(kw, message):
    if message is None:
        assert coord_for(**kw).share_groups.configs["group.share.heartbeat.interval.ms"] == 15000
        return
    with pytest.raises(ConfigError, match=message):
        coord_for(**kw)


def test_before_4_0_the_arguments_are_accepted_unused_and_share_groups_are_not_served():
    coord = coord_for("3.9", group_share_max_size=10)
    r = join(coord)
    assert (r.error, r.error.code, r.member_id, r.assignment) == (Errors.UNSUPPORTED_VERSION, 35, None, None)
    with pytest.raises(ConfigError, match="4.0"):
        coord.share_partition("g", "foo", 0)
    with pytest.raises(ConfigError, match="group.share.max.size"):
        coord_for("3.9", group_share_max_size=1001)  # still checked, as 4.0 would


def test_share_state_init_delay_ms_answers_the_initialization_after_that_long():
    sim = Simulation(seed=0)
    coord = coord_for(sim=sim, share_state_init_delay_ms=300)
    r = join(coord)
    sim.advance(299)
    assert coord.share_group_heartbeat("g", member_id="m1", member_epoch=r.member_epoch).assignment is None
    sim.advance(1)
    assert coord.share_group_heartbeat("g", member_id="m1", member_epoch=1).assignment == {"foo": [0, 1, 2]}
    with pytest.raises(ConfigError, match="share_state_init_delay_ms must be an integer >= 0, got -1"):
        coord_for(share_state_init_delay_ms=-1)


@pytest.mark.parametrize("version, value, message", [
    ("4.1", ["simple"], None),
    ("4.2", ["org.apache.kafka.coordinator.group.assignor.SimpleAssignor"], None),
    ("4.1", ["simple", "simple"], "group.share.assignors must contain exactly one assignor, but found 2"),
    ("4.2", ["simple", "simple"], None),  # 4.2's ValidList drops the repeat first
    ("4.2", [], "Configuration 'group.share.assignors' must not be empty"),
    ("4.1", [], "group.share.assignors must contain exactly one assignor, but found 0"),
    ("4.2", ["uniform"], "Class uniform cannot be found"),
    ("4.0", ["simple"], "does not exist in Kafka 4.0"),
])
def test_group_share_assignors_is_optional_with_one_entry(version, value, message):
    if message is None:
        assert coord_for(version, group_share_assignors=value).share_groups.configs["group.share.assignors"] == \
            ["simple"]
    else:
        with pytest.raises(ConfigError, match=message):
            coord_for(version, group_share_assignors=value)


# == 2 share_group_heartbeat ===========================================================================
def test_the_response_has_the_consumer_responses_slots_and_repr():
    r = join(coord_for())
    assert isinstance(r, ShareGroupHeartbeatResponse) and r.done is True
    assert repr(r) == ("ShareGroupHeartbeatResponse(error=Errors.NONE, member_id='m1', member_epoch=1, "
                       "heartbeat_interval_ms=5000, assignment={})")
    err = join(coord_for(), member="")
    # only error and message: the rest at the RPC's defaults (null id, epoch 0, interval 0, no assignment)
    assert (err.error, err.error_message, err.member_id, err.member_epoch, err.heartbeat_interval_ms,
            err.assignment) == (Errors.INVALID_REQUEST, "Invalid member id in the request.", None, 0, 0, None)
    assert repr(err) == ("ShareGroupHeartbeatResponse(error=Errors.INVALID_REQUEST, "
                         "error_message='Invalid member id in the request.')")


def test_assignment_is_sent_on_join_on_a_full_request_and_on_a_change():
    coord = coord_for()
    r = assigned(coord)
    assert r.assignment == {"foo": [0, 1, 2]}
    assert coord.share_group_heartbeat("g", member_id="m1", member_epoch=2).assignment is None
    again = coord.share_group_heartbeat("g", member_id="m1", member_epoch=2, subscribed_topic_names=["foo"])
    assert again.assignment == {"foo": [0, 1, 2]}  # 4.1+: a full request
    old = coord_for("4.0")
    r = join(old)
    assert (r.member_epoch, r.assignment) == (1, {"foo": [0, 1, 2]})  # 4.0: no initialization gate
    assert old.share_group_heartbeat("g", member_id="m1", member_epoch=1, subscribed_topic_names=["foo"]).assignment \
        is None  # 4.0 sends it only on epoch 0 or a change


def test_a_leave_answers_epoch_minus_one_and_no_assignment():
    coord = coord_for()
    assigned(coord)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert (r.error, r.member_id, r.member_epoch, r.heartbeat_interval_ms, r.assignment) == (Errors.NONE, "m1", -1, 0, None)


@pytest.mark.parametrize("version, kw, error, message", [
    ("4.2", {"member": "x" * 37}, Errors.INVALID_REQUEST, "Invalid member id in the request."),
    ("4.2", {"member": ""}, Errors.INVALID_REQUEST, "Invalid member id in the request."),
    ("4.1", {"member": ""}, Errors.INVALID_REQUEST, "MemberId can't be empty."),
    ("4.1", {"group": " "}, Errors.INVALID_REQUEST, "GroupId can't be empty."),
    ("4.2", {"group": ""}, Errors.INVALID_REQUEST, "GroupId can't be empty."),
    ("4.2", {"rack": ""}, Errors.INVALID_REQUEST, "RackId can't be empty."),
    ("4.2", {"topics": None}, Errors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request."),
    ("4.2", {"topics": []}, Errors.INVALID_REQUEST, "SubscribedTopicNames must be set in first request."),
    ("4.2", {"epoch": -2}, Errors.INVALID_REQUEST, "MemberEpoch is invalid."),
    ("4.2", {"epoch": 3, "group": "new"}, Errors.GROUP_ID_NOT_FOUND, "Share group new not found."),
    ("4.0", {"epoch": 3, "group": "new"}, Errors.UNKNOWN_SERVER_ERROR, None),
    ("4.2", {"epoch": 1, "member": "m9"}, Errors.UNKNOWN_MEMBER_ID, "Member m9 is not a member of group g."),
    ("4.2", {"epoch": 5}, Errors.FENCED_MEMBER_EPOCH,
     "The share group member has a greater member epoch (5) than the one known by the group coordinator (2). "
     "The member must abandon all its partitions and rejoin."),
])
def test_heartbeat_errors_codes_and_messages(version, kw, error, message):
    coord = coord_for(version)
    assigned(coord)
    r = coord.share_group_heartbeat(kw.get("group", "g"), member_id=kw.get("member", "m1"),
                                    member_epoch=kw.get("epoch", 0), rack_id=kw.get("rack"),
                                    subscribed_topic_names=kw.get("topics", ["foo"]))
    assert (r.error, r.error_message) == (error, message)


def smaller(received: int, known: int) -> str:
    return (f"The share group member has a smaller member epoch ({received}) than the one known by the group "
            f"coordinator ({known}). The member must abandon all its partitions and rejoin.")


@pytest.mark.parametrize("version", ["4.1", "4.2"])
def test_a_smaller_epoch_is_fenced_unless_it_is_the_previous_one(version):
    coord = coord_for(version)
    assigned(coord)                                   # m1 at epoch 2 (previous 1)
    join(coord, member="m2")                          # group epoch 3
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=2)
    assert (r.member_epoch, coord.previous_member_epoch("g", "m1")) == (3, 2)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=2)  # the previous epoch: a lost response
    assert (r.error, r.member_epoch) == (Errors.NONE, 3)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=1)
    assert (r.error, r.error_message) == (Errors.FENCED_MEMBER_EPOCH, smaller(1, 3))


@pytest.mark.parametrize("version, error", [("4.0", Errors.FENCED_MEMBER_EPOCH), ("4.1", Errors.FENCED_MEMBER_EPOCH),
                                            ("4.2", Errors.NONE)])
def test_epoch_zero_from_a_known_member(version, error):
    """GMMT.testShareGroupMemberCanRejoinWithEpochZero (4.2); 4.0 and 4.1 fence it as any smaller epoch."""
    coord = coord_for(version)
    join(coord)
    join(coord, member="m2")
    coord.share_group_heartbeat("g", member_id="m1", member_epoch=1)
    known = coord.member_epoch("g", "m1")
    assert known == 2 and coord.previous_member_epoch("g", "m1") == 1
    r = join(coord)
    assert r.error is error
    if error is Errors.NONE:
        assert (r.member_epoch, r.assignment) == (known, coord.assigned_partitions("g", "m1"))
    else:
        assert r.error_message == smaller(0, known)


def test_a_full_group_and_the_other_kinds_of_group():
    coord = coord_for(group_share_max_size=1)
    assigned(coord)
    r = join(coord, member="m2")
    assert (r.error, r.error.code, r.error_message) == \
        (Errors.GROUP_MAX_SIZE_REACHED, 81, "The share group has reached its maximum capacity of 1 members.")
    coord.consumer_group_heartbeat("c", member_id="c1", member_epoch=0, rebalance_timeout_ms=300000,
                                   subscribed_topic_names=["foo"], owned_partitions={})
    r = join(coord, group="c")
    assert (r.error, r.error.code, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, 69, "Group c is not a share group.")


def test_a_subscribed_topic_the_cluster_lacks_is_left_out_not_an_error():
    """The assignor sees only topics in the metadata image (GroupSpec's subscribed topic ids)."""
    coord = coord_for("4.0")
    r = join(coord, topics=("foo", "gone"))
    assert (r.error, r.member_epoch, r.assignment) == (Errors.NONE, 1, {"foo": [0, 1, 2]})
    coord.create_partitions("gone", 1)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=1)
    assert (r.member_epoch, r.assignment) == (2, {"foo": [0, 1, 2], "gone": [0]})


def test_leave_errors():
    coord = coord_for()
    r = coord.share_group_heartbeat("nope", member_id="m1", member_epoch=-1)
    assert r.error is Errors.GROUP_ID_NOT_FOUND
    assigned(coord)
    r = coord.share_group_heartbeat("g", member_id="m9", member_epoch=-1)
    assert (r.error, r.error_message) == (Errors.UNKNOWN_MEMBER_ID, "Member m9 is not a member of group g.")


def test_session_expiry_fences_and_keeps_acquired_records():
    sim = Simulation(seed=0)
    coord = coord_for(sim=sim)
    assigned(coord)
    sp = coord.share_partition("g", "foo", 0)
    sp.acquire("m1", 10, log_batches=[(0, 9)])
    sim.advance(29_999)
    assert sp.state(0) == "ACQUIRED"
    epoch = coord.group_epoch("g")
    sim.advance(15_002)  # 45001 ms after the last heartbeat; the lock expired at 30000
    assert coord.member_ids("g") == [] and coord.group_epoch("g") == epoch + 1
    assert (sp.state(0), sp.delivery_count(0)) == ("AVAILABLE", 1)


def test_event_rows_use_the_consumer_managers_kinds():
    sim = Simulation(seed=0)
    coord = coord_for(sim=sim)
    assigned(coord)
    sim.advance(45_001)
    kinds = [r[4] for r in sim.events.rows]
    assert kinds[0] == "ShareGroupHeartbeat"
    assert {"MemberJoined", "GroupEpochBumped", "TargetAssignmentComputed", "MemberEpochBumped", "MemberFenced",
            "MemberRemoved", "StateChanged"} <= set(kinds)
    coord.load_share_group("h", group_epoch=1, members={})
    assert sim.events.rows[-1][4] == "GroupLoaded"


# == 3 complete_share_init ===========================================================================
def test_complete_share_init_is_a_no_op_where_the_design_says():
    coord = coord_for("4.0")
    join(coord)
    assert coord.complete_share_init("g") is None and coord.group_epoch("g") == 1
    coord = coord_for()
    assert coord.complete_share_init("unknown") is None
    assigned(coord)
    before = (coord.group_epoch("g"), coord.share_groups.initialized_partitions("g"))
    coord.complete_share_init("g")  # nothing pending
    assert (coord.group_epoch("g"), coord.share_groups.initialized_partitions("g")) == before


# == 4 set_group_config ==============================================================================
def test_group_configs_need_no_group_and_none_deletes():
    coord = coord_for()
    coord.set_group_config("nobody", {"share.heartbeat.interval.ms": 6000})
    assert coord.group_config("nobody") == {"share.heartbeat.interval.ms": 6000}
    coord.set_group_config("nobody", {"share.heartbeat.interval.ms": None})
    assert coord.group_config("nobody") == {}


def test_group_config_values_are_read_at_the_next_heartbeat():
    coord = coord_for()
    r = assigned(coord)
    coord.set_group_config("g", {"share.heartbeat.interval.ms": 10000, "share.session.timeout.ms": 60000})
    assert coord.share_group_heartbeat("g", member_id="m1", member_epoch=r.member_epoch).heartbeat_interval_ms == 10000


@pytest.mark.parametrize("version, configs, message", [
    ("4.2", {"share.record.lock.duration.ms": 10000},
     "share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms"),
    ("4.2", {"share.record.lock.duration.ms": 999}, "share.record.lock.duration.ms"),
    ("4.2", {"share.session.timeout.ms": 60001},
     "share.session.timeout.ms must be less than or equal to group.share.max.session.timeout.ms"),
    ("4.2", {"share.heartbeat.interval.ms": 4000},
     "share.heartbeat.interval.ms must be greater than or equal to group.share.min.heartbeat.interval.ms"),
    ("4.2", {"share.sesion.timeout.ms": 50000}, "did you mean 'share.session.timeout.ms'"),
    ("4.2", {"share.auto.offset.reset": "newest"}, "share.auto.offset.reset"),
    ("4.2", {"share.auto.offset.reset": "by_duration:-PT1H"}, "the format 'by_duration:<PnDTnHnMn.nS>'"),
    ("4.0", {"share.isolation.level": "read_committed"}, "Unknown group config 'share.isolation.level'"),
    ("4.1", {"share.isolation.level": "serializable"}, "String must be one of: read_committed, read_uncommitted"),
    ("4.2", {"share.delivery.count.limit": 3}, "Unknown group config 'share.delivery.count.limit'"),
    ("4.2", {"consumer.session.timeout.ms": 44000},
     "consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms"),
])
def test_group_config_refusals_in_kafkas_words(version, configs, message):
    with pytest.raises(ConfigError, match=message):
        coord_for(version).set_group_config("g", configs)


def test_the_accepted_group_configs():
    coord = coord_for("4.1")
    coord.set_group_config("g", {"share.auto.offset.reset": "earliest", "share.isolation.level": " read_committed ",
                                 "consumer.heartbeat.interval.ms": 6000, "consumer.session.timeout.ms": 50000})
    assert coord.group_config("g") == {"share.auto.offset.reset": "earliest", "share.isolation.level": "read_committed",
                                       "consumer.heartbeat.interval.ms": 6000, "consumer.session.timeout.ms": 50000}
    coord.set_group_config("g", {"share.auto.offset.reset": "by_duration:PT1H"})
    assert coord.group_config("g")["share.auto.offset.reset"] == "by_duration:PT1H"


@pytest.mark.parametrize("version, refusal", [
    ("4.3", "consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms"),
    ("4.4", None)])
def test_group_configs_are_checked_at_the_brokers_values_in_4_3_and_only_when_set_from_4_4(version, refusal):
    """GroupConfig.validateValues: 4.3 checks every config, one a group does not set at the broker's
    value (`extractGroupConfigMap`); 4.4 only the configs set ("Only configs explicitly present in
    the parsed map are validated", `validateIntRange` returns when the key is absent). A broker whose
    group.consumer.session.timeout.ms (30000) is below group.consumer.min.session.timeout.ms (45000)
    tells them apart: a Kafka broker refuses it at startup (GroupCoordinatorConfig's `require`), but
    kafkasim's GroupCoordinator takes the session timeout without its min/max (not modelled here)."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version=version, topics={},
                             group_consumer_session_timeout_ms=30_000)
    configs = {"consumer.heartbeat.interval.ms": 6000}
    if refusal is None:
        coord.set_group_config("g", configs)
        assert coord.group_config("g") == configs
    else:
        with pytest.raises(ConfigError, match=f"^{refusal}$"):
            coord.set_group_config("g", configs)


def test_group_config_bounds_are_inclusive_in_4_4():
    """GroupConfig.validateIntRange (branch 4.4): refused only when `value < min || value > max`,
    "X must be in the range MIN to MAX inclusive." (group.share.max.session.timeout.ms = 60000)."""
    coord = coord_for("4.4")
    coord.set_group_config("g", {"share.session.timeout.ms": 60000, "share.heartbeat.interval.ms": 5000})
    assert coord.group_config("g") == {"share.session.timeout.ms": 60000, "share.heartbeat.interval.ms": 5000}
    with pytest.raises(ConfigError, match=r"^share.session.timeout.ms must be in the range 45000 to 60000 inclusive.$"):
        coord.set_group_config("g", {"share.session.timeout.ms": 60001})


@pytest.mark.parametrize("version", ["4.2", "4.4"])
def test_a_groups_session_timeout_must_exceed_its_heartbeat_interval(version):
    """GroupConfig.validateValues (4.2; 4.4's validateSessionExceedsHeartbeat): the session timeout
    set must be greater than the heartbeat interval set, `session <= heartbeat` refused. A broker
    with group.share.min.session.timeout.ms=6000 lets a session of 10000 through its own bounds."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version=version, topics={},
                             group_share_min_session_timeout_ms=6000)
    with pytest.raises(ConfigError, match="^share.session.timeout.ms must be greater than share.heartbeat.interval.ms$"):
        coord.set_group_config("g", {"share.session.timeout.ms": 10000, "share.heartbeat.interval.ms": 10000})
    coord.set_group_config("g", {"share.session.timeout.ms": 10001, "share.heartbeat.interval.ms": 10000})
    assert coord.group_config("g")["share.session.timeout.ms"] == 10001


def test_a_dead_letter_queue_topic_must_not_be_internal():
    """GroupConfig.validateValues (branch 4.4, KIP-1191): a DLQ topic name starting with "__" is
    reserved for internal topics."""
    with pytest.raises(ConfigError) as e:
        coord_for("4.4").set_group_config("g", {"errors.deadletterqueue.topic.name": "__dlq"})
    assert str(e.value) == "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'"


# == 5 load_share_group ==============================================================================
def test_load_share_group_defaults_and_refusals():
    coord = coord_for()
    coord.load_share_group("g", group_epoch=4, members={"m1": {}})
    assert (coord.member_epoch("g", "m1"), coord.previous_member_epoch("g", "m1"), coord.member_state("g", "m1"),
            coord.assigned_partitions("g", "m1"), coord.target_assignment_epoch("g")) == (0, -1, "STABLE", {}, 4)
    coord.load_share_group("e", group_epoch=3, members={})
    assert (coord.group_state("e"), coord.group_epoch("e"), coord.member_ids("e")) == ("Empty", 3, [])
    with pytest.raises(ConfigError, match="Unknown share group member fields"):
        coord.load_share_group("x", group_epoch=1, members={"m": {"epoch": 1}})
    with pytest.raises(ConfigError, match="cannot exceed"):
        coord.load_share_group("y", group_epoch=1, target_assignment_epoch=2)


def test_restored_members_get_a_session_timer_only_when_they_heartbeat_or_arm_loaded_timers():
    sim = Simulation(seed=0)
    coord = coord_for(sim=sim)
    coord.load_share_group("g", group_epoch=2, members={"m1": {"member_epoch": 2, "subscribed_topic_names": ["foo"]}})
    sim.advance(100_000)
    assert coord.member_ids("g") == ["m1"]
    coord.share_groups.arm_loaded_timers("g")
    sim.advance(45_000)
    assert coord.member_ids("g") == []


# == 6 queries dispatched by group type ================================================================
def test_queries_are_dispatched_by_group_type_and_refuse_unknowns_with_key_error():
    coord = coord_for()
    assigned(coord)
    assert coord.partitions_pending_revocation("g", "m1") == {}
    assert coord.previous_member_epoch("g", "m1") == 1
    for query in ("member_epoch", "previous_member_epoch", "member_state", "assigned_partitions",
                  "partitions_pending_revocation"):
        with pytest.raises(KeyError):
            getattr(coord, query)("g", "nobody")
        with pytest.raises(KeyError):
            getattr(coord, query)("nothing", "m1")
    assert coord.group_state("nothing") is None


# == 7 create_partitions, and requests of the wrong kind ===============================================
def test_a_partition_increase_bumps_the_epoch_then_initializes():
    coord = coord_for()
    r = assigned(coord)
    coord.create_partitions("foo", 4)
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=r.member_epoch)
    assert (r.member_epoch, r.assignment) == (3, None)  # the new partition is not initialized yet
    coord.complete_share_init("g")
    r = coord.share_group_heartbeat("g", member_id="m1", member_epoch=3)
    assert (r.member_epoch, r.assignment) == (4, {"foo": [0, 1, 2, 3]})


def test_consumer_group_heartbeat_to_a_share_group():
    coord = coord_for()
    assigned(coord)
    r = coord.consumer_group_heartbeat("g", member_id="c1", member_epoch=0, rebalance_timeout_ms=300000,
                                       subscribed_topic_names=["foo"], owned_partitions={})
    assert (r.error, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, "Group g is not a consumer group.")
    assert coord.group_type("g") == "share"


# == 8 share_partition =================================================================================
def test_share_partition_is_made_once_from_the_reset_strategy():
    coord = coord_for()
    sp = coord.share_partition("g", "foo", 1, log_start_offset=10, log_end_offset=50)
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (50, 50, 50)  # latest
    assert coord.share_partition("g", "foo", 1) is sp
    coord.set_group_config("h", {"share.auto.offset.reset": "earliest"})
    sp = coord.share_partition("h", "foo", 1, log_start_offset=10, log_end_offset=50)
    assert sp.start_offset == 10
    with pytest.raises(KeyError):
        coord.share_partition("g", "nope", 0)
    with pytest.raises(KeyError):
        coord.share_partition("g", "foo", 3)


# == 9 SharePartition(...) =============================================================================
def test_share_partition_constructor():
    sim = Simulation(seed=0)
    assert inspect.signature(SharePartition).parameters["kafka_version"].default == "4.2"
    for version, locks in (("4.0", 200), ("4.1", 2000)):
        sp = SharePartition(sim, "g", "t", 0, kafka_version=version)
        assert (sp.max_in_flight_records, sp.max_delivery_count, sp.default_record_lock_duration_ms) == (locks, 5, 30000)
        assert (sp.start_offset, sp.end_offset) == (0, 0)
    with pytest.raises(ConfigError, match="max_in_flight_records must be an integer >= 1, got 0"):
        SharePartition(sim, "g", "t", 0, max_in_flight_records=0)
    with pytest.raises(ConfigError):
        SharePartition(sim, "g", "t", 0, kafka_version="3.9")
    sp = SharePartition(sim, "g", "t", 0, group_config=lambda: {"share.record.lock.duration.ms": 777})
    sp.acquire("m", 1, log_batches=[(0, 0)])
    assert [t.time for t in sp.lock_timers()] == [777]


# == 10 acquire =========================================================================================
def test_acquire_inputs():
    sim = Simulation(seed=0)
    with pytest.raises(ConfigError):
        SharePartition(sim, "g", "t", 0, kafka_version="4.1").acquire("m", 5, log_batches=[(0, 9)],
                                                                      acquire_mode="record_limit")
    sp = SharePartition(sim, "g", "t", 0)
    with pytest.raises(ConfigError):
        sp.acquire("m", 5, log_batches=[(0, 9)], acquire_mode="fastest")
    for bad in ([(10, 19), (0, 9)], [(0, 9), (5, 12)], [(-1, 3)]):
        with pytest.raises(ConfigError):
            sp.acquire("m", 5, log_batches=bad)
    assert sp.acquire("m", 5, log_batches=[(0, 9)], acquire_mode="record_limit") == [AcquiredRecords(0, 4, 1)]
    assert sp.acquire("n", None, log_batches=[(0, 9)], acquire_mode="record_limit") == [AcquiredRecords(5, 9, 1)]
    assert sp.can_acquire_records() is True and sp.acquire("o", 5, log_batches=[(0, 9)]) == []


# == 11 acknowledge =====================================================================================
def test_acknowledge_errors_roll_back_the_whole_call():
    sim = Simulation(seed=0)
    sp = SharePartition(sim, "g", "t", 0, kafka_version="4.1")
    sp.acquire("m", 10, log_batches=[(0, 9)])
    assert sp.acknowledge("m", [(0, 4, "RENEW")]) is Errors.INVALID_REQUEST  # RENEW is 4.2's
    assert sp.acknowledge("m", [(0, 4, "THANKS")]) is Errors.INVALID_REQUEST
    assert sp.acknowledge("m", [(0, 12, "ACCEPT")]) is Errors.INVALID_REQUEST  # past the last cached offset
    assert sp.acknowledge("x", [(0, 4, "ACCEPT")]) is Errors.INVALID_RECORD_STATE  # another member's
    assert sp.acknowledge("m", [(0, 4, "ACCEPT"), (5, 9, "ACCEPT"), (5, 9, "REJECT")]) is Errors.INVALID_RECORD_STATE
    assert [sp.state(o) for o in (0, 5)] == ["ACQUIRED", "ACQUIRED"] and sp.stats["write_share_group_state"] == 0
    assert sp.acknowledge("m", [(0, 4, ["ACCEPT", "REJECT", "GAP", "RELEASE", "ACCEPT"])]) is Errors.NONE
    assert [sp.state(o) for o in range(5)] == ["ACKNOWLEDGED", "ARCHIVED", "ARCHIVED", "AVAILABLE", "ACKNOWLEDGED"]
    assert sp.start_offset == 3 and sp.stats["write_share_group_state"] == 1


def test_renew_rearms_a_full_lock_and_writes_nothing():
    sim = Simulation(seed=0)
    sp = SharePartition(sim, "g", "t", 0)
    sp.acquire("m", 10, log_batches=[(0, 9)])
    sim.advance(20_000)
    assert sp.acknowledge("m", [(0, 9, "RENEW")]) is Errors.NONE
    assert [t.time for t in sp.lock_timers()] == [50_000] and sp.stats["write_share_group_state"] == 0
    assert (sp.state(3), sp.delivery_count(3), sp.owner(3)) == ("ACQUIRED", 1, "m")


# == 12 release_all =====================================================================================
@pytest.mark.parametrize("version, count", [("4.0", 1), ("4.1", 0), ("4.2", 1)])
def test_release_all_keeps_or_decrements_the_count(version, count):
    sp = SharePartition(Simulation(seed=0), "g", "t", 0, kafka_version=version)
    sp.acquire("m", 10, log_batches=[(0, 9)])
    assert sp.release_all("m") is Errors.NONE and sp.release_all("nobody") is Errors.NONE
    assert (sp.state(0), sp.delivery_count(0), sp.lock_timers(), sp.stats["write_share_group_state"]) == \
        ("AVAILABLE", count, [], 1)


# == 13 observables, seeding and a leader failover ======================================================
def test_load_state_refusals():
    sim = Simulation(seed=0)
    sp = SharePartition(sim, "g", "t", 0)
    with pytest.raises(ConfigError):
        sp.load_state(0, [(0, 4, "ACQUIRED", 1)])
    with pytest.raises(ConfigError):
        sp.load_state(0, [(0, 4, "AVAILABLE", 1), (3, 6, "ARCHIVED", 1)])
    sp.load_state(0, [])
    sp.acquire("m", 5, log_batches=[(0, 4)])
    with pytest.raises(ConfigError):
        sp.load_state(0, [])


def test_a_leader_failover_reloads_the_persisted_state():
    """Records ACQUIRED at the failover come back with their last persisted state (reference 4.11)."""
    sim = Simulation(seed=0)
    old = SharePartition(sim, "g", "t", 0)
    old.acquire("m", 30, log_batches=[(0, 9), (10, 19), (20, 29)])
    old.acknowledge("m", [(0, 9, "ACCEPT"), (10, 14, "RELEASE")])
    old.acquire("n", 5, log_batches=[(10, 14)])  # 10-14 ACQUIRED again (count 2), never written
    # The write carries the start offset of its moment (SPSO moves once it completes,
    # `rollbackOrProcessStateUpdates`): 0, with 0-9 ACKNOWLEDGED and 10-14 AVAILABLE; 15-29 never written.
    assert old.persisted_state() == (0, [(0, 9, "ACKNOWLEDGED", 1), (10, 14, "AVAILABLE", 1)])
    new = SharePartition(sim, "g", "t", 0)
    new.load_state(*old.persisted_state())
    assert (new.end_offset, new.next_fetch_offset) == (14, 10)
    assert (new.state(12), new.delivery_count(12), new.state(20)) == ("AVAILABLE", 1, None)
    assert new.acquire("p", 100, log_batches=[(10, 14), (15, 19), (20, 29)]) == [AcquiredRecords(10, 14, 2),
                                                                                 AcquiredRecords(15, 29, 1)]


# == 14 SimpleAssignor and simple_share_assign ==========================================================
def test_simple_share_assign_shapes_by_version():
    members, topics = {"A": ["T1"], "B": []}, {"T1": 2}
    assert simple_share_assign("4.0", members, topics) == {"A": {"T1": [0, 1]}}  # assignHeterogeneous skips B
    assert simple_share_assign("4.1", members, topics) == {"A": {"T1": [0, 1]}, "B": {}}
    assert simple_share_assign("4.2", {"A": ["T1"]}, {"T1": 3}, assignable={"T1": [0, 2]}) == {"A": {"T1": [0, 2]}}
    with pytest.raises(PartitionAssignorException):
        simple_share_assign("4.2", {"A": ["T9"]}, {"T1": 1})


def test_simple_assignor_reads_the_assignable_partitions_of_group_spec():
    spec = GroupSpec(["A", "B"], {"T1": 4}, "HOMOGENEOUS", lambda m: frozenset({"T1"}), {}, lambda m: None,
                     lambda m: None, {}, assignable=lambda topic: [1, 3])
    assert spec.assignable("T1") == [1, 3]
    assignor = SimpleAssignor("4.2")
    assert assignor.name == "simple"
    assert assignor.assign(spec) == {"A": {"T1": frozenset({1})}, "B": {"T1": frozenset({3})}}
    everything = GroupSpec(["A"], {"T1": 2}, "HOMOGENEOUS", lambda m: frozenset({"T1"}), {}, lambda m: None,
                           lambda m: None, {})
    assert everything.assignable is None and assignor.assign(everything) == {"A": {"T1": frozenset({0, 1})}}


# == 15 time: advance and jump ========================================================================
def run_with(step: str):
    sim = Simulation(seed=0)
    coord = coord_for(sim=sim)
    assigned(coord)
    sp = coord.share_partition("g", "foo", 0)
    sp.acquire("m1", 10, log_batches=[(0, 4), (5, 9)])
    sp.acknowledge("m1", [(5, 9, "RENEW")])
    getattr(sim, step)(30_000)
    at_lock = [(sp.state(o), sp.delivery_count(o)) for o in (0, 5)]
    getattr(sim, step)(15_000)
    return at_lock, coord.member_ids("g"), coord.group_epoch("g"), sp.stats["timer_events"], sim.now


def test_jump_gives_the_same_outcomes_as_advance():
    # RENEW of 5-9 split the batch: one lock per offset, all ten due at 30000 (10 timer events)
    expected = ([("AVAILABLE", 1), ("AVAILABLE", 1)], [], 3, 10, 45_000)
    assert run_with("advance") == expected
    assert run_with("jump") == expected


def test_lock_timers_are_engine_timers_cancelled_on_acknowledgement():
    sp = SharePartition(Simulation(seed=0), "g", "t", 0)
    sp.acquire("m", 10, log_batches=[(0, 9)])
    timer = sp.lock_timers()[0]
    assert isinstance(timer, Timer) and timer.active
    sp.acknowledge("m", [(0, 9, "ACCEPT")])
    assert not timer.active


def test_share_partition_takes_the_coordinators_validated_values():
    coord = coord_for(group_share_delivery_count_limit=3, group_share_partition_max_record_locks=150,
                      group_share_record_lock_duration_ms=20000)
    sp = coord.share_partition("g", "foo", 2)
    assert (sp.max_delivery_count, sp.max_in_flight_records, sp.default_record_lock_duration_ms) == (3, 150, 20000)


def test_a_failed_heartbeat_stores_nothing():
    sim = Simulation(seed=0)
    coord = coord_for(sim=sim, group_share_max_size=1)
    r = assigned(coord)
    before = (coord.group_epoch("g"), coord.member_ids("g"), coord.member_epoch("g", "m1"), coord.target_assignment("g"))
    timer = coord.share_groups.groups["g"].session_timer["m1"]
    assert coord.share_group_heartbeat("g", member_id="m1", member_epoch=r.member_epoch + 1).error is \
        Errors.FENCED_MEMBER_EPOCH
    assert join(coord, member="m2").error is Errors.GROUP_MAX_SIZE_REACHED
    assert (coord.group_epoch("g"), coord.member_ids("g"), coord.member_epoch("g", "m1"),
            coord.target_assignment("g")) == before
    assert coord.share_groups.groups["g"].session_timer["m1"] is timer  # not re-armed by a failure


def test_delete_groups_reaches_share_groups_which_then_read_dead():
    """DeleteGroups (`GroupMetadataManager.deleteGroup`): a share group only when empty (NON_EMPTY_GROUP, 68)."""
    sim = Simulation(seed=0)
    coord = coord_for(sim=sim)
    assigned(coord)
    coord.consumer_group_heartbeat("c", member_id="c1", member_epoch=0, rebalance_timeout_ms=300000,
                                   subscribed_topic_names=["foo"], owned_partitions={})
    assert coord.delete_groups(["g", "c", "nope"]) == {"g": Errors.NON_EMPTY_GROUP, "c": Errors.NON_EMPTY_GROUP,
                                                      "nope": Errors.GROUP_ID_NOT_FOUND}
    sim.advance(45_001)
    assert coord.group_state("g") == "Empty"
    sp = coord.share_partition("g", "foo", 0)
    sp.acquire("m1", 5, log_batches=[(0, 4)])  # a fenced member's fetch still holds a lock
    timer = sp.lock_timers()[0]
    assert coord.delete_groups(["g"]) == {"g": Errors.NONE}
    assert coord.share_partition("g", "foo", 0) is not sp and not timer.active  # the share state went too
    assert (coord.group_state("g"), coord.group_type("g")) == ("Dead", None)
    assert coord.delete_groups(["g"]) == {"g": Errors.GROUP_ID_NOT_FOUND}
    assert join(coord).error is Errors.NONE and coord.group_state("g") == "Stable"  # the id can be used again


@pytest.mark.parametrize("value, ok", [
    ("by_duration:PT1H", True), ("by_duration:P1DT2H", True), ("by_duration:PT1H30M15.5S", True),
    ("latest", True), ("earliest", True), (" latest ", True),
    ("by_duration:pt1.5s", True), ("by_duration:PT0S", True), ("by_duration:PT1H-30M", True),
    ("by_duration:PT", False), ("by_duration:P", False), ("by_duration:1H", False), ("by_duration:-PT1H", False),
    ("by_duration:PT-1S", False), ("by_duration", False), ("BY_DURATION:PT1H", False), ("LATEST", False),
    ("Earliest", False), ("none", False),
])
def test_share_auto_offset_reset_takes_earliest_latest_or_a_duration_not_negative(value, ok):
    """`ShareGroupAutoOffsetResetStrategy.Validator` -> `AutoOffsetResetStrategy.fromString`: "earliest"
    and "latest" as written (the enum options, lower case), or "by_duration:" and a `Duration.parse`
    duration (letters in either case, each part signed) that is not negative; "none" is not a share
    strategy. Every refusal is the validator's one message (it catches what fromString throws)."""
    coord = coord_for("4.2")
    if ok:
        coord.set_group_config("g", {"share.auto.offset.reset": value})
        assert coord.group_config("g") == {"share.auto.offset.reset": value.strip()}  # ConfigDef trims a STRING
        return
    with pytest.raises(ConfigError) as e:
        coord.set_group_config("g", {"share.auto.offset.reset": value})
    assert str(e.value) == (
        f"Invalid value {value} for configuration share.auto.offset.reset: Invalid value `{value}` for configuration "
        "share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format "
        "'by_duration:<PnDTnHnMn.nS>'.")


def test_4_0_spells_the_reset_format_with_a_stray_dot():
    """4.0.0's `ShareGroupAutoOffsetResetStrategy.Validator` ends its message with
    'by_duration:<PnDTnHnMn.nS.>', 4.1.0 and later with 'by_duration:<PnDTnHnMn.nS>'."""
    for version, form in (("4.0", "<PnDTnHnMn.nS.>"), ("4.1", "<PnDTnHnMn.nS>")):
        with pytest.raises(ConfigError) as e:
            coord_for(version).set_group_config("g", {"share.auto.offset.reset": "newest"})
        assert str(e.value).endswith(f" or of the format 'by_duration:{form}'.")


def test_a_boolean_group_config_takes_true_or_false_in_any_case():
    """ConfigDef.parseType, BOOLEAN: a string is trimmed and compared with equalsIgnoreCase("true"),
    then "false"; anything else is "Expected value to be either true or false"."""
    coord = coord_for("4.4")
    for given, stored in (("true", True), (" True ", True), ("false", False), (True, True)):
        coord.set_group_config("g", {"errors.deadletterqueue.copy.record.enable": given})
        assert coord.group_config("g") == {"errors.deadletterqueue.copy.record.enable": stored}
    with pytest.raises(ConfigError) as e:
        coord.set_group_config("g", {"errors.deadletterqueue.copy.record.enable": "yes"})
    assert str(e.value) == ("Invalid value 'yes' for configuration errors.deadletterqueue.copy.record.enable: "
                            "Expected value to be either true or false")


@pytest.mark.parametrize("value, words", [
    (999, "Value must be at least 1000"), (2**31, "Value must be no more than 2147483647")])
def test_an_int_group_config_is_checked_against_its_at_least_and_the_int_range(value, words):
    """GroupConfig's ConfigDef: `share.record.lock.duration.ms` is an INT with `atLeast(1000)` (an INT
    holds at most 2147483647), checked before `validateValues` and its broker bounds."""
    with pytest.raises(ConfigError) as e:
        coord_for("4.2").set_group_config("g", {"share.record.lock.duration.ms": value})
    assert str(e.value) == (f"Invalid value {value} for configuration share.record.lock.duration.ms: {words} "
                            "(valid range: [1000, 2147483647])")


@pytest.mark.parametrize("name, value, message", [
    ("share.auto.offset.reset", 5, "Invalid value 5 for configuration share.auto.offset.reset: Expected value to be "
                                   "a string, but it was a int"),
    ("share.isolation.level", "READ_COMMITTED", "Invalid value READ_COMMITTED for configuration share.isolation.level: "
                                                "String must be one of: read_committed, read_uncommitted"),
])
def test_a_string_group_config_needs_a_string_and_its_exact_value(name, value, message):
    """ConfigDef.parseType, STRING: a non-string is refused naming its type; `ValidString.in` compares
    the trimmed value as written (`List.contains`: case-sensitive)."""
    with pytest.raises(ConfigError) as e:
        coord_for("4.2").set_group_config("g", {name: value})
    assert str(e.value) == message


def test_group_config_values_parse_as_kafkas_config_def():
    """`GroupConfig`'s ConfigDef: a BOOLEAN accepts "true"/"false" in any case (ConfigDef.parseType,
    equalsIgnoreCase), `share.isolation.level` is `ValidString.in("read_committed", "read_uncommitted")`
    (trimmed, case-sensitive); deleting a config a group never set is no error; a non-dict is refused."""
    from kafkasim.coordinator.modern.group_config import GroupConfigs
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.3", topics={})
    coord.set_group_config("g", {"share.renew.acknowledge.enable": " FALSE ", "share.isolation.level": "read_uncommitted "})
    assert coord.group_config("g") == {"share.renew.acknowledge.enable": False,
                                       "share.isolation.level": "read_uncommitted"}
    coord.set_group_config("other", {"share.session.timeout.ms": None})
    assert coord.group_config("other") == {}
    with pytest.raises(ConfigError, match="group configs must be a dict of Kafka config names, got list"):
        GroupConfigs("4.3", {}).set("g", ["share.session.timeout.ms"])


def test_assignment_interval_exists_from_43_and_zero_means_every_bump():
    """KIP-1263 (4.3): `group.share.assignment.interval.ms` (default 1000); before 4.3 the configs do
    not exist, and only 0 (every epoch bump computes a target) is accepted.
    `canComputeNextTargetAssignment`: interval 0, or now >= last + interval."""
    from kafkasim.coordinator.modern.assignment_interval import (
        assignment_interval, can_compute_next_target_assignment)
    assert assignment_interval("4.2", "share", 0, None, None) == 0
    assert assignment_interval("4.2", "consumer", None, None, None) == 0
    for bad, name in (((5, None, None), "assignment"), ((0, 0, None), "min.assignment"),
                      ((None, None, 10), "max.assignment")):
        with pytest.raises(ConfigError, match=rf"^Broker config 'group\.share\.{name}\.interval\.ms' does not exist "
                                              r"in Kafka 4\.2: it was added in Kafka 4\.3 \(KIP-1263\)$"):
            assignment_interval("4.2", "share", *bad)
    assert assignment_interval("4.3", "share", None, None, None) == 1000
    assert assignment_interval("4.3", "share", 250, None, None) == 250
    assert can_compute_next_target_assignment(None, 1000, 0) is True
    assert can_compute_next_target_assignment(100, 0, 100) is True
    assert can_compute_next_target_assignment(100, 1, 100) is False
    assert can_compute_next_target_assignment(100, 1, 101) is True


def test_group_config_validation_checks_unset_defaults_before_44_only_the_set_ones_from_44():
    """`GroupConfig.validateValues`: 4.0-4.2 check the whole set, the configs not set at their
    ConfigDef defaults (share.session.timeout.ms 45000, below a broker minimum of 50000: refused
    although only the heartbeat interval is set); 4.4 checks only the configs set."""
    kw = dict(topics={}, group_share_min_session_timeout_ms=50000, group_share_session_timeout_ms=60000)
    old = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", **kw)
    with pytest.raises(ConfigError, match="^share.session.timeout.ms must be greater than or equal to "
                                          "group.share.min.session.timeout.ms$"):
        old.set_group_config("g", {"share.heartbeat.interval.ms": 6000})
    new = GroupCoordinator(Simulation(seed=0), kafka_version="4.4", **kw)
    new.set_group_config("g", {"share.heartbeat.interval.ms": 6000})
    assert new.group_config("g") == {"share.heartbeat.interval.ms": 6000}


# == load_state: the refusals and boundaries of a ReadShareGroupState result (issue 29, load_state) ====
# `SharePartition.maybeInitialize` (4.1-4.4, confluentinc/kafka branches 4.1-4.4) fails the partition
# when a state batch starts below the start offset or ends before it starts; kafkasim says so as a
# ConfigError naming the batch and the bound, and also refuses what the share coordinator never
# returns (overlapping or unordered batches: `PersisterStateBatchCombiner` merges them into a sorted,
# non-overlapping list; ACQUIRED) and a delivery count below 0 (Kafka checks no count).
def load_refusal(start_offset, batches, version="4.2") -> str:
    """The message `load_state` refuses this ReadShareGroupState result with."""
    with pytest.raises(ConfigError) as refused:
        SharePartition(Simulation(seed=0), "g", "t", 0, kafka_version=version).load_state(start_offset, batches)
    return str(refused.value)


def loaded(start_offset, batches, version="4.2") -> SharePartition:
    sp = SharePartition(Simulation(seed=0), "g", "t", 0, kafka_version=version)
    sp.load_state(start_offset, batches)
    return sp


def test_load_state_is_refused_once_records_are_in_flight_with_its_exact_reason():
    """`maybeInitialize` runs once, before the first fetch; a load after an acquire says why."""
    sp = SharePartition(Simulation(seed=0), "g", "t", 0)
    sp.acquire("m", 5, log_batches=[(0, 4)])
    with pytest.raises(ConfigError) as refused:
        sp.load_state(0, [])
    assert str(refused.value) == "load_state: records are already in flight; load before the first acquire"


def test_load_state_start_offset_is_an_offset_from_zero():
    """The start offset is a log offset (SPSO): 0 is the first one, -1 is refused by name."""
    assert load_refusal(-1, []) == "start_offset must be an integer >= 0, got -1"
    assert load_refusal(True, []) == "start_offset must be an integer >= 0, got True"
    sp = loaded(0, [])
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (0, 0, 0)


def test_load_state_accepts_the_delivery_count_0_that_4_1_writes_after_a_session_release():
    """4.1 releases a closed session's records with `DeliveryCountOps.DECREASE`
    (`releaseAcquiredRecordsForCompleteBatch`, KAFKA-17541 part 1): records delivered once are
    written AVAILABLE with count 0 (`PersisterStateBatch.deliveryCount`, a short). A new leader
    loads that count and the next delivery is the first again; -1 is refused by name and floor."""
    old = SharePartition(Simulation(seed=0), "g", "t", 0, kafka_version="4.1")
    assert old.acquire("m", 10, log_batches=[(0, 4)]) == [AcquiredRecords(0, 4, 1)]
    old.release_all("m")
    assert old.persisted_state() == (0, [(0, 4, "AVAILABLE", 0)])
    new = loaded(*old.persisted_state(), version="4.1")
    assert (new.state(0), new.delivery_count(0)) == ("AVAILABLE", 0)
    assert new.acquire("n", 10, log_batches=[(0, 4)]) == [AcquiredRecords(0, 4, 1)]
    assert load_refusal(0, [(0, 4, "AVAILABLE", -1)]) == "delivery_count must be an integer >= 0, got -1"


def test_load_state_refuses_a_state_that_is_never_persisted_by_its_exact_reason():
    """ACQUIRED lives only on the leader: `__share_group_state` never holds it."""
    assert load_refusal(0, [(0, 4, "ACQUIRED", 1)]) == (
        "load_state: state 'ACQUIRED' of 0-4 is not persisted; valid: AVAILABLE, ACKNOWLEDGED, ARCHIVED "
        "(ACQUIRED is never written)")


def test_load_state_batch_starts_at_or_after_the_start_offset_and_ends_at_or_after_its_first():
    """`maybeInitialize`: `firstOffset() < startOffset` and `lastOffset() < firstOffset()` fail
    the partition; a batch starting at the start offset and a one-offset batch are valid."""
    sp = loaded(10, [(10, 10, "AVAILABLE", 1)])
    assert (sp.cached_batches(), sp.state(10), sp.end_offset) == ([(10, 10)], "AVAILABLE", 10)
    assert load_refusal(10, [(9, 12, "AVAILABLE", 1)]) == (
        "load_state: batch 9-12 overlaps, is out of order or starts below the start offset 10")
    assert load_refusal(10, [(12, 11, "AVAILABLE", 1)]) == (
        "load_state: batch 12-11 overlaps, is out of order or starts below the start offset 10")


def test_load_state_batches_follow_each_other_without_overlap():
    """The share coordinator returns disjoint batches in offset order: one starting right after the
    previous batch's last offset is valid, one starting at that last offset overlaps it."""
    sp = loaded(10, [(10, 14, "AVAILABLE", 1), (15, 15, "ARCHIVED", 2)])
    assert sp.cached_batches() == [(10, 14), (15, 15)]
    assert load_refusal(10, [(10, 14, "AVAILABLE", 1), (14, 16, "ARCHIVED", 2)]) == (
        "load_state: batch 14-16 overlaps, is out of order or starts below the start offset 10")


@pytest.mark.parametrize("version, next_fetch", [("4.0", 21), ("4.1", 10), ("4.2", 10)])
def test_load_state_a_gap_of_one_offset_is_fetched_first_from_4_1(version, next_fetch):
    """`gapStartOffset` is set when `firstOffset() > previousBatchLastOffset + 1`: one missing
    offset (10, before 11-20 ACKNOWLEDGED) is a gap, fetched first from 4.1 (`InitialReadGapOffset`,
    4.2 `GapWindow`); 4.0 has no gap window and fetches after the terminal batch."""
    sp = loaded(10, [(11, 20, "ACKNOWLEDGED", 1)], version)
    assert (sp.start_offset, sp.end_offset, sp.next_fetch_offset) == (10, 20, next_fetch)
