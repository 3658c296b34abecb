"""Foundry canvas pixels to grid cells and back, paths, and v12+ Region shapes to cells.

A token's position is the cell holding its centre (``x + width * size / 2``). Grid lines sit on
multiples of ``grid.size`` from the canvas origin (Foundry pads a scene by whole cells), so no
offset is needed. Hex and gridless scenes are read as square cells of ``grid.size``: the rules
are square-grid rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from vttbridge.adapters.base import TranslationError
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.regions import line_xy

from .models import FRegion, FRegionShape, FToken, Point

MAX_REGION_CELLS = 40_000
"""A region covering more cells than this is refused (a 200 x 200 cell area)."""

__all__ = [
    "Legs",
    "foundry_cell",
    "foundry_xy",
    "path_legs",
    "region_cells",
    "token_cell",
]


def foundry_cell(x: float, y: float, grid_size: float, width: float = 1, height: float = 1) -> Cell:
    """Foundry: ``x, y`` are the token's top-left corner in px; ``width``/``height`` in cells."""
    cx = x + width * grid_size / 2
    cy = y + height * grid_size / 2
    return Cell(x=math.floor(cx / grid_size), y=math.floor(cy / grid_size))


def foundry_xy(
    cell: Cell, grid_size: float, width: float = 1, height: float = 1
) -> tuple[float, float]:
    """The top-left corner in px that puts a token's centre in ``cell``."""
    x = (cell.x + 0.5) * grid_size - width * grid_size / 2
    y = (cell.y + 0.5) * grid_size - height * grid_size / 2
    return x, y


def token_cell(tok: FToken, size: float, x: float | None = None, y: float | None = None) -> Cell:
    """The cell of ``tok``'s centre, at its own position or at ``x``/``y``."""
    return foundry_cell(
        tok.x if x is None else x, tok.y if y is None else y, size, tok.width, tok.height
    )


@dataclass
class Legs:
    """A move's path as the rules read it (:func:`path_legs`)."""

    cells: list[Cell]
    """Its points, start (when known) and end included."""
    actions: list[str]
    """How each leg was moved (the ``action`` of the point it ends at)."""
    levels: list[str | None] = field(default_factory=list)
    """The level of each point (v14), empty when no point names one."""
    climb: float = 0.0
    """The height climbed or descended on the legs that change level (grid units)."""


def path_legs(
    tok: FToken,
    size: float,
    start: Cell | None,
    end: Cell,
    waypoints: Sequence[Point],
    origin: Point | None = None,
) -> Legs:
    """The waypoints of a move as cells, ``start`` (when known) and ``end`` included, repeats
    dropped, with how each leg was moved: the ``action`` of the waypoint it ends at (Foundry
    v13 movement), ``walk`` when a waypoint names none. Waypoints are top-left corners like
    the token's own ``x``/``y``. A waypoint in the cell before it, on the same level, adds no
    leg (its action is kept for the next one only if that has none). With ``start`` unknown
    the first cell is a leg too: from where the runtime has the token.

    v14: each point's level (the waypoint's ``level``; the start's is ``origin``'s, the end's
    the token's own) and the height climbed between levels: a leg that changes level counts
    the difference of its ends' ``elevation``."""
    cells: list[Cell] = [] if start is None else [start]
    actions: list[str] = []
    first = origin.level if origin is not None else None
    levels: list[str | None] = [] if start is None else [first]
    heights: list[float | None] = [] if start is None else [_elevation(origin, None)]
    pending: str | None = None
    for p in waypoints:
        c = token_cell(tok, size, p.x, p.y)
        action = p.action or pending
        level = p.level or (levels[-1] if levels else tok.level)
        if cells and c == cells[-1] and level == levels[-1]:
            pending = action
            continue
        cells.append(c)
        actions.append(action or "walk")
        levels.append(level)
        heights.append(_elevation(p, heights[-1] if heights else None))
        pending = None
    if not cells or cells[-1] != end or (tok.level and levels[-1] != tok.level):
        cells.append(end)
        actions.append(pending or (actions[-1] if actions else "walk"))
        levels.append(tok.level)
        heights.append(tok.elevation)
    climb = 0.0
    for i in range(1, len(levels)):
        a, b = heights[i - 1], heights[i]
        if levels[i] != levels[i - 1] and a is not None and b is not None:
            climb += abs(b - a)
    return Legs(cells, actions, levels if any(levels) else [], climb)


def _elevation(p: Point | None, before: float | None) -> float | None:
    if p is not None and p.elevation is not None:
        return float(p.elevation)
    return before


def crossed(path: Sequence[Cell]) -> list[tuple[int, int]]:
    """Every cell a path passes through, legs rasterised (the module does the same)."""
    out: list[tuple[int, int]] = []
    for i, c in enumerate(path):
        if i == 0:
            out.append((c.x, c.y))
            continue
        leg = line_xy((path[i - 1].x, path[i - 1].y), (c.x, c.y))
        next(leg)
        out.extend(leg)
    return out


def _unrotate(px: float, py: float, cx: float, cy: float, degrees: float) -> tuple[float, float]:
    if not degrees:
        return px, py
    a = math.radians(-degrees)
    dx, dy = px - cx, py - cy
    return cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)


def _inside(shape: FRegionShape, px: float, py: float) -> bool:
    kind = shape.type
    if kind == "rectangle":
        cx, cy = shape.x + shape.width / 2, shape.y + shape.height / 2
        qx, qy = _unrotate(px, py, cx, cy, shape.rotation)
        return shape.x <= qx <= shape.x + shape.width and shape.y <= qy <= shape.y + shape.height
    if kind in ("circle", "ellipse"):
        rx = shape.radius if kind == "circle" else shape.radiusX
        ry = shape.radius if kind == "circle" else shape.radiusY
        if rx <= 0 or ry <= 0:
            return False
        qx, qy = _unrotate(px, py, shape.x, shape.y, shape.rotation)
        return ((qx - shape.x) / rx) ** 2 + ((qy - shape.y) / ry) ** 2 <= 1
    if kind == "polygon":
        pts = list(zip(shape.points[0::2], shape.points[1::2], strict=False))
        inside = False
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=False):
            if (y1 > py) != (y2 > py) and px < (x2 - x1) * (py - y1) / (y2 - y1) + x1:
                inside = not inside
        return inside
    return False


def _bounds(shape: FRegionShape) -> tuple[float, float, float, float]:
    if shape.type == "rectangle":
        r = math.hypot(shape.width, shape.height) if shape.rotation else 0
        cx, cy = shape.x + shape.width / 2, shape.y + shape.height / 2
        if r:
            return cx - r / 2, cy - r / 2, cx + r / 2, cy + r / 2
        return shape.x, shape.y, shape.x + shape.width, shape.y + shape.height
    if shape.type in ("circle", "ellipse"):
        r = shape.radius if shape.type == "circle" else max(shape.radiusX, shape.radiusY)
        return shape.x - r, shape.y - r, shape.x + r, shape.y + r
    if shape.type == "polygon" and len(shape.points) >= 6:
        xs, ys = shape.points[0::2], shape.points[1::2]
        return min(xs), min(ys), max(xs), max(ys)
    return 0, 0, 0, 0


def region_cells(region: FRegion, size: float, where: str) -> list[Cell]:
    """Cells whose centre lies inside one of the region's shapes and in none of its holes.
    Unknown shape types (a v13 ``token`` or ``line`` shape...) cover nothing."""
    if region.cells is not None:
        if len(region.cells) > MAX_REGION_CELLS:
            raise TranslationError(
                "region_too_large", f"Region {region.name!r} has too many cells.", where
            )
        return [Cell(x=x, y=y) for x, y in region.cells]
    solid = [s for s in region.shapes if not s.hole]
    holes = [s for s in region.shapes if s.hole]
    found: dict[tuple[int, int], None] = {}
    for shape in solid:
        x0, y0, x1, y1 = _bounds(shape)
        cx0, cy0 = math.floor(x0 / size), math.floor(y0 / size)
        cx1, cy1 = math.floor(x1 / size), math.floor(y1 / size)
        if (cx1 - cx0 + 1) * (cy1 - cy0 + 1) > MAX_REGION_CELLS:
            raise TranslationError(
                "region_too_large",
                f"Region {region.name!r} covers more than {MAX_REGION_CELLS} grid cells.",
                where,
            )
        for cy in range(cy0, cy1 + 1):
            for cx in range(cx0, cx1 + 1):
                px, py = (cx + 0.5) * size, (cy + 0.5) * size
                if _inside(shape, px, py) and not any(_inside(h, px, py) for h in holes):
                    found[(cx, cy)] = None
    return [Cell(x=x, y=y) for x, y in found]
