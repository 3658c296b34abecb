"""What scripters touch: typed domain events, effects, the per-world runtime and the SDK.

A script::

    from sdk import Script, TokenMoved, rect

    script = Script("ambush")
    script.region("corner", rect(10, 4, 12, 6))

    @script.on_enter("corner")
    def sprung(event: TokenMoved, ctx):
        ctx.say(f"{ctx.name(event.token)} rounds the corner!")

See :class:`sdk.script.Script` for the decorators, :class:`sdk.context.Context` for what a
callback can do, :class:`sdk.runtime.WorldRuntime` for running a world, and
:mod:`sdk.testing` for testing a script without a VTT.
"""

from rules.geometry import Cell, Grid
from rules.outcome import RuleError
from sdk.context import Context
from sdk.effects import (
    EFFECT_ADAPTER,
    AdvanceTurn,
    AskPlayer,
    Effect,
    PostChat,
    SetInitiative,
    UpdateConditions,
    UpdateStats,
    UpdateToken,
)
from sdk.errors import EventRejected, ScriptError, UsageError
from sdk.events import (
    EVENT_ADAPTER,
    ActionDeclared,
    ActorUpdated,
    BaseEvent,
    ChatCommand,
    ChatMessage,
    CombatantRemoved,
    CombatEnded,
    CombatStarted,
    ConditionSignalled,
    DamageDealt,
    Event,
    InitiativeChanged,
    MoveRefused,
    PromptAnswered,
    PromptOpened,
    RoundStarted,
    SceneSnapshot,
    ScriptFailed,
    TimerFired,
    TokenCreated,
    TokenMoved,
    TokenRemoved,
    TokenUpdated,
    TurnStarted,
)
from sdk.regions import Region, cells, line, rect, within
from sdk.runtime import WorldRuntime
from sdk.script import Script
from sdk.triggers import ActionSpec, ConditionSpec, EnterSpec, WithinSpec

__all__ = [
    "EFFECT_ADAPTER",
    "EVENT_ADAPTER",
    "ActionDeclared",
    "ActionSpec",
    "ActorUpdated",
    "AdvanceTurn",
    "AskPlayer",
    "BaseEvent",
    "Cell",
    "ChatCommand",
    "ChatMessage",
    "CombatEnded",
    "CombatStarted",
    "CombatantRemoved",
    "ConditionSignalled",
    "ConditionSpec",
    "Context",
    "DamageDealt",
    "Effect",
    "EnterSpec",
    "Event",
    "EventRejected",
    "Grid",
    "InitiativeChanged",
    "MoveRefused",
    "PostChat",
    "PromptAnswered",
    "PromptOpened",
    "Region",
    "RoundStarted",
    "RuleError",
    "SceneSnapshot",
    "Script",
    "ScriptError",
    "ScriptFailed",
    "SetInitiative",
    "TimerFired",
    "TokenCreated",
    "TokenMoved",
    "TokenRemoved",
    "TokenUpdated",
    "TurnStarted",
    "UpdateConditions",
    "UpdateStats",
    "UpdateToken",
    "UsageError",
    "WithinSpec",
    "WorldRuntime",
    "cells",
    "line",
    "rect",
    "within",
]
