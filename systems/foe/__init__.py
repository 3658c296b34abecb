"""Fallout: Equestria as a vttbridge game system: surprise round, movement and running,
charge, jumping, sneaking.

One package, registered through the ``vttbridge.systems`` entry point group as
``vttbridge.systems.foe:SYSTEM``, as a third party's system would be:

- :mod:`vttbridge.systems.foe.rules`: the rules, pure (no I/O, dice through a roller), one rule
  per module; their state, ⚙ options and action costs;
- :mod:`vttbridge.systems.foe.chat`: the chat commands (``!surprise``, ``!move``, ``!charge``...)
  and the movement rules' judge of VTT drags, written with the SDK's :class:`vttbridge.sdk.Script`;
- :mod:`vttbridge.systems.foe.panels`: the dashboard's movement left this turn;
- :mod:`vttbridge.systems.foe.table`: those two, as the SDK loads them.

This module imports the rules only: the rules core reads :data:`SYSTEM` without the SDK. Its
round hook ends the surprise round, its turn hook clears the per-turn FoE state, and its gate
keeps the surprised out of every action of the surprise round.
"""

from vttbridge.rules.conditions import Duration
from vttbridge.rules.systems import System
from vttbridge.systems.foe.rules import (  # noqa: F401  (the package's API)
    charge,
    checks,
    economy,
    initiative,
    jumping,
    mfd,
    movement,
    sneaking,
    surprise,
    turns,
)
from vttbridge.systems.foe.rules.charge import (
    charge_attack,
    charge_dragged,
    charge_fear_check,
    horn_charge_damage,
)
from vttbridge.systems.foe.rules.citations import CITATIONS
from vttbridge.systems.foe.rules.initiative import initiative_expression, initiative_modifier
from vttbridge.systems.foe.rules.jumping import can_clear, high_jump, jump, long_jump
from vttbridge.systems.foe.rules.movement import dodge, move, movement_allowed, round_cap
from vttbridge.systems.foe.rules.options import FoEOptions
from vttbridge.systems.foe.rules.sneaking import (
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
from vttbridge.systems.foe.rules.state import NAME, FoEState, StealthField
from vttbridge.systems.foe.rules.surprise import (
    is_sneak_attack_target,
    sneak_attack,
    sneak_attack_damage,
    start_surprise_round,
)

SYSTEM = System(
    NAME,
    "Fallout: Equestria",
    state=FoEState,
    options=FoEOptions,
    costs=economy.COSTS,
    words=economy.WORDS,
    action_word="action",
    takes_over_moves=frozenset({economy.CHARGE}),
    initiative=initiative.roll_expression,
    round_start=(surprise.end_surprise_round,),
    turn_start=(turns.clear_turn_state,),
    gates=(turns.sits_out,),
    left=movement.left,
    conditions=turns.conditions,
    movement=movement.budget_figures,
    stats=economy.STATS,
    # a charge lasts until his next turn starts
    durations={"charged": Duration(rounds=1, ends="turn_start")},
    citations=CITATIONS,
    table="vttbridge.systems.foe.table:TABLE",
)

__all__ = [
    "BURROWING",
    "STEALTH_FIELDS",
    "SYSTEM",
    "FoEOptions",
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
