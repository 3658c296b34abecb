"""Spycraft 2.0 as a vttbridge game system: Delay, Ready and Stand Off.

One package, registered through the ``vttbridge.systems`` entry point group as
``vttbridge.systems.spycraft:SYSTEM``, as a third party's system would be:

- :mod:`vttbridge.systems.spycraft.rules`: the rules, pure (no I/O, dice through a roller);
  their state, ⚙ options and action costs;
- :mod:`vttbridge.systems.spycraft.chat`: the chat commands (``!ready``, ``!standoff``,
  ``!delay``...), written with the SDK's :class:`vttbridge.sdk.Script`;
- :mod:`vttbridge.systems.spycraft.panels`: the dashboard's Readies and Stand offs;
- :mod:`vttbridge.systems.spycraft.table`: those two, as the SDK loads them.

This module imports the rules only: the rules core reads :data:`SYSTEM` without the SDK.
"""

from vttbridge.rules.conditions import Duration
from vttbridge.rules.systems import System
from vttbridge.systems.spycraft.rules import delay, economy, ready, standoff
from vttbridge.systems.spycraft.rules.citations import CITATIONS
from vttbridge.systems.spycraft.rules.options import SpycraftOptions
from vttbridge.systems.spycraft.rules.state import NAME, SpycraftState

SYSTEM = System(
    NAME,
    "Spycraft 2.0",
    state=SpycraftState,
    options=SpycraftOptions,
    costs=economy.COSTS,
    round_start=(ready.carry_over, standoff.round_start),
    turn_start=(ready.expire_at_ic,),
    combat_end=(economy.combat_ended,),
    gates=(economy.blocked,),
    conditions=economy.conditions,
    stats=economy.STATS,
    # a Ready carried over expires when the count reaches his IC next round (rule 4)
    durations={"readied": Duration(rounds=1, ends="turn_start")},
    citations=CITATIONS,
    table="vttbridge.systems.spycraft.table:TABLE",
)
"""Spycraft 2.0: a new round carries Readies over, then makes the stand offs' Resolve checks;
a turn's start expires a carried-over Ready whose owner's IC is reached; a stand off limits its
participants to free actions, a surrender to none."""

__all__ = ["SYSTEM", "delay", "ready", "standoff"]
