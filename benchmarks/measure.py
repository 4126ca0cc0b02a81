"""Run one measurement of a benchmark script in a fresh process and read its JSON line."""

from __future__ import annotations

import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def in_fresh_process(python: str, script: str, *args: str, timeout: float = 3600) -> dict:
    """`python script args...` with this checkout's kafkasim; the last stdout line, parsed."""
    proc = subprocess.run([python, os.path.abspath(script), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": ROOT})
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(script)} {' '.join(args)} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
