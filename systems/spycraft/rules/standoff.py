"""Spycraft 2.0 Stand Off (``docs/rules.md`` "Stand Off", rules 1-11).

Flow, as the runtime drives it:

1. An opponent within 30 ft is about to attack a special character: :func:`offer` returns a
   ``standoff_offer`` Choice (before the attack check). ``stand_off`` -> :func:`attempt`.
2. :func:`attempt` pays the cost (1 action die, IC - 5) and rolls the Reflex save. Success
   cancels the attack and starts a :class:`~vttbridge.systems.spycraft.rules.state.StandOff`;
   failure lets the attack proceed.
3. At each round start the registered hook :func:`round_start` makes the opposed Resolve checks,
   deals stress, and returns a ``standoff_crack`` Choice per cracked participant (answered with
   :func:`resolve_crack`) or, under ⚙ ``standoff_tie`` = gm, a ``standoff_tie`` Choice for the GM
   (answered with :func:`resolve_tie`).
4. :func:`damage_dealt` (any damage to a participant), :func:`surrender`, :func:`join`,
   :func:`grant_permission` / :func:`permission_used` do the rest.

Decisions where the rules are silent (each has a test):

- Surrendered participants stay in the stand off (still ``standoff`` and ``vulnerable``: they are
  held at gunpoint) but make no Resolve checks, take no stress, cannot strike a cracked opponent
  and no longer count as *remaining* for rule 10.
- A team's check uses its highest Resolve bonus; the winning team's "Wisdom modifier" is that
  lead's (ties for lead: higher Wisdom, then side order). Every member of the winning side is
  the "winner" a cracked loser surrenders to; any of them may give him permission or orders.
- The crack Choice defaults to ``surrender`` (a prompt left unanswered must not kill anyone).
  A crack still unanswered when the next round starts is resolved with the default first.
- Ending by damage puts *everyone* back into normal combat, surrender lifted too ("all
  participants re-enter combat"). Ending because one side (⚙ one participant) remains keeps the
  losers surrendered to the winners for the rest of the combat (until ``end_combat``); a member
  of the side left standing who had surrendered is released, since everyone he surrendered to
  has given up too. The ended record stays in ``SpycraftState.standoffs`` (``active`` False) so
  permissions still work.
- A participant in a stand off may not stand off another attack or join a second stand off;
  anyone else may join (standard characters too: "any character").
- The crack strike is an automatic hit with no dice. With ⚙ ``standoff_crack_strike_ends`` off,
  the struck participant (dying or dead) leaves the stand off and the rest carry on.
- A ``standoff_tie`` Choice (⚙ gm) is put to actor ``"gm"``; its options are the tied units'
  leads plus ``reroll`` (the default). A tie or a crack still open when the stand off ends
  lapses (``tie_lapsed`` / ``crack_lapsed`` with the Choice id, so the runtime can withdraw it).
- Permission or an order lifts the surrender for one action: :func:`grant_permission` removes
  the ``surrendered`` condition, and :func:`permission_used` (called by the runtime after that
  action) restores it; an unused permission lapses at the next round start.
- ⚙ ``standoff_ends_when`` = one_participant: when only one side still has members who have not
  surrendered but two or more of them remain, the side splits and each checks on his own.
- Natural 1 on the Reflex save (Error range +0) is flagged ``error`` in the data for the GM to
  activate with action dice; the save itself is decided by its total.
- Surrendering (rule 9) is a decision, not an action: it costs nothing from the budget.
"""

from __future__ import annotations

import contextlib
from typing import Literal

from vttbridge.rules import actions
from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import Encounter, set_ic
from vttbridge.rules.outcome import Choice, Outcome, RuleError
from vttbridge.systems.spycraft.rules.economy import JOIN_STAND_OFF, STAND_OFF
from vttbridge.systems.spycraft.rules.options import options
from vttbridge.systems.spycraft.rules.state import PendingTie, StandOff, spycraft

__all__ = [
    "CQB_RANGE_FT",
    "CRACK_DEFAULT",
    "CRACK_OPTIONS",
    "OFFER_OPTIONS",
    "active_standoffs",
    "attempt",
    "can_stand_off",
    "cracks",
    "damage_dealt",
    "get_standoff",
    "grant_permission",
    "join",
    "may_permit",
    "offer",
    "permission_used",
    "resolve_crack",
    "resolve_tie",
    "round_start",
    "standoff_of",
    "stress_damage",
    "surrender",
    "thresholds_exceeded",
]

CQB_RANGE_FT = 30.0
"""Melee or Close Quarters Battle range: who may be stood off, and who may join."""
IC_COST = 5
OFFER_OPTIONS = ["stand_off", "take_attack"]
CRACK_OPTIONS = ["surrender", "be_attacked"]
CRACK_DEFAULT = "surrender"
TIE_REROLL = "reroll"
STANDOFF_CONDITIONS = ("standoff", "vulnerable")


# -- reading -------------------------------------------------------------------------------------


def active_standoffs(enc: Encounter) -> list[StandOff]:
    return [so for so in spycraft(enc).standoffs if so.active]


def standoff_of(enc: Encounter, actor: str) -> StandOff | None:
    """The stand off in progress ``actor`` takes part in, if any."""
    return next((so for so in active_standoffs(enc) if actor in so.participants), None)


def get_standoff(enc: Encounter, standoff_id: str) -> StandOff:
    """A stand off in progress by id, or RuleError."""
    for so in spycraft(enc).standoffs:
        if so.id == standoff_id:
            if not so.active:
                raise RuleError("standoff_over", f"Stand off {standoff_id} has already ended.")
            return so
    raise RuleError("unknown_standoff", f"There is no stand off {standoff_id!r}.")


def thresholds_exceeded(stress: int, wisdom: int) -> int:
    """How many stress thresholds (1x, 2x, 3x... the Wisdom score) a stress total exceeds."""
    step = max(1, wisdom)  # a Wisdom score of 0 (or a bad sheet) must not divide by zero
    return max(0, (stress - 1) // step)


def cracks(
    before: int, after: int, wisdom: int, mode: Literal["new_threshold", "any_exceeded"]
) -> bool:
    """Rule 7: does stress going from ``before`` to ``after`` crack him?

    new_threshold: it carried him past a threshold he had not yet exceeded; any_exceeded: he
    took stress and his total exceeds any threshold."""
    if after <= before:
        return False
    if mode == "any_exceeded":
        return thresholds_exceeded(after, wisdom) >= 1
    return thresholds_exceeded(after, wisdom) > thresholds_exceeded(before, wisdom)


def stress_damage(rolled: int) -> int:
    """Rule 6: 1d6 + the winner's Wisdom modifier, minimum 1 (action dice cannot boost it)."""
    return max(1, rolled)


def _names(enc: Encounter, ids: list[str]) -> str:
    return ", ".join(enc.name(a) for a in ids) or "nobody"


def _remaining(so: StandOff) -> list[str]:
    return [a for a in so.participants if a not in so.surrendered]


def _units(enc: Encounter, so: StandOff) -> list[list[str]]:
    """Who checks together: each side's members who have not surrendered (rule 6, 11); under
    ⚙ one_participant a lone side of 2+ splits into individuals."""
    sides = [[a for a in side if a not in so.surrendered] for side in so.sides]
    sides = [s for s in sides if s]
    if len(sides) == 1 and len(sides[0]) >= 2 and _ends_when(enc) == "one_participant":
        return [[a] for a in sides[0]]
    return sides


def _ends_when(enc: Encounter) -> str:
    return options(enc).standoff_ends_when


def _lead(enc: Encounter, unit: list[str]) -> str:
    """The member whose Resolve a (team) check uses: highest bonus, then higher Wisdom."""
    return max(unit, key=lambda a: (enc.character(a).resolve, enc.character(a).wisdom))


def _unit_label(enc: Encounter, unit: list[str]) -> str:
    if len(unit) == 1:
        return enc.name(unit[0])
    return f"{_names(enc, unit)} (team, {enc.name(_lead(enc, unit))}'s bonus)"


def _incapacitated(enc: Encounter, actor: str) -> None:
    ch = enc.character(actor)
    if "dead" in ch.conditions or (ch.kind == "special" and ch.wounds < 0):
        raise RuleError("incapacitated", f"{ch.display} is in no state to act.")


# -- rules 1-3: offering and attempting ------------------------------------------------------


def can_stand_off(enc: Encounter, target: str, attacker: str) -> None:
    """Rule 1 eligibility: raise RuleError unless ``target`` may stand off ``attacker``'s attack."""
    ch = enc.character(target)
    atk = enc.character(attacker)
    if target == attacker:
        raise RuleError("bad_argument", f"{ch.display} cannot stand off himself.")
    if ch.kind != "special":
        raise RuleError(
            "standard_cannot", f"{ch.display} is a standard character and cannot stand off."
        )
    for who in (target, attacker):
        if enc.combatant(who).out:
            raise RuleError("not_in_combat", f"{enc.name(who)} is out of the combat.")
    _incapacitated(enc, target)
    for who in (target, attacker):
        if standoff_of(enc, who) is not None:
            raise RuleError("already_in_standoff", f"{enc.name(who)} is already in a stand off.")
    if ch.action_dice < 1:
        raise RuleError(
            "no_action_die", f"{ch.display} has no action die left to spend on a stand off."
        )
    dist = enc.distance(target, attacker)
    if dist > CQB_RANGE_FT:
        raise RuleError(
            "out_of_range",
            f"{atk.display} is {dist:g} ft away; only an attacker within melee or CQB range "
            f"({CQB_RANGE_FT:g} ft) can be stood off.",
            distance=dist,
        )
    actions.check(enc, target, STAND_OFF)  # surrendered / free action cap


def offer(enc: Encounter, target: str, attacker: str) -> Outcome:
    """Before the attack check: a ``standoff_offer`` Choice when ``target`` may stand off,
    an empty Outcome otherwise. Answer ``stand_off`` with :func:`attempt`."""
    out = Outcome()
    try:
        can_stand_off(enc, target, attacker)
    except RuleError:
        return out
    dc = 10 + enc.character(attacker).bab
    ch = enc.character(target)
    out.choices.append(
        Choice(
            id=f"standoff_offer:{enc.round}:{enc.count}:{attacker}:{target}",
            kind="standoff_offer",
            actor=target,
            question=(
                f"{enc.name(attacker)} attacks {ch.display}. Stand off? Costs 1 action die "
                f"({ch.action_dice} left) and 5 Initiative; Reflex save DC {dc}."
            ),
            options=list(OFFER_OPTIONS),
            default="take_attack",
            data={"target": target, "attacker": attacker, "dc": dc},
        )
    )
    return out


def attempt(
    enc: Encounter,
    target: str,
    attacker: str,
    roller: Roller,
    *,
    target_weapon: str = "",
    attacker_weapon: str = "",
) -> Outcome:
    """Rules 2-4: a free action out of turn. Pays 1 action die and IC - 5 (⚙ floor 1 / none)
    whatever happens, then Reflex 1d20 + Reflex vs DC 10 + attacker's BAB. Success: the attack
    is cancelled and a stand off begins; failure: the attack proceeds."""
    can_stand_off(enc, target, attacker)
    ch, atk = enc.character(target), enc.character(attacker)
    dc = 10 + atk.bab
    # Rolled before any change, so a dice error leaves the encounter untouched.
    roll = roller.d(20, modifier=ch.reflex, reason=f"Reflex save to stand off {atk.display}")

    out = Outcome(rolls=[roll])
    actions.take(enc, target, STAND_OFF)
    ch.action_dice -= 1
    out.add(
        "action_die_spent",
        target,
        f"{ch.display} spends 1 action die to stand off ({ch.action_dice} left).",
        left=ch.action_dice,
        reason="stand off",
    )
    new_ic = enc.combatants[target].ic - IC_COST
    if options(enc).standoff_ic_floor == "one":
        new_ic = max(1, new_ic)
    set_ic(enc, target, new_ic, "stand off", out)

    natural = roll.faces[0] if roll.faces else 0
    success = roll.total >= dc
    verdict = "success" if success else "failure"
    out.add(
        "reflex_save",
        target,
        f"{ch.display} Reflex save vs DC {dc}: {roll.text} — {verdict}.",
        total=roll.total,
        dc=dc,
        success=success,
        natural=natural,
        error=natural == 1,  # Error range +0: a natural 1 is an error for the GM to activate
    )
    if not success:
        out.add(
            "attack_proceeds",
            attacker,
            f"{ch.display} fails to stand off; {atk.display}'s attack goes ahead.",
            target=target,
        )
        return out

    so = StandOff(
        id=f"so{spycraft(enc).next_standoff}",
        sides=[[target], [attacker]],
        started_round=enc.round,
    )
    spycraft(enc).next_standoff += 1
    for who, weapon in ((target, target_weapon), (attacker, attacker_weapon)):
        _enter(enc, so, who, weapon)
    spycraft(enc).standoffs.append(so)
    out.add(
        "attack_cancelled",
        attacker,
        f"{atk.display} must cancel the attack on {ch.display}.",
        target=target,
        standoff=so.id,
    )
    out.add(
        "standoff_started",
        None,
        f"Stand off {so.id}: {ch.display} and {atk.display} hold each other at weapon point "
        "(both vulnerable, free actions only).",
        standoff=so.id,
        sides=[list(s) for s in so.sides],
    )
    return out


def _enter(enc: Encounter, so: StandOff, actor: str, weapon: str) -> None:
    ch = enc.character(actor)
    if ch.vulnerable:
        so.had_vulnerable.append(actor)
    ch.conditions.update(STANDOFF_CONDITIONS)
    if weapon:
        so.weapons[actor] = weapon


# -- rules 5 and 10: ending ----------------------------------------------------------------------


def damage_dealt(enc: Encounter, actor: str, amount: int, *, stress: bool = False) -> Outcome:
    """Rule 5: ``amount`` >= 1 points of damage to any participant (surrendered ones included)
    ends his stand off at once. Stress damage (``stress=True``) does not."""
    enc.character(actor)
    if amount < 0:
        raise RuleError("bad_argument", "Damage cannot be negative.")
    out = Outcome()
    so = standoff_of(enc, actor)
    if so is None or stress or amount < 1:
        return out
    out.add(
        "standoff_damage",
        actor,
        f"{enc.name(actor)} takes {amount} damage: the stand off breaks.",
        amount=amount,
        standoff=so.id,
    )
    _end(enc, so, "damage", out)
    return out


def _end(enc: Encounter, so: StandOff, reason: str, out: Outcome) -> None:
    so.active = False
    so.ended_round = enc.round
    so.end_reason = reason
    for a in so.participants:
        ch = enc.character(a)
        ch.conditions.discard("standoff")
        if a not in so.had_vulnerable:
            ch.conditions.discard("vulnerable")
    if reason == "damage":  # "all participants re-enter combat": surrender lifted too
        released = list(so.surrendered)
    elif reason == "one_side":
        # A member of the side left standing had surrendered to opponents who have all given
        # up in turn: nobody holds him any more.
        standing = {so.side_of(a) for a in _remaining(so)}
        released = [a for a in so.surrendered if so.side_of(a) in standing]
    else:
        released = []
    for a in released:
        enc.character(a).conditions.discard("surrendered")
        so.surrendered.remove(a)
        so.surrender_to.pop(a, None)
        so.permitted.pop(a, None)
        out.add("surrender_lifted", a, f"{enc.name(a)} is no longer bound by his surrender.")
    for a in list(so.pending_cracks):
        out.add(
            "crack_lapsed",
            a,
            f"{enc.name(a)}'s choice lapses: the stand off is over.",
            choice_id=_crack_choice_id(so, a),
        )
    so.pending_cracks.clear()
    if so.pending_tie is not None:
        out.add("tie_lapsed", None, f"Stand off {so.id}: the tie no longer matters.")
        so.pending_tie = None
    remaining = _remaining(so)
    if reason == "damage":
        text = f"Stand off {so.id} ends: everyone re-enters combat."
    else:
        text = f"Stand off {so.id} ends: only {_names(enc, remaining)} remain(s)."
    out.add(
        "standoff_ended",
        None,
        text,
        standoff=so.id,
        reason=reason,
        remaining=remaining,
        surrendered=list(so.surrendered),
    )


def _check_end(enc: Encounter, so: StandOff, out: Outcome) -> bool:
    """Rule 10: end once one side (⚙ one participant) remains; surrendered ones do not count."""
    if _ends_when(enc) == "one_side":
        over = sum(1 for side in so.sides if any(a not in so.surrendered for a in side)) <= 1
    else:
        over = len(_remaining(so)) <= 1
    if over:
        _end(enc, so, _ends_when(enc), out)
    return over


# -- rules 6-8: the round's Resolve checks, stress and cracking --------------------------------


def round_start(enc: Encounter, roller: Roller, out: Outcome) -> None:
    """Rule 6: before anyone acts, every stand off in progress makes its opposed Resolve checks."""
    for so in spycraft(enc).standoffs:
        _lapse_permissions(enc, so, out)
    for so in active_standoffs(enc):
        _round_check(enc, so, roller, out)


def _round_check(enc: Encounter, so: StandOff, roller: Roller, out: Outcome) -> None:
    for actor in list(so.pending_cracks):  # he had to decide "at once"; nobody answered
        out.add("crack_defaulted", actor, f"{enc.name(actor)} did not choose: {CRACK_DEFAULT}.")
        _surrender(enc, so, actor, so.pending_cracks.pop(actor), out, cracked=True)
        if not so.active:
            return
    if so.pending_tie is not None:
        out.add("tie_lapsed", None, f"Stand off {so.id}: last round's tie was never decided.")
        so.pending_tie = None
    if _check_end(enc, so, out):
        return
    units = _units(enc, so)
    so.last_check_round = enc.round
    out.add(
        "standoff_check",
        None,
        f"Stand off {so.id}, round {enc.round}: opposed Resolve checks (Vision).",
        standoff=so.id,
        units=units,
        tags=["Vision"],
    )
    _contest(enc, so, units, [_lead(enc, u) for u in units], roller, out, attempt=0)


def _contest(
    enc: Encounter,
    so: StandOff,
    units: list[list[str]],
    contenders: list[str],
    roller: Roller,
    out: Outcome,
    *,
    attempt: int,
) -> None:
    """Roll Resolve for the contending units (by lead id) until one wins or the GM must choose."""
    leads = [_lead(enc, u) for u in units]
    while True:
        totals: dict[str, int] = {}
        for lead in contenders:
            unit = units[leads.index(lead)]
            bonus = enc.character(lead).resolve
            roll = roller.d(20, modifier=bonus, reason=f"Resolve, stand off {so.id}")
            out.rolls.append(roll)
            totals[lead] = roll.total
            out.add(
                "resolve_check",
                lead,
                f"{_unit_label(enc, unit)} Resolve check: {roll.text}.",
                standoff=so.id,
                unit=unit,
                bonus=bonus,
                total=roll.total,
            )
        best = max(totals.values())
        top = [lead for lead in contenders if totals[lead] == best]
        if len(top) > 1:  # ties go to the higher bonus
            high = max(enc.character(lead).resolve for lead in top)
            top = [lead for lead in top if enc.character(lead).resolve == high]
        if len(top) == 1:
            _apply_result(enc, so, units, leads.index(top[0]), roller, out)
            return
        if options(enc).standoff_tie == "gm":
            _ask_tie(enc, so, units, leads, top, out, attempt)
            return
        out.add("resolve_tie", None, f"Tie between {_names(enc, top)}: re-roll.", tied=top)
        contenders = top


def _tie_choice_id(so: StandOff, rnd: int, attempt: int) -> str:
    return f"standoff_tie:{so.id}:r{rnd}:{attempt}"


def _ask_tie(
    enc: Encounter,
    so: StandOff,
    units: list[list[str]],
    leads: list[str],
    tied: list[str],
    out: Outcome,
    attempt: int,
) -> None:
    so.pending_tie = PendingTie(
        round=enc.round, units=units, leads=leads, tied=tied, attempt=attempt
    )
    labels = " vs ".join(_unit_label(enc, units[leads.index(lead)]) for lead in tied)
    out.add("resolve_tie", None, f"Tie: {labels}. The GM decides.", tied=tied)
    out.choices.append(
        Choice(
            id=_tie_choice_id(so, enc.round, attempt),
            kind="standoff_tie",
            actor="gm",
            question=f"Stand off {so.id}: Resolve tie ({labels}). Who wins, or re-roll?",
            options=[*tied, TIE_REROLL],
            default=TIE_REROLL,
            data={"standoff": so.id, "units": {lead: units[leads.index(lead)] for lead in tied}},
        )
    )


def resolve_tie(enc: Encounter, standoff_id: str, answer: str, roller: Roller) -> Outcome:
    """Answer a ``standoff_tie`` Choice (⚙ standoff_tie gm): a tied lead's id wins the check,
    ``reroll`` rolls the tied units again (which may tie again and ask again)."""
    so = get_standoff(enc, standoff_id)
    tie = so.pending_tie
    if tie is None:
        raise RuleError("no_pending_tie", f"Stand off {standoff_id} has no tie to decide.")
    if answer not in [*tie.tied, TIE_REROLL]:
        raise RuleError(
            "bad_answer",
            f"Answer one of {', '.join([*tie.tied, TIE_REROLL])}.",
            options=[*tie.tied, TIE_REROLL],
        )
    out = Outcome()
    so.pending_tie = None
    if answer == TIE_REROLL:
        _contest(enc, so, tie.units, list(tie.tied), roller, out, attempt=tie.attempt + 1)
    else:
        out.add("tie_decided", "gm", f"The GM gives the check to {enc.name(answer)}.")
        _apply_result(enc, so, tie.units, tie.leads.index(answer), roller, out)
    return out


def _crack_choice_id(so: StandOff, actor: str) -> str:
    # The round of the check that cracked him (a GM tie may be decided later in the round).
    return f"standoff_crack:{so.id}:r{so.last_check_round}:{actor}"


def _apply_result(
    enc: Encounter,
    so: StandOff,
    units: list[list[str]],
    winner: int,
    roller: Roller,
    out: Outcome,
) -> None:
    """The winner is unaffected; every other unit's members take 1d6 + the winner's Wisdom
    modifier stress (minimum 1), and may crack (rule 7)."""
    win_unit = units[winner]
    lead = _lead(enc, win_unit)
    mod = enc.character(lead).wisdom_mod
    out.add(
        "resolve_won",
        lead,
        f"{_unit_label(enc, win_unit)} wins the test of wills.",
        standoff=so.id,
        winners=list(win_unit),
    )
    for i, unit in enumerate(units):
        if i == winner:
            continue
        for a in unit:
            if a in so.surrendered or a not in so.participants:
                continue  # surrendered or left while a GM tie was open
            ch = enc.character(a)
            roll = roller.d(6, modifier=mod, reason=f"stress for {ch.display}")
            out.rolls.append(roll)
            amount = stress_damage(roll.total)
            before = ch.stress
            ch.stress = before + amount
            out.add(
                "stress_damage",
                a,
                f"{ch.display} takes {amount} stress damage ({roll.text}, minimum 1); "
                f"total {ch.stress}.",
                amount=amount,
                total=ch.stress,
                standoff=so.id,
            )
            if cracks(before, ch.stress, ch.wisdom, options(enc).standoff_crack):
                _crack(enc, so, a, win_unit, out)


def _crack(enc: Encounter, so: StandOff, actor: str, winners: list[str], out: Outcome) -> None:
    ch = enc.character(actor)
    so.pending_cracks[actor] = list(winners)
    striker_hint = ""
    with contextlib.suppress(RuleError):  # only a hint: a missing position must not stop it
        striker_hint = f" (the strike would come from {enc.name(_striker(enc, so, actor))})"
    out.add(
        "cracked",
        actor,
        f"{ch.display} cracks (stress {ch.stress}, thresholds every {max(1, ch.wisdom)}).",
        standoff=so.id,
        winners=list(winners),
    )
    out.choices.append(
        Choice(
            id=_crack_choice_id(so, actor),
            kind="standoff_crack",
            actor=actor,
            question=(
                f"{ch.display} cracks! Surrender to {_names(enc, winners)}, "
                f"or be attacked{striker_hint}?"
            ),
            options=list(CRACK_OPTIONS),
            default=CRACK_DEFAULT,
            data={"standoff": so.id, "winners": list(winners)},
        )
    )


def _striker(enc: Encounter, so: StandOff, actor: str) -> str:
    """Rule 8: the nearest opponent in the stand off who has not surrendered; ties: higher IC,
    then turn order."""
    units = _units(enc, so)
    candidates = [a for u in units if actor not in u for a in u]
    if not candidates:
        raise RuleError("no_striker", f"No opponent in the stand off can strike {enc.name(actor)}.")
    order = enc.order()

    def key(a: str) -> tuple[float, int, int]:
        cb = enc.combatants.get(a)
        ic = cb.ic if cb else -(10**9)
        return (enc.distance(actor, a), -ic, order.index(a) if a in order else len(order))

    return min(candidates, key=key)


def resolve_crack(enc: Encounter, actor: str, answer: str, roller: Roller | None = None) -> Outcome:
    """Answer a ``standoff_crack`` Choice (rule 8). ``surrender``: he may take no action without
    permission or an order from the check's winners. ``be_attacked``: the nearest opponent's
    strike hits automatically; a special character drops to -1 wound points (dying), a standard
    one dies. The strike is damage: it ends the stand off (⚙ ``standoff_crack_strike_ends``),
    or else only the struck one leaves it. No dice are rolled; ``roller`` is accepted for a
    uniform call shape."""
    enc.character(actor)
    if answer not in CRACK_OPTIONS:
        raise RuleError("bad_answer", f"Answer one of {', '.join(CRACK_OPTIONS)}.")
    so = next((s for s in active_standoffs(enc) if actor in s.pending_cracks), None)
    if so is None:
        raise RuleError(
            "no_pending_crack", f"{enc.name(actor)} has no crack to answer (it may have lapsed)."
        )
    out = Outcome()
    if answer == "surrender":
        _surrender(enc, so, actor, so.pending_cracks.pop(actor), out, cracked=True)
        return out
    striker = _striker(enc, so, actor)  # may raise: nothing changed yet
    so.pending_cracks.pop(actor)
    ch = enc.character(actor)
    if ch.kind == "special":
        old = ch.wounds
        ch.wounds = min(old, -1)
        result = "dying"
        text = (
            f"{enc.name(striker)} strikes {ch.display}: an automatic hit, wound points "
            f"{old} → {ch.wounds} (dying)."
        )
    else:
        ch.conditions.add("dead")
        if actor in enc.combatants:
            enc.combatants[actor].out = True
        result = "killed"
        text = f"{enc.name(striker)} strikes {ch.display}: an automatic hit, and he is killed."
    out.add("crack_strike", striker, text, target=actor, result=result, standoff=so.id)
    if options(enc).standoff_crack_strike_ends:
        _end(enc, so, "damage", out)
    else:
        _leave(enc, so, actor, out)
        _check_end(enc, so, out)
    return out


def _leave(enc: Encounter, so: StandOff, actor: str, out: Outcome) -> None:
    for side in so.sides:
        if actor in side:
            side.remove(actor)
    so.weapons.pop(actor, None)
    ch = enc.character(actor)
    ch.conditions.discard("standoff")
    if actor not in so.had_vulnerable:
        ch.conditions.discard("vulnerable")
    out.add("standoff_left", actor, f"{ch.display} is out of the stand off.", standoff=so.id)


# -- rule 9: surrender and permission ------------------------------------------------------------


def _surrender(
    enc: Encounter, so: StandOff, actor: str, to: list[str], out: Outcome, *, cracked: bool
) -> None:
    so.surrendered.append(actor)
    so.surrender_to[actor] = list(to)
    enc.character(actor).conditions.add("surrendered")
    whom = _names(enc, to) if to else "any opponent in the stand off"
    out.add(
        "surrendered",
        actor,
        f"{enc.name(actor)} surrenders: no action without permission or an order from {whom}.",
        standoff=so.id,
        to=list(to),
        cracked=cracked,
    )
    _check_end(enc, so, out)


def surrender(enc: Encounter, actor: str) -> Outcome:
    """Rule 9: a participant gives up before a round's Resolve check (any time in the round,
    since the check opens the next). He then needs permission or an order from an opponent in
    the stand off to act. With a crack pending this is his answer to it."""
    enc.character(actor)
    so = standoff_of(enc, actor)
    if so is None:
        raise RuleError("not_in_standoff", f"{enc.name(actor)} is not in a stand off.")
    if actor in so.surrendered:
        raise RuleError("already_surrendered", f"{enc.name(actor)} has already surrendered.")
    if actor in so.pending_cracks:
        return resolve_crack(enc, actor, "surrender")
    out = Outcome()
    _surrender(enc, so, actor, [], out, cracked=False)
    return out


def _surrender_record(enc: Encounter, actor: str) -> StandOff | None:
    return next((so for so in reversed(spycraft(enc).standoffs) if actor in so.surrendered), None)


def may_permit(enc: Encounter, so: StandOff, actor: str) -> list[str]:
    """Who may give surrendered ``actor`` permission or orders: the winners of the check that
    cracked him, else any opponent in the stand off; never one who surrendered or is dead."""

    def able(p: str) -> bool:
        return p != actor and p not in so.surrendered and "dead" not in enc.character(p).conditions

    if so.surrender_to.get(actor):
        return [p for p in so.surrender_to[actor] if able(p)]
    mine = so.side_of(actor)
    pool = [p for p in so.participants if so.side_of(p) != mine and able(p)]
    if not pool:
        # No able opponent across the sides happens only once his side has split
        # (⚙ one_participant: each checks on his own): former teammates are his opponents now.
        pool = [p for p in so.participants if able(p)]
    return pool


def grant_permission(enc: Encounter, granter: str, actor: str, *, order: str = "") -> Outcome:
    """Rule 8/9: ``granter`` lets surrendered ``actor`` take one action (or orders him to).
    The surrender is lifted until :func:`permission_used` or the next round start. While the
    stand off lasts he is still limited to free actions."""
    enc.character(granter)
    enc.character(actor)
    so = _surrender_record(enc, actor)
    if so is None:
        raise RuleError("not_surrendered", f"{enc.name(actor)} has not surrendered.")
    if actor in so.permitted:
        raise RuleError(
            "already_permitted", f"{enc.name(actor)} already has permission for one action."
        )
    allowed = may_permit(enc, so, actor)
    if granter not in allowed:
        raise RuleError(
            "not_allowed",
            f"{enc.name(granter)} cannot release {enc.name(actor)}; "
            f"only {_names(enc, allowed)} can.",
            allowed=allowed,
        )
    enc.character(actor).conditions.discard("surrendered")
    so.permitted[actor] = granter
    what = f": {order}" if order else ""
    out = Outcome()
    out.add(
        "permission_granted",
        granter,
        f"{enc.name(granter)} allows {enc.name(actor)} one action{what}.",
        target=actor,
        order=order,
    )
    return out


def permission_used(enc: Encounter, actor: str) -> Outcome:
    """The permitted action is done: ``actor`` is surrendered again."""
    enc.character(actor)
    so = next((s for s in spycraft(enc).standoffs if actor in s.permitted), None)
    if so is None:
        raise RuleError("no_permission", f"{enc.name(actor)} has no permission to use.")
    so.permitted.pop(actor)
    enc.character(actor).conditions.add("surrendered")
    out = Outcome()
    out.add("permission_used", actor, f"{enc.name(actor)} has taken his permitted action.")
    return out


def _lapse_permissions(enc: Encounter, so: StandOff, out: Outcome) -> None:
    for actor in list(so.permitted):
        so.permitted.pop(actor)
        enc.character(actor).conditions.add("surrendered")
        out.add("permission_lapsed", actor, f"{enc.name(actor)}'s permission lapses unused.")


# -- rule 11: joining ------------------------------------------------------------------------------


def join(
    enc: Encounter,
    actor: str,
    standoff_id: str,
    side: int,
    weapon: str,
    roller: Roller | None = None,
) -> Outcome:
    """Rule 11: as a half action on his turn, a character within CQB range (30 ft) of a
    participant joins ``side`` (0: the one who stood off, 1: the attacker), levelling
    ``weapon``. A side of 2 or more then makes team checks. No dice are rolled."""
    ch = enc.character(actor)
    so = get_standoff(enc, standoff_id)
    if side not in range(len(so.sides)):
        raise RuleError("bad_side", f"Side must be 0 or {len(so.sides) - 1}.")
    if not weapon.strip():
        raise RuleError("no_weapon", "Name the weapon or unarmed attack he levels.")
    if standoff_of(enc, actor) is not None:
        raise RuleError("already_in_standoff", f"{ch.display} is already in a stand off.")
    _incapacitated(enc, actor)
    if actor not in enc.positions:
        raise RuleError("no_position", f"{ch.display} has no position on the map.")
    placed = [p for p in so.participants if p in enc.positions]
    if not placed:
        raise RuleError("no_position", f"Nobody in stand off {so.id} has a position on the map.")
    dist = min(enc.distance(actor, p) for p in placed)
    if dist > CQB_RANGE_FT:
        raise RuleError(
            "out_of_range",
            f"{ch.display} is {dist:g} ft from the stand off; joining needs CQB range "
            f"({CQB_RANGE_FT:g} ft).",
            distance=dist,
        )
    enc.combatant(actor)  # only someone in the turn order joins (on his turn)
    actions.check(enc, actor, JOIN_STAND_OFF)

    out = Outcome()
    actions.take(enc, actor, JOIN_STAND_OFF)
    so.sides[side].append(actor)
    _enter(enc, so, actor, weapon.strip())
    team = len(so.sides[side]) >= 2
    out.add(
        "standoff_joined",
        actor,
        f"{ch.display} enters stand off {so.id} levelling {weapon.strip()}, beside "
        f"{_names(enc, [a for a in so.sides[side] if a != actor])}"
        + (" (team Resolve checks from now on)." if team else "."),
        standoff=so.id,
        side=side,
        weapon=weapon.strip(),
    )
    return out
