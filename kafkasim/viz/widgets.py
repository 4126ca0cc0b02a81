"""A live explorer for notebooks (ipywidgets): sliders and pickers bound to a Scenario by Kafka
names, re-simulating and redrawing on every change, with the key numbers beside the charts.

    from kafkasim import Scenario, faults
    from kafkasim.viz.widgets import Explorer

    Explorer(Scenario(faults=[faults.Pause("c-2", at_ms=60_000, duration_ms=40_000)]),
             controls=["session.timeout.ms", "heartbeat.interval.ms", "fault.duration.ms"],
             charts=["timeline", "lag"])

A chapter chooses the controls (names in kafkasim.viz.settings.KNOBS), the charts (names in
kafkasim.viz.CHARTS, or functions of a Run returning an Altair chart) and the base scenario.
Only the controls the reader moved are applied to the base, so a config nobody touched
follows the defaults of the chosen Kafka version (the sliders move to them when the version
changes). Choosing ``group.protocol`` consumer (Kafka 4.0+) disables the classic protocol's
controls (session.timeout.ms, heartbeat.interval.ms, the assignor, the rebalance protocol),
whose configs Kafka's client refuses with it, and labels them "classic only"; classic brings them
back at the version's defaults. A control the chosen Kafka version lacks is disabled the same way
("0.10.1+").

Every stop of every control draws a run. Settings Kafka would refuse together are made valid
(`kafkasim.viz.settings.fit`: the control not moved last follows, e.g. the heartbeat interval goes
to a third of a shorter session timeout), and a fault on a member the group does not have moves to
its last member (`retarget_faults`); a caption above the charts says each change. A fatal error the
coordinator returned during the run (e.g. INVALID_SESSION_TIMEOUT (26) below the broker's
group.min.session.timeout.ms) is shown above the charts of the run that hit it; a base scenario
Kafka refuses shows Kafka's message (`ConfigError`) instead of charts.

Without a kernel (the book's pages) the widgets would look alive and do nothing: the display
bundle also carries the first run as HTML with a "Run it live" link (`static_html`), which the
book shows instead.

Redraws are debounced (`debounce_ms`, on the kernel's event loop; immediate where there is
none, as in tests) and sliders report only when released. Built-in charts go from their spec
dict straight to the notebook renderer (no Altair object, no schema validation on the hot
path; the test suite validates them).
"""

from __future__ import annotations

import asyncio
import html
import logging
import time

import altair as alt
import ipywidgets as widgets

from kafkasim.client.pause_resume import PauseScenario, simulate_pause
from kafkasim.core.errors import ConfigError, Errors, KafkaException
from kafkasim.broker.network import NetworkScenario, simulate_network
from kafkasim.scenario.world import Scenario, simulate
from kafkasim.viz import network as nv
from kafkasim.viz import pause_resume as pv
from kafkasim.viz.charts import resolve
from kafkasim.viz.render import html_renderer
from kafkasim.viz.settings import (CLASSIC_KNOBS, CONSUMER_KNOBS, DEFAULT_CONTROLS, GROUP_PROTOCOL, KNOBS, STRATEGY,
                                   check_names, current, fit, protocol_of, retarget_faults, scenario_with,
                                   unavailable, version_default)
from kafkasim.viz.summary import DEFAULT_KEYS, pairs_html, summary_html

log = logging.getLogger(__name__)

#: Controls whose shown value follows the chosen Kafka version until the reader moves them.
VERSIONED = (*CONSUMER_KNOBS, STRATEGY, "rebalance.protocol")
ERROR_STYLE = "color:#b00020;border-left:3px solid #b00020;padding:4px 8px;margin:4px 0;white-space:pre-wrap"
NOTE_STYLE = "color:#555;border-left:3px solid #999;padding:2px 8px;margin:4px 0"
#: The static picture's marker and its "Run it live" link, whose href the book sets to the chapter's
#: launch URL (book/_ext/kafkasim_book.py, from the repository settings of book/_config.yml).
STATIC_MARK = 'data-kafkasim-explorer="static"'
RUN_LIVE_HREF = "#kafkasim-run-live"


class Explorer:
    """Controls bound to `base` by name, the charts of the resulting run, and its key numbers.

    controls: knob names (kafkasim.viz.settings.KNOBS); charts: chart names or functions of a
    Run; window: (start_ms, end_ms) for the time charts; ranges: {name: (low, high, step)} or
    {name: [options]} to override a control's range; summary_keys: which key numbers to show.
    """

    def __init__(self, base: Scenario | None = None, controls=DEFAULT_CONTROLS, charts=("timeline", "lag"), *,
                 window=None, ranges: dict | None = None, summary_keys=DEFAULT_KEYS, debounce_ms: int = 200):
        self.base = base if base is not None else Scenario()
        self._check_names(controls)
        self._check_names(ranges or {})
        self.chart_functions = [resolve(c) for c in charts]
        self.window, self.summary_keys, self.debounce_ms = window, tuple(summary_keys), debounce_ms
        self.scenario: Scenario | None = None
        self.run = None
        self.specs: list[dict] = []
        self.timings: dict[str, float] = {}
        self._touched: set[str] = set()
        self._last: str | None = None           # the control the reader moved last (it wins a conflict)
        self._picked_member: str | None = None  # the reader's fault.member, whatever the group size
        self.notes: list[str] = []              # how the reader's settings were made valid (the caption)
        self._syncing = self._now = False
        self._pending = None
        self.controls = {name: self._control(name, (ranges or {}).get(name)) for name in controls}
        for name, control in self.controls.items():
            control.observe(lambda change, name=name: self._changed(name), names="value")
        self.error = widgets.HTML()
        self.caption = widgets.HTML()
        self.summary = widgets.HTML()
        self.output = widgets.Output(layout=widgets.Layout(flex="1 1 auto"))
        grid = widgets.GridBox(list(self.controls.values()),
                               layout=widgets.Layout(grid_template_columns="repeat(2, minmax(320px, 1fr))"))
        side = widgets.VBox([widgets.HTML("<b>Key numbers</b>"), self.summary],
                            layout=widgets.Layout(min_width="300px"))
        self._update_applicability()
        self._fit_member_options()
        self.widget = widgets.VBox([grid, self.error, self.caption,
                                    widgets.HBox([self.output, side], layout=widgets.Layout(flex_flow="row wrap"))])
        self.refresh()
        self.first_picture = self.static_html()

    # -- what a subclass for another model replaces (see NetworkExplorer) ----------------------
    knobs = KNOBS

    def _check_names(self, names) -> None:
        check_names(names)

    def _current(self, name: str):
        return current(name, self.base)

    def _simulate(self, values: dict):
        """(scenario, run) for the reader's settings."""
        scenario, self.notes[len(self.notes):] = retarget_faults(scenario_with(self.base, values))
        return scenario, simulate(scenario)

    def _summary_html(self, run) -> str:
        return summary_html(run.summary, self.summary_keys)

    def _fit(self, values: dict) -> tuple[dict, list[str]]:
        """The settings made valid together (kafkasim.viz.settings.fit), with a note per change."""
        if self.knobs is not KNOBS:  # another model's explorer: its own checks
            return values, []
        return fit(self.base, values, self._last)

    def _unavailable(self, name: str) -> str | None:
        """Why a control does not apply now ("classic only", "2.4+"), None if it does."""
        if self.knobs is not KNOBS:
            return None
        if name in CLASSIC_KNOBS and self._group_protocol() == "consumer":
            return "classic only"
        return unavailable(name, self._version())

    # -- controls ---------------------------------------------------------------------------
    def _control(self, name: str, override=None) -> widgets.Widget:
        knob = self.knobs[name]
        value = self._current(name)
        common = dict(description=knob.label, tooltip=knob.doc, style={"description_width": "190px"},
                      layout=widgets.Layout(width="auto"))
        if knob.kind == "int":
            low, high, step = override or (knob.low, knob.high, knob.step)
            if name == "fault.at.ms" and override is None:  # a twelfth of the run, in whole 5 s
                high, step = self.base.duration_ms, max(1000, round(self.base.duration_ms / 12 / 5000) * 5000)
            shown = value if value is not None else low
            return widgets.IntSlider(value=shown, min=min(low, shown), max=max(high, shown), step=step,
                                     continuous_update=False, disabled=value is None, **common)
        if knob.kind == "steps":
            stops = knob.options
            if isinstance(override, tuple) and len(override) == 3:  # (low, high, step): the stops in that range
                stops = tuple(v for v in knob.options if override[0] <= v <= override[1])
            elif override:
                stops = tuple(override)
            options = sorted(set(stops) | ({value} if value is not None else set()))
            return widgets.SelectionSlider(options=options, value=value if value is not None else options[0],
                                           continuous_update=False, disabled=value is None, **common)
        if knob.kind == "bool":
            return widgets.Checkbox(value=bool(value), indent=False, **common)
        options = list(override or knob.options or [f"c-{i}" for i in range(1, self.base.members + 1)])
        if value not in options and value is not None:
            options.append(value)
        shown = value  # None: not applicable, shown disabled with nothing chosen
        if knob.kind == "toggle":
            return widgets.ToggleButtons(options=options, value=shown, disabled=value is None, **common)
        return widgets.Dropdown(options=options, value=shown, disabled=value is None, **common)

    def _set_quietly(self, name: str, value) -> None:
        """Move a control from code (a linked control), without marking it as the reader's."""
        control = self.controls[name]
        self._syncing = True
        try:
            control.disabled = value is None
            if value is None:  # not applicable: a choice shows none (a slider cannot)
                if isinstance(control, (widgets.ToggleButtons, widgets.Dropdown)):
                    control.value = None
                return
            _offer(control, value)
            control.value = value
        finally:
            self._syncing = False

    def _changed(self, name: str) -> None:
        if self._syncing:
            return
        self._touched.add(name)
        self._last = name
        value = self.controls[name].value
        if name == "kafka.version":
            for other in VERSIONED:
                if other in self.controls and other not in self._touched and self._unavailable(other) is None:
                    self._set_quietly(other, version_default(other, self.base, value))
            self._update_applicability()
        elif name == GROUP_PROTOCOL:
            self._protocol_changed(value)
            self._update_applicability()
        elif name == "members":
            self._fit_member_options()
        elif name == "fault.member":
            self._picked_member = value
        elif name == STRATEGY and "rebalance.protocol" in self.controls:
            self._set_quietly("rebalance.protocol", protocol_of([value], "3.7"))
            self._touched.discard("rebalance.protocol")  # the assignor now says which protocol
        elif name == "rebalance.protocol" and STRATEGY in self.controls:
            assignor = self.controls[STRATEGY].value
            if value == "cooperative":
                self._set_quietly(STRATEGY, "cooperative-sticky")
            elif assignor == "cooperative-sticky":  # the only built-in assignor that supports cooperative
                self._set_quietly(STRATEGY, "sticky")
            self._touched.add(STRATEGY)
        self._schedule()

    def _group_protocol(self) -> str:
        control = self.controls.get(GROUP_PROTOCOL)
        return control.value if control is not None else current(GROUP_PROTOCOL, self.base)

    def _version(self) -> str:
        control = self.controls.get("kafka.version")
        return control.value if control is not None else self.base.kafka_version

    def _update_applicability(self) -> None:
        """Controls that do not apply (a classic-only config under the consumer protocol, a feature
        the chosen Kafka version lacks) are disabled and say why in their label; the others are not."""
        for name, control in self.controls.items():
            reason = self._unavailable(name)
            label = self.knobs[name].label
            control.description = f"{label} ({reason})" if reason else label
            if reason is not None:
                control.disabled = True
            elif name in self._touched:
                control.disabled = False

    def _fit_member_options(self) -> None:
        """fault.member offers the group's members; a pick beyond the group shows its last member
        (the run moves the fault there and the caption says so)."""
        control = self.controls.get("fault.member")
        if control is None or self.knobs is not KNOBS:
            return
        members = self.controls["members"].value if "members" in self.controls else self.base.members
        names = [f"c-{i}" for i in range(1, members + 1)]
        picked = self._picked_member or control.value
        shown = picked if picked in names else names[-1]
        self._syncing = True
        try:
            control.options = names
            control.value = shown
        finally:
            self._syncing = False

    def _protocol_changed(self, protocol: str) -> None:
        """consumer: the classic-only controls go blank (their configs are cleared); classic: back
        at the chosen version's defaults."""
        version = self.controls["kafka.version"].value if "kafka.version" in self.controls else self.base.kafka_version
        for name in CLASSIC_KNOBS:
            if name not in self.controls:
                continue
            self._touched.discard(name)
            self._set_quietly(name, version_default(name, self.base, version) if protocol == "classic" else None)

    def set(self, name: str, value) -> None:
        """Set a control from code, as if the reader had moved it, but redraw at once (a reader's
        changes are debounced; code that reads `run` right after wants the new one)."""
        self._now = True
        try:
            _offer(self.controls[name], value)
            self.controls[name].value = value
        finally:
            self._now = False

    # -- redraw -----------------------------------------------------------------------------
    def _schedule(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self.debounce_ms <= 0 or self._now:
            return self.refresh()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return self.refresh()
        self._pending = loop.call_later(self.debounce_ms / 1000, self.refresh)

    def values(self) -> dict:
        """The settings the reader changed that apply now (what is applied to the base scenario)."""
        out = {name: self.controls[name].value for name in self.controls
               if name in self._touched and not self.controls[name].disabled}
        if "fault.member" in out and self._picked_member is not None:
            out["fault.member"] = self._picked_member
        return out

    def _show_fitted(self, fitted: dict) -> None:
        """Controls follow the values the run uses (a median raised with its p99, ...)."""
        for name, value in fitted.items():
            control = self.controls.get(name)
            if control is not None and not control.disabled and control.value != value and name != "fault.member":
                self._set_quietly(name, value)
                self._touched.add(name)

    def refresh(self) -> None:
        """Simulate the current settings and redraw (errors are shown, not raised)."""
        self._pending = None
        start = time.perf_counter()
        try:
            values, self.notes = self._fit(self.values())
            self._show_fitted(values)
            scenario, run = self._simulate(values)
        except (ConfigError, KafkaException) as error:
            return self._show_error(str(error))
        simulated = time.perf_counter()
        try:
            specs = [self._spec(fn, run) for fn in self.chart_functions]
            outputs = tuple(display_data(spec) for spec in specs)
        except Exception as error:  # a chart bug must not leave a traceback in a reader's page
            log.exception("kafkasim explorer: drawing failed")
            return self._show_error(f"kafkasim could not draw this run ({type(error).__name__}: {error})")
        drawn = time.perf_counter()
        self.scenario, self.run, self.specs = scenario, run, specs
        self.output.outputs = outputs
        # Kept for benchmarks/widget_redraw.py, not shown: saved widget state must not depend on the wall clock.
        self.timings = {"simulate_ms": 1000 * (simulated - start), "charts_ms": 1000 * (drawn - simulated)}
        self.error.value = _fatal_errors(run)
        self.caption.value = "".join(f"<div style='{NOTE_STYLE}'>{html.escape(note)}</div>" for note in self.notes)
        self.summary.value = self._summary_html(run)

    def _spec(self, fn, run) -> dict:
        if hasattr(fn, "spec"):
            return {"$schema": alt.SCHEMA_URL, **fn.spec(run, self.window)}
        chart = fn(run, self.window)
        return chart.to_dict(validate=False) if hasattr(chart, "to_dict") else chart

    def _show_error(self, message: str) -> None:
        self.run, self.specs = None, []
        self.error.value = f"<div style='{ERROR_STYLE}'>{html.escape(message)}</div>"
        self.caption.value = ""
        self.output.outputs = ()
        self.summary.value = ""

    # -- the same explorer without a kernel -----------------------------------------------------
    def static(self, grid: dict, charts=("timeline", "summary"), **kwargs):
        """The precomputed-grid version of this explorer for the static book page
        (kafkasim.viz.grid_explorer over `grid`, e.g. {"session.timeout.ms": [10_000, 45_000]})."""
        from kafkasim.viz.grid_explorer import grid_explorer

        return grid_explorer(self.base, grid, charts=charts, window=self.window, **kwargs)

    def static_html(self) -> str:
        """The explorer as a picture, for where no kernel runs it (the book's pages): the charts of
        its current run as Altair HTML (drawn offline by the page's vendored vega), its notes and key
        numbers, and a "Run it live" link. Its controls would look alive there and do nothing."""
        charts = "".join(html_renderer(spec)["text/html"] for spec in self.specs)
        return (f"<div class='kafkasim-explorer-static' {STATIC_MARK}>"
                "<p><b>Live explorer.</b> Its controls need a running Python kernel: here is its first run, "
                f"with the chapter's settings. <a class='kafkasim-run-live' href='{RUN_LIVE_HREF}'>Run it live</a> "
                "to move them (the chapter opens in JupyterLab).</p>"
                f"{self.error.value}{self.caption.value}"
                "<div style='display:flex;flex-flow:row wrap;gap:12px'>"
                f"<div>{charts}</div><div style='min-width:300px'><b>Key numbers</b>{self.summary.value}</div>"
                "</div></div>")

    def _repr_mimebundle_(self, **kwargs):
        """The widget, and its first picture as HTML for front ends without a kernel (the book shows
        that one instead of inert widgets)."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/html"] = self.first_picture
        return bundle


def _offer(control, value) -> None:
    """A value set from code that is not one of a slider's stops becomes one (or widens its range)."""
    if isinstance(control, widgets.SelectionSlider) and value not in control.options:
        control.options = sorted({*control.options, value})
    elif isinstance(control, widgets.IntSlider):
        control.max, control.min = max(control.max, value), min(control.min, value)


def display_data(spec: dict) -> dict:
    """An Output-widget display item for a spec, rendered by Altair's active renderer."""
    bundle = alt.renderers.get()(spec)
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    return {"output_type": "display_data", "data": data, "metadata": metadata}


def _fatal_errors(run) -> str:
    """Errors the coordinator returned that stopped consumers (the Java client throws them)."""
    stopped: dict[str, list] = {}
    for row in run.rows:
        if row[4] == "Fatal":
            stopped.setdefault(row[8], []).append((row[0], row[3]))
    lines = []
    for name, hits in stopped.items():
        error = Errors[name]
        who = ", ".join(member for _, member in hits[:4]) + (f" and {len(hits) - 4} more" if len(hits) > 4 else "")
        lines.append(f"{who} stopped (first at {hits[0][0] / 1000:g} s): {error.exception} ({error.name}, code "
                     f"{error.code}): {error.message}")
    return "".join(f"<div style='{ERROR_STYLE}'>{html.escape(line)}</div>" for line in lines)


class NetworkExplorer(Explorer):
    """The live explorer for the broker's network layer (kafkasim.broker.network, KIP-72): the same
    controls, debounced redraw and error display as `Explorer`, over a `NetworkScenario`.

    controls: names in kafkasim.viz.network.NETWORK_KNOBS (broker configs by their Kafka names,
    plus the first client group's ``producers``, ``max.request.size`` and ``requests.per.s``);
    charts: names in kafkasim.viz.network.CHARTS or functions of a NetworkRun.
    """

    knobs = nv.NETWORK_KNOBS

    def __init__(self, base=None, controls=None, charts=("memory", "latency", "fairness"), **kwargs):
        controls = controls or ("queued.max.request.bytes", "num.network.threads", "num.io.threads",
                                "queued.max.requests", "producers", "max.request.size", "requests.per.s",
                                "shuffle.on.low.memory")
        charts = [nv.CHARTS.get(c, c) if isinstance(c, str) else c for c in charts]
        kwargs["ranges"] = {"producers": (10, 200, 10), **(kwargs.get("ranges") or {})}  # 20 stops, not 200
        super().__init__(base if base is not None else NetworkScenario(), controls, charts, **kwargs)

    def _fit(self, values: dict) -> tuple[dict, list[str]]:
        """A producer's max.request.size above socket.request.max.bytes (the broker would close the
        connection) raises the latter to the next of its stops, and a bounded queued.max.request.bytes
        below that (the broker refuses to start) rises to it, each with a note."""
        out, notes = dict(values), []
        size = out.get("max.request.size")
        limit = out.get("socket.request.max.bytes", nv.network_current("socket.request.max.bytes", self.base))
        if size is not None and limit is not None and size > limit:
            stops = [v for v in nv.NETWORK_KNOBS["socket.request.max.bytes"].options if v >= size]
            limit = out["socket.request.max.bytes"] = stops[0] if stops else size
            notes.append(f"socket.request.max.bytes goes to {limit:,} bytes: the broker closes the connection of a "
                         f"request larger than it, and max.request.size is {size:,}.")
        pool = out.get("queued.max.request.bytes", nv.network_current("queued.max.request.bytes", self.base))
        if limit is not None and pool is not None and 0 < pool < limit:
            out["queued.max.request.bytes"] = limit
            notes.append(f"queued.max.request.bytes goes to {limit:,} bytes: the broker refuses to start with a "
                         "memory pool smaller than socket.request.max.bytes.")
        return out, notes

    def _check_names(self, names) -> None:
        nv.check_network_names(names)

    def _current(self, name: str):
        return nv.network_current(name, self.base)

    def _simulate(self, values: dict):
        scenario = nv.network_scenario_with(self.base, values)
        return scenario, simulate_network(scenario)

    def _summary_html(self, run) -> str:
        return pairs_html(nv.key_numbers(run.summary))

    def static(self, grid: dict, charts=("memory", "latency", "fairness", "summary"), **kwargs):
        """The precomputed-grid version (kafkasim.viz.network.network_grid_explorer over `grid`)."""
        return nv.network_grid_explorer(self.base, grid, charts=charts, **kwargs)


class PauseExplorer(Explorer):
    """The live explorer of `pause()` across rebalances (kafkasim.client.pause_resume, KAFKA-13463):
    Kafka version, protocol, remedy, the application's loop, the membership change and
    `max.poll.records`, redrawing the pause timeline and its key numbers on every change.

    controls: names in kafkasim.viz.pause_resume.PAUSE_KNOBS; `versions` limits the version menu.
    """

    knobs = pv.PAUSE_KNOBS

    def __init__(self, base=None, controls=pv.GRID_SETTINGS, charts=(pv.pause_timeline,), *, versions=None, **kwargs):
        ranges = {"kafka_version": list(versions)} if versions else None
        super().__init__(base if base is not None else PauseScenario(), controls, charts, ranges=ranges, **kwargs)

    def _check_names(self, names) -> None:
        pv.check_settings(names)

    def _current(self, name: str):
        return pv.pause_current(name, self.base)

    def _simulate(self, values: dict):
        scenario = pv.scenario_with(self.base, values)
        return scenario, simulate_pause(scenario)

    def _summary_html(self, run) -> str:
        return pv.key_numbers_html(run.summary)

    def static(self, grid: dict, **kwargs):
        """The precomputed-grid version (kafkasim.viz.pause_resume.pause_explorer over `grid`)."""
        return pv.pause_explorer(self.base, grid, window=self.window, **kwargs)
