"""Which Fallout: Equestria rule refused or decided something: the citations of the FoE rules
(:mod:`vttbridge.rules.citations` says how a refusal finds its own). The sentences are the
source text's, as ``docs/rules.md`` quotes them."""

from __future__ import annotations

from vttbridge.rules.citations import Citation, Citations

SOURCE = "FoE"

FOE = Citation(
    source=SOURCE,
    rule="Fallout: Equestria",
    anchor="fallout-equestria",
    reading="FoE rules run only in a world that plays Fallout: Equestria.",
)
SURPRISE = Citation(
    source=SOURCE,
    rule="Surprise round",
    anchor="surprise-round",
    options=("surprise_after",),
    quote=(
        "When a surprise round occurs, the attacking group's members (and any character with the "
        "Quick Witted perk) all roll initiative. They all receive a single action for the round "
        "(instead of the two actions from a standard round). [...] When all of them have "
        "completed their actions, normal combat begins, and initiative is re-rolled for all "
        "characters (though some GMs may prefer to keep the existing initiative order and simply "
        "add the surprised characters into the existing line up)."
    ),
    reading=(
        "A defender aware of the attackers is not surprised; the surprised sit the round out and "
        "may not act or move by any path; the attackers, the aware and the Quick Witted get one "
        "action each. The round after gives two actions and everyone re-rolls, or, with the "
        "option, keeps the order and adds the surprised."
    ),
)
SNEAK_ATTACK = Citation(
    source=SOURCE,
    rule="Sneak attack critical",
    anchor="sneak-attack-critical",
    quote=(
        "If the attacker is targeting someone who didn't expect to be attacked at all [...] then "
        "this is cause for a sneak attack critical."
    ),
    reading=(
        "Assumed: a hit on a target who expected no attack is an automatic critical, the damage "
        "multiplied by the weapon's critical multiplier (doubled without one) before armor; the "
        "mark is used up by the first hit and lapses when the surprise round ends."
    ),
)
MOVEMENT = Citation(
    source=SOURCE,
    rule="Movement",
    anchor="movement",
    options=("diagonal_metric",),
    quote=(
        "During combat, characters can move up to their listed move speed [...] for each action "
        "spent moving. In other words, they can only do this twice if that is ALL that they do "
        "with their turn. Other actions [...] will reduce the distance your character can cover "
        "in a full round by half. If running (spending both actions to move), a character can "
        "move up to three times their listed speed."
    ),
    reading=(
        "Moving twice and running are the same: both actions spent moving cover 3x speed. A turn "
        "covers 3x his move while every action can still be a move, 1x once another action is "
        "taken (or with a single action), nothing with no action left. The budget is per turn, "
        "not per drag; a path is measured through its waypoints with the world's metric."
    ),
)
CHARGE = Citation(
    source=SOURCE,
    rule="Charge",
    anchor="charge",
    options=("diagonal_metric",),
    quote=(
        "A charge is a special kind of movement that takes both of a character's actions in a "
        "round. Charging allows a character to move at a run (x3 movement speed) and follow it up "
        "with a melee or unarmed attack if at the end of their movement they are adjacent to "
        "(within five feet of) an enemy. [...] A character must be able to move at least 15 feet "
        "in a straight line to perform a charge."
    ),
    reading=(
        "Only a turn with both actions unspent may charge (moves already made this turn count "
        "toward it), never in the surprise round. The path must be straight, at least 15 ft and "
        "at most 3x speed; ending adjacent to an enemy allows the follow-up attack."
    ),
)
CHARGE_FEAR = Citation(
    source=SOURCE,
    rule="Charge (optional fear check)",
    anchor="charge",
    options=("charge_fear_check",),
    quote=(
        "Optional Rule: When charging, if a character has a suitably ferocious battle cry [...] "
        "it may provoke a fear check in their intended target and its allies."
    ),
    reading="With the option on, the GM is asked after a charge whether the battle cry provokes "
    "a fear check.",
)
JUMPING = Citation(
    source=SOURCE,
    rule="Jumping",
    anchor="jumping",
    options=("high_jump_rounding",),
    quote=(
        "The rule of fetlock is this: a pony can jump half as far as they can move in a single "
        "action. If they get a running start before the jump (at least a full movement action's "
        "worth of distance) they may increase that jump distance by 5'. For high jumps, the "
        "height is half of the long jump distance, rounded down."
    ),
    reading=(
        "Long jump = move / 2 (not rounded), +5 ft with a running start: at least one move "
        "action's distance in a straight line just before the jump; high jump = half the long "
        "jump, rounded down. A gap or height beyond him is refused."
    ),
)
SNEAKING = Citation(
    source=SOURCE,
    rule="The sneak action",
    anchor="the-sneak-action",
    quote=(
        "In order to sneak during combat, a character must either roll their sneak skill as an "
        "opposed roll with whatever enemies are present, or be under the effects of a stealth "
        "field. Whether or not this roll is successful or they are detected, they may spend the "
        "rest of their sneaking-action moving up to their listed sneak speed. [...] rolling "
        "sneak to attempt to hide is considered a free action that can be performed once per "
        "combat action."
    ),
    reading=(
        "A sneak action is one Sneak roll against a Perception roll from each enemy present, "
        "then up to his sneak speed of movement. Rolling Sneak to hide is a free action, at most "
        "one roll per action of the round. The movement of a sneak action not yet moved in may "
        "be forfeited to hold a dodge or a block."
    ),
)
SNEAK_SPEED = Citation(
    source=SOURCE,
    rule="Sneak speed",
    anchor="sneak-speed",
    options=("sneak_speed_formula",),
    quote=(
        "Characters that are sneaking can only move up to half their listed move distance per "
        "combat action. This value is rounded down to the nearest five feet [...] A character's "
        "base sneak speed [...] is thus effectively equal to 5 x (AGI/4), rounded down."
    ),
    reading="By default half the current move speed, rounded down to 5 ft; the agility formula "
    "is 5 x floor(AGI / 4).",
)
STEALTH_FIELDS = Citation(
    source=SOURCE,
    rule="Stealth fields",
    anchor="stealth-fields",
    options=("mfd_penalty",),
    quote=(
        "Characters under the effect of an active stealth field [...] can sneak at their full "
        "speed, but receive a -25 roll penalty to sneak while doing so [...] Enemies take the "
        "stealth field as an MFD step penalty to PER rolls to notice them."
    ),
    reading="Under a field: full speed, -25 plus the field's bonus on the Sneak roll, the "
    "field's MFD on the enemies' Perception.",
)

CITATIONS = Citations(
    source=SOURCE,
    refusals={
        "turns.require_foe": FOE,
        "wrong_system": FOE,
        "turns.require_not_surprised": SURPRISE,
        "turns.full_path": MOVEMENT,
        "surprised": SURPRISE,
        "surprise.start_surprise_round": SURPRISE,
        "surprise.sneak_attack": SNEAK_ATTACK,
        "surprise": SURPRISE,
        "movement": MOVEMENT,
        "sneak speed": SNEAK_SPEED,
        "charge.charge_fear_check": CHARGE_FEAR,
        "charge": CHARGE,
        "jumping": JUMPING,
        "sneaking.stealth_field": STEALTH_FIELDS,
        "sneaking": SNEAKING,
    },
    decisions={
        "surprise_round": SURPRISE,
        "quick_witted": SURPRISE,
        "surprise_round_ended": SURPRISE,
        "initiative_rerolled": SURPRISE,
        "sneak_attack_target": SNEAK_ATTACK,
        "sneak_attack_critical": SNEAK_ATTACK,
        "charged": CHARGE,
        "charge_no_attack": CHARGE,
        "charge_fear_check_offered": CHARGE_FEAR,
        "no_fear_check": CHARGE_FEAR,
        "jumped": JUMPING,
        "jump_distances": JUMPING,
        "sneaking": SNEAKING,
        "sneak_rolled": SNEAKING,
        "noticed": SNEAKING,
        "unnoticed": SNEAKING,
        "dodged": MOVEMENT,
    },
)
"""The FoE rules' citations, registered with the system (``SYSTEM.citations``)."""
