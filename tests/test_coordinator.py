"""Every group-state transition and the per-state request rules of the classic coordinator
(GroupCoordinator.scala, GroupMetadata.scala and MemberMetadata.scala through 3.9)."""

import inspect
import re

import pytest

from kafkasim.coordinator import GroupCoordinator
from kafkasim.coordinator import group_coordinator as GC

from kafkasim.coordinator.classic.group import VALID_PREVIOUS_STATES
from kafkasim.core.errors import ConfigError, Errors
from kafkasim import Simulation

from coordinator_helpers import REBALANCE, SESSION, join, new_coordinator, stable_group, two_step_join


# -- Empty -> PreparingRebalance -> CompletingRebalance -> Stable ------------------------------
def test_first_step_join_leaves_group_empty_with_a_pending_id():
    sim, coord = new_coordinator()
    r = join(coord)
    assert r.error is Errors.MEMBER_ID_REQUIRED and r.error.code == 79
    assert coord.group_state("g") == "Empty"
    assert coord.pending_member_ids("g") == [r.member_id]
    assert coord.member_ids("g") == []


def test_join_adds_member_then_join_sync_make_group_stable():
    sim, coord = new_coordinator(group_initial_rebalance_delay_ms=3000)
    a = two_step_join(coord)
    assert not a.done and coord.group_state("g") == "PreparingRebalance"
    sim.advance(3000)
    assert a.done and a.error is Errors.NONE
    assert coord.group_state("g") == "CompletingRebalance" and coord.generation_id("g") == 1
    assert a.leader_id == a.member_id and a.members == [a.member_id]
    s = coord.sync_group("g", a.member_id, 1, {a.member_id: b"p0"})
    assert s.done and s.assignment == b"p0" and coord.group_state("g") == "Stable"


def test_follower_sync_waits_for_leader_and_missing_members_get_empty_assignment():
    sim, coord = new_coordinator()
    a, b = two_step_join(coord), two_step_join(coord)
    sim.advance(0)
    follower = b.member_id if a.leader_id == a.member_id else a.member_id
    leader = a.leader_id
    fs = coord.sync_group("g", follower, 1)
    assert not fs.done and coord.group_state("g") == "CompletingRebalance"
    ls = coord.sync_group("g", leader, 1, {leader: b"L"})  # follower omitted
    assert ls.done and fs.done and fs.error is Errors.NONE and fs.assignment == b""
    assert ls.assignment == b"L"


def test_only_leader_gets_member_list_with_metadata_of_selected_protocol():
    sim, coord = new_coordinator()
    a = two_step_join(coord, protocols=[("range", b"ra"), ("roundrobin", b"rr-a")])
    b = two_step_join(coord, protocols=[("roundrobin", b"rr-b"), ("range", b"rb")])
    c = two_step_join(coord, protocols=[("roundrobin", b"rr-c")])
    sim.advance(0)
    assert coord.protocol_name("g") == "roundrobin"  # the only protocol all support
    assert a.members == [a.member_id, b.member_id, c.member_id]
    assert a.member_metadata == {a.member_id: b"rr-a", b.member_id: b"rr-b", c.member_id: b"rr-c"}
    assert b.members == [] and c.members == [] and b.leader_id == a.member_id


def test_protocol_vote_picks_the_most_preferred_common_protocol():
    sim, coord = new_coordinator()
    two_step_join(coord, protocols=[("range", b""), ("sticky", b"")])
    two_step_join(coord, protocols=[("sticky", b""), ("range", b"")])
    two_step_join(coord, protocols=[("sticky", b""), ("range", b"")])
    sim.advance(0)
    assert coord.protocol_name("g") == "sticky"


# -- PreparingRebalance -> Empty ----------------------------------------------------------
def test_rebalance_that_ends_with_no_members_goes_empty_and_still_bumps_generation():
    sim, coord, ids, leader = stable_group(2)
    coord.leave_group("g", ids)
    assert coord.group_state("g") == "Empty"
    assert coord.generation_id("g") == 2
    assert coord.protocol_name("g") is None
    assert any("is now empty" in line for line in coord.broker_log)


def test_members_expiring_during_rebalance_leave_group_empty():
    sim, coord, ids, leader = stable_group(2)
    coord.prepare_rebalance("g", reason="test")
    sim.advance(SESSION)  # nobody heartbeats or rejoins
    assert coord.group_state("g") == "Empty" and coord.generation_id("g") == 2


# -- CompletingRebalance -> PreparingRebalance -------------------------------------------------
@pytest.fixture
def completing():
    sim, coord = new_coordinator()
    a, b = two_step_join(coord), two_step_join(coord)
    sim.advance(0)
    assert coord.group_state("g") == "CompletingRebalance"
    follower = b.member_id if a.leader_id == a.member_id else a.member_id
    parked = coord.sync_group("g", follower, 1)
    return sim, coord, a.leader_id, follower, parked


def test_completing_new_member_joins_answers_parked_syncs_rebalance_in_progress(completing):
    sim, coord, leader, follower, parked = completing
    two_step_join(coord)
    assert coord.group_state("g") == "PreparingRebalance"
    assert parked.done and parked.error is Errors.REBALANCE_IN_PROGRESS


def test_completing_rejoin_with_same_metadata_gets_current_generation(completing):
    sim, coord, leader, follower, parked = completing
    r = join(coord, member_id=leader)
    assert r.done and r.generation_id == 1 and r.members and coord.group_state("g") == "CompletingRebalance"


def test_completing_rejoin_with_changed_metadata_rebalances(completing):
    sim, coord, leader, follower, parked = completing
    r = join(coord, member_id=follower, protocols=[("range", b"changed")])
    assert not r.done and coord.group_state("g") == "PreparingRebalance"


def test_completing_leave_rebalances(completing):
    sim, coord, leader, follower, parked = completing
    assert coord.leave_group("g", [leader]).member_errors == [Errors.NONE]
    assert coord.group_state("g") == "PreparingRebalance"
    assert parked.error is Errors.REBALANCE_IN_PROGRESS


def test_completing_heartbeat_is_none_and_commit_is_rebalance_in_progress(completing):
    sim, coord, leader, follower, parked = completing
    assert coord.heartbeat("g", leader, 1).error is Errors.NONE
    assert coord.commit_offsets("g", leader, 1, {0: 5}).error is Errors.REBALANCE_IN_PROGRESS


def test_completing_leader_that_never_syncs_expires_and_parked_follower_is_released(completing):
    sim, coord, leader, follower, parked = completing
    sim.advance(SESSION)
    assert leader not in coord.member_ids("g") and follower in coord.member_ids("g")
    assert parked.error is Errors.REBALANCE_IN_PROGRESS
    assert coord.group_state("g") == "PreparingRebalance"


def test_completing_pending_sync_expiry_removes_the_members_that_never_synced():
    sim, coord = new_coordinator()
    a, b = two_step_join(coord, rebalance=5000), two_step_join(coord, rebalance=5000)
    sim.advance(0)
    follower = b.member_id if a.leader_id == a.member_id else a.member_id
    parked = coord.sync_group("g", follower, 1)
    sim.advance(5000)  # the leader never sends SyncGroup (sync timer = rebalance timeout < session timeout)
    assert coord.member_ids("g") == [follower]
    assert parked.error is Errors.REBALANCE_IN_PROGRESS
    assert any("on pending sync request expiration" in line for line in coord.broker_log)


# -- Stable -> PreparingRebalance --------------------------------------------------------------
def test_stable_follower_rejoin_unchanged_is_answered_without_rebalance():
    sim, coord, ids, leader = stable_group(2)
    follower = next(i for i in ids if i != leader)
    r = join(coord, member_id=follower)
    assert r.done and r.generation_id == 1 and r.members == [] and coord.group_state("g") == "Stable"


@pytest.mark.parametrize("trigger", ["new_member", "leader_rejoin", "changed_metadata", "leave", "session_expiry"])
def test_stable_group_rebalances_on(trigger):
    sim, coord, ids, leader = stable_group(2)
    follower = next(i for i in ids if i != leader)
    if trigger == "new_member":
        two_step_join(coord)
    elif trigger == "leader_rejoin":
        join(coord, member_id=leader)
    elif trigger == "changed_metadata":
        join(coord, member_id=follower, protocols=[("range", b"new-topics")])
    elif trigger == "leave":
        coord.leave_group("g", [follower])
    else:
        for _ in range(4):
            sim.advance(3000)
            coord.heartbeat("g", leader, 1)
    assert coord.group_state("g") == "PreparingRebalance"
    line = next(line for line in coord.broker_log if "Preparing to rebalance" in line and "generation 1" in line)
    assert re.search(r"in state PreparingRebalance with old generation 1 \(__consumer_offsets-\d+\) \(reason: ", line)


def test_stable_sync_timeout_removes_followers_that_never_synced():
    sim, coord = new_coordinator()
    a, b = two_step_join(coord, rebalance=4000), two_step_join(coord, rebalance=4000)
    sim.advance(0)
    coord.sync_group("g", a.leader_id, 1, {})
    assert coord.group_state("g") == "Stable"
    sim.advance(4000)
    assert coord.member_ids("g") == [a.leader_id] and coord.group_state("g") == "PreparingRebalance"
    assert sim.events.of_kind("MemberRemoved")[-1][9] == "sync_timeout"


# -- Dead ------------------------------------------------------------------------------------
def test_delete_only_empty_groups_and_unload_makes_group_dead():
    sim, coord, ids, leader = stable_group(1)
    assert coord.delete_groups(["g", "nope"]) == {"g": Errors.NON_EMPTY_GROUP, "nope": Errors.GROUP_ID_NOT_FOUND}
    coord.leave_group("g", ids)
    assert coord.delete_groups(["g"]) == {"g": Errors.NONE}
    assert coord.group_state("g") is None

    sim, coord, ids, leader = stable_group(2)
    parked = join(coord, member_id=leader)  # PreparingRebalance, leader parked
    coord.unload_group("g")
    assert parked.error is Errors.NOT_COORDINATOR
    assert coord.group_state("g") == "Dead"
    assert coord.heartbeat("g", ids[1], 1).error is Errors.NOT_COORDINATOR


def test_transition_table_matches_kafka():
    assert VALID_PREVIOUS_STATES["Empty"] == {"PreparingRebalance"}
    assert VALID_PREVIOUS_STATES["Stable"] == {"CompletingRebalance"}
    assert VALID_PREVIOUS_STATES["CompletingRebalance"] == {"PreparingRebalance"}
    assert VALID_PREVIOUS_STATES["PreparingRebalance"] == {"Stable", "CompletingRebalance", "Empty"}


# -- requests by state ----------------------------------------------------------------------
def test_heartbeat_errors():
    sim, coord, ids, leader = stable_group(2)
    assert coord.heartbeat("g", leader, 1).error is Errors.NONE
    assert coord.heartbeat("g", leader, 0).error is Errors.ILLEGAL_GENERATION
    assert coord.heartbeat("g", "ghost", 1).error is Errors.UNKNOWN_MEMBER_ID
    assert coord.heartbeat("other", leader, 1).error is Errors.UNKNOWN_MEMBER_ID
    assert coord.heartbeat("", leader, 1).error is Errors.INVALID_GROUP_ID
    coord.prepare_rebalance("g")
    assert coord.heartbeat("g", leader, 1).error is Errors.REBALANCE_IN_PROGRESS


def test_sync_errors():
    sim, coord, ids, leader = stable_group(2)
    assert coord.sync_group("g", leader, 2).error is Errors.ILLEGAL_GENERATION
    assert coord.sync_group("g", "ghost", 1).error is Errors.UNKNOWN_MEMBER_ID
    assert coord.sync_group("nope", leader, 1).error is Errors.UNKNOWN_MEMBER_ID
    assert coord.sync_group("g", leader, 1, protocol_name="sticky").error is Errors.INCONSISTENT_GROUP_PROTOCOL
    stable = coord.sync_group("g", leader, 1)
    assert stable.done and stable.assignment == leader.encode()
    coord.prepare_rebalance("g")
    assert coord.sync_group("g", leader, 1).error is Errors.REBALANCE_IN_PROGRESS


def test_join_validation_errors():
    sim, coord = new_coordinator()
    assert join(coord, "").error is Errors.INVALID_GROUP_ID
    assert join(coord, session=5999).error is Errors.INVALID_SESSION_TIMEOUT
    assert join(coord, session=1_800_001).error is Errors.INVALID_SESSION_TIMEOUT
    assert join(coord, session=6000).error is Errors.MEMBER_ID_REQUIRED  # bounds are inclusive
    assert join(coord, "fresh", member_id="someone").error is Errors.UNKNOWN_MEMBER_ID
    assert coord.group_state("fresh") is None  # no group created
    assert join(coord, "p", protocol_type="").error is Errors.INCONSISTENT_GROUP_PROTOCOL
    sim2, coord2, ids, leader = stable_group(1)
    assert join(coord2, protocols=[("sticky", b"")]).error is Errors.INCONSISTENT_GROUP_PROTOCOL
    assert join(coord2, protocol_type="connect").error is Errors.INCONSISTENT_GROUP_PROTOCOL


def test_commit_rules():
    sim, coord, ids, leader = stable_group(1)
    assert coord.commit_offsets("g", leader, 1, {0: 10}).error is Errors.NONE
    assert coord.committed("g") == {0: 10}
    assert coord.commit_offsets("g", leader, 0, {0: 11}).error is Errors.ILLEGAL_GENERATION
    assert coord.commit_offsets("g", "", -1, {0: 11}).error is Errors.UNKNOWN_MEMBER_ID  # non-empty group
    assert coord.commit_offsets("solo", "", -1, {3: 1}).error is Errors.NONE  # manual assignment: allowed
    assert coord.commit_offsets("new", "m", 2, {3: 1}).error is Errors.ILLEGAL_GENERATION


def test_commit_keeps_session_alive_like_a_heartbeat():
    sim, coord, ids, leader = stable_group(1)
    for _ in range(5):
        sim.advance(SESSION - 1)
        assert coord.commit_offsets("g", leader, 1, {0: sim.now}).error is Errors.NONE
    assert coord.member_ids("g") == [leader]


def test_leave_group_batch_reports_per_member_errors():
    sim, coord, ids, leader = stable_group(2)
    pending = join(coord).member_id
    r = coord.leave_group("g", [ids[0], "ghost", pending, ("", "no-such-instance")])
    assert r.error is Errors.NONE
    assert r.member_errors == [Errors.NONE, Errors.UNKNOWN_MEMBER_ID, Errors.NONE, Errors.UNKNOWN_MEMBER_ID]
    assert coord.pending_member_ids("g") == []
    assert coord.leave_group("unknown", ["x"]).member_errors == [Errors.UNKNOWN_MEMBER_ID]


def test_leader_leaving_hands_leadership_to_a_remaining_member():
    sim, coord, ids, leader = stable_group(3)
    coord.leave_group("g", [leader])
    assert coord.leader_id("g") in ids and coord.leader_id("g") != leader


# -- timers ------------------------------------------------------------------------------------
def test_parked_join_does_not_expire_but_non_rejoining_dynamic_member_is_dropped_at_rebalance_timeout():
    sim, coord, ids, leader = stable_group(2)
    follower = next(i for i in ids if i != leader)
    r = join(coord, member_id=leader)  # leader rejoins, follower never does but keeps heartbeating
    for _ in range(REBALANCE // 3000 - 1):
        sim.advance(3000)
        assert coord.heartbeat("g", follower, 1).error is Errors.REBALANCE_IN_PROGRESS
    assert not r.done
    sim.advance(3000)  # the rebalance timeout: leader's parked join never expired
    assert r.done and coord.member_ids("g") == [leader] and coord.generation_id("g") == 2
    assert sim.events.of_kind("MemberRemoved")[-1][9] == "rebalance_timeout"


def test_new_member_join_timeout_is_five_minutes():
    sim, coord, ids, leader = stable_group(1, group_initial_rebalance_delay_ms=0)
    # A new member joins; the old leader neither rejoins nor lets its session lapse (long rebalance timeout).
    sim2, coord2 = new_coordinator()
    a = two_step_join(coord2, rebalance=600_000, session=6000)
    sim2.advance(0)
    coord2.sync_group("g", a.member_id, 1, {})
    b = two_step_join(coord2, rebalance=600_000, session=6000)
    for _ in range(299):  # the leader keeps heartbeating but never rejoins
        sim2.advance(1000)
        coord2.heartbeat("g", a.member_id, 1)
    assert not b.done
    sim2.advance(1000)  # 300000 ms after the join: the new member's JoinGroup times out
    assert b.done and b.error is Errors.UNKNOWN_MEMBER_ID
    assert sim2.events.of_kind("MemberRemoved")[-1][9] == "new_member_timeout"


def test_pending_member_expires_after_its_session_timeout():
    sim, coord = new_coordinator()
    p = join(coord, session=7000)
    sim.advance(6999)
    assert coord.pending_member_ids("g") == [p.member_id]
    sim.advance(1)
    assert coord.pending_member_ids("g") == []
    # onExpireHeartbeat's line for a pending member, at 7 s, naming it and its group
    assert coord.broker_log[-1] == (
        f"[2026-01-01 00:00:07,000] INFO [GroupCoordinator 0]: Pending member {p.member_id} in group g has been "
        f"removed after session timeout expiration. (kafka.coordinator.group.GroupCoordinator)")


def test_pending_ids_block_early_join_completion():
    sim, coord, ids, leader = stable_group(1)
    pending = join(coord)  # first step only
    r = join(coord, member_id=leader)
    assert not r.done, "a pending id blocks completion"
    coord.leave_group("g", [pending.member_id])
    assert r.done and r.generation_id == 2


@pytest.mark.parametrize("arrivals,expected_completion", [
    ([], 3000),                       # nobody else arrives: one window
    ([1000], 6000),                   # an arrival in window 1 adds a window
    ([1000, 4000, 7000], 10000),      # the total is capped by the rebalance timeout (10 s)
    ([1000, 4000, 7000, 9500], 10000),
])
def test_initial_rebalance_delay_extension_capped_by_rebalance_timeout(arrivals, expected_completion):
    sim, coord = new_coordinator(group_initial_rebalance_delay_ms=3000)
    first = two_step_join(coord, rebalance=10_000)
    for t in arrivals:
        sim.advance(t - sim.now)
        two_step_join(coord, rebalance=10_000)
    while not first.done:
        sim.advance(1)
    assert sim.now == expected_completion


def test_initial_delay_waits_full_delay_even_when_rebalance_timeout_is_shorter():
    sim, coord = new_coordinator(group_initial_rebalance_delay_ms=3000)
    r = two_step_join(coord, rebalance=1000)
    sim.advance(2999)
    assert not r.done
    sim.advance(1)
    assert r.done


# -- group.max.size ------------------------------------------------------------------------------
def test_group_max_size_rejects_newcomers_of_a_full_group():
    sim, coord, ids, leader = stable_group(2, group_max_size=2)
    r = join(coord)
    assert r.error is Errors.GROUP_MAX_SIZE_REACHED and r.error.code == 81 and r.member_id == ""
    assert coord.member_ids("g") == ids


def test_group_max_size_turns_away_the_last_to_join_during_a_rebalance():
    sim, coord = new_coordinator(group_max_size=2, group_initial_rebalance_delay_ms=3000)
    firsts = [join(coord) for _ in range(3)]  # all three get pending ids: Empty accepts everyone
    seconds = [join(coord, member_id=f.member_id) for f in firsts]
    assert [s.error for s in seconds] == [Errors.NONE, Errors.NONE, Errors.GROUP_MAX_SIZE_REACHED]
    sim.advance(6000)  # the second member arrived in the first window: one more window
    assert coord.pending_member_ids("g") == []
    assert len(coord.member_ids("g")) == 2 and coord.generation_id("g") == 1


# -- static membership ---------------------------------------------------------------------
def test_static_member_restart_within_session_timeout_causes_no_rebalance_and_fences_old_id():
    sim, coord = new_coordinator()
    a = join(coord, instance="host-a")
    b = join(coord, instance="host-b")
    sim.advance(0)
    coord.sync_group("g", a.member_id, 1, {a.member_id: b"A", b.member_id: b"B"})
    coord.sync_group("g", b.member_id, 1)
    restarted = join(coord, instance="host-b")
    assert restarted.done and restarted.error is Errors.NONE and restarted.member_id != b.member_id
    assert coord.group_state("g") == "Stable" and coord.generation_id("g") == 1
    s = coord.sync_group("g", restarted.member_id, 1, group_instance_id="host-b")
    assert s.assignment == b"B"  # keeps its old assignment
    assert coord.heartbeat("g", b.member_id, 1, group_instance_id="host-b").error is Errors.FENCED_INSTANCE_ID
    assert not any("Preparing to rebalance" in line and "generation 1" in line for line in coord.broker_log)


def test_static_member_that_misses_a_rebalance_is_kept():
    sim, coord = new_coordinator()
    a = join(coord, instance="a")
    b = join(coord, instance="b")
    sim.advance(0)
    coord.sync_group("g", a.leader_id, 1, {})
    leader = a.leader_id
    r = join(coord, member_id=leader, instance="a" if leader == a.member_id else "b")  # only the leader rejoins
    other = b if leader == a.member_id else a
    for _ in range(REBALANCE // 3000):
        sim.advance(3000)
        coord.heartbeat("g", other.member_id, 1)  # its heartbeats keep the other member's session
    assert r.done and coord.generation_id("g") == 2
    assert sorted(coord.member_ids("g")) == sorted([a.member_id, b.member_id])


# -- configuration and defaults -----------------------------------------------------------------
@pytest.mark.parametrize("version, delay, min_session, max_session, max_size", [
    ("3.7", 3000, 6000, 1800000, 2**31 - 1),
    ("2.2", 3000, 6000, 300000, 2**31 - 1),
    ("2.1", 3000, 6000, 300000, 2**31 - 1),   # no group.max.size yet: unbounded
    ("0.10.2", None, 6000, 300000, 2**31 - 1),  # no group.initial.rebalance.delay.ms before 0.11
    ("0.9", None, 6000, 30000, 2**31 - 1),
])
def test_defaults_follow_the_kafka_version(version, delay, min_session, max_session, max_size):
    coord = GroupCoordinator(Simulation(), kafka_version=version)
    assert (coord.initial_rebalance_delay_ms, coord.min_session_timeout_ms, coord.max_session_timeout_ms,
            coord.max_size) == (delay, min_session, max_session, max_size)


@pytest.mark.parametrize("kwargs,config,fragment", [
    ({"group_max_size": 0}, "group.max.size", "at least 1"),
    ({"group_initial_rebalance_delay_ms": -1}, "group.initial.rebalance.delay.ms", "at least 0"),
    ({"group_min_session_timeout_ms": "6s"}, "group.min.session.timeout.ms", "expected int"),
    ({"group_max_size": 2**31}, "group.max.size", "no more than 2147483647"),
])
def test_invalid_config_names_the_kafka_config_and_its_range(kwargs, config, fragment):
    with pytest.raises(ConfigError, match=re.escape(config)) as info:
        GroupCoordinator(Simulation(), **kwargs)
    assert fragment in str(info.value) and "valid range" in str(info.value)


def test_max_session_below_min_session_is_rejected():
    with pytest.raises(ConfigError, match="group.max.session.timeout.ms"):
        GroupCoordinator(Simulation(), group_min_session_timeout_ms=10000, group_max_session_timeout_ms=9000)


# -- determinism and the heartbeat batch path ---------------------------------------------------
def _scripted_run(seed):
    sim, coord, ids, leader = stable_group(5, seed=seed, group_initial_rebalance_delay_ms=3000)
    coord.leave_group("g", [ids[2]])
    for _ in range(10):
        sim.advance(3000)
        coord.heartbeat_batch("g", ids, coord.generation_id("g"))
    return sim.events.rows, coord.broker_log


def test_same_seed_same_events_and_log_byte_for_byte():
    assert _scripted_run(3) == _scripted_run(3)
    assert _scripted_run(3)[1] != _scripted_run(4)[1]  # member ids come from the seed


def test_heartbeat_batch_matches_single_heartbeats():
    def run(batch):
        sim, coord, ids, leader = stable_group(4)
        out = []
        for step in range(8):
            sim.advance(4000)
            gen = coord.generation_id("g")
            alive = ids[:2] + ["ghost"]  # two members stop heartbeating
            if batch:
                out.append(coord.heartbeat_batch("g", alive, gen))
            else:
                out.append({m: e for m in alive if (e := coord.heartbeat("g", m, gen).error) is not Errors.NONE})
        return out, coord.member_ids("g"), coord.group_state("g"), [r[4:] for r in sim.events.rows], ids

    out, members, state, rows, ids = run(batch=True)
    assert (out, members, state, rows) == run(batch=False)[:4]
    # By hand: Stable at 0 ms, session.timeout.ms 10 s. ids[2] and ids[3] were last heard at 0 ms, so
    # both expire at 10 s and a rebalance starts. Until then only the ghost is refused; from 12 s the
    # two live members are told to rejoin, which they never do, and stay members: the rebalance
    # timeout (60 s) has not run out at 32 s.
    ghost = {"ghost": Errors.UNKNOWN_MEMBER_ID}
    rejoin = {ids[0]: Errors.REBALANCE_IN_PROGRESS, ids[1]: Errors.REBALANCE_IN_PROGRESS, **ghost}
    assert out == [ghost] * 2 + [rejoin] * 6
    assert (members, state) == (ids[:2], "PreparingRebalance")


def test_one_members_life_row_by_row():
    """A member's whole life at the coordinator, every row exact (mutation survivors changed a row's
    kind, source, member or reason, or the request and timer counts, and passed): the KIP-394 join
    (MEMBER_ID_REQUIRED, then the join with the given id), generation 1 with the member as leader,
    its assignment, one heartbeat at 0 ms, then silence until the session (10 s) expires: removed,
    a rebalance with nobody left, and the group Empty at generation 2 (GroupCoordinator: a join
    phase that ends without members moves to Empty with the next generation)."""
    sim, coord = new_coordinator()
    j = two_step_join(coord)
    sim.advance(0)
    m = j.member_id
    assert re.fullmatch(r"consumer-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", m)
    sync = coord.sync_group("g", m, 1, {m: b"a"})
    coord.heartbeat("g", m, 1)
    sim.advance(SESSION + 1)
    assert repr(sync) == "SyncGroupResponse(done=True, error=Errors.NONE, assignment=b'a')"
    assert coord.stats == {"requests": 4, "timer_events": 2}  # 2 joins, sync, heartbeat; join phase, session
    added = f"Adding new member {m} with group instance id None; client reason: not provided"
    assert [(r[0], r[1], r[2], r[3], r[4], r[5], r[8], r[9], r[10], r[11]) for r in sim.events.rows] == [
        (0, "coordinator", "g", "consumer", "JoinGroup", 0, None, None, None, "Empty"),
        (0, "coordinator", "g", m, "PendingMemberAdded", 0, None, None, None, "Empty"),
        (0, "coordinator", "g", m, "JoinGroupResponse", 0, "MEMBER_ID_REQUIRED", "consumer", None, "Empty"),
        (0, "coordinator", "g", m, "JoinGroup", 0, None, None, None, "Empty"),
        (0, "coordinator", "g", m, "MemberAdded", 0, None, "dynamic", None, "Empty"),
        (0, "coordinator", "g", None, "RebalanceStarted", 0, None, added, None, "PreparingRebalance"),
        (0, "coordinator", "g", m, "GenerationStabilized", 1, None, "range", 1, "CompletingRebalance"),
        (0, "coordinator", "g", m, "JoinGroupResponse", 1, "NONE", None, None, "CompletingRebalance"),
        (0, "coordinator", "g", m, "SyncGroup", 1, None, None, None, "CompletingRebalance"),
        (0, "coordinator", "g", m, "AssignmentReceived", 1, None, None, 1, "CompletingRebalance"),
        (0, "coordinator", "g", m, "SyncGroupResponse", 1, "NONE", None, None, "CompletingRebalance"),
        (0, "coordinator", "g", m, "GroupStable", 1, None, None, 1, "Stable"),
        (0, "coordinator", "g", m, "Heartbeat", 1, "NONE", None, None, "Stable"),
        (10_000, "coordinator", "g", m, "MemberRemoved", 1, None, "session_timeout", None, "Stable"),
        (10_000, "coordinator", "g", None, "RebalanceStarted", 1, None,
         f"removing member {m} on heartbeat expiration", None, "PreparingRebalance"),
        (10_000, "coordinator", "g", None, "GroupEmpty", 2, None, None, None, "Empty"),
    ]


# -- rows and answers no other test pinned (make mutation) -----------------------------------------
def _rows_after(sim, n):
    return [tuple(r) for r in sim.events.rows[n:]]


def test_leave_group_answers_through_its_callback():
    sim, coord, ids, _ = stable_group(2)
    got = []
    resp = coord.leave_group("g", [ids[1]], callback=got.append)
    assert got == [resp] and resp.member_errors == [Errors.NONE]
    assert repr(resp) == "LeaveGroupResponse(done=True, error=Errors.NONE, member_errors=[Errors.NONE])"
    assert repr(coord.heartbeat("g", ids[1], 1)) == "HeartbeatResponse(done=True, error=Errors.UNKNOWN_MEMBER_ID)"


def test_batch_heartbeats_row_by_row_and_counted_once_each():
    """`heartbeat_batch` on a Stable group: one row per member, in order, an unknown id answered
    UNKNOWN_MEMBER_ID among them; three requests counted; a heartbeat whose deadline is later
    than the armed expiry check leaves that check where it is (`_reset_session`)."""
    sim, coord, ids, _ = stable_group(3, record_heartbeats=True)
    sim.advance(1000)
    member = coord.groups["g"].members[ids[0]]
    armed, requests, n = member.timer, coord.stats["requests"], len(sim.events.rows)
    assert coord.heartbeat_batch("g", [ids[0], ids[1], "ghost", ids[2]], 1) == {"ghost": Errors.UNKNOWN_MEMBER_ID}
    assert _rows_after(sim, n) == [
        (1000, "coordinator", "g", ids[0], "Heartbeat", 1, None, None, "NONE", None, None, "Stable"),
        (1000, "coordinator", "g", ids[1], "Heartbeat", 1, None, None, "NONE", None, None, "Stable"),
        (1000, "coordinator", "g", "ghost", "Heartbeat", 1, None, None, "UNKNOWN_MEMBER_ID", None, None, "Stable"),
        (1000, "coordinator", "g", ids[2], "Heartbeat", 1, None, None, "NONE", None, None, "Stable")]
    assert coord.stats["requests"] == requests + 4
    assert member.timer is armed and member.deadline == 1000 + SESSION


def test_a_coordinator_initiated_rebalance_says_so():
    sim, coord, ids, _ = stable_group(2)
    n = len(sim.events.rows)
    coord.prepare_rebalance("g")
    assert _rows_after(sim, n) == [(0, "coordinator", "g", None, "RebalanceStarted", 1, None, None, None,
                                    "coordinator-initiated rebalance", None, "PreparingRebalance")]
    with pytest.raises(KeyError, match="unknown group 'nope'"):
        coord.prepare_rebalance("nope")



@pytest.mark.parametrize("query", ["generation_id", "member_ids", "leader_id", "protocol_name"])
def test_a_query_of_a_group_the_coordinator_does_not_have_names_the_group(query):
    _, coord = new_coordinator()
    with pytest.raises(KeyError) as err:
        getattr(coord, query)("nope")
    assert err.value.args == ("unknown group 'nope'",)

def test_deleted_and_unloaded_groups_die_with_their_reason():
    sim, coord = new_coordinator()
    for group in ("a", "b"):
        coord.commit_offsets(group, "", -1, {("t", 0): 1})
    n = len(sim.events.rows)
    assert coord.delete_groups(["a", "zz"]) == {"a": Errors.NONE, "zz": Errors.GROUP_ID_NOT_FOUND}
    coord.unload_group("b")
    dead = [r for r in _rows_after(sim, n) if r[4] == "GroupDead"]
    assert dead == [(0, "coordinator", "a", None, "GroupDead", 0, None, None, None, "deleted", None, "Dead"),
                    (0, "coordinator", "b", None, "GroupDead", 0, None, None, None, "unloaded", None, "Dead")]


def test_an_unloaded_group_leaves_this_brokers_cache_with_its_offsets():
    """GroupMetadataManager.removeGroupsForPartition (a failover): the group and its cached
    offsets are dropped from this broker; another group's offsets stay."""
    sim, coord = new_coordinator()
    for group in ("a", "b"):
        coord.commit_offsets(group, "", -1, {("t", 0): 1})
    coord.unload_group("b")
    assert (coord.committed("a"), coord.committed("b")) == ({("t", 0): 1}, {})


def test_a_join_refused_before_any_group_logic_still_names_the_requester():
    sim, coord = new_coordinator()
    resp = join(coord, "", client_id="c")
    assert sim.events.rows == [(0, "coordinator", "", "c", "JoinGroupResponse", None, None, None, "INVALID_GROUP_ID",
                                None, None, None)]
    assert repr(resp) == ("JoinGroupResponse(done=True, error=Errors.INVALID_GROUP_ID, member_id='', "
                          "generation_id=-1, leader_id='', protocol_name=None, members=[])")


def test_a_static_member_changing_the_groups_protocol_names_its_new_id():
    """`updateStaticMemberAndRebalance`: a Stable group whose selected protocol changes with the
    static member's rejoin rebalances "because static member <new id> ... joined with change of
    protocol" (the new member id, not the replaced one)."""
    sim, coord = new_coordinator(kafka_version="3.7")
    first = join(coord, instance="i-1", client_id="c1")
    sim.advance(0)
    coord.sync_group("g", first.member_id, 1, {first.member_id: b"a"})
    n = len(sim.events.rows)
    again = join(coord, instance="i-1", client_id="c1", protocols=(("roundrobin", b""), ("range", b"")), reason="why")
    new = again.member_id
    assert new != first.member_id and again.protocol_name == "roundrobin"
    assert _rows_after(sim, n)[:3] == [
        (0, "coordinator", "g", "c1", "JoinGroup", 1, None, None, None, "why", None, "Stable"),
        (0, "coordinator", "g", new, "MemberReplaced", 1, None, None, None, first.member_id, None, "Stable"),
        (0, "coordinator", "g", None, "RebalanceStarted", 1, None, None, None,
         f"Group's selectedProtocol will change because static member {new} with instance id i-1 joined with "
         f"change of protocol; client reason: why", None, "PreparingRebalance")]


def test_a_member_no_longer_awaiting_join_is_counted_out():
    """`MemberMetadata.awaitingJoinCallback` set to null (a parked JoinGroup answered) leaves the
    group's count of members awaiting a join (`GroupMetadata.numMembersAwaitingJoin`)."""
    from kafkasim.coordinator.classic.group import Group, Member

    sim, coord = new_coordinator()
    group = Group("g")
    waiting = join(coord, "other", client_id="c")
    member = Member("m", None, "c", 10_000, 60_000, "consumer", [("range", b"")])
    group.add(member, waiting)
    assert group.num_awaiting_join == 1
    group.update_member(member, [("range", b"")], 60_000, 10_000, waiting)  # still waiting: no change
    assert group.num_awaiting_join == 1
    group.update_member(member, [("range", b"")], 60_000, 10_000, None)
    assert group.num_awaiting_join == 0 and member.awaiting_join is None


def test_after_unloading_a_sync_gets_not_coordinator():
    sim, coord, ids, _ = stable_group(2)
    coord.unload_group("g")
    n = len(sim.events.rows)
    assert coord.sync_group("g", ids[0], 1).error is Errors.NOT_COORDINATOR
    assert _rows_after(sim, n) == [(0, "coordinator", "g", ids[0], "SyncGroupResponse", 1, None, None,
                                    "NOT_COORDINATOR", None, None, None)]


def test_the_leaders_rejoin_carries_its_client_reason_and_removals_keep_theirs():
    """A Stable group's leader rejoining forces a rebalance, with the client's reason (KIP-800, 3.2+);
    members the coordinator removes keep the reason the consumer reads back (`removal_reason`)."""
    sim, coord, ids, leader = stable_group(2, kafka_version="3.7")
    n = len(sim.events.rows)
    join(coord, "g", leader, reason="why")
    assert _rows_after(sim, n)[1] == (0, "coordinator", "g", None, "RebalanceStarted", 1, None, None, None,
                                      f"Leader {leader} re-joining group during Stable; client reason: why", None,
                                      "PreparingRebalance")
    assert coord.removal_reason == {}
    sim.advance(SESSION)  # the follower never rejoins; the leader, parked in its JoinGroup, is kept alive
    assert coord.removal_reason == {next(m for m in ids if m != leader): "session_timeout"}


def test_a_replaced_static_member_expires_a_session_after_its_replacement():
    """The new member id of a static member inherits the session, restarted at the rejoin (1 s):
    silent, it is removed at 11 s, and the group, empty, moves to generation 2."""
    sim, coord = new_coordinator(kafka_version="3.7")
    first = join(coord, instance="i-1", client_id="c1")
    sim.advance(0)
    coord.sync_group("g", first.member_id, 1, {first.member_id: b"a"})
    sim.advance(1000)
    new = join(coord, instance="i-1", client_id="c1").member_id
    n = len(sim.events.rows)
    sim.advance(SESSION + 1000)
    assert _rows_after(sim, n) == [
        (11000, "coordinator", "g", new, "MemberRemoved", 1, None, None, None, "session_timeout", None, "Stable"),
        (11000, "coordinator", "g", None, "RebalanceStarted", 1, None, None, None,
         f"removing member {new} on heartbeat expiration", None, "PreparingRebalance"),
        (11000, "coordinator", "g", None, "GroupEmpty", 2, None, None, None, None, None, "Empty")]


def test_batch_heartbeats_to_an_unknown_group_and_offset_commits_answer_per_member():
    sim, coord = new_coordinator(record_heartbeats=True)
    assert coord.heartbeat_batch("nope", ["m"], 1) == {"m": Errors.UNKNOWN_MEMBER_ID}
    assert sim.events.rows == [(0, "coordinator", "nope", "m", "Heartbeat", 1, None, None, "UNKNOWN_MEMBER_ID",
                                None, None, None)]
    sim, coord, ids, _ = stable_group(2)
    assert repr(coord.commit_offsets("g", ids[0], 1, {("t", 0): 5})) == (
        "OffsetCommitResponse(done=True, error=Errors.NONE, partition_errors={('t', 0): Errors.NONE})")


def test_a_leave_group_row_names_each_leaving_member_and_a_deleted_group_drops_its_offsets():
    sim, coord, ids, _ = stable_group(2)
    n = len(sim.events.rows)
    coord.leave_group("g", [ids[0], ids[1]], reason="bye")
    assert [(r[3], r[4], r[9]) for r in _rows_after(sim, n) if r[4] == "LeaveGroup"] == [
        (ids[0], "LeaveGroup", "bye"), (ids[1], "LeaveGroup", "bye")]
    sim.advance(0)
    coord.commit_offsets("g", "", -1, {("t", 0): 5})
    assert coord.group_state("g") == "Empty" and coord.committed("g") == {("t", 0): 5}
    assert coord.delete_groups(["g"]) == {"g": Errors.NONE} and coord.committed("g") == {}


def test_the_sync_timer_removes_a_member_that_never_synced():
    """DelayedSync (2.8+): armed when the join completes (0 ms) for the rebalance timeout (60 s). The
    follower heartbeats every 5 s but never sends SyncGroup: at 60 s it is removed and the group
    rebalances. Two timer events at 60 s: the sync timer and the lazy session check armed at 50 s."""
    sim, coord = new_coordinator()
    a, b = two_step_join(coord), two_step_join(coord)
    sim.advance(0)
    coord.sync_group("g", a.member_id, 1, {a.member_id: b"x", b.member_id: b"y"})
    for t in range(5000, REBALANCE, 5000):
        sim.advance(t - sim.now)
        assert coord.heartbeat_batch("g", [a.member_id, b.member_id], 1) == {}
    sim.advance(REBALANCE - 1 - sim.now)
    before, n = coord.stats["timer_events"], len(sim.events.rows)
    sim.advance(1)
    assert coord.stats["timer_events"] == before + 2
    assert _rows_after(sim, n) == [
        (60000, "coordinator", "g", b.member_id, "MemberRemoved", 1, None, None, None, "sync_timeout", None, "Stable"),
        (60000, "coordinator", "g", None, "RebalanceStarted", 1, None, None, None,
         f"Removing Set({b.member_id}) on pending sync request expiration", None, "PreparingRebalance")]


def test_a_member_describes_itself_as_scalas_member_metadata():
    """`MemberMetadata.toString`, which 3.x's LeaveGroup line embeds."""
    from kafkasim.coordinator.classic.group import Member

    dynamic = Member("m-1", None, "c-1", 10000, 60000, "consumer", [("range", b""), ("cooperative-sticky", b"")])
    static = Member("m-2", "i-1", "c-2", 45000, 300000, "consumer", [("range", b"")])
    assert dynamic.describe() == (
        "MemberMetadata(memberId=m-1, groupInstanceId=None, clientId=c-1, clientHost=/127.0.0.1, "
        "sessionTimeoutMs=10000, rebalanceTimeoutMs=60000, supportedProtocols=List(range, cooperative-sticky))")
    assert static.describe() == (
        "MemberMetadata(memberId=m-2, groupInstanceId=Some(i-1), clientId=c-2, clientHost=/127.0.0.1, "
        "sessionTimeoutMs=45000, rebalanceTimeoutMs=300000, supportedProtocols=List(range))")


def test_removing_a_member_forgets_it_everywhere():
    """`GroupMetadata.remove`: the member's protocols, its awaiting-join count, its static instance
    id, its pending sync and the leadership (to the next member) all go with it."""
    from kafkasim.coordinator.classic.group import Group, Member

    sim, coord = new_coordinator()
    group = Group("g")
    parked = [join(coord, "other", client_id=f"c{i}") for i in range(3)]
    for i, name in enumerate(("a", "b", "c")):
        group.add(Member(name, f"i-{name}", f"c{i}", 10000, 60000, "consumer", [("range", b"")]), parked[i])
    group.leader_id = "a"
    group.pending_sync.update({"a", "b"})
    assert group.num_awaiting_join == 3 and group.static_members == {"i-a": "a", "i-b": "b", "i-c": "c"}
    assert group.remove("a").member_id == "a"
    assert (group.num_awaiting_join, group.leader_id, group.pending_sync) == (2, "b", {"b"})
    assert group.static_members == {"i-b": "b", "i-c": "c"} and group.supported_protocols["range"] == 2
    assert group.remove("nobody") is None and group.num_awaiting_join == 2


# -- shared expiry checks (one engine timer for many members, the same order as one each) ----------
def _expired(sim):
    return [(r[0], r[2], r[3]) for r in sim.events.of_kind("PendingMemberExpired")]


def test_pending_ids_share_an_expiry_timer_only_while_no_other_timer_is_due_with_it():
    """Pending ids registered for the same expiry time share one engine timer while nothing due at
    that time was scheduled in between (the coordinator's own check for another time does not
    matter); a timer for the same time in between gets its turn between them, as with one timer
    per id. By hand: p1 and p2 expire at 7,000 ms from one timer (q's check, for 8,000 ms, came
    between them), then the other timer sees only p3 pending, then p3 expires from a second
    check: 3 engine events at 7,000 ms where one timer per id makes 4; q expires at 8,000 ms."""
    sim, coord = new_coordinator()
    p1 = join(coord, session=7000)
    q = join(coord, "h", session=8000)
    p2 = join(coord, session=7000)
    seen = []
    sim.at(7000, lambda: seen.append(coord.pending_member_ids("g")))
    p3 = join(coord, session=7000)
    sim.advance(7000)
    assert _expired(sim) == [(7000, "g", p1.member_id), (7000, "g", p2.member_id), (7000, "g", p3.member_id)]
    assert seen == [[p3.member_id]]
    assert sim.stats["events"] == 3 and coord.stats["timer_events"] == 3
    assert coord.pending_member_ids("g") == []
    sim.advance(1000)
    assert _expired(sim)[3:] == [(8000, "h", q.member_id)]


def test_a_pending_id_that_joins_leaves_or_loses_its_group_never_expires():
    """Removing an id from the pending ids is what cancels its expiry: the one that joins with it
    (KIP-394) and the one whose group this broker stops coordinating share the check of the one
    that does expire, and are skipped."""
    sim, coord = new_coordinator(group_initial_rebalance_delay_ms=3000)
    joined = join(coord, session=7000)
    lost = join(coord, "h", session=7000)
    expires = join(coord, session=7000)
    join(coord, member_id=joined.member_id, session=7000)
    coord.unload_group("h")
    sim.advance(7000)
    assert _expired(sim) == [(7000, "g", expires.member_id)]
    assert coord.member_ids("g") == [joined.member_id] and coord.pending_member_ids("g") == []
    assert coord.stats["timer_events"] == 2  # the expiry and the initial delayed join at 3,000 ms


def test_members_of_one_cohort_share_session_checks_and_expire_in_arming_order():
    """Members armed one after another for one deadline share a check even though each member's
    pending-id check (another time) was made in between, as in a join storm; when their sessions
    run out they are removed in the order they were armed. By hand: three members join at 0 ms
    while a 400 s initial delay holds the join phase open; a new member's JoinGroup times out after
    300 s (NEW_MEMBER_JOIN_TIMEOUT_MS), so all three are removed at 300,000 ms, in join order, by
    two engine timers: the first member's join starts the rebalance, whose join timer comes
    between its check and the second member's; the second and third share one (one timer per
    member when a pending-id timer in between stopped any sharing)."""
    sim, coord = new_coordinator(group_initial_rebalance_delay_ms=400_000)
    joins = [two_step_join(coord, rebalance=600_000) for _ in range(3)]
    ids = [j.member_id for j in joins]
    sim.advance(299_999)
    assert coord.member_ids("g") == ids
    events = sim.stats["events"]
    sim.advance(1)
    removed = [(r[0], r[3], r[9]) for r in sim.events.of_kind("MemberRemoved")]
    assert removed == [(300_000, m, "new_member_timeout") for m in ids]
    assert all(j.done and j.error is Errors.UNKNOWN_MEMBER_ID for j in joins)
    assert sim.stats["events"] - events == 2


def test_each_heartbeat_of_a_batch_is_handled_alone_past_an_unknown_member_id():
    """GroupCoordinator.handleHeartbeat answers each member's heartbeat on its own: an unknown
    member id refused UNKNOWN_MEMBER_ID does not stop the members after it from renewing their
    sessions (session.timeout.ms from this heartbeat), each heartbeat is one request, and with
    heartbeats not recorded only the refused one leaves a row."""
    sim, coord, ids, _ = stable_group(3, record_heartbeats=False)  # every member last heard at 0 ms
    sim.advance(1000)
    requests, n = coord.stats["requests"], len(sim.events.rows)
    assert coord.heartbeat_batch("g", [ids[0], "ghost", ids[1], ids[2]], 1) == {"ghost": Errors.UNKNOWN_MEMBER_ID}
    assert coord.stats["requests"] == requests + 4
    assert _rows_after(sim, n) == [
        (1000, "coordinator", "g", "ghost", "Heartbeat", 1, None, None, "UNKNOWN_MEMBER_ID", None, None, "Stable")]
    sim.advance(SESSION - 1)  # 10.999 s: the sessions renewed at 0 ms would have ended at 10 s
    assert coord.member_ids("g") == ids and sim.events.of_kind("MemberRemoved") == []
    sim.advance(1)  # 11 s: session.timeout.ms after this heartbeat, for all three
    assert [(r[0], r[3], r[9]) for r in sim.events.of_kind("MemberRemoved")] == [
        (1000 + SESSION, m, "session_timeout") for m in ids]


@pytest.mark.parametrize("batch", [["ghost", "restarted"], ["restarted"]], ids=["past an unknown id", "all known"])
def test_a_restarted_static_members_heartbeat_arms_its_new_shorter_session(batch):
    """GroupCoordinator.updateStaticMemberAndRebalance (KIP-345): a static member that restarts
    into a Stable group with the same protocols takes a new member id without a rebalance; the
    session is renewed with the old session.timeout.ms (30 s), then `updateMember` stores the new
    one (10 s). Its next heartbeat (completeAndScheduleNextHeartbeatExpiration, here in a batch,
    past an unknown id or not) expires it 10 s later, before the check armed for 31 s."""
    sim, coord = new_coordinator(record_heartbeats=False)
    first = join(coord, instance="i1", session=30_000)
    sim.advance(0)
    coord.sync_group("g", first.member_id, 1, {first.member_id: b"a"})
    sim.advance(1000)
    restarted = join(coord, instance="i1", session=10_000)
    sim.advance(1000)
    assert restarted.error is Errors.NONE and coord.member_ids("g") == [restarted.member_id] != [first.member_id]
    assert (coord.group_state("g"), coord.generation_id("g")) == ("Stable", 1)
    ids = [restarted.member_id if m == "restarted" else m for m in batch]
    assert coord.heartbeat_batch("g", ids, 1) == ({"ghost": Errors.UNKNOWN_MEMBER_ID} if "ghost" in batch else {})
    sim.advance(9999)
    assert sim.events.of_kind("MemberRemoved") == []
    sim.advance(1)
    assert [(r[0], r[3], r[9]) for r in sim.events.of_kind("MemberRemoved")] == [
        (12_000, restarted.member_id, "session_timeout")]


def test_batch_heartbeats_refused_by_generation_or_rebalance_each_leave_a_row():
    """GroupCoordinator.handleHeartbeat, member by member: in a Stable group a heartbeat of another
    generation gets ILLEGAL_GENERATION; once a rebalance is under way (PreparingRebalance) a member's
    heartbeat gets REBALANCE_IN_PROGRESS and one that left gets UNKNOWN_MEMBER_ID. With heartbeats
    not recorded, every refused one still leaves its row."""
    sim, coord, ids, _ = stable_group(3, record_heartbeats=False)
    sim.advance(1000)
    n = len(sim.events.rows)
    illegal = Errors.ILLEGAL_GENERATION
    assert coord.heartbeat_batch("g", ids[:2], 0) == {ids[0]: illegal, ids[1]: illegal}
    assert _rows_after(sim, n) == [
        (1000, "coordinator", "g", m, "Heartbeat", 0, None, None, "ILLEGAL_GENERATION", None, None, "Stable")
        for m in ids[:2]]
    coord.leave_group("g", [ids[2]])
    n = len(sim.events.rows)
    assert coord.heartbeat_batch("g", ids, 1) == {
        ids[0]: Errors.REBALANCE_IN_PROGRESS, ids[1]: Errors.REBALANCE_IN_PROGRESS, ids[2]: Errors.UNKNOWN_MEMBER_ID}
    assert [(r[3], r[8], r[11]) for r in _rows_after(sim, n)] == [
        (ids[0], "REBALANCE_IN_PROGRESS", "PreparingRebalance"),
        (ids[1], "REBALANCE_IN_PROGRESS", "PreparingRebalance"),
        (ids[2], "UNKNOWN_MEMBER_ID", "PreparingRebalance")]


def test_a_heartbeat_renewing_a_session_to_its_armed_deadline_leaves_the_check():
    """`_reset_session`: the expiry check moves only for an earlier deadline. Heartbeats at the
    instant the sessions were armed (0 ms, session.timeout.ms 10 s) end them when the check already
    armed does, so it stays, even with another timer due at 10 s scheduled since (which a new check
    would have to follow): no new engine timer, and the members, silent, are removed at 10 s in the
    order they were armed. (Kafka makes a DelayedHeartbeat per heartbeat; members whose sessions end
    in the same millisecond are removed here in arming order: see `_arm_session`.)"""
    sim, coord, ids, _ = stable_group(2, record_heartbeats=False)
    armed = coord.groups["g"].members[ids[0]].timer
    sim.at(SESSION, lambda: None)
    assert coord.heartbeat_batch("g", [ids[1], ids[0]], 1) == {}
    assert [coord.groups["g"].members[m].timer for m in ids] == [armed, armed]
    sim.advance(SESSION)
    assert [(r[0], r[3], r[9]) for r in sim.events.of_kind("MemberRemoved")] == [
        (SESSION, ids[0], "session_timeout"), (SESSION, ids[1], "session_timeout")]


def test_batch_heartbeats_from_any_iterable_row_for_row_as_from_a_list():
    """`heartbeat_batch` takes any iterable of member ids: a generator gives the rows, answers and
    counts a list gives (the fast path reads the ids twice), an unknown id first included."""
    def run(make):
        sim, coord, ids, _ = stable_group(3)
        sim.advance(2000)
        n = len(sim.events.rows)
        out = coord.heartbeat_batch("g", make(["ghost", ids[2], ids[0], ids[2]]), 1)
        return out, _rows_after(sim, n), coord.stats["requests"]
    listed = run(list)
    assert run(lambda ids: (m for m in ids)) == listed
    out, rows, _ = listed
    assert out == {"ghost": Errors.UNKNOWN_MEMBER_ID}
    assert [(r[0], r[8]) for r in rows] == [(2000, "UNKNOWN_MEMBER_ID"), (2000, "NONE"), (2000, "NONE"), (2000, "NONE")]


def test_a_pending_member_that_leaves_is_removed_for_its_leave_group():
    # GroupCoordinator.handleLeaveGroup: a pending member id (KIP-394) is removed "through explicit
    # `LeaveGroup` request", not expired: its removal counts as a LeaveGroup.
    sim, coord = new_coordinator()
    pending = join(coord).member_id
    coord.leave_group("g", [pending])
    removed = sim.events.of_kind("MemberRemoved")
    assert [(r[3], r[9]) for r in removed] == [(pending, "leave_group")]


def test_classic_requests_refused_by_a_share_group_are_rows_named_by_the_request_sent():
    # GMMT.testClassicGroup{Join,Sync,Leave}OnShareGroup (v8.2.0) and classicGroupHeartbeat: the request
    # is refused and the group left as it was; the events table still shows which request each was.
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"foo": 1})
    coord.load_share_group("group-foo", group_epoch=1, members={
        "m1": {"member_epoch": 1, "previous_member_epoch": 0, "subscribed_topic_names": ["foo"]}})
    before = len(coord.sim.events.rows)
    coord.join_group("group-foo", member_id="", require_known_member_id=False)
    coord.sync_group("group-foo", "m1", 1)
    coord.heartbeat("group-foo", "m1", 1)
    coord.leave_group("group-foo", ["m1"])
    assert [(r[4], r[8]) for r in coord.sim.events.rows[before:]] == [
        ("JoinGroup", "INCONSISTENT_GROUP_PROTOCOL"), ("SyncGroup", "UNKNOWN_MEMBER_ID"),
        ("Heartbeat", "UNKNOWN_MEMBER_ID"), ("LeaveGroup", "UNKNOWN_MEMBER_ID")]


def test_a_classic_request_refused_by_a_share_group_is_the_coordinators_row_and_leaves_it_stable():
    # GMMT.testClassicGroup{Join,Sync,Leave}OnShareGroup (v8.2.0): the coordinator answers with an error
    # and writes no record, so the share group stays Stable; the row names the member that asked (the
    # client id of a JoinGroup without a member id; a LeaveGroup names none).
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"foo": 1})
    coord.load_share_group("group-foo", group_epoch=1, members={
        "m1": {"member_epoch": 1, "previous_member_epoch": 0, "subscribed_topic_names": ["foo"]}})
    before = len(coord.sim.events.rows)
    coord.join_group("group-foo", member_id="", client_id="c1", require_known_member_id=False)
    coord.sync_group("group-foo", "m1", 1)
    coord.leave_group("group-foo", ["m1"])
    assert [(r[1], r[3], r[4], r[11]) for r in coord.sim.events.rows[before:]] == [
        ("coordinator", "c1", "JoinGroup", "Stable"), ("coordinator", "m1", "SyncGroup", "Stable"),
        ("coordinator", None, "LeaveGroup", "Stable")]


@pytest.mark.parametrize("attribute, manager, name", [
    ("consumer_groups", GC.ConsumerGroupManager, "consumer_group_heartbeat"),
    ("consumer_groups", GC.ConsumerGroupManager, "load_consumer_group"),
    ("share_groups", GC.ShareGroupManager, "share_group_heartbeat"),
    ("share_groups", GC.ShareGroupManager, "load_share_group"),
])
def test_a_coordinator_method_answered_by_a_manager_has_the_managers_name_doc_and_signature(attribute, manager, name):
    # _manager_method's docstring: "same signature and doc" (help() and the API pages show the
    # manager's). The factory runs at import, so it is called again here.
    for method in (getattr(GroupCoordinator, name), GC._manager_method(attribute, manager, name)):
        assert method.__name__ == method.__qualname__ == name
        assert method.__doc__ == getattr(manager, name).__doc__ and method.__doc__
        assert inspect.signature(method) == inspect.signature(getattr(manager, name))


def test_a_query_about_a_modern_group_is_answered_by_the_manager_of_its_kind():
    # _modern_answer's: the share groups' manager for a share group, else the consumer groups'; _modern's, under
    # ConsumerGroupManager's name and doc. The factory runs at import, so it is called again here.
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"foo": 1})
    coord.load_share_group("s", group_epoch=3, members={
        "m1": {"member_epoch": 3, "previous_member_epoch": 2, "subscribed_topic_names": ["foo"]}})
    coord.load_consumer_group("c", group_epoch=5, members={
        "m1": {"member_epoch": 4, "previous_member_epoch": 3, "subscribed_topic_names": ["foo"]}})
    target = GC._modern("target_assignment")
    assert target.__name__ == target.__qualname__ == "target_assignment"
    assert target.__doc__ == GC.ConsumerGroupManager.target_assignment.__doc__ and target.__doc__
    member_epoch = GC._modern("member_epoch")
    assert [member_epoch(coord, "s", "m1"), member_epoch(coord, "c", member_id="m1")] == [3, 4]


def test_a_coordinator_method_answered_by_a_manager_passes_its_keyword_arguments_on():
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"foo": 1})
    load = GC._manager_method("share_groups", GC.ShareGroupManager, "load_share_group")
    load(coord, "group-foo", group_epoch=3, members={
        "m1": {"member_epoch": 3, "previous_member_epoch": 2, "subscribed_topic_names": ["foo"]}})
    assert (coord.group_type("group-foo"), coord.group_state("group-foo")) == ("share", "Stable")


def test_a_join_with_a_member_id_to_an_unknown_group_is_refused_in_that_members_row():
    # GroupCoordinator.handleJoinGroup: no group and a member id that is not empty: UNKNOWN_MEMBER_ID;
    # the refusal's row names the member that asked, as every JoinGroupResponse row does.
    sim, coord = new_coordinator()
    r = coord.join_group("nope", member_id="m-1")
    assert (r.done, r.error) == (True, Errors.UNKNOWN_MEMBER_ID)
    assert [(row[2], row[3], row[4], row[8]) for row in sim.events.rows] == [
        ("nope", "m-1", "JoinGroupResponse", "UNKNOWN_MEMBER_ID")]


def test_a_classic_groups_rebalance_timeout_is_its_members_longest_counted_from_zero():
    """`ClassicGroup.rebalanceTimeoutMs` starts its maximum at 0: a member converted from a consumer group
    that was loaded without a rebalance timeout (-1, the member builder's default) arms the join timer at
    0 ms, never at -1; otherwise the longest of the members' wins."""
    from kafkasim.coordinator.classic.group import Group, Member

    group = Group("g")
    assert group.rebalance_timeout_ms == 0
    group.add(Member("a", None, "c", 10_000, -1, "consumer", (("range", b""),)), None)
    assert group.rebalance_timeout_ms == 0
    group.add(Member("b", None, "c", 10_000, 45_000, "consumer", (("range", b""),)), None)
    group.add(Member("c", None, "c", 10_000, 30_000, "consumer", (("range", b""),)), None)
    assert group.rebalance_timeout_ms == 45_000
