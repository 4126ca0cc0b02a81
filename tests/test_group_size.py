"""group.max.size (KIP-389), the join storm and the member byte model (kafkasim.coordinator.group_size).

Facts checked against Apache Kafka's source: 2.2.0 `KafkaConfig.scala` (GroupMaxSizeProp =
"group.max.size", default Int.MaxValue, validator atLeast(1); absent from 2.1.0) and `Errors.java`
(STALE_BROKER_EPOCH = 77, GROUP_MAX_SIZE_REACHED = 81). Replayed Kafka tests are named in docstrings.
"""

import pandas as pd
import pytest

from kafkasim import Scenario, Simulation, faults, simulate
from kafkasim.coordinator import GroupCoordinator
from kafkasim.coordinator.classic.group import Member
from kafkasim.core.errors import ConfigError, Errors
from kafkasim.analysis.experiments import rebalance_durations
from kafkasim.coordinator.group_size import (CODE_77_IN_KAFKA, FIXED_FIELD_BYTES, KIP_389_DRAFT, JoinStorm, fatal_members,
                                             group_max_size_default, kip_estimate_bytes, kip_vs_shipped, member_bytes,
                                             pending_member_bytes, storm_grid, subscription_bytes)

INT_MAX = 2_147_483_647


# -- the KIP draft and what shipped ------------------------------------------------------------
def test_the_kip_drafts_memory_figure():
    """The seed (KIP-389 wiki draft): 120 B x 1,000,000 members per group."""
    assert KIP_389_DRAFT["default"] == 1_000_000 and KIP_389_DRAFT["member_bytes"] == 120
    assert kip_estimate_bytes() == 120_000_000  # 120 MB; the draft rounds it to "100 MB"
    assert round(kip_estimate_bytes() / 2**20, 1) == 114.4  # MiB


@pytest.mark.parametrize("version, default", [("2.1", None), ("2.2", INT_MAX), ("2.6", INT_MAX), ("3.7", INT_MAX)])
def test_shipped_default_per_version(version, default):
    assert group_max_size_default(version) == default


def test_shipped_error_code_is_81_and_77_went_elsewhere():
    assert Errors.GROUP_MAX_SIZE_REACHED.code == 81 != KIP_389_DRAFT["error_code"] == 77
    assert Errors.GROUP_MAX_SIZE_REACHED.exception == "GroupMaxSizeReachedException"
    assert CODE_77_IN_KAFKA == "STALE_BROKER_EPOCH"
    with pytest.raises(ValueError, match="unknown Kafka error code 77"):
        Errors.for_code(77)  # kafkasim does not model KIP-380's broker epochs


def test_kip_vs_shipped_table():
    table = kip_vs_shipped("3.7").set_index("aspect")
    assert table.loc["default", "KIP-389 draft"] == "1,000,000"
    assert table.loc["default", "Kafka 3.7"] == "2,147,483,647"
    assert "= 81" in table.loc["error", "Kafka 3.7"] and "= 77" in table.loc["error", "KIP-389 draft"]
    old = kip_vs_shipped("2.1").set_index("aspect")
    assert old.loc["default", "Kafka 2.1"] == "(none)" and old.loc["error", "Kafka 2.1"] == "(none)"


KIP_389_DRAFT_COLUMN = ["group.max.size", "1,000,000", "not stated", "GROUP_MAX_SIZE_REACHED = 77",
                        "handleJoinGroup and handleSyncGroup", "fails (fatal)", "120 MB per group (120 B x 1,000,000)"]


@pytest.mark.parametrize("version, shipped", [
    ("2.1", ["(absent before 2.2)", "(none)", "-", "(none)", "nothing: groups grow without limit", "-", "-"]),
    ("2.2", ["group.max.size", "2,147,483,647", "[1, 2147483647] (atLeast(1), int)",
             "GROUP_MAX_SIZE_REACHED = 81 (77 went to STALE_BROKER_EPOCH)", "JoinGroup only (acceptJoiningMember)",
             "fatal: poll() throws GroupMaxSizeReachedException", "unbounded in practice"]),
])
def test_kip_vs_shipped_table_row_by_row(version, shipped):
    """KIP-389's draft against the release: the config from 2.2 (KafkaConfig.GroupMaxSizeProp, default
    Int.MaxValue, atLeast(1)), error code 81 (77 was taken by KIP-380's STALE_BROKER_EPOCH), checked
    in JoinGroup only, fatal in the consumer."""
    table = kip_vs_shipped(version)
    assert table.columns.tolist() == ["aspect", "KIP-389 draft", f"Kafka {version}"]
    assert table.values.tolist() == [list(row) for row in zip(
        ["config", "default", "valid range", "error", "checked on", "consumer on the error", "memory at the default"],
        KIP_389_DRAFT_COLUMN, shipped)]


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, words", [
    (0, "Value must be at least 1"), (-5, "Value must be at least 1"), (1.5, "32-bit integer"),
    ("10", "32-bit integer"), (2**31, "32-bit integer"),
])
def test_bad_group_max_size_names_the_config_and_range(value, words):
    with pytest.raises(ConfigError, match="group.max.size") as err:
        JoinStorm(group_max_size=value)
    assert words in str(err.value)
    with pytest.raises(ConfigError, match="group.max.size"):
        Scenario(broker={"group.max.size": value})


def test_group_max_size_does_not_exist_before_2_2():
    with pytest.raises(ConfigError, match=r"group.max.size.*does not exist in Kafka 2.1.*2.2.*KIP-389"):
        JoinStorm(kafka_version="2.1", group_max_size=10)


@pytest.mark.parametrize("kwargs, name", [({"joins_per_s": 0}, "joins_per_s"), ({"joins_per_s": True}, "joins_per_s"),
                                          ({"duration_ms": 0}, "duration_ms"), ({"sample_ms": 1.5}, "sample_ms")])
def test_bad_storm_settings(kwargs, name):
    with pytest.raises(ConfigError, match=name):
        JoinStorm(**kwargs)


# -- the byte model ----------------------------------------------------------------------------------
def test_subscription_bytes_follow_the_v0_layout():
    # int16 version + int32 count + (int16 + 6) for "orders" + int32 -1 (null user data)
    assert subscription_bytes(["orders"]) == 2 + 4 + 8 + 4 == 18
    assert subscription_bytes(["a", "bc"], b"xyz") == 2 + 4 + 3 + 4 + 4 + 3


def test_member_bytes_counts_each_field_once():
    member = Member("c-1-" + "0" * 36, None, "c-1", 45000, 300000, "consumer", [("range", b"x" * 18)])
    member.assignment = b"a" * 10
    expected = 40 + 0 + 3 + len("/127.0.0.1") + len("consumer") + (5 + 18) + 10 + FIXED_FIELD_BYTES
    assert member_bytes(member) == expected
    assert pending_member_bytes("c-1-" + "0" * 36) == 40


def test_model_member_is_close_to_the_kips_120_bytes():
    """A 2.x client (one assignor) comes out a little above the KIP's 120 B, a 3.x client
    (range + cooperative-sticky by default) about 1.4 times it."""
    old = JoinStorm(kafka_version="2.4", duration_ms=10_000).run()
    new = JoinStorm(kafka_version="3.7", duration_ms=10_000).run()
    assert old.bytes_per_member == 137 and new.bytes_per_member == 173


# -- the storm -----------------------------------------------------------------------------------------
def test_unlimited_storm_fills_the_group_until_the_rebalance_timeout():
    """Nothing removes a member parked in the initial join: the group grows for max.poll.interval.ms
    (the join phase's limit) and is emptied by session expiry one session.timeout.ms later."""
    run = JoinStorm(joins_per_s=10, duration_ms=400_000, sample_ms=1_000).run()
    assert run.rejected == 0 and run.joins == run.accepted == 4000
    peak_at = int(run.samples.loc[run.samples["members"].idxmax(), "time_ms"])
    assert 300_000 <= peak_at <= 300_000 + 45_000
    assert 3300 <= run.peak_members <= 3450
    assert run.peak_bytes == run.peak_members * 173
    assert set(run.removals()) <= {"session_timeout", "new_member_timeout"}
    assert run.samples["members"].iloc[-1] < run.peak_members / 2


def test_group_max_size_caps_the_storm_at_up_to_twice_the_limit():
    """acceptJoiningMember (3.7.0 GroupCoordinator.scala, KAFKA-9885): in PreparingRebalance it counts
    members *awaiting join*, so members of the last generation that never rejoin stay on top of
    `group.max.size` new ones until the join completes and removes them."""
    run = JoinStorm(group_max_size=500, joins_per_s=10, duration_ms=200_000, sample_ms=1_000).run()
    assert run.rejected > 0
    assert 500 < run.peak_members <= 2 * 500
    assert run.peak_bytes <= 2 * 500 * 173
    settled = run.samples[run.samples["state"].isin(["CompletingRebalance", "Stable"])]
    assert len(settled) and settled["members"].max() <= 500
    first_window = run.samples[run.samples["time_ms"] <= 100_000]  # before the first join completes
    assert first_window["members"].max() == 500
    rejected = run.events[run.events["error"] == "GROUP_MAX_SIZE_REACHED"]
    assert len(rejected) >= run.rejected


def test_before_2_2_a_single_join_adds_a_member():
    """JoinGroup v4 (KIP-394, 2.2) made new members ask for an id first; 2.1 adds them at once."""
    old = JoinStorm(kafka_version="2.1", duration_ms=20_000).run()
    new = JoinStorm(kafka_version="2.2", duration_ms=20_000).run()
    assert not (old.events["error"] == "MEMBER_ID_REQUIRED").any()
    assert (new.events["error"] == "MEMBER_ID_REQUIRED").sum() == new.joins
    assert old.peak_members == new.peak_members


def test_storm_is_deterministic():
    a = JoinStorm(duration_ms=60_000, seed=7).run()
    b = JoinStorm(duration_ms=60_000, seed=7).run()
    pd.testing.assert_frame_equal(a.samples, b.samples)
    pd.testing.assert_frame_equal(a.events, b.events)
    assert a.broker_log == b.broker_log


def test_a_short_storm_sample_by_sample():
    """One join a second for 3 s: joins at 0, 1 and 2 s (none at the end), samples at 0 to 3 s
    inclusive, each member 173 B (a 3.7 client: range + cooperative-sticky), the group held in
    PreparingRebalance by the initial rebalance delay; the broker log names each new member."""
    storm = JoinStorm(kafka_version="3.7", joins_per_s=1, duration_ms=3_000, sample_ms=1_000,
                      session_timeout_ms=6_000, rebalance_timeout_ms=10_000)
    assert (storm.consumer_config["session.timeout.ms"], storm.consumer_config["max.poll.interval.ms"]) == (
        6_000, 10_000)
    run = storm.run()
    assert run.samples.values.tolist() == [[0, 1, 0, 173, "PreparingRebalance"], [1000, 2, 0, 346, "PreparingRebalance"],
                                           [2000, 3, 0, 519, "PreparingRebalance"], [3000, 3, 0, 519, "PreparingRebalance"]]
    assert (run.joins, run.accepted, run.rejected) == (3, 3, 0)
    assert [line[:25] for line in run.broker_log if "Dynamic member" in line] == [
        "[2026-01-01 00:00:00,000]", "[2026-01-01 00:00:01,000]", "[2026-01-01 00:00:02,000]"]
    assert "Preparing to rebalance group workbook-group in state PreparingRebalance with old generation 0 " \
           "(__consumer_offsets-24)" in run.broker_log[1]


def test_group_bytes_count_pending_member_ids():
    """A 2.2+ member that got MEMBER_ID_REQUIRED and has not come back is only its id (40 B here)."""
    from kafkasim.coordinator.group_size import group_bytes

    coord = GroupCoordinator(Simulation(seed=0), kafka_version="3.7")
    first = coord.join_group("g", "", session_timeout_ms=10_000, rebalance_timeout_ms=60_000,
                             protocols=[("range", b"")], client_id="c-1")
    assert first.error is Errors.MEMBER_ID_REQUIRED and len(first.member_id) == 40
    assert group_bytes(coord.groups["g"]) == 40 and group_bytes(None) == 0


@pytest.mark.parametrize("name", ["duration_ms", "sample_ms"])
def test_the_smallest_storm_times_are_one_millisecond(name):
    assert getattr(JoinStorm(**{name: 1}), name) == 1


def test_storm_grid_labels_each_storm():
    grid = storm_grid([100, None], [5, 10], duration_ms=30_000, sample_ms=10_000)
    assert grid.index.tolist() == list(range(4 * 4))  # 4 storms of 4 samples (0, 10, 20, 30 s), numbered anew
    assert sorted(grid["group_max_size"].unique()) == [100, INT_MAX]
    assert sorted(grid["joins_per_s"].unique()) == [5.0, 10.0]
    assert grid.groupby(["group_max_size", "joins_per_s"])["members"].max().loc[(100, 10.0)] == 100


# -- the consumer side: replays of Kafka tests ----------------------------------------------------
def test_consumer_receives_fatal_exception_when_group_passes_max_size():
    """Follows ConsumerBounceTest.testConsumerReceivesFatalExceptionWhenGroupPassesMaxSize
    (core/src/test/scala/integration/kafka/api/ConsumerBounceTest.scala): a group of max size is
    stable, one more consumer joins and gets GroupMaxSizeReachedException, the group lives on."""
    run = simulate(Scenario(members=3, topics={"t": 3}, broker={"group.max.size": 3}, duration_ms=60_000,
                            faults=[faults.ScaleOut(at_ms=30_000)]))
    assert fatal_members(run) == ["c-4"]
    events = run.events
    late = events[(events["kind"] == "Processed") & (events["time"] > 30_000)]
    assert set(late["member"]) == {"c-1", "c-2", "c-3"}
    assert run.summary["removals_by_reason"] == {}


def test_consumers_stopped_by_group_max_size_are_listed_by_their_number():
    """group.max.size 6, twelve consumers all starting at 0 and joining in turn: c-1 to c-6 are let in
    (acceptJoiningMember), c-7 to c-12 are refused, and `fatal_members` lists them as a learner counts
    them, c-9 before c-10 (not as strings sort, "c-10" first)."""
    run = simulate(Scenario(members=12, broker={"group.max.size": 6}, duration_ms=60_000, start_spread_ms=0))
    assert fatal_members(run) == ["c-7", "c-8", "c-9", "c-10", "c-11", "c-12"]


def test_group_max_size_exception_is_fatal():
    """Follows AbstractCoordinatorTest.testGroupMaxSizeExceptionIsFatal
    (clients/src/test/java/org/apache/kafka/clients/consumer/internals/AbstractCoordinatorTest.java):
    the error is not retriable, so the rejected consumer sends no further JoinGroup."""
    run = simulate(Scenario(members=5, broker={"group.max.size": 2}, duration_ms=120_000))
    assert len(fatal_members(run)) == 3
    events = run.events
    for member in fatal_members(run):
        fatal_at = events[(events["member"] == member) & (events["kind"] == "Fatal")]["time"].iloc[0]
        later = events[(events["member"] == member) & (events["time"] > fatal_at) & (events["kind"] == "JoinGroup")]
        assert later.empty


def test_concurrent_join_group_enforce_group_max_size():
    """Follows GroupCoordinatorConcurrencyTest.testConcurrentJoinGroupEnforceGroupMaxSize
    (core/src/test/scala/unit/kafka/coordinator/group/GroupCoordinatorConcurrencyTest.scala):
    group.max.size = 1, many members join at once; one is accepted, the rest turned away."""
    sim = Simulation(1)
    coord = GroupCoordinator(sim, group_max_size=1, group_initial_rebalance_delay_ms=3000)
    joins = [coord.join_group("group", "", client_id=f"m{i}", require_known_member_id=False) for i in range(5)]
    sim.advance(10_000)
    errors = [r.error for r in joins]
    assert errors.count(Errors.NONE) == 1
    assert errors.count(Errors.GROUP_MAX_SIZE_REACHED) == 4


# -- rebalance duration ----------------------------------------------------------------------------------
def test_rebalance_waits_longer_in_a_bigger_group():
    frame = rebalance_durations([2, 20], seeds=(1, 2, 3))
    means = frame.groupby("members")["rebalance_ms"].mean()
    assert (frame["rebalance_ms"] > 0).all()
    assert means[20] > means[2]


# -- charts ----------------------------------------------------------------------------------------------
def test_charts_are_valid_vega_lite():
    from kafkasim.viz import group_size as gv

    run = JoinStorm(duration_ms=30_000).run()
    gv.storm_chart(run.samples).to_dict()
    gv.storm_chart(run.samples.assign(label="a")).to_dict()
    explorer = gv.storm_explorer(storm_grid([50, None], [2, 5, 10], duration_ms=30_000, sample_ms=10_000)).to_dict()
    assert {p["name"] for p in explorer["params"]} == {"p_group_max_size", "p_joins_per_s"}
    assert all("bind" in p for p in explorer["params"])
    gv.memory_by_group_size({"KIP-389 draft": 120, "model": 173}).to_dict()
    gv.rebalance_duration_chart(pd.DataFrame({"members": [2, 4], "seed": [1, 1], "rebalance_ms": [10, 20]})).to_dict()


def test_fresh_joins_during_a_rebalance_can_push_out_a_slow_healthy_member():
    """(derived from acceptJoiningMember, 3.7.0) A full, healthy group of 3 starts a rebalance; two
    fresh member ids join before the last healthy member rejoins, and that member is refused and
    removed: the cap protects the broker, not the slowest consumer."""
    from coordinator_helpers import join, stable_group, two_step_join

    sim, coord, ids, leader = stable_group(3, group_max_size=3)
    first = join(coord, member_id=ids[0])  # a rejoin starts the rebalance
    assert coord.group_state("g") == "PreparingRebalance" and not first.done
    fresh = [two_step_join(coord) for _ in range(2)]
    assert all(not r.done for r in fresh)  # both wait in the join: 3 awaiting = group.max.size
    late = join(coord, member_id=ids[2])
    assert late.error is Errors.GROUP_MAX_SIZE_REACHED and late.member_id == ""
    assert ids[2] not in coord.member_ids("g")


def test_group_max_size_is_an_explorer_setting():
    from kafkasim.viz.settings import current, scenario_with
    from kafkasim.viz.widgets import Explorer

    scenario = scenario_with(Scenario(members=5, duration_ms=30_000), {"group.max.size": 3})
    assert scenario.broker_config["group.max.size"] == 3 and current("group.max.size", scenario) == 3
    assert current("group.max.size", Scenario(kafka_version="2.1")) is None
    explorer = Explorer(scenario, controls=["members", "group.max.size"], charts=["timeline"])
    assert "GROUP_MAX_SIZE_REACHED, code 81" in explorer.error.value
    explorer.set("group.max.size", 5)
    assert "GROUP_MAX_SIZE_REACHED" not in explorer.error.value


def test_a_capped_storm_sample_by_sample():
    """group.max.size 2, no initial delay, one join a second, 5 s rebalance and 6 s session timeouts
    (a 3.1 broker and client). 0 s: the first member's join completes generation 1 at once. 1 s and
    2 s: two more join, the group waits for the first (which never rejoins) until its rebalance
    timeout; meanwhile 3-5 s are refused (two members already await the join). 6 s: the first one's
    session ends, generation 2 of two members completes; nobody syncs, so the joins of 6-10 s are
    refused too, and at 11 s (5 s later) both are removed on pending sync expiration; the join at 11 s
    starts generation 3 alone."""
    storm = JoinStorm(kafka_version="3.1", group_max_size=2, joins_per_s=1, duration_ms=12_000, sample_ms=1_000,
                      session_timeout_ms=6000, rebalance_timeout_ms=5000, broker={"group.initial.rebalance.delay.ms": 0})
    run = storm.run()
    members = [1, 2, 3, 3, 3, 3, 2, 2, 2, 2, 2, 1, 1]
    states = ["PreparingRebalance"] * 6 + ["CompletingRebalance"] * 5 + ["PreparingRebalance", "CompletingRebalance"]
    assert run.samples.values.tolist() == [[t * 1000, n, 0, 173 * n, s] for t, (n, s) in enumerate(zip(members, states))]
    assert (run.joins, run.accepted, run.rejected) == (12, 4, 8)
    assert run.removals() == {"session_timeout": 1, "sync_timeout": 2}
    preparing = [line for line in run.broker_log if "Preparing to rebalance" in line]
    assert preparing[0].endswith("with group instance id None) (kafka.coordinator.group.GroupCoordinator)")  # 3.1
    grid = storm_grid([2], [1], kafka_version="3.1", duration_ms=12_000, sample_ms=1_000, session_timeout_ms=6000,
                      rebalance_timeout_ms=5000, broker={"group.initial.rebalance.delay.ms": 0})
    assert set(grid["rejected"]) == {8} and set(grid["peak_members"]) == {3}


@pytest.mark.parametrize("rate, ok", [(1000, True), (1000.5, False), (0.001, True), (0, False)])
def test_join_rates_up_to_a_thousand_a_second(rate, ok):
    if ok:
        assert JoinStorm(joins_per_s=rate).joins_per_s == rate
    else:
        with pytest.raises(ConfigError, match=r"joins_per_s must be a number in \(0, 1000\]"):
            JoinStorm(joins_per_s=rate)


def test_the_default_group_max_size_is_that_of_3_7():
    assert group_max_size_default() == 2**31 - 1 == group_max_size_default("3.7")
