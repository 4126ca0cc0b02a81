"""The broker network layer and its KIP-72 memory bound, against Kafka's source and tests.

Reference: Kafka's SimpleMemoryPool.java, Selector.java,
KafkaChannel.java, NetworkReceive.java, SocketServer.scala, RequestChannel.scala,
KafkaRequestHandler.scala, KafkaConfig.scala. Replays name the Kafka test they follow.
"""

import json
import math
import re
import zlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from kafkasim.core.errors import ConfigError
from kafkasim.core.events import FIELDS
from kafkasim.broker.memory_pool import LONG_MAX, SimpleMemoryPool, UnboundedPool
from kafkasim.broker.network import (
    MiB, POLL_TIMEOUT_MS, REQUEST_METRICS, SUMMARY_DOC, ClientGroup, NetworkScenario, expected_requests,
    kip72_experiments, simulate_network, summary_table,
)

EXPERIMENTS = kip72_experiments()
_RUNS = {}


def run_of(experiment: str, label: str):
    """Each experiment runs once per test session."""
    key = (experiment, label)
    if key not in _RUNS:
        _RUNS[key] = simulate_network(EXPERIMENTS[experiment][label])
    return _RUNS[key]


def one_shot(count=2, size=900, pool=900, largest=900, threads=1, api="Produce", idle=0, duration_ms=2000, **kw):
    """`count` clients each sending one request at t=0; 900 bytes take 10 ms to read, handling 50 ms. `idle` more
    clients (idle-<n>, connected after them) send nothing: their one request would come at the run's end."""
    groups = (ClientGroup(count=count, arrivals=(0,), size_bytes=size, api=api),)
    if idle:
        groups += (ClientGroup(count=idle, arrivals=(duration_ms,), size_bytes=size, api=api, name="idle"),)
    return simulate_network(NetworkScenario(
        broker={"queued.max.request.bytes": pool, "socket.request.max.bytes": largest, "num.network.threads": threads},
        clients=groups, network_mb_per_s=0.09, handler_base_ms=50, duration_ms=duration_ms, **kw))


def by_client(run):
    return run.requests.set_index("client")


# -- SimpleMemoryPool (GarbageCollectedMemoryPoolTest, which extends SimpleMemoryPool) ----------
@pytest.mark.parametrize("size, largest", [(0, 7), (-1, 7), (100, 0), (100, -1), (100, 101)])
def test_pool_constructor_rejects_what_kafka_rejects(size, largest):
    # testZeroSize, testNegativeSize, testZeroMaxAllocation, testNegativeMaxAllocation,
    # testMaxAllocationLargerThanSize
    # Kafka's message, the space missing after "size." included.
    message = (f"must provide a positive size and max single allocation size smaller than size.provided {size} "
               f"and {largest} respectively")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        SimpleMemoryPool(size, largest)


@pytest.mark.parametrize("request_size, message", [(11, "requested size 11 is larger than maxSingleAllocationSize 10"),
                                                   (0, "requested size 0<=0"), (-1, "requested size -1<=0")])
def test_pool_rejects_bad_allocation_sizes(request_size, message):
    # testAllocationOverMaxAllocation, testAllocationZero, testAllocationNegative
    with pytest.raises(ValueError, match=message):
        SimpleMemoryPool(1000, 10).try_allocate(request_size)


def test_pool_allocation_bound_non_strict():
    # GarbageCollectedMemoryPoolTest.testAllocationBound: (21, 10, strict=false)
    pool = SimpleMemoryPool(21, 10, strict=False)
    assert pool.try_allocate(10) and pool.try_allocate(10)
    assert pool.try_allocate(10)  # only 1 byte was left: non-strict lets it through
    assert pool.available == -9 and pool.used == 30 and pool.is_out_of_memory()
    assert not pool.try_allocate(1)
    pool.release(10)
    assert pool.try_allocate(10)
    assert not pool.try_allocate(1)
    assert pool.peak_used == 30 == 21 + 10 - 1  # the overshoot limit, reached


def test_a_pool_is_non_strict_unless_told():
    # The broker's pool is non-strict (SocketServer: new SimpleMemoryPool(queuedMaxBytes,
    # socketRequestMaxBytes, false, ...)), and so is kafkasim's without `strict`: 1 byte left lets 10 through.
    pool = SimpleMemoryPool(11, 10)
    assert pool.try_allocate(10) and pool.try_allocate(10) and pool.available == -9


def test_pool_strict_needs_the_whole_request():
    pool = SimpleMemoryPool(21, 10, strict=True)
    assert pool.try_allocate(10) and pool.try_allocate(10)
    assert not pool.try_allocate(10) and pool.try_allocate(1)
    assert pool.available == 0


def test_pool_dry_spell_runs_from_first_refusal_to_next_success_or_release():
    now = [0]
    pool = SimpleMemoryPool(10, 10, clock=lambda: now[0])
    assert pool.try_allocate(10)
    now[0] = 5
    assert not pool.try_allocate(3)
    now[0] = 7
    assert not pool.try_allocate(3)  # the spell started at 5 and still runs
    now[0] = 12
    pool.release(10)
    assert pool.depleted_time_total_ms == 7 and pool.dry_spell_start is None
    now[0] = 20
    assert pool.try_allocate(4)  # no spell running: nothing added
    assert pool.depleted_time_total_ms == 7


def test_unbounded_pool_is_memory_pool_none():
    pool = UnboundedPool()
    assert pool.size == pool.available == LONG_MAX and not pool.is_out_of_memory()
    assert all(pool.try_allocate(MiB) for _ in range(1000))
    assert pool.used == pool.peak_used == 1000 * MiB


# -- muting and unmuting ----------------------------------------------------------------------
def test_a_request_waiting_behind_a_response_is_read_in_the_same_loop_as_that_response_is_sent():
    # Three requests of one client at 0 ms: the channel is muted while one is handled, and unmuted when its
    # response is sent (1 ms later each); the next, already there, is read in that same turn of the loop, not
    # left until something else wakes the network thread (nothing else would here).
    run = simulate_network(NetworkScenario(clients=(ClientGroup(count=1, size_bytes=1_000, arrivals=(0, 0, 0)),),
                                           duration_ms=1_000))
    assert run.requests[["created", "first_read", "end"]].values.tolist() == [[0, 0, 1], [0, 1, 2], [0, 2, 3]]


def test_a_read_takes_its_size_at_the_network_rate_and_a_handler_its_base_and_its_size_at_its_own():
    # network.mb.per.s and handler.mb.per.s count a megabyte as 1,000,000 bytes: 10 MB at 1 MB/s read in 10 s,
    # handled in 1 ms plus 10 MB at 2 MB/s.
    run = simulate_network(NetworkScenario(network_mb_per_s=1.0, handler_mb_per_s=2.0, duration_ms=60_000,
                                           clients=(ClientGroup(count=1, size_bytes=10_000_000, arrivals=(0,)),)))
    assert run.requests[["read_ms", "LocalTimeMs"]].values.tolist() == [[10_000, 5_001]]


def test_periodic_clients_send_every_period_from_a_phase_of_their_own_within_the_first():
    # 10 requests/s: every 100 ms, from start_ms plus a phase drawn in [0, 100), until stop_ms (excluded).
    run = simulate_network(NetworkScenario(duration_ms=2_000, clients=(ClientGroup(
        count=50, rate_per_s=10.0, size_bytes=100, arrivals="periodic", start_ms=1_000, stop_ms=1_500),)))
    created = run.requests.groupby("client")["created"].apply(list)
    assert len(created) == 50
    for times in created:
        assert 1_000 <= times[0] < 1_100 and times == [times[0] + 100 * k for k in range(5)]
    phases = sorted(times[0] - 1_000 for times in created)
    assert phases[0] < 10 and phases[-1] >= 90  # spread over the whole period
    # At 1,000 requests/s the period is 1 ms and a phase in [0, 1) floors to 0: every client sends each millisecond
    # from start_ms on.
    run = simulate_network(NetworkScenario(duration_ms=20, clients=(ClientGroup(
        count=5, rate_per_s=1000.0, size_bytes=100, arrivals="periodic", start_ms=10),)))
    assert run.requests.groupby("client")["created"].apply(list).tolist() == [list(range(10, 20))] * 5


def test_arrivals_at_or_after_the_runs_end_are_not_sent():
    # Instants given: one at the run's end is outside it; a group starting after the end sends nothing.
    run = simulate_network(NetworkScenario(duration_ms=1_000, clients=(
        ClientGroup(count=1, size_bytes=100, arrivals=(0, 999, 1_000), name="given"),
        ClientGroup(count=2, size_bytes=100, start_ms=1_500, name="late"))))
    assert run.requests[["client", "created"]].values.tolist() == [["given-0", 0], ["given-0", 999]]


def test_instants_given_are_sent_only_within_the_groups_window():
    # A group sends during [start_ms, stop_ms), its given instants too: 100 is before it, 600 at its end.
    run = simulate_network(NetworkScenario(duration_ms=1_000, clients=(ClientGroup(
        count=2, size_bytes=100, arrivals=(100, 200, 599, 600), start_ms=200, stop_ms=600),)))
    assert run.requests[["client", "created"]].values.tolist() == [
        ["producer-0", 200], ["producer-1", 200], ["producer-0", 599], ["producer-1", 599]]


def test_the_expected_request_count_adds_each_groups_window():
    # What the request limit is checked against: Poisson and periodic groups send rate x window, given instants
    # count within [start_ms, stop_ms), a window past the run's end counts to the end, one after it counts none.
    scenario = NetworkScenario(duration_ms=10_000, clients=(
        ClientGroup(count=3, rate_per_s=20.0, start_ms=1_000, stop_ms=4_000, name="a"),       # 3 x 20/s x 3 s = 180
        ClientGroup(count=2, rate_per_s=10.0, arrivals="periodic", stop_ms=20_000, name="b"),  # 2 x 10/s x 10 s = 200
        ClientGroup(count=4, arrivals=(500, 1_000, 5_000, 6_000), start_ms=1_000, stop_ms=6_000, name="c"),  # 4 x 2
        ClientGroup(count=100, start_ms=12_000, name="d")))                                   # none
    assert expected_requests(scenario) == 388


def test_a_run_over_the_request_limit_is_refused_before_it_starts_and_one_at_it_runs():
    # 10 clients x 10/s x 2 s = 200 requests expected (about two events each); keyword arguments change the scenario.
    scenario = NetworkScenario(duration_ms=1_000, clients=(ClientGroup(count=10, rate_per_s=10.0, size_bytes=100),))
    assert simulate_network(scenario, duration_ms=2_000, max_requests=200).scenario.duration_ms == 2_000
    with pytest.raises(ConfigError) as refused:
        simulate_network(scenario, duration_ms=2_000, max_requests=199)
    assert str(refused.value) == (
        "this scenario's clients would send about 200 requests (about 400 events), more than the 199 that "
        "simulate_network() runs without being asked: shorten duration_ms, use fewer clients or a lower rate_per_s, "
        "or call simulate_network(scenario, max_requests=None) to run it anyway")

def test_a_network_runs_provenance_records_its_client_groups_as_plain_values():
    # The scenario a run records (its provenance's inputs) can be written as JSON and read back: the client
    # groups as dicts of their fields, not as ClientGroup objects.
    groups = (ClientGroup(count=2, rate_per_s=5.0, size_bytes=1_000, name="small"),
              ClientGroup(count=1, size_bytes=(10, 20), arrivals=(0, 5), api="Fetch", name="big", stop_ms=50))
    run = simulate_network(NetworkScenario(clients=groups, duration_ms=100))
    recorded = json.loads(json.dumps(run.provenance["inputs"]["scenario"]))["clients"]
    assert {k: run.provenance[k] for k in ("model", "kafka_version", "seed", "configs")} == {
        "model": "kafkasim.broker.network", "kafka_version": "3.7", "seed": 1,
        "configs": {"broker": run.scenario.broker_config}}
    assert run.provenance["configs"]["broker"]["queued.max.requests"] == 500  # 3.7's default, as recorded
    assert recorded == [
        {"count": 2, "rate_per_s": 5.0, "size_bytes": 1_000, "arrivals": "poisson", "api": "Produce", "name": "small",
         "start_ms": 0, "stop_ms": None},
        {"count": 1, "rate_per_s": 20.0, "size_bytes": [10, 20], "arrivals": [0, 5], "api": "Fetch", "name": "big",
         "start_ms": 0, "stop_ms": 50}]


@pytest.mark.parametrize("arrivals, expected", [
    # latencies 50, 99 and 147: p50 99, p95 99 + 0.9 x 48 = 142.2, p99 99 + 0.98 x 48 = 146.04; mean 296/3
    ((0, 1, 3), {"p50": 99.0, "p95": 142.2, "p99": 146.04, "max": 147.0, "mean": 98.667}),
    # latencies 50, 99, 146 and 194: p50 (99 + 146) / 2 = 122.5, p95 146 + 0.85 x 48 = 186.8, p99 146 + 0.97 x 48
    # = 192.56; mean 489/4 = 122.25
    ((0, 1, 4, 6), {"p50": 122.5, "p95": 186.8, "p99": 192.56, "max": 194.0, "mean": 122.25})])
def test_latency_statistics_interpolate_percentiles_and_keep_three_decimals(arrivals, expected):
    # One handler, requests at the given ms: answered at 50, 100, 150, ... ms (numpy's linear percentiles).
    run = simulate_network(NetworkScenario(duration_ms=1_000, handler_base_ms=50, broker={"num.io.threads": 1},
                                           clients=tuple(ClientGroup(count=1, arrivals=(t,), size_bytes=100, name=n)
                                                         for n, t in zip("abcd", arrivals))))
    assert run.summary["client_latency_ms"] == expected


def test_a_run_counts_the_engine_events_it_ran():
    # One 900-byte request: its arrival (0 ms), its read's end (10 ms), its handler's end (60 ms; the response is
    # written in that turn): 3 events of the engine, what the benchmarks count.
    assert one_shot(count=1).engine_events == 3


def test_mute_on_oom_replay():
    # SelectorTest.testMuteOnOOM: pool (900, 900); two senders of 900 bytes. One request is read,
    # the pool is empty and the Selector out of memory; the other is read once memory is back.
    run = one_shot()
    first, second = by_client(run).loc["producer-0"], by_client(run).loc["producer-1"]
    assert first["allocated"] == 0 and first["read_done"] == 10
    assert second["first_read"] == 0 and second["allocated"] == first["local_done"] == 60
    assert second["memory_wait_ms"] == 60
    ev = run.events
    muted = ev[ev.kind.isin(["ChannelMuted", "ChannelUnmuted"])]
    assert muted[["time", "kind", "member", "reason"]].values.tolist() == [
        [0, "ChannelMuted", "producer-1", "memory"], [60, "ChannelUnmuted", "producer-1", "memory"]]
    ts = run.timeseries
    assert ts["memory_used_bytes"].max() == 900
    assert ts.loc[ts.time < 60, "memory_muted_channels"].iloc[-1] == 1


def test_the_broker_mutes_each_channel_it_cannot_read_for_memory_and_counts_them():
    """Three senders of 900 bytes, a 900-byte pool: the first is read, the other two are muted at once (the
    time series counts 2), then unmuted one at a time as the memory comes back (60, 120)."""
    run = one_shot(count=3)
    ev = run.events
    muted = ev[ev.kind.isin(["ChannelMuted", "ChannelUnmuted"])]
    assert muted[["time", "source", "kind", "member", "reason"]].values.tolist() == [
        [0, "broker", "ChannelMuted", "producer-1", "memory"], [0, "broker", "ChannelMuted", "producer-2", "memory"],
        [60, "broker", "ChannelUnmuted", "producer-1", "memory"], [120, "broker", "ChannelUnmuted", "producer-2", "memory"]]
    ts = run.timeseries
    assert ts.loc[ts.time == 0, "memory_muted_channels"].max() == 2
    assert ts.loc[(ts.time >= 60) & (ts.time < 120), "memory_muted_channels"].tolist()[-1] == 1
    assert ts.loc[ts.time >= 120, "memory_muted_channels"].tolist()[-1] == 0
    # The pool runs dry at 0 and again at 60 (the memory back at 60 goes at once to producer-1), each time with
    # nothing left: the broker's events, with the bytes still available.
    assert ev.loc[ev.kind == "MemoryPoolDepleted", ["time", "source", "value"]].values.tolist() == [
        [0, "broker", 0.0], [60, "broker", 0.0]]
    # Each request built (10 ms after its read began) is a row of its client's with its size; the memory back at
    # 60 and 120 ends a dry spell of 60 ms each; a channel unmuted has waited since its read began, at 0.
    rows = ev.loc[ev.kind.isin(["Produce", "MemoryPoolRecovered", "ChannelUnmuted"]),
                  ["time", "source", "kind", "member", "value"]].values.tolist()
    assert rows == [[10, "broker", "Produce", "producer-0", 900.0],
                    [60, "broker", "MemoryPoolRecovered", None, 60.0],
                    [60, "broker", "ChannelUnmuted", "producer-1", 60.0],
                    [70, "broker", "Produce", "producer-1", 900.0],
                    [120, "broker", "MemoryPoolRecovered", None, 60.0],
                    [120, "broker", "ChannelUnmuted", "producer-2", 120.0],
                    [130, "broker", "Produce", "producer-2", 900.0]]
    # Each response sent is its client's row, with the time since its request was built (50 ms of handling).
    responses = ev.loc[ev.kind == "ProduceResponse", ["time", "source", "member", "error", "value"]].values.tolist()
    assert responses == [[60 * k, "broker", f"producer-{k - 1}", "NONE", 50.0] for k in (1, 2, 3)]


def test_with_memory_for_all_every_ready_channel_is_read_in_one_poll_and_none_is_muted():
    # Three requests of 900 bytes at 0 ms and 2,700 bytes of pool: one poll reads all three, each once.
    run = one_shot(count=3, pool=2700)
    assert run.events[["time", "kind", "member"]].values.tolist() == (
        [[10, "Produce", f"producer-{i}"] for i in range(3)]
        + [[60, "ProduceResponse", f"producer-{i}"] for i in range(3)])
    assert run.requests[["first_read", "allocated", "read_done", "end"]].values.tolist() == [[0, 0, 10, 60]] * 3
    # With memory for one, in the selector's fixed order (no shuffle): the one read is not muted, the other two are.
    ev = one_shot(count=3, shuffle_on_low_memory=False).events
    assert ev.loc[ev.kind == "ChannelMuted", "member"].tolist() == ["producer-1", "producer-2"]


def test_an_unmuted_channel_counts_its_wait_from_the_moment_its_read_began():
    # The second client's request arrives at 5 ms, finds no memory and is muted; the memory comes back at 60:
    # it waited 55 ms.
    run = simulate_network(NetworkScenario(
        broker={"queued.max.request.bytes": 900, "socket.request.max.bytes": 900, "num.network.threads": 1},
        clients=(ClientGroup(count=1, arrivals=(0,), size_bytes=900, name="a"),
                 ClientGroup(count=1, arrivals=(5,), size_bytes=900, name="b")),
        network_mb_per_s=0.09, handler_base_ms=50, duration_ms=2000))
    ev = run.events
    assert ev.loc[ev.kind == "ChannelUnmuted", ["time", "member", "value"]].values.tolist() == [[60, "b-0", 55.0]]


def test_memory_is_released_where_kafka_releases_it():
    # Fetch keeps nothing: released in the RequestChannel.Request constructor, when the request is read.
    fetch = by_client(one_shot(api="Fetch"))
    assert fetch.loc["producer-1", "allocated"] == fetch.loc["producer-0", "start"] == 10
    # Produce (RECORDS) keeps its buffer until the handler is done (finally releaseBuffer()).
    assert by_client(one_shot()).loc["producer-1", "allocated"] == 60
    # With acks=all the response then waits in purgatory (remote_ms) but the memory is back at 60;
    # nothing wakes the network thread until that response (260) or its select timeout (300).
    run = one_shot(remote_ms=200)
    produce, ts = by_client(run), run.timeseries
    assert produce.loc["producer-0", "local_done"] == 60 and produce.loc["producer-0", "RemoteTimeMs"] == 200
    assert ts.loc[ts.time == 60, "memory_used_bytes"].iloc[-1] == 0
    assert produce.loc["producer-1", "allocated"] == produce.loc["producer-0", "end"] == 260
    for api, keeps in (("JoinGroup", True), ("SyncGroup", True), ("Heartbeat", False), ("Metadata", False)):
        second = by_client(one_shot(api=api)).loc["producer-1", "allocated"]
        assert second == (60 if keeps else 10), api


def test_non_strict_allocation_through_the_selector():
    # testAllocationBound's numbers through the network: pool 21, requests of 10 bytes; three are
    # read at once (the third takes the last byte and goes 9 below zero), the fourth waits.
    run = one_shot(count=4, size=10, pool=21, largest=10)
    df = by_client(run)
    assert df["allocated"].tolist() == [0, 0, 0, 50]  # 10 bytes read in no time; handled in 50 ms
    assert run.summary["peak_memory_bytes"] == 30 == run.summary["overshoot_limit_bytes"]


def test_nothing_wakes_a_network_thread_when_memory_comes_back():
    # The pool's release() wakes nobody: the network thread whose client holds the memory is woken by
    # its response; the other one notices only when its select(300 ms) times out.
    df = by_client(one_shot(threads=2))
    assert df.loc["producer-0", "processor"] == 0 and df.loc["producer-1", "processor"] == 1
    assert df.loc["producer-0", "local_done"] == 60
    assert df.loc["producer-1", "allocated"] == POLL_TIMEOUT_MS  # last poll at 0, memory back at 60


def test_a_select_timeout_counts_from_the_network_threads_last_loop():
    """Processor 1 mutes producer-1 for memory at 0 and arms select(300 ms); late-1's arrival at 30 turns its loop
    (memory still out), so that select starts at 30: at 300 it waits on, and reads producer-1 at 330 (memory was
    back at 60, and nothing else wakes it)."""
    run = simulate_network(NetworkScenario(
        broker={"queued.max.request.bytes": 900, "socket.request.max.bytes": 900, "num.network.threads": 2},
        clients=(ClientGroup(count=2, arrivals=(0,), size_bytes=900),
                 ClientGroup(name="late", count=2, arrivals=(30,), size_bytes=900)),
        network_mb_per_s=0.09, handler_base_ms=50, duration_ms=2000))
    df = by_client(run)
    assert df.loc["producer-1", "processor"] == df.loc["late-1", "processor"] == 1
    assert df.loc["late-1", "first_read"] == 30 and df.loc["producer-1", "allocated"] == 30 + POLL_TIMEOUT_MS


def test_each_shortage_of_a_network_thread_has_its_select_timeout():
    """A select timeout, once fired, is no longer pending: b is muted on thread 1 at 5 and read at its select
    timeout (305); a second shortage on the same thread (c at 410, the memory held by d on thread 0 until 460) is
    read at its own select timeout, 410 + 300, not never (nothing else wakes thread 1)."""
    run = simulate_network(NetworkScenario(
        broker={"queued.max.request.bytes": 900, "socket.request.max.bytes": 900, "num.network.threads": 2},
        clients=tuple(ClientGroup(name=name, count=1, arrivals=(at,), size_bytes=900)
                      for name, at in (("a", 0), ("b", 5), ("d", 400), ("c", 410))),
        network_mb_per_s=0.09, handler_base_ms=50, duration_ms=2000))
    df = by_client(run)
    assert df[["processor", "first_read", "allocated"]].values.tolist() == [
        [0, 0, 0], [1, 5, 5 + POLL_TIMEOUT_MS], [0, 400, 400], [1, 410, 410 + POLL_TIMEOUT_MS]]


# -- the bound ------------------------------------------------------------------------------
def test_bounded_memory_exceeds_the_bound_by_less_than_one_request():
    run = run_of("memory_limit", "bounded")
    s, ts = run.summary, run.timeseries
    bound, largest = s["bound_bytes"], s["socket_request_max_bytes"]
    assert ts["memory_used_bytes"].max() == s["peak_memory_bytes"] <= bound + largest - 1
    assert s["peak_memory_bytes"] > bound  # the lenient overshoot really happens with mixed sizes
    # Every allocation starts below the bound (available >= 1): only the last one may cross it.
    used = ts["memory_used_bytes"].to_numpy()
    grew = np.flatnonzero(np.diff(used) > 0) + 1
    assert (used[grew - 1] <= bound - 1).all()
    assert s["memory_pool_depleted_time_total_ms"] > 0 and s["peak_memory_muted_channels"] > 0


@settings(max_examples=12)
@given(pool_requests=st.integers(1, 8), low=st.integers(1, 1000), spread=st.integers(0, 1000), seed=st.integers(0, 99))
def test_overshoot_rule_holds_for_any_pool(pool_requests, low, spread, seed):
    high = low + spread
    run = simulate_network(NetworkScenario(
        broker={"queued.max.request.bytes": pool_requests * high, "socket.request.max.bytes": high},
        clients=(ClientGroup(count=12, rate_per_s=200, size_bytes=(low, high)),),
        network_mb_per_s=0.05, handler_mb_per_s=0.02, duration_ms=500, seed=seed))
    largest_sent = run.requests["size_bytes"].max()
    assert run.summary["peak_memory_bytes"] <= pool_requests * high + largest_sent - 1


def test_unbounded_memory_grows_with_overload():
    unbounded, bounded = run_of("memory_limit", "unbounded"), run_of("memory_limit", "bounded")
    assert unbounded.summary["bound_bytes"] is None and unbounded.summary["memory_pool_depleted_time_total_ms"] == 0
    assert unbounded.summary["peak_memory_bytes"] > 4 * bounded.summary["overshoot_limit_bytes"]
    # More producers, more memory: without a pool, only connections x request size bounds it.
    base = EXPERIMENTS["memory_limit"]["unbounded"]
    peaks = [simulate_network(base.replace(clients=(ClientGroup(count=n, rate_per_s=5, size_bytes=(10_000, MiB)),),
                                           duration_ms=3000)).summary["peak_memory_bytes"] for n in (25, 50, 100)]
    assert peaks[0] < peaks[1] < peaks[2]


def test_the_bound_costs_nothing_below_overload():
    # KIP-72 test plan: producer throughput before/after the change.
    before, after = run_of("throughput", "unbounded").summary, run_of("throughput", "bounded").summary
    assert after["requests_completed"] == before["requests_completed"]
    assert after["client_latency_ms"]["p99"] == pytest.approx(before["client_latency_ms"]["p99"], rel=0.05)
    assert after["memory_pool_avg_depleted_percent"] < 1


# -- the shuffle ----------------------------------------------------------------------------
def test_shuffle_prevents_starvation_that_a_fixed_key_order_causes():
    # Selector.determineHandlingOrder: "this may cause starvation of reads when memory is low".
    fair, fixed = run_of("starvation", "shuffle"), run_of("starvation", "no shuffle")
    assert fair.summary["starved_clients"] == 0 and fair.summary["jain_index"] > 0.95
    assert fixed.summary["starved_clients"] > 0 and fixed.summary["jain_index"] < 0.8
    # Without the shuffle the losers are the last keys of the fixed order.
    clients = fixed.clients
    starved = clients.index[clients["completed"] == 0]
    assert starved.min() > len(clients) // 3
    assert clients["completed"].iloc[:10].min() > clients["completed"].iloc[-10:].max()
    # Same broker capacity either way: only who gets it changes.
    assert fair.summary["requests_completed"] == pytest.approx(fixed.summary["requests_completed"], rel=0.02)


def test_no_shuffle_unless_memory_is_below_ten_percent():
    # Requests of a quarter of the pool: a release lifts available to 1 MB, above 0.1 x pool, so
    # the keys are never shuffled and the switch changes nothing.
    base = NetworkScenario(broker={"queued.max.request.bytes": 4_000_000, "socket.request.max.bytes": 1_000_000,
                                   "num.network.threads": 1},
                           clients=(ClientGroup(count=12, rate_per_s=20, size_bytes=1_000_000),),
                           handler_mb_per_s=20, duration_ms=3000)
    on, off = simulate_network(base), simulate_network(base.replace(shuffle_on_low_memory=False))
    assert on.summary["memory_pool_depleted_time_total_ms"] > 0
    assert on.rows == off.rows


def blocked_then(first, later, api="Fetch", seed=1):
    """A 2,000-byte pool, one request queue slot, one handler: three 900-byte requests of `api` at 0, 20 and 40 ms
    block the network thread at 50 (queued.max.requests=1); the Fetch requests of sizes `later` arrive at 55, while
    it is blocked, and are all ready at the one poll after its put goes through at 60."""
    groups = [ClientGroup(count=1, arrivals=(t,), size_bytes=900, api=api, name=f"a{i}") for i, t in enumerate(first)]
    groups += [ClientGroup(count=1, arrivals=(55,), size_bytes=s, api="Fetch", name=f"b{i}") for i, s in enumerate(later)]
    return simulate_network(NetworkScenario(
        broker={"queued.max.request.bytes": 2000, "socket.request.max.bytes": 900, "num.network.threads": 1,
                "queued.max.requests": 1, "num.io.threads": 1},
        clients=tuple(groups), network_mb_per_s=0.09, handler_base_ms=50, duration_ms=2000, seed=seed))


def test_a_poll_that_runs_out_of_memory_mutes_only_the_channels_it_could_not_read():
    # Fetch buffers go back when the request is built, so the pool is whole at 60: the fixed order reads b0, b1
    # and b2 (non-strict: the third goes through with 200 bytes left) and only b3 is refused and muted.
    ev = blocked_then((0, 20, 40), [900] * 4).events
    assert ev.loc[ev.kind.isin(["ChannelMuted", "ChannelUnmuted", "MemoryPoolDepleted"]),
                  ["time", "kind", "member", "value"]].fillna(0).values.tolist() == [
        [60, "MemoryPoolDepleted", 0, -700.0], [60, "ChannelMuted", "b3-0", 0], [110, "ChannelUnmuted", "b3-0", 50.0]]


def test_a_network_thread_blocked_in_put_sends_no_response_until_the_put_goes_through():
    # Processor.run: processCompletedReceives blocks in RequestChannel.sendRequest, so processCompletedSends waits.
    # a's 900 bytes and b's 1,100 fill the pool, c is muted; at 50 a's handler releases a's memory and responds:
    # that turn reads c and blocks putting it behind b in the full queue (queued.max.requests=1); a's response goes
    # only after the handler takes b and c's put goes through.
    groups = (ClientGroup(count=1, arrivals=(0,), size_bytes=900, name="a"),
              ClientGroup(count=1, arrivals=(1,), size_bytes=1_100, name="b"),
              ClientGroup(count=1, arrivals=(2,), size_bytes=900, name="c"))
    run = simulate_network(NetworkScenario(
        broker={"queued.max.request.bytes": 2000, "socket.request.max.bytes": 1_100, "num.network.threads": 1,
                "queued.max.requests": 1, "num.io.threads": 1}, clients=groups, handler_base_ms=50, duration_ms=1000))
    ev = run.events
    assert ev.loc[ev.time == 50, ["kind", "member"]].values.tolist() == [
        ["MemoryPoolRecovered", None], ["ChannelUnmuted", "c-0"], ["Produce", "c-0"],
        ["ProcessorBlocked", "network-thread-0"], ["ProcessorUnblocked", "network-thread-0"],
        ["ProduceResponse", "a-0"]]


@pytest.mark.parametrize("seed", range(1, 9))
def test_at_exactly_ten_percent_free_the_keys_keep_their_fixed_order(seed):
    # Produce keeps its 900 bytes until handled: at 60, a0's come back and a1's and a2's are held, 200 bytes free,
    # exactly 0.1 x the pool. determineHandlingOrder shuffles only below that ("availableMemory() <
    # lowMemThreshold"), so whatever the seed b0 is read first and b1 muted.
    ev = blocked_then((0, 20, 40), [900, 900], api="Produce", seed=seed).events
    assert ev.loc[ev.kind.isin(["ChannelMuted", "Fetch"]), ["time", "kind", "member"]].values.tolist() == [
        [60, "ChannelMuted", "b1-0"], [70, "Fetch", "b0-0"], [120, "Fetch", "b1-0"]]


# -- queued.max.requests --------------------------------------------------------------------
def _blocked_intervals(run):
    ev = run.events
    out = {}
    for thread, rows in ev[ev.kind.isin(["ProcessorBlocked", "ProcessorUnblocked"])].groupby("member"):
        kinds, times = rows["kind"].tolist(), rows["time"].tolist()
        assert kinds[::2] == ["ProcessorBlocked"] * len(kinds[::2])
        assert kinds[1::2] == ["ProcessorUnblocked"] * len(kinds[1::2])
        out[int(thread.rsplit("-", 1)[1])] = list(zip(times[::2], times[1::2] + [run.end_ms]))
    return out


def test_full_request_queue_blocks_the_network_thread():
    run = run_of("both_bounds", "small requests")
    capacity = run.scenario.broker_config["queued.max.requests"]
    ts, s = run.timeseries, run.summary
    assert ts["request_queue_size"].max() == s["peak_request_queue_size"] == capacity
    assert s["processor_blocked_ms"] > 0 and s["memory_pool_depleted_time_total_ms"] == 0
    intervals = _blocked_intervals(run)
    df = run.requests
    for thread, spans in intervals.items():
        allocated = df.loc[df.processor == thread, "allocated"].dropna().to_numpy()
        for start, end in spans:  # a blocked network thread reads nothing
            assert not ((allocated > start) & (allocated < end)).any()
    # The request whose put blocked was already built: the wait counts in RequestQueueTimeMs.
    thread, (start, end) = next((t, spans[0]) for t, spans in intervals.items() if spans[0][1] < run.end_ms)
    blocked_req = df[(df.processor == thread) & (df.start == start)]
    assert (blocked_req["dequeued"] >= end).any()
    # The put goes through the instant a handler takes a request off the full queue (ArrayBlockingQueue.put).
    ends = [end for spans in intervals.values() for _, end in spans if end < run.end_ms]
    assert ends and set(ends) <= set(df["dequeued"].dropna())


def test_both_bounds_are_respected():
    # KIP-72: "the code will respect both bounds and will not pick up new requests when either is hit".
    small, large = run_of("both_bounds", "small requests").summary, run_of("both_bounds", "large requests").summary
    assert small["processor_blocked_ms"] > 0 and small["peak_memory_bytes"] < small["bound_bytes"]
    assert large["processor_blocked_ms"] == 0 and large["memory_pool_depleted_time_total_ms"] > 0
    assert large["peak_request_queue_size"] < 16 and large["peak_memory_bytes"] <= large["overshoot_limit_bytes"]


# -- configs ----------------------------------------------------------------------------------
def test_queued_max_request_bytes_must_cover_socket_request_max_bytes():
    with pytest.raises(ConfigError, match="requirement failed: queued.max.request.bytes must be larger or equal to "
                                          "socket.request.max.bytes"):
        NetworkScenario(broker={"queued.max.request.bytes": 10 * MiB})  # socket.request.max.bytes = 100 MiB
    assert NetworkScenario(broker={"queued.max.request.bytes": 100 * MiB}).bound_bytes == 100 * MiB  # equal is fine
    for disabled in (0, -1, -5):
        assert NetworkScenario(broker={"queued.max.request.bytes": disabled}).bound_bytes is None


def test_defaults_by_kafka_version():
    assert NetworkScenario(kafka_version="0.11").broker_config["queued.max.request.bytes"] is None
    for version in ("1.0", "2.8", "3.7"):
        cfg = NetworkScenario(kafka_version=version).broker_config
        assert cfg["queued.max.request.bytes"] == -1 and cfg["socket.request.max.bytes"] == 104857600
        assert (cfg["queued.max.requests"], cfg["num.network.threads"], cfg["num.io.threads"]) == (500, 3, 8)
    with pytest.raises(ConfigError, match="does not exist in Kafka 0.11: it was added in Kafka 1.0"):
        NetworkScenario(kafka_version="0.11", broker={"queued.max.request.bytes": 200 * MiB})
    run = simulate_network(kafka_version="0.11", duration_ms=500)
    assert run.summary["bound_bytes"] is None and run.summary["requests_completed"] > 0


def test_request_larger_than_socket_request_max_bytes_is_refused():
    with pytest.raises(ConfigError, match=r"Invalid receive \(size = 2000000 larger than 1048576\)"):
        NetworkScenario(broker={"socket.request.max.bytes": MiB}, clients=(ClientGroup(size_bytes=(1, 2_000_000)),))


@pytest.mark.parametrize("kwargs, match", [
    ({"broker": {"num.network.threads": 0}},
     r"num.network.threads: Value must be at least 1 \(valid range: \[1, \+inf\]\)"),
    ({"broker": {"num.io.threads": -1}}, r"num.io.threads: Value must be at least 1"),
    ({"broker": {"queued.max.requests": 0}}, r"queued.max.requests: Value must be at least 1"),
    ({"broker": {"queued.max.request.bytes": "lots"}}, r"queued.max.request.bytes: Expected value to be a 64-bit"),
    ({"broker": {"queued.max.bytes": 1}}, r"Unknown broker config 'queued.max.bytes'; did you mean "
                                          r"'queued.max.request.bytes'\?"),  # KIP-72's draft name
    ({"duration_ms": 0}, r"duration_ms must be an integer >= 1"),
    ({"network_mb_per_s": 0}, r"network_mb_per_s must be a finite number > 0"),
    ({"handler_mb_per_s": math.inf}, r"handler_mb_per_s must be a finite number > 0"),
    ({"handler_base_ms": -1}, r"handler_base_ms must be a finite number >= 0"),
    ({"remote_ms": 1.5}, r"remote_ms must be an integer >= 0"),
    ({"seed": "x"}, r"seed must be an int"),
    ({"shuffle_on_low_memory": 1}, r"shuffle_on_low_memory must be True or False"),
    ({"clients": ()}, r"clients must be one or more ClientGroup"),
    ({"clients": (ClientGroup(), ClientGroup())}, r"^each ClientGroup needs its own name \(client ids are <name>-<n>\)$"),
    ({"response_send_ms": -1}, r"^response_send_ms must be an integer >= 0, got -1$"),
    ({"network_mb_per_s": "fast"}, r"^network_mb_per_s must be a finite number > 0, got 'fast'$"),
    ({"handler_base_ms": True}, r"^handler_base_ms must be a finite number >= 0, got True$"),
    ({"handler_base_ms": math.inf}, r"^handler_base_ms must be a finite number >= 0, got inf$"),
])
def test_bad_scenarios_name_what_is_wrong(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        NetworkScenario(**kwargs)


def test_a_scenario_takes_one_client_group_alone_and_a_handler_time_of_zero():
    group = ClientGroup()
    scenario = NetworkScenario(clients=group, handler_base_ms=0)
    assert scenario.clients == (group,) and scenario.handler_base_ms == 0


@pytest.mark.parametrize("kwargs, match", [
    ({"count": 0}, r"count must be an integer >= 1"),
    ({"rate_per_s": 0}, r"rate_per_s must be a finite number > 0"),
    ({"size_bytes": 0}, r"size_bytes must be an int >= 1 or a range"),
    ({"size_bytes": (5, 1)}, r"size_bytes must be an int >= 1 or a range"),
    ({"arrivals": "bursty"}, r"arrivals must be 'poisson', 'periodic' or a tuple"),
    ({"arrivals": (0, -3)}, r"arrivals as instants must be ints >= 0"),
    ({"api": "FooBar"}, r"api must be one of Produce, JoinGroup"),
    ({"stop_ms": 0}, r"stop_ms must be an integer >= 1"),
    ({"name": ""}, r"name must be a non-empty string"),
])
def test_bad_client_groups_name_what_is_wrong(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        ClientGroup(**kwargs)


# -- outputs --------------------------------------------------------------------------------
def test_same_seed_same_output_other_seed_other_output():
    scenario = EXPERIMENTS["memory_limit"]["bounded"].replace(duration_ms=3000)
    a, b = simulate_network(scenario), simulate_network(scenario)
    assert a.rows == b.rows and a.summary == b.summary
    assert a.requests.equals(b.requests) and a.timeseries.equals(b.timeseries)
    c = simulate_network(scenario.replace(seed=scenario.seed + 1))
    assert c.rows != a.rows
    assert json.loads(json.dumps(scenario.to_dict()))["broker"] == scenario.broker


def test_latency_adds_up_and_kafka_misses_the_wait_for_memory():
    run = run_of("memory_limit", "bounded")
    done = run.requests.dropna(subset=["end"])
    # RequestChannel.updateRequestMetrics: the parts of TotalTimeMs.
    parts = ["RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs"]
    assert (done[parts].sum(axis=1) == done["TotalTimeMs"]).all()
    assert (done["client_latency_ms"] == done["before_start_ms"] + done["TotalTimeMs"]).all()
    hidden = ["socket_wait_ms", "memory_wait_ms", "read_ms", "processor_wait_ms"]
    assert (done[hidden].sum(axis=1) == done["before_start_ms"]).all()
    s = run.summary
    assert s["not_in_kafka_metrics_ms"]["memory_wait_ms"]["p99"] > s["kafka_request_metrics_ms"]["TotalTimeMs"]["p99"]
    # The bound makes the broker's own latency look better while clients wait longer for memory.
    unbounded = run_of("memory_limit", "unbounded").summary
    total_p99 = s["kafka_request_metrics_ms"]["TotalTimeMs"]["p99"]
    assert total_p99 < unbounded["kafka_request_metrics_ms"]["TotalTimeMs"]["p99"]
    assert s["hidden_latency_share"] > unbounded["hidden_latency_share"]


def test_request_metric_names_are_kafkas():
    # server/src/main/java/org/apache/kafka/network/metrics/RequestMetrics.java
    assert set(REQUEST_METRICS) == {"RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
                                    "ResponseSendTimeMs", "TotalTimeMs"}
    assert set(run_of("throughput", "bounded").summary["kafka_request_metrics_ms"]) == set(REQUEST_METRICS)


def _all(value):
    """The summary's statistics (see `_stats`) of values that are all `value`."""
    return dict.fromkeys(("p50", "p95", "p99", "max", "mean"), float(value))


def test_a_bounded_runs_summary_counts_its_dry_spells_its_muted_channels_and_the_requests_left_unfinished():
    """one_shot(count=3): a 900-byte pool and three 900-byte Produce requests at 0 (10 ms to read, 50 to handle; the
    buffer is held until the handler is done). producer-0 is read at 0 and empties the pool: producer-1 and producer-2
    are refused and muted, and a dry spell begins. The memory is back at 60 (spell 0-60); the thread, woken by
    producer-0's response, reads producer-1 and is refused for producer-2 (a new spell from 60). Back at 120 (spell
    60-120): producer-2 is read, built at 130 and handled until 180. Each figure follows SUMMARY_DOC.
    Cut at 140 ms, producer-2 is in its handler; cut at 100, producer-1 is, producer-2 is still muted and the spell
    from 60 still runs: it counts up to the end (MemoryPoolDepletedTimeTotal at that instant)."""
    at_140 = {
        "kafka_version": "3.7",  # NetworkScenario's default
        "bound_bytes": 900,
        "socket_request_max_bytes": 900,
        "overshoot_limit_bytes": 1_799,  # 900 + 900 - 1
        "peak_memory_bytes": 900,  # each read finds the pool whole and empties it: no overshoot
        "peak_over_bound_bytes": 0,  # 900 - 900: reached, not exceeded
        "memory_pool_depleted_time_total_ms": 120,  # spells 0-60 and 60-120
        "memory_pool_avg_depleted_percent": 85.714,  # 100 x 120 / 140 = 85.7142857...
        "peak_memory_muted_channels": 2,  # producer-1 and producer-2, both at 0
        "peak_request_queue_size": 1,  # an idle handler takes each request the instant it is put
        "processor_blocked_ms": 0,  # queued.max.requests is 500
        "requests_sent": 3,
        "requests_completed": 2,  # producer-0 at 60, producer-1 at 120
        "requests_unfinished": 1,  # 3 - 2: producer-2, in its handler until 180
        "offered_mb_per_s": 0.019,  # 2,700 bytes / 0.14 s = 0.0193 MB/s
        "throughput_mb_per_s": 0.013,  # 1,800 bytes / 0.14 s = 0.0129 MB/s
        "throughput_requests_per_s": 14.286,  # 2 / 0.14 s = 14.2857...
        # Latencies 60 and 120 (both created at 0): of two values a < b, numpy's pq is a + q (b - a).
        "client_latency_ms": {"p50": 90.0, "p95": 117.0, "p99": 119.4, "max": 120.0, "mean": 90.0},
        "kafka_request_metrics_ms": {  # each taken by a handler as it is built, answered and sent when handled
            "RequestQueueTimeMs": _all(0), "LocalTimeMs": _all(50), "RemoteTimeMs": _all(0),
            "ResponseQueueTimeMs": _all(0), "ResponseSendTimeMs": _all(0), "TotalTimeMs": _all(50)},
        "not_in_kafka_metrics_ms": {
            "socket_wait_ms": _all(0),  # both first read at 0, as they arrive
            "memory_wait_ms": {"p50": 30.0, "p95": 57.0, "p99": 59.4, "max": 60.0, "mean": 30.0},  # 0 and 60
            "read_ms": _all(10),
            "processor_wait_ms": _all(0),  # built in the turn their read ends
            "before_start_ms": {"p50": 40.0, "p95": 67.0, "p99": 69.4, "max": 70.0, "mean": 40.0}},  # 10 and 70
        "hidden_latency_share": 0.4444,  # mean before_start_ms 40 / mean latency 90
        "jain_index": 0.6667,  # completed/sent per client (1, 1, 0): 2^2 / (3 x 2)
        "min_completion_ratio": 0.0,
        "starved_clients": 1,  # producer-2: sent one, none completed
    }
    assert one_shot(count=3, duration_ms=140).summary == at_140
    assert one_shot(count=3, duration_ms=100).summary == {
        **at_140,
        "memory_pool_depleted_time_total_ms": 100,  # 0-60, then 60 to the end at 100
        "memory_pool_avg_depleted_percent": 100.0,
        "requests_completed": 1,  # producer-0 alone
        "requests_unfinished": 2,
        "offered_mb_per_s": 0.027,  # 2,700 bytes / 0.1 s
        "throughput_mb_per_s": 0.009,  # 900 bytes / 0.1 s
        "throughput_requests_per_s": 10.0,
        "client_latency_ms": _all(60),
        "not_in_kafka_metrics_ms": {**at_140["not_in_kafka_metrics_ms"], "memory_wait_ms": _all(0),
                                    "before_start_ms": _all(10)},
        "hidden_latency_share": 0.1667,  # 10 / 60
        "jain_index": 0.3333,  # (1, 0, 0): 1^2 / (3 x 1)
        "starved_clients": 2,
    }


def test_an_unbounded_runs_summary_has_no_bound_figures_and_leaves_a_client_that_sent_nothing_out_of_fairness():
    """queued.max.request.bytes=-1 (MemoryPool.NONE): one_shot's three 900-byte requests are all read at 0 and held
    together, three times what the 900-byte pool let in, and handled side by side 10-60 (8 handlers). idle-0 is
    connected but sends nothing: it has no completion ratio, so Jain's index and the lowest ratio are over the
    clients that sent something, and it is not starved (SUMMARY_DOC)."""
    run = one_shot(count=3, pool=-1, idle=1, duration_ms=1_000)
    assert run.summary == {
        "kafka_version": "3.7",
        "bound_bytes": None,  # -1: disabled
        "socket_request_max_bytes": 900,
        "overshoot_limit_bytes": None,
        "peak_memory_bytes": 2_700,  # 3 x 900, all read at 0
        "peak_over_bound_bytes": None,
        "memory_pool_depleted_time_total_ms": 0,  # MemoryPool.NONE never refuses
        "memory_pool_avg_depleted_percent": 0.0,
        "peak_memory_muted_channels": 0,
        "peak_request_queue_size": 1,  # each put is taken at once by an idle handler
        "processor_blocked_ms": 0,
        "requests_sent": 3,  # idle-0's request would come at 1,000: not in the run
        "requests_completed": 3,
        "requests_unfinished": 0,
        "offered_mb_per_s": 0.003,  # 2,700 bytes / 1 s = 0.0027 MB/s
        "throughput_mb_per_s": 0.003,
        "throughput_requests_per_s": 3.0,
        "client_latency_ms": _all(60),
        "kafka_request_metrics_ms": {
            "RequestQueueTimeMs": _all(0), "LocalTimeMs": _all(50), "RemoteTimeMs": _all(0),
            "ResponseQueueTimeMs": _all(0), "ResponseSendTimeMs": _all(0), "TotalTimeMs": _all(50)},
        "not_in_kafka_metrics_ms": {"socket_wait_ms": _all(0), "memory_wait_ms": _all(0), "read_ms": _all(10),
                                    "processor_wait_ms": _all(0), "before_start_ms": _all(10)},
        "hidden_latency_share": 0.1667,  # 10 / 60
        "jain_index": 1.0,  # (1, 1, 1): idle-0's 0/0 is left out
        "min_completion_ratio": 1.0,
        "starved_clients": 0,  # idle-0 sent nothing: not starved
    }
    # The clients frame, in connection order: idle-0's ratio and mean latency are 0/0 (None here), its share 0.
    clients = run.clients.astype(object)
    assert clients.where(clients.notna(), None).values.tolist() == [
        [f"producer-{k}", "producer", 0, 1, 1, 900, 1.0, 1 / 3, 60.0, 0.0] for k in range(3)] + [
        ["idle-0", "idle", 0, 0, 0, 0, None, 0.0, None, 0.0]]


def test_summary_is_documented_and_depleted_time_matches_the_events():
    run = run_of("memory_limit", "bounded")
    assert set(run.summary) == set(SUMMARY_DOC)
    ev = run.events
    recovered = ev.loc[ev.kind == "MemoryPoolRecovered", "value"].sum()
    depleted = ev[ev.kind == "MemoryPoolDepleted"]
    assert len(depleted) - (ev.kind == "MemoryPoolRecovered").sum() in (0, 1)
    ongoing = run.end_ms - depleted["time"].iloc[-1] if len(depleted) > (ev.kind == "MemoryPoolRecovered").sum() else 0
    assert run.summary["memory_pool_depleted_time_total_ms"] == recovered + ongoing


def test_events_use_the_project_schema():
    run = run_of("both_bounds", "small requests")
    ev = run.events
    assert list(ev.columns) == list(FIELDS) and set(ev.source) == {"broker"}
    assert ev.time.is_monotonic_increasing
    df = run.requests
    assert (ev.kind == "Produce").sum() == df["start"].notna().sum()
    assert (ev.kind == "ProduceResponse").sum() == df["end"].notna().sum() == run.summary["requests_completed"]
    assert set(ev.loc[ev.kind == "ProduceResponse", "error"]) == {"NONE"}


def test_clients_frame_and_fairness():
    run = run_of("starvation", "no shuffle")
    clients, s = run.clients, run.summary
    assert clients["sent"].sum() == s["requests_sent"] and clients["completed"].sum() == s["requests_completed"]
    assert clients["share"].sum() == pytest.approx(1.0)
    x = clients["completion_ratio"].to_numpy()
    assert s["jain_index"] == pytest.approx(x.sum() ** 2 / (len(x) * (x ** 2).sum()), abs=1e-4)
    assert s["starved_clients"] == (clients["completed"] == 0).sum()


def test_jains_index_weighs_each_clients_completed_share_and_is_none_when_nothing_completed():
    # a completes 1 of its 3 requests (the later two arrive too late to be answered), b-0 and b-1 their one each:
    # x = (1/3, 1, 1), (7/3)^2 / (3 x 19/9) = 49/57 = 0.85965, to 4 places 0.8596; the lowest share 0.3333;
    # 3 answers in 1 s, 5 x 0.1 MB offered. A run too short for any answer has no index.
    def run(duration_ms):
        return simulate_network(NetworkScenario(duration_ms=duration_ms, handler_base_ms=50, clients=(
            ClientGroup(count=1, arrivals=(0, 980, 990), size_bytes=100_000, name="a"),
            ClientGroup(count=2, arrivals=(0,), size_bytes=100_000, name="b"))))
    summary = run(1_000).summary
    assert [summary[k] for k in ("jain_index", "min_completion_ratio", "throughput_requests_per_s",
                                 "offered_mb_per_s")] == [0.8596, 0.3333, 3.0, 0.5]
    assert run(10).summary["jain_index"] is None


def test_a_run_where_no_client_sent_has_no_completion_ratio_and_no_starved_client():
    """_summarize: the ratios are over the clients that sent something; a client whose only request would come
    after the run's end sent nothing, is not starved, and leaves no lowest ratio (None, not an error)."""
    summary = simulate_network(NetworkScenario(duration_ms=1000, clients=(
        ClientGroup(count=1, arrivals=(5000,), size_bytes=100, name="a"),))).summary
    assert [summary[k] for k in ("jain_index", "min_completion_ratio", "starved_clients",
                                 "throughput_requests_per_s")] == [None, None, 0, 0.0]


def test_a_megabyte_in_the_summary_is_a_million_bytes():
    """SUMMARY_DOC: MB = 10^6 bytes. Three 7,000,000-byte requests at 0, read and handled at once (links and handlers
    of 10^6 MB/s, no memory bound), in a 10 ms run: 21,000,000 bytes / 0.01 s = 2,100 MB/s offered and completed
    (large enough that a divisor off by one byte shows at the summary's 3 decimals: 2,099.998)."""
    run = simulate_network(NetworkScenario(
        duration_ms=10, handler_base_ms=0, network_mb_per_s=1e6, handler_mb_per_s=1e6,
        broker={"queued.max.request.bytes": -1}, clients=(ClientGroup(count=3, arrivals=(0,), size_bytes=7_000_000),)))
    assert [run.summary[k] for k in ("requests_completed", "offered_mb_per_s", "throughput_mb_per_s")] == [
        3, 2100.0, 2100.0]


def test_summary_table_puts_runs_side_by_side():
    table = summary_table({label: run_of("throughput", label) for label in ("unbounded", "bounded")})
    assert list(table.columns) == ["unbounded", "bounded"]
    assert table.loc["bound_bytes", "unbounded"] is None and table.loc["bound_bytes", "bounded"] == 10 * MiB


@pytest.mark.parametrize("seed, start, draws", [(5_424, 1_000, 76 * 2), (17_901, 0, 76)])
def test_poisson_arrivals_are_exponential_gaps_from_the_clients_own_stream_for_as_long_as_the_run_needs(
        seed, start, draws):
    # Each client draws from numpy's default_rng([seed, crc32(client id)]): a first batch of gaps, 1.2 times the
    # expected count plus 16 (76 at 50/s for 1 s); while they end before the window does, as many again; then one
    # size per arrival. Two seeds found by a search: with 5,424 the first 76 gaps end before 1 s and producer-0's
    # 77 arrivals need the second batch; with 17,901 only the 76th gap ends past 1 s, so one batch is enough.
    # Pinning the draws keeps a saved run reproducible byte for byte.
    run = simulate_network(NetworkScenario(seed=seed, duration_ms=start + 1_000, clients=(ClientGroup(
        count=1, rate_per_s=50.0, size_bytes=(1, 1_000), start_ms=start),)))
    rng = np.random.default_rng([seed, zlib.crc32(b"producer-0")])
    gaps = np.cumsum(rng.exponential(20.0, draws))
    assert gaps[-2] < 1_000 <= gaps[-1] if draws == 76 else gaps[75] < 1_000 < gaps[-1]
    created = np.floor(start + gaps[gaps < 1_000]).astype(int).tolist()
    assert run.requests[["created", "size_bytes"]].values.tolist() == [
        [t, s] for t, s in zip(created, rng.integers(1, 1_001, len(created)))]


def test_arrivals_are_seeded_per_client():
    group = ClientGroup(count=3, rate_per_s=50, size_bytes=(1, 1000), arrivals="periodic")
    run = simulate_network(clients=(group,), duration_ms=1000)
    created = run.requests.groupby("client")["created"].apply(list)
    assert all(len(times) in (49, 50, 51) for times in created)
    gaps = np.diff(created["producer-0"])
    assert set(gaps) <= {19, 20, 21}  # every 20 ms, floored to the ms
    two = simulate_network(clients=(group, ClientGroup(name="other", count=1)), duration_ms=1000)
    assert two.requests[two.requests.group == "producer"]["created"].tolist() == run.requests["created"].tolist()
