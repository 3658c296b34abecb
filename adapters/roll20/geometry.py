"""Roll20 pixels to grid cells and back: a graphic's ``left``/``top`` are its centre in px, and
one grid unit is 70 px (a cell: 70 px x the page's ``snapping_increment``)."""

from __future__ import annotations

import math

from vttbridge.rules.geometry import Cell, DiagonalMetric, Grid

ROLL20_UNIT_PX = 70
"""Roll20: one grid unit is 70 px; a cell is 70 px x snapping_increment."""

__all__ = ["ROLL20_UNIT_PX", "roll20_cell", "roll20_grid", "roll20_xy"]


def roll20_cell(left: float, top: float, snapping_increment: float = 1.0) -> Cell:
    """Roll20: ``left, top`` are the token's centre in px; a cell is 70 px x snapping_increment."""
    size = ROLL20_UNIT_PX * (snapping_increment or 1.0)
    return Cell(x=math.floor(left / size), y=math.floor(top / size))


def roll20_xy(cell: Cell, snapping_increment: float = 1.0) -> tuple[float, float]:
    size = ROLL20_UNIT_PX * (snapping_increment or 1.0)
    return (cell.x + 0.5) * size, (cell.y + 0.5) * size


def roll20_grid(
    scale_number: float,
    snapping_increment: float = 1.0,
    units: str = "ft",
    metric: DiagonalMetric = DiagonalMetric.ALTERNATING,
) -> Grid:
    """Roll20: ``scale_number`` units per 70 px unit; a snapped cell spans that x increment."""
    return Grid(distance=scale_number * (snapping_increment or 1.0), units=units, metric=metric)
