"""Fallout: Equestria state an encounter carries (surprise round bookkeeping)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class FoEState(BaseModel):
    surprise_round: bool = False
    """True while the surprise round is being played."""
    surprised: list[str] = Field(default_factory=list)
    """Combatants who sit out the surprise round."""
    sneak_attack_targets: list[str] = Field(default_factory=list)
    """Targets who did not expect any attack: the next hit on them is a sneak attack critical."""
