"""The share coordinator's copy of one share partition's state (`__share_group_state`), kept as
ranges of offsets: a write of a range costs O(ranges touched), not O(records), so a run of
millions of records writes in time (ShareSnapshot/ShareUpdate records hold state batches too,
`ShareCoordinatorShard.java`).

May import: nothing of kafkasim.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right


class PersistedState:
    """Disjoint state batches [first, last] -> (state, delivery count), in offset order."""

    __slots__ = ("firsts", "lasts", "values")

    def __init__(self) -> None:
        self.firsts: list[int] = []
        self.lasts: list[int] = []
        self.values: list[tuple[str, int]] = []

    def put(self, first: int, last: int, state: str, count: int) -> None:
        """first..last now hold (state, count), whatever they held before."""
        lo = bisect_left(self.lasts, first)
        hi = bisect_right(self.firsts, last)
        firsts, lasts, values = [], [], []
        if lo < hi and self.firsts[lo] < first:
            firsts.append(self.firsts[lo]), lasts.append(first - 1), values.append(self.values[lo])
        firsts.append(first), lasts.append(last), values.append((state, count))
        if lo < hi and self.lasts[hi - 1] > last:
            firsts.append(last + 1), lasts.append(self.lasts[hi - 1]), values.append(self.values[hi - 1])
        self.firsts[lo:hi], self.lasts[lo:hi], self.values[lo:hi] = firsts, lasts, values

    def trim(self, start: int) -> None:
        """Forget the offsets below `start` (the share-partition start offset written)."""
        cut = bisect_left(self.lasts, start)
        del self.firsts[:cut], self.lasts[:cut], self.values[:cut]
        if self.firsts and self.firsts[0] < start:
            self.firsts[0] = start

    def batches(self) -> list[tuple[int, int, str, int]]:
        """The state batches, adjacent ones with the same state and count merged."""
        out: list[tuple[int, int, str, int]] = []
        for first, last, (state, count) in zip(self.firsts, self.lasts, self.values):
            if out and out[-1][1] == first - 1 and out[-1][2:] == (state, count):
                out[-1] = (out[-1][0], last, state, count)
            else:
                out.append((first, last, state, count))
        return out
