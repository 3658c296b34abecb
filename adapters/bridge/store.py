"""SQLite persistence: worlds and their key hashes, the append-only log, snapshots.

One file in WAL mode. Tables:

- ``worlds``: name, the GM and observer key hashes, rule options, the highest command seq a GM
  client acknowledged (the resume point of a client that sends no ``last_seq``).
- ``log``: per world, every accepted domain event and every emitted command, by ``seq``. Events
  and commands share one sequence per world, so a command's seq is always after the seq of the
  event that caused it. Never updated or deleted. Rows are stored in the order they were
  written, found by world and seq through an index: a commit that logs events of several
  worlds then writes one page of rows and a small index page per world, about half of what
  clustering the rows by world cost (schema 1).
  An event's row carries the client's event id, which is what dedup remembers across a
  restart.
- ``snapshots``: world state at a seq; the last two are kept per world.

:class:`Store` is synchronous and owns one connection; the CLI uses it directly. The bridge uses a
:class:`LogWriter` (batched transactions) for every write while serving, and a :class:`Reader`
(a :class:`Store` in a thread of its own) for the few reads it makes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
SNAPSHOTS_KEPT = 2

_LOG_COLUMNS = """(
    world TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'command')),
    event_id TEXT,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    at REAL NOT NULL
)"""
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS worlds (
    name TEXT PRIMARY KEY,
    gm_key_hash TEXT NOT NULL,
    observer_key_hash TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{{}}',
    created_at REAL NOT NULL,
    acked_seq INTEGER NOT NULL DEFAULT 0,
    adapter TEXT
);
CREATE TABLE IF NOT EXISTS log {_LOG_COLUMNS};
CREATE UNIQUE INDEX IF NOT EXISTS log_world_seq ON log (world, seq);
CREATE TABLE IF NOT EXISTS snapshots (
    world TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (world, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS suspects (
    world TEXT NOT NULL,
    event_id TEXT NOT NULL,
    name TEXT NOT NULL,
    script TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (world, event_id)
) WITHOUT ROWID;
"""


# Schema 1 kept the log clustered by (world, seq) (WITHOUT ROWID). The rows are copied in
# one transaction: a crash midway leaves the file at schema 1, to be upgraded at the next start.
_UPGRADE_FROM_1 = f"""
BEGIN IMMEDIATE;
CREATE TABLE log_2 {_LOG_COLUMNS};
INSERT INTO log_2 (world, seq, kind, event_id, name, body, at)
    SELECT world, seq, kind, event_id, name, body, at FROM log ORDER BY world, seq;
DROP TABLE log;
ALTER TABLE log_2 RENAME TO log;
CREATE UNIQUE INDEX log_world_seq ON log (world, seq);
UPDATE meta SET value = '2' WHERE key = 'schema';
COMMIT;
"""


class StoreError(Exception):
    """The database cannot be used (wrong schema version, unwritable file...)."""


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


@dataclass
class WorldSummary:
    name: str
    created_at: float
    last_seq: int = 0
    events: int = 0
    commands: int = 0
    last_activity: float | None = None


def connect(path: str | Path, *, durability: str = "normal") -> sqlite3.Connection:
    """Open ``path`` with the pragmas every connection needs (WAL, busy timeout)."""
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit survives the process being killed (kill -9); FULL also
    # survives power loss, at the price of an fsync per batch.
    conn.execute(f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}")
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


class Store:
    """Synchronous access to the database. Not thread-safe: one thread per instance."""

    def __init__(self, path: str | Path, *, durability: str = "normal") -> None:
        self.path = Path(path)
        try:
            self.conn = connect(self.path, durability=durability)
            version = self._schema()
            if version == 1:
                self._upgrade_from_1()
            elif version not in (None, SCHEMA_VERSION):
                raise StoreError(
                    f"{self.path} was written by another vttbridge version "
                    f"(schema {version}, this one reads {SCHEMA_VERSION})"
                )
            self.conn.executescript(_SCHEMA)
            self.conn.execute(
                "INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
            )
        except sqlite3.Error as e:
            raise StoreError(f"cannot open the database {self.path}: {e}") from e

    def _schema(self) -> int | None:
        """The file's schema version; None for a new file."""
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.OperationalError:  # no meta table yet
            return None
        return int(row[0]) if row else None

    def _upgrade_from_1(self) -> None:
        started = time.perf_counter()
        try:
            self.conn.executescript(_UPGRADE_FROM_1)
        except sqlite3.Error:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        n = self.conn.execute("SELECT count(*) FROM log").fetchone()[0]
        log.info(
            "Upgraded the database %s to schema %d: %d log rows in %.1f s.",
            self.path, SCHEMA_VERSION, n, time.perf_counter() - started,
        )  # fmt: skip

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
        """Every world's (GM key hash, observer key hash): what the bridge checks its open
        connections against, to close those whose key was reset."""
        rows = self.conn.execute("SELECT name, gm_key_hash, observer_key_hash FROM worlds")
        return {name: (gm, obs) for name, gm, obs in rows}

    def world(self, name: str) -> WorldRecord | None:
        row = self.conn.execute(
            "SELECT name, gm_key_hash, observer_key_hash, options, created_at, acked_seq,"
            " adapter FROM worlds WHERE name=?",
            (name,),
        ).fetchone()
        return _world(row) if row else None

    def worlds(self) -> list[WorldRecord]:
        rows = self.conn.execute(
            "SELECT name, gm_key_hash, observer_key_hash, options, created_at, acked_seq,"
            " adapter FROM worlds ORDER BY created_at, name"
        ).fetchall()
        return [_world(r) for r in rows]

    def summaries(self) -> list[WorldSummary]:
        out = {r.name: WorldSummary(r.name, r.created_at) for r in self.worlds()}
        for world, kind, n, last, at in self.conn.execute(
            "SELECT world, kind, count(*), max(seq), max(at) FROM log GROUP BY world, kind"
        ):
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

    # -- log ---------------------------------------------------------------------------------
    def last_seq(self, world: str) -> int:
        row = self.conn.execute("SELECT max(seq) FROM log WHERE world=?", (world,)).fetchone()
        return row[0] or 0

    def log_after(
        self, world: str, seq: int, kind: str | None = None, limit: int = -1
    ) -> list[LogRow]:
        """Rows after ``seq`` in order (``limit`` -1: all)."""
        sql = "SELECT seq, kind, event_id, name, body, at FROM log WHERE world=? AND seq>?"
        args: tuple = (world, seq)
        if kind:
            sql += " AND kind=?"
            args += (kind,)
        cur = self.conn.execute(sql + " ORDER BY seq LIMIT ?", (*args, limit))
        return [LogRow(s, k, eid, name, json.loads(body), at) for s, k, eid, name, body, at in cur]

    def recent_events(
        self, world: str, limit: int, *, within: int, containing: tuple[str, ...] = ()
    ) -> list[LogRow]:
        """Of the last ``within`` event rows, the last ``limit`` whose body holds one of
        ``containing`` (any, if empty), oldest first. The text is matched by SQLite, so only
        the rows wanted are parsed."""
        match = " OR ".join(["instr(body, ?) > 0"] * len(containing)) or "1"
        rows = self.conn.execute(
            "SELECT * FROM (SELECT seq, kind, event_id, name, body, at FROM log"
            " WHERE world=? AND kind='event' ORDER BY seq DESC LIMIT ?)"
            f" WHERE {match} LIMIT ?",
            (world, within, *containing, limit),
        ).fetchall()
        return [LogRow(s, k, e, n, json.loads(b), a) for s, k, e, n, b, a in reversed(rows)]

    def commands_after(self, world: str, seq: int, limit: int = 500) -> list[LogRow]:
        rows = self.conn.execute(
            "SELECT seq, kind, event_id, name, body, at FROM log"
            " WHERE world=? AND seq>? AND kind='command' ORDER BY seq LIMIT ?",
            (world, seq, limit),
        ).fetchall()
        return [LogRow(s, k, e, n, json.loads(b), a) for s, k, e, n, b, a in rows]

    def count_commands(self, world: str, after: int, upto: int) -> int:
        """How many commands have ``after`` < seq <= ``upto``."""
        return self.conn.execute(
            "SELECT count(*) FROM log WHERE world=? AND kind='command' AND seq>? AND seq<=?",
            (world, after, upto),
        ).fetchone()[0]

    def recent_event_ids(self, world: str, limit: int) -> list[tuple[str, int]]:
        """(client event id, seq of its last log row), oldest first, for the last ``limit``
        events clients sent: the dedup memory a restart starts with."""
        rows = self.conn.execute(
            "SELECT event_id, seq FROM log WHERE world=? AND kind='event'"
            " AND event_id IS NOT NULL ORDER BY seq DESC LIMIT ?",
            (world, limit * 2),
        ).fetchall()
        latest: dict[str, int] = {}
        for eid, seq in rows:  # newest first: the first seq seen is an event's last row
            latest.setdefault(eid, seq)
        return sorted(latest.items(), key=lambda r: r[1])[-limit:]

    def mark_suspect(self, world: str, event_id: str, name: str, script: str) -> None:
        """Remember an event during which a script ran past its budget (written at once, from
        the watchdog's thread, while the event may still hang the server)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO suspects VALUES (?, ?, ?, ?, ?)",
            (world, event_id, name, script, time.time()),
        )

    def suspects(self, world: str) -> dict[str, tuple[str, str, float]]:
        """event id -> (event name, where the script was running, when), for quarantine."""
        rows = self.conn.execute(
            "SELECT event_id, name, script, at FROM suspects WHERE world=?", (world,)
        ).fetchall()
        return {e: (n, s, a) for e, n, s, a in rows}

    def latest_snapshot(self, world: str) -> tuple[int, str] | None:
        """The last snapshot's seq and its JSON text (``WorldRuntime.restore`` reads the text
        straight into its models, with no dict in between)."""
        row = self.conn.execute(
            "SELECT seq, data FROM snapshots WHERE world=? ORDER BY seq DESC LIMIT 1", (world,)
        ).fetchone()
        return (row[0], row[1]) if row else None


def _world(row: tuple) -> WorldRecord:
    name, gm, obs, options, created, acked, adapter = row
    return WorldRecord(name, gm, obs, json.loads(options), created, acked, adapter)


class Reader:
    """Reads the database off the event loop: one thread, one connection (sqlite3 objects stay
    in the thread that uses them)."""

    def __init__(self, path: str | Path) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vttbridge-reader")
        self.path = path
        self._store: Store | None = None

    def _with_store(self, fn: Callable[[Store], Any]) -> Any:
        if self._store is None:
            self._store = Store(self.path)
        return fn(self._store)

    async def run(self, fn: Callable[[Store], Any]) -> Any:
        """``fn(store)`` in the reader's thread."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._with_store, fn)

    def close(self) -> None:
        def shut() -> None:
            if self._store is not None:
                self._store.close()

        self._pool.submit(shut).result()
        self._pool.shutdown()


# -- batched writes ------------------------------------------------------------------------------

_INSERT_LOG = (
    "INSERT INTO log (world, seq, kind, event_id, name, body, at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_SNAPSHOT = "INSERT OR REPLACE INTO snapshots (world, seq, data, at) VALUES (?, ?, ?, ?)"
_PRUNE_SNAPSHOTS = (
    "DELETE FROM snapshots WHERE world=? AND seq NOT IN"
    " (SELECT seq FROM snapshots WHERE world=? ORDER BY seq DESC LIMIT ?)"
)
_SET_ACKED = "UPDATE worlds SET acked_seq=max(acked_seq, ?) WHERE name=?"
_SET_ADAPTER = "UPDATE worlds SET adapter=? WHERE name=?"
# Only if the hash is still the one the key was checked against: a reset meanwhile stands.
_REHASH = {
    "gm": "UPDATE worlds SET gm_key_hash=? WHERE name=? AND gm_key_hash=?",
    "observer": "UPDATE worlds SET observer_key_hash=? WHERE name=? AND observer_key_hash=?",
}


@dataclass
class _Barrier:
    """Runs ``callback(error)`` in the event loop once every write queued before it is
    committed (``error`` None) or has failed."""

    callback: Callable[[BaseException | None], None]
    loop: asyncio.AbstractEventLoop


@dataclass
class WriterStats:
    batches: int = 0
    rows: int = 0
    largest_batch: int = 0
    failures: int = 0
    busy_seconds: float = field(default=0.0, repr=False)


class LogWriter:
    """The single writer: commits queued writes in batched transactions, on the event loop
    (``durability="normal"``) or in a thread (``"full"``, whose fsync takes milliseconds).

    Callers queue rows without waiting and, where an ack depends on it, queue a barrier whose
    future resolves after the commit that includes everything queued before it. Rows queued
    in consecutive turns of the event loop are committed together (in thread mode they reach the
    thread as one list: one wake-up, not one per row, and whatever piles up while a commit
    runs goes into the next): under load one commit (and one fsync) covers many events.
    """

    MAX_BATCH = 5000
    MAX_TURNS = 8
    """Turns of the event loop a commit waits at most for more rows (see ``_turn_passed``)."""

    def __init__(
        self, path: str | Path, *, durability: str = "normal", inline: bool | None = None
    ) -> None:
        self.store = Store(path, durability=durability)
        self._q: queue.SimpleQueue = queue.SimpleQueue()
        self._buf: list[Any] = []
        self._buf_committed: asyncio.Future | None = None  # shared by everyone in this batch
        self._next_turn: asyncio.Handle | None = None  # set while a commit is on its way
        self.stats = WriterStats()
        self.failed: BaseException | None = None
        # Without an fsync a commit takes microseconds: doing it on the event loop, once per
        # turn, is cheaper than handing rows to a thread (each hand-off costs a GIL round
        # trip). An fsync (durability="full") takes milliseconds: that goes to the thread.
        self.inline = (durability != "full") if inline is None else inline
        self._thread: threading.Thread | None = None
        self._checkpoints: queue.SimpleQueue | None = None
        self._checkpointer: threading.Thread | None = None
        self._catch_up = False  # set by the checkpoint thread: the WAL outgrew WAL_LIMIT
        if not self.inline:
            self._thread = threading.Thread(target=self._run, name="vttbridge-writer", daemon=True)
            self._thread.start()
        else:
            # SQLite's automatic checkpoint (copying the WAL into the database every ~4 MB)
            # would run inside some commit, on the event loop, for milliseconds. A thread with
            # its own connection does it instead; WAL lets it run beside the writer.
            self.store.conn.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpoints = queue.SimpleQueue()
            self._checkpointer = threading.Thread(
                target=self._checkpoint_loop, args=(path,), name="vttbridge-checkpoint", daemon=True
            )
            self._checkpointer.start()

    # -- producers (event loop thread) -------------------------------------------------------
    def _add(self, item: Any) -> None:
        self._buf.append(item)
        if self._next_turn is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # used outside an event loop: no turn to wait for
            self._flush()
            return
        self._next_turn = loop.call_soon(self._turn_passed, loop, 1, len(self._buf) - 1)

    def _turn_passed(self, loop: asyncio.AbstractEventLoop, turns: int, before: int) -> None:
        # Group commit. Commit once a turn of the loop has queued nothing, or after
        # MAX_TURNS: while the turns keep queueing rows (the handlers of events read
        # meanwhile), they join this commit, and each commit's pages are shared by more
        # events (at 10 busy clients a fixed two turns made 3.4 rows a commit; up to 8 turns
        # take about 3 % off the CPU time of a move). Alone, an event waits two turns.
        # ``before``: the rows queued when the last turn began.
        rows = len(self._buf)
        if rows > before and turns < self.MAX_TURNS:
            self._next_turn = loop.call_soon(self._turn_passed, loop, turns + 1, rows)
            return
        self._flush()

    def _flush(self) -> None:
        if self._next_turn is not None:  # committed early (commit_now, close)
            self._next_turn.cancel()
            self._next_turn = None
        if not self._buf:
            return
        buf, self._buf = self._buf, []
        self._buf_committed = None
        if self.inline:
            self._commit([buf])
        else:
            self._q.put(buf)

    @property
    def pending(self) -> bool:
        """Rows or barriers are queued for the next commit (``engine.py`` asks)."""
        return bool(self._buf)

    def commit_now(self) -> None:
        """Commit what is queued now instead of a turn later (``engine.py``: the events of one
        read from its pipe commit together)."""
        if self._buf:
            self._flush()

    def event(self, world: str, seq: int, event_id: str | None, name: str, body: str) -> None:
        self._add((_INSERT_LOG, (world, seq, "event", event_id, name, body, time.time())))

    def command(self, world: str, seq: int, op: str, body: str) -> None:
        self._add((_INSERT_LOG, (world, seq, "command", None, op, body, time.time())))

    def snapshot(self, world: str, seq: int, data: str) -> None:
        self._add((_INSERT_SNAPSHOT, (world, seq, data, time.time())))
        self._add((_PRUNE_SNAPSHOTS, (world, world, SNAPSHOTS_KEPT)))

    def acked(self, world: str, seq: int) -> None:
        self._add((_SET_ACKED, (seq, world)))

    def linked(self, world: str, adapter: str) -> None:
        self._add((_SET_ADAPTER, (adapter, world)))

    def rehash(self, world: str, role: str, old: str, new: str) -> None:
        """Replace the ``role`` key's stored hash ``old`` by ``new`` (a slow hash upgraded)."""
        self._add((_REHASH[role], (new, world, old)))

    def after_commit(self, callback: Callable[[BaseException | None], None]) -> None:
        """Call ``callback(None)`` in the event loop once everything queued so far is
        committed, or ``callback(error)`` if it could not be."""
        if self.failed is not None:
            callback(self.failed)
            return
        self._add(_Barrier(callback, asyncio.get_running_loop()))

    def barrier(self) -> asyncio.Future:
        """A future that resolves once everything queued so far is committed (or fails with
        the database error). Callers in one batch share one future: an event's ack costs no
        callback of its own."""
        fut = self._buf_committed
        if fut is not None:
            return fut
        fut = asyncio.get_running_loop().create_future()

        def settle(error: BaseException | None) -> None:
            if fut.done():
                return
            if error is None:
                fut.set_result(None)
            else:
                fut.set_exception(StoreError(f"the database cannot be written: {error}"))

        self.after_commit(settle)
        if self.failed is None:
            self._buf_committed = fut
        return fut

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued, then stop the thread and close the connection."""
        self._flush()
        if self._thread is not None:
            self._q.put(None)
            self._thread.join(timeout)
        if self._checkpointer is not None and self._checkpoints is not None:
            self._checkpoints.put(None)
            self._checkpointer.join(timeout)
        self.store.close()

    CHECKPOINT_EVERY = 500
    """Commits between two checkpoints (inline mode)."""
    WAL_LIMIT = 16384
    """WAL frames (pages, 64 MB) past which the writer checkpoints once itself."""

    def _checkpoint_loop(self, path: str | Path) -> None:
        assert self._checkpoints is not None
        conn = connect(path)
        try:
            while self._checkpoints.get() is not None:
                try:
                    _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error as e:  # retried at the next one; the WAL just grows
                    log.warning("WAL checkpoint of %s failed: %s", path, e)
                    continue
                # Under steady writes the WAL is never restarted (frames arrive while this
                # copies, so it is never caught up when the writer begins) and grows without
                # end (300 MB in a minute of a benchmark). The writer finishes the job between
                # two commits.
                if frames > self.WAL_LIMIT:
                    self._catch_up = True
        finally:
            conn.close()

    # -- the writer thread -------------------------------------------------------------------
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
        writes: list[tuple[str, tuple]] = []
        barriers: list[_Barrier] = []
        for chunk in chunks:
            for it in chunk:
                if isinstance(it, _Barrier):
                    barriers.append(it)
                else:
                    writes.append(it)
        error: BaseException | None = None
        if writes and self.failed is None:
            conn = self.store.conn
            started = time.perf_counter()
            try:
                conn.execute("BEGIN")
                _execute_grouped(conn, writes)
                conn.execute("COMMIT")
            except Exception as e:  # disk full, locked file...: report, never die silently
                error = e
                self.failed = e
                self.stats.failures += 1
                log.critical("Could not save to the database %s: %s", self.store.path, e)
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            self.stats.busy_seconds += time.perf_counter() - started
            self.stats.batches += 1
            if self._checkpoints is not None and self.stats.batches % self.CHECKPOINT_EVERY == 0:
                self._checkpoints.put(True)
            if self._catch_up and error is None:
                self._catch_up = False
                # no other writer now: this one completes, and the next commit restarts the
                # WAL from its start (a few ms, once per WAL_LIMIT of writes)
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self.stats.rows += len(writes)
            self.stats.largest_batch = max(self.stats.largest_batch, len(writes))
        if self.failed is not None:
            error = error or self.failed
        if self.inline:
            _run_callbacks([b.callback for b in barriers], error)
        else:
            _resolve(barriers, error)


def _execute_grouped(conn: sqlite3.Connection, writes: list[tuple[str, tuple]]) -> None:
    """One executemany per statement, statements in order of first appearance. Reordering
    inside one transaction is invisible to readers; the only order that matters (a snapshot
    before the pruning of older ones) is the order the statements first appear in."""
    groups: dict[str, list[tuple]] = {}
    for sql, params in writes:
        groups.setdefault(sql, []).append(params)
    for sql, rows in groups.items():
        conn.executemany(sql, rows)


def _resolve(barriers: list[_Barrier], error: BaseException | None) -> None:
    by_loop: dict[asyncio.AbstractEventLoop, list[Callable]] = {}
    for b in barriers:
        by_loop.setdefault(b.loop, []).append(b.callback)
    for loop, callbacks in by_loop.items():
        # RuntimeError: the loop is closed, so nobody is waiting any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_run_callbacks, callbacks, error)


def _run_callbacks(callbacks: list[Callable], error: BaseException | None) -> None:
    for cb in callbacks:
        try:
            cb(error)
        except Exception:  # one waiter's bug must not keep the others waiting
            log.exception("a commit callback failed")
