"""Schema versions and the ordered upgrades of each backend."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from typing import Any

import pytest
from vttbridge.adapters.bridge.storage import StoreError, open_storage, parse
from vttbridge.adapters.bridge.storage.migrations import POSTGRES, SQLITE, Schema

from tests.bridge.storage.conftest import query
from tests.bridge.test_persistence import to_schema_1


def shape(path) -> dict[str, Any]:
    """Every table's columns and indexes, as SQLite describes them."""
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"
        )]  # fmt: skip
        return {
            t: (
                conn.execute(f"PRAGMA table_info({t})").fetchall(),
                sorted(r[1:3] for r in conn.execute(f"PRAGMA index_list({t})")),
                conn.execute(
                    "SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE name=?", (t,)
                ).fetchone(),
            )
            for t in tables
        }
    finally:
        conn.close()


async def test_a_sqlite_file_upgraded_from_schema_1_is_a_new_file(tmp_path):
    old, new = tmp_path / "old.sqlite3", tmp_path / "new.sqlite3"
    for path in (old, new):
        store = await open_storage(path)
        await store.close()
    to_schema_1(old)
    store = await open_storage(old)
    await store.close()
    assert shape(old) == shape(new)
    assert set(shape(new)) == {
        "meta", "worlds", "log", "snapshots", "suspects", "leases", "archives"
    }  # fmt: skip


def step(schema: Schema, sql: str) -> Schema:
    """``schema`` with one more version, reached by ``sql``."""
    upgrades = dict(schema.upgrades)
    upgrades[schema.version] = sql
    return replace(schema, version=schema.version + 1, upgrades=upgrades)


async def migrate(database: Any, schema: Schema) -> None:
    kind, target = parse(database)
    if kind == "sqlite":
        from vttbridge.adapters.bridge.storage import sqlite

        conn = sqlite.connect(target)
        try:
            sqlite.migrate(conn, target, schema)
        finally:
            conn.close()
        return
    from vttbridge.adapters.bridge.storage import postgres

    conn = await postgres.connect(target)
    try:
        await postgres.migrate(conn, target, schema)
    finally:
        await conn.close()


def current(database: Any) -> Schema:
    return SQLITE if parse(database)[0] == "sqlite" else POSTGRES


async def version(database: Any) -> int:
    ((value,),) = await query(database, "SELECT value FROM meta WHERE key = 'schema'")
    return int(value)


async def test_upgrades_run_in_order_once(database):
    store = await open_storage(database)
    await store.create_world("w", "gm", "obs")
    await store.close()
    base = current(database)
    later = step(step(base, "ALTER TABLE worlds ADD COLUMN motto TEXT"),
                 "UPDATE worlds SET motto = 'ready'")  # fmt: skip
    await migrate(database, later)
    assert await version(database) == base.version + 2
    assert await query(database, "SELECT name, motto FROM worlds") == [("w", "ready")]
    await migrate(database, later)  # at its version: nothing runs again
    assert await query(database, "SELECT name, motto FROM worlds") == [("w", "ready")]
    with pytest.raises(StoreError, match=f"schema {base.version + 2}; this one reads"):
        await open_storage(database)  # this vttbridge's schema is older now


async def test_a_failing_upgrade_leaves_the_database_as_it_was(database):
    store = await open_storage(database)
    await store.create_world("w", "gm", "obs")
    await store.close()
    base = current(database)
    broken = step(step(base, "ALTER TABLE worlds ADD COLUMN motto TEXT"), "SELECT * FROM nowhere")
    with pytest.raises(Exception, match="nowhere"):
        await migrate(database, broken)
    assert await version(database) == base.version
    columns = await query(
        database,
        "SELECT name FROM pragma_table_info('worlds')"
        if parse(database)[0] == "sqlite"
        else "SELECT column_name FROM information_schema.columns WHERE table_name = 'worlds'"
        " AND table_schema = current_schema()",
    )
    assert ("motto",) not in columns
    store = await open_storage(database)  # and this vttbridge still opens it
    assert [w.name for w in await store.worlds()] == ["w"]
    await store.close()


def test_a_version_without_its_upgrade_is_refused():
    with pytest.raises(StoreError, match="cannot upgrade"):
        SQLITE.plan(0, "the file")
    assert [v for v, _ in SQLITE.plan(1, "the file")] == [2, 3, 4]
    assert [v for v, _ in SQLITE.plan(None, "the file")] == [SQLITE.version]
