"""Spycraft 2.0 state an encounter carries: active Ready actions and stand offs.

Plain data, importing nothing but pydantic, so ``rules.encounter`` can hold it without cycles.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ReadyAction(BaseModel):
    """A declared Ready: one half action, held until its trigger occurs (seed 001)."""

    actor: str
    action: str
    """The half action to take, in the player's words (``"Standard Attack with pistol"``)."""
    trigger: str
    """The trigger's name or description; the runtime decides when it has occurred."""
    timing: Literal["attempt", "completion"] = "completion"
    """``attempt``: intercede before the task; ``completion``: follow it (rule 1)."""
    declared_round: int
    declared_ic: int
    carried_over: bool = False
    """True from the start of the following round until it fires or expires (rule 4)."""
    pending: bool = False
    """The trigger occurred and the actor is deciding whether to cancel (rule 3)."""
    trigger_ic: int | None = None


class StandOff(BaseModel):
    """A stand off in progress (seed 000). ``sides`` holds two lists of participant ids."""

    id: str
    sides: list[list[str]] = Field(default_factory=lambda: [[], []])
    surrendered: list[str] = Field(default_factory=list)
    """Participants who surrendered or cracked and surrendered; they remain until released."""
    started_round: int = 0
    last_check_round: int = 0
    weapons: dict[str, str] = Field(default_factory=dict)
    """What each participant levels (the weapon or unarmed attack named on entering)."""

    def side_of(self, actor: str) -> int | None:
        for i, side in enumerate(self.sides):
            if actor in side:
                return i
        return None

    @property
    def participants(self) -> list[str]:
        return [a for side in self.sides for a in side]


class SpycraftState(BaseModel):
    readies: dict[str, ReadyAction] = Field(default_factory=dict)
    standoffs: list[StandOff] = Field(default_factory=list)
    next_standoff: int = 1
