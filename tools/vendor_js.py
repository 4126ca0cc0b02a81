"""Vendor the JavaScript the book's pages run, from the npm registry, so no page loads anything
from outside the site.

Which packages, at which versions:

* vega, vega-lite, vega-embed: the versions the installed Altair asks for (``alt.VEGA_VERSION``,
  ``alt.VEGALITE_VERSION``, ``alt.VEGAEMBED_VERSION``), i.e. what Altair's own HTML output would
  fetch from its CDN; npm resolves a major version ("6") to its newest release, as the CDN does.
* ``@jupyter-widgets/html-manager``: the range the installed ipywidgets declares
  (``ipywidgets._version.__html_manager_version__``, what ``ipywidgets.embed`` would fetch); its
  stand-alone ``dist/embed.js`` (no RequireJS) and the fonts it loads.
* mathjax 3, the major version Sphinx's mathjax extension loads by default: the combined
  ``tex-mml-chtml.js`` and the pieces it loads on demand (TeX extensions, CHTML fonts, menu).

Files land in ``book/_vendor/`` (gitignored); the book's ``_config.yml`` names them. ``versions.json``
records the requested ranges and the resolved versions, so a rerun with unchanged Altair and
ipywidgets does nothing. Two small shims are written beside them: ``vega/altair-offline.js`` tells
Altair's HTML output that the three vega libraries are already on the page (see
book/_ext/kafkasim_book.py), and ``html-manager/mathjax2-compat.js`` gives the widget manager the
MathJax 2 call it makes on MathJax 3.

Usage: python tools/vendor_js.py [--force]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "book" / "_vendor"

# package -> (destination folder, source folder in the tarball's package/, what to take from it:
# files, or folders ending in "/"; "" takes the whole folder). Each package's LICENSE comes along.
FILES = {
    "vega": ("vega", "build", ["vega.min.js"]),
    "vega-lite": ("vega", "build", ["vega-lite.min.js"]),
    "vega-embed": ("vega", "build", ["vega-embed.min.js"]),
    "@jupyter-widgets/html-manager": ("html-manager", "dist", [""]),
    "mathjax": ("mathjax", "es5", ["tex-mml-chtml.js", "input/", "output/chtml/", "ui/", "a11y/", "adaptors/"]),
}
# html-manager's dist/ also holds the RequireJS bundles and source maps, which the pages do not use.
SKIP_SUFFIXES = (".map", "-amd.js")

ALTAIR_SHIM = """\
// Written by tools/vendor_js.py. Altair's HTML output loads vega, vega-lite and vega-embed from a
// CDN unless window.VEGA_DEBUG says that the versions it asks for are already loaded. The page
// loaded the vendored copies ({resolved}) just before this file.
window.VEGA_DEBUG = Object.assign(window.VEGA_DEBUG || {{}}, {versions});
"""

MATHJAX2_SHIM = """\
// Written by tools/vendor_js.py. The ipywidgets HTML manager typesets widget labels with MathJax 2's
// MathJax.Hub.Queue; the book runs MathJax 3 (typesetPromise). Keep a MathJax.Hub on whatever
// object window.MathJax is: Sphinx's config object first, then MathJax 3's own, which replaces it.
(() => {
  const hub = {
    Queue: (...jobs) => {
      const mathjax = window.MathJax;
      if (!mathjax.startup || !mathjax.typesetPromise) return;
      const elements = jobs.map((job) => Array.isArray(job) ? job[2] : undefined).filter(Boolean);
      mathjax.startup.promise.then(() => mathjax.typesetPromise(elements)).catch(console.warn);
    },
  };
  let current = window.MathJax;
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: () => current,
    set: (value) => { current = value; if (value && !value.Hub) value.Hub = hub; },
  });
  window.MathJax = current || {};
})();
"""


def requested() -> dict[str, str]:
    """npm version ranges matched to the installed Altair and ipywidgets."""
    import altair as alt
    from ipywidgets import _version as widgets_version

    return {
        "vega": alt.VEGA_VERSION,
        "vega-lite": alt.VEGALITE_VERSION,
        "vega-embed": alt.VEGAEMBED_VERSION,
        "@jupyter-widgets/html-manager": widgets_version.__html_manager_version__,
        "mathjax": "3",
    }


def altair_versions() -> dict[str, str]:
    """The VEGA_DEBUG keys and values Altair's HTML template compares (``lib.replace("-", "")``)."""
    import altair as alt

    return {"vega_version": alt.VEGA_VERSION, "vegalite_version": alt.VEGALITE_VERSION,
            "vegaembed_version": alt.VEGAEMBED_VERSION}


def _target(member: str, package: str) -> str | None:
    """Where a tarball member goes, relative to the vendor folder; None to leave it out."""
    folder, source, wanted = FILES[package]
    parts = PurePosixPath(member).parts
    if len(parts) == 2 and parts[0] == "package" and parts[1].upper().startswith("LICENSE"):
        return f"{folder}/LICENSE-{package.rsplit('/', 1)[-1]}"
    if parts[:2] != ("package", source) or member.endswith(SKIP_SUFFIXES):
        return None
    inner = PurePosixPath(*parts[2:]).as_posix()
    if any(inner == w or (w == "" or w.endswith("/")) and inner.startswith(w) for w in wanted):
        return f"{folder}/{inner}"
    return None


def _unpack(tarball: Path, package: str, dest: Path) -> None:
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            target = _target(member.name, package) if member.isfile() else None
            if target is None:
                continue
            (dest / target).parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(member) as src, open(dest / target, "wb") as out:
                shutil.copyfileobj(src, out)


def npm_pack(specs: dict[str, str], workdir: Path) -> dict[str, tuple[str, Path]]:
    """Download each package's tarball (no dependencies): {name: (resolved version, tarball)}."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("tools/vendor_js.py: npm (Node.js) is needed once to fetch vega, the ipywidgets "
                 "HTML manager and MathJax from the npm registry: install Node.js (Debian: "
                 "apt-get install npm)")
    args = [npm, "pack", "--json", "--silent", "--pack-destination", str(workdir)]
    args += [f"{name}@{spec}" for name, spec in specs.items()]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    packed = json.loads(out[out.index("["):])
    return {p["name"]: (p["version"], workdir / p["filename"]) for p in packed}


def write_shims(resolved: dict[str, str], dest: Path = VENDOR) -> None:
    versions = ", ".join(f"{n} {resolved[n]}" for n in ("vega", "vega-lite", "vega-embed"))
    (dest / "vega" / "altair-offline.js").write_text(
        ALTAIR_SHIM.format(resolved=versions, versions=json.dumps(altair_versions())))
    (dest / "html-manager" / "mathjax2-compat.js").write_text(MATHJAX2_SHIM)


def vendor(force: bool = False, dest: Path = VENDOR) -> dict[str, str]:
    """Make sure `dest` holds the packages for the installed Altair/ipywidgets; return resolved versions."""
    specs = requested()
    record = dest / "versions.json"
    old = json.loads(record.read_text()) if record.exists() else {}
    if force or old.get("requested") != specs:
        print("fetching from npm: " + ", ".join(f"{n}@{v}" for n, v in specs.items()), flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            packed = npm_pack(specs, Path(tmp))
            staging = Path(tmp) / "vendor"
            for name in specs:
                _unpack(packed[name][1], name, staging)
            old = {"requested": specs, "resolved": {name: packed[name][0] for name in specs}}
            (staging / "versions.json").write_text(json.dumps(old, indent=1) + "\n")
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(staging, dest)
    write_shims(old["resolved"], dest)
    return old["resolved"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="download again even if up to date")
    resolved = vendor(force=parser.parse_args().force)
    print("vendored into book/_vendor: " + ", ".join(f"{n} {v}" for n, v in resolved.items()))


if __name__ == "__main__":
    main()
