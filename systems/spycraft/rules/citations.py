"""Which Spycraft 2.0 rule refused or decided something: the citations of the Ready, Stand Off
and Delay rules (:mod:`vttbridge.rules.citations` says how a refusal finds its own). The
sentences are the source text's, as ``docs/rules.md`` quotes them."""

from __future__ import annotations

from vttbridge.rules.citations import Citation, Citations

SOURCE = "Spycraft 2.0"

SPYCRAFT = Citation(
    source=SOURCE,
    rule="Spycraft 2.0",
    anchor="spycraft-20",
    reading="Spycraft rules run only in a world that plays Spycraft 2.0.",
)
DELAY = Citation(
    source=SOURCE,
    rule="Delay",
    anchor="delay",
    reading=(
        "Assumed: on his turn, before taking any action, a character lowers his IC by some "
        "steps, at most Initiative bonus + 10 steps a round, never below IC 5."
    ),
)
READY_1 = Citation(
    source=SOURCE,
    rule="Ready 1: one half action and a trigger",
    anchor="ready-1-one-half-action-and-a-trigger",
    quote=(
        "When a character takes a Ready action, he must decide upon two things — 1 half action "
        "that he will take later during the current round and a trigger that will cause him to "
        "take the action."
    ),
    reading=(
        "A Ready is a full action on his own turn; it ends his turn. He names one half action "
        "and the trigger; one Ready at a time."
    ),
)
READY_2 = Citation(
    source=SOURCE,
    rule="Ready 2: the IC drops to the trigger's count",
    anchor="ready-2-the-ic-drops-to-the-triggers-count",
    quote=(
        "If a Ready action's trigger occurs at an Initiative Count lower than that of the "
        "character, the character's Initiative Count is immediately reduced to the current "
        "Initiative Count; otherwise, the character's Initiative Count remains unchanged."
    ),
    reading="The IC is only ever lowered, when the trigger occurs, and the new IC carries into "
    "the next round.",
)
READY_3 = Citation(
    source=SOURCE,
    rule="Ready 3: cancelling when the trigger occurs",
    anchor="ready-3-cancelling-when-the-trigger-occurs",
    quote=(
        "Should the character decide to cancel his action when the trigger occurs, he must make "
        "a Reflex save (DC 15). With failure, the character must go through with his declared "
        "action, regardless of the consequences."
    ),
    reading=(
        "The player is asked fire or cancel; cancel rolls 1d20 + Reflex against DC 15. While the "
        "question is open the Ready is pending: another trigger is refused. A trigger while he "
        "may take only free actions is refused and the Ready waits; a Ready that has ended "
        "triggers nothing."
    ),
)
READY_4 = Citation(
    source=SOURCE,
    rule="Ready 4: no trigger this round",
    anchor="ready-4-no-trigger-this-round",
    quote=(
        "Finally, if a character's Ready trigger doesn't occur during the current round, he "
        "loses the chance to act during the current round, his Initiative Count remains "
        "unchanged, and his Ready action remains active until the start of his Initiative Count "
        "during the following round."
    ),
)
READY_5 = Citation(
    source=SOURCE,
    rule="Ready 5: ending it early",
    anchor="ready-5-ending-it-early",
    options=("ready_end_failure",),
    quote=(
        "Should the character decide to end his Ready action between the start of the following "
        "round and his Initiative Count during that round, he must make the Reflex save as "
        "standard."
    ),
    reading="The save is needed in the declaring round too; what a failed save does is the "
    "option's.",
)
READY_6 = Citation(
    source=SOURCE,
    rule="Ready 6: a carried-over Ready and the turn",
    anchor="ready-6-a-carried-over-ready-and-the-turn",
    options=("carryover_consumes_turn",),
    reading="The text does not say whether a Ready that fires in the following round, before "
    "his IC, costs him that round's turn: by default it does not.",
)
STAND_OFF = Citation(
    source=SOURCE,
    rule="Stand Off",
    anchor="stand-off",
    reading="A stand off the rules are asked about must be one in progress.",
)
_SO_SENTENCE = (
    "When an opponent within melee or CQB Range attacks a special character, but before the "
    "attack check is made, the target character may spend 1 action die and voluntarily reduce "
    "his Initiative Count by 5 to make a Reflex save (DC 10 + the opponent's base attack bonus)."
)
STAND_OFF_1 = Citation(
    source=SOURCE,
    rule="Stand Off 1: who may stand off",
    anchor="stand-off-1-who-may-stand-off",
    options=("diagonal_metric",),
    quote=_SO_SENTENCE,
    reading=(
        "Only a special character, with an action die left, in the combat, not dying or dead, "
        "not already in a stand off, may stand off an attacker in the combat. Assumed: melee or "
        "CQB range is 30 ft, measured with the world's metric."
    ),
)
STAND_OFF_2 = Citation(
    source=SOURCE,
    rule="Stand Off 2: the cost",
    anchor="stand-off-2-the-cost",
    options=("standoff_ic_floor",),
    quote="spend 1 action die and voluntarily reduce his Initiative Count by 5",
    reading="Paid up front, whatever the save's result; how low the IC may go is the option's.",
)
STAND_OFF_3 = Citation(
    source=SOURCE,
    rule="Stand Off 3: the save",
    anchor="stand-off-3-the-save",
    quote=_SO_SENTENCE,
    reading="1d20 + Reflex against DC 10 + the attacker's BAB; meeting the DC succeeds.",
)
STAND_OFF_4 = Citation(
    source=SOURCE,
    rule="Stand Off 4: vulnerable, free actions only",
    anchor="stand-off-4-vulnerable-free-actions-only",
    quote=(
        "During a stand off, all participants are vulnerable, and unless otherwise specified, "
        "each participant may only take free actions."
    ),
    reading="Any half or full action of a participant is refused; a surrendered one may take "
    "no action at all (Stand Off 8 and 9).",
)
STAND_OFF_5 = Citation(
    source=SOURCE,
    rule="Stand Off 5: damage ends it",
    anchor="stand-off-5-damage-ends-it",
    quote=(
        "Further, if any participant in a stand off suffers 1 or more points of damage, the "
        "stand off immediately ends and all participants re-enter combat per the standard rules."
    ),
)
STAND_OFF_6 = Citation(
    source=SOURCE,
    rule="Stand Off 6: the round's Resolve checks",
    anchor="stand-off-6-the-rounds-resolve-checks",
    options=("standoff_tie",),
    quote=(
        "Finally, at the start of each round, before any other actions are taken, the "
        "participants make an opposed Resolve (Wis) check."
    ),
    reading="Each side rolls 1d20 + Resolve (a side of two or more with its highest bonus); "
    "the losers take 1d6 + the winner's Wisdom modifier stress, at least 1.",
)
STAND_OFF_7 = Citation(
    source=SOURCE,
    rule="Stand Off 7: stress thresholds",
    anchor="stand-off-7-stress-thresholds",
    options=("standoff_crack",),
    quote=(
        "If this causes any participant's stress damage to exceed one or more of his stress "
        "thresholds, he cracks and must immediately decide whether to surrender or be attacked."
    ),
    reading="Assumed: his stress thresholds are multiples of his Wisdom score.",
)
STAND_OFF_8 = Citation(
    source=SOURCE,
    rule="Stand Off 8: cracking: surrender or be attacked",
    anchor="stand-off-8-cracking-surrender-or-be-attacked",
    options=("standoff_crack_strike_ends",),
    quote=(
        "If he surrenders, he may perform no action without first receiving permission or an "
        "order from the winner of the Resolve check that cracked him."
    ),
    reading="A surrendered participant may take no action until a winner of that check gives "
    "permission or an order (for one action); the strike comes from the nearest opponent who "
    "has not surrendered.",
)
STAND_OFF_9 = Citation(
    source=SOURCE,
    rule="Stand Off 9: surrendering before the check",
    anchor="stand-off-9-surrendering-before-the-check",
    quote=(
        "Any character may choose to surrender before making each round's Resolve check, after "
        "which he may perform no action without first receiving permission or an order from an "
        "opponent in the stand off."
    ),
)
STAND_OFF_10 = Citation(
    source=SOURCE,
    rule="Stand Off 10: the end",
    anchor="stand-off-10-the-end",
    options=("standoff_ends_when",),
    quote=(
        "If not interrupted by damage inflicted to 1 or more participants, a stand off continues "
        "until only 1 participant remains."
    ),
)
STAND_OFF_11 = Citation(
    source=SOURCE,
    rule="Stand Off 11: entering a stand off",
    anchor="stand-off-11-entering-a-stand-off",
    options=("diagonal_metric",),
    quote=(
        "As a half action, any character within CQB range of a stand off in progress may enter "
        "it, choosing 1 weapon or unarmed attack to level at involved opponents."
    ),
    reading="Assumed: CQB range is 30 ft, measured with the world's metric.",
)

CITATIONS = Citations(
    source=SOURCE,
    refusals={
        "wrong_system": SPYCRAFT,
        "ready:wrong_system": SPYCRAFT,
        "delay": DELAY,
        "economy.blocked": STAND_OFF_4,
        "ready.declare": READY_1,
        "ready.trigger_occurred:no_count": READY_2,
        "ready.trigger_occurred": READY_3,
        "ready.resolve_trigger": READY_3,
        "ready.end_ready": READY_5,
        "ready": READY_3,
        "standoff.get_standoff": STAND_OFF,
        "standoff._incapacitated": STAND_OFF_1,
        "standoff.can_stand_off": STAND_OFF_1,
        "standoff.damage_dealt": STAND_OFF_5,
        "standoff.resolve_tie": STAND_OFF_6,
        "standoff._striker": STAND_OFF_8,
        "standoff.resolve_crack": STAND_OFF_8,
        "standoff.grant_permission": STAND_OFF_8,
        "standoff.permission_used": STAND_OFF_8,
        "standoff.surrender": STAND_OFF_9,
        "standoff.join": STAND_OFF_11,
        "standoff": STAND_OFF,
    },
    decisions={
        "delayed": DELAY,
        "ic_changed:delay": DELAY,
        "ready_declared": READY_1,
        "ready_triggered": READY_2,
        "ic_changed:Ready triggered": READY_2,
        "ready_fired": READY_3,
        "ready_cancelled": READY_3,
        "ready_carried_over": READY_4,
        "ready_expired": READY_4,
        "ready_end_failed": READY_5,
        "turn_forfeited": READY_6,
        "action_die_spent": STAND_OFF_2,
        "ic_changed:stand off": STAND_OFF_2,
        "reflex_save": STAND_OFF_3,
        "standoff_started": STAND_OFF_3,
        "standoff_damage": STAND_OFF_5,
        "resolve_check": STAND_OFF_6,
        "stress_damage": STAND_OFF_6,
        "cracked": STAND_OFF_7,
        "crack_strike": STAND_OFF_8,
        "surrendered": STAND_OFF_9,
        "standoff_ended": STAND_OFF_10,
        "standoff_joined": STAND_OFF_11,
    },
)
"""The Spycraft rules' citations, registered with the system (``SYSTEM.citations``)."""
