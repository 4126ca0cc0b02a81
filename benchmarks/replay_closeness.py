"""How close the replay of a fitted scenario comes to the log it was fitted to, on simulated incidents.

The grid of benchmarks/diagnose_accuracy.py (every cause the simulator makes, at each Kafka version,
group size, shape and seed, and the healthy runs): simulate, fit a scenario to the broker log the
run wrote (`kafkasim.analysis.diagnose.replay.fit_lines`), replay it, and record the closeness, whether
the member count and the fault kinds (of the faults that began before the log's last line) were
recovered, and whether the true version lies in the version range read from the wording. Writes a
table per cause, into docs/diagnose.md between its markers with --write-doc.

    .venv/bin/python benchmarks/replay_closeness.py                 # the full grid (a few minutes)
    .venv/bin/python benchmarks/replay_closeness.py --quick         # one size, one seed
    .venv/bin/python benchmarks/replay_closeness.py --write-doc     # refresh docs/diagnose.md
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from diagnose_accuracy import DOC, HEALTHY, grid  # noqa: E402
from measure import write_between  # noqa: E402

from kafkasim.analysis.diagnose.incidents import incident  # noqa: E402
from kafkasim.analysis.diagnose.replay import fit_lines, replay  # noqa: E402
from kafkasim.core.config import KAFKA_VERSIONS  # noqa: E402
from kafkasim.scenario.world import simulate  # noqa: E402

BEGIN, END = "<!-- replay:begin -->", "<!-- replay:end -->"


def measure(quick: bool = False) -> list[dict]:
    """One row per run: cause, fitted, closeness, members / faults / version recovered."""
    out = []
    for cause, version, members, seed, variant in grid(quick):
        truth = incident(cause, version, members, seed, variant)
        log = simulate(truth).broker_log
        fit = fit_lines(log)
        row = {"cause": cause or HEALTHY, "fitted": fit.ok, "closeness": None, "members": False, "faults": False,
               "version": False}
        if fit.ok:
            last = fit.timeline.last
            began = sorted(type(f).__name__ for f in truth.faults if f.at_ms <= last)
            lo, hi = (KAFKA_VERSIONS.index(v) for v in fit.version_range)
            row.update(closeness=replay(fit).score, members=fit.members == truth.members,
                       faults=sorted(type(f).__name__ for f in fit.faults) == began,
                       version=lo <= KAFKA_VERSIONS.index(version.rstrip("c")) <= hi)
        out.append(row)
    return out


def table(rows: list[dict]) -> str:
    """Per cause: runs, fitted, closeness (mean, min), members, fault kinds and version range recovered."""
    causes = list(dict.fromkeys(r["cause"] for r in rows))
    out = ["| cause | runs | fitted | closeness mean | closeness min | members | fault kinds | version in range |",
           "|---|---|---|---|---|---|---|---|"]

    def line(name, rs):
        scores = [r["closeness"] for r in rs if r["closeness"] is not None]
        n = len(rs)
        return (f"| {name} | {n} | {sum(r['fitted'] for r in rs)} | "
                f"{sum(scores) / len(scores):.3f} | {min(scores):.3f} | {sum(r['members'] for r in rs)}/{n} | "
                f"{sum(r['faults'] for r in rs)}/{n} | {sum(r['version'] for r in rs)}/{n} |")
    out += [line(c, [r for r in rows if r["cause"] == c]) for c in causes]
    out.append(line("all", rows))
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one group size, one seed")
    ap.add_argument("--write-doc", action="store_true", help="write the table into docs/diagnose.md")
    args = ap.parse_args(argv)
    body = table(measure(args.quick))
    print(body)
    if args.write_doc:
        write_between(DOC, BEGIN, END, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
