"""The built book, opened page by page in headless Chromium with no network but the site's own.

Builds the CI-sized book (tools/book.py --ci) into build/book-ci/. The chapters' executed copies
come from build/executed-ci/, which tests/test_notebooks.py has just written when the whole suite
runs (this file sorts after it), so no chapter is executed twice; run alone, this test executes
what is missing or stale. tools/site_check.py does the browsing; screenshots of every page land in
build/screenshots/ for review.
"""

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import book  # noqa: E402
import site_check  # noqa: E402

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


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_page_has_launch_and_download_buttons(site, path):
    page = (site / "notebooks" / f"{path.stem}.html").read_text()
    repo_path = f"notebooks/{path.name}"  # the buttons open the repository's notebook itself
    assert re.search(rf'href="https://mybinder\.org/v2/gh/[^"]+\?urlpath=lab/tree/{repo_path}"', page)
    assert re.search(rf'href="https://colab\.research\.google\.com/github/[^"]+/blob/[^"]+/{repo_path}"', page)
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
