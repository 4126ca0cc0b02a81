"""`kafkasim diagnose --spark` on about 1 GB of logs: days of several brokers' server.log files and the
clients' own logs, through the command's own code path (`python -m kafkasim.analysis.cli diagnose`).

The log set (built once under build/, never committed; `--rebuild` builds it again) is made from
simulated incidents (`kafkasim.analysis.diagnose.incidents`: every cause the simulator makes, at
each of its Kafka versions, with the Java client's or librdkafka's log), placed hour by hour over
days: GROUPS consumer groups (applications `app-000`...), each with an incident every PERIOD_H
hours, its coordinator on broker `g % BROKERS`. Each broker writes `server.log.YYYY-MM-DD-HH` (log4j's
hourly rotation, Kafka's default) with other loggers' lines between the coordinator's (about four a
second, as a busy broker has), each application `consumer.log.YYYY-MM-DD` (a daily rotation) with
its own lines between the client library's. Nothing is random: the same size gives the same bytes,
and a smaller set is the first hours of a larger one.

Three measurements, each command in a fresh process:

``slice``   the first hours (`--slice-mb`, about 30 MB) through the command without and with
            `--spark`: the --json reports and the screens must be identical (same code, same answers).
``spark``   the whole set through `kafkasim diagnose --spark --master local[2] --json OUT`: wall time,
            and the peak resident memory of the driver (the Python process that runs the command), of
            Spark's JVM (driver and local executors) and of its Python workers, sampled every 0.5 s.
``python``  the whole set without Spark (`--no-whole-python` skips it): wall time and peak memory of
            the plain path, which holds every event of the set in one process; its report must be the
            Spark one, byte for byte.

    nice -n 5 .venv/bin/python benchmarks/diagnose_spark.py              # build if needed, measure (Markdown)
    .venv/bin/python benchmarks/diagnose_spark.py --size-mb 100          # a smaller set
    .venv/bin/python benchmarks/diagnose_spark.py --build-only           # only the set, with a progress bar
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from log_parse import NOISE  # noqa: E402
from measure import machine_info  # noqa: E402

from kafkasim.analysis.diagnose.incidents import MADE, incident  # noqa: E402
from kafkasim.coordinator.broker_log import START_TIME  # noqa: E402
from kafkasim.scenario.world import simulate  # noqa: E402

BUILD = os.path.join(ROOT, "build")
#: The first day of the set (the simulated runs start at START_TIME; their lines are moved here).
BASE = datetime(2026, 11, 23)
BROKERS, GROUPS, PERIOD_H = 3, 60, 4
#: Other loggers' lines per broker and hour, and an application's own lines per hour.
NOISE_PER_HOUR, APP_LINES_PER_HOUR = 15_000, 360
_JAVA = re.compile(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] ")
_RDKAFKA = re.compile(r"%(\d)\|(\d+)\.(\d{3})\|")
_APP = {"java": "INFO [order-worker-{n}] Processed {k} records from orders in {ms} ms "
                "(com.example.orders.OrderWorker)",
        "librdkafka": "INFO orders.worker: processed {k} messages in {ms} ms"}


# -- the log set -------------------------------------------------------------------------------------------
def library() -> dict[str, list]:
    """Per client style, every simulated incident as (broker lines, client lines), each line as
    (ms from the run's start, text without its time stamp, stamp kind)."""
    out: dict[str, list] = {"java": [], "librdkafka": []}
    for cause, versions in [*MADE.items(), (None, ("3.7", "4.0"))]:
        for version in versions:
            for style in out:
                if style == "librdkafka" and (version.endswith("c") or cause == "misconfiguration"):
                    continue  # librdkafka's consumer-protocol wording is not modelled (client_log.check_client_log)
                run = simulate(replace(incident(cause, version, variant=len(out[style]) % 2), client_log=style))
                clients = sorted((r for lines in run.client_logs.values() for r in _records(lines)), key=lambda r: r[0])
                out[style].append((_records(run.broker_log), clients))
    return out


def _records(lines: list[str]) -> list[tuple]:
    """Each record as a template, the lines without a time stamp (a multi-line record's, e.g. the Java
    consumer's assignment table) joined to the record before them."""
    out: list[tuple] = []
    for line in lines:
        if _JAVA.match(line) or _RDKAFKA.match(line):
            out.append(_template(line))
        else:
            at, text, kind = out[-1]
            out[-1] = (at, text + "\n" + line, kind)
    return out


def _template(line: str) -> tuple:
    m = _JAVA.match(line)
    if m:
        at = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S") - START_TIME
        return int(at.total_seconds()) * 1000 + int(m.group(2)), line[m.end():], "java"
    m = _RDKAFKA.match(line)
    if m:
        at = int(m.group(2)) * 1000 + int(m.group(3)) - int(START_TIME.replace(tzinfo=timezone.utc).timestamp() * 1000)
        return at, line[m.end():], "rd" + m.group(1)
    raise ValueError(f"a simulated line without a time stamp: {line[:80]}")


_EPOCH = int(BASE.replace(tzinfo=timezone.utc).timestamp())


def _stamp(ms: int, kind: str) -> str:
    """`[2026-11-23 04:05:06,789] ` (log4j, Kafka's and the Java client's) or `%7|1795392306.789|` (librdkafka)."""
    s, milli = divmod(ms, 1000)
    if kind.startswith("rd"):
        return f"%{kind[2:]}|{_EPOCH + s}.{milli:03d}|"
    day = (BASE + timedelta(days=s // 86_400)).strftime("%Y-%m-%d")
    s %= 86_400
    return f"[{day} {s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d},{milli:03d}] "


def style_of(g: int) -> str:
    """An application uses one client library: even ones the Java consumer, odd ones librdkafka."""
    return "java" if g % 2 == 0 else "librdkafka"


def hour_files(lib: dict, hour: int) -> dict[str, list[str]]:
    """Relative path -> lines of one hour: each broker's server.log of that hour, and what each
    application's consumer.log gets in it, every file's lines in time order."""
    day, hh = divmod(hour, 24)
    date = (BASE + timedelta(days=day)).strftime("%Y-%m-%d")
    brokers: dict[int, list] = {b: [] for b in range(BROKERS)}
    apps: dict[int, list] = {g: [] for g in range(GROUPS)}
    base = hour * 3_600_000
    for b in range(BROKERS):
        for i in range(NOISE_PER_HOUR):
            brokers[b].append((base + i * 3_600_000 // NOISE_PER_HOUR + b, NOISE[(i + b) % len(NOISE)], "java"))
    for g in range(GROUPS):
        style = style_of(g)
        for i in range(APP_LINES_PER_HOUR):
            text = _APP[style].format(n=1 + i % 4, k=100 + (i * 37 + g) % 400, ms=5 + (i * 13 + g) % 300)
            apps[g].append((base + i * 3_600_000 // APP_LINES_PER_HOUR + 17 * g, text, "java" if style == "java"
                            else "app"))
        if (g + hour) % PERIOD_H:
            continue
        runs = lib[style]
        broker_lines, client_lines = runs[(g * 5 + hour // PERIOD_H) % len(runs)]
        start = base + ((g * 7919) % 3000) * 1000  # within the first 50 minutes: every run ends in its hour
        name = f"app-{g:03d}"
        brokers[g % BROKERS] += [(start + ms, text.replace("workbook-group", name), kind)
                                 for ms, text, kind in broker_lines]
        apps[g] += [(start + ms, text.replace("workbook-group", name), kind) for ms, text, kind in client_lines]
    out = {}
    for b, lines in brokers.items():
        out[f"brokers/broker-{b}/server.log.{date}-{hh:02d}"] = _render(lines)
    for g, lines in apps.items():
        out[f"clients/app-{g:03d}/consumer.log.{date}"] = _render(lines)
    return out


def _render(lines: list) -> list[str]:
    lines.sort(key=lambda x: x[0])
    return [(_python_stamp(ms) if kind == "app" else _stamp(ms, kind)) + text for ms, text, kind in lines]


def _python_stamp(ms: int) -> str:
    """Python logging's default time format, as a confluent-kafka application writes its own lines."""
    return _stamp(ms, "java")[1:-2] + " "


def build(folder: str, size_mb: float, progress: bool = True) -> dict:
    """The set of about `size_mb` MB in `folder` (whole hours: a smaller set is the first hours of a larger
    one), reused when its manifest says it is that size's; the manifest: files, bytes, lines, hours."""
    manifest = os.path.join(folder, "MANIFEST.json")
    wanted = {"size_mb": size_mb, "brokers": BROKERS, "groups": GROUPS, "period_h": PERIOD_H,
              "noise_per_hour": NOISE_PER_HOUR, "app_lines_per_hour": APP_LINES_PER_HOUR, "base": BASE.isoformat()}
    if os.path.exists(manifest):
        with open(manifest) as f:
            done = json.load(f)
        if done["settings"] == wanted:
            return done
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    start, lib = time.perf_counter(), library()
    target, written, lines, hour = size_mb * (1 << 20), 0, 0, 0
    files: list[str] = []
    while written < target:
        for rel, body in hour_files(lib, hour).items():
            path = os.path.join(folder, rel)
            if path not in files:
                files.append(path)
                os.makedirs(os.path.dirname(path), exist_ok=True)
            text = "\n".join(body) + "\n"
            with open(path, "a") as f:
                f.write(text)
            written += len(text)
            lines += text.count("\n")
        hour += 1
        if progress:
            _bar(written, target, f"building {os.path.relpath(folder, ROOT)}", start)
    if progress:
        print(file=sys.stderr)
    done = {"settings": wanted, "files": sorted(os.path.relpath(f, folder) for f in files), "bytes": written,
            "lines": lines, "hours": hour, "build_s": round(time.perf_counter() - start, 1)}
    with open(manifest, "w") as f:
        json.dump(done, f, indent=1)
    return done


def _bar(done: float, total: float, label: str, start: float) -> None:
    share = min(1.0, done / total)
    bar = "#" * int(30 * share)
    sys.stderr.write(f"\r{label}: [{bar:<30}] {done / (1 << 20):,.0f}/{total / (1 << 20):,.0f} MB "
                     f"({100 * share:.0f}%), {time.perf_counter() - start:.0f} s")
    sys.stderr.flush()


def paths(folder: str, manifest: dict) -> list[str]:
    """What is given to the command: the brokers' folder (its server.log* files) and every client log."""
    return [os.path.join(folder, "brokers")] + [os.path.join(folder, f) for f in manifest["files"]
                                                if f.startswith("clients/")]


# -- measuring -----------------------------------------------------------------------------------------------
def command(args: list[str], out: str) -> dict:
    """`python -m kafkasim.analysis.cli diagnose ARGS` in a fresh process, stdout to `out`: exit status,
    wall time, peak RSS of the Python driver and of the JVM it starts (sampled every 0.5 s), stderr's tail."""
    import psutil

    start = time.perf_counter()
    with open(out, "w") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "kafkasim.analysis.cli", "diagnose", *args], cwd=ROOT,
                                stdout=stdout, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": ROOT})
        peaks = {"driver": 0, "jvm": 0, "workers": 0}
        stop = threading.Event()

        def sample():
            me = psutil.Process(proc.pid)
            while not stop.is_set():
                try:
                    peaks["driver"] = max(peaks["driver"], me.memory_info().rss)
                    jvm = workers = 0
                    for child in me.children(recursive=True):
                        try:
                            rss, name = child.memory_info().rss, " ".join(child.cmdline()[:1])
                        except psutil.Error:
                            continue
                        if name.endswith("java"):
                            jvm += rss
                        elif "python" in name:
                            workers += rss
                    peaks["jvm"] = max(peaks["jvm"], jvm)
                    peaks["workers"] = max(peaks["workers"], workers)
                except psutil.Error:
                    pass
                stop.wait(0.5)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        err = proc.communicate()[1]
        stop.set()
        sampler.join()
    return {"exit": proc.returncode, "wall_s": round(time.perf_counter() - start, 1),
            "driver_mb": peaks["driver"] >> 20, "jvm_mb": peaks["jvm"] >> 20, "workers_mb": peaks["workers"] >> 20,
            "stderr": err.strip().splitlines()[-3:]}


def same_answers(folder: str, manifest: dict, work: str) -> dict:
    """The slice through the command without and with --spark: identical --json and screens?"""
    given = paths(folder, manifest)
    plain = command([*given, "--json", os.path.join(work, "slice-python.json")], os.path.join(work, "slice-python.txt"))
    spark = command([*given, "--spark", "--master", "local[2]", "--json", os.path.join(work, "slice-spark.json")],
                    os.path.join(work, "slice-spark.txt"))
    read = {n: open(os.path.join(work, n)).read() for n in ("slice-python.json", "slice-spark.json",
                                                             "slice-python.txt", "slice-spark.txt")}
    report = json.loads(read["slice-python.json"])
    return {"python": plain, "spark": spark, "json_equal": read["slice-python.json"] == read["slice-spark.json"],
            "screen_equal": read["slice-python.txt"] == read["slice-spark.txt"], "groups": len(report["groups"]),
            "findings": len(report["findings"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=float, default=1024, help="the whole set (default 1024: 1 GB)")
    ap.add_argument("--slice-mb", type=float, default=30, help="the slice read both ways (default 30)")
    ap.add_argument("--build-only", action="store_true", help="build the sets and stop")
    ap.add_argument("--no-whole-python", dest="whole_python", action="store_false",
                    help="skip the whole set without Spark")
    args = ap.parse_args(argv)
    whole_dir, slice_dir = os.path.join(BUILD, "diagnose-spark"), os.path.join(BUILD, "diagnose-spark-slice")
    whole, part = build(whole_dir, args.size_mb), build(slice_dir, args.slice_mb)
    if args.build_only:
        print(json.dumps({"whole": {k: v for k, v in whole.items() if k != "files"},
                          "slice": {k: v for k, v in part.items() if k != "files"}}))
        return 0
    work = os.path.join(BUILD, "diagnose-spark-out")
    os.makedirs(work, exist_ok=True)
    load_before = os.getloadavg()
    check = same_answers(slice_dir, part, work)
    print(f"slice: json equal {check['json_equal']}, screen equal {check['screen_equal']}", file=sys.stderr)
    run = command([*paths(whole_dir, whole), "--spark", "--master", "local[2]", "--json",
                   os.path.join(work, "whole-spark.json")], os.path.join(work, "whole-spark.txt"))
    plain = None
    if args.whole_python:
        plain = command([*paths(whole_dir, whole), "--json", os.path.join(work, "whole-python.json")],
                        os.path.join(work, "whole-python.txt"))
        plain["same_report"] = all(open(os.path.join(work, f"whole-python.{x}")).read()
                                   == open(os.path.join(work, f"whole-spark.{x}")).read() for x in ("json", "txt"))
    load_after = os.getloadavg()
    report = json.load(open(os.path.join(work, "whole-spark.json"))) if run["exit"] == 0 else {"groups": [],
                                                                                              "findings": []}
    top = Counter(f["cause"] for f in report["findings"])
    result = {"machine": machine_info(), "load_1min_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
              "whole": {k: v for k, v in whole.items() if k != "files"} | {"files": len(whole["files"])},
              "slice": {k: v for k, v in part.items() if k != "files"} | {"files": len(part["files"])},
              "same_answers": check, "spark": run, "python": plain, "groups": len(report["groups"]),
              "findings": len(report["findings"]), "causes": dict(top.most_common())}
    with open(os.path.join(work, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))
    same = check["json_equal"] and check["screen_equal"] and (plain is None or plain["same_report"])
    return 0 if run["exit"] == 0 and same else 1


if __name__ == "__main__":
    sys.exit(main())
