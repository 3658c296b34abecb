"""What every backend must do: the same tests, once on SQLite and once on PostgreSQL."""

from __future__ import annotations

import asyncio
import json

import pytest
from vttbridge.adapters.bridge.storage import Storage, StoreError

from tests.bridge.storage.conftest import query


async def test_worlds_are_created_listed_and_rekeyed(store: Storage):
    rec = await store.create_world("campaign", "gm-1", "obs-1", {"system": "foe"})
    assert (rec.name, rec.options, rec.acked_seq, rec.adapter) == (
        "campaign",
        {"system": "foe"},
        0,
        None,
    )
    await store.create_world("another", "gm-2", "obs-2")
    with pytest.raises(StoreError, match="already exists"):
        await store.create_world("campaign", "x", "y")

    assert [w.name for w in await store.worlds()] == ["campaign", "another"]  # oldest first
    got = await store.world("campaign")
    assert got is not None and (got.gm_key_hash, got.options) == ("gm-1", {"system": "foe"})
    assert await store.world("nowhere") is None

    await store.set_key_hashes("campaign", "gm-new", "obs-new")
    assert await store.key_hashes() == {
        "campaign": ("gm-new", "obs-new"),
        "another": ("gm-2", "obs-2"),
    }
    with pytest.raises(StoreError, match="no world named 'nowhere'"):
        await store.set_key_hashes("nowhere", "a", "b")


async def test_the_log_keeps_events_and_commands_in_one_sequence(store: Storage):
    await store.create_world("w", "gm", "obs")
    lease = await store.acquire("w", "node-a", 30)
    assert lease is not None
    log = store.log(lease)
    for seq in range(1, 11):
        if seq % 3:
            body = json.dumps({"event": {"n": seq}, "effects": ["PostChat" if seq == 4 else "x"]})
            log.event(seq, f"e{seq}", "tokenMoved", body)
        else:
            log.command(seq, "chat", json.dumps({"data": {"text": f"c{seq}"}}))
    log.event(11, "e1", "tokenMoved", '{"event": {}}')  # e1 again: a later row of it
    await log.barrier()

    rows = await store.log_after("w", 0)
    assert [r.seq for r in rows] == list(range(1, 12))
    assert {r.fence for r in rows} == {lease.fence}
    assert rows[0].body == {"event": {"n": 1}, "effects": ["x"]} and rows[0].event_id == "e1"
    commands = await store.log_after("w", 4, kind="command", limit=2)
    assert [(r.seq, r.name, r.body["data"]["text"]) for r in commands] == [
        (6, "chat", "c6"),
        (9, "chat", "c9"),
    ]
    assert [r.seq for r in await store.log_after("w", 5, kind="event")] == [7, 8, 10, 11]
    assert await store.last_seq("w") == 11 and await store.last_seq("other") == 0
    assert await store.count_commands("w", 3, 9) == 2

    chat = await store.recent_events("w", 5, within=100, containing=("PostChat",))
    assert [r.seq for r in chat] == [4]
    recent = await store.recent_events("w", 3, within=5)
    assert [r.seq for r in recent] == [8, 10, 11]  # the last three events, oldest first
    ids = await store.recent_event_ids("w", 3)
    assert ids == [("e8", 8), ("e10", 10), ("e1", 11)]

    (summary,) = await store.summaries()
    assert (summary.name, summary.events, summary.commands, summary.last_seq) == ("w", 8, 3, 11)


async def test_a_large_batch_is_written_whole(store: Storage):
    """Hundreds of rows in one turn (a restart's bulk; PostgreSQL sends these by COPY)."""
    names = [f"w{i}" for i in range(3)]
    logs = []
    for name in names:
        await store.create_world(name, "gm", "obs")
        logs.append(store.log(await store.acquire(name, "node-a", 30)))
    for seq in range(1, 301):
        for log in logs:
            log.event(seq, f"e{seq}", "tokenMoved", json.dumps({"event": {"seq": seq}}))
    await asyncio.gather(*(log.barrier() for log in logs))
    for name in names:
        rows = await store.log_after(name, 0)
        assert [r.seq for r in rows] == list(range(1, 301))
        assert rows[-1].body == {"event": {"seq": 300}} and rows[-1].event_id == "e300"


async def test_a_seq_is_written_once(store: Storage):
    """The log is append-only: a row for a seq already logged fails the commit."""
    await store.create_world("w", "gm", "obs")
    lease = await store.acquire("w", "node-a", 30)
    log = store.log(lease)
    log.event(1, "e1", "tokenMoved", "{}")
    await log.barrier()
    log.event(1, "again", "tokenMoved", "{}")
    with pytest.raises(StoreError):
        await log.barrier()
    assert [r.event_id for r in await store.log_after("w", 0)] == ["e1"]


async def test_the_first_and_the_last_two_snapshots_are_kept(store: Storage, database):
    await store.create_world("w", "gm", "obs")
    await store.create_world("v", "gm", "obs")
    assert await store.latest_snapshot("w") is None
    w, v = (
        store.log(await store.acquire("w", "n", 30)),
        store.log(await store.acquire("v", "n", 30)),
    )
    for seq in (1, 5, 9):
        w.snapshot(seq, json.dumps({"at": seq}))
    v.snapshot(3, '{"v": 3}')
    await store.barrier()
    w.snapshot(12, '{"at": 12}')
    await store.barrier()
    assert await store.latest_snapshot("w") == (12, '{"at": 12}')
    assert await store.latest_snapshot("v") == (3, '{"v": 3}')
    kept = await query(database, "SELECT world, seq FROM snapshots ORDER BY world, seq")
    # the first holds the world's dice seed: a replay of the whole log starts from it
    assert kept == [("v", 3), ("w", 1), ("w", 9), ("w", 12)]
    assert await store.snapshots("w") == [(s, json.dumps({"at": s})) for s in (1, 9, 12)]
    assert await store.snapshots("nobody") == []


async def test_acks_adapters_and_rehash(store: Storage):
    await store.create_world("w", "old-gm", "old-obs")
    log = store.log(await store.acquire("w", "n", 30))
    log.acked(7)
    log.acked(5)  # an older ack arriving late never moves it back
    log.linked("foundry")
    store.rehash("w", "gm", "old-gm", "new-gm")
    store.rehash("w", "observer", "not-the-stored-one", "lost")  # a reset meanwhile stands
    await store.barrier()
    rec = await store.world("w")
    assert rec is not None
    assert (rec.acked_seq, rec.adapter) == (7, "foundry")
    assert (rec.gm_key_hash, rec.observer_key_hash) == ("new-gm", "old-obs")


async def test_suspects_are_marked_from_another_thread(store: Storage):
    await store.create_world("w", "gm", "obs")
    assert await store.suspects("w") == {}
    # the watchdog's thread, while the loop may be stuck in a script
    await asyncio.to_thread(store.mark_suspect_now, "w", "e9", "chat", "triggers.py:12")
    await asyncio.to_thread(store.mark_suspect_now, "w", "e9", "chat", "triggers.py:14")
    (got,) = (await store.suspects("w")).items()
    assert got[0] == "e9" and got[1][:2] == ("chat", "triggers.py:14")
    assert await store.suspects("other") == {}


async def test_a_database_of_a_newer_schema_is_refused(database):
    from vttbridge.adapters.bridge.storage import open_storage

    s = await open_storage(database)
    await s.close()
    await query(database, "UPDATE meta SET value='99' WHERE key='schema'")
    with pytest.raises(StoreError, match=r"newer vttbridge \(schema 99; this one reads schema \d"):
        await open_storage(database)


async def test_a_read_only_storage_reads_and_never_writes(database):
    """What ``vttbridge replay`` opens beside a running server: the engine's read-only mode,
    no writer, no upgrade."""
    from vttbridge.adapters.bridge.storage import open_storage

    s = await open_storage(database)
    await s.create_world("w", "gm", "obs")
    lease = await s.acquire("w", "n", 30)
    assert lease is not None
    log = s.log(lease)
    log.event(1, "e1", "chat", '{"event": {}}')
    log.snapshot(1, "{}")
    await s.barrier()
    ro = await open_storage(database, read_only=True)
    try:
        assert [r.event_id for r in await ro.log_after("w", 0)] == ["e1"]
        assert await ro.snapshots("w") == [(1, "{}")]
        with pytest.raises(StoreError, match="read-only"):
            ro.log(lease).event(2, "e2", "chat", "{}")
        with pytest.raises(StoreError):
            await ro.create_world("x", "gm", "obs")
        log.event(2, "e2", "chat", "{}")  # the server goes on writing beside it
        await s.barrier()
        assert [r.event_id for r in await ro.log_after("w", 0)] == ["e1", "e2"]
    finally:
        await ro.close()
        await s.close()
    assert [w for (w,) in await query(database, "SELECT name FROM worlds")] == ["w"]


async def test_a_read_only_storage_refuses_what_it_would_have_to_create(database, tmp_path):
    from vttbridge.adapters.bridge.storage import open_storage, parse

    if parse(database)[0] == "sqlite":
        with pytest.raises(StoreError, match="cannot open"):
            await open_storage(tmp_path / "missing.sqlite3", read_only=True)
        assert not (tmp_path / "missing.sqlite3").exists()
    else:  # a new schema, never upgraded
        with pytest.raises(StoreError, match="has schema None"):
            await open_storage(database, read_only=True)
