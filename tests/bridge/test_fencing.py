"""Two ``vttbridge serve`` nodes on one PostgreSQL: a world has one owner at a time, and a
paused owner that resumes after the other node took the world over writes nothing more."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
import socketio
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import run_blocking

from tests.bridge.conftest import CLIENT, TableClient, printed, refused, scene, start_serve

pytestmark = pytest.mark.slow  # servers paused past their lease


def move(i: int) -> dict:
    return {"id": f"mv-{i}", "token": "kevin", "x": 100 * i, "y": 0}


async def connect_when_owned(url: str, key: str) -> TableClient:
    """Connect to the node at ``url`` once it may take the world (refused with
    ``world_unavailable`` while another node's lease runs)."""
    async with asyncio.timeout(20):
        while True:
            client = TableClient()
            try:
                return await client.connect(url, "table1", key)
            except socketio.exceptions.ConnectionError:
                await client.close()
                await asyncio.sleep(0.1)


async def test_a_paused_owner_is_fenced_out(postgres_url):
    db = postgres_url
    key, _ = create_world(db, "table1")
    lease = ("--lease-ttl", "1")
    node_a, url_a = await start_serve(db, "--node-id", "node-a", *lease, output=(out_a := []))
    node_b = None
    clients: list[TableClient] = []
    try:
        at_a = await TableClient().connect(url_a, "table1", key)
        clients.append(at_a)
        assert (await at_a.send("snapshot", scene()))["ok"]
        for i in range(5):
            assert (await at_a.send("tokenMoved", move(i)))["ok"]

        os.kill(node_a.pid, signal.SIGSTOP)  # paused: its lease runs out unrenewed
        node_b, url_b = await start_serve(db, "--node-id", "node-b", *lease)
        at_b = await connect_when_owned(url_b, key)
        clients.append(at_b)
        for i in range(5, 10):
            ack = await at_b.send("tokenMoved", move(i))
            assert ack["ok"], ack

        # node-a resumes with an event of its client in hand
        late = asyncio.ensure_future(at_a.send_unless_closed("tokenMoved", move(99)))
        os.kill(node_a.pid, signal.SIGCONT)
        ack = await late  # refused, or (None) node-a closed the connection first
        assert ack is None or ack["ok"] is False, ack
        # refused by the fence (not by a seq already taken: the database's own guard)
        await printed(out_a, "World 'table1' is unloaded: world 'table1' is no longer owned")

        # node-a does not take it back while node-b holds it
        message, data = await refused(url_a, {"world": "table1", "key": key, "client": CLIENT})
        assert data.get("code") == "world_unavailable" and "node-b" in message, message

        # the world carries on at node-b, and the log shows one owner at a time
        ack = await at_b.send("tokenMoved", move(10))
        assert ack["ok"], ack
        rows = run_blocking(db, lambda store: store.log_after("table1", 0))
        seqs, fences = [r.seq for r in rows], [r.fence for r in rows]
        assert seqs == list(range(1, len(rows) + 1))
        assert fences == sorted(fences) and fences[0] < fences[-1]
        moves = [r.event_id for r in rows if r.kind == "event" and r.event_id.startswith("mv-")]
        assert moves == [f"mv-{i}" for i in range(11)]  # the paused node's late move is not
        by_fence = {r.event_id: r.fence for r in rows if r.kind == "event"}
        assert {by_fence[f"mv-{i}"] for i in range(5)} == {fences[0]}
        assert {by_fence[f"mv-{i}"] for i in range(5, 11)} == {fences[-1]}
    finally:
        for c in clients:
            await c.close()
        for proc in (node_a, node_b):
            if proc is not None and proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)
                proc.send_signal(signal.SIGTERM)
                proc.wait(15)
