"""Claims as code: the sentences of a chapter that state a result, computed from the run they
describe and checked by the notebook that shows them.

A chapter never writes "static membership wins this phase" from expectation. It computes the
figures, writes the sentence from them, and states what must hold for the sentence to be true::

    claim("Static membership loses {static:.0f} partition-seconds in the rolling restart, "
          "{rank} of the four groups.",
          holds=rank_of_static == 4, static=lost["static"], rank=ORDINAL[rank_of_static])

The cell shows the sentence as Markdown (in JupyterLab and on the site, where the book hides the
cell's code: tag it ``claim``). If ``holds`` is false the cell raises :class:`ClaimFailed`,
which fails papermill, ``make test`` and ``make book``: a change to the simulator that makes a
chapter's sentence untrue stops the build instead of publishing it.

A comparison between settings or protocols is made over several seeds (:func:`spread`), and the
sentence shows the spread; a figure from one run says so in its wording.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

CLAIM_TAG = "claim"  # cells whose code the book hides: only the generated sentence is shown


class ClaimFailed(AssertionError):
    """A chapter's sentence no longer holds for the run it describes."""


@dataclass(frozen=True)
class Claim:
    """A sentence whose figures came from a run; shown as Markdown."""

    text: str

    def _repr_markdown_(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text


def claim(text: str, *, holds: bool, **values: Any) -> Claim:
    """Format `text` with `values`; raise ClaimFailed, naming the sentence, if `holds` is false.

    `holds` is the condition that makes the sentence true ("static is the worst of the four",
    "every seed agrees"), required because every claim has one; write it next to the sentence so
    that a reader of the notebook sees both. Values are formatted with str.format, so ``{x:.1f}``
    and ``{n:,}`` work.
    """
    sentence = text.format(**values)
    if not holds:
        raise ClaimFailed(f"This chapter's sentence no longer holds for its run:\n  {sentence}\n"
                          f"values: {values}")
    return Claim(sentence)


@dataclass(frozen=True)
class Spread:
    """One figure measured over several seeds: its median, lowest and highest value."""

    values: tuple[float, ...]

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def n(self) -> int:
        return len(self.values)

    def __format__(self, spec: str) -> str:
        """``f"{s:.0f}"`` -> "12 (median; 9 to 15 over 5 seeds)"; "12 (all 5 seeds)" when every seed
        gives the same figure at the precision shown (no "73.0 to 73.0")."""
        low, high = format(self.low, spec), format(self.high, spec)
        if low == high:
            return f"{low} (all {self.n} seeds)"
        return f"{self.median:{spec}} (median; {low} to {high} over {self.n} seeds)"

    def __str__(self) -> str:
        return format(self, "g")

    def compact(self, spec: str = "g") -> str:
        """For a table cell: "6" when every seed gives the same figure at that precision, else
        "4 (2 to 6)": the median and, in brackets, the lowest and highest value."""
        low, high = format(self.low, spec), format(self.high, spec)
        return low if low == high else f"{self.median:{spec}} ({low} to {high})"


def spread(values: Iterable[float]) -> Spread:
    """A figure over several seeds; refuses an empty list (a claim needs at least one run)."""
    values = tuple(float(v) for v in values)
    if not values:
        raise ValueError("spread() needs at least one value")
    return Spread(values)


def over_seeds(measure: Callable[[int], Any], seeds: Sequence[int]) -> list[Any]:
    """`measure(seed)` for every seed, in order: a comparison's figures from several runs."""
    if len(seeds) == 0:
        raise ValueError("over_seeds() needs at least one seed")
    return [measure(seed) for seed in seeds]
