"""Rules of the broker models (`kafkasim.broker`) pinned by name (issue 29), from Kafka's source
and the modules' docstrings: SimpleMemoryPool's bookkeeping (KAFKA-4602), the KIP-72 experiments
as the KIP's test plan describes them (built again inside the tests: mutmut switches a mutant on
only after import), the broker's rows, and the fetch-size warnings that name the config to change."""

from __future__ import annotations

import json
import math
from pathlib import Path

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
    assert (pool.used, pool.peak_used) == (0, 0)
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


# -- the KIP-72 experiments: what each is for, and the chapter and benchmark that describe them ------------
ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "notebooks" / "06-broker-memory.ipynb"
THREADS = {1: "a single", 2: "two", 3: "three", 8: "eight"}  # how chapter 06 writes a thread count


def _chapter(cell_type: str) -> str:
    """Chapter 06's cells of one type, joined, with runs of white space made one space (line breaks)."""
    cells = json.loads(CHAPTER.read_text())["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == cell_type)


def _size(n: int) -> str:
    """A size as the chapter writes it: 1 MiB, 1 MB, 10 KB."""
    if n % MiB == 0:
        return f"{n // MiB} MiB"
    return f"{n // 1_000_000} MB" if n % 1_000_000 == 0 else f"{n / 1000:g} KB"


def _load(group: N.ClientGroup, who: str) -> str:
    sizes = group.size_bytes if isinstance(group.size_bytes, tuple) else (group.size_bytes,)
    return (f"{group.count} {who}, each sending on average {group.rate_per_s:g} requests per second of "
            + " to ".join(map(_size, sizes)))


def _handlers(s: N.NetworkScenario) -> str:
    return (f"{THREADS[s.broker_config['num.io.threads']]} handler threads that each handle "
            f"{s.handler_mb_per_s:g} MB/s (plus {s.handler_base_ms:g} ms per request)")


def _offered_mb_per_s(s: N.NetworkScenario) -> float:
    """Mean demand: clients x rate x mean size (sizes drawn evenly between the two bounds)."""
    return sum(g.count * g.rate_per_s * (sum(g.size_bytes) / 2 if isinstance(g.size_bytes, tuple) else g.size_bytes)
               for g in s.clients) / 1e6


def _handled_mb_per_s(s: N.NetworkScenario, size: float) -> float:
    """What num.io.threads handlers carry at most of requests of `size` bytes, each taking
    handler_base_ms + size / handler_mb_per_s (the module's docstring)."""
    ms = s.handler_base_ms + size / (s.handler_mb_per_s * 1000)
    return s.broker_config["num.io.threads"] * 1000 / ms * size / 1e6


def test_chapter_06_describes_the_experiments_it_runs_with_their_own_values():
    """Chapter 06 tells the learner each experiment's load, handlers and bounds in prose; the prose is
    what the runs use, or the chapter explains runs it does not make (its experiments() only shortens
    the runs)."""
    ex, text = N.kip72_experiments(), _chapter("markdown")
    stress, bounded = ex["memory_limit"]["unbounded"], ex["memory_limit"]["bounded"]
    normal, crowd = ex["throughput"]["unbounded"], ex["starvation"]["shuffle"]
    small, large = ex["both_bounds"]["small requests"], ex["both_bounds"]["large requests"]
    expected = [
        f"`memory_limit` experiment: {_load(stress.clients[0], 'producers')}, to {_handlers(stress)}.",
        f"once with `queued.max.request.bytes` = {_size(bounded.broker_config['queued.max.request.bytes'])}.",
        f"lower `socket.request.max.bytes` to {_size(stress.broker_config['socket.request.max.bytes'])},",
        f"runs the same {normal.clients[0].count} producers at {normal.clients[0].rate_per_s:g} requests per second each",
        f"`starvation` experiment puts {_load(crowd.clients[0], 'producers')}, on "
        f"{THREADS[crowd.broker_config['num.network.threads']]} network thread with a "
        f"{_size(crowd.broker_config['queued.max.request.bytes'])} pool, in front of {_handlers(crowd)},",
        f"`both_bounds` experiment uses a queue of {small.broker_config['queued.max.requests']} requests, an "
        f"{_size(small.broker_config['queued.max.request.bytes'])} pool and {_handlers(small)}, once with "
        f"{_load(small.clients[0], 'clients')}, and once with {_load(large.clients[0], 'clients')}.",
    ]
    assert [s for s in expected if s not in text] == []
    assert large == small.replace(clients=large.clients)  # only the clients differ


def test_chapter_06_reads_every_side_of_every_experiment_by_its_label():
    """The chapter's cells take a pair's runs by label (p["bounded"], both_runs["small requests"]):
    a label it does not name is a run it never shows, a label it names and the pair lacks a KeyError."""
    code = _chapter("code")
    labels = {name: list(pair) for name, pair in N.kip72_experiments().items()}
    assert [f'"{label}"' for pair in labels.values() for label in pair if f'"{label}"' not in code] == []
    assert labels["throughput"] == labels["memory_limit"]  # the chapter charts the four runs side by side


def test_every_experiment_runs_with_the_seed_it_is_given_and_by_default_with_a_scenarios_default():
    """The chapter runs every pair once per seed of SEEDS: each scenario must carry that seed. Without
    a seed the pairs are those of a NetworkScenario left at its default seed (the chapter's SEED, 1)."""
    seeds = {name: {label: s.seed for label, s in pair.items()} for name, pair in N.kip72_experiments(seed=4).items()}
    assert {seed for pair in seeds.values() for seed in pair.values()} == {4}
    assert N.kip72_experiments() == N.kip72_experiments(seed=N.NetworkScenario().seed)


def test_each_experiment_lowers_socket_request_max_bytes_to_its_largest_request():
    """kip72_experiments' docstring: the bounded scenarios lower socket.request.max.bytes to the
    largest request sent, so that the pool may be that small and its overshoot (at most
    socket.request.max.bytes - 1, non-strict SimpleMemoryPool) is under one of those requests."""
    for name, pair in N.kip72_experiments().items():
        largest = max(g.size_bytes[1] if isinstance(g.size_bytes, tuple) else g.size_bytes
                      for s in pair.values() for g in s.clients)
        assert {s.broker_config["socket.request.max.bytes"] for s in pair.values()} == {largest}, name


def test_each_experiment_offers_the_load_its_question_needs():
    """By hand (MB = 10^6 bytes, sizes drawn evenly, handler time = base + size / speed):
    memory_limit: 100 x 5/s x 529,288 B = 264.6 MB/s offered, more than 8 handlers at 25 MB/s carry
    (< 200 MB/s): the KIP's stress test. throughput: 100 x 2/s = 105.9 MB/s, under that: a load the
    broker carries. starvation: 60 x 10/s x 1 MB = 600 MB/s, more than 8 x 50 MB/s = 400 MB/s, so
    memory stays tight. both_bounds: 30 x 50/s = 1,500 small requests a second, 2 handlers carry
    2 / 5.2 ms = 385; 16 queued 10 KB requests and 30 being read (460 KB) fit the 8 MiB pool many
    times over, so the queue fills first; 16 queued 1 MiB requests do not (16 MiB), so the pool runs
    dry first, and 30 x 10/s x 1 MiB = 314.6 MB/s is more than 2 handlers carry (80.7 MB/s)."""
    ex = N.kip72_experiments()
    stress, normal, crowd = ex["memory_limit"]["unbounded"], ex["throughput"]["unbounded"], ex["starvation"]["shuffle"]
    mean = (10_000 + MiB) / 2
    assert _offered_mb_per_s(normal) < _handled_mb_per_s(stress, mean) < _offered_mb_per_s(stress)
    assert _offered_mb_per_s(stress) == pytest.approx(264.644) and _offered_mb_per_s(normal) == pytest.approx(105.8576)
    assert _handled_mb_per_s(crowd, 1_000_000) < _offered_mb_per_s(crowd) == 600
    assert crowd.broker_config["queued.max.request.bytes"] < crowd.clients[0].count * 1_000_000  # not all fit
    for side, size in (("small requests", 10_000), ("large requests", MiB)):
        s = ex["both_bounds"][side]
        assert _handled_mb_per_s(s, size) < _offered_mb_per_s(s), side
    small, large = ex["both_bounds"]["small requests"].broker_config, ex["both_bounds"]["large requests"].broker_config
    held = (small["queued.max.requests"] + ex["both_bounds"]["small requests"].clients[0].count) * 10_000
    assert held < small["queued.max.request.bytes"] < large["queued.max.requests"] * MiB


def test_the_broker_memory_benchmark_times_the_scenarios_kip72_experiments_builds():
    """benchmarks/README.md publishes the timing of every side of every pair: its rows name each
    scenario, its clients and its simulated seconds, which must be the experiments' own."""
    text = (ROOT / "benchmarks" / "README.md").read_text()
    table = text.split("<!-- broker_memory:begin -->")[1].split("<!-- broker_memory:end -->")[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 3 and cells[1].isdigit():
            rows[cells[0].replace("**", "").replace(" (typical)", "")] = (int(cells[1]), float(cells[2]))
    built = {f"{name}/{label}": (sum(g.count for g in s.clients), s.duration_ms / 1000)
             for name, pair in N.kip72_experiments().items() for label, s in pair.items()}
    assert {k: v for k, v in rows.items() if k != "default"} == built


# -- ClientGroup's inputs: what it accepts, how it stores it, what it refuses (by name and range) -------------
def test_a_client_group_keeps_a_size_range_as_a_tuple_a_constant_as_an_int_and_instants_sorted():
    from kafkasim.broker.network import ClientGroup

    ranged = ClientGroup(size_bytes=[100, 200], arrivals=[30, 10, 20], stop_ms=5)
    assert (ranged.size_bytes, ranged.max_size, ranged.arrivals, ranged.stop_ms) == ((100, 200), 200, (10, 20, 30), 5)
    constant = ClientGroup(size_bytes=1_000)
    assert (constant.size_bytes, constant.max_size) == (1_000, 1_000)


@pytest.mark.parametrize("fields, message", [
    ({"start_ms": -1}, "ClientGroup('producer').start_ms must be an integer >= 0, got -1"),
    ({"stop_ms": 0, "start_ms": 0}, "ClientGroup('producer').stop_ms must be an integer >= 1, got 0"),
    ({"stop_ms": 10, "start_ms": 10}, "ClientGroup('producer').stop_ms must be an integer >= 11, got 10"),
    ({"size_bytes": (100, 200, 300)}, "size_bytes must be an int >= 1 or a range (low, high) with 1 <= low <= high, "
                                      "got (100, 200, 300)"),
    ({"size_bytes": (1, True)}, "got (1, True)"),
    ({"size_bytes": (1, 2.5)}, "got (1, 2.5)"),
    ({"arrivals": (10, True)}, "arrivals as instants must be ints >= 0 (ms), got (10, True)"),
    ({"arrivals": (10, 2.5)}, "arrivals as instants must be ints >= 0 (ms), got (10, 2.5)"),
    ({"arrivals": (10, -1)}, "arrivals as instants must be ints >= 0 (ms), got (10, -1)"),
])
def test_a_client_group_refuses_each_bad_field_by_its_name_and_range(fields, message):
    from kafkasim.broker.network import ClientGroup
    from kafkasim.core.errors import ConfigError

    with pytest.raises(ConfigError) as refused:
        ClientGroup(**fields)
    assert message in str(refused.value)
