"""What a game system says a character may still move this turn (``System.movement``): the
figures the VTT's ruler is coloured by (Foundry), the whisper after a drag (Roll20) and the
dashboard show. A system without a movement budget sends none."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class MoveBudget(BaseModel):
    """What one character may still move this turn, in the grid's units, by pace. Each figure
    counts from where he stands now."""

    model_config = ConfigDict(frozen=True)

    speed: float
    """His move speed: what one unit of the turn's budget spent moving covers."""
    moved: float
    """What he has moved this turn (on foot and sneaking)."""
    left: float
    """The most he may still move."""
    walk: float | None
    """What he may move at walking pace, keeping an action for something else; None where that
    pace is not open to him."""
    run: float | None
    """What he may move running (the turn spent moving) while a run is still open; else None."""
    sneak: float | None
    """His sneaking movement left while he sneaks (his drags are sneak movement), else None."""
    turn: bool
    """He may move now: it is his turn and nothing makes him sit out."""


__all__ = ["MoveBudget"]
