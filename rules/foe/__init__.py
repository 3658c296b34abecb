"""Fallout: Equestria rules: surprise round, movement and running, charge, jumping, sneaking;
one rule per module. :data:`SYSTEM` is the system the ``vttbridge.systems`` entry point group
registers (:mod:`vttbridge.rules.systems`): its round hook ends the surprise round, its turn hook
clears
the per-turn FoE state. ``vttbridge.rules.encounter`` imports ``vttbridge.rules.foe.state`` at its
end, so these modules may import the core's names.
"""

from vttbridge.rules.foe import (  # noqa: F401  (the package's API)
    charge,
    checks,
    initiative,
    jumping,
    mfd,
    movement,
    sneaking,
    surprise,
    turns,
)
from vttbridge.rules.foe.charge import (
    charge_attack,
    charge_dragged,
    charge_fear_check,
    horn_charge_damage,
)
from vttbridge.rules.foe.initiative import initiative_expression, initiative_modifier
from vttbridge.rules.foe.jumping import can_clear, high_jump, jump, long_jump
from vttbridge.rules.foe.movement import dodge, move, movement_allowed, round_cap
from vttbridge.rules.foe.sneaking import (
    BURROWING,
    STEALTH_FIELDS,
    block,
    burrowing_field,
    hide,
    hold_defense,
    sneak,
    sneak_speed,
    stealth_field,
    stealth_fields,
    stop_sneaking,
    weight_penalty,
)
from vttbridge.rules.foe.state import FoEState, StealthField
from vttbridge.rules.foe.surprise import (
    is_sneak_attack_target,
    sneak_attack,
    sneak_attack_damage,
    start_surprise_round,
)
from vttbridge.rules.systems import System

SYSTEM = System(
    "foe",
    "Fallout: Equestria",
    round_start=(surprise.end_surprise_round,),
    turn_start=(turns.clear_turn_state,),
)

__all__ = [
    "BURROWING",
    "STEALTH_FIELDS",
    "SYSTEM",
    "FoEState",
    "StealthField",
    "block",
    "burrowing_field",
    "can_clear",
    "charge_attack",
    "charge_dragged",
    "charge_fear_check",
    "dodge",
    "hide",
    "high_jump",
    "hold_defense",
    "horn_charge_damage",
    "initiative_expression",
    "initiative_modifier",
    "is_sneak_attack_target",
    "jump",
    "long_jump",
    "move",
    "movement_allowed",
    "round_cap",
    "sneak",
    "sneak_attack",
    "sneak_attack_damage",
    "sneak_speed",
    "start_surprise_round",
    "stealth_field",
    "stealth_fields",
    "stop_sneaking",
    "weight_penalty",
]
