"""What every client reader's tests check on any text, written once: a reader's test file gives its own
pieces (lines and fragments of its wordings) and these strategies and checks do the rest."""

from __future__ import annotations

from hypothesis import strategies as st

from kafkasim.analysis.logs import COUNTS, ROW_FIELDS, parse_lines


def read_rows(lines: list[str], keys, origin) -> list[dict]:
    """The rows the reader makes of `lines`, each cut to `keys`; every line must be read."""
    result = parse_lines(lines, origin=origin)
    assert result.unparsed == [], result.unparsed
    return [{k: v for k, v in zip(ROW_FIELDS, r) if k in keys} for r in result.rows]


def mixes(pieces: list[str]):
    """Lines made of the pieces and short random text, in any order."""
    return st.lists(st.lists(st.sampled_from(pieces) | st.text(max_size=8), max_size=12).map("".join), max_size=12)


@st.composite
def mutated(draw, lines) -> str:
    """One of `lines` (a strategy) with a random stretch replaced by random text."""
    line = draw(lines)
    i = draw(st.integers(0, len(line)))
    j = draw(st.integers(i, len(line)))
    return line[:i] + draw(st.text(max_size=30)) + line[j:]


def assert_read_whole(lines: list[str], origin):
    """Any text gives a result and loses nothing: every line counted, every event a whole row that fits
    its Arrow column, every line the reader could not read kept aside with why (never "not read")."""
    result = parse_lines(lines, origin=origin)
    assert set(result.counts) <= set(COUNTS)
    assert result.counts["lines"] == len(lines)
    assert result.counts["events"] == len(result.rows)
    assert all(len(r) == len(ROW_FIELDS) and isinstance(r[0], int) for r in result.rows)
    assert not any(u[2].startswith("not read") for u in result.unparsed)
    result.events_table()
    result.unparsed_table()
    return result
