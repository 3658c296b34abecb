"""Fixtures: a storage of each backend on a fresh database, and two "nodes" sharing one."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from vttbridge.adapters.bridge.storage import Storage, open_storage, parse


@pytest.fixture
async def store(database: Any) -> AsyncIterator[Storage]:
    """The storage at ``database``: a new SQLite file, or a new PostgreSQL schema."""
    s = await open_storage(database)
    yield s
    await s.close()


@pytest.fixture
async def nodes(database: Any, store: Storage) -> AsyncIterator[tuple[Storage, Storage]]:
    """Two nodes' storages of one database. SQLite serves one process: both are one storage
    (its leases are that process's); PostgreSQL: two storages, each with its connections."""
    if parse(database)[0] == "sqlite":
        yield store, store
        return
    other = await open_storage(database)
    yield store, other
    await other.close()


async def query(database: Any, sql: str, *args: Any) -> list[tuple]:
    """Rows of ``sql`` run on the database directly (``?`` placeholders for SQLite, ``$n``
    for PostgreSQL): what a test checks beyond the storage's own answers."""
    kind, target = parse(database)
    if kind == "sqlite":
        conn = sqlite3.connect(Path(target), isolation_level=None)
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()
    import asyncpg

    conn = await asyncpg.connect(target)
    try:
        return [tuple(r) for r in await conn.fetch(sql, *args)]
    finally:
        await conn.close()


def sql_for(database: Any, sqlite: str, postgres: str) -> str:
    return sqlite if parse(database)[0] == "sqlite" else postgres
