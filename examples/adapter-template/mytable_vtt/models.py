"""MyTable's wire payloads: what its client sends (``Inbound`` models, one per native event) and
the ``data`` of the commands it is sent (for ``vttbridge schema``).

Every inbound payload subclasses :class:`vttbridge.adapters.base.Inbound`: it carries the event
``id`` the bridge deduplicates on, and keeps native fields it does not know (a newer MyTable may
add some). Numbers from outside are bounded with vttbridge's own types (``Px``, ``CellPx``,
``Whole``), so ``NaN``, ``1e400`` or a position a million pixels away is refused with the field's
path before anything happens.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field
from vttbridge.adapters.base import Inbound
from vttbridge.rules.numbers import CellPx, Distance, Px, Whole

Disposition = Literal["hostile", "neutral", "friendly"]
DISPOSITION = {"hostile": -1, "neutral": 0, "friendly": 1}
"""MyTable's dispositions as vttbridge numbers them (a friend-or-foe condition reads these)."""


# -- inbound: MyTable's events ---------------------------------------------------------------------


class MTScene(BaseModel):
    id: str = Field(min_length=1)
    name: str = ""
    gridSize: CellPx = 50
    """Pixels per grid cell."""
    gridDistance: Distance = 5
    """Feet per grid cell."""
    width: Px | None = None
    height: Px | None = None


class MTToken(BaseModel):
    id: str = Field(min_length=1, max_length=128)
    name: str = ""
    x: Px
    y: Px
    """The token's top-left corner, in px."""
    actorId: str | None = None
    owners: list[str] = Field(default_factory=list, max_length=100)
    disposition: Disposition = "neutral"
    hidden: bool = False
    stats: dict[str, Any] = Field(default_factory=dict)


class MTUser(BaseModel):
    id: str = Field(min_length=1)
    name: str = ""
    isGM: bool = False


class MTRegion(BaseModel):
    name: str = Field(min_length=1)
    cells: list[tuple[int, int]] = Field(max_length=40_000)


class Snapshot(Inbound):
    """The whole scene, sent after every (re)connect."""

    scene: MTScene
    tokens: list[MTToken] = Field(default_factory=list, max_length=5000)
    users: list[MTUser] = Field(default_factory=list, max_length=1000)
    regions: list[MTRegion] = Field(default_factory=list, max_length=1000)


class MTPoint(BaseModel):
    x: Px
    y: Px


class TokenMoved(Inbound):
    """A token was dragged; ``path`` holds the waypoints between, when the drag had some."""

    tokenId: str = Field(min_length=1)
    x: Px
    y: Px
    path: list[MTPoint] = Field(default_factory=list, max_length=1000)
    userId: str | None = None


class TokenCreated(Inbound):
    token: MTToken


class TokenDeleted(Inbound):
    tokenId: str = Field(min_length=1)


class ChatMessage(Inbound):
    text: str = Field(max_length=5000)
    userId: str | None = None
    tokenId: str | None = None
    """The token the user speaks as, if any."""


class MTCombatant(BaseModel):
    tokenId: str = Field(min_length=1)
    initiative: Whole | None = None


class CombatStarted(Inbound):
    combatants: list[MTCombatant] = Field(max_length=1000)


class TurnChanged(Inbound):
    round: Whole
    tokenId: str | None = None


class CombatEnded(Inbound):
    pass


# -- outbound: the data of MyTable's commands --------------------------------------------------


class ChatSend(BaseModel):
    text: str
    whisperTo: str | None = None
    """A user id, ``"gm"`` for the GMs, or None for everyone."""
    speaker: str | None = None


class ChatAsk(BaseModel):
    """A question with one button per option; a click types ``!answer <promptId> <option>``."""

    promptId: str
    userId: str
    question: str
    options: list[str]
    default: str
    timeoutSeconds: float | None = None


class TokenUpdate(BaseModel):
    tokenId: str
    x: float | None = None
    y: float | None = None
    name: str | None = None
    hidden: bool | None = None


class SetInitiative(BaseModel):
    tokenId: str
    initiative: int


class SetTurn(BaseModel):
    round: int
    tokenId: str | None = None


class SheetUpdate(BaseModel):
    tokenId: str
    stats: dict[str, Any]


class SetConditions(BaseModel):
    tokenId: str
    conditions: list[str]
