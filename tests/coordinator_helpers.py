"""Small drivers for coordinator tests: join, sync and build groups in a few calls."""

from kafkasim import Simulation
from kafkasim.coordinator import GroupCoordinator

SESSION = 10_000
REBALANCE = 60_000


def new_coordinator(seed: int = 0, **config):
    sim = Simulation(seed=seed)
    config.setdefault("group_initial_rebalance_delay_ms", 0)
    return sim, GroupCoordinator(sim, **config)


def join(coord, group="g", member_id="", *, session=SESSION, rebalance=REBALANCE, protocols=(("range", b""),),
         instance=None, **kw):
    return coord.join_group(group, member_id=member_id, group_instance_id=instance, session_timeout_ms=session,
                            rebalance_timeout_ms=rebalance, protocol_type=kw.pop("protocol_type", "consumer"),
                            protocols=list(protocols), **kw)


def two_step_join(coord, group="g", **kw):
    """KIP-394 join: MEMBER_ID_REQUIRED first, then the parked second JoinGroup."""
    first = join(coord, group, **kw)
    if first.error.name != "MEMBER_ID_REQUIRED":
        return first
    return join(coord, group, first.member_id, **kw)


def stable_group(n: int, group="g", seed=0, **config):
    """A Stable group of `n` dynamic members (generation 1). Returns (sim, coord, member ids, leader)."""
    sim, coord = new_coordinator(seed, **config)
    joins = [two_step_join(coord, group) for _ in range(n)]
    sim.advance(0)
    while not all(j.done for j in joins):  # the initial delay may add windows
        assert sim.now < REBALANCE, "join phase did not complete"
        sim.advance(100)
    ids = [j.member_id for j in joins]
    leader = joins[0].leader_id
    for mid in ids:
        if mid != leader:
            coord.sync_group(group, mid, 1)
    coord.sync_group(group, leader, 1, {mid: mid.encode() for mid in ids})
    assert coord.group_state(group) == "Stable"
    return sim, coord, ids, leader
