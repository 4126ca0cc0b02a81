"""The generated parts of the book: the chapter map of the landing page and the config glossary.

Both are computed at every build from what the repository holds, so they stay true: the chapter
map from each notebook's title and opening sentence, the glossary from ``kafkasim/core/config.py``
(every ``ConfigSpec`` of the consumer, the broker and the 0.8.2 ZooKeeper consumer: doc, defaults
by version, valid values, history) and from the config names each chapter mentions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from kafkasim.core.java import INT_MAX
from kafkasim.core.config import (BROKER_CONFIGS, CONSUMER_CONFIGS, ZOOKEEPER_CONSUMER_CONFIGS,
                             ZOOKEEPER_CONSUMER_VERSION, ConfigSpec)

#: (scope shown in the glossary, its configs), in the order the glossary lists them per name.
SCOPES = (
    ("Consumer", CONSUMER_CONFIGS),
    ("Broker", BROKER_CONFIGS),
    (f"ZooKeeper consumer ({ZOOKEEPER_CONSUMER_VERSION})", ZOOKEEPER_CONSUMER_CONFIGS),
)
_TITLE = re.compile(r"^#\s+(?:\d+\s*[·:.-]\s*)?(?P<title>.+?)\s*$")


@dataclass(frozen=True)
class Chapter:
    docname: str  # the page, as the table of contents names it: "notebooks/00-welcome"
    number: str   # "00", from the file name
    title: str    # the notebook's first "# " heading without its number
    promise: str  # the first sentence after that heading
    text: str     # every cell's source, to find the configs it mentions


def read_chapter(path: Path, root: Path) -> Chapter:
    nb = nbformat.read(path, as_version=4)
    title, promise = path.stem, ""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.splitlines()
        match = _TITLE.match(lines[0]) if lines else None
        if match:
            title = match["title"]
            paragraph = " ".join(" ".join(lines[1:]).split())
            promise = re.split(r"(?<=[.!?])\s+", paragraph, maxsplit=1)[0]
            break
    number = re.match(r"\d*", path.stem)[0]
    docname = path.relative_to(root).with_suffix("").as_posix()
    return Chapter(docname, number, title, promise, "\n".join(c.source for c in nb.cells))


def _link(chapter: Chapter, text: str) -> str:
    # A role cannot hold inline code: a title's backticks (`pause()`) would end the role early.
    return f"{{doc}}`{text.replace('`', '')} </{chapter.docname}>`"


def chapter_map(chapters: list[Chapter]) -> str:
    rows = [f"| {c.number} | {_link(c, c.title)} | {c.promise} |" for c in chapters]
    return "\n".join(["| # | Chapter | What it gives you |", "|---|---|---|", *rows]) + "\n"


def mentions(text: str, name: str) -> bool:
    """Does `text` name the config `name` (not as part of a longer dotted name)?

    "session.timeout.ms" is not mentioned by "zookeeper.session.timeout.ms"; a sentence may end
    right after the name ("... session.timeout.ms.").
    """
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", text) is not None


def _value(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        value = ",".join(value)
    if value == "":
        return '""'
    return f"{value} (Int.MaxValue)" if value == INT_MAX else str(value)


def defaults_text(spec: ConfigSpec) -> str:
    """'`30000` from 0.9, `10000` from 0.10.1, `45000` from 3.0' (one value: '`3000` since 0.9')."""
    if len(spec.defaults) == 1:
        return f"`{_value(spec.defaults[0][1])}` since {spec.added}"
    return ", ".join(f"`{_value(value)}` from {version}" for version, value in spec.defaults)


def _scope_block(scope: str, spec: ConfigSpec) -> list[str]:
    added = ""  # said only of configs younger than their component (0.9 consumer, 0.8.2 ZooKeeper one)
    if spec.added not in ("0.9", ZOOKEEPER_CONSUMER_VERSION):
        added = f", added in {spec.added}" + (f" ({spec.added_by})" if spec.added_by else "")
    lines = [f"**{scope}**{added}. {spec.doc}", "",
             f"Default: {defaults_text(spec)}. Valid values: {spec.valid_values}."]
    if spec.history:
        lines.append(f"History: {spec.history}.")
    return lines


def glossary(chapters: list[Chapter]) -> str:
    """A MyST glossary with one term per config name, one block per scope that has that name."""
    names = sorted({name for _, configs in SCOPES for name in configs})
    out = ["```{glossary}"]
    for name in names:
        out.append(name)
        for scope, configs in SCOPES:
            if name in configs:
                out += [f"  {line}" if line else "" for line in _scope_block(scope, configs[name])]
                out.append("")
        used = [_link(c, c.number) for c in chapters if mentions(c.text, name)]
        out += [f"  Chapters: {', '.join(used) if used else 'not discussed in a chapter yet'}", ""]
    out.append("```")
    return "\n".join(out) + "\n"
