"""Five client behaviours replayed against Kafka's code at the release tags (issue 19):

1. a commit renews a member's session only from 0.10.0 (`GroupCoordinator.scala`, KAFKA-3470);
2. an eager group whose members list cooperative-sticky first still assigns every partition in
   one rebalance (`ConsumerCoordinator` protocol choice, `CooperativeStickyAssignor.memberData`);
3. no onPartitionsRevoked at a consumer's first join from 2.4 (`ConsumerCoordinator.onJoinPrepare`);
4. a sticky member over its quota keeps its owned partitions in the order it reported them before
   3.8 and by (partition, topic) from 3.8 (`AbstractStickyAssignor`, KAFKA-16277);
5. member ids are `<client.id>-<UUID>`, with Kafka's generated client.id (`KafkaConsumer`,
   `ConsumerConfig.maybeOverrideClientId`, `GroupMetadata.generateMemberId`).

Each test asserts exact events and times, on both sides of a version boundary where there is one.
"""

from __future__ import annotations

import re

import pytest

from kafkasim import Scenario, faults, simulate
from kafkasim.client.assignors import Subscription, assign, owned_partitions, sticky_user_data
from kafkasim.core.config import generated_client_id
from kafkasim.core.errors import Errors
from kafkasim.viz import protocol, tables

from coordinator_helpers import join, new_coordinator

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def ids_of(run, name: str) -> set[str]:
    return {member_id for member_id, n in run.member_names.items() if n == name}


def coordinator_rows(run, name: str, kinds: tuple[str, ...], start: int, end: int) -> list[tuple]:
    """(time, kind, error, reason) of the coordinator's rows about consumer `name` in [start, end]."""
    ids = ids_of(run, name)
    return [(r[0], r[4], r[8], r[9]) for r in run.rows
            if r[1] == "coordinator" and r[3] in ids and r[4] in kinds and start <= r[0] <= end]


def callbacks(run, start: int, end: int) -> list[tuple]:
    """(time, consumer, callback, topic, partition, value) of the rebalance listener in [start, end]."""
    return [(r[0], r[3], r[4], r[6], r[7], r[10]) for r in run.rows
            if r[1] == "consumer" and r[4] in ("PartitionsRevoked", "PartitionsAssigned", "PartitionsLost")
            and start <= r[0] <= end]


# -- 1. commits and the session timer ------------------------------------------------------------
def commit_then_stall(kafka_version: str):
    """c-2 commits after every batch (commitSync) and heartbeats every 3 s from poll(); its poll
    thread is stuck from 32.5 s: its last heartbeat is at 30.009 s, its last commit at 32.029 s."""
    return simulate(Scenario(kafka_version=kafka_version, members=2, topics={"orders": 2}, produce_rate_per_s=20,
                             duration_ms=70_000, seed=1, consumer={"enable.auto.commit": False},
                             faults=[faults.SlowProcessing("c-2", at_ms=32_500, duration_ms=60_000)]))


@pytest.mark.parametrize("kafka_version,removed_at", [("0.9", 30_009 + 30_000), ("0.10.0", 32_029 + 30_000)])
def test_a_commit_renews_the_session_only_from_0_10_0(kafka_version, removed_at):
    run = commit_then_stall(kafka_version)
    assert coordinator_rows(run, "c-2", ("Heartbeat", "OffsetCommit", "MemberRemoved"), 29_000, 70_000) == [
        (29_029, "OffsetCommit", "NONE", None),
        (30_009, "Heartbeat", "NONE", None),
        (30_029, "OffsetCommit", "NONE", None),
        (31_029, "OffsetCommit", "NONE", None),
        (32_029, "OffsetCommit", "NONE", None),
        (removed_at, "MemberRemoved", None, "session_timeout"),  # session.timeout.ms 30000 in both
    ]


@pytest.mark.parametrize("kafka_version,expires_at", [("0.9", 1_000 + 10_000), ("0.9.0.1", 1_000 + 10_000),
                                                      ("0.10.0", 3_000 + 10_000)])
def test_coordinator_commit_keeps_a_member_alive_from_0_10_0(kafka_version, expires_at):
    sim, coord = new_coordinator(kafka_version=kafka_version)
    member = join(coord, require_known_member_id=False)  # JoinGroup v0: one step
    sim.advance(0)
    coord.sync_group("g", member.member_id, 1, {member.member_id: b""})
    sim.advance(1_000)
    assert coord.heartbeat("g", member.member_id, 1).error is Errors.NONE
    sim.advance(2_000)
    assert coord.commit_offsets("g", member.member_id, 1, {("t", 0): 5}).error is Errors.NONE
    sim.advance(expires_at - sim.now - 1)
    assert coord.member_ids("g") == [member.member_id]
    sim.advance(1)
    assert coord.member_ids("g") == []
    assert [r[0] for r in sim.events.rows if r[4] == "MemberRemoved"] == [expires_at]


# -- 2. cooperative-sticky listed first in an eager group ---------------------------------------
def scale_out(strategy: list[str], one_process: bool = True):
    """Three consumers on six partitions (Kafka 3.7); c-4 starts at 60 s. In one process (numbered
    client ids, so the members sort as c-1, c-2, c-3, c-4), unless `one_process` is False."""
    return simulate(Scenario(members=3, topics={"orders": 6}, produce_rate_per_s=60, duration_ms=100_000, seed=1,
                             consumer={"partition.assignment.strategy": strategy}, one_process=one_process,
                             faults=[faults.ScaleOut(at_ms=60_000)]))


def test_cooperative_sticky_first_with_range_is_eager_and_assigns_every_partition_at_once():
    run = scale_out(["cooperative-sticky", "range"])
    chosen = [(r[0], r[9]) for r in run.rows if r[4] == "GenerationStabilized"]
    assert chosen == [(6_009, "cooperative-sticky"), (60_009, "cooperative-sticky")]  # the members' first choice
    assert [r[0] for r in run.rows if r[4] == "RebalanceStarted" and r[0] >= 60_000] == [60_000]  # one rebalance
    revoked = [(c, t, p) for _, c, kind, t, p, _ in callbacks(run, 60_000, 60_009) if kind == "PartitionsRevoked"]
    assert revoked == [("c-2", "orders", 1), ("c-2", "orders", 4), ("c-1", "orders", 0), ("c-1", "orders", 3),
                       ("c-3", "orders", 2), ("c-3", "orders", 5)]  # eager: everything, before JoinGroup
    assigned = [(t, c, p) for t, c, kind, _, p, _ in callbacks(run, 60_000, 100_000) if kind == "PartitionsAssigned"]
    # No partition owned in the subscriptions: the assignor deals all six, none is held back.
    assert assigned == [(60_009, "c-2", 1), (60_009, "c-2", 5), (60_009, "c-1", 0), (60_009, "c-1", 4),
                        (60_009, "c-3", 2), (60_009, "c-4", 3)]


def test_cooperative_sticky_alone_is_cooperative_and_hands_over_in_a_second_rebalance():
    run = scale_out(["cooperative-sticky"])
    assert [r[0] for r in run.rows if r[4] == "RebalanceStarted" and r[0] >= 60_000] == [60_000, 60_049]
    moves = [(t, c, kind, p) for t, c, kind, _, p, _ in callbacks(run, 60_000, 100_000) if p is not None]
    assert moves == [(60_009, "c-3", "PartitionsRevoked", 5), (63_009, "c-4", "PartitionsAssigned", 5)]


# -- 3. the first join's revoke callback ---------------------------------------------------------
FIRST_JOINS = [(9, "c-2", "PartitionsRevoked", None, None, 0), (34, "c-1", "PartitionsRevoked", None, None, 0),
               (871, "c-3", "PartitionsRevoked", None, None, 0), (20_000, "c-4", "PartitionsRevoked", None, None, 0)]


@pytest.mark.parametrize("kafka_version,at_first_join", [("2.3", FIRST_JOINS), ("2.4", []), ("3.7", [])])
def test_no_revoke_callback_at_the_first_join_from_2_4(kafka_version, at_first_join):
    """Two partitions, three consumers (c-3 owns nothing); c-4 joins at 20 s. An eager member with
    a generation always calls onPartitionsRevoked, even with nothing (c-3 at 21.009 s); a member's
    first join calls it (with nothing) only up to 2.3."""
    run = simulate(Scenario(kafka_version=kafka_version, members=3, topics={"orders": 2}, produce_rate_per_s=20,
                            duration_ms=30_000, seed=1, consumer={"partition.assignment.strategy": ["range"]},
                            faults=[faults.ScaleOut(at_ms=20_000)], one_process=True))  # members sort c-1 .. c-4
    generation_1 = [(6_009, "c-2", "PartitionsAssigned", "orders", 1, None),
                    (6_009, "c-1", "PartitionsAssigned", "orders", 0, None),
                    (6_009, "c-3", "PartitionsAssigned", None, None, 0)]
    generation_2 = [(21_009, "c-2", "PartitionsRevoked", "orders", 1, None),
                    (21_009, "c-1", "PartitionsRevoked", "orders", 0, None),
                    (21_009, "c-3", "PartitionsRevoked", None, None, 0),
                    (21_009, "c-2", "PartitionsAssigned", "orders", 1, None),
                    (21_009, "c-1", "PartitionsAssigned", "orders", 0, None),
                    (21_009, "c-3", "PartitionsAssigned", None, None, 0),
                    (21_009, "c-4", "PartitionsAssigned", None, None, 0)]
    assert callbacks(run, 0, 30_000) == sorted(at_first_join + generation_1 + generation_2, key=lambda row: row[0])


# -- 4. which owned partitions a sticky member keeps ----------------------------------------------
TWO_TOPICS = {"orders": 3, "payments": 3}


@pytest.mark.parametrize("kafka_version,keeps", [
    ("3.7", [("orders", 0), ("orders", 1), ("orders", 2)]),       # as reported: topic, then partition
    ("3.8", [("orders", 0), ("payments", 0), ("orders", 1)]),     # KAFKA-16277: partition, then topic
])
def test_assignor_keeps_the_first_owned_partitions_in_the_version_order(kafka_version, keeps):
    owned = owned_partitions([(t, p) for t in TWO_TOPICS for p in range(3)])
    subs = {"A": Subscription(tuple(TWO_TOPICS), tuple(owned), 1), "B": Subscription(tuple(TWO_TOPICS))}
    for assignor in ("sticky", "cooperative-sticky"):
        assert assign(assignor, TWO_TOPICS, subs, kafka_version=kafka_version)["A"] == keeps
    assert assign("sticky", TWO_TOPICS, subs)["A"] == assign("sticky", TWO_TOPICS, subs, kafka_version="3.8")["A"]


def test_what_the_members_report_in_kafkas_serialised_order():
    tps = [("payments", 1), ("orders", 2), ("payments", 0), ("orders", 0)]
    assert owned_partitions(tps) == [("orders", 0), ("orders", 2), ("payments", 0), ("payments", 1)]
    # java.util.HashMap order of the topics ("payments" before "orders"), partitions as received.
    assert sticky_user_data(tps) == [("payments", 1), ("payments", 0), ("orders", 2), ("orders", 0)]


def one_then_two(kafka_version: str, assignor: str):
    """c-1 owns all six partitions of two topics; c-2 starts at 20 s and takes three."""
    return simulate(Scenario(kafka_version=kafka_version, members=1, topics=TWO_TOPICS, produce_rate_per_s=30,
                             duration_ms=40_000, seed=1, consumer={"partition.assignment.strategy": [assignor]},
                             faults=[faults.ScaleOut(at_ms=20_000)]))


@pytest.mark.parametrize("kafka_version,c2", [
    ("3.7", [("orders", 0), ("orders", 1), ("orders", 2)]),       # c-1's userData lists payments first
    ("3.8", [("orders", 2), ("payments", 1), ("payments", 2)]),
])
def test_eager_sticky_keeps_the_owned_partitions_in_the_version_order(kafka_version, c2):
    run = one_then_two(kafka_version, "sticky")
    assigned = [(c, t, p) for when, c, kind, t, p, _ in callbacks(run, 20_000, 40_000)
                if kind == "PartitionsAssigned" and when == 21_034]
    assert [(t, p) for c, t, p in assigned if c == "c-2"] == c2
    assert len(assigned) == 6


@pytest.mark.parametrize("kafka_version,moved", [
    ("3.7", [("payments", 0), ("payments", 1), ("payments", 2)]),  # ownedPartitions sorted by topic
    ("3.8", [("orders", 2), ("payments", 1), ("payments", 2)]),
])
def test_cooperative_sticky_revokes_the_partitions_past_the_quota_in_the_version_order(kafka_version, moved):
    run = one_then_two(kafka_version, "cooperative-sticky")
    rows = [(when, c, kind, (t, p)) for when, c, kind, t, p, _ in callbacks(run, 20_000, 40_000) if t is not None]
    assert rows == [(21_034, "c-1", "PartitionsRevoked", tp) for tp in moved] + \
        [(24_034, "c-2", "PartitionsAssigned", tp) for tp in moved]


# -- 5. client.id and member ids -------------------------------------------------------------------
def counter():
    numbers = iter(range(1, 100))
    return lambda: next(numbers)


@pytest.mark.parametrize("kafka_version,group,instance,expected", [
    ("0.9", "g", None, ["consumer-1", "consumer-2"]),
    ("2.3", "g", "i", ["consumer-1", "consumer-2"]),
    ("2.4", "g", None, ["consumer-g-1", "consumer-g-2"]),
    ("2.4", "g", "i", ["consumer-g-i", "consumer-g-i"]),   # the counter is not used
    ("2.4", "", None, ["consumer-1", "consumer-2"]),
    ("2.5", "", None, ["consumer--1", "consumer--2"]),
    ("3.7", "g", None, ["consumer-g-1", "consumer-g-2"]),
])
def test_generated_client_id_by_version(kafka_version, group, instance, expected):
    numbers = counter()
    assert [generated_client_id(kafka_version, group, instance, numbers) for _ in expected] == expected


def member_ids(run) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for member_id, name in run.member_names.items():
        out.setdefault(name, []).append(member_id)
    return out


@pytest.mark.parametrize("kafka_version,consumer,static,one_process,client_ids,prefixes", [
    # each consumer its own process: the first number of its own JVM's counter
    ("2.3", {}, False, False, ["consumer-1", "consumer-1"], ["consumer-1", "consumer-1"]),
    ("2.4", {}, False, False, ["consumer-workbook-group-1"] * 2, ["consumer-workbook-group-1"] * 2),
    ("3.7", {}, False, False, ["consumer-workbook-group-1"] * 2, ["consumer-workbook-group-1"] * 2),
    # one process builds both (c-1 is built first, c-2 starts first)
    ("2.3", {}, False, True, ["consumer-1", "consumer-2"], ["consumer-1", "consumer-2"]),
    ("3.7", {}, False, True, ["consumer-workbook-group-1", "consumer-workbook-group-2"],
     ["consumer-workbook-group-1", "consumer-workbook-group-2"]),
    ("3.7", {"client.id": "billing"}, False, False, ["billing", "billing"], ["billing", "billing"]),
    ("3.7", {}, True, False, ["consumer-workbook-group-c-1", "consumer-workbook-group-c-2"], ["c-1", "c-2"]),
    ("3.7", {"client.id": "billing"}, True, False, ["billing", "billing"], ["c-1", "c-2"]),  # <instance id>-<UUID>
])
def test_member_ids_start_with_the_client_id(kafka_version, consumer, static, one_process, client_ids, prefixes):
    run = simulate(Scenario(kafka_version=kafka_version, members=2, topics={"orders": 2}, duration_ms=10_000, seed=1,
                            consumer=consumer, static_membership=static, one_process=one_process))
    # The first JoinGroup, sent without a member id, names the client.id (c-2 starts first).
    assert [r[3] for r in run.rows if r[4] == "JoinGroup" and not re.search(UUID, r[3])] == client_ids[::-1]
    ids = member_ids(run)
    for name, prefix in zip(("c-1", "c-2"), prefixes):
        assert len(ids[name]) == 1 and re.fullmatch(f"{re.escape(prefix)}-{UUID}", ids[name][0])


def range_owners(run, time_ms: int) -> dict[str, list[int]]:
    """Who owned which partition of orders at `time_ms` (from the rebalance listener's rows)."""
    owners: dict[int, str] = {}
    for r in run.rows:
        if r[0] > time_ms or r[1] != "consumer" or r[6] is None:
            continue
        if r[4] == "PartitionsAssigned":
            owners[r[7]] = r[3]
        elif owners.get(r[7]) == r[3]:
            del owners[r[7]]
    out: dict[str, list[int]] = {}
    for p, name in sorted(owners.items()):
        out.setdefault(name, []).append(p)
    return out


def restart_c1(consumer: dict, one_process: bool = False, kafka_version: str = "3.7", seed: int = 4):
    return simulate(Scenario(kafka_version=kafka_version, members=3, topics={"orders": 6}, produce_rate_per_s=60,
                             duration_ms=80_000, seed=seed, one_process=one_process,
                             consumer={"partition.assignment.strategy": ["range"], **consumer},
                             faults=[faults.Restart("c-1", at_ms=40_000, delay_ms=10_000, graceful=True)]))


def sorted_names(run, member_ids) -> list[str]:
    """The consumers of `member_ids` in the order range sorts them (member id)."""
    return [run.member_names[m] for m in sorted(member_ids)]


def test_range_order_follows_the_member_ids_so_a_restart_with_a_shared_client_id_reshuffles():
    run = restart_c1({"client.id": "billing"})
    ids = {name: sorted(ids_of(run, name), key=lambda m: next(r[0] for r in run.rows if r[3] == m))
           for name in ("c-1", "c-2", "c-3")}
    (old, new), [c2], [c3] = ids["c-1"], ids["c-2"], ids["c-3"]
    assert sorted_names(run, [old, c2, c3]) == ["c-1", "c-2", "c-3"]
    assert range_owners(run, 39_000) == {"c-1": [0, 1], "c-2": [2, 3], "c-3": [4, 5]}
    assert sorted_names(run, [new, c2, c3]) == ["c-2", "c-3", "c-1"]  # its new UUID sorts last
    assert range_owners(run, 79_000) == {"c-2": [0, 1], "c-3": [2, 3], "c-1": [4, 5]}


def test_in_one_process_generated_client_ids_keep_a_restarted_member_in_its_place():
    run = restart_c1({}, one_process=True)
    assert range_owners(run, 39_000) == range_owners(run, 79_000) == {"c-1": [0, 1], "c-2": [2, 3], "c-3": [4, 5]}
    assert all(m.startswith("consumer-workbook-group-1-") for m in ids_of(run, "c-1"))
    assert len(ids_of(run, "c-1")) == 2


def dealt_by_range(run, member_ids) -> dict[str, list[int]]:
    """RangeAssignor on orders' six partitions over three members sorted by member id: two each, in order."""
    return {name: [2 * i, 2 * i + 1] for i, name in enumerate(sorted_names(run, member_ids))}


@pytest.mark.parametrize("kafka_version,client_id", [("2.3", "consumer-1"), ("2.4", "consumer-workbook-group-1")])
def test_each_process_generates_the_same_client_id_so_the_uuids_alone_order_the_members(kafka_version, client_id):
    """Each consumer is its own JVM, whose counter starts at 1: every member id is the same client.id
    plus a UUID, so range deals the partitions in the order of the UUIDs, and a restarted member, with
    a new UUID, may take another place (as with a client.id set to one value for all)."""
    for seed in (4, 5, 6):
        run = restart_c1({}, kafka_version=kafka_version, seed=seed)
        ids = {name: sorted(ids_of(run, name), key=lambda m: next(r[0] for r in run.rows if r[3] == m))
               for name in ("c-1", "c-2", "c-3")}
        assert all(re.fullmatch(f"{client_id}-{UUID}", m) for group in ids.values() for m in group)
        (old, new), [c2], [c3] = ids["c-1"], ids["c-2"], ids["c-3"]
        assert range_owners(run, 39_000) == dealt_by_range(run, [old, c2, c3])
        assert range_owners(run, 79_000) == dealt_by_range(run, [new, c2, c3])


@pytest.mark.parametrize("one_process", [False, True])
def test_charts_name_consumers_not_client_ids(one_process):
    run = scale_out(["range"], one_process=one_process)
    messages = protocol.messages(run)
    assert set(messages["member"]) == {"coordinator", "c-1", "c-2", "c-3", "c-4"}
    # c-4's first JoinGroup, sent before it had a member id, names its client.id: shared by all four
    # consumers (each its own process) or c-4's own (the fourth consumer of one process)
    client_id = "consumer-workbook-group-4" if one_process else "consumer-workbook-group-1"
    first, second = messages[(messages["time"] == 60_000) & (messages["kind"] == "request")][
        ["member", "label", "detail"]].values.tolist()
    assert first == ["c-4", "JoinGroup", f"member id {client_id}, generation 1"]
    assert second[:2] == ["c-4", "JoinGroup"] and re.fullmatch(f"member id {client_id}-{UUID}, generation 1", second[2])
    assert tables.member_name(run, client_id) == ("c-4" if one_process else client_id)
    shared = simulate(Scenario(members=2, topics={"orders": 2}, duration_ms=10_000, consumer={"client.id": "app"}))
    assert shared.client_names == {}  # "app" names no one consumer
