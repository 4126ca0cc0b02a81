"""What a read of logs gives: `ParseResult` (events, lines kept aside with why, counts) and its columns.

A row is kafkasim's event schema (kafkasim.core.events.FIELDS, shared with every simulated run) followed
by where the event was read and what the line tells beyond the schema (ROW_FIELDS):

file, line, seq   the file, its 1-based line, an order within the file (line * 1_000_000 + the event's
                  index on its line)
time_inferred     the line had no date of its own (or an impossible one): its time is a neighbour's
log_source        who wrote the line: "broker" (the group coordinator's server.log), or the client
                  library: "java", "librdkafka", ... (`sources.SOURCES`)
versions          the releases of that writer whose source has the line's wording ("2.4-3.9", "3.7-");
                  None where not known. The versions of a log are where its rows' ranges meet.
detail            text beyond the schema: a setting's value (kind ClientConfig), a version (KafkaVersion,
                  ClientVersion), a state left (MemberTransition), a coordinator (CoordinatorDiscovered)
client            the client's id as its lines name it (Java's `clientId=`, librdkafka's handle name
                  `rdkafka#consumer-1`); None in broker lines
instance          the group.instance.id (static membership) a client line names; None when none
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from kafkasim.analysis.logs.wording import INF
from kafkasim.coordinator.broker_log import START_TIME
from kafkasim.core.events import FIELDS
from kafkasim.core.provenance import provenance, with_provenance

#: Characters of a line's text kept in ``unparsed``; a longer text is cut, its length noted.
MAX_KEPT_CHARS = 16 << 10
#: Columns of `ParseResult.rows`: the event schema, then where the event was read and what else its line told.
ROW_FIELDS = (*FIELDS, "file", "line", "seq", "time_inferred", "log_source", "versions", "detail", "client",
              "instance")
#: Columns of `ParseResult.unparsed`.
UNPARSED_FIELDS = ("file", "line", "problem", "text")
#: Counters of a parse (`ParseResult.counts`): physical lines; records of a known source (a fused line
#: counts each of its records; named "coordinator" since the reader read only the broker's); events;
#: records without an event; rows of ``unparsed``; damaged records whose events were kept; records joined
#: from wrapped lines; other loggers' lines; records split off a fused line; records whose time was
#: inferred; files (or chunks) not read to their end.
COUNTS = ("lines", "coordinator", "events", "ignored", "unparsed", "salvaged", "joined", "other", "split",
          "inferred", "unreadable")
#: The Arrow types of the columns after FIELDS (`ParseResult.events_table`, the Spark `events` Parquet).
EXTRA_TYPES = (("file", "string"), ("line", "int64"), ("seq", "int64"), ("time_inferred", "bool"),
               ("log_source", "string"), ("versions", "string"), ("detail", "string"), ("client", "string"),
               ("instance", "string"))

INT32 = (-(1 << 31), (1 << 31) - 1)   # Arrow's int32: generation and partition columns
EXACT = float(1 << 53)                 # the largest integer a float64 `value` holds exactly


def kept(text: str) -> str:
    """A line's text as kept in ``unparsed`` (cut past MAX_KEPT_CHARS)."""
    if len(text) <= MAX_KEPT_CHARS:
        return text
    return f"{text[:MAX_KEPT_CHARS]}… ({len(text):,} characters)"


def join_notes(*notes) -> str | None:
    kept = [n for n in notes if n]
    return "; ".join(kept) if kept else None


def no_surrogates(text: str) -> str:
    """JSON may spell lone UTF-16 surrogates (`"\\ud800"`), which no UTF-8 column (Arrow, Parquet) holds."""
    try:
        text.encode()  # UTF-8
        return text
    except UnicodeEncodeError:
        return text.encode(errors="replace").decode()



def say_number(x) -> str:
    return "of more than 18 digits" if x == INF else f"{x:,}" if isinstance(x, int) else f"{x:g}"  # INF: see `_int`


def in_range(event: tuple) -> tuple[tuple, str]:
    """The event without the numbers no column holds exactly (generation: int32; value: a float64
    integer up to 2^53), and what was left out."""
    g, v = event[5], event[10]
    why = []
    if g is not None and not INT32[0] <= g <= INT32[1]:
        why.append(f"generation {say_number(g)} out of range (a 32-bit integer): left empty")
        g = None
    if v is not None and not -EXACT <= v <= EXACT:
        why.append(f"value {say_number(v)} out of range: left empty")
        v = None
    return (*event[:5], g, *event[6:10], v, *event[11:]), "; ".join(why)



@dataclass
class ParseResult:
    """Events (ROW_FIELDS), lines kept aside (UNPARSED_FIELDS) and counters (COUNTS)."""

    rows: list = field(default_factory=list)
    unparsed: list = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    files: list = field(default_factory=list)   # what was read, in order
    origin: datetime = START_TIME                # the instant time 0 stands for

    def extend(self, other: "ParseResult") -> None:
        self.rows += other.rows
        self.unparsed += other.unparsed
        self.counts.update(other.counts)
        self.files += [f for f in other.files if f not in self.files]
        self.origin = other.origin

    @property
    def file_problems(self) -> list:
        """(file, line, problem) for each file (or Spark chunk) that could not be read, or not to its
        end: the rows of ``unparsed`` whose text is empty. `line` is the last line read (0: none)."""
        return [(f, n, p) for f, n, p, text in self.unparsed if text == ""]

    @property
    def provenance(self) -> dict:
        """Where these events came from (kafkasim.core.provenance): the files read, and kafkasim's
        version; a real broker's Kafka version and configs are not in its log."""
        return provenance("kafkasim.analysis.logs", kafka_version=None, seed=None, configs=None,
                          inputs={"files": self.files, "origin": self.origin.isoformat()})

    def events(self):
        """The events as a pandas DataFrame (see `events_table`)."""
        import pandas as pd

        from kafkasim.core.events import to_frame

        df = to_frame([r[:len(FIELDS)] for r in self.rows])
        dtypes = {"string": "object", "int64": "int64", "bool": "bool"}
        dtypes = {name: dtypes[kind] for name, kind in EXTRA_TYPES}
        for i, name in enumerate(ROW_FIELDS[len(FIELDS):], start=len(FIELDS)):
            df[name] = pd.Series([r[i] for r in self.rows], dtype=dtypes[name])
        return df

    def events_table(self):
        """The events as a pyarrow Table: kafkasim's event schema plus the columns of ROW_FIELDS after it."""
        import pyarrow as pa

        from kafkasim.core.events import to_arrow

        extra = [pa.field(name, pa.bool_() if kind == "bool" else getattr(pa, kind)()) for name, kind in EXTRA_TYPES]
        try:
            table = to_arrow(self.rows, extra)
        except UnicodeEncodeError:  # lone surrogates in lines handed to parse_lines
            table = to_arrow([tuple(no_surrogates(v) if isinstance(v, str) else v for v in r) for r in self.rows],
                             extra)
        return with_provenance(table, self.provenance)

    def unparsed_table(self):
        """The lines kept aside as a pyarrow Table (UNPARSED_FIELDS)."""
        import pyarrow as pa

        schema = pa.schema([("file", pa.string()), ("line", pa.int64()), ("problem", pa.string()),
                            ("text", pa.string())])

        def table(rows):
            return pa.Table.from_pylist([dict(zip(schema.names, r)) for r in rows], schema=schema)

        try:
            return table(self.unparsed)
        except UnicodeEncodeError:  # lone surrogates in lines handed to parse_lines
            return table([tuple(no_surrogates(v) if isinstance(v, str) else v for v in r) for r in self.unparsed])

