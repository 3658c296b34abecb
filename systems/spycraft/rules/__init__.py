"""Spycraft 2.0's rules: pure, like :mod:`vttbridge.rules` (no I/O, no asyncio, dice through a
roller), one rule per module: :mod:`~vttbridge.systems.spycraft.rules.delay`,
:mod:`~vttbridge.systems.spycraft.rules.ready`, :mod:`~vttbridge.systems.spycraft.rules.standoff`;
their state (:mod:`~vttbridge.systems.spycraft.rules.state`), options
(:mod:`~vttbridge.systems.spycraft.rules.options`) and action costs
(:mod:`~vttbridge.systems.spycraft.rules.economy`)."""
