"""Which fields a Vega-Lite spec's encodings name that its data does not have (issue 29).

A channel or tooltip naming a column the data lacks draws nothing or shows "undefined" without any
error from Altair or Vega-Lite, so a renamed field (a typo, a column renamed in the frame) is found
only by reading the page. `missing_fields` walks a compiled spec (`chart.to_dict()`): each view's
data (its own, else its parent's, inline or in the top-level `datasets`), the fields its transforms
add or keep, then every field its encoding names, tooltips included.
"""

from __future__ import annotations


def missing_fields(spec: dict) -> list[str]:
    """"path: field" for every encoded field absent from the view's rows; [] when all are there."""
    return list(_walk(spec, spec.get("datasets", {}), None, "spec"))


def encoded_fields(spec: dict) -> list[str]:
    """Every field named in the spec's encodings (to check that the walk saw some)."""
    out = []
    for view in views(spec):
        out += [name for _, name in _encoding_fields(view.get("encoding", {}))]
    return out


def views(spec: dict):
    """Every unit view (a dict with a mark) of a spec, layers and concatenations opened."""
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for child in spec.get(key, []):
            yield from views(child)
    if "mark" in spec:
        yield spec


def _walk(spec: dict, datasets: dict, inherited: set | None, path: str):
    columns = _columns(spec.get("data"), datasets) if "data" in spec else inherited
    columns = _after_transforms(columns, spec.get("transform", []), path)
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for i, child in enumerate(spec.get(key, [])):
            yield from _walk(child, datasets, columns, f"{path}.{key}[{i}]")
    if "mark" in spec:
        if columns is None:
            raise AssertionError(f"{path}: a view with no data")
        if columns:  # a view with no rows draws nothing, whatever it names
            yield from (f"{path}.{channel}: {name}" for channel, name in _encoding_fields(spec.get("encoding", {}))
                        if name not in columns)


def _columns(data: dict, datasets: dict) -> set:
    rows = datasets[data["name"]] if "name" in data else data["values"]
    return {key for row in rows for key in row}


def _after_transforms(columns: set | None, transforms: list, path: str) -> set | None:
    for step in transforms:
        if columns is None or not columns:
            return columns
        if "calculate" in step:
            columns = columns | {step["as"]}
        elif "aggregate" in step:
            columns = set(step.get("groupby", [])) | {a["as"] for a in step["aggregate"]}
        elif set(step) - {"filter"}:
            raise AssertionError(f"{path}: a transform this check does not know: {sorted(step)}")
    return columns


def _encoding_fields(encoding: dict):
    for channel, definition in encoding.items():
        for d in definition if isinstance(definition, list) else [definition]:
            if isinstance(d, dict) and isinstance(d.get("field"), str):
                yield channel, d["field"]
