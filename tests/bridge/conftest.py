"""Fixtures: a real bridge on a free port, real python-socketio clients, a temp SQLite file (or
a schema of the test PostgreSQL: ``database``)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world
from vttbridge.adapters.bridge.storage import run_blocking

from tests.bridge.minitable import MiniTable
from tests.services import database, postgres, postgres_url, redis_url  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
NS = "/minitable"
CLIENT = {"name": "minitable-test", "version": "1.0", "vtt": "MiniTable"}
_markers = itertools.count(1)


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
    client that receives commands but never gets to apply them). ``sio``: options of its
    python-socketio client (``http_session``: one bound to another local address...)."""

    def __init__(self, *, ack: bool = True, **sio: Any) -> None:
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False, **sio)
        self.commands: list[dict[str, Any]] = []
        self.ack = ack
        self._got = asyncio.Event()
        self.disconnected = asyncio.Event()
        """Set once the connection ended (the server closed it, or the transport went)."""
        self.sio.on("disconnect", lambda *_: self.disconnected.set(), namespace=NS)

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
        transport: str | list[str] = "websocket",
        **extra: Any,
    ) -> TableClient:
        auth: dict[str, Any] = {"world": world, "key": key, "client": CLIENT, **extra}
        if last_seq is not None:
            auth["last_seq"] = last_seq
        transports = [transport] if isinstance(transport, str) else transport
        self.disconnected.clear()
        await self.sio.connect(
            url, namespaces=[NS], auth=auth, transports=transports, wait_timeout=5
        )
        return self

    async def send(self, event: str, payload: Any, timeout: float = 10) -> dict[str, Any]:
        return await self.sio.call(event, payload, namespace=NS, timeout=timeout)

    async def send_unless_closed(
        self, event: str, payload: Any, timeout: float = 10
    ) -> dict[str, Any] | None:
        """The ack of ``event``, or None if the server closed the connection before it
        acknowledged it. No answer within ``timeout`` is neither: it raises TimeoutError
        (python-socketio's ``call`` would wait out its timeout after a close, too)."""
        call = asyncio.ensure_future(self.send(event, payload, timeout=timeout))
        closed = asyncio.ensure_future(self.disconnected.wait())
        done, _ = await asyncio.wait({call, closed}, return_when=asyncio.FIRST_COMPLETED)
        closed.cancel()
        if call in done:
            return call.result()
        call.cancel()
        return None

    async def wait_commands(self, n: int, timeout: float = 5) -> list[dict[str, Any]]:
        """Wait until at least ``n`` commands arrived."""
        async with asyncio.timeout(timeout):
            while len(self.commands) < n:
                self._got.clear()
                await self._got.wait()
        return self.commands

    async def wait_commands_upto(self, seq: int, timeout: float = 5) -> list[dict[str, Any]]:
        """Wait until the command of log seq ``seq`` arrived (and so every one before it)."""
        async with asyncio.timeout(timeout):
            while (self.last_seq or 0) < seq:
                self._got.clear()
                await self._got.wait()
        return self.commands

    async def caught_up(
        self, via: TableClient | None = None, timeout: float = 10
    ) -> list[dict[str, Any]]:
        """Wait until every command the server has for this client now has arrived, and
        return the ones that came since it connected. ``via`` (this client unless given: a
        GM client of the same world) asks for one more command (``!help``); the server sends
        each connection its commands in order, so all before that one arrive first. That
        marker stays in :attr:`commands` (so :attr:`last_seq` is where the log ends); it is
        not in what is returned."""
        sender = via or self
        marker = {"id": f"caught-up-{next(_markers)}", "text": "!help", "role": "gm"}
        ack = await sender.send("chat", marker)
        assert ack["ok"], ack
        async with asyncio.timeout(timeout):
            while not self.commands or self.commands[-1]["seq"] <= ack["seq"]:
                self._got.clear()
                await self._got.wait()
        return [c for c in self.commands if c["seq"] <= ack["seq"]]

    @property
    def last_seq(self) -> int | None:
        return max((c["seq"] for c in self.commands), default=None)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.sio.connected and self.sio.transport() == "polling":
                # python-engineio's client would wait for its open long-poll (up to the ping
                # interval and timeout): it closes without waiting, and the server, told by
                # engine.io's CLOSE, ends the connection's namespaces as for a disconnect
                await self.sio.eio.disconnect(abort=True)
            await self.sio.disconnect()


async def acknowledged(server: Server, client: TableClient, world: str = "table1") -> None:
    """Wait until the server has the GM ``client``'s acks of every command it received."""
    box = server.bridge.worlds[world].outbox
    async with asyncio.timeout(5):
        while box.acked_seq < (client.last_seq or 0):
            await asyncio.sleep(0.01)


async def refused(url: str, auth: object) -> tuple[str, dict]:
    """Connect expecting a refusal; returns (message, data) the server sent."""
    sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
    errors: list[object] = []

    @sio.on("connect_error", namespace=NS)
    def on_error(data: object) -> None:
        errors.append(data)

    with pytest.raises(socketio.exceptions.ConnectionError):
        await sio.connect(url, namespaces=[NS], auth=auth, transports=["websocket"], wait_timeout=5)
    await sio.disconnect()
    assert errors, "the server said nothing"
    err = errors[0]
    assert isinstance(err, dict)
    return err["message"], err.get("data") or {}


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


async def start_serve(
    db: Path, *args: str, output: list[str] | None = None, until: str = "Listening on"
) -> tuple[subprocess.Popen, str]:
    """``vttbridge serve`` (MiniTable, no rate limit) in a subprocess on a free port, with
    ``args`` added; returns it and its URL (once it printed ``until``: "" if that came before
    the URL). Its output lines go to ``output``."""
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "vttbridge", "serve",
            "--db", str(db), "--port", "0", "--no-default-world", "--rate", "0",
            "--adapter", "tests.bridge.minitable:MiniTable", *args,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    lines = output if output is not None else []
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(30):
        while True:
            line = await loop.run_in_executor(None, proc.stdout.readline)
            if not line:
                raise AssertionError(f"serve exited early ({proc.wait()}): {''.join(lines)}")
            lines.append(line)
            if until in line:
                break

    def drain() -> None:  # so the pipe never fills up and blocks the server
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)

    loop.run_in_executor(None, drain)
    m = re.search(r"Listening on (http://[\d.]+:\d+)", "".join(lines))
    return proc, m.group(1) if m else ""


def logged(db: Path | str) -> tuple[list[str], list[int]]:
    """(event ids in log order, command seqs) for table1 (in either backend)."""
    rows = run_blocking(db, lambda store: store.log_after("table1", 0))
    events = [r.event_id for r in rows if r.kind == "event" and r.event_id]
    return events, [r.seq for r in rows if r.kind == "command"]


async def moves_in_parallel(client: TableClient, n: int) -> list[int]:
    """Send ``n`` moves of Kevin at once (to columns 0..n-1); check that every one was
    acknowledged, in the order sent, and return their seqs."""
    acks = await asyncio.gather(
        *(
            client.send("tokenMoved", {"id": f"mv-{i}", "token": "kevin", "x": 100 * i, "y": 0})
            for i in range(n)
        )
    )
    assert all(a["ok"] for a in acks), acks
    seqs = [a["seq"] for a in acks]
    assert seqs == sorted(seqs) and len(set(seqs)) == n
    return seqs


async def printed(output: list[str], text: str, timeout: float = 10) -> None:
    """Wait until ``text`` is in the output :func:`start_serve` collects (a thread reads it,
    so the last lines of a process that just exited may still be on their way)."""
    try:
        async with asyncio.timeout(timeout):
            while text not in "".join(output):
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"{text!r} was not printed:\n{''.join(output)}") from None


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


class StartedServe:
    """A ``vttbridge serve`` started as a GM starts it, read up to the end of its block."""

    def __init__(self, proc: subprocess.Popen, block: str, db: Path) -> None:
        self.proc, self.block, self.db = proc, block, db
        self.url = self._find(r"Server URL\s+(\S+)")
        self.gm = self._find(r"GM key\s+(\S+)")
        self.observer = self._find(r"Observer key\s+(\S+)")

    def _find(self, pattern: str) -> str:
        m = re.search(pattern, self.block)
        assert m, self.block
        return m.group(1)


@contextlib.contextmanager
def started_serve(cwd: Path) -> Iterator[StartedServe]:
    """``vttbridge serve --port 0`` in ``cwd`` (a new database, so a new ``default`` world),
    once its block is out: its URL and keys as a GM copies them. Stopped with Ctrl-C."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vttbridge", "serve", "--port", "0"],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        block = ""
        while "Stop the server" not in block:
            line = proc.stdout.readline()
            assert line, f"serve exited: {block}"
            block += line
        yield StartedServe(proc, block, cwd / "vttbridge.sqlite3")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
