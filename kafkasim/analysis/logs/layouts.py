"""How a log line is laid out around its message: dates, container and terminal prefixes, frames.

Nothing here knows a wording: these are the layouts log4j, logback, container runtimes, terminals
and pastes put around a message, shared by every source (`broker`, `java_client`, `librdkafka`, ...).
What the reader does with each: docs/log-reader.md.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

# -- dates ------------------------------------------------------------------------------------------
# The layouts Kafka deployments print, the last one in the head wins (the application's own date,
# after any container runtime's):
#   2024-03-05 20:21:14,681   log4j's default and ISO8601 (Kafka's `[%d]`), also with T, `.`, up to 9 digits
#   2024/03/05 20:21:14       yyyy/MM/dd
#   24/03/05 20:21:14         yy/MM/dd, the Spark and Hadoop log4j layouts
#   05 Mar 2024 20:21:14,681  log4j's DATE
#   20:21:14,681              a time of day only (log4j's ABSOLUTE, a syslog `Mar  5 20:21:14`, or a
#                             date cut off by a paste): the day comes from the neighbouring lines
# each with an optional zone: Z, UTC, GMT, +01:00, +0100, +01. Only the last 512 characters of the
# head are searched, so a long head costs no more than a short one.
DATE = r"\d{4}-\d\d-\d\d|\d{4}/\d\d/\d\d|\d\d/\d\d/\d\d|\d\d? [A-Z][a-z]{2} \d{4}"
WHEN = re.compile(
    r".*(?:(?<!\d)(?P<date>" + DATE + r")[T ]|(?<![\d:])(?<!\d[-/]\d\d[ T])(?<!\d{4} ))"
    r"(?P<hms>\d\d:\d\d:\d\d)(?![\d:])(?:[,.](?P<f>\d{1,9}))?"
    r"(?: ?(?P<z>Z|UTC|GMT|[+-]\d\d(?::?\d\d)?)(?![\w:]))?", re.S | re.A)
HEAD_WINDOW = 512
#: The start of a record: a date and time (with the `[` of Kafka's layout). Inside a message it
#: marks a second line fused on by a paste; at the start of a line it ends a wrapped record.
RECORD_START = re.compile(r"\[?(?<!\d)(?:" + DATE + r")[T ]\d\d:\d\d:\d\d", re.A)
LINE_START_TIME = re.compile(r"(?<![\d:])\d\d:\d\d:\d\d(?![\d])", re.A)
LEVEL_END = re.compile(r"(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL) *$")
MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                       "Nov", "Dec"), start=1)}
DAY_MS = 86_400_000

CRI = re.compile(r"(\S++ (?:stdout|stderr) )([PF]) ")
# Kafka's default layout `[%d] %p %m (%c)%n`: with this head a line without its logger was cut.
DEFAULT_HEAD = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] [A-Z]++ $")
ELLIPSES = ("...", "…")

# -- terminal frames -------------------------------------------------------------------------------
# Box-drawing characters and block elements (U+2500 - U+259F): the borders terminal UIs (k9s,
# tmux panes, bat) draw around and inside what a user copies. Kafka never writes them.
BOX = "".join(map(chr, range(0x2500, 0x25A0)))
EDGE = BOX + " \t\r\n"
# A left border, possibly after a line number (`  12 │ ...`), and a frame inside a line.
_LEFT_FRAME = re.compile(r"[ \t]*+(?:\d++[ \t]*+)?[\u2500-\u259f](?:[ \t]*+[\u2500-\u259f])*+(?P<pad>[ \t]*+)")
_INNER_FRAME = re.compile(r"(?P<before>[ \t]*+)[\u2500-\u259f](?:[ \t]*+[\u2500-\u259f])*+(?P<after>[ \t]*+)")
#: Breaks inside one framed line tried both ways (with and without a space); a line with more
#: breaks than this (more than a wrapped record has) is joined the likelier way only.
MAX_FRAME_BREAKS = 4
BOX_SET = frozenset(BOX)


def zone_offset(zone: str) -> timedelta | None:
    """The UTC offset a zone stands for; None for one no clock has (beyond ±18:00, as Java's ZoneOffset)."""
    if zone in ("Z", "UTC", "GMT"):
        return timedelta(0)
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    if hours > 18 or minutes > 59 or (hours == 18 and minutes):
        return None
    offset = timedelta(hours=hours, minutes=minutes)
    return -offset if zone[0] == "-" else offset



def strip_frame(line: str) -> tuple[str, bool, int, int]:
    """(text, framed, spaces inside the left border, spaces inside the right border): the line
    without the terminal frames at its edges (a left border possibly after a line number, a right
    border)."""
    framed, left, right_pad = False, 0, 0
    m = _LEFT_FRAME.match(line)
    if m is not None:
        framed, left = True, len(m.group("pad"))
        line = line[m.end():]
    right = line.rstrip(" \t\r\n")
    if right and right[-1] in BOX_SET:
        framed = True
        line = right.rstrip(EDGE)
        frame = right[len(line):]  # the spaces and borders at the end
        right_pad = len(frame) - len(frame.lstrip(" \t"))
    return line, framed, left, right_pad


def inner_frames(line: str, start: int = 0, pad: int = 0) -> tuple[list[str], list[str]]:
    """The pieces of a line between the frames inside it (after `start`), and the likelier joint at
    each break: a space when a side of the frame had more spaces than the frame's padding `pad`
    (a terminal fills a wrapped row to its border, so a wider gap is a space of the text), none
    when the frame sat against the text."""
    runs = list(_INNER_FRAME.finditer(line, start))
    if not runs:
        return [line], []
    pieces, seps = [line[:runs[0].start()]], []
    for i, run in enumerate(runs):
        end = runs[i + 1].start() if i + 1 < len(runs) else len(line)
        spaced = len(run.group("before")) > pad or len(run.group("after")) > pad
        seps.append(" " if spaced else "")
        pieces.append(line[run.end():end])
    return pieces, seps


def joins(pieces: list[str], seps: list[str], tries: int) -> list[str]:
    """The pieces joined: the likelier joint at every break first, then the other one at each of
    the first `tries` breaks (2^tries texts, each built once: linear in the line)."""
    n_alt = min(len(seps), tries)
    out = []
    for mask in range(1 << n_alt):
        parts = [pieces[0]]
        for i, piece in enumerate(pieces[1:]):
            sep = seps[i]
            if mask >> i & 1:  # mask < 2^n_alt: only the first n_alt breaks are flipped
                sep = "" if sep else " "
            parts += (sep, piece)
        out.append("".join(parts))
    return out


def fused_cuts(line: str, first, mark, loggers: tuple[str, ...]) -> list[int]:
    """Where the second, third ... records of a line begin, when a paste fused several into one:
    after the previous record's logger name, else at the last date-time before the next prefix,
    else before the level word in front of it, else at the prefix itself."""
    cuts = []
    prev = first.end()
    for m in mark.finditer(line, prev):
        region = line[prev:m.start()]
        cut = None
        found = [j for j in (region.find(logger) for logger in loggers) if j >= 0]
        if found:
            close = region.find(")", min(found) + 2)
            if close >= 0:
                cut = close + 1
        if cut is None:
            last = None
            for last in RECORD_START.finditer(region):
                pass
            if last is not None:
                cut = last.start()
            else:
                level = LEVEL_END.search(region, max(0, len(region) - 12))
                cut = level.start() if level is not None else len(region)
        cuts.append(prev + cut)
        prev = m.end()
    return cuts



# -- structured records ----------------------------------------------------------------------------
def shipper_time(strings: list[str], message: str, head: str) -> str | None:
    """The time a shipper's JSON gives `message`, one of its `strings`, when the message's `head` (its text before
    the source's prefix) has no date of its own: the first other string that begins with a date and time
    (Docker json-file's "time", a shipper's "@timestamp"). None: the head has a date, or the JSON none."""
    if WHEN.match(head, max(0, len(head) - HEAD_WINDOW)) is not None:
        return None
    return next((s for s in strings if s is not message and RECORD_START.match(s)), None)


#: The members a structured logger writes its record's time in (zap "ts", slog and logrus "time").
TIME_KEYS = ("ts", "time", "timestamp")
_BARE = re.compile(r"[^\s=\"]++")
#: Go's encoding/json as zap and slog print a value: compact, UTF-8 as it is (never "\u00e9").
_GO_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def key_values(obj: dict) -> str | None:
    """A JSON record of a structured logger (zap's JSON encoder, slog's JSONHandler, logrus' JSONFormatter) as
    the one line slog's TextHandler would print for it, `key=value ...` in the record's order (a string quoted
    when it holds a space, `=` or a quote; a time given as seconds or milliseconds since the epoch as an ISO
    date, UTC), so that a source reads both forms with one set of wordings. None without a "msg" string."""
    if not isinstance(obj.get("msg"), str):
        return None
    parts = []
    for k, v in obj.items():
        if k in TIME_KEYS and isinstance(v, (int, float)) and not isinstance(v, bool):
            seconds = v / 1000 if v >= 1e12 else v  # milliseconds: a date only if it falls in the range below
            if 1e9 <= seconds < 1e11:
                v = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        text = v if isinstance(v, str) else _GO_JSON(v)
        parts.append(f"{k}={text if _BARE.fullmatch(text) else _GO_JSON(text)}")
    return " ".join(parts)
