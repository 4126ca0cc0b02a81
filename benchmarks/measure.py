"""Shared by the benchmarks: run one measurement in a fresh process, describe the machine."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from typing import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def in_fresh_process(python: str, script: str, *args: str, timeout: float = 3600) -> dict:
    """`python script args...` with this checkout's kafkasim; the last stdout line, parsed."""
    proc = subprocess.run([python, os.path.abspath(script), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": ROOT})
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(script)} {' '.join(args)} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def timed(fn):
    """`fn()`, its wall time and its CPU time (`time.process_time`: steadier on a shared machine)."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def cases_in_fresh_processes(script: str, cases, say: Callable[[dict], str], *, python: str | None = None,
                              timeout: float = 3600, log=print) -> list[dict]:
    """`script --case <case>` for each case, each in a fresh process; `say(row)` is logged per case."""
    rows = []
    for case in cases:
        row = in_fresh_process(python or sys.executable, script, "--case", case, timeout=timeout)
        log(f"  {case}: {say(row)}")
        rows.append(row)
    return rows


def case_main(argv, doc: str, cases, run_case: Callable[[str], dict], run_suite, report) -> int:
    """The command line of a benchmark measured case by case: `--case C` measures C in this process
    (one JSON line); without it every case, each in a fresh process, as a Markdown table (exit 1 if a
    target is missed)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--case", choices=cases, help="measure one case in this process (one JSON line)")
    args = ap.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case)))
        return 0
    rows = run_suite(log=lambda s: print(s, file=sys.stderr))
    print(report(rows, machine_info(), 1))
    return 0 if all(r["ok"] for r in rows) else 1


def write_between(path: str, begin: str, end: str, body: str) -> None:
    """Replace what stands between the markers `begin` and `end` in the file at `path` with `body`."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, stop = text.index(begin) + len(begin), text.index(end)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n" + body + "\n" + text[stop:])


def machine_info(python: str | None = None) -> dict:
    """What the tables say they were measured on (the Python is the measuring interpreter's)."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    pyver = platform.python_version()
    if python:
        pyver = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                               capture_output=True, text=True).stdout.strip() or pyver
    try:
        import simpy
        simpy_version = simpy.__version__
    except ImportError:
        simpy_version = "not installed"
    return {"cpus": os.cpu_count(), "cpu_model": model, "python": pyver, "simpy": simpy_version,
            "os": platform.platform(), "date": datetime.date.today().isoformat()}
