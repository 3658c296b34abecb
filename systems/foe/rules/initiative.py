"""Fallout: Equestria initiative: the world's formula plus additive bonuses.

Every combatant rolls at combat start (``vttbridge.rules.encounter.start_combat`` asks the
system, :func:`roll_expression`). The formula is ⚙ ``foe_initiative`` (default
``1d100`` [assumed]); a character's bonuses are added to it: ``Character.initiative`` (a base
bonus, e.g. from the actor sheet) plus ``Character.initiative_bonus`` (Quick Witted, Dash and the
like, summed by whoever fills in the sheet). The ``quick_witted`` flag itself adds nothing here:
what it grants by rule is a place in the surprise round (``vttbridge.systems.foe.rules.surprise``).
"""

from __future__ import annotations

from vttbridge.rules.characters import Character
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.options import Options
from vttbridge.systems.foe.rules.options import FoEOptions


def initiative_modifier(ch: Character) -> int:
    """The total additive bonus (or penalty) to a character's FoE initiative roll."""
    return ch.initiative + ch.initiative_bonus


def initiative_expression(options: Options, ch: Character) -> str:
    """The dice expression a character rolls for initiative: ``"1d100+15"``."""
    mod = initiative_modifier(ch)
    base = options.of(FoEOptions).foe_initiative.strip()
    if mod == 0:
        return base
    return f"{base}+{mod}" if mod > 0 else f"{base}{mod}"


def roll_expression(enc: Encounter, ch: Character) -> str:
    """The system's initiative formula (``System.initiative``): :func:`initiative_expression`
    with the world's options."""
    return initiative_expression(enc.options, ch)
