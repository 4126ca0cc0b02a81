"""Rules of the ZooKeeper models (`kafkasim.zookeeper`) pinned by name (issue 29), from ZooKeeper's
and Kafka 0.8.2's source and the modules' docstrings: a delete of a missing znode is not an error
(ZkUtils.deletePath), a fired watch is one row naming its path and the group the path belongs to,
the closed form of one membership change's cost names each kind of request; and, with a connector cut
mid-rebalance (Kafka 0.8.2-0.10.2 `ZookeeperConsumerConnector.scala`), a change seen during a
rebalance makes the watcher executor run once more (`isWatcherTriggered`), a session expiry drops the
old session's rebalance (`ZKSessionExpireListener.handleNewSession`), the re-registration costs one
create and an exists per watched path, a pause within the session timeout resumes the same try, and a
session expires a timeout after its client fell silent, however many faults keep it silent; setData
replaces a znode's data and fires its data watches once (NoNode if it is missing), and a topic's
change reaches its consumers through ZkClient's re-armed data watch (exists + getData, then
ZKTopicPartitionChangeListener's rebalance), every time it changes. `herd_cost` refuses a count
below its floor, and each count of one membership change is the module docstring's closed form (offsets
in ZooKeeper with offsets.storage=zookeeper or dual.commit.enabled, committed there with
auto.commit.enable too); `ZookeeperScenario.replace` merges consumer overrides; a silent session's
expiry is armed once; a 0 ms pause leaves a connector in its state. ZooKeeper's create makes missing
parents and its delete sends NodeDeleted to the znode's data watchers and NodeChildrenChanged to its
parent's child watchers, one-shot; a deleted ephemeral znode is no longer its session's; a batch of
requests takes latency_ms each, or the ensemble's pace. A claim that finds an owner znode held logs
reflectPartitionOwnershipDecision's ZkNodeExistsException and reads it once; a pause holds whichever
step of a try it meets (closing the fetchers, the release, starting the fetchers)."""

from __future__ import annotations

import pytest

from kafkasim import faults
from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS
import kafkasim.zookeeper.consumer_connector as cc
from kafkasim.zookeeper.consumer_connector import (AddPartitions, AssignmentError, ConsumerSpec, GroupView, Join,
                                                   ZookeeperRun, ZookeeperScenario, consumers_per_topic, herd_cost,
                                                   seed_incident, simulate_zookeeper)
from kafkasim.zookeeper.ensemble import NodeExistsError, NoNodeError, ZooKeeper


def rows(sim: Simulation) -> list[tuple]:
    """ZooKeeper's rows as (kind, group, reason, value)."""
    at = {f: FIELDS.index(f) for f in ("source", "kind", "group", "reason", "value")}
    return [(r[at["kind"]], r[at["group"]], r[at["reason"]], r[at["value"]]) for r in sim.events.rows
            if r[at["source"]] == "zookeeper"]


def test_deleting_a_missing_znode_is_not_an_error_and_tells_no_watcher():
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    s = zk.connect("c-1", 6000, group="g")
    zk.create("/consumers/g/ids/c-1", session=s)
    zk.watch_children("/consumers/g/ids", s, lambda: None)
    assert zk.delete("/consumers/g/ids/c-2") is False
    assert zk.delete("/consumers/g/ids/c-1") is True
    assert rows(sim)[-1] == ("NodeChildrenChanged", "g", "/consumers/g/ids", 1)


@pytest.mark.parametrize("parent, group", [("/consumers/g/ids", "g"), ("/consumers/g", "g"), ("/brokers/ids", None),
                                           ("/consumers", None)])
def test_a_fired_watch_is_one_row_naming_its_path_and_the_consumer_group_of_that_path(parent, group):
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    a, b = zk.connect("c-1", 6000, group="g"), zk.connect("c-2", 6000, group="g")
    zk.create(f"{parent}/x")
    zk.watch_children(parent, a, lambda: None)
    zk.watch_children(parent, b, lambda: None)
    zk.delete(f"{parent}/x")
    assert [r for r in rows(sim) if r[0] == "NodeChildrenChanged"] == [("NodeChildrenChanged", group, parent, 2)]


def test_a_closed_session_is_ended_once_and_its_ephemeral_znodes_go_with_it():
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    s = zk.connect("c-1", 6000, group="g")
    zk.create("/consumers/g/ids/c-1", session=s)
    zk.close(s)
    zk.close(s)
    assert not s.alive and not zk.exists("/consumers/g/ids/c-1")
    assert [r[0] for r in rows(sim)].count("SessionClosed") == 1


def test_creating_a_znode_creates_its_missing_parents_and_tells_its_parents_child_watchers_once():
    """ZkClient's createParents makes the missing persistent parents of c-1's registration; each create
    counts a child change of its parent (its cversion) and sends NodeChildrenChanged to the sessions
    watching that parent's children, one-shot: c-3's registration tells nobody. A create of a znode
    that exists is NodeExists naming its path (ZkClient: ZkNodeExistsException)."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    a = zk.connect("c-1", 6000, group="g")
    zk.create("/consumers/g/ids/c-1", {"t": 1}, a)
    zk.watch_children("/consumers/g/ids", a, lambda: None)
    zk.create("/consumers/g/ids/c-2", {"t": 1})
    zk.create("/consumers/g/ids/c-3", {"t": 1})
    with pytest.raises(NodeExistsError, match="^/consumers/g/ids/c-1$"):
        zk.create("/consumers/g/ids/c-1")
    assert zk.tree() == [("/consumers", None, None), ("/consumers/g", None, None), ("/consumers/g/ids", None, None),
                         ("/consumers/g/ids/c-1", {"t": 1}, "c-1"), ("/consumers/g/ids/c-2", {"t": 1}, None),
                         ("/consumers/g/ids/c-3", {"t": 1}, None)]
    assert zk.cversion["/consumers/g/ids"] == 3 and zk.cversion["/consumers"] == 1
    assert [r for r in rows(sim) if r[0].startswith("Node")] == [("NodeChildrenChanged", "g", "/consumers/g/ids", 1)]


def test_deleting_a_znode_tells_its_data_watchers_node_deleted_and_its_parents_child_watchers_once():
    """ZooKeeper's delete (DataTree.deleteNode): the sessions watching the znode's data (exists,
    getData) are sent NodeDeleted, those watching its parent's children (getChildren)
    NodeChildrenChanged, each delivered latency_ms (2) later; watches are one-shot, so the same znode
    created and deleted again at 10, with nobody watching again, tells nobody."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    a, b = zk.connect("c-1", 6000, group="g"), zk.connect("c-2", 6000, group="g")
    path = "/consumers/g/ids/c-1"
    zk.create(path, session=a)
    told = []
    zk.watch_data(path, b, lambda: told.append((sim.now, "data of c-1")))
    zk.watch_children("/consumers/g/ids", a, lambda: told.append((sim.now, "children of ids")))
    assert zk.delete(path) is True and not zk.exists(path)
    sim.at(10, zk.create, path)
    sim.at(10, zk.delete, path)
    sim.run()
    assert [r for r in rows(sim) if r[0].startswith("Node")] == [
        ("NodeDeleted", "g", path, 1), ("NodeChildrenChanged", "g", "/consumers/g/ids", 1)]
    assert sorted(told) == [(2, "children of ids"), (2, "data of c-1")]
    assert zk.cversion["/consumers/g/ids"] == 4   # two creates, two deletes


def test_a_deleted_ephemeral_znode_is_no_longer_its_sessions_so_its_end_spares_the_next_owners_znode():
    """An ephemeral znode belongs to the session that created it until it is deleted: c-1 releases
    partition 0 (releasePartitionOwnership deletes its owner znode) and c-2 claims it on its own
    session; when c-1's session closes, ZooKeeper deletes only what that session still owns, its
    registration, and c-2's owner znode stays."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    a, b = zk.connect("c-1", 6000, group="g"), zk.connect("c-2", 6000, group="g")
    owner = "/consumers/g/owners/t/0"
    zk.create("/consumers/g/ids/c-1", session=a)
    zk.create(owner, "c-1-0", a)
    zk.delete(owner)
    zk.create(owner, "c-2-0", b)
    zk.close(a)
    assert zk.tree("/consumers/g/owners/t/") == [(owner, "c-2-0", "c-2")]
    assert [r for r in rows(sim) if r[0] == "SessionClosed"] == [("SessionClosed", "g", "0x100", 1)]


def test_a_top_level_znode_is_a_child_of_the_root_and_is_deleted_like_any_other():
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    zk.create("/brokers")
    assert zk.delete("/brokers") is True and zk.tree() == []


@pytest.mark.parametrize("latency_ms, ops_per_s, answered_at", [
    (2, None, 6), (1, None, 3), (0, None, 0), (0, 1000.0, 3), (2, 250.0, 12)])
def test_a_batch_is_answered_one_latency_per_request_at_once_without_latency_or_at_the_ensembles_pace(
        latency_ms, ops_per_s, answered_at):
    """ZkClient is synchronous: each of a batch's 3 requests (getData 2, create 1) is sent when the one
    before is answered, latency_ms after it; with no latency the batch is answered at once, unless
    ops_per_s paces the ensemble (1000/s: one request a ms; 250/s: one every 4 ms, slower than 2 ms of
    latency). The load log accounts for every request served, 2 reads and 1 write, and no notification."""
    sim = Simulation(0)
    zk = ZooKeeper(sim, latency_ms=latency_ms, ops_per_s=ops_per_s)
    answered = []
    zk.submit(lambda: answered.append(sim.now), getData=2, create=1)
    sim.run()
    zk.flush()
    assert answered == [answered_at] and zk.requests == {"getData": 2, "create": 1}
    assert [sum(r[i] for r in zk.load) for i in (2, 3, 4)] == [pytest.approx(2), pytest.approx(1), 0]


def test_one_membership_change_costs_are_named_by_the_request_they_count():
    cost = herd_cost(3, partitions=6)
    assert {"consumers_rebalancing", "notifications", "reads", "writes", "owner_deletes", "owner_creates"} <= set(cost)
    assert cost["owner_deletes"] == cost["owner_creates"] == 6  # every partition's owner znode, released and re-taken


def test_a_zookeeper_scenario_refuses_no_consumers_naming_what_it_needs():
    with pytest.raises(ConfigError) as e:
        ZookeeperScenario(topics={"t": 2}, consumers=())
    assert str(e.value) == "consumers must be a non-empty sequence of ConsumerSpec (see consumers_per_topic)"


def test_a_zookeeper_tick_of_one_millisecond_is_valid():
    scenario = ZookeeperScenario(topics={"t": 2}, consumers=consumers_per_topic({"t": 2}, 1), zk_tick_time_ms=1)
    assert scenario.zk_tick_time_ms == 1


def test_a_session_closed_while_silent_is_not_heard_from_again():
    """Closing cancels the session's expiry timer; the ended session then reads as gone."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    s = zk.connect("c-1", 6000, group="g")
    zk.silent(s)
    zk.close(s)
    assert zk.heard_from(s) is False


def test_a_run_without_membership_or_partition_changes_has_no_cost_per_change():
    """SUMMARY_DOC: zk_requests_per_change is None without changes (a warm group left alone)."""
    run = simulate_zookeeper(ZookeeperScenario(topics={"t": 2}, consumers=consumers_per_topic({"t": 2}, 2),
                                               duration_ms=20_000))
    assert run.summary["membership_changes"] == 0 and run.summary["zk_requests_per_change"] is None


# -- a connector cut mid-rebalance ------------------------------------------------------------------
# Two connectors of topic t (4 partitions), one broker, 2 ms per ZooKeeper request, fetchers that stop
# at once (fetch.wait.max.ms=0: the seeded draw is 0), offsets in ZooKeeper. t-2 shuts down at 1000 ms; t-1,
# owning partitions 0 and 1, is told at 1002 and re-arms its watch (exists + getChildren: 1006), so its
# rebalance starts at 1006. Its first batch (getChildren 2, getData 3 for getCluster with one broker,
# setData 2 to commit, delete 2 to release: 9 requests) is answered at 1024, when it releases and reads
# the group (getChildren 2, getData 7: own TopicCount, the topic, one registration, 4 offsets); that
# batch is answered at 1042 and its 4 creates at 1050.
def mid_rebalance(*faults_) -> ZookeeperRun:
    t = {"t": 4}
    return simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1, consumer={"fetch.wait.max.ms": 0},
        faults=(faults.ScaleIn(1000, ("t-2",)), *faults_), duration_ms=12_000))


def consumer_rows(run: ZookeeperRun, member: str, since_ms: int = 1) -> list[tuple]:
    """A connector's rows from `since_ms` as (time, kind, topic, partition, reason, value)."""
    at = {f: FIELDS.index(f) for f in ("time", "source", "member", "kind", "topic", "partition", "reason", "value")}
    return [tuple(r[at[f]] for f in ("time", "kind", "topic", "partition", "reason", "value")) for r in run.rows
            if r[at["source"]] == "consumer" and r[at["member"]] == member and r[at["time"]] >= since_ms]


def test_a_child_change_during_a_rebalance_makes_the_watcher_executor_rebalance_once_more():
    """rebalanceEventTriggered sets isWatcherTriggered while syncedRebalance runs; the watcher executor
    reads it when the rebalance returns and runs syncedRebalance again. t-3 registers at 1030, after t-1
    read the group (1024): t-1, told at 1032, re-arms by 1036; at 1050 it completes on what it read (all
    4 partitions, nobody else registered then), then rebalances again at once: stop and commit 4, release
    4 (13 requests: 1076), read the 2 registrations and 2 offsets (getChildren 2, getData 6: 1092), create
    2 (1096), keeping 0 and 1. t-3 (registered 1030 +10 ms, group read 1050, claim 1066) found 2 and 3
    still owned by t-1: it backs off 2000 ms after its failed creates (1074) and takes them at 3104."""
    run = mid_rebalance(Join(1030, ConsumerSpec("t-3", "main", {"t": 1})))
    kinds = ("RebalanceTriggered", "RebalanceAttempt", "RebalanceCompleted", "PartitionsAssigned")
    assert [(r[0], r[1], r[3]) for r in consumer_rows(run, "main_t-1") if r[1] in kinds] == [
        (1006, "RebalanceTriggered", None), (1006, "RebalanceAttempt", None),
        (1036, "RebalanceTriggered", None),
        *[(1050, "PartitionsAssigned", p) for p in range(4)], (1050, "RebalanceCompleted", None),
        (1050, "RebalanceAttempt", None),
        (1096, "PartitionsAssigned", 0), (1096, "PartitionsAssigned", 1), (1096, "RebalanceCompleted", None)]
    t3 = [(r[0], r[1], r[5]) for r in consumer_rows(run, "main_t-3")
          if r[1] in ("RebalanceAttemptFailed", "RebalanceCompleted", "RebalanceFailed")]
    assert t3 == [(1074, "RebalanceAttemptFailed", 0), (3104, "RebalanceCompleted", 1)]
    assert [tuple(r) for r in run.owners().itertuples(index=False)] == [
        ("main", "t", 0, "main_t-1-0"), ("main", "t", 1, "main_t-1-0"),
        ("main", "t", 2, "main_t-3-0"), ("main", "t", 3, "main_t-3-0")]


def test_a_session_expired_mid_rebalance_drops_the_old_sessions_rebalance_and_rebalances_afresh():
    """ZKSessionExpireListener.handleNewSession: release ownership (resetState), re-register, then
    syncedRebalance from the start; nothing of the old session's rebalance runs after it (kafkasim
    drops it; Kafka's watcher thread would first finish the stale try, as the module says). t-1's link
    is cut at 1010 for 8 s: its session (6,000 ms) expires at 7010 and the cut ends at 9010, when the
    release due at 1024 would run. It re-registers (createSession, create, exists x 2, getChildren:
    9020) and rebalances owning nothing: getChildren 2 + getData 3 (9030), getChildren 2 + getData 7
    (9048), 4 creates (9056)."""
    run = mid_rebalance(faults.NetworkCut("t-1", 1010, 8000))
    assert consumer_rows(run, "main_t-1") == [
        (1006, "RebalanceTriggered", None, None, "child change on /consumers/main/ids", None),
        (1006, "RebalanceAttempt", None, None, None, 0),
        (1006, "StateChanged", None, None, "rebalancing", None),
        (9010, "SessionExpired", None, None,
         "ZK expired; release old broker parition ownership; re-register consumer main_t-1", None),
        (9010, "PartitionsRevoked", "t", 0, "session expired", None),
        (9010, "PartitionsRevoked", "t", 1, "session expired", None),
        (9020, "RebalanceTriggered", None, None, "new ZooKeeper session", None),
        (9020, "RebalanceAttempt", None, None, None, 0),
        *[(9056, "PartitionsAssigned", "t", p, "main_t-1-0", None) for p in range(4)],
        (9056, "StateChanged", None, None, "consuming", None),
        (9056, "RebalanceCompleted", None, None, None, 0)]


def test_a_new_session_re_registers_with_one_create_and_re_arms_each_watched_path_with_an_exists():
    """handleNewSession's registerConsumerInZK creates the ids znode once on the new session; ZkClient
    re-arms the child watch on /consumers/main/ids (exists + getChildren) and the data watch on
    /brokers/topics/t (exists). The run's requests, by hand: t-2's close (setData 2, closeSession);
    the notification to t-1, its re-arm (exists, getChildren), its first batch (getChildren 2, getData 3,
    setData 2, delete 2); the re-registration (createSession, create, exists 2, getChildren); the new
    rebalance (getChildren 2 + getData 3, getChildren 2 + getData 7, create 4). Kafka's ZkClient would also
    read the topic's data and fire both listeners once more (fireAllEvents); kafkasim counts the
    re-registration as createMessageStreams's."""
    run = mid_rebalance(faults.NetworkCut("t-1", 1010, 8000))
    assert run.zk.requests == {"setData": 4, "closeSession": 1, "notification": 1, "exists": 1 + 2,
                               "getChildren": 1 + 2 + 1 + 2 + 2, "getData": 3 + 3 + 7, "delete": 2,
                               "createSession": 1, "create": 1 + 4}
    # the 5 requests of the re-registration, at 2 ms each, stand between the expiry seen and the rebalance
    seen = [r[:2] for r in consumer_rows(run, "main_t-1", 9010) if r[1] in ("SessionExpired", "RebalanceTriggered")]
    assert seen == [(9010, "SessionExpired"), (9010 + 5 * 2, "RebalanceTriggered")]


def test_a_pause_shorter_than_the_session_holds_the_rebalance_and_resumes_it_where_it_stopped():
    """A stop-the-world pause stops every thread, but a session heard from again within its timeout
    survives: the same try goes on. t-1 freezes at 1025 for 3 s, after it read the group (1024) and
    while its read is answered (due 1042); at 4025 it claims the 4 partitions it computed, answered at
    4033."""
    run = mid_rebalance(faults.Pause("t-1", 1025, 3000))
    assert consumer_rows(run, "main_t-1", 1024) == [
        (1024, "PartitionsRevoked", "t", 0, "rebalance", None),
        (1024, "PartitionsRevoked", "t", 1, "rebalance", None),
        (1025, "StateChanged", None, None, "paused", None),
        (4025, "StateChanged", None, None, "rebalancing", None),
        *[(4033, "PartitionsAssigned", "t", p, "main_t-1-0", None) for p in range(4)],
        (4033, "StateChanged", None, None, "consuming", None),
        (4033, "RebalanceCompleted", None, None, None, 0)]


@pytest.mark.parametrize("pause_at, resumed_rows", [
    (1010, [(1110, "PartitionsRevoked", "t", 0, "rebalance", None),
            (1110, "PartitionsRevoked", "t", 1, "rebalance", None),
            *[(1136, "PartitionsAssigned", "t", p, "main_t-1-0", None) for p in range(4)],
            (1136, "StateChanged", None, None, "consuming", None), (1136, "RebalanceCompleted", None, None, None, 0)]),
    (1045, [*[(1145, "PartitionsAssigned", "t", p, "main_t-1-0", None) for p in range(4)],
            (1145, "StateChanged", None, None, "consuming", None), (1145, "RebalanceCompleted", None, None, None, 0)])])
def test_a_pause_holds_the_release_or_the_fetchers_start_and_the_try_goes_on_from_there(pause_at, resumed_rows):
    """A stop-the-world pause of 100 ms stops the rebalancing thread between two ZooKeeper answers, and
    it goes on with the same try when the pause ends. Paused at 1010, t-1 has the answer of its first
    batch (1024) at 1110: it releases 0 and 1 (releasePartitionOwnership) and reads the group (9
    requests: 1128), then claims (4 creates: 1136). Paused at 1045, after its claim (1042), it has the
    creates' answer (1050) at 1145, and starts its fetchers on the 4 partitions it claimed."""
    run = mid_rebalance(faults.Pause("t-1", pause_at, 100))
    assert consumer_rows(run, "main_t-1", pause_at) == [
        (pause_at, "StateChanged", None, None, "paused", None),
        (pause_at + 100, "StateChanged", None, None, "rebalancing", None), *resumed_rows]


def test_a_pause_while_the_fetchers_stop_holds_the_commit_and_release_until_it_ends():
    """closeFetchersForQueues lets a fetch in flight finish (a seeded time within fetch.wait.max.ms, 100
    by default: 10 ms for t-1 with seed 1), then commitOffsets and releasePartitionOwnership run. mid_rebalance's
    timeline with fetchers that take time to stop: t-1's try starts at 1006 and it pauses at 1007 for
    100 ms, so its fetchers are stopped when the pause ends (1107): it commits and releases its 2
    partitions then (getChildren 2, getData 3, setData 2, delete 2: 1125), reads the group (9 requests:
    1143) and claims the 4 partitions (1151). The run's requests, by hand: t-2's shutdown (setData 2,
    closeSession), the notification to t-1, its re-arm (exists, getChildren), then its try."""
    t = {"t": 4}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1,
        faults=(faults.ScaleIn(1000, ("t-2",)), faults.Pause("t-1", 1007, 100)), duration_ms=5_000))
    assert consumer_rows(run, "main_t-1", 1007) == [
        (1007, "StateChanged", None, None, "paused", None), (1107, "StateChanged", None, None, "rebalancing", None),
        (1125, "PartitionsRevoked", "t", 0, "rebalance", None), (1125, "PartitionsRevoked", "t", 1, "rebalance", None),
        *[(1151, "PartitionsAssigned", "t", p, "main_t-1-0", None) for p in range(4)],
        (1151, "StateChanged", None, None, "consuming", None), (1151, "RebalanceCompleted", None, None, None, 0)]
    assert run.zk.requests == {"setData": 2 + 2, "closeSession": 1, "notification": 1, "exists": 1,
                               "getChildren": 1 + 2 + 2, "getData": 3 + 7, "delete": 2, "create": 4}


def test_a_session_silent_through_two_overlapping_faults_expires_a_timeout_after_it_fell_silent():
    """ZooKeeper expires a session it has not heard from for the negotiated timeout (6,000 ms), however
    many faults keep the client silent: t-1 pauses at 1000 for 3 s and its link is cut at 2000 for 5 s,
    so it is silent from 1000 to 7000; at the pause's end (4000) its threads run again, consuming
    while the cut goes on. At 7000 its session expires and it re-registers; it stays consuming until
    the new session's rebalance starts (7010): group read at 7020, claim of 0 and 1 at 7036, answered
    at 7040."""
    t = {"t": 4}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1, consumer={"fetch.wait.max.ms": 0},
        faults=(faults.Pause("t-1", 1000, 3000), faults.NetworkCut("t-1", 2000, 5000)), duration_ms=12_000))
    assert [r for r in rows(run.zk.sim) if r[0] == "SessionExpired"] == [("SessionExpired", "main", "0x100", 3)]
    assert [r[:2] + r[4:] for r in consumer_rows(run, "main_t-1") if r[1] != "PartitionsAssigned"] == [
        (1000, "StateChanged", "paused", None), (4000, "StateChanged", "consuming", None),
        (7000, "SessionExpired", "ZK expired; release old broker parition ownership; re-register consumer main_t-1",
         None),
        (7000, "PartitionsRevoked", "session expired", None), (7000, "PartitionsRevoked", "session expired", None),
        (7010, "RebalanceTriggered", "new ZooKeeper session", None),
        (7010, "RebalanceAttempt", None, 0), (7010, "StateChanged", "rebalancing", None),
        (7040, "StateChanged", "consuming", None), (7040, "RebalanceCompleted", None, 0)]


def test_a_change_seen_while_registering_waits_for_the_first_rebalance_then_runs_once_more():
    """createMessageStreams registers, subscribes, then calls syncedRebalance itself; a child change seen
    meanwhile only sets isWatcherTriggered, and the watcher executor's syncedRebalance waits for the
    rebalanceLock, so the two run one after the other, never side by side. t-1 and t-2 start at 0;
    t-2's registration is seen by t-1 at 2 and re-armed by 6, before t-1's registration is answered
    (createSession, create, exists x 2, getChildren: 10). t-1 rebalances at 10 (5 requests, then 7 with
    2 registrations and 1 offset: claim at 34, answered at 36), then once more at 36: stop, commit and
    release partition 0 (7 requests: 50), read again (7: 64), claim it (66)."""
    t = {"t": 2}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1, consumer={"fetch.wait.max.ms": 0},
        warm_start=False, start_spread_ms=0, duration_ms=10_000))
    assert [r[:4] for r in consumer_rows(run, "main_t-1", 0) if r[1] not in ("Started", "StateChanged")] == [
        (6, "RebalanceTriggered", None, None), (10, "RebalanceTriggered", None, None),
        (10, "RebalanceAttempt", None, None),
        (36, "PartitionsAssigned", "t", 0), (36, "RebalanceCompleted", None, None),
        (36, "RebalanceAttempt", None, None), (50, "PartitionsRevoked", "t", 0),
        (66, "PartitionsAssigned", "t", 0), (66, "RebalanceCompleted", None, None)]
    assert [r[4] for r in consumer_rows(run, "main_t-1", 0) if r[1] == "RebalanceTriggered"] == [
        "child change on /consumers/main/ids", "createMessageStreams"]


def cold_start(consumers: int, *faults_, **consumer) -> ZookeeperRun:
    """`consumers` connectors of topic t (2 partitions) all starting at 0, one broker, 2 ms a request."""
    t = {"t": 2}
    return simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, consumers), brokers=1, consumer=consumer, faults=faults_,
        warm_start=False, start_spread_ms=0, duration_ms=10_000))


def test_a_new_connector_has_no_fetchers_to_stop_so_its_first_try_starts_at_once():
    """createMessageStreams has started no fetcher yet: closeFetchers waits for no fetch in flight,
    whatever fetch.wait.max.ms (100 ms by default). Registration answered at 10; getCluster and own
    TopicCount (5 requests: 20); the group read with 2 offsets (7: 34); 2 creates (38)."""
    run = cold_start(1)
    assert [r[:2] for r in consumer_rows(run, "main_t-1", 0) if r[1] in ("RebalanceAttempt", "RebalanceCompleted")] \
        == [(10, "RebalanceAttempt"), (38, "RebalanceCompleted")]


def test_a_connector_paused_while_registering_rebalances_when_the_pause_ends():
    """A pause stops the watcher thread too: the syncedRebalance that createMessageStreams calls once
    its registration is answered (10) waits for the pause (5 to 105), then runs the same way: 105 to
    133 (5 + 7 + 2 requests)."""
    run = cold_start(1, faults.Pause("t-1", 5, 100))
    assert [r[:2] + r[4:5] for r in consumer_rows(run, "main_t-1") if r[1] != "PartitionsAssigned"] == [
        (5, "StateChanged", "paused"), (105, "RebalanceTriggered", "createMessageStreams"),
        (105, "RebalanceAttempt", None), (105, "StateChanged", "rebalancing"),
        (133, "StateChanged", "consuming"), (133, "RebalanceCompleted", None)]


def test_a_process_restarted_mid_rebalance_runs_nothing_of_its_old_life():
    """A crash ends the process and its threads; the new one (a new consumer id, `main_t-1-45`) starts
    from createMessageStreams. t-1 crashes at 40, in its second rebalance (its release was due at 50),
    and restarts at 45: registered by 55, it reads 3 registrations (the old one lives until its
    session expires), so range gives the old id partition 0 and the new one partition 1: group read
    at 65, claim at 81 (t-2, told of the new registration at 47, released partition 1 at 65), 83; then
    nothing until the old session expires (40 + 6,000 ms)."""
    run = cold_start(2, faults.Restart("t-1", 40, delay_ms=5), **{"fetch.wait.max.ms": 0})
    assert consumer_rows(run, "main_t-1", 37) == [(40, "Crashed", None, None, None, None),
                                                  (40, "StateChanged", None, None, "crashed", None)]
    assert [r for r in consumer_rows(run, "main_t-1-45", 0) if r[0] < 6_040] == [
        (45, "Started", None, None, None, None),
        (55, "RebalanceTriggered", None, None, "createMessageStreams", None),
        (55, "RebalanceAttempt", None, None, None, 0),
        (55, "StateChanged", None, None, "rebalancing", None),
        (83, "PartitionsAssigned", "t", 1, "main_t-1-45-0", None),
        (83, "StateChanged", None, None, "consuming", None),
        (83, "RebalanceCompleted", None, None, None, 0)]


def test_a_process_restarted_during_a_pause_is_not_held_by_the_old_process_pause():
    """A stop-the-world pause freezes one process; a crash ends it. t-1 is paused from 5 to 1,005,
    crashes at 40 and its new process (`main_t-1-45`) starts at 45: registered by 55 (10 ms, as at a
    cold start), getCluster and its TopicCount (5 requests: 65), the group read with 2 registrations
    (the old one lives until its session expires) and partition 1's offset (7: 79), one create (81).
    A pause of the new process (50 to 150) holds it for its own length, not until the old one's end."""
    run = cold_start(1, faults.Pause("t-1", 5, 1000), faults.Restart("t-1", 40, delay_ms=5))
    assert consumer_rows(run, "main_t-1", 0) == [
        (0, "Started", None, None, None, None), (5, "StateChanged", None, None, "paused", None),
        (40, "Crashed", None, None, None, None), (40, "StateChanged", None, None, "crashed", None)]
    assert [r for r in consumer_rows(run, "main_t-1-45", 0) if r[0] < 6_000] == [
        (45, "Started", None, None, None, None),
        (55, "RebalanceTriggered", None, None, "createMessageStreams", None),
        (55, "RebalanceAttempt", None, None, None, 0),
        (55, "StateChanged", None, None, "rebalancing", None),
        (81, "PartitionsAssigned", "t", 1, "main_t-1-45-0", None),
        (81, "StateChanged", None, None, "consuming", None),
        (81, "RebalanceCompleted", None, None, None, 0)]
    paused = cold_start(1, faults.Pause("t-1", 5, 1000), faults.Restart("t-1", 40, delay_ms=5),
                        faults.Pause("t-1", 50, 100))
    assert [r[:2] for r in consumer_rows(paused, "main_t-1-45", 0) if r[0] < 6_000][:3] == [
        (45, "Started"), (50, "StateChanged"), (150, "RebalanceTriggered")]


@pytest.mark.parametrize("pauses, resumed_at", [(((200, 100),), 300), (((200, 100), (250, 100)), 350)])
def test_a_pause_inside_a_network_cut_shows_paused_only_until_the_last_pause_ends(pauses, resumed_at):
    """t-1 consumes from 38; its link to ZooKeeper is cut from 100 to 1,100 (the fetchers go on) and
    the process pauses inside the cut: shown paused from the first pause until the last one ends, then
    consuming again while the cut goes on (nothing else: the session is heard from when the cut ends)."""
    run = cold_start(1, faults.NetworkCut("t-1", 100, 1000), *(faults.Pause("t-1", at, ms) for at, ms in pauses))
    assert [r[:1] + r[4:5] for r in consumer_rows(run, "main_t-1", 39)] == [
        (200, "paused"), (resumed_at, "consuming")]


def test_rebalance_max_retries_of_one_makes_one_try():
    """syncedRebalance: `for (i <- 0 until config.rebalanceMaxRetries)`: one try with 1, which here
    succeeds (registration answered at 10, done at 38)."""
    run = cold_start(1, **{"rebalance.max.retries": 1})
    assert [r[:2] + r[5:] for r in consumer_rows(run, "main_t-1", 0)
            if r[1] in ("RebalanceAttempt", "RebalanceCompleted", "RebalanceFailed")] == [
        (10, "RebalanceAttempt", 0), (38, "RebalanceCompleted", 0)]


def test_a_change_seen_while_re_registering_waits_for_the_new_sessions_rebalance_then_runs_once_more():
    """handleNewSession calls syncedRebalance itself, as createMessageStreams does. t-1's session expired
    mid-rebalance (cut 1010 to 9010); t-3 registers at 9012, which t-1, watching again since 9010, has
    re-armed by 9018, before its re-registration is answered (9020). The new session's rebalance reads
    2 registrations (group read 9030, claim of 0 and 1 at 9046, 9050), then t-1 runs once more: stop,
    commit and release 0 and 1 (9 requests: 9068), read (8: 9084), claim (9088). t-3 takes 2 and 3
    (registered 9022, group read 9032, claim 9048, 9052)."""
    run = mid_rebalance(faults.NetworkCut("t-1", 1010, 8000), Join(9012, ConsumerSpec("t-3", "main", {"t": 1})))
    kinds = ("RebalanceTriggered", "RebalanceAttempt", "RebalanceCompleted", "PartitionsAssigned")
    assert [(r[0], r[1], r[3]) for r in consumer_rows(run, "main_t-1", 9010) if r[1] in kinds] == [
        (9018, "RebalanceTriggered", None), (9020, "RebalanceTriggered", None), (9020, "RebalanceAttempt", None),
        (9050, "PartitionsAssigned", 0), (9050, "PartitionsAssigned", 1), (9050, "RebalanceCompleted", None),
        (9050, "RebalanceAttempt", None),
        (9088, "PartitionsAssigned", 0), (9088, "PartitionsAssigned", 1), (9088, "RebalanceCompleted", None)]
    assert [(r[0], r[1], r[3]) for r in consumer_rows(run, "main_t-3") if r[1] in kinds[2:]] == [
        (9052, "PartitionsAssigned", 2), (9052, "PartitionsAssigned", 3), (9052, "RebalanceCompleted", None)]


@pytest.mark.parametrize("consumer", [{"offsets.storage": "kafka", "dual.commit.enabled": False},
                                      {"auto.commit.enable": False}])
def test_a_shutdown_commits_to_zookeeper_only_what_auto_commit_would_write_there(consumer):
    """ConsumerConnector.shutdown commits (auto.commit.enable) before closing its session; with
    offsets.storage=kafka and dual.commit.enabled=false (0.8.2's default is true) the commit goes to the
    broker only, and without auto-commit nothing is written, so the leaver sends closeSession alone. t-1's rebalance, by hand: notification, re-arm (exists,
    getChildren), getCluster and own TopicCount (getChildren 2, getData 3), release 2 (delete 2, no
    commit either), read the group (getChildren 2, getData 3, offsets only with storage=zookeeper), 4
    creates."""
    t = {"t": 4}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1, consumer={"fetch.wait.max.ms": 0, **consumer},
        faults=(faults.ScaleIn(1000, ("t-2",)),), duration_ms=5_000))
    offsets = 4 if consumer.get("offsets.storage", "zookeeper") == "zookeeper" else 0
    assert run.zk.requests == {"closeSession": 1, "notification": 1, "exists": 1, "getChildren": 1 + 2 + 2,
                               "getData": 3 + 3 + offsets, "delete": 2, "create": 4}


def test_a_zookeeper_runs_repr_counts_consumers_groups_the_rebalanced_and_zookeeper_reads():
    """What a learner sees of a run: connectors, groups, how many rebalanced and the reads ZooKeeper
    served. mid_rebalance's timeline in group a (a-2 shuts down at 1000 ms), beside group b's one
    connector of the same topic, which no change of group a's registry concerns: only a-1 rebalances.
    Its reads, by hand: re-arm (exists, getChildren), first batch (getChildren 2, getData 3), read the
    group (getChildren 2, getData 7): 16."""
    consumers = tuple(ConsumerSpec(name, name[0], {"t": 1}) for name in ("a-1", "a-2", "b-1"))
    run = simulate_zookeeper(ZookeeperScenario(topics={"t": 4}, consumers=consumers, brokers=1,
                                               consumer={"fetch.wait.max.ms": 0},
                                               faults=(faults.ScaleIn(1000, ("a-2",)),), duration_ms=12_000))
    assert repr(run) == "<ZookeeperRun 3 consumers in 2 groups: 1 rebalanced, 16 ZooKeeper reads>"


# -- setData and the topic's data watch ------------------------------------------------------------
def test_set_data_replaces_the_data_and_tells_each_data_watcher_once_with_node_data_changed():
    """ZooKeeper's setData: the znode's data is replaced, and every session with a data watch on it is
    sent one NodeDataChanged (one-shot: a second setData before a re-read tells nobody)."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    zk.create("/brokers/topics/t", 4)
    told = []
    for name in ("c-1", "c-2"):
        zk.watch_data("/brokers/topics/t", zk.connect(name, 6000, group="g"), lambda name=name: told.append(name))
    zk.set_data("/brokers/topics/t", 6)
    zk.set_data("/brokers/topics/t", 8)
    sim.run()
    assert zk.tree("/brokers/topics/") == [("/brokers/topics/t", 8, None)]
    assert sorted(told) == ["c-1", "c-2"]
    assert [r for r in rows(sim) if r[0] == "NodeDataChanged"] == [("NodeDataChanged", None, "/brokers/topics/t", 2)]


def test_set_data_of_a_missing_znode_is_no_node_and_creates_nothing():
    """ZooKeeper's setData on a path that does not exist fails with NoNode (ZkClient: ZkNoNodeException)."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    with pytest.raises(NoNodeError, match="^/brokers/topics/t$"):
        zk.set_data("/brokers/topics/t", 6)
    assert zk.tree() == []


# A warm group of two connectors reading topic t (4 partitions), one broker, 2 ms per request; t grows
# to 6 partitions at 1000. ZooKeeper tells both connectors at 1002; ZkClient's event thread re-arms the
# data watch (exists) and reads the data (getData) before it calls the listener
# (ZkClient.fireDataChangedEvents), 2 requests answered at 1006, when ZKTopicPartitionChangeListener's
# handleDataChange triggers the rebalance ("Topic info for path /brokers/topics/t changed to ...").
def grown(*faults_) -> ZookeeperRun:
    t = {"t": 4}
    return simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1, consumer={"fetch.wait.max.ms": 0},
        faults=(AddPartitions(1000, "t", 6), *faults_), duration_ms=12_000))


def triggers(run: ZookeeperRun, member: str) -> list[tuple]:
    return [(r[0], r[4]) for r in consumer_rows(run, member) if r[1] == "RebalanceTriggered"]


TOPIC_T_CHANGED = "topic info for path /brokers/topics/t changed"


def test_a_topic_change_re_arms_the_data_watch_with_exists_and_get_data_then_triggers_a_rebalance():
    run = grown()
    assert [r for r in rows(run.zk.sim) if r[0] == "NodeDataChanged"] == [("NodeDataChanged", None, "/brokers/topics/t", 2)]
    assert triggers(run, "main_t-1") == triggers(run, "main_t-2") == [(1006, TOPIC_T_CHANGED)]
    assert run.zk.tree("/brokers/topics/") == [("/brokers/topics/t", 6, None)]  # the count AddPartitions wrote


def test_a_topic_changed_twice_is_seen_twice_because_the_listener_watches_again():
    """The data watch is one-shot; ZkClient re-arms it before each handleDataChange, so a second change
    (8 partitions at 5000) triggers both connectors again, and the rebalance reads the new count:
    the 8 partitions end up owned, 4 each (range), and the run counts 2 partition changes."""
    run = grown(AddPartitions(5000, "t", 8))
    assert triggers(run, "main_t-1") == [(1006, TOPIC_T_CHANGED), (5006, TOPIC_T_CHANGED)]
    assert [tuple(r) for r in run.owners().itertuples(index=False)] == [
        ("main", "t", p, f"main_t-{1 + p // 4}-0") for p in range(8)]
    assert run.summary["partition_changes"] == 2


@pytest.mark.parametrize("pause_at, trigger_at", [(1001, 1101 + 4), (1003, 1103)])
def test_a_topic_change_heard_while_paused_is_handled_when_the_pause_ends(pause_at, trigger_at):
    """A stop-the-world pause of 100 ms stops ZkClient's event thread: t-1 paused at 1001 takes the
    notification (due 1002) at 1101 and re-arms by 1105; paused at 1003, its re-arm (answered at 1006)
    calls the listener at 1103. t-2, not paused, triggers at 1006."""
    run = grown(faults.Pause("t-1", pause_at, 100))
    assert triggers(run, "main_t-1") == [(trigger_at, TOPIC_T_CHANGED)]
    assert triggers(run, "main_t-2") == [(1006, TOPIC_T_CHANGED)]


def test_add_partitions_of_a_topic_not_in_the_scenario_names_it():
    t = {"t": 4}
    scenario = ZookeeperScenario(topics=t, consumers=consumers_per_topic(t, 1),
                                 faults=(AddPartitions(1000, "u", 6),), duration_ms=2_000)
    with pytest.raises(ConfigError, match=r"^AddPartitions names topic 'u', which is not in topics$"):
        simulate_zookeeper(scenario)


def test_ownership_has_one_row_per_owner_partition_and_interval_and_an_open_one_ends_with_the_run():
    """ZookeeperRun.ownership: warm, t-1 owns 0 and 1 and t-2 owns 2 and 3 from 0; t-2 shuts down at 1000
    (its intervals end there), t-1 releases 0 and 1 at 1024 and owns all 4 from 1050 to the run's end."""
    run = mid_rebalance()
    assert sorted(tuple(r) for r in run.ownership().itertuples(index=False)) == sorted([
        ("main_t-1", "t", 0, 0, 1024), ("main_t-1", "t", 1, 0, 1024),
        ("main_t-2", "t", 2, 0, 1000), ("main_t-2", "t", 3, 0, 1000),
        *[("main_t-1", "t", p, 1050, 12_000) for p in range(4)]])


# -- syncedRebalance gives up: ConsumerRebalanceFailedException -------------------------------------
def held_partition(duration_ms: int, **consumer) -> ZookeeperRun:
    """Topic a (4 partitions), 4 connectors warm; a-1 is frozen (GC) from 5 s for 20 s, its session
    (30 s) alive, so it keeps partition 0's owner znode; a-0 registers at 10 s (registration answered at
    10,010) and range moves partition 0 to it: each of its tries fails to create that znode."""
    a = {"a": 4}
    return simulate_zookeeper(ZookeeperScenario(
        topics=a, consumers=consumers_per_topic(a, 4), consumer={"zookeeper.session.timeout.ms": 30_000, **consumer},
        faults=(faults.Pause("a-1", 5_000, 20_000), Join(10_000, ConsumerSpec("a-0", "main", {"a": 1}))),
        duration_ms=duration_ms))


def test_a_consumer_that_exhausts_rebalance_max_retries_says_how_many_tries_it_made_and_is_left_failed():
    """syncedRebalance: `for (i <- 0 until config.rebalanceMaxRetries)`, then `throw new
    ConsumerRebalanceFailedException(consumerIdString + " can't rebalance after " +
    config.rebalanceMaxRetries + " retries")`. Each failed try closed the fetchers (closeFetchersForQueues)
    and released its partitions, so the consumer ends fetching nothing: failed. With 2 retries: tries #0
    and #1, each followed by rebalance.backoff.ms (2,000 ms) of sleep, so the exception at 14,094."""
    run = held_partition(60_000, **{"rebalance.max.retries": 2})
    assert [r[:2] + r[4:] for r in consumer_rows(run, "main_a-0")
            if r[1] in ("RebalanceAttemptFailed", "RebalanceFailed") or r[4] in ("backoff", "failed")] == [
        (10_052, "RebalanceAttemptFailed", "ZkNodeExistsException on 1 partitions", 0),
        (10_052, "StateChanged", "backoff", None),
        (12_094, "RebalanceAttemptFailed", "ZkNodeExistsException on 1 partitions", 1),
        (12_094, "StateChanged", "backoff", None),
        (14_094, "RebalanceFailed", "main_a-0 can't rebalance after 2 retries", 2),
        (14_094, "StateChanged", "failed", None)]


def test_rebalance_max_retries_of_zero_gives_up_at_once_and_keeps_consuming_its_old_partitions():
    """With rebalance.max.retries=0 the loop body never runs: no fetcher is closed, nothing released,
    so the consumer goes on with what it owned (partitions 0 and 1) after the exception. t-1 is told of
    t-2's shutdown at 1,002 and re-arms its watch by 1,006."""
    t = {"t": 4}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1,
        consumer={"fetch.wait.max.ms": 0, "rebalance.max.retries": 0},
        faults=(faults.ScaleIn(1000, ("t-2",)),), duration_ms=5_000))
    assert [r[:2] + r[4:] for r in consumer_rows(run, "main_t-1") if r[1] != "RebalanceTriggered"] == [
        (1006, "RebalanceFailed", "main_t-1 can't rebalance after 0 retries", 0)]
    assert [tuple(r) for r in run.owners().itertuples(index=False)] == [
        ("main", "t", 0, "main_t-1-0"), ("main", "t", 1, "main_t-1-0")]


def test_an_attempt_row_names_the_group_and_an_attempt_unfinished_when_the_run_ends_is_running():
    """ZookeeperRun.attempts: one row per try, from its "begin rebalancing consumer ... try #n" to its
    end; a try the run's end cuts short has no end and is still running. The run ends at 10,030: a-0's
    try #0 began at 10,010, a-2's, a-3's and a-4's (told of a-0) at 10,006; none has ended."""
    a = held_partition(10_030).attempts()
    assert list(a.columns) == ["member", "group", "try", "start", "end", "outcome", "error"]
    assert sorted(tuple(r) for r in a.itertuples(index=False)) == [
        ("main_a-0", "main", 0, 10_010, None, "running", None),
        *[(f"main_a-{i}", "main", 0, 10_006, None, "running", None) for i in (2, 3, 4)]]


def test_a_failed_tries_end_and_its_backoffs_end_heard_while_paused_are_handled_when_the_pause_ends():
    """A stop-the-world pause stops the rebalancing thread: a-0's failed creates (answered at 10,052)
    reach it when its 100 ms pause from 10,050 ends (10,150), so the try fails then and
    rebalance.backoff.ms (2,000) runs from there; a second pause (12,100 to 12,200) holds the end of
    that sleep (12,150) until 12,200, when try #1 begins, and fails as the first did 42 ms later."""
    a = {"a": 4}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=a, consumers=consumers_per_topic(a, 4), consumer={"zookeeper.session.timeout.ms": 30_000},
        faults=(faults.Pause("a-1", 5_000, 20_000), Join(10_000, ConsumerSpec("a-0", "main", {"a": 1})),
                faults.Pause("a-0", 10_050, 100), faults.Pause("a-0", 12_100, 100)),
        duration_ms=12_300))
    conflict = "ZkNodeExistsException on 1 partitions"
    assert [r[:2] + r[4:] for r in consumer_rows(run, "main_a-0", 10_049) if r[1] != "OwnershipConflict"] == [
        (10_050, "StateChanged", "paused", None), (10_150, "StateChanged", "rebalancing", None),
        (10_150, "RebalanceAttemptFailed", conflict, 0), (10_150, "StateChanged", "backoff", None),
        (12_100, "StateChanged", "paused", None), (12_200, "StateChanged", "backoff", None),
        (12_200, "RebalanceAttempt", None, 1), (12_200, "StateChanged", "rebalancing", None),
        (12_242, "RebalanceAttemptFailed", conflict, 1), (12_242, "StateChanged", "backoff", None)]


def conflict() -> ZookeeperRun:
    """Topic a (6 partitions), a-1 owning 0-2 and a-2 3-5 (3 brokers, 2 ms a request); a-2 frozen from
    5 s (its session of 30 s alive, its znodes kept); a-0 registers at 10 s and range gives a-0 0 and
    1, a-1 2 and 3, a-2 4 and 5. a-1, told at 10,002 and re-armed by 10,006, stops its fetchers (the
    seeded draw: 1 ms), commits and releases 0-2 (getChildren 2, getData 7, setData 3, delete 3:
    10,037), reads the group (getChildren 2, getData 1 + 1 topic + 3 registrations + 2 offsets:
    10,055), creates 2's znode and finds 3's. The run ends at 11 s, in a-1's backoff."""
    a = {"a": 6}
    return simulate_zookeeper(ZookeeperScenario(
        topics=a, consumers=consumers_per_topic(a, 2), consumer={"zookeeper.session.timeout.ms": 30_000},
        faults=(faults.Pause("a-2", 5_000, 20_000), Join(10_000, ConsumerSpec("a-0", "main", {"a": 1}))),
        duration_ms=11_000))


def test_a_try_that_fails_on_a_conflict_deletes_the_owner_znodes_it_created():
    """reflectPartitionOwnershipDecision: if any partition's owner znode exists, the try fails and
    "remove all paths that we have owned in ZK": a-1's try fails (10,063) and 2's znode is deleted:
    during its backoff, partition 2 has no owner."""
    run = conflict()
    assert [r[:4] for r in consumer_rows(run, "main_a-1", 10_050)] == [
        (10_055, "OwnershipConflict", "a", 3), (10_063, "RebalanceAttemptFailed", None, None),
        (10_063, "StateChanged", None, None)]
    assert {p: run.zk.data.get(f"/consumers/main/owners/a/{p}") for p in range(6)} == {
        0: "main_a-0-0", 1: "main_a-0-0", 2: None, 3: "main_a-2-0", 4: "main_a-2-0", 5: "main_a-2-0"}


def test_an_owner_znode_found_held_is_a_zk_node_exists_conflict_read_once_and_the_created_ones_deleted():
    """reflectPartitionOwnershipDecision: createEphemeralPathExpectConflict throws ZkNodeExistsException
    after reading the znode it found (one getData: the data is another thread's id), logged as "waiting
    for the partition ownership to be deleted: <partition>"; then the owner znodes created in the try are
    deleted. a-1's claim: create 2, getData 1, delete 1 (10,063). The run's requests, by hand: a-0's
    registration (createSession, create, exists 2, getChildren) tells a-1 and a-2 (2 notifications;
    a-2, frozen, acts at 25 s); a-1's re-arm (exists, getChildren) and try as above; a-0's try, owning
    nothing: getChildren 2 + getData 7 (10,028), getChildren 2 + getData 7 (10,046: a-1 released 0 and 1
    at 10,037), create 2."""
    run = conflict()
    assert [r for r in run.rows if r[4] == "OwnershipConflict"] == [
        (10_055, "consumer", "main", "main_a-1", "OwnershipConflict", None, "a", 3, "ZkNodeExistsException",
         "waiting for the partition ownership to be deleted: 3", None, None)]
    assert run.zk.requests == {"createSession": 1, "create": 1 + 2 + 2, "exists": 2 + 1, "notification": 2,
                               "getChildren": 1 + 1 + 2 + 2 + 2 + 2, "getData": 7 + 7 + 1 + 7 + 7, "setData": 3,
                               "delete": 3 + 1}


# -- herd_cost: the closed form of one membership change (the module docstring's table) -------------
@pytest.mark.parametrize("name, low, counts", [
    ("consumers", 1, {"consumers": 0}), ("partitions", 0, {"partitions": -1}),
    ("owned_before", 0, {"owned_before": -1}), ("brokers", 1, {"brokers": 0}),
    ("topics_per_consumer", 0, {"topics_per_consumer": -1})])
def test_herd_cost_refuses_a_count_below_its_floor_naming_the_count_and_its_range(name, low, counts):
    args = {"consumers": 3, "partitions": 6, **counts}
    with pytest.raises(ConfigError) as e:
        herd_cost(args.pop("consumers"), **args)
    assert str(e.value) == (f"Invalid value {low - 1} for configuration {name}: Value must be at least {low} "
                            f"(valid range: [{low}, +inf])")


def test_herd_cost_takes_every_count_at_its_floor():
    """One connector left in its group, no broker but one, no partition owned before or after, no topic
    of its own (a wildcard matching nothing): it re-arms its watch (2 reads), reads the cluster and
    its TopicCount (3 + 2 x 1 broker) and the group (3 + 0 topics + 1 registration); nothing to write."""
    assert herd_cost(1, partitions=0, owned_before=0, brokers=1, topics_per_consumer=0) == {
        "consumers_rebalancing": 1, "notifications": 1, "reads": 11, "writes": 0, "requests": 11,
        "reads_per_consumer": {"rewatch": 2, "before release": 5, "group read": 4},
        "registration_reads": 1, "offset_reads": 0, "commit_writes": 0, "owner_deletes": 0, "owner_creates": 0}


@pytest.mark.parametrize("consumer, zk_offsets, zk_commits", [
    ({}, True, True),                                       # 0.8.2's defaults: offsets in ZooKeeper, auto-commit
    ({"auto.commit.enable": False}, True, False),           # offsets still read from ZooKeeper, none committed
    ({"offsets.storage": "kafka"}, True, True),             # dual.commit.enabled follows: true (the migration)
    ({"offsets.storage": "kafka", "dual.commit.enabled": False}, False, False)])  # all offsets at the broker
def test_every_count_of_one_membership_change_is_its_own_closed_form(consumer, zk_offsets, zk_commits):
    """4 connectors, 2 brokers, 3 topics each, 5 partitions owned before and 6 after. Each connector:
    exists + getChildren re-arm the watch (2); getChildren + 2 getData (getCluster), getData (own
    TopicCount), getChildren + 2 getData (getAllBrokersInCluster): 7; getData (own TopicCount), 3 getData
    (own topics), getChildren + 4 getData (registrations), getChildren: 10. 4 x 19 = 76 reads, and 4 x 4
    = 16 of them registrations; offsets read from ZooKeeper (6 getData) when offsets.storage=zookeeper or
    dual.commit.enabled (ZookeeperConsumerConnector.fetchOffsets takes the larger of the two), committed
    there (5 setData) when auto.commit.enable too; 5 owner znodes deleted and 6 created."""
    offset_reads, commit_writes = (6 if zk_offsets else 0), (5 if zk_commits else 0)
    reads, writes = 76 + offset_reads, commit_writes + 5 + 6
    assert herd_cost(4, partitions=6, owned_before=5, brokers=2, topics_per_consumer=3, consumer=consumer) == {
        "consumers_rebalancing": 4, "notifications": 4, "reads": reads, "writes": writes, "requests": reads + writes,
        "reads_per_consumer": {"rewatch": 2, "before release": 7, "group read": 10},
        "registration_reads": 16, "offset_reads": offset_reads, "commit_writes": commit_writes,
        "owner_deletes": 5, "owner_creates": 6}


def test_a_zookeeper_scenarios_replace_merges_consumer_overrides_into_those_it_had():
    """`replace(consumer=...)` changes the configs it names and keeps the others; the original stays."""
    t = {"t": 2}
    scenario = ZookeeperScenario(topics=t, consumers=consumers_per_topic(t, 2),
                                 consumer={"rebalance.max.retries": 2, "rebalance.backoff.ms": 500})
    changed = scenario.replace(consumer={"rebalance.backoff.ms": 100, "zookeeper.session.timeout.ms": 9000})
    assert changed.consumer == {"rebalance.max.retries": 2, "rebalance.backoff.ms": 100,
                                "zookeeper.session.timeout.ms": 9000}
    assert [changed.consumer_config[k] for k in changed.consumer] == [2, 100, 9000]
    assert scenario.consumer == {"rebalance.max.retries": 2, "rebalance.backoff.ms": 500}


def test_a_session_heard_from_does_not_expire_however_often_it_fell_silent_before():
    """Expiry is armed once when the client falls silent (6,000 ms from 0 here); falling silent again at
    1000 arms nothing more, so hearing from the client at 2000 disarms it and the session lives on."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    s = zk.connect("c-1", 6000, group="g")
    zk.create("/consumers/g/ids/c-1", session=s)
    zk.silent(s)
    sim.at(1000, zk.silent, s)
    sim.at(2000, zk.heard_from, s)
    sim.run(until=20_000)
    assert s.alive and zk.exists("/consumers/g/ids/c-1")
    assert "SessionExpired" not in [r[0] for r in rows(sim)]


@pytest.mark.parametrize("at_ms", [0, 5000])
def test_a_pause_of_0_ms_leaves_the_connector_in_its_state_even_at_time_0(at_ms):
    """A 0 ms pause ends as it starts: the connector is consuming throughout (a paused interval, if any,
    lasts 0 ms)."""
    t = {"t": 4}
    run = simulate_zookeeper(ZookeeperScenario(topics=t, consumers=consumers_per_topic(t, 2), brokers=1,
                                               faults=(faults.Pause("t-1", at_ms, 0),), duration_ms=12_000))
    states = run.member_states()
    mine = states[(states.member == "main_t-1") & (states.end > states.start)]
    assert set(mine.state) == {"consuming"} and (mine.end - mine.start).sum() == 12_000


def test_the_seed_incident_is_ten_topics_of_120_connectors_named_main_and_one_leaves_at_10_s():
    """Chapter 07, "The incident at full size": ten topics of 120 partitions, one connector per
    partition, all in the group name `main` (the fix: `main-topic-00`, ...), and at 10 s one
    connector of the first topic shuts down cleanly."""
    incident = seed_incident()
    assert incident.topics == {f"topic-{i:02d}": 120 for i in range(10)}
    assert len(incident.consumers) == 1200 and {c.group for c in incident.consumers} == {"main"}
    assert incident.consumers[0] == ConsumerSpec("topic-00-001", "main", {"topic-00": 1})
    assert incident.consumers[-1] == ConsumerSpec("topic-09-120", "main", {"topic-09": 1})
    assert incident.faults == (faults.ScaleIn(10_000, ("topic-00-001",)),)
    fix = seed_incident(True, topics=2, consumers=1, partitions=1)
    assert [(c.name, c.group) for c in fix.consumers] == [("topic-00-1", "main-topic-00"), ("topic-01-1", "main-topic-01")]


def test_the_seed_incident_needs_a_topic():
    with pytest.raises(ConfigError) as e:
        seed_incident(topics=0)
    assert str(e.value) == "Invalid value 0 for configuration topics: Value must be at least 1 (valid range: [1, +inf])"


# -- reflectPartitionOwnershipDecision and the group read it rests on ----------------------------
# Kafka 0.8.2-0.10.2 `core/src/main/scala/kafka/consumer/ZookeeperConsumerConnector.scala`:
# rebalance() builds an AssignmentContext (`PartitionAssignor.scala`: TopicCount, getConsumersPerTopic,
# one readData per registration), runs the assignor, then reflectPartitionOwnershipDecision creates the
# owner znodes with createEphemeralPathExpectConflict; any exception fails the try, which
# syncedRebalance follows with Thread.sleep(rebalance.backoff.ms).
def vanished(*faults_) -> ZookeeperRun:
    """Topic t (6 partitions), 3 connectors warm (range: t-1 owns 0-1, t-2 2-3, t-3 4-5), one broker,
    2 ms a request, fetchers that stop at once; t-2 shuts down at 1000, t-3 at 1030."""
    t = {"t": 6}
    return simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 3), brokers=1, consumer={"fetch.wait.max.ms": 0},
        faults=(faults.ScaleIn(1000, ("t-2",)), faults.ScaleIn(1030, ("t-3",)), *faults_), duration_ms=12_000))


@pytest.mark.parametrize("pause, failed_at", [((), 1042), ((faults.Pause("t-1", 1040, 100),), 1140)])
def test_a_registration_gone_while_the_group_is_read_fails_the_try_with_zk_no_node_then_backs_off(pause, failed_at):
    """getConsumersPerTopic reads each registration it listed: one deleted meanwhile throws
    ZkNoNodeException, the try fails and the consumer sleeps rebalance.backoff.ms (2,000) before the
    next. t-1, told of t-2's shutdown at 1002, re-arms by 1006; stop, commit and release 0 and 1 (9
    requests: 1024), read the group t-1, t-3 (getChildren 2, getData 1 + 1 topic + 2 registrations + 3
    offsets: 1042). t-3's registration went at 1030, so the try fails at 1042 (or, paused from 1040 to
    1140, when the pause ends: the held claim still checks what it read). Try #1, 2,000 ms later, owns
    and fetches nothing: getChildren 2 + getData 3 (+10 ms), the group read with 6 offsets (11 requests:
    +22), 6 creates (+12), 44 ms in all; then the run once more for t-3's shutdown (told at 1032, re-armed
    1036): stop, commit and release 6 (17 requests), read (11), create 6: 68 ms."""
    run = vanished(*pause)
    mine = [tuple(r) for r in run.attempts().itertuples(index=False) if r.member == "main_t-1"]
    retry = failed_at + 2000
    assert mine == [("main_t-1", "main", 0, 1006, failed_at, "failed", "ZkNoNodeException"),
                    ("main_t-1", "main", 1, retry, retry + 44, "completed", None),
                    ("main_t-1", "main", 0, retry + 44, retry + 112, "completed", None)]
    assert [r for r in consumer_rows(run, "main_t-1") if r[1] == "RebalanceAttemptFailed"] == [
        (failed_at, "RebalanceAttemptFailed", None, None,
         "ZkNoNodeException: /consumers/main/ids/main_t-3 disappeared while the group was read", 0)]


@pytest.mark.parametrize("faults_, failed_at, error", [
    ((), 1038, "IllegalArgumentException"), ((faults.ScaleIn(1030, ("x",)),), 1038, "ZkNoNodeException"),
    ((faults.Pause("t-1", 1030, 100),), 1130, "IllegalArgumentException")])
def test_the_group_is_read_before_the_assignor_runs_so_a_vanished_registration_fails_the_try_first(
        faults_, failed_at, error):
    """AssignmentContext reads every registration, then the 0.8.2 roundrobin assignor `require`s the
    same topics of every consumer. t-1 and t-2 read t; x, reading t and u, registers at 1000 (told at
    1002): t-1 re-arms by 1006, stops, commits and releases its 2 partitions (9 requests: 1024), reads
    the group (getChildren 2, getData 1 + 1 topic + 3 registrations, no offset: the assignor refused,
    1038). With x still there the try fails on the requirement (paused from 1030 to 1130: when the pause
    ends); with x gone at 1030, on the read."""
    run = simulate_zookeeper(ZookeeperScenario(
        topics={"t": 4, "u": 4}, consumers=consumers_per_topic({"t": 4}, 2), brokers=1,
        consumer={"fetch.wait.max.ms": 0, "partition.assignment.strategy": "roundrobin"},
        faults=(Join(1000, ConsumerSpec("x", "main", {"t": 1, "u": 1})), *faults_), duration_ms=3_000))
    assert [tuple(r) for r in run.attempts().itertuples(index=False) if r.member == "main_t-1"][0] == (
        "main_t-1", "main", 0, 1006, failed_at, "failed", error)


def test_an_owner_znode_is_ephemeral_and_goes_when_its_owners_session_expires():
    """createEphemeralPathExpectConflict: the owner znode lives as long as the session that claimed
    it. Cold start: t-2 claims partition 1 in its first rebalance (36) and crashes at 100; its session
    (6,000 ms) expires at 6100 and ZooKeeper deletes its 2 ephemeral znodes (registration, owner). t-1,
    told at 6102, re-arms by 6106, stops, commits and releases 0 (7 requests: 6120), reads the group
    (getChildren 2, getData 1 + 1 topic + 1 registration + 2 offsets: 6134) and creates 0 and 1 (6138)
    without conflict."""
    run = cold_start(2, faults.Crash("t-2", 100), **{"fetch.wait.max.ms": 0})
    assert [r for r in rows(run.zk.sim) if r[0] == "SessionExpired"] == [("SessionExpired", "main", "0x101", 2)]
    assert [r[:4] for r in consumer_rows(run, "main_t-1", 6100) if r[1] != "StateChanged"] == [
        (6106, "RebalanceTriggered", None, None), (6106, "RebalanceAttempt", None, None),
        (6120, "PartitionsRevoked", "t", 0), (6138, "PartitionsAssigned", "t", 0),
        (6138, "PartitionsAssigned", "t", 1), (6138, "RebalanceCompleted", None, None)]
    assert [tuple(r) for r in run.owners().itertuples(index=False)] == [
        ("main", "t", 0, "main_t-1-0"), ("main", "t", 1, "main_t-1-0")]


@pytest.mark.parametrize("pause_at, trigger_at", [(1001, 1101 + 4), (1003, 1103)])
def test_a_membership_change_heard_while_paused_is_handled_when_the_pause_ends(pause_at, trigger_at):
    """ZkClient's event thread stops with the process: t-1 paused at 1001 for 100 ms takes t-2's
    shutdown (told at 1002) at 1101 and re-arms the child watch by 1105; paused at 1003, its re-arm
    (answered at 1006) calls ZKRebalancerListener.handleChildChange at 1103."""
    run = mid_rebalance(faults.Pause("t-1", pause_at, 100))
    assert triggers(run, "main_t-1") == [(trigger_at, "child change on /consumers/main/ids")]


def test_a_fault_naming_an_unknown_consumer_names_it_and_the_first_five_consumers():
    t = {"t": 2}
    scenario = ZookeeperScenario(topics=t, consumers=consumers_per_topic(t, 6),
                                 faults=(faults.Crash("t-7", 100),), duration_ms=1_000)
    with pytest.raises(ConfigError) as e:
        simulate_zookeeper(scenario)
    assert str(e.value) == "fault names consumer 't-7', but the consumers are t-1, t-2, t-3, t-4, t-5, ..."


def test_a_warm_consumer_beyond_the_partition_count_owns_nothing_but_is_registered():
    """0.8.2 RangeAssignor: 2 partitions over 3 threads gives t-1-0 partition 0, t-2-0 partition 1 and
    t-3-0 none ("No broker partitions consumed by consumer thread"); t-3 is registered all the same."""
    t = {"t": 2}
    run = simulate_zookeeper(ZookeeperScenario(topics=t, consumers=consumers_per_topic(t, 3), duration_ms=1_000))
    assert [tuple(r) for r in run.owners().itertuples(index=False)] == [
        ("main", "t", 0, "main_t-1-0"), ("main", "t", 1, "main_t-2-0")]
    assert consumer_rows(run, "main_t-3", 0) == [(0, "StateChanged", None, None, "consuming", None)]
    assert run.zk.exists("/consumers/main/ids/main_t-3")


# -- a ZooKeeper scenario's inputs --------------------------------------------------------------------
# Bad input is refused before anything runs, with the setting's name and its valid range (check_range's
# words, Kafka's ConfigDef.Range); a scenario keeps its topics sorted and its consumers as a tuple, so
# the same inputs in another order or container are the same scenario and the same run.
def least(name: str, value, low) -> str:
    """check_range's refusal of a value below its floor."""
    return f"Invalid value {value} for configuration {name}: Value must be at least {low} (valid range: [{low}, +inf])"


def one_topic(**changes) -> ZookeeperScenario:
    t = {"t": 2}
    return ZookeeperScenario(**{"topics": t, "consumers": consumers_per_topic(t, 2), "duration_ms": 1_000, **changes})


def test_consumers_per_topic_needs_at_least_one_consumer_a_topic():
    with pytest.raises(ConfigError) as e:
        consumers_per_topic(["t"], 0)
    assert str(e.value) == least("consumers", 0, 1)


@pytest.mark.parametrize("name, group, what, bad", [("t 1", "main", "consumer name", "t 1"),
                                                    ("t-1", "main/x", "group.id", "main/x")])
def test_a_consumer_name_or_group_id_outside_kafkas_legal_characters_is_refused_naming_which(name, group, what, bad):
    """Kafka 0.8.2's kafka.common.Config.validateChars: ASCII alphanumerics, '.', '_' and '-' only."""
    with pytest.raises(ConfigError) as e:
        ConsumerSpec(name, group, {"t": 1})
    assert str(e.value) == (f"{what} {bad!r} is illegal, contains a character other than ASCII alphanumerics, "
                            "'.', '_' and '-'")


def test_a_consumers_topics_must_be_a_mapping_of_topic_to_streams():
    with pytest.raises(ConfigError) as e:
        ConsumerSpec("t-1", "main", ["t"])
    assert str(e.value) == "topics of consumer t-1 must map topic names to stream counts, got ['t']"


def test_a_consumer_spec_keeps_its_topic_count_map_as_a_dict_sorted_by_topic():
    from types import MappingProxyType
    spec = ConsumerSpec("c-1", "main", MappingProxyType({"b": 1, "a": 2}))
    assert type(spec.topics) is dict and list(spec.topics.items()) == [("a", 2), ("b", 1)]


@pytest.mark.parametrize("topics", [{}, ["t"]])
def test_a_scenarios_topics_must_be_a_non_empty_mapping_of_topic_to_partitions(topics):
    with pytest.raises(ConfigError) as e:
        one_topic(topics=topics)
    assert str(e.value) == f"topics must map topic names to partition counts, got {topics!r}"


def test_a_topic_needs_at_least_one_partition():
    with pytest.raises(ConfigError) as e:
        one_topic(topics={"t": 0})
    assert str(e.value) == least("partitions of topic 't'", 0, 1)


@pytest.mark.parametrize("names, listed", [(["a", "b", "b"], ["b"]),
                                           (["0", *"fedcba", *"abcdef"], ["a", "b", "c", "d", "e"])])
def test_duplicate_consumer_names_are_refused_listing_at_most_five_duplicates_sorted(names, listed):
    specs = [ConsumerSpec(n, "main", {"t": 1}) for n in names]
    with pytest.raises(ConfigError) as e:
        one_topic(consumers=specs)
    assert str(e.value) == f"consumer names must be unique: {listed}"


@pytest.mark.parametrize("setting, value, low", [("brokers", 0, 1), ("zk_latency_ms", -1, 0), ("zk_ops_per_s", 0.5, 1),
                                                 ("zk_tick_time_ms", 0, 1), ("start_spread_ms", -1, 0),
                                                 ("duration_ms", 0, 1)])
def test_a_scenario_setting_below_its_floor_is_refused_naming_it_and_its_range(setting, value, low):
    with pytest.raises(ConfigError) as e:
        one_topic(**{setting: value})
    assert str(e.value) == least(setting, value, low)


def test_a_scenario_may_last_from_one_millisecond_to_max_duration_ms_and_start_its_consumers_at_once():
    assert one_topic(duration_ms=1).duration_ms == 1
    assert one_topic(duration_ms=cc.MAX_DURATION_MS).duration_ms == 100_000_000
    assert one_topic(warm_start=False, start_spread_ms=0).start_spread_ms == 0


def test_a_run_longer_than_max_duration_ms_is_refused_with_the_memory_its_load_summary_would_take():
    """The load summary keeps 8 bytes per millisecond: 402,653,184 ms x 8 B = 3 x 2**30 B, 3.0 GB."""
    with pytest.raises(ConfigError) as e:
        one_topic(duration_ms=402_653_184)
    assert str(e.value) == ("duration_ms=402,653,184 is longer than a ZooKeeper run can be (100,000,000 ms, about "
                            "28 hours): its ZooKeeper load is summarised millisecond by millisecond, 3.0 GB here")


@pytest.mark.parametrize("seed", ["1", 1.0, True])
def test_a_scenarios_seed_must_be_an_int(seed):
    with pytest.raises(ConfigError) as e:
        one_topic(seed=seed)
    assert str(e.value) == f"seed must be an int, got {seed!r}"


def test_a_scenario_keeps_its_faults_as_a_tuple():
    crash = faults.Crash("t-1", 500)
    assert one_topic(faults=[crash]).faults == (crash,)


def test_zookeepers_pace_may_be_a_fraction_of_requests_per_second():
    assert one_topic(zk_ops_per_s=1.5).zk_ops_per_s == 1.5


def test_a_scenario_stores_its_topics_sorted_and_its_consumers_as_a_tuple_and_runs_the_same_either_way():
    specs = consumers_per_topic(["a", "b"], 2)
    given = ZookeeperScenario(topics={"b": 3, "a": 2}, consumers=list(specs), duration_ms=2_000)
    assert type(given.topics) is dict and list(given.topics.items()) == [("a", 2), ("b", 3)]
    assert given.consumers == specs
    ordered = ZookeeperScenario(topics={"a": 2, "b": 3}, consumers=specs, duration_ms=2_000)
    assert simulate_zookeeper(given).rows == simulate_zookeeper(ordered).rows


def test_simulate_zookeeper_takes_a_scenario_and_names_what_it_got():
    with pytest.raises(TypeError) as e:
        simulate_zookeeper({"topics": {"t": 1}})
    assert str(e.value) == "simulate_zookeeper() takes a ZookeeperScenario, got dict"


def test_a_cold_start_draws_each_connectors_start_in_order_from_the_seeds_own_start_stream():
    """Without warm_start each connector starts at a seeded instant within start_spread_ms, drawn from
    the simulation's `start` stream (Simulation.random: one `Random("<seed>/<stream>")` per stream)."""
    import random
    t = {"t": 3}
    run = simulate_zookeeper(one_topic(topics=t, consumers=consumers_per_topic(t, 3), warm_start=False,
                                       start_spread_ms=1000, seed=7))
    draws = random.Random("7/start")
    for name in ("main_t-1", "main_t-2", "main_t-3"):
        assert consumer_rows(run, name, 0)[0] == (draws.randrange(1000), "Started", None, None, None, None)


@pytest.mark.parametrize("fault", [faults.Crash("t-9", 5_000), faults.ScaleIn(5_000, ("t-9",))])
def test_a_fault_naming_an_unknown_consumer_is_refused_before_the_run_even_one_after_its_end(fault):
    with pytest.raises(ConfigError) as e:
        simulate_zookeeper(one_topic(faults=(fault,)))
    assert str(e.value) == "fault names consumer 't-9', but the consumers are t-1, t-2, ..."


# -- the connector's and the world's set-up --------------------------------------------------------
@pytest.mark.parametrize("latency_ms, attempt_at, completed_at", [(2, 10, 38), (3, 15, 57)])
def test_every_zookeeper_request_of_a_first_rebalance_takes_the_scenarios_zk_latency_ms(
        latency_ms, attempt_at, completed_at):
    """A new connector's registration (5 requests), getCluster and own TopicCount (5), the group read
    with 2 offsets (7) and 2 creates: 5 requests before its first try, 19 in all, zk_latency_ms each."""
    t = {"t": 2}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 1), brokers=1, zk_latency_ms=latency_ms, warm_start=False,
        start_spread_ms=0, duration_ms=1_000))
    assert [r[:2] for r in consumer_rows(run, "main_t-1", 0) if r[1] in ("RebalanceAttempt", "RebalanceCompleted")] \
        == [(attempt_at, "RebalanceAttempt"), (completed_at, "RebalanceCompleted")]


@pytest.mark.parametrize("tick_ms, told_at", [(2000, 6106), (4000, 8106), (200, 4106)])
def test_the_zookeeper_tick_bounds_a_consumers_session_timeout_to_2_to_20_ticks(tick_ms, told_at):
    """ZooKeeperServer negotiates a session timeout within [2, 20] x tickTime: 0.8.2's default
    zookeeper.session.timeout.ms (6000, ZKConfig) is kept with a 2 s tick, raised to 8000 with a 4 s
    tick, cut to 4000 with a 200 ms one. t-2 crashes at 100; its registration goes when its session
    expires, and t-1 is told 2 ms later and re-arms its watch by 4 ms more."""
    t = {"t": 2}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 2), brokers=1, zk_tick_time_ms=tick_ms,
        faults=(faults.Crash("t-2", 100),), duration_ms=12_000))
    assert triggers(run, "main_t-1") == [(told_at, "child change on /consumers/main/ids")]


def test_the_world_registers_each_broker_with_its_host_and_port_and_each_topic_with_its_partition_count():
    """The znodes a 0.8.2 consumer reads: /brokers/ids/<id> (a broker's registration, host and port,
    9092 being the broker's default port) and /brokers/topics/<topic> (here its partition count)."""
    run = simulate_zookeeper(ZookeeperScenario(
        topics={"b": 1, "a": 3}, consumers=consumers_per_topic({"a": 3}, 1), brokers=2, duration_ms=1_000))
    assert run.zk.tree("/brokers/") == [
        ("/brokers/ids", None, None), ("/brokers/ids/0", {"host": "broker-0", "port": 9092}, None),
        ("/brokers/ids/1", {"host": "broker-1", "port": 9092}, None),
        ("/brokers/topics", None, None), ("/brokers/topics/a", 3, None), ("/brokers/topics/b", 1, None)]


@pytest.mark.parametrize("spec, message", [
    (ConsumerSpec("t-1", "other", {"t": 1}), "consumer 't-1' already exists"),
    (ConsumerSpec("j", "main", {"t": 1, "u": 1, "v": 1}), "consumer j reads ['u', 'v'], which are not in topics")])
def test_a_joining_consumer_needs_a_name_of_its_own_and_topics_of_the_scenario(spec, message):
    t = {"t": 2}
    scenario = ZookeeperScenario(topics=t, consumers=consumers_per_topic(t, 1), faults=(Join(100, spec),),
                                 duration_ms=1_000)
    with pytest.raises(ConfigError) as e:
        simulate_zookeeper(scenario)
    assert str(e.value) == message


def test_the_groups_assignment_is_computed_once_per_zookeeper_state_however_many_connectors_read_it(monkeypatch):
    """Every connector of a group runs the whole group's assignment (the herd: 1,199 readers of one
    change); readers of the same registrations and partition counts share one computation. The warm
    start reads the group once; after t-3's shutdown at 1000, t-1 and t-2 read it (fetchers stopped
    at once) at the same moment: 2 computations."""
    calls = []
    assign = cc.ASSIGNORS_082["range"]
    monkeypatch.setitem(cc.ASSIGNORS_082, "range", lambda *a: calls.append(1) or assign(*a))
    t = {"t": 4}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=t, consumers=consumers_per_topic(t, 3), brokers=1, consumer={"fetch.wait.max.ms": 0},
        faults=(faults.ScaleIn(1000, ("t-3",)),), duration_ms=2_000))
    assert len(calls) == 2
    assert [tuple(r) for r in run.owners().itertuples(index=False)] == [
        ("main", "t", 0, "main_t-1-0"), ("main", "t", 1, "main_t-1-0"),
        ("main", "t", 2, "main_t-2-0"), ("main", "t", 3, "main_t-2-0")]


def test_roundrobin_refuses_a_group_with_different_subscriptions_each_time_it_is_asked():
    """0.8.2 RoundRobinAssignor's require: every topic must have the same consumer threads; a reader
    asking again of the same view gets the same IllegalArgumentException."""
    view = GroupView(["a", "b"], {"a": {"t": 1}, "b": {"t": 1, "u": 1}}, {"t": 2, "u": 2})
    for _ in range(2):
        with pytest.raises(AssignmentError, match="^requirement failed: Round-robin assignment is allowed only"):
            view.assignment("roundrobin")


@pytest.mark.parametrize("strategy", ["range", "roundrobin"])
def test_a_group_without_consumer_threads_is_assigned_nothing(strategy):
    """PartitionAssignor.scala (0.9-0.10.2): RoundRobinAssignor runs only `if (ctx.consumersForTopic.nonEmpty)`,
    and RangeAssignor only over the consumer's own topics: no threads, no partitions."""
    assert GroupView(["a"], {"a": {}}, {"t": 2}).assignment(strategy) == {}


def test_a_connector_started_with_an_instant_zookeeper_rebalances_at_its_start():
    """With ZooKeeper answering at once (zk_latency_ms 0, no capacity limit) a cold connector registers,
    reads and claims within its start's millisecond: nothing holds a new process (no pause, no cut)."""
    t = {"t": 2}
    run = simulate_zookeeper(ZookeeperScenario(topics=t, consumers=consumers_per_topic(t, 1), brokers=1,
                                               warm_start=False, start_spread_ms=0, duration_ms=1000,
                                               zk_latency_ms=0))
    assert [r[:2] for r in consumer_rows(run, "main_t-1", 0)] == [
        (0, "Started"), (0, "RebalanceTriggered"), (0, "RebalanceAttempt"), (0, "StateChanged"),
        (0, "PartitionsAssigned"), (0, "PartitionsAssigned"), (0, "StateChanged"), (0, "RebalanceCompleted")]
