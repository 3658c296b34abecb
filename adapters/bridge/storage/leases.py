"""World ownership: one node at a time holds a world's lease, and its fence guards the writes.

A lease is (world, node, fence, expiry). ``Storage.acquire`` grants one only when the world
is free, expired, or already the caller's, and increments the world's fence each time, so a
fence never repeats. Every commit of log or snapshot rows checks, in its own transaction,
that the fence the rows were queued under is still the world's current one (PostgreSQL: a
``FOR SHARE`` lock on the lease row, so a takeover waits for a commit in flight, and every
later write of the old owner fails with
:class:`~vttbridge.adapters.bridge.storage.errors.NotOwner`).
Expiry is the database's clock (PostgreSQL's ``now()``), never the nodes'. Each log row keeps
its fence: over a world's log, seqs increase and fences never go back.

SQLite serves one node (one process per file): its leases live in that process's memory, and
only the fence counter is stored, so fences keep increasing across restarts.

:class:`LeaseKeeper` holds one node's leases and renews them together, a third of the lease
time apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vttbridge.adapters.bridge.storage.errors import NotOwner, StoreError

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.storage.base import Storage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Lease:
    world: str
    node: str
    fence: int
    expires: float
    """Seconds since the epoch, by the database's clock."""


def default_node_id(port: int | None = None) -> str:
    """This process's name among the nodes when none is given: the host name and the port it
    serves, so that a node restarted after a crash is the same owner and takes its worlds back
    at once (its new fences still refuse whatever its previous life left queued). Without a
    fixed port (0: any free one), the process id and a random part."""
    host = socket.gethostname()
    if port:
        return f"{host}:{port}"
    return f"{host}:{os.getpid()}:{secrets.token_hex(3)}"


class LeaseKeeper:
    """The leases of one node, renewed together every ``ttl / 3`` seconds.

    ``on_lost(world, fence, why)`` runs for each lease a renewal finds gone (another node took
    the world after ours expired, e.g. while this process was stopped).
    """

    def __init__(
        self,
        store: Storage,
        node: str,
        ttl: float,
        on_lost: Callable[[str, int, StoreError], None],
    ) -> None:
        self.store, self.node, self.ttl, self.on_lost = store, node, ttl, on_lost
        self.held: dict[str, Lease] = {}
        self.on_change: Callable[[str], None] | None = None
        """Called with ``"acquired"``, ``"released"`` or ``"lost"`` (the metrics)."""
        self._task: asyncio.Task | None = None

    async def acquire(self, world: str) -> Lease | None:
        lease = await self.store.acquire(world, self.node, self.ttl)
        if lease is not None:
            self.held[world] = lease
            self._changed("acquired")
            if self._task is None:
                self._task = asyncio.create_task(self._renew_loop(), name="bridge:leases")
        return lease

    async def release(self, lease: Lease) -> None:
        if self.held.get(lease.world) == lease:
            del self.held[lease.world]
        self._changed("released")
        try:
            await self.store.release(lease)
        except StoreError as e:  # it expires by itself
            log.warning("Could not release the lease of world %r: %s", lease.world, e)

    async def close(self) -> None:
        """Stop renewing and release every lease (the rows queued are committed first)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for lease in list(self.held.values()):
            await self.release(lease)

    async def renew(self) -> None:
        """Renew every lease now; report the lost ones."""
        asked = dict(self.held)
        if not asked:
            return
        renewed = {lease.world: lease for lease in await self.store.renew(asked.values(), self.ttl)}
        for world, lease in asked.items():
            if self.held.get(world) != lease:
                continue  # released or replaced meanwhile
            if world in renewed:
                self.held[world] = renewed[world]
            else:
                del self.held[world]
                self._changed("lost")
                current = await self.store.owner(world)
                now = current.fence if current is not None else None
                self.on_lost(world, lease.fence, NotOwner(world, lease.fence, now))

    def _changed(self, change: str) -> None:
        if self.on_change is not None:
            self.on_change(change)

    async def _renew_loop(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            try:
                await self.renew()
            except StoreError as e:  # tried again next time; past the ttl the fence decides
                log.warning("Could not renew this node's world leases: %s", e)
