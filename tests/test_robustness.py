"""Nothing hangs, nothing crashes from deep inside (issue 18, items 1 and 2): the values people
really type get Kafka's refusal, or a ConfigError that names the field and what is accepted;
runs too large to finish are refused before they start; a run whose clock stops moving ends with
an error that names what kept firing."""

from __future__ import annotations

import math

import pytest

from kafkasim import ConfigError, Scenario, faults, simulate
from kafkasim.core.engine import Simulation, SimulationStalled, TooManyEvents
from kafkasim.scenario.world import EVENT_LIMIT, estimate_events


# -- refused the way Kafka refuses --------------------------------------------------------------
@pytest.mark.parametrize("name", ["heartbeat.interval.ms", "session.timeout.ms"])
def test_a_negative_heartbeat_timer_is_refused_as_kafkas_timer_refuses_it(name):
    with pytest.raises(ConfigError, match=f"^Invalid negative timeout -5 for {name}: Kafka's consumer throws "
                                          f"IllegalArgumentException"):
        Scenario(consumer={name: -5})


def test_a_zero_heartbeat_interval_is_refused_with_the_reason():
    with pytest.raises(ConfigError, match=r"heartbeat.interval.ms=0: Kafka accepts it .* use 1 ms or more"):
        Scenario(consumer={"heartbeat.interval.ms": 0})
    assert Scenario(consumer={"heartbeat.interval.ms": 1, "session.timeout.ms": 6000}).consumer_config[
        "heartbeat.interval.ms"] == 1


def test_no_group_id_is_invalid_group_id_exception():
    with pytest.raises(ConfigError, match="InvalidGroupIdException"):
        Scenario(group_id=None)


@pytest.mark.parametrize("protocol, version, error", [("classic", "3.7", "INVALID_GROUP_ID"),
                                                      ("consumer", "4.0", "INVALID_REQUEST")])
def test_an_empty_group_id_stops_each_consumer_at_its_first_request_instead_of_retrying(protocol, version, error):
    run = simulate(Scenario(kafka_version=version, group_id="", duration_ms=20_000,
                            consumer={"group.protocol": protocol} if protocol == "consumer" else {}))
    ev = run.events
    fatal = ev[ev["kind"] == "Fatal"]
    started = ev[ev["kind"] == "Started"]
    assert sorted(fatal["member"]) == [f"c-{i}" for i in range(1, 7)] and set(fatal["error"]) == {error}
    assert dict(zip(fatal["member"], fatal["time"])) == dict(zip(started["member"], started["time"]))
    assert len(ev) < 100  # nothing but the starts, the refused requests and the deaths


# -- wrong kinds of value: a ConfigError naming the field ------------------------------------------
@pytest.mark.parametrize("fields, message", [
    ({"topics": {1: 3}}, "topic names must be non-empty strings, got 1"),
    ({"topics": {"": 3}}, "topic names must be non-empty strings, got ''"),
    ({"produce_rate_per_s": math.nan}, "produce_rate_per_s must be a finite number >= 0 records/s, got nan"),
    ({"produce_rate_per_s": math.inf}, "produce_rate_per_s must be a finite number >= 0 records/s, got inf"),
    ({"produce_rate_per_s": {"orders": -1}}, "produce_rate_per_s must be a finite number >= 0 records/s, got -1"),
    ({"produce_rate_per_s": {"other": 5}}, r"produce_rate_per_s names topics that are not in topics: \['other'\]"),
    ({"seed": -1}, "seed must be an int >= 0, got -1"),
    ({"seed": 1.5}, "seed must be an int >= 0, got 1.5"),
    ({"consumer": "group.protocol=consumer"}, "consumer must be a dict of Kafka consumer configs"),
    ({"broker": ["group.max.size"]}, "broker must be a dict of Kafka broker configs"),
    ({"group_id": 7}, "group_id must be a string, got 7"),
    ({"static_membership": "yes"}, "static_membership must be True or False, got 'yes'"),
    ({"faults": "crash c-1"}, "faults must be a list of faults"),
])
def test_values_of_the_wrong_kind_name_the_field(fields, message):
    with pytest.raises(ConfigError, match=message):
        Scenario(**fields)


def test_none_for_the_config_dicts_means_the_defaults_and_one_fault_needs_no_list():
    assert Scenario(consumer=None, broker=None) == Scenario()
    crash = faults.Crash("c-1", 1000)
    assert Scenario(faults=crash) == Scenario(faults=[crash])


# -- too large to run: refused before it starts ---------------------------------------------------
def test_a_huge_run_is_refused_with_its_estimate_and_the_way_to_allow_it():
    # 600 s x (12 x 1.4 + 10M x (0.3 + 1000 / 3000)) + 10M x 7 for joining = 10,080 + 3.8e9 + 7e7 events
    huge = Scenario(members=10_000_000)
    with pytest.raises(ConfigError, match=r"about 3,870,010,080 events .* more than the 10,000,000 that simulate\(\) "
                                          r"runs without being asked: .* simulate\(scenario, max_events=None\)"):
        simulate(huge)
    # 31,536,000 s x (16.8 + 6 x (0.3 + 1 / 3)) + 6 x 7 = 649,641,600 + 42, less the last unit (float rounding)
    with pytest.raises(ConfigError, match="about 649,641,641 events"):
        simulate(Scenario(duration_ms=365 * 24 * 3600 * 1000))
    assert EVENT_LIMIT == 10_000_000


@pytest.mark.parametrize("fields", [{}, {"members": 50}, {"members": 40, "topics": {"t": 80}},
                                    {"kafka_version": "4.0", "members": 20, "consumer": {"group.protocol": "consumer"}},
                                    {"poll_resolution_ms": 250, "duration_ms": 120_000}])
def test_the_estimate_is_within_a_third_of_the_real_count(fields):
    scenario = Scenario(**fields)
    real = len(simulate(scenario).rows)
    assert 0.75 <= estimate_events(scenario) / real <= 1.33


def test_max_events_is_a_limit_of_the_caller():
    with pytest.raises(ConfigError, match="more than the 1,000 that"):
        simulate(Scenario(), max_events=1000)
    assert len(simulate(Scenario(duration_ms=10_000), max_events=None).rows) > 0


# -- a clock that stops moving -----------------------------------------------------------------
class Repeater:
    """Schedules itself again `delay_ms` later, for ever: at 0 ms a clock that stops moving, at 1 ms
    a run that never ends by itself."""

    def __init__(self, sim, delay_ms, name):
        self.sim, self.delay_ms, self.name, self.runs = sim, delay_ms, name, 0

    def tick(self):
        self.runs += 1
        self.sim.schedule(self.delay_ms, self.tick)


def test_a_timer_that_fires_again_at_once_is_stopped_at_the_budget_and_named():
    sim = Simulation(0)
    sim.max_events_per_instant = 500
    spinner = Repeater(sim, 0, "c-9")
    sim.at(40, spinner.tick)
    with pytest.raises(SimulationStalled, match=r"stuck at 40 ms: more than 500 events ran at this one millisecond, "
                                                r"the last Repeater.tick of c-9"):
        sim.run()
    assert spinner.runs == 500 and sim.now == 40


def test_busy_but_moving_clocks_are_not_stalled():
    """Exactly the budget at one millisecond is allowed, and the count starts again at the next one."""
    sim = Simulation(0)
    sim.max_events_per_instant = 100
    ran = []
    for t in (1, 2):
        for i in range(100):
            sim.at(t, ran.append, (t, i))
    sim.run()
    assert len(ran) == 200 and sim.now == 2


class Flood:
    """Schedules `width` timers for the next millisecond, every millisecond: a clock that creeps."""

    name = "c-4"

    def __init__(self, sim, width):
        self.sim, self.width, self.runs = sim, width, 0

    def tick(self):
        self.runs += 1
        if self.runs % self.width == 0:
            for _ in range(self.width):
                self.sim.schedule(1, self.tick)


def test_a_clock_that_creeps_under_a_flood_is_stopped_at_the_per_second_budget_and_named():
    sim = Simulation(0)
    sim.max_events_per_second = 1_000
    flood = Flood(sim, 10)
    for _ in range(10):
        sim.at(2_000, flood.tick)
    with pytest.raises(SimulationStalled, match=r"barely moving at 2,000 ms: more than 1,000 events ran in one "
                                                r"simulated second, the last Flood.tick of c-4"):
        sim.run()
    # Checked when the clock moves: the 1,000th event ran at 2,099 ms, the next instant is refused.
    assert flood.runs == 1_000 and sim.now == 2_099


def test_the_per_second_count_starts_again_each_second_and_allows_the_budget():
    sim = Simulation(0)
    sim.max_events_per_second = 100
    ran = []
    # 100 in [0, 1 s), 100 in [1 s, 2 s), then 100 and one more in [2 s, 3 s).
    for t, n in ((500, 60), (999, 40), (1_000, 70), (1_500, 30), (2_000, 5), (2_001, 95), (2_002, 1)):
        for _ in range(n):
            sim.at(t, ran.append, t)
    with pytest.raises(SimulationStalled, match="more than 100 events ran in one simulated second"):
        sim.run()
    assert len(ran) == 300 and sim.now == 2_001  # the 101st of the third second is refused


def test_a_run_bounds_events_per_simulated_second_by_its_members_and_a_1_ms_heartbeat_stays_under_it():
    from kafkasim.scenario.world import MAX_EVENTS_PER_MEMBER_SECOND, World

    assert World(Scenario(members=6)).sim.max_events_per_second == 6 * MAX_EVENTS_PER_MEMBER_SECOND
    run = simulate(Scenario(members=2, duration_ms=20_000, consumer={"heartbeat.interval.ms": 1}))
    heartbeats = run.events.query("kind == 'Heartbeat' and time >= 10000 and time < 11000")
    assert len(heartbeats) > 1_000  # a heartbeat per millisecond or so per member, well under the bound


def test_a_run_past_its_event_bound_is_stopped_and_named():
    sim = Simulation(0)
    sim.max_events = 5_000
    ticker = Repeater(sim, 1, "c-7")
    sim.at(0, ticker.tick)
    with pytest.raises(TooManyEvents, match=r"ran its 5,000 events \(Simulation.max_events\) by 5,000 ms, the last "
                                            r"Repeater.tick of c-7"):
        sim.run()
    # Checked as the clock enters a simulated second: the ticks at 0 .. 4,999 ms ran, the next is refused.
    assert ticker.runs == 5_000 and sim.now == 4_999


def test_the_event_bound_counts_every_call_of_a_simulation():
    """A simulation driven step by step (as the coordinator tests drive theirs) has one bound in all:
    advancing a second at a time, the 5,001st tick is refused in the fifth call."""
    sim = Simulation(0)
    sim.max_events = 5_000
    ticker = Repeater(sim, 1, "c-7")
    sim.at(0, ticker.tick)
    for _ in range(4):
        sim.advance(1_000)  # 0 .. 4,000 ms: 4,001 ticks
    with pytest.raises(TooManyEvents, match="ran its 5,000 events"):
        sim.advance(1_000)
    assert ticker.runs == sim.stats["events"] == 5_000


# -- nothing lost at a graceful shutdown ----------------------------------------------------------
def _c1(run, *kinds):
    ev = run.events
    rows = ev[(ev["member"] == "c-1") & ev["kind"].isin(kinds)]
    return list(zip(rows["time"], rows["kind"]))


def test_a_graceful_close_waits_for_the_batch_in_progress():
    """The application closes the consumer from its poll loop (after `wakeup()`), so the batch
    being processed at 21 s (fetched at 20,118 ms, done at 21,118 ms) is finished and committed
    first; nothing is lost or processed twice."""
    restart = Scenario(members=4, topics={"orders": 2}, duration_ms=60_000, drain_ms=30_000, seed=0,
                       faults=[faults.Restart("c-1", 21_000, 0, graceful=True)],
                       one_process=True)  # numbered client ids: c-1 sorts first and owns orders-0
    run = simulate(restart)
    s = run.summary
    assert (s["records_produced"], s["records_processed"], s["duplicates"]) == (60_000, 60_000, 0)
    assert [e for e in _c1(run, "Processed", "Commit", "Closed", "Started") if 21_000 <= e[0] < 22_000] == [
        (21_118, "Processed"), (21_118, "Commit"), (21_118, "Closed"), (21_118, "Started")]


def test_a_restart_of_a_frozen_process_waits_until_it_thaws():
    """A GC pause from 10 s to 30 s: the graceful restart asked at 21 s closes the process when it
    thaws, and only then does the new one start (never two processes of one member at once)."""
    frozen = Scenario(members=4, topics={"orders": 2}, duration_ms=60_000, drain_ms=30_000, seed=0,
                      faults=[faults.Pause("c-1", 10_000, duration_ms=20_000),
                              faults.Restart("c-1", 21_000, 0, graceful=True)],
                      one_process=True)  # numbered client ids: c-1 sorts first and owns orders-0
    assert _c1(simulate(frozen), "Closed", "Started")[1:] == [(30_118, "Closed"), (30_118, "Started")]


def test_network_and_zookeeper_runs_too_large_are_refused_before_they_start():
    from kafkasim import ClientGroup, NetworkScenario, simulate_network
    from kafkasim.zookeeper.consumer_connector import ZookeeperScenario, consumers_per_topic

    year = 365 * 24 * 3600 * 1000
    # 20 producers at 20 requests/s for a year
    with pytest.raises(ConfigError, match=r"about 12,614,400,000 requests .* simulate_network\(scenario, "
                                          r"max_requests=None\)"):
        simulate_network(NetworkScenario(duration_ms=year))
    with pytest.raises(ConfigError, match="about 10,000,000,000 requests"):
        simulate_network(NetworkScenario(clients=(ClientGroup(count=100_000, rate_per_s=10_000.0),)))
    with pytest.raises(ConfigError, match=r"duration_ms=31,536,000,000 is longer than a ZooKeeper run can be "
                                          r"\(100,000,000 ms, about 28 hours\)"):
        ZookeeperScenario(topics={"t": 4}, consumers=consumers_per_topic({"t": 4}, 3), duration_ms=year)
    assert simulate_network(NetworkScenario(duration_ms=1000), max_requests=None).summary is not None
