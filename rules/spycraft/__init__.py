"""Spycraft 2.0 rules: Delay, Ready, Stand Off; one rule per module. :data:`SYSTEM` is the
system the ``vttbridge.systems`` entry point group registers (:mod:`vttbridge.rules.systems`)."""

from vttbridge.rules.spycraft import delay, ready, standoff
from vttbridge.rules.systems import System

SYSTEM = System(
    "spycraft",
    "Spycraft 2.0",
    round_start=(ready.carry_over, standoff.round_start),
    turn_start=(ready.expire_at_ic,),
)
"""Spycraft 2.0: a new round carries Readies over, then makes the stand offs' Resolve checks;
a turn's start expires a carried-over Ready whose owner's IC is reached."""

__all__ = ["SYSTEM", "delay", "ready", "standoff"]
