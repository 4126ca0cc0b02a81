"""The built book, opened page by page in headless Chromium with no network but the site's own.

Builds the CI-sized book (tools/book.py --ci) into build/book-ci/. The chapters' executed copies
come from build/executed-ci/, which tests/test_notebooks.py has just written when the whole suite
runs (this file sorts after it, and `make test` keeps them on one worker), so no chapter is executed
twice; run alone, this test executes what is missing or stale. tools/site_check.py does the
browsing; screenshots of every page land in build/screenshots/ for review.
"""

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import book  # noqa: E402
import site_check  # noqa: E402
from test_book import load_extension  # noqa: E402

SCREENSHOTS = ROOT / "build" / "screenshots"
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# The first test builds the book (the `site` fixture), which executes the chapters that are missing
# or stale in build/executed-ci/: all of them when this file runs alone.
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def site():
    return book.build(ci=True)


@pytest.fixture(scope="module")
def reports(site, chromium):
    return {r.path: r for r in site_check.check_site(site, SCREENSHOTS, chromium)}


def test_every_page_renders_offline_without_errors(site, reports):
    assert set(reports) == set(site_check.pages(site))
    failures = {path: r.problems for path, r in reports.items() if r.problems}
    assert not failures, json.dumps(failures, indent=1)
    for r in reports.values():
        assert all((SCREENSHOTS / name).stat().st_size > 0 for name in r.screenshots)


def test_every_chapter_is_in_the_table_of_contents_in_order(site):
    nav = (site / "book" / "intro.html").read_text()
    linked = re.findall(r'href="\.\./(notebooks/[^"#]+)\.html"', nav)
    expected = [f"notebooks/{p.stem}" for p in CHAPTERS]
    assert list(dict.fromkeys(linked)) == expected


@pytest.fixture(scope="module")
def repository():
    """OWNER/REPO and branch the book's buttons must open: resolved as the build resolves them."""
    config = yaml.safe_load((ROOT / "book" / "_config.yml").read_text())["repository"]
    url = load_extension().repository_url(config["url"], ROOT)
    return url.removeprefix("https://github.com/"), config["branch"]


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_page_has_launch_and_download_buttons(site, path, repository):
    page = (site / "notebooks" / f"{path.stem}.html").read_text()
    repo_path = f"notebooks/{path.name}"  # the buttons open the repository's notebook itself
    (owner_repo, branch) = repository
    # sphinx-book-theme's launch URLs: Binder's /v2/gh/OWNER/REPO/BRANCH with the notebook as the
    # JupyterLab path, Colab's /github/OWNER/REPO/blob/BRANCH/PATH.
    assert f'href="https://mybinder.org/v2/gh/{owner_repo}/{branch}?urlpath=lab/tree/{repo_path}"' in page
    assert f'href="https://colab.research.google.com/github/{owner_repo}/blob/{branch}/{repo_path}"' in page
    assert f'href="https://github.com/{owner_repo}"' in page  # the repository button
    assert f'href="../_sources/{repo_path}"' in page
    assert (site / "_sources" / repo_path).exists()


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_solutions_are_hidden_and_executed(reports, path):
    nb = nbformat.read(path, as_version=4)
    solutions = sum("solution" in c.metadata.get("tags", []) for c in nb.cells)
    facts = reports[f"notebooks/{path.stem}.html"].facts
    assert (facts["solutions"], facts["solutionsClosed"], facts["solutionsExecuted"]) == (solutions,) * 3


def test_demo_page_draws_and_interacts_without_a_kernel(reports):
    facts = reports["book/offline-pages.html"].facts
    assert facts["charts"] == facts["chartsDrawn"] == 1
    assert facts["slidersRedrawing"] == facts["chartSliders"] == 1  # the bound slider redraws the chart
    assert facts["widgetsRendered"] > 0 and facts["widgetLinks"] == 1
    assert facts["widgetLink"]["after"] != facts["widgetLink"]["before"]  # jslink, in the browser
    assert facts["mathRendered"] == facts["math"] > 0
    assert facts["solutionOutput"].startswith("14 release lines")


def test_the_check_catches_what_it_should(tmp_path, chromium):
    # A page that fetches vega from a CDN (as Altair's output does by default), logs an error and
    # leaves a chart empty must fail, with each problem named.
    (tmp_path / "index.html").write_text(
        '<html><head><link rel="icon" href="data:,"></head><body>'
        '<div id="altair-viz-1"></div>'
        '<script src="https://cdn.jsdelivr.net/npm/vega@6"></script>'
        '<script src="missing.js"></script>'
        '<script>console.error("boom")</script></body></html>')
    (report,) = site_check.check_site(tmp_path, tmp_path / "shots", chromium, render_timeout=3)
    problems = "\n".join(report.problems)
    assert "blocked request to outside the site: https://cdn.jsdelivr.net/npm/vega@6" in problems
    assert "HTTP 404" in problems and "missing.js" in problems
    assert "console.error: boom" in problems
    assert "1 of 1 charts did not draw" in problems
    assert "canvas" not in problems and "overlapping" not in problems  # nothing drawn, nothing to read


def _svg_chart(texts: str) -> str:
    """A drawn chart as the book's pages have it: vega's SVG (class marks) in an Altair div."""
    return (f'<div class="cell_output"><div id="altair-viz-1"><svg class="marks" width="300" '
            f'height="100" viewBox="0 0 300 100"><rect width="10" height="10"/>{texts}</svg></div></div>')


def test_the_check_catches_bad_layout_overlaps_and_placeholders(tmp_path, chromium):
    placeholder = "https://github.com/your-" + "org/kafkasim"  # spelled apart: the repository has none
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<html><head><link rel="icon" href="data:,"><meta name="viewport" content="width=device-width">'
        "</head><body>"
        + _svg_chart('<text x="10" y="50" font-size="12">c-2 paused 40 s</text>'
                     '<text x="30" y="52" font-size="12">c-3 crashed</text>')
        + '<div id="altair-viz-2"><canvas width="40" height="20"></canvas></div>'
        '<div style="width: 801px">a page 801 px wide</div>'
        '<div style="width: 300px; overflow: hidden"><table style="width: 900px"><tr><td>wide</td></tr></table></div>'
        '<pre style="white-space: pre; overflow-x: auto; width: 300px">' + "x = 1; " * 80 + "</pre>"
        f'<a href="{placeholder}">repository</a> <a href="https://example.com/x">x</a> <a href="TODO">later</a>'
        "</body></html>")
    good = tmp_path / "good.html"  # rotated labels whose boxes' corners touch; a wide table in its own box
    good.write_text(
        '<html><head><link rel="icon" href="data:,"><meta name="viewport" content="width=device-width">'
        "</head><body>"
        + _svg_chart('<text transform="translate(20,80) rotate(-45)" font-size="10">orders-10</text>'
                     '<text transform="translate(40,80) rotate(-45)" font-size="10">orders-11</text>')
        + '<div style="max-width: 100%; overflow-x: auto"><table style="width: 900px"><tr><td>wide</td></tr></table>'
        '</div><pre style="white-space: pre-wrap">' + "x = 1; " * 80 + "</pre></body></html>")
    reports = {r.path: r for r in site_check.check_site(tmp_path, tmp_path / "shots", chromium, render_timeout=5)}
    problems = "\n".join(reports["bad.html"].problems)
    assert "chart 0: 1 overlapping text labels: 'c-2 paused 40 s' over 'c-3 crashed'" in problems
    assert "chart 1 is drawn on a canvas: its labels cannot be checked" in problems
    # The 801-px block and the body's 8-px margin: 809 px.
    assert "the page is 809 px wide at a 390 px viewport (scrolls sideways): div (801 px) stick out" in problems
    assert "at a 1366 px viewport" not in problems  # 809 px fit a 1366-px screen
    assert "a table hides columns at 1366 px: table (900 px) in div (300 px)" in problems
    assert "1 of 1 code blocks scroll sideways at 1366 px" in problems
    assert "1 of 1 code blocks scroll sideways at 390 px" in problems
    for href in (placeholder, "https://example.com/x", "TODO"):
        assert problems.count(f"placeholder link: {href}") == 1
    assert reports["good.html"].problems == []
    assert reports["good.html"].facts["layout"][390]["pageWidth"] == 390


def test_run_it_yourself_page_names_the_repository_the_buttons_open(site, repository):
    page = (site / "book" / "run-it-yourself.html").read_text()
    assert f"https://github.com/{repository[0]}, and run it" in page  # {{ repository_url }}, resolved


def _widget_page(links: bool) -> str:
    """A page as myst-nb writes one with widgets (their saved state and a view), but no widget
    manager: a slider and a number box, jslinked or not, and a disabled slider."""
    model = lambda name, **state: {"model_name": name, "model_module": "@jupyter-widgets/controls",  # noqa: E731
                                   "model_module_version": "2.0.0", "state": state}
    state = {
        "box": model("VBoxModel", children=["IPY_MODEL_slider", "IPY_MODEL_number", "IPY_MODEL_off"]),
        "slider": model("IntSliderModel", value=3, disabled=False, description="members"),
        "number": model("IntTextModel", value=3, disabled=False, description="members"),
        "off": model("IntSliderModel", value=1, disabled=True, description="classic only"),
    }
    if links:
        state["link"] = model("LinkModel", source=["IPY_MODEL_slider", "value"], target=["IPY_MODEL_number", "value"])
    return ('<html><head><link rel="icon" href="data:,">'
            '<script type="application/vnd.jupyter.widget-state+json">'
            + json.dumps({"version_major": 2, "version_minor": 0, "state": state}) + "</script></head><body>"
            '<script type="application/vnd.jupyter.widget-view+json">{"version_major": 2, "version_minor": 0, '
            '"model_id": "box"}</script></body></html>')


def test_the_check_catches_a_widget_control_that_is_dead_without_a_kernel(tmp_path, chromium):
    (tmp_path / "dead.html").write_text(_widget_page(links=False))
    (tmp_path / "linked.html").write_text(_widget_page(links=True))
    dead, linked = site_check.check_site(tmp_path, tmp_path / "shots", chromium, render_timeout=3)
    assert dead.facts["deadControls"] == ["IntSliderModel members", "IntTextModel members"]  # not the disabled one
    assert ("2 widget controls neither jslinked nor disabled (dead without a kernel): IntSliderModel members, "
            "IntTextModel members") in dead.problems
    assert linked.facts["deadControls"] == []
    assert not any("jslinked nor disabled" in p for p in linked.problems)
