"""Every source the reader knows, joined: one prefix search, one fast filter, one list of loggers.

A source is a writer of log lines (`wording.Source`): the broker's group coordinator, or a client
library. Adding one is a module of its wordings and a line in SOURCES.
"""

from __future__ import annotations

import re
from typing import Iterator

from kafkasim.analysis.logs import broker, broker_kip848, broker_share, java_client, kafka_python, librdkafka
from kafkasim.analysis.logs.wording import Source



def _broker_templates() -> dict:
    """The coordinator's wordings of every group kind; a share group's go in front of the consumer
    groups' under the same first word (the general patterns would take some of them)."""
    templates = {**broker.CLASSIC_TEMPLATES, **broker_kip848.TEMPLATES}
    for first, share in broker_share.TEMPLATES.items():
        strict, general = templates[first]
        templates[first] = (strict, [*share, *general])
    return templates


BROKER = Source("broker", broker.BRACKETED, broker.NEEDLES, (), broker.PREFIXES, broker.LOGGERS,
                _broker_templates(), broker.key)
JAVA = Source("java", java_client.BRACKETED, java_client.NEEDLES, java_client.FREE, java_client.PREFIXES,
              java_client.LOGGERS, java_client.TEMPLATES, java_client.key, ("java_config",), java_client.config_block)

LIBRDKAFKA = Source("librdkafka", (), (), librdkafka.FREE, librdkafka.PREFIXES, (), librdkafka.TEMPLATES,
                    librdkafka.key, epoch=librdkafka.EPOCH)

KAFKA_PYTHON = Source("kafka-python", (), (), kafka_python.FREE, kafka_python.PREFIXES, (), kafka_python.TEMPLATES,
                      kafka_python.key)

SOURCES: tuple[Source, ...] = (BROKER, JAVA, LIBRDKAFKA, KAFKA_PYTHON)


class Marks:
    """The message prefixes of every source: `search` finds the leftmost one in a text, as one
    alternation of them all would, but fast: the prefixes that begin with `[` are one pattern that
    begins with a literal (which the regex engine skips to), and the other prefixes are searched only in
    a text that holds their needle (checked once for all the prefixes that share it, e.g. librdkafka's
    layouts). `Match.lastgroup` names the prefix (SOURCE_OF: its source)."""

    def __init__(self, sources: tuple[Source, ...]):
        self.bracket = re.compile(r"\[(?:" + "|".join(p for s in sources for p in s.bracketed) + ")")
        by_needle: dict[str, list] = {}
        for s in sources:
            for needle, pattern in s.free:
                by_needle.setdefault(needle, []).append(re.compile(pattern).search)
        self.free = tuple((needle, tuple(searches)) for needle, searches in by_needle.items())
        self._bracket = self.bracket.search

    def search(self, text: str, pos: int = 0, known: dict | None = None) -> re.Match | None:
        """The leftmost prefix at or after `pos`. `known` (pattern -> (from, its first match from there)) lets
        a caller that searches one text again and again (`finditer`) skip the patterns whose next match is
        known: a match found from `from` is the first one from any position up to its start, and no match
        from `from` means none after it, so a long line is scanned once per pattern, not once per record."""
        found = self._bracket(text, pos)
        for needle, searches in self.free:
            if needle in text:
                for search in searches:
                    other = self._next(search, text, pos, known)
                    if other is not None and (found is None or other.start() < found.start()):
                        found = other
        return found

    @staticmethod
    def _next(search, text: str, pos: int, known: dict | None) -> re.Match | None:
        if known is None:
            return search(text, pos)
        last = known.get(search)
        if last is not None and last[0] <= pos and (last[1] is None or last[1].start() >= pos):
            return last[1]
        found = search(text, pos)
        known[search] = (pos, found)
        return found

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match]:
        known: dict = {}
        while True:
            found = self.search(text, pos, known)
            if found is None:
                return
            yield found
            pos = max(found.end(), pos + 1)


MARK = Marks(SOURCES)
#: The needles of the prefixes that do not begin with `[` (see Marks).
FREE_NEEDLES = tuple(needle for needle, _ in MARK.free)
SOURCE_OF = {prefix: s for s in SOURCES for prefix in s.prefixes}
#: The prefixes that open a block of `name = value` lines.
BLOCKS = frozenset(prefix for s in SOURCES for prefix in s.blocks)
#: The prefixes of sources that print no logger after the message: a line is a whole record.
ONE_LINE = frozenset(prefix for s in SOURCES if not s.loggers for prefix in s.prefixes)
#: prefix -> the group of its mark that holds the line's time (seconds since the epoch).
EPOCH = {prefix: group for s in SOURCES for prefix, group in s.epoch.items()}
#: Substrings of which every line of a known source has one.
NEEDLES = tuple(dict.fromkeys([*(n for s in SOURCES for n in s.needles), *(n for s in SOURCES for n, _ in s.free)]))
#: The reader's fast filter: fewer, shorter substrings that every needle holds (the reader checks the first
#: three inline, on every line of a file; "onsumer" stands for "[Consumer ", "ConsumerConfig values" and
#: librdkafka's "#consumer-"). A line that passes and holds no prefix is another logger's line all the same.
FILTER = ("[Group", "onsumer", "Kafka version", "Heartbeat", "Marking the coordinator dead", "Attempt to join group")
assert all(any(f in needle for f in FILTER) for needle in NEEDLES), "a needle no FILTER string covers"
FILTER += ("\n",) * (3 - len(FILTER)) if len(FILTER) < 3 else ()  # "\n": in no line
#: Text that begins a logger name printed after the message, of any source.
LOGGERS = tuple(dict.fromkeys(lg for s in SOURCES for lg in s.loggers))


def any_needle(text: str, needles: tuple[str, ...] = NEEDLES) -> bool:
    """Whether `text` may hold a record of a known source (one of `needles` is in it)."""
    for needle in needles:
        if needle in text:
            return True
    return False
