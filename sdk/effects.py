"""Effects: what the runtime asks the VTT to do, in VTT-neutral terms.

An adapter translates each effect into its VTT's native command (Foundry ``ChatMessage.create``,
``Token.update``, ``Combatant.update``, ``Combat.update``, ``Actor.update``,
``Actor.toggleStatusEffect``; Roll20 ``sendChat``, ``set``, ``Campaign.set``, ``setStats``,
``budget``).
Effects are frozen pydantic models discriminated by ``type``; :data:`Effect` is their union and
:data:`EFFECT_ADAPTER` validates or dumps them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from vttbridge.rules.citations import Cited
from vttbridge.rules.geometry import Cell, DiagonalMetric
from vttbridge.rules.movement import MoveBudget


class BaseEffect(BaseModel):
    """Common base of every effect."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class PostChat(BaseEffect):
    """Post ``text`` to chat: publicly (``whisper_to=None``), to the GMs (``"gm"``) or to one
    player (their player id). ``speaker`` is a token id or an alias; None means the bridge."""

    type: Literal["post_chat"] = "post_chat"
    text: str
    whisper_to: str | None = None
    speaker: str | None = None
    cites: list[Cited] = Field(default_factory=list)
    """The rules that refused or decided what ``text`` says (its short citations end its
    lines): the dashboard links them, the log keeps them."""


class UpdateToken(BaseEffect):
    """Change a token: move it to ``cell`` and/or set other ``fields`` (``name``, ``hidden``...,
    named as in :class:`vttbridge.sdk.events.TokenData`). ``animate=False`` for corrections
    (reverts)."""

    type: Literal["update_token"] = "update_token"
    token: str
    cell: Cell | None = None
    fields: dict[str, Any] = Field(default_factory=dict)
    animate: bool = True


class SetInitiative(BaseEffect):
    """Set a token's Initiative Count in the VTT's combat tracker, adding it to the combat if it
    is not in it yet."""

    type: Literal["set_initiative"] = "set_initiative"
    token: str
    ic: int


class AdvanceTurn(BaseEffect):
    """Make ``token``'s turn in ``round`` the current one. ``round=0, token=None`` means the
    combat ended (the VTT ends its combat)."""

    type: Literal["advance_turn"] = "advance_turn"
    round: int
    token: str | None = None
    ic: int | None = None


class AskPlayer(BaseEffect):
    """Ask a player (``player`` id, or ``"gm"``) a question about ``token``. The answer comes back
    as ``!answer <prompt> <option>`` in chat or a ``PromptAnswered`` event; after ``timeout``
    seconds the runtime answers ``default``. ``text`` is a ready-made chat line an adapter may
    whisper as is when its VTT has no dialog."""

    type: Literal["ask_player"] = "ask_player"
    prompt: str
    player: str
    token: str | None = None
    question: str
    options: list[str]
    default: str
    timeout: float | None = None
    text: str = ""


class UpdateStats(BaseEffect):
    """Write rules-owned stats (``vttbridge.rules.characters.RULES_OWNED``: action dice, stress,
    wound and
    vitality points) of ``token``'s character back to its sheet: the values the rules changed
    them to. The runtime sends it after every step in which a rule changed one; the adapter
    writes each where the sheet is read from (its per-system table)."""

    type: Literal["update_stats"] = "update_stats"
    token: str
    stats: dict[str, Any]
    """Character field name -> the value it now has."""


class UpdateConditions(BaseEffect):
    """These conditions are now on ``token`` (``vttbridge.rules.conditions.conditions_of``: the
    character's own and those the encounter implies); ``removed`` were on it and are no longer.
    The adapter shows those its tables map (Foundry status effects, Roll20 status markers)."""

    type: Literal["update_conditions"] = "update_conditions"
    token: str
    conditions: list[str] = Field(default_factory=list)
    """Every condition the token is in now, sorted."""
    removed: list[str] = Field(default_factory=list)
    """Conditions it showed and is no longer in, sorted."""


class MovementBudget(BaseEffect):
    """What ``token`` may still move this turn by the rules of a game system that keeps a
    movement budget (``System.movement``, in the grid's units; Fallout: Equestria's), sent when
    it changed: at a turn change and after a move or an action (:mod:`vttbridge.sdk.budget`).
    ``budget`` None: nothing limits its movement any more (the fight is over, it left the turn
    order). A VTT shows it where the player drags (Foundry: the Token Ruler's colours; Roll20: a
    whisper after a drag)."""

    type: Literal["movement_budget"] = "movement_budget"
    token: str
    budget: MoveBudget | None
    metric: DiagonalMetric = DiagonalMetric.ALTERNATING
    """How the rules measure a path (the world's diagonal option), for a ruler that measures
    as they do."""
    cause: Literal["turn", "move", "action", "other"] = "other"
    """What changed it: a turn change, a move from the VTT (a drag), a command or a rule."""
    player: str | None = None
    """After a move from the VTT: who moved the token (the player to tell what is left)."""


HOLD_BUDGET_MS = 1500
"""How long a VTT's client waits for the bridge to acknowledge a held move."""


class MoveWatch(BaseModel):
    """One watched trigger of :class:`WatchMoves`: moves of ``token`` (any token when None,
    never ``exclude``) that enter one of ``cells`` (any move when ``cells`` is None) on one of
    ``levels`` (on a scene with levels; None: on any level)."""

    cells: list[tuple[int, int]] | None = None
    token: str | None = None
    exclude: str | None = None
    levels: list[str] | None = None


class WatchMoves(BaseEffect):
    """The moves the bridge wants to see before they happen, for ``scene`` (all scenes when
    None): the VTT holds a move that one of ``watches`` matches until the bridge releases it
    (:class:`ReleaseMove`), at most ``max_hold_ms``. An empty ``watches`` list ends all
    holding. Sent by the held-moves script (:mod:`vttbridge.sdk.holds`); an adapter whose VTT cannot
    hold moves drops it."""

    type: Literal["watch_moves"] = "watch_moves"
    scene: str | None = None
    watches: list[MoveWatch] = Field(default_factory=list)
    budget_ms: int = HOLD_BUDGET_MS
    max_hold_ms: int = 90_000


class ReleaseMove(BaseEffect):
    """End the hold ``hold`` (the held event's id): put ``token`` at ``cell``. ``moved`` is
    False when the rules kept it where it started."""

    type: Literal["release_move"] = "release_move"
    hold: str
    token: str
    cell: Cell
    moved: bool = True


Effect = Annotated[
    PostChat
    | UpdateToken
    | SetInitiative
    | AdvanceTurn
    | AskPlayer
    | UpdateStats
    | UpdateConditions
    | MovementBudget
    | WatchMoves
    | ReleaseMove,
    Field(discriminator="type"),
]
"""Any effect, discriminated by ``type``."""

EFFECT_ADAPTER: TypeAdapter[Effect] = TypeAdapter(Effect)
EFFECTS_ADAPTER: TypeAdapter[list[Effect]] = TypeAdapter(list[Effect])

__all__ = [
    "EFFECTS_ADAPTER",
    "EFFECT_ADAPTER",
    "HOLD_BUDGET_MS",
    "AdvanceTurn",
    "AskPlayer",
    "BaseEffect",
    "Effect",
    "MoveWatch",
    "MovementBudget",
    "PostChat",
    "ReleaseMove",
    "SetInitiative",
    "UpdateConditions",
    "UpdateStats",
    "UpdateToken",
    "WatchMoves",
]
