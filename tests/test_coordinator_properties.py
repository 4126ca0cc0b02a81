"""Random request sequences against the coordinator: it never crashes, the generation never
decreases, there is at most one leader, and a completed join never leaves more members than
`group.max.size`. Internal bookkeeping is checked against its definition after every step."""

from hypothesis import given, settings, strategies as st

from kafkasim import Simulation
from kafkasim.coordinator import GroupCoordinator
from kafkasim.coordinator.classic.group import COMPLETING, STABLE

GROUP = "g"

operation = st.one_of(
    st.tuples(st.just("join_new"), st.integers(0, 5), st.booleans(), st.booleans()),
    st.tuples(st.just("join_known"), st.integers(0, 30), st.sampled_from([b"", b"x"])),
    st.tuples(st.just("sync"), st.integers(0, 30), st.integers(-1, 1)),
    st.tuples(st.just("heartbeat"), st.integers(0, 30), st.integers(-1, 1)),
    st.tuples(st.just("commit"), st.integers(0, 30), st.integers(-1, 1)),
    st.tuples(st.just("leave"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("advance"), st.integers(0, 20_000)),
    st.tuples(st.just("prepare"),),
)


def _check_invariants(coord: GroupCoordinator, last_generation: int) -> int:
    group = coord.groups.get(GROUP)
    if group is None:
        return last_generation
    assert group.generation_id >= last_generation, "generation decreased"
    members = group.members
    if members:
        assert group.leader_id in members, "leader must be a member"
    else:
        assert group.leader_id is None
    if group.state in (COMPLETING, STABLE):
        assert len(members) <= coord.max_size, "completed join exceeds group.max.size"
    assert group.num_awaiting_join == sum(m.awaiting_join is not None for m in members.values())
    assert group.pending_sync <= set(members)
    assert not (set(group.pending_join) & set(members)), "a pending id is never a member"
    assert {i: m for i, m in group.static_members.items()} == {
        m.instance_id: mid for mid, m in members.items() if m.instance_id is not None}
    for name, count in group.supported_protocols.items():
        assert count == sum(any(p == name for p, _ in m.protocols) for m in members.values())
    return group.generation_id


@settings(max_examples=300, deadline=None)
@given(ops=st.lists(operation, max_size=60), max_size=st.integers(1, 4), delay=st.sampled_from([0, 3000]),
       seed=st.integers(0, 3))
def test_random_request_sequences_keep_coordinator_invariants(ops, max_size, delay, seed):
    sim = Simulation(seed=seed)
    coord = GroupCoordinator(sim, group_max_size=max_size, group_initial_rebalance_delay_ms=delay)
    ids: list[str] = []  # every member id the coordinator ever handed out, in order
    generation = 0

    def pick(i):
        return ids[i % len(ids)] if ids else "unknown"

    def remember(resp):
        if resp.member_id and resp.member_id not in ids:
            ids.append(resp.member_id)

    for op in ops:
        kind = op[0]
        if kind == "join_new":
            _, client, static, two_step = op
            r = coord.join_group(GROUP, "", f"inst-{client}" if static else None, 10_000, 20_000, "consumer",
                                 [("range", b"")], require_known_member_id=two_step, client_id=f"c{client}",
                                 callback=remember)
            remember(r)
        elif kind == "join_known":
            remember(coord.join_group(GROUP, pick(op[1]), None, 10_000, 20_000, "consumer", [("range", op[2])],
                                      callback=remember))
        elif kind == "sync":
            gen = coord.generation_id(GROUP) + op[2] if GROUP in coord.groups else 0
            assignments = {m: b"a" for m in coord.member_ids(GROUP)} if GROUP in coord.groups else {}
            coord.sync_group(GROUP, pick(op[1]), gen, assignments)
        elif kind == "heartbeat":
            gen = coord.generation_id(GROUP) + op[2] if GROUP in coord.groups else 0
            coord.heartbeat(GROUP, pick(op[1]), gen)
        elif kind == "commit":
            gen = coord.generation_id(GROUP) + op[2] if GROUP in coord.groups else -1
            coord.commit_offsets(GROUP, pick(op[1]) if gen >= 0 else "", gen, {0: 1})
        elif kind == "leave":
            target = pick(op[1])
            coord.leave_group(GROUP, [target, "unknown"] if op[2] else [target])
        elif kind == "advance":
            sim.advance(op[1])
        elif kind == "prepare" and GROUP in coord.groups:
            coord.prepare_rebalance(GROUP, reason="property test")
        generation = _check_invariants(coord, generation)

    # Leaders named in completed JoinGroup responses of one generation agree.
    leaders_by_generation: dict[int, set] = {}
    for row in sim.events.rows:
        if row[4] == "GenerationStabilized":
            leaders_by_generation.setdefault(row[5], set()).add(row[3])
    assert all(len(v) == 1 for v in leaders_by_generation.values())
    # The generation in the event log never decreases either.
    gens = [row[5] for row in sim.events.rows if row[0] is not None and row[5] is not None and row[1] == "coordinator"
            and row[4] in ("GenerationStabilized", "GroupEmpty", "RebalanceStarted")]
    assert gens == sorted(gens)
