"""What Spycraft 2.0 asks of the shared action economy (:mod:`vttbridge.rules.actions`): what
its actions cost, who may act at all (a character in a stand off takes only free actions, a
surrendered one none), the conditions its state puts a character in, and what a combat's end
clears.

A turn is two half actions or one full action, plus free actions (the core's budget as it is).
"""

from __future__ import annotations

from collections.abc import Mapping

from vttbridge.rules.actions import ATTACK
from vttbridge.rules.encounter import Encounter
from vttbridge.rules.outcome import Outcome, RuleError
from vttbridge.rules.systems import Kind
from vttbridge.systems.spycraft.rules.state import spycraft

READY = "ready"
READIED = "readied action"
STAND_OFF = "stand off"
JOIN_STAND_OFF = "join stand off"

COSTS: Mapping[str, Kind] = {
    ATTACK: "half",
    READY: "full",
    READIED: "none",  # a half action, paid with the Ready
    STAND_OFF: "free",  # an initiative action, out of turn
    JOIN_STAND_OFF: "half",
    "delay": "none",  # only before acting; moves the IC, spends nothing
    "end ready": "none",
    "surrender": "none",  # a decision, not an action
    "permit": "none",
}
"""Action name -> cost kind."""

BLOCKING_CONDITIONS = {
    "standoff": "is in a stand off and may take only free actions",
    "surrendered": "has surrendered and may not act without permission",
}
BLOCKS_FREE = {"surrendered"}
"""Conditions that stop free actions too: a surrendered character "may perform no action"."""
STANDOFF_CLEARED = {"standoff", "vulnerable", "surrendered"}
"""Conditions a stand off puts on a character that end with the combat."""

STATS = (
    "kind",
    "initiative",
    "reflex",
    "bab",
    "resolve",
    "wisdom",
    "action_dice",
    "wounds",
    "stress",
    "defense_base",
    "dex_bonus",
    "dodge_bonus",
)
"""What ``!stats`` shows of a character."""


def blocked(enc: Encounter, actor: str, kind: Kind) -> None:
    """The gate: a character in a stand off may take only free actions, a surrendered one none
    (``blocked``). Decisions (``none``) stay open to both."""
    if kind == "none":
        return
    ch = enc.characters.get(actor)
    if ch is None:
        return
    for cond, why in BLOCKING_CONDITIONS.items():
        if cond in ch.conditions and (kind != "free" or cond in BLOCKS_FREE):
            raise RuleError("blocked", f"{ch.display} {why}.", condition=cond)


def conditions(enc: Encounter, actor: str) -> set[str]:
    """``dying`` (a special character below 0 wound points), ``readied`` (an active Ready)."""
    ch = enc.characters[actor]
    out = set()
    if ch.kind == "special" and ch.wounds < 0 and "dead" not in ch.conditions:
        out.add("dying")
    if actor in spycraft(enc).readies:
        out.add("readied")
    return out


def combat_ended(enc: Encounter, out: Outcome) -> None:
    """A combat's end ends its stand offs: their conditions go."""
    for ch in enc.characters.values():
        ch.conditions -= STANDOFF_CLEARED
