"""What the consumers consume: topics produced at a steady rate, and how long each record takes.

Production is a deterministic fluid: partition i holds floor(rate_i * t) records at time t, so
a record's produce time is known from its offset and production costs no events at all. Latency
counts from the start of a record's slot, offset / rate_i (it is in the log by the slot's end,
(offset + 1) / rate_i): a simplification that adds up to 1 / rate_i ms to each record's latency.
Processing times are drawn per record from a distribution, in seeded chunks, and a batch's
duration is a difference of two cumulative sums: batches cost O(1), whatever their size.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Callable

import numpy as np

from kafkasim.core.errors import ConfigError
from kafkasim.core.java import INT_MAX

Z99 = 2.3263478740408408  # standard normal quantile at 0.99
#: The longest processing time per record (ms), and the largest mean a distribution may have: Java's
#: Integer.MAX_VALUE, the longest interval Kafka's client configs take (max.poll.interval.ms). Beyond it
#: a run's cumulative times lose their precision, then become infinite.
MAX_PROCESSING_MS = INT_MAX


def _is_ms(value) -> bool:
    """A finite number of ms within [0, MAX_PROCESSING_MS] (NaN and booleans are not)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and 0 <= value <= MAX_PROCESSING_MS)


class Distribution:
    """A processing-time distribution in ms per record: Constant, LogNormal or Custom, each of which
    says what it is (`describe`, stored with every run's scenario)."""

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Constant(Distribution):
    ms: float

    def __post_init__(self):
        if not _is_ms(self.ms):
            raise ConfigError(f"processing_ms must be a number of ms per record in [0, {MAX_PROCESSING_MS}], "
                              f"got {self.ms!r}")

    def sample(self, rng, n):
        return np.full(n, float(self.ms))

    def describe(self) -> str:
        return f"{self.ms:g} ms per record"


@dataclass(frozen=True)
class LogNormal(Distribution):
    """Log-normal, given by its median and 99th percentile (how people describe latency)."""

    median_ms: float
    p99_ms: float

    def __post_init__(self):
        if not (_is_ms(self.median_ms) and _is_ms(self.p99_ms) and 0 < self.median_ms <= self.p99_ms):
            raise ConfigError(f"LogNormal needs 0 < median_ms <= p99_ms <= {MAX_PROCESSING_MS} ms, got "
                              f"median_ms={self.median_ms!r}, p99_ms={self.p99_ms!r}")
        # log(mean) = log(median) + sigma^2 / 2: a tail this heavy draws times that overflow to infinity
        if math.log(self.median_ms) + self.sigma ** 2 / 2 > math.log(MAX_PROCESSING_MS):
            ratio = self.p99_ms / self.median_ms
            raise ConfigError(f"LogNormal(median_ms={self.median_ms!r}, p99_ms={self.p99_ms!r}) has a mean above "
                              f"{MAX_PROCESSING_MS} ms per record (p99_ms / median_ms = {ratio:.3g}): a tail this "
                              f"heavy makes processing times infinite; bring p99_ms closer to median_ms")

    @property
    def sigma(self) -> float:
        return math.log(self.p99_ms / self.median_ms) / Z99

    @property
    def mean_ms(self) -> float:
        return self.median_ms * math.exp(self.sigma ** 2 / 2)

    def sample(self, rng, n):
        return rng.lognormal(math.log(self.median_ms), self.sigma, n)

    def describe(self) -> str:
        return f"log-normal, median {self.median_ms:g} ms, p99 {self.p99_ms:g} ms per record"


@dataclass(frozen=True)
class Custom(Distribution):
    """Any sampler `fn(rng, n) -> n non-negative ms values` (rng is a numpy Generator)."""

    fn: Callable[[np.random.Generator, int], np.ndarray]
    label: str = "custom"

    def sample(self, rng, n):
        values = np.asarray(self.fn(rng, n), dtype=float)
        if values.shape != (n,) or (values < 0).any() or not np.isfinite(values).all():
            raise ConfigError(f"custom processing-time sampler {self.label!r} must return {n} finite values >= 0")
        return values

    def describe(self) -> str:
        return self.label


def as_distribution(value) -> Distribution:
    """A number means a constant time per record; a Distribution is used as is."""
    if isinstance(value, Distribution):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Constant(float(value))
    if callable(value):
        return Custom(value)
    raise ConfigError(f"processing_ms must be a number of ms, a Distribution (Constant, LogNormal, Custom) "
                      f"or a sampler function, got {value!r}")


class ProcessingClock:
    """Per-consumer stream of per-record processing times, consumed in batches."""

    CHUNK = 4096

    def __init__(self, dist: Distribution, rng: np.random.Generator):
        self.dist, self.rng = dist, rng
        self._cum: list[float] = [0.0]  # cumulative sums of the current chunk
        self._i = 0
        self._constant = dist.ms if isinstance(dist, Constant) else None

    def take(self, n: int) -> float:
        """Total processing time (ms) of the next `n` records."""
        if self._constant is not None:
            return self._constant * n
        total = 0.0
        while n > 0:
            left = len(self._cum) - 1 - self._i
            if left == 0:
                self._cum = [0.0, *np.cumsum(self.dist.sample(self.rng, self.CHUNK)).tolist()]
                self._i = 0
                continue
            k = min(n, left)
            total += self._cum[self._i + k] - self._cum[self._i]
            self._i += k
            n -= k
        return total


class Partitions:
    """Every partition of every topic: production, and what has been processed (for duplicates).

    `hw[i]` is one past the highest offset ever processed in partition i; processing offsets
    below it again counts as duplicates, attributed to the cause recorded when the partition
    was last handed over (`cause[i]`): the revoking owner's reason, or, when the new owner gets it
    while the old one still believes it owns it (a zombie), why the old one lost it.
    """

    def __init__(self, topics: dict[str, int], produce_rate_per_s, duration_ms: int):
        self.tps: list[tuple[str, int]] = [(t, p) for t in sorted(topics) for p in range(topics[t])]
        self.index = {tp: i for i, tp in enumerate(self.tps)}
        rates = produce_rate_per_s if isinstance(produce_rate_per_s, dict) else None
        per_ms = []
        for topic, _ in self.tps:
            total = rates.get(topic, 0.0) if rates is not None else produce_rate_per_s / len(topics)
            per_ms.append(total / topics[topic] / 1000.0)
        self.rate = per_ms  # records per ms, per partition
        self.duration_ms = duration_ms
        n = len(self.tps)
        self.hw = [0] * n
        self.cause: list[str | None] = [None] * n
        self.owner: list = [None] * n  # the consumer that believes it owns partition i (zombies included)
        self.duplicates: dict[str, int] = {}
        self.processed = 0
        self.hw_total = 0  # sum(hw): records processed at least once
        self.latency: list[tuple[int, float, float]] = []  # (records, first latency, last latency) per slice
        self.progress: list[tuple[int, int]] = [(0, 0)]  # (time, hw_total) after each batch, for lag
        self._rates = np.asarray(per_ms, dtype=float)
        self.done: list | None = None  # share groups: the offsets processed, as ranges per partition

    def __len__(self) -> int:
        return len(self.tps)

    def finished(self) -> "Partitions":
        """The ledger once the run is over: it forgets which consumer believed it owned what
        (live objects), and keeps what was produced, processed, duplicated and how late."""
        self.owner = None
        return self

    def end_offset(self, i: int, t: int) -> int:
        """Log end offset of partition i at time t (production stops at duration_ms)."""
        return int(self.rate[i] * min(t, self.duration_ms))

    def produced(self, t: int) -> int:
        """Records produced by time t: the sum of every partition's end offset (same truncation)."""
        return int((self._rates * min(t, self.duration_ms)).astype(np.int64).sum())

    def process(self, records: list[tuple[int, int, int]], count: int, start: int, end: int) -> None:
        """Account a batch: `count` records in slices (partition, first offset, end offset), processed
        one after another from `start` to `end` ms. Offsets below a partition's high mark are
        duplicates, attributed to `cause[i]`. Latency (produce to processed) varies linearly along
        the batch, so each slice is kept as its first and last record's latency."""
        hw, rate, latency = self.hw, self.rate, self.latency
        per_record = (end - start) / count
        first = start + per_record  # when the batch's first record is done
        total = self.hw_total
        for i, a, b in records:
            high = hw[i]
            if b > high:
                hw[i] = b
                total += b - (a if a > high else high)
            if a < high:
                cause = self.cause[i] or "unknown"
                self.duplicates[cause] = self.duplicates.get(cause, 0) + min(b, high) - a
            r, n = rate[i], b - a
            latency.append((n, first - a / r, first + (n - 1) * per_record - (b - 1) / r))
            first += n * per_record
        self.hw_total = total
        self.processed += count
        self.progress.append((end, total))

    def process_ranges(self, records: list[tuple[int, int, int, int]], count: int, start: int, end: int) -> None:
        """Account a share consumer's batch: (partition, first, last, delivery count) ranges, processed
        one after another from `start` to `end` ms. Share consumers read a partition side by side, so
        what was processed is kept as ranges per partition (not a high mark); an offset processed
        before is a duplicate, attributed to "redelivery"."""
        if self.done is None:
            self.done = [None] * len(self.tps)
        rate, latency = self.rate, self.latency
        per_record = (end - start) / count
        t = start + per_record
        for i, a, b, _ in records:
            done = self.done[i]
            if done is None:
                done = self.done[i] = RangeSet()
            n = b - a + 1
            dup = done.add(a, b)
            if dup:
                self.duplicates["redelivery"] = self.duplicates.get("redelivery", 0) + dup
            self.hw_total += n - dup
            r = rate[i]
            latency.append((n, t - a / r, t + (n - 1) * per_record - b / r))
            t += n * per_record
        self.processed += count
        self.progress.append((end, self.hw_total))

    def lag(self, times) -> np.ndarray:
        """Records produced but not yet processed (by anyone) at each of `times` (whole ms, ascending:
        `Run.lag` passes its sample instants)."""
        times = np.asarray(times)
        progress = np.asarray(self.progress, dtype=np.int64)
        done = progress[np.searchsorted(progress[:, 0], times, side="right") - 1, 1]
        produced = np.empty(len(times), dtype=np.int64)
        clipped = np.minimum(times, self.duration_ms).astype(float)
        for k in range(0, len(times), 256):  # in chunks: samples x partitions can be large
            chunk = clipped[k:k + 256, None] * self._rates[None, :]
            produced[k:k + 256] = chunk.astype(np.int64).sum(axis=1)
        return np.maximum(0, produced - done)


class RangeSet:
    """Disjoint ranges of offsets [first, last], adjacent ones merged."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlap(self, first: int, last: int) -> int:
        """How many offsets of first..last (both included) the set holds."""
        i = bisect_left(self.ends, first)  # the first range that ends at or after `first`
        n = 0
        while i < len(self.starts) and self.starts[i] <= last:
            n += min(last, self.ends[i]) - max(first, self.starts[i]) + 1
            i += 1
        return n

    def add(self, first: int, last: int) -> int:
        """Add first..last; returns how many of them were already there."""
        dup = self.overlap(first, last)
        lo = bisect_left(self.ends, first - 1)
        hi = bisect_right(self.starts, last + 1)
        if lo < hi:
            first, last = min(first, self.starts[lo]), max(last, self.ends[hi - 1])
        self.starts[lo:hi] = [first]
        self.ends[lo:hi] = [last]
        return dup

    def remove(self, first: int, last: int) -> None:
        """Remove first..last (both included): a range that sticks out on either side keeps that part."""
        lo = bisect_left(self.ends, first)   # the ranges that end at or after `first`
        hi = bisect_right(self.starts, last)  # ... and start at or before `last`
        if lo >= hi:
            return
        keep_s, keep_e = [], []
        if self.starts[lo] < first:
            keep_s.append(self.starts[lo])
            keep_e.append(first - 1)
        if self.ends[hi - 1] > last:
            keep_s.append(last + 1)
            keep_e.append(self.ends[hi - 1])
        self.starts[lo:hi] = keep_s
        self.ends[lo:hi] = keep_e

    def __len__(self) -> int:
        return sum(e - s + 1 for s, e in zip(self.starts, self.ends))

    def ranges(self) -> list[tuple[int, int]]:
        return list(zip(self.starts, self.ends))
