"""Jumping (Fallout: Equestria), from the character's ground (base) move speed.

* Long jump: half what he can move in one action, not rounded (move 25: 12.5 ft).
* A running start, at least one full move action's distance covered in a straight line just
  before the jump, adds 5 ft.
* High jump: half the long jump, rounded down (⚙ ``high_jump_rounding``: to the foot, or to 5 ft).
* Move below 10 ft: he cannot clear a 5 ft gap without a running start (move / 2 < 5 already
  says so). Move below 5 ft: no appreciable standing jump at all, 0 ft; a running start still
  gives move / 2 + 5 (move 4: 7 ft).

(Move 30: long 15, running 20; high 7, running 10. Move 9: 4.5, running 9.5. Move 4: 0,
running 7.)

:func:`jump` judges a jump (and refuses a claimed running start that was not really run); the
token's flight over the gap is an ordinary :func:`vttbridge.systems.foe.rules.movement.move`,
which counts it. :func:`jump_leg` judges a jump made as one leg of a drag (a VTT waypoint marked as
a jump): the leg's length is the jump's, and the run-up is what the path ran straight just before
it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from vttbridge.rules.encounter import Encounter, require_turn
from vttbridge.rules.geometry import Cell, Grid, is_straight
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.systems.foe.rules.options import options
from vttbridge.systems.foe.rules.state import foe
from vttbridge.systems.foe.rules.turns import fighting, fmt, require_foe, require_not_surprised

RUNNING_START_BONUS_FT = 5.0
NO_STANDING_JUMP_BELOW_FT = 5.0
"""Below this move speed there is no appreciable standing jump."""


def long_jump(move: float, *, running_start: bool = False) -> float:
    """How far he jumps: move / 2 (+5 ft with a running start); 0 standing when move < 5."""
    if not running_start and move < NO_STANDING_JUMP_BELOW_FT:
        return 0.0
    return move / 2 + (RUNNING_START_BONUS_FT if running_start else 0.0)


def high_jump(
    move: float,
    *,
    running_start: bool = False,
    rounding: Literal["foot", "five_ft"] = "foot",
) -> float:
    """How high he jumps: half the long jump, rounded down to the foot (or to 5 ft)."""
    half = long_jump(move, running_start=running_start) / 2
    step = 5 if rounding == "five_ft" else 1
    return float(math.floor(half / step + 1e-9) * step)


def can_clear(move: float, gap: float, *, running_start: bool = False) -> bool:
    """Whether he clears a gap ``gap`` ft wide."""
    return gap <= long_jump(move, running_start=running_start)


def straight_run(grid: Grid, trail: Sequence[Cell]) -> float:
    """The length of the straight stretch at the end of ``trail`` (the run before a jump)."""
    if len(trail) < 2:
        return 0.0
    start = len(trail) - 2
    while start > 0 and is_straight(trail[start - 1 :]):
        start -= 1
    return grid.path_length(trail[start:])


def _check_run_up(enc: Encounter, actor: str, run_up: Sequence[Cell] | None) -> float:
    """Validate the running start and return its straight length; raise if it is not one."""
    ch = enc.character(actor)
    if run_up is not None:
        cells = [Cell.model_validate(c) for c in run_up]
        here = enc.positions.get(actor)
        if here is not None and cells and cells[-1] != here:
            raise RuleError(
                "run_up_elsewhere",
                f"{ch.display}'s run-up must end where he jumps from.",
            )
        if not is_straight(cells):
            raise RuleError(
                "run_up_not_straight",
                f"{ch.display}'s run-up was not a straight line: no running start.",
            )
        total = straight = enc.grid.path_length(cells)
    elif fighting(enc, actor):
        trail = foe(enc).trail.get(actor, [])
        total = enc.grid.path_length(trail)
        straight = straight_run(enc.grid, trail)
    else:
        raise RuleError(
            "no_run_up", f"Give the path {ch.display} ran before the jump for a running start."
        )
    if straight >= ch.move:
        return straight
    if total >= ch.move:
        raise RuleError(
            "run_up_not_straight",
            f"{ch.display} ran {fmt(total)} ft this turn but only the last {fmt(straight)} ft "
            f"were straight; a running start needs {fmt(ch.move)} ft in a straight line.",
            straight=straight,
            needed=ch.move,
        )
    raise RuleError(
        "run_up_too_short",
        f"A running start needs a full move action's distance ({fmt(ch.move)} ft) in a straight "
        f"line; {ch.display} ran {fmt(straight)} ft.",
        straight=straight,
        needed=ch.move,
    )


def jump(
    enc: Encounter,
    actor: str,
    *,
    gap: float | None = None,
    height: float | None = None,
    running_start: bool = False,
    run_up: Sequence[Cell] | None = None,
) -> Outcome:
    """Judge a jump: a long jump over ``gap`` ft, or a high jump of ``height`` ft, or (with
    neither) just how far and high he can jump now.

    A running start is claimed with ``running_start`` (in combat: the straight stretch at the
    end of what he moved this turn) or by giving ``run_up``, the path he ran (straight, ending
    where he jumps). A claimed running start that was not straight or not long enough is
    refused, as is a gap or height beyond him. Changes no state."""
    require_foe(enc)
    ch = enc.character(actor)
    require_not_surprised(enc, actor)
    if gap is not None and height is not None:
        raise RuleError("bad_argument", "A jump is either long (a gap) or high (a height).")
    if fighting(enc, actor):
        require_turn(enc, actor)
    running = running_start or run_up is not None
    if running:
        _check_run_up(enc, actor, run_up)
    long = long_jump(ch.move, running_start=running)
    high = high_jump(ch.move, running_start=running, rounding=options(enc).high_jump_rounding)
    start = " with a running start" if running else ""
    if gap is not None and gap > long:
        why = ""
        if not running and ch.move < 2 * NO_STANDING_JUMP_BELOW_FT:
            why = " (move under 10 ft: not without a running start)"
        raise RuleError(
            "too_far",
            f"{ch.display} can jump {fmt(long)} ft{start}; the gap is {fmt(gap)} ft{why}.",
            allowed=long,
            gap=gap,
        )
    if height is not None and height > high:
        raise RuleError(
            "too_high",
            f"{ch.display} can jump {fmt(high)} ft high{start}; that is {fmt(height)} ft.",
            allowed=high,
            height=height,
        )
    out = Outcome()
    if gap is not None:
        text = f"{ch.display} jumps the {fmt(gap)} ft gap{start} (up to {fmt(long)} ft)."
    elif height is not None:
        text = f"{ch.display} jumps {fmt(height)} ft high{start} (up to {fmt(high)} ft)."
    else:
        text = f"{ch.display} can jump {fmt(long)} ft long and {fmt(high)} ft high{start}."
    out.add(
        "jumped" if gap is not None or height is not None else "jump_distances",
        actor,
        text,
        long=long,
        high=high,
        running_start=running,
        gap=gap,
        height=height,
    )
    return out


def jump_leg(
    enc: Encounter, actor: str, run_up: Sequence[Cell], takeoff: Cell, landing: Cell
) -> Outcome:
    """Judge a jump made as one leg of a move (Foundry's ``jump`` movement action on a
    waypoint): from ``takeoff`` to ``landing``, as long as the leg measures. ``run_up`` is the
    path he covered before it, ending at ``takeoff`` (this turn's earlier moves and the move up
    to the jump): a running start when its straight end covers one move action's distance,
    else a standing jump. Raises ``too_far`` when the leg is beyond him. Changes no state; the
    flight is part of the move, which the movement budget counts."""
    require_foe(enc)
    ch = enc.character(actor)
    require_not_surprised(enc, actor)
    if fighting(enc, actor):
        require_turn(enc, actor)
    length = enc.grid.path_length([takeoff, landing])
    cells = [Cell.model_validate(c) for c in run_up]
    if not cells or cells[-1] != takeoff:
        cells.append(takeoff)
    running = straight_run(enc.grid, cells) >= ch.move > 0
    long = long_jump(ch.move, running_start=running)
    start = " with a running start" if running else ""
    if length > long:
        why = ""
        if not running and ch.move < 2 * NO_STANDING_JUMP_BELOW_FT:
            why = " (move under 10 ft: not without a running start)"
        raise RuleError(
            "too_far",
            f"{ch.display} can jump {fmt(long)} ft{start}; that jump is {fmt(length)} ft{why}.",
            allowed=long,
            gap=length,
        )
    out = Outcome()
    out.add(
        "jumped",
        actor,
        f"{ch.display} jumps {fmt(length)} ft{start} (up to {fmt(long)} ft).",
        long=long,
        running_start=running,
        gap=length,
        takeoff=takeoff.model_dump(),
        landing=landing.model_dump(),
    )
    return out
