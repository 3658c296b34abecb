"""A game system's side of the table: its chat commands and its dashboard panels.

The rules of a system are a :class:`vttbridge.rules.systems.System`, registered through the
``vttbridge.systems`` entry point group; its ``table`` names (``"module:attribute"``) a
:class:`Table` of this module, which the SDK imports when a world loads, so the rules never
import the SDK. A system's package holds both::

    # my_pf2e/__init__.py (the rules only)
    SYSTEM = System("pf2e", "Pathfinder 2e", ..., table="my_pf2e.table:TABLE")

    # my_pf2e/table.py
    TABLE = Table(scripts=(chat.script,), panels=panels.build)

Every world loads every installed system's scripts (trusted, as the built-ins are: installed
code, run without the watchdog); a script that names its system (``Script(system="pf2e")``)
answers only in a world of that system (:mod:`vttbridge.sdk.runtime`). A table that cannot be
imported, or is not a :class:`Table`, is logged with the system's name once, and the world goes
on without it.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vttbridge.rules import systems
from vttbridge.sdk.panels import Panel, RoundNotes
from vttbridge.sdk.script import Script

if TYPE_CHECKING:
    from vttbridge.sdk.world import World

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Table:
    """What a game system brings to the table besides its rules."""

    scripts: tuple[Script, ...] = ()
    """Its chat commands, listeners and judges (give each ``system=`` its name)."""
    panels: Callable[[World], list[Panel]] | None = None
    """Its dashboard panels, built from the world as it is (read-only)."""
    round_notes: Callable[[World], RoundNotes] | None = None
    """What it adds to the dashboard's initiative panel (a surprise round, who sits out)."""


_tables: dict[str, Table | None] = {}


def table_of(system: str) -> Table | None:
    """The :class:`Table` of the installed system called ``system``; None when it has none or
    it cannot be loaded (logged once). Raises ``KeyError`` for a system nobody installed."""
    if system in _tables:
        return _tables[system]
    ref = systems.get(system).table
    found: Table | None = None
    if ref is not None:
        try:
            loaded = _load(ref)
        except Exception:  # a broken plug-in must not keep the world down
            log.exception("game system %s: cannot load its table %s", system, ref)
        else:
            if isinstance(loaded, Table):
                found = loaded
            else:
                log.error(
                    "game system %s: %s is not a vttbridge.sdk.systems.Table (it is %s)",
                    system,
                    ref,
                    type(loaded).__name__,
                )
    _tables[system] = found
    return found


def tables() -> dict[str, Table]:
    """The table of every installed system that has one, by system name."""
    out: dict[str, Table] = {}
    for name in systems.names():
        found = table_of(name)
        if found is not None:
            out[name] = found
    return out


def _load(ref: str) -> object:
    module, _, attr = ref.partition(":")
    obj: object = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


__all__ = ["Table", "table_of", "tables"]
