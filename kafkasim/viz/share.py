"""Share groups (KIP-932) at the request level: calls made to one leader's share partition, the
record states they leave over time, and a chart of those states (chapter 12).

`ShareTrace` wraps a `SharePartition` (kafkasim.coordinator.modern.share) and notes, for every call
(acquire, acknowledge) and every WriteShareGroupState (a lock expiring inside
`advance_to` included, at its deadline), the state, delivery count and owner of each record it
follows. Records that leave the share partition's cache (below SPSO) keep their last, terminal,
state. `record_states` draws them: one row per record, one bar per state interval;
`share_sequence_diagram` draws the same calls as a sequence diagram between the consumers and the
leader (kafkasim.viz.protocol's layout and drawing).
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from kafkasim.viz import style, tables
from kafkasim.viz.protocol import COLORS, COLUMNS, diagram, layout
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

#: SharePartition record states (Kafka's RecordState) and their colours: handed out, waiting, done.
RECORD_STATE_COLORS = {"AVAILABLE": "#9ecae9", "ACQUIRED": "#f58518", "ACKNOWLEDGED": "#54a24b",
                       "ARCHIVED": "#4c4c4c"}
ROW_PX = 16
LABEL_PX = 48   # an acquisition bar at least this wide gets its "owner #count" label
#: The lane of the share partition's leader in ShareTrace's calls and in the sequence diagram.
LEADER = "leader"
#: Sequence diagram colours: the group protocol's, with the leader's and the consumers' notes.
SHARE_COLORS = {"request": COLORS["request"], "reply": COLORS["reply"], "error": COLORS["error"],
                "leader note": COLORS["coordinator note"], "consumer note": COLORS["member note"]}


class ShareTrace:
    """The calls made to `sp` and the record states (offsets `first`..`last`) they leave, timed."""

    def __init__(self, sp, first: int, last: int):
        self.sp, self.sim, self.offsets = sp, sp.sim, range(first, last + 1)
        self.calls: list[dict] = []
        self._advancing = False
        self._expired_ranges: list[list] = []
        self._rows: list[tuple] = []         # (time, offset, state, delivery count, owner)
        self._marks: list[int] = []          # len(_rows) after each call: call i changed _rows[marks[i-1]:marks[i]]
        self._last: dict[int, tuple] = {}
        previous = sp.on_write

        def noted(written):
            if previous is not None:
                previous(written)
            self._note()  # before the cache drops records the write made terminal (below SPSO)
            if self._advancing:  # not a call's write: a lock timer fired (one per offset after a split)
                self._expired(written)

        sp.on_write = noted

    def _note(self) -> None:
        """A row for each followed record whose state, delivery count or owner changed since the last."""
        for offset in self.offsets:
            state = self.sp.state(offset)
            if state is None:  # never fetched, or left the cache in a terminal state
                continue
            now = (state, self.sp.delivery_count(offset), self.sp.owner(offset))
            if self._last.get(offset) != now:
                self._last[offset] = now
                self._rows.append((self.sim.now, offset, *now))

    def _call(self, member: str, call: str, answer) -> None:
        self.calls.append({"time (s)": self.sim.now / 1000, "member": member, "call": call, "answer": answer,
                           "SPSO": self.sp.start_offset, "SPEO": self.sp.end_offset,
                           "next fetch": self.sp.next_fetch_offset})
        self._note()
        self._marks.append(len(self._rows))

    def _expired(self, written) -> None:
        """One row per instant at which locks expired, the records' ranges merged."""
        last = self.calls[-1] if self.calls else None
        ranges = [(f, l, s.state, s.delivery_count) for f, l, s in written]
        if last is not None and last["call"] == "acquisition lock expired" and last["time (s)"] == self.sim.now / 1000:
            ranges = self._expired_ranges.pop() + ranges
            self.calls.pop()
            self._marks.pop()
        self._expired_ranges.append(ranges)
        self._call(LEADER, "acquisition lock expired", _ranges_text(ranges))

    def changes(self, i: int) -> str:
        """The record states call `i` left ("5-9 ACKNOWLEDGED (delivery 2)"), "" if it changed none."""
        rows = self._rows[self._marks[i - 1] if i else 0:self._marks[i]]
        return _ranges_text([(offset, offset, state, count) for _, offset, state, count, _ in rows])

    def advance_to(self, ms: int) -> None:
        """Time passes to `ms`: lock timers due by then fire at their deadlines."""
        self._advancing = True
        try:
            self.sim.advance(ms - self.sim.now)
        finally:
            self._advancing = False

    def acquire(self, member: str, log_batches: Sequence[tuple[int, int]], max_records: int = 500):
        """A ShareFetch of `member` whose log read returned `log_batches`."""
        got = self.sp.acquire(member, max_records, log_batches=list(log_batches))
        self._call(member, "ShareFetch", ", ".join(f"{r.first_offset}-{r.last_offset} (delivery {r.delivery_count})"
                                                   for r in got) or "nothing")
        return got

    def acknowledge(self, member: str, batches: Sequence[tuple[int, int, str]]):
        """A ShareAcknowledge of `member`: (first, last, ACCEPT | RELEASE | REJECT | RENEW)."""
        error = self.sp.acknowledge(member, list(batches))
        self._call(member, "ShareAcknowledge " + ", ".join(f"{t} {f}-{l}" for f, l, t in batches),
                   f"{error.name} ({error.code})")
        return error

    def table(self) -> pd.DataFrame:
        """One row per call: when, who, what, the answer, and SPSO, SPEO and the next fetch offset after it."""
        return pd.DataFrame(self.calls)

    def intervals(self, end_ms: int | None = None) -> pd.DataFrame:
        """offset, state, delivery_count, owner, start, end (ms): each record's states over time,
        runs of records in the same state merged into one row (first, last)."""
        end_ms = self.sim.now if end_ms is None else end_ms
        rows = pd.DataFrame(self._rows, columns=["time", "offset", "state", "delivery_count", "owner"])
        # a sort on several columns is stable in pandas (a lexsort; `kind` applies to one column only):
        # the rows of one offset and millisecond keep their order, the last is the state left
        rows = rows.sort_values(["offset", "time"])
        rows["end"] = rows.groupby("offset")["time"].shift(-1).fillna(end_ms).astype(int)
        rows = rows.rename(columns={"time": "start"})
        keys = ["start", "end", "state", "delivery_count", "owner"]
        rows = rows.sort_values([*keys, "offset"])
        rows["run"] = ((rows[keys] != rows[keys].shift()).any(axis=1) | (rows["offset"] != rows["offset"].shift() + 1)).cumsum()
        out = rows.groupby("run").agg(first=("offset", "min"), last=("offset", "max"),
                                      **{k: (k, "first") for k in keys})
        out = out[out["end"] > out["start"]]
        return out.sort_values(["first", "start"]).reset_index(drop=True)


def _ranges_text(ranges) -> str:
    """(first, last, state, delivery count) ranges, adjacent ones in the same state merged: "5-9 AVAILABLE (delivery 1)"."""
    merged: list[list] = []
    for f, l, state, count in sorted(ranges):
        if merged and merged[-1][1] + 1 == f and merged[-1][2:] == [state, count]:
            merged[-1][1] = l
        else:
            merged.append([f, l, state, count])
    return ", ".join(f"{f}-{l} {state} (delivery {count})" for f, l, state, count in merged)


def share_messages(trace: ShareTrace, notes: Sequence[tuple[int, str, str]] = ()) -> pd.DataFrame:
    """The trace's calls as sequence-diagram rows (kafkasim.viz.protocol.messages' columns): a consumer's
    ShareFetch or ShareAcknowledge is a request to the leader and a reply (an error when the answer is one),
    followed by a leader note with the record states an acknowledgement left and SPSO; an expired lock is a
    leader note. `notes` (time in ms, lane, text) add what the trace cannot see, e.g. a consumer's GC pause;
    each goes after the calls of its millisecond."""
    out = []
    for i, call in enumerate(trace.calls):
        time, member, what, answer = round(call["time (s)"] * 1000), call["member"], call["call"], call["answer"]
        after = f"after it: SPSO {call['SPSO']}, SPEO {call['SPEO']}, next fetch offset {call['next fetch']}"
        if member == LEADER:
            out.append((time, LEADER, "leader note", f"{what}: {answer}", after, False))
            continue
        name = what.partition(" ")[0]  # ShareFetch, ShareAcknowledge
        failed = what != "ShareFetch" and not answer.startswith("NONE")
        out.append((time, member, "request", what, f"{member}: {what}", False))
        out.append((time, member, "error" if failed else "reply", f"{name}: {answer}", after, False))
        changed = trace.changes(i)
        if what != "ShareFetch" and changed:
            out.append((time, LEADER, "leader note", f"{changed}; SPSO {call['SPSO']}", after, False))
    frame = pd.DataFrame(out, columns=COLUMNS)
    extra = pd.DataFrame([(t, lane, "leader note" if lane == LEADER else "consumer note", text, "", False)
                          for t, lane, text in notes], columns=COLUMNS)
    both = pd.concat([frame, extra]) if len(extra) else frame  # (an empty frame would make every column object)
    return both.sort_values("time", kind="stable").reset_index(drop=True)


@returns_chart
def share_sequence_diagram(trace: ShareTrace, notes: Sequence[tuple[int, str, str]] = (), *, width: int | None = 520,
                           title: str | None = "ShareFetch and ShareAcknowledge on one share partition") -> dict:
    """`share_messages` drawn as a sequence diagram: the leader's lane first, then each consumer's
    (width: wider than the group protocol's default, a share reply's label is long; None sizes it by lanes)."""
    frame = share_messages(trace, notes)
    lanes = [LEADER, *tables.member_order(m for m in frame["member"].unique() if m != LEADER)]
    spec = diagram(layout(frame, {lane: i for i, lane in enumerate(lanes)}), lanes, width, SHARE_COLORS)
    if title:
        spec["title"] = title_of(title, "one row per message, in the leader's order (not to scale); time at the left")
    return spec


@returns_chart
def record_states(trace: ShareTrace, end_ms: int | None = None, title: str = "Record states on the share partition"):
    """One row per record (offset), its state over time; an acquisition long enough to hold a label
    names its owner and delivery count ("c-2 #2"); the tooltip gives both for every bar."""
    frame = trace.intervals(end_ms)
    frame = frame.assign(start_s=frame["start"] / 1000, end_s=frame["end"] / 1000, top=frame["last"] + 1,
                         mid_s=(frame["start"] + frame["end"]) / 2000, mid_y=(frame["first"] + frame["last"] + 1) / 2,
                         owner=frame["owner"].replace("", "none"),
                         records=frame["first"].astype(str) + "-" + frame["last"].astype(str))
    lo, hi = int(frame["first"].min()), int(frame["last"].max()) + 1
    span_s = max(1e-9, float(frame["end_s"].max() - frame["start_s"].min()))
    wide = (frame["end_s"] - frame["start_s"]) >= LABEL_PX * span_s / style.WIDTH
    frame["label"] = [f"{o} #{c}" if s == "ACQUIRED" and w else "" for o, c, s, w in
                      zip(frame["owner"], frame["delivery_count"], frame["state"], wide)]
    states = [s for s in RECORD_STATE_COLORS if s in set(frame["state"])]
    y = field("first", title="offset", scale={"domain": [lo, hi], "reverse": True, "nice": False, "zero": False},
              axis={"tickMinStep": 1, "format": "d"})
    x = field("start_s", title=style.TIME_TITLE)
    bars = unit(None, {"type": "rect", "stroke": "white", "strokeWidth": 0.5}, {
        "x": x, "x2": {"field": "end_s"}, "y": y, "y2": {"field": "top"},
        "color": field("state", "nominal", title="record state",
                       scale={"domain": states, "range": [RECORD_STATE_COLORS[s] for s in states]},
                       legend={"orient": "right"}),
        "tooltip": [tip("records", "offsets", "nominal"), tip("state", type_="nominal"),
                    tip("delivery_count", "delivery count"), tip("owner", "acquired by", "nominal"),
                    tip("start_s", "from (s)"), tip("end_s", "until (s)")]})
    labels = unit(None, {"type": "text", "fontSize": 10, "color": "white", "fontWeight": "bold"}, {
        "x": field("mid_s"), "y": field("mid_y"), "text": field("label", "nominal")},
        transform=[{"filter": "datum.label != ''"}])
    spec = unit(frame, {"type": "rect"}, {}, width=style.WIDTH, height=max(120, ROW_PX * (hi - lo)))
    del spec["mark"], spec["encoding"]
    spec["layer"] = [bars, labels]
    spec["title"] = title_of(title, "#: the delivery count of an acquisition; hover a bar for details")
    return spec


def state_counts(trace: ShareTrace) -> pd.Series:
    """How many of the followed records are in each state at the end (a check for the chapter)."""
    states = pd.Series([state for state, *_ in trace._last.values()])
    return states.value_counts().reindex(list(RECORD_STATE_COLORS), fill_value=0)


__all__ = ["ShareTrace", "record_states", "share_messages", "share_sequence_diagram", "state_counts",
           "RECORD_STATE_COLORS", "SHARE_COLORS"]
