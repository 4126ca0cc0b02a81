"""Work through the chapters in a real JupyterLab, as a new user would, in headless Chromium.

For each chapter: open it in JupyterLab (started from this project's .venv, on 127.0.0.1, with
the browser allowed to reach nothing else), Run All Cells from the Run menu, wait for the kernel,
save, and fail on any error output; then, for each live explorer (an ipywidgets output holding a
slider), press End on its first slider as a user would and require the explorer to redraw.
Screenshots of each explorer before and after go to SHOTS (default build/screenshots/lab/).

Chapters run with their CI parameters (papermill's injection, into copies under build/lab-check/)
unless --full is given, so the whole walk takes minutes, not an afternoon.

Usage: python tools/lab_check.py [--full] [--shots DIR] [NOTEBOOK ...]   (exit status 1 on a problem)
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from papermill.iorw import load_notebook_node
from papermill.parameterize import parameterize_notebook

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_check import CHROMIUM, DRAWN_JS, Chromium, Tab  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "lab-check"
RUN_TIMEOUT_S = float(os.environ.get("KAFKASIM_LAB_TIMEOUT", "900"))

# Every code cell has run ([n]) and none is queued or running ([*]); the kernel is idle.
DONE_JS = r"""
(() => {
  const prompts = [...document.querySelectorAll(".jp-Notebook .jp-CodeCell .jp-InputPrompt")].map((p) => p.textContent.trim());
  const status = document.querySelector(".jp-Notebook-ExecutionIndicator")?.getAttribute("data-status");
  return prompts.length > 0 && prompts.every((p) => /^\[\d+\]:$/.test(p)) && status === "idle";
})()
"""

IDLE_JS = 'document.querySelector(".jp-Notebook-ExecutionIndicator")?.getAttribute("data-status") === "idle"'

# The notebook's own kernel (not a kernel picker) has started and is idle.
KERNEL_READY_JS = "(() => " + IDLE_JS + r"""
  && !document.querySelector(".jp-Dialog")
  && /kafkasim/.test(document.querySelector(".jp-Toolbar-kernelName")?.textContent ?? "")
  && /Idle/.test(document.querySelector(".jp-StatusBar-Widget")?.parentElement?.textContent ?? ""))()
"""

# Click a Lumino menu-bar item, then an item of the menu it opens (by label).
MENU_BOX_JS = r"""
((selector, label) => {
  const el = [...document.querySelectorAll(selector)].find((e) => e.textContent.trim() === label);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
})(%s, %s)
"""

# Vega-Lite outputs drawn by JupyterLab's own Vega (canvas with more than one colour, or svg marks).
CHARTS_JS = r"""
(() => {""" + DRAWN_JS + r"""
  const charts = [...document.querySelectorAll(".jp-RenderedVegaLite, .jp-RenderedVega5, .jp-RenderedVegaCommon5")];
  return {charts: charts.length, drawn: charts.filter(drawn).length,
          html: document.querySelectorAll('.jp-RenderedHTMLCommon div[id^="altair-viz-"]').length};
})()
"""

# The output areas that hold an ipywidgets slider: the live explorers.
EXPLORERS_JS = r"""
(() => {
  const outputs = [...document.querySelectorAll(".jp-OutputArea-output")].filter((o) => o.querySelector(".jupyter-widgets .noUi-handle"));
  outputs.forEach((o, i) => o.setAttribute("data-lab-check", String(i)));
  return outputs.length;
})()
"""

BOX_JS = r"""
((i) => {
  const el = document.querySelector(`[data-lab-check="${i}"]`);
  el.scrollIntoView({block: "start"});
  const r = el.getBoundingClientRect();
  return {x: Math.max(r.left, 0), y: Math.max(r.top, 0), width: r.width, height: Math.min(r.height, 2400)};
})(%d)
"""

# Watch explorer i for redraws outside its sliders, focus its first slider's handle.
ARM_JS = r"""
((i) => {
  const el = document.querySelector(`[data-lab-check="${i}"]`);
  window.labCheckRedraws = 0;
  new MutationObserver((records) => {
    window.labCheckRedraws += records.filter((r) => !r.target.closest?.(".widget-slider, .widget-hslider, .widget-readout, .noUi-target")).length;
  }).observe(el, {childList: true, subtree: true, characterData: true});
  const handle = el.querySelector(".noUi-handle");
  handle.scrollIntoView({block: "center"});
  handle.focus();
  return {label: handle.closest(".widget-slider, .widget-hslider")?.querySelector(".widget-label")?.textContent ?? "",
          value: handle.getAttribute("aria-valuenow"), max: handle.getAttribute("aria-valuemax")};
})(%d)
"""


@dataclass
class NotebookReport:
    name: str
    problems: list[str] = field(default_factory=list)
    explorers: list[dict] = field(default_factory=list)
    screenshots: list[str] = field(default_factory=list)


def prepare(notebooks: list[Path], full: bool) -> Path:
    """A mirror of the repository under build/lab-check/ whose notebooks/ holds parameterised copies."""
    if WORK.exists():
        shutil.rmtree(WORK)
    WORK.mkdir(parents=True)
    for entry in ROOT.iterdir():  # relative paths in the chapters (../examples, ...) keep working
        if entry.name not in {"notebooks", "build", ".git", ".venv"}:
            (WORK / entry.name).symlink_to(entry)
    (WORK / "notebooks").mkdir()
    for path in notebooks:
        nb = load_notebook_node(str(path))  # as papermill reads it (every cell gets its tags list)
        if not full:
            nb = parameterize_notebook(nb, {"CI": True})
        nbformat.write(nb, WORK / "notebooks" / path.name)
    return WORK


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(root: Path) -> tuple[subprocess.Popen, str, str, Path]:
    """JupyterLab on 127.0.0.1 with a fresh workspace and settings, news and update checks off."""
    port, token = free_port(), secrets.token_hex(16)
    state = Path(tempfile.mkdtemp(prefix="kafkasim-lab-"))
    news = state / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text('{"fetchNews": "false", "checkForUpdates": false}')  # no "get notified?" prompt
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(state / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces")}
    args = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", f"--port={port}",
            "--ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if os.getuid() == 0:
        args.append("--allow-root")
    log = open(state / "lab.log", "w")
    proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{base}api/status?token={token}", timeout=2)
            return proc, base, token, state
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"JupyterLab did not start; see {state / 'lab.log'}")


def click(tab: Tab, point: dict) -> None:
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        tab.call("Input.dispatchMouseEvent", {"type": kind, "x": point["x"], "y": point["y"],
                                              "button": "left", "clickCount": 1})


def press(tab: Tab, key: str, code: int, modifiers: int = 0) -> None:
    for kind in ("rawKeyDown", "keyUp"):
        tab.call("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key if len(key) > 1 else f"Key{key.upper()}",
                                            "windowsVirtualKeyCode": code, "modifiers": modifiers})


def menu(tab: Tab, top: str, item: str) -> None:
    for selector, label in ((".lm-MenuBar-itemLabel", top), (".lm-Menu-itemLabel", item)):
        point = tab.evaluate(MENU_BOX_JS % (json.dumps(selector), json.dumps(label)))
        if point is None:
            raise RuntimeError(f"JupyterLab menu item {label!r} not found")
        click(tab, point)
        time.sleep(0.3)


def wait_for(tab: Tab, js: str, timeout: float) -> bool:
    def ok() -> bool:
        try:
            return bool(tab.evaluate(js, timeout=10))
        except (RuntimeError, TimeoutError):
            return False
    return tab.browser.wait(ok, timeout)


def accept_dialogs(tab: Tab) -> None:
    """Leaving a notebook JupyterLab thinks unsaved asks "leave the page?": say yes."""
    def on_event(message: dict) -> None:
        if message.get("sessionId") == tab.session and message.get("method") == "Page.javascriptDialogOpening":
            tab.browser.notify("Page.handleJavaScriptDialog", {"accept": True}, tab.session)
    tab.browser.handlers.append(on_event)


def shut_down_kernels(base: str, token: str) -> None:
    """One kernel at a time: the previous chapter's (and its Spark, if any) goes before the next opens."""
    with urllib.request.urlopen(f"{base}api/sessions?token={token}", timeout=30) as response:
        sessions = json.load(response)
    for session in sessions:
        request = urllib.request.Request(f"{base}api/sessions/{session['id']}?token={token}", method="DELETE")
        urllib.request.urlopen(request, timeout=60).close()


def check_notebook(tab: Tab, base: str, token: str, path: Path, shots: Path) -> NotebookReport:
    report = NotebookReport(path.name)
    tab.problems = []
    tab.call("Page.navigate", {"url": f"{base}lab/tree/notebooks/{path.name}?token={token}&reset"}, timeout=120)
    if not wait_for(tab, KERNEL_READY_JS, 120):
        report.problems.append("the notebook did not open with an idle kafkasim kernel in 120 s")
        return report
    menu(tab, "Run", "Run All Cells")
    if not wait_for(tab, DONE_JS, RUN_TIMEOUT_S):
        report.problems.append(f"Run All did not finish in {RUN_TIMEOUT_S:.0f} s")
    press(tab, "s", 83, modifiers=2)  # Ctrl+S, so the outputs can be read back from the file
    time.sleep(2)
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                report.problems.append(f"cell {i}: {out.get('ename')}: {out.get('evalue')}")
    charts = tab.evaluate(CHARTS_JS)
    report.explorers.append({"charts": charts})
    if charts["drawn"] < charts["charts"]:
        report.problems.append(f"{charts['charts'] - charts['drawn']} of {charts['charts']} charts did not draw")
    if charts["html"]:
        report.problems.append(f"{charts['html']} charts came as HTML (they need a CDN): is kafkasim.viz imported?")
    stem = path.stem
    for i in range(tab.evaluate(EXPLORERS_JS)):
        before = shots / f"{stem}--explorer{i}.png"
        tab.screenshot(before, tab.evaluate(BOX_JS % i))
        slider = tab.evaluate(ARM_JS % i)
        press(tab, *(("Home", 36) if slider["value"] == slider["max"] else ("End", 35)))
        redrawn = wait_for(tab, "window.labCheckRedraws > 0", 120)
        wait_for(tab, IDLE_JS, 120)
        time.sleep(1.0)  # let the charts draw
        after = shots / f"{stem}--explorer{i}-moved.png"
        tab.screenshot(after, tab.evaluate(BOX_JS % i))
        report.screenshots += [before.name, after.name]
        report.explorers.append({**slider, "redrawn": redrawn})
        if not redrawn:
            report.problems.append(f"explorer {i}: moving slider {slider['label']!r} did not redraw it")
    report.problems += [p for p in tab.problems if "net::ERR_ABORTED" not in p]  # cancelled by the page itself
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--full", action="store_true", help="run the chapters at full size (no CI parameters)")
    parser.add_argument("--shots", type=Path, default=ROOT / "build" / "screenshots" / "lab")
    args = parser.parse_args()
    notebooks = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    root = prepare(notebooks, args.full)
    if args.shots.exists():
        shutil.rmtree(args.shots)
    args.shots.mkdir(parents=True)
    proc, base, token, state = start_lab(root)
    browser = Chromium(os.environ.get("CHROMIUM", CHROMIUM))
    try:
        tab = Tab(browser, base, render_timeout=60)
        accept_dialogs(tab)
        reports = []
        for path in notebooks:
            reports.append(check_notebook(tab, base, token, root / "notebooks" / path.name, args.shots))
            shut_down_kernels(base, token)
            r = reports[-1]
            print(f"{'FAIL' if r.problems else 'ok  '} {r.name}  explorers: {json.dumps(r.explorers)}", flush=True)
            for problem in r.problems:
                print(f"       {problem}", flush=True)
    finally:
        browser.close()
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(state, ignore_errors=True)
    print(f"{len(reports)} notebooks, screenshots in {args.shots}")
    sys.exit(1 if any(r.problems for r in reports) else 0)


if __name__ == "__main__":
    main()
