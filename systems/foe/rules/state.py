"""Fallout: Equestria state an encounter carries (``Encounter.states["foe"]``): the surprise
round, and what each combatant's current turn has done that the shared core does not track
(sneak movement, hide rolls, the path run for a running start, a charge's pending attack, a held
dodge or block). Read it with :func:`foe`.

Per-turn entries are cleared when the combatant's next turn starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field
from vttbridge.rules.geometry import Cell

if TYPE_CHECKING:
    from vttbridge.rules.encounter import Encounter

NAME = "foe"
"""The system's name (``Options.system``), under which the encounter keeps this state."""


class StealthField(BaseModel):
    """An active stealth field (invisibility spell, stealthbuck, zebra cloak, a burrow).

    ``sneak_bonus`` is the field's constant bonus to sneak rolls; ``mfd`` is what enemies take on
    their Perception rolls to notice the sneaker (MFD steps or a divisor, ⚙ ``mfd_penalty``)."""

    model_config = ConfigDict(frozen=True)

    name: str
    sneak_bonus: int
    mfd: float
    magical: bool = True


class SneakState(BaseModel):
    """The sneak actions of the current turn."""

    speed: float
    """Sneak speed per sneak action (full move speed under a stealth field)."""
    active: bool = True
    """False once he stops sneaking this turn (his drags are ordinary moves again)."""
    left: float = 0.0
    """Distance still available from this turn's sneak actions."""
    moved: float = 0.0
    """Distance moved sneaking this turn (part of ``Combatant.moved_ft``)."""
    moved_this_action: float = 0.0
    """Distance moved since the latest sneak action began (0 = its movement may be forfeited)."""
    field: StealthField | None = None


class FoEState(BaseModel):
    surprise_round: bool = False
    """True while the surprise round is being played."""
    surprised: list[str] = Field(default_factory=list)
    """Combatants who sit out the surprise round."""
    sneak_attack_targets: list[str] = Field(default_factory=list)
    """Targets who did not expect any attack: the next hit on them is a sneak attack critical."""

    # -- per turn ------------------------------------------------------------------------------
    trail: dict[str, list[Cell]] = Field(default_factory=dict)
    """The cells each combatant has moved through on foot this turn, for a running start."""
    sneak: dict[str, SneakState] = Field(default_factory=dict)
    """Present while a combatant is sneaking this turn."""
    hides: dict[str, int] = Field(default_factory=dict)
    """Sneak rolls made to hide this turn (one per combat action)."""
    charge_reach: dict[str, list[str]] = Field(default_factory=dict)
    """After a charge ending within 5 ft of enemies: whom the follow-up attack may target."""

    # -- until used or the combatant's next turn -----------------------------------------------
    held: dict[str, Literal["dodge", "block"]] = Field(default_factory=dict)
    """A held defensive action (sneak movement forfeited to dodge or block incoming attacks)."""
    hidden_from: dict[str, list[str]] = Field(default_factory=dict)
    """Per sneaker: the enemies who failed to notice him on his latest sneak roll."""


def foe(enc: Encounter) -> FoEState:
    """The FoE state of ``enc``."""
    return enc.state(NAME, FoEState)
