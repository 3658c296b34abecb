"""MiniTable: a small but real adapter the bridge tests register (the bridge knows no VTT by
name). Its "VTT" uses 100 px square cells, token ids as given, and a handful of events.

Native events -> domain events:
    snapshot      {id, scene: {id, name}, tokens: [{id, name, x, y, actor?, owners?,
                   disposition?, stats?}],
                   users: [{id, name, role}]}               -> SceneSnapshot
    tokenMoved    {id, token, x, y, user?}                  -> TokenMoved (unknown token refused)
    tokenCreated  {id, token: {id, name, x, y}}             -> TokenCreated
    chat          {id, text, user?, role?, token?}          -> ChatMessage (commands parsed by sdk)
    combatStart   {id, tokens: [..], initiative: {tok: ic}} -> CombatStarted
    nextTurn      {id}                                      -> TurnStarted
    noop          {id}                                      -> nothing (accepted, no event)

Effects -> ops:
    PostChat -> chat.post, UpdateToken -> token.update, SetInitiative -> combat.initiative,
    AdvanceTurn -> combat.turn, AskPlayer -> chat.ask; it declines the rest (no sheets, no
    status markers, no ruler, no held moves).

RulerTable: the same VTT with a ruler, namespace ``/rulertable``: MovementBudget ->
token.budget {id, budget}, the command a token gets after each move in a fight (as Foundry's
Token Ruler and Roll20's whisper are sent; the benchmarks' table with a command a move).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field
from vttbridge.adapters.base import Adapter, Command, Inbound, TranslationError
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.sdk import effects as fx
from vttbridge.sdk import events as ev

CELL_PX = 100


class MTScene(BaseModel):
    id: str
    name: str = ""


class MTToken(BaseModel):
    id: str = Field(min_length=1)
    name: str = ""
    x: int
    y: int
    actor: str | None = None
    owners: list[str] = Field(default_factory=list)
    disposition: int = 0
    stats: dict[str, Any] = Field(default_factory=dict)


class MTUser(BaseModel):
    id: str
    name: str = ""
    role: Literal["gm", "player", "observer"] = "player"


class Snapshot(Inbound):
    scene: MTScene
    tokens: list[MTToken] = Field(default_factory=list)
    users: list[MTUser] = Field(default_factory=list)


class TokenMovedIn(Inbound):
    token: str = Field(min_length=1)
    x: int
    y: int
    user: str | None = None


class TokenCreatedIn(Inbound):
    token: MTToken


class ChatIn(Inbound):
    text: str = Field(max_length=2000)
    user: str | None = None
    role: Literal["gm", "player"] = "player"
    token: str | None = None


class CombatStartIn(Inbound):
    tokens: list[str]
    initiative: dict[str, int] = Field(default_factory=dict)


class NextTurnIn(Inbound):
    pass


class NoopIn(Inbound):
    pass


class ChatPost(BaseModel):
    text: str
    whisper: str | None = None


class TokenUpdate(BaseModel):
    id: str
    x: int | None = None
    y: int | None = None


def cell(x: int, y: int) -> Cell:
    return Cell(x=x // CELL_PX, y=y // CELL_PX)


def _token_data(t: MTToken, scene: str | None = None) -> ev.TokenData:
    return ev.TokenData(
        id=t.id,
        name=t.name,
        actor=t.actor,
        cell=cell(t.x, t.y),
        scene=scene,
        owners=t.owners,
        disposition=t.disposition,
        stats=t.stats,
    )


class MiniTable(Adapter):
    name = "minitable"
    version = "1.0"
    inbound = {
        "snapshot": Snapshot,
        "tokenMoved": TokenMovedIn,
        "tokenCreated": TokenCreatedIn,
        "chat": ChatIn,
        "combatStart": CombatStartIn,
        "nextTurn": NextTurnIn,
        "noop": NoopIn,
    }
    outbound = {"chat.post": ChatPost, "token.update": TokenUpdate}
    declines = frozenset(
        {fx.UpdateStats, fx.UpdateConditions, fx.MovementBudget, fx.WatchMoves, fx.ReleaseMove}
    )

    def translate_in(self, event: str, payload: Inbound, world: Any) -> list[ev.Event]:
        match payload:
            case Snapshot():
                return [
                    ev.SceneSnapshot(
                        scene=ev.SceneData(
                            id=payload.scene.id, name=payload.scene.name, grid=Grid()
                        ),
                        tokens=[_token_data(t, payload.scene.id) for t in payload.tokens],
                        players=[
                            ev.Player(id=u.id, name=u.name, role=u.role) for u in payload.users
                        ],
                    )
                ]
            case TokenMovedIn():
                if payload.token not in world.tokens:
                    raise TranslationError(
                        "unknown_token", f"No token {payload.token!r} on the table.", "token"
                    )
                return [
                    ev.TokenMoved(
                        id=payload.id,
                        token=payload.token,
                        to_cell=cell(payload.x, payload.y),
                        player=payload.user,
                    )
                ]
            case TokenCreatedIn():
                return [ev.TokenCreated(token=_token_data(payload.token, world.active_scene))]
            case ChatIn():
                return [
                    ev.ChatMessage(
                        text=payload.text,
                        player=payload.user,
                        role=payload.role,
                        token=payload.token,
                    )
                ]
            case CombatStartIn():
                return [ev.CombatStarted(tokens=payload.tokens, initiative=payload.initiative)]
            case NextTurnIn():
                return [ev.TurnStarted()]
            case NoopIn():
                return []
        raise TranslationError("unknown_event", f"MiniTable cannot translate {event!r}.")

    def translate_out(self, effect: Any, world: Any) -> list[Command]:
        match effect:
            case fx.PostChat():
                return [
                    Command(
                        op="chat.post", data={"text": effect.text, "whisper": effect.whisper_to}
                    )
                ]
            case fx.UpdateToken():
                data: dict[str, Any] = {"id": effect.token, **effect.fields}
                if effect.cell is not None:
                    data.update(x=effect.cell.x * CELL_PX, y=effect.cell.y * CELL_PX)
                return [Command(op="token.update", data=data, options={"animate": effect.animate})]
            case fx.SetInitiative():
                return [
                    Command(
                        op="combat.initiative", data={"token": effect.token, "value": effect.ic}
                    )
                ]
            case fx.AdvanceTurn():
                return [
                    Command(op="combat.turn", data={"round": effect.round, "token": effect.token})
                ]
            case fx.AskPlayer():
                return [
                    Command(
                        op="chat.ask",
                        data={
                            "prompt": effect.prompt,
                            "player": effect.player,
                            "question": effect.question,
                            "options": effect.options,
                        },
                    )
                ]
        return []


class TokenBudget(BaseModel):
    id: str
    budget: dict[str, Any] | None = None


class RulerTable(MiniTable):
    """MiniTable whose VTT shows each token's movement budget."""

    name = "rulertable"
    outbound = {**MiniTable.outbound, "token.budget": TokenBudget}
    declines = MiniTable.declines - {fx.MovementBudget}

    def translate_out(self, effect: Any, world: Any) -> list[Command]:
        if isinstance(effect, fx.MovementBudget):
            budget = None if effect.budget is None else effect.budget.model_dump()
            return [Command(op="token.budget", data={"id": effect.token, "budget": budget})]
        return super().translate_out(effect, world)
