"""Every source the reader knows, joined: one prefix search, one fast filter, one list of loggers.

A source is a writer of log lines (`wording.Source`): the broker's group coordinator, or a client
library. Adding one is a module of its wordings and a line in SOURCES.
"""

from __future__ import annotations

import re
from typing import Iterator

from kafkasim.analysis.logs import (aiokafka, broker, broker_kip848, broker_share, franz_go, java_client, kafka_python,
                                   kafka_streams, kafkajs, librdkafka, sarama, spring_kafka)
from kafkasim.analysis.logs.wording import Source



def _broker_templates() -> dict:
    """The coordinator's wordings of every group kind; a share group's go in front of the consumer
    groups' under the same first word (the general patterns would take some of them)."""
    templates = {**broker.CLASSIC_TEMPLATES, **broker_kip848.TEMPLATES}
    for first, share in broker_share.TEMPLATES.items():
        strict, general = templates[first]
        templates[first] = (strict, [*share, *general])
    return templates


BROKER = Source("broker", broker.BRACKETED, broker.NEEDLES, broker.FREE, broker.PREFIXES, broker.LOGGERS,
                _broker_templates(), broker.key)
JAVA = Source("java", java_client.BRACKETED, java_client.NEEDLES, java_client.FREE, java_client.PREFIXES,
              java_client.LOGGERS, java_client.TEMPLATES, java_client.key, ("java_config",), java_client.config_block)

LIBRDKAFKA = Source("librdkafka", (), (), librdkafka.FREE, librdkafka.PREFIXES, (), librdkafka.TEMPLATES,
                    librdkafka.key, epoch=librdkafka.EPOCH)

KAFKA_PYTHON = Source("kafka-python", (), (), kafka_python.FREE, kafka_python.PREFIXES, (), kafka_python.TEMPLATES,
                      kafka_python.key)

FRANZ_GO = Source("franz-go", (), (), franz_go.FREE, franz_go.PREFIXES, (), franz_go.TEMPLATES, franz_go.key)

SARAMA = Source("sarama", (), (), sarama.FREE, sarama.PREFIXES, (), sarama.TEMPLATES, sarama.key)

KAFKAJS = Source("kafkajs", kafkajs.BRACKETED, kafkajs.NEEDLES, (), kafkajs.PREFIXES, (), kafkajs.TEMPLATES,
                 kafkajs.key, rewrite=(kafkajs.NEEDLES, kafkajs.rewrite))

AIOKAFKA = Source("aiokafka", (), (), aiokafka.FREE, aiokafka.PREFIXES, (), aiokafka.TEMPLATES, aiokafka.key)

KAFKA_STREAMS = Source("kafka-streams", (), (), kafka_streams.FREE, kafka_streams.PREFIXES, kafka_streams.LOGGERS,
                       kafka_streams.TEMPLATES, kafka_streams.key)

SPRING_KAFKA = Source("spring-kafka", (), (), spring_kafka.FREE, spring_kafka.PREFIXES, (), spring_kafka.TEMPLATES,
                      spring_kafka.key)

SOURCES: tuple[Source, ...] = (BROKER, JAVA, LIBRDKAFKA, KAFKA_PYTHON, FRANZ_GO, SARAMA, KAFKAJS, AIOKAFKA,
                               KAFKA_STREAMS, SPRING_KAFKA)


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

    def search(self, text: str, pos: int = 0, free: list | None = None) -> re.Match | None:
        """The leftmost prefix from `pos`; `free`: the searches of the other prefixes whose needle `text` holds
        (default: found here)."""
        found = self._bracket(text, pos)
        for search in self.present(text) if free is None else free:
            other = search(text, pos)
            if other is not None and (found is None or other.start() < found.start()):
                found = other
        return found

    def present(self, text: str) -> list:
        """The searches of the prefixes not beginning with `[` whose needle is in `text`."""
        return [search for needle, searches in self.free if needle in text for search in searches]

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match]:
        """Every prefix of `text` from `pos`, left to right, in time linear in the text: the needles are looked
        for once, and each other prefix's next match is kept until `pos` passes its start."""
        free = self.present(text)
        ahead: list = [False] * len(free)  # each prefix's leftmost match at or after the last pos (False: not yet)
        while True:
            found = self._bracket(text, pos)
            for i, search in enumerate(free):
                other = ahead[i]
                if other is False or (other is not None and other.start() < pos):
                    other = ahead[i] = search(text, pos)
                if other is not None and (found is None or other.start() < found.start()):
                    found = other
            if found is None:
                return
            yield found
            pos = max(found.end(), pos + 1)


MARK = Marks(SOURCES)
#: The needles of the prefixes that do not begin with `[` (see Marks).
FREE_NEEDLES = tuple(dict.fromkeys(needle for needle, _ in MARK.free))
SOURCE_OF = {prefix: s for s in SOURCES for prefix in s.prefixes}
#: The prefixes that open a block of `name = value` lines.
BLOCKS = frozenset(prefix for s in SOURCES for prefix in s.blocks)
#: The prefixes of sources that print no logger after the message: a line is a whole record.
ONE_LINE = frozenset(prefix for s in SOURCES if not s.loggers for prefix in s.prefixes)
#: prefix -> the group of its mark that holds the line's time (seconds since the epoch).
EPOCH = {prefix: group for s in SOURCES for prefix, group in s.epoch.items()}
#: (needles, function) of the sources that rewrite their lines into a layout the reader reads (Source.rewrite).
REWRITES = tuple(s.rewrite for s in SOURCES if s.rewrite is not None)
#: Substrings of which every line of a known source has one.
NEEDLES = tuple(dict.fromkeys([*(n for s in SOURCES for n in s.needles), *(n for s in SOURCES for n, _ in s.free)]))
#: The reader's fast filter: fewer, shorter substrings that every needle holds (the reader checks the first
#: three inline, on every line of a file; "onsumer" stands for "[Consumer ", "ConsumerConfig values" and
#: librdkafka's "#consumer-", sarama's "consumergroup/", kafkajs's "[Consumer] " and "[ConsumerGroup] ", aiokafka's
#: logger name, "consumer.CommitFailedException: "; "group" stands for franz-go's "; group: ", " group=" and the
#: JSON records' `"group":`; "roup " for kafka-python's and aiokafka's wordings that name a group, and aiokafka's
#: "LeaveGroup request"). A line that passes and holds no prefix is another logger's line all the same. A JSON
#: record is read once decoded: it passes as its needle's words do.
FILTER = ("[Group", "onsumer", "Kafka version", "Heartbeat", "oordinator dead", "group", "roup ", "OnPartitions",
          "client/coordinator ", "kafka server: ", "known static member", "[Runner] ", "[Connection] ", "stream-",
          "KafkaMessageListenerContainer")
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
