"""The game systems a world can play, registered explicitly.

A system is a :class:`System`: its name (``Options.system``), its title, and the hooks the
encounter core runs when a round or a turn of that system begins (the Stand Off Resolve checks,
the expiry of a carried-over Ready, the end of a FoE surprise round). Each system's rules live
under ``rules/<name>/`` and its package defines ``SYSTEM``.

Systems come from the ``vttbridge.systems`` entry point group, as adapters come from
``vttbridge.adapters``: a package that adds a game system declares, in its ``pyproject.toml``::

    [project.entry-points."vttbridge.systems"]
    pf2e = "my_pf2e.rules:SYSTEM"

and its chat commands as a script (the ``vttbridge.scripts`` group). The group is read the first
time a system is looked up; :func:`register` adds one directly (tests, embedders). Reading the
group is the only metadata this package reads; no rule function does I/O.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from vttbridge.rules.dice import Roller
from vttbridge.rules.outcome import Outcome

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "vttbridge.systems"

Hook = Callable[[Any, Roller, Outcome], None]
"""``hook(encounter, roller, outcome)``: runs when a round or turn begins; adds to ``outcome``
what it did."""

__all__ = ["ENTRY_POINT_GROUP", "Hook", "System", "get", "names", "register"]


@dataclass(frozen=True)
class System:
    """One game system."""

    name: str
    """What ``Options.system`` says (``"spycraft"``, ``"foe"``)."""
    title: str
    """For people: ``"Spycraft 2.0"``."""
    round_start: tuple[Hook, ...] = ()
    """Run in order when a round begins, before anyone acts."""
    turn_start: tuple[Hook, ...] = ()
    """Run in order when a turn begins (``encounter.active`` is set and the count has reached
    his IC)."""


_registry: dict[str, System] = {}
_scanned = False


def register(system: System) -> System:
    """Add (or replace) ``system``."""
    _registry[system.name] = system
    return system


def get(name: str) -> System:
    """The system called ``name``. Raises ``KeyError`` saying which are known."""
    system = _registry.get(name)
    if system is None and not _scanned:
        _scan()
        system = _registry.get(name)
    if system is None:
        known = ", ".join(names()) or "none (is vttbridge installed?)"
        raise KeyError(f"no game system {name!r}; known: {known}")
    return system


def names() -> list[str]:
    """The names of every known system."""
    if not _scanned:
        _scan()
    return sorted(_registry)


def _scan() -> None:
    global _scanned
    _scanned = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            system = ep.load()
        except Exception:  # a broken plug-in must not take the built-in systems down
            log.exception("cannot load game system %s = %s", ep.name, ep.value)
            continue
        if not isinstance(system, System):
            log.error("game system entry point %s is not a vttbridge.rules.systems.System", ep.name)
            continue
        _registry.setdefault(system.name, system)
