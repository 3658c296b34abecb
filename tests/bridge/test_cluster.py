"""Three ``vttbridge serve`` nodes on loopback, one PostgreSQL and one redis-server: a table
played across nodes, the owner killed mid-burst, a paused owner fenced out. Every check of
what was sent is against the log in PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from typing import Any

import pytest
import socketio
from vttbridge.adapters.bridge.cluster import Cluster, RemoteWorld
from vttbridge.adapters.bridge.outbox import row_body
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import LogRow, open_storage, run_blocking

from tests.bridge.conftest import TableClient, printed, scene, start_serve, start_server

pytestmark = pytest.mark.slow  # several nodes on PostgreSQL and Redis, owners paused and killed

LEASE = "1.5"  # seconds: a dead owner's worlds are taken over this soon
FORWARD = "1"  # seconds a forwarded event waits for the owner


class Node:
    def __init__(self, proc: subprocess.Popen, url: str, output: list[str]) -> None:
        self.proc, self.url, self.output = proc, url, output


@contextlib.asynccontextmanager
async def node_pool(postgres_url: str, redis_url: str, *settings: str) -> Any:
    """``start(n)`` starts nodes (with ``settings`` added) on one database and one Redis;
    all are stopped at the end."""
    started: list[Node] = []

    async def start(n: int = 3) -> list[Node]:
        for i in range(len(started), len(started) + n):
            out: list[str] = []
            proc, url = await start_serve(
                postgres_url, "--redis", redis_url, "--node-id", f"node-{i}", *settings,
                output=out,
            )  # fmt: skip
            started.append(Node(proc, url, out))
        return started

    try:
        yield start
    finally:
        for node in started:
            if node.proc.poll() is None:
                os.kill(node.proc.pid, signal.SIGCONT)
                node.proc.send_signal(signal.SIGTERM)
        for node in started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.proc.wait(15)
            if node.proc.poll() is None:
                node.proc.kill()


@pytest.fixture
async def nodes(postgres_url, redis_url):
    """Start nodes (``await start(n)``) with a short lease; stopped after."""
    async with node_pool(
        postgres_url, redis_url, "--lease-ttl", LEASE, "--forward-timeout", FORWARD
    ) as start:
        yield start


class Player:
    """A client that keeps playing through a failover: it reconnects (with its ``last_seq``)
    when its node closes the connection or is gone, and sends an event again until it is
    acknowledged (a refused connect or ``world_unavailable`` means: the world is moving)."""

    def __init__(self, urls: list[str], key: str, *, ack: bool = True) -> None:
        self.urls, self.key, self.ack = urls, key, ack
        self.client = TableClient(ack=ack)
        self.commands: list[dict[str, Any]] = []  # every command received, over every connection
        self.connects = 0
        self.refusals: list[dict] = []  # acks that were no ack (the companions drop those)
        self._connecting = asyncio.Lock()  # one connection at a time, however many events wait

    async def connect(self) -> None:
        async with self._connecting, asyncio.timeout(30):
            while not self.client.sio.connected:
                for url in self.urls:
                    client = TableClient(ack=self.ack)
                    client.commands = self.commands
                    try:
                        last = max((c["seq"] for c in self.commands), default=None)
                        await client.connect(url, "table1", self.key, last_seq=last)
                    except socketio.exceptions.ConnectionError:
                        await client.close()
                        continue
                    self.client = client
                    self.connects += 1
                    return
                await asyncio.sleep(0.1)

    async def send(self, event: str, payload: dict) -> dict:
        """Send until acknowledged; the ack."""
        async with asyncio.timeout(40):
            while True:
                if not self.client.sio.connected:
                    await self.connect()
                try:
                    ack = await self.client.send_unless_closed(event, payload, timeout=3)
                except (socketio.exceptions.TimeoutError, socketio.exceptions.BadNamespaceError):
                    ack = None  # no answer (its node paused or gone), or no longer connected
                if ack is None:
                    continue  # reconnect and send it again
                if ack.get("ok"):
                    return ack
                self.refusals.append(ack)
                await asyncio.sleep(0.05)

    async def close(self) -> None:
        await self.client.close()


def log_rows(db: str) -> list[LogRow]:
    return run_blocking(db, lambda store: store.log_after("table1", 0, limit=100_000))


def one_owner_at_a_time(rows: list[LogRow]) -> None:
    """The log was written by one node at a time: seqs without a gap or a repeat, and the
    fence (the lease a row was written under) never goes back."""
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    fences = [r.fence for r in rows]
    assert fences == sorted(fences), fences


def once_each(commands: list[dict], rows: list[LogRow], after: int = 0) -> None:
    """``commands`` (as a client got them) are the log's commands after ``after``, each once,
    in order."""
    assert [c["seq"] for c in commands] == [
        r.seq for r in rows if r.kind == "command" and r.seq > after
    ]


def move(i: int) -> dict:
    return {"id": f"mv-{i}", "token": "kevin", "x": 100 * (i % 20), "y": 0}


async def test_a_table_played_across_nodes(postgres_url, nodes):
    db = postgres_url
    gm_key, obs_key = create_world(db, "table1")
    n0, n1, n2 = await nodes(3)
    # the observer at node-0 is the world's first client: node-0 owns it
    watcher = await TableClient().connect(n0.url, "table1", obs_key)
    gm = await TableClient().connect(n1.url, "table1", gm_key)  # forwarded to node-0
    far = await TableClient().connect(n2.url, "table1", obs_key)
    try:
        assert (await gm.send("snapshot", scene()))["ok"]
        acks = [await gm.send("tokenMoved", move(i)) for i in range(10)]
        assert all(a["ok"] for a in acks), acks
        dup = await gm.send("tokenMoved", move(3))  # dedup at the owner, through the forward
        assert dup == {"ok": True, "seq": acks[3]["seq"], "duplicate": True}
        await gm.send("chat", {"id": "c1", "text": "!help", "role": "gm"})
        for c in (gm, watcher, far):
            await c.caught_up(via=gm)
        rows = log_rows(db)
        one_owner_at_a_time(rows)
        assert len({r.fence for r in rows}) == 1  # one owner all along
        for c in (gm, watcher, far):
            once_each(c.commands, rows)
        assert gm.commands  # the move commands and the chat replies reached every node
        # the GM's acks reached the owner, which saved them: a client that says nothing
        # resumes after them, at any node
        async with asyncio.timeout(5):
            while run_blocking(db, lambda store: store.world("table1")).acked_seq < gm.last_seq:
                await asyncio.sleep(0.05)
        again = await TableClient().connect(n2.url, "table1", gm_key)
        try:
            assert await again.caught_up(via=gm) == []
        finally:
            await again.close()
    finally:
        for c in (gm, watcher, far):
            await c.close()


async def test_the_owner_killed_mid_burst(postgres_url, nodes):
    db = postgres_url
    gm_key, obs_key = create_world(db, "table1")
    n0, n1, n2 = await nodes(3)
    owner_watch = await TableClient().connect(n0.url, "table1", obs_key)  # node-0 owns it
    far = Player([n2.url], obs_key)
    await far.connect()
    gm = Player([n1.url, n2.url], gm_key)
    await gm.connect()
    n = 120
    acked: dict[int, int] = {}
    try:
        await gm.send("snapshot", scene())

        async def play(i: int) -> None:  # moves, and every third a chat command (commands)
            if i % 3:
                acked[i] = (await gm.send("tokenMoved", move(i)))["seq"]
            else:
                chat = {"id": f"mv-{i}", "text": "!help", "role": "gm"}
                acked[i] = (await gm.send("chat", chat))["seq"]

        window = 6
        tasks: list[asyncio.Task] = []
        for i in range(n):
            tasks.append(asyncio.create_task(play(i)))
            if i >= window:
                await tasks[i - window]
            if i == n // 3:
                os.kill(n0.proc.pid, signal.SIGKILL)  # the owner, with events in flight
        await asyncio.gather(*tasks)
        await gm.send("chat", {"id": "end", "text": "!help", "role": "gm"})
        end = max(acked.values())
        rows = log_rows(db)
        last_command = max(r.seq for r in rows if r.kind == "command")
        for p in (gm, far):
            async with asyncio.timeout(20):
                while not p.commands or p.commands[-1]["seq"] < last_command:
                    await asyncio.sleep(0.05)
    finally:
        await owner_watch.close()
        await gm.close()
        await far.close()
    assert len(acked) == n and end > 0
    rows = log_rows(db)
    one_owner_at_a_time(rows)
    assert len({r.fence for r in rows}) == 2  # node-0, then the node that took over
    # 0 acknowledged events lost, none applied twice
    ids = [r.event_id for r in rows if r.kind == "event" and r.event_id]
    assert len(ids) == len(set(ids))
    assert {f"mv-{i}" for i in acked} <= set(ids)
    # 0 commands doubled: each client got each command of the log once, across its reconnects
    for p in (gm, far):
        once_each(p.commands, rows)
    assert gm.connects + far.connects >= 3  # a node took over and its clients reconnected
    # no event was refused: each waited at its node for the new owner (or its ack was lost
    # with the connection, and the client sent it again, as the companions do)
    assert gm.refusals == []


async def test_a_paused_owner_is_fenced_out(postgres_url, nodes):
    db = postgres_url
    gm_key, _ = create_world(db, "table1")
    n0, n1, n2 = await nodes(3)
    at_owner = await TableClient().connect(n0.url, "table1", gm_key)  # node-0 owns it
    gm = Player([n1.url, n2.url], gm_key)
    await gm.connect()
    try:
        assert (await at_owner.send("snapshot", scene()))["ok"]
        for i in range(5):
            await gm.send("tokenMoved", move(i))

        os.kill(n0.proc.pid, signal.SIGSTOP)  # paused: its lease runs out unrenewed
        for i in range(5, 10):  # refused until another node takes the world
            await gm.send("tokenMoved", move(i))

        late = asyncio.ensure_future(at_owner.send_unless_closed("tokenMoved", move(99)))
        os.kill(n0.proc.pid, signal.SIGCONT)  # it resumes with an event of its client in hand
        ack = await late  # refused, or (None) node-0 closed the connection first
        assert ack is None or ack["ok"] is False, ack
        await printed(n0.output, "World 'table1' is unloaded: world 'table1' is no longer owned")
        await gm.send("tokenMoved", move(10))
    finally:
        await at_owner.close()
        await gm.close()
    assert gm.refusals == []
    rows = log_rows(db)
    one_owner_at_a_time(rows)
    moves = [r.event_id for r in rows if r.kind == "event" and r.event_id.startswith("mv-")]
    assert moves == [f"mv-{i}" for i in range(11)]  # the paused node's late move is not there
    fences = {r.event_id: r.fence for r in rows if r.kind == "event"}
    assert len({fences[f"mv-{i}"] for i in range(5)}) == 1
    assert fences["mv-4"] < fences["mv-5"] == fences["mv-10"]


async def test_a_missed_note_is_read_from_the_log(tmp_path):
    """A node told of some commits and not of others (a note lost, a new owner) sends its
    connections every command anyway: the gap is read from the log."""
    store = await open_storage(tmp_path / "w.sqlite3")
    try:
        await store.create_world("table1", "h1", "h2")
        lease = await store.acquire("table1", "owner", 30)
        assert lease is not None
        rows = store.log(lease)
        msgs = [{"seq": s, "op": "chat.post", "data": {"text": f"c{s}"}} for s in range(1, 7)]
        for m in msgs:
            rows.command(m["seq"], m["op"], row_body(m))
        await rows.barrier()
        rec = await store.world("table1")
        assert rec is not None
        unstarted = Cluster("redis://127.0.0.1:1/0", None, {}, 1.0)  # type: ignore[arg-type]
        remote = RemoteWorld(rec, unstarted, store, seq=0, keep=100, on_orphaned=lambda r: None)
        box = remote.outbox
        box.noted(0, 2, msgs[:2])  # heard
        box.noted(4, 6, msgs[4:])  # the note of 3 and 4 was missed
        assert (await box.after(0)).messages == msgs
        assert (await box.after(5)).messages == msgs[5:]
        assert await box.count_after(2) == 4
    finally:
        await store.close()


async def test_a_client_naming_no_seq_resumes_at_the_saved_ack_while_the_owner_is_silent(
    postgres_url, redis_url
):
    """A client that names no ``last_seq`` resumes where the world's GM clients applied the
    commands up to, as saved by the owner, also at a node whose forwarded events found the
    owner silent (dead, or hanging with its lease running): that node's own figure is older
    (its clients' acks go to the owner), and taking it would send the client again every
    command it applied."""
    gm_key, _ = create_world(postgres_url, "table1")
    cfg = {"redis": redis_url, "lease_ttl": 30.0}  # the owner keeps the world for the test
    owner = await start_server(postgres_url, node="node-0", **cfg)
    other = await start_server(postgres_url, node="node-1", **cfg)
    gm = TableClient()
    watcher = TableClient(ack=False)
    try:
        await gm.connect(owner.url, "table1", gm_key)  # node-0 takes the world
        assert (await gm.send("snapshot", scene()))["ok"]
        await watcher.connect(other.url, "table1", gm_key)  # node-1 follows it
        for i in range(5):
            assert (await gm.send("chat", {"id": f"c{i}", "text": "!help", "role": "gm"}))["ok"]
        await gm.caught_up()
        async with asyncio.timeout(10):  # the gm's acks saved by the owner
            while run_blocking(postgres_url, lambda s: s.world("table1")).acked_seq < gm.last_seq:
                await asyncio.sleep(0.05)
        # an event of node-1's found no owner (what RemoteWorld.receive marks): a connect
        # there tries to take the world, which the owner's lease refuses
        other.bridge.hosting.remote["table1"].orphaned = True
        plain = TableClient()
        await plain.connect(other.url, "table1", gm_key)  # no last_seq
        try:
            assert await plain.caught_up(via=gm) == []  # nothing applied is sent again
            assert "table1" in owner.bridge.worlds and "table1" not in other.bridge.worlds
        finally:
            await plain.close()
    finally:
        await gm.close()
        await watcher.close()
        await other.stop()
        await owner.stop()
