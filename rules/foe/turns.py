"""What every FoE rule shares: the system check, who is "in the fight", paths on the map, and
clearing a combatant's per-turn FoE state when his turn starts.

A FoE round gives each combatant one turn with two actions (``Combatant.half_actions`` 2; one in
the surprise round, ``Encounter.actions_per_turn`` 1). The core resets the budget and
``moved_ft`` at each turn start; the hook below does the same for :class:`FoEState`.
"""

from __future__ import annotations

from collections.abc import Sequence

from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.geometry import Cell
from vttbridge.rules.outcome import Outcome, RuleError


def require_foe(enc: Encounter) -> None:
    if enc.options.system != "foe":
        raise RuleError(
            "wrong_system",
            f"This is a Fallout: Equestria rule; this world plays {enc.options.system}.",
        )


def fighting(enc: Encounter, actor: str) -> bool:
    """True when ``actor``'s actions count against a FoE turn budget: a combat is running and
    he is in its turn order. A surprised character sitting out the surprise round may not act at
    all (:func:`require_not_surprised`); anyone else outside the order moves freely."""
    cb = enc.combatants.get(actor)
    return enc.in_combat and cb is not None and not cb.out


def require_not_surprised(enc: Encounter, actor: str) -> None:
    if enc.foe.surprise_round and actor in enc.foe.surprised:
        raise RuleError(
            "surprised",
            f"{enc.name(actor)} is surprised and sits out the surprise round.",
        )


def full_path(
    enc: Encounter, actor: str, path: Sequence[Cell], start: Cell | None = None
) -> list[Cell]:
    """The path a token takes, starting at its current cell (or ``start``, where the VTT says
    the move began): a path that does not begin there is taken to be the waypoints after it
    (a VTT drag reports where the token went)."""
    cells = [Cell.model_validate(c) for c in path]
    if not cells:
        raise RuleError("bad_path", "A move needs at least a destination cell.")
    here = start if start is not None else enc.positions.get(actor)
    if here is not None and cells[0] != here:
        cells.insert(0, here)
    return cells


def add_to_trail(enc: Encounter, actor: str, path: Sequence[Cell]) -> None:
    """Append a move on foot to this turn's trail (the source of a running start)."""
    trail = enc.foe.trail.setdefault(actor, [])
    for cell in path:
        if not trail or trail[-1] != cell:
            trail.append(cell)


def fmt(feet: float) -> str:
    """Feet for chat: ``15``, ``12.5``."""
    return f"{feet:g}"


def clear_turn_state(enc: Encounter, roller: Roller, out: Outcome) -> None:
    # A held dodge/block lasts until used or until the holder's next turn.
    actor = enc.active
    if actor is None:
        return
    for per_turn in (enc.foe.trail, enc.foe.sneak, enc.foe.hides, enc.foe.charge_reach):
        per_turn.pop(actor, None)
    if enc.foe.held.pop(actor, None) is not None:
        out.add("held_expired", actor, f"{enc.name(actor)}'s held action lapses unused.")
