"""MyTable's tests: its translations on their own, then the adapter as installed, through a real
``vttbridge serve`` (found by its entry point) and a python-socketio client that talks to it as
MyTable's own client would: connect with a world's key, send events, get acks and commands.

Run them from this folder after ``pip install -e '.[test]'``: ``python -m pytest``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from vttbridge.adapters.base import TranslationError
from vttbridge.adapters.testing import untranslated, world_from
from vttbridge.sdk import Cell
from vttbridge.sdk import effects as fx

# the package must be installed (its entry point is how vttbridge finds it)
MyTable = pytest.importorskip(
    "mytable_vtt", reason="install this package first: pip install -e '.[test]' in its folder"
).MyTable

NS = "/mytable"


def snapshot(**tokens: tuple[int, int]) -> dict[str, Any]:
    """A MyTable scene: 50 px cells of 5 ft; Kevin is Pat's, everyone else hostile."""
    return {
        "id": f"snap-{uuid.uuid4().hex[:8]}",
        "scene": {"id": "s1", "name": "Warehouse", "gridSize": 50, "width": 2000, "height": 2000},
        "tokens": [
            {
                "id": tid,
                "name": tid.title(),
                "x": x,
                "y": y,
                "owners": ["u-pat"] if tid == "kevin" else [],
                "disposition": "friendly" if tid == "kevin" else "hostile",
            }
            for tid, (x, y) in tokens.items()
        ],
        "users": [
            {"id": "u-gm", "name": "Dana", "isGM": True},
            {"id": "u-pat", "name": "Pat"},
        ],
        "regions": [{"name": "door", "cells": [[5, 0], [5, 1]]}],
    }


# -- the translations, without a server --------------------------------------------------------


def test_every_effect_is_translated_or_declined():
    adapter = MyTable()
    assert untranslated(adapter, world_from(adapter, snapshot(kevin=(50, 50)))) == {}


def test_moves_become_cells_and_bad_ones_are_refused():
    adapter = MyTable()
    world = world_from(adapter, snapshot(kevin=(50, 50)))
    assert world.tokens["kevin"].cell.x == 1 and world.regions["door"].cells[0].x == 5
    model = adapter.inbound["tokenMoved"]
    (moved,) = adapter.translate_in(
        "tokenMoved",
        model.model_validate({"id": "m1", "tokenId": "kevin", "x": 260, "y": 110}),
        world,
    )
    assert (moved.to_cell.x, moved.to_cell.y) == (5, 2)
    ghost = model.model_validate({"id": "m2", "tokenId": "ghost", "x": 0, "y": 0})
    with pytest.raises(TranslationError) as err:
        adapter.translate_in("tokenMoved", ghost, world)
    assert err.value.code == "unknown_token" and err.value.path == "tokenId"
    with pytest.raises(TranslationError, match="off the scene"):
        adapter.translate_in(
            "tokenMoved",
            model.model_validate({"id": "m3", "tokenId": "kevin", "x": 2500, "y": 0}),
            world,
        )


def test_effects_become_mytable_commands():
    adapter = MyTable()
    world = world_from(adapter, snapshot(kevin=(50, 50)))
    (cmd,) = adapter.translate_out(fx.UpdateToken(token="kevin", cell=Cell(x=3, y=4)), world)
    assert cmd.op == "token.update" and cmd.data == {"tokenId": "kevin", "x": 150, "y": 200}
    (end,) = adapter.translate_out(fx.AdvanceTurn(round=0), world)
    assert end.op == "combat.end"


# -- the installed adapter, through a real vttbridge serve --------------------------------------


class Served:
    """A ``vttbridge serve`` process on a free port, its database and its output."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.output: list[str] = []
        self.url = ""
        self._listening = threading.Event()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vttbridge", "serve", "--db", str(db), "--port", "0",
             "--no-default-world", "--rate", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        if not self._listening.wait(60):
            self.stop()
            raise AssertionError("vttbridge serve did not start:\n" + "".join(self.output))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            found = re.search(r"Listening on (http://[\d.]+:\d+)", line)
            if found:
                self.url = found.group(1)
                self._listening.set()

    def new_world(self, name: str, system: str = "spycraft") -> str:
        """Create a world with the CLI while the server runs; returns its GM key."""
        done = subprocess.run(
            [sys.executable, "-m", "vttbridge", "world", "create", name, "--system", system,
             "--db", str(self.db)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return re.search(r"GM key[^:]*:\s*(vtt_gm_\S+)", done.stdout).group(1)  # type: ignore[union-attr]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("mytable") / "bridge.sqlite3")
    yield server
    server.stop()


class MyTableClient:
    """What MyTable's client does: connect to ``/mytable`` with a world and its key, send
    events with an ``id`` (each acknowledged), and carry out (here: record) and ack every
    command."""

    def __init__(self) -> None:
        self.sio = socketio.AsyncClient(reconnection=False)
        self.commands: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()

        @self.sio.on("command", namespace=NS)
        async def command(msg: dict[str, Any]) -> dict[str, Any]:
            self.commands.append(msg)
            self._arrived.set()
            return {"ok": True}

    async def connect(self, url: str, world: str, key: str) -> MyTableClient:
        auth = {"world": world, "key": key, "client": {"name": "mytable-test", "version": "0.1"}}
        await self.sio.connect(url, namespaces=[NS], auth=auth, transports=["websocket"])
        return self

    async def send(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        payload = {"id": uuid.uuid4().hex, **payload}
        return await self.sio.call(event, payload, namespace=NS, timeout=10)

    async def answered(self, event: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
        """Send an event (it must be accepted) and return the commands it brought: the bridge
        sends a world's commands in order, so all of them are in once the answer to a marker
        (``!help`` from the GM) arrived."""
        before = len(self.commands)
        ack = await self.send(event, payload)
        assert ack["ok"], ack
        marker = await self.send("chatMessage", {"text": "!help", "userId": "u-gm"})
        async with asyncio.timeout(10):
            while not self.commands or self.commands[-1]["seq"] <= marker["seq"]:
                self._arrived.clear()
                await self._arrived.wait()
        return [c for c in self.commands[before:] if c["seq"] < marker["seq"]]

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.sio.disconnect()


@pytest.fixture
async def table(served: Served):
    """A client linked to a fresh world of its own, with the scene sent."""
    name = f"table-{uuid.uuid4().hex[:8]}"
    client = await MyTableClient().connect(served.url, name, served.new_world(name))
    await client.answered("snapshot", snapshot(kevin=(50, 50), thug=(900, 900)))
    yield client
    await client.close()


def chat(commands: list[dict[str, Any]], whisper: str | bool | None = False) -> str:
    return "\n".join(
        c["data"]["text"]
        for c in commands
        if c["op"] == "chat.send" and (whisper is False or c["data"]["whisperTo"] == whisper)
    )


def test_the_bridge_serves_mytable_from_its_entry_point(served: Served):
    assert "mytable (/mytable)" in "".join(served.output)


async def test_a_chat_command_is_answered_in_chat(table: MyTableClient):
    out = await table.answered("chatMessage", {"text": "!help ready", "userId": "u-pat"})
    assert "!ready <action> --when" in chat(out, "u-pat")


async def test_a_ready_asks_its_player_and_the_answer_fires_it(table: MyTableClient):
    combat = {"combatants": [{"tokenId": "kevin", "initiative": 22}, {"tokenId": "thug"}]}
    out = await table.answered("combatStarted", combat)
    assert [c["data"] for c in out if c["op"] == "combat.setTurn"][-1]["tokenId"] == "kevin"
    ready = {"text": "!ready shoot --when door", "userId": "u-pat", "tokenId": "kevin"}
    assert "Kevin readies: shoot" in chat(await table.answered("chatMessage", ready))

    out = await table.answered("tokenMoved", {"tokenId": "thug", "x": 250, "y": 50})
    (ask,) = [c["data"] for c in out if c["op"] == "chat.ask"]
    assert ask["userId"] == "u-pat" and ask["options"] == ["fire", "cancel"]
    answer = {"text": f"!answer {ask['promptId']} fire", "userId": "u-pat"}
    assert "takes his readied action" in chat(await table.answered("chatMessage", answer))


async def test_a_bad_payload_is_refused_with_the_field(table: MyTableClient):
    ack = await table.send("tokenMoved", {"tokenId": "kevin", "x": -5, "y": 0})
    assert not ack["ok"] and ack["error"]["path"] == "x", ack
    ack = await table.send("tokenMoved", {"tokenId": "ghost", "x": 0, "y": 0})
    assert ack["error"]["code"] == "unknown_token"


@pytest.mark.slow  # vttbridge schema in a process of its own
def test_vttbridge_schema_publishes_mytables_payloads(tmp_path: Path):
    subprocess.run(
        [sys.executable, "-m", "vttbridge", "schema", "--out", str(tmp_path)], check=True
    )
    index = json.loads((tmp_path / "index.json").read_text())
    assert "mytable/in/tokenMoved.json" in index and "mytable/out/chat.ask.json" in index
    moved = json.loads((tmp_path / "mytable" / "in" / "tokenMoved.json").read_text())
    assert {"id", "tokenId", "x", "y"} <= set(moved["properties"])
