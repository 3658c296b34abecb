"""Fallout: Equestria built-ins: surprise round, movement, charge, jumping, sneaking.

Commands: ``!surprise``, ``!move``, ``!charge``, ``!charge-attack``, ``!jump``, ``!sneak``,
``!hide``, ``!sneak-attack``.

Token moves made in the VTT during a FoE combat are checked against the movement rules
(:func:`rules.foe.movement.move`: the budget, whose turn it is, the surprised sitting out). A move
the rules refuse is reported to the GM and, with the world setting ``revert_over_budget`` (on by
default), moved back without firing triggers; the player is told why. A GM's own moves are
checked and reported but never moved back (the GM overrides). ``check_moves`` off skips it.

Cells in commands are ``x,y`` (grid column, row); a token name stands for its cell. Enemies
default to the tokens of the opposite disposition (Foundry's hostile vs friendly); name them
with ``--enemies`` otherwise.
"""

from __future__ import annotations

import re

from rules.foe import charge as rcharge
from rules.foe import jumping as rjump
from rules.foe import movement as rmove
from rules.foe import sneaking as rsneak
from rules.foe import surprise as rsurprise
from rules.geometry import Cell
from rules.numbers import MAX_CELL
from rules.outcome import RuleError
from sdk.builtins.core import actor_as
from sdk.commands import parse_distance, parse_float, parse_int, split_flags
from sdk.context import Context
from sdk.errors import UsageError
from sdk.events import ChatCommand, TokenMoved
from sdk.regions import line
from sdk.script import Script
from sdk.world import Prompt

script = Script(
    "foe", system="foe", description="Fallout: Equestria: surprise, movement, charge, jump, sneak."
)

_CELL = re.compile(r"^\(?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\)?$")


def _foe(ctx: Context) -> None:
    if ctx.options.system != "foe":
        raise UsageError(
            f"That is a Fallout: Equestria command; this world plays {ctx.options.system}."
        )


def parse_cell(text: str, ctx: Context) -> Cell:
    """``3,4`` or ``(3, 4)`` or a token's name (its cell)."""
    m = _CELL.match(text.strip())
    if m:
        x, y = (parse_int(v, "A cell's column and row", -MAX_CELL, MAX_CELL) for v in m.groups())
        return Cell(x=x, y=y)
    return ctx.token(text).cell


MAX_MODIFIER = 1000
"""The largest modifier or armor value a chat command takes."""


def _modifier(flags: dict[str, str | bool]) -> int:
    if "modifier" not in flags:
        return 0
    return parse_int(str(flags["modifier"]), "The modifier", -MAX_MODIFIER, MAX_MODIFIER)


def enemies_of(ctx: Context, actor: str, named: str | bool | None = None) -> list[str]:
    """The enemies present: named ones, or every token of the opposite disposition."""
    if isinstance(named, str):
        return [ctx.token(r).id for r in re.split(r"[,\s]+", named) if r]
    me = ctx.tokens[actor]
    if me.disposition == 0:
        raise UsageError(f"{me.display} is neutral: name the enemies with --enemies a,b.")
    return [
        t.id
        for t in ctx.tokens.values()
        if t.id != actor and t.disposition * me.disposition < 0 and not t.hidden
    ]


# -- moves made in the VTT ------------------------------------------------------------------------


@script.on(TokenMoved, when=lambda e: e.source == "vtt")
def vtt_move(event: TokenMoved, ctx: Context) -> None:
    # runs for every token move: read the world once rather than through ctx's properties
    world = ctx.world
    enc = world.encounter
    if enc.options.system != "foe" or not world.settings.check_moves or not enc.in_combat:
        return
    actor = event.token
    cb = enc.combatants.get(actor)
    in_fight = (cb is not None and not cb.out) or actor in enc.foe.surprised
    if not in_fight or event.from_cell is None or event.from_cell == event.to_cell:
        return
    start, path = event.from_cell, event.waypoints()
    enc.positions[actor] = start  # the rules measure the move from where he stood
    try:
        out = rmove.move(enc, actor, path)
    except RuleError as e:
        enc.positions[actor] = event.to_cell
        player = ctx.world.players.get(event.player or "")
        by_gm = player is not None and player.role == "gm"
        revert = ctx.settings.revert_over_budget and not by_gm
        name = ctx.name(actor)
        if revert:
            ctx.move(actor, start, animate=False, fire_triggers=False)
            ctx.tell_gm(f"{name}'s move refused and moved back: {e.message}")
            owner = event.player or ctx.player_for(actor)
            if owner != "gm":
                ctx.whisper(owner, f"Move refused: {e.message}")
        else:
            ctx.tell_gm(f"{name}'s move breaks the movement rules (kept): {e.message}")
        return
    ctx.apply(out, announce=False)


# -- commands -------------------------------------------------------------------------------------


@script.command(
    "surprise",
    role="gm",
    usage="!surprise <attacker ...> [--vs <defender ...>] [--aware <token ...>] "
    "[--unsuspecting <token ...>]",
    help="Start combat with a surprise round: the attackers ambush the defenders.",
)
def surprise(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    pos, flags = split_flags(cmd.argv, {"vs": True, "aware": True, "unsuspecting": True})
    if not pos:
        raise UsageError("Name the attackers.")
    attackers = [ctx.token(r).id for r in pos]
    if "vs" in flags:
        defenders = [ctx.token(r).id for r in str(flags["vs"]).split()]
    else:
        defenders = enemies_of(ctx, attackers[0])
    aware = [ctx.token(r).id for r in str(flags.get("aware", "")).split()]
    unsuspecting = (
        [ctx.token(r).id for r in str(flags["unsuspecting"]).split()]
        if "unsuspecting" in flags
        else None
    )
    ctx.rule(
        rsurprise.start_surprise_round, attackers, defenders, aware=aware, unsuspecting=unsuspecting
    )


@script.command(
    "move",
    usage="!move <x,y> [<x,y> ...]",
    help="Move through waypoints, checked against your movement this round.",
)
def move(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    pos, flags = split_flags(cmd.argv, {"as": True})
    if not pos:
        raise UsageError("Give at least the destination cell.")
    actor = actor_as(cmd, ctx, flags)
    cells = [parse_cell(p, ctx) for p in pos]
    start = ctx.tokens[actor].cell
    out = rmove.move(ctx.encounter, actor, cells)
    ctx.move(actor, cells[-1], path=[start, *cells])
    ctx.apply(out)


@script.command(
    "charge",
    usage="!charge <target> [--to <x,y>]",
    help="Charge in a straight line (both actions) and attack if you end adjacent.",
)
def charge(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    pos, flags = split_flags(cmd.argv, {"to": True, "as": True})
    if len(pos) != 1:
        raise UsageError()
    actor = actor_as(cmd, ctx, flags)
    target = ctx.token(pos[0]).id
    start = ctx.tokens[actor].cell
    if "to" in flags:
        end = parse_cell(str(flags["to"]), ctx)
    else:  # run straight at him and stop in the cell before his
        ray = line(start, ctx.tokens[target].cell)
        if len(ray) < 2:
            raise UsageError("You are standing on your target.")
        end = ray[-2]
    try:
        enemies = enemies_of(ctx, actor)
    except UsageError:
        enemies = []
    out = rcharge.charge(ctx.encounter, actor, [start, end], enemies=enemies, target=target)
    ctx.move(actor, end, path=[start, end])
    ctx.apply(out)


@script.choice("charge_attack")
def charge_attack_chosen(prompt: Prompt, answer: str, ctx: Context) -> None:
    actor = prompt.actor or ""
    if answer == rcharge.NO_ATTACK:
        ctx.say(f"{ctx.name(actor)} does not attack after the charge.")
        return
    horns = " --horns" if prompt.data.get("horns") else ""
    ctx.say(
        f"{ctx.name(actor)} attacks {ctx.name(answer)} at the end of the charge: roll to "
        f"hit, then !charge-attack {answer} hit|miss{horns} [--damage <dice>]."
    )


@script.command(
    "charge-attack",
    usage="!charge-attack <target> hit|miss [--horns] [--damage <dice>]",
    help="The attack ending a charge (horns: 6d6/6d10 + STR).",
)
def charge_attack(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    pos, flags = split_flags(cmd.argv, {"horns": False, "damage": True, "as": True})
    if len(pos) != 2 or pos[1].lower() not in ("hit", "miss"):
        raise UsageError()
    actor = actor_as(cmd, ctx, flags)
    target = ctx.token(pos[0]).id
    horns = bool(flags.get("horns"))
    damage = str(flags["damage"]) if "damage" in flags else None
    if not horns and damage is None and pos[1].lower() == "hit":
        raise UsageError("Give --damage <dice> (or --horns).")
    for p in ctx.prompts():
        if p.kind == "charge_attack" and p.actor == actor:
            ctx.close_prompt(p.id, "answered with !charge-attack")
    ctx.rule(
        rcharge.charge_attack,
        actor,
        target,
        hits=pos[1].lower() == "hit",
        horns=horns,
        damage=damage,
    )


@script.choice("charge_fear_check")
def fear_check_chosen(prompt: Prompt, answer: str, ctx: Context) -> None:
    ctx.rule(rcharge.charge_fear_check, prompt.data["charger"], prompt.data["targets"], answer)


@script.command(
    "jump",
    usage="!jump [gap <ft> | high <ft>] [--running]",
    help="Jump a gap or a height, or see how far you can jump.",
)
def jump(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    pos, flags = split_flags(cmd.argv, {"running": False, "as": True})
    actor = actor_as(cmd, ctx, flags)
    gap = height = None
    if pos:
        if len(pos) != 2 or pos[0].lower() not in ("gap", "high", "long"):
            raise UsageError()
        value = parse_distance(pos[1])
        if pos[0].lower() == "high":
            height = value
        else:
            gap = value
    ctx.rule(rjump.jump, actor, gap=gap, height=height, running_start=bool(flags.get("running")))


@script.command(
    "sneak",
    usage="!sneak [--enemies <a,b>] [--modifier <n>]",
    help="A sneak action: opposed Sneak vs the enemies' Perception, then sneak speed.",
)
def sneak(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    pos, flags = split_flags(cmd.argv, {"enemies": True, "modifier": True, "as": True})
    if pos:
        raise UsageError()
    actor = actor_as(cmd, ctx, flags)
    enemies = enemies_of(ctx, actor, flags.get("enemies"))
    modifier = _modifier(flags)
    ctx.rule(rsneak.sneak, actor, enemies=enemies, modifier=modifier)


@script.command(
    "hide",
    usage="!hide [--enemies <a,b>] [--modifier <n>]",
    help="Roll Sneak to hide (a free action, once per combat action).",
)
def hide(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    _, flags = split_flags(cmd.argv, {"enemies": True, "modifier": True, "as": True})
    actor = actor_as(cmd, ctx, flags)
    enemies = enemies_of(ctx, actor, flags.get("enemies"))
    modifier = _modifier(flags)
    ctx.rule(rsneak.hide, actor, enemies=enemies, modifier=modifier)


@script.command(
    "sneak-attack",
    usage="!sneak-attack <target> hit|miss --damage <dice> [--crit <x>] [--armor <n>]",
    help="An attack in the surprise round on a target caught unaware.",
)
def sneak_attack(cmd: ChatCommand, ctx: Context) -> None:
    _foe(ctx)
    pos, flags = split_flags(cmd.argv, {"damage": True, "crit": True, "armor": True, "as": True})
    if len(pos) != 2 or pos[1].lower() not in ("hit", "miss") or "damage" not in flags:
        raise UsageError()
    actor = actor_as(cmd, ctx, flags)
    crit = (
        parse_float(str(flags["crit"]), "The critical multiplier", 0, 100)
        if "crit" in flags
        else 1.0
    )
    armor = parse_int(str(flags["armor"]), "Armor", 0, MAX_MODIFIER) if "armor" in flags else 0
    ctx.rule(
        rsurprise.sneak_attack,
        actor,
        ctx.token(pos[0]).id,
        hits=pos[1].lower() == "hit",
        damage=str(flags["damage"]),
        crit_multiplier=crit,
        armor=armor,
    )


__all__ = ["enemies_of", "parse_cell", "script"]
