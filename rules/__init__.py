"""What the game says: pure, deterministic rule functions.

Nothing in this package performs I/O, awaits, or imports ``sdk`` or ``adapters``. Dice come in
through a :class:`rules.dice.Roller`, so every rule can be driven by scripted dice in tests.
Rule functions return an :class:`rules.outcome.Outcome` (what happened, the rolls, and any
decision a player must make); illegal requests raise :class:`rules.outcome.RuleError` before
any state is touched.
"""

from rules.outcome import Choice, Happened, Outcome, RuleError

__all__ = ["Choice", "Happened", "Outcome", "RuleError"]
