"""Grid geometry (rules.md "Common" Distance): the four diagonal metrics, paths, straight lines
and adjacency (the VTTs' pixels are their adapters': tests/adapters/*/test_geometry.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from vttbridge.rules.geometry import (
    Cell,
    DiagonalMetric,
    Grid,
    cells_between,
    is_straight,
    path_length_cells,
)


def c(x: int, y: int) -> Cell:
    return Cell(x=x, y=y)


@pytest.mark.parametrize(
    ("metric", "feet"),
    [
        ("alternating", 20.0),  # 1 straight + 2 diagonals (5 + 10)
        ("chebyshev", 15.0),
        ("euclidean", 5 * math.sqrt(13)),
        ("manhattan", 25.0),
    ],
)
def test_four_diagonal_metrics(metric: str, feet: float) -> None:
    grid = Grid(metric=DiagonalMetric(metric))
    assert grid.distance_between(c(0, 0), c(3, 2)) == pytest.approx(feet)


def test_default_grid_is_5ft_alternating() -> None:
    grid = Grid()
    assert (grid.distance, grid.units, grid.metric) == (5.0, "ft", DiagonalMetric.ALTERNATING)


@pytest.mark.parametrize(("n", "feet"), [(1, 5), (2, 15), (3, 20), (4, 30), (5, 35)])
def test_alternating_diagonals_cost_5_then_10(n: int, feet: int) -> None:
    assert Grid().distance_between(c(0, 0), c(n, n)) == feet


def test_alternating_count_runs_across_path_legs() -> None:
    grid = Grid()
    # Two one-square diagonal legs: 5 + 10, not 5 + 5.
    assert grid.path_length([c(0, 0), c(1, 1), c(2, 2)]) == 15
    # Diagonal, straight, diagonal: 5 + 5 + 10.
    assert grid.path_length([c(0, 0), c(1, 1), c(1, 2), c(2, 3)]) == 20
    # A leg of 3 diagonals after one: diagonals 2-4 cost 10, 5, 10.
    assert grid.path_length([c(0, 0), c(1, 1), c(4, 4)]) == 30
    assert grid.path_length([c(0, 0)]) == 0


def test_other_metrics_sum_their_legs() -> None:
    grid = Grid(metric=DiagonalMetric.CHEBYSHEV)
    assert grid.path_length([c(0, 0), c(1, 1), c(2, 2)]) == 10
    assert path_length_cells([c(0, 0), c(1, 1), c(2, 2)], DiagonalMetric.MANHATTAN) == 4


@given(pts=st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20)), min_size=2, max_size=6))
def test_alternating_path_equals_counting_square_by_square(pts: list[tuple[int, int]]) -> None:
    """Walking a path one square at a time gives the same length as its legs."""
    path = [c(x, y) for x, y in pts]
    steps = [path[0]]
    for b in path[1:]:
        a = steps[-1]
        while a != b:
            a = c(a.x + (b.x > a.x) - (b.x < a.x), a.y + (b.y > a.y) - (b.y < a.y))
            steps.append(a)
    # Walking diagonals first within each leg is what the leg formula assumes.
    assert path_length_cells(path, DiagonalMetric.ALTERNATING) == path_length_cells(
        steps, DiagonalMetric.ALTERNATING
    )
    assert path_length_cells(path, DiagonalMetric.ALTERNATING) >= cells_between(
        path[0], path[-1], DiagonalMetric.ALTERNATING
    )


@pytest.mark.parametrize(
    ("pts", "straight"),
    [
        ([(0, 0), (2, 2), (4, 4)], True),
        ([(0, 0), (3, 0), (6, 0), (6, 0)], True),  # a repeated waypoint is fine
        ([(0, 0), (5, 3)], True),  # a single leg
        ([(0, 0), (2, 2), (4, 3)], False),  # bends
        ([(0, 0), (3, 0), (1, 0), (4, 0)], False),  # doubles back
        ([(0, 0), (5, 0), (4, 0)], False),  # overshoots and comes back
        ([(0, 0), (-1, 0), (4, 0)], False),  # starts backwards
    ],
)
def test_straight_line(pts: list[tuple[int, int]], straight: bool) -> None:
    assert is_straight([c(x, y) for x, y in pts]) is straight


@pytest.mark.parametrize("metric", list(DiagonalMetric))
def test_touching_cells_are_adjacent_under_every_metric(metric: DiagonalMetric) -> None:
    grid = Grid(metric=metric)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            assert grid.adjacent(c(5, 5), c(5 + dx, 5 + dy))  # the same cell is 0 ft
    assert not grid.adjacent(c(0, 0), c(2, 0))
    assert not grid.adjacent(c(0, 0), c(2, 1))


def test_adjacency_on_other_grid_scales() -> None:
    fine = Grid(distance=2.5)  # within 5 ft is two cells
    assert fine.adjacent(c(0, 0), c(2, 0)) and not fine.adjacent(c(0, 0), c(3, 0))
    coarse = Grid(distance=10)  # a neighbour is 10 ft away, but still next to you
    assert coarse.adjacent(c(0, 0), c(1, 1)) and not coarse.adjacent(c(0, 0), c(2, 0))


def test_a_cell_is_a_small_frozen_value() -> None:
    """Two per token in every world: no per-instance dict, and it behaves as a model did."""
    from pydantic import BaseModel, ValidationError

    c = Cell(x=3, y=4)
    assert not hasattr(c, "__dict__")
    assert c == Cell.model_validate({"x": 3, "y": 4}) and Cell.model_validate(c) is c
    assert {c: "here"}[Cell(x=3, y=4)] == "here"
    assert tuple(c) == (3, 4) and c.model_dump() == {"x": 3, "y": 4}
    with pytest.raises(ValidationError):
        Cell.model_validate({"x": "three", "y": 4})
    with pytest.raises(AttributeError):  # frozen
        c.x = 5  # type: ignore[misc]

    class Holder(BaseModel):
        cell: Cell

    h = Holder.model_validate_json('{"cell": {"x": 1, "y": 2}}')
    assert h.cell == Cell(x=1, y=2) and h.model_dump_json() == '{"cell":{"x":1,"y":2}}'
