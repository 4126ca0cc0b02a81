"""The log reader: real logs (a broker's `server.log` and its rotations, a client's log, pasted
excerpts) read into kafkasim's event schema, whatever the bytes.

Pure Python (no Spark, no Java): it runs on a laptop, and `kafkasim.analysis.spark.parse_broker_logs`
runs the same code inside Spark executors. The simulator writes its broker log with
`kafkasim.coordinator.broker_log`; this package is its inverse, and reads real logs of every Kafka
version with a group coordinator, 0.9 to 4.x, and the rebalance lines of the clients.

Its rooms, each read in one sitting:

    layouts     dates, container and terminal prefixes, frames, fused lines: how a line is laid out
    clock       the time of a record, and of one without a date (from its neighbours)
    wording     what a source's wordings are made of (Template, Ctx, Source)
    broker, broker_kip848      the group coordinator's wordings, by version (docs/broker-log-parser.md)
    java_client, librdkafka, kafka_python, franz_go, sarama, kafkajs, aiokafka, kafka_streams, spring_kafka
                the clients' rebalance wordings, by release (docs/log-reader.md, "Client logs")
    sources     every source joined: one prefix pattern, one fast filter
    reader      LogParser: lines in, events out (every line read or kept aside with why)
    result      ParseResult and its columns (ROW_FIELDS: the event schema, then file, line, seq,
                time_inferred, log_source, versions, detail)
    files       files and chunks of them, never fatal; the Parquet output of `kafkasim logs`

What the reader promises for damaged input, and every pasted form it reads: docs/log-reader.md.
"""

from kafkasim.analysis.logs.files import (NotARegularFile, chunk_plan, count_newlines, expand_paths, fresh_output,
                                          parse_chunk, parse_file, parse_files, write_part)
from kafkasim.analysis.logs.reader import MAX_CONTINUATION_LINES, MAX_LINE_CHARS, LogParser, parse_lines
from kafkasim.analysis.logs.result import (COUNTS, EXTRA_TYPES, MAX_KEPT_CHARS, ROW_FIELDS, UNPARSED_FIELDS,
                                           ParseResult)
from kafkasim.analysis.logs.sources import SOURCES

__all__ = ["COUNTS", "EXTRA_TYPES", "MAX_CONTINUATION_LINES", "MAX_KEPT_CHARS", "MAX_LINE_CHARS", "ROW_FIELDS",
           "SOURCES", "UNPARSED_FIELDS", "LogParser", "NotARegularFile", "ParseResult", "chunk_plan",
           "count_newlines", "expand_paths", "fresh_output", "parse_chunk", "parse_file", "parse_files",
           "parse_lines", "write_part"]
