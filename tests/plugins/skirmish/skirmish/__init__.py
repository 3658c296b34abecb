"""Skirmish: a small game system written against vttbridge's public door, the way a third party
would write one, to show that nothing in vttbridge names the systems it ships with.

Each turn has three actions (as Pathfinder 2e's): ``!strike`` costs one, ``!raise-shield`` one
(the shield stays up until his next turn), ``!stride`` one. Initiative is 1d20 + Initiative.

This module is the rules' face only (:data:`SYSTEM`); the chat commands and the dashboard
panel are in :mod:`skirmish.table`, which the SDK imports.
"""

from vttbridge.rules.systems import System

from skirmish.rules import NAME, SkirmishOptions, SkirmishState, costs, shield_down, words

SYSTEM = System(
    NAME,
    "Skirmish",
    state=SkirmishState,
    options=SkirmishOptions,
    costs=costs(),
    words=words(),
    action_word="action",
    actions_per_turn=3,
    turn_start=(shield_down,),
    stats=("initiative",),
    table="skirmish.table:TABLE",
)
