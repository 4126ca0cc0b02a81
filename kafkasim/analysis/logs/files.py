"""Files and chunks of them: any bytes in, a `ParseResult` out, never an exception for what a file
holds or is (docs/log-reader.md, "Per file"); and the Parquet output of `kafkasim logs`.

A file is compressed or not by its content, not its name, UTF-8 (invalid bytes replaced, a BOM
dropped) or UTF-16 with a BOM; a FIFO, a socket, a device or a directory is never read; a damaged
gzip stream is read up to the damage. Chunks (byte ranges of a plain file) let Spark executors read
one file in parallel with the same code.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import re
import stat
import zlib
from datetime import datetime
from itertools import takewhile
from typing import Iterable, Iterator

from kafkasim.analysis import output_folders, write_parquet_atomically
from kafkasim.analysis.logs.reader import MAX_BLOCK_LINES, MAX_LINE_CHARS, LogParser
from kafkasim.analysis.logs.result import ParseResult
from kafkasim.coordinator.broker_log import START_TIME

_GZIP_MAGIC = b"\x1f\x8b"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_BLOCK = 1 << 20
#: The characters of a line `read_lines` keeps: a report shows a line, not a megabyte of it.
SHOWN_LINE_CHARS = 2000


class NotARegularFile(OSError):
    """A path that names a FIFO, a socket, a device or a directory: never read (a FIFO would wait
    for a writer forever, a device may never end)."""


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _open_binary(path: str):
    """A regular file opened for binary reading. The open never waits (O_NONBLOCK: a FIFO opens at
    once, and is then refused); NotARegularFile names what else the path is."""
    nonblock = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, os.O_RDONLY | nonblock | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(f"{_kind_of(mode)}, not a log file: skipped")
        if nonblock:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _why_not_opened(path: str, exc: OSError) -> str:
    """What kept `path` from being opened, in a line: a symbolic link to a missing file named as one."""
    if isinstance(exc, FileNotFoundError) and os.path.islink(path):
        return f"a symbolic link to a missing file ({os.readlink(path)}): skipped"
    return _why(exc)


def _why(exc: BaseException) -> str:
    """What kept a file from being read, in a line (a read of an open file fails for its own reason, not its path's)."""
    if isinstance(exc, NotARegularFile):
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return f"unreadable: {exc.strerror}"
    return f"unreadable: {type(exc).__name__}: {exc}"


def _format_of(start: bytes) -> str:
    """"gzip", "utf-16" (a byte-order mark: PowerShell's `>` writes it), or "text" (UTF-8), by the first two
    bytes of `start` (an open file's `peek()`: its buffer, however long)."""
    if start.startswith(_GZIP_MAGIC):
        return "gzip"
    if start[:2] in _UTF16_BOMS:
        return "utf-16"
    return "text"


def _text_blocks(f, problems: list) -> Iterator[str]:
    """The decoded text of a binary file, block by block: gzip-compressed or not (by its magic
    bytes, whatever its name), UTF-8 (invalid bytes replaced, a BOM dropped) or UTF-16 with a BOM. A
    read that fails (a truncated or corrupt gzip stream, an I/O error) ends the text and adds a
    problem to `problems`; what was read before it is kept."""
    fmt = _format_of(f.peek())
    stream = gzip.GzipFile(fileobj=f, mode="rb") if fmt == "gzip" else f
    decoder = None
    try:
        while True:
            try:
                block = stream.read1(_BLOCK)
            except (OSError, EOFError, zlib.error, ValueError) as exc:
                if fmt == "gzip":  # truncated (EOFError), corrupt (BadGzipFile, zlib.error), a bad checksum
                    problems.append(f"damaged gzip stream ({type(exc).__name__}: {exc}), read up to there")
                else:
                    problems.append(f"{_why(exc)}, read up to there")
                break
            if decoder is None:
                if not block:
                    return
                encoding = "utf-16" if block[:2] in _UTF16_BOMS else "utf-8-sig"
                decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
            if not block:
                break
            text = decoder.decode(block)
            if text:
                yield text
        if decoder is not None:
            text = decoder.decode(b"", final=True)
            if text:
                yield text
    finally:
        if stream is not f:
            stream.close()


def _split_lines(blocks: Iterable[str], counter: list | None = None) -> Iterator[str]:
    """Lines split on '\\n' only (so that line numbers agree with newline counts). A line is held
    up to MAX_LINE_CHARS + 1 characters (the parser sees that it was longer); the rest is skipped."""
    tail = ""
    over = False
    for block in blocks:
        if over:
            i = block.find("\n")
            if i < 0:
                continue
            yield tail
            tail, over, block = "", False, block[i + 1:]
        parts = (tail + block).split("\n")
        tail = parts.pop()
        yield from parts
        if len(tail) > MAX_LINE_CHARS:
            tail, over = tail[:MAX_LINE_CHARS + 1], True
    if tail:
        yield tail


def _parse_open_file(parser: LogParser, f) -> ParseResult:
    """Parse an open binary file from its first line; a read that fails is the result's file problem."""
    problems: list[str] = []
    result = parser.parse(_split_lines(_text_blocks(f, problems)))
    for problem in problems:
        read = result.counts["lines"]
        result.unparsed.append((parser.file, read, f"{problem} (line {read:,})", ""))
        result.counts["unreadable"] += 1
    result.counts["unparsed"] = len(result.unparsed)
    return result


def parse_file(path: str, origin: datetime = START_TIME) -> ParseResult:
    """Parse one file from its first line: plain or gzip-compressed (known by its content), UTF-8 or
    UTF-16. Never raises for what the file holds or is: a file that cannot be read (or not to its
    end) is reported in the result (`ParseResult.file_problems`)."""
    parser = LogParser(str(path), origin)
    try:
        f = _open_binary(str(path))
    except OSError as exc:
        return parser.failed(_why_not_opened(str(path), exc))
    try:
        with f:
            return _parse_open_file(parser, f)
    except Exception as exc:  # a fault of this parser must not end a run over many files
        return parser.failed(f"not read ({type(exc).__name__}: {exc})")


def parse_files(paths: Iterable[str], origin: datetime = START_TIME) -> ParseResult:
    """Parse files one after another (see `expand_paths` for directories)."""
    result = ParseResult()
    for path in paths:
        result.extend(parse_file(path, origin))
    return result


def read_lines(path: str, lines: set) -> dict:
    """{line number: text} of the 1-based `lines` of a file, the lines `parse_file` numbers (the same
    bytes to text: gzip or not, UTF-8 or UTF-16, split on '\\n', a CRLF's '\\r' dropped), each cut at
    SHOWN_LINE_CHARS; read up to the last line wanted. A file that cannot be opened or is not a regular
    file gives {}, a damaged one what was read before the damage (reports then show file:line alone)."""
    last = max(lines)
    out = {}
    try:
        with _open_binary(path) as f:
            numbered = enumerate(_split_lines(_text_blocks(f, [])), 1)
            for n, line in takewhile(lambda pair: pair[0] <= last, numbered):
                if n in lines:
                    out[n] = line.rstrip("\r")[:SHOWN_LINE_CHARS]
    except OSError:
        pass
    return out


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files to read: a path as given; a directory gives its `server.log*` entries (rotations
    `server.log.1`, `server.log.2024-03-05-20`, `.gz` included), searched recursively. Entries that
    are not regular files (a FIFO, a dangling symbolic link) are listed too: parsing reports and
    skips them, without ever opening them for a read that could wait. FileNotFoundError names a
    path that does not exist or a directory without server logs."""
    out: list[str] = []
    for path in paths:
        path = os.fspath(path)
        if os.path.isdir(path):
            refused: list[OSError] = []
            found = sorted(os.path.join(root, name) for root, _, names in os.walk(path, onerror=refused.append)
                           for name in names if name.startswith("server.log"))
            if not found and refused:
                raise _listing_refused(path, refused[0])
            if not found:
                raise FileNotFoundError(f"{path}: a directory without server.log files (Kafka writes the "
                                        f"coordinator's lines to server.log and its rotations server.log.*)")
            out += found
        elif os.path.lexists(path):
            out.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or directory")
    return list(dict.fromkeys(out))


def _listing_refused(path: str, exc: OSError) -> OSError:
    """A directory that could not be listed, a permission problem named as one."""
    where = exc.filename if exc.filename and os.fspath(exc.filename) != path else path
    if isinstance(exc, PermissionError):
        return PermissionError(f"{path}: permission denied: the directory {where} cannot be listed by this user "
                               f"({exc.strerror})")
    return OSError(f"{path}: the directory {where} cannot be listed ({exc.strerror or exc})")


# -- chunks (for parallel readers such as Spark) ---------------------------------------------------
def _probe(path: str) -> tuple[int, bool]:
    """(size, splittable): a plain text file can be read in byte ranges; a gzip or UTF-16 file,
    or one that cannot be opened (its chunk reports why), is read whole."""
    try:
        with _open_binary(path) as f:
            return os.fstat(f.fileno()).st_size, _format_of(f.peek()) == "text"
    except OSError:
        return 0, False


def chunk_plan(paths: list[str], chunk_bytes: int = 32 << 20) -> list[tuple[str, int, int]]:
    """(path, start, end) byte ranges of about `chunk_bytes`; a compressed file is one chunk (it
    cannot be split), and so is a file that cannot be read (its chunk reports the problem)."""
    plan = []
    for path in paths:
        size, splittable = _probe(path)
        if not splittable or size <= chunk_bytes:
            plan.append((path, 0, size))
        else:
            plan += [(path, start, min(start + chunk_bytes, size)) for start in range(0, size, chunk_bytes)]
    return plan


def count_newlines(path: str, start: int, end: int) -> int:
    """Newlines in bytes [start, end) of a plain file (for the line numbers of later chunks); 0
    for a file that cannot be read (its chunks report why)."""
    count = 0
    try:
        with _open_binary(path) as f:
            f.seek(start)
            left = end - start
            while left > 0:
                block = f.read(min(left, 8 << 20))
                if not block:
                    break
                count += block.count(b"\n")
                left -= len(block)
    except OSError:
        return 0
    return count


_LINE_BYTES = 4 * MAX_LINE_CHARS + 4  # enough bytes for MAX_LINE_CHARS + 1 characters of UTF-8


def _skip_line(f) -> None:
    """Read past the current line's newline, holding at most 64 KB of it at a time."""
    while True:
        more = f.readline(1 << 16)
        if not more or more.endswith(b"\n"):
            return


def _rest_of_line(f, keep: int) -> bytes:
    """The rest of the current line (up to its newline), of which only the first `keep` bytes are
    held: a line of a gigabyte costs no more memory than a short one."""
    head = f.readline(keep)
    if head and not head.endswith(b"\n"):
        _skip_line(f)
    return head


def parse_chunk(path: str, start: int, end: int, newlines_before: int = 0,
                origin: datetime = START_TIME, name: str | None = None) -> ParseResult:
    """Parse the lines that begin in bytes [start, end) of `path`; `newlines_before` is the number
    of newlines in [0, start) (see `count_newlines`), which numbers the lines; `name`: the file as
    its results name it (default `path`). Never raises for what the file holds or is (see `parse_file`)."""
    parser = LogParser(str(path) if name is None else name, origin)
    try:
        f = _open_binary(str(path))
    except OSError as exc:
        return parser.failed(_why_not_opened(str(path), exc), newlines_before)
    try:
        with f:
            size = os.fstat(f.fileno()).st_size
            if _format_of(f.peek()) != "text" or (start == 0 and end >= size):
                if start > 0:  # a file that cannot be split, planned as if it could: its first chunk reads it
                    return ParseResult(files=[parser.file], origin=parser.origin)
                return _parse_open_file(parser, f)
            return _parse_range(parser, f, start, end, newlines_before)
    except Exception as exc:  # a fault of this parser must not end a Spark job
        return parser.failed(f"not read ({type(exc).__name__}: {exc})", newlines_before)


def _parse_range(parser: LogParser, f, start: int, end: int, newlines_before: int) -> ParseResult:
    first_line = newlines_before + 1
    try:  # an I/O error on any read of the range: the chunk's problem, at the line before it
        if start > 0:
            f.seek(start - 1)
            if f.read(1) != b"\n":
                _skip_line(f)  # the line that straddles `start` belongs to the previous chunk
                first_line += 1
        data = f.read(max(end - f.tell(), 0))
        if data and not data.endswith(b"\n"):
            data += _rest_of_line(f, _LINE_BYTES)  # the last line that begins before `end`, read to its end
    except OSError as exc:
        return parser.failed(_why(exc), newlines_before)
    text = data.decode(errors="replace")  # UTF-8
    lines = text.split("\n")
    if lines[-1] == "":  # what follows the last newline: no line (split always gives one string at least)
        lines.pop()

    def lookahead():  # the rest of a record begun in the chunk: a block's lines at most (the longest record;
        for _ in range(MAX_BLOCK_LINES):  # a line of MAX_LINE_CHARS cut by Docker or CRI is 65 pieces)
            try:
                raw = _rest_of_line(f, _LINE_BYTES)
            except OSError:
                return
            if not raw:
                return
            yield raw.decode(errors="replace")  # UTF-8

    return parser.parse(lines, first_line, lookahead())


# -- output folders (`kafkasim logs`, `parse_broker_logs`) ---------------------------------------------
_OWN_PART = re.compile(r"\.?part-\d+\.parquet(?:\.tmp-\d+)?")


def fresh_output(out: str) -> None:
    """Empty `out/events` and `out/unparsed` of an earlier parse (a second parse into the same `out`
    must not read the first one's parts back), or create them. A folder with files kafkasim did not
    write, or an `out` that cannot be a folder, is refused (ValueError), nothing deleted."""
    for name in ("events", "unparsed"):
        path = os.path.join(out, name)
        if os.path.isdir(path):
            foreign = sorted(n for n in os.listdir(path) if not _OWN_PART.fullmatch(n))
            if foreign:
                raise ValueError(f"{path} holds files kafkasim did not write ({', '.join(foreign[:3])}); "
                                 f"choose another --out folder")
    output_folders(out, "events", "unparsed")
    for name in ("events", "unparsed"):
        for n in os.listdir(os.path.join(out, name)):
            os.remove(os.path.join(out, name, n))


def write_counts(out: str, files: list[str], counts) -> None:
    """`out/counts.json`: the files read and the parse's COUNTS, one entry a line (Spark or not)."""
    with open(os.path.join(out, "counts.json"), "w") as f:
        json.dump({"files": files, "counts": dict(counts)}, f, indent=1)


def write_part(result: ParseResult, out: str, index: int) -> None:
    """`out/events/part-<index>.parquet` and `out/unparsed/part-<index>.parquet`, each written under a
    hidden name and renamed: never read half-written, and a retried task rewrites the same bytes."""
    for folder, table in (("events", result.events_table()), ("unparsed", result.unparsed_table())):
        write_parquet_atomically(table, os.path.join(out, folder, f"part-{index:05d}.parquet"))
