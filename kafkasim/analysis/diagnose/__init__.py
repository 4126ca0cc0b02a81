"""`kafkasim diagnose`: why a consumer group rebalanced, named from its logs, with the lines that show it.

The log reader (`kafkasim.analysis.log_parser`) turns the files into events; `timeline` makes each
group's history of them (rebalance episodes, generations or epochs, members arriving and leaving
with their reasons); `rules` holds one rule per cause label (`model.LABELS`), each reading lines
whose Kafka source it cites; `bugs` is the table of known broker and client bugs with their log
signature; `report` writes the screen and the JSON, `html` the offline page, `redact` the shareable copy;
`replay` fits a Scenario to a group's log, replays it beside the log and runs the what-ifs.
How well it names the cause, measured on simulated incidents: docs/diagnose.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from kafkasim.analysis.diagnose import client_rules, offsets
from kafkasim.analysis.diagnose.model import LABELS, SETTINGS, Finding, Line, best_first
from kafkasim.analysis.diagnose.rules import RULES, Reading
from kafkasim.analysis.diagnose.timeline import Timeline, sort_rows, timelines
from kafkasim.coordinator.broker_log import START_TIME


@dataclass
class Report:
    """The groups' timelines and the findings, best first."""

    timelines: dict[str, Timeline]
    findings: list[Finding]
    files: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    origin: datetime = START_TIME

    def to_json(self) -> dict:
        """`{"groups": [...], "findings": [...]}` as `kafkasim diagnose --json` writes it (issue 31)."""
        return {"groups": [tl.to_json() for tl in self.timelines.values()],
                "findings": [f.to_json() for f in self.findings]}

    def top(self, group: str | None = None) -> str | None:
        """The best finding's cause (of `group`, if given), or None when nothing was found."""
        found = [f for f in self.findings if group is None or f.group == group]
        return found[0].cause if found else None


def diagnose_rows(rows: list, files: list[str] | None = None, group: str | None = None) -> Report:
    """Diagnose parsed rows (`ParseResult.rows`, ROW_FIELDS), of one group or all of them."""
    rows = offsets.to_groups(client_rules.name_groups(rows))
    rows = sort_rows([r for r in rows if group is None or r[2] == group], files or [])
    groups = timelines(rows)
    readings = [Reading(tl) for tl in groups.values()]
    findings = [f for r in readings for rule in RULES for f in rule(r)]
    findings = client_rules.merge(findings, client_rules.findings(rows))  # the clients' lines (Java, librdkafka)
    return Report(groups, best_first(findings), list(files or []))


def read_files(paths: list[str]) -> tuple[list, Counter, list]:
    """Rows, counts and (file, problem) for files that could not be read to their end, read with the
    log reader in this process (it never raises for what a file holds or is)."""
    from kafkasim.analysis.log_parser import parse_file

    rows, counts, problems = [], Counter(), []
    for path in paths:
        result = parse_file(path)
        rows += result.rows
        counts.update(result.counts)
        problems += [(file, problem) for file, _, problem in result.file_problems]
    return rows, counts, problems


def diagnose_files(paths: list[str], group: str | None = None) -> Report:
    """Read the files with the log reader (any bytes; never fatal) and diagnose them."""
    rows, counts, _ = read_files(paths)
    report = diagnose_rows(rows, [str(p) for p in paths], group)
    report.counts = counts
    return report


def diagnose_lines(text: str | list[str], file: str = "<lines>") -> Report:
    """Diagnose a pasted excerpt (a string or a list of lines), e.g. `Run.broker_log`."""
    from kafkasim.analysis.log_parser import parse_lines

    result = parse_lines(text, file)
    report = diagnose_rows(result.rows, [file])
    report.counts = result.counts
    return report


__all__ = ["LABELS", "SETTINGS", "Finding", "Line", "Report", "diagnose_rows", "diagnose_files", "diagnose_lines",
           "read_files"]
