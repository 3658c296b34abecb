"""The cluster as a browser and any socket.io client meet it, under the default settings
(three ``vttbridge serve`` nodes, one PostgreSQL, one redis-server, a TCP load balancer in
front): the dashboard at a node that does not run the world, refusals naming the owner,
``/healthz`` listing the owners, and a plain python-socketio client with its default
reconnection carried through a node's death or its loss of the world."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import urllib.error
import urllib.request
from typing import Any

import pytest
import socketio
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import run_blocking

from tests.bridge.balancer import Balancer
from tests.bridge.conftest import CLIENT, NS, TableClient, scene
from tests.bridge.test_cluster import Player, log_rows, node_pool, once_each, one_owner_at_a_time
from tests.bridge.test_dashboard import offer

pytestmark = pytest.mark.slow


@pytest.fixture
async def nodes(postgres_url, redis_url):
    """``await start(n)``: nodes with the default lease and forward timeout."""
    async with node_pool(postgres_url, redis_url) as start:
        yield start


def get(url: str, key: str | None = None) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, headers={"X-World-Key": key} if key else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Page:
    """The dashboard page's socket (namespace ``/dashboard``), as the page speaks it."""

    def __init__(self) -> None:
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.views: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self._got = asyncio.Event()

        @self.sio.on("welcome", namespace="/dashboard")
        def on_welcome(data: dict[str, Any]) -> None:
            self.welcome = data

        @self.sio.on("view", namespace="/dashboard")
        def on_view(data: dict[str, Any]) -> None:
            self.views.append(data)
            self._got.set()

    async def open(self, url: str, world: str, key: str) -> Page:
        auth = {"world": world, "key": key, "client": {"name": "dashboard", "version": "1"}}
        await self.sio.connect(url, namespaces=["/dashboard"], auth=auth,
                               transports=["websocket"], wait_timeout=5)  # fmt: skip
        return self

    async def view_where(self, test: Any, timeout: float = 10) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                for v in reversed(self.views):
                    if test(v):
                        return v
                self._got.clear()
                await self._got.wait()


async def test_the_dashboard_and_health_at_any_node(postgres_url, nodes):
    gm_key, obs_key = create_world(postgres_url, "table1")
    n0, n1, _ = await nodes(3)
    gm = await TableClient().connect(n0.url, "table1", gm_key)  # node-0 runs it
    page = await Page().open(n1.url, "table1", gm_key)  # signed in at node-1
    watcher = await Page().open(n1.url, "table1", obs_key)
    try:
        assert (await gm.send("snapshot", scene()))["ok"]
        view = await page.view_where(lambda v: v["scene"]["tokens"])
        assert page.welcome == {"world": "table1", "role": "gm"}
        assert view["link"]["node"] == "node-0"  # the page says which node runs the world
        # live: a move at node-0 shows at node-1's page
        assert (await gm.send("tokenMoved", {"id": "m1", "token": "kevin", "x": 700, "y": 0}))["ok"]
        moved = await page.view_where(
            lambda v: any(t["id"] == "kevin" and t["x"] == 7 for t in v["scene"]["tokens"])
        )
        assert moved["world"] == "table1"
        await watcher.view_where(lambda v: v["seq"] >= moved["seq"])
        # the GM answers a question from node-1's page: forwarded to node-0
        await offer(gm)  # the ally is asked whether to stand off
        asked = await page.view_where(lambda v: v["prompts"])
        pid = asked["prompts"][0]["id"]
        ack = await page.sio.call(
            "answer", {"id": "a1", "prompt": pid, "option": "take_attack"}, namespace="/dashboard"
        )
        assert ack["ok"], ack
        await page.view_where(lambda v: not v["prompts"])
        # an observer's answer is refused at node-1 as at the owner
        ack = await watcher.sio.call(
            "answer", {"id": "a2", "prompt": pid, "option": "stand_off"}, namespace="/dashboard"
        )
        assert ack["error"]["code"] == "read_only"

        # the HTTP state read at node-1 names the owner
        status, body = await asyncio.to_thread(get, f"{n1.url}/api/worlds/table1/state", gm_key)
        assert status == 503 and body["error"]["code"] == "world_unavailable"
        assert "node-0" in body["error"]["message"], body
        # /healthz at every node: which node runs which world
        for node, name in ((n0, "node-0"), (n1, "node-1")):
            status, health = await asyncio.to_thread(get, f"{node.url}/healthz")
            assert status == 200 and health["node"] == name
            assert health["owners"] == {"table1": "node-0"}
        assert (await asyncio.to_thread(get, f"{n0.url}/healthz"))[1]["serving"] == ["table1"]
    finally:
        for c in (page, watcher):
            await c.sio.disconnect()
        await gm.close()


class PlainClient:
    """A third-party client: python-socketio's AsyncClient as it comes (reconnection on, no
    ``last_seq``), applying and acking each command."""

    def __init__(self) -> None:
        self.sio = socketio.AsyncClient(handle_sigint=False)
        self.commands: list[dict[str, Any]] = []
        self.connects = 0

        @self.sio.on("command", namespace=NS)
        def on_command(msg: dict[str, Any]) -> dict[str, Any]:
            self.commands.append(msg)
            return {"ok": True}

        @self.sio.on("connect", namespace=NS)
        def on_connect() -> None:
            self.connects += 1

    async def connect(self, url: str, key: str) -> PlainClient:
        await self.sio.connect(
            url, namespaces=[NS], auth={"world": "table1", "key": key, "client": CLIENT}
        )
        return self


async def commands_in(client: PlainClient, db: str, timeout: float = 30) -> None:
    """Wait until ``client`` has every command of the log."""
    async with asyncio.timeout(timeout):
        while True:
            rows = log_rows(db)
            last = max((r.seq for r in rows if r.kind == "command"), default=0)
            if client.commands and client.commands[-1]["seq"] >= last:
                return
            await asyncio.sleep(0.1)


async def acked_saved(client: PlainClient, db: str) -> None:
    """Wait until the world's owner saved the client's acks (where a reconnect resumes)."""
    async with asyncio.timeout(10):
        while run_blocking(db, lambda s: s.world("table1")).acked_seq < client.commands[-1]["seq"]:
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("how", ["dies", "loses the world"])
async def test_a_plain_socketio_client_follows_its_world(postgres_url, nodes, how):
    db = postgres_url
    gm_key, _ = create_world(db, "table1")
    n0, n1, n2 = await nodes(3)
    lb = await Balancer([n0.url, n1.url, n2.url]).start()
    plain = await PlainClient().connect(lb.url, gm_key)  # through the balancer to node-0
    # a companion at node-1 plays the table; it applies no command (else its acks would move
    # the world's acknowledged seq, where a client that sends no last_seq resumes)
    driver = Player([n1.url], gm_key, ack=False)
    await driver.connect()
    try:
        await driver.send("snapshot", scene())
        for i in range(5):
            await driver.send("chat", {"id": f"before-{i}", "text": "!help", "role": "gm"})
        await commands_in(plain, db)
        await acked_saved(plain, db)
        if how == "dies":
            lb.nodes.remove(lb.nodes[0])
            os.kill(n0.proc.pid, signal.SIGKILL)
        else:  # paused past its lease: node-1 takes the world; node-0 wakes up without it
            os.kill(n0.proc.pid, signal.SIGSTOP)
            await driver.send("chat", {"id": "while-paused", "text": "!help", "role": "gm"})
            os.kill(n0.proc.pid, signal.SIGCONT)
        for i in range(5):
            await driver.send("chat", {"id": f"after-{i}", "text": "!help", "role": "gm"})
        await commands_in(plain, db)
        assert plain.sio.connected and plain.connects >= 2  # it came back by itself
    finally:
        await driver.close()
        await plain.sio.disconnect()
        await lb.close()
    rows = log_rows(db)
    one_owner_at_a_time(rows)
    assert len({r.fence for r in rows}) >= 2  # another node took the world over
    once_each(plain.commands, rows)  # every command once, in order, across its reconnects
