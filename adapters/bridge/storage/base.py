"""What the bridge asks of a database, whichever engine keeps it.

Two implementations: ``sqlite.py`` (one file, the embedded default) and ``postgres.py``
(PostgreSQL, for several nodes). What they keep:

- worlds: name, the GM and observer key hashes, rule options, the highest command seq a GM
  client acknowledged (the resume point of a client that sends no ``last_seq``), the adapter
  that last linked it, and what of its log the database keeps (its retention);
- the log: per world, every accepted domain event and every emitted command, by ``seq``.
  Events and commands share one sequence per world, so a command's seq is always after the
  seq of the event that caused it. Never updated; deleted only when moved to an archive
  file (``archive.py``), whose rows :meth:`Storage.log_after` still reads. An event's row
  carries the client's event id (what dedup remembers across a restart) and every row the
  fence of the lease it was written under (``leases.py``);
- archives: the archive files of each world's log, with the seqs each holds;
- snapshots: world state at a seq; the last two are kept per world, and its first (which
  holds its dice seed: where ``vttbridge replay`` starts);
- suspects: events a script overran its budget on, quarantined after a restart;
- leases: which node owns each world, and its fence.

Reads are coroutines. Writes are queued without waiting and committed in groups (one
transaction for the rows of every world queued in a turn of the event loop, see
``groupcommit.py``); what must wait for the disk awaits a barrier.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vttbridge.adapters.bridge.storage.errors import StoreError
from vttbridge.adapters.bridge.storage.groupcommit import GroupCommit, WorldLog
from vttbridge.adapters.bridge.storage.leases import Lease

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.storage.archive import ArchiveFile, Retention


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
    retention: str = "keep"
    """What of its log the database keeps (``archive.Retention``)."""


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


@dataclass
class LogSize:
    """One world's log: in the database, and in archive files (``vttbridge world log``)."""

    world: str
    retention: str
    rows: int = 0
    bytes: int = 0
    """What its rows hold (their text and numbers; the table's pages and index add to it)."""
    archived_rows: int = 0
    archived_bytes: int = 0
    """The archive files' size on disk (compressed)."""
    files: int = 0


LOG_SIZE_SQL = (
    "SELECT world, count(*), sum(length(body) + length(name) + coalesce(length(event_id), 0)"
    " + length(world) + 40) FROM log GROUP BY world"
)
"""Rows and bytes of the log per world (the same SQL on both backends; 40: the numbers,
the kind and the row's header, about)."""
ARCHIVE_COLUMNS = "world, first_seq, last_seq, path, rows, bytes, at"


def log_sizes(
    worlds: Iterable[WorldRecord], counts: Iterable[Sequence[Any]], files: Iterable[Any]
) -> list[LogSize]:
    """Each world's :class:`LogSize` from its record, :data:`LOG_SIZE_SQL`'s rows and its
    archive files."""
    out = {r.name: LogSize(r.name, r.retention) for r in worlds}
    for world, n, size in counts:
        if world in out:
            out[world].rows, out[world].bytes = n, size or 0
    for f in files:
        if f.world in out:
            s = out[f.world]
            s.archived_rows, s.archived_bytes, s.files = (
                s.archived_rows + f.rows, s.archived_bytes + f.bytes, s.files + 1,
            )  # fmt: skip
    return list(out.values())


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
WORLD_COLUMNS = (
    "name, gm_key_hash, observer_key_hash, options, created_at, acked_seq, adapter, retention"
)
ROW_COLUMNS = "seq, kind, event_id, name, body, at, fence"


def world_record(row: Sequence[Any]) -> WorldRecord:
    """A ``worlds`` row of :data:`WORLD_COLUMNS`."""
    name, gm, obs, options, created, acked, adapter, retention = row
    return WorldRecord(name, gm, obs, json.loads(options), created, acked, adapter, retention)


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

    async def log_after(
        self, world: str, seq: int, kind: str | None = None, limit: int | None = None
    ) -> list[LogRow]:
        """Rows after ``seq`` in order, of one ``kind`` (``event``, ``command``) or both;
        ``limit`` None: all. Archived rows included: the archive files' first, then the
        table's (``archive.py``)."""
        from vttbridge.adapters.bridge.storage import archive

        files = [a for a in await self.archives(world) if a.last_seq > seq]
        if not files:
            return await self.table_log_after(world, seq, kind, limit)
        rows = await asyncio.get_running_loop().run_in_executor(
            None, archive.read_all, files, seq, kind, limit
        )
        left = None if limit is None else limit - len(rows)
        if left is not None and left <= 0:
            return rows
        return rows + await self.table_log_after(world, max(seq, files[-1].last_seq), kind, left)

    @abstractmethod
    async def table_log_after(
        self, world: str, seq: int, kind: str | None = None, limit: int | None = None
    ) -> list[LogRow]:
        """:meth:`log_after` of the rows still in the database (none of the archive's)."""

    async def count_commands(self, world: str, after: int, upto: int) -> int:
        """Commands with ``after`` < seq <= ``upto`` (archived ones included)."""
        from vttbridge.adapters.bridge.storage import archive

        n = await self.table_count_commands(world, after, upto)
        files = [
            a for a in await self.archives(world) if after < a.last_seq and a.first_seq <= upto
        ]
        if files:
            rows = await asyncio.get_running_loop().run_in_executor(
                None, archive.read_all, files, after, "command", None
            )
            n += sum(1 for r in rows if r.seq <= upto)
        return n

    @abstractmethod
    async def table_count_commands(self, world: str, after: int, upto: int) -> int:
        """:meth:`count_commands` of the rows still in the database."""

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

    # -- the archive (archive.py) -----------------------------------------------------------
    @abstractmethod
    async def archives(self, world: str | None = None) -> list[ArchiveFile]:
        """The archive files of ``world`` (None: of every world), in seq order."""

    @abstractmethod
    async def snapshot_seqs(self, world: str) -> list[int]:
        """The seqs of the world's snapshots, newest first."""

    @abstractmethod
    async def last_seq_before(self, world: str, at: float) -> int:
        """The last seq of a row written before time ``at`` (0: none)."""

    @abstractmethod
    async def set_retention(self, world: str, retention: str) -> None:
        """Store what the world's log keeps (StoreError if there is no such world)."""

    @abstractmethod
    async def log_sizes(self) -> list[LogSize]:
        """Every world's log: rows and bytes in the database, and archived."""

    @abstractmethod
    async def archived(self, file: ArchiveFile) -> None:
        """Record ``file`` and delete its rows from the table, in one transaction."""

    @abstractmethod
    async def reclaim(self) -> str:
        """Return the space of deleted rows (SQLite: to the disk; PostgreSQL: to the table,
        for new rows); a sentence saying what was done."""

    async def archive(
        self, world: str, folder: Path, retention: Retention | None = None
    ) -> list[ArchiveFile]:
        """Move the rows the world's retention (or ``retention``) lets go into files under
        ``folder``; the files written. Never the rows after the latest snapshot, nor the
        world's last row (whose seq numbers the next). Safe while a server serves the world:
        each file's rows leave the table in one short transaction."""
        from vttbridge.adapters.bridge.storage import archive

        if retention is None:
            rec = await self.world(world)
            if rec is None:
                raise StoreError(f"no world named {world!r}")
            retention = archive.Retention.parse(rec.retention)
        before = archive.cutoff(retention)
        last_before = await self.last_seq_before(world, before) if before is not None else None
        upto = archive.archive_upto(retention, await self.snapshot_seqs(world), last_before)
        upto = min(upto, await self.last_seq(world) - 1)
        written: list[ArchiveFile] = []
        after = max((a.last_seq for a in await self.archives(world)), default=0)
        loop = asyncio.get_running_loop()
        while after < upto:
            rows = [
                r
                for r in await self.table_log_after(world, after, None, archive.ROWS_PER_FILE)
                if r.seq <= upto
            ]
            if not rows:
                break
            file = await loop.run_in_executor(None, archive.write, folder, world, rows)
            await self.archived(file)
            written.append(file)
            after = rows[-1].seq
        return written

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
