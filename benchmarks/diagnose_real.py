"""How often `kafkasim diagnose` names the settled cause first, on real public incidents.

The corpus is `tests/data/incidents/` (index.yaml and one folder of posted log lines per incident;
see its README.md). For every incident: diagnose its files with `diagnose_files`, compare the best
finding's cause with our label, and say why when it misses: no line of the files was read as an
event (the log reader lacks that client's or that version's wording; the first unread lines are
shown, so the reader's owner can add the wording from the client's source), lines were read but no
rule fired, or another cause was named first. The rules are never tuned to this corpus (issue 31).

    .venv/bin/python benchmarks/diagnose_real.py                # the table and the misses
    .venv/bin/python benchmarks/diagnose_real.py --json OUT     # every incident's outcome as JSON
    .venv/bin/python benchmarks/diagnose_real.py --write-doc    # refresh tests/data/incidents/README.md
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from dataclasses import asdict, dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import yaml  # noqa: E402

from kafkasim.analysis.diagnose import LABELS, diagnose_files  # noqa: E402
from kafkasim.analysis.log_parser import ROW_FIELDS, parse_file  # noqa: E402
from measure import write_between  # noqa: E402

CORPUS = os.path.join(ROOT, "tests", "data", "incidents")
INDEX = os.path.join(CORPUS, "index.yaml")
DOC = os.path.join(CORPUS, "README.md")
BEGIN, END = "<!-- score:begin -->", "<!-- score:end -->"
NONE = "(none)"
#: Why an incident was missed.
NOT_READ, NO_RULE, OTHER_CAUSE = "no line read", "read, no finding", "other cause first"
LINE = ROW_FIELDS.index("line")


@dataclass
class Outcome:
    """One incident: its label, the cause named first, and why it was missed (None when right)."""

    id: str
    label: str
    named: str
    events: int
    lines: int
    why: str | None
    unread: list      # [file, line number, text] of the first lines no event came from


def load(index: str = INDEX) -> list[dict]:
    """The incidents of the index, in its order."""
    with open(index, encoding="utf-8") as f:
        return yaml.safe_load(f)["incidents"]


def paths_of(entry: dict, corpus: str = CORPUS) -> list[str]:
    return [os.path.join(corpus, entry["id"], name) for name in entry["logs"]]


def unread_lines(paths: list[str], keep: int = 3) -> list:
    """The first `keep` non-blank lines, over the files, that the log reader made no event from."""
    out = []
    for path in paths:
        read = {row[LINE] for row in parse_file(path).rows}
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, text in enumerate(f, 1):
                if n not in read and text.strip() and len(out) < keep:
                    out.append([os.path.basename(path), n, text.strip()[:160]])
    return out


def judge(entry: dict, corpus: str = CORPUS) -> Outcome:
    """Diagnose one incident's files and compare with its label."""
    paths = paths_of(entry, corpus)
    report = diagnose_files(paths)
    named = report.top() or NONE
    events, lines = report.counts["events"], report.counts["lines"]
    if named == entry["label"]:
        why = None
    elif events == 0:
        why = NOT_READ
    elif named == NONE:
        why = NO_RULE
    else:
        why = OTHER_CAUSE
    return Outcome(entry["id"], entry["label"], named, events, lines, why,
                   unread_lines(paths) if why in (NOT_READ, NO_RULE) else [])


def measure(corpus: str = CORPUS) -> list[Outcome]:
    return [judge(e, corpus) for e in load(os.path.join(corpus, "index.yaml"))]


def tables(outcomes: list[Outcome], entries: list[dict]) -> str:
    """Top-1 accuracy overall, by label and by what wrote the logs, then every miss and why."""
    source = {e["id"]: ("broker" if "broker" in e["log_sources"] else "client only") for e in entries}
    right = [o for o in outcomes if o.why is None]
    lines = [f"Named first correctly: {len(right)} of {len(outcomes)} incidents"
             f" ({len(right) / len(outcomes):.0%}).", "",
             "| label | incidents | named first correctly |", "|---|---|---|"]
    by_label = Counter(o.label for o in outcomes)
    for label in LABELS:
        if by_label[label]:
            ok = sum(1 for o in right if o.label == label)
            lines.append(f"| {label} | {by_label[label]} | {ok} |")
    lines += ["", "| logs | incidents | named first correctly |", "|---|---|---|"]
    for kind in ("broker", "client only"):
        group = [o for o in outcomes if source[o.id] == kind]
        if group:
            lines.append(f"| {kind} | {len(group)} | {sum(1 for o in group if o.why is None)} |")
    whys = Counter(o.why for o in outcomes if o.why)
    lines += ["", "Misses: " + ", ".join(f"{n} {w}" for w, n in sorted(whys.items())) + "." if whys else "",
              "", "| incident | label | named first | events/lines | why | first unread line |",
              "|---|---|---|---|---|---|"]
    for o in outcomes:
        if o.why:
            first = "`" + o.unread[0][2][:90].replace("|", "\\|") + "`" if o.unread else ""
            lines.append(f"| {o.id} | {o.label} | {o.named} | {o.events}/{o.lines} | {o.why} | {first} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="OUT", help="write every incident's outcome as JSON")
    ap.add_argument("--write-doc", action="store_true", help="write the tables into the corpus README.md")
    args = ap.parse_args(argv)
    outcomes = measure()
    body = tables(outcomes, load())
    print(body)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([asdict(o) for o in outcomes], f, indent=1, ensure_ascii=False)
    if args.write_doc:
        write_between(DOC, BEGIN, END, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
