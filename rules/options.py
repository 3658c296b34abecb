"""Every ⚙ option of the rules, as one per-world settings model with the documented defaults.

``docs/rules.md`` describes each with the rule it changes; a GM changes them per world (``!set``
or a script), and rule functions read them from ``Encounter.options``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from vttbridge.rules.geometry import DiagonalMetric

DEFAULT_MFD_LADDER = [0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]


class FieldStats(BaseModel):
    """A stealth field's numbers: its constant sneak ``bonus`` and its ``mfd`` (the step
    penalty enemies take on Perception)."""

    model_config = ConfigDict(extra="forbid")

    bonus: int
    mfd: float = Field(gt=0)
    magical: bool = True


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    system: str = "spycraft"
    """Which rule system the world plays: ``spycraft`` (Spycraft 2.0), ``foe`` (Fallout:
    Equestria), or another registered one (:mod:`vttbridge.rules.systems`)."""

    @field_validator("system")
    @classmethod
    def _known_system(cls, name: str) -> str:
        from vttbridge.rules import (
            systems,  # the registry imports the system packages, which import us
        )

        try:
            systems.get(name)
        except KeyError as e:
            raise ValueError(str(e.args[0])) from None
        return name

    # -- Common ---------------------------------------------------------------------------
    diagonal_metric: DiagonalMetric = DiagonalMetric.ALTERNATING
    tie_break: Literal["random", "gm"] = "random"
    """Initiative ties after the higher Initiative bonus: a random roll-off, or GM order
    (the order combatants were added, which the GM can rearrange)."""
    free_actions_per_turn: int | None = Field(default=None, ge=0, le=1000)
    """None = unlimited free actions per turn."""

    # -- Spycraft 2.0: Ready ---------------------------------------------------------------
    ready_end_failure: Literal["stays_active", "ends"] = "stays_active"
    """Ready rule 5: a failed Reflex save to end a carried-over Ready early."""
    carryover_consumes_turn: bool = False
    """Ready rule 6: a carried-over Ready that fires before his IC costs that round's turn."""

    # -- Spycraft 2.0: Stand Off -----------------------------------------------------------
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

    # -- Fallout: Equestria ------------------------------------------------------------------
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
    (``vttbridge.rules.foe.sneaking.STEALTH_FIELDS``:
    invisibility, stealthbuck, zebra-cloak, whose numbers the text does not give [assumed]):
    name -> ``{"bonus": n, "mfd": m}``. A name given here replaces the built-in of that name."""
