"""The trigger index: same answers as a full scan, one lookup per path cell."""

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
)


class FakeWorld:
    def __init__(self) -> None:
        self.regions: dict[str, Region] = {}
        self.anchors: dict[str, Cell] = {}
        self.grid = Grid()

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


def fired(index, token, path):
    return sorted((t.id, xy) for t, xy in index.entered(token, path))


xy = st.tuples(st.integers(0, 12), st.integers(0, 12))
cell_sets = st.lists(st.sets(xy, min_size=1, max_size=6), min_size=1, max_size=25)
paths = st.lists(xy, min_size=1, max_size=6)


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
