"""Helpers for the FoE rule tests: a FoE world, characters, straight paths, fixed initiative."""

from __future__ import annotations

from typing import Any

from vttbridge.rules.characters import Character
from vttbridge.rules.dice import ScriptedRoller
from vttbridge.rules.encounter import Encounter, add_character, start_combat
from vttbridge.rules.geometry import Cell
from vttbridge.rules.options import Options


def pony(cid: str, **stats: Any) -> Character:
    return Character(id=cid, name=cid.title(), **stats)


def world(*chars: Character, at: dict[str, tuple[int, int]] | None = None, **options: Any):
    """A FoE encounter holding ``chars``, placed at ``at`` (cells), with ⚙ ``options``."""
    enc = Encounter(options=Options(system="foe", **options))
    for ch in chars:
        add_character(enc, ch)
    for cid, (x, y) in (at or {}).items():
        enc.positions[cid] = Cell(x=x, y=y)
    return enc


def fight(enc: Encounter, order: list[str]) -> Encounter:
    """Start combat with ICs fixed so ``order`` is the turn order (no dice)."""
    start_combat(enc, order, ScriptedRoller(), ics={a: 100 - i for i, a in enumerate(order)})
    return enc


def c(x: int, y: int = 0) -> Cell:
    return Cell(x=x, y=y)


def east(feet: float, start: tuple[int, int] = (0, 0)) -> list[Cell]:
    """A straight path east from ``start`` covering ``feet`` on the 5 ft grid."""
    x, y = start
    return [c(x, y), c(x + int(feet // 5), y)]
