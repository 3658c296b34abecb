"""Encounter.positions notes which cells were set, for the runtime to mirror on the map."""

import copy
import pickle

from vttbridge.rules.encounter import Encounter, Positions
from vttbridge.rules.geometry import Cell

A, B, C = Cell(x=1, y=2), Cell(x=3, y=4), Cell(x=5, y=6)


def test_every_way_of_setting_a_cell_is_noted_in_order():
    pos = Positions({"a": A})
    assert pos.take_set() == []  # built, not set
    pos["b"] = B
    pos.update(c=C)
    pos |= {"a": B}
    pos.setdefault("d", A)
    pos.setdefault("b", A)  # already there: nothing set
    assert pos.take_set() == ["b", "c", "a", "d"]
    assert pos.take_set() == []
    assert pos == {"a": B, "b": B, "c": C, "d": A}


def test_the_encounter_keeps_a_positions_through_json_and_copies():
    enc = Encounter(positions={"a": {"x": 1, "y": 2}})
    assert isinstance(enc.positions, Positions) and enc.positions["a"] == A
    enc.positions["b"] = B
    again = Encounter.model_validate_json(enc.model_dump_json())
    assert isinstance(again.positions, Positions) and again.positions == enc.positions
    for twin in (enc.model_copy(deep=True).positions, copy.deepcopy(enc.positions),
                 pickle.loads(pickle.dumps(enc.positions))):  # fmt: skip
        assert isinstance(twin, Positions) and twin == enc.positions
        assert twin.take_set() == []  # a copy starts with nothing set
    assert enc.positions.take_set() == ["b"]
