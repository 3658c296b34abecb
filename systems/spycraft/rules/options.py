"""Spycraft 2.0's ⚙ options (``docs/rules.md`` describes each with the rule it changes): a
world sets them beside the shared ones (``!set standoff_tie gm``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict
from vttbridge.rules.encounter import Encounter


class SpycraftOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    # -- Ready ------------------------------------------------------------------------------
    ready_end_failure: Literal["stays_active", "ends"] = "stays_active"
    """Ready rule 5: a failed Reflex save to end a carried-over Ready early."""
    carryover_consumes_turn: bool = False
    """Ready rule 6: a carried-over Ready that fires before his IC costs that round's turn."""

    # -- Stand Off --------------------------------------------------------------------------
    standoff_ic_floor: Literal["one", "none"] = "one"
    """Stand Off cost IC - 5: floored at 1, or no floor."""
    standoff_crack_strike_ends: bool = True
    """Whether the automatic strike on a cracked participant ends the stand off (it is damage)."""
    standoff_tie: Literal["reroll", "gm"] = "reroll"
    """Opposed Resolve ties after the higher bonus: re-roll, or the GM decides."""
    standoff_crack: Literal["new_threshold", "any_exceeded"] = "new_threshold"
    """Crack when this round's stress passes a threshold not yet exceeded, or whenever the
    total exceeds any threshold."""
    standoff_ends_when: Literal["one_side", "one_participant"] = "one_side"


def options(enc: Encounter) -> SpycraftOptions:
    """The world's Spycraft options (the defaults for those not set)."""
    return enc.options.of(SpycraftOptions)
