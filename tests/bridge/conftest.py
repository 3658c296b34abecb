"""Fixtures: a real bridge on a free port, real python-socketio clients, a temp SQLite file."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import socketio

from adapters.bridge.server import Bridge, BridgeConfig, create_world
from adapters.bridge.world import WorldConfig
from tests.bridge.minitable import MiniTable

NS = "/minitable"
CLIENT = {"name": "minitable-test", "version": "1.0", "vtt": "MiniTable"}


def scene(tokens: dict[str, tuple[int, int]] | None = None, id: str = "snap-1") -> dict:
    """A MiniTable snapshot payload; ``tokens`` maps id -> (x, y) in px."""
    tokens = tokens or {"kevin": (100, 100), "ally": (500, 100), "thug": (900, 900)}
    return {
        "id": id,
        "scene": {"id": "s1", "name": "Warehouse"},
        "tokens": [{"id": t, "name": t.title(), "x": x, "y": y} for t, (x, y) in tokens.items()],
        "users": [{"id": "u-gm", "name": "Dana", "role": "gm"}],
    }


class TableClient:
    """A MiniTable companion client: records every command and acks it (``ack=False``: a
    client that receives commands but never gets to apply them)."""

    def __init__(self, *, ack: bool = True) -> None:
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.commands: list[dict[str, Any]] = []
        self.ack = ack
        self._got = asyncio.Event()

        @self.sio.on("command", namespace=NS)
        async def on_command(msg: dict[str, Any]) -> Any:
            self.commands.append(msg)
            self._got.set()
            if not self.ack:  # python-socketio acks whatever a handler returns: never return
                await asyncio.Event().wait()
            return {"ok": True}

    async def connect(
        self,
        url: str,
        world: str,
        key: str,
        *,
        last_seq: int | None = None,
        transport: str = "websocket",
        **extra: Any,
    ) -> TableClient:
        auth: dict[str, Any] = {"world": world, "key": key, "client": CLIENT, **extra}
        if last_seq is not None:
            auth["last_seq"] = last_seq
        await self.sio.connect(
            url, namespaces=[NS], auth=auth, transports=[transport], wait_timeout=5
        )
        return self

    async def send(self, event: str, payload: Any, timeout: float = 10) -> dict[str, Any]:
        return await self.sio.call(event, payload, namespace=NS, timeout=timeout)

    async def wait_commands(self, n: int, timeout: float = 5) -> list[dict[str, Any]]:
        """Wait until at least ``n`` commands arrived."""
        async with asyncio.timeout(timeout):
            while len(self.commands) < n:
                self._got.clear()
                await self._got.wait()
        return self.commands

    async def settle(self, quiet: float = 0.15) -> None:
        """Wait until no command arrived for ``quiet`` seconds."""
        while True:
            self._got.clear()
            try:
                await asyncio.wait_for(self._got.wait(), quiet)
            except TimeoutError:
                return

    @property
    def last_seq(self) -> int | None:
        return max((c["seq"] for c in self.commands), default=None)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.sio.disconnect()


class Server:
    """A running bridge and how to reach it."""

    def __init__(self, bridge: Bridge, url: str) -> None:
        self.bridge, self.url = bridge, url

    async def stop(self, *, snapshot: bool = True) -> None:
        await self.bridge.shutdown(snapshot=snapshot)


async def start_server(db: Path, bridge: Bridge | None = None, **cfg: Any) -> Server:
    """A bridge (by default with only MiniTable) served on a free port."""
    if bridge is None:
        world_cfg = cfg.pop("world", None) or WorldConfig()
        config = BridgeConfig(database=db, world=world_cfg, reload_scripts=False, **cfg)
        bridge = Bridge(config, adapters=[MiniTable()])
    port = await bridge.listen("127.0.0.1", 0)
    return Server(bridge, f"http://127.0.0.1:{port}")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "bridge.sqlite3"


@pytest.fixture
def worlds(db: Path) -> dict[str, tuple[str, str]]:
    """Two worlds: name -> (GM key, observer key)."""
    return {name: create_world(db, name) for name in ("table1", "table2")}


@pytest.fixture
async def server(db: Path, worlds: dict[str, tuple[str, str]]) -> AsyncIterator[Server]:
    srv = await start_server(db)
    yield srv
    await srv.stop()


@pytest.fixture
async def client_factory() -> AsyncIterator[Callable[..., TableClient]]:
    made: list[TableClient] = []

    def make(**kw: Any) -> TableClient:
        c = TableClient(**kw)
        made.append(c)
        return c

    yield make
    for c in made:
        await c.close()


@pytest.fixture
async def gm(
    server: Server, worlds: dict[str, tuple[str, str]], client_factory: Callable[..., TableClient]
) -> TableClient:
    """A GM client linked to table1 with the default scene sent."""
    c = await client_factory().connect(server.url, "table1", worlds["table1"][0])
    ack = await c.send("snapshot", scene())
    assert ack["ok"], ack
    return c
