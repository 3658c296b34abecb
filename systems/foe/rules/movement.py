"""Movement in a FoE round, and dodging (Fallout: Equestria, "Movement").

Each action spent moving covers up to the listed move speed. Any other action (firing, dodging,
a manoeuvre, a sneak action) halves what the round can cover: a move plus another action is 1x
speed in all. Running, both actions spent moving, covers 3x speed. In the surprise round (one
action) that is 1x speed.

:func:`move` is what the runtime calls for a token move in combat: it measures the path with the
world's grid metric (through every waypoint), spends move actions as the distance needs them
and records the move, or refuses with ``over_budget`` and the distance still allowed. Decisions
where the text is silent:

* The budget is per turn, not per drag: a move action's distance may be covered in several
  drags, before and after the other action (move 10 ft, shoot, move 15 ft more with move 25).
* A move spends its action when it starts; a move that takes the total past 1x speed turns the
  turn into a run and spends the second action too (so nothing else can follow it).
* While a character is sneaking (``vttbridge.systems.foe.rules.sneaking``) his drags are sneak
  movement instead.
* Dodging costs an action (and so caps the round at 1x speed); the shift it gives is outside the
  budget and is at most to a touching cell (a dive out of the way, not a free move).

:func:`budget` is the one answer to "how far may he still go this turn, at which pace": what the
dashboard shows, what the VTT's ruler is coloured by and what Roll20 whispers after a drag.
Two move actions are the run (both actions moving covers 3x speed), so "within two actions"
and "within a run" are one pace: walk (the turn stays within one action, 1x speed), run (both
actions, 3x), sneak (sneak movement while sneaking), and beyond, which a move is refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from vttbridge.rules import actions
from vttbridge.rules.encounter import Combatant, Encounter, require_turn
from vttbridge.rules.geometry import Cell
from vttbridge.rules.movement import MoveBudget
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.systems.foe.rules.economy import DODGE
from vttbridge.systems.foe.rules.state import foe
from vttbridge.systems.foe.rules.turns import (
    add_to_trail,
    fighting,
    fmt,
    full_path,
    require_foe,
    require_not_surprised,
)

MOVE = actions.MOVE
RUN_MULTIPLIER = 3
"""Running (both actions spent moving) covers three times the move speed."""


def _regular_moved(enc: Encounter, actor: str) -> float:
    sneak = foe(enc).sneak.get(actor)
    return enc.combatants[actor].moved_ft - (sneak.moved if sneak else 0.0)


def round_cap(enc: Encounter, actor: str) -> float:
    """The most ground ``actor`` can cover on foot this turn, counting what he has already
    covered: 3x speed while every action spent and left can be a move, 1x speed once another
    action is taken (or with a single action), 0 with no move possible."""
    speed = enc.character(actor).move
    cb = enc.combatants[actor]
    return _cap(speed, cb, cb.actions_taken.count(MOVE))


def _cap(speed: float, cb: Combatant, moves: int) -> float:
    """:func:`round_cap` from its parts (``moves``: the move actions in ``cb.actions_taken``),
    for :func:`move`, which has them at hand. Spending a half action on a move leaves it
    unchanged (one more move, one half action fewer), so a move computes it once."""
    others = len(cb.actions_taken) - moves
    possible_moves = moves + cb.half_actions
    if others == 0 and possible_moves >= 2:
        return RUN_MULTIPLIER * speed
    if possible_moves >= 1:
        return speed
    return 0.0


def movement_allowed(enc: Encounter, actor: str) -> float:
    """How much farther ``actor`` may move now, in feet: ``math.inf`` outside the fight, his
    remaining sneak movement while sneaking, else what is left of :func:`round_cap`."""
    require_foe(enc)
    enc.character(actor)
    if foe(enc).surprise_round and actor in foe(enc).surprised:
        return 0.0
    if not fighting(enc, actor):
        return math.inf
    sneak = foe(enc).sneak.get(actor)
    if sneak is not None and sneak.active:
        return sneak.left
    return max(0.0, round_cap(enc, actor) - _regular_moved(enc, actor))


def budget(enc: Encounter, actor: str) -> MoveBudget | None:
    """``actor``'s movement budget this turn, or None when nothing limits it (not in a FoE
    fight). A combatant waiting for his turn keeps his figures (``turn`` False: a move now is
    refused); a surprised character in the surprise round has none left."""
    figures = budget_figures(enc, actor)
    return None if figures is None else MoveBudget.model_validate(figures)


def budget_figures(enc: Encounter, actor: str) -> dict[str, float | bool | None] | None:
    """:func:`budget` as a plain dict of :class:`MoveBudget`'s fields (what the VTT is sent
    after every drag, compared with what it was sent before: kept cheap)."""
    require_foe(enc)
    ch = enc.character(actor)
    speed = ch.move
    state = foe(enc)
    if state.surprise_round and actor in state.surprised:
        return _figures(speed, 0.0, 0.0, None, None, None, False)
    cb = enc.combatants.get(actor)
    if cb is None or cb.out or not enc.in_combat:
        return None
    turn = enc.active == actor
    sneak = state.sneak.get(actor)
    if sneak is not None and sneak.active:
        return _figures(speed, cb.moved_ft, sneak.left, None, None, sneak.left, turn)
    on_foot = cb.moved_ft - (sneak.moved if sneak is not None else 0.0)
    cap = _cap(speed, cb, cb.actions_taken.count(MOVE))
    left = max(0.0, cap - on_foot)
    walk = max(0.0, min(cap, speed) - on_foot)
    return _figures(speed, cb.moved_ft, left, walk, left if cap > speed else None, None, turn)


def _figures(
    speed: float,
    moved: float,
    left: float,
    walk: float | None,
    run: float | None,
    sneak: float | None,
    turn: bool,
) -> dict[str, float | bool | None]:
    return {
        "speed": speed,
        "moved": moved,
        "left": left,
        "walk": walk,
        "run": run,
        "sneak": sneak,
        "turn": turn,
    }


def _why(enc: Encounter, actor: str) -> str:
    speed = fmt(enc.character(actor).move)
    cap = round_cap(enc, actor)
    if cap > enc.character(actor).move:
        return f"running: 3 x {speed} ft"
    if cap == 0:
        return "no action left to move with"
    if enc.turn_budget < 2:
        return f"one action in the surprise round: {speed} ft"
    return f"a move with another action: {speed} ft in all"


def move(
    enc: Encounter,
    actor: str,
    path: Sequence[Cell],
    *,
    start: Cell | None = None,
    climb: float = 0.0,
) -> Outcome:
    """Move ``actor`` along ``path`` (the cells a token passed through; it starts at his cell,
    or at ``start`` when the VTT reports where the move began, which is added if missing).
    ``climb``: the height (ft) the move climbs or descends between levels (floors), counted on
    top of the path's length. In
    combat, on his turn, within his budget; the move actions it needs are spent
    (:mod:`vttbridge.rules.actions`). Outside the fight the move is free. Raises ``over_budget``
    (with
    ``allowed`` and ``length`` in ``detail``) and changes nothing when the path is too long."""
    require_foe(enc)
    ch = enc.character(actor)
    state = foe(enc)
    require_not_surprised(enc, actor, state)
    cells = full_path(enc, actor, path, start)
    length = enc.grid.path_length(cells) + climb
    out = Outcome()

    if not fighting(enc, actor):
        enc.positions[actor] = cells[-1]
        out.add("moved", actor, f"{ch.display} moves {fmt(length)} ft.", distance=length, free=True)
        return out

    cb = require_turn(enc, actor)
    sneak = state.sneak.get(actor)
    if sneak is not None and sneak.active:
        if length > sneak.left:
            raise RuleError(
                "over_budget",
                f"{ch.display} is sneaking and can move {fmt(sneak.left)} ft more at sneak "
                f"speed; that path is {fmt(length)} ft. Sneak again, or stop sneaking to move "
                "normally.",
                allowed=sneak.left,
                length=length,
                cite="sneak speed",
            )
        sneak.left -= length
        sneak.moved += length
        sneak.moved_this_action += length
        cb.moved_ft += length
        enc.positions[actor] = cells[-1]
        state.trail.pop(actor, None)  # creeping is no run-up for a jump
        out.add(
            "moved",
            actor,
            f"{ch.display} sneaks {fmt(length)} ft ({fmt(sneak.left)} ft of sneak movement left).",
            distance=length,
            sneaking=True,
            left=sneak.left,
        )
        return out

    moved = cb.moved_ft - (sneak.moved if sneak else 0.0)
    moves = cb.actions_taken.count(MOVE)
    cap = _cap(ch.move, cb, moves)
    left = max(0.0, cap - moved)
    if length > left:
        raise RuleError(
            "over_budget",
            f"{ch.display} can move {fmt(left)} ft more this round ({_why(enc, actor)}); "
            f"that path is {fmt(length)} ft.",
            allowed=left,
            length=length,
        )
    total = moved + length
    needed = 0 if total == 0 else (1 if total <= ch.move else 2)
    new_actions = max(0, needed - moves)
    if new_actions:
        actions.check(enc, actor, "full" if new_actions == 2 else MOVE)

    for _ in range(new_actions):
        actions.take(enc, actor, MOVE)
    cb.moved_ft += length
    enc.positions[actor] = cells[-1]
    add_to_trail(enc, actor, cells, state)
    running = cb.actions_taken.count(MOVE) >= 2
    left_after = max(0.0, cap - total)  # cap: unchanged by move spends (see _cap)
    how = "runs" if running else "moves"
    out.add(
        "moved",
        actor,
        f"{ch.display} {how} {fmt(length)} ft ({fmt(total)} ft this round, {fmt(left_after)} ft "
        "more allowed).",
        distance=length,
        total=total,
        left=left_after,
        running=running,
        actions_spent=new_actions,
    )
    return out


def dodge(enc: Encounter, actor: str, to: Cell | None = None) -> Outcome:
    """Dodge: uses a held dodge (``vttbridge.systems.foe.rules.sneaking.hold_defense``) if he has
    one, at any time; otherwise costs an action on his turn. ``to`` shifts him to a touching cell,
    outside the movement budget (the dodge's own movement)."""
    require_foe(enc)
    ch = enc.character(actor)
    require_not_surprised(enc, actor)
    held = foe(enc).held.get(actor) == "dodge"
    target: Cell | None = None
    if to is not None:
        target = Cell.model_validate(to)
        here = enc.positions.get(actor)
        if here is None:
            raise RuleError("no_position", f"{ch.display} has no position on the map.")
        if not enc.grid.adjacent(here, target):
            raise RuleError(
                "dodge_too_far",
                f"A dodge shifts {ch.display} at most to a touching cell.",
            )
    if not held and fighting(enc, actor):
        actions.check(enc, actor, DODGE)

    out = Outcome()
    if held:
        del foe(enc).held[actor]
    elif fighting(enc, actor):
        actions.take(enc, actor, DODGE)
    if target is not None:
        enc.positions[actor] = target
        foe(enc).trail.pop(actor, None)  # a dive breaks any run-up
    how = "his held action" if held else "an action"
    out.add(
        "dodged",
        actor,
        f"{ch.display} dodges ({how})" + (" and shifts out of the way." if target else "."),
        held=held,
        to=target.model_dump() if target else None,
    )
    return out


def left(enc: Encounter, actor: str) -> str:
    """What is left of ``actor``'s turn, for chat (``System.left``): ``only 1 action left this
    turn and can move 25 ft more this round``."""
    text = actions.units_left(enc, actor)
    feet = movement_allowed(enc, actor)
    if 0 < feet < math.inf:
        return f"{text} this turn and can move {feet:g} ft more this round"
    return f"{text} this turn"
