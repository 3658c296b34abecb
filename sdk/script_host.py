"""One script host per process: each script file is imported once and watched once, and every
world that uses it gets the same :class:`sdk.Script` objects.

A world acquires a file when it loads it (:meth:`ScriptHost.acquire`) and releases it when it
unloads it or stops (:meth:`ScriptHost.release`); the last release removes the module from
``sys.modules``. A changed file is imported again once (:meth:`ScriptHost.reload`) and handed to
every world using it, each of which swaps it in through its own consumer, keeping its state
(``ctx.store``, watches, prompts). If the new version does not import, every world keeps the
old one and its GM is told. File changes are watched with :mod:`watchfiles` (the OS's file
events; one watcher for the whole process) while a running world asks for it.

Module globals are shared by the worlds that use a script: per-world state belongs in
``ctx.store``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import watchfiles
from vttbridge.sdk.errors import ScriptError
from vttbridge.sdk.loader import import_file, scripts_of
from vttbridge.sdk.script import Script

log = logging.getLogger(__name__)

__all__ = ["HostedFile", "ScriptHost", "ScriptUser", "script_host"]


class ScriptUser(Protocol):
    """A world that uses hosted script files (its script loader,
    :class:`vttbridge.sdk.runtime.scripts.ScriptLoader`)."""

    def script_file_changed(
        self, path: Path, scripts: list[Script] | None, error: ScriptError | None
    ) -> asyncio.Future[Any] | None:
        """The file at ``path`` was imported again: its new ``scripts``, or the ``error`` that
        kept the old version. Returns a future of the swap's result (whether it reloaded)."""


@dataclass(eq=False)
class HostedFile:
    """One imported script file and the worlds using it."""

    path: Path
    module: ModuleType
    scripts: list[Script]
    users: dict[ScriptUser, bool] = field(default_factory=dict)
    """Each user, and whether it wants the file watched."""


class ScriptHost:
    """Imports, shares, watches and unloads script files (see the module docstring)."""

    def __init__(self) -> None:
        self._files: dict[Path, HostedFile] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._watched: frozenset[Path] = frozenset()
        self._stop: asyncio.Event | None = None

    # -- using a file ----------------------------------------------------------------------------
    def acquire(self, path: str | Path, user: ScriptUser) -> HostedFile:
        """The file at ``path``, imported on its first use. Raises :class:`ScriptError`."""
        path = Path(path).resolve()
        hosted = self._files.get(path)
        if hosted is None:
            hosted = self._files[path] = HostedFile(path, *_import(path))
        hosted.users.setdefault(user, False)
        return hosted

    def release(self, path: str | Path, user: ScriptUser) -> None:
        """``user`` no longer uses the file; the last user's release unloads it."""
        path = Path(path).resolve()
        hosted = self._files.get(path)
        if hosted is None or hosted.users.pop(user, None) is None:
            return
        if not hosted.users:
            del self._files[path]
            sys.modules.pop(hosted.module.__name__, None)
            log.debug("unloaded script file %s", path)
        self._rewatch()

    def watch(self, path: str | Path, user: ScriptUser, on: bool = True) -> None:
        """Reload the file when it changes, for ``user`` (call from a running event loop)."""
        hosted = self._files.get(Path(path).resolve())
        if hosted is not None and user in hosted.users:
            hosted.users[user] = on
            self._rewatch()

    def modules(self) -> dict[Path, ModuleType]:
        """The files imported now and their modules."""
        return {p: h.module for p, h in self._files.items()}

    # -- reloading -------------------------------------------------------------------------------
    def reload(self, path: str | Path) -> dict[ScriptUser, asyncio.Future[Any] | None]:
        """Import the file again and hand the new version to every world using it (or the
        error to each, which keeps the old one). Returns each user's swap future."""
        path = Path(path).resolve()
        hosted = self._files.get(path)
        if hosted is None:
            raise ScriptError(f"script file {path} is not loaded")
        error: ScriptError | None = None
        try:
            module, scripts = _import(path)
        except ScriptError as e:
            error = e
            log.error("reload of %s failed: %s", path, e)
        else:
            sys.modules.pop(hosted.module.__name__, None)
            hosted.module, hosted.scripts = module, scripts
            log.info("reloaded %s", path)
        users = list(hosted.users)
        return {
            u: u.script_file_changed(path, None if error else hosted.scripts, error) for u in users
        }

    # -- watching --------------------------------------------------------------------------------
    def _rewatch(self) -> None:
        """Watch the files some user wants watched: restart the watcher when that set changed."""
        wanted = frozenset(p for p, h in self._files.items() if any(h.users.values()))
        alive = self._watcher is not None and not self._watcher.done()
        if wanted == self._watched and alive:
            return
        self._stop_watcher()
        self._watched = wanted
        if not wanted:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: the next watch() from a running world starts it
            self._watched = frozenset()
            return
        self._stop = asyncio.Event()
        self._watcher = loop.create_task(self._watch(wanted, self._stop), name="script-watcher")

    def _stop_watcher(self) -> None:
        task, self._watcher = self._watcher, None
        if self._stop is not None:
            with contextlib.suppress(RuntimeError):  # its loop is closed: nothing runs it
                self._stop.set()
        if task is not None and not task.done() and not task.get_loop().is_closed():
            task.cancel()

    async def _watch(self, paths: frozenset[Path], stop: asyncio.Event) -> None:
        wanted = {str(p) for p in paths}
        only: Callable[[watchfiles.Change, str], bool] = lambda _change, p: p in wanted  # noqa: E731
        dirs = sorted({str(p.parent) for p in paths})
        try:
            async for changes in watchfiles.awatch(
                *dirs, watch_filter=only, recursive=False, stop_event=stop, step=20
            ):
                for changed in sorted({Path(p) for _, p in changes}):
                    if changed in self._files and changed.is_file():
                        self.reload(changed)
        except asyncio.CancelledError:
            raise
        except Exception:  # the watcher must never take a world down
            log.exception("script file watcher failed; files are no longer watched")


def _import(path: Path) -> tuple[ModuleType, list[Script]]:
    """Import the file as a new module and find its scripts; a file that defines none is
    removed from ``sys.modules`` again. Raises :class:`ScriptError`."""
    module = import_file(path)
    try:
        return module, scripts_of(module, path.stem)
    except BaseException:
        sys.modules.pop(module.__name__, None)
        raise


_HOST = ScriptHost()


def script_host() -> ScriptHost:
    """The process's script host."""
    return _HOST
