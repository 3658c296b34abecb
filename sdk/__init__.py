"""What scripters touch: typed domain events, effects, the per-world runtime and the SDK.

A script::

    from vttbridge.sdk import Script, TokenMoved, rect

    script = Script("ambush")
    script.region("corner", rect(10, 4, 12, 6))

    @script.on_enter("corner")
    def sprung(event: TokenMoved, ctx):
        ctx.say(f"{ctx.name(event.token)} rounds the corner!")

See :class:`vttbridge.sdk.script.Script` for the decorators, :class:`vttbridge.sdk.context.Context`
for what a callback can do, :class:`vttbridge.sdk.runtime.WorldRuntime` for running a world, and
:mod:`vttbridge.sdk.testing` for testing a script without a VTT.

Every type a callback receives or a context method returns is importable from here: the events
(and :class:`HoldCheck`, the held-moves script's), :class:`Prompt` (a ``@script.choice``
handler's first argument), :class:`Watch` (``ctx.trigger``), :class:`Token`, :class:`World`,
:class:`Character`, :class:`Outcome`, :class:`Roll`... so a script imports only ``vttbridge.sdk``.
"""

from vttbridge.rules.characters import Character
from vttbridge.rules.dice import Roll
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import Choice, Outcome, RuleError
from vttbridge.sdk.context import Context
from vttbridge.sdk.effects import (
    EFFECT_ADAPTER,
    AdvanceTurn,
    AskPlayer,
    BaseEffect,
    Effect,
    MovementBudget,
    PostChat,
    ReleaseMove,
    SetInitiative,
    UpdateConditions,
    UpdateStats,
    UpdateToken,
    WatchMoves,
)
from vttbridge.sdk.errors import EventRejected, ScriptError, UsageError
from vttbridge.sdk.events import (
    EVENT_ADAPTER,
    ActionDeclared,
    ActorData,
    ActorUpdated,
    BaseEvent,
    ChatCommand,
    ChatMessage,
    CombatantRemoved,
    CombatData,
    CombatEnded,
    CombatStarted,
    ConditionSignalled,
    DamageDealt,
    Event,
    InitiativeChanged,
    MoveRefused,
    Player,
    PromptAnswered,
    PromptOpened,
    RoundStarted,
    SceneData,
    SceneSnapshot,
    ScriptFailed,
    TimerFired,
    TokenCreated,
    TokenData,
    TokenMoved,
    TokenRemoved,
    TokenUpdated,
    TurnStarted,
)
from vttbridge.sdk.holds import HoldCheck
from vttbridge.sdk.refusal_record import RefusalRecord
from vttbridge.sdk.regions import Region, cells, entered, line, rect, within
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.script import Script
from vttbridge.sdk.triggers import ActionSpec, ConditionSpec, EnterSpec, WithinSpec
from vttbridge.sdk.world import Prompt, Token, Watch, World, WorldSettings

__all__ = [
    "EFFECT_ADAPTER",
    "EVENT_ADAPTER",
    "ActionDeclared",
    "ActionSpec",
    "ActorData",
    "ActorUpdated",
    "AdvanceTurn",
    "AskPlayer",
    "BaseEffect",
    "BaseEvent",
    "Cell",
    "Character",
    "ChatCommand",
    "ChatMessage",
    "Choice",
    "CombatData",
    "CombatEnded",
    "CombatStarted",
    "CombatantRemoved",
    "ConditionSignalled",
    "ConditionSpec",
    "Context",
    "DamageDealt",
    "Effect",
    "Encounter",
    "EnterSpec",
    "Event",
    "EventRejected",
    "Grid",
    "HoldCheck",
    "InitiativeChanged",
    "MoveRefused",
    "MovementBudget",
    "Options",
    "Outcome",
    "Player",
    "PostChat",
    "Prompt",
    "PromptAnswered",
    "PromptOpened",
    "RefusalRecord",
    "Region",
    "ReleaseMove",
    "Roll",
    "RoundStarted",
    "RuleError",
    "SceneData",
    "SceneSnapshot",
    "Script",
    "ScriptError",
    "ScriptFailed",
    "SetInitiative",
    "TimerFired",
    "Token",
    "TokenCreated",
    "TokenData",
    "TokenMoved",
    "TokenRemoved",
    "TokenUpdated",
    "TurnStarted",
    "UpdateConditions",
    "UpdateStats",
    "UpdateToken",
    "UsageError",
    "Watch",
    "WatchMoves",
    "WithinSpec",
    "World",
    "WorldRuntime",
    "WorldSettings",
    "cells",
    "entered",
    "line",
    "rect",
    "within",
]
