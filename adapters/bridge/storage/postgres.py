"""PostgreSQL through asyncpg: the worlds of several nodes in one database.

Reads go through a small pool of connections. Writes go through one connection of their own
(:class:`PostgresWriter`): each batch is one transaction, and the next batch is sent as soon
as the previous one committed, so while a commit is on the wire the rows of the events read
meanwhile gather for the next. A transaction first locks the lease rows of the worlds it
writes (``FOR SHARE``) and checks their fences: a node taking a world over (an ``UPDATE`` of
that row) waits for a commit in flight, and every later write of the old owner is refused.

A lease's expiry is PostgreSQL's ``now()``, never a node's clock.

The URL is asyncpg's (libpq's form): ``postgresql://user:password@host:port/database``;
query parameters that are not connection options are server settings, so
``?search_path=tenant`` keeps the tables in that schema.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

import asyncpg
from vttbridge.adapters.bridge.storage import archive, hide_password
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
from vttbridge.adapters.bridge.storage.migrations import POSTGRES, Schema
from vttbridge.adapters.bridge.storage.readonly import ReadOnlyWriter

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0
MIGRATION_LOCK = 0x76747462  # pg_advisory_xact_lock key: nodes starting together upgrade once
COPY_FROM = 64
"""Log rows in a batch from which they go by COPY rather than one INSERT of arrays. Measured
on loopback: up to ~10 rows a commit the round trips decide and both cost the same; from
~100 COPY takes half the time and a third of the client's CPU per row."""

_DB_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, asyncio.TimeoutError)


def display(url: str) -> str:
    """``url`` without its password, fit for a message or a log line."""
    try:
        return hide_password(url)
    except ValueError:
        return "the PostgreSQL database"


async def connect(url: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT)
    except _DB_ERRORS as e:
        raise StoreError(f"cannot connect to the database {display(url)}: {e}") from e


async def migrate(conn: asyncpg.Connection, where: str, schema: Schema = POSTGRES) -> None:
    """Bring the database to ``schema``'s version (see ``migrations.py``): one transaction,
    under an advisory lock so that nodes starting at once upgrade it once."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        found = None
        if await conn.fetchval("SELECT to_regclass('meta')") is not None:
            value = await conn.fetchval("SELECT value FROM meta WHERE key = 'schema'")
            found = int(value) if value is not None else None
        steps = schema.plan(found, where)
        for version, sql in steps:
            await conn.execute(sql)
            await conn.execute(
                "INSERT INTO meta VALUES ('schema', $1)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                str(version),
            )
    if found is not None and steps:
        log.info("Upgraded the database %s from schema %d to %d.", where, found, schema.version)


async def _check_schema(conn: asyncpg.Connection, where: str, schema: Schema) -> None:
    """Refuse a database that is not at ``schema``'s version (read-only: nothing upgraded)."""
    found = None
    if await conn.fetchval("SELECT to_regclass('meta')") is not None:
        value = await conn.fetchval("SELECT value FROM meta WHERE key = 'schema'")
        found = int(value) if value is not None else None
    if found != schema.version:
        raise StoreError(
            f"the database {where} has schema {found}, not {schema.version}: open it once "
            "with this vttbridge (vttbridge world list) to upgrade it"
        )


_LOG_COLUMNS = ("world", "seq", "kind", "event_id", "name", "body", "at", "fence")

# -- the writer's statements ----------------------------------------------------------------------
_LOCK_LEASES = "SELECT world, fence, node FROM leases WHERE world = ANY($1::text[]) FOR SHARE"
_INSERT_LOG = (
    "INSERT INTO log (world, seq, kind, event_id, name, body, at, fence)"
    " SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[],"
    " $6::text[], $7::float8[], $8::bigint[])"
)
_INSERT_SNAPSHOT = (
    "INSERT INTO snapshots (world, seq, data, at, fence) VALUES ($1, $2, $3, $4, $5)"
    " ON CONFLICT (world, seq) DO UPDATE SET data = excluded.data, at = excluded.at,"
    " fence = excluded.fence"
)
_PRUNE_SNAPSHOTS = (  # the world's first is kept too (see groupcommit.SNAPSHOTS_KEPT)
    "DELETE FROM snapshots WHERE world = $1 AND seq NOT IN"
    " (SELECT seq FROM snapshots WHERE world = $1 ORDER BY seq DESC LIMIT $2)"
    " AND seq > (SELECT min(seq) FROM snapshots WHERE world = $1)"
)
_SET_ACKED = (
    "UPDATE worlds AS w SET acked_seq = GREATEST(w.acked_seq, v.seq)"
    " FROM unnest($1::text[], $2::bigint[]) AS v(name, seq) WHERE w.name = v.name"
)
_SET_ADAPTER = "UPDATE worlds SET adapter = $1 WHERE name = $2"
_REHASH = {
    "gm": "UPDATE worlds SET gm_key_hash = $1 WHERE name = $2 AND gm_key_hash = $3",
    "observer": (
        "UPDATE worlds SET observer_key_hash = $1 WHERE name = $2 AND observer_key_hash = $3"
    ),
}


class PostgresWriter(GroupCommit):
    """The node's single writer: one connection, one transaction per batch, batches in order
    (see ``groupcommit.py`` for how rows gather into batches)."""

    def __init__(self, url: str, where: str) -> None:
        super().__init__()
        self.url, self.where = url, where
        self._conn: asyncpg.Connection | None = None
        self._queued: list[list[Any]] = []
        self._task: asyncio.Task | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    def _send(self, buf: list[Any]) -> None:
        self._queued.append(buf)
        if self._task is None:
            self._idle.clear()
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self._queued:
                chunks, self._queued = self._queued, []
                await self._commit(chunks)
        finally:
            self._task = None
            self._idle.set()

    async def close(self) -> None:
        self._flush()
        await self._idle.wait()
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def _connection(self) -> asyncpg.Connection:
        if self._conn is None or self._conn.is_closed():
            self._conn = await connect(self.url)
        return self._conn

    async def _commit(self, chunks: list[list[Any]]) -> None:
        batch = Batch(chunks)
        refused: dict = {}
        error: StoreError | None = None
        if batch.groups:
            started = time.perf_counter()
            try:
                conn = await self._connection()
                async with conn.transaction():
                    if batch.claims:
                        worlds = list({w for w, _ in batch.claims})
                        current = {
                            w: (f if node is not None else None)
                            for w, f, node in await conn.fetch(_LOCK_LEASES, worlds)
                        }
                        refused = batch.refused(current)
                        if refused:
                            batch.drop(refused)
                    for op, rows in batch.groups.items():
                        await _execute(conn, op, rows)
            except Exception as e:  # the server is gone, the disk is full...: report
                error = (
                    e
                    if isinstance(e, StoreError)
                    else StoreError(f"the database {self.where} cannot be written: {e}")
                )
                refused = {}
                log.critical("Could not save to the database %s: %s", self.where, e)
                if self._conn is not None and not isinstance(e, asyncpg.PostgresError):
                    self._conn.terminate()  # unsure state: start again on a new connection
                    self._conn = None
            self._count(batch, started, error)
            self.failed = error  # cleared by the next commit that succeeds
        self._settle(batch.barriers, error, refused)
        if error is not None:
            # Whatever these rows' worlds did since they were queued is in memory only: the
            # host drops them and loads them again from the database.
            self._report([(claim, error) for claim in batch.claims])


async def _execute(conn: asyncpg.Connection, op: str, rows: list[tuple]) -> None:
    if not rows:
        return
    if op == "log":
        if len(rows) >= COPY_FROM:
            await conn.copy_records_to_table("log", records=rows, columns=_LOG_COLUMNS)
        else:
            await conn.execute(_INSERT_LOG, *(list(col) for col in zip(*rows, strict=True)))
    elif op == "snapshot":
        await conn.executemany(_INSERT_SNAPSHOT, rows)
        await conn.executemany(
            _PRUNE_SNAPSHOTS, [(p[0], SNAPSHOTS_KEPT) for p in {r[0]: r for r in rows}.values()]
        )
    elif op == "acked":
        upto: dict[str, int] = {}
        for seq, world in rows:  # one row per world: UPDATE ... FROM takes one match only
            upto[world] = max(seq, upto.get(world, 0))
        await conn.execute(_SET_ACKED, list(upto), list(upto.values()))
    elif op == "adapter":
        await conn.executemany(_SET_ADAPTER, rows)
    elif op == "rehash":
        for role, new, world, old in rows:
            await conn.execute(_REHASH[role], new, world, old)
    else:
        raise ValueError(f"unknown write {op!r}")


class PostgresStorage(Storage):
    """A PostgreSQL database (see the module docstring). Open with :meth:`open`."""

    READ_CONNECTIONS = 4

    def __init__(self, url: str, pool: asyncpg.Pool, *, read_only: bool = False) -> None:
        self.url = url
        self.location = display(url)
        self._pool = pool
        self.writer: PostgresWriter | ReadOnlyWriter = (
            ReadOnlyWriter(self.location) if read_only else PostgresWriter(url, self.location)
        )

    @classmethod
    async def open(
        cls, url: str, schema: Schema = POSTGRES, *, read_only: bool = False
    ) -> PostgresStorage:
        """``read_only``: no upgrade (a database of another schema is refused), and every
        connection in PostgreSQL's read-only mode, with no writer."""
        conn = await connect(url)
        try:
            try:
                if read_only:
                    await _check_schema(conn, display(url), schema)
                else:
                    await migrate(conn, display(url), schema)
            except _DB_ERRORS as e:
                raise StoreError(f"cannot open the database {display(url)}: {e}") from e
        finally:
            await conn.close()
        settings = {"default_transaction_read_only": "on"} if read_only else None
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=cls.READ_CONNECTIONS,
                timeout=CONNECT_TIMEOUT,
                server_settings=settings,
            )
        except _DB_ERRORS as e:
            raise StoreError(f"cannot connect to the database {display(url)}: {e}") from e
        return cls(url, pool, read_only=read_only)

    async def close(self) -> None:
        try:
            if isinstance(self.writer, PostgresWriter):
                await self.writer.close()
        finally:
            await self._pool.close()

    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        try:
            return await self._pool.fetch(sql, *args)
        except _DB_ERRORS as e:
            raise StoreError(f"cannot read the database {self.location}: {e}") from e

    async def _fetchrow(self, sql: str, *args: Any) -> asyncpg.Record | None:
        rows = await self._fetch(sql, *args)
        return rows[0] if rows else None

    # -- worlds ------------------------------------------------------------------------------
    async def create_world(
        self, name: str, gm_key_hash: str, observer_key_hash: str, options: dict | None = None
    ) -> WorldRecord:
        rec = WorldRecord(name, gm_key_hash, observer_key_hash, options or {}, time.time())
        try:
            await self._pool.execute(
                "INSERT INTO worlds (name, gm_key_hash, observer_key_hash, options, created_at)"
                " VALUES ($1, $2, $3, $4, $5)",
                name, gm_key_hash, observer_key_hash, json.dumps(rec.options), rec.created_at,
            )  # fmt: skip
        except asyncpg.UniqueViolationError:
            raise StoreError(f"a world named {name!r} already exists") from None
        except _DB_ERRORS as e:
            raise StoreError(f"cannot write to the database {self.location}: {e}") from e
        return rec

    async def set_key_hashes(self, name: str, gm_key_hash: str, observer_key_hash: str) -> None:
        row = await self._fetchrow(
            "UPDATE worlds SET gm_key_hash = $1, observer_key_hash = $2 WHERE name = $3"
            " RETURNING name",
            gm_key_hash, observer_key_hash, name,
        )  # fmt: skip
        if row is None:
            raise StoreError(f"no world named {name!r}")

    async def key_hashes(self) -> dict[str, tuple[str, str]]:
        rows = await self._fetch("SELECT name, gm_key_hash, observer_key_hash FROM worlds")
        return {name: (gm, obs) for name, gm, obs in rows}

    async def world(self, name: str) -> WorldRecord | None:
        row = await self._fetchrow(f"SELECT {WORLD_COLUMNS} FROM worlds WHERE name = $1", name)
        return world_record(row) if row else None

    async def worlds(self) -> list[WorldRecord]:
        rows = await self._fetch(f"SELECT {WORLD_COLUMNS} FROM worlds ORDER BY created_at, name")
        return [world_record(r) for r in rows]

    async def summaries(self) -> list[WorldSummary]:
        return summarize(await self.worlds(), await self._fetch(SUMMARY_SQL))

    # -- reading the log ---------------------------------------------------------------------
    async def last_seq(self, world: str) -> int:
        row = await self._fetchrow("SELECT max(seq) FROM log WHERE world = $1", world)
        return (row[0] if row else None) or 0

    async def table_log_after(
        self, world: str, seq: int, kind: str | None = None, limit: int | None = None
    ) -> list[LogRow]:
        if kind:
            rows = await self._fetch(
                f"SELECT {ROW_COLUMNS} FROM log WHERE world = $1 AND seq > $2 AND kind = $3"
                " ORDER BY seq LIMIT $4",
                world, seq, kind, limit,
            )  # fmt: skip
        else:
            rows = await self._fetch(
                f"SELECT {ROW_COLUMNS} FROM log WHERE world = $1 AND seq > $2"
                " ORDER BY seq LIMIT $3",
                world, seq, limit,
            )  # fmt: skip
        return log_rows(rows)

    async def table_count_commands(self, world: str, after: int, upto: int) -> int:
        row = await self._fetchrow(
            "SELECT count(*) FROM log WHERE world = $1 AND kind = 'command'"
            " AND seq > $2 AND seq <= $3",
            world, after, upto,
        )  # fmt: skip
        return row[0] if row else 0

    async def recent_events(
        self, world: str, limit: int, *, within: int, containing: Sequence[str] = ()
    ) -> list[LogRow]:
        match = " OR ".join(f"strpos(body, ${i + 4}) > 0" for i in range(len(containing)))
        rows = await self._fetch(
            f"SELECT * FROM (SELECT {ROW_COLUMNS} FROM log"
            " WHERE world = $1 AND kind = 'event' ORDER BY seq DESC LIMIT $2) AS recent"
            f" WHERE {match or 'true'} ORDER BY seq DESC LIMIT $3",
            world, within, limit, *containing,
        )  # fmt: skip
        return log_rows(reversed(rows))

    async def recent_event_ids(self, world: str, limit: int) -> list[tuple[str, int]]:
        rows = await self._fetch(
            "SELECT event_id, seq FROM log WHERE world = $1 AND kind = 'event'"
            " AND event_id IS NOT NULL ORDER BY seq DESC LIMIT $2",
            world, limit * 2,
        )  # fmt: skip
        return latest_event_ids(rows, limit)

    async def latest_snapshot(self, world: str) -> tuple[int, str] | None:
        row = await self._fetchrow(
            "SELECT seq, data FROM snapshots WHERE world = $1 ORDER BY seq DESC LIMIT 1", world
        )
        return (row[0], row[1]) if row else None

    async def snapshots(self, world: str) -> list[tuple[int, str]]:
        rows = await self._fetch(
            "SELECT seq, data FROM snapshots WHERE world = $1 ORDER BY seq", world
        )
        return [(r[0], r[1]) for r in rows]

    async def suspects(self, world: str) -> dict[str, tuple[str, str, float]]:
        rows = await self._fetch(
            "SELECT event_id, name, script, at FROM suspects WHERE world = $1", world
        )
        return {e: (n, s, a) for e, n, s, a in rows}

    def mark_suspect_now(self, world: str, event_id: str, name: str, script: str) -> None:
        async def mark() -> None:
            conn = await connect(self.url)
            try:
                await conn.execute(
                    "INSERT INTO suspects VALUES ($1, $2, $3, $4, $5) ON CONFLICT (world,"
                    " event_id) DO UPDATE SET name = excluded.name, script = excluded.script,"
                    " at = excluded.at",
                    world, event_id, name, script, time.time(),
                )  # fmt: skip
            finally:
                await conn.close()

        # The event loop may be stuck in the script: this thread runs a loop of its own.
        asyncio.run(mark())

    # -- the archive -------------------------------------------------------------------------
    async def archives(self, world: str | None = None) -> list[archive.ArchiveFile]:
        sql = f"SELECT {ARCHIVE_COLUMNS} FROM archives"
        rows = await (
            self._fetch(sql + " WHERE world = $1 ORDER BY first_seq", world)
            if world is not None
            else self._fetch(sql + " ORDER BY world, first_seq")
        )
        return [archive.ArchiveFile(*r) for r in rows]

    async def snapshot_seqs(self, world: str) -> list[int]:
        rows = await self._fetch(
            "SELECT seq FROM snapshots WHERE world = $1 ORDER BY seq DESC", world
        )
        return [r[0] for r in rows]

    async def last_seq_before(self, world: str, at: float) -> int:
        row = await self._fetchrow(
            "SELECT max(seq) FROM log WHERE world = $1 AND at < $2", world, at
        )
        return (row[0] if row else None) or 0

    async def set_retention(self, world: str, retention: str) -> None:
        row = await self._fetchrow(
            "UPDATE worlds SET retention = $1 WHERE name = $2 RETURNING name", retention, world
        )
        if row is None:
            raise StoreError(f"no world named {world!r}")

    async def log_sizes(self) -> list[LogSize]:
        return log_sizes(
            await self.worlds(), await self._fetch(LOG_SIZE_SQL), await self.archives()
        )

    async def archived(self, file: archive.ArchiveFile) -> None:
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await conn.execute(
                    f"INSERT INTO archives ({ARCHIVE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
                    " ON CONFLICT (world, first_seq) DO UPDATE SET last_seq = excluded.last_seq,"
                    " path = excluded.path, rows = excluded.rows, bytes = excluded.bytes,"
                    " at = excluded.at",
                    file.world, file.first_seq, file.last_seq, file.path, file.rows, file.bytes,
                    file.at,
                )  # fmt: skip
                await conn.execute(
                    "DELETE FROM log WHERE world = $1 AND seq >= $2 AND seq <= $3",
                    file.world, file.first_seq, file.last_seq,
                )  # fmt: skip
        except _DB_ERRORS as e:
            raise StoreError(f"cannot write to the database {self.location}: {e}") from e

    async def reclaim(self) -> str:
        # As PostgreSQL's documentation advises for routine upkeep: a plain VACUUM (what
        # autovacuum runs too) makes the deleted rows' space free for new rows, without
        # locking out the writers; VACUUM FULL would give it to the disk, but locks the
        # table for as long as it rewrites it.
        try:
            await self._pool.execute("VACUUM (ANALYZE) log")
        except _DB_ERRORS as e:
            raise StoreError(f"cannot vacuum the database {self.location}: {e}") from e
        return (
            f"{self.location}: the archived rows' space is free for new rows (VACUUM); "
            "VACUUM FULL log would give it back to the disk, locking the log meanwhile"
        )

    # -- leases ------------------------------------------------------------------------------
    async def acquire(self, world: str, node: str, ttl: float) -> Lease | None:
        row = await self._fetchrow(
            "INSERT INTO leases AS l (world, node, fence, expires)"
            " VALUES ($1, $2, 1, now() + make_interval(secs => $3))"
            " ON CONFLICT (world) DO UPDATE"
            " SET node = excluded.node, fence = l.fence + 1, expires = excluded.expires"
            " WHERE l.node IS NULL OR l.node = excluded.node OR l.expires <= now()"
            " RETURNING fence, extract(epoch FROM expires)::float8",
            world, node, float(ttl),
        )  # fmt: skip
        return Lease(world, node, row[0], row[1]) if row else None

    async def renew(self, leases: Iterable[Lease], ttl: float) -> list[Lease]:
        by_node: dict[str, list[Lease]] = {}
        for lease in leases:
            by_node.setdefault(lease.node, []).append(lease)
        out = []
        for node, held in by_node.items():
            rows = await self._fetch(
                "UPDATE leases AS l SET expires = now() + make_interval(secs => $3)"
                " FROM unnest($1::text[], $2::bigint[]) AS h(world, fence)"
                " WHERE l.world = h.world AND l.fence = h.fence AND l.node = $4"
                " RETURNING l.world, l.fence, extract(epoch FROM l.expires)::float8",
                [x.world for x in held], [x.fence for x in held], float(ttl), node,
            )  # fmt: skip
            out += [Lease(w, node, f, e) for w, f, e in rows]
        return out

    async def release(self, lease: Lease) -> None:
        await self.barrier()  # what was queued under it is written first
        await self._fetch(
            "UPDATE leases SET node = NULL, expires = NULL"
            " WHERE world = $1 AND fence = $2 AND node = $3",
            lease.world, lease.fence, lease.node,
        )  # fmt: skip

    async def owners(self) -> list[Lease]:
        rows = await self._fetch(
            "SELECT world, node, fence, extract(epoch FROM expires)::float8 FROM leases"
            " WHERE node IS NOT NULL AND expires > now() ORDER BY world"
        )
        return [Lease(r[0], r[1], r[2], r[3]) for r in rows]

    async def owner(self, world: str) -> Lease | None:
        row = await self._fetchrow(
            "SELECT node, fence, extract(epoch FROM expires)::float8 FROM leases"
            " WHERE world = $1 AND node IS NOT NULL AND expires > now()",
            world,
        )
        return Lease(world, row[0], row[1], row[2]) if row else None
