"""Roll20 pixels (a graphic's centre) to grid cells and back, and the page's grid scale."""

from __future__ import annotations

from vttbridge.adapters.roll20.geometry import ROLL20_UNIT_PX, roll20_cell, roll20_grid, roll20_xy
from vttbridge.rules.geometry import Cell


def c(x: int, y: int) -> Cell:
    return Cell(x=x, y=y)


def test_roll20_centre_to_cell_with_snapping_increment() -> None:
    assert ROLL20_UNIT_PX == 70
    assert roll20_cell(105, 35) == c(1, 0)
    assert roll20_cell(105, 35, snapping_increment=0.5) == c(3, 1)  # 35 px cells
    assert roll20_cell(105, 35, snapping_increment=2) == c(0, 0)  # 140 px cells
    assert roll20_cell(105, 35, snapping_increment=0) == c(1, 0)  # 0 means unset
    assert roll20_cell(*roll20_xy(c(5, 2), 0.5), snapping_increment=0.5) == c(5, 2)


def test_roll20_grid_scale() -> None:
    grid = roll20_grid(5, snapping_increment=0.5)
    assert grid.distance == 2.5
    assert roll20_grid(1.5, units="m").distance_between(c(0, 0), c(2, 0)) == 3.0
