"""Characters and the stats the rules read. One flat model serves both systems; a world fills
in the fields its system uses (``!stats``, a script, or the VTT's actor sheet)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


def ability_modifier(score: int) -> int:
    """d20-style modifier: floor((score - 10) / 2)."""
    return (score - 10) // 2


class Character(BaseModel):
    model_config = ConfigDict(validate_assignment=True, allow_inf_nan=False)

    id: str
    name: str = ""
    kind: Literal["special", "standard"] = "special"
    """Spycraft: special characters (PCs, special NPCs) spend action dice and track wounds."""

    # -- Spycraft 2.0 ------------------------------------------------------------------------
    initiative: int = 0
    reflex: int = 0
    bab: int = 0
    resolve: int = 0
    wisdom: int = 10
    action_dice: int = 0
    vitality: int = 0
    wounds: int = 10
    max_wounds: int = 10
    stress: int = 0
    defense_base: int = 10
    dex_bonus: int = 0
    dodge_bonus: int = 0
    conditions: set[str] = Field(default_factory=set)

    # -- Fallout: Equestria ------------------------------------------------------------------
    move: float = 25.0
    """Move speed in feet per action."""
    strength: int = 5
    agility: int = 5
    perception_skill: int = 0
    sneak_skill: int = 0
    weight: float = 0.0
    """Carried weight in macs (the sneak penalty starts at 50)."""
    quick_witted: bool = False
    initiative_bonus: int = 0
    """FoE additive initiative bonuses (Quick Witted, Dash...)."""
    horns: Literal[0, 1, 2] = 0
    burrowing: bool = False

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
