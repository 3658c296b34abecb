"""SQLite, the embedded default: one file in WAL mode, served by one process.

:class:`SqliteDatabase` is one synchronous connection (thread-confined). :class:`SqliteStorage`
reads through one of them in a thread of its own, and writes through :class:`SqliteWriter`:
one connection committing each batch (on the event loop, or in a thread with
``durability="full"``), and a second one copying the WAL into the file beside it, in a thread
(the checkpoint).

Leases: one process serves a file, so a world's lease lives in that process's memory; only
each world's fence counter is stored (``leases`` table), so fences keep increasing across
restarts and a restart after ``kill -9`` takes every world back at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from vttbridge.adapters.bridge.storage import archive
from vttbridge.adapters.bridge.storage.base import (
    ARCHIVE_COLUMNS,
    LOG_SIZE_SQL,
    ROW_COLUMNS,
    SUMMARY_SQL,
    WORLD_COLUMNS,
    LogRow,
    LogSize,
    Storage,
    WorldRecord,
    WorldSummary,
    latest_event_ids,
    log_rows,
    log_sizes,
    summarize,
    world_record,
)
from vttbridge.adapters.bridge.storage.errors import StoreError
from vttbridge.adapters.bridge.storage.groupcommit import SNAPSHOTS_KEPT, Batch, GroupCommit
from vttbridge.adapters.bridge.storage.leases import Lease
from vttbridge.adapters.bridge.storage.migrations import SQLITE, statements
from vttbridge.adapters.bridge.storage.readonly import ReadOnlyWriter

log = logging.getLogger(__name__)
T = TypeVar("T")


def connect(
    path: str | Path, *, durability: str = "normal", read_only: bool = False
) -> sqlite3.Connection:
    """Open ``path`` with the pragmas every connection needs (WAL, busy timeout).
    ``read_only``: SQLite's own read-only mode (reads beside a running server's writes)."""
    if read_only:
        uri = f"{Path(path).resolve().as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=5000")
        return conn
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    # Pages freed by archiving go back to the disk by `incremental_vacuum` (reclaim): only
    # possible in a file made so, set before the first table and before WAL (a no-op on a
    # file that has tables: see `vttbridge world vacuum`).
    conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit survives the process being killed (kill -9); FULL also
    # survives power loss, at the price of an fsync per batch.
    conn.execute(f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}")
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


def _schema_version(conn: sqlite3.Connection) -> int | None:
    """The file's schema version; None for a new file."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # no meta table yet
        return None
    return int(row[0]) if row else None


def migrate(conn: sqlite3.Connection, where: str, schema: Any = SQLITE) -> None:
    """Bring the file to ``schema``'s version (see ``migrations.py``), in one transaction."""
    found = _schema_version(conn)
    if found == schema.version:
        return
    schema.plan(found, where)  # a newer file is refused before anything is locked
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = _schema_version(conn)  # another process may have done it meanwhile
        steps = schema.plan(found, where)
        for version, sql in steps:
            for stmt in statements(sql):
                conn.execute(stmt)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(version),))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if found is not None and steps:
        n = conn.execute("SELECT count(*) FROM log").fetchone()[0]
        log.info(
            "Upgraded the database %s from schema %d to %d: %d log rows in %.1f s.",
            where, found, schema.version, n, time.perf_counter() - started,
        )  # fmt: skip


class SqliteDatabase:
    """Synchronous access to the file through one connection. Not thread-safe: one thread
    at a time per instance. Opening it upgrades the file's schema if needed (``read_only``:
    never; a file of another schema is refused)."""

    def __init__(
        self, path: str | Path, *, durability: str = "normal", read_only: bool = False
    ) -> None:
        self.path = Path(path)
        try:
            if read_only and not self.path.is_file():
                raise sqlite3.OperationalError("no such file")
            self.conn = connect(self.path, durability=durability, read_only=read_only)
            if not read_only:
                migrate(self.conn, str(self.path))
            elif _schema_version(self.conn) != SQLITE.version:
                found = _schema_version(self.conn)
                self.conn.close()
                raise StoreError(
                    f"the database {self.path} has schema {found}, not {SQLITE.version}: "
                    "open it once with this vttbridge (vttbridge world list) to upgrade it"
                )
        except sqlite3.Error as e:
            raise StoreError(f"cannot open the database {self.path}: {e}") from e

    def close(self) -> None:
        self.conn.close()

    # -- worlds ------------------------------------------------------------------------------
    def create_world(
        self, name: str, gm_key_hash: str, observer_key_hash: str, options: dict | None = None
    ) -> WorldRecord:
        rec = WorldRecord(name, gm_key_hash, observer_key_hash, options or {}, time.time())
        try:
            self.conn.execute(
                "INSERT INTO worlds (name, gm_key_hash, observer_key_hash, options, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (name, gm_key_hash, observer_key_hash, json.dumps(rec.options), rec.created_at),
            )
        except sqlite3.IntegrityError:
            raise StoreError(f"a world named {name!r} already exists") from None
        return rec

    def set_key_hashes(self, name: str, gm_key_hash: str, observer_key_hash: str) -> None:
        cur = self.conn.execute(
            "UPDATE worlds SET gm_key_hash=?, observer_key_hash=? WHERE name=?",
            (gm_key_hash, observer_key_hash, name),
        )
        if cur.rowcount == 0:
            raise StoreError(f"no world named {name!r}")

    def key_hashes(self) -> dict[str, tuple[str, str]]:
        rows = self.conn.execute("SELECT name, gm_key_hash, observer_key_hash FROM worlds")
        return {name: (gm, obs) for name, gm, obs in rows}

    def world(self, name: str) -> WorldRecord | None:
        row = self.conn.execute(
            f"SELECT {WORLD_COLUMNS} FROM worlds WHERE name=?", (name,)
        ).fetchone()
        return world_record(row) if row else None

    def worlds(self) -> list[WorldRecord]:
        rows = self.conn.execute(
            f"SELECT {WORLD_COLUMNS} FROM worlds ORDER BY created_at, name"
        ).fetchall()
        return [world_record(r) for r in rows]

    def summaries(self) -> list[WorldSummary]:
        return summarize(self.worlds(), self.conn.execute(SUMMARY_SQL))

    # -- log ---------------------------------------------------------------------------------
    def last_seq(self, world: str) -> int:
        row = self.conn.execute("SELECT max(seq) FROM log WHERE world=?", (world,)).fetchone()
        return row[0] or 0

    def log_after(
        self, world: str, seq: int, kind: str | None = None, limit: int | None = None
    ) -> list[LogRow]:
        sql = f"SELECT {ROW_COLUMNS} FROM log WHERE world=? AND seq>?"
        args: tuple = (world, seq)
        if kind:
            sql += " AND kind=?"
            args += (kind,)
        cur = self.conn.execute(
            sql + " ORDER BY seq LIMIT ?", (*args, -1 if limit is None else limit)
        )
        return log_rows(cur)

    def count_commands(self, world: str, after: int, upto: int) -> int:
        return self.conn.execute(
            "SELECT count(*) FROM log WHERE world=? AND kind='command' AND seq>? AND seq<=?",
            (world, after, upto),
        ).fetchone()[0]

    def recent_events(
        self, world: str, limit: int, *, within: int, containing: Sequence[str] = ()
    ) -> list[LogRow]:
        match = " OR ".join(["instr(body, ?) > 0"] * len(containing)) or "1"
        rows = self.conn.execute(
            f"SELECT * FROM (SELECT {ROW_COLUMNS} FROM log"
            " WHERE world=? AND kind='event' ORDER BY seq DESC LIMIT ?)"
            f" WHERE {match} LIMIT ?",
            (world, within, *containing, limit),
        ).fetchall()
        return log_rows(reversed(rows))

    def recent_event_ids(self, world: str, limit: int) -> list[tuple[str, int]]:
        rows = self.conn.execute(
            "SELECT event_id, seq FROM log WHERE world=? AND kind='event'"
            " AND event_id IS NOT NULL ORDER BY seq DESC LIMIT ?",
            (world, limit * 2),
        ).fetchall()
        return latest_event_ids(rows, limit)

    def mark_suspect(self, world: str, event_id: str, name: str, script: str) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO suspects VALUES (?, ?, ?, ?, ?)",
            (world, event_id, name, script, time.time()),
        )

    def suspects(self, world: str) -> dict[str, tuple[str, str, float]]:
        rows = self.conn.execute(
            "SELECT event_id, name, script, at FROM suspects WHERE world=?", (world,)
        ).fetchall()
        return {e: (n, s, a) for e, n, s, a in rows}

    def latest_snapshot(self, world: str) -> tuple[int, str] | None:
        row = self.conn.execute(
            "SELECT seq, data FROM snapshots WHERE world=? ORDER BY seq DESC LIMIT 1", (world,)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def snapshots(self, world: str) -> list[tuple[int, str]]:
        rows = self.conn.execute(
            "SELECT seq, data FROM snapshots WHERE world=? ORDER BY seq", (world,)
        ).fetchall()
        return [(seq, data) for seq, data in rows]

    # -- the archive -------------------------------------------------------------------------
    def archives(self, world: str | None = None) -> list[archive.ArchiveFile]:
        sql = f"SELECT {ARCHIVE_COLUMNS} FROM archives"
        rows = (
            self.conn.execute(sql + " WHERE world=? ORDER BY first_seq", (world,))
            if world is not None
            else self.conn.execute(sql + " ORDER BY world, first_seq")
        )
        return [archive.ArchiveFile(*r) for r in rows]

    def snapshot_seqs(self, world: str) -> list[int]:
        rows = self.conn.execute(
            "SELECT seq FROM snapshots WHERE world=? ORDER BY seq DESC", (world,)
        )
        return [r[0] for r in rows]

    def last_seq_before(self, world: str, at: float) -> int:
        # the log is in write order: the last row before `at` by rowid, not a scan of `at`
        row = self.conn.execute(
            "SELECT max(seq) FROM log WHERE world=? AND at<?", (world, at)
        ).fetchone()
        return row[0] or 0

    def set_retention(self, world: str, retention: str) -> None:
        cur = self.conn.execute("UPDATE worlds SET retention=? WHERE name=?", (retention, world))
        if cur.rowcount == 0:
            raise StoreError(f"no world named {world!r}")

    def log_sizes(self) -> list[LogSize]:
        return log_sizes(self.worlds(), self.conn.execute(LOG_SIZE_SQL), self.archives())

    def archived(self, file: archive.ArchiveFile) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute(
                f"INSERT OR REPLACE INTO archives ({ARCHIVE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (file.world, file.first_seq, file.last_seq, file.path, file.rows, file.bytes,
                 file.at),
            )  # fmt: skip
            self.conn.execute(
                "DELETE FROM log WHERE world=? AND seq>=? AND seq<=?",
                (file.world, file.first_seq, file.last_seq),
            )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    RECLAIM_PAGES = 2000
    """Pages given back per transaction: each is short, so a serving writer barely waits."""

    def reclaim(self) -> str:
        """Give the free pages back to the disk (incremental vacuum), a few at a time."""
        mode, free = (self.conn.execute(f"PRAGMA {p}").fetchone()[0]
                      for p in ("auto_vacuum", "freelist_count"))  # fmt: skip
        if mode != 2:  # not INCREMENTAL: a file made before it was the default
            return (
                f"{free} free pages are reused for new rows, but this file does not shrink "
                "(it was made by an older vttbridge): run `vttbridge world vacuum` once, "
                "with the server stopped, to let it"
            )
        before = self.path.stat().st_size
        while free:
            self.conn.execute(f"PRAGMA incremental_vacuum({self.RECLAIM_PAGES})").fetchall()
            left = self.conn.execute("PRAGMA freelist_count").fetchone()[0]
            if left >= free:
                break
            free = left
        # the file is cut once the WAL is copied into it (at once unless a server is writing;
        # else by its next checkpoint)
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        after = self.path.stat().st_size
        return f"{self.path}: {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB"

    def vacuum(self) -> str:
        """Rewrite the whole file, compact, with incremental vacuum on (an older file's way
        to shrink; needs the file to itself)."""
        before = self.path.stat().st_size
        self.conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
        self.conn.execute("VACUUM")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        return f"{self.path}: {before / 1e6:.1f} MB -> {self.path.stat().st_size / 1e6:.1f} MB"

    # -- leases ------------------------------------------------------------------------------
    def next_fence(self, world: str, node: str, expires: float) -> int:
        """Count one more owner of ``world`` and return its fence (every row fetched: the
        statement, and so its write, ends here)."""
        ((fence,),) = self.conn.execute(
            "INSERT INTO leases (world, node, fence, expires) VALUES (?, ?, 1, ?)"
            " ON CONFLICT (world) DO UPDATE SET node=excluded.node, fence=fence+1,"
            " expires=excluded.expires RETURNING fence",
            (world, node, expires),
        ).fetchall()
        return fence


# -- the writer -----------------------------------------------------------------------------------

# Each op's statement, as (head, one row's placeholders, tail): written with as many rows as
# a batch has (see _write), since each statement is one step of SQLite, for which the writer
# thread lets go of the GIL and must take it back (while the event loop runs, a wait of up to
# the interpreter's switch interval, 5 ms): one statement for a batch's rows, not one each.
_SQL = {
    "log": ("INSERT INTO log (world, seq, kind, event_id, name, body, at, fence) VALUES ",
            "(?, ?, ?, ?, ?, ?, ?, ?)", ""),
    "snapshot": ("INSERT OR REPLACE INTO snapshots (world, seq, data, at, fence) VALUES ",
                 "(?, ?, ?, ?, ?)", ""),
    # (seq, world) rows, one per world (see _write)
    "acked": ("UPDATE worlds SET acked_seq=max(acked_seq, v.column1) FROM (VALUES ",
              "(?, ?)", ") AS v WHERE worlds.name=v.column2"),
    "adapter": ("UPDATE worlds SET adapter=v.column1 FROM (VALUES ",
                "(?, ?)", ") AS v WHERE worlds.name=v.column2"),
}  # fmt: skip
_CHUNKS = (256, 64, 16, 4, 1)
"""Rows per statement: a batch's rows are written in chunks of these sizes, largest first,
so that few texts of each statement exist (sqlite3 caches the compiled ones by text)."""


_ONE_ROW = {
    "acked": "UPDATE worlds SET acked_seq=max(acked_seq, ?1) WHERE name=?2",
    "adapter": "UPDATE worlds SET adapter=?1 WHERE name=?2",
}
"""The updates' statements for one row, the usual case (a commit carries the acks of the few
worlds whose clients answered a command since the last): a third of the time of the form with
a ``VALUES`` list, which SQLite first copies into a table of its own."""


@functools.lru_cache(maxsize=64)
def _statement(op: str, rows: int) -> str:
    if rows == 1 and op in _ONE_ROW:
        return _ONE_ROW[op]
    head, row, tail = _SQL[op]
    return head + ", ".join([row] * rows) + tail


def _write(conn: sqlite3.Connection, op: str, rows: list[tuple]) -> None:
    """Write ``rows`` of ``op`` in a few statements."""
    if op in ("acked", "adapter"):  # one row per world, the last (acked: the highest) kept
        last: dict[str, tuple] = {}
        for r in rows:
            if op == "adapter" or r[1] not in last or r[0] > last[r[1]][0]:
                last[r[1]] = r
        rows = list(last.values())
    i, n = 0, len(rows)
    for size in _CHUNKS:
        while n - i >= size:
            conn.execute(_statement(op, size), [v for r in rows[i : i + size] for v in r])
            i += size


_PRUNE_SNAPSHOTS = (  # the world's first is kept too (see groupcommit.SNAPSHOTS_KEPT)
    "DELETE FROM snapshots WHERE world=?1 AND seq NOT IN"
    " (SELECT seq FROM snapshots WHERE world=?1 ORDER BY seq DESC LIMIT ?2)"
    " AND seq > (SELECT min(seq) FROM snapshots WHERE world=?1)"
)
# Only if the hash is still the one the key was checked against: a reset meanwhile stands.
_REHASH = {
    "gm": "UPDATE worlds SET gm_key_hash=? WHERE name=? AND gm_key_hash=?",
    "observer": "UPDATE worlds SET observer_key_hash=? WHERE name=? AND observer_key_hash=?",
}


@dataclass(frozen=True)
class _CatchUp:
    """The checkpoint thread's job: copy the WAL beside the writer of ``loop``, then have it
    hold its batches back for the tail (:class:`_Tail`)."""

    loop: asyncio.AbstractEventLoop


@dataclass(frozen=True)
class _Tail:
    """The checkpoint thread's job: copy the WAL's tail while the batches of ``loop`` wait."""

    loop: asyncio.AbstractEventLoop


class SqliteWriter(GroupCommit):
    """The file's single writer (see ``groupcommit.py`` for the batching). ``fences``: the
    current fence of each world this process holds, which every commit checks.

    Where a batch is committed (``inline``; by default, by ``durability``):

    - ``normal``: on the event loop, in the turn that flushes. Without an fsync a commit takes
      tens of microseconds, less than handing its rows to a thread: that hand-off (a wake-up
      and the GIL going back and forth for each SQLite step) measured 2 % more CPU per event
      at a table's pace and twice the p99 and max round trip of 100 busy clients, on two
      cores shared with other work. What took milliseconds on the loop, the copy of the WAL
      into the file, is a thread's (below).
    - ``full``: in a thread of its own, since each commit waits for an fsync (milliseconds);
      it settles the barriers back in the loop.

    The checkpoint: a thread with a connection of its own copies the WAL into the file every
    :attr:`CHECKPOINT_EVERY` commits, beside the writer. Under steady writes that copy is
    never complete when the writer begins its next commit, so the WAL would never restart
    (300 MB in a minute of a benchmark). Past :attr:`WAL_LIMIT` frames it is caught up in two
    steps: the thread copies what is there while the writer goes on (tens of milliseconds
    under load), until what the writer added meanwhile is small (or, on a machine too loaded
    for that copy to keep up, until the WAL is twice the limit); only then does the loop hold
    the next batches back (their acks wait; the loop does not) while the thread copies that
    tail (5-30 ms under load, nearly all of it the fsyncs that must come before the WAL
    restarts); the first commit after restarts the WAL."""

    MAX_BATCH = 5000

    def __init__(
        self, path: str | Path, *, durability: str = "normal", inline: bool | None = None
    ) -> None:
        super().__init__()
        self.db = SqliteDatabase(path, durability=durability)
        self.fences: dict[str, int] = {}
        self._q: queue.SimpleQueue = queue.SimpleQueue()
        self.inline = (durability != "full") if inline is None else inline
        self._thread: threading.Thread | None = None
        self._wal = Path(f"{path}-wal")
        self._page = self.db.conn.execute("PRAGMA page_size").fetchone()[0]
        self._behind = False  # the WAL is past WAL_LIMIT and not caught up yet
        self._catching_up = False  # the checkpoint thread is catching the WAL up
        self._copy_queued = False  # a checkpoint is queued and not yet begun (one at most)
        self._held: list[list[Any]] | None = None  # batches held while the WAL is caught up
        if not self.inline:
            self._thread = threading.Thread(target=self._run, name="vttbridge-writer", daemon=True)
            self._thread.start()
        # SQLite's automatic checkpoint (copying the WAL into the database every ~4 MB) would
        # run inside some commit, for milliseconds: the checkpoint thread does it instead.
        self.db.conn.execute("PRAGMA wal_autocheckpoint=0")
        # the size the WAL is cut back to when it restarts
        self.db.conn.execute(f"PRAGMA journal_size_limit={self.WAL_LIMIT * (self._page + 24)}")
        self._checkpoints: queue.SimpleQueue = queue.SimpleQueue()
        self._checkpointer = threading.Thread(
            target=self._checkpoint_loop, args=(path,), name="vttbridge-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _send(self, buf: list[Any]) -> None:
        if not self.inline:
            self._q.put(buf)
        elif self._held is not None:
            self._held.append(buf)
        else:
            self._commit([buf])

    def _release(self) -> None:
        """Commit the batches held while the WAL was caught up (in the loop)."""
        held, self._held = self._held, None
        self._catching_up = False
        if held:
            self._commit(held)

    def _hold(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hold the next batches back while the checkpoint thread copies the WAL's tail (in
        the loop, so that no commit is under way)."""
        if self._held is None:
            self._held = []
        self._checkpoints.put(_Tail(loop))

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued, then stop the threads and close the connection."""
        self._flush()
        self._release()
        if self._thread is not None:
            self._q.put(None)
            self._thread.join(timeout)
        self._checkpoints.put(None)
        self._checkpointer.join(timeout)
        self.db.close()

    CHECKPOINT_EVERY = 50
    """Commits between two checkpoints. Often, so that what is left to copy when the WAL is
    caught up is small: with a checkpoint every 500 commits, a catch-up copied 100 MB and
    held the acks of its batch for 400 ms."""
    WAL_LIMIT = 16384
    """WAL frames (pages, 64 MB) past which the WAL is caught up and restarted. Each catch-up
    holds the next acks for up to ~100 ms under load: at 16 MB that came every few seconds of
    100 busy clients and doubled their p99 (91 against 50 ms, side by side)."""

    def _wal_too_long(self, limits: int = 1) -> bool:
        """The WAL is past ``limits`` times :attr:`WAL_LIMIT`."""
        try:
            return self._wal.stat().st_size > limits * self.WAL_LIMIT * (self._page + 24)
        except OSError:
            return False

    def _copy_later(self) -> None:
        """Have the checkpoint thread copy the WAL, unless a copy is queued already (a thread
        that lags behind the commits would otherwise have a queue of them, and the catch-up
        would wait behind it)."""
        if not self._copy_queued:
            self._copy_queued = True
            self._checkpoints.put(True)

    TAIL_FRAMES = 1000
    """A copy of the WAL beside the writer that copied fewer frames than this took a few
    milliseconds, so the writer added only a few pages meanwhile: the tail that is then
    copied while the next batches wait."""

    def _catch_up(self, conn: sqlite3.Connection) -> bool:
        """Copy the rest of the WAL into the file while nobody writes (so that the next
        commit restarts it). Judged by the file's size, not by the thread's reports, so a
        thread that lags (a loaded machine) cannot let it grow; while another checkpoint is
        running (busy), the writer tries again at its next commit. True when the copy is
        complete."""
        busy, frames, copied = self._copy(conn)
        return not busy and frames == copied

    def _copy(self, conn: sqlite3.Connection) -> tuple[int, int, int]:
        """One passive checkpoint: (busy, frames in the WAL, frames copied into the file)."""
        try:
            busy, frames, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as e:
            log.debug("WAL checkpoint of %s: %s", self.db.path, e)
            return 1, -1, 0
        return busy, frames, copied

    def _copy_beside_writer(self, conn: sqlite3.Connection) -> None:
        """Copy the WAL while the writer goes on, until one copy finds little left to do."""
        before = -1
        for _ in range(10):
            busy, _frames, copied = self._copy(conn)
            if busy or 0 <= copied - before < self.TAIL_FRAMES:
                return
            before = copied

    def _checkpoint_loop(self, path: str | Path) -> None:
        """Checkpoint when told (``True``); catch the WAL up for a :class:`_CatchUp`, copy its
        tail for a :class:`_Tail` and tell the loop to commit the batches it held; end at
        ``None``."""
        conn = connect(path)
        try:
            while (job := self._checkpoints.get()) is not None:
                if isinstance(job, _CatchUp):  # the writer goes on
                    self._copy_beside_writer(conn)
                    with contextlib.suppress(RuntimeError):  # the loop is closed: close()
                        job.loop.call_soon_threadsafe(self._hold, job.loop)
                    continue
                if isinstance(job, _Tail):  # the batches are held
                    for _ in range(20):  # busy only while another checkpoint ends
                        if self._catch_up(conn):
                            break
                        time.sleep(0.001)
                    with contextlib.suppress(RuntimeError):
                        job.loop.call_soon_threadsafe(self._release)
                    continue
                self._copy_queued = False
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as e:  # retried at the next one; the WAL just grows
                    log.warning("WAL checkpoint of %s failed: %s", path, e)
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        """After a commit: have the WAL copied, and caught up once it is past WAL_LIMIT: on
        the event loop, by the checkpoint thread (its tail while the next batches wait); in
        the writer's thread (or with no loop), by the writer itself."""
        if not self._wal_too_long():
            self._behind = False
            self._copy_later()
            return
        loop = self._loop
        if self.inline and loop is not None and loop.is_running():
            self._behind = False
            if not self._catching_up:
                self._catching_up = True
                self._checkpoints.put(_CatchUp(loop))
            elif self._held is None and self._wal_too_long(2):
                # the copy beside the writer does not keep up (a loaded machine): hold the
                # batches now, as the tail's copy will
                self._held = []
            return
        self._behind = not self._catch_up(conn)
        if not self._behind:
            self._copy_later()

    def _run(self) -> None:
        stop = False
        while not stop:
            chunks = [self._q.get()]
            size = len(chunks[0] or ())
            while size < self.MAX_BATCH:
                try:
                    chunk = self._q.get_nowait()
                except queue.Empty:
                    break
                chunks.append(chunk)
                size += len(chunk or ())
            if None in chunks:
                stop = True
                chunks = [c for c in chunks if c is not None]
            self._commit(chunks)

    def _commit(self, chunks: list[list[Any]]) -> None:
        """Write ``chunks`` in one transaction, then settle their barriers."""
        batch = Batch(chunks)
        refused = batch.refused(self.fences)
        if refused:
            batch.drop(refused)
        error: BaseException | None = None
        if batch.groups and self.failed is None:
            conn = self.db.conn
            started = time.perf_counter()
            try:
                conn.execute("BEGIN")
                for op, rows in batch.groups.items():
                    if op == "rehash":
                        for role, new, world, old in rows:
                            conn.execute(_REHASH[role], (new, world, old))
                        continue
                    _write(conn, op, rows)
                    if op == "snapshot":
                        conn.executemany(_PRUNE_SNAPSHOTS, [(p[0], SNAPSHOTS_KEPT) for p in rows])
                conn.execute("COMMIT")
            except Exception as e:  # disk full, locked file...: report, never die silently
                error = e
                self.failed = e
                log.critical("Could not save to the database %s: %s", self.db.path, e)
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            self._count(batch, started, error)
            due = self._behind or self.stats.batches % self.CHECKPOINT_EVERY == 0
            if error is None and due:
                self._checkpoint(conn)
        if self.failed is not None:
            error = error or self.failed  # a file that failed once is not written again
        self._settle(batch.barriers, error, refused, threadsafe=not self.inline)


# -- the storage ----------------------------------------------------------------------------------


class SqliteStorage(Storage):
    """One SQLite file (see the module docstring)."""

    def __init__(
        self,
        path: str | Path,
        *,
        durability: str = "normal",
        inline: bool | None = None,
        read_only: bool = False,
    ) -> None:
        self.path = Path(path)
        self.location = str(path)
        self.read_only = read_only
        """Opened with SQLite's read-only mode and no writer: nothing can change the file."""
        self.writer: SqliteWriter | ReadOnlyWriter
        if read_only:
            SqliteDatabase(path, read_only=True).close()  # refused now if it cannot be read
            self.writer = ReadOnlyWriter(self.location)
        else:
            self.writer = SqliteWriter(path, durability=durability, inline=inline)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vttbridge-reader")
        self._db: SqliteDatabase | None = None
        self._leases: dict[str, Lease] = {}
        self._granting = asyncio.Lock()

    def _with_db(self, fn: Callable[[SqliteDatabase], T]) -> T:
        if self._db is None:
            self._db = SqliteDatabase(self.path, read_only=self.read_only)
        if not self.read_only:
            return fn(self._db)
        try:
            return fn(self._db)
        except sqlite3.OperationalError as e:  # a write tried (and refused by SQLite)
            raise StoreError(f"{self.location} is open read-only: {e}") from e

    async def _read(self, fn: Callable[[SqliteDatabase], T]) -> T:
        """Run ``fn`` on the reader's connection, off the event loop (sqlite3 objects stay in
        the thread that uses them)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._with_db, fn)

    async def close(self) -> None:
        if isinstance(self.writer, SqliteWriter):
            await asyncio.get_running_loop().run_in_executor(None, self.writer.close)

        def shut() -> None:
            if self._db is not None:
                self._db.close()

        await asyncio.get_running_loop().run_in_executor(self._pool, shut)
        self._pool.shutdown()

    # -- worlds ------------------------------------------------------------------------------
    async def create_world(
        self, name: str, gm_key_hash: str, observer_key_hash: str, options: dict | None = None
    ) -> WorldRecord:
        return await self._read(
            lambda d: d.create_world(name, gm_key_hash, observer_key_hash, options)
        )

    async def set_key_hashes(self, name: str, gm_key_hash: str, observer_key_hash: str) -> None:
        await self._read(lambda d: d.set_key_hashes(name, gm_key_hash, observer_key_hash))

    async def key_hashes(self) -> dict[str, tuple[str, str]]:
        return await self._read(lambda d: d.key_hashes())

    async def world(self, name: str) -> WorldRecord | None:
        return await self._read(lambda d: d.world(name))

    async def worlds(self) -> list[WorldRecord]:
        return await self._read(lambda d: d.worlds())

    async def summaries(self) -> list[WorldSummary]:
        return await self._read(lambda d: d.summaries())

    # -- reading the log ---------------------------------------------------------------------
    async def last_seq(self, world: str) -> int:
        return await self._read(lambda d: d.last_seq(world))

    async def table_log_after(
        self, world: str, seq: int, kind: str | None = None, limit: int | None = None
    ) -> list[LogRow]:
        return await self._read(lambda d: d.log_after(world, seq, kind, limit))

    async def table_count_commands(self, world: str, after: int, upto: int) -> int:
        return await self._read(lambda d: d.count_commands(world, after, upto))

    async def recent_events(
        self, world: str, limit: int, *, within: int, containing: Sequence[str] = ()
    ) -> list[LogRow]:
        return await self._read(
            lambda d: d.recent_events(world, limit, within=within, containing=containing)
        )

    async def recent_event_ids(self, world: str, limit: int) -> list[tuple[str, int]]:
        return await self._read(lambda d: d.recent_event_ids(world, limit))

    async def latest_snapshot(self, world: str) -> tuple[int, str] | None:
        return await self._read(lambda d: d.latest_snapshot(world))

    async def snapshots(self, world: str) -> list[tuple[int, str]]:
        return await self._read(lambda d: d.snapshots(world))

    async def suspects(self, world: str) -> dict[str, tuple[str, str, float]]:
        return await self._read(lambda d: d.suspects(world))

    def mark_suspect_now(self, world: str, event_id: str, name: str, script: str) -> None:
        db = SqliteDatabase(self.path)
        try:
            db.mark_suspect(world, event_id, name, script)
        finally:
            db.close()

    # -- the archive -------------------------------------------------------------------------
    async def archives(self, world: str | None = None) -> list[archive.ArchiveFile]:
        return await self._read(lambda d: d.archives(world))

    async def snapshot_seqs(self, world: str) -> list[int]:
        return await self._read(lambda d: d.snapshot_seqs(world))

    async def last_seq_before(self, world: str, at: float) -> int:
        return await self._read(lambda d: d.last_seq_before(world, at))

    async def set_retention(self, world: str, retention: str) -> None:
        await self._read(lambda d: d.set_retention(world, retention))

    async def log_sizes(self) -> list[LogSize]:
        return await self._read(lambda d: d.log_sizes())

    async def archived(self, file: archive.ArchiveFile) -> None:
        await self._read(lambda d: d.archived(file))

    async def reclaim(self) -> str:
        return await self._read(lambda d: d.reclaim())

    # -- leases (this process's) -------------------------------------------------------------
    async def acquire(self, world: str, node: str, ttl: float) -> Lease | None:
        async with self._granting:
            held = self._leases.get(world)
            if held is not None and held.node != node and held.expires > time.time():
                return None
            expires = time.time() + ttl
            writer = self.writer
            if not isinstance(writer, SqliteWriter):
                raise StoreError(f"{self.location} is open read-only: no world can be taken")
            fence = await self._read(lambda d: d.next_fence(world, node, expires))
            lease = self._leases[world] = Lease(world, node, fence, expires)
            writer.fences[world] = fence
            return lease

    async def renew(self, leases: Iterable[Lease], ttl: float) -> list[Lease]:
        out = []
        expires = time.time() + ttl
        for lease in leases:
            held = self._leases.get(lease.world)
            if held is not None and held.fence == lease.fence:
                held = self._leases[lease.world] = Lease(
                    lease.world, held.node, held.fence, expires
                )
                out.append(held)
        return out

    async def release(self, lease: Lease) -> None:
        held = self._leases.get(lease.world)
        if held is not None and held.fence == lease.fence:
            await self.barrier()  # what was queued under it is written first
            if self._leases.get(lease.world) is held:
                del self._leases[lease.world]
                if isinstance(self.writer, SqliteWriter):
                    self.writer.fences.pop(lease.world, None)

    async def owners(self) -> list[Lease]:
        now = time.time()
        return sorted(
            (lease for lease in self._leases.values() if lease.expires > now),
            key=lambda lease: lease.world,
        )

    async def owner(self, world: str) -> Lease | None:
        held = self._leases.get(world)
        return held if held is not None and held.expires > time.time() else None
