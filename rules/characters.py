"""Characters and the stats the rules read. One flat model serves both systems; a world fills
in the fields its system uses (``!stats``, a script, or the VTT's actor sheet).

Who owns which value: the sheet owns every stat the rules only read (Reflex, BAB, Wisdom, move,
Agility, weight...): the character always follows it. The rules own what they change: the stats
in :data:`RULES_OWNED` and ``Character.conditions``. A sheet edit changes a rules-owned value
only where the GM really changed it there; every change the rules make goes back to the sheet
(the runtime and the VTT adapters do both, see ``sdk/world.py``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from vttbridge.rules.numbers import Finite, Whole


def ability_modifier(score: int) -> int:
    """d20-style modifier: floor((score - 10) / 2)."""
    return (score - 10) // 2


RULES_OWNED: dict[str, str] = {
    "action_dice": "action dice",
    "stress": "stress",
    "wounds": "wound points",
    "vitality": "vitality points",
}
"""The stats the rules change (a Stand Off spends an action die, a Resolve check deals stress, a
crack strike sets wound points), with the words chat uses for them. Every other stat belongs
to the sheet."""


class Character(BaseModel):
    model_config = ConfigDict(validate_assignment=True, allow_inf_nan=False)

    id: str
    name: str = ""
    kind: Literal["special", "standard"] = "special"
    """Spycraft: special characters (PCs, special NPCs) spend action dice and track wounds."""

    # -- Spycraft 2.0 ------------------------------------------------------------------------
    initiative: Whole = 0
    reflex: Whole = 0
    bab: Whole = 0
    resolve: Whole = 0
    wisdom: Whole = 10
    action_dice: Whole = 0
    vitality: Whole = 0
    wounds: Whole = 10
    max_wounds: Whole = 10
    stress: Whole = 0
    defense_base: Whole = 10
    dex_bonus: Whole = 0
    dodge_bonus: Whole = 0
    conditions: set[str] = Field(default_factory=set)
    """Conditions the rules put on the character (``standoff``, ``vulnerable``, ``surrendered``,
    ``dead``...); rules-owned. :func:`vttbridge.rules.conditions.conditions_of` adds those the
    encounter implies."""

    # -- Fallout: Equestria ------------------------------------------------------------------
    move: Finite = 25.0
    """Move speed in feet per action."""
    strength: Whole = 5
    agility: Whole = 5
    perception_skill: Whole = 0
    sneak_skill: Whole = 0
    weight: Finite = 0.0
    """Carried weight in macs (the sneak penalty starts at 50)."""
    quick_witted: bool = False
    initiative_bonus: Whole = 0
    """FoE additive initiative bonuses (Quick Witted, Dash...)."""
    horns: Literal[0, 1, 2] = 0
    burrowing: bool = False
    """A burrowing creature (hellhound, sand dog): underground and alone in its tunnel it
    sneaks under a +50 / 2 MFD stealth field
    (``vttbridge.systems.foe.rules.sneaking.burrowing_field``)."""
    underground: bool = False
    """Fully underground now (a sheet flag or ``!stats``; a region named ``tunnel...`` says
    so too, see ``vttbridge.systems.foe.chat``)."""

    @property
    def display(self) -> str:
        return self.name or self.id

    @property
    def wisdom_mod(self) -> int:
        return ability_modifier(self.wisdom)

    @property
    def vulnerable(self) -> bool:
        return "vulnerable" in self.conditions

    @property
    def defense(self) -> int:
        """Defense; a vulnerable character loses a positive Dex bonus and all dodge bonuses."""
        if self.vulnerable:
            return self.defense_base + min(self.dex_bonus, 0)
        return self.defense_base + self.dex_bonus + self.dodge_bonus
