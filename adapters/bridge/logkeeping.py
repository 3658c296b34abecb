"""Keeping the worlds' logs, as ``vttbridge world log / retention / archive / vacuum`` do it:
each log's size, each world's retention, archiving now (``storage/archive.py``) and giving
the space back. Every one works while a server serves the database, but ``vacuum``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vttbridge.adapters.bridge.storage import (
    LogSize,
    Storage,
    StoreError,
    WriterLock,
    parse,
    run_blocking,
)
from vttbridge.adapters.bridge.storage.archive import ArchiveFile, Retention, default_folder


def archive_folder(database: str | Path, given: str | Path | None) -> Path:
    """Where new archive files go: ``given``, else beside a SQLite file; a PostgreSQL
    database has no beside, so it needs one (shared by every node that reads the logs)."""
    if given is not None:
        return Path(given)
    kind, target = parse(database)
    if kind != "sqlite":
        raise StoreError(
            "archiving a PostgreSQL database's logs needs --archive-dir DIR, a folder every "
            "node serving it can read"
        )
    return default_folder(target)


def sizes(database: str | Path) -> tuple[list[LogSize], int | None]:
    """Every world's log, and the SQLite file's size (None for PostgreSQL)."""

    async def read(store: Storage) -> list[LogSize]:
        return await store.log_sizes()

    kind, target = parse(database)
    rows = run_blocking(database, read)
    return rows, (Path(target).stat().st_size if kind == "sqlite" else None)


def set_retention(database: str | Path, world: str, retention: Retention) -> None:

    async def store_it(store: Storage) -> None:
        await store.set_retention(world, str(retention))

    run_blocking(database, store_it)


@dataclass
class Archived:
    files: dict[str, list[ArchiveFile]] = field(default_factory=dict)
    """Per world, the files written."""
    space: str = ""
    """What giving the space back did (``Storage.reclaim``)."""


def archive_now(
    database: str | Path,
    worlds: list[str] | None,
    folder: str | Path | None = None,
    retention: Retention | None = None,
) -> Archived:
    """Archive ``worlds`` (None: every world) by their retention, or by ``retention`` for
    all of them, then give the space back."""
    where = archive_folder(database, folder)

    async def run(store: Storage) -> Archived:
        names = worlds if worlds is not None else [r.name for r in await store.worlds()]
        out = Archived()
        for name in names:
            out.files[name] = await store.archive(name, where, retention)
        if any(out.files.values()):
            out.space = await store.reclaim()
        return out

    return run_blocking(database, run)


def vacuum(database: str | Path) -> str:
    """Rewrite a SQLite file compact, with incremental vacuum on from then on (a file made
    before vttbridge set it). Refused while a server serves the file."""
    kind, target = parse(database)
    if kind != "sqlite":
        raise StoreError(
            "vacuum is for SQLite files; a PostgreSQL database is vacuumed by its autovacuum "
            "(and `vttbridge world archive` runs VACUUM after archiving)"
        )
    from vttbridge.adapters.bridge.storage.sqlite import SqliteDatabase

    lock = WriterLock(target)
    lock.acquire()  # DatabaseInUse (a StoreError) while a server has the file
    try:
        db = SqliteDatabase(target)
        try:
            return db.vacuum()
        finally:
            db.close()
    finally:
        lock.release()
