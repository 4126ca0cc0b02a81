"""`make mutation`: mutation testing of the models with mutmut, and a kill ratio per module.

    make mutation                          # a seeded sample of mutants per module (SAMPLE, default 150)
    make mutation SAMPLE=0                 # every mutant (hours on two cores)
    make mutation SAMPLE=0 RESUME=1        # go on with a run that was stopped, here or on another machine
    make mutation SAMPLE=0 RESUME=survived # ... and check its survivors again (tests were added)
    make mutation SAMPLE=0 ALONE=timeouts  # rerun alone only timeouts and survivors run at import
    make mutation ONLY=kafkasim.coordinator,kafkasim.client.assignors   # modules whose names start so
    .venv/bin/python tools/mutation.py --report-only ...   # the report again, from the last results

mutmut copies the package into `mutants/`, puts one small change at a time into it (a `<` for a
`<=`, a constant off by one, a call's argument dropped, ...) and runs the tests that execute the
changed function; a change that no test notices "survives". What is mutated, and which test files
may kill the mutants, are in pyproject.toml's `[tool.mutmut]`. The report (stdout and
`build/mutation/report.md`) gives per module the mutants checked, killed (a test failed or timed
out), survived, and the kill ratio, then each survivor with its diff (`mutmut show NAME`).
Timeouts count as killed: the change made a test run away, which the test's time limit catches.
But mutmut's verdicts are not final: its limit trips on a loaded machine with the tests unchanged,
and its forked children import the package before a mutant is switched on, so a factory run at
import keeps the unmutated code. Every timeout and every survivor is therefore run again alone in
a fresh process (`alone`), limited only by the tests' own time limits, and that verdict is counted;
`--alone all` reruns the kills too.
Every run ends by writing its verdicts into `tools/mutation_verdicts.tsv` (`keep`), and a resumed run
first gives mutmut back those of every function whose code is unchanged (`restore`): commit the file,
and a full run, longer than a working day on two cores, goes on from a fresh clone on another machine.
A survivor listed in `tools/equivalent_mutants.toml` (no input can tell its change from the code,
said why there) counts apart, as equivalent, while its change is still the one listed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTMUT = [sys.executable, "-m", "mutmut"]
REPORT = ROOT / "build" / "mutation" / "report.md"
EQUIVALENT = ROOT / "tools" / "equivalent_mutants.toml"
#: Parts of the models whose kill ratio the project holds at this target or above (issues 21 and
#: 29), by module prefix; a module counts in the first part whose prefix it has.
TARGET = 0.90
AREAS = {"assignors": ("kafkasim.client.assignors", "kafkasim.coordinator.assignor"),
         "log parser": ("kafkasim.analysis.logs",),
         "share groups": ("kafkasim.coordinator.modern.share", "kafkasim.coordinator.modern.assignment_interval",
                          "kafkasim.coordinator.modern.group_config", "kafkasim.client.share_consumer",
                          "kafkasim.scenario.share"),
         "migration and consumer groups": ("kafkasim.coordinator.migration", "kafkasim.coordinator.modern.consumer"),
         "coordinator": ("kafkasim.coordinator",),
         "client": ("kafkasim.client",),
         "broker": ("kafkasim.broker",),
         "zookeeper": ("kafkasim.zookeeper",),
         "scenario": ("kafkasim.scenario",),
         "faults": ("kafkasim.core.faults",),
         "config": ("kafkasim.core.config",),
         "spark analysis": ("kafkasim.analysis.spark",),
         "sweep grid": ("kafkasim.analysis.sweep_grid",),
         "diagnose": ("kafkasim.analysis.diagnose",),
         "cli": ("kafkasim.analysis.cli",),
         "viz data": ("kafkasim.viz",)}
TARGETED = tuple(p for prefixes in AREAS.values() for p in prefixes)
#: Of `viz/`, only what a chart is fed is held to the target, not how it looks: these modules are
#: all styling or browser glue, and a function whose name ends so builds a Vega-Lite spec.
VIZ_STYLING_MODULES = ("kafkasim.viz.style", "kafkasim.viz.render", "kafkasim.viz.widgets", "kafkasim.viz.sliders",
                       "kafkasim.viz.charts", "kafkasim.viz.spec", "kafkasim.viz.__init__")
VIZ_STYLING_FUNCTION = re.compile(r".*(_spec|_chart|_explorer|_map|diagram|_timeline|_html|_matrix|_bands|_rules"
                                  r"|scrubber|scrubbed|_scale|_axis|_heatmap|_panels|_layers|_tips|time_x|_step)$")
#: Outside `viz/`, the charts' specs (their rows come from a data function held to the target).
CHART_FUNCTIONS = {"kafkasim.analysis.diagnose.replay": ("replay_chart",),  # rows: replay_rows
                   "kafkasim.analysis.diagnose.html": ("_timeline_spec", "_sequence_spec")}  # rows: _*_rows
#: Of `analysis.spark`, the analysis (what a sweep's or a log's events are turned into) is held to
#: the target, not the session, shipping and progress plumbing around Spark.
SPARK_ANALYSIS = ("_keys", "_order", "group_states", "rebalance_episodes", "member_states", "time_in_state",
                  "rebalance_rate", "_with_derived", "_params", "by_parameters", "safe_region")
_LINE = re.compile(r"\s*(\S+): (.+)")
_MODULE = re.compile(r"(.+?)\.x(?:ǁ|_)")
_FUNCTION = re.compile(r".+?\.x(?:ǁ[^ǁ]+ǁ|_)(.+?)__mutmut_\d+$")
KILLED = ("killed", "timeout")
ALONE = Path("build") / "mutation" / "alone.json"  # under ROOT
#: The verdicts kept between machines (`keep`, `restore`): a full run outlasts a working session, and
#: `mutants/` does not leave the machine it ran on.
VERDICTS = Path("tools") / "mutation_verdicts.tsv"  # under ROOT
_HEADER = ("# tools/mutation.py's kept verdicts (`keep`): a mutated function, its code's hash (mutmut's), and per mutant\n"
           "# number mutmut's exit code (- for none), with /k or /s where it was run again alone (killed, survived).\n")
#: mutmut's verdicts that are run again alone by default.
DOUBTFUL = ("timeout", "survived")


def mutmut(*args: str, quiet: bool = False) -> str:
    """Run mutmut in the project's root; its output (progress goes to the terminal unless `quiet`)."""
    done = subprocess.run([*MUTMUT, *args], cwd=ROOT, text=True, stdout=subprocess.PIPE if quiet else None,
                          stderr=subprocess.DEVNULL if quiet else None)
    if done.returncode not in (0, 1):
        raise SystemExit(f"mutation: `mutmut {' '.join(args[:3])}` failed with exit status {done.returncode}")
    return done.stdout or ""


@contextmanager
def connect_server():
    """One Spark Connect server (local[2]) for the whole run, which the tests' `spark` fixture uses instead
    of a local session (KAFKASIM_TEST_SPARK_REMOTE): mutmut forks a process per mutant, and starting a JVM in
    each made a mutant whose tests use Spark take 25 s instead of 6. Every child joins one server-side
    session (`session_id`), whose Python workers are then started once, not in each child (7 s a child).
    The server's executors run the package unmutated (the mutant is switched on in the test's own
    process only): code that runs inside `mapInPandas` is judged by the tests that call it directly."""
    import uuid

    sys.path.insert(0, str(ROOT / "tests"))
    from spark_helpers import connect_server as server

    with server(ROOT / "build" / "mutation" / "spark-connect") as url:
        os.environ["KAFKASIM_TEST_SPARK_REMOTE"] = f"{url}/;session_id={uuid.uuid4()}"
        try:
            yield url
        finally:
            del os.environ["KAFKASIM_TEST_SPARK_REMOTE"]


def check(names: list[str], children: int) -> None:
    """mutmut's verdict for each of `names`, in one mutmut run (one clean run of their tests), which
    reads them from a file (`mutmut_names.py`: a full run's 47,000 fit in no command line)."""
    if not names:
        return
    listed = ROOT / "build" / "mutation" / "names.txt"
    listed.parent.mkdir(parents=True, exist_ok=True)
    listed.write_text("\n".join(names))
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("mutmut_names.py")), str(children),
                           str(listed)], cwd=ROOT)
    if done.returncode not in (0, 1):
        raise SystemExit(f"mutation: `mutmut run` failed with exit status {done.returncode}")


def forget(names: set[str], mutants: Path = ROOT / "mutants") -> int:
    """Drop mutmut's verdicts on `names` (from its `.meta` files), so that a resumed run checks them
    again: mutmut itself forgets a verdict only when the function's code changes, not when a test
    that kills the mutant is added. Returns how many were dropped."""
    dropped = 0
    for meta, data in _metas(mutants):
        codes = data["exit_code_by_key"]
        mine = names.intersection(codes)
        if mine:
            codes.update(dict.fromkeys(mine))
            meta.write_text(json.dumps(data, indent=4))
            dropped += len(mine)
    return dropped


def _metas(mutants: Path):
    """(path, data) of each of mutmut's `.meta` files, read again if caught half-written by a running mutmut."""
    for meta in sorted(mutants.rglob("*.meta")):
        for attempt in range(5):
            try:
                yield meta, json.loads(meta.read_text())
                break
            except json.JSONDecodeError:
                if attempt == 4:
                    raise


def _split(name: str) -> tuple[str, int]:
    """A mutant's function (module-qualified, as mutmut names it) and number."""
    function, _, number = name.rpartition("__mutmut_")
    return function, int(number)


def _hash_of(data: dict, function: str) -> str | None:
    """mutmut's hash of a function's code, from its module's `.meta` data (which names it unqualified)."""
    return data.get("hash_by_function_name", {}).get(function.rpartition(".")[2])


def _places(mutants: Path | None, path: Path | None, alone_path: Path | None) -> tuple[Path, Path, Path]:
    """mutmut's folder, the kept verdicts and the verdicts run alone: these, or the run's own under ROOT."""
    return mutants or ROOT / "mutants", path or ROOT / VERDICTS, alone_path or ROOT / ALONE


def _kept(path: Path) -> dict[str, tuple[str, list[str]]]:
    """{function: (hash, tokens)} from a verdict file."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return {f: (h, tokens.split()) for f, h, tokens in (line.split("\t") for line in lines if not line.startswith("#"))}


def keep(mutants: Path | None = None, path: Path | None = None, alone_path: Path | None = None) -> int:
    """Write mutmut's verdicts (and those run alone) into `path`, one line per mutated function, so that
    a run on another machine can `restore` them. A function seen in `mutants/` replaces its line, but
    where its code is unchanged a verdict mutmut no longer has is the kept one: mutmut forgets every
    verdict when `[tool.mutmut]`'s test selection changes. The lines of others stay. Returns the
    verdicts written for the functions seen."""
    mutants, path, alone_path = _places(mutants, path, alone_path)
    kept = _kept(path)
    alone_verdicts = {n: v["verdict"][0] for n, v in json.loads(alone_path.read_text()).items()} \
        if alone_path.exists() else {}
    seen = 0
    for _, data in _metas(mutants):
        codes: dict[str, dict[int, str]] = defaultdict(dict)
        for name, code in data["exit_code_by_key"].items():
            function, number = _split(name)
            token = "-" if code is None else str(code)
            if name in alone_verdicts:
                token += "/" + alone_verdicts[name]
            codes[function][number] = token
            seen += code is not None
        for function, by_number in codes.items():
            digest = _hash_of(data, function) or ""
            was = kept[function][1] if function in kept and kept[function][0] == digest else []
            tokens = [by_number.get(n, "-") for n in range(1, max(by_number) + 1)]
            kept[function] = (digest, [t if t != "-" or n >= len(was) else was[n] for n, t in enumerate(tokens)])
    lines = (f"{f}\t{h}\t{' '.join(tokens)}\n" for f, (h, tokens) in sorted(kept.items())
             if any(t != "-" for t in tokens))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_HEADER + "".join(lines), encoding="utf-8")
    return seen


def restore(mutants: Path | None = None, path: Path | None = None, alone_path: Path | None = None) -> int:
    """Give mutmut back the kept verdicts of every function whose code is unchanged (same hash), where
    it has none, and the verdicts run alone with their changes. Returns how many were restored."""
    mutants, path, alone_path = _places(mutants, path, alone_path)
    kept = _kept(path)
    alone_kept = json.loads(alone_path.read_text()) if alone_path.exists() else {}
    restored = 0
    for meta, data in _metas(mutants):
        codes, given = data["exit_code_by_key"], 0
        for name, code in codes.items():
            function, number = _split(name)
            line = kept.get(function)
            if code is not None or not line or line[0] != _hash_of(data, function) or number > len(line[1]):
                continue
            token, _, alone_verdict = line[1][number - 1].partition("/")
            if token == "-":
                continue
            codes[name] = int(token)
            given += 1
            if alone_verdict and name not in alone_kept:
                alone_kept[name] = {"change": added_lines(mutmut("show", name, quiet=True)),
                                    "verdict": {"k": "killed", "s": "survived"}[alone_verdict]}
        if given:
            meta.write_text(json.dumps(data, indent=4))
            restored += given
    if alone_kept:
        alone_path.parent.mkdir(parents=True, exist_ok=True)
        alone_path.write_text(json.dumps(alone_kept, indent=1, ensure_ascii=False))
    return restored


def results() -> dict[str, str]:
    """Every generated mutant's status, by name."""
    return {m.group(1): m.group(2) for m in map(_LINE.fullmatch, mutmut("results", "--all", "true", quiet=True)
                                               .splitlines()) if m}


def equivalents(status: dict[str, str], path: Path = EQUIVALENT) -> dict[str, str]:
    """Survivors listed as equivalent whose change is still the listed one: {name: why}. A listed
    mutant whose change differs now (the code moved under it) stays a survivor, with a warning."""
    listed = tomllib.loads(path.read_text())["equivalent"] if path.exists() else []
    found = {}
    for entry in listed:
        name = entry["mutant"]
        if status.get(name) not in ("survived", "no tests"):
            continue
        if entry["change"] in added_lines(mutmut("show", name, quiet=True)):
            found[name] = entry["why"]
        else:
            print(f"mutation: {name} is listed as equivalent but its change is no longer "
                  f"{entry['change']!r}: check it again", file=sys.stderr)
    return found


def added_lines(diff: str) -> list[str]:
    """The lines a mutant's diff (`mutmut show`) puts in, stripped."""
    return [line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


def alone(names: list[str], status: dict[str, str], which: tuple[str, ...] = DOUBTFUL,
          path: Path | None = None, run: bool = True, children: int = 1) -> dict[str, str]:
    """Each of `names` whose mutmut verdict is in `which`, run again by itself: its tests (`tests_of`)
    in a fresh process with the mutant switched on from the start
    (`MUTANT_UNDER_TEST`), so that code run at import is mutated too, and no limit but the tests'
    own (pytest-timeout); `children` at a time. Returns {name: "killed" | "survived"}; verdicts are
    kept in `path` with the mutant's change and reused while the change is the same (only those
    when not `run`)."""
    path = path or ROOT / ALONE
    kept = json.loads(path.read_text()) if path.exists() else {}
    changes = {n: added_lines(mutmut("show", n, quiet=True)) for n in names if status.get(n) in which}
    todo = [n for n, change in changes.items() if kept.get(n, {}).get("change") != change] if run else []
    selection = _selection() if todo else {}
    with ThreadPoolExecutor(max(1, children)) as pool:
        done = pool.map(lambda n: _run_alone(n, tests_of(n, selection)), todo)
        for i, (name, verdict) in enumerate(zip(todo, done), 1):
            print(f"mutation: alone {i}/{len(todo)}: {name} {verdict}", file=sys.stderr)
            kept[name] = {"change": changes[name], "verdict": verdict}
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(kept, indent=1, ensure_ascii=False))
    return {n: kept[n]["verdict"] for n, change in changes.items() if kept.get(n, {}).get("change") == change}


def run_at_import(tests: list[str] | None = None, where: Path = ROOT / "mutants") -> set[str]:
    """The functions (mangled, as mutmut names them) that run only while pytest imports the tests
    (`mutmut_import_only.py`: the selected tests once more, every call recorded). mutmut's
    children are forked with the package imported, so they never run such a function's mutants,
    and mutmut maps it to whichever test a stats run began with: its survivors are no verdicts."""
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("mutmut_import_only.py")),
                           *(list(_selection()) if tests is None else tests)],
                          cwd=where, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"mutation: finding the functions run at import failed:\n{done.stderr[-2000:]}")
    return set(json.loads(done.stdout.splitlines()[-1]))


def tests_of(name: str, selection: dict[str, str] | None = None) -> list[str]:
    """The tests to run a mutant alone with: those mutmut maps to its function, then every selected
    test file named after its module or importing it (or, below `kafkasim.x`, its package, which
    imports it). mutmut maps a function run at import (a factory filling a table) to whichever test
    happened to import it first, which may not use the table at all."""
    mapped = mutmut("tests-for-mutant", name, quiet=True).splitlines()
    module = module_of(name)
    package, _, short = module.rpartition(".")
    named = f"from {re.escape(package)} import (\\([^)]*|.*)\\b{re.escape(short)}\\b|(from|import) {re.escape(module)}\\b"
    if package.count(".") >= 2:
        named += f"|(from|import) {re.escape(package)}\\b"
    imports = re.compile(rf"^\s*({named})", re.M)
    own = re.compile(rf"tests/test_\w*{re.escape(short)}\w*\.py")
    files = [f for f, text in (_selection() if selection is None else selection).items()
             if imports.search(text) or own.fullmatch(f)]
    files.sort(key=lambda f: not own.fullmatch(f))  # the module's own tests first: -x stops at the first failure
    return mapped + [f for f in files if not any(test.startswith(f + "::") for test in mapped)]


def _selection() -> dict[str, str]:
    """{path: text} of the test files `[tool.mutmut]` selects."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    return {f: (ROOT / f).read_text() for f in config["pytest_add_cli_args_test_selection"]}


def _run_alone(name: str, tests: list[str]) -> str:
    """"killed" when the tests fail with the mutant on, "survived" when all pass (or none runs it).
    Any failure counts, as for mutmut: a mutant run at import can stop pytest from collecting a test
    module (exit status 2 or 4); the tests passed unmutated before (mutmut's clean run)."""
    if not tests:
        return "survived"
    done = subprocess.run([sys.executable, "-m", "pytest", "--rootdir=.", "-x", "-q", "-p", "no:randomly",
                           "-p", "no:cacheprovider", *tests], cwd=ROOT / "mutants", stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, env={**os.environ, "MUTANT_UNDER_TEST": name})
    return "survived" if done.returncode == 0 else "killed"


def module_of(name: str) -> str:
    m = _MODULE.match(name)
    return m.group(1) if m else name.rsplit(".", 1)[0]


def function_of(name: str) -> str:
    """The function or method a mutant changes (`x_f__mutmut_3`: f; `xǁCǁm__mutmut_3`: m)."""
    m = _FUNCTION.match(name)
    return m.group(1) if m else ""


def is_model(name: str) -> bool:
    """Whether a mutant is held to the target: everywhere but in the styling of `viz/` (and of
    CHART_FUNCTIONS) and the Spark plumbing of `analysis.spark`."""
    module = module_of(name)
    if function_of(name) in CHART_FUNCTIONS.get(module, ()):
        return False
    if module == "kafkasim.analysis.spark":
        return function_of(name) in SPARK_ANALYSIS
    if not module.startswith("kafkasim.viz"):
        return True
    if module == "kafkasim.viz":  # mutmut names a package's __init__.py by the package alone
        module = "kafkasim.viz.__init__"
    return not module.startswith(VIZ_STYLING_MODULES) and not VIZ_STYLING_FUNCTION.match(function_of(name))


def choose(names: list[str], sample: int, only: str | None, seed: int = 0) -> list[str]:
    """The mutants to check: those of modules starting with one of `only` (comma-separated),
    `sample` per module (all when 0); the styling of `viz/` and Spark's plumbing are left out (`is_model`)."""
    prefixes = tuple(only.split(",")) if only else ("",)
    by_module = defaultdict(list)
    for name in sorted(names):
        if module_of(name).startswith(prefixes) and is_model(name):
            by_module[module_of(name)].append(name)
    picked = []
    for module, group in sorted(by_module.items()):
        picked += group if not sample or len(group) <= sample else random.Random(f"{seed}/{module}").sample(group,
                                                                                                           sample)
    return picked


def report(status: dict[str, str], names: list[str], equivalent: dict[str, str] | None = None) -> str:
    """The table per module (kill ratio: killed / (checked - equivalent)), then every survivor and
    every equivalent mutant with why."""
    equivalent = equivalent or {}
    per = defaultdict(Counter)
    for name in names:
        per[module_of(name)]["equivalent" if name in equivalent else status.get(name, "not checked")] += 1
    lines = ["| module | checked | killed | survived | equivalent | kill ratio | target |",
             "|---|---:|---:|---:|---:|---:|---|"]
    rows = {module: Counter(checked=sum(n for s, n in counts.items() if s != "not checked"),
                            killed=sum(counts[s] for s in KILLED), equivalent=counts["equivalent"])
            for module, counts in sorted(per.items())}
    for module, row in rows.items():
        lines.append(f"| {module} | {_cells(row)} | {_target(module, row)} |")
    total = sum(rows.values(), Counter())
    if total["checked"]:
        lines.append(f"| all | {_cells(total)} | |")
    lines += ["", "| part | checked | killed | survived | equivalent | kill ratio | target |",
              "|---|---:|---:|---:|---:|---:|---|"]
    for area, row in _areas(rows).items():
        lines.append(f"| {area} | {_cells(row)} | {_target(area, row, always=True)} |")
    survivors = [n for n in names if status.get(n) not in (*KILLED, "not checked") and n not in equivalent]
    lines += ["", f"Survivors ({len(survivors)}): `python -m mutmut show NAME` prints each one's change.", ""]
    lines += [f"- `{n}` ({status[n]})" for n in survivors]
    listed = [n for n in names if n in equivalent]
    lines += ["", f"Equivalent ({len(listed)}, `tools/equivalent_mutants.toml`):", ""]
    lines += [f"- `{n}`: {' '.join(equivalent[n].split())}" for n in listed]
    return "\n".join(lines) + "\n"


def _areas(rows: dict[str, Counter]) -> dict[str, Counter]:
    """The module rows of each targeted part (`AREAS`), summed."""
    areas = {area: Counter() for area in AREAS}
    for module, row in rows.items():
        area = next((a for a, prefixes in AREAS.items() if module.startswith(prefixes)), None)
        if area:
            areas[area].update(row)
    return {area: row for area, row in areas.items() if row["checked"]}


def _ratio(row: Counter) -> float | None:
    judged = row["checked"] - row["equivalent"]
    return row["killed"] / judged if judged else None


def _cells(row: Counter) -> str:
    ratio = _ratio(row)
    survived = row["checked"] - row["killed"] - row["equivalent"]
    return (f"{row['checked']} | {row['killed']} | {survived} | {row['equivalent']} | "
            f"{'-' if ratio is None else f'{ratio:.1%}'}")


def _target(module: str, row: Counter, always: bool = False) -> str:
    ratio = _ratio(row)
    if not (always or module.startswith(TARGETED)) or ratio is None:
        return ""
    return f">= {TARGET:.0%}: {'met' if ratio >= TARGET else 'NOT met'}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=int(os.environ.get("SAMPLE") or 150),
                    help="mutants per module, chosen with a fixed seed (0: all)")
    ap.add_argument("--only", default=os.environ.get("ONLY") or None,
                    help="modules whose names start with one of these (comma-separated)")
    ap.add_argument("--children", type=int, default=os.cpu_count() or 2, help="mutants checked in parallel")
    ap.add_argument("--alone", choices=("doubtful", "timeouts", "all"), default="doubtful",
                    help="which of mutmut's verdicts to check again alone: timeouts and survivors (doubtful); "
                         "timeouts and the survivors of functions run at import (for a full run: all its "
                         "survivors alone take a day, and can only turn into kills); or all")
    ap.add_argument("--resume", nargs="?", const="yes", choices=("yes", "survived"),
                    default=os.environ.get("RESUME") or None,
                    help="check only the chosen mutants without a verdict yet (a long run stopped with Ctrl-C "
                         "goes on; mutmut forgets the verdicts of a function whose code changed); `survived`: "
                         "its survivors and untested mutants too (after tests were added)")
    ap.add_argument("--spark", choices=("connect", "local"), default="connect",
                    help="the Spark the tests use: one Spark Connect server for the run (connect), or a local "
                         "session started by each mutant's tests (local: slower; executors see the mutant)")
    ap.add_argument("--report-only", action="store_true",
                    help="write the report from the last run's results (after editing the equivalent mutants)")
    args = ap.parse_args(argv)
    with connect_server() if args.spark == "connect" and not args.report_only else nullcontext():
        return run(args)


def run(args: argparse.Namespace) -> int:
    """`main` with its arguments read (and the Spark Connect server, if any, running)."""
    if not args.report_only:
        if args.resume:  # the verdicts of a run stopped without Ctrl-C, before mutmut can forget them
            keep()
        # mutmut generates every mutant and maps tests to functions on its first run: a run that
        # selects no mutant does only that, and lists them all (through `mutmut_names`, whose mapping
        # of functions new since the stored stats must see them before a plain run stores them).
        check(["kafkasim.no_such_module.*"], args.children)
        if args.resume:
            print(f"mutation: {restore():,} verdicts kept in {VERDICTS} restored (functions whose "
                  "code is unchanged)", file=sys.stderr)
    status = results()
    names = choose(list(status), args.sample, args.only)
    if not names:
        raise SystemExit(f"mutation: no mutant in modules starting with {args.only!r}")
    if not args.report_only:
        if args.resume == "survived":
            print(f"mutation: {forget({n for n in names if status[n] in ('survived', 'no tests')}):,} survivors "
                  "and untested mutants to check again", file=sys.stderr)
            status = results()
        todo = [n for n in names if status[n] == "not checked"] if args.resume else names
        print(f"mutation: checking {len(todo):,} of {len(names):,} mutants", file=sys.stderr)
        try:
            check(todo, args.children)
        except KeyboardInterrupt:
            keep()
            raise SystemExit(f"mutation: stopped; the verdicts so far are kept (also in {VERDICTS}, "
                             "for another machine), and the same command with RESUME=1 (--resume) goes on from "
                             "there") from None
    status = results()
    if not any(status.get(n, "not checked") != "not checked" for n in names):
        raise SystemExit("mutation: no mutant was checked (see mutmut's output above: the tests must pass "
                         "unmutated first)")
    doubtful = names
    if args.alone == "timeouts":
        at_import = run_at_import()
        doubtful = [n for n in names if status[n] != "survived" or n.rpartition("__mutmut_")[0] in at_import]
    rerun = alone(doubtful, status, (*KILLED, "survived") if args.alone == "all" else DOUBTFUL,
                  run=not args.report_only, children=args.children)
    changed = sum(status[n] != v and not (status[n] in KILLED and v == "killed") for n, v in rerun.items())
    status.update(rerun)
    keep()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True, capture_output=True).stdout
    text = (f"Mutation testing of commit {commit.strip() or '(unknown)'}: {args.sample or 'every'} mutant(s) per "
            f"module{f' of {args.only}' if args.only else ''}. Run again alone: {len(rerun)} "
            f"(`--alone {args.alone}`), {changed} of them with another verdict than mutmut's.\n\n"
            + report(status, names, equivalents(status)))
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text)
    print(text)
    print(f"(written to {REPORT.relative_to(ROOT)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
