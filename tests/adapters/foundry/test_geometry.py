"""Foundry canvas pixels (a token's top-left corner) to grid cells and back."""

from __future__ import annotations

from vttbridge.adapters.foundry.geometry import foundry_cell, foundry_xy
from vttbridge.rules.geometry import Cell


def c(x: int, y: int) -> Cell:
    return Cell(x=x, y=y)


def test_foundry_top_left_to_cell() -> None:
    # 100 px cells: a 1x1 token at (200, 300) has its centre (250, 350) in cell (2, 3).
    assert foundry_cell(200, 300, 100) == c(2, 3)
    # A 2x2 token at the same corner is centred on (300, 400): cell (3, 4).
    assert foundry_cell(200, 300, 100, width=2, height=2) == c(3, 4)
    # Off-grid positions round by the centre.
    assert foundry_cell(249, 0, 100) == c(2, 0) and foundry_cell(251, 0, 100) == c(3, 0)
    assert foundry_cell(0, 0, 50) == c(0, 0)


def test_foundry_cell_round_trip() -> None:
    for w in (1, 2, 3):
        x, y = foundry_xy(c(4, 7), 140, width=w, height=w)
        assert foundry_cell(x, y, 140, width=w, height=w) == c(4, 7)
