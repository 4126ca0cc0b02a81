"""The book's generated pages and build conventions, without building it (fast).

The built site itself is checked in a browser by tests/test_site.py.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import book_pages  # noqa: E402
import vendor_js  # noqa: E402
from kafkasim.core.config import BROKER_CONFIGS, CONSUMER_CONFIGS, ZOOKEEPER_CONSUMER_CONFIGS  # noqa: E402

CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def load_extension():
    spec = importlib.util.spec_from_file_location("kafkasim_book", ROOT / "book" / "_ext" / "kafkasim_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def chapters():
    return [book_pages.read_chapter(p, ROOT) for p in CHAPTERS]


@pytest.fixture(scope="module")
def glossary(chapters):
    return book_pages.glossary(chapters)


def glossary_entry(glossary: str, name: str) -> str:
    """The lines of one term (from its name up to the next unindented line)."""
    lines = glossary.splitlines()
    start = lines.index(name)
    end = next(i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith(" "))
    return "\n".join(lines[start:end])


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_opens_with_numbered_title_and_promise(path):
    chapter = book_pages.read_chapter(path, ROOT)
    assert chapter.number and path.name.startswith(chapter.number)
    assert chapter.title != path.stem, "the first markdown cell must start with '# NN · Title'"
    assert chapter.promise.endswith((".", "!", "?")), "a one-sentence promise must follow the title"


def test_chapter_00_title_and_promise(chapters):
    welcome = chapters[0]
    assert (welcome.docname, welcome.number) == ("notebooks/00-welcome", "00")
    assert welcome.title == "Welcome: one rebalance, request by request"
    assert welcome.promise.startswith("By the end of this chapter") and welcome.promise.endswith("held it back.")


def test_chapter_map_links_every_chapter(chapters):
    table = book_pages.chapter_map(chapters)
    for c in chapters:
        assert f"{{doc}}`{c.title} </{c.docname}>`" in table


def test_glossary_has_every_config_once(glossary):
    names = set(CONSUMER_CONFIGS) | set(BROKER_CONFIGS) | set(ZOOKEEPER_CONSUMER_CONFIGS)
    terms = [line for line in glossary.splitlines()[1:-1] if line and not line.startswith(" ")]
    assert sorted(terms) == sorted(names)


def test_glossary_merges_scopes_of_one_name(glossary):
    # fetch.max.bytes is both a consumer config (KIP-74, 0.10.1) and a broker cap (KIP-541, 2.5).
    entry = glossary_entry(glossary, "fetch.max.bytes")
    assert "**Consumer**, added in 0.10.1 (KIP-74, KAFKA-2063)" in entry
    assert "**Broker**, added in 2.5 (KIP-541, KAFKA-9101)" in entry
    assert "`52428800` since 0.10.1" in entry and "`57671680` since 2.5" in entry


def test_glossary_defaults_by_version(glossary):
    # session.timeout.ms: 30 s in 0.9, 10 s with KIP-62 (0.10.1), 45 s with KIP-735 (3.0).
    assert "`30000` from 0.9, `10000` from 0.10.1, `45000` from 3.0" in glossary_entry(glossary, "session.timeout.ms")
    # group.max.size shipped as Int.MaxValue (KIP-389 had proposed 1,000,000).
    assert "`2147483647 (Int.MaxValue)` since 2.2" in glossary_entry(glossary, "group.max.size")
    assert "`range` from 0.9, `range,cooperative-sticky` from 3.0" in glossary_entry(
        glossary, "partition.assignment.strategy")


def test_glossary_lists_the_chapters_that_name_a_config(glossary):
    # Chapter 00 teaches group.initial.rebalance.delay.ms; only chapter 08 names the 0.8 fetcher count.
    assert "{doc}`00 </notebooks/00-welcome>`" in glossary_entry(glossary, "group.initial.rebalance.delay.ms")
    fetchers = glossary_entry(glossary, "num.consumer.fetchers")
    assert "{doc}`08 </notebooks/08-large-messages>`" in fetchers and "00-welcome" not in fetchers


@pytest.mark.parametrize("text, found", [
    ("set `session.timeout.ms` to 10 s", True),
    ("it expires after session.timeout.ms.", True),       # end of a sentence
    ("zookeeper.session.timeout.ms = 6000", False),       # a longer name
    ("group.min.session.timeout.ms", False),
    ("session.timeout.ms.extra", False),
    ("session_timeout_ms=10_000", False),                 # a Python keyword, not the config
])
def test_mentions(text, found):
    assert book_pages.mentions(text, "session.timeout.ms") is found


class FakeApp:
    class env:
        @staticmethod
        def doc2path(docname):
            return Path(docname + ".ipynb")


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_solutions_are_collapsed_in_jupyterlab_as_on_the_site(path):
    """Predict before you see: JupyterLab shows a solution cell folded (code and output) until the
    reader opens it, as the book's "Show solution" button does."""
    cells = json.loads(path.read_text())["cells"]
    solutions = [c for c in cells if "solution" in c["metadata"].get("tags", [])]
    assert solutions, f"{path.name} has no solution cell"
    for cell in solutions:
        assert cell["metadata"].get("jupyter") == {"source_hidden": True, "outputs_hidden": True}, (
            f"{path.name}: a solution cell is open in JupyterLab; set its metadata "
            f'"jupyter": {{"source_hidden": true, "outputs_hidden": true}}:\n{"".join(cell["source"])[:120]}')


def test_solution_cells_fold_and_chart_cells_widen():
    chart = {"output_type": "display_data",
             "data": {"text/html": ['<div id="altair-viz-1"></div>\n', "<script>...</script>"]}}
    widget = {"output_type": "display_data",
              "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "text/plain": "VBox()"}}
    text = {"output_type": "stream", "name": "stdout", "text": ['id="altair-viz-" in a print\n']}
    nb = {"cells": [
        {"cell_type": "code", "metadata": {"tags": ["solution", "hide-input"]}, "source": "answer = 42"},
        {"cell_type": "code", "metadata": {"tags": ["check"]}, "source": "check(answer)"},
        {"cell_type": "code", "metadata": {}, "source": "chart", "outputs": [chart]},
        {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "chart", "outputs": [chart]},
        {"cell_type": "code", "metadata": {}, "source": "print()", "outputs": [text]},
        {"cell_type": "code", "metadata": {}, "source": "Explorer()", "outputs": [widget]},
    ]}
    source = [json.dumps(nb)]
    load_extension().tag_cells(FakeApp, "notebooks/99-x", source)
    solution, check, chart_cell, chart_solution, printed, explorer = json.loads(source[0])["cells"]
    assert solution["metadata"]["tags"] == ["solution", "hide-cell"]
    assert solution["metadata"]["mystnb"] == {"code_prompt_show": "Show solution",
                                              "code_prompt_hide": "Hide solution"}
    assert check["metadata"] == {"tags": ["check"]}
    assert chart_cell["metadata"]["tags"] == ["full-width"]
    assert chart_solution["metadata"]["tags"] == ["solution", "hide-cell", "full-width"]
    assert printed["metadata"] == {}
    assert explorer["metadata"]["tags"] == ["full-width"]


THEME = {"repository_url": "https://github.com/acme/kafkasim", "repository_branch": "main", "path_to_docs": "",
         "launch_buttons": {"notebook_interface": "jupyterlab", "binderhub_url": "https://mybinder.org"}}


def test_an_explorer_shows_its_picture_and_a_run_it_live_link_instead_of_dead_widgets():
    from kafkasim import Scenario
    from kafkasim.viz.widgets import Explorer

    bundle = Explorer(Scenario(duration_ms=20_000), controls=["members"], debounce_ms=0)._repr_mimebundle_()
    other = {"output_type": "display_data", "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "w"},
                                                     "text/html": "<b>another widget</b>"}}
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "explorer",
                     "outputs": [{"output_type": "display_data", "data": bundle}, other]}]}
    source = [json.dumps(nb)]

    class App(FakeApp):
        class config:
            html_theme_options = THEME

    load_extension().static_explorers(App, "notebooks/11-consumer-protocol", source)
    explorer, kept = json.loads(source[0])["cells"][0]["outputs"]
    assert "application/vnd.jupyter.widget-view+json" not in explorer["data"]  # no inert controls
    page = explorer["data"]["text/html"]
    assert "href='https://mybinder.org/v2/gh/acme/kafkasim/main?urlpath=lab/tree/notebooks/11-consumer-protocol.ipynb'" \
        in page and ">Run it live</a>" in page
    assert page.count('id="altair-viz-') == 2 and "Key numbers" in page  # the first run's two charts, offline
    assert kept == other  # a widget that is not an explorer is left alone


def test_the_run_it_live_link_follows_the_repository_settings():
    ext = load_extension()
    assert ext.launch_url({**THEME, "path_to_docs": "book/", "repository_branch": "v2"}, "notebooks/01-x") == \
        "https://mybinder.org/v2/gh/acme/kafkasim/v2?urlpath=lab/tree/book/notebooks/01-x.ipynb"
    assert ext.launch_url({**THEME, "launch_buttons": {}}, "notebooks/01-x") == \
        "https://github.com/acme/kafkasim/blob/main/notebooks/01-x.ipynb"


@pytest.mark.parametrize("member, package, target", [
    ("package/build/vega.min.js", "vega", "vega/vega.min.js"),
    ("package/build/vega.js", "vega", None),
    ("package/LICENSE", "vega-lite", "vega/LICENSE-vega-lite"),
    ("package/dist/embed.js", "@jupyter-widgets/html-manager", "html-manager/embed.js"),
    ("package/dist/embed-amd.js", "@jupyter-widgets/html-manager", None),   # needs RequireJS
    ("package/dist/embed.js.map", "@jupyter-widgets/html-manager", None),
    ("package/es5/input/tex/extensions/cancel.js", "mathjax", "mathjax/input/tex/extensions/cancel.js"),
    ("package/es5/tex-svg-full.js", "mathjax", None),
])
def test_vendored_files(member, package, target):
    assert vendor_js._target(member, package) == target


def test_altair_shim_matches_altairs_default_renderer():
    # Altair's HTML output skips its CDN download of a library when
    # VEGA_DEBUG[lib.replace("-", "") + "_version"] equals the version it asks for:
    # the shim written by vendor_js must set exactly those keys and values.
    import altair as alt
    import pandas as pd

    html = alt.Chart(pd.DataFrame({"x": [1]})).mark_point().encode(x="x")._repr_mimebundle_()
    html = html[0]["text/html"] if isinstance(html, tuple) else html["text/html"]
    assert 'var key = `${lib.replace("-", "")}_version`;' in html
    assert "VEGA_DEBUG[key] == version" in html
    shim = vendor_js.altair_versions()
    for lib in ("vega", "vega-lite", "vega-embed"):
        assert f'maybeLoadScript("{lib}", "{shim[lib.replace("-", "") + "_version"]}")' in html


def test_other_widgets_dead_without_a_kernel_show_what_they_showed_and_jslinked_ones_stay():
    model = lambda name, **state: {"model_name": name, "state": state}  # noqa: E731
    models = {
        "box": model("VBoxModel", children=["IPY_MODEL_slider", "IPY_MODEL_out"]),
        "slider": model("IntSliderModel", value=3, disabled=False, description="topics"),
        "out": model("OutputModel", outputs=[
            {"output_type": "stream", "name": "stdout", "text": "3 topics <b>\n"},
            {"output_type": "display_data", "data": {"text/html": "<div id=\"altair-viz-7\"></div>",
                                                     "text/plain": "chart"}}]),
        "pair": model("VBoxModel", children=["IPY_MODEL_a", "IPY_MODEL_b"]),
        "a": model("IntSliderModel", value=1, disabled=False), "b": model("IntTextModel", value=1, disabled=False),
        "link": model("LinkModel", source=["IPY_MODEL_a", "value"], target=["IPY_MODEL_b", "value"]),
    }
    view = lambda model_id: {"output_type": "display_data", "data": {  # noqa: E731
        "application/vnd.jupyter.widget-view+json": {"model_id": model_id}, "text/plain": "VBox()"}}
    nb = {"metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": models}}},
          "cells": [{"cell_type": "code", "metadata": {}, "source": "display(box)", "outputs": [view("box")]},
                    {"cell_type": "code", "metadata": {}, "source": "pair", "outputs": [view("pair")]}]}
    source = [json.dumps(nb)]

    class App(FakeApp):
        class config:
            html_theme_options = THEME

    load_extension().static_explorers(App, "notebooks/07-x", source)
    dead, linked = (cell["outputs"][0] for cell in json.loads(source[0])["cells"])
    assert list(dead["data"]) == ["text/html"]
    page = dead["data"]["text/html"]
    assert "<pre>3 topics &lt;b&gt;\n</pre><div id=\"altair-viz-7\"></div>" in page  # what the Output showed
    assert "href='https://mybinder.org/v2/gh/acme/kafkasim/main?urlpath=lab/tree/notebooks/07-x.ipynb'" in page
    assert linked == view("pair")  # jslinked: it works on the page


# -- the repository the launch buttons open -----------------------------------------------------------
def test_repository_url_comes_from_the_environment_then_origin_then_the_config(tmp_path, monkeypatch):
    ext = load_extension()
    configured = "https://github.com/kafkasim/kafkasim"
    no_git = tmp_path / "not-a-clone"
    no_git.mkdir()
    assert ext.repository_url(configured, no_git, environ={}) == configured
    fork = {ext.REPOSITORY_ENV: "https://github.com/someone/kafkasim-fork.git"}
    assert ext.repository_url(configured, no_git, environ=fork) == "https://github.com/someone/kafkasim-fork"
    # A clone's origin on GitHub, in git's SSH spelling, wins over the config; a local path does not.
    clone = tmp_path / "clone"
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "remote", "add", "origin", "git@github.com:teacher/kafkasim.git"],
                   check=True)
    assert ext.repository_url(configured, clone, environ={}) == "https://github.com/teacher/kafkasim"
    assert ext.repository_url(configured, clone, environ=fork) == "https://github.com/someone/kafkasim-fork"
    subprocess.run(["git", "-C", str(clone), "remote", "set-url", "origin", "/srv/git/kafkasim"], check=True)
    assert ext.repository_url(configured, clone, environ={}) == configured


def test_repository_url_refuses_placeholders_and_hosts_binder_cannot_open(tmp_path):
    ext = load_extension()
    for bad in ("https://github.com/your-" + "org/kafkasim", "https://gitlab.com/kafkasim/kafkasim", "",
                "https://github.com/TODO/kafkasim"):
        with pytest.raises(ValueError, match="KAFKASIM_REPOSITORY_URL"):
            ext.repository_url(bad, tmp_path, environ={})


def test_no_placeholder_repository_anywhere_in_the_repository():
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True)
    placeholder = "your-" + "org/kafkasim"  # spelled apart, so that this file is not a hit itself
    hits = [name for name in tracked.stdout.splitlines()
            if (ROOT / name).is_file() and placeholder in (ROOT / name).read_text(errors="ignore")]
    assert hits == []
