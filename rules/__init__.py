"""What the game says: pure, deterministic rule functions.

Nothing in this package performs I/O, awaits, or imports ``sdk`` or ``adapters``. Dice come in
through a :class:`vttbridge.rules.dice.Roller`, so every rule can be driven by scripted dice in
tests.
Rule functions return an :class:`vttbridge.rules.outcome.Outcome` (what happened, the rolls, and any
decision a player must make); illegal requests raise :class:`vttbridge.rules.outcome.RuleError`
before any state is touched.
"""

from vttbridge.rules.outcome import Choice, Happened, Outcome, RuleError

__all__ = ["Choice", "Happened", "Outcome", "RuleError"]
