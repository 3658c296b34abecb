"""Held moves: a Ready that intercedes on the *attempt* of a move resolves before the move
happens in the VTT.

A VTT that can hold a move before it is written (Foundry: ``preUpdateToken`` returning
``false``; Roll20: the Mod puts the token back and forwards the move) lets the bridge rule on
it first. Holding every move would slow every drag, so the bridge tells the VTT's client which
moves it watches, and only those wait. The pieces:

1. **The watch set.** After each event this script computes which moves could set off a watch
   on the attempt (``Watch.data["timing"] == "attempt"``: a Ready declared with ``--timing
   attempt``; its trigger's cells: a region, the cells within range of
   the readied token; or any move, for a named condition or an ``action move`` trigger) and,
   when that changed, emits :class:`WatchMoves`. The adapter sends it to its client (Foundry:
   ``flags.vttbridge.watch`` on the active scene, which every client sees, so a player's own
   client can hold the move it starts; Roll20: the Mod's ``watch`` command).
2. **The hold.** The client holds a move that enters a watched cell and sends it as held
   (Foundry ``preUpdateToken``). The adapter translates it to ``ActionDeclared(action="move",
   phase="attempt")`` followed by ``TokenMoved``, both with the payload's event id: the runtime
   moves the token, the Ready's trigger fires, and its "fire or cancel?" prompt opens. A held
   move the rules refuse before it is applied (a system's movement budget) is released at once,
   where it started (``moved`` false).
3. **The release.** This script records the hold and, once no prompt the move set off for the
   owner of a watch on the attempt (the Ready's "fire or cancel?") is pending (the Ready fired
   or was held back), emits :class:`ReleaseMove`: the adapter's token update to wherever the rules
   left the token (the destination, or elsewhere if a script moved it: "or not"). A move that set
   off nothing is released in the same step, one round trip after the drag.
4. **No answer.** If the bridge does not acknowledge the held move within the watch's budget
   (``budget_ms``, 1.5 s by default), the client lets the move through, says so in chat, and
   sends the completed move under the *same event id*: whichever of the two reaches the bridge
   first is applied, the other is a duplicate. The Ready then resolves on completion. A move is
   never held longer than ``max_hold_ms`` (the prompt timeout plus a margin) even if the bridge
   goes quiet after acknowledging it.

Scripts that listen to every event (``BaseEvent``) also see this script's internal
``HoldCheck`` events (``type="hold_check"``).

Whether a world holds moves is its setting ``hold_moves`` (``!set hold_moves false``; on by
default, off in a runtime made without the built-ins): an adapter asks that, never this
script's store.

Limits: a prompt that a later, derived event opens (a script's ``on_enter`` that signals a
condition) is not waited for; the move is released at the first check without one.

This is a built-in: every world loads it (see
:func:`vttbridge.sdk.runtime.scripts.builtin_scripts`), so
nothing needs ``--script``. It emits no effect until a Ready is declared on the attempt. Its
effects, :class:`vttbridge.sdk.effects.WatchMoves` and :class:`vttbridge.sdk.effects.ReleaseMove`,
are members of
:data:`vttbridge.sdk.effects.Effect`; an adapter whose VTT cannot hold moves drops them (logged).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from vttbridge.rules.geometry import Cell
from vttbridge.sdk.context import Context
from vttbridge.sdk.effects import MoveWatch, ReleaseMove, WatchMoves
from vttbridge.sdk.events import (
    ActionDeclared,
    BaseEvent,
    ChatCommand,
    ChatMessage,
    ConditionSignalled,
    MoveRefused,
    PromptAnswered,
    TimerFired,
    TokenMoved,
)
from vttbridge.sdk.regions import within
from vttbridge.sdk.script import Script

log = logging.getLogger(__name__)

SCRIPT_NAME = "holds"
MOVE_ACTION = "move"

HOLD_MARGIN_S = 30.0
"""Added to the world's prompt timeout for the longest a move may stay held."""
DONE_KEPT = 64

script = Script(
    SCRIPT_NAME,
    description="Holds moves that a Ready watches on the attempt, until it resolves.",
)


class HoldCheck(BaseEvent):
    """Internal: look at the holds and the watch set after the event that derived it."""

    type: Literal["hold_check"] = "hold_check"


# -- state ----------------------------------------------------------------------------------------


def state_of(store: dict[str, Any]) -> dict[str, Any]:
    """This script's part of the world store: ``holds`` (open holds by event id), ``arming``
    (the attempt announced by the ``ActionDeclared`` just before its ``TokenMoved``),
    ``done`` (recently released hold ids) and ``watch`` (the watch set last sent)."""
    store.setdefault("holds", {})
    store.setdefault("done", [])
    store.setdefault("watch", None)
    store.setdefault("arming", None)
    return store


def world_holds(world: Any) -> dict[str, Any]:
    """The holds state of a world, read-only (``{}`` when the script never ran there)."""
    store = getattr(world, "store", None) or {}
    return store.get(SCRIPT_NAME, {})


# -- the watch set --------------------------------------------------------------------------------


def attempt_watches(world: Any) -> list[MoveWatch]:
    """Moves that could set off a watch on the attempt (``data["timing"] == "attempt"``: a
    Ready declared so), as the client checks them; none while the world's setting
    ``hold_moves`` is off."""
    out: list[MoveWatch] = []
    if not world.settings.hold_moves:
        return out
    for key in sorted(world.watches):
        w = world.watches[key]
        if w.data.get("timing") != "attempt":
            continue
        spec = w.spec
        kind = spec.get("kind")
        filt = {"token": spec.get("token"), "exclude": spec.get("exclude")}
        if kind == "enter":
            levels = [spec["level"]] if spec.get("level") else None
            if spec.get("cells") is not None:
                cells = {(c["x"], c["y"]) for c in spec["cells"]}
            else:
                region = world.regions.get(spec.get("region"))
                cells = set(region.xy) if region is not None else set()
                levels = levels or (region.levels if region is not None else None)
            out.append(MoveWatch(cells=sorted(cells), levels=levels, **filt))
        elif kind == "within":
            anchor = world.tokens.get(spec.get("anchor"))
            if anchor is None:
                continue
            near = within(anchor.cell, float(spec.get("distance", 0)), world.grid)
            levels = [anchor.level] if anchor.level else None
            out.append(MoveWatch(cells=sorted((c.x, c.y) for c in near), levels=levels, **filt))
        elif kind == "condition" or (
            kind == "action" and str(spec.get("action", "")).lower() == MOVE_ACTION
        ):
            out.append(MoveWatch(cells=None, **filt))  # any move may satisfy it
    return out


def watch_effect(world: Any) -> WatchMoves:
    timeout = float(getattr(world.settings, "prompt_timeout", 60.0) or 60.0)
    return WatchMoves(
        scene=world.active_scene,
        watches=attempt_watches(world),
        max_hold_ms=int((timeout + HOLD_MARGIN_S) * 1000),
    )


# -- the script -----------------------------------------------------------------------------------

_CHECK_AFTER = (
    ChatMessage,
    ChatCommand,
    PromptAnswered,
    ActionDeclared,
    ConditionSignalled,
    TimerFired,
)


@script.on(BaseEvent)
def on_event(event: BaseEvent, ctx: Context) -> None:
    if isinstance(event, HoldCheck):
        check(ctx)
        return
    st = state_of(ctx.store)
    if (
        isinstance(event, ActionDeclared)
        and event.source == "vtt"
        and event.action == MOVE_ACTION
        and event.phase == "attempt"
        and event.id
    ):
        st["arming"] = {"id": event.id, "token": event.token}
    elif isinstance(event, MoveRefused):
        arming = st.get("arming")
        if arming and arming["id"] == event.id and arming["token"] == event.token:
            # a held move the rules refused: it never happened, let the VTT drop it now
            st["done"] = [*st["done"][-(DONE_KEPT - 1) :], event.id]
            tok = ctx.world.tokens.get(event.token)
            if tok is not None and event.id:
                ctx.emit(ReleaseMove(hold=event.id, token=tok.id, cell=tok.cell, moved=False))
        st["arming"] = None
    elif isinstance(event, TokenMoved) and event.source == "vtt":
        arming = st.get("arming")
        if arming and arming["id"] == event.id and arming["token"] == event.token:
            st["holds"][event.id] = {
                "token": event.token,
                "to": [event.to_cell.x, event.to_cell.y],
                "from": [event.from_cell.x, event.from_cell.y] if event.from_cell else None,
                "before": sorted(ctx.world.prompts),
                "watchers": _attempt_owners(ctx.world),
                "blockers": None,
            }
        st["arming"] = None
    if st["holds"] or st["watch"] or ctx.world.watches or isinstance(event, _CHECK_AFTER):
        ctx.emit_event(HoldCheck(source="script"))


def check(ctx: Context) -> None:
    """Release the holds nothing waits for any more, and send the watch set if it changed."""
    st = state_of(ctx.store)
    world = ctx.world
    for hid in list(st["holds"]):
        hold = st["holds"][hid]
        if hold["blockers"] is None:  # first look after the move: what did it set off?
            before = set(hold["before"])
            watchers = set(hold.get("watchers", ()))
            hold["blockers"] = [
                p.id
                for p in world.prompts.values()
                if p.id not in before and (p.actor or p.token) in watchers
            ]
        if any(pid in world.prompts for pid in hold["blockers"]):
            continue
        del st["holds"][hid]
        st["done"] = [*st["done"][-(DONE_KEPT - 1) :], hid]
        tok = world.tokens.get(hold["token"])
        if tok is None:
            continue  # the token is gone: nothing to move
        to = Cell(x=hold["to"][0], y=hold["to"][1])
        ctx.emit(ReleaseMove(hold=hid, token=tok.id, cell=tok.cell, moved=tok.cell == to))
    eff = watch_effect(world)
    dump = eff.model_dump(mode="json")
    if dump != st["watch"] and (st["watch"] is not None or eff.watches):
        st["watch"] = dump
        ctx.emit(eff)


def _attempt_owners(world: Any) -> list[str]:
    """Whose watches on the attempt are set now (a question one of them is asked after the
    move is the Ready it set off: the move waits for the answer)."""
    return sorted(
        {
            w.owner or w.data.get("actor")
            for w in world.watches.values()
            if w.data.get("timing") == "attempt" and (w.owner or w.data.get("actor"))
        }
    )


__all__ = [
    "SCRIPT_NAME",
    "HoldCheck",
    "MoveWatch",
    "ReleaseMove",
    "WatchMoves",
    "attempt_watches",
    "check",
    "script",
    "world_holds",
]
