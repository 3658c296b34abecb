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

from vttbridge.sdk.checks import check_loading
from vttbridge.sdk.context import Context
from vttbridge.sdk.effects import (
    PostChat,
)
from vttbridge.sdk.errors import ScriptError
from vttbridge.sdk.loader import ScriptSource, load_source, script_path
from vttbridge.sdk.script import (
    CommandHandler,
    Script,
)
from vttbridge.sdk.script_host import script_host

log = logging.getLogger(__name__)


@dataclass
class _Loaded:
    scripts: list[Script]
    source: ScriptSource


def builtin_scripts() -> list[Script]:
    """The scripts every world loads unless told not to: the chat commands
    (:mod:`vttbridge.sdk.chat`)
    held moves (:mod:`vttbridge.sdk.holds`) and each token's movement left for the VTT's ruler
    (:mod:`vttbridge.sdk.budget`), and the scripts' checks only a world can make
    (:mod:`vttbridge.sdk.world_checks`). Imported on first use: they import the SDK."""
    from vttbridge.sdk import budget, holds, world_checks
    from vttbridge.sdk.chat import core, foe, spycraft

    scripts = [core.script, spycraft.script, foe.script, holds.script, budget.script]
    scripts.append(world_checks.script)
    for script in scripts:
        script.trusted = True  # our own code: no watchdog on its callbacks (a token move runs one)
    return scripts


class ScriptRegistry:
    """A world's loaded scripts and their registrations."""

    def load_script(self, source: Any) -> list[str]:
        """Load a script (Script, module, module name or ``.py`` path) and register its
        callbacks; its ``on_load`` hooks run through the consumer. Returns the script names.
        A file is imported once per process, shared with every world using it
        (:mod:`vttbridge.sdk.script_host`). Raises :class:`ScriptError` when it cannot be
        imported."""
        path = script_path(source)
        if path is None:
            scripts, src = load_source(source)
            self._add_loaded(_Loaded(scripts, src))
        else:
            host = script_host()
            scripts = host.acquire(path, self).scripts
            try:
                self._add_loaded(_Loaded(scripts, ScriptSource("file", str(path), path)))
            except BaseException:
                host.release(path, self)
                raise
            if self.running and self.reload_interval:
                host.watch(path, self)
        if self.running:
            self._enqueue_call(lambda: self._run_hooks(scripts, "load_hooks"))
        return [s.name for s in scripts]

    def unload_script(self, name: str) -> None:
        """Drop a script's callbacks; its waiting callbacks are cancelled and its
        ``on_unload`` hooks run through the consumer. Watches it created stay in world state
        (a reload picks them up again)."""
        loaded = self._loaded_for(name)
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}
        if loaded.source.path is not None:
            script_host().release(loaded.source.path, self)
        if self.running:
            self._enqueue_call(lambda: self._run_hooks(loaded.scripts, "unload_hooks"))

    async def reload_script(self, name: str) -> bool:
        """Import a file script again and swap the new version into every world using it
        (each through its own consumer, keeping its state). On an import error the old
        version stays and each world's GM is told. Returns whether this world reloaded."""
        loaded = self._loaded_for(name)
        if loaded.source.kind != "file" or loaded.source.path is None:
            raise ScriptError(f"script {name!r} was not loaded from a file")
        fut = script_host().reload(loaded.source.path).get(self)
        return bool(await fut) if fut is not None else False

    def scripts(self) -> list[Script]:
        return list(self._scripts.values())

    def commands(self) -> dict[str, CommandHandler]:
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
        check_loading(loaded.scripts, self._commands, self._conditions, self._choices)
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

    def _run_hooks(self, scripts: list[Script], kind: str) -> Awaitable[None]:
        """Run the scripts' ``load_hooks`` or ``unload_hooks`` (in a job or a step)."""

        async def run() -> None:
            for s in scripts:
                for hook in getattr(s, kind):
                    await self._invoke(hook, (Context(self, s),))

        return run()

    def _host_files(self, on: bool) -> None:
        """Acquire (``on``: the world starts) or release (it stopped) the script files it uses,
        and have them watched while it runs."""
        host = script_host()
        for ld in list(self._loaded.values()):
            path = ld.source.path
            if path is None:
                continue
            if not on:
                host.release(path, self)
                continue
            hosted = host.acquire(path, self)
            if hosted.scripts != ld.scripts:  # unloaded while stopped, imported again
                self._swap_registrations(ld, hosted.scripts)
            if self.reload_interval:
                host.watch(path, self)

    def script_file_changed(
        self, path: Path, scripts: list[Script] | None, error: ScriptError | None
    ) -> asyncio.Future[Any] | None:
        """The script host imported ``path`` again (see
        :class:`vttbridge.sdk.script_host.ScriptUser`):
        swap the new version in through the consumer. Returns the swap's future."""
        return self._enqueue_call(lambda: self._swap(path, scripts, error))

    def _loaded_file(self, path: Path) -> _Loaded | None:
        return next((ld for ld in self._loaded.values() if ld.source.path == path), None)

    def _swap_registrations(self, loaded: _Loaded, scripts: list[Script]) -> _Loaded | None:
        """Replace ``loaded``'s scripts by ``scripts``; the new entry, or None (the old one
        put back) when a name clashes."""
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}
        new = _Loaded(scripts, loaded.source)
        try:
            self._add_loaded(new)
        except ScriptError:
            for s in loaded.scripts:
                self._register(s)
            self._loaded[loaded.source.ref + "#" + loaded.scripts[0].name] = loaded
            raise
        self._pending_hooks = [s for s in self._pending_hooks if s not in scripts]
        return new

    async def _swap(
        self, path: Path, scripts: list[Script] | None, error: ScriptError | None
    ) -> bool:
        loaded = self._loaded_file(path)
        if loaded is None or loaded.scripts == scripts:
            return loaded is not None
        if scripts is None:
            self.emit(
                PostChat(
                    text=f"⚠ Reloading {path.name} failed, keeping the old version: {error}",
                    whisper_to="gm",
                )
            )
            return False
        await self._run_hooks(loaded.scripts, "unload_hooks")
        try:
            self._swap_registrations(loaded, scripts)
        except ScriptError as e:  # a name clash: the old version stays
            self.emit(PostChat(text=f"⚠ Reloading {path.name} failed: {e}", whisper_to="gm"))
            return False
        await self._run_hooks(scripts, "load_hooks")
        log.info("world %s: reloaded %s", self.world_id, path)
        self.emit(PostChat(text=f"Reloaded {path.name}.", whisper_to="gm"))
        return True
