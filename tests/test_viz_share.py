"""kafkasim.viz.share (chapter 12's record-state trace) and the share-group explorer knobs.

Expected rows are Kafka's SharePartition rules applied by hand: a lock of
group.share.record.lock.duration.ms (30 s in 4.2) armed at acquisition, a record whose lock expires
goes back to AVAILABLE with its delivery count unchanged, the next acquisition takes AVAILABLE
records first and adds one to the count, an acknowledgement by a member that does not hold the
record is INVALID_RECORD_STATE (121), and SPSO moves over the terminal records at its start.
"""

from __future__ import annotations

import pytest

from kafkasim import GroupCoordinator, Scenario, Simulation
from kafkasim.core.errors import ConfigError
from kafkasim.viz.settings import current, scenario_with, unavailable
from kafkasim.viz.protocol import layout
from kafkasim.viz.share import ShareTrace, record_states, share_messages, share_sequence_diagram, state_counts
from kafkasim.viz.summary import SHARE_KEYS, key_numbers


def lock_story() -> ShareTrace:
    """c-1 takes 0-9, accepts 0-4 and freezes; c-2 takes 10-19; the lock on 5-9 expires at 30 s."""
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"orders": 1})
    trace = ShareTrace(coord.share_partition("g", "orders", 0), 0, 19)
    trace.acquire("c-1", [(0, 4), (5, 9)])
    trace.advance_to(1_000)
    trace.acknowledge("c-1", [(0, 4, "ACCEPT")])
    trace.advance_to(5_000)
    trace.acquire("c-2", [(10, 14), (15, 19)])
    trace.advance_to(6_000)
    trace.acknowledge("c-2", [(10, 19, "ACCEPT")])
    trace.advance_to(31_000)
    trace.acquire("c-2", [(5, 9)])
    trace.advance_to(40_000)
    trace.acknowledge("c-1", [(5, 9, "ACCEPT")])
    trace.advance_to(41_000)
    trace.acknowledge("c-2", [(5, 9, "ACCEPT")])
    trace.advance_to(45_000)
    return trace


def test_calls_table_has_every_call_and_the_lock_expiry_as_one_row():
    table = lock_story().table()
    rows = [tuple(r) for r in table[["time (s)", "member", "call", "answer", "SPSO", "SPEO", "next fetch"]].itertuples(index=False)]
    assert rows == [
        (0.0, "c-1", "ShareFetch", "0-9 (delivery 1)", 0, 9, 10),
        (1.0, "c-1", "ShareAcknowledge ACCEPT 0-4", "NONE (0)", 5, 9, 10),
        (5.0, "c-2", "ShareFetch", "10-19 (delivery 1)", 5, 19, 20),
        (6.0, "c-2", "ShareAcknowledge ACCEPT 10-19", "NONE (0)", 5, 19, 20),
        # after the partial ACCEPT 5-9 have one lock each (the batch was split): five expiries at 30 s, one row
        (30.0, "leader", "acquisition lock expired", "5-9 AVAILABLE (delivery 1)", 5, 19, 5),
        (31.0, "c-2", "ShareFetch", "5-9 (delivery 2)", 5, 19, 20),
        (40.0, "c-1", "ShareAcknowledge ACCEPT 5-9", "INVALID_RECORD_STATE (121)", 5, 19, 20),
        (41.0, "c-2", "ShareAcknowledge ACCEPT 5-9", "NONE (0)", 20, 20, 20)]



def test_share_messages_draw_the_lock_story_request_by_request():
    # By hand from SharePartition: each call is a request to the leader and its answer; ACCEPT 0-4 moves SPSO to 5;
    # 10-19 done leaves SPSO at 5 (5-9 still ACQUIRED); the split locks of 5-9 expire together at 0 + 30 s;
    # the next ShareFetch takes the AVAILABLE 5-9 first, count 1 + 1 = 2; c-1 no longer holds them: 121;
    # c-2's ACCEPT makes 0-19 terminal, SPSO 20. The GC pause note goes after c-1's calls of its millisecond.
    frame = share_messages(lock_story(), notes=[(1_000, "c-1", "GC pause until 40 s")])
    lanes = layout(frame, {"leader": 0, "c-1": 1, "c-2": 2})
    name = {0: "leader", 1: "c-1", 2: "c-2"}
    rows = [(t, name[x], name[x2], label) for t, x, x2, label in zip(frame["time"], lanes["x"], lanes["x2"], frame["label"])]
    assert rows == [
        (0, "c-1", "leader", "ShareFetch"), (0, "leader", "c-1", "ShareFetch: 0-9 (delivery 1)"),
        (1_000, "c-1", "leader", "ShareAcknowledge ACCEPT 0-4"), (1_000, "leader", "c-1", "ShareAcknowledge: NONE (0)"),
        (1_000, "leader", "leader", "0-4 ACKNOWLEDGED (delivery 1); SPSO 5"),
        (1_000, "c-1", "c-1", "GC pause until 40 s"),
        (5_000, "c-2", "leader", "ShareFetch"), (5_000, "leader", "c-2", "ShareFetch: 10-19 (delivery 1)"),
        (6_000, "c-2", "leader", "ShareAcknowledge ACCEPT 10-19"), (6_000, "leader", "c-2", "ShareAcknowledge: NONE (0)"),
        (6_000, "leader", "leader", "10-19 ACKNOWLEDGED (delivery 1); SPSO 5"),
        (30_000, "leader", "leader", "acquisition lock expired: 5-9 AVAILABLE (delivery 1)"),
        (31_000, "c-2", "leader", "ShareFetch"), (31_000, "leader", "c-2", "ShareFetch: 5-9 (delivery 2)"),
        (40_000, "c-1", "leader", "ShareAcknowledge ACCEPT 5-9"),
        (40_000, "leader", "c-1", "ShareAcknowledge: INVALID_RECORD_STATE (121)"),
        (41_000, "c-2", "leader", "ShareAcknowledge ACCEPT 5-9"), (41_000, "leader", "c-2", "ShareAcknowledge: NONE (0)"),
        (41_000, "leader", "leader", "5-9 ACKNOWLEDGED (delivery 2); SPSO 20")]
    assert list(frame["kind"]).count("error") == 1 and frame.loc[15, "kind"] == "error"
    assert list(frame.loc[[5, 11], "kind"]) == ["consumer note", "leader note"]
    spec = share_sequence_diagram.spec(lock_story())
    assert [v["lane"] for v in spec["layer"][1]["data"]["values"]] == ["leader", "c-1", "c-2"]
    assert len(spec["data"]["values"]) == 18

def test_intervals_merge_records_in_the_same_state_and_keep_terminal_states_after_the_cache_empties():
    frame = lock_story().intervals()
    rows = [tuple(r) for r in frame[["first", "last", "start", "end", "state", "delivery_count", "owner"]].itertuples(index=False)]
    assert rows == [
        (0, 4, 0, 1_000, "ACQUIRED", 1, "c-1"), (0, 4, 1_000, 45_000, "ACKNOWLEDGED", 1, ""),
        (5, 9, 0, 30_000, "ACQUIRED", 1, "c-1"), (5, 9, 30_000, 31_000, "AVAILABLE", 1, ""),
        (5, 9, 31_000, 41_000, "ACQUIRED", 2, "c-2"), (5, 9, 41_000, 45_000, "ACKNOWLEDGED", 2, ""),
        (10, 19, 5_000, 6_000, "ACQUIRED", 1, "c-2"), (10, 19, 6_000, 45_000, "ACKNOWLEDGED", 1, "")]
    assert state_counts(lock_story()).to_dict() == {"AVAILABLE": 0, "ACQUIRED": 0, "ACKNOWLEDGED": 20, "ARCHIVED": 0}


def test_release_at_the_delivery_limit_archives_and_the_chart_shows_the_states_present():
    # Limit 2 (SharePartitionTest.testMaxDeliveryCountLimitExceededForRecordBatch): the 2nd RELEASE archives.
    coord = GroupCoordinator(Simulation(seed=0), kafka_version="4.2", topics={"orders": 1},
                             group_share_delivery_count_limit=2)
    trace = ShareTrace(coord.share_partition("g", "orders", 0), 0, 0)
    for member in ("c-1", "c-2"):
        trace.acquire(member, [(0, 0)])
        trace.advance_to(trace.sim.now + 1_000)
        trace.acknowledge(member, [(0, 0, "RELEASE")])
        trace.advance_to(trace.sim.now + 1_000)
    assert [(r["member"], r["answer"], r["SPSO"]) for r in trace.calls] == [
        ("c-1", "0-0 (delivery 1)", 0), ("c-1", "NONE (0)", 0), ("c-2", "0-0 (delivery 2)", 0), ("c-2", "NONE (0)", 1)]
    frame = trace.intervals()
    assert [tuple(r) for r in frame[["start", "end", "state", "delivery_count", "owner"]].itertuples(index=False)] == [
        (0, 1_000, "ACQUIRED", 1, "c-1"), (1_000, 2_000, "AVAILABLE", 1, ""), (2_000, 3_000, "ACQUIRED", 2, "c-2"),
        (3_000, 4_000, "ARCHIVED", 2, "")]
    bars, labels = record_states(trace).to_dict()["layer"]
    assert bars["mark"]["type"] == "rect" and labels["mark"]["type"] == "text"
    assert bars["encoding"]["color"]["scale"]["domain"] == ["AVAILABLE", "ACQUIRED", "ARCHIVED"]
    # the 1 s bars are 680 / 4 = 170 px wide: both acquisitions are labelled with owner and delivery count
    rows = record_states.spec(trace)["data"]["values"]
    assert [r["label"] for r in rows if r["label"]] == ["c-1 #1", "c-2 #2"]
    # in the lock story (45 s) the 1 s acquisitions (15 px) are too narrow for a label, the long ones are not
    rows = record_states.spec(lock_story())["data"]["values"]
    assert [(r["records"], r["label"]) for r in rows if r["label"]] == [("5-9", "c-1 #1"), ("5-9", "c-2 #2")]


def test_share_knobs_set_the_broker_configs_and_need_kafka_4():
    base = Scenario(kafka_version="4.2", group_type="share", members=2, topics={"t": 1}, duration_ms=10_000)
    changed = scenario_with(base, {"group.share.record.lock.duration.ms": 60_000, "group.share.delivery.count.limit": 2})
    assert changed.broker_config["group.share.record.lock.duration.ms"] == 60_000
    assert changed.broker_config["group.share.delivery.count.limit"] == 2
    assert (current("group.share.record.lock.duration.ms", base), current("group.share.delivery.count.limit", base)) \
        == (30_000, 5)
    assert unavailable("group.share.delivery.count.limit", "3.7") == "4.0+"
    assert unavailable("group.share.delivery.count.limit", "4.2") is None
    with pytest.raises(ConfigError, match="group.share.delivery.count.limit"):
        scenario_with(base, {"group.share.delivery.count.limit": 11})   # Kafka's range is [2, 10]


def test_share_key_numbers_are_worded():
    summary = {"duplicates": 3, "redeliveries": 4, "lock_expiries": 5, "records_archived": 1, "max_lag": 10,
               "latency_ms": {"p99": 2500.0}}
    assert key_numbers(summary, SHARE_KEYS) == [
        ("duplicates (records processed again)", "3"), ("redeliveries (delivery count above 1)", "4"),
        ("records whose lock expired", "5"), ("records archived", "1"), ("max lag (records)", "10"),
        ("p99 latency", "2.50 s")]
