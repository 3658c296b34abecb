"""Pydantic models of the Roll20 objects and events the protocol carries.

Field names follow the Roll20 Mod (API) sandbox exactly (``_id``, ``_pageid``, ``bar1_value``...),
so a payload is what ``obj.toJSON()`` / ``JSON.stringify(msg)`` gives inside the sandbox. Roll20
stores most token fields as strings (bars, ``statusmarkers``, ``lastmove``); numbers sent where a
string is expected are accepted and kept as strings. Unknown fields are kept, never rejected, so a
Roll20 update that adds fields keeps working.

The Mod script (``adapters/roll20/mod/VTTBridge.js``) adds a few fields of its own to the events
it forwards, because the adapter is stateless and Roll20 change events carry no context:

- ``page``: the geometry of the token's page (``snapping_increment``, ``scale_number``...), so
  ``left``/``top`` can be turned into cells;
- ``bars``: which token bar means what (``{"bar1": "hp"}``), a Mod setting;
- ``held``: the Mod put the token back at its ``prev`` position and waits for the bridge
  (a move that may trigger a Ready on its *attempt*);
- ``playerIsGM``: on chat messages, what ``playerIsGM(msg.playerid)`` answered in the sandbox.
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field
from vttbridge.adapters.base import Inbound
from vttbridge.adapters.roll20.geometry import ROLL20_UNIT_PX
from vttbridge.rules.geometry import DiagonalMetric
from vttbridge.rules.numbers import MAX_PX, MIN_CELL_PX, Distance, Finite, Px, Size, bounded

log = logging.getLogger(__name__)


def _as_str(v: Any) -> Any:
    """Roll20 keeps bars and most token fields as strings; accept numbers too."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError("must be text or a finite number")
        return f"{v:g}"
    if isinstance(v, int):
        return str(v)
    return v


R20Str = Annotated[str, BeforeValidator(_as_str)]


class R20Model(BaseModel):
    """Base of Roll20 object models: keep unknown fields, accept ``_id`` or ``id``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, allow_inf_nan=False)


# -- graphic ------------------------------------------------------------------------------------

BAR_NAMES = ("bar1", "bar2", "bar3")
LAYERS = ("objects", "gmlayer", "map", "walls", "foreground")


class Graphic(R20Model):
    """A Roll20 ``graphic`` (a token or a card). ``left``/``top`` are its centre in px."""

    id: str = Field(alias="_id", min_length=1, max_length=128)
    type: Literal["graphic"] = Field("graphic", alias="_type")
    subtype: str = Field("token", alias="_subtype")
    pageid: str = Field("", alias="_pageid")
    imgsrc: str = ""
    represents: R20Str = ""
    left: Px = 0.0
    top: Px = 0.0
    width: Size = 70.0
    height: Size = 70.0
    rotation: Finite = 0.0
    layer: str = "objects"
    name: R20Str = ""
    gmnotes: R20Str = ""
    controlledby: R20Str = ""
    bar1_value: R20Str = ""
    bar1_max: R20Str = ""
    bar1_link: R20Str = ""
    bar2_value: R20Str = ""
    bar2_max: R20Str = ""
    bar2_link: R20Str = ""
    bar3_value: R20Str = ""
    bar3_max: R20Str = ""
    bar3_link: R20Str = ""
    statusmarkers: R20Str = ""
    lastmove: R20Str = ""

    @property
    def is_token(self) -> bool:
        """A token on a layer the rules care about (not a card, not map art)."""
        return self.subtype == "token" and self.layer in ("objects", "gmlayer")

    @property
    def markers(self) -> dict[str, int | None]:
        return parse_statusmarkers(self.statusmarkers)

    @property
    def owners(self) -> list[str]:
        return parse_controlledby(self.controlledby)

    @property
    def linked(self) -> bool:
        """Any bar linked to a character attribute (the character's own token, by Roll20's
        convention; every token that ``represents`` a character follows its attributes)."""
        return any(getattr(self, f"{b}_link") for b in BAR_NAMES)

    def bar(self, name: str) -> tuple[str, str]:
        """``(value, max)`` of ``bar1``..``bar3``."""
        return getattr(self, f"{name}_value", ""), getattr(self, f"{name}_max", "")


class GraphicPrev(R20Model):
    """The ``prev`` snapshot of a ``change:graphic`` event: a plain object of the properties
    before the change (Roll20 sends all of them; a trimmed one is accepted)."""

    id: str | None = Field(None, alias="_id")
    left: Px | None = None
    top: Px | None = None
    lastmove: R20Str | None = None
    name: R20Str | None = None
    layer: str | None = None
    controlledby: R20Str | None = None
    represents: R20Str | None = None
    statusmarkers: R20Str | None = None
    bar1_value: R20Str | None = None
    bar1_max: R20Str | None = None
    bar2_value: R20Str | None = None
    bar2_max: R20Str | None = None
    bar3_value: R20Str | None = None
    bar3_max: R20Str | None = None


_MARKER = re.compile(r"^(?P<name>[^@]+?)(?:@(?P<count>-?\d+))?$")


def parse_statusmarkers(text: str) -> dict[str, int | None]:
    """``"red,blue@3,dead"`` -> ``{"red": None, "blue": 3, "dead": None}``. Custom token markers
    keep their tag (``"Poisoned::1234@2"`` -> ``{"Poisoned::1234": 2}``). A repeated marker keeps
    its last count, as Roll20 shows it once."""
    out: dict[str, int | None] = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        m = _MARKER.match(part)
        if m is None:
            continue
        count = m.group("count")
        out[m.group("name")] = int(count) if count is not None else None
    return out


def dump_statusmarkers(markers: dict[str, int | None]) -> str:
    return ",".join(name if n is None else f"{name}@{n}" for name, n in markers.items())


def parse_controlledby(text: str) -> list[str]:
    """``"-OPlay1,-OPlay2"`` -> ids; ``"all"`` stays ``["all"]`` (everyone controls it)."""
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def parse_lastmove(text: str | None) -> list[tuple[float, float]]:
    """``"x0,y0[,x1,y1...]"`` -> points: the start of the last move, then its waypoints (the end
    is the token's current ``left``/``top``). Raises ``ValueError`` on a non-number; a dangling
    odd coordinate is ignored."""
    if not text or not text.strip():
        return []
    nums = [bounded(float(p), "lastmove", 0, MAX_PX) for p in text.split(",") if p.strip()]
    return [(nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2)]


# -- page ---------------------------------------------------------------------------------------

DIAGONALS: dict[str, DiagonalMetric] = {
    "foure": DiagonalMetric.CHEBYSHEV,  # D&D 4e: every diagonal is one unit
    "threefive": DiagonalMetric.ALTERNATING,  # 3.5e / Pathfinder: 5/10/5
    "pythagorean": DiagonalMetric.EUCLIDEAN,
    "manhattan": DiagonalMetric.MANHATTAN,
}


def _snapping(v: float) -> float:
    if v and v * ROLL20_UNIT_PX < MIN_CELL_PX:
        raise ValueError(f"a cell must be at least {MIN_CELL_PX} px (0 means the default, 1)")
    return v


SnappingIncrement = Annotated[float, Field(ge=0, le=100), AfterValidator(_snapping)]
"""Cells per 70 px unit; 0 is Roll20's "no snapping" (read as 1)."""


class Page(R20Model):
    """A Roll20 ``page``: ``snapping_increment`` cells of 70 px, ``scale_number`` units each."""

    id: str = Field("", alias="_id")
    type: Literal["page"] = Field("page", alias="_type")
    name: R20Str = ""
    width: Size = 25
    height: Size = 25
    """In 70 px units; a token's ``left``/``top`` lie within ``width * 70`` x ``height * 70``."""
    showgrid: bool = True
    grid_type: str = "square"
    snapping_increment: SnappingIncrement = 1.0
    scale_number: Distance = 5.0
    scale_units: R20Str = "ft"
    diagonaltype: str = "foure"

    @property
    def metric(self) -> DiagonalMetric:
        return DIAGONALS.get(self.diagonaltype, DiagonalMetric.CHEBYSHEV)

    @property
    def cell_px(self) -> float:
        return 70.0 * (self.snapping_increment or 1.0)

    @property
    def extent(self) -> tuple[float, float] | None:
        """The page's size in px (None for a page of no size: an unknown page)."""
        if not self.width or not self.height:
            return None
        return self.width * ROLL20_UNIT_PX, self.height * ROLL20_UNIT_PX


# -- campaign and turn order --------------------------------------------------------------------


class Campaign(R20Model):
    """``Campaign()``: the turn order is a JSON *string* (``""`` when empty)."""

    type: Literal["campaign"] = Field("campaign", alias="_type")
    turnorder: Any = ""
    initiativepage: Any = False
    playerpageid: Any = ""


class CampaignPrev(R20Model):
    turnorder: Any = ""


# -- players and characters ---------------------------------------------------------------------


class PlayerObj(R20Model):
    """A Roll20 ``player``; ``isGM`` is what the Mod's ``playerIsGM(id)`` answered."""

    id: str = Field(alias="_id", min_length=1)
    displayname: R20Str = Field("", alias="_displayname")
    isGM: bool = False
    online: bool | None = Field(None, alias="_online")


class CharacterObj(R20Model):
    """A Roll20 ``character``; ``stats`` are the attributes the Mod picked for the rules (those
    named with its prefix, ``vttb_move`` -> ``move``), values as Roll20 stores them."""

    id: str = Field(alias="_id", min_length=1)
    name: R20Str = ""
    controlledby: R20Str = ""
    stats: dict[str, Any] = Field(default_factory=dict)


class AttributeObj(R20Model):
    id: str = Field("", alias="_id")
    characterid: str = Field(alias="_characterid", min_length=1)
    name: R20Str
    current: R20Str = ""
    max: R20Str = ""


# -- chat ---------------------------------------------------------------------------------------

ChatType = Literal["general", "rollresult", "gmrollresult", "emote", "whisper", "desc", "api"]


class RollResults(R20Model):
    """``results`` of an inline roll (and the parsed ``content`` of a ``rollresult``)."""

    type: str = "V"
    resultType: str = "sum"
    rolls: list[dict[str, Any]] = Field(default_factory=list)
    total: Finite = 0


class InlineRoll(R20Model):
    expression: str = ""
    results: RollResults = Field(default_factory=RollResults)
    rollid: str | None = None
    signature: Any = None


class Selected(R20Model):
    id: str = Field(alias="_id")
    type: str = Field("graphic", alias="_type")


class ChatMsg(R20Model):
    """A ``chat:message`` as the sandbox gives it."""

    who: R20Str = ""
    playerid: R20Str = ""
    type: ChatType
    content: R20Str = ""
    origRoll: str | None = None
    inlinerolls: list[InlineRoll] = Field(default_factory=list)
    rolltemplate: str | None = None
    target: str | None = None
    target_name: str | None = None
    selected: list[Selected] = Field(default_factory=list)

    def roll_result(self) -> RollResults:
        """The parsed JSON ``content`` of a ``rollresult``/``gmrollresult``."""
        data = json.loads(self.content)
        return RollResults.model_validate(data)


# -- inbound events (the wire) ------------------------------------------------------------------

Bars = dict[str, str]
DEFAULT_BARS: Bars = {"bar1": "hp"}
"""Which bar means what: ``hp`` (a decrease is damage), or a character stat name that the bar's
value sets (``vitality``, ``wounds``...). The Mod sends its setting with every token event."""


class TokenEventBase(Inbound):
    page: Page | None = None
    bars: Bars = Field(default_factory=lambda: dict(DEFAULT_BARS))


class ChangeGraphic(TokenEventBase):
    """``change:graphic``: the object after the change and ``prev`` before it."""

    obj: Graphic
    prev: GraphicPrev = Field(default_factory=GraphicPrev)
    held: bool = False


class AddGraphic(TokenEventBase):
    obj: Graphic


class DestroyGraphic(Inbound):
    obj: Graphic


class ChangeTurnorder(Inbound):
    """``change:campaign:turnorder``."""

    obj: Campaign
    prev: CampaignPrev = Field(default_factory=CampaignPrev)


class ChatMessageEvent(Inbound):
    """``chat:message``, with the GM check the sandbox made."""

    msg: ChatMsg
    playerIsGM: bool | None = None


class ChangeAttribute(Inbound):
    """``change:attribute`` (and ``add:attribute``) of an attribute the Mod forwards (named with
    its prefix, already stripped)."""

    obj: AttributeObj
    prev: dict[str, Any] = Field(default_factory=dict)


class Snapshot(Inbound):
    """The full scene the Mod sends after every (re)connect of the relay: the player page, its
    tokens, the turn order, the players and the characters the tokens represent."""

    page: Page
    graphics: list[Graphic] = Field(default_factory=list)
    campaign: Campaign = Field(default_factory=Campaign)
    players: list[PlayerObj] = Field(default_factory=list)
    characters: list[CharacterObj] = Field(default_factory=list)
    bars: Bars = Field(default_factory=lambda: dict(DEFAULT_BARS))


# -- outbound command data (published as JSON Schemas) ------------------------------------------


class SendChatData(BaseModel):
    """``sendChat(speakingAs, message, null, options)``."""

    speakingAs: str
    message: str
    options: dict[str, Any] = Field(default_factory=dict)


class BudgetData(BaseModel):
    """After an accepted drag in a fight, what is left of the token's movement this turn (the
    rules' :func:`vttbridge.systems.foe.rules.movement.budget`, in the page's units): the Mod
    whispers ``message``
    (a ``sendChat`` line, its ``/w`` included) to the mover, unless its ``budget`` setting is
    off. Roll20 has no ruler to colour, so this is where the player sees it."""

    token: str
    speakingAs: str
    message: str
    left: float
    walk: float | None = None
    run: float | None = None
    sneak: float | None = None


class CellRef(BaseModel):
    x: int
    y: int


class MarkerPatch(BaseModel):
    """Status markers to put on a token and take off it, merged into its live
    ``statusmarkers`` (the others stay as they are)."""

    add: list[str] = Field(default_factory=list)
    remove: list[str] = Field(default_factory=list)


class SetData(BaseModel):
    """``getObj(type, id).set(attrs)``. ``cell``, when given, is where the token's centre goes;
    the Mod turns it into ``left``/``top`` with the page's live grid (so a page rescaled since
    the bridge last heard of it still gets the right pixels). ``markers`` changes its status
    markers (the conditions the rules put on its character)."""

    type: Literal["graphic"] = "graphic"
    id: str
    attrs: dict[str, Any] = Field(default_factory=dict)
    cell: CellRef | None = None
    markers: MarkerPatch | None = None


class SetStatsData(BaseModel):
    """The rules' changes to a token's stats (``vttbridge.rules.characters.RULES_OWNED``), written
    where
    they are read from. For each, the Mod sets the bar its ``bars`` setting maps to the stat when
    that bar is linked (its attribute) or holds a number; else the ``<statPrefix><stat>``
    attribute of ``character`` (created when missing) when the token is that character's own (a
    linked bar, or its only token on the page); else the mapped bar, empty as it is; else it
    reports the stat as ``skipped`` (the value stays the bridge's)."""

    token: str
    character: str | None = None
    stats: dict[str, Any]


class TurnRow(BaseModel):
    """One row the bridge writes into the turn order."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    pr: int | float | str
    custom: str = ""
    pageid: str | None = Field(None, alias="_pageid")


class TurnOrderPatch(BaseModel):
    """A change to the turn order the Mod merges into the *live* order when it applies it
    (read, merge, write in one synchronous step of the sandbox), so rows the bridge does not own
    (custom rows, tokens it does not know) are never clobbered. See
    :func:`vttbridge.adapters.roll20.turnorder.merge_turnorder`, which the Mod mirrors."""

    set: list[TurnRow] = Field(default_factory=list)
    """Rows whose ``pr`` to set (a missing row is appended)."""
    remove: list[str] = Field(default_factory=list)
    """Token ids whose rows to drop."""
    order: list[str] | None = None
    """The bridge's tokens in acting order; their rows are re-sorted among the slots they hold."""
    current: str | None = None
    """Rotate so this token's row is at index 0 (its turn)."""
    round: int | None = None
    """Set the round counter row (a custom row named "Round"), if there is one."""


class CampaignSetData(BaseModel):
    """``Campaign().set(...)``: either ``merge`` (what the bridge sends) or a whole
    ``turnorder`` JSON string (set as is; only for a GM's hand-made command)."""

    turnorder: str | None = None
    merge: TurnOrderPatch | None = None


class ModWatch(BaseModel):
    """One watched trigger: moves of ``token`` (any token when None; never ``exclude``) that
    enter one of ``cells`` (any move when ``cells`` is None)."""

    cells: list[tuple[int, int]] | None = None
    token: str | None = None
    exclude: str | None = None


class WatchData(BaseModel):
    """Which moves the Mod holds (a Ready on a move's *attempt* watches them), on ``page`` (every
    page when None). An empty ``watches`` list ends all holding. A held move waits at most
    ``max_hold_ms`` for the bridge, then goes through (and the GM is told)."""

    page: str | None = None
    watches: list[ModWatch] = Field(default_factory=list)
    max_hold_ms: int | None = Field(None, ge=0)
