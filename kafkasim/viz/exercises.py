"""Self-checking "predict, then run" exercises for the chapters.

A chapter asks the reader to write a prediction into a variable (a cell tagged ``exercise``),
runs the scenario, and a cell tagged ``check`` compares the two with :func:`check`, which says
right or wrong and why. It never raises on a wrong answer (a reader's notebook keeps running);
it returns the verdict so that a ``solution`` cell can ``assert`` it with the right answer. The
verdict shows nothing when it ends a cell: the printed line already said it.

    my_guess = None   # exercise: how many rebalances?
    check(my_guess, run.summary["rebalances"], why="each removal and each rejoin is one rebalance")

``tests/test_exercises.py`` runs every chapter once more with each ``exercise`` cell replaced by
the wrong answer stored in its metadata (``"kafkasim": {"right": "my_guess = 4", "wrong":
"my_guess = 99"}``) and expects every ``check`` cell to print :data:`WRONG`, then runs each check
cell again after the right answer and expects :data:`RIGHT`: a check that cannot fail, or cannot
pass, is not an exercise.
"""

from __future__ import annotations

from typing import Any

RIGHT = "✔ Right."
WRONG = "✘ Not quite."
UNANSWERED = "… No prediction yet."


class Verdict:
    """Truthy for a right answer; invisible as a cell's last value (no stray ``False`` under the
    printed verdict)."""

    __slots__ = ("right",)

    def __init__(self, right: bool):
        self.right = right

    def __bool__(self) -> bool:
        return self.right

    def __repr__(self) -> str:
        return f"Verdict({self.right})"

    def _ipython_display_(self) -> None:
        """IPython calls this instead of showing the repr: show nothing."""


def _matches(predicted: Any, actual: Any, tolerance: float) -> bool:
    if isinstance(actual, bool) or isinstance(predicted, bool):
        return predicted is actual or predicted == actual
    if isinstance(actual, (int, float)) and isinstance(predicted, (int, float)):
        # Relative to what was measured, on both sides (math.isclose's rel_tol is relative to the
        # larger of the two, so it would accept 111 for a measured 100 at 10 % but not 89).
        return abs(predicted - actual) <= tolerance * abs(actual)
    if isinstance(actual, str) and isinstance(predicted, str):
        return predicted.strip().lower() == actual.strip().lower()
    if isinstance(actual, (set, frozenset, list, tuple)) and isinstance(predicted, (set, frozenset, list, tuple)):
        return set(predicted) == set(actual) if isinstance(actual, (set, frozenset)) else list(predicted) == list(actual)
    return predicted == actual


def check(predicted: Any, actual: Any, why: str = "", *, tolerance: float = 0.0, unit: str = "") -> Verdict:
    """Compare a reader's prediction with what the simulation measured; print the verdict and why.

    `tolerance` is relative to the measured value (0.1 accepts within 10 % of it, either side); strings compare case-insensitively; sets
    as sets. The verdict is true only for a right answer (None means "not answered yet": false).
    """
    shown = f"{actual}{' ' + unit if unit else ''}"
    if predicted is None:
        print(f"{UNANSWERED} Set your prediction in the cell above and run both cells again.")
        return Verdict(False)
    if _matches(predicted, actual, tolerance):
        print(f"{RIGHT} The simulation says {shown}.{' ' + why if why else ''}")
        return Verdict(True)
    print(f"{WRONG} You predicted {predicted}{' ' + unit if unit else ''}; the simulation says {shown}."
          f"{' ' + why if why else ''}")
    return Verdict(False)
