"""What a world's loaded scripts declared: their listeners, commands, conditions, choices,
watch handlers and move judges, in the tables the runtime reads them from.

The tables are rebuilt from the scripts as they are added and removed; the runtime reads, it
never writes them. Regions and position triggers, which live in the world and its trigger
index, are placed by the loader (:mod:`vttbridge.sdk.runtime.scripts`).
"""

from __future__ import annotations

import logging
from typing import TypeVar

from vttbridge.sdk.script import (
    ChoiceHandler,
    CommandHandler,
    Condition,
    Listener,
    MoveJudge,
    Registered,
    Script,
    WatchHandler,
)

log = logging.getLogger(__name__)

K = TypeVar("K")
R = TypeVar("R", bound=Registered)


class Registry:
    """The registrations of the scripts loaded in one world, in load order."""

    def __init__(self) -> None:
        self._scripts: dict[str, Script] = {}
        self._listeners: list[Listener] = []
        self._by_class: dict[tuple[type, str], list[Listener]] = {}
        self._commands: dict[str, CommandHandler] = {}
        self._conditions: dict[str, Condition] = {}
        self._choices: dict[str, ChoiceHandler] = {}
        self._watch_handlers: dict[tuple[str, str], WatchHandler] = {}
        self._move_judges: list[MoveJudge] = []
        self._judges_by_system: dict[str, list[MoveJudge]] = {}

    # -- changing ----------------------------------------------------------------------------
    def add(self, s: Script) -> None:
        """Register ``s``'s callbacks after those registered before (its commands, conditions
        and choices replace those of the same name)."""
        self._scripts[s.name] = s
        self._listeners.extend(s.listeners)
        self._by_class.clear()
        for name, cmd in s.commands.items():
            if name in self._commands:
                log.info("script %s overrides command !%s", s.name, name)
            self._commands[name] = cmd
        self._conditions.update(s.conditions)
        self._choices.update(s.choices)
        for name, wh in s.watch_handlers.items():
            self._watch_handlers[(s.name, name)] = wh
        self._move_judges.extend(s.move_judges)
        self._judges_by_system.clear()

    def remove(self, s: Script) -> None:
        """Drop every registration of ``s``."""
        self._scripts.pop(s.name, None)
        self._listeners = [lst for lst in self._listeners if lst.script is not s]
        self._move_judges = [j for j in self._move_judges if j.script is not s]
        self._judges_by_system.clear()
        self._by_class.clear()
        self._commands = _without(self._commands, s)
        self._conditions = _without(self._conditions, s)
        self._choices = _without(self._choices, s)
        self._watch_handlers = _without(self._watch_handlers, s)

    # -- reading -----------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self._scripts

    def scripts(self) -> list[Script]:
        return list(self._scripts.values())

    def names(self) -> list[str]:
        return list(self._scripts)

    def listeners(self, cls: type, system: str) -> list[Listener]:
        """The listeners an event of class ``cls`` goes to in a world of game system
        ``system`` (another system's scripts are left out), in order; cached until the scripts
        change (the ``isinstance`` tests, ~70 ns each against a pydantic class, answered
        once)."""
        found = self._by_class.get((cls, system))
        if found is None:
            found = self._by_class[(cls, system)] = [
                lst
                for lst in self._listeners
                if issubclass(cls, lst.types) and lst.script.system in (None, system)
            ]
        return found

    def command(self, name: str) -> CommandHandler | None:
        return self._commands.get(name)

    def commands(self) -> dict[str, CommandHandler]:
        """Every chat command, by name (aliases included): a copy."""
        return dict(self._commands)

    def condition(self, name: str) -> Condition | None:
        return self._conditions.get(name)

    def condition_names(self) -> list[str]:
        return list(self._conditions)

    def conditions(self) -> dict[str, Condition]:
        """Every script condition, by name: a copy."""
        return dict(self._conditions)

    def choices(self) -> dict[str, ChoiceHandler]:
        """Every choice handler, by kind: a copy."""
        return dict(self._choices)

    def choice(self, kind: str) -> ChoiceHandler | None:
        return self._choices.get(kind)

    def watch_handler(self, script: str, name: str) -> WatchHandler | None:
        return self._watch_handlers.get((script, name))

    def move_judges(self, system: str) -> list[MoveJudge]:
        """The ``before_move`` judges of a world of game system ``system``, in order."""
        found = self._judges_by_system.get(system)
        if found is None:
            found = self._judges_by_system[system] = [
                j for j in self._move_judges if j.script.system in (None, system)
            ]
        return found


def _without(table: dict[K, R], s: Script) -> dict[K, R]:
    """``table`` less the callbacks of ``s``."""
    return {k: v for k, v in table.items() if v.script is not s}
