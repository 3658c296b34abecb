"""The MFD ladder [assumed]: a multiplier on the d100 roll-under target of a skill check.

⚙ ``mfd_ladder`` (default 1/10, 1/4, 1/2, 3/4, 1, 3/2, 2, 3) lists the rungs from hardest to
easiest; "one step harder" moves one rung down the ladder, "one step easier" one rung up, and the
ends of the ladder are as far as it goes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from vttbridge.systems.foe.rules.options import DEFAULT_MFD_LADDER


def rung(mfd: float, ladder: Sequence[float] = DEFAULT_MFD_LADDER) -> int:
    """The index of ``mfd`` on the ladder; an MFD between rungs counts as the nearest rung
    (the harder one on an exact tie, so an odd MFD never helps the roller)."""
    if not ladder:
        raise ValueError("the MFD ladder is empty")
    steps = sorted(ladder)
    return min(range(len(steps)), key=lambda i: (abs(steps[i] - mfd), steps[i]))


def harder(mfd: float, steps: int = 1, ladder: Sequence[float] = DEFAULT_MFD_LADDER) -> float:
    """``mfd`` made ``steps`` rungs harder (a negative ``steps`` makes it easier)."""
    rungs = sorted(ladder)
    i = rung(mfd, rungs) - steps
    return rungs[min(max(i, 0), len(rungs) - 1)]


def easier(mfd: float, steps: int = 1, ladder: Sequence[float] = DEFAULT_MFD_LADDER) -> float:
    """``mfd`` made ``steps`` rungs easier."""
    return harder(mfd, -steps, ladder)


def penalised(
    mfd: float,
    field_mfd: float,
    mode: Literal["steps", "multiplier"] = "steps",
    ladder: Sequence[float] = DEFAULT_MFD_LADDER,
) -> float:
    """The MFD of a roll made against a stealth field of MFD ``field_mfd`` (⚙ ``mfd_penalty``).

    ``steps``: that many rungs harder (a 2 MFD field: 1 -> 3/4 -> 1/2; a fractional field MFD
    rounds down to whole steps). ``multiplier``: the MFD divided by the field's (1 / 2 = 1/2)."""
    if field_mfd <= 0:
        raise ValueError(f"a stealth field's MFD must be positive, not {field_mfd}")
    if mode == "multiplier":
        return mfd / field_mfd
    return harder(mfd, math.floor(field_mfd), ladder)


def target(skill: int, modifier: int = 0, mfd: float = 1.0) -> int:
    """The roll-under target of a d100 check: (skill + modifiers) x MFD, rounded down, never
    below 0. Modifiers are added before the MFD multiplies, so a hard check shrinks bonuses too."""
    return max(0, math.floor((skill + modifier) * mfd + 1e-9))
