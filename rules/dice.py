"""Dice: standard notation through d20 (Avrae's dice engine, kept in ``vttbridge.vendor.d20``),
behind a roller object that a world owns.

``Roller`` rolls with its own ``random.Random``; ``ScriptedRoller`` takes die faces from a list,
so tests state exactly what the dice show. Every roll is kept in ``roller.history``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterable

from pydantic import BaseModel

from vttbridge.vendor import d20

# Caps the work one expression may do (Avrae uses the same guard for user-typed dice).
MAX_ROLLS = 1000


class DiceError(ValueError):
    """Bad dice notation or an expression that rolls too many dice."""

    code = "bad_dice"


class Die(BaseModel):
    """One die as rolled: its size, the face shown and whether it counts toward the total."""

    size: int
    value: int
    kept: bool = True


class Roll(BaseModel):
    """A recorded roll: the expression, each die, the total and a plain-text breakdown."""

    expression: str
    dice: list[Die]
    total: int
    text: str
    reason: str = ""

    @property
    def faces(self) -> list[int]:
        return [d.value for d in self.dice if d.kept]


class _PlainStringifier(d20.SimpleStringifier):
    pass


# One d20 roller for the process, one roll at a time. d20 takes its dice from a module global
# (``d20.expression.random``), set to the rolling world's source for each roll: two worlds
# rolling at once (scripts' callbacks run in each world's thread) would take each other's dice,
# and a replay would not roll them again. A d20 roller of each world's own was also a
# reference cycle (its dispatch table holds its bound methods) with a parse cache of its own.
_D20 = d20.Roller(context=d20.RollContext(max_rolls=MAX_ROLLS))
_ROLLING = threading.Lock()


class _Source:
    """Adapter giving d20 the one method it calls on the ``random`` module."""

    def __init__(self, roller: Roller) -> None:
        self._roller = roller

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        # d20 calls randrange(size) for dN and randrange(0, 100, 10) for d%.
        face = self._roller._face(start if stop is None else 100)
        if self._roller.faces is not None:
            self._roller.faces.append(face)
        if stop is None:
            return face - 1
        return (face % 100) // step * step


class Roller:
    """Rolls dice notation. One per world, so a test can swap in a ``ScriptedRoller``."""

    def __init__(self, seed: int | None = None, *, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random(seed)
        self.history: list[Roll] = []
        self.faces: list[int] | None = None
        """Every face shown, in order, while a list is set here (a replay keeps them, so a
        ``ScriptedRoller`` given them rolls the same dice again)."""

    def _face(self, size: int) -> int:
        return self.rng.randrange(size) + 1

    def roll(self, expression: str | int, reason: str = "") -> Roll:
        """Roll ``expression`` (``"1d20+5"``, ``"4d6kh3"``, or a plain number)."""
        expr = str(expression).strip()
        if not expr:
            raise DiceError("empty dice expression")
        with _ROLLING:
            saved = d20.expression.random
            d20.expression.random = _Source(self)  # d20 has no RNG parameter
            try:
                result = _D20.roll(expr, stringifier=_PlainStringifier())
            except d20.TooManyRolls as e:
                raise DiceError(f"{expr!r} rolls more than {MAX_ROLLS} dice") from e
            except d20.RollError as e:
                raise DiceError(f"bad dice notation {expr!r}: {e}") from e
            finally:
                d20.expression.random = saved
        roll = Roll(
            expression=expr,
            dice=list(_dice_of(result.expr)),
            total=int(result.total),
            text=result.result,
            reason=reason,
        )
        self.history.append(roll)
        return roll

    def d(self, sides: int, count: int = 1, modifier: int = 0, reason: str = "") -> Roll:
        """Shorthand: ``roller.d(20, modifier=5)`` rolls ``1d20+5``."""
        mod = f"+{modifier}" if modifier > 0 else (f"{modifier}" if modifier < 0 else "")
        return self.roll(f"{count}d{sides}{mod}", reason=reason)


class ScriptedRoller(Roller):
    """A roller whose dice show the given faces, in order. Raises when it runs out."""

    def __init__(self, faces: Iterable[int] = ()) -> None:
        super().__init__(seed=0)
        self.script: list[int] = list(faces)

    def push(self, *faces: int) -> None:
        self.script.extend(faces)

    def _face(self, size: int) -> int:
        if not self.script:
            raise DiceError(f"scripted roller ran out of dice (needed a d{size})")
        face = self.script.pop(0)
        if not 1 <= face <= size:
            raise DiceError(f"scripted face {face} does not fit a d{size}")
        return face


def _dice_of(node: d20.expression.Number, kept: bool = True) -> Iterable[Die]:
    kept = kept and node.kept
    if isinstance(node, d20.expression.Die):
        size = 100 if node.size == "%" else int(node.size)
        for lit in node.values:
            value = int(lit.number) if node.size != "%" else (int(lit.number) or 100)
            yield Die(size=size, value=value, kept=kept and lit.kept)
    elif isinstance(node, d20.expression.Set):  # Dice is a Set of Die; children hide them
        for member in node.values:
            yield from _dice_of(member, kept)
    else:
        for child in node.children:
            yield from _dice_of(child, kept)
