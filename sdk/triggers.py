"""Triggers and the index that finds the ones an event can fire without scanning them all.

A trigger is a spec (what fires it) plus who handles it. Specs are data, so a trigger created at
run time (a Ready's condition) is kept in world state and re-indexed after a restore:

- :class:`EnterSpec`: a token enters a region or a set of cells;
- :class:`WithinSpec`: a token comes within a distance of an anchor token (the readied
  character) -- a region that moves with the anchor;
- :class:`ActionSpec`: a token declares an action (``ActionDeclared``) or types the chat command
  of that name, at its attempt or its completion;
- :class:`ConditionSpec`: a named condition a script registers holds for an event, or a script
  signals it.

:class:`TriggerIndex` keeps position triggers in a cell -> triggers map, so a move costs one
lookup per cell of its path, whatever the number of triggers; action and condition triggers are
keyed by name. On a scene with levels (floors) a position trigger belongs to the levels of its
region, of its anchor, or the one its spec names, and only a path cell on one of those enters it;
a trigger with no level (a scene without levels, a script's own cells) is on every level.
:class:`ScanIndex` has the same interface and scans every trigger: the baseline
of ``bench/bench_triggers.py`` and the oracle of the index's property tests.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.regions import line_xy, path_xy

XY = tuple[int, int]
_EMPTY: frozenset[int] = frozenset()


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    token: str | None = None
    """Only this token fires it."""
    exclude: str | None = None
    """This token never fires it (the readied character himself)."""

    def accepts(self, token: str | None) -> bool:
        if self.token is not None and token != self.token:
            return False
        return not (self.exclude is not None and token == self.exclude)


class EnterSpec(_Spec):
    kind: Literal["enter"] = "enter"
    region: str | None = None
    cells: list[Cell] | None = None
    level: str | None = None
    """Only on this level (floor); None: the region's levels, or every level."""


class WithinSpec(_Spec):
    kind: Literal["within"] = "within"
    anchor: str
    distance: float


class ActionSpec(_Spec):
    kind: Literal["action"] = "action"
    action: str
    phase: Literal["attempt", "completion"] | None = None
    """None matches either phase."""


class ConditionSpec(_Spec):
    kind: Literal["condition"] = "condition"
    name: str


Spec = Annotated[EnterSpec | WithinSpec | ActionSpec | ConditionSpec, Field(discriminator="kind")]
SPEC_ADAPTER: TypeAdapter[Spec] = TypeAdapter(Spec)
POSITION_KINDS = ("enter", "within")


@dataclass(eq=False)
class Trigger:
    """An indexed trigger. ``handler`` is the script callback (a static decorator) or None
    when ``watch`` names a :class:`vttbridge.sdk.world.Watch` whose handler the runtime looks up."""

    id: int
    spec: Any
    owner: str
    handler: Any = None
    watch: str | None = None
    cells: frozenset[XY] = field(default=frozenset())
    levels: frozenset[str] | None = None
    """The levels its cells are on (None: every level)."""


def cell_levels(
    points: list[Cell], levels: list[str | None] | None
) -> tuple[list[XY], list[str | None] | None]:
    """A path's cells (:func:`vttbridge.sdk.regions.path_xy`) and the level of each: the start's
    for the start, and for the cells of each leg the level of the point it ends at (a leg that
    changes level arrives on its new level). ``levels`` (one per point, or None) None: no
    levels."""
    if levels is None:
        return path_xy(points), None
    cells: list[XY] = []
    at: list[str | None] = []
    prev: XY | None = None
    for c, level in zip(points, levels, strict=True):
        cur = (c.x, c.y)
        leg = [cur] if prev is None else list(line_xy(prev, cur))[1:]
        cells.extend(leg)
        at.extend([level] * len(leg))
        prev = cur
    return cells, at


CellResolver = Callable[[Any], frozenset[XY]]
LevelResolver = Callable[[Any], frozenset[str] | None]


def _any_level(spec: Any) -> frozenset[str] | None:
    return None


class TriggerIndex:
    """Triggers indexed by cell (position triggers), anchor token, region, action and
    condition name. ``resolve(spec)`` turns a position spec into its cells and
    ``resolve_levels(spec)`` into the levels they are on, None for every level (the runtime
    knows regions, tokens and the grid)."""

    def __init__(self, resolve: CellResolver, resolve_levels: LevelResolver = _any_level) -> None:
        self.resolve = resolve
        self.resolve_levels = resolve_levels
        self.triggers: dict[int, Trigger] = {}
        self._ids = itertools.count(1)
        self._cells: dict[XY, set[int]] = defaultdict(set)
        self._level_cells: dict[str, dict[XY, set[int]]] = {}
        """The triggers on some levels only: level -> cell -> trigger ids."""
        self._anchors: dict[str, set[int]] = defaultdict(set)
        self._regions: dict[str, set[int]] = defaultdict(set)
        self._actions: dict[str, set[int]] = defaultdict(set)
        self._conditions: dict[str, set[int]] = defaultdict(set)

    def __len__(self) -> int:
        return len(self.triggers)

    # -- registration ------------------------------------------------------------------------
    def add(
        self, spec: Any, owner: str, *, handler: Any = None, watch: str | None = None
    ) -> Trigger:
        trig = Trigger(next(self._ids), spec, owner, handler, watch)
        self.triggers[trig.id] = trig
        kind = spec.kind
        if kind in POSITION_KINDS:
            if kind == "within":
                self._anchors[spec.anchor].add(trig.id)
            elif spec.region is not None:
                self._regions[spec.region].add(trig.id)
            self._place(trig)
        elif kind == "action":
            self._actions[spec.action.lower()].add(trig.id)
        elif kind == "condition":
            self._conditions[spec.name].add(trig.id)
        return trig

    def remove(self, tid: int) -> None:
        trig = self.triggers.pop(tid, None)
        if trig is None:
            return
        spec = trig.spec
        if spec.kind in POSITION_KINDS:
            self._unplace(trig)
            if spec.kind == "within":
                self._discard(self._anchors, spec.anchor, tid)
            elif spec.region is not None:
                self._discard(self._regions, spec.region, tid)
        elif spec.kind == "action":
            self._discard(self._actions, spec.action.lower(), tid)
        elif spec.kind == "condition":
            self._discard(self._conditions, spec.name, tid)

    def remove_owner(self, owner: str) -> None:
        for tid in [t.id for t in self.triggers.values() if t.owner == owner]:
            self.remove(tid)

    def clear(self) -> None:
        for tid in list(self.triggers):
            self.remove(tid)

    @staticmethod
    def _discard(index: dict[str, set[int]], key: str, tid: int) -> None:
        bucket = index.get(key)
        if bucket is not None:
            bucket.discard(tid)
            if not bucket:
                del index[key]

    def _place(self, trig: Trigger) -> None:
        trig.cells = self.resolve(trig.spec)
        trig.levels = self.resolve_levels(trig.spec)
        for cells in self._maps(trig, create=True):
            for xy in trig.cells:
                cells[xy].add(trig.id)

    def _unplace(self, trig: Trigger) -> None:
        for cells in self._maps(trig, create=False):
            for xy in trig.cells:
                bucket = cells.get(xy)
                if bucket is not None:
                    bucket.discard(trig.id)
                    if not bucket:
                        del cells[xy]
        for level in trig.levels or ():
            if not self._level_cells.get(level, True):
                del self._level_cells[level]
        trig.cells, trig.levels = frozenset(), None

    def _maps(self, trig: Trigger, *, create: bool) -> list[dict[XY, set[int]]]:
        """The cell maps ``trig`` is placed in: the one for every level, or one per level."""
        if trig.levels is None:
            return [self._cells]
        if create:
            return [self._level_cells.setdefault(lv, defaultdict(set)) for lv in trig.levels]
        return [self._level_cells[lv] for lv in trig.levels if lv in self._level_cells]

    # -- keeping cells current ---------------------------------------------------------------
    def anchor_moved(self, token: str) -> None:
        """Re-place the distance triggers anchored on ``token`` around its new cell."""
        for tid in self._anchors.get(token, ()):
            trig = self.triggers[tid]
            self._unplace(trig)
            self._place(trig)

    def region_changed(self, name: str) -> None:
        for tid in self._regions.get(name, ()):
            trig = self.triggers[tid]
            self._unplace(trig)
            self._place(trig)

    def grid_changed(self) -> None:
        for trig in self.triggers.values():
            if trig.spec.kind in POSITION_KINDS:
                self._unplace(trig)
                self._place(trig)

    # -- lookup ------------------------------------------------------------------------------
    def covers_cells(self) -> bool:
        """Whether any position trigger covers a cell: when none does, no move can fire one
        (the runtime then skips working out the cells a move passed through)."""
        return bool(self._cells) or bool(self._level_cells)

    def entered(
        self, token: str, path: list[XY], levels: list[str | None] | None = None
    ) -> list[tuple[Trigger, XY]]:
        """Position triggers whose cells ``token`` entered along ``path`` (a cell-by-cell path,
        start first), each with the first cell where it went from outside to inside, in
        registration order. ``levels``: the level of each path cell (None: no levels). Costs
        one lookup per path cell (two on a level that has triggers of its own)."""
        if len(path) < 2:
            return []
        if levels is not None and self._level_cells:
            steps = [self._here(xy, lv) for xy, lv in zip(path, levels, strict=True)]
        else:
            cells = self._cells
            steps = [cells.get(xy, _EMPTY) for xy in path]
        inside = steps[0]
        fired: dict[int, XY] = {}
        for xy, here in zip(path[1:], steps[1:], strict=True):
            if here:
                for tid in here:
                    if tid not in inside and tid not in fired:
                        fired[tid] = xy
            inside = here
        out = []
        for tid in sorted(fired):
            trig = self.triggers[tid]
            if trig.spec.accepts(token):
                out.append((trig, fired[tid]))
        return out

    def _here(self, xy: XY, level: str | None) -> set[int] | frozenset[int]:
        """The triggers covering ``xy`` on ``level``: those on every level and its own."""
        here = self._cells.get(xy, _EMPTY)
        own = self._level_cells.get(level) if level is not None else None
        mine = own.get(xy) if own is not None else None
        return (here | mine) if mine else here

    def actions(self, name: str) -> list[Trigger]:
        return [self.triggers[t] for t in sorted(self._actions.get(name.lower(), ()))]

    def conditions(self, name: str) -> list[Trigger]:
        return [self.triggers[t] for t in sorted(self._conditions.get(name, ()))]

    def condition_names(self) -> Iterable[str]:
        return self._conditions.keys()


class ScanIndex(TriggerIndex):
    """The naive baseline: keeps the same triggers but answers every move by scanning all of
    them, testing each path cell against each trigger's cells."""

    def entered(
        self, token: str, path: list[XY], levels: list[str | None] | None = None
    ) -> list[tuple[Trigger, XY]]:
        if len(path) < 2:
            return []
        at = levels if levels is not None else [None] * len(path)
        out = []
        for trig in self.triggers.values():
            if trig.spec.kind not in POSITION_KINDS or not trig.spec.accepts(token):
                continue
            cells, lv = trig.cells, trig.levels

            def inside(i: int, cells: frozenset[XY] = cells, lv: Any = lv) -> bool:
                return path[i] in cells and (lv is None or at[i] in lv)

            was_in = inside(0)
            for i in range(1, len(path)):
                now_in = inside(i)
                if now_in and not was_in:
                    out.append((trig, path[i]))
                    break
                was_in = now_in
        return out
