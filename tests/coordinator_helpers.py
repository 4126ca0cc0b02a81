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


def glance_share_coordinator(sim):
    """The share-groups design's "At a glance" block (issue 28): a 4.2 coordinator with the share
    configs as the block spells them out, topic foo of 3 partitions."""
    return GroupCoordinator(sim, kafka_version="4.2", topics={"foo": 3},
                            group_share_session_timeout_ms=45000, group_share_heartbeat_interval_ms=5000,
                            group_share_max_size=200, group_share_record_lock_duration_ms=30000,
                            group_share_delivery_count_limit=5, group_share_partition_max_record_locks=2000)


def glance_share_admin(coord):
    """The block's admin lines: group g's lock and session overrides, topic bar (3 partitions), and
    share group g2 loaded at epoch 10 with m1 holding foo-0..2."""
    coord.set_group_config("g", {"share.session.timeout.ms": 50000, "share.record.lock.duration.ms": 60000})
    coord.create_partitions("bar", 3)
    coord.load_share_group("g2", group_epoch=10, target_assignment_epoch=10,
                           members={"m1": {"member_epoch": 10, "previous_member_epoch": 9,
                                           "subscribed_topic_names": ["foo"], "assigned": {"foo": [0, 1, 2]}}},
                           target_assignment={"m1": {"foo": [0, 1, 2]}})
