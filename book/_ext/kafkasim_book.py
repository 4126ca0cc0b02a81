"""Sphinx extension of the kafkasim book: the chapter conventions of book/README.md, applied when
the book is built (the notebooks themselves stay plain Jupyter notebooks).

* Solutions: a code cell tagged ``solution`` is folded, input and output, behind a "Show solution"
  toggle (myst-nb's ``hide-cell``, whatever other ``hide-*`` tag it has). The cell was executed like
  every other, and its output usually gives the answer away, so both stay hidden until clicked.
* Claims: a code cell tagged ``claim`` computes a sentence of the chapter from its run and checks
  it (``kafkasim.viz.claims``); the page shows the sentence only (myst-nb's ``remove-input``).
* Wide outputs: a code cell whose output is an Altair chart or a widget (an explorer) gets the
  theme's ``full-width`` tag, which lets it use the right margin too: most charts, legends
  included, are wider than the text column of a 1366-pixel screen, and a reader would otherwise
  scroll each one sideways.
* Altair: a page with Altair output gets the vendored vega, vega-lite and vega-embed and the shim
  that tells Altair's HTML output they are loaded (``kafkasim_vega_js`` in _config.yml, files from
  tools/vendor_js.py). Sphinx puts them in <head> without ``defer``, so they run before the chart's
  inline script, which then skips its CDN download. Other pages do not load vega at all.
* Live explorers: a cell output of ``kafkasim.viz.widgets.Explorer`` carries, beside its widget
  view, its first run as HTML (charts, notes, key numbers) with a "Run it live" link. A static
  page has no kernel, so the widgets would look alive and do nothing: the page shows the picture,
  and the link opens the chapter in JupyterLab on Binder (the launch URL of the repository settings
  of _config.yml, as the launch button builds it; the repository's notebook without Binder).
  Other widgets whose controls no jslink moves (``interactive_output`` and the like) get the same
  treatment, their picture made of what their Output widgets showed when the chapter ran (the
  notebook's saved widget state); jslinked widgets, which work without a kernel, stay.
* The repository URL (launch buttons, repository button, ``{{ repository_url }}`` in a page) is
  resolved once, by `repository_url`: the environment variable KAFKASIM_REPOSITORY_URL (a fork's
  build, e.g. ``KAFKASIM_REPOSITORY_URL=https://github.com/me/kafkasim make book``), else this
  clone's ``git remote get-url origin`` when it is on GitHub, else ``repository.url`` of
  _config.yml (the published project). Binder and Colab open GitHub repositories only, so the
  build stops on anything but ``https://github.com/OWNER/REPO``, and on a placeholder.
* Two fixes for a clean browser console: a script registered twice is written once (sphinx-thebe
  0.3 adds its inline config twice under Sphinx 7, and the second ``const`` is a SyntaxError), and
  _config.yml gives the theme a default colour mode (without one, pydata-sphinx-theme logs an error
  on a reader's first visit).
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
from pathlib import Path

SOLUTION_TAG = "solution"
SOLUTION_PROMPTS = {"code_prompt_show": "Show solution", "code_prompt_hide": "Hide solution"}
ALTAIR_OUTPUT = 'id="altair-viz-'  # the div of every chart Altair's HTML renderer writes
WIDGET_OUTPUT = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
CLAIM_TAG = "claim"  # kafkasim.viz.claims.CLAIM_TAG
EXPLORER_MARK = 'data-kafkasim-explorer="static"'  # kafkasim.viz.widgets.STATIC_MARK
RUN_LIVE_HREF = "#kafkasim-run-live"  # kafkasim.viz.widgets.RUN_LIVE_HREF
WIDE_TAG = "full-width"  # sphinx-book-theme: the cell may extend into the right margin


def _is_wide(cell: dict) -> bool:
    return any(WIDGET_OUTPUT in data or ALTAIR_OUTPUT in "".join(data.get("text/html", ""))
               for data in (output.get("data", {}) for output in cell.get("outputs", [])))


def tag_cells(app, docname: str, source: list[str]) -> None:
    """source-read: fold ``solution`` cells and widen chart cells before myst-nb reads the notebook."""
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    notebook = json.loads(source[0])
    for cell in notebook.get("cells", []):
        meta = cell.setdefault("metadata", {})
        tags = meta.get("tags", [])
        if SOLUTION_TAG in tags:
            tags = [t for t in tags if not t.startswith("hide-")] + ["hide-cell"]
            meta.setdefault("mystnb", {}).update(SOLUTION_PROMPTS)
        if CLAIM_TAG in tags and "remove-input" not in tags:
            tags = tags + ["remove-input"]
        if _is_wide(cell) and WIDE_TAG not in tags:
            tags = tags + [WIDE_TAG]
        if tags:
            meta["tags"] = tags
    source[0] = json.dumps(notebook)


def launch_url(theme_options: dict, docname: str) -> str:
    """Where "Run it live" goes: the chapter in JupyterLab on Binder, built as the launch button
    builds it (sphinx-book-theme, from the html_theme_options that jupyter-book makes of the
    repository and launch_buttons settings); without a Binder, the repository's notebook."""
    repo = theme_options.get("repository_url", "").rstrip("/")
    branch = theme_options.get("repository_branch") or "main"
    path = "/".join(p for p in (theme_options.get("path_to_docs", "").strip("/"), f"{docname}.ipynb") if p)
    launch = theme_options.get("launch_buttons") or {}
    binder = (launch.get("binderhub_url") or "").rstrip("/")
    if binder and repo.startswith("https://github.com/"):
        ui = "lab/tree" if launch.get("notebook_interface", "jupyterlab") == "jupyterlab" else "tree"
        return f"{binder}/v2/gh/{repo.removeprefix('https://github.com/')}/{branch}?urlpath={ui}/{path}"
    return f"{repo}/blob/{branch}/{path}"


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def _reached(models: dict, model_id: str, seen: set[str]) -> None:
    """The widget models a view shows: the model and, through its state, its children."""
    if model_id in seen or model_id not in models:
        return
    seen.add(model_id)
    for ref in re.findall(r"IPY_MODEL_([\w-]+)", json.dumps(models[model_id].get("state", {}))):
        _reached(models, ref, seen)


def _dead(models: dict, ids: set[str]) -> bool:
    """A control among them that no jslink moves and that is not disabled (tools/site_check.py's rule)."""
    linked = {str(end[0]).removeprefix("IPY_MODEL_") for m in models.values()
              if m.get("model_name", "").endswith("LinkModel")
              for end in (m.get("state", {}).get("source"), m.get("state", {}).get("target")) if end}
    for model_id in ids - linked:
        state, name = models[model_id].get("state", {}), models[model_id].get("model_name", "")
        if (("value" in state and "disabled" in state) or name == "ButtonModel") and not state.get("disabled"):
            return True
    return False


def _shown(models: dict, ids: set[str]) -> str:
    """What the widgets' Output models showed when the chapter ran, as HTML."""
    parts = []
    for model_id in sorted(ids):
        if models[model_id].get("model_name") != "OutputModel":
            continue
        for output in models[model_id].get("state", {}).get("outputs", []):
            data = output.get("data", {})
            if "text/html" in data:
                parts.append(_text(data["text/html"]))
            elif "image/png" in data:
                parts.append(f"<img src='data:image/png;base64,{_text(data['image/png']).strip()}'>")
            elif output.get("output_type") == "stream" or "text/plain" in data:
                parts.append(f"<pre>{html.escape(_text(output.get('text') or data.get('text/plain', '')))}</pre>")
    return "".join(parts)


def _picture(body: str, url: str) -> str:
    return ("<div class='kafkasim-explorer-static'><p><b>Live widgets.</b> Their controls need a running Python "
            "kernel: here is what they showed when the chapter ran. "
            f"<a class='kafkasim-run-live' href='{url}'>Run it live</a> to move them (the chapter opens in "
            f"JupyterLab).</p>{body}</div>")


def static_explorers(app, docname: str, source: list[str]) -> None:
    """source-read: a widget output whose controls would be dead without a kernel keeps its picture
    and a "Run it live" link, not its widget view (an explorer's own picture when it has one)."""
    if not str(app.env.doc2path(docname)).endswith(".ipynb") or WIDGET_OUTPUT not in source[0]:
        return
    notebook = json.loads(source[0])
    models = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    url = launch_url(app.config.html_theme_options, docname)
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_OUTPUT not in data:
                continue
            page = _text(data.get("text/html", ""))
            if EXPLORER_MARK in page:
                del data[WIDGET_OUTPUT]
                data["text/html"] = page.replace(RUN_LIVE_HREF, url)
                continue
            ids: set[str] = set()
            _reached(models, data[WIDGET_OUTPUT].get("model_id", ""), ids)
            if _dead(models, ids):
                output["data"] = {"text/html": _picture(_shown(models, ids), url)}
    source[0] = json.dumps(notebook)


def page_scripts(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """html-page-context: vega on pages that draw Altair charts; each script once."""
    if ALTAIR_OUTPUT in context.get("body", ""):
        for path in app.config.kafkasim_vega_js:
            app.add_js_file(path)
    scripts, unique = context.get("script_files", []), {}
    for script in scripts:
        unique.setdefault((script.filename or "", tuple(sorted(script.attributes.items()))), script)
    scripts[:] = unique.values()


REPOSITORY_ENV = "KAFKASIM_REPOSITORY_URL"
GITHUB_URL = re.compile(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)"
                        r"(?P<owner>[A-Za-z0-9][A-Za-z0-9-]*)/(?P<repo>[A-Za-z0-9._-]+?)(?:\.git)?/?$")
PLACEHOLDERS = ("your-org", "example.com", "TODO")  # tools/site_check.py refuses links to these too


def github_url(url: str) -> str | None:
    """https://github.com/OWNER/REPO for a GitHub remote in any of git's spellings, else None."""
    found = GITHUB_URL.match(url.strip())
    return f"https://github.com/{found['owner']}/{found['repo']}" if found else None


def origin_url(where: Path) -> str | None:
    """This clone's `origin` remote, if it is on GitHub."""
    try:
        out = subprocess.run(["git", "-C", str(where), "remote", "get-url", "origin"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return github_url(out.stdout) if out.returncode == 0 else None


def repository_url(configured: str, where: Path, environ=os.environ) -> str:
    """The repository the book's buttons open (see the module docstring for the order)."""
    chosen = environ.get(REPOSITORY_ENV) or origin_url(where) or configured
    url = github_url(chosen or "")
    if url is None or any(p in url for p in PLACEHOLDERS):
        raise ValueError(f"repository URL {chosen!r} is not https://github.com/OWNER/REPO: set {REPOSITORY_ENV} "
                         f"or repository.url in book/_config.yml (Binder and Colab open GitHub repositories)")
    return url


def add_repository(app, config) -> None:
    """config-inited: the resolved repository URL for the theme's buttons and {{ repository_url }}."""
    url = repository_url(config.html_theme_options.get("repository_url", ""), Path(app.srcdir))
    config.html_theme_options = {**config.html_theme_options, "repository_url": url}
    config.myst_substitutions = {**config.myst_substitutions, "repository_url": url}


def setup(app):
    app.add_config_value("kafkasim_vega_js", [], "html")
    app.connect("config-inited", add_repository)
    app.connect("source-read", tag_cells)
    app.connect("source-read", static_explorers)
    app.connect("html-page-context", page_scripts, priority=900)  # after other extensions
    return {"parallel_read_safe": True, "parallel_write_safe": True}
