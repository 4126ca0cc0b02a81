"""Rules of the ZooKeeper models (`kafkasim.zookeeper`) pinned by name (issue 29), from ZooKeeper's
and Kafka 0.8.2's source and the modules' docstrings: a delete of a missing znode is not an error
(ZkUtils.deletePath), a fired watch is one row naming its path and the group the path belongs to,
the closed form of one membership change's cost names each kind of request."""

from __future__ import annotations

import pytest

from kafkasim.core.engine import Simulation
from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS
from kafkasim.zookeeper.consumer_connector import ZookeeperScenario, consumers_per_topic, herd_cost, simulate_zookeeper
from kafkasim.zookeeper.ensemble import ZooKeeper


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


@pytest.mark.parametrize("parent, group", [("/consumers/g/ids", "g"), ("/brokers/ids", None), ("/consumers", None)])
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
