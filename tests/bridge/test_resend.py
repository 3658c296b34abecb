"""Commands missed while a client was away are re-sent after it reconnects, each exactly once."""

from __future__ import annotations

import asyncio
import sqlite3

from vttbridge.adapters.bridge.config import WorldConfig

from tests.bridge.conftest import TableClient, acknowledged, scene, start_server


def command_seqs(db, world: str = "table1") -> list[int]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT seq FROM log WHERE world=? AND kind='command' ORDER BY seq", (world,)
        )
        return [r[0] for r in rows]
    finally:
        conn.close()


async def help_(c: TableClient, eid: str) -> dict:
    return await c.send("chat", {"id": eid, "text": "!help", "role": "gm"})


async def test_missed_commands_resent_once_in_order(server, worlds, gm, client_factory):
    key = worlds["table1"][0]
    await help_(gm, "h0")
    await gm.wait_commands(1)
    seen = gm.last_seq
    await gm.close()

    other = await client_factory().connect(server.url, "table1", key, last_seq=seen)
    for i in range(3):
        assert (await help_(other, f"h{i + 1}"))["ok"]
    await other.wait_commands(3)
    missed = [c["seq"] for c in other.commands]
    await other.close()

    back = await client_factory().connect(server.url, "table1", key, last_seq=seen)
    assert [c["seq"] for c in await back.caught_up()] == missed


async def test_unacknowledged_commands_resent_without_last_seq(server, worlds, client_factory):
    key = worlds["table1"][0]
    silent = await client_factory(ack=False).connect(server.url, "table1", key)
    await silent.send("snapshot", scene())
    await help_(silent, "h1")
    await help_(silent, "h2")
    await silent.wait_commands(2)
    await silent.close()
    # a client that does not say where it was starts after the last acknowledged command
    again = await client_factory().connect(server.url, "table1", key)
    assert await again.caught_up() == silent.commands
    await acknowledged(server, again)
    await again.close()
    # ...and those are acknowledged now: nothing comes a third time
    third = await client_factory().connect(server.url, "table1", key)
    assert await third.caught_up() == []


async def test_reconnects_during_a_stream_lose_and_repeat_nothing(
    server, worlds, gm, db, client_factory
):
    key = worlds["table1"][0]
    start = server.bridge.worlds["table1"].seq
    received: list[dict] = []
    writer = await client_factory().connect(server.url, "table1", key, last_seq=start)

    async def stream() -> None:
        for i in range(40):
            assert (await help_(writer, f"s{i}"))["ok"]

    task = asyncio.create_task(stream())
    last = start
    for _ in range(5):  # drop and come back while commands keep coming
        c = TableClient()
        await c.connect(server.url, "table1", key, last_seq=last)
        await asyncio.sleep(0.05)
        await c.close()
        received.extend(c.commands)
        last = max([last] + [m["seq"] for m in c.commands])
    await task
    final = TableClient()
    await final.connect(server.url, "table1", key, last_seq=last)
    received.extend(await final.caught_up())
    end = final.last_seq  # the marker's: every command of the stream is before it
    await final.close()

    seqs = [m["seq"] for m in received]
    assert len(seqs) == len(set(seqs)), "a command arrived twice"
    assert seqs == sorted(seqs)
    assert seqs == [s for s in command_seqs(db) if start < s < end]
    assert len(seqs) == 40


async def test_old_commands_come_from_the_database(db, worlds):
    server = await start_server(db, world=WorldConfig(recent_commands=2))
    key = worlds["table1"][0]
    try:
        c = await TableClient().connect(server.url, "table1", key)
        await c.send("snapshot", scene())
        for i in range(6):
            await help_(c, f"h{i}")
        await c.wait_commands(6)
        await c.close()
        back = await TableClient().connect(server.url, "table1", key, last_seq=0)
        assert await back.caught_up() == c.commands
        await back.close()
    finally:
        await server.stop()


async def test_client_ahead_of_server_gets_only_new_commands(server, worlds, gm, client_factory):
    key = worlds["table1"][0]
    c = await client_factory().connect(server.url, "table1", key, last_seq=10_000)
    await help_(c, "h-new")
    assert len(await c.caught_up()) == 1
