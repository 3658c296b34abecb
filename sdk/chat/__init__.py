"""The built-in chat commands, written with the same :class:`sdk.Script` API a scripter uses:
one module per area, each with its ``script``: :mod:`vttbridge.sdk.chat.core` (``!help``, ``!set``,
``!answer``, ``!stats``, initiative, turns, ``!delay``, ``!attack``, ``!do``: for any system),
:mod:`vttbridge.sdk.chat.spycraft` (``!ready``, ``!standoff``...) and :mod:`vttbridge.sdk.chat.foe`
(``!surprise``,
``!move``, ``!charge``, ``!jump``, ``!sneak``...; and the FoE movement rules' ``before_move``
judge). The system scripts answer only in a world of their system. :mod:`vttbridge.sdk.chat.parsing`
holds the argument helpers they share.

Every world loads them, with the held-moves script :mod:`vttbridge.sdk.holds`
(:func:`vttbridge.sdk.runtime.scripts.builtin_scripts`)."""
