"""What every FoE rule shares: the system check, who is "in the fight" and who sits out, paths
on the map, the conditions FoE's state puts a character in, and clearing a combatant's per-turn
FoE state when his turn starts.

A FoE round gives each combatant one turn with two actions (``Combatant.half_actions`` 2; one in
the surprise round, ``Encounter.actions_per_turn`` 1). The core resets the budget and
``moved_ft`` at each turn start; the hook below does the same for
:class:`~vttbridge.systems.foe.rules.state.FoEState`.
"""

from __future__ import annotations

from collections.abc import Sequence

from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.geometry import Cell
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.rules.systems import Kind
from vttbridge.systems.foe.rules.economy import CHARGE
from vttbridge.systems.foe.rules.state import NAME, FoEState, foe


def require_foe(enc: Encounter) -> None:
    if enc.options.system != NAME:
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


def require_not_surprised(enc: Encounter, actor: str, state: FoEState | None = None) -> None:
    state = state or foe(enc)
    if state.surprise_round and actor in state.surprised:
        raise RuleError(
            "surprised",
            f"{enc.name(actor)} is surprised and sits out the surprise round.",
        )


def sits_out(enc: Encounter, actor: str, kind: Kind) -> None:
    """The gate: a surprised character (not Quick Witted) takes no action at all in the
    surprise round ("the attacking group's members (and any character with the Quick Witted
    perk) all roll initiative"), whatever path it comes by: a command, a drag, a script."""
    require_not_surprised(enc, actor)


def conditions(enc: Encounter, actor: str) -> set[str]:
    """``sneaking`` (this turn's sneak still on), ``charged`` (he charged this turn, until his
    next turn starts)."""
    out = set()
    cb = enc.combatants.get(actor)
    if cb is not None and not cb.out and CHARGE in cb.actions_taken:
        out.add("charged")
    sneak = foe(enc).sneak.get(actor)
    if sneak is not None and sneak.active:
        out.add("sneaking")
    return out


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


def add_to_trail(
    enc: Encounter, actor: str, path: Sequence[Cell], state: FoEState | None = None
) -> None:
    """Append a move on foot to this turn's trail (the source of a running start)."""
    trail = (state or foe(enc)).trail.setdefault(actor, [])
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
    state = foe(enc)
    for per_turn in (state.trail, state.sneak, state.hides, state.charge_reach):
        per_turn.pop(actor, None)
    if state.held.pop(actor, None) is not None:
        out.add("held_expired", actor, f"{enc.name(actor)}'s held action lapses unused.")
