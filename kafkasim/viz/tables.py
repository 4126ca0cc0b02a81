"""Small tables read from a Run, the only inputs of the charts (times in ms).

Everything here reads the run's events (`run.rows`, the tuples behind `run.events`, in
`kafkasim.core.events.FIELDS` order) and its documented readers (`member_states()`, `lag`,
`summary`, `scenario`); nothing reaches into the models. The tables are aggregated so that a
chart stays small whatever the run's size: consecutive consuming/processing intervals merge
into one "active" band, lag is down-sampled keeping peaks, throughput is binned.

Two things the events do not carry, and how they are derived instead:

* duplicates over time: Processed events count records, not which were processed before. The
  cumulative duplicate count at each lag sample t is the records processed by t minus the
  distinct records processed by t, and distinct = produced - lag (`Run.lag` counts every batch
  that ended at or before t; `Partitions` gives produced exactly). It ends at
  `summary["duplicates"]`.
* member names: coordinator rows name the Kafka member id, consumer rows the consumer's name.
  A classic member id is ``<client.id>-<uuid>`` for a dynamic member (``consumer-<group>-1-...``
  by default) and ``<group.instance.id>-<uuid>`` for a static one (``c-1-...``), a UUID the
  coordinator made up; a JoinGroup sent before the member had an id names its client.id; a
  consumer-protocol member id is a bare ``Uuid`` the client made up (KIP-1082). `member_name` maps
  them all onto the consumer's name through the run's `member_names` and `client_names`;
  `consumer_name` strips a classic id's suffix (for ids no run knows, e.g. a parsed log's).
* the group protocol: a run's consumers use `group.protocol` (`protocol`); its rebalance phases
  are PreparingRebalance / CompletingRebalance (classic) or Assigning / Reconciling (consumer),
  and a rebalance starts with a RebalanceStarted (classic) or a GroupEpochBumped (consumer).
"""

from __future__ import annotations

import functools
import re
import weakref

import numpy as np
import pandas as pd

from kafkasim.core.events import ACTIVE_STATES
from kafkasim.scenario.run import REBALANCE_STARTS, rebalance_phases
from kafkasim.scenario.workload import Partitions

#: A Kafka member id is the client id (or group.instance.id) + "-" + a random UUID
#: (GroupCoordinator.scala: `clientId + "-" + UUID.randomUUID()`).
_UUID_SUFFIX = re.compile(r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_NUMBERED = re.compile(r"^(.*?)(\d+)$")

#: Above this many state intervals, consuming/processing are merged into "active" by default.
MAX_INTERVALS = 800

T, SOURCE, GROUP, MEMBER, KIND, GENERATION, TOPIC, PARTITION, ERROR, REASON, VALUE, STATE = range(12)


def consumer_name(member_id: str | None) -> str | None:
    """"c-1-0b7e...-..." -> "c-1"; a name without a UUID suffix is returned unchanged."""
    return _UUID_SUFFIX.sub("", member_id) if member_id else member_id


def member_name(run, member_id: str | None) -> str | None:
    """The consumer's name of a member id (or the client.id of a first JoinGroup) of `run`, classic
    or consumer protocol, falling back on `consumer_name` for an id the run never gave a consumer."""
    if not member_id:
        return member_id
    return run.member_names.get(member_id) or run.client_names.get(member_id) or consumer_name(member_id)


def request_member_name(run, rows: list, i: int) -> str | None:
    """`member_name` of rows[i], where a JoinGroup sent before the member had an id names a client.id
    that several consumers share (each consumer its own process: `consumer-<group>-1` for all): the
    coordinator's answer, the next row at the same instant, names the member id it handed out."""
    member = rows[i][MEMBER]
    name = member_name(run, member)
    if name == member and member and i + 1 < len(rows):
        after = rows[i + 1]
        if after[SOURCE] == "coordinator" and after[T] == rows[i][T] and after[MEMBER] in run.member_names:
            return run.member_names[after[MEMBER]]
    return name


def protocol(run) -> str:
    """The group protocol of the run's consumers: "classic" or "consumer" (KIP-848)."""
    return "consumer" if run.scenario.consumer_config.get("group.protocol") == "consumer" else "classic"


def member_sort_key(name: str):
    """Natural order: c-2 before c-10."""
    m = _NUMBERED.match(name)
    return (m.group(1), int(m.group(2)), "") if m else (name, -1, name)


def member_order(names) -> list[str]:
    return sorted(set(names), key=member_sort_key)


def window_ms(run, window=None) -> tuple[int, int]:
    """The (start, end) in ms a chart shows: the whole run unless a window is given."""
    if window is None:
        return 0, run.end_ms
    lo, hi = window
    lo, hi = max(0, int(lo)), min(run.end_ms, int(hi))
    if hi <= lo:
        raise ValueError(f"window must be (start_ms, end_ms) with start < end inside the run "
                         f"(0 to {run.end_ms} ms), got {window!r}")
    return lo, hi


_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def cached(build):
    """Memoize a table per run and arguments (runs are immutable; charts drawn together, like
    the timeline and the lag panels, share their bands and markers). Callers get a copy. (A partial
    of a module function, not a closure: what runs at each call is then code mutation testing reaches.)"""
    return functools.update_wrapper(functools.partial(_memoized, build), build)


def _memoized(build, run, *args):
    memo = _CACHE.setdefault(run, {})
    key = (build.__name__, *args)
    if key not in memo:
        memo[key] = build(run, *args)
    value = memo[key]
    return value.copy() if isinstance(value, pd.DataFrame) else value


#: The event kinds the charts read besides the coordinator's group states.
INDEXED = frozenset({"Processed", "MemberRemoved", "Fatal", "StateChanged"})


@cached
def by_kind(run) -> dict[str, list[tuple]]:
    """The rows of the INDEXED kinds by kind, and under "coordinator" every coordinator row of
    the run's group that carries a group state (one pass over the run, in order)."""
    index = {kind: [] for kind in INDEXED}
    coordinator = index["coordinator"] = []
    group = run.scenario.group_id
    for row in run.rows:
        if row[KIND] in INDEXED:
            index[row[KIND]].append(row)
        if row[STATE] is not None and row[SOURCE] == "coordinator" and row[GROUP] == group:
            coordinator.append(row)
    return index


@cached
def _times(run):
    """The rows' times, if the log is in time order (simulated runs are); else None."""
    times = np.fromiter((row[T] for row in run.rows), dtype=np.int64, count=len(run.rows))
    return times if bool(np.all(np.diff(times) >= 0)) else None


def rows_between(run, lo: int, hi: int) -> list[tuple]:
    """The rows with lo <= time <= hi, in log order."""
    times = _times(run)
    if times is None:
        return [row for row in run.rows if lo <= row[T] <= hi]
    return run.rows[int(np.searchsorted(times, lo, "left")):int(np.searchsorted(times, hi, "right"))]


def clip(frame: pd.DataFrame, lo: int, hi: int) -> pd.DataFrame:
    """The intervals (start, end) that overlap [lo, hi], cut to it."""
    frame = frame[(frame["end"] > lo) & (frame["start"] < hi)].copy()
    frame["start"] = frame["start"].clip(lower=lo)
    frame["end"] = frame["end"].clip(upper=hi)
    return frame


def merge_runs(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Merge consecutive rows (already grouped by `keys` and in time order) whose intervals touch
    and whose `keys` are equal; other columns keep the first row's value."""
    if frame.empty:
        return frame.reset_index(drop=True)
    n = len(frame)
    new = np.ones(n, dtype=bool)
    same = frame["start"].to_numpy()[1:] == frame["end"].to_numpy()[:-1]
    for key in keys:
        col = frame[key].to_numpy()
        same &= col[1:] == col[:-1]
    new[1:] = ~same
    firsts = np.flatnonzero(new)
    lasts = np.append(firsts[1:], n) - 1
    out = frame.iloc[firsts].reset_index(drop=True)
    out["end"] = frame["end"].to_numpy()[lasts]
    return out


def states(run, window=None, merge_active: bool | None = None) -> pd.DataFrame:
    """member, state, start, end: each consumer's state over time, clipped to the window.

    merge_active: merge consuming/processing into one "active" band (None: only when the
    window holds more than MAX_INTERVALS of them, i.e. when the flips would be sub-pixel anyway).
    """
    return _states(run, window_ms(run, window), merge_active)


@cached
def _states(run, span, merge_active) -> pd.DataFrame:
    lo, hi = span
    if merge_active is None:  # each batch is a processing and a consuming interval
        times, _ = processed(run)
        merge_active = 2 * int(np.searchsorted(times, hi, "right") - np.searchsorted(times, lo)) > MAX_INTERVALS
    frame = clip(_active_states(run) if merge_active else run.member_states(), lo, hi)
    frame = frame.sort_values("member", kind="stable")  # each member's rows stay in time order
    return merge_runs(frame, ["member", "state"])


@cached
def _active_states(run) -> pd.DataFrame:
    """member, state, start, end with consuming and processing as one "active" state: the
    consumers' StateChanged events alone ("consuming" there covers processing, which
    `Run.member_states` splits off from Fetched/Processed), so no pass over every batch."""
    current: dict[str, tuple[str, int]] = {}
    out = []
    for row in by_kind(run)["StateChanged"]:
        if row[SOURCE] != "consumer":  # a consumer group's coordinator writes StateChanged too
            continue
        member, time = row[MEMBER], row[T]
        state = "active" if row[REASON] in ACTIVE_STATES else row[REASON]
        old = current.get(member)
        if old is None or old[0] != state:
            if old is not None and old[1] < time:
                out.append((member, *old, time))
            current[member] = (state, time)
    out.extend((member, state, start, run.end_ms) for member, (state, start) in current.items() if start < run.end_ms)
    return pd.DataFrame(out, columns=["member", "state", "start", "end"])


def rebalances(run, window=None) -> pd.DataFrame:
    """phase (PreparingRebalance / CompletingRebalance, or a consumer group's Assigning /
    Reconciling), start, end, generation (group epoch), reason: when the coordinator was
    rebalancing, from the group state after each coordinator event."""
    return _rebalances(run, window_ms(run, window))


@cached
def _rebalances(run, span) -> pd.DataFrame:
    lo, hi = span
    out = [(phase, max(start, lo), min(end, hi), generation, reason)
           for phase, start, end, generation, reason in rebalance_phases(by_kind(run)["coordinator"], run.end_ms)
           if end > lo and start < hi]
    return pd.DataFrame(out, columns=["phase", "start", "end", "generation", "reason"])


def rebalance_starts(run, window=None) -> pd.DataFrame:
    """time, generation, reason of every RebalanceStarted (classic: generation is the one it
    leaves) or GroupEpochBumped (consumer protocol: generation is the new group epoch). A
    rebalance that completes within the same millisecond leaves no band, but it still happened."""
    lo, hi = window_ms(run, window)
    rows = [(r[T], r[GENERATION], (r[REASON] or "")[:160]) for r in by_kind(run)["coordinator"]
            if r[KIND] in REBALANCE_STARTS and lo <= r[T] <= hi]
    return pd.DataFrame(rows, columns=["time", "generation", "reason"])


def removals(run, window=None) -> pd.DataFrame:
    """time, member (consumer name), member_id, reason of every MemberRemoved."""
    return _removals(run, window_ms(run, window))


@cached
def _removals(run, span) -> pd.DataFrame:
    lo, hi = span
    rows = [(r[T], member_name(run, r[MEMBER]), r[MEMBER], r[REASON])
            for r in by_kind(run)["MemberRemoved"] if lo <= r[T] <= hi]
    return pd.DataFrame(rows, columns=["time", "member", "member_id", "reason"])


def fault_marks(run, window=None) -> pd.DataFrame:
    """time, member, label, short (label) of each fault of the scenario (kafkasim.core.faults)."""
    lo, hi = window_ms(run, window)
    rows = []
    for fault in run.scenario.faults:
        member = getattr(fault, "member", None) or ", ".join(getattr(fault, "members", ()))
        if lo <= fault.at_ms <= hi:
            rows.append((fault.at_ms, member, fault.label(), fault.short_label()))
    return pd.DataFrame(rows, columns=["time", "member", "label", "short"])


def _nice_bin(span_ms: int, bins: int) -> int:
    for step in (100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000):
        if span_ms / step <= bins:
            return step
    return int(np.ceil(span_ms / bins / 600_000)) * 600_000


def _produced(run, times: np.ndarray) -> np.ndarray:
    """Records produced by each time (the same fluid production as kafkasim.scenario.workload.Partitions)."""
    s = run.scenario
    parts = Partitions(s.topics, s.produce_rate_per_s, s.duration_ms)
    rate = np.asarray(parts.rate, dtype=float)
    t = np.minimum(np.asarray(times, dtype=float), s.duration_ms)
    return np.floor(rate[:, None] * t[None, :]).astype(np.int64).sum(axis=0)


def lag(run, window=None, max_points: int = 300) -> pd.DataFrame:
    """time, lag (records produced but not yet processed); the peak of each bin when down-sampled."""
    lo, hi = window_ms(run, window)
    frame = run.lag[(run.lag["time"] >= lo) & (run.lag["time"] <= hi)]
    if len(frame) > max_points:
        step = _nice_bin(hi - lo, max_points)
        frame = frame.groupby(frame["time"] // step * step, sort=True)["lag"].max().reset_index()
    return frame.reset_index(drop=True)


@cached
def processed(run) -> tuple[np.ndarray, np.ndarray]:
    """Times and record counts of the Processed events, as arrays."""
    rows = by_kind(run)["Processed"]
    return (np.fromiter((r[T] for r in rows), dtype=np.int64, count=len(rows)),
            np.fromiter((r[VALUE] for r in rows), dtype=float, count=len(rows)))


def throughput(run, window=None, bins: int = 150) -> pd.DataFrame:
    """start, end, processed_per_s, produced_per_s, per time bin (Processed events' record counts)."""
    lo, hi = window_ms(run, window)
    step = _nice_bin(hi - lo, bins)
    edges = np.arange(lo, hi + step, step, dtype=np.int64)
    edges[-1] = min(edges[-1], hi)
    edges = np.unique(edges)
    times, counts = processed(run)
    done, _ = np.histogram(times, bins=edges, weights=counts)
    made = np.diff(_produced(run, edges))
    seconds = np.diff(edges) / 1000.0
    return pd.DataFrame({"start": edges[:-1], "end": edges[1:], "processed_per_s": np.round(done / seconds, 1),
                         "produced_per_s": np.round(made / seconds, 1)})


def duplicates(run, window=None) -> pd.DataFrame:
    """time, duplicates: records processed more than once, cumulative (see the module docstring)."""
    lo, hi = window_ms(run, window)
    samples = run.lag
    times = samples["time"].to_numpy(dtype=np.int64)
    distinct = _produced(run, times) - samples["lag"].to_numpy(dtype=np.int64)
    p_times, counts = processed(run)
    p_cum = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    series = (p_cum[np.searchsorted(p_times, times, side="right")] - distinct).tolist()
    if not len(times) or times[-1] < run.end_ms:  # the run ends between two samples
        times = np.append(times, run.end_ms)
        series.append(run.summary["duplicates"])
    frame = pd.DataFrame({"time": times, "duplicates": series})
    return frame[(frame["time"] >= lo) & (frame["time"] <= hi)].reset_index(drop=True)


def mean_count(intervals: pd.DataFrame, lo: int, hi: int, bins: int, name: str) -> pd.DataFrame:
    """time, <name>: how many of `intervals` (start, end) were open, on average (to hundredths),
    over each of `bins` equal bins from lo to hi; `time` is the bin's start, and a last row at `hi`
    repeats the last bin (so that a step-after line or area closes)."""
    edges = np.linspace(lo, hi, bins + 1)
    if intervals.empty:
        return pd.DataFrame({"time": edges, name: 0.0})
    # The count as a step function (+1 at each start, -1 at each end); its integral at the
    # bin edges, differenced, is the mean count per bin. Steps at the same time need no order:
    # between them the count lasts 0 ms and adds nothing to the integral.
    times = np.concatenate([intervals["start"], intervals["end"]])
    steps = np.concatenate([np.ones(len(intervals)), -np.ones(len(intervals))])
    order = np.argsort(times)
    times, level = times[order], np.cumsum(steps[order])
    area = np.concatenate([[0.0], np.cumsum(level[:-1] * np.diff(times))])
    mean = (np.diff(np.interp(edges, times, area)) / np.diff(edges)).round(2)
    return pd.DataFrame({"time": edges, name: np.append(mean, mean[-1])})
