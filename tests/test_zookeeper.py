"""The 0.8.2 ZooKeeper consumer: assignors, rebalance storms, retries, sessions, herd load.

Expected values come from Kafka 0.8.2.2's source and tests (PartitionAssignor.scala and its
class comment, PartitionAssignorTest, ZookeeperConsumerConnectorTest.testBasic), from the request
table read off ZookeeperConsumerConnector/ZkUtils/ZkClient (worked by hand below), and from the
seed incident (10 topics x 120 consumers in one group name)."""

import random
import re

import pytest

from kafkasim import faults
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS
from kafkasim.core.java import java_string_hash
from kafkasim.analysis.experiments import compare_with_group_coordinator
from kafkasim.zookeeper.ensemble import NodeExistsError, ZooKeeper, negotiated_timeout
from kafkasim.core.engine import Simulation
from kafkasim.zookeeper.consumer_connector import (AddPartitions, AssignmentError, ConsumerSpec, Join, ZookeeperScenario,
                                         assign_range, assign_roundrobin,
                                         consumers_per_topic, herd_cost, seed_incident,
                                         simulate_zookeeper)

TOPICS = {"a": 4, "b": 4, "c": 4}


def small(group_per_topic=False, faults_=(), **kw):
    return ZookeeperScenario(topics=TOPICS, consumers=consumers_per_topic(TOPICS, 4, group_per_topic=group_per_topic),
                             faults=faults_, duration_ms=kw.pop("duration_ms", 30_000), **kw)


# -- assignors -----------------------------------------------------------------------------------
def test_java_string_hash_matches_java():
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112       # the classic collision
    assert java_string_hash("polygenelubricants") == -2147483648          # wraps to Integer.MIN_VALUE


def test_range_replays_the_class_comment_example():
    # PartitionAssignor.scala: C1, C2 with two streams each, p0..p4 ->
    # p0 -> C1-0, p1 -> C1-0, p2 -> C1-1, p3 -> C2-0, p4 -> C2-1
    got = assign_range({"t": 5}, {"t": ["C1-0", "C1-1", "C2-0", "C2-1"]})
    assert got == {("t", 0): "C1-0", ("t", 1): "C1-0", ("t", 2): "C1-1", ("t", 3): "C2-0", ("t", 4): "C2-1"}


def test_range_sorts_thread_ids_as_strings():
    # spec E.5: "...-10" sorts before "...-2"; q, r = divmod(5, 3) = (1, 2)
    got = assign_range({"t": 5}, {"t": ["g_c2-0", "g_c10-0", "g_c1-0"]})
    assert got == {("t", 0): "g_c1-0", ("t", 1): "g_c1-0", ("t", 2): "g_c10-0", ("t", 3): "g_c10-0",
                   ("t", 4): "g_c2-0"}


def test_roundrobin_orders_partitions_by_hash_code_and_deals_in_turn():
    threads = {"t": ["g_x-0", "g_y-0"], "u": ["g_x-0", "g_y-0"]}
    got = assign_roundrobin({"t": 2, "u": 1}, threads)
    order = sorted([("t", 0), ("t", 1), ("u", 0)], key=lambda tp: java_string_hash(f"[{tp[0]},{tp[1]}]"))
    assert [got[tp] for tp in order] == ["g_x-0", "g_y-0", "g_x-0"]


def test_roundrobin_requires_identical_subscriptions():
    """RoundRobinAssignor (0.8.2): `require(threadIdSet == headThreadIdSet, ...)` for each topic
    against the first, so Scala's "requirement failed: " and Kafka's sentence; Kafka then lists both
    topics' consumer streams, the model names the two topics."""
    with pytest.raises(AssignmentError) as info:
        assign_roundrobin({"t": 2, "u": 2, "v": 1}, {"t": ["a-0", "b-0"], "u": ["b-0", "a-0"], "v": ["a-0"]})
    assert str(info.value) == (
        "requirement failed: Round-robin assignment is allowed only if all consumers in the group subscribe to "
        "the same topics, AND if the stream counts across topics are identical for a given consumer instance. "
        "(topics t and v differ)")


def test_roundrobin_deals_by_signed_hash_code_so_an_overflowing_one_comes_first():
    """RoundRobinAssignor sorts by `TopicAndPartition.toString.hashCode`, a signed Java int: "[t,0]" ..
    "[t,9]" hash to 87540032 + 31 * p, but "[t,10]" overflows to -1581226645 and sorts first; the two
    threads then take turns: 10, 1, 3, 5, 7, 9 to a-0 and 0, 2, 4, 6, 8 to b-0 (one topic: its
    threads are the head's)."""
    got = assign_roundrobin({"t": 11}, {"t": ["b-0", "a-0"]})
    assert got == {("t", p): "a-0" if p == 10 or p % 2 else "b-0" for p in range(11)}


@pytest.mark.parametrize("case", range(3))
def test_replay_partition_assignor_test(case):
    """PartitionAssignorTest @ 0.8.2.2: random scenarios (consumers 1..10, topics 20..100, partitions
    8..120, streams 1..8); every partition has exactly one owner; roundrobin is uniform (max-min <= 1)."""
    rnd = random.Random(case)
    consumers = max(1, rnd.randint(0, 10))
    topics = {f"topic-{t}": max(8, rnd.randrange(120)) for t in range(1, max(20, rnd.randint(0, 100)) + 1)}
    # range: per (consumer, topic) stream counts
    threads = {t: [f"g1c{c}-{i}" for c in range(1, consumers + 1) for i in range(max(1, rnd.randint(0, 8)))]
               for t in topics}
    got = assign_range(topics, threads)
    assert set(got) == {(t, p) for t, n in topics.items() for p in range(n)}
    # roundrobin: wildcard subscriptions, one stream count per consumer
    streams = {c: max(1, rnd.randint(0, 8)) for c in range(1, consumers + 1)}
    same = [f"g1c{c}-{i}" for c, n in streams.items() for i in range(n)]
    got = assign_roundrobin(topics, {t: same for t in topics})
    assert set(got) == {(t, p) for t, n in topics.items() for p in range(n)}
    counts = {th: 0 for th in same}
    for th in got.values():
        counts[th] += 1
    assert max(counts.values()) - min(counts.values()) <= 1


def owners(run):
    return {(r.topic, r.partition): r.owner for r in run.owners().itertuples()}


def test_replay_zookeeper_consumer_connector_test_basic():
    """testBasic @ 0.8.2.2: consumer1 owns both partitions of topic1; consumer2 joins and takes
    partition 1; consumer3, with an empty topic map, changes nothing (but still triggers everyone)."""
    c1 = ConsumerSpec("consumer1", "group1", {"topic1": 1})
    join2 = Join(10_000, ConsumerSpec("consumer2", "group1", {"topic1": 1}))
    join3 = Join(20_000, ConsumerSpec("consumer3", "group1", {}))
    scenario = ZookeeperScenario(topics={"topic1": 2}, consumers=(c1,), warm_start=False, duration_ms=9_000)
    assert owners(simulate_zookeeper(scenario)) == {("topic1", 0): "group1_consumer1-0",
                                                    ("topic1", 1): "group1_consumer1-0"}
    expected_2 = {("topic1", 0): "group1_consumer1-0", ("topic1", 1): "group1_consumer2-0"}
    assert owners(simulate_zookeeper(scenario.replace(faults=(join2,), duration_ms=19_000))) == expected_2
    run = simulate_zookeeper(scenario.replace(faults=(join2, join3), duration_ms=30_000))
    assert owners(run) == expected_2
    ev = run.events
    after3 = ev[(ev.kind == "RebalanceAttempt") & (ev.time >= 20_000)]
    assert set(after3.member) == {"group1_consumer1", "group1_consumer2", "group1_consumer3"}


# -- who rebalances ---------------------------------------------------------------------------------
def test_everyone_in_the_group_name_rebalances_on_any_change():
    run = simulate_zookeeper(small(faults_=(faults.ScaleIn(5_000, ("a-1",)),)))
    s = run.summary
    assert s["membership_changes"] == 1
    assert s["consumers_rebalanced"] == 11
    assert s["consumers_rebalanced_by_topic"] == {"a": 3, "b": 4, "c": 4}
    assert s["zk_notifications"] == 11
    assert s["unowned_partitions_at_end"] == 0
    # topics b and c keep exactly their partitions, yet stop, release and re-claim them
    ev = run.events
    b1 = ev[(ev.member == "main_b-1") & ev.kind.isin(["PartitionsRevoked", "PartitionsAssigned"])
            & (ev.time > 0)]
    assert list(b1.kind) == ["PartitionsRevoked", "PartitionsAssigned"] and set(b1.partition) == {0}


def test_a_group_name_per_topic_confines_the_rebalance():
    s = simulate_zookeeper(small(True, faults_=(faults.ScaleIn(5_000, ("a-1",)),))).summary
    assert s["groups"] == 3
    assert s["consumers_rebalanced"] == 3 and s["consumers_rebalanced_by_topic"] == {"a": 3}
    assert s["zk_notifications"] == 3


def test_a_partition_change_triggers_only_that_topics_consumers():
    # ZKTopicPartitionChangeListener watches /brokers/topics/<topic> of the consumer's own topics.
    run = simulate_zookeeper(small(faults_=(AddPartitions(5_000, "b", 6),)))
    s = run.summary
    assert s["membership_changes"] == 0 and s["partition_changes"] == 1
    assert s["consumers_rebalanced_by_topic"] == {"b": 4}
    assert sorted(p for (t, p) in owners(run) if t == "b") == list(range(6))


def test_the_seed_incident_and_its_fix():
    """10 topics x 120 consumers in group "main": one disconnect sets the other 1,199 rebalancing
    and costs about 1199**2 registration reads; a group name per topic: 119 and 119**2."""
    shared = simulate_zookeeper(seed_incident())
    s = shared.summary
    assert s["consumers"] == 1200 and s["groups"] == 1 and s["membership_changes"] == 1
    assert s["consumers_rebalanced"] == 1199 and s["zk_notifications"] == 1199
    assert s["zk_requests_per_change"] == s["zk_reads"] + s["zk_writes"]
    assert s["rebalance_failures"] == 0 and s["unowned_partitions_at_end"] == 0
    herd = herd_cost(1199, partitions=1200, owned_before=1199)
    assert s["zk_reads"] == herd["reads"]
    assert s["zk_writes"] == herd["writes"] + 2          # + the leaver's commit and closeSession
    fixed = simulate_zookeeper(seed_incident(group_per_topic=True)).summary
    assert fixed["consumers_rebalanced"] == 119 and fixed["consumers_rebalanced_by_topic"] == {"topic-00": 119}
    assert fixed["zk_reads"] == herd_cost(119, partitions=120, owned_before=119)["reads"]
    assert s["zk_reads"] > 80 * fixed["zk_reads"]
    assert s["time_until_stable_ms"] > fixed["time_until_stable_ms"]


def test_request_counts_for_a_tiny_group_worked_by_hand():
    """Two connectors of one topic (2 partitions), one broker; one shuts down. The other gets one
    notification and sends: exists + getChildren (ZkClient re-arms the watch); getChildren + getData
    (getCluster, 1 broker), getData (own TopicCount), getChildren + getData (getAllBrokersInCluster);
    setData (commit its partition) and delete (release it); getData (own TopicCount), getData
    (/brokers/topics/t), getChildren + getData (1 registration), getChildren (getConsumersInGroup);
    2 getData (offsets of its 2 new partitions); 2 create. The leaver: setData + closeSession."""
    scenario = ZookeeperScenario(topics={"t": 2}, consumers=consumers_per_topic({"t": 2}, 2), brokers=1,
                                 faults=(faults.ScaleIn(1_000, ("t-1",)),), duration_ms=10_000)
    run = simulate_zookeeper(scenario)
    assert run.zk.requests == {"exists": 1, "getChildren": 5, "getData": 8, "setData": 2, "delete": 1, "create": 2,
                               "closeSession": 1, "notification": 1}
    assert owners(run) == {("t", 0): "main_t-2-0", ("t", 1): "main_t-2-0"}


# -- retries, backoff, failure --------------------------------------------------------------------
def stuck_scenario(pause_ms, **consumer):
    """a-0 joins and sorts first, so range moves partition 0 from a-1 to it; a-1 is frozen (GC) and
    holds partition 0's owner znode (its session, 30 s, survives the pause)."""
    return ZookeeperScenario(
        topics={"a": 4}, consumers=consumers_per_topic({"a": 4}, 4),
        consumer={"zookeeper.session.timeout.ms": 30_000, **consumer},
        faults=(faults.Pause("a-1", 5_000, pause_ms), Join(10_000, ConsumerSpec("a-0", "main", {"a": 1}))),
        duration_ms=60_000)


def attempts_of(run, member):
    a = run.attempts()
    return a[a.member == member].reset_index(drop=True)


@pytest.mark.parametrize("backoff", [2000, 500])
def test_retries_back_off_then_give_up_and_own_nothing(backoff):
    run = simulate_zookeeper(stuck_scenario(20_000, **{"rebalance.backoff.ms": backoff}))
    a = attempts_of(run, "main_a-0")
    assert list(a["try"]) == [0, 1, 2, 3] and set(a.outcome) == {"failed"}
    assert set(a.error) == {"ZkNodeExistsException"}
    assert all(a.start[1:].values - a.end[:-1].values == backoff)
    ev = run.events
    fail = ev[(ev.kind == "RebalanceFailed") & (ev.member == "main_a-0")]
    assert list(fail.reason) == ["main_a-0 can't rebalance after 4 retries"]
    assert list(fail.error) == ["ConsumerRebalanceFailedException"]
    assert fail.time.iloc[0] == a.end.iloc[-1] + backoff            # the loop sleeps after the last try too
    assert fail.time.iloc[0] - a.start.iloc[0] >= 4 * backoff
    # nothing triggers it again: partition 0 stays unowned (a-1 gave it up when it woke)
    assert ("a", 0) not in owners(run)
    assert run.summary["unowned_partitions_at_end"] == 1


def test_rebalance_max_retries_bounds_the_attempts():
    run = simulate_zookeeper(stuck_scenario(20_000, **{"rebalance.max.retries": 2}))
    assert list(attempts_of(run, "main_a-0")["try"]) == [0, 1]


def test_a_short_hold_is_ridden_out_by_a_retry():
    run = simulate_zookeeper(stuck_scenario(6_000))       # a-1 wakes at 11 s and releases partition 0
    a = attempts_of(run, "main_a-0")
    assert a.outcome.iloc[-1] == "completed" and a.outcome.iloc[0] == "failed"
    assert run.summary["rebalance_failures"] == 0 and run.summary["unowned_partitions_at_end"] == 0


def test_zero_retries_never_tries():
    s = simulate_zookeeper(small(faults_=(faults.ScaleIn(5_000, ("a-1",)),),
                                 consumer={"rebalance.max.retries": 0})).summary
    assert s["rebalance_attempts"] == 0 and s["rebalance_failures"] == 11
    assert s["unowned_partitions_at_end"] == 1    # a-1's partition: nobody takes it


# -- sessions ------------------------------------------------------------------------------------
@pytest.mark.parametrize("timeout, expires_after", [(6000, 6000), (10_000, 10_000), (1000, 4000), (100_000, 40_000)])
def test_a_crash_is_noticed_after_the_negotiated_session_timeout(timeout, expires_after):
    # ZooKeeperServer clamps the session timeout to [2, 20] x tickTime (2000 ms).
    assert negotiated_timeout(timeout) == expires_after
    run = simulate_zookeeper(small(faults_=(faults.Crash("a-1", 5_000),),
                                   consumer={"zookeeper.session.timeout.ms": timeout}, duration_ms=60_000))
    ev = run.events
    expired = ev[(ev.source == "zookeeper") & (ev.kind == "SessionExpired")]
    assert list(expired.time) == [5_000 + expires_after] and list(expired.member) == ["main_a-1"]
    first = ev[ev.kind == "RebalanceAttempt"].time.min()
    assert first > 5_000 + expires_after


def test_a_network_cut_past_the_session_timeout_causes_two_storms():
    run = simulate_zookeeper(small(faults_=(faults.NetworkCut("a-1", 5_000, 8_000),)))
    s = run.summary
    assert s["membership_changes"] == 2                   # expiry deletes, re-registration creates
    ev = run.events
    mine = ev[(ev.member == "main_a-1") & (ev.kind == "SessionExpired") & (ev.source == "consumer")]
    assert list(mine.reason) == ["ZK expired; release old broker parition ownership; re-register consumer main_a-1"]
    assert mine.time.iloc[0] == 13_000
    assert s["unowned_partitions_at_end"] == 0


def test_zookeeper_watches_are_one_shot_and_closed_sessions_hear_nothing():
    sim = Simulation(1)
    zk = ZooKeeper(sim, latency_ms=1)
    s1, s2 = zk.connect("x", 6000), zk.connect("y", 6000)
    heard = []
    zk.watch_children("/g/ids", s1, lambda: heard.append("x"))
    zk.watch_children("/g/ids", s2, lambda: heard.append("y"))
    zk.create("/g/ids/y", "y", s2)
    zk.create("/g/ids/z", "z")             # the watches already fired: merged, nobody told again
    sim.run()
    assert sorted(heard) == ["x", "y"]
    zk.watch_children("/g/ids", s1, lambda: heard.append("x2"))
    zk.watch_children("/g/ids", s2, lambda: heard.append("y2"))
    zk.close(s2)                            # deletes /g/ids/y; y's own watch is dropped first
    sim.run()
    assert heard[2:] == ["x2"] and not zk.exists("/g/ids/y")


# -- ZooKeeper load --------------------------------------------------------------------------------
def test_herd_reads_grow_with_the_square_of_the_group():
    small_, large = herd_cost(120, partitions=120), herd_cost(1200, partitions=1200)
    assert small_["registration_reads"] == 120 ** 2 and large["registration_reads"] == 1200 ** 2
    assert small_["notifications"] == 120 and large["writes"] == 3 * 1200


def test_capacity_bounds_the_load_and_stretches_the_storm():
    sc = seed_incident(topics=3, consumers=100, partitions=100, zk_ops_per_s=20_000)
    run = simulate_zookeeper(sc)
    s = run.summary
    assert s["zk_peak_requests_per_s"] <= 20_000 + 1e-6
    assert s["time_until_stable_ms"] >= (s["zk_reads"] + s["zk_writes"]) / 20_000 * 1000 * 0.95
    unlimited = simulate_zookeeper(sc.replace(zk_ops_per_s=None)).summary
    assert unlimited["zk_reads"] == s["zk_reads"]
    assert unlimited["time_until_stable_ms"] < s["time_until_stable_ms"]


def test_load_timeline_adds_up_to_the_counts():
    run = simulate_zookeeper(seed_incident(topics=3, consumers=20, partitions=20))
    load, s = run.zk_load(100), run.summary
    assert load.reads.sum() == pytest.approx(s["zk_reads"]) and load.writes.sum() == pytest.approx(s["zk_writes"])
    assert load.notifications.sum() == s["zk_notifications"]
    assert list(load.columns) == ["time_ms", "reads", "writes", "notifications", "requests_per_s"]


# -- today's coordinator -------------------------------------------------------------------------
def test_contrast_with_the_group_coordinator():
    df = compare_with_group_coordinator(topics=3, consumers=4, partitions=4, duration_ms=30_000)
    got = {(r[0].split()[0], r[1]): r[4] for r in df.itertuples(index=False)}
    assert got == {("ZooKeeper", "one group name"): 11, ("ZooKeeper", "a group per topic"): 3,
                   ("group", "one group name"): 11, ("group", "a group per topic"): 3}


# -- events, determinism, bad input ---------------------------------------------------------------
def test_events_follow_the_project_schema():
    run = simulate_zookeeper(small(faults_=(faults.ScaleIn(5_000, ("a-1",)),)))
    assert all(len(r) == len(FIELDS) for r in run.rows)
    assert set(run.events.source) == {"consumer", "zookeeper"}
    states = set(run.member_states().state)
    assert {"consuming", "rebalancing", "closed"} <= states
    own = run.ownership()
    assert set(own.columns) == {"member", "topic", "partition", "start", "end"}


def test_same_scenario_same_events_byte_for_byte():
    sc = small(faults_=(faults.ScaleIn(5_000, ("a-1",)), faults.Pause("b-2", 4_000, 3_000)))
    assert simulate_zookeeper(sc).rows == simulate_zookeeper(sc).rows
    other = simulate_zookeeper(sc.replace(seed=2))
    assert other.rows != simulate_zookeeper(sc).rows      # fetcher stop times are drawn from the seed
    assert other.summary["consumers_rebalanced"] == 11


@pytest.mark.parametrize("overrides, name, valid", [
    ({"rebalance.backoff.ms": -1}, "rebalance.backoff.ms", "[0, +inf]"),
    ({"rebalance.max.retries": -1}, "rebalance.max.retries", "[0, +inf]"),
    ({"zookeeper.session.timeout.ms": 0}, "zookeeper.session.timeout.ms", "[1, +inf]"),
    ({"zookeeper.sync.time.ms": -5}, "zookeeper.sync.time.ms", "[0, +inf]"),
])
def test_bad_configs_name_the_config_and_range(overrides, name, valid):
    with pytest.raises(ConfigError, match=re.escape(name)) as err:
        small(consumer=overrides)
    assert valid in str(err.value)


@pytest.mark.parametrize("kwargs, words", [
    ({"zk_latency_ms": -1}, ["zk_latency_ms", "[0, +inf]"]),
    ({"zk_ops_per_s": 0}, ["zk_ops_per_s", "[1, +inf]"]),
    ({"brokers": 0}, ["brokers", "[1, +inf]"]),
    ({"faults_": (faults.SlowProcessing("a-1", 1000),)}, ["Crash, Restart, Pause"]),
    ({"faults_": (faults.Crash("nobody", 1000),)}, ["nobody"]),
    ({"consumer": {"partition.assignment.strategy": "sticky"}}, ["partition.assignment.strategy"]),
])
def test_bad_scenarios_are_config_errors(kwargs, words):
    with pytest.raises(ConfigError) as err:
        simulate_zookeeper(small(**kwargs))
    for w in words:
        assert w in str(err.value)


def test_bad_consumers_are_config_errors():
    with pytest.raises(ConfigError, match="illegal"):
        ConsumerSpec("a b", "main", {"t": 1})
    with pytest.raises(ConfigError, match=r"streams of topic 't'.*\[1, \+inf\]"):
        ConsumerSpec("a", "main", {"t": 0})
    with pytest.raises(ConfigError, match="not in topics"):
        ZookeeperScenario(topics={"t": 1}, consumers=(ConsumerSpec("a", "main", {"u": 1}),))
    with pytest.raises(ConfigError, match="unique"):
        ZookeeperScenario(topics={"t": 1}, consumers=(ConsumerSpec("a", "g", {"t": 1}),) * 2)


# -- the ensemble's request queue (ensemble.ZooKeeper.submit, _rate, _advance, _reschedule) -----------
def served(zk, sim, **requests):
    """Submit one batch now; the list gets the ms at which its last request is answered."""
    done = []
    zk.submit(lambda: done.append(sim.now), **requests)
    return done


def test_without_capacity_each_batch_is_served_one_request_per_latency_side_by_side():
    """No `ops_per_s`: batches in flight do not slow each other; a batch of n sequential requests
    takes n x latency_ms (2 ms: 2 reads end at 4 ms, 1 write at 2 ms). The log gets one row per
    interval between changes of the batches in flight, none for the instant both were sent."""
    sim = Simulation(seed=1)
    zk = ZooKeeper(sim, latency_ms=2)
    reads, write = served(zk, sim, getData=2), served(zk, sim, create=1)
    sim.run()
    assert (reads, write) == ([4], [2])
    assert zk.load == [(0, 2, 1.0, 1.0, 0), (2, 4, 1.0, 0.0, 0)]


def test_a_capacity_is_shared_fairly_by_the_batches_in_flight():
    """ops_per_s=100 is 0.1 request per ms (below 1 / 2 ms): 3 reads sent at 0 alone would end at 30 ms.
    At 10 ms (1 read served) a create joins: each now gets 0.05/ms, so the create ends at 30 ms and the
    reads' last one at 40 ms; a setData sent at 50 ms to the idle ensemble ends at 60 ms."""
    sim = Simulation(seed=1)
    zk = ZooKeeper(sim, latency_ms=2, ops_per_s=100)
    reads = served(zk, sim, getData=3)
    later = {}
    sim.at(10, lambda: later.update(create=served(zk, sim, create=1)))
    sim.at(50, lambda: later.update(set=served(zk, sim, setData=1)))
    sim.run()
    assert (reads, later) == ([40], {"create": [30], "set": [60]})
    assert zk.load == [(0, 10, pytest.approx(1.0), 0.0, 0), (10, 30, pytest.approx(1.0), pytest.approx(1.0), 0),
                       (30, 40, pytest.approx(1.0), 0.0, 0), (50, 60, 0.0, pytest.approx(1.0), 0)]


def test_with_no_latency_the_capacity_alone_sets_the_pace():
    """latency_ms=0 with ops_per_s=5000 (5 requests per ms): 10 reads take 2 ms; two such batches sent
    together get 2.5/ms each and both end at 4 ms."""
    sim = Simulation(seed=1)
    zk = ZooKeeper(sim, latency_ms=0, ops_per_s=5000)
    alone = served(zk, sim, getData=10)
    sim.run()
    first, second = served(zk, sim, getData=10), served(zk, sim, exists=10)
    sim.run()
    assert (alone, first, second) == ([2], [6], [6])


def test_with_no_latency_and_no_capacity_a_batch_is_answered_at_once():
    """latency_ms=0 and no ops_per_s: a batch is logged as an instant row (start = end, its reads and
    writes) and its callback runs in the same millisecond; an empty batch logs nothing."""
    sim = Simulation(seed=1)
    zk = ZooKeeper(sim, latency_ms=0)
    sim.advance(5)
    batch, empty = served(zk, sim, getData=2, exists=1, create=1), served(zk, sim)
    zk.submit(None, getChildren=1)
    sim.run()
    assert (batch, empty, zk.load) == ([5], [5], [(5, 5, 3, 1, 0), (5, 5, 1, 0, 0)])


# -- what a run keeps (ZookeeperRun), its load timeline (zk_load), the scenario as a dict (to_dict) ---
def tiny(**fields):
    """Two connectors of topic t (2 partitions), one broker; t-1 shuts down at 1 s (see
    test_request_counts_for_a_tiny_group_worked_by_hand for its requests)."""
    return ZookeeperScenario(topics={"t": 2}, consumers=consumers_per_topic({"t": 2}, 2), brokers=1,
                             **{"faults": (faults.ScaleIn(1_000, ("t-1",)),), "duration_ms": 2_000, **fields})


def test_the_tiny_runs_zookeeper_rows_at_2_ms_a_request():
    """The rows zk_load reads: the leaver's setData + closeSession from 1,000 ms; the notification at
    1,000 ms, delivered at 1,002, re-armed with exists + getChildren; the two batches share 1,002-1,004
    (1 request each); then, after t-2's fetchers stop, its 7-request batches at 2 ms each: 5 reads + 2
    writes (setData, delete) in 14 ms, 7 reads in 14 ms, 2 creates in 4 ms."""
    run = simulate_zookeeper(tiny())
    stop = run.zk.load[4][0]
    assert 1_006 <= stop <= 1_006 + 100  # fetch.wait.max.ms
    assert run.zk.load == [(1000, 1000, 0, 0, 1), (1000, 1002, 0.0, 1.0, 0), (1002, 1004, 1.0, 1.0, 0),
                           (1004, 1006, 1.0, 0.0, 0), (stop, stop + 14, 5.0, 2.0, 0),
                           (stop + 14, stop + 28, 7.0, 0.0, 0), (stop + 28, stop + 32, 0.0, 2.0, 0)]
    assert stop == 1_026  # seed 1


def test_zk_load_spreads_each_row_evenly_over_its_buckets():
    """From the rows above, in 10 ms buckets (201 of them, 0 to 2,000 ms): 1,000-1,010 holds the
    first four rows whole (2 reads, 2 writes, the notification); 1,026-1,040 (5 reads, 2 writes) puts
    4/14 of it in 1,020-1,030 and 10/14 in 1,030-1,040; 1,040-1,054 (7 reads) 10/14 in 1,040-1,050 and
    4/14 in 1,050-1,060 with the 2 creates. requests_per_s is (reads + writes) x 100 per 10 ms bucket."""
    load = simulate_zookeeper(tiny()).zk_load(10)
    assert load["time_ms"].tolist() == [10 * i for i in range(201)]
    busy = load[(load.reads + load.writes + load.notifications) > 0]
    assert busy.time_ms.tolist() == [1000, 1020, 1030, 1040, 1050]
    assert busy.reads.tolist() == pytest.approx([2, 5 * 4 / 14, 5 * 10 / 14, 7 * 10 / 14, 7 * 4 / 14])
    assert busy.writes.tolist() == pytest.approx([2, 2 * 4 / 14, 2 * 10 / 14, 0, 2])
    assert busy.notifications.tolist() == [1, 0, 0, 0, 0]
    assert busy.requests_per_s.tolist() == pytest.approx([400, 7 * 4 / 14 * 100, 7 * 10 / 14 * 100, 500, 400])


def test_zk_load_counts_an_instant_row_in_its_bucket_one_second_by_default():
    """zk_latency_ms=0: every batch is an instant row, counted whole in the bucket it falls in; the
    default bucket is 1 s (0, 1,000, 2,000 ms here): 14 reads + 6 writes in 1 s are 20 requests/s."""
    run = simulate_zookeeper(tiny(zk_latency_ms=0))
    assert {r[0] == r[1] for r in run.zk.load} == {True}
    load = run.zk_load()
    assert load.to_dict("list") == {"time_ms": [0, 1000, 2000], "reads": [0, 14, 0], "writes": [0, 6, 0],
                                    "notifications": [0, 1, 0], "requests_per_s": [0, 20, 0]}
    assert run.zk_load(10).loc[lambda d: d.reads + d.writes > 0, "time_ms"].tolist() == [1000, 1020]


def test_zk_load_rejects_a_bucket_under_1_ms_naming_it():
    run = simulate_zookeeper(tiny())
    with pytest.raises(ConfigError, match=re.escape("configuration bucket_ms: Value must be at least 1 "
                                                    "(valid range: [1, +inf])")):
        run.zk_load(0)


def test_a_run_records_where_it_came_from():
    """The provenance record (kafkasim.core.provenance): this model, Kafka 0.8.2, the seed, the consumer
    config resolved against 0.8.2's defaults (rebalance.max.retries 4 -> 2 here, session 6,000 ms) and
    the scenario as a dict."""
    from kafkasim.core.provenance import KAFKASIM_VERSION
    scenario = tiny(seed=7, consumer={"rebalance.max.retries": 2})
    run = simulate_zookeeper(scenario)
    p = run.provenance
    assert run.scenario is scenario
    assert p == {"kafkasim_version": KAFKASIM_VERSION, "model": "kafkasim.zookeeper.consumer_connector",
                 "kafka_version": "0.8.2", "seed": 7, "configs": {"consumer": scenario.consumer_config},
                 "inputs": {"scenario": scenario.to_dict()}}
    config = p["configs"]["consumer"]
    assert (config["rebalance.max.retries"], config["zookeeper.session.timeout.ms"]) == (2, 6000)


def test_the_storm_is_timed_from_the_first_fault_of_a_warm_group_else_from_0():
    """time_until_stable_ms counts from the first fault when the group starts stable (t-2's rebalance ends
    at 1,058 ms: 58 ms), from 0 when the connectors start cold; a stable group with no fault schedules
    nothing (no heartbeats in 0.8.2: sessions are kept alive by the ZooKeeper client)."""
    warm = simulate_zookeeper(tiny())
    assert (warm.first_fault_ms, warm.summary["time_until_stable_ms"]) == (1_000, 58)
    idle = simulate_zookeeper(tiny(faults=()))
    assert (idle.first_fault_ms, idle.summary["time_until_stable_ms"], idle.engine_stats) == (0, 0, {"events": 0})
    cold = simulate_zookeeper(tiny(warm_start=False, faults=(faults.ScaleIn(1_500, ("t-1",)),), duration_ms=3_000))
    last = cold.events.query("kind == 'RebalanceCompleted'").time.max()
    assert cold.first_fault_ms == 0 and cold.summary["time_until_stable_ms"] == last > 1_500


def test_owners_lists_the_owner_znodes_by_group_topic_partition():
    """After t-1 leaves, t-2's only thread owns both partitions: /consumers/main/owners/t/{0,1}."""
    owners_ = simulate_zookeeper(tiny()).owners()
    assert owners_.to_dict("list") == {"group": ["main", "main"], "topic": ["t", "t"], "partition": [0, 1],
                                       "owner": ["main_t-2-0", "main_t-2-0"]}


def test_a_scenario_as_a_dict_names_every_field_consumers_and_faults_with_their_type():
    """to_dict (the provenance's scenario): every dataclass field by name; consumers and faults as
    plain dicts, each fault with its class name under "type" (a Join's consumer nested too)."""
    joiner = ConsumerSpec("t-3", "main", {"t": 1})
    scenario = tiny(faults=(faults.ScaleIn(1_000, ("t-1",)), Join(1_500, joiner)), consumer={"rebalance.backoff.ms": 500})
    assert scenario.to_dict() == {
        "topics": {"t": 2},
        "consumers": [{"name": "t-1", "group": "main", "topics": {"t": 1}},
                      {"name": "t-2", "group": "main", "topics": {"t": 1}}],
        "consumer": {"rebalance.backoff.ms": 500},
        "faults": [{"type": "ScaleIn", "at_ms": 1000, "members": ("t-1",)},
                   {"type": "Join", "at_ms": 1500, "consumer": {"name": "t-3", "group": "main", "topics": {"t": 1}}}],
        "brokers": 1, "zk_latency_ms": 2, "zk_ops_per_s": None, "zk_tick_time_ms": 2000, "warm_start": True,
        "start_spread_ms": 1000, "duration_ms": 2000, "seed": 1}


# -- ZookeeperRun.summary (_summarize) --
# Each run's figures are worked by hand from its consumer rows and from the requests each step sends
# (the table of test_request_counts_for_a_tiny_group_worked_by_hand; 2 ms a request, one broker).
def test_a_settled_storm_is_timed_to_its_last_rebalance_end_and_a_later_pause_is_downtime_only():
    """The tiny run (t-2 rebalances 1,006-1,058 ms, see test_the_tiny_runs_zookeeper_rows_at_2_ms_a_request)
    and then t-2 frozen 1,500-1,600 ms (a GC pause: no session lost, no rebalance): the storm ends at
    1,058 (the StateChanged rows at 1,500 and 1,600 end no rebalance): 58 ms from the first fault;
    not fetching: 52 ms rebalancing + 100 ms paused. 14 reads + 6 writes, all in the second 1,000-2,000,
    for one membership change (t-1's registration deleted)."""
    run = simulate_zookeeper(tiny(faults=(faults.ScaleIn(1_000, ("t-1",)), faults.Pause("t-2", 1_500, 100))))
    assert run.summary == {
        "consumers": 2, "groups": 1, "membership_changes": 1, "partition_changes": 0,
        "consumers_rebalanced": 1, "consumers_rebalanced_by_topic": {"t": 1},
        "rebalance_runs": 1, "rebalance_attempts": 1, "failed_attempts": {}, "ownership_conflicts": 0,
        "rebalance_failures": 0, "time_until_stable_ms": 1_058 - 1_000, "consumer_downtime_ms": 52 + 100,
        "unowned_partitions_at_end": 0, "zk_reads": 14, "zk_writes": 6, "zk_notifications": 1,
        "zk_requests_by_type": {"closeSession": 1, "create": 2, "delete": 1, "exists": 1, "getChildren": 5,
                                "getData": 8, "notification": 1, "setData": 2},
        "zk_requests_per_change": 20 / 1, "zk_peak_requests_per_s": 20.0}


def test_a_run_that_ends_mid_rebalance_has_no_time_until_stable():
    """The tiny run cut at 1,010 ms: t-2 started its try at 1,006 and is still stopping its fetchers, so
    the group never settled (None) and lost 4 ms; only the leaver's setData + closeSession and t-2's
    exists + getChildren were sent (2 reads, 2 writes, 4 requests for the one change, all in the second
    1,000-2,000); t-1's partition 0 lost its owner znode with t-1's session."""
    run = simulate_zookeeper(tiny(duration_ms=1_010))
    assert run.summary == {
        "consumers": 2, "groups": 1, "membership_changes": 1, "partition_changes": 0,
        "consumers_rebalanced": 1, "consumers_rebalanced_by_topic": {"t": 1},
        "rebalance_runs": 1, "rebalance_attempts": 1, "failed_attempts": {}, "ownership_conflicts": 0,
        "rebalance_failures": 0, "time_until_stable_ms": None, "consumer_downtime_ms": 1_010 - 1_006,
        "unowned_partitions_at_end": 1, "zk_reads": 2, "zk_writes": 2, "zk_notifications": 1,
        "zk_requests_by_type": {"closeSession": 1, "exists": 1, "getChildren": 1, "notification": 1,
                                "setData": 1},
        "zk_requests_per_change": 4 / 1, "zk_peak_requests_per_s": 4.0}


def test_a_failed_try_counts_by_exception_and_a_give_up_ends_the_storm():
    """t-1 frozen 1,000-2,000 ms while t-0 joins (rebalance.max.retries=1): range gives t-0 partition 0,
    still owned by the frozen t-1, so t-0's only try fails (ZkNodeExistsException, one conflict) and it
    gives up after the 2,000 ms backoff, at 3,040 (ConsumerRebalanceFailedException) - the last end,
    after t-1's rebalance ended at 2,046: 2,040 ms. Three runs, one try each. Not fetching: t-1 paused
    1,000 + rebalancing 2,004-2,046 (42); t-2 1,006-1,054 (48); t-0 rebalancing 1,010-1,040 (30), backing
    off 2,000, failed 3,040-5,000 (1,960). Partition 0 ends unowned. Requests: t-0's createSession,
    create, 2 exists, getChildren; 2 notifications (t-1, t-2); exists + getChildren per rearm (t-2, t-1);
    per try getChildren 2 + getData 3 (+ setData, delete of the one partition t-2 and t-1 owned), then
    getChildren 2 + getData 1 + 1 topic + 3 registrations + 1 offset per new partition (t-0, t-1), a
    create for it and t-0's getData of the conflict: 46 reads, 8 writes. By second: 1,000-2,000 holds
    31 reads + 5 writes (t-2 and t-0), 2,000-3,000 the other 18 (t-1)."""
    joiner = ConsumerSpec("t-0", "main", {"t": 1})
    run = simulate_zookeeper(tiny(faults=(faults.Pause("t-1", 1_000, 1_000), Join(1_000, joiner)),
                                  consumer={"rebalance.max.retries": 1}, duration_ms=5_000))
    by_type = {"create": 1 + 1 + 1, "createSession": 1, "delete": 2, "exists": 2 + 1 + 1,
               "getChildren": 1 + 2 + 3 * (2 + 2), "getData": 3 * 3 + (5 + 6 + 6) + 1, "notification": 2,
               "setData": 2}
    assert run.summary == {
        "consumers": 3, "groups": 1, "membership_changes": 1, "partition_changes": 0,
        "consumers_rebalanced": 3, "consumers_rebalanced_by_topic": {"t": 3},
        "rebalance_runs": 3, "rebalance_attempts": 3, "failed_attempts": {"ZkNodeExistsException": 1},
        "ownership_conflicts": 1, "rebalance_failures": 1, "time_until_stable_ms": 3_040 - 1_000,
        "consumer_downtime_ms": 1_000 + 42 + 48 + 30 + 2_000 + 1_960, "unowned_partitions_at_end": 1,
        "zk_reads": 46, "zk_writes": 8, "zk_notifications": 2, "zk_requests_by_type": by_type,
        "zk_requests_per_change": (46 + 8) / 1, "zk_peak_requests_per_s": 31.0 + 5.0}


def test_a_cold_start_is_timed_from_0_and_counts_its_own_registration_as_a_change():
    """One connector started cold (at 34 ms, start.spread) and a partition added at 500 ms: two changes
    (its registration and the partition count), two runs from try #0, 28 + 50 ms rebalancing, stable at
    556 ms from 0. Requests: createSession, create, 2 exists, getChildren; per try getChildren 2 + getData
    3, then getChildren 2 + getData 1 + 1 + 1 + one offset per partition (2, then 3) and a create each;
    the second try also commits and releases its 2 (setData, delete); the topic rearm exists + getData:
    30 reads + 11 writes in the first second, 41 / 2 changes."""
    scenario = ZookeeperScenario(topics={"t": 2}, consumers=(ConsumerSpec("t-1", "main", {"t": 1}),), brokers=1,
                                 warm_start=False, faults=(AddPartitions(500, "t", 3),), duration_ms=1_000)
    run = simulate_zookeeper(scenario)
    assert run.summary == {
        "consumers": 1, "groups": 1, "membership_changes": 1, "partition_changes": 1,
        "consumers_rebalanced": 1, "consumers_rebalanced_by_topic": {"t": 1},
        "rebalance_runs": 2, "rebalance_attempts": 2, "failed_attempts": {}, "ownership_conflicts": 0,
        "rebalance_failures": 0, "time_until_stable_ms": 556, "consumer_downtime_ms": (72 - 44) + (556 - 506),
        "unowned_partitions_at_end": 0, "zk_reads": 30, "zk_writes": 11, "zk_notifications": 1,
        "zk_requests_by_type": {"create": 1 + 2 + 3, "createSession": 1, "delete": 2, "exists": 2 + 1,
                                "getChildren": 1 + 2 * (2 + 2), "getData": 2 * 3 + 5 + 6 + 1,
                                "notification": 1, "setData": 2},
        "zk_requests_per_change": 41 / 2, "zk_peak_requests_per_s": 41.0}


def test_a_run_with_nothing_to_rebalance_is_stable_from_the_start():
    """No fault: no rebalance ended, none running, so stable at 0; no request, no change (None per change)."""
    s = simulate_zookeeper(tiny(faults=())).summary
    assert (s["time_until_stable_ms"], s["zk_requests_per_change"], s["zk_peak_requests_per_s"]) == (0, None, 0.0)


# -- the ZooKeeper ensemble: sessions, znodes, watches --
def zk_rows(sim):
    """The ensemble's rows as (time, kind, group, member, value, reason)."""
    at = [FIELDS.index(f) for f in ("time", "kind", "group", "member", "value", "reason")]
    return [tuple(r[i] for i in at) for r in sim.events.rows if r[FIELDS.index("source")] == "zookeeper"]


def test_the_ensemble_defaults_to_2_ms_a_request_no_capacity_and_zookeepers_2000_ms_tick():
    """ZooKeeper(sim) as documented: latency_ms=2 (a batch of 3 sequential requests is answered at
    6 ms), ops_per_s=None (no capacity: 4 batches in flight do not slow each other) and tickTime
    2000 ms, as ZooKeeper's conf/zoo_sample.cfg sets it, so sessions are clamped into [4000, 40000] ms
    (ZooKeeperServer's default min/max session timeout: 2 and 20 x tickTime)."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    done = [served(zk, sim, getData=3)] + [served(zk, sim, create=1) for _ in range(3)]
    sim.run()
    assert done == [[6], [2], [2], [2]]
    assert [zk.connect(c, t).timeout_ms for c, t in (("a", 1000), ("b", 6000), ("c", 100_000))] == [4000, 6000, 40_000]


@pytest.mark.parametrize("setting, message", [
    ({"latency_ms": -1}, "Invalid value -1 for configuration zk_latency_ms: Value must be at least 0 "
                         "(valid range: [0, +inf])"),
    ({"ops_per_s": 0.5}, "Invalid value 0.5 for configuration zk_ops_per_s: Value must be at least 1 "
                         "(valid range: [1, +inf])"),
    ({"tick_time_ms": 0}, "Invalid value 0 for configuration zk_tick_time_ms: Value must be at least 1 "
                          "(valid range: [1, +inf])"),
])
def test_the_ensemble_refuses_a_setting_below_its_floor_naming_it_and_its_range(setting, message):
    with pytest.raises(ConfigError) as err:
        ZooKeeper(Simulation(0), **setting)
    assert str(err.value) == message


def test_the_ensemble_takes_each_setting_at_its_floor_and_a_fractional_capacity():
    """latency_ms=0 with ops_per_s=1 (the floors): one request a second, so 1 request is answered at
    1000 ms; a capacity need not be whole (1.5 a second: 3 requests take 2000 ms); tickTime 1 ms
    clamps any session into [2, 20] ms."""
    sim = Simulation(0)
    one = served(ZooKeeper(sim, latency_ms=0, ops_per_s=1), sim, getData=1)
    three = served(ZooKeeper(sim, latency_ms=0, ops_per_s=1.5), sim, getData=3)
    sim.run()
    assert (one, three) == ([1000], [2000])
    zk = ZooKeeper(sim, tick_time_ms=1)
    assert [zk.connect(c, t).timeout_ms for c, t in (("a", 1), ("b", 7), ("c", 6000))] == [2, 7, 20]


def test_sessions_get_consecutive_ids_from_0x100_and_a_timeout_negotiated_within_2_to_20_ticks():
    """ZooKeeperServer.processConnectRequest clamps the requested timeout into [minSessionTimeout,
    maxSessionTimeout], by default [2, 20] x tickTime (here 500 ms: [1000, 10000]);
    SessionTrackerImpl.createSession hands out consecutive ids (nextSessionId++), kafkasim's from
    0x100. Each session is one SessionEstablished row: its client, group, negotiated timeout, id."""
    sim = Simulation(0)
    zk = ZooKeeper(sim, tick_time_ms=500)
    sessions = [zk.connect("c-1", 100, group="g"), zk.connect("c-2", 6000), zk.connect("c-3", 30_000, group="h")]
    assert [(s.id, s.client, s.group, s.timeout_ms) for s in sessions] == [
        (0x100, "c-1", "g", 1000), (0x101, "c-2", None, 6000), (0x102, "c-3", "h", 10_000)]
    assert zk.sessions == {0x100: sessions[0], 0x101: sessions[1], 0x102: sessions[2]}
    assert zk_rows(sim) == [(0, "SessionEstablished", "g", "c-1", 1000, "0x100"),
                            (0, "SessionEstablished", None, "c-2", 6000, "0x101"),
                            (0, "SessionEstablished", "h", "c-3", 10_000, "0x102")]


def test_each_watcher_told_is_one_notification_counted_over_every_fire():
    """DataTree.createNode triggers NodeChildrenChanged on the parent's child watches, and
    WatchManager.triggerWatch removes them (one-shot), sending one event to each watcher: two
    watchers, then one that watched again, are 3 notifications, logged as (now, now, 0, 0, n) rows."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    a, b = zk.connect("c-1", 6000, group="g"), zk.connect("c-2", 6000, group="g")
    for s in (a, b):
        zk.watch_children("/consumers/g/ids", s, lambda: None)
    zk.create("/consumers/g/ids/c-1", session=a)
    sim.at(10, zk.watch_children, "/consumers/g/ids", b, lambda: None)
    sim.at(10, zk.create, "/consumers/g/ids/c-2", None, b)
    sim.run()
    assert zk.requests["notification"] == 3
    assert [row for row in zk.load if row[4]] == [(0, 0, 0, 0, 2), (10, 10, 0, 0, 1)]
    assert [r for r in zk_rows(sim) if r[1] == "NodeChildrenChanged"] == [
        (0, "NodeChildrenChanged", "g", None, 2, "/consumers/g/ids"),
        (10, "NodeChildrenChanged", "g", None, 1, "/consumers/g/ids")]


def test_create_makes_missing_parents_and_refuses_an_existing_znode_with_node_exists_naming_it():
    """ZkClient's createParents makes /consumers/g/ids for c-1's registration, an existing parent is
    not created again; creating an existing znode is NodeExists naming its path. The ephemeral znode
    belongs to its session (the tree's owner column, the session's ephemerals), the parents to none."""
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    a = zk.connect("c-1", 6000, group="g")
    zk.create("/consumers/g/ids/c-1", {"t": 1}, a)
    zk.create("/consumers/g/ids/c-2", {"t": 2})
    with pytest.raises(NodeExistsError) as err:
        zk.create("/consumers/g/ids")
    assert err.value.args == ("/consumers/g/ids",)
    assert zk.tree() == [("/consumers", None, None), ("/consumers/g", None, None), ("/consumers/g/ids", None, None),
                         ("/consumers/g/ids/c-1", {"t": 1}, "c-1"), ("/consumers/g/ids/c-2", {"t": 2}, None)]
    assert a.ephemerals == ["/consumers/g/ids/c-1"] and zk.owner == {"/consumers/g/ids/c-1": 0x100}
    assert zk.get_children("/consumers/g/ids") == ["c-1", "c-2"] and zk.cversion["/consumers/g/ids"] == 2


def test_a_path_without_children_lists_none_whether_or_not_it_exists():
    """As Kafka's ZkUtils.getChildrenParentMayNotExist reads it: no znode, no children."""
    zk = ZooKeeper(Simulation(0))
    zk.create("/consumers/g/ids")
    assert zk.get_children("/consumers/g/ids") == [] and zk.get_children("/consumers/h/ids") == []


def test_the_tree_lists_every_znode_by_default_or_those_under_a_prefix_with_their_owner():
    sim = Simulation(0)
    zk = ZooKeeper(sim)
    zk.create("/brokers/topics/t", 4)
    zk.create("/consumers/g/ids/c-1", "x", zk.connect("c-1", 6000))
    assert [p for p, _, _ in zk.tree()] == ["/brokers", "/brokers/topics", "/brokers/topics/t", "/consumers",
                                            "/consumers/g", "/consumers/g/ids", "/consumers/g/ids/c-1"]
    assert zk.tree("/consumers/g/ids/") == [("/consumers/g/ids/c-1", "x", "c-1")]
