"""CHAAARGE! (Fallout: Equestria): a run in a straight line, then a melee or unarmed attack.

A charge takes both of a character's actions, so only a turn with both unspent may charge, and
nothing else follows it. The path must be straight, at least 15 ft and at most a run (3x speed).
Ending within 5 ft of an enemy allows the follow-up attack (:func:`charge_attack`, offered as a
``charge_attack`` Choice); ending out of reach spends both actions with no attack.

Two ways to charge: :func:`charge` runs along a path it is given (``!charge`` draws a straight
line at the target), and :func:`charge_dragged` declares what he has already moved this turn a
charge (a player drags his token along a path in the VTT, then says ``!charge <target>``). The
dragged path is judged whole, as the VTT reported it (Foundry waypoints, Roll20 ``lastmove``):
an L-shaped drag is no charge. Moves are the only thing he may have done; they become the
charge's two actions (:mod:`vttbridge.rules.actions`). A refused declaration changes nothing: his
moves stand as moves.

Horns: a horn attack at the end of a charge deals +3d6, so a one-horn charge deals 6d6 + STR; a
two-horned charger (minotaur, buffalo) deals 6d10 + STR instead.

⚙ ``charge_fear_check``: a suitably ferocious battle cry or a frightening charger may provoke a
fear check in the intended target and its allies. Whether it does is the GM's call, so the
charge returns a ``charge_fear_check`` Choice for the GM (``actor`` ``"gm"``), answered through
:func:`charge_fear_check`; the fear check itself is rolled under the FoE fear rules, outside
these seeds.
"""

from __future__ import annotations

from collections.abc import Sequence

from vttbridge.rules import actions
from vttbridge.rules.characters import Character
from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import Combatant, Encounter, require_turn
from vttbridge.rules.geometry import Cell, is_straight
from vttbridge.rules.outcome import Choice, Outcome, RuleError
from vttbridge.systems.foe.rules.economy import CHARGE
from vttbridge.systems.foe.rules.movement import MOVE, RUN_MULTIPLIER
from vttbridge.systems.foe.rules.options import options
from vttbridge.systems.foe.rules.state import foe
from vttbridge.systems.foe.rules.turns import (
    add_to_trail,
    fmt,
    full_path,
    require_foe,
    require_not_surprised,
)

CHARGE_MIN_FT = 15.0
"""A charge needs at least 15 ft of straight line."""
HORN_CHARGE_BONUS = "3d6"
FEAR_CHECK = "fear_check"
NO_FEAR_CHECK = "no_fear_check"
NO_ATTACK = "no_attack"


def horn_charge_damage(ch: Character) -> str | None:
    """The damage expression of a horn attack ending a charge: one horn 6d6 + STR (the horn's
    3d6 plus the charge's 3d6), two horns 6d10 + STR; None without horns."""
    dice = {1: "6d6", 2: "6d10"}.get(ch.horns)
    if dice is None:
        return None
    return f"{dice}+{ch.strength}" if ch.strength >= 0 else f"{dice}{ch.strength}"


def charge(
    enc: Encounter,
    actor: str,
    path: Sequence[Cell],
    *,
    enemies: Sequence[str] = (),
    target: str | None = None,
) -> Outcome:
    """Charge along ``path`` (straight, 15 ft to 3x speed) on his turn, with both actions.

    ``enemies`` are the hostile characters present (the intended target's side); ``target`` is
    the one he charges at, if he names one. The attack is allowed when he ends within 5 ft of
    any of them."""
    require_foe(enc)
    ch = enc.character(actor)
    require_not_surprised(enc, actor)
    cb = require_turn(enc, actor)
    foes = _foes(enc, actor, enemies, target)
    _both_actions(enc, actor)
    if cb.actions_taken or cb.half_actions < 2:
        raise RuleError(
            "charge_needs_both_actions",
            f"A charge takes both actions; {ch.display} has already spent "
            f"{_spent(cb)} this turn ({actions.left(enc, actor)}).",
            taken=list(cb.actions_taken),
        )
    cells = full_path(enc, actor, path)
    length = _judge_path(enc, actor, cells)
    actions.check(enc, actor, CHARGE)

    actions.take(enc, actor, CHARGE)
    cb.moved_ft += length
    enc.positions[actor] = cells[-1]
    add_to_trail(enc, actor, cells)
    return _charged(enc, actor, length, foes, target)


def charge_dragged(
    enc: Encounter,
    actor: str,
    *,
    enemies: Sequence[str] = (),
    target: str | None = None,
) -> Outcome:
    """Declare what ``actor`` moved on foot this turn (his drags, ``FoEState.trail``) a charge:
    the path is judged as :func:`charge` judges its own (straight, 15 ft to 3x speed), and
    his moves, the only actions he may have taken, become the charge's two actions. Raises
    ``no_drag`` when he has not moved this turn, and what :func:`charge` raises; a refusal
    changes nothing (his moves stand)."""
    require_foe(enc)
    ch = enc.character(actor)
    require_not_surprised(enc, actor)
    cb = require_turn(enc, actor)
    foes = _foes(enc, actor, enemies, target)
    trail = foe(enc).trail.get(actor, [])
    if len(trail) < 2 or MOVE not in cb.actions_taken:
        raise RuleError(
            "no_drag",
            f"{ch.display} has not moved on foot this turn: drag the token along the charge, "
            "or give no drag and let !charge run straight at the target.",
        )
    _both_actions(enc, actor)
    others = [a for a in cb.actions_taken if a != MOVE]
    if others:
        raise RuleError(
            "charge_needs_both_actions",
            f"A charge takes both actions; {ch.display} has already spent {_spent(cb)} this "
            f"turn ({actions.left(enc, actor)}).",
            taken=list(cb.actions_taken),
        )
    length = _judge_path(enc, actor, trail)
    actions.check(enc, actor, CHARGE)

    actions.take(enc, actor, CHARGE)  # his moves become the charge's actions
    return _charged(enc, actor, length, foes, target, dragged=True)


def _foes(enc: Encounter, actor: str, enemies: Sequence[str], target: str | None) -> list[str]:
    foes = list(dict.fromkeys([*([target] if target else []), *enemies]))
    for e in foes:
        enc.character(e)
        if e == actor:
            raise RuleError("bad_argument", f"{enc.name(actor)} cannot charge at himself.")
        if e not in enc.positions:
            raise RuleError("no_position", f"{enc.name(e)} has no position on the map.")
    return foes


def _both_actions(enc: Encounter, actor: str) -> None:
    if enc.turn_budget < 2:
        raise RuleError(
            "charge_needs_both_actions",
            f"A charge takes both actions; {enc.name(actor)} has one in the surprise round.",
        )


def _spent(cb: Combatant) -> str:
    return ", ".join(dict.fromkeys(cb.actions_taken)) or "an action"


def _judge_path(enc: Encounter, actor: str, cells: Sequence[Cell]) -> float:
    """The charge's length along ``cells``; raises unless straight, 15 ft to a run."""
    ch = enc.character(actor)
    length = enc.grid.path_length(cells)
    if not is_straight(cells):
        raise RuleError(
            "charge_not_straight", f"{ch.display}'s charge must run in a straight line."
        )
    if length < CHARGE_MIN_FT:
        raise RuleError(
            "charge_too_short",
            f"A charge needs at least {fmt(CHARGE_MIN_FT)} ft in a straight line; that path is "
            f"{fmt(length)} ft.",
            length=length,
            minimum=CHARGE_MIN_FT,
        )
    run = RUN_MULTIPLIER * ch.move
    if length > run:
        raise RuleError(
            "over_budget",
            f"{ch.display} can charge at most {fmt(run)} ft (a run, 3 x {fmt(ch.move)} ft); that "
            f"path is {fmt(length)} ft.",
            allowed=run,
            length=length,
        )
    return length


def _charged(
    enc: Encounter,
    actor: str,
    length: float,
    foes: list[str],
    target: str | None,
    *,
    dragged: bool = False,
) -> Outcome:
    """What a charge that ended where he stands offers: the attack, the GM's fear check."""
    ch = enc.character(actor)
    end = enc.positions[actor]
    reach = [e for e in foes if enc.grid.adjacent(end, enc.positions[e])]
    out = Outcome()
    out.add(
        "charged",
        actor,
        f"{ch.display} charges {fmt(length)} ft!",
        distance=length,
        target=target,
        in_reach=reach,
        dragged=dragged,
    )
    if reach:
        foe(enc).charge_reach[actor] = reach
        names = ", ".join(enc.name(e) for e in reach)
        out.add(
            "charge_attack_ready",
            actor,
            f"{ch.display} ends the charge next to {names} and may attack.",
            in_reach=reach,
        )
        out.choices.append(
            Choice(
                id=f"charge_attack:{actor}:{enc.round}",
                kind="charge_attack",
                actor=actor,
                question=f"Whom does {ch.display} attack at the end of the charge?",
                options=[*reach, NO_ATTACK],
                default=NO_ATTACK,
                data={"horns": ch.horns, "horn_damage": horn_charge_damage(ch)},
            )
        )
    else:
        out.add(
            "charge_no_attack",
            actor,
            f"{ch.display} ends the charge out of reach: both actions spent, no attack.",
        )
    if options(enc).charge_fear_check and foes:
        intended = target or (reach[0] if reach else foes[0])
        subjects = [intended, *(e for e in foes if e != intended)]
        out.add(
            "charge_fear_check_offered",
            actor,
            f"GM: does {ch.display}'s battle cry provoke a fear check?",
            targets=subjects,
        )
        out.choices.append(
            Choice(
                id=f"charge_fear_check:{actor}:{enc.round}",
                kind="charge_fear_check",
                actor="gm",
                question=(
                    f"Does {ch.display}'s battle cry (or frightening look) provoke a fear check "
                    f"in {enc.name(intended)} and its allies?"
                ),
                options=[FEAR_CHECK, NO_FEAR_CHECK],
                default=NO_FEAR_CHECK,
                data={"charger": actor, "targets": subjects},
            )
        )
    return out


def charge_attack(
    enc: Encounter,
    actor: str,
    target: str,
    roller: Roller,
    *,
    hits: bool,
    horns: bool = False,
    damage: str | int | None = None,
) -> Outcome:
    """The attack that ends a charge, against an enemy within 5 ft of where it ended.

    ``hits`` is the attack roll's result (made under the FoE attack rules). With ``horns`` the
    damage is :func:`horn_charge_damage`; otherwise ``damage`` is the weapon's (or unarmed)
    damage expression. Damage is rolled only on a hit."""
    require_foe(enc)
    ch = enc.character(actor)
    require_turn(enc, actor)
    reach = foe(enc).charge_reach.get(actor)
    if not reach:
        raise RuleError(
            "no_charge_attack",
            f"{ch.display} has no charge attack: he has not charged within 5 ft of an enemy "
            "this turn (or already attacked).",
        )
    if target not in reach:
        raise RuleError(
            "out_of_reach",
            f"{enc.name(target)} is not within 5 ft of the end of {ch.display}'s charge.",
            in_reach=reach,
        )
    expr: str | int | None = damage
    if horns:
        expr = horn_charge_damage(ch)
        if expr is None:
            raise RuleError("no_horns", f"{ch.display} has no horns to charge with.")
        if damage is not None:
            raise RuleError("bad_argument", "A horn charge's damage is set by the horns.")
    elif hits and damage is None:
        raise RuleError("bad_argument", "Give the weapon's damage for the charge attack.")

    out = Outcome()
    total = 0
    if hits and expr is not None:  # always set on a hit, by the checks above
        roll = roller.roll(expr, reason=f"charge damage for {ch.display}")
        out.rolls.append(roll)
        total = roll.total
    del foe(enc).charge_reach[actor]
    with_what = "horns" if horns else "attack"
    text = (
        f"{ch.display}'s charging {with_what} hits {enc.name(target)} for {total} damage."
        if hits
        else f"{ch.display}'s charging {with_what} misses {enc.name(target)}."
    )
    out.add("charge_attack", actor, text, target=target, hits=hits, damage=total, horns=horns)
    return out


def charge_fear_check(enc: Encounter, charger: str, targets: Sequence[str], answer: str) -> Outcome:
    """The GM's answer to the ``charge_fear_check`` Choice: with ``fear_check`` each of
    ``targets`` (the intended target and its allies) must make a fear check."""
    require_foe(enc)
    enc.character(charger)
    for t in targets:
        enc.character(t)
    if answer not in (FEAR_CHECK, NO_FEAR_CHECK):
        raise RuleError(
            "bad_answer", f"Answer {FEAR_CHECK!r} or {NO_FEAR_CHECK!r}, not {answer!r}."
        )
    out = Outcome()
    if answer == NO_FEAR_CHECK:
        out.add("no_fear_check", charger, f"{enc.name(charger)}'s charge provokes no fear check.")
        return out
    for t in targets:
        out.add(
            "fear_check",
            t,
            f"{enc.name(t)} must make a fear check against {enc.name(charger)}'s charge.",
            charger=charger,
        )
    return out
