"""Fixtures of the Roll20 adapter tests: the payloads (recorded Roll20 payloads in
``fixtures/``) and a world that knows them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from vttbridge.adapters.roll20 import INBOUND, Roll20Adapter
from vttbridge.rules.geometry import Cell
from vttbridge.sdk.events import Player
from vttbridge.sdk.world import Scene, Token, World

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"


def fixture(name: str) -> Any:
    return copy.deepcopy(json.loads((FIXTURES / name).read_text()))


@pytest.fixture
def adapter() -> Roll20Adapter:
    return Roll20Adapter()


@pytest.fixture
def page() -> dict[str, Any]:
    return fixture("page.json")


@pytest.fixture
def world() -> World:
    """The Goblin Cave as the runtime would hold it after a snapshot."""
    w = World(id="w")
    w.scenes["-OPage01"] = Scene(id="-OPage01", name="Goblin Cave")
    w.active_scene = "-OPage01"
    w.players["-OPlayGM"] = Player(id="-OPlayGM", name="Dana", role="gm")
    w.players["-OPlay02"] = Player(id="-OPlay02", name="Bob", role="player")
    w.tokens["-OTokGob1"] = Token(
        id="-OTokGob1", name="Goblin 1", actor="-OCharGob", cell=Cell(x=7, y=5), scene="-OPage01"
    )
    w.tokens["-OTokPC01"] = Token(
        id="-OTokPC01",
        name="Kevin",
        actor="-OCharKev",
        cell=Cell(x=2, y=2),
        scene="-OPage01",
        owners=["-OPlay02"],
    )
    return w


def validate(event: str, payload: dict[str, Any]) -> Any:
    return INBOUND[event].model_validate(payload)
