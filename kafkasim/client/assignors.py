"""Kafka's consumer partition assignors: range, roundrobin, sticky and cooperative-sticky.

Each follows the Java client's assignor of the same name (clients/src/main/java/org/apache/kafka/
clients/consumer/{RangeAssignor,RoundRobinAssignor,StickyAssignor,CooperativeStickyAssignor}.java
and internals/AbstractStickyAssignor.java, apache/kafka trunk of October 2024, i.e. 3.9), without
the rack-aware extensions (KIP-881), which only apply when `client.rack` is set. Where Kafka's
javadoc and its code disagree, the code wins and the note below says so.

    assign("range", {"t0": 3, "t1": 3}, {"C0": Subscription(("t0", "t1")),
                                         "C1": Subscription(("t0", "t1"))})
    -> {"C0": [("t0", 0), ("t0", 1), ("t1", 0), ("t1", 1)], "C1": [("t0", 2), ("t1", 2)]}

Determinism. Wherever Java iterates a `HashMap` (whose order depends on hash codes), this module
iterates members sorted by member id, and topics sorted by name, so that the result never depends
on the insertion order of the dicts passed in. Strings compare as Java's `String.compareTo` does
(UTF-16 code units), which is plain string order for everything but characters beyond U+FFFF.

What is exact and what is simpler than Kafka:

* range, roundrobin: exact (member order of B.1: static members by `group.instance.id` first, then
  the others by member id). Range lists a member's partitions topic by topic in topic-name order;
  Java uses its HashMap's topic order. Compare with Kafka as sets, or per topic.
* sticky family, validation of owned partitions: as Kafka 3.6+ (KAFKA-14639). A claim counts if
  its topic is still subscribed and has metadata (and, here, if its partition number exists); a
  partition claimed by several members goes to the claimer with the highest generation; if two or
  more claimers share that highest generation it is "multiply claimed": taken from all of them and,
  for cooperative-sticky, withheld from whoever receives it. NOTE: spec B.4 still describes the
  3.1-3.5 rule ("only members of the highest generation keep any claims"); 3.6+ keeps the claims of
  an older-generation member that nobody else contests, as `testNoReassignmentOnCurrentMembers`
  checks. Java resolves contests in HashMap order, so with three or more claimers of mixed
  generations its outcome depends on that order (a tie among lower generations seen first can
  poison the partition); here the result is always the one Java gives when the highest-generation
  claimers come first. A missing generation counts as -1 (Java's DEFAULT_GENERATION).
* sticky family, path 1 (every member has the same subscription): exact, the "constrained"
  algorithm of 3.0+ (KAFKA-12464), with members visited in member-id order where Java visits a
  HashMap (spec B.4 caveat). That order only matters when more members own at least maxQuota
  partitions than may keep maxQuota. A member that owns more than its quota keeps the first ones
  of its owned list: sorted by (partition, topic) from 3.8 (KAFKA-16277), in the order the member
  reported them before (`kafka_version` of `assign`). That order is what the client serialises:
  `owned_partitions` for cooperative-sticky, `sticky_user_data` for sticky. Kafka before 3.0 ran
  an earlier algorithm (KAFKA-9987) on lists in HashMap order; it gets the 3.0-3.7 rules here.
* sticky family, path 2 (subscriptions differ): simpler than Kafka. It keeps every valid owned
  partition, hands out the free ones exactly as Kafka does (topics with fewest subscribers first,
  each partition to the least-loaded subscriber, ties by member id), then moves partitions one at
  a time, topic by topic, from the most-loaded holder to the least-loaded subscriber of that topic
  while they differ by 2 or more, preferring to move partitions the holder did not own before. It
  stops in the state Kafka's `isBalanced()` accepts: no partition can move to a member subscribed
  to its topic that has at least 2 fewer partitions. It leaves out Kafka's `PartitionMovements`
  bookkeeping (which partition of a topic moves, avoiding A->B->A cycles), the rule that moves a
  partition back to its owner of an older generation, and the "revert if the balance score did
  not improve" step (each move here strictly lowers that score, so it is never needed). Counts per
  member and validity match Kafka's properties; exact placement can differ, so compare as sets.
  Like Kafka, this path does not promise max-min <= 1 when only a chain of moves would reach it.
  Members whose subscriptions are equal as sets use path 1; Java compares the same way but
  has a HashMap-order quirk with an empty first subscription, which is not reproduced.
* cooperative-sticky: the sticky target, minus the partitions "transferring ownership"
  (`adjustAssignment`): on path 1 those the builder records (taken over from another member that
  owned them, or multiply claimed); on path 2 every partition that a member gains and another
  member (one that reported owning it) loses.
"""

from __future__ import annotations

import bisect
import difflib
import heapq
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from kafkasim.core.config import KAFKA_VERSIONS, java_hash_set_order, parse_version
from kafkasim.core.errors import ConfigError

TopicPartition = tuple[str, int]

#: A member without a generation counts as this one (AbstractStickyAssignor.DEFAULT_GENERATION).
DEFAULT_GENERATION = -1

#: KAFKA-16277 (3.8.0): the sticky assignors sort a member's owned partitions by partition, then topic.
OWNED_BY_PARTITION_SINCE = (3, 8)

EAGER, COOPERATIVE = "eager", "cooperative"


@dataclass(frozen=True)
class Subscription:
    """What one member sends in its JoinGroup: topics, what it owns now, and the generation of that.

    `owned` is the cooperative `ownedPartitions` or the eager sticky assignor's last assignment
    (its userData); `generation` is the generation `owned` comes from (None: unknown, counted as
    -1); `instance_id` is `group.instance.id`, which orders static members first (B.1).
    """

    topics: tuple[str, ...]
    owned: tuple[TopicPartition, ...] = ()
    generation: int | None = None
    instance_id: str | None = None

    def __post_init__(self):
        if isinstance(self.topics, str):
            raise TypeError(f"Subscription.topics must be a collection of topic names, not the string "
                            f"{self.topics!r}; write ({self.topics!r},)")
        object.__setattr__(self, "topics", tuple(self.topics))
        object.__setattr__(self, "owned", tuple((tp[0], int(tp[1])) for tp in self.owned))


# ---------------------------------------------------------------------------------------------
# Names, aliases and protocols

_PACKAGE = "org.apache.kafka.clients.consumer."
_CLASS_NAMES = {
    "range": "RangeAssignor",
    "roundrobin": "RoundRobinAssignor",
    "sticky": "StickyAssignor",
    "cooperative-sticky": "CooperativeStickyAssignor",
}
_ALIASES = {}
for _name, _cls in _CLASS_NAMES.items():
    _ALIASES[_name] = _name
    _ALIASES[_cls] = _name
    _ALIASES[_PACKAGE + _cls] = _name

_PROTOCOLS = {
    "range": frozenset({EAGER}),
    "roundrobin": frozenset({EAGER}),
    "sticky": frozenset({EAGER}),
    "cooperative-sticky": frozenset({EAGER, COOPERATIVE}),
}


def assignor_name(name_or_class: str) -> str:
    """The assignor's protocol name ("range", ...) for that name or Kafka's Java class name."""
    try:
        return _ALIASES[name_or_class]
    except (KeyError, TypeError):
        pass
    text = str(name_or_class)
    suggestions = difflib.get_close_matches(text, list(_ALIASES))  # its defaults: 3 at most, ratio 0.6 or more
    lowered = {alias.lower(): alias for alias in _ALIASES}
    if text.lower() in lowered and lowered[text.lower()] not in suggestions:
        suggestions.insert(0, lowered[text.lower()])
    hint = f" Did you mean {' or '.join(repr(s) for s in suggestions)}?" if suggestions else ""
    raise ConfigError(
        f"Unknown partition assignor {name_or_class!r} (partition.assignment.strategy). Valid assignors: "
        f"{', '.join(_CLASS_NAMES)}, or Kafka's class names such as {_PACKAGE}RangeAssignor.{hint}")


def rebalance_protocols(assignor: str) -> set[str]:
    """`supportedProtocols()`: {"eager"}, or {"eager", "cooperative"} for cooperative-sticky."""
    return set(_PROTOCOLS[assignor_name(assignor)])


def _jkey(s: str) -> bytes:
    """Sort key that orders strings as Java's String.compareTo (by UTF-16 code unit)."""
    return s.encode("utf-16-be", "surrogatepass")


def member_order(subscriptions: Mapping[str, Subscription]) -> list[str]:
    """Members in `MemberInfo.compareTo` order (B.1): static members first, by group.instance.id,
    then the dynamic ones by member id."""
    static = [m for m, s in subscriptions.items() if s.instance_id is not None]
    dynamic = [m for m, s in subscriptions.items() if s.instance_id is None]
    static.sort(key=lambda m: (_jkey(subscriptions[m].instance_id), _jkey(m)))
    dynamic.sort(key=_jkey)
    return static + dynamic


# ---------------------------------------------------------------------------------------------
# Owned partitions as a member reports them (their order matters to the sticky assignors < 3.8)

def owned_partitions(partitions: Iterable[TopicPartition]) -> list[TopicPartition]:
    """The subscription's `ownedPartitions` as `ConsumerProtocol.serializeSubscription` writes them
    (3.0+, KAFKA-12898): sorted by topic, then partition. This is what cooperative-sticky reads."""
    return sorted(partitions, key=lambda tp: (_jkey(tp[0]), tp[1]))


def sticky_user_data(last_assignment: Iterable[TopicPartition]) -> list[TopicPartition]:
    """The eager sticky assignor's memory as it sends it (`StickyAssignor.subscriptionUserData`):
    its last assignment grouped by topic in `java.util.HashMap` order
    (`CollectionUtils.groupPartitionsByTopic`), each topic's partitions in the order received."""
    by_topic: dict[str, list[TopicPartition]] = {}
    for topic, partition in last_assignment:
        by_topic.setdefault(topic, []).append((topic, partition))
    return [tp for topic in java_hash_set_order(list(by_topic)) for tp in by_topic[topic]]


# ---------------------------------------------------------------------------------------------
# Range and RoundRobin

def _range(ppt: dict[str, int], subs: Mapping[str, Subscription], _v: tuple[int, ...]
           ) -> dict[str, list[TopicPartition]]:
    """RangeAssignor: per topic, sorted subscribers; member i gets q (+1 if i < r) consecutive partitions.
    The same in every version (without client.rack)."""
    result = {m: [] for m in subs}
    subscribers = {t: [] for t in ppt}
    for m in member_order(subs):
        for t in dict.fromkeys(subs[m].topics):
            if t in subscribers:
                subscribers[t].append(m)
    for t in sorted(ppt, key=_jkey):
        members = subscribers[t]
        if not members:
            continue
        q, r = divmod(ppt[t], len(members))
        start = 0
        for i, m in enumerate(members):
            n = q + (1 if i < r else 0)
            if n == 0:
                break
            result[m].extend((t, p) for p in range(start, start + n))
            start += n
    return result


def _roundrobin(ppt: dict[str, int], subs: Mapping[str, Subscription], _v: tuple[int, ...]
                ) -> dict[str, list[TopicPartition]]:
    """RoundRobinAssignor: a circular iterator over sorted members, skipping non-subscribers; the
    same in every version."""
    result = {m: [] for m in subs}
    order = member_order(subs)
    positions = {t: [] for t in ppt}   # the ascending positions in `order` of each topic's subscribers
    for i, m in enumerate(order):
        for t in dict.fromkeys(subs[m].topics):
            if t in positions:
                positions[t].append(i)
    cursor = 0
    for t in sorted(ppt, key=_jkey):
        idx = positions[t]
        if not idx:
            continue
        for p in range(ppt[t]):
            j = bisect.bisect_left(idx, cursor)   # first subscriber at or after the cursor, wrapping
            i = idx[j] if j < len(idx) else idx[0]
            result[order[i]].append((t, p))
            cursor = i + 1   # past the last member: bisect finds no one and wraps to idx[0]
    return result


# ---------------------------------------------------------------------------------------------
# The sticky family (AbstractStickyAssignor)

def _generation(s: Subscription) -> int:
    return DEFAULT_GENERATION if s.generation is None else s.generation


def _valid_owned(ppt: dict[str, int], subs: Mapping[str, Subscription], members: list[str]):
    """Owned claims that count (allSubscriptionsEqual's validation, 3.6+), and the multiply claimed.

    Returns ({member: its valid owned partitions, in the order it reported them}, multiply_claimed).
    """
    claims: dict[TopicPartition, list[tuple[int, str]]] = {}
    reported: dict[str, list[TopicPartition]] = {}
    for m in members:
        g = _generation(subs[m])
        own = []
        for tp in dict.fromkeys(subs[m].owned):
            n = ppt.get(tp[0])
            if n is not None and 0 <= tp[1] < n:
                own.append(tp)
                claims.setdefault(tp, []).append((g, m))
        reported[m] = own
    owner: dict[TopicPartition, str] = {}
    multiply: set[TopicPartition] = set()
    for tp, cl in claims.items():
        if len(cl) == 1:
            owner[tp] = cl[0][1]
            continue
        top = max(g for g, _ in cl)
        winners = [m for g, m in cl if g == top]
        if len(winners) == 1:
            owner[tp] = winners[0]
        else:
            multiply.add(tp)
    valid = {m: [tp for tp in reported[m] if owner.get(tp) == m] for m in members}
    return valid, multiply


def _constrained(ppt: dict[str, int], members: list[str], valid: dict[str, list[TopicPartition]],
                 multiply: set[TopicPartition], by_partition: bool):
    """Path 1, ConstrainedAssignmentBuilder: all members have the same subscription.

    `by_partition`: owned partitions sorted by (partition, topic) first (3.8+, KAFKA-16277).
    Returns (assignment, partitions transferring ownership {partition: new owner}).
    """
    total = sum(ppt.values())
    min_quota, expected_over = divmod(total, len(members))
    max_quota = min_quota + (1 if expected_over else 0)
    current_over = 0
    tkey = {t: _jkey(t) for t in ppt}
    assignment: dict[str, list[TopicPartition]] = {m: [] for m in members}
    kept: set[TopicPartition] = set()
    maybe_revoked: dict[TopicPartition, str] = {}
    under: list[str] = []        # unfilledMembersWithUnderMinQuotaPartitions
    exact: deque[str] = deque()  # unfilledMembersWithExactlyMinQuotaPartitions

    # Step 1: reassign owned partitions. Java visits members in HashMap order; here in member-id
    # order. A member over its quota keeps the first of its owned partitions: sorted by (partition
    # number, topic) from 3.8 (KAFKA-16277, AbstractStickyAssignor.assignOwnedPartitions at 3.8.0),
    # in the order the member reported them before (the same method at 3.7.0).
    for m in members:
        own = sorted(valid[m], key=lambda tp: (tp[1], tkey[tp[0]])) if by_partition else valid[m]
        if len(own) < min_quota:
            keep, rest = own, ()
            under.append(m)
        elif len(own) >= max_quota and current_over < expected_over:
            current_over += 1
            if current_over == expected_over:
                exact.clear()
            keep, rest = own[:max_quota], own[max_quota:]
        else:
            keep, rest = own[:min_quota], own[min_quota:]
            if current_over < expected_over:
                exact.append(m)
        assignment[m].extend(keep)
        kept.update(keep)
        for tp in rest:
            maybe_revoked[tp] = m

    unassigned = [(t, p) for t in sorted(ppt, key=tkey.__getitem__) for p in range(ppt[t]) if (t, p) not in kept]
    # Java sorts both lists by member id here; `members` is already in that order.

    # Step 2: round robin over the under-minQuota members, then the exactly-minQuota ones.
    transferring: dict[TopicPartition, str] = {}
    pos = 0   # the position of Java's iterator over `under`
    # Java's IllegalStateException checks ("No more unfilled consumers to be assigned.", and after
    # the loop the count of members over minQuota and each member reaching minQuota) cannot fire:
    # the quotas add up to exactly the number of partitions, so they are left out.
    for tp in unassigned:
        if pos < len(under):
            m = under[pos]
            pos += 1
        elif not under:
            m = exact.popleft()
        else:
            m = under[0]
            pos = 1
        lst = assignment[m]
        lst.append(tp)
        revoker = maybe_revoked.get(tp)
        if (revoker is not None and revoker != m) or tp in multiply:
            transferring[tp] = m
        if len(lst) == min_quota:   # only an `under` member: one from `exact` now has minQuota + 1
            pos -= 1
            del under[pos]        # unfilledConsumerIter.remove()
            exact.append(m)
    return assignment, transferring


def _general(ppt: dict[str, int], subs: Mapping[str, Subscription], members: list[str],
             valid: dict[str, list[TopicPartition]]) -> dict[str, list[TopicPartition]]:
    """Path 2, a simpler GeneralAssignmentBuilder: subscriptions differ (see the module docstring)."""
    mkey = {m: _jkey(m) for m in members}
    subscribers: dict[str, list[str]] = {t: [] for t in ppt}
    for m in members:
        for t in dict.fromkeys(subs[m].topics):
            if t in subscribers:
                subscribers[t].append(m)
    current: dict[str, dict[TopicPartition, None]] = {m: {} for m in members}   # ordered sets
    held: dict[tuple[str, str], list[TopicPartition]] = {}   # (member, topic) -> partitions, move candidates last
    kept: set[TopicPartition] = set()   # claims kept; every other partition is free
    for m in members:
        topics = set(subs[m].topics)
        for tp in valid[m]:
            if tp[0] in topics:   # a claim on a topic the member no longer subscribes to is revoked
                current[m][tp] = None
                kept.add(tp)
                held.setdefault((m, tp[0]), []).append(tp)
    count = {m: len(current[m]) for m in members}
    topic_order = sorted(ppt, key=lambda t: (len(subscribers[t]), _jkey(t)))

    # Free partitions, topic by topic, each to the least-loaded subscriber (ties by member id).
    for t in topic_order:
        free = [(t, p) for p in range(ppt[t]) if (t, p) not in kept]
        if not free or not subscribers[t]:
            continue
        heap = [(count[m], mkey[m], m) for m in subscribers[t]]
        heapq.heapify(heap)
        for tp in free:
            c, k, m = heap[0]
            current[m][tp] = None
            held.setdefault((m, t), []).append(tp)
            count[m] = c + 1
            heapq.heapreplace(heap, (c + 1, k, m))

    # Balance: move single partitions while a holder has 2+ more than a subscriber of the topic.
    movable = [t for t in topic_order if len(subscribers[t]) >= 2]
    moved = True
    while moved:
        moved = False
        for t in movable:
            subs_t = subscribers[t]
            low = [(count[m], mkey[m], m) for m in subs_t]
            high = [(-count[m], mkey[m], m) for m in subs_t if held.get((m, t))]
            heapq.heapify(low)
            heapq.heapify(high)
            # `low` keeps a giver's old, higher entry, but never at its top: a member that gives a partition of
            # `t` away never receives one later in this pass (the holders' maximum never rises, the subscribers'
            # minimum never falls). `high` keeps stale entries that do reach its top: skipped.
            while True:
                while high and (-high[0][0] != count[high[0][2]] or not held[(high[0][2], t)]):
                    heapq.heappop(high)
                if not high:
                    break
                s, o = low[0][2], high[0][2]
                if count[o] - count[s] < 2:
                    break
                tp = held[(o, t)].pop()
                del current[o][tp]
                current[s][tp] = None
                held.setdefault((s, t), []).append(tp)
                count[o] -= 1
                count[s] += 1
                heapq.heapreplace(low, (count[s], mkey[s], s))
                heapq.heappush(low, (count[o], mkey[o], o))
                heapq.heappush(high, (-count[s], mkey[s], s))
                if held[(o, t)]:
                    heapq.heappush(high, (-count[o], mkey[o], o))
                moved = True
    return {m: list(current[m]) for m in members}


def _sticky_target(ppt: dict[str, int], subs: Mapping[str, Subscription], v: tuple[int, ...]):
    """The sticky assignment, and the transferring partitions (None when path 2 ran)."""
    members = sorted(subs, key=_jkey)
    if not members:
        return {}, {}
    valid, multiply = _valid_owned(ppt, subs, members)
    first = set(subs[members[0]].topics)
    if all(set(subs[m].topics) == first for m in members):
        return _constrained(ppt, members, valid, multiply, v >= OWNED_BY_PARTITION_SINCE)
    return _general(ppt, subs, members, valid), None


def _sticky(ppt: dict[str, int], subs: Mapping[str, Subscription], v: tuple[int, ...]
            ) -> dict[str, list[TopicPartition]]:
    """StickyAssignor (eager)."""
    return _sticky_target(ppt, subs, v)[0]


def _cooperative_sticky(ppt: dict[str, int], subs: Mapping[str, Subscription], v: tuple[int, ...]
                        ) -> dict[str, list[TopicPartition]]:
    """CooperativeStickyAssignor: the sticky target minus partitions still owned by another member."""
    assignment, transferring = _sticky_target(ppt, subs, v)
    if transferring is None:   # computePartitionsTransferringOwnership, from the reported owned lists
        added: dict[TopicPartition, str] = {}
        revoked: set[TopicPartition] = set()
        for m, lst in assignment.items():
            owned = set(subs[m].owned)
            assigned = set(lst)
            for tp in lst:
                if tp not in owned:
                    added[tp] = m
            revoked.update(tp for tp in owned if tp not in assigned)
        transferring = {tp: m for tp, m in added.items() if tp in revoked}
    withheld: dict[str, set[TopicPartition]] = {}
    for tp, m in transferring.items():
        withheld.setdefault(m, set()).add(tp)
    for m, gone in withheld.items():   # adjustAssignment
        assignment[m] = [tp for tp in assignment[m] if tp not in gone]
    return assignment


#: The assignors by protocol name: each takes (partitions per subscribed topic, subscriptions,
#: Kafka version as a tuple).
ASSIGNORS: dict[str, Callable[[dict[str, int], Mapping[str, Subscription], tuple[int, ...]],
                              dict[str, list[TopicPartition]]]] = {
    "range": _range,
    "roundrobin": _roundrobin,
    "sticky": _sticky,
    "cooperative-sticky": _cooperative_sticky,
}


def _subscribed_partition_counts(partitions_per_topic: Mapping[str, int],
                                 subscriptions: Mapping[str, Subscription]) -> dict[str, int]:
    """AbstractPartitionAssignor.assign: only subscribed topics with metadata and >= 1 partition."""
    wanted: set[str] = set()
    for s in subscriptions.values():
        wanted.update(s.topics)
    ppt = {}
    for t, n in partitions_per_topic.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"partition count of topic {t!r} must be an int >= 0, got {n!r}")
        if t in wanted and n > 0:
            ppt[t] = n
    return ppt


def assign(assignor: str, partitions_per_topic: Mapping[str, int],
           subscriptions: Mapping[str, Subscription], *, kafka_version=None) -> dict[str, list[TopicPartition]]:
    """Run the named assignor as the group leader does; every member gets a (possibly empty) list.

    `assignor` is a protocol name ("range", "roundrobin", "sticky", "cooperative-sticky") or
    Kafka's class name for it. For cooperative-sticky, partitions still owned by another member
    are left out of this generation's assignment (they follow in the next rebalance).
    `kafka_version` is the leader's client version ("3.7", or a tuple); None: the latest rules.
    """
    run = ASSIGNORS[assignor_name(assignor)]
    v = parse_version(kafka_version or KAFKA_VERSIONS[-1])
    for m, s in subscriptions.items():
        if not isinstance(s, Subscription):
            raise TypeError(f"subscription of member {m!r} must be a Subscription, got {type(s).__name__}")
    ppt = _subscribed_partition_counts(partitions_per_topic, subscriptions)
    result = run(ppt, subscriptions, v)
    return {m: result[m] for m in sorted(subscriptions, key=_jkey)}


__all__ = ["ASSIGNORS", "COOPERATIVE", "DEFAULT_GENERATION", "EAGER", "OWNED_BY_PARTITION_SINCE", "Subscription",
           "TopicPartition", "assign", "assignor_name", "member_order", "owned_partitions", "rebalance_protocols",
           "sticky_user_data"]
