"""Script registration: loading, unloading and reloading scripts, and the tables the runtime
reads their callbacks from.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdk.context import Context
from sdk.effects import (
    PostChat,
)
from sdk.errors import ScriptError
from sdk.loader import Source, load_source
from sdk.script import (
    Command,
    Script,
)

log = logging.getLogger(__name__)


@dataclass
class _Loaded:
    scripts: list[Script]
    source: Source


def builtin_scripts() -> list[Script]:
    """The scripts every world loads unless told not to: the chat commands (:mod:`sdk.chat`)
    and held moves (:mod:`sdk.holds`). Imported on first use: they import the SDK."""
    from sdk import chat, holds

    scripts = [chat.core, chat.spycraft, chat.foe, holds.script]
    for script in scripts:
        script.trusted = True  # our own code: no watchdog on its callbacks (a token move runs one)
    return scripts


class ScriptRegistry:
    """A world's loaded scripts and their registrations."""

    # -- scripts ----------------------------------------------------------------------------
    def load_script(self, source: Any) -> list[str]:
        """Load a script (Script, module, module name or ``.py`` path) and register its
        callbacks; its ``on_load`` hooks run through the consumer. Returns the script names.
        Raises :class:`ScriptError` when it cannot be imported."""
        scripts, src = load_source(source)
        self._add_loaded(_Loaded(scripts, src))
        if self.running:
            self._enqueue_call(lambda: self._run_load_hooks(scripts))
        return [s.name for s in scripts]

    def unload_script(self, name: str) -> None:
        """Drop a script's callbacks; its waiting callbacks are cancelled. Watches it created
        stay in world state (a reload picks them up again)."""
        loaded = self._loaded_for(name)
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}

    async def reload_script(self, name: str) -> bool:
        """Re-import a file script through the consumer, keeping world state. On an import
        error the old version stays and the GM is told. Returns whether it reloaded."""
        return await self._call_soon(lambda: self._reload(name))

    def scripts(self) -> list[Script]:
        return list(self._scripts.values())

    def commands(self) -> dict[str, Command]:
        """Every chat command loaded, by name (aliases included)."""
        return dict(self._commands)

    def condition_names(self) -> list[str]:
        """The named conditions the loaded scripts registered (usable as Ready triggers)."""
        return list(self._conditions)

    # =============================================================================================
    def _loaded_for(self, name: str) -> _Loaded:
        for ld in self._loaded.values():
            if any(s.name == name for s in ld.scripts) or ld.source.ref == name:
                return ld
        raise KeyError(f"no script {name!r} loaded")

    def _add_loaded(self, loaded: _Loaded) -> None:
        for s in loaded.scripts:
            if s.name in self._scripts:
                raise ScriptError(f"a script named {s.name!r} is already loaded")
        for s in loaded.scripts:
            self._register(s)
        self._loaded[loaded.source.ref + "#" + loaded.scripts[0].name] = loaded
        self._pending_hooks.extend(loaded.scripts)

    def _register(self, s: Script) -> None:
        self._scripts[s.name] = s
        self._listeners.extend(s.listeners)
        self._routes.clear()
        for name, cmd in s.commands.items():
            if name in self._commands:
                log.info("script %s overrides command !%s", s.name, name)
            self._commands[name] = cmd
        self._conditions.update(s.conditions)
        self._choices.update(s.choices)
        for name, wh in s.watch_handlers.items():
            self._watch_handlers[(s.name, name)] = wh
        self._move_judges.extend(s.move_judges)
        for reg in s.regions.values():
            self.set_region(reg.model_copy())
        for pt in s.position_triggers:
            self.index.add(pt.spec, owner=f"script:{s.name}", handler=pt)

    def _unregister(self, s: Script) -> None:
        self._scripts.pop(s.name, None)
        self._listeners = [lst for lst in self._listeners if lst.script is not s]
        self._move_judges = [j for j in self._move_judges if j.script is not s]
        self._routes.clear()
        for table in (self._commands, self._conditions, self._choices):
            for key in [k for k, v in table.items() if v.script is s]:
                del table[key]
        for key in [k for k in self._watch_handlers if k[0] == s.name]:
            del self._watch_handlers[key]
        self.index.remove_owner(f"script:{s.name}")
        for task, reg in list(self._task_reg.items()):
            if reg.script is s:
                task.cancel()
                self._running.pop(task, None)
                self._parked.pop(task, None)
        for w in [w for w in self._waiters.values() if w.script is s]:
            self._waiters.pop(w.id, None)

    def _run_load_hooks(self, scripts: list[Script]) -> Awaitable[None]:
        async def run() -> None:
            for s in scripts:
                for hook in s.load_hooks:
                    await self._invoke(hook, (Context(self, s),))

        return run()

    async def _reload(self, name: str) -> bool:
        loaded = self._loaded_for(name)
        if loaded.source.kind != "file" or loaded.source.path is None:
            raise ScriptError(f"script {name!r} was not loaded from a file")
        path = loaded.source.path
        try:
            scripts, src = load_source(path)
        except ScriptError as e:
            self.emit(
                PostChat(
                    text=f"⚠ Reloading {path.name} failed, keeping the old version: {e}",
                    whisper_to="gm",
                )
            )
            log.error("world %s: reload of %s failed: %s", self.world_id, path, e)
            loaded.source.mtime = _mtime(path)
            return False
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}
        try:
            self._add_loaded(_Loaded(scripts, src))
        except ScriptError as e:  # a name clash: put the old version back
            for s in loaded.scripts:
                self._register(s)
            self._loaded[loaded.source.ref + "#" + loaded.scripts[0].name] = loaded
            self.emit(PostChat(text=f"⚠ Reloading {path.name} failed: {e}", whisper_to="gm"))
            return False
        self._pending_hooks = [s for s in self._pending_hooks if s not in scripts]
        await self._run_load_hooks(scripts)
        log.info("world %s: reloaded %s", self.world_id, path)
        self.emit(PostChat(text=f"Reloaded {path.name}.", whisper_to="gm"))
        return True

    async def _watch_files(self) -> None:
        interval = self.reload_interval or 1.0
        while True:
            await asyncio.sleep(interval)
            for ld in list(self._loaded.values()):
                src = ld.source
                if src.path is None:
                    continue
                mtime = _mtime(src.path)
                if mtime is not None and mtime != src.mtime:
                    src.mtime = mtime
                    name = ld.scripts[0].name
                    self._enqueue_call(lambda n=name: self._reload(n))


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None
