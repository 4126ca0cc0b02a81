"""Vega-Lite specs as plain dicts, wrapped into Altair chart objects at the end.

Why not Altair's builder API all the way: every `alt.layer`, `alt.vconcat`, `.properties`
deep-copies the whole object tree, validates it, and hashes shared DataFrames through their
text repr; for a timeline plus lag panels that was 250-400 ms per redraw, more than the
simulation. Building the JSON directly takes a few ms, and the result is still a real
`alt.LayerChart` / `alt.VConcatChart` / `alt.HConcatChart`: it displays, saves, composes with
`|` and `&`, and `to_dict()` validates it against the Vega-Lite schema as usual.

Each chart function is written once, returning a dict, and decorated with `@returns_chart`:
calling it gives the Altair chart, `fn.spec(...)` the dict (used where specs are combined, and
by the explorer, whose redraw must stay fast).
"""

from __future__ import annotations

import functools

import altair as alt
import numpy as np
import pandas as pd

_CONTAINERS = (("layer", alt.LayerChart), ("vconcat", alt.VConcatChart), ("hconcat", alt.HConcatChart),
               ("concat", alt.ConcatChart))


def as_chart(spec: dict):
    """The Altair chart object for a Vega-Lite spec dict: an alt.Chart per view and an
    alt.LayerChart / VConcatChart / ... per composition (what Altair's own checks expect), with
    channel definitions, marks and data left as dicts, so that nothing heavy is copied or
    validated until to_dict."""
    with alt.utils.schemapi.debug_mode(False):
        return _convert(spec)


def _convert(spec: dict):
    for key, cls in _CONTAINERS:
        if key in spec:
            return cls(**{**spec, key: [_convert(child) for child in spec[key]]})
    if "mark" in spec:
        encoding = spec.get("encoding")
        return alt.Chart(**{**spec, "encoding": alt.FacetedEncoding(**encoding)} if encoding else spec)
    raise ValueError(f"not a Vega-Lite view spec (keys: {sorted(spec)})")


def returns_chart(build):
    """Make a spec-building function return an Altair chart; the dict stays at `fn.spec`."""
    @functools.wraps(build)
    def chart(*args, **kwargs):
        return as_chart(build(*args, **kwargs))

    chart.spec = build
    chart.__annotations__ = {**build.__annotations__, "return": "altair.TopLevelMixin"}
    return chart


def values(frame: pd.DataFrame) -> dict:
    """Inline data: {"values": (records)} with plain Python numbers and None for missing.

    At to_dict, Altair moves it into the top-level `datasets` (one copy per distinct table)."""
    columns = list(frame.columns)
    lists = []
    for col in columns:
        series = frame[col]
        if series.dtype.kind == "f":
            arr = series.to_numpy()
            lists.append([None if v != v else v for v in np.round(arr, 4).tolist()])
        elif series.dtype.kind in "iub" and not series.hasnans:
            lists.append(series.tolist())
        else:
            lists.append([None if v is None or (isinstance(v, float) and v != v) or v is pd.NA else
                          (v.item() if isinstance(v, np.generic) else v) for v in series.tolist()])
    # A tuple, not a list: Altair deep-copies lists on every copy of a chart (several per
    # to_dict), but passes anything else by reference; the records are never modified.
    return {"values": tuple(dict(zip(columns, row)) for row in zip(*lists))}


def field(name: str, type_: str = "quantitative", **props) -> dict:
    return {"field": name, "type": type_, **props}


def tip(name: str, title: str | None = None, type_: str = "quantitative", fmt: str | None = None) -> dict:
    out = {"field": name, "type": type_}
    if title:
        out["title"] = title
    if fmt:
        out["format"] = fmt
    return out


def unit(data, mark, encoding: dict, transform: list | None = None, where: str | None = None, **props) -> dict:
    """One view. `where`: a Vega expression filtering its rows (the grid explorer's sliders)."""
    spec = {"mark": mark if isinstance(mark, dict) else {"type": mark}, "encoding": encoding, **props}
    if data is not None:
        spec["data"] = values(data) if isinstance(data, pd.DataFrame) else data
    steps = ([{"filter": where}] if where else []) + list(transform or [])
    if steps:
        spec["transform"] = steps
    return spec


def title(text: str, subtitle=None, **props) -> dict:
    out = {"text": text, "anchor": "start", **props}
    if subtitle:
        out["subtitle"] = subtitle
    return out
