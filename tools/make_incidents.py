"""Write examples/incidents/: one simulated broker log per cause the simulator can make, and a healthy one.

Each file is `Run.broker_log` of `kafkasim.analysis.diagnose.incidents.incident(cause, version)`, so
`kafkasim diagnose examples/incidents/<cause>.log` can be run on a fresh clone; the same scenario
and seed always write the same bytes (tests/test_diagnose.py checks both).

Usage: python tools/make_incidents.py [--check]
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from kafkasim.analysis.diagnose.incidents import incident  # noqa: E402
from kafkasim.scenario.world import simulate  # noqa: E402

OUT = os.path.join(ROOT, "examples", "incidents")
#: file name -> (cause, Kafka version): the example of each cause, in the wording of a version that shows it.
EXAMPLES = {
    "slow-processing.log": ("slow-processing", "3.7"),
    "session-timeout-gc-or-stall.log": ("session-timeout-gc-or-stall", "3.7"),
    "network.log": ("network", "3.7"),
    "rolling-restart-dynamic-members.log": ("rolling-restart-dynamic-members", "3.7"),
    "scaling.log": ("scaling", "3.7"),
    "too-many-members-or-slow-join.log": ("too-many-members-or-slow-join", "3.7"),
    "misconfiguration.log": ("misconfiguration", "4.0"),
    "kip848-specific.log": ("kip848-specific", "4.0c"),
    "healthy.log": (None, "3.7"),
}


def text(cause, version) -> str:
    return "\n".join(simulate(incident(cause, version)).broker_log) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if a file differs from what it would be written as")
    args = ap.parse_args(argv)
    os.makedirs(OUT, exist_ok=True)
    stale = []
    for name, (cause, version) in EXAMPLES.items():
        body, path = text(cause, version), os.path.join(OUT, name)
        if args.check:
            with open(path, encoding="utf-8") as f:
                if f.read() != body:
                    stale.append(name)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
    if stale:
        print(f"examples/incidents out of date: {', '.join(stale)} (run python tools/make_incidents.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
