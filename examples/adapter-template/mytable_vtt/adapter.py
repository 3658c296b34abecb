"""The MyTable adapter: MyTable's events in, vttbridge's domain events out; vttbridge's effects
in, MyTable's commands out. Pure translation: the bridge does the sockets, the acks, the log.

MyTable (the VTT this template pretends to serve) has square cells of ``gridSize`` px, tokens
one cell large positioned by their top-left corner, a chat with whispers and answer buttons, a
combat tracker, character sheets and status markers. It has no ruler the rules could colour
and cannot hold a move before it happens, so it declines ``MovementBudget``, ``WatchMoves`` and
``ReleaseMove`` (the bridge then drops them: ``docs/adapters.md`` says what each costs).

Events -> domain events (``MyTable.events``: each event once, its payload model and the method
that translates it; the bridge validates payloads with the models and checks the table when the
class is made):

===============  ======================================================
``snapshot``     ``SceneSnapshot`` (scene, grid, tokens, users, regions)
``tokenMoved``   ``TokenMoved`` (waypoints kept; an unknown token refused)
``tokenCreated`` ``TokenCreated``
``tokenDeleted`` ``TokenRemoved``
``chatMessage``  ``ChatMessage`` (``!`` lines become commands in the runtime)
``combatStarted`` ``CombatStarted`` (the initiatives MyTable rolled)
``turnChanged``  ``TurnStarted``
``combatEnded``  ``CombatEnded``
===============  ======================================================

Effects -> commands: ``PostChat`` ``chat.send``, ``AskPlayer`` ``chat.ask``, ``UpdateToken``
``token.update``, ``SetInitiative`` ``combat.setInitiative``, ``AdvanceTurn`` ``combat.setTurn``
(``combat.end`` when the fight is over), ``UpdateStats`` ``sheet.update``, ``UpdateConditions``
``token.setConditions``.
"""

from __future__ import annotations

from typing import Any

from vttbridge.adapters.base import (
    Adapter,
    Command,
    InboundEvent,
    TranslationError,
    check_on_canvas,
    scene_extent,
)
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.sdk import effects as fx
from vttbridge.sdk import events as ev
from vttbridge.sdk.world import WorldView

from mytable_vtt import models as m

DEFAULT_CELL_PX = 50.0


class MyTable(Adapter):
    """MyTable's clients connect to the namespace ``/mytable``."""

    name = "mytable"
    version = "0.1.0"
    outbound = {
        "chat.send": m.ChatSend,
        "chat.ask": m.ChatAsk,
        "token.update": m.TokenUpdate,
        "combat.setInitiative": m.SetInitiative,
        "combat.setTurn": m.SetTurn,
        "combat.end": m.SetTurn,
        "sheet.update": m.SheetUpdate,
        "token.setConditions": m.SetConditions,
    }
    declines = frozenset({fx.MovementBudget, fx.WatchMoves, fx.ReleaseMove})

    # -- in ------------------------------------------------------------------------------------
    def _snapshot(self, p: m.Snapshot, world: WorldView) -> list[ev.Event]:
        extent = (p.scene.width, p.scene.height) if p.scene.width and p.scene.height else None
        grid = Grid(distance=p.scene.gridDistance, pixels=p.scene.gridSize)
        snapshot = ev.SceneSnapshot(
            scene=ev.SceneData(id=p.scene.id, name=p.scene.name, grid=grid, extent=extent),
            tokens=[_token(t, p.scene.id, p.scene.gridSize) for t in p.tokens],
            players=[
                ev.Player(id=u.id, name=u.name, role="gm" if u.isGM else "player") for u in p.users
            ],
            regions={r.name: [Cell(x=x, y=y) for x, y in r.cells] for r in p.regions},
        )
        return [snapshot]

    def _moved(self, p: m.TokenMoved, world: WorldView) -> list[ev.Event]:
        token = _known(world, p.tokenId, "tokenId")
        extent = scene_extent(world, token.scene)
        check_on_canvas(extent, p.x, p.y, "", ("x", "y"))
        for i, point in enumerate(p.path):
            check_on_canvas(extent, point.x, point.y, f"path.{i}.", ("x", "y"))
        size = _px(world, token.scene)
        moved = ev.TokenMoved(
            token=p.tokenId,
            to_cell=_cell(p.x, p.y, size),
            path=[_cell(q.x, q.y, size) for q in p.path],
            player=p.userId,
        )
        return [moved]

    def _created(self, p: m.TokenCreated, world: WorldView) -> list[ev.Event]:
        scene = world.active_scene
        return [ev.TokenCreated(token=_token(p.token, scene, _px(world, scene)))]

    def _deleted(self, p: m.TokenDeleted, world: WorldView) -> list[ev.Event]:
        _known(world, p.tokenId, "tokenId")
        return [ev.TokenRemoved(token=p.tokenId)]

    def _chat(self, p: m.ChatMessage, world: WorldView) -> list[ev.Event]:
        user = world.players.get(p.userId or "")
        role = user.role if user is not None else "player"
        return [ev.ChatMessage(text=p.text, player=p.userId, role=role, token=p.tokenId)]

    def _combat_started(self, p: m.CombatStarted, world: WorldView) -> list[ev.Event]:
        for i, c in enumerate(p.combatants):
            _known(world, c.tokenId, f"combatants.{i}.tokenId")
        initiative = {c.tokenId: c.initiative for c in p.combatants if c.initiative is not None}
        return [ev.CombatStarted(tokens=[c.tokenId for c in p.combatants], initiative=initiative)]

    def _turn_changed(self, p: m.TurnChanged, world: WorldView) -> list[ev.Event]:
        return [ev.TurnStarted(round=p.round, token=p.tokenId)]

    def _combat_ended(self, p: m.CombatEnded, world: WorldView) -> list[ev.Event]:
        return [ev.CombatEnded()]

    events = {
        "snapshot": InboundEvent(m.Snapshot, _snapshot),
        "tokenMoved": InboundEvent(m.TokenMoved, _moved),
        "tokenCreated": InboundEvent(m.TokenCreated, _created),
        "tokenDeleted": InboundEvent(m.TokenDeleted, _deleted),
        "chatMessage": InboundEvent(m.ChatMessage, _chat),
        "combatStarted": InboundEvent(m.CombatStarted, _combat_started),
        "turnChanged": InboundEvent(m.TurnChanged, _turn_changed),
        "combatEnded": InboundEvent(m.CombatEnded, _combat_ended),
    }

    # -- out -----------------------------------------------------------------------------------
    def translate_out(self, effect: fx.Effect, world: WorldView) -> list[Command]:
        match effect:
            case fx.PostChat():
                data = m.ChatSend(
                    text=effect.text, whisperTo=effect.whisper_to, speaker=effect.speaker
                )
                return [Command(op="chat.send", data=data.model_dump())]
            case fx.AskPlayer():
                ask = m.ChatAsk(
                    promptId=effect.prompt,
                    userId=effect.player,
                    question=effect.question,
                    options=effect.options,
                    default=effect.default,
                    timeoutSeconds=effect.timeout,
                )
                return [Command(op="chat.ask", data=ask.model_dump())]
            case fx.UpdateToken():
                return [self._token_update(effect, world)]
            case fx.SetInitiative():
                init = m.SetInitiative(tokenId=effect.token, initiative=effect.ic)
                return [Command(op="combat.setInitiative", data=init.model_dump())]
            case fx.AdvanceTurn():
                turn = m.SetTurn(round=effect.round, tokenId=effect.token)
                over = effect.round == 0 and effect.token is None  # the fight ended
                return [
                    Command(op="combat.end" if over else "combat.setTurn", data=turn.model_dump())
                ]
            case fx.UpdateStats():
                sheet = m.SheetUpdate(tokenId=effect.token, stats=effect.stats)
                return [Command(op="sheet.update", data=sheet.model_dump())]
            case fx.UpdateConditions():
                marks = m.SetConditions(tokenId=effect.token, conditions=effect.conditions)
                return [Command(op="token.setConditions", data=marks.model_dump())]
        return []  # only what ``declines`` lists reaches here: the bridge never sends those

    def _token_update(self, effect: fx.UpdateToken, world: WorldView) -> Command:
        tok = world.tokens.get(effect.token)
        size = _px(world, tok.scene if tok else None)
        data = m.TokenUpdate(tokenId=effect.token)
        if effect.cell is not None:
            data.x, data.y = effect.cell.x * size, effect.cell.y * size
        for field in ("name", "hidden"):
            if field in effect.fields:
                setattr(data, field, effect.fields[field])
        return Command(
            op="token.update",
            data=data.model_dump(exclude_none=True),
            options={"animate": effect.animate},
        )


# -- helpers --------------------------------------------------------------------------------------


def _px(world: WorldView, scene: str | None) -> float:
    """Pixels per cell of ``scene`` (the active one when None), as its snapshot said."""
    known = world.scenes.get(scene or world.active_scene or "")
    return (known.grid.pixels if known is not None else None) or DEFAULT_CELL_PX


def _cell(x: float, y: float, size: float) -> Cell:
    return Cell(x=int(x // size), y=int(y // size))


def _token(t: m.MTToken, scene: str | None, size: float) -> ev.TokenData:
    return ev.TokenData(
        id=t.id,
        name=t.name,
        actor=t.actorId,
        cell=_cell(t.x, t.y, size),
        scene=scene,
        owners=t.owners,
        disposition=m.DISPOSITION[t.disposition],
        hidden=t.hidden,
        stats=t.stats,
    )


def _known(world: WorldView, token: str, path: str) -> Any:
    """The world's token ``token``, or a refusal naming the field."""
    found = world.tokens.get(token)
    if found is None:
        raise TranslationError("unknown_token", f"No token {token!r} on the table.", path)
    return found
