"""Rules of the broker models (`kafkasim.broker`) pinned by name (issue 29), from Kafka's source
and the modules' docstrings: SimpleMemoryPool's bookkeeping (KAFKA-4602), the KIP-72 experiments
as the KIP's test plan describes them (built again inside the tests: mutmut switches a mutant on
only after import), the broker's rows, and the fetch-size warnings that name the config to change."""

from __future__ import annotations

import math

import pytest

from kafkasim.broker import network as N
from kafkasim.broker.fetch_sizing import java_consumer_fetch, sizing_for_message, zookeeper_consumer_fetch
from kafkasim.broker.memory_pool import SimpleMemoryPool, UnboundedPool

MiB = 2**20


def test_a_pool_with_one_byte_left_is_not_out_of_memory():
    """SimpleMemoryPool.isOutOfMemory: availableMemory <= 0."""
    pool = SimpleMemoryPool(100, 50)
    assert pool.try_allocate(50) and pool.try_allocate(49)
    assert not pool.is_out_of_memory()
    assert pool.try_allocate(1) and pool.is_out_of_memory()


@pytest.mark.parametrize("size, largest", [(1, 1), (100, 1), (100, 100)])
def test_a_pool_takes_any_positive_size_with_a_largest_allocation_from_1_byte_to_its_size(size, largest):
    """SimpleMemoryPool's constructor refuses sizeInBytes <= 0, maxSingleAllocationSize <= 0 and
    maxSingleAllocationSize > sizeInBytes: 1 byte and the whole pool are allowed. `peak_used` keeps
    the most ever used (MemoryPoolUsed's maximum), also after a release."""
    pool = SimpleMemoryPool(size, largest)
    assert pool.try_allocate(largest) and (pool.used, pool.peak_used) == (largest, largest)
    pool.release(largest)
    assert pool.try_allocate(1) and (pool.used, pool.peak_used) == (1, largest)


def test_an_unbounded_pool_starts_with_nothing_used_and_remembers_its_peak():
    pool = UnboundedPool()
    assert (pool.used, pool.peak_used) == (0, 0)
    pool.try_allocate(7)
    pool.release(7)
    assert (pool.used, pool.peak_used) == (0, 7)


def test_the_kip_72_experiments_are_the_test_plans_scenarios():
    """kip72_experiments' docstring: 100 producers of 10 KB to 1 MiB, unbounded vs a 10 MiB pool; the
    same producers at a lower rate for throughput; 60 producers of 1 MB on one network thread with a
    20 MB pool, shuffled or not."""
    ex = N.kip72_experiments(seed=4)
    stress = ex["memory_limit"]["unbounded"]
    [heavy] = stress.clients
    assert (heavy.count, heavy.size_bytes, stress.seed) == (100, (10_000, MiB), 4)
    assert ex["memory_limit"]["bounded"] == stress.replace(broker={"queued.max.request.bytes": 10 * MiB})
    normal = ex["throughput"]["unbounded"]
    [light] = normal.clients
    assert (light.count, light.size_bytes) == (100, (10_000, MiB)) and light.rate_per_s < heavy.rate_per_s
    assert normal.replace(clients=stress.clients) == stress
    crowd = ex["starvation"]["shuffle"]
    [group] = crowd.clients
    assert (group.count, group.size_bytes) == (60, 1_000_000)
    assert (crowd.broker_config["num.network.threads"], crowd.broker_config["queued.max.request.bytes"],
            crowd.shuffle_on_low_memory) == (1, 20_000_000, True)
    assert ex["starvation"]["no shuffle"] == crowd.replace(shuffle_on_low_memory=False)
    assert N.kip72_experiments(seed=4) == ex  # the same pairs each time they are built


def test_the_broker_writes_each_response_as_a_successful_row_and_each_blocked_processor_as_its_own():
    """A network thread blocks when the request queue holds queued.max.requests (16 here): the row
    is the broker's, names the thread and gives the queue's length."""
    run = N.simulate_network(N.kip72_experiments()["both_bounds"]["small requests"])
    rows = run.events
    responses = rows[rows["kind"].str.endswith("Response")]
    assert len(responses) > 0 and set(responses["source"]) == {"broker"} and set(responses["error"]) == {"NONE"}
    blocked = rows[rows["kind"] == "ProcessorBlocked"]
    assert len(blocked) > 0 and set(blocked["source"]) == {"broker"} and set(blocked["value"]) == {16.0}
    assert set(blocked["member"]) <= {"network-thread-0", "network-thread-1", "network-thread-2"}


def test_a_run_starts_its_time_series_at_zero_on_every_count():
    ts = N.simulate_network(N.kip72_experiments()["both_bounds"]["small requests"]).timeseries
    assert ts.iloc[0].tolist()[:5] == [0, 0, 0, 0, 0]


@pytest.mark.parametrize("values, expected", [
    ([1.0, float("nan"), 3.0], {"p50": 2.0, "p95": 2.9, "p99": 2.98, "max": 3.0, "mean": 2.0}),
    ([float("nan")], {"p50": None, "p95": None, "p99": None, "max": None, "mean": None}),
])
def test_latency_statistics_leave_out_requests_without_a_time(values, expected):
    assert N._stats(values) == expected


def test_the_summary_names_the_peak_request_queue():
    run = N.simulate_network(N.kip72_experiments()["both_bounds"]["small requests"])
    assert run.summary["peak_request_queue_size"] == int(run.timeseries["request_queue_size"].max()) <= 16


def test_the_summary_table_shows_p99s_of_kafkas_total_and_queue_times_beside_what_the_clients_wait():
    """summary_table's docstring: rows are TABLE_KEYS, then the p99 of the client latency, of Kafka's
    TotalTimeMs and RequestQueueTimeMs (RequestMetrics, KIP-72's "request=Produce" histograms) and of the
    memory wait no Kafka metric shows. By hand: two 900-byte Produce requests at t=0 into a 900-byte
    pool, 10 ms to read, 50 ms to handle; the second waits 60 ms for the first's buffer, so clients wait
    60 and 120 ms (p99 119.4), the memory waits are 0 and 60 (p99 59.4), and each request takes 50 ms
    in the broker, none of it queued."""
    run = N.simulate_network(N.NetworkScenario(
        broker={"queued.max.request.bytes": 900, "socket.request.max.bytes": 900, "num.network.threads": 1},
        clients=(N.ClientGroup(count=2, arrivals=(0,), size_bytes=900, api="Produce"),),
        network_mb_per_s=0.09, handler_base_ms=50, duration_ms=2000))
    table = N.summary_table({"two producers": run})
    p99s = ["client_latency_p99_ms", "TotalTimeMs_p99", "RequestQueueTimeMs_p99",
            "memory_wait_p99_ms (not in Kafka metrics)"]
    assert table.index.tolist() == list(N.TABLE_KEYS) + p99s
    assert table.loc[p99s, "two producers"].tolist() == [pytest.approx(119.4), 50.0, 0.0, pytest.approx(59.4)]


def test_a_zookeeper_consumer_overflowing_the_size_field_is_told_which_config_multiplies():
    r = zookeeper_consumer_fetch(partitions=4000, consumer={"fetch.message.max.bytes": MiB})
    assert r["overflow"] and r["message"].startswith(
        f"fetch.message.max.bytes ({MiB}) x 4000 partitions in one fetch request = ")


def test_a_0_9_consumer_overflowing_the_size_field_is_pointed_to_kip_74():
    r = java_consumer_fetch("0.9", partitions=4000, consumer={"max.partition.fetch.bytes": MiB})
    assert r["overflow"] and r["message"].startswith(f"max.partition.fetch.bytes ({MiB}) x 4000 partitions in one ")
    assert "(KAFKA-1196); Kafka 0.10.1+ bounds the response with fetch.max.bytes (KIP-74)" in r["message"]


def test_sizing_for_a_message_covers_exactly_the_versions_asked_for():
    rows = sizing_for_message(2 * MiB, versions=("0.9", "3.7"), partitions=10)
    assert list(rows["kafka_version"]) == ["0.9", "3.7"]


# Two clients send one 1,000,000-byte Produce each at 0 ms: each connection is read in 10 ms
# (100 MB/s), each handler takes 1 + 10 ms (handler_base_ms + size at 100 MB/s), so both responses
# are ready at 21 ms, with both requests in memory at once (2,000,000 B).
TWO_PRODUCES = (N.ClientGroup(count=2, size_bytes=1_000_000, arrivals=(0,)),)


@pytest.mark.parametrize("send_ms", [0, 7])
def test_a_response_takes_response_send_ms_to_write_which_response_send_time_ms_measures(send_ms):
    """NetworkScenario's docstring: `response_send_ms` is the time to write a response; RequestMetrics'
    ResponseSendTimeMs runs from the response leaving the response queue to the send's completion
    (RequestChannel.Request.updateRequestMetrics), so the client has its answer send_ms after 21 ms."""
    run = N.simulate_network(N.NetworkScenario(kafka_version="0.10.2", clients=TWO_PRODUCES, duration_ms=1_000,
                                               response_send_ms=send_ms))
    done = run.requests
    assert done["response_dequeued"].tolist() == [21.0, 21.0]
    assert done["ResponseSendTimeMs"].tolist() == [send_ms, send_ms]
    assert done["client_latency_ms"].tolist() == [21.0 + send_ms] * 2


def test_a_network_runs_repr_names_the_version_the_memory_bound_and_what_was_served():
    """What a learner sees of a run: Kafka's version, queued.max.request.bytes (KIP-72, 1.0+; unbounded
    before), the peak memory of requests, completed/sent and the p99 client latency. A client of
    1,000,000 B requests and one of 500,000 B send at 0 ms and 990 ms: at 0 ms the big one is answered at
    21 ms, the small one at 5 + 1 + 5 = 11 ms (p99 of the two, linearly interpolated: 11 + .99 x 10 = 20.9
    ms), both in memory at once; the two sent at 990 ms are not answered when the run ends at 1,000 ms."""
    late = (N.ClientGroup(count=1, size_bytes=1_000_000, arrivals=(0, 990), name="big"),
            N.ClientGroup(count=1, size_bytes=500_000, arrivals=(0, 990), name="small"))
    unbounded = N.simulate_network(N.NetworkScenario(kafka_version="0.10.2", clients=late, duration_ms=1_000))
    assert repr(unbounded) == ("<NetworkRun Kafka 0.10.2, unbounded: peak 1,500,000 B, 2/4 requests, "
                               "p99 client latency 20.9 ms>")
    bounded = N.simulate_network(N.NetworkScenario(
        kafka_version="3.7", clients=TWO_PRODUCES, duration_ms=1_000,
        broker={"queued.max.request.bytes": 3_000_000, "socket.request.max.bytes": 2_000_000}))
    assert repr(bounded) == ("<NetworkRun Kafka 3.7, bound 3,000,000 B: peak 2,000,000 B, 2/2 requests, "
                             "p99 client latency 21.0 ms>")


def test_a_network_thread_blocked_on_the_full_request_queue_is_unblocked_with_the_time_it_waited():
    """RequestChannel.sendRequest blocks the Processor on requestQueue.put while queued.max.requests wait:
    each ProcessorUnblocked row is the broker's, names the thread and gives the ms since that thread's
    ProcessorBlocked; the summary adds every wait of every thread (up to the run's end for one still
    blocked); the time series counts the threads blocked, one more at each Blocked, one less at each
    Unblocked."""
    run = N.simulate_network(N.kip72_experiments()["both_bounds"]["small requests"])
    rows = run.events[run.events["kind"].isin(["ProcessorBlocked", "ProcessorUnblocked"])]
    assert set(rows["source"]) == {"broker"}
    since: dict[str, int] = {}
    waits, running, counts = [], 0, [0]
    for time_ms, kind, member, value in zip(rows["time"], rows["kind"], rows["member"], rows["value"]):
        if kind == "ProcessorBlocked":
            assert member not in since
            since[member], running = int(time_ms), running + 1
        else:
            waits.append(int(time_ms) - since.pop(member))
            assert value == waits[-1]
            running -= 1
        counts.append(running)
    assert len(waits) > 3 and any(w > 1 for w in waits)  # several waits per thread, of different lengths
    assert run.summary["processor_blocked_ms"] == sum(waits) + sum(run.end_ms - t for t in since.values())
    drawn = run.timeseries["blocked_processors"].tolist()
    assert [c for i, c in enumerate(drawn) if i == 0 or c != drawn[i - 1]] == \
        [c for i, c in enumerate(counts) if i == 0 or c != counts[i - 1]]
