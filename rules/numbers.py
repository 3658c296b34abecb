"""The numbers accepted from outside: finite, and within documented bounds.

One definition of each kind, shared by the VTT payload models (``adapters/``), the chat
commands (``sdk/chat/parsing.py``) and the rules' own models. A NaN, an infinity (``1e400`` reads as
one) or an absurd magnitude never reaches a rule: pydantic refuses it with the field's path,
and :func:`bounded` does the same for numbers parsed by hand (a chat argument, a Roll20
``lastmove`` string, a bar value).

The constraints run in pydantic-core: a bounded float costs nothing measurable on a token move.
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import Field

MAX_PX = 1_000_000
"""A canvas coordinate in VTT pixels (Foundry ``x``/``y``, Roll20 ``left``/``top``, waypoints)
runs from 0 to this, and to the scene's or page's own size where that is known."""
MAX_CELL = 100_000
"""The largest column or row a payload may name directly (a region's cells)."""
MAX_NUMBER = 1_000_000_000
"""Any other number from outside (a stat, an initiative, a round, a roll's total, a bar)."""
MAX_DISTANCE = 10_000
"""A distance a chat command may name, in the grid's units (feet by default)."""
MIN_CELL_PX = 5
"""The smallest grid cell a VTT may declare, in px (Foundry's own minimum is larger): with
:data:`MAX_PX`, a position is never more than 200,000 cells from the origin."""
MAX_CELL_PX = 10_000

Finite = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_NUMBER, le=MAX_NUMBER)]
"""A finite number of sane magnitude (``NaN``, ``"NaN"``, ``Infinity``, ``1e400`` refused)."""
Whole = Annotated[int, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
"""A whole number of sane magnitude."""
Count = Annotated[int, Field(ge=0, le=MAX_NUMBER)]
"""A whole number from 0 (a round, a turn index)."""
Px = Annotated[float, Field(allow_inf_nan=False, ge=0, le=MAX_PX)]
"""A point on the canvas, in px: finite, from 0 to :data:`MAX_PX`."""
Offset = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_PX, le=MAX_PX)]
"""A length or a shape's coordinate in px (may reach past the canvas's edges)."""
Size = Annotated[float, Field(allow_inf_nan=False, ge=0, le=MAX_PX)]
"""A size in px (a shape's width, a radius)."""
CellPx = Annotated[float, Field(allow_inf_nan=False, ge=MIN_CELL_PX, le=MAX_CELL_PX)]
"""Pixels per grid cell."""
CellIndex = Annotated[int, Field(ge=-MAX_CELL, le=MAX_CELL)]
"""A column or row."""
Distance = Annotated[float, Field(allow_inf_nan=False, gt=0, le=MAX_DISTANCE)]
"""Distance units per grid cell (Foundry ``grid.distance``, Roll20 ``scale_number``)."""

RANGE_ERRORS = frozenset(
    {"finite_number", "greater_than", "greater_than_equal", "less_than", "less_than_equal"}
)
"""The pydantic error types of a number out of its bounds: answered ``out_of_range`` wherever
a number is refused (a payload field, a stat of a sheet or a snapshot)."""


def bounded(value: float, what: str, low: float, high: float) -> float:
    """``value`` if finite and within ``[low, high]``, else ``ValueError`` saying so (for
    numbers that do not come through a model)."""
    if not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{what} must be a number from {low:g} to {high:g}, not {value!r}.")
    return value


def finite_or_none(value: float) -> float | None:
    """``value`` when it is finite and of sane magnitude (:data:`MAX_NUMBER`), else None."""
    return value if math.isfinite(value) and -MAX_NUMBER <= value <= MAX_NUMBER else None
