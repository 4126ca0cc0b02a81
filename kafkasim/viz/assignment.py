"""Who owns which partition at chosen instants of a run, and which partitions changed owner
between them: the assignors compared without a kernel.

`assignment_map` draws one run: one row per instant, one cell per partition, coloured by its
owner, with a black frame where the owner differs from the first instant's. `assignment_explorer`
does the same over a small grid of settings simulated when the notebook executes (sliders bound
to Vega-Lite params, as in kafkasim.viz.grid_explorer), with the counts beside it: partitions moved,
members left without a partition, fewest and most partitions per member.

An instant's owner is the member that most recently received the partition (PartitionsAssigned):
where a removed member still believes it owns a partition (a "zombie"), the new owner is shown.
"""

from __future__ import annotations

import itertools

import pandas as pd

from kafkasim.scenario.world import simulate
from kafkasim.viz import sliders, style, summary, tables
from kafkasim.viz.grid_explorer import MAX_POINTS, base_value
from kafkasim.viz.settings import KNOBS, check_names, scenario_with
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit

#: Members that are not in the group at an instant (a member "removed" is still a process that
#: rejoins at its next poll(); it is counted as a member without partitions).
GONE_STATES = frozenset({"stopped"})
CELL_PX = 26


def owners_at(run, time_ms: int) -> pd.DataFrame:
    """tp ("orders-3"), member: the owner of every partition at `time_ms` (None: no owner); an interval
    owns from its start up to, not including, its end. Where owners overlap (a zombie), the one that
    started last; of those that started at once, the last in `partition_owners()`."""
    topics = run.scenario.topics
    tps = [(t, p) for t in sorted(topics) for p in range(topics[t])]
    own = run.partition_owners()
    live = own[(own["start"] <= time_ms) & (own["end"] > time_ms)]
    latest = {(row.topic, row.partition): row.member for row in sorted(live.itertuples(), key=lambda r: r.start)}
    return pd.DataFrame({"tp": [f"{t}-{p}" for t, p in tps], "member": [latest.get(tp) for tp in tps]})


def members_at(run, time_ms: int) -> list[str]:
    """The consumers whose process is running at `time_ms` (started, not crashed or closed)."""
    states = run.member_states()
    now = states[(states["start"] <= time_ms) & (states["end"] > time_ms) & ~states["state"].isin(GONE_STATES)]
    return tables.member_order(now["member"])


def snapshot_frames(run, instants: dict[str, int]) -> tuple[pd.DataFrame, dict]:
    """The cells (instant, tp, member, moved) for `instants` ({label: time_ms}) and the counts
    at the last instant compared with the first."""
    frames = []
    first = None
    for label, time_ms in instants.items():
        frame = owners_at(run, time_ms).assign(instant=label)
        first = frame["member"] if first is None else first
        frame["moved"] = (frame["member"] != first) & frame["member"].notna()
        frames.append(frame)
    cells = pd.concat(frames, ignore_index=True)
    last_label, last_ms = list(instants.items())[-1]
    last = cells[cells["instant"] == last_label]
    members = members_at(run, last_ms)
    load = last["member"].value_counts().reindex(members, fill_value=0)
    counts = {"moved": int(last["moved"].sum()), "idle": int((load == 0).sum()), "members": len(members),
              "fewest": int(load.min()) if len(load) else 0, "most": int(load.max()) if len(load) else 0,
              "unowned": int(last["member"].isna().sum())}
    return cells, counts


def _counts_frame(counts: dict) -> pd.DataFrame:
    """The counts of `snapshot_frames` as summary rows (order, label, value), last row vs first."""
    pairs = [("partitions moved (last row vs first)", counts["moved"]),
             ("members (last row)", counts["members"]),
             ("... of which own no partition", counts["idle"]),
             ("fewest / most partitions per member", f"{counts['fewest']} / {counts['most']}"),
             ("partitions without an owner", counts["unowned"])]
    return pd.DataFrame({"order": range(len(pairs)), "label": [p[0] for p in pairs],
                         "value": [str(p[1]) for p in pairs]})


def _map_spec(cells: pd.DataFrame, tps: list[str], labels: list[str], members: list[str], width: int,
              where: str | None = None) -> dict:
    x = field("tp", "nominal", sort=tps, title="partition", axis={"labelAngle": -45, "labelFontSize": 10})
    y = field("instant", "nominal", sort=labels, title=None, axis={"labelFontSize": 11, "labelLimit": 220})
    tips = [tip("instant", "when", "nominal"), tip("tp", "partition", "nominal"), tip("member", "owner", "nominal"),
            tip("moved", "changed owner", "nominal")]
    color = field("member", "nominal", sort=members, title="owner",
                  scale=style.owner_scale(members),
                  legend={"orient": "right", "columns": 1 + len(members) // 16})
    rects = unit(cells, {"type": "rect", "stroke": "white", "strokeWidth": 1},
                 {"x": x, "y": y, "color": color, "tooltip": tips}, where=where)
    names = unit(cells, {"type": "text", "fontSize": 9, "color": "white"},
                 {"x": x, "y": y, "text": field("member", "nominal"), "tooltip": tips}, where=where)
    moved = unit(cells, {"type": "rect", "filled": False, "stroke": style.REMOVAL_COLOR, "strokeWidth": 2.5},
                 {"x": x, "y": y, "tooltip": tips}, where=where, transform=[{"filter": "datum.moved"}])
    return {"layer": [rects, names, moved], "width": max(width, CELL_PX * len(tps)) if len(tps) > 26 else width,
            "height": 34 * len(labels)}


@returns_chart
def assignment_map(run, instants: dict[str, int], *, width: int = style.WIDTH,
                   title: str | None = "Who owns which partition") -> dict:
    """One row per instant ({label: time_ms}), one cell per partition coloured by its owner; a
    black frame marks a partition whose owner differs from the first instant's."""
    cells, counts = snapshot_frames(run, instants)
    topics = run.scenario.topics
    tps = [f"{t}-{p}" for t in sorted(topics) for p in range(topics[t])]
    members = tables.member_order(cells["member"].dropna())
    spec = _map_spec(cells, tps, list(instants), members, width)
    if title:
        spec["title"] = title_of(title, f"framed: owner changed since the first row ({counts['moved']} of {len(tps)}); "
                                        f"idle at the last row: {counts['idle']} of {counts['members']} members",
                                 offset=10)
    return spec


@returns_chart
def assignment_explorer(base, grid: dict, instants: dict[str, int], *, width: int = style.WIDTH,
                        title: str | None = None) -> dict:
    """`assignment_map` for every combination of `grid` ({setting: [values]}, names as in
    kafkasim.viz.settings.KNOBS), with one slider per setting and the counts under the map."""
    check_names(grid)
    points = list(itertools.product(*(list(v) for v in grid.values())))
    if not points or len(points) > MAX_POINTS:
        raise ValueError(f"the grid has {len(points)} combinations; give between 1 and {MAX_POINTS}")
    if not instants:
        raise ValueError("give at least one instant, e.g. {'before': 50_000, 'after': 170_000}")
    labels = list(instants)
    cells, counts, tps = [], [], {}
    for point in points:
        values = dict(zip(grid, point))
        keys = {sliders.column(n): v for n, v in values.items()}
        run = simulate(scenario_with(base, values))
        frame, numbers = snapshot_frames(run, instants)
        cells.append(frame.assign(**keys))
        counts.append(_counts_frame(numbers).assign(**keys))
        topics = run.scenario.topics
        tps.update(dict.fromkeys(f"{t}-{p}" for t in sorted(topics) for p in range(topics[t])))
    cells_frame = pd.concat(cells, ignore_index=True)
    members = tables.member_order(cells_frame["member"].dropna())
    where = sliders.matches(grid)
    view = _map_spec(cells_frame, list(tps), labels, members, width, where)
    params, shown = sliders.controls([(name, grid[name], KNOBS[name].label, base_value(base, name), None)
                                      for name in grid], width)
    heading = title or "Who owns which partition: " + ", ".join(grid)
    return {"vconcat": [shown, view, summary.summary_spec(pd.concat(counts, ignore_index=True), where, title=None)],
            "spacing": 12, "params": params,
            "title": title_of(heading, f"{sliders.hint(len(points))}; framed: owner changed since the first row")}
