"""Open every page of a built site in headless Chromium, offline, and report what went wrong.

The site is served on 127.0.0.1; the browser may reach nothing else: every request goes through
the DevTools protocol's Fetch interception, which lets the site's own URLs through and fails (and
records) any other, and ``--host-resolver-rules`` makes every other host name unresolvable as a
second fence. For each page the check records console errors, uncaught exceptions, failed or
blocked requests and HTTP errors, and inspects the rendered page: Altair charts that did not draw
(an empty vega container), are cut off (drawn wider than their cell) or print text over text (the
bounding boxes of the text of a chart's SVG overlap), ipywidgets, MathJax, solutions hidden behind
a toggle, and links to placeholders (your-org, example.com, TODO). The layout is checked on a
1366-px laptop screen and a 390-px phone: the page must not scroll sideways, no table may hide
columns (a wide table scrolls inside its own box) and no code block may scroll sideways (code
wraps). It then exercises what should work without a kernel (moving each chart's bound slider
must redraw the chart, its labels still apart; moving a jslinked widget must update its
partner; opening a hidden solution must show an executed output) and saves screenshots for review. A widget
control that no jslink moves and that is not disabled fails the page: without a kernel it would look
alive and do nothing (a live explorer must show its picture instead, see book/_ext/kafkasim_book.py).

Chromium is driven through ``--remote-debugging-pipe`` (the DevTools protocol over two file
descriptors), so nothing beyond the standard library and the browser is needed.

Usage: python tools/site_check.py SITE_DIR SCREENSHOT_DIR   (exit status 1 if any page has a problem)
"""

from __future__ import annotations

import base64
import fcntl
import functools
import http.server
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
    "--disable-extensions", "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
WIDTH, HEIGHT = 1366, 900  # a common laptop screen
PHONE_WIDTH, PHONE_HEIGHT = 390, 844  # a phone, held upright
#: Link targets that are placeholders, not addresses (a repository URL never set, an example).
PLACEHOLDERS = ("your-org", "example.com", "TODO")
MAX_SHOT_HEIGHT = 15000  # px; Chromium cannot capture much taller pages in one image
RENDER_TIMEOUT_S = 20.0


# -- the page's own view of itself (evaluated in the page) -------------------------------------
# Did a vega chart draw: a canvas of more than one colour, or svg marks (also used by lab_check.py).
DRAWN_JS = r"""
  const drawn = (chart) => {
    const canvas = chart.querySelector("canvas");
    if (canvas && canvas.width > 0 && canvas.height > 0) {
      const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      const colours = new Set();
      for (let i = 0; i < data.length && colours.size < 3; i += 4 * 97) colours.add(data.slice(i, i + 4).join());
      return colours.size > 1;
    }
    const svg = chart.querySelector("svg.marks");
    return !!svg && svg.querySelectorAll("path, rect, line, text").length > 0;
  };
"""

# Controls of the page's widgets (reached from a widget view through the saved widget state) that no
# jslink moves and that are not disabled: without a kernel they look alive and do nothing.
DEAD_CONTROLS_JS = r"""
  const deadControls = () => {
    const models = {};
    for (const s of document.querySelectorAll('script[type="application/vnd.jupyter.widget-state+json"]')) {
      try { Object.assign(models, JSON.parse(s.textContent).state || {}); } catch (e) { /* not ours to judge */ }
    }
    const linked = new Set();
    for (const m of Object.values(models)) {
      if (/LinkModel$/.test(m.model_name || "")) {
        for (const end of [m.state?.source, m.state?.target]) if (end) linked.add(String(end[0]).replace("IPY_MODEL_", ""));
      }
    }
    const seen = new Set(), dead = [];
    const visit = (id) => {
      if (seen.has(id) || !models[id]) return;
      seen.add(id);
      const state = models[id].state || {}, name = models[id].model_name || "";
      const control = ("value" in state && "disabled" in state) || name === "ButtonModel";
      if (control && !state.disabled && !linked.has(id)) dead.push(`${name} ${state.description || ""}`.trim());
      (JSON.stringify(state).match(/IPY_MODEL_[\w-]+/g) || []).forEach((ref) => visit(ref.slice(10)));
    };
    for (const s of document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')) {
      try { visit(JSON.parse(s.textContent).model_id); } catch (e) { /* idem */ }
    }
    return dead;
  };
"""

INSPECT_JS = r"""
(() => {""" + DRAWN_JS + DEAD_CONTROLS_JS + r"""  const charts = [...document.querySelectorAll('div[id^="altair-viz-"]')];
  const solutions = [...document.querySelectorAll("details.hide")]
    .filter((d) => d.querySelector("summary")?.textContent.includes("Show solution"));
  return {
    charts: charts.length,
    chartsDrawn: charts.filter(drawn).length,
    chartErrors: charts.filter((c) => c.querySelector(".error")).length,
    chartsCutOff: charts.filter((c) => {  // drawn wider than the cell output that holds it
      const drawing = c.querySelector("canvas, svg.marks"), cell = c.closest(".cell_output");
      return drawing && cell && drawing.getBoundingClientRect().right > cell.getBoundingClientRect().right + 1;
    }).length,
    chartSliders: charts.reduce((n, c) => n + c.querySelectorAll('.vega-bindings input[type="range"]').length, 0),
    widgetViews: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    widgetsRendered: document.querySelectorAll(".jupyter-widgets").length,
    widgetLinks: [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-state+json"]')]
      .reduce((n, s) => n + (s.textContent.match(/"model_name": ?"LinkModel"/g) || []).length, 0),
    deadControls: deadControls(),
    math: document.querySelectorAll(".math").length,
    mathRendered: document.querySelectorAll("mjx-container").length,
    solutions: solutions.length,
    solutionsClosed: solutions.filter((d) => !d.open).length,
    solutionsExecuted: solutions.filter((d) => d.querySelector(".cell_output")).length,
  };
})()
"""

READY_JS = r"""
(() => {
  const charts = [...document.querySelectorAll('div[id^="altair-viz-"]')];
  const chartsDone = charts.every((c) => c.querySelector("canvas, svg.marks, .error"));
  const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const widgetsDone = views === 0 || document.querySelectorAll(".jupyter-widgets").length > 0;
  const mathDone = document.querySelectorAll(".math").length === 0 || document.querySelectorAll("mjx-container").length > 0;
  return document.readyState === "complete" && chartsDone && widgetsDone && mathDone;
})()
"""

# Image of chart i (canvas pixels or svg markup), to tell whether moving its slider redrew it.
CHART_IMAGE_JS = r"""
((i) => {
  const chart = document.querySelectorAll('div[id^="altair-viz-"]')[i];
  const canvas = chart.querySelector("canvas");
  return canvas ? canvas.toDataURL() : chart.querySelector("svg.marks").outerHTML;
})(%d)
"""

MOVE_CHART_SLIDER_JS = r"""
((i) => {
  const input = document.querySelectorAll('div[id^="altair-viz-"]')[i].querySelector('.vega-bindings input[type="range"]');
  const [lo, hi, now] = [Number(input.min), Number(input.max), Number(input.value)];
  input.value = String(now - lo > (hi - lo) / 2 ? lo : hi);
  input.dispatchEvent(new Event("input", {bubbles: true}));
  return input.value;
})(%d)
"""

# Press End on the first ipywidgets slider (noUiSlider handles the key): a jslinked partner must follow.
WIDGET_LINK_JS = r"""
(async () => {
  const handle = document.querySelector(".jupyter-widgets .noUi-handle");
  const inputs = () => [...document.querySelectorAll(".jupyter-widgets input[type=number], .jupyter-widgets input[type=text]")].map((e) => e.value);
  if (!handle) return null;
  const before = inputs();
  handle.focus();
  handle.dispatchEvent(new KeyboardEvent("keydown", {key: "End", code: "End", keyCode: 35, which: 35, bubbles: true}));
  await new Promise((r) => setTimeout(r, 300));
  return {before, after: inputs(), readout: document.querySelector(".jupyter-widgets .widget-readout")?.textContent};
})()
"""

OPEN_SOLUTION_JS = r"""
(() => {
  const d = [...document.querySelectorAll("details.hide")].find((d) => d.querySelector("summary")?.textContent.includes("Show solution"));
  if (!d) return null;
  d.open = true;
  d.scrollIntoView();
  const r = d.getBoundingClientRect();
  return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height,
          output: d.querySelector(".cell_output")?.innerText ?? ""};
})()
"""

# Text of chart i (its SVG) printed over other text: pairs of text boxes that overlap by more than
# a pixel (glyph boxes of neighbouring lines touch). Each box is the text's own (getBBox) mapped
# to the screen (getScreenCTM), so rotated axis labels are compared as the parallelograms they
# are (separating axis test), not as the rectangles around them.
OVERLAPS_JS = r"""
((i) => {
  const chart = document.querySelectorAll('div[id^="altair-viz-"]')[i];
  const shown = (t) => {
    for (let e = t; e && e !== chart; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === "none" || style.visibility === "hidden" || Number(style.opacity) === 0) return false;
    }
    return Number(t.getAttribute("fill-opacity") ?? 1) > 0;
  };
  const corners = (t) => {
    const b = t.getBBox(), m = t.getScreenCTM();
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const apart = (p, q) => {  // some edge's normal separates the two quadrilaterals (by 1 px of slack)
    for (const poly of [p, q])
      for (let i = 0; i < 4; i++) {
        const [[x1, y1], [x2, y2]] = [poly[i], poly[(i + 1) %% 4]];
        const [nx, ny] = [y2 - y1, x1 - x2], len = Math.hypot(nx, ny);
        if (len === 0) continue;
        const along = (pts) => pts.map(([x, y]) => (x * nx + y * ny) / len);
        const [a, b] = [along(p), along(q)];
        if (Math.max(...a) - Math.min(...b) <= 1 || Math.max(...b) - Math.min(...a) <= 1) return true;
      }
    return false;
  };
  const boxes = [...chart.querySelectorAll("svg.marks text")]
    .filter((t) => t.textContent.trim() && shown(t))
    .map((t) => ({text: t.textContent, r: t.getBoundingClientRect(), q: corners(t)}))
    .filter((b) => b.r.width > 0 && b.r.height > 0);
  const pairs = [];
  for (let a = 0; a < boxes.length; a++)
    for (let b = a + 1; b < boxes.length; b++)
      if (!apart(boxes[a].q, boxes[b].q)) pairs.push([boxes[a].text, boxes[b].text]);
  return {texts: boxes.length, canvas: !!chart.querySelector("canvas"), pairs};
})(%d)
"""

# The page's layout at the current viewport width: does the page scroll sideways (and which
# elements, not clipped or scrolled by an ancestor, stick out), tables whose columns an ancestor
# hides, code blocks that scroll sideways, and links to placeholders.
LAYOUT_JS = r"""
(() => {
  const viewport = document.documentElement.clientWidth;
  const boxOf = (el) => {  // the nearest ancestor that clips or scrolls its content sideways (or is fixed:
    // the viewport's, not the page's, such as the skip link parked off screen)
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== "visible" || getComputedStyle(a).position === "fixed") return a;
    return null;
  };
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    [...e.classList].slice(0, 2).map((c) => "." + c).join("") + ` (${Math.round(e.getBoundingClientRect().width)} px)`;
  const pageWidth = document.documentElement.scrollWidth;
  const out = pageWidth > viewport + 1 ? [...document.body.querySelectorAll("*")].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.right > viewport + 1 && !boxOf(e) && getComputedStyle(e).position !== "fixed";
  }) : [];
  const tables = [...document.querySelectorAll("table")].filter((t) => t.getBoundingClientRect().width > 0);
  const hidden = tables.filter((t) => {
    const box = boxOf(t);
    if (!box || !["hidden", "clip"].includes(getComputedStyle(box).overflowX)) return false;
    return t.getBoundingClientRect().right > box.getBoundingClientRect().right + 1;
  });
  const code = [...document.querySelectorAll("pre")].filter((p) => p.getBoundingClientRect().width > 0);
  const links = [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href"));
  return {
    viewport, pageWidth,
    sticksOut: out.filter((e) => !out.includes(e.parentElement)).slice(0, 3).map(name),
    tables: tables.length, tablesCut: hidden.map((t) => name(t) + " in " + name(boxOf(t))),
    codeBlocks: code.length, codeScrolling: code.filter((p) => p.scrollWidth > p.clientWidth + 1).length,
    placeholders: links.filter((h) => PLACEHOLDERS.some((p) => h.includes(p))),
  };
})()
""".replace("PLACEHOLDERS", json.dumps(PLACEHOLDERS))

CHART_BOX_JS = r"""
((i) => {
  const el = document.querySelectorAll('div[id^="altair-viz-"]')[i];
  el.scrollIntoView();
  const r = el.getBoundingClientRect();
  return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height};
})(%d)
"""


@dataclass
class PageReport:
    path: str
    problems: list[str] = field(default_factory=list)  # anything here fails the check
    facts: dict = field(default_factory=dict)           # what INSPECT_JS found
    screenshots: list[str] = field(default_factory=list)


# -- a quiet static server ----------------------------------------------------------------------
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# -- Chromium over the DevTools pipe ------------------------------------------------------------
class Chromium:
    """Headless Chromium driven over --remote-debugging-pipe (fd 3: commands in, fd 4: out)."""

    def __init__(self, executable: str = CHROMIUM):
        if not os.access(executable, os.X_OK):
            raise FileNotFoundError(
                f"Chromium not found at {executable}: run `make chromium` (as root) or "
                f"`sudo apt-get install chromium`, or set CHROMIUM=/path/to/chromium")
        self.profile = tempfile.mkdtemp(prefix="kafkasim-chromium-")
        to_browser, from_browser = os.pipe(), os.pipe()
        # The child's ends must not sit on fds 3 or 4 before the dup2s below move them there.
        child_in = fcntl.fcntl(to_browser[0], fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(from_browser[1], fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser[0])
        os.close(from_browser[1])
        log = os.path.join(self.profile, "chromium.log")
        actions = [(os.POSIX_SPAWN_DUP2, child_in, 3), (os.POSIX_SPAWN_DUP2, child_out, 4),
                   (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
                   (os.POSIX_SPAWN_DUP2, 1, 2)]
        args = [executable, *FLAGS, f"--user-data-dir={self.profile}",
                f"--window-size={WIDTH},{HEIGHT}", "about:blank"]
        self.pid = os.posix_spawn(executable, args, os.environ, file_actions=actions, setsid=True)
        os.close(child_in)
        os.close(child_out)
        self._write, self._read = to_browser[1], from_browser[0]
        self._buffer = b""
        self._next_id = 0
        self._awaited: set[int] = set()  # ids of commands whose results `call` waits for
        self._results: dict[int, dict] = {}
        self.handlers: list = []  # called with every event message

    # transport
    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _pump(self, timeout: float) -> None:
        """Read what the browser sent within `timeout` s; dispatch events, keep results."""
        ready, _, _ = select.select([self._read], [], [], max(timeout, 0))
        if not ready:
            return
        chunk = os.read(self._read, 1 << 20)
        if not chunk:
            raise RuntimeError("Chromium exited; see " + os.path.join(self.profile, "chromium.log"))
        self._buffer += chunk
        *messages, self._buffer = self._buffer.split(b"\0")
        for raw in messages:
            message = json.loads(raw)
            if "id" in message:
                if message["id"] in self._awaited:
                    self._results[message["id"]] = message
            else:
                for handler in self.handlers:
                    handler(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict:
        """Send a command and wait for its result (events keep flowing to the handlers)."""
        ident = self._send(method, params, session)
        self._awaited.add(ident)
        deadline = time.monotonic() + timeout
        while ident not in self._results:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no answer to {method} in {timeout} s")
            self._pump(deadline - time.monotonic())
        self._awaited.discard(ident)
        message = self._results.pop(ident)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result", {})

    def notify(self, method: str, params: dict, session: str | None = None) -> None:
        """Send a command whose result nobody waits for (answers to intercepted requests)."""
        self._send(method, params, session)

    def wait(self, condition, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                return False
            self._pump(min(0.1, deadline - time.monotonic()))
        return True

    def close(self) -> None:
        try:
            self._send("Browser.close")
        except OSError:
            pass
        deadline = time.monotonic() + 5
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.killpg(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        os.close(self._write)
        os.close(self._read)
        shutil.rmtree(self.profile, ignore_errors=True)


# -- one tab, many pages --------------------------------------------------------------------------
class Tab:
    """A page target with its console, network and interception bookkeeping."""

    def __init__(self, browser: Chromium, base_url: str, render_timeout: float = RENDER_TIMEOUT_S):
        self.browser, self.base, self.timeout = browser, base_url, render_timeout
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.problems: list[str] = []
        self.in_flight: dict[str, str] = {}  # request id -> URL
        self.loaded = False
        browser.handlers.append(self._on_event)
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")
        self.call("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
        self.size, self.mobile = (WIDTH, HEIGHT), False
        self._viewport(HEIGHT)

    def call(self, method: str, params: dict | None = None, timeout: float = 30.0) -> dict:
        return self.browser.call(method, params, self.session, timeout)

    def _on_event(self, message: dict) -> None:
        if message.get("sessionId") != self.session:
            return
        method, params = message["method"], message.get("params", {})
        if method == "Fetch.requestPaused":
            url = params["request"]["url"]
            if url.startswith(self.base) or url.startswith(("data:", "blob:")):
                self.browser.notify("Fetch.continueRequest", {"requestId": params["requestId"]}, self.session)
            else:
                self.problems.append(f"blocked request to outside the site: {url}")
                self.browser.notify("Fetch.failRequest", {"requestId": params["requestId"],
                                                          "errorReason": "BlockedByClient"}, self.session)
        elif method == "Network.requestWillBeSent":
            self.in_flight[params["requestId"]] = params["request"]["url"]
        elif method == "Network.loadingFinished":
            self.in_flight.pop(params["requestId"], None)
        elif method == "Network.loadingFailed":
            url = self.in_flight.pop(params["requestId"], "?")
            if params.get("errorText") != "net::ERR_BLOCKED_BY_CLIENT":  # blocked: recorded above
                self.problems.append(f"failed request ({params.get('errorText')}): {url}")
        elif method == "Network.responseReceived":
            response = params["response"]
            if response.get("status", 200) >= 400:
                self.problems.append(f"HTTP {response['status']}: {response['url']}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.problems.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            self.problems.append(f"uncaught exception: {text}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.problems.append(f"browser log error: {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Page.loadEventFired":
            self.loaded = True

    def evaluate(self, expression: str, timeout: float = 30.0):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, timeout)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def open(self, url: str) -> None:
        self.problems, self.in_flight, self.loaded = [], {}, False
        self.call("Page.navigate", {"url": url})
        if not self.browser.wait(lambda: self.loaded, self.timeout):
            self.problems.append(f"page did not finish loading in {self.timeout} s")
        if not self.browser.wait(self._ready, self.timeout):
            self.problems.append(f"charts, widgets or formulas still not rendered after {self.timeout} s")
        self.settle()

    def _ready(self) -> bool:
        try:
            return bool(self.evaluate(READY_JS, timeout=5))
        except RuntimeError:  # e.g. the page navigated away (a redirect) while it was asked
            return False

    def settle(self, quiet_s: float = 0.3) -> None:
        """Wait until no request has been in flight for `quiet_s` (late scripts, fonts)."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.browser.wait(lambda: bool(self.in_flight), quiet_s) is False:
                return
            self.browser.wait(lambda: not self.in_flight, deadline - time.monotonic())

    def screenshot(self, path: Path, clip: dict | None = None, width: int = WIDTH) -> None:
        """The whole page (up to MAX_SHOT_HEIGHT), or `clip` (page coordinates); a JPEG for a .jpg `path`
        (the site's pages: a quarter less of the check's CPU than PNG, measured), else a PNG.

        The viewport is stretched to the page's height for the capture, rather than asking
        Chromium to capture beyond the viewport, which here caught the layout mid-reflow.
        """
        height = min(self.call("Page.getLayoutMetrics")["cssContentSize"]["height"], MAX_SHOT_HEIGHT)
        clip = clip or {"x": 0, "y": 0, "width": width, "height": height}
        viewport = self.size
        self._viewport(max(viewport[1], int(clip["y"] + clip["height"]) + 1))
        self.evaluate("new Promise((r) => setTimeout(r, 300))")  # let the resize settle
        kind = {"format": "jpeg", "quality": 80} if path.suffix == ".jpg" else {"format": "png"}
        data = self.call("Page.captureScreenshot", {**kind, "clip": {**clip, "scale": 1}}, timeout=60)["data"]
        self._viewport(viewport[1])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def resize(self, width: int, height: int, mobile: bool = False) -> None:
        """Emulate a screen `width` x `height` (a phone's with `mobile`: its viewport meta tag
        applies), and let the page reflow."""
        self.size, self.mobile = (width, height), mobile
        self._viewport(height)
        self.evaluate("new Promise((r) => requestAnimationFrame(() => setTimeout(r, 400)))")

    def _viewport(self, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.size[0], "height": height, "deviceScaleFactor": 1, "mobile": self.mobile})


# -- the check ------------------------------------------------------------------------------------
def pages(site: Path) -> list[str]:
    """Every HTML page of the site, as paths relative to it (Sphinx's _static/_sources excluded)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).parts[0].startswith("_"))


def _shot_name(page: str, suffix: str = "") -> str:
    return page.removesuffix(".html").replace("/", "__") + suffix + ".jpg"


def check_page(tab: Tab, page: str, shots: Path) -> PageReport:
    report = PageReport(page)
    tab.open(tab.base + page)
    facts = report.facts = tab.evaluate(INSPECT_JS)
    shot = shots / _shot_name(page)
    tab.screenshot(shot)
    report.screenshots.append(shot.name)

    if facts["chartsDrawn"] < facts["charts"]:
        report.problems.append(f"{facts['charts'] - facts['chartsDrawn']} of {facts['charts']} charts did not draw")
    if facts["chartsCutOff"]:
        report.problems.append(f"{facts['chartsCutOff']} charts are wider than their cell at {WIDTH} px: cut off")
    for i in range(facts["charts"]):
        report.problems += overlap_problems(tab, i)
    facts["layout"] = {WIDTH: tab.evaluate(LAYOUT_JS)}
    report.problems += layout_problems(facts["layout"][WIDTH])
    if facts["widgetViews"] and not facts["widgetsRendered"]:
        report.problems.append(f"{facts['widgetViews']} widget views, none rendered")
    if facts["deadControls"]:
        report.problems.append(f"{len(facts['deadControls'])} widget controls neither jslinked nor disabled (dead "
                               f"without a kernel): {', '.join(facts['deadControls'][:6])}")
    if facts["math"] and not facts["mathRendered"]:
        report.problems.append("formulas were not typeset by MathJax")
    if facts["solutionsClosed"] < facts["solutions"]:
        report.problems.append("a solution is not hidden")
    if facts["solutionsExecuted"] < facts["solutions"]:
        report.problems.append("a hidden solution has no output: was it executed?")

    facts["slidersRedrawing"] = 0
    for i in range(facts["charts"]):
        if not tab.evaluate(f'document.querySelectorAll(\'div[id^="altair-viz-"]\')[{i}]'
                            '.querySelector(\'.vega-bindings input[type="range"]\') !== null'):
            continue
        before = tab.evaluate(CHART_IMAGE_JS % i)
        tab.evaluate(MOVE_CHART_SLIDER_JS % i)
        redrawn = tab.browser.wait(lambda: tab.evaluate(CHART_IMAGE_JS % i) != before, 5)
        facts["slidersRedrawing"] += redrawn
        if not redrawn:
            report.problems.append(f"chart {i}: moving its slider did not redraw it")
        report.problems += overlap_problems(tab, i, "after its slider moved")
        shot = shots / _shot_name(page, f"--chart{i}-slider-moved")
        tab.screenshot(shot, tab.evaluate(CHART_BOX_JS % i))
        report.screenshots.append(shot.name)

    if facts["widgetLinks"]:
        link = facts["widgetLink"] = tab.evaluate(WIDGET_LINK_JS)
        if not link or link["before"] == link["after"]:
            report.problems.append(f"moving a widget slider moved no jslinked widget: {link}")

    if facts["solutions"]:
        box = tab.evaluate(OPEN_SOLUTION_JS)
        facts["solutionOutput"] = box.pop("output")
        shot = shots / _shot_name(page, "--solution-open")
        tab.screenshot(shot, box)
        report.screenshots.append(shot.name)

    tab.resize(PHONE_WIDTH, PHONE_HEIGHT, mobile=True)
    try:
        facts["layout"][PHONE_WIDTH] = tab.evaluate(LAYOUT_JS)
        shot = shots / _shot_name(page, f"--{PHONE_WIDTH}px")
        tab.screenshot(shot, width=PHONE_WIDTH)
        report.screenshots.append(shot.name)
    finally:
        tab.resize(WIDTH, HEIGHT)
    problems = layout_problems(facts["layout"][PHONE_WIDTH])
    report.problems += [p for p in problems if "placeholder" not in p]  # placeholders: named once, above

    report.problems += tab.problems  # console, network and interception, over all of the above
    return report


def overlap_problems(tab: Tab, i: int, when: str = "") -> list[str]:
    """Chart i's text boxes that overlap, as problems (a chart drawn on a canvas cannot be read)."""
    found = tab.evaluate(OVERLAPS_JS % i)
    if found["canvas"]:
        return [f"chart {i} is drawn on a canvas: its labels cannot be checked (render charts as SVG)"]
    pairs = found["pairs"]
    if not pairs:
        return []
    shown = "; ".join(f"{a!r} over {b!r}" for a, b in pairs[:3])
    shown += f" (+{len(pairs) - 3} more)" if len(pairs) > 3 else ""
    return [f"chart {i}: {len(pairs)} overlapping text labels{' ' + when if when else ''}: {shown}"]


def layout_problems(layout: dict) -> list[str]:
    """What LAYOUT_JS found at one viewport width, as problems."""
    width, problems = layout["viewport"], []
    if layout["pageWidth"] > width + 1:
        problems.append(f"the page is {layout['pageWidth']} px wide at a {width} px viewport (scrolls sideways): "
                        f"{', '.join(layout['sticksOut']) or '?'} stick out")
    for table in layout["tablesCut"]:
        problems.append(f"a table hides columns at {width} px: {table}")
    if layout["codeScrolling"]:
        problems.append(f"{layout['codeScrolling']} of {layout['codeBlocks']} code blocks scroll sideways "
                        f"at {width} px")
    for href in layout["placeholders"]:
        problems.append(f"placeholder link: {href}")
    return problems


def check_site(site: Path, shots: Path, executable: str = CHROMIUM,
               render_timeout: float = RENDER_TIMEOUT_S) -> list[PageReport]:
    if shots.exists():
        shutil.rmtree(shots)
    server, base = serve(site)
    browser = Chromium(executable)
    try:
        tab = Tab(browser, base, render_timeout)
        return [check_page(tab, page, shots) for page in pages(site)]
    finally:
        browser.close()
        server.shutdown()
        server.server_close()


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__.rsplit("Usage: ", 1)[1])
    site, shots = Path(sys.argv[1]), Path(sys.argv[2])
    reports = check_site(site, shots)
    for r in reports:
        print(f"{'FAIL' if r.problems else 'ok  '} {r.path}  {json.dumps(r.facts)}")
        for problem in r.problems:
            print(f"       {problem}")
    print(f"{len(reports)} pages, screenshots in {shots}")
    sys.exit(1 if any(r.problems for r in reports) else 0)


if __name__ == "__main__":
    main()
