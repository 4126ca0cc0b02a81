"""A sequence diagram of the group protocol between the members and the group coordinator:
JoinGroup, SyncGroup, Heartbeat and LeaveGroup for a classic group; ConsumerGroupHeartbeat for
a consumer group (KIP-848); replies with Kafka's error name and code.

The simulator delivers requests with no network delay, so many messages share a millisecond;
drawn to a time scale they would sit on top of each other. The diagram therefore gives each
message its own row, in the order the coordinator handled it (the event log's order), and
prints the time at the left whenever it changes: read it like a UML sequence diagram, not to
scale. Notes say what the coordinator decided (rebalance started, member removed, group
stable) and what happened to a member (GC pause, stuck poll thread, crash, poll timeout).

A successful heartbeat is one row (its reply carries nothing); a failed one is a request and a
reply with the error, e.g. REBALANCE_IN_PROGRESS (27), which is how members learn of a
rebalance (AbstractCoordinator.HeartbeatResponseHandler). OffsetCommit is left out.

A consumer group's ConsumerGroupHeartbeat is labelled with the member epoch it carries (0 join,
-1 leave, -2 static leave; "ack" when it acknowledges a reconciliation, the heartbeat the member
sends at once after its callbacks). Its reply, drawn when the heartbeat changed something, gives
the member epoch and member state the coordinator answered (e.g. "epoch 8: UNREVOKED_PARTITIONS",
from the MemberEpochBumped / MemberStateChanged of that heartbeat) and "new assignment" when the
member got a different target (it went RECONCILING); a heartbeat that changed nothing is one
row, like a classic one. Notes give the group epoch bumps, the target assignments and the group
state changes (Assigning, Reconciling, Stable), and on the member's lane the rebalance callbacks
it ran while reconciling (onPartitionsRevoked, onPartitionsAssigned, onPartitionsLost).
"""

from __future__ import annotations

import pandas as pd

from kafkasim.core.errors import Errors
from kafkasim.viz import style, tables
from kafkasim.viz.spec import field, returns_chart, tip, title as title_of, unit, values
from kafkasim.viz.tables import (ERROR, GENERATION, GROUP, KIND, MEMBER, PARTITION, REASON, SOURCE, STATE, T, TOPIC,
                                 VALUE)

COORDINATOR = "coordinator"
REQUESTS = ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup")
REPLIES = {"JoinGroupResponse": "JoinGroup", "SyncGroupResponse": "SyncGroup"}
ROW_PX = 17
#: heartbeats="auto" shows successful heartbeats only when the diagram has at most this many rows.
AUTO_HEARTBEATS = 60
LANE_PX = 96
COLORS = {"request": "#333333", "reply": "#777777", "error": style.ERROR_COLOR,
          "coordinator note": "#1f5fa0", "member note": style.FAULT_COLOR}
#: Consumer groups' diagrams add the members' rebalance callbacks.
CONSUMER_COLORS = {**COLORS, "callback": "#2a7f62"}
#: The heartbeats heartbeats="errors" leaves out, by whether the group is a consumer group.
THINNED = {False: "successful heartbeats", True: "heartbeats that changed nothing"}
COLUMNS = ["time", "member", "kind", "label", "detail", "ok_heartbeat"]


def _coordinator_note(run, row) -> str | None:
    kind, reason, name = row[KIND], row[REASON], tables.member_name(run, row[MEMBER])
    if kind == "RebalanceStarted":
        return f"rebalance: {_short(reason, 70)}"
    if kind == "MemberRemoved":
        return f"removes {name}: {reason}"
    if kind == "GenerationStabilized":
        return f"generation {row[GENERATION]}: {int(row[VALUE])} members, leader {name}, assignor {reason}"
    if kind == "GroupStable":
        return f"Stable, generation {row[GENERATION]}"
    if kind in ("PendingMemberExpired", "MemberReplaced", "GroupEmpty"):
        return f"{kind} {name or ''}".strip()
    return None


def _member_note(row) -> str | None:
    kind, value = row[KIND], row[VALUE]
    seconds = f"{value / 1000:g} s" if value == value and value is not None else ""
    return {"Crashed": "crashes", "Closed": "closes", "Started": "starts",
            "Frozen": f"GC pause, {seconds}", "Stalled": f"poll thread stuck, {seconds}",
            "NetworkCut": f"network cut, {seconds}", "PollTimeout": "max.poll.interval.ms expired",
            "Fatal": f"fatal: {row[ERROR]}"}.get(kind)


_MEMBER_NOTES = ("Crashed", "Closed", "Started", "Frozen", "Stalled", "NetworkCut", "PollTimeout", "Fatal")
_COORDINATOR_NOTES = ("RebalanceStarted", "MemberRemoved", "GenerationStabilized", "GroupStable",
                      "PendingMemberExpired", "MemberReplaced", "GroupEmpty")
#: Every kind the diagram draws (a fast filter: most events are fetches, commits and heartbeats).
_DRAWN = frozenset((*REQUESTS, *REPLIES, *_MEMBER_NOTES, *_COORDINATOR_NOTES))


def _short(text, n: int) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def _error(name: str | None) -> str:
    if not name or name == "NONE":
        return ""
    try:
        return f"{name} ({Errors[name].code})"
    except KeyError:
        return name


def messages(run, window=None) -> pd.DataFrame:
    """One row per message or note, in log order: time, member, kind (request, reply, error,
    coordinator note, member note, and for a consumer group callback), label, detail,
    ok_heartbeat (a heartbeat that succeeded and changed nothing)."""
    rows = tables.rows_between(run, *tables.window_ms(run, window))
    if tables.protocol(run) == "consumer":
        out = ConsumerHeartbeats(run).messages(rows)
    else:
        out = _classic_messages(run, rows)
    return pd.DataFrame(out, columns=COLUMNS)


def _classic_messages(run, rows) -> list[tuple]:
    """JoinGroup, SyncGroup, Heartbeat, LeaveGroup and their replies, with the notes."""
    group = run.scenario.group_id
    out = []
    for i, row in enumerate(rows):
        kind, source = row[KIND], row[SOURCE]
        if kind not in _DRAWN:
            continue
        if source == "consumer":
            note = _member_note(row)
            if note:
                out.append((row[T], row[MEMBER], "member note", note, "", False))
            continue
        if source != "coordinator" or row[GROUP] != group:
            continue
        member = tables.request_member_name(run, rows, i)
        detail = f"member id {row[MEMBER]}, generation {row[GENERATION]}"
        if kind in REQUESTS:
            failed = kind == "Heartbeat" and row[ERROR] not in (None, "NONE")
            if kind == "LeaveGroup":
                detail += f"; reason: {_short(row[REASON], 160)}"
            out.append((row[T], member, "request", kind, detail, kind == "Heartbeat" and not failed))
            if failed:
                out.append((row[T], member, "error", f"{kind}: {_error(row[ERROR])}", detail, False))
        elif kind in REPLIES:
            error = _error(row[ERROR])
            label = f"{REPLIES[kind]}: {error}" if error else f"{REPLIES[kind]} response"
            out.append((row[T], member, "error" if error else "reply", label, detail, False))
        else:
            note = _coordinator_note(run, row)
            if note:
                out.append((row[T], COORDINATOR, "coordinator note", note, _short(row[REASON], 200), False))
    return out


#: What the epoch a ConsumerGroupHeartbeat carries says (`ConsumerGroupHeartbeatRequest`).
EPOCH_MEANING = {0: "join", -1: "leave", -2: "static leave"}
#: The consumer's events that are rebalance callbacks (ConsumerRebalanceListener).
CALLBACKS = {"PartitionsRevoked": "onPartitionsRevoked", "PartitionsAssigned": "onPartitionsAssigned",
             "PartitionsLost": "onPartitionsLost"}
#: Partitions a callback note names before "+n more".
CALLBACK_PARTITIONS = 6
_CONSUMER_COORDINATOR = frozenset(("ConsumerGroupHeartbeat", "MemberEpochBumped", "MemberStateChanged",
                                   "GroupEpochBumped", "TargetAssignmentComputed", "StateChanged", "MemberRemoved",
                                   "MemberReplaced", "MemberLeftTemporarily"))
_CONSUMER_MEMBER = frozenset(("MemberTransition", *CALLBACKS, *_MEMBER_NOTES))


class ConsumerHeartbeats:
    """A consumer group's rows as diagram messages. A heartbeat's coordinator rows are written
    together (the request, then what it decided), then the member handles the response (its
    MemberTransition rows, same millisecond): that is one step, whose reply is drawn once the
    step is over, after the coordinator's notes."""

    def __init__(self, run):
        self.run = run
        self.group = run.scenario.group_id
        self.out: list[list] = []
        self.reply: dict | None = None      # the reply of the heartbeat being answered
        self.acking: set[str] = set()       # members whose next heartbeat acknowledges a reconciliation
        self.callbacks: dict[int, tuple[str, list[str]]] = {}  # callback notes: row in `out` -> partitions

    def messages(self, rows) -> list[tuple]:
        for row in rows:
            kind, source = row[KIND], row[SOURCE]
            if source == "coordinator" and kind in _CONSUMER_COORDINATOR and row[GROUP] == self.group:
                self._end_step(row)
                self._coordinator(row)
            elif source == "consumer" and kind in _CONSUMER_MEMBER:
                self._end_step(row)
                self._member(row)
        self._flush()
        return [tuple(entry) for entry in self.out]

    # -- the step of one heartbeat ------------------------------------------------------------
    def _in_step(self, row) -> bool:
        reply = self.reply
        if reply is None or row[T] != reply["time"]:
            return False
        if row[SOURCE] == "coordinator":
            return row[KIND] != "ConsumerGroupHeartbeat"
        return row[KIND] == "MemberTransition" and row[MEMBER] == reply["member"]

    def _end_step(self, row) -> None:
        if self.reply is not None and not self._in_step(row):
            self._flush()

    def _flush(self) -> None:
        """Draw the pending reply if the heartbeat changed something (else it stays one row): the member's
        epoch or state (the coordinator's MemberEpochBumped or MemberStateChanged, which set both), its
        assignment, or its membership (a join, epoch 0, or a leave, -1 or -2)."""
        reply, self.reply = self.reply, None
        if reply is None:
            return
        changed = reply["state"] or reply["assignment"] or reply["sent"] <= 0
        if not changed:
            return
        label = f"epoch {reply['epoch']}" + (f": {reply['state']}" if reply["state"] else "")
        label += ", new assignment" if reply["assignment"] else ""
        self.out[reply["request"]][5] = False  # a heartbeat with a reply is never thinned out
        self.out.append([reply["time"], reply["member"], "reply", label, reply["detail"], False])

    # -- rows ---------------------------------------------------------------------------------
    def _coordinator(self, row) -> None:
        kind, name = row[KIND], tables.member_name(self.run, row[MEMBER])
        if kind == "ConsumerGroupHeartbeat":
            return self._heartbeat(row, name)
        reply = self.reply
        if kind in ("MemberEpochBumped", "MemberStateChanged") and reply is not None and reply["member"] == name:
            reply["epoch"], reply["state"] = int(row[VALUE]), row[REASON]
            return
        note = self._note(row, name)
        if note:
            self.out.append([row[T], COORDINATOR, "coordinator note", note, row[REASON] or "", False])

    def _heartbeat(self, row, name: str) -> None:
        sent, error = int(row[VALUE]), row[ERROR]
        ack = name in self.acking  # a join or leave keeps its EPOCH_MEANING and gets a reply anyway
        self.acking.discard(name)
        meaning = EPOCH_MEANING.get(sent, "ack" if ack else "")
        label = f"ConsumerGroupHeartbeat epoch {sent}" + (f" ({meaning})" if meaning else "")
        detail = f"member id {row[MEMBER]}, member epoch {sent}, group epoch {row[GENERATION]}"
        failed = error not in (None, "NONE")
        # ok_heartbeat unless it failed or acknowledges; _flush clears it when the reply is drawn (a join or
        # leave always is).
        self.out.append([row[T], name, "request", label, detail, not failed and not ack])
        if failed:
            self.out.append([row[T], name, "error", f"ConsumerGroupHeartbeat: {_error(error)}", detail, False])
            return
        self.reply = {"time": row[T], "member": name, "sent": sent, "epoch": sent, "state": None,
                      "assignment": False, "detail": detail, "request": len(self.out) - 1}

    def _note(self, row, name: str | None) -> str | None:
        """A coordinator note. A member's epoch or state is one only when no reply of its own carries it: a
        classic member's JoinGroup in a consumer group (KIP-848's online migration) draws no reply here."""
        kind, reason, value = row[KIND], row[REASON], row[VALUE]
        if kind == "GroupEpochBumped":
            return f"group epoch {int(value)} ({reason})"
        if kind == "TargetAssignmentComputed":
            return f"target assignment, epoch {row[GENERATION]} ({reason}, {int(value)} changed)"
        if kind == "StateChanged":
            return f"group {reason} → {row[STATE]}"
        if kind == "MemberRemoved":
            return f"removes {name}: {reason}"
        if kind in ("MemberEpochBumped", "MemberStateChanged"):
            return f"{name}: epoch {int(value)}, {reason}"
        if kind == "MemberLeftTemporarily":
            return f"{name}: left temporarily (static member, epoch -2)"
        if kind == "MemberReplaced":
            return f"{name}: replaces member id {reason} (static member)"
        return None

    def _member(self, row) -> None:
        kind, member = row[KIND], row[MEMBER]
        if kind == "MemberTransition":
            if row[REASON] == "ACKNOWLEDGING":
                self.acking.add(member)
            elif row[REASON] == "RECONCILING":  # its answer to the new target of the response being handled
                self.reply["assignment"] = True  # (processAssignmentReceived): that reply is pending, its own
        elif kind in CALLBACKS:
            self._callback(row)
        else:
            note = _member_note(row)
            if note:
                self.out.append([row[T], member, "member note", note, "", False])

    def _callback(self, row) -> None:
        """One note per callback: the partitions of its consecutive events, merged."""
        name, at = CALLBACKS[row[KIND]], len(self.out) - 1
        last = self.callbacks.get(at)
        merged = last is not None and self.out[at][:2] == [row[T], row[MEMBER]] and last[0] == name
        partitions = last[1] if merged else []
        if row[TOPIC] is not None:  # a callback with nothing to hand over writes no partition
            partitions.append(f"{row[TOPIC]}-{row[PARTITION]}")
        note = [row[T], row[MEMBER], "callback", _callback_label(name, partitions),
                _short(f"{name}: {', '.join(partitions) or 'none'}", 400), False]
        if merged:
            self.out[at] = note
        else:
            self.callbacks[at + 1] = (name, partitions)
            self.out.append(note)


def _callback_label(name: str, partitions: list[str]) -> str:
    """"onPartitionsRevoked: orders-1, orders-7" (at most CALLBACK_PARTITIONS named)."""
    if not partitions:
        return f"{name}: none"
    shown = ", ".join(partitions[:CALLBACK_PARTITIONS])
    more = len(partitions) - CALLBACK_PARTITIONS
    return f"{name}: {shown}" + (f" +{more} more" if more > 0 else "")


def _pick_members(frame: pd.DataFrame, run, max_members: int) -> list[str]:
    """The members worth a lane: removed ones and those a fault hit first, then those that got
    error replies, then the rest, each group in natural order."""
    everyone = tables.member_order(m for m in frame["member"] if m != COORDINATOR)
    if len(everyone) <= max_members:
        return everyone
    hit = set(frame.loc[frame["kind"] == "member note", "member"]) | set(tables.removals(run)["member"])
    erred = set(frame.loc[frame["kind"] == "error", "member"])
    ranked = sorted(everyone, key=lambda m: (0 if m in hit else 1 if m in erred else 2, tables.member_sort_key(m)))
    return tables.member_order(ranked[:max_members])


@returns_chart
def sequence_diagram(run, window=None, *, members=None, max_members: int = 8, heartbeats: str = "auto",
                     max_messages: int = 150, width: int | None = None,
                     title: str | None = "Group protocol") -> dict:
    """Messages between members and the coordinator within `window` (start_ms, end_ms).

    members: the consumer names to draw (default: up to max_members, those with errors, faults
    or removals first); heartbeats: "all", "errors" (only failed ones, and a consumer group's
    that changed something) or "auto" (all if the diagram has at most AUTO_HEARTBEATS rows, else
    as "errors"); max_messages: rows drawn at most (the first ones); width: None to size it by
    the number of lanes.
    """
    if heartbeats not in ("all", "errors", "auto"):
        raise ValueError(f"heartbeats must be 'all', 'errors' or 'auto', got {heartbeats!r}")
    frame = messages(run, window)
    everyone = tables.member_order(m for m in frame["member"] if m != COORDINATOR)
    lanes = list(members) if members is not None else _pick_members(frame, run, max_members)
    shown = frame[frame["member"].isin([COORDINATOR, *lanes])]
    # Coordinator notes about members not drawn would point nowhere.
    hidden = tuple(prefix for m in everyone if m not in lanes for prefix in (f"removes {m}:", f"{m}: "))
    if hidden:
        shown = shown[~((shown["member"] == COORDINATOR) & shown["label"].str.startswith(hidden))]
    thin = heartbeats == "errors" or (heartbeats == "auto" and len(shown) > AUTO_HEARTBEATS)
    if thin:
        shown = shown[~shown["ok_heartbeat"]]
    total = len(shown)
    rows = layout(shown.iloc[:max_messages], {COORDINATOR: 0, **{m: i + 1 for i, m in enumerate(lanes)}})
    consumer = tables.protocol(run) == "consumer"
    spec = diagram(rows, [COORDINATOR, *lanes], width, CONSUMER_COLORS if consumer else COLORS)
    if title:
        lo, hi = tables.window_ms(run, window)
        sub = [f"{lo / 1000:g} s to {hi / 1000:g} s; one row per message, in the coordinator's order (not to scale)"]
        if len(lanes) < len(everyone):
            sub.append(f"showing {len(lanes)} of {len(everyone)} members")
        if thin and frame["ok_heartbeat"].any():
            sub.append(f"{THINNED[consumer]} not shown (heartbeats='all' shows them)")
        if total > len(rows):
            sub.append(f"first {len(rows)} of {total} messages: narrow the window")
        spec["title"] = title_of(title, sub)
    return spec


def diagram(rows: pd.DataFrame, lanes: list[str], width: int | None, colors: dict = COLORS) -> dict:
    """The Vega-Lite spec of `layout`'s rows: a lifeline per lane (the first is the server), arrows, notes,
    the time at the left; colours by message kind (also used by chapter 12's share-group diagram)."""
    n = max(len(rows), 1)
    x = field("x", axis=None, scale={"domain": [-1.0, len(lanes) + 0.2], "nice": False, "zero": False})
    y = field("row", axis=None, scale={"domain": [-1.6, n - 0.4], "reverse": True, "nice": False, "zero": False})
    kinds = {"domain": list(colors), "range": list(colors.values())}
    tips = [tip("time_s", "time (s)", fmt=".3f"), tip("member", type_="nominal"),
            tip("label", "message", "nominal"), tip("detail", "detail", "nominal")]
    life = pd.DataFrame({"x": range(len(lanes)), "lane": lanes, "top": -0.6, "bottom": n - 0.5, "row": -1.1})
    arrows = {"filter": "datum.arrow"}
    color = field("kind", "nominal", scale=kinds, legend={"title": None, "orient": "bottom", "direction": "horizontal"})
    text = {"x": field("label_x", axis=None), "y": y, "text": field("label", "nominal"), "tooltip": tips,
            "color": field("kind", "nominal", scale=kinds, legend=None)}
    layers = [
        unit(life, {"type": "rule", "color": "#c8c8c8", "strokeWidth": 1.2},
             {"x": x, "y": field("top", axis=None), "y2": {"field": "bottom"}}),
        unit(life, {"type": "text", "fontWeight": "bold", "fontSize": 11},
             {"x": x, "y": y, "text": field("lane", "nominal")}),
        unit(None, {"type": "rule", "strokeWidth": 1.3}, {
            "x": x, "x2": {"field": "x2"}, "y": y, "color": color, "tooltip": tips,
            "strokeDash": field("dashed", "nominal", scale={"domain": [False, True], "range": [[1, 0], [4, 2]]},
                                legend=None)}, transform=[arrows]),
        unit(None, {"type": "point", "filled": True, "size": 45, "opacity": 1}, {
            "x": field("x2", axis=None), "y": y, "color": color, "tooltip": tips,
            "shape": field("head", "nominal", scale={"domain": ["left", "right"],
                                                      "range": ["triangle-left", "triangle-right"]}, legend=None)},
             transform=[arrows]),
        unit(None, {"type": "text", "align": "left", "baseline": "bottom", "dx": 4, "dy": -1, "fontSize": 10},
             text, transform=[arrows]),
        unit(None, {"type": "text", "align": "left", "dx": 4, "fontSize": 10, "fontStyle": "italic"},
             text, transform=[{"filter": "!datum.arrow"}]),
        unit(None, {"type": "text", "align": "right", "fontSize": 9, "color": "#555"},
             {"x": field("time_x", axis=None), "y": y, "text": field("time_label", "nominal")},
             transform=[{"filter": "datum.new_time"}]),
    ]
    return {"data": values(rows), "layer": layers,
            "width": width or max(360, LANE_PX * (len(lanes) + 1.2)), "height": ROW_PX * (n + 1.2)}


def layout(frame: pd.DataFrame, x_of: dict) -> pd.DataFrame:
    """Positions: a request goes member -> the lane at x 0 (the coordinator), a reply back; notes sit on
    their lane. `frame` has messages()' columns; `x_of` maps each lane to its position."""
    lane = frame["member"].map(x_of)
    is_request = frame["kind"].eq("request")
    arrow = frame["kind"].isin(["request", "reply", "error"])
    out = pd.DataFrame({
        "row": range(len(frame)),
        "time_s": frame["time"] / 1000.0,
        "member": frame["member"],
        "kind": frame["kind"],
        "label": frame["label"],
        "detail": frame["detail"],
        "arrow": arrow,
        "x": lane.where(is_request | ~arrow, 0),
        "x2": lane.where(~is_request, 0).where(arrow, lane),
        "dashed": frame["kind"].ne("request") & arrow,
        "head": is_request.map({True: "left", False: "right"}),
    })
    out["label_x"] = out[["x", "x2"]].min(axis=1)
    out["new_time"] = out["time_s"].ne(out["time_s"].shift())
    out["time_label"] = out["time_s"].map(lambda s: f"{s:.3f} s")
    out["time_x"] = -0.25
    return out
