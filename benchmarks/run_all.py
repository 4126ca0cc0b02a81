"""Run every benchmark and print its Markdown report (``make bench``).

Each benchmark module in ``BENCHMARKS`` provides ``NAME``, ``run_suite(quick=, repeat=,
python=, log=)`` returning result rows, ``report(rows, info, repeat)`` returning Markdown
and ``machine_info(python)``. Every measurement runs in a fresh subprocess (see the
module), so peak memory is per measurement.

    .venv/bin/python benchmarks/run_all.py                   # full run, prints the tables
    .venv/bin/python benchmarks/run_all.py --quick           # N = 1,000 and 10,000 only
    .venv/bin/python benchmarks/run_all.py --write-readme    # also update benchmarks/README.md
    .venv/bin/python benchmarks/run_all.py --json results.json

``--write-readme`` replaces the text between ``<!-- NAME:begin -->`` and
``<!-- NAME:end -->`` in benchmarks/README.md with the new report.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

BENCHMARKS = ["join_storm", "kip848_storm", "scenario_speed", "share_groups", "broker_memory", "zookeeper_storm",
              "pause_rebalance", "spark_sweep", "log_parse"]
README = os.path.join(HERE, "README.md")


def write_section(path, name, text):
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    with open(path) as f:
        doc = f.read()
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(doc):
        raise SystemExit(f"{path}: markers {begin} / {end} not found")
    doc = pattern.sub(lambda _m: f"{begin}\n{text.strip()}\n{end}", doc)
    with open(path, "w") as f:
        f.write(doc)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run every kafkasim benchmark.")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes only (join storm: N = 1,000 and 10,000; ZooKeeper storm: four cases)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per measurement; the median is reported (default 3)")
    ap.add_argument("--only", action="append", choices=BENCHMARKS,
                    help="run only this benchmark (may be repeated)")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter for the measurement subprocesses")
    ap.add_argument("--write-readme", action="store_true",
                    help="write each report into benchmarks/README.md between its markers")
    ap.add_argument("--json", metavar="PATH", help="also save all result rows as JSON")
    args = ap.parse_args(argv)

    failed = False
    everything = {}
    for name in args.only or BENCHMARKS:
        mod = importlib.import_module(name)
        print(f"## {mod.NAME}\n", flush=True)
        t0 = time.perf_counter()
        rows = mod.run_suite(quick=args.quick, repeat=args.repeat, python=args.python,
                             log=lambda s: print(s, file=sys.stderr, flush=True))
        info = mod.machine_info(args.python)
        text = mod.report(rows, info, args.repeat)
        print(text, flush=True)
        print(f"({mod.NAME}: {time.perf_counter() - t0:.0f} s in all)\n", file=sys.stderr)
        everything[mod.NAME] = {"machine": info, "repeat": args.repeat, "rows": rows}
        failed |= not all(r.get("ok") for r in rows)
        if args.write_readme:
            write_section(README, mod.NAME, text)
            print(f"(wrote {os.path.relpath(README)})", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(everything, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
