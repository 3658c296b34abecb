"""Named regions: sets of grid cells a script or the VTT names ("corner", "vault door").

Shapes are plain functions returning cell lists, so a script writes
``script.region("corner", rect(10, 4, 12, 6))`` or combines shapes with ``+``.

:func:`entered` answers "did this move enter the region?" the way ``@script.on_enter`` and a
Ready's ``--when <region>`` do, walking every cell of the path: a condition that uses it agrees
with them (a mover who crosses the region and stops beyond it did enter it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, PrivateAttr
from vttbridge.rules.geometry import Cell, Grid

if TYPE_CHECKING:
    from vttbridge.sdk.events import TokenMoved

XY = tuple[int, int]


class Region(BaseModel):
    """A named set of cells. ``source`` says who defined it (``vtt`` or ``script:<name>``)."""

    name: str
    cells: list[Cell] = Field(default_factory=list)
    scene: str | None = None
    source: str = "script"
    levels: list[str] | None = None
    """The levels (floors) it lies on, on a scene with levels (Foundry v14); None: every level."""
    _xy: frozenset[XY] | None = PrivateAttr(default=None)

    @property
    def xy(self) -> frozenset[XY]:
        """The cells as ``(x, y)`` tuples (cached; the index and membership tests use these)."""
        if self._xy is None:
            self._xy = frozenset((c.x, c.y) for c in self.cells)
        return self._xy

    def __contains__(self, cell: object) -> bool:
        if isinstance(cell, Cell):
            return (cell.x, cell.y) in self.xy
        return cell in self.xy


def _c(x: int, y: int) -> Cell:
    return Cell(x=x, y=y)


def rect(x0: int, y0: int, x1: int, y1: int) -> list[Cell]:
    """Every cell of the rectangle with corners (x0, y0) and (x1, y1), inclusive."""
    xa, xb = sorted((x0, x1))
    ya, yb = sorted((y0, y1))
    return [_c(x, y) for y in range(ya, yb + 1) for x in range(xa, xb + 1)]


def cells(*points: tuple[int, int] | Cell) -> list[Cell]:
    """Cells from ``(x, y)`` pairs."""
    return [p if isinstance(p, Cell) else _c(*p) for p in points]


def within(center: Cell | tuple[int, int], distance: float, grid: Grid | None = None) -> list[Cell]:
    """Cells whose distance from ``center`` (under ``grid``'s metric) is at most ``distance``
    feet (grid units), the centre included."""
    grid = grid or Grid()
    center = center if isinstance(center, Cell) else _c(*center)
    r = max(0, math.ceil(distance / grid.distance)) if grid.distance > 0 else 0
    out = []
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            c = _c(center.x + dx, center.y + dy)
            if grid.distance_between(center, c) <= distance + 1e-9:
                out.append(c)
    return out


def line(a: Cell | tuple[int, int], b: Cell | tuple[int, int]) -> list[Cell]:
    """The cells a straight line from ``a`` to ``b`` passes through, in order, ends included."""
    a = a if isinstance(a, Cell) else _c(*a)
    b = b if isinstance(b, Cell) else _c(*b)
    return [_c(x, y) for x, y in line_xy((a.x, a.y), (b.x, b.y))]


def line_xy(a: XY, b: XY) -> Iterator[XY]:
    """Bresenham's line: one cell per step along the longer axis, so a diagonal move visits
    the diagonal cells (as a token moving diagonally does) rather than both orthogonal ones."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x1 > x0 else -1), (1 if y1 > y0 else -1)
    err = dx + dy
    while True:
        yield x0, y0
        if x0 == x1 and y0 == y1:
            return
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def path_xy(waypoints: Iterable[Cell]) -> list[XY]:
    """Every cell visited along waypoints (legs rasterised), without repeating a joint."""
    out: list[XY] = []
    prev: XY | None = None
    for c in waypoints:
        cur = (c.x, c.y)
        if prev is None:
            out.append(cur)
        else:
            leg = line_xy(prev, cur)
            next(leg)  # the joint is already in ``out``
            out.extend(leg)
        prev = cur
    return out


def entered(
    move: TokenMoved,
    region: Region | Iterable[Cell | tuple[int, int]],
    start: Cell | None = None,
) -> Cell | None:
    """The first cell where ``move`` goes from outside ``region`` to inside it, walking every
    cell of its path, waypoints included; None when it never does. So a move that crosses the
    region and stops beyond it entered it, and one that starts inside and stays inside did
    not. This is how ``@script.on_enter`` and a Ready's ``--when <region>`` decide, so a
    condition written with it agrees with them::

        @script.condition("vault_entered")
        def vault_entered(event: TokenMoved, ctx: Context) -> bool:
            return entered(event, ctx.region("vault")) is not None

    ``start`` is where the move began when the event does not say (``from_cell``): a
    ``before_move`` judge passes ``ctx.cell_of(event.token)``."""
    if isinstance(region, Region):
        inside = region.xy
    else:
        inside = frozenset((c.x, c.y) if isinstance(c, Cell) else (c[0], c[1]) for c in region)
    path = path_xy(move.waypoints(start))
    was_in = bool(path) and path[0] in inside
    for xy in path[1:]:
        now_in = xy in inside
        if now_in and not was_in:
            return _c(*xy)
        was_in = now_in
    return None
