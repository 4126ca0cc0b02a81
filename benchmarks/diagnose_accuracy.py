"""How often `kafkasim diagnose` names the true cause first, on simulated incidents (broker logs).

For every cause the simulator makes (`kafkasim.analysis.diagnose.incidents.MADE`), at each Kafka
version it is made at, group sizes, shapes (`variant`) and seeds: simulate, diagnose the broker log
the run wrote, and compare the best finding's cause with the true one. Healthy runs (no fault, or
a rolling restart of static members, which KIP-345 keeps from rebalancing) must give no finding. Writes the confusion matrix and per-cause precision and recall as Markdown,
into docs/diagnose.md between its markers with --write-doc.

    .venv/bin/python benchmarks/diagnose_accuracy.py                 # the full grid (about a minute)
    .venv/bin/python benchmarks/diagnose_accuracy.py --quick         # one size, one seed (the tests)
    .venv/bin/python benchmarks/diagnose_accuracy.py --write-doc     # refresh docs/diagnose.md

Then the same causes written as client logs only (`Scenario(client_log="java" | "librdkafka")`, every
consumer's log, no server.log), over the same grid (`--quick`: its subset; each run simulated once per
client), diagnosed from the clients' lines alone: the second table.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from measure import write_between  # noqa: E402

from kafkasim.analysis.diagnose import LABELS, diagnose_lines  # noqa: E402
from kafkasim.analysis.diagnose.incidents import MADE, incident  # noqa: E402
from kafkasim.scenario.world import simulate  # noqa: E402

DOC = os.path.join(ROOT, "docs", "diagnose.md")
BEGIN, END = "<!-- accuracy:begin -->", "<!-- accuracy:end -->"
CLIENT_BEGIN, CLIENT_END = "<!-- client-accuracy:begin -->", "<!-- client-accuracy:end -->"
#: The client logs the simulator writes; librdkafka's only for classic groups (its KIP-848 wording is not modelled).
CLIENTS = ("java", "librdkafka")
NONE = "(none)"
HEALTHY = "healthy"


def grid(quick: bool) -> list[tuple]:
    """(true cause or None, version, members, seed, variant) of every run."""
    sizes, seeds, variants = ((4,), (1,), (0, 1)) if quick else ((3, 4, 8), (1, 2, 3), (0, 1, 2, 3))
    runs = [(cause, v, m, s, var) for cause, versions in MADE.items() for v in versions for m in sizes
            for s in seeds for var in variants]
    runs += [(None, v, m, s, var) for v in ("2.8", "3.7", "4.0", "4.0c") for m in sizes for s in seeds
             for var in (0, 1)]
    return runs


def measure(quick: bool = False) -> list[tuple[str, str]]:
    """(truth, the cause named first or NONE) per run."""
    out = []
    for cause, version, members, seed, variant in grid(quick):
        run = simulate(incident(cause, version, members, seed, variant))
        top = diagnose_lines(run.broker_log, "broker.log").top()
        out.append((cause or HEALTHY, top or NONE))
    return out


def measure_clients(quick: bool = False) -> list[tuple[str, str]]:
    """(truth, named first) per run of the grid and client, from the client logs alone."""
    import dataclasses

    from kafkasim.analysis.diagnose import diagnose_rows
    from kafkasim.analysis.log_parser import parse_lines

    out = []
    for cause, version, members, seed, variant in grid(quick):
        for client in CLIENTS:
            scenario = incident(cause, version, members, seed, variant)
            if client == "librdkafka" and (version.endswith("c") or scenario.faults and any(
                    getattr(f, "consumer", None) for f in scenario.faults)):
                continue  # a consumer-protocol member: librdkafka's KIP-848 lines are not simulated
            run = simulate(dataclasses.replace(scenario, client_log=client))
            rows, files = [], []
            for name, lines in run.client_logs.items():
                files.append(f"{name}.log")
                rows += parse_lines(lines, files[-1]).rows
            out.append((cause or HEALTHY, diagnose_rows(rows, files).top() or NONE))
    return out


def tables(pairs: list[tuple[str, str]]) -> str:
    """The confusion matrix (rows: truth, columns: named first) and precision/recall per cause."""
    truths = [c for c in (*LABELS, HEALTHY) if any(t == c for t, _ in pairs)]
    named = [c for c in (*LABELS, NONE) if any(p == c for _, p in pairs)]
    count = Counter(pairs)
    head = "| true cause \\ named first | " + " | ".join(named) + " | runs |"
    lines = [head, "|" + "---|" * (len(named) + 2)]
    for t in truths:
        cells = [str(count[(t, p)]) if count[(t, p)] else "." for p in named]
        lines.append(f"| {t} | " + " | ".join(cells) + f" | {sum(count[(t, p)] for p in named)} |")
    lines += ["", "| cause | precision | recall | runs |", "|---|---|---|---|"]
    for c in truths:
        if c == HEALTHY:
            right = count[(HEALTHY, NONE)]
            runs = sum(1 for t, _ in pairs if t == HEALTHY)
            lines.append(f"| healthy (no finding) | - | {right}/{runs} = {right / runs:.0%} | {runs} |")
            continue
        tp = count[(c, c)]
        named_c = sum(1 for _, p in pairs if p == c)
        runs = sum(1 for t, _ in pairs if t == c)
        precision = f"{tp}/{named_c} = {tp / named_c:.0%}" if named_c else "-"
        lines.append(f"| {c} | {precision} | {tp}/{runs} = {tp / runs:.0%} | {runs} |")
    right = sum(1 for t, p in pairs if t == p or (t == HEALTHY and p == NONE))
    lines += ["", f"Named first correctly: {right} of {len(pairs)} runs ({right / len(pairs):.0%})."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one size and one seed per cause and version")
    ap.add_argument("--write-doc", action="store_true", help="write the tables into docs/diagnose.md")
    ap.add_argument("--clients-only", action="store_true", help="only the client-log table")
    args = ap.parse_args(argv)
    if not args.clients_only:
        body = tables(measure(args.quick))
        print(body)
        if args.write_doc:
            write_between(DOC, BEGIN, END, body)
    body = tables(measure_clients(args.quick))
    print("\nClient logs only:\n" + body)
    if args.write_doc:
        write_between(DOC, CLIENT_BEGIN, CLIENT_END, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
