"""How charts show in a notebook without internet: the Altair renderer "kafkasim".

Altair 6 writes Vega-Lite 6. JupyterLab 4 (and Notebook 7, VS Code) draw Vega-Lite charts with
the Vega they bundle, but only up to Vega-Lite 5; for anything newer Altair's default renderer
falls back to HTML whose script downloads vega from a CDN, so in a classroom without a network
every chart stays blank. `import kafkasim.viz` therefore switches Altair (unless the user chose a
renderer) to "kafkasim", which emits:

- in a live notebook: the Vega-Lite 5 mime type, drawn offline by the front end's own Vega (the
  workbook's specs use nothing Vega-Lite 6 added; `tools/lab_check.py` checks they draw);
- where only HTML works, Altair's HTML: Colab, and notebooks executed for the book, whose pages
  serve a vendored vega in place of the CDN (`tools/book.py` sets KAFKASIM_CHARTS=html). The HTML
  draws SVG rather than Vega's default canvas: its text is text, so the book's stylesheet can scale
  a chart to a phone's width and the site check (tools/site_check.py) can find labels that overlap.
"""

from __future__ import annotations

import os
import sys

import altair as alt
from altair.vegalite.v6.display import html_renderer  # Altair's "default"/"html"/"colab" renderer

ENV = "KAFKASIM_CHARTS"  # "html" or "mimetype"; unset: mimetype, except in Colab
MIME_TYPE = "application/vnd.vegalite.v5+json"
SCHEMA_V5 = "https://vega.github.io/schema/vega-lite/v5.json"


def output_kind() -> str:
    kind = os.environ.get(ENV) or ("html" if "google.colab" in sys.modules else "mimetype")
    if kind not in ("html", "mimetype"):
        raise ValueError(f"{ENV} must be 'html' or 'mimetype', got {kind!r}")
    return kind


def renderer(spec: dict, **options):
    """Altair renderer: a mime bundle (and its metadata) for a top-level Vega-Lite spec dict."""
    if output_kind() == "html":
        embed = {"renderer": "svg", **(options.pop("embed_options", None) or {})}
        return html_renderer(spec, embed_options=embed, **options)
    bundle = {MIME_TYPE: {**spec, "$schema": SCHEMA_V5}, "text/plain": "<kafkasim chart>"}
    return (bundle, {MIME_TYPE: options}) if options else bundle


def enable() -> None:
    """Register "kafkasim" and make it active, unless the user already picked another renderer."""
    alt.renderers.register("kafkasim", renderer)
    if alt.renderers.active == "default":
        alt.renderers.enable("kafkasim")
