"""Grid geometry: cells, distances under the four diagonal metrics, paths, straight lines.

Cells only: a VTT's pixels become cells in its adapter (``adapters/foundry/geometry.py``,
``adapters/roll20/geometry.py``)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.dataclasses import dataclass


class DiagonalMetric(StrEnum):
    ALTERNATING = "alternating"  # 5/10/5 ft (D&D 3.5 / Spycraft / FoE default)
    CHEBYSHEV = "chebyshev"  # every diagonal costs one cell
    EUCLIDEAN = "euclidean"
    MANHATTAN = "manhattan"  # no diagonals


# A frozen pydantic dataclass with slots, not a model: a world holds two cells per token (its
# cell and its position), and a model instance costs ~500 bytes where this costs 48. It
# validates, serialises ({"x": .., "y": ..}) and hashes as a model would.
@dataclass(frozen=True, slots=True)
class Cell:
    """A grid cell (column, row). A token's position is the cell holding its centre."""

    x: int
    y: int

    def __iter__(self):  # lets ``x, y = cell`` read naturally
        return iter((self.x, self.y))

    @classmethod
    def model_validate(cls, value: Any) -> Cell:
        """A cell from a cell or an ``{"x": .., "y": ..}`` mapping, as for the models."""
        if type(value) is cls:  # frozen: the same cell will do (every move passes some)
            return value
        return _CELL.validate_python(value)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """``{"x": .., "y": ..}``, as for the models."""
        return _CELL.dump_python(self, **kwargs)


_CELL: TypeAdapter[Cell] = TypeAdapter(Cell)


class Grid(BaseModel):
    """A scene's grid: how many distance units one cell spans, and the diagonal metric."""

    distance: float = 5.0
    units: str = "ft"
    metric: DiagonalMetric = DiagonalMetric.ALTERNATING
    pixels: float | None = None
    """VTT pixels per cell (Foundry ``grid.size``), kept for adapters; the rules never read it."""

    def cells_between(self, a: Cell, b: Cell) -> float:
        return cells_between(a, b, self.metric)

    def distance_between(self, a: Cell, b: Cell) -> float:
        """Distance in the grid's units (feet by default)."""
        return self.cells_between(a, b) * self.distance

    def path_length(self, path: Sequence[Cell]) -> float:
        """Full length of a path through its waypoints, in the grid's units."""
        return path_length_cells(path, self.metric) * self.distance

    def adjacent(self, a: Cell, b: Cell) -> bool:
        """Within 5 ft, the same cell included (0 ft), and always the 8 touching cells under
        any metric: a diagonal neighbour measures 7.07 ft euclidean or 10 ft manhattan, yet it
        is next to you."""
        touching = max(abs(a.x - b.x), abs(a.y - b.y)) <= 1
        return touching or self.distance_between(a, b) <= 5.0


def cells_between(a: Cell, b: Cell, metric: DiagonalMetric) -> float:
    dx, dy = abs(a.x - b.x), abs(a.y - b.y)
    diag, straight = min(dx, dy), abs(dx - dy)
    match DiagonalMetric(metric):
        case DiagonalMetric.ALTERNATING:
            return straight + diag + diag // 2
        case DiagonalMetric.CHEBYSHEV:
            return max(dx, dy)
        case DiagonalMetric.EUCLIDEAN:
            return math.hypot(dx, dy)
        case DiagonalMetric.MANHATTAN:
            return dx + dy


def path_length_cells(path: Sequence[Cell], metric: DiagonalMetric) -> float:
    """Length of a path in cells. Under the alternating metric the 5/10 count runs across the
    whole path, as a character counts his squares while moving, not leg by leg."""
    if len(path) < 2:
        return 0
    if metric != DiagonalMetric.ALTERNATING:  # a StrEnum: equal to its value too
        return sum(cells_between(a, b, metric) for a, b in itertools.pairwise(path))
    total, diagonals = 0, 0
    for a, b in itertools.pairwise(path):
        dx, dy = abs(a.x - b.x), abs(a.y - b.y)
        diag = min(dx, dy)
        total += abs(dx - dy) + diag + (diagonals % 2 + diag) // 2
        diagonals += diag
    return total


def is_straight(path: Sequence[Cell]) -> bool:
    """True when every waypoint lies on one line from the first to the last, in order
    (no doubling back). A single leg is always straight."""
    pts = [p for i, p in enumerate(path) if i == 0 or p != path[i - 1]]
    if len(pts) <= 2:
        return True
    start, end = pts[0], pts[-1]
    vx, vy = end.x - start.x, end.y - start.y
    last_t = 0
    for p in pts[1:]:
        px, py = p.x - start.x, p.y - start.y
        if px * vy - py * vx != 0:  # off the line
            return False
        t = px * vx + py * vy  # projection: must advance monotonically toward the end
        if t < last_t:
            return False
        last_t = t
    return True
