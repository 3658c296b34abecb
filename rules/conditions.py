"""The conditions a character is in, as a VTT shows them on his token.

Some are kept on the character (``Character.conditions``: a stand off makes its participants
``standoff`` and ``vulnerable``, a surrender ``surrendered``, a crack strike on a standard
character ``dead``); the others follow from the encounter and are derived here, in one place,
so no rule has to keep a flag in step with its own state:

- ``dying``: a special character below 0 wound points (Spycraft; a crack strike sets -1);
- ``readied``: he has an active Ready;
- ``delayed``: he delayed this round and his turn has not come back yet;
- ``sneaking``: he is sneaking this turn (Fallout: Equestria);
- ``charged``: he charged this turn (Fallout: Equestria; until his next turn starts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vttbridge.rules.encounter import Encounter
from vttbridge.rules.foe.charge import CHARGE

DERIVED = ("dying", "readied", "delayed", "sneaking", "charged")
"""Conditions :func:`conditions_of` derives from the encounter."""


@dataclass(frozen=True)
class Duration:
    """How long a condition lasts by the rules, counted in combat rounds: it ends at the
    ``ends`` of its owner's turn (or of the round) after ``rounds`` rounds. The rules end it
    themselves; a VTT may show it counting down (Foundry v14: an Active Effect's duration)."""

    rounds: int
    ends: Literal["turn_start", "turn_end", "round_end"]


DURATIONS: dict[str, Duration] = {
    # a Ready carried over expires when the count reaches his IC next round (Spycraft, rule 4)
    "readied": Duration(rounds=1, ends="turn_start"),
    # a charge lasts until his next turn starts (Fallout: Equestria)
    "charged": Duration(rounds=1, ends="turn_start"),
}
"""The conditions with a duration of their own; the others last as long as their cause."""


def conditions_of(enc: Encounter, actor: str) -> set[str]:
    """Every condition ``actor`` is in: his own and the derived ones (a new set)."""
    ch = enc.characters.get(actor)
    if ch is None:
        return set()
    out = set(ch.conditions)
    if ch.kind == "special" and ch.wounds < 0 and "dead" not in out:
        out.add("dying")
    if actor in enc.spycraft.readies:
        out.add("readied")
    cb = enc.combatants.get(actor)
    if cb is not None and not cb.out:
        if cb.delay_steps and not cb.acted and enc.active != actor:
            out.add("delayed")
        if CHARGE in cb.actions_taken:
            out.add("charged")
    sneak = enc.foe.sneak.get(actor)
    if sneak is not None and sneak.active:
        out.add("sneaking")
    return out
