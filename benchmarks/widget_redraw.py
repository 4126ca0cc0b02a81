"""Explorer redraw time: what a reader waits for after moving a slider.

One redraw = simulate the scenario + build the charts' Vega-Lite specs + render them into the
notebook's display bundle (Altair's active renderer, which serialises the spec to JSON). It is
timed around `Explorer.refresh()` for the default `Scenario()` with the explorer's default
controls and charts (member timeline and lag/throughput/duplicates), alternating two values of
session.timeout.ms so that every redraw really re-simulates. The explorer's own part (charts)
is reported apart from the simulation, which the core team speeds up separately. The CPU time
of the redraw (`time.process_time`) is reported too: on a shared 2-core machine it is less
disturbed by other work than the wall time.

For reference it also times the same charts through Altair objects (`chart.to_dict()`, with and
without schema validation): the path a chapter takes when it displays a chart itself.

    .venv/bin/python benchmarks/widget_redraw.py            # median of 9 redraws
    .venv/bin/python benchmarks/widget_redraw.py --repeat 21 --json out.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kafkasim import Scenario, simulate  # noqa: E402
from kafkasim.viz import lag_chart, member_timeline  # noqa: E402
from kafkasim.viz.widgets import Explorer  # noqa: E402

TARGET_MS = 200


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples), 1)


def measure(repeat: int) -> dict:
    explorer = Explorer(Scenario(), debounce_ms=0)  # the first redraw also warms imports and caches
    simulate_ms, charts_ms, total_ms, cpu_ms = [], [], [], []
    for i in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        explorer.set("session.timeout.ms", 30_000 if i % 2 == 0 else 45_000)
        total_ms.append(1000 * (time.perf_counter() - start))
        cpu_ms.append(1000 * (time.process_time() - cpu))
        simulate_ms.append(explorer.timings["simulate_ms"])
        charts_ms.append(explorer.timings["charts_ms"])
        assert explorer.run is not None and len(explorer.output.outputs) == 2, explorer.error.value
    run = simulate(Scenario())
    altair_ms = {}
    for validate in (False, True):
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            for fn in (member_timeline, lag_chart):
                fn(run).to_dict(validate=validate)
            samples.append(1000 * (time.perf_counter() - start))
        altair_ms["validate" if validate else "no_validate"] = _median_ms(samples)
    result = {
        "scenario": "Scenario() (6 members, 12 partitions, 600 s, Kafka 3.7)",
        "charts": ["timeline", "lag"],
        "repeat": repeat,
        "redraw_ms": _median_ms(total_ms),
        "redraw_cpu_ms": _median_ms(cpu_ms),
        "simulate_ms": _median_ms(simulate_ms),
        "charts_ms": _median_ms(charts_ms),
        "events": len(explorer.run.rows),
        "spec_bytes": sum(len(json.dumps(s, default=list)) for s in explorer.specs),
        "altair_to_dict_ms": altair_ms,
        "target_ms": TARGET_MS,
        "python": platform.python_version(),
        "machine": platform.platform(),
    }
    result["met"] = result["redraw_ms"] < TARGET_MS
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--json", help="also write the result to this file")
    args = parser.parse_args(argv)
    result = measure(args.repeat)
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
