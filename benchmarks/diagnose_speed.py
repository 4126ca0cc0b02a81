"""How long `kafkasim diagnose` takes on 10,000 lines, on one core: the whole command (read, diagnose,
print), in this process, median of 5: wall time, and the CPU time of this process (what the command
costs on a machine shared with other jobs), with the load average when it ended.

The log: broker logs of simulated incidents (every cause the simulator makes, kafkasim's
`incidents`), concatenated with other loggers' lines between them as a real server.log has, and
shifted one hour per incident so that time keeps increasing, cut at 10,000 lines.

    .venv/bin/python benchmarks/diagnose_speed.py            # one JSON line
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
from datetime import timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from log_parse import NOISE  # noqa: E402
from measure import timed  # noqa: E402

from kafkasim.analysis.cli import main  # noqa: E402
from kafkasim.analysis.diagnose.incidents import MADE, incident  # noqa: E402
from kafkasim.coordinator.broker_log import START_TIME  # noqa: E402
from kafkasim.scenario.world import simulate  # noqa: E402

LINES = 10_000


def log_lines(n: int = LINES) -> list[str]:
    out, hour = [], 0
    while len(out) < n:
        for cause, versions in MADE.items():
            for line in simulate(incident(cause, versions[0], seed=hour + 1)).broker_log:
                stamp = START_TIME + timedelta(hours=hour)
                old = START_TIME.strftime("[%Y-%m-%d %H")
                out.append(line.replace(old, stamp.strftime("[%Y-%m-%d %H"), 1))
                out.append(f"[{stamp:%Y-%m-%d %H}:59:59,999] {NOISE[len(out) % len(NOISE)]}")
            hour += 1
    return out[:n]


def main_(repeat: int = 5) -> dict:
    lines = log_lines()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "server.log")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        times, cpu = [], []
        for _ in range(repeat):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                code, wall, used = timed(lambda: main(["diagnose", path, "--json", os.path.join(d, "r.json")]))
            times.append(wall)
            cpu.append(used)
        findings = len(json.load(open(os.path.join(d, "r.json")))["findings"])
    return {"lines": len(lines), "exit": code, "findings": findings, "seconds_median": round(statistics.median(times), 3),
            "seconds_max": round(max(times), 3), "cpu_seconds_median": round(statistics.median(cpu), 3),
            "load_1min": round(os.getloadavg()[0], 1), "stdout_chars": len(out.getvalue())}


if __name__ == "__main__":
    print(json.dumps(main_()))
