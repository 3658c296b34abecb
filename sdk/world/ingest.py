"""Ingest: the world's own bookkeeping for an event from outside (token positions, stats, the
scene, players), done after the event was validated (:mod:`vttbridge.sdk.world.validate`) and, for a
move, judged (the scripts' ``before_move``), and before any listener sees it.
"""

from __future__ import annotations

from vttbridge.sdk.events import (
    ActorUpdated,
    BaseEvent,
    SceneSnapshot,
    TokenCreated,
    TokenMoved,
    TokenRemoved,
    TokenUpdated,
)
from vttbridge.sdk.regions import Region
from vttbridge.sdk.triggers import TriggerIndex
from vttbridge.sdk.world.model import Actor, Scene, World

__all__ = ["ingest", "normalize"]


def normalize(w: World, ev: BaseEvent) -> BaseEvent:
    """Fill in what the adapter left out and the world knows (a move's start cell), so
    listeners and the journal see the whole event."""
    if isinstance(ev, TokenMoved) and ev.from_cell is None:
        return ev.model_copy(update={"from_cell": w.tokens[ev.token].cell})
    return ev


def ingest(w: World, ev: BaseEvent, index: TriggerIndex, touched: set[str]) -> bool:
    """Apply ``ev`` to ``w``, keeping the trigger ``index`` in step; add to ``touched`` the
    tokens whose sheet values changed. Returns True when any token's may have (a scene
    snapshot)."""
    match ev:
        case TokenMoved():
            w.place(ev.token, ev.to_cell)
            if ev.levels:
                w.tokens[ev.token].level = ev.level
            index.anchor_moved(ev.token)
        case TokenCreated():
            w.put_token(ev.token)
            index.anchor_moved(ev.token.id)
            touched.add(ev.token.id)
        case TokenRemoved():
            w.remove_token(ev.token)
        case TokenUpdated():
            tok = w.tokens[ev.token]
            before = w.sheet_values(tok.id) if ev.stats or ev.actor is not None else None
            for f in ("name", "actor", "owners", "disposition", "hidden"):
                value = getattr(ev, f)
                if value is not None:
                    setattr(tok, f, value)
            if ev.stats:
                tok.stats.update(ev.stats)
            w.refresh_character(tok.id, before)
            touched.add(tok.id)
        case ActorUpdated():
            linked = [t.id for t in w.tokens.values() if t.actor == ev.actor and t.linked]
            befores = {t: w.sheet_values(t) for t in linked}
            actor = w.actors.setdefault(ev.actor, Actor(id=ev.actor))
            if ev.name is not None:
                actor.name = ev.name
            actor.stats.update(ev.stats)
            for tid in linked:
                w.refresh_character(tid, befores[tid])
                touched.add(tid)
        case SceneSnapshot():
            _ingest_snapshot(w, ev, index)
            return True
        case _:
            pass
    return False


def _ingest_snapshot(w: World, ev: SceneSnapshot, index: TriggerIndex) -> None:
    s = ev.scene
    w.set_scene(Scene(id=s.id, name=s.name, grid=s.grid, extent=s.extent))
    for p in ev.players:
        w.players[p.id] = p
    # what the sheets showed before this snapshot: a rules-owned value follows the sheet
    # only where it changed
    befores = {t.id: w.sheet_values(t.id) for t in ev.tokens if t.id in w.tokens}
    for a in ev.actors:
        w.actors[a.id] = Actor(id=a.id, name=a.name, stats=dict(a.stats), vtt=dict(a.vtt))
    seen = set()
    for data in ev.tokens:
        data = data if data.scene else data.model_copy(update={"scene": ev.scene.id})
        seen.add(data.id)
        w.put_token(data, befores.get(data.id))
    for tid in [
        t.id for t in w.tokens.values() if t.id not in seen and t.scene in (None, ev.scene.id)
    ]:
        w.remove_token(tid)
    for name in [
        n for n, r in w.regions.items() if r.source == "vtt" and r.scene in (None, ev.scene.id)
    ]:
        del w.regions[name]
    for name, cells in ev.regions.items():
        levels = ev.region_levels.get(name)
        w.regions[name] = Region(
            name=name, cells=cells, scene=ev.scene.id, source="vtt", levels=levels
        )
    index.grid_changed()
