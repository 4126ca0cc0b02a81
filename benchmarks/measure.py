"""Shared by the benchmarks: run one measurement in a fresh process, describe the machine."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def in_fresh_process(python: str, script: str, *args: str, timeout: float = 3600) -> dict:
    """`python script args...` with this checkout's kafkasim; the last stdout line, parsed."""
    proc = subprocess.run([python, os.path.abspath(script), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": ROOT})
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(script)} {' '.join(args)} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


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
