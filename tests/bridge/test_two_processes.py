"""``vttbridge serve --processes 2``: the sockets in one process, the worlds in another, both
real, seen only from outside (sockets, HTTP, the database file, the processes)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from adapters.bridge.server import create_world
from tests.bridge.conftest import (
    CLIENT,
    TableClient,
    children,
    gone,
    logged,
    moves_in_parallel,
    printed,
    refused,
    scene,
    start_serve,
)

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="two processes are served on Linux only"
)


def http_get(url: str, key: str | None = None) -> tuple[int, object]:
    req = urllib.request.Request(url, headers={"X-World-Key": key} if key else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            body = r.read().decode()
            status = r.status
    except urllib.error.HTTPError as e:
        body, status = e.read().decode(), e.code
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body


def stop(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    return proc.wait(20)


@pytest.fixture
def keys(db: Path) -> tuple[str, str]:
    return create_world(db, "table1")


async def test_a_table_plays_through_two_processes(db, keys):
    gm_key, obs_key = keys
    out: list[str] = []
    proc, url = await start_serve(db, "--processes", "2", output=out)
    assert len(children(proc.pid)) == 1
    made: list[TableClient] = []
    try:
        # refused connects still say why
        _, data = await refused(url, {"world": "table1", "key": "vtt_gm_nope", "client": CLIENT})
        assert data["code"] == "wrong_key"
        _, data = await refused(url, {"world": "atlantis", "key": "k", "client": CLIENT})
        assert data["code"] == "unknown_world"

        gm = TableClient()
        made.append(gm)
        await gm.connect(url, "table1", gm_key)
        assert (await gm.send("snapshot", scene()))["ok"]

        # events in order under concurrency, each acknowledged with its seq
        n = 40
        seqs = await moves_in_parallel(gm, n)
        assert [i for i in logged(db)[0] if i.startswith("mv-")] == [f"mv-{i}" for i in range(n)]

        # a re-sent event is acknowledged again, applied once
        again = await gm.send("tokenMoved", {"id": "mv-3", "token": "kevin", "x": 0, "y": 0})
        assert again == {"ok": True, "seq": seqs[3], "duplicate": True}

        # bad input gets its code, and the world does not change
        bad = await gm.send("tokenMoved", {"id": "bad-1", "token": "kevin", "x": "far", "y": 0})
        assert bad["ok"] is False and bad["error"]["code"] == "wrong_type"
        status, state = await asyncio.to_thread(http_get, f"{url}/api/worlds/table1/state", gm_key)
        assert status == 200 and state["tokens"]["kevin"]["cell"] == [n - 1, 0]
        assert (await asyncio.to_thread(http_get, f"{url}/api/worlds/table1/state", "x"))[0] == 403

        # commands reach every connection of the world, in order; an observer only watches
        watcher = TableClient()
        made.append(watcher)
        await watcher.connect(url, "table1", obs_key)
        ro = await watcher.send("tokenMoved", {"id": "obs-1", "token": "kevin", "x": 0, "y": 0})
        assert ro["ok"] is False and ro["error"]["code"] == "read_only"
        for i in range(3):
            assert (await gm.send("chat", {"id": f"h{i}", "text": "!help", "role": "gm"}))["ok"]
        await gm.wait_commands(3)
        await watcher.wait_commands(3)
        assert watcher.commands == gm.commands
        command_seqs = [c["seq"] for c in gm.commands]
        assert command_seqs == sorted(command_seqs)

        # a client that comes back (over long-polling, this time) gets what it missed, once
        back = TableClient()
        made.append(back)
        await back.connect(url, "table1", gm_key, last_seq=command_seqs[0], transport="polling")
        assert [c["seq"] for c in await back.caught_up()] == command_seqs[1:]

        status, health = await asyncio.to_thread(http_get, f"{url}/healthz")
        assert status == 200 and health["ok"] and health["clients"] == 3
        assert "Worlds: 1" in (await asyncio.to_thread(http_get, f"{url}/status"))[1]
    finally:
        # the server first: it ends the long-poll the polling client would otherwise wait out
        code = await asyncio.to_thread(stop, proc)
        for c in made:
            await c.close()
    text = "".join(out)
    assert code == 0, text
    await printed(out, "Bridge stopped; every world is saved.")


async def test_stop_saves_every_world_and_the_next_start_replays_nothing(db, keys):
    gm_key, _ = keys
    proc, url = await start_serve(db, "--processes", "2")
    engine = children(proc.pid)
    gm = TableClient()
    try:
        await gm.connect(url, "table1", gm_key)
        assert (await gm.send("snapshot", scene()))["ok"]
        for i in range(5):
            move = {"id": f"mv-{i}", "token": "kevin", "x": 100 * i, "y": 0}
            assert (await gm.send("tokenMoved", move))["ok"]
    finally:
        await gm.close()
        assert stop(proc) == 0
    assert await gone(engine, timeout=10)
    out: list[str] = []
    proc, url = await start_serve(db, "--processes", "2", output=out)
    try:
        status, state = await asyncio.to_thread(http_get, f"{url}/api/worlds/table1/state", gm_key)
        assert status == 200 and state["tokens"]["kevin"]["cell"] == [4, 0]
        assert not any("replayed" in line for line in out), out  # the final snapshot held it
    finally:
        assert stop(proc) == 0


async def test_the_server_stops_when_its_world_engine_dies(db, keys):
    out: list[str] = []
    proc, _ = await start_serve(db, "--processes", "2", output=out)
    try:
        (engine,) = children(proc.pid)
        os.kill(engine, signal.SIGKILL)
        code = await asyncio.to_thread(proc.wait, 20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 1
    await printed(out, "The world engine stopped unexpectedly")


@pytest.mark.parametrize(
    ("processes", "until"),
    [("2", "Listening on"), ("1", "Bridge ready"), ("2", "Bridge ready")],
    ids=["serving", "starting-1", "starting-2"],
)
async def test_ctrl_c_reaches_both_and_stops_them_cleanly(db, keys, processes, until):
    """A terminal's Ctrl+C signals the whole process group: the engine must not die of it
    half-way, but stop when the socket process tells it to, after saving. One that comes
    while the worlds load (or just as the port is announced) does the same once the server is
    up: the signal handlers are installed before any of that. Before, the socket process
    died of it and left the engine running."""
    out: list[str] = []
    proc, _ = await start_serve(db, "--processes", processes, output=out, until=until)
    engine = children(proc.pid)
    for pid in (proc.pid, *engine):
        os.kill(pid, signal.SIGINT)
    code = await asyncio.to_thread(proc.wait, 20)
    assert code == 0, "".join(out)
    assert await gone(engine, timeout=10)
    await printed(out, "Bridge stopped; every world is saved.")


async def test_packets_and_keys_through_two_processes(db, keys):
    gm_key, _ = keys
    proc, url = await start_serve(db, "--processes", "2")
    gm = TableClient()
    try:
        await gm.connect(url, "table1", gm_key)
        # the socket process refuses what is no event before it reaches the engine
        assert (await gm.send("disconnect", {"id": "r1"}))["error"]["code"] == "reserved_event"
        assert (await gm.send("noop", {"id": "n1"}))["ok"]
        # a key reset by the CLI: the engine sees it, and the socket process closes the GM
        await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "adapters.bridge", "world", "reset-key", "table1",
             "--db", str(db)],
            check=True, capture_output=True,
        )  # fmt: skip
        async with asyncio.timeout(10):
            while gm.sio.connected:
                await asyncio.sleep(0.05)
        _, data = await refused(url, {"world": "table1", "key": gm_key, "client": CLIENT})
        assert data["code"] == "wrong_key"
        # wrong attempts are counted by the client's address, which the socket process passes:
        # that one and 9 more are let through, the 11th is not
        for i in range(9):
            _, data = await refused(url, {"world": f"w{i}", "key": "k", "client": CLIENT})
            assert data["code"] == "unknown_world"
        _, data = await refused(url, {"world": "w9", "key": "k", "client": CLIENT})
        assert data["code"] == "too_many_attempts"
    finally:
        await gm.close()
        assert stop(proc) == 0
