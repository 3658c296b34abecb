"""The Foundry adapter behind a real bridge: a python-socketio client on /foundry speaking the
module's payloads (a temp SQLite file, a free port), in a Fallout: Equestria world.

A drag reaches the rules with its waypoints: declared a charge (``!charge`` after the drag), an
L-shaped path is refused and a straight 20 ft one ending next to the target is allowed; a
burrowing hellhound in a tunnel region sneaks under its +50 / 2 MFD field by itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import socketio
from vttbridge.adapters.bridge.server import Bridge, BridgeConfig, create_world
from vttbridge.adapters.foundry import FoundryAdapter

from tests.adapters.commands import commands_up_to

from .conftest import fixture

NS = "/foundry"
CLIENT = {"name": "vttbridge-foundry", "version": "0.1.0", "vtt": "foundry 12", "system": "x"}
GM, PLAYER = "gM0000000000000A", "kT3rPq8Zx1LmNo2B"
KEVIN, GARY, THUG = "tKevin0000000001", "tGary00000000002", "Zq9XbC2dE4fG6hJ8"


class Module:
    """What the companion module does on the wire: emits hook payloads, acks commands."""

    def __init__(self, bridge: Bridge) -> None:
        self.sio = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        self.bridge = bridge
        self.commands: list[dict[str, Any]] = []
        self.n = 0

        @self.sio.on("command", namespace=NS)
        async def on_command(msg: dict[str, Any]) -> dict[str, Any]:
            self.commands.append(msg)
            return {"ok": True}

    async def send(self, event: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
        """Send one hook payload; the commands the bridge sent in answer."""
        before = len(self.commands)
        self.n += 1
        ack = await self.sio.call(event, {"id": f"e{self.n}", **payload}, namespace=NS, timeout=10)
        assert ack["ok"], ack
        await commands_up_to(self.commands, ack["seq"], self.bridge.worlds["wasteland"].seq)
        return self.commands[before:]

    async def chat(self, text: str, token: str, user: str = PLAYER) -> list[dict[str, Any]]:
        msg = {"_id": f"m{self.n}", "author": user, "content": text, "speaker": {"token": token}}
        return await self.send("createChatMessage", {"userId": user, "message": msg})

    async def drag(self, token: str, cells: list[tuple[int, int]], user: str = PLAYER) -> Any:
        """A drag along ``cells`` (start, waypoints, end) on the 100 px grid."""
        (x0, y0), (x1, y1) = cells[0], cells[-1]
        payload = {
            "userId": user,
            "sceneId": "NUEDEFAULTSCENE0",
            "token": {"_id": token, "x": x1 * 100, "y": y1 * 100, "width": 1, "height": 1},
            "changes": {"_id": token, "x": x1 * 100, "y": y1 * 100},
            "origin": {"x": x0 * 100, "y": y0 * 100},
            "waypoints": [{"x": x * 100, "y": y * 100} for x, y in cells[1:-1]],
        }
        return await self.send("updateToken", payload)


def texts(commands: list[dict[str, Any]]) -> str:
    """The chat of the commands, questions' whispers included (their fallback)."""
    chats = [c["data"]["fallback"] if c["op"] == "User.query" else c["data"] for c in commands]
    ops = [c["op"] for c in commands]
    return "\n".join(
        str(d.get("content")) for d, op in zip(chats, ops, strict=True)
        if op in ("ChatMessage.create", "User.query")
    )  # fmt: skip


def snapshot(at: dict[str, tuple[int, int]], regions: list[dict] | None = None) -> dict:
    """The fixture's warehouse with tokens moved to ``at`` (cells); Kevin's actor is owned by
    his player; the combat (Kevin 22, Gary 18, Thug 14) is at Kevin's turn."""
    snap = fixture("snapshot")
    for t in snap["tokens"]:
        x, y = at[t["_id"]]
        t.update(x=x * 100, y=y * 100)
    snap["actors"] = [
        {"_id": "aKevin0000000001", "name": "Kevin", "ownership": {PLAYER: 3}},
        {"_id": "aGary00000000002", "name": "Gary"},
        {"_id": "a1B2c3D4e5F6g7H8", "name": "Thug"},
    ]
    snap["regions"] = regions or []
    return snap


@pytest.fixture
async def module(tmp_path: Path) -> AsyncIterator[Module]:
    db = tmp_path / "foundry.sqlite3"
    key, _ = create_world(db, "wasteland", {"system": "foe"})
    bridge = Bridge(BridgeConfig(database=db, reload_scripts=False), adapters=[FoundryAdapter()])
    port = await bridge.listen("127.0.0.1", 0)
    m = Module(bridge)
    await m.sio.connect(
        f"http://127.0.0.1:{port}",
        namespaces=[NS],
        auth={"world": "wasteland", "key": key, "client": CLIENT},
        transports=["websocket"],
        wait_timeout=5,
    )
    yield m
    await m.sio.disconnect()
    await bridge.shutdown()


def moves(commands: list[dict]) -> list[dict]:
    """Token updates that move a token (not the budget flag every move updates)."""
    return [c for c in commands if c["op"] == "Token.update" and "x" in c["data"]]


async def test_an_l_shaped_drag_declared_a_charge_is_refused(module: Module) -> None:
    await module.send("snapshot", snapshot({KEVIN: (10, 5), GARY: (11, 9), THUG: (15, 5)}))
    out = await module.drag(KEVIN, [(10, 5), (12, 5), (12, 6), (14, 6)])  # 25 ft, an L
    assert not moves(out)  # a legal move: it stays
    out = await module.chat("!charge Thug", KEVIN)
    assert "Kevin's charge must run in a straight line." in texts(out)
    assert "charges" not in texts(out)


async def test_a_straight_dragged_20_ft_charge_ending_adjacent_is_allowed(module: Module) -> None:
    await module.send("snapshot", snapshot({KEVIN: (10, 5), GARY: (11, 9), THUG: (15, 5)}))
    await module.drag(KEVIN, [(10, 5), (14, 5)])  # 20 ft straight, next to the thug
    out = await module.chat("!charge Thug", KEVIN)
    text = texts(out)
    assert "Kevin charges 20 ft!" in text
    assert "Whom does Kevin attack at the end of the charge?" in text
    assert not moves(out)  # the drag already put him there


async def test_a_burrowing_hellhound_in_a_tunnel_sneaks_under_its_field(module: Module) -> None:
    tunnel = {"_id": "rTunnel000000001", "name": "Tunnel", "cells": [[x, 5] for x in range(8, 13)]}
    await module.send(
        "snapshot", snapshot({KEVIN: (10, 5), GARY: (11, 9), THUG: (15, 5)}, regions=[tunnel])
    )
    await module.chat("!stats Kevin burrowing=true sneak_skill=40", KEVIN, user=GM)
    await module.chat("!stats Thug perception_skill=50", THUG, user=GM)
    out = await module.chat("!sneak", KEVIN)  # no flag: Kevin burrows, alone in the tunnel
    text = texts(out)
    assert "against 65" in text  # 40 - 25 + 50
    assert "Thug rolls Perception" in text and "against 25" in text  # 50, 2 MFD steps
    assert "Kevin sneaks under the ground: up to 25 ft this action." in text
