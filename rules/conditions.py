"""The conditions a character is in, as a VTT shows them on his token.

Some are kept on the character (``Character.conditions``: a rule puts them there and takes
them off); the others follow from the encounter and are derived here, in one place, so no rule
has to keep a flag in step with its own state:

- ``delayed``: he delayed this round and his turn has not come back yet;
- those the game system derives from its own state (``System.conditions``: a Ready held, a
  sneak under way...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vttbridge.rules.encounter import Encounter

DERIVED = ("delayed",)
"""Conditions :func:`conditions_of` derives from the shared encounter (a system adds its own)."""


@dataclass(frozen=True)
class Duration:
    """How long a condition lasts by the rules, counted in combat rounds: it ends at the
    ``ends`` of its owner's turn (or of the round) after ``rounds`` rounds. The rules end it
    themselves; a VTT may show it counting down (Foundry v14: an Active Effect's duration).
    A game system names its own (``System.durations``)."""

    rounds: int
    ends: Literal["turn_start", "turn_end", "round_end"]


def conditions_of(enc: Encounter, actor: str) -> set[str]:
    """Every condition ``actor`` is in: his own and the derived ones (a new set)."""
    ch = enc.characters.get(actor)
    if ch is None:
        return set()
    out = set(ch.conditions)
    cb = enc.combatants.get(actor)
    if cb is not None and not cb.out and cb.delay_steps and not cb.acted and enc.active != actor:
        out.add("delayed")
    derive = enc.system.conditions
    if derive is not None:
        out.update(derive(enc, actor))
    return out
