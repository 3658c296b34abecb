"""The worlds a bridge holds in memory: each loaded from the database (its snapshot, then its
log), woken on first use, snapshotted when quiet, put to sleep when idle (``--sleep-after``).

:class:`Hosting` owns the database handles the hosted worlds share: the one
:class:`~adapters.bridge.store.LogWriter` and the one :class:`~adapters.bridge.store.Reader`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from typing import Any

from adapters.base import Adapter
from adapters.bridge.config import BridgeConfig
from adapters.bridge.process import duration, trim_memory
from adapters.bridge.store import LogWriter, Reader, WorldRecord
from adapters.bridge.worldhost import WorldHost
from rules.options import Options
from sdk.loader import entry_point_sources

log = logging.getLogger("vttbridge")


class WorldUnavailable(Exception):
    """A world that exists but cannot be loaded (an unreadable snapshot, a broken script)."""


class Hosting:
    """The hosted worlds of one bridge, by name."""

    def __init__(self, config: BridgeConfig, adapters: Iterable[Adapter]) -> None:
        self.config = config
        self.adapters = adapters
        self.worlds: dict[str, WorldHost] = {}
        """The worlds in memory (not those asleep)."""
        self.writer: LogWriter | None = None
        self.reader: Reader | None = None
        self._loading: dict[str, asyncio.Task] = {}
        self._sleeping: dict[str, asyncio.Task] = {}
        self._sweeper: asyncio.Task | None = None
        # entry point scripts, found once per start (not per world loaded or woken)
        self._plugins: list[tuple[str, Any]] = []

    async def open(self) -> None:
        """Open the database and rebuild every world in it."""
        cfg = self.config
        self.writer = LogWriter(cfg.database, durability=cfg.durability)
        self.reader = Reader(cfg.database)
        if cfg.entry_point_scripts:
            self._plugins = entry_point_sources()
        records = await self.reader.run(lambda s: s.worlds())
        for rec in records:
            try:
                await self._load(rec)
            except Exception as e:  # one unreadable world must not keep the others down
                log.error("World %r could not be loaded and is unavailable: %s", rec.name, e)
        trim_memory()  # loading leaves parsed snapshots behind as freed but unreturned heap
        if cfg.world.sleep_after > 0 or cfg.world.snapshot_quiet > 0:
            self._sweeper = asyncio.create_task(self._sweep(), name="bridge:sweeper")

    async def _load(self, rec: WorldRecord) -> WorldHost:
        assert self.writer is not None and self.reader is not None
        kw: dict[str, Any] = {
            "scripts": list(self.config.scripts),
            "reload_interval": 1.0 if self.config.reload_scripts else None,
            "entry_points": self._plugins,
        }
        if rec.options:
            kw["options"] = Options.model_validate(rec.options)
        host = await WorldHost.load(
            rec.name,
            self.writer,
            self.reader,
            adapters={a.name: a for a in self.adapters},
            config=self.config.world,
            runtime_kw=kw,
            acked_seq=rec.acked_seq,
            adapter_name=rec.adapter,
        )
        self.worlds[rec.name] = host
        return host

    async def get(self, name: str) -> WorldHost | None:
        """A hosted world, woken if it sleeps; one created (``vttbridge world create``) while
        we run is loaded on its first use; None if there is no such world. Restarts the
        world's idle clock. Raises :class:`WorldUnavailable`."""
        host = self.worlds.get(name)
        if host is not None:
            host.keep_awake()
            return host
        assert self.reader is not None
        sleeping = self._sleeping.get(name)
        if sleeping is not None:  # being saved: wake it from that snapshot, not before
            with contextlib.suppress(Exception):
                await asyncio.shield(sleeping)
        task = self._loading.get(name)
        if task is None:
            rec = await self.reader.run(lambda s: s.world(name))
            if rec is None:
                return None
            if name in self.worlds:
                return self.worlds[name]
            task = self._loading.setdefault(name, asyncio.ensure_future(self._load(rec)))
        try:
            return await asyncio.shield(task)
        except Exception as e:
            log.error("World %r could not be loaded: %s", name, e)
            raise WorldUnavailable(f"World {name!r} could not be loaded: {e}") from e
        finally:
            self._loading.pop(name, None)

    async def _sweep(self) -> None:
        """Snapshot worlds that went quiet; put worlds to sleep once they have been idle for
        ``sleep_after`` seconds."""
        after, quiet = self.config.world.sleep_after, self.config.world.snapshot_quiet
        interval = min(30.0, max(0.2, min(t for t in (after / 4, quiet / 2, 30.0) if t > 0)))
        while True:
            await asyncio.sleep(interval)
            if quiet > 0:
                for host in list(self.worlds.values()):
                    host.snapshot_if_quiet(quiet)
            if after <= 0:
                continue
            asleep = [h for h in list(self.worlds.values()) if h.can_sleep(after)]
            for host in asleep:
                self._put_to_sleep(host)
            if asleep:
                saving = [t for h in asleep if (t := self._sleeping.get(h.name)) is not None]
                if saving:  # wait, never cancel: a stop cancels this sweep, not their saves
                    await asyncio.wait(saving)
                trim_memory()

    def _put_to_sleep(self, host: WorldHost) -> None:
        name = host.name
        if self.worlds.get(name) is not host:
            return
        del self.worlds[name]  # from now on a connect wakes it (after the save below)

        async def sleep() -> None:
            try:
                await host.stop(snapshot=True)
                assert self.writer is not None
                await self.writer.barrier()
                log.info(
                    "World %r saved and asleep (no client for %s); it wakes when a client "
                    "connects.",
                    name,
                    duration(self.config.world.sleep_after),
                )
            except Exception:
                log.exception("World %r could not be put to sleep cleanly", name)
            finally:
                self._sleeping.pop(name, None)

        self._sleeping[name] = asyncio.ensure_future(sleep())

    async def drain(self) -> None:
        """Stop sweeping; wait for the worlds being put to sleep, then for the events every
        world has accepted, and their commit."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for task in list(self._sleeping.values()):
            with contextlib.suppress(Exception):
                await task
        for host in list(self.worlds.values()):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(host.drain(), 10)
        if self.writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.writer.barrier(), 10)

    async def close(self, *, snapshot: bool = True) -> None:
        """Stop every world (with a final snapshot unless ``snapshot=False``) and close the
        database."""
        for host in list(self.worlds.values()):
            try:
                await host.stop(snapshot=snapshot)
            except Exception:
                log.exception("World %r did not stop cleanly", host.name)
        if self.writer is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.writer.close)
        if self.reader is not None:
            self.reader.close()
