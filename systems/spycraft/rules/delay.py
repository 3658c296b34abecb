"""Spycraft 2.0 Delay: a character lowers his Initiative Count before he acts, and acts again
when the count reaches it."""

from __future__ import annotations

from vttbridge.rules.dice import Roller
from vttbridge.rules.encounter import Encounter, next_turn, require_turn, set_ic
from vttbridge.rules.outcome import Outcome, RuleError


def delay(enc: Encounter, actor: str, steps: int, roller: Roller) -> Outcome:
    """Delay (Spycraft): lower IC by ``steps``, at most Initiative bonus + 10 steps a round and
    never below 5. The turn passes to whoever is next (possibly himself again); he acts when the
    count reaches his new IC, which carries into the next round. Only before he has acted."""
    cb = require_turn(enc, actor)
    ch = enc.character(actor)
    if steps < 1:
        raise RuleError("bad_argument", "Delay by at least 1.")
    if cb.half_actions < enc.turn_budget:
        raise RuleError("already_acted", f"{ch.display} has already acted this turn.")
    cap = max(0, ch.initiative + 10)
    if cb.delay_steps + steps > cap:
        raise RuleError(
            "delay_cap",
            f"{ch.display} may delay at most {cap} steps a round ({cap - cb.delay_steps} left).",
            left=cap - cb.delay_steps,
        )
    if cb.ic - steps < 5:
        raise RuleError("delay_floor", f"Delay may not lower IC below 5 (now {cb.ic}).")
    out = Outcome()
    cb.delay_steps += steps
    set_ic(enc, actor, cb.ic - steps, "delay", out)
    enc.active = None  # not acted: his turn comes again when the count reaches the new IC
    out.add("delayed", actor, f"{ch.display} delays to IC {cb.ic}.", ic=cb.ic, steps=steps)
    return out.extend(next_turn(enc, roller))
