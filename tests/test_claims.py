"""kafkasim.viz.claims: a chapter's sentence is shown only while it holds."""

import pytest

from kafkasim.viz.claims import Claim, ClaimFailed, claim, over_seeds, spread


def test_a_claim_that_holds_is_the_formatted_sentence_as_markdown():
    shown = claim("{n:,} records in {s:.1f} s", holds=True, n=12345, s=2.25)
    assert shown == Claim("12,345 records in 2.2 s")
    assert shown._repr_markdown_() == "12,345 records in 2.2 s"


def test_a_claim_that_no_longer_holds_fails_the_notebook_naming_the_sentence_and_values():
    with pytest.raises(ClaimFailed) as failure:
        claim("static is the worst of {n}", holds=False, n=4)
    assert str(failure.value) == ("This chapter's sentence no longer holds for its run:\n"
                                  "  static is the worst of 4\nvalues: {'n': 4}")
    assert isinstance(failure.value, AssertionError)  # papermill and pytest report it as a failure


def test_a_spread_shows_its_median_and_range_or_that_every_seed_agrees():
    assert f"{spread([3, 1, 2, 10, 4]):.0f}" == "3 (median; 1 to 10 over 5 seeds)"
    assert f"{spread([2.0, 2.0]):.1f}" == "2.0 (all 2 seeds)"
    assert f"{spread([73.01, 72.98, 73.04]):.1f}" == "73.0 (all 3 seeds)"  # equal at the precision shown
    assert f"{spread([73.01, 72.98, 73.06]):.1f}" == "73.0 (median; 73.0 to 73.1 over 3 seeds)"
    assert spread([3, 1, 2, 10, 4]).compact() == "3 (1 to 10)" and spread([6, 6.0]).compact() == "6"
    assert spread([0.51, 0.54]).compact(".1f") == "0.5"  # equal at the precision shown
    s = spread([4, 1])
    assert (s.low, s.high, s.median, s.n) == (1, 4, 2.5, 2)


def test_spread_and_over_seeds_refuse_no_runs():
    with pytest.raises(ValueError, match="at least one value"):
        spread([])
    with pytest.raises(ValueError, match="at least one seed"):
        over_seeds(lambda seed: seed, [])
    assert over_seeds(lambda seed: seed * 10, [3, 1, 2]) == [30, 10, 20]
