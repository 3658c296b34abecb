"""Fallout: Equestria's rules: pure, like :mod:`vttbridge.rules` (no I/O, no asyncio, dice
through a roller), one rule per module: surprise round, movement and running, charge, jumping,
sneaking; their state (:mod:`~vttbridge.systems.foe.rules.state`), options
(:mod:`~vttbridge.systems.foe.rules.options`) and action costs
(:mod:`~vttbridge.systems.foe.rules.economy`)."""
