"""What `kafkasim diagnose` does between reading the files and printing: the reading (plain Python,
or Spark for days of logs from many brokers), the group filter, and the three outputs."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter

from kafkasim.analysis.diagnose import Report, diagnose_rows
from kafkasim.analysis.diagnose.report import text, to_json
from kafkasim.analysis.diagnose.redact import Redactor
from kafkasim.analysis.log_parser import ROW_FIELDS


class NoSuchGroup(ValueError):
    """--group names a group the logs do not have."""


def read_with_spark(ks, spark, files: list[str]) -> tuple[list, Counter, list]:
    """The same through `kafkasim.analysis.spark.parse_broker_logs` (the `kafkasim logs` path): the
    files are parsed by the executors into a temporary folder; only the events come back."""
    out = tempfile.mkdtemp(prefix="kafkasim-diagnose-")
    try:
        parsed = ks.parse_broker_logs(spark, files, out)
        rows = [tuple(r[name] for name in ROW_FIELDS) for r in parsed.events.select(*ROW_FIELDS).collect()]
        problems = [(r["file"], r["problem"]) for r in parsed.unparsed.where("text = ''").limit(5).collect()]
        return rows, Counter(parsed.counts), problems
    finally:
        shutil.rmtree(out, ignore_errors=True)


def run(rows: list, files: list[str], counts: Counter, *, group: str | None = None, json_out: str | None = None,
        html_out: str | None = None, redact: bool = False) -> tuple[Report, str]:
    """Diagnose the rows; write --json and --html; return the report and the text for stdout."""
    groups = sorted({r[2] for r in rows if r[2] is not None})
    if group is not None and group not in groups:
        shown = ", ".join(groups[:10]) + (" ..." if len(groups) > 10 else "")
        raise NoSuchGroup(f"--group {group}: no such group in these logs (groups found: {shown or 'none'})")
    report = diagnose_rows(rows, files, group)
    report.counts = counts
    clean = Redactor().learn(rows) if redact else (lambda s: s)
    stdout = clean(text(report))
    if json_out:
        body = clean(to_json(report)) + "\n"
        if json_out == "-":
            stdout += body
        else:
            _write(json_out, body)
    if html_out:
        from kafkasim.analysis.diagnose.html import page

        _write(html_out, clean(page(report)))
    return report, stdout


def _write(path: str, body: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
