"""The worlds a bridge holds in memory: each loaded from the database (its snapshot, then its
log), woken on first use, snapshotted when quiet, put to sleep when idle (``--sleep-after``).

:class:`Hosting` owns the database the hosted worlds share
(:class:`~vttbridge.adapters.bridge.storage.Storage`) and this node's world leases
(:class:`~vttbridge.adapters.bridge.storage.LeaseKeeper`): a world is loaded only under its lease,
and unloaded without saving when the database refuses its rows (another node took it over).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from vttbridge.adapters.base import Adapter
from vttbridge.adapters.bridge import extras
from vttbridge.adapters.bridge.cluster import Cluster, RemoteWorld
from vttbridge.adapters.bridge.config import BridgeConfig
from vttbridge.adapters.bridge.hosted import HostedWorld
from vttbridge.adapters.bridge.metrics import Metrics
from vttbridge.adapters.bridge.process import SleepTrim, duration, trim_memory
from vttbridge.adapters.bridge.storage import (
    LeaseKeeper,
    Storage,
    StoreError,
    WorldRecord,
    WriterLock,
    default_node_id,
    open_storage,
    writer_lock,
)
from vttbridge.adapters.bridge.worldhost import WorldHost
from vttbridge.rules.options import Options
from vttbridge.sdk.loader import entry_point_sources

log = logging.getLogger("vttbridge")

TRIM_AFTER = 20
"""Worlds loaded at start from which the heap they leave behind is handed back to the OS (a
full collection of the process costs tens of milliseconds; a few worlds leave little)."""


class WorldUnavailable(Exception):
    """A world that exists but cannot be loaded (an unreadable snapshot, a broken script)."""


class OwnedElsewhere(StoreError):
    """Another node holds the world's lease."""


class Hosting:
    """The hosted worlds of one bridge, by name."""

    def __init__(
        self, config: BridgeConfig, adapters: Iterable[Adapter], metrics: Metrics | None = None
    ) -> None:
        self.config = config
        self.metrics = metrics or Metrics(enabled=False)
        self.adapters = adapters
        self.worlds: dict[str, WorldHost] = {}
        """The worlds in memory (not those asleep)."""
        self.store: Storage | None = None
        self.leases: LeaseKeeper | None = None
        """The leases of the worlds this node hosts (``storage/leases.py``)."""
        self.on_unloaded: Callable[[HostedWorld], Awaitable[None]] | None = None
        """Called with a world unloaded because this node lost it (its connections are
        closed there)."""
        self.on_woken: Callable[[], None] | None = None
        """Called as each world is loaded or woken (``serve`` keeps it out of the garbage
        collector's passes: :func:`~vttbridge.adapters.bridge.process.settle_woken`)."""
        self.closing = False
        self.cluster: Cluster | None = None
        """The other nodes (``--redis``; ``cluster.py``)."""
        self.remote: dict[str, RemoteWorld] = {}
        """Worlds other nodes own that this node's connections use."""
        self._remote_lock = asyncio.Lock()
        self._loading: dict[str, asyncio.Task] = {}
        self._sleeping: dict[str, asyncio.Task] = {}
        self._sweeper: asyncio.Task | None = None
        self.sleep_trim = SleepTrim()
        """When the memory of worlds put to sleep goes back to the OS."""
        # entry point scripts, found once per start (not per world loaded or woken)
        self._plugins: list[tuple[str, Any]] = []
        self._writer: WriterLock | None = None

    def hold_database(self) -> None:
        """Take the one-server-per-file lock of a SQLite database (a no-op for PostgreSQL);
        raises :class:`~vttbridge.adapters.bridge.storage.DatabaseInUse`."""
        if self._writer is None:
            self._writer = writer_lock(self.config.database)
            if self._writer is not None:
                self._writer.acquire(listening=f"{self.config.host}:{self.config.port}")

    async def open(self) -> None:
        """Open the database and rebuild every world in it."""
        cfg = self.config
        if cfg.redis:  # before the database: a missing extra is told first
            extras.require(extras.CLUSTER)
        self.hold_database()
        self.store = await open_storage(cfg.database, durability=cfg.durability)
        self.store.on_lost = self.lost
        self.leases = LeaseKeeper(self.store, self.node, cfg.lease_ttl, self.lost)
        self.store.writer.on_commit = self.metrics.committed
        self.leases.on_change = self.metrics.lease_changed
        if cfg.entry_point_scripts:
            self._plugins = entry_point_sources()
        if cfg.redis:
            if not str(cfg.database).startswith(("postgresql://", "postgres://")):
                raise StoreError("--redis (a cluster of nodes) needs --db postgresql://...")
            from vttbridge.adapters.bridge.dashboard.feed import CLIENT  # it imports this module

            # the dashboard's answers are forwarded to the owner like a VTT's events
            adapters = {a.name: a for a in [*self.adapters, CLIENT]}
            self.cluster = Cluster(cfg.redis, self, adapters, cfg.forward_timeout)
            await self.cluster.start()
            # In a cluster a world is loaded where a client first asks for it, so the worlds
            # spread over the nodes their clients reach.
            records = []
        else:
            records = await self.store.worlds()
        for rec in records:
            try:
                await self._load(rec)
            except Exception as e:  # one unreadable world must not keep the others down
                log.error("World %r could not be loaded and is unavailable: %s", rec.name, e)
        if len(records) >= TRIM_AFTER:  # loading leaves parsed snapshots behind as freed
            trim_memory()  # but unreturned heap (a few worlds: not worth a full collection)
        if cfg.world.sleep_after > 0 or cfg.world.snapshot_quiet > 0:
            self._sweeper = asyncio.create_task(self._sweep(), name="bridge:sweeper")

    async def _load(self, rec: WorldRecord) -> WorldHost:
        assert self.store is not None and self.leases is not None
        kw: dict[str, Any] = {
            "scripts": list(self.config.scripts),
            "reload_interval": 1.0 if self.config.reload_scripts else None,
            "entry_points": self._plugins,
            # a script's plain callback that blocks holds up its own world, not this loop
            "callback_thread": True,
        }
        if rec.options:
            kw["options"] = Options.model_validate(rec.options)
        lease = await self.leases.acquire(rec.name)
        if lease is None:
            holder = await self.store.owner(rec.name)
            raise OwnedElsewhere(
                f"world {rec.name!r} is served by another node"
                + (f" ({holder.node})" if holder is not None else "")
            )
        try:
            host = await WorldHost.load(
                rec.name,
                self.store,
                lease,
                adapters={a.name: a for a in self.adapters},
                config=self.config.world,
                runtime_kw=kw,
                acked_seq=rec.acked_seq,
                adapter_name=rec.adapter,
            )
        except BaseException:
            await self.leases.release(lease)
            raise
        self.worlds[rec.name] = host
        if self.on_woken is not None:
            self.on_woken()
        if self.cluster is not None:
            await self.cluster.serve(host)
            remote = self.remote.pop(rec.name, None)
            if remote is not None:  # taken over: this node's connections move to the host
                log.info("World %r is served by this node now.", rec.name)
                await self._drop_remote(remote)
        return host

    @property
    def node(self) -> str:
        """This node's name among the nodes sharing the database (``--node-id``)."""
        return self.config.node or default_node_id(self.config.port)

    async def owners(self) -> dict[str, str]:
        """Which node runs which world now, by world (from the leases in the database)."""
        if self.store is None:
            return {}
        return {lease.world: lease.node for lease in await self.store.owners()}

    async def served_by(self, name: str) -> str:
        """`` (by node-1)`` naming the node that owns world ``name``, for a refusal; ``""``
        when none does now."""
        holder = await self.store.owner(name) if self.store is not None else None
        return f" (by {holder.node})" if holder is not None else ""

    async def _drop_remote(self, remote: RemoteWorld) -> None:
        remote.stopped = True
        remote.outbox.wake_all()
        if self.cluster is not None:
            await self.cluster.unfollow(remote)
        if self.on_unloaded is not None:
            await self.on_unloaded(remote)

    async def _resume_at_saved_ack(self, remote: RemoteWorld) -> None:
        """Where a client that names no ``last_seq`` resumes at ``remote``: the owner's last
        saved GM ack (what this node learnt of it may be older: its own clients' acks go to
        the owner, and a world whose owner left keeps the figure it had)."""
        assert self.store is not None
        rec = await self.store.world(remote.name)
        if rec is not None:
            box = remote.outbox
            box.acked_seq = max(box.acked_seq, min(rec.acked_seq, box.published))

    async def _remote(self, name: str) -> RemoteWorld | None:
        """World ``name`` as this node's connections use it while another node owns it."""
        assert self.cluster is not None and self.store is not None
        async with self._remote_lock:
            remote = self.remote.get(name)
            if remote is not None:  # its figure of the saved ack may be old (owner silent)
                await self._resume_at_saved_ack(remote)
                return remote
            rec = await self.store.world(name)
            if rec is None:
                return None
            remote = RemoteWorld(
                rec,
                self.cluster,
                self.store,
                seq=0,
                keep=self.config.world.recent_commands,
                on_orphaned=self._orphaned,
                local=lambda: self.worlds.get(name),
                patience=self.config.lease_ttl + 2 * self.config.forward_timeout,
            )
            await self.cluster.follow(remote)  # before reading the log: no commit falls between
            last = await self.store.last_seq(name)
            remote.outbox.noted(-1, last, [])
            remote.outbox.acked_seq = min(rec.acked_seq, last)
            self.remote[name] = remote
            return remote

    def _orphaned(self, remote: RemoteWorld) -> None:
        """A forwarded event found no owner: try to take the world (its lease decides)."""
        if remote.name in self._loading or self.closing:
            return
        task = asyncio.ensure_future(self.get(remote.name))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def lost(self, name: str, fence: int, why: StoreError) -> None:
        """The database refused rows of world ``name`` written under ``fence`` (another node
        took it over, or the commit failed): what this node holds of it in memory is stale.
        Unload it without saving; :attr:`on_unloaded` closes its connections. A client that
        reconnects gets it loaded again from the database (or refused, while another node
        owns it)."""
        host = self.worlds.get(name)
        if host is None or host.lease.fence != fence or self.closing:
            return
        del self.worlds[name]
        assert self.leases is not None
        held = self.leases.held.get(name)
        if held is not None and held.fence == fence:
            del self.leases.held[name]
        log.warning("World %r is unloaded: %s. Its clients are disconnected.", name, why)

        async def unload() -> None:
            try:
                if self.cluster is not None:
                    await self.cluster.unserve(name)
                if self.on_unloaded is not None:
                    await self.on_unloaded(host)
                await host.stop(snapshot=False)
            except Exception:
                log.exception("World %r did not stop cleanly", name)

        self._sleeping[name] = task = asyncio.ensure_future(unload())
        task.add_done_callback(
            lambda t: self._sleeping.pop(name) if self._sleeping.get(name) is t else None
        )

    async def get(self, name: str) -> HostedWorld | None:
        """A hosted world, woken if it sleeps; one created (``vttbridge world create``) while
        we run is loaded on its first use; in a cluster, the :class:`RemoteWorld` of one another
        node runs; None if there is no such world. Restarts the world's idle clock. Raises
        :class:`WorldUnavailable`."""
        host = self.worlds.get(name)
        if host is not None:
            host.keep_awake()
            return host
        remote = self.remote.get(name)
        if remote is not None and not remote.orphaned:
            await self._resume_at_saved_ack(remote)
            return remote
        assert self.store is not None
        sleeping = self._sleeping.get(name)
        if sleeping is not None:  # being saved: wake it from that snapshot, not before
            with contextlib.suppress(Exception):
                await asyncio.shield(sleeping)
        task = self._loading.get(name)
        if task is None:
            rec = await self.store.world(name)
            if rec is None:
                return None
            if name in self.worlds:
                return self.worlds[name]
            task = self._loading.setdefault(name, asyncio.ensure_future(self._load(rec)))
        try:
            return await asyncio.shield(task)
        except OwnedElsewhere as e:
            if self.cluster is None:
                log.error("World %r could not be loaded: %s", name, e)
                raise WorldUnavailable(f"World {name!r} could not be loaded: {e}") from e
            if remote is not None:
                remote.orphaned = False  # another node has it now
            return await self._remote(name)
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
                for name in list(self.worlds):  # by name: no host is held once asleep
                    if self._snapshot_if_quiet(name, quiet):
                        # one snapshot a turn: a hundred worlds going quiet together would
                        # otherwise hold every other world's events for 60 ms
                        await asyncio.sleep(0)
            slept = await self._put_idle_to_sleep(after) if after > 0 else 0
            # Here, where no name holds a host put to sleep (the lists that held every one
            # are gone): their memory is free, and goes back to the OS now or at a later
            # sweep (SleepTrim).
            self.sleep_trim.put_to_sleep(slept, len(self.worlds))

    def _snapshot_if_quiet(self, name: str, quiet: float) -> bool:
        host = self.worlds.get(name)
        return host is not None and host.snapshot_if_quiet(quiet)

    async def _put_idle_to_sleep(self, after: float) -> int:
        """Put the worlds idle for ``after`` seconds to sleep and wait for their saves; how
        many there were."""
        asleep = []
        for host in list(self.worlds.values()):
            # checked as its turn comes: a client may have come back while one before it
            # was saved
            if self.worlds.get(host.name) is host and host.can_sleep(after):
                self._put_to_sleep(host)
                asleep.append(host)
                await asyncio.sleep(0)  # its final snapshot runs now: one world's a turn
        saving = [t for h in asleep if (t := self._sleeping.get(h.name)) is not None]
        if saving:  # wait, never cancel: a stop cancels the sweep, not their saves
            await asyncio.wait(saving)
        return len(asleep)

    def _put_to_sleep(self, host: WorldHost) -> None:
        name = host.name
        if self.worlds.get(name) is not host:
            return
        del self.worlds[name]  # from now on a connect wakes it (after the save below)

        async def sleep() -> None:
            try:
                await host.stop(snapshot=True)
                await host.log.barrier()
                assert self.leases is not None
                if self.cluster is not None:
                    await self.cluster.unserve(name)
                await self.leases.release(host.lease)
                log.info(
                    "World %r saved and asleep (no client for %s); it wakes when a client "
                    "connects.",
                    name,
                    duration(self.config.world.sleep_after),
                )
            except Exception:
                log.exception("World %r could not be put to sleep cleanly", name)
            finally:
                if self._sleeping.get(name) is task:
                    del self._sleeping[name]

        self._sleeping[name] = task = asyncio.ensure_future(sleep())

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
        if self.store is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.store.barrier(), 10)

    async def close(self, *, snapshot: bool = True) -> None:
        """Stop every world (with a final snapshot unless ``snapshot=False``) and close the
        database."""
        for host in list(self.worlds.values()):
            try:
                await host.stop(snapshot=snapshot)
            except Exception:
                log.exception("World %r did not stop cleanly", host.name)
        if self.cluster is not None:
            for name in list(self.worlds):
                await self.cluster.unserve(name)
        if self.leases is not None:
            await self.leases.close()  # after the final snapshots are committed
        if self.cluster is not None:
            await self.cluster.close()
        if self.store is not None:
            await self.store.close()
        if self._writer is not None:
            self._writer.release()
            self._writer = None
