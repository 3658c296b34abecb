"""Built-in rule handlers, registered through the same :class:`sdk.Script` API a scripter uses:
one script per area (core, spycraft, foe). Every world loads all three; the system ones answer
only in a world of their system."""

from __future__ import annotations

from sdk.builtins.core import script as core
from sdk.builtins.foe import script as foe
from sdk.builtins.spycraft import script as spycraft

BUILTIN_SCRIPTS = [core, spycraft, foe]

__all__ = ["BUILTIN_SCRIPTS", "core", "foe", "spycraft"]
