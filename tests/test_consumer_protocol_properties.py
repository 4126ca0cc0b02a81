"""Random ConsumerGroupHeartbeat sequences against the consumer protocol (KIP-848) coordinator,
configured as Kafka 4.0, 4.1 or 4.2, with the uniform or the range assignor.

A few simulated clients join, heartbeat (acknowledging or not), change subscriptions, leave
(-1, or -2 when static), lose responses, and the clock jumps so that session and rebalance
timeouts fence them; topics grow; a stranger heartbeats. The clients behave like Kafka's
Java consumer (group.protocol=consumer) where it
matters to the coordinator (`AbstractMembershipManager`, `ConsumerHeartbeatRequestManager`):
they adopt each assignment at once and report it in their next heartbeat; after a lost
response their next heartbeat is a full request; on FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID
they drop their partitions and rejoin with epoch 0 and the same member id; a consumer that
left and comes back is a new process with a new member id.

After every request the coordinator must keep Kafka's invariants:

- the group epoch and the target assignment epoch never go back, and target epoch <= group epoch;
- a member's epoch never goes back while it is in the group (it only starts again, from 0,
  as a new member after leaving or being fenced; -2 is a static member's temporary leave),
  and is never ahead of the target assignment epoch (a client fenced while its member is
  still there rejoins with epoch 0: Kafka 4.0 and 4.1 fence that again until the member's
  session expires, 4.2 accepts it, KAFKA-19233);
- a partition has at most one owner: a member owns its assigned partitions and those pending
  revocation (`ConsumerGroup.currentPartitionEpoch`), and no two members' owned sets overlap;
- what a client believes it owns is owned by its member on the coordinator, so no two live
  clients use the same partition.

And once the requests stop changing (every client heartbeats, acknowledging, every
heartbeat interval), every member converges: the group is Stable, each member is STABLE at
the group epoch with its target assignment, nothing is pending, every partition of a
subscribed topic has an owner, and each client owns exactly what its member is assigned;
and it stays so, at the same group epoch, for longer than a session timeout.

The examples are deterministic: the "ci" hypothesis profile of conftest.py is derandomized
and has no example database.
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kafkasim import Errors, GroupCoordinator, Simulation

KAFKA_VERSIONS = ("4.0.0", "4.1.0", "4.2.0", "4.3.0", "4.3.1", "4.4.0")  # the coordinator rules differ between them
GROUP = "g"
TOPICS = {"foo": 4, "bar": 2}
MAX_PARTITIONS = 6
SUBSCRIPTIONS = ((), ("foo",), ("bar",), ("foo", "bar"))
CLIENTS = 4
HEARTBEAT_INTERVAL = 5000
SESSION_TIMEOUT = 45000
REBALANCE_TIMEOUT = 20000  # the clients' max.poll.interval.ms: shorter than the session

NONE = Errors.NONE


def norm(assignment) -> dict[str, frozenset]:
    return {t: frozenset(ps) for t, ps in (assignment or {}).items() if ps}


def partitions(assignment) -> set[tuple[str, int]]:
    return {(t, p) for t, ps in (assignment or {}).items() for p in ps}


class Client:
    """One consumer process as the coordinator sees it (group.protocol=consumer)."""

    def __init__(self, index: int, static: bool, subscription: tuple[str, ...]):
        self.index = index
        self.static = static
        self.instance_id = f"instance-{index}" if static else None
        self.process = 0
        self.member_id = f"c{index}-p0"
        self.subscription = subscription
        self.epoch = 0  # 0: must (re)join
        self.owned: dict[str, frozenset] = {}
        self.full_next = True

    def new_process(self) -> None:
        self.process += 1
        self.member_id = f"c{self.index}-p{self.process}"
        self.reset()

    def reset(self) -> None:
        """transitionToFenced / leaving: no partitions, epoch 0, next heartbeat full."""
        self.epoch = 0
        self.owned = {}
        self.full_next = True


class World:
    def __init__(self, statics, subscriptions, assignor: str, version: str):
        self.sim = Simulation(seed=0)
        self.coord = GroupCoordinator(self.sim, kafka_version=version, topics=dict(TOPICS))
        self.topics = dict(TOPICS)
        self.assignor = assignor
        self.clients = [Client(i, statics[i], SUBSCRIPTIONS[subscriptions[i]]) for i in range(CLIENTS)]
        self.created = False
        self.last_group_epoch = 0
        self.last_target_epoch = 0
        self.last_member_epoch: dict[str, int] = {}

    # -- requests ----------------------------------------------------------------------
    def send(self, c: Client, epoch: int, *, full: bool, owned=None, names=None):
        fields = dict(member_id=c.member_id, member_epoch=epoch, instance_id=c.instance_id, rack_id=None,
                      rebalance_timeout_ms=-1, subscribed_topic_names=None, server_assignor=None,
                      owned_partitions=None)
        if full:
            fields.update(rebalance_timeout_ms=REBALANCE_TIMEOUT, subscribed_topic_names=list(c.subscription),
                          server_assignor=self.assignor,
                          owned_partitions={t: sorted(ps) for t, ps in c.owned.items()})
        if owned is not None:
            fields["owned_partitions"] = owned
        if names is not None:
            fields["subscribed_topic_names"] = names
        return self.coord.consumer_group_heartbeat(GROUP, **fields)

    def heartbeat(self, c: Client, *, ack: bool, lose: bool = False, names=None) -> None:
        if c.epoch == 0:
            r = self.send(c, 0, full=True, owned={})
            expected = (NONE, Errors.FENCED_MEMBER_EPOCH, Errors.UNRELEASED_INSTANCE_ID)
        else:
            owned = {t: sorted(ps) for t, ps in c.owned.items()} if ack else None
            r = self.send(c, c.epoch, full=c.full_next, owned=owned, names=names)
            expected = (NONE, Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID)
        assert r.error in expected, (c.member_id, r.error, getattr(r, "error_message", None))
        if r.error == NONE:
            self.created = True
        if lose:  # the response never arrives: the client retries with a full request
            c.full_next = True
            return
        if r.error == NONE:
            c.epoch = r.member_epoch
            c.full_next = False
            if r.assignment is not None:
                c.owned = norm(r.assignment)  # revoke what is gone, start what is new: at once
        elif r.error in (Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID):
            c.reset()  # onPartitionsLost, then rejoin with epoch 0 and the same member id
        else:  # UNRELEASED_INSTANCE_ID: still waiting for the old incarnation to go
            c.full_next = True

    def subscribe(self, c: Client, subscription) -> None:
        c.subscription = subscription
        if c.epoch != 0:
            self.heartbeat(c, ack=False, names=list(subscription))

    def leave(self, c: Client, temporary: bool) -> None:
        if c.epoch != 0:
            epoch = -2 if (c.static and temporary) else -1
            r = self.send(c, epoch, full=False)
            assert r.error in (NONE, Errors.UNKNOWN_MEMBER_ID), (c.member_id, r.error)
            if r.error == NONE:
                assert r.member_epoch == epoch
        c.new_process()

    def grow(self, topic: str) -> None:
        if self.topics[topic] < MAX_PARTITIONS:
            self.topics[topic] += 1
            self.coord.create_partitions(topic, self.topics[topic])

    def stale(self, c: Client) -> None:
        """A heartbeat with an epoch the coordinator never gave (ahead of any it gave): fenced,
        and the client starts over."""
        if c.epoch != 0:
            r = self.send(c, c.epoch + 1000, full=True)
            assert r.error in (Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID), (c.member_id, r.error)
            c.reset()

    def bogus(self, epoch: int) -> None:
        r = self.coord.consumer_group_heartbeat(GROUP, member_id="nobody", member_epoch=epoch, instance_id=None,
                                                rack_id=None, rebalance_timeout_ms=-1, subscribed_topic_names=None,
                                                server_assignor=None, owned_partitions=None)
        assert r.error in (Errors.UNKNOWN_MEMBER_ID, Errors.GROUP_ID_NOT_FOUND), r.error

    # -- reading the coordinator ---------------------------------------------------------
    def members(self) -> dict[str, dict]:
        """Every member of the group now, as the coordinator holds it."""
        out = {}
        for mid in self.coord.member_ids(GROUP):
            out[mid] = {
                "epoch": self.coord.member_epoch(GROUP, mid),
                "state": self.coord.member_state(GROUP, mid),
                "assigned": norm(self.coord.assigned_partitions(GROUP, mid)),
                "pending": norm(self.coord.partitions_pending_revocation(GROUP, mid)),
            }
        return out

    def check(self) -> dict[str, dict]:
        if not self.created:
            return {}
        group_epoch = self.coord.group_epoch(GROUP)
        target_epoch = self.coord.target_assignment_epoch(GROUP)
        assert group_epoch >= self.last_group_epoch, "group epoch went back"
        assert target_epoch >= self.last_target_epoch, "target assignment epoch went back"
        assert target_epoch <= group_epoch
        self.last_group_epoch, self.last_target_epoch = group_epoch, target_epoch

        members = self.members()
        for mid in list(self.last_member_epoch):
            if mid not in members:
                del self.last_member_epoch[mid]
        owners: dict[tuple[str, int], str] = {}
        for mid, m in members.items():
            epoch = m["epoch"]
            if epoch == -2:  # a static member's temporary leave
                self.last_member_epoch.pop(mid, None)
            else:
                assert epoch >= self.last_member_epoch.get(mid, 0), f"{mid}: member epoch went back"
                assert epoch <= target_epoch, f"{mid}: epoch {epoch} ahead of the target epoch {target_epoch}"
                self.last_member_epoch[mid] = epoch
            assigned, pending = partitions(m["assigned"]), partitions(m["pending"])
            assert not (assigned & pending), f"{mid}: a partition both assigned and pending revocation"
            for tp in assigned | pending:
                assert tp[1] < self.topics[tp[0]], f"{mid} owns {tp}, which does not exist"
                assert tp not in owners, f"{tp} owned by {owners.get(tp)} and {mid} at once"
                owners[tp] = mid
        for c in self.clients:
            if c.epoch > 0 and c.member_id in members:
                m = members[c.member_id]
                assert partitions(c.owned) <= partitions(m["assigned"]) | partitions(m["pending"]), (
                    f"client {c.member_id} uses partitions its member does not own")
        return members

    # -- quiescence ------------------------------------------------------------------------
    def converged(self) -> bool:
        members = self.check()
        live = {c.member_id: c for c in self.clients}
        if set(members) != set(live) or any(c.epoch <= 0 for c in self.clients):
            return False
        group_epoch = self.coord.group_epoch(GROUP)
        target = {m: norm(a) for m, a in self.coord.target_assignment(GROUP).items()}
        for mid, m in members.items():
            if (m["state"] != "STABLE" or m["epoch"] != group_epoch or m["pending"]
                    or m["assigned"] != target.get(mid, {}) or live[mid].owned != m["assigned"]
                    or live[mid].epoch != m["epoch"]):
                return False
        return self.coord.group_state(GROUP) == "Stable"

    def settle(self, rounds: int = 60) -> None:
        """Requests stop changing: every client heartbeats (acknowledging) every interval."""
        for _ in range(rounds):
            for c in self.clients:
                self.heartbeat(c, ack=True)
                self.check()
            if self.converged():
                break
            self.sim.advance(HEARTBEAT_INTERVAL)
        assert self.converged(), self.members()
        # ... and stays so: steady heartbeats for longer than a session timeout change nothing.
        group_epoch = self.coord.group_epoch(GROUP)
        for _ in range(SESSION_TIMEOUT // HEARTBEAT_INTERVAL + 2):
            self.sim.advance(HEARTBEAT_INTERVAL)
            for c in self.clients:
                self.heartbeat(c, ack=True)
            assert self.converged(), self.members()
            assert self.coord.group_epoch(GROUP) == group_epoch
        # (derived) both built-in assignors give every partition of a subscribed topic an owner
        subscribed = {t for c in self.clients for t in c.subscription}
        owned = set().union(*(partitions(m["assigned"]) for m in self.members().values()))
        assert owned == {(t, p) for t in subscribed for p in range(self.topics[t])}
        assert self.coord.target_assignment_epoch(GROUP) == self.coord.group_epoch(GROUP)


client_index = st.integers(0, CLIENTS - 1)
operation = st.one_of(
    st.tuples(st.just("heartbeat"), client_index, st.booleans()),
    st.tuples(st.just("heartbeat"), client_index, st.booleans()),
    st.tuples(st.just("subscribe"), client_index, st.integers(0, len(SUBSCRIPTIONS) - 1)),
    st.tuples(st.just("leave"), client_index, st.booleans()),
    st.tuples(st.just("lost"), client_index),
    st.tuples(st.just("stale"), client_index),
    st.tuples(st.just("advance"), st.sampled_from([0, 1000, HEARTBEAT_INTERVAL, REBALANCE_TIMEOUT + 1,
                                                   SESSION_TIMEOUT + 1])),
    st.tuples(st.just("grow"), st.sampled_from(sorted(TOPICS))),
    st.tuples(st.just("bogus"), st.integers(1, 5)),
)
world_setup = dict(
    statics=st.lists(st.booleans(), min_size=CLIENTS, max_size=CLIENTS),
    subscriptions=st.lists(st.integers(0, len(SUBSCRIPTIONS) - 1), min_size=CLIENTS, max_size=CLIENTS),
    assignor=st.sampled_from(["uniform", "range"]),
    version=st.sampled_from(KAFKA_VERSIONS),
    ops=st.lists(operation, min_size=20, max_size=60),
)


def run(statics, subscriptions, assignor, version, ops) -> World:
    w = World(statics, subscriptions, assignor, version)
    for op in ops:
        kind = op[0]
        if kind == "heartbeat":
            w.heartbeat(w.clients[op[1]], ack=op[2])
        elif kind == "subscribe":
            w.subscribe(w.clients[op[1]], SUBSCRIPTIONS[op[2]])
        elif kind == "leave":
            w.leave(w.clients[op[1]], temporary=op[2])
        elif kind == "lost":
            c = w.clients[op[1]]
            if c.epoch != 0:
                w.heartbeat(c, ack=True, lose=True)
        elif kind == "stale":
            w.stale(w.clients[op[1]])
        elif kind == "advance":
            w.sim.advance(op[1])
        elif kind == "grow":
            w.grow(op[1])
        elif kind == "bogus":
            w.bogus(op[1])
        w.check()
    return w


@settings(max_examples=150, deadline=None)
@given(**world_setup)
def test_random_heartbeat_sequences_keep_protocol_invariants(statics, subscriptions, assignor, version, ops):
    run(statics, subscriptions, assignor, version, ops)


@settings(max_examples=100, deadline=None)
@given(**world_setup)
def test_every_member_converges_when_requests_stop_changing(statics, subscriptions, assignor, version, ops):
    run(statics, subscriptions, assignor, version, ops).settle()
