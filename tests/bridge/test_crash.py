"""kill -9 in the middle of a stream: what was acknowledged survives, missed commands arrive
once, and a client re-sending its unacknowledged events gets each applied exactly once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import urllib.request
from pathlib import Path

import pytest
from vttbridge.adapters.bridge.server import create_world

from tests.bridge.conftest import TableClient, logged, scene, start_serve

pytestmark = pytest.mark.slow  # servers killed mid-stream and restarted


def http_state(url: str, key: str) -> dict:
    req = urllib.request.Request(f"{url}/api/worlds/table1/state", headers={"X-World-Key": key})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read())


def event(i: int) -> tuple[str, dict]:
    """Even: move Kevin to column i (so his position says which move came last); odd: a chat
    command that produces a command."""
    if i % 2 == 0:
        return "tokenMoved", {"id": f"e{i}", "token": "kevin", "x": 100 * i, "y": 0}
    return "chat", {"id": f"e{i}", "text": "!help", "role": "gm"}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_sigkill_mid_stream(tmp_path: Path, request, backend: str):
    db = (
        tmp_path / "crash.sqlite3"
        if backend == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    key, _ = create_world(db, "table1")
    # the same node name after the restart: it takes its worlds back at once, without
    # waiting for the lease of the node that was killed to expire
    serve = ("--node-id", "crash-test")
    proc, url = await start_serve(db, *serve)
    n = 400
    acked: dict[int, int] = {}
    client = TableClient()
    try:
        await client.connect(url, "table1", key)
        assert (await client.send("snapshot", scene()))["ok"]

        async def send(i: int) -> None:
            name, payload = event(i)
            try:
                ack = await client.send(name, payload, timeout=1)
            except Exception:
                return  # the server died before answering: not acknowledged
            if ack.get("ok"):
                acked[i] = ack["seq"]

        window = 8  # keep events in flight, as a busy table does
        tasks: list[asyncio.Task] = []
        for i in range(n):
            tasks.append(asyncio.create_task(send(i)))
            if i >= window:
                await tasks[i - window]
            if i == n // 2:
                os.kill(proc.pid, signal.SIGKILL)  # mid-stream, with events in flight
        await asyncio.gather(*tasks)
        proc.wait(10)
    finally:
        await client.close()
        if proc.poll() is None:
            proc.kill()
    assert 0 < len(acked) < n
    got_before = {c["seq"] for c in client.commands}

    # 1. the log holds every acknowledged event, in the order sent, each once
    ids, command_seqs = logged(db)
    assert len(ids) == len(set(ids))
    order = [int(e[1:]) for e in ids if e.startswith("e")]
    assert order == sorted(order)
    assert set(acked) <= set(order)

    proc, url = await start_serve(db, *serve)
    try:
        # 2. the state is the log's: Kevin stands where the last logged move put him
        state = await asyncio.to_thread(http_state, url, key)
        last_move = max(i for i in order if i % 2 == 0)
        assert state["tokens"]["kevin"]["cell"] == [last_move, 0]

        # 3. the reconnecting client gets each command it missed, once
        applied = max(got_before, default=0)
        back = TableClient()
        await back.connect(url, "table1", key, last_seq=applied)
        missing = [s for s in command_seqs if s > applied]
        assert [c["seq"] for c in await back.caught_up()] == missing

        # 4. re-sending everything unacknowledged applies each event exactly once
        for i in range(n):
            if i not in acked:
                name, payload = event(i)
                ack = await back.send(name, payload)
                assert ack["ok"], ack
        ids, _ = logged(db)
        assert sorted(i for i in ids if i.startswith("e")) == sorted(f"e{i}" for i in range(n))
        state = await asyncio.to_thread(http_state, url, key)
        assert state["tokens"]["kevin"]["cell"] == [n - 2, 0]  # the last move (n is even)
        await back.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
