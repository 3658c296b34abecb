"""Movement budgets for the VTT: what each token may still move this turn, sent when it changes.

In a fight of a game system that keeps a movement budget (``System.movement``) this script
sends a :class:`vttbridge.sdk.effects.MovementBudget` for the token whose turn it is whenever
its budget differs from the one sent last: at each turn change (the previous token's too: it
may no longer move), after a move and after a command or an answer that spent an action. When
the fight ends, every token it sent a budget for gets ``budget=None``. The VTT shows it where
the player drags (Foundry: the Token Ruler is coloured by it, no round trip while dragging;
Roll20: the mover is whispered what is left after a drag).

What was sent last is kept in the world's store (``store["budget"]["sent"]``: token -> the
effect's figures), so a replay of the log sends exactly what was sent, and a restart does not
send it all again.

Cost: one budget (a few dictionary reads) per event in such a fight, for the token whose turn it
is (and, at a turn change, the one whose turn ended); nothing outside one. A command's
spend happens after the listeners of its ``ChatCommand`` ran, so for commands and answers the
check runs in an internal :class:`BudgetCheck` event dispatched after them (scripts that listen
to every event see it, ``type="budget_check"``).

This is a built-in: every world loads it (:func:`vttbridge.sdk.runtime.scripts.builtin_scripts`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from vttbridge.rules.encounter import Encounter
from vttbridge.rules.systems import MoveFigures
from vttbridge.sdk.context import Context
from vttbridge.sdk.effects import MovementBudget
from vttbridge.sdk.events import (
    ActorUpdated,
    BaseEvent,
    ChatCommand,
    CombatantRemoved,
    CombatEnded,
    CombatStarted,
    PromptAnswered,
    RoundStarted,
    SceneSnapshot,
    TimerFired,
    TokenMoved,
    TokenRemoved,
    TokenUpdated,
    TurnStarted,
)
from vttbridge.sdk.script import Script

SCRIPT_NAME = "budget"

script = Script(
    SCRIPT_NAME,
    description="Sends each token's movement budget to the VTT when it changes.",
)

Cause = Literal["turn", "move", "action", "other"]


class BudgetCheck(BaseEvent):
    """Internal: compare the budget with the one sent, after the event that derived it."""

    type: Literal["budget_check"] = "budget_check"
    cause: Cause = "action"


def state_of(store: dict[str, Any]) -> dict[str, Any]:
    """This script's part of the world store: ``sent`` (token -> the figures last sent) and
    ``active`` (whose turn it was at the last check)."""
    store.setdefault("sent", {})
    store.setdefault("active", None)
    return store


@script.on(
    ChatCommand,
    PromptAnswered,
    TokenMoved,
    TurnStarted,
    RoundStarted,
    CombatStarted,
    CombatEnded,
    CombatantRemoved,
    TokenUpdated,
    ActorUpdated,
    SceneSnapshot,
    TokenRemoved,
    TimerFired,
    BudgetCheck,
)
def on_event(event: BaseEvent, ctx: Context) -> None:
    """The events that can change a budget (a refused move changes none). A token move in a
    fight runs this: it reads the world directly, not through ``ctx``'s properties."""
    world = ctx.world
    enc = world.encounter
    figures = enc.system.movement
    if figures is None:
        return  # the system keeps no movement budget
    kind = type(event)
    if kind is ChatCommand or kind is PromptAnswered:
        # the command (a choice handler) spends after these listeners: look after it
        ctx.emit_event(BudgetCheck(source="script"))
        return
    st = world.store.get(SCRIPT_NAME)
    if st is None:
        if not enc.in_combat:
            return  # no fight and nothing shown: all an event outside a fight costs
        st = state_of(world.store.setdefault(SCRIPT_NAME, {}))
    elif not st.get("sent") and not enc.in_combat:
        return
    player = None
    if kind is TokenMoved:
        if event.source == "vtt":
            cause: Cause = "move"
            player = event.player or world.player_for(event.token)  # type: ignore[attr-defined]
        else:
            cause = "action"
    elif kind is BudgetCheck:
        cause = event.cause  # type: ignore[attr-defined]
    else:
        cause = "other"
    removed = event.token if kind is TokenRemoved else None  # type: ignore[attr-defined]
    _check(ctx, figures, state_of(st), cause, player, kind is CombatEnded, removed)


def check(ctx: Context, cause: Cause = "other", player: str | None = None) -> None:
    """Send the budgets that differ from those sent (for a script that changed a budget in a
    way no event shows)."""
    figures = ctx.encounter.system.movement
    if figures is not None:
        _check(ctx, figures, state_of(ctx.store), cause, player, False, None)


def _check(
    ctx: Context,
    figures: Callable[[Encounter, str], MoveFigures | None],
    st: dict[str, Any],
    cause: Cause,
    player: str | None,
    ended: bool,
    removed: str | None,
) -> None:
    """Send the budgets that differ from those sent: the active token's, the one whose turn
    just ended; every one sent when the fight is over. A change of whose turn it is makes the
    cause ``turn``."""
    world = ctx.world
    enc = world.encounter
    sent: dict[str, Any] = st["sent"]
    if removed is not None:
        sent.pop(removed, None)
    active = enc.active if enc.in_combat and not ended else None
    previous = st["active"]
    look = [] if active is None else [active]
    if previous != active:
        if cause != "move":
            cause = "turn"
        if previous is not None:
            look.append(previous)
        st["active"] = active
    if active is None:
        look.extend(t for t in sent if t not in look)
    metric = enc.grid.metric
    for token in look:
        if token not in world.tokens or token not in enc.characters:
            sent.pop(token, None)
            continue
        shown: dict[str, Any] | None = None
        if active is not None:
            shown = figures(enc, token)  # a fresh dict
        if shown is not None:
            shown["metric"] = metric  # how they were measured: a new metric is a new budget
        if shown == sent.get(token):
            continue  # what the VTT shows already (None: nothing shown, nothing to clear)
        if shown is None:
            del sent[token]
        else:
            sent[token] = shown
        effect = MovementBudget(
            token=token,
            budget=shown,  # validated into a MoveBudget (which ignores "metric"): one per drag
            metric=metric,
            cause=cause,
            player=player if token == active else None,
        )
        ctx.emit(effect)


__all__ = ["SCRIPT_NAME", "BudgetCheck", "check", "script"]
