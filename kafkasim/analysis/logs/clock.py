"""Time in a log: the date in a record's head, and the time of a record without one, from its neighbours.

`time` is milliseconds since `origin` (default `broker_log.START_TIME`, so a simulated log reads back
to the simulated times; for a real log, `START_TIME + timedelta(milliseconds=time)` is the wall-clock
time again). Log4j prints local time without a zone; dates that carry a zone (`Z`, `+01:00`) are
converted to UTC. A record without a date of its own (cut off by a paste, or an impossible one) takes
the time of the nearest line before it that has one (the line just before it, of any logger, else the
previous record), else of the next record; one with a time of day only takes the day from that
neighbour. Its events carry ``time_inferred`` = True. With no dated line in the whole file (or Spark
chunk), the events are kept at time 0 and listed in ``unparsed``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from kafkasim.analysis.logs.layouts import DAY_MS, HEAD_WINDOW, MONTHS, WHEN, zone_offset
from kafkasim.analysis.logs.result import kept

NO_TIME = (None, None, None)
_MS = timedelta(milliseconds=1)
_HALF_DAY_MS = DAY_MS // 2  # a time of day goes on the day that puts it within 12 hours of its neighbour
_EPOCH = datetime(1970, 1, 1)


class Clock:
    """The time methods of `reader.LogParser`, which holds their state: `origin`, `_seconds` (a cache
    of whole seconds read), `_records`, `_prev_other`, `_last_time`, `_ref`, `_pending`, `_result`."""

    origin: datetime

    def _time(self, head: str):
        """The time in a record's head: ms since the origin (an int), or a tuple (ms or None, time of
        day in ms or None, note or None) when the head has no full date, an impossible one, or a zone
        not understood."""
        size = len(head)
        # The fast way: a head that ends as Kafka's own layout does, `[2024-03-05 20:21:14,681] INFO `
        # (behind a container's prefix or not), with a second already read by the pattern below. No
        # other date can follow it in the 5 or 6 characters left, so it is the last one of the head.
        # Its milliseconds must be three ASCII digits, as the pattern reads them (`int` would also
        # take "+12", "1_2" or other scripts' digits).
        i = size - 31 if head[size - 31:size - 30] == "[" else size - 32
        if i >= 0 and head[i] == "[" and head[i + 24:i + 26] == "] " and head[i + 20] == "," and head[i + 11] == " ":
            base = self._seconds.get((head[i + 1:i + 11], head[i + 12:i + 20], None))
            ms = head[i + 21:i + 24]
            if base.__class__ is int and ms.isascii() and ms.isdigit():
                return base + int(ms)
        m = WHEN.match(head, size - HEAD_WINDOW if size > HEAD_WINDOW else 0)
        if m is None:
            return NO_TIME
        date, hms, frac, zone = m.group("date", "hms", "f", "z")
        ms = int((frac + "00")[:3]) if frac else 0
        if date is None:
            h, mi, s = int(hms[:2]), int(hms[3:5]), int(hms[6:8])
            if h > 23 or mi > 59 or s > 59:
                return (None, None, f"impossible time of day {hms}: time taken from the neighbouring lines")
            return (None, ((h * 60 + mi) * 60 + s) * 1000 + ms, None)
        key = (date, hms, zone)
        base = self._seconds.get(key)
        if base is None:
            if len(self._seconds) >= 100_000:
                self._seconds.clear()
            base = self._seconds[key] = self._base(date, hms, zone)
        if base.__class__ is int:
            return base + ms
        return base if base[0] is None else (base[0] + ms, None, base[2])

    def _epoch(self, text: str):
        """`SECONDS.MILLIS` since 1970-01-01 UTC (librdkafka's stamp) in ms since the origin."""
        seconds, _, millis = text.partition(".")
        try:
            base = (_EPOCH + timedelta(seconds=int(seconds)) - self.origin) // _MS
        except OverflowError:
            return NO_TIME
        return base + int((millis + "00")[:3])

    def _base(self, date: str, hms: str, zone: str | None):
        """The whole second `date hms zone` in ms since the origin, or a tuple as `_time` returns."""
        try:
            if date[4:5] in ("-", "/"):
                y, mo, d = int(date[:4]), int(date[5:7]), int(date[8:10])
            elif date[2:3] == "/":
                y, mo, d = 2000 + int(date[:2]), int(date[3:5]), int(date[6:8])
            else:
                day, month, year = date.split()
                y, mo, d = int(year), MONTHS[month], int(day)
            dt = datetime(y, mo, d, int(hms[:2]), int(hms[3:5]), int(hms[6:8]))
        except (ValueError, KeyError, OverflowError):
            return (None, None, f"impossible date {date} {hms}: time taken from the neighbouring lines")
        note = None
        if zone:
            offset = zone_offset(zone)
            if offset is None:
                note = f"zone {zone} not understood: read as the log's own clock"
            else:
                try:
                    dt -= offset
                except OverflowError:
                    return (None, None, f"impossible date {date} {hms}{zone}: time taken from the neighbouring lines")
        base = (dt - self.origin) // _MS
        return base if note is None else (base, None, note)

    def _when(self, when):
        """(time, inferred, time of day, note) of a record whose head read as `when` (see `_time`)."""
        if when.__class__ is int:
            return when, False, None, None
        t, tod, note = when
        if t is not None:
            return t, False, None, note
        ref = self._reference()
        if ref is None:
            return None, True, tod, note  # the next record with a time settles it (`_settle`)
        return (ref if tod is None else self._on_day_of(ref, tod)), True, tod, note

    def _reference(self) -> int | None:
        """The time of the nearest dated line before this record: the other logger's line just
        before it when that one has a date, else the previous coordinator record's."""
        if self._ref[0] != self._records:
            ref = None
            other = self._prev_other
            if other is not None:
                when = self._time(other[:HEAD_WINDOW])
                if when.__class__ is int:
                    ref = when
                elif when[0] is not None:
                    ref = when[0]
                elif when[1] is not None and self._last_time is not None:
                    ref = self._on_day_of(self._last_time, when[1])
            self._ref = (self._records, ref if ref is not None else self._last_time)
        return self._ref[1]

    def _on_day_of(self, ref: int, tod: int) -> int:
        """The instant at time of day `tod` nearest to `ref` (within 12 hours of it)."""
        try:
            at = self.origin + timedelta(milliseconds=ref)
        except OverflowError:
            return ref
        t = (at.replace(hour=0, minute=0, second=0, microsecond=0) - self.origin) // _MS + tod
        if t - ref > _HALF_DAY_MS:
            t -= DAY_MS
        elif ref - t > _HALF_DAY_MS:
            t += DAY_MS
        return t

    def _settle(self, t: int | None) -> None:
        """Give the records read before any time the time `t` of the next one; at the end (t None),
        a time of day goes on the origin's day, and a record with no time at all stays at time 0."""
        result = self._result
        rows = result.rows
        midnight = (self.origin.replace(hour=0, minute=0, second=0, microsecond=0) - self.origin) // _MS
        for start, end, tod, n, text in self._pending:
            if t is not None:
                when = t if tod is None else self._on_day_of(t, tod)
            elif tod is not None:
                when = midnight + tod
            else:
                when = 0
                result.unparsed.append((self.file, n, "no date and time in this line or the lines around it: its "
                                                      "events are kept at time 0 (the origin)", kept(text)))
                result.counts["salvaged"] += 1
            for i in range(start, end):
                rows[i] = (when, *rows[i][1:])
        self._pending.clear()
