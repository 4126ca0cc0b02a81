"""What `kafkasim diagnose` does between reading the files and printing: the reading (plain Python,
or Spark for days of logs from many brokers), the group filter, and the three outputs."""

from __future__ import annotations

import json
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
        html_out: str | None = None, redact: bool = False, replay: bool = False,
        replay_json: str | None = None) -> tuple[Report, str]:
    """Diagnose the rows; write --json and --html; with `replay` (or `replay_json`) fit a scenario to
    each group, replay it and run the what-ifs (`replay.py`), printed after the report (and written
    to `replay_json`, apart from --json, whose schema is issue 31's); return the report and stdout."""
    groups = sorted({r[2] for r in rows if r[2] is not None})
    if group is not None and group not in groups:
        shown = ", ".join(groups[:10]) + (" ..." if len(groups) > 10 else "")
        raise NoSuchGroup(f"--group {group}: no such group in these logs (groups found: {shown or 'none'})")
    report = diagnose_rows(rows, files, group)
    report.counts = counts
    clean = Redactor().learn(rows) if redact else (lambda s: s)
    stdout = clean(text(report))
    if replay or replay_json:
        body, machine = replays(report)
        stdout += clean(body) if replay else ""
        if replay_json:
            _write(replay_json, clean(json.dumps({"replays": machine}, indent=1, ensure_ascii=False)) + "\n")
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
