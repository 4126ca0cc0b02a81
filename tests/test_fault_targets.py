"""Faults act on exactly the members they name, at exactly the instants they name.

Every fault of kafkasim.core.faults is run member by member, with the classic protocol (Kafka 3.7)
and the consumer protocol (KIP-848, Kafka 4.0): the named members get the fault's events at the
named instants (whole rows, by hand from the fault's documented meaning), and every member not
named is untouched: no fault event, no pause or stall, never removed by the coordinator, heartbeats
every interval, and its partitions are never left unconsumed except while the group rebalances.
The bugs these catch: a fault applied to the wrong member (off by one), to every member, in the
wrong order, or at the wrong instant.

The runs are quiet on purpose: the members start within the first 400 ms, ten records per second
per partition, 1 ms each, so a batch takes some 20 ms after each 1 s poll; the faults come at
x.5 s, when no member is in the middle of a batch (a graceful close then happens at once).
"""

from __future__ import annotations

import pytest

from kafkasim.core import faults as F
from kafkasim.core.errors import ConfigError
from kafkasim.scenario import Scenario, simulate
from kafkasim.scenario.run import rebalance_phases

MEMBERS = [f"c-{i}" for i in range(1, 7)]
CLASSIC = {"kafka_version": "3.7"}
CONSUMER = {"kafka_version": "4.0", "consumer": {"group.protocol": "consumer"}}
#: Each protocol with every member started at 0 (heartbeats and polls in step) and with starts
#: spread over 400 ms (then a consumer-protocol member hears of a change at its own heartbeat, and
#: partitions move from one member to another over a while).
PROTOCOLS = pytest.mark.parametrize("protocol,spread", [(CLASSIC, 0), (CLASSIC, 400), (CONSUMER, 0), (CONSUMER, 400)],
                                    ids=["classic", "classic-spread", "consumer", "consumer-spread"])
#: Heartbeat interval of each protocol's defaults: heartbeat.interval.ms (classic, 3 s) and the
#: broker's group.consumer.heartbeat.interval.ms (KIP-848, 5 s).
HEARTBEAT_MS = {"3.7": 3_000, "4.0": 5_000}
SESSION_MS = 45_000  # session.timeout.ms (3.x client) = group.consumer.session.timeout.ms (4.0 broker)
#: Consumer events that only a fault (or a start) writes.
FAULT_KINDS = ("Started", "Crashed", "Closed", "Frozen", "Stalled", "NetworkCut")
#: Application states a member is put in by a fault, or by stopping.
FAULT_STATES = ("paused", "stalled", "stopped")


def scenario(protocol: dict, faults, spread: int = 0, **kw) -> Scenario:
    base = dict(members=6, topics={"orders": 12}, produce_rate_per_s=120, processing_ms=1, start_spread_ms=spread,
                duration_ms=120_000, seed=5, faults=tuple(faults))
    return Scenario(**{**base, **protocol, **kw})


def started(*names: str, at: int) -> list[tuple]:
    return [(at, name, "Started", "dynamic", None) for name in names]


def fault_rows(run) -> list[tuple]:
    """(time, member, kind, reason, value) of every consumer event a fault or a later start writes;
    the first starts, one per initial member within start_spread_ms, are checked and left out."""
    rows = sorted((r[0], r[3], r[4], r[9], r[10]) for r in run.rows if r[1] == "consumer" and r[4] in FAULT_KINDS)
    first = [r for r in rows if r[0] <= run.scenario.start_spread_ms and r[2] == "Started"]
    assert sorted(r[1] for r in first) == sorted(MEMBERS[:run.scenario.members]), first
    assert {(r[2], r[3], r[4]) for r in first} == {("Started", "static" if run.scenario.static_membership else "dynamic",
                                                    None)}
    return [r for r in rows if r not in first]


def states(run, name: str) -> list[tuple]:
    """(time, state) of one member's application states."""
    return [(r[0], r[9]) for r in run.rows if r[1] == "consumer" and r[3] == name and r[4] == "StateChanged"]


def coordinator_rows(run, kinds) -> list[tuple]:
    """(time, consumer name, kind, reason) of coordinator events about a member."""
    return [(r[0], run.member_names.get(r[3], r[3]), r[4], r[9]) for r in run.rows
            if r[1] == "coordinator" and r[4] in kinds]


def heartbeats(run, name: str) -> list[int]:
    kinds = ("Heartbeat", "ConsumerGroupHeartbeat")
    return [t for t, member, _, _ in coordinator_rows(run, kinds) if member == name]


def removals(run) -> list[tuple]:
    return coordinator_rows(run, ("MemberRemoved",))


def is_classic(run) -> bool:
    return run.scenario.consumer_config.get("group.protocol", "classic") == "classic"


def owned_at(run, name: str, t: int) -> set[int]:
    owners = run.partition_owners()
    rows = owners[(owners["member"] == name) & (owners["start"] <= t) & (owners["end"] > t)]
    return set(rows["partition"])


def rebalancing(run) -> list[tuple[int, int]]:
    return [(start, end) for _, start, end, _, _ in rebalance_phases(run.rows, run.end_ms)]


def gaps(run, since: int = 20_000) -> set[tuple]:
    """(partition, start, end) of every stretch when a partition was not consumed, from `since` on
    (the faults come after 30 s; before that, the first rebalances move partitions)."""
    table = run.unconsumed()
    table = table[table["end"] > since]
    return {(int(p), int(s), int(e)) for p, s, e in table[["partition", "start", "end"]].itertuples(index=False)}


def unexplained_gaps(run, times: list[int], most_ms: int) -> list[tuple]:
    """The stretches between successive `times` (and from the last to the end) longer than
    `most_ms`, but for those a classic rebalance explains: a classic member waiting in JoinGroup
    neither polls nor heartbeats (AbstractCoordinator's heartbeat thread skips a member that
    hasNotJoinedGroup()); a consumer-protocol member never waits."""
    phases = rebalancing(run) if is_classic(run) else []
    stretches = list(zip(times, times[1:])) + [(times[-1], run.end_ms)]
    return [(a, b) for a, b in stretches if b - a > most_ms and not any(s < b and a < e for s, e in phases)]


def assert_untouched(run, others) -> None:
    """Members not named by a fault: started at first and never hit (no fault event, no pause, stall
    or stop, no fatal error), never removed, heartbeating every interval and fetching every poll to
    the end (a classic member waiting in a join does neither), and every stretch in which a
    partition they owned went unconsumed lies within a rebalance."""
    hb, poll_ms = HEARTBEAT_MS[run.scenario.kafka_version], run.scenario.poll_resolution_ms
    removed = {name for _, name, _, _ in removals(run)}
    for name in others:
        assert [r for r in fault_rows(run) if r[1] == name] == [], name
        assert not {s for _, s in states(run, name)} & set(FAULT_STATES), (name, states(run, name))
        assert not [r for r in run.rows if r[1] == "consumer" and r[3] == name and r[4] == "Fatal"], name
        assert name not in removed, (name, removals(run))
        beats = heartbeats(run, name)
        assert beats and beats[0] <= 10_000, (name, beats[:3])  # from the end of the first join on
        assert unexplained_gaps(run, beats, hb) == [], name
        # and its poll loop fetches each poll_resolution_ms (every partition has records)
        polls = [r[0] for r in run.rows if r[1] == "consumer" and r[3] == name and r[4] == "Fetched"]
        assert unexplained_gaps(run, polls, poll_ms) == [], name
    phases = rebalancing(run)
    owners = run.partition_owners()
    for partition, start, end in gaps(run):  # whose partition it was when the stretch began
        held = owners[(owners["partition"] == partition) & (owners["start"] <= start) & (owners["end"] >= start)]
        if set(held["member"]) & set(others):
            assert any(s <= start and end <= e for s, e in phases), (partition, start, end, phases)


# -- one member's process: Pause, SlowProcessing, NetworkCut, Crash, Restart ------------------------
@PROTOCOLS
def test_pauses_freeze_exactly_the_named_members_for_their_durations(protocol, spread):
    run = simulate(scenario(protocol, spread=spread, faults=[F.Pause("c-2", 30_500, 10_000), F.Pause("c-5", 40_500, 10_000)]))
    assert fault_rows(run) == sorted([(30_500, "c-2", "Frozen", None, 10_000),
                                                          (40_500, "c-5", "Frozen", None, 10_000)])
    assert [s for s in states(run, "c-2") if s[1] == "paused" or 30_000 < s[0]][:2] == \
        [(30_500, "paused"), (40_500, "consuming")]
    assert [s for s in states(run, "c-5") if 40_000 < s[0]][:2] == [(40_500, "paused"), (50_500, "consuming")]
    # a frozen process sends nothing: no heartbeat while frozen, the next one when it thaws
    for name, t in (("c-2", 30_500), ("c-5", 40_500)):
        assert not [h for h in heartbeats(run, name) if t <= h < t + 10_000]
    # nobody is removed (10 s < the 45 s session) and only the frozen members' partitions wait
    assert removals(run) == [] and all(end < 30_500 for _, end in rebalancing(run))
    assert gaps(run) == {(p, 30_500, 40_500) for p in owned_at(run, "c-2", 30_500)} | \
        {(p, 40_500, 50_500) for p in owned_at(run, "c-5", 40_500)}
    assert len(owned_at(run, "c-2", 30_500)) == len(owned_at(run, "c-5", 40_500)) == 2
    assert_untouched(run, ["c-1", "c-3", "c-4", "c-6"])


@PROTOCOLS
def test_slow_processing_stalls_exactly_the_named_members_while_their_heartbeats_go_on(protocol, spread):
    run = simulate(scenario(protocol, spread=spread, faults=[F.SlowProcessing("c-3", 30_500, 20_000),
                                       F.SlowProcessing("c-6", 30_500, 20_000)]))
    assert fault_rows(run) == sorted([(30_500, "c-3", "Stalled", None, 20_000),
                                                          (30_500, "c-6", "Stalled", None, 20_000)])
    for name in ("c-3", "c-6"):
        assert [s for s in states(run, name) if 30_000 < s[0]][:2] == [(30_500, "stalled"), (50_500, "consuming")]
    # the heartbeat thread is not stuck (KIP-62): 20 s is far under max.poll.interval.ms
    assert removals(run) == []
    assert gaps(run) == {(p, 30_500, 50_500) for name in ("c-3", "c-6") for p in owned_at(run, name, 30_500)}
    assert_untouched(run, ["c-1", "c-2", "c-4", "c-5"])
    hb = HEARTBEAT_MS[run.scenario.kafka_version]
    for name in ("c-3", "c-6"):
        times = heartbeats(run, name)
        assert max(b - a for a, b in zip(times, times[1:])) <= hb


@PROTOCOLS
def test_network_cuts_silence_exactly_the_named_members_at_their_instants(protocol, spread):
    run = simulate(scenario(protocol, spread=spread, faults=[F.NetworkCut("c-1", 30_500, 10_000), F.NetworkCut("c-4", 35_500, 10_000)]))
    assert fault_rows(run) == sorted([(30_500, "c-1", "NetworkCut", None, 10_000),
                                                          (35_500, "c-4", "NetworkCut", None, 10_000)])
    # nothing from a cut member reaches the coordinator while the cut lasts; the others go on
    assert not [t for t in heartbeats(run, "c-1") if 30_500 <= t < 40_500]
    assert not [t for t in heartbeats(run, "c-4") if 35_500 <= t < 45_500]
    assert [t for t in heartbeats(run, "c-1") if t >= 30_500][0] >= 40_500
    assert removals(run) == []
    assert_untouched(run, ["c-2", "c-3", "c-5", "c-6"])


@PROTOCOLS
def test_crashes_stop_exactly_the_named_members_and_only_they_are_removed(protocol, spread):
    run = simulate(scenario(protocol, spread=spread, faults=[F.Crash("c-2", 30_500), F.Crash("c-4", 30_500)]))
    assert fault_rows(run) == sorted([(30_500, "c-2", "Crashed", None, 2),
                                                          (30_500, "c-4", "Crashed", None, 2)])
    for name in ("c-2", "c-4"):
        assert states(run, name)[-1] == (30_500, "stopped")
        assert not [t for t in heartbeats(run, name) if t >= 30_500]
    # the coordinator notices each after a session timeout from its last heartbeat
    expired = sorted((max(t for t in heartbeats(run, name) if t < 30_500) + SESSION_MS, name)
                     for name in ("c-2", "c-4"))
    assert [(t, name) for t, name, _, reason in removals(run)] == expired
    assert {reason for *_, reason in removals(run)} == {"session_timeout"}
    fenced = coordinator_rows(run, ("MemberFenced",))  # KIP-848: a session expiry fences the member first
    assert fenced == ([] if is_classic(run) else [(t, name, "MemberFenced", "session_timeout") for t, name in expired])
    assert_untouched(run, ["c-1", "c-3", "c-5", "c-6"])


@PROTOCOLS
def test_restarts_hit_exactly_the_named_members_crash_or_close_then_start_after_the_delay(protocol, spread):
    run = simulate(scenario(protocol, spread=spread, faults=[F.Restart("c-3", 30_500, delay_ms=10_000),
                                       F.Restart("c-5", 50_500, delay_ms=5_000, graceful=True)]))
    assert fault_rows(run) == sorted([(30_500, "c-3", "Crashed", None, 2),
                                                          (40_500, "c-3", "Started", "dynamic", None),
                                                          (50_500, "c-5", "Closed", None, None),
                                                          (55_500, "c-5", "Started", "dynamic", None)])
    # the crashed process is removed when its session expires; the closed one leaves at once
    leave = [(t, name, reason) for t, name, _, reason in removals(run) if name == "c-5"]
    assert leave == [(50_500, "c-5", "leave_group")]
    assert_untouched(run, ["c-1", "c-2", "c-4", "c-6"])


def batch_sizes(run, name: str, since: int = 0, until: int | None = None) -> list[int]:
    until = run.end_ms if until is None else until
    return [int(r[10]) for r in run.rows
            if r[1] == "consumer" and r[3] == name and r[4] == "Fetched" and since <= r[0] < until]


@PROTOCOLS
def test_a_restart_with_new_configs_changes_only_the_named_member_and_only_from_its_restart(protocol, spread):
    """max.poll.records = 3 shows in the batch sizes: the others keep fetching their backlog in
    batches of more than 3 records."""
    run = simulate(scenario(protocol, spread=spread, faults=[F.Restart("c-2", 30_500, delay_ms=10_000, graceful=True,
                                                 consumer={"max.poll.records": 3})]))
    assert fault_rows(run) == sorted([(30_500, "c-2", "Closed", None, None),
                                                          (40_500, "c-2", "Started", "dynamic", None)])
    assert max(batch_sizes(run, "c-2", until=30_500)) > 3
    assert max(batch_sizes(run, "c-2", since=40_500)) == 3
    for name in ("c-1", "c-3", "c-4", "c-5", "c-6"):
        assert max(batch_sizes(run, name, since=40_500)) > 3, name
    assert_untouched(run, ["c-1", "c-3", "c-4", "c-5", "c-6"])


# -- several members: rolling_restart, ScaleOut, ScaleIn --------------------------------------------
@PROTOCOLS
def test_a_rolling_restart_restarts_the_named_members_one_by_one_in_the_given_order(protocol, spread):
    restarts = F.rolling_restart(["c-4", "c-1", "c-6"], start_ms=30_500, every_ms=15_000, delay_ms=5_000,
                                 consumer={"max.poll.records": 3})
    assert [(r.member, r.at_ms, r.delay_ms, r.graceful) for r in restarts] == \
        [("c-4", 30_500, 5_000, True), ("c-1", 45_500, 5_000, True), ("c-6", 60_500, 5_000, True)]
    run = simulate(scenario(protocol, spread=spread, faults=restarts))
    assert fault_rows(run) == sorted([
        (30_500, "c-4", "Closed", None, None), (35_500, "c-4", "Started", "dynamic", None),
        (45_500, "c-1", "Closed", None, None), (50_500, "c-1", "Started", "dynamic", None),
        (60_500, "c-6", "Closed", None, None), (65_500, "c-6", "Started", "dynamic", None)])
    for name, back in (("c-4", 35_500), ("c-1", 50_500), ("c-6", 65_500)):
        assert max(batch_sizes(run, name, since=back)) == 3, name
        assert max(batch_sizes(run, name, until=back - 5_000)) > 3, name
    assert [(t, name, reason) for t, name, _, reason in removals(run)] == \
        [(30_500, "c-4", "leave_group"), (45_500, "c-1", "leave_group"), (60_500, "c-6", "leave_group")]
    assert_untouched(run, ["c-2", "c-3", "c-5"])


def test_a_rolling_upgrade_moves_exactly_the_restarted_members_to_the_consumer_protocol():
    """KIP-848's online migration: each restarted member comes back speaking ConsumerGroupHeartbeat;
    the member not named keeps the classic protocol (JoinGroup, SyncGroup, Heartbeat)."""
    restarts = F.rolling_restart(["c-3", "c-1"], start_ms=30_500, every_ms=20_000, delay_ms=5_000,
                                 consumer={"group.protocol": "consumer"})
    run = simulate(scenario({"kafka_version": "4.0"}, restarts, members=3, topics={"orders": 6}))
    assert fault_rows(run) == sorted([
        (30_500, "c-3", "Closed", None, None), (35_500, "c-3", "Started", "dynamic", None),
        (50_500, "c-1", "Closed", None, None), (55_500, "c-1", "Started", "dynamic", None)])
    requests = coordinator_rows(run, ("Heartbeat", "JoinGroup", "SyncGroup", "ConsumerGroupHeartbeat"))
    modern = {name: min(t for t, n, kind, _ in requests if n == name and kind == "ConsumerGroupHeartbeat")
              for name in ("c-3", "c-1")}
    assert modern == {"c-3": 35_500, "c-1": 55_500}
    assert not [r for r in requests if r[1] == "c-2" and r[2] == "ConsumerGroupHeartbeat"]
    assert [t for t, n, kind, _ in requests if n == "c-2" and kind == "Heartbeat"][-1] > run.end_ms - 3_000
    for name, back in modern.items():
        assert not [r for r in requests if r[1] == name and r[0] >= back and r[2] != "ConsumerGroupHeartbeat"]


@PROTOCOLS
def test_scale_out_starts_exactly_count_new_members_named_after_the_existing_ones(protocol, spread):
    run = simulate(scenario(protocol, spread=spread, faults=[F.ScaleOut(30_500, count=2), F.ScaleOut(50_500)]))
    assert fault_rows(run) == sorted(started("c-7", "c-8", at=30_500) + started("c-9", at=50_500))
    joined = {name for t, name, kind, _ in coordinator_rows(run, ("MemberAdded", "MemberJoined"))}
    assert joined == {f"c-{i}" for i in range(1, 10)}
    assert removals(run) == []
    assert_untouched(run, MEMBERS)


@PROTOCOLS
def test_scale_in_closes_exactly_the_named_members_at_once(protocol, spread):
    run = simulate(scenario(protocol, spread=spread, faults=[F.ScaleIn(30_500, ("c-2", "c-5")), F.ScaleIn(50_500, "c-6")]))
    assert fault_rows(run) == sorted([(30_500, "c-2", "Closed", None, None),
                                                          (30_500, "c-5", "Closed", None, None),
                                                          (50_500, "c-6", "Closed", None, None)])
    assert sorted((t, name, reason) for t, name, _, reason in removals(run)) == \
        [(30_500, "c-2", "leave_group"), (30_500, "c-5", "leave_group"), (50_500, "c-6", "leave_group")]
    for name, t in (("c-2", 30_500), ("c-5", 30_500), ("c-6", 50_500)):
        assert states(run, name)[-1] == (t, "stopped")
        assert not [h for h in heartbeats(run, name) if h > t]
    assert_untouched(run, ["c-1", "c-3", "c-4"])


# -- static members: a restart within the session keeps the member's place ----------------------------
@PROTOCOLS
def test_restarts_of_static_members_hit_only_them_and_nobody_leaves_the_group(protocol, spread):
    """A static member (group.instance.id, KIP-345) restarted within session.timeout.ms comes back
    under its instance id, and only the restarted members' partitions wait. The classic coordinator
    lets the new process replace the old member either way; KIP-848's refuses a crashed one whose
    old member still holds the instance id (no leave with epoch -2): UNRELEASED_INSTANCE_ID, fatal in
    the 4.x client (ConsumerHeartbeatRequestManager), and the old member goes at its session timeout."""
    run = simulate(scenario(protocol, spread=spread, static_membership=True,
                            faults=[F.Restart("c-3", 30_500, delay_ms=10_000, graceful=True),
                                    F.Restart("c-5", 30_500, delay_ms=10_000)]))
    assert fault_rows(run) == [(30_500, "c-3", "Closed", None, None), (30_500, "c-5", "Crashed", None, 2),
                               (40_500, "c-3", "Started", "static", None), (40_500, "c-5", "Started", "static", None)]
    fatal = [(r[0], r[3], r[8]) for r in run.rows if r[4] == "Fatal"]
    if is_classic(run):
        assert removals(run) == [] and fatal == []
    else:
        last = max(t for t in heartbeats(run, "c-5") if t < 30_500)
        assert removals(run) == [(last + SESSION_MS, "c-5", "MemberRemoved", "session_timeout")]
        assert fatal == [(40_500, "c-5", "UNRELEASED_INSTANCE_ID")]
    owned = owned_at(run, "c-3", 30_000) | owned_at(run, "c-5", 30_000)
    assert len(owned) == 4 and {p for p, _, _ in gaps(run)} == owned
    assert {start for _, start, _ in gaps(run)} == {30_500}
    assert_untouched(run, ["c-1", "c-2", "c-4", "c-6"])


# -- the ZooKeeper consumer (0.8.2): the same faults, on connectors ----------------------------------
def test_faults_hit_exactly_the_named_zookeeper_connectors():
    """Connector ids are `<group>_<name>`; a restarted process registers a new id `<id>-<time>`. The
    ZooKeeper consumer rebalances every connector on any change (its storm), so a connector not named
    is untouched when it is never crashed, closed, restarted or paused."""
    from kafkasim.zookeeper.consumer_connector import ZookeeperScenario, consumers_per_topic, simulate_zookeeper

    topics = {"a": 4, "b": 4}
    faults = (F.Crash("a-2", 5_000), F.Pause("b-3", 7_000, 3_000), F.ScaleIn(9_000, ("b-1", "a-4")),
              F.Restart("a-3", 11_000, delay_ms=2_000, graceful=True), F.Restart("b-2", 12_000, delay_ms=2_000))
    run = simulate_zookeeper(ZookeeperScenario(topics=topics, consumers=consumers_per_topic(topics, 4), faults=faults,
                                               duration_ms=30_000, seed=1))
    hit = [(r[0], r[3], r[4] if r[4] != "StateChanged" else r[9]) for r in run.rows if r[1] == "consumer" and (
        r[4] in ("Crashed", "Closed", "Started") or r[4] == "StateChanged" and r[9] in ("paused", "crashed", "closed"))]
    assert hit == [(5_000, "main_a-2", "Crashed"), (5_000, "main_a-2", "crashed"), (7_000, "main_b-3", "paused"),
                   (9_000, "main_b-1", "Closed"), (9_000, "main_b-1", "closed"),
                   (9_000, "main_a-4", "Closed"), (9_000, "main_a-4", "closed"),
                   (11_000, "main_a-3", "Closed"), (11_000, "main_a-3", "closed"),
                   (12_000, "main_b-2", "Crashed"), (12_000, "main_b-2", "crashed"),
                   (13_000, "main_a-3-13000", "Started"), (14_000, "main_b-2-14000", "Started")]
    paused = [(r[0], r[9]) for r in run.rows if r[1] == "consumer" and r[3] == "main_b-3" and r[4] == "StateChanged"]
    assert paused[1:3] == [(7_000, "paused"), (10_000, "consuming")]


def test_network_cuts_silence_exactly_the_named_zookeeper_sessions():
    """ZooKeeper expires a session silent for its negotiated timeout (zookeeper.session.timeout.ms =
    6000, within [2, 20] ticks of 2000 ms); the connector hears of it when the link is back and
    registers again."""
    from kafkasim.zookeeper.consumer_connector import ZookeeperScenario, consumers_per_topic, simulate_zookeeper

    topics = {"a": 4, "b": 4}
    run = simulate_zookeeper(ZookeeperScenario(
        topics=topics, consumers=consumers_per_topic(topics, 4), duration_ms=30_000, seed=1,
        faults=(F.NetworkCut("a-1", 5_000, 8_000), F.NetworkCut("b-4", 6_000, 8_000))))
    expired = [(r[0], r[1], r[3]) for r in run.rows if r[4] == "SessionExpired"]
    assert expired == [(11_000, "zookeeper", "main_a-1"), (12_000, "zookeeper", "main_b-4"),
                       (13_000, "consumer", "main_a-1"), (14_000, "consumer", "main_b-4")]
    assert not [r for r in run.rows if r[1] == "consumer" and r[4] in ("Crashed", "Closed", "Started")]


@PROTOCOLS
def test_scale_in_closes_the_process_the_member_runs_at_that_instant(protocol, spread):
    """A restart with new configs runs the member as a new process (World.replace_consumer); a later
    ScaleIn of that member closes the new process, not the old one, which stopped long before."""
    run = simulate(scenario(protocol, spread=spread, faults=[
        F.Restart("c-2", 30_500, delay_ms=5_000, graceful=True, consumer={"max.poll.records": 3}),
        F.ScaleIn(60_500, ("c-2", "c-4"))]))
    assert fault_rows(run) == [(30_500, "c-2", "Closed", None, None), (35_500, "c-2", "Started", "dynamic", None),
                               (60_500, "c-2", "Closed", None, None), (60_500, "c-4", "Closed", None, None)]
    assert sorted((t, name, reason) for t, name, _, reason in removals(run)) == \
        [(30_500, "c-2", "leave_group"), (60_500, "c-2", "leave_group"), (60_500, "c-4", "leave_group")]
    assert not [t for t in heartbeats(run, "c-2") if t > 60_500]
    assert_untouched(run, ["c-1", "c-3", "c-5", "c-6"])


@PROTOCOLS
def test_faults_on_members_added_by_scale_out_hit_those_members(protocol, spread):
    """c-7 and c-8 are the two newcomers: a pause and a crash named after them hit them, nobody else.
    Twelve partitions over eight members: four own two, four (c-5 to c-8 under range) own one."""
    run = simulate(scenario(protocol, spread=spread, faults=[F.ScaleOut(30_500, count=2), F.Pause("c-8", 40_500, 5_000),
                                                             F.Crash("c-7", 45_500)]))
    assert fault_rows(run) == started("c-7", "c-8", at=30_500) + [(40_500, "c-8", "Frozen", None, 5_000),
                                                                  (45_500, "c-7", "Crashed", None, 1)]
    last = max(t for t in heartbeats(run, "c-7") if t < 45_500)
    assert removals(run) == [(last + SESSION_MS, "c-7", "MemberRemoved", "session_timeout")]
    assert_untouched(run, MEMBERS)


@PROTOCOLS
def test_a_graceful_restart_of_a_frozen_member_closes_when_it_thaws(protocol, spread):
    """Frozen from 30.5 s to 50.5 s, c-2 is asked to restart at 35.5 s: it closes only after it thaws
    and has processed the batch its first poll() returns: the records produced since its last fetch
    just before 30.5 s, on 2 partitions at 10 records/s (a partition holds floor(10 x t) records at
    t seconds), 1 ms each; the new process, due at 40.5 s, starts once the old one has stopped."""
    run = simulate(scenario(protocol, spread=spread, faults=[F.Pause("c-2", 30_500, 20_000),
                                                             F.Restart("c-2", 35_500, delay_ms=5_000, graceful=True)]))
    last_fetch = max(r[0] for r in run.rows if r[3] == "c-2" and r[4] == "Fetched" and r[0] < 30_500)
    closed = 50_500 + 2 * (10 * 50_500 // 1000 - 10 * last_fetch // 1000)  # 410 records, 410 ms
    assert fault_rows(run) == [(30_500, "c-2", "Frozen", None, 20_000), (closed, "c-2", "Closed", None, None),
                               (closed, "c-2", "Started", "dynamic", None)]
    assert removals(run) == [(closed, "c-2", "MemberRemoved", "leave_group")]
    assert_untouched(run, ["c-1", "c-3", "c-4", "c-5", "c-6"])


@pytest.mark.parametrize("args, message", [
    (("", 0, 0), "PoisonRecord.topic must be a topic name, got ''"),
    ((7, 0, 0), "PoisonRecord.topic must be a topic name, got 7"),
    (("t", -1, 0), "PoisonRecord.partition must be an integer >= 0, got -1"),
    (("t", 0, -1), "PoisonRecord.offset must be an integer >= 0, got -1"),
    (("t", 0, 0, "ACCEPT"), "PoisonRecord.ack must be 'RELEASE' (redelivered until the delivery limit) or "
                            "'REJECT' (archived at once), got 'ACCEPT'"),
])
def test_a_poison_record_names_what_is_wrong_with_its_topic_partition_offset_or_ack(args, message):
    with pytest.raises(ConfigError) as e:
        F.PoisonRecord(*args)
    assert str(e.value) == message


def test_a_poison_record_takes_the_first_record_of_partition_0_and_either_acknowledgement():
    """Offsets and partitions count from 0; RELEASE and REJECT are the two ways a share consumer can
    refuse a record (KIP-932's AcknowledgeType, ACCEPT being the record processed)."""
    assert [(p.topic, p.partition, p.offset, p.ack) for p in (F.PoisonRecord("t", 0, 0),
                                                              F.PoisonRecord("t", 0, 0, "REJECT"))] == \
        [("t", 0, 0, "RELEASE"), ("t", 0, 0, "REJECT")]


def test_a_restarts_label_says_how_long_it_is_down_and_every_config_it_changes():
    """A chart's legend for an upgrade: graceful or not, the downtime, then each changed config."""
    r = F.Restart("consumer-2", 30_000, 5_500, graceful=True,
                  consumer={"group.protocol": "consumer", "max.poll.records": 100})
    assert r.label() == (f"{r.short_label()} at 30 s (graceful, down 5.5 s, group.protocol=consumer, "
                         f"max.poll.records=100)")
    assert F.Restart("consumer-1", 0, 10_000).label().endswith(" at 0 s (down 10 s)")
