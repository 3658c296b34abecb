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
"""

from vttbridge.rules.geometry import Cell, Grid
from vttbridge.rules.outcome import RuleError
from vttbridge.sdk.context import Context
from vttbridge.sdk.effects import (
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
from vttbridge.sdk.errors import EventRejected, ScriptError, UsageError
from vttbridge.sdk.events import (
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
from vttbridge.sdk.regions import Region, cells, line, rect, within
from vttbridge.sdk.runtime import WorldRuntime
from vttbridge.sdk.script import Script
from vttbridge.sdk.triggers import ActionSpec, ConditionSpec, EnterSpec, WithinSpec

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
