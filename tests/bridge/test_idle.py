"""Idle means idle: a ``vttbridge serve`` whose clients are connected and silent, as a table
is between turns, uses almost no CPU, however the world got there (fresh, woken from sleep,
rebuilt after a restart, taken over from a dead node) and however many worlds sleep.

Each test measures the server process's own CPU time (``/proc``, Linux) over a few seconds in
which nothing is sent: under 2 % of one core with a client connected, under 1 % with only
sleeping worlds. What runs while nothing happens is bounded by design: the sweeper (every
``min(30, sleep_after / 4, snapshot_quiet / 2)`` s, over the loaded worlds only), the key
check (every ``key_check_interval`` s, one query, only while connections are open), the
websocket pings (every ``ping_interval`` s per connection), the lease renewal (every third of
``lease_ttl``, one query for all of a node's worlds) and the SQLite writer and checkpoint
threads (blocked on their queues)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from vttbridge.adapters.bridge.outbox import Outbox
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import open_storage

from tests.bridge.conftest import TableClient, printed, scene, start_serve
from tests.bridge.test_cluster import LEASE, Player, nodes  # noqa: F401

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
    pytest.mark.slow,
]

QUIET = 5.0  # seconds measured
BUSY_CORE = 0.02  # at most this share of one core with a client connected
ASLEEP_CORE = 0.01  # ... with every world asleep and no client


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def core_share(proc: subprocess.Popen, seconds: float = QUIET) -> float:
    """The share of one core ``proc`` uses over ``seconds`` in which this test sends nothing,
    once what the last event set going has settled (acks, a snapshot; the collection and the
    heap given back once worlds sleep, 100-160 ms of CPU that on a loaded machine runs past a
    fixed half second): the first half second without a tick of CPU, within 10 s. A process
    that spins never has one, and is measured as it is."""
    settle_by = time.monotonic() + 10.0
    while time.monotonic() < settle_by:
        before = cpu_seconds(proc.pid)
        await asyncio.sleep(0.5)
        if cpu_seconds(proc.pid) == before:
            break
    cpu, t = cpu_seconds(proc.pid), time.monotonic()
    await asyncio.sleep(seconds)
    return (cpu_seconds(proc.pid) - cpu) / (time.monotonic() - t)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def move(i: int) -> dict:
    return {"id": f"mv-{i}", "token": "kevin", "x": 100 + 100 * i, "y": 100}


async def test_a_fresh_world_with_a_silent_client(db: Path):
    key, _ = create_world(db, "table1")
    proc, url = await start_serve(db)
    gm = await TableClient().connect(url, "table1", key)
    try:
        assert (await gm.send("snapshot", scene()))["ok"]
        assert (await gm.send("tokenMoved", move(1)))["ok"]
        share = await core_share(proc)
    finally:
        await gm.close()
        stop(proc)
    print(f"idle CPU: {share:.2%} of a core")
    assert share < BUSY_CORE, f"{share:.1%} of a core while nothing happens"


async def test_a_woken_world_with_a_silent_client(db: Path):
    """The world falls asleep once its client leaves; the GM comes back, moves once (no
    command follows: the log ends with an event) and stays connected."""
    key, _ = create_world(db, "table1")
    out: list[str] = []
    proc, url = await start_serve(db, "--sleep-after", "0.5", output=out)
    try:
        gm = await TableClient().connect(url, "table1", key)
        assert (await gm.send("snapshot", scene()))["ok"]
        await gm.close()
        await printed(out, "World 'table1' saved and asleep")
        gm = await TableClient().connect(url, "table1", key)
        try:
            assert (await gm.send("tokenMoved", move(1)))["ok"]
            share = await core_share(proc)
        finally:
            await gm.close()
    finally:
        stop(proc)
    print(f"idle CPU: {share:.2%} of a core")
    assert share < BUSY_CORE, f"{share:.1%} of a core while nothing happens"


async def test_a_restarted_server_with_a_silent_client(db: Path):
    key, _ = create_world(db, "table1")
    proc, url = await start_serve(db)
    gm = await TableClient().connect(url, "table1", key)
    try:
        assert (await gm.send("snapshot", scene()))["ok"]
        assert (await gm.send("tokenMoved", move(1)))["ok"]
        last = gm.last_seq
    finally:
        await gm.close()
        stop(proc)
    proc, url = await start_serve(db)  # rebuilt from the log
    try:
        gm = await TableClient().connect(url, "table1", key, last_seq=last)
        try:
            assert (await gm.send("tokenMoved", move(2)))["ok"]
            share = await core_share(proc)
        finally:
            await gm.close()
    finally:
        stop(proc)
    print(f"idle CPU: {share:.2%} of a core")
    assert share < BUSY_CORE, f"{share:.1%} of a core while nothing happens"


async def test_many_sleeping_worlds_and_no_client(db: Path):
    n = 100
    worlds = {f"w{i:03d}": create_world(db, f"w{i:03d}")[0] for i in range(n)}
    out: list[str] = []
    proc, url = await start_serve(db, "--sleep-after", "0.5", output=out)
    try:
        sem = asyncio.Semaphore(20)

        async def visit(name: str, key: str) -> None:
            async with sem:
                c = await TableClient().connect(url, name, key)
                try:
                    assert (await c.send("snapshot", scene()))["ok"]
                finally:
                    await c.close()

        await asyncio.gather(*(visit(n, k) for n, k in worlds.items()))
        async with asyncio.timeout(30):
            while "".join(out).count("saved and asleep") < n:
                await asyncio.sleep(0.1)
        share = await core_share(proc)
    finally:
        stop(proc)
    print(f"idle CPU, {n} worlds asleep: {share:.2%} of a core")
    assert share < ASLEEP_CORE, f"{share:.1%} of a core with {n} worlds asleep"


async def test_a_survivor_after_a_failover_with_a_silent_client(postgres_url, nodes):  # noqa: F811
    """The owner is killed; the client's next event makes the survivor take the world over;
    then the client stays connected and silent."""
    key, obs = create_world(postgres_url, "table1")
    n0, n1 = await nodes(2)
    owner = await TableClient().connect(n0.url, "table1", obs)  # node-0 owns it
    gm = Player([n1.url], key)
    await gm.connect()
    try:
        await gm.send("snapshot", scene())
        await gm.send("tokenMoved", move(1))
        os.kill(n0.proc.pid, signal.SIGKILL)
        await gm.send("tokenMoved", move(2))  # waits for node-1 to take the world
        await printed(n1.output, "World 'table1' is served by this node now")
        share = await core_share(n1.proc)
        # and every world a node merely follows (no client, no owner here) costs nothing
    finally:
        await owner.close()
        await gm.close()
    print(f"idle CPU: {share:.2%} of a core")
    assert share < BUSY_CORE, f"{share:.1%} of a core while nothing happens"


async def test_a_reader_moves_past_events(tmp_path: Path):
    """The cursor of a connection is a log position: read from a cursor behind a run of
    events (no command after it), it comes back standing on the last published seq, so
    the command pump has nothing left to read and waits."""
    store = await open_storage(tmp_path / "w.sqlite3")
    try:
        await store.create_world("table1", "h1", "h2")
        lease = await store.acquire("table1", "node", 30)
        assert lease is not None
        rows = store.log(lease)
        rows.command(1, "chat.post", '{"data": {}}')
        for seq in range(2, 6):
            rows.event(seq, f"e{seq}", "tokenMoved", "{}")
        await rows.barrier()
        # as a world is loaded (a wake, a restart): the log ends at 5, the last command is 1
        box = Outbox("table1", store, rows, {}, seq=5, acked_seq=1, keep=100)
        batch = await box.after(1)
        assert batch.messages == [] and batch.upto == 5
        batch = await box.after(0)
        assert [m["seq"] for m in batch.messages] == [1] and batch.upto == 5
        batch = await box.after(0, limit=1)  # cut short by the limit: only past what it read
        assert batch.upto == 1
        assert (await box.after(5)).upto == 5
    finally:
        await store.close()
