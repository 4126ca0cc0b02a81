"""The log reader's former single module, kept so that `from kafkasim.analysis.log_parser import ...`
still works: everything lives in `kafkasim.analysis.logs` now (see its docstring for its rooms)."""

from kafkasim.analysis.logs import (COUNTS, EXTRA_TYPES, MAX_CONTINUATION_LINES, MAX_KEPT_CHARS, MAX_LINE_CHARS,
                                    ROW_FIELDS, SOURCES, UNPARSED_FIELDS, LogParser, NotARegularFile, ParseResult,
                                    chunk_plan, count_newlines, expand_paths, fresh_output, parse_chunk, parse_file,
                                    parse_files, parse_lines, write_part)

__all__ = ["COUNTS", "EXTRA_TYPES", "MAX_CONTINUATION_LINES", "MAX_KEPT_CHARS", "MAX_LINE_CHARS", "ROW_FIELDS",
           "SOURCES", "UNPARSED_FIELDS", "LogParser", "NotARegularFile", "ParseResult", "chunk_plan",
           "count_newlines", "expand_paths", "fresh_output", "parse_chunk", "parse_file", "parse_files",
           "parse_lines", "write_part"]
