"""World ownership: leases, fences, and the writes a takeover refuses."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from vttbridge.adapters.bridge.storage import NotOwner, Storage, StoreError, open_storage, parse

from tests.bridge.storage.conftest import query


def lost_reports(store: Storage) -> list[tuple[str, int, StoreError]]:
    lost: list[tuple[str, int, StoreError]] = []
    store.on_lost = lambda world, fence, why: lost.append((world, fence, why))
    return lost


async def test_one_owner_at_a_time(nodes: tuple[Storage, Storage]):
    a, b = nodes
    await a.create_world("w", "gm", "obs")
    first = await a.acquire("w", "node-a", 30)
    assert first is not None and first.fence == 1
    assert await b.acquire("w", "node-b", 30) is None  # held, not expired
    owner = await b.owner("w")
    assert owner is not None and (owner.node, owner.fence) == ("node-a", 1)

    (renewed,) = await a.renew([first], 60)
    assert renewed.fence == 1 and renewed.expires > first.expires
    await a.release(renewed)
    assert await b.owner("w") is None
    taken = await b.acquire("w", "node-b", 30)  # free again at once
    assert taken is not None and taken.fence == 2
    assert await a.renew([renewed], 30) == []  # a released lease is not renewed


async def test_a_takeover_fences_out_the_old_owner(nodes: tuple[Storage, Storage], database):
    a, b = nodes
    lost = lost_reports(a)
    await a.create_world("w", "gm", "obs")
    old = await a.acquire("w", "node-a", 0)  # expires at once: as if node-a had paused
    assert old is not None
    log_a = a.log(old)
    log_a.event(1, "e1", "tokenMoved", "{}")
    await log_a.barrier()

    new = await b.acquire("w", "node-b", 30)
    assert new is not None and new.fence == old.fence + 1
    log_b = b.log(new)
    log_b.event(2, "e2", "tokenMoved", "{}")
    await log_b.barrier()

    # node-a resumes and writes what it had in hand: refused, nothing of it stored
    log_a.event(3, "late", "tokenMoved", "{}")
    log_a.snapshot(3, "{}")
    with pytest.raises(NotOwner, match=r"world 'w' is no longer owned by this node") as refused:
        await log_a.barrier()
    assert (refused.value.world, refused.value.fence, refused.value.current) == ("w", 1, 2)
    assert [(w, f) for w, f, _ in lost] == [("w", 1)]
    assert await a.renew([old], 30) == []

    rows = await b.log_after("w", 0)
    assert [(r.seq, r.event_id, r.fence) for r in rows] == [(1, "e1", 1), (2, "e2", 2)]
    assert await b.latest_snapshot("w") is None
    # the new owner's rows still go in, in the same commit as the refused ones would have
    log_b.event(3, "e3", "tokenMoved", "{}")
    log_a.event(4, "later", "tokenMoved", "{}")
    await log_b.barrier()
    assert never_two_owners_at_once(await b.log_after("w", 0))
    assert [r.event_id for r in await b.log_after("w", 0)] == ["e1", "e2", "e3"]
    assert await query(database, "SELECT fence FROM leases WHERE world = 'w'") == [(2,)]


def never_two_owners_at_once(rows: list[Any]) -> bool:
    """The log of a world processed by one node at a time: seqs increase one by one, and
    the fences never go back."""
    seqs, fences = [r.seq for r in rows], [r.fence for r in rows]
    return seqs == list(range(seqs[0], seqs[0] + len(seqs))) and fences == sorted(fences)


async def test_every_acquisition_is_a_new_fence(nodes: tuple[Storage, Storage]):
    """Acquiring again (the same node, after a restart) fences out what the earlier lease
    left queued."""
    a, _ = nodes
    await a.create_world("w", "gm", "obs")
    first = await a.acquire("w", "node-a", 30)
    second = await a.acquire("w", "node-a", 30)
    assert first is not None and second is not None and second.fence == first.fence + 1
    stale = a.log(first)
    stale.event(1, "old", "tokenMoved", "{}")
    with pytest.raises(NotOwner):
        await stale.barrier()
    assert await a.log_after("w", 0) == []


async def test_one_worlds_takeover_leaves_the_others_rows(nodes: tuple[Storage, Storage]):
    """One commit holds many worlds' rows: only the fenced-out world's are refused."""
    a, b = nodes
    for name in ("w", "v"):
        await a.create_world(name, "gm", "obs")
    w = a.log(await a.acquire("w", "node-a", 0))
    v = a.log(await a.acquire("v", "node-a", 30))
    assert await b.acquire("w", "node-b", 30) is not None
    w.event(1, "w1", "tokenMoved", "{}")
    v.event(1, "v1", "tokenMoved", "{}")
    results = await asyncio.gather(w.barrier(), v.barrier(), return_exceptions=True)
    assert isinstance(results[0], NotOwner) and results[1] is None
    assert [r.event_id for r in await a.log_after("v", 0)] == ["v1"]
    assert await a.log_after("w", 0) == []


@pytest.fixture
async def pg_nodes(postgres_url: str) -> AsyncIterator[tuple[Storage, Storage]]:
    """Two nodes' storages of one PostgreSQL database."""
    a, b = await open_storage(postgres_url), await open_storage(postgres_url)
    yield a, b
    await a.close()
    await b.close()


async def test_a_takeover_waits_for_the_commit_in_flight(pg_nodes, postgres_url):
    """node-a's commit has locked the lease row (FOR SHARE) when node-b tries to take the
    world: node-b waits until that commit is done, so the rows of node-a's last commit are
    in the log before node-b reads it, and node-a's next commit is refused."""
    import asyncpg

    a, b = pg_nodes
    database = postgres_url
    await a.create_world("w", "gm", "obs")
    lease = await a.acquire("w", "node-a", 0)
    # Another session holds seq 1 of world w, uncommitted: node-a's insert of seq 1 waits on it
    # with the lease row already locked, a commit in flight for as long as we like.
    blocker = await asyncpg.connect(parse(database)[1])
    try:
        hold = blocker.transaction()
        await hold.start()
        await blocker.execute("INSERT INTO log VALUES ('w', 1, 'event', 'b', 'x', '{}', 0, 0)")
        log_a = a.log(lease)
        log_a.event(1, "e1", "tokenMoved", json.dumps({"event": {}}))
        committed = log_a.barrier()
        await waiting_on_a_lock(database, "INSERT INTO log")
        takeover = asyncio.ensure_future(b.acquire("w", "node-b", 30))
        await waiting_on_a_lock(database, "INSERT INTO leases")
        assert not committed.done() and not takeover.done()

        await hold.rollback()  # node-a's insert goes on, its commit ends; then the takeover
        await committed
        new = await takeover
    finally:
        await blocker.close()  # a failed test must not leave node-a's commit stuck
    assert new is not None and new.fence == lease.fence + 1
    assert [(r.event_id, r.fence) for r in await b.log_after("w", 0)] == [("e1", lease.fence)]
    log_a.event(2, "e2", "tokenMoved", "{}")
    with pytest.raises(NotOwner):
        await log_a.barrier()


async def waiting_on_a_lock(database: Any, statement: str) -> None:
    """Wait until a session of the database waits on a lock in ``statement``."""
    async with asyncio.timeout(10):
        while not await query(
            database,
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
            statement + "%",
        ):
            await asyncio.sleep(0.01)


async def test_expiry_is_the_database_clock(pg_nodes, postgres_url):
    store, database = pg_nodes[0], postgres_url
    await store.create_world("w", "gm", "obs")
    lease = await store.acquire("w", "node-a", 3600)
    assert lease is not None
    ((now,),) = await query(database, "SELECT extract(epoch FROM now())::float8")
    assert now + 3590 < lease.expires < now + 3610
    ((stored,),) = await query(
        database, "SELECT extract(epoch FROM expires)::float8 FROM leases WHERE world = 'w'"
    )
    assert stored == pytest.approx(lease.expires)
