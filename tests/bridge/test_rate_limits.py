"""The per-world rate limit, besides the per-connection one: many connections of one world
share one budget (``--world-rate``/``--world-burst``)."""

from __future__ import annotations

import asyncio

from vttbridge.adapters.bridge.ratelimit import TokenBucket

from tests.bridge.conftest import TableClient, scene, start_server


async def _flood(clients: list[TableClient], per_client: int, tag: str) -> list[dict]:
    return await asyncio.gather(
        *(
            c.send("tokenMoved", {"id": f"{tag}-{ci}-{i}", "token": "nobody", "x": 0, "y": 0})
            for ci, c in enumerate(clients)
            for i in range(per_client)
        )
    )


async def test_connections_of_one_world_share_its_limit(db, worlds):
    # each connection alone is far under its own limit (burst 200); together they are not
    server = await start_server(db, rate=100, burst=200, world_rate=1, world_burst=30)
    clients = [TableClient() for _ in range(5)]
    other = TableClient()
    try:
        for c in clients:
            await c.connect(server.url, "table1", worlds["table1"][0])
        assert (await clients[0].send("snapshot", scene()))["ok"]
        await other.connect(server.url, "table2", worlds["table2"][0])
        acks = await _flood(clients, 20, "w")
        codes = [a["error"]["code"] for a in acks]
        limited = [a for a in acks if a["error"]["code"] == "rate_limited"]
        assert set(codes) == {"unknown_token", "rate_limited"}
        assert 60 <= len(limited) <= 71  # 29 got through (the snapshot took 1), and a few more
        assert "for world 'table1' from all its connections" in limited[0]["error"]["message"]
        # another world has its own budget
        assert (await other.send("snapshot", scene()))["ok"]
        assert all(a["error"]["code"] == "unknown_token" for a in await _flood([other], 20, "o"))
    finally:
        for c in (*clients, other):
            await c.close()
        await server.stop()


async def test_the_world_limit_follows_the_connection_limit_unless_set(db, worlds):
    # --rate 0 (no limit) means no world limit either, unless --world-rate sets one
    server = await start_server(db, rate=0)
    clients = [TableClient() for _ in range(3)]
    try:
        for c in clients:
            await c.connect(server.url, "table1", worlds["table1"][0])
        acks = await _flood(clients, 300, "n")
        assert {a["error"]["code"] for a in acks} == {"unknown_token"}
    finally:
        for c in clients:
            await c.close()
        await server.stop()


def test_a_bucket_refills_on_its_clock():
    now = [0.0]
    bucket = TokenBucket(rate=2, burst=3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(3)] == [0, 0, 0]
    assert bucket.take() == 0.5 and bucket.wait() == 0.5  # half a second to the next token
    now[0] += 0.25
    assert bucket.take() == 0.25
    now[0] += 0.25
    assert bucket.take() == 0 and bucket.wait() == 0.5
    now[0] += 60  # refilled up to its burst, no further
    assert [bucket.take() for _ in range(4)] == [0, 0, 0, 0.5]
    bucket.drain()  # nothing left to spend: nothing changes
    assert bucket.wait() == 0.5
