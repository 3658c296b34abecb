"""Where the bridge keeps its worlds: the storage interface (``base.py``) and its engines.

``--db`` takes a path or a URL:

- ``vttbridge.sqlite3``, ``/var/lib/vttbridge/worlds.sqlite3``, ``sqlite:///relative.sqlite3``,
  ``sqlite:////absolute/path.sqlite3``: a SQLite file, the embedded default (``sqlite.py``);
- ``postgresql://user:password@host:5432/database`` (or ``postgres://``): PostgreSQL
  (``postgres.py``), for several nodes sharing the worlds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from vttbridge.adapters.bridge.storage.base import (
    LogRow,
    LogSize,
    Storage,
    WorldRecord,
    WorldSummary,
)
from vttbridge.adapters.bridge.storage.errors import NotOwner, StoreError
from vttbridge.adapters.bridge.storage.groupcommit import WorldLog
from vttbridge.adapters.bridge.storage.leases import Lease, LeaseKeeper, default_node_id
from vttbridge.adapters.bridge.storage.writerlock import DatabaseInUse, WriterLock

T = TypeVar("T")

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"


def parse(location: str | Path) -> tuple[str, str]:
    """``("sqlite", path)`` or ``("postgresql", url)`` for a ``--db`` value."""
    text = str(location)
    if text.startswith(POSTGRES_SCHEMES):
        return "postgresql", text
    if text.startswith(SQLITE_SCHEME):
        path = text[len(SQLITE_SCHEME) :]
        if not path:
            raise StoreError(f"{text!r} names no file: write sqlite:///PATH")
        return "sqlite", path
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise StoreError(
            f"unknown database URL scheme {scheme!r}: use a file path, sqlite:///PATH or "
            "postgresql://user@host/database"
        )
    return "sqlite", text


def hide_password(url: str) -> str:
    """``url`` with its password, if it has one, as ``***``: fit for a message or a log line.
    Raises ValueError for what is no URL."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def describe(location: str | Path) -> str:
    """``location`` fit to print (a URL's password hidden)."""
    kind, target = parse(location)
    if kind == "sqlite":
        return target
    from vttbridge.adapters.bridge.storage.postgres import display

    return display(target)


async def open_storage(
    location: str | Path, *, durability: str = "normal", read_only: bool = False
) -> Storage:
    """Open (creating or upgrading it if needed) the database at ``location``. ``durability``
    is SQLite's (``normal``: a commit survives the process being killed; ``full``: also power
    loss); PostgreSQL's commits are as durable as the server is configured to make them.
    ``read_only``: open an existing database at this vttbridge's schema in the engine's own
    read-only mode, with no writer (safe beside a server using it: ``vttbridge replay``)."""
    kind, target = parse(location)
    if kind == "postgresql":
        from vttbridge.adapters.bridge import extras

        extras.require(extras.POSTGRES)  # asyncpg only if used, and an extra
        from vttbridge.adapters.bridge.storage.postgres import PostgresStorage

        return await PostgresStorage.open(target, read_only=read_only)
    from vttbridge.adapters.bridge.storage.sqlite import SqliteStorage

    return SqliteStorage(target, durability=durability, read_only=read_only)


def writer_lock(location: str | Path) -> WriterLock | None:
    """The lock a server takes on a SQLite ``location`` (one server per file); None for
    PostgreSQL, where the world leases keep the servers apart."""
    kind, target = parse(location)
    return WriterLock(target) if kind == "sqlite" else None


async def using(location: str | Path, job: Callable[[Storage], Awaitable[T]]) -> T:
    """Open the database, run ``job`` on it, close it."""
    store = await open_storage(location)
    try:
        return await job(store)
    finally:
        await store.close()


def run_blocking(location: str | Path, job: Callable[[Storage], Awaitable[T]]) -> T:
    """:func:`using` from synchronous code (the CLI, ``create_world``): in a loop of its own,
    in another thread if this one runs an event loop already."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(using(location, job))
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(using(location, job))).result()


__all__ = [
    "DatabaseInUse",
    "Lease",
    "LeaseKeeper",
    "LogRow",
    "LogSize",
    "NotOwner",
    "Storage",
    "StoreError",
    "WorldLog",
    "WorldRecord",
    "WorldSummary",
    "default_node_id",
    "describe",
    "hide_password",
    "open_storage",
    "parse",
    "run_blocking",
    "using",
    "writer_lock",
]
