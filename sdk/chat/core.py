"""Core built-ins: combat flow every game system shares, stats, options, prompts and help.

Commands: ``!init``, ``!next``, ``!end``, ``!stats``, ``!set``, ``!answer``, ``!help``,
``!attack``, ``!do``, ``!why``; a system adds its own (:mod:`vttbridge.sdk.systems`). Listeners
keep the rules' turn order and the VTT's combat tracker in step: a combat started, advanced or
edited in the VTT is applied to the rules, while the runtime's own changes (echoed back by the
VTT) are recognised and ignored.

Decisions where the source texts are silent:

- ``!init`` with no names starts a combat with every visible token of the active scene; with
  names, those tokens. During a combat, ``!init <names>`` adds them (they roll initiative).
- ``!next`` may be given by the GM or by the player of the token whose turn it is.
- A turn started in the VTT advances the rules by one turn; the rules stay authoritative for
  the order (sliding Initiative Counts), and the effects bring the VTT back in line.
- A combat shown in a snapshot while the rules have none is adopted as shown (its ICs, round
  and active token), without rolling or running turn-start rules.
"""

from __future__ import annotations

from collections.abc import Mapping

from vttbridge.rules import actions
from vttbridge.rules import encounter as rules_enc
from vttbridge.rules.outcome import Outcome
from vttbridge.sdk.chat.parsing import key_values, parse_value
from vttbridge.sdk.context import Context
from vttbridge.sdk.errors import UsageError
from vttbridge.sdk.events import (
    ActionDeclared,
    ChatCommand,
    CombatantRemoved,
    CombatEnded,
    CombatStarted,
    InitiativeChanged,
    SceneSnapshot,
    TurnStarted,
)
from vttbridge.sdk.script import ROLE_RANK, CommandHandler, Script

script = Script("core", description="Combat flow, stats, options, prompts and help.")


# -- helpers shared by the other built-ins ------------------------------------------------------


def actor_of(cmd: ChatCommand, ctx: Context, ref: str | None = None) -> str:
    """The token a command acts for: ``ref`` (GM, or a token the player owns) or the token
    the player speaks as."""
    if ref is not None:
        tok = ctx.token(ref)
    elif cmd.token is not None:
        tok = ctx.token(cmd.token)
    else:
        owned = [t for t in ctx.tokens.values() if cmd.player and cmd.player in t.owners]
        if len(owned) != 1:
            raise UsageError("Speak as your token (select it) to use this command.")
        tok = owned[0]
    if not ctx.world.may_control(cmd.player, cmd.role, tok.id):
        raise UsageError(f"You do not control {tok.display}.")
    return tok.id


def actor_as(cmd: ChatCommand, ctx: Context, flags: Mapping[str, object]) -> str:
    """:func:`actor_of` for a command that takes ``--as <token>``."""
    return actor_of(cmd, ctx, str(flags["as"]) if "as" in flags else None)


# -- combat ---------------------------------------------------------------------------------------


@script.command(
    "init",
    usage="!init [token ...]",
    role="gm",
    help="Start a combat (all visible tokens, or those named); mid-combat, add them.",
)
def init(cmd: ChatCommand, ctx: Context) -> None:
    enc = ctx.encounter
    refs = cmd.argv
    if refs:
        ids = [ctx.token(r).id for r in refs]
    else:
        scene = ctx.world.active_scene
        ids = [
            t.id
            for t in ctx.tokens.values()
            if not t.hidden and (scene is None or t.scene in (None, scene))
        ]
    if not ids:
        raise UsageError("There are no tokens to put in a combat.")
    if enc.in_combat:
        ctx.rule(rules_enc.join_combat, ids)
    else:
        ctx.rule(rules_enc.start_combat, ids)


@script.command("end", usage="!end", role="gm", aliases=["endcombat"], help="End the combat.")
def end(cmd: ChatCommand, ctx: Context) -> None:
    if not ctx.encounter.in_combat:
        raise UsageError("There is no combat running.")
    ctx.rule(rules_enc.end_combat)


@script.command("next", usage="!next", help="End the current turn; the next one starts.")
def next_(cmd: ChatCommand, ctx: Context) -> None:
    enc = ctx.encounter
    if not enc.in_combat:
        raise UsageError("There is no combat running.")
    if cmd.role != "gm" and not (
        enc.active and ctx.world.may_control(cmd.player, cmd.role, enc.active)
    ):
        raise UsageError("Only the GM or the player whose turn it is may end the turn.")
    ctx.rule(rules_enc.next_turn)


@script.command(
    "attack",
    usage="!attack <target>",
    help="Declare an attack; a stand off may answer it.",
    cost=actions.ATTACK,
)
def attack(cmd: ChatCommand, ctx: Context) -> None:
    args = cmd.argv
    if len(args) != 1:
        raise UsageError()
    actor = actor_of(cmd, ctx)
    target = ctx.token(args[0]).id
    if target == actor:
        raise UsageError("Attack someone else.")
    ctx.say(f"{ctx.name(actor)} attacks {ctx.name(target)}.")
    ctx.emit_event(
        ActionDeclared(
            token=actor, action="attack", target=target, phase="attempt", player=cmd.player
        )
    )


DO_COSTS = ("half", "full", "free")
DO_DEFAULT_COST = "half"


@script.command(
    "do",
    usage="!do <action> [--target <token>] [--done] [--cost half|full|free]",
    help="Declare that you attempt an action (or --done: complete it); Ready actions watching "
    "it may fire. In combat it costs a half action (1 action where a turn has two) unless "
    "--cost says otherwise (full: both); completing an action attempted this turn is free.",
)
def do(cmd: ChatCommand, ctx: Context) -> None:
    from vttbridge.sdk.chat.parsing import split_flags

    pos, flags = split_flags(cmd.argv, {"target": True, "done": False, "cost": True})
    if not pos:
        raise UsageError()
    actor = actor_of(cmd, ctx)
    target = ctx.token(str(flags["target"])).id if "target" in flags else None
    action = " ".join(pos).lower()
    phase = "completion" if flags.get("done") else "attempt"
    cost = _do_cost(str(flags.get("cost", DO_DEFAULT_COST)))
    cb = ctx.encounter.combatants.get(actor)
    paid = phase == "completion" and cb is not None and action in cb.actions_taken
    if not paid:
        ctx.spend(actor, cost, what=action)
    verb = "completes" if phase == "completion" else "attempts"
    ctx.say(f"{ctx.name(actor)} {verb}: {action}.")
    ctx.emit_event(
        ActionDeclared(token=actor, action=action, target=target, phase=phase, player=cmd.player)
    )


def _do_cost(text: str) -> str:
    cost = text.strip().lower()
    cost = actions.ALIASES.get(cost, cost)
    if cost not in DO_COSTS:
        raise UsageError(f"--cost is half, full or free (or action, both), not {text!r}.")
    return cost


# -- the VTT's combat tracker ---------------------------------------------------------------------


@script.on(CombatStarted)
def vtt_combat_started(event: CombatStarted, ctx: Context) -> None:
    if event.source != "vtt" or ctx.encounter.in_combat:
        return
    ids = list(dict.fromkeys([*event.tokens, *event.initiative]))
    if ids:
        ctx.rule(rules_enc.start_combat, ids, ics=dict(event.initiative))


@script.on(CombatEnded)
def vtt_combat_ended(event: CombatEnded, ctx: Context) -> None:
    if event.source == "vtt" and ctx.encounter.in_combat:
        ctx.rule(rules_enc.end_combat)


@script.on(TurnStarted)
def vtt_turn_started(event: TurnStarted, ctx: Context) -> None:
    enc = ctx.encounter
    if event.source != "vtt" or not enc.in_combat:
        return
    if event.skipped is not None:
        ctx.say(
            f"The VTT gave the turn to {event.skipped}, whose token is not on the scene: "
            "the rules skip that combatant.",
            whisper_to="gm",
        )
    if event.token == enc.active and event.round in (None, enc.round):
        return  # the VTT echoing our own AdvanceTurn
    ctx.rule(rules_enc.next_turn)


@script.on(InitiativeChanged)
def vtt_initiative_changed(event: InitiativeChanged, ctx: Context) -> None:
    enc = ctx.encounter
    if event.source != "vtt":
        return
    cb = enc.combatants.get(event.token)
    if cb is None or cb.out:
        if enc.in_combat:  # the GM added him to the VTT's tracker mid-fight: he joins
            ics = {event.token: event.ic}
            ctx.apply(rules_enc.join_combat(enc, [event.token], ctx.roller, ics))
        return
    if cb.ic == event.ic:
        return  # an echo of our own SetInitiative
    out = Outcome()
    rules_enc.set_ic(enc, event.token, event.ic, "set by the GM", out)
    ctx.apply(out)


@script.on(CombatantRemoved)
def vtt_combatant_removed(event: CombatantRemoved, ctx: Context) -> None:
    cb = ctx.encounter.combatants.get(event.token)
    if event.source != "vtt" or cb is None or cb.out:
        return  # not in the order (already out, or the combat ended first)
    ctx.apply(rules_enc.leave_combat(ctx.encounter, event.token))


@script.on(SceneSnapshot)
def vtt_snapshot_combat(event: SceneSnapshot, ctx: Context) -> None:
    enc, combat = ctx.encounter, event.combat
    if combat is None or enc.in_combat:
        return
    ids = [t for t in combat.initiative if t in ctx.tokens]
    if not ids:
        return
    ics = {t: ic for t, ic in combat.initiative.items() if ic is not None and t in ctx.tokens}
    out = rules_enc.join_combat(enc, ids, ctx.roller, ics)
    enc.round = max(1, combat.round)
    order = enc.order()
    active = combat.active if combat.active in order else order[0]
    for cid in order[: order.index(active)]:
        enc.combatants[cid].acted = True
    enc.active, enc.count = active, enc.combatants[active].ic
    enc.combatants[active].half_actions = enc.turn_budget
    out.add(
        "combat_adopted",
        None,
        f"Combat adopted from the VTT: round {enc.round}, {ctx.name(active)}'s turn.",
    )
    ctx.apply(out)


# -- stats, options, prompts, help --------------------------------------------------------------


@script.command(
    "stats",
    usage="!stats [token] [name=value ...]",
    help="Show a character's stats, or set them (e.g. !stats reflex=5 bab=3).",
)
def stats(cmd: ChatCommand, ctx: Context) -> None:
    args = cmd.argv
    ref = args[0] if args and "=" not in args[0] else None
    pairs = key_values(args[1:] if ref else args)
    actor = actor_of(cmd, ctx, ref)
    if pairs:
        ch = ctx.set_stats(actor, **pairs)
        shown = ", ".join(f"{k}={getattr(ch, k)}" for k in pairs)
        ctx.reply(f"{ch.display}: {shown}.")
        return
    ch = ctx.character(actor)
    fields = ctx.encounter.system.stats
    conds = f"; conditions: {', '.join(sorted(ch.conditions))}" if ch.conditions else ""
    ctx.reply(f"{ch.display}: " + ", ".join(f"{k}={getattr(ch, k)}" for k in fields) + conds)


@script.command(
    "set",
    usage="!set [option] [value]",
    role="gm",
    help="Show or change a world option (rules ⚙ options and runtime settings).",
)
def set_option(cmd: ChatCommand, ctx: Context) -> None:
    args = cmd.argv
    shown = {**ctx.options.shown(), **ctx.settings.model_dump(mode="json")}
    if not args:
        ctx.reply("Options:\n" + "\n".join(f"{k} = {v}" for k, v in shown.items()))
        return
    name = args[0].lower().replace("-", "_")
    if len(args) == 1:
        if name in shown:
            ctx.reply(f"{name} = {shown[name]}")
            return
        raise UsageError(f"No option {name!r}.")
    value = parse_value(" ".join(args[1:]))
    ctx.set_option(name, value)
    ctx.say(f"Option {name} set to {value}.", whisper_to="gm")


@script.command(
    "answer",
    usage="!answer [prompt] <option>",
    help="Answer a question the rules or a script asked you.",
)
def answer(cmd: ChatCommand, ctx: Context) -> None:
    args = cmd.argv
    if len(args) == 2:
        pid, option = args
    elif len(args) == 1:
        mine = [
            p
            for p in ctx.prompts()
            if p.player == (cmd.player or "gm") or (cmd.role == "gm" and p.player == "gm")
        ]
        if len(mine) != 1:
            raise UsageError(
                "Say which question: "
                + (", ".join(p.id for p in mine) or "none")
                + " pending for you."
            )
        pid, option = mine[0].id, args[0]
    else:
        raise UsageError()
    chosen = ctx.answer(pid, option, player=cmd.player, role=cmd.role)
    ctx.reply(f"Answered {pid}: {chosen}.")


@script.command(
    "why",
    usage="!why [player|token]",
    role="observer",
    help="Explain the last refusal you were told of: the rule, its sentence, the numbers, the "
    "option (the GM: the last of all, or a player's or token's).",
)
def why(cmd: ChatCommand, ctx: Context) -> None:
    if cmd.argv:
        if cmd.role != "gm":
            raise UsageError("Only the GM may ask about another's refusal.")
        who = _whose(ctx, " ".join(cmd.argv))
        refusal = ctx.last_refusal(who)
        nobody = f"Nothing has been refused to {' '.join(cmd.argv)} since the world was loaded."
    else:
        refusal = ctx.last_refusal(None if cmd.role == "gm" else cmd.player or "gm")
        nobody = "Nothing has been refused to you since the world was loaded."
    ctx.reply(refusal.explained() if refusal is not None else nobody)


def _whose(ctx: Context, ref: str) -> str:
    """The player id ``ref`` names: a player (id or name, any case), or the player of a token."""
    world = ctx.world
    low = ref.lower()
    if low == "gm":
        return "gm"
    for p in world.players.values():
        if low in (p.id.lower(), p.name.lower()):
            return p.id
    return world.player_for(ctx.token(ref).id)


@script.command(
    "help", usage="!help [command]", role="observer", help="List the commands, or show one's usage."
)
def help_(cmd: ChatCommand, ctx: Context) -> None:
    commands = ctx.commands()
    if cmd.argv:
        name = cmd.argv[0].lower().lstrip("!")
        c = commands.get(name)
        if c is None:
            raise UsageError(f"No command !{name}.")
        ctx.reply(_help_line(c, ctx.options.system))
        return
    rank = ROLE_RANK.get(cmd.role, 0)
    seen = []
    for c in commands.values():
        system = c.script.system
        if c not in seen and ROLE_RANK[c.role] <= rank and system in (None, ctx.options.system):
            seen.append(c)
    lines = [_help_line(c, ctx.options.system) for c in sorted(seen, key=lambda c: c.name)]
    ctx.reply("Commands:\n" + "\n".join(lines))


def _help_line(c: CommandHandler, system: str) -> str:
    """``usage — help [cost]``: the cost in the world's system, from the rules' economy."""
    line = f"{c.usage} — {c.help}".rstrip()
    if c.cost is not None and actions.known(system, c.cost):
        line += f" [{actions.describe(system, c.cost)}]"
    return line
