"""The built-in chat commands, written with the same :class:`sdk.Script` API a scripter uses:
one script per area. ``core`` (``!help``, ``!set``, ``!answer``, initiative and turns, for any
system), ``spycraft`` (``!ready``, ``!standoff``, ``!delay``...) and ``foe`` (``!surprise``,
``!move``, ``!charge``, ``!jump``, ``!sneak``...; and the FoE movement rules' ``before_move``
judge). The system scripts answer only in a world of their system. :mod:`sdk.chat.parsing`
holds the argument helpers they share.

Every world loads them, with the held-moves script :mod:`sdk.holds`
(:data:`sdk.runtime.scripts.BUILTIN_SCRIPTS`)."""

from __future__ import annotations

from sdk.chat.core import script as core
from sdk.chat.foe import script as foe
from sdk.chat.spycraft import script as spycraft

__all__ = ["core", "foe", "spycraft"]
