"""Typed domain events: what happened at the table, in VTT-neutral terms.

An adapter translates a VTT's native payload into one of these and submits it to the world's
:class:`vttbridge.sdk.runtime.WorldRuntime`. The runtime also produces events itself
(``source="runtime"``):
when the rules start a turn, a :class:`TurnStarted` is dispatched to every listener, whatever
caused it. Listeners therefore see every turn start, every IC change, every combat start; the
runtime's own state updates only act on events that came from outside (``source="vtt"``), so
an adapter echoing back a change the runtime made is recognised and not applied twice.

Every event is a frozen pydantic model with a ``type`` discriminator; :data:`Event` is their
annotated union and :data:`EVENT_ADAPTER` validates a JSON object into the right class::

    EVENT_ADAPTER.validate_python(
        {"type": "token_moved", "token": "t1", "to_cell": {"x": 3, "y": 4}}
    )

Ids: ``token`` fields hold VTT token ids; a token is the rules' character (``Encounter``
characters, positions and combatants are keyed by token id). ``actor`` fields hold VTT actor ids,
whose stats are the template for the tokens made from them. ``player`` fields hold VTT user ids.
"""

from __future__ import annotations

import shlex
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from vttbridge.rules.geometry import Cell, Grid

Role = Literal["gm", "player", "observer"]
EventSource = Literal["vtt", "runtime", "script"]
"""Who produced an event (:attr:`BaseEvent.source`)."""


class BaseEvent(BaseModel):
    """Common base of every event: listen to it to see all of them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    """The wire event id (unique per world), when the event came over the wire."""
    source: EventSource = "vtt"
    """Who produced it: an adapter (``vtt``), the runtime from a rule outcome or timer
    (``runtime``), or a script (``script``). Only ``vtt`` events change state on ingest."""


# -- building blocks ------------------------------------------------------------------------------


class Player(BaseModel):
    """A VTT user. ``role`` decides which commands they may give."""

    id: str
    name: str = ""
    role: Role = "player"


class TokenData(BaseModel):
    """A token as an adapter reports it (creation, snapshot)."""

    id: str
    name: str = ""
    actor: str | None = None
    cell: Cell
    scene: str | None = None
    linked: bool = True
    """Linked to its actor: actor stat updates apply to it (Foundry ``actorLink``)."""
    owners: list[str] = Field(default_factory=list)
    """Player ids who control it (not counting GMs). Prompts for this token go to the first."""
    disposition: int = 0
    """-1 hostile, 0 neutral, 1 friendly (Foundry's scale)."""
    hidden: bool = False
    level: str | None = None
    """The level (floor) it stands on, on a scene with levels (Foundry v14 Scene Levels); None:
    the scene has none. Part of its position: a trigger on another level never sees it."""
    stats: dict[str, Any] = Field(default_factory=dict)
    """Rule stats for this token over its actor's (:class:`vttbridge.rules.characters.Character`
    fields)."""
    vtt: dict[str, Any] = Field(default_factory=dict)
    """The adapter's own data about the token (Foundry: ``width``/``height`` in cells); the
    runtime keeps it and never reads it."""


class ActorData(BaseModel):
    """An actor sheet mapped to rule stats (``vttbridge.rules.characters.Character`` field
    names)."""

    id: str
    name: str = ""
    stats: dict[str, Any] = Field(default_factory=dict)
    vtt: dict[str, Any] = Field(default_factory=dict)
    """The adapter's own data about the sheet (Foundry: the paths its rules-owned stats were
    read from, to write them back there); the runtime keeps it and never reads it."""


class SceneData(BaseModel):
    id: str
    name: str = ""
    grid: Grid = Field(default_factory=Grid)
    extent: tuple[float, float] | None = None
    """The canvas's width and height in VTT px, where the VTT says (positions run from 0 to
    these); adapters refuse positions past them."""


class CombatData(BaseModel):
    """A combat as the VTT shows it: who is in it, their initiative, round and active token."""

    round: int = 0
    active: str | None = None
    initiative: dict[str, int | None] = Field(default_factory=dict)
    """Token id to Initiative Count; ``None`` means not rolled yet."""


# -- tokens ---------------------------------------------------------------------------------------


class TokenMoved(BaseEvent):
    """A token moved. ``path`` lists the waypoints from ``from_cell`` to ``to_cell`` inclusive;
    empty means a straight move. ``from_cell`` defaults to where the runtime has the token."""

    type: Literal["token_moved"] = "token_moved"
    token: str
    to_cell: Cell
    from_cell: Cell | None = None
    path: list[Cell] = Field(default_factory=list)
    player: str | None = None
    """Who moved it, when known (a move over budget is reported to the GM naming them)."""
    actions: list[str] = Field(default_factory=list, max_length=10_000)
    """How each leg of :meth:`waypoints` was moved, in order, when the VTT says (Foundry v13
    waypoint actions: ``walk``, ``jump``, ``fly``...); empty: every leg walked. The FoE rules
    judge a ``jump`` leg as a jump."""
    levels: list[str | None] = Field(default_factory=list, max_length=10_000)
    """On a scene with levels (Foundry v14): the level of each point of :meth:`waypoints`, start
    first; the token ends on the last. Empty: the move stays on the token's level (or the scene
    has none). A leg's cells are on the level of the point it ends at (see
    ``docs/rules.md``, "Levels")."""
    climb: float = Field(0.0, ge=0, le=1_000_000, allow_inf_nan=False)
    """The height, in the grid's units, the move climbs or descends changing levels (the
    difference in elevation of each leg that changes level): a move between levels costs its
    path on the map plus this."""

    def waypoints(self, start: Cell | None = None) -> list[Cell]:
        """The full path, start to end, however the adapter reported it."""
        start = self.from_cell or start
        pts = list(self.path)
        if start is not None and (not pts or pts[0] != start):
            pts.insert(0, start)
        if not pts or pts[-1] != self.to_cell:
            pts.append(self.to_cell)
        return pts

    def point_levels(self, points: int, level: str | None = None) -> list[str | None]:
        """The level of each of ``points`` points of :meth:`waypoints`: :attr:`levels` (the
        last repeated when the adapter sent fewer), else ``level`` (the token's) for all."""
        if not self.levels:
            return [level] * points
        out = list(self.levels[:points])
        return out + [out[-1]] * (points - len(out))

    @property
    def level(self) -> str | None:
        """The level the move ends on (None: it does not say; the token keeps its own)."""
        return self.levels[-1] if self.levels else None


class MoveRefused(BaseEvent):
    """A token move from outside that a ``before_move`` judge refused (the FoE movement rules):
    it was never applied, the world keeps the token where it was, and the VTT was told to put
    it back. Listeners get this instead of the ``TokenMoved``. Made by the runtime only (not a
    wire event); ``id`` is the refused move's, ``code``/``reason`` the judge's ``RuleError``."""

    type: Literal["move_refused"] = "move_refused"
    token: str
    to_cell: Cell
    from_cell: Cell | None = None
    path: list[Cell] = Field(default_factory=list)
    player: str | None = None
    code: str = ""
    reason: str = ""


class ScriptFailed(BaseEvent):
    """A script callback raised or ran past the world's ``script_budget`` (it was reported to
    the GM). Made by the runtime only (not a wire event), after the event being handled; a
    script may listen to it (``@script.on(ScriptFailed)``). A failure of a callback that itself
    listens to ``ScriptFailed`` is reported but makes no ``ScriptFailed`` (no loops)."""

    type: Literal["script_failed"] = "script_failed"
    script: str
    """The failed callback's script."""
    callback: str
    """The callback's function name."""
    reason: str
    """What happened: ``raised ValueError: ...``, ``ran past its 2 s budget and was stopped``."""
    error: str | None = None
    """The exception's class name when it raised."""
    file: str = ""
    line: int = 0


class TokenCreated(BaseEvent):
    type: Literal["token_created"] = "token_created"
    token: TokenData


class TokenRemoved(BaseEvent):
    type: Literal["token_removed"] = "token_removed"
    token: str


class TokenUpdated(BaseEvent):
    """Fields other than position changed; ``None`` means unchanged. ``stats`` merges into the
    token's rule stats."""

    type: Literal["token_updated"] = "token_updated"
    token: str
    name: str | None = None
    actor: str | None = None
    owners: list[str] | None = None
    disposition: int | None = None
    hidden: bool | None = None
    stats: dict[str, Any] | None = None


class ActorUpdated(BaseEvent):
    """An actor sheet changed (Foundry ``updateActor``): its stats apply to its linked tokens."""

    type: Literal["actor_updated"] = "actor_updated"
    actor: str
    name: str | None = None
    stats: dict[str, Any] = Field(default_factory=dict)


# -- chat -----------------------------------------------------------------------------------------


class ChatMessage(BaseEvent):
    """A chat line. A line starting with ``!`` is handled as a :class:`ChatCommand` as well."""

    type: Literal["chat_message"] = "chat_message"
    text: str
    token: str | None = None
    actor: str | None = None
    player: str | None = None
    role: Role = "player"


class ChatCommand(BaseEvent):
    """``!name args...`` typed in chat, with who said it: the speaking token and actor, the
    player behind it and that player's role."""

    type: Literal["chat_command"] = "chat_command"
    name: str
    """Lower-case, without the ``!``."""
    args: str = ""
    token: str | None = None
    actor: str | None = None
    player: str | None = None
    role: Role = "player"

    @property
    def argv(self) -> list[str]:
        """Arguments split shell-style (quotes group words). Unbalanced quotes split on space."""
        try:
            return shlex.split(self.args)
        except ValueError:
            return self.args.split()

    @classmethod
    def parse(cls, text: str, **fields: Any) -> ChatCommand | None:
        """``ChatCommand.parse("!ready shoot --when corner", token="t1")``, or None if the
        text is not a command."""
        text = text.strip()
        if not text.startswith("!") or len(text) < 2 or text[1].isspace():
            return None
        name, _, args = text[1:].partition(" ")
        return cls(name=name.lower(), args=args.strip(), **fields)


# -- combat ---------------------------------------------------------------------------------------


class CombatStarted(BaseEvent):
    """A combat began. From the VTT: these tokens fight (``initiative`` gives ICs already
    rolled; the rest roll). From the runtime: the rules started it."""

    type: Literal["combat_started"] = "combat_started"
    tokens: list[str] = Field(default_factory=list)
    initiative: dict[str, int] = Field(default_factory=dict)


class CombatEnded(BaseEvent):
    type: Literal["combat_ended"] = "combat_ended"


class RoundStarted(BaseEvent):
    type: Literal["round_started"] = "round_started"
    round: int


class TurnStarted(BaseEvent):
    """A turn began. From the VTT (the GM pressed next turn): the rules advance unless they are
    already at this token and round (an echo of the runtime's own ``AdvanceTurn``)."""

    type: Literal["turn_started"] = "turn_started"
    token: str | None = None
    round: int | None = None
    ic: int | None = None
    skipped: str | None = None
    """The VTT gave the turn to this combatant, whose token is not in the world (it left the
    scene): ``token`` is None, the rules move on to the next in their order and the GM is
    told."""


class InitiativeChanged(BaseEvent):
    """A token's Initiative Count changed (the GM edited it, or a rule moved it)."""

    type: Literal["initiative_changed"] = "initiative_changed"
    token: str
    ic: int
    old: int | None = None
    reason: str = ""


class CombatantRemoved(BaseEvent):
    """The GM took a token out of the VTT's turn order (it may stay on the map). The rules
    keep it on record but out of the order; a new initiative for it puts it back."""

    type: Literal["combatant_removed"] = "combatant_removed"
    token: str


class DamageDealt(BaseEvent):
    """``token`` took ``amount`` points of damage (ends a stand off it is in, rule 5)."""

    type: Literal["damage_dealt"] = "damage_dealt"
    token: str
    amount: int
    by: str | None = None
    kind: str = ""
    """Free text (``"stress"`` damage does not end a stand off)."""


class ActionDeclared(BaseEvent):
    """``token`` attempts (``phase="attempt"``, before it happens) or completes an action, e.g.
    ``attack`` with a ``target``. Ready triggers and stand off offers watch these."""

    type: Literal["action_declared"] = "action_declared"
    token: str
    action: str
    phase: Literal["attempt", "completion"] = "attempt"
    target: str | None = None
    player: str | None = None


class PromptAnswered(BaseEvent):
    """An answer to a pending prompt: from a VTT dialog, a script, or the runtime's timeout
    (``source="runtime"``, ``timed_out=True``, the prompt's default)."""

    type: Literal["prompt_answered"] = "prompt_answered"
    prompt: str
    option: str
    player: str | None = None
    timed_out: bool = False


class PromptOpened(BaseEvent):
    """The runtime asked a question (a rules choice or a script's ``ask``). Produced by the
    runtime only; a script may answer it at once, e.g. for an NPC the GM leaves to it."""

    type: Literal["prompt_opened"] = "prompt_opened"
    prompt: str
    kind: str
    player: str
    token: str | None = None
    actor: str | None = None
    question: str = ""
    options: list[str] = Field(default_factory=list)
    default: str = ""


class SceneSnapshot(BaseEvent):
    """The full scene a client sends after every (re)connect. Tokens follow the VTT; a combat
    the runtime does not know yet is adopted as shown; a running rules combat stays
    authoritative."""

    type: Literal["scene_snapshot"] = "scene_snapshot"
    scene: SceneData
    tokens: list[TokenData] = Field(default_factory=list)
    combat: CombatData | None = None
    players: list[Player] = Field(default_factory=list)
    actors: list[ActorData] = Field(default_factory=list)
    regions: dict[str, list[Cell]] = Field(default_factory=dict)
    """Named regions drawn in the VTT, as the cells they cover."""
    region_levels: dict[str, list[str]] = Field(default_factory=dict)
    """The levels of the named regions that lie on some levels only (Foundry v14
    ``RegionDocument#levels``); a region not named here is on every level."""


# -- runtime-internal inputs ----------------------------------------------------------------------


class TimerFired(BaseEvent):
    """A script's ``wait_for`` or ``sleep`` timed out. Produced by the runtime and journaled, so a
    replay that re-creates the same wait resolves it the same way."""

    type: Literal["timer_fired"] = "timer_fired"
    timer: str


class ConditionSignalled(BaseEvent):
    """A script said a named condition happened (``ctx.signal("alarm")``); Ready actions whose
    trigger is that condition fire."""

    type: Literal["condition_signalled"] = "condition_signalled"
    condition: str
    token: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


Event = Annotated[
    TokenMoved
    | TokenCreated
    | TokenRemoved
    | TokenUpdated
    | ActorUpdated
    | ChatMessage
    | ChatCommand
    | CombatStarted
    | CombatEnded
    | RoundStarted
    | TurnStarted
    | InitiativeChanged
    | CombatantRemoved
    | DamageDealt
    | ActionDeclared
    | PromptAnswered
    | PromptOpened
    | SceneSnapshot
    | TimerFired
    | ConditionSignalled,
    Field(discriminator="type"),
]
"""Any domain event, discriminated by ``type``."""

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

EVENT_TYPES: dict[str, type[BaseEvent]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        TokenMoved,
        TokenCreated,
        TokenRemoved,
        TokenUpdated,
        ActorUpdated,
        ChatMessage,
        ChatCommand,
        CombatStarted,
        CombatEnded,
        RoundStarted,
        TurnStarted,
        InitiativeChanged,
        CombatantRemoved,
        DamageDealt,
        ActionDeclared,
        PromptAnswered,
        PromptOpened,
        SceneSnapshot,
        TimerFired,
        ConditionSignalled,
    )
}
"""``type`` string to event class."""


__all__ = [
    "EVENT_ADAPTER",
    "EVENT_TYPES",
    "ActionDeclared",
    "ActorData",
    "ActorUpdated",
    "BaseEvent",
    "ChatCommand",
    "ChatMessage",
    "CombatData",
    "CombatEnded",
    "CombatStarted",
    "CombatantRemoved",
    "ConditionSignalled",
    "DamageDealt",
    "Event",
    "EventSource",
    "InitiativeChanged",
    "MoveRefused",
    "Player",
    "PromptAnswered",
    "PromptOpened",
    "Role",
    "RoundStarted",
    "SceneData",
    "SceneSnapshot",
    "ScriptFailed",
    "TimerFired",
    "TokenCreated",
    "TokenData",
    "TokenMoved",
    "TokenRemoved",
    "TokenUpdated",
    "TurnStarted",
]
