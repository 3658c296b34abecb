"""d100 roll-under skill checks and opposed rolls (FoE is a d100 system).

A check succeeds when 1d100 shows the target or less (the target is skill + modifiers, times the
MFD: :func:`vttbridge.systems.foe.rules.mfd.target`); its margin is target - roll.

An opposed roll [the text does not say how one resolves; this is our reading, documented]:
whoever succeeds while the other fails wins; when both succeed the larger margin wins; when both
fail, or both succeed by the same margin, nobody wins (a tie). A rule using an opposed roll says
what a tie means (for sneaking: the sneaker stays unnoticed, since noticing him takes a win).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from vttbridge.rules.dice import Roll, Roller


class Check(BaseModel):
    """One d100 roll against a target."""

    roll: int
    target: int

    @property
    def success(self) -> bool:
        return self.roll <= self.target

    @property
    def margin(self) -> int:
        return self.target - self.roll


def roll_check(roller: Roller, target: int, reason: str = "") -> tuple[Check, Roll]:
    """Roll 1d100 against ``target``."""
    roll = roller.roll("1d100", reason=reason)
    return Check(roll=roll.total, target=target), roll


def opposed(a: Check, b: Check) -> Literal["a", "b", "tie"]:
    """Who wins an opposed roll between ``a`` and ``b`` (see the module docstring)."""
    if a.success != b.success:
        return "a" if a.success else "b"
    if not a.success or a.margin == b.margin:
        return "tie"
    return "a" if a.margin > b.margin else "b"
