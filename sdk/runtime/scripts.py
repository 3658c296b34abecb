"""Loading, unloading and reloading a world's scripts: from a module, a name or a file (shared
by every world through the script host), their ``on_load`` and ``on_unload`` hooks, and what
their registrations put in the world (regions, position triggers). What the scripts declared is
kept by :class:`vttbridge.sdk.runtime.registry.Registry`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vttbridge.sdk.checks import check_loading
from vttbridge.sdk.context import Context, WorldAccess
from vttbridge.sdk.effects import (
    PostChat,
)
from vttbridge.sdk.errors import ScriptError
from vttbridge.sdk.loader import ScriptSource, load_source, script_path
from vttbridge.sdk.runtime.consumer import Consumer
from vttbridge.sdk.runtime.moves import Movement
from vttbridge.sdk.runtime.registry import Registry
from vttbridge.sdk.runtime.step import CurrentStep
from vttbridge.sdk.runtime.supervisor import Supervisor
from vttbridge.sdk.runtime.waiting import Waiting
from vttbridge.sdk.script import (
    Script,
)
from vttbridge.sdk.script_host import script_host

log = logging.getLogger(__name__)


@dataclass
class Loaded:
    """Scripts loaded together (a module's, a file's) and where they came from."""

    scripts: list[Script]
    source: ScriptSource


def builtin_scripts() -> list[Script]:
    """The scripts every world loads unless told not to: the shared chat commands
    (:mod:`vttbridge.sdk.chat`), every installed game system's scripts
    (:func:`vttbridge.sdk.systems.tables`: each answers in a world of its system only), held
    moves (:mod:`vttbridge.sdk.holds`) and each token's movement left for the VTT's ruler
    (:mod:`vttbridge.sdk.budget`), and the scripts' checks only a world can make
    (:mod:`vttbridge.sdk.world_checks`). Imported on first use: they import the SDK."""
    from vttbridge.sdk import budget, holds, world_checks
    from vttbridge.sdk.chat import core
    from vttbridge.sdk.systems import tables

    scripts = [core.script]
    for table in tables().values():
        scripts.extend(table.scripts)
    scripts += [holds.script, budget.script, world_checks.script]
    for script in scripts:
        # our own code, and installed systems': no watchdog on their callbacks (a token move
        # runs one)
        script.trusted = True
    return scripts


class ScriptLoader:
    """A world's loaded scripts: loads, unloads and reloads them."""

    def __init__(
        self,
        world_id: str,
        registry: Registry,
        consumer: Consumer,
        step: CurrentStep,
        supervisor: Supervisor,
        waiting: Waiting,
        movement: Movement,
        access: WorldAccess,
        reload_interval: float | None,
    ) -> None:
        self._world_id = world_id
        self._registry = registry
        self._consumer = consumer
        self._step = step
        self._supervisor = supervisor
        self._waiting = waiting
        self._movement = movement
        self._access = access
        self._reload_interval = reload_interval
        self._loaded: dict[str, Loaded] = {}
        self._pending: list[Script] = []

    def take_pending(self) -> list[Script]:
        """The scripts loaded since the last call whose ``on_load`` hooks have not run."""
        pending, self._pending = self._pending, []
        return pending

    def load(self, source: Any) -> list[str]:
        """Load a script (Script, module, module name or ``.py`` path) and register its
        callbacks; its ``on_load`` hooks run through the consumer. Returns the script names.
        A file is imported once per process, shared with every world using it
        (:mod:`vttbridge.sdk.script_host`). Raises :class:`ScriptError` when it cannot be
        imported."""
        path = script_path(source)
        if path is None:
            scripts, src = load_source(source)
            self.add(Loaded(scripts, src))
        else:
            host = script_host()
            scripts = host.acquire(path, self).scripts
            try:
                self.add(Loaded(scripts, ScriptSource("file", str(path), path)))
            except BaseException:
                host.release(path, self)
                raise
            if self._consumer.running and self._reload_interval:
                host.watch(path, self)
        if self._consumer.running:
            self._consumer.enqueue_call(lambda: self.run_hooks(scripts, "load_hooks"))
        return [s.name for s in scripts]

    def unload(self, name: str) -> None:
        """Drop a script's callbacks; its waiting callbacks are cancelled and its
        ``on_unload`` hooks run through the consumer. Watches it created stay in world state
        (a reload picks them up again)."""
        loaded = self._loaded_for(name)
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}
        if loaded.source.path is not None:
            script_host().release(loaded.source.path, self)
        if self._consumer.running:
            self._consumer.enqueue_call(lambda: self.run_hooks(loaded.scripts, "unload_hooks"))

    async def reload(self, name: str) -> bool:
        """Import a file script again and swap the new version into every world using it
        (each through its own consumer, keeping its state). On an import error the old
        version stays and each world's GM is told. Returns whether this world reloaded."""
        loaded = self._loaded_for(name)
        if loaded.source.kind != "file" or loaded.source.path is None:
            raise ScriptError(f"script {name!r} was not loaded from a file")
        fut = script_host().reload(loaded.source.path).get(self)
        return bool(await fut) if fut is not None else False

    def _loaded_for(self, name: str) -> Loaded:
        for ld in self._loaded.values():
            if any(s.name == name for s in ld.scripts) or ld.source.ref == name:
                return ld
        raise KeyError(f"no script {name!r} loaded")

    def add(self, loaded: Loaded) -> None:
        """Register ``loaded``'s scripts; their ``on_load`` hooks are pending. Raises
        :class:`ScriptError` (nothing registered) when a name is taken."""
        for s in loaded.scripts:
            if self._registry.has(s.name):
                raise ScriptError(f"a script named {s.name!r} is already loaded")
        reg = self._registry
        check_loading(loaded.scripts, reg.commands(), reg.conditions(), reg.choices())
        for s in loaded.scripts:
            self._register(s)
        self._loaded[loaded.source.ref + "#" + loaded.scripts[0].name] = loaded
        self._pending.extend(loaded.scripts)

    def _register(self, s: Script) -> None:
        self._registry.add(s)
        for reg in s.regions.values():
            self._movement.set_region(reg.model_copy())
        for pt in s.position_triggers:
            self._movement.index.add(pt.spec, owner=f"script:{s.name}", handler=pt)

    def _unregister(self, s: Script) -> None:
        self._registry.remove(s)
        self._movement.index.remove_owner(f"script:{s.name}")
        self._supervisor.cancel_script(s)
        self._waiting.drop_script(s)

    def run_hooks(self, scripts: list[Script], kind: str) -> Awaitable[None]:
        """Run the scripts' ``load_hooks`` or ``unload_hooks`` (in a job or a step)."""

        async def run() -> None:
            for s in scripts:
                for hook in getattr(s, kind):
                    await self._supervisor.invoke(hook, (Context(self._access, s),))

        return run()

    def host_files(self, on: bool) -> None:
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
            if self._reload_interval:
                host.watch(path, self)

    def script_file_changed(
        self, path: Path, scripts: list[Script] | None, error: ScriptError | None
    ) -> asyncio.Future[Any] | None:
        """The script host imported ``path`` again (the loader is the world's
        :class:`vttbridge.sdk.script_host.ScriptUser`): swap the new version in through the
        consumer. Returns the swap's future."""
        return self._consumer.enqueue_call(lambda: self._swap(path, scripts, error))

    def _loaded_file(self, path: Path) -> Loaded | None:
        return next((ld for ld in self._loaded.values() if ld.source.path == path), None)

    def _swap_registrations(self, loaded: Loaded, scripts: list[Script]) -> Loaded | None:
        """Replace ``loaded``'s scripts by ``scripts``; the new entry, or None (the old one
        put back) when a name clashes."""
        for s in loaded.scripts:
            self._unregister(s)
        self._loaded = {k: v for k, v in self._loaded.items() if v is not loaded}
        new = Loaded(scripts, loaded.source)
        try:
            self.add(new)
        except ScriptError:
            for s in loaded.scripts:
                self._register(s)
            self._loaded[loaded.source.ref + "#" + loaded.scripts[0].name] = loaded
            raise
        self._pending = [s for s in self._pending if s not in scripts]
        return new

    async def _swap(
        self, path: Path, scripts: list[Script] | None, error: ScriptError | None
    ) -> bool:
        loaded = self._loaded_file(path)
        if loaded is None or loaded.scripts == scripts:
            return loaded is not None
        if scripts is None:
            self._step.emit(
                PostChat(
                    text=f"⚠ Reloading {path.name} failed, keeping the old version: {error}",
                    whisper_to="gm",
                )
            )
            return False
        await self.run_hooks(loaded.scripts, "unload_hooks")
        try:
            self._swap_registrations(loaded, scripts)
        except ScriptError as e:  # a name clash: the old version stays
            self._step.emit(PostChat(text=f"⚠ Reloading {path.name} failed: {e}", whisper_to="gm"))
            return False
        await self.run_hooks(scripts, "load_hooks")
        log.info("world %s: reloaded %s", self._world_id, path)
        self._step.emit(PostChat(text=f"Reloaded {path.name}.", whisper_to="gm"))
        return True
