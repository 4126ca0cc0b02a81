"""The broker's network layer and its request memory bound (KIP-72, ``queued.max.request.bytes``).

Kafka's ``kafka.network`` (``core/src/main/scala/kafka/network/SocketServer.scala``,
``RequestChannel.scala``), the handler threads (``kafka/server/KafkaRequestHandler.scala``) and the
client library's ``org.apache.kafka.common.network.Selector`` / ``KafkaChannel`` /
``NetworkReceive``, on kafkasim's deterministic engine.

What is modelled
----------------
* Clients (`ClientGroup`): one connection each, handed to the ``num.network.threads`` Processors
  in round robin (the Acceptor). Requests arrive at seeded instants (Poisson, periodic or given
  times) with seeded sizes, and wait in the client and the socket until the broker reads them.
* A Processor's loop (``Processor.run``): ``processNewResponses``, ``Selector.poll``,
  ``processCompletedReceives``, ``processCompletedSends``.
* ``Selector.poll``: when the pool is no longer out of memory, every channel that muted itself
  for memory is unmuted; ready channels are read in a fixed order (the NIO selected-key order),
  shuffled when memory is low (``determineHandlingOrder``: not out of memory and available
  < 10 % of the pool). Reading a request first reads its 4-byte size, then asks the pool for
  the whole request (``NetworkReceive.readFrom``); refused, the channel mutes itself and the
  Selector sets its ``outOfMemory`` flag (``KafkaChannel.read``). Granted, the body arrives at the
  connection's network rate.
* One request per connection at a time: a connection is muted from the moment its request is
  complete until its response has been sent.
* ``RequestChannel.sendRequest`` puts the request into one queue of ``queued.max.requests``
  entries; when it is full, the Processor thread blocks in ``put`` and reads, sends and answers
  nothing until a handler takes a request (``ArrayBlockingQueue``).
* ``num.io.threads`` handlers take requests in FIFO order; local time = ``handler_base_ms`` +
  size / ``handler_mb_per_s``; an optional remote time (``remote_ms``, acks=all waiting in the
  produce purgatory) after which the response goes to the owning Processor's response queue.
* Memory comes back where Kafka returns it (``ApiKeys.requiresDelayedAllocation``): requests
  whose schema holds BYTES or RECORDS (Produce, JoinGroup, SyncGroup) keep their buffer until the
  handler is done (``finally request.releaseBuffer()`` in ``KafkaRequestHandler.run``, so before
  any purgatory wait); all others release it in the ``RequestChannel.Request`` constructor, on
  the network thread, as soon as the request is parsed.
* Nothing wakes a Processor when memory is released: it notices on its next loop, woken by a
  response for one of its connections, a readable connection, or its select timeout (300 ms).

Simplifications
---------------
Integer milliseconds (each duration is rounded to the nearest ms); no CPU cost for network
threads; reads of different connections do not share bandwidth; a blocked Processor's
connections keep receiving into their socket buffers, so a request whose bytes were arriving is
complete when the Processor resumes; responses take ``response_send_ms`` to send; no
connection setup, SSL, quotas, throttling or request errors. Within one poll, memory can only
shrink, so after the first refused allocation the rest of the ready channels are refused too:
the model mutes them at once without trying each (same outcome, fewer steps), and losers of a
recovery pass (unmuted, refused, muted again at the same instant) are not logged twice.
``shuffle_on_low_memory=False`` is not a Kafka setting: it removes the shuffle to show the
starvation it prevents.

Derived (what the model predicts from Kafka's code; no Kafka document states it)
--------------------------------------------------------------------------------
* The shuffle needs less than 10 % of the pool left at the start of a poll. When one request
  is more than a tenth of the pool, a single release lifts memory above that line, the keys go
  in fixed order again, and the first connections win (see ``kip72_experiments`` "both_bounds").
* The shuffle is per network thread. Memory freed by a request is seen first by the thread
  that owns its connection (woken by the response); a thread whose connections all wait for
  memory looks again only after 300 ms, so under sustained pressure the clients of some network
  threads get less. In a real broker other traffic also wakes the threads.
* Memory freed while a response waits in purgatory (``remote_ms``) stays unused until some
  network thread is woken.

The KIP and what shipped
------------------------
KIP-72 proposed ``queued.max.bytes``; Kafka 1.0.0 shipped ``queued.max.request.bytes``
(``KafkaConfig.QueuedMaxBytesProp``), default -1 (disabled; so is 0). The KIP says it must be
"larger than" ``socket.request.max.bytes``; Kafka requires larger *or equal*
(``KafkaConfig.validateValues``). The KIP says keys are shuffled when "the previous allocation
call failed"; the code shuffles when the pool has less than 10 % left and the Selector is not
marked out of memory.

Outputs (`NetworkRun`)
----------------------
``events`` in the project's event schema (source "broker"): per request ``<Api>`` when the broker
has read it (value: bytes) and ``<Api>Response`` when its response is sent (value:
TotalTimeMs); ``ChannelMuted`` / ``ChannelUnmuted`` (reason "memory"; Unmuted value: ms waited)
when a request's first allocation is refused and when it finally gets memory;
``MemoryPoolDepleted`` (value: available bytes) / ``MemoryPoolRecovered`` (value: dry-spell ms);
``ProcessorBlocked`` / ``ProcessorUnblocked`` (member: the network thread; Unblocked value: ms).
``requests`` (one row per request, every timestamp), ``timeseries`` (one row per change),
``clients`` (per-client fairness) and ``summary`` (documented in `SUMMARY_DOC`).
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import Any

import numpy as np

from kafkasim.core.config import broker_config
from kafkasim.core.engine import Simulation
from kafkasim.core.provenance import provenance
from kafkasim.core.errors import ConfigError, check_int
from kafkasim.broker.memory_pool import SimpleMemoryPool, UnboundedPool

__all__ = ["ClientGroup", "NetworkScenario", "NetworkRun", "simulate_network", "kip72_experiments", "summary_table",
           "RETAINS_BUFFER", "SUMMARY_DOC", "MiB", "REQUEST_METRICS", "POLL_TIMEOUT_MS", "LOW_MEMORY_FRACTION"]

#: SocketServer Processor.poll(): ``selector.poll(300)`` when no new connection waits.
POLL_TIMEOUT_MS = 300
#: Selector.lowMemThreshold = 0.1 * memoryPool.size(): below it, read order is shuffled.
LOW_MEMORY_FRACTION = 0.1
#: API -> keeps its pool buffer until the handler is done (ApiKeys.requiresDelayedAllocation:
#: the request schema has BYTES or RECORDS fields). Checked against the request JSON schemas.
RETAINS_BUFFER = {"Produce": True, "JoinGroup": True, "SyncGroup": True,
                  "Fetch": False, "Metadata": False, "Heartbeat": False, "OffsetCommit": False}
#: Kafka's per-request latency histograms (``kafka.network:type=RequestMetrics,name=...,request=Produce``,
#: recorded by ``RequestChannel.Request.updateRequestMetrics``; names in ``object RequestMetrics`` of
#: RequestChannel.scala from 1.0.0 to 3.9; ``server/.../network/metrics/RequestMetrics.java`` on trunk after
#: 3.9) -> the timestamps that bound them. ThrottleTimeMs and MessageConversionsTimeMs also exist; the model
#: has no quotas or down-conversion, so they would be 0.
REQUEST_METRICS = {
    "RequestQueueTimeMs": ("start", "dequeued"),
    "LocalTimeMs": ("dequeued", "local_done"),
    "RemoteTimeMs": ("local_done", "response_done"),
    "ResponseQueueTimeMs": ("response_done", "response_dequeued"),
    "ResponseSendTimeMs": ("response_dequeued", "end"),
    "TotalTimeMs": ("start", "end"),
}
#: Time a request spends before ``startTimeNanos``: no broker metric shows it.
HIDDEN_WAITS = {
    "socket_wait_ms": ("created", "first_read"),
    "memory_wait_ms": ("first_read", "allocated"),
    "read_ms": ("allocated", "read_done"),
    "processor_wait_ms": ("read_done", "start"),
    "before_start_ms": ("created", "start"),
}
_STAMPS = ("created", "first_read", "allocated", "read_done", "start", "dequeued", "local_done",
           "response_done", "response_dequeued", "end")


# -- the question ---------------------------------------------------------------------------
def _positive(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ConfigError(f"{name} must be a finite number > 0, got {value!r}")


@dataclass(frozen=True)
class ClientGroup:
    """`count` identical clients, one connection each, sending `api` requests.

    `size_bytes` is a constant or an inclusive ``(low, high)`` range drawn uniformly per request.
    `arrivals` is "poisson" (exponential gaps, mean 1000/`rate_per_s` ms), "periodic" (every
    1000/`rate_per_s` ms from a seeded phase) or a tuple of instants (ms) at which every client
    of the group sends one request. Clients send during [`start_ms`, `stop_ms`) (default: the run).
    """

    count: int = 20
    rate_per_s: float = 20.0
    size_bytes: Any = (100_000, 1_000_000)
    arrivals: Any = "poisson"
    api: str = "Produce"
    name: str = "producer"
    start_ms: int = 0
    stop_ms: int | None = None

    def __post_init__(self):
        check_int(f"ClientGroup({self.name!r}).count", self.count, 1)
        check_int(f"ClientGroup({self.name!r}).start_ms", self.start_ms, 0)
        if self.stop_ms is not None:
            check_int(f"ClientGroup({self.name!r}).stop_ms", self.stop_ms, self.start_ms + 1)
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError(f"ClientGroup.name must be a non-empty string, got {self.name!r}")
        if self.api not in RETAINS_BUFFER:
            raise ConfigError(f"ClientGroup({self.name!r}).api must be one of {', '.join(RETAINS_BUFFER)}, "
                              f"got {self.api!r}")
        sizes = self.size_bytes if isinstance(self.size_bytes, (tuple, list)) else (self.size_bytes,) * 2
        if len(sizes) != 2 or any(isinstance(s, bool) or not isinstance(s, int) for s in sizes) \
                or not 1 <= sizes[0] <= sizes[1]:
            raise ConfigError(f"ClientGroup({self.name!r}).size_bytes must be an int >= 1 or a range "
                              f"(low, high) with 1 <= low <= high, got {self.size_bytes!r}")
        object.__setattr__(self, "size_bytes", self.size_bytes if isinstance(self.size_bytes, int) else tuple(sizes))
        if isinstance(self.arrivals, (tuple, list)):
            if not self.arrivals or any(isinstance(t, bool) or not isinstance(t, int) or t < 0 for t in self.arrivals):
                raise ConfigError(f"ClientGroup({self.name!r}).arrivals as instants must be ints >= 0 (ms), "
                                  f"got {self.arrivals!r}")
            object.__setattr__(self, "arrivals", tuple(sorted(self.arrivals)))
        elif self.arrivals not in ("poisson", "periodic"):
            raise ConfigError(f"ClientGroup({self.name!r}).arrivals must be 'poisson', 'periodic' or a tuple of "
                              f"instants in ms, got {self.arrivals!r}")
        else:
            _positive(f"ClientGroup({self.name!r}).rate_per_s", self.rate_per_s)

    @property
    def max_size(self) -> int:
        return self.size_bytes if isinstance(self.size_bytes, int) else self.size_bytes[1]


@dataclass(frozen=True)
class NetworkScenario:
    """Everything that determines a broker-network run; same scenario, same output byte for byte.

    `broker` holds Kafka broker configs (``queued.max.request.bytes``, ``socket.request.max.bytes``,
    ``queued.max.requests``, ``num.network.threads``, ``num.io.threads``); unset ones take the
    defaults of `kafka_version` (``queued.max.request.bytes`` exists from 1.0; before, memory is
    unbounded). The other fields are the model's physics, not Kafka configs: each connection is
    read at `network_mb_per_s`; a handler spends `handler_base_ms` + size / `handler_mb_per_s`
    on a request (MB = 10^6 bytes); `remote_ms` is a purgatory wait after that (acks=all);
    `response_send_ms` the time to write a response. `shuffle_on_low_memory=False` removes the
    Selector's shuffle (an experiment, not a Kafka setting).
    """

    kafka_version: str = "3.7"
    broker: dict = field(default_factory=dict)
    clients: tuple = (ClientGroup(),)
    duration_ms: int = 10_000
    seed: int = 1
    network_mb_per_s: float = 100.0
    handler_base_ms: float = 1.0
    handler_mb_per_s: float = 100.0
    remote_ms: int = 0
    response_send_ms: int = 0
    shuffle_on_low_memory: bool = True

    def __post_init__(self):
        set_ = object.__setattr__
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ConfigError(f"seed must be an int, got {self.seed!r}")
        check_int("duration_ms", self.duration_ms, 1)
        check_int("remote_ms", self.remote_ms, 0)
        check_int("response_send_ms", self.response_send_ms, 0)
        _positive("network_mb_per_s", self.network_mb_per_s)
        _positive("handler_mb_per_s", self.handler_mb_per_s)
        if isinstance(self.handler_base_ms, bool) or not isinstance(self.handler_base_ms, (int, float)) \
                or not 0 <= self.handler_base_ms < math.inf:
            raise ConfigError(f"handler_base_ms must be a finite number >= 0, got {self.handler_base_ms!r}")
        if not isinstance(self.shuffle_on_low_memory, bool):
            raise ConfigError(f"shuffle_on_low_memory must be True or False, got {self.shuffle_on_low_memory!r}")
        clients = (self.clients,) if isinstance(self.clients, ClientGroup) else tuple(self.clients)
        if not clients or not all(isinstance(g, ClientGroup) for g in clients):
            raise ConfigError(f"clients must be one or more ClientGroup, got {self.clients!r}")
        if len({g.name for g in clients}) != len(clients):
            raise ConfigError("each ClientGroup needs its own name (client ids are <name>-<n>)")
        set_(self, "clients", clients)
        cfg = broker_config(self.kafka_version, self.broker)
        set_(self, "broker_config", cfg)
        largest = cfg["socket.request.max.bytes"]
        for g in clients:
            if g.max_size > largest:
                raise ConfigError(
                    f"ClientGroup({g.name!r}) sends requests of up to {g.max_size} bytes, above "
                    f"socket.request.max.bytes={largest}: the broker would close the connection "
                    f"(InvalidReceiveException: Invalid receive (size = {g.max_size} larger than {largest}))")

    @property
    def bound_bytes(self) -> int | None:
        """``queued.max.request.bytes`` if it bounds memory (> 0), else None."""
        value = self.broker_config["queued.max.request.bytes"]
        return value if value is not None and value > 0 else None

    def replace(self, **changes) -> "NetworkScenario":
        """A copy with some fields changed (``broker={...}`` adds to the existing overrides)."""
        if "broker" in changes:
            changes["broker"] = {**self.broker, **changes["broker"]}
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["clients"] = [dataclasses.asdict(g) for g in self.clients]
        return out


# -- the model ------------------------------------------------------------------------------
NOT_YET = -1  # a stamp not reached (times are >= 0); NaN in the `requests` frame


class Request:
    """One request's life; every stamp is a time in ms, or NOT_YET."""

    __slots__ = ("channel", "size", *_STAMPS)

    def __init__(self, channel: "Channel", created: int, size: int):
        self.channel, self.created, self.size = channel, created, size
        self.first_read = self.allocated = self.read_done = self.start = self.dequeued = NOT_YET
        self.local_done = self.response_done = self.response_dequeued = self.end = NOT_YET


class Channel:
    """A client's connection (``KafkaChannel``): its queued requests and the one being handled."""

    __slots__ = ("index", "client", "group", "api", "retains", "processor", "times", "sizes", "next", "request")

    def __init__(self, index, client, group, processor, times, sizes):
        self.index, self.client, self.group, self.processor = index, client, group.name, processor
        self.api, self.retains = group.api, RETAINS_BUFFER[group.api]
        self.times, self.sizes = times, sizes  # arrival instants and sizes of every request, in order
        self.next = 0  # the request the broker reads next
        self.request: Request | None = None  # read, or being read, and not yet answered


class Processor:
    """A network thread (``SocketServer.Processor``) with its Selector's state."""

    def __init__(self, server: "SocketServer", pid: int):
        self.server, self.id, self.name = server, pid, f"network-thread-{pid}"
        self.ready: set[int] = set()  # readable, unmuted channels
        self.memory_muted: set[int] = set()  # channels that muted themselves for want of memory
        self.out_of_memory = False  # Selector.outOfMemory
        self.completed_reads: list[Channel] = []
        self.receives: deque[Channel] = deque()  # complete requests not yet in the request queue
        self.responses: deque[Request] = deque()  # the response queue (unbounded)
        self.sends_done: list[Request] = []
        self.blocked_since: int | None = None  # in RequestChannel.sendRequest (queue full)
        self.blocked_ms = 0
        self.last_poll = 0
        self.timeout_pending = False
        self.rng = server.sim.random(f"selector-{pid}")
        self.low_mem_threshold = int(LOW_MEMORY_FRACTION * server.pool.size)

    def wake(self) -> None:
        """Selector.wakeup(): the thread leaves select and turns its loop now (`run` does nothing while it is
        blocked in put). Nothing wakes a thread from inside its own loop: reads, handlers and responses
        complete in events of their own."""
        self.run()

    def run(self) -> None:
        """``Processor.run``: turn the loop while there is work at this instant, then wait in select."""
        now = self.server.sim.now
        while self.blocked_since is None:
            self.last_poll = now
            self._process_new_responses(now)
            self._poll(now)
            if not self._process_completed_receives(now):
                break  # blocked in RequestChannel.sendRequest
            self._process_completed_sends(now)
            # Another turn at this instant only for channels to read: a turn leaves no response, read or send
            # behind (each completes in an event of its own, which wakes the thread again).
            if not (self.ready or (self.out_of_memory and not self.server.pool.is_out_of_memory())):
                break
        if self.out_of_memory and self.blocked_since is None and not self.timeout_pending:
            self.timeout_pending = True
            self.server.sim.at(self.last_poll + POLL_TIMEOUT_MS, self._select_timeout)

    def resume(self) -> None:
        """A handler took a request: our blocked ``put`` went through; finish the turn and go on."""
        now = self.server.sim.now
        self.receives.popleft()
        self.server.unblocked(self, now)
        if self._process_completed_receives(now):
            self._process_completed_sends(now)
            self.run()

    def _select_timeout(self) -> None:
        """select(300 ms) returned with nothing ready: loop again (and retry memory)."""
        self.timeout_pending = False
        due = self.last_poll + POLL_TIMEOUT_MS
        if self.blocked_since is not None or not self.out_of_memory:
            return
        if self.server.sim.now >= due:
            self.run()
        else:  # the loop ran since this was armed: its own select timeout counts
            self.timeout_pending = True
            self.server.sim.at(due, self._select_timeout)

    def _process_new_responses(self, now: int) -> None:
        send_ms = self.server.send_ms
        while self.responses:
            req = self.responses.popleft()
            req.response_dequeued = now
            if send_ms:
                self.server.sim.schedule(send_ms, self._send_complete, req)
            else:  # written by this loop's Selector.poll
                self.sends_done.append(req)

    def _send_complete(self, req: Request) -> None:
        self.sends_done.append(req)
        self.wake()

    def _poll(self, now: int) -> None:
        """``Selector.poll``: unmute on recovered memory, then read ready channels in handling order."""
        server, pool = self.server, self.server.pool
        ready, candidates = self.ready, self.ready
        if self.out_of_memory and not pool.is_out_of_memory():
            self.out_of_memory = False  # unmute every channel muted for memory
            candidates = ready | self.memory_muted
        if candidates:
            self.ready = set()
            if server.shuffle and not self.out_of_memory and pool.available < self.low_mem_threshold:
                refused = self._read_shuffled(list(candidates), ready, now)  # determineHandlingOrder
            else:  # the NIO selected-key order: the same on every call
                refused = not all(server.start_read(server.channels[i], now) and not ready.discard(i)
                                  for i in sorted(candidates))
            if refused:  # memory cannot come back within one pass: every channel left is refused too
                self.out_of_memory = True
                for index in ready:
                    server.mute_for_memory(server.channels[index], now)
        if self.completed_reads:
            self.receives.extend(self.completed_reads)
            self.completed_reads = []

    def _read_shuffled(self, order: list[int], ready: set[int], now: int) -> bool:
        """Collections.shuffle, drawn lazily: a random channel at a time until the pool refuses one."""
        server, randrange = self.server, self.rng.randrange
        while order:
            k = randrange(len(order))
            order[k], order[-1] = order[-1], order[k]
            index = order.pop()
            if not server.start_read(server.channels[index], now):
                return True
            ready.discard(index)
        return False

    def _process_completed_receives(self, now: int) -> bool:
        """Hand complete requests to the request queue; False if the queue is full (blocked)."""
        server = self.server
        while self.receives:
            channel = self.receives[0]
            req = channel.request
            if req.start == NOT_YET:
                server.request_built(req, now)
            if not server.request_channel.send_request(self, req):
                server.blocked(self, now)
                return False
            self.receives.popleft()  # selector.mute(connectionId): until its response is sent
        return True

    def _process_completed_sends(self, now: int) -> None:
        for req in self.sends_done:
            self.server.response_sent(req, now)
        self.sends_done = []


class RequestChannel:
    """The shared request queue (an ``ArrayBlockingQueue`` of ``queued.max.requests``)."""

    def __init__(self, server: "SocketServer", capacity: int, handlers: list):
        self.server, self.capacity = server, capacity
        self.queue: deque[Request] = deque()
        self.putters: deque[Processor] = deque()  # Processors blocked in put(), first come first served
        self.idle: deque = deque(handlers)

    def send_request(self, processor: Processor, req: Request) -> bool:
        if len(self.queue) >= self.capacity:
            self.putters.append(processor)
            return False
        self.queue.append(req)
        self.server.sample()
        if self.idle:
            self.idle.popleft().take()
        return True

    def receive_request(self) -> Request:
        req = self.queue.popleft()
        if self.putters:  # the longest-blocked put goes through at once
            processor = self.putters.popleft()
            self.queue.append(processor.receives[0].request)
            self.server.sim.schedule(0, processor.resume)
        self.server.sample()
        return req


class KafkaRequestHandler:
    """An I/O thread: take a request, handle it, send the response, release the buffer."""

    def __init__(self, server: "SocketServer"):
        self.server = server

    def take(self) -> None:
        server = self.server
        req = server.request_channel.receive_request()
        req.dequeued = server.sim.now
        server.sim.schedule(server.local_ms(req.size), self.finish, req)

    def finish(self, req: Request) -> None:
        server = self.server
        req.local_done = server.sim.now
        # KafkaApis.handle sends the response, then `finally request.releaseBuffer()`: the
        # network thread woken by that response finds the memory back (here: release first).
        if req.channel.retains:
            server.release(req)
        if server.remote_ms:
            server.sim.schedule(server.remote_ms, server.respond, req)
        else:
            server.respond(req)
        if server.request_channel.queue:
            self.take()
        else:
            server.request_channel.idle.append(self)


class SocketServer:
    """The whole broker front end for one run: pool, Processors, request channel, handlers."""

    def __init__(self, scenario: NetworkScenario):
        cfg = scenario.broker_config
        self.sim = sim = Simulation(scenario.seed)
        self.add = sim.events.add
        bound = scenario.bound_bytes
        self.pool = (SimpleMemoryPool(bound, cfg["socket.request.max.bytes"], strict=False, clock=lambda: sim.now)
                     if bound else UnboundedPool())
        self.shuffle = scenario.shuffle_on_low_memory
        self.send_ms, self.remote_ms = scenario.response_send_ms, scenario.remote_ms
        self._read_bytes_per_ms = scenario.network_mb_per_s * 1000.0
        self._local_bytes_per_ms = scenario.handler_mb_per_s * 1000.0
        self._local_base_ms = scenario.handler_base_ms
        self.handlers = [KafkaRequestHandler(self) for _ in range(cfg["num.io.threads"])]
        self.request_channel = RequestChannel(self, cfg["queued.max.requests"], self.handlers)
        self.processors = [Processor(self, i) for i in range(cfg["num.network.threads"])]
        self.channels: list[Channel] = []
        for group in scenario.clients:
            for k in range(group.count):
                client = f"{group.name}-{k}"
                times, sizes = _requests_of(group, client, scenario.seed, scenario.duration_ms)
                processor = self.processors[len(self.channels) % len(self.processors)]  # Acceptor: round robin
                self.channels.append(Channel(len(self.channels), client, group, processor, times, sizes))
        self.requests: list[Request] = []
        self.muted = 0
        self.blocked_count = 0
        self.depleted = False
        self.series: list[tuple] = [(0, 0, 0, 0, 0)]
        for channel in self.channels:
            if channel.times:
                sim.at(channel.times[0], self._arrived, channel)

    # -- time model
    def read_ms(self, size: int) -> int:
        return int(size / self._read_bytes_per_ms + 0.5)

    def local_ms(self, size: int) -> int:
        return int(self._local_base_ms + size / self._local_bytes_per_ms + 0.5)

    def sample(self) -> None:
        self.series.append((self.sim.now, self.pool.used, len(self.request_channel.queue), self.muted,
                            self.blocked_count))

    # -- channel life
    def _next_request(self, channel: Channel, now: int) -> None:
        """The connection is unmuted: readable now if its next request is already there."""
        if channel.next < len(channel.times):
            due = channel.times[channel.next]
            if due <= now:
                channel.processor.ready.add(channel.index)
            else:
                self.sim.at(due, self._arrived, channel)

    def _arrived(self, channel: Channel) -> None:
        channel.processor.ready.add(channel.index)
        channel.processor.wake()

    def start_read(self, channel: Channel, now: int) -> bool:
        """Read the size prefix and ask the pool for the request; False if refused."""
        req = self._head_request(channel, now)
        if not self.pool.try_allocate(req.size):
            if not self.depleted:
                self.depleted = True
                self.add(now, "broker", "MemoryPoolDepleted", value=float(self.pool.available))
            return False
        req.allocated = now  # (a dry spell ended with the release that let this through)
        if channel.index in channel.processor.memory_muted:
            channel.processor.memory_muted.discard(channel.index)
            self.muted -= 1
            self.add(now, "broker", "ChannelUnmuted", member=channel.client, reason="memory",
                     value=float(now - req.first_read))
        self.sample()
        read_ms = self.read_ms(req.size)
        if read_ms:
            self.sim.schedule(read_ms, self._read_complete, channel)
        else:
            req.read_done = now
            channel.processor.completed_reads.append(channel)
        return True

    def _head_request(self, channel: Channel, now: int) -> Request:
        """The request whose size prefix the broker reads now (created on the first read)."""
        req = channel.request
        if req is None:
            req = channel.request = Request(channel, channel.times[channel.next], channel.sizes[channel.next])
            req.first_read = now
            self.requests.append(req)
        return req

    def mute_for_memory(self, channel: Channel, now: int) -> None:
        """``KafkaChannel.read``: the size is known but the pool refused: the channel mutes itself."""
        self._head_request(channel, now)
        muted = channel.processor.memory_muted
        if channel.index not in muted:
            muted.add(channel.index)
            self.muted += 1
            self.add(now, "broker", "ChannelMuted", member=channel.client, reason="memory")
            self.sample()

    def _read_complete(self, channel: Channel) -> None:
        channel.request.read_done = self.sim.now
        channel.processor.completed_reads.append(channel)
        channel.processor.wake()

    def request_built(self, req: Request, now: int) -> None:
        """``new RequestChannel.Request(startTimeNanos = now)``: most APIs release their buffer here."""
        req.start = now
        self.add(now, "broker", req.channel.api, member=req.channel.client, value=float(req.size))
        if not req.channel.retains:
            self.release(req)

    def release(self, req: Request) -> None:
        """The request's buffer goes back to the pool, once: when it is built, or (APIs that keep it, see
        RETAINS_BUFFER) when its handler is done."""
        self.pool.release(req.size)
        self._maybe_recovered(self.sim.now)
        self.sample()

    def _maybe_recovered(self, now: int) -> None:
        if self.depleted and self.pool.dry_spell_start is None:
            self.depleted = False
            self.add(now, "broker", "MemoryPoolRecovered", value=float(self.pool.last_dry_spell_ms))

    def respond(self, req: Request) -> None:
        req.response_done = self.sim.now
        processor = req.channel.processor
        processor.responses.append(req)
        processor.wake()

    def response_sent(self, req: Request, now: int) -> None:
        req.end = now
        channel = req.channel
        self.add(now, "broker", channel.api + "Response", member=channel.client, error="NONE",
                 value=float(now - req.start))
        channel.request = None
        channel.next += 1
        self._next_request(channel, now)

    def blocked(self, processor: Processor, now: int) -> None:
        processor.blocked_since = now
        self.blocked_count += 1
        self.add(now, "broker", "ProcessorBlocked", member=processor.name,
                 value=float(len(self.request_channel.queue)))
        self.sample()

    def unblocked(self, processor: Processor, now: int) -> None:
        self.add(now, "broker", "ProcessorUnblocked", member=processor.name,
                 value=float(now - processor.blocked_since))
        processor.blocked_ms += now - processor.blocked_since
        processor.blocked_since = None
        self.blocked_count -= 1
        self.sample()


def _requests_of(group: ClientGroup, client: str, seed: int, duration_ms: int) -> tuple[list[int], list[int]]:
    """Arrival instants (ms) and sizes of one client's requests; its own seeded stream."""
    rng = np.random.default_rng([seed, zlib.crc32(client.encode())])
    start, stop = group.start_ms, min(group.stop_ms or duration_ms, duration_ms)
    if isinstance(group.arrivals, tuple):
        times = np.array([t for t in group.arrivals if start <= t < stop], dtype=float)
    elif stop <= start:
        times = np.empty(0)
    else:
        period = 1000.0 / group.rate_per_s
        if group.arrivals == "periodic":
            times = start + rng.uniform(0, period) + period * np.arange(int((stop - start) / period) + 1)
        else:
            times = start + np.cumsum(rng.exponential(period, int((stop - start) / period * 1.2) + 16))
            while times[-1] < stop:
                times = np.concatenate([times, times[-1] + np.cumsum(rng.exponential(period, len(times)))])
        times = times[times < stop]
    n = len(times)
    if isinstance(group.size_bytes, int):
        sizes = [group.size_bytes] * n
    else:
        sizes = rng.integers(group.size_bytes[0], group.size_bytes[1] + 1, n).tolist()
    return np.floor(times).astype(np.int64).tolist(), sizes


#: The most requests `simulate_network` runs without being asked (about two events each).
REQUEST_LIMIT = 5_000_000


def expected_requests(scenario: NetworkScenario) -> int:
    """How many requests the clients of `scenario` send (on average, for Poisson arrivals)."""
    total = 0.0
    for c in scenario.clients:
        end = scenario.duration_ms if c.stop_ms is None else min(c.stop_ms, scenario.duration_ms)
        span_s = max(0, end - c.start_ms) / 1000
        total += c.count * (sum(c.start_ms <= t < end for t in c.arrivals) if isinstance(c.arrivals, tuple)
                            else c.rate_per_s * span_s)
    return int(total)


def simulate_network(scenario: NetworkScenario | None = None, *, max_requests: int | None = REQUEST_LIMIT,
                     **kwargs) -> "NetworkRun":
    """Run a `NetworkScenario` (or build one from keyword arguments) for its `duration_ms`. A run
    whose clients would send more than `max_requests` is refused before it starts (None: no limit)."""
    if scenario is None:
        scenario = NetworkScenario(**kwargs)
    elif kwargs:
        scenario = scenario.replace(**kwargs)
    requests = expected_requests(scenario)
    if max_requests is not None and requests > max_requests:
        raise ConfigError(f"this scenario's clients would send about {requests:,} requests (about {2 * requests:,} "
                          f"events), more than the {max_requests:,} that simulate_network() runs without being "
                          f"asked: shorten duration_ms, use fewer clients or a lower rate_per_s, or call "
                          f"simulate_network(scenario, max_requests=None) to run it anyway")
    server = SocketServer(scenario)
    server.sim.run(until=scenario.duration_ms)
    return NetworkRun(scenario, server)


# -- the answer -----------------------------------------------------------------------------
#: What each summary key means (the keys of `NetworkRun.summary`).
SUMMARY_DOC = {
    "kafka_version": "the Kafka version whose defaults were used",
    "bound_bytes": "queued.max.request.bytes when it bounds memory (> 0), else None (-1 or 0: MemoryPool.NONE)",
    "socket_request_max_bytes": "socket.request.max.bytes: the largest request, and the pool's largest allocation",
    "overshoot_limit_bytes": "bound_bytes + socket.request.max.bytes - 1: the most a non-strict SimpleMemoryPool "
                             "can ever have handed out (None when unbounded)",
    "peak_memory_bytes": "most request bytes held at once (read into, queued or being handled); with a bound this is "
                         "the peak of Kafka's MemoryPoolUsed gauge, without one Kafka's gauge reads 0 and only "
                         "kafkasim counts it",
    "peak_over_bound_bytes": "how far peak_memory_bytes went above bound_bytes (the lenient overshoot); None when "
                             "unbounded",
    "memory_pool_depleted_time_total_ms": "Kafka's MemoryPoolDepletedTimeTotal: the sum of dry spells, each from a "
                                          "refused allocation to the next successful allocation or release",
    "memory_pool_avg_depleted_percent": "that total as a percentage of the run (Kafka's MemoryPoolAvgDepletedPercent "
                                        "is the same ratio over its metrics window)",
    "peak_memory_muted_channels": "most connections muted at once for want of memory",
    "peak_request_queue_size": "Kafka's RequestQueueSize gauge at its highest (at most queued.max.requests)",
    "processor_blocked_ms": "network-thread time spent blocked in RequestChannel.sendRequest because the request "
                            "queue was full, summed over network threads",
    "requests_sent": "requests the clients created during the run",
    "requests_completed": "requests whose response was sent by the end of the run",
    "requests_unfinished": "requests_sent - requests_completed: still in the client, socket or broker at the end",
    "offered_mb_per_s": "bytes the clients created per second of run (MB = 10^6 bytes)",
    "throughput_mb_per_s": "bytes of completed requests per second of run",
    "throughput_requests_per_s": "completed requests per second of run",
    "client_latency_ms": "what a client sees, request created to response sent (p50, p95, p99, max, mean over "
                         "completed requests); no broker metric",
    "kafka_request_metrics_ms": "Kafka's RequestMetrics histograms (RequestQueueTimeMs, LocalTimeMs, RemoteTimeMs, "
                                "ResponseQueueTimeMs, ResponseSendTimeMs, TotalTimeMs), all measured from "
                                "startTimeNanos, when the broker has read the whole request",
    "not_in_kafka_metrics_ms": "time before startTimeNanos, invisible to every broker request metric: socket_wait_ms "
                               "(waiting to be read: the connection busy with its previous request or its network "
                               "thread blocked), memory_wait_ms (muted, waiting for pool memory), read_ms (reading "
                               "the body), processor_wait_ms (read, waiting for its network thread), "
                               "before_start_ms (all of these)",
    "hidden_latency_share": "mean before_start_ms / mean client latency: the share of what clients wait that "
                            "TotalTimeMs does not show",
    "jain_index": "Jain's fairness index over clients of completed/sent requests, (sum x)^2 / (n sum x^2): 1 when "
                  "every client is served in proportion to what it sends, 1/n when one client gets everything",
    "min_completion_ratio": "lowest completed/sent over clients that sent something",
    "starved_clients": "clients that sent requests and had none completed",
}


class NetworkRun:
    """The outcome of `simulate_network`: events, requests, time series, clients, summary."""

    def __init__(self, scenario: NetworkScenario, server: SocketServer):
        self.scenario = scenario
        self.rows = server.sim.events.rows
        self.engine_events = server.sim.stats["events"]
        self.end_ms = scenario.duration_ms
        self.provenance = provenance("kafkasim.broker.network", kafka_version=scenario.kafka_version,
                                     seed=scenario.seed, configs={"broker": scenario.broker_config},
                                     inputs={"scenario": scenario.to_dict()})
        self._server = server
        self.summary = _summarize(self)  # builds requests, timeseries and clients from the server
        del self._server  # then the run keeps its tables, not the live broker

    def __repr__(self) -> str:
        s = self.summary
        bound = "unbounded" if s["bound_bytes"] is None else f"bound {s['bound_bytes']:,} B"
        return (f"<NetworkRun Kafka {s['kafka_version']}, {bound}: peak {s['peak_memory_bytes']:,} B, "
                f"{s['requests_completed']}/{s['requests_sent']} requests, p99 client latency "
                f"{s['client_latency_ms']['p99']} ms>")

    @cached_property
    def events(self):
        from kafkasim.core.events import to_frame

        return to_frame(self.rows)

    @cached_property
    def requests(self):
        """One row per request the clients created (the last ones may never have been read):
        client, group, processor, api, size_bytes, every timestamp of `Request` (NaN where the
        request never got that far), the hidden waits, Kafka's RequestMetrics and client_latency_ms."""
        import pandas as pd

        server = self._server
        reqs = server.requests
        index = [r.channel.index for r in reqs]
        sizes = [r.size for r in reqs]
        created = []
        for ch in server.channels:  # created but never read: the client's backlog at the end
            first = ch.next + (ch.request is not None)
            backlog = len(ch.times) - first
            if backlog > 0:
                index += [ch.index] * backlog
                sizes += ch.sizes[first:]
                created += ch.times[first:]
        index = np.array(index, dtype=np.int64)
        stamps = np.full((len(index), len(_STAMPS)), float(NOT_YET))
        stamps[:len(reqs)] = np.array(list(map(attrgetter(*_STAMPS), reqs)), dtype=float).reshape(-1, len(_STAMPS))
        stamps[len(reqs):, 0] = created
        stamps[stamps == NOT_YET] = np.nan
        channels = server.channels
        df = pd.DataFrame({
            "client": np.array([ch.client for ch in channels], dtype=object)[index],
            "group": np.array([ch.group for ch in channels], dtype=object)[index],
            "processor": np.array([ch.processor.id for ch in channels], dtype=np.int64)[index],
            "api": np.array([ch.api for ch in channels], dtype=object)[index],
            "size_bytes": np.array(sizes, dtype=np.int64),
            **{s: stamps[:, k] for k, s in enumerate(_STAMPS)},
        })
        for name, (start, end) in {**HIDDEN_WAITS, **REQUEST_METRICS}.items():
            df[name] = df[end] - df[start]
        df["client_latency_ms"] = df["end"] - df["created"]
        df["_channel"] = index
        df = df.sort_values(["created", "_channel"], kind="stable").reset_index(drop=True)
        return df.drop(columns="_channel")

    @cached_property
    def timeseries(self):
        """One row per change: memory_used_bytes, request_queue_size, memory_muted_channels,
        blocked_processors. Several rows may share a time (the last is the state after it)."""
        import pandas as pd

        return pd.DataFrame(np.array(self._server.series, dtype=np.int64),
                            columns=["time", "memory_used_bytes", "request_queue_size",
                                     "memory_muted_channels", "blocked_processors"])

    @cached_property
    def clients(self):
        """Per client, in connection order: group, processor, sent, completed, completed_bytes,
        completion_ratio (completed/sent), share (of all completed bytes), mean_latency_ms and
        memory_wait_ms (total)."""
        import pandas as pd

        channels = self._server.channels
        n = len(channels)
        position = {ch.client: ch.index for ch in channels}
        df = self.requests
        idx = df["client"].map(position).to_numpy()
        done = df["end"].notna().to_numpy()
        sent = np.bincount(idx, minlength=n)
        completed = np.bincount(idx[done], minlength=n)
        done_bytes = np.bincount(idx[done], weights=df["size_bytes"].to_numpy()[done], minlength=n)
        latency = np.bincount(idx[done], weights=df["client_latency_ms"].to_numpy()[done], minlength=n)
        waits = df["memory_wait_ms"].to_numpy()
        waited = ~np.isnan(waits)
        total = done_bytes.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            return pd.DataFrame({
                "client": [ch.client for ch in channels], "group": [ch.group for ch in channels],
                "processor": [ch.processor.id for ch in channels], "sent": sent, "completed": completed,
                "completed_bytes": done_bytes.astype(np.int64), "completion_ratio": completed / sent,
                "share": done_bytes / total if total else np.zeros(n),
                "mean_latency_ms": latency / completed,
                "memory_wait_ms": np.bincount(idx[waited], weights=waits[waited], minlength=n),
            })


def _stats(values) -> dict:
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if not len(v):
        return {"p50": None, "p95": None, "p99": None, "max": None, "mean": None}
    p50, p95, p99 = np.percentile(v, [50, 95, 99])
    return {"p50": round(float(p50), 3), "p95": round(float(p95), 3), "p99": round(float(p99), 3),
            "max": float(v.max()), "mean": round(float(v.mean()), 3)}


def _jain(x: np.ndarray) -> float | None:
    """Jain's fairness index (sum x)^2 / (n sum x^2); None if nobody was served."""
    squares = float((x ** 2).sum())
    return round(float(x.sum()) ** 2 / (len(x) * squares), 4) if squares else None


def _summarize(run: NetworkRun) -> dict:
    sc, server, df = run.scenario, run._server, run.requests
    pool, seconds = server.pool, run.end_ms / 1000.0
    bound, largest = sc.bound_bytes, sc.broker_config["socket.request.max.bytes"]
    done = df[df["end"].notna()]
    ts = run.timeseries
    depleted = pool.depleted_time_total_ms
    if pool.dry_spell_start is not None:  # a dry spell still running at the end counts up to the end
        depleted += run.end_ms - pool.dry_spell_start
    blocked = sum(p.blocked_ms + (run.end_ms - p.blocked_since if p.blocked_since is not None else 0)
                  for p in server.processors)
    clients = run.clients
    ratio = clients["completion_ratio"][clients["sent"] > 0].to_numpy(dtype=float)
    client_latency = _stats(done["client_latency_ms"])
    hidden_mean = done["before_start_ms"].mean()  # NaN when nothing completed; read only when something did
    return {
        "kafka_version": sc.kafka_version,
        "bound_bytes": bound,
        "socket_request_max_bytes": largest,
        "overshoot_limit_bytes": None if bound is None else bound + largest - 1,
        "peak_memory_bytes": int(pool.peak_used),
        "peak_over_bound_bytes": None if bound is None else max(0, int(pool.peak_used) - bound),
        "memory_pool_depleted_time_total_ms": int(depleted),
        "memory_pool_avg_depleted_percent": round(100.0 * depleted / run.end_ms, 3),
        "peak_memory_muted_channels": int(ts["memory_muted_channels"].max()),
        "peak_request_queue_size": int(ts["request_queue_size"].max()),
        "processor_blocked_ms": int(blocked),
        "requests_sent": int(len(df)),
        "requests_completed": int(len(done)),
        "requests_unfinished": int(len(df) - len(done)),
        "offered_mb_per_s": round(float(df["size_bytes"].sum()) / 1e6 / seconds, 3),
        "throughput_mb_per_s": round(float(done["size_bytes"].sum()) / 1e6 / seconds, 3),
        "throughput_requests_per_s": round(len(done) / seconds, 3),
        "client_latency_ms": client_latency,
        "kafka_request_metrics_ms": {name: _stats(done[name]) for name in REQUEST_METRICS},
        "not_in_kafka_metrics_ms": {name: _stats(done[name]) for name in HIDDEN_WAITS},
        "hidden_latency_share": (round(float(hidden_mean / client_latency["mean"]), 4)
                                 if client_latency["mean"] else None),
        "jain_index": _jain(ratio),
        "min_completion_ratio": round(float(ratio.min()), 4) if len(ratio) else None,
        "starved_clients": int(((clients["sent"] > 0) & (clients["completed"] == 0)).sum()),
    }


# -- the seed's experiments -----------------------------------------------------------------
MiB = 1_048_576


def kip72_experiments(seed: int = 1) -> dict[str, dict[str, NetworkScenario]]:
    """What the KIP-72 page claims or plans to test, as pairs of scenarios to run and compare.

    ``memory_limit``   Test plan: "stress testing a broker (heavy producer load of varying request
                       sizes) to verify that the memory limit is honored": 100 producers of 10 KB to
                       1 MiB requests, more than the handlers can take; unbounded vs a 10 MiB pool.
    ``throughput``     Test plan: throughput "before/after the change": the same producers at a
                       load the broker can carry; the bound should cost nothing.
    ``starvation``     Caveat 1: with a fixed key order and tight memory, the first sockets win;
                       Kafka shuffles the keys. 60 producers of 1 MB on one network thread, a
                       20 MB pool; Kafka's shuffle vs none.
    ``both_bounds``    "The code will respect both bounds and will not pick up new requests when
                       either is hit": small requests fill ``queued.max.requests`` first (network
                       threads block), large ones exhaust ``queued.max.request.bytes`` first
                       (channels mute).

    The bounded scenarios lower ``socket.request.max.bytes`` to 1 MiB (the producer's default
    ``max.request.size``), because the pool may not be smaller (``KafkaConfig`` requirement).
    """
    heavy = ClientGroup(count=100, rate_per_s=5, size_bytes=(10_000, MiB))
    stress = NetworkScenario(clients=(heavy,), broker={"socket.request.max.bytes": MiB}, handler_mb_per_s=25,
                             seed=seed)
    bounded = {"queued.max.request.bytes": 10 * MiB}
    normal = stress.replace(clients=(dataclasses.replace(heavy, rate_per_s=2),))
    crowd = NetworkScenario(clients=(ClientGroup(count=60, rate_per_s=10, size_bytes=1_000_000),),
                            broker={"socket.request.max.bytes": 1_000_000, "queued.max.request.bytes": 20_000_000,
                                    "num.network.threads": 1}, handler_mb_per_s=50, seed=seed)
    both = NetworkScenario(broker={"socket.request.max.bytes": MiB, "queued.max.request.bytes": 8 * MiB,
                                   "queued.max.requests": 16, "num.io.threads": 2}, seed=seed,
                           clients=(ClientGroup(count=30, rate_per_s=50, size_bytes=10_000),),
                           handler_base_ms=5, handler_mb_per_s=50, duration_ms=5_000)
    return {
        "memory_limit": {"unbounded": stress, "bounded": stress.replace(broker=bounded)},
        "throughput": {"unbounded": normal, "bounded": normal.replace(broker=bounded)},
        "starvation": {"shuffle": crowd, "no shuffle": crowd.replace(shuffle_on_low_memory=False)},
        "both_bounds": {"small requests": both, "large requests": both.replace(
            clients=(ClientGroup(count=30, rate_per_s=10, size_bytes=MiB),))},
    }


#: The summary numbers `summary_table` shows, in order.
TABLE_KEYS = ("bound_bytes", "peak_memory_bytes", "overshoot_limit_bytes", "memory_pool_avg_depleted_percent",
              "peak_request_queue_size", "processor_blocked_ms", "requests_sent", "requests_completed",
              "throughput_mb_per_s", "jain_index", "starved_clients", "hidden_latency_share")


def summary_table(runs: dict[str, NetworkRun]):
    """Runs side by side: one column per run; rows are `TABLE_KEYS` plus p99 latencies
    (client, Kafka's TotalTimeMs and RequestQueueTimeMs, and the memory wait Kafka does not show)."""
    import pandas as pd

    def column(run: NetworkRun) -> dict:
        s = run.summary
        out = {key: s[key] for key in TABLE_KEYS}
        out["client_latency_p99_ms"] = s["client_latency_ms"]["p99"]
        out["TotalTimeMs_p99"] = s["kafka_request_metrics_ms"]["TotalTimeMs"]["p99"]
        out["RequestQueueTimeMs_p99"] = s["kafka_request_metrics_ms"]["RequestQueueTimeMs"]["p99"]
        out["memory_wait_p99_ms (not in Kafka metrics)"] = s["not_in_kafka_metrics_ms"]["memory_wait_ms"]["p99"]
        return out

    return pd.DataFrame({name: pd.Series(column(run), dtype=object) for name, run in runs.items()})
