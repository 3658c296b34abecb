"""What Fallout: Equestria asks of the shared action economy (:mod:`vttbridge.rules.actions`):
the names and costs of its actions, and how chat words them.

A FoE round gives each combatant two actions (the core's two half actions; one in the surprise
round). Moving spends one action per move speed of distance (:mod:`.movement`); a charge takes
both actions, but moves already made this turn (and nothing else) count toward it
(:func:`vttbridge.systems.foe.rules.charge.charge_dragged`).
"""

from __future__ import annotations

from collections.abc import Mapping

from vttbridge.rules.actions import ATTACK, MOVE
from vttbridge.rules.systems import Kind

CHARGE = "charge"
SNEAK = "sneak"
HIDE = "hide"
DODGE = "dodge"
SNEAK_ATTACK = "sneak attack"

COSTS: Mapping[str, Kind] = {
    ATTACK: "half",
    MOVE: "move",
    CHARGE: "full",
    SNEAK: "half",
    HIDE: "free",
    DODGE: "half",
    SNEAK_ATTACK: "half",
    "charge attack": "none",  # part of the charge
    "jump": "none",  # a judgment; the flight is an ordinary move
    "stop sneaking": "none",
    "hold defense": "none",  # forfeits a sneak action's movement
}
"""Action name -> cost kind."""

WORDS: Mapping[Kind, str] = {
    "free": "a free action",
    "half": "1 action",
    "full": "both actions",
    "move": "1 action per move speed moved",
    "none": "no action",
}
"""How chat names each cost kind (FoE counts actions, not half actions)."""

STATS = (
    "move",
    "strength",
    "agility",
    "perception_skill",
    "sneak_skill",
    "weight",
    "quick_witted",
    "initiative_bonus",
    "horns",
    "burrowing",
)
"""What ``!stats`` shows of a character."""
