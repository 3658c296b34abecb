"""Built-in rule handlers, registered through the same :class:`sdk.Script` API a scripter uses:
one script per area (core, spycraft, foe, holds). Every world loads all four; the system ones
answer only in a world of their system, and holds (moves a Ready watches on the attempt wait
for it, see :mod:`sdk.builtins.holds`) acts only once such a Ready is declared.

``core``, ``spycraft`` and ``foe`` here are the :class:`sdk.Script` objects; ``holds`` stays
the module (adapters import its effects and ``SCRIPT_NAME``), its script is ``holds.script``."""

from __future__ import annotations

from sdk.builtins import holds
from sdk.builtins.core import script as core
from sdk.builtins.foe import script as foe
from sdk.builtins.spycraft import script as spycraft

BUILTIN_SCRIPTS = [core, spycraft, foe, holds.script]
for _script in BUILTIN_SCRIPTS:
    _script.trusted = True  # our own code: no watchdog on its callbacks (a token move runs one)

__all__ = ["BUILTIN_SCRIPTS", "core", "foe", "holds", "spycraft"]
