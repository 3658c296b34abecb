"""Surprise! (Fallout: Equestria): the surprise round and the sneak attack critical.

A surprise round happens when a group attacks another that is not aware of them (or of their
hostile intent) until they open fire. A visible guard firing from his post, or a shrieking
raider running out of cover, is no surprise: their targets are aware, and
:func:`start_surprise_round` refuses (``no_surprise``) so the GM starts a normal combat.

In the surprise round the attackers and every character with the Quick Witted perk roll
initiative and get a single action each; the surprised sit out. A target who did not expect to
be attacked at all (stabbed in the back by an ally, looking away, asleep) suffers a sneak attack
critical: an automatic critical if the attack would hit, the damage doubled before armor for a
weapon without a critical multiplier above 1. When all have acted, normal combat begins with
two actions each and everyone re-rolls initiative (⚙ ``surprise_after`` ``insert``: keep the
order and add the surprised, each rolling his initiative).

Decisions where the text is silent:

* A defender who was aware of the attackers is not surprised: he rolls initiative and acts in
  the surprise round too (the rule is about a group that is unaware; he is not).
* By default every surprised defender did not expect an attack (the ambush case) and is a sneak
  attack target; pass ``unsuspecting`` to name them when only some were caught off guard. A
  Quick Witted defender reacts in time and is not marked unless named.
* The mark is used up by the first hit on that target (he knows now) and lapses when the
  surprise round ends. A weapon's own critical multiplier, like the doubling, applies before
  armor; armor is subtracted after, never below 0 damage.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from vttbridge.rules import actions
from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import (
    Encounter,
    join_combat,
    require_turn,
    start_combat,
)
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.systems.foe.rules.economy import SNEAK_ATTACK
from vttbridge.systems.foe.rules.options import options
from vttbridge.systems.foe.rules.state import foe
from vttbridge.systems.foe.rules.turns import require_foe

SURPRISE_ACTIONS = 1
"""Actions each combatant gets in the surprise round (instead of two)."""
ROUND_ACTIONS = 2
SNEAK_ATTACK_MULTIPLIER = 2


def start_surprise_round(
    enc: Encounter,
    attackers: Sequence[str],
    defenders: Sequence[str],
    roller: Roller,
    *,
    aware: Iterable[str] = (),
    unsuspecting: Iterable[str] | None = None,
) -> Outcome:
    """Begin combat with a surprise round: ``attackers`` ambush ``defenders``.

    ``aware``: defenders who knew of the attackers (or of their hostile intent); if that is all
    of them there is no surprise. ``unsuspecting``: surprised defenders who did not expect any
    attack (default: all the surprised)."""
    require_foe(enc)
    if enc.in_combat:
        raise RuleError("combat_running", "A combat is already running; end it first.")
    attackers, defenders = list(dict.fromkeys(attackers)), list(dict.fromkeys(defenders))
    aware_set = set(aware)
    if not attackers or not defenders:
        raise RuleError("bad_argument", "A surprise round needs attackers and defenders.")
    for a in [*attackers, *defenders]:
        enc.character(a)
    both = set(attackers) & set(defenders)
    if both:
        raise RuleError(
            "bad_argument", f"{', '.join(map(enc.name, sorted(both)))} cannot be on both sides."
        )
    if not aware_set <= set(defenders):
        raise RuleError("bad_argument", "Only defenders can be aware of the attackers.")
    unaware = [d for d in defenders if d not in aware_set]
    if not unaware:
        raise RuleError(
            "no_surprise",
            "Every defender is aware of the attackers: no surprise round. Start a normal combat.",
        )
    surprised = [d for d in unaware if not enc.character(d).quick_witted]
    if unsuspecting is None:
        marked = list(surprised)
    else:
        marked = list(dict.fromkeys(unsuspecting))
        stray = [m for m in marked if m not in unaware]
        if stray:
            raise RuleError(
                "bad_argument",
                f"{', '.join(map(enc.name, stray))} expected the attack (aware, or not a "
                "defender) and cannot be caught by a sneak attack.",
            )
    quick = [d for d in unaware if d not in surprised]
    acting = [*attackers, *(d for d in defenders if d not in surprised)]

    before = enc.model_copy(deep=True)  # start_combat may still fail (a bad ⚙ formula)
    foe(enc).surprise_round = True
    foe(enc).surprised = surprised
    foe(enc).sneak_attack_targets = marked
    enc.actions_per_turn = SURPRISE_ACTIONS
    out = Outcome()
    names = ", ".join(map(enc.name, surprised)) or "nobody"
    out.add(
        "surprise_round",
        None,
        f"Surprise! {', '.join(map(enc.name, attackers))} attack. Surprised, sitting out: {names}.",
        attackers=attackers,
        acting=acting,
        surprised=surprised,
        quick_witted=quick,
        sneak_attack_targets=marked,
    )
    for q in quick:
        out.add("quick_witted", q, f"{enc.name(q)} is Quick Witted and acts in the surprise round.")
    for m in marked:
        out.add(
            "sneak_attack_target",
            m,
            f"{enc.name(m)} did not expect an attack: a hit on them is a sneak attack critical.",
        )
    try:
        started = start_combat(enc, acting, roller)
    except Exception:
        for field in type(enc).model_fields:
            setattr(enc, field, getattr(before, field))
        raise
    return out.extend(started)


def end_surprise_round(enc: Encounter, roller: Roller, out: Outcome) -> None:
    """When the round after the surprise round begins: two actions again, and the initiative
    re-rolled (or the surprised inserted)."""
    if not foe(enc).surprise_round or enc.round <= 1:
        return
    surprised = [s for s in foe(enc).surprised if s in enc.characters and s not in enc.combatants]
    foe(enc).surprise_round = False
    foe(enc).surprised = []
    foe(enc).sneak_attack_targets = []
    enc.actions_per_turn = None  # the system's two again
    out.add("surprise_round_ended", None, "The surprise round is over; normal combat begins.")
    if options(enc).surprise_after == "insert":
        joining = surprised
    else:
        joining = [cid for cid, cb in enc.combatants.items() if not cb.out] + surprised
        for cid in joining:
            enc.combatants.pop(cid, None)
        out.add("initiative_rerolled", None, "Everyone re-rolls initiative.")
    if joining:
        out.extend(join_combat(enc, joining, roller))


def is_sneak_attack_target(enc: Encounter, target: str) -> bool:
    return foe(enc).surprise_round and target in foe(enc).sneak_attack_targets


def sneak_attack_damage(damage: int, crit_multiplier: float = 1.0, armor: int = 0) -> int:
    """A sneak attack critical's damage: the weapon's critical multiplier, or x2 for a weapon
    without one above 1, applied before armor; armor is then subtracted (never below 0)."""
    mult = crit_multiplier if crit_multiplier > 1 else SNEAK_ATTACK_MULTIPLIER
    return max(0, math.floor(damage * mult) - armor)


def sneak_attack(
    enc: Encounter,
    attacker: str,
    target: str,
    roller: Roller,
    *,
    hits: bool,
    damage: str | int,
    crit_multiplier: float = 1.0,
    armor: int = 0,
) -> Outcome:
    """An attack in the surprise round on a target who expected none: spends the attacker's
    action; if it would hit (``hits``, from the FoE attack roll) it is an automatic critical
    (:func:`sneak_attack_damage` on the rolled ``damage``) and uses up the target's mark."""
    require_foe(enc)
    enc.character(attacker)
    enc.character(target)
    require_turn(enc, attacker)
    if not is_sneak_attack_target(enc, target):
        raise RuleError(
            "not_sneak_attack_target",
            f"{enc.name(target)} is not open to a sneak attack (not caught unaware in the "
            "surprise round, or already hit).",
        )
    actions.check(enc, attacker, SNEAK_ATTACK)
    rolled = (
        roller.roll(damage, reason=f"sneak attack damage on {enc.name(target)}") if hits else None
    )

    actions.take(enc, attacker, SNEAK_ATTACK, what=actions.ATTACK)
    out = Outcome()
    if rolled is None:
        out.add(
            "sneak_attack_missed",
            attacker,
            f"{enc.name(attacker)}'s sneak attack misses {enc.name(target)}.",
            target=target,
        )
        return out
    out.rolls.append(rolled)
    total = sneak_attack_damage(rolled.total, crit_multiplier, armor)
    foe(enc).sneak_attack_targets.remove(target)
    mult = crit_multiplier if crit_multiplier > 1 else SNEAK_ATTACK_MULTIPLIER
    out.add(
        "sneak_attack_critical",
        attacker,
        f"Sneak attack critical! {enc.name(attacker)} hits {enc.name(target)}: {rolled.total} "
        f"x {mult:g} - {armor} armor = {total} damage.",
        target=target,
        rolled=rolled.total,
        multiplier=mult,
        armor=armor,
        damage=total,
    )
    return out
