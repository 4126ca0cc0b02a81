"""What `kafkasim diagnose` does between reading the files and printing: the reading (plain Python,
or Spark for days of logs from many brokers), the group filter, and the three outputs.

On Spark (`SparkLogs`, `diagnose_on_spark`) the driver never holds the log set, nor its events: the
executors parse the files (`kafkasim.analysis.spark.parse_broker_logs`), the events are partitioned
by group, each group is diagnosed in an executor by `diagnose_rows` (the same code as without Spark:
a diagnosis is made of one group's rows), and only each group's timeline and findings come back
(with --html or --replay, which read them, the group's events too).
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import shutil
import tempfile
from collections import Counter
from typing import Callable

from kafkasim.analysis.diagnose import Report, diagnose_rows
from kafkasim.analysis.diagnose.client_rules import CLIENT_SOURCES
from kafkasim.analysis.diagnose.model import best_first
from kafkasim.analysis.diagnose.report import text, to_json
from kafkasim.analysis.diagnose.redact import Redactor
from kafkasim.analysis.diagnose.timeline import row_order
from kafkasim.analysis.log_parser import ROW_FIELDS


class NoSuchGroup(ValueError):
    """--group names a group the logs do not have."""


def check_group(groups: list[str], group: str | None) -> None:
    """NoSuchGroup when `group` is given and not among the logs' `groups` (sorted)."""
    if group is not None and group not in groups:
        shown = ", ".join(groups[:10]) + (" ..." if len(groups) > 10 else "")
        raise NoSuchGroup(f"--group {group}: no such group in these logs (groups found: {shown or 'none'})")


class SparkLogs:
    """The files parsed by Spark's executors into a temporary folder (removed on exit): `parsed`
    (`kafkasim.analysis.spark.LogParse`: the events and unparsed lines as DataFrames), its counts,
    and the first files that could not be read to their end."""

    def __init__(self, ks, spark, files: list[str], progress: bool = False):
        self.files = files
        self._out = tempfile.mkdtemp(prefix="kafkasim-diagnose-")
        try:
            self.parsed = ks.parse_broker_logs(spark, files, self._out, progress=progress)
        except BaseException:
            self.close()
            raise
        self.counts = Counter(self.parsed.counts)

    @functools.cached_property
    def problems(self) -> list[tuple[str, str]]:
        """(file, problem) of the first files not read to their end (a Spark job: asked only when needed)."""
        return [(r["file"], r["problem"]) for r in self.parsed.unparsed.where("text = ''").limit(5).collect()]

    def close(self) -> None:
        shutil.rmtree(self._out, ignore_errors=True)

    def __enter__(self) -> "SparkLogs":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def diagnose_on_spark(logs: SparkLogs, group: str | None = None, *, keep_rows: bool,
                      redact: bool) -> tuple[Report, Callable[[str], str] | None]:
    """The report of `diagnose_rows` over every row, made group by group in the executors; with
    `redact`, the Redactor learned from the (member, reason) pairs in the rows' order. A group's rows
    come back in its timeline only with `keep_rows` (--html and --replay read them)."""
    from pyspark.sql import functions as F

    events, files = _named_groups(logs.parsed.events), logs.files
    if group is not None:  # a Spark job of its own: only for --group
        check_group(sorted(r["group"] for r in logs.parsed.events.where("`group` IS NOT NULL").select("group")
                           .distinct().collect()), group)
        events = events.where(F.col("group") == group)

    def body(table):  # not a functools.partial: PySpark 4 cannot read the type hints of one here
        return _diagnose_group(table, files, keep_rows)

    parts = events.select(*ROW_FIELDS).groupBy("group").applyInArrow(
        body, "t long, file_order long, seq long, payload binary").collect()
    timelines, findings = {}, []
    for part in sorted(parts, key=lambda p: (p["t"], p["file_order"], p["seq"])):  # the order diagnose_rows meets them
        tls, found = pickle.loads(part["payload"])
        timelines.update(tls)
        findings += found
    clean = _redactor(logs.parsed.events, files) if redact else None
    return Report(timelines, best_first(findings), list(files)), clean


def _named_groups(events):
    """`client_rules.name_groups` in Spark: a client row without a group takes the one group the other
    client lines of its file name (librdkafka's MAXPOLL and SESSTMOUT lines name none)."""
    from pyspark.sql import functions as F

    client = F.col("log_source").isin(*CLIENT_SOURCES)
    only = (events.where(client & F.col("group").isNotNull()).groupBy("file")
            .agg(F.count_distinct("group").alias("_n"), F.min("group").alias("_only"))
            .where("_n = 1").select("file", "_only"))
    named = F.when(client & F.col("group").isNull(), F.col("_only")).otherwise(F.col("group"))
    return events.join(F.broadcast(only), "file", "left").withColumn("group", named).drop("_only")


def _diagnose_group(table, files: list[str], keep_rows: bool):
    """applyInArrow body: one group's rows through `diagnose_rows`; its timelines and findings pickled,
    with the order key of its first row (time, file, position) so the driver orders the groups as
    `diagnose_rows` does. Arrow reads Python's ints and bytes as the declared int64 and binary."""
    import pyarrow as pa

    rows = list(zip(*(table.column(name).to_pylist() for name in ROW_FIELDS)))
    report = diagnose_rows(rows, files)
    if not keep_rows:
        for tl in report.timelines.values():
            tl.rows = []
    t, file_order, seq = min(map(row_order(files), rows))
    payload = pickle.dumps((report.timelines, report.findings))
    return pa.table({"t": [t], "file_order": [file_order], "seq": [seq], "payload": [payload]})


def _redactor(events, files: list[str]) -> Redactor:
    """`Redactor.learn` over the rows in the order the plain path reads them (file by file, line by line),
    streamed as the distinct (member, reason) pairs in the order of their first row."""
    from pyspark.sql import functions as F

    order = F.array_position(F.array(*[F.lit(f) for f in files]), F.col("file"))
    pairs = (events.groupBy("member", "reason").agg(F.min(F.struct(order.alias("o"), F.col("seq"))).alias("at"))
             .orderBy("at"))
    return Redactor().learn_pairs((r["member"], r["reason"]) for r in pairs.toLocalIterator())


def run(rows: list, files: list[str], *, group: str | None = None, redact: bool = False, **outputs) -> str:
    """Diagnose the rows (of `group`, if given), write the outputs (`write`) and return stdout."""
    check_group(sorted({r[2] for r in rows if r[2] is not None}), group)
    return write(diagnose_rows(rows, files, group), Redactor().learn(rows) if redact else None, **outputs)


def write(report: Report, clean: Callable[[str], str] | None = None, *, json_out: str | None = None,
          html_out: str | None = None, replay: bool = False, replay_json: str | None = None) -> str:
    """Write --json and --html (through `clean`, the --redact Redactor, if given); with `replay` (or
    `replay_json`) fit a scenario to each group, replay it and run the what-ifs (`replay.py`), printed
    after the report (and written to `replay_json`, apart from --json, whose schema is issue 31's);
    return stdout: the report, or the JSON alone with `json_out` "-"."""
    clean = clean or (lambda s: s)
    stdout = clean(text(report))
    if replay or replay_json:
        body, machine = replays(report)
        stdout += clean(body) if replay else ""
        if replay_json:
            _write(replay_json, clean(json.dumps({"replays": machine}, indent=1, ensure_ascii=False)) + "\n")
    if json_out:
        body = clean(to_json(report)) + "\n"
        if json_out == "-":  # stdout is then the JSON alone, for a pipe (`| jq`)
            stdout = body
        else:
            _write(json_out, body)
    if html_out:
        from kafkasim.analysis.diagnose.html import page

        _write(html_out, clean(page(report)))
    return stdout


def replays(report: Report) -> tuple[str, list[dict]]:
    """Each group's fit, replay closeness and what-if table as text, and as JSON-ready dicts (a group
    that cannot be fitted: one line saying why, and {"group", "error"})."""
    from kafkasim.analysis.diagnose.replay import (NotEnoughToFit, fit_scenario, replay, replay_to_json, what_if,
                                                   what_if_text)

    out, machine = [], []
    if not report.timelines:
        reason = fit_scenario(report).reason
        return f"replay: cannot fit a scenario: {reason}\n", [{"group": None, "error": reason}]
    for name in report.timelines:
        fit = fit_scenario(report, name)
        try:
            rep = replay(fit)
            rows = what_if(fit)
        except NotEnoughToFit as e:
            out.append(f"replay of group {name}: cannot fit a scenario: {e}\n")
            machine.append({"group": name, "error": str(e)})
            continue
        except Exception as e:  # noqa: BLE001 - the diagnosis above stands; the replay's failure is one line
            out.append(f"replay of group {name} failed: {type(e).__name__}: {e}\n")
            machine.append({"group": name, "error": f"{type(e).__name__}: {e}"})
            continue
        out += [fit.text(), rep.text(), "what if the same faults met other settings (one run each, seed 1):",
                what_if_text(rows), ""]
        machine.append(replay_to_json(rep, rows))
    return "\n".join(out), machine


def _write(path: str, body: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body)
