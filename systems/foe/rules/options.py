"""Fallout: Equestria's ⚙ options (``docs/rules.md`` describes each with the rule it changes):
a world sets them beside the shared ones (``!set surprise_after insert``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from vttbridge.rules.encounter import Encounter

DEFAULT_MFD_LADDER = [0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]


class FieldStats(BaseModel):
    """A stealth field's numbers: its constant sneak ``bonus`` and its ``mfd`` (the step
    penalty enemies take on Perception)."""

    model_config = ConfigDict(extra="forbid")

    bonus: int
    mfd: float = Field(gt=0)
    magical: bool = True


class FoEOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    foe_initiative: str = "1d100"
    """FoE initiative roll; per-character bonuses (Quick Witted, Dash...) are added to it."""
    surprise_after: Literal["reroll", "insert"] = "reroll"
    """After a surprise round: everyone re-rolls, or keep the order and insert the surprised."""
    high_jump_rounding: Literal["foot", "five_ft"] = "foot"
    sneak_speed_formula: Literal["half_move", "agility"] = "half_move"
    mfd_penalty: Literal["steps", "multiplier"] = "steps"
    mfd_ladder: list[Annotated[float, Field(allow_inf_nan=False, gt=0, le=1000)]] = Field(
        default_factory=lambda: list(DEFAULT_MFD_LADDER), min_length=1, max_length=100
    )
    """The MFD rungs (multipliers on a roll-under target, each above 0), hardest to easiest."""
    charge_fear_check: bool = False
    stealth_fields: dict[str, FieldStats] = Field(default_factory=dict)
    """Named stealth fields, over the built-in ones
    (``vttbridge.systems.foe.rules.sneaking.STEALTH_FIELDS``:
    invisibility, stealthbuck, zebra-cloak, whose numbers the text does not give [assumed]):
    name -> ``{"bonus": n, "mfd": m}``. A name given here replaces the built-in of that name."""


def options(enc: Encounter) -> FoEOptions:
    """The world's FoE options (the defaults for those not set)."""
    return enc.options.of(FoEOptions)
