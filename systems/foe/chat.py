"""Fallout: Equestria built-ins: surprise round, movement, charge, jumping, sneaking.

Commands: ``!surprise``, ``!move``, ``!charge``, ``!charge-attack``, ``!jump``, ``!sneak``,
``!hide``, ``!sneak-attack``. Each spends through the rules' economy
(:mod:`vttbridge.rules.actions`); ``!help`` shows what each costs. They answer in a FoE world
only (the script names its system), and its judge of VTT moves runs there only.

A charge along a dragged path: the player drags his token (Foundry waypoints, Roll20's
``lastmove``: the path reaches the rules whole), then says ``!charge <target>``; the path he
moved this turn is judged as the charge
(:func:`vttbridge.systems.foe.rules.charge.charge_dragged`), and his moves become its two
actions. A refused charge leaves his moves as they were.

Stealth fields on ``!sneak`` / ``!hide``: ``--field <name>`` (the rules' named fields, a world's
``stealth_fields``, or ``custom`` with ``--bonus`` and ``--mfd``). A burrowing character that is
underground and has its tunnel to itself sneaks under the burrowing field without a flag
(:func:`burrow_field` says how that is known).

Token moves made in the VTT during a FoE combat are judged by the movement rules
(:func:`vttbridge.systems.foe.rules.movement.move`: the budget, whose turn it is, the surprised
sitting out) before they are applied (a ``before_move`` judge). A leg of the drag moved as a jump
(Foundry v13's ``jump`` waypoint action: ``TokenMoved.actions``) is judged by the jump rule first
(:func:`vttbridge.systems.foe.rules.jumping.jump_leg`): one too long refuses the move. A move
the rules refuse is, with the world setting ``revert_over_budget`` (on by default), never applied:
the world keeps the token where it was, the VTT is told to put it back, the GM and the player are
told why, and no trigger fires. A GM's own moves are checked and reported but kept (the GM
overrides), as are all moves with ``revert_over_budget`` off. ``check_moves`` off skips it.

Cells in commands are ``x,y`` (grid column, row); a token name stands for its cell. Enemies
default to the tokens of the opposite disposition (Foundry's hostile vs friendly); name them
with ``--enemies`` otherwise.
"""

from __future__ import annotations

import re
from typing import Any

from vttbridge.rules.actions import MOVE
from vttbridge.rules.geometry import Cell
from vttbridge.rules.numbers import MAX_CELL
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.sdk.chat.core import actor_as
from vttbridge.sdk.chat.parsing import parse_distance, parse_float, parse_int, split_flags
from vttbridge.sdk.context import Context
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import ChatCommand, TokenMoved
from vttbridge.sdk.regions import line
from vttbridge.sdk.script import Script
from vttbridge.sdk.world import Prompt
from vttbridge.systems.foe.rules import charge as rcharge
from vttbridge.systems.foe.rules import jumping as rjump
from vttbridge.systems.foe.rules import movement as rmove
from vttbridge.systems.foe.rules import sneaking as rsneak
from vttbridge.systems.foe.rules import surprise as rsurprise
from vttbridge.systems.foe.rules.economy import CHARGE, HIDE, SNEAK, SNEAK_ATTACK
from vttbridge.systems.foe.rules.state import NAME, StealthField, foe

script = Script(
    "foe", system=NAME, description="Fallout: Equestria: surprise, movement, charge, jump, sneak."
)

_CELL = re.compile(r"^\(?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\)?$")


def parse_cell(text: str, ctx: Context) -> Cell:
    """``3,4`` or ``(3, 4)`` or a token's name (its cell)."""
    m = _CELL.match(text.strip())
    if m:
        x, y = (parse_int(v, "A cell's column and row", -MAX_CELL, MAX_CELL) for v in m.groups())
        return Cell(x=x, y=y)
    return ctx.token(text).cell


MAX_MODIFIER = 1000
"""The largest modifier or armor value a chat command takes."""
MAX_MFD = 100
"""The largest MFD a chat command takes (the default ladder tops out at 3)."""


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


@script.before_move
def vtt_move(event: TokenMoved, ctx: Context) -> Outcome | None:
    """Judge a VTT move in a FoE combat before it is applied (the runtime places the token
    once this lets it through, and puts it back in the VTT when this refuses it)."""
    # runs for every token move: read the world once rather than through ctx's properties
    world = ctx.world
    enc = world.encounter
    if event.source != "vtt" or not world.settings.check_moves or not enc.in_combat:
        return None
    actor = event.token
    cb = enc.combatants.get(actor)
    in_fight = (cb is not None and not cb.out) or actor in foe(enc).surprised
    if not in_fight or event.from_cell is None or event.from_cell == event.to_cell:
        return None
    try:
        path = event.waypoints()
        jumps = _jumps(enc, actor, event, path)
        moved = rmove.move(enc, actor, path, start=event.from_cell, climb=event.climb)
        return moved if jumps is None else jumps.extend(moved)
    except RuleError as e:
        player = world.players.get(event.player or "")
        if world.settings.revert_over_budget and not (player is not None and player.role == "gm"):
            raise  # refused: the token goes back, the mover is told why
        ctx.tell_refused(
            e, f"{ctx.name(actor)}'s move breaks the movement rules (kept): {e.message}"
        )
        return None


JUMP_ACTION = "jump"
"""The movement action (Foundry v13's ``jump``) that makes a leg of a drag a jump."""


def _jumps(enc: Any, actor: str, event: TokenMoved, path: list[Cell]) -> Outcome | None:
    """Judge the legs of a drag moved as jumps
    (:func:`vttbridge.systems.foe.rules.jumping.jump_leg`), before the move is counted: the run-up
    of each is this turn's earlier moves and the path up to it. A jump beyond him refuses the whole
    move."""
    if JUMP_ACTION not in event.actions:
        return None
    out = Outcome()
    trail = list(foe(enc).trail.get(actor, []))
    for i, action in enumerate(event.actions[: len(path) - 1]):
        if action == JUMP_ACTION:
            run_up = [*trail, *path[: i + 1]]
            out.extend(rjump.jump_leg(enc, actor, run_up, path[i], path[i + 1]))
    return out


# -- commands -------------------------------------------------------------------------------------


@script.command(
    "surprise",
    role="gm",
    usage="!surprise <attacker ...> [--vs <defender ...>] [--aware <token ...>] "
    "[--unsuspecting <token ...>]",
    help="Start combat with a surprise round: the attackers ambush the defenders.",
)
def surprise(cmd: ChatCommand, ctx: Context) -> None:
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
    help="Move through waypoints, checked against your movement this round (a drag in the VTT "
    "is checked the same way; another action halves the round's movement, two moves run 3x).",
    cost=MOVE,
)
def move(cmd: ChatCommand, ctx: Context) -> None:
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
    help="Charge in a straight line of 15 ft to 3x speed and attack if you end adjacent. After "
    "a drag this turn (and nothing else), the path you dragged is judged as the charge; "
    "otherwise you run straight at the target (or --to a cell).",
    cost=CHARGE,
)
def charge(cmd: ChatCommand, ctx: Context) -> None:
    pos, flags = split_flags(cmd.argv, {"to": True, "as": True})
    if len(pos) != 1:
        raise UsageError()
    actor = actor_as(cmd, ctx, flags)
    target = ctx.token(pos[0]).id
    if "to" not in flags and _dragged(ctx, actor):
        try:
            enemies = enemies_of(ctx, actor)
        except UsageError:
            enemies = []
        ctx.rule(rcharge.charge_dragged, actor, enemies=enemies, target=target)
        return
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


def _dragged(ctx: Context, actor: str) -> bool:
    """Whether he has moved on foot this turn (a drag or !move): a charge then judges it."""
    enc = ctx.encounter
    cb = enc.combatants.get(actor)
    moved = cb is not None and enc.active == actor and rmove.MOVE in cb.actions_taken
    return moved and len(foe(enc).trail.get(actor, [])) >= 2


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
    help="The attack ending a charge (horns: 6d6/6d10 + STR); part of the charge.",
    cost="charge attack",
)
def charge_attack(cmd: ChatCommand, ctx: Context) -> None:
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
    help="Jump a gap or a height, or see how far you can jump (the flight is a move).",
    cost="jump",
)
def jump(cmd: ChatCommand, ctx: Context) -> None:
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


NO_FIELD = "none"
TUNNEL_PREFIXES = ("tunnel", "burrow", "underground")
"""A region whose name starts with one of these (any case) is a tunnel: underground."""
_FIELD_NAMES = "|".join([*rsneak.STEALTH_FIELDS, rsneak.CUSTOM_FIELD, NO_FIELD])
_FIELD_FLAGS = {"field": True, "bonus": True, "mfd": True}
_FIELD_HELP = (
    f"--field: a stealth field ({', '.join(rsneak.STEALTH_FIELDS)}: assumed +50 / 2 MFD each, "
    "!set stealth_fields to change or add; custom needs --bonus and --mfd; --bonus/--mfd also "
    "override a named one): full move speed, -25 + its bonus to Sneak, enemies' Perception "
    "stepped down by its MFD. A burrowing character underground (its underground stat, or in "
    "a region named tunnel.../burrow.../underground...) with its tunnel to itself is under a "
    "+50 / 2 MFD field by itself (--field none: not)."
)


@script.command(
    "sneak",
    usage=f"!sneak [--enemies <a,b>] [--modifier <n>] [--field {_FIELD_NAMES}] [--bonus <n>] "
    "[--mfd <m>]",
    help="A sneak action: opposed Sneak vs the enemies' Perception, then sneak speed. "
    + _FIELD_HELP,
    cost=SNEAK,
)
def sneak(cmd: ChatCommand, ctx: Context) -> None:
    pos, flags = split_flags(
        cmd.argv, {"enemies": True, "modifier": True, "as": True, **_FIELD_FLAGS}
    )
    if pos:
        raise UsageError()
    actor = actor_as(cmd, ctx, flags)
    enemies = enemies_of(ctx, actor, flags.get("enemies"))
    modifier = _modifier(flags)
    field = stealth_field_of(ctx, actor, flags)
    ctx.rule(rsneak.sneak, actor, enemies=enemies, modifier=modifier, field=field)


@script.command(
    "hide",
    usage=f"!hide [--enemies <a,b>] [--modifier <n>] [--field {_FIELD_NAMES}] [--bonus <n>] "
    "[--mfd <m>]",
    help="Roll Sneak to hide (a free action, once per combat action); without --field, under "
    "the field of this turn's sneak. " + _FIELD_HELP,
    cost=HIDE,
)
def hide(cmd: ChatCommand, ctx: Context) -> None:
    _, flags = split_flags(
        cmd.argv, {"enemies": True, "modifier": True, "as": True, **_FIELD_FLAGS}
    )
    actor = actor_as(cmd, ctx, flags)
    enemies = enemies_of(ctx, actor, flags.get("enemies"))
    modifier = _modifier(flags)
    field = stealth_field_of(ctx, actor, flags, keep_current=True)
    ctx.rule(rsneak.hide, actor, enemies=enemies, modifier=modifier, field=field)


def stealth_field_of(
    ctx: Context, actor: str, flags: dict[str, str | bool], *, keep_current: bool = False
) -> StealthField | None:
    """The stealth field a sneak or hide roll is made under: ``--field`` (with ``--bonus`` /
    ``--mfd``), else (``keep_current``) the field of his sneak this turn, else a burrow's."""
    bonus = (
        parse_int(str(flags["bonus"]), "The bonus", -MAX_MODIFIER, MAX_MODIFIER)
        if "bonus" in flags
        else None
    )
    mfd = parse_float(str(flags["mfd"]), "The MFD", 0, MAX_MFD) if "mfd" in flags else None
    name = flags.get("field")
    if name is None:
        if bonus is not None or mfd is not None:
            raise UsageError("--bonus and --mfd go with --field <name> (or --field custom).")
        current = foe(ctx.encounter).sneak.get(actor)
        if keep_current and current is not None and current.active and current.field:
            return current.field
        return burrow_field(ctx, actor)
    if str(name).lower() == NO_FIELD:
        return None
    return rsneak.stealth_field(ctx.options, str(name), bonus=bonus, mfd=mfd)


def burrow_field(ctx: Context, actor: str) -> StealthField | None:
    """The burrowing field, when ``actor`` burrows, is underground and has its tunnel to
    itself. Underground: his token stands in a tunnel region (:data:`TUNNEL_PREFIXES`), or his
    ``underground`` stat is set. His tunnel to himself: no other token in that region; by the
    stat alone, no other underground token within 5 ft (the tunnel's extent is unknown)."""
    enc = ctx.encounter
    ch = enc.characters.get(actor)
    if ch is None or not ch.burrowing:
        return None
    world = ctx.world
    me = world.tokens[actor]
    here, scene = me.cell, me.scene

    def on_scene(where: str | None) -> bool:
        return where is None or scene is None or where == scene

    others = [t for t in world.tokens.values() if t.id != actor and on_scene(t.scene)]
    tunnels = [
        r
        for n, r in world.regions.items()
        if n.lower().startswith(TUNNEL_PREFIXES) and on_scene(r.scene) and here in r
    ]
    if tunnels:
        alone = not any(t.cell in r for r in tunnels for t in others)
        return rsneak.burrowing_field(ch, underground=True, tunnel_to_itself=alone)

    def dug_in(token: str) -> bool:
        other = enc.characters.get(token)
        return other is not None and other.underground

    alone = not any(dug_in(t.id) and world.grid.adjacent(here, t.cell) for t in others)
    return rsneak.burrowing_field(ch, underground=ch.underground, tunnel_to_itself=alone)


@script.command(
    "sneak-attack",
    usage="!sneak-attack <target> hit|miss --damage <dice> [--crit <x>] [--armor <n>]",
    help="An attack in the surprise round on a target caught unaware.",
    cost=SNEAK_ATTACK,
)
def sneak_attack(cmd: ChatCommand, ctx: Context) -> None:
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


__all__ = ["burrow_field", "enemies_of", "parse_cell", "script", "stealth_field_of"]
