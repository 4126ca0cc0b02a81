"""Online and offline migration between classic and consumer groups (KIP-848), on the request
API: the conversions of `GroupMetadataManager` (`convertToConsumerGroup`, `convertToClassicGroup`,
`validateOnlineUpgrade`, `validateOnlineDowngradeWithFencedMembers`), classic members inside a
consumer group (`classicGroup{Join,Sync,Heartbeat,Leave}ToConsumerGroup`), the policies of
`ConsumerGroupMigrationPolicy`, and rolling upgrades and downgrades of whole scenarios. Rules are
those of the 4.0.0 tag unless a test names another.
"""

from __future__ import annotations

import pytest

from kafkasim import ConfigError, Errors, GroupCoordinator, Scenario, Simulation, simulate
from kafkasim.analysis.logs import parse_lines
from kafkasim.core.embedded_protocol import decode_assignment, encode, encode_assignment
from kafkasim.core.faults import Restart, rolling_restart

TOPICS = {"foo": 4}
LOG_PREFIX = "[GroupCoordinator id=0 topic=__consumer_offsets partition="


def subscription(owned=(), generation=-1, topics=("foo",)):
    return encode({"topics": list(topics), "generation": generation, "owned": [list(tp) for tp in owned]})


class Group:
    """One coordinator, one group id "g", and short hands for the requests of its members."""

    def __init__(self, version="4.0", **config):
        self.sim = Simulation(seed=0)
        config.setdefault("group_initial_rebalance_delay_ms", 0)
        self.coord = GroupCoordinator(self.sim, kafka_version=version, topics=dict(TOPICS), **config)

    # classic members
    def join(self, member_id="", owned=(), generation=-1, client="client", protocols=("cooperative-sticky",),
             protocol_type="consumer", instance_id=None, session_ms=10000, rebalance_ms=60000):
        data = subscription(owned, generation)
        return self.coord.join_group("g", member_id, instance_id, session_ms, rebalance_ms, protocol_type,
                                     [(p, data) for p in protocols], client_id=client)

    def sync(self, member_id, generation, assignments=None):
        return self.coord.sync_group("g", member_id, generation, assignments)

    def heartbeat(self, member_id, generation):
        return self.coord.heartbeat("g", member_id, generation).error

    # consumer-protocol members
    def cg_join(self, member_id):
        return self.coord.consumer_group_heartbeat("g", member_id=member_id, member_epoch=0, rebalance_timeout_ms=60000,
                                                   subscribed_topic_names=["foo"], owned_partitions={})

    def cg_heartbeat(self, member_id, epoch, owned):
        return self.coord.consumer_group_heartbeat("g", member_id=member_id, member_epoch=epoch,
                                                   owned_partitions={"foo": list(owned)})

    def events(self, *kinds):
        return [(r[0], r[3], r[4], r[5], r[8], r[9]) for r in self.sim.events.rows if r[4] in kinds]

    def log(self):
        return [line.split("] ", 2)[-1].rsplit(" (org.apache", 1)[0] for line in self.coord.broker_log]

    def stable_classic(self):
        """Two classic members a and b, Stable at generation 1: a owns foo-0,1 and b foo-2,3."""
        a = self.join(client="a").member_id
        b = self.join(client="b").member_id
        self.join(a)
        self.join(b)
        self.sim.advance(0)  # the initial delay (0 ms here) ends: generation 1
        plan = {a: encode_assignment({"foo": [0, 1]}), b: encode_assignment({"foo": [2, 3]})}
        assert self.sync(a, 1, plan).error is Errors.NONE and self.sync(b, 1).error is Errors.NONE
        assert self.coord.group_state("g") == "Stable" and self.coord.generation_id("g") == 1
        return a, b


# -- offline conversions: empty groups, whatever the policy ------------------------------------
@pytest.mark.parametrize("policy", ["bidirectional", "disabled"])
def test_empty_classic_group_becomes_a_consumer_group_and_keeps_its_offsets(policy):
    g = Group(group_consumer_migration_policy=policy)
    g.coord.commit_offsets("g", "", -1, {("foo", 0): 42})  # an admin commit: an empty classic group holds them
    assert g.coord.group_type("g") == "classic" and g.coord.group_state("g") == "Empty"
    r = g.cg_join("m1")
    assert r.error is Errors.NONE and r.member_epoch == 1 and r.assignment == {"foo": [0, 1, 2, 3]}
    assert g.coord.group_type("g") == "consumer" and g.coord.committed("g") == {("foo", 0): 42}
    assert g.events("GroupConverted") == [(0, None, "GroupConverted", 0, None, "offline_upgrade")]
    assert g.log()[0] == "[GroupId g] Converted the empty classic group to a consumer group."


def test_empty_consumer_group_becomes_a_classic_group_at_a_join():
    g = Group()
    g.cg_join("m1")
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert g.coord.group_state("g") == "Empty"
    r = g.join(client="a")
    assert r.error is Errors.MEMBER_ID_REQUIRED and r.member_id.startswith("a-")  # the classic protocol's own id
    assert g.coord.group_type("g") == "classic"
    assert "[GroupId g] Converted the empty consumer group to a classic group." in g.log()
    assert g.events("GroupConverted")[-1][5] == "offline_downgrade"


def test_an_empty_consumer_group_converted_at_a_join_starts_a_classic_group_at_generation_0():
    """GroupMetadataManager.classicGroupJoin: the empty consumer group (group epoch 2 after m1 joined
    and left) is deleted and a new ClassicGroup created, whose generationId starts at 0; the
    conversion's row carries that generation, not the consumer group's epoch."""
    g = Group()
    g.cg_join("m1")
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    g.join(client="a")
    assert g.events("GroupConverted") == [(0, None, "GroupConverted", 0, None, "offline_downgrade")]


# -- online upgrade (`convertToConsumerGroup`) ---------------------------------------------------
def test_online_upgrade_keeps_the_classic_members_at_their_generation_then_reconciles_them():
    g = Group()
    a, b = g.stable_classic()
    r = g.cg_join("m1")
    # The consumer group starts at epoch = target epoch = generation 1; m1's join bumps it to 2.
    # The uniform assignor is sticky: a keeps foo-0,1, b gives foo-3 to m1, which must wait for it.
    assert (r.error, r.member_epoch, r.assignment) == (Errors.NONE, 2, {})
    assert g.coord.group_type("g") == "consumer" and g.coord.group_epoch("g") == 2
    assert g.coord.target_assignment("g") == {a: {"foo": [0, 1]}, b: {"foo": [2]}, "m1": {"foo": [3]}}
    assert [(m, g.coord.member_epoch("g", m), g.coord.member_state("g", m)) for m in (a, b)] == \
        [(a, 1, "STABLE"), (b, 1, "STABLE")]
    assert g.log()[-4:] == ["[GroupId g] Converted the classic group to a consumer group.",
                            "[GroupId g] Member m1 joins the consumer group using the consumer protocol.",
                            "[GroupId g] Bumped group epoch to 2.",
                            "[GroupId g] Computed a new target assignment for epoch 2 with 'uniform' assignor in 0ms."]
    # The classic members learn of it through their heartbeat, and rejoin (KIP-429 cooperative).
    assert g.heartbeat(a, 1) is Errors.REBALANCE_IN_PROGRESS and g.heartbeat(b, 1) is Errors.REBALANCE_IN_PROGRESS
    ja = g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1)   # nothing to give up: on to epoch 2
    assert (ja.error, ja.generation_id, ja.leader_id, ja.members) == (Errors.NONE, 2, "", [])
    assert g.coord.member_state("g", a) == "STABLE"
    jb = g.join(b, owned=[("foo", 2), ("foo", 3)], generation=1)
    assert (jb.generation_id, g.coord.member_state("g", b)) == (1, "UNREVOKED_PARTITIONS")
    assert g.coord.partitions_pending_revocation("g", b) == {"foo": [3]}
    assert decode_assignment(g.sync(b, 1).assignment) == {"foo": [2]}  # b revokes foo-3 and rejoins
    jb = g.join(b, owned=[("foo", 2)], generation=1)
    assert (jb.generation_id, g.coord.member_state("g", b)) == (2, "STABLE")
    # foo-3 is free now: m1 gets it at its next heartbeat, and the group is Stable.
    r = g.cg_heartbeat("m1", 2, [])
    assert r.assignment == {"foo": [3]} and g.coord.group_state("g") == "Stable"
    assert g.heartbeat(a, 2) is Errors.NONE and g.heartbeat(b, 2) is Errors.NONE


def test_an_eager_classic_member_revokes_everything_at_each_rejoin():
    """An eager client sends no owned partitions (it revoked them before rejoining), so its
    pending revocation is done at once and it moves to the new epoch with what it keeps."""
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    jb = g.join(b, owned=(), generation=1, protocols=("range", "cooperative-sticky"))
    assert (jb.error, jb.generation_id, jb.protocol_name, g.coord.member_state("g", b)) == \
        (Errors.NONE, 2, "range", "STABLE")
    assert decode_assignment(g.sync(b, 2).assignment) == {"foo": [2]}
    # a protocol no classic member in the group supports is refused
    assert g.join(client="x", protocols=("roundrobin",)).error is Errors.INCONSISTENT_GROUP_PROTOCOL


@pytest.mark.parametrize("policy, config, cause, line", [
    ("disabled", {}, "upgrade_disabled",
     "Cannot upgrade classic group g to consumer group because online upgrade is disabled."),
    ("downgrade", {}, "upgrade_disabled",
     "Cannot upgrade classic group g to consumer group because online upgrade is disabled."),
    ("upgrade", {"group_consumer_max_size": 1}, "upgrade_group_too_large",
     "Cannot upgrade classic group g to consumer group because the group size exceeds the consumer group maximum "
     "size."),
])
def test_a_refused_upgrade_answers_group_id_not_found_and_leaves_the_classic_group(policy, config, cause, line):
    g = Group(group_consumer_migration_policy=policy, **config)
    a, b = g.stable_classic()
    r = g.cg_join("m1")
    assert (r.error, r.error_message) == (Errors.GROUP_ID_NOT_FOUND, line)  # the answer says what the log says
    assert g.coord.group_type("g") == "classic" and g.coord.group_state("g") == "Stable"
    assert g.heartbeat(a, 1) is Errors.NONE  # nothing changed for the classic members
    assert g.events("GroupConversionRefused") == [(0, None, "GroupConversionRefused", 1, None, cause)]
    assert g.log()[-1] == line


def test_a_group_of_another_protocol_type_is_not_upgraded():
    g = Group()
    g.join(client="w", protocol_type="connect")
    w = g.coord.member_ids("g")[0] if g.coord.member_ids("g") else None
    assert w is None  # MEMBER_ID_REQUIRED: pending, not a member yet
    first = g.join(client="w", protocol_type="connect").member_id
    g.join(first, protocol_type="connect")
    r = g.cg_join("m1")
    assert r.error is Errors.GROUP_ID_NOT_FOUND
    assert g.events("GroupConversionRefused")[-1][5] == "upgrade_not_consumer_protocol"


def test_policy_defaults_and_refusal_of_a_bad_value():
    assert GroupCoordinator(Simulation(0), kafka_version="4.0").migration.policy == "bidirectional"
    assert GroupCoordinator(Simulation(0), kafka_version="3.8").migration.policy == "disabled"
    assert GroupCoordinator(Simulation(0), kafka_version="4.0",
                            group_consumer_migration_policy="UPGRADE").migration.policy == "upgrade"
    with pytest.raises(ConfigError, match="group.consumer.migration.policy.*BIDIRECTIONAL, UPGRADE, DOWNGRADE, "
                                          "DISABLED"):
        GroupCoordinator(Simulation(0), kafka_version="4.0", group_consumer_migration_policy="sideways")


# -- classic members inside a consumer group ----------------------------------------------------
def test_classic_requests_to_a_consumer_group_check_ids_generations_and_protocols():
    g = Group()
    g.cg_join("m1")
    r = g.join(client="a")
    assert r.error is Errors.MEMBER_ID_REQUIRED and len(r.member_id) == 22  # a Kafka Uuid, not "<client.id>-..."
    assert "[GroupId g] Dynamic member with unknown member id joins the consumer group. Created a new member id " \
           f"{r.member_id} and requesting the member to rejoin with this id." in g.log()
    a = r.member_id
    ja = g.join(a)
    assert (ja.error, ja.generation_id, ja.protocol_name) == (Errors.NONE, 2, "cooperative-sticky")
    assert g.heartbeat(a, 1) is Errors.ILLEGAL_GENERATION
    assert g.heartbeat("nobody", 2) is Errors.UNKNOWN_MEMBER_ID
    assert g.heartbeat("m1", 2) is Errors.UNKNOWN_MEMBER_ID  # m1 speaks the consumer protocol
    assert g.sync(a, 3).error is Errors.ILLEGAL_GENERATION
    assert g.join(client="x", protocols=("range",)).error is Errors.INCONSISTENT_GROUP_PROTOCOL
    # OffsetCommit: a classic member's stale generation is ILLEGAL_GENERATION, a consumer member's STALE_MEMBER_EPOCH
    assert g.coord.commit_offsets("g", a, 1, {("foo", 0): 1}).error is Errors.ILLEGAL_GENERATION
    assert g.coord.commit_offsets("g", "m1", 5, {("foo", 0): 1}).error is Errors.STALE_MEMBER_EPOCH
    assert g.coord.commit_offsets("g", "m1", 1, {("foo", 0): 1}).error is Errors.NONE
    assert g.coord.commit_offsets("g", a, 2, {("foo", 0): 1}).error is Errors.NONE


def test_classic_session_sync_and_join_timers_fence_at_exact_times():
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    g.join(a, session_ms=10000, rebalance_ms=60000)          # t=0: sync timer armed for 60000 ms
    g.sim.advance(9999)
    assert g.heartbeat(a, 2) is Errors.NONE                   # the classic session (10 s) is renewed
    g.sim.advance(10000)                                     # t=19999: no heartbeat since 9999
    fenced = g.events("MemberFenced")
    assert fenced == [(19999, a, "MemberFenced", 2, None, "session_timeout")]
    assert f"[GroupId g] Member {a} fenced from the group because the member session expired." in g.log()

    g = Group()
    g.cg_join("m1")
    b = g.join(client="b").member_id
    g.join(b, session_ms=45000, rebalance_ms=20000)
    for t in range(0, 25000, 3000):
        g.sim.advance(3000 if t else 0)
        g.heartbeat(b, 2)
    assert g.events("MemberFenced") == [(20000, b, "MemberFenced", 2, None, "sync_timeout")]
    assert f"[GroupId g] Member {b} fenced from the group because the member failed to sync within timeout." in g.log()


def test_a_classic_member_that_does_not_rejoin_is_fenced_after_its_rebalance_timeout():
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")                                          # epoch 2: a and b must rejoin
    assert g.heartbeat(a, 1) is Errors.REBALANCE_IN_PROGRESS  # t=0: a's join timer, 60 s
    g.join(b, owned=[("foo", 2)], generation=1)              # b does rejoin, and sync
    g.sync(b, 2)
    for _ in range(24):
        g.sim.advance(2500)
        g.heartbeat(a, 1)                                    # heartbeats alone do not help a
        g.heartbeat(b, 2)
        g.cg_heartbeat("m1", 2, [])
    assert g.events("MemberFenced") == [(60000, a, "MemberFenced", 2, None, "join_timeout")]
    assert f"[GroupId g] Member {a} fenced from the group because the classic member failed to join within the " \
           f"rebalance timeout." in g.log()


# -- online downgrade (`convertToClassicGroup`) --------------------------------------------------
def test_the_last_consumer_member_leaving_turns_the_group_classic_again():
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1)
    g.join(b, owned=[("foo", 2)], generation=1)
    assert g.coord.group_epoch("g") == 2
    g.sim.advance(1000)
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert g.coord.group_type("g") == "classic"
    assert (g.coord.group_state("g"), g.coord.generation_id("g")) == ("PreparingRebalance", 2)
    assert decode_assignment(g.coord.member("g", a).assignment) == {"foo": [0, 1]}   # each holds its target
    assert decode_assignment(g.coord.member("g", b).assignment) == {"foo": [2]}
    assert g.log()[-3:] == [
        "[GroupId g] Member m1 left the consumer group.",
        "Preparing to rebalance group g in state PreparingRebalance with old generation 2 (reason: Downgrade group g "
        "from consumer to classic.).",
        "[GroupId g] Converted the consumer group to a classic group."]
    assert g.events("GroupConverted")[-1] == (1000, None, "GroupConverted", 2, None, "online_downgrade")
    assert g.coord.protocol_name("g") == "cooperative-sticky"  # fromConsumerGroup: setProtocolName(selectProtocol())
    assert g.heartbeat(a, 2) is Errors.REBALANCE_IN_PROGRESS  # the classic rebalance gives foo-3 out again


def test_the_downgrade_reason_names_the_leave_from_4_2():
    g = Group(version="4.2")
    g.stable_classic()
    g.cg_join("m1")
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert "(reason: Downgrade group g from consumer to classic for member leaving.)." in g.log()[-2]


def test_a_refused_downgrade_fences_as_usual():
    g = Group(group_consumer_migration_policy="upgrade")
    a, b = g.stable_classic()
    g.cg_join("m1")
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert g.coord.group_type("g") == "consumer" and g.coord.group_epoch("g") == 3
    assert sorted(g.coord.member_ids("g")) == sorted([a, b])
    assert g.log()[-3:-1] == ["[GroupId g] Member m1 left the consumer group.",
                              "Cannot downgrade consumer group g to classic group because the online downgrade is "
                              "disabled."]
    assert g.events("GroupConversionRefused")[-1][5] == "downgrade_disabled"


def test_a_classic_leave_group_can_trigger_the_downgrade_too():
    """Only classic members left in a consumer group (the downgrade was refused before): a classic
    LeaveGroup is a fence like any other, and converts when the policy allows."""
    g = Group(group_consumer_migration_policy="bidirectional")
    a, b = g.stable_classic()
    g.cg_join("m1")
    g.coord.migration.policy = "upgrade"
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)   # refused: only a and b left
    g.coord.migration.policy = "bidirectional"
    resp = g.coord.leave_group("g", [a], reason="the consumer is being closed")
    assert resp.member_errors == [Errors.NONE]
    assert f"[GroupId g] Dynamic member {a} has left group through explicit `LeaveGroup` request; client reason: " \
           f"the consumer is being closed" in g.log()
    assert g.coord.group_type("g") == "classic" and g.coord.member_ids("g") == [b]


# -- whole scenarios: rolling upgrades and downgrades -------------------------------------------
def rolling(policy, to, start_protocol):
    return Scenario(kafka_version="4.0", members=3, topics={"orders": 6}, duration_ms=150_000, seed=3,
                    consumer={"group.protocol": start_protocol}, broker={"group.consumer.migration.policy": policy},
                    faults=rolling_restart(["c-1", "c-2", "c-3"], 30_000, 30_000, 5_000,
                                           consumer={"group.protocol": to}))


def conversions(run):
    ev = run.events
    rows = ev[ev.kind.isin(["GroupConverted", "GroupConversionRefused"])]
    return list(zip(rows.time, rows.reason))


@pytest.mark.parametrize("policy, expected", [
    ("bidirectional", [(35000, "online_upgrade")]),
    ("upgrade", [(35000, "online_upgrade")]),
    ("downgrade", [(35000, "upgrade_disabled"), (65000, "upgrade_disabled"), (95000, "offline_upgrade")]),
    ("disabled", [(35000, "upgrade_disabled"), (65000, "upgrade_disabled"), (95000, "offline_upgrade")]),
])
def test_rolling_upgrade_under_each_policy(policy, expected):
    run = simulate(rolling(policy, "consumer", "classic"))
    assert conversions(run) == expected
    fatal = run.events[run.events.kind == "Fatal"]
    if expected[0][1] == "online_upgrade":
        assert fatal.empty and run.summary["duplicates"] == 0
    else:  # the upgraded consumers die of GROUP_ID_NOT_FOUND until the classic group is empty
        assert list(zip(fatal.time, fatal.member, fatal.error)) == [
            (35000, "c-1", "GROUP_ID_NOT_FOUND"), (65000, "c-2", "GROUP_ID_NOT_FOUND")]


@pytest.mark.parametrize("policy, expected", [
    ("bidirectional", [(447, "offline_upgrade"), (90429, "online_downgrade")]),
    ("downgrade", [(447, "offline_upgrade"), (90429, "online_downgrade")]),
    ("upgrade", [(447, "offline_upgrade"), (90429, "downgrade_disabled")]),
])
def test_rolling_downgrade_under_each_policy(policy, expected):
    """The last consumer-protocol member (c-3, restarted at 90 s) leaves once its batch is done,
    429 ms later (`AsyncKafkaConsumer.close` runs on the poll thread)."""
    run = simulate(rolling(policy, "classic", "consumer"))
    assert conversions(run) == expected
    assert run.summary["duplicates"] == 0 and run.events[run.events.kind == "Fatal"].empty


def test_restart_into_a_consumer_config_kafka_refuses_is_an_error_at_once():
    with pytest.raises(ConfigError, match="session.timeout.ms cannot be set when group.protocol=CONSUMER"):
        Scenario(kafka_version="4.0", consumer={"session.timeout.ms": 10000},
                 faults=[Restart("c-1", 1000, consumer={"group.protocol": "consumer"})])
    Scenario(kafka_version="4.0", consumer={"session.timeout.ms": 10000},  # None unsets it for the new process
             faults=[Restart("c-1", 1000, consumer={"group.protocol": "consumer", "session.timeout.ms": None})])
    with pytest.raises(ConfigError, match="Restart.consumer must be a dict"):
        Restart("c-1", 1000, consumer="consumer")


@pytest.mark.parametrize("to, start", [("consumer", "classic"), ("classic", "consumer")])
@pytest.mark.parametrize("policy", ["bidirectional", "disabled"])
def test_the_log_parser_reads_every_migration_line_back(policy, to, start):
    """Classic lines, consumer-group lines and conversions interleave in one broker log; the parser
    reads every line and gives back the conversions (and refusals) the coordinator recorded."""
    run = simulate(rolling(policy, to, start))
    result = parse_lines(run.broker_log)
    assert result.unparsed == []
    parsed = [(r[0], r[9]) for r in result.rows if r[4] in ("GroupConverted", "GroupConversionRefused")]
    assert parsed == conversions(run) and parsed


# -- the rows of classic requests to a consumer group (GroupCoordinator's classic side) -------------
CLASSIC_KINDS = ("JoinGroup", "JoinGroupResponse", "SyncGroupResponse", "Heartbeat", "LeaveGroup")


def test_a_classic_members_requests_to_a_consumer_group_row_by_row():
    """Each classic request to a consumer group is written as the classic coordinator writes it:
    the request (JoinGroup with the client's reason, LeaveGroup), the answer with its error, the
    group epoch as generation unless the answer has one, the requester (client id) as reason when
    the answer names another member, and the consumer group's state."""
    g = Group(record_heartbeats=True)
    g.cg_join("m1")
    n = len(g.sim.events.rows)
    first = g.coord.join_group("g", "", None, 10000, 60000, "consumer", [("range", subscription())],
                               client_id="c1", reason="why")
    m = first.member_id
    joined = g.join(m, client="c1", protocols=("range",))
    g.sync(m, 2)
    assert (g.heartbeat(m, 2), g.heartbeat(m, 99)) == (Errors.NONE, Errors.ILLEGAL_GENERATION)
    g.coord.leave_group("g", [(m, None)], reason="bye")
    assert (first.error, joined.error, joined.generation_id) == (Errors.MEMBER_ID_REQUIRED, Errors.NONE, 2)
    rows = [tuple(r) for r in g.sim.events.rows[n:] if r[4] in CLASSIC_KINDS]
    assert rows == [
        (0, "coordinator", "g", "c1", "JoinGroup", 1, None, None, None, "why", None, "Stable"),
        (0, "coordinator", "g", m, "JoinGroupResponse", 1, None, None, "MEMBER_ID_REQUIRED", "c1", None, "Stable"),
        (0, "coordinator", "g", m, "JoinGroup", 1, None, None, None, None, None, "Stable"),
        (0, "coordinator", "g", m, "JoinGroupResponse", 2, None, None, "NONE", None, None, "Reconciling"),
        (0, "coordinator", "g", m, "SyncGroupResponse", 2, None, None, "NONE", None, None, "Reconciling"),
        (0, "coordinator", "g", m, "Heartbeat", 2, None, None, "NONE", None, None, "Reconciling"),
        (0, "coordinator", "g", m, "Heartbeat", 99, None, None, "ILLEGAL_GENERATION", None, None, "Reconciling"),
        (0, "coordinator", "g", m, "LeaveGroup", 2, None, None, None, "bye", None, "Reconciling")]


def test_classic_heartbeats_to_a_consumer_group_write_a_row_only_when_failed_unless_recorded():
    g = Group(record_heartbeats=False)
    g.cg_join("m1")
    m = g.join(g.join(client="c1").member_id, client="c1").member_id
    n = len(g.sim.events.rows)
    assert (g.heartbeat(m, 2), g.heartbeat(m, 7)) == (Errors.NONE, Errors.ILLEGAL_GENERATION)
    assert [(r[3], r[4], r[5], r[8]) for r in g.sim.events.rows[n:]] == [(m, "Heartbeat", 7, "ILLEGAL_GENERATION")]


def test_a_classic_member_in_a_consumer_group_keeps_what_it_joined_with():
    """`classicGroupJoinToConsumerGroup` keeps the classic member's session timeout (JoinGroup's
    default here: 45 s, the consumer's default) and client id; SyncGroup checks its instance id (an
    unknown static member is UNKNOWN_MEMBER_ID); the consumer groups get the broker's session timeout."""
    g = Group(group_consumer_session_timeout_ms=20000)
    g.cg_join("m1")
    joined = g.coord.join_group("g", "", "i-1", protocols=[("range", subscription())], client_id="c9")
    classic = g.coord.consumer_groups.member("g", joined.member_id).classic
    assert (classic.session_timeout_ms, classic.client_id) == (45000, "c9")
    assert g.coord.sync_group("g", joined.member_id, 2, None, "i-2").error is Errors.UNKNOWN_MEMBER_ID
    assert g.coord.sync_group("g", joined.member_id, 2, None, "i-1").error is Errors.NONE
    assert g.coord.consumer_groups.session_timeout_ms == 20000


def test_consumer_protocol_methods_are_the_managers():
    """GroupCoordinator forwards the consumer protocol's methods to its ConsumerGroupManager (built
    here, in the test, because mutation testing switches code on only after import)."""
    from kafkasim.coordinator.group_coordinator import _consumer_protocol
    from kafkasim.coordinator.modern.consumer import ConsumerGroupManager

    g = Group()
    g.cg_join("m1")
    epoch = _consumer_protocol("group_epoch")
    assert (epoch.__name__, epoch.__doc__, epoch.__wrapped__) == (
        "group_epoch", ConsumerGroupManager.group_epoch.__doc__, ConsumerGroupManager.group_epoch)
    assert epoch(g.coord, "g") == 1 and _consumer_protocol("member_ids")(g.coord, "g") == ["m1"]


def test_a_classic_group_that_never_completed_a_generation_cannot_be_upgraded():
    """`ConsumerGroup.fromClassicGroup` reads the group's protocol name with `Optional.get()`: before
    its first generation a classic group has none, the NoSuchElementException escapes
    `convertToConsumerGroup`, and the heartbeat fails (UNKNOWN_SERVER_ERROR); the group stays classic
    and its member's join goes on."""
    g = Group(group_initial_rebalance_delay_ms=3000)
    a = g.join(client="a").member_id
    joining = g.join(a)
    assert g.coord.group_state("g") == "PreparingRebalance" and not joining.done
    lines = len(g.log())
    r = g.cg_join("m1")
    assert (r.error, r.error_message) == (
        Errors.UNKNOWN_SERVER_ERROR, "The server experienced an unexpected error when processing the request.")
    assert g.coord.group_type("g") == "classic" and len(g.log()) == lines
    g.sim.advance(3000)
    assert joining.done and joining.error is Errors.NONE and joining.generation_id == 1


def test_conversions_at_the_size_limit_keep_static_members_static():
    """`validateOnlineUpgrade` refuses only a group larger than group.consumer.max.size (2 classic
    members into a limit of 3 are upgraded), and the downgrade only one larger than group.max.size
    (2 into 2); both keep each member's instance id."""
    g = Group(group_consumer_max_size=3)
    ids = {}
    for client, instance in (("a", "i-a"), ("b", "i-b")):
        ids[instance] = g.coord.join_group("g", "", instance, 10000, 60000, "consumer", [("range", subscription())],
                                           client_id=client).member_id
    g.sim.advance(0)
    assert g.sync(ids["i-a"], 1, {}).error is Errors.NONE and g.sync(ids["i-b"], 1).error is Errors.NONE
    assert g.cg_join("m1").error is Errors.NONE
    assert g.coord.group_type("g") == "consumer"
    assert {i: g.coord.consumer_groups.member("g", m).instance_id for i, m in ids.items()} == {"i-a": "i-a",
                                                                                               "i-b": "i-b"}
    g = Group(group_max_size=2)
    g.cg_join("m1")
    ids = {instance: g.coord.join_group("g", "", instance, 10000, 60000, "consumer", [("range", subscription())],
                                        client_id=client).member_id for client, instance in (("a", "i-a"), ("b", "i-b"))}
    assert g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1).error is Errors.NONE
    assert g.coord.group_type("g") == "classic" and g.log()[-1] == \
        "[GroupId g] Converted the consumer group to a classic group."
    assert g.coord.groups["g"].static_members == ids
    assert {m.member_id: m.instance_id for m in g.coord.groups["g"].members.values()} == {
        m: i for i, m in ids.items()}



def test_an_upgrade_whose_heartbeat_then_finds_the_group_full_leaves_it_classic():
    """A classic group of exactly group.consumer.max.size members passes `validateOnlineUpgrade` (it
    refuses only a larger one), then the heartbeat fails `throwIfConsumerGroupIsFull`:
    GROUP_MAX_SIZE_REACHED. `convertToConsumerGroup` only adds records to the heartbeat's (4.0 to 4.3),
    and a failed heartbeat writes none: the group stays classic, Stable at its generation, its members'
    heartbeats answered as before; the conversion's log line, written as it was made, stays too, and the
    session timers it armed for the consumer group find no such group when they fire."""
    g = Group(group_consumer_max_size=2)
    a, b = g.stable_classic()
    r = g.cg_join("m1")
    assert (r.error, r.error_message) == (Errors.GROUP_MAX_SIZE_REACHED,
                                          "The consumer group has reached its maximum capacity of 2 members.")
    assert (g.coord.group_type("g"), g.coord.group_state("g"), g.coord.generation_id("g")) == ("classic", "Stable", 1)
    assert g.log()[-1] == "[GroupId g] Converted the classic group to a consumer group."
    assert g.events("GroupConverted") == []
    for _ in range(4):  # past the 10 s session the consumer group's timers were armed with
        g.sim.advance(4000)
        assert (g.heartbeat(a, 1), g.heartbeat(b, 1)) == (Errors.NONE, Errors.NONE)
    assert sorted(g.coord.member_ids("g")) == sorted([a, b]) and g.coord.group_type("g") == "classic"
    assert g.coord.consumer_groups.group_state("g") is None and g.events("MemberFenced", "MemberRemoved") == []

def test_a_classic_sync_in_a_consumer_group_checks_its_protocol_type_and_name():
    # classicGroupSyncToConsumerGroup (4.0.0): the SyncGroup's protocol type must be "consumer" and its
    # name one the member joined with (isProtocolTypeAndNameConsistent), else INCONSISTENT_GROUP_PROTOCOL.
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    assert g.join(a).generation_id == 2

    def sync(protocol_type, protocol_name):
        return g.coord.sync_group("g", a, 2, None, protocol_type=protocol_type, protocol_name=protocol_name)
    r = sync("consumer", "cooperative-sticky")
    assert (r.error, r.protocol_type, r.protocol_name) == (Errors.NONE, "consumer", "cooperative-sticky")
    assert sync("consumer", "range").error is Errors.INCONSISTENT_GROUP_PROTOCOL
    assert sync("connect", "cooperative-sticky").error is Errors.INCONSISTENT_GROUP_PROTOCOL


def test_after_a_downgrade_a_member_that_does_not_rejoin_expires_with_its_session():
    # convertToClassicGroup (4.0.0) leaves every converted member without a pending JoinGroup: nothing
    # keeps one alive that does not rejoin (MemberMetadata.shouldKeepAlive is false), so its 10 s session
    # expires and the rebalance completes without it, generation 3 of the one that rejoined.
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1)
    g.join(b, owned=[("foo", 2)], generation=1)
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)   # t=0: downgraded, PreparingRebalance
    g.join(a)                                                                # a rejoins, b never does
    g.sim.advance(10_000)
    assert g.events("MemberRemoved")[-1] == (10_000, b, "MemberRemoved", 2, None, "session_timeout")
    assert g.coord.member_ids("g") == [a] and g.coord.generation_id("g") == 3


def test_after_a_downgrade_a_member_that_heartbeats_but_does_not_rejoin_goes_at_the_rebalance_timeout():
    # The same downgrade, b heartbeating (REBALANCE_IN_PROGRESS) but never rejoining: its session lives,
    # and the rebalance removes it when it times out, 60 s (rebalance.timeout.ms) after it began.
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1)
    g.join(b, owned=[("foo", 2)], generation=1)
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)   # t=0: downgraded, PreparingRebalance
    g.join(a)
    for _ in range(20):
        g.sim.advance(3_000)
        g.heartbeat(b, 2)
    assert g.events("MemberRemoved")[-1] == (60_000, b, "MemberRemoved", 2, None, "rebalance_timeout")
    assert g.coord.member_ids("g") == [a] and g.coord.generation_id("g") == 3


def test_a_consumer_group_commit_answers_every_partition_with_the_requests_error():
    # OffsetMetadataManager.commitOffset (4.0.0): a validation error fails the whole request, and the
    # response carries it on every partition; a valid commit answers NONE on each.
    g = Group()
    g.cg_join("m1")
    stale = g.coord.commit_offsets("g", "m1", 5, {("foo", 0): 1, ("foo", 1): 2})
    assert stale.partition_errors == {("foo", 0): Errors.STALE_MEMBER_EPOCH, ("foo", 1): Errors.STALE_MEMBER_EPOCH}
    ok = g.coord.commit_offsets("g", "m1", 1, {("foo", 0): 1})
    assert ok.partition_errors == {("foo", 0): Errors.NONE}


# -- pinned by mutation testing (issue 29) ------------------------------------------------------------
def test_a_classic_static_member_replacing_a_consumer_member_keeps_its_server_assignor():
    """`classicGroupJoinToConsumerGroup` (v8.0.0): the updated member is built from the one it
    replaces with `maybeUpdateServerAssignorName(Optional.empty())`, a no-op: the replaced static
    member's "range" stays, so the group's next target is still computed with range, not the
    default uniform (the preferred assignor is the one most members name)."""
    g = Group()
    g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, instance_id="i-1", rebalance_timeout_ms=60000,
                                     subscribed_topic_names=["foo"], server_assignor="range", owned_partitions={})
    g.cg_join("m2")
    assert g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=-2, instance_id="i-1").member_epoch == -2
    joined = g.coord.join_group("g", "", "i-1", protocols=[("range", subscription())], client_id="c9")
    assert (joined.error, joined.generation_id) == (Errors.NONE, 2)
    assert g.coord.consumer_groups.member("g", joined.member_id).server_assignor == "range"
    g.cg_join("m3")
    assert g.log()[-1] == "[GroupId g] Computed a new target assignment for epoch 3 with 'range' assignor in 0ms."


def test_a_classic_join_with_a_malformed_subscription_is_an_unexpected_server_error():
    """`deserializeSubscription` throws IllegalStateException ("Malformed embedded consumer protocol
    in subscription deserialization."), which the coordinator answers UNKNOWN_SERVER_ERROR (-1)."""
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    r = g.coord.join_group("g", a, None, protocols=[("cooperative-sticky", b"\x00")], client_id="a")
    assert (r.error, r.error.code, r.member_id) == (Errors.UNKNOWN_SERVER_ERROR, -1, a)
    assert g.coord.member_ids("g") == ["m1"]


def test_a_static_classic_member_is_checked_by_instance_id_in_heartbeat_and_leave():
    """`validateConsumerGroupMember` / `classicGroupLeaveToConsumerGroup` (KIP-345): an instance id
    held by another member id is FENCED_INSTANCE_ID, an unknown one or an unknown member id
    UNKNOWN_MEMBER_ID; a batch leave answers each member and still removes the valid ones."""
    g = Group()
    g.cg_join("m1")
    a = g.join(instance_id="i-a", client="a").member_id
    b = g.join(instance_id="i-b", client="b").member_id
    epoch = g.coord.member_epoch("g", a)  # 2; b's join moved the group to 3: a must rejoin
    assert (epoch, g.coord.heartbeat("g", a, epoch, "i-a").error) == (2, Errors.REBALANCE_IN_PROGRESS)
    assert g.coord.heartbeat("g", a, epoch, "i-b").error is Errors.FENCED_INSTANCE_ID
    assert g.coord.heartbeat("g", a, epoch, "i-z").error is Errors.UNKNOWN_MEMBER_ID
    r = g.coord.leave_group("g", [(a, "i-b"), ("nobody", None), (a, "i-z"), (b, "i-b")])
    assert r.member_errors == [Errors.FENCED_INSTANCE_ID, Errors.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID,
                               Errors.NONE]
    assert sorted(g.coord.member_ids("g")) == sorted(["m1", a])


def test_a_classic_member_that_rejoins_in_time_is_not_fenced_by_its_join_timer():
    """The JoinGroup cancels the join timer armed when the heartbeat answered REBALANCE_IN_PROGRESS
    (`cancelConsumerGroupJoinTimeout`): a rejoins at 1000, syncs, and heartbeats on past 60 s."""
    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    assert g.heartbeat(a, 1) is Errors.REBALANCE_IN_PROGRESS  # t=0: a's join timer, 60 s
    g.sim.advance(1000)
    assert g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1).generation_id == 2
    assert g.sync(a, 2).error is Errors.NONE
    for _ in range(30):
        g.sim.advance(2500)
        g.heartbeat(a, 2)
        g.heartbeat(b, 1)
        g.cg_heartbeat("m1", 2, [])
    assert a in g.coord.member_ids("g") and [e for e in g.events("MemberFenced") if e[1] == a] == []


def test_a_classic_member_waiting_for_partitions_is_told_to_rejoin_once_they_are_free():
    """`classicGroupHeartbeatToConsumerGroup`: a member in UNRELEASED_PARTITIONS gets
    REBALANCE_IN_PROGRESS only when every partition it waits for is released (its rejoin would
    then complete the assignment); while m1 still holds them, NONE."""
    g = Group()
    assert g.cg_join("m1").assignment == {"foo": [0, 1, 2, 3]}
    a = g.join(client="a").member_id
    ja = g.join(a)
    assert (ja.generation_id, g.coord.member_state("g", a)) == (2, "UNRELEASED_PARTITIONS")
    assert g.heartbeat(a, 2) is Errors.NONE
    g.cg_heartbeat("m1", 1, [0, 1, 2, 3])
    assert g.heartbeat(a, 2) is Errors.NONE                    # m1 revokes foo-2,3 but still holds them
    g.cg_heartbeat("m1", 1, [0, 1])
    assert g.heartbeat(a, 2) is Errors.REBALANCE_IN_PROGRESS
    assert decode_assignment(g.sync(a, g.join(a).generation_id).assignment) == {"foo": [2, 3]}


def test_a_classic_member_holding_part_of_its_target_waits_only_for_the_rest():
    """The same rule for a member that already holds some of its target: a holds foo-2,3; m1
    unsubscribes (epoch 3), so a's target is all four. a rejoins holding 2,3 (UNRELEASED_PARTITIONS);
    its heartbeat is NONE while m1 still owns 0,1 and REBALANCE_IN_PROGRESS once m1 released them."""
    g = Group()
    c = g.coord
    g.cg_join("m1")
    a = g.join(client="a").member_id
    g.join(a)
    g.cg_heartbeat("m1", 1, [0, 1, 2, 3])
    g.cg_heartbeat("m1", 1, [0, 1])
    assert g.join(a).generation_id == 2 and c.assigned_partitions("g", a) == {"foo": [2, 3]}
    c.consumer_group_heartbeat("g", member_id="m1", member_epoch=2, subscribed_topic_names=[],
                               owned_partitions={"foo": [0, 1]})
    assert c.target_assignment("g")[a] == {"foo": [0, 1, 2, 3]}
    assert g.heartbeat(a, 2) is Errors.REBALANCE_IN_PROGRESS
    j = g.join(a, owned=[("foo", 2), ("foo", 3)], generation=2)
    assert (j.generation_id, c.member_state("g", a), c.assigned_partitions("g", a)) == \
        (3, "UNRELEASED_PARTITIONS", {"foo": [2, 3]})
    assert g.heartbeat(a, 3) is Errors.NONE
    c.consumer_group_heartbeat("g", member_id="m1", member_epoch=2, owned_partitions={"foo": []})
    assert g.heartbeat(a, 3) is Errors.REBALANCE_IN_PROGRESS


def test_an_upgraded_classic_member_keeps_its_generation_as_both_epochs_and_its_join_fields():
    """`ConsumerGroup.fromClassicGroup`: each classic member becomes a member at the generation
    (member and previous epoch), with its last JoinGroup's client id and session timeout."""
    g = Group()
    a, _ = g.stable_classic()
    g.cg_join("m1")
    member = g.coord.consumer_groups.member("g", a)
    assert (member.member_epoch, member.previous_member_epoch, member.state) == (1, 1, "STABLE")
    # the converted group starts Stable: m1's join moves it on, one StateChanged row from Stable
    assert [(r[9], r[11]) for r in g.sim.events.rows if r[4] == "StateChanged" and r[1] == "coordinator"][-1:] == \
        [("Stable", "Reconciling")]
    assert (member.classic.client_id, member.classic.session_timeout_ms) == ("client", 10000)


def test_a_dynamic_classic_member_rejoining_with_an_instance_id_keeps_its_epoch_and_partitions():
    """`getOrMaybeSubscribeStaticConsumerGroupMember`: an instance id the group does not know is a
    new static member, looked up by its member id (`getOrMaybeCreateMember`): a known member goes
    on from where it is (epoch 2, foo-0,1), not from a fresh member at epoch 0."""
    g = Group()
    a, _ = g.stable_classic()
    g.cg_join("m1")
    assert g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1).generation_id == 2
    joined = g.join(a, owned=[("foo", 0), ("foo", 1)], generation=2, instance_id="i-a")
    assert (joined.error, joined.generation_id) == (Errors.NONE, 2)
    assert g.coord.assigned_partitions("g", a) == {"foo": [0, 1]} and g.coord.group_epoch("g") == 2
    assert g.coord.consumer_groups.member("g", a).instance_id == "i-a"


def test_a_rejoin_restarts_the_sync_timer_and_a_refused_sync_keeps_the_join_timer():
    """`scheduleConsumerGroupSyncTimeout` at each JoinGroup replaces the member's sync timer: a joins
    at 0 and rejoins at 30 s without syncing, so it is fenced at 90 s (rebalance timeout 60 s), not
    60 s. `throwIfRebalanceInProgress` arms the join timer only if none is armed: b told to rejoin
    by its heartbeat at 0, then by its SyncGroup at 30 s (and heartbeats meanwhile), is fenced at 60 s."""
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    g.join(a)
    for t in range(2500, 100000, 2500):
        g.sim.advance(2500)
        if t == 30000:
            g.join(a)
        g.heartbeat(a, 2)
        g.cg_heartbeat("m1", g.coord.member_epoch("g", "m1"), g.coord.assigned_partitions("g", "m1").get("foo", []))
    assert [e[:3] for e in g.events("MemberFenced")] == [(90000, a, "MemberFenced")]

    g = Group()
    a, b = g.stable_classic()
    g.cg_join("m1")
    assert g.heartbeat(b, 1) is Errors.REBALANCE_IN_PROGRESS   # t=0: b's join timer
    g.join(a, owned=[("foo", 0), ("foo", 1)], generation=1)
    g.sync(a, 2)
    for t in range(2500, 60000, 2500):
        g.sim.advance(2500)
        if t == 30000:
            assert g.sync(b, 1).error is Errors.REBALANCE_IN_PROGRESS
        assert g.heartbeat(b, 1) is Errors.REBALANCE_IN_PROGRESS  # its session goes on, its join timer too
        g.heartbeat(a, 2)
        g.cg_heartbeat("m1", 2, [])
    g.sim.advance(2500)
    assert [e[:3] for e in g.events("MemberFenced")] == [(60000, b, "MemberFenced")]


def test_the_managers_classic_join_defaults_are_the_coordinators():
    """`ConsumerGroupManager.classic_join` called without a client id gets "consumer", the default
    of the coordinator's `join_group`, and requires a known member id as JoinGroup v4+ does."""
    g = Group()
    g.cg_join("m1")
    groups = g.coord.consumer_groups
    protocols = [("range", subscription())]
    assert groups.classic_join("g", "", None, 10000, 60000, "consumer", protocols, "new-1").error \
        is Errors.MEMBER_ID_REQUIRED
    assert groups.classic_join("g", "new-1", None, 10000, 60000, "consumer", protocols, "unused").error is Errors.NONE
    assert groups.member("g", "new-1").classic.client_id == "consumer"


def test_a_refused_sync_is_recorded_under_the_member_that_sent_it():
    """A failed SyncGroup's row names the requesting member (the answer carries no other id)."""
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    g.join(a)
    assert g.sync(a, 7).error is Errors.ILLEGAL_GENERATION
    assert [(r[3], r[4], r[8]) for r in g.sim.events.rows if r[4] == "SyncGroupResponse"] == \
        [(a, "SyncGroupResponse", "ILLEGAL_GENERATION")]


def test_each_classic_heartbeat_to_a_consumer_group_is_one_request_of_its_manager():
    g = Group()
    g.cg_join("m1")
    a = g.join(client="a").member_id
    g.join(a)
    before = g.coord.consumer_groups.stats["requests"]
    for _ in range(3):
        g.heartbeat(a, 2)
    assert g.coord.consumer_groups.stats["requests"] - before == 3


def test_an_upgraded_group_has_its_members_subscription_metadata_so_a_regex_matching_nothing_bumps_nothing():
    """`ConsumerGroup.fromClassicGroup` (given the topics image) stores the subscription metadata of
    the classic members' topics ({foo: 4}). m1 joins with a regex that matches no topic: a member
    with no topic names is no subscription change, and the refresh finds the same metadata and an
    empty resolution, so the group stays at epoch 1 (the generation)."""
    g = Group()
    g.stable_classic()
    r = g.coord.consumer_group_heartbeat("g", member_id="m1", member_epoch=0, rebalance_timeout_ms=60000,
                                         subscribed_topic_regex="nothing.*", owned_partitions={})
    assert (r.error, r.member_epoch) == (Errors.NONE, 1)
    g.sim.advance(0)  # the regex refresh
    assert g.coord.group_epoch("g") == 1
    assert g.log()[-1] == "[GroupId g] Scanned 1 topics to refresh regular expressions [nothing.*] in 0ms."


def _classic_round_trip(g: Group, deleted_before: bool) -> str | None:
    """Optionally a consumer group g deleted first; then a classic group g upgraded (m1 joins),
    downgraded (m1 leaves), emptied and deleted: the state the coordinator reports at the end."""
    c = g.coord
    if deleted_before:
        g.cg_join("m0")
        c.consumer_group_heartbeat("g", member_id="m0", member_epoch=-1)
        assert c.delete_groups(["g"]) == {"g": Errors.NONE} and c.group_state("g") == "Dead"
    a, b = g.stable_classic()
    g.cg_join("m1")
    assert c.group_type("g") == "consumer"
    c.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert c.group_type("g") == "classic"
    c.leave_group("g", [a, b])
    assert c.delete_groups(["g"]) == {"g": Errors.NONE}
    return c.group_state("g")


def test_a_group_id_made_a_consumer_group_again_forgets_its_earlier_deletion():
    """The consumer-group side's "deleted" mark of an id goes when a group of that id is converted
    into a consumer group again: after the round trip the id reads as it does for a group never
    deleted before (the classic coordinator's answer for a deleted classic group)."""
    assert _classic_round_trip(Group(), True) == _classic_round_trip(Group(), False)


def _loaded_round_trip(deleted_before: bool) -> str | None:
    """Optionally a consumer group g deleted first; then g loaded (m1, and a classic member a),
    downgraded when m1 leaves, emptied and deleted: the state the coordinator reports at the end."""
    g = Group()
    c = g.coord
    if deleted_before:
        g.cg_join("m0")
        c.consumer_group_heartbeat("g", member_id="m0", member_epoch=-1)
        assert c.delete_groups(["g"]) == {"g": Errors.NONE}
    c.load_consumer_group("g", group_epoch=3, members={
        "m1": {"member_epoch": 3, "subscribed_topic_names": ["foo"], "assigned": {"foo": [0, 1]}},
        "a": {"member_epoch": 3, "subscribed_topic_names": ["foo"], "assigned": {"foo": [2, 3]},
              "rebalance_timeout_ms": 60000,
              "classic": {"session_timeout_ms": 10000, "protocols": [("range", subscription())]}}},
        target_assignment={"m1": {"foo": [0, 1]}, "a": {"foo": [2, 3]}})
    c.consumer_group_heartbeat("g", member_id="m1", member_epoch=-1)
    assert c.group_type("g") == "classic"
    c.leave_group("g", ["a"])
    assert c.delete_groups(["g"]) == {"g": Errors.NONE}
    return c.group_state("g")


def test_a_loaded_group_forgets_an_earlier_deletion_of_its_id():
    """A load (the coordinator reading the group's records) clears the id's "deleted" mark: the same
    downgrade and deletion then end as they do for an id never deleted before."""
    assert _loaded_round_trip(True) == _loaded_round_trip(False)
