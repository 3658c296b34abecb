"""What the bridge asks of a database, whichever engine keeps it.

Two implementations: ``sqlite.py`` (one file, the embedded default) and ``postgres.py``
(PostgreSQL, for several nodes). What they keep:

- worlds: name, the GM and observer key hashes, rule options, the highest command seq a GM
  client acknowledged (the resume point of a client that sends no ``last_seq``), the adapter
  that last linked it;
- the log: per world, every accepted domain event and every emitted command, by ``seq``.
  Events and commands share one sequence per world, so a command's seq is always after the
  seq of the event that caused it. Never updated or deleted. An event's row carries the
  client's event id (what dedup remembers across a restart) and every row the fence of the
  lease it was written under (``leases.py``);
- snapshots: world state at a seq; the last two are kept per world, and its first (which
  holds its dice seed: where ``vttbridge replay`` starts);
- suspects: events a script overran its budget on, quarantined after a restart;
- leases: which node owns each world, and its fence.

Reads are coroutines. Writes are queued without waiting and committed in groups (one
transaction for the rows of every world queued in a turn of the event loop, see
``groupcommit.py``); what must wait for the disk awaits a barrier.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from vttbridge.adapters.bridge.storage.errors import StoreError
from vttbridge.adapters.bridge.storage.groupcommit import GroupCommit, WorldLog
from vttbridge.adapters.bridge.storage.leases import Lease


@dataclass
class WorldRecord:
    name: str
    gm_key_hash: str
    observer_key_hash: str
    options: dict[str, Any]
    created_at: float
    acked_seq: int = 0
    adapter: str | None = None
    """The adapter (VTT) of the GM client that last linked the world."""


@dataclass
class LogRow:
    seq: int
    kind: str
    event_id: str | None
    name: str
    body: Any
    at: float = 0.0
    fence: int = 0


@dataclass
class WorldSummary:
    name: str
    created_at: float
    last_seq: int = 0
    events: int = 0
    commands: int = 0
    last_activity: float | None = None


SUMMARY_SQL = "SELECT world, kind, count(*), max(seq), max(at) FROM log GROUP BY world, kind"
"""The log's counts per world and kind, for :func:`summarize` (the same SQL on both backends)."""


def summarize(worlds: Iterable[WorldRecord], counts: Iterable[Sequence[Any]]) -> list[WorldSummary]:
    """Each world's summary from its record and the rows of :data:`SUMMARY_SQL`."""
    out = {r.name: WorldSummary(r.name, r.created_at) for r in worlds}
    for world, kind, n, last, at in counts:
        s = out.get(world)
        if s is None:
            continue
        s.last_seq = max(s.last_seq, last)
        s.last_activity = max(s.last_activity or 0.0, at)
        if kind == "event":
            s.events = n
        else:
            s.commands = n
    return list(out.values())


# The same columns and the same row decoding on both backends.
WORLD_COLUMNS = "name, gm_key_hash, observer_key_hash, options, created_at, acked_seq, adapter"
ROW_COLUMNS = "seq, kind, event_id, name, body, at, fence"


def world_record(row: Sequence[Any]) -> WorldRecord:
    """A ``worlds`` row of :data:`WORLD_COLUMNS`."""
    name, gm, obs, options, created, acked, adapter = row
    return WorldRecord(name, gm, obs, json.loads(options), created, acked, adapter)


def log_rows(rows: Iterable[Sequence[Any]]) -> list[LogRow]:
    """``log`` rows of :data:`ROW_COLUMNS`."""
    return [LogRow(s, k, e, n, json.loads(b), a, f) for s, k, e, n, b, a, f in rows]


def latest_event_ids(rows: Iterable[Sequence[Any]], limit: int) -> list[tuple[str, int]]:
    """The last ``limit`` event ids with each one's last seq, oldest first, from
    ``(event_id, seq)`` rows newest first."""
    latest: dict[str, int] = {}
    for eid, seq in rows:  # newest first: the first seq seen is an event's last row
        latest.setdefault(eid, seq)
    return sorted(latest.items(), key=lambda r: r[1])[-limit:]


LostCallback = Callable[[str, int, StoreError], None]
"""``on_lost(world, fence, why)``: rows of ``world`` written under ``fence`` were refused."""


class Storage(ABC):
    """The bridge's database. Open one with
    :func:`vttbridge.adapters.bridge.storage.open_storage`."""

    location: str
    """Where the data is, fit to print (a path, or a URL without its password)."""
    writer: GroupCommit

    # -- life cycle --------------------------------------------------------------------------
    @abstractmethod
    async def close(self) -> None:
        """Commit what is queued, then close every connection."""

    @property
    def failed(self) -> BaseException | None:
        """Why the last commit failed, while writes fail (the health check reports it)."""
        return self.writer.failed

    @property
    def on_lost(self) -> LostCallback | None:
        """Called in the event loop when a world's rows are refused (a newer fence, or a
        failed commit that leaves the world's memory ahead of the database)."""
        return self.writer.on_lost

    @on_lost.setter
    def on_lost(self, callback: LostCallback | None) -> None:
        self.writer.on_lost = callback

    # -- worlds ------------------------------------------------------------------------------
    @abstractmethod
    async def create_world(
        self, name: str, gm_key_hash: str, observer_key_hash: str, options: dict | None = None
    ) -> WorldRecord:
        """Raises StoreError if a world of that name exists."""

    @abstractmethod
    async def set_key_hashes(self, name: str, gm_key_hash: str, observer_key_hash: str) -> None:
        """Replace a world's key hashes (a key reset); StoreError if there is no such world."""

    @abstractmethod
    async def key_hashes(self) -> dict[str, tuple[str, str]]:
        """Every world's (GM key hash, observer key hash): what the bridge checks its open
        connections against, to close those whose key was reset."""

    @abstractmethod
    async def world(self, name: str) -> WorldRecord | None: ...

    @abstractmethod
    async def worlds(self) -> list[WorldRecord]:
        """Every world, oldest first."""

    @abstractmethod
    async def summaries(self) -> list[WorldSummary]:
        """Every world with its log's counts (``vttbridge world list``)."""

    # -- reading the log ---------------------------------------------------------------------
    @abstractmethod
    async def last_seq(self, world: str) -> int: ...

    @abstractmethod
    async def log_after(
        self, world: str, seq: int, kind: str | None = None, limit: int | None = None
    ) -> list[LogRow]:
        """Rows after ``seq`` in order, of one ``kind`` (``event``, ``command``) or both;
        ``limit`` None: all."""

    @abstractmethod
    async def count_commands(self, world: str, after: int, upto: int) -> int:
        """Commands with ``after`` < seq <= ``upto``."""

    @abstractmethod
    async def recent_events(
        self, world: str, limit: int, *, within: int, containing: Sequence[str] = ()
    ) -> list[LogRow]:
        """Of the last ``within`` event rows, the last ``limit`` whose body holds one of
        ``containing`` (any, if empty), oldest first. The database matches the text, so only
        the rows wanted are parsed."""

    @abstractmethod
    async def recent_event_ids(self, world: str, limit: int) -> list[tuple[str, int]]:
        """(client event id, seq of its last log row), oldest first, for the last ``limit``
        events clients sent: the dedup memory a restart starts with."""

    @abstractmethod
    async def latest_snapshot(self, world: str) -> tuple[int, str] | None:
        """The last snapshot's seq and its JSON text (``WorldRuntime.restore`` reads the text
        straight into its models, with no dict in between)."""

    @abstractmethod
    async def snapshots(self, world: str) -> list[tuple[int, str]]:
        """Every snapshot kept of ``world`` (its first, and its last two), oldest first: seq
        and JSON text."""

    @abstractmethod
    async def suspects(self, world: str) -> dict[str, tuple[str, str, float]]:
        """event id -> (event name, where the script was running, when), for quarantine."""

    @abstractmethod
    def mark_suspect_now(self, world: str, event_id: str, name: str, script: str) -> None:
        """Remember an event during which a script ran past its budget. Blocking, callable
        from any thread: the watchdog calls it while the event loop may be stuck in the
        script, so it writes at once on a connection of its own."""

    # -- leases ------------------------------------------------------------------------------
    @abstractmethod
    async def acquire(self, world: str, node: str, ttl: float) -> Lease | None:
        """Take ``world`` for ``node`` for ``ttl`` seconds, if it is free, expired, or already
        ``node``'s; None if another node holds it. Every acquisition increments the world's
        fence, so rows queued under an earlier lease (even this node's own) are refused."""

    @abstractmethod
    async def renew(self, leases: Iterable[Lease], ttl: float) -> list[Lease]:
        """Extend each lease still current (its fence unchanged, even if it expired meanwhile)
        to ``ttl`` seconds from now; returns those, with their new expiry. One missing from
        the answer is lost."""

    @abstractmethod
    async def release(self, lease: Lease) -> None:
        """Give the world up (if ``lease`` is still current), so another node may take it at
        once. The rows queued before are committed first."""

    @abstractmethod
    async def owner(self, world: str) -> Lease | None:
        """The lease of the node that owns ``world`` now; None if nobody does (free or
        expired)."""

    @abstractmethod
    async def owners(self) -> list[Lease]:
        """The live leases of every world owned now, by world name."""

    # -- writing (queued, committed in groups) -----------------------------------------------
    def log(self, lease: Lease) -> WorldLog:
        """The writer of one world's rows, under ``lease``: each commit checks, in its own
        transaction, that the lease's fence is still the world's."""
        return WorldLog(self.writer, lease)

    def rehash(self, world: str, role: str, old: str, new: str) -> None:
        """Replace the ``role`` key's stored hash ``old`` by ``new`` (a slow hash upgraded);
        only if the hash is still ``old``: a key reset meanwhile stands."""
        self.writer.queue("rehash", (role, new, world, old))

    def after_commit(self, callback: Callable[[BaseException | None], None]) -> None:
        """Call ``callback(None)`` in the event loop once everything queued so far is
        committed, or ``callback(error)`` if it could not be."""
        self.writer.after_commit(callback)

    async def barrier(self) -> None:
        """Wait until everything queued so far is committed (StoreError if it failed)."""
        await self.writer.barrier()
