"""Spycraft 2.0 built-ins: Ready actions and their triggers, Stand Off.

Commands: ``!delay <steps>``, ``!ready <action> --when <condition> [--timing
attempt|completion]``, ``!unready``, ``!trigger <token> [--by <token>]`` (GM), ``!standoff
<attacker>``, ``!join-standoff <participant> <weapon>``, ``!surrender``, ``!permit <token>
[order]``. They answer in a Spycraft world only (the script names its system).

A Ready's ``--when`` condition becomes a run-time trigger (a :class:`vttbridge.sdk.world.Watch`,
kept in world state so it survives restarts):

============================  =========================================================
``--when`` ...                fires when
============================  =========================================================
``enters <region>``           another token's move enters the named region
``<region>``                  (the same, when a region of that name exists)
``within <ft>``               another token comes within that distance of the readier
``!<command>``                someone gives that chat command (``!press``)
``action <name>``             someone declares that action (``!do press``, or an adapter's
                              ``ActionDeclared``), at its attempt or completion per
                              ``--timing``; a chat command counts as both
``cond <name>`` / ``<name>``  a script's ``@script.condition(name)`` holds, or a script
                              calls ``ctx.signal(name)``
anything else                 the GM says so: ``!trigger <token>`` (the player is told)
============================  =========================================================

The watch says the Ready's timing (``data["timing"]``): one on the attempt of a move holds the
move in the VTT until the Ready resolves (:mod:`vttbridge.sdk.holds`).

When a trigger fires the rules lower the IC (rule 2) and ask the readier's player "fire or
cancel?" (``ready_cancel``); the answer, or its default ``fire`` on timeout, resolves it. The
watch is removed as soon as it fires, so a second token rounding the corner triggers nothing.

An attack declared with ``!attack`` (or an adapter's ``ActionDeclared(action="attack")``) on a
special character within 30 ft offers him a stand off (``standoff_offer``), default
``take_attack``. Damage (``DamageDealt``, not ``kind="stress"``) to a participant ends it.
"""

from __future__ import annotations

from typing import Any

from vttbridge.rules.outcome import RuleError
from vttbridge.sdk import when
from vttbridge.sdk.chat.core import actor_as, actor_of
from vttbridge.sdk.chat.parsing import parse_distance, parse_int, split_flags
from vttbridge.sdk.checks import did_you_mean
from vttbridge.sdk.context import Context
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import (
    ActionDeclared,
    BaseEvent,
    ChatCommand,
    CombatEnded,
    DamageDealt,
    RoundStarted,
    TurnStarted,
)
from vttbridge.sdk.script import Script
from vttbridge.sdk.triggers import ActionSpec, ConditionSpec, EnterSpec, WithinSpec
from vttbridge.sdk.world import Prompt
from vttbridge.systems.spycraft.rules import delay as rdelay
from vttbridge.systems.spycraft.rules import ready as rready
from vttbridge.systems.spycraft.rules import standoff as rstandoff
from vttbridge.systems.spycraft.rules.economy import JOIN_STAND_OFF, READY, STAND_OFF
from vttbridge.systems.spycraft.rules.state import NAME, spycraft

script = Script("spycraft", system=NAME, description="Spycraft 2.0: Delay, Ready and Stand Off.")

READY_WATCH = "ready:"


# -- Delay ----------------------------------------------------------------------------------------


@script.command(
    "delay",
    usage="!delay <steps>",
    help="Lower your IC by some steps, before you act; you act again when the count reaches it.",
    cost="delay",
)
def delay(cmd: ChatCommand, ctx: Context) -> None:
    args = cmd.argv
    if len(args) != 1:
        raise UsageError()
    actor = actor_of(cmd, ctx)
    ctx.rule(rdelay.delay, actor, parse_int(args[0], "Steps", 1, 1000))


# -- Ready ----------------------------------------------------------------------------------------


def parse_condition(text: str, ctx: Context, actor: str, timing: str) -> tuple[Any | None, str]:
    """A ``--when`` text to (trigger spec or None for a GM-fired trigger, description)."""
    raw = text.strip()
    low = raw.lower()
    words = low.split()
    regions = {n.lower(): n for n in ctx.world.regions}
    conditions = {n.lower(): n for n in ctx.condition_names()}
    head, _, rest = low.partition(" ")
    prefix, colon, after = low.partition(":")
    if colon and prefix in ("region", "enter", "cond", "condition", "action", "cmd", "within"):
        head, rest = prefix, after.strip()
    rest_raw = raw[len(raw) - len(rest) :] if rest else ""

    if head in ("enter", "enters", "entering", "region") and rest:
        name = regions.get(rest)
        if name is None:
            known = ", ".join(sorted(ctx.world.regions)) or "none defined"
            hint = did_you_mean(rest, ctx.world.regions)
            raise UsageError(f"No region {rest_raw!r} (regions: {known}).{hint}")
        return EnterSpec(region=name, exclude=actor), f"someone enters {name}"
    if head == "within" and rest:
        dist = parse_distance(rest.split()[0])
        return (
            WithinSpec(anchor=actor, distance=dist, exclude=actor),
            f"someone comes within {dist:g} ft",
        )
    if low.startswith("!") and len(words) == 1:
        name = low[1:]
        return ActionSpec(action=name, exclude=actor), f"someone uses !{name}"
    if head in ("action", "cmd") and rest:
        phase = timing if timing in ("attempt", "completion") else None
        verb = "attempts" if phase == "attempt" else "completes"
        return ActionSpec(action=rest, phase=phase, exclude=actor), f"someone {verb} {rest}"
    if head in ("cond", "condition") and rest:
        name = conditions.get(rest)
        if name is None:
            known = ", ".join(sorted(ctx.condition_names())) or "none loaded"
            hint = did_you_mean(rest, ctx.condition_names())
            raise UsageError(f"No condition {rest_raw!r} (conditions: {known}).{hint}")
        return ConditionSpec(name=name, exclude=actor), name
    if low in regions:
        return EnterSpec(region=regions[low], exclude=actor), f"someone enters {regions[low]}"
    if low in conditions:
        return ConditionSpec(name=conditions[low], exclude=actor), conditions[low]
    return None, raw


@script.command(
    "ready",
    usage="!ready <action> --when <condition> [--timing attempt|completion]",
    help="Name a half action to take when a trigger occurs (a region, within <ft>, !command, "
    "action <name>, a script condition, or anything the GM fires with !trigger); your turn "
    "ends, and firing it later costs nothing more.",
    cost=READY,
    free_if=when.asks,
)
def ready_cmd(cmd: ChatCommand, ctx: Context) -> None:
    if when.asks(cmd):
        ctx.reply(when.listing(ctx))
        return
    pos, flags = split_flags(cmd.argv, {"when": True, "timing": True, "as": True})
    if not pos or "when" not in flags:
        raise UsageError("Name the action and the trigger.")
    timing = str(flags.get("timing", "completion")).lower()
    if timing not in ("attempt", "completion"):
        raise UsageError("--timing is attempt or completion.")
    actor = actor_as(cmd, ctx, flags)
    action = " ".join(pos)
    spec, description = parse_condition(str(flags["when"]), ctx, actor, timing)
    if spec is None:
        description = when.free_text(cmd, description, ctx)
    ctx.rule(rready.declare, actor, action, description, timing=timing)
    if spec is not None:
        data = {"actor": actor, "timing": timing}
        ctx.watch(READY_WATCH + actor, spec, handler="ready", data=data, owner=actor)
    else:
        ctx.reply(
            f"The GM fires this trigger with !trigger {ctx.name(actor)} "
            f"(no region or condition is called {description!r})."
        )
        ctx.tell_gm(
            f"{ctx.name(actor)}'s Ready waits for: {description}. "
            f"Fire it with !trigger {actor} [--by <token>]."
        )


@script.watch_handler("ready")
def ready_triggered(event: BaseEvent, ctx: Context) -> None:
    assert ctx.trigger is not None
    actor = ctx.trigger.data["actor"]
    _fire_ready(ctx, actor, getattr(event, "token", None), _describe(event, ctx))


def _describe(event: BaseEvent, ctx: Context) -> str:
    who = ctx.name(event.token) if getattr(event, "token", None) else "someone"  # type: ignore[attr-defined]
    if ctx.region_name:
        return f"{who} enters {ctx.region_name}"
    if isinstance(event, ChatCommand):
        return f"{who} uses !{event.name}"
    if isinstance(event, ActionDeclared):
        verb = "attempts" if event.phase == "attempt" else "completes"
        return f"{who} {verb} {event.action}"
    if ctx.cell is not None:
        return f"{who} comes within range"
    return when.happened(event, ctx)


def _fire_ready(ctx: Context, actor: str, by: str | None, description: str) -> None:
    rd = rready.active_ready(ctx.encounter, actor)
    if rd is None:
        ctx.unwatch(READY_WATCH + actor)
        return
    if rd.pending:
        return
    try:
        ctx.rule(rready.trigger_occurred, actor, by=by, description=description)
    except RuleError as e:
        if e.code == "no_ready":
            ctx.unwatch(READY_WATCH + actor)
        else:  # blocked, no count: the Ready waits; tell the GM why it did not fire
            ctx.tell_refused(e, f"{ctx.name(actor)}'s Ready did not fire: {e.message}")
        return
    ctx.unwatch(READY_WATCH + actor)  # it fired: nobody else triggers it (rule 3)


@script.choice(rready.CANCEL_CHOICE)
def ready_answered(prompt: Prompt, answer: str, ctx: Context) -> None:
    ctx.rule(rready.resolve_trigger, prompt.actor, answer)


@script.command(
    "unready",
    usage="!unready",
    aliases=["end-ready"],
    help="End your Ready action early (Reflex save DC 15).",
    cost="end ready",
)
def unready(cmd: ChatCommand, ctx: Context) -> None:
    _, flags = split_flags(cmd.argv, {"as": True, "nosave": False})
    actor = actor_as(cmd, ctx, flags)
    save = not (flags.get("nosave") and cmd.role == "gm")
    ctx.rule(rready.end_ready, actor, save=save)
    _sync_watches(ctx)


@script.command(
    "trigger",
    usage="!trigger <readied token> [--by <token>]",
    role="gm",
    help="Fire a Ready's trigger by hand (for triggers the runtime cannot see).",
)
def trigger_cmd(cmd: ChatCommand, ctx: Context) -> None:
    pos, flags = split_flags(cmd.argv, {"by": True})
    if len(pos) != 1:
        raise UsageError()
    actor = ctx.token(pos[0]).id
    by = ctx.token(str(flags["by"])).id if "by" in flags else None
    if rready.active_ready(ctx.encounter, actor) is None:
        raise UsageError(f"{ctx.name(actor)} has no Ready action.")
    ctx.rule(rready.trigger_occurred, actor, by=by, description="the GM says so")
    ctx.unwatch(READY_WATCH + actor)


def _sync_watches(ctx: Context) -> None:
    """Drop watches of Readies the rules ended (expired, ended, fired) and prompts whose
    rule state moved on."""
    enc = ctx.encounter
    for key, w in list(ctx.world.watches.items()):
        if w.script == script.name and key.startswith(READY_WATCH):
            rd = spycraft(enc).readies.get(w.data.get("actor", ""))
            if rd is None or rd.pending:
                ctx.unwatch(key)
    cracks = {a for so in rstandoff.active_standoffs(enc) for a in so.pending_cracks}
    ties = {so.id for so in rstandoff.active_standoffs(enc) if so.pending_tie is not None}
    for p in ctx.prompts():
        stale = (
            (
                p.kind == rready.CANCEL_CHOICE
                and not (
                    p.actor in spycraft(enc).readies and spycraft(enc).readies[p.actor].pending
                )
            )
            or (p.kind == "standoff_crack" and p.actor not in cracks)
            or (p.kind == "standoff_tie" and p.data.get("standoff") not in ties)
        )
        if stale:
            ctx.close_prompt(p.id, "the moment has passed")


@script.on(RoundStarted, TurnStarted, CombatEnded)
def housekeeping(event: BaseEvent, ctx: Context) -> None:
    _sync_watches(ctx)


# -- Stand Off ------------------------------------------------------------------------------------


@script.on(ActionDeclared, when=lambda e: e.action == "attack" and e.phase == "attempt")
def attack_declared(event: ActionDeclared, ctx: Context) -> None:
    enc = ctx.encounter
    target = event.target
    if target is None or not enc.in_combat:
        return
    if target not in enc.combatants or event.token not in enc.combatants:
        return
    ctx.rule(rstandoff.offer, target, event.token)


@script.choice("standoff_offer")
def standoff_offer_answered(prompt: Prompt, answer: str, ctx: Context) -> None:
    target, attacker = prompt.data["target"], prompt.data["attacker"]
    if answer == "stand_off":
        ctx.rule(rstandoff.attempt, target, attacker)
    else:
        ctx.say(f"{ctx.name(target)} takes the attack; {ctx.name(attacker)} rolls to hit.")


@script.command(
    "standoff",
    usage="!standoff <attacker>",
    help="Stand off an attacker within 30 ft before his attack roll (1 action die, IC - 5; "
    "an initiative action, also out of turn).",
    cost=STAND_OFF,
)
def standoff_cmd(cmd: ChatCommand, ctx: Context) -> None:
    pos, flags = split_flags(cmd.argv, {"as": True})
    if len(pos) != 1:
        raise UsageError()
    target = actor_as(cmd, ctx, flags)
    attacker = ctx.token(pos[0]).id
    for p in ctx.prompts():  # the offer is answered by doing it
        if (
            p.kind == "standoff_offer"
            and p.data.get("target") == target
            and p.data.get("attacker") == attacker
        ):
            ctx.close_prompt(p.id, "answered with !standoff")
    ctx.rule(rstandoff.attempt, target, attacker)


@script.command(
    "join-standoff",
    usage="!join-standoff <participant> <weapon>",
    aliases=["join"],
    help="Join a stand off on a participant's side.",
    cost=JOIN_STAND_OFF,
)
def join_cmd(cmd: ChatCommand, ctx: Context) -> None:
    pos, flags = split_flags(cmd.argv, {"as": True})
    if len(pos) < 2:
        raise UsageError("Name the participant whose side you join, and your weapon.")
    actor = actor_as(cmd, ctx, flags)
    ally = ctx.token(pos[0]).id
    so = rstandoff.standoff_of(ctx.encounter, ally)
    if so is None:
        raise UsageError(f"{ctx.name(ally)} is not in a stand off.")
    side = so.side_of(ally)
    ctx.rule(rstandoff.join, actor, so.id, side, " ".join(pos[1:]))


@script.command(
    "surrender",
    usage="!surrender",
    help="Surrender in your stand off (or answer a crack by surrendering).",
    cost="surrender",
)
def surrender_cmd(cmd: ChatCommand, ctx: Context) -> None:
    _, flags = split_flags(cmd.argv, {"as": True})
    actor = actor_as(cmd, ctx, flags)
    ctx.rule(rstandoff.surrender, actor)
    _sync_watches(ctx)


@script.command(
    "permit",
    usage="!permit <token> [order]",
    help="Allow a surrendered opponent one action (or order him).",
    cost="permit",
)
def permit_cmd(cmd: ChatCommand, ctx: Context) -> None:
    pos, flags = split_flags(cmd.argv, {"as": True})
    if not pos:
        raise UsageError()
    granter = actor_as(cmd, ctx, flags)
    ctx.rule(rstandoff.grant_permission, granter, ctx.token(pos[0]).id, order=" ".join(pos[1:]))


@script.choice("standoff_crack")
def crack_answered(prompt: Prompt, answer: str, ctx: Context) -> None:
    ctx.rule(rstandoff.resolve_crack, prompt.actor, answer)


@script.choice("standoff_tie")
def tie_answered(prompt: Prompt, answer: str, ctx: Context) -> None:
    ctx.rule(rstandoff.resolve_tie, prompt.data["standoff"], answer)


@script.on(DamageDealt)
def damage(event: DamageDealt, ctx: Context) -> None:
    if event.token not in ctx.encounter.characters:
        return
    ctx.rule(rstandoff.damage_dealt, event.token, event.amount, stress=event.kind == "stress")


__all__ = ["parse_condition", "script"]
