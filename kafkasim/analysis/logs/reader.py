"""The reader: lines in, events out, every line either read or kept aside with why.

How a line is read
------------------
1. Find a known source's message prefix anywhere in the line (`sources.MARK`): the broker's group
   coordinator (`[GroupCoordinator N]:` ...: `broker`), or a client's. Lines without one are other
   loggers' lines: counted, never parsed further (a fast substring filter, `sources.FILTER`, keeps
   a real `server.log` fast to read).
2. Everything before the prefix is the "head" (a date and a level, and whatever a container runtime
   or a copy-paste put in front); its last date-time is the event's time (`clock`). Everything after
   is the message, up to the logger name when the layout prints one after it (Kafka's default
   `[%d] %p %m (%c)%n`, its test layout `(%c:%L)`, Strimzi's `... (%c) [%t]`).
3. The message is matched against its source's wordings, keyed by their first word. JSON lines
   (Docker's json-file driver, shippers, log4j JSON layouts) are decoded first; Kubernetes CRI partial
   lines and the 16 KiB pieces Docker cuts a long line into are joined; a line wrapped by hand or by
   a terminal is joined with the lines that follow it when they carry no date of their own; terminal
   frames are removed (`layouts`).
   A source whose records carry fields beside the message (kafkajs) first brings its own layouts to
   one (`Source.rewrite`).

Outcomes: every record yields events, or is a known line that carries no event (counted as
``ignored``), or is kept aside in ``unparsed`` with its file, line number, the problem and the text.
A damaged record whose fields are complete still yields its events and is also listed in ``unparsed``
(counted as ``salvaged``). Nothing is fatal: for any bytes the reader returns what it could read, in
time linear in the input (the patterns commit to the first reading of each field, and lines are read
up to MAX_LINE_CHARS).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Iterable

from kafkasim.analysis.logs.clock import Clock
from kafkasim.analysis.logs.layouts import (CRI, DEFAULT_HEAD, ELLIPSES, LINE_START_TIME, MAX_FRAME_BREAKS,
                                            RECORD_START, fused_cuts, inner_frames, joins, key_values,
                                            shipper_time, strip_frame)
from kafkasim.analysis.logs.result import ParseResult, in_range, join_notes, kept, no_surrogates
from kafkasim.analysis.logs.sources import (BLOCKS, EPOCH, FILTER, FREE_NEEDLES, LOGGERS, MARK, ONE_LINE, REWRITES,
                                            SOURCE_OF, any_needle)
from kafkasim.analysis.logs.wording import Ctx
from kafkasim.coordinator.broker_log import START_TIME

#: Lines of one record a wrapped line may be spread over (the first and up to 3 more).
MAX_CONTINUATION_LINES = 3
#: Characters of a line that are read. A longer line of a known source is read as cut at this length
#: (its events kept when its fields are complete) and listed in ``unparsed``; the rest of it is
#: skipped without being held in memory. Kafka's longest lines (a KIP-848 target assignment of a
#: large group, a Set of members that did not rejoin) stay well below it.
MAX_LINE_CHARS = 1 << 20
NO_TEMPLATES = (False, ())
BRACKET = MARK.bracket.search
#: Lines of a block (see `LogParser._block`) read at most.
MAX_BLOCK_LINES = 500
#: One line of a block: `\tname = value` (AbstractConfig.logAll), behind any prefix.
BLOCK_LINE = re.compile(r"(?:^|\s)(?P<k>[a-z][a-z0-9._-]*+) = (?P<v>[^\n]*+)$")
#: The fields of JSON layouts that hold the logger's name: Logstash's encoder (`logger_name`), Spring Boot's
#: structured logging (ECS `log.logger`, Logstash `logger_name`), Log4j2's JsonLayout (`loggerName`), a plain `logger`.
JSON_LOGGERS = ("logger_name", "log.logger", "loggerName", "logger")
#: Docker cuts a line longer than its copier's buffer into pieces of exactly this many bytes, and its
#: json-file driver writes those pieces' "log" without the line's newline (moby daemon/logger/copier.go
#: `defaultBufSize`, moby#22982, Docker 1.13+; jsonfilelog.go `marshalMessage`). Every other "log" it
#: writes ends in a newline, but the last bytes of a stream that ends without one.
DOCKER_PIECE_BYTES = 16 * 1024
#: A logger name alone on its line, after a block.
LOGGERS_ALONE = tuple(logger.lstrip() for logger in LOGGERS)

# -- outcomes of one record ------------------------------------------------------------------------
_OTHER, _IGNORED, _EVENTS, _UNPARSED = range(4)
# An outcome is a tuple: (kind, complete, payload, note, time, time inferred, time of day, split, partial):
#   complete  the line ended with its logger name (it cannot continue on the next line)
#   payload   the events (_EVENTS), or the problem (_UNPARSED)
#   note      what to list in `unparsed` beside the events of a damaged record (None: nothing)
#   time      ms since the origin (None: no time yet, the next dated record gives it)
#   tod       the record's own time of day when it had no date
#   split     the record was split off another line fused onto it
#   partial   the events were read from the head of a cut line (a salvage)
#   origin    (log_source, versions) of the events: which source wrote the line, which of its releases
#             have the wording
_OTHER_OUTCOME = (_OTHER, True, None, None, None, False, None, False, False, None)
_FUSED = (_OTHER, True, None, None, None, False, None, True, False, None)  # see `_try`



class LogParser(Clock):
    """Parses the lines of one log file. `parse` may be called again for the next chunk."""

    def __init__(self, file: str = "<lines>", origin: datetime = START_TIME):
        self.file = file
        if origin.tzinfo is not None:  # times are UTC or the log's own clock, without a zone
            origin = origin.astimezone(timezone.utc).replace(tzinfo=None)
        self.origin = origin
        self._seconds: dict[tuple, object] = {}
        self._records = 0  # coordinator records so far, to recognise adjacent ones
        self._last_added: tuple = (None, -1)
        self._recent: dict[str, tuple] = {}  # consumer group -> its last line (time, what)
        self._last_time: int | None = None  # the time of the last coordinator record
        self._pending: list[tuple] = []  # records with events but no time yet: (first row, end row, tod, line, text)
        self._prev_other: str | None = None  # the other logger's line just before this record
        self._ref: tuple = (-1, None)  # (record number, its reference time) for records without a date
        self._taken = 0  # lines this record took from the supply (continuations)

    # -- public ---------------------------------------------------------------------------------
    def parse(self, lines: Iterable[str], first_line: int = 1, lookahead: Iterable[str] = ()) -> ParseResult:
        """Parse `lines` (numbered from `first_line`). A record wrapped over the end of `lines` may
        take its continuation lines from `lookahead` (the start of the next chunk)."""
        result = ParseResult(files=[self.file], origin=self.origin)
        counts = result.counts
        self._result = result
        self._it = iter(lines)
        self._extra = iter(lookahead)
        self._pushed: list[str] = []
        self._owned_done = False
        n = first_line - 1
        other = physical = borrowed = 0
        it, pushed = self._it, self._pushed
        (f1, f2, f3), more = FILTER[:3], FILTER[3:]
        last_other = None
        while True:  # the hot loop: most lines of a server.log are other loggers'
            if pushed:
                line = pushed.pop()
            else:
                line = next(it, None)
                if line is None:
                    break
            n += 1
            physical += 1
            if f1 not in line and f2 not in line and f3 not in line and not (more and any_needle(line, more)):
                other += 1
                last_other = line
                continue
            self._taken = 0
            try:
                used = self._record(line, n, last_other)
            except Exception as exc:  # a fault of this parser must not cost the rest of the file
                used = self._taken
                result.unparsed.append((self.file, n, f"not read ({type(exc).__name__}: {exc})"[:300], kept(line)))
            last_other = None
            n += used
            physical += self._taken
            borrowed += used - self._taken
        if self._pending:
            self._settle(None)
        # Continuation lines taken from the next chunk are counted there, as other loggers' lines
        # (the next chunk cannot know they continue a record): they are taken off this chunk's
        # "other", so that the counts of a file's chunks add up to those of the whole file.
        counts["lines"] += physical
        counts["other"] += other - borrowed
        counts["unparsed"] = len(result.unparsed)
        counts["events"] = len(result.rows)
        return result

    def failed(self, problem: str, line: int = 0) -> ParseResult:
        """A result that holds only a file-level problem (a file that could not be read)."""
        result = ParseResult(files=[self.file], origin=self.origin)
        result.unparsed.append((self.file, line, problem, ""))
        result.counts.update(unparsed=1, unreadable=1)
        return result

    # -- line supply (with pushback, and lookahead past the end of a chunk) ----------------------
    def _peek_line(self) -> tuple[str | None, bool]:
        """The next physical line and whether it belongs to this chunk (False: lookahead)."""
        if self._pushed:
            self._taken += 1
            return self._pushed.pop(), True
        if not self._owned_done:
            line = next(self._it, None)
            if line is not None:
                self._taken += 1
                return line, True
            self._owned_done = True
        return next(self._extra, None), False

    def _push(self, line: str, owned: bool) -> None:
        """Give back a line taken with `_peek_line` (lookahead lines are not this chunk's to give back)."""
        if owned:
            self._pushed.append(line)
            self._taken -= 1

    # -- one record ---------------------------------------------------------------------------
    def _record(self, line: str, n: int, prev_other: str | None) -> int:
        """Handle a line that mentions a coordinator prefix; returns how many more physical
        lines it consumed (continuations)."""
        used = 0
        self._prev_other = prev_other
        pad = right_pad = 0  # spaces inside the frame of this line (a terminal UI's padding)
        line = line.rstrip("\r\n")
        over = len(line) > MAX_LINE_CHARS
        if over:
            line = line[:MAX_LINE_CHARS]
        plain = line.isascii()  # as read: box characters JSON escapes or later CRI parts bring are the record's own
        if not plain:  # terminal frames at the edges (only a non-ASCII line can have them)
            line, _, pad, right_pad = strip_frame(line)
        first = line[:1]
        if first.isdigit():
            cri = CRI.match(line)
            if cri and cri.group(2) == "P":
                line, used = self._join_cri(line)
        for needles, rewrite in REWRITES:  # a source's own layout (kafkajs: fields in JSON around the message)
            if any_needle(line, needles):
                line = rewrite(line)
                first = line[:1]
        if first == "{" or (first.isspace() and line.lstrip().startswith("{")):
            decoded, more = self._decode_json(line.lstrip())
            used += more
            if decoded is not None:
                line = decoded
        mark = BRACKET(line)  # MARK.search, without its call when the line holds no other prefix's needle
        for needle in FREE_NEEDLES:
            if needle in line:
                mark = MARK.search(line)
                break
        if mark is None:
            self._emit(_OTHER_OUTCOME, n, line)
            return used
        if mark.lastgroup in BLOCKS:
            return used + self._block(line, n, mark, SOURCE_OF[mark.lastgroup])
        if not plain and not line.isascii():  # frames inside the message: where a terminal UI wrapped it
            pieces, seps = inner_frames(line, mark.end(), pad)
            if seps:
                line = self._best_of(joins(pieces, seps, MAX_FRAME_BREAKS if len(seps) <= MAX_FRAME_BREAKS else 0))
                mark = MARK.search(line)
        k = 0
        # A line without a logger name may be tried several ways (continuations): each try may
        # note what a consumer-group line says (`Ctx.note`), so the memory is restored between tries.
        memory = None if any(logger in line for logger in LOGGERS) else dict(self._recent)
        outcome = self._try(line, mark, over)
        if outcome is _FUSED:  # a second prefix: records fused into one line by a paste
            start = 0
            cuts = fused_cuts(line, mark, MARK, LOGGERS)
            self._result.counts["split"] += len(cuts)
            for cut in cuts:
                piece = line[start:cut]
                outcome = self._try(piece)
                k = self._emit(outcome if outcome is not _FUSED else _OTHER_OUTCOME, n, piece, k)
                start = cut
            line = line[start:]
            memory = None if any(logger in line for logger in LOGGERS) else dict(self._recent)
            outcome = self._try(line, None, over)
        if outcome[0] != _OTHER and not outcome[1]:
            # No logger name at the end: the line may be wrapped onto the next ones.
            joined, extra, text = self._try_continuations(line, outcome, memory, pad, right_pad)
            if joined is not None:
                outcome = joined
                used += extra
                self._result.counts["joined"] += 1
            if memory is not None:  # replay the try that was kept, on the memory from before the tries
                self._recent.clear()
                self._recent.update(memory)
                self._try(text if joined is not None else line)
        self._emit(outcome, n, line, k)
        return used

    def _block(self, line: str, n: int, mark, source) -> int:
        """A header line and the `name = value` lines that follow it (up to MAX_BLOCK_LINES, and the
        logger name log4j's `%m (%c)%n` prints after them): one record. Returns the lines it took."""
        settings: dict[str, str] = {}
        used = 0
        while used < MAX_BLOCK_LINES:
            nxt, owned = self._peek_line()
            if nxt is None:
                break
            item = BLOCK_LINE.search(nxt, 0, MAX_LINE_CHARS)
            if item is None:
                if nxt.lstrip().startswith(LOGGERS_ALONE):
                    used += 1
                else:
                    self._push(nxt, owned)
                break
            settings[item["k"]] = item["v"].rstrip()
            used += 1
        t, inferred, tod, note = self._when(self._time(line[:mark.start()]))
        events = source.block(settings, t)
        self._emit((_EVENTS if events else _IGNORED, True, events, note, t, inferred, tod, False, False,
                    (source.name, None)), n, line)
        return used

    def _best_of(self, texts: list[str]) -> str:
        """Of several readings of one line, the one that reads as a whole record with the most events
        (the first one on a tie)."""
        if len(texts) == 1:
            return texts[0]
        memory = dict(self._recent)

        def score(text: str) -> tuple:
            outcome = self._try(text)
            self._recent.clear()
            self._recent.update(memory)
            events = outcome[0] == _EVENTS
            return events and not outcome[8], outcome[1], len(outcome[2]) if events else 0

        return max(texts, key=score)  # max keeps the first of equals

    def _try(self, line: str, mark=None, over: bool = False):
        """The outcome of reading `line` as one record (see _OTHER_OUTCOME for its fields), or _FUSED
        when a second coordinator prefix follows the first; `over`: the line was cut at MAX_LINE_CHARS."""
        if mark is None:
            mark = MARK.search(line)
            if mark is None:
                return _OTHER_OUTCOME
        rest = line[mark.end():]
        if ("[" in rest and BRACKET(rest) is not None) or any_needle(rest, FREE_NEEDLES) and MARK.search(rest):
            return _FUSED
        head = line[:mark.start()]
        prefix = mark.lastgroup
        when = self._time(head) if prefix not in EPOCH else self._epoch(mark[EPOCH[prefix]])
        for logger in LOGGERS:
            j = rest.rfind(logger)
            if j >= 0:
                if over:
                    break
                return self._message(rest[:j].rstrip(), when, mark, prefix, True, False)
        message = rest.rstrip()
        complete = prefix in ONE_LINE  # a source that prints no logger after its message
        cut = split = False
        note = None
        if not over:
            fused_on = RECORD_START.search(message)
            if fused_on is not None and fused_on.start() > 0:  # another logger's line fused on by a paste
                message, complete, split = message[:fused_on.start()].rstrip(), True, True
            if message.endswith(ELLIPSES):
                message, cut = message.rstrip(".…"), True
            else:
                cut = DEFAULT_HEAD.search(head, max(0, len(head) - 40)) is not None
        else:
            cut = complete = True
            note = f"a line of more than {MAX_LINE_CHARS:,} characters, read up to there"
        return self._message(message, when, mark, prefix, complete, cut, note, split)

    def _message(self, message: str, when, mark, prefix: str, complete: bool, cut: bool, note: str | None = None,
                 split: bool = False):
        source = SOURCE_OF[prefix]
        key = source.key(message, mark)
        strict, templates = source.templates.get(key, NO_TEMPLATES)
        if not templates:
            if cut and (key == message or not message) and any(k.startswith(key) for k in source.strict):
                return self._outcome(_UNPARSED, complete, "truncated", note, when, split)
            return self._outcome(_IGNORED, complete, None, note, when, split)
        if not cut:
            for tpl in templates:
                m = tpl.full.fullmatch(message)
                if m is not None:
                    if when.__class__ is int:  # the record's own time (nearly every line)
                        t, inferred, tod = when, False, None
                    else:
                        t, inferred, tod, time_note = self._when(when)
                        note = join_notes(note, time_note)
                    events = tpl.build(m, t, Ctx(prefix, False, self._recent, mark))
                    return (_EVENTS if events else _IGNORED, complete, events, note, t, inferred, tod, split, False,
                            tpl.origin)
            if complete:
                if strict:
                    return self._outcome(_UNPARSED, complete, "unrecognised wording", note, when, split)
                return self._outcome(_IGNORED, complete, None, note, when, split)
        for tpl in templates:
            if tpl.head is None:
                continue
            m = tpl.head.match(message)
            if m is not None:
                t, inferred, tod, time_note = self._when(when)
                events = tpl.build(m, t, Ctx(prefix, True, self._recent, mark))
                kinds = ", ".join(e[4] for e in events)
                salvage = f"truncated, kept {kinds}" + (" with a cut reason" if "(reason: " in message else "")
                return (_EVENTS, complete, events, join_notes(salvage, note, time_note), t, inferred, tod, split, True,
                        tpl.origin)
        if not strict:
            return self._outcome(_IGNORED, complete, None, note, when, split)
        return self._outcome(_UNPARSED, complete, "truncated or unrecognised wording", note, when, split)

    @staticmethod
    def _outcome(kind, complete, payload, note, when, split):
        """An outcome without events: its own time only (it is a neighbour for the records around it).
        A line cut at MAX_LINE_CHARS (the only note an ignored line can carry) is kept aside even when
        its wording is one not read: what was past the limit is unknown."""
        if kind == _IGNORED and note is not None:
            kind, payload, note = _UNPARSED, note, None
        problem = payload if note is None or kind != _UNPARSED else f"{payload}; {note}"
        return (kind, complete, problem, None, when if when.__class__ is int else when[0], False, None, split, False,
                None)

    # -- time ----------------------------------------------------------------------------------

    # -- joining -------------------------------------------------------------------------------
    def _try_continuations(self, line: str, first, memory: dict | None = None, pad: int = 0, right_pad: int = 0):
        """Join up to MAX_CONTINUATION_LINES following lines without a date of their own; keep the
        first join that reads as a whole record. Lines not used are given back. Returns (outcome,
        lines used, joined text), or (None, 0, None)."""
        taken: list[tuple[str, bool]] = []
        texts = [line]  # a wrap may have kept or dropped the space at each break
        best = None
        for _ in range(MAX_CONTINUATION_LINES):
            nxt, owned = self._peek_line()
            if nxt is None:
                break
            taken.append((nxt, owned))
            cont = nxt.rstrip("\r\n")
            seps = ("", " ")
            if not cont.isascii():  # a framed continuation: see inner_frames for the likelier joint
                cont, framed, left, right = strip_frame(cont)
                if framed:
                    if left > pad or right_pad > pad:
                        seps = (" ", "")
                    right_pad = right
                pieces, inner = inner_frames(cont, 0, pad)
                if inner:
                    cont = joins(pieces, inner, 0)[0]
            if (not cont.strip() or any_needle(cont) or RECORD_START.search(cont, 0, 80)
                    or LINE_START_TIME.search(cont, 0, 20) or len(texts[0]) + len(cont) > MAX_LINE_CHARS):
                break
            texts = [text + sep + cont for text in texts for sep in seps]
            # Of the joins that read as a whole record, the one that yields the most events
            # (a dropped space shows as a member id glued to the next word).
            for text in texts:
                if memory is not None:
                    self._recent.clear()
                    self._recent.update(memory)
                outcome = self._try(text)
                if outcome[0] == _EVENTS and not outcome[8] and (best is None or len(outcome[2]) > len(best[0][2])):
                    best = (outcome, len(taken), text)
            if best is not None:
                break
        if best is not None and first[0] == _EVENTS and not first[8] and not best[0][1]:
            best = None  # the line read whole on its own, and no join ends the record: keep it as it was
        used = best[1] if best is not None else 0
        for nxt, owned in reversed(taken[used:]):
            self._push(nxt, owned)
        if best is None:
            return None, 0, None
        return best[0], used, best[2]

    def _join_cri(self, line: str) -> tuple[str, int]:
        """Kubernetes CRI splits long lines: `<time> stdout P <part>` ... `<time> stdout F <last part>`."""
        parts, used, size = [line], 0, len(line)
        while True:
            nxt, owned = self._peek_line()
            if nxt is None:
                break
            m = CRI.match(nxt)
            if m is None:
                self._push(nxt, owned)
                break
            used += 1
            part = nxt[m.end():].rstrip("\r\n")
            size += len(part)
            if size <= MAX_LINE_CHARS:
                parts.append(part)
            if m.group(2) == "F":
                break
        return "".join(parts), used

    def _decode_json(self, text: str) -> tuple[str | None, int]:
        """The string inside a JSON log line that holds the coordinator message, with the JSON's
        own timestamp put in front when the message has none. A line Docker cut into pieces
        (`docker_piece`) is joined with the entries of the same stream that follow it, up to its last
        piece; a "log" without a newline is otherwise a whole record (shippers write it so)."""
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            return None, 0
        used = 0  # `text` starts with "{": a JSON text that parses is an object
        log = obj.get("log")
        if isinstance(log, str) and docker_piece(log):
            stream = obj.get("stream")
            while len(log) <= MAX_LINE_CHARS:
                nxt, owned = self._peek_line()
                if nxt is None:
                    break
                try:
                    after = json.loads(nxt)
                    part = after.get("log")
                except (ValueError, AttributeError, RecursionError):
                    part = None
                if not isinstance(part, str) or after.get("stream") != stream:
                    self._push(nxt, owned)
                    break
                used += 1
                log += part
                if not docker_piece(part):
                    break
            obj["log"] = log
        strings = [v for v in obj.values() if isinstance(v, str)]
        message = next((s for s in strings if MARK.search(s)), None)
        if message is None:  # a structured logger's record (zap, slog): its message is a mark only among its fields
            message = key_values(obj)
            if message is None or MARK.search(message) is None:
                return None, used
        else:
            text = obj.get("message")
            if isinstance(text, str) and any(obj.get(k) is message for k in JSON_LOGGERS):
                message = f"{message} - {text}"  # the mark is the logger (spring-kafka's container): its message follows
        message = no_surrogates(message.rstrip("\r\n"))
        stamp = shipper_time(strings, message, message[:MARK.search(message).start()])
        if stamp is not None:
            message = no_surrogates(stamp) + " " + message
        return message, used

    # -- results ---------------------------------------------------------------------------------
    def _emit(self, outcome, n: int, text: str, k: int = 0) -> int:
        """Record an outcome read from line `n`; `k` numbers its events on the line (returned, moved on)."""
        kind = outcome[0]
        result = self._result
        counts = result.counts
        if kind == _OTHER:
            counts["other"] += 1
            return k
        counts["coordinator"] += 1
        self._records += 1
        t = outcome[4]
        if t is not None:
            self._last_time = t
            if self._pending:
                self._settle(t)
        if outcome[7]:
            counts["split"] += 1
        if kind == _IGNORED:
            counts["ignored"] += 1
            return k
        if kind == _UNPARSED:
            result.unparsed.append((self.file, n, outcome[2], kept(text)))
            return k
        note, inferred, file = outcome[3], outcome[5], self.file
        log_source, versions = outcome[9]
        rows = result.rows
        start = len(rows)
        for event in outcome[2]:
            if event[4] == "MemberAdded":
                # The same addition told twice, by a join line and the next line's rebalance reason.
                key = (event[0], event[2], event[3])
                last, at = self._last_added
                self._last_added = (key, self._records)
                if key == last and at == self._records - 1:
                    continue
            g, v = event[5], event[10]  # what Arrow's int32 and float64 columns hold (INT32, EXACT)
            if ((g is not None and not -2147483648 <= g <= 2147483647)
                    or (v is not None and not -9007199254740992.0 <= v <= 9007199254740992.0)):
                event, why = in_range(event)
                note = join_notes(note, why)
            if len(event) == 12:  # a broker's: no detail, client or instance
                rows.append(event + (file, n, n * 1_000_000 + k, inferred, log_source, versions, None, None, None))
            else:
                rows.append(event[:12] + (file, n, n * 1_000_000 + k, inferred, log_source, versions) + event[12:])
            k += 1
        if inferred and len(rows) > start:
            counts["inferred"] += 1
            if t is None:  # no time yet: the next record with one settles it
                self._pending.append((start, len(rows), outcome[6], n, text))
        if note:
            counts["salvaged"] += 1
            result.unparsed.append((file, n, note, kept(text)))
        return k


def docker_piece(log: str) -> bool:
    """`log` is a piece Docker cut off a longer line, more of which follows: no newline at its end and
    DOCKER_PIECE_BYTES as Docker wrote them. A "log" without a newline of any other size is a whole
    record: Fluent Bit's tail and CRI parsers and Docker's fluentd driver never keep the newline, and
    Docker's copier writes a stream's last bytes without one when the stream ends. Docker writes each
    byte that is no whole UTF-8 character (a character the cut split) as U+FFFD (jsonlog
    `MarshalJSONBuf`), three bytes when read back: so each U+FFFD may stand for one byte."""
    if log.endswith("\n"):
        return False
    over = len(log.encode("utf-8", "surrogatepass")) - DOCKER_PIECE_BYTES
    return 0 <= over <= 2 * log.count("\ufffd") and over % 2 == 0


def parse_lines(lines: Iterable[str] | str, file: str = "<lines>", origin: datetime = START_TIME,
                first_line: int = 1) -> ParseResult:
    """Parse log lines (e.g. `Run.broker_log`, or a pasted excerpt: a list of lines, or the whole
    paste as one string) into a ParseResult."""
    if isinstance(lines, str):
        lines = lines.split("\n")
        if lines[-1] == "":
            lines.pop()
    return LogParser(file, origin).parse(lines, first_line)

