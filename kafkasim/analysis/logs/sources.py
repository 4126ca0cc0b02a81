"""Every source the reader knows, joined: one prefix pattern, one fast filter, one list of loggers.

A source is a writer of log lines (`wording.Source`): the broker's group coordinator, or a client
library. Adding one is a module of its wordings and a line in SOURCES.
"""

from __future__ import annotations

import re

from kafkasim.analysis.logs import broker, broker_kip848
from kafkasim.analysis.logs.wording import Source

BROKER = Source("broker", broker.MARK, broker.PREFIXES, broker.NEEDLES, broker.LOGGERS,
                {**broker.CLASSIC_TEMPLATES, **broker_kip848.TEMPLATES}, broker.key)

SOURCES: tuple[Source, ...] = (BROKER,)

#: The message prefix of every source; `Match.lastgroup` names the prefix, SOURCE_OF its source.
MARK = re.compile("|".join(s.mark for s in SOURCES))
SOURCE_OF = {prefix: s for s in SOURCES for prefix in s.prefixes}
#: Substrings of which every line of a known source has one (the reader's fast filter).
NEEDLES = tuple(dict.fromkeys(n for s in SOURCES for n in s.needles))
#: Text that begins a logger name printed after the message, of any source.
LOGGERS = tuple(dict.fromkeys(lg for s in SOURCES for lg in s.loggers))


def any_needle(text: str) -> bool:
    """Whether `text` may hold a record of a known source (some needle is in it)."""
    for needle in NEEDLES:
        if needle in text:
            return True
    return False
