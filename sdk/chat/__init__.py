"""The built-in chat commands every world answers, written with the same :class:`sdk.Script` API a
scripter uses: :mod:`vttbridge.sdk.chat.core` (``!help``, ``!set``, ``!answer``, ``!stats``,
initiative, turns, ``!attack``, ``!do``: for any game system); each game system adds its own
(``vttbridge.systems.spycraft.chat``: ``!ready``, ``!standoff``...; ``vttbridge.systems.foe.chat``:
``!surprise``, ``!move``, ``!charge``...), answered only in a world of that system.
:mod:`vttbridge.sdk.chat.parsing` holds the argument helpers they share.

Every world loads them, with the held-moves script :mod:`vttbridge.sdk.holds`
(:func:`vttbridge.sdk.runtime.scripts.builtin_scripts`)."""
