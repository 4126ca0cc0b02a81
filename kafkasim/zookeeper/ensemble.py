"""A ZooKeeper ensemble as Kafka 0.8 consumers saw it: znodes, sessions, one-shot watches, and
the request load that clients put on it.

What is modelled (ZooKeeper 3.4 semantics, as used through ZkClient 0.3 by Kafka 0.8.2):

* a tree of znodes, persistent or **ephemeral** (owned by a session and deleted with it);
* **sessions** with a negotiated timeout: the server clamps the client's requested timeout
  (`zookeeper.session.timeout.ms`) into [2, 20] x tickTime; a client that stays silent for the
  negotiated timeout (crash, GC pause, network cut) has its session expired and all its
  ephemeral znodes deleted; a client that closes its session has them deleted at once;
* **one-shot watches**: a child watch fires once (NodeChildrenChanged) when a child of the path
  is created or deleted, a data watch once (NodeDataChanged) when the data changes; the client
  must read again to watch again (ZkClient does it for its listeners, see
  `ZookeeperConsumerConnector`), so changes that land before the re-read are merged;
* **request accounting**: clients submit the reads and writes each step of their work costs as
  a batch of sequential requests; the ensemble counts them by type and logs what it served as
  (start, end, reads, writes, notifications) rows, so the herd effect can be charted as requests
  per second.

Simplifications (say them in the chapter):

* latency is one number, `latency_ms`, for every request round trip and for delivering a watch
  notification, whatever the request (real writes go through the leader and a quorum fsync and
  cost more than reads, which any server answers locally);
* optional capacity: with `ops_per_s` set, the batches in flight share it fairly (processor
  sharing): with k batches in flight each is served at min(1 / latency, ops_per_s / k) requests
  per ms. ZkClient is synchronous, so a client has one request outstanding at a time and a batch
  can never go faster than one request per latency; a real ensemble serves reads on every server
  and writes through the leader, which one number does not distinguish;
* a silent session expires exactly `negotiated timeout` after the client fell silent (the real
  server checks in tickTime buckets, so up to one tickTime later);
* znode data are Python objects (Kafka stores JSON strings); no ACLs, no sequential nodes, no
  znode versions beyond the child version used to cache group views.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter, defaultdict
from typing import Any, Callable

from kafkasim.core.engine import Simulation
from kafkasim.core.errors import check_range

#: ZooKeeper's default tickTime (zoo.cfg); sessions are clamped to [2, 20] ticks (ZooKeeperServer).
TICK_TIME_MS = 2000

READS = ("exists", "getData", "getChildren")
WRITES = ("create", "delete", "setData", "createSession", "closeSession")


class NodeExistsError(Exception):
    """ZooKeeper's NodeExists (ZkClient: ZkNodeExistsException)."""


class NoNodeError(Exception):
    """ZooKeeper's NoNode (ZkClient: ZkNoNodeException)."""


class Session:
    """A client session: its ephemeral znodes and the timer that expires it when it falls silent."""

    __slots__ = ("id", "client", "group", "timeout_ms", "ephemerals", "alive", "expiry")

    def __init__(self, sid: int, client: str, group: str | None, timeout_ms: int):
        self.id, self.client, self.group, self.timeout_ms = sid, client, group, timeout_ms
        self.ephemerals: list[str] = []        # paths, in creation order
        self.alive = True
        self.expiry = None                      # Timer while the client is silent


def negotiated_timeout(requested_ms: int, tick_time_ms: int = TICK_TIME_MS) -> int:
    """The session timeout the server grants: the request clamped to [2, 20] x tickTime."""
    return min(max(requested_ms, 2 * tick_time_ms), 20 * tick_time_ms)


class ZooKeeper:
    """The ensemble, seen as one server. Mutations take effect at the simulated instant they are
    called; clients account for their cost with `submit`, which also times them."""

    def __init__(self, sim: Simulation, *, latency_ms: int = 2, ops_per_s: float | None = None,
                 tick_time_ms: int = TICK_TIME_MS):
        self.sim = sim
        self.latency_ms = check_range("zk_latency_ms", latency_ms, 0)
        if ops_per_s is not None:
            check_range("zk_ops_per_s", ops_per_s, 1, kind=float)
        self.ops_per_s = ops_per_s
        self.tick_time_ms = check_range("zk_tick_time_ms", tick_time_ms, 1)
        self.data: dict[str, Any] = {}
        self.owner: dict[str, int] = {}                          # ephemeral path -> session id
        self.children: defaultdict[str, set[str]] = defaultdict(set)  # read sorted
        self.cversion: Counter = Counter()                       # parent -> child changes so far
        self.child_watches: defaultdict[str, dict[int, Callable]] = defaultdict(dict)
        self.data_watches: defaultdict[str, dict[int, Callable]] = defaultdict(dict)
        self.sessions: dict[int, Session] = {}
        self.requests: Counter = Counter()                       # by ZooKeeper request type
        self.load: list[tuple[int, int, float, float, int]] = []  # (start, end, reads, writes, notifications)
        self._active: list[tuple] = []                           # (virtual end, seq, callback, read share)
        self._vt = 0.0                                           # virtual time: requests served per batch
        self._vt_at = 0                                          # when _vt was last brought up to date
        self._read_share = 0.0                                   # sum of the active batches' read fractions
        self._timer = None
        self._seq = itertools.count()
        self._next_sid = 0x100

    # -- request accounting and timing ------------------------------------------------------
    def submit(self, callback: Callable[[], Any] | None, **requests: int) -> None:
        """A client sends a batch of sequential requests now; `callback()` runs when the last is
        answered. Keyword names are ZooKeeper request types (getData=1200, delete=3, ...).

        Batches in flight share the ensemble fairly (processor sharing): each progresses at
        min(1 / latency, ops_per_s / batches in flight) requests per ms, tracked as a virtual time
        that advances at that rate; a batch of n requests started at virtual time v ends at v + n."""
        requests = {k: v for k, v in requests.items() if v}
        n = sum(requests.values())
        self.requests.update(requests)
        if n == 0 or (self.latency_ms == 0 and self.ops_per_s is None):
            reads = sum(requests.get(r, 0) for r in READS)
            if n:
                self.load.append((self.sim.now, self.sim.now, reads, n - reads, 0))
            if callback is not None:
                self.sim.schedule(0, callback)
            return
        self._advance()
        reads = sum(requests.get(r, 0) for r in READS) / n
        heapq.heappush(self._active, (self._vt + n, next(self._seq), callback, reads))
        self._read_share += reads
        self._reschedule()

    def _rate(self, k: int) -> float:
        """Requests per ms for each of k batches in flight."""
        rate = 1.0 / self.latency_ms if self.latency_ms else math.inf
        if self.ops_per_s is not None:
            rate = min(rate, self.ops_per_s / 1000.0 / k)
        return rate

    def _advance(self) -> None:
        """Bring virtual time up to now, logging what the ensemble served meanwhile."""
        now, k = self.sim.now, len(self._active)
        if k and now > self._vt_at:
            rate = self._rate(k)
            self._vt += (now - self._vt_at) * rate
            served = (now - self._vt_at) * rate
            self.load.append((self._vt_at, now, served * self._read_share, served * (k - self._read_share), 0))
        self._vt_at = now

    def _reschedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        if self._active:
            wait = (self._active[0][0] - self._vt) / self._rate(len(self._active))
            self._timer = self.sim.schedule(max(0, math.ceil(wait - 1e-9)), self._complete)

    def flush(self) -> None:
        """Log what was served up to now (at the end of a run, for batches still in flight)."""
        self._advance()

    def _complete(self) -> None:
        self._timer = None
        self._advance()
        while self._active and self._active[0][0] <= self._vt + 1e-6:
            _, _, callback, reads = heapq.heappop(self._active)
            self._read_share -= reads
            if callback is not None:
                callback()
        if not self._active:
            self._read_share = 0.0  # no float drift across idle periods
        self._reschedule()

    def _notify(self, watches: dict[int, Callable] | None, kind: str, path: str) -> None:
        """Fire one-shot watches: each watching session is told once, after `latency_ms`."""
        if not watches:
            return
        fired = sorted(watches.items())
        watches.clear()
        now = self.sim.now
        self.requests["notification"] += len(fired)
        self.load.append((now, now, 0, 0, len(fired)))
        self.sim.events.add(now, "zookeeper", kind, group=_group_of(path), reason=path, value=len(fired))
        for _, callback in fired:
            self.sim.schedule(self.latency_ms, callback)

    # -- sessions ---------------------------------------------------------------------------
    def connect(self, client: str, requested_timeout_ms: int, group: str | None = None) -> Session:
        """A new session for `client`, its timeout negotiated within the tick bounds (the caller counts its
        createSession request in the batch it submits)."""
        timeout = negotiated_timeout(requested_timeout_ms, self.tick_time_ms)
        session = Session(self._next_sid, client, group, timeout)
        self._next_sid += 1
        self.sessions[session.id] = session
        self.sim.events.add(self.sim.now, "zookeeper", "SessionEstablished", group=group, member=client,
                            value=timeout, reason=f"0x{session.id:x}")
        return session

    def silent(self, session: Session) -> None:
        """The client stopped talking to the ensemble (crash, pause, cut): expiry is armed."""
        if session.alive and session.expiry is None:
            session.expiry = self.sim.schedule(session.timeout_ms, self._expire, session)

    def heard_from(self, session: Session) -> bool:
        """The client is back: True if its session survived (expiry disarmed), False if expired."""
        if session.expiry is not None:
            session.expiry.cancel()
            session.expiry = None
        return session.alive

    def close(self, session: Session) -> None:
        """The client closes its session: its ephemeral znodes go at once."""
        self._end(session, "SessionClosed")

    def _expire(self, session: Session) -> None:
        session.expiry = None
        self._end(session, "SessionExpired")

    def _end(self, session: Session, kind: str) -> None:
        if not session.alive:
            return
        session.alive = False
        if session.expiry is not None:
            session.expiry.cancel()
            session.expiry = None
        for watches in (*self.child_watches.values(), *self.data_watches.values()):
            watches.pop(session.id, None)   # a closed or expired session is told nothing more
        self.sim.events.add(self.sim.now, "zookeeper", kind, group=session.group, member=session.client,
                            value=len(session.ephemerals), reason=f"0x{session.id:x}")
        for path in list(session.ephemerals):
            self.delete(path)

    # -- znodes -----------------------------------------------------------------------------
    def create(self, path: str, data: Any = None, session: Session | None = None) -> None:
        """Create a znode (ephemeral when `session` is given); NodeExistsError if it exists.
        Parents are created as needed (ZkClient's createParents)."""
        if path in self.data:
            raise NodeExistsError(path)
        parent, _, name = path.rpartition("/")
        if parent and parent not in self.data:
            self.create(parent)
        self.data[path] = data
        if session is not None:
            self.owner[path] = session.id
            session.ephemerals.append(path)
        self.children[parent].add(name)   # a top-level znode's parent is the root, ""
        self.cversion[parent] += 1
        self._notify(self.child_watches.get(parent), "NodeChildrenChanged", parent)

    def delete(self, path: str) -> bool:
        """Delete a znode; False if it did not exist (ZkUtils.deletePath ignores ZkNoNodeException)."""
        if path not in self.data:
            return False
        del self.data[path]
        sid = self.owner.pop(path, None)
        if sid is not None:
            self.sessions[sid].ephemerals.remove(path)
        parent, _, name = path.rpartition("/")
        self.children[parent].remove(name)
        self.cversion[parent] += 1
        self._notify(self.data_watches.get(path), "NodeDeleted", path)
        self._notify(self.child_watches.get(parent), "NodeChildrenChanged", parent)
        return True

    def set_data(self, path: str, data: Any) -> None:
        """Replace a znode's data and fire its data watches; NoNodeError if it does not exist
        (ZooKeeper's setData creates nothing)."""
        if path not in self.data:
            raise NoNodeError(path)
        self.data[path] = data
        self._notify(self.data_watches.get(path), "NodeDataChanged", path)

    def get_children(self, path: str) -> list[str]:
        """Children in ZooKeeper's own order is unspecified; kafkasim returns them sorted."""
        return sorted(self.children.get(path, ()))

    def exists(self, path: str) -> bool:
        return path in self.data

    def watch_children(self, path: str, session: Session, callback: Callable[[], Any]) -> None:
        """Leave a one-shot child watch on `path` (set by getChildren/exists with watch=true)."""
        if session.alive:
            self.child_watches[path][session.id] = callback

    def watch_data(self, path: str, session: Session, callback: Callable[[], Any]) -> None:
        if session.alive:
            self.data_watches[path][session.id] = callback

    def tree(self, prefix: str = "/") -> list[tuple[str, Any, str | None]]:
        """(path, data, owning client or None) of every znode under `prefix`, sorted by path."""
        return [(p, self.data[p], self.sessions[self.owner[p]].client if p in self.owner else None)
                for p in sorted(self.data) if p.startswith(prefix)]


def _group_of(path: str) -> str | None:
    """The consumer group a /consumers/<group>/... path belongs to."""
    parts = path.split("/")
    return parts[2] if len(parts) > 2 and parts[1] == "consumers" else None
