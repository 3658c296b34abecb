"""Pydantic models of the Foundry VTT payloads of the wire protocol (version 1).

Each inbound event is the companion module's serialisation of one Foundry hook (``doc.toObject()``
plus the hook's ``changed``/``options`` arguments) wrapped in the protocol envelope (an ``id``).
The models follow Foundry v11 to v13 and are tolerant on purpose:

- unknown keys are kept, never rejected (v13 adds ``movementAction``, v14 ``level``...);
- ``ChatMessage.user`` (up to v11) and ``author`` (v12+) are both read, as are the numeric
  ``type`` of v11 (``CHAT_MESSAGE_TYPES``) and the ``style`` of v12+;
- rolls are accepted as the JSON strings Foundry stores or as already parsed objects;
- ``grid`` may be the v10+ object or the bare pixel size of older scenes.

Only the fields the adapter reads are declared; everything else passes through untouched.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from typing_extensions import TypedDict
from vttbridge.adapters.base import Inbound
from vttbridge.rules.numbers import (
    CellIndex,
    CellPx,
    Count,
    Distance,
    Finite,
    Offset,
    Px,
    Size,
    Whole,
    finite_or_none,
)

_DOC = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False)


def _drop_nulls(cls: type[BaseModel], v: Any) -> Any:
    """``null`` where a field takes no null means "the default" (Foundry leaves unset fields
    null in some versions and some modules write null)."""
    if not isinstance(v, dict):
        return v
    out = dict(v)
    for name, field in cls.model_fields.items():
        key = field.alias or name
        if key in out and out[key] is None and not _nullable(field.annotation):
            del out[key]
    return out


def _renamed(v: Any, old: str, new: str) -> Any:
    """A document from an older Foundry with ``old`` for the key now called ``new``."""
    if isinstance(v, dict) and new not in v and isinstance(v.get(old), dict):
        return {**v, new: v[old]}
    return v


def _nullable(annotation: Any) -> bool:
    return annotation is None or type(None) in getattr(annotation, "__args__", ())


USER_ROLES = {0: "observer", 1: "player", 2: "player", 3: "gm", 4: "gm"}
"""Foundry ``CONST.USER_ROLES`` (NONE, PLAYER, TRUSTED, ASSISTANT, GAMEMASTER) to our roles.
An assistant GM counts as a GM, as Foundry's own ``User#isGM`` does."""
OWNER_LEVEL = 3
"""``CONST.DOCUMENT_OWNERSHIP_LEVELS.OWNER``: a player with this level controls a token."""


class Lenient(BaseModel):
    """Keeps unknown keys; reads ``null`` as the default of a field that takes no null."""

    model_config = _DOC

    @model_validator(mode="before")
    @classmethod
    def _nulls(cls, v: Any) -> Any:
        return _drop_nulls(cls, v)


class Doc(Lenient):
    """Base of every Foundry document: ``_id`` plus whatever else it carries."""

    id: str = Field(alias="_id", min_length=1, max_length=64)


class Point(Lenient):
    """A canvas position in pixels (a waypoint or a token's previous top-left corner). A v13
    movement waypoint also says how the token moved to it (``action``: ``walk``, ``jump``...),
    a v14 one the level it is on (``level``) and its ``elevation``."""

    x: Px
    y: Px
    action: str | None = Field(None, max_length=64)
    level: str | None = Field(None, max_length=64)
    elevation: Finite | None = None


class FGrid(Lenient):
    """``scene.grid`` (v10+): ``size`` px per cell, ``distance`` ``units`` per cell."""

    type: int = 1
    size: CellPx = 100
    distance: Distance = 5
    units: str = "ft"

    @model_validator(mode="before")
    @classmethod
    def _bare_size(cls, v: Any) -> Any:
        if isinstance(v, int | float) and not isinstance(v, bool):
            return {"size": v}  # v9 and older scenes: ``grid`` was the pixel size
        return v


class FDimensions(Lenient):
    """``scene.dimensions``: the canvas (the scene and its padding), in px."""

    width: Size
    height: Size


class FScene(Doc):
    name: str = ""
    grid: FGrid = Field(default_factory=FGrid)
    dimensions: FDimensions | None = None
    """Sent by the module when Foundry has computed it: token positions must lie within."""


class FToken(Doc):
    """A TokenDocument: ``x``/``y`` are its top-left corner in px, ``width``/``height`` in cells."""

    name: str = ""
    actorId: str | None = None
    actorLink: bool = False
    x: Px = 0
    y: Px = 0
    elevation: Finite = 0
    width: float = Field(1, gt=0, le=100)
    height: float = Field(1, gt=0, le=100)
    disposition: Whole = 0
    hidden: bool = False
    level: str | None = Field(None, max_length=64)
    """v14: the id of the scene level (floor) it stands on."""
    delta: dict[str, Any] | None = None
    """v11+ ActorDelta of an unlinked token (v10 called it ``actorData``)."""
    flags: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _v10_actor_data(cls, v: Any) -> Any:
        return _renamed(v, "actorData", "delta")


class FCombatant(Doc):
    tokenId: str | None = None
    actorId: str | None = None
    sceneId: str | None = None
    name: str = ""
    initiative: Finite | None = None
    hidden: bool = False
    defeated: bool = False


class FCombat(Doc):
    """A Combat. ``turns`` (the module sends the document's sorted ``turns`` getter) or
    ``combatants`` (creation order, sorted here the way Foundry sorts them)."""

    scene: str | None = None
    active: bool = True
    round: Count = 0
    turn: Whole | None = None
    combatants: list[FCombatant] = Field(default_factory=list)
    turns: list[FCombatant] = Field(default_factory=list)

    def ordered(self) -> list[FCombatant]:
        """Combatants in Foundry's turn order: ``turns`` when sent, else initiative high to low
        (unrolled last), ties by id, as ``Combat#_sortCombatants`` does."""
        if self.turns:
            return list(self.turns)

        def key(c: FCombatant) -> tuple[float, str]:
            ini = c.initiative if c.initiative is not None else float("-inf")
            return (-ini, c.id)

        return sorted(self.combatants, key=key)

    def current(self) -> FCombatant | None:
        order = self.ordered()
        if self.turn is None or not 0 <= self.turn < len(order):
            return None
        return order[self.turn]

    def by_id(self, combatant_id: str | None) -> FCombatant | None:
        for c in (*self.turns, *self.combatants):
            if c.id == combatant_id:
                return c
        return None


class TurnData(Lenient):
    """``CombatHistoryData`` of ``combatTurnChange`` (and the module's ``prior`` of
    ``updateCombat``)."""

    round: Count | None = None
    turn: Whole | None = None
    tokenId: str | None = None
    combatantId: str | None = None


class FSpeaker(Lenient):
    scene: str | None = None
    actor: str | None = None
    token: str | None = None
    alias: str | None = None


class FRoll(Lenient):
    """A serialised ``Roll`` (``Roll#toJSON``). Dice are found anywhere in ``terms``, including
    inside pool and parenthetical terms."""

    class_: str = Field("Roll", alias="class")
    formula: str = ""
    total: Finite | None = None
    evaluated: bool = True
    terms: list[Any] = Field(default_factory=list)

    def dice(self) -> list[FDie]:
        found: list[FDie] = []
        _collect_dice(self.terms, found)
        return found


class FDie(BaseModel):
    """One dice term of a roll: ``number`` d ``faces`` and the results that count (dropped and
    discarded results are left out of ``results`` but kept in ``all_results``)."""

    number: int = 1
    faces: int
    results: list[int]
    all_results: list[int]

    @property
    def expression(self) -> str:
        return f"{self.number}d{self.faces}"


def _collect_dice(node: Any, out: list[FDie], depth: int = 0) -> None:
    if depth > 20:  # a hostile payload nesting terms forever
        return
    if isinstance(node, list):
        for item in node:
            _collect_dice(item, out, depth + 1)
        return
    if not isinstance(node, dict):
        return
    faces = _whole(node.get("faces"))
    results = node.get("results")
    if faces is not None and isinstance(results, list):
        kept, every = [], []
        for r in results[:1000]:
            value = _whole(r.get("result")) if isinstance(r, dict) else None
            if value is None:
                continue
            every.append(value)
            if r.get("active", True) and not r.get("discarded", False):
                kept.append(value)
        number = _whole(node.get("number"))
        out.append(
            FDie(
                number=number if number is not None else len(every),
                faces=faces,
                results=kept,
                all_results=every,
            )
        )
        return
    for key in ("terms", "rolls", "roll", "term", "dice"):
        child = node.get(key)
        if isinstance(child, str) and key in ("roll",):
            try:
                child = json.loads(child)
            except ValueError:
                continue
        if isinstance(child, list | dict):
            _collect_dice(child, out, depth + 1)


def _whole(v: Any) -> int | None:
    """A die's number from a roll's JSON, or None (not a number, not finite, absurd)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    v = finite_or_none(float(v))
    return None if v is None else int(v)


def parse_roll(value: Any) -> FRoll:
    """A roll from the JSON string Foundry stores, or from its parsed object."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise ValueError(f"roll is not valid JSON: {e.msg}") from None
    if not isinstance(value, dict):
        raise ValueError("roll must be a JSON object or its JSON string")
    return FRoll.model_validate(value)


class FChatMessage(Lenient):
    """A ChatMessage, v11 to v13. ``_id`` may be missing for a message not yet created."""

    id: str | None = Field(None, alias="_id")
    type: str | int | None = None
    """v12+: a subtype string (``"base"``); up to v11: the number of ``CHAT_MESSAGE_TYPES``."""
    style: int | None = None
    """v12+ ``CHAT_MESSAGE_STYLES``: OTHER 0, OOC 1, IC 2, EMOTE 3."""
    author: str | None = None
    user: str | None = None
    """The author's user id up to v11 (``author`` from v12)."""
    timestamp: float | None = None
    flavor: str | None = None
    content: str = ""
    speaker: FSpeaker = Field(default_factory=FSpeaker)
    whisper: list[str] = Field(default_factory=list)
    blind: bool = False
    rolls: list[FRoll] = Field(default_factory=list)
    flags: dict[str, Any] = Field(default_factory=dict)

    @field_validator("rolls", mode="before")
    @classmethod
    def _rolls(cls, v: Any) -> Any:
        if v is None:
            return []
        if not isinstance(v, list):
            raise ValueError("rolls must be a list")
        return [parse_roll(r) for r in v]

    @model_validator(mode="before")
    @classmethod
    def _legacy_roll(cls, v: Any) -> Any:
        # v9 and older stored one roll in ``roll``
        if isinstance(v, dict) and not v.get("rolls") and v.get("roll"):
            v = {**v, "rolls": [v["roll"]]}
        return v

    @property
    def author_id(self) -> str | None:
        return self.author or self.user


class FUser(Doc):
    name: str = ""
    role: int = Field(1, ge=0, le=4)

    @property
    def vtt_role(self) -> str:
        return USER_ROLES.get(self.role, "player")


class FActor(Doc):
    name: str = ""
    type: str | None = None
    system: dict[str, Any] = Field(default_factory=dict)
    ownership: dict[str, int] = Field(default_factory=dict)
    flags: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _v9_permission(cls, v: Any) -> Any:
        # v9 called the system data ``data``
        return _renamed(_renamed(v, "permission", "ownership"), "data", "system")

    def owners(self) -> list[str]:
        """User ids with owner permission (``default`` excluded; GMs are filtered later)."""
        return [u for u, lvl in self.ownership.items() if u != "default" and lvl >= OWNER_LEVEL]


class FRegionShape(Lenient):
    """A v12+ Region shape (``rectangle``, ``circle``, ``ellipse``, ``polygon``), in px."""

    type: str
    hole: bool = False
    x: Offset = 0
    y: Offset = 0
    width: Size = 0
    height: Size = 0
    radius: Size = 0
    radiusX: Size = 0
    radiusY: Size = 0
    rotation: Finite = 0
    points: list[Offset] = Field(default_factory=list, max_length=20_000)


class FRegion(Doc):
    """A v12+ Region document. A module may send ``cells`` (``[[x, y], ...]``) directly
    instead of shapes, e.g. for a v11 world that has no regions."""

    name: str = ""
    shapes: list[FRegionShape] = Field(default_factory=list)
    cells: list[tuple[CellIndex, CellIndex]] | None = None
    levels: list[str] | None = Field(None, max_length=1000)
    """v14: the ids of the levels it lies on (``null`` or empty: every level)."""


class HoldInfo(Lenient):
    """What the module says of a move it is holding: the hold's id (defaults to the event
    id) and how long it will wait for the bridge before letting the move through."""

    id: str | None = Field(None, max_length=128)
    budget_ms: int = Field(1500, ge=0, le=600_000)


# -- inbound payloads -------------------------------------------------------------------------


class _Env(Inbound):
    userId: str | None = None
    """The hook's ``userId``: who made the change (for chat, the author)."""
    systemId: str | None = Field(None, max_length=100)
    """``game.system.id``: selects the actor mapping table (``adapters/foundry/systems``)."""


class Snapshot(_Env):
    """The full scene after every (re)connect."""

    scene: FScene
    tokens: list[FToken] = Field(default_factory=list, max_length=5000)
    combat: FCombat | None = None
    users: list[FUser] = Field(default_factory=list)
    actors: list[FActor] = Field(default_factory=list, max_length=5000)
    regions: list[FRegion] = Field(default_factory=list, max_length=1000)


class TokenChanges(TypedDict, total=False):
    """``updateToken``'s ``changed``: the fields the adapter reads are typed, the rest kept."""

    __pydantic_config__ = ConfigDict(extra="allow", allow_inf_nan=False)  # type: ignore[misc]

    x: Px
    y: Px
    elevation: Finite
    width: float
    height: float
    level: str | None
    delta: dict[str, Any] | None
    actorData: dict[str, Any] | None


class UpdateTokenHook(_Env):
    """``updateToken(doc, changed, options, userId)``: ``token`` is the document after the
    update, ``changes`` the differential. ``origin`` (the module's last known top-left corner)
    and ``waypoints`` (the path of a ruler or v13 movement, px) are optional."""

    sceneId: str | None = None
    token: FToken
    changes: TokenChanges = Field(default_factory=lambda: TokenChanges())
    options: dict[str, Any] = Field(default_factory=dict)
    grid: FGrid | None = None
    origin: Point | None = None
    waypoints: list[Point] = Field(default_factory=list, max_length=1000)


class PreUpdateTokenHook(UpdateTokenHook):
    """``preUpdateToken``: the module held this move because the bridge watches it; ``token``
    is the document before the move (where the move is held), ``changes`` the move asked for
    (its destination), ``waypoints`` its path (v13: the paused movement's pending waypoints,
    with their actions). v11-v12 hold it by returning ``false`` from the hook, v13 by pausing
    the movement (``TokenDocument#pauseMovement``)."""

    hold: HoldInfo = Field(default_factory=HoldInfo)


class CreateChatMessage(_Env):
    message: FChatMessage


class UpdateCombat(_Env):
    changes: dict[str, Any] = Field(default_factory=dict)
    combat: FCombat
    prior: TurnData | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class CombatTurnChange(_Env):
    combat: FCombat
    prior: TurnData | None = None
    current: TurnData


class DeleteCombat(_Env):
    combat: FCombat


class CreateCombatant(_Env):
    combatId: str | None = None
    combatant: FCombatant


class UpdateCombatant(_Env):
    combatId: str | None = None
    combatant: FCombatant
    changes: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)


class DeleteCombatant(_Env):
    combatId: str | None = None
    combatant: FCombatant


class Answer(_Env):
    """``answer``: a player's answer to a rules question, from the ``User.query`` dialog (the
    module on the primary GM's client sends it; ``userId`` is who answered)."""

    prompt: str = Field(min_length=1, max_length=128)
    option: str = Field(min_length=1, max_length=200)


class UpdateActor(_Env):
    """``updateActor``: ``actorUuid`` tells a world actor (``Actor.<id>``) from the synthetic
    actor of an unlinked token (``Scene.<s>.Token.<t>.Actor.<id>``)."""

    actorUuid: str | None = None
    actor: FActor | None = None
    changes: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)


# -- outbound command data (published as JSON Schemas) ------------------------------------------


class ChatMessageData(BaseModel):
    """``ChatMessage.create(data)``. ``whisper`` holds user ids; the literal ``"GM"`` asks the
    module for ``ChatMessage.getWhisperRecipients("GM")`` when no GM user was known."""

    model_config = _DOC

    content: str
    speaker: dict[str, Any] = Field(default_factory=dict)
    whisper: list[str] = Field(default_factory=list)
    flags: dict[str, Any] = Field(default_factory=dict)


class TokenUpdateData(BaseModel):
    """``scene.tokens.get(_id).update(data, options)``."""

    model_config = _DOC

    id: str = Field(alias="_id")
    sceneId: str | None = None


class CombatantUpdateData(BaseModel):
    """``combatant.update({initiative})``. ``_id`` when the adapter knows the combatant,
    else the module finds it by ``tokenId`` (and creates it when missing)."""

    model_config = _DOC

    id: str | None = Field(None, alias="_id")
    combatId: str | None = None
    tokenId: str | None = None
    initiative: float | None

    @model_validator(mode="after")
    def _one_of(self) -> CombatantUpdateData:
        if self.id is None and self.tokenId is None:
            raise ValueError("name the combatant by _id or tokenId")
        return self


class CombatUpdateData(BaseModel):
    """``combat.update({round, turn})``. ``tokenId`` names whose turn it is; the module
    recomputes ``turn`` from it against its own ``combat.turns``."""

    model_config = _DOC

    id: str | None = Field(None, alias="_id")
    round: int
    turn: int | None = None
    tokenId: str | None = None


class SceneUpdateData(BaseModel):
    """``scene.update(data)``: used for ``flags.vttbridge.watch``, the moves the bridge wants to
    see before they happen (see :mod:`vttbridge.sdk.holds`)."""

    model_config = _DOC

    id: str | None = Field(None, alias="_id")
    flags: dict[str, Any]


class CombatDeleteData(BaseModel):
    """``combat.delete()``: the rules ended the combat."""

    model_config = _DOC

    id: str | None = Field(None, alias="_id")


class ActorUpdateData(BaseModel):
    """``actor.update(update)``: the rules' changes to a sheet, at the paths of the system's
    table. ``tokenId`` (with ``sceneId``) names an unlinked token, whose synthetic actor
    (``TokenDocument#actor``, its delta) is updated; without it, the world actor ``_id``."""

    model_config = _DOC

    id: str | None = Field(None, alias="_id")
    tokenId: str | None = None
    sceneId: str | None = None
    update: dict[str, Any]
    """Dotted paths to values, e.g. ``{"system.attributes.action_dice.value": 1}``."""

    @model_validator(mode="after")
    def _one_of(self) -> ActorUpdateData:
        if self.id is None and self.tokenId is None:
            raise ValueError("name the actor by _id or the token by tokenId")
        return self


class EffectDuration(BaseModel):
    """A v14 Active Effect's ``duration`` (``EffectDurationData``): ``value`` ``units``, ending
    at the ``expiry`` event (``turnStart``, ``turnEnd``, ``roundEnd``...)."""

    value: int | None = None
    units: str = "rounds"
    expiry: str | None = None


class StatusToggle(BaseModel):
    """One status effect to turn on or off. ``name`` and ``img`` describe a status the module
    registers in ``CONFIG.statusEffects`` when Foundry does not know it yet. ``duration``: how
    long the rules say the condition lasts; on v14 the module shows it as an Active Effect with
    that duration, which Foundry expires (the module then never removes it a second time)."""

    id: str
    active: bool
    name: str | None = None
    img: str | None = None
    duration: EffectDuration | None = None


class StatusEffectData(BaseModel):
    """``token.actor.toggleStatusEffect(id, {active})`` for each status (v12+; v11:
    ``token.toggleActiveEffect(status, {active})``): the conditions the rules put on the token's
    character. The actor is the token's: the world actor when linked, else its synthetic one."""

    model_config = _DOC

    tokenId: str
    sceneId: str | None = None
    statuses: list[StatusToggle]


class UserQueryData(BaseModel):
    """``game.users.get(userId).query("vttbridge.prompt", ...)`` (v13+): a rules question as a
    dialog on the player's screen (``userId`` null: the GMs'), closed after ``timeout`` seconds
    (the prompt's default then applies). The module answers with an ``answer`` event. On v11-v12,
    or when the player cannot be queried, it posts ``fallback`` (a ``ChatMessage.create`` with
    answer buttons) instead."""

    model_config = _DOC

    userId: str | None
    prompt: str
    question: str
    options: list[str]
    default: str
    timeout: float | None = None
    token: str | None = None
    fallback: ChatMessageData


OUTBOUND: dict[str, type[BaseModel]] = {
    "ChatMessage.create": ChatMessageData,
    "Token.update": TokenUpdateData,
    "Combatant.update": CombatantUpdateData,
    "Combat.update": CombatUpdateData,
    "Combat.delete": CombatDeleteData,
    "Scene.update": SceneUpdateData,
    "Actor.update": ActorUpdateData,
    "Actor.toggleStatusEffect": StatusEffectData,
    "User.query": UserQueryData,
}
