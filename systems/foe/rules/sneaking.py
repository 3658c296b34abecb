"""Sneaking in combat (FoE): sneak speed, the opposed Sneak roll, hiding, holding a dodge or
block, stealth fields, burrowing, and the weight penalty.

* Sneak speed: half the move speed per combat action, rounded down to 5 ft; the text also gives
  the base as 5 x floor(AGI / 4) (⚙ ``sneak_speed_formula``: ``half_move`` by default, or
  ``agility``). Two sneak actions may cover less than one plain move.
* A sneak action (:func:`sneak`) costs an action: an opposed roll of his Sneak against each
  enemy present's Perception (d100 roll-under, :mod:`vttbridge.systems.foe.rules.checks`),
  then, detected or not, the rest of the action moving up to his sneak speed (his drags go through
  :func:`vttbridge.systems.foe.rules.movement.move`), or forfeiting that movement to hold a
  dodge or block (:func:`hold_defense`). Rolling Sneak to hide (:func:`hide`) is a free action, once
  per combat action: at most one roll per action of the round, the sneak action's own roll
  included. Moving at sneak speed keeps his latest roll standing.
* An enemy notices him only by winning the opposed roll; a tie leaves him unnoticed.
* Stealth fields (invisibility spell, stealthbuck, zebra cloak): sneak at full move speed, -25
  to the sneak roll, plus the field's constant bonus. Enemies take the field's MFD on their
  Perception (⚙ ``mfd_penalty``: MFD steps down the ladder, or a divisor), and the sneaker's own
  penalties (weight, and any negative ``modifier``) become bonuses to their Perception instead
  of penalties to his Sneak. The field's own -25 stays on the sneak roll.
* Named fields (:func:`stealth_field`): the text names the invisibility spell, the stealthbuck
  and the zebra (invisibility) cloak but gives none of their bonuses. [assumed] Each defaults
  to +50 / 2 MFD, the one field the text does quantify (a burrow), magical; a world overrides
  them, or adds its own, with ⚙ ``stealth_fields``, and a sneak can give its own numbers.
* A burrowing creature fully underground, alone in its tunnel, counts as a +50 sneak / 2 MFD
  non-magical stealth field (:func:`burrowing_field`); the field rules above apply to it
  whole (full speed, -25 + 50).
* Weight: from 50, -5 to Sneak for every 10 macs over 50, rounded up.

Outside a combat (or for someone not in its turn order) the rolls are made with no action spent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from vttbridge.rules import actions
from vttbridge.rules.characters import Character
from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import Encounter, require_turn
from vttbridge.rules.options import Options
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.systems.foe.rules.checks import opposed, roll_check
from vttbridge.systems.foe.rules.economy import HIDE, SNEAK
from vttbridge.systems.foe.rules.mfd import penalised, target
from vttbridge.systems.foe.rules.options import FoEOptions
from vttbridge.systems.foe.rules.state import SneakState, StealthField, foe
from vttbridge.systems.foe.rules.turns import fighting, fmt, require_foe, require_not_surprised

STEALTH_FIELD_PENALTY = -25
WEIGHT_FREE = 50
WEIGHT_STEP = 10
WEIGHT_PENALTY_PER_STEP = -5
BURROWING = StealthField(name="the ground", sneak_bonus=50, mfd=2, magical=False)
"""What a burrowing creature fully underground, alone in its tunnel, counts as."""
STEALTH_FIELDS = {
    "invisibility": StealthField(name="an invisibility spell", sneak_bonus=50, mfd=2),
    "stealthbuck": StealthField(name="a stealthbuck", sneak_bonus=50, mfd=2),
    "zebra-cloak": StealthField(name="a zebra cloak", sneak_bonus=50, mfd=2),
}
"""The fields the text names, by the name a command gives. [assumed] numbers: see above."""
FIELD_ALIASES = {
    "invisibilityspell": "invisibility",
    "invisible": "invisibility",
    "stealthbuck": "stealthbuck",
    "zebracloak": "zebra-cloak",
    "zebrainvisibilitycloak": "zebra-cloak",
    "cloak": "zebra-cloak",
}
CUSTOM_FIELD = "custom"


def _field_key(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def stealth_fields(options: Options) -> dict[str, StealthField]:
    """The named fields of a world: the built-in ones, with ⚙ ``stealth_fields`` over them."""
    fields = dict(STEALTH_FIELDS)
    for name, stats in options.of(FoEOptions).stealth_fields.items():
        fields[name] = StealthField(
            name=name, sneak_bonus=stats.bonus, mfd=stats.mfd, magical=stats.magical
        )
    return fields


def stealth_field(
    options: Options, name: str, *, bonus: int | None = None, mfd: float | None = None
) -> StealthField:
    """The stealth field called ``name`` (a built-in, an alias such as ``zebra cloak``, or one
    of ⚙ ``stealth_fields``); ``bonus``/``mfd`` replace its numbers for this roll. ``custom``
    is a field of exactly ``bonus`` and ``mfd`` (both needed). Raises ``unknown_field``."""
    if mfd is not None and mfd <= 0:
        raise RuleError("bad_argument", f"A stealth field's MFD must be positive, not {mfd:g}.")
    key = _field_key(name)
    if key == CUSTOM_FIELD:
        if bonus is None or mfd is None:
            raise RuleError(
                "bad_argument", "A custom stealth field needs both its bonus and its MFD."
            )
        return StealthField(name="a stealth field", sneak_bonus=bonus, mfd=mfd)
    fields = stealth_fields(options)
    by_key = {_field_key(n): f for n, f in fields.items()}
    found = by_key.get(key) or fields.get(FIELD_ALIASES.get(key, ""))
    if found is None:
        known = ", ".join(sorted(fields))
        raise RuleError(
            "unknown_field",
            f"No stealth field {name!r} (known: {known}; or custom with a bonus and an MFD).",
        )
    if bonus is None and mfd is None:
        return found
    return found.model_copy(
        update={
            "sneak_bonus": found.sneak_bonus if bonus is None else bonus,
            "mfd": found.mfd if mfd is None else mfd,
        }
    )


def weight_penalty(weight: float) -> int:
    """-5 to Sneak per 10 macs over 50, rounded up: 50 -> 0, 51 -> -5, 60 -> -5, 61 -> -10."""
    over = max(0.0, weight - WEIGHT_FREE)
    return WEIGHT_PENALTY_PER_STEP * math.ceil(over / WEIGHT_STEP - 1e-9)


def sneak_speed_half_move(move: float) -> float:
    """Half the move speed, rounded down to 5 ft."""
    return float(math.floor(move / 2 / 5) * 5)


def sneak_speed_agility(agility: int) -> float:
    """The text's base sneak speed: 5 x floor(AGI / 4) ft."""
    return float(5 * math.floor(agility / 4))


def sneak_speed(ch: Character, options: Options, field: StealthField | None = None) -> float:
    """Feet per sneak action: full move speed under a stealth field, else by the ⚙ formula."""
    if field is not None:
        return ch.move
    if options.of(FoEOptions).sneak_speed_formula == "agility":
        return sneak_speed_agility(ch.agility)
    return sneak_speed_half_move(ch.move)


def burrowing_field(
    ch: Character, *, underground: bool, tunnel_to_itself: bool
) -> StealthField | None:
    """The burrowing stealth field, when ``ch`` burrows, is fully underground and no other
    creature occupies its tunnel; otherwise None."""
    if ch.burrowing and underground and tunnel_to_itself:
        return BURROWING
    return None


def _sneak_roll(
    enc: Encounter,
    actor: str,
    enemies: Sequence[str],
    roller: Roller,
    *,
    field: StealthField | None,
    modifier: int,
    mfd: float,
    perception_mfd: float,
) -> tuple[Outcome, list[str]]:
    """The opposed roll: one Sneak roll against a Perception roll from each enemy. Returns the
    outcome and the enemies he stays hidden from."""
    ch = enc.character(actor)
    opts = enc.options.of(FoEOptions)
    penalties = weight_penalty(ch.weight) + min(modifier, 0)
    bonuses = max(modifier, 0)
    if field is not None:
        sneak_mod = bonuses + STEALTH_FIELD_PENALTY + field.sneak_bonus
        per_mod = -penalties
        per_mfd = penalised(perception_mfd, field.mfd, opts.mfd_penalty, opts.mfd_ladder)
    else:
        sneak_mod = bonuses + penalties
        per_mod = 0
        per_mfd = perception_mfd
    out = Outcome()
    sneak_target = target(ch.sneak_skill, sneak_mod, mfd)
    mine, roll = roll_check(roller, sneak_target, reason=f"Sneak for {ch.display}")
    out.rolls.append(roll)
    verdict = "succeeds" if mine.success else "fails"
    out.add(
        "sneak_rolled",
        actor,
        f"{ch.display} rolls Sneak: {mine.roll} against {sneak_target} — {verdict}.",
        roll=mine.roll,
        target=sneak_target,
        success=mine.success,
        field=field.name if field else None,
    )
    hidden: list[str] = []
    for e in enemies:
        foe = enc.character(e)
        per_target = target(foe.perception_skill, per_mod, per_mfd)
        theirs, roll = roll_check(roller, per_target, reason=f"Perception for {foe.display}")
        out.rolls.append(roll)
        noticed = opposed(mine, theirs) == "b"
        if not noticed:
            hidden.append(e)
        out.add(
            "noticed" if noticed else "unnoticed",
            e,
            f"{foe.display} rolls Perception: {theirs.roll} against {per_target} — "
            + (f"notices {ch.display}." if noticed else f"does not notice {ch.display}."),
            sneaker=actor,
            roll=theirs.roll,
            target=per_target,
        )
    return out, hidden


def _check_enemies(enc: Encounter, actor: str, enemies: Sequence[str]) -> list[str]:
    foes = list(dict.fromkeys(enemies))
    for e in foes:
        enc.character(e)
        if e == actor:
            raise RuleError("bad_argument", f"{enc.name(actor)} cannot sneak past himself.")
    return foes


def _hides_left(enc: Encounter, actor: str) -> int:
    return enc.turn_budget - foe(enc).hides.get(actor, 0)


def sneak(
    enc: Encounter,
    actor: str,
    roller: Roller,
    *,
    enemies: Sequence[str] = (),
    field: StealthField | None = None,
    modifier: int = 0,
    mfd: float = 1.0,
    perception_mfd: float = 1.0,
) -> Outcome:
    """A sneak action: the opposed roll against ``enemies`` (if any are present and he has a
    roll left this round; else his latest roll stands), then up to his sneak speed of movement
    for this action. ``modifier`` is any situational modifier to his Sneak, ``mfd`` the MFD of
    his roll, ``perception_mfd`` the enemies' before a field's penalty."""
    require_foe(enc)
    ch = enc.character(actor)
    require_not_surprised(enc, actor)
    foes = _check_enemies(enc, actor, enemies)
    in_fight = fighting(enc, actor)
    if in_fight:
        require_turn(enc, actor)
        actions.check(enc, actor, SNEAK)
    rolling = bool(foes) and (not in_fight or _hides_left(enc, actor) > 0)
    out, hidden = (
        _sneak_roll(
            enc,
            actor,
            foes,
            roller,
            field=field,
            modifier=modifier,
            mfd=mfd,
            perception_mfd=perception_mfd,
        )
        if rolling
        else (Outcome(), None)
    )

    if hidden is not None:
        foe(enc).hidden_from[actor] = hidden
    speed = sneak_speed(ch, enc.options, field)
    if in_fight:
        actions.take(enc, actor, SNEAK)
        if rolling:
            foe(enc).hides[actor] = foe(enc).hides.get(actor, 0) + 1
        state = foe(enc).sneak.get(actor) or SneakState(speed=speed)
        state.speed, state.field, state.active = speed, field, True
        state.left += speed
        state.moved_this_action = 0.0
        foe(enc).sneak[actor] = state
    if foes and not rolling:
        out.add(
            "sneak_roll_kept",
            actor,
            f"{ch.display} has no Sneak roll left this round; his latest roll stands.",
        )
    under = f" under {field.name}" if field else ""
    out.add(
        "sneaking",
        actor,
        f"{ch.display} sneaks{under}: up to {fmt(speed)} ft this action.",
        speed=speed,
        field=field.name if field else None,
        hidden_from=foe(enc).hidden_from.get(actor, []),
    )
    return out


def hide(
    enc: Encounter,
    actor: str,
    roller: Roller,
    *,
    enemies: Sequence[str],
    field: StealthField | None = None,
    modifier: int = 0,
    mfd: float = 1.0,
    perception_mfd: float = 1.0,
) -> Outcome:
    """Roll Sneak to hide: a free action, once per combat action (in combat at most one Sneak
    roll per action of the round, a sneak action's own roll included)."""
    require_foe(enc)
    ch = enc.character(actor)
    require_not_surprised(enc, actor)
    foes = _check_enemies(enc, actor, enemies)
    if not foes:
        raise RuleError("bad_argument", "Hiding is an opposed roll: name the enemies present.")
    in_fight = fighting(enc, actor)
    if in_fight:
        require_turn(enc, actor)
        if _hides_left(enc, actor) <= 0:
            raise RuleError(
                "hide_used",
                f"{ch.display} may roll Sneak to hide once per combat action and has used "
                f"all {enc.turn_budget} this round.",
            )
        actions.check(enc, actor, HIDE)
    out, hidden = _sneak_roll(
        enc,
        actor,
        foes,
        roller,
        field=field,
        modifier=modifier,
        mfd=mfd,
        perception_mfd=perception_mfd,
    )
    if in_fight:
        actions.take(enc, actor, HIDE)
        foe(enc).hides[actor] = foe(enc).hides.get(actor, 0) + 1
    foe(enc).hidden_from[actor] = hidden
    return out


def stop_sneaking(enc: Encounter, actor: str) -> Outcome:
    """End his sneaking this turn: the rest of his sneak movement is given up and his drags are
    ordinary moves again."""
    require_foe(enc)
    ch = enc.character(actor)
    state = foe(enc).sneak.get(actor)
    if state is None or not state.active:
        raise RuleError("not_sneaking", f"{ch.display} is not sneaking.")
    require_turn(enc, actor)
    state.active, state.left = False, 0.0
    out = Outcome()
    out.add("sneak_ended", actor, f"{ch.display} stops sneaking.")
    return out


def hold_defense(enc: Encounter, actor: str, kind: Literal["dodge", "block"] = "dodge") -> Outcome:
    """Forfeit the movement of his current sneak action (before he has moved in it) and hold
    the action to dodge away from or block incoming attacks, until used or his next turn."""
    require_foe(enc)
    ch = enc.character(actor)
    if kind not in ("dodge", "block"):
        raise RuleError("bad_argument", f"Hold a dodge or a block, not {kind!r}.")
    require_turn(enc, actor)
    state = foe(enc).sneak.get(actor)
    if state is None or not state.active:
        raise RuleError(
            "not_sneaking",
            f"{ch.display} can hold a dodge or block only by forfeiting a sneak action's move.",
        )
    if state.moved_this_action > 0:
        raise RuleError(
            "already_moved",
            f"{ch.display} has already moved in this sneak action; its movement is no longer "
            "his to forfeit.",
        )
    if actor in foe(enc).held:
        raise RuleError("already_held", f"{ch.display} already holds a {foe(enc).held[actor]}.")
    state.left = max(0.0, state.left - state.speed)
    foe(enc).held[actor] = kind
    out = Outcome()
    out.add(
        "defense_held",
        actor,
        f"{ch.display} forfeits the sneak move and holds the action to {kind}.",
        held=kind,
    )
    return out


def block(enc: Encounter, actor: str) -> Outcome:
    """Use a held block against an incoming attack (the block itself is resolved under the FoE
    melee rules)."""
    require_foe(enc)
    ch = enc.character(actor)
    if foe(enc).held.get(actor) != "block":
        raise RuleError("nothing_held", f"{ch.display} holds no block.")
    del foe(enc).held[actor]
    out = Outcome()
    out.add("blocked", actor, f"{ch.display} uses the held action to block.")
    return out
