"""The trigger index: same answers as a full scan, one lookup per path cell."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vttbridge.rules.geometry import Cell, Grid
from vttbridge.sdk.regions import Region, line, path_xy, rect, within
from vttbridge.sdk.triggers import (
    ActionSpec,
    ConditionSpec,
    EnterSpec,
    ScanIndex,
    TriggerIndex,
    WithinSpec,
    cell_levels,
)


class FakeWorld:
    def __init__(self) -> None:
        self.regions: dict[str, Region] = {}
        self.anchors: dict[str, Cell] = {}
        self.grid = Grid()

    def levels(self, spec):
        if spec.kind == "enter":
            if spec.level is not None:
                return frozenset((spec.level,))
            reg = self.regions.get(spec.region) if spec.region else None
            return frozenset(reg.levels) if reg is not None and reg.levels else None
        return None

    def resolve(self, spec):
        if spec.kind == "enter":
            if spec.cells is not None:
                return frozenset((c.x, c.y) for c in spec.cells)
            reg = self.regions.get(spec.region)
            return reg.xy if reg else frozenset()
        cell = self.anchors.get(spec.anchor)
        if cell is None:
            return frozenset()
        return frozenset((c.x, c.y) for c in within(cell, spec.distance, self.grid))


def fired(index, token, path, levels=None):
    return sorted((t.id, xy) for t, xy in index.entered(token, path, levels))


xy = st.tuples(st.integers(0, 12), st.integers(0, 12))
cell_sets = st.lists(st.sets(xy, min_size=1, max_size=6), min_size=1, max_size=25)
paths = st.lists(xy, min_size=1, max_size=6)


@pytest.mark.slow  # property-based: many generated worlds
@settings(max_examples=200, deadline=None)
@given(cell_sets, paths, st.sampled_from([None, "a", "b"]))
def test_index_matches_scan(triggers, waypoints, only):
    world = FakeWorld()
    fast, slow = TriggerIndex(world.resolve), ScanIndex(world.resolve)
    for cells in triggers:
        spec = EnterSpec(cells=[Cell(x=x, y=y) for x, y in cells], token=only)
        fast.add(spec, "o")
        slow.add(spec, "o")
    path = path_xy([Cell(x=x, y=y) for x, y in waypoints])
    assert fired(fast, "a", path) == fired(slow, "a", path)


def test_entering_fires_once_and_starting_inside_does_not():
    world = FakeWorld()
    world.regions["room"] = Region(name="room", cells=rect(3, 0, 5, 2))
    idx = TriggerIndex(world.resolve)
    t = idx.add(EnterSpec(region="room"), "o")
    assert fired(idx, "x", path_xy([Cell(x=0, y=1), Cell(x=9, y=1)])) == [(t.id, (3, 1))]
    assert fired(idx, "x", path_xy([Cell(x=4, y=1), Cell(x=5, y=2)])) == []  # already inside
    assert fired(idx, "x", [(0, 0)]) == []


def test_token_filter_and_exclude():
    idx = TriggerIndex(FakeWorld().resolve)
    only = idx.add(EnterSpec(cells=[Cell(x=1, y=0)], token="a"), "o")
    notb = idx.add(EnterSpec(cells=[Cell(x=1, y=0)], exclude="b"), "o")
    path = [(0, 0), (1, 0)]
    assert [t.id for t, _ in idx.entered("a", path)] == [only.id, notb.id]
    assert [t.id for t, _ in idx.entered("b", path)] == []
    assert [t.id for t, _ in idx.entered("c", path)] == [notb.id]


def test_within_triggers_follow_their_anchor():
    world = FakeWorld()
    world.anchors["kev"] = Cell(x=0, y=0)
    idx = TriggerIndex(world.resolve)
    t = idx.add(WithinSpec(anchor="kev", distance=10, exclude="kev"), "o")
    assert fired(idx, "x", path_xy([Cell(x=9, y=0), Cell(x=2, y=0)])) == [(t.id, (2, 0))]
    world.anchors["kev"] = Cell(x=20, y=0)
    assert fired(idx, "x", path_xy([Cell(x=9, y=0), Cell(x=2, y=0)])) != []  # stale until told
    idx.anchor_moved("kev")
    assert fired(idx, "x", path_xy([Cell(x=9, y=0), Cell(x=2, y=0)])) == []
    assert fired(idx, "x", [(15, 0), (18, 0)]) == [(t.id, (18, 0))]


def test_region_redefinition_and_removal():
    world = FakeWorld()
    world.regions["r"] = Region(name="r", cells=[Cell(x=1, y=1)])
    idx = TriggerIndex(world.resolve)
    t = idx.add(EnterSpec(region="r"), "owner")
    world.regions["r"] = Region(name="r", cells=[Cell(x=5, y=5)])
    idx.region_changed("r")
    assert fired(idx, "x", [(0, 1), (1, 1)]) == []
    assert fired(idx, "x", [(5, 4), (5, 5)]) == [(t.id, (5, 5))]
    idx.remove_owner("owner")
    assert len(idx) == 0 and fired(idx, "x", [(5, 4), (5, 5)]) == []
    assert not idx._cells  # no empty buckets left behind


def test_action_and_condition_lookup():
    idx = TriggerIndex(FakeWorld().resolve)
    a = idx.add(ActionSpec(action="Press"), "o")
    c = idx.add(ConditionSpec(name="alarm"), "o")
    assert idx.actions("press") == [a]
    assert idx.conditions("alarm") == [c] and list(idx.condition_names()) == ["alarm"]
    idx.remove(a.id)
    idx.remove(c.id)
    assert idx.actions("press") == [] and list(idx.condition_names()) == []


def test_shapes():
    assert len(rect(0, 0, 2, 1)) == 6
    assert line((0, 0), (3, 3)) == [Cell(x=i, y=i) for i in range(4)]
    assert path_xy([Cell(x=0, y=0), Cell(x=2, y=0), Cell(x=2, y=2)]) == [
        (0, 0),
        (1, 0),
        (2, 0),
        (2, 1),
        (2, 2),
    ]
    assert Cell(x=0, y=2) in within(Cell(x=0, y=0), 10) and Cell(x=2, y=2) not in within(
        Cell(x=0, y=0), 10
    )  # alternating diagonals: 2 diagonal steps are 15 ft


levels = st.sampled_from([None, "A", "B"])


@pytest.mark.slow  # property-based: many generated worlds
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sets(xy, min_size=1, max_size=6), levels), min_size=1, max_size=20),
       st.lists(st.tuples(xy, st.sampled_from(["A", "B"])), min_size=1, max_size=6))  # fmt: skip
def test_index_matches_scan_across_levels(triggers, waypoints):
    world = FakeWorld()
    fast = TriggerIndex(world.resolve, world.levels)
    slow = ScanIndex(world.resolve, world.levels)
    for cells, level in triggers:
        spec = EnterSpec(cells=[Cell(x=x, y=y) for x, y in cells], level=level)
        fast.add(spec, "o")
        slow.add(spec, "o")
    points = [Cell(x=x, y=y) for (x, y), _ in waypoints]
    path, at = cell_levels(points, [lv for _, lv in waypoints])
    assert fired(fast, "t", path, at) == fired(slow, "t", path, at)


def test_a_watched_cell_belongs_to_its_level():
    """A token on level B crossing a cell watched on level A does not enter it; on level A it
    does; a trigger with no level is entered on any level."""
    world = FakeWorld()
    world.regions["corner"] = Region(name="corner", cells=rect(3, 0, 3, 2), levels=["A"])
    idx = TriggerIndex(world.resolve, world.levels)
    on_a = idx.add(EnterSpec(region="corner"), "o")
    anywhere = idx.add(EnterSpec(cells=[Cell(x=5, y=1)]), "o")
    straight = [Cell(x=0, y=1), Cell(x=6, y=1)]
    assert fired(idx, "t", *cell_levels(straight, ["B", "B"])) == [(anywhere.id, (5, 1))]
    assert fired(idx, "t", *cell_levels(straight, ["A", "A"])) == [
        (on_a.id, (3, 1)), (anywhere.id, (5, 1))]  # fmt: skip
    # a leg that changes level arrives on its new level: B -> A enters the corner
    assert (on_a.id, (3, 1)) in fired(idx, "t", *cell_levels(straight, ["B", "A"]))
    # the region moved to level B only
    world.regions["corner"] = Region(name="corner", cells=rect(3, 0, 3, 2), levels=["B"])
    idx.region_changed("corner")
    assert (on_a.id, (3, 1)) in fired(idx, "t", *cell_levels(straight, ["B", "B"]))
    idx.remove(on_a.id)
    assert idx._level_cells == {}  # no empty maps left behind


def test_cell_levels_splits_legs_at_their_ends():
    pts = [Cell(x=0, y=0), Cell(x=2, y=0), Cell(x=2, y=2)]
    cells, at = cell_levels(pts, ["A", "A", "B"])
    assert cells == [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]
    assert at == ["A", "A", "A", "B", "B"]
    assert cell_levels(pts, None) == (path_xy(pts), None)
