"""What every source's wordings are made of: a `Template` (one wording), the `Ctx` a builder reads
beside its match, and a `Source` (one writer of logs: the broker's coordinator, or a client library).

Adding a client is one module that builds a `Source` (its message prefix, its loggers, its wordings
keyed by their first word) and one line in `sources.SOURCES`; the reader needs no change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

INF = float("inf")


class Template:
    """One wording: `head` + `tail` must match the whole message (a trailing '.' is optional,
    because the new coordinator adds one); a cut line may still be `salvage`d from `head` alone
    when every field the head captures is followed by its delimiter. `versions`: the releases of
    the source whose code has this wording (e.g. "2.4-3.9", "3.7-"), where it is known.
    `build(match, time, ctx)` returns the line's events: a module function or a `functools.partial` of
    one, never a closure made by a factory at import, so that mutation testing reaches its code (mutmut
    switches a function's mutants on when it is called; a closure built at import keeps the original)."""

    __slots__ = ("full", "head", "build", "versions", "origin")

    def __init__(self, head: str, tail: str, build: Callable, salvage: bool = False, versions: str | None = None):
        self.full = re.compile(head + tail + r"\.?", re.S)
        self.head = re.compile(head + r"(?=[ .,:(\]])", re.S) if salvage else None
        self.build = build
        self.versions = versions
        self.origin = (None, versions)  # (log_source, versions) of its rows: the Source that holds it sets it


class Ctx:
    """What a template builder may need beyond the match: the prefix group that matched (`prefix`)
    and its match (`mark`: a client's prefix names the client and group), whether the line was cut,
    and the reader's memory of each group's last line (`recent`: group -> (time, what))."""

    __slots__ = ("prefix", "cut", "recent", "mark")

    def __init__(self, prefix: str, cut: bool, recent: dict | None = None, mark: re.Match | None = None):
        self.prefix, self.cut = prefix, cut
        self.recent = {} if recent is None else recent
        self.mark = mark

    def note(self, group: str, time: int | None, what: str) -> None:
        self.recent[group] = (time, what)

    def forget(self, group: str) -> None:
        """The group's last line tells no cause of what follows it (an epoch bump after it has none)."""
        self.recent.pop(group, None)


def event(t, source: str, kind: str, group=None, member=None, generation=None, reason=None, value=None,
          state=None, error=None, topic=None, partition=None, detail=None, client=None, instance=None) -> tuple:
    """An event tuple: kafkasim.core.events.FIELDS, then `detail`, `client` and `instance` (see
    result.ROW_FIELDS: what a line tells beyond the schema)."""
    return (t, source, group, member, kind, generation, topic, partition, error, reason, value, state, detail, client,
            instance)


def number(text):
    """A number of the line; past 18 digits (which `int` may refuse to convert, and no Arrow column
    holds) it is infinite, whatever its sign, so that the reader's range check leaves the field
    empty (and names it "of more than 18 digits")."""
    if text is None:
        return None
    if len(text) > 19:
        return INF
    return int(text)


_TP = re.compile(r"(.+)-(\d+)$")


def topic_partitions(text: str) -> list[tuple[str, int]]:
    """(topic, partition) of each `topic-N` of a Java list (`Utils.join(partitions, ", ")`, or a
    Collection's `[a-0, b-1]`); items that are no `topic-N` are left out."""
    out = []
    for item in (p.strip() for p in text.strip().strip("[]").split(",")):
        tp = _TP.match(item)
        if tp is not None:
            out.append((tp.group(1), number(tp.group(2))))
    return out


def members(text: str) -> list[str]:
    """The ids of a list as Scala's Set(...) or Java's [...] print it."""
    return [m for m in (s.strip() for s in text.split(",")) if m]


@dataclass(frozen=True)
class Source:
    """One writer of log lines.

    name       the `log_source` of its rows: "broker", "java", "librdkafka", ...
    bracketed  its message prefixes that begin with `[`, each without that `[` and with an outer named
               group that `prefixes` lists (`Match.lastgroup` tells which matched); they are searched
               as one pattern, which stays fast because it begins with a literal
    needles    substrings of which one is in every line with a bracketed prefix (the fast filter)
    free       (needle, pattern) of each other prefix: searched only in lines that hold its needle
    prefixes   the names of the prefixes' outer groups
    loggers    text that begins the logger name printed after the message (`" (kafka.coordinator"`)
    templates  first word of the message -> (strict, templates); an unmatched message under a strict
               key is kept aside as unparsed, under a lenient one it is ignored
    key        the dispatch key of a message: `key(message, mark)`
    blocks     prefixes that open a block of `name = value` lines (Java's "ConsumerConfig values:")
    block      `block(settings, time)`: the events of such a block (its `name = value` pairs)
    epoch      prefix -> the mark's group that holds the line's time as seconds since the epoch
    rewrite    (needles, function): a line that holds one of the needles is given to the function first, which
               returns it in the layout the reader reads (kafkajs: its fields in JSON around the message)
    """

    name: str
    bracketed: tuple[str, ...]
    needles: tuple[str, ...]
    free: tuple[tuple[str, str], ...]
    prefixes: tuple[str, ...]
    loggers: tuple[str, ...]
    templates: dict
    key: Callable[[str, re.Match], str]
    blocks: tuple[str, ...] = ()
    block: Callable[[dict, int | None], list] | None = None
    epoch: dict = field(default_factory=dict)
    rewrite: tuple[tuple[str, ...], Callable[[str], str]] | None = None
    strict: list = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "strict", [k for k, (strict, _) in self.templates.items() if strict])
        for _, templates in self.templates.values():
            for tpl in templates:
                tpl.origin = (self.name, tpl.versions)
